#!/usr/bin/env bash
# The shell completions (completions/hprofan.bash, completions/_hprofan):
#  (a) their lists are hprofan's: the commands `hprofan --help` names, for
#      each command the options `hprofan help COMMAND` lists (its option
#      table), the options that take a value (and which are written
#      --opt=VALUE), so adding an option or command without completing it
#      fails here; what is only planned is not offered yet;
#  (b) the values they offer are values hprofan accepts, and the values --help
#      names are offered;
#  (c) bash: _hprofan, called the way bash calls it (COMP_WORDS, COMP_CWORD,
#      COMP_LINE, COMP_POINT), completes options, values, commands and dump
#      files;
#  (d) zsh: the file parses (zsh -n) and autoloads; skipped without zsh.
. "$(dirname "$0")/../lib.sh"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
BASHC=$SRC/completions/hprofan.bash
ZSHC=$SRC/completions/_hprofan

for f in "$BASHC" "$ZSHC"; do
  [ -f "$f" ] || { fail completion-files "${f#"$SRC"/} is missing"; exit 0; }
done
if ! "$HPROFAN" --help >"$TMPD/help" 2>"$TMPD/help.err"; then
  fail completion-help "hprofan --help exited non-zero: $(head -c 300 "$TMPD/help.err")"
  exit 0
fi

# words LIST: one word a line, sorted, no repeats
words() { tr -s ' \t' '\n\n' | sed '/^$/d' | LC_ALL=C sort -u; }
# bashvar NAME: a variable the bash completion sets, one word a line
bashvar() { bash -c '. "$1" && eval "printf %s \"\${$2}\""' _ "$BASHC" "$1" | words; }
# bashvalues OPTION: the values the bash completion knows for OPTION
bashvalues() { bash -c '. "$1" && _hprofan_values "$2"' _ "$BASHC" "$1" | words; }
# same NAME GOT WANT: two word lists are equal, else say what differs
same() {
  if [ "$2" = "$3" ]; then ok "$1"; return; fi
  local extra missing
  extra=$(LC_ALL=C comm -23 <(printf '%s\n' "$2") <(printf '%s\n' "$3") | paste -sd' ')
  missing=$(LC_ALL=C comm -13 <(printf '%s\n' "$2") <(printf '%s\n' "$3") | paste -sd' ')
  fail "$1" "extra: '${extra}', missing: '${missing}'"
}

# ---- what hprofan says -----------------------------------------------------------

# commands: the word after "hprofan" on each usage line (from "usage:" to the
# first blank line) that is a lower-case name, or one in brackets ("[top]")
awk 'NR == 1 || (started && $0 != "") { started = 1; print; next } { exit }' "$TMPD/help" |
  grep -oE 'hprofan \[?[a-z][a-z0-9-]*' | sed 's/^hprofan \[*//' | LC_ALL=C sort -u >"$TMPD/help-cmds"
# each command's option lines ("SPEC  DESCRIPTION"; SPEC is "-q, --quiet",
# "--filter RE", "--sort=KEY" or "--top [N]": an optional value, the next word
# only if a number; a line indented deeper, not starting with '-', continues
# the one before), into help-lines.CMD, and all of them into help-lines
# (`hprofan help CMD` is read once per command into help.CMD: the checks
# below ask for it about 1,500 times)
: >"$TMPD/help-lines"
for c in $(grep -vx help "$TMPD/help-cmds"); do
  "$HPROFAN" help "$c" >"$TMPD/help.$c" 2>/dev/null || fail completion-help "hprofan help $c failed"
done
# helpof COMMAND: what `hprofan help COMMAND` prints (the binary for a word
# that is not a command)
helpof() { if [ -f "$TMPD/help.$1" ]; then cat "$TMPD/help.$1"; else "$HPROFAN" help "$1"; fi; }
for c in $(grep -vx help "$TMPD/help-cmds"); do
  helpof "$c" | awk '/^options:/ { on = 1; next } !on { next }
     /^ +-/ { if (l != "") print l; l = $0; sub(/^ +/, "", l); next }
     l != "" && /^      +[^ -]/ { s = $0; sub(/^ +/, "", s); l = l " " s; next }
     { if (l != "") print l; l = "" }
     END { if (l != "") print l }' >"$TMPD/help-lines.$c"
  cat "$TMPD/help-lines.$c" >>"$TMPD/help-lines"
done
LC_ALL=C sort -u -o "$TMPD/help-lines" "$TMPD/help-lines"
# names SPEC-LINES: every option name of the specs, one a line
names() { sed -E 's/  +.*//' "$1" | tr ',' '\n' | grep -oE -- '^ *-{1,2}[A-Za-z][A-Za-z0-9-]*' | sed 's/^ *//' | LC_ALL=C sort -u; }
names "$TMPD/help-lines" >"$TMPD/help-opts"
: >"$TMPD/help-valued"; : >"$TMPD/help-equals"
while IFS= read -r line; do
  spec=${line%%  *}
  last=${spec##*, }
  opt=$(printf '%s\n' "$last" | grep -oE -- '^-{1,2}[A-Za-z][A-Za-z0-9-]*')
  arg=${last#"$opt"}
  case $arg in
    "" | " ["*) ;;
    "="*) echo "$opt" >>"$TMPD/help-valued"; echo "$opt" >>"$TMPD/help-equals" ;;
    " "*) echo "$opt" >>"$TMPD/help-valued" ;;
  esac
done <"$TMPD/help-lines"
LC_ALL=C sort -u -o "$TMPD/help-valued" "$TMPD/help-valued"
LC_ALL=C sort -u -o "$TMPD/help-equals" "$TMPD/help-equals"
# helpdesc OPTION: the description help gives OPTION (each command's, once)
helpdesc() { awk -v o="$1" '{ s = $0; sub(/  +.*/, "", s); n = split(s, a, /, /)
                              sub(/[ =].*/, "", a[n]); if (a[n] == o) { sub(/^[^ ]+( [^ ]+)?  +/, ""); print } }' \
               "$TMPD/help-lines" | LC_ALL=C sort -u; }
# takers OPTION: the commands whose table has OPTION
takers() { local c; for c in $(grep -vx help "$TMPD/help-cmds"); do
             names "$TMPD/help-lines.$c" | grep -qxF -- "$1" && printf '%s ' "$c"; done; }
if [ ! -s "$TMPD/help-opts" ] || [ ! -s "$TMPD/help-cmds" ]; then
  fail completion-help-lists "found no options or no commands in hprofan help"
  exit 0
fi
# is_command WORD: hprofan knows the command (help is one, not in the table)
is_command() { [ "$1" = help ] || helpof "$1" >/dev/null 2>&1; }
# checkers OPTION: the commands that take OPTION and reject a value of it
# hprofan cannot take (a usage error, exit 2), on a dump that is a bare header
# (quick to read)
printf 'JAVA PROFILE 1.0.2\0\0\0\0\010\0\0\0\0\0\0\0\0' >"$TMPD/empty.hprof"
checkers() {
  local c
  for c in $(takers "$1"); do
    # browse without a terminal is exit status 2 whatever its options
    case $c in help|browse) continue ;; esac
    "$HPROFAN" "$c" "$TMPD/empty.hprof" $(more_files "$c") $(id_arg "$c") --quiet "$1=no-such-value" >/dev/null 2>&1
    [ $? = 2 ] && printf '%s ' "$c"
  done
}
# companion OPTION=VALUE: what a value needs beside it (top --group=component
# reads its components from --components FILE)
: >"$TMPD/empty.components"
companion() { case $1 in --group=component) printf '%s\n' --components "$TMPD/empty.components" ;; esac; }
# accepts OPTION VALUE CHECKERS: those commands take VALUE for OPTION
accepts() {
  local c
  for c in $3; do
    "$HPROFAN" "$c" "$TMPD/empty.hprof" $(more_files "$c") $(id_arg "$c") --quiet "$1=$2" $(companion "$1=$2") >/dev/null 2>&1
    [ $? = 2 ] && return 1
  done
  return 0
}
# accepts_listed OPTION VALUE CHECKERS: as accepts, but a command whose help
# lists some of the completed values (VALS) need take only those it lists
# (instances sorts by retained or shallow; top and dominators by count and
# name too)
accepts_listed() {
  local c
  for c in $3; do
    if optdesc "$c" "$1" | grep -qwE "$(printf '%s\n' $vals | paste -sd'|')" &&
       ! optdesc "$c" "$1" | grep -qw -- "$2"; then continue; fi
    accepts "$1" "$2" "$c" || return 1
  done
  return 0
}
# optdesc COMMAND OPTION: the lines `hprofan help COMMAND` gives the option
optdesc() {
  helpof "$1" 2>/dev/null |
    awk -v o="$2" '$1 ~ "^"o"([= ]|$)" { on = 1; print; next } on && /^  +-/ { on = 0 } on && /^ {10,}/ { print }'
}
# id_arg COMMAND: an object id when COMMAND's usage line takes one (object,
# path), a class name when it takes CLASS (instances): the empty dump has no
# such object or class, which is exit status 1, not 2; an output file when it
# takes IN OUT (redact)
id_arg() {
  local u
  u=$(helpof "$1" 2>/dev/null | head -n 1)
  case $u in
    *" ID "* | *" ID") echo 0x1 ;;
    *" CLASS "* | *" CLASS") echo java.lang.Object ;;
    *" IN OUT"*) echo "$TMPD/redact-out.hprof" ;;
  esac
}
# more_files COMMAND: a second dump when COMMAND compares several (diff
# BASE NEW, trend D1 D2 ... Dn)
more_files() { helpof "$1" 2>/dev/null | head -n 1 | grep -qE '^usage: hprofan [a-z]+ (BASE NEW|D1 D2)' && echo "$TMPD/empty.hprof"; }

# ---- (a) the lists -------------------------------------------------------------

b_valued=$(bashvar _hprofan_takes_value)
b_equals=$(bashvar _hprofan_with_equals)
b_cmds=$(bashvar _hprofan_commands)
b_planned_cmds=$(bashvar _hprofan_planned_commands)
b_planned_opts=$(bashvar _hprofan_planned_options)
b_planned_vals=$(bashvar _hprofan_planned_values)
if [ -z "$b_cmds" ]; then
  fail completion-bash-lists "sourcing completions/hprofan.bash gave no _hprofan_commands"
  exit 0
fi

# each command's options are its table's (and -h, --help)
for c in $(grep -vx help "$TMPD/help-cmds"); do
  same "bash: the options of $c are its table's" "$(bashvar "_hprofan_options_$c")" \
    "$( (names "$TMPD/help-lines.$c"; printf '%s\n' -h --help) | LC_ALL=C sort -u)"
done
same "bash: the options that take a value are help's" "$b_valued" "$(words <"$TMPD/help-valued")"
same "bash: the options completed with '=' are those help writes --opt=VALUE" "$b_equals" "$(words <"$TMPD/help-equals")"

# commands: each one --help's usage names is completed; each one completed is
# a command hprofan knows (top, the default, has no usage line of its own)
missing=''
while read -r c; do
  printf '%s\n' "$b_cmds" | grep -qxF -- "$c" || missing="$missing $c"
done <"$TMPD/help-cmds"
unknown=''
for c in $b_cmds; do is_command "$c" || unknown="$unknown $c"; done
if [ -z "$missing$unknown" ]; then ok "bash: the commands are hprofan's"
else fail "bash: the commands are hprofan's" "not completed:${missing:- none}; not hprofan commands:${unknown:- none}"; fi

# what is planned is not there yet; once it is, it moves into the lists
for c in $b_planned_cmds; do
  if is_command "$c" || grep -qxF -- "$c" "$TMPD/help-cmds"; then
    fail "bash: planned command $c" "hprofan has it now: move it from _hprofan_planned_commands to _hprofan_commands (and into _hprofan)"
  else ok "bash: planned command $c is not offered yet"; fi
done
for o in $b_planned_opts; do
  if grep -qxF -- "$o" "$TMPD/help-opts"; then
    fail "bash: planned option $o" "help lists it now: move it from _hprofan_planned_options to the commands' lists (and into _hprofan)"
  else ok "bash: planned option $o is not offered yet"; fi
done

# the zsh file's lists: the lines between "NAME=(" and ")"
zarray() { awk -v n="$1" '$0 == n "=(" { on = 1; next } on && /^\)/ { exit } on' "$ZSHC"; }
z_cmds=$(zarray hprofan_commands | sed -nE "s/^ *'([a-z][a-z0-9-]*):.*/\1/p" | words)
# zcmdopts COMMAND: the options hprofan_cmdopts gives COMMAND
zcmdopts() { zarray hprofan_cmdopts | awk -v c="$1" '$1 == c' | sed -E "s/^ *[a-z]+ '//; s/'\$//" | words; }
# the specs: "NAME 'SPEC'"; an option takes a value when its spec has one
z_specs=$(zarray hprofan_optspec | sed -nE 's/^ *(-{1,2}[A-Za-z][A-Za-z0-9-]*) .*/\1/p' | words)
z_valued=$(zarray hprofan_optspec | grep -E -- "^ *-{1,2}[A-Za-z][A-Za-z0-9-]* '\*?(\([^)]*\))?-{1,2}[A-Za-z][A-Za-z0-9-]*=?\[[^]]*\]:" |
           grep -vE -- "^ *--top " | sed -E 's/^ *//; s/ .*//' | words)
for c in $(grep -vx help "$TMPD/help-cmds"); do
  same "zsh: the options of $c are its table's" "$(zcmdopts "$c")" "$(names "$TMPD/help-lines.$c")"
done
same "zsh: every option has a spec" "$z_specs" "$(cat "$TMPD/help-opts")"
same "zsh: the options that take a value are help's" "$z_valued" "$(words <"$TMPD/help-valued")"
same "zsh: the commands are the bash completion's" "$z_cmds" "$b_cmds"

# ---- (b) the values ------------------------------------------------------------

# zvalues OPTION: the values _hprofan lists for OPTION: (a b) or ((a\:"..." b\:"..."))
zvalues() {
  zarray hprofan_optspec | grep -E -- "^ *$1 " | sed -E "s/^ *[^ ]+ //; s/'\$//" |
    sed -nE 's/.*:\(\((.*)\)\)$/\1/p; s/.*:\(([^()]*)\)$/\1/p' |
    sed -E 's/\\:"[^"]*"//g' | words
}
for o in $(cat "$TMPD/help-valued"); do
  vals=$(bashvalues "$o" | LC_ALL=C comm -23 - <(printf '%s\n' "$b_planned_vals"))
  [ -n "$vals" ] || continue
  same "zsh: the values of $o are the bash completion's" "$(zvalues "$o")" "$vals"
  if [ "$o" = --heap ]; then
    # heaps depend on the dump; help names them in parentheses
    named=$(helpdesc --heap | grep -oE '\([^)]*\)' | grep -oE '[a-z][a-z0-9-]*' | words)
    extra=$(LC_ALL=C comm -23 <(printf '%s\n' "$named") <(printf '%s\n' "$vals") | paste -sd' ')
    if [ -z "$named" ]; then fail "the heaps --help names are completed" "found none in help's --heap line"
    elif [ -n "$extra" ]; then fail "the heaps --help names are completed" "not completed: $extra"
    else ok "the heaps --help names are completed"; fi
    continue
  fi
  chk=$(checkers "$o")
  if [ -z "$chk" ]; then
    fail "hprofan checks the values of $o" "no command rejects $o=no-such-value"
    continue
  fi
  bad=''
  for v in $vals; do accepts_listed "$o" "$v" "$chk" || bad="$bad $v"; done
  if [ -z "$bad" ]; then ok "hprofan accepts each value completed for $o"
  else fail "hprofan accepts each value completed for $o" "rejected by${chk% }:$bad"; fi
  # the words of the --help line hprofan accepts as values are completed
  notoffered=''
  for w in $(helpdesc "$o" | grep -oE '[a-z0-9][a-z0-9-]*' | words); do
    printf '%s\n' "$vals" | grep -qxF -- "$w" && continue
    accepts "$o" "$w" "$chk" && notoffered="$notoffered $w"
  done
  if [ -z "$notoffered" ]; then ok "the values --help names for $o are completed"
  else fail "the values --help names for $o are completed" "not completed:$notoffered (planned? move it out of _hprofan_planned_values)"; fi
done
for v in $b_planned_vals; do
  for o in $(cat "$TMPD/help-valued"); do
    [ "$o" = --heap ] && continue
    bashvalues "$o" | grep -qxF -- "$v" || continue
    chk=$(checkers "$o")
    if [ -n "$chk" ] && accepts "$o" "$v" "$chk"; then
      fail "planned value $o=$v" "hprofan accepts it now: remove it from _hprofan_planned_values (and add it in _hprofan)"
    fi
  done
done

# ---- (c) bash: calling _hprofan ------------------------------------------------

D=$TMPD/files
mkdir -p "$D/dir"
for f in a.hprof b.hprof.gz c.bin d.android-hprof e.gz notes.txt "my dump.hprof" heap.hprof.gz.txt; do
  : >"$D/$f"
done

# comp NAME WANT LINE WORD...: completes at the end of LINE, whose words (as
# bash splits them) are WORD...; WANT is COMPREPLY sorted, one a line.
# WB=... sets COMP_WORDBREAKS (default: bash's, which splits at '=').
comp() {
  local name=$1 want=$2 line=$3; shift 3
  local got
  got=$(cd "$D" && bash -c '
    . "$1"; shift
    COMP_WORDBREAKS=${WB:-$'"'"' \t\n"\x27@><=;|&(:'"'"'}
    COMP_LINE=$1; COMP_POINT=${#1}; shift
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_TYPE=9; COMP_KEY=9
    COMPREPLY=()
    _hprofan hprofan "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}" || echo "_hprofan returned $?"
    printf "%s\n" "${COMPREPLY[@]}"' _ "$BASHC" "$line" "$@" 2>&1 | sed '/^$/d' | LC_ALL=C sort)
  expect_eq "bash: $name" "$got" "$want"
}
sorted() { printf '%s\n' "$@" | LC_ALL=C sort; }

comp "--si completes --size-model=" "--size-model=" "hprofan --si" hprofan --si
comp "--sort= offers the keys" "$(bashvalues --sort | LC_ALL=C comm -23 - <(printf '%s\n' "$b_planned_vals"))" \
  "hprofan --sort=" hprofan --sort =
models=$(bashvalues --size-model | LC_ALL=C comm -23 - <(printf '%s\n' "$b_planned_vals"))
comp "--size-model= offers the models" "$models" "hprofan --size-model=" hprofan --size-model =
comp "--size-model=a completes ahat" "ahat" "hprofan --size-model=a" hprofan --size-model = a
WB=' ' comp "--size-model=a, '=' not a word break" "--size-model=ahat" "hprofan --size-model=a" hprofan --size-model=a
WB=' ' comp "--size-model=, '=' not a word break" "$(printf '%s\n' "$models" | sed 's/^/--size-model=/')" \
  "hprofan --size-model=" hprofan --size-model=
comp "--size-model VALUE as the next word" "$models" "hprofan x.hprof --size-model " hprofan x.hprof --size-model ""
comp "--heap offers the heaps" "$(sorted app default image zygote)" "hprofan x.hprof --heap " hprofan x.hprof --heap ""
comp "--ref-size offers 4 and 8" "$(sorted 4 8)" "hprofan --ref-size " hprofan --ref-size ""
comp "--filter takes a pattern: nothing offered" "" "hprofan x.hprof --filter " hprofan x.hprof --filter ""
comp "--he offers --header-size --heap --help" "$(sorted --header-size --heap --help)" "hprofan --he" hprofan --he
comp "in completes index, info and instances" "index
info
instances" "hprofan in" hprofan in
comp "help offers the other commands" "$(printf '%s\n' "$b_cmds" | grep -vx help)" "hprofan help " hprofan help ""
comp "first word: commands, dump files, directories" \
  "$(sorted a.hprof b.hprof.gz c.bin d.android-hprof dir e.gz 'my dump.hprof' $b_cmds)" "hprofan " hprofan ""
comp "a file name ending .hprof.gz (and the commands bitmaps, browse)" "$(sorted b.hprof.gz bitmaps browse)" "hprofan b" hprofan b
comp "a file name with a space" "my dump.hprof" "hprofan my" hprofan my
comp "after a command: dump files only" \
  "$(sorted a.hprof b.hprof.gz c.bin d.android-hprof dir e.gz 'my dump.hprof')" "hprofan info " hprofan info ""
comp "after options and a command" "b.hprof.gz" "hprofan --json info --dump 0 b" hprofan --json info --dump 0 b
comp "-o takes any file" "$(sorted notes.txt)" "hprofan a.hprof -o n" hprofan a.hprof -o n
comp "--top N then options, the file being there: top's" \
  "$(bashvar _hprofan_options_top | sed -E "s/^($(printf '%s\n' $b_equals | paste -sd'|'))\$/\1=/" | LC_ALL=C sort)" \
  "hprofan a.hprof --top 5 " hprofan a.hprof --top 5 ""
comp "after a command and its file: the command's options" \
  "$(bashvar _hprofan_options_info | sed -E "s/^($(printf '%s\n' $b_equals | paste -sd'|'))\$/\1=/" | LC_ALL=C sort)" \
  "hprofan info a.hprof " hprofan info a.hprof ""
comp "--de after roots: nothing (--depth is dominators')" "" "hprofan roots a.hprof --de" hprofan roots a.hprof --de
comp "--de after dominators: --depth" "--depth" "hprofan dominators a.hprof --de" hprofan dominators a.hprof --de
comp "--top N before the file" "$(sorted b.hprof.gz bitmaps browse)" "hprofan --top 5 b" hprofan --top 5 b
comp "after --, no options" "" "hprofan -- --s" hprofan -- --s
# diff and trend take several dumps: after BASE, another; after BASE NEW, more dumps and the options
comp "diff: after BASE, the dump files" \
  "$(sorted a.hprof b.hprof.gz c.bin d.android-hprof dir e.gz 'my dump.hprof')" "hprofan diff a.hprof " hprofan diff a.hprof ""
comp "trend: after two dumps, more dumps and trend's options" \
  "$( (sorted a.hprof b.hprof.gz c.bin d.android-hprof dir e.gz 'my dump.hprof'
       bashvar _hprofan_options_trend | sed -E "s/^($(printf '%s\n' $b_equals | paste -sd'|'))\$/\1=/") | LC_ALL=C sort)" \
  "hprofan trend a.hprof c.bin " hprofan trend a.hprof c.bin ""
comp "--so after trend: --sort-by-time" "--sort-by-time" "hprofan trend a.hprof c.bin --so" hprofan trend a.hprof c.bin --so

# ---- (d) zsh -------------------------------------------------------------------

if command -v zsh >/dev/null 2>&1; then
  if zsh -n "$ZSHC" 2>"$TMPD/zsh.err"; then ok "zsh -n completions/_hprofan"
  else fail "zsh -n completions/_hprofan" "$(head -c 300 "$TMPD/zsh.err")"; fi
  got=$(zsh -f -c 'fpath=("$1" $fpath); autoload -Uz _hprofan && whence -w _hprofan' _ "$SRC/completions" 2>&1)
  expect_eq "zsh autoloads _hprofan" "$got" "_hprofan: function"
  expect_eq "zsh: _hprofan starts with #compdef hprofan" "$(head -n 1 "$ZSHC")" "#compdef hprofan"
else
  skip "zsh -n completions/_hprofan" "zsh is not installed"
fi
