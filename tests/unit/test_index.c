/*
 * test_index.c — the section sum of the index (docs/index-format.md):
 * XXH64 of each 1 MiB block, then XXH64 (seed: the length) of the blocks'
 * sums.  The expected values were computed with the xxHash library itself
 * (libxxhash 0.8.1, XXH64(), through Python's ctypes), not with this code:
 *
 *   def data(n): return bytes(((i * 131 + (i >> 11) * 7 + 3) & 0xff) for i in range(n))
 *   blocks = b''.join(struct.pack('<Q', XXH64(d[o:o + B], 0)) for o in range(0, n, B))
 *   want = XXH64(blocks, n)
 *
 * on lengths that cover the empty input, XXH64's short paths (< 4, < 32
 * bytes), its 32-byte stripes, one block, its edges and several blocks.
 */
#include "analysis/index.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int passed, failed;
#define CHECK(cond, ...) do { if (cond) passed++; else { failed++; printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } } while (0)

static const struct { uint64_t n, want; } cases[] = {
	{ 0, 0xef46db3751d8e999ull },   /* XXH64 of nothing, seed 0 */
	{ 3, 0x38c7f594e5fc3b16ull },
	{ 31, 0x09c0de1432272592ull },
	{ 32, 0xbb5d7408116cc2c0ull },
	{ 100, 0x29537e1d7ead9656ull },
	{ 1048575, 0x3f070234cc6440f2ull },
	{ 1048576, 0x403c884b1bfa2971ull },
	{ 1048581, 0xd20d294c3262fe94ull },
	{ 3145745, 0x3e949905996ff96cull },
};

int main(void)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	printf("skip: the expected sums read words little-endian\n");
	printf("0 passed, 0 failed\n");
	return 0;
#endif
	uint64_t max = 3145745;
	unsigned char *d = malloc(max);
	if (!d)
		return 1;
	for (uint64_t i = 0; i < max; i++)
		d[i] = (unsigned char)((i * 131 + (i >> 11) * 7 + 3) & 0xff);
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		uint64_t got = hp_index_section_sum(d, cases[k].n);
		CHECK(got == cases[k].want, "%llu bytes: sum %016llx, xxHash gives %016llx", (unsigned long long)cases[k].n,
		      (unsigned long long)got, (unsigned long long)cases[k].want);
	}
	/* a byte flipped anywhere (each block, its first and last byte) changes it */
	uint64_t n = 3145745, base = hp_index_section_sum(d, n);
	const uint64_t at[] = { 0, 1048575, 1048576, 2097151 + 77, n - 1 };
	for (size_t k = 0; k < sizeof at / sizeof at[0]; k++) {
		d[at[k]] ^= 0x10;
		CHECK(hp_index_section_sum(d, n) != base, "byte %llu flipped: same sum", (unsigned long long)at[k]);
		d[at[k]] ^= 0x10;
	}
	CHECK(hp_index_section_sum(d, n) == base, "sum not repeatable");
	free(d);
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
