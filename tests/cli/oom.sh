#!/usr/bin/env bash
# A dump written at an OutOfMemoryError: info, leaks and report (text and
# --json) name the thread that hit it, its frames and the biggest consumers
# at that moment; a dump written otherwise claims no such thing.
#  - dumps built byte by byte (tests/helper/mkhprof.py): a thread whose stack
#    opens with java.lang.OutOfMemoryError.<init>()V, the frame HotSpot's heap
#    dumper puts on the thread that hit the error, is named with the frames
#    below it (read from a pipe too, without consumers: no retained sizes);
#    the same frame below the top, or OutOfMemoryError.<init>(String) on top
#    (a program's own `new OutOfMemoryError("...")`), claims nothing;
#  - testdata/java/oom/OomFill.java run by a JDK 17 with -Xmx16m
#    -XX:+HeapDumpOnOutOfMemoryError: its thread "oom-filler" runs out of
#    heap adding 64 KiB arrays to the static list HOARD; what the program
#    says after the error (how many arrays HOARD held, the frame of the
#    error's own stack trace) against what hprofan says: the thread, its
#    first frame (class, method, line), the list as the biggest consumer
#    retaining the arrays (their count x their size, plus the list and its
#    Object[]), held by that frame; leaks and report say the same, and the
#    report's first screen shows it (Chromium, when installed);
#  - the same program dumped by jcmd (no error): no out-of-memory claim.
# The JDK part skips without javac, java and jcmd.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip oom "python3 is absent"; exit 0; }
HERE=$(cd "$(dirname "$0")" && pwd)
HELPER=$(cd "$HERE/../helper" && pwd)
SRC=$(cd "$HERE/../.." && pwd)/testdata/java/oom
D=$TMPD/oom
rm -rf "$D"; mkdir -p "$D"

# ---- dumps built byte by byte ------------------------------------------------
python3 - "$D" "$HELPER" <<'PY' || { fail oom-dumps "cannot write the dumps"; exit 0; }
import sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
def build(path, top, below):
    """thread 1 "filler" with frames [top?, fill, run]; top: (signature) of an
    OutOfMemoryError.<init> frame on top, below: the same one under fill"""
    d = Dump()
    obj = d.load_class("java.lang.Object"); d.class_dump(obj)
    oome = d.load_class("java.lang.OutOfMemoryError"); d.class_dump(oome, obj)
    thread = d.load_class("java.lang.Thread"); d.class_dump(thread, obj, fields=[("name", OBJECT)])
    app = d.load_class("com.acme.Filler"); d.class_dump(app, obj, fields=[("big", OBJECT)])
    d.load_class("[B")
    frames = []
    if top:
        frames.append(d.stack_frame("<init>", top, "OutOfMemoryError.java", oome, 48))
    frames.append(d.stack_frame("fill", "(I)V", "Filler.java", app, 23))
    if below:
        frames.append(d.stack_frame("<init>", below, "OutOfMemoryError.java", oome, 48))
    frames.append(d.stack_frame("run", "()V", "Filler.java", app, 30))
    d.stack_trace(1, 1, frames)
    d.stack_trace(2, 2, [d.stack_frame("main", "([Ljava/lang/String;)V", "Main.java", app, 7)])
    t = d.instance(thread, [0])
    t2 = d.instance(thread, [0])
    big = d.prim_array(BYTE, bytes(5000))
    f = d.instance(app, [big])
    d.start_thread(1, t, 1, "filler")
    d.start_thread(2, t2, 2, "main")
    d.thread_root(t, 1, trace=1)
    d.thread_root(t2, 2, trace=2)
    d.frame_root(f, 1, frame=1 if top else 0)
    d.root(f)                                  # a JNI global too: the Filler hangs off the super-root
    d.frame_root(d.prim_array(BYTE, bytes(2000)), 1, frame=0)   # what only the thread's stack holds
    d.root(d.prim_array(BYTE, bytes(300)))
    d.write(path)
build(sys.argv[1] + "/marked.hprof", "()V", None)
build(sys.argv[1] + "/below.hprof", None, "()V")
build(sys.argv[1] + "/own.hprof", "(Ljava/lang/String;)V", None)
PY

"$HPROFAN" info "$D/marked.hprof" >"$D/marked.info" 2>&1
expect_eq "info on a dump with the marker exits 0" "$?" 0
expect_eq "info names the thread and its frames" \
  "$(grep -E '^out of memory: |^    at ' "$D/marked.info" | head -3)" \
  "$(printf '%s\n' 'out of memory: thread "filler" (serial 1) hit the OutOfMemoryError this dump was written at; its Thread object retains 1.98 KiB' \
    '    at com.acme.Filler.fill(Filler.java:23)' '    at com.acme.Filler.run(Filler.java:30)')"
# sizes under the mat model these dumps get (8-byte header, 4-byte ids, 16-byte
# alignment from the ids' spacing): Filler 16 + byte[5000] 5,024 = 5,040;
# the Thread 16 + the byte[2000] only its stack holds 2,016 = 2,032; byte[300] 320
expect_eq "info: the consumers: the Filler held by the thread's frame 1, then the thread" \
  "$(grep -E '^ +[0-9.]+ [KMG]?i?B +[0-9.]+%  ' "$D/marked.info" | sed -E 's/ +/ /g; s/@0x[0-9a-f]+/@ID/')" \
  "$(printf '%s\n' ' 4.92 KiB 68.0% com.acme.Filler @ID (held by its frame 1, at com.acme.Filler.fill(Filler.java:23))' \
    ' 1.98 KiB 27.4% java.lang.Thread @ID (that thread: what only its stack holds)' ' 320 B 4.3% byte[] @ID' \
    ' 16 B 0.2% java.lang.Thread @ID' ' 0 B 0.0% class java.lang.Object @ID')"
"$HPROFAN" info "$D/marked.hprof" --json >"$D/marked.json" 2>"$D/err"
expect_eq "info --json: out_of_memory's thread, frames and consumers" \
  "$(jget "$D/marked.json" '(lambda o: [o["thread"]["name"], o["thread"]["serial"], [(f["method"], f["line"]) for f in o["frames"]], [(c["class"], c["retained"], c.get("held_by_frame"), c.get("oom_thread")) for c in o["consumers"]], o["marked_threads"]])(d["out_of_memory"])')" \
  "['filler', 1, [('fill', 23), ('run', 30)], [('com.acme.Filler', 5040, 1, None), ('java.lang.Thread', 2032, None, True), ('byte[]', 320, None, None), ('java.lang.Thread', 16, None, None), ('java.lang.Class', 0, None, None)], 1]"
"$HPROFAN" info - <"$D/marked.hprof" >"$D/pipe.info" 2>&1
expect_eq "info from a pipe: the thread, no consumers" \
  "$(grep -E '^out of memory|biggest consumers' "$D/pipe.info")" \
  "$(printf '%s\n' 'out of memory: thread "filler" (serial 1) hit the OutOfMemoryError this dump was written at' \
    '  biggest consumers: not known (read from a pipe: save the dump to a file)')"
for n in below own; do
  "$HPROFAN" info "$D/$n.hprof" --json >"$D/$n.json" 2>"$D/err"
  "$HPROFAN" info "$D/$n.hprof" >"$D/$n.info" 2>&1
  "$HPROFAN" leaks "$D/$n.hprof" --json >"$D/$n.leaks.json" 2>"$D/err"
  expect_eq "$n: no out-of-memory claim (info, info --json, leaks --json)" \
    "$(grep -c 'out of memory' "$D/$n.info") $(jget "$D/$n.json" '"out_of_memory" in d') $(jget "$D/$n.leaks.json" '"out_of_memory" in d')" "0 false false"
done

# ---- a JDK that runs out of memory --------------------------------------------
for t in javac java jcmd; do
  command -v "$t" >/dev/null 2>&1 || { skip oom-jdk "$t is absent"; exit 0; }
done
PIDS=""
cleanup() { for p in $PIDS; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; }
at_exit cleanup
javac -d "$D/classes" "$SRC/OomFill.java" 2>"$D/javac.err" || { fail oom-jdk-javac "$(head -c 300 "$D/javac.err")"; exit 0; }
java -Xmx16m -XX:+UseSerialGC -XX:+HeapDumpOnOutOfMemoryError -XX:HeapDumpPath="$D/oom.hprof" \
  -cp "$D/classes" OomFill >"$D/oom.out" 2>&1
grep -q DONE "$D/oom.out" && [ -s "$D/oom.hprof" ] || { fail oom-jdk-run "no dump: $(head -c 300 "$D/oom.out")"; exit 0; }
java -Xmx64m -XX:+UseSerialGC -cp "$D/classes" OomFill hold >"$D/hold.out" 2>&1 &
pid=$!
PIDS="$PIDS $pid"
said_ready "$D/hold.out" "$pid" || { fail oom-jdk-hold "the JVM never said READY: $(head -c 300 "$D/hold.out")"; exit 0; }
jcmd "$pid" GC.heap_dump "$D/jcmd.hprof" >"$D/jcmd.out" 2>&1 || { fail oom-jdk-jcmd "$(head -c 300 "$D/jcmd.out")"; exit 0; }
kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null

"$HPROFAN" info "$D/oom.hprof" --json --quiet >"$D/oom.info.json" 2>"$D/err"
expect_eq "info --json on the JDK's dump exits 0" "$?" 0
"$HPROFAN" info "$D/oom.hprof" --quiet >"$D/oom.info" 2>"$D/err"
"$HPROFAN" leaks "$D/oom.hprof" --json --quiet >"$D/oom.leaks.json" 2>"$D/err"
expect_eq "leaks --json on the JDK's dump exits 0" "$?" 0
"$HPROFAN" leaks "$D/oom.hprof" --quiet >"$D/oom.leaks" 2>"$D/err"
"$HPROFAN" report "$D/oom.hprof" -o "$D/oom.html" --quiet 2>"$D/err"
expect_eq "report on the JDK's dump exits 0" "$?" 0
for c in info leaks; do "$REL" "$c" "$D/jcmd.hprof" --json --quiet >"$D/jcmd.$c.json"; "$REL" "$c" "$D/jcmd.hprof" --quiet >"$D/jcmd.$c"; done
"$REL" report "$D/jcmd.hprof" -o "$D/jcmd.html" --quiet

python3 - "$D" "$(cd "$HERE/../.." && pwd)/docs/hprofan.schema.json" <<'PY' || fail oom-jdk "the checks stopped (an answer lacks a member)"
import json, re, sys
D = sys.argv[1]
said = dict(l.split(" ", 1) for l in open(D + "/oom.out").read().splitlines() if " " in l and l.split(" ", 1)[0] in ("CHUNKS", "CHUNK", "AT"))
n, size = int(said["CHUNKS"]), int(said["CHUNK"])
at_cls, at_m, at_line = said["AT"].split()
def check(name, got, want):
    print(("ok oom-jdk/%s" % name) if got == want else ("FAIL oom-jdk/%s: got %r, want %r" % (name, got, want)))
def page(path):
    t = open(path).read()
    m = re.search(r'<script type="application/json" id="hprofan-data">(.*?)</script>', t, re.S)
    return json.loads(m.group(1))["dumps"][-1]
info = json.load(open(D + "/oom.info.json"))["out_of_memory"]
leaks = json.load(open(D + "/oom.leaks.json"))["out_of_memory"]
rep = page(D + "/oom.html")
check("the program filled HOARD with some arrays (%d x %d B)" % (n, size), n > 50 and size == 65536, True)
check("info: the thread", (info["thread"]["name"], info["marked_threads"]), ("oom-filler", 1))
f = info["frames"][0]
check("info: its first frame is the error's own (%s.%s line %s)" % (at_cls, at_m, at_line),
      (f["class"], f["method"], f["line"]), (at_cls, at_m, int(at_line)))
check("info: the frames up to Thread.run", (info["frames"][-1]["class"], info["frames"][-1]["method"]), ("java.lang.Thread", "run"))
c = info["consumers"][0]
# a byte[65536] is 16 + 65536 bytes (the vm model: 12-byte header, length, 8-byte alignment);
# the list 24 B and its Object[] 16 + 4 x capacity (capacity 1.5 x n at most, + 10)
low = n * (size + 16)
check("info: the biggest consumer is HOARD's ArrayList, holding %d arrays" % n,
      (c["class"], low + 24 + 16 <= c["retained"] <= low + 24 + 16 + 4 * (n * 3 // 2 + 10) + 8, c["held_by_frame"]),
      ("java.util.ArrayList", True, 1))
check("info: it is most of the reachable heap", c["percent"] > 80, True)
check("leaks --json: the same block", leaks, info)
check("report: the same block in the page's info and leaks documents", (rep["info"]["out_of_memory"], rep["leaks"]["out_of_memory"]), (info, info))
t = open(D + "/oom.info").read()
check("info text: the thread, the frame, the consumer",
      ('out of memory: thread "oom-filler"' in t, "    at %s.%s(OomFill.java:%s)" % (at_cls, at_m, at_line) in t,
       re.search(r"\d+\.\d MiB +\d+\.\d%  java\.util\.ArrayList @0x[0-9a-f]+  \(held by its frame 1", t) is not None), (True, True, True))
check("leaks text: the block before the suspects", open(D + "/oom.leaks").read().split("\n")[0].startswith('out of memory: thread "oom-filler"'), True)
for c in ("info", "leaks"):
    j = json.load(open("%s/jcmd.%s.json" % (D, c)))
    check("jcmd's dump: %s claims no out-of-memory error" % c,
          ("out_of_memory" in j, "out of memory" in open("%s/jcmd.%s" % (D, c)).read()), (False, False))
r = page(D + "/jcmd.html")
check("jcmd's dump: the report claims none", ("out_of_memory" in r["info"], "out_of_memory" in r["leaks"]), (False, False))
try:
    import jsonschema
except ImportError:
    print("skip oom-jdk/schema: python3's jsonschema module is absent")
    sys.exit(0)
schema = json.load(open(sys.argv[2]))
def valid(doc):
    try:
        jsonschema.validate(doc, schema, cls=jsonschema.Draft202012Validator)
        return True
    except jsonschema.ValidationError:
        return False
for c in ("info", "leaks"):
    doc = json.load(open("%s/oom.%s.json" % (D, c)))
    check("%s --json validates against docs/hprofan.schema.json" % c, valid(doc), True)
    doc["out_of_memory"]["consumers"][0]["retained"] = -1
    check("%s --json: a negative consumer size is refused" % c, valid(doc), False)
PY

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then skip oom-chromium "chromium not installed"; exit 0; fi
timeout 120 python3 - "$HERE" "$CHROMIUM" "$D" <<'PY' || fail oom-chromium "the driver failed"
import json, sys
sys.path.insert(0, sys.argv[1])
from cdp import Browser, CDPError
chromium, D = sys.argv[2], sys.argv[3]
def check(name, good, why=""):
    print(("ok oom-chromium/%s" % name) if good else ("FAIL oom-chromium/%s: %s" % (name, why)))
b = Browser(chromium, D + "/profile")
try:
    page = b.open("about:blank")
    b.send("Emulation.setDeviceMetricsOverride", {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False}, session=page.s)
    for name, oom in (("oom", True), ("jcmd", False)):
        b.send("Page.navigate", {"url": "file://%s/%s.html" % (D, name)}, session=page.s)
        b.wait_event("Page.loadEventFired", session=page.s)
        r = page.eval("""({ layout: window.hprofanTest.layout(),
          head: (document.querySelector('#oom h3') || {}).textContent || null,
          frame: (document.querySelector('#oom-frames li') || {}).textContent || null })""")
        box = r["layout"].get("oom")
        if oom:
            check("the out-of-memory thread on the first screen", box is not None and box["bottom"] <= 800 and
                  "\u201coom-filler\u201d" in (r["head"] or "") and (r["frame"] or "").startswith("at OomFill.fill(OomFill.java:"),
                  json.dumps(r))
        else:
            check("jcmd's dump: no out-of-memory block", box is None and r["head"] is None, json.dumps(r))
except CDPError as e:
    check("chromium", False, str(e))
finally:
    b.close()
PY
