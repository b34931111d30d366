/*
 * dominators.c — Lengauer-Tarjan (simple, path compression), iterative.
 * See dominators.h for the algorithm, the complexity and the memory.
 *
 * Numbering: the super-root is preorder number 0, reachable objects get
 * 1..N-1 in DFS order, and pre[v] == 0 means "not reached".  Per preorder
 * number: nd[] (struct node, 16 bytes, so that eval() finds everything it
 * needs about a node in one cache line), cur[] (64-bit edge cursor, then
 * reverse-edge offsets) and semi[].  order[] (order[i-1] is the object
 * numbered i) is built from pre[] at the end, when the rest is freed.
 *
 * On a big graph every pass is a stream of cache misses (object numbers
 * and preorder numbers are unrelated), so: the passes over edges run in
 * object order, where off[] and adj[] are read sequentially, and prefetch
 * a few dozen edges ahead; the semidominator loop prefetches the first
 * nodes of the paths eval() will walk; the DFS prefetches off[] of each
 * target it looks at; and the arrays are advised to use huge pages (in a
 * virtual machine, a TLB miss costs several memory accesses).  Each of
 * these was measured with bench/dom_bench.c.
 */
#include "analysis/dominators.h"
#include "parser/alloc.h"

#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#define NONE UINT32_MAX
#define AHEAD 32          /* prefetch distance, in edges */

#if defined(__GNUC__)
#define PREFETCH(p) __builtin_prefetch(p)
#define PREFETCH_W(p) __builtin_prefetch((p), 1)
#else
#define PREFETCH(p) ((void)0)
#define PREFETCH_W(p) ((void)0)
#endif

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

static void advise_huge(void *p, size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
	const uintptr_t huge = (uintptr_t)2 << 20;
	uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1);
	uintptr_t b = ((uintptr_t)p + bytes) & ~(huge - 1);
	if (b > a)
		(void)madvise((void *)a, b - a, MADV_HUGEPAGE);   /* a hint; failure is harmless */
#else
	(void)p;
	(void)bytes;
#endif
}

static void *grab(struct mem *m, size_t count, size_t size, int zero)
{
	if (size && count > SIZE_MAX / size)
		return NULL;
	void *p = zero ? hp_calloc(count, size) : hp_malloc(count * size);
	if (p) {
		advise_huge(p, count * size);
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

int hp_dom_compute(struct hp_dom *d, uint32_t n, const uint64_t *off, const uint32_t *adj,
		   const uint32_t *roots, size_t nroots, struct hp_error *err)
{
	struct mem m = { 0, 0 };
	uint32_t *pre = NULL, *order = NULL, *semi = NULL, *radj = NULL;
	struct node *nd = NULL;
	uint64_t *cur = NULL, nrev = 0;
	uint32_t N = 1;
	int rc = HP_OK;

	memset(d, 0, sizeof *d);
	if (n > HP_DOM_MAX_NODES)
		return hp_error_set(err, HP_EUSAGE, "dominators: %lu objects, at most %lu supported",
				    (unsigned long)n, (unsigned long)HP_DOM_MAX_NODES);
	size_t n1 = (size_t)n + 1;
	pre = grab(&m, n, sizeof *pre, 1);
	nd = grab(&m, n1, sizeof *nd, 0);
	cur = grab(&m, n1, sizeof *cur, 0);
	if (!pre || !nd || !cur)
		goto nomem;

	/* 1. DFS from the super-root.  The tree's parent links are the stack;
	 * cur[i] is the next edge of node i to look at, get_end() its last. */
	nd[0].anc = NONE;
	nd[0].label = 0;
	for (size_t k = 0; k < nroots; k++) {
		uint32_t r = roots[k];
		if (r >= n) {
			rc = hp_error_set(err, HP_EUSAGE, "dominators: root %zu is object %lu, beyond the %lu objects",
					  k, (unsigned long)r, (unsigned long)n);
			goto fail;
		}
		if (pre[r])
			continue;
		uint32_t c = N++;
		pre[r] = c;
		nd[c].anc = 0;
		nd[c].label = 0;
		set_end(&nd[c], off[r + 1]);
		cur[c] = off[r];
		while (c) {
			uint64_t e = cur[c], end = get_end(&nd[c]);
			uint32_t t = 0;
			for (; e < end; e++) {
				t = adj[e];
				if (t >= n) {
					rc = hp_error_set(err, HP_EUSAGE,
							  "dominators: edge %llu goes to object %lu, beyond the %lu objects",
							  (unsigned long long)e, (unsigned long)t, (unsigned long)n);
					goto fail;
				}
				PREFETCH(&off[t]);   /* needed next if t is new */
				if (!pre[t])
					break;
			}
			if (e < end) {
				cur[c] = e + 1;
				uint32_t j = N++;
				pre[t] = j;
				nd[j].anc = c;
				nd[j].label = 0;
				set_end(&nd[j], off[t + 1]);
				cur[j] = off[t];
				c = j;
			} else {
				c = nd[c].anc;
			}
		}
	}
	nd = shrink(&m, nd, n1, N, sizeof *nd);
	cur = shrink(&m, cur, n1, (size_t)N + 1, sizeof *cur);

	/* 2. Predecessors in preorder numbers: count into cur[], prefix sums
	 * (cur[p] = end of p's list), fill downwards (cur[p] = start).  Both
	 * passes walk the objects in their own order and skip unreached ones;
	 * self-loops are left out.  Targets of unreached objects were never
	 * checked, so a prefetch clamps them. */
	memset(cur, 0, ((size_t)N + 1) * sizeof *cur);
	uint64_t nadj = n ? off[n] : 0;
#define TARGET_AT(x) (adj[x] < n ? adj[x] : 0)
	for (uint32_t v = 0; v < n; v++) {
		uint32_t i = pre[v];
		if (!i)
			continue;
		for (uint64_t e = off[v], end = off[v + 1]; e < end; e++) {
			if (e + AHEAD < nadj)
				PREFETCH(&pre[TARGET_AT(e + AHEAD)]);
			uint32_t p = pre[adj[e]];
			if (p != i)
				cur[p]++;
		}
	}
	for (size_t k = 0; k < nroots; k++)
		cur[pre[roots[k]]]++;
	for (uint32_t p = 1; p < N; p++)
		cur[p] += cur[p - 1];
	nrev = cur[N - 1];
	cur[N] = nrev;
	if (nrev > SIZE_MAX / sizeof *radj)
		goto nomem;
	radj = grab(&m, (size_t)nrev, sizeof *radj, 0);
	if (!radj)
		goto nomem;
	for (uint32_t v = 0; v < n; v++) {
		uint32_t i = pre[v];
		if (!i)
			continue;
		for (uint64_t e = off[v], end = off[v + 1]; e < end; e++) {
			if (e + 2 * AHEAD < nadj)
				PREFETCH(&pre[TARGET_AT(e + 2 * AHEAD)]);
			if (e + AHEAD < nadj)
				PREFETCH_W(&cur[pre[TARGET_AT(e + AHEAD)]]);
			if (e + AHEAD / 2 < nadj) {
				uint64_t at = cur[pre[TARGET_AT(e + AHEAD / 2)]];
				PREFETCH_W(&radj[at ? at - 1 : 0]);
			}
			uint32_t p = pre[adj[e]];
			if (p != i)
				radj[--cur[p]] = i;
		}
	}
#undef TARGET_AT
	for (size_t k = 0; k < nroots; k++)
		radj[--cur[pre[roots[k]]]] = 0;

	/* 3. Semidominators in reverse preorder; each node waits in the bucket
	 * of its semidominator, which is emptied when that one is processed. */
	semi = grab(&m, N, sizeof *semi, 0);
	if (!semi)
		goto nomem;
	semi[0] = 0;
	for (uint32_t i = N; i-- > 0;) {
		if (i > 0) {
			uint32_t s = i;
			for (uint64_t e = cur[i], end = cur[i + 1]; e < end; e++) {
				uint32_t v = radj[e];
				/* eval() walks up from an edge's source: prefetch the
				 * first node of the path AHEAD edges before it is needed
				 * (the edges ahead are below: i goes down), the second
				 * 3/4 AHEAD before (the first is in cache by then), the
				 * third 1/2, the fourth 1/4.  Paths may be compressed in
				 * between; a prefetch is only a hint. */
				if (e >= AHEAD) {
#define UP(x) (nd[x].anc < N ? nd[x].anc : 0)
					uint32_t a = radj[e - AHEAD];
					PREFETCH(&nd[a]);
					a = radj[e - AHEAD * 3 / 4];
					PREFETCH(&nd[UP(a)]);
					a = radj[e - AHEAD / 2];
					a = UP(a);
					PREFETCH(&nd[UP(a)]);
					a = radj[e - AHEAD / 4];
					a = UP(a);
					a = UP(a);
					PREFETCH(&nd[UP(a)]);
#undef UP
				}
				if (v < i) {
					if (v < s)
						s = v;
				} else {
					uint32_t su = (uint32_t)eval(nd, v, i + 1);
					if (su < s)
						s = su;
				}
			}
			semi[i] = s;
			nd[i].idm = nd[s].label;
			nd[s].label = i;
		}
		/* the nodes whose semidominator is i: semi(v) = i */
		uint32_t v = nd[i].label;
		while (v) {
			uint32_t next = nd[v].idm;
			PREFETCH(&nd[next]);
			uint64_t u = eval(nd, v, i + 1);
			nd[v].idm = (uint32_t)u < i ? (uint32_t)(u >> 32) : i;
			v = next;
		}
		nd[i].label = i;
		nd[i].lsemi = semi[i];
	}
	drop(&m, radj, (size_t)nrev, sizeof *radj);
	radj = NULL;
	drop(&m, cur, (size_t)N + 1, sizeof *cur);
	cur = NULL;

	/* 4. Relative dominators to idoms in preorder; order[] from pre[]; the
	 * idoms to object numbers (in nd[i].anc, free now); pre[] becomes idom[]. */
	for (uint32_t i = 1; i < N; i++)
		if (nd[i].idm != semi[i])
			nd[i].idm = nd[nd[i].idm].idm;
	drop(&m, semi, N, sizeof *semi);
	semi = NULL;
	order = grab(&m, (size_t)N - 1, sizeof *order, 0);
	if (!order)
		goto nomem;
	for (uint32_t v = 0; v < n; v++)
		if (pre[v])
			order[pre[v] - 1] = v;
	for (uint32_t i = 1; i < N; i++) {
		uint32_t r = nd[i].idm;
		nd[i].anc = r ? order[r - 1] : HP_DOM_SUPER;
	}
	for (uint32_t v = 0; v < n; v++) {
		uint32_t p = pre[v];
		pre[v] = p ? nd[p].anc : HP_DOM_UNREACHABLE;
	}
	drop(&m, nd, N, sizeof *nd);

	d->n = n;
	d->idom = pre;
	d->order = order;
	d->nreach = N - 1;
	d->peak_bytes = m.peak;
	return HP_OK;

nomem:
	rc = hp_error_set(err, HP_ENOMEM, "dominators: out of memory (%lu objects, %llu bytes held)",
			  (unsigned long)n, (unsigned long long)m.cur);
fail:
	hp_free(pre);
	hp_free(order);
	hp_free(semi);
	hp_free(nd);
	hp_free(cur);
	hp_free(radj);
	return rc;
}

int hp_dom_retained(const struct hp_dom *d, const uint64_t *shallow, uint64_t *retained,
		    uint64_t *total, struct hp_error *err)
{
	uint64_t sum = 0;
	if (d->n && !d->idom)
		return hp_error_set(err, HP_EUSAGE, "dominators: retained sizes asked of an empty tree");
	for (uint32_t v = 0; v < d->n; v++)
		retained[v] = d->idom[v] == HP_DOM_UNREACHABLE ? 0 : shallow[v];
	for (uint32_t k = d->nreach; k-- > 0;) {
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
