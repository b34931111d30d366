#!/usr/bin/env bash
# --stats' phase_peaks: line (the allocator's peak in each phase):
#  - a retained run gives parse, refs, dominators and retained, none 0, and
#    their largest is at most the run's whole peak (spill: anon_peak; the
#    table printed after retained sizes can add to it);
#  - the run that writes the index gives index too, and there the largest
#    is the whole peak exactly (the phases cover the run up to the stats);
#  - a run from the index gives parse only (nothing computed);
#  - --top --fast gives parse only.
. "$(dirname "$0")/../lib.sh"

S=$TESTDATA/hprof/leakycache.hprof.gz
D=$TMPD/phase_peaks
mkdir -p "$D/ix"

# check NAME LOG KEYS EQUAL: the phase_peaks: line has exactly KEYS (bytes),
# none 0, their largest <= anon_peak (== when EQUAL is 1)
check() {
  local name=$1 log=$2 keys=$3 equal=$4 line anon
  line=$(grep '^phase_peaks: ' "$log" | tail -1)
  anon=$(sed -n 's/^spill: .*anon_peak=\([0-9]*\).*/\1/p' "$log" | tail -1)
  if [ -z "$line" ] || [ -z "$anon" ]; then
    fail "$name" "no phase_peaks: or spill: line: $(tr '\n' '|' <"$log")"
    return
  fi
  local why
  why=$(awk -v line="$line" -v keys="$keys" -v anon="$anon" -v equal="$equal" 'BEGIN {
    n = split(line, kv, / /); got = ""; max = 0
    for (i = 2; i <= n; i++) {
      split(kv[i], p, "=")
      if (p[1] == "index_seconds") continue
      got = got (got == "" ? "" : " ") p[1]
      if (p[2] + 0 <= 0) { print p[1] " is 0"; exit }
      if (p[2] + 0 > max) max = p[2] + 0
    }
    if (got != keys) { print "phases \"" got "\", want \"" keys "\""; exit }
    if (max > anon + 0) { print "largest " max " > anon_peak " anon; exit }
    if (equal && max != anon + 0) print "largest " max " != anon_peak " anon }')
  if [ -z "$why" ]; then ok "$name"; else fail "$name" "$why: $line"; fi
}

HPROFAN_NO_INDEX=1 "$HPROFAN" "$S" --top 5 --stats >/dev/null 2>"$D/ret.err"
check "phase_peaks: retained run" "$D/ret.err" "parse refs dominators retained" 0
HPROFAN_INDEX_DIR=$D/ix "$HPROFAN" "$S" --top 5 --stats >/dev/null 2>"$D/ix1.err"
check "phase_peaks: the run that writes the index" "$D/ix1.err" "parse refs dominators retained index" 1
HPROFAN_INDEX_DIR=$D/ix "$HPROFAN" "$S" --top 5 --stats >/dev/null 2>"$D/ix2.err"
check "phase_peaks: a run from the index" "$D/ix2.err" "parse" 0
HPROFAN_NO_INDEX=1 "$HPROFAN" "$S" --top 5 --fast --stats >/dev/null 2>"$D/fast.err"
check "phase_peaks: --top --fast" "$D/fast.err" "parse" 0
