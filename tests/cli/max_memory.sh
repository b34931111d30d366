#!/usr/bin/env bash
# --max-memory SIZE on the sample dump (testdata/hprof/leakycache.hprof.gz):
#  - a generous limit changes no output, for every command that builds a model;
#  - a small one puts the big arrays in files (tests/cli/spill.sh) and
#    changes no output either;
#  - when those files cannot be made (here: the file size limit, ulimit -f,
#    standing in for a full disk), a small limit is exit status 4 and one
#    line on stderr naming the file, what the model needs and why files did
#    not help, nothing on stdout; the need is at least the
#    model's size (info --stats model_bytes) and what a run without the limit
#    really allocated (--stats alloc_peak), is the same whichever small limit
#    was hit, the same from a pipe, and is enough: given as the limit, the
#    run succeeds;
#  - the same for --fast (the class histogram), and for the retained-size
#    analysis (its own message) and path (a generic one) when the limit gives
#    out after the model;
#  - sizes: units and fractions are read as the man page says (checked by the
#    limit --stats prints), garbage and 0 are usage errors (exit status 2).
# The binary under test is sanitized: a leak on any refused path is exit 99.
. "$(dirname "$0")/../lib.sh"

S=$TESTDATA/hprof/leakycache.hprof.gz
ID=0xfd574bd0
D=$TMPD/mm
mkdir -p "$D"

# bytes "10.6 MiB" -> 11114906 (rounded up)
bytes() {
  awk -v s="$1" 'BEGIN { split(s, a, " "); m = 1
    if (a[2] == "KiB") m = 1024; else if (a[2] == "MiB") m = 1048576; else if (a[2] == "GiB") m = 1073741824
    v = a[1] * m; printf "%d\n", (v == int(v)) ? v : int(v) + 1 }'
}
# stat_of FILE KEY: KEY=N from the stats/memory lines of FILE
stat_of() { sed -n "s/.*[ :]$2=\([0-9]*\).*/\1/p" "$1" | head -1; }

# run NAME ARGS...: hprofan ARGS, stdout in D/NAME.out, stderr in D/NAME.err, status in D/NAME.rc
run() {
  local name=$1; shift
  "$HPROFAN" "$@" >"$D/$name.out" 2>"$D/$name.err"
  echo $? >"$D/$name.rc"
}
# nofile NAME ARGS...: the same, with files limited to 32 KiB (a full disk)
nofile() {
  local name=$1; shift
  (trap '' XFSZ; ulimit -f 32; exec "$HPROFAN" "$@") >"$D/$name.out" 2>"$D/$name.err"
  echo $? >"$D/$name.rc"
}
# how a line ends when files could not hold the big arrays
FT='; files in .+ could not hold the rest: File too large'
rc() { cat "$D/$1.rc"; }
# refused NAME REGEX: exit status 4, nothing on stdout, one stderr line matching REGEX
refused() {
  local name=$1 re=$2 n
  n=$(wc -l <"$D/$name.err" | tr -d ' ')
  if [ "$(rc "$name")" != 4 ]; then fail "$name" "exit $(rc "$name"), want 4: $(head -c 300 "$D/$name.err")"
  elif [ "$n" != 1 ]; then fail "$name" "stderr has $n lines, want 1: $(head -c 400 "$D/$name.err")"
  elif ! grep -qE "$re" "$D/$name.err"; then fail "$name" "stderr '$(cat "$D/$name.err")' does not match '$re'"
  elif [ -s "$D/$name.out" ]; then fail "$name" "stdout is not empty: $(head -c 200 "$D/$name.out")"
  else ok "$name"; fi
}
# need NAME: the size in the message of NAME ("10.6 MiB")
need() { sed -nE 's/.* needs? about ([0-9.]+ [KMG]?i?B).*/\1/p' "$D/$1.err" | head -1; }
# same_out NAME1 NAME2: both succeeded with the same stdout
same_out() {
  if [ "$(rc "$1")" != 0 ] || [ "$(rc "$2")" != 0 ]; then
    fail "$2 = $1" "exit $(rc "$1") and $(rc "$2"): $(head -c 300 "$D/$2.err")"
  elif cmp -s "$D/$1.out" "$D/$2.out"; then ok "$2 = $1"
  else fail "$2 = $1" "stdout differs: $(diff "$D/$1.out" "$D/$2.out" | head -4 | tr '\n' ' ')"; fi
}
# at_least LABEL A B: A >= B (bytes)
# near_need LABEL A B: two needs ("7.33 MiB") at most 0.01 MiB apart
near_need() {
  local a b; a=$(bytes "$2"); b=$(bytes "$3")
  if [ -n "$2" ] && [ -n "$3" ] && [ $((a > b ? a - b : b - a)) -le 10486 ]; then ok "$1"
  else fail "$1" "got '$2', want '$3' (within 0.01 MiB)"; fi
}
at_least() {
  if [ -n "$2" ] && [ -n "$3" ] && [ "$2" -ge "$3" ]; then ok "$1"
  else fail "$1" "'$2' is less than '$3' (or missing)"; fi
}

# ---- a generous limit changes nothing ---------------------------------------

for c in "info" "top --top 10" "top --top 10 --fast" "dominators --top 5" "roots --top 3" \
         "object $ID" "path $ID" "top --top 5 --json" "leaks"; do
  set -- $c
  cmd=$1; shift
  tag=$(printf '%s' "$c" | tr -c 'a-z0-9' '_')
  run "plain-$tag" "$cmd" "$S" "$@" --quiet
  run "generous-$tag" "$cmd" "$S" "$@" --quiet --max-memory 1G
  same_out "plain-$tag" "generous-$tag"
done
run generous-equals info "$S" --quiet --max-memory=1G
same_out plain-info generous-equals

# ---- the model: what it needs -----------------------------------------------

# what a run within the limit allocates, and the model's own size
run info-stats info "$S" --quiet --max-memory 1G --stats
peak=$(stat_of "$D/info-stats.err" alloc_peak)
model=$(stat_of "$D/info-stats.err" model_bytes)
expect_eq "--stats prints the limit" "$(stat_of "$D/info-stats.err" max_memory)" 1073741824

f=$(printf '%s' "$S" | sed 's/[.[\*^$]/\\&/g')
for l in 2M 3M 5M; do
  nofile "info-$l" info "$S" --quiet --max-memory $l
  refused "info-$l" "^hprofan: $f: the model needs about [0-9.]+ MiB \(82,953 objects\); --max-memory is ${l%M}\.00 MiB$FT\$"
  # with files, the same limit is enough
  run "info-files-$l" info "$S" --quiet --max-memory $l
  same_out plain-info "info-files-$l"
done
# and a limit too small even with files: the same need
run info-files-128K info "$S" --quiet --max-memory 128K
refused info-files-128K "^hprofan: $f: the model needs about [0-9.]+ MiB \(82,953 objects\); --max-memory is 128 KiB\$"
n2=$(need info-2M)
expect_eq "the need does not depend on the limit (3M)" "$(need info-3M)" "$n2"
expect_eq "the need does not depend on the limit (5M)" "$(need info-5M)" "$n2"
expect_eq "the need does not depend on the files (128K)" "$(need info-files-128K)" "$n2"
at_least "the need ($n2) covers model_bytes ($model)" "$(bytes "$n2")" "$model"
at_least "the need ($n2) covers what info allocated ($peak)" "$(bytes "$n2")" "$peak"
# the need, given as the limit, is enough ("10.6 MiB" -> 10.6MiB)
run info-at-need info "$S" --quiet --max-memory "$(printf '%s' "$n2" | tr -d ' ')"
same_out plain-info info-at-need

# from a pipe: the same message for -, the same need
cat "$S" | (trap '' XFSZ; ulimit -f 32; exec "$HPROFAN" info - --quiet --max-memory 2M) >"$D/stdin.out" 2>"$D/stdin.err"; echo $? >"$D/stdin.rc"
refused stdin "^hprofan: -: the model needs about [0-9.]+ MiB \(82,953 objects\); --max-memory is 2\.00 MiB$FT\$"
expect_eq "the need from a pipe is the file's" "$(need stdin)" "$n2"

# an uncompressed file (mapped, no reader buffer)
gzip -dc "$S" >"$D/sample.hprof"
run plain-stats info "$D/sample.hprof" --quiet --max-memory 1G --stats
nofile plain-2M info "$D/sample.hprof" --quiet --max-memory 2M
refused plain-2M "the model needs about [0-9.]+ MiB \(82,953 objects\)"
at_least "uncompressed: the need ($(need plain-2M)) covers what info allocated" \
  "$(bytes "$(need plain-2M)")" "$(stat_of "$D/plain-stats.err" alloc_peak)"

# too little even for the reader's buffers: said so
nofile info-1M info "$S" --quiet --max-memory 1M
refused info-1M "^hprofan: $f: the memory limit was hit opening the dump \(its buffers need more than [0-9.]+ MiB\); --max-memory is 1\.00 MiB$FT\$"

# ---- --fast: the class histogram ----------------------------------------------

run fast-stats "$S" --top 5 --fast --quiet --max-memory 1G --stats
nofile fast-2M "$S" --top 5 --fast --quiet --max-memory 2M
refused fast-2M "^hprofan: $f: the class histogram needs about [0-9.]+ MiB \(82,953 objects, nothing kept per object\); --max-memory is 2\.00 MiB$FT\$"
nf=$(need fast-2M)
at_least "--fast: the need ($nf) covers what it allocated" "$(bytes "$nf")" "$(stat_of "$D/fast-stats.err" alloc_peak)"
nofile fast-3M "$S" --top 5 --fast --quiet --max-memory 3M
expect_eq "--fast: the need does not depend on the limit" "$(need fast-3M)" "$nf"
run fast-at-need "$S" --top 5 --fast --quiet --max-memory "$(printf '%s' "$nf" | tr -d ' ')"
run fast-plain "$S" --top 5 --fast --quiet
same_out fast-plain fast-at-need
# --fast on a pipe is the same streaming pass (no file can hold the big arrays)
cat "$S" | (trap '' XFSZ; ulimit -f 32; exec "$HPROFAN" - --top 5 --fast --quiet --max-memory 2M) >"$D/fast-stdin.out" 2>"$D/fast-stdin.err"; echo $? >"$D/fast-stdin.rc"
refused fast-stdin "^hprofan: -: the class histogram needs about [0-9.]+ MiB"
# (within the last digit shown: the reader of a pipe holds other buffers
# than a file's, a few KiB, which can round the figure the other way)
near_need "--fast: the need from a pipe is the file's" "$(need fast-stdin)" "$nf"

# ---- after the model: retained sizes, path ----------------------------------

nofile top-2M "$S" --top 5 --quiet --max-memory 2M
refused top-2M "^hprofan: $f: the model needs about $n2 \(82,953 objects\), and retained sizes about [0-9.]+ MiB in all; --max-memory is 2\.00 MiB$FT\$"
run top-files-2M "$S" --top 5 --quiet --max-memory 2M
run top-plain "$S" --top 5 --quiet
same_out top-plain top-files-2M
# from a pipe (read once, a copy kept for the second read): the same
cat "$S" | (trap '' XFSZ; ulimit -f 32; exec "$HPROFAN" - --top 5 --quiet --max-memory 2M) >"$D/top-stdin.out" 2>"$D/top-stdin.err"; echo $? >"$D/top-stdin.rc"
refused top-stdin "^hprofan: -: the model needs about $n2 \\(82,953 objects\\), and retained sizes about [0-9.]+ MiB in all; --max-memory is 2\\.00 MiB"
cat "$S" | "$HPROFAN" - --top 5 --quiet --max-memory 2M >"$D/top-stdin-files.out" 2>"$D/top-stdin-files.err"; echo $? >"$D/top-stdin-files.rc"
same_out top-plain top-stdin-files
# a limit between what the model takes and what retained sizes take
run top-stats "$S" --top 5 --quiet --max-memory 1G --stats
rpeak=$(stat_of "$D/top-stats.err" alloc_peak)
if [ -n "$rpeak" ] && [ -n "$peak" ] && [ "$rpeak" -gt $((peak + 65536)) ]; then
  nofile top-mid "$S" --top 5 --quiet --max-memory $(((peak + rpeak) / 2))
  refused top-mid "^hprofan: $f: retained sizes need about [0-9.]+ MiB in all \(82,953 objects; more with many references\); --max-memory is "
  at_least "the retained need covers what was asked for" "$(bytes "$(need top-mid)")" $(((peak + rpeak) / 2))
else
  skip "retained sizes refused" "they take no more than the model ($rpeak, $peak)"
fi
run path-stats path "$S" $ID --quiet --max-memory 1G --stats
ppeak=$(stat_of "$D/path-stats.err" alloc_peak)
if [ -n "$ppeak" ] && [ -n "$peak" ] && [ "$ppeak" -gt $((peak + 65536)) ]; then
  nofile path-mid path "$S" $ID --quiet --max-memory $(((peak + ppeak) / 2))
  if [ "$(rc path-mid)" = 4 ] && tail -n 1 "$D/path-mid.err" |
     grep -qE "^hprofan: $f: the memory limit was hit \([0-9.]+ [KM]iB asked for, [0-9.]+ MiB in use\); --max-memory is "; then
    ok "path: the limit hit after the model is named"
  else
    fail "path: the limit hit after the model is named" "exit $(rc path-mid): $(head -c 300 "$D/path-mid.err")"
  fi
else
  skip "path refused" "it takes no more than the model ($ppeak, $peak)"
fi

# ---- sizes ----------------------------------------------------------------------

printf 'JAVA PROFILE 1.0.2\0\0\0\0\010\0\0\0\0\0\0\0\0' >"$D/empty.hprof"
# size SIZE BYTES: --max-memory SIZE is BYTES bytes
size() {
  "$HPROFAN" info "$D/empty.hprof" --quiet --stats --max-memory "$1" >/dev/null 2>"$D/size.err"
  local rc=$?
  expect_eq "--max-memory $1" "$rc $(stat_of "$D/size.err" max_memory)" "0 $2"
}
size 40960 40960
size 40960B 40960
size 64K 65536
size 64k 65536
size 64KiB 65536
size 64kB 64000
size 64KB 64000
size 512M 536870912
size 512m 536870912
size 512MiB 536870912
size 512MB 512000000
size 2G 2147483648
size 2GiB 2147483648
size 2GB 2000000000
size 1.5G 1610612736
size 0.5GiB 536870912
size 44.5K 45568
size 1.1M 1153433
size 3T 3298534883328
size 3TB 3000000000000
size 3TiB 3298534883328

# garbage SIZE: a usage error, said so
garbage() {
  "$HPROFAN" info "$D/empty.hprof" --quiet --max-memory "$1" >"$D/g.out" 2>"$D/g.err"
  local rc=$?
  expect_eq "--max-memory '$1' is a usage error" \
    "$rc|$(sed -n 1p "$D/g.err")|$(sed -n 2p "$D/g.err")" \
    "2|hprofan: --max-memory $1: expected a size of more than 0 bytes, such as 512M, 4G or 1.5GiB|hprofan: try 'hprofan help info'"
}
for g in 0 0K 0.0G -5M abc M 1.5 1.5B 12Q 1.2.3M 1e9 "5 M" " 5M" 5M. .5M 1.1234567G 99999999999999999999 \
         20000000000T 1Mi 1mib 1KiBB; do
  garbage "$g"
done
"$HPROFAN" info "$D/empty.hprof" --quiet --max-memory >"$D/g.out" 2>"$D/g.err"
expect_eq "--max-memory without a size is a usage error" "$?|$(sed -n 1p "$D/g.err")" \
  "2|hprofan: --max-memory needs a size (such as 512M or 4G)"
