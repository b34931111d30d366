#!/usr/bin/env bash
# Each command takes exactly the options of its table (src/cli/command.h),
# read once from `hprofan completion options`:
#  (a) `hprofan help COMMAND` lists the table's options, and `hprofan --help`
#      lists every option once with the commands that take it;
#  (b) every option a command lists is accepted by it, and does something
#      there: the output, the messages, the exit status or the -o file differ
#      from the same run without it (--quiet, which only hides the progress
#      display of a terminal, is checked for being accepted); browse, which
#      needs a terminal, is checked for accepting each (tests/cli/browse.sh
#      drives it through tmux), and serve, which runs until a signal, too
#      (tests/cli/serve.sh drives it);
#  (c) every option a command does not list is a usage error (exit 2) that
#      names the command;
#  (d) each rule of the tables holds: breaking it is a usage error in the
#      one shape ("A needs B: ...", "A does not go with B: ..."), and its
#      first option alone is not refused by it;
#  (e) a choice's usage errors name its values in the one wording
#      ("--sort needs one of: a, b or c", "--sort=x: not one of a, b or c").
# What is decided from argv before any file is read -- (c), (d), (e), and
# in (b) browse's and --quiet's being accepted -- runs the release binary
# (build/hprofan, when its tables are the same as the binary's under test):
# it is the same parser, and sanitizers add nothing to it that the runs of
# the binary under test do not check (each accepted option in (b), one
# refusal of each command and one break of each rule kind here).  In (b)
# the runs without the option, to which those with it are compared, are
# the release binary's too; the runs with it are the binary under test's.
# shellcheck disable=SC2046  # the words of args and value are split on purpose
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip options "python3 is absent"; exit 0; }
# the sample program's dump with 100 sessions (scripts/make-sample --small):
# its shapes, a fifth of the objects, for the 600 runs below
S=$TMPD/sample.hprof
gzip -dc "$TESTDATA/hprof/leakycache-small.hprof.gz" >"$S" || { fail options-sample "cannot inflate the sample"; exit 0; }
T=$TMPD/cut.hprof                      # the sample cut short: --salvage reads it
head -c $(($(wc -c <"$S") * 3 / 4)) "$S" >"$T"
A=$(cd "$(dirname "$0")/.." && pwd)/fuzz/corpus/pipeline/android4.hprof   # Android heaps "heap" and "name"
# diff and trend compare the sample with a small dump written at time 0 (so
# that --sort-by-time puts it first)
S2=$TMPD/small.hprof
python3 - "$S2" "$(cd "$(dirname "$0")/../helper" && pwd)" <<'PY' || { fail options-small "cannot write the small dump"; exit 0; }
import sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
d = Dump()
obj = d.load_class("java.lang.Object")
d.class_dump(obj)
s = d.load_class("java.lang.String")
d.class_dump(s, obj, fields=[("hash", INT)])
d.root(d.instance(s, [1]))
d.write(sys.argv[1])
PY

# sites: a dump with allocation sites (trace serials on the objects): a
# thread's site retains its stack local under --roots=threads only, a
# SoftReference's site its referent under --weak=follow only, two sites for --top
SITES=$TMPD/sites.hprof
python3 - "$SITES" "$(cd "$(dirname "$0")/../helper" && pwd)" <<'PY' || { fail options-sites "cannot write the sites dump"; exit 0; }
import sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
d = Dump()
obj = d.load_class("java.lang.Object"); d.class_dump(obj)
ref = d.load_class("java.lang.ref.Reference"); d.class_dump(ref, obj, fields=[("referent", OBJECT)])
soft = d.load_class("java.lang.ref.SoftReference"); d.class_dump(soft, ref)
th = d.load_class("java.lang.Thread"); d.class_dump(th, obj, fields=[("name", OBJECT)])
d.load_class("[B")
fa = d.stack_frame("a", "()V", "A.java", obj, 1)
fb = d.stack_frame("b", "()V", "B.java", obj, 2)
d.stack_trace(1, 1, [fa]); d.stack_trace(2, 1, [fb, fa]); d.stack_trace(3, 1, [fb])
d.prim_array(BYTE, bytes(5), trace=3)   # a second outermost frame: --top 1 cuts the tree
t = d.instance(th, [0], trace=2)
d.thread_root(t, 1, trace=1)
d.frame_root(d.prim_array(BYTE, bytes(10), trace=1), 1, 0)
d.root(d.instance(soft, [d.prim_array(BYTE, bytes(20), trace=1)], trace=2))
d.write(sys.argv[1])
PY

# --full-path: a list of 40 nodes from a GC root, longer than the paths,
# leak traces and dominator chains shown whole; LONGEND is its last node
LONG=$TMPD/long.hprof
LONGEND=$(python3 - "$LONG" "$(cd "$(dirname "$0")/../helper" && pwd)" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
d = Dump()
obj = d.load_class("java.lang.Object"); d.class_dump(obj)
node = d.load_class("Node"); d.class_dump(node, obj, fields=[("next", OBJECT)])
end = nxt = d.instance(node, [0])
for i in range(39):
    nxt = d.instance(node, [nxt])
d.root(nxt)
d.write(sys.argv[1])
print(hex(end))
PY
) || { fail options-long "cannot write the long list"; exit 0; }

# capture: stand-ins for jcmd and adb first on PATH (tests/helper/standins.sh;
# capture.sh runs the real jcmd), and a "JVM" for them: a process that
# catches SIGQUIT; the stand-in jcmd writes the sample (-all) or the small dump
. "$(dirname "$0")/../helper/standins.sh"
mkdir -p "$TMPD/capbin" "$TMPD/capdev/data/local/tmp"
standin_jcmd "$TMPD/capbin"; standin_adb "$TMPD/capbin"
export PATH=$TMPD/capbin:$PATH JCMD_ALL=$S JCMD_LIVE=$S2 ADB_DUMP=$S ADB_LOG=/dev/null ADB_DEVICE=$TMPD/capdev \
  ADB_RUNNING=com.example.app ADB_SERIALS=emulator-5554 ADB_MODE=
# (python: a background shell's SIGQUIT is ignored, and a shell cannot trap what
# was ignored on entry; it ends with this script, also when the script is killed)
python3 -c $'import os, signal, time\nsignal.signal(signal.SIGQUIT, lambda *a: None)\np = os.getppid()\nwhile os.getppid() == p: time.sleep(0.5)' >/dev/null 2>&1 &
FAKEJVM=$!
at_exit 'kill $FAKEJVM 2>/dev/null'

"$HPROFAN" --help >"$TMPD/help" || { fail options-help "hprofan --help failed"; exit 0; }
"$HPROFAN" completion options >"$TMPD/table" 2>"$TMPD/table.err" ||
  { fail options-table "hprofan completion options failed: $(head -c 300 "$TMPD/table.err")"; exit 0; }
# the release binary for the argv-only checks, when it has the same tables
REL=${HPROFAN_RELEASE:-$(dirname "$HPROFAN")/../hprofan}
if [ -x "$REL" ] && "$REL" completion options 2>/dev/null | cmp -s - "$TMPD/table"; then :; else REL=$HPROFAN; fi
cmds=$(awk -F'\t' '$1 == "command" { print $2 }' "$TMPD/table" | LC_ALL=C sort)
# opts CMD: the option names of CMD's table, one a line (a short alias too: -q, --quiet)
declare -A OPTS
for c in $cmds; do
  OPTS[$c]=$(awk -F'\t' -v c="$c" '$1 == "option" && $2 == c { if ($4 ~ /^-[^-]/) print $4; print $3 }' "$TMPD/table")
done
opts() { printf '%s\n' "${OPTS[$1]}"; }
# has CMD OPTION: CMD's table has OPTION (no process: this is asked thousands of times)
declare -A HAS
for c in $cmds; do for o in ${OPTS[$c]}; do HAS["$c $o"]=1; done; done
has() { [ -n "${HAS["$1 $2"]-}" ]; }
all=$(for c in $cmds; do opts "$c"; done | LC_ALL=C sort -u)
# words CMD OPTION: the values the table gives (a choice's list, the words completed)
words() { awk -F'\t' -v c="$1" -v o="$2" '$1 == "option" && $2 == c && ($3 == o || $4 == o) && $8 != "-" { print $8 }' "$TMPD/table"; }

# ---- (a) help COMMAND, and --help's list ------------------------------------------

# help CMD lists the table's options: the names of its option lines
for c in $cmds; do
  "$HPROFAN" help "$c" >"$TMPD/help.$c"
  got=$(awk '/^options:/ { on = 1; next } on && /^  -/' "$TMPD/help.$c" | sed -E 's/^ +//; s/  +.*//' |
        tr ',' '\n' | grep -oE -- '^ *-{1,2}[A-Za-z][A-Za-z0-9-]*' | sed 's/^ *//')
  expect_eq "help $c lists its table's options" "$got" "$(opts "$c")"
done


for o in $all; do
  line=$(grep -E -- "^  (-[a-z], )?$o( |=|,|\[)" "$TMPD/help" | head -n 1)
  [ -n "$line" ] || line=$(grep -E -- "^  $o, " "$TMPD/help" | head -n 1)
  if [ -z "$line" ]; then fail "--help lists $o" "no line for it"; continue; fi
  listed=$(printf '%s\n' "$line" | sed -E 's/^ +[^ ]+( [^ ]+)?  +//')
  takers=$(for c in $cmds; do has "$c" "$o" && printf '%s ' "$c"; done)
  if [ "$listed" = "every command" ]; then
    want=$(printf '%s\n' $cmds | LC_ALL=C sort | paste -sd' ')
  else
    want=$(printf '%s\n' $listed | tr -d ',' | LC_ALL=C sort | paste -sd' ')
  fi
  expect_eq "--help: the commands that take $o" "$(printf '%s\n' $takers | LC_ALL=C sort | paste -sd' ')" "$want"
done

# ---- ids the runs need -----------------------------------------------------------

"$HPROFAN" dominators "$S" --json --top 0 --quiet >"$TMPD/dom.json"
"$HPROFAN" object "$S" "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(next(e["id"] for e in d["dominators"] if e.get("class_object_of") == "LeakyCache"))' "$TMPD/dom.json")" \
  --json --top 0 --quiet >"$TMPD/class.json"
static() { python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(next(f["value"] for f in d["object"]["statics"] if f["name"] == sys.argv[2]))' "$TMPD/class.json" "$1"; }
referent() { "$HPROFAN" object "$S" "$1" --json --quiet | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(next(f["value"] for f in d["object"]["fields"] if f["name"] == "referent"))'; }
SESSION=$(referent "$(static lastSession)")   # a Session: several referrers, several paths
SOFT=$(referent "$(static scratch)")          # a byte[] only a SoftReference holds
THREAD=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(next(e["id"] for e in d["dominators"] if e["class"] == "java.lang.Thread" and "java_frame" in e.get("gc_root", [])
           or e["class"] == "java.lang.Thread" and e["retained"] > 1000))' "$TMPD/dom.json")   # a thread with locals
if [ -z "$SESSION" ] || [ -z "$SOFT" ] || [ -z "$THREAD" ]; then fail options-ids "cannot find the sample's objects"; exit 0; fi

# ---- (b) each option does something ------------------------------------------------

# args CMD OPTION: the run without the option, in ARGS; value OPTION: the
# option as given, in VALUE (redact's OUT is the file run compares, as -o's);
# variables, not output, for no subshell: they are asked thousands of times
args() {
  local f=$S id=$SESSION
  case $2 in --salvage) f=$T ;; --heap) f=$A ;; --all-weak) id=$SOFT ;; --roots) id=$THREAD ;; esac
  # waste's holder lines of the sample are long enough for --full-path
  [ "$2" = --full-path ] && [ "$1" != waste ] && { f=$LONG; id=$LONGEND; }
  # instances: a thread retains its stack locals under --roots=threads only
  local cls=java.lang.String
  [ "$2" = --roots ] && cls=java.lang.Thread
  [ "$2" = --weak ] && cls=java.lang.ref.SoftReference
  [ "$2" = --mapping ] && cls='LeakyCache$Session'   # a size read from a renamed field
  case $1 in
    object|path) ARGS="$1 $f $id" ;;
    instances) ARGS="$1 $f $cls" ;;
    # group-by-value: Sessions by their region (a String; --mapping renames a field of theirs: count)
    # (--weak: SoftReferences by referent, whose retained sizes it changes; --roots: threads by name)
    group-by-value) case $2 in
        --mapping) ARGS="$1 $f LeakyCache\$Session version" ;;
        --weak) ARGS="$1 $f java.lang.ref.SoftReference referent" ;;
        --roots) ARGS="$1 $f java.lang.Thread name" ;;
        *) ARGS="$1 $f LeakyCache\$Session region" ;;
      esac ;;
    # idom: the sample's Random is dominated by the LeakyCache instance (renamed by --mapping)
    idom) if [ "$2" = --mapping ]; then ARGS="$1 $f java.util.Random"; else ARGS="$1 $f $cls"; fi ;;
    # merge-paths: the Strings' paths (a soft-only byte[] for --all-weak, the long
    # list's end for --full-path; the Random's path goes through the renamed class)
    merge-paths) case $2 in
        --mapping) ARGS="$1 $f java.util.Random" ;;
        --all-weak|--full-path) ARGS="$1 $f $id" ;;
        *) ARGS="$1 $f $cls" ;;
      esac ;;
    redact) ARGS="$1 $f $TMPD/out.txt" ;;
    # capture: the dump into the file run compares; --adb (and --serial) the app instead of the PID
    capture) case $2 in --adb|--serial) ARGS="$1 -o $TMPD/out.txt" ;; *) ARGS="$1 $FAKEJVM -o $TMPD/out.txt" ;; esac ;;
    diff|trend) ARGS="$1 $f $S2" ;;
    # sql: one word (comments for spaces) that sizes, policies, names and formats all change
    sql) ARGS="$1 $f SELECT/**/class,count(*),sum(shallow),sum(retained),sum(reachable)FROM/**/objects/**/GROUP/**/BY/**/class" ;;
    sites) if [ "$2" = --salvage ]; then ARGS="$1 $f"; else ARGS="$1 $SITES"; fi ;;
    # --fail-on-leak changes the exit status when a rule finds a zombie
    leaks) if [ "$2" = --fail-on-leak ]; then ARGS="$1 $f --zombie java.lang.Thread:daemon=true"; else ARGS="$1 $f"; fi ;;
    # check: a budget of sizes, counts and zombies (--baseline: one of growth, an error without it)
    check) case $2 in --budget) ARGS="$1 $f" ;; --baseline) ARGS="$1 $f --budget $TMPD/check-growth.json" ;;
        *) ARGS="$1 $f --budget $TMPD/check-budget.json" ;; esac ;;
    *) ARGS="$1 $f" ;;
  esac
}
value() {
  # sites' --exclude matches frames, its call tree is 2 deep
  case $c:$1 in sites:--exclude) VALUE="--exclude B.java"; return ;; sites:--depth) VALUE="--depth 1"; return ;; esac
  # capture's base run writes -o $TMPD/out.txt already
  case $c:$1 in capture:-o) VALUE="-o $TMPD/cap.hprof"; return ;; esac
  case $1 in
    --top) VALUE="--top 1" ;; --sort) VALUE="--sort=name" ;; --heap) VALUE="--heap heap" ;;
    --filter) VALUE="--filter String" ;; --exclude) VALUE="--exclude String" ;;
    --size-model) VALUE="--size-model=raw" ;; --ref-size) VALUE="--ref-size 8" ;;
    --header-size) VALUE="--header-size 32" ;; --align) VALUE="--align 64" ;;
    --weak) VALUE="--weak=skip" ;; --roots) VALUE="--roots=all" ;; --dump) VALUE="--dump 1" ;;
    --max-memory) VALUE="--max-memory 64K" ;; --depth) VALUE="--depth 3" ;;
    --index-dir) VALUE="--index-dir $TMPD/ixdir" ;;
    # dominators merges same-class siblings; top, diff and trend group by package
    --group) if words "$c" --group | grep -qw class; then VALUE="--group=class"; else VALUE="--group=package"; fi ;;
    --mode) VALUE="--mode=strings" ;; --mapping-out) VALUE="--mapping-out $TMPD/map.txt" ;;
    -o | --output) VALUE="$1 $TMPD/out.txt" ;;
    # leaks
    --threshold) VALUE="--threshold 1" ;; --big-drop) VALUE="--big-drop 0.01" ;;
    --zombie) VALUE="--zombie java.lang.Thread:daemon=true" ;;
    --out) VALUE="--out $TMPD/pngs" ;;   # bitmaps
    # --mapping renames the sample's classes (roots, waste, the outer
    # class of LeakyCache$X, a Reference class refs lists), a field
    # instances reads, the sites dump's frames
    --mapping) printf '%s\n' 'LeakyCache$Session -> LeakyCache$Session:' 'LeakyCache$Entity -> LeakyCache$Entity:' \
                 '    int count -> version' 'org.example.Cache -> LeakyCache:' \
                 'org.example.Ref -> sun.util.locale.provider.LocaleResources$ResourceReference:' \
                 'sun.util.locale.provider.Adapter -> sun.util.locale.provider.LocaleProviderAdapter:' \
                 'java.lang.invoke.Handle -> java.lang.invoke.MethodHandle:' \
                 'java.lang.Object -> java.lang.Object:' '    void alpha() -> a' >"$TMPD/mapping.txt"
               VALUE="--mapping $TMPD/mapping.txt" ;;
    --components) echo 'lang ^java\.lang\.' >"$TMPD/comp.txt"; VALUE="--components $TMPD/comp.txt" ;;
    --max-nodes) VALUE="--max-nodes 5" ;;   # merge-paths
    --title) VALUE="--title T" ;;   # report
    --timeout) VALUE="--timeout 0.000001" ;;   # sql: the GROUP BY runs longer
    --export) VALUE="--export $TMPD/out.txt" ;;
    --level) VALUE="--level=weak" ;;   # refs: the weak level alone
    --root) VALUE="--root $SESSION" ;;   # dominators: the tree below a Session
    --port) VALUE="--port 0" ;; --workers) VALUE="--workers 2" ;; --bind) VALUE="--bind 127.0.0.1" ;;   # serve
    --adb) VALUE="--adb com.example.app" ;; --serial) VALUE="--serial emulator-5554" ;;   # capture
    --skip) VALUE="--skip ^java" ;;   # idom: past the JDK's classes   # sql: the database, where run compares -o's file
    --zombie-rules) echo "java.lang.Thread:daemon=true" >"$TMPD/rules.txt"; VALUE="--zombie-rules $TMPD/rules.txt" ;;
    --budget) VALUE="--budget $TMPD/check-budget.json" ;; --baseline) VALUE="--baseline $S2" ;;   # check
    --junit) VALUE="--junit $TMPD/out.txt" ;;   # check: run compares the file as -o's
    *) VALUE="$1" ;;
  esac
}
# run NAME ARGS...: stdout, stderr, exit status and the -o file, in $TMPD/NAME.*
# (BIN=... another binary)
run() {
  local n=$1; shift
  [ -e "$TMPD/out.txt" ] && rm -f "$TMPD/out.txt"
  # shellcheck disable=SC2068  # the words of args/value on purpose
  "${BIN:-$HPROFAN}" $@ --quiet >"$TMPD/$n.out" 2>"$TMPD/$n.err"
  echo $? >"$TMPD/$n.rc"
  if [ -f "$TMPD/out.txt" ]; then mv "$TMPD/out.txt" "$TMPD/$n.file"; else : >"$TMPD/$n.file"; fi
  # report's page holds its command line; an option must change the rest
  if [ "$1" = report ]; then sed -i 's/"command_line":\[[^]]*\]//' "$TMPD/$n.out" "$TMPD/$n.file"; fi
}
# run_base ARGS...: $B names the run of ARGS (the run without the option),
# made once for each distinct ARGS (many options of a command share it);
# index is run each time: what it says depends on the index it finds.
# The release binary makes it (the run with the option, the binary under
# test: what sanitizers would find there, they find there)
declare -A BASES
nbase=0
run_base() {
  local key="$*"
  if [ "$1" != index ] && [ -n "${BASES[$key]-}" ]; then B=${BASES[$key]}; return; fi
  nbase=$((nbase + 1)) B=base$nbase
  BIN=$REL run "$B" "$@"
  BASES[$key]=$B
}
differs() { ! cmp -s "$TMPD/$1.out" "$TMPD/$2.out" || ! cmp -s "$TMPD/$1.err" "$TMPD/$2.err" ||
            ! cmp -s "$TMPD/$1.rc" "$TMPD/$2.rc" || ! cmp -s "$TMPD/$1.file" "$TMPD/$2.file"; }

# check's budgets (args)
echo '{"classes": {"LeakyCache": {"max_instances": 1, "max_retained": "1 MiB"}, "java.lang.String": {"max_shallow": "1 MiB"},
    "java.lang.Thread": {"max_retained": "1 MiB"}},
  "packages": {"java.util": {"max_retained": "10 MiB"}}, "zombies": 0}' >"$TMPD/check-budget.json"
echo '{"growth": {"max_retained": "1 MiB"}}' >"$TMPD/check-growth.json"
for c in $cmds; do
  for o in $(opts "$c"); do
    args "$c" "$o"; base=$ARGS; value "$o"
    # browse refuses to start without a terminal once its options are read,
    # and --quiet only hides the progress display of a terminal: what they
    # show is that the option is accepted, decided from argv (the release binary)
    if [ "$c" = browse ]; then
      TERM=dumb BIN=$REL run with $base $VALUE
      read -r wrc <"$TMPD/with.rc"
      if [ "$wrc" = 2 ] && grep -q "browse needs a terminal" "$TMPD/with.err"; then
        ok "browse accepts $o"
      else fail "browse accepts $o" "exit $wrc: $(head -c 300 "$TMPD/with.err")"; fi
      continue
    fi
    # serve runs until a signal: an address it cannot listen on, given
    # last, ends it once its options are read (before any dump is)
    if [ "$c" = serve ]; then
      BIN=$REL run with $base $VALUE --bind nowhere
      read -r wrc <"$TMPD/with.rc"
      if [ "$wrc" = 2 ] && grep -q "'nowhere' is not an IPv4 or IPv6 address" "$TMPD/with.err"; then
        ok "serve accepts $o"
      else fail "serve accepts $o" "exit $wrc: $(head -c 300 "$TMPD/with.err")"; fi
      continue
    fi
    run_base $base
    case $o in --quiet | -q) BIN=$REL run with $base $VALUE ;; *) run with $base $VALUE ;; esac
    read -r wrc <"$TMPD/with.rc"
    if [ "$wrc" = 2 ] && grep -qE -- "not an option|unknown option" "$TMPD/with.err"; then
      fail "$c takes $o" "$(head -c 300 "$TMPD/with.err")"
    elif [ "$o" = --quiet ] || [ "$o" = -q ]; then
      read -r brc <"$TMPD/$B.rc"
      expect_eq "$c takes $o" "$wrc" "$brc"
    elif [ "$o" = --no-index ] && [ "$c" != index ]; then
      # what it changes is the index file: none written with it
      rm -rf "$HPROFAN_INDEX_DIR"; run with $base $VALUE
      if [ -n "$(ls -A "$HPROFAN_INDEX_DIR" 2>/dev/null)" ]; then fail "$c $o does something" "an index was written"
      else
        BIN=$REL run base $base
        if [ -n "$(ls -A "$HPROFAN_INDEX_DIR" 2>/dev/null)" ]; then ok "$c $o does something (no index written)"
        else fail "$c $o does something" "no index written without it either ($base)"; fi
      fi
    elif [ "$o" = --index-dir ]; then
      # what it changes is where the index goes: into the directory named
      rm -rf "$TMPD/ixdir"; run with $base $VALUE
      if [ -n "$(ls -A "$TMPD/ixdir" 2>/dev/null)" ]; then ok "$c $o does something (the index in DIR)"
      else fail "$c $o does something" "no index in $TMPD/ixdir ($base $VALUE)"; fi
    elif differs "$B" with; then
      ok "$c $o does something"
    elif [ "$c" = path ] && case $o in --size-model|--ref-size|--header-size|--align) true ;; *) false ;; esac; then
      # path's table gives no sizes; its JSON gives each step's shallow size
      run base $base --json
      run with $base $VALUE --json
      if differs base with; then ok "$c $o does something (the sizes of its JSON)"
      else fail "$c $o does something" "the same output as without it ($base), also in JSON"; fi
    else
      fail "$c $o does something" "the same output, messages and exit status as without it ($base)"
    fi
  done
done

# ---- (c) the others are usage errors ------------------------------------------------

# refused BIN CMD OPTION: the run with OPTION is a usage error naming CMD
refused() {
  local err rc
  # shellcheck disable=SC2046  # the words of args/value on purpose
  args "$2" "$3"; value "$3"
  "$1" $ARGS $VALUE --quiet 2>"$TMPD/refused.err" >/dev/null; rc=$?
  read -r -d '' err <"$TMPD/refused.err"
  if [ $rc = 2 ] && [[ $err == *"$3 is not an option of '$2'"* ]]; then ok "$2 refuses $3${4-}"
  else fail "$2 refuses $3${4-}" "exit $rc: ${err:0:300}"; fi
}
for c in $cmds; do
  first=1
  for o in $all; do
    has "$c" "$o" && continue
    refused "$REL" "$c" "$o"
    # the binary under test refuses one of each command's too
    if ((first)) && [ "$REL" != "$HPROFAN" ]; then refused "$HPROFAN" "$c" "$o" " (the binary under test)"; first=0; fi
  done
done

# ---- (d) the rules --------------------------------------------------------------------

# side CMD SPEC: SPEC as given ("--group=package" as is, "--depth" with a value)
side() { c=$1; case $2 in *=*) SIDE=$2 ;; *) value "$2"; SIDE=$VALUE ;; esac; }
# other CMD OPTION VALUE: a value of OPTION's choice that is not VALUE
other() { words "$1" "$2" | tr ' ' '\n' | grep -vxF -- "$3" | head -n 1; }
# try BIN NAME CMD SIDES...: runs CMD on its files with the sides; the
# messages into $TMPD/rule.err, the exit status into rrc
try() {
  local bin=$1 c=$3 a=${4%%=*}; shift 3
  local sw=() s
  # shellcheck disable=SC2207  # a side is one or two words
  for s in "$@"; do side "$c" "$s"; sw+=($SIDE); done
  # shellcheck disable=SC2046  # the words of args on purpose
  args "$c" "$a"
  "$bin" $ARGS "${sw[@]}" --quiet >/dev/null 2>"$TMPD/rule.err"; rrc=$?
}
# broken NAME MESSAGE: the run was a usage error saying MESSAGE, then where help is
broken() {
  if [ $rrc = 2 ] && awk -v p="hprofan: $2" 'index($0, p) == 1 { f = 1 } END { exit !f }' "$TMPD/rule.err" &&
     grep -qxF -- "hprofan: try 'hprofan help $c'" "$TMPD/rule.err"; then ok "$1"
  else fail "$1" "exit $rrc: $(head -c 300 "$TMPD/rule.err")"; fi
}
# holds NAME MESSAGE: the run did not say MESSAGE
holds() {
  if grep -qF -- "hprofan: $2" "$TMPD/rule.err"; then fail "$1" "$(head -c 300 "$TMPD/rule.err")"; else ok "$1"; fi
}
declare -A sane
nrules=0
while IFS=$'\t' read -r _ c kind a b; do
  nrules=$((nrules + 1))
  bin=$REL
  [ -z "${sane[$kind]-}" ] && { bin=$HPROFAN; sane[$kind]=1; }   # one of each kind under test
  case $kind in
    needs)
      try "$bin" x "$c" "$a"; broken "$c: $a alone is refused (needs $b)" "$a needs $b: "
      try "$REL" x "$c" "$a" "$b"; holds "$c: $a with $b is not refused by the rule" "$a needs $b" ;;
    excludes)
      try "$bin" x "$c" "$a" "$b"; broken "$c: $a with $b is refused" "$a does not go with $b: "
      try "$REL" x "$c" "$a"; holds "$c: $a alone is not refused (the rule: not with $b)" "$a does not go with $b" ;;
    only-with)
      w=$(other "$c" "${b%%=*}" "${b#*=}")
      try "$bin" x "$c" "$a" "${b%%=*}=$w"; broken "$c: $a with ${b%%=*}=$w is refused" "$a does not go with ${b%%=*}=$w: "
      try "$REL" x "$c" "$a" "$b"; holds "$c: $a with $b is not refused by the rule" "$a does not go with"
      try "$REL" x "$c" "$a"; holds "$c: $a alone is not refused (the rule: only with $b)" "$a does not go with" ;;
    *) fail "options: rule of $c" "unknown kind $kind" ;;
  esac
done < <(awk -F'\t' '$1 == "rule"' "$TMPD/table")
[ "$nrules" -gt 0 ] || fail "options: the rules" "the table has none"

# ---- (e) the choices: one wording, their values in help ------------------------------

# the list as the messages write it: "a, b or c"
listed() { awk '{ s = $1; for (i = 2; i <= NF; i++) s = s (i == NF ? " or " : ", ") $i; print s }' <<<"$1"; }
declare -A seen_choice
while IFS=$'\t' read -r c o vals; do
  # help names each value in the option's lines (its spec or its text)
  block=$(awk -v o="$o" '/^  -/ { on = ($1 ~ "^" o "[= ]" || $1 == o) } on' "$TMPD/help.$c")
  missing=''
  for v in $vals; do grep -qwF -- "$v" <<<"$block" || missing="$missing $v"; done
  if [ -z "$missing" ]; then ok "help $c: $o names its values"; else fail "help $c: $o names its values" "not named:$missing"; fi
  # the messages, once for each list
  [ -n "${seen_choice[$o $vals]-}" ] && continue
  seen_choice[$o $vals]=1
  [ "$c" = browse ] && continue
  l=$(listed "$vals")
  # shellcheck disable=SC2046  # the words of args on purpose
  args "$c" "$o"
  err=$("$REL" $ARGS --quiet "$o" 2>&1 >/dev/null); rc=$?
  expect_eq "$c $o (no value): the one wording" "$rc: ${err%%$'\n'*}" "2: hprofan: $o needs one of: $l"
  for form in "$o=bogus" "$o bogus"; do
    # shellcheck disable=SC2046,SC2086  # the words on purpose
    err=$("$REL" $ARGS --quiet $form 2>&1 >/dev/null); rc=$?
    expect_eq "$c $form: the one wording" "$rc: ${err%%$'\n'*}" "2: hprofan: $o=bogus: not one of $l"
  done
done < <(awk -F'\t' '$1 == "option" && $5 == "choice" { print $2 "\t" $3 "\t" $8 }' "$TMPD/table")
