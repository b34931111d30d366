# tests/tmux.sh — driving a terminal program through tmux, for the scripts
# that test browse (sourced after lib.sh; the caller defines T, its tmux
# command with its socket, and runs the program in the window "hb").
#   screen             the window's text now
#   until_ok CMD...    until CMD succeeds (0), or BROWSE_WAIT seconds (30) went (1);
#                      polls every 0.05 s (a sanitized browse on a machine busy
#                      with the rest of the suite can take seconds to draw)
#   shows TEXT...      the screen, into $SCREEN (default $TMPD/screen), shows
#                      every TEXT (fixed strings)
#   settled            two captures 0.05 s apart are the same (tmux can be caught
#                      half-way through a redraw: the title of a new view over
#                      the old rows)
#   wait_for NAME TEXT...  until the screen shows every TEXT and has settled;
#                      else a FAIL for NAME with what it shows
SCREEN=${SCREEN:-$TMPD/screen}
WAIT=${BROWSE_WAIT:-30}
screen() { T capture-pane -t hb -p; }
until_ok() {
  local end=$((SECONDS + WAIT))
  until "$@"; do
    [ $SECONDS -ge $end ] && return 1
    sleep 0.05
  done
}
shows() {
  screen >"$SCREEN" 2>/dev/null || return 1
  local t
  for t in "$@"; do grep -qF -- "$t" "$SCREEN" || return 1; done
}
settled() {
  local a
  a=$(screen 2>/dev/null)
  sleep 0.05
  screen >"$SCREEN" 2>/dev/null && [ "$a" = "$(cat "$SCREEN")" ]
}
wait_for() {
  local name=$1; shift
  until_ok shows "$@" && until_ok settled && shows "$@" && return 0
  fail "$name" "the screen never showed '$*'; it shows: $(tr -s ' ' <"$SCREEN" | head -c 600)"
  return 1
}
