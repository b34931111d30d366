#!/usr/bin/env bash
# hprofan check FILE --budget B.json [--baseline BASE] [--junit OUT.xml],
# against answers found without hprofan:
#  - instance counts of the small sample from its jmap histogram
#    (leakycache-small.histo.txt): a budget at the count holds (exit 0), one
#    below breaks (exit 5);
#  - two dumps built byte by byte (tests/helper/mkhprof.py, size model raw:
#    an instance is its field bytes, an array its elements, a class object
#    its statics), every figure worked out by hand below: a class's
#    instances, shallow and retained bytes, a package counted with its
#    subpackages and not its look-alike (com.acme, not com.acmex), its
#    retained bytes counted once, the zombies leaks' rules find (two
#    destroyed Activities; three with a budget rule), growth since a
#    baseline (the reachable bytes and objects, per class);
#  - a class name with <, &, ", ', ]]> and a control byte, in the table, the
#    JSON and the JUnit XML, which python's xml.etree reads back: a testcase
#    per rule, a failure per breach;
#  - bad budgets (unknown key, bad size, negative, unknown class with "did
#    you mean", not JSON, NUL, not UTF-8, too deep, too big, a key twice,
#    growth without --baseline, a missing file): exit 2, one line on stderr
#    naming the file;
#  - the Java class of docs/check.md compiled and run: it dumps its own heap
#    and runs check (exit 0); the same dump over budget exits 5.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip check "python3 is absent"; exit 0; }
root=$(cd "$(dirname "$0")/../.." && pwd)
D=$TMPD
SMALL=$TESTDATA/hprof/leakycache-small.hprof.gz
HISTO=$TESTDATA/hprof/leakycache-small.histo.txt

python3 - "$D" "$root/tests/helper" <<'EOF' || { fail check-build "cannot write the test dumps"; exit 0; }
import sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
D = sys.argv[1]
# n Entries, each with a byte[100], in an Object[n] a Cache holds, which
# the static App.CACHE holds; an Other and a hostile class's instance (JNI
# globals); two destroyed Activities and a live one (JNI globals).
def dump(n, path):
    d = Dump()
    objarr = d.load_class("[Ljava/lang/Object;"); d.class_dump(objarr)
    cache = d.load_class("com.acme.Cache"); d.class_dump(cache, fields=[("data", OBJECT)])
    entry = d.load_class("com.acme.sub.Entry"); d.class_dump(entry, fields=[("payload", OBJECT)])
    other = d.load_class("com.acmex.Other"); d.class_dump(other, fields=[("x", INT)])
    evil = d.load_class(b'com.evil.N<&"]]>\x01\'x'); d.class_dump(evil, fields=[("x", INT)])
    act = d.load_class("android.app.Activity"); d.class_dump(act, fields=[("mDestroyed", BOOLEAN)])
    es = [d.instance(entry, [d.prim_array(BYTE, bytes(100))]) for _ in range(n)]
    c = d.instance(cache, [d.obj_array(objarr, es)])
    app = d.load_class("com.acme.App"); d.class_dump(app, statics=[("CACHE", OBJECT, c)])
    d.root(app, kind=0x05)
    d.root(d.instance(other, [7]))
    d.root(d.instance(evil, [1]))
    for dead in (1, 1, 0):
        d.root(d.instance(act, [dead]))
    d.write(path)
dump(3, D + "/a.hprof")
dump(5, D + "/b.hprof")
EOF

# chk NAME BUDGET-JSON ARGS...: check with that budget; stdout, stderr and the
# status in $D/NAME.{out,err,rc}
chk() {
  local n=$1 b=$2; shift 2
  printf '%s' "$b" >"$D/$n.json"
  "$HPROFAN" check "$@" --budget "$D/$n.json" --quiet >"$D/$n.out" 2>"$D/$n.err"
  echo $? >"$D/$n.rc"
}
rc() { cat "$D/$1.rc"; }
# the actual figure of rule LABEL in NAME's JSON
actual() { jget "$D/$1.out" "[r['actual'] for r in d['rules'] if r['label'] == '$2']"; }

# ---- the small sample: counts from jmap's histogram ---------------------------
read -r sess attr < <(awk '$4 == "LeakyCache$Session" { s = $2 } $4 == "LeakyCache$Attribute" { a = $2 } END { print s, a }' "$HISTO")
if [ -z "$sess" ] || [ -z "$attr" ]; then fail check-histo "the histogram lacks LeakyCache\$Session or \$Attribute"; exit 0; fi
chk met "{\"classes\": {\"LeakyCache\$Session\": {\"max_instances\": $sess}, \"LeakyCache\$Attribute\": {\"max_instances\": $attr}}}" "$SMALL"
expect_eq "check: instance limits at jmap's counts ($sess, $attr) hold: exit 0" "$(rc met)" 0
grep -q "all 2 rules within budget" "$D/met.out" && ok "check: the table says all rules hold" ||
  fail "check: the table says all rules hold" "$(cat "$D/met.out")"
chk over "{\"classes\": {\"LeakyCache\$Session\": {\"max_instances\": $sess}, \"LeakyCache\$Attribute\": {\"max_instances\": $((attr - 1))}}}" \
  "$SMALL" --junit "$D/over.xml"
expect_eq "check: a limit one below jmap's count breaks: exit 5" "$(rc over)" 5
grep -qE "^FAIL +$((attr - 1)) +$attr +class LeakyCache\\\$Attribute max_instances" "$D/over.out" &&
  grep -q "1 of 2 rules broken" "$D/over.out" && ok "check: the table names the broken rule, its limit and count" ||
  fail "check: the table names the broken rule" "$(cat "$D/over.out")"

# ---- hand-built dumps: every figure by hand (size model raw) -----------------
# a.hprof: Cache 4 B -> Object[3] 12 B -> 3 Entries 4 B each -> byte[100] each;
# Cache retains 4 + 12 + 3 * 104 = 328; the Entries 3 * 104 = 312.
# package com.acme (com.acme.sub included): Cache, 3 Entries and the class
# objects of App, Cache and sub.Entry = 7 objects, 4 + 12 + App's static
# (4) = 20 B shallow; App's class object holds everything: 332 retained
# once (the Cache's 328 inside it not counted again). com.acmex: Other and
# its class object, 4 B. Zombies: the two destroyed Activities.
A=$D/a.hprof B=$D/b.hprof
budget='{"classes": {"com.acme.Cache": {"max_instances": 1, "max_shallow": 4, "max_retained": 328},
                     "com.acme.sub.Entry": {"max_instances": 3, "max_shallow": "12", "max_retained": "312 B"}},
         "packages": {"com.acme": {"max_instances": 7, "max_shallow": 20, "max_retained": 332},
                      "com.acmex": {"max_instances": 2, "max_shallow": 4, "max_retained": "0.004 kB"}},
         "zombies": 2}'
chk exact "$budget" "$A" --size-model=raw --json
expect_eq "check: at the figures worked out by hand every rule holds: exit 0" "$(rc exact)" 0
expect_eq "check: class, package (with its subpackage, not com.acmex) and zombie figures" \
  "$(jget "$D/exact.out" '[(r["label"], r["actual"], r["pass"]) for r in d["rules"]]')" \
  "$(python3 -c 'print([("class com.acme.Cache max_instances", 1, True), ("class com.acme.Cache max_shallow", 4, True),
  ("class com.acme.Cache max_retained", 328, True), ("class com.acme.sub.Entry max_instances", 3, True),
  ("class com.acme.sub.Entry max_shallow", 12, True), ("class com.acme.sub.Entry max_retained", 312, True),
  ("package com.acme max_instances", 7, True), ("package com.acme max_shallow", 20, True),
  ("package com.acme max_retained", 332, True), ("package com.acmex max_instances", 2, True),
  ("package com.acmex max_shallow", 4, True), ("package com.acmex max_retained", 4, True), ("zombies", 2, True)])')"
expect_eq "check --json: the summary and the document's header" \
  "$(jget "$D/exact.out" '(d["schema"], d["command"], d["summary"], d["baseline"], d["size_model"]["name"])')" \
  "('hprofan/1', 'check', {'rules': 13, 'breaches': 0, 'pass': True}, None, 'raw')"
# every limit one byte or object below the figure: each rule breaks
low=$(python3 -c '
import json, re, sys
b = json.loads(sys.argv[1])
def dec(v):
    if isinstance(v, int): return v - 1
    return {"12": 11, "312 B": 311, "0.004 kB": 3}[v]
for grp in ("classes", "packages"):
    for lim in b[grp].values():
        for k in lim: lim[k] = dec(lim[k])
b["zombies"] = 1
print(json.dumps(b))' "$budget")
chk low "$low" "$A" --size-model=raw --json --junit "$D/low.xml"
expect_eq "check: every limit one below its figure breaks: exit 5, 13 breaches" \
  "$(rc low) $(jget "$D/low.out" '(d["summary"]["breaches"], all(not r["pass"] for r in d["rules"]))')" "5 (13, True)"
# zombies with a budget rule of leaks' kind: the Cache too
chk zrule '{"zombies": {"max": 2, "rules": ["com.acme.Cache:data=!null"]}}' "$A" --size-model=raw --json
expect_eq "check: a zombie rule adds the Cache: 3 zombies over 2, exit 5" \
  "$(rc zrule) $(actual zrule zombies)" "5 [3]"

# ---- growth since a baseline ---------------------------------------------------------
# b.hprof has 2 more Entries (and byte[]s): +2 * 104 + 2 * 4 (the array's
# elements) = 216 reachable bytes, +4 objects; Entry +2 instances, +208 retained.
g='{"growth": {"max_retained": 216, "max_instances": 4, "classes": {"com.acme.sub.Entry": {"max_instances": 2, "max_retained": 208}}}}'
chk grow "$g" "$B" --baseline "$A" --size-model=raw --json
expect_eq "check --baseline: growth at the hand-worked figures holds" \
  "$(rc grow) $(jget "$D/grow.out" '[(r["label"], r["actual"]) for r in d["rules"]]')" \
  "0 [('growth max_retained', 216), ('growth max_instances', 4), ('growth class com.acme.sub.Entry max_instances', 2), ('growth class com.acme.sub.Entry max_retained', 208)]"
expect_eq "check --baseline: the baseline's summary in the document" "$(jget "$D/grow.out" 'd["baseline"]["file"]')" "$A"
chk grow2 '{"growth": {"max_retained": 215}}' "$B" --baseline "$A" --size-model=raw
expect_eq "check --baseline: a byte less breaks: exit 5" "$(rc grow2)" 5
chk shrink '{"growth": {"max_retained": 0, "classes": {"com.acme.sub.Entry": {"max_instances": 0}}}}' "$A" --baseline "$B" --size-model=raw --json
expect_eq "check --baseline: a heap that shrank passes a limit of 0 (its growth negative)" \
  "$(rc shrink) $(jget "$D/shrink.out" '[r["actual"] for r in d["rules"]]')" "0 [-216, -2]"

chk gtypo '{"growth": {"classes": {"com.acme.sub.Entyr": {"max_instances": 0}}}}' "$B" --baseline "$A" --size-model=raw
expect_eq "check --baseline: a growth class in neither dump, near one of FILE's: exit 2, did you mean" \
  "$(rc gtypo) $(wc -l <"$D/gtypo.err") $(grep -c "did you mean 'com.acme.sub.Entry'" "$D/gtypo.err")" "2 1 1"

# ---- the hostile name: table, JSON, JUnit ------------------------------------------------
evil='com.evil.N<&\"]]>\u0001'"'"'x'
chk evil "{\"classes\": {\"$evil\": {\"max_instances\": 0}, \"com.acme.Cache\": {\"max_instances\": 1}}, \"zombies\": 2}" \
  "$A" --size-model=raw --junit "$D/evil.xml"
expect_eq "check: the hostile class's one instance breaks its limit 0: exit 5" "$(rc evil)" 5
grep -qF 'class com.evil.N<&"]]>\x01'"'"'x max_instances' "$D/evil.out" && ! grep -q $'\x01' "$D/evil.out" &&
  ok "check: the table shows the control byte as \\x01" || fail "check: the table shows the control byte as \\x01" "$(cat -v "$D/evil.out")"
python3 - "$D" <<'EOF'
import json, sys, xml.etree.ElementTree as ET
D = sys.argv[1]
def check(name, got, want):
    print(("ok %s" % name) if got == want else ("FAIL %s: got %r, want %r" % (name, got, want)))
def suite(path):
    try:
        return ET.parse(path).getroot()
    except Exception as e:
        print("FAIL check: %s is XML: %s" % (path, e))
        return None
for base, rules, breaches in (("evil", 3, 1), ("low", 13, 13), ("over", 2, 1)):
    t = suite("%s/%s.xml" % (D, base))
    if t is None:
        continue
    cases = t.findall("testcase")
    fails = [c for c in cases if c.find("failure") is not None]
    check("check --junit (%s): one testsuite 'hprofan check'" % base, (t.tag, t.get("name")), ("testsuite", "hprofan check"))
    check("check --junit (%s): a testcase per rule, a failure per breach" % base,
          (len(cases), len(fails), t.get("tests"), t.get("failures")), (rules, breaches, str(rules), str(breaches)))
t = suite(D + "/evil.xml")
if t is not None:
    names = [c.get("name") for c in t.findall("testcase")]
    check("check --junit: the hostile name read back (the control byte as the text \\x01)",
          names[0], "class com.evil.N<&\"]]>\\x01'x max_instances")
    f = t.find("testcase").find("failure")
    check("check --junit: the failure's message says count and limit",
          f.get("message") if f is not None else None, "1 instance, over the limit of 0 by 1")
    check("check --junit: the rules that hold have no failure",
          [c.find("failure") is None for c in t.findall("testcase")], [False, True, True])
EOF

# ---- bad budgets: exit 2, one line naming the file ---------------------------------
# bad NAME BUDGET WANT: exit 2 and one line on stderr holding the file and WANT
bad() {
  local n=$1 want=$3
  chk "$n" "$2" "$A" --size-model=raw
  local lines r
  lines=$(wc -l <"$D/$n.err") r=$(rc "$n")
  if [ "$r" = 2 ] && [ "$lines" = 1 ] && grep -qF "$D/$n.json" "$D/$n.err" && grep -qF -- "$want" "$D/$n.err"; then
    ok "check: a bad budget ($n): exit 2, one line"
  else fail "check: a bad budget ($n): exit 2, one line with '$want'" "exit $r, $lines lines: $(head -c 400 "$D/$n.err")"; fi
}
bad unknown-key '{"classes": {"com.acme.Cache": {"max_retaind": 1}}}' '.classes["com.acme.Cache"]: unknown key "max_retaind"; did you mean "max_retained"?'
bad top-key '{"zombie": 0}' 'unknown key "zombie"; did you mean "zombies"?'
bad bad-size '{"classes": {"com.acme.Cache": {"max_retained": "ten MiB"}}}' '.classes["com.acme.Cache"].max_retained: expected a size'
bad negative '{"packages": {"com.acme": {"max_shallow": -1}}}' '.packages["com.acme"].max_shallow: expected a size'
bad overflow '{"classes": {"com.acme.Cache": {"max_retained": "18446744073709551616"}}}' 'max_retained: expected a size'
bad fraction '{"classes": {"com.acme.Cache": {"max_instances": 1.5}}}' '.max_instances: expected a count'
bad typo '{"classes": {"com.acme.Cahce": {"max_instances": 1}}}' "no class com.acme.Cahce in $A; did you mean 'com.acme.Cache'?"
bad simple-name '{"classes": {"Entry": {"max_instances": 1}}}' "did you mean 'com.acme.sub.Entry'?"
bad pkg-typo '{"packages": {"com.acme.su": {"max_instances": 1}}}' "no package com.acme.su in $A; did you mean 'com.acme.sub'?"
bad zrule-typo '{"zombies": {"max": 0, "rules": ["com.acme.Cach:data=null"]}}' ".zombies.rules[0]: no class com.acme.Cach"
bad not-json '{"classes": {"com.acme.Cache": {"max_instances": 1},}}' 'line 1, column'
bad not-object '[1, 2]' 'expected a JSON object'
bad twice '{"classes": {"com.acme.Cache": {"max_instances": 1}, "com.acme.Cache": {"max_instances": 2}}}' 'key "com.acme.Cache" given twice'
bad no-limit '{"classes": {"com.acme.Cache": {}}}' 'no limit'
bad empty '{"classes": {}}' 'no rule'
bad growth-alone '{"growth": {"max_retained": "5 MiB"}}' '.growth: growth limits need --baseline'
bad deep "$(python3 -c 'print("[" * 5000 + "]" * 5000)')" 'not JSON'
printf '{"zombies": 0\x00}' >"$D/nul.json"
"$HPROFAN" check "$A" --budget "$D/nul.json" --quiet 2>"$D/nul.err" >/dev/null
expect_eq "check: a budget with a NUL byte: exit 2, one line" "$? $(wc -l <"$D/nul.err") $(grep -c 'a NUL byte' "$D/nul.err")" "2 1 1"
printf '{"classes": {"com.acme.\xc3\x28": {"max_instances": 0}}}' >"$D/utf.json"
"$HPROFAN" check "$A" --budget "$D/utf.json" --quiet 2>"$D/utf.err" >/dev/null
expect_eq "check: a budget that is not UTF-8: exit 2, the offset" "$? $(cat "$D/utf.err")" "2 hprofan: $D/utf.json: offset 23: not UTF-8"
head -c $((5 << 20)) /dev/zero | tr '\0' ' ' >"$D/big.json"
"$HPROFAN" check "$A" --budget "$D/big.json" --quiet 2>"$D/big.err" >/dev/null
expect_eq "check: a budget over 4 MiB: exit 2" "$? $(grep -c 'larger than 4 MiB' "$D/big.err")" "2 1"
"$HPROFAN" check "$A" --budget "$D/missing.json" --quiet 2>"$D/missing.err" >/dev/null
expect_eq "check: a missing budget file: exit 2, one line" "$? $(cat "$D/missing.err")" "2 hprofan: $D/missing.json: No such file or directory"
"$HPROFAN" check "$A" --quiet 2>/dev/null >/dev/null
expect_eq "check without --budget: a usage error" "$?" 2
chk nodump '{"zombies": 0}' "$D/no-such.hprof"
expect_eq "check: a dump that is not there: exit 1 (a bad input, not a budget breach)" "$(rc nodump)" 1
printf 'JAVA PROFILE 1.0.2\0' >"$D/short.hprof"
chk short '{"zombies": 0}' "$D/short.hprof"
expect_eq "check: a dump cut short: exit 3" "$(rc short)" 3
# a name with nothing near it counts as 0, said so
chk absent '{"classes": {"org.nowhere.Zyxwvut": {"max_instances": 0}}}' "$A" --size-model=raw
expect_eq "check: a class the dump lacks, nothing near it: 0 instances, a note, exit 0" \
  "$(rc absent) $(grep -c 'note: class org.nowhere.Zyxwvut is not in the dump: counted as 0' "$D/absent.out")" "0 1"
# -o writes the table (atomically, as every command)
chk out '{"zombies": 2}' "$A" --size-model=raw -o "$D/table.txt"
expect_eq "check -o: the table in the file, nothing on stdout" "$(rc out) $(wc -c <"$D/out.out") $(grep -c 'all 1 rule within budget' "$D/table.txt")" "0 0 1"

# ---- docs/check.md's Java: dumps its own heap, runs check ------------------------------
if ! command -v javac >/dev/null 2>&1 || ! command -v java >/dev/null 2>&1; then
  skip "check: docs/check.md's HeapBudgetCheck" "no JDK"
else
  J=$D/java; mkdir -p "$J"
  awk '/<!-- check.sh: HeapBudgetCheck.java -->/ { on = 1; next } on && /^```java/ { code = 1; next }
       code && /^```/ { exit } code' "$root/docs/check.md" >"$J/HeapBudgetCheck.java"
  echo '{"classes": {"HeapBudgetCheck$Order": {"max_instances": 1000}}, "zombies": 0}' >"$J/budget.json"
  if ! javac -d "$J" "$J/HeapBudgetCheck.java" 2>"$J/javac.err"; then
    fail "check: docs/check.md's HeapBudgetCheck compiles" "$(head -c 400 "$J/javac.err")"
  else
    HPROFAN=$REL java -cp "$J" HeapBudgetCheck "$J/budget.json" "$J/self.hprof" "$J/self.xml" >"$J/run.out" 2>&1
    expect_eq "check: docs/check.md's HeapBudgetCheck dumps its heap, its 1,000 Orders within budget: exit 0" "$?" 0
    echo '{"classes": {"HeapBudgetCheck$Order": {"max_instances": 999}}}' >"$J/over.json"
    "$HPROFAN" check "$J/self.hprof" --budget "$J/over.json" --quiet >/dev/null 2>&1
    expect_eq "check: the same dump with a limit of 999 Orders: exit 5" "$?" 5
  fi
fi
