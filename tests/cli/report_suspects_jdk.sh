#!/usr/bin/env bash
# report and browse say the leak suspects as `hprofan leaks` does, on two
# dumps a JDK 17 writes: testdata/java/collections/ (Shop: a static HashMap
# of 10,000 String -> byte[] entries and a CopyOnWriteArrayList of 15,000
# lambda listeners, as tests/cli/collections_jdk.sh builds it) and
# testdata/java/threadlocal/ (a pool of 4 threads, each with an ArrayList
# of 1,250 AuditRecords in the ThreadLocal ShopServer.AUDIT, as
# tests/cli/threadlocal_jdk.sh builds it, one step):
#  - report, in headless Chromium (tests/cli/cdp.py) at 1280x800: the
#    first screen's suspect rows say "java.util.HashMap with 10,000
#    entries" (the size the program's size() printed), "CopyOnWriteArrayList
#    of 15,000 elements", the largest classes of the retained set as
#    accumulated_by_class gives them (10,000 x java.util.HashMap$Node) and
#    "captured: 15,000 x CheckoutSession held through
#    CheckoutSession$$Lambda...arg$1"; Leak suspects below gives each
#    suspect's collection, its by-class table (leaks --json's rows) and the
#    captured classes; no "It accumulates" is left;
#  - on the ThreadLocal dump the first screen has one suspect row,
#    "ThreadLocal ShopServer.AUDIT in 4 threads", naming the 4 pool threads
#    and retaining leaks --json's figure, 4 x 1,335,040 bytes (what the
#    program built: an ArrayList 24, its Object[1250] 5,016, 1,250 x
#    (AuditRecord 24 + byte[1024] 1,040)), and no Thread row; Leak suspects
#    below lists the 4 pool threads and their values; both within the
#    first screen, no CSP violation;
#  - browse (through tmux, as tests/cli/browse.sh): L shows one row
#    "ThreadLocal ShopServer.AUDIT in 4 threads" and none of the folded
#    Thread suspects' accumulation points; Enter lists the 4 values
#    (leaks --json's ids);
#  - report --zombie with a class or field the dump lacks is a usage error
#    (exit 2, the nearest names, no page), as leaks's, through the same
#    check (this held before too: it guards the sharing).
# Skipped without a JDK (javac, java, jcmd); the Chromium and tmux parts
# without those.  Takes about 15 seconds.
. "$(dirname "$0")/../lib.sh"
for t in javac java jcmd python3; do
  command -v "$t" >/dev/null 2>&1 || { skip report-suspects-jdk "$t is absent"; exit 0; }
done
HERE=$(cd "$(dirname "$0")" && pwd)
TD=$(cd "$HERE/../.." && pwd)/testdata/java
D=$TMPD/report-suspects
rm -rf "$D"; mkdir -p "$D"
PID=""
SOCK=$D/tmux.sock
T() { tmux -S "$SOCK" -f /dev/null "$@"; }
cleanup() {
  [ -n "$PID" ] && { kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null; }
  command -v tmux >/dev/null 2>&1 && T kill-server >/dev/null 2>&1
}
at_exit cleanup

# the two dumps, the ThreadLocal one while the Shop JVM starts
javac -d "$D/classes" $(find "$TD/collections" -name '*.java') 2>"$D/javac.err" &&
  javac -d "$D/tlclasses" "$TD/threadlocal/ShopServer.java" 2>>"$D/javac.err" ||
  { fail report-suspects-jdk-javac "$(head -c 300 "$D/javac.err")"; exit 0; }
java -Xmx256m -XX:+UseSerialGC -cp "$D/classes" Shop >"$D/shop.out" 2>&1 &
PID=$!
timeout 60 java -Xmx64m -XX:+UseSerialGC -XX:+UseCompressedOops -XX:TieredStopAtLevel=1 -cp "$D/tlclasses" \
  ShopServer "$D" 1 1250 >"$D/tl.out" 2>&1
grep -q '^DONE' "$D/tl.out" || { fail report-suspects-jdk "the ThreadLocal JVM did not finish: $(head -c 300 "$D/tl.out")"; exit 0; }
said_ready "$D/shop.out" "$PID" || { fail report-suspects-jdk "the Shop JVM never said READY: $(head -c 300 "$D/shop.out")"; exit 0; }
jcmd "$PID" GC.heap_dump "$D/shop.hprof" >"$D/jcmd.out" 2>&1 ||
  { fail report-suspects-jdk "jcmd: $(head -c 300 "$D/jcmd.out")"; exit 0; }
kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null
PID=""
SHOP=$D/shop.hprof TL=$D/shop-0.hprof

"$HPROFAN" report "$SHOP" -o "$D/shop.html" --quiet 2>"$D/report.err"
expect_eq "report on the Shop dump" "$?" 0
"$HPROFAN" report "$TL" -o "$D/tl.html" --quiet 2>>"$D/report.err"
expect_eq "report on the ThreadLocal dump" "$?" 0
"$REL" leaks "$SHOP" --json --quiet >"$D/shop-leaks.json"
"$REL" leaks "$TL" --json --quiet >"$D/tl-leaks.json"

# report --zombie: leaks's rule checks (the sanitized binary: a typo's path)
for rule in 'java.util.HashMpa:size=0' 'java.util.HashMap:szie=0'; do
  "$HPROFAN" report "$SHOP" --zombie "$rule" -o "$D/typo.html" --quiet >"$D/typo.out" 2>&1
  rc=$?
  "$REL" leaks "$SHOP" --zombie "$rule" --quiet >/dev/null 2>"$D/typo-leaks.out"
  expect_eq "report --zombie $rule: a usage error, no page" "$rc $([ -e "$D/typo.html" ] && echo page)" "2 "
  if [ "$(head -n 1 "$D/typo.out")" = "$(head -n 1 "$D/typo-leaks.out")" ] && grep -q "did you mean 'java.util.HashMap'\|did you mean 'size'" "$D/typo.out"
  then ok "report --zombie $rule: leaks's message, with the nearest names"
  else fail "report --zombie $rule: leaks's message, with the nearest names" "$(head -c 300 "$D/typo.out") / $(head -c 300 "$D/typo-leaks.out")"; fi
done

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
  skip report-suspects-chromium "chromium not installed"
else
timeout 120 python3 - "$HERE" "$CHROMIUM" "$D" <<'PY' || fail report-suspects-chromium "the driver failed"
import json, sys
sys.path.insert(0, sys.argv[1])
from cdp import Browser, CDPError
chromium, D = sys.argv[2], sys.argv[3]
W, H = 1280, 800
def check(name, got, want):
    print(("ok report-suspects/%s" % name) if got == want else ("FAIL report-suspects/%s: got %r, want %r" % (name, got, want)))
sizes = {}
for line in open(D + "/shop.out"):
    if line.startswith("SIZE "):
        _, f, n = line.split()
        sizes[f] = int(n)
shop = json.load(open(D + "/shop-leaks.json"))
tl = json.load(open(D + "/tl-leaks.json"))
LOOK = """(function () {
  var T = window.hprofanTest, txt = function (sel) { return Array.prototype.map.call(document.querySelectorAll(sel), function (e) { return e.textContent; }); };
  return { layout: T.layout(), violations: T.violations(),
    rows: Array.prototype.map.call(document.querySelectorAll('#overview-suspects tr.suspect-row'), function (tr) {
      return { kind: tr.getAttribute('data-kind'), suspect: tr.cells[1].textContent, retained: Number(tr.cells[2].getAttribute('data-raw')),
               holds: Array.prototype.map.call(tr.cells[4].children, function (e) { return e.textContent; }) }; }),
    suspects: Array.prototype.map.call(document.querySelectorAll('#leaks div.suspect'), function (d) {
      var q = function (sel) { return Array.prototype.map.call(d.querySelectorAll(sel), function (e) { return e.textContent; }); };
      return { kind: d.getAttribute('data-kind'), title: q('h3')[0], collection: q('p.collection'), captured: q('ul.captured li'),
        by_class: Array.prototype.map.call(d.querySelectorAll('table.by-class tr.by-class-row'), function (tr) {
          return [Number(tr.cells[0].getAttribute('data-raw')), tr.cells[1].textContent]; }),
        threads: Array.prototype.map.call(d.querySelectorAll('table.tl-threads tr.tl-thread-row'), function (tr) {
          return [tr.cells[0].textContent, tr.cells[1].textContent]; }) }; }),
    old: document.body.textContent.indexOf('It accumulates') >= 0 };
})()"""
b = Browser(chromium, D + "/profile")
try:
    page = b.open("about:blank")
    b.send("Emulation.setDeviceMetricsOverride", {"width": W, "height": H, "deviceScaleFactor": 1, "mobile": False}, session=page.s)
    got = {}
    for name in ("shop", "tl"):
        b.send("Page.navigate", {"url": "file://%s/%s.html" % (D, name)}, session=page.s)
        b.wait_event("Page.loadEventFired", session=page.s)
        got[name] = page.eval(LOOK)
except CDPError as e:
    print("FAIL report-suspects/chromium: %s" % e)
    sys.exit(0)
finally:
    b.close()

# the Shop dump: the collections, the retained sets by class, the captures
r = got["shop"]
by_coll = {(s.get("collection") or {}).get("collection"): s for s in shop["suspects"]}
m, l = by_coll.get("java.util.HashMap", {}), by_coll.get("java.util.concurrent.CopyOnWriteArrayList", {})
check("shop: one first-screen row per suspect of leaks --json", len(r["rows"]), len(shop["suspects"]) + len(shop["thread_local_suspects"]))
holds = [h for row in r["rows"] for h in row["holds"]]
check("shop: the first screen names the HashMap and its size() (%d)" % sizes["CACHE"],
      "java.util.HashMap with %s entries" % format(sizes["CACHE"], ",") in holds, True)
check("shop: ... and the CopyOnWriteArrayList of %d listeners" % sizes["listeners"],
      "java.util.concurrent.CopyOnWriteArrayList of %s elements" % format(sizes["listeners"], ",") in holds, True)
top3 = ", ".join("%s \u00d7 %s" % (format(k["count"], ","), k["class"]) for k in m["accumulated_by_class"]["rows"][:3])
check("shop: the HashMap's row gives the largest classes of its retained set", any(h.startswith(top3) for h in holds), True)
check("shop: ... 10,000 HashMap$Node among them, not the table's 6,000-odd direct children",
      "10,000 \u00d7 java.util.HashMap$Node" in top3, True)
cap = l["captured"][0]
check("shop: the first screen names the captured sessions",
      "captured: 15,000 \u00d7 CheckoutSession held through %s.arg$1" % cap["holder"] in holds and cap["holder"].startswith("CheckoutSession$$Lambda"), True)
for s, coll, size, what in ((m, "java.util.HashMap", sizes["CACHE"], "entries"), (l, "java.util.concurrent.CopyOnWriteArrayList", sizes["listeners"], "elements")):
    d = next((x for x in r["suspects"] if x["collection"] and x["collection"][0].startswith("Collection: %s @%s" % (coll, s["collection"]["id"]))), {})
    check("shop: Leak suspects gives the %s's collection and its size" % coll, d.get("collection"),
          ["Collection: %s @%s %s %s %s." % (coll, s["collection"]["id"], "with" if what == "entries" else "of", format(size, ","), what)])
    check("shop: ... its retained set by class, leaks --json's rows", d.get("by_class"),
          [[k["count"], k["class"]] for k in s["accumulated_by_class"]["rows"][:10]])
    check("shop: ... what its lambdas capture", d.get("captured"),
          ["captured: %s \u00d7 %s held through %s.%s" % (format(k["count"], ","), k["class"], k["holder"], k["field"]) for k in s["captured"][:10]])
check("shop: no \"It accumulates\" left", r["old"], False)

# the ThreadLocal dump: one suspect for the pool
r = got["tl"]
t0 = (tl.get("thread_local_suspects") or [{}])[0]
rec = 24 + (16 + 4 * 1250) + 1250 * (24 + 16 + 1024)   # ArrayList, Object[capacity 1 step x 1,250], the records
check("tl: leaks --json: one ThreadLocal suspect, what the 4 lists retain", (len(tl["thread_local_suspects"]), t0.get("retained")), (1, 4 * rec))
check("tl: the first screen: one row, the ThreadLocal, leaks's retained",
      [(x["kind"], x["suspect"], x["retained"]) for x in r["rows"]], [("thread_local", "ThreadLocal ShopServer.AUDIT in 4 threads", 4 * rec)])
check("tl: no Thread row", [x["suspect"] for x in r["rows"] if "java.lang.Thread" in x["suspect"]], [])
check("tl: the row says what accumulates", r["rows"][0]["holds"][:1] if r["rows"] else None,
      ["%s \u00d7 ShopServer$AuditRecord (%s)" % (format(t0["accumulated"]["count"], ","), "%.1f MiB" % (t0["accumulated"]["retained"] / 1048576.0))])
check("tl: ... and names its threads", r["rows"][0]["holds"][1:2] if r["rows"] else None,
      ["threads: " + ", ".join("\u201c%s\u201d %.1f MiB" % (e["name"], e["value"]["retained"] / 1048576.0) for e in t0["threads"])])
ts = [x for x in r["suspects"] if x["kind"] == "thread_local"]
check("tl: Leak suspects: the ThreadLocal suspect, its 4 threads and their values",
      [(x["title"].split(" retain ")[0], x["threads"]) for x in ts],
      [("Suspect 1: ThreadLocal ShopServer.AUDIT (java.lang.ThreadLocal$SuppliedThreadLocal @%s): its values in 4 threads" % t0["thread_local"]["id"],
        [["\u201c%s\u201d" % e["name"], "java.util.ArrayList @%s" % e["value"]["id"]] for e in t0["threads"]])])
check("tl: no other suspect", len(r["suspects"]), 1)
for name in ("shop", "tl"):
    L = got[name]["layout"]
    box = L.get("overview-suspects")
    check("%s: the suspects within the first screen" % name, box is not None and box["bottom"] <= H, True)
    check("%s: no CSP violation" % name, got[name]["violations"], [])
PY
fi

command -v tmux >/dev/null 2>&1 || { skip report-suspects-browse "tmux is absent"; exit 0; }
SCREEN=$D/screen
. "$(dirname "$0")/../tmux.sh"
q() { printf '%q' "$1"; }
VALS=$(python3 -c 'import json,sys; print(" ".join(sorted(e["value"]["id"] for e in json.load(open(sys.argv[1]))["thread_local_suspects"][0]["threads"])))' "$D/tl-leaks.json")
T new-session -d -s hb -x 120 -y 30 \
  "env TERM=screen LC_ALL=C.UTF-8 ASAN_OPTIONS=detect_leaks=0:exitcode=99 $(q "$HPROFAN") browse $(q "$TL"); echo \$? > $(q "$D/rc")" ||
  { fail report-suspects-browse "tmux new-session failed"; exit 0; }
wait_for browse-starts "rows |" || exit 0
T send-keys -t hb L
if wait_for browse-leaks "leak suspects (" "rows |"; then
  rows=$(sed -n '3,28p' "$D/screen" | grep -v '^ *$' | grep -v '^ *~$' || true)
  if [ "$(printf '%s\n' "$rows" | grep -c .)" = 1 ] && printf '%s' "$rows" | grep -qF "ThreadLocal ShopServer.AUDIT in 4 threads"
  then ok "browse L: one row, ThreadLocal ShopServer.AUDIT in 4 threads"
  else fail "browse L: one row, ThreadLocal ShopServer.AUDIT in 4 threads" "$(printf '%s' "$rows" | head -c 600)"; fi
  T send-keys -t hb Enter
  if wait_for browse-tl-values "the values of ThreadLocal ShopServer.AUDIT in 4 threads" "1/4 rows"; then
    got=$(sed -n '3,28p' "$D/screen" | grep -o 'java\.util\.ArrayList @0x[0-9a-f]*' | sed 's/.*@//' | sort | tr '\n' ' ' | sed 's/ $//')
    expect_eq "browse L, Enter: the values in the 4 threads (leaks --json's)" "$got" "$VALS"
  fi
fi
T send-keys -t hb q
until_ok test -s "$D/rc" && expect_eq "browse exits 0" "$(cat "$D/rc")" 0
