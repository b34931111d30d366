#!/usr/bin/env bash
# dominators --group=class over thousands of siblings (grouped by a
# counting sort from 4096 members on): a dump built byte by byte
# (tests/helper/mkhprof.py), size model raw, every figure counted by hand.
# A rooted Object[6000] (24000 B) holds 3000 A (4 B each, one of them also
# a byte[100]), 2000 B (8 B each) and 1000 byte[3]: below it B 2000 objects
# 16000 B, A 3000 objects 12000 B retaining 12100 (the byte[100] below
# them), byte[] 1000 objects 3000 B; the array retains 55100 B.  Sorted by
# count: A, B, byte[]; by name: byte[], com.acme.A, com.acme.B.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip dominators-groups "python3 is absent"; exit 0; }
H=$(cd "$(dirname "$0")/../helper" && pwd)
D=$TMPD/groups
mkdir -p "$D"

python3 - "$D" "$H" <<'PY' || { fail dominators-groups-build "cannot write the test dump"; exit 0; }
import sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
d = Dump()
obj = d.load_class("java.lang.Object"); d.class_dump(obj)
a = d.load_class("com.acme.A"); d.class_dump(a, obj, fields=[("ref", OBJECT)])
b = d.load_class("com.acme.B"); d.class_dump(b, obj, fields=[("x", INT), ("y", INT)])
d.load_class("[B"); arr = d.load_class("[Ljava.lang.Object;")
big = d.prim_array(BYTE, bytes(100))
els = []
for i in range(6000):        # interleaved, so no class comes in one run
    if i % 6 < 3:
        els.append(d.instance(a, [big if i == 1236 else 0]))
    elif i % 6 < 5:
        els.append(d.instance(b, [i, i]))
    else:
        els.append(d.prim_array(BYTE, bytes(3)))
d.root(d.obj_array(arr, els))
d.write(sys.argv[1] + "/g.hprof")
PY

# tree FILE.json: each node as name:count:shallow:retained, children in ()
tree() {
  python3 -c '
import json, sys
def node(e):
    name = e.get("group") or e.get("class")
    s = "%s:%d:%d:%d" % (name, e.get("count", 1), e["shallow"], e["retained"])
    if e.get("children"):
        s += "(" + " ".join(node(c) for c in e["children"]) + ")"
    return s
print(" ".join(node(e) for e in json.load(open(sys.argv[1]))["dominators"]))' "$1"
}

check() {   # NAME WANT ARGS...
  local name=$1 want=$2
  shift 2
  if run_hp "$D/out.json" "$D/err" dominators "$D/g.hprof" --group=class --size-model=raw --quiet --json --no-index "$@"; then
    expect_eq "dominators-groups $name" "$(tree "$D/out.json")" "$want"
  else
    fail "dominators-groups $name" "exit $?: $(head -c 300 "$D/err")"
  fi
}

check "6000 siblings by retained" \
  "java.lang.Object[]:1:24000:55100(com.acme.B:2000:16000:16000 com.acme.A:3000:12000:12100(byte[]:1:100:100) byte[]:1000:3000:3000)" \
  --depth 4
check "6000 siblings by count" \
  "java.lang.Object[]:1:24000:55100(com.acme.A:3000:12000:12100 com.acme.B:2000:16000:16000 byte[]:1000:3000:3000)" \
  --depth 2 --sort=count
check "6000 siblings by name, top 2" \
  "java.lang.Object[]:1:24000:55100(byte[]:1000:3000:3000 com.acme.A:3000:12000:12100)" \
  --depth 2 --sort=name --top 2
