#!/usr/bin/env bash
# hprofan idom on the heap of testdata/java/sqlbook/Book.java (a JDK 17
# dump), against what the program built:
#  - its 500 Orders live in one ArrayList: one Object[] dominates them all;
#    past the JDK's classes (--skip '^java\.') the Root holding the list;
#  - its 60 Sessions and their payloads: an Order and a Session ID together,
#    and a class with an ID of its own, each object once;
#  - the groups' dominated objects add up to the set (the JSON's total);
#  - the same answer as docs/sql.md's recipe 15 written in SQL (that only
#    says the two agree);
#  - a name no class has: the nearest names, exit 1; no argument: exit 2.
# Skipped without a JDK (javac, java, jcmd).
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip idom-jdk "python3 is absent"; exit 0; }
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
D=$TMPD
jdk_heap idom-jdk "$ROOT/testdata/java/sqlbook/Book.java" Book "$D" || exit 0
F=$D/Book.hprof
J() { "$HPROFAN" idom "$F" "$@" --json --quiet; }
row() {   # the groups of a document as "class,dominators,dominated;..."
  python3 -c '
import json, sys
d = json.load(sys.stdin)
t = d["total"]
assert sum(g["dominated"] for g in d["dominators"]) + d.get("more", {}).get("dominated", 0) == t["objects"] - t["unreachable"], "rows do not add up"
print(";".join("%s,%d,%d" % (g["class"], g["dominators"], g["dominated"]) for g in d["dominators"]))'
}
got=$(J 'Book$Order' | row 2>&1)
expect_eq "idom: the 500 Orders are dominated by one Object[] (the program's one list)" "$got" "java.lang.Object[],1,500"
got=$(J 'Book$Order' --skip '^java\.' | row 2>&1)
expect_eq "idom --skip '^java\.': past the list to the Root (the program)" "$got" 'Book$Root,1,500'
# an Order's ID and the Sessions' class, each object once; the same ID twice
oid=$("$HPROFAN" sql "$F" --csv --quiet "SELECT printf('0x%x', id) FROM objects WHERE class = 'Book\$Order' LIMIT 1" | tail -1 | tr -d '\r')
got=$(J "$oid" "$oid" 'Book$Session' --skip '^java\.' | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(d["total"]["objects"], ";".join("%s,%d" % (g["class"], g["dominated"]) for g in d["dominators"]))' 2>&1)
expect_eq "idom: an ID and a class together, each object once (1 Order + 60 Sessions, the program)" "$got" '61 Book$Root,61'
# the SQL recipe's answer
a=$("$HPROFAN" sql "$F" --csv --quiet "SELECT d.class, count(DISTINCT d.id), count(*) FROM objects o JOIN objects d ON d.id = o.idom WHERE o.class = 'java.lang.String' GROUP BY 1 ORDER BY 1" | tail -n +2 | tr -d '\r' | paste -sd';')
b=$(J java.lang.String --top 0 | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(";".join(sorted("%s,%d,%d" % (g["class"], g["dominators"], g["dominated"]) for g in d["dominators"] if not g.get("gc_roots"))))')
expect_eq "idom java.lang.String = the SQL of docs/sql.md's recipe 15" "$b" "$a"
# text: a header and a row per class
"$HPROFAN" idom "$F" 'Book$Order' --quiet >"$D/t.txt"
if grep -q "^immediate dominators of 500 objects" "$D/t.txt" && grep -q "java.lang.Object\[\]$" "$D/t.txt"; then ok "idom: the text table"
else fail "idom: the text table" "$(head -c 300 "$D/t.txt")"; fi
"$HPROFAN" idom "$F" 'Book$Ordr' --quiet >/dev/null 2>"$D/e.txt"
rc=$?
[ $rc = 1 ] && grep -q "no class named 'Book\$Ordr'.*did you mean 'Book\$Order'" "$D/e.txt" && ok "idom: a mistyped class: the nearest, exit 1" ||
  fail "idom: a mistyped class" "exit $rc: $(cat "$D/e.txt")"
"$HPROFAN" idom "$F" --quiet >/dev/null 2>"$D/e.txt"
rc=$?
[ $rc = 2 ] && grep -q "missing the object id: hprofan idom FILE CLASS|ID" "$D/e.txt" && ok "idom: without CLASS or ID: exit 2" ||
  fail "idom: without CLASS or ID" "exit $rc: $(cat "$D/e.txt")"
