#!/usr/bin/env bash
# top --buckets on a dump built byte by byte, under the raw size model (an
# array's shallow size is its elements' bytes, an instance's its fields'),
# every figure worked out by hand:
#  - byte[]: lengths 0 and 16 (<= 16 B: 2 arrays, 16 bytes), 17 (<= 32 B),
#    1,048,576 (exactly 1 MiB: <= 1 MiB) and 1,048,577 (> 1 MiB);
#  - int[]: 4 elements = 16 B (<= 16 B), 5 = 20 B (<= 32 B);
#  - com.acme.Foo (an int and a long: 12 B) x 3: <= 16 B, 36 bytes;
#  - every row's buckets add up to its instances and shallow bytes, the
#    total's to the table's; the text lists each non-empty bucket;
#  - the same from a pipe (one pass: the object table, no retained sizes);
#    --buckets with --fast or --group is a usage error;
#  - the class table's avg column (one line of its column list): shallow
#    bytes per instance, rounded down (byte[]: 2,097,186 / 5 = 419,437 B,
#    "410 KiB"; int[]: 36 / 2; Foo: 36 / 3), in the text and as "average" in
#    the JSON, with or without --buckets and with --fast; blank on the total.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip buckets "python3 is absent"; exit 0; }
H=$(cd "$(dirname "$0")/../helper" && pwd)
D=$TMPD

python3 - "$D/b.hprof" "$H" <<'PY' || { fail buckets-build "cannot write the test dump"; exit 0; }
import sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
d = Dump()
obj = d.load_class("java.lang.Object"); d.class_dump(obj)
foo = d.load_class("com.acme.Foo"); d.class_dump(foo, obj, fields=[("a", INT), ("b", LONG)])
d.load_class("[B"); d.load_class("[I")
for n in (0, 16, 17, 1 << 20, (1 << 20) + 1):
    d.root(d.prim_array(BYTE, bytes(n)))
d.root(d.prim_array(INT, bytes(16)))
d.root(d.prim_array(INT, bytes(20)))
for i in range(3):
    d.root(d.instance(foo, [i, i]))
d.write(sys.argv[1])
PY

run_hp "$D/j" "$D/err" top "$D/b.hprof" --size-model=raw --buckets --json --top 0 --quiet
rc=$?
expect_eq "top --buckets: exit 0" "$rc" 0
B='{r["class"]: [(b["above"], b.get("upto"), b["instances"], b["bytes"]) for b in r["buckets"]] for r in d["classes"]}'
expect_eq "top --buckets: byte[] at 16, 17, 1 MiB and 1 MiB + 1 bytes" "$(jget "$D/j" "$B[\"byte[]\"]")" \
  "[(0, 16, 2, 16), (16, 32, 1, 17), (524288, 1048576, 1, 1048576), (1048576, None, 1, 1048577)]"
expect_eq "top --buckets: int[] of 16 and 20 bytes" "$(jget "$D/j" "$B[\"int[]\"]")" "[(0, 16, 1, 16), (16, 32, 1, 20)]"
expect_eq "top --buckets: three 12-byte instances" "$(jget "$D/j" "$B[\"com.acme.Foo\"]")" "[(0, 16, 3, 36)]"
expect_eq "top --buckets: each row's buckets add up to its instances and bytes, the total's to the table's" \
  "$(jget "$D/j" 'all(sum(b["instances"] for b in r["buckets"]) == r["instances"] and sum(b["bytes"] for b in r["buckets"]) == r["shallow"] for r in d["classes"]) and sum(b["instances"] for b in d["total"]["buckets"]) == d["total"]["instances"] and sum(b["bytes"] for b in d["total"]["buckets"]) == d["total"]["shallow"]')" \
  "true"

run_hp "$D/out" "$D/err" top "$D/b.hprof" --size-model=raw --buckets --top 0 --sort=name --quiet
expect_eq "top --buckets: the text lists each non-empty bucket under its row" \
  "$(grep -A1 -E '  (byte|int)\[\]$' "$D/out" | grep 'sizes:' | sed -E 's/^ +//' | paste -sd'|')" \
  "sizes: ≤16 B 2 (16 B), ≤32 B 1 (17 B), ≤1 MiB 1 (1.00 MiB), >1 MiB 1 (1.00 MiB)|sizes: ≤16 B 1 (16 B), ≤32 B 1 (20 B)"

# the avg column: text (under the title, right-aligned as its width 8), JSON
A='sorted((r["class"], r["average"]) for r in d["classes"] if r["class"] != "java.lang.Class")'
expect_eq "top: average in the JSON rows (shallow / instances, rounded down)" "$(jget "$D/j" "$A")" \
  "[('byte[]', 419437), ('com.acme.Foo', 12), ('int[]', 18)]"
avg_cells() { awk 'NR == 1 { i = index($0, "     avg"); next } i && ($1 ~ /^[0-9]+$/ || $1 == "total") { c = substr($0, i, 8); gsub(/^ +/, "", c); if ($1 == "total") print "total:" c; else print $NF ":" c }' "$1" | grep -v '^java.lang.Class:' | paste -sd'|'; }
run_hp "$D/out" "$D/err" top "$D/b.hprof" --size-model=raw --top 0 --sort=name --quiet
expect_eq "top: the avg column in the text, blank on the total line" "$(avg_cells "$D/out")" \
  "byte[]:410 KiB|com.acme.Foo:12 B|int[]:18 B|total:"
run_hp "$D/out" "$D/err" top "$D/b.hprof" --size-model=raw --top 0 --sort=name --fast --quiet
expect_eq "top --fast: the avg column" "$(avg_cells "$D/out")" "byte[]:410 KiB|com.acme.Foo:12 B|int[]:18 B|total:"
run_hp "$D/j" "$D/err" top "$D/b.hprof" --size-model=raw --top 0 --fast --json --quiet
expect_eq "top --fast: average in the JSON rows" "$(jget "$D/j" "$A")" "[('byte[]', 419437), ('com.acme.Foo', 12), ('int[]', 18)]"

# a pipe: the object table in one pass
cat "$D/b.hprof" | "$HPROFAN" top - --size-model=raw --buckets --json --top 0 --quiet >"$D/p.json" 2>"$D/err"
expect_eq "top --buckets from a pipe: the same buckets" "$(jget "$D/p.json" "$B[\"byte[]\"]")" \
  "[(0, 16, 2, 16), (16, 32, 1, 17), (524288, 1048576, 1, 1048576), (1048576, None, 1, 1048577)]"
run_hp "$D/out" "$D/err" top "$D/b.hprof" --buckets --fast --quiet
expect_eq "top --buckets --fast: a usage error" "$?" 2
run_hp "$D/out" "$D/err" top "$D/b.hprof" --buckets --group=package --quiet
expect_eq "top --buckets --group: a usage error" "$?" 2
