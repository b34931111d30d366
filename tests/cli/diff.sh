#!/usr/bin/env bash
# hprofan diff and trend on dumps built byte by byte (tests/helper/mkhprof.py),
# against deltas and holders computed by hand.  Size model: ids 4 bytes,
# header 8, array header 12, alignment 16 (the ids are 16 apart), so
#   t.Item (int v, Item next)      8 + 4 + 4 = 16 bytes
#   Object[] of n elements         12 + 4 n, rounded up to 16
# The shapes (the GC roots: sticky class roots on t.Holder and t.Holder2):
#   base      Holder.CACHE -> Object[4] -> 4 Items; Holder.OTHER -> Item a -> Item b
#   renumbered   the same objects, every id different (ids start elsewhere)
#   grown     CACHE's array holds 7 Items
#   moved     a -> b hangs off Holder2.KEEP instead of Holder.OTHER
#   fresh     base and a t.Fresh instance held by a JNI global
# Checks:
#  (a) base vs renumbered: no class changed, no growth point, reachable +0;
#  (b) base vs grown: t.Item +3 instances, +48 shallow and retained;
#      Object[] +16 (32 -> 48 bytes); the growth is at
#      "class t.Holder .CACHE -> java.lang.Object[] [] -> t.Item" (+48, +3
#      objects) and the array's own +16; nothing new or shrunk; the points
#      add up to the reachable delta (+64);
#  (c) base vs moved: no class changed; new "class t.Holder2 .KEEP -> t.Item"
#      (+32, 1 object, 2 retained), gone "class t.Holder .OTHER -> t.Item"
#      (-32); class t.Item (0 bytes) from under class t.Holder to joint
#      (MAT's <class> edges); reachable +0;
#  (d) base vs fresh: t.Fresh is a new class, and a new top-level path held
#      by a JNI global; root kinds: jni_global 0 -> 1;
#  (d2) Android: heap "app" 2 -> 5 Items, +3 objects and their bytes;
#      "zygote" unchanged;
#  (e) --fast: classes by shallow size, no holders; --top 1 one class row;
#      --filter keeps the classes and holders it matches;
#  (f) trend over CACHE arrays of 4, 7, 10 Items (given out of order and
#      put in order by --sort-by-time): t.Item first, +3 instances and +48
#      bytes per step exactly, R^2 1, growing at every step; the CACHE path
#      the same per path; t.Holder's stable chain not flagged;
#  (g) a truncated dump in a trend: the error names it (exit 3); --salvage
#      analyses what it can (partial, exit 0); a missing second file is a
#      usage error.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip diff "python3 is absent"; exit 0; }
H=$(cd "$(dirname "$0")/../helper" && pwd)
D=$TMPD

python3 - "$D" "$H" <<'EOF' || { fail diff-dumps "could not write the dumps"; exit 0; }
import sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
D = sys.argv[1]

def build(path, items=4, chain="OTHER", fresh=False, first_id=0x1000, ts=0):
    d = Dump(timestamp_ms=ts, first_id=first_id)
    obj = d.load_class("java.lang.Object")
    d.class_dump(obj)
    item = d.load_class("t.Item")
    d.class_dump(item, obj, fields=[("v", INT), ("next", OBJECT)])
    arr = d.load_class("[Ljava.lang.Object;")
    d.class_dump(arr, obj)
    b = d.instance(item, [2, 0])
    a = d.instance(item, [1, b])
    cache = [d.instance(item, [10 + i, 0]) for i in range(items)]
    array = d.obj_array(arr, cache)
    holder = d.load_class("t.Holder")
    d.class_dump(holder, obj, statics=[("CACHE", OBJECT, array), ("OTHER", OBJECT, a if chain == "OTHER" else 0)])
    holder2 = d.load_class("t.Holder2")
    d.class_dump(holder2, obj, statics=[("KEEP", OBJECT, a if chain == "KEEP" else 0)])
    d.root(holder, kind=0x05)
    d.root(holder2, kind=0x05)
    if fresh:
        fc = d.load_class("t.Fresh")
        d.class_dump(fc, obj, fields=[("v", LONG)])
        d.root(d.instance(fc, [7]), kind=0x01)
    d.write(path)

build(D + "/base.hprof")
build(D + "/renumbered.hprof", first_id=0x7770000)
build(D + "/grown.hprof", items=7, first_id=0x40000)
build(D + "/moved.hprof", chain="KEEP", first_id=0x50000)
build(D + "/fresh.hprof", fresh=True)
build(D + "/t1.hprof", items=4, ts=1000)
build(D + "/t2.hprof", items=7, ts=2000, first_id=0x20000)
build(D + "/t3.hprof", items=10, ts=3000, first_id=0x30000)

# Android: heap "zygote" holds one Item, heap "app" 2, then 5
def android(path, n, first_id=0x1000):
    d = Dump(android=True, first_id=first_id)
    obj = d.load_class("java.lang.Object")
    d.class_dump(obj)
    item = d.load_class("t.Item")
    d.class_dump(item, obj, fields=[("v", INT), ("next", OBJECT)])
    d.heap_info(1, "zygote")
    d.root(d.instance(item, [1, 0]), kind=0x01)
    d.heap_info(2, "app")
    for i in range(n):
        d.root(d.instance(item, [i, 0]), kind=0x01)
    d.write(path)
android(D + "/a1.hprof", 2)
android(D + "/a2.hprof", 5, first_id=0x9000)
EOF

j() { "$HPROFAN" "$@" --json --quiet >"$D/out.json" 2>"$D/err"; echo $? >"$D/rc"; }

cat >"$D/check.py" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
case = sys.argv[2]
def ok(n): print("ok diff %s: %s" % (case, n))
def fail(n, why): print("FAIL diff %s: %s: %s" % (case, n, why))
def eq(n, got, want):
    if got == want: ok(n)
    else: fail(n, "got %r, want %r" % (got, want))
def path(e): return " > ".join(("%s %s" % (s.get("via", s.get("root")), s["object"])).strip() for s in e["path"])
def cls(name):
    return next((c for c in doc.get("classes", []) if c["class"] == name), None)
def holders(kind):
    return [(path(e), e["delta"]["retained"], e["delta"]["objects"], e["own"]) for e in doc["holders"][kind]]
H = doc.get("holders")
def points_sum():
    return sum(e["delta"]["retained"] for k in ("grown", "new", "shrunk") for e in H[k])

if case == "renumbered":
    eq("no class changed", doc["class_counts"], {"changed": 0, "new": 0, "gone": 0, "shown": 0})
    eq("no growth point", [holders(k) for k in ("grown", "new", "shrunk")], [[], [], []])
    eq("reachable +0", doc["delta"]["reachable_shallow"], 0)
    eq("not matched by id", doc["object_ids"]["matched"], False)
elif case == "grown":
    c = cls("t.Item")
    eq("t.Item delta", c and c["delta"], {"instances": 3, "shallow": 48, "retained": 48})
    c = cls("java.lang.Object[]")
    eq("Object[] delta", c and c["delta"], {"instances": 0, "shallow": 16, "retained": 64})
    eq("classes sorted by retained delta", [c["class"] for c in doc["classes"]][:2],
       ["java.lang.Class", "java.lang.Object[]"])
    eq("grown", holders("grown"), [
        ("sticky_class class t.Holder > CACHE java.lang.Object[] > [] t.Item", 48, 3, False),
        ("sticky_class class t.Holder > CACHE java.lang.Object[]", 16, 0, True)])
    eq("new, shrunk", (holders("new"), holders("shrunk")), ([], []))
    eq("the points add up to the reachable delta", points_sum(), doc["delta"]["reachable_shallow"])
    eq("reachable +64", doc["delta"]["reachable_shallow"], 64)
elif case == "moved":
    eq("no class changed", (doc["class_counts"], doc["classes"]), ({"changed": 0, "new": 0, "gone": 0, "shown": 0}, []))
    # with MAT's <class> edges (the HotSpot default) class t.Item moves too:
    # under class t.Holder when every Item is, held jointly once a and b
    # hang off t.Holder2 (a class object of no statics: 0 bytes)
    eq("new", holders("new"), [("sticky_class class t.Holder2 > KEEP t.Item", 32, 1, False),
                               ("joint class t.Item", 0, 1, False)])
    eq("gone", holders("shrunk"), [("sticky_class class t.Holder > OTHER t.Item", -32, -1, False),
                                   ("sticky_class class t.Holder > class t.Item", 0, -1, False)])
    eq("gone's status", doc["holders"]["shrunk"][0]["status"], "gone")
    eq("retained objects of the new path", doc["holders"]["new"][0]["delta"]["retained_objects"], 2)
    eq("grown", holders("grown"), [])
    eq("reachable +0", doc["delta"]["reachable_shallow"], 0)
elif case == "fresh":
    c = cls("t.Fresh")
    eq("t.Fresh is new", c and (c["status"], c["delta"]["instances"], c["delta"]["shallow"]), ("new", 1, 16))
    eq("new path", holders("new"), [("jni_global t.Fresh", 16, 1, False)])
    rk = {r["kind"]: r for r in doc["root_kinds"]}
    eq("jni_global roots 0 -> 1", (rk["jni_global"]["base"]["roots"], rk["jni_global"]["new"]["roots"],
                                   rk["jni_global"]["delta"]["retained"]), (0, 1, 16))
    eq("sticky_class roots unchanged", rk["sticky_class"]["delta"], {"roots": 0, "objects": 0, "retained": 0})
elif case == "fast":
    eq("no holders with --fast", "holders" in doc, False)
    eq("sorted by shallow", doc["sort"], "shallow")
    c = cls("t.Item")
    eq("t.Item delta", c and c["delta"], {"instances": 3, "shallow": 48})
elif case == "top1":
    eq("one class row", len(doc["classes"]), 1)
    eq("one row per holder list", [len(doc["holders"][k]) for k in ("grown", "new", "shrunk")], [1, 0, 0])
elif case == "filter":
    eq("only t.Item", [c["class"] for c in doc["classes"]], ["t.Item"])
    eq("holders of t.Item only", [path(e) for e in doc["holders"]["grown"]],
       ["sticky_class class t.Holder > CACHE java.lang.Object[] > [] t.Item"])
elif case == "trend":
    eq("order by time", [d["file"].rsplit("/", 1)[1] for d in doc["dumps"]], ["t1.hprof", "t2.hprof", "t3.hprof"])
    c = doc["classes"][0]
    eq("t.Item first", c["class"], "t.Item")
    eq("t.Item series", (c["instances"], c["shallow"], c["retained"]), ([6, 9, 12], [96, 144, 192], [96, 144, 192]))
    eq("t.Item fits", (c["instances_fit"], c["retained_fit"]["slope"], c["grows"]),
       ({"slope": 3, "r2": 1, "every_step": True}, 48, True))
    p = doc["paths"][0]
    eq("the CACHE path first", path(p), "sticky_class class t.Holder > CACHE java.lang.Object[] > [] t.Item")
    eq("its series", (p["objects"], p["retained"], p["objects_fit"]["slope"], p["retained_fit"]["slope"],
                      p["retained_fit"]["r2"], p["grows"]), ([4, 7, 10], [64, 112, 160], 3, 48, 1, True))
    stable = [x for x in doc["paths"] if "OTHER" in path(x)]
    eq("the stable chain is no growth point", stable, [])
    nongrow = [c["class"] for c in doc["classes"] if c["grows"] and c["class"] != "t.Item"]
    eq("no other class grows at every step", nongrow, [])
elif case == "android":
    hp = {h["heap"]: h for h in doc["heaps"]}
    eq("the heaps (the class objects, before the first heap record, in \"default\")", sorted(hp), ["app", "default", "zygote"])
    per = cls("t.Item")["new"]["shallow"] // cls("t.Item")["new"]["instances"]
    eq("app +3 objects", (hp["app"]["delta"]["objects"], hp["app"]["delta"]["shallow"]), (3, 3 * per))
    eq("zygote and default unchanged", (hp["zygote"]["delta"], hp["default"]["delta"]),
       ({"objects": 0, "shallow": 0}, {"objects": 0, "shallow": 0}))
    eq("t.Item +3", cls("t.Item")["delta"]["instances"], 3)
    eq("three new JNI-global Items", [(path(e), e["delta"]["objects"]) for e in doc["holders"]["grown"]],
       [("jni_global t.Item", 3)])
elif case == "salvage":
    eq("partial", doc["partial"], True)
    eq("the reason names the cut dump", "t2cut.hprof" in doc["partial_reason"], True)
    eq("three dumps", len(doc["dumps"]), 3)
PY
check() { python3 "$D/check.py" "$D/out.json" "$1"; }
rc_is() { expect_eq "diff $1: exit status" "$(cat "$D/rc")" "$2"; }

j diff "$D/base.hprof" "$D/renumbered.hprof"; rc_is renumbered 0; check renumbered
j diff "$D/base.hprof" "$D/grown.hprof"; rc_is grown 0; check grown
j diff "$D/base.hprof" "$D/moved.hprof"; rc_is moved 0; check moved
j diff "$D/base.hprof" "$D/fresh.hprof"; rc_is fresh 0; check fresh
j diff "$D/base.hprof" "$D/grown.hprof" --fast; rc_is fast 0; check fast
j diff "$D/base.hprof" "$D/grown.hprof" --top 1; rc_is top1 0; check top1
j diff "$D/base.hprof" "$D/grown.hprof" --filter 'Item$'; rc_is filter 0; check filter
j trend "$D/t3.hprof" "$D/t1.hprof" "$D/t2.hprof" --sort-by-time; rc_is trend 0; check trend
j diff "$D/a1.hprof" "$D/a2.hprof"; rc_is android 0; check android

# the tables say the same
"$HPROFAN" diff "$D/base.hprof" "$D/grown.hprof" --quiet >"$D/grown.txt" 2>&1
if grep -qF "+48 B           +3  class t.Holder .CACHE → java.lang.Object[] [] → t.Item" "$D/grown.txt"; then
  ok "diff table: who holds the growth"
else fail "diff table: who holds the growth" "$(cat "$D/grown.txt")"; fi
"$HPROFAN" trend "$D/t1.hprof" "$D/t2.hprof" "$D/t3.hprof" --quiet >"$D/trend.txt" 2>&1
if grep -E '^ +\+3 +1\.00 +yes +\+48 B +\+48 B +▁▅█ +▁▅█ +t\.Item' "$D/trend.txt" >/dev/null; then
  ok "trend table: t.Item with its slopes and sparklines"
else fail "trend table: t.Item with its slopes and sparklines" "$(cat "$D/trend.txt")"; fi

# a truncated dump in the series
# cut inside its heap dump (a cut before it leaves nothing to salvage)
head -c $(($(wc -c <"$D/t2.hprof") - 30)) "$D/t2.hprof" >"$D/t2cut.hprof"
"$HPROFAN" trend "$D/t1.hprof" "$D/t2cut.hprof" "$D/t3.hprof" --quiet >"$D/cut.out" 2>"$D/cut.err"
rc=$?
expect_eq "trend: a truncated dump is exit 3" "$rc" 3
if grep -q "t2cut.hprof: offset" "$D/cut.err"; then ok "trend: the error names the truncated dump"
else fail "trend: the error names the truncated dump" "$(cat "$D/cut.err")"; fi
j trend "$D/t1.hprof" "$D/t2cut.hprof" "$D/t3.hprof" --salvage; rc_is salvage 0; check salvage
"$HPROFAN" diff "$D/base.hprof" --quiet >/dev/null 2>"$D/one.err"
rc=$?
if [ $rc = 2 ] && grep -q "diff needs 2 dump files" "$D/one.err"; then ok "diff: one file is a usage error"
else fail "diff: one file is a usage error" "exit $rc: $(cat "$D/one.err")"; fi
"$HPROFAN" diff "$D/base.hprof" "$D/nonexistent.hprof" --quiet >/dev/null 2>"$D/nx.err"
rc=$?
if [ $rc = 1 ] && grep -q "nonexistent.hprof" "$D/nx.err"; then ok "diff: a missing dump is named"
else fail "diff: a missing dump is named" "exit $rc: $(cat "$D/nx.err")"; fi
