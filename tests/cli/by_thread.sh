#!/usr/bin/env bash
# top --by-thread on a dump built byte by byte (size model raw: an instance
# is its field bytes, an array its elements), worked out by hand:
#  - thread 1: its Thread (8 B) holding a byte[30], and a byte[100] only its
#    frame holds: 3 objects, 138 B;
#  - thread 2: its Thread (8 B) and a byte[60] only its frame holds: 2, 68 B;
#  - thread 3 has no Thread object; a byte[20] only its frame holds: 1, 20 B;
#  - shared: a byte[50] the frames of threads 1 and 2 both hold, a byte[40]
#    thread 1's frame and a JNI global hold, a byte[10] a JNI global holds
#    (3 objects, 100 B);
#  - unreachable: a byte[7] (and the class objects, which nothing refers to);
#  - the rows add up to every object of the dump (the class table's total,
#    computed apart), under --roots=threads and --roots=all alike; --top 1
#    sums the threads it leaves out in one row; with --filter it is a usage
#    error.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip by-thread "python3 is absent"; exit 0; }
H=$(cd "$(dirname "$0")/../helper" && pwd)
D=$TMPD

python3 - "$D/t.hprof" "$H" <<'PY' || { fail by-thread-build "cannot write the test dump"; exit 0; }
import sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
d = Dump()
obj = d.load_class("java.lang.Object"); d.class_dump(obj)
thread = d.load_class("java.lang.Thread")
d.class_dump(thread, obj, fields=[("name", OBJECT), ("payload", OBJECT)])   # 8 bytes
d.load_class("[B")
f = d.stack_frame("run", "()V", "T.java", thread, 1)
for s in (1, 2, 3):
    d.stack_trace(s, s, [f])
t1 = d.instance(thread, [0, d.prim_array(BYTE, bytes(30))])
t2 = d.instance(thread, [0, 0])
d.thread_root(t1, 1, trace=1)
d.thread_root(t2, 2, trace=2)
d.start_thread(3, 0, 3, "no-object")
d.frame_root(d.prim_array(BYTE, bytes(100)), 1, 0)
d.frame_root(d.prim_array(BYTE, bytes(60)), 2, 0)
d.frame_root(d.prim_array(BYTE, bytes(20)), 3, 0)
both = d.prim_array(BYTE, bytes(50)); d.frame_root(both, 1, 0); d.frame_root(both, 2, 0)
glob = d.prim_array(BYTE, bytes(40)); d.frame_root(glob, 1, 0); d.root(glob)
d.root(d.prim_array(BYTE, bytes(10)))
d.prim_array(BYTE, bytes(7))
d.write(sys.argv[1])
PY

"$HPROFAN" top "$D/t.hprof" --size-model=raw --json --top 0 --quiet >"$D/top.json" 2>"$D/err"
for roots in threads all; do
  run_hp "$D/j" "$D/err" top "$D/t.hprof" --size-model=raw --by-thread --json --quiet --roots=$roots
  rc=$?
  expect_eq "top --by-thread --roots=$roots: the threads' rows" \
    "$rc $(jget "$D/j" '[(t["serial"], t["objects"], t["bytes"], "object" in t) for t in d["threads"]]')" \
    "0 [(1, 3, 138, True), (2, 2, 68, True), (3, 1, 20, False)]"
  expect_eq "top --by-thread --roots=$roots: the byte[50], [40], [10] shared" \
    "$(jget "$D/j" '(d["thread_rest"]["shared_objects"], d["thread_rest"]["shared_bytes"])')" "(3, 100)"
  python3 - "$D/j" "$D/top.json" "$roots" <<'PY'
import json, sys
j, t, roots = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
r = j["thread_rest"]
objs = sum(x["objects"] for x in j["threads"]) + r["shared_objects"] + r["unreachable_objects"]
byts = sum(x["bytes"] for x in j["threads"]) + r["shared_bytes"] + r["unreachable_bytes"]
cls_bytes = sum(c["shallow"] for c in t["classes"] if c["class"] == "java.lang.Class")
ok = (objs, byts) == (r["objects"], r["bytes"]) == (t["total"]["instances"], t["total"]["shallow"]) \
     and r["unreachable_bytes"] == 7 + cls_bytes
print(("ok" if ok else "FAIL") + " top --by-thread --roots=%s: the rows add up to the class table's total (%d objects, %d bytes), unreachable: the byte[7] and the class objects nothing refers to%s"
      % (roots, t["total"]["instances"], t["total"]["shallow"], "" if ok else ": got %r" % ((objs, byts, r, cls_bytes),)))
PY
done

run_hp "$D/out" "$D/err" top "$D/t.hprof" --size-model=raw --by-thread --top 1 --quiet
expect_eq "top --by-thread --top 1: the first thread, the other two summed" \
  "$(sed -n '2,3p' "$D/out" | sed -E 's/^ +//' | tr -s ' ' | cut -d' ' -f1-9 | paste -sd'|')" \
  "1 3 138 B 41.4% (no name) serial 1|3 88 B 26.4% … 2 more threads"
run_hp "$D/out" "$D/err" top "$D/t.hprof" --by-thread --filter Thread --quiet
expect_eq "top --by-thread --filter: a usage error" "$?" 2
