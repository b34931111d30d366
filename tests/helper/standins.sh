# tests/helper/standins.sh — stand-ins for the tools hprofan capture runs,
# written into a directory put first on PATH (tests/cli/capture.sh,
# options.sh).  Sourced; each function writes one executable script.
#
# standin_adb DIR: DIR/adb, an Android device in a directory.  Each call
# appends its arguments, one line, to $ADB_LOG.  The device's files are
# under $ADB_DEVICE (/data/local/tmp/x is $ADB_DEVICE/data/local/tmp/x).
#   -s S            S must be one of $ADB_SERIALS (else adb's "device not found")
#   shell pidof P   4321 when P is $ADB_RUNNING, else nothing and exit 1
#   shell am dumpheap [-g] P FILE   $ADB_DUMP copied to FILE; by $ADB_MODE:
#                   "" Android 10+: says "Waiting for dump to finish..." when done;
#                   old: returns at once, the file written in two steps 0.3 s
#                   apart in the background (what older Android does);
#                   notdebuggable: the SecurityException of a release app;
#                   unknown: the IllegalArgumentException of a process gone;
#                   cut: says it waited, but the file is the dump's first 100000 bytes
#   shell stat -c %s FILE, shell rm -f FILE, pull FILE LOCAL: as on a device
standin_adb() {
  cat >"$1/adb" <<'SH'
#!/bin/bash
echo "$*" >>"$ADB_LOG"
if [ "${1-}" = -s ]; then
  case " ${ADB_SERIALS-} " in *" $2 "*) ;; *) echo "adb: device '$2' not found"; exit 1 ;; esac
  shift 2
fi
[ "${ADB_MODE-}" = nodevice ] && { echo "adb: no devices/emulators found"; exit 1; }
dev=$ADB_DEVICE
case ${1-} in
  shell)
    shift
    case ${1-} in
      pidof) [ "$2" = "${ADB_RUNNING-}" ] && echo 4321 && exit 0; exit 1 ;;
      am)
        [ "$2" = dumpheap ] || exit 1
        shift 2
        [ "$1" = -g ] && shift
        case ${ADB_MODE-} in
          notdebuggable)
            echo "Exception occurred while executing 'dumpheap':"
            echo "java.lang.SecurityException: Process not debuggable: ProcessRecord{1a2b3c 4321:$1/u0a123}"
            exit 255 ;;
          unknown)
            echo "Exception occurred while executing 'dumpheap':"
            echo "java.lang.IllegalArgumentException: Unknown process: $1"
            exit 255 ;;
          cut)
            echo "File: $2"
            head -c 100000 "$ADB_DUMP" >"$dev$2" && echo "Waiting for dump to finish..." ;;
          old)
            head -c 100000 "$ADB_DUMP" >"$dev$2"
            (sleep 0.3; cat "$ADB_DUMP" >"$dev$2") >/dev/null 2>&1 &
            exit 0 ;;
          *)
            echo "File: $2"
            cp "$ADB_DUMP" "$dev$2" && echo "Waiting for dump to finish..." ;;
        esac ;;
      stat) [ -f "$dev$4" ] || { echo "stat: '$4': No such file or directory"; exit 1; }
            stat -c %s "$dev$4" ;;
      rm) rm -f "$dev$3" ;;
      *) echo "/system/bin/sh: $1: inaccessible or not found"; exit 127 ;;
    esac ;;
  pull)
    [ -f "$dev$2" ] || { echo "adb: error: failed to stat remote object '$2': No such file or directory"; exit 1; }
    cp "$dev$2" "$3" && echo "$2: 1 file pulled, 0 skipped." ;;
  *) echo "adb: unknown command $1"; exit 1 ;;
esac
SH
  chmod +x "$1/adb"
}

# standin_jcmd DIR: DIR/jcmd, a jcmd that writes $JCMD_ALL (with -all) or
# $JCMD_LIVE (without) to the file GC.heap_dump names, gzip -N with -gz=N,
# and logs its arguments to $JCMD_LOG.  For a PID that catches SIGQUIT (a
# stand-in "JVM": python3 setting a SIGQUIT handler; not a background shell's
# trap, as its SIGQUIT was ignored on entry).
standin_jcmd() {
  cat >"$1/jcmd" <<'SH'
#!/bin/bash
echo "$*" >>"${JCMD_LOG:-/dev/null}"
pid=$1 all= gz=
shift 2
while [ $# -gt 1 ]; do
  case $1 in -all) all=1 ;; -gz=*) gz=${1#-gz=} ;; esac
  shift
done
[ -e "$1" ] && { echo "$pid:"; echo "File exists"; exit 0; }
src=$JCMD_LIVE; [ -n "$all" ] && src=$JCMD_ALL
echo "$pid:"
if [ -n "$gz" ]; then gzip -c "-$gz" "$src" >"$1"; else cat "$src" >"$1"; fi
echo "Heap dump file created [$(stat -c %s "$1") bytes in 0.001 secs]"
SH
  chmod +x "$1/jcmd"
}
