/* idsort.c — the object table sorted by id, each column following its
 * id, and the id index over it (hp_heap_find()): after the parse, when
 * the model has an object table (finish.c). */
#include "model/heap.h"
#include "model/build.h"
#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>

static int is_sorted(const uint64_t *a, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (a[i] < a[i - 1])
			return 0;
	return 1;
}

/* LSD radix sort of the ids in place, 11 bits a pass (2,048 buckets keep the
 * scatter inside the TLB), carrying each id's original position so the other
 * columns can follow; digits that are the same in every id are skipped, so a
 * heap spanning a few GiB takes three passes.  Temporary memory: 16 bytes per
 * object (a second id buffer and two position buffers). */

static int radix_sort_ids(uint64_t *ids, size_t n, uint32_t **out)
{
	uint64_t *k2 = hp_reallocarray(NULL, n, sizeof *k2);
	uint32_t *a = hp_reallocarray(NULL, n, sizeof *a);
	uint32_t *b = hp_reallocarray(NULL, n, sizeof *b);
	size_t *cnt = hp_calloc(RADIX_N, sizeof *cnt);
	if (!k2 || !a || !b || !cnt) {
		hp_free_all(k2, a, b, cnt);
		return HP_ENOMEM;
	}
	uint64_t diff = 0;
	for (size_t i = 0; i < n; i++) {
		a[i] = (uint32_t)i;
		diff |= ids[i] ^ ids[0];
	}
	uint64_t *src = ids, *dst = k2;
	for (unsigned shift = 0; shift < 64; shift += RADIX_BITS) {
		if (!((diff >> shift) & (RADIX_N - 1)))
			continue;
		memset(cnt, 0, RADIX_N * sizeof *cnt);
		for (size_t i = 0; i < n; i++)
			cnt[(src[i] >> shift) & (RADIX_N - 1)]++;
		size_t sum = 0;
		for (size_t d = 0; d < RADIX_N; d++) {
			size_t t = cnt[d];
			cnt[d] = sum;
			sum += t;
		}
		for (size_t i = 0; i < n; i++) {
			size_t at = cnt[(src[i] >> shift) & (RADIX_N - 1)]++;
			dst[at] = src[i];
			b[at] = a[i];
		}
		uint64_t *tk = src;
		src = dst;
		dst = tk;
		uint32_t *tp = a;
		a = b;
		b = tp;
	}
	if (src != ids)
		memcpy(ids, src, n * sizeof *ids);
	hp_free(k2);
	hp_free(b);
	hp_free(cnt);
	*out = a;
	return HP_OK;
}

#define PERMUTE(type, arr) do { \
	type *np_ = hp_reallocarray(NULL, n, sizeof *np_); \
	if (!np_) { hp_free(perm); return HP_ENOMEM; } \
	for (size_t i_ = 0; i_ < n; i_++) np_[i_] = (arr)[perm[i_]]; \
	hp_free(arr); (arr) = np_; } while (0)

struct run { uint64_t first, last; size_t start, len; };

#define LONG_RUN 256
#define LONG_MERGE 64       /* overlapping runs merge_runs() takes at most */

static int by_first(const void *a, const void *b)
{
	const struct run *x = a, *y = b;
	return x->first < y->first ? -1 : x->first > y->first;
}

struct idpos { uint64_t id; uint32_t pos; };

static int by_id(const void *a, const void *b)
{
	const struct idpos *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int by_id_pos(const void *a, const void *b)
{
	const struct idpos *x = a, *y = b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* the head of sequence q of merge_runs(): runs 0..nruns-1, the strays nruns */
struct mhead { uint64_t id; uint32_t pos, q; size_t at, end; };

static int mhead_less(const struct mhead *a, const struct mhead *b)
{
	return a->id != b->id ? a->id < b->id : a->pos < b->pos;
}

static void mheap_down(struct mhead *hp, size_t k, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		if (l < k && mhead_less(&hp[l], &hp[m]))
			m = l;
		if (l + 1 < k && mhead_less(&hp[l + 1], &hp[m]))
			m = l + 1;
		if (m == i)
			return;
		struct mhead t = hp[i];
		hp[i] = hp[m];
		hp[m] = t;
		i = m;
	}
}

/* Runs whose ranges overlap (a JDK 17 dump of a G1 heap has two): a merge
 * of the runs and the sorted strays through a heap of their heads, by id
 * and then file position, which is the order the stable radix sort gives,
 * duplicate ids included; O(n log k) for k runs, and a run is followed
 * without touching the heap while its ids stay below every other head. */
static void merge_runs(const uint64_t *ids, const struct run *runs, size_t nruns,
		       const struct idpos *stray, size_t nstray, uint64_t *sorted, uint32_t *perm)
{
	struct mhead hp[LONG_MERGE + 1];
	size_t k = 0, o = 0;
	for (size_t r = 0; r < nruns; r++)
		hp[k++] = (struct mhead){ ids[runs[r].start], (uint32_t)runs[r].start, (uint32_t)r,
					  runs[r].start, runs[r].start + runs[r].len };
	if (nstray)
		hp[k++] = (struct mhead){ stray[0].id, stray[0].pos, (uint32_t)nruns, 0, nstray };
	for (size_t i = k / 2; i-- > 0;)
		mheap_down(hp, k, i);
	while (k) {
		struct mhead *t = &hp[0];
		/* the next smallest head: the top's lesser child */
		const struct mhead *nx = k > 1 ? &hp[1] : NULL;
		if (k > 2 && mhead_less(&hp[2], &hp[1]))
			nx = &hp[2];
		for (;;) {
			sorted[o] = t->id;
			perm[o++] = t->pos;
			if (++t->at == t->end)
				break;
			if (t->q == nruns) {
				t->id = stray[t->at].id;
				t->pos = stray[t->at].pos;
			} else {
				t->id = ids[t->at];
				t->pos = (uint32_t)t->at;
			}
			if (nx && !mhead_less(t, nx))
				break;
		}
		if (t->at == t->end)
			hp[0] = hp[--k];
		mheap_down(hp, k, 0);
	}
}

/* HotSpot writes the class objects first, in no particular order, then each
 * heap region in address order (parallel dumpers: one region after another,
 * in any order).  So the ids are a few long sorted runs plus a few thousand
 * strays.  Sorting is then: sort the strays, order the long runs, merge the
 * two, in linear time when the runs' ranges are disjoint (else
 * merge_runs()).  Returns 1 with the permutation when the ids have that
 * shape, 0 when a general sort is needed, -1 when out of memory. */

static int sort_by_runs(uint64_t **idsp, size_t n, uint32_t **out)
{
	const uint64_t *ids = *idsp;
	size_t nlong = 0, nstray = 0, st = 0;
	for (size_t i = 1; i <= n; i++) {
		if (i == n || ids[i] <= ids[i - 1]) {
			if (i - st >= LONG_RUN)
				nlong++;
			else
				nstray += i - st;
			st = i;
		}
	}
	if (nstray > n / 8 || nlong > n / LONG_RUN)
		return 0;
	struct run *runs = hp_reallocarray(NULL, nlong ? nlong : 1, sizeof *runs);
	struct idpos *stray = hp_reallocarray(NULL, nstray ? nstray : 1, sizeof *stray);
	if (!runs || !stray) {
		hp_free(runs);
		hp_free(stray);
		return -1;
	}
	size_t k = 0, m = 0;
	st = 0;
	for (size_t i = 1; i <= n; i++) {
		if (i == n || ids[i] <= ids[i - 1]) {
			if (i - st >= LONG_RUN) {
				runs[k].first = ids[st];
				runs[k].last = ids[i - 1];
				runs[k].start = st;
				runs[k].len = i - st;
				k++;
			} else {
				for (size_t j = st; j < i; j++, m++) {
					stray[m].id = ids[j];
					stray[m].pos = (uint32_t)j;
				}
			}
			st = i;
		}
	}
	qsort(runs, nlong, sizeof *runs, by_first);
	int overlap = 0;
	for (size_t i = 1; i < nlong; i++)
		if (runs[i].first <= runs[i - 1].last)
			overlap = 1;
	if (overlap && nlong > LONG_MERGE) {
		hp_free(runs);
		hp_free(stray);
		return 0;
	}
	uint32_t *perm = hp_reallocarray(NULL, n, sizeof *perm);
	uint64_t *sorted = hp_reallocarray(NULL, n, sizeof *sorted);
	if (!perm || !sorted) {
		hp_free_all(perm, sorted, runs, stray);
		return -1;
	}
	if (overlap) {
		qsort(stray, nstray, sizeof *stray, by_id_pos);
		merge_runs(ids, runs, nlong, stray, nstray, sorted, perm);
		goto done;
	}
	qsort(stray, nstray, sizeof *stray, by_id);
	size_t o = 0, si = 0;
	for (size_t r = 0; r < nlong; r++) {
		const uint64_t *src = ids + runs[r].start;
		for (size_t j = 0; j < runs[r].len; j++) {
			while (si < nstray && stray[si].id <= src[j]) {
				sorted[o] = stray[si].id;
				perm[o++] = stray[si++].pos;
			}
			sorted[o] = src[j];
			perm[o++] = (uint32_t)(runs[r].start + j);
		}
	}
	while (si < nstray) {
		sorted[o] = stray[si].id;
		perm[o++] = stray[si++].pos;
	}
done:
	hp_free(*idsp);          /* the sorted copy takes the column's place */
	*idsp = sorted;
	hp_free(runs);
	hp_free(stray);
	*out = perm;
	return 1;
}

int hp_heap_sort_objects(hp_heap *h)
{
	size_t n = h->nobj;
	if (n == 0 || is_sorted(h->ids, n))
		return HP_OK;
	uint32_t *perm;
	int k = sort_by_runs(&h->ids, n, &perm);
	if (k < 0)
		return HP_ENOMEM;
	if (k == 0)
		HP_TRY(radix_sort_ids(h->ids, n, &perm));
	/* the 32-bit columns go through one scratch block: each column's old
	 * block is the next one's scratch (fresh memory costs page faults) */
	{
		uint32_t *scratch = hp_reallocarray(NULL, n, sizeof *scratch);
		if (!scratch) {
			hp_free(perm);
			return HP_ENOMEM;
		}
		uint32_t **col[3] = { &h->cls, &h->len, &h->off_lo };
		for (int c = 0; c < 3; c++) {
			const uint32_t *a = *col[c];
			for (size_t i = 0; i < n; i++)
				scratch[i] = a[perm[i]];
			uint32_t *t = *col[c];
			*col[c] = scratch;
			scratch = t;
		}
		hp_free(scratch);
	}
	PERMUTE(uint16_t, h->off_hi);
	/* invert in place: perm[i] = file index of number i -> file_order[k] = number */
	uint32_t *inv = hp_reallocarray(NULL, n, sizeof *inv);
	if (inv) {
		for (size_t i = 0; i < n; i++)
			inv[perm[i]] = (uint32_t)i;
		h->file_order = inv;
	}
	hp_free(perm);
	return HP_OK;
}

static void narrow_ids(hp_heap *h);

int hp_heap_build_index(hp_heap *h)
{
	size_t n = h->nobj;
	if (!n)
		return HP_OK;
	for (size_t i = 1; i < n; i++)
		if (h->ids[i] == h->ids[i - 1])
			h->duplicate_ids++;
	if (h->duplicate_ids)
		HP_TRY(hp_heap_add_warning(h, "%llu object ids appear more than once; lookups find the first",
					   (unsigned long long)h->duplicate_ids));
	h->min_id = h->ids[0];
	uint64_t span = h->ids[n - 1] - h->min_id;
	size_t want = n / 16 + 1;
	unsigned shift = 0;
	while (shift < 63 && (span >> shift) >= want)
		shift++;
	h->bucket_shift = shift;
	h->nbuckets = (size_t)(span >> shift) + 1;
	h->bucket = hp_reallocarray(NULL, h->nbuckets + 1, sizeof *h->bucket);
	if (!h->bucket)
		return HP_ENOMEM;
	size_t i = 0;
	for (size_t b = 0; b <= h->nbuckets; b++) {
		while (i < n && ((h->ids[i] - h->min_id) >> shift) < b)
			i++;
		h->bucket[b] = (uint32_t)i;
	}
	narrow_ids(h);
	return HP_OK;
}

/* ids -> ids32 in place when every id is min_id + k << s, k < 2^32, s the
 * alignment all ids share (heap.h); a failed shrink keeps the block */
static void narrow_ids(hp_heap *h)
{
	size_t n = h->nobj;
	uint64_t all = 0;
	for (size_t i = 0; i < n; i++)
		all |= h->ids[i] - h->min_id;
	unsigned s = all ? (unsigned)__builtin_ctzll(all) : 0;
	if (((h->ids[n - 1] - h->min_id) >> s) > UINT32_MAX)
		return;
	/* entry i moves from byte 8i to byte 4i: never onto one not yet read */
	unsigned char *b = (unsigned char *)h->ids;
	for (size_t i = 0; i < n; i++) {
		uint64_t v;
		memcpy(&v, b + 8 * i, sizeof v);
		uint32_t k = (uint32_t)((v - h->min_id) >> s);
		memcpy(b + 4 * i, &k, sizeof k);
	}
	uint32_t *shrunk = hp_realloc(b, n * sizeof *shrunk);
	h->ids32 = shrunk ? shrunk : (uint32_t *)(void *)b;
	h->ids = NULL;
	h->id_shift = s;
}

size_t hp_heap_find(const hp_heap *h, uint64_t id)
{
	if (!h->nobj || id < h->min_id)
		return SIZE_MAX;
	uint64_t d = id - h->min_id, b = d >> h->bucket_shift;
	if (b >= h->nbuckets)
		return SIZE_MAX;
	size_t lo = h->bucket[b], hi = h->bucket[b + 1];
	if (h->ids32) {
		if (d & (((uint64_t)1 << h->id_shift) - 1) || (d >> h->id_shift) > UINT32_MAX)
			return SIZE_MAX;
		uint32_t k = (uint32_t)(d >> h->id_shift);
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (h->ids32[mid] < k)
				lo = mid + 1;
			else
				hi = mid;
		}
		return lo < h->nobj && h->ids32[lo] == k ? lo : SIZE_MAX;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (h->ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < h->nobj && h->ids[lo] == id ? lo : SIZE_MAX;
}
