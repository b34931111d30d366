#!/usr/bin/env bash
# hprofan sql: its answers against independent ones, its tables' look-ups
# against full scans, what it refuses, its formats, its errors.
#  - independent: the sample's GROUP BY class against the JVM's own
#    histogram of the same process (testdata/hprof/leakycache.histo.txt, the
#    differences sample_histo.sh lists and no other); corpus facts other
#    projects' tests assert (../shared/corpus/README.md): py-hprof's five
#    Vehicles with their names and wheels, Android Studio's heap and array
#    counts of the dialer dump, VisualVM's live objects and bytes of
#    small_heap.bin, tokuhirom's retained sizes, MAT's 492 Strings;
#  - the same answer two ways (says only that they agree): a WHERE that a
#    table looks up (id, class, class_id, idom, src, dst) against the same
#    condition through an expression SQLite must scan for; classes against
#    objects grouped by class; retained sizes against top's; from the index
#    and without it;
#  - refused: ATTACH, CREATE, INSERT, writing pragmas, load_extension; a
#    statement past --timeout; each an exit status 2 with SQLite's message;
#  - formats: --json parsed (exact integers), --csv parsed (quotes, commas,
#    line breaks), -o written only when the statement succeeded, terminal
#    escapes shown as text; statements from standard input.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip sql "python3 is absent"; exit 0; }
S=$TESTDATA/hprof/leakycache.hprof.gz
Q() { "$HPROFAN" sql "$@" --quiet; }

# ---- the JVM's histogram ----------------------------------------------------
Q "$S" --csv "SELECT class, count(*), sum(shallow) FROM objects GROUP BY class" >"$TMPD/byclass.csv" 2>"$TMPD/err" ||
  fail sql-histo "exit $?: $(head -c 300 "$TMPD/err")"
HELPER="$(cd "$(dirname "$0")/../helper" && pwd)" python3 - "$TMPD/byclass.csv" "$TESTDATA/hprof/leakycache.histo.txt" <<'PY'
import csv, os, sys
sys.path.insert(0, os.environ["HELPER"])      # tests/helper: histo.py
from histo import read_histo
got = {r[0]: (int(r[1]), int(r[2])) for r in list(csv.reader(open(sys.argv[1])))[1:]}
# hidden classes: jcmd's Foo$$Lambda$14/0x..., HPROF's Foo$$Lambda$14+0x...
want = {k.replace('/', '+'): v for k, v in read_histo(sys.argv[2]).items()}
# sample_histo.sh's list: the attach mechanism ran between histogram and dump
allowed = {'int[]': (1, 80), 'jdk.internal.ref.CleanerImpl$PhantomCleanableRef': (-1, None),
           'java.lang.invoke.MethodHandleNatives$CallSiteContext': (-1, -32)}
bad = []
for k in sorted(set(got) | set(want)):
    g, w = got.get(k, (0, 0)), want.get(k, (0, 0))
    if g == w: continue
    a = allowed.get(k)
    if a and g[0] - w[0] == a[0] and (a[1] is None or g[1] - w[1] == a[1]): continue
    bad.append('%s: sql %s, jcmd %s' % (k, g, w))
if bad: print('FAIL sql: GROUP BY class is the JVM histogram: %d differ: %s' % (len(bad), '; '.join(bad[:5])))
else: print('ok sql: GROUP BY class is the JVM histogram (%d classes, %d objects)' % (len(want), sum(v[0] for v in got.values())))
PY

# ---- the same answer two ways -----------------------------------------------
Q "$S" --json "SELECT id, class_id, idom FROM objects WHERE class = 'LeakyCache\$Session' ORDER BY retained DESC LIMIT 1" \
  >"$TMPD/one.json" 2>"$TMPD/err" || fail sql-one "exit $?: $(head -c 300 "$TMPD/err")"
read -r ID CID DOM < <(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["rows"][0]; print(*r)' "$TMPD/one.json")
# pairs: NAME|the look-up|the scan (the same condition written so that no table can look it up)
cat >"$TMPD/pairs" <<EOF
id|SELECT count(*), sum(shallow), sum(retained) FROM objects WHERE id = $ID|SELECT count(*), sum(shallow), sum(retained) FROM objects WHERE id + 0 = $ID
class|SELECT count(*), sum(shallow), sum(retained) FROM objects WHERE class = 'java.lang.String'|SELECT count(*), sum(shallow), sum(retained) FROM objects WHERE class || '' = 'java.lang.String'
class IN|SELECT count(*), sum(shallow) FROM objects WHERE class IN ('byte[]', 'char[]', 'nope')|SELECT count(*), sum(shallow) FROM objects WHERE class || '' IN ('byte[]', 'char[]', 'nope')
class_id|SELECT count(*), sum(shallow) FROM objects WHERE class_id = $CID|SELECT count(*), sum(shallow) FROM objects WHERE class_id + 0 = $CID
idom|SELECT count(*), sum(retained) FROM objects WHERE idom = $ID|SELECT count(*), sum(retained) FROM objects WHERE idom + 0 = $ID
idom of a dominator|SELECT count(*) FROM objects WHERE idom = $DOM|SELECT count(*) FROM objects WHERE idom + 0 = $DOM
classes id|SELECT name, instances FROM classes WHERE id = $CID|SELECT name, instances FROM classes WHERE id + 0 = $CID
refs src|SELECT count(*), sum(dst), group_concat(kind) FROM refs WHERE src = $ID|SELECT count(*), sum(dst), group_concat(kind) FROM refs WHERE src + 0 = $ID
refs dst|SELECT count(*), sum(src) FROM refs WHERE dst = $ID|SELECT count(*), sum(src) FROM refs WHERE dst + 0 = $ID
refs dst of a class|SELECT count(*), sum(src) FROM refs WHERE dst = $CID|SELECT count(*), sum(src) FROM refs WHERE dst + 0 = $CID
join|SELECT o.class, count(*) FROM objects o JOIN refs r ON r.dst = o.id WHERE r.src = $ID GROUP BY 1|SELECT o.class, count(*) FROM (SELECT dst FROM refs WHERE src + 0 = $ID) r CROSS JOIN objects o ON o.id + 0 = r.dst GROUP BY 1
no such id|SELECT count(*) FROM objects WHERE id = 12345|SELECT count(*) FROM objects WHERE id + 0 = 12345
GROUP BY class (a scan class by class)|SELECT class, count(*), sum(shallow) FROM objects GROUP BY class|SELECT class, count(*), sum(shallow) FROM objects GROUP BY class || ''
GROUP BY class_id (a scan class by class)|SELECT class_id, count(*), sum(retained) FROM objects GROUP BY class_id|SELECT class_id, count(*), sum(retained) FROM objects GROUP BY class_id + 0
ORDER BY class (a scan class by class)|SELECT class, id FROM objects WHERE kind = 'class' ORDER BY class, id|SELECT class, id FROM objects WHERE kind = 'class' ORDER BY class || '', id
DISTINCT class (a scan class by class)|SELECT DISTINCT class FROM objects|SELECT DISTINCT class || '' AS class FROM objects ORDER BY 1
EOF
while IFS='|' read -r name a b; do
  Q "$S" --csv "$a" >"$TMPD/a.csv" 2>"$TMPD/a.err"; ra=$?
  Q "$S" --csv "$b" >"$TMPD/b.csv" 2>"$TMPD/b.err"; rb=$?
  if [ $ra = 0 ] && [ $rb = 0 ] && cmp -s "$TMPD/a.csv" "$TMPD/b.csv" && [ "$(wc -l <"$TMPD/a.csv")" -ge 2 ]; then
    ok "sql: WHERE $name looked up = scanned ($(tail -1 "$TMPD/a.csv" | tr -d '\r'))"
  else
    fail "sql: WHERE $name looked up = scanned" "exit $ra/$rb: $(head -c 200 "$TMPD/a.csv" "$TMPD/a.err") vs $(head -c 200 "$TMPD/b.csv")"
  fi
done <"$TMPD/pairs"
# an object's refs are the object command's outgoing references: its class
# and the non-null reference fields (the sample's Session has 7)
n=$(Q "$S" --csv "SELECT count(*) FROM refs WHERE src = $ID" | tail -1 | tr -d '\r')
m=$("$HPROFAN" object "$S" "$ID" --json --quiet | python3 -c '
import json, sys
d = json.load(sys.stdin)["object"]
print(1 + sum(1 for f in d["fields"] if f.get("type") == "object" and f.get("value") not in (None, "null")))')
expect_eq "sql: refs from a Session = its class and non-null reference fields (object)" "$n" "$m"
# what each reference is, against testdata/java/LeakyCache.java: a
# Session's reference fields by name; the class's object statics (and
# HotSpot's <resolved_references>); REGIONS' four elements by index; the
# AUDIT WeakHashMap's 200 entries (every tenth of 2,000 Sessions) and
# lastSession weak, scratch soft, each through Reference.referent
got=$(Q "$S" --csv "SELECT group_concat(kind || ':' || ifnull(field, ''), ' ') FROM (SELECT kind, field FROM refs WHERE src = $ID ORDER BY kind, field)" | tail -1 | tr -d '\r')
expect_eq "sql refs: a Session's by field" "$got" "class: strong:attributes strong:firstAttr strong:payload strong:region strong:role strong:user"
LC="(SELECT id FROM classes WHERE name = 'LeakyCache')"
got=$(Q "$S" --csv "SELECT group_concat(field, ' ') FROM (SELECT field FROM refs WHERE src = $LC AND kind = 'static' ORDER BY field)" | tail -1 | tr -d '\r')
expect_eq "sql refs: a class's statics" "$got" "<resolved_references> AUDIT GRID HISTOGRAM HITS LISTENERS REGIONS SESSIONS SHUTDOWN lastSession scratch"
got=$(Q "$S" --csv "SELECT group_concat(kind, ' ') FROM (SELECT kind FROM refs WHERE src = $LC AND kind IN ('class', 'super', 'loader') ORDER BY kind)" | tail -1 | tr -d '\r')
expect_eq "sql refs: a class object's class, superclass, loader" "$got" "class loader super"
got=$(Q "$S" --csv "SELECT group_concat(idx || '=' || str(dst), ' ') FROM (SELECT idx, dst FROM refs WHERE src = field($LC, 'REGIONS') AND kind = 'strong' ORDER BY idx)" | tail -1 | tr -d '\r')
expect_eq "sql refs: an array's elements by index" "$got" "0=eu-west 1=us-east 2=ap-south 3=sa-east"
got=$(Q "$S" --csv "SELECT count(*), count(DISTINCT r.dst), min(r.field), max(r.field) FROM refs r JOIN objects o ON o.id = r.src WHERE o.class = 'java.util.WeakHashMap\$Entry' AND r.kind = 'weak' AND r.dst IN (SELECT id FROM objects WHERE class = 'LeakyCache\$Session')" | tail -1 | tr -d '\r')
expect_eq "sql refs: AUDIT's 200 weak keys, each a Session" "$got" "200,200,referent,referent"
got=$(Q "$S" --csv "SELECT (SELECT kind || ' ' || field || ' ' || (SELECT class FROM objects WHERE id = dst) FROM refs WHERE src = field($LC, 'lastSession') AND field = 'referent'), (SELECT kind || ' ' || field || ' ' || (SELECT class FROM objects WHERE id = dst) FROM refs WHERE src = field($LC, 'scratch') AND field = 'referent')" | tail -1 | tr -d '\r')
expect_eq "sql refs: a WeakReference's referent weak, a SoftReference's soft" "$got" 'weak referent LeakyCache$Session,soft referent byte[]'
# path(): from a root to the SESSIONS map through the class's static
got=$(Q "$S" --csv "SELECT path(field($LC, 'SESSIONS'))" | tail -1 | tr -d '\r')
case $got in
  *"-> class LeakyCache @0x"*" .SESSIONS -> java.util.HashMap @0x"*) ok "sql path(): ends with LeakyCache.SESSIONS -> the HashMap" ;;
  *) fail "sql path(): ends with LeakyCache.SESSIONS -> the HashMap" "$got" ;;
esac
# a Session's path: four steps from the class, through SESSIONS' table or
# LISTENERS' elementData (both as short)
got=$(Q "$S" --csv "SELECT path($ID)" | tail -1 | tr -d '\r')
hex=$(printf '%x' "$ID")
case $got in
  *"class LeakyCache @0x"*" .SESSIONS -> java.util.HashMap @0x"*" .table -> java.util.HashMap\$Node[] @0x"*" ["*"] -> java.util.HashMap\$Node @0x"*" .value -> LeakyCache\$Session @0x$hex" |\
  *"class LeakyCache @0x"*" .LISTENERS -> java.util.ArrayList @0x"*" .elementData -> java.lang.Object[] @0x"*" ["*"] -> LeakyCache\$ExpiryListener @0x"*" .session -> LeakyCache\$Session @0x$hex")
    ok "sql path(): a Session four steps from its class" ;;
  *) fail "sql path(): a Session four steps from its class" "$got" ;;
esac

# classes against objects grouped by class; retained against top's
python3 - "$HPROFAN" "$S" <<'PY'
import csv, io, json, subprocess, sys
hp, s = sys.argv[1:3]
def q(sql):
    out = subprocess.run([hp, 'sql', s, '--csv', '--quiet', sql], capture_output=True, text=True, check=True).stdout
    return list(csv.reader(io.StringIO(out)))[1:]
a = {r[0]: r[1:] for r in q("SELECT name, instances, shallow FROM classes WHERE instances > 0")}
b = {}
for r in q("SELECT class, count(*), sum(shallow) FROM objects GROUP BY class_id"):
    b[r[0]] = [str(int(b.get(r[0], ['0', '0'])[0]) + int(r[1])), str(int(b.get(r[0], ['0', '0'])[1]) + int(r[2]))]
# several classes of one name (one per loader) add up in both
a2 = {}
for r in q("SELECT name, sum(instances), sum(shallow) FROM classes WHERE instances > 0 GROUP BY name"):
    a2[r[0]] = r[1:]
print(('ok' if a2 == b else 'FAIL') + ' sql: classes = objects grouped by class (%d names)%s' % (len(b), '' if a2 == b else ': ' + str(sorted(set(a2.items()) ^ set((k, tuple(v)) for k, v in b.items()))[:3])))
top = json.loads(subprocess.run([hp, s, '--top', '0', '--json', '--quiet'], capture_output=True, text=True, check=True).stdout)
t = {}
for c in top['classes']:
    t[c['class']] = t.get(c['class'], 0) + c['retained']
r = {row[0]: int(row[1]) for row in q("SELECT name, sum(retained) FROM classes WHERE instances > 0 GROUP BY name")}
diff = [k for k in t if t[k] != r.get(k)]
print(('ok' if not diff and t else 'FAIL') + ' sql: classes.retained = top\'s retained (%d classes)%s' % (len(t), '' if not diff else ': ' + ', '.join('%s %s/%s' % (k, r.get(k), t[k]) for k in diff[:3])))
PY

# from the index and without it
q='SELECT class, count(*), sum(retained), sum(reachable), count(idom), group_concat(DISTINCT root_kinds) FROM objects GROUP BY class ORDER BY 3 DESC LIMIT 30'
"$HPROFAN" index "$S" --quiet >/dev/null 2>&1
Q "$S" "$q" >"$TMPD/ix.txt" 2>"$TMPD/ix.err"
Q "$S" --no-index "$q" >"$TMPD/noix.txt" 2>&1
if [ -s "$TMPD/ix.txt" ] && cmp -s "$TMPD/ix.txt" "$TMPD/noix.txt"; then ok "sql: from the index = without it"
else fail "sql: from the index = without it" "$(diff "$TMPD/ix.txt" "$TMPD/noix.txt" | head -5)"; fi
# the index's dominator tree first (an idom lookup), then its graph (refs)
# in one query: each read in turn (the graph was once taken as there: a crash)
q="SELECT (SELECT count(*) FROM objects WHERE idom = (SELECT id FROM objects WHERE class = 'LeakyCache' LIMIT 1)), (SELECT count(*) FROM refs), (SELECT sum(retained) FROM objects)"
Q "$S" "$q" >"$TMPD/ix2.txt" 2>"$TMPD/ix2.err"
Q "$S" --no-index "$q" >"$TMPD/noix2.txt" 2>&1
if [ -s "$TMPD/ix2.txt" ] && cmp -s "$TMPD/ix2.txt" "$TMPD/noix2.txt"; then ok "sql: the index's tree, then its graph, in one query = without the index"
else fail "sql: the index's tree, then its graph, in one query" "$(cat "$TMPD/ix2.err" | head -3; diff "$TMPD/ix2.txt" "$TMPD/noix2.txt" | head -5)"; fi

# ---- the corpus's facts -----------------------------------------------------
if have_corpus sql-corpus; then
  # py-hprof's test: the five Vehicles, their make and wheels
  got=$(Q "$CORPUS/SonyMobile__py-hprof/example-java.hprof" --csv \
    "SELECT str(field(id, 'make')), field(id, 'numWheels') FROM objects WHERE instance_of(id, 'com.example.cars.Vehicle') AND kind = 'instance' ORDER BY 2 DESC, 1" |
    tail -n +2 | tr -d '\r' | paste -sd';')
  expect_eq "sql: py-hprof's Vehicles (str, field, instance_of)" "$got" "Lolvo,4;Stretch,4;Toy Yoda,4;Axes,2;Fånark,2"
  # Android Studio's perflib: the dialer dump's heaps and arrays
  got=$(Q "$CORPUS/tadfisher__platform_tools_base/dialer.android-hprof" --csv \
    "SELECT heap, sum(kind != 'class'), sum(kind = 'class') FROM objects GROUP BY heap ORDER BY heap" | tail -n +2 | tr -d '\r' | paste -sd';')
  expect_eq "sql: dialer's heaps: instances and classes (perflib)" "$got" "app,1406,38;zygote,38710,3533"
  got=$(Q "$CORPUS/tadfisher__platform_tools_base/dialer.android-hprof" --csv \
    "SELECT class, count(*) FROM objects WHERE class IN ('byte[]', 'int[][]', 'java.lang.String[]') GROUP BY class ORDER BY class" |
    tail -n +2 | tr -d '\r' | paste -sd';')
  expect_eq "sql: dialer's byte[], int[][], String[] (perflib)" "$got" "byte[],1406;int[][],37;java.lang.String[],1396"
  got=$(Q "$CORPUS/tadfisher__platform_tools_base/dialer.android-hprof" --csv "SELECT sum(shallow) FROM objects WHERE class = 'byte[]'" | tail -1 | tr -d '\r')
  expect_eq "sql: dialer's byte[] bytes, elements only (perflib)" "$got" 681489
  # VisualVM's HeapTest: live objects and bytes of small_heap.bin
  got=$(Q "$CORPUS/oracle__visualvm/small_heap.bin" --size-model=visualvm --csv \
    "SELECT sum(kind != 'class'), sum(shallow) FROM objects" | tail -1 | tr -d '\r')
  expect_eq "sql: small_heap.bin's live objects and bytes (VisualVM)" "$got" "2208,140120"
  # MAT's OQLTest: 492 Strings (MAT keeps reachable objects only)
  got=$(Q "$CORPUS/eclipse-mat__mat/sun_jdk5_64bit.hprof" --csv "SELECT sum(reachable) FROM objects WHERE class = 'java.lang.String'" | tail -1 | tr -d '\r')
  expect_eq "sql: sun_jdk5_64bit's reachable Strings (MAT)" "$got" 492
  # tokuhirom's README (VisualVM, sizes unaligned): the test objects' retained sizes
  for t in "empty:Object1,16" "int:Object1,20" "object:Object1,66;Object2,42" "recursion:Object1,48;Object2,24" \
           "string:Object1,24" "bytearray:Object1,53"; do
    k=${t%%:*}
    got=$(Q "$CORPUS/tokuhirom__heapdump/${k}__heapdump.hprof" --size-model=netbeans --weak=skip --roots=all --csv \
      "SELECT class, retained FROM objects WHERE class IN ('Object1', 'Object2') ORDER BY class" | tail -n +2 | tr -d '\r' | paste -sd';')
    expect_eq "sql: tokuhirom's $k retained sizes" "$got" "${t#*:}"
  done
fi

# ---- fields: py-hprof's shadowing test (statics 10, 13, 11, 12; instance fields 4, 5, 6)
if [ -d "$CORPUS/SonyMobile__py-hprof" ]; then
  E=$CORPUS/SonyMobile__py-hprof/example-java.hprof
  got=$(Q "$E" --csv "SELECT c.name, f.value FROM classes c JOIN fields f ON f.id = c.id WHERE f.static AND f.name = 'val' ORDER BY f.value" | tail -n +2 | tr -d '\r' | paste -sd';')
  expect_eq "sql: fields: py-hprof's shadowed statics" "$got" "com.example.Base,10;com.example.ShadowIS,11;com.example.ShadowSS,12;com.example.ShadowS,13"
  got=$(Q "$E" --csv "SELECT o.class, group_concat(f.value) FROM objects o JOIN fields f ON f.id = o.id WHERE o.class LIKE 'com.example.Shadow%' AND f.name = 'val' GROUP BY 1 ORDER BY 1" | tail -n +2 | tr -d '\r' | paste -sd';')
  expect_eq "sql: fields: py-hprof's shadowed instance fields (own first)" "$got" 'com.example.ShadowI,4;com.example.ShadowII,"5,4";com.example.ShadowIS,4;com.example.ShadowSI,6'
fi
# fields and strings against object's JSON, a whole table against its look-ups
"$HPROFAN" object "$S" "$ID" --json --quiet >"$TMPD/obj.json"
got=$(Q "$S" --csv "SELECT name, type, ifnull(value, printf('0x%x', ref)) FROM fields WHERE id = $ID" | tail -n +2 | tr -d '\r' | paste -sd';')
want=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["object"]["fields"]
def v(f):
    x = f.get("value")
    if f["type"] == "boolean": return "1" if x else "0"
    return str(x)
print(";".join("%s,%s,%s" % (f["name"], f["type"], v(f)) for f in d))' "$TMPD/obj.json")
expect_eq "sql: fields of an object = object's fields" "$got" "$want"
a=$(Q "$S" --csv "SELECT count(*), sum(length), sum(length(value)) FROM strings" | tail -1)
b=$(Q "$S" --csv "SELECT count(*), sum(length(str(id))) FROM objects WHERE class = 'java.lang.String'" | tail -1)
[ "$(echo "$a" | cut -d, -f1)" = "$(echo "$b" | cut -d, -f1)" ] && [ "$(echo "$a" | cut -d, -f3)" = "$(echo "$b" | cut -d, -f2)" ] &&
  ok "sql: strings = the String objects and their str() ($a)" || fail "sql: strings = the String objects" "$a vs $b"
got=$(Q "$S" --csv "SELECT s.value FROM strings s WHERE s.id = (SELECT id FROM objects WHERE class = 'java.lang.String' LIMIT 1)" | tail -1)
want=$(Q "$S" --csv "SELECT str(id) FROM objects WHERE class = 'java.lang.String' LIMIT 1" | tail -1)
expect_eq "sql: strings WHERE id = looked up" "$got" "$want"
got=$(Q "$S" --csv "SELECT count(*) FROM strings WHERE id = $ID; " | tail -1 | tr -d '\r')
expect_eq "sql: strings WHERE id = an object that is no String: no row" "$got" 0
got=$(Q "$S" --csv "SELECT kind, count(*), count(DISTINCT id) FROM roots GROUP BY kind" | tail -n +2 | tr -d '\r' |
  python3 -c 'import sys; print(";".join(sorted(l.strip().lower().replace(" ", "_") for l in sys.stdin)))')
want=$("$HPROFAN" roots "$S" --json --quiet | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(";".join(sorted("%s,%d,%d" % (k["kind"], k["roots"], k["objects"]) for k in d["kinds"])))' 2>&1)
expect_eq "sql: roots by kind = the roots command's" "$got" "$want"

# retained_set(ID): the dominator subtree, whose shallow sizes add up to the retained size
got=$(Q "$S" --csv "SELECT count(*), sum(o.shallow) = (SELECT retained FROM objects WHERE id = $ID), min(r.id = $ID OR o.idom IS NOT NULL) FROM retained_set($ID) r JOIN objects o ON o.id = r.id" | tail -1 | tr -d '\r')
want=$(Q "$S" --csv "WITH RECURSIVE h(id) AS (SELECT $ID UNION ALL SELECT o.id FROM objects o JOIN h ON o.idom = h.id) SELECT count(*) FROM h" | tail -1 | tr -d '\r')
expect_eq "sql: retained_set = the dominator subtree (WITH RECURSIVE), its bytes the retained size" "$got" "$want,1,1"
got=$(Q "$S" --csv "SELECT sum(n) FROM (SELECT (SELECT count(*) FROM retained_set(s.id)) AS n FROM objects s WHERE s.class = 'LeakyCache\$Session')" | tail -1 | tr -d '\r')
want=$(Q "$S" --csv "SELECT count(*) FROM objects o WHERE o.class = 'LeakyCache\$Session'" | tail -1 | tr -d '\r')
[ "$got" -gt "$want" ] 2>/dev/null && ok "sql: retained_set for each Session ($got objects for $want sessions)" || fail "sql: retained_set for each Session" "$got for $want"
got=$(Q "$S" --csv "SELECT count(*) FROM retained_set(12345)" | tail -1 | tr -d '\r')
expect_eq "sql: retained_set of no object: no row" "$got" 0
for t in retained_set entries; do
  Q "$S" "SELECT * FROM $t" >/dev/null 2>"$TMPD/r.err"
  rc=$?
  [ $rc = 2 ] && grep -qF "need the object, retained_set(ID), entries(ID)" "$TMPD/r.err" && ok "sql: $t without its object: said, exit 2" ||
    fail "sql: $t without its object" "exit $rc: $(cat "$TMPD/r.err")"
done

# threads and frames against the threads command's JSON
"$HPROFAN" threads "$S" --json --quiet >"$TMPD/threads.json"
got=$(Q "$S" --csv "SELECT t.name, t.state, t.frames, t.retained, count(f.depth) FROM threads t LEFT JOIN frames f ON f.thread_id = t.id GROUP BY t.id ORDER BY t.name" |
  tail -n +2 | tr -d '\r' | sort | paste -sd';')
want=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
rows = []
for t in d["threads"]:
    rows.append("%s,%s,%d,%d,%d" % (t.get("name", ""), t.get("state", ""), len(t.get("frames", [])), t["retained"], len(t.get("frames", []))))
print(";".join(sorted(rows)))' "$TMPD/threads.json" 2>&1)
expect_eq "sql: threads and frames = the threads command's" "$got" "$want"

# ---- refused ----------------------------------------------------------------
refused() {   # NAME SQL [OPTIONS...]: exit 2, the message in one line (a usage error's hint after it), no output
  local name=$1 sql=$2; shift 2
  Q "$S" "$@" "$sql" >"$TMPD/r.out" 2>"$TMPD/r.err"
  local rc=$?
  if [ $rc = 2 ] && [ ! -s "$TMPD/r.out" ] && head -1 "$TMPD/r.err" | grep -q "^hprofan: sql: " &&
     { [ "$(wc -l <"$TMPD/r.err")" = 1 ] || [ "$(sed -n 2p "$TMPD/r.err")" = "hprofan: try 'hprofan help sql'" ]; }; then
    ok "sql: refused: $name ($(head -1 "$TMPD/r.err" | cut -c1-90))"
  else fail "sql: refused: $name" "exit $rc, out $(head -c 100 "$TMPD/r.out"), err $(head -c 200 "$TMPD/r.err")"; fi
}
refused ATTACH "ATTACH '$TMPD/x.db' AS x"
grep -q "not authorized: hprofan sql only reads" "$TMPD/r.err" && ok "sql: a refusal says why" || fail "sql: a refusal says why" "$(cat "$TMPD/r.err")"
[ -e "$TMPD/x.db" ] && fail "sql: ATTACH made no file" "$TMPD/x.db exists" || ok "sql: ATTACH made no file"
refused "CREATE TABLE" "CREATE TABLE t(a)"
refused "CREATE TEMP TABLE" "CREATE TEMP TABLE t AS SELECT 1"
refused "CREATE VIEW" "CREATE TEMP VIEW v AS SELECT 1"
refused INSERT "INSERT INTO objects(id) VALUES (1)"
refused DELETE "DELETE FROM classes"
refused "PRAGMA writable_schema" "PRAGMA writable_schema = 1"
refused "PRAGMA journal_mode" "PRAGMA journal_mode = WAL"
refused load_extension "SELECT load_extension('$TMPD/x.so')"
refused "a syntax error" "SELEC 1"
refused "no such table" "SELECT * FROM nosuchtable"
grep -q "no such table: nosuchtable" "$TMPD/r.err" && ok "sql: no such table says so" || fail "sql: no such table says so" "$(cat "$TMPD/r.err")"
refused "--timeout" "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c" --timeout 0.3
grep -q "ran past --timeout 0.3 s" "$TMPD/r.err" && ok "sql: --timeout says so" || fail "sql: --timeout says so" "$(cat "$TMPD/r.err")"
refused "two statements with --json" "SELECT 1; SELECT 2" --json
# what is allowed: reading, functions, WITH RECURSIVE, the listing pragmas
got=$(Q "$S" --csv "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5) SELECT sum(x), (SELECT count(*) FROM pragma_table_info('objects')) FROM c" | tail -1 | tr -d '\r')
expect_eq "sql: WITH RECURSIVE and pragma_table_info allowed" "$got" "15,11"

# ---- formats ------------------------------------------------------------------
Q "$S" --json "SELECT 9007199254740993 AS big, -5 AS neg, 1.5 AS r, NULL AS n, 'a\"b' AS s, id FROM objects WHERE id = $ID" >"$TMPD/j.json" 2>"$TMPD/err"
got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "hprofan/1" and d["command"] == "sql" and "size_model" in d
print(d["columns"], d["rows"])' "$TMPD/j.json" 2>&1)
expect_eq "sql: --json: columns and rows, exact integers" "$got" "['big', 'neg', 'r', 'n', 's', 'id'] [[9007199254740993, -5, 1.5, None, 'a\"b', $ID]]"
Q "$S" --csv "SELECT 'a,b' AS x, 'say \"hi\"' AS y, 'two' || char(10) || 'lines' AS z, NULL AS n" >"$TMPD/c.csv"
got=$(python3 -c 'import csv, sys; print(list(csv.reader(open(sys.argv[1], newline=""))))' "$TMPD/c.csv")
expect_eq "sql: --csv quotes commas, quotes and line breaks" "$got" "[['x', 'y', 'z', 'n'], ['a,b', 'say \"hi\"', 'two\\nlines', '']]"
Q "$S" "SELECT char(27) || '[31mred' AS e, 'tab' || char(9) AS t" >"$TMPD/t.txt"
if grep -q $'\e' "$TMPD/t.txt"; then fail "sql: terminal escapes shown as text" "an ESC byte reached the output"
elif grep -q '\\x1b\[31mred' "$TMPD/t.txt"; then ok "sql: terminal escapes shown as text"
else fail "sql: terminal escapes shown as text" "$(cat -v "$TMPD/t.txt")"; fi
# -o: written when the statement succeeds, absent when it fails
Q "$S" -o "$TMPD/o.txt" "SELECT count(*) AS n FROM classes"
grep -q "^ *918$" "$TMPD/o.txt" 2>/dev/null && ok "sql: -o writes the table" || fail "sql: -o writes the table" "$(cat "$TMPD/o.txt" 2>&1)"
Q "$S" -o "$TMPD/o2.txt" "SELECT count(*) FROM classes; SELEC" 2>/dev/null
rc=$?
[ $rc = 2 ] && [ ! -e "$TMPD/o2.txt" ] && [ -z "$(ls "$TMPD" | grep '^o2\.txt.')" ] && ok "sql: -o writes nothing when a statement fails" ||
  fail "sql: -o writes nothing when a statement fails" "exit $rc, $(ls "$TMPD")"
# standard input: the statements of a script, each its table
printf 'SELECT 1 AS one;\nSELECT name FROM classes WHERE name = %s;\n' "'java.lang.String'" | Q "$S" >"$TMPD/in.txt" 2>&1
got=$(grep -c "(1 row)" "$TMPD/in.txt")
expect_eq "sql: statements from standard input, a table each" "$got" 2
# a cut dump: the reader's positioned error, not an empty answer
gzip -dc "$S" | head -c 3000000 >"$TMPD/cut.hprof"
Q "$TMPD/cut.hprof" "SELECT count(*) FROM objects" >"$TMPD/cut.out" 2>"$TMPD/cut.err"
rc=$?
if [ $rc = 3 ] && [ ! -s "$TMPD/cut.out" ] && grep -q "cut.hprof.*offset" "$TMPD/cut.err"; then ok "sql: a cut dump is its error, exit 3"
else fail "sql: a cut dump is its error, exit 3" "exit $rc: $(head -c 300 "$TMPD/cut.err")"; fi

# ---- --export: a plain SQLite database, read back with Python's sqlite3 -----
Q "$S" --export "$TMPD/heap.db" 2>"$TMPD/x.err"
rc=$?
# every table: its rows' count and a sum over each column (text by its
# length), the virtual table's against the file's
SUMS="SELECT (SELECT count(*) || ',' || sum(shallow) || ',' || sum(retained) || ',' || sum(idom) || ',' || sum(length(class)) || ',' || sum(length(root_kinds)) FROM objects),
 (SELECT count(*) || ',' || sum(src) || ',' || sum(dst) || ',' || sum(length(field)) || ',' || sum(idx) || ',' || sum(length(kind)) FROM refs),
 (SELECT count(*) || ',' || sum(retained) || ',' || sum(length(name)) || ',' || sum(instance_size) FROM classes),
 (SELECT count(*) || ',' || sum(id) || ',' || sum(length(kind)) || ',' || sum(thread_id) || ',' || sum(frame) FROM roots),
 (SELECT count(*) || ',' || sum(id) || ',' || sum(length(value)) || ',' || sum(length) FROM strings),
 (SELECT count(*) || ',' || sum(id) || ',' || sum(length(name)) || ',' || sum(length(type)) || ',' || sum(length(value)) || ',' || sum(ref) || ',' || sum(static) FROM fields),
 (SELECT count(*) || ',' || sum(id) || ',' || sum(length(name)) || ',' || sum(length(state)) || ',' || sum(frames) || ',' || sum(retained) FROM threads),
 (SELECT count(*) || ',' || sum(depth) || ',' || sum(length(class)) || ',' || sum(length(method)) || ',' || sum(line) FROM frames)"
Q "$S" --csv "$SUMS" | tail -1 | tr -d '\r' >"$TMPD/v.txt"
got=$(python3 -c '
import sqlite3, sys
c = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
print(",".join("\"%s\"" % v for v in c.execute(sys.argv[2]).fetchone()))
ix = sorted(r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type = \"index\""))
print(" ".join(ix))' "$TMPD/heap.db" "$SUMS" 2>&1)
if [ $rc = 0 ] && [ "$(echo "$got" | head -1)" = "$(cat "$TMPD/v.txt")" ]; then ok "sql: --export's eight tables read back (sqlite3) as the virtual ones ($(cut -c1-60 "$TMPD/v.txt")...)"
else fail "sql: --export's tables read back as the virtual ones" "exit $rc: $(head -c 200 "$TMPD/x.err") got $got, want $(cat "$TMPD/v.txt")"; fi
expect_eq "sql: --export indexes what the look-ups use" "$(echo "$got" | tail -1)" \
  "classes_id classes_name fields_id fields_ref frames_thread_id objects_class_id objects_idom refs_dst refs_src roots_id threads_id"
# the class of an object by a join in the file = the table's
got=$(python3 -c '
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
print(c.execute("SELECT c.name, count(*) FROM objects o JOIN classes c ON c.id = o.class_id WHERE c.name = \"java.lang.String\" GROUP BY 1").fetchone())' "$TMPD/heap.db")
expect_eq "sql: --export: objects join classes" "$got" "('java.lang.String', 24721)"
# over an old file: replaced whole; a failed export leaves what was there
echo "old" >"$TMPD/keep.db"
Q "$TMPD/cut.hprof" --export "$TMPD/keep.db" 2>/dev/null
rc=$?
if [ $rc != 0 ] && [ "$(cat "$TMPD/keep.db")" = old ] && [ -z "$(ls "$TMPD" | grep '^keep\.db\.tmp')" ]; then
  ok "sql: a failed --export leaves the old file and no temporary one"
else fail "sql: a failed --export leaves the old file" "exit $rc, $(ls "$TMPD" | grep keep)"; fi
Q "$S" --export "$TMPD/nodir/x.db" 2>"$TMPD/x.err"
rc=$?
[ $rc = 1 ] && grep -q "cannot write $TMPD/nodir/x.db" "$TMPD/x.err" && ok "sql: --export into a missing directory: said, exit 1" ||
  fail "sql: --export into a missing directory" "exit $rc: $(cat "$TMPD/x.err")"

# ---- GROUP BY class on every corpus dump ------------------------------------
# against VisualVM 2.1.5's per-class instances and shallow bytes
# (expected/*.vvm.json, under --size-model=visualvm, class objects aside as
# VisualVM counts them) where it has them, and against top's histogram on
# every dump (that only says the two agree; top's own checks are
# jmap_histo.sh, visualvm_counts.sh, golden_retained.sh)
if have_corpus sql-corpus-histograms; then
  python3 - "$HPROFAN" "$CORPUS" <<'PY'
import collections, csv, glob, io, json, os, subprocess, sys
hp, corpus = sys.argv[1:3]
def sql(f, q, *opts):
    r = subprocess.run([hp, 'sql', f, '--csv', '--quiet', *opts, q], capture_output=True, text=True)
    if r.returncode: raise RuntimeError('exit %d: %s' % (r.returncode, r.stderr[:200]))
    return list(csv.reader(io.StringIO(r.stdout)))[1:]
vvm = {}
for j in glob.glob(corpus + '/expected/*.vvm.json'):
    b = os.path.basename(j)[:-len('.vvm.json')]
    folder, _, name = b.partition('_')
    while not os.path.exists('%s/%s/%s' % (corpus, folder, name)) and '_' in name:
        a, _, name = name.partition('_'); folder += '_' + a
    vvm['%s/%s' % (folder, name)] = j
dumps = sorted(p for p in glob.glob(corpus + '/*/*') if os.path.isfile(p) and '/expected/' not in p
               and not p.endswith(('.md', '.tsv', '.txt')) and 'CORRUPT' not in p and 'java_pid1884' not in p)
for f in dumps:
    rel = os.path.relpath(f, corpus)
    try:
        t = subprocess.run([hp, f, '--top', '0', '--json', '--quiet', '--fast'], capture_output=True, text=True)
        if t.returncode:
            q = subprocess.run([hp, 'sql', f, '--quiet', 'SELECT 1'], capture_output=True, text=True)
            same = q.returncode == t.returncode and q.stderr.splitlines()[:1] == t.stderr.splitlines()[:1]
            print(('ok' if same else 'FAIL') + ' sql: %s: the error top gives, exit %d%s' % (rel, t.returncode, '' if same else ': ' + q.stderr[:200]))
            continue
        want = collections.Counter()
        wb = collections.Counter()
        for c in json.loads(t.stdout).get('classes', []):
            want[c['class']] += c['instances']; wb[c['class']] += c['shallow']
        got, gb = collections.Counter(), collections.Counter()
        for r in sql(f, 'SELECT class, count(*), sum(shallow) FROM objects GROUP BY class'):
            got[r[0]] += int(r[1]); gb[r[0]] += int(r[2])
        bad = [k for k in set(want) | set(got) if (want[k], wb[k]) != (got[k], gb[k])]
        print(('ok' if not bad else 'FAIL') + ' sql: %s: GROUP BY class = top\'s histogram (%d classes)%s' %
              (rel, len(want), '' if not bad else ': ' + ', '.join('%s %s/%s' % (k, (got[k], gb[k]), (want[k], wb[k])) for k in bad[:3])))
        # every reference labelled; a Reference's referent soft, weak, final or phantom
        k = sql(f, "SELECT count(*), sum(kind = 'unknown'), sum(kind IN ('soft', 'weak', 'final', 'phantom') AND field IS NOT 'referent'), "
                   "sum(kind IN ('strong', 'static') AND field IS NULL AND idx IS NULL) FROM refs")[0]
        print(('ok' if k[1:] == ['0', '0', '0'] else 'FAIL') + ' sql: %s: each of %s refs labelled%s' %
              (rel, k[0], '' if k[1:] == ['0', '0', '0'] else ': unknown, odd referents, unnamed: %r' % k[1:]))
        if rel in vvm:
            vv = json.load(open(vvm[rel]))
            vi, vs = collections.Counter(), collections.Counter()
            for c in vv.get('classes', []):
                vi[c['name']] += c['instances']; vs[c['name']] += c['shallow_bytes']
            gi, gs = collections.Counter(), collections.Counter()
            for r in sql(f, "SELECT class, count(*), sum(shallow) FROM objects WHERE kind != 'class' GROUP BY class", '--size-model=visualvm'):
                gi[r[0]] += int(r[1]); gs[r[0]] += int(r[2])
            rk = {r[0]: int(r[1]) for r in sql(f, 'SELECT kind, count(*) FROM roots GROUP BY kind')}
            # distinct objects: those in the dump (VisualVM's distinct_objects) and the
            # ids a root names that the dump lacks (its missing_objects)
            nd, nin = (int(x) for x in sql(f, 'SELECT count(DISTINCT r.id), count(DISTINCT o.id) FROM roots r '
                                              'LEFT JOIN objects o ON o.id = r.id')[0])
            ok = (rk == vv['gc_roots']['by_kind'] and nin == vv['gc_roots']['distinct_objects'] and
                  nd - nin == vv['gc_roots']['missing_objects'])
            print(('ok' if ok else 'FAIL') + " sql: %s: roots by kind and distinct objects = VisualVM's (%d, %d)%s" %
                  (rel, sum(rk.values()), nd, '' if ok else ': %r %d vs %r' % (rk, nd, vv['gc_roots'])))
            vi, gi = +vi, +gi
            bad = [k for k in set(vi) | set(gi) if (vi[k], vs[k]) != (gi[k], gs[k])]
            print(('ok' if not bad else 'FAIL') + ' sql: %s: GROUP BY class = VisualVM\'s instances and bytes (%d classes)%s' %
                  (rel, len(vi), '' if not bad else ': ' + ', '.join('%s %s/%s' % (k, (gi[k], gs[k]), (vi[k], vs[k])) for k in sorted(bad)[:3])))
    except Exception as e:
        print('FAIL sql: %s: %s' % (rel, e))
PY
fi
