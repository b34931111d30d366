#!/usr/bin/env bash
# The man page and `hprofan --help' agree (docs/style.md, habit 15):
#  (a) every option --help prints has an entry in the OPTIONS section of
#      man/hprofan.1, and every option that section documents is in --help;
#  (b) the page renders without warnings (groff -ww; skipped without groff),
#      and man -l reads it (skipped without man);
#  (c) every command line of the usage text is in the SYNOPSIS, its words in
#      the same order, and each command's SYNOPSIS entry is the usage line of
#      `hprofan help COMMAND` (made from its table) word for word;
#  (d) each command's "Options:" list in Commands is its table's (read from
#      `hprofan completion options`);
#  (e) the OPTIONS entry of an option whose value is a choice names every
#      value of it (the tables' lists) and writes it --name=VALUE, and an
#      option that takes another value is written --name VALUE.
. "$(dirname "$0")/../lib.sh"
MAN=$(cd "$(dirname "$0")/../.." && pwd)/man/hprofan.1

if [ ! -f "$MAN" ]; then
  fail manpage-exists "man/hprofan.1 is missing"
  exit 0
fi
if ! "$HPROFAN" --help >"$TMPD/help" 2>"$TMPD/help.err"; then
  fail manpage-help "hprofan --help exited non-zero: $(head -c 300 "$TMPD/help.err")"
  exit 0
fi

# roff source -> plain words: font escapes out, \- to -, \~ to a space
plain() {
  sed -e 's/\\f\[[A-Z]*\]//g' -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' -e 's/\\~/ /g' \
      -e 's/\\&//g' -e 's/\\(aq/'"'"'/g' -e 's/\\c$//'
}

# the body of one .SH section of the man page
section() {
  awk -v want="$1" '
    /^\.SH/ { sub(/^\.SH[ \t]+/, ""); gsub(/"/, ""); on = ($0 == want); next }
    on' "$MAN"
}

# ---- (a) options, both directions ------------------------------------------

# every long option --help mentions anywhere, every short one on an option line
grep -oE -- '--[a-z][a-z0-9-]*' "$TMPD/help" | sort -u >"$TMPD/help-long"
grep -E '^ +-' "$TMPD/help" | sed -E 's/^ +//; s/  +.*//' |
  grep -oE -- '(^|[ ,])-{1,2}[A-Za-z][A-Za-z0-9-]*' | sed -E 's/^[ ,]//' | sort -u >"$TMPD/help-opts"
if [ ! -s "$TMPD/help-long" ] || [ ! -s "$TMPD/help-opts" ]; then
  fail manpage-help-options "found no options in hprofan --help"
fi

# the options the man page documents: the tag (the line after each .TP) of
# the OPTIONS section
section OPTIONS | awk 'tag { print; tag = 0 } /^\.TP/ { tag = 1 }' | plain |
  grep -oE -- '(^|[^A-Za-z0-9-])-{1,2}[A-Za-z][A-Za-z0-9-]*' | sed -E 's/^[^-]//' |
  sort -u >"$TMPD/man-opts"
if [ ! -s "$TMPD/man-opts" ]; then
  fail manpage-options-section "the man page has no OPTIONS section with .TP entries"
fi

plain <"$MAN" >"$TMPD/man-plain"
while read -r opt; do
  if grep -qxF -- "$opt" "$TMPD/man-opts"; then
    ok "help option $opt is in the man page"
  elif grep -qE -- "(^|[^A-Za-z0-9-])${opt}([^A-Za-z0-9-]|\$)" "$TMPD/man-plain"; then
    fail "help option $opt is in the man page" "mentioned, but it has no entry of its own in OPTIONS"
  else
    fail "help option $opt is in the man page" "man/hprofan.1 never mentions $opt"
  fi
done < <(sort -u "$TMPD/help-long" "$TMPD/help-opts")
while read -r opt; do
  if grep -qxF -- "$opt" "$TMPD/help-opts"; then
    ok "man option $opt is in --help"
  else
    fail "man option $opt is in --help" "documented in OPTIONS but hprofan --help does not list it"
  fi
done <"$TMPD/man-opts"

# ---- (b) rendering -----------------------------------------------------------

if command -v groff >/dev/null 2>&1; then
  if groff -man -Tutf8 -ww "$MAN" >/dev/null 2>"$TMPD/groff.err" && [ ! -s "$TMPD/groff.err" ]; then
    ok "groff renders the man page without warnings"
  else
    fail "groff renders the man page without warnings" "$(head -c 400 "$TMPD/groff.err")"
  fi
else
  skip "groff renders the man page without warnings" "groff is not installed"
fi
if command -v man >/dev/null 2>&1; then
  if MANPAGER=cat MANWIDTH=80 man -l "$MAN" >"$TMPD/man.out" 2>"$TMPD/man.err" &&
     grep -q SYNOPSIS "$TMPD/man.out"; then
    ok "man -l reads the man page"
  else
    fail "man -l reads the man page" "$(head -c 400 "$TMPD/man.err")"
  fi
else
  skip "man -l reads the man page" "man is not installed"
fi

# ---- (c) usage lines in the SYNOPSIS ----------------------------------------

# SYNOPSIS entries, one a line: .SY starts one, .YS ends it; .B/.I join their
# arguments with spaces, .BR/.IR/.RB/.RI/.BI/.IB without (alternating fonts)
section SYNOPSIS | awk '
  function args(s,   out, n, i, c, q, cur, have) {
    n = 0; q = 0; cur = ""; have = 0
    for (i = 1; i <= length(s); i++) {
      c = substr(s, i, 1)
      if (c == "\"") { q = !q; have = 1; continue }
      if (!q && (c == " " || c == "\t")) { if (have) { A[++n] = cur; cur = ""; have = 0 } continue }
      cur = cur c; have = 1
    }
    if (have) A[++n] = cur
    return n
  }
  function add(w) { if (w != "") line = (line == "" ? w : line " " w) }
  /^\.SY/ { if (line != "") print line; line = ""; sub(/^\.SY[ \t]*/, ""); add($0); next }
  /^\.YS/ { if (line != "") print line; line = ""; next }
  /^\.(B|I|SM)[ \t]/ { s = $0; sub(/^\.[A-Z]+[ \t]+/, "", s); n = args(s); w = ""
                       for (i = 1; i <= n; i++) w = (i == 1 ? A[i] : w " " A[i]); add(w); next }
  /^\.(BR|IR|RB|RI|BI|IB)[ \t]/ { s = $0; sub(/^\.[A-Z]+[ \t]+/, "", s); n = args(s); w = ""
                       for (i = 1; i <= n; i++) w = w A[i]; add(w); next }
  /^\./ { next }
  { add($0) }
  END { if (line != "") print line }' | plain | tr -s ' ' >"$TMPD/synopsis"
if [ ! -s "$TMPD/synopsis" ]; then
  fail manpage-synopsis "the man page has no SYNOPSIS entries"
fi

# usage lines: from "usage:" to the first blank line; the description after
# two spaces goes; "A | B | C" are alternatives, each a command line of its own
awk 'NR == 1 || (started && $0 != "") { started = 1; print; next } { exit }' "$TMPD/help" |
  sed -E 's/^usage://; s/^ +//; s/  +.*$//' |
  awk -F' [|] ' '{ for (i = 1; i <= NF; i++) { c = $i; if (c !~ /^hprofan /) c = "hprofan " c; print c } }' \
  >"$TMPD/usage"
if [ ! -s "$TMPD/usage" ]; then
  fail manpage-usage "found no usage lines in hprofan --help"
fi

# a usage line is in the SYNOPSIS when an entry starts with the same command
# (its first two words) and holds all its words in the same order
while read -r u; do
  if awk -v u="$u" '
       BEGIN { nu = split(u, W, " ") }
       { n = split($0, S, " ")
         if (n < 2 || S[1] != W[1] || S[2] != W[2]) next
         k = 1
         for (i = 1; i <= n && k <= nu; i++) if (S[i] == W[k]) k++
         if (k > nu) { found = 1; exit } }
       END { exit !found }' "$TMPD/synopsis"; then
    ok "usage '$u' is in the SYNOPSIS"
  else
    fail "usage '$u' is in the SYNOPSIS" "no SYNOPSIS entry has these words in this order; SYNOPSIS: $(paste -sd';' "$TMPD/synopsis")"
  fi
done <"$TMPD/usage"

# ---- (c) each command's entry: its usage line ------------------------------------

"$HPROFAN" completion options >"$TMPD/table" 2>"$TMPD/table.err" ||
  { fail manpage-table "hprofan completion options failed: $(head -c 300 "$TMPD/table.err")"; exit 0; }
cmds=$(awk -F'\t' '$1 == "command" { print $2 }' "$TMPD/table")
for c in $cmds; do
  u=$("$HPROFAN" help "$c" | head -n 1 | sed 's/^usage: //')
  w=$(awk -v c="$c" '{ n = split($0, S, " "); if (S[1] == "hprofan" && (S[2] == c || (c == "top" && S[2] == "[top]"))) print }' \
        "$TMPD/synopsis" | head -n 1)
  expect_eq "man: the SYNOPSIS of $c is its usage line" "$w" "$u"
done

# ---- (d) each command's options: the man page's list is the command's table --

# opts_of_table COMMAND: the options of COMMAND's table, one a line (the
# name: "-o", not its alias --output; "--quiet", not -q)
opts_of_table() { awk -F'\t' -v c="$1" '$1 == "option" && $2 == c { print $3 }' "$TMPD/table" | LC_ALL=C sort -u; }
# opts_of_man COMMAND: the "Options:" paragraph of COMMAND's entry in Commands
opts_of_man() {
  awk -v c="$1" '
    /^\.SS Commands/ { cmds = 1; next }
    /^\.S[HS]/ { cmds = 0 }
    !cmds { next }
    on && /^\.(TP|IP|PP)/ { on = 0 }
    /^\.TP/ { tag = 1; next }
    tag { tag = 0; w = $0; sub(/^\.B[R]? +/, "", w); sub(/[ "].*/, "", w); cur = w; next }
    cur == c && /^Options:/ { on = 1; next }
    on' "$MAN" | plain | grep -oE -- '(^|[^A-Za-z0-9-])-{1,2}[A-Za-z][A-Za-z0-9-]*' | sed -E 's/^[^-]//' |
    LC_ALL=C sort -u
}
for c in $cmds; do
  h=$(opts_of_table "$c"); m=$(opts_of_man "$c")
  if [ -z "$h" ]; then fail "man: the options of $c" "its table has no options"
  elif [ "$h" = "$m" ]; then ok "man: the options of $c are its table's"
  else fail "man: the options of $c are its table's" \
    "only in the table: $(comm -23 <(echo "$h") <(echo "$m") | paste -sd' '); only in the man page: $(comm -13 <(echo "$h") <(echo "$m") | paste -sd' ')"
  fi
done

# ---- (e) the values of the choices ------------------------------------------------

# entry OPTION: the OPTIONS entry whose tag names OPTION (tag, then body), as plain text
entry() {
  section OPTIONS | awk -v o="$1" '
    /^\.TP/ { on = 0; tag = 1; next }
    tag { tag = 0; t = $0; gsub(/\\-/, "-", t); gsub(/\\f[BIRP]/, "", t); gsub(/"/, "", t)
          n = split(t, W, /[ ,]+/); for (i = 1; i <= n; i++) { sub(/[=\[].*/, "", W[i]); if (W[i] == o) on = 1 } }
    on' | plain
}
while IFS=$'\t' read -r o kind vals; do
  e=$(entry "$o")
  if [ -z "$e" ]; then fail "man: $o has an entry in OPTIONS" "none"; continue; fi
  tag=$(head -n 1 <<<"$e")
  if [ "$kind" = choice ]; then
    missing=''
    for v in $vals; do grep -qwF -- "$v" <<<"$e" || missing="$missing $v"; done
    if [ -z "$missing" ]; then ok "man: $o names each of its values"
    else fail "man: $o names each of its values" "not named:$missing"; fi
    case $tag in *"$o="*) ok "man: $o is written $o=VALUE" ;; *) fail "man: $o is written $o=VALUE" "tag: $tag" ;; esac
  elif [ "$kind" = value ]; then
    case $tag in *"$o="*) fail "man: $o is written $o VALUE" "tag: $tag" ;; *) ok "man: $o is written $o VALUE" ;; esac
  fi
done < <(awk -F'\t' '$1 == "option" { v[$3] = v[$3] " " $8; k[$3] = $5 }
                     END { for (o in k) { n = split(v[o], W, " "); s = ""; delete seen
                                          for (i = 1; i <= n; i++) if (W[i] != "-" && !seen[W[i]]++) s = s " " W[i]
                                          print o "\t" k[o] "\t" s } }' "$TMPD/table" | LC_ALL=C sort)
