#!/usr/bin/env bash
# hprofan sites on dumps built byte by byte (tests/helper/mkhprof.py), every
# figure worked out by hand (size model raw: an Item is 8 bytes, an array its
# elements), and on the corpus:
#  - three sites: trace 10 (Item.<init> <- Cache.put <- Main.main) holds two
#    Items, one dominating the other: shallow 16, dominated 8 + 8 + 100 + 50
#    = 166 (the nested Item once); trace 11 (Cache.grow, line unknown) two
#    byte[]s of 100 and 50; trace 12 (Main.main) a byte[30] held by a root
#    and an unreachable byte[7]: shallow 37, dominated 30;
#  - an Item whose serial names a trace without frames (HotSpot's dummy) and
#    a byte[5] with serial 0 count as without a site (2 objects, 13 bytes);
#  - the call tree top-down (main 6 objects 203 B retaining 196 = 166 + 30,
#    37 B allocated in main itself; put 166 B shallow... its callees grow and
#    <init>) and bottom-up (each allocating frame, then its callers), per
#    node objects, shallow and dominated bytes; --depth and --top cutting
#    with "... N more (objects, bytes)"; --filter / --exclude on the frames
#    (sites left out counted apart); the tree in JSON;
#  - --flat: the site list (largest shallow first), --depth as the frames
#    shown, --top, --collapsed (and its alias --folded: outermost frame first,
#    shallow bytes, a line per stack; at --depth D the stacks cut there) and
#    the JSON's totals adding up;
#  - the same dump without traces: one line says there are no sites, and
#    --folded exits 1 saying why;
#  - corpus: on the JDK hprof agent's dumps the sites' objects and bytes add
#    up to the objects with a real trace, and those with and without one to
#    info's instances and arrays; a HotSpot dump has no sites.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip sites "python3 is absent"; exit 0; }
H=$(cd "$(dirname "$0")/../helper" && pwd)
D=$TMPD

python3 - "$D" "$H" <<'PY' || { fail sites-build "cannot write the test dumps"; exit 0; }
import sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
for name, traced in (("s.hprof", True), ("none.hprof", False)):
    d = Dump()
    obj = d.load_class("java.lang.Object"); d.class_dump(obj)
    item = d.load_class("com.acme.Item"); d.class_dump(item, obj, fields=[("next", OBJECT), ("data", OBJECT)])
    cache = d.load_class("com.acme.Cache"); main = d.load_class("com.acme.Main")
    d.load_class("[B")
    fa = d.stack_frame("<init>", "()V", "Item.java", item, 5)
    fb = d.stack_frame("put", "(Ljava/lang/Object;)V", "Cache.java", cache, 20)
    fc = d.stack_frame("main", "([Ljava/lang/String;)V", "Main.java", main, 3)
    fd = d.stack_frame("grow", "()V", "Cache.java", cache, -1)
    d.stack_trace(1, 1, [])
    d.stack_trace(10, 1, [fa, fb, fc])
    d.stack_trace(11, 1, [fd, fb, fc])
    d.stack_trace(12, 1, [fc])
    t = (lambda n: n) if traced else (lambda n: 1)
    b1 = d.prim_array(BYTE, bytes(100), trace=t(11))
    b2 = d.prim_array(BYTE, bytes(50), trace=t(11))
    i2 = d.instance(item, [0, b2], trace=t(10))
    i1 = d.instance(item, [i2, b1], trace=t(10))
    d.root(i1)
    d.root(d.prim_array(BYTE, bytes(30), trace=t(12)))
    d.prim_array(BYTE, bytes(7), trace=t(12))          # unreachable
    d.root(d.instance(item, [0, 0], trace=1))           # the dummy trace: no site
    d.prim_array(BYTE, bytes(5), trace=0)               # serial 0: no site
    d.write(sys.argv[1] + "/" + name)
PY

cat >"$D/want" <<'W'
3 allocation sites: 6 with a site (203 B), 2 without one (13 B)
retained: the bytes the objects dominate, each once (weak follow, roots threads)

   objects    shallow   retained  site (trace serial, frames top first)
         2      150 B      150 B  trace 11
                                    at com.acme.Cache.grow(Cache.java)
                                    at com.acme.Cache.put(Cache.java:20)
                                    at com.acme.Main.main(Main.java:3)
         2       37 B       30 B  trace 12
                                    at com.acme.Main.main(Main.java:3)
         2       16 B      166 B  trace 10
                                    at com.acme.Item.<init>(Item.java:5)
                                    at com.acme.Cache.put(Cache.java:20)
                                    at com.acme.Main.main(Main.java:3)
W
run_hp "$D/out" "$D/err" sites "$D/s.hprof" --size-model=raw --quiet --flat
rc=$?
if [ $rc = 0 ] && cmp -s "$D/out" "$D/want"; then ok "sites --flat: the table as worked out"
else fail "sites --flat: the table as worked out" "exit $rc: $(diff "$D/want" "$D/out" | head -20) $(head -c 300 "$D/err")"; fi

# the call tree: main holds every stack (6 objects, 203 B, dominating
# 166 + 30 = 196: the unreachable byte[7] dominates nothing), 2 objects of
# 37 B (dominating 30) allocated in main itself; put 166 B over grow's 150 B
# and <init>'s 16 B (dominating 166: the Item chain)
cat >"$D/want.tree" <<'W'
3 allocation sites: 6 with a site (203 B), 2 without one (13 B)
retained: the bytes the objects dominate, each once (weak follow, roots threads)

   objects    shallow   retained  call tree top-down: outermost frame, then what it calls
         6      203 B      196 B  all sites (3)
         6      203 B      196 B    com.acme.Main.main(Main.java:3)
                                      2 objects 37 B, retained 30 B: allocated in this frame
         4      166 B      166 B      com.acme.Cache.put(Cache.java:20)
         2      150 B      150 B        com.acme.Cache.grow(Cache.java)
         2       16 B      166 B        com.acme.Item.<init>(Item.java:5)
W
run_hp "$D/out" "$D/err" sites "$D/s.hprof" --size-model=raw --quiet
rc=$?
if [ $rc = 0 ] && cmp -s "$D/out" "$D/want.tree"; then ok "sites: the call tree top-down as worked out"
else fail "sites: the call tree top-down as worked out" "exit $rc: $(diff "$D/want.tree" "$D/out" | head -20) $(head -c 300 "$D/err")"; fi

# bottom-up: the allocating frames (grow 150, main 37, <init> 16), each
# with its callers
run_hp "$D/out" "$D/err" sites "$D/s.hprof" --size-model=raw --quiet --bottom-up
expect_eq "sites --bottom-up: allocating frames, then their callers" "$(tail -n +5 "$D/out" | sed -E 's/^ +//' | tr -s ' ' | paste -sd'|')" \
  "6 203 B 196 B all sites (3)|2 150 B 150 B com.acme.Cache.grow(Cache.java)|2 150 B 150 B com.acme.Cache.put(Cache.java:20)|2 150 B 150 B com.acme.Main.main(Main.java:3)|2 37 B 30 B com.acme.Main.main(Main.java:3)|2 16 B 166 B com.acme.Item.<init>(Item.java:5)|2 16 B 166 B com.acme.Cache.put(Cache.java:20)|2 16 B 166 B com.acme.Main.main(Main.java:3)"
# --depth 1: main, what is below it counted; --top 1: grow's stack, the other two counted
run_hp "$D/out" "$D/err" sites "$D/s.hprof" --size-model=raw --quiet --depth 1
expect_eq "sites --depth 1: one level, the rest said" "$(tail -n +5 "$D/out" | sed -E 's/^ +//' | tr -s ' ' | paste -sd'|')" \
  "6 203 B 196 B all sites (3)|6 203 B 196 B com.acme.Main.main(Main.java:3)|... 1 more (4 objects, 166 B), below --depth"
run_hp "$D/out" "$D/err" sites "$D/s.hprof" --size-model=raw --quiet --bottom-up --top 1
expect_eq "sites --bottom-up --top 1: the largest child, the others said after it" "$(tail -n +5 "$D/out" | sed -E 's/^ +//' | tr -s ' ' | paste -sd'|')" \
  "6 203 B 196 B all sites (3)|2 150 B 150 B com.acme.Cache.grow(Cache.java)|2 150 B 150 B com.acme.Cache.put(Cache.java:20)|2 150 B 150 B com.acme.Main.main(Main.java:3)|... 2 more (4 objects, 53 B)"
# --filter: only grow's stack; --exclude Item: <init>'s left out
run_hp "$D/out" "$D/err" sites "$D/s.hprof" --size-model=raw --quiet --filter 'Cache\.grow'
expect_eq "sites --filter: only the stacks with a matching frame" "$(sed -n 2p "$D/out"); $(tail -n +6 "$D/out" | sed -E 's/^ +//' | tr -s ' ' | paste -sd'|')" \
  "left out by the filter: 2 sites (4 objects, 53 B); 2 150 B 150 B all sites (1)|2 150 B 150 B com.acme.Main.main(Main.java:3)|2 150 B 150 B com.acme.Cache.put(Cache.java:20)|2 150 B 150 B com.acme.Cache.grow(Cache.java)"
run_hp "$D/out" "$D/err" sites "$D/s.hprof" --size-model=raw --quiet --exclude 'Item.java' --collapsed
expect_eq "sites --exclude --collapsed: the other stacks" "$(paste -sd'|' "$D/out")" \
  "com.acme.Main.main 37|com.acme.Main.main;com.acme.Cache.put;com.acme.Cache.grow 150"
run_hp "$D/out" "$D/err" sites "$D/s.hprof" --quiet --filter 'Nowhere'
expect_eq "sites --filter matching no frame: says so" "$? $(grep -c "no allocation site's stack passes --filter 'Nowhere'" "$D/err")" "0 1"
run_hp "$D/j" "$D/err" sites "$D/s.hprof" --size-model=raw --quiet --json --bottom-up --top 2 --depth 2
expect_eq "sites --json: the tree (level, parent, frame, objects, shallow, retained, self, cut)" \
  "$(jget "$D/j" '[d["view"]] + [(n["level"], n.get("parent"), n.get("frame", {}).get("method"), n["objects"], n["shallow"], n["retained"], n["self_objects"], n["self_shallow"], n["self_retained"], n["children"], n.get("more")) for n in d["tree"]]')" \
  "['bottom-up', (0, None, None, 6, 203, 196, 0, 0, 0, 3, {'nodes': 1, 'objects': 2, 'shallow': 16, 'cut_by': 'top'}), (1, 0, 'grow', 2, 150, 150, 0, 0, 0, 1, None), (2, 1, 'put', 2, 150, 150, 0, 0, 0, 1, {'nodes': 1, 'objects': 2, 'shallow': 150, 'cut_by': 'depth'}), (1, 0, 'main', 2, 37, 30, 2, 37, 30, 0, None)]"

run_hp "$D/out" "$D/err" sites "$D/s.hprof" --size-model=raw --quiet --flat --depth 1 --top 2
expect_eq "sites --flat --depth 1 --top 2: one frame each, the rest counted" \
  "$(tail -n +5 "$D/out" | sed -E 's/^ +//' | tr -s ' ' | paste -sd'|')" \
  "2 150 B 150 B trace 11|at com.acme.Cache.grow(Cache.java)|... 2 more frames|2 37 B 30 B trace 12|at com.acme.Main.main(Main.java:3)|... 1 more sites"

printf '%s\n' 'com.acme.Main.main 37' 'com.acme.Main.main;com.acme.Cache.put;com.acme.Cache.grow 150' \
  'com.acme.Main.main;com.acme.Cache.put;com.acme.Item.<init> 16' >"$D/want.folded"
for o in --collapsed --folded; do
  run_hp "$D/out" "$D/err" sites "$D/s.hprof" --size-model=raw --quiet $o
  rc=$?
  if [ $rc = 0 ] && cmp -s "$D/out" "$D/want.folded"; then ok "sites $o: every stack, outermost frame first, shallow bytes"
  else fail "sites $o: every stack, outermost frame first, shallow bytes" "exit $rc: $(diff "$D/want.folded" "$D/out" | head) $(head -c 300 "$D/err")"; fi
done
run_hp "$D/out" "$D/err" sites "$D/s.hprof" --size-model=raw --quiet --collapsed --depth 2
expect_eq "sites --collapsed --depth 2: the stacks cut at two frames" "$(paste -sd'|' "$D/out")" \
  "com.acme.Main.main 37|com.acme.Main.main;com.acme.Cache.put 166"
run_hp "$D/out" "$D/err" sites "$D/s.hprof" --quiet --collapsed --top 1
expect_eq "sites --collapsed --top: a usage error" "$?" 2

run_hp "$D/j" "$D/err" sites "$D/s.hprof" --size-model=raw --quiet --json --flat --depth 0
expect_eq "sites --json: totals" \
  "$(jget "$D/j" '[d["total"][k] for k in ("sites", "traced_objects", "traced_shallow", "untraced_objects", "untraced_shallow")]')" \
  "[3, 6, 203, 2, 13]"
expect_eq "sites --json: sites (serial, objects, shallow, retained, depth, frames)" \
  "$(jget "$D/j" '[(s["trace_serial"], s["objects"], s["shallow"], s["retained"], s["depth"], [(f["class"], f["method"], f["line"]) for f in s["frames"]]) for s in d["sites"]]')" \
  "[(11, 2, 150, 150, 3, [('com.acme.Cache', 'grow', -1), ('com.acme.Cache', 'put', 20), ('com.acme.Main', 'main', 3)]), (12, 2, 37, 30, 1, [('com.acme.Main', 'main', 3)]), (10, 2, 16, 166, 3, [('com.acme.Item', '<init>', 5), ('com.acme.Cache', 'put', 20), ('com.acme.Main', 'main', 3)])]"
run_hp "$D/out" "$D/err" sites "$D/s.hprof" --json --folded --quiet
expect_eq "sites --json --folded: a usage error" "$?" 2

# no sites: one line says so (and how to get them); --folded fails saying why
run_hp "$D/out" "$D/err" sites "$D/none.hprof" --size-model=raw --quiet
rc=$?
expect_eq "sites without allocation sites: says so" "$rc $(head -n 1 "$D/out" | cut -c1-20) $(tail -n 1 "$D/out")" \
  "0 no allocation sites: (8 objects, 216 B, all without a site)"
run_hp "$D/out" "$D/err" sites "$D/none.hprof" --collapsed --quiet
rc=$?
expect_eq "sites --folded without allocation sites: exit 1, nothing written, the reason" \
  "$rc $(wc -c <"$D/out" | tr -d ' ') $(grep -c 'no allocation sites' "$D/err")" "1 0 1"

# ---- corpus ----------------------------------------------------------------------
if have_corpus sites-corpus; then
  for f in oracle_jdk7_21_hprofagent.hprof sun_jdk6_31_hprofagent_compressedOops.hprof; do
    P=$CORPUS/eclipse-mat__mat/$f
    [ -f "$P" ] || continue
    run_hp "$D/c.json" "$D/err" sites "$P" --json --flat --top 0 --depth 0 --quiet
    run_hp "$D/t.json" "$D/err" sites "$P" --json --top 0 --quiet
    run_hp "$D/top.json" "$D/err2" info "$P" --json --quiet
    python3 - "$D/c.json" "$D/top.json" "$f" "$D/t.json" <<'PY'
import json, sys
s, t, name = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
tree = json.load(open(sys.argv[4]))["tree"]
def check(what, got, want):
    print(("ok sites %s: %s" % (name, what)) if got == want else ("FAIL sites %s: %s: got %r, want %r" % (name, what, got, want)))
tot = s["total"]
check("has sites", tot["sites"] > 0 and len(s["sites"]) == tot["sites"], True)
check("the sites' objects add up to the objects with a trace",
      sum(x["objects"] for x in s["sites"]), tot["traced_objects"])
check("the sites' shallow bytes add up", sum(x["shallow"] for x in s["sites"]), tot["traced_shallow"])
o = t["objects"]
check("every instance and array (info's counts) has a site or not",
      tot["traced_objects"] + tot["untraced_objects"], o["instances"] + o["object_arrays"] + o["primitive_arrays"])
check("every site's frames are there", all(len(x["frames"]) == x["depth"] for x in s["sites"]), True)
check("the tree's root holds every site", (tree[0]["sites"], tree[0]["objects"], tree[0]["shallow"]),
      (tot["sites"], tot["traced_objects"], tot["traced_shallow"]))
kids = {}
for i, n in enumerate(tree):
    if "parent" in n:
        kids.setdefault(n["parent"], []).append(n)
check("each node's objects and bytes: its own plus its children's",
      all(n["objects"] == n["self_objects"] + sum(k["objects"] for k in kids.get(i, [])) and
          n["shallow"] == n["self_shallow"] + sum(k["shallow"] for k in kids.get(i, [])) and
          n["retained"] <= sum(k["retained"] for k in kids.get(i, [])) + n["self_retained"]
          for i, n in enumerate(tree)), True)
check("the leaves' stacks are the sites", sum(1 for n in tree if n["self_objects"]) <= tot["sites"] and
      sum(n["self_objects"] for n in tree) == tot["traced_objects"], True)
PY
  done
  run_hp "$D/out" "$D/err" sites "$CORPUS/agourlay__hprof-slurp/hprof-64.bin" --quiet
  expect_eq "sites on a HotSpot dump: no allocation sites" "$(head -c 20 "$D/out")" "no allocation sites:"
fi
