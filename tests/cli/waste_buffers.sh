#!/usr/bin/env bash
# hprofan waste keeps buffers never written (primitive arrays of 8 elements
# or more, all zero or all one value) apart from what deduplication saves,
# and never adds them into "could save".
#
# 1. A dump built byte by byte (tests/helper/mkhprof.py; size model raw: an
#    instance is its field bytes, an array its elements; JDK 17 String:
#    value, coder, hash = 9 bytes), figures by hand:
#      Strings "dup" x3, each its own byte[3]: 36 bytes, 24 wasted;
#        eight NULs x2, each its own byte[8] of zeros (a String's value stays
#        a String): 34 bytes, 17 wasted                      -> strings 41
#      byte[16] {1..16} x4: 64 bytes, 48 wasted; byte[4] of zeros x2 (under
#        8 elements: a value): 8 bytes, 4 wasted              -> arrays 52
#      byte[32] of zeros x3 (duplicates, 96 bytes); int[8] all 0xFF808080 x2
#        and one int[16] the same (128 bytes); one long[8] of zeros (a row of
#        1, left out)                    -> never written: 6 arrays, 224 bytes
#    deduplication 41 + 52 = 93 = could save; heap 430 bytes.
#    --min-count 1: the long[8] comes in: 7 arrays, 288 bytes; could save 93.
# 2. A JDK 17 program (testdata/java/waste/WasteBuffers.java), dumped live
#    (jcmd GC.heap_dump) with its buffers and without (argument 0: the JVM's
#    own heap, subtracted): 2,000 zero-filled byte[4096] carts, 300 int[1024]
#    thumbnails all 0xFF808080, 1,000 Strings "SKU-31415" (each with its
#    byte[9]), 500 equal byte[64] that are no constant.  Array sizes (16 +
#    elements, compressed oops): byte[4096] and int[1024] 4,112 bytes,
#    byte[9] 32 (the String 24), byte[64] 80; the int[] part checked by
#    jcmd GC.class_histogram (the only int[]s added: 300, 1,233,600 bytes),
#    and hprofan's byte[] and int[] totals equal the histogram's.  Expected:
#    never written +2,300 arrays, +9,457,600 bytes (2,300 x 4,112), carts
#    and thumbnails in it and in no duplicate-array row; deduplication
#    +95,864 (999 x 56 + 499 x 80).  Skipped without a JDK.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip waste-buffers "python3 is absent"; exit 0; }
H=$(cd "$(dirname "$0")/../helper" && pwd)
D=$TMPD

python3 - "$D" "$H" <<'PY' || { fail waste-buffers-build "cannot write the test dump"; exit 0; }
import sys, struct
sys.path.insert(0, sys.argv[2])
from mkhprof import *
D = sys.argv[1]
d = Dump()
obj = d.load_class("java.lang.Object"); d.class_dump(obj)
string = d.load_class("java.lang.String")
d.class_dump(string, obj, [("value", OBJECT), ("coder", BYTE), ("hash", INT)])
keep = []
for _ in range(3): keep.append(d.instance(string, [d.prim_array(BYTE, b"dup"), 0, 0]))
for _ in range(2): keep.append(d.instance(string, [d.prim_array(BYTE, bytes(8)), 0, 0]))
for _ in range(4): keep.append(d.prim_array(BYTE, bytes(range(1, 17))))
for _ in range(2): keep.append(d.prim_array(BYTE, bytes(4)))
for _ in range(3): keep.append(d.prim_array(BYTE, bytes(32)))
for n in (8, 8, 16): keep.append(d.prim_array(INT, struct.pack(">%dI" % n, *[0xFF808080] * n)))
keep.append(d.prim_array(LONG, bytes(64)))
for k in keep:
    d.root(k)
d.write(D + "/b.hprof")
PY

summary() {   # the headline's members, then each section's count and wasted
  jget "$1" '[d["total"].get(k) for k in ("heap", "could_save", "deduplication", "other", "never_written", "never_written_arrays")] + [(s["section"], s["count"], s["wasted"]) for s in d["sections"]]'
}
if run_hp "$D/b.json" "$D/b.err" waste "$D/b.hprof" --size-model=raw --json --top 0; then
  expect_eq "waste-buffers: the headline's members and the sections (by hand)" "$(summary "$D/b.json")" \
    "[430, 93, 93, 0, 224, 6, ('strings', 5, 41), ('arrays', 6, 52), ('constant_arrays', 6, 224), ('null_slots', 0, 0), ('collections', 0, 0), ('boxes', 0, 0)]"
  expect_eq "waste-buffers: duplicate arrays are the values only" \
    "$(jget "$D/b.json" '[(r["type"], r["length"], r["count"], r["wasted"]) for r in d["sections"][1]["rows"]]')" \
    "[('byte', 16, 4, 48), ('byte', 4, 2, 4)]"
  expect_eq "waste-buffers: the buffers, whatever their duplicates" \
    "$(jget "$D/b.json" '[(r["type"], r["element"], r["count"], r["bytes"]) for r in d["sections"][2]["rows"]]')" \
    "[('int', '-8355712', 3, 128), ('byte', '0', 3, 96)]"
else
  fail "waste-buffers: waste --json" "exit $?: $(head -c 300 "$D/b.err")"
fi
run_hp "$D/m1.json" "$D/m1.err" waste "$D/b.hprof" --size-model=raw --json --min-count 1
expect_eq "waste-buffers --min-count 1: the single long[8] joins the buffers, not could save" \
  "$(jget "$D/m1.json" '(d["total"]["could_save"], d["total"].get("never_written"), d["total"].get("never_written_arrays"), d["rows_left_out"])')" "(93, 288, 7, 0)"
run_hp "$D/b.txt" "$D/b.err" waste "$D/b.hprof" --size-model=raw
expect_eq "waste-buffers: the text headline" "$(head -n 4 "$D/b.txt")" \
"could save 93 B of 430 B (21.6%), each byte counted once across the sections:
  93 B by deduplication (duplicate Strings, equal arrays that are values)
  0 B in empty and under-filled collections, mostly-null object arrays and boxes
buffers never written (all zero or one value): 6 arrays, 224 B (52.1%), saved only by allocating them later or smaller"

# 2. the JDK program
for t in javac java jcmd; do
  command -v "$t" >/dev/null 2>&1 || { skip waste-buffers-jdk "$t is absent"; exit 0; }
done
SRC=$(cd "$(dirname "$0")/../.." && pwd)/testdata/java/waste
javac -d "$D/classes" "$SRC/WasteBuffers.java" 2>"$D/javac.err" ||
  { fail waste-buffers-javac "$(head -c 300 "$D/javac.err")"; exit 0; }
PIDS=""
cleanup() { for p in $PIDS; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; }
at_exit cleanup
take() {   # take N: start the program with N, histogram, dump, stop
  java -Xms64m -Xmx64m -XX:+UseSerialGC -cp "$D/classes" WasteBuffers "$1" >"$D/out.$1" 2>&1 &
  local pid=$!
  PIDS="$PIDS $pid"
  said_ready "$D/out.$1" "$pid" && jcmd "$pid" GC.class_histogram >"$D/hist.$1" 2>&1 &&
    jcmd "$pid" GC.heap_dump "$D/j$1.hprof" >"$D/jcmd.$1" 2>&1
  kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
}
take 1 & take 0 & wait
for n in 1 0; do
  [ -s "$D/j$n.hprof" ] || { fail waste-buffers-jdk "no dump of WasteBuffers $n: $(head -c 300 "$D/out.$n" "$D/jcmd.$n" 2>&1)"; exit 0; }
  run_hp "$D/j$n.json" "$D/j$n.err" waste "$D/j$n.hprof" --json --top 0 --quiet ||
    { fail waste-buffers-jdk "waste exit $?: $(head -c 300 "$D/j$n.err")"; exit 0; }
  run_hp "$D/t$n.json" "$D/t$n.err" "$D/j$n.hprof" --json --top 0 --quiet --fast ||
    { fail waste-buffers-jdk "top exit $?: $(head -c 300 "$D/t$n.err")"; exit 0; }
done
python3 - "$D" <<'PY'
import json, sys
D = sys.argv[1]
def hist(n):
    h = {}
    for line in open("%s/hist.%s" % (D, n)):
        t = line.split()
        if len(t) >= 4 and t[0].endswith(":") and t[3] in ("[B", "[I"):
            h[t[3]] = (int(t[1]), int(t[2]))
    return h
def check(name, got, want):
    print(("ok %s" if got == want else "FAIL %s: got %r, want %r") % ((name,) if got == want else (name, got, want)))
w = {n: json.load(open("%s/j%s.json" % (D, n))) for n in "10"}
top = {}
for n in "10":
    top[n] = {c["class"]: (c["instances"], c["shallow"]) for c in json.load(open("%s/t%s.json" % (D, n)))["classes"]}
    h = hist(n)
    # jcmd GC.heap_dump, after the histogram, may allocate a few: bytes
    # compared where the counts agree
    if top[n].get("byte[]", (0, 0))[0] == h["[B"][0]:
        check("waste-buffers-jdk %s: byte[] bytes as jcmd GC.class_histogram counts them" % n, top[n]["byte[]"], h["[B"])
    else:
        print("skip waste-buffers-jdk %s: byte[] counts differ from the histogram's (%r, %r)" % (n, top[n].get("byte[]"), h["[B"]))
h1, h0 = hist(1), hist(0)
delta = lambda a, b: (a[0] - b[0], a[1] - b[1])
check("waste-buffers-jdk: int[] added, by the histogram and by hprofan (300 thumbnails of 16 + 4 x 1,024 bytes)",
      (delta(h1["[I"], h0["[I"]), delta(top["1"]["int[]"], top["0"]["int[]"])), ((300, 300 * 4112),) * 2)
T = {n: w[n]["total"] for n in "10"}
def added(k):   # what the program's objects add to total member k (None: no such member)
    a, b = T["1"].get(k), T["0"].get(k)
    return None if a is None or b is None else a - b
check("waste-buffers-jdk: buffers never written added (2,000 carts + 300 thumbnails of 4,112 bytes)",
      (added("never_written_arrays"), added("never_written")), (2300, 2300 * 4112))
check("waste-buffers-jdk: deduplication added (999 Strings of 24 + 32, 499 byte[64] of 80)",
      added("deduplication"), 999 * 56 + 499 * 80)
for n in "10":
    t, S = T[n], {s["section"]: s for s in w[n]["sections"]}
    check("waste-buffers-jdk %s: could save = deduplication + other, never written = the constant arrays" % n,
          (t["could_save"], t.get("never_written"), t.get("never_written_arrays")),
          (t.get("deduplication", 0) + t.get("other", 0), S["constant_arrays"]["wasted"], S["constant_arrays"]["count"]))
S1 = {s["section"]: s for s in w["1"]["sections"]}
S0 = {s["section"]: s for s in w["0"]["sections"]}
def crow(S, t, e):
    r = [(x["count"], x["bytes"]) for x in S["constant_arrays"]["rows"] if x["type"] == t and x["element"] == e]
    return r[0] if r else (0, 0)
c1, c0 = crow(S1, "byte", "0"), crow(S0, "byte", "0")
check("waste-buffers-jdk: the carts in the zero byte[] row", (c1[0] - c0[0], c1[1] - c0[1]), (2000, 2000 * 4112))
check("waste-buffers-jdk: the thumbnails' row", crow(S1, "int", "-8355712"), (300, 300 * 4112))
check("waste-buffers-jdk: no duplicate-array row of carts or thumbnails",
      [(r["type"], r["length"]) for r in S1["arrays"]["rows"] if (r["type"], r["length"]) in (("byte", 4096), ("int", 1024))], [])
check("waste-buffers-jdk: the byte[64] values' row",
      [(r["count"], r["wasted"]) for r in S1["arrays"]["rows"] if (r["type"], r["length"]) == ("byte", 64)], [(500, 499 * 80)])
check("waste-buffers-jdk: the Strings' row",
      [(r["count"], r["wasted"]) for r in S1["strings"]["rows"] if r["value"] == "SKU-31415"], [(1000, 999 * 56)])
PY
run_hp "$D/j1.txt" "$D/j1.err" waste "$D/j1.hprof" --quiet
expect_eq "waste-buffers-jdk: the text says the buffers apart" "$(sed -n 4p "$D/j1.txt" | grep -o '^.* arrays')" \
  "$(jget "$D/j1.json" '"buffers never written (all zero or one value): {:,} arrays".format(d["total"].get("never_written_arrays", -1))')"
