#!/usr/bin/env bash
# --mapping on inputs built to be slow: each must take time linear in the
# mapping file and the dump, not in their product.  Dumps built byte by
# byte (tests/helper/mkhprof.py), mappings written here:
#  - OUTER prefixes: 60 classes a0$$$...$ of 64 KiB each, listed as a0..a59
#    (a class's original name goes through the longest listed prefix
#    before a '$': a name of n '$' was n lookups of up to n bytes each);
#  - a signature naming a 64 KiB class b$$$...$ shared by 2,000 frames
#    (it was mapped again for each frame);
#  - a group of 200,000 inlined lines of one range and 200,000 frames of it
#    (the group's end was looked for from each frame);
#  - a chain of 200,000 overloads with one-line ranges k:k and 200,000
#    frames at a line none holds (each frame walked the chain).
# Before, these took minutes to hours; each run here has 20 s, on the
# release binary (the sizes are for time; sanitizers add nothing there).
# The same shapes, small, under the binary under test (sanitized in make
# check) with every answer read off by hand: the renamed class names, the
# mapped signature, the group's last line (outer, line 20), the line range
# holding a frame's line (m, line 10 times it) and the chain's head when
# none holds it (line kept).
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip mapping-hostile "python3 is absent"; exit 0; }
H=$(cd "$(dirname "$0")/../helper" && pwd)
D=$TMPD
# the release binary beside the sanitized one (BUILD/hprofan, BUILD/san/hprofan)

# gen DIR SCALE: the dumps and mappings of the shapes above; SCALE 1 the
# sizes above, else smaller (60 -> 2 classes, 2,000 -> 3 frames, 200,000 ->
# 2,000 lines and frames)
gen() {
python3 - "$1" "$2" "$H" <<'PY'
import struct, sys
out, big = sys.argv[1], sys.argv[2] == "1"
sys.path.insert(0, sys.argv[3])
from mkhprof import *
nclass, nsig, n = (60, 2000, 200000) if big else (2, 3, 2000)
DOLLARS = 65536 - 8

def frames(d, method, sig, src, cid, line, count):
    """count STACK FRAMEs (no trace needs them: they are all mapped)"""
    serial = d.class_serials[cid]
    m, s, f = d.string(method), d.string(sig), d.string(src)
    recs = d.records
    for _ in range(count):
        recs.append(struct.pack(">BIIIIIIIi", 0x04, 0, 24, d.new_id(), m, s, f, serial, line))

def thread(d, obj, fids):
    th = d.load_class("java.lang.Thread"); d.class_dump(th, obj, fields=[("name", OBJECT)])
    d.stack_trace(1, 1, fids)
    d.thread_root(d.instance(th, [0]), 1, trace=1)

# OUTER prefixes
d = Dump()
obj = d.load_class("java.lang.Object"); d.class_dump(obj)
for i in range(nclass):
    c = d.load_class("a%d" % i + "$" * (DOLLARS - len("a%d" % i)))
    d.class_dump(c, obj)
    d.root(d.instance(c))
d.write(out + "/outer.hprof")
with open(out + "/outer.txt", "w") as f:
    f.writelines("com.x.A%d -> a%d:\n" % (i, i) for i in range(nclass))

# a shared signature
d = Dump()
obj = d.load_class("java.lang.Object"); d.class_dump(obj)
a = d.load_class("a"); d.class_dump(a, obj)
sig = "(Lb" + "$" * 65000 + ";)V"
frames(d, "m", sig, "S.java", a, 1, nsig)
thread(d, obj, [d.stack_frame("m", sig, "S.java", a, 1)])
d.root(d.instance(obj))
d.write(out + "/sig.hprof")
with open(out + "/sig.txt", "w") as f:
    f.write("com.x.B -> b:\n")

# a group (class a, method b at line 2) and a chain (class c, method b at
# line 3n, no range holds it); the thread shows one of each and a frame at
# line n/2 of the chain
d = Dump()
obj = d.load_class("java.lang.Object"); d.class_dump(obj)
a = d.load_class("a"); d.class_dump(a, obj)
c = d.load_class("c"); d.class_dump(c, obj)
frames(d, "b", "()V", "S.java", a, 2, n)
frames(d, "b", "()V", "S.java", c, 3 * n, n)
thread(d, obj, [d.stack_frame("b", "()V", "S.java", a, 2), d.stack_frame("b", "()V", "S.java", c, 3 * n),
                d.stack_frame("b", "()V", "S.java", c, n // 2)])
d.root(d.instance(obj))
d.write(out + "/frames.hprof")
with open(out + "/group.txt", "w") as f:
    f.write("com.x.G -> a:\n")
    f.write("    1:3:void inlined():10 -> b\n" * n)
    f.write("    1:3:void outer():20 -> b\n")
with open(out + "/chain.txt", "w") as f:
    f.write("com.x.C -> c:\n")
    f.writelines("    %d:%d:void m():%d -> b\n" % (k, k, 10 * k) for k in range(1, n + 1))
PY
}
mkdir -p "$D/big" "$D/small"
gen "$D/big" 1 && gen "$D/small" 0 || { fail mapping-hostile-build "cannot write the test dumps"; exit 0; }

# mapped HP DUMP MAPPING CMD ARGS...: runs CMD on DUMP with --mapping under
# a 20 s timeout into $D/out (stdout) and $D/err; returns the exit code
mapped() {
  local hp=$1 dump=$2 map=$3 cmd=$4; shift 4
  timeout 20 "$hp" "$cmd" "$dump" --mapping "$map" --quiet "$@" >"$D/out" 2>"$D/err"
}
# renamed: the mapping header's counts of top --json ("classes fields frames")
renamed() { jget "$D/out" '"%d %d %d" % (d["mapping"]["classes"], d["mapping"]["fields"], d["mapping"]["frames"])'; }
# the frames of threads' text, one line each
trace() { grep -E '^ +at ' "$D/out" | sed 's/^ *//' | paste -sd'|'; }
dollars() { printf '%*s' "$1" '' | tr ' ' '$'; }

# ---- the sizes that were slow, release binary -------------------------------
for t in "outer:60 0 0" "sig:0 0 2001"; do
  name=${t%%:*}
  mapped "$REL" "$D/big/$name.hprof" "$D/big/$name.txt" top --top 1 --json
  rc=$?
  if [ $rc = 124 ]; then fail "mapping-hostile: $name at size" "more than 20 s"
  else expect_eq "mapping-hostile: $name at size (within 20 s)" "$rc $(renamed)" "0 ${t#*:}"; fi
done
mapped "$REL" "$D/big/frames.hprof" "$D/big/group.txt" threads
rc=$?
if [ $rc = 124 ]; then fail "mapping-hostile: a group of 200,000 lines" "more than 20 s"
else expect_eq "mapping-hostile: a group of 200,000 lines (within 20 s)" "$rc|$(trace)" \
  "0|at com.x.G.outer(G.java:20)|at c.b(S.java:600000)|at c.b(S.java:100000)"; fi
mapped "$REL" "$D/big/frames.hprof" "$D/big/chain.txt" threads
rc=$?
if [ $rc = 124 ]; then fail "mapping-hostile: a chain of 200,000 ranges" "more than 20 s"
else expect_eq "mapping-hostile: a chain of 200,000 ranges (within 20 s)" "$rc|$(trace)" \
  "0|at a.b(S.java:2)|at com.x.C.m(C.java:600000)|at com.x.C.m(C.java:1000000)"; fi

# ---- the same shapes, small, under the binary under test -------------------
S=$D/small
mapped "$HPROFAN" "$S/outer.hprof" "$S/outer.txt" top --top 0 --json
expect_eq "mapping-hostile: OUTER prefixes (small)" \
  "$?|$(jget "$D/out" '" ".join(sorted("%s+%d" % (r["class"].rstrip("$"), len(r["class"]) - len(r["class"].rstrip("$"))) for r in d["classes"] if "$" in r["class"]))')" \
  "0|com.x.A0+$((65536 - 8 - 2)) com.x.A1+$((65536 - 8 - 2))"
mapped "$HPROFAN" "$S/sig.hprof" "$S/sig.txt" threads --json
expect_eq "mapping-hostile: a shared signature (small)" \
  "$?|$(jget "$D/out" 'd["threads"][0]["frames"][0]["signature"]' | cmp -s - <(printf '(Lcom/x/B%s;)V\n' "$(dollars 65000)") && echo mapped)" \
  "0|mapped"
mapped "$HPROFAN" "$S/frames.hprof" "$S/group.txt" threads
expect_eq "mapping-hostile: a group (small)" "$?|$(trace)" \
  "0|at com.x.G.outer(G.java:20)|at c.b(S.java:6000)|at c.b(S.java:1000)"
mapped "$HPROFAN" "$S/frames.hprof" "$S/chain.txt" threads
expect_eq "mapping-hostile: a chain (small)" "$?|$(trace)" \
  "0|at a.b(S.java:2)|at com.x.C.m(C.java:6000)|at com.x.C.m(C.java:10000)"
