#!/usr/bin/env bash
# Android native sizes and bitmaps on a hand-built ART dump whose
# answers are worked out by hand below, and on the corpus's Android dumps.
#
# The dump (heap "app"; the registries in "zygote"):
#   registries R1 size 1000, R2 size 300, R3 size 0
#   Cleaners (each a JNI global; referent -> owner, thunk -> CleanerThunk -> registry)
#     C1 B1->R1  C2 B1->R2  C3 M->R2  C4 Z->R1  C5 B6->R2 (C5 of a subclass of sun.misc.Cleaner)
#     C6 W->R3 (size 0: broken)  C7 W, thunk a Holder (broken)  C8 no referent (broken)
#   H (Holder, JNI global) .a X .b Y;  X .a B1 .b B6;  Y .a M .b B1;  Z and W unreachable
# By hand:
#   native: B1 1,300  M 300  Z 1,000  B6 300; total 2,900; 5 chains read, 3 broken, 4 owners
#   dominators: H <- X, Y, B1 (two holders); X <- B6; Y <- M
#   retained native: H 1,900  X 300  Y 300  B1 1,300  B6 300  M 300  Z 0; held by roots 1,900
#   rows: Bitmap native 1,600 retained 1,600; Matrix native 1,300 retained 300 (Z unreachable);
#         Holder native 0 retained 1,900 (H alone: X and Y are below it)
# Bitmaps (each held by the root Object[]; B1 by H as above):
#   B1 3x2 ARGB_8888 not premultiplied, B2 the same pixels (a copy of B1),
#   B3 2x2 RGB_565, B4 3x1 ALPHA_8, B5 1x2 ARGB_8888 premultiplied,
#   B6 100x100 without mBuffer (pixel bytes: its native size 300),
#   B7 100000x100000 with a 16-byte buffer and B8 -3x2: no format, no PNG
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip native "python3 is absent"; exit 0; }
HELPER=$(cd "$(dirname "$0")/../helper" && pwd)
D=$TMPD/native
mkdir -p "$D"

python3 - "$D" "$HELPER" <<'PY' || { fail native-dump "cannot write the dump"; exit 0; }
import sys, json, struct
sys.path.insert(0, sys.argv[2])
from mkhprof import *
D = sys.argv[1]
d = Dump(android=True)
def cls(name, super_id=0, fields=()):
    c = d.load_class(name); d.class_dump(c, super_id=super_id, fields=fields); return c
d.heap_info(0x5A, "zygote")
obj = cls("java.lang.Object")
ref = cls("java.lang.ref.Reference", obj, [("referent", OBJECT)])
phr = cls("java.lang.ref.PhantomReference", ref)
cln = cls("sun.misc.Cleaner", phr, [("thunk", OBJECT), ("next", OBJECT)])
nar = cls("libcore.util.NativeAllocationRegistry", obj, [("freeFunction", LONG), ("size", LONG)])
thk = cls("libcore.util.NativeAllocationRegistry$CleanerThunk", obj, [("nativePtr", LONG), ("this$0", OBJECT)])
bmc = cls("android.graphics.Bitmap", obj, [("mBuffer", OBJECT), ("mWidth", INT), ("mHeight", INT),
                                          ("mIsPremultiplied", BOOLEAN), ("mNativePtr", LONG)])
mat = cls("android.graphics.Matrix", obj, [("native_instance", LONG)])
hol = cls("app.Holder", obj, [("a", OBJECT), ("b", OBJECT)])
arr = d.load_class("[Ljava/lang/Object;"); d.class_dump(arr, obj)
R1 = d.instance(nar, [7, 1000]); R2 = d.instance(nar, [7, 300]); R3 = d.instance(nar, [7, 0])
d.heap_info(0x41, "app")
def bitmap(w, h, px, premul=0):
    buf = d.prim_array(BYTE, bytes(px)) if px is not None else 0
    return d.instance(bmc, [buf, w, h, premul, 0x1234])
p1 = [255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 10, 20, 30, 40, 0, 0, 0, 0, 200, 100, 50, 255]
B1 = bitmap(3, 2, p1)
B2 = bitmap(3, 2, p1)
B3 = bitmap(2, 2, b"".join(struct.pack("<H", v) for v in (0xF800, 0x07E0, 0x001F, 0x8410)))
B4 = bitmap(3, 1, [0, 128, 255])
B5 = bitmap(1, 2, [64, 32, 0, 128, 0, 0, 0, 0], premul=1)
B6 = bitmap(100, 100, None)
B7 = bitmap(100000, 100000, bytes(16))   # far more pixels than its buffer: no format, no PNG
B8 = bitmap(0xFFFFFFFD, 2, bytes(24))    # width -3
M = d.instance(mat, [5]); Z = d.instance(mat, [6]); W = d.instance(mat, [7])
X = d.instance(hol, [B1, B6]); Y = d.instance(hol, [M, B1]); H = d.instance(hol, [X, Y])
Q = d.instance(hol, [0, 0])
sub = cls("app.SubCleaner", cln)   # a subclass of sun.misc.Cleaner counts as one
def cleaner(referent, registry=None, thunk=None, k=cln):
    if thunk is None:
        thunk = d.instance(thk, [99, registry])
    c = d.instance(k, [thunk, 0, referent], types=d.layout(k))
    d.root(c)
    return c
C = [cleaner(B1, R1), cleaner(B1, R2), cleaner(M, R2), cleaner(Z, R1), cleaner(B6, R2, k=sub),
     cleaner(W, R3), cleaner(W, thunk=Q), cleaner(0, R1)]
d.root(H)
d.root(d.obj_array(arr, [B2, B3, B4, B5, B7, B8]))
d.write(D + "/a.hprof")
ids = dict(H=H, X=X, Y=Y, M=M, Z=Z, W=W, B1=B1, B2=B2, B3=B3, B4=B4, B5=B5, B6=B6, B7=B7, B8=B8, C1=C[0])
json.dump({k: "0x%x" % v for k, v in ids.items()}, open(D + "/ids.json", "w"))
PY

A=$D/a.hprof
id() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$D/ids.json" "$1"; }
HP() { "$HPROFAN" "$@"; }
HP top "$A" --top 0 --json --quiet >"$D/top.json" 2>"$D/top.err" || fail native-top "exit $?: $(head -c 300 "$D/top.err")"
HP top "$A" --top 0 >"$D/top.txt" 2>"$D/top.txt.err" || fail native-top-text "exit $?"
HP dominators "$A" --top 0 --depth 5 --json --quiet >"$D/dom.json" 2>"$D/dom.err" || fail native-dom "exit $?: $(head -c 300 "$D/dom.err")"
HP dominators "$A" --top 0 --depth 5 >"$D/dom.txt" 2>/dev/null || fail native-dom-text "exit $?"
for k in H X Y M Z B1 B6; do
  HP object "$A" "$(id $k)" --json --quiet >"$D/obj.$k.json" 2>"$D/obj.$k.err" || fail "native-object-$k" "exit $?: $(head -c 300 "$D/obj.$k.err")"
done
HP object "$A" "$(id H)" >"$D/obj.H.txt" 2>/dev/null
HP info "$A" --json --quiet >"$D/info.json" 2>"$D/info.err" || fail native-info "exit $?: $(head -c 300 "$D/info.err")"
HP bitmaps "$A" --json --out "$D/png" --quiet >"$D/bm.json" 2>"$D/bm.err" || fail native-bitmaps "exit $?: $(head -c 300 "$D/bm.err")"
HP bitmaps "$A" >"$D/bm.txt" 2>"$D/bm.txt.err" || fail native-bitmaps-text "exit $?: $(head -c 300 "$D/bm.txt.err")"

python3 - "$D" <<'PY'
import json, sys, struct, zlib, os
D = sys.argv[1]
ids = json.load(open(D + "/ids.json"))
name = {v: k for k, v in ids.items()}
def load(n):
    try:
        return json.load(open("%s/%s" % (D, n)))
    except Exception as e:
        print("FAIL native read %s: %s" % (n, e)); return None
def eq(label, got, want):
    print(("ok native %s" % label) if got == want else "FAIL native %s: got %r, want %r" % (label, got, want))

# objects
want = {"H": (0, 1900), "X": (0, 300), "Y": (0, 300), "M": (300, 300), "Z": (1000, 0), "B1": (1300, 1300), "B6": (300, 300)}
for k, w in want.items():
    o = load("obj.%s.json" % k)
    if o:
        eq("object %s: (native, retained_native)" % k, (o["object"].get("native"), o["object"].get("retained_native")), w)
o = load("obj.H.json")
if o:
    eq("object: native summary", {k: o["native"].get(k) for k in ("total", "cleaners", "registered", "owners", "reachable")},
       {"total": 2900, "cleaners": 8, "registered": 5, "owners": 4, "reachable": 1900})
    eq("object: Java sizes unchanged by native (retained of H = its subtree's shallow sizes)",
       o["object"]["retained"] < 1000, True)
eq("object text: native line", any(l.split() == ["native", "0", "B", "registered,", "1.86", "KiB", "retained"]
                                  for l in open(D + "/obj.H.txt")), True)

# top rows
t = load("top.json")
if t:
    rows = {(c["class"], c.get("heap")): (c.get("native"), c.get("retained_native")) for c in t["classes"]}
    eq("top: Bitmap row", rows.get(("android.graphics.Bitmap", "app")), (1600, 1600))
    eq("top: Matrix row", rows.get(("android.graphics.Matrix", "app")), (1300, 300))
    eq("top: Holder row", rows.get(("app.Holder", "app")), (0, 1900))
    eq("top: native total", t["total"].get("native"), 2900)
    eq("top: native never in the Java sizes (shallow = heap_shallow, rows sum)",
       sum(c["shallow"] for c in t["classes"]), t["total"]["heap_shallow"])
    split = {s["heap"]: s for s in t.get("heap_split", [])}
    eq("top: heap split native (app, zygote)", (split.get("app", {}).get("native"), split.get("zygote", {}).get("native")), (2900, 0))
    eq("top: heap split held native", split.get("app", {}).get("held_native"), 1900)
    eq("top: heap split Java adds up to the heap", sum(s["java"] for s in split.values()), t["total"]["heap_shallow"])
    eq("top: heap split held Java = reachable shallow", sum(s["held_java"] for s in split.values()), t["total"]["reachable_shallow"])
tt = open(D + "/top.txt").read()
eq("top text: native columns", "native ret" in tt.splitlines()[0], True)
eq("top text: heap lines", "heap app: Java" in tt and "native 2.83 KiB" in tt, True)

# dominators: walk the tree
dm = load("dom.json")
if dm:
    got = {}
    st = list(dm["dominators"])
    while st:
        e = st.pop()
        if "id" in e and e["id"] in name:
            got[name[e["id"]]] = (e.get("native"), e.get("retained_native"))
        st.extend(e.get("children", []))
    eq("dominators: native per node", {k: got.get(k) for k in ("H", "X", "Y", "M", "B1", "B6")},
       {"H": (0, 1900), "X": (0, 300), "Y": (0, 300), "M": (300, 300), "B1": (1300, 1300), "B6": (300, 300)})
    eq("dominators: total native", (dm["total"].get("native"), dm["total"].get("reachable_native")), (2900, 1900))
eq("dominators text: native columns", "native ret" in open(D + "/dom.txt").readline(), True)

inf = load("info.json")
if inf:
    hs = {h["name"]: h for h in inf["heaps"]}
    eq("info: heap app native / held native", (hs["app"].get("native"), hs["app"].get("held_native")), (2900, 1900))

# bitmaps
bm = load("bm.json")
def png_pixels(path):
    b = open(path, "rb").read()
    assert b[:8] == b"\x89PNG\r\n\x1a\n"
    i, idat, ihdr = 8, b"", None
    while i < len(b):
        n, = struct.unpack(">I", b[i:i + 4]); t = b[i + 4:i + 8]; data = b[i + 8:i + 8 + n]
        crc, = struct.unpack(">I", b[i + 8 + n:i + 12 + n])
        assert zlib.crc32(t + data) & 0xffffffff == crc, "bad CRC"
        if t == b"IHDR": ihdr = struct.unpack(">IIBBBBB", data)
        if t == b"IDAT": idat += data
        i += 12 + n
    w, h, depth, ctype = ihdr[:4]
    assert (depth, ctype) == (8, 6)
    raw = zlib.decompress(idat)
    stride = w * 4
    out, prev = [], bytes(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]; line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - 4] if x >= 4 else 0; up = prev[x]; c = prev[x - 4] if x >= 4 else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + up) & 255
            elif f == 3: line[x] = (line[x] + (a + up) // 2) & 255
            elif f == 4:
                p = a + up - c; pa, pb, pc = abs(p - a), abs(p - up), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else up if pb <= pc else c)) & 255
        out.append(bytes(line)); prev = bytes(line)
    return w, h, b"".join(out)
if bm:
    by = {name.get(b["id"]): b for b in bm["bitmaps"]}
    eq("bitmaps: all eight found", sorted(k for k in by if k), ["B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8"])
    eq("bitmaps: B7 (buffer too small) and B8 (width -3): format unknown, no pixels",
       [(by[k]["config"], by[k]["pixel_bytes"], by[k]["pixels_in_dump"]) for k in ("B7", "B8")],
       [("unknown", 16, False), ("unknown", 24, False)])
    eq("bitmaps: B1 3x2 ARGB_8888 from its buffer",
       (by["B1"]["width"], by["B1"]["height"], by["B1"]["config"], by["B1"]["pixel_bytes"], by["B1"]["source"]),
       (3, 2, "ARGB_8888", 24, "buffer"))
    eq("bitmaps: configs of B3 B4 B5", [by[k]["config"] for k in ("B3", "B4", "B5")], ["RGB_565", "ALPHA_8", "ARGB_8888"])
    eq("bitmaps: B6 pixel bytes from its native size", (by["B6"]["pixel_bytes"], by["B6"]["source"], by["B6"]["pixels_in_dump"]),
       (300, "native", False))
    eq("bitmaps: B2 is a copy of B1", (by["B2"].get("duplicate_of"), by["B2"]["copies"], by["B1"]["copies"]), (ids["B1"], 2, 2))
    eq("bitmaps: no other duplicates", [k for k in ("B3", "B4", "B5") if by[k]["copies"] != 1], [])
    eq("bitmaps: totals", {k: bm["total"][k] for k in ("bitmaps", "with_pixels", "duplicate_groups", "duplicate_bitmaps", "duplicate_bytes", "png_written")},
       {"bitmaps": 8, "with_pixels": 5, "duplicate_groups": 1, "duplicate_bitmaps": 1, "duplicate_bytes": 24, "png_written": 5})
    p1 = bytes([255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 10, 20, 30, 40, 0, 0, 0, 0, 200, 100, 50, 255])
    # RGB_565 by hand: F800 red, 07E0 green, 001F blue, 8410 = r 16 g 32 b 16 -> 132, 130, 132
    want = {"B1": (3, 2, p1), "B2": (3, 2, p1),
            "B3": (2, 2, bytes([255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 132, 130, 132, 255])),
            "B4": (3, 1, bytes([0, 0, 0, 0, 0, 0, 0, 128, 0, 0, 0, 255])),
            # premultiplied (64, 32, 0, 128): 64*255/128 = 127.5 -> 128, 32*255/128 = 63.75 -> 64
            "B5": (1, 2, bytes([128, 64, 0, 128, 0, 0, 0, 0]))}
    for k, w in want.items():
        path = "%s/png/bitmap-%s.png" % (D, ids[k])
        try:
            eq("bitmaps: PNG of %s decodes to its pixels" % k, png_pixels(path), w)
        except Exception as e:
            print("FAIL native bitmaps: PNG of %s: %s" % (k, e))
    eq("bitmaps: no PNG for B6 (pixels not in the dump), no temporary file left",
       sorted(os.listdir(D + "/png")), sorted("bitmap-%s.png" % ids[k] for k in want))
txt = open(D + "/bm.txt").read()
eq("bitmaps text: copy named", "(copy of @%s)" % ids["B1"] in txt, True)
PY

# the same dump gzipped (the object reader streams it): the same answers
gzip -c "$A" >"$D/a.hprof.gz"
HP bitmaps "$D/a.hprof.gz" --json --out "$D/pngz" --quiet >"$D/bmz.json" 2>"$D/bmz.err" || fail native-gzip "exit $?: $(head -c 300 "$D/bmz.err")"
HP top "$D/a.hprof.gz" --top 0 --json --quiet >"$D/topz.json" 2>/dev/null || fail native-gzip-top "exit $?"
python3 - "$D" <<'PY'
import json, sys, os
D = sys.argv[1]
a, b = json.load(open(D + "/bm.json")), json.load(open(D + "/bmz.json"))
strip = lambda d: [{k: v for k, v in x.items() if k != "png"} for x in d["bitmaps"]]
ok = strip(a) == strip(b) and a["total"] == b["total"] and \
     all(open(D + "/png/" + f, "rb").read() == open(D + "/pngz/" + f, "rb").read() for f in os.listdir(D + "/png"))
print(("ok" if ok else "FAIL") + " native gzip: the same bitmaps and PNG files")
t, tz = json.load(open(D + "/top.json")), json.load(open(D + "/topz.json"))
print(("ok" if t["classes"] == tz["classes"] and t["native"] == tz["native"] else "FAIL") + " native gzip: the same top rows and native sizes")
PY

# the note: an Android dump without native sizes says why once; the
# columns are not shown there
if have_corpus native-corpus; then
  for f in "$CORPUS"/tadfisher__platform_tools_base/dialer.android-hprof "$CORPUS"/tadfisher__platform_tools_base/dialer.hprof-conv.hprof; do
    b=$(basename "$f")
    HP bitmaps "$f" --json >"$D/c.$b.json" 2>"$D/c.$b.err"
    rc=$?
    expect_eq "native bitmaps runs on $b" "$rc" 0
    python3 - "$D/c.$b.json" "$CORPUS/expected/tadfisher__platform_tools_base_dialer.hprof-conv.hprof.vvm.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
b = d["bitmaps"]
# VisualVM's count of android.graphics.Bitmap instances in the converted dump
want = next(c["instances"] for c in json.load(open(sys.argv[2]))["classes"] if c["name"] == "android.graphics.Bitmap")
# KitKat keeps pixels in mBuffer: every bitmap's pixel bytes are 4 x width x height
ok = all(x["source"] == "buffer" and x["pixel_bytes"] == 4 * x["width"] * x["height"] and x["pixels_in_dump"] for x in b)
print(("ok" if len(b) == want and ok else "FAIL") +
      " native corpus: %d bitmaps as VisualVM counts, ARGB_8888 buffers of 4 x w x h bytes (got %d)" % (want, len(b)))
PY
  done
  A2=$CORPUS/tadfisher__platform_tools_base/dialer.android-hprof
  HP top "$A2" --top 3 >"$D/d.top" 2>"$D/d.top.err"
  expect_eq "native dialer: the reason printed once" "$(grep -c 'no native sizes: the dump has no libcore.util.NativeAllocationRegistry' "$D/d.top.err")" 1
  expect_eq "native dialer: no native column" "$(head -n 1 "$D/d.top" | grep -c native)" 0
  HP top "$A2" --top 3 --json >"$D/d.json" 2>/dev/null
  expect_eq "native dialer: JSON native total 0 and the reason" \
    "$(jget "$D/d.json" "(d['native']['total'], 'native' in d['classes'][0], bool(d['native']['none_because']))")" "(0, False, True)"
  HP top "$A2" --top 3 --quiet >/dev/null 2>"$D/d.q.err"
  expect_eq "native dialer: --quiet says nothing" "$(wc -c <"$D/d.q.err" | tr -d ' ')" 0
fi
