/* hash.c — XXH64 and CRC-32C (hash.h); the other hashes are inline in
 * hash.h. */
#include "base/hash.h"

#include <pthread.h>
#include <string.h>
#if defined(__x86_64__)
#include <nmmintrin.h>
#elif defined(__aarch64__) && defined(__ARM_FEATURE_CRC32) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#include <arm_acle.h>
#endif

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

/* ---- CRC-32C ---------------------------------------------------------------
 * Inside, the state is the CRC inverted (what the instruction takes and
 * gives): crc = ~crc before and after. */

#define CRC32C_POLY 0x82F63B78u      /* 0x1EDC6F41 reflected */

/* crc_tab[k][b]: the CRC of byte b followed by k zero bytes (slicing by 8) */
static uint32_t crc_tab[8][256];
static pthread_once_t crc_tab_once = PTHREAD_ONCE_INIT;

static void crc_tab_make(void)
{
	for (uint32_t b = 0; b < 256; b++) {
		uint32_t c = b;
		for (int i = 0; i < 8; i++)
			c = c & 1 ? (c >> 1) ^ CRC32C_POLY : c >> 1;
		crc_tab[0][b] = c;
	}
	for (int k = 1; k < 8; k++)
		for (uint32_t b = 0; b < 256; b++)
			crc_tab[k][b] = (crc_tab[k - 1][b] >> 8) ^ crc_tab[0][crc_tab[k - 1][b] & 0xff];
}

/* the state c continued over p[0..n) with the tables */
static uint32_t crc_sw(uint32_t c, const unsigned char *p, size_t n)
{
	pthread_once(&crc_tab_once, crc_tab_make);
	for (; n >= 8; p += 8, n -= 8) {
		uint32_t lo = c ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
		c = crc_tab[7][lo & 0xff] ^ crc_tab[6][(lo >> 8) & 0xff] ^ crc_tab[5][(lo >> 16) & 0xff] ^
		    crc_tab[4][lo >> 24] ^ crc_tab[3][p[4]] ^ crc_tab[2][p[5]] ^ crc_tab[1][p[6]] ^ crc_tab[0][p[7]];
	}
	for (; n; p++, n--)
		c = (c >> 8) ^ crc_tab[0][(c ^ *p) & 0xff];
	return c;
}

static void lanes_sw(const unsigned char *p, size_t n, uint32_t crc[3])
{
	size_t L = n / 24 * 8;
	crc[0] = ~crc_sw(~0u, p, L);
	crc[1] = ~crc_sw(~0u, p + L, L);
	crc[2] = ~crc_sw(~0u, p + 2 * L, n - 2 * L);
}

uint32_t hp_crc32c_tables(uint32_t crc, const void *p, size_t n) { return ~crc_sw(~crc, p, n); }
void hp_crc32c_lanes3_tables(const void *p, size_t n, uint32_t crc[3]) { lanes_sw(p, n, crc); }

/* The instruction: x86-64's (SSE4.2, which the compiler is allowed for
 * these functions alone, asked of the processor once) or ARMv8's (when
 * the whole build may use it).  CRC64 and CRC8 continue the state over 8
 * bytes read little-endian, over one byte; x86-64's state is kept in 64
 * bits in the loops (no zero extension before each crc32). */
#if defined(__x86_64__)
#define HW_FN __attribute__((target("sse4.2")))
typedef uint64_t crc_state;
#define CRC64(c, v) _mm_crc32_u64((c), (v))
#define CRC8(c, b) _mm_crc32_u8((uint32_t)(c), (b))
#elif defined(__aarch64__) && defined(__ARM_FEATURE_CRC32) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HW_FN
typedef uint32_t crc_state;
#define CRC64(c, v) __crc32cd((c), (v))
#define CRC8(c, b) __crc32cb((c), (b))
#endif

#ifdef CRC64
static HW_FN uint32_t crc_hw(uint32_t c0, const unsigned char *p, size_t n)
{
	crc_state c = c0;
	for (; n >= 8; p += 8, n -= 8)
		c = CRC64(c, rd64(p));
	for (; n; p++, n--)
		c = CRC8(c, *p);
	return (uint32_t)c;
}

/* the three lanes in lockstep: each crc32 waits for the one before it in
 * its lane, not for the other lanes' */
static HW_FN void lanes_hw(const unsigned char *p, size_t n, uint32_t crc[3])
{
	size_t L = n / 24 * 8;
	const unsigned char *a = p, *b = p + L, *c = p + 2 * L;
	crc_state ca = ~0u, cb = ~0u, cc = ~0u;
	for (size_t i = 0; i < L; i += 8) {
		ca = CRC64(ca, rd64(a + i));
		cb = CRC64(cb, rd64(b + i));
		cc = CRC64(cc, rd64(c + i));
	}
	crc[0] = ~(uint32_t)ca;
	crc[1] = ~(uint32_t)cb;
	crc[2] = ~crc_hw((uint32_t)cc, c + L, n - 3 * L);
}

#if defined(__x86_64__)
/* 1 when the processor has SSE4.2, 0 when not, -1 until asked */
static _Atomic int have_hw = -1;
static int hw(void)
{
	int h = have_hw;
	if (h < 0)
		have_hw = h = __builtin_cpu_supports("sse4.2") ? 1 : 0;
	return h;
}
#else
static int hw(void) { return 1; }
#endif
#endif

uint32_t hp_crc32c(uint32_t crc, const void *p, size_t n)
{
#ifdef CRC64
	if (hw())
		return ~crc_hw(~crc, p, n);
#endif
	return ~crc_sw(~crc, p, n);
}

void hp_crc32c_lanes3(const void *p, size_t n, uint32_t crc[3])
{
#ifdef CRC64
	if (hw()) {
		lanes_hw(p, n, crc);
		return;
	}
#endif
	lanes_sw(p, n, crc);
}
