#!/usr/bin/env bash
# hprofan threads on a dump built byte by byte (tests/helper/mkhprof.py),
# every figure worked out by hand below (size model raw: an instance is its
# field bytes, references 4 bytes; an array its elements), and on the corpus:
#  - three threads: "main" (named by its Thread object's String; daemon,
#    priority and state from JDK 19's Thread.holder), "worker-2" (an older
#    Thread layout with the fields in the Thread itself, named by its START
#    THREAD record), and a thread with an empty stack and no name;
#  - frames in jstack's format with the line's special values (-1 unknown,
#    -2 compiled, -3 native) and a frame id with no STACK FRAME record;
#  - the locals under their frames (Java frame and JNI local roots), the
#    roots without a frame (native stack; a frame depth past the trace),
#    an object two frames of one thread hold (listed twice), an object two
#    threads hold (in neither's retained size), a root naming an unknown
#    thread and one naming a missing object (counted, left out);
#  - retained: under --roots=threads the Thread plus what only its stack
#    holds, under --roots=all the Thread alone; the JSON equals the text;
#  - corpus: the stacks of hprof-64.bin equal hprof-slurp's expected
#    listing frame by frame; an Android dump says its stacks are absent.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip threads "python3 is absent"; exit 0; }
H=$(cd "$(dirname "$0")/../helper" && pwd)
D=$TMPD

python3 - "$D/t.hprof" "$H" <<'PY' || { fail threads-build "cannot write the test dump"; exit 0; }
import sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
d = Dump()
obj = d.load_class("java.lang.Object"); d.class_dump(obj)
string = d.load_class("java.lang.String")
d.class_dump(string, obj, fields=[("value", OBJECT), ("hash", INT)])            # 8 bytes
thread = d.load_class("java.lang.Thread")
d.class_dump(thread, obj, fields=[("name", OBJECT), ("holder", OBJECT)])        # 8 bytes
holder = d.load_class("java.lang.Thread$FieldHolder")
d.class_dump(holder, obj, fields=[("priority", INT), ("daemon", BOOLEAN), ("threadStatus", INT)])   # 9
old = d.load_class("com.acme.OldThread")                                         # 13 bytes
d.class_dump(old, obj, fields=[("name", OBJECT), ("priority", INT), ("daemon", BOOLEAN), ("threadStatus", INT)])
item = d.load_class("com.acme.Item")
d.class_dump(item, obj, fields=[("next", OBJECT), ("payload", OBJECT)])         # 8 bytes
worker = d.load_class("com.acme.Worker")
main = d.load_class("com.acme.Main")
d.load_class("[B"); d.load_class("[C")

fwait = d.stack_frame("wait", "(J)V", "Object.java", obj, -3)
ftake = d.stack_frame("take", "()Lcom/acme/Item;", "Worker.java", worker, 42)
frun = d.stack_frame("run", "()V", "Worker.java", worker, -1)
fmain = d.stack_frame("main", "([Ljava/lang/String;)V", None, main, -2)
d.stack_trace(1, 1, [fwait, ftake, frun, fmain, 0xbad0])   # the last frame has no STACK FRAME
d.stack_trace(2, 2, [ftake])
d.stack_trace(3, 3, [])

# main: Thread 8 + String 8 + char[4] 8 + holder 9 = 33
c1 = d.prim_array(CHAR, "main".encode("utf-16-be"))
s1 = d.instance(string, [c1, 0])
h1 = d.instance(holder, [5, 0, 0x191])             # 0x191: alive, waiting indefinitely -> WAITING
t1 = d.instance(thread, [s1, h1])
# worker-2: 13 bytes, BLOCKED (0x401: alive, blocked on monitor enter), daemon
t2 = d.instance(old, [0, 10, 1, 0x401])
# the third: Thread 8, no name, no holder
t3 = d.instance(thread, [0, 0])
d.start_thread(2, t2, 2, "worker-2")
d.thread_root(t1, 1, trace=1)
d.thread_root(t2, 2, trace=2)
d.thread_root(t3, 3, trace=3)

b1 = d.prim_array(BYTE, bytes(100))
l2 = d.instance(item, [0, 0])                      # 8: held by L1 and by frame 2 itself
l1 = d.instance(item, [l2, b1])                    # 8 + byte[100] = 108
a2 = d.prim_array(BYTE, bytes(16))
j1 = d.prim_array(BYTE, bytes(7))
n1 = d.prim_array(BYTE, bytes(3))
x = d.prim_array(BYTE, bytes(50))                  # held by both threads
y = d.prim_array(BYTE, bytes(2))
z = d.prim_array(BYTE, bytes(1))
d.jni_local_root(j1, 1, 0)
d.frame_root(l1, 1, 1)
d.frame_root(l2, 1, 2)
d.frame_root(a2, 1, 2)
d.frame_root(a2, 1, 2)                             # written twice: listed once
d.frame_root(x, 1, 3)
d.native_stack_root(n1, 1)
d.frame_root(x, 2, 0)
d.frame_root(y, 2, 5)                              # past worker-2's one frame
d.frame_root(z, 99, 0)                             # no thread 99
d.frame_root(0xdead0, 1, 0)                        # no such object
d.write(sys.argv[1])
PY

# stack roots: main 6 (A2 written twice counts once), worker-2 2.
# main retains 33 + J1 7 + L1 108 + L2 8 + A2 16 + N1 3 = 175 (X is shared);
# worker-2 13 + Y 2 = 15; the third 8
cat >"$D/want" <<'W'
3 threads, 2 with a stack; retained: the Thread object's retained size (weak follow, roots threads: it counts what only its stack holds)
1 stack root naming no known thread, 1 naming objects the dump lacks (left out)

"main" serial 1 prio=5 WAITING  retained 175 B  java.lang.Thread @ID
    at java.lang.Object.wait(Native Method)
        - JNI local byte[] @ID, retained 7 B
    at com.acme.Worker.take(Worker.java:42)
        - local com.acme.Item @ID, retained 108 B
    at com.acme.Worker.run(Worker.java)
        - local com.acme.Item @ID, retained 8 B
        - local byte[] @ID, retained 16 B
    at com.acme.Main.main(Unknown Source, compiled method)
        - local byte[] @ID, retained 50 B
    at ? (frame 4: no STACK FRAME record)
    - native stack byte[] @ID, retained 3 B

"worker-2" serial 2 daemon prio=10 BLOCKED  retained 15 B  com.acme.OldThread @ID
    at com.acme.Worker.take(Worker.java:42)
        - local byte[] @ID, retained 50 B
    - local byte[] @ID, retained 2 B

(no name) serial 3  retained 8 B  java.lang.Thread @ID
    (empty stack)
W
run_hp "$D/out" "$D/err" threads "$D/t.hprof" --size-model=raw --locals --quiet
rc=$?
sed -E 's/@0x[0-9a-f]+/@ID/g' "$D/out" >"$D/got"
if [ $rc = 0 ] && cmp -s "$D/got" "$D/want"; then ok "threads --locals: stacks, locals and retained sizes as worked out"
else fail "threads --locals: stacks, locals and retained sizes as worked out" "exit $rc: $(diff "$D/want" "$D/got" | head -20) $(head -c 300 "$D/err")"; fi

# without --locals a line counts what the stack holds
run_hp "$D/out2" "$D/err" threads "$D/t.hprof" --size-model=raw --quiet
expect_eq "threads: without --locals, a count of the stack's objects" \
  "$(grep -c 'objects held by its stack' "$D/out2") $(grep -c ' - ' "$D/out2")" "2 0"
expect_eq "threads: main's count (6 objects, 1 not in a frame)" \
  "$(grep -F '(6 objects held by its stack; --locals lists them, 1 not in a frame)' "$D/out2" | wc -l | tr -d ' ')" "1"

# --roots=all: the Thread objects alone
run_hp "$D/out3" "$D/err" threads "$D/t.hprof" --size-model=raw --roots=all --quiet
expect_eq "threads --roots=all: each thread retains its Thread object only" \
  "$(grep -oE 'serial [0-9]+.*retained [0-9]+ B' "$D/out3" | sed -E 's/serial ([0-9]+).*retained ([0-9]+) B/\1:\2/' | paste -sd' ')" \
  "1:33 2:13 3:8"

# the JSON: the same figures
run_hp "$D/j" "$D/err" threads "$D/t.hprof" --size-model=raw --locals --json --quiet
expect_eq "threads --json: totals" \
  "$(jget "$D/j" '[d["total"][k] for k in ("threads", "with_stacks", "stack_roots", "orphan_roots", "missing_objects")]')" \
  "[3, 2, 8, 1, 1]"
expect_eq "threads --json: serial, name, daemon, priority, state, retained" \
  "$(jget "$D/j" '[(t["serial"], t.get("name"), t.get("daemon"), t.get("priority"), t.get("state"), t["retained"]) for t in d["threads"]]')" \
  "[(1, 'main', False, 5, 'WAITING', 175), (2, 'worker-2', True, 10, 'BLOCKED', 15), (3, None, None, None, None, 8)]"
expect_eq "threads --json: main's frames (class, method, source, line)" \
  "$(jget "$D/j" '[(f["depth"], f.get("class"), f.get("method"), f.get("signature"), f.get("source"), f.get("line")) for f in d["threads"][0]["frames"]]')" \
  "[(0, 'java.lang.Object', 'wait', '(J)V', 'Object.java', -3), (1, 'com.acme.Worker', 'take', '()Lcom/acme/Item;', 'Worker.java', 42), (2, 'com.acme.Worker', 'run', '()V', 'Worker.java', -1), (3, 'com.acme.Main', 'main', '([Ljava/lang/String;)V', None, -2), (4, None, None, None, None, None)]"
expect_eq "threads --json: main's locals by frame (root, class, shallow, retained)" \
  "$(jget "$D/j" '[[(l["root"], l["class"], l["shallow"], l["retained"]) for l in f["locals"]] for f in d["threads"][0]["frames"]] + [[(l["root"], l["retained"]) for l in d["threads"][0]["other_roots"]]]')" \
  "[[('jni_local', 'byte[]', 7, 7)], [('java_frame', 'com.acme.Item', 8, 108)], [('java_frame', 'com.acme.Item', 8, 8), ('java_frame', 'byte[]', 16, 16)], [('java_frame', 'byte[]', 50, 50)], [], [('native_stack', 3)]]"
expect_eq "threads --json: worker-2's frame past its trace is among other_roots" \
  "$(jget "$D/j" '[len(f["locals"]) for f in d["threads"][1]["frames"]] + [l["retained"] for l in d["threads"][1]["other_roots"]]')" \
  "[1, 2]"

# ---- corpus ----------------------------------------------------------------------
if have_corpus threads-corpus; then
  # hprof-slurp's "Found N threads with stacktraces" listing: "Thread K" then
  # "  at Class.method (File.java:LINE)", native frames as "(File.java:native method)"
  S64=$CORPUS/agourlay__hprof-slurp/hprof-64.bin
  EXP=$CORPUS/expected/hprof-slurp/hprof-64-result.txt
  if [ -f "$S64" ] && [ -f "$EXP" ]; then
    awk '/^Found [0-9]+ threads with stacktraces/ { on = 1; next } on && /^Found / { exit }
         on && /^  at / { print }' "$EXP" >"$D/slurp-frames"
    run_hp "$D/s64.json" "$D/err" threads "$S64" --json --quiet
    python3 - "$D/s64.json" >"$D/our-frames" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
# hprof-slurp lists the threads in serial order of their traces
for t in sorted(d["threads"], key=lambda t: t.get("trace_serial", 0)):
    for f in t["frames"]:
        line = f["line"]
        where = "native method" if line == -3 else str(line)
        print("  at %s.%s (%s:%s)" % (f["class"], f["method"], f["source"], where))
PY
    if [ -s "$D/slurp-frames" ] && cmp -s "$D/slurp-frames" "$D/our-frames"; then
      ok "threads: hprof-64.bin's stacks equal hprof-slurp's ($(wc -l <"$D/slurp-frames" | tr -d ' ') frames)"
    else fail "threads: hprof-64.bin's stacks equal hprof-slurp's" "$(diff "$D/slurp-frames" "$D/our-frames" | head -10)"; fi
  fi
  A=$CORPUS/tadfisher__platform_tools_base/dialer.android-hprof
  if [ -f "$A" ]; then
    run_hp "$D/a.out" "$D/err" threads "$A" --quiet
    if [ $? = 0 ] && grep -q 'the dump holds no stack frames' "$D/a.out" && grep -qE '^[0-9]+ threads, 0 with a stack' "$D/a.out"; then
      ok "threads: an Android dump shows its threads and says the stacks are absent"
    else fail "threads: an Android dump shows its threads and says the stacks are absent" "$(head -c 300 "$D/a.out") $(head -c 300 "$D/err")"; fi
  fi
fi
