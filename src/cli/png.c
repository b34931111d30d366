/* png.c — a PNG writer for 8-bit RGBA images on zlib (PNG 1.2: one IHDR,
 * one IDAT holding every row with filter type 0, IEND). */
#include "cli/png.h"
#include "base/alloc.h"

#include <string.h>
#include <zlib.h>

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* a chunk of n data bytes at p + 8 (already there): length, type, CRC */
static size_t chunk(uint8_t *p, const char *type, size_t n)
{
	put32(p, (uint32_t)n);
	memcpy(p + 4, type, 4);
	uLong crc = crc32(0L, p + 4, (uInt)(4 + n));
	put32(p + 8 + n, (uint32_t)crc);
	return 12 + n;
}

int cli_png_encode(uint32_t w, uint32_t h, const uint8_t *rgba, uint8_t **out, size_t *len)
{
	*out = NULL;
	*len = 0;
	if (!w || !h || w > 0x7fffffff / 4 || h > 0x7fffffff)
		return -1;
	uint64_t row = (uint64_t)w * 4 + 1;
	uint64_t raw_len = row * h;
	if (raw_len > (uint64_t)UINT32_MAX)
		return -1;        /* one IDAT chunk of at most 4 GiB */
	uint8_t *raw = hp_malloc((size_t)raw_len);
	if (!raw)
		return -2;
	for (uint32_t y = 0; y < h; y++) {
		raw[y * row] = 0;
		memcpy(raw + y * row + 1, rgba + (uint64_t)y * w * 4, (size_t)w * 4);
	}
	uLong zcap = compressBound((uLong)raw_len);
	if ((uint64_t)zcap > UINT32_MAX - 64) {
		hp_free(raw);
		return -1;
	}
	size_t cap = 8 + 25 + 12 + (size_t)zcap + 12;
	uint8_t *b = hp_malloc(cap);
	if (!b) {
		hp_free(raw);
		return -2;
	}
	static const uint8_t sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	memcpy(b, sig, 8);
	size_t at = 8;
	uint8_t *p = b + at + 8;
	put32(p, w);
	put32(p + 4, h);
	p[8] = 8;     /* bit depth */
	p[9] = 6;     /* colour type: RGBA */
	p[10] = p[11] = p[12] = 0;   /* deflate, adaptive filtering, no interlace */
	at += chunk(b + at, "IHDR", 13);
	uLongf zlen = zcap;
	int zrc = compress2(b + at + 8, &zlen, raw, (uLong)raw_len, 6);
	hp_free(raw);
	if (zrc != Z_OK) {
		hp_free(b);
		return zrc == Z_MEM_ERROR ? -2 : -1;
	}
	at += chunk(b + at, "IDAT", zlen);
	at += chunk(b + at, "IEND", 0);
	*out = b;
	*len = at;
	return 0;
}
