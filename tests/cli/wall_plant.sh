#!/usr/bin/env bash
# tests/wall.sh fails on what it is meant to catch: a copy of src/ with one
# breach planted at a time (an upward include, two files that use each
# other, headers that include each other, a folder the table does not know,
# printing in a library layer, curses in the browser's list model), and
# passes on the copy as it is.
. "$(dirname "$0")/../lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
W=$ROOT/tests/wall.sh

# plant NAME WANT CMD...: a fresh copy of src, CMD run in it, then the wall
# must exit 1 and say WANT (each of its parts between " && ", in one line:
# a circle's list holds the files the real uses join to it as well)
plant() {
  local name=$1 want=$2
  shift 2
  rm -rf "$TMPD/src" && cp -r "$ROOT/src" "$TMPD/src" || { fail "wall-plant $name" "cannot copy src"; return; }
  (cd "$TMPD/src" && "$@") || { fail "wall-plant $name" "cannot plant"; return; }
  local out rc
  out=$(bash "$W" "$TMPD/src" 2>&1); rc=$?
  local line=$(grep -F -- "${want%% && *}" <<<"$out" | head -1) part rest=$want all=1
  while [ -n "$rest" ]; do
    part=${rest%% && *}; [ "$part" = "$rest" ] && rest= || rest=${rest#* && }
    grep -qF -- "$part" <<<"$line" || all=0
  done
  if [ "$rc" = 1 ] && [ -n "$line" ] && [ $all = 1 ]; then ok "wall-plant $name"
  else fail "wall-plant $name" "exit $rc, want 1 and '$want': $(head -c 400 <<<"$out")"; fi
}

rm -rf "$TMPD/src" && cp -r "$ROOT/src" "$TMPD/src"
out=$(bash "$W" "$TMPD/src" 2>&1)
expect_eq "wall-plant: the copy as it is passes" "$?:$out" "0:"

plant "upward include" "model/ may not use session/: model/heap.c includes session/session.h" \
  sed -i '1i #include "session/session.h"' model/heap.c
plant "upward call" "parser/ may not use analysis/: parser/hprof.c uses hp_dom_release() of analysis/dominators.c" \
  sh -c 'printf "void hp_planted(void);\nvoid hp_planted(void) { hp_dom_release(0); }\n" >> parser/hprof.c'
plant "two files using each other" "a circle of files that use each other: model/build.c, model/names.c" \
  sh -c 'printf "void hp_planted(hp_heap *h, struct hp_sink *s);\nvoid hp_planted(hp_heap *h, struct hp_sink *s) { hp_heap_sink(h, s); }\n" >> model/names.c'
plant "a circle through three files" "a circle of files that use each other: cli/cmd_info.c, && cli/load.c, && cli/output.c" \
  sh -c 'printf "void cli_planted(void);\nvoid cli_planted(void) { cli_info_planted(); }\n" >> cli/output.c &&
         printf "void cli_info_planted(void);\nvoid cli_info_planted(void) { cli_session(0, 0, 0); }\n" >> cli/cmd_info.c &&
         printf "void cli_load_planted(void);\nvoid cli_load_planted(void) { cli_planted(); }\n" >> cli/load.c'
plant "headers including each other" "headers include each other: model/layout.h, model/refs.h" \
  sh -c 'sed -i "/^#include \"model\/heap.h\"/a #include \"model/refs.h\"" model/layout.h &&
         sed -i "/^#include \"model\/heap.h\"/a #include \"model/layout.h\"" model/refs.h'
plant "a folder the table does not know" "folder extra is not in the table of layers" \
  sh -c 'mkdir extra && printf "#include \"base/alloc.h\"\n" > extra/x.c'
plant "an include of no file" "model/idmap.c includes \"model/nosuch.h\", which is not a file" \
  sed -i '1i #include "model/nosuch.h"' model/idmap.c
plant "printing in a library layer" "the library layers print or exit" \
  sh -c 'printf "void hp_planted(void);\nvoid hp_planted(void) { printf(\"x\"); }\n" >> analysis/waste.c'
plant "curses in the browser's list model" "the library layers print or exit" \
  sed -i '1i #include <curses.h>' cli/browse_model.c
rm -rf "$TMPD/src"
