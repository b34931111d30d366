#!/usr/bin/env bash
# The index (hprofan index; docs/index-format.md):
#  1. every command on every corpus dump writes the same stdout (and exits
#     the same) with --no-index, while the index is being built, and with
#     the index read; on the small dumps every command but browse, index
#     and redact (which reads the dump, not the model), on the others top,
#     dominators, object, path and report, whose page holds what top,
#     dominators, leaks, waste, threads, sites... collect (the reference
#     is --no-index, the parse);
#  2. a damaged index (truncated, a byte flipped in each section, another
#     format version, the index of another dump copied over it, a graph or
#     dominator entry out of range with its checksum fixed) and a stale one
#     (the dump touched or rewritten) are said in one line on stderr and
#     rebuilt, with the same output, by the first command that reads the
#     damaged part (a command that does not read it neither says nor
#     rewrites);
#  3. where it goes: beside the dump, or under $XDG_CACHE_HOME/hprofan when
#     the dump's directory is not writable, none for a pipe or --no-index;
#     hprofan index builds it; a run under other size options (--align 64)
#     leaves an index of the defaults alone, the defaults replace one of
#     other options.
. "$(dirname "$0")/../lib.sh"
have_corpus index || exit 0
command -v python3 >/dev/null 2>&1 || { skip index "python3 is absent"; exit 0; }

IX=$TMPD/ix
# run ARGS...: stdout and the exit code in $TMPD/out, stderr in $TMPD/err
# (report's page holds its command line: --no-index taken out of it, and
# the binary's path, the reference's being the release binary)
run() {
  "${BIN:-$HPROFAN}" "$@" 2>"$TMPD/err" | sed 's/,"--no-index"\]/]/; s/"command_line":\["[^"]*"/"command_line":["hprofan"/' >"$TMPD/out"
  echo "exit ${PIPESTATUS[0]}" >>"$TMPD/out"
}
ixfile() { ls "$HPROFAN_INDEX_DIR"/*.hprofan-index 2>/dev/null | head -n 1; }

# the commands: NAME|ARGS (@D the dump, @ID an object, @C a class)
small_cmds=(
  "top|@D" "top-fast|@D --fast" "top-json|@D --json --top 5" "info|info @D" "dominators|dominators @D --top 8"
  "roots|roots @D" "instances|instances @D @C --top 5" "object|object @D @ID" "path|path @D @ID"
  "leaks|leaks @D" "waste|waste @D" "threads|threads @D" "sites|sites @D" "diff|diff @D @D --top 5"
  "trend|trend @D @D --top 5" "top-weak|@D --weak=skip --top 5"
  "components|components @D" "bitmaps|bitmaps @D" "top-package|@D --group=package --top 5"
  "dominators-loader|dominators @D --group=loader --top 5" "report|report @D"
)
# (report: every collect of the commands above, leaks, waste and threads
# included, on one page)
big_cmds=("top|@D" "dominators|dominators @D --top 8" "object|object @D @ID" "path|path @D @ID" "report|report @D")
# (java_pid1884.0001.hprof.gz is small on disk but 523 MB inflated: the big
# commands only, as for the other big dumps)
is_small() {
  case $1 in */hprof-32.bin|*/RI.hprof|*/sun_jdk6_30_x64_compressedOops.hprof|\
             */dialer.android-hprof|*/oracle_jdk7_21_hprofagent.hprof|*/minimal.bin|*/small_heap.bin) return 0 ;;
  esac
  return 1
}
expand() {   # expand ARGS DUMP ID CLASS
  local a=${1//@D/$2}; a=${a//@ID/$3}; printf '%s' "${a//@C/$4}"
}

# one_dump N DUMP: the checks of part 1 on one dump, with an index
# directory and files of its own ($TMPD/c.N/), so that two dumps are checked
# at a time; its lines in c.N/log, its counts (runs checked, differences)
# in c.N/counts
one_dump() {
  local n=$1 d=$2 W=$TMPD/c.$1 id=0x1 cls=java.lang.String i k built ino diffs=0 checked=0
  local -a cmds
  mkdir -p "$W"
  export HPROFAN_INDEX_DIR=$IX/$n
  # (run's files, this dump's)
  local TMPD=$W
  if is_small "$d"; then cmds=("${small_cmds[@]}"); else cmds=("${big_cmds[@]}"); fi
  # the reference: no index (the object: the first dominators' top one),
  # the release binary's parse (corpus.sh and the others parse each dump
  # under the sanitizers; here they check the index written and read)
  for i in "${!cmds[@]}"; do
    # shellcheck disable=SC2046
    BIN=$REL run $(expand "${cmds[$i]#*|}" "$d" "$id" "$cls") --no-index
    cp "$W/out" "$W/ref.$i"
    if [ "${cmds[$i]%%|*}" = dominators ]; then
      id=$(sed -n 2p "$W/out" | grep -o '@0x[0-9a-f]*' | head -n 1 | tr -d @)
      [ -n "$id" ] || id=0x1
    fi
  done
  if [ -n "$(ixfile)" ]; then fail "index $d: --no-index" "wrote $(ixfile)"; diffs=$((diffs + 1)); fi
  # building: the first command (a different one for each dump)
  k=$((n % ${#cmds[@]}))
  # shellcheck disable=SC2046
  run $(expand "${cmds[$k]#*|}" "$d" "$id" "$cls")
  if ! cmp -s "$W/out" "$W/ref.$k"; then
    fail "index $d: ${cmds[$k]%%|*} while building" "$(diff "$W/ref.$k" "$W/out" | head -n 4)"
    diffs=$((diffs + 1))
  fi
  built=$(ixfile)
  # reading: every command (the first run of top may add retained sizes)
  for i in "${!cmds[@]}"; do
    # shellcheck disable=SC2046
    run $(expand "${cmds[$i]#*|}" "$d" "$id" "$cls")
    checked=$((checked + 1))
    if ! cmp -s "$W/out" "$W/ref.$i"; then
      fail "index $d: ${cmds[$i]%%|*} from the index" "$(diff "$W/ref.$i" "$W/out" | head -n 4)"
      diffs=$((diffs + 1))
    elif grep -q "index" "$W/err"; then
      fail "index $d: ${cmds[$i]%%|*} from the index" "stderr: $(head -c 300 "$W/err")"
      diffs=$((diffs + 1))
    fi
  done
  # a dump with a heap dump has an index now, and the runs above read it:
  # running again leaves the same file (a rewrite is a new inode)
  if [ -n "$built" ] || [ -n "$(ixfile)" ]; then
    ino=$(stat -c %i "$(ixfile)")
    # shellcheck disable=SC2046
    run $(expand "${big_cmds[1]#*|}" "$d" "$id" "$cls")
    if [ "$(stat -c %i "$(ixfile)")" != "$ino" ]; then
      fail "index $d: read, not rewritten" "the index was written again"; diffs=$((diffs + 1))
    fi
  fi
  echo "$checked $diffs" >"$W/counts"
}

n=0
while IFS= read -r d; do
  n=$((n + 1))
  # two at a time (the machine's two cores)
  while [ "$(jobs -rp | wc -l)" -ge 2 ]; do wait -n; done
  one_dump "$n" "$d" >"$TMPD/c.$n.log" 2>&1 &
done < <(find "$CORPUS" -type f \( -name '*.hprof' -o -name '*.bin' -o -name '*.gz' -o -name '*hprof' \) \
         -not -path '*/expected/*' | sort)
wait
diffs=0 checked=0
for i in $(seq 1 "$n"); do
  cat "$TMPD/c.$i.log"
  if read -r c f <"$TMPD/c.$i/counts"; then checked=$((checked + c)); diffs=$((diffs + f))
  else fail "index: corpus dump $i" "its checks did not finish"; diffs=$((diffs + 1)); fi
done
if [ "$diffs" = 0 ] && [ "$checked" -gt 50 ]; then
  ok "index: $n corpus dumps, $checked runs from the index, the same output as without"
elif [ "$diffs" = 0 ]; then
  fail "index: corpus" "only $checked runs checked"
fi

# ---- damage ------------------------------------------------------------------
D0=$CORPUS/agourlay__hprof-slurp/hprof-32.bin
D1=$CORPUS/eclipse-mat__mat/sun_jdk6_30_x64_compressedOops.hprof
export HPROFAN_INDEX_DIR=$IX/damage
"$HPROFAN" "$D0" --top 5 --no-index >"$TMPD/want" 2>/dev/null
"$HPROFAN" "$D0" --top 5 >/dev/null 2>&1
# a path adds the path search to the index: every kind of section is in it
ID0=$("$HPROFAN" dominators "$D0" --top 1 2>/dev/null | sed -n 2p | grep -o '@0x[0-9a-f]*' | head -n 1 | tr -d @)
"$HPROFAN" path "$D0" "$ID0" >/dev/null 2>&1
IXF=$(ixfile)
cp "$IXF" "$TMPD/good"

# the commands the damage is found by: each reads a part of the index (the
# model and the retained sums: top; the dominator tree: dominators; the
# reference graph: object, which lists referrers; the path search: path)
"$HPROFAN" dominators "$D0" --top 8 --no-index >"$TMPD/want.dom" 2>/dev/null
"$HPROFAN" path "$D0" "$ID0" --no-index >"$TMPD/want.path" 2>/dev/null
"$HPROFAN" object "$D0" "$ID0" --no-index >"$TMPD/want.obj" 2>/dev/null
cmd_for() {   # cmd_for SECTION-ID: the command that reads it, its reference output
  if [ "$1" -ge 39 ] && [ "$1" -le 44 ]; then echo "obj object $D0 $ID0"
  elif { [ "$1" -ge 45 ] && [ "$1" -le 52 ]; } || [ "$1" -eq 69 ]; then echo "dom dominators $D0 --top 8"
  elif [ "$1" -ge 56 ] && [ "$1" -le 63 ]; then echo "path path $D0 $ID0"
  else echo "top $D0 --top 5"; fi
}
want_of() {
  case $1 in dom) echo "$TMPD/want.dom" ;; path) echo "$TMPD/want.path" ;; obj) echo "$TMPD/want.obj" ;; *) echo "$TMPD/want" ;; esac
}

# damaged CASE PATTERN [REF ARGS...]: the index at $IXF damaged; running
# ARGS (default: --top 5) says one line on stderr matching PATTERN, gives
# the right output (REF: top, dom or path), and leaves a good index
damaged() {
  local name=$1 pat=$2 ref=top
  shift 2
  if [ $# -gt 0 ]; then ref=$1; shift; else set -- "$D0" --top 5; fi
  local want; want=$(want_of "$ref")
  "$HPROFAN" "$@" >"$TMPD/got" 2>"$TMPD/err"
  if ! cmp -s "$TMPD/got" "$want"; then
    fail "index damaged: $name" "other output: $(diff "$TMPD/want" "$TMPD/got" | head -n 3)"
  elif [ "$(wc -l <"$TMPD/err")" != 1 ] || ! grep -qE "^hprofan: index .* is $pat( \(.*\))?: rebuilding$" "$TMPD/err"; then
    fail "index damaged: $name" "stderr: $(head -c 400 "$TMPD/err")"
  else
    local said
    said=$(sed 's/^hprofan: index [^ ]* is //' "$TMPD/err")
    "$HPROFAN" "$@" >"$TMPD/got" 2>"$TMPD/err"
    if [ -s "$TMPD/err" ] || ! cmp -s "$TMPD/got" "$want"; then
      fail "index damaged: $name" "not rebuilt: $(head -c 300 "$TMPD/err")"
    else
      ok "index damaged: $name: $said"
    fi
  fi
  cp "$TMPD/good" "$IXF"
}

truncate -s $(( $(stat -c %s "$IXF") / 2 )) "$IXF"
damaged "truncated to half" truncated
truncate -s 100 "$IXF"
damaged "truncated inside the header" truncated

# the section table: offset, length of each section (docs/index-format.md)
python3 - "$IXF" >"$TMPD/sections" <<'EOF'
import struct, sys
b = open(sys.argv[1], 'rb').read()
n, = struct.unpack_from('<I', b, 112)
toff, = struct.unpack_from('<Q', b, 120)
for i in range(n):
    sid, elem, off, ln, crc, _ = struct.unpack_from('<IIQQII', b, toff + 32 * i)
    print(i, sid, off, ln)
EOF
nsec=0
while read -r i sid off len; do
  [ "$len" -gt 0 ] || continue
  nsec=$((nsec + 1))
  python3 -c 'import sys
f = open(sys.argv[1], "r+b"); f.seek(int(sys.argv[2])); c = f.read(1); f.seek(int(sys.argv[2])); f.write(bytes([c[0] ^ 0x5a]))' \
    "$IXF" $((off + len / 2))
  # shellcheck disable=SC2046
  set -- $(cmd_for "$sid")
  ref=$1; shift
  "$HPROFAN" "$@" >"$TMPD/got" 2>"$TMPD/err"
  if ! cmp -s "$TMPD/got" "$(want_of "$ref")" || [ "$(wc -l <"$TMPD/err")" != 1 ] ||
     ! grep -qE "^hprofan: index .* is corrupt \(section $i checksum mismatch\): rebuilding$" "$TMPD/err"; then
    fail "index damaged: a byte of section $i (id $sid)" "stderr: $(head -c 300 "$TMPD/err")"
    nsec=-1000
  fi
  cp "$TMPD/good" "$IXF"
done <"$TMPD/sections"
if [ "$nsec" -gt 55 ]; then ok "index damaged: a byte flipped in each of $nsec sections: corrupt, rebuilt by the command reading it"
else fail "index damaged: sections" "only $nsec sections tried"; fi

# a section is summed when first used: --top reads neither the path search
# nor the dominator tree nor the graph, so a byte flipped in them leaves it
# alone (and the index as it is); path, dominators and object then find it
declare -A at=()
while read -r i sid off len; do at[$sid]="$i $off $len"; done <"$TMPD/sections"
for w in "58 path" "45 dom" "41 obj"; do
  set -- $w
  sid=$1 ref=$2
  # shellcheck disable=SC2086
  set -- ${at[$sid]}
  i=$1
  python3 -c 'import sys
f = open(sys.argv[1], "r+b"); f.seek(int(sys.argv[2])); c = f.read(1); f.seek(int(sys.argv[2])); f.write(bytes([c[0] ^ 0x5a]))' \
    "$IXF" $(($2 + $3 / 2))
  ino=$(stat -c %i "$IXF")
  "$HPROFAN" "$D0" --top 5 >"$TMPD/got" 2>"$TMPD/err"
  if ! cmp -s "$TMPD/got" "$TMPD/want" || [ -s "$TMPD/err" ] || [ "$(stat -c %i "$IXF")" != "$ino" ]; then
    fail "index damaged: section $i (id $sid), --top" "read it: $(head -c 300 "$TMPD/err")"
  else
    ok "index damaged: section $i (id $sid): --top, which does not read it, neither says nor rewrites"
  fi
  # shellcheck disable=SC2046
  set -- $(cmd_for "$sid")
  shift
  damaged "a byte of section $i (id $sid), found by $1" "corrupt \\(section $i checksum mismatch\\)" "$ref" "$@"
done
# nor does dominators read the graph
# shellcheck disable=SC2086
set -- ${at[41]}
python3 -c 'import sys
f = open(sys.argv[1], "r+b"); f.seek(int(sys.argv[2])); c = f.read(1); f.seek(int(sys.argv[2])); f.write(bytes([c[0] ^ 0x5a]))' \
  "$IXF" $(($2 + $3 / 2))
ino=$(stat -c %i "$IXF")
"$HPROFAN" dominators "$D0" --top 8 >"$TMPD/got" 2>"$TMPD/err"
if cmp -s "$TMPD/got" "$TMPD/want.dom" && [ ! -s "$TMPD/err" ] && [ "$(stat -c %i "$IXF")" = "$ino" ]; then
  ok "index damaged: section $1 (id 41, the graph): dominators, which does not read it, neither says nor rewrites"
else
  fail "index damaged: section $1 (id 41), dominators" "read it: $(head -c 300 "$TMPD/err")"
fi
cp "$TMPD/good" "$IXF"

# the header's version, the header itself, the section table
python3 -c 'import struct, sys
f = open(sys.argv[1], "r+b"); f.seek(8); f.write(struct.pack("<I", 99))' "$IXF"
damaged "format version 99" "of another version"
# the format before this one (format 3: its blocks summed by XXH64)
python3 -c 'import struct, sys
f = open(sys.argv[1], "r+b"); f.seek(8); f.write(struct.pack("<I", 3))' "$IXF"
damaged "format version 3" "of another version"
python3 -c 'import sys
f = open(sys.argv[1], "r+b"); f.seek(40); f.write(b"\x01")' "$IXF"
damaged "a byte of the header" "(corrupt|stale)"

# a section rewritten with its checksum fixed: an edge or a dominator out of
# range, which only the reader's checks find
# fix SECTION-ID WHAT: writes 0xfffffff0 into the first entry, fixes the crc
fixcrc() {
  python3 - "$IXF" "$1" <<'EOF'
import struct, sys, zlib
M = (1 << 64) - 1
P1, P2, P3, P4, P5 = (0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9,
                      0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5)
def rotl(x, r): return ((x << r) | (x >> (64 - r))) & M
def rnd(a, x): return rotl((a + x * P2) & M, 31) * P1 & M
def xxh64(d, seed):   # XXH64, little-endian words
    n, p = len(d), 0
    if n >= 32:
        v = [(seed + P1 + P2) & M, (seed + P2) & M, seed, (seed - P1) & M]
        while p + 32 <= n:
            for k in range(4):
                v[k] = rnd(v[k], struct.unpack_from('<Q', d, p + 8 * k)[0])
            p += 32
        h = (rotl(v[0], 1) + rotl(v[1], 7) + rotl(v[2], 12) + rotl(v[3], 18)) & M
        for x in v:
            h = ((h ^ rnd(0, x)) * P1 + P4) & M
    else:
        h = (seed + P5) & M
    h = (h + n) & M
    while p + 8 <= n:
        h = (rotl(h ^ rnd(0, struct.unpack_from('<Q', d, p)[0]), 27) * P1 + P4) & M
        p += 8
    if p + 4 <= n:
        h = (rotl(h ^ (struct.unpack_from('<I', d, p)[0] * P1 & M), 23) * P2 + P3) & M
        p += 4
    while p < n:
        h = rotl(h ^ (d[p] * P5 & M), 11) * P1 & M
        p += 1
    h ^= h >> 33; h = h * P2 & M; h ^= h >> 29; h = h * P3 & M
    return h ^ (h >> 32)
T = []   # CRC-32C (Castagnoli, reflected) a byte at a time from a table
for i in range(256):
    c = i
    for _ in range(8):
        c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
    T.append(c)
def crc32c(d):
    c = 0xFFFFFFFF
    for v in d:
        c = (c >> 8) ^ T[(c ^ v) & 0xff]
    return c ^ 0xFFFFFFFF
assert crc32c(b'123456789') == 0xE3069283
def block_sum(d):     # XXH64, seed its length, of the CRC-32Cs of its three lanes
    n = len(d); L = n // 24 * 8
    return xxh64(struct.pack('<III', crc32c(d[:L]), crc32c(d[L:2 * L]), crc32c(d[2 * L:])), n)
def section_sum(d):   # docs/index-format.md: XXH64 of the 1 MiB blocks' sums
    B = 1 << 20
    return xxh64(b''.join(struct.pack('<Q', block_sum(d[o:o + B])) for o in range(0, len(d), B)), len(d))
path, want = sys.argv[1], int(sys.argv[2])
b = bytearray(open(path, 'rb').read())
n, = struct.unpack_from('<I', b, 112)
toff, = struct.unpack_from('<Q', b, 120)
for i in range(n):
    sid, elem, off, ln, s = struct.unpack_from('<IIQQQ', b, toff + 32 * i)
    if sid == want and ln >= 4:
        struct.pack_into('<I', b, off, 0xfffffff0)
        struct.pack_into('<IIQQQ', b, toff + 32 * i, sid, elem, off, ln, section_sum(bytes(b[off:off + ln])))
        struct.pack_into('<I', b, 116, zlib.crc32(bytes(b[toff:toff + 32 * n])))
        struct.pack_into('<I', b, 252, zlib.crc32(bytes(b[0:252])))
        open(path, 'wb').write(b)
        print('fixed')
EOF
}
for w in "41 an edge" "45 a dominator" "31 an object's class" "52 a dominator child" "58 a path search edge" \
         "62 a path parent"; do
  sid=${w%% *}
  # shellcheck disable=SC2046
  if [ "$(fixcrc "$sid")" = fixed ]; then damaged "${w#* } out of range, checksum fixed" corrupt $(cmd_for "$sid")
  else fail "index damaged: ${w#* }" "no section $sid"; fi
done

# the index of another dump copied over this one's
HPROFAN_INDEX_DIR=$IX/other "$HPROFAN" "$D1" --top 5 >/dev/null 2>&1
cp "$(HPROFAN_INDEX_DIR=$IX/other ixfile)" "$IXF"
damaged "another dump's index" stale

# a stale index: the dump (a copy) touched, then rewritten
cp "$D0" "$TMPD/copy.hprof"
export HPROFAN_INDEX_DIR=$IX/stale
"$HPROFAN" "$TMPD/copy.hprof" --top 5 >/dev/null 2>&1
touch -d '2001-01-01' "$TMPD/copy.hprof"
"$HPROFAN" "$TMPD/copy.hprof" --top 5 >"$TMPD/got" 2>"$TMPD/err"
if cmp -s "$TMPD/got" "$TMPD/want" && grep -qE "^hprofan: index .* is stale \(the dump was modified since\): rebuilding$" "$TMPD/err" &&
   [ "$(wc -l <"$TMPD/err")" = 1 ]; then ok "index stale: the dump touched"
else fail "index stale: the dump touched" "stderr: $(head -c 300 "$TMPD/err")"; fi
cp "$D1" "$TMPD/copy.hprof"
"$HPROFAN" "$D1" --top 5 --no-index >"$TMPD/want1" 2>/dev/null
"$HPROFAN" "$TMPD/copy.hprof" --top 5 >"$TMPD/got" 2>"$TMPD/err"
if cmp -s "$TMPD/got" "$TMPD/want1" && grep -qE "^hprofan: index .* is stale \(.*\): rebuilding$" "$TMPD/err"; then
  ok "index stale: another dump written over the file"
else fail "index stale: another dump written over the file" "stderr: $(head -c 300 "$TMPD/err")"; fi

# ---- where it goes -------------------------------------------------------------
unset HPROFAN_INDEX_DIR
mkdir -p "$TMPD/rw" "$TMPD/ro" "$TMPD/cache"
cp "$D0" "$TMPD/rw/d.hprof"
cp "$D0" "$TMPD/ro/d.hprof"
chmod a-w "$TMPD/ro"
XDG_CACHE_HOME=$TMPD/cache "$HPROFAN" "$TMPD/rw/d.hprof" --top 5 >/dev/null 2>&1
XDG_CACHE_HOME=$TMPD/cache "$HPROFAN" "$TMPD/ro/d.hprof" --top 5 >/dev/null 2>&1
if [ -f "$TMPD/rw/d.hprof.hprofan-index" ]; then ok "index: beside the dump"
else fail "index: beside the dump" "$(ls "$TMPD/rw")"; fi
if [ "$(ls "$TMPD/ro")" = d.hprof ] && ls "$TMPD/cache/hprofan/"d.hprof.*.hprofan-index >/dev/null 2>&1; then
  ok "index: under \$XDG_CACHE_HOME/hprofan when the dump's directory is not writable"
else fail "index: read-only directory" "ro: $(ls "$TMPD/ro"), cache: $(ls -R "$TMPD/cache")"; fi
XDG_CACHE_HOME=$TMPD/cache "$HPROFAN" "$TMPD/ro/d.hprof" --top 5 >"$TMPD/got" 2>"$TMPD/err"
if cmp -s "$TMPD/got" "$TMPD/want" && [ ! -s "$TMPD/err" ]; then ok "index: read from the cache directory"
else fail "index: read from the cache directory" "$(head -c 300 "$TMPD/err")"; fi
chmod u+w "$TMPD/ro"
export HPROFAN_INDEX_DIR=$IX/pipe
"$HPROFAN" - --top 5 <"$D0" >/dev/null 2>&1; rc1=$?
"$HPROFAN" "$D0" --top 5 --no-index >/dev/null 2>&1; rc2=$?
if [ -z "$(ixfile)" ] && [ $rc1 = 0 ] && [ $rc2 = 0 ]; then ok "index: none for a pipe or --no-index"
else fail "index: none for a pipe or --no-index" "exit $rc1, $rc2; $(ixfile)"; fi

# hprofan index: builds it, then says it is up to date
export HPROFAN_INDEX_DIR=$IX/cmd
if "$HPROFAN" index "$D0" >"$TMPD/got" 2>"$TMPD/err" && [ -n "$(ixfile)" ] && grep -q "written" "$TMPD/got" &&
   "$HPROFAN" index "$D0" >"$TMPD/got2" 2>>"$TMPD/err" && grep -q "up to date" "$TMPD/got2"; then
  ok "hprofan index: built, then up to date"
else fail "hprofan index" "$(cat "$TMPD/got" "$TMPD/got2" "$TMPD/err" 2>/dev/null | head -c 400)"; fi

# other size options: an index of the defaults is kept (neither replaced
# nor rebuilt by a run under --align 64, whose answer is the parse's), the
# defaults' index replaces one of other options, hprofan index replaces as asked
export HPROFAN_INDEX_DIR=$IX/key
ixsum() { f=$(ixfile); [ -n "$f" ] && cksum <"$f"; }
"$HPROFAN" "$D0" --top 5 >/dev/null 2>&1
k0=$(ixsum)
"$HPROFAN" "$D0" --top 5 --align 64 --no-index >"$TMPD/want64" 2>/dev/null
"$HPROFAN" "$D0" --top 5 --align 64 >"$TMPD/got64" 2>"$TMPD/err"
k1=$(ixsum)
"$HPROFAN" "$D0" --top 5 >"$TMPD/got" 2>>"$TMPD/err"
if [ -n "$k0" ] && [ "$k1" = "$k0" ] && [ "$(ixsum)" = "$k0" ] && cmp -s "$TMPD/got64" "$TMPD/want64" &&
   ! cmp -s "$TMPD/want64" "$TMPD/want" && cmp -s "$TMPD/got" "$TMPD/want" && [ ! -s "$TMPD/err" ]; then
  ok "index: a run under --align 64 leaves the defaults' index as it was"
else fail "index: a run under --align 64 leaves the defaults' index as it was" \
  "index ${k0:-none} -> ${k1:-none} -> $(ixsum); stderr: $(head -c 300 "$TMPD/err")"; fi
"$HPROFAN" index "$D0" --align 64 >/dev/null 2>&1
k2=$(ixsum)
"$HPROFAN" "$D0" --top 5 --align 64 >"$TMPD/got64" 2>/dev/null
"$HPROFAN" "$D0" --top 5 --align 32 >/dev/null 2>&1
k3=$(ixsum)
"$HPROFAN" "$D0" --top 5 >"$TMPD/got" 2>/dev/null
if [ -n "$k2" ] && [ "$k2" != "$k0" ] && [ "$k3" = "$k2" ] && cmp -s "$TMPD/got64" "$TMPD/want64" &&
   cmp -s "$TMPD/got" "$TMPD/want" && [ -n "$(ixsum)" ] && [ "$(ixsum)" != "$k2" ]; then
  ok "index: hprofan index --align 64 replaces it; --align 32 keeps that one; the defaults replace it"
else fail "index: hprofan index --align 64, then the defaults" "index $k0 -> ${k2:-none} -> ${k3:-none} -> $(ixsum)"; fi
