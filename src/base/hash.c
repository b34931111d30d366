/* hash.c — XXH64 (hash.h); the other hashes are inline in hash.h. */
#include "base/hash.h"

#include <string.h>

#define P1 0x9E3779B185EBCA87ull
#define P2 0xC2B2AE3D27D4EB4Full
#define P3 0x165667B19E3779F9ull
#define P4 0x85EBCA77C2B2AE63ull
#define P5 0x27D4EB2F165667C5ull

static inline uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
static inline uint64_t rd64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static inline uint32_t rd32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint64_t xround(uint64_t acc, uint64_t in) { return rotl64(acc + in * P2, 31) * P1; }
static inline uint64_t xmerge(uint64_t acc, uint64_t v) { return (acc ^ xround(0, v)) * P1 + P4; }

uint64_t hp_xxh64(const void *data, uint64_t len, uint64_t seed)
{
	const unsigned char *p = data, *end = p + len;
	uint64_t h;
	if (len >= 32) {
		uint64_t v1 = seed + P1 + P2, v2 = seed + P2, v3 = seed, v4 = seed - P1;
		const unsigned char *limit = end - 32;
		do {
			v1 = xround(v1, rd64(p));
			v2 = xround(v2, rd64(p + 8));
			v3 = xround(v3, rd64(p + 16));
			v4 = xround(v4, rd64(p + 24));
			p += 32;
		} while (p <= limit);
		h = rotl64(v1, 1) + rotl64(v2, 7) + rotl64(v3, 12) + rotl64(v4, 18);
		h = xmerge(h, v1);
		h = xmerge(h, v2);
		h = xmerge(h, v3);
		h = xmerge(h, v4);
	} else {
		h = seed + P5;
	}
	h += len;
	for (; end - p >= 8; p += 8)
		h = rotl64(h ^ xround(0, rd64(p)), 27) * P1 + P4;
	if (end - p >= 4) {
		h = rotl64(h ^ (uint64_t)rd32(p) * P1, 23) * P2 + P3;
		p += 4;
	}
	for (; p < end; p++)
		h = rotl64(h ^ *p * P5, 11) * P1;
	h ^= h >> 33;
	h *= P2;
	h ^= h >> 29;
	h *= P3;
	return h ^ (h >> 32);
}
