#!/usr/bin/env bash
# Replays every fuzz target (tests/fuzz/fuzz_*.c, built with replay.c's main
# under ASan/UBSan) over its seed corpus tests/fuzz/corpus/TARGET/ and over
# every file in tests/fuzz/regressions/ (each regression goes through all
# targets: they are small).  A crash, leak or sanitizer report fails.
. "$(dirname "$0")/../lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(dirname "$HPROFAN")/fuzz
for t in scanner subrecord gzip pipeline cli mapping index report redact; do
  bin=$dir/replay_$t
  if [ ! -x "$bin" ]; then skip "replay $t" "$bin is not built (make unit)"; continue; fi
  out=$(timeout 300 "$bin" "$root/tests/fuzz/corpus/$t" "$root/tests/fuzz/regressions" 2>&1); rc=$?
  last=$(printf '%s\n' "$out" | tail -n 1)
  if [ $rc = 0 ] && [[ $last =~ ^([0-9]+)\ passed,\ 0\ failed$ ]] && [ "${BASH_REMATCH[1]}" -gt 0 ]; then
    ok "replay $t ($last)"
  else
    fail "replay $t" "exit $rc: $(printf '%s\n' "$out" | grep -m3 -E 'ERROR|runtime error|SUMMARY|replay ' ; printf '%s' "$last")"
  fi
done
