#!/usr/bin/env bash
# hprofan sites: the JDK hprof agent's ALLOC SITES, HEAP SUMMARY and CPU
# SAMPLES records, as tables and in JSON, figure for figure:
#  - corpus (hprof-32.bin, minimal.bin: ALLOC SITES; the MAT hprof agent
#    dumps: none): the records decoded here with struct, independently of
#    hprofan, and every figure of every record and entry compared with
#    sites --json --top 0; minimal.bin holds no heap dump, and sites shows
#    its records all the same (saying there are no objects);
#  - a dump built byte by byte with an ALLOC SITES record (flags 0x3, cutoff
#    0.25; a class known by its serial, a char[] by its basic type, an
#    unknown serial), two HEAP SUMMARY records and a CPU SAMPLES record of
#    10 samples (7 and 3: 70.00% and 30.00%, the top frame of each trace):
#    the text tables as worked out, --top cutting the rows and saying so;
#  - a file with no heap dump and none of these records is still an error.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip sites-agent "python3 is absent"; exit 0; }
H=$(cd "$(dirname "$0")/../helper" && pwd)
D=$TMPD

# decode FILE: the three kinds of records as JSON, in hprofan's member names
cat >"$D/decode.py" <<'PY'
import json, struct, sys
b = open(sys.argv[1], "rb").read()
pos = b.index(b"\0") + 1 + 4 + 8
out = {"agent_alloc_sites": [], "agent_heap_summaries": [], "agent_cpu_samples": []}
while pos + 9 <= len(b):
    tag, _, ln = struct.unpack(">BII", b[pos:pos + 9])
    body = b[pos + 9:pos + 9 + ln]
    if tag == 0x06:
        fl, cut, lb, li, ba, ia, n = struct.unpack(">HIIIQQI", body[:34])
        sites = []
        for i in range(n):
            a, cs, ts, slb, sli, sba, sia = struct.unpack(">BIIIIII", body[34 + 25 * i:59 + 25 * i])
            sites.append({"is_array": a, "class_serial": cs, "trace_serial": ts, "live_bytes": slb,
                          "live_instances": sli, "bytes_allocated": sba, "instances_allocated": sia})
        out["agent_alloc_sites"].append({"flags": fl, "cutoff_bits": cut, "live_bytes": lb, "live_instances": li,
                                         "bytes_allocated": ba, "instances_allocated": ia, "sites_declared": n,
                                         "sites": sites})
    elif tag == 0x07:
        lb, li, ba, ia = struct.unpack(">IIQQ", body[:24])
        out["agent_heap_summaries"].append({"live_bytes": lb, "live_instances": li, "bytes_allocated": ba,
                                            "instances_allocated": ia})
    elif tag == 0x0D:
        total, n = struct.unpack(">II", body[:8])
        out["agent_cpu_samples"].append({"total": total, "traces_declared": n, "traces": [
            dict(zip(("samples", "trace_serial"), struct.unpack(">II", body[8 + 8 * i:16 + 8 * i]))) for i in range(n)]})
    pos += 9 + ln
json.dump(out, open(sys.argv[2], "w"))
PY
# compare NAME DECODED HPROFAN-JSON: every figure equal (hprofan's extra
# members, the class name and the cutoff as a number, are left aside)
compare() {
  python3 - "$2" "$3" "$1" <<'PY'
import json, sys
want, got, name = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
def strip(v):
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items() if k not in ("class", "cutoff")}
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v
n = 0
for key in ("agent_alloc_sites", "agent_heap_summaries", "agent_cpu_samples"):
    g, w = strip(got.get(key)), want[key]
    n += sum(len(r.get("sites", r.get("traces", []))) + 1 for r in w)
    if g != w:
        print("FAIL sites-agent %s: %s differs: got %s..., want %s..." % (name, key, json.dumps(g)[:300], json.dumps(w)[:300]))
        break
else:
    print("ok sites-agent %s: every ALLOC SITES / HEAP SUMMARY / CPU SAMPLES figure as the records (%d records and entries)" % (name, n))
PY
}

if have_corpus sites-agent-corpus; then
  for f in agourlay__hprof-slurp/hprof-32.bin frohoff__jdk8u-jdk/minimal.bin eclipse-mat__mat/oracle_jdk7_21_hprofagent.hprof \
           eclipse-mat__mat/sun_jdk6_31_hprofagent_compressedOops.hprof; do
    P=$CORPUS/$f
    [ -f "$P" ] || continue
    python3 "$D/decode.py" "$P" "$D/want.json"
    run_hp "$D/got.json" "$D/err" sites "$P" --json --top 0 --quiet
    rc=$?
    if [ $rc != 0 ]; then fail "sites-agent $f" "exit $rc: $(head -c 300 "$D/err")"; continue; fi
    compare "$f" "$D/want.json" "$D/got.json"
  done
  # hprof-32's ALLOC SITES: its 464 sites (those above the cutoff) hold at
  # most the record's live bytes and instances
  run_hp "$D/got.json" "$D/err" sites "$CORPUS/agourlay__hprof-slurp/hprof-32.bin" --json --top 0 --quiet
  expect_eq "sites-agent hprof-32: the sites' live bytes and instances within the record's" \
    "$(jget "$D/got.json" '[(sum(s["live_bytes"] for s in r["sites"]) <= r["live_bytes"], sum(s["live_instances"] for s in r["sites"]) <= r["live_instances"], len(r["sites"])) for r in d["agent_alloc_sites"]]')" \
    "[(True, True, 464)]"
  # minimal.bin: no heap dump, the records shown
  run_hp "$D/out" "$D/err" sites "$CORPUS/frohoff__jdk8u-jdk/minimal.bin" --quiet --top 2
  rc=$?
  expect_eq "sites-agent minimal.bin (no heap dump): says so, shows ALLOC SITES" \
    "$rc|$(head -n 1 "$D/out")|$(sed -n 4p "$D/out")|$(sed -n 6,8p "$D/out" | tr -s ' ' | paste -sd'|')" \
    "0|the file holds no heap dump, only the hprof agent's records: no objects to group by allocation site|live 158,000 bytes in 744 instances; allocated 158,000 bytes in 744 instances; 531 sites| 1 2,224 19 2,224 19 300034 char[]| 2 1,248 11 1,248 11 300042 char[]|... 529 more sites"
  run_hp "$D/got.json" "$D/err" sites "$CORPUS/frohoff__jdk8u-jdk/minimal.bin" --json --quiet
  expect_eq "sites-agent minimal.bin --json: heap_dump false, no sites" \
    "$(jget "$D/got.json" '(d["heap_dump"], d["total"]["sites"], len(d["agent_alloc_sites"][0]["sites"]))')" "(False, 0, 20)"
fi

python3 - "$D" "$H" <<'PY' || { fail sites-agent-build "cannot write the test dump"; exit 0; }
import struct, sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
d = Dump()
obj = d.load_class("java.lang.Object"); d.class_dump(obj)
foo = d.load_class("com.acme.Foo"); d.class_dump(foo, obj, fields=[("x", INT)])
fa = d.stack_frame("make", "()V", "Foo.java", foo, 12)
fb = d.stack_frame("spin", "()V", "Foo.java", foo, -3)
d.stack_trace(7, 1, [fa]); d.stack_trace(8, 1, [fb, fa])
d.root(d.instance(foo, [1], trace=7))
serial_foo = d.class_serials[foo]
sites = [(0, serial_foo, 7, 4000, 100, 8000, 200), (5, 999, 8, 1200, 3, 1500, 4), (0, 4242, 7, 16, 1, 16, 1)]
cut = struct.unpack(">I", struct.pack(">f", 0.25))[0]
body = struct.pack(">HIIIQQI", 3, cut, 5216, 104, 9516, 205, len(sites)) + b"".join(struct.pack(">BIIIIII", *s) for s in sites)
d.records.append(struct.pack(">BII", 0x06, 0, len(body)) + body)
for hs in ((5216, 104, 9516, 205), (6000, 110, 2**33 + 5, 2**32 + 1)):
    d.records.append(struct.pack(">BII", 0x07, 0, 24) + struct.pack(">IIQQ", *hs))
body = struct.pack(">II", 10, 2) + struct.pack(">IIII", 7, 8, 3, 7)
d.records.append(struct.pack(">BII", 0x0D, 0, len(body)) + body)
d.write(sys.argv[1] + "/agent.hprof")
PY
python3 "$D/decode.py" "$D/agent.hprof" "$D/want.json"
run_hp "$D/got.json" "$D/err" sites "$D/agent.hprof" --json --top 0 --quiet
compare "hand-built" "$D/want.json" "$D/got.json"
expect_eq "sites-agent hand-built --json: the class names, the cutoff" \
  "$(jget "$D/got.json" '([s.get("class") for s in d["agent_alloc_sites"][0]["sites"]], d["agent_alloc_sites"][0]["cutoff"])')" \
  "(['com.acme.Foo', 'char[]', None], 0.25)"
cat >"$D/want" <<'W'

ALLOC SITES record 1 of 1 (the hprof agent's): flags 0x0003 (incremental, sorted by allocation), cutoff 0.25
live 5,216 bytes in 104 instances; allocated 9,516 bytes in 205 instances; 3 sites
  rank   live bytes  live objs  alloc bytes alloc objs      trace  class
     1        4,000        100        8,000        200          7  com.acme.Foo
     2        1,200          3        1,500          4          8  char[]
... 1 more sites

HEAP SUMMARY record 1 of 2 (the hprof agent's): live 5,216 bytes in 104 instances; allocated 9,516 bytes in 205 instances

HEAP SUMMARY record 2 of 2 (the hprof agent's): live 6,000 bytes in 110 instances; allocated 8,589,934,597 bytes in 4,294,967,297 instances

CPU SAMPLES record 1 of 1 (the hprof agent's): 10 samples over 2 traces
  rank    samples   share      trace  top frame
     1          7  70.00%          8  at com.acme.Foo.spin(Native Method)
     2          3  30.00%          7  at com.acme.Foo.make(Foo.java:12)
W
run_hp "$D/out" "$D/err" sites "$D/agent.hprof" --quiet --top 2 --flat
rc=$?
sed -n '/^ALLOC SITES/,$p' "$D/out" >"$D/tables"
sed -i '1i\\' "$D/tables"
if [ $rc = 0 ] && cmp -s "$D/tables" "$D/want"; then ok "sites-agent hand-built: the tables as worked out"
else fail "sites-agent hand-built: the tables as worked out" "exit $rc: $(diff "$D/want" "$D/tables" | head -20) $(head -c 300 "$D/err")"; fi
run_hp "$D/out" "$D/err" sites "$D/agent.hprof" --quiet --top 0
expect_eq "sites-agent hand-built --top 0: the unknown class serial said" \
  "$(grep -c '         7  class serial 4242$' "$D/out")" 1

# no heap dump and none of the agent's records: an error still
python3 -c 'import struct, sys; open(sys.argv[1], "wb").write(b"JAVA PROFILE 1.0.2\0" + struct.pack(">IQ", 4, 0) + struct.pack(">BIII", 1, 0, 8, 1) + b"abcd")' "$D/nodump.hprof"
run_hp "$D/out" "$D/err" sites "$D/nodump.hprof" --quiet
rc=$?
expect_eq "sites-agent: no heap dump, no agent records: an error" "$rc $(grep -c 'no heap dump' "$D/err")" "3 1"
