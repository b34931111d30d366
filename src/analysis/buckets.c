/* buckets.c — objects by size bucket per histogram row (buckets.h). */
#include "analysis/buckets.h"

#include <string.h>

void hp_buckets_collect(const hp_heap *h, struct hp_bucket_row *out)
{
	memset(out, 0, h->nrows * sizeof *out);
	for (size_t v = 0; v < h->nobj; v++) {
		uint32_t r = hp_heap_row_of(h, h->cls[v], hp_heap_heap(h, v));
		if (r == HP_NONE)
			continue;
		uint64_t s = hp_heap_shallow(h, v);
		unsigned k = hp_bucket_of(s);
		out[r].count[k]++;
		out[r].bytes[k] += s;
	}
}
