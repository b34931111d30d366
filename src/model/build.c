/* build.c — the parser's sink that builds the model (hp_heap_sink()): each
 * record stored into the heap's tables as it streams by, the tally of what
 * the records need under a memory limit, and what the limit refusing an
 * allocation leaves (build.h, heap.h). */
#include "model/heap.h"
#include "model/build.h"
#include "base/alloc.h"
#include "base/hash.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GROW(arr, n, cap, err_ret) do { \
	if ((n) >= (cap)) { \
		void *np_ = hp_grow((arr), &(cap), (n) + 1, 16, sizeof *(arr)); \
		if (!np_) return (err_ret); \
		(arr) = np_; \
	} } while (0)

static int oom(hp_heap *h)
{
	(void)h;
	return HP_ENOMEM;
}

/* The memory limit refused an allocation: nothing stored is read again, so
 * the big tables go back (room for the reader) and the records that follow
 * are only counted. */
static void go_over_limit(hp_heap *h)
{
	h->build->over_limit = 1;
	hp_free_all(h->ids, h->cls, h->len, h->off_lo, h->off_hi);
	h->ids = NULL;
	h->cls = h->len = h->off_lo = NULL;
	h->off_hi = NULL;
	h->nobj = h->build->obj_cap = 0;
	hp_free(h->arena);
	hp_free(h->str_off);
	hp_free(h->str_len);
	h->arena = NULL;
	h->str_off = NULL;
	h->str_len = NULL;
	h->arena_len = h->build->arena_cap = h->nstr = h->build->str_cap = 0;
	hp_idmap_release(&h->str_map);
}

/* the result of storing a record: a refusal of the limit is not an error */
static int stored(hp_heap *h, int rc)
{
	if (rc != HP_ENOMEM || !hp_alloc_limit() || !hp_alloc_refused_by_limit())
		return rc;
	go_over_limit(h);
	return HP_OK;
}

/* ---- the tally (see heap.h) ------------------------------------------ */

static inline void tally_order(hp_heap *h, uint64_t id)
{
	if (id < h->build->tally.last_id)
		h->build->tally.unsorted = 1;
	h->build->tally.last_id = id;
}

/* an array row for (key, current heap): one bit of the sketch */
static inline void tally_row(hp_heap *h, uint64_t key)
{
	uint64_t x = (key ^ (h->build->tally.heap_id * 0xC2B2AE3D27D4EB4Full)) * 0x9E3779B97F4A7C15ull;
	x ^= x >> 29;
	x *= 0xBF58476D1CE4E5B9ull;
	unsigned bit = (unsigned)(x >> 52) & (HP_TALLY_ROWBITS - 1);
	h->build->tally.rowbits[bit / 64] |= 1ull << (bit % 64);
	h->build->tally.arrays++;
}

/* ---- --dump all: the heap dumps merged (see build.h) ------------------- */

/* slot of id in the set (open addressing, linear probing; 0 is no id:
 * a null reference is never an object) */
static size_t prev_slot(const struct hp_heap_build *b, uint64_t id)
{
	size_t mask = b->prev_cap - 1, i = (size_t)hp_fmix64(id) & mask;
	while (b->prev_ids[i] && b->prev_ids[i] != id)
		i = (i + 1) & mask;
	return i;
}

/* the set holds at least n more ids at half load; 0 or out of memory */
static int prev_reserve(hp_heap *h, size_t n)
{
	struct hp_heap_build *b = h->build;
	if (n <= SIZE_MAX / 4 - b->nprev && 2 * (b->nprev + n) <= b->prev_cap)
		return HP_OK;
	if (n > SIZE_MAX / 4 - b->nprev)
		return oom(h);
	size_t cap = b->prev_cap ? b->prev_cap : 1024;
	while (cap < 2 * (b->nprev + n))
		cap *= 2;
	uint64_t *old = b->prev_ids;
	size_t ocap = b->prev_cap;
	if (!(b->prev_ids = hp_calloc(cap, sizeof *b->prev_ids))) {
		b->prev_ids = old;
		return oom(h);
	}
	b->prev_cap = cap;
	for (size_t i = 0; i < ocap; i++)
		if (old[i])
			b->prev_ids[prev_slot(b, old[i])] = old[i];
	hp_free(old);
	return HP_OK;
}

/* A heap dump begins: the ids of the one before it join the set that a
 * record's id is looked up in (each id once: linear in the objects over
 * all dumps, however many dumps the file has). */
static int on_dump_begin(void *ud, unsigned index, uint64_t offset)
{
	hp_heap *h = ud;
	struct hp_heap_build *b = h->build;
	(void)index;
	(void)offset;
	if (h->opts.dump_index >= 0)
		return HP_OK;
	h->merged_dumps = ++b->dumps;
	if (b->dumps == 1 || b->over_limit)
		return HP_OK;
	const uint64_t *src = h->opts.build_objects ? h->ids : b->seen;
	size_t to = h->opts.build_objects ? h->nobj : b->nseen;
	size_t from = h->opts.build_objects ? b->pend_from : 0;
	if (to > from && prev_reserve(h, to - from) != HP_OK)
		return stored(h, HP_ENOMEM);
	for (size_t i = from; i < to; i++) {
		size_t k = prev_slot(b, src[i]);
		if (src[i] && !b->prev_ids[k]) {
			b->prev_ids[k] = src[i];
			b->nprev++;
		}
	}
	b->pend_from = to;
	b->nseen = 0;
	return HP_OK;
}

static int merge_check_slow(hp_heap *h, uint64_t id)
{
	struct hp_heap_build *b = h->build;
	if (b->nprev && id && b->prev_ids[prev_slot(b, id)] == id) {
		h->repeated_records++;
		return 1;
	}
	if (h->opts.build_objects || b->over_limit)
		return 0;
	if (b->nseen == b->seen_cap) {
		size_t nc = b->seen_cap ? 2 * b->seen_cap : 1 << 14;
		uint64_t *q = hp_reallocarray(b->seen, nc, sizeof *q);
		if (!q)
			return stored(h, oom(h)) ? -1 : 0;
		b->seen = q;
		b->seen_cap = nc;
	}
	b->seen[b->nseen++] = id;
	return 0;
}

/* Under --dump all: 1 when an earlier heap dump had an object with this id
 * (the record is skipped: the first one is kept), -1 out of memory, else 0
 * (without the object table the id is noted until the next dump begins).
 * Otherwise always 0. */
static inline int merge_check(hp_heap *h, uint64_t id)
{
	return h->opts.dump_index < 0 ? merge_check_slow(h, id) : 0;
}

static int prim_type_of_name(const char *n)
{
	static const struct { const char *name; int type; } t[] = {
		{ "boolean[]", HP_T_BOOLEAN }, { "char[]", HP_T_CHAR }, { "float[]", HP_T_FLOAT },
		{ "double[]", HP_T_DOUBLE }, { "byte[]", HP_T_BYTE }, { "short[]", HP_T_SHORT },
		{ "int[]", HP_T_INT }, { "long[]", HP_T_LONG },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		if (strcmp(n, t[i].name) == 0)
			return t[i].type;
	return 0;
}

static int store_string(hp_heap *h, uint64_t id, const uint8_t *s, uint32_t len)
{
	if (h->arena_len + len + 1 > h->build->arena_cap) {
		size_t nc = h->build->arena_cap ? h->build->arena_cap : 1 << 16;
		while (nc < h->arena_len + len + 1)
			nc *= 2;
		char *na = hp_realloc(h->arena, nc);
		if (!na)
			return oom(h);
		h->arena = na;
		h->build->arena_cap = nc;
	}
	if (h->nstr >= h->build->str_cap) {
		/* both columns grow together, only when full */
		size_t nc = h->build->str_cap ? h->build->str_cap * 2 : 1024;
		uint64_t *no = hp_reallocarray(h->str_off, nc, sizeof *no);
		if (!no)
			return oom(h);
		h->str_off = no;
		uint32_t *nl = hp_reallocarray(h->str_len, nc, sizeof *nl);
		if (!nl)
			return oom(h);
		h->str_len = nl;
		h->build->str_cap = nc;
	}
	uint32_t idx = (uint32_t)h->nstr;
	if (hp_idmap_put(&h->str_map, id, idx) < 0)
		return oom(h);
	h->str_off[idx] = h->arena_len;
	h->str_len[idx] = len;
	memcpy(h->arena + h->arena_len, s, len);
	h->arena[h->arena_len + len] = '\0';
	h->arena_len += len + 1;
	h->nstr++;
	return HP_OK;
}

/* A string longer than HP_STRING_MAX keeps its first HP_STRING_MAX bytes
 * (a character cut in two is shown as U+FFFD) and a warning with its real
 * length: only those are read, so the parser may stream past the rest
 * (string_max). */
static int on_string(void *ud, uint64_t id, const uint8_t *s, uint32_t len)
{
	hp_heap *h = ud;
	uint32_t keep = len;
	if (keep > HP_STRING_MAX) {
		keep = HP_STRING_MAX;
		if (!h->build->over_limit)
			HP_TRY(stored(h, hp_heap_add_warning(h, "string 0x%llx is %u bytes long; only its first %u are kept",
							     (unsigned long long)id, len, keep)));
	}
	h->build->tally.strings++;
	h->build->tally.string_bytes += keep;
	if (h->build->over_limit)
		return HP_OK;
	return stored(h, store_string(h, id, s, keep));
}

/* ---- classes -------------------------------------------------------- */

uint32_t hp_heap_class_new(hp_heap *h, uint64_t id)
{
	if (h->nclasses >= h->build->classes_cap) {
		struct hp_class *n = hp_grow(h->classes, &h->build->classes_cap, h->nclasses + 1, 64, sizeof *n);
		if (!n)
			return HP_NONE;
		h->classes = n;
	}
	uint32_t idx = (uint32_t)h->nclasses;
	struct hp_class *c = &h->classes[idx];
	memset(c, 0, sizeof *c);
	c->id = id;
	c->super = HP_NONE;
	c->row = HP_NONE;
	h->nclasses++;
	return idx;
}

/* class index for an id, creating a placeholder when unknown */
static inline uint32_t class_for(hp_heap *h, uint64_t id)
{
	/* a direct-mapped cache in front of the hash: instances come in runs of
	 * a few classes, and a hash probe costs more than the whole record */
	unsigned slot = (unsigned)((id * 0x9E3779B97F4A7C15ull) >> 58);
	if (h->build->ccache_idx[slot] != HP_NONE && h->build->ccache_id[slot] == id)
		return h->build->ccache_idx[slot];
	uint32_t idx = hp_idmap_get(&h->class_map, id);
	if (idx == HP_IDMAP_NONE) {
		idx = hp_heap_class_new(h, id);
		if (idx == HP_NONE || hp_idmap_put(&h->class_map, id, idx) < 0)
			return HP_NONE;
	}
	h->build->ccache_id[slot] = id;
	h->build->ccache_idx[slot] = idx;
	return idx;
}

static int store_load_class(hp_heap *h, uint32_t serial, uint64_t class_id, uint64_t name_sid)
{
	uint32_t idx = class_for(h, class_id);
	if (idx == HP_NONE)
		return oom(h);
	struct hp_class *c = &h->classes[idx];
	c->serial = serial;
	c->name_sid = name_sid;
	if (hp_idmap_put(&h->serial_map, serial, idx) < 0)
		return oom(h);
	/* primitive array classes must be known before their arrays arrive */
	uint32_t n;
	const char *s = hp_heap_string(h, name_sid, &n);
	if (s && n >= 2 && n <= 9) {
		int t = 0;
		if (s[0] == '[' && n == 2) {
			const char *p = hp_prim_of(s[1]);
			char tmp[16];
			if (p) {
				snprintf(tmp, sizeof tmp, "%s[]", p);
				t = prim_type_of_name(tmp);
			}
		} else {
			char tmp[16];
			memcpy(tmp, s, n);
			tmp[n] = '\0';
			t = prim_type_of_name(tmp);
		}
		if (t && h->prim_class[t] == HP_NONE) {
			h->prim_class[t] = idx;
			c->kind = HP_CK_PRIMARRAY;
			c->elem_type = (uint8_t)t;
		}
	}
	return HP_OK;
}

static int on_load_class(void *ud, uint32_t serial, uint64_t class_id, uint32_t trace, uint64_t name_sid)
{
	hp_heap *h = ud;
	h->build->tally.load_classes++;
	if (h->build->over_limit)
		return HP_OK;
	return stored(h, store_load_class(h, serial, class_id, name_sid));
}

/* histogram row for (class, current heap) */
static uint32_t row_for(hp_heap *h, uint32_t cidx, unsigned heap)
{
	struct hp_class *c = &h->classes[cidx];
	uint32_t r = hp_heap_row_of(h, cidx, heap);
	if (r != HP_NONE)
		return r;
	if (h->nrows >= h->build->rows_cap) {
		struct hp_hrow *n = hp_grow(h->rows, &h->build->rows_cap, h->nrows + 1, 64, sizeof *n);
		if (!n)
			return HP_NONE;
		h->rows = n;
	}
	r = (uint32_t)h->nrows++;
	struct hp_hrow *row = &h->rows[r];
	memset(row, 0, sizeof *row);
	row->cls = cidx;
	row->heap = (uint8_t)heap;
	row->next = c->row;
	c->row = r;
	return r;
}

static int count_array(hp_heap *h, uint32_t r, uint32_t n)
{
	struct hp_heap_build *b = h->build;
	struct hp_hrow *row = &h->rows[r];
	if (r >= b->lenmod_cap) {
		size_t nc = b->lenmod_cap ? b->lenmod_cap : 64;
		while (nc <= r)
			nc *= 2;
		uint64_t **nl = hp_reallocarray(b->lenmod, nc, sizeof *nl);
		if (!nl)
			return oom(h);
		memset(nl + b->lenmod_cap, 0, (nc - b->lenmod_cap) * sizeof *nl);
		b->lenmod = nl;
		b->lenmod_cap = nc;
	}
	if (!b->lenmod[r]) {
		b->lenmod[r] = hp_calloc(HP_LENMOD, sizeof *b->lenmod[r]);
		if (!b->lenmod[r])
			return oom(h);
	}
	row->is_array = 1;
	row->count++;
	row->sum_len += n;
	b->lenmod[r][n % HP_LENMOD]++;
	if (n > row->max_len)
		row->max_len = n;
	return HP_OK;
}

static uint64_t gcd64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* alignment evidence: GCD of all differences between non-zero ids */
static inline void note_id(hp_heap *h, uint64_t id)
{
	if (!id)
		return;
	if (!h->build->gcd_have_first) {
		h->build->gcd_first = id;
		h->build->gcd_have_first = 1;
		return;
	}
	if (h->build->gcd_done)
		return;     /* Eclipse MAT stops at 8 or less: the alignment is then 8 */
	uint64_t d = id > h->build->gcd_first ? id - h->build->gcd_first : h->build->gcd_first - id;
	if (d) {
		h->build->gcd = gcd64(h->build->gcd, d);
		if (h->build->gcd <= 8)
			h->build->gcd_done = 1;
	}
}

static int add_object(hp_heap *h, uint64_t id, uint32_t cidx, uint32_t len, int kind, uint64_t off)
{
	if (off >= HP_MAX_OFFSET)
		return hp_heap_add_warning(h, "objects past 4 TiB into the dump are not kept in the model") == HP_OK
			? HP_ENOMEM : HP_ENOMEM;
	if (h->nobj >= hp_heap_max_objects) {
		h->build->too_many = 1;
		return HP_ENOMEM;
	}
	if (h->nobj >= h->build->obj_cap) {
		/* (never past the most objects: the fast paths append while
		 * there is room, and come here when there is none) */
		size_t nc = h->build->obj_cap ? h->build->obj_cap * 2 : 1 << 14;
		if (nc > hp_heap_max_objects)
			nc = hp_heap_max_objects;
		uint64_t *ni = hp_reallocarray(h->ids, nc, sizeof *ni);
		if (!ni)
			return oom(h);
		h->ids = ni;
		uint32_t *nc1 = hp_reallocarray(h->cls, nc, sizeof *nc1);
		if (!nc1)
			return oom(h);
		h->cls = nc1;
		uint32_t *nl = hp_reallocarray(h->len, nc, sizeof *nl);
		if (!nl)
			return oom(h);
		h->len = nl;
		uint32_t *nlo = hp_reallocarray(h->off_lo, nc, sizeof *nlo);
		if (!nlo)
			return oom(h);
		h->off_lo = nlo;
		uint16_t *nhi = hp_reallocarray(h->off_hi, nc, sizeof *nhi);
		if (!nhi)
			return oom(h);
		h->off_hi = nhi;
		h->build->obj_cap = nc;
	}
	size_t i = h->nobj++;
	h->ids[i] = id;
	h->cls[i] = cidx;
	h->len[i] = len;
	h->off_lo[i] = (uint32_t)off;
	h->off_hi[i] = (uint16_t)(((off >> 32) & 0x3ff) | ((h->build->cur_heap & 15u) << 10) | ((unsigned)kind << 14));
	return HP_OK;
}

static int parse_fields(hp_heap *h, const struct hp_class_dump *d, struct hp_class *c)
{
	unsigned I = h->I;
	const uint8_t *p = d->statics;
	c->first_static = (uint32_t)h->nstatics;
	c->n_statics = d->n_statics;
	for (unsigned i = 0; i < d->n_statics; i++) {
		GROW(h->statics, h->nstatics, h->build->statics_cap, oom(h));
		struct hp_static *s = &h->statics[h->nstatics++];
		s->name_sid = hp_be_id(p, I);
		s->type = p[I];
		unsigned sz = hp_type_size(s->type, I);
		const uint8_t *v = p + I + 1;
		switch (sz) {
		case 1: s->value = v[0]; break;
		case 2: s->value = hp_be16(v); break;
		case 4: s->value = hp_be32(v); break;
		default: s->value = hp_be64(v); break;
		}
		if (s->type == HP_T_OBJECT)
			c->static_refs++;
		else
			c->static_prim += sz;
		p += I + 1 + sz;
	}
	p = d->fields;
	c->first_field = (uint32_t)h->nfields;
	c->n_fields = d->n_fields;
	c->own_refs = c->own_prim = 0;
	for (unsigned i = 0; i < d->n_fields; i++) {
		GROW(h->fields, h->nfields, h->build->fields_cap, oom(h));
		struct hp_field *f = &h->fields[h->nfields++];
		f->name_sid = hp_be_id(p, I);
		f->type = p[I];
		if (f->type == HP_T_OBJECT)
			c->own_refs++;
		else
			c->own_prim += hp_type_size(f->type, I);
		p += I + 1;
	}
	return HP_OK;
}

static int store_class_dump(hp_heap *h, const struct hp_class_dump *d)
{
	uint32_t idx = class_for(h, d->id);
	if (idx == HP_NONE)
		return oom(h);
	struct hp_class *c = &h->classes[idx];
	if (c->dumped) {
		return hp_heap_add_warning(h, "class 0x%llx is dumped twice (offset %llu); the second CLASS DUMP is ignored",
					   (unsigned long long)d->id, (unsigned long long)d->offset);
	}
	c->dumped = 1;
	c->super_id = d->super_id;
	c->loader_id = d->loader_id;
	c->instance_size = d->instance_size;
	c->heap = (uint8_t)h->build->cur_heap;
	c->offset = d->offset;
	HP_TRY(parse_fields(h, d, c));
	h->nclass_dumps++;
	h->n_classobjs++;
	h->heap_classes[h->build->cur_heap]++;
	note_id(h, d->id);
	HP_TRY(hp_gaps_mirror(&h->build->gaps, d->id, idx));
	if (h->opts.build_objects)
		HP_TRY(add_object(h, d->id, idx, 0, HP_OBJ_CLASS, d->offset));
	return HP_OK;
}

static int on_class_dump(void *ud, const struct hp_class_dump *d)
{
	hp_heap *h = ud;
	int m = merge_check(h, d->id);
	if (m)
		return m < 0 ? HP_ENOMEM : HP_OK;
	h->build->tally.class_dumps++;
	h->build->tally.fields += d->n_fields;
	h->build->tally.statics += d->n_statics;
	if (h->opts.build_objects)
		tally_order(h, d->id);
	if (h->build->over_limit)
		return HP_OK;
	return stored(h, store_class_dump(h, d));
}

static int store_instance(hp_heap *h, uint64_t id, uint64_t class_id, uint64_t off)
{
	uint32_t cidx = class_for(h, class_id);
	if (cidx == HP_NONE)
		return oom(h);
	if (h->build->cur_heap == 0) {
		if (cidx >= h->build->ccount_cap) {
			size_t nc = h->build->ccount_cap ? h->build->ccount_cap : 256;
			while (nc <= cidx)
				nc *= 2;
			uint64_t *n = hp_reallocarray(h->build->ccount, nc, sizeof *n);
			if (!n)
				return oom(h);
			memset(n + h->build->ccount_cap, 0, (nc - h->build->ccount_cap) * sizeof *n);
			h->build->ccount = n;
			h->build->ccount_cap = nc;
		}
		h->build->ccount[cidx]++;
	} else {
		uint32_t r = row_for(h, cidx, h->build->cur_heap);
		if (r == HP_NONE)
			return oom(h);
		h->rows[r].count++;
	}
	note_id(h, id);
	HP_TRY(hp_gaps_next(&h->build->gaps, id, HP_OBJ_INSTANCE, cidx, 0, 0, h->build->gcd));
	if (h->opts.build_objects)
		return add_object(h, id, cidx, 0, HP_OBJ_INSTANCE, off);
	return HP_OK;
}

static __attribute__((noinline)) int instance_slow(hp_heap *h, uint64_t id, uint64_t class_id, uint64_t off)
{
	h->n_instances++;
	if (h->opts.build_objects)
		tally_order(h, id);
	if (h->build->over_limit)
		return HP_OK;
	return stored(h, store_instance(h, id, class_id, off));
}

static void note_serial_slow(struct hp_obj_serials *s, uint32_t serial)
{
	if (s->many)
		return;
	for (uint32_t i = 0; i < s->n; i++)
		if (s->serial[i] == serial) {
			s->last = i;
			return;
		}
	if (s->n == HP_OBJ_SERIALS_MAX) {
		s->many = 1;
		return;
	}
	s->last = s->n;
	s->serial[s->n++] = serial;
}

/* an instance's or array's stack trace serial into h->obj_serials (hot:
 * nearly always the previous record's) */
static inline void note_serial(hp_heap *h, uint32_t serial)
{
	struct hp_obj_serials *s = &h->obj_serials;
	if (!s->n || s->serial[s->last] != serial)
		note_serial_slow(s, serial);
}

/* Hot: one call per instance.  Instances of the main heap are counted in a
 * small per-class array (few cache lines) and, when the model keeps objects
 * and its columns have room, appended to them here (what store_instance()
 * and add_object() would do); everything else takes the slow path. */
static int on_instance(void *ud, uint64_t id, uint32_t serial, uint64_t class_id, const uint8_t *f, uint32_t len,
		       uint64_t off)
{
	hp_heap *h = ud;
	struct hp_heap_build *b = h->build;
	int m = merge_check(h, id);
	if (m)
		return m < 0 ? HP_ENOMEM : HP_OK;
	note_serial(h, serial);
	unsigned slot = (unsigned)((class_id * 0x9E3779B97F4A7C15ull) >> 58);
	uint32_t cidx = b->ccache_idx[slot];
	if (cidx != HP_NONE && b->ccache_id[slot] == class_id && b->cur_heap == 0 &&
	    cidx < b->ccount_cap && b->gcd_done) {
		if (!h->opts.build_objects) {
			b->ccount[cidx]++;
			h->n_instances++;
			return hp_gaps_next(&b->gaps, id, HP_OBJ_INSTANCE, cidx, 0, 0, b->gcd) ? stored(h, oom(h)) : HP_OK;
		}
		if (h->nobj < b->obj_cap && off < HP_MAX_OFFSET && !b->over_limit) {
			if (hp_gaps_next(&b->gaps, id, HP_OBJ_INSTANCE, cidx, 0, 0, b->gcd))
				return instance_slow(h, id, class_id, off);
			b->ccount[cidx]++;
			h->n_instances++;
			tally_order(h, id);
			size_t i = h->nobj++;
			h->ids[i] = id;
			h->cls[i] = cidx;
			h->len[i] = 0;
			h->off_lo[i] = (uint32_t)off;
			h->off_hi[i] = (uint16_t)(((off >> 32) & 0x3ff) | ((unsigned)HP_OBJ_INSTANCE << 14));
			return HP_OK;
		}
	}
	return instance_slow(h, id, class_id, off);
}

static int store_obj_array(hp_heap *h, uint64_t id, uint64_t class_id, uint32_t n, uint64_t off)
{
	uint32_t cidx = class_for(h, class_id);
	if (cidx == HP_NONE)
		return oom(h);
	h->classes[cidx].kind = HP_CK_OBJARRAY;
	uint32_t r = row_for(h, cidx, h->build->cur_heap);
	if (r == HP_NONE)
		return oom(h);
	HP_TRY(count_array(h, r, n));
	note_id(h, id);
	HP_TRY(hp_gaps_next(&h->build->gaps, id, HP_OBJ_OBJARRAY, cidx, n, 0, h->build->gcd));
	/* Eclipse MAT's rule: an array starting inside where the previous one
	 * would end with 8-byte references proves compressed references */
	if (h->I == 8 && !h->build->found_compressed) {
		if (id > h->build->prev_array_start && id < h->build->prev_array_uend) {
			h->build->found_compressed = 1;
			h->build->compressed_at = off;
		}
		h->build->prev_array_start = id;
		h->build->prev_array_uend = id + 16 + (uint64_t)n * 8;
	}
	if (h->opts.build_objects)
		return add_object(h, id, cidx, n, HP_OBJ_OBJARRAY, off);
	return HP_OK;
}

static int on_obj_array(void *ud, uint64_t id, uint32_t serial, uint64_t class_id, uint32_t n, const uint8_t *e,
			uint64_t off)
{
	hp_heap *h = ud;
	int m = merge_check(h, id);
	if (m)
		return m < 0 ? HP_ENOMEM : HP_OK;
	note_serial(h, serial);
	h->n_objarrays++;
	tally_row(h, class_id);
	if (h->opts.build_objects)
		tally_order(h, id);
	if (h->build->over_limit)
		return HP_OK;
	return stored(h, store_obj_array(h, id, class_id, n, off));
}

static uint32_t prim_class(hp_heap *h, unsigned type)
{
	if (h->prim_class[type] != HP_NONE)
		return h->prim_class[type];
	/* no LOAD CLASS for it: make one up, keyed by an id no object can have */
	uint32_t idx = hp_heap_class_new(h, 0);
	if (idx == HP_NONE)
		return HP_NONE;
	struct hp_class *c = &h->classes[idx];
	char name[24];
	snprintf(name, sizeof name, "%s[]", hp_type_name(type));
	if (hp_build_text(h->build, name, strlen(name), &h->classes[idx].name))
		return HP_NONE;
	c = &h->classes[idx];
	c->kind = HP_CK_PRIMARRAY;
	c->elem_type = (uint8_t)type;
	c->synthetic = 1;
	h->prim_class[type] = idx;
	return idx;
}

static int store_prim_array(hp_heap *h, uint64_t id, unsigned type, uint32_t n, uint64_t off)
{
	uint32_t cidx = prim_class(h, type);
	if (cidx == HP_NONE)
		return oom(h);
	uint32_t r = h->classes[cidx].row;
	if (r == HP_NONE || h->rows[r].heap != h->build->cur_heap) {
		r = row_for(h, cidx, h->build->cur_heap);
		if (r == HP_NONE)
			return oom(h);
	}
	HP_TRY(count_array(h, r, n));
	note_id(h, id);
	static const uint8_t esize[12] = { 0, 0, 0, 0, 1, 2, 4, 8, 1, 2, 4, 8 };
	HP_TRY(hp_gaps_next(&h->build->gaps, id, HP_OBJ_PRIMARRAY, cidx, n, type < 12 ? esize[type] : 0, h->build->gcd));
	if (h->opts.build_objects)
		return add_object(h, id, cidx, n, HP_OBJ_PRIMARRAY, off);
	return HP_OK;
}

static int on_prim_array(void *ud, uint64_t id, uint32_t serial, unsigned type, uint32_t n, const uint8_t *e,
			 uint64_t off, int nodata)
{
	hp_heap *h = ud;
	int m = merge_check(h, id);
	if (m)
		return m < 0 ? HP_ENOMEM : HP_OK;
	note_serial(h, serial);
	h->n_primarrays++;
	tally_row(h, 0xFFFFFFFFFFFFFF00ull | type);    /* no class id: one row per type */
	if (h->opts.build_objects)
		tally_order(h, id);
	if (h->build->over_limit)
		return HP_OK;
	return stored(h, store_prim_array(h, id, type, n, off));
}

static int store_root(hp_heap *h, const struct hp_root *rt)
{
	GROW(h->roots, h->nroots, h->build->roots_cap, oom(h));
	struct hp_root_rec *r = &h->roots[h->nroots++];
	r->object = rt->object;
	r->thread_serial = rt->thread_serial;
	r->frame = rt->frame;
	r->kind = (uint8_t)rt->kind;
	r->heap = (uint8_t)h->build->cur_heap;
	r->has_thread = (uint8_t)rt->has_thread;
	h->roots_by_kind[rt->kind]++;
	if (rt->kind == HP_ROOT_THREAD_OBJECT) {
		uint32_t ti = hp_idmap_get(&h->thread_map, rt->thread_serial);
		if (ti == HP_IDMAP_NONE) {
			GROW(h->threads, h->nthreads, h->build->threads_cap, oom(h));
			ti = (uint32_t)h->nthreads++;
			memset(&h->threads[ti], 0, sizeof h->threads[ti]);
			h->threads[ti].serial = rt->thread_serial;
			if (hp_idmap_put(&h->thread_map, rt->thread_serial, ti) < 0)
				return oom(h);
		}
		h->threads[ti].object_id = rt->object;
		h->threads[ti].trace_serial = rt->frame;
		h->threads[ti].from_root = 1;
	}
	return HP_OK;
}

static int on_root(void *ud, const struct hp_root *rt)
{
	hp_heap *h = ud;
	h->build->tally.roots++;
	h->build->tally.threads += rt->kind == HP_ROOT_THREAD_OBJECT;
	if (h->build->over_limit)
		return HP_OK;
	return stored(h, store_root(h, rt));
}

static int store_start_thread(hp_heap *h, const struct hp_thread *t)
{
	uint32_t ti = hp_idmap_get(&h->thread_map, t->serial);
	if (ti == HP_IDMAP_NONE) {
		GROW(h->threads, h->nthreads, h->build->threads_cap, oom(h));
		ti = (uint32_t)h->nthreads++;
		memset(&h->threads[ti], 0, sizeof h->threads[ti]);
		if (hp_idmap_put(&h->thread_map, t->serial, ti) < 0)
			return oom(h);
	}
	struct hp_thread_rec *r = &h->threads[ti];
	r->serial = t->serial;
	r->object_id = t->object_id;
	r->trace_serial = t->trace_serial;
	r->name_sid = t->name_sid;
	r->group_sid = t->group_sid;
	r->from_start_thread = 1;
	return HP_OK;
}

static int on_start_thread(void *ud, const struct hp_thread *t)
{
	hp_heap *h = ud;
	h->build->tally.threads++;
	if (h->build->over_limit)
		return HP_OK;
	return stored(h, store_start_thread(h, t));
}

static int store_frame(hp_heap *h, const struct hp_frame *f)
{
	GROW(h->frames, h->nframes, h->build->frames_cap, oom(h));
	if (hp_idmap_put(&h->frame_map, f->id, (uint32_t)h->nframes) < 0)
		return oom(h);
	h->frames[h->nframes++] = *f;
	return HP_OK;
}

static int on_frame(void *ud, const struct hp_frame *f)
{
	hp_heap *h = ud;
	h->build->tally.frames++;
	if (h->build->over_limit)
		return HP_OK;
	return stored(h, store_frame(h, f));
}

static int store_trace(hp_heap *h, uint32_t serial, uint32_t thread_serial, uint32_t n, const uint8_t *ids)
{
	GROW(h->traces, h->ntraces, h->build->traces_cap, oom(h));
	struct hp_trace_rec *t = &h->traces[h->ntraces];
	t->serial = serial;
	t->thread_serial = thread_serial;
	t->first = (uint32_t)h->ntrace_frames;
	t->n = n;
	for (uint32_t i = 0; i < n; i++) {
		GROW(h->trace_frames, h->ntrace_frames, h->build->trace_frames_cap, oom(h));
		h->trace_frames[h->ntrace_frames++] = hp_be_id(ids + (size_t)i * h->I, h->I);
	}
	if (hp_idmap_put(&h->trace_map, serial, (uint32_t)h->ntraces) < 0)
		return oom(h);
	h->ntraces++;
	return HP_OK;
}

/* A stack trace deeper than HP_TRACE_FRAMES_MAX keeps its top frames and a
 * warning with its depth (only those are read: the parser's
 * trace_frames_max). */
static int on_trace(void *ud, uint32_t serial, uint32_t thread_serial, uint32_t n, const uint8_t *ids)
{
	hp_heap *h = ud;
	if (n > HP_TRACE_FRAMES_MAX) {
		if (!h->build->over_limit)
			HP_TRY(stored(h, hp_heap_add_warning(h, "stack trace %u has %u frames; only its first %u are kept",
							     serial, n, HP_TRACE_FRAMES_MAX)));
		n = HP_TRACE_FRAMES_MAX;
	}
	h->build->tally.traces++;
	h->build->tally.trace_frames += n;
	if (h->build->over_limit)
		return HP_OK;
	return stored(h, store_trace(h, serial, thread_serial, n, ids));
}

/*
 * A heap past the first HP_MAX_HEAPS (the object table keeps 4 bits of heap
 * index) is counted in the last one, which is renamed to say so ("c+d+e",
 * its own name first; past 200 bytes "+N more"), and a warning names each
 * heap merged.  Names are told apart by a 64-bit hash (FNV-1a).
 */
static uint64_t name_hash(const char *s, size_t n)
{
	return hp_fnv1a(HP_FNV1A_INIT, s, n);
}

static int merge_heap(hp_heap *h, uint32_t heap_id, const char *s, size_t n)
{
	struct hp_heap_build *b = h->build;
	unsigned last = HP_MAX_HEAPS - 1;
	uint32_t v = 0;
	b->cur_heap = last;
	if (!b->nmerged) {
		/* the last heap's own name stays its own */
		const char *own = hp_heap_name(h, last);
		if (hp_idmap_insert(&b->merged_heaps, name_hash(own, strlen(own)), &v) < 0)
			return oom(h);
		b->merged_base = h->heap_name[last];
	}
	int ins = hp_idmap_insert(&b->merged_heaps, name_hash(s, n), &v);
	if (ins < 0)
		return oom(h);
	if (ins == 0)
		return HP_OK;            /* merged before */
	b->nmerged++;
	const char *listed = hp_heap_text(h, b->merged_base);
	size_t ll = strlen(listed);
	uint64_t off;
	if (!b->merged_more && ll + 1 + n <= 200) {
		char name[256];
		snprintf(name, sizeof name, "%s+%.*s", listed, (int)n, s);
		if (hp_build_text(b, name, strlen(name), &off))
			return oom(h);
		b->merged_base = h->heap_name[last] = off;
	} else {
		char name[256 + 32];
		b->merged_more++;
		snprintf(name, sizeof name, "%s+%llu more", listed, (unsigned long long)b->merged_more);
		if (hp_build_text(b, name, strlen(name), &off))
			return oom(h);
		h->heap_name[last] = off;
	}
	return hp_heap_add_warning(h, "the dump has more than %d Android heaps; heap \"%.*s\" (id %u) is counted with heap \"%s\"",
				   HP_MAX_HEAPS, (int)(n > 200 ? 200 : n), s, heap_id, hp_heap_name(h, last));
}

static int store_heap_info(hp_heap *h, uint32_t heap_id, uint64_t name_sid)
{
	uint32_t n;
	const char *s = hp_heap_string(h, name_sid, &n);
	char buf[64];
	if (!s) {
		snprintf(buf, sizeof buf, "heap-%u", heap_id);
		s = buf;
		n = (uint32_t)strlen(buf);
	}
	for (unsigned i = 0; i < h->nheaps; i++) {
		const char *hn = hp_heap_name(h, i);
		if (strlen(hn) == n && memcmp(hn, s, n) == 0) {
			h->build->cur_heap = i;
			return HP_OK;
		}
	}
	/* the name may contain a NUL: it ends there, as it did */
	size_t nn = strnlen(s, n);
	if (h->nheaps >= HP_MAX_HEAPS)
		return merge_heap(h, heap_id, s, nn);
	if (hp_build_text(h->build, s, nn, &h->heap_name[h->nheaps]))
		return oom(h);
	h->heap_ids[h->nheaps] = heap_id;
	h->build->cur_heap = h->nheaps++;
	return HP_OK;
}

static int on_heap_info(void *ud, uint32_t heap_id, uint64_t name_sid)
{
	hp_heap *h = ud;
	h->build->tally.heap_id = heap_id;
	if (h->build->over_limit)
		return HP_OK;
	return stored(h, store_heap_info(h, heap_id, name_sid));
}

static int store_header(hp_heap *h)
{
	/* Android: everything before the first HEAP DUMP INFO is "default" */
	h->heap_name[0] = 0;
	if (h->header.version == 3 && hp_build_text(h->build, "default", 7, &h->heap_name[0]))
		return oom(h);
	h->nheaps = 1;
	return HP_OK;
}

static int on_header(void *ud, const struct hp_header *hd)
{
	hp_heap *h = ud;
	h->header = *hd;
	h->I = hd->id_size;
	if (h->build->over_limit)
		return HP_OK;
	return stored(h, store_header(h));
}

/* ---- the hprof agent's records ---------------------------------------- */

static int store_alloc_sites(hp_heap *h, const struct hp_alloc_sites_hdr *hd, const uint8_t *p, uint32_t k)
{
	struct hp_heap_build *b = h->build;
	if (k < hd->nsites)
		HP_TRY(hp_heap_add_warning(h, "ALLOC SITES record %zu declares %u sites; only its first %u are kept",
					   h->nalloc_recs, hd->nsites, k));
	GROW(h->alloc_recs, h->nalloc_recs, b->alloc_recs_cap, oom(h));
	struct hp_alloc_sites_rec *rec = &h->alloc_recs[h->nalloc_recs];
	rec->hd = *hd;
	rec->first = (uint32_t)h->nalloc_sites;
	rec->k = 0;
	for (uint32_t i = 0; i < k; i++) {
		GROW(h->alloc_sites, h->nalloc_sites, b->alloc_sites_cap, oom(h));
		hp_alloc_site_decode(p + (size_t)i * 25, &h->alloc_sites[h->nalloc_sites++]);
		rec->k++;
	}
	h->nalloc_recs++;
	return HP_OK;
}

static int on_alloc_sites(void *ud, const struct hp_alloc_sites_hdr *hd, const uint8_t *p, uint32_t k)
{
	hp_heap *h = ud;
	if (h->build->over_limit)
		return HP_OK;
	return stored(h, store_alloc_sites(h, hd, p, k));
}

static int store_summary(hp_heap *h, const struct hp_heap_summary *hs)
{
	GROW(h->summaries, h->nsummaries, h->build->summaries_cap, oom(h));
	h->summaries[h->nsummaries++] = *hs;
	return HP_OK;
}

static int on_heap_summary(void *ud, const struct hp_heap_summary *hs)
{
	hp_heap *h = ud;
	if (h->build->over_limit)
		return HP_OK;
	return stored(h, store_summary(h, hs));
}

static int store_cpu(hp_heap *h, uint32_t total, uint32_t n, const uint8_t *p, uint32_t k)
{
	struct hp_heap_build *b = h->build;
	if (k < n)
		HP_TRY(hp_heap_add_warning(h, "CPU SAMPLES record %zu declares %u traces; only its first %u are kept",
					   h->ncpu_recs, n, k));
	GROW(h->cpu_recs, h->ncpu_recs, b->cpu_recs_cap, oom(h));
	struct hp_cpu_samples_rec *rec = &h->cpu_recs[h->ncpu_recs];
	rec->total = total;
	rec->n = n;
	rec->first = (uint32_t)h->ncpu_samples;
	rec->k = 0;
	for (uint32_t i = 0; i < k; i++) {
		GROW(h->cpu_samples, h->ncpu_samples, b->cpu_samples_cap, oom(h));
		hp_cpu_sample_decode(p + (size_t)i * 8, &h->cpu_samples[h->ncpu_samples++]);
		rec->k++;
	}
	h->ncpu_recs++;
	return HP_OK;
}

static int on_cpu_samples(void *ud, uint32_t total, uint32_t n, const uint8_t *p, uint32_t k)
{
	hp_heap *h = ud;
	if (h->build->over_limit)
		return HP_OK;
	return stored(h, store_cpu(h, total, n, p, k));
}

/* The object thread's batches.  A run of instances that on_instance()
 * would take on its fast path (the main heap, a cached class, the stack
 * trace serial and the gap since the previous record as before, room in
 * the columns) is taken here with the builder's counters and the gaps'
 * previous record in locals, stored back at the end of the run: the same
 * effects, without a dozen loads and stores through h an instance.  The
 * first record of another kind stops the run and goes to on_instance()
 * and the others.  Returns how many were taken. */
static size_t instance_run(hp_heap *h, const struct hp_objrec *r, size_t n)
{
	struct hp_heap_build *b = h->build;
	struct hp_gaps *g = &b->gaps;
	const struct hp_obj_serials *ser = &h->obj_serials;
	if (b->cur_heap != 0 || !b->gcd_done || h->opts.dump_index < 0 || b->over_limit || !ser->n)
		return 0;
	const int build = h->opts.build_objects;
	uint64_t *const ccount = b->ccount;
	const size_t ccap = b->ccount_cap, inst_cap = g->inst_cap, room = build ? b->obj_cap - h->nobj : 0;
	struct hp_gapstat *const inst = g->inst;
	const uint64_t next_mirror = g->next_mirror;
	const uint32_t serial = ser->serial[ser->last];
	uint64_t prev_id = g->prev_id, arr_gaps = g->arr_gaps, ngaps = 0, last_id = b->tally.last_id;
	uint32_t prev_cls = g->prev_cls;
	uint8_t prev_kind = g->prev_kind;
	int unsorted = 0;
	size_t k = 0, i = h->nobj;
	for (; k < n; k++) {
		const struct hp_objrec *e = &r[k];
		uint64_t id = e->id, off = HP_OBJREC_OFF(e);
		if (HP_OBJREC_TAG(e) != 0x21 || e->serial != serial)
			break;
		unsigned slot = (unsigned)((e->cid * 0x9E3779B97F4A7C15ull) >> 58);
		uint32_t cidx = b->ccache_idx[slot];
		if (cidx == HP_NONE || b->ccache_id[slot] != e->cid || cidx >= ccap)
			break;
		if (build && (k >= room || off >= HP_MAX_OFFSET))
			break;
		/* hp_gaps_next()'s fast path */
		if (!(id > prev_id && id < next_mirror && cidx < inst_cap))
			break;
		if (prev_kind == HP_OBJ_INSTANCE + 1) {
			struct hp_gapstat *st = &inst[prev_cls];
			if (st->v[0] != id - prev_id || !st->n[0])
				break;
			st->n[0]++;
			ngaps++;
		} else if (prev_kind > HP_OBJ_INSTANCE + 1 && arr_gaps >= HP_GAPS_ARR_ALL && ((arr_gaps + 1) & 7)) {
			arr_gaps++;   /* an array not sampled */
		} else {
			break;
		}
		ccount[cidx]++;
		if (build) {
			unsorted |= id < last_id;
			last_id = id;
			h->ids[i] = id;
			h->cls[i] = cidx;
			h->len[i] = 0;
			h->off_lo[i] = (uint32_t)off;
			h->off_hi[i] = (uint16_t)(((off >> 32) & 0x3ff) | ((unsigned)HP_OBJ_INSTANCE << 14));
			i++;
		}
		prev_id = id;
		prev_cls = cidx;
		prev_kind = HP_OBJ_INSTANCE + 1;
	}
	if (k) {
		h->n_instances += k;
		g->objects += k;
		g->inst_gaps += ngaps;
		g->arr_gaps = arr_gaps;
		hp_gaps_prev(g, prev_id, HP_OBJ_INSTANCE, prev_cls, 0, 0);
		if (build) {
			h->nobj = i;
			b->tally.last_id = last_id;
			if (unsorted)
				b->tally.unsorted = 1;
		}
	}
	return k;
}

static int on_objects(void *ud, const struct hp_objrec *r, size_t n, size_t *failed)
{
	hp_heap *h = ud;
	for (size_t k = 0; k < n; k++) {
		k += instance_run(h, r + k, n - k);
		if (k == n)
			break;
		const struct hp_objrec *e = &r[k];
		uint64_t off = HP_OBJREC_OFF(e);
		int tag = HP_OBJREC_TAG(e), rc;
		if (tag == 0x21)
			rc = on_instance(ud, e->id, e->serial, e->cid, NULL, e->n, off);
		else if (tag == 0x23)
			rc = on_prim_array(ud, e->id, e->serial, (unsigned)e->cid, e->n, NULL, off, 0);
		else
			rc = on_obj_array(ud, e->id, e->serial, e->cid, e->n, NULL, off);
		if (rc != HP_OK) {
			*failed = k;
			return rc;
		}
	}
	return HP_OK;
}

void hp_heap_sink(hp_heap *h, struct hp_sink *s)
{
	memset(s, 0, sizeof *s);
	s->ud = h;      /* the callbacks reach the builder through h->build */
	s->header = on_header;
	s->string = on_string;
	s->load_class = on_load_class;
	s->frame = on_frame;
	s->trace = on_trace;
	s->start_thread = on_start_thread;
	s->dump_begin = on_dump_begin;
	s->root = on_root;
	s->class_dump = on_class_dump;
	s->instance = on_instance;
	s->obj_array = on_obj_array;
	s->prim_array = on_prim_array;
	s->objects = on_objects;
	s->heap_info = on_heap_info;
	s->alloc_sites = on_alloc_sites;
	s->heap_summary = on_heap_summary;
	s->cpu_samples = on_cpu_samples;
}

/* row for (class, heap), created when missing; HP_NONE when out of memory */
uint32_t hp_heap_row(hp_heap *h, uint32_t cidx, unsigned heap)
{
	return row_for(h, cidx, heap);
}
