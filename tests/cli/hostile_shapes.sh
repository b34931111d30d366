#!/usr/bin/env bash
# Dumps whose shape, not their bytes, is the attack: each is
# built byte by byte (tests/helper/mkhprof.py) with a hand-computed answer.
#  - a super class chain 100,000 classes deep with an instance of each: the
#    reference layout of each class is made from its super class's once, so
#    --top and dominators take linear time (the old per-class copy of the
#    whole chain took minutes and gigabytes; `timeout` only guards a hang,
#    speed is measured by make bench).
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip hostile-shapes "python3 is absent"; exit 0; }
H=$(cd "$(dirname "$0")/../helper" && pwd)
D=$TMPD
# jv FILE EXPR: jget, empty when the file holds no JSON
jv() { jget "$1" "$2" 2>/dev/null; }

# ---- 1. a deep super class chain ------------------------------------------------
# C0 extends java.lang.Object, Ck extends Ck-1; each declares a reference f,
# the even ones an int n before it.  One instance of each Ck (k < N-1) with
# no field bytes; the instance of C(N-1), the only GC root, holds the whole
# chain (own fields first): Ck's f names the instance of Ck, every n holds a
# value that is no object (a misplaced read is a dangling reference).  So it
# retains all N instances; under --size-model=raw an instance of Ck is the
# chain's field bytes.
python3 - "$D" "$H" <<'EOF'
import sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
D = sys.argv[1]
N = 100000
d = Dump()
obj = d.load_class("java.lang.Object")
d.class_dump(obj)
prev, cls = obj, []
for k in range(N):
    c = d.load_class("C%d" % k)
    f = [("n", INT), ("f", OBJECT)] if k % 2 == 0 else [("f", OBJECT)]
    d.class_dump(c, super_id=prev, fields=f)
    prev = c
    cls.append((c, f))
insts = [d.instance(c) for c, f in cls[:-1]]
types, vals = [], []
for k in range(N - 1, -1, -1):
    for name, t in cls[k][1]:
        types.append(t)
        vals.append(0x7ffffff0 if t == INT else (insts[k] if k < N - 1 else 0))
top = d.instance(cls[-1][0], vals, types)
d.root(top)
# and M more instances of C(N-1), unreachable, whose records hold only
# their own field f, naming the instance of C0: object on it decodes each
# referrer through the classes that declare fields, as far as its record
# reaches, not up the whole chain
M = 20000
for k in range(M):
    d.instance(cls[-1][0], [insts[0]], [OBJECT])
d.write("%s/deep.hprof" % D)
chain = 0
total = 0
for k in range(N):
    chain += 4 * len(cls[k][1])
    total += chain
with open("%s/deep.want" % D, "w") as f:
    f.write("%d %d 0x%x %d 0x%x" % (N, total, top, M, insts[0]))
EOF
read -r N TOTAL TOP M C0 <"$D/deep.want"
timeout 30 "$HPROFAN" "$D/deep.hprof" --top 1 --json --size-model=raw --quiet >"$D/deep.top" 2>"$D/deep.top.err"
expect_eq "a $N-class super chain: --top, the root retains every instance (raw sizes)" \
  "$?|$(jv "$D/deep.top" 'd["total"]["reachable_objects"]')|$(jv "$D/deep.top" 'd["classes"][0]["class"]')|$(jv "$D/deep.top" 'd["classes"][0]["retained"]')" \
  "0|$N|C$((N - 1))|$TOTAL"
timeout 30 "$HPROFAN" dominators "$D/deep.hprof" --depth 2 --json --size-model=raw --quiet >"$D/deep.dom" 2>"$D/deep.dom.err"
expect_eq "a $N-class super chain: dominators, the root first, retaining everything" \
  "$?|$(jv "$D/deep.dom" 'd["dominators"][0]["id"]')|$(jv "$D/deep.dom" 'd["dominators"][0]["retained"]')|$(jv "$D/deep.dom" 'd["total"]["reachable_shallow"]')" \
  "0|$TOP|$TOTAL|$TOTAL"
timeout 30 "$HPROFAN" object "$D/deep.hprof" "$C0" --top 0 --json --size-model=raw --quiet >"$D/deep.obj" 2>"$D/deep.obj.err"
expect_eq "a $N-class super chain: object, $M + 1 referrers each explained by its field f" \
  "$?|$(jv "$D/deep.obj" 'len(d["referrers"])')|$(jv "$D/deep.obj" 'sorted(set((r["via"]["kind"], r["via"]["declared_by"], r["via"]["name"]) for r in d["referrers"]))')" \
  "0|$((M + 1))|[('field', 'C0', 'f'), ('field', 'C$((N - 1))', 'f')]"

# A super class chain that loops (A extends B extends A, Thread extends A):
# cut where it closes, as the sizes cut it, so an instance of Thread has
# three fields (name, x, y) in 12 bytes and no field is read twice.
python3 - "$D" "$H" <<'EOF2'
import sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
D = sys.argv[1]
d = Dump()
o = d.load_class("java.lang.Object")
d.class_dump(o)
a, b, t = d.load_class("A"), d.load_class("B"), d.load_class("java.lang.Thread")
d.class_dump(a, super_id=b, fields=[("x", OBJECT)])
d.class_dump(b, super_id=a, fields=[("y", OBJECT)])
d.class_dump(t, super_id=a, fields=[("name", OBJECT)])
x = d.instance(o)
it = d.instance(t, [x, x, x], [OBJECT] * 3)
d.root(it)
d.write("%s/loop.hprof" % D)
with open("%s/loop.want" % D, "w") as f:
    f.write("0x%x" % it)
EOF2
timeout 30 "$HPROFAN" object "$D/loop.hprof" "$(cat "$D/loop.want")" --json --quiet >"$D/loop.json" 2>"$D/loop.err"
expect_eq "a looping super chain: an instance's fields once each, in the 12 bytes its record holds" \
  "$?|$(jv "$D/loop.json" '[(f["declared_by"], f["name"]) for f in d["object"]["fields"]]')|$(jv "$D/loop.json" '"layout_bytes" in d["object"]')" \
  "0|[('java.lang.Thread', 'name'), ('A', 'x'), ('B', 'y')]|false"

# ---- 8. an object held on 50,000 thread stacks --------------------------------------
# 50,000 threads (ROOT THREAD OBJECT), each with a ROOT JAVA FRAME on one
# Target object: object --top 0 explains every referrer (Thread -> local)
# from an index of the roots by object, not a scan of all roots per referrer.
python3 - "$D" "$H" <<'EOF2'
import sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
D = sys.argv[1]
N = 50000
d = Dump()
obj = d.load_class("java.lang.Object")
d.class_dump(obj)
th = d.load_class("java.lang.Thread")
d.class_dump(th, super_id=obj, fields=[("name", OBJECT)])
tgt = d.load_class("Target")
d.class_dump(tgt, super_id=obj)
t = d.instance(tgt)
for k in range(N):
    o = d.instance(th, [0])
    d.thread_root(o, k + 1)
    d.frame_root(t, k + 1, frame=k % 7)
d.write("%s/stacks.hprof" % D)
with open("%s/stacks.want" % D, "w") as f:
    f.write("%d 0x%x" % (N, t))
EOF2
read -r N TGT <"$D/stacks.want"
timeout 30 "$HPROFAN" object "$D/stacks.hprof" "$TGT" --top 0 --json --quiet >"$D/stacks.json" 2>"$D/stacks.err"
expect_eq "an object on $N thread stacks: object --top 0 explains each referrer as a Java frame local" \
  "$?|$(jv "$D/stacks.json" 'len(d["referrers"])')|$(jv "$D/stacks.json" 'sorted(set((r["via"]["kind"], r["via"]["root_kind"]) for r in d["referrers"]))')|$(jv "$D/stacks.json" 'sum(r["via"]["frame"] for r in d["referrers"])')" \
  "0|$N|[('local', 'java_frame')]|$(( (N / 7) * 21 + (N % 7) * (N % 7 - 1) / 2 ))"

# ---- 6. gzip bombs --------------------------------------------------------------------
# A gzip file of about 2 MB holding a 64 MiB STRING and STACK TRACE, an
# INSTANCE with 64 MiB of field bytes, a 64 MiB byte[] and an Object[] of
# 2^24 nulls (and 100,000 small objects, 70,000 of them held by an Object[]
# that the reference pass reads in parts too): no pass reads a record it
# does not need whole into memory.  The string and the trace are kept cut
# (64 KiB, 65,536 frames) with a warning giving their length; --fast, --top (the
# reference pass) and object run under --max-memory 2M/16M (each record would
# need 64 MiB buffered); a limit too small reports the same need whatever
# the limit.
python3 - "$D" "$H" <<'EOF2'
import sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
D = sys.argv[1]
n = 64 << 20
d = Dump()
obj = d.load_class("java.lang.Object")
c = d.load_class("Big")
d.class_dump(obj)
d.class_dump(c, super_id=obj, fields=[("next", OBJECT)])
d.load_class("[B")
sid = d.huge_string(n)
d.huge_trace(7, n // 4)
small = d.instance(c, [0])
i = d.huge_instance(c, n)
a = d.huge_prim_array(BYTE, n)
oa = d.load_class("[Ljava/lang/Object;")
nulls = d.huge_obj_array(oa, n)
d.root(i)
d.root(a)
d.root(nulls)
smalls = [d.instance(c, [small]) for k in range(100000)]
d.root(d.obj_array(oa, smalls[:70000]))
d.write("%s/bomb.hprof.gz" % D, gz=True)
with open("%s/bomb.want" % D, "w") as f:
    f.write("0x%x 0x%x 0x%x %d" % (sid, i, a, n))
EOF2
read -r SID BI BA BN <"$D/bomb.want"
B=$D/bomb.hprof.gz
"$HPROFAN" "$B" --fast --max-memory 2M --json >"$D/bomb.fast" 2>"$D/bomb.fast.err"
expect_eq "gzip bomb: --fast under --max-memory 2M, the 64 MiB byte[] counted, the string cut with its length" \
  "$?|$(jv "$D/bomb.fast" '[r["shallow"] >= '"$BN"' for r in d["classes"] if r["class"] == "byte[]"]')|$(jv "$D/bomb.fast" '[w for w in d["warnings"] if w.startswith("string '"$SID"' is '"$BN"' bytes long; only its first 65536 are kept")] != []')" \
  "0|[True]|true"
expect_eq "gzip bomb: a stack trace of 2^24 frames is cut with its depth" \
  "$(jv "$D/bomb.fast" '[w for w in d["warnings"] if w.startswith("stack trace 7 has 16777216 frames; only its first 65536 are kept")] != []')" "true"
"$HPROFAN" "$B" --top 0 --max-memory 16M --json --quiet >"$D/bomb.top" 2>"$D/bomb.top.err"
expect_eq "gzip bomb: --top (retained sizes) under --max-memory 16M: the byte[] retains itself, the Object[]s 70,000 Big and the one they name" \
  "$?|$(jv "$D/bomb.top" '[r["retained"] == r["shallow"] for r in d["classes"] if r["class"] == "byte[]"]')|$(jv "$D/bomb.top" '[r["retained"] - r["shallow"] for r in d["classes"] if r["class"] == "java.lang.Object[]"] == [70001 * b["shallow"] // b["instances"] for b in d["classes"] if b["class"] == "Big"]')" \
  "0|[True]|true"
"$HPROFAN" object "$B" "$BI" --max-memory 16M --json --quiet >"$D/bomb.obj" 2>"$D/bomb.obj.err"
expect_eq "gzip bomb: object on the instance of 64 MiB of fields under --max-memory 16M: its field" \
  "$?|$(jv "$D/bomb.obj" '[(f["name"], f["value"]) for f in d["object"]["fields"]]')" "0|[('next', None)]"
# (with files limited to 32 KiB: else the big arrays go to files, and fit)
(trap '' XFSZ; ulimit -f 32; exec "$HPROFAN" "$B" --top 3 --max-memory 2M --quiet) >/dev/null 2>"$D/bomb.m2"
r2=$?
(trap '' XFSZ; ulimit -f 32; exec "$HPROFAN" "$B" --top 3 --max-memory 3M --quiet) >/dev/null 2>"$D/bomb.m3"
expect_eq "gzip bomb: --max-memory 2M and 3M report the same need" \
  "$r2|$?|$(sed 's/; --max-memory is.*//' "$D/bomb.m2")" "4|4|$(sed 's/; --max-memory is.*//' "$D/bomb.m3")"

# ---- 9. nothing merged or guessed silently -----------------------------------------------
# An Android dump with 20 heaps h00..h19 (k + 1 instances in heap hk, then one
# more in h02 again): the first 15 keep their names, h14..h19 are counted in
# one heap named after all of them, and a warning names each merged heap.
# Its class X declares one int field but a CLASS DUMP instance size of
# 0xffffffff: ahat's model uses the 4 field bytes and says so (the stated
# size made this file 844 GiB).
python3 - "$D" "$H" <<'EOF2'
import sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
D = sys.argv[1]
d = Dump(android=True)
obj = d.load_class("java.lang.Object")
c = d.load_class("X")
d.class_dump(obj)
d.class_dump(c, super_id=obj, fields=[("a", INT)], instance_size=0xffffffff)
for k in range(20):
    d.heap_info(k + 1, "h%02d" % k)
    for j in range(k + 1):
        d.root(d.instance(c, [j]))
d.heap_info(3, "h02")
d.root(d.instance(c, [0]))
d.write("%s/heaps.hprof" % D)
EOF2
"$HPROFAN" "$D/heaps.hprof" --top 0 --json --quiet >"$D/heaps.json" 2>"$D/heaps.err"
expect_eq "20 Android heaps: 15 kept, the rest counted in one heap named after them all" \
  "$?|$(jv "$D/heaps.json" 'sorted((r["heap"], r["instances"]) for r in d["classes"] if r["class"] == "X")[-3:]')" \
  "0|[('h12', 13), ('h13', 14), ('h14+h15+h16+h17+h18+h19', 105)]"
expect_eq "20 Android heaps: a warning names each heap merged" \
  "$(jv "$D/heaps.json" 'sorted(w.split("\"")[1] for w in d["warnings"] if "more than 16 Android heaps" in w)')" \
  "['h15', 'h16', 'h17', 'h18', 'h19']"
expect_eq "a CLASS DUMP instance size of 0xffffffff: ahat's model uses the field bytes, with a warning" \
  "$(jv "$D/heaps.json" 'd["total"]["shallow"]')|$(jv "$D/heaps.json" 'len([w for w in d["warnings"] if w.startswith("class X: its CLASS DUMP states an instance size of 4294967295 bytes")])')" \
  "$((211 * 4))|1"
"$HPROFAN" "$D/heaps.hprof" --top 3 --heap h15 >/dev/null 2>"$D/heaps.h15"
expect_eq "--heap h15 (merged): a usage error listing the merged heap's name" \
  "$?|$(grep -c 'h14+h15+h16+h17+h18+h19' "$D/heaps.h15")" "2|1"

# ---- 10. what tests/fuzz/fuzz_cli.c found -------------------------------------------------
# A class named with 3,000 DEL bytes: --json writes each as \u007f (6 bytes
# for 1), which the buffer sized 3 bytes per byte of cJSON's text overran.
python3 - "$D" "$H" <<'EOF2'
import sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
D = sys.argv[1]
d = Dump()
obj = d.load_class("java.lang.Object")
c = d.load_class(b"\x7f" * 3000)
d.class_dump(obj)
d.class_dump(c, super_id=obj)
d.root(d.instance(c))
d.write("%s/del.hprof" % D)
EOF2
"$HPROFAN" "$D/del.hprof" --top 3 --json --quiet >"$D/del.json" 2>"$D/del.err"
expect_eq "a class named with 3,000 DEL bytes: --json escapes each, valid JSON" \
  "$?|$(jv "$D/del.json" '[r["class"] for r in d["classes"] if r["class"].startswith("\x7f")] == ["\x7f" * 3000]')" "0|true"
