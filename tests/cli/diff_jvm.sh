#!/usr/bin/env bash
# hprofan diff and trend on dumps a JVM writes of itself while a known
# structure grows (testdata/java/Growth.java: 1 000 gen.Growth$Session
# objects added to the static list SESSIONS per step, garbage churned in
# between, 500 gen.Growth$Stable objects that do not change; live dumps by
# HotSpotDiagnosticMXBean.dumpHeap), against the JVM's own class histograms
# (jcmd GC.class_histogram, taken just before each dump) as independent truth:
#  (a) diff of consecutive dumps, per class: the instance and byte deltas
#      are the histograms' deltas, for every class the histograms list
#      (int[] excepted: jcmd's attach and the dump writer make and drop a few
#      between a histogram and its dump); gen.Growth$Session +1 000 exactly;
#  (b) the growth is held at class gen.Growth .SESSIONS (the class object is
#      held jointly by its loader and others: "joint"; its first growth
#      point: SESSIONS -> ArrayList -> elementData -> Object[] [] ->
#      gen.Growth$Session, +1 000 objects); STABLE is no growth point and
#      gen.Growth$Stable did not change;
#  (c) trend over the three dumps ranks gen.Growth$Session first, +1 000
#      instances per step exactly, growing at every step; gen.Growth$Stable
#      is not flagged; the SESSIONS path is the first path, +1 000 objects a
#      step;
#  (d) diff --fast gives the same per-class deltas.
# Skipped without java, javac or jcmd.  Takes a few seconds.
. "$(dirname "$0")/../lib.sh"
for t in java javac jcmd python3; do
  command -v $t >/dev/null 2>&1 || { skip diff-jvm "$t is absent"; exit 0; }
done
SRC=$(cd "$(dirname "$0")/../.." && pwd)
D=$TMPD
if ! javac -d "$D/classes" "$SRC/testdata/java/Growth.java" 2>"$D/javac.err"; then
  fail diff-jvm "javac Growth.java: $(head -c 300 "$D/javac.err")"; exit 0
fi

coproc JVM { exec java -Xmx64m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -cp "$D/classes" gen.Growth "$D" 3 1000 2>"$D/java.err"; }
pid=$JVM_PID
step() { read -r -t 60 line <&"${JVM[0]}" && [ "$line" = "$1" ]; }
go() { echo go >&"${JVM[1]}"; }
ok_run=1
if step STARTED; then
  jcmd "$pid" GC.class_histogram >/dev/null 2>&1; go
  for k in 0 1 2; do
    step READY || { ok_run=0; break; }
    jcmd "$pid" GC.class_histogram >"$D/histo-$k.txt" 2>"$D/jcmd.err" || { ok_run=0; break; }
    go
    step DUMPED || { ok_run=0; break; }
    go
  done
  step DONE && go
else
  ok_run=0
fi
if [ $ok_run = 0 ]; then
  kill "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  fail diff-jvm "the JVM did not run its steps: $(head -c 300 "$D/java.err") $(head -c 300 "$D/jcmd.err" 2>/dev/null)"
  exit 0
fi
wait "$pid" 2>/dev/null

G=$D/growth
for p in "0 1" "1 2"; do
  set -- $p
  "$HPROFAN" diff "$G-$1.hprof" "$G-$2.hprof" --top 0 --json --quiet >"$D/diff-$1$2.json" 2>"$D/diff-$1$2.err" ||
    fail "diff-jvm: diff $1 $2" "exit $?: $(head -c 300 "$D/diff-$1$2.err")"
  "$HPROFAN" diff "$G-$1.hprof" "$G-$2.hprof" --top 0 --json --quiet --fast >"$D/fast-$1$2.json" 2>"$D/fast-$1$2.err" ||
    fail "diff-jvm: diff --fast $1 $2" "exit $?: $(head -c 300 "$D/fast-$1$2.err")"
done
"$HPROFAN" trend "$G-0.hprof" "$G-1.hprof" "$G-2.hprof" --top 0 --json --quiet >"$D/trend.json" 2>"$D/trend.err" ||
  fail "diff-jvm: trend" "exit $?: $(head -c 300 "$D/trend.err")"

HELPER="$(cd "$(dirname "$0")/../helper" && pwd)" python3 - "$D" <<'PY'
import json, re, sys
import os
sys.path.insert(0, os.environ["HELPER"])      # tests/helper: histo.py
from histo import read_histo
D = sys.argv[1]
def ok(n): print("ok diff-jvm: " + n)
def fail(n, why): print("FAIL diff-jvm: %s: %s" % (n, why))
def eq(n, got, want):
    if got == want: ok(n)
    else: fail(n, "got %r, want %r" % (got, want))
def histo(k):
    return read_histo("%s/histo-%d.txt" % (D, k))
ALLOWED = {"int[]"}    # made and dropped by jcmd's attach and the dump writer in between
def path(e): return " ".join(("%s %s" % (s.get("via", s.get("root")), s["object"])) for s in e["path"])
for a, b in ((0, 1), (1, 2)):
    ha, hb = histo(a), histo(b)
    for kind in ("diff", "fast"):
        doc = json.load(open("%s/%s-%d%d.json" % (D, kind, a, b)))
        mine = {c["class"]: c["delta"] for c in doc["classes"]}
        bad, n = [], 0
        for name in sorted(set(ha) | set(hb)):
            if name.startswith("<") or name == "java.lang.Class" or name in ALLOWED:
                continue
            n += 1
            want = (hb.get(name, (0, 0))[0] - ha.get(name, (0, 0))[0], hb.get(name, (0, 0))[1] - ha.get(name, (0, 0))[1])
            d = mine.get(name, {"instances": 0, "shallow": 0})
            if (d["instances"], d["shallow"]) != want:
                bad.append("%s %r != %r" % (name, (d["instances"], d["shallow"]), want))
        if bad or n < 200:
            fail("%s %d %d: every class's delta is the histograms'" % (kind, a, b), "%d classes; %s" % (n, "; ".join(bad[:8])))
        else:
            ok("%s %d %d: every class's delta is the histograms' (%d classes)" % (kind, a, b, n))
        s = mine.get("gen.Growth$Session")
        eq("%s %d %d: gen.Growth$Session +1000" % (kind, a, b), s and s["instances"], 1000)
        eq("%s %d %d: gen.Growth$Stable unchanged" % (kind, a, b), "gen.Growth$Stable" in mine, False)
        if kind != "diff":
            continue
        g = doc["holders"]["grown"]
        top = g[0] if g else None
        eq("diff %d %d: the growth is held at class gen.Growth .SESSIONS" % (a, b),
           top and (path(top), top["delta"]["objects"], top["status"]),
           ("joint class gen.Growth SESSIONS java.util.ArrayList elementData java.lang.Object[] [] gen.Growth$Session",
            1000, "matched"))
        eq("diff %d %d: its retained delta is the sessions' bytes" % (a, b), top and top["delta"]["retained"],
           hb["gen.Growth$Session"][1] - ha["gen.Growth$Session"][1])
        stable = [path(e) for k in ("grown", "new", "shrunk") for e in doc["holders"][k] if "STABLE" in path(e)]
        eq("diff %d %d: STABLE is no growth point" % (a, b), stable, [])

t = json.load(open(D + "/trend.json"))
c = t["classes"][0]
eq("trend: gen.Growth$Session first", c["class"], "gen.Growth$Session")
eq("trend: its series and slope", (c["instances"], c["instances_fit"]["slope"], c["instances_fit"]["r2"], c["grows"]),
   ([1000, 2000, 3000], 1000, 1, True))
st = next((x for x in t["classes"] if x["class"] == "gen.Growth$Stable"), None)
eq("trend: gen.Growth$Stable not flagged", st and (st["instances"], st["grows"], st["instances_fit"]["slope"]),
   ([500, 500, 500], False, 0))
p = t["paths"][0]
eq("trend: the SESSIONS path first", (path(p), p["objects"], p["objects_fit"]["slope"], p["grows"]),
   ("joint class gen.Growth SESSIONS java.util.ArrayList elementData java.lang.Object[] [] gen.Growth$Session",
    [1000, 2000, 3000], 1000, True))
PY
