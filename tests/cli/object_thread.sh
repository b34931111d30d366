#!/usr/bin/env bash
# The object thread (src/parser/hprof.c; HPROFAN_OBJECT_THREAD) changes no
# answer: the model built with the instance and array calls on a thread of
# their own, from the first byte (=0), against the model built on one
# thread (=off), on dumps of each kind (32- and 64-bit HotSpot, segmented,
# gzip, the hprof agent's, Android), whole and cut short.  This compares
# hprofan with itself: it shows that the thread changes nothing, not that
# the answers are right (the other tests do that).
. "$(dirname "$0")/../lib.sh"
have_corpus object-thread || exit 0
export HPROFAN_NO_INDEX=1
same() {   # NAME ARGS...: the same stdout, stderr and exit status both ways
  local name=$1; shift
  HPROFAN_OBJECT_THREAD=off "$HPROFAN" "$@" >"$TMPD/o1" 2>"$TMPD/e1"; local r1=$?
  HPROFAN_OBJECT_THREAD=0 "$HPROFAN" "$@" >"$TMPD/o2" 2>"$TMPD/e2"; local r2=$?
  if [ $r1 = $r2 ] && cmp -s "$TMPD/o1" "$TMPD/o2" && cmp -s "$TMPD/e1" "$TMPD/e2" ; then
    ok "$name"
  else
    fail "$name" "exit $r1 / $r2; $(diff "$TMPD/o1" "$TMPD/o2" | head -c 300)$(diff "$TMPD/e1" "$TMPD/e2" | head -c 300)"
  fi
}
# (top with retained sizes: the model's pass and the references' pass)
for f in eclipse-mat__mat/sun_jdk6_18_x32.hprof eclipse-mat__mat/oracle_jdk8_05_x64.hprof \
         eclipse-mat__mat/openjdk_jdk11_04_x64.hprof.gz eclipse-mat__mat/sun_jdk6_31_hprofagent_compressedOops.hprof \
         agourlay__hprof-slurp/hprof-64.bin tadfisher__platform_tools_base/dialer.android-hprof; do
  p=$CORPUS/$f
  [ -f "$p" ] || { skip "object thread: $f" "missing"; continue; }
  same "object thread: top --top 0 --json $f" top --top 0 --json "$p"
done
# cut short inside the heap dump: the same error, and with --salvage the same part
src=$CORPUS/eclipse-mat__mat/oracle_jdk8_05_x64.hprof
if [ -f "$src" ]; then
  size=$(stat -c %s "$src")
  for k in 3 7; do
    head -c $((size * k / 9 + k)) "$src" > "$TMPD/cut.hprof"
    same "object thread: cut at $k/9: the error" info "$TMPD/cut.hprof"
    same "object thread: cut at $k/9: --salvage --fast" "$TMPD/cut.hprof" --top 0 --salvage --fast
  done
fi
