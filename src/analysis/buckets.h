/*
 * buckets.h — how each histogram row's objects spread over size buckets:
 * powers of two of their shallow size under the size model, <= 16 B,
 * <= 32 B, ... <= 1 MiB, then > 1 MiB (HP_NBUCKETS in all).
 *
 * One pass over the object table (hp_heap_shallow() per object; class
 * objects counted in java.lang.Class's row, as the histogram does), so the
 * bucket sums of a row are its count and shallow bytes.  Memory: per
 * histogram row 2 x HP_NBUCKETS counters (288 bytes); nothing per object.
 */
#ifndef HP_BUCKETS_H
#define HP_BUCKETS_H

#include <stdint.h>
#include "model/heap.h"

#define HP_NBUCKETS 18            /* 16 B << 0 .. 16 B << 16 (1 MiB), then more */

struct hp_bucket_row {
	uint64_t count[HP_NBUCKETS];
	uint64_t bytes[HP_NBUCKETS];
};

/* the bucket of a shallow size: 0 for <= 16, k for <= 16 << k, HP_NBUCKETS - 1 above 1 MiB */
static inline unsigned hp_bucket_of(uint64_t size)
{
	unsigned k = 0;
	while (k < HP_NBUCKETS - 1 && size > (16ull << k))
		k++;
	return k;
}

/* out[row] for each of h->nrows rows (caller allocates, zeroed here); the
 * heap must have its object table */
void hp_buckets_collect(const hp_heap *h, struct hp_bucket_row *out);

#endif
