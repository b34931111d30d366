"""pngcolours.py — how many colours a PNG shows (RGB or RGBA, 8 bits), as
the screenshot checks count them (tests/cli/report.sh, serve.py): every
seventh pixel of each row, the filters undone with zlib alone; stops once
`enough` are seen.  python3 pngcolours.py FILE [ENOUGH] prints the count."""
import struct
import sys
import zlib


def colours(b, enough=300):
    assert b[:8] == b"\x89PNG\r\n\x1a\n"
    i, idat, w, bpp = 8, b"", 0, 3
    while i < len(b):
        n, t = struct.unpack(">I4s", b[i:i + 8]); c = b[i + 8:i + 8 + n]; i += 12 + n
        if t == b"IHDR": w, _, _, ctype = struct.unpack(">IIBB", c[:10]); bpp = {2: 3, 6: 4}[ctype]
        elif t == b"IDAT": idat += c
    raw = zlib.decompress(idat); stride = w * bpp; prev = bytearray(stride); seen = set(); o = 0
    while o < len(raw):
        f = raw[o]; line = bytearray(raw[o + 1:o + 1 + stride]); o += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0; up = prev[x]; ul = prev[x - bpp] if x >= bpp else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + up) & 255
            elif f == 3: line[x] = (line[x] + (a + up) // 2) & 255
            elif f == 4:
                pa, pb, pc = abs(up - ul), abs(a - ul), abs(a + up - 2 * ul)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else up if pb <= pc else ul)) & 255
        for x in range(0, stride, bpp * 7):
            seen.add(bytes(line[x:x + 3]))
        prev = line
        if len(seen) >= enough:
            break
    return len(seen)


if __name__ == "__main__":
    print(colours(open(sys.argv[1], "rb").read(), int(sys.argv[2]) if len(sys.argv) > 2 else 300))
