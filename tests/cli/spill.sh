#!/usr/bin/env bash
# Bigger than memory: under --max-memory, the big arrays
# go to unlinked files instead of being refused.
#  - every command that builds a model gives, under a limit far below what
#    it needs (3M), the same stdout as without one, on the sample dump and
#    on corpus dumps of every kind (HotSpot 4- and 8-byte ids, gzip, ART via
#    hprof-conv, VisualVM's), and --stats shows that files were used;
#  - the files are in the directory chosen (the index directory, or TMPDIR
#    for a pipe) while the run goes on, unlinked (nobody sees them: the
#    directory stays empty), and nothing is left after the run or after
#    an error;
#  - a limit too small even for the small allocations is exit status 4 and
#    one line saying what the model needs, not a crash; a file that cannot
#    be made (the file size limit, as a full disk would) is the same line
#    with the reason.
. "$(dirname "$0")/../lib.sh"

D=$TMPD/spill
SD=$D/dir                 # where the files go: HPROFAN_INDEX_DIR, TMPDIR
mkdir -p "$SD"
export HPROFAN_INDEX_DIR=$SD
export TMPDIR=$SD

stat_of() { sed -n "s/.*[ :]$2=\([0-9]*\).*/\1/p" "$1" | head -1; }
empty_dir() {
  local left
  left=$(ls -A "$SD" | head -3 | tr '\n' ' ')
  if [ -z "$left" ]; then ok "$1"; else fail "$1" "left in $SD: $left"; fi
}

# same NAME ARGS...: hprofan ARGS with and without --max-memory 3M
same() {
  local name=$1; shift
  "$HPROFAN" "$@" --quiet --no-index >"$D/p.out" 2>"$D/p.err"
  local prc=$?
  "$HPROFAN" "$@" --quiet --no-index --max-memory 3M --stats >"$D/l.out" 2>"$D/l.err"
  local lrc=$? blocks
  blocks=$(stat_of "$D/l.err" file_blocks)
  if [ $prc != 0 ] || [ $lrc != 0 ]; then
    fail "$name" "exit $prc without the limit, $lrc with: $(grep -v '^[a-z]*: ' "$D/l.err" | head -c 300)"
  elif ! cmp -s "$D/p.out" "$D/l.out"; then
    fail "$name" "stdout differs: $(diff "$D/p.out" "$D/l.out" | head -4 | tr '\n' ' ')"
  elif [ -z "$blocks" ] || [ "$blocks" -eq 0 ]; then
    fail "$name" "no file-backed block under --max-memory 3M: $(grep '^spill:' "$D/l.err")"
  elif [ "$(stat_of "$D/l.err" alloc_peak)" -gt 3145728 ]; then
    fail "$name" "more than the limit allocated: $(grep '^memory:' "$D/l.err")"
  else
    ok "$name ($blocks blocks in files)"
  fi
}

S=$TESTDATA/hprof/leakycache.hprof.gz
ID=0xfd574bd0
same "sample: top" "$S" --top 10
same "sample: top --json" "$S" --top 5 --json
same "sample: dominators" dominators "$S" --top 10
same "sample: roots" roots "$S" --top 5
same "sample: leaks" leaks "$S"
same "sample: info" info "$S"
same "sample: object" object "$S" "$ID"
same "sample: path" path "$S" "$ID"
empty_dir "nothing left in the directory after the runs"

if have_corpus "corpus dumps under --max-memory"; then
  for f in GrapheneOS__platform_art/RI.hprof SonyMobile__py-hprof/example-java.hprof \
           tadfisher__platform_tools_base/dialer.hprof-conv.hprof eclipse-mat__mat/openjdk_jdk11_04_x64.hprof.gz \
           oracle__visualvm/small_heap.bin eclipse-mat__mat/sun_jdk6_18_x32.hprof agourlay__hprof-slurp/hprof-64.bin; do
    [ -f "$CORPUS/$f" ] || { skip "$f" "not in the corpus"; continue; }
    same "$f: top" "$CORPUS/$f" --top 10
    same "$f: dominators" dominators "$CORPUS/$f" --top 10
  done
  empty_dir "nothing left in the directory after the corpus runs"
fi

# ---- the files while the run goes on: there, and unlinked ----------------------

gzip -dc "$S" >"$D/sample.hprof"
size=$(wc -c <"$D/sample.hprof" | tr -d ' ')
half=$((size * 3 / 4))
rm -f "$D/fifo"
mkfifo "$D/fifo"
"$HPROFAN" info - --quiet --max-memory 2M --stats <"$D/fifo" >"$D/fifo.out" 2>"$D/fifo.err" &
pid=$!
exec 3>"$D/fifo"
head -c $half "$D/sample.hprof" >&3
open=0
for _ in $(seq 300); do     # the reader may still be behind: up to 30 s
  open=$(ls -l /proc/$pid/fd 2>/dev/null | grep -c "$SD/.*(deleted)")
  [ "$open" -gt 0 ] && break
  sleep 0.1
done
visible=$(ls -A "$SD" | head -3 | tr '\n' ' ')
tail -c +$((half + 1)) "$D/sample.hprof" >&3
exec 3>&-
wait $pid
rc=$?
if [ "$open" -gt 0 ] && [ -z "$visible" ]; then ok "mid-run: $open files open in $SD, none visible"
else fail "mid-run files" "$open open (deleted) in $SD, visible: '$visible'"; fi
cat "$D/sample.hprof" | "$HPROFAN" info - --quiet >"$D/plain-info.out" 2>&1
if [ $rc = 0 ] && cmp -s "$D/fifo.out" "$D/plain-info.out"; then ok "from a pipe under --max-memory 2M: the same info"
else fail "from a pipe under --max-memory 2M" "exit $rc: $(head -c 300 "$D/fifo.err")"; fi
empty_dir "nothing left after the pipe run"

# ---- errors ---------------------------------------------------------------------

# an allocation failing half-way (after files were made): an error, no file left
for k in 400 1000 2000; do
  HPROFAN_FAIL_ALLOC=$k "$HPROFAN" "$S" --top 5 --quiet --no-index --max-memory 3M >"$D/fa.out" 2>"$D/fa.err"
  rc=$?
  expect_eq "allocation $k fails under the limit: exit status 4, one line" "$rc $(wc -l <"$D/fa.err" | tr -d ' ')" "4 1"
done
empty_dir "nothing left after the failed runs"

# too small even for what is not put in files
f=$(printf '%s' "$S" | sed 's/[.[\*^$]/\\&/g')
"$HPROFAN" "$S" --top 5 --quiet --no-index --max-memory 64K >"$D/small.out" 2>"$D/small.err"
rc=$?
if [ $rc = 4 ] && [ "$(wc -l <"$D/small.err" | tr -d ' ')" = 1 ] && [ ! -s "$D/small.out" ] &&
   grep -qE "^hprofan: $f: the model needs about [0-9.]+ MiB \(82,953 objects\), and retained sizes about [0-9.]+ MiB in all; --max-memory is 64\.0 KiB\$" "$D/small.err"; then
  ok "--max-memory 64K: too small even with files, said so"
else
  fail "--max-memory 64K" "exit $rc: $(head -c 300 "$D/small.err")"
fi

# files that cannot be made as big as asked (the file size limit stands in for
# a full disk: posix_fallocate fails the same way, up front)
(trap '' XFSZ; ulimit -f 256; exec "$HPROFAN" "$S" --top 5 --quiet --no-index --max-memory 3M) >"$D/fsz.out" 2>"$D/fsz.err"
rc=$?
d=$(printf '%s' "$SD" | sed 's/[.[\*^$]/\\&/g')
if [ $rc = 4 ] && [ "$(wc -l <"$D/fsz.err" | tr -d ' ')" = 1 ] && [ ! -s "$D/fsz.out" ] &&
   grep -qE "; --max-memory is 3\.00 MiB; files in $d could not hold the rest: File too large\$" "$D/fsz.err"; then
  ok "files that cannot grow: exit status 4, the reason said"
else
  fail "files that cannot grow" "exit $rc: $(head -c 300 "$D/fsz.err")"
fi
empty_dir "nothing left after the file size limit"
