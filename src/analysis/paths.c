/*
 * paths.c — paths.h: the breadth-first search from the roots (class edges
 * taken last), the k shortest paths through distinct last referrers,
 * referrers and holders, the dominator chain, and long paths cut to their
 * ends.
 */
#include "analysis/paths.h"
#include "base/cmp.h"
#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>

/* how far hp_paths_shortest() walks up the BFS tree in all to rule out
 * referrers that are reached through the target */
#define MAX_ANCESTOR_STEPS (1u << 24)

void hp_paths_release(struct hp_paths *P)
{
	hp_free(P->parent);
	hp_free(P->depth);
	memset(P, 0, sizeof *P);
}

/* Appends x to the growable list *l (*n of *cap); 0 on failure. */
static int push_u32(uint32_t **l, size_t *n, size_t *cap, uint32_t x)
{
	if (*n == *cap) {
		uint32_t *q = hp_grow(*l, cap, *n + 1, 64, sizeof *q);
		if (!q)
			return 0;
		*l = q;
	}
	(*l)[(*n)++] = x;
	return 1;
}

int hp_paths_bfs(struct hp_paths *P, const struct hp_refs *g, const uint32_t *starts, size_t nstarts,
		 struct hp_error *err)
{
	return hp_paths_bfs_skip(P, g, starts, nstarts, NULL, 0, NULL, 0, err);
}

#define BIT(a, v) ((a)[(v) >> 3] & (1u << ((v) & 7)))
#define SETBIT(a, v) ((a)[(v) >> 3] |= (uint8_t)(1u << ((v) & 7)))
#define CLRBIT(a, v) ((a)[(v) >> 3] &= (uint8_t)~(1u << ((v) & 7)))

int hp_paths_bfs_skip(struct hp_paths *P, const struct hp_refs *g, const uint32_t *starts, size_t nstarts,
		      const uint32_t (*skip)[2], size_t nskip, const uint32_t *targets, size_t ntargets,
		      struct hp_error *err)
{
	memset(P, 0, sizeof *P);
	size_t n = g->n;
	if (n > HP_DOM_MAX_NODES)
		return hp_error_set(err, HP_EUSAGE, "too many objects for a path search: %zu", n);
	P->n = n;
	/* with targets, zeroed memory (see hp_paths.bias) instead of a pass */
	const uint32_t b = P->bias = ntargets ? 1 : 0;
	const uint32_t unseen = HP_PATH_UNSEEN + b;
	if (b) {
		P->parent = hp_calloc(n ? n : 1, sizeof *P->parent);
		P->depth = hp_calloc(n ? n : 1, sizeof *P->depth);
	} else {
		P->parent = hp_reallocarray(NULL, n ? n : 1, sizeof *P->parent);
		P->depth = hp_reallocarray(NULL, n ? n : 1, sizeof *P->depth);
	}
	uint32_t *queue = hp_reallocarray(NULL, n ? n : 1, sizeof *queue);
	/* class edges: the class objects first reached through one, this round's and the next's */
	uint32_t *seeds = NULL, *next = NULL;
	size_t nseeds = 0, seedcap = 0, nnext = 0, nextcap = 0;
	/* bit sets: the objects with edges to skip, the targets not reached yet */
	uint8_t *has_skip = nskip ? hp_calloc(n / 8 + 1, 1) : NULL;
	uint8_t *want = ntargets ? hp_calloc(n / 8 + 1, 1) : NULL;
	size_t remaining = 0;
	int rc = HP_OK;
	if (!P->parent || !P->depth || !queue || (nskip && !has_skip) || (ntargets && !want)) {
		rc = hp_error_set(err, HP_ENOMEM, "out of memory for a path search over %zu objects", n);
		goto out;
	}
	for (size_t i = 0; i < nskip; i++)
		if (skip[i][0] < n)
			SETBIT(has_skip, skip[i][0]);
	for (size_t i = 0; i < ntargets; i++) {
		if (targets[i] >= n) {
			rc = hp_error_set(err, HP_EUSAGE, "target object %u is not below %zu", targets[i], n);
			goto out;
		}
		if (!BIT(want, targets[i])) {
			SETBIT(want, targets[i]);
			remaining++;
		}
	}
	for (size_t i = 0; !b && i < n; i++) {
		P->parent[i] = HP_PATH_UNSEEN;
		P->depth[i] = UINT32_MAX;
	}
	size_t head = 0, tail = 0;
	for (size_t i = 0; i < nstarts; i++) {
		uint32_t s = starts[i];
		if (s >= n) {
			rc = hp_error_set(err, HP_EUSAGE, "start object %u is not below %zu", s, n);
			goto out;
		}
		if (P->parent[s] != unseen)
			continue;
		P->parent[s] = HP_PATH_START + b;
		P->depth[s] = b;
		queue[tail++] = s;
		if (want && BIT(want, s)) {
			CLRBIT(want, s);
			remaining--;
		}
	}
	/* Round 0 is a breadth-first search over every edge but the class
	 * edges; round k + 1 reaches the class objects of what round k reached
	 * that nothing reached yet (seeds, in order of depth) and searches on
	 * from them, a seed taken when it is no deeper than the queue's head.
	 * So a path takes as few class edges as it can, and within that as few
	 * references as the rounds allow.  With targets, the search stops once
	 * the last is reached. */
	size_t tail0 = SIZE_MAX;
	int done = want && !remaining;
	for (size_t lo = 0; !done;) {
		size_t si = 0;
		while ((head < tail || si < nseeds) && !done) {
			uint32_t v;
			if (si < nseeds && (head == tail || P->depth[seeds[si]] <= P->depth[queue[head]]))
				v = seeds[si++];
			else
				v = queue[head++];
			uint64_t e = hp_refs_off(g, v), eend = hp_refs_off(g, v + 1);   /* (no class edge) */
			size_t slo = 0, shi = 0;
			if (nskip && BIT(has_skip, v))
				hp_pairs_equal_range(skip, nskip, v, &slo, &shi);
			for (; e < eend; e++) {
				uint32_t w = g->adj[e];
				if (w >= n) {
					rc = hp_error_set(err, HP_EUSAGE, "edge %u -> %u leaves the graph of %zu objects", v, w, n);
					goto out;
				}
				if (P->parent[w] != unseen)
					continue;
				int skipped = 0;
				for (size_t k = slo; k < shi && !skipped; k++)
					skipped = skip[k][1] == w;
				if (skipped)
					continue;
				P->parent[w] = v + b;
				P->depth[w] = P->depth[v] + 1;
				queue[tail++] = w;
				if (want && BIT(want, w)) {
					CLRBIT(want, w);
					if (!--remaining) {
						done = 1;
						break;
					}
				}
			}
		}
		if (tail0 == SIZE_MAX)
			tail0 = tail;
		if (done || !g->class_obj)
			break;
		/* what this round reached, by depth: queue[lo, tail) and the seeds */
		nnext = 0;
		size_t qi = lo;
		si = 0;
		while ((qi < tail || si < nseeds) && !done) {
			uint32_t v;
			if (si < nseeds && (qi == tail || P->depth[seeds[si]] <= P->depth[queue[qi]]))
				v = seeds[si++];
			else
				v = queue[qi++];
			uint32_t c = hp_refs_class_edge(g, v);
			if (c == HP_NONE || P->parent[c] != unseen)
				continue;
			if (!push_u32(&next, &nnext, &nextcap, c)) {
				rc = hp_error_set(err, HP_ENOMEM, "out of memory for a path search over %zu objects", n);
				goto out;
			}
			P->parent[c] = v + b;
			P->depth[c] = P->depth[v] + 1;
			if (want && BIT(want, c)) {
				CLRBIT(want, c);
				done = !--remaining;
			}
		}
		if (!nnext)
			break;
		P->reached += nseeds;
		uint32_t *t = seeds;
		seeds = next;
		next = t;
		size_t tc = seedcap;
		seedcap = nextcap;
		nextcap = tc;
		nseeds = nnext;
		nnext = 0;
		lo = tail;
	}
	P->reached += tail + nseeds + nnext;
	P->through_class = P->reached - tail0;
out:
	hp_free_all(queue, seeds, next, has_skip, want);
	if (rc)
		hp_paths_release(P);
	return rc;
}

#undef BIT
#undef SETBIT
#undef CLRBIT

void hp_paths_list_release(struct hp_pathlist *l)
{
	hp_free(l->first);
	hp_free(l->nodes);
	hp_free(l->gap);
	memset(l, 0, sizeof *l);
}

struct hp_path_gap hp_path_gap(size_t len, size_t head, size_t tail)
{
	struct hp_path_gap g = { len, 0, HP_PATH_UNSEEN, HP_PATH_UNSEEN };
	if (!head)
		head = 1;
	if (!tail)
		tail = 1;
	if (head >= len || tail >= len - head || len - head - tail < 2)
		return g;
	g.at = head;
	g.n = len - head - tail;
	return g;
}

int hp_paths_tree_cut(const struct hp_paths *P, uint32_t v, struct hp_path_gap *gap, uint32_t *dst,
		      struct hp_error *err)
{
	gap->first = gap->last = HP_PATH_UNSEEN;
	if (v >= P->n || hp_paths_parent(P, v) == HP_PATH_UNSEEN)
		return hp_error_set(err, HP_EUSAGE, "object %u is not on the path search's tree", v);
	size_t len = (size_t)hp_paths_depth(P, v) + 1;
	if (gap->n && (gap->at > len || gap->n > len - gap->at))
		return hp_error_set(err, HP_EUSAGE, "a gap of %zu nodes from %zu in a path of %zu", gap->n, gap->at, len);
	/* from v up: the node at depth d is the path's node d */
	for (size_t d = len; d-- > 0;) {
		if (d < gap->at)
			dst[d] = v;
		else if (d >= gap->at + gap->n)
			dst[d - gap->n] = v;
		if (gap->n && d == gap->at)
			gap->first = v;
		if (gap->n && d == gap->at + gap->n - 1)
			gap->last = v;
		uint32_t p = hp_paths_parent(P, v);
		if (!d) {
			if (p != HP_PATH_START)
				return hp_error_set(err, HP_ECORRUPT, "the path search's tree does not lead from object %u to a start", v);
			break;
		}
		if (p >= P->n || hp_paths_depth(P, p) != d - 1)
			return hp_error_set(err, HP_ECORRUPT, "the path search's tree breaks at object %u (depth %zu)", v, d);
		v = p;
	}
	return HP_OK;
}

/* the object whose edges hold position e: off(v) <= e < off(v + 1) */
static uint32_t owner_of(const struct hp_refs *g, uint64_t e)
{
	size_t lo = 0, hi = g->n;     /* off(lo) <= e < off(hi) */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (hp_refs_off(g, mid) <= e)
			lo = mid;
		else
			hi = mid;
	}
	return (uint32_t)lo;
}

/* One referrer found by the scan: split, it goes to the holders when any of
 * its edges to the target is not its class edge, else it is counted among
 * the class referrers (and kept while no holder is known). */
struct scan {
	uint32_t *hold, *cls;
	size_t nhold, holdcap, ncls, clscap;
	uint64_t through_class;
};

static int flush(struct scan *S, uint32_t v, int real)
{
	if (real)
		return push_u32(&S->hold, &S->nhold, &S->holdcap, v);
	S->through_class++;
	if (S->nhold) {
		if (S->cls) {
			hp_free(S->cls);
			S->cls = NULL;
			S->ncls = S->clscap = 0;
		}
		return 1;
	}
	return push_u32(&S->cls, &S->ncls, &S->clscap, v);
}

/* Whether target is the class object of a class, so that class edges
 * (implicit: refs.h) may go to it. */
static int class_target(const struct hp_refs *g, uint32_t target)
{
	if (!g->class_obj)
		return 0;
	for (size_t k = 0; k < g->nclasses; k++)
		if (g->class_obj[k] == target)
			return 1;
	return 0;
}

/* The referrers of a class object: each object's class edge and its other
 * edges, in object order. */
static int scan_class_referrers(const struct hp_refs *g, uint32_t target, int split, struct scan *S)
{
	for (size_t v = 0; v < g->n; v++) {
		int cls = hp_refs_class_edge(g, v) == target, field = 0;
		for (uint64_t e = hp_refs_off(g, v), end = hp_refs_off(g, v + 1); e < end && !field; e++)
			field = g->adj[e] == target;
		if ((cls || field) && !flush(S, (uint32_t)v, !split || field))
			return 0;
	}
	return 1;
}

/* One scan of adj[] (sixteen entries compared at a time, which compilers
 * vectorise), and a binary search over the offsets for each hit: tens of
 * milliseconds for tens of millions of references; a class object's
 * referrers, whose class edges are not in adj[], one pass over the objects.
 * split: class edges apart (struct scan); otherwise every referrer is a
 * holder. */
static int scan_referrers(const struct hp_refs *g, uint32_t target, int split, struct scan *S,
			  struct hp_error *err)
{
	memset(S, 0, sizeof *S);
	if (class_target(g, target)) {
		if (!scan_class_referrers(g, target, split, S))
			goto nomem;
		return HP_OK;
	}
	uint64_t m = g->n ? hp_refs_off(g, g->n) : 0;
	const uint32_t *adj = g->adj;
	uint32_t cur = UINT32_MAX;
	uint64_t e = 0;
	for (;;) {
		while (e + 16 <= m) {
			unsigned hit = 0;
			for (int j = 0; j < 16; j++)
				hit |= adj[e + j] == target;
			if (hit)
				break;
			e += 16;
		}
		uint64_t end = e + 16 < m ? e + 16 : m;
		if (e >= end)
			break;
		for (; e < end; e++) {
			if (adj[e] != target)
				continue;
			uint32_t v = owner_of(g, e);
			if (v == cur)
				continue;   /* the same object again */
			if (cur != UINT32_MAX && !flush(S, cur, 1))
				goto nomem;
			cur = v;
		}
	}
	if (cur != UINT32_MAX && !flush(S, cur, 1))
		goto nomem;
	return HP_OK;
nomem:
	hp_free(S->hold);
	hp_free(S->cls);
	memset(S, 0, sizeof *S);
	return hp_error_set(err, HP_ENOMEM, "out of memory listing referrers");
}

int hp_paths_referrers(const struct hp_refs *g, uint32_t target, uint32_t **out, size_t *n,
		       struct hp_error *err)
{
	*out = NULL;
	*n = 0;
	struct scan S;
	HP_TRY(scan_referrers(g, target, 0, &S, err));
	if (!S.hold && !(S.hold = hp_reallocarray(NULL, 1, sizeof *S.hold)))
		return hp_error_set(err, HP_ENOMEM, "out of memory listing referrers");
	*out = S.hold;
	*n = S.nhold;
	return HP_OK;
}

int hp_paths_holders(const struct hp_refs *g, uint32_t target, struct hp_holders *out, struct hp_error *err)
{
	memset(out, 0, sizeof *out);
	struct scan S;
	HP_TRY(scan_referrers(g, target, 1, &S, err));
	out->through_class = S.through_class;
	if (S.nhold) {
		hp_free(S.cls);
		out->obj = S.hold;
		out->n = S.nhold;
	} else {
		hp_free(S.hold);
		out->obj = S.cls;
		out->n = S.ncls;
		out->class_listed = S.ncls > 0;
	}
	return HP_OK;
}

void hp_paths_holders_release(struct hp_holders *h)
{
	hp_free(h->obj);
	memset(h, 0, sizeof *h);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int hp_paths_shortest(const struct hp_paths *P, const struct hp_refs *g, uint32_t target, size_t k,
		      struct hp_pathlist *out, struct hp_error *err)
{
	return hp_paths_shortest_cut(P, g, target, k, HP_PATH_WHOLE, HP_PATH_WHOLE, out, err);
}

int hp_paths_shortest_cut(const struct hp_paths *P, const struct hp_refs *g, uint32_t target, size_t k,
			  size_t head, size_t tail, struct hp_pathlist *out, struct hp_error *err)
{
	memset(out, 0, sizeof *out);
	if (target >= P->n || P->n != g->n)
		return hp_error_set(err, HP_EUSAGE, "no object %u in a path search over %zu objects", target, P->n);
	if (!k || hp_paths_parent(P, target) == HP_PATH_UNSEEN)
		return HP_OK;
	uint32_t *cand = NULL;
	size_t nc = 0;
	if (k > 1) {
		struct hp_holders H;
		HP_TRY(hp_paths_holders(g, target, &H, err));
		uint32_t *refs = H.obj;
		size_t nr = H.n;
		/* (depth, object) in one key: nearest the roots first, ties by number */
		uint64_t *key = hp_reallocarray(NULL, nr ? nr : 1, sizeof *key);
		if (!key) {
			hp_free(refs);
			return hp_error_set(err, HP_ENOMEM, "out of memory sorting %zu referrers", nr);
		}
		size_t u = 0;
		for (size_t i = 0; i < nr; i++) {
			uint32_t r = refs[i];
			if (r == target || hp_paths_parent(P, r) == HP_PATH_UNSEEN || r == hp_paths_parent(P, target))
				continue;
			key[u++] = (uint64_t)hp_paths_depth(P, r) << 32 | r;
		}
		qsort(key, u, sizeof *key, cmp_u64);
		/* keep the referrers whose tree path avoids the target */
		cand = refs;
		uint32_t dt = hp_paths_depth(P, target);
		uint64_t steps = 0;
		for (size_t i = 0; i < u && nc + 1 < k; i++) {
			uint32_t r = (uint32_t)key[i], a = r;
			if (hp_paths_depth(P, r) > dt) {
				if (steps + (hp_paths_depth(P, r) - dt) > MAX_ANCESTOR_STEPS)
					break;
				steps += hp_paths_depth(P, r) - dt;
				while (hp_paths_depth(P, a) > dt)
					a = hp_paths_parent(P, a);
				if (a == target)
					continue;
			}
			cand[nc++] = r;
		}
		hp_free(key);
	}
	/* path 0 is the tree's path to target; path i + 1 the tree's to cand[i], then target */
	out->first = hp_reallocarray(NULL, nc + 2, sizeof *out->first);
	out->gap = hp_reallocarray(NULL, nc + 1, sizeof *out->gap);
	if (!out->first || !out->gap) {
		hp_free(cand);
		hp_paths_list_release(out);
		return hp_error_set(err, HP_ENOMEM, "out of memory for %zu paths", nc + 1);
	}
	size_t total = 0;
	for (size_t p = 0; p <= nc; p++) {
		size_t len = p ? (size_t)hp_paths_depth(P, cand[p - 1]) + 2 : (size_t)hp_paths_depth(P, target) + 1;
		out->gap[p] = hp_path_gap(len, head, tail);
		total += len - out->gap[p].n;
	}
	out->nodes = hp_reallocarray(NULL, total, sizeof *out->nodes);
	if (!out->nodes) {
		hp_free(cand);
		hp_paths_list_release(out);
		return hp_error_set(err, HP_ENOMEM, "out of memory for %zu paths of %zu nodes", nc + 1, total);
	}
	size_t pos = 0;
	int rc = HP_OK;
	out->first[0] = 0;
	for (size_t p = 0; p <= nc && rc == HP_OK; p++) {
		uint32_t v = p ? cand[p - 1] : target;
		rc = hp_paths_tree_cut(P, v, &out->gap[p], out->nodes + pos, err);
		pos += (size_t)hp_paths_depth(P, v) + 1 - out->gap[p].n;
		if (p)
			out->nodes[pos++] = target;
		out->first[p + 1] = pos;
	}
	hp_free(cand);
	if (rc) {
		hp_paths_list_release(out);
		return rc;
	}
	out->npaths = nc + 1;
	return HP_OK;
}

int hp_paths_dom_chain(const struct hp_dom *d, uint32_t v, uint32_t **out, size_t *n, struct hp_error *err)
{
	struct hp_path_gap gap;
	return hp_paths_dom_chain_cut(d, v, HP_PATH_WHOLE, HP_PATH_WHOLE, out, n, &gap, err);
}

int hp_paths_dom_chain_cut(const struct hp_dom *d, uint32_t v, size_t head, size_t tail, uint32_t **out,
			   size_t *n, struct hp_path_gap *gap, struct hp_error *err)
{
	*out = NULL;
	*n = 0;
	*gap = hp_path_gap(0, head, tail);
	if (v >= d->n)
		return hp_error_set(err, HP_EUSAGE, "no object %u among %u", v, d->n);
	size_t cnt = 0;
	for (uint32_t p = d->idom[v]; p < d->n && cnt <= d->n; p = d->idom[p])
		cnt++;
	if (cnt > d->n)
		return hp_error_set(err, HP_ECORRUPT, "the dominator tree has a cycle above object %u", v);
	*gap = hp_path_gap(cnt, head, tail);
	size_t keep = cnt - gap->n;
	uint32_t *c = hp_reallocarray(NULL, keep ? keep : 1, sizeof *c);
	if (!c)
		return hp_error_set(err, HP_ENOMEM, "out of memory for a dominator chain of %zu", keep);
	size_t k = 0, i = 0;
	for (uint32_t p = d->idom[v]; p < d->n && i < cnt; p = d->idom[p], i++) {
		if (i < gap->at || i >= gap->at + gap->n)
			c[k++] = p;
		else if (i == gap->at)
			gap->first = p;
		if (gap->n && i == gap->at + gap->n - 1)
			gap->last = p;
	}
	*out = c;
	*n = k;
	return HP_OK;
}
