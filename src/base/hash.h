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
 *   hp_xxh64(): Yann Collet's XXH64, 8 bytes a step (the index's section
 *   sums: several GB/s).  Words are read in the host's byte order, so a sum
 *   is only compared with one made on the same kind of machine.
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

#endif
