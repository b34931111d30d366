/*
 * retset.c — the retained set of a set of objects: what would become
 * unreachable if they were gone (Eclipse MAT's "retained set").  One
 * breadth-first search from the roots that never enters the set: every
 * reachable object it does not reach is retained by the set, the set's
 * members included.  O(objects + references); 1 bit + 4 bytes per object.
 */
#include "analysis/retained.h"
#include "base/alloc.h"

#include <string.h>

int hp_retained_set(const hp_heap *h, const struct hp_retained *R, const uint8_t *in_set,
		    uint64_t *objects, uint64_t *bytes, struct hp_error *err)
{
	size_t n = h->nobj;
	uint8_t *seen = hp_calloc(n / 8 + 1, 1);
	uint32_t *queue = hp_reallocarray(NULL, n ? n : 1, sizeof *queue);
	if (!seen || !queue) {
		hp_free(seen);
		hp_free(queue);
		return hp_error_set(err, HP_ENOMEM, "out of memory computing a retained set");
	}
	size_t head = 0, tail = 0;
#define SEEN(v) (seen[(v) >> 3] & (1u << ((v) & 7)))
#define MARK(v) (seen[(v) >> 3] |= (uint8_t)(1u << ((v) & 7)))
	for (size_t i = 0; i < R->nroot_objs; i++) {
		uint32_t v = R->root_objs[i];
		if (in_set[v] || SEEN(v))
			continue;
		MARK(v);
		queue[tail++] = v;
	}
	while (head < tail) {
		uint32_t v = queue[head++];
		struct hp_edges it = hp_refs_edges(&R->refs, v);
		for (uint32_t w; hp_edges_next(&it, &w);) {
			if (in_set[w] || SEEN(w))
				continue;
			MARK(w);
			queue[tail++] = w;
		}
	}
	uint64_t cnt = 0, sz = 0;
	for (size_t v = 0; v < n; v++) {
		if (R->dom.idom[v] == HP_DOM_UNREACHABLE || SEEN(v))
			continue;
		cnt++;
		sz += hp_retained_shallow(R, v);
	}
#undef SEEN
#undef MARK
	hp_free(seen);
	hp_free(queue);
	*objects = cnt;
	*bytes = sz;
	return HP_OK;
}
