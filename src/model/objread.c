/*
 * objread.c — hp_objread (objread.h): an object's record read again at its
 * file offset (mapped, or streamed forward from gzip with a cache of the
 * records read), decoded along its class's layout; Java strings and thread
 * names as UTF-8; how one object refers to another (a field, an element,
 * a static, a stack local).
 */
#include "model/objread.h"
#include "model/layout.h"
#include "base/alloc.h"
#include "base/cmp.h"
#include "parser/hprof.h"
#include "parser/reader.h"

#include <stdlib.h>
#include <string.h>

#define CACHE_REC_MAX   (64u << 10)     /* bytes of one record kept */
#define CACHE_TOTAL_MAX (64u << 20)     /* bytes of all records kept */
#define SCAN_CHUNK      (64u << 10)     /* bytes of an object array scanned at a time */

/* a record read from gzip: its first `have` bytes */
struct centry {
	uint64_t off;
	uint32_t have;
	uint8_t *bytes;
};

struct hp_objread {
	const hp_heap *h;
	char *path;
	hp_reader *r;
	int gz;                   /* not mapped: stream, restart for earlier offsets */
	uint64_t restarts;
	const char *(*copy)(void *ud);   /* hp_objread_on_restart(), NULL: none */
	void *copy_ud;
	uint64_t copy_after;      /* the bytes inflated past which the copy is asked for */
	uint64_t inflated;        /* bytes inflated by the passes before this one */
	struct centry *cache;
	size_t ncache, cache_cap;
	uint64_t cache_bytes;
	struct hp_idmap name_map; /* sid -> index in names */
	char **names;
	size_t nnames, names_cap;
	int utf16_big;            /* -1 not yet known */
	uint32_t string_cls;      /* java.lang.String, HP_NONE if none; UINT32_MAX - 1 not yet looked up */
	/* thread-local roots by (object, thread object), made on the first
	 * hp_objread_find_ref() that needs them: each referrer of an object held
	 * on many stacks is one binary search, not a scan of every root */
	struct local { uint64_t obj, thread; uint32_t root; } *locals;
	size_t nlocals;
	int locals_state;         /* 0 not made, 1 made, -1 out of memory: scan the roots */
	/* the classes' field layouts and which are java.lang.Thread or below it,
	 * made on the first instance decoded: an instance's fields cost its
	 * classes that declare fields, never the whole super chain */
	struct hp_layout lay;
	uint8_t *thread_cls;      /* per class: 1 java.lang.Thread or a subclass */
	int have_lay;
};

/* a record, from its tag byte */
struct rec {
	const uint8_t *p;
	uint64_t have;            /* bytes at p */
	uint64_t total;           /* bytes of the whole record */
	unsigned hdr;             /* bytes before the fields / elements */
	uint32_t n;               /* field bytes (instances) or elements (arrays) */
	uint8_t tag, type;        /* type: primitive arrays' element type */
};

static int changed(const hp_objread *f, size_t obj, uint64_t off, const char *what, struct hp_error *err)
{
	return hp_error_set(err, HP_ECORRUPT,
			    "offset %llu: %s where the record of object 0x%llx should be; has the dump changed since it was read?",
			    (unsigned long long)off, what, (unsigned long long)hp_heap_id(f->h, obj));
}

int hp_objread_open(hp_objread **out, const hp_heap *h, const char *path, struct hp_error *err)
{
	*out = NULL;
	if (strcmp(path, "-") == 0)
		return hp_error_set(err, HP_EUSAGE, "objects are read again from the dump, which standard input cannot do; save it to a file");
	hp_objread *f = hp_calloc(1, sizeof *f);
	if (!f)
		return hp_error_set(err, HP_ENOMEM, "out of memory");
	f->h = h;
	f->utf16_big = -1;
	f->string_cls = UINT32_MAX - 1;
	hp_idmap_init(&f->name_map);
	f->path = hp_strdup(path);
	if (!f->path) {
		hp_objread_free(f);
		return hp_error_set(err, HP_ENOMEM, "out of memory");
	}
	int rc = hp_reader_open(&f->r, path, err);
	if (rc) {
		hp_objread_free(f);
		return rc;
	}
	if (f->r->kind == HP_RD_FILE) {
		hp_objread_free(f);
		return hp_error_set(err, HP_EUSAGE, "%s: objects are read again from the dump, which a pipe cannot do", path);
	}
	f->gz = f->r->kind != HP_RD_MMAP;
	*out = f;
	return HP_OK;
}

void hp_objread_free(hp_objread *f)
{
	if (!f)
		return;
	hp_reader_free(f->r);
	for (size_t i = 0; i < f->ncache; i++)
		hp_free(f->cache[i].bytes);
	hp_free(f->cache);
	for (size_t i = 0; i < f->nnames; i++)
		hp_free(f->names[i]);
	hp_free(f->names);
	hp_free(f->locals);
	hp_layout_release(&f->lay);
	hp_free(f->thread_cls);
	hp_idmap_release(&f->name_map);
	hp_free(f->path);
	hp_free(f);
}

uint64_t hp_objread_restarts(const hp_objread *f)
{
	return f->restarts;
}

const char *hp_objread_name(hp_objread *f, uint64_t sid)
{
	uint32_t k = hp_idmap_get(&f->name_map, sid);
	if (k != HP_IDMAP_NONE)
		return f->names[k];
	uint32_t len;
	const char *s = hp_heap_string(f->h, sid, &len);
	if (!s)
		return "?";
	if (f->nnames == f->names_cap) {
		char **nn = hp_grow(f->names, &f->names_cap, f->nnames + 1, 64, sizeof *nn);
		if (!nn)
			return "?";
		f->names = nn;
	}
	char *u = hp_mutf8_to_utf8(s, len, NULL);
	if (!u)
		return "?";
	if (hp_idmap_put(&f->name_map, sid, (uint32_t)f->nnames) != 0) {
		hp_free(u);
		return "?";
	}
	f->names[f->nnames++] = u;
	return u;
}

/* ---- bytes ---------------------------------------------------------- */

/* the cache entry holding [off, off + n), or NULL */
static const struct centry *cached(const hp_objread *f, uint64_t off, uint64_t n)
{
	size_t lo = 0, hi = f->ncache;
	while (lo < hi) {             /* first entry with e.off > off */
		size_t mid = lo + (hi - lo) / 2;
		if (f->cache[mid].off <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	const struct centry *e = &f->cache[lo - 1];
	return off + n <= e->off + e->have ? e : NULL;
}

static void cache_put(hp_objread *f, uint64_t off, const uint8_t *p, uint64_t have)
{
	if (have > CACHE_REC_MAX)
		have = CACHE_REC_MAX;
	if (f->cache_bytes + have > CACHE_TOTAL_MAX)
		return;
	size_t lo = 0, hi = f->ncache;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (f->cache[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < f->ncache && f->cache[lo].off == off) {
		if (f->cache[lo].have >= have)
			return;
		uint8_t *b = hp_realloc(f->cache[lo].bytes, have ? have : 1);
		if (!b)
			return;
		memcpy(b, p, have);
		f->cache_bytes += have - f->cache[lo].have;
		f->cache[lo].bytes = b;
		f->cache[lo].have = (uint32_t)have;
		return;
	}
	if (f->ncache == f->cache_cap) {
		struct centry *ne = hp_grow(f->cache, &f->cache_cap, f->ncache + 1, 64, sizeof *ne);
		if (!ne)
			return;
		f->cache = ne;
	}
	uint8_t *b = hp_malloc(have ? have : 1);
	if (!b)
		return;
	memcpy(b, p, have);
	memmove(f->cache + lo + 1, f->cache + lo, (f->ncache - lo) * sizeof *f->cache);
	f->cache[lo].off = off;
	f->cache[lo].have = (uint32_t)have;
	f->cache[lo].bytes = b;
	f->ncache++;
	f->cache_bytes += have;
}

/* a gzip stream to be read from an earlier offset `off`: from the start
 * again while what the passes inflate stays within copy_after, else from
 * the uncompressed copy hp_objread_on_restart() gives (once; then mapped) */
static int restart(hp_objread *f, uint64_t off, struct hp_error *err)
{
	const char *copy = NULL;
	f->inflated += hp_rd_offset(f->r);
	if (f->copy && f->inflated + off > f->copy_after) {
		copy = f->copy(f->copy_ud);
		f->copy = NULL;
	}
	char *path = copy ? hp_strdup(copy) : NULL;
	if (copy && !path)
		return hp_error_set(err, HP_ENOMEM, "out of memory");
	hp_reader_free(f->r);
	f->r = NULL;
	if (path) {
		hp_free(f->path);
		f->path = path;
	}
	HP_TRY(hp_reader_open(&f->r, f->path, err));
	if (path)
		f->gz = f->r->kind != HP_RD_MMAP;
	else
		f->restarts++;
	return HP_OK;
}

void hp_objread_on_restart(hp_objread *f, uint64_t after, const char *(*copy)(void *ud), void *ud)
{
	f->copy = copy;
	f->copy_ud = ud;
	f->copy_after = after;
}

/* n bytes at offset off of the (uncompressed) dump; *p is valid until the
 * next read through f.  HP_ETRUNC (no message) when the file is shorter. */
static int bytes_at(hp_objread *f, uint64_t off, uint64_t n, const uint8_t **p, struct hp_error *err)
{
	const struct centry *e = f->gz ? cached(f, off, n) : NULL;
	if (e) {
		*p = e->bytes + (off - e->off);
		return HP_OK;
	}
	if (n > SIZE_MAX / 2)
		return HP_ETRUNC;
	if (!f->r)      /* a restart could not open the dump again: try once more */
		HP_TRY(hp_reader_open(&f->r, f->path, err));
	hp_reader *r = f->r;
	uint64_t wlen = (uint64_t)(r->end - r->win);
	if (off >= r->win_off && off <= r->win_off + wlen) {
		r->pos = r->win + (off - r->win_off);
	} else {
		if (off < hp_rd_offset(r)) {
			HP_TRY(restart(f, off, err));
			r = f->r;
		}
		int rc = hp_rd_skip(r, off - hp_rd_offset(r), err);
		if (rc)
			return rc;
	}
	HP_TRY(hp_rd_need(r, (size_t)n, err));
	*p = r->pos;
	return HP_OK;
}

static unsigned header_len(int kind, unsigned I)
{
	return kind == HP_OBJ_PRIMARRAY ? 10 + I : 9 + 2 * I;
}

/* The record of obj (not a class object), with at least `need` bytes of it
 * at rec->p (need is capped at the record's length). */
static int load(hp_objread *f, size_t obj, uint64_t need, struct rec *rec, struct hp_error *err)
{
	const hp_heap *h = f->h;
	unsigned I = h->I;
	int kind = hp_heap_kind(h, obj);
	uint64_t off = hp_heap_offset(h, obj);
	unsigned hdr = header_len(kind, I);
	const uint8_t *p;
	int rc = bytes_at(f, off, hdr, &p, err);
	if (rc == HP_ETRUNC)
		return changed(f, obj, off, "the file ends", err);
	if (rc)
		return rc;
	memset(rec, 0, sizeof *rec);
	rec->tag = p[0];
	rec->hdr = hdr;
	int want = kind == HP_OBJ_INSTANCE ? 0x21 : kind == HP_OBJ_OBJARRAY ? 0x22 : 0x23;
	if (!(rec->tag == want || (want == 0x23 && rec->tag == 0xC3)))
		return changed(f, obj, off, "another kind of record is", err);
	if (hp_be_id(p + 1, I) != hp_heap_id(h, obj))
		return changed(f, obj, off, "another object is", err);
	switch (kind) {
	case HP_OBJ_INSTANCE:
		rec->n = hp_be32(p + 5 + 2 * I);
		rec->total = hdr + (uint64_t)rec->n;
		break;
	case HP_OBJ_OBJARRAY:
		rec->n = hp_be32(p + 5 + I);
		rec->total = hdr + (uint64_t)rec->n * I;
		break;
	default: {
		rec->n = hp_be32(p + 5 + I);
		rec->type = p[9 + I];
		unsigned es = hp_type_size(rec->type, I);
		if (!es || rec->type == HP_T_OBJECT)
			return changed(f, obj, off, "a primitive array of an invalid type is", err);
		rec->total = hdr + (rec->tag == 0x23 ? (uint64_t)rec->n * es : 0);
		break;
	}
	}
	if (need < hdr)
		need = hdr;
	if (need > rec->total)
		need = rec->total;
	uint64_t get = need;
	if (f->gz) {
		/* read (and keep) a little more than asked: the next question is
		 * likely about the same record */
		uint64_t more = rec->total < CACHE_REC_MAX ? rec->total : CACHE_REC_MAX;
		if (get < more)
			get = more;
	}
	rc = bytes_at(f, off, get, &p, err);
	if (rc == HP_ETRUNC)
		return changed(f, obj, off, "the file ends inside the record", err);
	if (rc)
		return rc;
	if (f->gz && !cached(f, off, get))
		cache_put(f, off, p, get);
	if (f->gz) {
		const struct centry *e = cached(f, off, get);
		if (e)
			p = e->bytes;
	}
	rec->p = p;
	rec->have = get;
	return HP_OK;
}

int hp_objread_trace_serial(hp_objread *f, size_t obj, uint32_t *serial, struct hp_error *err)
{
	*serial = 0;
	if (hp_heap_kind(f->h, obj) == HP_OBJ_CLASS)
		return HP_OK;
	struct rec rec;
	HP_TRY(load(f, obj, 0, &rec, err));
	*serial = hp_be32(rec.p + 1 + f->h->I);
	return HP_OK;
}

struct pref { uint64_t off; uint32_t obj; };

static int by_off(const void *a, const void *b)
{
	const struct pref *x = a, *y = b;
	return hp_cmp_u64(x->off, y->off);
}

int hp_objread_prefetch(hp_objread *f, const uint32_t *objs, size_t n, struct hp_error *err)
{
	if (!f->gz || !n)
		return HP_OK;
	const hp_heap *h = f->h;
	struct pref *v = hp_reallocarray(NULL, n, sizeof *v);
	if (!v)
		return hp_error_set(err, HP_ENOMEM, "out of memory");
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (objs[i] >= h->nobj || hp_heap_kind(h, objs[i]) == HP_OBJ_CLASS)
			continue;
		uint64_t off = hp_heap_offset(h, objs[i]);
		if (cached(f, off, header_len(hp_heap_kind(h, objs[i]), h->I)))
			continue;
		v[k].off = off;
		v[k].obj = objs[i];
		k++;
	}
	qsort(v, k, sizeof *v, by_off);
	int rc = HP_OK;
	struct rec rec;
	for (size_t i = 0; i < k && rc == HP_OK; i++)
		if (!i || v[i].off != v[i - 1].off)
			rc = load(f, v[i].obj, 0, &rec, err);
	hp_free(v);
	return rc;
}

/* ---- decoding ------------------------------------------------------- */

static uint64_t be_val(const uint8_t *p, unsigned sz)
{
	switch (sz) {
	case 1: return p[0];
	case 2: return hp_be16(p);
	case 4: return hp_be32(p);
	default: return hp_be64(p);
	}
}

void hp_objread_release(struct hp_objdata *o)
{
	hp_free(o->fields);
	hp_free(o->elems);
	memset(o, 0, sizeof *o);
	o->cls = o->class_of = HP_NONE;
}

static int nomem(struct hp_error *err)
{
	return hp_error_set(err, HP_ENOMEM, "out of memory decoding an object");
}

/* the layouts and the Thread classes, once */
static int need_layout(hp_objread *f, struct hp_error *err)
{
	if (f->have_lay)
		return HP_OK;
	const hp_heap *h = f->h;
	if (hp_layout_build(h, &f->lay) != HP_OK)
		return nomem(err);
	f->thread_cls = hp_calloc(h->nclasses ? h->nclasses : 1, 1);
	if (!f->thread_cls) {
		hp_layout_release(&f->lay);
		return nomem(err);
	}
	/* java.lang.Thread and the classes below it: each chain is walked up
	 * to a class already known (or Thread, or the top), and the answer
	 * marked on the way back down, so every class is walked once */
	uint32_t t = HP_NONE;
	for (size_t i = 0; i < h->nclasses && t == HP_NONE; i++)
		if (!strcmp(hp_class_name(h, i), "java.lang.Thread"))
			t = (uint32_t)i;
	if (t != HP_NONE) {
		uint8_t *st = hp_calloc(h->nclasses, 1);          /* 0 unknown, 1 known */
		uint32_t *stack = hp_reallocarray(NULL, h->nclasses, sizeof *stack);
		if (!st || !stack) {
			hp_free(st);
			hp_free(stack);
			hp_layout_release(&f->lay);
			hp_free(f->thread_cls);
			f->thread_cls = NULL;
			return nomem(err);
		}
		for (size_t i = 0; i < h->nclasses; i++) {
			size_t sp = 0;
			uint32_t c = (uint32_t)i;
			uint8_t v = 0;
			while (c != HP_NONE && !st[c]) {
				if (c == t) {
					v = 1;
					break;
				}
				st[c] = 1;      /* on the way: also cuts a loop */
				stack[sp++] = c;
				c = h->classes[c].super;
			}
			if (c != HP_NONE && c != t)
				v = f->thread_cls[c];
			while (sp > 0)
				f->thread_cls[stack[--sp]] = v;
		}
		f->thread_cls[t] = 1;
		hp_free(st);
		hp_free(stack);
	}
	f->have_lay = 1;
	return HP_OK;
}

static int decode_instance(hp_objread *f, struct hp_objdata *o, struct hp_error *err)
{
	const hp_heap *h = f->h;
	unsigned I = h->I;
	HP_TRY(need_layout(f, err));
	const struct hp_layout *L = &f->lay;
	uint64_t total = L->bytes[o->cls];
	o->layout_bytes = total > UINT32_MAX ? UINT32_MAX : (uint32_t)total;
	/* the bytes the layout reads, not a record of gigabytes past them */
	struct rec rec;
	HP_TRY(load(f, o->obj, header_len(HP_OBJ_INSTANCE, I) + total, &rec, err));
	o->offset = hp_heap_offset(h, o->obj);
	o->field_bytes = rec.n;
	uint64_t avail = rec.have - rec.hdr;
	if (avail > rec.n)
		avail = rec.n;
	if (rec.have < rec.total && avail < total)
		return changed(f, o->obj, o->offset, "a short record is", err);
	/* the classes that declare fields, own class first, as far as the
	 * record reaches: count, then fill */
	size_t nf = 0;
	for (uint32_t a = L->fup[o->cls]; a != HP_NONE && total - L->bytes[a] < avail; a = L->fnext[a])
		nf += h->classes[a].n_fields;
	o->fields = hp_reallocarray(NULL, nf ? nf : 1, sizeof *o->fields);
	if (!o->fields)
		return nomem(err);
	const uint8_t *base = rec.p + rec.hdr;
	size_t got = 0;
	for (uint32_t a = L->fup[o->cls]; a != HP_NONE && got < nf; a = L->fnext[a]) {
		const struct hp_class *k = &h->classes[a];
		uint64_t pos = total - L->bytes[a];
		for (uint32_t i = 0; i < k->n_fields && got < nf; i++) {
			const struct hp_field *fd = &h->fields[k->first_field + i];
			unsigned sz = hp_type_size(fd->type, I);
			if (pos + sz > avail)
				goto done;      /* the record is shorter than the layout */
			struct hp_objval *v = &o->fields[got++];
			v->decl = a;
			v->name_sid = fd->name_sid;
			v->type = fd->type;
			v->bits = be_val(base + pos, sz);
			pos += sz;
		}
	}
done:
	o->nfields = got;
	/* names last: hp_objread_name() may allocate, and rec.p must not be needed after */
	for (size_t i = 0; i < got; i++)
		o->fields[i].name = hp_objread_name(f, o->fields[i].name_sid);
	return HP_OK;
}

static int decode_array(hp_objread *f, struct hp_objdata *o, uint32_t max_elems, struct hp_error *err)
{
	const hp_heap *h = f->h;
	unsigned I = h->I;
	struct rec rec;
	HP_TRY(load(f, o->obj, 0, &rec, err));
	o->offset = hp_heap_offset(h, o->obj);
	o->length = rec.n;
	o->nodata = rec.tag == 0xC3;
	o->elem_type = o->kind == HP_OBJ_OBJARRAY ? HP_T_OBJECT : rec.type;
	uint32_t k = rec.n < max_elems ? rec.n : max_elems;
	if (o->nodata)
		k = 0;
	unsigned es = hp_type_size(o->elem_type, I);
	o->elems = hp_reallocarray(NULL, k ? k : 1, sizeof *o->elems);
	if (!o->elems)
		return nomem(err);
	if (k) {
		HP_TRY(load(f, o->obj, rec.hdr + (uint64_t)k * es, &rec, err));
		if (rec.have < rec.hdr + (uint64_t)k * es)
			return changed(f, o->obj, o->offset, "a short record is", err);
		const uint8_t *e = rec.p + rec.hdr;
		for (uint32_t i = 0; i < k; i++)
			o->elems[i] = be_val(e + (size_t)i * es, es);
	}
	o->nelems = k;
	return HP_OK;
}

int hp_objread_decode(hp_objread *f, size_t obj, uint32_t max_elems, struct hp_objdata *o, struct hp_error *err)
{
	const hp_heap *h = f->h;
	memset(o, 0, sizeof *o);
	o->cls = o->class_of = HP_NONE;
	if (obj >= h->nobj)
		return hp_error_set(err, HP_EUSAGE, "no object number %zu (the dump holds %zu)", obj, h->nobj);
	o->obj = obj;
	o->id = hp_heap_id(h, obj);
	o->kind = hp_heap_kind(h, obj);
	o->cls = h->cls[obj];
	int rc = HP_OK;
	switch (o->kind) {
	case HP_OBJ_INSTANCE:
		rc = decode_instance(f, o, err);
		break;
	case HP_OBJ_OBJARRAY:
	case HP_OBJ_PRIMARRAY:
		rc = decode_array(f, o, max_elems, err);
		break;
	default: {
		uint32_t ci = hp_idmap_get(&h->class_map, o->id);
		o->class_of = ci == HP_IDMAP_NONE ? HP_NONE : ci;
		if (ci == HP_IDMAP_NONE)
			break;
		const struct hp_class *c = &h->classes[ci];
		o->fields = hp_reallocarray(NULL, c->n_statics ? c->n_statics : 1, sizeof *o->fields);
		if (!o->fields) {
			rc = nomem(err);
			break;
		}
		for (uint32_t i = 0; i < c->n_statics; i++) {
			const struct hp_static *s = &h->statics[c->first_static + i];
			struct hp_objval *v = &o->fields[i];
			v->decl = ci;
			v->name_sid = s->name_sid;
			v->name = hp_objread_name(f, s->name_sid);
			v->type = s->type;
			v->bits = s->value;
		}
		o->nfields = c->n_statics;
		break;
	}
	}
	if (rc) {
		hp_objread_release(o);
		return rc;
	}
	return HP_OK;
}

int hp_objread_prim_bytes(hp_objread *f, size_t obj, uint8_t **out, size_t *len, int *nodata,
			  struct hp_error *err)
{
	const hp_heap *h = f->h;
	*out = NULL;
	*len = 0;
	*nodata = 0;
	if (obj >= h->nobj || hp_heap_kind(h, obj) != HP_OBJ_PRIMARRAY)
		return hp_error_set(err, HP_EUSAGE, "object number %zu is no primitive array", obj);
	struct rec rec;
	HP_TRY(load(f, obj, 0, &rec, err));
	if (rec.tag == 0xC3) {
		*nodata = 1;
		return HP_OK;
	}
	uint64_t n = rec.total - rec.hdr;
	if (n > SIZE_MAX - 1)
		return nomem(err);
	HP_TRY(load(f, obj, rec.total, &rec, err));
	if (rec.have < rec.total)
		return changed(f, obj, hp_heap_offset(h, obj), "a short record is", err);
	uint8_t *b = hp_malloc(n ? (size_t)n : 1);
	if (!b)
		return nomem(err);
	memcpy(b, rec.p + rec.hdr, (size_t)n);
	*out = b;
	*len = (size_t)n;
	return HP_OK;
}

const struct hp_objval *hp_objread_field(const hp_objread *f, const struct hp_objdata *o,
					 const char *name, const char *decl_name)
{
	for (size_t i = 0; i < o->nfields; i++) {
		const struct hp_objval *v = &o->fields[i];
		if (!v->name || strcmp(v->name, name) != 0)
			continue;
		const char *dn = hp_class_name(f->h, v->decl);
		if (decl_name && (!dn || strcmp(dn, decl_name) != 0))
			continue;
		return v;
	}
	return NULL;
}

/* ---- text ----------------------------------------------------------- */

static uint32_t string_class(hp_objread *f)
{
	if (f->string_cls != UINT32_MAX - 1)
		return f->string_cls;
	f->string_cls = HP_NONE;
	for (size_t i = 0; i < f->h->nclasses; i++) {
		const char *n = hp_class_name(f->h, i);
		if (n && !strcmp(n, "java.lang.String") && f->h->classes[i].kind == HP_CK_INSTANCE) {
			f->string_cls = (uint32_t)i;
			break;
		}
	}
	return f->string_cls;
}

int hp_objread_is_string(const hp_heap *h, size_t obj)
{
	if (obj >= h->nobj || hp_heap_kind(h, obj) != HP_OBJ_INSTANCE)
		return 0;
	const char *n = hp_class_name(h, h->cls[obj]);
	return n && !strcmp(n, "java.lang.String");
}

/* JDK 9+ UTF16 strings keep their bytes in the VM's native order */
static int utf16_big_endian(hp_objread *f)
{
	if (f->utf16_big >= 0)
		return f->utf16_big;
	const hp_heap *h = f->h;
	f->utf16_big = 0;
	for (size_t i = 0; i < h->nclasses; i++) {
		const struct hp_class *c = &h->classes[i];
		if (!c->name || strcmp(hp_class_name(h, i), "java.lang.StringUTF16") != 0)
			continue;
		const struct hp_static *st = hp_class_static(h, i, "HI_BYTE_SHIFT", HP_T_INT);
		if (st)
			f->utf16_big = st->value == 8;
	}
	return f->utf16_big;
}

enum { ENC_LATIN1, ENC_UTF16BE, ENC_UTF16LE };

/* units UTF-16 code units (or LATIN1 bytes) at p into out->utf8 */
static int to_utf8(const uint8_t *p, size_t units, int enc, struct hp_text *out, struct hp_error *err)
{
	size_t cap = enc == ENC_LATIN1 ? units * 2 + 1 : units * 3 + 1;
	char *s = hp_malloc(cap);
	if (!s)
		return hp_error_set(err, HP_ENOMEM, "out of memory decoding a string of %zu characters", units);
	size_t o = 0;
	for (size_t i = 0; i < units; i++) {
		if (enc == ENC_LATIN1) {
			o += hp_utf8_put(s + o, p[i]);
			continue;
		}
		uint32_t u = enc == ENC_UTF16BE ? hp_be16(p + 2 * i) : (uint32_t)(p[2 * i] | (p[2 * i + 1] << 8));
		if (u >= 0xD800 && u <= 0xDBFF && i + 1 < units) {
			uint32_t lo = enc == ENC_UTF16BE ? hp_be16(p + 2 * i + 2)
							  : (uint32_t)(p[2 * i + 2] | (p[2 * i + 3] << 8));
			if (lo >= 0xDC00 && lo <= 0xDFFF) {
				o += hp_utf8_put(s + o, 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00));
				i++;
				continue;
			}
		}
		if (u >= 0xD800 && u <= 0xDFFF)
			u = 0xFFFD;
		o += hp_utf8_put(s + o, u);
	}
	s[o] = '\0';
	out->utf8 = s;
	out->len = o;
	return HP_OK;
}

void hp_objread_text_release(struct hp_text *t)
{
	hp_free(t->utf8);
	memset(t, 0, sizeof *t);
}

/* characters [first, first + count) of primitive array a */
static int array_text(hp_objread *f, size_t a, uint64_t first, uint64_t count, int latin1_or_utf16,
		      size_t max_chars, struct hp_text *out, struct hp_error *err)
{
	const hp_heap *h = f->h;
	struct rec rec;
	HP_TRY(load(f, a, 0, &rec, err));
	if (rec.tag == 0xC3) {
		out->why = "the dump holds no characters (PRIMITIVE ARRAY NODATA)";
		return HP_OK;
	}
	int enc;
	unsigned us;              /* bytes per character */
	if (rec.type == HP_T_CHAR) {
		enc = ENC_UTF16BE;    /* HPROF writes char[] as big-endian u2 */
		us = 2;
	} else if (rec.type == HP_T_BYTE) {
		enc = latin1_or_utf16 == 1 ? (utf16_big_endian(f) ? ENC_UTF16BE : ENC_UTF16LE) : ENC_LATIN1;
		us = enc == ENC_LATIN1 ? 1 : 2;
	} else {
		out->why = "not a char[] or byte[]";
		return HP_OK;
	}
	uint64_t avail = (uint64_t)rec.n * hp_type_size(rec.type, h->I) / us;
	if (count == UINT64_MAX)
		count = avail - (first < avail ? first : avail);
	if (first > avail)
		first = avail;
	if (count > avail - first)
		count = avail - first;  /* offset/count beyond the array: what is there */
	out->chars = count;
	uint64_t take = max_chars && count > max_chars ? max_chars : count;
	out->truncated = take < count;
	HP_TRY(load(f, a, rec.hdr + (first + take) * us, &rec, err));
	if (rec.have < rec.hdr + (first + take) * us)
		return changed(f, a, hp_heap_offset(h, a), "a short record is", err);
	return to_utf8(rec.p + rec.hdr + first * us, (size_t)take, enc, out, err);
}

int hp_objread_text(hp_objread *f, size_t obj, size_t max_chars, struct hp_text *out, struct hp_error *err)
{
	const hp_heap *h = f->h;
	memset(out, 0, sizeof *out);
	if (obj >= h->nobj) {
		out->why = "no such object";
		return HP_OK;
	}
	int kind = hp_heap_kind(h, obj);
	if (kind == HP_OBJ_PRIMARRAY)
		return array_text(f, obj, 0, UINT64_MAX, 0, max_chars, out, err);
	if (kind != HP_OBJ_INSTANCE || h->cls[obj] != string_class(f)) {
		out->why = "not a java.lang.String";
		return HP_OK;
	}
	struct hp_objdata d;
	HP_TRY(hp_objread_decode(f, obj, 0, &d, err));
	const struct hp_objval *value = hp_objread_field(f, &d, "value", NULL);
	const struct hp_objval *coder = hp_objread_field(f, &d, "coder", NULL);
	const struct hp_objval *offset = hp_objread_field(f, &d, "offset", NULL);
	const struct hp_objval *count = hp_objread_field(f, &d, "count", NULL);
	uint64_t vid = value && value->type == HP_T_OBJECT ? value->bits : 0;
	int enc = coder && coder->type == HP_T_BYTE ? (int)coder->bits : 0;
	uint64_t first = 0, n = UINT64_MAX;
	if (offset && count && offset->type == HP_T_INT && count->type == HP_T_INT) {
		first = (uint32_t)offset->bits;
		n = (uint32_t)count->bits;
		if ((int32_t)offset->bits < 0 || (int32_t)count->bits < 0)
			first = 0, n = 0;
	}
	/* an empty string: count 0 (JDK 6), or ART's flagged count of length 0 */
	int empty = count && count->type == HP_T_INT && (count->bits == 0 || (!offset && count->bits == 1));
	int has_value = value != NULL;
	hp_objread_release(&d);     /* the pointers above are not used after this */
	if (!has_value) {
		out->why = "a String without a value field";
		return HP_OK;
	}
	size_t a = vid ? hp_heap_find(h, vid) : SIZE_MAX;
	if (a == SIZE_MAX || hp_heap_kind(h, a) != HP_OBJ_PRIMARRAY) {
		if (empty) {
			/* ART: an empty string's value may point into the String itself */
			out->utf8 = hp_malloc(1);
			if (!out->utf8)
				return nomem(err);
			out->utf8[0] = '\0';
			return HP_OK;
		}
		out->why = vid ? "its value is not in the dump" : "its value is null";
		return HP_OK;
	}
	return array_text(f, a, first, n, enc, max_chars, out, err);
}

int hp_objread_thread_name(hp_objread *f, size_t thread_obj, size_t max_chars, struct hp_text *out,
			   struct hp_error *err)
{
	const hp_heap *h = f->h;
	memset(out, 0, sizeof *out);
	if (thread_obj >= h->nobj || hp_heap_kind(h, thread_obj) != HP_OBJ_INSTANCE) {
		out->why = "not a Thread";
		return HP_OK;
	}
	struct hp_objdata d;
	HP_TRY(hp_objread_decode(f, thread_obj, 0, &d, err));
	const struct hp_objval *v = hp_objread_field(f, &d, "name", "java.lang.Thread");
	if (!v)
		v = hp_objread_field(f, &d, "name", NULL);
	uint64_t id = v && v->type == HP_T_OBJECT ? v->bits : 0;
	hp_objread_release(&d);
	if (!v) {
		out->why = "no name field";
		return HP_OK;
	}
	size_t o = id ? hp_heap_find(h, id) : SIZE_MAX;
	if (o == SIZE_MAX) {
		out->why = id ? "its name is not in the dump" : "its name is null";
		return HP_OK;
	}
	return hp_objread_text(f, o, max_chars, out, err);
}

int hp_objread_prefetch_text(hp_objread *f, const uint32_t *objs, size_t n, struct hp_error *err)
{
	HP_TRY(hp_objread_prefetch(f, objs, n, err));
	if (!f->gz)
		return HP_OK;
	HP_TRY(need_layout(f, err));
	const hp_heap *h = f->h;
	uint32_t *cur = NULL, *next = NULL;
	size_t nc = 0;
	int rc = HP_OK;
	for (int level = 0; level < 2 && rc == HP_OK; level++) {
		const uint32_t *src = level ? cur : objs;
		size_t ns = level ? nc : n;
		next = hp_reallocarray(NULL, ns ? ns : 1, sizeof *next);
		if (!next) {
			rc = hp_error_set(err, HP_ENOMEM, "out of memory");
			break;
		}
		size_t nn = 0;
		for (size_t i = 0; i < ns && rc == HP_OK; i++) {
			size_t o = src[i];
			if (o >= h->nobj || hp_heap_kind(h, o) != HP_OBJ_INSTANCE)
				continue;
			int str = h->cls[o] == string_class(f);
			if (!str && !f->thread_cls[h->cls[o]])
				continue;
			struct hp_objdata d;
			if ((rc = hp_objread_decode(f, o, 0, &d, err)) != HP_OK)
				break;
			const struct hp_objval *v = str ? hp_objread_field(f, &d, "value", NULL)
							: hp_objread_field(f, &d, "name", "java.lang.Thread");
			size_t t = v && v->type == HP_T_OBJECT && v->bits ? hp_heap_find(h, v->bits) : SIZE_MAX;
			if (t != SIZE_MAX)
				next[nn++] = (uint32_t)t;
			hp_objread_release(&d);
		}
		if (rc == HP_OK)
			rc = hp_objread_prefetch(f, next, nn, err);
		hp_free(cur);
		cur = next;
		nc = nn;
		next = NULL;
	}
	hp_free(cur);
	return rc;
}

/* ---- how one object refers to another ------------------------------- */

static int by_local(const void *a, const void *b)
{
	const struct local *x = a, *y = b;
	return hp_cmp3_u64(x->obj, y->obj, x->thread, y->thread, x->root, y->root);
}

/* the thread object of a thread-local root with a known thread, or 0 */
static uint64_t local_thread(const hp_heap *h, const struct hp_root_rec *r)
{
	if (!r->has_thread || !hp_root_thread_local(r->kind))
		return 0;
	uint32_t t = hp_idmap_get(&h->thread_map, r->thread_serial);
	return t == HP_IDMAP_NONE ? 0 : h->threads[t].object_id;
}

static void make_locals(hp_objread *f)
{
	const hp_heap *h = f->h;
	size_t n = 0;
	for (size_t i = 0; i < h->nroots; i++)
		n += local_thread(h, &h->roots[i]) != 0;
	f->locals = hp_reallocarray(NULL, n ? n : 1, sizeof *f->locals);
	if (!f->locals) {
		f->locals_state = -1;
		return;
	}
	for (size_t i = 0; i < h->nroots; i++) {
		uint64_t t = local_thread(h, &h->roots[i]);
		if (t) {
			struct local *l = &f->locals[f->nlocals++];
			l->obj = h->roots[i].object;
			l->thread = t;
			l->root = (uint32_t)i;
		}
	}
	qsort(f->locals, f->nlocals, sizeof *f->locals, by_local);
	f->locals_state = 1;
}

/* the first root (in the dump's order) holding object `obj` on the stack of
 * thread object `thread`, or SIZE_MAX */
static size_t find_local(hp_objread *f, uint64_t obj, uint64_t thread)
{
	const hp_heap *h = f->h;
	if (!thread)
		return SIZE_MAX;
	if (f->locals_state == 0)
		make_locals(f);
	if (f->locals_state < 0) {
		for (size_t i = 0; i < h->nroots; i++)
			if (h->roots[i].object == obj && local_thread(h, &h->roots[i]) == thread)
				return i;
		return SIZE_MAX;
	}
	size_t lo = 0, hi = f->nlocals;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct local *l = &f->locals[mid];
		if (l->obj < obj || (l->obj == obj && l->thread < thread))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < f->nlocals && f->locals[lo].obj == obj && f->locals[lo].thread == thread)
		return f->locals[lo].root;
	return SIZE_MAX;
}

/* no field or element holds to: a stack local of thread from, or its class */
static void indirect_ref(hp_objread *f, size_t from, size_t to, struct hp_objref *out)
{
	const hp_heap *h = f->h;
	if (out->kind != HP_REF_NONE)
		return;
	size_t i = find_local(f, hp_heap_id(h, to), hp_heap_id(h, from));
	if (i != SIZE_MAX) {
		const struct hp_root_rec *r = &h->roots[i];
		out->kind = HP_REF_LOCAL;
		out->root_kind = r->kind;
		out->frame = r->kind == HP_ROOT_JAVA_FRAME || r->kind == HP_ROOT_JNI_LOCAL ? r->frame : UINT32_MAX;
		out->count = 1;
		return;
	}
	if (h->cls[from] != HP_NONE && h->classes[h->cls[from]].dumped && h->classes[h->cls[from]].id == hp_heap_id(h, to)) {
		out->kind = HP_REF_CLASS;
		out->count = 1;
	}
}

int hp_objread_find_ref(hp_objread *f, size_t from, size_t to, struct hp_objref *out, struct hp_error *err)
{
	const hp_heap *h = f->h;
	memset(out, 0, sizeof *out);
	out->decl = HP_NONE;
	out->frame = UINT32_MAX;
	if (from >= h->nobj || to >= h->nobj)
		return hp_error_set(err, HP_EUSAGE, "no such object");
	uint64_t want = hp_heap_id(h, to);
	unsigned I = h->I;
	int kind = hp_heap_kind(h, from);
	if (kind == HP_OBJ_CLASS) {
		uint32_t ci = hp_idmap_get(&h->class_map, hp_heap_id(h, from));
		if (ci == HP_IDMAP_NONE)
			return HP_OK;
		const struct hp_class *c = &h->classes[ci];
		for (uint32_t i = 0; i < c->n_statics; i++) {
			const struct hp_static *s = &h->statics[c->first_static + i];
			if (s->type != HP_T_OBJECT || s->value != want)
				continue;
			if (!out->count++) {
				out->kind = HP_REF_STATIC;
				out->decl = ci;
				out->name_sid = s->name_sid;
			}
		}
		if (out->kind == HP_REF_NONE && c->super_id == want) {
			out->kind = HP_REF_SUPER;
			out->count = 1;
		} else if (out->kind == HP_REF_NONE && c->loader_id == want) {
			out->kind = HP_REF_LOADER;
			out->count = 1;
		}
		if (out->kind == HP_REF_STATIC)
			out->name = hp_objread_name(f, out->name_sid);
		indirect_ref(f, from, to, out);
		return HP_OK;
	}
	if (kind == HP_OBJ_INSTANCE) {
		struct hp_objdata d;
		HP_TRY(hp_objread_decode(f, from, 0, &d, err));
		for (size_t i = 0; i < d.nfields; i++) {
			const struct hp_objval *v = &d.fields[i];
			if (v->type != HP_T_OBJECT || v->bits != want)
				continue;
			if (!out->count++) {
				out->kind = HP_REF_FIELD;
				out->decl = v->decl;
				out->name_sid = v->name_sid;
				out->name = v->name;
			}
		}
		hp_objread_release(&d);
		indirect_ref(f, from, to, out);
		return HP_OK;
	}
	if (kind != HP_OBJ_OBJARRAY) {
		indirect_ref(f, from, to, out);
		return HP_OK;
	}
	struct rec rec;
	HP_TRY(load(f, from, 0, &rec, err));
	uint64_t base = hp_heap_offset(h, from) + rec.hdr;
	uint32_t n = rec.n;
	uint32_t per = SCAN_CHUNK / I;
	for (uint32_t i = 0; i < n;) {
		uint32_t k = n - i < per ? n - i : per;
		const uint8_t *p;
		int rc = bytes_at(f, base + (uint64_t)i * I, (uint64_t)k * I, &p, err);
		if (rc == HP_ETRUNC)
			return changed(f, from, hp_heap_offset(h, from), "the file ends inside the record", err);
		if (rc)
			return rc;
		for (uint32_t j = 0; j < k; j++) {
			if (hp_be_id(p + (size_t)j * I, I) != want)
				continue;
			if (!out->count++) {
				out->kind = HP_REF_ELEMENT;
				out->index = (uint64_t)i + j;
			}
		}
		i += k;
	}
	indirect_ref(f, from, to, out);
	return HP_OK;
}

/* hp_objread_edge_refs(): what from holds, (id, place) pairs sorted by id
 * then place, place the field's number, the element's index, or for a
 * class object its static's number with super and loader after them */
struct slot { uint64_t id, at; };
static int by_slot(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;
	return hp_cmp2_u64(x->id, y->id, x->at, y->at);
}

int hp_objread_edge_refs(hp_objread *f, size_t from, const uint32_t *to, size_t n, struct hp_objref *out,
			 struct hp_error *err)
{
	const hp_heap *h = f->h;
	if (from >= h->nobj)
		return hp_error_set(err, HP_EUSAGE, "no such object");
	for (size_t k = 0; k < n; k++)
		if (to[k] >= h->nobj)
			return hp_error_set(err, HP_EUSAGE, "no such object");
	int kind = hp_heap_kind(h, from);
	struct hp_objdata d;
	memset(&d, 0, sizeof d);
	const struct hp_class *c = NULL;
	uint32_t ci = HP_IDMAP_NONE;
	size_t ns = 0;
	if (kind == HP_OBJ_CLASS) {
		ci = hp_idmap_get(&h->class_map, hp_heap_id(h, from));
		c = ci == HP_IDMAP_NONE ? NULL : &h->classes[ci];
		ns = c ? (size_t)c->n_statics + 2 : 0;
	} else if (kind == HP_OBJ_INSTANCE || kind == HP_OBJ_OBJARRAY) {
		HP_TRY(hp_objread_decode(f, from, UINT32_MAX, &d, err));
		ns = kind == HP_OBJ_INSTANCE ? d.nfields : d.nelems;
	}
	struct slot *s = ns ? hp_reallocarray(NULL, ns, sizeof *s) : NULL;
	uint32_t *taken = ns ? hp_calloc(ns, sizeof *taken) : NULL;
	if (ns && (!s || !taken)) {
		hp_free_all(s, taken);
		hp_objread_release(&d);
		return hp_error_set(err, HP_ENOMEM, "out of memory");
	}
	size_t m = 0;
	for (size_t i = 0; i < ns; i++) {
		uint64_t id = 0;
		if (c)
			id = i < c->n_statics ? (h->statics[c->first_static + i].type == HP_T_OBJECT ?
						 h->statics[c->first_static + i].value : 0) :
			     i == c->n_statics ? c->super_id : c->loader_id;
		else if (kind == HP_OBJ_INSTANCE)
			id = d.fields[i].type == HP_T_OBJECT ? d.fields[i].bits : 0;
		else
			id = d.elems[i];
		if (id)
			s[m++] = (struct slot){ id, i };
	}
	qsort(s, m, sizeof *s, by_slot);
	for (size_t k = 0; k < n; k++) {
		struct hp_objref *o = &out[k];
		memset(o, 0, sizeof *o);
		o->decl = HP_NONE;
		o->frame = UINT32_MAX;
		uint64_t want = hp_heap_id(h, to[k]);
		size_t lo = 0, hi = m;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (s[mid].id < want)
				lo = mid + 1;
			else
				hi = mid;
		}
		size_t at = lo < m ? lo + taken[lo] : m;
		if (at < m && s[at].id == want) {
			taken[lo]++;
			size_t i = (size_t)s[at].at;
			o->count = 1;
			if (c && i < c->n_statics) {
				o->kind = HP_REF_STATIC;
				o->decl = ci;
				o->name_sid = h->statics[c->first_static + i].name_sid;
				o->name = hp_objread_name(f, o->name_sid);
			} else if (c) {
				o->kind = i == c->n_statics ? HP_REF_SUPER : HP_REF_LOADER;
			} else if (kind == HP_OBJ_INSTANCE) {
				o->kind = HP_REF_FIELD;
				o->decl = d.fields[i].decl;
				o->name_sid = d.fields[i].name_sid;
				o->name = d.fields[i].name;
			} else {
				o->kind = HP_REF_ELEMENT;
				o->index = i;
			}
		} else {
			indirect_ref(f, from, to[k], o);
		}
	}
	hp_free_all(s, taken);
	hp_objread_release(&d);
	return HP_OK;
}
