/*
 * group.c — hp_groups_compute() (group.h): the histogram rows grouped by
 * package (a tree of prefixes, hashed), loader or component, with the
 * groups' retained sizes counted once in one walk of the dominator tree;
 * for a component report each group's top objects and waste; the class
 * names several loaders define; the loaders' own names.
 */
#include "analysis/group.h"
#include "analysis/fold.h"
#include "model/idmap.h"
#include "base/alloc.h"
#include "base/cmp.h"

#include <stdlib.h>
#include <string.h>

/* ---- names ------------------------------------------------------------ */

static int text_add(struct hp_groups *G, const char *s, size_t len, size_t *off)
{
	return hp_grow_text(&G->text, &G->text_len, &G->text_cap, 256, s, len, off) ? HP_ENOMEM : HP_OK;
}

static int group_add(struct hp_groups *G, size_t *cap, const char *name, size_t len, uint32_t *idx)
{
	if (G->n == *cap) {
		struct hp_group *ng = hp_grow(G->g, cap, G->n + 1, 64, sizeof *ng);
		if (!ng)
			return HP_ENOMEM;
		G->g = ng;
	}
	struct hp_group *g = &G->g[G->n];
	memset(g, 0, sizeof *g);
	g->parent = HP_NONE;
	g->depth = 1;
	g->loader_obj = HP_NONE;
	g->loader_class = HP_NONE;
	if (text_add(G, name, len, &g->name))
		return HP_ENOMEM;
	*idx = (uint32_t)G->n++;
	return HP_OK;
}

/* ---- packages: a hash of the names met so far ------------------------- */

struct pkgmap {
	uint32_t *slot;               /* group index + 1, 0 empty */
	size_t cap;
};

static uint64_t name_hash(const char *s, size_t len)
{
	uint64_t x = 1469598103934665603ull;
	for (size_t i = 0; i < len; i++)
		x = (x ^ (unsigned char)s[i]) * 1099511628211ull;
	return x;
}

static int pkg_grow(struct pkgmap *M, const struct hp_groups *G)
{
	size_t cap = M->cap ? 2 * M->cap : 256;
	uint32_t *s = hp_calloc(cap, sizeof *s);
	if (!s)
		return HP_ENOMEM;
	for (size_t i = 0; i < M->cap; i++) {
		if (!M->slot[i])
			continue;
		const struct hp_group *g = &G->g[M->slot[i] - 1];
		size_t j = (size_t)name_hash(g->pkg, g->pkg_len) & (cap - 1);
		while (s[j])
			j = (j + 1) & (cap - 1);
		s[j] = M->slot[i];
	}
	hp_free(M->slot);
	M->slot = s;
	M->cap = cap;
	return HP_OK;
}

/* the group of package name[0 .. len), made with its enclosing packages
 * when new (no recursion: the prefixes are looked up from the shortest) */
static int pkg_get(struct pkgmap *M, struct hp_groups *G, size_t *gcap, const char *name, size_t len,
		   uint32_t *out)
{
	uint32_t parent = HP_NONE, depth = 0;
	size_t start = 0;
	for (;;) {
		/* the next prefix: up to the next '.', or the whole name */
		const char *dot = start < len ? memchr(name + start, '.', len - start) : NULL;
		size_t pl = dot ? (size_t)(dot - name) : len;
		if (++depth == HP_PKG_MAX_DEPTH)
			pl = len;           /* the rest of the name is one level */
		if ((G->n + 1) * 2 > M->cap && pkg_grow(M, G))
			return HP_ENOMEM;
		uint64_t hv = name_hash(name, pl);
		size_t j = (size_t)hv & (M->cap - 1);
		uint32_t gi = HP_NONE;
		while (M->slot[j]) {
			const struct hp_group *g = &G->g[M->slot[j] - 1];
			if (g->pkg_len == pl && memcmp(g->pkg, name, pl) == 0) {
				gi = M->slot[j] - 1;
				break;
			}
			j = (j + 1) & (M->cap - 1);
		}
		if (gi == HP_NONE) {
			if (group_add(G, gcap, "", 0, &gi))
				return HP_ENOMEM;
			G->g[gi].pkg = name;
			G->g[gi].pkg_len = (uint32_t)pl;
			G->g[gi].parent = parent;
			G->g[gi].depth = depth;
			if (parent != HP_NONE)
				G->g[parent].nchildren++;
			M->slot[j] = gi + 1;
		}
		parent = gi;
		if (pl == len) {
			*out = gi;
			return HP_OK;
		}
		start = pl + 1;
	}
}

/* "com.acme.Bill$Line[][]" -> "com.acme"; no '.' -> "" */
static size_t package_len(const char *name)
{
	size_t len = strlen(name);
	while (len >= 2 && name[len - 2] == '[' && name[len - 1] == ']')
		len -= 2;
	while (len && name[len - 1] != '.')
		len--;
	return len ? len - 1 : 0;
}

/* ---- the grouping ----------------------------------------------------- */

/* The group of each class with objects asked (want[c]: its rows' or its
 * class object's), into cg[c] (HP_NONE for the others); with `filtered`
 * (a filter chose the rows) the loaders only of those classes, else of
 * every class. */
static int class_groups(const hp_heap *h, int by, int filtered, const uint8_t *want, const uint32_t *comp,
			const char *const *comp_names, size_t ncomp, struct hp_groups *G, size_t *gcap,
			uint32_t *cg)
{
	int rc = HP_OK;
	if (by == HP_GROUP_COMPONENT) {
		uint32_t gi;
		for (size_t i = 0; i <= ncomp; i++) {
			const char *nm = i < ncomp ? comp_names[i] : "other";
			if ((rc = group_add(G, gcap, nm, strlen(nm), &gi)))
				return rc;
		}
		for (size_t c = 0; c < h->nclasses; c++)
			cg[c] = comp[c] < ncomp ? comp[c] : (uint32_t)ncomp;
	} else if (by == HP_GROUP_PACKAGE) {
		struct pkgmap M = { NULL, 0 };
		for (size_t c = 0; c < h->nclasses && !rc; c++) {
			cg[c] = HP_NONE;
			if (want[c]) {
				const char *nm = hp_class_name(h, c);
				rc = pkg_get(&M, G, gcap, nm, package_len(nm), &cg[c]);
			}
		}
		hp_free(M.slot);
	} else {
		struct hp_idmap L;
		hp_idmap_init(&L);
		/* every loader that defines a class, or (filtered) that
		 * defines a class asked */
		for (size_t c = 0; c < h->nclasses; c++) {
			cg[c] = HP_NONE;
			if (filtered && !want[c])
				continue;
			uint32_t gi = (uint32_t)G->n;
			int ins = hp_idmap_insert(&L, h->classes[c].loader_id, &gi);
			if (ins < 0) {
				rc = HP_ENOMEM;
				break;
			}
			if (ins == 1) {
				uint32_t got;
				if ((rc = group_add(G, gcap, "", 0, &got)))
					break;
				struct hp_group *g = &G->g[got];
				g->loader_id = h->classes[c].loader_id;
				size_t o = g->loader_id && h->nobj ? hp_heap_find(h, g->loader_id) : SIZE_MAX;
				if (o != SIZE_MAX) {
					g->loader_obj = (uint32_t)o;
					g->loader_class = h->cls[o];
				}
			}
			cg[c] = gi;
		}
		for (size_t c = 0; c < h->nclasses && !rc; c++)
			if (h->classes[c].dumped && (!filtered || want[c])) {
				uint32_t gi = hp_idmap_get(&L, h->classes[c].loader_id);
				if (gi != HP_IDMAP_NONE)
					G->g[gi].defined++;
			}
		hp_idmap_release(&L);
	}
	return rc;
}

struct named { const char *name; uint64_t loader; uint32_t c; };

static int by_name_loader(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	if (c)
		return c;
	return hp_cmp2_u64(x->loader, y->loader, x->c, y->c);
}

/* the names defined by several loaders (the classes grouped, cg[c] set) */
static int duplicates(const hp_heap *h, struct hp_groups *G, const uint32_t *cg)
{
	size_t n = 0;
	struct named *v = hp_reallocarray(NULL, h->nclasses ? h->nclasses : 1, sizeof *v);
	G->dup_class = hp_reallocarray(NULL, h->nclasses ? h->nclasses : 1, sizeof *G->dup_class);
	G->dup_off = hp_reallocarray(NULL, h->nclasses + 1, sizeof *G->dup_off);
	if (!v || !G->dup_class || !G->dup_off) {
		hp_free(v);
		return HP_ENOMEM;
	}
	for (size_t c = 0; c < h->nclasses; c++)
		if (h->classes[c].dumped && cg[c] != HP_NONE) {
			v[n].name = hp_class_name(h, c);
			v[n].loader = h->classes[c].loader_id;
			v[n].c = (uint32_t)c;
			n++;
		}
	qsort(v, n, sizeof *v, by_name_loader);
	size_t k = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i + 1, loaders = 1;
		for (; j < n && !strcmp(v[j].name, v[i].name); j++)
			if (v[j].loader != v[j - 1].loader)
				loaders++;
		if (loaders > 1) {
			G->dup_off[G->ndups++] = (uint32_t)k;
			for (size_t m = i; m < j; m++) {
				if (m > i && v[m].loader == v[m - 1].loader)
					continue;          /* one per loader */
				G->dup_class[k++] = v[m].c;
				G->g[cg[v[m].c]].duplicates++;
			}
		}
		i = j;
	}
	G->dup_off[G->ndups] = (uint32_t)k;
	hp_free(v);
	return HP_OK;
}

/* the top objects collected: a min-heap of k per group (by retained size),
 * or with HP_GROUPS_ALL_TOPS a list of (group, object) pairs */
struct tops {
	size_t k;
	uint32_t *heap, *n;           /* k per group; entries per group */
	struct tpair { uint32_t g, v; } *all;
	size_t nall, capall;
	const uint64_t *ret;
};

static int heap_less(const struct tops *T, uint32_t a, uint32_t b)
{
	if (T->ret[a] != T->ret[b])
		return T->ret[a] < T->ret[b];
	return a > b;             /* the later object is the smaller */
}

static int tops_add(struct tops *T, uint32_t g, uint32_t v)
{
	if (T->all) {
		if (T->nall == T->capall) {
			struct tpair *na = hp_grow(T->all, &T->capall, T->nall + 1, 64, sizeof *na);
			if (!na)
				return HP_ENOMEM;
			T->all = na;
		}
		T->all[T->nall++] = (struct tpair){ g, v };
		return HP_OK;
	}
	uint32_t *hp = T->heap + (size_t)g * T->k;
	size_t n = T->n[g], i;
	if (n < T->k) {
		for (i = n++; i && heap_less(T, v, hp[(i - 1) / 2]); i = (i - 1) / 2)
			hp[i] = hp[(i - 1) / 2];
		hp[i] = v;
		T->n[g] = (uint32_t)n;
		return HP_OK;
	}
	if (!heap_less(T, hp[0], v))
		return HP_OK;
	for (i = 0;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && heap_less(T, hp[c + 1], hp[c]))
			c++;
		if (!heap_less(T, hp[c], v))
			break;
		hp[i] = hp[c];
		i = c;
	}
	hp[i] = v;
	return HP_OK;
}

static const uint64_t *sort_ret;

static int by_ret_desc(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return hp_cmp2_u64(sort_ret[y], sort_ret[x], x, y);
}

static int by_pair(const void *a, const void *b)
{
	const struct tpair *x = a, *y = b;
	if (x->g != y->g)
		return x->g < y->g ? -1 : 1;
	return by_ret_desc(&x->v, &y->v);
}

/* the tops into G->top, each group's largest first */
static int tops_finish(struct tops *T, struct hp_groups *G)
{
	size_t total = 0;
	if (T->all)
		total = T->nall;
	else
		for (size_t g = 0; g < G->n; g++)
			total += T->n[g];
	G->top = hp_reallocarray(NULL, total ? total : 1, sizeof *G->top);
	if (!G->top)
		return HP_ENOMEM;
	sort_ret = T->ret;
	if (T->all) {
		if (T->nall > 1)
			qsort(T->all, T->nall, sizeof *T->all, by_pair);
		for (size_t i = 0; i < T->nall; i++) {
			struct hp_group *g = &G->g[T->all[i].g];
			if (!g->top_n)
				g->top_at = (uint32_t)i;
			g->top_n++;
			G->top[i] = T->all[i].v;
		}
		return HP_OK;
	}
	size_t at = 0;
	for (size_t g = 0; g < G->n; g++) {
		G->g[g].top_at = (uint32_t)at;
		G->g[g].top_n = T->n[g];
		memcpy(G->top + at, T->heap + g * T->k, T->n[g] * sizeof *G->top);
		if (T->n[g] > 1)
			qsort(G->top + at, T->n[g], sizeof *G->top, by_ret_desc);
		at += T->n[g];
	}
	return HP_OK;
}

static uint64_t waste_of(const struct hp_groups_more *M, uint32_t v)
{
	size_t lo = 0, hi = M->nwaste;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (M->waste[mid].obj < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < M->nwaste && M->waste[lo].obj == v ? M->waste[lo].bytes : 0;
}

/* The group object v counts in (the innermost package), and whether it is
 * of java.lang.Class's rows (*heap: which, as the rows count it): a class
 * object is its class's, from its CLASS DUMP */
static inline uint32_t object_group(const struct hp_groups *G, const hp_heap *h, uint32_t v, int *part,
				    unsigned *heap)
{
	uint32_t c = h->cls[v], r;
	unsigned hh = hp_heap_heap(h, v);
	*part = 0;
	if (c == h->jlc) {
		*part = 1;
		if (hp_heap_kind(h, v) == HP_OBJ_CLASS) {
			uint32_t k = hp_idmap_get(&h->class_map, hp_heap_id(h, v));
			if (k != HP_IDMAP_NONE && h->classes[k].dumped) {
				*heap = h->classes[k].heap;
				return G->class_group[k];
			}
		}
	}
	*heap = hh;
	r = hp_heap_row_of(h, c, hh);
	return r == HP_NONE ? HP_NONE : G->row_group[r];
}

uint32_t hp_groups_object_group(const struct hp_groups *G, const hp_heap *h, uint32_t v)
{
	int part;
	unsigned heap;
	return object_group(G, h, v, &part, &heap);
}

/* The fold of fold.h with the group as the key, its enclosing packages
 * after it; an object of java.lang.Class's rows has first the key of its
 * group's part of the row (G->n + g * nheaps + heap), then its group's.  The
 * waste in a top object's subtree: a running sum of the objects' wastes in
 * the walk's order, read when the object is entered and again when its
 * subtree is done (the objects between are its subtree). */
struct group_fold {
	const hp_heap *h;
	const struct hp_retained *R;
	const struct hp_groups_more *M;
	struct hp_groups *G;
	struct tops *T;
	int tops, waste;
	uint64_t run;                 /* the wastes of the objects entered so far */
	uint64_t before;              /* run before the object entered last */
	uint64_t *start;              /* per group: run before its top object on the path */
};

/* under VisualVM's sizes class objects do not count (but hold their group) */
static int group_counts(const struct group_fold *F, uint32_t v)
{
	return !(F->R->visualvm && hp_heap_kind(F->h, v) == HP_OBJ_CLASS);
}

static uint32_t group_key(void *ud, uint32_t v)
{
	const struct group_fold *F = ud;
	int part;
	unsigned heap;
	uint32_t g = object_group(F->G, F->h, v, &part, &heap);
	return part && g != HP_NONE ? (uint32_t)(F->G->n + (size_t)g * F->G->nheaps + heap) : g;
}

static uint32_t group_next(void *ud, uint32_t k)
{
	const struct group_fold *F = ud;
	if (k >= F->G->n)
		return (uint32_t)((k - F->G->n) / F->G->nheaps);
	return F->G->g[k].parent;
}

static int group_enter(void *ud, uint32_t v)
{
	struct group_fold *F = ud;
	if (F->waste) {
		F->before = F->run;
		F->run += waste_of(F->M, v);
	}
	return 1;
}

static int group_top(void *ud, uint32_t v, uint32_t g)
{
	struct group_fold *F = ud;
	if (g >= F->G->n) {
		if (group_counts(F, v))
			F->G->jlc[g - F->G->n].retained += F->R->retained[v];
		return HP_OK;
	}
	if (F->waste)
		F->start[g] = F->before;
	if (!group_counts(F, v))
		return HP_OK;
	F->G->g[g].retained += F->R->retained[v];
	F->G->g[g].ntops++;
	return F->tops ? tops_add(F->T, g, v) : HP_OK;
}

static void group_top_done(void *ud, uint32_t v, uint32_t g)
{
	struct group_fold *F = ud;
	if (g < F->G->n && F->waste && group_counts(F, v))
		F->G->g[g].waste += F->run - F->start[g];
}

static const struct hp_fold_ops group_ops = {
	.key = group_key, .next = group_next, .enter = group_enter, .top = group_top, .top_done = group_top_done,
};

static int retained_sums(const hp_heap *h, const struct hp_retained *R, const struct hp_groups_more *M,
			 struct hp_groups *G)
{
	struct tops T;
	memset(&T, 0, sizeof T);
	T.ret = R->retained;
	struct group_fold F = { h, R, M, G, &T, 0, M && M->waste, 0, 0, NULL };
	int rc = HP_ENOMEM;
	if (M && M->ktop == HP_GROUPS_ALL_TOPS) {
		T.capall = 1024;
		if (!(T.all = hp_reallocarray(NULL, T.capall, sizeof *T.all)))
			goto out;
	} else if (M && M->ktop) {
		T.k = M->ktop;
		T.n = hp_calloc(G->n ? G->n : 1, sizeof *T.n);
		T.heap = hp_reallocarray(NULL, G->n ? G->n : 1, T.k * sizeof *T.heap);
		if (!T.n || !T.heap || T.k > SIZE_MAX / 8 / (G->n ? G->n : 1))
			goto out;
	}
	F.tops = T.all || T.k;
	if (F.waste && !(F.start = hp_reallocarray(NULL, G->n ? G->n : 1, sizeof *F.start)))
		goto out;
	if ((rc = hp_fold(R->child_off, R->children, h->nobj, G->n + G->n * G->nheaps, &group_ops, &F)) != HP_OK)
		goto out;
	if (F.tops)
		rc = tops_finish(&T, G);
	G->has_waste = F.waste;
out:
	hp_free_all(F.start, T.n, T.heap, T.all);
	return rc;
}

int hp_groups_compute(const hp_heap *h, const struct hp_retained *R, int by, const uint8_t *row_in,
		      const uint32_t *comp, const char *const *comp_names, size_t ncomp,
		      struct hp_groups *G, struct hp_error *err)
{
	return hp_groups_compute_more(h, R, by, row_in, comp, comp_names, ncomp, NULL, G, err);
}

/* The rows asked (in[r]) and the classes with objects among them (want[c]:
 * a row of c, or c's class object with java.lang.Class's row of its heap) */
static void rows_asked(const hp_heap *h, const uint8_t *row_in, uint8_t *in, uint8_t *want)
{
	for (size_t r = 0; r < h->nrows; r++) {
		const struct hp_hrow *w = &h->rows[r];
		in[r] = row_in ? row_in[r] != 0 : w->count + w->class_objs != 0;
		if (in[r])
			want[w->cls] = 1;
	}
	for (size_t c = 0; c < h->nclasses && h->jlc != HP_NONE; c++)
		if (h->classes[c].dumped) {
			uint32_t r = hp_heap_row_of(h, h->jlc, h->classes[c].heap);
			if (r != HP_NONE && in[r])
				want[c] = 1;
		}
}

static void add_up(struct hp_groups *G, uint32_t gi, uint64_t n, uint64_t shallow)
{
	for (uint32_t g = gi; g != HP_NONE; g = G->g[g].parent) {
		G->g[g].instances += n;
		G->g[g].shallow += shallow;
	}
}

/* The groups' instances, shallow bytes and classes from the rows asked, but
 * for java.lang.Class's: its class objects go to their classes' groups
 * (G->class_group), the rest of it to its own group.  A class counts in the
 * groups of its row's objects; java.lang.Class's rows once in each group
 * (a heap mask per group, of the rows it has a part of, the group's
 * subpackages' included). */
static int row_sums(const hp_heap *h, const uint8_t *in, const uint32_t *cg, struct hp_groups *G)
{
	size_t nh = G->nheaps;
	uint16_t *mask = hp_calloc(G->n ? G->n : 1, sizeof *mask);
	if (!mask)
		return HP_ENOMEM;
	uint64_t selfsum[HP_MAX_HEAPS] = { 0 };   /* the class objects in java.lang.Class's rows */
	for (size_t c = 0; c < h->nclasses; c++) {
		const struct hp_class *k = &h->classes[c];
		G->class_group[c] = HP_NONE;
		if (!k->dumped || h->jlc == HP_NONE || k->heap >= nh)
			continue;
		selfsum[k->heap] += k->self_size;
		uint32_t r = hp_heap_row_of(h, h->jlc, k->heap);
		if (r == HP_NONE || !in[r] || cg[c] == HP_NONE)
			continue;
		uint32_t gi = G->class_group[c] = cg[c];
		struct hp_group_jlc *p = &G->jlc[gi * nh + k->heap];
		p->instances++;
		p->shallow += k->self_size;
		add_up(G, gi, 1, k->self_size);
		for (uint32_t g = gi; g != HP_NONE; g = G->g[g].parent)
			mask[g] |= (uint16_t)(1u << k->heap);
	}
	for (size_t r = 0; r < h->nrows; r++) {
		const struct hp_hrow *w = &h->rows[r];
		uint32_t gi = in[r] ? cg[w->cls] : HP_NONE;
		G->row_group[r] = gi;
		if (gi == HP_NONE)
			continue;
		if (w->cls != h->jlc) {
			add_up(G, gi, w->count + w->class_objs, w->shallow);
			if (w->count + w->class_objs)
				for (uint32_t g = gi; g != HP_NONE; g = G->g[g].parent)
					G->g[g].classes++;
			continue;
		}
		/* java.lang.Class's objects that are no class object */
		uint64_t cs = w->heap < nh ? selfsum[w->heap] : 0;
		uint64_t own = w->shallow > cs ? w->shallow - cs : 0;
		if (!w->count || w->heap >= nh)
			continue;
		G->jlc[gi * nh + w->heap].instances += w->count;
		G->jlc[gi * nh + w->heap].shallow += own;
		add_up(G, gi, w->count, own);
		for (uint32_t g = gi; g != HP_NONE; g = G->g[g].parent)
			mask[g] |= (uint16_t)(1u << w->heap);
	}
	for (size_t g = 0; g < G->n; g++)
		for (unsigned m = mask[g]; m; m &= m - 1)
			G->g[g].classes++;
	hp_free(mask);
	return HP_OK;
}

int hp_groups_compute_more(const hp_heap *h, const struct hp_retained *R, int by, const uint8_t *row_in,
			   const uint32_t *comp, const char *const *comp_names, size_t ncomp,
			   const struct hp_groups_more *more, struct hp_groups *G, struct hp_error *err)
{
	memset(G, 0, sizeof *G);
	G->by = by;
	size_t gcap = 0;
	unsigned nh = 1;
	for (size_t r = 0; r < h->nrows; r++)
		if (h->rows[r].heap < HP_MAX_HEAPS && h->rows[r].heap >= nh)
			nh = h->rows[r].heap + 1u;
	G->nheaps = nh;
	uint32_t *cg = hp_reallocarray(NULL, h->nclasses ? h->nclasses : 1, sizeof *cg);
	uint8_t *in = hp_calloc(h->nrows ? h->nrows : 1, 1);
	uint8_t *want = hp_calloc(h->nclasses ? h->nclasses : 1, 1);
	G->row_group = hp_reallocarray(NULL, h->nrows ? h->nrows : 1, sizeof *G->row_group);
	G->class_group = hp_reallocarray(NULL, h->nclasses ? h->nclasses : 1, sizeof *G->class_group);
	int rc = HP_ENOMEM;
	if (!cg || !in || !want || !G->row_group || !G->class_group)
		goto out;
	rows_asked(h, row_in, in, want);
	if ((rc = class_groups(h, by == HP_GROUP_PACKAGE_FLAT ? HP_GROUP_PACKAGE : by, row_in != NULL, want, comp,
			       comp_names, ncomp, G, &gcap, cg)))
		goto out;
	if (by == HP_GROUP_PACKAGE_FLAT)
		for (size_t i = 0; i < G->n; i++) {
			G->g[i].parent = HP_NONE;
			G->g[i].depth = 1;
			G->g[i].nchildren = 0;
		}
	if ((by == HP_GROUP_LOADER || (more && by == HP_GROUP_COMPONENT)) && (rc = duplicates(h, G, cg)))
		goto out;
	rc = HP_ENOMEM;
	if (!(G->jlc = hp_calloc(G->n ? G->n * nh : 1, sizeof *G->jlc)))
		goto out;
	if ((rc = row_sums(h, in, cg, G)))
		goto out;
	if (R && h->nobj) {
		if ((rc = retained_sums(h, R, more, G)))
			goto out;
		G->retained = 1;
	}
	rc = HP_OK;
out:
	hp_free(cg);
	hp_free(in);
	hp_free(want);
	if (rc) {
		hp_groups_release(G);
		return hp_error_set(err, rc, "out of memory grouping the classes");
	}
	return HP_OK;
}

int hp_groups_loader_names(struct hp_groups *G, const hp_heap *h, hp_objread *rd, struct hp_error *err)
{
	static const char *const fields[] = { "contextName", "symbolicName", "name" };
	for (size_t i = 0; i < G->n; i++) {
		struct hp_group *g = &G->g[i];
		if (g->loader_obj == HP_NONE || hp_heap_kind(h, g->loader_obj) != HP_OBJ_INSTANCE)
			continue;
		struct hp_objdata o;
		int rc = hp_objread_decode(rd, g->loader_obj, 0, &o, err);
		if (rc)
			return rc;
		for (size_t k = 0; k < sizeof fields / sizeof *fields && !g->has_loader_name; k++) {
			const struct hp_objval *f = hp_objread_field(rd, &o, fields[k], NULL);
			if (!f || f->type != HP_T_OBJECT || !f->bits)
				continue;
			size_t so = hp_heap_find(h, f->bits);
			if (so == SIZE_MAX || !hp_objread_is_string(h, so))
				continue;
			struct hp_text t;
			if ((rc = hp_objread_text(rd, so, 200, &t, err))) {
				hp_objread_release(&o);
				return rc;
			}
			if (t.utf8) {
				size_t off;
				if (text_add(G, t.utf8, strlen(t.utf8), &off)) {
					hp_objread_text_release(&t);
					hp_objread_release(&o);
					return hp_error_set(err, HP_ENOMEM, "out of memory reading the loaders' names");
				}
				g->name = off;
				g->has_loader_name = 1;
			}
			hp_objread_text_release(&t);
		}
		hp_objread_release(&o);
	}
	return HP_OK;
}

void hp_groups_release(struct hp_groups *G)
{
	hp_free_all(G->g, G->row_group, G->class_group, G->jlc, G->dup_class, G->dup_off, G->top,
		    G->text);
	memset(G, 0, sizeof *G);
}
