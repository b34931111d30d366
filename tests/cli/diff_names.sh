#!/usr/bin/env bash
# hprofan diff and trend on dumps built byte by byte (tests/helper/mkhprof.py)
# whose names are made up at run time, against what was built: the static
# t.Bus.LISTENERS holds an Object[] of lambdas of two lambda classes of
# t.Bus (one int captured: 8 + 4 = 12, 16 bytes with the alignment of 16),
# t.Bus.PROXY a dynamic proxy, t.Bus.ACCESSORS two reflection accessors;
# threads main and two of a pool, each pool thread with a t.Task local.
#   run1   t.Bus$$Lambda$1+0x0000000800c01000 x 4, t.Bus$$Lambda$2+0x…c01400 x 2
#          (Object[6]: 12 + 24 = 36, 48 bytes), jdk.proxy1.$Proxy3,
#          GeneratedMethodAccessor1 and 2, pool-1-thread-1 and 2
#   run2   another run: $$Lambda$7+0x00007f0000001000 x 4, $$Lambda$8+0x… x 6
#          (Object[10]: 52, 64 bytes), $Proxy5, the same accessor names with
#          their objects swapped, pool-3-thread-1 and 2
#   run3   a third run, as JDK 21 names lambdas: $$Lambda+0x00007e…2000 x 4,
#          $$Lambda/0x00007e…2400 x 10 (read back as $$Lambda.0x…; Object[14]: 80)
#   more   run1 and, in the same JVM, a lambda class more
#          (t.Bus$$Lambda$3+0x0000000800c01800 x 1; Object[7]: 40, 48 bytes)
#          and a pool thread more (pool-1-thread-3)
# Checks:
#  (a) diff run1 run2: no class new or gone; t.Bus$$Lambda$* 6 -> 10
#      (+4, +64 bytes), holding 2 classes each side; java.lang.Object[]
#      +16 (and +80 retained, as class t.Bus); the proxy and the accessors are normalised rows too (two runs:
#      the lambdas differ both ways), unchanged so not listed; the one growth
#      point is class t.Bus .LISTENERS -> Object[] [] -> t.Bus$$Lambda$*
#      (+4 objects, +64), the array's own +16, nothing new or gone; the pool's
#      threads are one path, thread "pool-*-thread-*", 2 threads each side;
#      reachable +80; the text's line and marks;
#  (b) diff run1 more (one JVM): not two runs; only the lambdas of t.Bus
#      (2 -> 3 classes, 6 -> 7 instances) and the pool's threads (2 -> 3)
#      are normalised, the proxy and accessors keep their names;
#  (c) a dump against itself: nothing normalised, no line;
#  (d) --fast: the classes normalised the same, no paths;
#  (e) trend run1 run2 run3: t.Bus$$Lambda$* 6, 10, 14 (+4 a step, +64
#      bytes), growing, the LISTENERS path first with the same objects;
#  (f) the documents validate against docs/hprofan.schema.json (python3's
#      jsonschema, when importable).
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip diff-names "python3 is absent"; exit 0; }
H=$(cd "$(dirname "$0")/../helper" && pwd)
SRC=$(cd "$(dirname "$0")/../.." && pwd)
D=$TMPD

python3 - "$D" "$H" <<'EOF' || { fail diff-names-dumps "could not write the dumps"; exit 0; }
import sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
D = sys.argv[1]

def build(path, lambdas, proxy, accessors, pool, first_id=0x1000):
    d = Dump(first_id=first_id)
    obj = d.load_class("java.lang.Object"); d.class_dump(obj)
    string = d.load_class("java.lang.String")
    d.class_dump(string, obj, fields=[("value", OBJECT), ("hash", INT)])
    thread = d.load_class("java.lang.Thread")
    d.class_dump(thread, obj, fields=[("name", OBJECT)])
    d.load_class("[C")
    arr = d.load_class("[Ljava.lang.Object;"); d.class_dump(arr, obj)
    task = d.load_class("t.Task"); d.class_dump(task, obj, fields=[("n", INT)])
    listeners = []
    for name, n in lambdas:
        c = d.load_class(name)
        d.class_dump(c, obj, fields=[("arg$1", INT)])
        listeners += [d.instance(c, [i]) for i in range(n)]
    pc = d.load_class(proxy); d.class_dump(pc, obj, fields=[("h", OBJECT)])
    acc = []
    for name in accessors:
        c = d.load_class(name); d.class_dump(c, obj, fields=[("n", INT)])
        acc.append(d.instance(c, [len(acc)]))
    bus = d.load_class("t.Bus")
    d.class_dump(bus, obj, statics=[("LISTENERS", OBJECT, d.obj_array(arr, listeners)),
                                    ("PROXY", OBJECT, d.instance(pc, [0])),
                                    ("ACCESSORS", OBJECT, d.obj_array(arr, acc))])
    d.root(bus, kind=0x05)
    for serial, name in enumerate(["main"] + pool, 1):
        s = d.instance(string, [d.prim_array(CHAR, name.encode("utf-16-be")), 0])
        t = d.instance(thread, [s])
        d.thread_root(t, serial)
        if name != "main":
            d.frame_root(d.instance(task, [serial]), serial)
    d.write(path)

ACC = ["jdk.internal.reflect.GeneratedMethodAccessor1", "jdk.internal.reflect.GeneratedMethodAccessor2"]
build(D + "/run1.hprof", [("t.Bus$$Lambda$1+0x0000000800c01000", 4), ("t.Bus$$Lambda$2+0x0000000800c01400", 2)],
      "jdk.proxy1.$Proxy3", ACC, ["pool-1-thread-1", "pool-1-thread-2"])
build(D + "/run2.hprof", [("t.Bus$$Lambda$7+0x00007f0000001000", 4), ("t.Bus$$Lambda$8+0x00007f0000001400", 6)],
      "jdk.proxy1.$Proxy5", ACC[::-1], ["pool-3-thread-1", "pool-3-thread-2"], first_id=0x40000)
build(D + "/run3.hprof", [("t.Bus$$Lambda+0x00007e0000002000", 4), ("t.Bus$$Lambda/0x00007e0000002400", 10)],
      "jdk.proxy1.$Proxy1", ACC, ["pool-2-thread-1", "pool-2-thread-2"], first_id=0x80000)
build(D + "/more.hprof", [("t.Bus$$Lambda$1+0x0000000800c01000", 4), ("t.Bus$$Lambda$2+0x0000000800c01400", 2),
                          ("t.Bus$$Lambda$3+0x0000000800c01800", 1)],
      "jdk.proxy1.$Proxy3", ACC, ["pool-1-thread-1", "pool-1-thread-2", "pool-1-thread-3"], first_id=0x20000)
EOF

run() { local out=$1; shift; "$HPROFAN" "$@" --quiet >"$D/$out" 2>"$D/$out.err" || fail "diff-names: $*" "exit $?: $(head -c 300 "$D/$out.err")"; }
run runs.json diff "$D/run1.hprof" "$D/run2.hprof" --top 0 --json
run runs.txt diff "$D/run1.hprof" "$D/run2.hprof" --top 0
run more.json diff "$D/run1.hprof" "$D/more.hprof" --top 0 --json
run more.txt diff "$D/run1.hprof" "$D/more.hprof" --top 0
run self.json diff "$D/run1.hprof" "$D/run1.hprof" --top 0 --json
run self.txt diff "$D/run1.hprof" "$D/run1.hprof" --top 0
run fast.json diff "$D/run1.hprof" "$D/run2.hprof" --top 0 --json --fast
run trend.json trend "$D/run1.hprof" "$D/run2.hprof" "$D/run3.hprof" --top 0 --json
run trend.txt trend "$D/run1.hprof" "$D/run2.hprof" "$D/run3.hprof" --top 0

python3 - "$D" "$SRC/docs/hprofan.schema.json" <<'PY'
import json, sys
D, schema_path = sys.argv[1], sys.argv[2]
def eq(n, got, want):
    if got == want: print("ok diff-names: " + n)
    else: print("FAIL diff-names: %s: got %r, want %r" % (n, got, want))
docs = {}
for name in ("runs", "more", "self", "fast", "trend"):
    try:
        docs[name] = json.load(open("%s/%s.json" % (D, name)))
    except ValueError as e:
        print("FAIL diff-names: %s.json: %s" % (name, e)); sys.exit(0)
text = {name: open("%s/%s.txt" % (D, name)).read() for name in ("runs", "more", "self", "trend")}
def row(doc, name): return next((c for c in doc["classes"] if c["class"] == name), None)
def path(e): return " ".join(("%s %s" % (s.get("via", s.get("root")), s["object"])) for s in e["path"])
LAM = "t.Bus$$Lambda$*"
LPATH = "sticky_class class t.Bus LISTENERS java.lang.Object[] [] " + LAM

# (a) two runs
d = docs["runs"]
eq("runs: no class new or gone", [c["class"] for c in d["classes"] if c["status"] != "changed"], [])
r = row(d, LAM)
eq("runs: the lambdas one row, 6 -> 10 (+4, +64), 2 classes each side",
   r and (r["base"]["instances"], r["new"]["instances"], r["delta"]["shallow"], r.get("normalised")),
   (6, 10, 64, {"kinds": ["lambda"], "names": [2, 2]}))
eq("runs: the rows that changed (instances, shallow, retained): the lambdas, Object[] +16, and what"
   " class t.Bus retains +80",
   sorted((c["class"], c["delta"]["instances"], c["delta"]["shallow"], c["delta"]["retained"]) for c in d["classes"]),
   [("java.lang.Class", 0, 0, 80), ("java.lang.Object[]", 0, 16, 80), (LAM, 4, 64, 64)])
n = d.get("normalised") or {}
eq("runs: two runs; 3 class rows of 5 classes each side; 1 thread path of 2 threads each side",
   (n.get("runs_differ"), n.get("classes"), n.get("class_names"), n.get("threads"), n.get("thread_names"), n.get("kinds")),
   (True, 3, [5, 5], 1, [2, 2], ["lambda", "proxy", "accessor", "thread"]))
g = d["holders"]
eq("runs: the growth point: LISTENERS's lambdas +4 (+64), the array's own +16, nothing new or gone",
   ([(path(e), e["status"], e["own"], e["delta"]["objects"], e["delta"]["retained"], "normalised" in e) for e in g["grown"]],
    g["new"], g["shrunk"]),
   ([(LPATH, "matched", False, 4, 64, True),
     ("sticky_class class t.Bus LISTENERS java.lang.Object[]", "matched", True, 0, 16, False)], [], []))
eq("runs: the normalised step marked", [s.get("normalised") for s in g["grown"][0]["path"]] if g["grown"] else None,
   [None, None, True])
eq("runs: reachable +80", d["delta"]["reachable_shallow"], 80)
t = text["runs"]
eq("runs (text): the line",
   "matched by normalised name (names made up at run time): 3 class rows (5 classes in base, 5 in new; "
   "lambda, proxy, reflection accessor), 1 thread path (2 threads in base, 2 in new)" in t and
   "two runs, so every made-up name is normalised" in t, True)
eq("runs (text): the row's mark, no [new] or [gone]",
   (LAM + "  [normalised: 2 \u2192 2 classes]" in t, "[new]" in t, "[gone]" in t), (True, False, False))
eq("runs (text): the holder's mark", "\u2192 t.Bus$$Lambda$*  [normalised]" in t, True)

# (b) one JVM
d = docs["more"]
n = d.get("normalised") or {}
r = row(d, LAM)
eq("one JVM: not two runs; the lambdas 2 -> 3 classes, 6 -> 7; the pool 2 -> 3 threads",
   (n.get("runs_differ"), n.get("classes"), n.get("class_names"), n.get("threads"), n.get("thread_names"), n.get("kinds"),
    r and (r["base"]["instances"], r["new"]["instances"], r.get("normalised", {}).get("names"))),
   (False, 1, [2, 3], 1, [2, 3], ["lambda", "thread"], (6, 7, [2, 3])))
eq("one JVM: no class new or gone", [c["class"] for c in d["classes"] if c["status"] != "changed"], [])
eq("one JVM (text): two runs not said", "two runs" in text["more"], False)

# (c) against itself
n = docs["self"].get("normalised") or {}
eq("self: nothing normalised", (n.get("runs_differ"), n.get("classes"), n.get("threads"), n.get("paths"), n.get("kinds")),
   (False, 0, 0, 0, []))
eq("self (text): no line", "normalised" in text["self"], False)

# (d) --fast
d = docs["fast"]
r = row(d, LAM)
n = d.get("normalised") or {}
eq("--fast: the lambdas one row, no paths",
   (r and (r["delta"]["instances"], r["delta"]["shallow"]), [c["class"] for c in d["classes"] if c["status"] != "changed"],
    n.get("runs_differ"), n.get("classes"), n.get("threads"), n.get("paths")),
   ((4, 64), [], True, 3, 0, 0))

# (e) trend
d = docs["trend"]
r = row(d, LAM)
eq("trend: the lambdas 6, 10, 14 (+64 bytes a step), growing",
   r and (r["instances"], r["shallow"], r["grows"], r.get("normalised", {}).get("names")), ([6, 10, 14], [96, 160, 224], True, [2, 2, 2]))
p = d["paths"][0] if d["paths"] else None
eq("trend: the LISTENERS path first", p and (path(p), p["objects"], p.get("normalised", {}).get("names")), (LPATH, [6, 10, 14], [2, 2, 2]))
eq("trend: no class absent from some dump", [c["class"] for c in d["classes"] if 0 in c["instances"]], [])
eq("trend (text): the line and the mark",
   ("3 class rows (5 classes in the first dump, 5 in the last" in text["trend"],
    LAM + "  (6 \u2192 14)  [normalised: 2 \u2192 2 classes]" in text["trend"]), (True, True))

# (f) the schema
try:
    import jsonschema
except ImportError:
    print("skip diff-names: schema: python3's jsonschema is absent"); sys.exit(0)
schema = json.load(open(schema_path))
for name, doc in sorted(docs.items()):
    try:
        jsonschema.validate(doc, schema)
        print("ok diff-names: %s's document validates" % name)
    except jsonschema.ValidationError as e:
        print("FAIL diff-names: %s's document validates: %s" % (name, str(e).splitlines()[0]))
PY
