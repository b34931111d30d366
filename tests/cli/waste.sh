#!/usr/bin/env bash
# hprofan waste on a dump built byte by byte (tests/helper/mkhprof.py), every
# figure worked out by hand (size model raw: an instance is its field bytes,
# an array its elements; ids 4 bytes):
#   Strings (JDK 17 layout: value, coder, hash = 9 bytes)
#     "hello" LATIN1 x3, each its own byte[5]: 3 copies, 3*9+3*5 = 42 bytes, 28 wasted
#     "héllo" UTF16 x2, each its own byte[10]: 2 copies, 38 bytes, 19 wasted
#     "shared" x4 over ONE byte[6]: 4 copies, 36+6 = 42 bytes, 27 wasted
#     "solo" once: no row
#   primitive arrays (no String's value)
#     int[4] {1,2,3,4} x3: arrays row 3, 48 bytes, 32 wasted
#     long[10] all 7 x2: arrays row 2, 160 bytes, 80 wasted; constant row 2, 160 wasted
#     byte[16] all 0 once: a constant row of 1, left out (min-count 2)
#   object arrays: Object[10] with 9 nulls x2: 80 bytes, 2*36 = 72 wasted;
#     Object[10] with 8 nulls: no row
#   collections (ArrayList under AbstractList.modCount: 12 bytes; HashMap
#   with AbstractMap's fields: 32 bytes; ArrayDeque: 12 bytes)
#     ArrayList x2 empty over a shared Object[0]: 24 bytes, 24 wasted
#     ArrayList x2 size 1 of Object[10] (10%): 104 bytes, 2*36 = 72 wasted
#       (their tables, 90% null, are not null-slot rows)
#     ArrayList size 3 of Object[10] (30%): no row
#     HashMap x3 empty, table null: 96 bytes, 96 wasted
#     HashMap x2 size 2 of Node[16] (13%): 192 bytes, 2*56 = 112 wasted
#     ArrayDeque x2 empty, head = tail = 0, each its Object[16]: 152 bytes, 152 wasted
#   boxes: Integer x3: 12 bytes, 0 wasted (raw: a box is its int);
#     under --size-model=mat --header-size 12 --align 8: 48 bytes, 36 wasted
#   total: 74 + 32 + 160 (the long[]s once) + 72 + 24 + 72 + 96 + 112 + 152 = 794
# The same on the dump gzipped (one streaming pass), --top, --min-count, and
# on every dump of the corpus: runs without error.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip waste "python3 is absent"; exit 0; }
H=$(cd "$(dirname "$0")/../helper" && pwd)
D=$TMPD

python3 - "$D" "$H" <<'EOF' || { fail waste-build "cannot write the test dump"; exit 0; }
import sys, struct
sys.path.insert(0, sys.argv[2])
from mkhprof import *
D = sys.argv[1]
d = Dump()
def cls(name, super_id=0, fields=()):
    c = d.load_class(name)
    d.class_dump(c, super_id=super_id, fields=fields)
    return c
obj = cls("java.lang.Object")
string = cls("java.lang.String", obj, [("value", OBJECT), ("coder", BYTE), ("hash", INT)])
objarr = cls("[Ljava/lang/Object;", obj)
nodearr = cls("[Ljava/util/HashMap$Node;", obj)
integer = cls("java.lang.Integer", obj, [("value", INT)])
alist_a = cls("java.util.AbstractList", obj, [("modCount", INT)])
alist = cls("java.util.ArrayList", alist_a, [("elementData", OBJECT), ("size", INT)])
amap = cls("java.util.AbstractMap", obj, [("keySet", OBJECT), ("values", OBJECT)])
hmap = cls("java.util.HashMap", amap, [("table", OBJECT), ("entrySet", OBJECT), ("size", INT),
                                        ("modCount", INT), ("threshold", INT), ("loadFactor", FLOAT)])
deque = cls("java.util.ArrayDeque", obj, [("elements", OBJECT), ("head", INT), ("tail", INT)])
holder = cls("Holder", obj, [("o", OBJECT)])
keep = []
def s(val, coder):
    a = d.prim_array(BYTE, val)
    return d.instance(string, [a, coder, 0])
for _ in range(3): keep.append(s(b"hello", 0))
for _ in range(2): keep.append(s("héllo".encode("utf-16-le"), 1))
sh = d.prim_array(BYTE, b"shared")
for _ in range(4): keep.append(d.instance(string, [sh, 0, 0]))
keep.append(s(b"solo", 0))
for _ in range(3): keep.append(d.prim_array(INT, struct.pack(">4i", 1, 2, 3, 4)))
for _ in range(2): keep.append(d.prim_array(LONG, struct.pack(">10q", *[7] * 10)))
keep.append(d.prim_array(BYTE, bytes(16)))
ints = [d.instance(integer, [i]) for i in range(3)]
keep += ints
for _ in range(2): keep.append(d.obj_array(objarr, [ints[0]] + [0] * 9))
keep.append(d.obj_array(objarr, ints[:2] + [0] * 8))
empty = d.obj_array(objarr, [])
for _ in range(2): keep.append(d.instance(alist, [empty, 0, 0]))
for _ in range(2): keep.append(d.instance(alist, [d.obj_array(objarr, [ints[0]] + [0] * 9), 1, 0]))
keep.append(d.instance(alist, [d.obj_array(objarr, ints + [0] * 7), 3, 0]))
for _ in range(3): keep.append(d.instance(hmap, [0, 0, 0, 0, 0, 0, 0, 0]))
for _ in range(2):
    t = d.obj_array(nodearr, ints[:2] + [0] * 14)
    keep.append(d.instance(hmap, [t, 0, 2, 2, 12, 0x3f400000, 0, 0]))
for _ in range(2): keep.append(d.instance(deque, [d.obj_array(objarr, [0] * 16), 0, 0]))
for k in keep:
    d.root(k)
d.write(D + "/waste.hprof")
d.write(D + "/waste.hprof.gz", gz=True)
EOF

# older String layouts (raw sizes): JDK 8 (value char[], hash: 8 bytes)
#   "ab" x2, each its own char[2]: 2 copies, 2*8 + 2*4 = 24 bytes, 12 wasted;
# JDK 6 (value, offset, count, hash: 16 bytes) over one char[5] "hello":
#   offset 0 count 5 x2: 2 copies, 32 + 10 = 42 bytes, 16 wasted;
#   offset 1 count 2 ("el") once: no row; JDK 8 HashMap (no AbstractMap
#   fields between: table, entrySet, size, modCount, threshold, loadFactor:
#   24 bytes) x2 empty with a Node[16] each: 2*(24 + 64) = 176 wasted
python3 - "$D" "$H" <<'EOF' || { fail waste-build "cannot write the old-layout dumps"; exit 0; }
import sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
D = sys.argv[1]
for name, fields in (("jdk8", [("value", OBJECT), ("hash", INT)]),
                     ("jdk6", [("value", OBJECT), ("offset", INT), ("count", INT), ("hash", INT)])):
    d = Dump()
    obj = d.load_class("java.lang.Object"); d.class_dump(obj)
    st = d.load_class("java.lang.String"); d.class_dump(st, obj, fields)
    keep = []
    if name == "jdk8":
        for _ in range(2): keep.append(d.instance(st, [d.prim_array(CHAR, "ab".encode("utf-16-be")), 0]))
        na = d.load_class("[Ljava/util/HashMap$Node;"); d.class_dump(na, obj)
        hm = d.load_class("java.util.HashMap"); d.class_dump(hm, obj, [("table", OBJECT), ("entrySet", OBJECT),
            ("size", INT), ("modCount", INT), ("threshold", INT), ("loadFactor", FLOAT)])
        for _ in range(2): keep.append(d.instance(hm, [d.obj_array(na, [0] * 16), 0, 0, 0, 12, 0x3f400000]))
    else:
        a = d.prim_array(CHAR, "hello".encode("utf-16-be"))
        for _ in range(2): keep.append(d.instance(st, [a, 0, 5, 0]))
        keep.append(d.instance(st, [a, 1, 2, 0]))
    for k in keep: d.root(k)
    d.write("%s/%s.hprof" % (D, name))
EOF
for v in jdk8 jdk6; do
  run_hp "$D/$v.json" "$D/$v.err" waste "$D/$v.hprof" --size-model=raw --json
done
expect_eq "waste: JDK 8 String layout and HashMap" "$(jget "$D/jdk8.json" '[(r["count"], r["bytes"], r["wasted"], r.get("value", r.get("fill"))) for s in d["sections"] for r in s["rows"]]')" \
  "[(2, 24, 12, 'ab'), (2, 176, 176, 'empty')]"
expect_eq "waste: JDK 6 String layout (offset, count)" "$(jget "$D/jdk6.json" '[(r["count"], r["bytes"], r["wasted"], r.get("value")) for s in d["sections"] for r in s["rows"]]')" \
  "[(2, 42, 16, 'hello')]"

W="--size-model=raw"
for f in waste.hprof waste.hprof.gz; do
  if ! run_hp "$D/$f.json" "$D/$f.err" waste "$D/$f" $W --json --top 0; then
    fail "waste $f" "exit $?: $(head -c 300 "$D/$f.err")"
    continue
  fi
  # one line: section count wasted, then the rows "count/bytes/wasted[/extra]"
  got=$(python3 - "$D/$f.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
out = ["total %d left %d" % (d["total"]["could_save"], d["rows_left_out"])]
for s in d["sections"]:
    rows = []
    for r in s["rows"]:
        x = "%s:%d/%d/%d" % (r["class"], r["count"], r["bytes"], r["wasted"])
        for k in ("value", "type", "length", "element", "fill"):
            if k in r: x += "/%s" % r[k]
        rows.append(x)
    out.append("%s %d %d [%s]" % (s["section"], s["count"], s["wasted"], " ".join(rows)))
print("\n".join(out))
EOF
)
  want="total 794 left 1
strings 9 74 [java.lang.String:3/42/28/hello java.lang.String:4/42/27/shared java.lang.String:2/38/19/héllo]
arrays 5 112 [long[]:2/160/80/long/10 int[]:3/48/32/int/4]
constant_arrays 2 160 [long[]:2/160/160/long/10/7]
null_slots 2 72 [java.lang.Object[]:2/80/72/10]
collections 11 456 [java.util.ArrayDeque:2/152/152/empty java.util.HashMap:2/192/112/11-25% java.util.HashMap:3/96/96/empty java.util.ArrayList:2/104/72/1-10% java.util.ArrayList:2/24/24/empty]
boxes 3 0 [java.lang.Integer:3/12/0]"
  expect_eq "waste $f: every section, row and wasted figure" "$got" "$want"
done

# the samples: the copy kept is a String whose value is the row's
s=$(jget "$D/waste.hprof.json" 'd["sections"][0]["rows"][0]["sample"]')
run_hp "$D/obj.txt" "$D/obj.err" object "$D/waste.hprof" "$s"
if grep -q '"hello"' "$D/obj.txt"; then ok "waste: the sample is a String \"hello\""; else fail "waste: the sample" "$(head -c 300 "$D/obj.txt")"; fi

# boxes under a size model with headers: 3 x (12 + 4) = 48, 36 wasted
run_hp "$D/mat.json" "$D/mat.err" waste "$D/waste.hprof" --size-model=mat --header-size 12 --align 8 --json
expect_eq "waste: boxes with headers" "$(jget "$D/mat.json" '[(r["count"], r["bytes"], r["wasted"]) for s in d["sections"] if s["section"] == "boxes" for r in s["rows"]]')" "[(3, 48, 36)]"

# --min-count 1: the byte[16] of zeros comes in (16 more), nothing left out
run_hp "$D/m1.json" "$D/m1.err" waste "$D/waste.hprof" $W --json --min-count 1
expect_eq "waste --min-count 1" "$(jget "$D/m1.json" '(d["total"]["could_save"], d["rows_left_out"], d["sections"][2]["count"], d["sections"][2]["wasted"])')" "(810, 0, 3, 176)"
# --min-count 3: only rows of 3 or more
run_hp "$D/m3.json" "$D/m3.err" waste "$D/waste.hprof" $W --json --min-count 3
expect_eq "waste --min-count 3" "$(jget "$D/m3.json" '[(s["section"], s["count"], s["wasted"]) for s in d["sections"]]')" \
  "[('strings', 7, 55), ('arrays', 3, 32), ('constant_arrays', 0, 0), ('null_slots', 0, 0), ('collections', 3, 96), ('boxes', 3, 0)]"

# text: --top 1 shows one row per section and says what it leaves out
run_hp "$D/t.txt" "$D/t.err" waste "$D/waste.hprof" $W --top 1
if grep -q '^could save 794 B' "$D/t.txt" && grep -q '"hello"' "$D/t.txt" && ! grep -q '"shared"' "$D/t.txt" &&
   grep -q '^\.\.\. 2 more rows, 46 B' "$D/t.txt" && grep -q 'long\[\] all 7' "$D/t.txt"; then
  ok "waste --top 1 (text)"
else
  fail "waste --top 1 (text)" "$(head -c 600 "$D/t.txt")"
fi
run_hp "$D/u.txt" "$D/u.err" waste "$D/waste.hprof" --min-count 0; rc=$?
expect_eq "waste --min-count 0 is a usage error" "$rc" 2

# holder paths: the shortest strong path from a GC root to each row's
# sample.  class App (a sticky class) -> static cache -> Holder h1 -> .o h2
# ... -> .o h7 -> Object[2] -> [0] String "dup" (the copy kept, first in
# the file: [1] is its duplicate); h3 also holds [1] through a WeakReference
# (its referent is no strong reference: the path does not take it).  So the
# path is 9 references: static App.cache, Holder.o x6, Holder.o -> Object[],
# Object[][0]; the text shows the first and the last 4 with "(4 more)".
python3 - "$D" "$H" <<'EOF2' || { fail waste-build "cannot write the holder dump"; exit 0; }
import sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
D = sys.argv[1]
d = Dump()
obj = d.load_class("java.lang.Object"); d.class_dump(obj)
string = d.load_class("java.lang.String")
d.class_dump(string, obj, [("value", OBJECT), ("coder", BYTE), ("hash", INT)])
objarr = d.load_class("[Ljava/lang/Object;"); d.class_dump(objarr, obj)
ref = d.load_class("java.lang.ref.Reference"); d.class_dump(ref, obj, [("referent", OBJECT)])
weak = d.load_class("java.lang.ref.WeakReference"); d.class_dump(weak, ref)
holder = d.load_class("Holder"); d.class_dump(holder, obj, [("o", OBJECT), ("w", OBJECT)])
app = d.load_class("App")
s1 = d.instance(string, [d.prim_array(BYTE, b"dup"), 0, 0])
s2 = d.instance(string, [d.prim_array(BYTE, b"dup"), 0, 0])
nxt = d.obj_array(objarr, [s1, s2])
hs = []
for i in range(7):
    w = d.instance(weak, [s2], types=[OBJECT]) if i == 4 else 0
    nxt = d.instance(holder, [nxt, w])
    hs.append(nxt)
d.class_dump(app, obj, statics=[("cache", OBJECT, nxt)])
d.root(app, kind=0x05)
d.write(D + "/holder.hprof")
EOF2
run_hp "$D/h.json" "$D/h.err" waste "$D/holder.hprof" --json
expect_eq "waste --json: held_by is the path from the GC root to the sample" \
  "$(jget "$D/h.json" '[(x.get("class_object_of", x["class"]), x.get("gc_root"), x.get("via", {}).get("kind"), x.get("via", {}).get("name", x.get("via", {}).get("index"))) for x in d["sections"][0]["rows"][0]["held_by"]]')" \
  "[('App', ['sticky_class'], None, None), ('Holder', None, 'static', 'cache'), ('Holder', None, 'field', 'o'), ('Holder', None, 'field', 'o'), ('Holder', None, 'field', 'o'), ('Holder', None, 'field', 'o'), ('Holder', None, 'field', 'o'), ('Holder', None, 'field', 'o'), ('java.lang.Object[]', None, 'field', 'o'), ('java.lang.String', None, 'element', 0)]"
expect_eq "waste --json: the last step is the sample" \
  "$(jget "$D/h.json" 'd["sections"][0]["rows"][0]["held_by"][-1]["id"] == d["sections"][0]["rows"][0]["sample"]')" true
run_hp "$D/h.txt" "$D/h.err" waste "$D/holder.hprof"
expect_eq "waste: the holder line (root, first reference, what it leaves out, the last 4)" \
  "$(grep -A1 '"dup"' "$D/h.txt" | sed -n 2p)" \
  "            held by [sticky class] static App.cache -> (4 more) -> Holder.o -> Holder.o -> Holder.o -> Object[][0]"
# a sample no strong path reaches: only the WeakReference holds it
python3 - "$D" "$H" <<'EOF2' || { fail waste-build "cannot write the weak dump"; exit 0; }
import sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
D = sys.argv[1]
d = Dump()
obj = d.load_class("java.lang.Object"); d.class_dump(obj)
string = d.load_class("java.lang.String")
d.class_dump(string, obj, [("value", OBJECT), ("coder", BYTE), ("hash", INT)])
ref = d.load_class("java.lang.ref.Reference"); d.class_dump(ref, obj, [("referent", OBJECT)])
weak = d.load_class("java.lang.ref.WeakReference"); d.class_dump(weak, ref)
for _ in range(2):
    s = d.instance(string, [d.prim_array(BYTE, b"dup"), 0, 0])
    d.root(d.instance(weak, [s], types=[OBJECT]))
d.write(D + "/weak.hprof")
EOF2
run_hp "$D/w.txt" "$D/w.err" waste "$D/weak.hprof"
expect_eq "waste: a sample held only weakly" "$(grep -A1 '"dup"' "$D/w.txt" | sed -n 2p)" \
  "            held by no GC root (through strong references)"
run_hp "$D/w2.txt" "$D/w2.err" waste "$D/weak.hprof" --all-weak
expect_eq "waste --all-weak: the path through the WeakReference" "$(grep -A1 '"dup"' "$D/w2.txt" | sed -n 2p)" \
  "            held by [JNI global] Reference.referent"

# the corpus: every dump of the manifest; waste fails exactly where top does
# (the corrupt and cut dumps: the same load error), never elsewhere, and
# writes JSON (read in one python3 run at the end); top's exit status comes
# from the release binary (index.sh and redact.sh run top on every corpus
# dump under the sanitizers)
if have_corpus waste-corpus; then
  n=0; bad=""; docs=()
  while read -r f; do
    n=$((n + 1))
    "$REL" top "$CORPUS/$f" --quiet >/dev/null 2>&1; a=$?
    "$HPROFAN" waste "$CORPUS/$f" --quiet --json >"$D/c.$n.json" 2>"$D/c.err"; b=$?
    if [ "$a" != "$b" ]; then bad="$bad $f:top=$a,waste=$b"
    elif [ $b = 0 ]; then docs+=("$f" "$D/c.$n.json"); fi
  done < <(tail -n +2 "$CORPUS/MANIFEST.tsv" | cut -f1)
  [ ${#docs[@]} -gt 0 ] && bad="$bad$(python3 -c '
import json, sys
a = sys.argv[1:]
for i in range(0, len(a), 2):
    try:
        json.load(open(a[i + 1]))
    except ValueError as e:
        print(" %s:not JSON (%s)" % (a[i], e), end="")' "${docs[@]}")"
  if [ -z "$bad" ]; then ok "waste on the corpus ($n dumps)"; else fail "waste on the corpus" "$bad"; fi
  # dialer (Android, Strings of ART with their arrays in the dump): duplicates found
  A=$CORPUS/tadfisher__platform_tools_base/dialer.android-hprof
  if [ -f "$A" ] && run_hp "$D/a.json" "$D/a.err" waste "$A" --json; then
    expect_eq "waste: dialer's duplicate Strings are read" "$(jget "$D/a.json" 'd["sections"][0]["count"] > 0 and all(r["value"] is not None for r in d["sections"][0]["rows"])')" true
  fi
fi
