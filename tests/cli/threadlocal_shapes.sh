#!/usr/bin/env bash
# ThreadLocal maps on dumps built byte by byte (tests/helper/mkhprof.py):
#  1. old Android's layout: Thread.localValues, a ThreadLocal$Values whose
#     table is an Object[] of pairs (the key the ThreadLocal's own
#     WeakReference, then the value; a free slot holds the TOMBSTONE, a
#     plain Object): one value, byte[100], under Holder.TL, found with its
#     static field; the TOMBSTONE is no entry and no error;
#  2. a stale entry (HotSpot's layout, referent null): its value listed as
#     stale, under one "(stale entries)" key;
#  3. hostile maps: threadLocals an int; a map whose table is the map
#     itself; a table holding itself, a Thread, a dangling id, an entry
#     twice, an entry whose referent is a class object and one whose value
#     is its own Thread (a cycle); one map shared by two threads; a thread
#     whose object the dump lacks.  threads, leaks, diff and trend exit 0
#     on it (sanitizers watching), count what they gave up, and list the
#     entries that are entries.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip threadlocal-shapes "python3 is absent"; exit 0; }
H=$(cd "$(dirname "$0")/../helper" && pwd)
D=$TMPD
python3 - "$D" "$H" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
D = sys.argv[1]

def at(d, oid, make):
    """make() gives its object the id oid, reserved before with d.new_id()"""
    saved = d.next_id
    d.next_id = oid - 16
    r = make()
    d.next_id = saved
    assert r == oid
    return r

def base(d):
    c = {}
    c["obj"] = d.load_class("java.lang.Object"); d.class_dump(c["obj"])
    c["ref"] = d.load_class("java.lang.ref.Reference"); d.class_dump(c["ref"], c["obj"], [("referent", OBJECT)])
    c["weak"] = d.load_class("java.lang.ref.WeakReference"); d.class_dump(c["weak"], c["ref"])
    c["objarr"] = d.load_class("java.lang.Object[]"); d.class_dump(c["objarr"], c["obj"])
    return c

# 1. old Android
d = Dump(android=True)
c = base(d)
tlc = d.load_class("java.lang.ThreadLocal"); d.class_dump(tlc, c["obj"], [("reference", OBJECT)])
vals = d.load_class("java.lang.ThreadLocal$Values"); d.class_dump(vals, c["obj"], [("table", OBJECT)])
th = d.load_class("java.lang.Thread"); d.class_dump(th, c["obj"], [("localValues", OBJECT), ("inheritableValues", OBJECT)])
tl_id = d.new_id()
holder = d.load_class("Holder")
d.class_dump(holder, c["obj"], statics=[("TL", OBJECT, tl_id)])
keyref = d.instance(c["weak"], [tl_id])
tombstone = d.instance(c["obj"])
tl = at(d, tl_id, lambda: d.instance(tlc, [keyref]))
value = d.prim_array(BYTE, bytes(100))
table = d.obj_array(c["objarr"], [keyref, value, tombstone, 0, 0, 0])
v = d.instance(vals, [table])
t = d.instance(th, [v, 0])
d.start_thread(1, t, 0, "worker")
d.thread_root(t, 1)
d.root(holder, 0x05)
d.write(D + "/android.hprof")

# 2 and 3. HotSpot's layout
d = Dump()
c = base(d)
tlc = d.load_class("java.lang.ThreadLocal"); d.class_dump(tlc, c["obj"])
ent = d.load_class("java.lang.ThreadLocal$ThreadLocalMap$Entry"); d.class_dump(ent, c["weak"], [("value", OBJECT)])
entarr = d.load_class("java.lang.ThreadLocal$ThreadLocalMap$Entry[]"); d.class_dump(entarr, c["obj"])
mapc = d.load_class("java.lang.ThreadLocal$ThreadLocalMap"); d.class_dump(mapc, c["obj"], [("table", OBJECT)])
th = d.load_class("java.lang.Thread"); d.class_dump(th, c["obj"], [("threadLocals", OBJECT), ("inheritableThreadLocals", OBJECT)])
bad = d.load_class("BadThread"); d.class_dump(bad, c["obj"], [("threadLocals", INT)])
# stale: referent null
sv = d.prim_array(BYTE, bytes(64))
se = d.instance(ent, [sv, 0])
st = d.obj_array(entarr, [se])
sm = d.instance(mapc, [st])
t1 = d.instance(th, [sm, 0])
# an int where the map should be
t2 = d.instance(bad, [12345])
# a map whose table is the map itself: ids known ahead (new_id steps by 16)
m3 = d.new_id()
at(d, m3, lambda: d.instance(mapc, [m3]))
t3 = d.instance(th, [m3, 0])
# the hostile table
tl = d.instance(tlc)
t4 = d.new_id()     # made below, after the entries and the table
e_cls = d.instance(ent, [d.prim_array(BYTE, bytes(8)), c["obj"]])   # referent a class object
e_cyc = d.instance(ent, [t4, tl])                                    # value: its own Thread
e_ok = d.instance(ent, [d.prim_array(BYTE, bytes(32)), tl])
tab_id = d.new_id()
tab = at(d, tab_id, lambda: d.obj_array(entarr, [tab_id, t1, 0x7fff0000, e_ok, e_ok, e_cls, e_cyc, 0]))
m4 = d.instance(mapc, [tab])
at(d, t4, lambda: d.instance(th, [m4, 0]))
t5 = d.instance(th, [0, m4])      # the same map, inheritable
for i, o in enumerate([t1, t2, t3, t4, t5], 1):
    d.start_thread(i, o, 0, "t%d" % i)
    d.thread_root(o, i)
d.start_thread(6, 0x7ffe0000, 0, "gone")
d.write(D + "/hostile.hprof")
print("ok threadlocal-shapes/built")
PY
for f in android hostile; do
  "$HPROFAN" threads "$D/$f.hprof" --json --quiet >"$D/$f.threads.json" 2>"$D/$f.threads.err"
  expect_eq "threads --json on $f exits 0" "$?" 0
  "$HPROFAN" threads "$D/$f.hprof" --quiet >"$D/$f.threads.txt" 2>>"$D/$f.threads.err"
  expect_eq "threads on $f exits 0" "$?" 0
  "$HPROFAN" leaks "$D/$f.hprof" --json --quiet >"$D/$f.leaks.json" 2>"$D/$f.leaks.err"
  expect_eq "leaks on $f exits 0" "$?" 0
  "$HPROFAN" diff "$D/$f.hprof" "$D/$f.hprof" --quiet >"$D/$f.diff.txt" 2>"$D/$f.diff.err"
  expect_eq "diff on $f exits 0" "$?" 0
  "$HPROFAN" trend "$D/$f.hprof" "$D/$f.hprof" --quiet >"$D/$f.trend.txt" 2>"$D/$f.trend.err"
  expect_eq "trend on $f exits 0" "$?" 0
  expect_eq "no sanitizer report on $f" "$(cat "$D/$f".*.err | grep -c 'runtime error\|AddressSanitizer')" 0
done
python3 - "$D" <<'PY'
import json, sys
D = sys.argv[1]
def check(name, got, want):
    print(("ok threadlocal-shapes/%s" % name) if got == want else ("FAIL threadlocal-shapes/%s: got %r, want %r" % (name, got, want)))
def load(n):
    try:
        return json.load(open(D + "/" + n))
    except Exception:
        return {}
def rows(doc, name):
    th = next((t for t in doc.get("threads", []) if t.get("name") == name), {})
    return [(e.get("name"), e.get("static_field"), e.get("map"), (e.get("value") or {}).get("class"), e.get("stale"))
            for e in th.get("thread_locals", [])]
a = load("android.threads.json")
check("android: the Values pair under Holder.TL, the TOMBSTONE no entry",
      (rows(a, "worker"), a.get("total", {}).get("thread_local_skipped")),
      ([("Holder.TL", "Holder.TL", "localValues", "byte[]", False)], 0))
v = next((e["value"] for t in a.get("threads", []) for e in t.get("thread_locals", [])), {})
check("android: the value retains itself", v.get("retained") == v.get("shallow") and v.get("retained", 0) >= 100, True)
h = load("hostile.threads.json")
check("stale entry: listed, under (stale entries)", rows(h, "t1"), [("(stale entries)", None, "threadLocals", "byte[]", True)])
check("an int threadLocals, a map that is its own table: nothing", (rows(h, "t2"), rows(h, "t3")), ([], []))
want = sorted([("java.lang.ThreadLocal", None, "threadLocals", "byte[]", False)] * 2 +
              [("java.lang.ThreadLocal", None, "threadLocals", "java.lang.Thread", False),
               ("(stale entries)", None, "threadLocals", "byte[]", True)])
check("the hostile table: the entries that are entries (one twice)", sorted(rows(h, "t4")), want)
check("the shared map, inheritable", sorted(rows(h, "t5")), sorted((a, b, "inheritableThreadLocals", c, s) for a, b, _, c, s in want))
check("what was given up is counted (the int, the map as table, the array, the Thread, the dangling id; twice)",
      h.get("total", {}).get("thread_local_skipped"), 2 + 2 * 3)
k = next((k for k in h.get("thread_locals", []) if k.get("name") == "java.lang.ThreadLocal"), {})
check("the ThreadLocal over its threads: the distinct values once each", (k.get("threads"), k.get("values")), (2, 2))
PY
grep -q 'stale entry (its ThreadLocal was collected): byte\[\] @0x' "$D/hostile.threads.txt" &&
  ok "threadlocal-shapes/text names the stale entry" || fail "threadlocal-shapes/text names the stale entry" "$(grep -i stale "$D/hostile.threads.txt" | head -3)"
