#!/usr/bin/env bash
# The same dump read from a file, from standard input (`cat f | hprofan -`),
# gzip-compressed or not, gives the same --top JSON apart from the "file" field.
# The 0.9 MB java_pid1884.0001.hprof.gz inflates to 523 MB: hprofan must stream
# it (from the file and from a pipe) in bounded memory.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip pipe "python3 is absent"; exit 0; }

# same JSON A B : identical apart from "file" (A and B are result names)
same_json() {
  python3 - "$TMPD/$1" "$TMPD/$2" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
for d in (a, b):
    d.pop('file', None)
sys.exit(0 if a == b else 1)
PY
}
rc_of() { cat "$TMPD/$1.rc" 2>/dev/null || echo '?'; }
bg() {   # bg NAME CMD... : a command in the background, its exit code in NAME.rc
  local name=$1; shift
  ( "$@" > "$TMPD/$name" 2> "$TMPD/$name.err"; echo $? > "$TMPD/$name.rc" ) &
}
# compare LABEL P REF OTHER... : results P.OTHER must give P.REF's JSON
compare() {
  local label=$1 p=$2 ref=$3 o; shift 3
  if [ "$(rc_of "$p.$ref")" != 0 ]; then
    fail "pipe $label ($ref)" "exit $(rc_of "$p.$ref"): $(head -c 300 "$TMPD/$p.$ref.err")"; return
  fi
  for o in "$@"; do
    if [ "$(rc_of "$p.$o")" != 0 ]; then
      fail "pipe $label ($o)" "exit $(rc_of "$p.$o"): $(head -c 300 "$TMPD/$p.$o.err")"
    elif same_json "$p.$ref" "$p.$o"; then ok "pipe $label: $o = $ref"
    else fail "pipe $label: $o = $ref" "the JSON differs: $(diff "$TMPD/$p.$ref" "$TMPD/$p.$o" | head -5 | tr '\n' ' ')"; fi
  done
}
top() { "$HPROFAN" "$@" --top 0 --json --quiet --fast; }
stdin_top() { local f=$1; shift; cat "$f" | "$HPROFAN" - "$@" --top 0 --json --quiet --fast; }

# 1. the project's sample (a multi-member gzip) and its gunzipped form
S=$TESTDATA/hprof/leakycache.hprof.gz
gzip -dc "$S" > "$TMPD/leakycache.hprof"
bg s.file top "$S"
bg s.stdin stdin_top "$S"
bg s.gunzipped top "$TMPD/leakycache.hprof"
wait
compare "leakycache.hprof.gz" s file stdin gunzipped

if have_corpus pipe-corpus; then
  # 2. corpus dumps: plain file, stdin, and gzip -c of it (file and stdin)
  for f in eclipse-mat__mat/sun_jdk6_30_x64_compressedOops.hprof agourlay__hprof-slurp/hprof-64.bin \
           tadfisher__platform_tools_base/dialer.android-hprof; do
    n=$(basename "$f")
    gzip -c "$CORPUS/$f" > "$TMPD/$n.input.gz"
    bg "$n.file" top "$CORPUS/$f"
    bg "$n.stdin" stdin_top "$CORPUS/$f"
    bg "$n.gz" top "$TMPD/$n.input.gz"
    bg "$n.gz-stdin" stdin_top "$TMPD/$n.input.gz"
    wait
    compare "$n" "$n" file stdin gz gz-stdin
    rm -f "$TMPD/$n.input.gz"
  done

  # 3. the gzip that inflates to 523 MB, from the file and from a pipe, with
  #    peak memory measured (ASan's quarantine would hold freed blocks: off)
  G=$CORPUS/eclipse-mat__mat/java_pid1884.0001.hprof.gz
  TIME=/usr/bin/time
  if [ -x "$TIME" ] && "$TIME" -f %M -o "$TMPD/probe" true 2>/dev/null; then
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0:thread_local_quarantine_size_kb=0"
    bg g.file "$TIME" -f %M -o "$TMPD/g.file.kb" "$HPROFAN" "$G" --top 0 --json --quiet --fast
    bg g.info "$HPROFAN" info "$G" --json --quiet
    wait
    bg g.stdin sh -c 'cat "$1" | "$2" -f %M -o "$3" "$4" - --top 0 --json --quiet --fast' \
      sh "$G" "$TIME" "$TMPD/g.stdin.kb" "$HPROFAN"
    wait
  else
    bg g.file top "$G"
    bg g.stdin stdin_top "$G"
    bg g.info "$HPROFAN" info "$G" --json --quiet
    wait
    skip "pipe java_pid1884.0001.hprof.gz memory" "/usr/bin/time -f %M is not available"
  fi
  compare java_pid1884.0001.hprof.gz g file stdin
  # the whole stream was read: as many bytes as gzip's own trailer says (one member)
  if [ "$(rc_of g.info)" = 0 ]; then
    expect_eq "pipe java_pid1884.0001.hprof.gz: inflated bytes read" "$(jget "$TMPD/g.info" 'd["bytes"], d["partial"]')" \
      "($(gzip -l "$G" | awk 'NR == 2 { print $2 }'), False)"
  else
    fail "pipe java_pid1884.0001.hprof.gz info" "exit $(rc_of g.info): $(head -c 300 "$TMPD/g.info.err")"
  fi
  for k in g.file g.stdin; do
    [ -f "$TMPD/$k.kb" ] || continue
    kb=$(tail -n 1 "$TMPD/$k.kb")
    # 523 MB inflated; streaming stays far below (about 13 MB under ASan)
    if [ "$kb" -gt 0 ] 2>/dev/null && [ "$kb" -lt 65536 ]; then ok "pipe java_pid1884.0001.hprof.gz (${k#g.}): peak RSS ${kb} KB < 64 MB"
    else fail "pipe java_pid1884.0001.hprof.gz (${k#g.}) memory" "peak RSS '${kb}' KB, want < 65536"; fi
  done
fi
