#!/usr/bin/env bash
# Past 2^32 objects (issue 32, item 7): bench/gen_many writes a synthetic
# dump of N objects (default 5 G) to a pipe, `hprofan - --top --fast --json`
# reads it; the counts must be exactly the generator's (N objects and the
# three class objects; each class's), in memory that does not grow with N.
#
#   bench/many.sh path/to/hprofan path/to/gen_many [N]
#
# Prints the time, the rate, the peak RSS (/usr/bin/time, when present) and
# whether the counts agree; exits 1 when they do not or a side fails.
set -euo pipefail
BIN=$1 GEN=$2 N=${3:-${BENCH_MANY_N:-5000000000}}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
TIME=()
[ -x /usr/bin/time ] && TIME=(/usr/bin/time -f '%M' -o "$work/rss")
t0=$(date +%s.%N)
set +e
"$GEN" "$N" 2>"$work/gen.err" | "${TIME[@]}" "$BIN" - --top 0 --fast --json --quiet >"$work/out.json" 2>"$work/err"
st=("${PIPESTATUS[@]}")
set -e
t1=$(date +%s.%N)
if [ "${st[0]}" != 0 ] || [ "${st[1]}" != 0 ]; then
  echo "bench-many: generator exit ${st[0]}, hprofan exit ${st[1]}: $(head -c 300 "$work/gen.err" "$work/err")" >&2
  exit 1
fi
python3 - "$work/out.json" "$work/gen.err" "$t0" "$t1" "$work/rss" <<'PY'
import json, re, sys
out, gen, t0, t1, rss = sys.argv[1:6]
d = json.load(open(out))
g = dict(re.findall(r"(\S+)=(\d+)", open(gen).read()))
want = {"Many$A": int(g["A"]), "Many$B": int(g["B"]), "byte[]": int(g["byte[]"]), "java.lang.Class": 3}
got = {r["class"]: r["instances"] for r in d["classes"]}
n, total = int(g["objects"]), d["total"]["instances"]
secs = float(t1) - float(t0)
try:
    kb = int(open(rss).read().split()[-1])
except (OSError, ValueError, IndexError):
    kb = 0
ok = got == want and total == n + 3
print("bench-many: %d objects (%.2f G; 2^32 = 4.29 G), %.1f GB through a pipe in %.1f s: %.0f M objects/s, %.2f GB/s;"
      " peak RSS %s; counts %s" % (n, n / 1e9, int(g["bytes"]) / 1e9, secs, n / secs / 1e6, int(g["bytes"]) / 1e9 / secs,
                                   "%.1f MiB" % (kb / 1024) if kb else "not measured",
                                   "exact (total %d: the objects and 3 class objects)" % total if ok else
                                   "WRONG: got %s (total %d), want %s (total %d)" % (got, total, want, n + 3)))
sys.exit(0 if ok else 1)
PY
