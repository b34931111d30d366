#!/usr/bin/env bash
# hprofan browse, driven through tmux on the sample dump: the first row is
# the object `hprofan dominators --top 1 --json` names (same id, same
# retained bytes in the status bar); f String leaves only matching rows; i
# shows the path from a GC root that `hprofan path ID --top 1` prints; L
# lists the accumulation point `hprofan leaks --json` names; at
# 80x24 every row keeps its columns; q exits 0.  Without a terminal
# (TERM=dumb) browse and -i refuse with exit status 2.
# On a hand-built dump (an Object[] holding 300,000 Items; Items
# #150,000 and #250,000 each hold a Needle): the level of 300,000 rows
# opens and shows its count and, first, the two Items that retain a
# Needle; / finds the Needles (three levels down, not on screen) and n
# goes to the next, each once before the search starts again from the top;
# in the i pop-up Enter on the field next shows the object `hprofan object`
# gives as its value.
# T lists the threads with the names and retained sizes of
# `hprofan threads --json`, Enter a thread's frames and the locals each holds
# (class and retained, as --locals --json gives them), h goes back.
# G shows the packages with top --group=package --json's figures, then
# the class loaders, then (without --components) says components need the
# file; with --components FILE the components have top --group=component's.
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
at_exit cleanup
. "$(dirname "$0")/../tmux.sh"
exited() { [ -s "$TMPD/rc" ]; }

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

# f String: only matching rows
T send-keys -t hb f S t r i n g Enter
if wait_for browse-filter "/String/"; then
  bad=$(sed -n '3,29p' "$TMPD/screen" | grep -v '^ *$' | grep -v String | grep -v '~$' || true)
  n=$(sed -n '3,29p' "$TMPD/screen" | grep -c String)
  if [ -z "$bad" ] && [ "$n" -gt 0 ]; then ok "/String leaves only matching rows ($n shown)"
  else fail "/String leaves only matching rows" "rows: $n; not matching: $(printf '%s' "$bad" | head -c 300)"; fi
fi
# an empty pattern shows every row again
T send-keys -t hb f BSpace BSpace BSpace BSpace BSpace BSpace Enter
unfiltered() { shows "rows |" && ! grep -qF "/String/" "$TMPD/screen"; }
until_ok unfiltered
if ! grep -qF "/String/" "$TMPD/screen" && grep -qF "@$ID" "$TMPD/screen"; then ok "an empty pattern clears the filter"
else fail "an empty pattern clears the filter" "$(tail -n 1 "$TMPD/screen")"; fi

# i, then the path tab: the path hprofan path prints.  The referrers come
# from the reference graph, which browse reads from the index (written by
# the commands above) only now: their count is hprofan object's.
NREF=$("$HPROFAN" object "$S" "$ID" --json --quiet 2>/dev/null | python3 -c 'import json, sys; print(json.load(sys.stdin)["referrers_total"])')
T send-keys -t hb Home i
if wait_for browse-info "Path to GC root"; then
  for ((pg = 0; pg < 20; pg++)); do   # Page Down to them
    grep -qF "referrers" "$TMPD/screen" && break
    T send-keys -t hb NPage
    sleep 0.1
    screen >"$TMPD/screen" 2>/dev/null
  done
  if [ -n "$NREF" ] && grep -qF "referrers ($NREF):" "$TMPD/screen"; then ok "i gives the referrers hprofan object counts ($NREF)"
  else fail "i gives the referrers hprofan object counts (${NREF:-?})" "$(grep -F referrers "$TMPD/screen" | head -c 200)"; fi
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

# L lists the leak suspects' accumulation points (hprofan leaks --json's)
"$HPROFAN" leaks "$S" --json --quiet >"$TMPD/leaks.json" 2>/dev/null
ACC=$(jget "$TMPD/leaks.json" 'd["suspects"][0]["accumulation_point"]["id"]' 2>/dev/null)
T send-keys -t hb L
if [ -n "$ACC" ] && wait_for browse-leaks "leak suspects (accumulation points) and zombies"; then
  if sed -n 3p "$TMPD/screen" | grep -qF "@$ACC"; then ok "L lists the accumulation point $ACC"
  else fail "L lists the accumulation point $ACC" "row 1: $(sed -n 3p "$TMPD/screen")"; fi
fi
T send-keys -t hb D
wait_for browse-leaks-back "hprofan: dominator tree of"

# T lists the threads with what hprofan threads --json says they retain
"$HPROFAN" threads "$S" --json --locals --quiet >"$TMPD/threads.json" 2>/dev/null
NT=$(jget "$TMPD/threads.json" 'len(d["threads"])')
T send-keys -t hb T
if [ -n "$NT" ] && wait_for browse-threads "1/$NT rows"; then
  bad=""
  for ((i = 0; i < NT && i < 27; i++)); do
    [ $i -gt 0 ] && { T send-keys -t hb j; wait_for browse-threads-move "$((i + 1))/$NT rows" >/dev/null || break; }
    want=$(jget "$TMPD/threads.json" "'\"%s\" serial %d|retained {:,} B'.format(d['threads'][$i]['retained']) % (d['threads'][$i].get('name', ''), d['threads'][$i]['serial'])")
    row=$(sed -n "$((i + 3))p" "$TMPD/screen")
    case $row in *"${want%%|*}"*) ;; *) bad="$bad [row $((i + 1)): $row, want ${want%%|*}]" ;; esac
    tail -n 1 "$TMPD/screen" | grep -qF "${want#*|}" || bad="$bad [row $((i + 1)): $(tail -n 1 "$TMPD/screen"), want ${want#*|}]"
  done
  if [ -z "$bad" ]; then ok "T: the $NT threads, names and retained sizes as hprofan threads --json"
  else fail "T: the threads, names and retained sizes as hprofan threads --json" "$bad"; fi
  # i on the first: its Thread object
  T send-keys -t hb Home
  wait_for browse-threads-home "1/$NT rows" >/dev/null
  TOBJ=$(jget "$TMPD/threads.json" 'd["threads"][0]["object"]["class"] + " @" + d["threads"][0]["object"]["id"]')
  T send-keys -t hb i
  if wait_for browse-thread-info "Path to GC root"; then
    case $(sed -n 4p "$TMPD/screen") in
      *"$TOBJ "*) ok "i on a thread shows its Thread object ($TOBJ)" ;;
      *) fail "i on a thread shows its Thread object" "want $TOBJ: $(sed -n 4p "$TMPD/screen")" ;;
    esac
    T send-keys -t hb q
    wait_for browse-thread-info-close "1/$NT rows" >/dev/null
  fi
  # Enter on the first: its frames, each followed by its locals (class and retained)
  T send-keys -t hb Enter
  if wait_for browse-stack 'threads › thread "'; then
    python3 - "$TMPD/threads.json" >"$TMPD/stack.want" <<'EOF'
import json, sys
t = json.load(open(sys.argv[1]))["threads"][0]
for f in t.get("frames", []):
    print("frame\tat %s.%s(" % (f["class"], f["method"]))
    for l in f["locals"]:
        print("local\t%s @%s\t%d" % (l["class"], l["id"], l["retained"]))
EOF
    NR=$(tail -n 1 "$TMPD/screen" | sed -n 's/.*1\/\([0-9,]*\) rows.*/\1/p' | tr -d ,)
    bad=""
    n=0
    while IFS=$'\t' read -r kind text ret; do
      [ $n -ge 14 ] && break
      [ $n -gt 0 ] && { T send-keys -t hb j; wait_for browse-stack-move "$((n + 1))/$NR rows" >/dev/null || break; }
      row=$(sed -n "$((n + 3))p" "$TMPD/screen")
      st=$(tail -n 1 "$TMPD/screen")
      # the name column (from column 46; cut with ~ at the screen's edge)
      python3 - "$row" "$kind" "$text" <<'EOF' || bad="$bad [row $((n + 1)): $row; want $text]"
import sys
row, kind, want = sys.argv[1:4]
name = row[45:].rstrip()
if kind == "local":
    want = "  " + want
cut = name[:-1]
if name.endswith("~"):
    ok = want.startswith(cut) or (kind == "frame" and cut.startswith(want))
else:
    ok = name.startswith(want) if kind == "frame" else name == want
sys.exit(0 if ok and len(name) > 4 else 1)
EOF
      if [ "$kind" = local ]; then
        retc=$(python3 -c 'import sys; print(f"{int(sys.argv[1]):,}")' "$ret")
        case $st in *"retained $retc B"*) ;; *) bad="$bad [row $((n + 1)): $st; want retained $retc B]" ;; esac
      fi
      n=$((n + 1))
    done <"$TMPD/stack.want"
    if [ -z "$bad" ] && [ $n -gt 3 ]; then ok "Enter on a thread: its $n first frames and locals (class, retained) as hprofan threads --locals --json"
    else fail "Enter on a thread: frames and locals as hprofan threads --locals --json" "$n rows checked;$bad"; fi
    T send-keys -t hb h
    if wait_for browse-stack-back "1/$NT rows"; then ok "back from the stack to the threads"; fi
  fi
fi

# G groups the histogram's top level by package, then loader, then components (none here)
"$HPROFAN" top "$S" --group=package --json --top 0 --quiet >"$TMPD/pkg.json" 2>/dev/null
NP=$(jget "$TMPD/pkg.json" 'len(d["groups"])')
T send-keys -t hb G
if [ -n "$NP" ] && wait_for browse-packages "classes by package"; then
  T send-keys -t hb N   # by name, as in the file below
  python3 - "$TMPD/pkg.json" >"$TMPD/pkg.want" <<'EOF'
import json, sys
g = json.load(open(sys.argv[1]))["groups"]
for x in sorted(g, key=lambda x: (x["package"] if x["package"] else "(no package)")):
    print("%s\t{:,}\tretained {:,} B, shallow {:,} B".format(x["instances"], x["retained"], x["shallow"])
          % (x["package"] if x["package"] else "(no package)"))
EOF
  wait_for browse-packages-name "sort name" >/dev/null
  T send-keys -t hb Home
  wait_for browse-packages-home "1/$NP rows" >/dev/null
  bad=""
  n=0
  while IFS=$'\t' read -r name cnt st; do
    [ $n -gt 0 ] && { T send-keys -t hb j; wait_for browse-packages-move "$((n + 1))/$NP rows" >/dev/null || break; }
    row=$(sed -n "$((n + 3))p" "$TMPD/screen")
    case $row in *" $cnt $name") ;; *) bad="$bad [row $((n + 1)): $row; want $cnt $name]" ;; esac
    tail -n 1 "$TMPD/screen" | grep -qF "$st" || bad="$bad [row $((n + 1)): $(tail -n 1 "$TMPD/screen"); want $st]"
    n=$((n + 1))
  done <"$TMPD/pkg.want"
  if [ -z "$bad" ] && [ "$n" = "$NP" ]; then ok "G: the $NP packages with top --group=package --json's instances, retained and shallow"
  else fail "G: packages as top --group=package --json" "$n of $NP rows;$bad"; fi
  T send-keys -t hb G
  if wait_for browse-loaders "classes by class loader"; then ok "G again: by class loader"; fi
  T send-keys -t hb G
  if wait_for browse-no-components "components need --components FILE"; then ok "G without --components: skips components and says so"; fi
  T send-keys -t hb s
fi
T send-keys -t hb D
wait_for browse-groups-back "hprofan: dominator tree of" >/dev/null

# 80x24: nothing cut mid-column
T resize-window -t hb -x 80 -y 24 2>/dev/null
sleep 0.2
wait_for browse-resize "rows |" >/dev/null
resized() { screen >"$TMPD/screen80" && [ "$(wc -l <"$TMPD/screen80")" -le 24 ]; }
until_ok resized
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
until_ok exited
expect_eq "q exits with status 0" "$(cat "$TMPD/rc" 2>/dev/null)" 0

# ---- a level of 300,000 rows, search, following a field ------------------
BIG=$TMPD/big.hprof
python3 - "$(dirname "$0")/../helper" "$BIG" >"$TMPD/big.ids" <<'EOF' || { fail browse-big "cannot write the dump"; exit 0; }
import sys
sys.path.insert(0, sys.argv[1])
from mkhprof import Dump, OBJECT, INT
d = Dump()
obj = d.load_class("java.lang.Object")
item = d.load_class("Item")
needle = d.load_class("Needle")
arrc = d.load_class("[Ljava.lang.Object;")
d.class_dump(obj)
d.class_dump(item, obj, fields=[("next", OBJECT), ("n", INT)])
d.class_dump(needle, obj, fields=[("n", INT)])
d.class_dump(arrc, obj)
n1 = d.instance(needle, [1])
n2 = d.instance(needle, [2])
items = [d.instance(item, [n1 if i == 150000 else n2 if i == 250000 else 0, i]) for i in range(300000)]
d.root(d.obj_array(arrc, items))
d.write(sys.argv[2])
print("0x%x 0x%x 0x%x 0x%x" % (n1, n2, items[150000], items[250000]))
EOF
read -r N1 N2 I1 I2 <"$TMPD/big.ids"
rm -f "$TMPD/rc"
cmd="env TERM=screen LC_ALL=C.UTF-8 ASAN_OPTIONS=detect_leaks=0:exitcode=99 $(q "$HPROFAN") browse $(q "$BIG"); echo \$? > $(q "$TMPD/rc")"
T new-session -d -s hb -x 100 -y 30 "$cmd" || { fail browse-big "tmux new-session failed"; exit 0; }
# wait_rows: until the status bar shows the rows again (a message went)
status_rows() { screen >"$TMPD/screen" && tail -n 1 "$TMPD/screen" | grep -qF "rows |"; }
wait_rows() { until_ok status_rows; }
if wait_for browse-big-starts "rows |"; then
  # the Object[], then its group of 300,000 Items, then the Items
  T send-keys -t hb Enter
  wait_for browse-big-group "300,000 × Item]" >/dev/null
  T send-keys -t hb Enter
  if wait_for browse-big-level "1/300,000 rows"; then
    r1=$(sed -n 3p "$TMPD/screen"); r2=$(sed -n 4p "$TMPD/screen"); r3=$(sed -n 5p "$TMPD/screen")
    case "$r1|$r2|$r3" in
      *"Item @$I1|"*"Item @$I2|"*"Item @0x"*) ok "a level of 300,000 rows opens: the count, then the Items holding a Needle ($I1, $I2)" ;;
      *) fail "a level of 300,000 rows opens" "rows: [$r1] [$r2] [$r3]" ;;
    esac
    T send-keys -t hb End
    if wait_for browse-big-end "300,000/300,000 rows"; then ok "End reaches row 300,000"; fi
  fi
  # / from the top: the Needles are three levels down
  T send-keys -t hb D
  wait_for browse-big-top "1/1 rows" >/dev/null
  if grep -qF "Needle @" "$TMPD/screen"; then fail "search: no Needle on screen before" "$(sed -n 3,6p "$TMPD/screen")"; fi
  T send-keys -t hb / '^Needle$' Enter
  seq=""
  for k in 1 2 3 4 5; do
    wait_for browse-search "/^Needle\$/:" >/dev/null || break
    st=$(tail -n 1 "$TMPD/screen")
    case $st in *"from the top again"*) seq="$seq wrap"; break ;; esac
    id=$(printf '%s' "$st" | sed -n 's/.*\/^Needle\$\/: [^@]*@\(0x[0-9a-f]*\).*/\1/p')
    # the match is on screen, under its dominator (the path line)
    path=$(sed -n 2p "$TMPD/screen")
    case $st in
      *"Needle @$N1 "*) case $path in *"Item @$I1") ;; *) seq="$seq badpath[$path]" ;; esac ;;
      *"Needle @$N2 "*) case $path in *"Item @$I2") ;; *) seq="$seq badpath[$path]" ;; esac ;;
    esac
    sed -n '3,29p' "$TMPD/screen" | grep -qF -- "@$id" || seq="$seq notshown[$id]"
    seq="$seq $id"
    T send-keys -t hb Escape   # does nothing: the message goes
    wait_rows
    T send-keys -t hb n
  done
  # (the class object Needle matches too: it goes by the class it is)
  got=$(printf '%s\n' $seq | grep -c -e "^$N1\$" -e "^$N2\$")
  case "$seq" in
    *bad*|*notshown*) fail "/ finds the Needles, n the next" "$seq" ;;
    *wrap) if [ "$got" = 2 ]; then ok "/ finds a Needle three levels down, n the next, each once:$seq"
           else fail "/ finds the Needles, n the next" "$seq"; fi ;;
    *) fail "/ finds the Needles, n the next" "no wrap: $seq" ;;
  esac
  # i on the Item above the Needle, Enter on its field next: the Needle hprofan object names
  "$HPROFAN" object "$BIG" "$I1" --json --quiet >"$TMPD/obj.json" 2>/dev/null
  NEXT=$(jget "$TMPD/obj.json" '[f for f in d["object"]["fields"] if f["name"] == "next"][0]["object"]["id"]')
  for k in 1 2 3 4; do
    tail -n 1 "$TMPD/screen" | grep -qE "Needle @$N1( |,)" && break
    T send-keys -t hb n
    sleep 0.2
    wait_for browse-search-again "/^Needle\$/:" >/dev/null
  done
  T send-keys -t hb h
  wait_rows
  T send-keys -t hb i
  if wait_for browse-follow-info "Path to GC root" && grep -qF "Item @$I1" "$TMPD/screen"; then
    T send-keys -t hb Enter
    if wait_for browse-follow "1 object in its dominator subtree"; then
      top=$(sed -n 4p "$TMPD/screen")
      case $top in
        *"Needle @$NEXT "*) ok "Enter in the i pop-up shows the field's object ($NEXT, as hprofan object says)" ;;
        *) fail "Enter in the i pop-up shows the field's object" "expected Needle @$NEXT; line: $top" ;;
      esac
    fi
    T send-keys -t hb BSpace
    if wait_for browse-follow-back "Item @$I1 "; then ok "Backspace in the pop-up goes back to the Item"; fi
    T send-keys -t hb q
  else
    fail "Enter in the i pop-up" "the pop-up does not show Item @$I1: $(sed -n 3,5p "$TMPD/screen")"
  fi
  T send-keys -t hb q
  until_ok exited
  expect_eq "q exits with status 0 (the 300,000-row dump)" "$(cat "$TMPD/rc" 2>/dev/null)" 0
fi

# ---- G with --components FILE ------------------------------------------------
printf 'app ^LeakyCache\nutil ^java\\.util\\.\n' >"$TMPD/comp.txt"
"$HPROFAN" top "$S" --group=component --components "$TMPD/comp.txt" --json --quiet >"$TMPD/comp.json" 2>/dev/null
python3 - "$TMPD/comp.json" >"$TMPD/comp.want" <<'EOF'
import json, sys
for x in json.load(open(sys.argv[1]))["groups"]:
    print("%s\t{:,}\tretained {:,} B, shallow {:,} B".format(x["instances"], x["retained"], x["shallow"]) % x["name"])
EOF
rm -f "$TMPD/rc"
cmd="env TERM=screen LC_ALL=C.UTF-8 ASAN_OPTIONS=detect_leaks=0:exitcode=99 $(q "$HPROFAN") browse $(q "$S") --components $(q "$TMPD/comp.txt"); echo \$? > $(q "$TMPD/rc")"
T new-session -d -s hb -x 100 -y 30 "$cmd" || { fail browse-components "tmux new-session failed"; exit 0; }
if wait_for browse-comp-starts "rows |"; then
  T send-keys -t hb G G G
  # the title comes first, the rows and the status line once the groups
  # are made: wait for the status line's row count
  if wait_for browse-components "classes by component" "1/$(wc -l <"$TMPD/comp.want") rows"; then
    bad=""
    n=0
    while IFS=$'\t' read -r name cnt st; do
      [ $n -gt 0 ] && { T send-keys -t hb j; wait_for browse-comp-move "$((n + 1))/3 rows" >/dev/null || break; }
      row=$(sed -n "$((n + 3))p" "$TMPD/screen")
      case $row in *" $cnt $name") ;; *) bad="$bad [row $((n + 1)): $row; want $cnt $name]" ;; esac
      tail -n 1 "$TMPD/screen" | grep -qF "$st" || bad="$bad [row $((n + 1)): $(tail -n 1 "$TMPD/screen"); want $st]"
      n=$((n + 1))
    done <"$TMPD/comp.want"
    if [ -z "$bad" ] && [ $n = 3 ]; then ok "G with --components: app, util and other as top --group=component --json"
    else fail "G with --components: as top --group=component --json" "$n rows;$bad"; fi
  fi
  T send-keys -t hb q
  until_ok exited
  expect_eq "q exits with status 0 (--components)" "$(cat "$TMPD/rc" 2>/dev/null)" 0
fi

# ---- the terminal goes away while browse waits for a key ----------------------
# With SIGHUP ignored (nohup, some session managers), the closed terminal gives
# getch() no more keys: browse must stop with one line, not spin forever.
rm -f "$TMPD/rc"
cmd="trap '' HUP; env TERM=screen LC_ALL=C.UTF-8 ASAN_OPTIONS=detect_leaks=0:exitcode=99 $(q "$HPROFAN") browse $(q "$S") 2>$(q "$TMPD/gone.err"); echo \$? > $(q "$TMPD/rc")"
T new-session -d -s hb -x 100 -y 30 "$cmd" || { fail browse-hangup "tmux new-session failed"; exit 0; }
if wait_for browse-hangup-starts "rows |"; then
  T kill-session -t hb
  until_ok exited
  if [ "$(cat "$TMPD/rc" 2>/dev/null)" = 1 ] && grep -q "the terminal went away" "$TMPD/gone.err"; then
    ok "a closed terminal (SIGHUP ignored): browse stops, exit 1 with a message"
  else
    fail "a closed terminal (SIGHUP ignored): browse stops, exit 1 with a message" \
      "rc '$(cat "$TMPD/rc" 2>/dev/null)' after $WAIT s; stderr: $(head -c 200 "$TMPD/gone.err" 2>/dev/null)"
  fi
fi
