# tests/lib.sh — sourced by tests/cli/*.sh.
# Each check prints one line: "ok NAME", "FAIL NAME: why" or "skip NAME: why";
# tests/run-all.sh counts them.  Environment: HPROFAN (binary under test),
# CORPUS (../shared/corpus; may be absent), TESTDATA, TMPD (scratch dir).
set -u
: "${HPROFAN:?}" "${TMPD:?}"
CORPUS=${CORPUS:-$(cd "$(dirname "$0")/../.." && pwd)/../shared/corpus}
TESTDATA=${TESTDATA:-$(cd "$(dirname "$0")/../.." && pwd)/testdata}
# the dumps' indexes (hprofan index) go under TMPD, never beside a corpus
# dump or into testdata/ (nor into ~/.cache)
export HPROFAN_INDEX_DIR="$TMPD/.hprofan-index"
unset HPROFAN_NO_INDEX
# and what other programs keep per user (Chromium's crash reports and
# dconf, hprofan's fallback index cache) under TMPD too, so that scripts run
# side by side never share a file
export XDG_CACHE_HOME="$TMPD/.cache" XDG_CONFIG_HOME="$TMPD/.config"
# REL: the release binary beside the sanitized one under test
# (build/hprofan for build/san/hprofan), else HPROFAN: for choosing inputs
# and for size or time checks, where the sanitizers add nothing
REL=$HPROFAN
case $HPROFAN in */san/hprofan) [ -x "${HPROFAN%/san/hprofan}/hprofan" ] && REL=${HPROFAN%/san/hprofan}/hprofan ;; esac

# javac and jcmd are JVMs that live a second: without the C2 compiler (its
# threads spend more than they save in so short a run: javac 1.2 -> 0.7 s
# of CPU) and with the serial collector.  (Functions: a script's own calls;
# the programs a test runs in the background are started as they say; only
# where the program is, so that `command -v javac` still says when it is not;
# `type -P jcmd` gives its path.)
type -P javac >/dev/null && javac() { command javac -J-XX:TieredStopAtLevel=1 -J-XX:+UseSerialGC "$@"; }
type -P jcmd >/dev/null && jcmd() { command jcmd -J-XX:TieredStopAtLevel=1 -J-XX:+UseSerialGC "$@"; }

ok()   { printf 'ok %s\n' "$1"; }
fail() { printf 'FAIL %s: %s\n' "$1" "$2"; }
skip() { printf 'skip %s: %s\n' "$1" "$2"; }

# The script's output goes through a counter of its ok/FAIL/skip lines (those
# a python3 check prints too); when the script ends, its EXIT trap has the
# counter print "N passed, N failed, N skipped", which tests/run-all.sh
# requires: a script that ends without that line (killed) is counted as
# failed.  A script's own clean-up goes through at_exit, not trap ... EXIT,
# which would replace the line.
exec {_LIB_OUT}>&1
exec > >(LC_ALL=C awk '$0 == "\001lib-end" { printf "%d passed, %d failed, %d skipped\n", o, f, s; exit }
  /^ok / { o++ } /^FAIL / { f++ } /^skip / { s++ } { print; fflush() }' >&$_LIB_OUT) 2>&1
_LIB_COUNTER=$!
# a bare `wait` would wait for that counter too, which ends only with the
# script: it waits for the script's jobs instead
wait() {
  if [ $# -gt 0 ]; then builtin wait "$@"; return; fi
  local p
  for p in $(jobs -p); do builtin wait "$p"; done
  return 0
}
_LIB_AT_EXIT=()
# at_exit CMD: run CMD (a function or a command line) when the script ends
at_exit() { _LIB_AT_EXIT+=("$1"); }
_lib_end() {
  local c
  for c in "${_LIB_AT_EXIT[@]}"; do eval "$c"; done
  printf '\001lib-end\n'
  exec >&"$_LIB_OUT" 2>&"$_LIB_OUT"
  wait "$_LIB_COUNTER" 2>/dev/null
}
trap _lib_end EXIT

# said_ready FILE PID [WORD]: waits until FILE (a JVM's output) holds WORD
# (READY), while process PID runs, for up to 60 s (a JVM on a machine busy
# with the rest of the suite starts slowly); true once it does
said_ready() {
  local file=$1 pid=$2 word=${3:-READY} end=$((SECONDS + 60))
  until grep -q "$word" "$file" 2>/dev/null; do
    kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $end ] || return 1
    sleep 0.05
  done
}

# jdk_heap [--all] [--jvm OPTION]... NAME SOURCE MAIN DIR: compiles SOURCE
# (a .java file), runs MAIN until it prints READY (its stdout in
# DIR/MAIN.out), dumps its heap into DIR/MAIN.hprof and its class histogram
# into DIR/MAIN.histo (jcmd), and stops it.  --all: both with jcmd's -all,
# so no GC runs first and unreachable objects stay (what only finalizers or
# phantom references hold); --jvm: an option for java.  False, with a skip
# (no JDK) or a FAIL line, when it cannot.
jdk_heap() {
  local all= jvm=() t pid
  while [ $# -gt 4 ]; do
    case $1 in
      --all) all=-all; shift ;;
      --jvm) jvm+=("$2"); shift 2 ;;
      *) break ;;
    esac
  done
  local name=$1 src=$2 main=$3 dir=$4
  for t in javac java jcmd; do
    command -v "$t" >/dev/null 2>&1 || { skip "$name" "$t is absent"; return 1; }
  done
  javac -d "$dir/classes" "$src" 2>"$dir/javac.err" || { fail "$name-javac" "$(head -c 300 "$dir/javac.err")"; return 1; }
  java -Xmx256m -XX:+UseSerialGC ${jvm[@]+"${jvm[@]}"} -cp "$dir/classes" "$main" >"$dir/$main.out" 2>&1 &
  pid=$!
  if ! said_ready "$dir/$main.out" "$pid"; then
    fail "$name" "the JVM never said READY: $(head -c 300 "$dir/$main.out")"
    kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
    return 1
  fi
  if ! jcmd "$pid" GC.heap_dump $all "$dir/$main.hprof" >"$dir/jcmd.out" 2>&1 ||
     ! jcmd "$pid" GC.class_histogram $all >"$dir/$main.histo" 2>&1; then
    fail "$name" "jcmd: $(head -c 300 "$dir/jcmd.out")"
    kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
    return 1
  fi
  kill "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  return 0
}

# have_corpus NAME: true when the corpus is present, else reports a skip
have_corpus() {
  if [ -d "$CORPUS" ] && [ -f "$CORPUS/MANIFEST.tsv" ]; then return 0; fi
  skip "$1" "../shared/corpus is absent"
  return 1
}

# expect_eq NAME GOT WANT
expect_eq() {
  if [ "$2" = "$3" ]; then ok "$1"; else fail "$1" "got '$2', want '$3'"; fi
}

# run_hp OUTFILE ERRFILE ARGS... : runs hprofan, returns its exit code
run_hp() {
  local out=$1 err=$2; shift 2
  "$HPROFAN" "$@" >"$out" 2>"$err"
}

# jget FILE EXPR : a value from a JSON file (python3 when present, else jq)
jget() {
  python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
v=eval(sys.argv[2],{"d":d})
print(v if not isinstance(v,bool) else str(v).lower())' "$1" "$2"
}
