#!/usr/bin/env bash
# What a leak suspect's lambdas and inner classes capture, on a dump built
# byte by byte (tests/helper/mkhprof.py), each figure worked out by hand:
# App.HOLDERS -> Object[] (the accumulation point) -> capturing objects of
# five kinds, counted whether the reference graph says what they hold (a
# class with one reference in its whole layout) or their records are read:
#  - Bus$$Lambda$7 (one reference: arg$1): 30 to 10 Sessions, 5 to 5 Others,
#    3 null, 2 to an id the dump does not hold (left out);
#  - Bus$Handler (this$0, val$name and an int): 12 to one Bus, 12 to 3 Others;
#  - Bus$Dup (two fields named val$a): 8 references to 2 Sessions, one capture;
#  - Bus$$Lambda$8 (arg$1, below a class with a reference field ctx): 5 to
#    5 Sessions, ctx not a capture;
#  - Bus$$Lambda$9 (one reference, arg$1 null) whose 3 instances are threads
#    (START THREAD) with a Java-frame local each: a thread's locals are
#    references of the thread in the graph, never a capture.
# The same from a gzip copy and from an index.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip leaks-captures "python3 is absent"; exit 0; }
H=$(cd "$(dirname "$0")/../helper" && pwd)
D=$TMPD

python3 - "$D" "$H" <<'PY' || { fail leaks-captures-build "cannot write the test dump"; exit 0; }
import sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
D = sys.argv[1]
d = Dump()
def cls(name, super_id=0, fields=()):
    c = d.load_class(name)
    d.class_dump(c, super_id=super_id, fields=fields)
    return c
objarr = cls("[Ljava/lang/Object;")
session = cls("com.acme.Session", fields=[("id", INT)])
other = cls("com.acme.Other", fields=[("x", INT)])
bus_c = cls("com.acme.Bus", fields=[("n", INT)])
base = cls("com.acme.Base", fields=[("ctx", OBJECT)])
l7 = cls("com.acme.Bus$$Lambda$7", fields=[("arg$1", OBJECT)])
handler = cls("com.acme.Bus$Handler", fields=[("this$0", OBJECT), ("val$name", OBJECT), ("count", INT)])
dup = cls("com.acme.Bus$Dup", fields=[("val$a", OBJECT), ("val$a", OBJECT)])
l8 = cls("com.acme.Bus$$Lambda$8", super_id=base, fields=[("arg$1", OBJECT)])
l9 = cls("com.acme.Bus$$Lambda$9", fields=[("arg$1", OBJECT)])
S = [d.instance(session, [i]) for i in range(10)]
O = [d.instance(other, [i]) for i in range(5)]
bus = d.instance(bus_c, [7])
held = []
for i in range(40):
    v = S[i % 10] if i < 30 else O[i % 5] if i < 35 else 0 if i < 38 else 0xdead0
    held.append(d.instance(l7, [v]))
held += [d.instance(handler, [bus, O[i % 3], i]) for i in range(12)]
held += [d.instance(dup, [S[0], S[1]]) for _ in range(4)]
held += [d.instance(l8, [S[i], O[0]]) for i in range(5)]
for k in range(3):
    t = d.instance(l9, [0])
    d.start_thread(100 + k, t, 0, "worker-%d" % k)
    d.frame_root(d.instance(other, [100 + k]), 100 + k)
    held.append(t)
arr = d.obj_array(objarr, held)
app = d.load_class("com.acme.App")
d.class_dump(app, statics=[("HOLDERS", OBJECT, arr)])
d.root(app, kind=0x05)
d.write(D + "/capt.hprof")
PY
gzip -1 -c "$D/capt.hprof" >"$D/capt.hprof.gz"
HP() { "$HPROFAN" leaks "$@" --quiet; }
HP "$D/capt.hprof" --json --no-index >"$D/capt.json" 2>"$D/capt.err"
expect_eq "leaks-captures: leaks --json exits 0" "$?" 0
HP "$D/capt.hprof.gz" --json --no-index >"$D/gz.json" 2>"$D/gz.err"
expect_eq "leaks-captures: leaks --json of the gzip copy exits 0" "$?" 0
export HPROFAN_INDEX_DIR=$D/ix
HP "$D/capt.hprof" --json >/dev/null 2>&1
HP "$D/capt.hprof" --json >"$D/ix.json" 2>"$D/ix.err"
expect_eq "leaks-captures: leaks --json from the index exits 0" "$?" 0
unset HPROFAN_INDEX_DIR
HP "$D/capt.hprof" --no-index >"$D/capt.txt" 2>&1

python3 - "$D" <<'PY'
import json, sys
D = sys.argv[1]
def check(name, got, want):
    print(("ok leaks-captures/%s" % name) if got == want else ("FAIL leaks-captures/%s: got %r, want %r" % (name, got, want)))
want = sorted([
    ("com.acme.Bus$$Lambda$7", "arg$1", "com.acme.Session", 10, 30),
    ("com.acme.Bus$$Lambda$7", "arg$1", "com.acme.Other", 5, 5),
    ("com.acme.Bus$Handler", "this$0", "com.acme.Bus", 1, 12),
    ("com.acme.Bus$Handler", "val$name", "com.acme.Other", 3, 12),
    ("com.acme.Bus$Dup", "val$a", "com.acme.Session", 2, 8),
    ("com.acme.Bus$$Lambda$8", "arg$1", "com.acme.Session", 5, 5),
])
for tag in ("capt", "gz", "ix"):
    S = json.load(open("%s/%s.json" % (D, tag)))["suspects"]
    check("%s: one suspect, the Object[] its point" % tag,
          [(s["accumulation_point"]["class"]) for s in S], ["java.lang.Object[]"])
    cap = S[0].get("captured", []) if S else []
    check("%s: every capture, by holder, field and target, each object once" % tag,
          sorted((k["holder"], k["field"], k["class"], k["count"], k["references"]) for k in cap), want)
    check("%s: most objects first" % tag, [k["count"] for k in cap], sorted((k["count"] for k in cap), reverse=True))
PY
grep -qE '^  captured: 10 × com\.acme\.Session held through com\.acme\.Bus\$\$Lambda\$7\.arg\$1 \(30 references\)$' "$D/capt.txt" &&
  ok "leaks-captures: the table names the first capture" ||
  fail "leaks-captures: the table names the first capture" "$(head -c 1500 "$D/capt.txt")"
