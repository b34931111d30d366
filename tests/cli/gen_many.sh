#!/usr/bin/env bash
# make bench-many's pieces (bench/many.sh, bench/gen_many.c), small: two
# million objects through a pipe into --fast, the counts the generator says
# (the run past 2^32 objects is make bench-many's: 117 GB, a minute); and a
# generator cut short by a closed pipe says so and fails.
. "$(dirname "$0")/../lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
GEN=${REL%/hprofan}/gen_many
[ -x "$GEN" ] || { skip gen_many "no $GEN (make check builds it)"; exit 0; }
if out=$("$ROOT/bench/many.sh" "$HPROFAN" "$GEN" 2000000 2>&1) && grep -q "counts exact (total 2000003" <<<"$out"
then ok "gen_many: 2 M objects through a pipe, --fast counts each class exactly"
else fail gen_many "$(head -c 400 <<<"$out")"; fi
# the generator's own counts, against a histogram made another way: the
# model's (no --fast), on a file
"$GEN" 100003 -o "$TMPD/m.hprof" 2>"$TMPD/gen.err"
want=$(sed -E 's/.* A=([0-9]+) B=([0-9]+) byte\[\]=([0-9]+).*/\1 \2 \3/' "$TMPD/gen.err")
got=$("$HPROFAN" top "$TMPD/m.hprof" --top 0 --json --no-index 2>/dev/null | python3 -c '
import json, sys
d = {r["class"]: r["instances"] for r in json.load(sys.stdin)["classes"]}
print(d.get("Many$A"), d.get("Many$B"), d.get("byte[]"))')
if [ -n "$want" ] && [ "$want" = "$got" ] && [ "$want" = "37503 25000 37500" ]
then ok "gen_many: its counts are the model's (Many\$A, Many\$B, byte[]: $got)"
else fail gen_many "generator says '$want', the model '$got', want 37503 25000 37500"; fi
# a reader that stops: the generator fails with one line
"$GEN" 100000000 2>"$TMPD/gen.err" | head -c 1000 >/dev/null
if [ "${PIPESTATUS[0]}" -eq 1 ] && grep -q "^gen_many: write failed" "$TMPD/gen.err"
then ok "gen_many: a closed pipe: exit 1, said"
else fail gen_many "a closed pipe: $(head -c 200 "$TMPD/gen.err")"; fi
