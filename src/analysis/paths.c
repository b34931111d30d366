#include "analysis/paths.h"
#include "parser/alloc.h"

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

int hp_paths_bfs(struct hp_paths *P, const struct hp_refs *g, const uint32_t *starts, size_t nstarts,
		 struct hp_error *err)
{
	return hp_paths_bfs_skip(P, g, starts, nstarts, NULL, 0, NULL, 0, err);
}

/* the pairs of skip whose first is v: [*lo, *hi) */
static void skip_range(const uint32_t (*skip)[2], size_t nskip, uint32_t v, size_t *lo_out, size_t *hi_out)
{
	size_t lo = 0, hi = nskip;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (skip[mid][0] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	hi = lo;
	while (hi < nskip && skip[hi][0] == v)
		hi++;
	*lo_out = lo;
	*hi_out = hi;
}

int hp_paths_bfs_skip(struct hp_paths *P, const struct hp_refs *g, const uint32_t *starts, size_t nstarts,
		      const uint32_t (*skip)[2], size_t nskip, const uint32_t *targets, size_t ntargets,
		      struct hp_error *err)
{
	memset(P, 0, sizeof *P);
	size_t n = g->n;
	if (n > HP_DOM_MAX_NODES)
		return hp_error_set(err, HP_EUSAGE, "too many objects for a path search: %zu", n);
	P->n = n;
	P->parent = hp_reallocarray(NULL, n ? n : 1, sizeof *P->parent);
	P->depth = hp_reallocarray(NULL, n ? n : 1, sizeof *P->depth);
	uint32_t *queue = hp_reallocarray(NULL, n ? n : 1, sizeof *queue);
	/* bit sets: the objects with edges to skip, the targets not reached yet */
	uint8_t *has_skip = nskip ? hp_calloc(n / 8 + 1, 1) : NULL;
	uint8_t *want = ntargets ? hp_calloc(n / 8 + 1, 1) : NULL;
	size_t remaining = 0;
	int rc = HP_OK;
	if (!P->parent || !P->depth || !queue || (nskip && !has_skip) || (ntargets && !want)) {
		rc = hp_error_set(err, HP_ENOMEM, "out of memory for a path search over %zu objects", n);
		goto out;
	}
#define BIT(a, v) ((a)[(v) >> 3] & (1u << ((v) & 7)))
#define SETBIT(a, v) ((a)[(v) >> 3] |= (uint8_t)(1u << ((v) & 7)))
#define CLRBIT(a, v) ((a)[(v) >> 3] &= (uint8_t)~(1u << ((v) & 7)))
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
	for (size_t i = 0; i < n; i++) {
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
		if (P->parent[s] != HP_PATH_UNSEEN)
			continue;
		P->parent[s] = HP_PATH_START;
		P->depth[s] = 0;
		queue[tail++] = s;
		if (want && BIT(want, s)) {
			CLRBIT(want, s);
			remaining--;
		}
	}
	/* with targets, the search stops once the last is reached */
	while (head < tail && !(want && !remaining)) {
		uint32_t v = queue[head++];
		size_t slo = 0, shi = 0;
		if (nskip && BIT(has_skip, v))
			skip_range(skip, nskip, v, &slo, &shi);
		for (uint64_t e = hp_refs_off(g, v), eend = hp_refs_off(g, v + 1); e < eend; e++) {
			uint32_t w = g->adj[e];
			if (w >= n) {
				rc = hp_error_set(err, HP_EUSAGE, "edge %u -> %u leaves the graph of %zu objects", v, w, n);
				goto out;
			}
			if (P->parent[w] != HP_PATH_UNSEEN)
				continue;
			int skipped = 0;
			for (size_t k = slo; k < shi && !skipped; k++)
				skipped = skip[k][1] == w;
			if (skipped)
				continue;
			P->parent[w] = v;
			P->depth[w] = P->depth[v] + 1;
			queue[tail++] = w;
			if (want && BIT(want, w)) {
				CLRBIT(want, w);
				if (!--remaining)
					break;
			}
		}
	}
#undef BIT
#undef SETBIT
#undef CLRBIT
	P->reached = tail;
out:
	hp_free(queue);
	hp_free(has_skip);
	hp_free(want);
	if (rc)
		hp_paths_release(P);
	return rc;
}

void hp_paths_list_release(struct hp_pathlist *l)
{
	hp_free(l->first);
	hp_free(l->nodes);
	memset(l, 0, sizeof *l);
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

/* One scan of adj[] (sixteen entries compared at a time, which compilers
 * vectorise), and a binary search over the offsets for each hit: tens of
 * milliseconds for tens of millions of references. */
int hp_paths_referrers(const struct hp_refs *g, uint32_t target, uint32_t **out, size_t *n,
		       struct hp_error *err)
{
	*out = NULL;
	*n = 0;
	uint64_t m = g->n ? hp_refs_off(g, g->n) : 0;
	size_t cap = 16, k = 0;
	uint32_t *r = hp_reallocarray(NULL, cap, sizeof *r);
	if (!r)
		return hp_error_set(err, HP_ENOMEM, "out of memory listing referrers");
	const uint32_t *adj = g->adj;
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
			if (k && r[k - 1] == v)
				continue;   /* the same object again */
			if (k == cap) {
				uint32_t *nr = hp_reallocarray(r, 2 * cap, sizeof *nr);
				if (!nr) {
					hp_free(r);
					return hp_error_set(err, HP_ENOMEM, "out of memory listing %zu referrers", k);
				}
				r = nr;
				cap *= 2;
			}
			r[k++] = v;
		}
	}
	*out = r;
	*n = k;
	return HP_OK;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* writes the BFS tree path to v (start first) at dst; returns its length */
static size_t tree_path(const struct hp_paths *P, uint32_t v, uint32_t *dst)
{
	size_t len = (size_t)P->depth[v] + 1;
	for (size_t i = len; i-- > 0;) {
		dst[i] = v;
		v = P->parent[v];
	}
	return len;
}

int hp_paths_shortest(const struct hp_paths *P, const struct hp_refs *g, uint32_t target, size_t k,
		      struct hp_pathlist *out, struct hp_error *err)
{
	memset(out, 0, sizeof *out);
	if (target >= P->n || P->n != g->n)
		return hp_error_set(err, HP_EUSAGE, "no object %u in a path search over %zu objects", target, P->n);
	if (!k || P->parent[target] == HP_PATH_UNSEEN)
		return HP_OK;
	uint32_t *cand = NULL;
	size_t nc = 0;
	if (k > 1) {
		uint32_t *refs;
		size_t nr;
		HP_TRY(hp_paths_referrers(g, target, &refs, &nr, err));
		/* (depth, object) in one key: nearest the roots first, ties by number */
		uint64_t *key = hp_reallocarray(NULL, nr ? nr : 1, sizeof *key);
		if (!key) {
			hp_free(refs);
			return hp_error_set(err, HP_ENOMEM, "out of memory sorting %zu referrers", nr);
		}
		size_t u = 0;
		for (size_t i = 0; i < nr; i++) {
			uint32_t r = refs[i];
			if (r == target || P->parent[r] == HP_PATH_UNSEEN || r == P->parent[target])
				continue;
			key[u++] = (uint64_t)P->depth[r] << 32 | r;
		}
		qsort(key, u, sizeof *key, cmp_u64);
		/* keep the referrers whose tree path avoids the target */
		cand = refs;
		uint32_t dt = P->depth[target];
		uint64_t steps = 0;
		for (size_t i = 0; i < u && nc + 1 < k; i++) {
			uint32_t r = (uint32_t)key[i], a = r;
			if (P->depth[r] > dt) {
				if (steps + (P->depth[r] - dt) > MAX_ANCESTOR_STEPS)
					break;
				steps += P->depth[r] - dt;
				while (P->depth[a] > dt)
					a = P->parent[a];
				if (a == target)
					continue;
			}
			cand[nc++] = r;
		}
		hp_free(key);
	}
	size_t total = (size_t)P->depth[target] + 1;
	for (size_t i = 0; i < nc; i++)
		total += (size_t)P->depth[cand[i]] + 2;
	out->first = hp_reallocarray(NULL, nc + 2, sizeof *out->first);
	out->nodes = hp_reallocarray(NULL, total, sizeof *out->nodes);
	if (!out->first || !out->nodes) {
		hp_free(cand);
		hp_paths_list_release(out);
		return hp_error_set(err, HP_ENOMEM, "out of memory for %zu paths", nc + 1);
	}
	size_t pos = 0;
	out->first[0] = 0;
	pos += tree_path(P, target, out->nodes);
	out->first[1] = pos;
	for (size_t i = 0; i < nc; i++) {
		pos += tree_path(P, cand[i], out->nodes + pos);
		out->nodes[pos++] = target;
		out->first[i + 2] = pos;
	}
	out->npaths = nc + 1;
	hp_free(cand);
	return HP_OK;
}

int hp_paths_dom_chain(const struct hp_dom *d, uint32_t v, uint32_t **out, size_t *n, struct hp_error *err)
{
	*out = NULL;
	*n = 0;
	if (v >= d->n)
		return hp_error_set(err, HP_EUSAGE, "no object %u among %u", v, d->n);
	size_t cnt = 0;
	for (uint32_t p = d->idom[v]; p < d->n && cnt <= d->n; p = d->idom[p])
		cnt++;
	if (cnt > d->n)
		return hp_error_set(err, HP_ECORRUPT, "the dominator tree has a cycle above object %u", v);
	uint32_t *c = hp_reallocarray(NULL, cnt ? cnt : 1, sizeof *c);
	if (!c)
		return hp_error_set(err, HP_ENOMEM, "out of memory for a dominator chain of %zu", cnt);
	size_t k = 0;
	for (uint32_t p = d->idom[v]; p < d->n && k < cnt; p = d->idom[p])
		c[k++] = p;
	*out = c;
	*n = k;
	return HP_OK;
}
