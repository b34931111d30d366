/* threadlocals.c — the entries of the threads' ThreadLocal maps, and the
 * ThreadLocals they belong to (threadlocals.h). */
#include "analysis/threadlocals.h"
#include "base/alloc.h"
#include "base/cmp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const map_fields[] = { "threadLocals", "inheritableThreadLocals", "localValues", "inheritableValues" };

const char *hp_tl_map_field(int map)
{
	return map >= 0 && map < 4 ? map_fields[map] : "?";
}

/* one branch of the walk: a thread's map, then its table, then an entry */
struct node {
	uint32_t thread, obj;
	uint32_t table;           /* the entry's table */
	uint32_t value;           /* old Android: the value beside the key */
	uint8_t map;
};

struct level { struct node *v; size_t n, cap; };

static int push(struct level *l, struct node nd)
{
	if (l->n == l->cap) {
		struct node *nv = hp_grow(l->v, &l->cap, l->n + 1, 64, sizeof *nv);
		if (!nv)
			return HP_ENOMEM;
		l->v = nv;
	}
	l->v[l->n++] = nd;
	return HP_OK;
}

/* the object a reference field of d names, when it is in the dump and of
 * kind `kind`; SIZE_MAX otherwise (*null = 1 when the field holds null) */
static size_t ref_field(const hp_heap *h, hp_objread *rd, const struct hp_objdata *d, const char *name, int kind,
			int *null)
{
	*null = 0;
	const struct hp_objval *f = hp_objread_field(rd, d, name, NULL);
	if (!f || f->type != HP_T_OBJECT)
		return SIZE_MAX;
	if (!f->bits) {
		*null = 1;
		return SIZE_MAX;
	}
	size_t o = hp_heap_find(h, f->bits);
	return o != SIZE_MAX && hp_heap_kind(h, o) == kind ? o : SIZE_MAX;
}

/* reads the records of a level ahead (gzip), then decodes each in turn */
static int prefetch(hp_objread *rd, const struct level *l, struct hp_error *err)
{
	uint32_t *objs = hp_reallocarray(NULL, l->n ? l->n : 1, sizeof *objs);
	if (!objs)
		return HP_ENOMEM;
	for (size_t i = 0; i < l->n; i++)
		objs[i] = l->v[i].obj;
	int rc = hp_objread_prefetch(rd, objs, l->n, err);
	hp_free(objs);
	return rc == HP_ENOMEM ? HP_ENOMEM : HP_OK;   /* what cannot be read ahead is skipped below */
}

/* obj decoded into *d: 1.  Else 0, with *rc HP_ENOMEM when memory ran out,
 * or the object counted in out->skipped when it cannot be read. */
static int decoded(hp_objread *rd, size_t obj, uint32_t max, struct hp_objdata *d, struct hp_tlocals *out,
		   int *rc)
{
	struct hp_error e;
	hp_error_clear(&e);
	int dr = hp_objread_decode(rd, obj, max, d, &e);
	if (dr == HP_ENOMEM)
		*rc = HP_ENOMEM;
	else if (dr)
		out->skipped++;
	return dr == HP_OK;
}

/* Thread objects -> their maps */
static int walk_threads(const hp_heap *h, hp_objread *rd, struct hp_tlocals *out, struct level *maps,
			struct hp_error *err)
{
	struct level th = { NULL, 0, 0 };
	int rc = HP_OK;
	for (size_t i = 0; i < h->nthreads && !rc; i++) {
		size_t o = h->threads[i].object_id ? hp_heap_find(h, h->threads[i].object_id) : SIZE_MAX;
		if (o != SIZE_MAX && hp_heap_kind(h, o) == HP_OBJ_INSTANCE)
			rc = push(&th, (struct node){ (uint32_t)i, (uint32_t)o, HP_NONE, HP_NONE, 0 });
	}
	if (!rc)
		rc = prefetch(rd, &th, err);
	for (size_t i = 0; i < th.n && !rc; i++) {
		struct hp_objdata d;
		if (!decoded(rd, th.v[i].obj, 0, &d, out, &rc))
			continue;
		for (int m = 0; m < 4 && !rc; m++) {
			int null;
			size_t mo = ref_field(h, rd, &d, map_fields[m], HP_OBJ_INSTANCE, &null);
			if (mo != SIZE_MAX)
				rc = push(maps, (struct node){ th.v[i].thread, (uint32_t)mo, HP_NONE, HP_NONE, (uint8_t)m });
			else if (!null && hp_objread_field(rd, &d, map_fields[m], NULL))
				out->skipped++;   /* the field is there but names no instance */
		}
		hp_objread_release(&d);
	}
	hp_free(th.v);
	return rc;
}

/* maps -> their tables -> entries (old Android: key references and values) */
static int walk_maps(const hp_heap *h, hp_objread *rd, struct hp_tlocals *out, struct level *maps,
		     struct level *ents, struct hp_error *err)
{
	struct level tb = { NULL, 0, 0 };
	int rc = prefetch(rd, maps, err);
	for (size_t i = 0; i < maps->n && !rc; i++) {
		struct hp_objdata d;
		if (!decoded(rd, maps->v[i].obj, 0, &d, out, &rc))
			continue;
		out->maps++;
		int null;
		size_t t = ref_field(h, rd, &d, "table", HP_OBJ_OBJARRAY, &null);
		hp_objread_release(&d);
		if (t != SIZE_MAX) {
			struct node nd = maps->v[i];
			nd.obj = (uint32_t)t;
			rc = push(&tb, nd);
		} else if (!null) {
			out->skipped++;
		}
	}
	if (!rc)
		rc = prefetch(rd, &tb, err);
	for (size_t i = 0; i < tb.n && !rc; i++) {
		struct hp_objdata d;
		if (!decoded(rd, tb.v[i].obj, UINT32_MAX, &d, out, &rc))
			continue;
		if (d.kind != HP_OBJ_OBJARRAY) {
			hp_objread_release(&d);
			out->skipped++;
			continue;
		}
		int pairs = tb.v[i].map >= HP_TL_VALUES;
		for (uint32_t k = 0; k < d.nelems && !rc; k += pairs ? 2 : 1) {
			if (!d.elems[k])
				continue;
			size_t e = hp_heap_find(h, d.elems[k]);
			if (e == SIZE_MAX || hp_heap_kind(h, e) != HP_OBJ_INSTANCE) {
				out->skipped++;
				continue;
			}
			struct node nd = tb.v[i];
			nd.table = tb.v[i].obj;
			nd.obj = (uint32_t)e;
			if (pairs) {
				size_t v = k + 1 < d.nelems && d.elems[k + 1] ? hp_heap_find(h, d.elems[k + 1]) : SIZE_MAX;
				nd.value = v == SIZE_MAX ? HP_NONE : (uint32_t)v;
			}
			rc = push(ents, nd);
		}
		hp_objread_release(&d);
	}
	hp_free(tb.v);
	return rc;
}

struct kv { uint32_t key, value; uint64_t retained; uint8_t owned; };

static int by_kv(const void *a, const void *b)
{
	const struct kv *x = a, *y = b;
	return hp_cmp2_u64(x->key, y->key, x->value, y->value);
}

static int by_entry(const void *a, const void *b)
{
	const struct hp_tl_entry *x = a, *y = b;
	return hp_cmp4_u64(x->thread, y->thread, x->map, y->map, y->retained, x->retained, x->entry, y->entry);
}

struct kord { struct hp_tl_key k; uint32_t old; };

static int by_key(const void *a, const void *b)
{
	const struct kord *x = a, *y = b;
	if (x->k.retained != y->k.retained)
		return hp_cmp_u64(y->k.retained, x->k.retained);
	int c = strcmp(x->k.name, y->k.name);
	if (c)
		return c;
	return hp_cmp_u64(x->k.tl, y->k.tl);
}

/* entries -> their ThreadLocal and value; the keys */
static int read_entries(const hp_heap *h, const struct hp_retained *R, hp_objread *rd, struct hp_tlocals *out,
			const struct level *ents, struct hp_idmap *bytl, struct hp_error *err)
{
	int rc = prefetch(rd, ents, err);
	if (rc)
		return rc;
	out->e = hp_reallocarray(NULL, ents->n ? ents->n : 1, sizeof *out->e);
	if (!out->e)
		return HP_ENOMEM;
	size_t kcap = 0;
	for (size_t i = 0; i < ents->n; i++) {
		const struct node *nd = &ents->v[i];
		struct hp_objdata d;
		if (!decoded(rd, nd->obj, 0, &d, out, &rc)) {
			if (rc)
				return rc;
			continue;
		}
		size_t tl = SIZE_MAX;
		const struct hp_objval *rf = hp_objread_field(rd, &d, "referent", NULL);
		int is_entry = rf && rf->type == HP_T_OBJECT;
		if (is_entry && rf->bits) {
			tl = hp_heap_find(h, rf->bits);
			if (tl != SIZE_MAX && hp_heap_kind(h, tl) != HP_OBJ_INSTANCE)
				tl = SIZE_MAX;
		}
		size_t v = nd->value == HP_NONE ? SIZE_MAX : nd->value;
		if (is_entry && nd->map < HP_TL_VALUES) {
			const struct hp_objval *vf = hp_objread_field(rd, &d, "value", NULL);
			if (vf && vf->type == HP_T_OBJECT)
				v = vf->bits ? hp_heap_find(h, vf->bits) : SIZE_MAX;
			else
				is_entry = 0;
		}
		hp_objread_release(&d);
		if (!is_entry) {
			/* not an entry; old Android's free slots hold a plain Object (TOMBSTONE) */
			if (strcmp(hp_class_name(h, h->cls[nd->obj]), "java.lang.Object"))
				out->skipped++;
			continue;
		}
		/* the key: the ThreadLocal, or the stale entries (kept at key HP_NONE's slot) */
		uint64_t mk = tl == SIZE_MAX ? (uint64_t)h->nobj : (uint64_t)tl;
		uint32_t ki = (uint32_t)out->nkeys;
		int ins = hp_idmap_insert(bytl, mk, &ki);
		if (ins < 0)
			return HP_ENOMEM;
		if (ins) {
			if (out->nkeys == kcap) {
				struct hp_tl_key *nk = hp_grow(out->keys, &kcap, out->nkeys + 1, 16, sizeof *nk);
				if (!nk)
					return HP_ENOMEM;
				out->keys = nk;
			}
			struct hp_tl_key *K = &out->keys[out->nkeys++];
			memset(K, 0, sizeof *K);
			K->tl = tl == SIZE_MAX ? HP_NONE : (uint32_t)tl;
			K->holder = HP_NONE;
		}
		struct hp_tl_entry *E = &out->e[out->n++];
		memset(E, 0, sizeof *E);
		E->thread = nd->thread;
		E->key = ki;
		E->entry = nd->obj;
		E->value = v == SIZE_MAX ? HP_NONE : (uint32_t)v;
		E->map = nd->map;
		if (E->value != HP_NONE && R) {
			E->retained = R->retained[v];
			uint32_t dom = R->dom.idom ? R->dom.idom[v] : HP_NONE;
			E->owned = dom == (nd->map < HP_TL_VALUES ? nd->obj : nd->table);
		}
	}
	return HP_OK;
}

/* per key: threads, values (distinct), retained; names from static holders */
static int finish_keys(const hp_heap *h, hp_objread *rd, struct hp_tlocals *out, struct hp_idmap *bytl)
{
	int rc = HP_ENOMEM;
	struct kv *kv = hp_reallocarray(NULL, out->n ? out->n : 1, sizeof *kv);
	uint32_t *last = hp_reallocarray(NULL, out->nkeys ? out->nkeys : 1, sizeof *last);
	struct kord *ko = hp_reallocarray(NULL, out->nkeys ? out->nkeys : 1, sizeof *ko);
	uint32_t *remap = hp_reallocarray(NULL, out->nkeys ? out->nkeys : 1, sizeof *remap);
	if (!kv || !last || !ko || !remap)
		goto out;
	for (size_t k = 0; k < out->nkeys; k++)
		last[k] = HP_NONE;
	size_t nkv = 0;
	for (size_t i = 0; i < out->n; i++) {
		const struct hp_tl_entry *E = &out->e[i];
		struct hp_tl_key *K = &out->keys[E->key];
		if (last[E->key] != E->thread) {   /* entries are in thread order */
			last[E->key] = E->thread;
			K->threads++;
		}
		if (E->value != HP_NONE)
			kv[nkv++] = (struct kv){ E->key, E->value, E->retained, E->owned };
	}
	qsort(kv, nkv, sizeof *kv, by_kv);
	for (size_t i = 0; i < nkv; i++) {
		if (i && kv[i].key == kv[i - 1].key && kv[i].value == kv[i - 1].value)
			continue;
		struct hp_tl_key *K = &out->keys[kv[i].key];
		K->values++;
		K->retained += kv[i].retained;
		if (kv[i].owned)
			K->owned += kv[i].retained;
	}
	/* a static field holding the ThreadLocal names it */
	for (size_t c = 0; c < h->nclasses; c++) {
		const struct hp_class *C = &h->classes[c];
		for (uint32_t s = 0; s < C->n_statics; s++) {
			const struct hp_static *st = &h->statics[C->first_static + s];
			if (st->type != HP_T_OBJECT || !st->value)
				continue;
			size_t o = hp_heap_find(h, st->value);
			uint32_t ki = o == SIZE_MAX ? HP_IDMAP_NONE : hp_idmap_get(bytl, o);
			if (ki == HP_IDMAP_NONE || out->keys[ki].name)
				continue;
			const char *cn = hp_class_name(h, c), *fn = hp_objread_name(rd, st->name_sid);
			size_t len = strlen(cn) + strlen(fn) + 2;
			char *nm = hp_malloc(len);
			if (!nm)
				goto out;
			snprintf(nm, len, "%s.%s", cn, fn);
			out->keys[ki].name = nm;
			out->keys[ki].holder = (uint32_t)c;
		}
	}
	for (size_t k = 0; k < out->nkeys; k++) {
		struct hp_tl_key *K = &out->keys[k];
		if (!K->name && !(K->name = hp_strdup(K->tl == HP_NONE ? "(stale entries)" : hp_class_name(h, h->cls[K->tl]))))
			goto out;
		ko[k].k = *K;
		ko[k].old = (uint32_t)k;
	}
	qsort(ko, out->nkeys, sizeof *ko, by_key);
	for (size_t k = 0; k < out->nkeys; k++) {
		out->keys[k] = ko[k].k;
		remap[ko[k].old] = (uint32_t)k;
	}
	for (size_t i = 0; i < out->n; i++)
		out->e[i].key = remap[out->e[i].key];
	qsort(out->e, out->n, sizeof *out->e, by_entry);
	rc = HP_OK;
out:
	hp_free_all(kv, last, ko, remap);
	return rc;
}

int hp_tlocals_collect(const hp_heap *h, const struct hp_retained *R, hp_objread *rd, struct hp_tlocals *out,
		       struct hp_error *err)
{
	memset(out, 0, sizeof *out);
	struct level maps = { NULL, 0, 0 }, ents = { NULL, 0, 0 };
	struct hp_idmap bytl;
	hp_idmap_init(&bytl);
	int rc = walk_threads(h, rd, out, &maps, err);
	if (!rc)
		rc = walk_maps(h, rd, out, &maps, &ents, err);
	if (!rc)
		rc = read_entries(h, R, rd, out, &ents, &bytl, err);
	if (!rc)
		rc = finish_keys(h, rd, out, &bytl);
	hp_free(maps.v);
	hp_free(ents.v);
	hp_idmap_release(&bytl);
	if (rc) {
		hp_tlocals_release(out);
		return hp_error_set(err, HP_ENOMEM, "out of memory reading the threads' ThreadLocal maps");
	}
	return HP_OK;
}

void hp_tlocals_release(struct hp_tlocals *t)
{
	for (size_t k = 0; k < t->nkeys; k++)
		hp_free(t->keys[k].name);
	hp_free(t->keys);
	hp_free(t->e);
	memset(t, 0, sizeof *t);
}

size_t hp_tlocals_of_thread(const struct hp_tlocals *t, uint32_t thread, size_t *count)
{
	size_t lo = 0, hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->e[mid].thread < thread)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t e = lo;
	while (e < t->n && t->e[e].thread == thread)
		e++;
	*count = e - lo;
	return lo;
}
