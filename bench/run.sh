#!/usr/bin/env bash
# Benchmark hprofan on a large (>= 1 GB, >= 20 M objects) heap dump.
#
#   bench/run.sh path/to/hprofan
#
# The dump is generated once from bench/BigHeap.java and cached in
# ${BENCH_DIR:-/tmp/hprofan-bench} (delete that directory to regenerate).
# Environment:
#   BENCH_DIR    cache directory                     (default /tmp/hprofan-bench)
#   BENCH_XMX    generator JVM heap                  (default 6g)
#   BENCH_SCALE  multiplies the generator's counts   (default 1.0)
#   BENCH_MIN_BYTES  the smallest dump accepted       (default 1 GiB)
#
# Each run is made with --stats; hprofan prints on stderr
#   stats: bytes=N objects=N seconds=F peak_rss_kb=N model_bytes=N
# which is turned into the table at the end.
#
# The retained run (--top with retained sizes, end to end) is made three
# times; the summary gives each phase of the first, its peak per object and
# per reference, and the three end-to-end figures with their median.
# `hprofan leaks` and `hprofan waste` are run three times too, their
# medians against the retained run's, and so is `hprofan report` (with the
# size of its page).
#
# redact is run twice: plain to plain (bytes per second and peak memory,
# against 1 GB/s and 64 MiB), and gzip to gzip (--gzip, level 1) from a copy
# of the dump made once with gzip -1; the summary sets the latter against
# zlib itself doing the same work on one core (inflate, then deflate at level
# 1, timed in CPU seconds by python3's zlib module).
# Then diff on the dump and a copy of it (made once, next to it): --fast,
# whose budget is 1 GB/s per file, and with retained sizes, whose budget is
# 2.2 times the median retained run of one dump; the summary says both.
#
# The retained run's phase_peaks: line (the allocator's peak in each phase:
# model, references, dominators, retained sizes, and index writing in the
# index's first run) is printed as bytes per object.
# The retained run is made pinned by taskset to core 0 and to cores 0,1,
# alternately, twice each; the summary gives the best of each and their
# ratio (skipped without taskset or two cores).
# When hprof-slurp or hprof-analyzer is on PATH it is timed on the same
# dump in the same run (wall, and peak RSS by /usr/bin/time): hprof-slurp
# --top 20 (its shallow histogram) against --top --fast, hprof-analyzer's
# report (retained sizes, dominators, suspects) against the retained run;
# the summary gives hprofan's time and memory over each peer's.  A peer not
# on PATH is skipped (nothing here builds one).
#
# From the index, hprofan sql too: a class counted and summed, a GROUP BY
# class over every object, a class joined with its references.
# Then the retained run once more under a memory limit of a quarter of its
# peak RSS (issue 15, bigger than memory): in a memory cgroup of its own when
# the user may make one (v2 memory.max, else v1; root), else --max-memory; the
# summary gives its time, peak RSS and page traffic (the io: line of --stats,
# the dominator pass's apart) and whether its output is the unlimited run's.
#
# Last, bench/browse_latency.sh drives `hprofan browse` on the dump through
# tmux and measures each key press, from send-keys to the changed screen
# (moves, pages, ends, opening and leaving rows, sorts, views, pop-ups, a
# filter, and moves among the instances of the class that has the most: 12 M
# rows here); the summary ends with its median, p95 and max against the
# 50 ms target (skipped without tmux).
# Then bench/serve_load.py starts `hprofan serve` on the dump (from its
# index) and sends the API 50 clients at once, 10 requests each, on loopback:
# the summary gives each call's median and p95, the p95 over all against the
# 200 ms target, and the memory of the server and its workers (PSS).
# Exits 1 if a run fails.
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "usage: bench/run.sh path/to/hprofan" >&2
  exit 2
fi
BIN=$1
case "$BIN" in */*) ;; *) BIN=$(command -v "$BIN" || echo "$BIN") ;; esac
if [ ! -x "$BIN" ]; then
  echo "bench: $BIN: not an executable" >&2
  exit 2
fi

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

if ! command -v java >/dev/null 2>&1 || ! command -v jcmd >/dev/null 2>&1 ||
   ! command -v javac >/dev/null 2>&1; then
  echo "bench: no JDK on this machine; skipped"
  exit 0
fi

BENCH_DIR=${BENCH_DIR:-/tmp/hprofan-bench}
BENCH_XMX=${BENCH_XMX:-6g}
BENCH_SCALE=${BENCH_SCALE:-1.0}
DUMP="$BENCH_DIR/bigheap.hprof"
META="$BENCH_DIR/bigheap.meta"
MIN_BYTES=${BENCH_MIN_BYTES:-$((1024 * 1024 * 1024))}   # lower it to run on a smaller dump
mkdir -p "$BENCH_DIR"

filesize() { wc -c <"$1" | tr -d ' '; }

# ---------------------------------------------------------------- generate
GEN_PID=""
GEN_WORK=""
# shellcheck disable=SC2317  # invoked by the EXIT trap
gen_cleanup() {
  if [ -n "$GEN_PID" ]; then kill "$GEN_PID" 2>/dev/null || true; fi
  if [ -n "$GEN_WORK" ]; then rm -rf "$GEN_WORK"; fi
}

generate() {
  local work pid t0
  work=$(mktemp -d "$BENCH_DIR/gen.XXXXXX")
  GEN_WORK=$work
  trap gen_cleanup EXIT
  rm -f "$DUMP" "$META"
  echo "bench: generating heap dump in $BENCH_DIR (BigHeap, -Xmx$BENCH_XMX, scale $BENCH_SCALE)"
  javac -d "$work/classes" "$HERE/BigHeap.java"
  t0=$(date +%s)
  java "-Xmx$BENCH_XMX" -XX:+UseParallelGC -cp "$work/classes" BigHeap "$BENCH_SCALE" \
    >"$work/stdout" 2>"$work/stderr" &
  pid=$!
  GEN_PID=$pid
  while ! grep -q '^READY' "$work/stdout" 2>/dev/null; do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "bench: generator JVM exited early:" >&2
      cat "$work/stdout" "$work/stderr" >&2
      exit 1
    fi
    sleep 1
  done
  echo "bench: generator: $(grep '^READY' "$work/stdout") ($(( $(date +%s) - t0 ))s)"
  # The JVM's own count (the histogram forces a full GC, so only live objects).
  jcmd "$pid" GC.class_histogram >"$work/histo.txt"
  local total
  total=$(awk '/^Total/ {print $2 " objects, " $3 " bytes"}' "$work/histo.txt")
  echo "bench: JVM class histogram: $total"
  t0=$(date +%s)
  jcmd "$pid" GC.heap_dump "$work/bigheap.hprof" >"$work/jcmd.out"
  if [ ! -s "$work/bigheap.hprof" ]; then
    echo "bench: heap dump failed:" >&2
    cat "$work/jcmd.out" >&2
    exit 1
  fi
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  GEN_PID=""
  echo "bench: dumped $(filesize "$work/bigheap.hprof") bytes in $(( $(date +%s) - t0 ))s"
  mv "$work/bigheap.hprof" "$DUMP"
  {
    echo "generator: $(grep '^READY' "$work/stdout")"
    echo "histogram: $total"
    echo "dump_bytes: $(filesize "$DUMP")"
  } >"$META"
  cp "$work/histo.txt" "$BENCH_DIR/bigheap.histo.txt"
  rm -rf "$work"
  GEN_WORK=""
  trap - EXIT
}

if [ ! -s "$DUMP" ] || [ ! -s "$META" ]; then
  generate
else
  echo "bench: using cached $DUMP"
fi

size=$(filesize "$DUMP")
if [ "$size" -lt "$MIN_BYTES" ]; then
  echo "bench: $DUMP is only $size bytes (< 1 GiB); delete $BENCH_DIR and raise BENCH_SCALE" >&2
  exit 1
fi
echo "bench: dump $DUMP: $size bytes ($(awk -v b="$size" 'BEGIN {printf "%.2f", b / 1073741824}') GiB); $(grep '^histogram:' "$META")"

# ---------------------------------------------------------------- runs
# phase_peaks LOG OBJECTS: the phase_peaks: line of LOG in bytes per object
phase_peaks() {
  local line
  line=$(grep -E '^phase_peaks: ' "$1" 2>/dev/null | tail -1 || true)
  [ -n "$line" ] && [ "${2:-0}" -gt 0 ] || return 0
  awk -v line="$line" -v o="$2" 'BEGIN {
    k = split(line, kv, /[ \t]+/); out = ""
    for (i = 2; i <= k; i++) {
      if (split(kv[i], p, "=") != 2 || p[1] ~ /_seconds$/) continue
      out = out sprintf("%s%s %.1f (%.0f MiB)", out == "" ? "" : ", ", p[1], p[2] / o, p[2] / 1048576)
    }
    if (out != "") printf "  the peak of the memory allocated in each phase (all then held), bytes per object: %s\n", out }'
}

TIME=""
if [ -x /usr/bin/time ]; then
  TIME=/usr/bin/time
fi
LOGS="$BENCH_DIR/logs"
mkdir -p "$LOGS"
ROWS=()
FAILED=0
declare -A WALL=()     # wall seconds of each run, by name
declare -A EXT=()      # peak RSS in KiB /usr/bin/time measured, by name
PRE=()                 # a command run() puts before hprofan (taskset)

# run NAME STDIN_FILE ARGS...  (STDIN_FILE "-" means none; otherwise piped with cat)
run() {
  local name=$1 input=$2 rc=0 t0 t1 rss="" line
  shift 2
  local err="$LOGS/$name.err" tf="$LOGS/$name.time"
  local -a cmd=(${PRE[@]+"${PRE[@]}"} "$BIN" "$@")
  if [ -n "$TIME" ]; then
    cmd=("$TIME" -f %M -o "$tf" "${cmd[@]}")
  fi
  if [ "$input" = "-" ]; then
    echo "bench: [$name] ${PRE[*]:+${PRE[*]} }$BIN $*"
  else
    echo "bench: [$name] cat $input | $BIN $*"
  fi
  t0=$(date +%s.%N)
  if [ "$input" = "-" ]; then
    "${cmd[@]}" >"$LOGS/$name.out" 2>"$err" || rc=$?
  else
    # rc is hprofan's status, not cat's (cat gets SIGPIPE if hprofan stops early)
    set +e
    # shellcheck disable=SC2002  # a pipe on purpose: hprofan must not be able to seek
    cat "$input" 2>/dev/null | "${cmd[@]}" >"$LOGS/$name.out" 2>"$err"
    rc=${PIPESTATUS[1]}
    set -e
  fi
  t1=$(date +%s.%N)
  WALL[$name]=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }' >"$LOGS/$name.wall"
  if [ "$rc" -ne 0 ]; then
    echo "bench: [$name] exited with status $rc; stderr tail:" >&2
    tail -5 "$err" >&2
    FAILED=1
  fi
  if [ -n "$TIME" ] && [ -s "$tf" ]; then
    rss=$(grep -E '^[0-9]+$' "$tf" | tail -1 || true)
  fi
  EXT[$name]=$rss
  line=$(grep -E '(^|[^[:alnum:]_])stats: bytes=' "$err" | tail -1 | sed 's/^.*stats: /stats: /' || true)
  ROWS+=("$(awk -v name="$name" -v rc="$rc" -v t0="$t0" -v t1="$t1" -v ext="$rss" \
               -v hastime="${TIME:+1}" -v line="$line" '
    function na(cond, fmt, v) { return cond ? sprintf(fmt, v) : "n/a" }
    BEGIN {
      n = split(line, kv, /[ \t]+/)
      for (i = 1; i <= n; i++) if (split(kv[i], p, "=") == 2) s[p[1]] = p[2]
      ok = ("bytes" in s) && ("objects" in s) && ("seconds" in s)
      b = s["bytes"] + 0; o = s["objects"] + 0; sec = s["seconds"] + 0
      rk = s["peak_rss_kb"] + 0; mb = s["model_bytes"] + 0
      printf "%-12s %4s %8.2f %9s %8s %11s %10s", name, (rc == 0 ? "ok" : "rc=" rc), t1 - t0,
        na(ok && sec > 0, "%.1f", b / sec / 1e6),
        na(ok && o > 0, "%.1f", sec * 1e9 / o),
        na(ok && ("peak_rss_kb" in s), "%.1f", rk / 1024),
        (ok && ("model_bytes" in s)) ? (mb > 0 && o > 0 ? sprintf("%.1f", mb / o) : "-") : "n/a"
      if (hastime) printf " %11s", (ext != "" ? sprintf("%.1f", ext / 1024) : "n/a")
      printf "\n"
    }')")
}

# every run parses the dump (no index) but the index runs (issue 15) below
export HPROFAN_NO_INDEX=1
run top-first - "$DUMP" --top --fast --quiet --stats
run top-warm  - "$DUMP" --top --fast --quiet --stats
run top-stdin "$DUMP" - --top --fast --quiet --stats
run info      - info "$DUMP" --quiet --stats
# redact: plain to plain, then gzip to gzip (the copies are removed at once)
run redact    - redact "$DUMP" "$BENCH_DIR/redacted.hprof" --quiet --stats
rm -f "$BENCH_DIR/redacted.hprof"
GZ="$BENCH_DIR/bigheap.hprof.gz"
if [ ! -s "$GZ" ]; then
  echo "bench: gzip -1 of the dump into $GZ (once)"
  gzip -1 -c "$DUMP" >"$GZ.tmp" && mv "$GZ.tmp" "$GZ"
fi
run redact-gz - redact "$GZ" "$BENCH_DIR/redacted.hprof.gz" --gzip --quiet --stats
rm -f "$BENCH_DIR/redacted.hprof.gz"
# gzip and a pipe read once (issue 15): --fast, then retained sizes, whose
# later passes read the inflated copy the first pass keeps (in TMPDIR)
run top-gz-fast - "$GZ" --top --fast --quiet --stats
run top-gz      - "$GZ" --top --quiet --stats
run top-gz-pipe "$GZ" - --top --quiet --stats
ZLIB_REF=""
if command -v python3 >/dev/null 2>&1; then
  echo "bench: [zlib] python3 zlib: inflate $GZ, deflate it at level 1, on one core"
  ZLIB_REF=$(python3 -c '
import sys, time, zlib
d, c = zlib.decompressobj(47), zlib.compressobj(1, zlib.DEFLATED, 31)
n = 0
t0 = time.process_time()
with open(sys.argv[1], "rb") as f:
    while True:
        b = f.read(1 << 20)
        if not b:
            break
        out = d.decompress(b)
        n += len(out)
        c.compress(out)
    c.flush()
print("%d %.3f" % (n, time.process_time() - t0))' "$GZ" || true)
fi
run retained  - "$DUMP" --top --quiet --stats
# twice more: on a shared virtual machine one run can be off by a fifth
run retained2 - "$DUMP" --top --quiet --stats
run retained3 - "$DUMP" --top --quiet --stats
# issue 13: leaks needs nothing beyond retained sizes but a path search over
# the same graph (target: within 15% of the retained run); three runs too
run leaks     - leaks "$DUMP" --quiet --stats
run leaks2    - leaks "$DUMP" --quiet --stats
run leaks3    - leaks "$DUMP" --quiet --stats
# issue 17: waste (one pass over the records, then the holder paths' search;
# target: within 1.5 times the retained run); three runs too
run waste     - waste "$DUMP" --quiet --stats
run waste2    - waste "$DUMP" --quiet --stats
run waste3    - waste "$DUMP" --quiet --stats
# issue 19: report reads the dump once for every section (target: within 10%
# of the retained run; the page at most 5 MB); three runs too
run report    - report "$DUMP" -o "$BENCH_DIR/report.html" --quiet --stats
run report2   - report "$DUMP" -o "$BENCH_DIR/report.html" --quiet --stats
run report3   - report "$DUMP" -o "$BENCH_DIR/report.html" --quiet --stats

# ---- one core against two: the retained run pinned by taskset
if command -v taskset >/dev/null 2>&1 && taskset -c 0,1 true 2>/dev/null; then
  # alternately, twice each: the best of each (other load on a shared
  # machine comes and goes)
  for i in "" 2; do
    PRE=(taskset -c 0)
    run "pin-1core$i" - "$DUMP" --top --quiet --stats
    PRE=(taskset -c "0,1")
    run "pin-2cores$i" - "$DUMP" --top --quiet --stats
  done
  PRE=()
else
  echo "bench: [pin] skipped: no taskset, or no cores 0 and 1 to pin to"
fi
# ---- end of one core against two

# ---- peers on the same dump, when on PATH: hprof-slurp's histogram (its
# top 20 classes by shallow size) against --top --fast, hprof-analyzer's
# report (retained sizes, dominators, leak suspects; Markdown on stdout)
# against the retained run; wall time and /usr/bin/time's peak RSS
# peer NAME PROGRAM ARGS...
peer() {
  local name=$1 rc=0 t0 t1 tf="$LOGS/$1.time"
  shift
  local -a cmd=("$@")
  [ -n "$TIME" ] && cmd=("$TIME" -f %M -o "$tf" "${cmd[@]}")
  echo "bench: [$name] $*"
  t0=$(date +%s.%N)
  "${cmd[@]}" >"$LOGS/$name.out" 2>"$LOGS/$name.err" || rc=$?
  t1=$(date +%s.%N)
  if [ "$rc" -ne 0 ]; then
    echo "bench: [$name] exited with status $rc (left out of the summary); stderr tail:" >&2
    tail -5 "$LOGS/$name.err" >&2
    return 0
  fi
  WALL[$name]=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
  EXT[$name]=""
  if [ -n "$TIME" ] && [ -s "$tf" ]; then
    EXT[$name]=$(grep -E '^[0-9]+$' "$tf" | tail -1 || true)
  fi
}
PEERS=()
NOPEERS=()
if command -v hprof-slurp >/dev/null 2>&1; then
  # (before 0.5 the dump was given by -i)
  if hprof-slurp --help 2>&1 | grep -q -- '--inputFile'; then
    peer hprof-slurp hprof-slurp --top 20 -i "$DUMP"
  else
    peer hprof-slurp hprof-slurp --top 20 "$DUMP"
  fi
  PEERS+=("hprof-slurp")
else
  echo "bench: [hprof-slurp] skipped: not on PATH"
  NOPEERS+=("hprof-slurp")
fi
if command -v hprof-analyzer >/dev/null 2>&1; then
  peer hprof-analyzer hprof-analyzer "$DUMP"
  PEERS+=("hprof-analyzer")
else
  echo "bench: [hprof-analyzer] skipped: not on PATH"
  NOPEERS+=("hprof-analyzer")
fi
# ---- end of peers

# ---- diff (issue 14): two copies of the dump, so that each is a file of its own
COPY="$BENCH_DIR/bigheap-copy.hprof"
if [ ! -s "$COPY" ] || [ "$(filesize "$COPY")" != "$size" ]; then
  echo "bench: copying the dump for diff"
  cp "$DUMP" "$COPY"
fi
run diff-fast - diff "$DUMP" "$COPY" --fast --quiet --stats
run diff      - diff "$DUMP" "$COPY" --quiet --stats
# ---- end of diff

# ---- the index (issue 15): the first run parses, computes and writes it,
# the second runs map it (a fresh index directory, so the first builds)
IXDIR="$BENCH_DIR/index"
rm -rf "$IXDIR"
unset HPROFAN_NO_INDEX
export HPROFAN_INDEX_DIR="$IXDIR"
run ix-first  - "$DUMP" --top --quiet --stats
run ix-top    - "$DUMP" --top --quiet --stats
run ix-dom    - dominators "$DUMP" --quiet --stats
IXID=$(grep -o '@0x[0-9a-f]*' "$LOGS/ix-dom.out" | head -1 | tr -d @ || true)
# the first path search is computed from the dump and added to the index
# (object and path read it from there after)
run ix-addpaths - path "$DUMP" "${IXID:-0x1}" --quiet --stats
run ix-object - object "$DUMP" "${IXID:-0x1}" --quiet --stats
run ix-path   - path "$DUMP" "${IXID:-0x1}" --quiet --stats
# hprofan sql from the index: a count and sums over one class (BigHeap's
# 1 M TreeNodes), a GROUP BY class over every object, one class's objects
# joined with their outgoing references (issue 33's budgets: 0.3, 3, 2 s)
run ix-sql-class - sql "$DUMP" "SELECT count(*), sum(shallow), sum(retained) FROM objects WHERE class = 'BigHeap\$TreeNode'" --quiet --stats
run ix-sql-group - sql "$DUMP" "SELECT class, count(*), sum(shallow), sum(retained) FROM objects GROUP BY class" --quiet --stats
run ix-sql-join  - sql "$DUMP" "SELECT o.class, count(*), sum(o.shallow) FROM objects s JOIN refs r ON r.src = s.id JOIN objects o ON o.id = r.dst WHERE s.class = 'BigHeap\$TreeNode' GROUP BY 1" --quiet --stats
IXBYTES=$(stat -c %s "$IXDIR"/*.hprofan-index 2>/dev/null | head -1 || true)
echo "bench: [ix-browse] BROWSE_FIRST_ONLY=1 bench/browse_latency.sh $BIN $DUMP"
BROWSE_FIRST_ONLY=1 "$HERE/browse_latency.sh" "$BIN" "$DUMP" >"$LOGS/ix-browse.out" 2>&1 || true
export HPROFAN_NO_INDEX=1
unset HPROFAN_INDEX_DIR
# ---- end of the index

# ---- bigger than memory (issue 15): the retained run again under a quarter
# of its peak RSS, in a memory cgroup of its own when this user may make one
# (v2 memory.max, else v1 memory.limit_in_bytes), else with --max-memory; its
# output must be the unlimited run's
LIM_KB=$(grep -oE 'peak_rss_kb=[0-9]+' "$LOGS/retained.err" 2>/dev/null | head -1 | cut -d= -f2 || true)
LIM_HOW=""
LIM_CG=""
if [ -n "$LIM_KB" ] && [ "$LIM_KB" -gt 0 ]; then
  LIM_BYTES=$((LIM_KB * 1024 / 4))
  cg_try() {   # cg_try DIR FILE: a cgroup DIR/hprofan-bench.PID with FILE = the limit
    local d="$1/hprofan-bench.$$"
    [ -d "$1" ] && [ -w "$1" ] || return 1
    mkdir "$d" 2>/dev/null || return 1
    if echo "$LIM_BYTES" >"$d/$2" 2>/dev/null; then LIM_CG=$d; return 0; fi
    rmdir "$d" 2>/dev/null || true
    return 1
  }
  if [ -f /sys/fs/cgroup/cgroup.controllers ] && grep -qw memory /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null &&
     cg_try /sys/fs/cgroup memory.max; then
    LIM_HOW="a cgroup v2 (memory.max)"
  elif cg_try /sys/fs/cgroup/memory memory.limit_in_bytes; then
    LIM_HOW="a cgroup v1 (memory.limit_in_bytes)"
  fi
  if [ -n "$LIM_CG" ]; then
    WRAP="$LOGS/in-cgroup.sh"
    printf '#!/bin/sh\necho $$ >"%s/cgroup.procs" || exit 125\nexec "%s" "$@"\n' "$LIM_CG" "$BIN" >"$WRAP"
    chmod +x "$WRAP"
    REAL_BIN=$BIN
    BIN=$WRAP
    # the dump's pages cached by the runs before were charged to their
    # cgroup, not this one: dropped, so that the limited run pays for them
    python3 -c 'import os, sys; fd = os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' \
      "$DUMP" 2>/dev/null || echo "bench: [limited] the dump's cached pages could not be dropped (no python3?): they are not charged to the cgroup"
    run limited - "$DUMP" --top --quiet --stats
    BIN=$REAL_BIN
    rmdir "$LIM_CG" 2>/dev/null || true
  else
    LIM_HOW="--max-memory (no memory cgroup could be made)"
    run limited - "$DUMP" --top --quiet --stats --max-memory "$LIM_BYTES"
  fi
else
  echo "bench: [limited] skipped: no peak RSS from the retained run to take a quarter of"
fi
# ---- end of bigger than memory

# key-press latency of the browser (its own log; the last line goes in the summary)
echo "bench: [browse] bench/browse_latency.sh $BIN $DUMP"
if ! "$HERE/browse_latency.sh" "$BIN" "$DUMP" >"$LOGS/browse.out" 2>&1; then
  echo "bench: [browse] failed; tail:" >&2
  tail -5 "$LOGS/browse.out" >&2
  FAILED=1
fi

# the API of hprofan serve under 50 clients at once (its own log; the summary shows it)
echo "bench: [serve] bench/serve_load.py $BIN $DUMP"
if ! python3 "$HERE/serve_load.py" "$BIN" "$DUMP" >"$LOGS/serve.out" 2>&1; then
  echo "bench: [serve] failed; tail:" >&2
  tail -5 "$LOGS/serve.out" >&2
  FAILED=1
fi

echo
printf "%-12s %4s %8s %9s %8s %11s %10s" run rc wall_s MB/s ns/obj peak_rss_MB model_B/obj
[ -n "$TIME" ] && printf " %11s" ext_rss_MB
printf "\n"
printf '%s\n' "${ROWS[@]}"
echo "(MB/s and ns/obj from hprofan's own stats line; wall_s and ext_rss_MB measured outside; logs in $LOGS)"
# retained sizes, end to end (parse, references, dominators, retained, print), per phase
if [ -s "$LOGS/retained.err" ]; then
  echo
  echo "retained run, per phase:"
  grep -E '^phases: ' "$LOGS/retained.err" | sed 's/^phases: //; s/ \([a-z]*=\)/\n  \1/g; s/^/  /'
  objs=$(grep -oE 'objects=[0-9]+' "$LOGS/retained.err" | head -1 | cut -d= -f2)
  refs=$(grep -oE '[0-9]+ refs' "$LOGS/retained.err" | head -1 | cut -d' ' -f1)
  # (class edges cost no memory: refs.h)
  crefs=$(grep -oE '[0-9]+ of them class' "$LOGS/retained.err" | head -1 | cut -d' ' -f1)
  kb=$(grep -oE 'peak_rss_kb=[0-9]+' "$LOGS/retained.err" | head -1 | cut -d= -f2)
  if [ -n "$objs" ] && [ -n "$refs" ] && [ -n "$kb" ]; then
    awk -v o="$objs" -v r="$refs" -v c="${crefs:-0}" -v kb="$kb" 'BEGIN {
      printf "  peak %.0f MiB = %.1f bytes per object all in (budget: 32); %.1f per object + 4 per reference but the %d class edges\n",
        kb / 1024, kb * 1024 / o, (kb * 1024 - 4 * (r - c)) / o, c }'
  fi
  # the allocator's peak in each phase (the phase_peaks: line), per object
  phase_peaks "$LOGS/retained.err" "${objs:-0}"
  # end to end, the three runs
  per=""
  for n in retained retained2 retained3; do
    line=$(grep -E '(^|[^[:alnum:]_])stats: bytes=' "$LOGS/$n.err" 2>/dev/null | tail -1 || true)
    per="$per $(awk -v line="$line" 'BEGIN {
      n = split(line, kv, /[ \t]+/)
      for (i = 1; i <= n; i++) if (split(kv[i], p, "=") == 2) s[p[1]] = p[2]
      if (s["objects"] > 0) printf "%.1f", s["seconds"] * 1e9 / s["objects"] }')"
  done
  echo "$per" | awk '{
    n = 0; l = ""; for (i = 1; i <= NF; i++) { v[++n] = $i; l = l " " $i }
    if (!n) exit
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
    printf "  end to end, %d runs:%s ns/object; median %.1f, best %.1f (budget: 250)\n", n,
      l, v[int((n + 1) / 2)], v[1] }'
fi
# the index: the first run against the second runs, the index's size
if [ -n "${WALL[ix-first]:-}" ] && [ -n "${WALL[ix-top]:-}" ]; then
  echo
  echo "the index (issue 15):"
  objs=$(grep -oE 'objects=[0-9]+' "$LOGS/ix-first.err" | head -1 | cut -d= -f2)
  refs=$(grep -oE '[0-9]+ refs' "$LOGS/ix-first.err" | head -1 | cut -d' ' -f1)
  kb1=$(grep -oE 'peak_rss_kb=[0-9]+' "$LOGS/ix-first.err" | head -1 | cut -d= -f2)
  kb2=$(grep -oE 'peak_rss_kb=[0-9]+' "$LOGS/ix-top.err" | head -1 | cut -d= -f2)
  awk -v f="${WALL[ix-first]}" -v t="${WALL[ix-top]}" -v d="${WALL[ix-dom]:-0}" -v o="${WALL[ix-object]:-0}" \
      -v p="${WALL[ix-path]:-0}" -v ap="${WALL[ix-addpaths]:-0}" -v r="${WALL[retained]:-0}" -v n="${objs:-0}" -v e="${refs:-0}" \
      -v ix="${IXBYTES:-0}" -v kb1="${kb1:-0}" -v kb2="${kb2:-0}" 'BEGIN {
    printf "  first run (parse, retained sizes, index written): %.2f s (%.0f ns/object; the retained run without an index: %.2f s), peak RSS %.0f MiB\n",
      f, (n > 0 ? f * 1e9 / n : 0), r, kb1 / 1024
    printf "  second runs from the index: --top %.3f s (%.1f%% of the first run, %.1f%% of the run without an index; budget: 5%%), peak RSS %.0f MiB\n",
      t, 100 * t / f, (r > 0 ? 100 * t / r : 0), kb2 / 1024
    printf "    dominators %.3f s, object %.3f s, path %.3f s (after a first path search added to the index in %.2f s)\n", d, o, p, ap
    if (n > 0) printf "  index: %.1f MiB, %.1f bytes per object (%.1f per object + 8 per reference: two graphs)\n",
      ix / 1048576, ix / n, (ix - 8 * e) / n }'
  phase_peaks "$LOGS/ix-first.err" "${objs:-0}"
  sed -n 's/.* index_seconds=\([0-9.]*\).*/  index writing after retained sizes (its object columns written before, on a thread of their own): \1 s/p' \
    "$LOGS/ix-first.err" | tail -1
  sed -n 's/^browse: first screen after \(.*\) ms.*/  browse opening from the index: \1 ms (budget: 1000)/p' "$LOGS/ix-browse.out"
  awk -v c="${WALL[ix-sql-class]:-0}" -v g="${WALL[ix-sql-group]:-0}" -v j="${WALL[ix-sql-join]:-0}" -v n="${objs:-0}" 'BEGIN {
    if (c > 0) printf "  sql from the index: one class counted and summed %.2f s (budget 0.3), GROUP BY class over every object %.2f s (%.0f ns/object; budget 3), a class joined with its references %.2f s (budget 2)\n",
      c, g, (n > 0 ? g * 1e9 / n : 0), j }'
fi
# bigger than memory: the limited run against the unlimited one
if [ -n "${WALL[limited]:-}" ]; then
  echo
  same="identical to the unlimited run's"
  cmp -s "$LOGS/limited.out" "$LOGS/retained.out" || same="DIFFERENT from the unlimited run's"
  kb=$(grep -oE 'peak_rss_kb=[0-9]+' "$LOGS/limited.err" | head -1 | cut -d= -f2 || true)
  awk -v how="$LIM_HOW" -v lim="$LIM_BYTES" -v t="${WALL[limited]}" -v r="${WALL[retained]:-0}" -v kb="${kb:-0}" \
      -v same="$same" 'BEGIN {
    printf "bigger than memory: --top with retained sizes under %.0f MiB (a quarter of the retained run'"'"'s peak) by %s:\n", lim / 1048576, how
    printf "  %.1f s (%.1f times the unlimited run), peak RSS %.0f MiB (file-backed pages included), output %s\n",
      t, (r > 0 ? t / r : 0), kb / 1024, same }'
  grep -E '^(spill|io|phases): ' "$LOGS/limited.err" | sed 's/^/  /' || true
fi
# redact against its budgets, and gzip to gzip against zlib alone (wall
# clock and CPU time: a shared machine can make the first several times
# the second; the load average is printed with them)
for n in redact redact-gz; do
  line=$(grep -E '(^|[^[:alnum:]_])stats: bytes=' "$LOGS/$n.err" 2>/dev/null | tail -1 || true)
  [ -n "$line" ] || continue
  [ "$n" = redact ] && { echo; echo "load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null) on $(nproc 2>/dev/null) cores"; }
  awk -v n="$n" -v line="$line" -v ref="$ZLIB_REF" 'BEGIN {
    k = split(line, kv, /[ \t]+/)
    for (i = 1; i <= k; i++) if (split(kv[i], p, "=") == 2) s[p[1]] = p[2]
    if (s["seconds"] <= 0) exit
    cpu = s["cpu_seconds"] > 0 ? sprintf(", %.2f GB/s of CPU time (%.2f s user+sys)", s["bytes"] / s["cpu_seconds"] / 1e9, s["cpu_seconds"]) : ""
    if (n == "redact")
      printf "redact plain to plain: %.2f GB/s wall (%.2f s)%s (budget: 1 GB/s), peak RSS %.1f MiB (budget: 64), %d pass(es)\n",
        s["bytes"] / s["seconds"] / 1e9, s["seconds"], cpu, s["peak_rss_kb"] / 1024, s["passes"]
    else {
      printf "redact gzip to gzip: %.0f MB/s of the dump wall (%.1f s)%s, peak RSS %.1f MiB", s["bytes"] / s["seconds"] / 1e6,
        s["seconds"], cpu, s["peak_rss_kb"] / 1024
      if (split(ref, r, " ") == 2 && r[2] > 0)
        printf "; zlib alone, inflate + deflate -1 on one core: %.0f MB/s (%.1f s of CPU)", r[1] / r[2] / 1e6, r[2]
      printf "\n"
    } }'
done
# diff against its budgets: --fast at 1 GB/s or more per file, diff with
# retained sizes within 2.2 times the median retained run of one dump
if [ -n "${WALL[top-gz-fast]:-}" ] && [ -n "${WALL[top-gz]:-}" ]; then
  echo
  awk -v f="${WALL[top-gz-fast]}" -v t="${WALL[top-gz]}" -v p="${WALL[top-gz-pipe]:-0}" 'BEGIN {
    printf "gzip: --top with retained sizes %.2f s, %.2f times --fast on it (%.2f s) (target: 1.3 or less); from a pipe %.2f s\n", t, t / f, f, p }'
fi
if [ -n "${WALL[diff-fast]:-}" ] && [ -n "${WALL[diff]:-}" ]; then
  echo
  echo "diff on two copies of the dump:"
  awk -v b="$size" -v t="${WALL[diff-fast]}" 'BEGIN {
    printf "  diff --fast: %.2f s for 2 x %.2f GB: %.2f GB/s per file (budget: 1.00 or more)\n", t, b / 1e9, 2 * b / t / 1e9 }'
  awk -v t="${WALL[diff]}" -v r1="${WALL[retained]:-0}" -v r2="${WALL[retained2]:-0}" -v r3="${WALL[retained3]:-0}" 'BEGIN {
    v[1] = r1; v[2] = r2; v[3] = r3
    for (i = 1; i <= 3; i++) for (j = i + 1; j <= 3; j++) if (v[j] < v[i]) { x = v[i]; v[i] = v[j]; v[j] = x }
    m = v[2]
    if (m > 0) printf "  diff: %.2f s, %.2f times the median retained run (%.2f s) (budget: 2.2 or less)\n", t, t / m, m }'
  grep -E '^diff: base' "$LOGS/diff.err" | sed 's/^/  /' || true
fi
# issue 13: leaks against the retained run, medians of three wall times (the
# stats line's seconds count the passes over the dump, not the analysis after)
median_wall() {
  local n
  for n in "$@"; do cat "$LOGS/$n.wall" 2>/dev/null; done |
    sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}
lm=$(median_wall leaks leaks2 leaks3)
rm_=$(median_wall retained retained2 retained3)
if [ -n "$lm" ] && [ -n "$rm_" ]; then
  echo
  awk -v l="$lm" -v r="$rm_" 'BEGIN { printf "leaks: median %.2f s wall against %.2f s for --top with retained sizes: %+.1f%% (target: within 15%%)\n", l, r, (l / r - 1) * 100 }'
fi
wm=$(median_wall waste waste2 waste3)
if [ -n "$wm" ] && [ -n "$rm_" ]; then
  awk -v w="$wm" -v r="$rm_" 'BEGIN { printf "waste: median %.2f s wall against %.2f s for --top with retained sizes: %.2f times (target: 1.5 or less)\n", w, r, w / r }'
fi
pm=$(median_wall report report2 report3)
if [ -n "$pm" ] && [ -n "$rm_" ]; then
  echo
  awk -v l="$pm" -v r="$rm_" -v sz="$(filesize "$BENCH_DIR/report.html" 2>/dev/null || echo 0)" 'BEGIN {
    printf "report: median %.2f s wall against %.2f s for --top with retained sizes: %+.1f%% (target: within 10%%); page %.2f MB (target: at most 5)\n", l, r, (l / r - 1) * 100, sz / 1e6 }'
fi
rm -f "$BENCH_DIR/report.html"
# one core against two
if [ -n "${WALL[pin-1core]:-}" ] && [ -n "${WALL[pin-2cores]:-}" ]; then
  echo
  awk -v a="${WALL[pin-1core]}" -v b="${WALL[pin-2cores]}" -v a2="${WALL[pin-1core2]:-}" -v b2="${WALL[pin-2cores2]:-}" \
      -v ka="${EXT[pin-1core]:-}" -v kb="${EXT[pin-2cores]:-}" 'BEGIN {
    if (a2 != "" && a2 + 0 < a + 0) a = a2
    if (b2 != "" && b2 + 0 < b + 0) b = b2
    printf "--top with retained sizes, the best of two runs each: taskset -c 0 %.2f s, taskset -c 0,1 %.2f s: one core takes %.2f times two", a, b, (b > 0 ? a / b : 0)
    if (ka != "" && kb != "") printf " (peak RSS %.0f and %.0f MiB)", ka / 1024, kb / 1024
    printf "\n" }'
fi
# the peers, on the same dump in this run: their time and peak RSS over ours
if [ ${#PEERS[@]} -gt 0 ]; then
  echo
  echo "peers on the same dump, in this run (wall time, peak RSS by /usr/bin/time; hprofan's over the peer's):"
  for p in "${PEERS[@]}"; do
    if [ "$p" = hprof-slurp ]; then
      ours=top-warm; theirs="--top 20 (the shallow histogram)"; what="--top --fast"
    else
      ours=retained; theirs="(its report: retained sizes, dominators, suspects)"; what="--top with retained sizes"
    fi
    if [ -z "${WALL[$p]:-}" ]; then
      echo "  $p: failed (see $LOGS/$p.err)"
      continue
    fi
    t_ours=${WALL[$ours]:-0}
    if [ "$ours" = retained ] && [ -n "$rm_" ]; then t_ours=$rm_; what="$what (median time of three)"; fi
    awk -v p="$p" -v theirs="$theirs" -v what="$what" -v t="${WALL[$p]}" -v k="${EXT[$p]:-}" -v to="$t_ours" \
        -v ko="${EXT[$ours]:-}" 'BEGIN {
      printf "  %s %s %.2f s", p, theirs, t
      if (k != "") printf ", %.0f MiB", k / 1024
      printf "; hprofan %s %.2f s", what, to
      if (ko != "") printf ", %.0f MiB", ko / 1024
      printf ": %.2f times the time", (t > 0 ? to / t : 0)
      if (k != "" && ko != "" && k > 0) printf ", %.2f times the memory", ko / k
      printf "\n" }'
  done
fi
[ ${#NOPEERS[@]} -gt 0 ] && { echo; echo "peers not on PATH, skipped: ${NOPEERS[*]}"; }
# the browser's key latency, per kind of key
if [ -s "$LOGS/browse.out" ]; then
  echo
  grep -E '^browse: (first screen|one capture-pane|each figure|.*skipped)' "$LOGS/browse.out" || true
  sed -n '/^kind /,$p' "$LOGS/browse.out"
fi
# the API's latency under load
if [ -s "$LOGS/serve.out" ]; then
  echo
  cat "$LOGS/serve.out"
fi
exit "$FAILED"
