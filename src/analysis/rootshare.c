/* rootshare.c — hp_root_shares_compute() (rootshare.h): the super-root's
 * children keyed by the root kinds that name or reach them, their retained
 * sizes summed per key. */
#include "analysis/rootshare.h"
#include "base/alloc.h"
#include "base/cmp.h"

#include <stdlib.h>
#include <string.h>

static int popcount16(unsigned v)
{
	int c = 0;
	for (; v; v &= v - 1)
		c++;
	return c;
}

/* rows: root rows first (one kind before several, then by kind bits),
 * then joint rows, largest first */
static int cmp_row(const void *a, const void *b)
{
	const struct hp_root_share *x = a, *y = b;
	if (x->joint != y->joint)
		return x->joint - y->joint;
	if (!x->joint) {
		int px = popcount16(x->kinds) > 1, py = popcount16(y->kinds) > 1;
		if (px != py)
			return px - py;
		if (!px) {
			/* the lowest kind number first, as the kind table lists them */
			unsigned lx = (unsigned)(x->kinds & -x->kinds), ly = (unsigned)(y->kinds & -y->kinds);
			if (lx != ly)
				return lx < ly ? -1 : 1;
		}
	}
	return hp_cmp2_u64(y->retained, x->retained, x->kinds, y->kinds);
}

/* the child of the super-root whose subtree holds reachable u, plus one
 * (top[] as hp_root_shares_compute() fills it, filled up the way), or 0
 * when the dominator tree does not lead there in at most n steps */
static uint32_t top_of(const struct hp_dom *D, uint32_t *top, uint32_t u, size_t n)
{
	uint32_t v = u, t;
	size_t steps = 0;
	while (!(t = top[v])) {
		uint32_t d = D->idom[v];
		if (d >= n || ++steps > n)
			return 0;
		v = d;
	}
	for (v = u; !top[v]; v = D->idom[v])
		top[v] = t;
	return t;
}

void hp_root_shares_release(struct hp_root_shares *s)
{
	hp_free(s->rows);
	memset(s, 0, sizeof *s);
}

int hp_root_shares_compute(const hp_heap *h, const struct hp_retained *R, struct hp_root_shares *out,
			   struct hp_error *err)
{
	memset(out, 0, sizeof *out);
	const struct hp_dom *D = &R->dom;
	size_t n = h->nobj;
	uint32_t *top = NULL, *kids = NULL, (*edges)[2] = NULL, *dst = NULL, *queue = NULL, *last = NULL;
	size_t *eoff = NULL;
	uint16_t *mask = NULL;
	uint8_t *queued = NULL, *is_root = NULL;
	uint64_t *jbits = NULL;    /* a bit per object: a child of the super-root no root names */
	int32_t *slot = NULL;      /* row of (kind set, joint), -1 none */
	size_t nk = 0, ne = 0, ecap = 0;
	int rc = HP_ENOMEM;

	/* 1. the children of the super-root, by number; top[v] is the index
	 * of the one whose subtree holds v, plus one (0: not known yet) */
	top = hp_calloc(n ? n : 1, sizeof *top);
	if (!top)
		goto out;
	for (size_t v = 0; v < n; v++)
		nk += D->idom[v] == HP_DOM_SUPER;
	kids = hp_reallocarray(NULL, nk ? nk : 1, sizeof *kids);
	mask = hp_calloc(nk ? nk : 1, sizeof *mask);
	if (!kids || !mask)
		goto out;
	nk = 0;
	for (size_t v = 0; v < n; v++)
		if (D->idom[v] == HP_DOM_SUPER) {
			kids[nk] = (uint32_t)v;
			top[v] = (uint32_t)++nk;
		}

	/* 2. the kinds whose records hang each root object off the super-root */
	is_root = hp_calloc(nk ? nk : 1, 1);
	if (!is_root)
		goto out;
	for (size_t i = 0; i < h->nroots; i++) {
		const struct hp_root_rec *r = &h->roots[i];
		size_t o = hp_heap_find(h, r->object);
		if (o == SIZE_MAX || D->idom[o] != HP_DOM_SUPER)
			continue;
		if (hp_retained_root_on_thread(h, R->roots_policy, r))
			continue;       /* its thread holds it */
		mask[top[o] - 1] |= (uint16_t)(1u << r->kind);
		is_root[top[o] - 1] = 1;
	}
	/* objects made roots (HP_ROOTS_UNREACHABLE): root rows of no kind */
	for (size_t i = 0; i < R->nroot_objs; i++)
		if (R->root_objs[i] < n && D->idom[R->root_objs[i]] == HP_DOM_SUPER)
			is_root[top[R->root_objs[i]] - 1] = 1;
	/* the others, which roots may hold jointly: a bit each */
	jbits = hp_calloc(n / 64 + 1, sizeof *jbits);
	if (!jbits)
		goto out;
	for (size_t k = 0; k < nk; k++)
		if (!is_root[k])
			jbits[kids[k] / 64] |= 1ull << (kids[k] % 64);

	/* 3. edges into the joint children from the other subtrees, the
	 * objects and their edges in order (the bits in a few MiB, the other
	 * arrays read only at an edge into a joint child): an edge s -> t
	 * once per run of sources in subtree s (last[t] is the last source
	 * that added one, plus one); an edge twice changes nothing below */
	last = hp_calloc(nk ? nk : 1, sizeof *last);
	if (!last)
		goto out;
	const struct hp_refs *G = &R->refs;
	for (size_t u = 0; u < n; u++) {
		if (D->idom[u] == HP_DOM_UNREACHABLE)
			continue;
		uint32_t su = 0;
		struct hp_edges it = hp_refs_edges(G, u);
		for (uint32_t w; hp_edges_next(&it, &w);) {
			if (w >= n || !(jbits[w / 64] & (1ull << (w % 64))))
				continue;
			if (!su && !(su = top_of(D, top, (uint32_t)u, n))) {
				rc = HP_ECORRUPT;
				goto out;
			}
			uint32_t tw = top[w];
			if (tw == su || last[tw - 1] == su)
				continue;
			last[tw - 1] = su;
			if (ne == ecap) {
				uint32_t (*ne2)[2] = hp_grow(edges, &ecap, ne + 1, 1024, sizeof *edges);
				if (!ne2)
					goto out;
				edges = ne2;
			}
			edges[ne][0] = su - 1;
			edges[ne][1] = tw - 1;
			ne++;
		}
	}
	hp_free(top);
	top = NULL;

	/* 4. kind sets flow along them, grouped by source (a counting sort,
	 * the counts shifted by two so that the fill leaves eoff[s] at the
	 * start of s's): a child is queued when its set grew, so each set ends
	 * as the union of the sets that reach it, whatever the edges' order */
	eoff = hp_calloc(nk + 2, sizeof *eoff);
	dst = hp_reallocarray(NULL, ne ? ne : 1, sizeof *dst);
	queue = hp_reallocarray(NULL, nk ? nk : 1, sizeof *queue);
	queued = hp_calloc(nk ? nk : 1, 1);
	if (!eoff || !dst || !queue || !queued)
		goto out;
	for (size_t i = 0; i < ne; i++)
		eoff[edges[i][0] + 2]++;
	for (size_t i = 0; i < nk; i++)
		eoff[i + 2] += eoff[i + 1];
	for (size_t i = 0; i < ne; i++)
		dst[eoff[edges[i][0] + 1]++] = edges[i][1];
	hp_free(edges);
	edges = NULL;
	size_t qh = 0, qn = 0;     /* a ring of at most nk entries */
	for (size_t i = 0; i < nk; i++)
		if (mask[i] && eoff[i + 1] > eoff[i]) {
			queue[qn++] = (uint32_t)i;
			queued[i] = 1;
		}
	while (qn) {
		uint32_t s = queue[qh];
		qh = qh + 1 == nk ? 0 : qh + 1;
		qn--;
		queued[s] = 0;
		for (size_t e = eoff[s]; e < eoff[s + 1]; e++) {
			uint32_t t = dst[e];
			uint16_t m = (uint16_t)(mask[t] | mask[s]);
			if (m == mask[t])
				continue;
			mask[t] = m;
			if (!queued[t] && eoff[t + 1] > eoff[t]) {
				queue[(qh + qn) % nk] = t;
				qn++;
				queued[t] = 1;
			}
		}
	}

	/* 5. rows by (kind set, joint) */
	slot = hp_reallocarray(NULL, 2u << 16, sizeof *slot);
	size_t cap = 16;
	out->rows = hp_reallocarray(NULL, cap, sizeof *out->rows);
	if (!slot || !out->rows)
		goto out;
	memset(slot, 0xff, (2u << 16) * sizeof *slot);
	for (size_t i = 0; i < nk; i++) {
		int joint = !is_root[i];
		size_t key = (size_t)mask[i] << 1 | (size_t)joint;
		if (slot[key] < 0) {
			if (out->n == cap) {
				struct hp_root_share *nr = hp_grow(out->rows, &cap, out->n + 1, 16, sizeof *nr);
				if (!nr)
					goto out;
				out->rows = nr;
			}
			out->rows[out->n] = (struct hp_root_share){ .kinds = mask[i], .joint = joint };
			slot[key] = (int32_t)out->n++;
		}
		struct hp_root_share *r = &out->rows[slot[key]];
		r->objects++;
		r->retained += R->retained[kids[i]];
		out->total += R->retained[kids[i]];
	}
	qsort(out->rows, out->n, sizeof *out->rows, cmp_row);
	rc = HP_OK;
out:
	hp_free_all(top, kids, mask, edges, dst, last, jbits, eoff, queue, queued, is_root, slot);
	if (rc) {
		hp_root_shares_release(out);
		return hp_error_set(err, rc, rc == HP_ENOMEM ? "out of memory attributing what the GC roots hold"
							     : "the dominator tree does not lead every object to the super-root");
	}
	return HP_OK;
}
