#include "analysis/retained.h"
#include "parser/alloc.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static double seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static int is_thread_local(int kind)
{
	return kind == HP_ROOT_JAVA_FRAME || kind == HP_ROOT_JNI_LOCAL ||
	       kind == HP_ROOT_NATIVE_STACK || kind == HP_ROOT_THREAD_BLOCK;
}

static int collect_roots(hp_heap *h, struct hp_retained *R)
{
	size_t n = h->nobj;
	R->root_kinds = hp_calloc(n ? n : 1, sizeof *R->root_kinds);
	R->root_objs = hp_reallocarray(NULL, h->nroots ? h->nroots : 1, sizeof *R->root_objs);
	if (!R->root_kinds || !R->root_objs)
		return HP_ENOMEM;
	size_t k = 0;
	for (size_t i = 0; i < h->nroots; i++) {
		const struct hp_root_rec *r = &h->roots[i];
		size_t o = hp_heap_find(h, r->object);
		if (o == SIZE_MAX)
			continue;
		R->root_kinds[o] |= (uint16_t)(1u << r->kind);
		if (R->roots_policy == HP_ROOTS_THREADS && r->has_thread && is_thread_local(r->kind)) {
			uint32_t t = hp_idmap_get(&h->thread_map, r->thread_serial);
			if (t != HP_IDMAP_NONE && h->threads[t].object_id &&
			    hp_heap_find(h, h->threads[t].object_id) != SIZE_MAX)
				continue;       /* the thread holds it: a Thread -> object edge */
		}
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

static int cmp_pair(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;
	return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : x[1] < y[1] ? -1 : x[1] > y[1];
}

/* VisualVM's dominators: reach[] marks the objects the GC roots reach without
 * the listed referents; every other object becomes a root of the dominator
 * graph (which has the referents), so that what it references is shared. */
static int visualvm_roots(hp_heap *h, struct hp_retained *R, uint8_t **reach_out)
{
	size_t n = h->nobj;
	const struct hp_refs *G = &R->refs;
	uint8_t *reach = hp_calloc(n ? n : 1, 1);
	uint32_t *queue = hp_reallocarray(NULL, n ? n : 1, sizeof *queue);
	if (!reach || !queue) {
		hp_free(reach);
		hp_free(queue);
		return HP_ENOMEM;
	}
	qsort(G->referents, G->nreferents, sizeof *G->referents, cmp_pair);
	size_t qn = 0;
	for (size_t i = 0; i < R->nroot_objs; i++)
		if (!reach[R->root_objs[i]]) {
			reach[R->root_objs[i]] = 1;
			queue[qn++] = R->root_objs[i];
		}
	for (size_t qi = 0; qi < qn; qi++) {
		uint32_t v = queue[qi];
		/* the referents of v, each to skip once (lo..hi in the sorted list) */
		size_t lo = 0, hi = G->nreferents;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (G->referents[mid][0] < v)
				lo = mid + 1;
			else
				hi = mid;
		}
		size_t rk = lo, rend = lo;
		while (rend < G->nreferents && G->referents[rend][0] == v)
			rend++;
		for (uint64_t e = G->off[v]; e < G->off[v + 1]; e++) {
			uint32_t w = G->adj[e];
			if (rk < rend && G->referents[rk][1] == w) {
				rk++;
				continue;
			}
			if (!reach[w]) {
				reach[w] = 1;
				queue[qn++] = w;
			}
		}
	}
	hp_free(queue);
	size_t extra = n - qn;
	if (extra) {
		uint32_t *nr = hp_reallocarray(R->root_objs, R->nroot_objs + extra, sizeof *nr);
		if (!nr) {
			hp_free(reach);
			return HP_ENOMEM;
		}
		R->root_objs = nr;
		for (size_t v = 0; v < n; v++)
			if (!reach[v])
				R->root_objs[R->nroot_objs++] = (uint32_t)v;
	}
	*reach_out = reach;
	return HP_OK;
}

/* after the dominator tree: the objects no root reaches leave it again (each
 * hangs off the super-root, and so does everything it dominates) */
static void visualvm_drop(struct hp_retained *R, const uint8_t *reach, size_t nroots)
{
	uint32_t k = 0;
	for (uint32_t i = 0; i < R->dom.nreach; i++) {
		uint32_t v = R->dom.order[i];
		if (reach[v])
			R->dom.order[k++] = v;
		else
			R->dom.idom[v] = HP_DOM_UNREACHABLE;
	}
	R->dom.nreach = k;
	R->nroot_objs = nroots;
}

static int has_super_edge(const struct hp_retained *R, uint32_t v)
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

static uint32_t row_of(const hp_heap *h, uint32_t cls, unsigned heap)
{
	for (uint32_t r = h->classes[cls].row; r != HP_NONE; r = h->rows[r].next)
		if (h->rows[r].heap == heap)
			return r;
	return HP_NONE;
}

/* Per class (and per histogram row): walk the dominator tree depth first,
 * iteratively, counting an object only when no ancestor has its class. */
static int class_sums(hp_heap *h, struct hp_retained *R)
{
	size_t n = h->nobj;
	const uint32_t *idom = R->dom.idom;
	uint32_t *coff = hp_calloc(n + 2, sizeof *coff);     /* children of v at [coff[v], coff[v+1]); super = n */
	uint32_t *kids = hp_reallocarray(NULL, R->dom.nreach ? R->dom.nreach : 1, sizeof *kids);
	uint32_t *active = hp_calloc(h->nclasses ? h->nclasses : 1, sizeof *active);
	struct frame { uint32_t v, next; } *stack = hp_reallocarray(NULL, R->dom.nreach + 1, sizeof *stack);
	R->class_retained = hp_calloc(h->nclasses ? h->nclasses : 1, sizeof *R->class_retained);
	R->row_retained = hp_calloc(h->nrows ? h->nrows : 1, sizeof *R->row_retained);
	R->child_off = coff;
	R->children = kids;
	int rc = HP_OK;
	if (!coff || !kids || !active || !stack || !R->class_retained || !R->row_retained) {
		rc = HP_ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < R->dom.nreach; i++) {
		uint32_t v = R->dom.order[i];
		uint32_t p = idom[v] == HP_DOM_SUPER ? (uint32_t)n : idom[v];
		coff[p + 1]++;
	}
	for (size_t i = 0; i <= n; i++)
		coff[i + 1] += coff[i];
	{
		/* fill using a moving cursor, then restore */
		for (uint32_t i = 0; i < R->dom.nreach; i++) {
			uint32_t v = R->dom.order[i];
			uint32_t p = idom[v] == HP_DOM_SUPER ? (uint32_t)n : idom[v];
			kids[coff[p]++] = v;
		}
		memmove(coff + 1, coff, (n + 1) * sizeof *coff);
		coff[0] = 0;
	}
	size_t sp = 0;
	stack[sp].v = (uint32_t)n;
	stack[sp].next = coff[n];
	sp++;
	while (sp) {
		struct frame *f = &stack[sp - 1];
		if (f->next == coff[f->v + 1]) {
			if (f->v != n)
				active[h->cls[f->v]]--;
			sp--;
			continue;
		}
		uint32_t v = kids[f->next++];
		uint32_t c = h->cls[v];
		if (!active[c]) {
			R->class_retained[c] += R->retained[v];
			uint32_t r = row_of(h, c, hp_heap_heap(h, v));
			if (r != HP_NONE)
				R->row_retained[r] += R->retained[v];
		}
		active[c]++;
		stack[sp].v = v;
		stack[sp].next = coff[v];
		sp++;
	}
out:
	hp_free(active);
	hp_free(stack);
	return rc;
}

int hp_retained_compute(hp_heap *h, const char *path, const struct hp_retained_opts *o,
			struct hp_retained *R, struct hp_error *err)
{
	memset(R, 0, sizeof *R);
	R->weak = o->weak;
	R->roots_policy = o->roots;
	size_t n = h->nobj;
	struct hp_refs_opts ro;
	memset(&ro, 0, sizeof ro);
	ro.weak = o->weak;
	ro.thread_locals = o->roots == HP_ROOTS_THREADS;
	/* VisualVM's and NetBeans' size models come with their dominators */
	int visualvm = o->visualvm || h->size.kind == HP_SIZE_VISUALVM || h->size.kind == HP_SIZE_NETBEANS;
	ro.mark_referents = visualvm && o->weak != HP_WEAK_FOLLOW;
	ro.no_super_edges = visualvm;
	ro.progress = o->progress;
	ro.progress_ud = o->progress_ud;
	double t = seconds();
	int rc = hp_refs_build(h, path, &ro, &R->refs, err);
	if (rc)
		return rc;
	R->t_refs = seconds() - t;
	t = seconds();
	R->shallow = hp_reallocarray(NULL, n ? n : 1, sizeof *R->shallow);
	R->retained = hp_calloc(n ? n : 1, sizeof *R->retained);
	if (!R->shallow || !R->retained)
		goto nomem;
	for (size_t i = 0; i < n; i++)
		R->shallow[i] = hp_heap_shallow(h, i);
	if ((rc = collect_roots(h, R)) != HP_OK)
		goto nomem;
	R->t_retained = seconds() - t;
	t = seconds();
	uint8_t *reach = NULL;
	size_t nroots = R->nroot_objs;
	if (visualvm && (rc = visualvm_roots(h, R, &reach)) != HP_OK)
		goto nomem;
	rc = hp_dom_compute(&R->dom, (uint32_t)n, R->refs.off, R->refs.adj, R->root_objs, R->nroot_objs, err);
	if (rc) {
		hp_free(reach);
		return rc;
	}
	if (reach) {
		visualvm_drop(R, reach, nroots);
		hp_free(reach);
	}
	R->dom_peak_bytes = R->dom.peak_bytes;
	R->t_dom = seconds() - t;
	t = seconds();
	rc = hp_dom_retained(&R->dom, R->shallow, R->retained, &R->reachable_bytes, err);
	if (rc)
		return rc;
	R->reachable = R->dom.nreach;
	R->unreachable = n - R->dom.nreach;
	uint64_t all = 0;
	for (size_t i = 0; i < n; i++)
		all += R->shallow[i];
	R->unreachable_bytes = all - R->reachable_bytes;
	for (uint32_t i = 0; i < R->dom.nreach; i++) {
		uint32_t v = R->dom.order[i];
		if (R->dom.idom[v] != HP_DOM_SUPER)
			continue;
		if (!has_super_edge(R, v))
			R->joint += R->retained[v];
	}
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
	R->t_retained += seconds() - t;
	t = seconds();
	if ((rc = class_sums(h, R)) != HP_OK)
		goto nomem;
	R->t_aggregate = seconds() - t;
	return HP_OK;
nomem:
	return hp_error_set(err, HP_ENOMEM, "out of memory computing retained sizes");
}

void hp_retained_release(struct hp_retained *R)
{
	hp_refs_release(&R->refs);
	hp_dom_release(&R->dom);
	hp_free(R->shallow);
	hp_free(R->retained);
	hp_free(R->root_objs);
	hp_free(R->root_kinds);
	hp_free(R->class_retained);
	hp_free(R->child_off);
	hp_free(R->children);
	hp_free(R->row_retained);
	memset(R, 0, sizeof *R);
}
