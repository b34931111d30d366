#!/usr/bin/env bash
# top --group=package|loader|component, on a dump built byte by
# byte (tests/helper/mkhprof.py, 4-byte ids, sizes under --size-model=raw:
# an instance is its field bytes, an array its elements, a class object its
# static bytes: 0 here), with hand-computed figures:
#
#   bootstrap: java.lang.Object, java.lang.Class, java.lang.String
#              (value, coder: 5 B), app.Loader (name: 4 B)
#   [root] app.Loader L1 .name -> String "webapp-A" -> byte[8]   (L1 retains 17 B)
#   [root] app.Loader L2 .name = null                            (4 B)
#   L1 defines com.acme.billing.Bill (amount, next: 8 B) and com.acme.Util (x: 4 B)
#   L2 defines com.acme.billing.Bill too, and org.other.Thing (a, ref: 8 B)
#   [root] Bill(L1) b1 -> b2 -> b3 -> byte[100]: b1 retains 124 B; counted
#          once, the Bills of L1 retain 124 B, not 124 + 116 + 108
#   [root] Bill(L2) c1, c2 -> one byte[50]: neither retains it (16 B)
#   [root] 5 Util (20 B), 1 Thing (8 B); the 8 class objects reach nothing
#
# packages (classes, instances, shallow, retained):
# (a class object counts in its class's package and loader, and its class
# there is java.lang.Class: a package or loader with class objects has
# java.lang.Class among its classes)
#   com 4, 13, 60, 160 > com.acme 4, 13, 60, 160 > com.acme.billing 3 (both
#   Bills, Class), 7 (5 Bills, 2 class objects), 40, 140
#   (no package) 1 (byte[]), 3, 158, 158
#   app 2, 3 (2 Loaders, class app.Loader), 8, 21;  java > java.lang 2
#   (String, Class), 4 (the String; class Object, Class, String), 5, 13;
#   org > org.other 2, 2, 8, 8
# loaders: bootstrap 4 classes (byte[], Class, String, Loader), 4 defined
#   (byte[] has no CLASS DUMP), 10 objects (the String, 2 Loaders, 3 byte[],
#   class Object, Class, String, Loader), 171 B, retaining 171 B (the
#   byte[100] below b3 counts here once: no bootstrap object is above it);
#   L1 "webapp-A": 3 (Bill, Util, Class), 2, 10 (8 + class Bill, Util), 44 B,
#   144 B; L2: 3, 2, 5, 24 B, 24 B.  (Before class objects were grouped with
#   their classes, all 8 counted in java.lang and the bootstrap loader:
#   java.lang 9 objects, bootstrap 14, L1 8, L2 3.)
#
# components (Top Components) and dominators --group: see their sections below.
#
# On the corpus: --group=package runs on every dump and its top level adds up
# to the class table's totals; dominators --group=package and --group=loader
# add up to the ungrouped top level of the dominator tree on every dump; one component matching every class retains
# exactly the reachable heap (each reachable object counted once).
. "$(dirname "$0")/../lib.sh"
H=$(cd "$(dirname "$0")/../helper" && pwd)
D=$TMPD/group
mkdir -p "$D"

python3 - "$D/g.hprof" "$H" <<'EOF'
import sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
d = Dump()
obj = d.load_class("java.lang.Object"); d.class_dump(obj)
jlc = d.load_class("java.lang.Class"); d.class_dump(jlc, super_id=obj)
strc = d.load_class("java.lang.String"); d.class_dump(strc, super_id=obj, fields=[("value", OBJECT), ("coder", BYTE)])
ldr = d.load_class("app.Loader"); d.class_dump(ldr, super_id=obj, fields=[("name", OBJECT)])
raw = d.prim_array(BYTE, b"webapp-A")
s = d.instance(strc, [raw, 0])
L1 = d.instance(ldr, [s])
L2 = d.instance(ldr, [0])
bill1 = d.load_class("com.acme.billing.Bill"); d.class_dump(bill1, super_id=obj, fields=[("amount", INT), ("next", OBJECT)], loader=L1)
bill2 = d.load_class("com.acme.billing.Bill"); d.class_dump(bill2, super_id=obj, fields=[("amount", INT), ("next", OBJECT)], loader=L2)
util = d.load_class("com.acme.Util"); d.class_dump(util, super_id=obj, fields=[("x", INT)], loader=L1)
thing = d.load_class("org.other.Thing"); d.class_dump(thing, super_id=obj, fields=[("a", INT), ("ref", OBJECT)], loader=L2)
arr = d.prim_array(BYTE, bytes(100))
b3 = d.instance(bill1, [3, arr]); b2 = d.instance(bill1, [2, b3]); b1 = d.instance(bill1, [1, b2])
s2 = d.prim_array(BYTE, bytes(50))
c1 = d.instance(bill2, [1, s2]); c2 = d.instance(bill2, [2, s2])
us = [d.instance(util, [k]) for k in range(5)]
t1 = d.instance(thing, [7, 0])
for o in [L1, L2, b1, c1, c2, t1] + us:
    d.root(o)
d.write(sys.argv[1])
EOF
[ -f "$D/g.hprof" ] || { fail group-dump "mkhprof.py wrote no dump"; exit 0; }

# flat NAME FILE: "name classes instances shallow retained" per group, the
# tree walked depth first, indented by depth
flat() {
  python3 - "$1" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
def walk(gs):
    for g in gs:
        print("%s%s %d %d %d %s" % ("  " * (g.get("depth", 1) - 1), g["name"], g["classes"], g["instances"],
                                   g["shallow"], g.get("retained", "-")))
        walk(g.get("packages", []))
walk(d["groups"])
EOF
}

if run_hp "$D/p.json" "$D/p.err" top "$D/g.hprof" --size-model=raw --group=package --depth 9 --top 0 --sort=name --json --quiet; then
  expect_eq "package tree: per package classes, instances, shallow, retained" "$(flat "$D/p.json")" \
"(no package) 1 3 158 158
app 2 3 8 21
com 4 13 60 160
  com.acme 4 13 60 160
    com.acme.billing 3 7 40 140
java 2 4 5 13
  java.lang 2 4 5 13
org 2 2 8 8
  org.other 2 2 8 8"
  expect_eq "package totals are the class table's" \
    "$(jget "$D/p.json" 'sum(g["instances"] for g in d["groups"]), sum(g["shallow"] for g in d["groups"]), d["total"]["classes"], d["groups_total"]')" \
    "(25, 239, 8, 5)"
else
  fail "top --group=package" "$(head -c 300 "$D/p.err")"
fi

# --depth 1 (the default) shows the top level only; --depth 2 opens one level;
# --top 2 keeps two rows per level and says so
run_hp "$D/d1" "$D/e" top "$D/g.hprof" --size-model=raw --group=package --quiet
expect_eq "package --depth 1: the top level" "$(awk 'NR>1 && $1 != "total" && $1 != "unreachable:" { print $NF }' "$D/d1" | paste -sd' ')" \
  "com package) app java org"
run_hp "$D/d2" "$D/e" top "$D/g.hprof" --size-model=raw --group=package --depth 2 --top 2 --quiet
expect_eq "package --depth 2 --top 2: two rows a level" \
  "$(awk 'NR>1 && $1 != "total" && $1 != "unreachable:" { print $NF }' "$D/d2" | paste -sd' ')" "com com.acme package)"
if grep -q '^total .*top rows shown' "$D/d2"; then ok "package --top: the cut is said"
else fail "package --top: the cut is said" "$(tail -2 "$D/d2")"; fi

# loaders
if run_hp "$D/l.json" "$D/l.err" top "$D/g.hprof" --size-model=raw --group=loader --json --quiet; then
  expect_eq "loaders: id, class, name, classes, defined, instances, shallow, retained" \
    "$(jget "$D/l.json" '"\n".join("%d %s %s %d %d %d %d %d" % (g["loader_id"], g.get("loader_class", "-"), g.get("loader_name", "-"), g["classes"], g["defined"], g["instances"], g["shallow"], g["retained"]) for g in d["groups"])')" \
"0 - - 4 4 10 171 171
$(printf '%d' 0x10e0) app.Loader webapp-A 3 2 10 44 144
$(printf '%d' 0x10f0) app.Loader - 3 2 5 24 24"
else
  fail "top --group=loader" "$(head -c 300 "$D/l.err")"
fi
expect_eq "loaders: the class both define is a duplicate" \
  "$(jget "$D/l.json" '[(x["class"], x["loader_ids"]) for x in d["duplicate_classes"]], [g["duplicates"] for g in d["groups"]]')" \
  "([('com.acme.billing.Bill', [$(printf '%d' 0x10e0), $(printf '%d' 0x10f0)])], [0, 1, 1])"
run_hp "$D/l.txt" "$D/e" top "$D/g.hprof" --size-model=raw --group=loader --quiet
if grep -qx '  com.acme.billing.Bill: app.Loader@0x10e0, app.Loader@0x10f0' "$D/l.txt"; then ok "loaders: the table lists the duplicate"
else fail "loaders: the table lists the duplicate" "$(cat "$D/l.txt")"; fi
if grep -q 'app.Loader@0x10e0 "webapp-A"$' "$D/l.txt" && grep -q '<bootstrap>$' "$D/l.txt"; then ok "loaders: the table names them"
else fail "loaders: the table names them" "$(cat "$D/l.txt")"; fi

# components: the first match wins (Util is in acme, not in util-too), the
# rest is "other" (L1 retains 17 B with its String and byte[8], L2 4 B, the
# Thing 8 B: 29 B; the String below L1 not again), a pattern matching
# nothing keeps its empty row; each class object with its class (acme: 5
# Utils and class Util; billing: 5 Bills and the 2 Bill classes; other: the
# String, 2 Loaders, the Thing and class Object, Class, String, Loader, Thing)
cat >"$D/comp" <<'EOF'
# NAME REGEX
billing   \.billing\.
acme      ^com\.acme\.

util-too  Util$
arrays    \[\]$
nothing   ^no\.such\.
EOF
if run_hp "$D/c.json" "$D/c.err" top "$D/g.hprof" --size-model=raw --components "$D/comp" --sort=name --json --quiet; then
  expect_eq "components: first match wins, other, an empty component" \
    "$(jget "$D/c.json" 'd["group"], [(g["name"], g["classes"], g["instances"], g["shallow"], g["retained"]) for g in d["groups"]]')" \
    "('component', [('acme', 2, 6, 20, 20), ('arrays', 1, 3, 158, 158), ('billing', 3, 7, 40, 140), ('nothing', 0, 0, 0, 0), ('other', 4, 9, 21, 29), ('util-too', 0, 0, 0, 0)])"
else
  fail "top --components" "$(head -c 300 "$D/c.err")"
fi
printf 'good x\nbad (unclosed\n' >"$D/bad"
run_hp "$D/o" "$D/e" top "$D/g.hprof" --components "$D/bad" --quiet; rc=$?
if [ $rc = 2 ] && grep -q "bad:2: component 'bad'" "$D/e"; then ok "components: a bad pattern is a usage error naming its line"
else fail "components: a bad pattern is a usage error naming its line" "exit $rc: $(head -c 300 "$D/e")"; fi
printf 'lonely\n' >"$D/bad2"
run_hp "$D/o" "$D/e" top "$D/g.hprof" --components "$D/bad2" --quiet; rc=$?
if [ $rc = 2 ] && grep -q "bad2:1: expected NAME REGEX" "$D/e"; then ok "components: a line without a pattern is a usage error"
else fail "components: a line without a pattern is a usage error" "exit $rc: $(head -c 300 "$D/e")"; fi
for args in "--group=component" "--group=package --components $D/comp" "--group=loader --depth 2" "--group=package --retained-set" "--group=pkg"; do
  # shellcheck disable=SC2086
  run_hp "$D/o" "$D/e" top "$D/g.hprof" $args --quiet; rc=$?
  if [ $rc = 2 ] && [ -s "$D/e" ] && [ ! -s "$D/o" ]; then ok "usage error: top $args"
  else fail "usage error: top $args" "exit $rc"; fi
done

# --fast: the same instances and shallow bytes, no retained sizes
run_hp "$D/f.json" "$D/e" top "$D/g.hprof" --size-model=raw --group=package --depth 9 --top 0 --sort=name --fast --json --quiet
expect_eq "package --fast: no retained, same counts" "$(flat "$D/f.json" | awk '{ $NF = ""; print }')" \
  "$(flat "$D/p.json" | awk '{ $NF = ""; print }')"
expect_eq "package --fast: no retained member" "$(jget "$D/f.json" 'any("retained" in g for g in d["groups"])')" false
# --filter: only the matching classes are grouped
run_hp "$D/x.json" "$D/e" top "$D/g.hprof" --size-model=raw --group=loader --filter Bill --json --quiet
expect_eq "loader --filter: only the loaders of the classes kept" \
  "$(jget "$D/x.json" '[(g["loader_id"] > 0, g["classes"], g["defined"], g["instances"], g["retained"]) for g in d["groups"]]')" \
  "[(True, 1, 1, 3, 124), (True, 1, 1, 2, 16)]"

# a hostile name: 5,000 dots, 20,000 instances and the class object: the tree
# stops at 64 levels (the rest of the name one package), so each object costs
# 64 steps at most
python3 - "$D/deep.hprof" "$H" <<'EOF'
import sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
d = Dump()
obj = d.load_class("java.lang.Object"); d.class_dump(obj)
c = d.load_class(".".join("p%d" % k for k in range(5000)) + ".C"); d.class_dump(c, super_id=obj, fields=[("x", INT)])
for k in range(20000):
    d.root(d.instance(c, [k]))
d.write(sys.argv[1])
EOF
if timeout 60 "$HPROFAN" top "$D/deep.hprof" --size-model=raw --group=package --depth 100 --json --quiet >"$D/deep.json" 2>"$D/e"; then
  expect_eq "a 5,000-level package: 64 levels, the last one the rest of the name" \
    "$(jget "$D/deep.json" '[(lambda f: f(f, d["groups"][0], 1))(lambda f, g, n: f(f, g["packages"][0], n + 1) if g.get("packages") else (n, g["depth"], len(g["package"]), g["instances"], g["retained"]))]')" \
    "[(64, 64, $(python3 -c 'print(len(".".join("p%d" % k for k in range(5000))))'), 20001, 80000)]"
else
  fail "a 5,000-level package" "exit $?: $(head -c 300 "$D/e")"
fi

# ---- components (Top Components) -----------------------------------------------
# per loader, all three above 1% of the 239 B: bootstrap 171 B retained, its
# top objects byte[100] (under b3: no bootstrap object above it), byte[50],
# L1 (17 B), L2; waste (the two all-zero byte arrays, 150 B) in its retained
# set: 150 B; L1 144 B, top objects b1 (124 B) and 5 Utils, waste 100 B (the
# byte[100] b1 holds); L2 24 B, no waste; Bill listed under L1 and L2 with both;
# the class objects reach nothing and nothing reaches them (no object is
# above them): in no retained set; the loaders' 3rd classes (java.lang.Class,
# their class objects, 0 B) left out by --top 2
if run_hp "$D/k.json" "$D/k.err" components "$D/g.hprof" --size-model=raw --top 2 --json --quiet; then
  expect_eq "components by loader: retained, shallow, waste, top objects, the 2 largest" \
    "$(jget "$D/k.json" '"\n".join("%s %d %d %d %d %d %s" % (g["name"], g["shallow"], g["retained"], g["waste"], g["top_objects"], g["classes_left_out"], [(x["class"], x["retained"]) for x in g["top_dominators"]]) for g in d["components"])')" \
"<bootstrap> 171 171 150 4 2 [('byte[]', 100), ('byte[]', 50)]
app.Loader@0x10e0 44 144 100 6 1 [('com.acme.billing.Bill', 124), ('com.acme.Util', 4)]
app.Loader@0x10f0 24 24 0 3 1 [('com.acme.billing.Bill', 8), ('com.acme.billing.Bill', 8)]"
  expect_eq "components by loader: the waste total, top classes of L1, the duplicate under L1 and L2" \
    "$(jget "$D/k.json" 'd["total"]["waste"], [(x["class"], x["instances"], x["shallow"], x["retained"]) for x in d["components"][1]["top_classes"]], [[(x["class"], [y["loader_id"] for y in x["loaders"]]) for x in g["duplicate_classes"]] for g in d["components"]], d["left_out"]["components"]')" \
    "(150, [('com.acme.billing.Bill', 3, 24, 124), ('com.acme.Util', 5, 20, 20)], [[], [('com.acme.billing.Bill', [$(printf '%d' 0x10e0), $(printf '%d' 0x10f0)])], [('com.acme.billing.Bill', [$(printf '%d' 0x10e0), $(printf '%d' 0x10f0)])]], 0)"
else
  fail "components" "$(head -c 300 "$D/k.err")"
fi
# per component of the file above: first match wins (Util in acme), "other",
# the components matching nothing (nothing, util-too) left out with 0 B;
# waste: the byte arrays 150 B, billing's b1 holds the byte[100]
if run_hp "$D/kc.json" "$D/k.err" components "$D/g.hprof" --size-model=raw --components "$D/comp" --json --quiet; then
  expect_eq "components from a file: order, other, the empty ones left out" \
    "$(jget "$D/kc.json" '[(g["name"], g["instances"], g["shallow"], g["retained"], g["waste"]) for g in d["components"]], d["left_out"], d["total"]["groups"]')" \
    "([('arrays', 3, 158, 158, 150), ('billing', 7, 40, 140, 100), ('other', 9, 21, 29, 0), ('acme', 6, 20, 20, 0)], {'components': 2, 'instances': 0, 'shallow': 0, 'retained': 0, 'waste': 0}, 6)"
  expect_eq "components from a file: Bill of both loaders under billing" \
    "$(jget "$D/kc.json" '[(g["name"], [x["class"] for x in g["duplicate_classes"]]) for g in d["components"]]')" \
    "[('arrays', []), ('billing', ['com.acme.billing.Bill']), ('other', []), ('acme', [])]"
else
  fail "components --components" "$(head -c 300 "$D/k.err")"
fi
run_hp "$D/k.txt" "$D/e" components "$D/g.hprof" --size-model=raw --components "$D/comp" --quiet
if grep -q '^left out: 2 components at or below 1%' "$D/k.txt" && grep -q '^#1 arrays$' "$D/k.txt"; then ok "components text: the ones left out are said"
else fail "components text: the ones left out are said" "$(cat "$D/k.txt")"; fi
run_hp "$D/o" "$D/e" components "$D/g.hprof" --components "$D/bad" --quiet; rc=$?
if [ $rc = 2 ] && grep -q "bad:2: component 'bad'" "$D/e"; then ok "components: a bad pattern is a usage error"
else fail "components: a bad pattern is a usage error" "exit $rc: $(head -c 300 "$D/e")"; fi
cat "$D/g.hprof" | TMPDIR=$D/none "$HPROFAN" components - --quiet >"$D/o" 2>"$D/e"; rc=$?
if [ $rc = 2 ] && grep -q 'pipe' "$D/e"; then ok "components: a pipe no copy of which is kept is refused"
else fail "components: a pipe no copy of which is kept is refused" "exit $rc: $(head -c 300 "$D/e")"; fi
"$HPROFAN" components "$D/g.hprof" --quiet >"$D/o.file" 2>/dev/null
cat "$D/g.hprof" | "$HPROFAN" components - --quiet >"$D/o" 2>"$D/e"; rc=$?
if [ $rc = 0 ] && [ -s "$D/o" ] && cmp -s "$D/o" "$D/o.file"; then ok "components: from a pipe as from the file"
else fail "components: from a pipe as from the file" "exit $rc: $(head -c 300 "$D/e")"; fi

# ---- dominators --group: the top-level dominators by group ----------------------
# top level: b1 124 (L1), byte[50] 50 (no class loader's object holds it),
# L1 17, c1 8, c2 8, Thing 8, L2 4, 5 Utils 4 each: 239 B, the reachable heap
if run_hp "$D/dl.json" "$D/e" dominators "$D/g.hprof" --size-model=raw --group=loader --top 0 --depth 2 --json --quiet; then
  expect_eq "dominators --group=loader: objects, shallow, retained per loader; --depth opens them" \
    "$(jget "$D/dl.json" 'd["group"], [(g["loader"], g["objects"], g["shallow"], g["retained"], [x["id"] for x in g["children"]][:2]) for g in d["dominators"]]')" \
    "('loader', [('app.Loader@0x10e0', 6, 28, 144, ['0x11f0', '0x1230']), ('<bootstrap>', 3, 58, 71, ['0x1200', '0x10e0']), ('app.Loader@0x10f0', 3, 24, 24, ['0x1210', '0x1220'])])"
else
  fail "dominators --group=loader" "$(head -c 300 "$D/e")"
fi
if run_hp "$D/dp.json" "$D/e" dominators "$D/g.hprof" --size-model=raw --group=package --top 3 --json --quiet; then
  expect_eq "dominators --group=package: the innermost packages, --top 3 and the rest in more" \
    "$(jget "$D/dp.json" '[(g["package"], g["objects"], g["retained"], "children" in g) for g in d["dominators"]], d["more"]')" \
    "([('com.acme.billing', 3, 140, False), ('(no package)', 1, 50, False), ('app', 2, 21, False)], {'rows': 2, 'objects': 6, 'shallow': 28, 'retained': 28})"
else
  fail "dominators --group=package" "$(head -c 300 "$D/e")"
fi
if run_hp "$D/dc.json" "$D/e" dominators "$D/g.hprof" --size-model=raw --components "$D/comp" --sort=name --json --quiet; then
  expect_eq "dominators --components: components with objects at the top, by name" \
    "$(jget "$D/dc.json" '[(g["component"], g["objects"], g["retained"]) for g in d["dominators"]]')" \
    "[('acme', 5, 20), ('arrays', 1, 50), ('billing', 3, 140), ('other', 3, 29)]"
else
  fail "dominators --components" "$(head -c 300 "$D/e")"
fi
for args in "--group=component" "--group=loader --components $D/comp" "--group=pkg"; do
  # shellcheck disable=SC2086
  run_hp "$D/o" "$D/e" dominators "$D/g.hprof" $args --quiet; rc=$?
  if [ $rc = 2 ] && [ -s "$D/e" ] && [ ! -s "$D/o" ]; then ok "usage error: dominators $args"
  else fail "usage error: dominators $args" "exit $rc"; fi
done

# ---- the corpus ------------------------------------------------------------------
have_corpus group-corpus || exit 0
tail -n +2 "$CORPUS/MANIFEST.tsv" | cut -f1 | while read -r f; do
  path=$CORPUS/$f
  [ -f "$path" ] || continue
  case $f in *CORRUPT*) continue ;; esac
  if ! run_hp "$D/cp.json" "$D/e" top "$path" --group=package --top 0 --fast --json --quiet; then
    # a file without a heap dump has no class table either
    if grep -q 'holds no heap dump' "$D/e"; then skip "corpus --group=package $f" "no class table"
    else fail "corpus --group=package $f" "$(head -c 300 "$D/e")"; fi
    continue
  fi
  got=$(jget "$D/cp.json" '(sum(g["instances"] for g in d["groups"]), sum(g["shallow"] for g in d["groups"])) == (d["total"]["instances"], d["total"]["shallow"]) and d["total"]["instances"] > 0')
  if [ "$got" = true ]; then ok "corpus --group=package $f: totals are the class table's"
  else fail "corpus --group=package $f" "totals differ: $(jget "$D/cp.json" 'd["total"]')"; fi
  # the classes too without java.lang.Class's rows, which the packages share
  # out (each class object in its class's package)
  if run_hp "$D/cx.json" "$D/e" top "$path" --group=package --top 0 --fast --json --quiet --exclude '^java\.lang\.Class$'; then
    got=$(jget "$D/cx.json" '(sum(g["instances"] for g in d["groups"]), sum(g["shallow"] for g in d["groups"]), sum(g["classes"] for g in d["groups"])) == (d["total"]["instances"], d["total"]["shallow"], d["total"]["classes"])')
    if [ "$got" = true ]; then ok "corpus --group=package $f: without java.lang.Class, classes too are the class table's"
    else fail "corpus --group=package --exclude $f" "totals differ: $(jget "$D/cx.json" 'd["total"]')"; fi
  else
    fail "corpus --group=package --exclude $f" "$(head -c 300 "$D/e")"
  fi
done
# dominators --group: the groups add up to the ungrouped top level (objects,
# shallow, retained), per package and per loader
tail -n +2 "$CORPUS/MANIFEST.tsv" | cut -f1 | while read -r f; do
  path=$CORPUS/$f
  [ -f "$path" ] || continue
  case $f in *CORRUPT*|*minimal.bin) continue ;; esac
  run_hp "$D/d0.json" "$D/e" dominators "$path" --top 0 --json --quiet || { skip "corpus dominators $f" "$(head -c 100 "$D/e")"; continue; }
  want=$(jget "$D/d0.json" 'len(d["dominators"]), sum(x["shallow"] for x in d["dominators"]), sum(x["retained"] for x in d["dominators"])')
  for by in package loader; do
    if run_hp "$D/dg.json" "$D/e" dominators "$path" --group=$by --top 0 --json --quiet; then
      expect_eq "corpus $f: dominators --group=$by adds up to the top level" \
        "$(jget "$D/dg.json" 'sum(g["objects"] for g in d["dominators"]), sum(g["shallow"] for g in d["dominators"]), sum(g["retained"] for g in d["dominators"])')" "$want"
    else
      fail "corpus $f: dominators --group=$by" "$(head -c 300 "$D/e")"
    fi
  done
done
# components: with every object a root's (--roots=unreachable-as-roots), one
# component holding every class retains the whole heap, and every byte waste
# finds is in its retained set: its waste is waste's total (each byte located
# in one object, none lost or counted twice)
printf 'all ^\n' >"$D/all"
for f in SonyMobile__py-hprof/example-java.hprof agourlay__hprof-slurp/hprof-32.bin eclipse-mat__mat/oracle_jdk8_05_x64.hprof; do
  [ -f "$CORPUS/$f" ] || { skip "corpus components $f" "missing"; continue; }
  if run_hp "$D/w.json" "$D/e" components "$CORPUS/$f" --components "$D/all" --roots=unreachable-as-roots --top 1 --json --quiet; then
    expect_eq "corpus $f: one component retains the heap and holds all the waste" \
      "$(jget "$D/w.json" '(d["components"][0]["retained"] == d["total"]["shallow"], d["components"][0]["waste"] == d["total"]["waste"] > 0)')" \
      "(True, True)"
  else
    fail "corpus components $f" "$(head -c 300 "$D/e")"
  fi
done
# every reachable object counted once: one component holding every class
# retains the reachable heap
printf 'all ^\n' >"$D/all"   # '.' alone would be a class name, matched literally
for f in SonyMobile__py-hprof/example-java.hprof agourlay__hprof-slurp/hprof-32.bin GrapheneOS__platform_art/RI.hprof; do
  [ -f "$CORPUS/$f" ] || { skip "corpus one component $f" "missing"; continue; }
  if run_hp "$D/a.json" "$D/e" top "$CORPUS/$f" --components "$D/all" --json --quiet; then
    expect_eq "corpus $f: one component retains the reachable heap" \
      "$(jget "$D/a.json" 'd["groups"][0]["retained"] == d["total"]["reachable_shallow"] > 0 and d["groups"][1]["instances"] == 0')" true
  else
    fail "corpus one component $f" "$(head -c 300 "$D/e")"
  fi
done
