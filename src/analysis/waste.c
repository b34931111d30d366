/* waste.c — duplicate Strings and arrays, constant and mostly-null arrays,
 * under-filled collections, boxes: see waste.h. */
#include "analysis/waste.h"
#include "base/alloc.h"
#include "base/cmp.h"
#include "parser/reader.h"
#include "base/hash.h"

#include <stdlib.h>
#include <string.h>

enum spec_kind {
	SK_STRING = 1,
	SK_LIST,            /* ArrayList: size, elementData */
	SK_VECTOR,          /* Vector: elementCount, elementData */
	SK_DEQUE,           /* ArrayDeque: head, tail, elements */
	SK_MAP,             /* HashMap, LinkedHashMap, WeakHashMap: size, table; Hashtable: count, table */
	SK_IDMAP,           /* IdentityHashMap: size, table (two slots per entry) */
	SK_BOX
};

static const struct { const char *name; int kind; const char *a, *b, *c, *d; unsigned prim; } known[] = {
	{ "java.lang.String", SK_STRING, "value", "coder", "offset", "count", 0 },
	{ "java.util.ArrayList", SK_LIST, "size", "elementData", NULL, NULL, 0 },
	{ "java.util.Vector", SK_VECTOR, "elementCount", "elementData", NULL, NULL, 0 },
	{ "java.util.ArrayDeque", SK_DEQUE, NULL, "elements", "head", "tail", 0 },
	{ "java.util.HashMap", SK_MAP, "size", "table", NULL, NULL, 0 },
	{ "java.util.LinkedHashMap", SK_MAP, "size", "table", NULL, NULL, 0 },
	{ "java.util.WeakHashMap", SK_MAP, "size", "table", NULL, NULL, 0 },
	{ "java.util.Hashtable", SK_MAP, "count", "table", NULL, NULL, 0 },
	{ "java.util.IdentityHashMap", SK_IDMAP, "size", "table", NULL, NULL, 0 },
	{ "java.lang.Integer", SK_BOX, NULL, NULL, NULL, NULL, 4 },
	{ "java.lang.Long", SK_BOX, NULL, NULL, NULL, NULL, 8 },
	{ "java.lang.Short", SK_BOX, NULL, NULL, NULL, NULL, 2 },
	{ "java.lang.Byte", SK_BOX, NULL, NULL, NULL, NULL, 1 },
	{ "java.lang.Character", SK_BOX, NULL, NULL, NULL, NULL, 2 },
	{ "java.lang.Boolean", SK_BOX, NULL, NULL, NULL, NULL, 1 },
	{ "java.lang.Float", SK_BOX, NULL, NULL, NULL, NULL, 4 },
	{ "java.lang.Double", SK_BOX, NULL, NULL, NULL, NULL, 8 },
};
#define NKNOWN (sizeof known / sizeof known[0])

/* a field found in a class's chain: where in the record, its size */
struct fpos { int64_t off; unsigned size; };

struct spec {
	uint32_t cls;
	int kind;
	unsigned prim;
	struct fpos f[4];           /* the fields a, b, c, d of known[] (off -1: none) */
	uint64_t count, bytes;      /* boxes */
	uint64_t wasted;            /* boxes: each one's size less its primitive's, summed */
	int taken;                  /* boxes: the row was kept (not left out by min_count) */
};

struct parr { uint32_t obj; uint8_t type, isconst, is_value, nodata; uint64_t hash, value; };
struct pstr { uint32_t obj, val; uint64_t extra; };
struct pcoll { uint32_t obj, cls, table; uint8_t fill; uint64_t wasted; };
struct pnull { uint32_t obj; uint32_t nulls; };
struct pgrp { uint64_t key; uint32_t s, v; };
struct pbox { uint32_t obj, spec; uint64_t wasted; };

struct vec { void *p; size_t n, cap; };

static int vpush(struct vec *v, const void *e, size_t sz)
{
	if (v->n == v->cap) {
		void *np = hp_grow(v->p, &v->cap, v->n + 1, 256, sz);
		if (!np)
			return HP_ENOMEM;
		v->p = np;
	}
	memcpy((char *)v->p + v->n * sz, e, sz);
	v->n++;
	return HP_OK;
}

struct W {
	const hp_heap *h;
	struct hp_waste *W;
	struct hp_error *err;
	uint16_t *spec_of;          /* class -> index into specs + 1, 0 none */
	struct spec *specs;
	size_t nspecs;
	struct vec arrs, strs, colls, nulls;
	int by_object;              /* hp_waste_by_object(): W->objs too */
	struct vec wobjs, boxes;    /* struct hp_waste_obj, struct pbox */
	/* the array whose elements the raw stream is delivering */
	struct cur {
		int kind;               /* 0 none, 1 object array, 2 primitive array */
		int sub_pending;        /* its own SUB piece is still to come */
		uint64_t id, off;       /* its id, its record's offset */
		uint32_t n, nulls;
		struct parr e;
		unsigned es;            /* element size */
		uint8_t first[8];       /* its first element */
		int have_first, isconst;
		uint64_t h;             /* the hash so far */
		uint8_t buf[8];         /* bytes not yet hashed */
		unsigned nb;
	} cur;
};

/* the hash of an array's elements, fed in pieces */
static void hash_init(struct cur *c, uint64_t seed)
{
	c->h = hp_fmix64(seed ^ 0x9e3779b97f4a7c15ULL);
	c->nb = 0;
}

static void hash_word(struct cur *c, uint64_t w)
{
	c->h = (c->h ^ w) * 0x100000001b3ULL;
	c->h = (c->h << 29) | (c->h >> 35);
}

static void hash_feed(struct cur *c, const uint8_t *p, size_t n)
{
	while (n && c->nb) {
		c->buf[c->nb++] = *p++;
		n--;
		if (c->nb == 8) {
			uint64_t w;
			memcpy(&w, c->buf, 8);
			hash_word(c, w);
			c->nb = 0;
		}
	}
	while (n >= 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		hash_word(c, w);
		p += 8;
		n -= 8;
	}
	memcpy(c->buf, p, n);
	c->nb = (unsigned)n;
}

static uint64_t hash_end(struct cur *c)
{
	uint64_t w = 0;
	for (unsigned i = 0; i < c->nb; i++)
		w |= (uint64_t)c->buf[i] << (8 * i);
	c->h = (c->h ^ w ^ ((uint64_t)c->nb << 56)) * 0x100000001b3ULL;
	return hp_fmix64(c->h);
}

static uint64_t be_bits(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* the field called name in class c's chain: its offset in an instance record */
static struct fpos find_field(const hp_heap *h, uint32_t c, const char *name)
{
	struct fpos r = { -1, 0 };
	uint64_t base = 0;
	for (size_t steps = 0; c != HP_NONE && c < h->nclasses && steps <= h->nclasses; steps++) {
		const struct hp_class *k = &h->classes[c];
		uint64_t pos = 0;
		for (uint32_t i = 0; i < k->n_fields && k->first_field + i < h->nfields; i++) {
			const struct hp_field *f = &h->fields[k->first_field + i];
			unsigned sz = hp_type_size(f->type, h->I);
			if (hp_heap_string_is(h, f->name_sid, name)) {
				r.off = (int64_t)(base + pos);
				r.size = sz;
				return r;
			}
			pos += sz;
		}
		base += pos;
		c = k->super;
	}
	return r;
}

/* field f of a record of len bytes; 0 when it has none */
static int get(const struct fpos *f, const uint8_t *p, uint32_t len, uint64_t *v)
{
	if (f->off < 0 || !f->size || (uint64_t)f->off + f->size > len)
		return 0;
	*v = be_bits(p + f->off, f->size);
	return 1;
}

static int64_t sext(uint64_t v, unsigned size)
{
	if (size == 4)
		return (int32_t)(uint32_t)v;
	if (size == 2)
		return (int16_t)(uint16_t)v;
	return (int64_t)v;
}

static int on_instance(void *ud, uint64_t id, uint32_t serial, uint64_t class_id, const uint8_t *fields,
		       uint32_t len, uint64_t offset)
{
	struct W *B = ud;
	const hp_heap *h = B->h;
	uint32_t c = hp_idmap_get(&h->class_map, class_id);
	if (c == HP_IDMAP_NONE || c >= h->nclasses || !B->spec_of[c] || !fields)
		return HP_OK;
	size_t obj = hp_heap_find_record(h, id, offset);
	if (obj == SIZE_MAX)
		return HP_OK;
	struct spec *sp = &B->specs[B->spec_of[c] - 1];
	uint64_t a = 0, b = 0, cc = 0, d = 0;
	int ha = get(&sp->f[0], fields, len, &a), hb = get(&sp->f[1], fields, len, &b);
	int hc = get(&sp->f[2], fields, len, &cc), hd = get(&sp->f[3], fields, len, &d);
	if (sp->kind == SK_BOX) {
		uint64_t sz = hp_heap_shallow(h, obj), w = sz > sp->prim ? sz - sp->prim : 0;
		sp->count++;
		sp->bytes += sz;
		sp->wasted += w;
		if (B->by_object && w) {
			struct pbox e = { (uint32_t)obj, B->spec_of[c] - 1u, w };
			return vpush(&B->boxes, &e, sizeof e);
		}
		return HP_OK;
	}
	if (sp->kind == SK_STRING) {
		B->W->strings++;
		size_t v = ha && a ? hp_heap_find(h, a) : SIZE_MAX;
		if (v == SIZE_MAX)
			return HP_OK;
		uint64_t extra = hb ? b + 1 : 0;
		if (hc)   /* offset/count layouts: the range of the array used */
			extra = hp_fmix64(extra ^ (cc << 32) ^ (hd ? d : 0));
		struct pstr e = { (uint32_t)obj, (uint32_t)v, extra };
		return vpush(&B->strs, &e, sizeof e);
	}
	/* collections */
	B->W->collections++;
	size_t t = hb && b ? hp_heap_find(h, b) : SIZE_MAX;
	uint64_t cap = t != SIZE_MAX && hp_heap_kind(h, t) == HP_OBJ_OBJARRAY ? h->len[t] : 0;
	if (t != SIZE_MAX && hp_heap_kind(h, t) != HP_OBJ_OBJARRAY)
		t = SIZE_MAX;
	int64_t size;
	if (sp->kind == SK_DEQUE) {
		if (!hc || !hd)
			return HP_OK;
		int64_t hd0 = sext(cc, sp->f[2].size), tl = sext(d, sp->f[3].size);
		size = tl - hd0;
		if (size < 0)
			size += (int64_t)cap;
	} else {
		if (!ha)
			return HP_OK;
		size = sext(a, sp->f[0].size);
	}
	if (sp->kind == SK_IDMAP)
		cap /= 2;
	if (size < 0 || (size > 0 && (uint64_t)size > cap))
		return HP_OK;   /* not a size this table can hold: no judgement */
	struct pcoll e = { (uint32_t)obj, c, t == SIZE_MAX ? HP_NONE : (uint32_t)t, 0, 0 };
	uint64_t tb = t != SIZE_MAX ? hp_heap_shallow(h, t) : 0;
	if (size == 0) {
		e.fill = HP_WASTE_EMPTY;
		e.wasted = hp_heap_shallow(h, obj) + (cap ? tb : 0);
	} else {
		uint64_t pct = ((uint64_t)size * 100 + cap - 1) / cap;
		if (pct > 25)
			e.fill = 255;
		else
			e.fill = pct <= 10 ? HP_WASTE_FILL10 : HP_WASTE_FILL25;
		e.wasted = tb * (cap - (uint64_t)size) / cap;
	}
	return vpush(&B->colls, &e, sizeof e);
}

static int null_row(struct W *B, uint64_t id, uint64_t off, uint32_t n, uint32_t nulls)
{
	if (n < HP_WASTE_CONST_MIN || (uint64_t)nulls * 10 < (uint64_t)n * 9)
		return HP_OK;
	size_t obj = hp_heap_find_record(B->h, id, off);
	if (obj == SIZE_MAX)
		return HP_OK;
	struct pnull e = { (uint32_t)obj, nulls };
	return vpush(&B->nulls, &e, sizeof e);
}

static uint32_t count_nulls(const uint8_t *p, size_t n, unsigned I)
{
	static const uint8_t zero[8];
	uint32_t k = 0;
	for (size_t i = 0; i + I <= n; i += I)
		k += !memcmp(p + i, zero, I);
	return k;
}

/* the array the raw stream delivered is complete */
static int cur_end(struct W *B)
{
	struct cur *c = &B->cur;
	int kind = c->kind;
	c->kind = 0;
	if (kind == 1)
		return null_row(B, c->id, c->off, c->n, c->nulls);
	if (kind != 2)
		return HP_OK;
	if (!c->e.nodata) {
		c->e.hash = hash_end(c);
		if (c->n >= HP_WASTE_CONST_MIN && c->isconst) {
			c->e.isconst = 1;
			c->e.value = be_bits(c->first, c->es);
		}
	}
	return vpush(&B->arrs, &c->e, sizeof c->e);
}

static int on_obj_array(void *ud, uint64_t id, uint32_t serial, uint64_t class_id, uint32_t n, const uint8_t *elems,
			uint64_t offset)
{
	(void)class_id; (void)elems;
	struct W *B = ud;
	HP_TRY(cur_end(B));
	if (n < HP_WASTE_CONST_MIN)
		return HP_OK;
	struct cur *c = &B->cur;
	c->kind = 1;
	c->sub_pending = 1;
	c->id = id;
	c->off = offset;
	c->n = n;
	c->nulls = 0;
	return HP_OK;
}

static int on_prim_array(void *ud, uint64_t id, uint32_t serial, unsigned type, uint32_t n, const uint8_t *elems,
			 uint64_t offset, int nodata)
{
	(void)elems;
	struct W *B = ud;
	HP_TRY(cur_end(B));
	size_t obj = hp_heap_find_record(B->h, id, offset);
	if (obj == SIZE_MAX)
		return HP_OK;
	B->W->prim_arrays++;
	struct cur *c = &B->cur;
	memset(&c->e, 0, sizeof c->e);
	c->e.obj = (uint32_t)obj;
	c->e.type = (uint8_t)type;
	c->es = hp_type_size(type, B->h->I);
	c->kind = 2;
	c->sub_pending = 1;
	c->n = n;
	c->have_first = 0;
	c->isconst = 1;
	if (nodata || !c->es) {
		B->W->nodata_arrays += nodata != 0;
		c->e.nodata = 1;
	}
	hash_init(c, ((uint64_t)type << 32) | n);
	return HP_OK;
}

/* the raw stream: the elements of the array just announced, in pieces of
 * whole elements (never the whole of a large array in memory) */
static int on_raw(void *ud, int kind, const uint8_t *p, size_t n, uint64_t offset)
{
	(void)offset;
	struct W *B = ud;
	struct cur *c = &B->cur;
	if (!c->kind)
		return HP_OK;
	if (kind != HP_RAW_ELEMS) {
		if (kind == HP_RAW_SUB && c->sub_pending) {
			c->sub_pending = 0;
			return HP_OK;
		}
		return cur_end(B);
	}
	if (c->kind == 1) {
		c->nulls += count_nulls(p, n, B->h->I);
		return HP_OK;
	}
	if (c->e.nodata || !n)
		return HP_OK;
	hash_feed(c, p, n);
	unsigned es = c->es;
	if (!c->have_first && n >= es) {
		memcpy(c->first, p, es);
		c->have_first = 1;
	}
	if (c->isconst && n >= es && (memcmp(p, c->first, es) || memcmp(p, p + es, n - es)))
		c->isconst = 0;
	return HP_OK;
}

/* qsort() of n items; nothing for fewer than two (p may be NULL then) */
static void sort_n(void *p, size_t n, size_t sz, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(p, n, sz, cmp);
}

static int by_obj(const void *a, const void *b)
{
	const struct parr *x = a, *y = b;
	return hp_cmp_u64(x->obj, y->obj);
}

static int by_hash(const void *a, const void *b)
{
	const struct parr *x = a, *y = b;
	return hp_cmp2_u64(x->hash, y->hash, x->obj, y->obj);
}

static int by_const(const void *a, const void *b)
{
	const struct parr *x = a, *y = b;
	return hp_cmp3_u64(x->type, y->type, x->value, y->value, x->obj, y->obj);
}

static int by_key(const void *a, const void *b)
{
	const struct pgrp *x = a, *y = b;
	return hp_cmp3_u64(x->key, y->key, x->v, y->v, x->s, y->s);
}

static int by_coll(const void *a, const void *b)
{
	const struct pcoll *x = a, *y = b;
	return hp_cmp3_u64(x->cls, y->cls, x->fill, y->fill, x->obj, y->obj);
}

static int by_null_cls(const void *a, const void *b, const hp_heap *h)
{
	const struct pnull *x = a, *y = b;
	return hp_cmp2_u64(h->cls[x->obj], h->cls[y->obj], x->obj, y->obj);
}

static const hp_heap *sort_heap;   /* qsort() has no user argument in C11 */
static int by_null(const void *a, const void *b) { return by_null_cls(a, b, sort_heap); }

static int by_u32(const void *a, const void *b)
{
	return hp_cmp_u64(*(const uint32_t *)a, *(const uint32_t *)b);
}

static int by_wasted(const void *a, const void *b)
{
	const struct hp_waste_row *x = a, *y = b;
	return hp_cmp2_u64(y->wasted, x->wasted, x->sample, y->sample);
}

static int add_row(struct hp_waste *W, int s, const struct hp_waste_row *r, uint64_t min_count)
{
	if (r->count < min_count) {
		W->left_out++;
		return 0;
	}
	struct hp_waste_section *S = &W->s[s];
	struct vec v = { S->rows, S->n, S->cap };
	if (vpush(&v, r, sizeof *r))
		return -1;
	S->rows = v.p;
	S->n = v.n;
	S->cap = v.cap;
	S->count += r->count;
	S->wasted += r->wasted;
	return 1;
}

/* marks a whole object as waste; its size when it was not marked yet */
static uint64_t mark(const hp_heap *h, uint8_t *bits, uint32_t obj)
{
	uint8_t bit = (uint8_t)(1u << (obj & 7));
	if (bits[obj >> 3] & bit)
		return 0;
	bits[obj >> 3] |= bit;
	return hp_heap_shallow(h, obj);
}

static int pass(struct W *B, const char *path)
{
	hp_reader *r;
	HP_TRY(hp_reader_open(&r, path, B->err));
	struct hp_sink s;
	memset(&s, 0, sizeof s);
	s.ud = B;
	s.instance = on_instance;
	s.obj_array = on_obj_array;
	s.prim_array = on_prim_array;
	s.raw = on_raw;
	struct hp_parse_opts po;
	hp_parse_opts_init(&po);
	po.dump_index = B->h->opts.dump_index;
	po.want_instance_data = 1;
	po.want_raw = 1;
	/* only the bytes of the fields read */
	uint64_t mx = 1;
	for (size_t i = 0; i < B->nspecs; i++)
		for (int k = 0; k < 4; k++)
			if (B->specs[i].f[k].off >= 0 && (uint64_t)B->specs[i].f[k].off + B->specs[i].f[k].size > mx)
				mx = (uint64_t)B->specs[i].f[k].off + B->specs[i].f[k].size;
	po.instance_data_max = mx;
	struct hp_stats st;
	int rc = hp_parse(r, &s, &po, &st, B->err);
	if (rc == HP_OK)
		rc = cur_end(B);
	hp_stats_release(&st);
	hp_reader_free(r);
	/* a salvaged model stops where its pass stopped: the same break again */
	if (rc == HP_ETRUNC || rc == HP_ECORRUPT)
		rc = HP_OK;
	return rc;
}

static int find_specs(struct W *B)
{
	const hp_heap *h = B->h;
	B->spec_of = hp_calloc(h->nclasses ? h->nclasses : 1, sizeof *B->spec_of);
	if (!B->spec_of)
		return HP_ENOMEM;
	struct vec v = { 0 };
	for (size_t c = 0; c < h->nclasses && v.n < 65000; c++) {
		const char *nm = hp_class_name(h, c);
		for (size_t k = 0; k < NKNOWN; k++) {
			if (strcmp(nm, known[k].name))
				continue;
			struct spec sp;
			memset(&sp, 0, sizeof sp);
			sp.cls = (uint32_t)c;
			sp.kind = known[k].kind;
			sp.prim = known[k].prim;
			const char *fn[4] = { known[k].a, known[k].b, known[k].c, known[k].d };
			for (int i = 0; i < 4; i++)
				sp.f[i] = fn[i] ? find_field(h, (uint32_t)c, fn[i]) : (struct fpos){ -1, 0 };
			if (vpush(&v, &sp, sizeof sp)) {
				hp_free(v.p);
				return HP_ENOMEM;
			}
			B->spec_of[c] = (uint16_t)v.n;
			break;
		}
	}
	B->specs = v.p;
	B->nspecs = v.n;
	return HP_OK;
}

static int group(struct W *B, uint64_t min_count, uint8_t *bits)
{
	const hp_heap *h = B->h;
	struct hp_waste *W = B->W;
	struct parr *A = B->arrs.p;
	size_t na = B->arrs.n;
	uint64_t dmin = min_count < 2 ? 2 : min_count;

	/* Strings: the hash of their value array, and coder/offset/count */
	sort_n(A, na, sizeof *A, by_obj);
	struct pstr *S = B->strs.p;
	size_t ng = 0;
	struct pgrp *G = hp_reallocarray(NULL, B->strs.n ? B->strs.n : 1, sizeof *G);
	if (!G)
		return HP_ENOMEM;
	for (size_t i = 0; i < B->strs.n; i++) {
		struct parr key = { .obj = S[i].val };
		struct parr *a = na ? bsearch(&key, A, na, sizeof *A, by_obj) : NULL;
		if (!a || a->nodata)
			continue;
		a->is_value = 1;
		G[ng++] = (struct pgrp){ hp_fmix64(a->hash ^ hp_fmix64(S[i].extra)), S[i].obj, S[i].val };
	}
	sort_n(G, ng, sizeof *G, by_key);
	for (size_t i = 0, j; i < ng; i = j) {
		for (j = i + 1; j < ng && G[j].key == G[i].key; j++)
			;
		if (j - i < 2)
			continue;
		struct hp_waste_row r;
		memset(&r, 0, sizeof r);
		r.sample = G[i].s;
		r.cls = h->cls[G[i].s];
		r.length = h->len[G[i].v];
		r.count = j - i;
		for (size_t k = i; k < j; k++) {
			uint64_t ss = hp_heap_shallow(h, G[k].s);
			r.bytes += ss;
			if (k > i)
				r.wasted += ss;
			if (k == i || G[k].v != G[k - 1].v) {
				uint64_t as = hp_heap_shallow(h, G[k].v);
				r.bytes += as;
				if (k > i)
					r.wasted += as;
			}
		}
		int got = r.count >= dmin ? add_row(W, HP_WASTE_STRINGS, &r, dmin) : (W->left_out++, 0);
		if (got < 0) {
			hp_free(G);
			return HP_ENOMEM;
		}
		if (got)
			for (size_t k = i + 1; k < j; k++) {
				W->dedup += mark(h, bits, G[k].s);
				if (G[k].v != G[k - 1].v)
					W->dedup += mark(h, bits, G[k].v);
			}
	}
	hp_free(G);

	/* the primitive arrays that are no String's value: the constant ones
	 * (buffers never written, or filled with one value) after the others */
	size_t m = 0;
	for (size_t i = 0; i < na; i++)
		if (!A[i].is_value && !A[i].nodata)
			A[m++] = A[i];
	na = m;
	size_t nd = 0;
	for (size_t i = 0; i < na; i++)
		if (!A[i].isconst) {
			struct parr t = A[nd];
			A[nd++] = A[i];
			A[i] = t;
		}

	/* duplicates among the others: equal arrays that are values */
	sort_n(A, nd, sizeof *A, by_hash);
	for (size_t i = 0, j; i < nd; i = j) {
		for (j = i + 1; j < nd && A[j].hash == A[i].hash; j++)
			;
		if (j - i < 2)
			continue;
		struct hp_waste_row r;
		memset(&r, 0, sizeof r);
		r.sample = A[i].obj;
		r.cls = h->cls[A[i].obj];
		r.type = A[i].type;
		r.length = h->len[A[i].obj];
		r.count = j - i;
		for (size_t k = i; k < j; k++) {
			uint64_t as = hp_heap_shallow(h, A[k].obj);
			r.bytes += as;
			if (k > i)
				r.wasted += as;
		}
		int got = r.count >= dmin ? add_row(W, HP_WASTE_ARRAYS, &r, dmin) : (W->left_out++, 0);
		if (got < 0)
			return HP_ENOMEM;
		if (got)
			for (size_t k = i + 1; k < j; k++)
				W->dedup += mark(h, bits, A[k].obj);
	}

	/* constant arrays, whatever their duplicates: not in the total (no
	 * other section holds them, so they need no mark) */
	A += nd;
	m = na - nd;
	sort_n(A, m, sizeof *A, by_const);
	for (size_t i = 0, j; i < m; i = j) {
		for (j = i + 1; j < m && A[j].type == A[i].type && A[j].value == A[i].value; j++)
			;
		struct hp_waste_row r;
		memset(&r, 0, sizeof r);
		r.sample = A[i].obj;
		r.cls = h->cls[A[i].obj];
		r.type = A[i].type;
		r.length = h->len[A[i].obj];
		r.value = A[i].value;
		r.count = j - i;
		for (size_t k = i; k < j; k++)
			r.bytes += hp_heap_shallow(h, A[k].obj);
		r.wasted = r.bytes;
		if (add_row(W, HP_WASTE_CONSTANT, &r, min_count) < 0)
			return HP_ENOMEM;
	}

	/* collections; their tables leave the null-slot rows */
	struct pcoll *C = B->colls.p;
	size_t nc = B->colls.n;
	uint32_t *T = hp_reallocarray(NULL, nc ? nc : 1, sizeof *T);
	if (!T)
		return HP_ENOMEM;
	size_t nt = 0;
	for (size_t i = 0; i < nc; i++)
		if (C[i].table != HP_NONE)
			T[nt++] = C[i].table;
	sort_n(T, nt, sizeof *T, by_u32);
	sort_n(C, nc, sizeof *C, by_coll);
	for (size_t i = 0, j; i < nc; i = j) {
		for (j = i + 1; j < nc && C[j].cls == C[i].cls && C[j].fill == C[i].fill; j++)
			;
		if (C[i].fill == 255)
			continue;
		struct hp_waste_row r;
		memset(&r, 0, sizeof r);
		r.sample = C[i].obj;
		r.cls = C[i].cls;
		r.fill = C[i].fill;
		r.count = j - i;
		for (size_t k = i; k < j; k++) {
			r.bytes += hp_heap_shallow(h, C[k].obj) +
				   (C[k].table != HP_NONE ? hp_heap_shallow(h, C[k].table) : 0);
			r.wasted += C[k].wasted;
		}
		int got = add_row(W, HP_WASTE_COLLECTIONS, &r, min_count);
		if (got < 0) {
			hp_free(T);
			return HP_ENOMEM;
		}
		if (got && r.fill == HP_WASTE_EMPTY)
			for (size_t k = i; k < j; k++) {
				W->total += mark(h, bits, C[k].obj);
				if (C[k].table != HP_NONE && h->len[C[k].table])
					W->total += mark(h, bits, C[k].table);
			}
		else if (got) {
			W->total += r.wasted;
			for (size_t k = i; k < j && B->by_object; k++) {
				struct hp_waste_obj e = { C[k].table != HP_NONE ? C[k].table : C[k].obj, C[k].wasted };
				if (e.bytes && vpush(&B->wobjs, &e, sizeof e)) {
					hp_free(T);
					return HP_ENOMEM;
				}
			}
		}
	}

	/* object arrays mostly null */
	struct pnull *N = B->nulls.p;
	m = 0;
	for (size_t i = 0; i < B->nulls.n; i++)
		if (!nt || !bsearch(&N[i].obj, T, nt, sizeof *T, by_u32))
			N[m++] = N[i];
	hp_free(T);
	sort_heap = h;
	sort_n(N, m, sizeof *N, by_null);
	for (size_t i = 0, j; i < m; i = j) {
		for (j = i + 1; j < m && h->cls[N[j].obj] == h->cls[N[i].obj]; j++)
			;
		struct hp_waste_row r;
		memset(&r, 0, sizeof r);
		r.sample = N[i].obj;
		r.cls = h->cls[N[i].obj];
		r.length = h->len[N[i].obj];
		r.count = j - i;
		for (size_t k = i; k < j; k++) {
			uint64_t as = hp_heap_shallow(h, N[k].obj);
			r.bytes += as;
			r.wasted += h->len[N[k].obj] ? as * N[k].nulls / h->len[N[k].obj] : 0;
		}
		int got = add_row(W, HP_WASTE_NULL_SLOTS, &r, min_count);
		if (got < 0)
			return HP_ENOMEM;
		if (got)
			W->total += r.wasted;
		for (size_t k = i; got && k < j && B->by_object; k++) {
			uint64_t as = hp_heap_shallow(h, N[k].obj);
			struct hp_waste_obj e = { N[k].obj, h->len[N[k].obj] ? as * N[k].nulls / h->len[N[k].obj] : 0 };
			if (e.bytes && vpush(&B->wobjs, &e, sizeof e))
				return HP_ENOMEM;
		}
	}

	/* boxes */
	for (size_t i = 0; i < B->nspecs; i++) {
		const struct spec *sp = &B->specs[i];
		if (sp->kind != SK_BOX || !sp->count)
			continue;
		struct hp_waste_row r;
		memset(&r, 0, sizeof r);
		r.sample = HP_NONE;
		r.cls = sp->cls;
		r.count = sp->count;
		r.bytes = sp->bytes;
		r.wasted = sp->wasted;
		int got = add_row(W, HP_WASTE_BOXES, &r, min_count);
		if (got < 0)
			return HP_ENOMEM;
		if (got)
			W->total += r.wasted;
		B->specs[i].taken = got;
	}
	return HP_OK;
}

static int by_wobj(const void *a, const void *b)
{
	const struct hp_waste_obj *x = a, *y = b;
	return hp_cmp_u64(x->obj, y->obj);
}

/* W->objs: the whole objects marked, the boxes of the rows kept and the
 * partial rows' objects, by object, each once */
static int by_object(struct W *B, const uint8_t *bits)
{
	const hp_heap *h = B->h;
	for (size_t v = 0; v < h->nobj; v++)
		if (bits[v >> 3] & (1u << (v & 7))) {
			struct hp_waste_obj e = { (uint32_t)v, hp_heap_shallow(h, v) };
			if (vpush(&B->wobjs, &e, sizeof e))
				return HP_ENOMEM;
		}
	const struct pbox *X = B->boxes.p;
	for (size_t i = 0; i < B->boxes.n; i++)
		if (B->specs[X[i].spec].taken) {
			struct hp_waste_obj e = { X[i].obj, X[i].wasted };
			if (vpush(&B->wobjs, &e, sizeof e))
				return HP_ENOMEM;
		}
	struct hp_waste_obj *o = B->wobjs.p;
	size_t n = B->wobjs.n, m = 0;
	sort_n(o, n, sizeof *o, by_wobj);
	for (size_t i = 0; i < n; i++) {
		if (m && o[m - 1].obj == o[i].obj)
			o[m - 1].bytes += o[i].bytes;
		else
			o[m++] = o[i];
	}
	B->W->objs = o;
	B->W->nobjs = m;
	B->wobjs.p = NULL;
	return HP_OK;
}

static int compute(const hp_heap *h, const char *path, uint64_t min_count, int want_objs, struct hp_waste *W,
		   struct hp_error *err)
{
	memset(W, 0, sizeof *W);
	struct W B;
	memset(&B, 0, sizeof B);
	B.by_object = want_objs;
	B.h = h;
	B.W = W;
	B.err = err;
	uint8_t *bits = NULL;
	int rc = find_specs(&B);
	if (rc == HP_OK && !(bits = hp_calloc(h->nobj / 8 + 1, 1)))
		rc = HP_ENOMEM;
	if (rc == HP_OK)
		rc = pass(&B, path);
	if (rc == HP_OK)
		rc = group(&B, min_count, bits);
	if (rc == HP_OK) {
		W->total += W->dedup;
		W->never_written = W->s[HP_WASTE_CONSTANT].wasted;
		W->never_written_n = W->s[HP_WASTE_CONSTANT].count;
		for (int s = 0; s < HP_WASTE_NSECTIONS; s++)
			if (W->s[s].n)
				sort_n(W->s[s].rows, W->s[s].n, sizeof *W->s[s].rows, by_wasted);
		if (want_objs)
			rc = by_object(&B, bits);
	}
	if (rc == HP_ENOMEM && !err->msg[0])
		hp_error_set(err, HP_ENOMEM, "out of memory finding wasted memory");
	hp_free_all(bits, B.spec_of, B.specs, B.arrs.p, B.strs.p, B.colls.p, B.nulls.p, B.wobjs.p,
		    B.boxes.p);
	if (rc != HP_OK)
		hp_waste_release(W);
	return rc;
}

int hp_waste_compute(const hp_heap *h, const char *path, uint64_t min_count, struct hp_waste *W,
		     struct hp_error *err)
{
	return compute(h, path, min_count, 0, W, err);
}

int hp_waste_by_object(const hp_heap *h, const char *path, uint64_t min_count, struct hp_waste *W,
		       struct hp_error *err)
{
	return compute(h, path, min_count, 1, W, err);
}

void hp_waste_release(struct hp_waste *W)
{
	for (int s = 0; s < HP_WASTE_NSECTIONS; s++)
		hp_free(W->s[s].rows);
	hp_free(W->objs);
	memset(W, 0, sizeof *W);
}

const char *hp_waste_section_key(int s)
{
	static const char *k[] = { "strings", "arrays", "constant_arrays", "null_slots", "collections", "boxes" };
	return s >= 0 && s < HP_WASTE_NSECTIONS ? k[s] : "?";
}

const char *hp_waste_fill_key(int fill)
{
	return fill == HP_WASTE_EMPTY ? "empty" : fill == HP_WASTE_FILL10 ? "1-10%" : "11-25%";
}
