#!/usr/bin/env bash
# No command is slower with the index than without it on a gzip dump: the
# model comes from the index, but the objects are read from the dump, and
# reading a gzip stream at random re-inflates it from its start.  Every
# command that reads objects runs on an indexed and on an unindexed gzip
# dump (10,000 zombies built byte by byte, and a JDK dump from testdata);
# the indexed run may take at most 1.5 times the unindexed one plus 0.3 s
# (the two timed in the same run, with the release binary), and both write
# the same stdout and exit the same.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip index_gzip_speed "python3 is absent"; exit 0; }
command -v timeout >/dev/null 2>&1 || { skip index_gzip_speed "timeout is absent"; exit 0; }

D=$TMPD/gzspeed
rm -rf "$D"
mkdir -p "$D/ix"
export HPROFAN_INDEX_DIR=$D/ix
HELPER=$(cd "$(dirname "$0")/../helper" && pwd)

# 10,000 zombies (dead=true), each with a byte[] of its own and held by a
# holder of its own, among 100,000 small objects: a few MB inflated, read
# object by object, back and forth, by leaks' traces
python3 - "$D/zombies.hprof.gz" "$D/ids" "$HELPER" <<'EOF'
import random, sys
sys.path.insert(0, sys.argv[3])
from mkhprof import *
random.seed(7)
d = Dump()
obj = d.load_class("java.lang.Object")
d.class_dump(obj)
z = d.load_class("com.example.Zombie")
d.class_dump(z, obj, fields=[("dead", BOOLEAN), ("payload", OBJECT), ("next", OBJECT)])
f = d.load_class("com.example.Filler")
d.class_dump(f, obj, fields=[("a", INT), ("b", LONG), ("c", OBJECT)])
arr = d.load_class("[Ljava.lang.Object;")
d.class_dump(arr, obj)
zs = []
for i in range(10000):
    p = d.prim_array(BYTE, bytes(random.getrandbits(8) for _ in range(64)) + bytes(192))
    zs.append(d.instance(z, [1, p, 0]))
fill, last = [], 0
for i in range(100000):
    last = d.instance(f, [i, random.getrandbits(40), last if i % 50 else 0])
    if i % 50 == 49:
        fill.append(last)
# each zombie held by a holder of its own, written after it in another
# order: each trace reads back and forth through the dump
order = list(range(10000))
random.shuffle(order)
holders = [0] * 10000
for k in order:
    holders[k] = d.instance(f, [k, 0, zs[k]])
d.root(d.obj_array(arr, holders))
d.root(d.obj_array(arr, fill))
d.write(sys.argv[1], gz=True)
open(sys.argv[2], "w").write("0x%x 0x%x\n" % (zs[-1], fill[-1]))
EOF
[ -s "$D/zombies.hprof.gz" ] || { fail index_gzip_speed "the zombie dump was not written"; exit 0; }
read -r ZID FID <"$D/ids"
cp "$TESTDATA/hprof/leakycache.hprof.gz" "$D/jdk.hprof.gz"
JID=$("$REL" --no-index dominators "$D/jdk.hprof.gz" --json --top 3 2>/dev/null |
      python3 -c 'import json,sys; print(json.load(sys.stdin)["dominators"][2]["id"])' 2>/dev/null)

# the commands: NAME|ARGS (@D the dump, @ID an object, @C a class)
cmds=(
  "top|@D --top 10" "info|info @D" "dominators|dominators @D --top 10" "roots|roots @D"
  "instances|instances @D @C --top 10" "object|object @D @ID" "path|path @D @ID"
  "leaks|leaks @D" "waste|waste @D" "threads|threads @D" "sites|sites @D"
  "components|components @D" "bitmaps|bitmaps @D" "report|report @D"
)
expand() {   # expand ARGS DUMP ID CLASS
  local a=${1//@D/$2}; a=${a//@ID/$3}; printf '%s' "${a//@C/$4}"
}
now() { date +%s.%N; }
# timed OUT ARGS...: stdout (the command line in report's page without
# --no-index) and the exit code in OUT, the seconds taken on stdout
timed() {
  local out=$1; shift
  local t0 t1
  t0=$(now)
  timeout 20 "$REL" "$@" 2>"$out.err" | sed 's/,"--no-index"//' >"$out"
  echo "exit ${PIPESTATUS[0]}" >>"$out"
  t1=$(now)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }'
}

# one DUMP ID CLASS [EXTRA...]: every command, unindexed then indexed
one() {
  local dump=$1 id=$2 cls=$3; shift 3
  local extra=("$@") e name args tn ti n=0 bad=0
  local base; base=$(basename "$dump" .hprof.gz)
  if ! timeout 60 "$REL" index "$dump" >"$D/$base.index.out" 2>&1; then
    fail "index_gzip_speed $base index" "$(head -n 3 "$D/$base.index.out")"
    return
  fi
  for e in "${cmds[@]}"; do
    name=${e%%|*}
    read -r -a args <<<"$(expand "${e#*|}" "$dump" "$id" "$cls")"
    [ "$name" = leaks ] && args+=("${extra[@]}")
    tn=$(timed "$D/$base.$name.no" --no-index "${args[@]}")
    ti=$(timed "$D/$base.$name.ix" "${args[@]}")
    n=$((n + 1))
    printf '# %s %s: %ss with the index, %ss without\n' "$base" "$name" "$ti" "$tn"
    if ! awk -v i="$ti" -v u="$tn" 'BEGIN { exit !(i <= 1.5 * u + 0.3) }'; then
      fail "index_gzip_speed $base $name" "${ti}s with the index against ${tn}s without"
      bad=$((bad + 1))
    elif ! cmp -s "$D/$base.$name.no" "$D/$base.$name.ix"; then
      fail "index_gzip_speed $base $name" "the output differs with the index: $(diff "$D/$base.$name.no" "$D/$base.$name.ix" | head -n 4 | tr '\n' ' ')"
      bad=$((bad + 1))
    elif grep -q "^exit 124" "$D/$base.$name.no"; then
      fail "index_gzip_speed $base $name" "timed out without the index"
      bad=$((bad + 1))
    fi
  done
  [ "$bad" = 0 ] && ok "index_gzip_speed $base: $n commands as fast with the index as without, the same output"
}

one "$D/zombies.hprof.gz" "$ZID" com.example.Zombie --zombie 'com.example.Zombie:dead=true'
if [ -n "$JID" ]; then
  one "$D/jdk.hprof.gz" "$JID" java.util.HashMap
else
  fail "index_gzip_speed jdk" "no object id from dominators --json"
fi
