/*
 * hash.h — the hashes every layer uses; none of them is a cryptographic
 * hash, and none is keyed (what they find is damage and equal names, not
 * what someone made on purpose).
 *
 *   FNV-1a (64-bit): names and texts, a byte at a time, so that a caller
 *   can take the hash of every prefix on one pass (hp_fnv1a_byte()) or
 *   feed a long buffer in pieces (hp_fnv1a(): the state is the hash so
 *   far, HP_FNV1A_INIT to begin).
 *   hp_fmix64(): MurmurHash3's 64-bit finaliser, which spreads every bit of
 *   its input over the output (FNV-1a's high bits are weak alone).
 *   hp_xxh64(): Yann Collet's XXH64, 8 bytes a step (several GB/s; the
 *   index sums its blocks' CRCs and a section's block sums with it).  Words
 *   are read in the host's byte order, so a sum is only compared with one
 *   made on the same kind of machine.
 *   hp_crc32c(): CRC-32C (Castagnoli: reflected, polynomial 0x82F63B78,
 *   the iSCSI and ext4 one), with the processor's instruction where there
 *   is one (x86-64's SSE4.2 crc32, decided once at run time; ARMv8's
 *   crc32c when the compiler may use it), else tables, 8 bytes a step
 *   (slicing by 8): the same values either way.  hp_crc32c_lanes3(), the
 *   CRCs of the index's block sums: three lanes of a block side by side,
 *   since one crc32 instruction takes 3 cycles and the processor
 *   starts one a cycle (13.7 GB/s from memory, 20.4 GB/s in cache on the
 *   bench machine, where XXH64 does 7.2 and 10.1).  CRC-32C finds every
 *   burst of errors up to 32 bits long and every error of up to 3 bits in
 *   up to about 2^31 bits; it misses other damage with probability 2^-32.
 *
 * All are pure functions of their input: the same bytes give the same
 * hash in every run.
 */
#ifndef HP_BASE_HASH_H
#define HP_BASE_HASH_H

#include <stddef.h>
#include <stdint.h>

#define HP_FNV1A_INIT 0xcbf29ce484222325ull
#define HP_FNV1A_PRIME 0x100000001b3ull

static inline uint64_t hp_fnv1a_byte(uint64_t h, unsigned char c) { return (h ^ c) * HP_FNV1A_PRIME; }

/* h continued over p[0..n) */
static inline uint64_t hp_fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * HP_FNV1A_PRIME;
	return h;
}

/* h continued over the string s (its terminator excluded) */
static inline uint64_t hp_fnv1a_str(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * HP_FNV1A_PRIME;
	return h;
}

static inline uint64_t hp_fmix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

uint64_t hp_xxh64(const void *data, uint64_t len, uint64_t seed);

/* the CRC-32C of the n bytes at p continued from crc, the CRC-32C of the
 * bytes before them (0 to begin: zlib's crc32() convention, the inversions
 * before and after inside); "123456789" gives 0xE3069283 */
uint32_t hp_crc32c(uint32_t crc, const void *p, size_t n);

/* the CRC-32C (from 0) of each of the three lanes of the n bytes at p:
 * with L = n / 24 * 8, crc[0] of bytes [0, L), crc[1] of [L, 2L), crc[2]
 * of [2L, n) (the longest: n - 3L more bytes, fewer than 24); the lanes
 * are computed 8 bytes at a time in lockstep */
void hp_crc32c_lanes3(const void *p, size_t n, uint32_t crc[3]);

/* the same two computed with the tables whatever the processor has (for
 * the tests, which compare them with the instruction's) */
uint32_t hp_crc32c_tables(uint32_t crc, const void *p, size_t n);
void hp_crc32c_lanes3_tables(const void *p, size_t n, uint32_t crc[3]);

#endif
