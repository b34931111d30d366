#!/usr/bin/env bash
# hprofan threads on a dump a JDK 17 writes of testdata/java/threads/DeepStack.java
# (run with -Xint, so every frame keeps its locals), against what the
# program built:
#  - thread "deep" (daemon, TIMED_WAITING in Thread.sleep) has 54 frames: the
#    native sleep, 50 DeepStack.down frames (lines 15, then 12), the lambda,
#    its run() and Thread.run (holding the Thread itself);
#  - --locals shows under the frame of down(d) exactly one object, its own
#    byte[1000 + 8d], with shallow = retained = 16 + 1000 + 8d bytes (array
#    header 16, compressed oops; a multiple of 8);
#  - what "deep" retains under --roots=threads exceeds what its Thread object
#    retains under --roots=all by the 50 arrays: 50 x 1016 + 8 x (0 + ... + 49)
#    = 60,600 bytes; thread "idle", whose stack holds only its Runnable and
#    its Thread (which the Thread object holds anyway), retains the same
#    under both.
# Skipped without a JDK (javac, java, jcmd).
. "$(dirname "$0")/../lib.sh"
for t in javac java jcmd python3; do
  command -v "$t" >/dev/null 2>&1 || { skip threads-jdk "$t is absent"; exit 0; }
done
SRC=$(cd "$(dirname "$0")/../.." && pwd)/testdata/java/threads
D=$TMPD
PID=""
cleanup() { [ -n "$PID" ] && { kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null; }; }
at_exit cleanup

javac -d "$D/classes" "$SRC/DeepStack.java" 2>"$D/javac.err" ||
  { fail threads-jdk-javac "$(head -c 300 "$D/javac.err")"; exit 0; }
java -Xint -Xms64m -Xmx64m -XX:+UseSerialGC -cp "$D/classes" DeepStack >"$D/run.out" 2>&1 &
PID=$!
said_ready "$D/run.out" "$PID" || { fail threads-jdk "the JVM never said READY: $(head -c 300 "$D/run.out")"; exit 0; }
jcmd "$PID" GC.heap_dump -all "$D/deep.hprof" >"$D/jcmd.out" 2>&1 ||
  { fail threads-jdk "jcmd: $(head -c 300 "$D/jcmd.out")"; exit 0; }
cleanup
PID=""

"$HPROFAN" threads "$D/deep.hprof" --locals --json --quiet >"$D/t.json" 2>"$D/t.err"
expect_eq "threads on the JDK dump exits 0" "$?" 0
"$HPROFAN" threads "$D/deep.hprof" --roots=all --json --quiet >"$D/all.json" 2>"$D/all.err"
expect_eq "threads --roots=all on the JDK dump exits 0" "$?" 0

python3 - "$D" <<'PY'
import json, sys
D = sys.argv[1]
j = json.load(open(D + "/t.json"))
a = json.load(open(D + "/all.json"))
def check(name, got, want):
    print(("ok threads-jdk/%s" % name) if got == want else ("FAIL threads-jdk/%s: got %r, want %r" % (name, got, want)))
def thread(doc, name):
    return next((t for t in doc["threads"] if t.get("name") == name), {})
deep, idle = thread(j, "deep"), thread(j, "idle")
fr = deep.get("frames", [])
check("deep: daemon, state", (deep.get("daemon"), deep.get("state")), (True, "TIMED_WAITING"))
check("deep: 54 frames, the native sleep on top",
      (len(fr), fr[0].get("class") if fr else None, fr[0].get("method") if fr else None, fr[0].get("line") if fr else None),
      (54, "java.lang.Thread", "sleep", -3))
check("deep: 50 frames of DeepStack.down, lines 15 then 12",
      [(f.get("class"), f.get("method"), f.get("source"), f.get("line")) for f in fr[1:51]],
      [("DeepStack", "down", "DeepStack.java", 15)] + [("DeepStack", "down", "DeepStack.java", 12)] * 49)
# frame i (1..50) is down(50 - i)
got = [[(l["class"], l["shallow"], l["retained"]) for l in f.get("locals", [])] for f in fr[1:51]]
want = [[("byte[]", 1016 + 8 * (50 - i), 1016 + 8 * (50 - i))] for i in range(1, 51)]
check("deep --locals: each down(d) frame holds its own byte[1000 + 8d], retained exactly", got, want)
check("deep: the sleep frame and the thread's other roots hold nothing",
      (fr[0].get("locals") if fr else None, deep.get("other_roots")), ([], []))
check("deep: Thread.run's frame holds the Thread itself",
      [(f.get("class"), f.get("method"), [l["id"] for l in f.get("locals", [])]) for f in fr[53:]],
      [("java.lang.Thread", "run", [deep.get("object", {}).get("id")])])
check("deep retains its Thread object plus the 50 arrays (60,600 bytes)",
      deep.get("retained", 0) - thread(a, "deep").get("retained", 0), 60600)
check("idle: a stack holding only its Runnable and Thread retains the same under both policies",
      (idle.get("stack_roots"), idle.get("retained") == thread(a, "idle").get("retained")), (2, True))
check("main: alive, not a daemon", (thread(j, "main").get("daemon"), thread(j, "main").get("state")), (False, "TIMED_WAITING"))
PY
