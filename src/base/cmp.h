/*
 * cmp.h — three-way comparisons for qsort()'s comparators: -1, 0 or 1 as
 * the first is less than, equal to or greater than the second.
 *
 * The keys are unsigned (any width up to 64 bits: a narrower one widens
 * without changing its order).  hp_cmpN_u64() compares N (key, key) pairs
 * in turn: the first pair that differs decides, the later ones break ties.
 * A key sorted largest first is passed the other way round, (b's, a's).
 * Inline and written as a comparator is by hand (one compare finds the pair
 * that differs, one more orders it), so that one built on them costs what
 * the hand-written one did.
 */
#ifndef HP_BASE_CMP_H
#define HP_BASE_CMP_H

#include <stddef.h>
#include <stdint.h>

static inline int hp_cmp_u64(uint64_t a, uint64_t b) { return (a > b) - (a < b); }

static inline int hp_cmp2_u64(uint64_t a1, uint64_t b1, uint64_t a2, uint64_t b2)
{
	if (a1 != b1)
		return a1 < b1 ? -1 : 1;
	return hp_cmp_u64(a2, b2);
}

static inline int hp_cmp3_u64(uint64_t a1, uint64_t b1, uint64_t a2, uint64_t b2, uint64_t a3, uint64_t b3)
{
	if (a1 != b1)
		return a1 < b1 ? -1 : 1;
	return hp_cmp2_u64(a2, b2, a3, b3);
}

static inline int hp_cmp4_u64(uint64_t a1, uint64_t b1, uint64_t a2, uint64_t b2, uint64_t a3, uint64_t b3,
			      uint64_t a4, uint64_t b4)
{
	if (a1 != b1)
		return a1 < b1 ? -1 : 1;
	return hp_cmp3_u64(a2, b2, a3, b3, a4, b4);
}

/* The pairs of p[0 .. n) (sorted by their first) whose first is v:
 * [*lo, *hi) (empty at where v would go when none is) */
static inline void hp_pairs_equal_range(const uint32_t (*p)[2], size_t n, uint32_t v, size_t *lo, size_t *hi)
{
	size_t a = 0, b = n;
	while (a < b) {
		size_t mid = a + (b - a) / 2;
		if (p[mid][0] < v)
			a = mid + 1;
		else
			b = mid;
	}
	for (b = a; b < n && p[b][0] == v; b++)
		;
	*lo = a;
	*hi = b;
}

#endif
