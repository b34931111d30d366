#!/usr/bin/env bash
# `make install' and `make uninstall' into a scratch DESTDIR:
#  - install puts the binary, the man page and the two completions where
#    PREFIX says, and nothing else;
#  - the installed binary runs, man reads the installed page, the installed
#    completions load;
#  - uninstall removes exactly the files install wrote and leaves the rest
#    of the tree (other packages' files, the directories) alone.
# It installs the binary `make check' just built: BUILD is the directory of
# the sanitized binary under test ($BUILD/san/hprofan), and make is told not
# to rebuild $BUILD/hprofan (-o), since this checks installing, not building.
. "$(dirname "$0")/../lib.sh"
SRC=$(cd "$(dirname "$0")/../.." && pwd)

if ! command -v make >/dev/null 2>&1; then
  skip install "make is not installed"
  exit 0
fi
if [ "$(basename "$(dirname "$HPROFAN")")" != san ]; then
  skip install "HPROFAN=$HPROFAN is not BUILD/san/hprofan, so the build directory is unknown"
  exit 0
fi
BUILD=$(cd "$(dirname "$(dirname "$HPROFAN")")" && pwd)
if [ ! -x "$BUILD/hprofan" ]; then
  fail install "$BUILD/hprofan is not built (make check builds it)"
  exit 0
fi

ROOT=$TMPD/root
PREFIX=/usr/local
P=$ROOT$PREFIX
# files of other packages in the directories install shares: they stay
mkdir -p "$P/bin" "$P/share/man/man1" "$P/share/bash-completion/completions" "$P/share/zsh/site-functions"
echo other >"$P/bin/other-tool"
echo other >"$P/share/man/man1/other-tool.1"
echo other >"$P/share/bash-completion/completions/other-tool"
echo other >"$P/share/zsh/site-functions/_other-tool"

# tree: every path under ROOT with its type, sorted
tree() { (cd "$ROOT" && find . -mindepth 1 \( -type d -printf 'd %p\n' \) -o \( -printf 'f %p\n' \) | LC_ALL=C sort); }

# run_make TARGET: make TARGET into ROOT, with nothing inherited from the
# make that runs the tests (MAKEFLAGS carries its command-line variables)
run_make() {
  env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u BINDIR -u MANDIR -u BASHCOMPDIR -u ZSHCOMPDIR \
    make --no-print-directory -C "$SRC" "$1" DESTDIR="$ROOT" PREFIX="$PREFIX" BUILD="$BUILD" \
    -o "$BUILD/hprofan" >"$TMPD/make-$1.out" 2>&1
}

tree >"$TMPD/tree-before"
run_make install; rc=$?
if [ $rc != 0 ]; then
  fail "make install" "exit $rc: $(tail -c 400 "$TMPD/make-install.out")"
  exit 0
fi
ok "make install"
tree >"$TMPD/tree-installed"

want_files="./usr/local/bin/hprofan
./usr/local/share/bash-completion/completions/hprofan
./usr/local/share/man/man1/hprofan.1
./usr/local/share/zsh/site-functions/_hprofan"
added=$(LC_ALL=C comm -13 "$TMPD/tree-before" "$TMPD/tree-installed")
expect_eq "install adds these files and no others" \
  "$(printf '%s\n' "$added" | sed -n 's/^f //p')" "$want_files"
expect_eq "install creates no directories the tree lacks" \
  "$(printf '%s\n' "$added" | sed -n 's/^d //p')" ""
gone=$(LC_ALL=C comm -23 "$TMPD/tree-before" "$TMPD/tree-installed")
expect_eq "install removes nothing" "$gone" ""

# modes: the binary executable, the rest readable and not executable
modes=$(cd "$P" && stat -c '%a %n' bin/hprofan share/man/man1/hprofan.1 \
  share/bash-completion/completions/hprofan share/zsh/site-functions/_hprofan 2>&1)
expect_eq "installed modes" "$modes" "755 bin/hprofan
644 share/man/man1/hprofan.1
644 share/bash-completion/completions/hprofan
644 share/zsh/site-functions/_hprofan"

# the files are the ones in the tree
if cmp -s "$BUILD/hprofan" "$P/bin/hprofan"; then ok "installed binary is $BUILD/hprofan"
else fail "installed binary is $BUILD/hprofan" "they differ (was it rebuilt?)"; fi
for pair in "man/hprofan.1 share/man/man1/hprofan.1" \
            "completions/hprofan.bash share/bash-completion/completions/hprofan" \
            "completions/_hprofan share/zsh/site-functions/_hprofan"; do
  read -r from to <<<"$pair"
  if cmp -s "$SRC/$from" "$P/$to"; then ok "installed $to is $from"
  else fail "installed $to is $from" "they differ"; fi
done

# the installed binary runs
got=$("$P/bin/hprofan" --version 2>&1)
case $got in
  "hprofan "[0-9]*) ok "installed hprofan --version" ;;
  *) fail "installed hprofan --version" "got '$got'" ;;
esac
"$P/bin/hprofan" "$TESTDATA/hprof/leakycache.hprof.gz" --top 3 >"$TMPD/top.out" 2>"$TMPD/top.err"
rc=$?
if [ $rc = 0 ] && [ "$(grep -c '^ *[0-9]' "$TMPD/top.out")" = 3 ] &&
   grep -q 'byte\[\]' "$TMPD/top.out" && grep -q '^total' "$TMPD/top.out"; then
  ok "installed hprofan --top 3 on the sample"
else
  fail "installed hprofan --top 3 on the sample" "exit $rc: $(head -c 300 "$TMPD/top.out") $(head -c 300 "$TMPD/top.err")"
fi

# man reads the installed page, by path and by name under the installed MANPATH
if command -v man >/dev/null 2>&1; then
  if MANPAGER=cat MANWIDTH=80 man -l "$P/share/man/man1/hprofan.1" >"$TMPD/man.out" 2>"$TMPD/man.err" &&
     grep -q SYNOPSIS "$TMPD/man.out"; then
    ok "man -l reads the installed page"
  else
    fail "man -l reads the installed page" "$(head -c 300 "$TMPD/man.err")"
  fi
  if MANPAGER=cat MANWIDTH=80 man -M "$P/share/man" hprofan >"$TMPD/man2.out" 2>"$TMPD/man2.err" &&
     grep -q SYNOPSIS "$TMPD/man2.out"; then
    ok "man -M PREFIX/share/man hprofan finds the page"
  else
    fail "man -M PREFIX/share/man hprofan finds the page" "$(head -c 300 "$TMPD/man2.err")"
  fi
else
  skip "man -l reads the installed page" "man is not installed"
fi

# the installed completions load
got=$(bash -c '. "$1" && complete -p hprofan' _ "$P/share/bash-completion/completions/hprofan" 2>&1)
expect_eq "installed bash completion registers _hprofan" "$got" "complete -F _hprofan hprofan"
if command -v zsh >/dev/null 2>&1; then
  got=$(zsh -f -c 'fpath=("$1" $fpath); autoload -Uz _hprofan && whence -w _hprofan && head -n 1 "$1/_hprofan"' \
    _ "$P/share/zsh/site-functions" 2>&1)
  expect_eq "installed zsh completion autoloads from site-functions" "$got" "_hprofan: function
#compdef hprofan"
else
  skip "installed zsh completion autoloads from site-functions" "zsh is not installed"
fi

# uninstall removes exactly what install added, files only
run_make uninstall; rc=$?
if [ $rc != 0 ]; then
  fail "make uninstall" "exit $rc: $(tail -c 400 "$TMPD/make-uninstall.out")"
  exit 0
fi
ok "make uninstall"
tree >"$TMPD/tree-after"
removed=$(LC_ALL=C comm -23 "$TMPD/tree-installed" "$TMPD/tree-after")
expect_eq "uninstall removes exactly the installed files" "$removed" "$(printf '%s\n' "$want_files" | sed 's/^/f /')"
expect_eq "uninstall leaves the tree as it was" "$(LC_ALL=C comm -3 "$TMPD/tree-before" "$TMPD/tree-after")" ""
# a second uninstall has nothing to do and does not fail
if run_make uninstall; then ok "make uninstall again"
else fail "make uninstall again" "$(tail -c 300 "$TMPD/make-uninstall.out")"; fi

# into an empty DESTDIR install makes the directories it needs
rm -rf "$ROOT" && mkdir -p "$ROOT"
if run_make install && [ -x "$P/bin/hprofan" ] && [ -f "$P/share/zsh/site-functions/_hprofan" ]; then
  ok "make install into an empty DESTDIR"
else
  fail "make install into an empty DESTDIR" "$(tail -c 300 "$TMPD/make-install.out")"
fi
run_make uninstall
left=$(cd "$ROOT" && find . -type f | LC_ALL=C sort)
expect_eq "uninstall after install into an empty DESTDIR leaves no file" "$left" ""
