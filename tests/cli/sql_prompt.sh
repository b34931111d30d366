#!/usr/bin/env bash
# hprofan sql's prompt, driven through tmux on the sample dump: a statement
# and its answer; one over two lines (the "...>" prompt); .tables; with a
# line editor (libedit or readline, built in when pkg-config finds one) the
# up arrow recalls the last line and it can be edited before Enter:
# "SELECT 41 + 1 AS answer;" recalled (four lines up), " AS answer;" rubbed out and
# " + 100 AS edited;" typed gives 142; .quit leaves with exit status 0.
. "$(dirname "$0")/../lib.sh"
command -v tmux >/dev/null 2>&1 || { skip sql-prompt "tmux is absent"; exit 0; }
S=$TESTDATA/hprof/leakycache.hprof.gz
SOCK=$TMPD/tmux.sock
T() { tmux -S "$SOCK" -f /dev/null "$@"; }
cleanup() { T kill-server >/dev/null 2>&1; }
at_exit cleanup
. "$(dirname "$0")/../tmux.sh"
q() { printf '%q' "$1"; }
cmd="env TERM=screen LC_ALL=C.UTF-8 ASAN_OPTIONS=detect_leaks=1:exitcode=99 $(q "$HPROFAN") sql $(q "$S") --quiet; echo \$? > $(q "$TMPD/rc")"
T new-session -d -s hb -x 120 -y 40 "$cmd" || { fail sql-prompt "tmux new-session failed"; exit 0; }

wait_for sql-prompt-starts "hprofan>" || exit 0
ok "sql: the prompt starts"
T send-keys -t hb "SELECT 41 + 1 AS answer\;" Enter
wait_for sql-prompt-answer "answer" "    42" "(1 row)" && ok "sql prompt: a statement's answer"
T send-keys -t hb "SELECT count(*) AS n" Enter
wait_for sql-prompt-more "   ...>" && T send-keys -t hb "FROM classes\;" Enter
n=$("$HPROFAN" sql "$S" --csv --quiet "SELECT count(*) FROM classes" | tail -1 | tr -d '\r')
line_is() { shows "$1" && grep -qx -- "$2" "$SCREEN"; }
until_ok line_is "FROM classes;" "$n" && ok "sql prompt: a statement over two lines ($n classes)" ||
  fail "sql prompt: a statement over two lines ($n classes)" "$(cat "$SCREEN")"
T send-keys -t hb ".tables" Enter
wait_for sql-prompt-tables "objects  classes  refs" && ok "sql prompt: .tables"
if grep -qF "(line editing: " "$SCREEN"; then
  T send-keys -t hb Up
  wait_for sql-prompt-recall "hprofan> .tables" && ok "sql prompt: the up arrow recalls the last line"
  T send-keys -t hb Up Up Up BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace " + 100 AS edited\;" Enter
  wait_for sql-prompt-edit "edited" "   142" && ok "sql prompt: a recalled line edited and run again"
elif pkg-config --exists libedit 2>/dev/null || pkg-config --exists readline 2>/dev/null; then
  fail "sql prompt: line editing" "pkg-config has a line editor, the prompt says none: $(head -3 "$SCREEN")"
else
  skip sql-prompt-editing "built without libedit or readline"
fi
T send-keys -t hb ".quit" Enter
until_ok test -s "$TMPD/rc"
expect_eq "sql prompt: .quit leaves, exit 0 (and no leak under the sanitizers)" "$(cat "$TMPD/rc" 2>/dev/null)" 0
