#!/usr/bin/env bash
# diff and trend --group=package|loader|component, on three dumps
# built byte by byte (tests/helper/mkhprof.py, --size-model=raw: an instance
# is its field bytes), with hand-computed growth:
#
#   every dump: java.lang.Object, java.lang.String (value, coder: 5 B),
#   app.Loader (name: 4 B); [root] a Loader "webapp-A" (String -> byte[8]),
#   at another address in each dump; it defines com.acme.Bill (amount, next:
#   8 B); the bootstrap loader com.acme.sub.Z (x: 4 B), loaded from dump 2
#   on, and org.x.Y (a, b: 8 B), in dump 1 only (a class object counts in
#   its class's package and loader; under raw sizes a class object without
#   statics is 0 B)
#                   dump 1   dump 2   dump 3      (every object a GC root)
#   com.acme.Bill      2        5        9
#   com.acme.sub.Z     -        3        3
#   org.x.Y            1        -        -
#
# diff 1 -> 2 per package (its own classes): com.acme +3, +24 B (retained
# +24 B), com.acme.sub new +4 (3 Zs, class Z), +12 B, org.x gone -2 (the Y,
# class Y), -8 B; per loader: 'app.Loader "webapp-A"' +3, +24 B although its
# address moved, <bootstrap> +2, +4 B; per component (acme ^com\.acme\.):
# acme +7 (3 Bills, 3 Zs, class Z), +36 B, other -2 (the Y, class Y), -8 B.
# The groups' deltas add up to the class table's.  trend: com.acme 3, 6, 10
# (the Bills and class Bill), growing at every step; the bootstrap loader's
# objects 8, 10, 10 (the Loader, its String and byte[], the Zs and Ys, and
# the class objects of Object, String, Loader and of Y or Z), webapp-A's 3, 6,
# 10.  (Before class objects were grouped with their classes, every class
# object was java.lang's and the bootstrap loader's.)
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip group-diff "python3 is absent"; exit 0; }
H=$(cd "$(dirname "$0")/../helper" && pwd)
D=$TMPD/groupdiff
mkdir -p "$D"

python3 - "$D" "$H" <<'EOF'
import sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
for k, (nb, nz, ny) in enumerate([(2, 0, 1), (5, 3, 0), (9, 3, 0)]):
    d = Dump(timestamp_ms=1000 * (k + 1), first_id=0x1000 * (k + 1))
    obj = d.load_class("java.lang.Object"); d.class_dump(obj)
    strc = d.load_class("java.lang.String"); d.class_dump(strc, super_id=obj, fields=[("value", OBJECT), ("coder", BYTE)])
    ldr = d.load_class("app.Loader"); d.class_dump(ldr, super_id=obj, fields=[("name", OBJECT)])
    for _ in range(k):
        d.new_id()     # the loader at another address
    L = d.instance(ldr, [d.instance(strc, [d.prim_array(BYTE, b"webapp-A"), 0])])
    bill = d.load_class("com.acme.Bill"); d.class_dump(bill, super_id=obj, fields=[("amount", INT), ("next", OBJECT)], loader=L)
    d.root(L)
    if nz:
        z = d.load_class("com.acme.sub.Z"); d.class_dump(z, super_id=obj, fields=[("x", INT)])
    if ny:
        y = d.load_class("org.x.Y"); d.class_dump(y, super_id=obj, fields=[("a", INT), ("b", INT)])
    for i in range(nb):
        d.root(d.instance(bill, [i, 0]))
    for i in range(nz):
        d.root(d.instance(z, [i]))
    for i in range(ny):
        d.root(d.instance(y, [i, i]))
    d.write("%s/d%d.hprof" % (sys.argv[1], k + 1))
EOF
[ -f "$D/d3.hprof" ] || { fail group-diff "mkhprof.py wrote no dump"; exit 0; }

rows='[(g["name"], g["status"], g["delta"]["instances"], g["delta"]["shallow"], g["delta"].get("retained", "-")) for g in d["groups"]]'
if run_hp "$D/p.json" "$D/e" diff "$D/d1.hprof" "$D/d2.hprof" --size-model=raw --group=package --top 0 --json --quiet; then
  expect_eq "diff --group=package: per package growth" "$(jget "$D/p.json" "d['group'], sorted($rows)")" \
    "('package', [('com.acme', 'changed', 3, 24, 24), ('com.acme.sub', 'new', 4, 12, 12), ('org.x', 'gone', -2, -8, -8)])"
else
  fail "diff --group=package" "$(head -c 300 "$D/e")"
fi
run_hp "$D/c.json" "$D/e" diff "$D/d1.hprof" "$D/d2.hprof" --size-model=raw --top 0 --json --quiet
classes='sum(c["delta"]["instances"] for c in d["classes"]), sum(c["delta"]["shallow"] for c in d["classes"])'
groups='sum(c["delta"]["instances"] for c in d["groups"]), sum(c["delta"]["shallow"] for c in d["groups"])'
expect_eq "diff --group=package: the deltas add up to the class table's" "$(jget "$D/p.json" "$groups")" \
  "$(jget "$D/c.json" "$classes")"
if run_hp "$D/l.json" "$D/e" diff "$D/d1.hprof" "$D/d2.hprof" --size-model=raw --group=loader --top 0 --json --quiet; then
  expect_eq "diff --group=loader: the loader matched by class and name, not address" "$(jget "$D/l.json" "sorted($rows)")" \
    "[('<bootstrap>', 'changed', 2, 4, 4), ('app.Loader \"webapp-A\"', 'changed', 3, 24, 24)]"
  expect_eq "diff --group=loader: the deltas add up to the class table's" "$(jget "$D/l.json" "$groups")" \
    "$(jget "$D/c.json" "$classes")"
else
  fail "diff --group=loader" "$(head -c 300 "$D/e")"
fi
printf 'acme ^com\\.acme\\.\nnothing ^no\\.such\\.\n' >"$D/comp"
if run_hp "$D/k.json" "$D/e" diff "$D/d1.hprof" "$D/d2.hprof" --size-model=raw --components "$D/comp" --top 0 --json --quiet; then
  expect_eq "diff --components: acme and other" "$(jget "$D/k.json" "d['group'], sorted($rows)")" \
    "('component', [('acme', 'changed', 7, 36, 36), ('other', 'changed', -2, -8, -8)])"
else
  fail "diff --components" "$(head -c 300 "$D/e")"
fi
if run_hp "$D/f.json" "$D/e" diff "$D/d1.hprof" "$D/d2.hprof" --size-model=raw --group=package --fast --filter Bill --top 0 --json --quiet; then
  expect_eq "diff --group=package --fast --filter: the classes kept, grouped, no retained" "$(jget "$D/f.json" "$rows")" \
    "[('com.acme', 'changed', 3, 24, '-')]"
else
  fail "diff --group=package --fast --filter" "$(head -c 300 "$D/e")"
fi
run_hp "$D/p.txt" "$D/e" diff "$D/d1.hprof" "$D/d2.hprof" --size-model=raw --group=package --quiet
if grep -q '^packages by retained change (1 changed, 1 new, 1 gone)' "$D/p.txt" && grep -q ' com\.acme\.sub  \[new\]$' "$D/p.txt"; then
  ok "diff --group=package: the table"
else fail "diff --group=package: the table" "$(head -c 600 "$D/p.txt")"; fi
for args in "--group=loader --fast" "--group=pkg" "--group=package --components $D/comp" "--group=component"; do
  # shellcheck disable=SC2086
  run_hp "$D/o" "$D/e" diff "$D/d1.hprof" "$D/d2.hprof" $args --quiet; rc=$?
  if [ $rc = 2 ] && [ -s "$D/e" ] && [ ! -s "$D/o" ]; then ok "usage error: diff $args"
  else fail "usage error: diff $args" "exit $rc: $(head -c 200 "$D/e")"; fi
done

# trend over the three dumps
if run_hp "$D/t.json" "$D/e" trend "$D/d1.hprof" "$D/d2.hprof" "$D/d3.hprof" --size-model=raw --group=package --top 0 --json --quiet; then
  expect_eq "trend --group=package: series per package" \
    "$(jget "$D/t.json" 'd["group"], d["groups_total"], sorted((g["name"], g["instances"], g["shallow"], g["retained"], g["grows"]) for g in d["groups"] if not g["name"].startswith("java") and g["name"] not in ("app", "(no package)"))')" \
    "('package', 6, [('com.acme', [3, 6, 10], [16, 40, 72], [16, 40, 72], True), ('com.acme.sub', [0, 4, 4], [0, 12, 12], [0, 12, 12], False), ('org.x', [2, 0, 0], [8, 0, 0], [8, 0, 0], False)])"
else
  fail "trend --group=package" "$(head -c 300 "$D/e")"
fi
if run_hp "$D/tl.json" "$D/e" trend "$D/d1.hprof" "$D/d2.hprof" "$D/d3.hprof" --size-model=raw --group=loader --json --quiet; then
  expect_eq "trend --group=loader: the loader's series" \
    "$(jget "$D/tl.json" '[(g["name"], g["instances"]) for g in d["groups"]]')" \
    "[('app.Loader \"webapp-A\"', [3, 6, 10]), ('<bootstrap>', [8, 10, 10])]"
else
  fail "trend --group=loader" "$(head -c 300 "$D/e")"
fi
