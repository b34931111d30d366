/*
 * retained.c — hp_retained_compute() (retained.h): the roots by policy,
 * the reference graph, the dominator tree and the retained size of every
 * object, root and class; VisualVM's retained sizes (the comment above
 * struct vv says how they are reproduced).
 */
#include "analysis/retained.h"
#include "base/cmp.h"
#include "base/clock.h"
#include "analysis/fold.h"
#include "analysis/prefetch.h"
#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define AHEAD 16          /* prefetch distance, in objects */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

int hp_retained_root_on_thread(const hp_heap *h, int policy, const struct hp_root_rec *r)
{
	if (policy == HP_ROOTS_ALL || !r->has_thread || !hp_root_thread_local(r->kind))
		return 0;
	uint32_t t = hp_idmap_get(&h->thread_map, r->thread_serial);
	return t != HP_IDMAP_NONE && h->threads[t].object_id && hp_heap_find(h, h->threads[t].object_id) != SIZE_MAX;
}

static int collect_roots(const hp_heap *h, struct hp_retained *R)
{
	R->root_objs = hp_reallocarray(NULL, h->nroots ? h->nroots : 1, sizeof *R->root_objs);
	if (!R->root_objs)
		return HP_ENOMEM;
	size_t k = 0;
	for (size_t i = 0; i < h->nroots; i++) {
		const struct hp_root_rec *r = &h->roots[i];
		size_t o = hp_heap_find(h, r->object);
		if (o == SIZE_MAX)
			continue;
		if (hp_retained_root_on_thread(h, R->roots_policy, r))
			continue;       /* the thread holds it: a Thread -> object edge */
		R->root_objs[k++] = (uint32_t)o;
	}
	qsort(R->root_objs, k, sizeof *R->root_objs, cmp_u32);
	size_t u = 0;
	for (size_t i = 0; i < k; i++)
		if (!u || R->root_objs[u - 1] != R->root_objs[i])
			R->root_objs[u++] = R->root_objs[i];
	R->nroot_objs = u;
	return HP_OK;
}

#define BIT(a, v) ((a)[(v) >> 3] & (1u << ((v) & 7)))
#define SETBIT(a, v) ((a)[(v) >> 3] |= (uint8_t)(1u << ((v) & 7)))

/* marks in seen what v reaches (v included); queue: n entries */
static void reach_from(const struct hp_refs *g, uint32_t v, uint8_t *seen, uint32_t *queue)
{
	size_t head = 0, tail = 0;
	SETBIT(seen, v);
	queue[tail++] = v;
	while (head < tail) {
		uint32_t u = queue[head++];
		struct hp_edges it = hp_refs_edges(g, u);
		for (uint32_t w; hp_edges_next(&it, &w);) {
			if (w < g->n && !BIT(seen, w)) {
				SETBIT(seen, w);
				queue[tail++] = w;
			}
		}
	}
}

/* HP_ROOTS_UNREACHABLE: every object the roots do not reach becomes a
 * root, those nothing refers to first, then one per cycle left (retained.h);
 * memory while working: 2 bits and 4 bytes per object */
static int add_unreachable_roots(const hp_heap *h, struct hp_retained *R)
{
	const struct hp_refs *g = &R->refs;
	size_t n = h->nobj;
	uint8_t *seen = hp_calloc(n / 8 + 1, 1), *referred = hp_calloc(n / 8 + 1, 1);
	uint32_t *queue = hp_reallocarray(NULL, n ? n : 1, sizeof *queue);
	uint32_t *made = NULL;
	size_t nmade = 0, cap = 0;
	int rc = HP_ENOMEM;
	if (!seen || !referred || !queue)
		goto out;
	for (size_t i = 0; i < R->nroot_objs; i++)
		if (!BIT(seen, R->root_objs[i]))
			reach_from(g, R->root_objs[i], seen, queue);
	for (size_t u = 0; u < n; u++) {
		if (BIT(seen, u))
			continue;
		struct hp_edges it = hp_refs_edges(g, u);
		for (uint32_t w; hp_edges_next(&it, &w);)
			if (w < n && w != u)
				SETBIT(referred, w);
	}
	for (int pass = 0; pass < 2; pass++)
		for (size_t v = 0; v < n; v++) {
			if (BIT(seen, v) || (pass == 0 && BIT(referred, v)))
				continue;
			if (nmade == cap) {
				size_t nc = cap ? 2 * cap : 1024;
				uint32_t *m = hp_reallocarray(made, nc, sizeof *m);
				if (!m)
					goto out;
				made = m;
				cap = nc;
			}
			made[nmade++] = (uint32_t)v;
			reach_from(g, (uint32_t)v, seen, queue);
		}
	if (nmade) {
		uint32_t *all = hp_reallocarray(R->root_objs, R->nroot_objs + nmade, sizeof *all);
		if (!all)
			goto out;
		memcpy(all + R->nroot_objs, made, nmade * sizeof *made);
		R->root_objs = all;
		R->nroot_objs += nmade;
		qsort(R->root_objs, R->nroot_objs, sizeof *R->root_objs, cmp_u32);
	}
	R->nmade_roots = nmade;
	rc = HP_OK;
out:
	hp_free_all(seen, referred, queue, made);
	return rc;
}
#undef BIT
#undef SETBIT

/* which kinds of root name each object (2 bytes per object, allocated
 * after the dominators so as not to add to their peak) */
static int mark_root_kinds(const hp_heap *h, struct hp_retained *R)
{
	size_t n = h->nobj;
	R->root_kinds = hp_calloc(n ? n : 1, sizeof *R->root_kinds);
	if (!R->root_kinds)
		return HP_ENOMEM;
	for (size_t i = 0; i < h->nroots; i++) {
		size_t o = hp_heap_find(h, h->roots[i].object);
		if (o != SIZE_MAX)
			R->root_kinds[o] |= (uint16_t)(1u << h->roots[i].kind);
	}
	return HP_OK;
}

static int cmp_pair(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;
	return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : x[1] < y[1] ? -1 : x[1] > y[1];
}


/*
 * VisualVM's retained sizes (lib.jfluid.heap: NearestGCRoot, TreeObject,
 * DominatorTree, HprofHeap.computeRetainedSize), reproduced on the exact
 * dominator tree.
 *
 * 1. The search for GC-root paths: breadth first from the roots (by kind in
 *    VisualVM's order, file order within a kind), over every reference but
 *    the referents the weak policy skips; a class's statics, then its loader.
 *    When an instance (or class object) is the first of its class to be
 *    searched and its class object has not been found yet, the class object
 *    is found through it and the instance becomes a referrer of the class
 *    (an edge here).  What the search finds is reachable; the parent of an
 *    object is the object it was found through.
 * 2. The dominator tree is over every reference, referents included, and
 *    an object the search does not find still holds what it references: it
 *    is a root of the dominator graph (then dropped from the tree again), so
 *    what it references hangs off the super-root.  This is what VisualVM's
 *    iterative intersection of the dominator chains of all referrers of an
 *    object converges to.
 * 3. Tree objects: a found object with no reference the search follows is a
 *    leaf, of retained size its own; an object all of whose references
 *    (referents included, the class edge of step 1 not) go to tree objects
 *    that have no other referrer is a tree object, of retained size its own
 *    plus theirs, checked level by level from the leaves up through parents
 *    in search order.  GC roots can be tree children this way, and a class
 *    object's own size here is java.lang.Class's instance size.
 * 4. Every found instance or array (never a class object) adds, if it is
 *    not a tree object, its size to itself; and its size (its tree size if
 *    it is a tree object) to each dominator up to the first tree object.
 * So a class object that is not a tree object retains what it dominates but
 * not itself, what a tree class object dominates counts nowhere above it,
 * and a GC root can count in the one object that references it.
 */
enum { VV_REACH = 1, VV_MULTI = 2, VV_TREE = 4 };

struct vv {
	const hp_heap *h;
	struct hp_retained *R;
	size_t n;
	uint8_t *fl;              /* VV_* per object */
	uint32_t *parent;         /* the object the search found it through, HP_NONE */
	uint32_t *first;          /* first referrer; then the last check that counted it */
	uint32_t *mark;           /* step 3: the level that queued it, plus one */
	int64_t *ret;             /* step 3: tree sizes; -1 marks a queued parent */
	uint32_t *level, *next;   /* step 3: parents to check, this level and the next */
	size_t nlevel, nnext;
	uint32_t (*cx)[2];        /* step 1: instance -> class object edges */
	size_t ncx, cxcap;
	uint64_t class_size;      /* java.lang.Class's instance size */
};

static uint64_t vv_size(const struct vv *V, uint32_t v)
{
	return hp_heap_kind(V->h, v) == HP_OBJ_CLASS ? V->class_size : hp_retained_shallow(V->R, v);
}

static void vv_referrer(struct vv *V, uint32_t from, uint32_t to)
{
	if (V->first[to] == HP_NONE)
		V->first[to] = from;
	else if (V->first[to] != from)
		V->fl[to] |= VV_MULTI;
}

/* the referents of v in G's sorted list: [*lo, *hi) */
static void vv_referents(const struct hp_refs *G, uint32_t v, size_t *lo_out, size_t *hi_out)
{
	hp_pairs_equal_range((const uint32_t (*)[2])G->referents, G->nreferents, v, lo_out, hi_out);
}

static int vv_add_cx(struct vv *V, uint32_t from, uint32_t to)
{
	if (V->ncx == V->cxcap) {
		size_t nc = V->cxcap ? 2 * V->cxcap : 64;
		uint32_t (*nx)[2] = hp_reallocarray(V->cx, nc, sizeof *nx);
		if (!nx)
			return HP_ENOMEM;
		V->cx = nx;
		V->cxcap = nc;
	}
	V->cx[V->ncx][0] = from;
	V->cx[V->ncx][1] = to;
	V->ncx++;
	return HP_OK;
}

/* step 1, and the leaves of step 3 */
static int vv_search(struct vv *V)
{
	const hp_heap *h = V->h;
	struct hp_retained *R = V->R;
	const struct hp_refs *G = &R->refs;
	size_t n = V->n;
	uint8_t *cdone = hp_calloc(h->nclasses ? h->nclasses : 1, 1);
	uint32_t *queue = hp_reallocarray(NULL, n ? n : 1, sizeof *queue);
	int rc = HP_ENOMEM;
	if (!cdone || !queue)
		goto out;
	size_t qn = 0;
	for (int kind = 0; kind < HP_ROOT_NKINDS; kind++) {
		for (size_t i = 0; i < h->nroots; i++) {
			if (h->roots[i].kind != kind)
				continue;
			size_t o = hp_heap_find(h, h->roots[i].object);
			if (o == SIZE_MAX || (V->fl[o] & VV_REACH) || !hp_retained_has_super_edge(R, (uint32_t)o))
				continue;
			V->fl[o] |= VV_REACH;
			queue[qn++] = (uint32_t)o;
		}
	}
	for (size_t i = 0; i < R->nroot_objs; i++)   /* roots no kind lists (none today) */
		if (!(V->fl[R->root_objs[i]] & VV_REACH)) {
			V->fl[R->root_objs[i]] |= VV_REACH;
			queue[qn++] = R->root_objs[i];
		}
	for (size_t qi = 0; qi < qn; qi++) {
		uint32_t v = queue[qi];
		size_t rk, rend;
		vv_referents(G, v, &rk, &rend);
		int strong = 0;
		for (uint64_t e = hp_refs_off(G, v), eend = hp_refs_off(G, v + 1); e < eend; e++) {
			uint32_t w = G->adj[e];
			if (rk < rend && G->referents[rk][1] == w) {
				rk++;
				continue;
			}
			strong = 1;
			if (!(V->fl[w] & VV_REACH)) {
				V->fl[w] |= VV_REACH;
				V->parent[w] = v;
				queue[qn++] = w;
			}
		}
		int kind = hp_heap_kind(h, v);
		uint32_t c = h->cls[v];
		if ((kind == HP_OBJ_INSTANCE || kind == HP_OBJ_CLASS) && c != HP_NONE && !cdone[c]) {
			cdone[c] = 1;
			size_t k = h->classes[c].dumped ? hp_heap_find(h, h->classes[c].id) : SIZE_MAX;
			if (k != SIZE_MAX && !(V->fl[k] & VV_REACH)) {
				V->fl[k] |= VV_REACH;
				V->parent[k] = v;
				queue[qn++] = (uint32_t)k;
				vv_referrer(V, v, (uint32_t)k);
				if (vv_add_cx(V, v, (uint32_t)k) != HP_OK)
					goto out;
				strong = 1;
			}
		}
		if (strong)
			continue;
		/* a leaf; its parent is checked first when it is its only referrer */
		V->fl[v] |= VV_TREE;
		V->ret[v] = (int64_t)vv_size(V, v);
		uint32_t p = V->parent[v];
		if (!(V->fl[v] & VV_MULTI) && p != HP_NONE && V->ret[p] == 0) {
			V->ret[p] = -1;
			V->level[V->nlevel++] = p;
		}
	}
	rc = HP_OK;
out:
	hp_free(cdone);
	hp_free(queue);
	return rc;
}

/* step 3 after the leaves; the class edges are not in G yet */
static void vv_trees(struct vv *V)
{
	const struct hp_refs *G = &V->R->refs;
	uint32_t check = 0, lvl = 0;
	for (size_t i = 0; i < V->n; i++)
		V->first[i] = UINT32_MAX;
	while (V->nlevel) {
		int changed = 0;
		lvl++;
		V->nnext = 0;
		for (size_t i = 0; i < V->nlevel; i++) {
			uint32_t p = V->level[i];
			int64_t sum = 0;
			int ok = 1;
			check++;
			for (uint64_t e = hp_refs_off(G, p), eend = hp_refs_off(G, p + 1); e < eend && ok; e++) {
				uint32_t c = G->adj[e];
				if ((V->fl[c] & VV_MULTI) || !(V->fl[c] & VV_TREE))
					ok = 0;
				else if (V->first[c] != check) {
					V->first[c] = check;
					sum += V->ret[c];
				}
			}
			if (!ok)
				continue;
			V->fl[p] |= VV_TREE;
			V->ret[p] = (int64_t)vv_size(V, p) + sum;
			changed = 1;
			uint32_t q = V->parent[p];
			if (!(V->fl[p] & VV_MULTI) && q != HP_NONE && V->mark[q] != lvl) {
				V->mark[q] = lvl;
				V->next[V->nnext++] = q;
			}
		}
		if (!changed)
			break;
		uint32_t *t = V->level;
		V->level = V->next;
		V->next = t;
		V->nlevel = V->nnext;
	}
}

/* Inserts the edges pairs[k] = (from, to), sorted by from, into the graph
 * in place: adj grows by np entries, each node's block moves right. */
static int insert_edges(struct hp_refs *G, const uint32_t (*pairs)[2], size_t np)
{
	size_t n = G->n;
	if (!np)
		return HP_OK;
	HP_TRY(hp_refs_widen(G));   /* offsets move: 64-bit while they do */
	uint32_t *adj = hp_reallocarray(G->adj, G->nedges + np, sizeof *adj);
	if (!adj)
		return HP_ENOMEM;
	G->adj = adj;
	size_t k = np;                      /* pairs[0..k) have from < v */
	for (size_t v = n; v-- > 0;) {
		size_t mine = 0;
		while (k > 0 && pairs[k - 1][0] == v) {
			k--;
			mine++;
		}
		uint64_t lo = G->off[v], hi = G->off[v + 1];
		/* k pairs come before v's block: it moves right by k, then gets its own */
		memmove(adj + lo + k, adj + lo, (hi - lo) * sizeof *adj);
		for (size_t j = 0; j < mine; j++)
			adj[hi + k + j] = pairs[k + j][1];
		G->off[v + 1] = hi + k + mine;
	}
	G->nedges += np;
	return hp_refs_narrow(G);
}

static void vv_free(struct vv *V)
{
	hp_free_all(V->fl, V->parent, V->first, V->mark, V->ret, V->level, V->next, V->cx);
	memset(V, 0, sizeof *V);
}

/* steps 1 and 3; then the class edges go into the graph and every object
 * the search did not find becomes a root of it */
static int vv_prepare(const hp_heap *h, struct hp_retained *R, struct vv *V)
{
	size_t n = h->nobj, m = n ? n : 1;
	struct hp_refs *G = &R->refs;
	memset(V, 0, sizeof *V);
	V->h = h;
	V->R = R;
	V->n = n;
	V->fl = hp_calloc(m, 1);
	V->parent = hp_reallocarray(NULL, m, sizeof *V->parent);
	V->first = hp_reallocarray(NULL, m, sizeof *V->first);
	V->mark = hp_calloc(m, sizeof *V->mark);
	V->ret = hp_calloc(m, sizeof *V->ret);
	V->level = hp_reallocarray(NULL, m, sizeof *V->level);
	V->next = hp_reallocarray(NULL, m, sizeof *V->next);
	if (!V->fl || !V->parent || !V->first || !V->mark || !V->ret || !V->level || !V->next)
		return HP_ENOMEM;
	V->class_size = h->jlc != HP_NONE ? h->classes[h->jlc].inst_size : 0;
	if (G->nreferents)
		qsort(G->referents, G->nreferents, sizeof *G->referents, cmp_pair);
	for (size_t v = 0; v < n; v++) {
		V->parent[v] = HP_NONE;
		V->first[v] = HP_NONE;
	}
	for (size_t v = 0; v < n; v++)
		for (uint64_t e = hp_refs_off(G, v), eend = hp_refs_off(G, v + 1); e < eend; e++)
			vv_referrer(V, (uint32_t)v, G->adj[e]);
	HP_TRY(vv_search(V));
	vv_trees(V);
	if (V->ncx)
		qsort(V->cx, V->ncx, sizeof *V->cx, cmp_pair);
	HP_TRY(insert_edges(G, (const uint32_t (*)[2])V->cx, V->ncx));
	size_t extra = 0;
	for (size_t v = 0; v < n; v++)
		extra += !(V->fl[v] & VV_REACH);
	if (extra) {
		uint32_t *nr = hp_reallocarray(R->root_objs, R->nroot_objs + extra, sizeof *nr);
		if (!nr)
			return HP_ENOMEM;
		R->root_objs = nr;
		for (size_t v = 0; v < n; v++)
			if (!(V->fl[v] & VV_REACH))
				R->root_objs[R->nroot_objs++] = (uint32_t)v;
	}
	return HP_OK;
}

/* after the dominator tree: the objects the search did not find leave it
 * again (each hangs off the super-root, and so does all it dominates) */
static void vv_drop(struct vv *V, size_t nroots)
{
	struct hp_retained *R = V->R;
	uint32_t k = 0;
	for (uint32_t i = 0; i < R->dom.nreach; i++) {
		uint32_t v = R->dom.order[i];
		if (V->fl[v] & VV_REACH)
			R->dom.order[k++] = v;
		else
			R->dom.idom[v] = HP_DOM_UNREACHABLE;
	}
	R->dom.nreach = k;
	R->nroot_objs = nroots;
}

/* step 4 on the dominator tree, children before parents */
static void vv_retained(struct vv *V)
{
	struct hp_retained *R = V->R;
	const hp_heap *h = V->h;
	for (size_t v = 0; v < V->n; v++) {
		if (!(V->fl[v] & VV_REACH))
			R->retained[v] = 0;
		else if (V->fl[v] & VV_TREE)
			R->retained[v] = (uint64_t)V->ret[v];
		else
			R->retained[v] = hp_heap_kind(h, v) == HP_OBJ_CLASS ? 0 : hp_retained_shallow(R, v);
	}
	for (uint32_t k = R->dom.nreach; k-- > 0;) {
		uint32_t v = R->dom.order[k], p = R->dom.idom[v];
		if (p == HP_DOM_SUPER || (V->fl[p] & VV_TREE))
			continue;
		if (!(V->fl[v] & VV_TREE) || hp_heap_kind(h, v) != HP_OBJ_CLASS)
			R->retained[p] += R->retained[v];
	}
}

int hp_retained_has_super_edge(const struct hp_retained *R, uint32_t v)
{
	size_t lo = 0, hi = R->nroot_objs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (R->root_objs[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < R->nroot_objs && R->root_objs[lo] == v;
}

/* The dominator tree's children lists, R->child_off and R->children (the
 * super-root's at n), from idom[] in one counting pass and one filling pass
 * over the preorder */
static int tree_children(const hp_heap *h, struct hp_retained *R)
{
	size_t n = h->nobj;
	const uint32_t *idom = R->dom.idom;
	uint32_t *coff = hp_calloc(n + 2, sizeof *coff);     /* children of v at [coff[v], coff[v+1]); super = n */
	uint32_t *kids = hp_reallocarray(NULL, R->dom.nreach ? R->dom.nreach : 1, sizeof *kids);
	R->child_off = coff;
	R->children = kids;
	if (!coff || !kids)
		return HP_ENOMEM;
	/* order[] lands at random in idom[] and coff[]: prefetch ahead */
	uint32_t nr = R->dom.nreach;
#define PARENT(v) (idom[v] == HP_DOM_SUPER ? (uint32_t)n : idom[v])
	for (uint32_t i = 0; i < nr; i++) {
		if (i + 2 * AHEAD < nr)
			PREFETCH(&idom[R->dom.order[i + 2 * AHEAD]]);
		if (i + AHEAD < nr)
			PREFETCH_W(&coff[PARENT(R->dom.order[i + AHEAD]) + 1]);
		coff[PARENT(R->dom.order[i]) + 1]++;
	}
	for (size_t i = 0; i <= n; i++)
		coff[i + 1] += coff[i];
	/* fill using a moving cursor, then restore */
	for (uint32_t i = 0; i < nr; i++) {
		if (i + 2 * AHEAD < nr)
			PREFETCH(&idom[R->dom.order[i + 2 * AHEAD]]);
		if (i + AHEAD < nr)
			PREFETCH_W(&coff[PARENT(R->dom.order[i + AHEAD])]);
		uint32_t v = R->dom.order[i];
		kids[coff[PARENT(v)]++] = v;
	}
#undef PARENT
	memmove(coff + 1, coff, (n + 1) * sizeof *coff);
	coff[0] = 0;
	return HP_OK;
}

/* Per class (and per histogram row): the fold of fold.h with the class as
 * the key; under VisualVM's sizes a class object holds its key but adds
 * nothing (VisualVM sums instances and arrays only). */
struct class_fold {
	const hp_heap *h;
	struct hp_retained *R;
	int visualvm;
};

static inline uint32_t class_key(void *ud, uint32_t v)
{
	const struct class_fold *F = ud;
	return F->h->cls[v];
}

static inline int class_top(void *ud, uint32_t v, uint32_t c)
{
	const struct class_fold *F = ud;
	const hp_heap *h = F->h;
	struct hp_retained *R = F->R;
	if (F->visualvm && hp_heap_kind(h, v) == HP_OBJ_CLASS)
		return HP_OK;
	R->class_retained[c] += R->retained[v];
	uint32_t r = hp_heap_row_of(h, c, hp_heap_heap(h, v));
	if (r != HP_NONE)
		R->row_retained[r] += R->retained[v];
	return HP_OK;
}

/* what class_key() and class_top() read of v */
static inline void class_ahead(void *ud, uint32_t v)
{
	const struct class_fold *F = ud;
	PREFETCH(&F->h->cls[v]);
	PREFETCH(&F->h->off_hi[v]);
	PREFETCH(&F->R->retained[v]);
}

static const struct hp_fold_ops class_ops = {
	.key = class_key, .top = class_top, .ahead = class_ahead,
};

static int class_sums(const hp_heap *h, struct hp_retained *R, int visualvm)
{
	if (tree_children(h, R) != HP_OK)
		return HP_ENOMEM;
	R->class_retained = hp_calloc(h->nclasses ? h->nclasses : 1, sizeof *R->class_retained);
	R->row_retained = hp_calloc(h->nrows ? h->nrows : 1, sizeof *R->row_retained);
	if (!R->class_retained || !R->row_retained)
		return HP_ENOMEM;
	struct class_fold F = { h, R, visualvm };
	return hp_fold(R->child_off, R->children, h->nobj, h->nclasses, &class_ops, &F);
}

/* the retained sizes, 8 bytes per object (the shallow ones are the
 * model's: hp_retained_shallow()); zero */
static int alloc_sizes(const hp_heap *h, struct hp_retained *R)
{
	size_t n = h->nobj;
	R->retained = hp_calloc(n ? n : 1, sizeof *R->retained);
	return R->retained ? HP_OK : HP_ENOMEM;
}

int hp_retained_compute(const hp_heap *h, const char *path, const struct hp_retained_opts *o,
			struct hp_retained *R, struct hp_error *err)
{
	memset(R, 0, sizeof *R);
	R->heap = h;
	R->weak = o->weak;
	R->roots_policy = o->roots;
	size_t n = h->nobj;
	struct hp_refs_opts ro;
	memset(&ro, 0, sizeof ro);
	ro.weak = o->weak;
	ro.thread_locals = o->roots != HP_ROOTS_ALL;
	/* VisualVM's and NetBeans' size models come with their dominators */
	int visualvm = o->visualvm || h->size.kind == HP_SIZE_VISUALVM || h->size.kind == HP_SIZE_NETBEANS;
	R->visualvm = visualvm;
	ro.mark_referents = visualvm && o->weak != HP_WEAK_FOLLOW;
	ro.no_super_edges = visualvm || !hp_refs_want_class_links(h);
	ro.no_loader_edges = !hp_refs_want_class_links(h);
	ro.class_edges = !visualvm && hp_refs_want_class_edges(h);
	ro.list_followed = o->list_followed;
	ro.progress = o->progress;
	ro.progress_ud = o->progress_ud;
	double t = hp_now();
	int rc = hp_refs_build(h, path, &ro, &R->refs, err);
	if (rc)
		return rc;
	R->t_refs = hp_now() - t;
	R->mem_refs = hp_alloc_phase_peak();
	t = hp_now();
	/* sizes are allocated after the dominators (whose peak they would add
	 * to), except in VisualVM's mode, whose root search needs them first */
	if (visualvm && alloc_sizes(h, R) != HP_OK)
		goto nomem;
	if ((rc = collect_roots(h, R)) != HP_OK)
		goto nomem;
	if (R->roots_policy == HP_ROOTS_UNREACHABLE && (rc = add_unreachable_roots(h, R)) != HP_OK)
		goto nomem;
	R->t_retained = hp_now() - t;
	t = hp_now();
	struct vv V;
	memset(&V, 0, sizeof V);
	size_t nroots = R->nroot_objs;
	struct hp_alloc_io io0;
	hp_alloc_io(&io0);
	if (visualvm && (rc = vv_prepare(h, R, &V)) != HP_OK) {
		vv_free(&V);
		goto nomem;
	}
	rc = hp_dom_compute_refs(&R->dom, &R->refs, R->root_objs, R->nroot_objs, err);
	if (rc) {
		vv_free(&V);
		return rc;
	}
	if (visualvm)
		vv_drop(&V, nroots);
	R->dom_peak_bytes = R->dom.peak_bytes;
	hp_alloc_io(&R->io_dom);
	R->io_dom.read_bytes -= io0.read_bytes;
	R->io_dom.write_bytes -= io0.write_bytes;
	R->io_dom.major_faults -= io0.major_faults;
	R->t_dom = hp_now() - t;
	R->mem_dom = hp_alloc_phase_peak();
	t = hp_now();
	if (!visualvm && alloc_sizes(h, R) != HP_OK) {
		vv_free(&V);
		goto nomem;
	}
	for (size_t v = 0; v < n; v++)
		R->retained[v] = R->dom.idom[v] == HP_DOM_UNREACHABLE ? 0 : hp_retained_shallow(R, v);
	rc = hp_dom_accumulate(&R->dom, R->retained, &R->reachable_bytes, err);
	if (rc) {
		vv_free(&V);
		return rc;
	}
	if (visualvm)
		vv_retained(&V);
	vv_free(&V);
	R->reachable = R->dom.nreach;
	R->unreachable = n - R->dom.nreach;
	uint64_t all = 0;
	for (size_t i = 0; i < n; i++)
		all += hp_retained_shallow(R, i);
	R->unreachable_bytes = all - R->reachable_bytes;
	for (uint32_t i = 0; i < R->dom.nreach; i++) {
		uint32_t v = R->dom.order[i];
		if (R->dom.idom[v] != HP_DOM_SUPER)
			continue;
		if (!hp_retained_has_super_edge(R, v))
			R->joint += R->retained[v];
	}
	R->t_retained += hp_now() - t;
	t = hp_now();
	if ((rc = class_sums(h, R, visualvm)) != HP_OK)
		goto nomem;
	R->t_aggregate = hp_now() - t;
	t = hp_now();
	/* The root kinds last, when the spare blocks the phases freed and
	 * none took are given back (base/alloc.h): the array is mostly
	 * zeros, which fresh memory has without touching a page. */
	hp_alloc_release_spare();
	if (mark_root_kinds(h, R) != HP_OK)
		goto nomem;
	for (size_t v = 0; v < n; v++) {
		uint16_t ks = R->root_kinds[v];
		if (!ks)
			continue;
		for (int k = 0; k < HP_ROOT_NKINDS; k++) {
			if (!(ks & (1u << k)))
				continue;
			R->kinds[k].objects++;
			if (R->dom.idom[v] == HP_DOM_SUPER)
				R->kinds[k].retained += R->retained[v];
		}
	}
	for (int k = 0; k < HP_ROOT_NKINDS; k++)
		R->kinds[k].roots = h->roots_by_kind[k];
	R->t_retained += hp_now() - t;
	R->mem_retained = hp_alloc_phase_peak();
	return HP_OK;
nomem:
	return hp_error_set(err, HP_ENOMEM, "out of memory computing retained sizes");
}

int hp_retained_subtree(const struct hp_retained *R, size_t n, uint32_t **out)
{
	uint32_t *sub = hp_calloc(n ? n : 1, sizeof *sub);
	*out = sub;
	if (!sub)
		return HP_ENOMEM;
	/* the preorder puts idom[v] before v */
	const struct hp_dom *d = &R->dom;
	for (uint32_t k = 0; k < d->nreach; k++)
		sub[d->order[k]] = 1;
	for (uint32_t k = d->nreach; k-- > 0;) {
		uint32_t v = d->order[k], p = d->idom[v];
		if (k >= AHEAD)
			PREFETCH(&d->idom[d->order[k - AHEAD]]);
		if (p < n)
			sub[p] += sub[v];
	}
	return HP_OK;
}

void hp_retained_release(struct hp_retained *R)
{
	if (R->mapped) {
		memset(R, 0, sizeof *R);
		return;
	}
	hp_refs_release(&R->refs);
	hp_dom_release(&R->dom);
	hp_free(R->retained);
	hp_free_all(R->root_objs, R->root_kinds, R->class_retained, R->child_off, R->children,
		    R->subtree, R->row_retained);
	memset(R, 0, sizeof *R);
}
