#!/usr/bin/env bash
# hprofan leaks on dumps a JDK 17 writes of testdata/java/leaks/ (stand-in
# classes android.app.Activity and android.app.Fragment with the real
# fields), against what the program built and the JVM's own histogram
# (jcmd GC.class_histogram -all):
#  - the static listener list that only grows is suspect #1, accumulated in
#    its Object[] 2 steps down: 20,000 x LeakyActivities$Listener (the
#    histogram's count), held by class LeakyActivities;
#  - the destroyed MainActivity held through Callback.this$0 is the one
#    zombie, with its full trace: the class LeakyActivities NOT LEAKING, the
#    static sCallback and this$0 the references to cut, Callback UNKNOWN;
#  - the live Activity and the attached Fragment are NOT LEAKING, the
#    destroyed Activity only a WeakReference holds is not reported;
#  - the same program without the leaks ("clean") reports no zombie and
#    --fail-on-leak exits 0 on it, 5 on the leaky one.
# Skipped without a JDK (javac, java, jcmd).
. "$(dirname "$0")/../lib.sh"
for t in javac java jcmd python3; do
  command -v "$t" >/dev/null 2>&1 || { skip leaks-jdk "$t is absent"; exit 0; }
done
SRC=$(cd "$(dirname "$0")/../.." && pwd)/testdata/java/leaks
D=$TMPD
PIDS=""
cleanup() { for p in $PIDS; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; }
at_exit cleanup

javac -d "$D/classes" $(find "$SRC" -name '*.java') 2>"$D/javac.err" ||
  { fail leaks-jdk-javac "$(head -c 300 "$D/javac.err")"; exit 0; }

# dump NAME ARGS...: runs the program, dumps every object (-all: no GC first,
# so the weakly held Activity is still there) and takes the histogram
dump() {
  local name=$1; shift
  # a heap large enough that no collection runs after the program's own
  java -Xms256m -Xmx256m -XX:+UseSerialGC -cp "$D/classes" LeakyActivities "$@" >"$D/$name.out" 2>&1 &
  local pid=$! i
  PIDS="$PIDS $pid"
  said_ready "$D/$name.out" "$pid" || { fail "leaks-jdk-$name" "the JVM never said READY: $(head -c 300 "$D/$name.out")"; return 1; }
  jcmd "$pid" GC.heap_dump -all "$D/$name.hprof" >"$D/$name.jcmd" 2>&1 &&
    jcmd "$pid" GC.class_histogram -all >"$D/$name.histo" 2>&1 ||
    { fail "leaks-jdk-$name" "jcmd: $(head -c 300 "$D/$name.jcmd")"; return 1; }
  kill "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  return 0
}
dump leaky || exit 0
dump clean clean || exit 0

"$HPROFAN" leaks "$D/leaky.hprof" --json --quiet >"$D/leaky.json" 2>"$D/leaky.err"
expect_eq "leaks on the JDK dump exits 0" "$?" 0
"$HPROFAN" leaks "$D/leaky.hprof" --quiet --fail-on-leak >"$D/leaky.txt" 2>&1
expect_eq "--fail-on-leak on the leaky JDK dump exits 5" "$?" 5
"$HPROFAN" leaks "$D/clean.hprof" --json --quiet --fail-on-leak >"$D/clean.json" 2>"$D/clean.err"
expect_eq "--fail-on-leak on the clean JDK dump exits 0" "$?" 0

python3 - "$D" <<'EOF'
import json, re, sys
D = sys.argv[1]
j = json.load(open(D + "/leaky.json"))
c = json.load(open(D + "/clean.json"))
def check(name, got, want):
    print(("ok leaks-jdk/%s" % name) if got == want else ("FAIL leaks-jdk/%s: got %r, want %r" % (name, got, want)))
def histo(path, cls):
    for line in open(path):
        m = re.match(r"\s*\d+:\s+(\d+)\s+(\d+)\s+(\S+)", line)
        if m and m.group(3) == cls:
            return int(m.group(1))
    return 0

s = j["suspects"][0] if j["suspects"] else {}
check("suspect #1 is the class holding the list", (s.get("kind"), s.get("object", {}).get("class_object_of")),
      ("object", "LeakyActivities"))
check("accumulation point: the list's Object[], 2 steps down",
      (s.get("accumulation_point", {}).get("class"), s.get("accumulation_point", {}).get("depth"),
       [t.get("via", {}).get("name") for t in s.get("trace", [])][-2:]),
      ("java.lang.Object[]", 2, ["LISTENERS", "elementData"]))
check("accumulated: the Listeners, as many as the JVM's histogram counts",
      (s.get("accumulated", {}).get("class"), s.get("accumulated", {}).get("count")),
      ("LeakyActivities$Listener", histo(D + "/leaky.histo", "LeakyActivities$Listener")))
check("the JVM counted 20,000 Listeners", histo(D + "/leaky.histo", "LeakyActivities$Listener"), 20000)
check("held by class LeakyActivities", s.get("held_by", {}).get("class_object_of"), "LeakyActivities")

Z = j["zombies"]
check("one zombie: the destroyed MainActivity", [(z["class"], z["reasons"]) for z in Z],
      [("LeakyActivities$MainActivity", ["Activity#mDestroyed is true"])])
if Z:
    t = Z[0]["trace"]
    tail = [(x.get("class_object_of", x["class"]), x["status"], x["reasons"], x.get("cut"),
             x.get("via", {}).get("name")) for x in t[-3:]]
    check("the trace's last three steps, node by node", tail, [
        ("LeakyActivities", "not_leaking", ["a class is never leaking"], False, "appClass"),
        ("LeakyActivities$MainActivity$Callback", "unknown", [], True, "sCallback"),
        ("LeakyActivities$MainActivity", "leaking", ["Activity#mDestroyed is true"], True, "this$0")])
    check("every step above the class is not leaking", all(x["status"] == "not_leaking" for x in t[:-2]), True)
    check("the zombie retains its 100,000-byte state", Z[0]["retained"] >= 100000, True)
ins = sorted((i["class"], i["status"]) for i in j["inspected"])
check("the rules looked at both MainActivities (the JVM's count), the live one and the Fragment", ins, sorted(
    [("LeakyActivities$MainActivity", "leaking")] * histo(D + "/leaky.histo", "LeakyActivities$MainActivity") +
    [("LeakyActivities$LiveActivity", "not_leaking"), ("android.app.Fragment", "not_leaking")]))
check("the weakly held MainActivity is not reported", (j["not_strongly_reachable_zombies"], j["nested_zombies"]), (1, 0))
check("no zombie without the leaks", (len(c["zombies"]), c["not_strongly_reachable_zombies"],
      sorted(i["status"] for i in c["inspected"])), (0, 0, ["not_leaking", "not_leaking"]))
EOF
if grep -qF '╰→ LeakyActivities$MainActivity @' "$D/leaky.txt" && grep -qF 'LEAKING (Activity#mDestroyed is true)' "$D/leaky.txt"; then
  ok "leaks-jdk: the table draws the trace"
else fail "leaks-jdk: the table draws the trace" "$(head -c 1500 "$D/leaky.txt")"; fi
