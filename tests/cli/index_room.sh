#!/usr/bin/env bash
# The index is written only where its file system keeps it and a margin
# free (man page, FILES): a dump's index of S bytes (about 8.7 MiB; S is
# taken from an index written first with room to spare), with the free
# space stated by HPROFAN_TEST_INDEX_FREE (1000 bytes, then S + 16 MiB less
# one byte, then S + 16 MiB + 1 MB); and, when this user may mount a 4 MiB
# tmpfs, with the file system's own free space (statvfs).
#  - too little room: the answer is the one without an index, exit 0, one
#    line on stderr naming the index and both figures, nothing left in the
#    directory (no index, no temporary file); `hprofan index` exits 1 with
#    that one line;
#  - room: the index is written, and read by the next run.
. "$(dirname "$0")/../lib.sh"
F=$TESTDATA/hprof/leakycache.hprof.gz
IX=$TMPD/ix
export HPROFAN_INDEX_DIR=$IX
"$HPROFAN" top "$F" --top 5 --no-index >"$TMPD/want.txt" 2>/dev/null || fail index-room "no answer without an index"
HPROFAN_INDEX_DIR=$TMPD/first "$HPROFAN" index "$F" >/dev/null 2>&1 || fail index-room "no index with room to spare"
S=$(stat -c %s "$TMPD"/first/*.hprofan-index 2>/dev/null || echo 0)
[ "$S" -gt 4194304 ] || fail index-room "the first index is $S bytes: want more than the tmpfs below holds"
MIB1=$(awk -v s="$S" 'BEGIN { printf "%.1f", s / 1048576 }')    # as the notice says it
MIB2=$(awk -v s="$S" 'BEGIN { printf "%.2f", s / 1048576 }')    # as hprofan index says it

# no_room NAME FREE: a top and an index run with FREE bytes said free
no_room() {
  local name=$1 free=$2 rc
  rm -rf "$IX"
  HPROFAN_TEST_INDEX_FREE=$free "$HPROFAN" top "$F" --top 5 >"$TMPD/got.txt" 2>"$TMPD/err.txt"
  rc=$?
  if [ $rc -eq 0 ] && cmp -s "$TMPD/want.txt" "$TMPD/got.txt"; then ok "index-room/$name: top's answer, exit 0"
  else fail "index-room/$name" "top exit $rc or another answer"; fi
  if [ "$(wc -l <"$TMPD/err.txt")" -eq 1 ] && grep -q "no index written: .*hprofan-index would take $MIB1 MiB and only .* MiB are free there (16.0 MiB must stay free)" "$TMPD/err.txt"
  then ok "index-room/$name: one line with both figures"
  else fail "index-room/$name" "stderr: $(head -c 400 "$TMPD/err.txt")"; fi
  if [ -z "$(ls -A "$IX" 2>/dev/null)" ]; then ok "index-room/$name: nothing left in the directory"
  else fail "index-room/$name" "left: $(ls -A "$IX")"; fi
  HPROFAN_TEST_INDEX_FREE=$free "$HPROFAN" index "$F" >/dev/null 2>"$TMPD/err.txt"
  rc=$?
  if [ $rc -eq 1 ] && [ "$(wc -l <"$TMPD/err.txt")" -eq 1 ] && [ -z "$(ls -A "$IX" 2>/dev/null)" ]
  then ok "index-room/$name: hprofan index exits 1, one line"
  else fail "index-room/$name" "index exit $rc, stderr $(head -c 300 "$TMPD/err.txt")"; fi
}
no_room tiny 1000
no_room margin $(( S + 16777216 - 1 ))

rm -rf "$IX"
HPROFAN_TEST_INDEX_FREE=$(( S + 16777216 + 1000000 )) "$HPROFAN" index "$F" >"$TMPD/ix.txt" 2>"$TMPD/err.txt"
rc=$?
if [ $rc -eq 0 ] && grep -q "written ($MIB2 MiB" "$TMPD/ix.txt" && [ ! -s "$TMPD/err.txt" ]
then ok "index-room: with room for the index, the margin and 1 MB more, it is written"
else fail index-room "exit $rc: $(cat "$TMPD/ix.txt" "$TMPD/err.txt" | head -c 300)"; fi
"$HPROFAN" top "$F" --top 5 --stats >"$TMPD/got.txt" 2>"$TMPD/err.txt"
# (read from the index: no phase past parsing, and `hprofan index` finds it up to date)
if cmp -s "$TMPD/want.txt" "$TMPD/got.txt" && grep -q "^phase_peaks: parse=[0-9]*$" "$TMPD/err.txt" &&
   "$HPROFAN" index "$F" 2>/dev/null | grep -q "hprofan-index up to date ($MIB2 MiB"
then ok "index-room: the next run reads it, same answer"
else fail index-room "the run after: $(head -c 300 "$TMPD/err.txt")"; fi

# the file system's own figure: a 4 MiB tmpfs, when it can be mounted
M=$TMPD/small
mkdir -p "$M"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=4m tmpfs "$M" 2>/dev/null; then
  at_exit "umount '$M' 2>/dev/null"
  HPROFAN_INDEX_DIR=$M/ix "$HPROFAN" top "$F" --top 5 >"$TMPD/got.txt" 2>"$TMPD/err.txt"
  rc=$?
  if [ $rc -eq 0 ] && cmp -s "$TMPD/want.txt" "$TMPD/got.txt" && grep -q "would take $MIB1 MiB and only [0-4]\.[0-9] MiB are free there" "$TMPD/err.txt" &&
     [ -z "$(ls -A "$M/ix" 2>/dev/null)" ]
  then ok "index-room/tmpfs: 4 MiB file system: not written, said, same answer"
  else fail index-room/tmpfs "exit $rc: $(head -c 300 "$TMPD/err.txt")"; fi
  umount "$M" 2>/dev/null
else
  skip index-room/tmpfs "cannot mount a tmpfs here (not root, or no permission)"
fi
