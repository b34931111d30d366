#!/usr/bin/env bash
# Must-fail dumps: each gives one exact error line on stderr (plus at most one
# "hprofan: ..." hint line, checked too) and the documented exit code:
# 1 bad or corrupt input, 3 truncated.  The files are written at test time by
# the unit test program (`test_parser --write-bad DIR`, see make_trunc_string,
# make_unknown_subtag, make_straddle and make_trunc_gz in
# tests/unit/test_parser.c, where every offset is worked out by hand):
#   trunc-string.hprof   STRING record 2 at offset 45 declares 44 bytes, 20 are there
#   unknown-subtag.hprof sub-tag 0x42 at 59 in HEAP DUMP SEGMENT record 2, after a
#                        ROOT UNKNOWN at 54
#   straddle.hprof       ROOT JNI GLOBAL at 59 needs 8 bytes, its segment has 3 left
#   trunc.hprof.gz       a 2-member gzip cut inside member 2's header: the inflated
#                        stream stops at 339, inside STRING record 2 (offset 244,
#                        204-byte body from 253: 86 bytes there)
. "$(dirname "$0")/../lib.sh"

gen=$(dirname "$HPROFAN")/unit/test_parser
if [ ! -x "$gen" ]; then
  skip bad "$gen is not built (make unit)"
  exit 0
fi
B=$TMPD/bad
mkdir -p "$B"
if ! "$gen" --write-bad "$B"; then
  fail bad-generate "test_parser --write-bad failed"
  exit 0
fi
cd "$B" || exit 0
gzsize=$(wc -c < trunc.hprof.gz | tr -d ' ')

# check NAME WANT_RC WANT_LINE WANT_HINT ARGS... : exit code, first stderr line,
# second stderr line (empty: none) and nothing more; nothing on stdout
check() {
  local name=$1 want_rc=$2 want1=$3 want2=$4; shift 4
  "$HPROFAN" "$@" > out.txt 2> err.txt
  local rc=$?
  local n; n=$(wc -l < err.txt | tr -d ' ')
  local l1 l2; l1=$(sed -n 1p err.txt); l2=$(sed -n 2p err.txt)
  local want_n=1; [ -n "$want2" ] && want_n=2
  if [ "$rc" != "$want_rc" ]; then fail "$name" "exit $rc, want $want_rc: $(head -c 300 err.txt)"
  elif [ "$l1" != "$want1" ]; then fail "$name" "stderr line 1: got '$l1', want '$want1'"
  elif [ "$n" != "$want_n" ]; then fail "$name" "stderr has $n lines, want $want_n: $(head -c 400 err.txt)"
  elif [ -n "$want2" ] && [ "$l2" != "$want2" ]; then fail "$name" "stderr line 2: got '$l2', want '$want2'"
  elif [ -s out.txt ]; then fail "$name" "stdout is not empty: $(head -c 200 out.txt)"
  else ok "$name"; fi
}

check "bad empty" 1 \
  "hprofan: empty.hprof: empty file: no HPROF header" "" \
  info empty.hprof --quiet
check "bad zip" 1 \
  "hprofan: zip.hprof: this is a zip archive, not a heap dump; unzip it first (unzip -p FILE > dump.hprof)" "" \
  info zip.hprof --quiet
check "bad not hprof" 1 \
  "hprofan: nothprof.txt: not an HPROF heap dump (it does not start with \"JAVA PROFILE\")" "" \
  info nothprof.txt --quiet

check "bad truncated string" 3 \
  "hprofan: trunc-string.hprof: offset 45 (0x2d) (record 2, STRING): file ends inside STRING record (declares 44 bytes, 20 remain)" \
  "hprofan: the dump is truncated; --salvage analyses what precedes offset 45" \
  info trunc-string.hprof --quiet
# the same through the default command and through a pipe
# (no --salvage hint: no heap dump begins before the break)
check "bad truncated string (top)" 3 \
  "hprofan: trunc-string.hprof: offset 45 (0x2d) (record 2, STRING): file ends inside STRING record (declares 44 bytes, 20 remain)" \
  "" \
  trunc-string.hprof --top 5 --quiet
"$HPROFAN" - --top 5 --quiet < trunc-string.hprof > out.txt 2> err.txt; rc=$?
expect_eq "bad truncated string (stdin)" "$rc:$(sed -n 1p err.txt)" \
  "3:hprofan: -: offset 45 (0x2d) (record 2, STRING): file ends inside STRING record (declares 44 bytes, 20 remain)"

check "bad unknown sub-tag" 1 \
  "hprofan: unknown-subtag.hprof: offset 59 (0x3b) (record 2, HEAP DUMP SEGMENT): unknown heap-dump sub-record tag 0x42 after ROOT UNKNOWN at offset 54; its length is unknowable, so this dump stops here" \
  "hprofan: --salvage analyses what precedes offset 59" \
  info unknown-subtag.hprof --quiet

check "bad straddle" 1 \
  "hprofan: straddle.hprof: offset 59 (0x3b) (record 2, HEAP DUMP SEGMENT): ROOT JNI GLOBAL needs 8 bytes but only 3 remain in its HEAP DUMP SEGMENT record (a sub-record may not straddle records)" \
  "hprofan: --salvage analyses what precedes offset 59" \
  info straddle.hprof --quiet

# the whole .gz is consumed before the stream is found cut: its size is
# the compressed byte count (it depends on the zlib build, so it is measured)
check "bad truncated gzip" 3 \
  "hprofan: trunc.hprof.gz: offset 244 (0xf4) (record 2, STRING): file ends inside STRING record (declares 204 bytes, 86 remain); the gzip stream is cut short after $gzsize compressed bytes" \
  "hprofan: the dump is truncated; --salvage analyses what precedes offset 244" \
  info trunc.hprof.gz --quiet

# --salvage reads what precedes the break and succeeds where a heap dump
# began before it; where none did, it says there is nothing to salvage
for f in trunc-string.hprof trunc.hprof.gz; do
  "$HPROFAN" "$f" --top 5 --salvage --quiet > out.txt 2> err.txt; rc=$?
  if [ $rc = 1 ] && [ ! -s out.txt ] && grep -q 'nothing to salvage' err.txt; then ok "bad salvage $f: nothing to salvage (exit 1)"
  else fail "bad salvage $f: nothing to salvage (exit 1)" "exit $rc: $(head -c 300 err.txt)"; fi
  if "$HPROFAN" info "$f" --salvage --quiet > out.txt 2> err.txt; then ok "bad salvage info $f"
  else fail "bad salvage info $f" "exit $?: $(head -c 300 err.txt)"; fi
done
for f in unknown-subtag.hprof straddle.hprof; do
  if "$HPROFAN" "$f" --top 5 --salvage --quiet > out.txt 2> err.txt; then
    if grep -q '^hprofan: warning: ' err.txt; then ok "bad salvage $f"
    else fail "bad salvage $f" "no warning on stderr: $(head -c 300 err.txt)"; fi
  else
    fail "bad salvage $f" "exit $?: $(head -c 300 err.txt)"
  fi
done
