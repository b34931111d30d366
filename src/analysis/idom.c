/* idom.c — the immediate dominators of a set of objects, grouped by class
 * (idom.h). */
#include "analysis/idom.h"
#include "analysis/dominators.h"
#include "base/alloc.h"
#include "base/cmp.h"

#include <stdlib.h>
#include <string.h>

/* retained, then dominated_retained, largest first; then class index */
static int by_retained(const void *a, const void *b)
{
	const struct hp_idom_group *x = a, *y = b;
	return hp_cmp3_u64(y->retained, x->retained, y->dominated_retained, x->dominated_retained, x->cls, y->cls);
}

int hp_idom_compute(const hp_heap *h, const struct hp_retained *R, const uint32_t *set, size_t n,
		    const uint8_t *skip, struct hp_idom *out, struct hp_error *err)
{
	memset(out, 0, sizeof *out);
	size_t nobj = h->nobj, ng = h->nclasses + 1;   /* the last group: the GC roots */
	uint8_t *seen = hp_calloc(nobj ? nobj : 1, 1);    /* 1: in the set, 2: counted as a dominator */
	struct hp_idom_group *g = hp_calloc(ng, sizeof *g);
	if (!seen || !g) {
		hp_free_all(seen, g);
		return hp_error_set(err, HP_ENOMEM, "out of memory finding immediate dominators");
	}
	for (size_t i = 0; i < ng; i++)
		g[i].cls = i < h->nclasses ? (uint32_t)i : HP_NONE;
	for (size_t i = 0; i < n; i++) {
		uint32_t v = set[i];
		if (v >= nobj || (seen[v] & 1))
			continue;
		seen[v] |= 1;
		out->objects++;
		uint32_t d = R->dom.idom[v];
		if (d == HP_DOM_UNREACHABLE) {
			out->unreachable++;
			continue;
		}
		/* up past the skipped classes (at most the tree's depth) */
		while (d != HP_DOM_SUPER && skip && skip[h->cls[d]])
			d = R->dom.idom[d];
		struct hp_idom_group *k = &g[d == HP_DOM_SUPER ? h->nclasses : h->cls[d]];
		k->dominated++;
		k->dominated_shallow += hp_retained_shallow(R, v);
		k->dominated_retained += R->retained[v];
		if (d != HP_DOM_SUPER && !(seen[d] & 2)) {
			seen[d] |= 2;
			k->dominators++;
			k->retained += R->retained[d];
		}
	}
	hp_free(seen);
	size_t m = 0;
	for (size_t i = 0; i < ng; i++)
		if (g[i].dominated)
			g[m++] = g[i];
	qsort(g, m, sizeof *g, by_retained);
	out->g = g;
	out->n = m;
	return HP_OK;
}

void hp_idom_release(struct hp_idom *d)
{
	hp_free(d->g);
	memset(d, 0, sizeof *d);
}
