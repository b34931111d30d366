#!/usr/bin/env bash
# Key-press latency of `hprofan browse` on a dump, measured from outside.
#
#   bench/browse_latency.sh path/to/hprofan DUMP
#
# Starts the browser in a detached tmux session (its own server, 100x30),
# waits for its first screen, then presses a fixed sequence of keys: moves
# (j/k, Down/Up), pages, ends (End/Home), opening rows and going back, the
# three sort keys, the retained/shallow toggle, the histogram, roots and
# dominator views, the object pop-up (and its path tab), help, and a filter
# set and cleared.  Last it opens the largest level it can reach (the class
# with the most instances) and moves in it: moving must stay cheap however
# many rows a level has.
#
# For each key: the screen before, the clock (bash's $EPOCHREALTIME, in
# microseconds), send-keys, then capture-pane in a tight loop until the
# screen differs (or shows the text the key must bring, for the keys whose
# work starts after a first redraw); that is the key's latency.  It includes
# the send-keys and up to one capture-pane of polling (both measured and
# printed), so it is an upper bound.  The next key waits until the screen
# is still.
#
# Prints a table per kind of key (count, median, max), the keys over the
# target, and a last line
#   browse key latency: median X ms, p95 Y ms, max Z ms over N keys (target < 50 ms)
# Two keys do work proportional to far more than a screen, by design, and
# are reported on their own lines, not in that one: opening the largest
# level (one pass over its instances; only the rows shown sorted) and the object pop-up (i: it
# scans every reference for the object's referrers, and reads the dump's
# references again to search for the shortest path from a GC root).
# Exits 1 when a key never changed the screen, the browser did not start, or
# q did not end it with status 0; 2 on a usage error; 0 (with a message)
# when tmux is absent.  Environment:
#   BROWSE_TARGET_MS     target per key                      (default 50)
#   BROWSE_KEY_TIMEOUT   seconds a key may take              (default 5)
#   BROWSE_BIG_TIMEOUT   seconds opening the largest level may take (default 120)
#   BROWSE_OPEN_TIMEOUT  seconds the dump may take to load   (default 120)
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: bench/browse_latency.sh path/to/hprofan DUMP" >&2
  exit 2
fi
BIN=$1
DUMP=$2
case "$BIN" in */*) ;; *) BIN=$(command -v "$BIN" || echo "$BIN") ;; esac
if [ ! -x "$BIN" ]; then
  echo "browse: $BIN: not an executable" >&2
  exit 2
fi
if [ ! -r "$DUMP" ]; then
  echo "browse: $DUMP: cannot read it" >&2
  exit 2
fi
if ! command -v tmux >/dev/null 2>&1; then
  echo "browse: tmux is absent; key latency skipped (scripts/install-deps installs it)"
  exit 0
fi
if [ -z "${EPOCHREALTIME:-}" ]; then
  echo "browse: bash ${BASH_VERSION} has no \$EPOCHREALTIME (bash 5 has); key latency skipped"
  exit 0
fi

TARGET_MS=${BROWSE_TARGET_MS:-50}
KEY_TIMEOUT=${BROWSE_KEY_TIMEOUT:-5}
BIG_TIMEOUT=${BROWSE_BIG_TIMEOUT:-120}
OPEN_TIMEOUT=${BROWSE_OPEN_TIMEOUT:-120}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/hprofan-browse.XXXXXX")
SOCK=$WORK/tmux.sock   # a server of its own, its socket removed with WORK
S=browse
T() { tmux -S "$SOCK" -f /dev/null "$@"; }
# shellcheck disable=SC2317  # invoked by the EXIT trap
cleanup() {
  T kill-server >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

# NOW: microseconds since the epoch, without a fork ("," where the locale says so)
NOW=0
tick() { local t=${EPOCHREALTIME//[.,]/}; NOW=$((10#$t)); }
screen() { T capture-pane -p -t "$S" 2>/dev/null || true; }
ms() { awk -v u="$1" 'BEGIN { printf "%.1f", u / 1000 }'; }

# The terminal the pane is: tmux's own when its terminfo entry exists (the
# keys tmux sends, End as \e[4~ and so on, are what it describes).
TERM_IN=screen
if infocmp tmux-256color >/dev/null 2>&1; then TERM_IN=tmux-256color; fi

RC_FILE=$WORK/rc
{
  echo '#!/usr/bin/env bash'
  # the index settings of the caller (bench/run.sh), whatever tmux passes on
  for v in HPROFAN_NO_INDEX HPROFAN_INDEX_DIR; do
    if [ -n "${!v:-}" ]; then printf 'export %s=%q\n' "$v" "${!v}"; fi
  done
  printf 'TERM=%q LC_ALL=C.UTF-8 %q browse %q 2>%q\n' "$TERM_IN" "$BIN" "$DUMP" "$WORK/stderr"
  printf 'echo $? >%q\n' "$RC_FILE"
} >"$WORK/run"
chmod +x "$WORK/run"

echo "browse: $BIN browse $DUMP in tmux $(tmux -V | cut -d' ' -f2), 100x30, TERM=$TERM_IN"
tick
t_start=$NOW
T new-session -d -s "$S" -x 100 -y 30 "$WORK/run"

# ---------------------------------------------------------------- first screen
ROWS_RE='[0-9,]+/[0-9,]+ rows'
LAST=""
while :; do
  LAST=$(screen)
  if [ -n "$LAST" ] && grep -Eq "$ROWS_RE" <<<"$LAST"; then break; fi
  if [ -s "$RC_FILE" ]; then
    echo "browse: hprofan exited with status $(cat "$RC_FILE") before its first screen:" >&2
    head -c 2000 "$WORK/stderr" >&2
    exit 1
  fi
  tick
  if [ $((NOW - t_start)) -gt $((OPEN_TIMEOUT * 1000000)) ]; then
    echo "browse: no first screen after ${OPEN_TIMEOUT}s; the screen shows:" >&2
    printf '%s\n' "$LAST" >&2
    exit 1
  fi
  sleep 0.2
done
tick
echo "browse: first screen after $(ms $((NOW - t_start))) ms (loading the dump, references, dominators, retained sizes)"
# BROWSE_FIRST_ONLY=1: the opening only (bench/run.sh, from the index)
if [ -n "${BROWSE_FIRST_ONLY:-}" ]; then exit 0; fi

# settle: waits until two captures in a row are the same; LAST gets it
settle() {
  local a b
  a=$(screen)
  for _ in $(seq 1 200); do
    sleep 0.01
    b=$(screen)
    [ "$a" = "$b" ] && break
    a=$b
  done
  LAST=$a
}
settle

# ---------------------------------------------------------------- overhead
n_over=20
tick
t0=$NOW
for _ in $(seq 1 "$n_over"); do _=$(screen); done
tick
CAPTURE_US=$(( (NOW - t0) / n_over ))
# a key the browser ignores (F12 is bound to nothing)
tick
t0=$NOW
for _ in $(seq 1 "$n_over"); do T send-keys -t "$S" F12; done
tick
SEND_US=$(( (NOW - t0) / n_over ))
settle

# ---------------------------------------------------------------- keys
KINDS=()    # kind of each timed key
KEYS=()     # the key as tmux names it
LATS=()     # its latency in microseconds
EXCL=()     # 1: reported on its own line, not in the overall figures
FAILS=0

# press KIND KEY [EXPECT [TIMEOUT_S [EXCLUDED]]]: sends KEY, waits for a
# changed screen (containing EXPECT when given) and records the time.
press() {
  local kind=$1 key=$2 expect=${3:-} limit=${4:-$KEY_TIMEOUT} excl=${5:-0}
  local before=$LAST cur t0 t1 deadline
  tick
  t0=$NOW
  deadline=$((t0 + limit * 1000000))
  T send-keys -t "$S" "$key"
  while :; do
    cur=$(screen)
    tick
    if [ "$cur" != "$before" ] && { [ -z "$expect" ] || [[ $cur == *"$expect"* ]]; }; then
      t1=$NOW
      break
    fi
    if [ "$NOW" -gt "$deadline" ]; then
      FAILS=$((FAILS + 1))
      if [ -n "$expect" ]; then
        echo "browse: FAIL: $kind key $key: the screen never showed '$expect' in ${limit}s" >&2
      else
        echo "browse: FAIL: $kind key $key: the screen never changed in ${limit}s" >&2
      fi
      printf '%s\n' "$cur" | sed 's/^/  | /' >&2
      if [ -s "$RC_FILE" ]; then
        echo "browse: hprofan exited with status $(cat "$RC_FILE"); stderr:" >&2
        head -c 2000 "$WORK/stderr" >&2
        exit 1
      fi
      settle
      return 0
    fi
  done
  KINDS+=("$kind")
  KEYS+=("$key")
  LATS+=($((t1 - t0)))
  EXCL+=("$excl")
  settle
}

# type TEXT: literal keys, not timed (the filter's pattern)
type_text() {
  T send-keys -t "$S" -l "$1"
  sleep 0.05
  settle
}

# POS and NROWS: the cursor's row and the rows of the list, from the status
# bar (0 and 0 while a message hides them)
POS=0
NROWS=0
where() {
  local m
  m=$(grep -Eo "$ROWS_RE" <<<"$LAST" | tail -n 1 | tr -d , || true)
  if [ -z "$m" ]; then POS=0 NROWS=0; return 0; fi
  POS=${m%%/*}
  m=${m#*/}
  NROWS=${m%% *}
}

# nav KIND KEY [only]: a cursor key.  At the end of the list it would not
# move to, the opposite key instead (none with "only", or when the list has
# a single row), so that every key changes the screen, on any dump.
nav() {
  local kind=$1 key=$2 fwd=0
  where
  case $key in j | Down | PgDn | End) fwd=1 ;; esac
  if [ "$NROWS" -gt 0 ] && { { [ $fwd = 1 ] && [ "$POS" -ge "$NROWS" ]; } ||
                              { [ $fwd = 0 ] && [ "$POS" -le 1 ]; }; }; then
    if [ "${3:-}" = only ] || [ "$NROWS" -le 1 ]; then return 0; fi
    case $key in
      j) key=k ;; k) key=j ;; Down) key=Up ;; Up) key=Down ;;
      PgDn) key=PgUp ;; PgUp) key=PgDn ;; End) key=Home ;; Home) key=End ;;
    esac
  fi
  press "$kind" "$key"
}

# open_row KIND KEY [EXPECT [TIMEOUT [EXCLUDED]]]: opens the row under the
# cursor.  True when a level opened (the path line changed), false on a
# row with nothing under it (the status bar says so).  DEPTH counts levels.
DEPTH=0
open_row() {
  local path
  path=$(sed -n 2p <<<"$LAST")
  press "$@"
  if [ "$(sed -n 2p <<<"$LAST")" != "$path" ]; then
    DEPTH=$((DEPTH + 1))
    return 0
  fi
  return 1
}

# back KIND KEY: up a level, when there is one above
back() {
  if [ "$DEPTH" -gt 0 ]; then
    press "$1" "$2"
    DEPTH=$((DEPTH - 1))
  fi
}

# view KEY EXPECT: another view, at its top level
view() {
  press view "$1" "$2"
  DEPTH=0
}

# The dominator view, at its top level, cursor on the first (largest) row.
nav move j
nav move Down
nav move k
nav move Up
nav page PgDn
nav page PgDn
nav page PgUp
nav page PgUp
nav ends End
nav ends Home
press sort N "sort name"
press sort N "(reversed)"
press sort C "sort count"
press sort s "sort size"
press toggle a "shallow |"
press toggle a "retained |"
# down the largest rows (and into the second on the way), moves, sorts and
# the toggle there, one more level, and back up to the top
open_row open Enter || true
nav move j
if open_row open l; then back back h; fi
nav move k
for key in Enter Right Enter l; do
  open_row open "$key" || break
done
nav move j
nav move Down
nav page PgDn
nav ends End
nav ends Home
press sort N "sort name"
press sort s "sort size"
press toggle a "shallow |"
press toggle a "retained |"
open_row open Enter || true
backs=(BSpace Left h)
while [ "$DEPTH" -gt 0 ]; do
  back back "${backs[$((DEPTH % 3))]}"
done
# the object pop-up on the largest object, its path tab, help
# (the paths from GC roots are searched before the screen opens, so the
# first i only reads the object and scans the references for referrers)
press info-open i "Path to GC root"
press info Tab "shortest path from a GC root"
press info q
press help '?' "hprofan browse: keys"
press help q
# the class histogram: a filter set, a class opened, the filter cleared
view H "class histogram"
nav move j
nav ends End
nav ends Home
press filter f
type_text '^java\.lang\.Thread$'
press filter Enter '/^java\.lang\.Thread$/'
if open_row open Enter "instances of java.lang.Thread"; then back back h; fi
press filter f
T send-keys -t "$S" -N 40 BSpace
sleep 0.05
settle
press filter Enter
# the GC roots view
view R "GC roots"
nav move j
if open_row open Enter; then back back h; fi
view D "dominator tree"
nav move j
nav ends End
nav ends Home

# The largest level: the instances of the class that has the most.  Opening
# it makes a lazy level: one pass over the instances, then only the rows
# shown are sorted (not in the overall figures);
# moving in it must not depend on its size.
view H "class histogram"
press sort C "sort count"
nav ends Home only
open_row open-largest Enter "instances of" "$BIG_TIMEOUT" 1 || true
where
BIG_ROWS=$NROWS
nav move-largest j
nav move-largest Down
nav move-largest k
nav page-largest PgDn
nav page-largest PgDn
nav page-largest PgUp
nav ends-largest End
nav move-largest k
nav ends-largest Home
back back-largest h
press sort s "sort size"
view D "dominator tree"

# ---------------------------------------------------------------- quit
T send-keys -t "$S" q
tick
t0=$NOW
while [ ! -s "$RC_FILE" ]; do
  tick
  if [ $((NOW - t0)) -gt $((KEY_TIMEOUT * 1000000)) ]; then break; fi
  sleep 0.05
done
QUIT_RC=$(cat "$RC_FILE" 2>/dev/null || echo none)
if [ "$QUIT_RC" != 0 ]; then
  echo "browse: FAIL: q: hprofan's exit status is $QUIT_RC, not 0" >&2
  head -c 2000 "$WORK/stderr" >&2
  FAILS=$((FAILS + 1))
fi

# ---------------------------------------------------------------- report
for i in "${!LATS[@]}"; do
  printf '%s %s %s %s\n' "${KINDS[$i]}" "${LATS[$i]}" "${EXCL[$i]}" "${KEYS[$i]}"
done >"$WORK/lat"

echo
echo "browse: one capture-pane takes $(ms "$CAPTURE_US") ms, one send-keys $(ms "$SEND_US") ms (means of $n_over);"
echo "browse: each figure includes a send-keys and up to one capture-pane, so it is an upper bound"
awk -v target="$TARGET_MS" -v bigrows="${BIG_ROWS:-?}" '
  function sortn(a, n,   i, j, t) {
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
  }
  function median(a, n) { return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
  {
    ms = $2 / 1000
    step++
    if (!($1 in cnt)) order[++nk] = $1
    cnt[$1]++; v[$1, cnt[$1]] = ms
    if ($3 == 1) { excl[$1] = 1; next }
    all[++n] = ms
    if (ms >= target) slow = slow sprintf("  step %d, %s %s: %.1f ms\n", step, $1, $4, ms)
  }
  END {
    printf "%-13s %5s %10s %9s\n", "kind", "keys", "median_ms", "max_ms"
    for (k = 1; k <= nk; k++) {
      name = order[k]; m = cnt[name]
      delete a
      for (i = 1; i <= m; i++) a[i] = v[name, i]
      sortn(a, m)
      printf "%-13s %5d %10.1f %9.1f%s\n", name, m, median(a, m), a[m],
        excl[name] ? "   (not in the overall figures)" : ""
    }
    if ("open-largest" in cnt)
      printf "not in the overall figures: opening the largest level (%s rows, lazy: one pass, the rows shown sorted): %.1f ms\n",
        bigrows, v["open-largest", 1]
    if (slow != "") printf "keys at or over %d ms:\n%s", target, slow
    if (!n) { print "browse key latency: no key measured"; exit }
    sortn(all, n)
    p = int(0.95 * n); if (p < 0.95 * n) p++
    printf "browse key latency: median %.1f ms, p95 %.1f ms, max %.1f ms over %d keys (target < %d ms)\n",
      median(all, n), all[p], all[n], n, target
  }' "$WORK/lat"

if [ "$FAILS" -gt 0 ]; then
  echo "browse: $FAILS failure(s)" >&2
  exit 1
fi
exit 0
