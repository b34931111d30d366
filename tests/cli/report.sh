#!/usr/bin/env bash
# hprofan report: one self-contained HTML page.
#  - the data the page carries are the documents the commands write with
#    --json (info, top, dominators, leaks, threads, sites, trend), checked
#    document by document against those commands' own runs;
#  - headless Chromium (network off: a proxy nobody listens on) renders it
#    and the page, opened with #selftest, writes what its DOM shows: the
#    summary's totals against info --json and top --json, the histogram's
#    first rows against top --json (and its filter and sort), a click on a
#    treemap cell (DOM pointer events at the cell's centre) against the
#    children dominators --json gives that node, the breadcrumb going down
#    and back up, no Content-Security-Policy violation; a screenshot has
#    many colours;
#  - class names holding "</script>", "<!--" and U+2028 stay data;
#  - Android per-heap figures, gzip, stdin, -o - and an atomic -o.
# Chromium checks skip where chromium is not installed.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip report "python3 is absent"; exit 0; }
HELPER=$(cd "$(dirname "$0")/../helper" && pwd)
GZ=$TESTDATA/hprof/leakycache.hprof.gz
S=$TMPD/sample.hprof
gzip -dc "$GZ" >"$S" || { fail report-sample "cannot inflate the sample"; exit 0; }

# data FILE.html: the JSON the page carries, on stdout
data() { python3 - "$1" <<'PY'
import json, re, sys
t = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r'<script type="application/json" id="hprofan-data">(.*?)</script>', t, re.S)
print(json.dumps(json.loads(m.group(1))))
PY
}

# ---- the documents the page carries are the commands' ------------------------
if ! "$HPROFAN" report "$S" -o "$TMPD/r.html" --quiet 2>"$TMPD/r.err"; then
  fail report-runs "exit $?: $(head -c 300 "$TMPD/r.err")"; exit 0
fi
ok "report writes the page"
"$HPROFAN" info "$S" --json --quiet >"$TMPD/info.json"
"$HPROFAN" top "$S" --json --quiet --top 500 >"$TMPD/top.json"
"$HPROFAN" dominators "$S" --json --quiet --depth 4 --top 12 --group=class >"$TMPD/dom.json"
"$HPROFAN" leaks "$S" --json --quiet >"$TMPD/leaks.json"
"$HPROFAN" threads "$S" --json --quiet >"$TMPD/threads.json"
data "$TMPD/r.html" >"$TMPD/r.data.json" || fail report-data "no data element in the page"
for c in info top dominators leaks threads; do
  f=$c; [ "$c" = dominators ] && f=dom
  got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["dumps"][-1].get(sys.argv[2])
w = json.load(open(sys.argv[3]))
for k in ("file",):
    d.pop(k, None); w.pop(k, None)
print("same" if d == w else "differs: " + json.dumps(d)[:200] + " / " + json.dumps(w)[:200])' \
    "$TMPD/r.data.json" "$c" "$TMPD/$f.json")
  expect_eq "report carries $c --json" "$got" "same"
done
expect_eq "no sites section without allocation sites" \
  "$(jget "$TMPD/r.data.json" 'd["dumps"][0]["sites"]["total"]["sites"]')" 0
size=$(wc -c <"$TMPD/r.html")
if [ "$size" -lt 5000000 ]; then ok "page size $size bytes"; else fail "page size" "$size bytes"; fi
# the library's </script> and ours: three script elements, three ends
expect_eq "script elements open and close" "$(grep -oi '<script' "$TMPD/r.html" | wc -l) $(grep -oi '</script' "$TMPD/r.html" | wc -l)" "3 3"
grep -q 'Content-Security-Policy" content="default-src '"'none'" "$TMPD/r.html" &&
  ok "the page's CSP allows inline content only" || fail "report CSP" "no default-src 'none' meta tag"

# -o -: the same page on standard output (only the command line in it differs)
"$HPROFAN" report "$S" -o - --quiet >"$TMPD/stdout.html" 2>/dev/null
expect_eq "-o - writes the page to stdout" \
  "$(data "$TMPD/stdout.html" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["dumps"][0]["top"]["total"])')" \
  "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["dumps"][0]["top"]["total"])' "$TMPD/r.data.json")"
# -o is atomic: a failed run leaves no file
echo "not a dump" >"$TMPD/bad.hprof"
"$HPROFAN" report "$TMPD/bad.hprof" -o "$TMPD/bad.html" --quiet 2>/dev/null
rc=$?
[ "$rc" -ne 0 ] && [ ! -e "$TMPD/bad.html" ] && ok "a failed report writes no file" ||
  fail "report atomic -o" "exit $rc, file $(ls "$TMPD/bad.html" 2>&1)"
# gzip and stdin: a pipe gives all of it (a copy of it is read again);
# without a place for the copy, the summary and the shallow histogram
"$HPROFAN" report "$GZ" -o "$TMPD/gz.html" --quiet 2>/dev/null &&
  expect_eq "report reads gzip" "$(data "$TMPD/gz.html" | python3 -c 'import json,sys; print(json.load(sys.stdin)["dumps"][0]["dominators"]["total"]["objects"])')" \
    "$(jget "$TMPD/dom.json" 'd["total"]["objects"]')"
gzip -dc "$GZ" | TMPDIR=$TMPD/none "$HPROFAN" report - -o "$TMPD/pipe.html" --quiet 2>"$TMPD/pipe.err"
expect_eq "report from a pipe, no place for a copy: summary and histogram" \
  "$(data "$TMPD/pipe.html" | python3 -c 'import json,sys; d=json.load(sys.stdin)["dumps"][0]; print(sorted(k for k in d if k not in ("file","note")), d["top"]["retained_sizes"])')" \
  "['info', 'top'] False"
gzip -dc "$GZ" | "$HPROFAN" report - -o "$TMPD/pipe.html" --quiet 2>"$TMPD/pipe.err"
expect_eq "report from a pipe: all of it, the tree as from the file" \
  "$(data "$TMPD/pipe.html" | python3 -c 'import json,sys; d=json.load(sys.stdin)["dumps"][0]; print(sorted(k for k in d if k not in ("file","note")), d["top"]["retained_sizes"], d["dominators"]["total"]["objects"])')" \
  "['dominators', 'info', 'leaks', 'sites', 'threads', 'top'] True $(jget "$TMPD/dom.json" 'd["total"]["objects"]')"

# several dumps: trend's document, and the details of the last dump
S2=$TMPD/small.hprof
python3 - "$S2" "$HELPER" <<'PY' || fail report-small "cannot write the small dump"
import sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
d = Dump()
obj = d.load_class("java.lang.Object"); d.class_dump(obj)
s = d.load_class("java.lang.String"); d.class_dump(s, obj, fields=[("hash", INT)])
d.root(d.instance(s, [1]))
d.write(sys.argv[1])
PY
"$HPROFAN" report "$S2" "$S" -o "$TMPD/multi.html" --quiet 2>/dev/null
"$HPROFAN" trend "$S2" "$S" --json --quiet >"$TMPD/trend.json"
expect_eq "report carries trend --json" "$(data "$TMPD/multi.html" | python3 -c '
import json, sys
d = json.load(sys.stdin); w = json.load(open(sys.argv[1]))
print(d["trend"] == w, [sorted(k for k in x if k != "file") for x in d["dumps"]])' "$TMPD/trend.json")" \
  "True [['info', 'top'], ['dominators', 'info', 'leaks', 'sites', 'threads', 'top']]"

# text from the dump stays text: a class named "</script><!--<script>"
# and a class name with U+2028 in the histogram as they are
E=$TMPD/escape.hprof
python3 - "$E" "$HELPER" <<'PY' || fail report-escape-dump "cannot write the dump"
import sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
d = Dump()
obj = d.load_class("java.lang.Object"); d.class_dump(obj)
for name in ("a<!--<script>x", "b\u2028c&amp;"):
    c = d.load_class(name); d.class_dump(c, obj, fields=[("v", INT)])
    for i in range(3): d.root(d.instance(c, [i]))
# a thread named "</script>...": threads shows it (class names cannot hold '/')
th = d.load_class("java.lang.Thread"); d.class_dump(th, obj, fields=[("name", OBJECT)])
fa = d.stack_frame("run</script>", "()V", "A.java", obj, 1)
d.stack_trace(1, 1, [fa])
t = d.instance(th, [0], trace=1)
d.thread_root(t, 1, trace=1)
d.start_thread(1, t, 1, "t</script><!--<script>\u2028")
d.write(sys.argv[1])
PY
"$HPROFAN" report "$E" -o "$TMPD/escape.html" --title '<b>"T"</b>' --quiet 2>/dev/null
expect_eq "names holding <script> and </script> open and close nothing" \
  "$(grep -oi '<script' "$TMPD/escape.html" | wc -l) $(grep -oi '</script' "$TMPD/escape.html" | wc -l)" "3 3"
# ---- headless Chromium ---------------------------------------------------------
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then skip report-chromium "chromium not installed"; exit 0; fi
# render FILE.html OUT.json: the page's self-test, network off
render() {
  timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --proxy-server=127.0.0.1:9 \
    --proxy-bypass-list='<-loopback>' --user-data-dir="$TMPD/chromium-profile" \
    --virtual-time-budget=5000 --dump-dom "file://$1#selftest" 2>/dev/null | python3 -c '
import html, re, sys
t = sys.stdin.read()
m = re.search(r"<pre id=\"hprofan-selftest\"[^>]*data-done=\"1\"[^>]*>([^<]*)</pre>", t)
print(html.unescape(m.group(1)) if m else "{}")' >"$2"
}
render "$TMPD/r.html" "$TMPD/self.json"
if [ "$(jget "$TMPD/self.json" 'len(d)')" = 0 ]; then
  fail report-render "the page did not run its self-test in chromium"; exit 0
fi
expect_eq "the sections shown, what is wrong first, the summary last" "$(jget "$TMPD/self.json" 'd["sections"]')" "['overview', 'leaks', 'treemap', 'histogram', 'threads', 'summary']"
expect_eq "no CSP violation, no request" "$(jget "$TMPD/self.json" 'd["violations"]')" "[]"
expect_eq "summary: objects and heap as info --json" "$(jget "$TMPD/self.json" '[d["summary"]["objects"], d["summary"]["heap"]]')" \
  "$(jget "$TMPD/info.json" '[d["objects"]["total"], d["objects"]["shallow"]]')"
expect_eq "summary: reachable and unreachable as top --json" \
  "$(jget "$TMPD/self.json" '[d["summary"][k] for k in ("classes", "reachable_objects", "reachable_shallow", "unreachable_objects", "unreachable_shallow")]')" \
  "$(jget "$TMPD/top.json" '[d["total"][k] for k in ("classes", "reachable_objects", "reachable_shallow", "unreachable_objects", "unreachable_shallow")]')"
expect_eq "histogram: first rows as top --json" \
  "$(jget "$TMPD/self.json" '[(r["rank"], r["class"], r["instances"], r["shallow"], r["retained"]) for r in d["histogram"]]')" \
  "$(jget "$TMPD/top.json" '[(r["rank"], r["class"], r["instances"], r["shallow"], r["retained"]) for r in d["classes"][:10]]')"
# and against the JVM's own histogram of the process (jmap -histo:live)
expect_eq "histogram: first rows as the JVM's histogram" "$(python3 - "$TMPD/self.json" "$TESTDATA/hprof/leakycache.histo.txt" <<'PY'
import json, re, sys
prim = {"B": "byte", "C": "char", "I": "int", "J": "long", "S": "short", "Z": "boolean", "F": "float", "D": "double"}
def name(n):
    k = len(n) - len(n.lstrip("["))
    if not k: return n
    e = n[k:]
    return (prim[e] if e in prim else e[1:-1]) + "[]" * k
jvm = {}
for line in open(sys.argv[2]):
    m = re.match(r"\s*\d+:\s+(\d+)\s+(\d+)\s+(\S+)", line)
    if m: jvm[name(m.group(3))] = (int(m.group(1)), int(m.group(2)))
rows = json.load(open(sys.argv[1]))["histogram"]
bad = [r["class"] for r in rows if jvm.get(r["class"]) != (r["instances"], r["shallow"])]
print("%d rows, differing: %s" % (len(rows), bad))
PY
)" "10 rows, differing: []"
expect_eq "histogram: filter" "$(jget "$TMPD/self.json" 'd["filtered"]')" 1
expect_eq "histogram: sort by instances" "$(jget "$TMPD/self.json" '[r["class"] for r in d["by_instances"]]')" \
  "$(jget "$TMPD/top.json" '[r["class"] for r in sorted(d["classes"], key=lambda r: -r["instances"])[:3]]')"
# cells: (id or group, retained), then the "other" cell of what --top leaves out
python3 - "$TMPD/self.json" "$TMPD/dom.json" >"$TMPD/tree.txt" <<'PY'
import json, sys
p = json.load(open(sys.argv[1])); w = json.load(open(sys.argv[2]))
def cells(got):
    return [(c["id"] or c["group"] or c["name"].split(" ")[0], c["value"]) for c in got]
def want(node, items):
    out = [(e.get("id") or e.get("group"), e["retained"]) for e in items]
    if node.get("more"):
        out.append(("other", node["more"]["retained"]))
    return out
k = p["clicked"]
node = w["dominators"][k]
print("top", cells(p["treemap_top"])[:len(want(w, w["dominators"]))] == want(w, w["dominators"]))
print("drilled", p["click_dispatched"], cells(p["treemap_after"])[:len(want(node, node["children"]))] == want(node, node["children"]))
print("crumbs", len(p["breadcrumb"]), p["breadcrumb"][-1].startswith(node.get("group") and "[" or node["class"]), len(p["breadcrumb_up"]))
PY
expect_eq "treemap: the top level is dominators --json's" "$(sed -n 1p "$TMPD/tree.txt")" "top True"
expect_eq "treemap: a click on a cell opens that node's children" "$(sed -n 2p "$TMPD/tree.txt")" "drilled True True"
expect_eq "treemap: breadcrumb down and back up" "$(sed -n 3p "$TMPD/tree.txt")" "crumbs 2 True 1"
if jget "$TMPD/self.json" 'd["footer"]' | grep -qE 'Apache ECharts [0-9]+\.[0-9]+\.[0-9]+ \(licence Apache-2\.0\)'; then
  ok "footer names the library, its version and licence"
else fail "report footer" "$(jget "$TMPD/self.json" 'd["footer"]')"; fi

# a screenshot that is not blank: many colours (PNG decoded with zlib)
timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --proxy-server=127.0.0.1:9 --hide-scrollbars \
  --user-data-dir="$TMPD/chromium-profile" --window-size=1000,1600 --virtual-time-budget=3000 \
  --screenshot="$TMPD/shot.png" "file://$TMPD/r.html" >/dev/null 2>&1
colours=$(python3 "$HELPER/pngcolours.py" "$TMPD/shot.png")
if [ "${colours:-0}" -ge 300 ]; then ok "screenshot is not blank ($colours colours)"; else fail "report screenshot" "${colours:-no} colours"; fi

# the hostile names as the page shows them
render "$TMPD/escape.html" "$TMPD/escape.json"
expect_eq "hostile class names stay data" "$(jget "$TMPD/escape.json" 'sorted(r["class"] for r in d["histogram"] if r["class"][0] in "ab")')" \
  "$(python3 -c 'print(sorted(["a<!--<script>x", "b\u2028c&amp;"]))')"
expect_eq "a thread named </script> stays data" "$(jget "$TMPD/escape.json" 'd["threads"]')" \
  "$(python3 -c 'print(["t</script><!--<script>\u2028"])')"
expect_eq "--title, escaped" "$(jget "$TMPD/escape.json" 'd["title"]')" '<b>"T"</b>'

# Android: the per-heap figures of info --json
A=$CORPUS/tadfisher__platform_tools_base/dialer.android-hprof
if have_corpus report-android && [ -f "$A" ]; then
  "$HPROFAN" report "$A" -o "$TMPD/android.html" --quiet 2>/dev/null
  render "$TMPD/android.html" "$TMPD/android.json"
  expect_eq "Android: per-heap figures" "$(jget "$TMPD/android.json" 'd["heaps"]')" \
    "$("$HPROFAN" info "$A" --json --quiet | python3 -c 'import json,sys; print([[h["name"], h["objects"], h["classes"], h["instances"], h["shallow"]] for h in json.load(sys.stdin)["heaps"]])')"
fi
# allocation sites: the icicle's section
H=$CORPUS/eclipse-mat__mat/oracle_jdk7_21_hprofagent.hprof
if [ -f "$H" ]; then
  "$HPROFAN" report "$H" -o "$TMPD/sites.html" --quiet 2>/dev/null
  render "$TMPD/sites.html" "$TMPD/sites.json"
  expect_eq "allocation sites shown when the dump has them" "$(jget "$TMPD/sites.json" '"sites" in d["sections"]')" true
fi
