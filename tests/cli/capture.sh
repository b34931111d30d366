#!/usr/bin/env bash
# hprofan capture (issue #35, item 2):
#  - jcmd, on a real JDK 17 JVM (testdata/java/capture/Capture.java: 1234
#    Kept objects held, 500 Dropped ones let go of before READY): the dump
#    read back has the 1234 Kept (the count of jcmd GC.class_histogram) and,
#    without --live (jcmd -all), the 500 Dropped; --live none of them;
#    --gz writes gzip that hprofan reads; no -o: PID-TIME.hprof in the
#    current directory, its path on stdout; -o over a file replaces it
#    whole, leaving no temporary file, owner-only; progress on stderr, none
#    with --quiet; `-- top --top 5` is top's output, and the exit status of
#    the command run is passed through; jcmd found in $JAVA_HOME/bin;
#  - its errors, one line and exit 1 (2 for usage): jcmd missing, a PID
#    that is no JVM (this script's bash: it must survive, jcmd's SIGQUIT
#    would kill it), a dead PID, -o in a missing directory, not a number;
#  - adb, through a recording stand-in (tests/helper/standins.sh) that gives
#    a corpus Android dump (JAVA PROFILE 1.0.3): the exact adb calls, the
#    device's file removed, the pulled file the corpus dump byte for byte
#    (also when am dumpheap returns before the dump is written, as before
#    Android 10), --serial as adb -s, --live as am dumpheap -g; the errors
#    for an app not running, not debuggable, gone, no device, adb missing,
#    a dump cut short (no HEAP DUMP END at its end).
# The JDK part is skipped without a JDK (javac, java, jcmd), the adb dumps
# without the corpus.
. "$(dirname "$0")/../lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/helper/standins.sh"
D=$TMPD
mkdir -p "$D/cwd" "$D/empty"

# count FILE CLASS: the instances of CLASS (Capture$...) in the dump FILE (top's table)
count() {
  "$REL" top "$1" --filter Capture --top 10 --quiet --no-index 2>/dev/null |
    awk -v c="$2" '$NF == c { gsub(",", "", $2); print $2; f = 1 } END { if (!f) print 0 }'
}
# one_line NAME ERRFILE WANT: ERRFILE is one line, "hprofan: capture: " and WANT in it
one_line() {
  local n
  n=$(wc -l <"$2")
  if [ "$n" = 1 ] && grep -q "^hprofan: capture: .*$3" "$2"; then ok "$1"
  else fail "$1" "$n lines: $(head -c 300 "$2")"; fi
}

# ---- errors decided before any JVM -------------------------------------------

run_hp "$D/o" "$D/e" capture "$$"; rc=$?
expect_eq "capture: this bash is no JVM: exit 1" "$rc" 1
one_line "capture: this bash is no JVM: said" "$D/e" "process $$ (bash) is not a Java VM"
kill -0 $$ 2>/dev/null && ok "capture: this bash survived" || fail "capture: this bash survived" "it is gone"

sleep 0 & dead=$!
wait "$dead"
run_hp "$D/o" "$D/e" capture "$dead"; rc=$?
expect_eq "capture: a dead PID: exit 1" "$rc" 1
one_line "capture: a dead PID: said" "$D/e" "no process $dead\$"

run_hp "$D/o" "$D/e" capture 12ab; rc=$?
expect_eq "capture: a PID that is no number: exit 2" "$rc" 2
grep -q "^hprofan: capture: 12ab is no process id" "$D/e" && ok "capture: a PID that is no number: said" ||
  fail "capture: a PID that is no number: said" "$(head -c 300 "$D/e")"
run_hp "$D/o" "$D/e" capture; rc=$?
expect_eq "capture: no PID nor --adb: exit 2" "$rc" 2
run_hp "$D/o" "$D/e" capture 1 -- nosuch FILE; rc=$?
expect_eq "capture: -- an unknown command: exit 2 before dumping" "$rc:$(head -n 1 "$D/e")" \
  "2:hprofan: capture: -- nosuch: no such command (after -- comes a command of hprofan's and its arguments, the dump put after the command)"

# PATH without jcmd, no JAVA_HOME
(PATH=$D/empty; unset JAVA_HOME; "$HPROFAN" capture "$$" >"$D/o" 2>"$D/e"); rc=$?
expect_eq "capture: jcmd missing: exit 1" "$rc" 1
one_line "capture: jcmd missing: said" "$D/e" 'jcmd is not on PATH nor in \$JAVA_HOME/bin'

# ---- a real JVM ----------------------------------------------------------------

jvm() {
  local t
  for t in javac java jcmd; do
    command -v "$t" >/dev/null 2>&1 || { skip capture-jdk "$t is absent"; return 1; }
  done
  # the source launcher: compiled in memory, one JVM start instead of javac's and java's
  java -Xmx256m -XX:+UseSerialGC "$ROOT/testdata/java/capture/Capture.java" >"$D/Capture.out" 2>&1 &
  JPID=$!
  at_exit 'kill $JPID 2>/dev/null'
  said_ready "$D/Capture.out" "$JPID" || { fail capture-jvm "the JVM never said READY: $(head -c 300 "$D/Capture.out")"; return 1; }
}
if jvm; then
  # every object (jcmd -all): before any GC, the Dropped are still there
  run_hp "$D/o" "$D/e" capture "$JPID" -o "$D/all.hprof"; rc=$?
  expect_eq "capture PID -o: exit 0, the path on stdout" "$rc:$(cat "$D/o")" "0:$D/all.hprof"
  expect_eq "capture PID -o: a HotSpot dump" "$(head -c 18 "$D/all.hprof")" "JAVA PROFILE 1.0.2"
  expect_eq "capture PID: the 1234 Kept" "$(count "$D/all.hprof" 'Capture$Kept')" 1234
  expect_eq "capture PID: the 500 Dropped too (jcmd -all)" "$(count "$D/all.hprof" 'Capture$Dropped')" 500
  expect_eq "capture PID: owner-only" "$(stat -c %a "$D/all.hprof")" 600
  if grep -q "^capture: dumping process $JPID (java) with jcmd: every object" "$D/e" &&
     grep -q "^capture: $D/all.hprof written: " "$D/e"; then ok "capture: progress on stderr"
  else fail "capture: progress on stderr" "$(head -c 300 "$D/e")"; fi

  # --gz, with --quiet; no -o: the default name here
  (cd "$D/cwd" && "$HPROFAN" capture "$JPID" --gz --quiet >"$D/o" 2>"$D/e"); rc=$?
  f=$(cat "$D/o")
  if [ "$rc" = 0 ] && [[ $f =~ ^${JPID}-[0-9]{8}-[0-9]{6}\.hprof\.gz$ ]] && [ -f "$D/cwd/$f" ]; then
    ok "capture --gz without -o: PID-TIME.hprof.gz here, its name on stdout"
  else fail "capture --gz without -o: PID-TIME.hprof.gz here, its name on stdout" "exit $rc, '$f': $(ls "$D/cwd")"; fi
  expect_eq "capture --quiet: nothing on stderr" "$(cat "$D/e")" ""
  expect_eq "capture --gz: gzip" "$(head -c 2 "$D/cwd/$f" | od -An -tx1 | tr -d ' ')" 1f8b
  expect_eq "capture --gz: read by hprofan" "$(count "$D/cwd/$f" 'Capture$Kept')" 1234

  # -o over a file: replaced whole, nothing left beside it; jcmd from
  # $JAVA_HOME/bin when PATH has none
  echo old >"$D/over.hprof"
  chmod 644 "$D/over.hprof"
  mkdir -p "$D/jh/bin" && ln -s "$(type -P jcmd)" "$D/jh/bin/jcmd"
  (PATH=$D/empty JAVA_HOME=$D/jh "$HPROFAN" capture "$JPID" -o "$D/over.hprof" -q >"$D/o" 2>"$D/e"); rc=$?
  expect_eq "capture -o over a file, jcmd from \$JAVA_HOME/bin: replaced" "$rc:$(head -c 18 "$D/over.hprof")" "0:JAVA PROFILE 1.0.2"
  expect_eq "capture -o: no temporary file left" "$(ls -a "$D" | grep -c '\.tmp\.')" 0

  # -- top --top 5: top's output; the exit status passed through
  run_hp "$D/top.out" "$D/e" capture "$JPID" -o "$D/top.hprof" -q -- top --top 5; rc=$?
  "$HPROFAN" top "$D/top.hprof" --top 5 >"$D/top.want" 2>/dev/null
  if [ "$rc" = 0 ] && [ -s "$D/top.want" ] && cmp -s "$D/top.out" "$D/top.want"; then ok "capture -- top --top 5: top's output"
  else fail "capture -- top --top 5: top's output" "exit $rc: $(head -c 300 "$D/top.out") / $(head -c 300 "$D/e")"; fi
  run_hp "$D/o" "$D/e" capture "$JPID" -o "$D/x.hprof" -q -- top --no-such-option; rc=$?
  expect_eq "capture -- COMMAND: its exit status (a usage error, 2)" "$rc:$(head -n 1 "$D/e")" "2:hprofan: unknown option: --no-such-option"
  run_hp "$D/o" "$D/e" capture "$JPID" -o "$D/x.hprof" -q -- diff {} "$D/all.hprof"; rc=$?
  grep -q "$D/x.hprof" "$D/o" && grep -q "$D/all.hprof" "$D/o" && [ "$rc" = 0 ] && ok "capture -- diff {} OLD: {} is the dump" ||
    fail "capture -- diff {} OLD: {} is the dump" "exit $rc: $(head -c 300 "$D/e")"

  # -o in a directory that is not there: said before dumping
  run_hp "$D/o" "$D/e" capture "$JPID" -o "$D/no/such/dir/x.hprof"; rc=$?
  expect_eq "capture -o in a missing directory: exit 1, one line" "$rc:$(wc -l <"$D/e")" "1:1"
  grep -q "cannot write $D/no/such/dir/x.hprof: No such file or directory" "$D/e" &&
    ok "capture -o in a missing directory: said" || fail "capture -o in a missing directory: said" "$(head -c 300 "$D/e")"

  # --live: a full GC first, the Dropped gone; the Kept as the JVM counts them
  run_hp "$D/o" "$D/e" capture "$JPID" --live -o "$D/live.hprof"; rc=$?
  expect_eq "capture --live: exit 0" "$rc" 0
  grep -q "with jcmd: live objects, after a full GC" "$D/e" && ok "capture --live: said" || fail "capture --live: said" "$(head -c 300 "$D/e")"
  expect_eq "capture --live: no Dropped" "$(count "$D/live.hprof" 'Capture$Dropped')" 0
  histo=$(jcmd "$JPID" GC.class_histogram 2>&1 | awk '$NF == "Capture$Kept" { print $2 }')
  expect_eq "capture --live: the Kept, as jcmd GC.class_histogram counts them" "$(count "$D/live.hprof" 'Capture$Kept')" "${histo:-none}"
  kill "$JPID" 2>/dev/null
  wait "$JPID" 2>/dev/null
fi

# ---- adb, through the stand-in ---------------------------------------------------

mkdir -p "$D/adbbin" "$D/device/data/local/tmp"
standin_adb "$D/adbbin"
export ADB_LOG=$D/adb.log ADB_DEVICE=$D/device ADB_RUNNING=com.example.app ADB_SERIALS=emulator-5554 ADB_MODE=
unset ANDROID_HOME ANDROID_SDK_ROOT
APATH=$D/adbbin:$PATH
# adb_run NAME ARGS...: hprofan capture ARGS with the stand-in; the calls it
# made in $D/calls (the device file as DEV, -o's temporary name as TMP)
adb_run() {
  local n=$1; shift
  : >"$ADB_LOG"
  PATH=$APATH "$HPROFAN" capture "$@" >"$D/o" 2>"$D/e"
  arc=$?
  sed -E -e 's#/data/local/tmp/hprofan-4321-[0-9]+\.hprof#DEV#g' -e "s#$D/[^ ]*\\.tmp\\.[A-Za-z0-9]{6}#TMP#g" \
    "$ADB_LOG" >"$D/calls"
}
calls() { expect_eq "$1" "$(paste -sd';' "$D/calls")" "$2"; }
device_empty() { expect_eq "$1: the device's file removed" "$(ls -A "$D/device/data/local/tmp")" ""; }

adb_run notrunning --adb com.example.other -o "$D/app.hprof"
expect_eq "capture --adb: not running: exit 1" "$arc" 1
one_line "capture --adb: not running: said" "$D/e" "com.example.other is not running on the device"
calls "capture --adb: not running: only pidof" "shell pidof com.example.other"

ADB_MODE=notdebuggable adb_run notdebuggable --adb com.example.app -o "$D/app.hprof" -q
expect_eq "capture --adb: not debuggable: exit 1" "$arc" 1
one_line "capture --adb: not debuggable: said" "$D/e" "com.example.app is not debuggable"
calls "capture --adb: not debuggable: the device's file removed" \
  "shell pidof com.example.app;shell am dumpheap com.example.app DEV;shell rm -f DEV"
[ -e "$D/app.hprof" ] && fail "capture --adb: not debuggable: no file" "$D/app.hprof is there" || ok "capture --adb: not debuggable: no file"

ADB_MODE=unknown adb_run unknown --adb com.example.app -o "$D/app.hprof" -q
expect_eq "capture --adb: the process gone: exit 1, said" "$arc:$(grep -c 'com.example.app is not running' "$D/e")" "1:1"

ADB_MODE=nodevice adb_run nodevice --adb com.example.app -o "$D/app.hprof"
one_line "capture --adb: no device: adb's words" "$D/e" "adb: adb: no devices/emulators found"

adb_run badserial --adb com.example.app --serial other-1 -o "$D/app.hprof"
one_line "capture --serial: a device not there: adb's words" "$D/e" "adb: adb: device 'other-1' not found"

(PATH=$D/empty "$HPROFAN" capture --adb com.example.app >"$D/o" 2>"$D/e"); rc=$?
expect_eq "capture --adb: adb missing: exit 1" "$rc" 1
one_line "capture --adb: adb missing: said" "$D/e" "adb is not on PATH nor in \\\$ANDROID_HOME/platform-tools"

A=$CORPUS/tadfisher__platform_tools_base/dialer.android-hprof
if have_corpus capture-adb && [ -f "$A" ]; then
  export ADB_DUMP=$A
  adb_run new --adb com.example.app -o "$D/app.hprof"
  expect_eq "capture --adb: exit 0, the path on stdout" "$arc:$(cat "$D/o")" "0:$D/app.hprof"
  calls "capture --adb: the adb calls" \
    "shell pidof com.example.app;shell am dumpheap com.example.app DEV;pull DEV TMP;shell rm -f DEV"
  device_empty "capture --adb"
  cmp -s "$A" "$D/app.hprof" && ok "capture --adb: the pulled file is the app's dump" ||
    fail "capture --adb: the pulled file is the app's dump" "it differs ($(wc -c <"$D/app.hprof") bytes)"
  grep -q "^capture: pulling /data/local/tmp/hprofan-4321-" "$D/e" && ok "capture --adb: progress on stderr" ||
    fail "capture --adb: progress on stderr" "$(head -c 300 "$D/e")"
  "$HPROFAN" info "$D/app.hprof" --quiet >"$D/info" 2>&1 && grep -q "1.0.3" "$D/info" &&
    ok "capture --adb: hprofan reads it (1.0.3)" || fail "capture --adb: hprofan reads it (1.0.3)" "$(head -c 300 "$D/info")"

  # Android before 10: am dumpheap returns at once, the file grows after
  ADB_MODE=old adb_run old --adb com.example.app --serial emulator-5554 --live -o "$D/old.hprof" -q
  expect_eq "capture --adb (am returning at once): exit 0" "$arc" 0
  cmp -s "$A" "$D/old.hprof" && ok "capture --adb (am returning at once): waited for the whole dump" ||
    fail "capture --adb (am returning at once): waited for the whole dump" "$(wc -c <"$D/old.hprof" 2>&1) bytes"
  device_empty "capture --adb (am returning at once)"
  stats=$(grep -c '^-s emulator-5554 shell stat -c %s DEV$' "$D/calls")
  [ "$stats" -ge 4 ] && ok "capture --adb: the file watched until it stops growing ($stats stats)" ||
    fail "capture --adb: the file watched until it stops growing" "$stats stats"
  calls "capture --serial --live: adb -s, am dumpheap -g" \
    "-s emulator-5554 shell pidof com.example.app;-s emulator-5554 shell am dumpheap -g com.example.app DEV;$(
      for ((i = 0; i < stats; i++)); do printf '%s;' "-s emulator-5554 shell stat -c %s DEV"; done
    )-s emulator-5554 pull DEV TMP;-s emulator-5554 shell rm -f DEV"
  expect_eq "capture --adb -q: nothing on stderr" "$(cat "$D/e")" ""

  # a dump cut short (the app died while writing it): refused, nothing left
  ADB_MODE=cut adb_run cut --adb com.example.app -o "$D/cut.hprof" -q
  expect_eq "capture --adb: a dump cut short: exit 1" "$arc" 1
  one_line "capture --adb: a dump cut short: said" "$D/e" "incomplete: it does not end with a HEAP DUMP END record"
  [ -e "$D/cut.hprof" ] && fail "capture --adb: a dump cut short: no file" "$D/cut.hprof is there" ||
    ok "capture --adb: a dump cut short: no file"
  device_empty "capture --adb: a dump cut short"

  # no -o: PACKAGE-TIME.hprof here; -- COMMAND
  (cd "$D/cwd" && PATH=$APATH "$HPROFAN" capture --adb com.example.app -q -- info >"$D/o" 2>"$D/e"); rc=$?
  f=$(cd "$D/cwd" && ls com.example.app-*.hprof 2>/dev/null)
  if [ "$rc" = 0 ] && [[ $f =~ ^com\.example\.app-[0-9]{8}-[0-9]{6}\.hprof$ ]] && grep -q "1.0.3" "$D/o"; then
    ok "capture --adb without -o, -- info: PACKAGE-TIME.hprof here, info's output"
  else fail "capture --adb without -o, -- info: PACKAGE-TIME.hprof here, info's output" "exit $rc, '$f': $(head -c 300 "$D/e")"; fi
fi
