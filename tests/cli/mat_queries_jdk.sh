#!/usr/bin/env bash
# MAT's query commands (idom, group-by-value) on the heap of
# testdata/java/sqlbook/Book.java (a JDK 17 dump), against what the
# program built.  idom:
#  - its 500 Orders live in one ArrayList: one Object[] dominates them all;
#    past the JDK's classes (--skip '^java\.') the Root holding the list;
#  - its 60 Sessions and their payloads: an Order and a Session ID together,
#    and a class with an ID of its own, each object once;
#  - the groups' dominated objects add up to the set (the JSON's total);
#  - the same answer as docs/sql.md's recipe 15 written in SQL (that only
#    says the two agree);
#  - a name no class has: the nearest names, exit 1; no argument: exit 2.
# group-by-value:
#  - the 500 Orders by status: "NEW" 300, "PAID" 150, "SHIPPED" 50, their
#    shallow bytes the JVM histogram's per Order times the count;
#  - the 60 Sessions by region (eu 30, us 20, ap 10) and by their headers
#    map (each its own object: 60 groups of one);
#  - a primitive field (amount): the orders over 200 the program counted;
#  - the groups add up to the instances; a field no instance has: exit 2.
# Skipped without a JDK (javac, java, jcmd).
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip mat-queries-jdk "python3 is absent"; exit 0; }
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
D=$TMPD
jdk_heap mat-queries-jdk "$ROOT/testdata/java/sqlbook/Book.java" Book "$D" || exit 0
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

# ---- group-by-value ---------------------------------------------------------
G() { "$HPROFAN" group-by-value "$F" "$@" --json --quiet; }
vals() {   # "value,instances;..." of a document, checking that the groups add up
  python3 -c '
import json, sys
d = json.load(sys.stdin)
t = d["total"]
rows = d["values"] + ([d["more"]] if "more" in d else [])
assert sum(r["instances"] for r in rows) == t["instances"], "groups do not add up"
assert sum(r["shallow"] for r in rows) == t["shallow"], "shallow does not add up"
print(";".join("%s,%d" % (g["value"], g["instances"]) for g in d["values"]))'
}
got=$(G 'Book$Order' status | vals 2>&1)
expect_eq "group-by-value: the Orders by status (the program)" "$got" '"NEW",300;"PAID",150;"SHIPPED",50'
per=$(awk '$NF == "Book$Order" { print $3 / $2 }' "$D/Book.histo")
got=$(G 'Book$Order' status | python3 -c 'import json, sys; print(";".join(str(g["shallow"]) for g in json.load(sys.stdin)["values"]))')
expect_eq "group-by-value: each group's shallow bytes = count x the histogram's Order" "$got" "$((300 * per));$((150 * per));$((50 * per))"
got=$(G 'Book$Session' region | vals 2>&1)
expect_eq "group-by-value: the Sessions by region (the program)" "$got" '"eu",30;"us",20;"ap",10'
got=$(G 'Book$Session' headers --top 0 | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(len(d["values"]), set(g["instances"] for g in d["values"]), all(g["value"].startswith("java.util.HashMap @0x") for g in d["values"]))')
expect_eq "group-by-value: an object field: each map its own group (60 of one)" "$got" "60 {1} True"
got=$(G 'Book$Order' amount --top 0 | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(sum(g["instances"] for g in d["values"] if int(g["value"]) > 200))')
over=$(sed -n 's/^ORDERS_OVER_200=//p' "$D/Book.out")
expect_eq "group-by-value: a long field, the orders over 200 (the program)" "$got" "$over"
"$HPROFAN" group-by-value "$F" 'Book$Order' status --quiet >"$D/g.txt"
if grep -q '^500 instances of Book\$Order by status: 3 values' "$D/g.txt" && grep -q '"PAID"$' "$D/g.txt"; then ok "group-by-value: the text table"
else fail "group-by-value: the text table" "$(head -c 300 "$D/g.txt")"; fi
"$HPROFAN" group-by-value "$F" 'Book$Order' nope --quiet >/dev/null 2>"$D/e.txt"
rc=$?
[ $rc = 2 ] && grep -q "no instance of Book\$Order has a field 'nope'" "$D/e.txt" && ok "group-by-value: a field no instance has: exit 2" ||
  fail "group-by-value: a field no instance has" "exit $rc: $(cat "$D/e.txt")"
