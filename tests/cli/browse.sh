#!/usr/bin/env bash
# hprofan browse, driven through tmux on the sample dump: the first row is
# the object `hprofan dominators --top 1 --json` names (same id, same
# retained bytes in the status bar); /String leaves only matching rows; i
# shows the path from a GC root that `hprofan path ID --top 1` prints; L
# lists the accumulation point `hprofan leaks --json` names; at
# 80x24 every row keeps its columns; q exits 0.  Without a terminal
# (TERM=dumb) browse and -i refuse with exit status 2.
# ncurses keeps memory to the end on purpose, so LeakSanitizer is off for the
# browser run (ASan and UBSan still check it).
. "$(dirname "$0")/../lib.sh"
S=$TESTDATA/hprof/leakycache.hprof.gz

# ---- without a terminal -------------------------------------------------------
TERM=dumb "$HPROFAN" browse "$S" >"$TMPD/dumb.out" 2>"$TMPD/dumb.err"
rc=$?
if [ $rc = 2 ] && grep -q "browse needs a terminal" "$TMPD/dumb.err"; then ok "TERM=dumb: exit 2 with a message"
else fail "TERM=dumb: exit 2 with a message" "exit $rc: $(head -c 200 "$TMPD/dumb.err")"; fi
TERM=dumb "$HPROFAN" "$S" -i >/dev/null 2>"$TMPD/dumb-i.err"
rc=$?
if [ $rc = 2 ] && grep -q "browse needs a terminal" "$TMPD/dumb-i.err"; then ok "FILE -i is browse"
else fail "FILE -i is browse" "exit $rc: $(head -c 200 "$TMPD/dumb-i.err")"; fi

command -v tmux >/dev/null 2>&1 || { skip browse-tmux "tmux is absent"; exit 0; }
command -v python3 >/dev/null 2>&1 || { skip browse-tmux "python3 is absent"; exit 0; }

"$HPROFAN" dominators "$S" --top 1 --json --quiet >"$TMPD/top.json" 2>"$TMPD/top.err" ||
  { fail browse-expected "hprofan dominators failed: $(head -c 200 "$TMPD/top.err")"; exit 0; }
ID=$(jget "$TMPD/top.json" 'd["dominators"][0]["id"]')
RET=$(jget "$TMPD/top.json" 'd["dominators"][0]["retained"]')
RETC=$(python3 -c 'import sys; print(f"{int(sys.argv[1]):,}")' "$RET")
"$HPROFAN" path "$S" "$ID" --top 1 --quiet >"$TMPD/path.txt" 2>"$TMPD/path.err" ||
  { fail browse-expected "hprofan path failed: $(head -c 200 "$TMPD/path.err")"; exit 0; }

SOCK=$TMPD/tmux.sock
T() { tmux -S "$SOCK" -f /dev/null "$@"; }
cleanup() { T kill-server >/dev/null 2>&1; }
trap cleanup EXIT
screen() { T capture-pane -t hb -p; }
# wait_for NAME TEXT: polls the screen (5 s) until it shows TEXT (fixed string)
wait_for() {
  local i
  for ((i = 0; i < 100; i++)); do
    screen >"$TMPD/screen" 2>/dev/null
    grep -qF -- "$2" "$TMPD/screen" && return 0
    sleep 0.05
  done
  fail "$1" "the screen never showed '$2'; it shows: $(tr -s ' ' <"$TMPD/screen" | head -c 600)"
  return 1
}

q() { printf '%q' "$1"; }
cmd="env TERM=screen LC_ALL=C.UTF-8 ASAN_OPTIONS=detect_leaks=0:exitcode=99 $(q "$HPROFAN") browse $(q "$S"); echo \$? > $(q "$TMPD/rc")"
T new-session -d -s hb -x 100 -y 30 "$cmd" || { fail browse-tmux "tmux new-session failed"; exit 0; }

# the first row is the largest dominator
if wait_for browse-starts "rows |"; then
  first=$(sed -n 3p "$TMPD/screen")
  case $first in
    *"@$ID"*) ok "the first row is $ID" ;;
    *) fail "the first row is $ID" "row 1: $first" ;;
  esac
  if tail -n 1 "$TMPD/screen" | grep -qF "retained $RETC B"; then ok "the status bar gives its retained size ($RET)"
  else fail "the status bar gives its retained size ($RET)" "$(tail -n 1 "$TMPD/screen")"; fi
fi

# /String: only matching rows
T send-keys -t hb / S t r i n g Enter
if wait_for browse-filter "/String/"; then
  bad=$(sed -n '3,29p' "$TMPD/screen" | grep -v '^ *$' | grep -v String | grep -v '~$' || true)
  n=$(sed -n '3,29p' "$TMPD/screen" | grep -c String)
  if [ -z "$bad" ] && [ "$n" -gt 0 ]; then ok "/String leaves only matching rows ($n shown)"
  else fail "/String leaves only matching rows" "rows: $n; not matching: $(printf '%s' "$bad" | head -c 300)"; fi
fi
# an empty pattern shows every row again
T send-keys -t hb / BSpace BSpace BSpace BSpace BSpace BSpace Enter
for ((i = 0; i < 100; i++)); do
  screen >"$TMPD/screen"
  grep -qF "/String/" "$TMPD/screen" || { tail -n 1 "$TMPD/screen" | grep -qF "rows |" && break; }
  sleep 0.05
done
if ! grep -qF "/String/" "$TMPD/screen" && grep -qF "@$ID" "$TMPD/screen"; then ok "an empty pattern clears the filter"
else fail "an empty pattern clears the filter" "$(tail -n 1 "$TMPD/screen")"; fi

# i, then the path tab: the path hprofan path prints
T send-keys -t hb Home i
if wait_for browse-info "Path to GC root"; then
  T send-keys -t hb Tab
  if wait_for browse-path "shortest path from a GC root"; then
    missing=""
    while IFS= read -r line; do
      case $line in "  "*) ;; *) continue ;; esac
      step=$(printf '%s' "$line" | sed 's/^ *//')
      grep -qF -- "$step" "$TMPD/screen" || missing="$missing [$step]"
    done <"$TMPD/path.txt"
    if [ -z "$missing" ] && grep -q '^  ' "$TMPD/path.txt"; then ok "i shows the path from a GC root"
    else fail "i shows the path from a GC root" "missing:$missing"; fi
  fi
  T send-keys -t hb q
fi

# issue 13: L lists the leak suspects' accumulation points (hprofan leaks --json's)
"$HPROFAN" leaks "$S" --json --quiet >"$TMPD/leaks.json" 2>/dev/null
ACC=$(jget "$TMPD/leaks.json" 'd["suspects"][0]["accumulation_point"]["id"]' 2>/dev/null)
T send-keys -t hb L
if [ -n "$ACC" ] && wait_for browse-leaks "leak suspects (accumulation points) and zombies"; then
  if sed -n 3p "$TMPD/screen" | grep -qF "@$ACC"; then ok "L lists the accumulation point $ACC"
  else fail "L lists the accumulation point $ACC" "row 1: $(sed -n 3p "$TMPD/screen")"; fi
fi
T send-keys -t hb D
wait_for browse-leaks-back "hprofan: dominator tree of"

# 80x24: nothing cut mid-column
T resize-window -t hb -x 80 -y 24 2>/dev/null
sleep 0.2
wait_for browse-resize "rows |" >/dev/null
for ((i = 0; i < 40; i++)); do
  screen >"$TMPD/screen80"
  [ "$(wc -l <"$TMPD/screen80")" -le 24 ] && break
  sleep 0.05
done
out=$(python3 - "$TMPD/screen80" <<'EOF'
import re, sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
if len(lines) > 25:
    print("the screen has %d lines" % len(lines))
bad = []
for n, l in enumerate(lines[2:23], 3):
    if not l.strip():
        continue
    # flags 2, size 9, " [" bar 10 "] ", percent at 26..31, count 33..43, name from 45
    if len(l) > 80 or l[13] != "[" or l[24] != "]" or l[31] != "%" or l[44] != " ":
        bad.append("%d: %r" % (n, l))
    elif not re.search(r"(\]|@0x[0-9a-f]+|~)$", l.rstrip()):
        bad.append("%d: name cut without a mark: %r" % (n, l))
if bad:
    print("; ".join(bad[:3]))
EOF
)
if [ -z "$out" ]; then ok "at 80x24 every row keeps its columns"; else fail "at 80x24 every row keeps its columns" "$out"; fi

# q quits with status 0
T send-keys -t hb q
for ((i = 0; i < 100; i++)); do
  [ -s "$TMPD/rc" ] && break
  sleep 0.05
done
expect_eq "q exits with status 0" "$(cat "$TMPD/rc" 2>/dev/null)" 0
