#!/usr/bin/env bash
# bitmaps and the output writer against hostile dumps and hostile directories.
#  1. Bitmaps sharing one pixel buffer: Android-style dumps (tests/helper/
#     mkhprof.py) of 1,000 Bitmaps on one 8 MiB byte[] (2048x1024 ARGB_8888)
#     and of 40,004 on one such buffer with 1,025 shapes plus two more
#     buffers.  The buffer is hashed once: total.hashed_bytes is exactly the
#     bytes of one pass over each buffer, and the CPU time stays far under
#     what hashing per Bitmap took (1,000: about 10 s on a release build;
#     40,000: about 10 minutes).  The duplicates are worked out by hand: the
#     same bytes with the same width, height and format are one image
#     (across buffers too), a different shape of the same bytes is not.
#  2. bitmaps --out DIR: the file names are predictable (bitmap-0xID.png); a
#     symbolic link planted at one, in a sticky shared directory or in a
#     private one, is refused with one line and never followed; files of an
#     earlier run are replaced; a link named as DIR itself is followed.
#  3. -o FILE (and redact's OUT, the same writer): a link in a sticky or
#     other-writable directory (or one another user owns) is refused, also
#     when reached through a link of the user's; links elsewhere are still
#     written through, /dev/stdout into a pipe included.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip bitmaps-hostile "python3 is absent"; exit 0; }
HELPER=$(cd "$(dirname "$0")/../helper" && pwd)
D=$TMPD/bitmaps_hostile
rm -rf "$D"
mkdir -p "$D"
export HPROFAN_INDEX_DIR=$D/index     # made with the dumps, so never stale

python3 - "$D" "$HELPER" <<'PY' || { fail bitmaps-hostile-dumps "cannot write the dumps"; exit 0; }
import sys, json
sys.path.insert(0, sys.argv[2])
from mkhprof import *
D = sys.argv[1]
PIX = bytes(range(256)) * (8 << 12)          # 8 MiB: 2048 x 1024 x 4
def dump():
    d = Dump(android=True)
    obj = d.load_class("java.lang.Object"); d.class_dump(obj)
    bmc = d.load_class("android.graphics.Bitmap")
    d.class_dump(bmc, obj, [("mBuffer", OBJECT), ("mWidth", INT), ("mHeight", INT), ("mIsPremultiplied", BOOLEAN)])
    arr = d.load_class("[Ljava/lang/Object;"); d.class_dump(arr, obj)
    d.heap_info(0x41, "app")
    return d, bmc, arr
ids = {}
# 1,000 Bitmaps, one buffer, one shape: one image
d, bmc, arr = dump()
buf = d.prim_array(BYTE, PIX)
d.root(d.obj_array(arr, [d.instance(bmc, [buf, 2048, 1024, 0]) for _ in range(1000)]))
d.write(D + "/b1k.hprof")
# 40,000 on one buffer, heights 1..1024 in turn (1,024 images, each held 39
# or 40 times); 4096x512 reads the same 8 MiB as 2048x1024 but is another
# image; buffer 2 holds buffer 1's bytes (2048x5 copies the height-5
# image); buffer 3 starts as buffer 1 and differs after its first row
# (2048x1 is a copy of the height-1 image, 2048x2 is not)
d, bmc, arr = dump()
buf = d.prim_array(BYTE, PIX)
bs = [d.instance(bmc, [buf, 2048, 1 + i % 1024, 0]) for i in range(40000)]
ids["h1"], ids["h5"] = bs[0], bs[4]
buf2 = d.prim_array(BYTE, PIX[:2048 * 5 * 4])
buf3 = d.prim_array(BYTE, PIX[:8192] + bytes(8192))
for k, v in (("wide", [buf, 4096, 512, 0]), ("b2h5", [buf2, 2048, 5, 0]),
             ("b3h1", [buf3, 2048, 1, 0]), ("b3h2", [buf3, 2048, 2, 0])):
    ids[k] = d.instance(bmc, v)
    bs.append(ids[k])
d.root(d.obj_array(arr, bs))
d.write(D + "/b40k.hprof")
# two small bitmaps for --out
d, bmc, arr = dump()
a = d.instance(bmc, [d.prim_array(BYTE, bytes([255, 0, 0, 255, 0, 255, 0, 255])), 2, 1, 0])
b = d.instance(bmc, [d.prim_array(BYTE, bytes([0, 0, 255, 255, 9, 9, 9, 9])), 2, 1, 0])
ids["a"], ids["b"] = a, b
d.root(d.obj_array(arr, [a, b]))
d.write(D + "/small.hprof")
json.dump({k: "0x%x" % v for k, v in ids.items()}, open(D + "/ids.json", "w"))
PY
bid() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$D/ids.json" "$1"; }

# cpu_run SECS OUT ERR ARGS...: hprofan ARGS, killed after SECS; prints
# "EXIT CPU" (CPU seconds, user + system, of the run)
cpu_run() {
  python3 - "$@" <<'PY'
import resource, subprocess, sys
secs, out, err, args = float(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
with open(out, "wb") as o, open(err, "wb") as e:
    p = subprocess.Popen(args, stdout=o, stderr=e)
    try:
        rc = p.wait(timeout=secs)
    except subprocess.TimeoutExpired:
        p.kill(); p.wait(); rc = "timeout"
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(rc, "%.2f" % (r.ru_utime + r.ru_stime))
PY
}
# under SECS LIMIT: 1 when the CPU seconds SECS are under LIMIT
under() { python3 -c 'import sys; print(int(float(sys.argv[1]) < float(sys.argv[2])))' "$1" "$2"; }

# ---- 1. one buffer, many bitmaps ------------------------------------------------
read -r rc cpu < <(cpu_run 60 "$D/b1k.json" "$D/b1k.err" "$HPROFAN" bitmaps "$D/b1k.hprof" --json --quiet)
expect_eq "bitmaps: 1,000 Bitmaps on one 8 MiB buffer: exit 0" "$rc" 0
T=$(python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["total"]; print(t.get("hashed_bytes"), t["with_pixels"], t["duplicate_groups"], t["duplicate_bitmaps"])' "$D/b1k.json" 2>/dev/null)
expect_eq "bitmaps: 1,000 on one buffer: the buffer hashed once (hashed_bytes, with_pixels, groups, copies)" \
  "$T" "8388608 1000 1 999"
expect_eq "bitmaps: 1,000 on one buffer: CPU $cpu s, under 1 s (hashing per Bitmap: about 10 s on a release build)" \
  "$(under "$cpu" 1)" 1

read -r rc cpu < <(cpu_run 60 "$D/b40k.json" "$D/b40k.err" "$HPROFAN" bitmaps "$D/b40k.hprof" --json --quiet)
expect_eq "bitmaps: 40,004 Bitmaps on three buffers: exit 0" "$rc" 0
T=$(python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["total"]; print(t.get("hashed_bytes"), t["bitmaps"], t["with_pixels"], t["duplicate_groups"], t["duplicate_bitmaps"])' "$D/b40k.json" 2>/dev/null)
# hashed: buffer 1 once (8 MiB), buffer 2 up to 2048x5x4, buffer 3 up to 2048x2x4
expect_eq "bitmaps: 40,004 on three buffers: each hashed once (hashed_bytes, bitmaps, with_pixels, groups, copies)" \
  "$T" "$((8388608 + 40960 + 16384)) 40004 40004 1024 38978"
expect_eq "bitmaps: 40,004 on three buffers: CPU $cpu s, under 10 s (hashing per Bitmap: about 10 minutes)" \
  "$(under "$cpu" 10)" 1
python3 - "$D/b40k.json" "$D/ids.json" <<'PY'
import json, sys
try:
    bm = {b["id"]: b for b in json.load(open(sys.argv[1]))["bitmaps"]}
except ValueError:
    bm = {}
ids = json.load(open(sys.argv[2]))
def eq(name, got, want):
    print("ok " + name if got == want else "FAIL %s: got %r, want %r" % (name, got, want))
g = lambda k: (bm[ids[k]].get("copies"), bm[ids[k]].get("duplicate_of")) if ids[k] in bm else "no JSON"
eq("bitmaps: shared buffer: 4096x512 over the same 8 MiB as 2048x1024 is another image", g("wide"), (1, None))
eq("bitmaps: shared buffer: the same bytes in another buffer are a copy (2048x5)", g("b2h5"), (41, ids["h5"]))
eq("bitmaps: shared buffer: a buffer equal over the first row only: 2048x1 a copy", g("b3h1"), (41, ids["h1"]))
eq("bitmaps: shared buffer: ... and 2048x2 not", g("b3h2"), (1, None))
eq("bitmaps: shared buffer: the height-1 image held 40 times, the first by address",
   g("h1"), (41, None))
PY

# ---- 2. bitmaps --out DIR ----------------------------------------------------------
SM=$D/small.hprof
A=$(bid a)
# one_line X ERRFILE WORDS: "yes" when stderr is one line holding WORDS
one_line() { [ "$(wc -l <"$2")" = 1 ] && grep -q -- "$3" "$2" && echo yes || echo "no: $(head -c 300 "$2")"; }
# intact FILE: "secret" while FILE still holds the line the test put there
printf 'secret\n' >"$D/secret"
intact() { if cmp -s "$1" "$D/secret"; then echo secret; else echo overwritten; fi; }
mkdir -p "$D/shared" && chmod 1777 "$D/shared"
mkdir -p "$D/private" && chmod 700 "$D/private"
for where in shared private; do
  printf 'secret\n' >"$D/victim.$where"
  ln -s "../victim.$where" "$D/$where/bitmap-$A.png"
  "$HPROFAN" bitmaps "$SM" --out "$D/$where" --quiet >/dev/null 2>"$D/out.$where.err"
  expect_eq "bitmaps --out ($where directory): a link planted at bitmap-$A.png: exit 1" "$?" 1
  expect_eq "bitmaps --out ($where directory): ... refused in one line naming the file" \
    "$(one_line x "$D/out.$where.err" "bitmap-$A.png: a symbolic link is there")" yes
  expect_eq "bitmaps --out ($where directory): ... the link's target untouched, the link kept, no temporary file" \
    "$(intact "$D/victim.$where")|$([ -L "$D/$where/bitmap-$A.png" ] && echo link)|$(find "$D/$where" -name '*.tmp.*' | wc -l)" \
    "secret|link|0"
done
"$HPROFAN" bitmaps "$SM" --out "$D/png" --quiet >/dev/null 2>"$D/png1.err"
cp "$D/png/bitmap-$A.png" "$D/first.png" 2>/dev/null
printf 'old\n' >"$D/png/bitmap-$A.png"
(umask 022 && "$HPROFAN" bitmaps "$SM" --out "$D/png" --json --quiet >"$D/png2.json" 2>"$D/png2.err")
expect_eq "bitmaps --out: a regular file from an earlier run is replaced (exit, same PNG, mode, files)" \
  "$?|$(cmp -s "$D/first.png" "$D/png/bitmap-$A.png" && echo same)|$(stat -c %a "$D/png/bitmap-$A.png")|$(find "$D/png" -type f | wc -l)" \
  "0|same|644|2"
mkdir -p "$D/real" && ln -s real "$D/dirlink"
"$HPROFAN" bitmaps "$SM" --out "$D/dirlink" --quiet >/dev/null 2>"$D/dl.err"
expect_eq "bitmaps --out LINK: a link named as DIR is followed" \
  "$?|$(find "$D/real" -name 'bitmap-*.png' -type f | wc -l)|$([ -L "$D/dirlink" ] && echo link)" "0|2|link"

# ---- 3. -o FILE --------------------------------------------------------------------
"$HPROFAN" bitmaps "$SM" --quiet >"$D/want.txt"
mkdir -p "$D/ow" && chmod 777 "$D/ow"
for where in shared ow; do
  printf 'secret\n' >"$D/victim.o.$where"
  ln -s "../victim.o.$where" "$D/$where/out.txt"
  "$HPROFAN" bitmaps "$SM" --quiet -o "$D/$where/out.txt" 2>"$D/o.$where.err"
  expect_eq "-o FILE, a link in a directory others can write ($where): refused (exit 1, one line)" \
    "$?|$(one_line x "$D/o.$where.err" "symbolic link in a directory others can write")" "1|yes"
  expect_eq "-o FILE, a link in a directory others can write ($where): its target untouched, the link kept" \
    "$(intact "$D/victim.o.$where")|$([ -L "$D/$where/out.txt" ] && echo link)|$(find "$D/$where" -name '*.tmp.*' | wc -l)" \
    "secret|link|0"
done
ln -s shared/out.txt "$D/mine.txt"
"$HPROFAN" bitmaps "$SM" --quiet -o "$D/mine.txt" 2>"$D/o.chain.err"
expect_eq "-o FILE, the user's link to a link in a sticky directory: refused, the target untouched" \
  "$?|$(one_line x "$D/o.chain.err" "leads to shared/out.txt")|$(intact "$D/victim.o.shared")" "1|yes|secret"
printf 'secret\n' >"$D/victim.redact"
ln -s ../victim.redact "$D/shared/out.hprof"
"$HPROFAN" redact "$SM" "$D/shared/out.hprof" --quiet 2>"$D/o.redact.err"
expect_eq "redact OUT, a link in a sticky directory: refused, the target untouched" \
  "$?|$(intact "$D/victim.redact")" "1|secret"
if [ "$(id -u)" = 0 ]; then
  mkdir -p "$D/theirs" && chmod 755 "$D/theirs"
  printf 'secret\n' >"$D/victim.theirs"
  ln -s ../victim.theirs "$D/theirs/out.txt"
  chown -h 65534 "$D/theirs/out.txt" "$D/theirs"
  "$HPROFAN" bitmaps "$SM" --quiet -o "$D/theirs/out.txt" 2>"$D/o.theirs.err"
  expect_eq "-o FILE, a link in another user's directory: refused, the target untouched" \
    "$?|$(intact "$D/victim.theirs")" "1|secret"
else
  skip "-o FILE, a link in another user's directory" "needs root to make one"
fi
# still written through: a link in a private directory (to a file in a
# sticky one), and /dev/stdout into a pipe (a link to a FIFO, for the kernel)
: >"$D/shared/target.txt"
ln -s shared/target.txt "$D/private.txt"
"$HPROFAN" bitmaps "$SM" --quiet -o "$D/private.txt" 2>"$D/o.priv.err"
expect_eq "-o FILE, a link in a private directory: written through, the link kept" \
  "$?|$(cmp -s "$D/shared/target.txt" "$D/want.txt" && echo same)|$([ -L "$D/private.txt" ] && echo link)" "0|same|link"
"$HPROFAN" bitmaps "$SM" --quiet -o /dev/stdout 2>"$D/o.stdout.err" | cat >"$D/o.stdout"
expect_eq "-o /dev/stdout into a pipe: written to the pipe" \
  "$(cmp -s "$D/o.stdout" "$D/want.txt" && echo same) $(head -c 200 "$D/o.stdout.err")" "same "

