#!/usr/bin/env bash
# The index as untrusted input (docs/index-format.md, "Trust" and "What the
# reader checks"); a few seconds:
#  1. fields forged with their checksums fixed (tests/unit/test_index
#     --poke, which sets every sum and CRC to what the bytes give): the path
#     search's bias (path, object, waste crashed on it), a sub-record tag
#     with no name (info --json leaked), a header format with an escape
#     sequence (info printed it), the model's dump number (waste read
#     another and found nothing), the vm model's layout rule (info read out
#     of bounds): each is found by the reader's checks, said in one line,
#     the output is the one without an index, and the index is rebuilt;
#  2. nothing at the index path is followed or blocks: a FIFO (every command
#     hung), a symbolic link to a forged index (it was read) are refused in
#     one line and the index is the one in the user's cache;
#  3. an index others could have written is not read: owned by another uid,
#     writable by group or others, in a directory writable by others or
#     owned by another uid (one line; the index in the cache is used, and
#     the planted file left alone); an index of the user's own in a sticky
#     directory (/tmp) is used; none is written where others could have
#     written it (the cache holds it); nothing is written through a planted
#     link.
# The forged index names java.util.Vector java.util.VECTOR: a run that
# reads it shows that name.
. "$(dirname "$0")/../lib.sh"
have_corpus index_hostile || exit 0
TI=${HPROFAN_TEST_INDEX:-$(dirname "$HPROFAN")/unit/test_index}
if [ ! -x "$TI" ]; then skip index_hostile "$TI is not built (make unit)"; exit 0; fi
D0=$CORPUS/agourlay__hprof-slurp/hprof-32.bin
export XDG_CACHE_HOME=$TMPD/cache
root=0
[ "$(id -u)" = 0 ] && root=1

# run NAME ARGS...: hprofan ARGS (20 s at most: a hang) into $TMPD/NAME.{out,err,rc}
run() {
  local n=$1; shift
  timeout 20 "$HPROFAN" "$@" >"$TMPD/$n.out" 2>"$TMPD/$n.err"
  echo $? >"$TMPD/$n.rc"
}
lines() { wc -l <"$1" | tr -d ' '; }
# said NAME PATTERN: NAME exited 0 and said exactly one line on stderr
# matching PATTERN (why not, on stdout)
said() {
  local rc; rc=$(cat "$TMPD/$1.rc")
  if [ "$rc" != 0 ]; then echo "exit $rc: $(head -c 300 "$TMPD/$1.err")"; return 1; fi
  if [ "$(lines "$TMPD/$1.err")" != 1 ] || ! grep -qE "^hprofan: $2" "$TMPD/$1.err"; then
    echo "stderr: $(head -c 300 "$TMPD/$1.err")"; return 1
  fi
}
quiet() {   # quiet NAME: exit 0, nothing on stderr
  local rc; rc=$(cat "$TMPD/$1.rc")
  [ "$rc" = 0 ] && [ ! -s "$TMPD/$1.err" ] || { echo "exit $rc: $(head -c 300 "$TMPD/$1.err")"; return 1; }
}
same() { cmp -s "$TMPD/$1.out" "$2" || { echo "other output: $(diff "$2" "$TMPD/$1.out" | head -n 3)"; return 1; }; }
check() {   # check LABEL CMD...: ok when CMD (which echoes why not) succeeds
  local label=$1 why; shift
  if why=$("$@"); then ok "index_hostile: $label"; else fail "index_hostile: $label" "$why"; fi
}

ID=$("$HPROFAN" dominators "$D0" --top 1 --no-index 2>/dev/null | sed -n 2p | grep -o '@0x[0-9a-f]*' | head -n 1 | tr -d @)
for c in "path|path $D0 $ID" "object|object $D0 $ID" "waste|waste $D0" "info|info $D0" "infoj|info $D0 --json"; do
  # shellcheck disable=SC2086
  "$HPROFAN" ${c#*|} --no-index >"$TMPD/want.${c%%|*}" 2>/dev/null
done
if ! grep -q 'java.util.Vector' "$TMPD/want.path"; then fail "index_hostile" "the path of $ID has no java.util.Vector"; exit 0; fi

# ---- 1. forged fields ---------------------------------------------------------
export HPROFAN_INDEX_DIR=$TMPD/ix
"$HPROFAN" path "$D0" "$ID" >/dev/null 2>&1   # the index, with the path search
IXF=$(ls "$HPROFAN_INDEX_DIR"/*.hprofan-index 2>/dev/null | head -n 1)
if [ -z "$IXF" ]; then fail "index_hostile" "no index written in $HPROFAN_INDEX_DIR"; exit 0; fi
cp "$IXF" "$TMPD/good.ix"
# forge FIELD DELTA HEX: the good index with HEX written DELTA bytes into the field
forge() {
  # shellcheck disable=SC2046
  set -- $("$TI" --field "$1") "$2" "$3"
  cp "$TMPD/good.ix" "$IXF" && "$TI" --poke "$IXF" "$1" $(($2 + $4)) "$5"
}
# forged LABEL FIELD DELTA HEX PATTERN REF ARGS...: ARGS on the forged index
forged() {
  local label=$1 field=$2 delta=$3 hex=$4 pat=$5 ref=$6
  shift 6
  if ! forge "$field" "$delta" "$hex"; then fail "index_hostile: $label" "cannot forge $field"; return; fi
  run f1 "$@"
  run f2 "$@"
  check "$label: said, the output without an index, rebuilt" \
    eval 'said f1 "index .* is corrupt \\($pat\\): rebuilding$" && same f1 "$TMPD/want.$ref" && quiet f2 && same f2 "$TMPD/want.$ref"'
}
for c in path object waste; do
  args="path $D0 $ID"
  [ $c = object ] && args="object $D0 $ID"
  [ $c = waste ] && args="waste $D0"
  # shellcheck disable=SC2086
  forged "path search bias 1, $c" paths.bias 0 01000000 "path search bias 1" $c $args
done
forged "path search bias 0xffffffff, waste" paths.bias 0 ffffffff "path search bias 4294967295" waste waste "$D0"
# subrecords_by_tag[0x99]: a tag the parser never counts (hp_subtag_name() has no name for it)
forged "a count of sub-record tag 0x99, info --json" load.subrecords_by_tag $((8 * 0x99)) 0100000000000000 \
  "sub-record tag 0x99 counted" infoj info "$D0" --json
# "JAVA PROFILE 1.0.2" with ESC [31m inside (23 bytes and the NUL)
forged "an escape sequence in the header's format, info" load.format 0 \
  4a4156411b5b33316d50524f46494c4520312e302e3200 "header out of range" info info "$D0"
no_esc() { ! grep -q $'\e' "$1" || { echo "an ESC on stdout"; return 1; }; }
check "an escape sequence in the header's format: none on stdout" no_esc "$TMPD/f1.out"
# the dump number of the model's options: waste read another dump's (none)
# and found nothing to save
forged "the model's dump number 5, waste" heap.opts.dump_index 0 05000000 \
  "model options differ from the header's" waste waste "$D0"
# the vm model's field-layout rule, an index into a table of two (info
# read far past it); an index of its own, made under --size-model=vm
"$HPROFAN" info "$D0" --size-model=vm --no-index >"$TMPD/want.infovm" 2>/dev/null
rm -f "$IXF"
"$HPROFAN" info "$D0" --size-model=vm >/dev/null 2>&1
cp "$IXF" "$TMPD/good.ix"
forged "the vm model's field-layout rule 0x7fffffff, info --size-model=vm" heap.size.vm.jdk15 0 ffffff7f \
  "size model out of range" infovm info "$D0" --size-model=vm

# an object's dominator out of range (its sum fixed): sql's objects table,
# which takes only each object's values from the index (their dominators
# not checked, docs/index-format.md), shows no dominator for it and reads
# nothing out of bounds; dominators, which walks the tree, finds it
rm -f "$IXF"
"$HPROFAN" dominators "$D0" --top 3 --no-index >"$TMPD/want.dom" 2>/dev/null
Q="SELECT count(*) AS n, count(idom) AS doms, sum(retained) AS retained FROM objects"
# the first object a dominator other than the super-root holds: its number
K=$("$HPROFAN" sql "$D0" "SELECT count(*) FROM objects WHERE id < (SELECT min(id) FROM objects WHERE idom IS NOT NULL)" --csv --no-index 2>/dev/null | tail -n 1 | tr -d "\r")
"$HPROFAN" sql "$D0" "SELECT count(*) AS n, count(idom) - 1 AS doms, sum(retained) AS retained FROM objects" \
  --no-index >"$TMPD/want.sqlidom" 2>/dev/null
"$HPROFAN" dominators "$D0" --top 3 >/dev/null 2>&1
cp "$IXF" "$TMPD/good.ix"
if [ -z "$K" ] || ! cp "$TMPD/good.ix" "$IXF" || ! "$TI" --poke "$IXF" 45 $((4 * K)) f0ffffff; then
  fail "index_hostile: a dominator out of range" "cannot forge the dominator of object $K"
else
  run d1 sql "$D0" "$Q"
  check "a dominator out of range: sql's values shown without it, nothing said" \
    eval 'quiet d1 && same d1 "$TMPD/want.sqlidom"'
  run d2 dominators "$D0" --top 3
  check "a dominator out of range: dominators says so and rebuilds" \
    eval 'said d2 "index .* is corrupt \\(dominator of $K out of range\\): rebuilding$" && same d2 "$TMPD/want.dom"'
fi

# an edge of the reference graph out of range (its sum fixed): sql's refs
# table, which takes the graph and each object's values from the index
# (not the tree), checks the graph, says so and answers from the dump
Q="SELECT count(*) AS n, sum(dst) AS dst, count(DISTINCT kind) AS kinds FROM refs"
"$HPROFAN" sql "$D0" "$Q" --no-index >"$TMPD/want.sqlrefs" 2>/dev/null
if ! cp "$TMPD/good.ix" "$IXF" || ! "$TI" --poke "$IXF" 41 0 ffffffff; then
  fail "index_hostile: an edge out of range" "cannot forge the first edge"
else
  run g1 sql "$D0" "$Q"
  check "an edge out of range: sql's refs table says so and answers from the dump" \
    eval 'said g1 "index .* is corrupt \\(edge 0 out of range\\): rebuilding$" && same g1 "$TMPD/want.sqlrefs"'
fi


# ---- 2 and 3: what is at the index path, who could have written it ----------------
# the dump copied into directories of each kind; its index is made beside it
unset HPROFAN_INDEX_DIR
mkdir -p "$TMPD/own"
cp "$D0" "$TMPD/own/d.hprof"
"$HPROFAN" path "$TMPD/own/d.hprof" "$ID" --no-index >"$TMPD/want.own" 2>/dev/null
"$HPROFAN" path "$TMPD/own/d.hprof" "$ID" >/dev/null 2>&1
OWNIX=$TMPD/own/d.hprof.hprofan-index
cp "$OWNIX" "$TMPD/forged.ix"
"$TI" --replace "$TMPD/forged.ix" 10 java.util.Vector java.util.VECTOR
rm -rf "$XDG_CACHE_HOME"
# the forged index is believed where it is trusted: what forging buys
cp "$TMPD/forged.ix" "$OWNIX"
run t0 path "$TMPD/own/d.hprof" "$ID"
check "a forged index of the user's own is believed (the forging works)" \
  eval 'quiet t0 && grep -q java.util.VECTOR "$TMPD/t0.out"'

# planted LABEL PATTERN SETUP: SETUP puts something at $OWNIX; then two runs
# say PATTERN in one line each and show the real names, the second one with
# the cache's index (not rebuilt), and what was planted is still there
planted() {
  local label=$1 pat=$2
  rm -rf "$XDG_CACHE_HOME" "$OWNIX"
  eval "$3"
  local before; before=$(stat -c '%i %u %a %F' "$OWNIX" 2>/dev/null)
  run p1 path "$TMPD/own/d.hprof" "$ID"
  local cix; cix=$(ls "$XDG_CACHE_HOME"/hprofan/*.hprofan-index 2>/dev/null | head -n 1)
  local cino; cino=$(stat -c %i "$cix" 2>/dev/null)
  run p2 path "$TMPD/own/d.hprof" "$ID"
  check "$label: not read, said, the index in the user's cache" \
    eval 'said p1 "index $OWNIX is not trusted \\($pat\\): using $XDG_CACHE_HOME/hprofan/" && same p1 "$TMPD/want.own" &&
          said p2 "index $OWNIX is not trusted" && same p2 "$TMPD/want.own" &&
          { [ -n "$cix" ] && [ "$(stat -c %i "$cix")" = "$cino" ] || { echo "the cache index: $cix rewritten"; false; }; } &&
          { [ "$(stat -c "%i %u %a %F" "$OWNIX" 2>/dev/null)" = "$before" ] || { echo "what was planted changed"; false; }; }'
  rm -rf "$OWNIX"
}
if [ $root = 1 ]; then
  planted "an index owned by uid 12345" "owned by uid 12345, not by you" \
    'cp "$TMPD/forged.ix" "$OWNIX"; chown 12345 "$OWNIX"'
else
  skip "index_hostile: an index owned by another uid" "not root: chown needs it"
fi
planted "an index of mode 0666" "writable by others: mode 0666" 'cp "$TMPD/forged.ix" "$OWNIX"; chmod 0666 "$OWNIX"'
planted "an index of mode 0620" "writable by its group: mode 0620" 'cp "$TMPD/forged.ix" "$OWNIX"; chmod 0620 "$OWNIX"'
planted "a symbolic link to a forged index" "a symbolic link, not a regular file" 'ln -s "$TMPD/forged.ix" "$OWNIX"'
planted "a FIFO" "a FIFO, not a regular file" 'mkfifo "$OWNIX"'

# a FIFO in $HPROFAN_INDEX_DIR: no hang either
export HPROFAN_INDEX_DIR=$TMPD/ixfifo
mkdir -p "$HPROFAN_INDEX_DIR"
"$HPROFAN" "$D0" --top 3 --no-index >"$TMPD/want.top" 2>/dev/null
"$HPROFAN" "$D0" --top 3 >/dev/null 2>&1
FIX=$(ls "$HPROFAN_INDEX_DIR"/*.hprofan-index | head -n 1)
rm -f "$FIX" && mkfifo "$FIX"
run q1 "$D0" --top 3
check "a FIFO in \$HPROFAN_INDEX_DIR: no hang" eval 'said q1 "index $FIX is not trusted \\(a FIFO, not a regular file\\): using " && same q1 "$TMPD/want.top"'
# $HPROFAN_INDEX_DIR writable by others: said even when empty, nothing written there
export HPROFAN_INDEX_DIR=$TMPD/ix777
mkdir -p "$HPROFAN_INDEX_DIR" && chmod 0777 "$HPROFAN_INDEX_DIR"
run q2 "$D0" --top 3
check "\$HPROFAN_INDEX_DIR of mode 0777: said, not written, the cache's used" \
  eval 'said q2 "index $HPROFAN_INDEX_DIR/.* is not trusted \\(its directory is writable by others: mode 0777\\): using $XDG_CACHE_HOME/" &&
        same q2 "$TMPD/want.top" && [ -z "$(ls -A "$HPROFAN_INDEX_DIR")" ]'
unset HPROFAN_INDEX_DIR

# in a directory D of the given kind: a forged index (root's, 0600) beside
# the dump is not read, and without one none is written there
indir() {   # indir LABEL PATTERN SETUP-OF-$D
  local label=$1 pat=$2 D=$TMPD/dir.$RANDOM
  mkdir -p "$D"
  # (the copy in own/, hard-linked: the forged index was made for it)
  ln "$TMPD/own/d.hprof" "$D/d.hprof"
  cp "$TMPD/forged.ix" "$D/d.hprof.hprofan-index"
  eval "$3"
  rm -rf "$XDG_CACHE_HOME"
  run w1 path "$D/d.hprof" "$ID"
  rm -f "$D/d.hprof.hprofan-index"
  run w2 path "$D/d.hprof" "$ID"
  check "a directory $label: its index not read" \
    eval 'said w1 "index $D/d.hprof.hprofan-index is not trusted \\($pat\\): using " && same w1 "$TMPD/want.own"'
  check "a directory $label: no index written there, the cache holds it" \
    eval 'quiet w2 && same w2 "$TMPD/want.own" && [ "$(ls -A "$D")" = d.hprof ] &&
          ls "$XDG_CACHE_HOME"/hprofan/*.hprofan-index >/dev/null 2>&1 || { echo "in $D: $(ls -A "$D")"; false; }'
  chmod 0755 "$D"
}
indir "of mode 0777" "its directory is writable by others: mode 0777" 'chmod 0777 "$D"'
indir "of mode 0770" "its directory is writable by its group: mode 0770" 'chmod 0770 "$D"'
if [ $root = 1 ]; then
  indir "owned by uid 12345" "its directory is owned by uid 12345, not by you" 'chown 12345 "$D"'
else
  skip "index_hostile: a directory owned by another uid" "not root: chown needs it"
fi

# a sticky directory open to all (/tmp): the user's own index there is used
# and kept; one planted there by another uid is not read
S=$TMPD/sticky
mkdir -p "$S" && chmod 1777 "$S"
ln "$TMPD/own/d.hprof" "$S/d.hprof"
rm -rf "$XDG_CACHE_HOME"
run s1 path "$S/d.hprof" "$ID"
ino=$(stat -c %i "$S/d.hprof.hprofan-index" 2>/dev/null)
run s2 path "$S/d.hprof" "$ID"
check "a sticky directory of mode 1777: the user's index written there, then read" \
  eval 'quiet s1 && quiet s2 && same s2 "$TMPD/want.own" && [ -n "$ino" ] &&
        [ "$(stat -c %i "$S/d.hprof.hprofan-index")" = "$ino" ] && [ ! -d "$XDG_CACHE_HOME/hprofan" ]'
if [ $root = 1 ]; then
  cp "$TMPD/forged.ix" "$S/d.hprof.hprofan-index" && chown 12345 "$S/d.hprof.hprofan-index"
  run s3 path "$S/d.hprof" "$ID"
  check "a sticky directory: an index of uid 12345 there is not read" \
    eval 'said s3 "index $S/d.hprof.hprofan-index is not trusted \\(owned by uid 12345, not by you\\)" && same s3 "$TMPD/want.own"'
fi

# nothing is written through a link planted at the index's name (it is
# refused, and the file it names is left as it was)
echo "precious" >"$TMPD/victim"
rm -rf "$XDG_CACHE_HOME" "$OWNIX"
ln -s "$TMPD/victim" "$OWNIX"
run l1 path "$TMPD/own/d.hprof" "$ID"
check "a link at the index's name to another file: neither followed nor written through" \
  eval 'said l1 "index $OWNIX is not trusted \\(a symbolic link" && same l1 "$TMPD/want.own" &&
        [ "$(cat "$TMPD/victim")" = precious ] && [ -L "$OWNIX" ]'
rm -f "$OWNIX"
