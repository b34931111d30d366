#!/usr/bin/env bash
# Runs every test: the layer wall, unit programs (ASan+UBSan), CLI scripts
# against the sanitized binary.  Last line: "N passed, N failed[, N skipped]".
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
export TMPD
trap 'rm -rf "$TMPD"' EXIT
pass=0 failc=0 skipc=0

count_lines() {   # reads ok/FAIL/skip lines
  while IFS= read -r line; do
    case $line in
      "ok "*) pass=$((pass + 1)) ;;
      "FAIL "*) failc=$((failc + 1)); echo "$line" ;;
      "skip "*) skipc=$((skipc + 1)); echo "$line" ;;
      *) echo "$line" ;;
    esac
  done
}

# 1. the wall: only src/cli/ prints, exits or touches curses
if out=$(tests/wall.sh); then pass=$((pass + 1))
else echo "FAIL $out"; failc=$((failc + 1)); fi

# 2. unit programs
for t in "$BUILD"/san/unit/*; do
  [ -x "$t" ] || continue
  name=$(basename "$t")
  out=$("$t" 2>&1); rc=$?
  last=$(printf '%s\n' "$out" | tail -n 1)
  if [[ $last =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed(,\ ([0-9]+)\ skipped)?$ ]]; then
    pass=$((pass + BASH_REMATCH[1])); failc=$((failc + BASH_REMATCH[2]))
    skipc=$((skipc + ${BASH_REMATCH[4]:-0}))
    if [ "${BASH_REMATCH[2]}" != 0 ] || [ $rc != 0 ]; then
      printf '%s\n' "$out" | grep -E 'FAIL|ERROR|runtime error|Sanitizer' | head -20
      [ $rc != 0 ] && [ "${BASH_REMATCH[2]}" = 0 ] && { echo "FAIL unit/$name exited $rc"; failc=$((failc + 1)); }
    fi
  else
    echo "FAIL unit/$name: no summary line (exit $rc)"; printf '%s\n' "$out" | tail -20
    failc=$((failc + 1))
  fi
done

# 3. CLI scripts
for s in tests/cli/*.sh; do
  [ -f "$s" ] || continue
  mkdir -p "$TMPD/$(basename "$s" .sh)"
  TMPD="$TMPD/$(basename "$s" .sh)" bash "$s" 2>&1 | sed "s|^\(ok\|FAIL\|skip\) |\1 $(basename "$s" .sh)/|" > "$TMPD/out.txt"
  count_lines < "$TMPD/out.txt"
  # bash's own diagnostics about the script (an unbound variable, a syntax
  # error, a command not found) stop or skip its checks without a FAIL line
  if grep -q "^$s: line [0-9]*: " "$TMPD/out.txt"; then
    echo "FAIL $(basename "$s" .sh): the script itself failed (bash diagnostics above)"
    failc=$((failc + 1))
  fi
done

if [ "$skipc" -gt 0 ]; then
  echo "$pass passed, $failc failed, $skipc skipped"
else
  echo "$pass passed, $failc failed"
fi
[ "$failc" -eq 0 ]
