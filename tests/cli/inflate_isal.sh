#!/usr/bin/env bash
# gzip inflated by ISA-L (when hprofan is built with it) and by zlib
# (HPROFAN_INFLATE=zlib) gives the same answers, byte for byte: top,
# dominators --json, info, object, leaks and top --fast on the sample (a
# jcmd -gz file, whose members are inflated ahead on two threads), on
# standard input, on members made with gzip -c and concatenated, on a
# jcmd-like file of many small members (one of them larger than its
# BLOCKSIZE says, so the threads stop there and the reader goes on
# alone), and on the
# corpus's gzip dumps when present.  Damaged files (a member's CRC, a
# member header, garbage or zero padding after the last member, cut short
# inside a member) give the same exit and the same one-line error naming
# the file and a byte offset with either, with the threads or without
# (HPROFAN_INFLATE=serial).  --stats' gzip: line says which ran.
# Without ISA-L in the build: one skip line.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip inflate_isal "python3 is absent"; exit 0; }
command -v timeout >/dev/null 2>&1 || { skip inflate_isal "timeout is absent"; exit 0; }

D=$TMPD/inflate_isal
rm -rf "$D"
mkdir -p "$D"
G=$TESTDATA/hprof/leakycache.hprof.gz

# which inflater the binary uses, from --stats
inflater() {   # inflater [ENV]: the gzip: line's inflate= value
  env HPROFAN_INFLATE="${1:-}" "$HPROFAN" top "$G" --fast --no-index --quiet --stats 2>&1 >/dev/null |
    sed -n 's/^gzip: inflate=\([a-z]*\) .*/\1/p'
}
have=$(inflater)
if [ "$have" != isal ]; then
  skip inflate_isal "hprofan is built without ISA-L (--stats: inflate=${have:-?})"
  exit 0
fi
expect_eq "HPROFAN_INFLATE=zlib: zlib inflates" "$(inflater zlib)" zlib

# the inputs: the sample's inflated bytes as gzip -c members (three,
# concatenated), and as a jcmd-like file of 64 KiB members (the first's
# header saying HPROF BLOCKSIZE=65536, the others' MTIME 0 as the VM
# writes them), another with one member of two blocks, and damaged copies
# of the first
gzip -dc "$G" >"$D/plain.hprof"
python3 - "$D" <<'EOF'
import struct, sys, zlib
d = sys.argv[1]
data = open(d + "/plain.hprof", "rb").read()
def member(chunk, head):
    c = zlib.compressobj(1, zlib.DEFLATED, -15)
    return head + c.compress(chunk) + c.flush() + struct.pack("<II", zlib.crc32(chunk), len(chunk))
def gz(path, blocks):
    out, ends = [], []
    for i, b in enumerate(blocks):
        if i == 0:
            head = b"\x1f\x8b\x08\x10\0\0\0\0\x04\x00HPROF BLOCKSIZE=65536\0"
        else:
            head = b"\x1f\x8b\x08\x00\0\0\0\0\x04\x03"
        out.append(member(b, head))
        ends.append(sum(map(len, out)))
    open(path, "wb").write(b"".join(out))
    return ends
B = 65536
blocks = [data[i:i + B] for i in range(0, len(data), B)]
ends = gz(d + "/jc.hprof.gz", blocks)
h = len(blocks) // 2
gz(d + "/odd.hprof.gz", blocks[:h] + [blocks[h] + blocks[h + 1]] + blocks[h + 2:])
j = open(d + "/jc.hprof.gz", "rb").read()
m = len(blocks) // 2
def put(name, b):
    open(d + "/" + name, "wb").write(b)
# member m's CRC-32 flipped; member m's header's second byte; garbage and
# zeros after the last member; cut inside member m's data
crc = bytearray(j); crc[ends[m] - 8] ^= 0xff; put("crc.hprof.gz", crc)
hdr = bytearray(j); hdr[ends[m - 1] + 1] = 0x8c; put("header.hprof.gz", hdr)
put("garbage.hprof.gz", j + b"garbage after the members")
put("zeros.hprof.gz", j + bytes(1000))
put("cut.hprof.gz", j[:(ends[m - 1] + ends[m]) // 2])
# the sample in three pieces, each through its own gzip member
n = len(data)
open(d + "/pieces", "w").write("%d %d\n" % (n // 3, n // 3))
EOF
read -r P1 P2 <"$D/pieces"
{ head -c "$P1" "$D/plain.hprof" | gzip -3 -c
  tail -c "+$((P1 + 1))" "$D/plain.hprof" | head -c "$P2" | gzip -3 -c
  tail -c "+$((P1 + P2 + 1))" "$D/plain.hprof" | gzip -1 -n -c; } >"$D/concat.hprof.gz"
gzip -1 -c "$D/plain.hprof" >"$D/one.hprof.gz"
head -c "$(( $(wc -c <"$D/one.hprof.gz") / 2 ))" "$D/one.hprof.gz" >"$D/onecut.hprof.gz"
rm -f "$D/plain.hprof"

ID=$("$REL" --no-index dominators "$G" --json --top 3 2>/dev/null |
     python3 -c 'import json,sys; print(json.load(sys.stdin)["dominators"][2]["id"])' 2>/dev/null)

# run NAME ENV ARGS...: stdout and stderr of hprofan (the index out of it),
# and the exit code
run() {
  local name=$1 e=$2; shift 2
  env HPROFAN_INFLATE="$e" timeout 60 "$HPROFAN" --no-index "$@" >"$D/$name.out" 2>"$D/$name.err"
  echo "exit $?" >>"$D/$name.out"
}
# same NAME ARGS...: the default (ISA-L, the threads) against zlib (and
# with SER=1 against zlib on one thread, as before ISA-L):
# byte-identical stdout, stderr and exit
same() {
  local name=$1; shift
  run "$name.isal" "" "$@"
  run "$name.zlib" zlib "$@"
  if [ "${SER:-0}" = 1 ]; then run "$name.zser" zlib,serial "$@"
  else cp "$D/$name.zlib.out" "$D/$name.zser.out"; cp "$D/$name.zlib.err" "$D/$name.zser.err"; fi
  if grep -q '^exit [^0]' "$D/$name.isal.out"; then
    fail "inflate_isal $name" "$(tail -n 1 "$D/$name.isal.out"): $(head -c 300 "$D/$name.isal.err")"
  elif cmp -s "$D/$name.isal.out" "$D/$name.zlib.out" && cmp -s "$D/$name.isal.err" "$D/$name.zlib.err" &&
       cmp -s "$D/$name.isal.out" "$D/$name.zser.out" && cmp -s "$D/$name.isal.err" "$D/$name.zser.err"; then
    ok "inflate_isal $name: ISA-L and zlib alike ($(wc -c <"$D/$name.isal.out") bytes)"
  else
    fail "inflate_isal $name" "differs from zlib: $(diff "$D/$name.isal.out" "$D/$name.zlib.out" | head -n 4 | tr '\n' ' ')$(diff "$D/$name.isal.err" "$D/$name.zlib.err" | head -n 4 | tr '\n' ' ')"
  fi
}

SER=1 same top top "$G" --top 20
SER=1 same dominators dominators "$G" --json --top 20
same info info "$G"
same fast top "$G" --fast --top 20
if [ -n "$ID" ]; then same object object "$G" "$ID"; else fail "inflate_isal object" "no object id from dominators --json"; fi
same leaks leaks "$G"
same concat dominators "$D/concat.hprof.gz" --json --top 20
SER=1 same jcmd-like dominators "$D/jc.hprof.gz" --json --top 20
SER=1 same odd-member dominators "$D/odd.hprof.gz" --json --top 20
same zero-padding top "$D/zeros.hprof.gz" --fast --top 20
same one-member info "$D/one.hprof.gz"
# standard input: no threads ahead, the same answer
env HPROFAN_INFLATE= "$HPROFAN" --no-index top - --json --top 20 <"$G" >"$D/stdin.isal" 2>&1
env HPROFAN_INFLATE=zlib "$HPROFAN" --no-index top - --json --top 20 <"$G" >"$D/stdin.zlib" 2>&1
if [ -s "$D/stdin.isal" ] && cmp -s "$D/stdin.isal" "$D/stdin.zlib" &&
   python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$D/stdin.isal" 2>/dev/null; then
  ok "inflate_isal stdin: ISA-L and zlib alike"
else
  fail "inflate_isal stdin" "$(diff "$D/stdin.isal" "$D/stdin.zlib" | head -n 4 | tr '\n' ' ')"
fi
if have_corpus "inflate_isal corpus"; then
  n=0
  for f in "$CORPUS"/*/*.hprof.gz; do
    [ -f "$f" ] || continue
    n=$((n + 1))
    same "corpus-$n" dominators "$f" --json --top 10
  done
  [ $n -gt 0 ] || skip "inflate_isal corpus" "no gzip dump in the corpus"
fi

# the threads ran where they can, and not with HPROFAN_INFLATE=serial
stats() {   # stats ENV FILE: "members ahead" of the gzip: line
  env HPROFAN_INFLATE="$1" "$HPROFAN" top "$2" --fast --no-index --quiet --stats 2>&1 >/dev/null |
    sed -n 's/^gzip: inflate=[a-z]* members=\([0-9]*\) ahead=\([0-9]*\)$/\1 \2/p'
}
read -r m a <<<"$(stats "" "$D/jc.hprof.gz")"
read -r ms as <<<"$(stats serial "$D/jc.hprof.gz")"
read -r mo ao <<<"$(stats "" "$D/odd.hprof.gz")"
if [ -n "$m" ] && [ "$a" -gt 0 ] && [ "$a" -lt "$m" ] && [ "$ms|$as" = "$m|0" ] &&
   [ "$mo" = "$((m - 1))" ] && [ "$ao" -gt 0 ] && [ "$ao" -lt "$((a / 2 + 2))" ]; then
  ok "inflate_isal threads: $a of $m members inflated ahead ($ao of $mo when one is too large, none with serial)"
else
  fail "inflate_isal threads" "members/ahead: '$m $a', serial '$ms $as', odd '$mo $ao'"
fi

# damaged: the same exit and error with every inflater, one line naming
# the file and an offset (cut short inside a member: the same but for the
# figures, as ISA-L may hold back the last byte or so the bits decode to)
bad() {   # bad NAME FILE EXACT(1|0)
  local name=$1 f=$2 exact=$3 e rc0= err0= first
  for e in "" serial zlib zlib,serial; do
    env HPROFAN_INFLATE="$e" timeout 60 "$HPROFAN" --no-index top "$f" --fast --quiet >/dev/null 2>"$D/bad.err"
    rc=$?
    first=$(head -n 1 "$D/bad.err")
    # the message after the file's name
    case $first in "hprofan: $f: "*) first=${first#"hprofan: $f: "} ;; *) first="(no file name) $first" ;; esac
    [ "$exact" = 1 ] || first=$(printf '%s' "$first" | sed 's/[0-9][0-9]*/N/g')
    if [ -z "$rc0" ]; then rc0=$rc; err0=$first; continue; fi
    if [ "$rc|$first" != "$rc0|$err0" ]; then
      fail "inflate_isal $name" "HPROFAN_INFLATE=$e: exit $rc '$first', default: exit $rc0 '$err0'"
      return
    fi
  done
  if [ "$rc0" = 0 ] || [ "$rc0" -ge 124 ] || [[ $err0 == "(no file name) "* ]] ||
     ! printf '%s' "$err0" | grep -Eq '(offset|compressed byte|after) [0-9N]'; then
    fail "inflate_isal $name" "exit $rc0: $err0"
  else
    ok "inflate_isal $name: exit $rc0, the same error with ISA-L and zlib"
  fi
}
bad crc "$D/crc.hprof.gz" 1
bad header "$D/header.hprof.gz" 1
bad garbage "$D/garbage.hprof.gz" 1
bad cut "$D/cut.hprof.gz" 0
bad one-member-cut "$D/onecut.hprof.gz" 0
