#!/usr/bin/env bash
# ThreadLocal values in a pool, on dumps a JDK 17 writes of
# testdata/java/threadlocal/ShopServer.java: a fixed pool of 4 threads, each
# adding 1,250 AuditRecords (an object with a byte[1024]) a step to its own
# list in the ThreadLocal ShopServer.AUDIT (an ArrayList made with room for
# 2,500, so its array never grows), plus ShopServer.SCRATCH (an int[16] a
# thread); a live dump after each of the 2 steps.  What the program built,
# with compressed oops (12-byte headers, 4-byte references, 8-byte
# alignment): a list retains ArrayList 24 + Object[2500] 10,016 + records
# x (AuditRecord 24 + byte[1024] 1,040) = 1,340,040 bytes after step 0,
# 2,670,040 after step 1; SCRATCH's value 80 bytes.
#  - threads: each pool thread lists both entries, with the static field,
#    the value's class and exactly those retained sizes;
#  - leaks: one suspect, ThreadLocal ShopServer.AUDIT, naming the 4 pool
#    threads and retaining 4 x 2,670,040 bytes; no Thread suspect is left
#    beside it (they are folded into it);
#  - diff and trend: the growth is one path, "ShopServer.AUDIT in 4
#    threads", +5,000 records, +5,000 x 1,064 bytes; no path of one thread
#    grows.
# The documents validate against docs/hprofan.schema.json (with python3's
# jsonschema, when it is there).
# Skipped without a JDK (javac, java).  Takes a few seconds.
. "$(dirname "$0")/../lib.sh"
for t in javac java python3; do
  command -v "$t" >/dev/null 2>&1 || { skip threadlocal-jdk "$t is absent"; exit 0; }
done
SRC=$(cd "$(dirname "$0")/../.." && pwd)/testdata/java/threadlocal
D=$TMPD
javac -d "$D/classes" "$SRC/ShopServer.java" 2>"$D/javac.err" ||
  { fail threadlocal-jdk-javac "$(head -c 300 "$D/javac.err")"; exit 0; }
timeout 60 java -Xmx64m -XX:+UseSerialGC -XX:+UseCompressedOops -XX:TieredStopAtLevel=1 -cp "$D/classes" \
  ShopServer "$D" 2 1250 >"$D/run.out" 2>&1
if ! grep -q '^DONE' "$D/run.out"; then
  fail threadlocal-jdk "the JVM did not finish: $(head -c 300 "$D/run.out")"; exit 0
fi
A=$D/shop-0.hprof B=$D/shop-1.hprof

"$HPROFAN" threads "$B" --json --quiet >"$D/threads.json" 2>"$D/threads.err"
expect_eq "threads --json exits 0" "$?" 0
"$HPROFAN" threads "$B" --quiet >"$D/threads.txt" 2>>"$D/threads.err"
expect_eq "threads exits 0" "$?" 0
"$HPROFAN" threads "$A" --json --quiet >"$D/threads0.json" 2>>"$D/threads.err"
"$HPROFAN" leaks "$B" --json --quiet >"$D/leaks.json" 2>"$D/leaks.err"
expect_eq "leaks --json exits 0" "$?" 0
"$HPROFAN" leaks "$B" --quiet >"$D/leaks.txt" 2>>"$D/leaks.err"
"$HPROFAN" diff "$A" "$B" --json --quiet >"$D/diff.json" 2>"$D/diff.err"
expect_eq "diff --json exits 0" "$?" 0
"$HPROFAN" diff "$A" "$B" --quiet >"$D/diff.txt" 2>>"$D/diff.err"
"$HPROFAN" trend "$A" "$B" --json --quiet >"$D/trend.json" 2>"$D/trend.err"
expect_eq "trend --json exits 0" "$?" 0
"$HPROFAN" trend "$A" "$B" --quiet >"$D/trend.txt" 2>>"$D/trend.err"

python3 - "$D" "$(cd "$(dirname "$0")/../.." && pwd)/docs/hprofan.schema.json" <<'PY'
import json, re, sys
D = sys.argv[1]
def check(name, got, want):
    print(("ok threadlocal-jdk/%s" % name) if got == want else ("FAIL threadlocal-jdk/%s: got %r, want %r" % (name, got, want)))
def load(n):
    try:
        return json.load(open(D + "/" + n))
    except Exception as e:
        return {}
def lst(records):
    return 24 + (16 + 4 * 2500) + records * (24 + 16 + 1024)
POOL = ["pool-1-thread-%d" % i for i in range(1, 5)]
for doc, records in (("threads.json", 2500), ("threads0.json", 1250)):
    t = load(doc)
    got = {}
    for th in t.get("threads", []):
        if th.get("name") in POOL:
            got[th["name"]] = sorted((e.get("static_field"), (e.get("value") or {}).get("class"),
                                      (e.get("value") or {}).get("retained"), e.get("map"))
                                     for e in th.get("thread_locals", []))
    want = {n: sorted([("ShopServer.AUDIT", "java.util.ArrayList", lst(records), "threadLocals"),
                       ("ShopServer.SCRATCH", "int[]", 80, "threadLocals")]) for n in POOL}
    check("threads %s: each pool thread's two ThreadLocal values, static field, class, retained" % doc, got, want)
t = load("threads.json")
k = next((k for k in t.get("thread_locals", []) if k.get("name") == "ShopServer.AUDIT"), {})
check("threads: ShopServer.AUDIT over all threads", (k.get("threads"), k.get("values"), k.get("retained")),
      (4, 4, 4 * lst(2500)))
txt = open(D + "/threads.txt").read()
check("threads text names the static field and the value",
      len(re.findall(r"- ShopServer\.AUDIT \(java\.lang\.ThreadLocal\$SuppliedThreadLocal @0x[0-9a-f]+\): java\.util\.ArrayList @0x[0-9a-f]+, retained 2\.55 MiB", txt)), 4)

l = load("leaks.json")
ts = l.get("thread_local_suspects", [])
check("leaks: one ThreadLocal suspect, ShopServer.AUDIT, 4 threads, what the 4 lists retain",
      [(s.get("name"), s.get("thread_count"), sorted(x.get("name") for x in s.get("threads", [])), s.get("retained"),
        s.get("folded_suspects")) for s in ts],
      [("ShopServer.AUDIT", 4, POOL, 4 * lst(2500), 4)])
check("leaks: the ThreadLocal suspect accumulates the 10,000 records",
      (ts[0].get("accumulated") or {}).get("count") if ts else None, 10000)
check("leaks: no Thread suspect beside it",
      [s.get("class") for s in l.get("suspects", []) if "Thread" in s.get("class", "")], [])
lt = open(D + "/leaks.txt").read()
check("leaks text: suspect 1 is the ThreadLocal, naming the threads",
      bool(re.search(r'suspect 1: ThreadLocal ShopServer\.AUDIT .*its values in 4 threads retain 10\.2 MiB', lt)) and
      all('"%s"' % n in lt for n in POOL) and "suspect 2:" not in lt, True)

def names(path):
    return [(p.get("root", p.get("via")), p.get("object"), p.get("threads")) for p in path]
d = load("diff.json")
grown = d.get("holders", {}).get("grown", [])
check("diff: the first growth path is ShopServer.AUDIT's, +5,000 records, +5,000 x 1,064 bytes",
      [(names(g["path"]), g["delta"]["objects"], g["delta"]["retained"]) for g in grown[:1]],
      [([("thread_local", "ShopServer.AUDIT", 4), ("", "java.util.ArrayList", None), ("elementData", "java.lang.Object[]", None),
         ("[]", "ShopServer$AuditRecord", None)], 5000, 5000 * 1064)])
check("diff: no other path grows by more than 1 MiB (none a thread)",
      [names(g["path"]) for g in grown[1:] if g["delta"]["retained"] > 1 << 20], [])
dt = open(D + "/diff.txt").read()
check("diff text: one path 'ShopServer.AUDIT in 4 threads'",
      len(re.findall(r"\+5\.07 MiB +\+5,000  ShopServer\.AUDIT in 4 threads \u2192 java\.util\.ArrayList", dt)), 1)
# (a pool thread's own state, a FutureTask$WaitNode while it waits, may
# change between the dumps: only a path to the ThreadLocal's values counts)
check("diff text: no thread path to the ThreadLocal's values",
      re.findall(r'thread "pool-1-thread-\d".*(?:threadLocals|AuditRecord).*', dt), [])
tr = load("trend.json")
tp = tr.get("paths", [])
check("trend: the first path is ShopServer.AUDIT's, +5,000 records a step",
      [(names(p["path"])[0], p.get("objects")) for p in tp[:1]], [(("thread_local", "ShopServer.AUDIT", 4), [5000, 10000])])
try:
    import jsonschema
    schema = json.load(open(sys.argv[2]))
    for n in ("threads.json", "leaks.json", "diff.json", "trend.json"):
        errs = [e.message[:200] for e in jsonschema.Draft202012Validator(schema).iter_errors(load(n))]
        check("%s validates against docs/hprofan.schema.json" % n, errs, [])
except ImportError:
    print("skip threadlocal-jdk/schema: python3 has no jsonschema")
tt = open(D + "/trend.txt").read()
check("trend text: one path 'ShopServer.AUDIT in 4 threads', no thread's",
      (len(re.findall(r"ShopServer\.AUDIT in 4 threads", tt)), re.findall(r'thread "pool-1-thread-\d".*', tt)), (1, []))
PY
