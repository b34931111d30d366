#!/usr/bin/env bash
# What a new user meets on the first day, on dumps built byte by
# byte (tests/helper/mkhprof.py) whose answers are counted by hand:
#  - --filter takes class names as people paste them ('LeakApp$Screen',
#    'int[]'), and says when no class matches, naming the nearest;
#  - dominators --heap/--sort and roots --heap do what they say;
#  - dominators never cuts silently: "… N more" with the size cut at every
#    level, a chain of same-class single children is one line (in the
#    table; JSON lists every link), --group=class
#    groups open with --depth (table and JSON), and the rows add up;
#  - instances CLASS lists a class's instances with what each is; object
#    and path take a class name for its class object; ids print as they
#    can be pasted back (@0x...);
#  - roots: what the roots hold adds up to the reachable heap, each byte
#    once (stack locals in their threads, joint holdings by kinds);
#  - a truncated file is never analysed as if complete: segments without
#    HEAP DUMP END, a file cut before its heap dump (exit 3, the offset);
#    --salvage that yields nothing says so (exit 1); a dump with no GC
#    roots (cut before them) says so, and --roots=unreachable-as-roots
#    still gives a dominator tree.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip firstday "python3 is absent"; exit 0; }
H=$(cd "$(dirname "$0")/../helper" && pwd)
D=$TMPD/firstday
mkdir -p "$D"

python3 - "$D" "$H" <<'EOF'
import sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
D = sys.argv[1]
d = Dump(android=True)
obj = d.load_class("java.lang.Object")
screen = d.load_class("LeakApp$ReportScreen")
node = d.load_class("Node")
holder = d.load_class("Holder")
d.class_dump(obj)
d.class_dump(screen, super_id=obj, fields=[("data", OBJECT)])
d.class_dump(node, super_id=obj, fields=[("next", OBJECT)])
d.class_dump(holder, super_id=obj, fields=[("a", OBJECT), ("b", OBJECT), ("c", OBJECT), ("d", OBJECT)])
d.heap_info(1, "zygote")
z = d.prim_array(INT, b"\0" * 400)           # 400 B of int[] in zygote
d.root(z)
d.heap_info(2, "app")
# a chain of 5000 Nodes, the last holding 1000 bytes
tail = d.prim_array(BYTE, b"\0" * 1000)
nxt = tail
for i in range(5000):
    nxt = d.instance(node, [nxt])
d.root(nxt)
# a holder of four screens, each holding its own byte[] of 100, 200, 300, 400
arrs = [d.prim_array(BYTE, b"\1" * (100 * (i + 1))) for i in range(4)]
scr = [d.instance(screen, [a]) for a in arrs]
hold = d.instance(holder, scr)
d.root(hold)
d.write(D + "/a.hprof")
with open(D + "/ids.txt", "w") as f:
    f.write("0x%x 0x%x 0x%x\n" % (nxt, hold, tail))
EOF
F=$D/a.hprof
[ -f "$F" ] || { fail firstday-dump "the generator wrote nothing"; exit 0; }
read -r CHAIN HOLD TAIL <"$D/ids.txt"
hp() { "$HPROFAN" -q "$@"; }

# 2. class names as pasted
hp --fast "$F" --filter 'LeakApp$ReportScreen' >"$D/o" 2>"$D/e"
if grep -q 'LeakApp\$ReportScreen' "$D/o" && grep -q '^total *4 ' "$D/o"; then ok "filter: 'LeakApp\$ReportScreen' matches literally"
else fail "filter: 'LeakApp\$ReportScreen' matches literally" "$(cat "$D/o" "$D/e")"; fi
hp --fast "$F" --filter 'int[]' >"$D/o" 2>"$D/e"; rc=$?
if [ $rc = 0 ] && grep -q ' int\[\]$' "$D/o"; then ok "filter: 'int[]' is a class name, not a regex error"
else fail "filter: 'int[]' is a class name, not a regex error" "exit $rc: $(cat "$D/o" "$D/e")"; fi
hp --fast "$F" --filter 'reportscren' >"$D/o" 2>"$D/e"
if grep -q "no class matches 'reportscren'; did you mean 'LeakApp\$ReportScreen'" "$D/e"; then ok "filter: no match says so with the nearest name"
else fail "filter: no match says so with the nearest name" "$(cat "$D/e")"; fi
hp --fast "$F" --filter 'Node|Holder' >"$D/o" 2>"$D/e"
if grep -q ' Node$' "$D/o" && grep -q ' Holder$' "$D/o" && [ ! -s "$D/e" ]; then ok "filter: other patterns are PCRE2"
else fail "filter: other patterns are PCRE2" "$(cat "$D/o" "$D/e")"; fi

# 1. --heap and --sort where they apply
hp dominators "$F" --heap zygote >"$D/o" 2>"$D/e"
if grep -q 'int\[\]' "$D/o" && ! grep -q 'Node\|Holder' "$D/o"; then ok "dominators --heap zygote: only zygote objects"
else fail "dominators --heap zygote: only zygote objects" "$(cat "$D/o" "$D/e")"; fi
hp dominators "$F" --heap nosuch >"$D/o" 2>"$D/e"; rc=$?
if [ $rc = 2 ] && grep -q 'no such heap (the dump has: default, zygote, app)' "$D/e"; then ok "dominators --heap nosuch: usage error naming the heaps"
else fail "dominators --heap nosuch: usage error naming the heaps" "exit $rc: $(cat "$D/e")"; fi
hp dominators "$F" --sort=name >"$D/o" 2>"$D/e"
got=$(sed -n '2,4p' "$D/o" | awk '{print $NF}' | sed 's/@.*//' | tr '\n' ' ')
got=$(sed -n '2,4p' "$D/o" | grep -o '[A-Za-z]*\(\[\]\)\? @' | tr -d ' @' | tr '\n' ' ')
expect_eq "dominators --sort=name: by class name" "$got" "Holder Node int[] "
hp dominators "$F" --sort=shallow --json >"$D/j" 2>"$D/e"
expect_eq "dominators --sort=shallow --json" "$(jget "$D/j" '[e["shallow"] for e in d["dominators"]]')" "[400, 16, 4]"
hp roots "$F" --heap app --json >"$D/j" 2>"$D/e"
expect_eq "roots --heap app: only app roots" "$(jget "$D/j" 'sorted(e["class"] for e in d["roots"])')" "['Holder', 'Node']"

# 3. find things by name: instances CLASS, object CLASSNAME
python3 - "$D" "$H" <<'EOF'
import sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
D = sys.argv[1]
d = Dump()
obj = d.load_class("java.lang.Object")
strc = d.load_class("java.lang.String")
lst = d.load_class("java.util.ArrayList")
oa = d.load_class("[Ljava.lang.Object;")
d.class_dump(obj)
d.class_dump(strc, super_id=obj, fields=[("value", OBJECT), ("hash", INT)])
d.class_dump(lst, super_id=obj, fields=[("elementData", OBJECT), ("size", INT)])
d.class_dump(oa, super_id=obj)
hello = d.instance(strc, [d.prim_array(CHAR, "hello".encode("utf-16-be")), 0])
world = d.instance(strc, [d.prim_array(CHAR, "a longer world".encode("utf-16-be")), 0])
arr = d.obj_array(oa, [hello, world, 0, 0, 0])
l = d.instance(lst, [arr, 2])
d.root(l)
d.write(D + "/b.hprof")
EOF
hp instances "$D/a.hprof" 'LeakApp$ReportScreen' --top 2 >"$D/o" 2>"$D/e"; rc=$?
if [ $rc = 0 ] && grep -q '^4 instances of LeakApp\$ReportScreen: shallow 16 B, retained 1016 B as a set' "$D/o" &&
   [ "$(grep -c 'LeakApp\$ReportScreen @0x' "$D/o")" = 2 ] && grep -q '  404 B .*LeakApp' "$D/o" &&
   grep -q '8 B  … 2 more$' "$D/o"; then ok "instances: largest first, the rest one row"
else fail "instances: largest first, the rest one row" "exit $rc: $(cat "$D/o" "$D/e")"; fi
hp instances "$D/a.hprof" 'LeakApp$ReportScreen' --sort=shallow --json >"$D/j"
expect_eq "instances --json: totals and rows" \
  "$(jget "$D/j" '(d["total"]["instances"], d["total"]["shallow"], d["total"]["retained"], [e["retained"] for e in d["instances"]])')" \
  "(4, 16, 1016, [404, 304, 204, 104])"
hp instances "$D/b.hprof" java.lang.String >"$D/o" 2>"$D/e"
if grep -q '"a longer world"$' "$D/o" && grep -q '"hello"$' "$D/o"; then ok "instances: a String's value"
else fail "instances: a String's value" "$(cat "$D/o" "$D/e")"; fi
hp instances "$D/b.hprof" java.util.ArrayList >"$D/o" 2>"$D/e"
if grep -q 'java.util.ArrayList @0x[0-9a-f]*  size 2$' "$D/o"; then ok "instances: a collection's size"
else fail "instances: a collection's size" "$(cat "$D/o" "$D/e")"; fi
hp instances "$D/b.hprof" 'java.lang.Object[]' --json >"$D/j" 2>"$D/e"
expect_eq "instances --json: an array's length" "$(jget "$D/j" '[e["length"] for e in d["instances"]]')" "[5]"
hp instances "$D/b.hprof" java.util.ArayList >"$D/o" 2>"$D/e"; rc=$?
if [ $rc = 1 ] && grep -q "no class named 'java.util.ArayList' in the dump; did you mean 'java.util.ArrayList'" "$D/e"; then ok "instances: an unknown class names the nearest"
else fail "instances: an unknown class names the nearest" "exit $rc: $(cat "$D/e")"; fi
hp object "$D/b.hprof" java.util.ArrayList >"$D/o" 2>"$D/e"; rc=$?
if [ $rc = 0 ] && grep -q 'class java.util.ArrayList @0x' "$D/o"; then ok "object CLASSNAME: the class object"
else fail "object CLASSNAME: the class object" "exit $rc: $(head -5 "$D/o") $(cat "$D/e")"; fi
hp path "$D/b.hprof" 'java.lang.Object[]' >"$D/o" 2>"$D/e"; rc=$?
expect_eq "path CLASSNAME: the class object's path" "$rc" 0
id=$(jget "$D/j" 'd["instances"][0]["id"]')
hp object "$D/b.hprof" "@$id" >"$D/o" 2>"$D/e"
expect_eq "object takes @0x... as printed" "$?" 0

# 4. nothing cut silently; chains; groups
hp dominators "$F" --depth 3 >"$D/o" 2>"$D/e"
if grep -q "× 4,999 links of Node, down to @" "$D/o" && [ "$(grep -c 'Node @' "$D/o")" = 1 ]; then ok "dominators: a chain of 5,000 Nodes is one line"
else fail "dominators: a chain of 5,000 Nodes is one line" "$(head -20 "$D/o")"; fi
last=$(grep -o 'down to @0x[0-9a-f]*' "$D/o" | sed 's/down to //')
hp object "$F" "$last" >"$D/o2" 2>"$D/e2"; rc=$?
if [ $rc = 0 ] && grep -q 'Node' "$D/o2"; then ok "object takes an id as printed ($last)"
else fail "object takes an id as printed ($last)" "exit $rc: $(cat "$D/e2")"; fi
hp dominators "$F" --depth 3 --json >"$D/j"
expect_eq "dominators --json: every link of the chain, one per level" \
  "$(jget "$D/j" '[(e["class"], e["children"][0]["class"], e["children"][0]["children"][0]["class"]) for e in d["dominators"] if e["class"] == "Node"]')" "[('Node', 'Node', 'Node')]"
hp dominators "$F" --depth 2 --top 2 >"$D/o"
# the holder's four screens: the two largest shown, the other two cut with their size
if grep -q " 308 B .*… 2 more" "$D/o"; then ok "dominators: '… 2 more' below the top level, with what they retain"
else fail "dominators: '… 2 more' below the top level, with what they retain" "$(cat "$D/o")"; fi
hp dominators "$F" --depth 2 --top 2 --json >"$D/j"
expect_eq "dominators --json: shown + more = the holder's children" \
  "$(jget "$D/j" '[sum(c["retained"] for c in e["children"]) + e["more"]["retained"] == e["retained"] - e["shallow"] for e in d["dominators"] if e.get("class") == "Holder"]')" "[True]"
hp dominators "$F" --depth 3 --group=class --json >"$D/j"
expect_eq "dominators --group=class --depth 3: groups open" \
  "$(jget "$D/j" '[(g["count"], [(c.get("group"), c.get("count")) for c in g["children"]]) for e in d["dominators"] if e.get("class") == "Holder" for g in e["children"]]')" \
  "[(4, [('byte[]', 4)])]"
# 5. numbers that add up: what the roots hold, each byte once
for pol in threads all; do
  hp roots "$TESTDATA/hprof/leakycache.hprof.gz" --roots=$pol --json >"$D/j" 2>"$D/e"
  expect_eq "roots --roots=$pol: shares add up to the reachable heap" \
    "$(jget "$D/j" 'sum(r["retained"] for r in d["shares"]) == d["total"]["reachable_shallow"] and sum(k["retained"] for k in d["kinds"]) == sum(r["retained"] for r in d["shares"] if len(r["kinds"]) == 1 and not r["joint"])')" "true"
done
hp roots "$TESTDATA/hprof/leakycache.hprof.gz" --roots=threads --json >"$D/j"
expect_eq "roots --roots=threads: stack locals count in their threads, not twice" \
  "$(jget "$D/j" '[k["retained"] for k in d["kinds"] if k["kind"] == "java_frame"]')" "[0]"
# by hand: the holder's four screens are held by one JNI global root; the
# chain by another; the zygote int[] by a third: 3 one-kind rows, no joint
hp roots "$F" --json >"$D/j"
expect_eq "roots: the hand-built dump's shares" \
  "$(jget "$D/j" '[(r["kinds"], r["joint"], r["objects"], r["retained"]) for r in d["shares"]]')" \
  "[(['jni_global'], False, 3, $(jget "$D/j" 'd["total"]["reachable_shallow"]'))]"

# 6. truncation is never silent
python3 - "$D" "$H" <<'EOF'
import sys, struct
sys.path.insert(0, sys.argv[2])
from mkhprof import *
D = sys.argv[1]
d = Dump()
obj = d.load_class("java.lang.Object")
d.class_dump(obj)
d.root(d.instance(obj))
d.write(D + "/full.hprof")
b = open(D + "/full.hprof", "rb").read()
open(D + "/noend.hprof", "wb").write(b[:-9])          # no HEAP DUMP END
p = 31                                                 # header: 19 + 4 + 8
while b[p] != 0x1C:
    p += 9 + struct.unpack(">I", b[p + 5:p + 9])[0]
open(D + "/nodump.hprof", "wb").write(b[:p])           # cut before the heap dump
open(D + "/cutstr.hprof", "wb").write(b[:p - 3])       # cut inside a record before it
with open(D + "/off.txt", "w") as f:
    f.write("%d %d\n" % (len(b) - 9, p))
EOF
read -r NOEND NODUMP <"$D/off.txt"
hp "$D/full.hprof" >"$D/o" 2>"$D/e"
expect_eq "truncation: the whole file reads (exit 0)" "$?" 0
hp "$D/noend.hprof" >"$D/o" 2>"$D/e"; rc=$?
if [ $rc = 3 ] && [ ! -s "$D/o" ] && grep -q "offset $NOEND .*without its HEAP DUMP END" "$D/e"; then ok "truncation: segments without HEAP DUMP END (exit 3, offset $NOEND)"
else fail "truncation: segments without HEAP DUMP END (exit 3, offset $NOEND)" "exit $rc: $(cat "$D/e")"; fi
hp "$D/noend.hprof" --salvage >"$D/o" 2>"$D/e"; rc=$?
if [ $rc = 0 ] && grep -q '^total  *2 ' "$D/o"; then ok "truncation: --salvage keeps the segments read"
else fail "truncation: --salvage keeps the segments read" "exit $rc: $(cat "$D/o" "$D/e")"; fi
for c in "" dominators roots; do
  # shellcheck disable=SC2086  # no command word for top
  hp $c "$D/nodump.hprof" >"$D/o" 2>"$D/e"; rc=$?
  if [ $rc = 3 ] && [ ! -s "$D/o" ] && grep -q "offset $NODUMP .*no heap dump" "$D/e"; then ok "truncation: ${c:-top} on a file cut before its heap dump (exit 3)"
  else fail "truncation: ${c:-top} on a file cut before its heap dump (exit 3)" "exit $rc: $(cat "$D/o" "$D/e")"; fi
done
hp info "$D/nodump.hprof" >"$D/o" 2>"$D/e"
expect_eq "truncation: info still describes the records" "$?" 0
hp "$D/cutstr.hprof" --salvage >"$D/o" 2>"$D/e"; rc=$?
if [ $rc = 1 ] && [ ! -s "$D/o" ] && grep -q "nothing to salvage" "$D/e"; then ok "truncation: --salvage with nothing before the break (exit 1)"
else fail "truncation: --salvage with nothing before the break (exit 1)" "exit $rc: $(cat "$D/o" "$D/e")"; fi
# 6b. no GC roots (a HotSpot dump cut before them: HotSpot writes them
# last): a warning, and --roots=unreachable-as-roots still gives a tree.
# By hand: a -> b -> byte[1000] and a lone byte[500], e -> c; no root.
python3 - "$D" "$H" <<'EOF'
import sys, struct
sys.path.insert(0, sys.argv[2])
from mkhprof import *
D = sys.argv[1]
d = Dump()
obj = d.load_class("java.lang.Object")
d.class_dump(obj)
n = d.load_class("Node")
d.class_dump(n, super_id=obj, fields=[("next", OBJECT)])
arr = d.prim_array(BYTE, b"\0" * 1000)
b = d.instance(n, [arr])
a = d.instance(n, [b])
d.prim_array(BYTE, b"\0" * 500)
c = d.instance(n, [0])
d.instance(n, [c])
d.write(D + "/noroots.hprof")
# the same with a root, written last as HotSpot does, then cut before it
d.root(a)
d.write(D + "/rootlast.hprof")
whole = open(D + "/rootlast.hprof", "rb").read()
open(D + "/rootcut.hprof", "wb").write(whole[:-9 - 9])   # END and the root record
EOF
hp "$D/noroots.hprof" >"$D/o" 2>"$D/e"
if grep -q "no GC roots: no object is reachable.*--roots=unreachable-as-roots" "$D/e"; then ok "no GC roots: a warning names --roots=unreachable-as-roots"
else fail "no GC roots: a warning names --roots=unreachable-as-roots" "$(cat "$D/e")"; fi
hp roots "$D/noroots.hprof" --roots=unreachable-as-roots --json >"$D/j" 2>"$D/e"
expect_eq "--roots=unreachable-as-roots: a, the lone byte[] and e made roots, holding everything" \
  "$(jget "$D/j" '([(r["kinds"], r["joint"], r["objects"]) for r in d["shares"]], sum(r["retained"] for r in d["shares"]) == d["total"]["heap_shallow"], d["roots_policy"])')" \
  "([([], False, 3), ([], True, 1)], True, 'unreachable-as-roots')"
hp dominators "$D/noroots.hprof" --roots=unreachable-as-roots --depth 3 --json --size-model=raw >"$D/j"
expect_eq "--roots=unreachable-as-roots: a dominates b dominates the byte[1000] (raw sizes)" \
  "$(jget "$D/j" '[(e["retained"], e["children"][0]["retained"], e["children"][0]["children"][0]["class"]) for e in d["dominators"] if e.get("class") == "Node" and e["children"] and e["children"][0].get("children")]')" \
  "[(1008, 1004, 'byte[]')]"
hp "$D/rootcut.hprof" --salvage >"$D/o" 2>"$D/e"; rc=$?
if [ $rc = 0 ] && grep -q "no GC roots before the break (HotSpot writes them last)" "$D/e"; then ok "--salvage on a dump cut before its roots: the warning says why"
else fail "--salvage on a dump cut before its roots: the warning says why" "exit $rc: $(cat "$D/e")"; fi
exit 0
