#!/usr/bin/env bash
# top --group on a dump a JDK 17 writes of testdata/java/group/ (the class
# com.acme.billing.Bill defined by two URLClassLoaders, plugin-A and
# plugin-B), against the program's own figures and the JVM's histogram
# (jcmd GC.class_histogram -all, whose instances and bytes the default vm
# size model reproduces):
#  - a class object counts with its class (its package, its loader), sized
#    as its mirror: java.lang.Class's instance size M (info --json's
#    class_size, measured from the primitive types' mirrors and checked
#    against the histogram by tests/cli/jvm_sizes.sh), Bill, Line and Util
#    having no static fields;
#  - packages com.acme.billing and com.acme: exactly the histogram's
#    instances and bytes of Bill (both), Line and Util, and their class
#    objects (3 and 4 of M B);
#  - loader plugin-A: 1,000 Bills + 2,000 Lines + 300 Utils + their 3 class
#    objects, their bytes, 3 classes defined, its objects of 4 classes
#    (java.lang.Class for the class objects); plugin-B: 2,000 Bills + class
#    Bill, 1 class defined; both found by name;
#  - retained per loader counts shared objects once: A's chain of Bills
#    retains all of A's objects once and each class object itself (the
#    retained equals their shallow bytes), B's Bills each their own, and
#    B's class Bill also loader B: nothing else keeps that loader alive, so
#    the loader and what only it holds (hprofan object's retained size of
#    it, whose immediate dominator is that class object) count under B;
#  - Bill is reported as defined by both loaders.
# components (Top Components) on the same dump:
#  - both loaders listed (each retains more than 1% of the heap) with the
#    figures of top --group=loader (A's chain counted once: its top objects
#    are the chain's head, the 300 Utils and its 3 class objects, whose
#    retained sizes add up to A's); per class retained: A's Bills hold their
#    Lines, its part of java.lang.Class is its 3 class objects; Bill listed
#    under each loader with both;
#  - the loaders shown and left out are all of top --group=loader's;
#  - a top dominator's id pasted into `hprofan object` names its class.
# Skipped without a JDK (javac, java, jcmd).
. "$(dirname "$0")/../lib.sh"
for t in javac java jcmd python3; do
  command -v "$t" >/dev/null 2>&1 || { skip group-jdk "$t is absent"; exit 0; }
done
SRC=$(cd "$(dirname "$0")/../.." && pwd)/testdata/java/group
D=$TMPD/groupjdk
mkdir -p "$D"
PID=""
cleanup() { [ -n "$PID" ] && { kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null; }; }
at_exit cleanup

{ javac -d "$D/classes" "$SRC/GroupMain.java" && javac -d "$D/plugin" $(find "$SRC/plugin" -name '*.java'); } 2>"$D/javac.err" ||
  { fail group-jdk-javac "$(head -c 300 "$D/javac.err")"; exit 0; }
java -Xms64m -Xmx64m -XX:+UseSerialGC -cp "$D/classes" GroupMain "$D/plugin/" >"$D/out" 2>&1 &
PID=$!
said_ready "$D/out" "$PID" || { fail group-jdk "the JVM never said READY: $(head -c 300 "$D/out")"; exit 0; }
jcmd "$PID" GC.heap_dump -all "$D/g.hprof" >"$D/jcmd" 2>&1 && jcmd "$PID" GC.class_histogram -all >"$D/histo" 2>&1 ||
  { fail group-jdk "jcmd: $(head -c 300 "$D/jcmd")"; exit 0; }
cleanup
PID=""

"$HPROFAN" top "$D/g.hprof" --group=package --depth 3 --top 0 --json --quiet >"$D/p.json" 2>"$D/p.err" ||
  { fail group-jdk-package "$(head -c 300 "$D/p.err")"; exit 0; }
"$HPROFAN" top "$D/g.hprof" --group=loader --top 0 --json --quiet >"$D/l.json" 2>"$D/l.err" ||
  { fail group-jdk-loader "$(head -c 300 "$D/l.err")"; exit 0; }

"$HPROFAN" info "$D/g.hprof" --json --quiet >"$D/i.json" 2>"$D/i.err" ||
  { fail group-jdk-info "$(head -c 300 "$D/i.err")"; exit 0; }
loaderB=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([hex(g["loader_id"]) for g in d["groups"] if g.get("loader_name") == "plugin-B"][0])' "$D/l.json" 2>/dev/null)
"$HPROFAN" object "$D/g.hprof" "$loaderB" --json --quiet >"$D/lb.json" 2>"$D/lb.err" ||
  { fail group-jdk-object "loader plugin-B $loaderB: $(head -c 300 "$D/lb.err")"; exit 0; }
"$HPROFAN" components "$D/g.hprof" --top 0 --json --quiet >"$D/c.json" 2>"$D/c.err" ||
  { fail group-jdk-components "$(head -c 300 "$D/c.err")"; exit 0; }
"$HPROFAN" components "$D/g.hprof" --quiet >"$D/c.txt" 2>"$D/c.err" ||
  { fail group-jdk-components-text "$(head -c 300 "$D/c.err")"; exit 0; }
head_id=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([c for c in d["components"] if c.get("loader_name") == "plugin-A"][0]["top_dominators"][0]["id"])' "$D/c.json" 2>/dev/null)
"$HPROFAN" object "$D/g.hprof" "$head_id" --json --quiet >"$D/o.json" 2>"$D/o.err" || echo "object $head_id: $(head -c 200 "$D/o.err")" >"$D/o.json"

python3 - "$D" <<'EOF'
import json, re, sys
D = sys.argv[1]
def check(name, got, want):
    print(("ok group-jdk/%s" % name) if got == want else ("FAIL group-jdk/%s: got %r, want %r" % (name, got, want)))
rows = []
for line in open(D + "/histo"):
    m = re.match(r"\s*\d+:\s+(\d+)\s+(\d+)\s+(\S+)", line)
    if m:
        rows.append((m.group(3), int(m.group(1)), int(m.group(2))))
def histo(name, count=None):
    return [(c, b) for n, c, b in rows if n == name and (count is None or c == count)]
bills = histo("com.acme.billing.Bill")
check("the histogram has two Bill classes of 1,000 and 2,000", sorted(c for c, b in bills), [1000, 2000])
billA, = histo("com.acme.billing.Bill", 1000) or [(0, 0)]
billB, = histo("com.acme.billing.Bill", 2000) or [(0, 0)]
line, = histo("com.acme.billing.Line") or [(0, 0)]
util, = histo("com.acme.Util") or [(0, 0)]
check("the histogram: 2,000 Lines, 300 Utils", (line[0], util[0]), (2000, 300))
M = json.load(open(D + "/i.json"))["vm_layout"]["class_size"]
lb = json.load(open(D + "/lb.json"))
LB = lb["object"]["retained"]
check("loader plugin-B is held by its class Bill alone (its immediate dominator)",
      [(x.get("class"), x.get("class_object_of")) for x in lb["dominators"][:1]], [("java.lang.Class", "com.acme.billing.Bill")])

p = json.load(open(D + "/p.json"))
def find(gs, name):
    for g in gs:
        if g.get("package") == name:
            return g
        r = find(g.get("packages", []), name)
        if r:
            return r
    return {}
bp = find(p["groups"], "com.acme.billing")
ap = find(p["groups"], "com.acme")
check("package com.acme.billing: instances, shallow as the histogram and the class objects",
      (bp.get("classes"), bp.get("instances"), bp.get("shallow")),
      (4, billA[0] + billB[0] + line[0] + 3, billA[1] + billB[1] + line[1] + 3 * M))
check("package com.acme: instances, shallow as the histogram and the class objects",
      (ap.get("classes"), ap.get("instances"), ap.get("shallow")),
      (5, billA[0] + billB[0] + line[0] + util[0] + 4, billA[1] + billB[1] + line[1] + util[1] + 4 * M))
check("package com.acme: retained = A's objects once + B's Bills + the class objects + loader B",
      ap.get("retained"), ap.get("shallow") + LB)
check("package totals are the class table's",
      (sum(g["instances"] for g in p["groups"]), sum(g["shallow"] for g in p["groups"])),
      (p["total"]["instances"], p["total"]["shallow"]))

l = json.load(open(D + "/l.json"))
by = {g.get("loader_name"): g for g in l["groups"]}
A, B = by.get("plugin-A", {}), by.get("plugin-B", {})
shA = billA[1] + line[1] + util[1] + 3 * M
shB = billB[1] + M
check("loader plugin-A: class, defined, classes, instances, shallow, retained",
      (A.get("loader_class"), A.get("defined"), A.get("classes"), A.get("instances"), A.get("shallow"), A.get("retained")),
      ("java.net.URLClassLoader", 3, 4, 3303, shA, shA))
check("loader plugin-B: class, defined, classes, instances, shallow, retained",
      (B.get("loader_class"), B.get("defined"), B.get("classes"), B.get("instances"), B.get("shallow"), B.get("retained")),
      ("java.net.URLClassLoader", 1, 2, 2001, shB, shB + LB))
check("Bill is defined by plugin-A and plugin-B",
      [(x["class"], sorted(x["loader_ids"])) for x in l["duplicate_classes"] if x["class"].startswith("com.acme")],
      [("com.acme.billing.Bill", sorted([A.get("loader_id"), B.get("loader_id")]))])
c = json.load(open(D + "/c.json"))
cby = {g.get("loader_name"): g for g in c["components"]}
cA, cB = cby.get("plugin-A", {}), cby.get("plugin-B", {})
check("components plugin-A: defined, instances, shallow, retained",
      (cA.get("defined"), cA.get("instances"), cA.get("shallow"), cA.get("retained")), (3, 3303, shA, shA))
check("components plugin-B: defined, instances, shallow, retained",
      (cB.get("defined"), cB.get("instances"), cB.get("shallow"), cB.get("retained")), (1, 2001, shB, shB + LB))
check("components plugin-A: its top objects are the chain's head, the Utils and its class objects, adding up to its retained",
      (cA.get("top_objects"), sum(d["retained"] for d in cA.get("top_dominators", [])),
       sorted(set(d.get("class_object_of", d["class"]) for d in cA.get("top_dominators", [])))),
      (304, cA.get("retained"), ["com.acme.Util", "com.acme.billing.Bill", "com.acme.billing.Line"]))
check("components plugin-A: top classes (Bills hold their Lines; its class objects)",
      [(x["class"], x["instances"], x["shallow"], x["retained"]) for x in cA.get("top_classes", [])],
      [("com.acme.billing.Bill", 1000, billA[1], billA[1] + line[1]), ("com.acme.billing.Line", 2000, line[1], line[1]),
       ("com.acme.Util", 300, util[1], util[1]), ("java.lang.Class", 3, 3 * M, 3 * M)])
for nm, g in (("A", cA), ("B", cB)):
    check("components plugin-%s: Bill is defined by plugin-A and plugin-B" % nm,
          [(x["class"], sorted(y.get("loader_name", "-") for y in x["loaders"])) for x in g.get("duplicate_classes", [])
           if x["class"].startswith("com.acme")], [("com.acme.billing.Bill", ["plugin-A", "plugin-B"])])
check("components: shown and left out are all the loaders",
      (len(c["components"]) + c["left_out"]["components"], c["total"]["groups"],
       sum(g["instances"] for g in c["components"]) + c["left_out"]["instances"]),
      (len(l["groups"]), len(l["groups"]), l["total"]["instances"]))
check("components: each shown retains more than 1% of the heap, no one left out does",
      (all(g["retained"] * 100 > c["total"]["shallow"] for g in c["components"]),
       c["left_out"]["retained"] == sum(g["retained"] for g in l["groups"] if g["retained"] * 100 <= c["total"]["shallow"])),
      (True, True))
txt = open(D + "/c.txt").read()
check("components text: both loaders by name", ('"plugin-A"' in txt, '"plugin-B"' in txt), (True, True))
try:
    o = json.load(open(D + "/o.json"))
    got = o.get("object", o).get("class")
except Exception as e:
    got = open(D + "/o.json").read()[:200]
check("a top dominator's id pasted into `hprofan object`", got, "com.acme.billing.Bill")
check("loader totals are the class table's",
      (sum(g["instances"] for g in l["groups"]), sum(g["shallow"] for g in l["groups"])),
      (l["total"]["instances"], l["total"]["shallow"]))
EOF
