#!/usr/bin/env bash
# A class object is grouped with its class, on a dump a JDK 17 writes of
# testdata/java/loader/: the URLClassLoader "webapp-A" defines
# com.shop.ShopServer, whose statics hold a HashMap of 160 byte[65536] (10
# MB) and a com.shop.Cart[100] of 100 Carts.  The figures are worked out by
# hand from the program and the JVM's layout (compressed oops, 8-byte
# alignment, which info --json reports), and the Carts' against the JVM's
# own histogram (jcmd GC.class_histogram -all):
#   Cart 12 + 4 + 8 = 24 B (100: 2,400 B), Cart[100] 16 + 400 = 416 B;
#   the map: HashMap 48 B, its table Node[256] (160 entries resize it to
#   256) 16 + 1,024 = 1,040 B, 160 HashMap$Node of 32 B, 160 Integer keys
#   (1000 and up: not the cached ones) of 16 B, 160 byte[65536] of 65,552 B:
#   10,497,088 B;
#   the class objects (mirrors): java.lang.Class's instance size M (info
#   --json's class_size, measured from the primitive types' mirrors, which
#   tests/cli/jvm_sizes.sh checks against the histogram) plus the statics:
#   class ShopServer M + 2 references of 4 B, class Cart and class Cart[] M.
# webapp-A's objects: the 100 Carts, the Cart[], the 3 class objects:
#   104 objects, 2,400 + 416 + 3 M + 8 B.  Retained, counted once: class
#   ShopServer holds the map, the Cart[] and its Carts and the Cart[] class
#   object (only the array refers to it); class Cart (the loader's list and
#   the Carts refer to it) holds itself: (M + 8) + 10,497,088 + 416 + 2,400 +
#   M + M.  The loader defines 3 classes (ShopServer, Cart, Cart[]); its
#   objects are of 3 (Cart, Cart[], and java.lang.Class for the class
#   objects).  Class ShopServer is at the top of the dominator tree (main's
#   frame and the loader's list hold it), and so is class Cart: dominators
#   --group=loader lists them under webapp-A, 2 objects of 2 M + 8 B
#   retaining all of the above.  Package com.shop and a component of
#   ^com\.shop\. hold the same objects.  Before, the class objects counted
#   as java.lang.Class's, in the bootstrap loader and package java.lang:
#   webapp-A retained 2,400 + 416 + M B, and the 10 MB were the bootstrap
#   loader's.
# Skipped without a JDK (javac, java, jcmd).  About 5 s on two cores.
. "$(dirname "$0")/../lib.sh"
for t in javac java jcmd python3; do
  command -v "$t" >/dev/null 2>&1 || { skip group-loader-jdk "$t is absent"; exit 0; }
done
SRC=$(cd "$(dirname "$0")/../.." && pwd)/testdata/java/loader
D=$TMPD/grouploader
mkdir -p "$D"
PID=""
cleanup() { [ -n "$PID" ] && { kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null; }; }
at_exit cleanup

{ javac -d "$D/classes" "$SRC/LoaderMain.java" && javac -d "$D/webapp" $(find "$SRC/webapp" -name '*.java'); } 2>"$D/javac.err" ||
  { fail group-loader-jdk-javac "$(head -c 300 "$D/javac.err")"; exit 0; }
java -Xms64m -Xmx64m -XX:+UseSerialGC -cp "$D/classes" LoaderMain "$D/webapp/" >"$D/out" 2>&1 &
PID=$!
for ((i = 0; i < 300; i++)); do
  grep -q READY "$D/out" 2>/dev/null && break
  kill -0 "$PID" 2>/dev/null || break
  sleep 0.05
done
grep -q READY "$D/out" || { fail group-loader-jdk "the JVM never said READY: $(head -c 300 "$D/out")"; exit 0; }
jcmd "$PID" GC.heap_dump -all "$D/l.hprof" >"$D/jcmd" 2>&1 && jcmd "$PID" GC.class_histogram -all >"$D/histo" 2>&1 ||
  { fail group-loader-jdk "jcmd: $(head -c 300 "$D/jcmd")"; exit 0; }
cleanup
PID=""

F=$D/l.hprof
printf 'shop ^com\\.shop\\.\n' >"$D/comp"
for run in "info:info" "l:top --group=loader" "p:top --group=package --depth 2 --top 0" "tc:top --components $D/comp" \
           "k:components --top 0" "kc:components --components $D/comp --top 0" "dl:dominators --group=loader --top 0" \
           "dp:dominators --group=package --top 0"; do
  # shellcheck disable=SC2086
  "$HPROFAN" ${run#*:} "$F" --json --quiet >"$D/${run%%:*}.json" 2>"$D/e" ||
    { fail "group-loader-jdk ${run#*:}" "$(head -c 300 "$D/e")"; exit 0; }
done

python3 - "$D" <<'EOF'
import json, re, sys
D = sys.argv[1]
def check(name, got, want):
    print(("ok group-loader-jdk/%s" % name) if got == want else ("FAIL group-loader-jdk/%s: got %r, want %r" % (name, got, want)))
def load(n):
    return json.load(open("%s/%s.json" % (D, n)))
histo = {}
for line in open(D + "/histo"):
    m = re.match(r"\s*\d+:\s+(\d+)\s+(\d+)\s+(\S+)", line)
    if m:
        histo[m.group(3)] = (int(m.group(1)), int(m.group(2)))
check("the histogram: 100 Carts of 24 B, one Cart[100] of 416 B",
      (histo.get("com.shop.Cart"), histo.get("[Lcom.shop.Cart;")), ((100, 2400), (1, 416)))
info = load("info")
vm = info["vm_layout"]
check("the layout: compressed oops, 8-byte alignment", (vm["compressed_oops"], info["size_model"]["align"]), (True, 8))
M = vm["class_size"]
carts = histo["com.shop.Cart"][1] + histo["[Lcom.shop.Cart;"][1]
MAP = 48 + (16 + 4 * 256) + 160 * 32 + 160 * 16 + 160 * (16 + 65536)
check("the map by hand", MAP, 10497088)
shallow = carts + (M + 8) + M + M
retained = (M + 8) + MAP + carts + M + M
want = ("webapp-A", 3, 3, 104, shallow, retained)

l = load("l")
A = [g for g in l["groups"] if g.get("loader_name") == "webapp-A"]
A = A[0] if A else {}
check("top --group=loader: webapp-A's classes, defined, instances, shallow, retained",
      (A.get("loader_name"), A.get("classes"), A.get("defined"), A.get("instances"), A.get("shallow"), A.get("retained")), want)
check("top --group=loader: instances and shallow add up to the class table's",
      (sum(g["instances"] for g in l["groups"]), sum(g["shallow"] for g in l["groups"])),
      (l["total"]["instances"], l["total"]["shallow"]))
def find(gs, name):
    for g in gs:
        if g.get("package") == name:
            return g
        r = find(g.get("packages", []), name)
        if r:
            return r
    return {}
p = find(load("p")["groups"], "com.shop")
check("top --group=package: com.shop", ("webapp-A", p.get("classes"), 3, p.get("instances"), p.get("shallow"), p.get("retained")), want)
tc = [g for g in load("tc")["groups"] if g["name"] == "shop"]
tc = tc[0] if tc else {}
check("top --components: shop", ("webapp-A", tc.get("classes"), 3, tc.get("instances"), tc.get("shallow"), tc.get("retained")), want)

k = [g for g in load("k")["components"] if g.get("loader_name") == "webapp-A"]
k = k[0] if k else {}
check("components: webapp-A", ("webapp-A", k.get("classes"), k.get("defined"), k.get("instances"), k.get("shallow"), k.get("retained")), want)
check("components: webapp-A's classes, its class objects' part of java.lang.Class's",
      sorted((x["class"], x["instances"], x["shallow"], x["retained"]) for x in k.get("top_classes", [])),
      sorted([("java.lang.Class", 3, 3 * M + 8, retained), ("com.shop.Cart[]", 1, 416, 416 + 2400 + M),
              ("com.shop.Cart", 100, 2400, 2400)]))
check("components: webapp-A's top objects, class ShopServer first",
      [(x.get("class_object_of"), x["retained"]) for x in k.get("top_dominators", [])],
      [("com.shop.ShopServer", retained - M), ("com.shop.Cart", M)])
boot = [g for g in load("k")["components"] if g["loader_id"] == 0]
check("components: the bootstrap loader's class objects do not hold the cache",
      [x["retained"] < MAP for g in boot for x in g["top_classes"] if x["class"] == "java.lang.Class"], [True])
kc = [g for g in load("kc")["components"] if g["name"] == "shop"]
kc = kc[0] if kc else {}
check("components --components: shop", ("webapp-A", kc.get("classes"), 3, kc.get("instances"), kc.get("shallow"), kc.get("retained")), want)

dl = [g for g in load("dl")["dominators"] if g.get("loader_name") == "webapp-A"]
dl = dl[0] if dl else {}
check("dominators --group=loader: webapp-A's top-level objects are its class objects",
      (dl.get("objects"), dl.get("shallow"), dl.get("retained")), (2, 2 * M + 8, retained))
dp = [g for g in load("dp")["dominators"] if g.get("package") == "com.shop"]
dp = dp[0] if dp else {}
check("dominators --group=package: com.shop", (dp.get("objects"), dp.get("shallow"), dp.get("retained")), (2, 2 * M + 8, retained))
EOF
