/*
 * dominators.c — Lengauer-Tarjan (simple, path compression), iterative.
 * See dominators.h for the algorithm, the complexity and the memory.
 *
 * Numbering: the super-root is preorder number 0, reachable objects get
 * 1..N-1 in DFS order, and pre[v] == 0 means "not reached".  Per preorder
 * number: nd[] (struct node, 16 bytes, so that eval() finds everything it
 * needs about a node in one cache line) and cur[] (edge cursor, then
 * reverse-edge offsets, then semidominators).  order[] (order[i-1] is the object
 * numbered i) is built from pre[] at the end, when the rest is freed.
 *
 * On a big graph every pass is a stream of cache misses (object numbers
 * and preorder numbers are unrelated), so: the passes over edges run in
 * object order, where off[] and adj[] are read sequentially, and prefetch
 * a few dozen edges ahead; the semidominator loop prefetches the first
 * nodes of the paths eval() will walk; the DFS prefetches off[] of each
 * target it looks at; and the arrays use huge pages (hp_malloc() advises
 * every big block to; in a virtual machine, a TLB miss costs several memory
 * accesses).  Each of
 * these was measured with bench/dom_bench.c.
 */
#include "analysis/dominators.h"
#include "analysis/prefetch.h"
#include "base/alloc.h"

#include <string.h>

#define NONE UINT32_MAX
#define AHEAD 32          /* prefetch distance, in edges */

/*
 * One reachable node, by preorder number.  anc: the DFS parent, then (as
 * eval() compresses paths) an ancestor.  label: while the node is not yet
 * linked (numbers <= the one being processed), the head of its bucket (0 =
 * empty: the super-root is in no bucket); once linked, the vertex of least
 * semidominator on the compressed path, and lsemi that semidominator (kept
 * here so that eval() never looks up another node's semi).  idm: the next
 * node in the same bucket, then the idom or a node with the same idom.
 * During the DFS, lsemi and idm hold the end of the node's edges (64-bit).
 */
struct node {
	uint32_t anc, label, lsemi, idm;
};

struct mem {
	uint64_t cur, peak;
};

static void *grab(struct mem *m, size_t count, size_t size, int zero)
{
	if (size && count > SIZE_MAX / size)
		return NULL;
	void *p = zero ? hp_calloc(count, size) : hp_malloc(count * size);
	if (p) {
		m->cur += (uint64_t)count * size;
		if (m->cur > m->peak)
			m->peak = m->cur;
	}
	return p;
}

static void drop(struct mem *m, void *p, size_t count, size_t size)
{
	if (p) {
		hp_free(p);
		m->cur -= (uint64_t)count * size;
	}
}

/* Gives back the tail of an array; keeps the block when realloc fails. */
static void *shrink(struct mem *m, void *p, size_t from, size_t to, size_t size)
{
	void *q = hp_realloc(p, (to ? to : 1) * size);
	if (!q)
		return p;
	m->cur -= (uint64_t)(from - to) * size;
	return q;
}

static inline void set_end(struct node *x, uint64_t end)
{
	x->lsemi = (uint32_t)end;
	x->idm = (uint32_t)(end >> 32);
}

static inline uint64_t get_end(const struct node *x)
{
	return (uint64_t)x->idm << 32 | x->lsemi;
}

/*
 * The vertex with the least semidominator on the forest path from v (linked:
 * v >= ll) up to, not including, the root of its tree, and that
 * semidominator: returned as label << 32 | semi.  Compresses the path.
 * Nodes numbered >= ll are linked to their DFS parent anc; the others are
 * forest roots.  The path is walked up once reversing anc (so no stack is
 * needed), then down once setting each anc to the root and each label to
 * the least-semi label above it.
 */
static uint64_t eval(struct node *nd, uint32_t v, uint32_t ll)
{
	if (nd[v].anc < ll)
		return (uint64_t)nd[v].label << 32 | nd[v].lsemi;
	uint32_t prev = NONE, cur = v;
	do {
		uint32_t next = nd[cur].anc;
		nd[cur].anc = prev;
		prev = cur;
		cur = next;
	} while (nd[cur].anc >= ll);
	uint32_t root = nd[cur].anc, lab = nd[cur].label, ls = nd[cur].lsemi, c = prev;
	while (c != NONE) {
		struct node *x = &nd[c];
		uint32_t next = x->anc;
		x->anc = root;
		if (ls < x->lsemi) {
			x->label = lab;
			x->lsemi = ls;
		} else {
			lab = x->label;
			ls = x->lsemi;
		}
		c = next;
	}
	return (uint64_t)lab << 32 | ls;
}

int hp_dom_wide_cursors;

#define DOM_FN dom_o64_c32
#define DOM_OFF uint64_t
#define DOM_CUR uint32_t
#include "analysis/dominators_lt.h"
#undef DOM_FN
#undef DOM_CUR
#define DOM_FN dom_o64_c64
#define DOM_CUR uint64_t
#include "analysis/dominators_lt.h"
#undef DOM_FN
#undef DOM_CUR
#undef DOM_OFF
#define DOM_FN dom_o32_c32
#define DOM_OFF uint32_t
#define DOM_CUR uint32_t
#include "analysis/dominators_lt.h"
#undef DOM_FN
#undef DOM_CUR
#define DOM_FN dom_o32_c64
#define DOM_CUR uint64_t
#include "analysis/dominators_lt.h"
#undef DOM_FN
#undef DOM_CUR
#undef DOM_OFF

static int dom_start(struct hp_dom *d, uint32_t n, struct hp_error *err)
{
	memset(d, 0, sizeof *d);
	if (n > HP_DOM_MAX_NODES)
		return hp_error_set(err, HP_EUSAGE, "dominators: %lu objects, at most %lu supported",
				    (unsigned long)n, (unsigned long)HP_DOM_MAX_NODES);
	return HP_OK;
}

/* 32-bit cursors when every forward and reverse edge position fits */
static int narrow_cursors(uint64_t nedges, size_t nroots)
{
	return !hp_dom_wide_cursors && nroots <= UINT32_MAX && nedges <= UINT32_MAX - nroots;
}

int hp_dom_compute(struct hp_dom *d, uint32_t n, const uint64_t *off, const uint32_t *adj,
		   const uint32_t *roots, size_t nroots, struct hp_error *err)
{
	HP_TRY(dom_start(d, n, err));
	if (narrow_cursors(n ? off[n] : 0, nroots))
		return dom_o64_c32(d, n, off, adj, roots, nroots, err);
	return dom_o64_c64(d, n, off, adj, roots, nroots, err);
}

int hp_dom_compute32(struct hp_dom *d, uint32_t n, const uint32_t *off, const uint32_t *adj,
		     const uint32_t *roots, size_t nroots, struct hp_error *err)
{
	HP_TRY(dom_start(d, n, err));
	if (narrow_cursors(n ? off[n] : 0, nroots))
		return dom_o32_c32(d, n, off, adj, roots, nroots, err);
	return dom_o32_c64(d, n, off, adj, roots, nroots, err);
}

int hp_dom_retained(const struct hp_dom *d, const uint64_t *shallow, uint64_t *retained,
		    uint64_t *total, struct hp_error *err)
{
	uint64_t sum = 0;
	if (d->n && !d->idom)
		return hp_error_set(err, HP_EUSAGE, "dominators: retained sizes asked of an empty tree");
	for (uint32_t v = 0; v < d->n; v++)
		retained[v] = d->idom[v] == HP_DOM_UNREACHABLE ? 0 : shallow[v];
	/* a walk up order[] that lands at random: fetch idom[] 2 * AHEAD steps
	 * early, then the two retained[] entries AHEAD steps early */
	for (uint32_t k = d->nreach; k-- > 0;) {
		if (k >= 2 * AHEAD)
			PREFETCH(&d->idom[d->order[k - 2 * AHEAD]]);
		if (k >= AHEAD) {
			uint32_t w = d->order[k - AHEAD], q = d->idom[w];
			PREFETCH(&retained[w]);
			if (q < d->n)
				PREFETCH_W(&retained[q]);
		}
		uint32_t v = d->order[k], p = d->idom[v];
		if (p == HP_DOM_SUPER)
			sum += retained[v];
		else
			retained[p] += retained[v];
	}
	if (total)
		*total = sum;
	return HP_OK;
}

void hp_dom_release(struct hp_dom *d)
{
	hp_free(d->idom);
	hp_free(d->order);
	memset(d, 0, sizeof *d);
}
