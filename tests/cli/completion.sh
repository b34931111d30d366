#!/usr/bin/env bash
# The shell completions (completions/hprofan.bash, completions/_hprofan):
#  (a) they are what `hprofan completion bash|zsh` writes from the option
#      tables (`make completions`), so a command or option added to a table
#      is completed; a stale copy fails here;
#  (b) the words they offer for a value that is no choice (--ref-size 4 8,
#      --align, --gzip=N) are values the command accepts, and a word no
#      option offers is refused (a choice's words are its list: the parser
#      reads the same one);
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

# ---- (a) the copies are the binary's -------------------------------------------

for sh in bash zsh; do
  f=$BASHC; [ $sh = zsh ] && f=$ZSHC
  "$HPROFAN" completion $sh >"$TMPD/gen.$sh" 2>"$TMPD/gen.$sh.err"; rc=$?
  if [ $rc != 0 ]; then
    fail "${f#"$SRC"/} is what hprofan completion $sh writes" "exit $rc: $(head -c 300 "$TMPD/gen.$sh.err")"
  elif cmp -s "$TMPD/gen.$sh" "$f"; then
    ok "${f#"$SRC"/} is what hprofan completion $sh writes"
  else
    fail "${f#"$SRC"/} is what hprofan completion $sh writes" \
      "stale (run make completions): $(diff "$f" "$TMPD/gen.$sh" | head -n 6 | tr '\n' ' ' | head -c 300)"
  fi
done
if bash -n "$BASHC" 2>"$TMPD/bashn.err"; then ok "bash -n completions/hprofan.bash"
else fail "bash -n completions/hprofan.bash" "$(head -c 300 "$TMPD/bashn.err")"; fi
"$HPROFAN" completion fish >/dev/null 2>"$TMPD/fish.err"
expect_eq "hprofan completion fish: a usage error" "$?" 2

# the tables, once: "option CMD NAME ALIAS KIND SPEC FLAGS WORDS" lines
"$HPROFAN" completion options >"$TMPD/table" 2>"$TMPD/table.err" ||
  { fail completion-table "hprofan completion options failed: $(head -c 300 "$TMPD/table.err")"; exit 0; }

# ---- (b) the words offered are accepted --------------------------------------------

# a dump that is a bare header (quick to read); a command that takes
# several dumps gets two, one that takes an ID or CLASS a word (no such
# object or class is exit status 1, not 2), redact an OUT
printf 'JAVA PROFILE 1.0.2\0\0\0\0\010\0\0\0\0\0\0\0\0' >"$TMPD/empty.hprof"
operands() {
  awk -F'\t' -v c="$1" -v e="$TMPD/empty.hprof" -v o="$TMPD/redact-out.hprof" '$1 == "command" && $2 == c {
    n = $3; s = e; for (i = 1; i < n; i++) s = s " " e
    if ($5 == "ID") s = s " 0x1"; else if ($5 == "CLASS") s = s " java.lang.Object"; else if ($5 == "IN OUT") s = e " " o
    if (c == "capture") s = "2147483647"   # a PID no process has (exit 1, "no process")
    print s }' "$TMPD/table"
}
# each option's words (no choice, no --heap: the heaps are the dump's) on
# the first command that takes it; browse needs a terminal (exit 2 whatever)
awk -F'\t' '$1 == "option" && $5 != "choice" && $8 != "-" && $3 != "--heap" && $2 != "browse" && !seen[$3]++ {
  print $2 "\t" $3 "\t" $5 "\t" $8 }' "$TMPD/table" >"$TMPD/worded"
if [ ! -s "$TMPD/worded" ]; then fail "completion: options with words" "the table has none"; fi
# shellcheck disable=SC2046  # the operands are words
while IFS=$'\t' read -r c o _ words; do
  bad=''
  for w in $words; do
    "$HPROFAN" "$c" $(operands "$c") --quiet "$o=$w" >/dev/null 2>&1
    [ $? = 2 ] && bad="$bad $w"
  done
  if [ -z "$bad" ]; then ok "$c accepts each word completed for $o"
  else fail "$c accepts each word completed for $o" "refused:$bad"; fi
  "$HPROFAN" "$c" $(operands "$c") --quiet "$o=no-such-value" >/dev/null 2>&1
  expect_eq "$c refuses $o=no-such-value" "$?" 2
done <"$TMPD/worded"

# ---- (c) bash: calling _hprofan ------------------------------------------------

# bashvar NAME: a variable the bash completion sets, one word a line
words() { tr -s ' \t' '\n\n' | sed '/^$/d' | LC_ALL=C sort -u; }
bashvar() { bash -c '. "$1" && eval "printf %s \"\${$2}\""' _ "$BASHC" "$1" | words; }
# tablevalues COMMAND OPTION: the words the table gives OPTION of COMMAND
tablevalues() { awk -F'\t' -v c="$1" -v o="$2" '$1 == "option" && $2 == c && $3 == o && $8 != "-" { print $8 }' \
                  "$TMPD/table" | words; }
b_cmds=$(bashvar _hprofan_commands)
b_equals=$(bashvar _hprofan_with_equals)
if [ -z "$b_cmds" ]; then
  fail completion-bash-lists "sourcing completions/hprofan.bash gave no _hprofan_commands"
  exit 0
fi
# withequals LIST: the options of LIST, those written --opt=VALUE with their '='
withequals() { sed -E "s/^($(printf '%s\n' $b_equals | paste -sd'|'))\$/\1=/" | LC_ALL=C sort; }

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
dumps=$(sorted a.hprof b.hprof.gz c.bin d.android-hprof dir e.gz 'my dump.hprof')

comp "--si completes --size-model=" "--size-model=" "hprofan --si" hprofan --si
comp "--sort= offers top's keys" "$(tablevalues top --sort)" "hprofan --sort=" hprofan --sort =
comp "instances --sort= offers its own keys" "$(sorted retained shallow)" \
  "hprofan instances a.hprof C --sort=" hprofan instances a.hprof C --sort =
comp "dominators --group= offers class too" "$(sorted class package loader component)" \
  "hprofan dominators a.hprof --group=" hprofan dominators a.hprof --group =
models=$(tablevalues top --size-model)
comp "--size-model= offers the models" "$models" "hprofan --size-model=" hprofan --size-model =
comp "--size-model=v offers vm and visualvm" "$(sorted visualvm vm)" "hprofan --size-model=v" hprofan --size-model = v
comp "--size-model=a completes ahat" "ahat" "hprofan --size-model=a" hprofan --size-model = a
WB=' ' comp "--size-model=a, '=' not a word break" "--size-model=ahat" "hprofan --size-model=a" hprofan --size-model=a
WB=' ' comp "--size-model=, '=' not a word break" "$(printf '%s\n' "$models" | sed 's/^/--size-model=/')" \
  "hprofan --size-model=" hprofan --size-model=
comp "--size-model VALUE as the next word" "$models" "hprofan x.hprof --size-model " hprofan x.hprof --size-model ""
comp "--heap offers the heaps" "$(sorted app default image zygote)" "hprofan x.hprof --heap " hprofan x.hprof --heap ""
comp "--ref-size offers 4 and 8" "$(sorted 4 8)" "hprofan --ref-size " hprofan --ref-size ""
comp "redact --gzip= offers the levels" "$(sorted 1 2 3 4 5 6 7 8 9)" \
  "hprofan redact a.hprof o.hprof --gzip=" hprofan redact a.hprof o.hprof --gzip =
comp "--filter takes a pattern: nothing offered" "" "hprofan x.hprof --filter " hprofan x.hprof --filter ""
comp "--he offers --header-size --heap --help" "$(sorted --header-size --heap --help)" "hprofan --he" hprofan --he
comp "in completes index, info and instances" "$(sorted index info instances)" "hprofan in" hprofan in
comp "help offers the other commands" "$(printf '%s\n' "$b_cmds" | grep -vx help)" "hprofan help " hprofan help ""
comp "completion offers bash and zsh" "$(sorted bash zsh)" "hprofan completion " hprofan completion ""
comp "first word: commands, dump files, directories" "$( (printf '%s\n' "$dumps" $b_cmds) | LC_ALL=C sort)" \
  "hprofan " hprofan ""
comp "a file name ending .hprof.gz (and the commands bitmaps, browse)" "$(sorted b.hprof.gz bitmaps browse)" "hprofan b" hprofan b
comp "a file name with a space" "my dump.hprof" "hprofan my" hprofan my
comp "after a command: dump files only" "$dumps" "hprofan info " hprofan info ""
comp "after options and a command" "b.hprof.gz" "hprofan --json info --dump 0 b" hprofan --json info --dump 0 b
comp "-o takes any file" "$(sorted notes.txt)" "hprofan a.hprof -o n" hprofan a.hprof -o n
comp "--components takes any file" "$(sorted notes.txt)" "hprofan a.hprof --components n" hprofan a.hprof --components n
comp "bitmaps --out takes a directory" "dir" "hprofan bitmaps a.hprof --out " hprofan bitmaps a.hprof --out ""
comp "redact IN OUT: OUT is any file" "$(sorted notes.txt)" "hprofan redact a.hprof n" hprofan redact a.hprof n
comp "--top N then options, the file being there: top's" "$(bashvar _hprofan_options_top | withequals)" \
  "hprofan a.hprof --top 5 " hprofan a.hprof --top 5 ""
comp "after a command and its file: the command's options" "$(bashvar _hprofan_options_info | withequals)" \
  "hprofan info a.hprof " hprofan info a.hprof ""
comp "--de after roots: nothing (--depth is not roots')" "" "hprofan roots a.hprof --de" hprofan roots a.hprof --de
comp "--de after dominators: --depth" "--depth" "hprofan dominators a.hprof --de" hprofan dominators a.hprof --de
comp "--top N before the file" "$(sorted b.hprof.gz bitmaps browse)" "hprofan --top 5 b" hprofan --top 5 b
comp "after --, no options" "" "hprofan -- --s" hprofan -- --s
# diff and trend take several dumps: after BASE, another; after BASE NEW, more dumps and the options
comp "diff: after BASE, the dump files" "$dumps" "hprofan diff a.hprof " hprofan diff a.hprof ""
comp "trend: after two dumps, more dumps and trend's options" \
  "$( (printf '%s\n' "$dumps"; bashvar _hprofan_options_trend | withequals) | LC_ALL=C sort)" \
  "hprofan trend a.hprof c.bin " hprofan trend a.hprof c.bin ""
comp "--so after trend: --sort-by-time" "--sort-by-time" "hprofan trend a.hprof c.bin --so" hprofan trend a.hprof c.bin --so
# each command's options are its table's (and -h, --help)
for c in $(awk -F'\t' '$1 == "command" { print $2 }' "$TMPD/table"); do
  want=$( (awk -F'\t' -v c="$c" '$1 == "option" && $2 == c { print $3; if ($4 ~ /^-[^-]/) print $4 }' "$TMPD/table"
           printf '%s\n' -h --help) | withequals)
  comp "$c: its options" "$want" "hprofan $c a.hprof -" hprofan "$c" a.hprof -
done

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
