#!/usr/bin/env bash
# The progress line on a terminal (cli/progress.h): a load and redact show
# "hprofan: reading NAME: X of Y (P%), R/s, ETA Ns" (redacting for redact;
# a pipe's size is not known: "NAME: X, R/s")
# once a phase has lasted a second, on stderr, and erase it (\r ESC [K)
# before their output; --quiet, or stderr not a terminal, show none.
# The input is a pipe that stalls 1.3 s after its first bytes, so the
# parser's next report (every 16 MiB) comes after the first second.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip progress "python3 is absent"; exit 0; }
command -v script >/dev/null 2>&1 || { skip progress "script (util-linux) is absent"; exit 0; }
export HPROFAN_NO_INDEX=1 TMPDIR=$TMPD

D=$TMPD/big.hprof         # one byte[] of 40 MiB: three reports of 16 MiB
python3 - "$D" <<PY
import sys
sys.path.insert(0, "$(dirname "$0")/../helper")
from mkhprof import *
d = Dump()
o = d.load_class("java.lang.Object")
d.class_dump(o)
d.load_class("[B")
a = d.huge_prim_array(BYTE, 40 << 20)
d.root(a)
d.write(sys.argv[1])
PY
# slow CMD...: CMD reads the dump from a pipe that stalls, on a terminal
# (script's pty is its stdout and stderr); the bytes it printed in $TMPD/tty
slow() {
  script -qec "(head -c 65536 '$D'; sleep 1.3; tail -c +65537 '$D') | $*" /dev/null >"$TMPD/tty" 2>&1 </dev/null
}
# line WHAT: the last progress line drawn, as text
line() { tr '\r' '\n' <"$TMPD/tty" | grep -a "^hprofan: $1 -: " | tail -1; }

slow "'$HPROFAN' top - --top 1"
l=$(line reading)
if printf '%s' "$l" | grep -Eq '^hprofan: reading -: [0-9.]+ MiB, [0-9.]+ [KM]iB/s +$'; then
  ok "progress: a load shows what, how far, how fast, how long"
else fail "progress: a load shows what, how far, how fast, how long" "$(cat -v "$TMPD/tty" | head -3)"; fi
if grep -aq $'\r\033\[K' "$TMPD/tty" && grep -aq 'java.lang.Object\|byte\[\]' "$TMPD/tty"; then
  ok "progress: the line is erased before the table"
else fail "progress: the line is erased before the table" "$(cat -v "$TMPD/tty" | tail -3)"; fi

slow "'$HPROFAN' redact - '$TMPD/out.hprof'"
l=$(line redacting)
if printf '%s' "$l" | grep -Eq '^hprofan: redacting -: [0-9.]+ MiB, [0-9.]+ [KM]iB/s +$|^hprofan: redacting -: [0-9.]+ MiB of [0-9.]+ MiB \([0-9]+%\), [0-9.]+ [KM]iB/s, ETA [0-9]+s +$'; then
  ok "progress: redact shows its passes"
else fail "progress: redact shows its passes" "$(cat -v "$TMPD/tty" | head -3)"; fi
expect_eq "progress: redact's output is whole" "$(wc -c <"$TMPD/out.hprof" | tr -d ' ')" "$(wc -c <"$D" | tr -d ' ')"

slow "'$HPROFAN' top - --top 1 --quiet"
expect_eq "progress: --quiet shows none" "$(grep -ac 'hprofan: reading' "$TMPD/tty")" "0"
(head -c 65536 "$D"; sleep 1.3; tail -c +65537 "$D") | "$HPROFAN" top - --top 1 >/dev/null 2>"$TMPD/err"
expect_eq "progress: none when stderr is not a terminal" "$(cat "$TMPD/err")" ""
