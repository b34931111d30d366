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
#include "model/refs.h"
#include "base/cpus.h"

#include <pthread.h>

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

/*
 * The implicit class edges (model/refs.h): object t, just numbered j, has
 * its class edge first, so when its class object is new the DFS goes there
 * at once, and on from that one's class edge; returns the node it stopped
 * at (the one whose other edges come next).  A class object out of range
 * was caught where the graph was made or mapped (index_check.c).
 */
#define CLASS_CHAIN(OFF, CUR, NAME, COMPACT) \
static inline uint32_t NAME(struct node *nd, uint32_t *pre, CUR *cur, const OFF *off, const struct hp_refs *cg, \
			    uint32_t n, uint32_t t, uint32_t j, uint32_t *N) \
{ \
	while (cg) { \
		uint32_t ct = hp_refs_class_edge(cg, t); \
		if (ct >= n || pre[ct]) \
			break; \
		uint32_t k = (*N)++; \
		pre[ct] = k; \
		nd[k].anc = j; \
		if (COMPACT) {   /* (dominators_lt.h: the cursor in label) */ \
			nd[k].label = (uint32_t)off[ct]; \
			nd[k].lsemi = (uint32_t)off[ct + 1]; \
		} else { \
			nd[k].label = 0; \
			set_end(&nd[k], off[ct + 1]); \
			cur[k] = (CUR)off[ct]; \
		} \
		j = k; \
		t = ct; \
	} \
	return j; \
}

int hp_dom_wide_cursors, hp_dom_compact_cursors;
size_t hp_dom_parallel_from = (size_t)1 << 20;

CLASS_CHAIN(uint64_t, uint32_t, chain_dom_o64_c32, 0)
#define class_chain chain_dom_o64_c32
#define DOM_FN dom_o64_c32
#define DOM_OFF uint64_t
#define DOM_CUR uint32_t
#include "analysis/dominators_lt.h"
#undef class_chain
#undef DOM_FN
#undef DOM_CUR
CLASS_CHAIN(uint64_t, uint64_t, chain_dom_o64_c64, 0)
#define class_chain chain_dom_o64_c64
#define DOM_FN dom_o64_c64
#define DOM_CUR uint64_t
#include "analysis/dominators_lt.h"
#undef class_chain
#undef DOM_FN
#undef DOM_CUR
#undef DOM_OFF
CLASS_CHAIN(uint32_t, uint32_t, chain_dom_o32_c32, 0)
#define class_chain chain_dom_o32_c32
#define DOM_FN dom_o32_c32
#define DOM_OFF uint32_t
#define DOM_CUR uint32_t
#include "analysis/dominators_lt.h"
#undef class_chain
#undef DOM_FN
#undef DOM_CUR
CLASS_CHAIN(uint32_t, uint64_t, chain_dom_o32_c64, 0)
#define class_chain chain_dom_o32_c64
#define DOM_FN dom_o32_c64
#define DOM_CUR uint64_t
#include "analysis/dominators_lt.h"
#undef class_chain
#undef DOM_FN
#undef DOM_CUR
#undef DOM_OFF
#define DOM_COMPACT
#define DOM_CUR uint32_t
#define DOM_OFF uint64_t
CLASS_CHAIN(uint64_t, uint32_t, chain_dom_o64_k, 1)
#define class_chain chain_dom_o64_k
#define DOM_FN dom_o64_k
#include "analysis/dominators_lt.h"
#undef class_chain
#undef DOM_FN
#undef DOM_OFF
#define DOM_OFF uint32_t
CLASS_CHAIN(uint32_t, uint32_t, chain_dom_o32_k, 1)
#define class_chain chain_dom_o32_k
#define DOM_FN dom_o32_k
#include "analysis/dominators_lt.h"
#undef class_chain
#undef DOM_FN
#undef DOM_OFF
#undef DOM_CUR
#undef DOM_COMPACT

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

uint64_t hp_dom_bytes(uint32_t n, uint64_t nedges, size_t nroots, int compact)
{
	/* pre, the nodes, the cursors, the roots' bits, the reverse edges */
	return 4ull * n + 16ull * (n + 1) + (compact ? 0 : 4ull * (n + 2)) + n / 8 + 1 + 4 * (nedges + nroots);
}

/* No cursor array (dominators_lt.h, DOM_COMPACT: 4 bytes an object less,
 * and a fifth slower, its counts scattered over the 16-byte nodes) when
 * that makes the pass fit the memory budget or limit and the array would
 * not (base/alloc.h: past the budget big blocks go to files, past the limit
 * nothing is allocated); below 2^31 objects.  Not when neither fits: the
 * nodes' counts would then be paged in and out, a bigger working set than
 * the array's (a 485 MiB cgroup: 65 s against 54). */
static int compact(uint32_t n, uint64_t nedges, size_t nroots)
{
	if (n >= (1u << 31))
		return 0;
	if (hp_dom_compact_cursors)
		return 1;
	/* as alloc.c's to_file(): under a limit, big blocks leave it a quarter */
	uint64_t budget = hp_alloc_budget(), limit = hp_alloc_limit(), cap = limit ? limit - limit / 4 : budget;
	if (budget && budget < cap)
		cap = budget;
	uint64_t used = hp_alloc_in_use();
	return cap && used + hp_dom_bytes(n, nedges, nroots, 0) > cap &&
	       used + hp_dom_bytes(n, nedges, nroots, 1) <= cap;
}

int hp_dom_compute(struct hp_dom *d, uint32_t n, const uint64_t *off, const uint32_t *adj,
		   const uint32_t *roots, size_t nroots, struct hp_error *err)
{
	HP_TRY(dom_start(d, n, err));
	if (narrow_cursors(n ? off[n] : 0, nroots))
		return compact(n, off[n], nroots) ? dom_o64_k(d, n, off, adj, NULL, roots, nroots, err)
				  : dom_o64_c32(d, n, off, adj, NULL, roots, nroots, err);
	return dom_o64_c64(d, n, off, adj, NULL, roots, nroots, err);
}

int hp_dom_compute32(struct hp_dom *d, uint32_t n, const uint32_t *off, const uint32_t *adj,
		     const uint32_t *roots, size_t nroots, struct hp_error *err)
{
	HP_TRY(dom_start(d, n, err));
	if (narrow_cursors(n ? off[n] : 0, nroots))
		return compact(n, off[n], nroots) ? dom_o32_k(d, n, off, adj, NULL, roots, nroots, err)
				  : dom_o32_c32(d, n, off, adj, NULL, roots, nroots, err);
	return dom_o32_c64(d, n, off, adj, NULL, roots, nroots, err);
}

int hp_dom_compute_refs(struct hp_dom *d, const struct hp_refs *g, const uint32_t *roots, size_t nroots,
			struct hp_error *err)
{
	if (g->n > HP_DOM_MAX_NODES)
		return dom_start(d, HP_DOM_MAX_NODES + 1u, err);
	uint32_t n = (uint32_t)g->n;
	HP_TRY(dom_start(d, n, err));
	const struct hp_refs *cg = g->class_obj ? g : NULL;
	/* the cursors hold positions in adj[] and count the reverse edges,
	 * the class edges among them */
	uint64_t all = hp_refs_total(g);
	int narrow = narrow_cursors(all, nroots), k = narrow && compact(n, all, nroots);
	if (g->off32)
		return k ? dom_o32_k(d, n, g->off32, g->adj, cg, roots, nroots, err)
			 : narrow ? dom_o32_c32(d, n, g->off32, g->adj, cg, roots, nroots, err)
				  : dom_o32_c64(d, n, g->off32, g->adj, cg, roots, nroots, err);
	return k ? dom_o64_k(d, n, g->off, g->adj, cg, roots, nroots, err)
		 : narrow ? dom_o64_c32(d, n, g->off, g->adj, cg, roots, nroots, err)
			  : dom_o64_c64(d, n, g->off, g->adj, cg, roots, nroots, err);
}

int hp_dom_retained(const struct hp_dom *d, const uint64_t *shallow, uint64_t *retained,
		    uint64_t *total, struct hp_error *err)
{
	if (d->n && !d->idom)
		return hp_error_set(err, HP_EUSAGE, "dominators: retained sizes asked of an empty tree");
	for (uint32_t v = 0; v < d->n; v++)
		retained[v] = d->idom[v] == HP_DOM_UNREACHABLE ? 0 : shallow[v];
	return hp_dom_accumulate(d, retained, total, err);
}

int hp_dom_accumulate(const struct hp_dom *d, uint64_t *retained, uint64_t *total, struct hp_error *err)
{
	uint64_t sum = 0;
	if (d->n && !d->idom)
		return hp_error_set(err, HP_EUSAGE, "dominators: retained sizes asked of an empty tree");
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
