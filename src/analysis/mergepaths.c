/* mergepaths.c — the shortest paths from GC roots to a set of objects,
 * merged into one tree (mergepaths.h). */
#include "analysis/mergepaths.h"
#include "model/idmap.h"
#include "base/alloc.h"
#include "base/cmp.h"

#include <stdlib.h>
#include <string.h>

static int by_obj(const void *a, const void *b)
{
	return hp_cmp_u64(*(const uint32_t *)a, *(const uint32_t *)b);
}

struct mkey {
	uint64_t count, ref_shallow;
	uint32_t obj, node;
};

/* count and bytes largest first, then object */
static int by_place(const void *a, const void *b)
{
	const struct mkey *x = a, *y = b;
	return hp_cmp3_u64(y->count, x->count, y->ref_shallow, x->ref_shallow, x->obj, y->obj);
}

/* room for one more node */
static int grow(struct hp_mergepaths *m, size_t *cap)
{
	if (m->n < *cap)
		return 0;
	size_t c = *cap ? *cap * 2 : 256;
	uint32_t *o = hp_reallocarray(m->obj, c, sizeof *o);
	if (!o)
		return -1;
	m->obj = o;
	uint32_t *p = hp_reallocarray(m->parent, c, sizeof *p);
	if (!p)
		return -1;
	m->parent = p;
	uint8_t *s = hp_reallocarray(m->in_set, c, 1);
	if (!s)
		return -1;
	m->in_set = s;
	*cap = c;
	return 0;
}

static int add(struct hp_mergepaths *m, size_t *cap, struct hp_idmap *at, uint32_t v, uint32_t *t)
{
	if (grow(m, cap))
		return -1;
	*t = (uint32_t)m->n;
	if (hp_idmap_put(at, v, *t))
		return -1;
	m->obj[m->n] = v;
	m->parent[m->n] = HP_MERGE_TOP;
	m->in_set[m->n] = 0;
	m->n++;
	return 0;
}

/* the counts, from the deepest nodes up (a counting sort by depth) */
static int count_up(struct hp_mergepaths *m, const struct hp_paths *P, const hp_heap *h,
		    struct hp_error *err)
{
	size_t n = m->n, maxd = 0;
	for (size_t t = 0; t < n; t++) {
		size_t d = hp_paths_depth(P, m->obj[t]);
		m->count[t] = m->in_set[t];
		m->ref_shallow[t] = m->in_set[t] ? hp_heap_shallow(h, m->obj[t]) : 0;
		if (d > maxd)
			maxd = d;
	}
	/* every node's ancestors are nodes, so a depth of n or more is damage */
	if (n && maxd >= n)
		return hp_error_set(err, HP_ECORRUPT, "merging paths: a search depth of %zu in a tree of %zu nodes",
				    maxd, n);
	size_t *at = hp_calloc(maxd + 2, sizeof *at);
	uint32_t *order = hp_reallocarray(NULL, n ? n : 1, sizeof *order);
	if (!at || !order) {
		hp_free_all(at, order);
		return hp_error_set(err, HP_ENOMEM, "out of memory merging paths");
	}
	for (size_t t = 0; t < n; t++)
		at[hp_paths_depth(P, m->obj[t]) + 1]++;
	for (size_t d = 1; d <= maxd + 1; d++)
		at[d] += at[d - 1];
	for (size_t t = 0; t < n; t++)
		order[at[hp_paths_depth(P, m->obj[t])]++] = (uint32_t)t;
	for (size_t i = n; i-- > 0;) {
		uint32_t t = order[i], p = m->parent[t];
		if (p != HP_MERGE_TOP) {
			m->count[p] += m->count[t];
			m->ref_shallow[p] += m->ref_shallow[t];
		}
	}
	hp_free_all(at, order);
	return HP_OK;
}

/* nodes[0 .. n) in order: count and bytes largest first, then object
 * (keys: room for n) */
static void order_range(const struct hp_mergepaths *m, uint32_t *nodes, size_t n, struct mkey *keys)
{
	if (n < 2)
		return;
	for (size_t i = 0; i < n; i++) {
		uint32_t t = nodes[i];
		keys[i] = (struct mkey){ .count = m->count[t], .ref_shallow = m->ref_shallow[t], .obj = m->obj[t], .node = t };
	}
	qsort(keys, n, sizeof *keys, by_place);
	for (size_t i = 0; i < n; i++)
		nodes[i] = keys[i].node;
}

/* each node's children in order, and the starts: placed by parent (a
 * counting sort), then each parent's few sorted */
static int order_kids(struct hp_mergepaths *m, struct hp_error *err)
{
	size_t n = m->n, ntops = 0, widest = 0;
	m->first = hp_calloc(n + 1, sizeof *m->first);
	m->kids = hp_reallocarray(NULL, n ? n : 1, sizeof *m->kids);
	size_t *at = hp_reallocarray(NULL, n + 1, sizeof *at);
	if (!m->first || !m->kids || !at) {
		hp_free(at);
		return hp_error_set(err, HP_ENOMEM, "out of memory merging paths");
	}
	for (size_t t = 0; t < n; t++) {
		if (m->parent[t] == HP_MERGE_TOP)
			ntops++;
		else
			m->first[m->parent[t] + 1]++;
	}
	for (size_t t = 0; t < n; t++) {
		if (m->first[t + 1] > widest)
			widest = m->first[t + 1];
		m->first[t + 1] += m->first[t];
	}
	if (ntops > widest)
		widest = ntops;
	memcpy(at, m->first, (n + 1) * sizeof *at);
	/* the starts after the children, in the same array */
	size_t nk = n - ntops, ti = nk;
	for (size_t t = 0; t < n; t++) {
		uint32_t p = m->parent[t];
		m->kids[p == HP_MERGE_TOP ? ti++ : at[p]++] = (uint32_t)t;
	}
	hp_free(at);
	struct mkey *keys = hp_reallocarray(NULL, widest ? widest : 1, sizeof *keys);
	if (!keys)
		return hp_error_set(err, HP_ENOMEM, "out of memory merging paths");
	for (size_t t = 0; t < n; t++)
		order_range(m, m->kids + m->first[t], m->first[t + 1] - m->first[t], keys);
	m->tops = m->kids + nk;
	m->ntops = ntops;
	order_range(m, m->tops, ntops, keys);
	hp_free(keys);
	return HP_OK;
}

int hp_mergepaths_build(const struct hp_paths *P, const uint32_t *set, size_t nset, const hp_heap *h,
			struct hp_mergepaths *out, struct hp_error *err)
{
	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < nset; i++)
		if (set[i] >= P->n)
			return hp_error_set(err, HP_EUSAGE, "merging paths: object %u of %zu", set[i], P->n);
	uint32_t *s = hp_reallocarray(NULL, nset ? nset : 1, sizeof *s);
	if (!s)
		return hp_error_set(err, HP_ENOMEM, "out of memory merging paths");
	if (nset)
		memcpy(s, set, nset * sizeof *s);
	qsort(s, nset, sizeof *s, by_obj);
	struct hp_idmap at;
	hp_idmap_init(&at);
	size_t cap = 0;
	int rc = HP_OK;
	for (size_t i = 0; i < nset && rc == HP_OK; i++) {
		uint32_t v = s[i], t;
		if (i && v == s[i - 1])
			continue;
		out->objects++;
		if (hp_paths_parent(P, v) == HP_PATH_UNSEEN)
			continue;
		out->reached++;
		out->reached_shallow += hp_heap_shallow(h, v);
		if ((t = hp_idmap_get(&at, v)) != HP_IDMAP_NONE) {
			out->in_set[t] = 1;
			continue;
		}
		if (add(out, &cap, &at, v, &t)) {
			rc = hp_error_set(err, HP_ENOMEM, "out of memory merging paths");
			break;
		}
		out->in_set[t] = 1;
		/* up to a start or a node the tree has: at most depth(v) steps */
		for (size_t steps = 0;; steps++) {
			uint32_t p = hp_paths_parent(P, v), u;
			if (p == HP_PATH_START)
				break;
			if (p >= P->n || steps >= hp_paths_depth(P, s[i])) {
				rc = hp_error_set(err, HP_ECORRUPT, "merging paths: object %u's search path does not end at a start",
						  s[i]);
				break;
			}
			if ((u = hp_idmap_get(&at, p)) != HP_IDMAP_NONE) {
				out->parent[t] = u;
				break;
			}
			if (add(out, &cap, &at, p, &u)) {
				rc = hp_error_set(err, HP_ENOMEM, "out of memory merging paths");
				break;
			}
			out->parent[t] = u;
			t = u;
			v = p;
		}
	}
	hp_idmap_release(&at);
	hp_free(s);
	if (rc == HP_OK) {
		out->count = hp_reallocarray(NULL, out->n ? out->n : 1, sizeof *out->count);
		out->ref_shallow = hp_reallocarray(NULL, out->n ? out->n : 1, sizeof *out->ref_shallow);
		if (!out->count || !out->ref_shallow)
			rc = hp_error_set(err, HP_ENOMEM, "out of memory merging paths");
	}
	if (rc == HP_OK)
		rc = count_up(out, P, h, err);
	if (rc == HP_OK)
		rc = order_kids(out, err);
	if (rc != HP_OK)
		hp_mergepaths_release(out);
	return rc;
}

void hp_mergepaths_release(struct hp_mergepaths *m)
{
	hp_free_all(m->obj, m->parent, m->count, m->ref_shallow, m->in_set, m->first, m->kids);
	memset(m, 0, sizeof *m);
}
