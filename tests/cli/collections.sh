#!/usr/bin/env bash
# Collection sizes (object, instances, leaks) on a dump built byte by byte
# whose collections lie: a size field negative, beyond the backing array or
# the dump's objects, of the wrong type, absent or declared by a subclass; a
# ConcurrentHashMap whose CounterCells are summed by hand (5 + 3 + 4 = 12),
# whose count is negative (0, as size() says), overflows, or whose
# counterCells is no array; an ArrayDeque whose head is outside its array; a
# CopyOnWriteArrayList over a byte[]; a HashSet that is its own map; a
# SparseArray with deleted entries but no DELETED to tell them by; a class
# that is its own super class.  Each either has the size it holds or none
# (with the reason), never a crash: run under the sanitized binary.
# Then, on the corpus, MAT's own collection test dump (CreateCollectionDump
# of eclipse-mat's tests, JDK 11): every JDK collection of its test data
# has the 341 entries (its COUNT) the program put in, 0 in the empty sets.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip collections "python3 is absent"; exit 0; }
H=$(cd "$(dirname "$0")/../helper" && pwd)
D=$TMPD

python3 - "$D" "$H" <<'EOF2' || { fail collections-build "cannot write the test dump"; exit 0; }
import json, sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
D = sys.argv[1]
d = Dump()
I, W = {}, {}              # name -> id; name -> expected size (None: none)
def cls(name, super_id=0, fields=(), statics=()):
    c = d.load_class(name)
    d.class_dump(c, super_id=super_id, fields=fields, statics=statics)
    return c
def u32(v): return v & 0xffffffff
def u64(v): return v & 0xffffffffffffffff
def put(name, oid, want):
    I[name] = "0x%x" % oid
    W[name] = want
    d.root(oid)
objarr = cls("[Ljava/lang/Object;")
cls("[B"); cls("[I")
al = cls("java.util.ArrayList", fields=[("elementData", OBJECT), ("size", INT)])
# the leak suspect: 100 byte[1000] in a list whose size field says -1
put("al_neg", d.instance(al, [d.obj_array(objarr, [d.prim_array(BYTE, bytes(1000)) for _ in range(100)]), u32(-1)]), None)
put("al_over", d.instance(al, [d.obj_array(objarr, [0, 0, 0]), 5]), None)
put("al_ok", d.instance(al, [d.obj_array(objarr, [0, 0, 0]), 2]), 2)
put("al_noarray", d.instance(al, [0, 1]), None)
hm = cls("java.util.HashMap", fields=[("table", OBJECT), ("size", INT)])
put("hm_huge", d.instance(hm, [0, 0x7fffffff]), None)
put("hm_ok", d.instance(hm, [0, 0]), 0)
hm2 = cls("java.util.HashMap", fields=[("size", LONG)])
put("hm_long", d.instance(hm2, [7]), None)
hm3 = cls("java.util.HashMap")
put("hm_absent", d.instance(hm3, []), None)
hm4 = cls("java.util.HashMap")
mine = cls("com.x.MyMap", super_id=hm4, fields=[("size", INT)])
put("mymap", d.instance(mine, [3]), None)
cell = cls("java.util.concurrent.ConcurrentHashMap$CounterCell", fields=[("value", LONG)])
cellarr = cls("[Ljava/util/concurrent/ConcurrentHashMap$CounterCell;")
chm = cls("java.util.concurrent.ConcurrentHashMap", fields=[("counterCells", OBJECT), ("baseCount", LONG)])
put("chm_cells", d.instance(chm, [d.obj_array(cellarr, [d.instance(cell, [3]), d.instance(cell, [4]), 0]), 5]), 12)
put("chm_neg", d.instance(chm, [0, u64(-10)]), 0)
put("chm_overflow", d.instance(chm, [d.obj_array(cellarr, [d.instance(cell, [1])]), (1 << 63) - 1]), None)
put("chm_notarray", d.instance(chm, [d.instance(cell, [1]), 1]), None)
put("chm_huge", d.instance(chm, [0, 1 << 40]), None)
chm2 = cls("java.util.concurrent.ConcurrentHashMap", fields=[("baseCount", INT)])
put("chm_int", d.instance(chm2, [4]), None)
dq = cls("java.util.ArrayDeque", fields=[("elements", OBJECT), ("head", INT), ("tail", INT)])
put("dq_bad", d.instance(dq, [d.obj_array(objarr, [0] * 8), 9, 1]), None)
put("dq_neg", d.instance(dq, [d.obj_array(objarr, [0] * 8), u32(-1), 1]), None)
put("dq_wrap", d.instance(dq, [d.obj_array(objarr, [0] * 8), 6, 2]), 4)
put("dq_empty", d.instance(dq, [d.obj_array(objarr, []), 0, 0]), None)
cow = cls("java.util.concurrent.CopyOnWriteArrayList", fields=[("array", OBJECT)])
put("cow_prim", d.instance(cow, [d.prim_array(BYTE, bytes(5))]), None)
put("cow_ok", d.instance(cow, [d.obj_array(objarr, [0] * 6)]), 6)
hs = cls("java.util.HashSet", fields=[("map", OBJECT)])
loop = d.new_id()          # a HashSet whose map is itself
d.sub.append(struct.pack(">BIIII", 0x21, loop, 0, hs, 4) + struct.pack(">I", loop))
put("set_self", loop, None)
put("set_ok", d.instance(hs, [int(I["hm_ok"], 16)]), 0)
sp = cls("android.util.SparseArray", fields=[("mGarbage", BOOLEAN), ("mKeys", OBJECT), ("mValues", OBJECT), ("mSize", INT)])
put("sparse_garbage", d.instance(sp, [1, d.prim_array(INT, bytes(16)), d.obj_array(objarr, [0] * 4), 3]), None)
put("sparse_ok", d.instance(sp, [0, d.prim_array(INT, bytes(16)), d.obj_array(objarr, [0] * 4), 3]), 3)
am = cls("android.util.ArrayMap", fields=[("mHashes", OBJECT), ("mArray", OBJECT), ("mSize", INT)])
put("arraymap_over", d.instance(am, [d.prim_array(INT, bytes(8)), 0, 5]), None)
# a class that is its own super class
selfc = d.load_class("com.x.Self")
d.class_dump(selfc, super_id=selfc, fields=[("size", INT)])
put("self_super", d.instance(selfc, [1]), "not a collection")
d.write(D + "/lies.hprof")
json.dump({"ids": I, "want": W}, open(D + "/lies.json", "w"))
EOF2

"$HPROFAN" leaks "$D/lies.hprof" --json --quiet >"$D/leaks.json" 2>"$D/leaks.err"
expect_eq "leaks on the lying collections exits 0" "$?" 0
"$HPROFAN" leaks "$D/lies.hprof" --quiet >"$D/leaks.txt" 2>&1
expect_eq "leaks' table on the lying collections exits 0" "$?" 0
python3 -c 'import json,sys; [print(k, v) for k, v in json.load(open(sys.argv[1]))["ids"].items()]' "$D/lies.json" >"$D/ids.txt"
rcs=""
while read -r name id; do
  "$HPROFAN" object "$D/lies.hprof" "$id" --json --quiet >"$D/obj-$name.json" 2>"$D/obj-$name.err" || rcs="$rcs $name:$?"
done <"$D/ids.txt"
expect_eq "object exits 0 on every lying collection" "$rcs" ""
for c in java.util.ArrayList java.util.HashMap java.util.concurrent.ConcurrentHashMap java.util.ArrayDeque \
         java.util.concurrent.CopyOnWriteArrayList java.util.HashSet android.util.SparseArray android.util.ArrayMap \
         com.x.MyMap com.x.Self; do
  "$HPROFAN" instances "$D/lies.hprof" "$c" --top 0 --json --quiet >"$D/inst-$c.json" 2>"$D/inst-$c.err" ||
    fail "collections: instances $c" "exit $?: $(head -c 300 "$D/inst-$c.err")"
done
python3 - "$D" <<'EOF2'
import glob, json, sys
D = sys.argv[1]
def check(name, got, want):
    print(("ok collections/%s" % name) if got == want else ("FAIL collections/%s: got %r, want %r" % (name, got, want)))
t = json.load(open(D + "/lies.json"))
inst = {}
for f in glob.glob(D + "/inst-*.json"):
    for e in json.load(open(f))["instances"]:
        inst[e["id"]] = e
got_o, got_i, reasons = {}, {}, {}
for name, oid in t["ids"].items():
    o = json.load(open("%s/obj-%s.json" % (D, name)))["object"]
    e = inst.get(oid, {})
    if t["want"][name] == "not a collection":
        got_o[name] = "not a collection" if "collection" not in o else o["collection"]
        got_i[name] = "not a collection" if "collection" not in e else e["collection"]
        continue
    got_o[name] = o.get("size", "absent")
    got_i[name] = e.get("size", "absent")
    if o.get("size") is None:
        reasons[name] = bool(o.get("size_unknown")) and o.get("size_unknown") == e.get("size_unknown")
check("object: the size each collection holds, or none", got_o, t["want"])
check("instances: the same", got_i, t["want"])
check("every collection without a size says why, object and instances alike", reasons, {k: True for k in reasons})
check("why, for a few", [json.load(open("%s/obj-%s.json" % (D, n)))["object"]["size_unknown"] for n in ("al_neg", "hm_huge", "hm_long", "chm_overflow", "set_self")],
      ["its size field is negative", "its size is beyond the dump's objects", "its size field is absent or not an int",
       "its counts overflow", "its inner collection wraps another"])
j = json.load(open(D + "/leaks.json"))
s = j["suspects"][0] if j["suspects"] else {}
check("the suspect: the list whose size says -1, size unknown",
      ((s.get("collection") or {}).get("id"), (s.get("collection") or {}).get("size"), (s.get("collection") or {}).get("size_unknown")),
      (t["ids"]["al_neg"], None, "its size field is negative"))
check("its retained set by class: 100 byte[] and the Object[]",
      [(r["class"], r["count"]) for r in s.get("accumulated_by_class", {}).get("rows", [])], [("byte[]", 100), ("java.lang.Object[]", 1)])
EOF2
grep -qE '^  collection: java\.util\.ArrayList @0x[0-9a-f]+, size unknown \(its size field is negative\)$' "$D/leaks.txt" &&
  ok "collections: leaks' table says the size is unknown and why" ||
  fail "collections: leaks' table says the size is unknown and why" "$(head -c 1200 "$D/leaks.txt")"

# MAT's CreateCollectionDump: its *TestData objects hold arrays (collections,
# maps) of filled and empty collections of every JDK class
if have_corpus collections-mat; then
  F=$CORPUS/eclipse-mat__mat/openjdk_jdk11_04_x64.hprof.gz
  M=$D/mat
  mkdir -p "$M"
  "$REL" instances "$F" org.eclipse.mat.tests.CreateCollectionDump --json --quiet >"$M/cd.json" 2>&1
  CD=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["instances"][0]["id"])' "$M/cd.json" 2>/dev/null)
  "$REL" object "$F" "$CD" --json --quiet >"$M/cd-object.json" 2>&1
  python3 -c '
import json, sys
for f in json.load(open(sys.argv[1]))["object"]["fields"]:
    if f.get("object", {}).get("class", "").endswith("TestData"):
        print(f["name"], f["value"])' "$M/cd-object.json" >"$M/data.list"
  while read -r name id; do
    "$REL" object "$F" "$id" --json --quiet >"$M/data-$name.json" 2>&1
    arr=$(python3 -c 'import json,sys; print([x["value"] for x in json.load(open(sys.argv[1]))["object"]["fields"] if x["name"] in ("collections", "maps")][0])' "$M/data-$name.json")
    "$REL" object "$F" "$arr" --top 0 --json --quiet >"$M/arr-$name.json" 2>&1
  done <"$M/data.list"
  # the classes sized (collections.h) and the subclasses the program fills
  for c in java.util.ArrayList java.util.LinkedList java.util.Vector java.util.Stack \
           java.util.concurrent.CopyOnWriteArrayList javax.management.AttributeList javax.management.relation.RoleList \
           javax.management.relation.RoleUnresolvedList java.util.HashMap java.util.Hashtable java.util.IdentityHashMap \
           java.util.LinkedHashMap java.util.Properties java.util.TreeMap java.util.WeakHashMap \
           java.util.concurrent.ConcurrentHashMap javax.print.attribute.standard.PrinterStateReasons javax.swing.UIDefaults \
           java.util.ArrayDeque java.util.HashSet java.util.LinkedHashSet java.util.PriorityQueue java.util.TreeSet \
           java.util.concurrent.CopyOnWriteArraySet; do
    echo "$c"
  done | xargs -P 2 -I{} sh -c '"$1" instances "$2" "$3" --top 0 --json --quiet >"$4/inst-$3.json" 2>&1' sh "$REL" "$F" {} "$M"
  python3 - "$M" <<'EOF2'
import collections, glob, json, os, sys
M = sys.argv[1]
members = {}
for f in glob.glob(M + "/arr-*.json"):
    name = os.path.basename(f)[4:-5]
    for e in json.load(open(f))["object"].get("elements", []):
        if e.get("value"):
            members[e["value"]] = name
got = collections.Counter()
for f in glob.glob(M + "/inst-*.json"):
    for e in json.load(open(f))["instances"]:
        if e["id"] in members:
            got[(members[e["id"]].startswith("empty"), e.get("collection") is not None, e.get("size"))] += 1
print(("ok collections-mat: %d JDK collections of the test data: 341 entries each, 0 in the empty ones" % sum(got.values()))
      if set(got) == {(False, True, 341), (True, True, 0)} and sum(got.values()) >= 250 else
      "FAIL collections-mat: the sizes of the test data's collections: %r" % dict(got))
EOF2
fi
