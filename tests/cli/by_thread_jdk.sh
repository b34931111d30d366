#!/usr/bin/env bash
# top --by-thread on a dump a JDK 17 writes of testdata/java/threads/DeepStack.java
# (run with -Xint, so every frame keeps its locals; see tests/cli/threads_jdk.sh):
#  - thread "deep" holds 50 arrays only in its frames, byte[1000 + 8d] for
#    d = 0..49: 50 x 1016 + 8 x (0 + ... + 49) = 60,600 bytes (array header
#    16, compressed oops).  Its row counts its Thread object's dominator
#    subtree and those arrays, so under --roots=all (where the Thread object
#    does not retain its locals) the row exceeds what `threads` says the
#    Thread object retains by exactly 60,600 bytes; under --roots=threads
#    the row is what the Thread object retains;
#  - thread "idle", whose stack holds only its Runnable and its Thread,
#    has the same row under both policies;
#  - the rows add up to the class table's total.
# Skipped without a JDK (javac, java, jcmd).
. "$(dirname "$0")/../lib.sh"
for t in javac java jcmd python3; do
  command -v "$t" >/dev/null 2>&1 || { skip by-thread-jdk "$t is absent"; exit 0; }
done
SRC=$(cd "$(dirname "$0")/../.." && pwd)/testdata/java/threads
D=$TMPD
PID=""
cleanup() { [ -n "$PID" ] && { kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null; }; }
at_exit cleanup

javac -d "$D/classes" "$SRC/DeepStack.java" 2>"$D/javac.err" ||
  { fail by-thread-jdk-javac "$(head -c 300 "$D/javac.err")"; exit 0; }
java -Xint -Xms64m -Xmx64m -XX:+UseSerialGC -cp "$D/classes" DeepStack >"$D/run.out" 2>&1 &
PID=$!
said_ready "$D/run.out" "$PID" || { fail by-thread-jdk "the JVM never said READY: $(head -c 300 "$D/run.out")"; exit 0; }
jcmd "$PID" GC.heap_dump -all "$D/deep.hprof" >"$D/jcmd.out" 2>&1 ||
  { fail by-thread-jdk "jcmd: $(head -c 300 "$D/jcmd.out")"; exit 0; }
cleanup
PID=""

for roots in threads all; do
  "$HPROFAN" top "$D/deep.hprof" --by-thread --top 0 --roots=$roots --json --quiet >"$D/b-$roots.json" 2>"$D/err" ||
    fail "by-thread-jdk --roots=$roots" "exit $?: $(head -c 300 "$D/err")"
  "$HPROFAN" threads "$D/deep.hprof" --roots=$roots --json --quiet >"$D/t-$roots.json" 2>"$D/err" ||
    fail "by-thread-jdk threads --roots=$roots" "exit $?: $(head -c 300 "$D/err")"
done
"$HPROFAN" top "$D/deep.hprof" --json --top 0 --quiet >"$D/top.json" 2>"$D/err"

python3 - "$D" <<'PY'
import json, sys
D = sys.argv[1]
L = lambda n: json.load(open(D + "/" + n))
bt, ba, tt, ta, top = L("b-threads.json"), L("b-all.json"), L("t-threads.json"), L("t-all.json"), L("top.json")
def check(name, got, want):
    print(("ok by-thread-jdk/%s" % name) if got == want else ("FAIL by-thread-jdk/%s: got %r, want %r" % (name, got, want)))
def row(doc, name):
    return next((t for t in doc["threads"] if t.get("name") == name), {})
def ret(doc, name):
    return next((t for t in doc["threads"] if t.get("name") == name), {}).get("retained")
check("deep under --roots=all: its Thread object's retained size plus the 50 arrays (60,600 bytes)",
      row(ba, "deep").get("bytes", 0) - ret(ta, "deep"), 60600)
check("deep under --roots=threads: what its Thread object retains", row(bt, "deep").get("bytes"), ret(tt, "deep"))
check("deep: the same row under both policies", row(bt, "deep").get("bytes"), row(ba, "deep").get("bytes"))
check("idle: the same row under both policies, its Thread's retained size",
      (row(bt, "idle").get("bytes"), row(ba, "idle").get("bytes")), (ret(tt, "idle"), ret(tt, "idle")))
for name, doc in (("threads", bt), ("all", ba)):
    r = doc["thread_rest"]
    check("--roots=%s: the rows add up to the class table's total" % name,
          (sum(t["objects"] for t in doc["threads"]) + r["shared_objects"] + r["unreachable_objects"],
           sum(t["bytes"] for t in doc["threads"]) + r["shared_bytes"] + r["unreachable_bytes"]),
          (top["total"]["instances"], top["total"]["shallow"]))
PY
