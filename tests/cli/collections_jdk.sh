#!/usr/bin/env bash
# Leak suspects in the user's terms and collection sizes, on a dump a JDK 17
# writes of testdata/java/collections/ (Shop), against what the program's
# own size() calls printed and the JVM's histogram (jcmd GC.class_histogram):
#  - the static HashMap of 10,000 String -> byte[] entries: a suspect whose
#    collection is that HashMap "with 10,000 entries", and whose retained
#    set by class is 10,000 HashMap$Node, 10,000 String, 20,000 byte[] (the
#    whole set, not the table's direct children);
#  - the CopyOnWriteArrayList of 15,000 lambda listeners: "of 15,000
#    elements", the 15,000 CheckoutSession (the histogram's count) named as
#    captured through CheckoutSession$$Lambda...arg$1;
#  - every JDK and Android collection of Shop$Zoo: object and instances show
#    the size its size() gave (a ConcurrentHashMap filled by four threads at
#    once, an ArrayDeque wrapped around, a SparseArray with deleted entries).
# Skipped without a JDK (javac, java, jcmd).
. "$(dirname "$0")/../lib.sh"
for t in javac java jcmd python3; do
  command -v "$t" >/dev/null 2>&1 || { skip collections-jdk "$t is absent"; exit 0; }
done
SRC=$(cd "$(dirname "$0")/../.." && pwd)/testdata/java/collections
D=$TMPD
PID=""
cleanup() { [ -n "$PID" ] && { kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null; }; }
at_exit cleanup

javac -d "$D/classes" $(find "$SRC" -name '*.java') 2>"$D/javac.err" ||
  { fail collections-jdk-javac "$(head -c 300 "$D/javac.err")"; exit 0; }
java -Xmx256m -XX:+UseSerialGC -cp "$D/classes" Shop >"$D/shop.out" 2>&1 &
PID=$!
said_ready "$D/shop.out" "$PID" || { fail collections-jdk "the JVM never said READY: $(head -c 300 "$D/shop.out")"; exit 0; }
jcmd "$PID" GC.heap_dump "$D/shop.hprof" >"$D/jcmd.out" 2>&1 &&
  jcmd "$PID" GC.class_histogram >"$D/shop.histo" 2>&1 ||
  { fail collections-jdk "jcmd: $(head -c 300 "$D/jcmd.out")"; exit 0; }
cleanup
PID=""

"$HPROFAN" leaks "$D/shop.hprof" --json --quiet >"$D/leaks.json" 2>"$D/leaks.err"
expect_eq "leaks on the JDK dump exits 0" "$?" 0
"$HPROFAN" leaks "$D/shop.hprof" --quiet >"$D/leaks.txt" 2>&1

# the Zoo's collections: their ids from the class's statics, then object
# and instances of each (the release binary: many runs, no hostile input)
"$REL" instances "$D/shop.hprof" 'Shop$Zoo' --json --quiet >"$D/zoo.json" 2>&1
ZOO=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["class_objects"][0])' "$D/zoo.json")
"$REL" object "$D/shop.hprof" "$ZOO" --json --quiet >"$D/zoo-object.json" 2>&1
python3 - "$D" >"$D/zoo.list" <<'EOF2'
import json, sys
d = json.load(open(sys.argv[1] + "/zoo-object.json"))
for s in d["object"]["statics"]:
    if s.get("object"):
        print(s["name"], s["value"], s["object"]["class"])
EOF2
while read -r name id cls; do
  "$REL" object "$D/shop.hprof" "$id" --json --quiet >"$D/obj-$name.json" 2>&1
  "$REL" object "$D/shop.hprof" "$id" --quiet >"$D/obj-$name.txt" 2>&1
done <"$D/zoo.list"
for cls in $(awk '{print $3}' "$D/zoo.list" | sort -u); do
  "$REL" instances "$D/shop.hprof" "$cls" --top 0 --json --quiet >"$D/inst-$cls.json" 2>&1
done

python3 - "$D" <<'EOF2'
import json, re, sys
D = sys.argv[1]
def check(name, got, want):
    print(("ok collections-jdk/%s" % name) if got == want else ("FAIL collections-jdk/%s: got %r, want %r" % (name, got, want)))
def histo(cls):
    for line in open(D + "/shop.histo"):
        m = re.match(r"\s*\d+:\s+(\d+)\s+(\d+)\s+(\S+)", line)
        if m and m.group(3) == cls:
            return int(m.group(1))
    return 0
sizes = {}
for line in open(D + "/shop.out"):
    if line.startswith("SIZE "):
        _, f, n = line.split()
        sizes[f] = int(n)
j = json.load(open(D + "/leaks.json"))
S = {(s.get("collection") or {}).get("collection"): s for s in j["suspects"]}
check("two suspects: the HashMap's and the CopyOnWriteArrayList's", sorted(k for k in S if k),
      ["java.util.HashMap", "java.util.concurrent.CopyOnWriteArrayList"])
m = S.get("java.util.HashMap", {})
c = m.get("collection") or {}
check("the HashMap suspect: Shop's static CACHE, the size its size() gave",
      (m.get("object", {}).get("class_object_of"), c.get("size"), c.get("map"), [t.get("via", {}).get("name") for t in m.get("trace", [])][-2:]),
      ("Shop", sizes["CACHE"], True, ["CACHE", "table"]))
rows = {r["class"]: r["count"] for r in m.get("accumulated_by_class", {}).get("rows", [])}
check("its retained set by class: 10,000 Node, 10,000 String, 20,000 byte[] and the table",
      rows, {"java.util.HashMap$Node": 10000, "java.lang.String": 10000, "byte[]": 20000, "java.util.HashMap$Node[]": 1})
check("the set's objects and bytes: the accumulation point's",
      (m.get("accumulated_by_class", {}).get("objects"), m.get("accumulated_by_class", {}).get("shallow")),
      (40001, m.get("accumulation_point", {}).get("retained")))
b = S.get("java.util.concurrent.CopyOnWriteArrayList", {})
c = b.get("collection") or {}
check("the listener suspect: the bus's list, of the 15,000 listeners size() counts",
      (b.get("object", {}).get("class"), c.get("size"), c.get("map")), ("Shop$Bus", sizes["listeners"], False))
cap = b.get("captured", [])
lam = [k for k in (b.get("accumulated_by_class", {}).get("rows") or []) if k["class"].startswith("CheckoutSession$$Lambda")]
check("captured: 15,000 CheckoutSession (the JVM's count) through the lambda's arg$1",
      [(k["class"], k["count"], k["holder"].startswith("CheckoutSession$$Lambda"), k["field"]) for k in cap][:1],
      [("CheckoutSession", histo("CheckoutSession"), True, "arg$1")])
check("the JVM counted 15,000 sessions and 15,000 lambdas",
      (histo("CheckoutSession"), sum(int(re.match(r"\s*\d+:\s+(\d+)", l).group(1)) for l in open(D + "/shop.histo") if "CheckoutSession$$Lambda" in l)),
      (15000, 15000))
check("the lambdas in the set: as many as the JVM's", [k["count"] for k in lam], [15000])

zoo = [l.split() for l in open(D + "/zoo.list")]
got_obj, got_inst, want = {}, {}, {}
for name, oid, cls in zoo:
    if name not in sizes:
        continue
    want[name] = sizes[name]
    o = json.load(open("%s/obj-%s.json" % (D, name)))["object"]
    got_obj[name] = o.get("size")
    inst = json.load(open("%s/inst-%s.json" % (D, cls)))
    got_inst[name] = [e.get("size") for e in inst["instances"] if e["id"] == oid]
    got_inst[name] = got_inst[name][0] if got_inst[name] else "absent"
check("object shows every collection's size as its size() did", got_obj, want)
check("instances shows the same sizes", got_inst, want)
check("every collection the issue names is among them", len(want), 23)
EOF2
grep -qF "collection: java.util.HashMap @" "$D/leaks.txt" && grep -qF " with 10,000 entries" "$D/leaks.txt" &&
  grep -qE '^ +10,000 × java\.util\.HashMap\$Node: ' "$D/leaks.txt" && grep -qE '^ +20,000 × byte\[\]: ' "$D/leaks.txt" &&
  grep -qF "of 15,000 elements" "$D/leaks.txt" &&
  grep -qE '^  captured: 15,000 × CheckoutSession held through CheckoutSession\$\$Lambda\S*\.arg\$1$' "$D/leaks.txt" &&
  ok "collections-jdk: the table says what the suspects hold" ||
  fail "collections-jdk: the table says what the suspects hold" "$(head -c 2500 "$D/leaks.txt")"
grep -qE '^  size      3,108 entries \(java\.util\.concurrent\.ConcurrentHashMap\)$' "$D/obj-concurrentHashMap.txt" &&
  ok "collections-jdk: object's table gives a ConcurrentHashMap's size" ||
  fail "collections-jdk: object's table gives a ConcurrentHashMap's size" "$(head -c 600 "$D/obj-concurrentHashMap.txt")"
# sql's map_get, list_get and size on every collection of Shop$Zoo: the
# values the program put under each key, in the order the collection keeps
# them (the ArrayDeque from its head: 10..13 then 0..61); a key or index
# past the end is NULL
Q() { "$HPROFAN" sql "$D/shop.hprof" --csv --quiet "WITH z(id) AS (SELECT id FROM classes WHERE name = 'Shop\$Zoo') SELECT $1 FROM z" 2>&1 | tail -n +2 | tr -d "\r"; }
f() { printf "field(z.id, '%s')" "$1"; }
got=$(Q "str(map_get($(f hashMap), 17)), str(map_get($(f linkedHashMap), 44)), str(map_get($(f concurrentHashMap), 30776)),
  str(map_get($(f hashtable), 54)), str(map_get($(f properties), 'p3')), str(map_get($(f weakHashMap), 1043)),
  str(map_get($(f identityHashMap), 2032)), str(map_get($(f treeMap), 221)), str(map_get($(f arrayMap), 20)),
  str(map_get($(f sparseArray), 5)), str(map_get($(f longSparseArray), 8))")
expect_eq "sql map_get: each map's value under a key the program put" "$got" "h17,l44,c,t54,v,w,i,r,v20,s5,l8"
got=$(Q "map_get($(f hashMap), 123) IS NULL, map_get($(f concurrentHashMap), 777) IS NULL, map_get($(f treeMap), -1) IS NULL,
  map_get($(f sparseArray), 1) IS NULL, map_get($(f emptyMap), 0) IS NULL, map_get($(f hashMap), '17') IS NULL,
  map_get($(f arrayList), 1) IS NULL")
expect_eq "sql map_get: absent keys, a deleted SparseArray entry, a String for an Integer key, a list: NULL" "$got" "1,1,1,1,1,1,1"
v() { printf "field(list_get(%s, %s), 'value')" "$(f "$1")" "$2"; }
got=$(Q "$(v arrayList 332), $(v vector 98), $(v copyOnWriteArrayList 16), $(v linkedList 76), $(v priorityQueue 0),
  $(v arrayDeque 0), $(v arrayDeque 4), $(v arrayDeque 65), $(v treeSet 5), $(v copyOnWriteArraySet 6),
  str(list_get($(f arraySet), 12))")
expect_eq "sql list_get: the element at each index, in the collection's order" "$got" "332,98,16,76,0,10,0,61,5,6,e12"
got=$(Q "list_get($(f arrayList), 333) IS NULL, list_get($(f arrayDeque), 66) IS NULL, list_get($(f hashSet), 111) IS NULL,
  list_get($(f hashSet), 110) IS NOT NULL, list_get($(f arrayList), -1) IS NULL, list_get($(f hashMap), 0) IS NULL")
expect_eq "sql list_get: past the end, negative, a map: NULL; a set's last element is there" "$got" "1,1,1,1,1,1"
# every element of the 111-element HashSet once: the values 0..110
got=$("$HPROFAN" sql "$D/shop.hprof" --csv --quiet "WITH RECURSIVE z(id) AS (SELECT field(id, 'hashSet') FROM classes WHERE name = 'Shop\$Zoo'),
  n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 120),
  e(v) AS (SELECT field(list_get(z.id, n.i), 'value') FROM z, n)
  SELECT count(v), count(DISTINCT v), sum(v), min(v), max(v) FROM e" 2>&1 | tail -n +2 | tr -d "\r")
expect_eq "sql list_get: a HashSet's 111 elements, each once" "$got" "111,111,6105,0,110"
# sql's entries(ID): as many rows as each collection's size() printed
# (Shop's CACHE too), a map's keys and values as the program put them, a
# SparseArray's int keys without its deleted ones
python3 - "$HPROFAN" "$D" <<'EOF2'
import subprocess, sys
hp, d = sys.argv[1:3]
def one(q):
    r = subprocess.run([hp, 'sql', d + '/shop.hprof', '--csv', '--quiet', q], capture_output=True, text=True)
    if r.returncode: return 'exit %d: %s' % (r.returncode, r.stderr[:200])
    return r.stdout.splitlines()[1].strip()
sizes = {l.split()[1]: int(l.split()[2]) for l in open(d + '/shop.out') if l.startswith('SIZE ')}
def check(what, got, want):
    print(('ok' if got == want else 'FAIL') + ' collections-jdk: sql entries(): %s%s' % (what, '' if got == want else ': got %r, want %r' % (got, want)))
Z = "(SELECT id FROM classes WHERE name = 'Shop$Zoo')"
names = [n for n in sizes if n not in ('CACHE', 'listeners')]
q = 'SELECT ' + ', '.join("(SELECT count(*) FROM entries(field(%s, '%s')))" % (Z, n) for n in names)
got = dict(zip(names, one(q).split(',')))
check("every Zoo collection's rows = its size()", {n: got.get(n) for n in names}, {n: str(sizes[n]) for n in names})
check("Shop.CACHE's rows = its size()", one("SELECT count(*) FROM entries(field((SELECT id FROM classes WHERE name = 'Shop'), 'CACHE'))"), str(sizes['CACHE']))
check("hashMap's keys 0..122, each value 'h' || key",
      one("SELECT count(*), sum(field(key, 'value')), sum(str(value) = 'h' || field(key, 'value')), min(idx), max(idx) FROM entries(field(%s, 'hashMap'))" % Z),
      '123,7503,123,0,122')
check("sparseArray's live int keys 3..9, values 's' || key",
      one("SELECT group_concat(key || '=' || str(value), ' ') FROM entries(field(%s, 'sparseArray'))" % Z),
      ' '.join('%d=s%d' % (k, k) for k in range(3, 10)))
check("a list's elements have no key, in order",
      one("SELECT count(key), group_concat(field(value, 'value'), ' ') FROM entries(field(%s, 'arrayDeque'))" % Z),
      '0,' + ' '.join(map(str, list(range(10, 14)) + list(range(62)))))
check("no collection, an absent id: no rows", one("SELECT (SELECT count(*) FROM entries(%s)), (SELECT count(*) FROM entries(12345))" % Z), '0,0')
EOF2
