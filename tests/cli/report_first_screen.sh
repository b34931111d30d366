#!/usr/bin/env bash
# hprofan report's first screen answers "what is wrong", and report takes
# leaks's --threshold and --zombie:
#  - on the sample, the page's data hold the leaks document that
#    `hprofan leaks --json` writes with the same options: at the default 10%
#    one suspect, with --threshold 2 three (the same classes and sizes as
#    leaks --threshold 2 --json), with --zombie java.lang.Thread:daemon=true
#    the rule and its 11 zombies; a bad --threshold or --zombie is a usage
#    error (exit 2) said before any dump is read, and writes no page;
#  - headless Chromium (tests/cli/cdp.py) at 1280x800 opens each page: the
#    first section is "What is wrong", its suspects table has one row per
#    suspect (1, then 3) and its consumers table the top five rows of
#    dominators --json (same retained sizes), both within the first
#    viewport (their bounding boxes end above y=800), the summary (the
#    metadata) starts below it; the zombie count is on the first screen only
#    when a rule found zombies.
# Chromium checks skip where chromium is not installed.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip report-first-screen "python3 is absent"; exit 0; }
HERE=$(cd "$(dirname "$0")" && pwd)
S=$TESTDATA/hprof/leakycache.hprof.gz
D=$TMPD/first-screen
rm -rf "$D"; mkdir -p "$D"

"$HPROFAN" report "$S" -o "$D/plain.html" --quiet
expect_eq "report on the sample" "$?" 0
"$HPROFAN" report "$S" --threshold 2 -o "$D/t2.html" --quiet
expect_eq "report --threshold 2" "$?" 0
"$HPROFAN" report "$S" --zombie 'java.lang.Thread:daemon=true' -o "$D/zombie.html" --quiet
expect_eq "report --zombie RULE" "$?" 0
"$REL" leaks "$S" --threshold 2 --json --quiet >"$D/leaks-t2.json"
"$REL" dominators "$S" --depth 1 --top 12 --group class --json --quiet >"$D/dom.json"

# usage errors: before the dump is read (a missing file would say so otherwise)
for bad in "--threshold 0" "--threshold 101" "--threshold x" "--zombie nocolon"; do
  # shellcheck disable=SC2086
  "$HPROFAN" report "$D/no-such.hprof" $bad -o "$D/bad.html" >"$D/bad.out" 2>&1
  rc=$?
  expect_eq "report $bad: a usage error, no page" "$rc $([ -e "$D/bad.html" ] && echo page)" "2 "
  grep -q -- "${bad%% *}" "$D/bad.out" || fail "report $bad: the message names the option" "$(head -c 200 "$D/bad.out")"
done

python3 - "$D" <<'PY' || fail report-first-screen "the checks stopped (an answer lacks a member)"
import json, re, sys
D = sys.argv[1]
def data(name):
    t = open("%s/%s.html" % (D, name)).read()
    m = re.search(r'<script type="application/json" id="hprofan-data">(.*?)</script>', t, re.S)
    return json.loads(m.group(1))["dumps"][-1]
def check(name, got, want):
    print(("ok report-first-screen/%s" % name) if got == want else ("FAIL report-first-screen/%s: got %r, want %r" % (name, got, want)))
p, t2, z = data("plain"), data("t2"), data("zombie")
lt2 = json.load(open(D + "/leaks-t2.json"))
key = lambda d: [(s["kind"], s["class"], s["retained"]) for s in d["suspects"]]
check("default threshold: 10%, one suspect", (p["leaks"]["threshold_percent"], len(p["leaks"]["suspects"])), (10, 1))
check("--threshold 2: three suspects", (t2["leaks"]["threshold_percent"], len(t2["leaks"]["suspects"])), (2, 3))
check("--threshold 2: the suspects of leaks --threshold 2", key(t2["leaks"]), key(lt2))
check("--zombie: the rule and its zombies", (z["leaks"]["zombie_rules"], len(z["leaks"]["zombies"]), len(p["leaks"]["zombies"])),
      (["java.lang.Thread:daemon=true"], 11, 0))
PY

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then skip report-first-screen-chromium "chromium not installed"; exit 0; fi
timeout 120 python3 - "$HERE" "$CHROMIUM" "$D" <<'PY' || fail report-first-screen-chromium "the driver failed"
import json, sys
sys.path.insert(0, sys.argv[1])
from cdp import Browser, CDPError
chromium, D = sys.argv[2], sys.argv[3]
W, H = 1280, 800
dom = json.load(open(D + "/dom.json"))
want_consumers = [e["retained"] for e in dom["dominators"][:5]]

def check(name, good, why=""):
    print(("ok report-first-screen/%s" % name) if good else ("FAIL report-first-screen/%s: %s" % (name, why)))

LOOK = """(function () {
  var T = window.hprofanTest, rows = function (sel) { return Array.prototype.map.call(document.querySelectorAll(sel), function (tr) {
    return Number(tr.cells[1].getAttribute('data-raw')); }); };
  return { layout: T.layout(), sections: T.sections(), suspects: document.querySelectorAll('#overview-suspects tr.suspect-row').length,
           consumers: rows('#overview-consumers tr.consumer-row'), zombies: !!document.getElementById('overview-zombies'),
           violations: T.violations() };
})()"""

b = Browser(chromium, D + "/profile")
try:
    page = b.open("about:blank")
    b.send("Emulation.setDeviceMetricsOverride", {"width": W, "height": H, "deviceScaleFactor": 1, "mobile": False}, session=page.s)
    for name, nsus, zomb in (("plain", 1, False), ("t2", 3, False), ("zombie", 1, True)):
        b.send("Page.navigate", {"url": "file://%s/%s.html" % (D, name)}, session=page.s)
        b.wait_event("Page.loadEventFired", session=page.s)
        r = page.eval(LOOK)
        L = r["layout"]
        check("%s: the viewport is %dx%d" % (name, W, H), (L["viewport"]["width"], L["viewport"]["height"]) == (W, H), L["viewport"])
        check("%s: the first section is What is wrong" % name, r["sections"][:1] == ["overview"], r["sections"])
        check("%s: one row per suspect (%d)" % (name, nsus), r["suspects"] == nsus, r["suspects"])
        check("%s: the consumers are dominators' top five" % name, r["consumers"] == want_consumers,
              "%s, want %s" % (r["consumers"], want_consumers))
        for part in ("overview-suspects", "overview-consumers"):
            box = L.get(part)
            check("%s: %s within the first screen" % (name, part), box is not None and box["height"] > 0 and box["bottom"] <= H,
                  json.dumps(box))
        s = L.get("summary")
        check("%s: the summary (metadata) below the first screen" % name, s is not None and s["top"] >= H, json.dumps(s))
        check("%s: the zombie count on the first screen %s" % (name, "shown" if zomb else "absent"), r["zombies"] == zomb, r["zombies"])
        check("%s: no CSP violation" % name, not r["violations"], r["violations"])
except CDPError as e:
    check("chromium", False, str(e))
finally:
    b.close()
PY
