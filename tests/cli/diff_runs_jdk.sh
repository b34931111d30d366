#!/usr/bin/env bash
# hprofan diff and trend across JVM runs: testdata/java/runs/ListenerService.java
# run in three JVMs (2,000, 3,000 and 4,000 lambda listeners, 500 method
# references, two proxies, reflection accessors, a serialised object,
# classes named as CGLIB, Spring, ByteBuddy, Mockito and Hibernate name
# theirs, a pool of 3 threads, a ForkJoinPool of 2 workers, a plain thread),
# the second with its generated classes made in another order and its
# pools numbered 2, so that the names made up at run time differ between
# the runs ($$Lambda$1+0x00007f… and $$Lambda$25+0x00007f…, $Proxy0 and
# $Proxy1, GeneratedMethodAccessor1 and 4, pool-1-thread-1 and
# pool-2-thread-1, Thread-0 and Thread-1, $$EnhancerByCGLIB$$1a2b3c and
# $$EnhancerByCGLIB$$9f8e7d6c, ...), each dumped with jcmd GC.heap_dump
# after jcmd GC.class_histogram (the independent truth):
#  (a) diff of runs 1 and 2: no class is new or gone; the one row of
#      shop.ListenerService$$Lambda$* is +1,000 instances and +16,000 bytes
#      (1,000 listeners of 16 bytes: a header of 12 and the captured int,
#      compressed oops), as many lambda classes on each side as the
#      histograms list; every class's instance and byte deltas, grouped by
#      a normalised name computed here, are the histograms' (int[] and
#      java.lang.Class excepted: jcmd's attach makes and drops some); the
#      growth is held at class shop.ListenerService .LISTENERS → ... →
#      shop.ListenerService$$Lambda$*, matched, +1,000 objects, +16,000
#      bytes; no holder path with a made-up name is new or gone; the
#      6 numbered threads are 3 normalised thread paths on each side; the
#      text says what was matched by normalised name and marks the row;
#  (b) trend over the three runs: the lambdas' row is +1,000 instances and
#      +16,000 bytes a step, growing at every step, and the LISTENERS path
#      is the first path, +1,000 objects a step; no class or path with a
#      made-up name is absent from some dump and present in another;
#  (c) the documents validate against docs/hprofan.schema.json (with
#      python3's jsonschema, when importable).
# Skipped without java, javac or jcmd.  Takes a few seconds.
. "$(dirname "$0")/../lib.sh"
for t in java javac jcmd python3; do
  command -v $t >/dev/null 2>&1 || { skip diff-runs-jdk "$t is absent"; exit 0; }
done
SRC=$(cd "$(dirname "$0")/../.." && pwd)
D=$TMPD
javac -d "$D/classes" "$SRC/testdata/java/runs/ListenerService.java" 2>"$D/javac.err" ||
  { fail diff-runs-jdk "javac ListenerService.java: $(head -c 300 "$D/javac.err")"; exit 0; }

# run NAME EXTRA ORDER: one JVM of the service, its histogram and its dump
# (the three run at once: most of their time is the JVMs' start and
# jcmd's attach; each ends its own JVM, which also ends itself in a minute)
run() {
  local name=$1 pid; shift
  java -Xms64m -Xmx64m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Dsun.reflect.noInflation=true \
    -cp "$D/classes" shop.ListenerService "$@" >"$D/$name.out" 2>&1 &
  pid=$!
  said_ready "$D/$name.out" "$pid" || { fail "diff-runs-jdk: $name" "the JVM never said READY: $(head -c 300 "$D/$name.out")"; kill "$pid" 2>/dev/null; return 1; }
  jcmd "$pid" GC.class_histogram >"$D/$name.histo" 2>&1 &&
    jcmd "$pid" GC.heap_dump "$D/$name.hprof" >"$D/$name.jcmd" 2>&1 ||
    { fail "diff-runs-jdk: $name" "jcmd: $(head -c 300 "$D/$name.jcmd")"; kill "$pid" 2>/dev/null; return 1; }
  kill "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  return 0
}
run r1 0 forward &
run r2 1000 reverse &
run r3 2000 forward &
wait
for r in r1 r2 r3; do [ -s "$D/$r.hprof" ] && [ -s "$D/$r.histo" ] || exit 0; done

"$HPROFAN" diff "$D/r1.hprof" "$D/r2.hprof" --top 0 --json --quiet >"$D/diff.json" 2>"$D/diff.err" ||
  fail "diff-runs-jdk: diff" "exit $?: $(head -c 300 "$D/diff.err")"
"$HPROFAN" diff "$D/r1.hprof" "$D/r2.hprof" --top 0 --quiet >"$D/diff.txt" 2>"$D/diff-txt.err" ||
  fail "diff-runs-jdk: diff (text)" "exit $?: $(head -c 300 "$D/diff-txt.err")"
"$HPROFAN" trend "$D/r1.hprof" "$D/r2.hprof" "$D/r3.hprof" --top 0 --json --quiet >"$D/trend.json" 2>"$D/trend.err" ||
  fail "diff-runs-jdk: trend" "exit $?: $(head -c 300 "$D/trend.err")"

HELPER="$(cd "$(dirname "$0")/../helper" && pwd)" python3 - "$D" "$SRC/docs/hprofan.schema.json" <<'PY'
import json, re, sys
import os
sys.path.insert(0, os.environ["HELPER"])      # tests/helper: histo.py
from histo import read_histo
D, schema_path = sys.argv[1], sys.argv[2]
def ok(n): print("ok diff-runs-jdk: " + n)
def fail(n, why): print("FAIL diff-runs-jdk: %s: %s" % (n, why))
def eq(n, got, want):
    if got == want: ok(n)
    else: fail(n, "got %r, want %r" % (got, want))
def load(name):
    try:
        return json.load(open("%s/%s" % (D, name)))
    except ValueError as e:
        fail("%s parses" % name, str(e)); sys.exit(0)

# made-up names, normalised here as the JDK and the libraries write them
# (an implementation of its own: the histograms write hidden classes with
# '/', the dumps with '+')
def norm(n):
    arr = ""
    while n.endswith("[]"):
        arr += "[]"; n = n[:-2]
    n, k = re.subn(r"\$\$Lambda(?:\$\d+(?:[+/.](?:0x[0-9a-fA-F]+|\d+))?|[+/.](?:0x[0-9a-fA-F]+|\d+))$", "$$Lambda$*", n)
    if not k:
        n = re.sub(r"[+/]0x[0-9a-fA-F]+$", "/*", n)
    n = re.sub(r"\$Proxy\d+$", "$Proxy*", n)
    n = re.sub(r"^jdk\.proxy\d+\.", "jdk.proxy*.", n)
    n = re.sub(r"(Generated(?:Serialization)?(?:Method|Constructor)Accessor)\d+$", r"\1*", n)
    n = re.sub(r"(\$\$[A-Za-z]*CGLIB\$\$)[0-9A-Za-z_]+", r"\1*", n)
    n = re.sub(r"(\$ByteBuddy\$(?:auxiliary\$)?|\$MockitoMock\$|\$HibernateProxy\$)[0-9A-Za-z]+", r"\1*", n)
    return n + arr
MADE_UP = re.compile(r"\$\$Lambda|[+/]0x|\$Proxy|Generated\w*Accessor|CGLIB|\$ByteBuddy\$|\$MockitoMock\$|"
                     r"\$HibernateProxy\$|\*|^thread \".*\d")
def histo(k):
    return read_histo("%s/%s.histo" % (D, k))
def grouped(h):
    g = {}
    for name, (n, b) in h.items():
        k = norm(name)
        c = g.get(k, (0, 0))
        g[k] = (c[0] + n, c[1] + b)
    return g
def path(e): return " ".join(("%s %s" % (s.get("via", s.get("root")), s["object"])) for s in e["path"])
def made_up(e): return any(MADE_UP.search(s["object"]) for s in e["path"])
LAMBDAS = "shop.ListenerService$$Lambda$*"
H = {k: histo(k) for k in ("r1", "r2", "r3")}
nlambda = [len([n for n in H[k] if n.startswith("shop.ListenerService$$Lambda$")]) for k in ("r1", "r2", "r3")]

# (a) diff
d = load("diff.json")
cls = d.get("classes", [])
eq("diff: no class new or gone", [(c["class"], c["status"]) for c in cls if c["status"] != "changed"], [])
eq("diff: class_counts new, gone", (d["class_counts"]["new"], d["class_counts"]["gone"]), (0, 0))
lam = next((c for c in cls if c["class"] == LAMBDAS), None)
eq("diff: the lambdas' row: +1,000 instances, +16,000 bytes, the histograms' lambda classes each side",
   lam and (lam["delta"]["instances"], lam["delta"]["shallow"], lam.get("normalised")),
   (1000, 16000, {"kinds": ["lambda"], "names": nlambda[:2]}))
ga, gb = grouped(H["r1"]), grouped(H["r2"])
mine = {}
for c in cls:
    k = norm(c["class"])
    v = mine.get(k, (0, 0))
    mine[k] = (v[0] + c["delta"]["instances"], v[1] + c["delta"]["shallow"])
bad, n = [], 0
for name in sorted(set(ga) | set(gb)):
    if name.startswith("<") or name in ("java.lang.Class", "int[]"):
        continue
    n += 1
    want = (gb.get(name, (0, 0))[0] - ga.get(name, (0, 0))[0], gb.get(name, (0, 0))[1] - ga.get(name, (0, 0))[1])
    if mine.get(name, (0, 0)) != want:
        bad.append("%s %r != %r" % (name, mine.get(name, (0, 0)), want))
if bad or n < 200:
    fail("diff: every class's delta is the histograms'", "%d classes; %s" % (n, "; ".join(bad[:8])))
else:
    ok("diff: every class's delta is the histograms' (%d classes, made-up names grouped)" % n)
g = d["holders"]["grown"]
top = g[0] if g else None
eq("diff: the growth is held at LISTENERS, matched by normalised name",
   top and (path(top), top["status"], top["delta"]["objects"], top["delta"]["retained"], "normalised" in top),
   ("joint class shop.ListenerService LISTENERS java.util.concurrent.CopyOnWriteArrayList array "
    "java.lang.Object[] [] " + LAMBDAS, "matched", 1000, 16000, True))
eq("diff: no new or gone holder path has a made-up name",
   [path(e) for k in ("grown", "new", "shrunk") for e in d["holders"][k] if e["status"] != "matched" and made_up(e)], [])
nm = d.get("normalised", {})
eq("diff: two runs seen; 3 thread paths of 6 threads each side",
   (nm.get("runs_differ"), nm.get("threads"), nm.get("thread_names")), (True, 3, [6, 6]))
txt = open(D + "/diff.txt").read()
table = txt.split("\nclasses by retained change")[1].split("\nGC roots")[0] if "\nclasses by retained change" in txt else ""
eq("diff (text): the line saying what was matched by normalised name",
   bool(re.search(r"^matched by normalised name .*: \d+ class rows .*, 3 thread paths \(6 threads in base, 6 in new\)",
                  txt, re.M)), True)
eq("diff (text): the lambdas' row marked, no [new] or [gone] row",
   ("%s  [normalised: %d \u2192 %d classes]" % (LAMBDAS, nlambda[0], nlambda[1]) in table, "[new]" in table,
    "[gone]" in table), (True, False, False))

# (b) trend
t = load("trend.json")
lam = next((c for c in t["classes"] if c["class"] == LAMBDAS), None)
steps = lambda v: [b - a for a, b in zip(v, v[1:])]
eq("trend: the lambdas +1,000 instances and +16,000 bytes a step, growing",
   lam and (steps(lam["instances"]), steps(lam["shallow"]), lam["grows"], lam.get("normalised", {}).get("names")),
   ([1000, 1000], [16000, 16000], True, nlambda))
p = t["paths"][0] if t["paths"] else None
eq("trend: the LISTENERS path first, +1,000 objects a step",
   p and (path(p), steps(p["objects"]), p["grows"]),
   ("joint class shop.ListenerService LISTENERS java.util.concurrent.CopyOnWriteArrayList array "
    "java.lang.Object[] [] " + LAMBDAS, [1000, 1000], True))
def partly(v): return 0 in v and any(v)
eq("trend: no made-up class absent from some dump and present in another",
   [c["class"] for c in t["classes"] if MADE_UP.search(c["class"]) and partly(c["instances"])], [])
eq("trend: no made-up path absent from some dump and present in another",
   [path(e) for e in t["paths"] if made_up(e) and partly(e["objects"])], [])
eq("trend: two runs seen", t.get("normalised", {}).get("runs_differ"), True)

# (c) the schema
try:
    import jsonschema
except ImportError:
    print("skip diff-runs-jdk: schema: python3's jsonschema is absent")
    sys.exit(0)
schema = json.load(open(schema_path))
for name, doc in (("diff", d), ("trend", t)):
    try:
        jsonschema.validate(doc, schema)
        ok("%s's document validates against the schema" % name)
    except jsonschema.ValidationError as e:
        fail("%s's document validates against the schema" % name, str(e).splitlines()[0])
PY
