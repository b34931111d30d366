#!/usr/bin/env bash
# sites answers from the model's summary of the objects' trace serials
# (hp_heap.obj_serials) when it can, and reads every record again when it
# cannot; either way the answer is the records'.  Dumps built byte by byte
# (tests/helper/mkhprof.py), size model raw (an Item is 4 bytes, an array
# its elements), every figure counted by hand; trace 10 has a frame, trace 1
# none (HotSpot's dummy), serials 0 and 99 name no trace:
#  - one.hprof: every object has serial 10: one site of all 4 objects,
#    29 B, dominating 17 (the Object[] holds the Item and the byte[5]; the
#    int[3] is unreachable);
#  - frameless.hprof: serials 1, 0, 99: no site, 4 objects (12 B) without;
#  - mixed.hprof: serial 1 but for one byte[6] of serial 10 (two serials,
#    one with frames): one site of 1 object (6 B, dominating 6), 4 without
#    (16 B);
#  - many.hprof: nine frameless serials (more than the summary keeps), then
#    a byte[7] of serial 10: one site (7 B), 10 objects (11 B) without;
# each read with and without the index (the summary is in it), mixed.hprof
# also gzipped, and report's sites section on mixed.hprof.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip sites-serials "python3 is absent"; exit 0; }
H=$(cd "$(dirname "$0")/../helper" && pwd)
D=$TMPD/serials
mkdir -p "$D"

python3 - "$D" "$H" <<'PY' || { fail sites-serials-build "cannot write the test dumps"; exit 0; }
import sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *

def base():
    d = Dump()
    obj = d.load_class("java.lang.Object"); d.class_dump(obj)
    item = d.load_class("com.acme.Item"); d.class_dump(item, obj, fields=[("next", OBJECT)])
    d.load_class("[B"); d.load_class("[I")
    f = d.stack_frame("<init>", "()V", "Item.java", item, 5)
    d.stack_trace(1, 1, [])
    d.stack_trace(10, 1, [f])
    return d, obj, item

d, obj, item = base()
i1 = d.instance(item, [0], trace=10)
b = d.prim_array(BYTE, bytes(5), trace=10)
d.root(d.obj_array(obj, [i1, b], trace=10))
d.prim_array(INT, bytes(12), trace=10)                 # unreachable
d.write(sys.argv[1] + "/one.hprof")

d, obj, item = base()
d.root(d.instance(item, [0], trace=1))
d.root(d.prim_array(BYTE, bytes(5), trace=0))
d.root(d.obj_array(obj, [], trace=99))
d.root(d.prim_array(BYTE, bytes(3), trace=1))
d.write(sys.argv[1] + "/frameless.hprof")

for gz in (False, True):
    d, obj, item = base()
    d.root(d.instance(item, [0], trace=1))
    d.root(d.prim_array(BYTE, bytes(5), trace=1))
    x = d.prim_array(BYTE, bytes(6), trace=10)
    d.root(d.obj_array(obj, [x], trace=1))
    d.root(d.prim_array(BYTE, bytes(3), trace=1))
    d.write(sys.argv[1] + "/mixed.hprof" + (".gz" if gz else ""), gz=gz)

d, obj, item = base()
for s in range(1, 10):                                  # serials 1..9: no frames
    d.root(d.prim_array(BYTE, bytes(1), trace=s))
d.root(d.prim_array(BYTE, bytes(7), trace=10))
d.root(d.prim_array(BYTE, bytes(2), trace=3))
d.write(sys.argv[1] + "/many.hprof")
PY

# summary FILE.json: sites, traced and untraced objects/bytes, each site
summary() {
  python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
if "sites" in d and isinstance(d["sites"], dict):
    d = d["sites"]
t = d["total"]
print("sites=%d traced=%d/%d untraced=%d/%d |%s" % (t["sites"], t["traced_objects"], t["traced_shallow"],
      t["untraced_objects"], t["untraced_shallow"],
      "".join(" %d:%d:%d:%d" % (s["trace_serial"], s["objects"], s["shallow"], s["retained"]) for s in d["sites"])))' "$1"
}

check() {   # NAME FILE WANT
  local name=$1 f=$2 want=$3 how
  for how in --no-index build read; do
    local ix=()
    [ "$how" = --no-index ] && ix=(--no-index)
    if ! run_hp "$D/out.json" "$D/err" sites "$f" --size-model=raw --quiet --flat --json "${ix[@]}"; then
      fail "sites-serials $name ($how)" "exit $?: $(head -c 300 "$D/err")"
      continue
    fi
    expect_eq "sites-serials $name ($how)" "$(summary "$D/out.json")" "$want"
  done
}

check "one serial with frames: every object one site" "$D/one.hprof" "sites=1 traced=4/29 untraced=0/0 | 10:4:29:17"
check "serials without frames: no site" "$D/frameless.hprof" "sites=0 traced=0/0 untraced=4/12 |"
check "the dummy serial and one with frames" "$D/mixed.hprof" "sites=1 traced=1/6 untraced=4/16 | 10:1:6:6"
check "more serials than the summary keeps" "$D/many.hprof" "sites=1 traced=1/7 untraced=10/11 | 10:1:7:7"
check "gzip: the dummy serial and one with frames" "$D/mixed.hprof.gz" "sites=1 traced=1/6 untraced=4/16 | 10:1:6:6"

# report's sites section: the same answer
if run_hp "$D/r.html" "$D/err" report "$D/mixed.hprof" --size-model=raw --quiet -o "$D/r.html"; then
  python3 - "$D/r.html" >"$D/r.json" <<'PY'
import json, re, sys
t = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r'<script type="application/json" id="hprofan-data">(.*?)</script>', t, re.S)
print(json.dumps(json.loads(m.group(1))["dumps"][-1]))
PY
  expect_eq "sites-serials report: the sites section" "$(summary "$D/r.json")" "sites=1 traced=1/6 untraced=4/16 | 10:1:6:6"
else
  fail "sites-serials report: the sites section" "exit $?: $(head -c 300 "$D/err")"
fi
