#!/usr/bin/env bash
# Robustness sweeps over real and byte-built dumps, against the sanitized
# binary (ASan exits 99, UBSan 98 under run-all.sh's options):
#   truncation  each dump cut at record boundaries (exact, -3, +3) and at
#               random offsets: no crash or hang; `info` and `--top 5 --fast`
#               exit 3 with an error naming an offset at or before the cut
#               (a cut exactly at a boundary may also read as a whole dump:
#               exit 0); with --salvage both exit 0, except --top on a
#               cut before the heap dump: exit 1, "nothing to salvage"
#   corruption  random single bytes and record length fields overwritten:
#               `info` and `--top 5` (retained sizes) exit 0, 1 or 3, every
#               stderr line is hprofan's own
#   allocation  HPROFAN_FAIL_ALLOC=N for every N up to the allocations of a
#               whole run of `info` and `--top 5` on a small byte-built dump:
#               exit 4 with "out of memory" (0 once N passes the total), no
#               leak, no crash
# Dumps: ../shared/corpus (when present), testdata/, and the byte-built
# seeds in tests/fuzz/corpus/scanner (more cuts on those, they are small).
# Cuts and corruptions are drawn from SWEEP_SEED (printed); SWEEP_JOBS runs
# in parallel (default: nproc, at most 4).
. "$(dirname "$0")/../lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
if ! command -v python3 >/dev/null; then skip sweeps "python3 is needed to plan the cuts"; exit 0; fi
SEED=${SWEEP_SEED:-20261122}
JOBS=${SWEEP_JOBS:-$(n=$(nproc 2>/dev/null || echo 2); [ "$n" -gt 4 ] && n=4; echo "$n")}
TO=${SWEEP_TIMEOUT:-60}
echo "sweeps: seed $SEED, $JOBS jobs (SWEEP_SEED=$SEED reproduces)"

# ---- the dumps -----------------------------------------------------------
big=() small=()
for f in "$root"/tests/fuzz/corpus/scanner/*.hprof; do
  case $(basename "$f") in bad-*) ;; *) [ -f "$f" ] && small+=("$f") ;; esac
done
if [ -f "$TESTDATA/hprof/leakycache.hprof.gz" ]; then
  big+=("$TESTDATA/hprof/leakycache.hprof.gz")
  gzip -dc "$TESTDATA/hprof/leakycache.hprof.gz" > "$TMPD/leakycache.hprof" && big+=("$TMPD/leakycache.hprof")
fi
if have_corpus "sweeps corpus dumps"; then
  while IFS= read -r f; do big+=("$f"); done < <(awk -F'\t' 'NR > 1 && $1 != "" { print $1 }' "$CORPUS/MANIFEST.tsv" |
    while IFS= read -r p; do [ -f "$CORPUS/$p" ] && echo "$CORPUS/$p"; done)
fi

# ---- the plan: one job per line ------------------------------------------
# T FILE CUT EXACT    truncate FILE to CUT bytes (EXACT 1: at a record boundary)
# C FILE OFF HEX WHAT overwrite bytes at OFF with HEX
python3 - "$SEED" "${#big[@]}" "${big[@]}" "${small[@]}" > "$TMPD/plan.txt" <<'PY'
import gzip, random, struct, sys
seed, nbig = int(sys.argv[1]), int(sys.argv[2])
files = sys.argv[3:]
rnd = random.Random(seed)

def records(data):
    """(start, body length) of every top-level record, and the header length"""
    h = data.index(b'\0') + 1 + 4 + 8
    out, o = [], h
    while o + 9 <= len(data):
        n = struct.unpack('>I', data[o + 5:o + 9])[0]
        out.append((o, n))
        o += 9 + n
    return h, out

for k, f in enumerate(files):
    small = k >= nbig
    data = open(f, 'rb').read()
    is_gz = data[:2] == b'\x1f\x8b'
    corrupt_already = 'CORRUPT' in f     # real-world must-fail files: corruptions only
    if is_gz:
        # compressed bytes: random cuts and corruptions only
        for cut in rnd.sample(range(64, len(data) - 16), 2):
            print('T', f, cut, 0)
        print('C', f, rnd.randrange(64, len(data) - 8), '%02x' % rnd.randrange(256), 'byte')
        continue
    hdr, recs = records(data)
    if len(recs) < 2:
        continue
    first_end = recs[0][0] + 9 + recs[0][1]
    bounds = [s for s, _ in recs[1:]] + [len(data)]
    ncut, ncor, nlen = (6, 8, 6) if small else (1, 1, 1)
    cuts = set()
    for _ in range(ncut):
        b = rnd.choice(bounds)
        d = rnd.choice((0, -3, 3))
        if first_end < b + d < len(data):
            cuts.add((b + d, 1 if d == 0 else 0))
        r = rnd.randrange(first_end + 1, len(data))
        cuts.add((r, 1 if r in bounds else 0))
    for c, exact in sorted(cuts):
        if not corrupt_already:
            print('T', f, c, exact)
    for _ in range(ncor):
        o = rnd.randrange(hdr, len(data))
        print('C', f, o, '%02x' % (data[o] ^ (1 << rnd.randrange(8))), 'byte')
    for _ in range(nlen):
        s, n = rnd.choice(recs)
        v = rnd.choice((0, 1, n - 1, n + 1, n + 4096, 0x7fffffff, 0xffffffff, rnd.randrange(1 << 32)))
        print('C', f, s + 5, '%08x' % (v & 0xffffffff), 'length')
PY
njobs=$(wc -l < "$TMPD/plan.txt" | tr -d ' ')

# ---- one job: prints ok/FAIL lines -----------------------------------------
cat > "$TMPD/job.sh" <<'JOB'
set -u
id=$1 kind=$2 src=$3 off=$4 arg=$5
name="$(basename "$src")@$off"
f=$TMPD/job$id.$(basename "$src")
msg() { head -c 300 "$1" | tr '\n' ' '; }
san() { [ "$1" = 98 ] || [ "$1" = 99 ] || grep -qE 'Sanitizer|runtime error' "$2"; }
own() { ! grep -qvE '^hprofan: ' "$1"; }   # every stderr line is hprofan's
run() { timeout "$TO" "$HPROFAN" "$@" --quiet > "$f.out" 2> "$f.err"; }
if [ "$kind" = T ]; then
  head -c "$off" "$src" > "$f"
  for cmd in "info" "--top 5 --fast"; do
    set -- $cmd
    if [ "$1" = info ]; then run info "$f"; else run "$f" "$@"; fi; rc=$?
    l1=$(sed -n 1p "$f.err")
    at=$(printf '%s' "$l1" | sed -nE 's/.*: offset ([0-9]+) \(0x[0-9a-f]+\).*/\1/p')
    if [ $rc = 124 ]; then echo "FAIL cut $name $cmd: hangs (over ${TO}s)"
    elif san $rc "$f.err"; then echo "FAIL cut $name $cmd: sanitizer (exit $rc): $(grep -m2 -E 'ERROR|runtime error' "$f.err")"
    elif [ $rc = 0 ] && [ "$arg" = 1 ]; then echo "ok cut $name $cmd"
    # an hprof agent file cut before its heap dump reads as one without
    elif [ $rc = 1 ] && [ "$1" != info ] && grep -q 'holds no heap dump.*cut short' "$f.err"; then echo "ok cut $name $cmd (no heap dump)"
    elif [ $rc != 3 ]; then echo "FAIL cut $name $cmd: exit $rc, want 3: $(msg "$f.err")"
    elif [ -z "$at" ]; then echo "FAIL cut $name $cmd: the error names no offset: $l1"
    elif [ "${src%.gz}" = "$src" ] && [ "$at" -gt "$off" ]; then echo "FAIL cut $name $cmd: error offset $at is past the cut"
    elif ! own "$f.err"; then echo "FAIL cut $name $cmd: stray stderr: $(grep -m2 -vE '^hprofan: ' "$f.err")"
    else echo "ok cut $name $cmd"; fi
    if [ "$1" = info ]; then run info "$f" --salvage; else run "$f" "$@" --salvage; fi; rc=$?
    # --top on a cut before any heap dump began: nothing to salvage, exit 1
    if [ $rc = 0 ] && own "$f.err"; then echo "ok cut $name $cmd --salvage"
    elif [ $rc = 1 ] && [ "$1" != info ] && grep -q 'nothing to salvage' "$f.err" && own "$f.err"; then echo "ok cut $name $cmd --salvage (nothing to salvage)"
    else echo "FAIL cut $name $cmd --salvage: exit $rc: $(msg "$f.err")"; fi
  done
else
  cp "$src" "$f"; chmod u+w "$f"
  printf "$(printf '%s' "$arg" | sed 's/../\\x&/g')" | dd of="$f" bs=1 seek="$off" conv=notrunc status=none
  for cmd in "info" "--top 5"; do
    set -- $cmd
    if [ "$1" = info ]; then run info "$f"; else run "$f" "$@"; fi; rc=$?
    what="corrupt $name=$arg $cmd"
    if [ $rc = 124 ]; then echo "FAIL $what: hangs (over ${TO}s)"
    elif san $rc "$f.err"; then echo "FAIL $what: sanitizer (exit $rc): $(grep -m2 -E 'ERROR|runtime error' "$f.err")"
    elif [ $rc != 0 ] && [ $rc != 1 ] && [ $rc != 3 ]; then echo "FAIL $what: exit $rc: $(msg "$f.err")"
    elif ! own "$f.err"; then echo "FAIL $what: stray stderr: $(grep -m2 -vE '^hprofan: ' "$f.err")"
    else echo "ok $what"; fi
  done
fi
rm -f "$f" "$f.out" "$f.err"
JOB
export TO
t0=$SECONDS
awk '{ print NR, $0 }' "$TMPD/plan.txt" |
  xargs -P "$JOBS" -L 1 bash "$TMPD/job.sh" > "$TMPD/results.txt" 2>&1
grep -v '^ok ' "$TMPD/results.txt"
nok=$(grep -c '^ok ' "$TMPD/results.txt"); nbad=$(grep -vc '^ok ' "$TMPD/results.txt")
echo "sweeps: truncation+corruption: $njobs files, $nok checks passed, $nbad failed, $((SECONDS - t0))s"
if [ "$nbad" = 0 ]; then ok "truncation and corruption sweep ($nok checks on $njobs files, seed $SEED)"
else fail "truncation and corruption sweep" "$nbad of $((nok + nbad)) checks failed (seed $SEED)"; fi

# ---- allocation failures -----------------------------------------------------
# alloc_total ARGS...: the smallest N at which HPROFAN_FAIL_ALLOC=N no longer
# matters (the run's allocations + 1), by doubling then bisection
alloc_total() {
  local lo=1 hi=1
  while HPROFAN_FAIL_ALLOC=$hi "$HPROFAN" "$@" --quiet > /dev/null 2>&1; [ $? != 0 ]; do
    lo=$hi; hi=$((hi * 2)); [ $hi -gt 1000000 ] && { echo 0; return; }
  done
  while [ $((hi - lo)) -gt 1 ]; do
    local mid=$(((lo + hi) / 2))
    if HPROFAN_FAIL_ALLOC=$mid "$HPROFAN" "$@" --quiet > /dev/null 2>&1; then hi=$mid; else lo=$mid; fi
  done
  echo $hi
}
cat > "$TMPD/alloc.sh" <<'JOB'
set -u
n=$1 dump=$2 want=$3; shift 3
f=$TMPD/alloc.$$
msg() { head -c 300 "$1" | tr '\n' ' '; }
HPROFAN_FAIL_ALLOC=$n timeout "$TO" "$HPROFAN" "$@" --quiet > "$f.out" 2> "$f.err"; rc=$?
what="alloc $(basename "$dump") $* N=$n"
if [ $rc = 124 ]; then echo "FAIL $what: hangs"
elif [ $rc = 98 ] || [ $rc = 99 ] || grep -qE 'Sanitizer|runtime error' "$f.err"; then
  echo "FAIL $what: sanitizer (exit $rc): $(grep -m2 -E 'ERROR|runtime error' "$f.err")"
elif [ $rc = 0 ]; then
  if cmp -s "$f.out" "$want"; then echo "ok $what"; else echo "FAIL $what: exit 0 with different output"; fi
elif [ $rc != 4 ]; then echo "FAIL $what: exit $rc, want 4: $(msg "$f.err")"
elif ! grep -q 'out of memory' "$f.err"; then echo "FAIL $what: no 'out of memory': $(msg "$f.err")"
elif grep -qvE '^hprofan: ' "$f.err"; then echo "FAIL $what: stray stderr: $(grep -m2 -vE '^hprofan: ' "$f.err")"
elif [ "$(wc -l < "$f.err")" -gt 2 ]; then echo "FAIL $what: $(wc -l < "$f.err") stderr lines: $(msg "$f.err")"
else echo "ok $what"; fi
rm -f "$f.out" "$f.err"
JOB
t0=$SECONDS
: > "$TMPD/alloc-plan.txt"
seeds=$root/tests/fuzz/corpus/scanner
# and a dump whose every object is reached from a root (the dominator pass's
# arrays then hold all of them: a failed realloc once wrote past one)
python3 - "$TMPD/reached.hprof" "$root/tests/helper" <<'PY' || fail alloc-reached "cannot write reached.hprof"
import sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
d = Dump()
obj = d.load_class("java.lang.Object"); d.class_dump(obj)
foo = d.load_class("com.app.Foo"); d.class_dump(foo, obj, fields=[("x", INT)])
for c in (foo, foo, obj):
    d.root(d.instance(c, [1] if c == foo else []))
d.write(sys.argv[1])
PY
for args in "info $seeds/hotspot4.hprof" "$seeds/hotspot4.hprof --top 5" "$seeds/android4.hprof --top 5" \
            "$TMPD/reached.hprof --top 5 --no-index"; do
  set -- $args
  [ -f "$seeds/hotspot4.hprof" ] && [ -f "$seeds/android4.hprof" ] || break
  [ "$1" = info ] && d=$2 || d=$1
  want=$TMPD/alloc-want.$(basename "$d").$([ "$1" = info ] && echo info || echo top)
  "$HPROFAN" "$@" --quiet > "$want" 2>/dev/null
  total=$(alloc_total "$@")
  if [ "$total" = 0 ]; then fail "alloc $args" "still failing with HPROFAN_FAIL_ALLOC=1000000"; continue; fi
  echo "sweeps: $(basename "$d") $([ "$1" = info ] && echo info || echo --top 5): $((total - 1)) allocations"
  for n in $(seq 1 "$total"); do echo "$n $d $want $args"; done >> "$TMPD/alloc-plan.txt"
done
nruns=$(wc -l < "$TMPD/alloc-plan.txt" | tr -d ' ')
xargs -P "$JOBS" -L 1 bash "$TMPD/alloc.sh" < "$TMPD/alloc-plan.txt" > "$TMPD/alloc-results.txt" 2>&1
grep -v '^ok ' "$TMPD/alloc-results.txt" | head -20
nok=$(grep -c '^ok ' "$TMPD/alloc-results.txt"); nbad=$(grep -vc '^ok ' "$TMPD/alloc-results.txt")
echo "sweeps: allocation failures: $nruns runs, $nok passed, $nbad failed, $((SECONDS - t0))s"
if [ "$nbad" = 0 ] && [ "$nok" -gt 0 ]; then ok "allocation-failure sweep ($nok runs)"
else fail "allocation-failure sweep" "$nbad of $nruns runs failed"; fi
