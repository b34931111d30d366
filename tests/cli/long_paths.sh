#!/usr/bin/env bash
# Long paths: a linked list of a million nodes gives a path, a leak trace, a
# dominator chain and a holder path of a million steps.  path, object, leaks,
# waste and report show such a path by its ends, the first 10 objects and the
# last 10, with the count of those left out between (in JSON the steps kept,
# `elided` and `elided_at`); --full-path gives every step.  Output and peak
# memory stay small (before: path --json 168 MB in 1.26 GB, object --json
# 248 MB in 2.0 GB, leaks --json 452 MB in 4.0 GB, report a 124 MB page in
# 1.67 GB).
#
# The dump (tests/helper/mkhprof.py, built here): class Node {Object next;
# int n}, class Tail {boolean dead; Object[] strings}.  N = 1,000,000 Nodes
# with ids 0x10000000 + 0x10 * k (k = 0 .. N-1), Node k's next the Node k+1,
# Node N-1's the Tail (id 0x10000000 + 0x10 * N = 0x10f42400); Node 0 is the
# only GC root (JNI global).  The Tail holds an Object[2] of two Strings
# "dup" (a waste row).  So, by hand:
#  - path to the Tail: N + 1 objects, N references; shown: Nodes 0..9, then
#    Nodes N-9 .. N-1 and the Tail; 999,981 left out, from index 10;
#  - its dominators: Node N-1 (nearest) .. Node 0, N of them; shown: Nodes
#    N-1 .. N-10, then 9 .. 0; 999,980 left out, from index 10;
#  - with --zombie Tail:dead=true the Tail is a zombie whose trace is that
#    path; no node is NOT LEAKING, so every reference is to cut (the 999,981
#    to the steps left out too), and its signature text is "Node.next >
#    Node.next > ..." cut to 8191 bytes, its signature that text's FNV-1a;
#  - waste's duplicate-String row: held by Node 0 .. the Tail, the Object[],
#    a String: N + 3 objects, 999,983 left out of its JSON; its line shows
#    the first reference and the last 4: "Node.next -> (999997 more) ->
#    Node.next -> Node.next -> Tail.strings -> Object[][0]".
# The sizes and peak memory are measured on the release binary (beside the
# sanitized one, or HPROFAN itself); the sanitized binary reads the same
# dump's path and a list of 1,000 for --full-path, which prints every step.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip long-paths "python3 is absent"; exit 0; }
H=$(cd "$(dirname "$0")/../helper" && pwd)
D=$TMPD

# mk FILE N: the list of N Nodes above
mk() {
  python3 - "$1" "$2" "$H" <<'PY'
import sys
sys.path.insert(0, sys.argv[3])
from mkhprof import *
path, N = sys.argv[1], int(sys.argv[2])
d = Dump()
obj = d.load_class("java.lang.Object"); d.class_dump(obj)
string = d.load_class("java.lang.String")
d.class_dump(string, obj, [("value", OBJECT), ("coder", BYTE), ("hash", INT)])
objarr = d.load_class("[Ljava/lang/Object;"); d.class_dump(objarr, obj)
node = d.load_class("Node"); d.class_dump(node, obj, [("next", OBJECT), ("n", INT)])
tail = d.load_class("Tail"); d.class_dump(tail, obj, [("dead", BOOLEAN), ("strings", OBJECT)])
BASE = 0x10000000
d.next_id = BASE - 16                 # Node k: BASE + 16 k
for k in range(N):
    assert d.instance(node, [BASE + 16 * (k + 1), k]) == BASE + 16 * k
t = BASE + 16 * N
arr = t + 80                          # made after the two Strings and their byte[]s
assert d.instance(tail, [1, arr]) == t
strings = [d.instance(string, [d.prim_array(BYTE, b"dup"), 0, 0]) for _ in range(2)]
assert d.obj_array(objarr, strings) == arr
d.root(BASE)
d.write(path)
PY
}
N=1000000
mk "$D/list.hprof" $N || { fail long-paths-build "cannot write the list of $N"; exit 0; }
mk "$D/small.hprof" 1000 || { fail long-paths-build "cannot write the list of 1,000"; exit 0; }
TAIL=0x10f42400

# run NAME BIN ARGS...: BIN ARGS into $D/NAME.out and .err, its exit status
# in .rc and its peak resident size (KB, of the process: getrusage) in .kb
run() {
  local n=$1; shift
  python3 -c 'import resource, subprocess, sys
with open(sys.argv[2], "wb") as o, open(sys.argv[3], "wb") as e:
    rc = subprocess.call(sys.argv[4:], stdout=o, stderr=e)
print(rc, file=open(sys.argv[1] + ".rc", "w"))
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=open(sys.argv[1] + ".kb", "w"))
' "$D/$n" "$D/$n.out" "$D/$n.err" timeout 120 "$@" --quiet
}
# bounded NAME LINES BYTES KB: the run's exit status 0, its output at most
# LINES lines and BYTES bytes, its peak memory at most KB (0: not checked)
bounded() {
  local n=$1 lines bytes kb rc
  rc=$(cat "$D/$n.rc"); lines=$(wc -l <"$D/$n.out"); bytes=$(wc -c <"$D/$n.out"); kb=$(cat "$D/$n.kb")
  if [ "$rc" != 0 ]; then fail "$n" "exit $rc: $(head -c 300 "$D/$n.err")"; return; fi
  if [ "$lines" -le "$2" ] && [ "$bytes" -le "$3" ] && { [ "$4" = 0 ] || [ "$kb" -le "$4" ]; }; then
    ok "$n: $lines lines, $bytes bytes, peak ${kb} KB"
  else
    fail "$n" "$lines lines (at most $2), $bytes bytes (at most $3), peak ${kb} KB (at most $4)"
  fi
}
# pycheck NAME: the Python on stdin with d, the JSON of $D/NAME.out, and
# check(what, got, want)
pycheck() {
  python3 - "$D/$1.out" "$1" "$N" <<<"import json, sys
try:
    d = json.load(open(sys.argv[1]))
except ValueError as e:
    print('FAIL %s: not JSON: %s' % (sys.argv[2], e)); sys.exit(0)
N = int(sys.argv[3])
def short(v):
    r = repr(v)
    return r if len(r) <= 300 else r[:300] + '...'
def check(what, got, want):
    print(('ok %s: %s' % (sys.argv[2], what)) if got == want else ('FAIL %s: %s: got %s, want %s' % (sys.argv[2], what, short(got), short(want))))
def node(k): return '0x%x' % (0x10000000 + 16 * k)
TAIL = '0x%x' % (0x10000000 + 16 * N)
$(cat)"
}
MB=1024

# ---- path ------------------------------------------------------------------------
run path "$REL" path "$D/list.hprof" $TAIL
bounded path 30 3000 $((256 * MB))
expect_eq "path: the first and the last lines, and what is left out" \
  "$(sed -n '3p;12,14p;23p' "$D/path.out")" \
  "  Node @0x10000000  [GC root: JNI global]
  .next -> Node @0x10000090
  ... 999,981 more (--full-path shows every step)
  .next -> Node @0x10f42370
  .next -> Tail @0x10f42400"
run path.json "$REL" path "$D/list.hprof" $TAIL --json
bounded path.json 400 10000 $((256 * MB))
pycheck path.json <<'PY'
p = d["paths"][0]
check("one path, of N references", (len(d["paths"]), p["length"]), (1, N))
check("999,981 objects left out, after the first 10", (p.get("elided"), p.get("elided_at")), (N + 1 - 20, 10))
check("the steps kept: Nodes 0-9, Nodes N-9 .. N-1, the Tail",
      [s["id"] for s in p["steps"]], [node(k) for k in range(10)] + [node(k) for k in range(N - 9, N)] + [TAIL])
check("the first is the GC root", p["steps"][0].get("gc_root"), ["jni_global"])
check("each after it names its reference (past the gap, from Node N-10)",
      [s["via"]["kind"] + "." + s["via"]["name"] for s in p["steps"][1:]], ["field.next"] * 19)
PY
# the sanitized binary on the same path
run path.san "$HPROFAN" path "$D/list.hprof" $TAIL --json --top 1
if cmp -s "$D/path.san.out" "$D/path.json.out"; then ok "path --json: the sanitized binary's is the same"
else fail "path --json (sanitized)" "exit $(cat "$D/path.san.rc"), $(head -c 300 "$D/path.san.err")"; fi
# --full-path: every step, on the million (text) and on the list of 1,000
run path.full "$REL" path "$D/list.hprof" $TAIL --full-path
expect_eq "path --full-path: every step, N + 1 objects" \
  "$(cat "$D/path.full.rc") $(grep -c -- '-> Node @' "$D/path.full.out") $(sed -n '$p' "$D/path.full.out")" \
  "0 $((N - 1)) $(printf '  .next -> Tail @%s' $TAIL)"
rm -f "$D/path.full.out"

# ---- object ----------------------------------------------------------------------
run object "$REL" object "$D/list.hprof" $TAIL
bounded object 80 4000 $((256 * MB))
expect_eq "object: the dominators by their ends" \
  "$(sed -n '/^dominators/,/^shortest/p' "$D/object.out" | sed -n '2p;11,13p;22p' | cut -c15-)" \
  "Node @0x10f423f0
Node @0x10f42360
... 999,980 more (--full-path shows every step)
Node @0x10000090
Node @0x10000000  [GC root: JNI global]"
run object.json "$REL" object "$D/list.hprof" $TAIL --json
bounded object.json 800 20000 $((256 * MB))
pycheck object.json <<'PY'
check("dominators: Node N-1 .. N-10, then Node 9 .. 0", [x["id"] for x in d["dominators"]],
      [node(k) for k in range(N - 1, N - 11, -1)] + [node(k) for k in range(9, -1, -1)])
check("dominators: N - 20 left out, after the first 10", (d.get("dominators_elided"), d.get("dominators_elided_at")), (N - 20, 10))
p = d["path"]
check("path: N references, 999,981 objects left out after the first 10",
      (p["reachable"], p["length"], p.get("elided"), p.get("elided_at"), len(p["steps"])), (True, N, N + 1 - 20, 10, 20))
check("path: its last steps", [s["id"] for s in p["steps"][10:]], [node(k) for k in range(N - 9, N)] + [TAIL])
PY

# ---- leaks -----------------------------------------------------------------------
run leaks "$REL" leaks "$D/list.hprof" --zombie Tail:dead=true
bounded leaks 200 12000 $((256 * MB))
expect_eq "leaks: the zombie's trace says what it leaves out, and how many of those references to cut" \
  "$(grep -c '999,981 more (--full-path shows every step); 999,981 of their references to cut' "$D/leaks.out")" 1
run leaks.json "$REL" leaks "$D/list.hprof" --zombie Tail:dead=true --json
bounded leaks.json 1500 40000 $((256 * MB))
pycheck leaks.json <<'PY'
z = d["zombies"]
check("one zombie, the Tail", [x["id"] for x in z], [TAIL])
t = z[0]["trace"]
check("its trace: Nodes 0-9, Nodes N-9 .. N-1, the Tail", [s["id"] for s in t],
      [node(k) for k in range(10)] + [node(k) for k in range(N - 9, N)] + [TAIL])
check("999,981 steps left out after the first 10, every reference to them to cut",
      (z[0].get("trace_elided"), z[0].get("trace_elided_at"), z[0].get("trace_elided_cut")), (N + 1 - 20, 10, N + 1 - 20))
check("statuses: unknown, the Tail leaking", [s["status"] for s in t], ["unknown"] * 19 + ["leaking"])
check("every reference kept is to cut", [s["cut"] for s in t[1:]], [True] * 19)
sig = ("Node.next" + " > Node.next" * 1000)[:8191]
check("the signature text: of the whole trace, cut to 8191 bytes", d["leaks"][0]["signature_text"], sig)
h = 0xcbf29ce484222325
for c in sig.encode():
    h = ((h ^ c) * 0x100000001b3) & 0xffffffffffffffff
check("the signature: its FNV-1a", (z[0]["signature"], d["leaks"][0]["signature"]), ("%016x" % h,) * 2)
s = d["suspects"][0]
check("the suspect: Node 0, its trace cut to 20 steps ending at the accumulation point",
      (s["object"]["id"], len(s["trace"]), s["trace"][0]["id"], s["trace"][-1]["id"], s.get("trace_elided", 0) > N - 20),
      (node(0), 20, node(0), s["accumulation_point"]["id"], True))
PY

# ---- waste -----------------------------------------------------------------------
run waste "$REL" waste "$D/list.hprof"
bounded waste 40 4000 $((256 * MB))
expect_eq "waste: the holder line, the first reference and the last 4" \
  "$(grep -A1 '"dup"' "$D/waste.out" | sed -n 2p)" \
  "            held by [JNI global] Node.next -> (999997 more) -> Node.next -> Node.next -> Tail.strings -> Object[][0]"
run waste.json "$REL" waste "$D/list.hprof" --json
bounded waste.json 600 20000 $((256 * MB))
pycheck waste.json <<'PY'
r = d["sections"][0]["rows"][0]
check("held_by: Nodes 0-9, Nodes N-7 .. N-1, the Tail, the Object[], the String",
      [s["id"] for s in r["held_by"]][:10] + [s["id"] for s in r["held_by"]][10:18] + [r["held_by"][-1]["id"]],
      [node(k) for k in range(10)] + [node(k) for k in range(N - 7, N)] + [TAIL, r["sample"]])
check("held_by: 999,983 left out after the first 10", (r.get("held_by_elided"), r.get("held_by_elided_at")), (N + 3 - 20, 10))
PY

# ---- report ----------------------------------------------------------------------
run report "$REL" report "$D/list.hprof" -o "$D/report.html"
if [ "$(cat "$D/report.rc")" = 0 ]; then cp "$D/report.html" "$D/report.page"; else : >"$D/report.page"; fi
bytes=$(wc -c <"$D/report.page"); kb=$(cat "$D/report.kb")
if [ "$(cat "$D/report.rc")" = 0 ] && [ "$bytes" -le 3000000 ] && [ "$kb" -le $((256 * MB)) ]; then
  ok "report: a page of $bytes bytes, peak ${kb} KB"
else fail report "exit $(cat "$D/report.rc"), a page of $bytes bytes (at most 3,000,000), peak ${kb} KB"; fi
python3 - "$D/report.page" >"$D/report.leaks.out" <<'PY'
import json, re, sys
m = re.search(r'<script type="application/json" id="hprofan-data"[^>]*>(.*?)</script>', open(sys.argv[1], encoding="utf-8").read(), re.S)
print(json.dumps(json.loads(m.group(1))["dumps"][-1]["leaks"]) if m else "{}")
PY
pycheck report.leaks <<'PY'
s = d.get("suspects", [{}])[0]
check("the page's leak trace is cut as leaks --json cuts it", (len(s.get("trace", [])), s.get("trace_elided_at")), (20, 10))
PY
# the page draws the gap where it is: after the trace's 10th step, with its count
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then skip "report: the page draws the gap" "chromium not installed"
else
  want=$(python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))["suspects"][0]
print("\u2026 {:,} more objects \u2026".format(s["trace_elided"]))' "$D/report.leaks.out" 2>/dev/null)
  timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync --proxy-server=127.0.0.1:9 \
    --user-data-dir="$D/chromium-profile" --virtual-time-budget=5000 --dump-dom "file://$D/report.html" \
    2>/dev/null >"$D/report.dom"
  got=$(python3 -c 'import html, re, sys
t = open(sys.argv[1], encoding="utf-8").read()
ol = re.search(r"<ol class=\"trace mono\">(.*?)</ol>", t, re.S)
items = re.findall(r"<li[^>]*>(.*?)</li>", ol.group(1), re.S) if ol else []
print(html.unescape(items[10]) if len(items) == 21 else "%d items" % len(items))' "$D/report.dom" 2>&1)
  expect_eq "report: the page draws the gap after the 10th step" "$got" "$want"
fi

# ---- the cut documents against the schema (docs/hprofan.schema.json) ----------------
SCHEMA=$(cd "$(dirname "$0")/../.." && pwd)/docs/hprofan.schema.json
if python3 -c 'import jsonschema' 2>/dev/null; then
  for n in path.json object.json leaks.json waste.json; do
    # (a document of a million steps: too large, and said so above)
    [ "$(wc -c <"$D/$n.out")" -le 1000000 ] || { fail "$n: the schema takes it" "not validated: over 1 MB"; continue; }
    if out=$(python3 -c 'import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))' "$D/$n.out" "$SCHEMA" 2>&1); then
      ok "$n: the schema takes it"
    else fail "$n: the schema takes it" "$(printf '%s' "$out" | tail -n 3 | head -c 300)"; fi
  done
else
  skip "long-paths schema" "python3's jsonschema is absent (tests/cli/json_schema.sh checks the schema)"
fi

# ---- --full-path on a list of 1,000 (sanitized binary) --------------------------
M=1000
SMALLTAIL=$(printf '0x%x' $((0x10000000 + 16 * M)))
for c in path object; do
  run small.$c "$HPROFAN" $c "$D/small.hprof" "$SMALLTAIL" --json
  run small.$c.full "$HPROFAN" $c "$D/small.hprof" "$SMALLTAIL" --json --full-path
done
run small.leaks "$HPROFAN" leaks "$D/small.hprof" --zombie Tail:dead=true --json --full-path
run small.waste "$HPROFAN" waste "$D/small.hprof" --full-path
run small.waste.json "$HPROFAN" waste "$D/small.hprof" --json --full-path
N=$M
pycheck small.path <<'PY'
p = d["paths"][0]
check("a path of 1,001 objects by its ends", (p["length"], len(p["steps"]), p.get("elided"), p.get("elided_at")), (N, 20, N + 1 - 20, 10))
PY
pycheck small.path.full <<'PY'
p = d["paths"][0]
check("--full-path: every step, none left out", ([s["id"] for s in p["steps"]], "elided" in p, "elided_at" in p),
      ([node(k) for k in range(N)] + [TAIL], False, False))
PY
pycheck small.object.full <<'PY'
check("--full-path: every dominator", ([x["id"] for x in d["dominators"]], "dominators_elided" in d),
      ([node(k) for k in range(N - 1, -1, -1)], False))
check("--full-path: the whole path", ([s["id"] for s in d["path"]["steps"]], "elided" in d["path"]), ([node(k) for k in range(N)] + [TAIL], False))
PY
pycheck small.leaks <<'PY'
z = d["zombies"][0]
check("--full-path: the whole trace, every reference to cut", ([s["id"] for s in z["trace"]], [s["cut"] for s in z["trace"][1:]], "trace_elided" in z),
      ([node(k) for k in range(N)] + [TAIL], [True] * N, False))
PY
pycheck small.waste.json <<'PY'
r = d["sections"][0]["rows"][0]
check("--full-path: held_by whole", ([s["id"] for s in r["held_by"]][:N + 1], len(r["held_by"]), "held_by_elided" in r),
      ([node(k) for k in range(N)] + [TAIL], N + 3, False))
PY
# a NOT LEAKING node the gap holds (a class object, never leaking, 16 links
# down a trace of 43): the steps kept have the statuses, reasons and cuts of
# the whole trace (all above it not leaking, the references below it to cut,
# 16 of them left out), and the same signature
python3 - "$D/mid.hprof" "$H" <<'PY' || fail long-paths-build "cannot write the trace with a class in it"
import sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
d = Dump()
obj = d.load_class("java.lang.Object"); d.class_dump(obj)
node = d.load_class("Node"); d.class_dump(node, obj, [("next", OBJECT)])
hold = d.load_class("Holder")
tail = d.load_class("Tail"); d.class_dump(tail, obj, [("dead", BOOLEAN)])
nxt = d.instance(tail, [1])          # from the end: the Tail, 25 Nodes, class Holder (static s), 16 Nodes
for i in range(25):
    nxt = d.instance(node, [nxt])
d.class_dump(hold, obj, statics=[("s", OBJECT, nxt)])
nxt = hold
for i in range(16):
    nxt = d.instance(node, [nxt])
d.root(nxt)
d.write(sys.argv[1])
PY
run mid.cut "$HPROFAN" leaks "$D/mid.hprof" --zombie Tail:dead=true --json
run mid.whole "$HPROFAN" leaks "$D/mid.hprof" --zombie Tail:dead=true --json --full-path
cp "$D/mid.whole.out" "$D/mid.json"
pycheck mid.cut <<'PY'
try:
    whole = json.load(open(sys.argv[1].replace("mid.cut.out", "mid.json")))
except ValueError:
    whole = {"zombies": [{"trace": [], "signature": None}], "leaks": [{"signature_text": None}]}
w = whole["zombies"][0]
z = d["zombies"][0]
W, at, n = w["trace"], z.get("trace_elided_at", 0), z.get("trace_elided", 0)
check("a trace of 43 by its ends, 23 left out", (len(W), len(z["trace"]), at, n), (43, 20, 10, 23))
check("the class object in the gap, not leaking", [(x["class"], x["status"]) for x in W[16:17]], [("java.lang.Class", "not_leaking")])
check("the steps kept are the whole trace's", z["trace"], W[:at] + W[at + n:])
check("the references to cut left out", z.get("trace_elided_cut"), sum(1 for s in W[at:at + n] if s["cut"]))
check("the signature of the whole trace", (z["signature"], d["leaks"][0]["signature_text"]),
      (w["signature"], whole["leaks"][0]["signature_text"]))
PY

expect_eq "waste --full-path: the holder line names every reference" \
  "$(grep -A1 '"dup"' "$D/small.waste.out" | sed -n 2p | grep -o 'Node\.next' | wc -l) $(grep -c 'more)' "$D/small.waste.out")" "$M 0"

# sql's path(): the same ends.  The list of 1,000: Node 0 (the JNI global
# root) .. Node 9, 981 left out, Node 991 .. Node 999 and the Tail; the
# million's 999,981; Node 0's path is itself with its root, an id no
# object has NULL
sp() { "$HPROFAN" sql "$1" --csv --quiet "SELECT path($2)" 2>&1 | tail -1 | tr -d '\r'; }
want="Node @0x10000000 [JNI global]"
for k in $(seq 1 9); do want="$want .next -> Node @0x$(printf %x $((0x10000000 + 16 * k)))"; done
want="$want .next -> ... 981 more ..."
for k in $(seq 991 999); do want="$want .next -> Node @0x$(printf %x $((0x10000000 + 16 * k)))"; done
want="$want .next -> Tail @0x10003e80"
expect_eq "sql path(): the list of 1,000's Tail by its ends" "$(sp "$D/small.hprof" 0x10003e80)" "$want"
got=$(sp "$D/list.hprof" $TAIL)
case $got in
  "Node @0x10000000 [JNI global] .next -> Node @0x10000010 "*" .next -> ... 999981 more ... .next -> Node @0x10f42370 "*" .next -> Node @0x10f423f0 .next -> Tail @0x10f42400")
    ok "sql path(): the million's Tail by its ends (${#got} bytes)" ;;
  *) fail "sql path(): the million's Tail by its ends" "$(printf %s "$got" | head -c 600)" ;;
esac
expect_eq "sql path(): a root's own, an absent id's" \
  "$("$HPROFAN" sql "$D/small.hprof" --csv --quiet "SELECT path(0x10000000), path(12345) IS NULL" | tail -1 | tr -d '\r')" \
  "Node @0x10000000 [JNI global],1"
