#!/usr/bin/env bash
# Runs every test: the layer wall, the unit programs (ASan+UBSan) and the CLI
# scripts against the sanitized binary, JOBS at a time.  Each program or
# script ends with its own "N passed, N failed[, N skipped]" line; as each
# ends, one line says its name, those counts and its seconds, followed by its
# FAIL and skip lines.  A program or script that ends without its counts, or
# whose counts disagree with its ok/FAIL/skip lines, is a failure.
# Last line: "N passed, N failed[, N skipped]".
#
# JOBS: $TEST_JOBS, else make's -jN (make -j2 check), else the number of
# processors.  The slowest of the last run (build/test-times) start first.
# python3 is /usr/bin/python3 when there is one (scripts/install-deps
# provides it with python3-jsonschema), whatever PATH finds first: a
# version manager's shim (pyenv's) costs 0.1 s a start, and the scripts
# start python3 about a thousand times; TEST_PYTHON=PATH names another.
set -u
BUILD=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
case $BUILD in /*) ;; *) BUILD=$root/$BUILD ;; esac
export HPROFAN=${HPROFAN:-$BUILD/san/hprofan}
export CORPUS=${CORPUS:-$(cd "$root/.." && pwd)/shared/corpus}
export TESTDATA=$root/testdata
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:exitcode=99}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:exitcode=98}
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/hprofan-tests.XXXXXX")
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$TMPD"' EXIT
trap 'exit 130' INT TERM

jobs_wanted() {
  if [ -n "${TEST_JOBS:-}" ]; then echo "$TEST_JOBS"; return; fi
  local w
  for w in ${MAKEFLAGS:-}; do
    case $w in -j[0-9]*) echo "${w#-j}"; return ;; esac
  done
  nproc 2>/dev/null || echo 2
}
JOBS=$(jobs_wanted)
[[ $JOBS =~ ^[1-9][0-9]*$ ]] || JOBS=2

py=${TEST_PYTHON:-}
[ -z "$py" ] && [ -x /usr/bin/python3 ] && py=/usr/bin/python3
if [ -n "$py" ] && [ "$(command -v python3)" != "$py" ]; then
  mkdir -p "$TMPD/bin" && ln -sf "$py" "$TMPD/bin/python3" && export PATH=$TMPD/bin:$PATH
fi

# ---- the tasks: NAME, then how to run it --------------------------------------
names=() cmds=()
names+=(wall); cmds+=("tests/wall.sh >/dev/null && echo '1 passed, 0 failed' || echo '0 passed, 1 failed'")
# a unit program that answers --shards with N > 1 runs as N tasks
# (--shard K/N); the others refuse the argument
for t in "$BUILD"/san/unit/*; do
  [ -x "$t" ] || continue
  n=$("$t" --shards 2>/dev/null) || n=1
  [[ $n =~ ^[1-9][0-9]*$ ]] || n=1
  if [ "$n" -eq 1 ]; then
    names+=("unit/$(basename "$t")"); cmds+=("$(printf '%q' "$t")")
  else
    for ((k = 1; k <= n; k++)); do
      names+=("unit/$(basename "$t")[$k/$n]"); cmds+=("$(printf '%q' "$t") --shard $k/$n")
    done
  fi
done
for s in tests/cli/*.sh; do
  [ -f "$s" ] || continue
  names+=("cli/$(basename "$s" .sh)"); cmds+=("bash $(printf '%q' "$s")")
done
# slowest first, by the last run's seconds (a task not timed yet goes
# first); a clean checkout (CI) has no last run: tests/test-times, a run's
# times kept in the repository, orders it (without it the slowest started
# last, alone on one core for its last minute)
TIMES=$BUILD/test-times
[ -s "$TIMES" ] || TIMES=$root/tests/test-times
order=$(for i in "${!names[@]}"; do
  sec=$(awk -v n="${names[$i]}" '$1 == n { print $2 }' "$TIMES" 2>/dev/null)
  printf '%s %s\n' "${sec:-1e9}" "$i"
done | sort -k1,1gr -k2,2n | awk '{ print $2 }')

pass=0 failc=0 skipc=0
declare -A started_at
: >"$TMPD/times"

# report I: the line for task I once it has ended, and its FAIL and skip lines
report() {
  local i=$1 name=${names[$1]} log=$TMPD/$1.log rc sec last p f s lp lf ls bad=
  rc=$(cat "$TMPD/$i.rc")
  sec=$(awk -v a="${started_at[$i]}" -v b="$(cat "$TMPD/$i.end")" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
  printf '%s %s\n' "$name" "$sec" >>"$TMPD/times"
  last=$(grep -E '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$log" | tail -n 1)
  lp=$(grep -c '^ok ' "$log") lf=$(grep -c '^FAIL ' "$log") ls=$(grep -c '^skip ' "$log")
  if [[ $last =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed(,\ ([0-9]+)\ skipped)?$ ]]; then
    p=${BASH_REMATCH[1]} f=${BASH_REMATCH[2]} s=${BASH_REMATCH[4]:-0}
    # a script's lines (a unit program prints only its FAILs) must agree with its counts
    if [[ $name == cli/* ]] && { [ "$p" != "$lp" ] || [ "$f" != "$lf" ] || [ "$s" != "$ls" ]; }; then
      bad="its counts ($p, $f, $s) are not its ok/FAIL/skip lines ($lp, $lf, $ls)"
    fi
    [ "$rc" != 0 ] && [ "$f" = 0 ] && [[ $name != cli/* ]] && bad="exited $rc"
  else
    p=$lp f=$lf s=$ls bad="ended without its counts (exit $rc)"
  fi
  # bash's own diagnostics about a script (an unbound variable, a syntax
  # error, a command not found) stop or skip its checks without a FAIL line
  if [[ $name == cli/* ]] && grep -q "^tests/${name}.sh: line [0-9]*: " "$log"; then
    bad="the script itself failed (bash diagnostics above)"
  fi
  [ -n "$bad" ] && f=$((f + 1))
  pass=$((pass + p)) failc=$((failc + f)) skipc=$((skipc + s))
  printf '%-28s %6s passed, %s failed, %s skipped  %6.1f s\n' "$name:" "$p" "$f" "$s" "$sec"
  if [[ $name == cli/* ]]; then
    grep -E '^(FAIL|skip) ' "$log" | sed "s|^\(FAIL\|skip\) |\1 ${name#cli/}/|"
    grep -E "^tests/${name}.sh: line [0-9]*: " "$log"
  elif [ "$f" != 0 ] || [ -n "$bad" ]; then
    grep -E 'FAIL|ERROR|runtime error|Sanitizer' "$log" | head -20
  fi
  [ -n "$bad" ] && { echo "FAIL $name: $bad"; tail -n 20 "$log"; }
}

t0=$(date +%s%N)
running=0
reported=()
pending=($order)
while [ ${#pending[@]} -gt 0 ] || [ "$running" -gt 0 ]; do
  while [ ${#pending[@]} -gt 0 ] && [ "$running" -lt "$JOBS" ]; do
    i=${pending[0]}; pending=("${pending[@]:1}")
    started_at[$i]=$(date +%s%N)
    dir=$TMPD/$i.tmp
    mkdir -p "$dir"
    ( cd "$root" && TMPD=$dir TMPDIR=$dir bash -c "${cmds[$i]}" >"$TMPD/$i.log" 2>&1
      echo $? >"$TMPD/$i.rc.part"; date +%s%N >"$TMPD/$i.end"; mv "$TMPD/$i.rc.part" "$TMPD/$i.rc" ) &
    running=$((running + 1))
  done
  wait -n 2>/dev/null
  for i in "${!started_at[@]}"; do
    [ -z "${reported[$i]:-}" ] && [ -f "$TMPD/$i.rc" ] || continue
    reported[$i]=1
    running=$((running - 1))
    report "$i"
  done
done
sort -k1,1 "$TMPD/times" >"$BUILD/test-times" 2>/dev/null
echo "$(( ($(date +%s%N) - t0) / 1000000000 )) s with $JOBS jobs"

if [ "$skipc" -gt 0 ]; then
  echo "$pass passed, $failc failed, $skipc skipped"
else
  echo "$pass passed, $failc failed"
fi
[ "$failc" -eq 0 ]
