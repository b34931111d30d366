/* browse_model.c — the list model of hprofan browse, no curses (see
 * browse_model.h); cmd_browse.c draws it. */
#include "cli/browse_model.h"
#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>

static int nomem(struct hp_error *err)
{
	return hp_error_set(err, HP_ENOMEM, "out of memory");
}

static void level_free(struct hp_blevel *L)
{
	hp_free_all(L->rows, L->members, L->vis, L->filter, L->own_src, L->order, L->done);
	memset(L, 0, sizeof *L);
}

static void by_class_join(struct hp_browse *m)
{
	if (m->cls_th_on) {
		pthread_join(m->cls_th, NULL);
		m->cls_th_on = 0;
	}
}

void hp_browse_release(struct hp_browse *m)
{
	by_class_join(m);
	for (size_t i = 0; i < m->depth; i++)
		level_free(&m->levels[i]);
	hp_free_all(m->levels, m->subtree_own, m->cls_off, m->cls_objs, m->cls_shallow, m->list);
	for (size_t i = 0; i < m->ntls; i++)
		hp_free(m->tls[i].name);
	hp_free(m->tls);
	hp_free(m->tl_vals);
	hp_free(m->walk);
	memset(m, 0, sizeof *m);
}

int hp_browse_init(struct hp_browse *m, const hp_heap *h, const struct hp_retained *R, struct hp_error *err)
{
	memset(m, 0, sizeof *m);
	m->h = h;
	m->R = R;
	m->group_min = 2;
	/* subtree counts: an index keeps them, else one pass makes them */
	if (R->subtree) {
		m->subtree = R->subtree;
	} else if (hp_retained_subtree(R, h->nobj, &m->subtree_own) != HP_OK) {
		hp_browse_release(m);
		return nomem(err);
	} else {
		m->subtree = m->subtree_own;
	}
	int rc = hp_browse_set_view(m, HP_BV_DOM, err);
	if (rc)
		hp_browse_release(m);
	return rc;
}

/* ---- rows ------------------------------------------------------------- */

/* the class whose name object v goes by: its class, or for a class object
 * the class it is */
static uint32_t name_class(const hp_heap *h, uint32_t v)
{
	if (hp_heap_kind(h, v) == HP_OBJ_CLASS) {
		size_t k = hp_idmap_get(&h->class_map, hp_heap_id(h, v));
		if (k != HP_IDMAP_NONE)
			return (uint32_t)k;
	}
	return h->cls[v];
}

const char *hp_browse_name(const struct hp_browse *m, const struct hp_brow *r)
{
	const hp_heap *h = m->h;
	switch (r->kind) {
	case HP_BR_OBJECT:
		return hp_class_name(h, name_class(h, r->id));
	case HP_BR_GROUP:
	case HP_BR_CLASS:
		return hp_class_name(h, r->id);
	case HP_BR_THREAD:
		return m->tnames && m->tnames[r->id] ? m->tnames[r->id] : "";
	case HP_BR_FRAME:
		return "";
	case HP_BR_CGROUP:
		return m->gnames && m->gnames[r->id] ? m->gnames[r->id] : "";
	case HP_BR_TLS:
		return r->id < m->ntls ? m->tls[r->id].name : "";
	default:
		return hp_root_kind_name((int)r->id);
	}
}

uint64_t hp_browse_size(const struct hp_browse *m, const struct hp_brow *r)
{
	return m->shallow ? r->shallow : r->retained;
}

static struct hp_brow object_row(const struct hp_browse *m, uint32_t v);
#define LAZY_SLOTS 256
static void lazy_fix(const struct hp_browse *m, struct hp_blevel *L, size_t p);

const struct hp_brow *hp_browse_row(const struct hp_browse *m, size_t i)
{
	struct hp_blevel *L = hp_browse_level(m);
	if (L->lazy) {   /* made in a ring of LAZY_SLOTS rows */
		lazy_fix(m, L, i);
		struct hp_brow *r = &L->rows[i % LAZY_SLOTS];
		*r = object_row(m, L->order[i]);
		return r;
	}
	return &L->rows[L->vis[i]];
}

const struct hp_brow *hp_browse_cur(const struct hp_browse *m)
{
	const struct hp_blevel *L = hp_browse_level(m);
	return L->nvis ? hp_browse_row(m, L->cursor) : NULL;
}

uint64_t hp_browse_total(const struct hp_browse *m)
{
	const struct hp_blevel *L = hp_browse_level(m);
	return m->shallow ? L->total_shallow : L->total_retained;
}

uint64_t hp_browse_max(const struct hp_browse *m)
{
	const struct hp_blevel *L = hp_browse_level(m);
	return m->shallow ? L->max_shallow : L->max_retained;
}

static int has_children(const struct hp_browse *m, uint32_t v)
{
	return m->R->child_off[v + 1] > m->R->child_off[v];
}

int hp_browse_can_open(const struct hp_browse *m, const struct hp_brow *r)
{
	switch (r->kind) {
	case HP_BR_OBJECT: return has_children(m, r->id);
	case HP_BR_GROUP: return r->n > 0;
	case HP_BR_TLS: return r->id < m->ntls && m->tls[r->id].n > 0;
	case HP_BR_FRAME: return 0;
	default: return 1;   /* a class, a root kind, a thread, a group: its list (empty or not) */
	}
}

static struct hp_brow object_row(const struct hp_browse *m, uint32_t v)
{
	struct hp_brow r;
	memset(&r, 0, sizeof r);
	r.kind = HP_BR_OBJECT;
	r.id = v;
	r.retained = m->R->retained[v];
	r.shallow = hp_retained_shallow(m->R, v);
	r.count = m->subtree[v];
	return r;
}

/* ---- sorting ---------------------------------------------------------- */

struct sortctx { const struct hp_browse *m; int key, reverse; };

static int cmp_u64(uint64_t a, uint64_t b) { return a < b ? -1 : a > b; }

static int row_cmp(const void *pa, const void *pb, void *ud)
{
	const struct sortctx *c = ud;
	const struct hp_brow *a = pa, *b = pb;
	int r = 0;
	switch (c->key) {
	case HP_BSORT_SIZE:
		r = -cmp_u64(hp_browse_size(c->m, a), hp_browse_size(c->m, b));
		break;
	case HP_BSORT_COUNT:
		r = -cmp_u64(a->count, b->count);
		break;
	default:
		r = strcmp(hp_browse_name(c->m, a), hp_browse_name(c->m, b));
		break;
	}
	if (!r && c->key != HP_BSORT_SIZE)
		r = -cmp_u64(hp_browse_size(c->m, a), hp_browse_size(c->m, b));
	if (!r)
		r = a->kind != b->kind ? (a->kind < b->kind ? -1 : 1) : cmp_u64(a->id, b->id);
	return c->reverse ? -r : r;
}

/* the visible rows, in order, and their largest sizes: whenever the rows,
 * their order or the filter change (never on a redraw: see hp_browse_max) */
static void rebuild_vis(struct hp_blevel *L)
{
	L->nvis = 0;
	L->max_retained = L->max_shallow = 0;
	for (size_t i = 0; i < L->nrows; i++) {
		const struct hp_brow *r = &L->rows[i];
		if (r->hidden)
			continue;
		L->vis[L->nvis++] = i;
		if (r->retained > L->max_retained)
			L->max_retained = r->retained;
		if (r->shallow > L->max_shallow)
			L->max_shallow = r->shallow;
	}
	if (L->cursor >= L->nvis)
		L->cursor = L->nvis ? L->nvis - 1 : 0;
}

size_t hp_browse_radix_from = 20000;

/*
 * row_cmp's order for a big level, in linear time: each row's order is a
 * tuple of up to three 64-bit keys, most significant first, every one made
 * ascending (a descending size is ~size; reverse complements all of them).
 * LSD radix sort by byte, least significant key first, skipping the bytes
 * that are the same in every row; the keys travel with the row numbers so
 * each pass reads sequentially.  Sorting by name takes this path only when
 * every row has the same name (one class's instances), which leaves the
 * size and the id.  Returns 0 when out of memory (the caller falls back to
 * qsort_r), 1 when sorted.
 */
struct keyed { uint64_t key; uint32_t row; };

static int radix_rows(const struct hp_browse *m, struct hp_blevel *L, int key, int reverse)
{
	size_t n = L->nrows;
	if (n > UINT32_MAX)
		return 0;
	uint64_t flip = reverse ? ~0ull : 0;
	struct keyed *a = hp_reallocarray(NULL, n, sizeof *a), *b = hp_reallocarray(NULL, n, sizeof *b);
	struct hp_brow *out = hp_reallocarray(NULL, n, sizeof *out);
	if (!a || !b || !out) {
		hp_free(a);
		hp_free(b);
		hp_free(out);
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		a[i].row = (uint32_t)i;
	int nkeys = key == HP_BSORT_COUNT ? 3 : 2;
	for (int k = nkeys - 1; k >= 0; k--) {
		/* key k of each row, in the current order */
		for (size_t i = 0; i < n; i++) {
			const struct hp_brow *r = &L->rows[a[i].row];
			uint64_t x;
			if (k == nkeys - 1)
				x = (uint64_t)r->kind << 32 | r->id;
			else if (k == 0 && key == HP_BSORT_COUNT)
				x = ~r->count;
			else
				x = ~hp_browse_size(m, r);
			a[i].key = x ^ flip;
		}
		uint64_t same_and = ~0ull, same_or = 0;
		for (size_t i = 0; i < n; i++) {
			same_and &= a[i].key;
			same_or |= a[i].key;
		}
		uint64_t varies = same_and ^ same_or;
		for (int shift = 0; shift < 64; shift += 8) {
			if (!((varies >> shift) & 0xff))
				continue;
			size_t cnt[257] = { 0 };
			for (size_t i = 0; i < n; i++)
				cnt[((a[i].key >> shift) & 0xff) + 1]++;
			for (int d = 0; d < 256; d++)
				cnt[d + 1] += cnt[d];
			for (size_t i = 0; i < n; i++)
				b[cnt[(a[i].key >> shift) & 0xff]++] = a[i];
			struct keyed *t = a;
			a = b;
			b = t;
		}
	}
	for (size_t i = 0; i < n; i++)
		out[i] = L->rows[a[i].row];
	hp_free(a);
	hp_free(b);
	hp_free(L->rows);
	L->rows = out;
	return 1;
}

/* every row has the same name: sorting by name is sorting by size, then id */
static int one_name(const struct hp_browse *m, const struct hp_blevel *L)
{
	const char *first = L->nrows ? hp_browse_name(m, &L->rows[0]) : NULL;
	for (size_t i = 1; i < L->nrows; i++) {
		const char *s = hp_browse_name(m, &L->rows[i]);
		if (s != first && (!s || !first || strcmp(s, first)))
			return 0;
	}
	return 1;
}

/* ---- lazy levels ------------------------------------------------------- */

size_t hp_browse_lazy_from = 100000;

/* row_cmp's order for two object rows of a lazy level, in L's order */
static int obj_cmp(const struct hp_browse *m, const struct hp_blevel *L, uint32_t a, uint32_t b)
{
	int r = 0;
	uint64_t sa = L->shallow ? hp_retained_shallow(m->R, a) : m->R->retained[a];
	uint64_t sb = L->shallow ? hp_retained_shallow(m->R, b) : m->R->retained[b];
	switch (L->sort) {
	case HP_BSORT_SIZE:
		r = -cmp_u64(sa, sb);
		break;
	case HP_BSORT_COUNT:
		r = -cmp_u64(m->subtree[a], m->subtree[b]);
		break;
	default: {
		uint32_t ca = name_class(m->h, a), cb = name_class(m->h, b);
		if (ca != cb)
			r = strcmp(hp_class_name(m->h, ca), hp_class_name(m->h, cb));
		break;
	}
	}
	if (!r && L->sort != HP_BSORT_SIZE)
		r = -cmp_u64(sa, sb);
	if (!r)
		r = cmp_u64(a, b);
	return L->reverse ? -r : r;
}

static int bit(const uint64_t *b, size_t i) { return (int)(b[i >> 6] >> (i & 63) & 1); }
static void set_bit(uint64_t *b, size_t i) { b[i >> 6] |= 1ull << (i & 63); }

/*
 * Makes position p of a lazy level final: quickselect between the nearest
 * final positions around p (random pivots, so no input makes it
 * quadratic), each pivot final where it lands; a piece of at most 16 is
 * sorted outright.  The scans for the bounds cost no more than the
 * partition they bound.
 */
static void lazy_fix(const struct hp_browse *m, struct hp_blevel *L, size_t p)
{
	uint64_t *done = L->done;
	if (bit(done, p))
		return;
	size_t lo = p, hi = p + 1, n = L->nvis;
	while (lo > 0 && !bit(done, lo - 1)) {
		if (!(lo & 63) && !done[(lo >> 6) - 1])
			lo -= 64;
		else
			lo--;
	}
	while (hi < n && !bit(done, hi)) {
		if (!(hi & 63) && !done[hi >> 6])
			hi += 64;
		else
			hi++;
	}
	if (hi > n)
		hi = n;
	uint32_t *a = L->order;
	while (hi - lo > 16) {
		L->rng ^= L->rng << 13;
		L->rng ^= L->rng >> 7;
		L->rng ^= L->rng << 17;
		size_t pi = lo + (size_t)(L->rng % (hi - lo));
		uint32_t piv = a[pi];
		a[pi] = a[hi - 1];
		a[hi - 1] = piv;
		size_t st = lo;
		for (size_t i = lo; i < hi - 1; i++)
			if (obj_cmp(m, L, a[i], piv) < 0) {
				uint32_t t = a[i];
				a[i] = a[st];
				a[st++] = t;
			}
		a[hi - 1] = a[st];
		a[st] = piv;
		set_bit(done, st);
		if (st == p)
			return;
		if (p < st)
			hi = st;
		else
			lo = st + 1;
	}
	for (size_t i = lo + 1; i < hi; i++) {
		uint32_t x = a[i];
		size_t j = i;
		for (; j > lo && obj_cmp(m, L, x, a[j - 1]) < 0; j--)
			a[j] = a[j - 1];
		a[j] = x;
	}
	for (size_t i = lo; i < hi; i++)
		set_bit(done, i);
}

/* the largest sizes among the visible objects, nothing final yet */
static void lazy_reset(const struct hp_browse *m, struct hp_blevel *L)
{
	memset(L->done, 0, ((L->nsrc >> 6) + 1) * sizeof *L->done);
	L->max_retained = L->max_shallow = 0;
	for (size_t i = 0; i < L->nvis; i++) {
		uint32_t v = L->order[i];
		if (m->R->retained[v] > L->max_retained)
			L->max_retained = m->R->retained[v];
		if (hp_retained_shallow(m->R, v) > L->max_shallow)
			L->max_shallow = hp_retained_shallow(m->R, v);
	}
	if (L->cursor >= L->nvis)
		L->cursor = L->nvis ? L->nvis - 1 : 0;
}

/* the position object v takes in L's order (one pass), SIZE_MAX when hidden */
static size_t lazy_rank(const struct hp_browse *m, const struct hp_blevel *L, uint32_t v)
{
	size_t below = 0;
	int seen = 0;
	for (size_t i = 0; i < L->nvis; i++) {
		uint32_t x = L->order[i];
		if (x == v)
			seen = 1;
		else
			below += obj_cmp(m, L, x, v) < 0;
	}
	return seen ? below : SIZE_MAX;
}

/* Puts the level in the model's order, keeping the cursor on its row. */
static void level_sort(struct hp_browse *m, struct hp_blevel *L)
{
	if (L->sort == m->sort && L->reverse == m->reverse && L->shallow == m->shallow)
		return;
	if (L->fixed) {   /* a stack keeps its order; sizes shown switch all the same */
		L->sort = m->sort;
		L->reverse = m->reverse;
		L->shallow = m->shallow;
		return;
	}
	if (L->lazy) {
		int have = L->nvis > 0;
		uint32_t keep = have ? (hp_browse_row(m, L->cursor), L->order[L->cursor]) : 0;
		L->sort = m->sort;
		L->reverse = m->reverse;
		L->shallow = m->shallow;
		lazy_reset(m, L);
		if (have) {
			size_t at = lazy_rank(m, L, keep);
			L->cursor = at == SIZE_MAX ? 0 : at;
		}
		return;
	}
	struct hp_brow keep;
	int have = L->nvis > 0;
	if (have)
		keep = L->rows[L->vis[L->cursor]];
	struct sortctx c = { m, m->sort, m->reverse };
	int done = 0;
	if (L->nrows >= hp_browse_radix_from) {
		if (m->sort != HP_BSORT_NAME)
			done = radix_rows(m, L, m->sort, m->reverse);
		else if (one_name(m, L))
			done = radix_rows(m, L, HP_BSORT_SIZE, m->reverse);
	}
	if (!done)
		qsort_r(L->rows, L->nrows, sizeof *L->rows, row_cmp, &c);
	L->sort = m->sort;
	L->reverse = m->reverse;
	L->shallow = m->shallow;
	rebuild_vis(L);
	if (have)
		for (size_t i = 0; i < L->nvis; i++) {
			const struct hp_brow *r = &L->rows[L->vis[i]];
			if (r->kind == keep.kind && r->id == keep.id) {
				L->cursor = i;
				break;
			}
		}
}

/* ---- levels ----------------------------------------------------------- */

static struct hp_blevel *push(struct hp_browse *m, int kind, uint32_t node, size_t nrows, struct hp_error *err)
{
	if (m->depth == m->cap) {
		size_t nc = m->cap ? 2 * m->cap : 8;
		struct hp_blevel *l = hp_reallocarray(m->levels, nc, sizeof *l);
		if (!l) {
			nomem(err);
			return NULL;
		}
		m->levels = l;
		m->cap = nc;
	}
	struct hp_blevel *L = &m->levels[m->depth];
	memset(L, 0, sizeof *L);
	L->kind = kind;
	L->node = node;
	L->rows = hp_calloc(nrows ? nrows : 1, sizeof *L->rows);
	L->vis = hp_calloc(nrows ? nrows : 1, sizeof *L->vis);
	if (!L->rows || !L->vis) {
		level_free(L);
		nomem(err);
		return NULL;
	}
	L->sort = -1;
	m->depth++;
	return L;
}

/* the rows are in; sort and show them */
static void finish(struct hp_browse *m, struct hp_blevel *L)
{
	L->total_shallow = 0;
	for (size_t i = 0; i < L->nrows; i++)
		L->total_shallow += L->rows[i].shallow;
	rebuild_vis(L);
	level_sort(m, L);
	L->cursor = 0;
}

struct member { uint32_t cls, obj; };

static int member_cmp(const void *pa, const void *pb)
{
	const struct member *a = pa, *b = pb;
	return a->cls != b->cls ? (a->cls < b->cls ? -1 : 1) : (a->obj < b->obj ? -1 : a->obj > b->obj);
}

/* members in member_cmp's order, in linear time: a counting sort by class
 * (class objects last), each class's members by object number by a second
 * counting pass over the object numbers' order (a radix sort of two digits
 * keyed by class: the objects come sorted by number first).  0 when out of
 * memory (the caller sorts by comparison). */
static int by_class(const hp_heap *h, struct member *mb, size_t k)
{
	size_t nc = h->nclasses;
	uint32_t *cnt = hp_calloc(nc + 2, sizeof *cnt);
	size_t *c16 = hp_malloc(65537 * sizeof *c16);
	struct member *t = hp_reallocarray(NULL, k, sizeof *t);
	if (!cnt || !c16 || !t || k > UINT32_MAX) {
		hp_free(cnt);
		hp_free(c16);
		hp_free(t);
		return 0;
	}
	/* by object number first: LSD radix of 16-bit digits */
	for (int shift = 0; shift < 32; shift += 16) {
		memset(c16, 0, 65537 * sizeof *c16);
		for (size_t i = 0; i < k; i++)
			c16[((mb[i].obj >> shift) & 0xffff) + 1]++;
		for (size_t d = 0; d < 65536; d++)
			c16[d + 1] += c16[d];
		for (size_t i = 0; i < k; i++)
			t[c16[(mb[i].obj >> shift) & 0xffff]++] = mb[i];
		memcpy(mb, t, k * sizeof *mb);
	}
	/* then stably by class, class objects (UINT32_MAX) last */
#define SLOT(c) ((c) == UINT32_MAX ? nc : (size_t)(c))
	for (size_t i = 0; i < k; i++)
		cnt[SLOT(mb[i].cls) + 1]++;
	for (size_t c = 0; c <= nc; c++)
		cnt[c + 1] += cnt[c];
	for (size_t i = 0; i < k; i++)
		t[cnt[SLOT(mb[i].cls)]++] = mb[i];
#undef SLOT
	memcpy(mb, t, k * sizeof *mb);
	hp_free(cnt);
	hp_free(c16);
	hp_free(t);
	return 1;
}

/* the dominator children of v (n: the super-root), same-class siblings grouped */
static int open_dom(struct hp_browse *m, uint32_t v, struct hp_error *err)
{
	const hp_heap *h = m->h;
	const struct hp_retained *R = m->R;
	size_t a = R->child_off[v], b = R->child_off[v + 1], k = b - a;
	struct member *mb = hp_malloc((k ? k : 1) * sizeof *mb);
	if (!mb)
		return nomem(err);
	for (size_t i = 0; i < k; i++) {
		uint32_t c = R->children[a + i];
		/* class objects stand alone: each is a different class */
		mb[i].cls = hp_heap_kind(h, c) == HP_OBJ_CLASS ? UINT32_MAX : h->cls[c];
		mb[i].obj = c;
	}
	if (k < 4096 || !by_class(h, mb, k))
		qsort(mb, k, sizeof *mb, member_cmp);
	size_t nrows = 0, ngrouped = 0;
	for (size_t i = 0; i < k;) {
		size_t j = i;
		while (j < k && mb[j].cls == mb[i].cls)
			j++;
		if (mb[i].cls != UINT32_MAX && m->group_min && j - i >= m->group_min) {
			nrows++;
			ngrouped += j - i;
		} else {
			nrows += j - i;
		}
		i = j;
	}
	struct hp_blevel *L = push(m, HP_BL_DOM, v, nrows, err);
	if (!L) {
		hp_free(mb);
		return HP_ENOMEM;
	}
	L->members = hp_malloc((ngrouped ? ngrouped : 1) * sizeof *L->members);
	if (!L->members) {
		hp_free(mb);
		level_free(L);
		m->depth--;
		return nomem(err);
	}
	size_t r = 0, g = 0;
	for (size_t i = 0; i < k;) {
		size_t j = i;
		while (j < k && mb[j].cls == mb[i].cls)
			j++;
		if (mb[i].cls != UINT32_MAX && m->group_min && j - i >= m->group_min) {
			struct hp_brow *row = &L->rows[r++];
			row->kind = HP_BR_GROUP;
			row->id = mb[i].cls;
			row->first = (uint32_t)g;
			row->n = (uint32_t)(j - i);
			for (size_t q = i; q < j; q++) {
				L->members[g++] = mb[q].obj;
				row->retained += R->retained[mb[q].obj];
				row->shallow += hp_retained_shallow(R, mb[q].obj);
				row->count += m->subtree[mb[q].obj];
			}
		} else {
			for (size_t q = i; q < j; q++)
				L->rows[r++] = object_row(m, mb[q].obj);
		}
		i = j;
	}
	hp_free(mb);
	L->nrows = r;
	L->total_retained = v < h->nobj ? R->retained[v] : R->reachable_bytes;
	finish(m, L);
	return HP_OK;
}

/* A level of the objects objs[0 .. n): built, or lazy when big (objs
 * borrowed then, unless own: the level frees own, which is objs). */
static int open_objects(struct hp_browse *m, int kind, uint32_t node, const uint32_t *objs, size_t n,
			uint32_t *own, uint64_t total, struct hp_error *err)
{
	int lazy = n && n >= hp_browse_lazy_from;
	struct hp_blevel *L = push(m, kind, node, lazy ? LAZY_SLOTS : n, err);
	if (!L) {
		hp_free(own);
		return HP_ENOMEM;
	}
	L->nrows = n;
	L->total_retained = total;
	if (!lazy) {
		for (size_t i = 0; i < n; i++)
			L->rows[i] = object_row(m, objs[i]);
		hp_free(own);
		finish(m, L);
		return HP_OK;
	}
	L->lazy = 1;
	L->src = objs;
	L->nsrc = n;
	L->own_src = own;
	L->order = hp_reallocarray(NULL, n, sizeof *L->order);
	L->done = hp_calloc((n >> 6) + 1, sizeof *L->done);
	if (!L->order || !L->done) {
		level_free(L);
		m->depth--;
		return nomem(err);
	}
	memcpy(L->order, objs, n * sizeof *objs);
	L->nvis = n;
	L->rng = 0x9e3779b97f4a7c15ull ^ n;
	for (size_t i = 0; i < n; i++)
		L->total_shallow += hp_retained_shallow(m->R, objs[i]);
	L->sort = m->sort;
	L->reverse = m->reverse;
	L->shallow = m->shallow;
	lazy_reset(m, L);
	L->cursor = 0;
	return HP_OK;
}

/* the instances by class (a counting sort): on hp_browse_prepare()'s
 * thread behind the first screen, else when a view of classes opens */
static int make_by_class(struct hp_browse *m)
{
	const hp_heap *h = m->h;
	const struct hp_retained *R = m->R;
	size_t n = h->nobj, nc = h->nclasses;
	uint32_t *off = hp_calloc(nc + 1, sizeof *off), *fill = hp_malloc((nc ? nc : 1) * sizeof *fill);
	uint32_t *objs = hp_malloc((n ? n : 1) * sizeof *objs);
	uint64_t *shallow = hp_calloc(nc ? nc : 1, sizeof *shallow);
	if (!off || !fill || !objs || !shallow) {
		hp_free_all(off, fill, objs, shallow);
		return HP_ENOMEM;
	}
	for (size_t v = 0; v < n; v++) {
		off[h->cls[v] + 1]++;
		shallow[h->cls[v]] += hp_retained_shallow(R, v);
	}
	for (size_t c = 0; c < nc; c++)
		off[c + 1] += off[c];
	memcpy(fill, off, nc * sizeof *fill);
	for (size_t v = 0; v < n; v++)
		objs[fill[h->cls[v]]++] = (uint32_t)v;
	hp_free(fill);
	m->cls_off = off;
	m->cls_objs = objs;
	m->cls_shallow = shallow;
	return HP_OK;
}

static void *by_class_main(void *arg)
{
	(void)make_by_class(arg);   /* (failed: the view that needs them says so) */
	return NULL;
}

void hp_browse_prepare(struct hp_browse *m)
{
	/* (the thread reads only the heap and R, and writes only cls_*) */
	if (!m->cls_th_on && !m->cls_objs)
		m->cls_th_on = pthread_create(&m->cls_th, NULL, by_class_main, m) == 0;
}

/* the instances by class, for a view of classes: the thread's, or made now */
static int instances_by_class(struct hp_browse *m, struct hp_error *err)
{
	by_class_join(m);
	if (!m->cls_objs && make_by_class(m) != HP_OK)
		return nomem(err);
	return HP_OK;
}

static int open_histo(struct hp_browse *m, struct hp_error *err)
{
	HP_TRY(instances_by_class(m, err));
	const hp_heap *h = m->h;
	size_t k = 0;
	for (size_t c = 0; c < h->nclasses; c++)
		k += m->cls_off[c + 1] > m->cls_off[c];
	struct hp_blevel *L = push(m, HP_BL_HISTO, 0, k, err);
	if (!L)
		return HP_ENOMEM;
	for (size_t c = 0; c < h->nclasses; c++) {
		if (m->cls_off[c + 1] == m->cls_off[c])
			continue;
		struct hp_brow *r = &L->rows[L->nrows++];
		r->kind = HP_BR_CLASS;
		r->id = (uint32_t)c;
		r->count = m->cls_off[c + 1] - m->cls_off[c];
		r->shallow = m->cls_shallow[c];
		r->retained = m->R->class_retained[c];
	}
	L->total_retained = m->R->reachable_bytes;
	finish(m, L);
	return HP_OK;
}

static int open_kinds(struct hp_browse *m, struct hp_error *err)
{
	size_t k = 0;
	for (int i = 0; i < HP_ROOT_NKINDS; i++)
		k += m->h->roots_by_kind[i] > 0;
	struct hp_blevel *L = push(m, HP_BL_KINDS, 0, k, err);
	if (!L)
		return HP_ENOMEM;
	for (int i = 0; i < HP_ROOT_NKINDS; i++) {
		if (!m->h->roots_by_kind[i])
			continue;
		struct hp_brow *r = &L->rows[L->nrows++];
		r->kind = HP_BR_ROOTKIND;
		r->id = (uint32_t)i;
		r->count = m->R->kinds[i].objects;
		r->retained = m->R->kinds[i].retained;
	}
	L->total_retained = m->R->reachable_bytes;
	finish(m, L);
	return HP_OK;
}

static int u32_cmp(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	return a < b ? -1 : a > b;
}

/* the distinct objects root records of kind k name (work: the root records) */
static int open_roots(struct hp_browse *m, int k, struct hp_error *err)
{
	const hp_heap *h = m->h;
	uint32_t *objs = hp_malloc((h->nroots ? h->nroots : 1) * sizeof *objs);
	if (!objs)
		return nomem(err);
	size_t n = 0;
	for (size_t i = 0; i < h->nroots; i++) {
		if (h->roots[i].kind != k)
			continue;
		size_t v = hp_heap_find(h, h->roots[i].object);
		if (v != SIZE_MAX)
			objs[n++] = (uint32_t)v;
	}
	qsort(objs, n, sizeof *objs, u32_cmp);
	size_t u = 0;
	for (size_t i = 0; i < n; i++)
		if (!u || objs[u - 1] != objs[i])
			objs[u++] = objs[i];
	return open_objects(m, HP_BL_ROOTS, (uint32_t)k, objs, u, objs, m->R->reachable_bytes, err);
}

void hp_browse_set_threads(struct hp_browse *m, const struct hp_threads *T, const char *const *names)
{
	m->T = T;
	m->tnames = names;
}

void hp_browse_set_groups(struct hp_browse *m, const struct hp_groups *G, const char *const *names)
{
	m->G = G;
	m->gnames = names;
}

/* every thread, with what its Thread object retains */
static int open_threads(struct hp_browse *m, struct hp_error *err)
{
	size_t n = m->T ? m->T->n : 0;
	struct hp_blevel *L = push(m, HP_BL_THREADS, 0, n, err);
	if (!L)
		return HP_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct hp_thread_info *t = &m->T->t[i];
		struct hp_brow *r = &L->rows[L->nrows++];
		r->kind = HP_BR_THREAD;
		r->id = (uint32_t)i;
		r->retained = t->retained;
		r->shallow = t->shallow;
		r->count = t->obj < m->h->nobj ? m->subtree[t->obj] : 0;
	}
	L->total_retained = m->R->reachable_bytes;
	finish(m, L);
	return HP_OK;
}

/* thread ti's frames, top first, each followed by the objects it holds;
 * then the roots without a frame under one row of their own */
static int open_stack(struct hp_browse *m, uint32_t ti, struct hp_error *err)
{
	const struct hp_thread_info *t = &m->T->t[ti];
	const struct hp_thread_local *lo = m->T->locals + t->first_local;
	size_t nl = t->nlocals, nf = t->nframes;
	int loose = nl && lo[nl - 1].frame == HP_FRAME_NONE;
	struct hp_blevel *L = push(m, HP_BL_STACK, ti, nf + nl + (size_t)loose, err);
	if (!L)
		return HP_ENOMEM;
	L->fixed = 1;
	size_t j = 0;
	for (size_t d = 0; d <= nf; d++) {
		uint32_t depth = d < nf ? (uint32_t)d : HP_FRAME_NONE;
		if (d == nf && !loose)
			break;
		struct hp_brow *fr = &L->rows[L->nrows++];
		fr->kind = HP_BR_FRAME;
		fr->id = depth;
		for (; j < nl && lo[j].frame == depth; j++) {
			L->rows[L->nrows++] = object_row(m, lo[j].obj);
			fr->count++;
		}
	}
	L->total_retained = t->retained;
	finish(m, L);
	return HP_OK;
}

static void cgroup_row(const struct hp_browse *m, struct hp_brow *r, uint32_t g)
{
	const struct hp_group *x = &m->G->g[g];
	r->kind = HP_BR_CGROUP;
	r->id = g;
	r->count = x->instances;
	r->shallow = x->shallow;
	r->retained = x->retained;
}

static void class_row(const struct hp_browse *m, struct hp_brow *r, uint32_t c)
{
	r->kind = HP_BR_CLASS;
	r->id = c;
	r->count = m->cls_off[c + 1] - m->cls_off[c];
	r->shallow = m->cls_shallow[c];
	r->retained = m->R->class_retained[c];
}

/* the top-level groups (no groups given: none) */
static int open_cgroups(struct hp_browse *m, struct hp_error *err)
{
	const struct hp_groups *G = m->G;
	size_t k = 0, n = G ? G->n : 0;
	for (size_t g = 0; g < n; g++)
		k += G->g[g].parent == HP_NONE;
	struct hp_blevel *L = push(m, HP_BL_CGROUPS, 0, k, err);
	if (!L)
		return HP_ENOMEM;
	for (size_t g = 0; g < n; g++)
		if (G->g[g].parent == HP_NONE)
			cgroup_row(m, &L->rows[L->nrows++], (uint32_t)g);
	L->total_retained = m->R->reachable_bytes;
	finish(m, L);
	return HP_OK;
}

/* group g's subgroups (packages) and the classes directly in it */
static int open_cgroup(struct hp_browse *m, uint32_t g, struct hp_error *err)
{
	HP_TRY(instances_by_class(m, err));
	const struct hp_groups *G = m->G;
	const hp_heap *h = m->h;
	size_t k = 0;
	for (size_t i = 0; i < G->n; i++)
		k += G->g[i].parent == g;
	for (size_t c = 0; c < h->nclasses; c++)
		k += m->cls_off[c + 1] > m->cls_off[c] && h->classes[c].row != HP_NONE &&
		     G->row_group[h->classes[c].row] == g;
	struct hp_blevel *L = push(m, HP_BL_CGROUP, g, k, err);
	if (!L)
		return HP_ENOMEM;
	for (size_t i = 0; i < G->n; i++)
		if (G->g[i].parent == g)
			cgroup_row(m, &L->rows[L->nrows++], (uint32_t)i);
	for (size_t c = 0; c < h->nclasses; c++)
		if (m->cls_off[c + 1] > m->cls_off[c] && h->classes[c].row != HP_NONE &&
		    G->row_group[h->classes[c].row] == g)
			class_row(m, &L->rows[L->nrows++], (uint32_t)c);
	L->total_retained = G->g[g].retained;
	finish(m, L);
	return HP_OK;
}

int hp_browse_set_list(struct hp_browse *m, const uint32_t *objs, size_t n, struct hp_error *err)
{
	uint32_t *l = hp_malloc((n ? n : 1) * sizeof *l);
	if (!l)
		return nomem(err);
	size_t k = 0, u = 0;
	for (size_t i = 0; i < n; i++)
		if (objs[i] < m->h->nobj)
			l[k++] = objs[i];
	qsort(l, k, sizeof *l, u32_cmp);
	for (size_t i = 0; i < k; i++)
		if (!u || l[u - 1] != l[i])
			l[u++] = l[i];
	hp_free(m->list);
	m->list = l;
	m->nlist = u;
	m->have_list = 1;
	return HP_OK;
}

int hp_browse_set_tls(struct hp_browse *m, size_t n, const char *const *names, const uint64_t *retained,
		      const size_t *off, const uint32_t *vals, struct hp_error *err)
{
	size_t nv = n ? off[n] : 0;
	struct hp_btls *t = hp_calloc(n ? n : 1, sizeof *t);
	uint32_t *v = hp_reallocarray(NULL, nv ? nv : 1, sizeof *v);
	if (!t || !v) {
		hp_free(t);
		hp_free(v);
		return nomem(err);
	}
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(names[i]);
		if (!(t[i].name = hp_malloc(len + 1))) {
			while (i--)
				hp_free(t[i].name);
			hp_free(t);
			hp_free(v);
			return nomem(err);
		}
		memcpy(t[i].name, names[i], len + 1);
		t[i].retained = retained[i];
		t[i].first = k;
		for (size_t j = off[i]; j < off[i + 1]; j++)
			if (vals[j] < m->h->nobj)
				v[k++] = vals[j];
		t[i].n = k - t[i].first;
	}
	for (size_t i = 0; i < m->ntls; i++)
		hp_free(m->tls[i].name);
	hp_free(m->tls);
	hp_free(m->tl_vals);
	m->tls = t;
	m->ntls = n;
	m->tl_vals = v;
	return HP_OK;
}

/* the leaks view's top level: a row per ThreadLocal suspect, then the
 * objects listed (only those: a level that can be lazy) */
static int open_list(struct hp_browse *m, struct hp_error *err)
{
	if (!m->ntls)
		return open_objects(m, HP_BL_LIST, 0, m->list, m->nlist, NULL, m->R->reachable_bytes, err);
	struct hp_blevel *L = push(m, HP_BL_LIST, 0, m->ntls + m->nlist, err);
	if (!L)
		return HP_ENOMEM;
	for (size_t i = 0; i < m->ntls; i++) {
		const struct hp_btls *x = &m->tls[i];
		struct hp_brow *r = &L->rows[L->nrows++];
		r->kind = HP_BR_TLS;
		r->id = (uint32_t)i;
		r->retained = x->retained;
		for (size_t j = x->first; j < x->first + x->n; j++) {
			r->shallow += hp_retained_shallow(m->R, m->tl_vals[j]);
			r->count += m->subtree[m->tl_vals[j]];
		}
	}
	for (size_t i = 0; i < m->nlist; i++)
		L->rows[L->nrows++] = object_row(m, m->list[i]);
	L->total_retained = m->R->reachable_bytes;
	finish(m, L);
	return HP_OK;
}

int hp_browse_set_view(struct hp_browse *m, int v, struct hp_error *err)
{
	while (m->depth)
		level_free(&m->levels[--m->depth]);
	m->view = v;
	switch (v) {
	case HP_BV_HISTO: return open_histo(m, err);
	case HP_BV_ROOTS: return open_kinds(m, err);
	case HP_BV_THREADS: return open_threads(m, err);
	case HP_BV_GROUPS: return open_cgroups(m, err);
	case HP_BV_LEAKS:
		return open_list(m, err);
	default: return open_dom(m, (uint32_t)m->h->nobj, err);
	}
}

int hp_browse_descend(struct hp_browse *m, struct hp_error *err)
{
	const struct hp_brow *cr = hp_browse_cur(m);
	if (!cr || !hp_browse_can_open(m, cr))
		return 0;
	struct hp_brow r = *cr;
	struct hp_blevel *L = hp_browse_level(m);
	int rc;
	switch (r.kind) {
	case HP_BR_OBJECT:
		rc = open_dom(m, r.id, err);
		break;
	case HP_BR_GROUP: {
		/* the members stay in the parent level, which outlives this one */
		rc = open_objects(m, HP_BL_GROUP, r.id, L->members + r.first, r.n, NULL, r.retained, err);
		break;
	}
	case HP_BR_CLASS:
		if ((rc = instances_by_class(m, err)) != HP_OK)
			break;
		rc = open_objects(m, HP_BL_INSTANCES, r.id, m->cls_objs + m->cls_off[r.id],
				  m->cls_off[r.id + 1] - m->cls_off[r.id], NULL, r.retained, err);
		break;
	case HP_BR_THREAD:
		rc = open_stack(m, r.id, err);
		break;
	case HP_BR_CGROUP:
		rc = open_cgroup(m, r.id, err);
		break;
	case HP_BR_TLS:
		rc = open_objects(m, HP_BL_TLVALUES, r.id, m->tl_vals + m->tls[r.id].first, m->tls[r.id].n, NULL,
				  r.retained, err);
		break;
	default:
		rc = open_roots(m, (int)r.id, err);
		break;
	}
	return rc == HP_OK ? 1 : rc;
}

int hp_browse_ascend(struct hp_browse *m)
{
	if (m->depth <= 1)
		return 0;
	level_free(&m->levels[--m->depth]);
	level_sort(m, hp_browse_level(m));
	return 1;
}

void hp_browse_move(struct hp_browse *m, long delta)
{
	struct hp_blevel *L = hp_browse_level(m);
	if (!L->nvis)
		return;
	long c = (long)L->cursor + delta;
	if (c < 0)
		c = 0;
	if ((size_t)c >= L->nvis)
		c = (long)L->nvis - 1;
	L->cursor = (size_t)c;
}

void hp_browse_goto(struct hp_browse *m, size_t pos)
{
	struct hp_blevel *L = hp_browse_level(m);
	L->cursor = !L->nvis ? 0 : pos >= L->nvis ? L->nvis - 1 : pos;
}

void hp_browse_sort(struct hp_browse *m, int key)
{
	if (m->sort == key)
		m->reverse = !m->reverse;
	else
		m->sort = key, m->reverse = 0;
	level_sort(m, hp_browse_level(m));
}

void hp_browse_toggle_shallow(struct hp_browse *m)
{
	m->shallow = !m->shallow;
	level_sort(m, hp_browse_level(m));
}

int hp_browse_filter(struct hp_browse *m, int (*match)(void *ud, const char *name), void *ud,
		     const char *text, struct hp_error *err)
{
	struct hp_blevel *L = hp_browse_level(m);
	char *t = NULL;
	if (match && text && !(t = hp_malloc(strlen(text) + 1)))
		return nomem(err);
	if (t)
		memcpy(t, text, strlen(text) + 1);
	if (L->lazy) {
		uint8_t *memo = t ? hp_calloc(m->h->nclasses ? m->h->nclasses : 1, 1) : NULL;
		if (t && !memo) {
			hp_free(t);
			return nomem(err);
		}
		hp_free(L->filter);
		L->filter = t;
		int have = L->nvis > 0;
		uint32_t keep = have ? (hp_browse_row(m, L->cursor), L->order[L->cursor]) : 0;
		L->nvis = 0;
		for (size_t i = 0; i < L->nsrc; i++) {
			uint32_t v = L->src[i], c = name_class(m->h, v);
			if (memo && !memo[c])
				memo[c] = match(ud, hp_class_name(m->h, c)) ? 1 : 2;
			if (!memo || memo[c] == 1)
				L->order[L->nvis++] = v;
		}
		hp_free(memo);
		lazy_reset(m, L);
		L->cursor = 0;
		L->top = 0;
		if (have) {
			size_t at = lazy_rank(m, L, keep);
			if (at != SIZE_MAX)
				L->cursor = at;
		}
		return HP_OK;
	}
	hp_free(L->filter);
	L->filter = t;
	struct hp_brow keep;
	int have = L->nvis > 0;
	if (have)
		keep = L->rows[L->vis[L->cursor]];
	for (size_t i = 0; i < L->nrows; i++)
		L->rows[i].hidden = t && !match(ud, hp_browse_name(m, &L->rows[i]));
	rebuild_vis(L);
	L->cursor = 0;
	L->top = 0;
	if (have)
		for (size_t i = 0; i < L->nvis; i++) {
			const struct hp_brow *r = &L->rows[L->vis[i]];
			if (r->kind == keep.kind && r->id == keep.id)
				L->cursor = i;
		}
	return HP_OK;
}

/* ---- search ----------------------------------------------------------- */

static int walk_push(struct hp_browse *m, uint32_t v)
{
	if (m->nwalk == m->capwalk) {
		size_t nc = m->capwalk ? 2 * m->capwalk : 256;
		struct hp_bwalk *w = hp_reallocarray(m->walk, nc, sizeof *w);
		if (!w)
			return HP_ENOMEM;
		m->walk = w;
		m->capwalk = nc;
	}
	m->walk[m->nwalk].v = v;
	m->walk[m->nwalk].next = m->R->child_off[v];
	m->nwalk++;
	return HP_OK;
}

int hp_browse_search(struct hp_browse *m, int restart, int (*match)(void *ud, const char *name), void *ud,
		     uint32_t *found, int *wrapped, struct hp_error *err)
{
	const hp_heap *h = m->h;
	const struct hp_retained *R = m->R;
	*found = HP_NONE;
	*wrapped = 0;
	uint8_t *memo = hp_calloc(h->nclasses ? h->nclasses : 1, 1);   /* 1 matches, 2 not */
	if (!memo)
		return nomem(err);
	int from_top = 0;
	if (restart || !m->walk_started) {
		m->nwalk = 0;
		from_top = 1;
		if (walk_push(m, (uint32_t)h->nobj)) {
			hp_free(memo);
			return nomem(err);
		}
		m->walk_started = 1;
	}
	for (;;) {
		if (!m->nwalk) {
			if (from_top) {   /* a whole pass without a match */
				m->walk_started = 0;
				break;
			}
			*wrapped = from_top = 1;
			if (walk_push(m, (uint32_t)h->nobj)) {
				hp_free(memo);
				return nomem(err);
			}
		}
		struct hp_bwalk *f = &m->walk[m->nwalk - 1];
		if (f->next == R->child_off[f->v + 1]) {
			m->nwalk--;
			continue;
		}
		uint32_t c = R->children[f->next++];
		if (walk_push(m, c)) {
			hp_free(memo);
			return nomem(err);
		}
		uint32_t k = name_class(h, c);
		if (!memo[k])
			memo[k] = match(ud, hp_class_name(h, k)) ? 1 : 2;
		if (memo[k] == 1) {
			*found = c;
			break;
		}
	}
	hp_free(memo);
	return HP_OK;
}

/* the visible position of object v's row in the current level, or of the
 * group it is in (*in_group set); SIZE_MAX when none */
static size_t find_row(const struct hp_browse *m, uint32_t v, int *in_group)
{
	struct hp_blevel *L = hp_browse_level(m);
	*in_group = 0;
	if (L->lazy)
		return lazy_rank(m, L, v);
	uint32_t cls = hp_heap_kind(m->h, v) == HP_OBJ_CLASS ? UINT32_MAX : m->h->cls[v];
	for (size_t i = 0; i < L->nvis; i++) {
		const struct hp_brow *r = &L->rows[L->vis[i]];
		if (r->kind == HP_BR_OBJECT && r->id == v)
			return i;
		if (r->kind == HP_BR_GROUP && r->id == cls) {
			*in_group = 1;
			return i;
		}
	}
	return SIZE_MAX;
}

int hp_browse_reveal(struct hp_browse *m, uint32_t v, struct hp_error *err)
{
	const struct hp_dom *d = &m->R->dom;
	if (v >= m->h->nobj || d->idom[v] == HP_DOM_UNREACHABLE)
		return 1;
	size_t np = 0, cap = 64;
	uint32_t *path = hp_reallocarray(NULL, cap, sizeof *path);
	if (!path)
		return nomem(err);
	for (uint32_t x = v;; x = d->idom[x]) {
		if (np == cap) {
			uint32_t *p = hp_reallocarray(path, cap * 2, sizeof *p);
			if (!p) {
				hp_free(path);
				return nomem(err);
			}
			path = p;
			cap *= 2;
		}
		path[np++] = x;
		if (d->idom[x] == HP_DOM_SUPER || d->idom[x] >= m->h->nobj)
			break;
	}
	int rc = hp_browse_set_view(m, HP_BV_DOM, err);
	for (size_t i = np; rc == HP_OK && i-- > 0;) {
		int in_group;
		size_t at = find_row(m, path[i], &in_group);
		if (at == SIZE_MAX)
			break;   /* cannot be: the tree lists it */
		hp_browse_level(m)->cursor = at;
		if (in_group) {
			if ((rc = hp_browse_descend(m, err)) != 1)
				break;
			rc = HP_OK;
			at = find_row(m, path[i], &in_group);
			if (at == SIZE_MAX)
				break;
			hp_browse_level(m)->cursor = at;
		}
		if (i > 0)
			rc = open_dom(m, path[i], err);
	}
	hp_free(path);
	return rc < 0 ? rc : HP_OK;
}
