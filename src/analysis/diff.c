/* diff.c — dump summaries, lined up across dumps; growth points (diff.h). */
#include "analysis/diff.h"
#include "analysis/threadlocals.h"
#include "analysis/gennames.h"
#include "base/alloc.h"
#include "base/hash.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- strings: a pool of blocks ---------------------------------------------- */

struct pool_block { struct pool_block *next; size_t used, cap; char data[]; };
struct pool { struct pool_block *head; };

static const char *pool_add(struct pool *p, const char *s, size_t n)
{
	struct pool_block *b = p->head;
	if (!b || b->cap - b->used < n + 1) {
		size_t cap = n + 1 > 60000 ? n + 1 : 60000;
		b = hp_malloc(sizeof *b + cap);
		if (!b)
			return NULL;
		b->used = 0;
		b->cap = cap;
		b->next = p->head;
		p->head = b;
	}
	char *d = b->data + b->used;
	memcpy(d, s, n);
	d[n] = '\0';
	b->used += n + 1;
	return d;
}

static void pool_free(struct pool *p)
{
	if (!p)
		return;
	for (struct pool_block *b = p->head, *nx; b; b = nx) {
		nx = b->next;
		hp_free(b);
	}
	hp_free(p);
}

static uint64_t str_hash(const char *s, uint64_t h)
{
	return hp_idmap_hash(hp_fnv1a_str(h ^ HP_FNV1A_INIT, s));
}

/* ---- the summary ---------------------------------------------------------------- */

static int by_class_name(const void *a, const void *b)
{
	return strcmp(((const struct hp_dsum_class *)a)->name, ((const struct hp_dsum_class *)b)->name);
}

/* c[0..n) sorted by name, the rows of one name summed into one; returns how
 * many are left */
static size_t merge_by_name(struct hp_dsum_class *c, size_t n)
{
	if (n > 1)
		qsort(c, n, sizeof *c, by_class_name);
	size_t w = 0;
	for (size_t i = 0; i < n; i++) {
		if (w && !strcmp(c[w - 1].name, c[i].name)) {
			c[w - 1].instances += c[i].instances;
			c[w - 1].shallow += c[i].shallow;
			c[w - 1].retained += c[i].retained;
			continue;
		}
		c[w++] = c[i];
	}
	return w;
}

static int sum_classes(const hp_heap *h, const struct hp_retained *R, struct hp_dsum *s)
{
	s->classes = hp_calloc(h->nclasses ? h->nclasses : 1, sizeof *s->classes);
	if (!s->classes)
		return HP_ENOMEM;
	size_t n = 0;
	for (size_t k = 0; k < h->nclasses; k++) {
		uint64_t cnt = 0, sh = 0;
		for (uint32_t r = h->classes[k].row; r != HP_NONE; r = h->rows[r].next) {
			cnt += h->rows[r].count + h->rows[r].class_objs;
			sh += h->rows[r].shallow;
		}
		if (!cnt)
			continue;
		struct hp_dsum_class *c = &s->classes[n++];
		c->name = hp_class_name(h, k);     /* replaced by a pooled copy below */
		c->instances = cnt;
		c->shallow = sh;
		c->retained = R ? R->class_retained[k] : 0;
	}
	s->nclasses = merge_by_name(s->classes, n);
	for (size_t i = 0; i < s->nclasses; i++)
		if (!(s->classes[i].name = pool_add(s->pool, s->classes[i].name, strlen(s->classes[i].name))))
			return HP_ENOMEM;
	return HP_OK;
}

/* what makes a path node while building: its parent, a class, and a tag */
#define TAG_TOP      (2ull << 62)
#define TAG_SPECIAL  (1ull << 62)
#define TAG_SID_MASK ((1ull << 62) - 1)
#define TAG_TLOCAL   (TAG_TOP | TAG_SPECIAL)   /* a ThreadLocal's values: the hash of its name */
#define CLS_TLOCAL   (UINT32_MAX - 1)
enum { VIA_NONE = 0, VIA_ELEM, VIA_SUPER, VIA_LOADER, VIA_LOCAL = 16 };
#define CLS_OBJECT_OF 0x80000000u   /* cls holds the class a class object is */

struct pkey { uint32_t parent, cls; uint64_t tag; };

struct pbuild {
	const hp_heap *h;
	const struct hp_retained *R;
	hp_objread *rd;
	struct hp_dsum *s;
	struct pkey *keys;
	size_t cap;
	uint32_t *slots;                  /* hash of keys -> path index */
	size_t nslots;
};

static uint64_t key_hash(const struct pkey *k)
{
	return hp_idmap_hash(((uint64_t)k->parent << 32 | k->cls) ^ hp_idmap_hash(k->tag));
}

static int grow_slots(struct pbuild *b)
{
	size_t ns = b->nslots ? b->nslots * 2 : 1024;
	uint32_t *sl = hp_reallocarray(NULL, ns, sizeof *sl);
	if (!sl)
		return HP_ENOMEM;
	memset(sl, 0xff, ns * sizeof *sl);
	for (size_t i = 0; i < b->s->npaths; i++) {
		size_t j = (size_t)key_hash(&b->keys[i]) & (ns - 1);
		while (sl[j] != HP_NONE)
			j = (j + 1) & (ns - 1);
		sl[j] = (uint32_t)i;
	}
	hp_free(b->slots);
	b->slots = sl;
	b->nslots = ns;
	return HP_OK;
}

static const char *mutf8_name(struct pbuild *b, uint64_t sid)
{
	uint32_t len;
	const char *raw = hp_heap_string(b->h, sid, &len);
	if (!raw)
		return pool_add(b->s->pool, "?", 1);
	size_t ol;
	char *u = hp_mutf8_to_utf8(raw, len, &ol);
	if (!u)
		return NULL;
	const char *r = pool_add(b->s->pool, u, ol);
	hp_free(u);
	return r;
}

static uint32_t class_of(const hp_heap *h, uint32_t v)
{
	uint32_t k = hp_idmap_get(&h->class_map, hp_heap_id(h, v));
	return k == HP_IDMAP_NONE ? HP_NONE : k;
}

/* the path node of key k (made when new, with via/label from v); HP_NONE
 * and *rc set when out of memory or on a read error */
static uint32_t path_of(struct pbuild *b, const struct pkey *k, uint32_t v, const char *thread, int *rc)
{
	struct hp_dsum *s = b->s;
	if (s->npaths * 2 >= b->nslots && (*rc = grow_slots(b)))
		return HP_NONE;
	size_t j = (size_t)key_hash(k) & (b->nslots - 1);
	for (uint32_t p; (p = b->slots[j]) != HP_NONE; j = (j + 1) & (b->nslots - 1)) {
		const struct pkey *o = &b->keys[p];
		if (o->parent == k->parent && o->cls == k->cls && o->tag == k->tag)
			return p;
	}
	if (s->npaths >= UINT32_MAX - 2) {
		*rc = HP_ENOMEM;
		return HP_NONE;
	}
	if (s->npaths == b->cap) {
		size_t nc = b->cap ? b->cap * 2 : 1024;
		struct pkey *nk = hp_reallocarray(b->keys, nc, sizeof *nk);
		if (!nk) {
			*rc = HP_ENOMEM;
			return HP_NONE;
		}
		b->keys = nk;
		struct hp_dsum_path *np = hp_reallocarray(s->paths, nc, sizeof *np);
		if (!np) {
			*rc = HP_ENOMEM;
			return HP_NONE;
		}
		s->paths = np;
		b->cap = nc;
	}
	const hp_heap *h = b->h;
	uint32_t idx = (uint32_t)s->npaths;
	struct hp_dsum_path *P = &s->paths[idx];
	memset(P, 0, sizeof *P);
	P->parent = k->parent;
	P->depth = k->parent == HP_NONE ? 1 : s->paths[k->parent].depth + 1;
	/* the label */
	char buf[1200];
	const char *cname = k->cls == CLS_TLOCAL ? "" : (k->cls & CLS_OBJECT_OF) ? hp_class_name(h, k->cls & ~CLS_OBJECT_OF)
						     : hp_class_name(h, k->cls);
	if ((k->tag & TAG_TLOCAL) == TAG_TLOCAL)
		snprintf(buf, sizeof buf, "%s", thread);
	else if (thread)
		snprintf(buf, sizeof buf, "thread \"%s\"", thread);
	else
		snprintf(buf, sizeof buf, "%s%s", (k->cls & CLS_OBJECT_OF) ? "class " : "", cname);
	P->label = pool_add(s->pool, buf, strlen(buf));
	/* how it is held */
	if ((k->tag & TAG_TLOCAL) == TAG_TLOCAL) {
		P->via = pool_add(s->pool, "thread_local", 12);
	} else if (k->tag & TAG_TOP) {
		uint16_t ks = b->R->root_kinds[v];
		size_t l = 0;
		buf[0] = '\0';
		for (int r = 0; r < HP_ROOT_NKINDS; r++)
			if (ks & (1u << r)) {
				int w = snprintf(buf + l, sizeof buf - l, "%s%s", l ? "+" : "", hp_root_kind_key(r));
				if (w > 0 && (size_t)w < sizeof buf - l)
					l += (size_t)w;
			}
		if (!l)     /* no root of its own: held by several roots */
			snprintf(buf, sizeof buf, "%s", "joint");
		P->via = pool_add(s->pool, buf, strlen(buf));
	} else if (k->tag & TAG_SPECIAL) {
		unsigned sp = (unsigned)(k->tag & 0xffff);
		const char *t = sp == VIA_ELEM ? "[]" : sp == VIA_SUPER ? "<super>" : sp == VIA_LOADER ? "<loader>" : "";
		if (sp >= VIA_LOCAL) {
			snprintf(buf, sizeof buf, "<%s>", hp_root_kind_key((int)(sp - VIA_LOCAL)));
			t = buf;
		}
		P->via = pool_add(s->pool, t, strlen(t));
	} else {
		P->via = mutf8_name(b, k->tag & TAG_SID_MASK);
	}
	if (!P->label || !P->via) {
		*rc = HP_ENOMEM;
		return HP_NONE;
	}
	b->keys[idx] = *k;
	b->slots[j] = idx;
	s->npaths++;
	return idx;
}

/* the key of v, an object the super-root dominates */
static uint32_t top_path(struct pbuild *b, uint32_t v, int *rc, struct hp_error *err)
{
	const hp_heap *h = b->h;
	struct pkey k = { HP_NONE, h->cls[v], TAG_TOP | b->R->root_kinds[v] };
	if (hp_heap_kind(h, v) == HP_OBJ_CLASS) {
		uint32_t c = class_of(h, v);
		if (c != HP_NONE)
			k.cls = c | CLS_OBJECT_OF;
	}
	char *name = NULL;
	if (b->rd && (b->R->root_kinds[v] & (1u << HP_ROOT_THREAD_OBJECT)) &&
	    hp_heap_kind(h, v) == HP_OBJ_INSTANCE) {
		struct hp_text t;
		int r = hp_objread_thread_name(b->rd, v, 200, &t, err);
		if (r) {
			*rc = r;
			return HP_NONE;
		}
		if (t.utf8) {
			for (size_t i = 0; i < t.len; i++)
				if (t.utf8[i] == '\0')
					t.utf8[i] = '?';
			name = t.utf8;
			k.tag ^= str_hash(name, 0) & ~(TAG_TOP | TAG_SPECIAL | 0xffff);
		} else {
			hp_objread_text_release(&t);
		}
	}
	uint32_t p = path_of(b, &k, v, name, rc);
	hp_free(name);
	return p;
}

/* The fields of instances that hold their dominator-tree children, found
 * before the paths are made: the instances are decoded in file order, so a
 * gzip dump is read forward once (objread.h), and each instance once.
 * ftag[k] is for the child at R->children[k]: an index into the field names
 * met (sids), FT_NONE when no field holds it, FT_UNREAD when not looked at. */
#define FT_NONE   UINT32_MAX
#define FT_UNREAD (UINT32_MAX - 1)

struct fnames {
	struct hp_idmap map;          /* name sid -> index */
	uint64_t *sids;
	size_t n, cap;
};

static int fname_index(struct fnames *f, uint64_t sid, uint32_t *idx)
{
	uint32_t i = hp_idmap_get(&f->map, sid);
	if (i != HP_IDMAP_NONE) {
		*idx = i;
		return HP_OK;
	}
	if (f->n == f->cap) {
		uint64_t *ns = hp_grow(f->sids, &f->cap, f->n + 1, 64, sizeof *ns);
		if (!ns)
			return HP_ENOMEM;
		f->sids = ns;
	}
	if (f->n >= FT_UNREAD || hp_idmap_put(&f->map, sid, (uint32_t)f->n))
		return HP_ENOMEM;
	f->sids[f->n] = sid;
	*idx = (uint32_t)f->n++;
	return HP_OK;
}

static int field_tags(const hp_heap *h, const struct hp_retained *R, hp_objread *rd, const uint8_t *depth,
		      uint32_t *ftag, struct fnames *fn, struct hp_error *err)
{
	size_t n = h->nobj;
	for (size_t k = 0; k < R->dom.nreach; k++)
		ftag[k] = FT_UNREAD;
	if (!rd)
		return HP_OK;
	for (size_t i = 0; i < n; i++) {
		uint32_t p = h->file_order ? h->file_order[i] : (uint32_t)i;
		uint32_t lo = R->child_off[p], hi = R->child_off[p + 1];
		if (lo == hi || !depth[p] || depth[p] >= HP_DSUM_DEPTH || hp_heap_kind(h, p) != HP_OBJ_INSTANCE)
			continue;
		struct hp_objdata od;
		int rc = hp_objread_decode(rd, p, 0, &od, err);
		if (rc)
			return rc;
		for (uint32_t k = lo; k < hi && !rc; k++) {
			uint64_t id = hp_heap_id(h, R->children[k]);
			ftag[k] = FT_NONE;
			for (size_t f = 0; f < od.nfields; f++)
				if (od.fields[f].type == HP_T_OBJECT && od.fields[f].bits == id) {
					rc = fname_index(fn, od.fields[f].name_sid, &ftag[k]);
					break;
				}
		}
		hp_objread_release(&od);
		if (rc)
			return hp_error_set(err, HP_ENOMEM, "out of memory reading field names");
	}
	return HP_OK;
}

/* how p (in the tree, not the super-root) holds its child v, the k-th of
 * R->children */
static uint64_t child_tag(struct pbuild *b, uint32_t p, uint32_t v, uint32_t ft, const struct fnames *fn)
{
	const hp_heap *h = b->h;
	uint64_t id = hp_heap_id(h, v);
	switch (hp_heap_kind(h, p)) {
	case HP_OBJ_OBJARRAY:
		return TAG_SPECIAL | VIA_ELEM;
	case HP_OBJ_CLASS: {
		uint32_t c = class_of(h, p);
		if (c == HP_NONE)
			break;
		const struct hp_class *C = &h->classes[c];
		for (uint32_t i = 0; i < C->n_statics; i++) {
			const struct hp_static *st = &h->statics[C->first_static + i];
			if (st->type == HP_T_OBJECT && st->value == id)
				return st->name_sid & TAG_SID_MASK;
		}
		if (C->super_id == id)
			return TAG_SPECIAL | VIA_SUPER;
		if (C->loader_id == id)
			return TAG_SPECIAL | VIA_LOADER;
		break;
	}
	case HP_OBJ_INSTANCE:
		if (ft < FT_UNREAD)
			return fn->sids[ft] & TAG_SID_MASK;
		if (ft == FT_UNREAD)
			b->s->unnamed_fields++;
		break;
	default:
		break;
	}
	uint16_t ks = b->R->root_kinds[v];
	for (int r = 0; r < HP_ROOT_NKINDS; r++)
		if ((ks & (1u << r)) && hp_root_thread_local(r))
			return TAG_SPECIAL | (uint64_t)(VIA_LOCAL + r);
	return TAG_SPECIAL | VIA_NONE;
}

static void count_node(struct hp_dsum *s, uint32_t path, const struct hp_retained *R, uint32_t v, const uint32_t *cnt)
{
	struct hp_dsum_path *P = &s->paths[path];
	P->nodes++;
	P->retained += R->retained[v];
	P->objects += cnt[v];
}

/* The values threads keep in one ThreadLocal are one path, whatever the
 * thread: value -> its ThreadLocal's name (threadlocals.h), for the values
 * only their entry holds.  Empty without an object reader. */
struct tlvals { struct hp_idmap of; struct hp_tlocals T; };

static int tl_values(const hp_heap *h, const struct hp_retained *R, hp_objread *rd, struct tlvals *tv,
		     struct hp_error *err)
{
	hp_idmap_init(&tv->of);
	memset(&tv->T, 0, sizeof tv->T);
	if (!rd)
		return HP_OK;
	int rc = hp_tlocals_collect(h, R, rd, &tv->T, err);
	for (size_t i = 0; !rc && i < tv->T.n; i++)
		if (tv->T.e[i].value != HP_NONE && tv->T.e[i].owned && hp_idmap_put(&tv->of, tv->T.e[i].value, tv->T.e[i].key) < 0)
			rc = hp_error_set(err, HP_ENOMEM, "out of memory");
	return rc;
}

/* value v, child of p, moved to the path of its ThreadLocal ("thread_local"
 * ShopServer.AUDIT, then its class): what it retains leaves the paths of
 * its dominators, so that growth there is the ThreadLocal's, not its
 * threads' */
static uint32_t tl_path(struct pbuild *b, const struct tlvals *tv, uint32_t key, uint32_t p, uint32_t v,
			const uint32_t *path, const uint32_t *cnt, int *rc)
{
	struct hp_dsum *s = b->s;
	const char *name = tv->T.keys[key].name;
	struct pkey tk = { HP_NONE, CLS_TLOCAL, TAG_TLOCAL | (str_hash(name, 0) & TAG_SID_MASK) };
	uint32_t tp = path_of(b, &tk, v, name, rc);
	if (tp == HP_NONE)
		return HP_NONE;
	struct pkey vk = { tp, b->h->cls[v], TAG_SPECIAL | VIA_NONE };
	uint32_t q = path_of(b, &vk, v, NULL, rc);
	if (q == HP_NONE)
		return HP_NONE;
	for (uint32_t a = path[p]; a != HP_NONE; a = s->paths[a].parent) {
		s->paths[a].retained -= b->R->retained[v];
		s->paths[a].objects -= cnt[v];
	}
	count_node(s, tp, b->R, v, cnt);
	return q;
}

static int sum_paths(const hp_heap *h, const struct hp_retained *R, hp_objread *rd, struct hp_dsum *s,
		     struct hp_error *err)
{
	size_t n = h->nobj;
	const struct hp_dom *D = &R->dom;
	uint32_t *path = hp_reallocarray(NULL, n ? n : 1, sizeof *path);
	uint32_t *cnt = hp_reallocarray(NULL, n ? n : 1, sizeof *cnt);
	uint32_t *ftag = hp_reallocarray(NULL, D->nreach ? D->nreach : 1, sizeof *ftag);
	uint8_t *depth = hp_calloc(n ? n : 1, 1);
	uint32_t *threads = NULL;
	struct tlvals tv;
	struct fnames fn = { .sids = NULL };
	hp_idmap_init(&fn.map);
	struct pbuild b = { .h = h, .R = R, .rd = rd, .s = s };
	int rc = tl_values(h, R, rd, &tv, err);
	if (rc)
		goto out;
	if (!path || !cnt || !ftag || !depth) {
		rc = HP_ENOMEM;
		goto out;
	}
	/* objects in each dominator subtree (children before parents), and the
	 * depth of each in the tree (parents first; 255 stands for deeper) */
	for (uint32_t i = 0; i < D->nreach; i++) {
		uint32_t v = D->order[i], p = D->idom[v];
		cnt[v] = 1;
		depth[v] = p >= n ? 1 : depth[p] < 255 ? (uint8_t)(depth[p] + 1) : 255;
	}
	for (uint32_t i = D->nreach; i-- > 0;) {
		uint32_t v = D->order[i], p = D->idom[v];
		if (p < n)
			cnt[p] += cnt[v];
	}
	if ((rc = field_tags(h, R, rd, depth, ftag, &fn, err)))
		goto out;
	/* the super-root's children; the threads' names read ahead in one go */
	uint32_t lo = R->child_off[n], hi = R->child_off[n + 1];
	if (rd) {
		size_t nt = 0;
		threads = hp_reallocarray(NULL, hi - lo + 1, sizeof *threads);
		if (!threads) {
			rc = HP_ENOMEM;
			goto out;
		}
		for (uint32_t k = lo; k < hi; k++)
			if (R->root_kinds[R->children[k]] & (1u << HP_ROOT_THREAD_OBJECT))
				threads[nt++] = R->children[k];
		if (nt && (rc = hp_objread_prefetch_text(rd, threads, nt, err)))
			goto out;
	}
	for (uint32_t k = lo; k < hi; k++) {
		uint32_t v = R->children[k];
		uint32_t p = top_path(&b, v, &rc, err);
		if (p == HP_NONE)
			goto out;
		path[v] = p;
		count_node(s, p, R, v, cnt);
	}
	/* every other object, its dominator's children at once (preorder: the
	 * dominator's path is known when it is met) */
	for (uint32_t i = 0; i < D->nreach; i++) {
		uint32_t p = D->order[i];
		lo = R->child_off[p];
		hi = R->child_off[p + 1];
		if (lo == hi)
			continue;
		uint32_t pp = path[p];
		if (s->paths[pp].depth >= HP_DSUM_DEPTH) {
			for (uint32_t k = lo; k < hi; k++)
				path[R->children[k]] = pp;
			s->deep_objects += hi - lo;
			continue;
		}
		for (uint32_t k = lo; k < hi; k++) {
			uint32_t v = R->children[k];
			uint32_t tk = tv.of.n ? hp_idmap_get(&tv.of, v) : HP_IDMAP_NONE;
			if (tk != HP_IDMAP_NONE) {
				uint32_t q = tl_path(&b, &tv, tk, p, v, path, cnt, &rc);
				if (q == HP_NONE)
					goto out;
				path[v] = q;
				count_node(s, q, R, v, cnt);
				continue;
			}
			struct pkey key = { pp, h->cls[v], child_tag(&b, p, v, ftag[k], &fn) };
			if (hp_heap_kind(h, v) == HP_OBJ_CLASS) {
				uint32_t c = class_of(h, v);
				if (c != HP_NONE)
					key.cls = c | CLS_OBJECT_OF;
			}
			uint32_t q = path_of(&b, &key, v, NULL, &rc);
			if (q == HP_NONE)
				goto out;
			path[v] = q;
			count_node(s, q, R, v, cnt);
		}
	}
out:
	hp_free_all(path, cnt, ftag, depth, threads);
	hp_idmap_release(&tv.of);
	hp_tlocals_release(&tv.T);
	hp_free(fn.sids);
	hp_idmap_release(&fn.map);
	hp_free(b.keys);
	hp_free(b.slots);
	if (rc == HP_ENOMEM)
		return hp_error_set(err, HP_ENOMEM, "out of memory summarising the dominator tree");
	return rc;
}

int hp_dsum_build(const hp_heap *h, const struct hp_retained *R, hp_objread *rd, struct hp_dsum *s,
		  struct hp_error *err)
{
	memset(s, 0, sizeof *s);
	if (!(s->pool = hp_calloc(1, sizeof(struct pool))))
		return hp_error_set(err, HP_ENOMEM, "out of memory");
	s->has_retained = R != NULL;
	s->android = hp_heap_android(h);
	s->size_kind = h->size.kind;
	s->weak_policy = R ? R->weak : -1;
	s->roots_policy = R ? R->roots_policy : -1;
	s->timestamp_ms = h->header.timestamp_ms;
	s->objects = h->n_instances + h->n_objarrays + h->n_primarrays + h->n_classobjs;
	s->shallow = h->total_shallow;
	if (R) {
		s->reachable = R->reachable;
		s->reachable_bytes = R->reachable_bytes;
		s->unreachable = R->unreachable;
		s->unreachable_bytes = R->unreachable_bytes;
	}
	for (int k = 0; k < HP_ROOT_NKINDS; k++) {
		s->roots[k].records = h->roots_by_kind[k];
		if (R) {
			s->roots[k].objects = R->kinds[k].objects;
			s->roots[k].retained = R->kinds[k].retained;
		}
	}
	for (unsigned i = 0; i < h->nheaps && i < HP_MAX_HEAPS; i++) {
		if (!h->heap_objects[i])
			continue;
		const char *nm = hp_heap_name(h, i);
		struct hp_dsum_heap *H = &s->heaps[s->nheaps++];
		if (!(H->name = pool_add(s->pool, nm, strlen(nm)))) {
			hp_dsum_release(s);
			return hp_error_set(err, HP_ENOMEM, "out of memory");
		}
		H->objects = h->heap_objects[i];
		H->shallow = h->heap_bytes[i];
	}
	int rc = sum_classes(h, R, s);
	if (rc) {
		hp_dsum_release(s);
		return hp_error_set(err, HP_ENOMEM, "out of memory summarising the classes");
	}
	if (R && (rc = sum_paths(h, R, rd, s, err))) {
		hp_dsum_release(s);
		return rc;
	}
	return HP_OK;
}

int hp_dsum_groups(struct hp_dsum *s, const hp_heap *h, const struct hp_groups *G, struct hp_error *err)
{
	hp_free(s->groups);
	s->ngroups = 0;
	s->groups = hp_calloc(G->n ? G->n : 1, sizeof *s->groups);
	if (!s->groups)
		return hp_error_set(err, HP_ENOMEM, "out of memory summarising the groups");
	size_t n = 0;
	for (size_t i = 0; i < G->n; i++) {
		const struct hp_group *g = &G->g[i];
		if (!g->instances)
			continue;
		char buf[1200];
		if (G->by == HP_GROUP_PACKAGE || G->by == HP_GROUP_PACKAGE_FLAT)
			snprintf(buf, sizeof buf, "%.*s", g->pkg_len ? (int)(g->pkg_len < 1100 ? g->pkg_len : 1100) : 12,
				 g->pkg_len ? g->pkg : "(no package)");
		else if (G->by == HP_GROUP_COMPONENT)
			snprintf(buf, sizeof buf, "%s", hp_group_name(G, i));
		else if (!g->loader_id)
			snprintf(buf, sizeof buf, "<bootstrap>");
		else if (g->loader_class == HP_NONE)
			snprintf(buf, sizeof buf, "0x%llx (not in the dump)", (unsigned long long)g->loader_id);
		else if (g->has_loader_name)
			snprintf(buf, sizeof buf, "%s \"%.900s\"", hp_class_name(h, g->loader_class), hp_group_name(G, i));
		else
			snprintf(buf, sizeof buf, "%s", hp_class_name(h, g->loader_class));
		struct hp_dsum_class *c = &s->groups[n++];
		if (!(c->name = pool_add(s->pool, buf, strlen(buf))))
			return hp_error_set(err, HP_ENOMEM, "out of memory summarising the groups");
		c->instances = g->instances;
		c->shallow = g->shallow;
		c->retained = g->retained;
	}
	s->ngroups = merge_by_name(s->groups, n);
	return HP_OK;
}

void hp_dsum_release(struct hp_dsum *s)
{
	hp_free(s->classes);
	hp_free(s->groups);
	hp_free(s->paths);
	pool_free(s->pool);
	memset(s, 0, sizeof *s);
}

/* ---- lining up ----------------------------------------------------------------- */

/* Names made up at run time (analysis/gennames.h) differ between two runs
 * of one program.  Where a name is not in every summary, the entries whose
 * names normalise alike are lined up under the normalised name: all of
 * them, those found in every summary too, so that two lambdas of one class
 * are one row holding both in each dump (their counts and sizes summed)
 * and not an arbitrary pairing of one with another.  Classes and paths
 * whose names are in every summary, or are not made up, are lined up by
 * their own names as before; so are those whose normalised name only one
 * summary has (it would line nothing up). */

struct cref { const char *name, *key; uint32_t dump, idx; unsigned norm; };

static int by_cref(const void *a, const void *b)
{
	const struct cref *x = a, *y = b;
	int c = strcmp(x->key, y->key);
	if (c)
		return c;
	return x->dump < y->dump ? -1 : x->dump > y->dump;
}

/* a run of refs of one name: its normalised key, whether every dump has it */
struct nrun { size_t lo, hi; const char *key; unsigned kinds; int everywhere; };

static int by_nrun(const void *a, const void *b)
{
	const struct nrun *x = a, *y = b;
	int c = strcmp(x->key, y->key);
	return c ? c : x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* between two dumps next to each other, does some key have a name (a run)
 * in the first only and one in the second only?  a transition is 2 * i for
 * a name in dump i and not in i + 1, 2 * i + 1 for one in i + 1 and not in i */
static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int both_ways(const struct cref *refs, const struct nrun *runs, size_t a, size_t b, size_t n, uint64_t *tr)
{
	size_t nt = 0;
	for (size_t r = a; r < b; r++)
		for (size_t i = runs[r].lo; i < runs[r].hi; i++) {
			uint64_t d = refs[i].dump;
			if (d + 1 < n && (i + 1 == runs[r].hi || refs[i + 1].dump != d + 1))
				tr[nt++] = 2 * d;
			if (d > 0 && (i == runs[r].lo || refs[i - 1].dump != d - 1))
				tr[nt++] = 2 * (d - 1) + 1;
		}
	qsort(tr, nt, sizeof *tr, by_u64);
	for (size_t t = 1; t < nt; t++)
		if ((tr[t] & 1) && tr[t - 1] == tr[t] - 1)
			return 1;
	return 0;
}

/* Refs (sorted by name, each key its name) get their normalised keys: those
 * of every normalised name whose key has a name not in every dump; of every
 * normalised name when the dumps are of two runs (*runs_differ: the
 * lambdas of one class differ both ways between two dumps next to each
 * other — in one JVM, lambda classes are made, never renamed, and go only
 * with their class loader).  0, or HP_ENOMEM. */
static int normalise_refs(struct cref *refs, size_t total, size_t n, struct pool *pool, int *runs_differ)
{
	size_t nr = 0, maxlen = 0;
	*runs_differ = 0;
	for (size_t i = 0; i < total; i++) {
		if (!i || strcmp(refs[i].name, refs[i - 1].name))
			nr++;
		size_t l = strlen(refs[i].name);
		if (l > maxlen)
			maxlen = l;
	}
	struct nrun *runs = hp_reallocarray(NULL, nr ? nr : 1, sizeof *runs);
	uint64_t *tr = hp_reallocarray(NULL, 2 * total + 1, sizeof *tr);
	char *buf = hp_malloc(maxlen + 1);
	int rc = HP_OK;
	if (!runs || !tr || !buf) {
		rc = HP_ENOMEM;
		goto out;
	}
	size_t ng = 0;
	for (size_t lo = 0, hi; lo < total; lo = hi) {
		size_t dumps = 0;
		for (hi = lo; hi < total && !strcmp(refs[hi].name, refs[lo].name); hi++)
			dumps += hi == lo || refs[hi].dump != refs[hi - 1].dump;
		unsigned k = hp_gen_class_name(refs[lo].name, buf, maxlen + 1);
		if (!k)
			continue;
		const char *key = pool_add(pool, buf, strlen(buf));
		if (!key) {
			rc = HP_ENOMEM;
			goto out;
		}
		runs[ng++] = (struct nrun){ lo, hi, key, k, dumps == n };
	}
	qsort(runs, ng, sizeof *runs, by_nrun);
	for (size_t a = 0, b; a < ng && !*runs_differ; a = b) {
		for (b = a; b < ng && !strcmp(runs[b].key, runs[a].key); b++)
			;
		if ((runs[a].kinds & HP_GEN_LAMBDA) && both_ways(refs, runs, a, b, n, tr))
			*runs_differ = 1;
	}
	for (size_t a = 0, b; a < ng; a = b) {
		int all = 1, spread = 0;
		unsigned kinds = 0;
		uint32_t d0 = refs[runs[a].lo].dump;
		for (b = a; b < ng && !strcmp(runs[b].key, runs[a].key); b++) {
			all &= runs[b].everywhere;
			kinds |= runs[b].kinds;
			for (size_t i = runs[b].lo; i < runs[b].hi && !spread; i++)
				spread = refs[i].dump != d0;
		}
		/* a normalised name of one summary only lines nothing up */
		if ((all && !*runs_differ) || !spread)
			continue;
		for (size_t r = a; r < b; r++)
			for (size_t i = runs[r].lo; i < runs[r].hi; i++) {
				refs[i].key = runs[r].key;
				refs[i].norm = kinds;
			}
	}
out:
	hp_free(runs);
	hp_free(tr);
	hp_free(buf);
	return rc;
}

/* the summaries' classes (groups: their groups) lined up by name */
static int line_classes(const struct hp_dsum *const *s, size_t n, struct hp_cmp *c, int groups_of)
{
#define TAB(i) (groups_of ? s[i]->groups : s[i]->classes)
#define NTAB(i) (groups_of ? s[i]->ngroups : s[i]->nclasses)
	size_t total = 0;
	for (size_t i = 0; i < n; i++)
		total += NTAB(i);
	struct cref *refs = hp_reallocarray(NULL, total ? total : 1, sizeof *refs);
	if (!refs)
		return HP_ENOMEM;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < NTAB(i); j++)
			refs[k++] = (struct cref){ TAB(i)[j].name, TAB(i)[j].name, (uint32_t)i, (uint32_t)j, 0 };
	qsort(refs, total, sizeof *refs, by_cref);
	if (!groups_of) {
		if (normalise_refs(refs, total, n, c->pool, &c->norm.runs_differ)) {
			hp_free(refs);
			return HP_ENOMEM;
		}
		qsort(refs, total, sizeof *refs, by_cref);
	}
	size_t groups = 0;
	for (size_t i = 0; i < total; i++)
		if (!i || strcmp(refs[i].key, refs[i - 1].key))
			groups++;
	struct hp_cmp_class *tab = hp_calloc(groups ? groups : 1, sizeof *tab);
	uint64_t *vals = hp_calloc(groups * 3 * n + 1, sizeof *vals);
	uint8_t *fl = hp_calloc(groups * n + 1, 1);
	uint32_t *names = hp_calloc(groups * n + 1, sizeof *names);
	if (!tab || !vals || !fl || !names) {
		hp_free_all(tab, refs, vals, fl, names);
		return HP_ENOMEM;
	}
	if (groups_of) {
		c->groups = tab;
		c->gvals = vals;
		c->gflags = fl;
		c->gnames = names;
	} else {
		c->classes = tab;
		c->vals = vals;       /* the paths' values go in a block of their own */
		c->flags = fl;
		c->cnames = names;
	}
	size_t g = SIZE_MAX;
	for (size_t i = 0; i < total; i++) {
		if (!i || strcmp(refs[i].key, refs[i - 1].key)) {
			g = g == SIZE_MAX ? 0 : g + 1;
			struct hp_cmp_class *C = &tab[g];
			C->name = refs[i].key;
			C->instances = vals + g * 3 * n;
			C->shallow = C->instances + n;
			C->retained = C->shallow + n;
			C->present = fl + g * n;
			C->names = names + g * n;
		}
		const struct hp_dsum_class *sc = &TAB(refs[i].dump)[refs[i].idx];
		struct hp_cmp_class *C = &tab[g];
		C->instances[refs[i].dump] += sc->instances;
		C->shallow[refs[i].dump] += sc->shallow;
		C->retained[refs[i].dump] += sc->retained;
		C->present[refs[i].dump] = 1;
		C->names[refs[i].dump]++;
		C->normalised |= refs[i].norm;
	}
	if (groups_of)
		c->ngroups = groups;
	else
		c->nclasses = groups;
	for (size_t r = 0; !groups_of && r < groups; r++) {
		if (!tab[r].normalised)
			continue;
		c->norm.classes++;
		c->norm.kinds |= tab[r].normalised;
		for (size_t i = 0; i < n; i++)
			c->norm.class_names[i] += tab[r].names[i];
	}
	hp_free(refs);
	return HP_OK;
#undef TAB
#undef NTAB
}

/* (parent, via, label) keys: a table of them, each found once */
struct ukey { uint32_t parent; const char *via, *label; };

struct ktab {
	struct ukey *keys;
	size_t n;
	uint32_t *slots;
	size_t mask;
};

static uint64_t ukey_hash(uint32_t parent, const char *via, const char *label)
{
	return str_hash(label, str_hash(via, parent));
}

static int ktab_init(struct ktab *t, size_t cap)
{
	size_t ns = 1024;
	while (ns < 2 * cap + 2)
		ns *= 2;
	t->n = 0;
	t->mask = ns - 1;
	t->keys = hp_reallocarray(NULL, cap ? cap : 1, sizeof *t->keys);
	t->slots = hp_reallocarray(NULL, ns, sizeof *t->slots);
	if (!t->keys || !t->slots)
		return HP_ENOMEM;
	memset(t->slots, 0xff, ns * sizeof *t->slots);
	return HP_OK;
}

static void ktab_release(struct ktab *t)
{
	hp_free(t->keys);
	hp_free(t->slots);
}

/* the key's index; added when add (the table holds at most cap keys),
 * else HP_NONE when absent */
static uint32_t ktab_get(struct ktab *t, uint32_t parent, const char *via, const char *label, int add)
{
	size_t q = (size_t)ukey_hash(parent, via, label) & t->mask;
	uint32_t u;
	while ((u = t->slots[q]) != HP_NONE) {
		const struct ukey *k = &t->keys[u];
		if (k->parent == parent && !strcmp(k->label, label) && !strcmp(k->via, via))
			return u;
		q = (q + 1) & t->mask;
	}
	if (!add)
		return HP_NONE;
	u = (uint32_t)t->n++;
	t->keys[u] = (struct ukey){ parent, via, label };
	t->slots[q] = u;
	return u;
}

/* a path's depth, 1..max (a summary's paths are at most HP_DSUM_DEPTH deep) */
static size_t level_of(const struct hp_dsum_path *p, size_t max)
{
	return p->depth < 1 ? 1 : p->depth < max ? p->depth : max;
}

/* The union of the summaries' path trees, by (parent, via, label), a level
 * of depth at a time: at each level, the paths whose exact key is not in
 * every summary and whose label normalises mark their normalised key, and
 * every path of the level whose normalised key is marked, and found in two
 * summaries or more, is lined up under it (gennames.h; as the classes).  The union's paths are numbered in the
 * order the summaries first have them, parents before children. */
static int line_paths(const struct hp_dsum *const *s, size_t n, struct hp_cmp *c)
{
	size_t total = 0;
	for (size_t i = 0; i < n; i++)
		total += s[i]->npaths;
	size_t tcap = total ? total : 1;
	uint32_t *map = hp_reallocarray(NULL, tcap, sizeof *map);        /* summary path -> union */
	uint32_t *dump = hp_reallocarray(NULL, tcap, sizeof *dump);       /* summary path -> its dump */
	uint32_t *order = hp_reallocarray(NULL, tcap, sizeof *order);     /* summary paths by depth */
	uint32_t *prov = hp_reallocarray(NULL, tcap, sizeof *prov);       /* summary path -> exact key */
	uint32_t *pdumps = hp_calloc(tcap, sizeof *pdumps);               /* exact key -> dumps with it */
	uint32_t *plast = hp_reallocarray(NULL, tcap, sizeof *plast);     /* exact key -> last dump met */
	const char **nlab = hp_calloc(tcap, sizeof *nlab);                /* summary path -> normalised label */
	uint8_t *nkind = hp_calloc(tcap, 1);
	uint32_t *mid = hp_reallocarray(NULL, tcap, sizeof *mid);         /* summary path -> marked key */
	uint32_t *mdumps = hp_calloc(tcap, sizeof *mdumps);               /* marked key -> dumps with it */
	uint32_t *mlast = hp_reallocarray(NULL, tcap, sizeof *mlast);     /* marked key -> last dump met */
	uint32_t *renum = NULL;
	size_t ndepth = HP_DSUM_DEPTH + 2, maxlen = 0;
	size_t *dcount = hp_calloc(ndepth + 1, sizeof *dcount);
	size_t *first = hp_calloc(n + 1, sizeof *first);    /* each summary's first path */
	struct ktab U = { NULL }, P = { NULL }, M = { NULL };
	char *buf = NULL;
	uint64_t *vals = NULL;
	uint8_t *fl = NULL;
	uint32_t *names = NULL;
	int rc = HP_OK;
	if (!map || !dump || !order || !prov || !pdumps || !plast || !nlab || !nkind || !mid || !mdumps || !mlast ||
	    !dcount || !first ||
	    ktab_init(&U, total) || ktab_init(&P, total) || ktab_init(&M, total)) {
		rc = HP_ENOMEM;
		goto out;
	}
	/* the paths by depth (a parent's depth is less), in summary order */
	size_t base = 0;
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < s[i]->npaths; j++) {
			const struct hp_dsum_path *Pp = &s[i]->paths[j];
			size_t d = level_of(Pp, ndepth);
			dcount[d]++;
			dump[base + j] = (uint32_t)i;
			size_t l = strlen(Pp->label);
			if (l > maxlen)
				maxlen = l;
		}
		base += s[i]->npaths;
	}
	for (size_t d = 1; d <= ndepth; d++)
		dcount[d] += dcount[d - 1];
	{
		size_t *at = hp_calloc(ndepth + 1, sizeof *at);
		if (!at) {
			rc = HP_ENOMEM;
			goto out;
		}
		memcpy(at, dcount, (ndepth + 1) * sizeof *at);
		base = 0;
		for (size_t i = 0; i < n; i++) {
			for (size_t j = 0; j < s[i]->npaths; j++) {
				size_t d = level_of(&s[i]->paths[j], ndepth);
				order[at[d - 1]++] = (uint32_t)(base + j);
			}
			base += s[i]->npaths;
		}
		hp_free(at);
	}
	if (!(buf = hp_malloc(maxlen + 1))) {
		rc = HP_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		first[i + 1] = first[i] + s[i]->npaths;
#define PATH_OF(g) (&s[dump[g]]->paths[(g) - first[dump[g]]])
#define UP_OF(Pp, g) ((Pp)->parent == HP_NONE ? HP_NONE : map[first[dump[g]] + (Pp)->parent])
	for (size_t d = 1; d <= ndepth; d++) {
		size_t lo = dcount[d - 1], hi = dcount[d], marked = 0;
		/* the exact keys of the level, and the dumps that have each */
		for (size_t k = lo; k < hi; k++) {
			uint32_t g = order[k];
			const struct hp_dsum_path *Pp = PATH_OF(g);
			uint32_t e = ktab_get(&P, UP_OF(Pp, g), Pp->via, Pp->label, 1);
			prov[g] = e;
			if (!pdumps[e] || plast[e] != dump[g]) {
				pdumps[e]++;
				plast[e] = dump[g];
			}
		}
		/* those not in every dump mark their normalised keys */
		for (size_t k = lo; k < hi; k++) {
			uint32_t g = order[k];
			const struct hp_dsum_path *Pp = PATH_OF(g);
			if (pdumps[prov[g]] == n && !c->norm.runs_differ)
				continue;
			unsigned kinds = hp_gen_label(Pp->label, buf, maxlen + 1);
			if (!kinds)
				continue;
			if (!(nlab[g] = pool_add(c->pool, buf, strlen(buf)))) {
				rc = HP_ENOMEM;
				break;
			}
			nkind[g] = (uint8_t)kinds;
			ktab_get(&M, UP_OF(Pp, g), Pp->via, nlab[g], 1);
			marked++;
		}
		/* the paths of the level under marked normalised keys, and the
		 * dumps that have each such key */
		for (size_t k = lo; k < hi && !rc; k++) {
			uint32_t g = order[k];
			const struct hp_dsum_path *Pp = PATH_OF(g);
			uint32_t up = UP_OF(Pp, g);
			if (marked && !nlab[g]) {
				unsigned kinds = hp_gen_label(Pp->label, buf, maxlen + 1);
				if (kinds && ktab_get(&M, up, Pp->via, buf, 0) != HP_NONE) {
					if (!(nlab[g] = pool_add(c->pool, buf, strlen(buf)))) {
						rc = HP_ENOMEM;
						break;
					}
					nkind[g] = (uint8_t)kinds;
				}
			}
			mid[g] = nlab[g] ? ktab_get(&M, up, Pp->via, nlab[g], 0) : HP_NONE;
			if (mid[g] != HP_NONE && (!mdumps[mid[g]] || mlast[mid[g]] != dump[g])) {
				mdumps[mid[g]]++;
				mlast[mid[g]] = dump[g];
			}
		}
		/* every path of the level: under its normalised key when that key
		 * is in two dumps or more (in one only, it lines nothing up) */
		for (size_t k = lo; k < hi && !rc; k++) {
			uint32_t g = order[k];
			const struct hp_dsum_path *Pp = PATH_OF(g);
			const char *label = Pp->label;
			if (mid[g] != HP_NONE && mdumps[mid[g]] >= 2)
				label = nlab[g];
			else
				nkind[g] = 0;
			map[g] = ktab_get(&U, UP_OF(Pp, g), Pp->via, label, 1);
		}
		if (rc)
			goto out;
	}
	/* numbered in the order the summaries first have them */
	size_t nu = U.n;
	if (!(renum = hp_reallocarray(NULL, nu ? nu : 1, sizeof *renum))) {
		rc = HP_ENOMEM;
		goto out;
	}
	memset(renum, 0xff, (nu ? nu : 1) * sizeof *renum);
	c->paths = hp_calloc(nu ? nu : 1, sizeof *c->paths);
	vals = hp_calloc(nu * 3 * n + 1, sizeof *vals);
	fl = hp_calloc(nu * n + 1, 1);
	names = hp_calloc(nu * n + 1, sizeof *names);
	c->child_off = hp_calloc(nu + 2, sizeof *c->child_off);
	c->children = hp_reallocarray(NULL, nu ? nu : 1, sizeof *c->children);
	if (!c->paths || !vals || !fl || !names || !c->child_off || !c->children) {
		rc = HP_ENOMEM;
		goto out;
	}
	c->npaths = nu;
	uint32_t next = 0;
	for (size_t g = 0; g < total; g++)
		if (renum[map[g]] == HP_NONE)
			renum[map[g]] = next++;
	for (size_t u = 0; u < nu; u++) {
		struct hp_cmp_path *Q = &c->paths[renum[u]];
		const struct ukey *K = &U.keys[u];
		Q->parent = K->parent == HP_NONE ? HP_NONE : renum[K->parent];
		Q->via = K->via;
		Q->label = K->label;
	}
	/* the classes' blocks stay in c->vals/c->flags; these hang off the first path */
	for (size_t u = 0; u < nu; u++) {
		struct hp_cmp_path *Q = &c->paths[u];
		Q->depth = Q->parent == HP_NONE ? 1 : c->paths[Q->parent].depth + 1;
		Q->nodes = vals + u * 3 * n;
		Q->retained = Q->nodes + n;
		Q->objects = Q->retained + n;
		Q->present = fl + u * n;
		Q->names = names + u * n;
	}
	c->paths_vals = vals;
	c->paths_flags = fl;
	c->pnames = names;
	vals = NULL;
	fl = NULL;
	names = NULL;
	for (size_t g = 0; g < total; g++) {
		const struct hp_dsum_path *Pp = PATH_OF(g);
		struct hp_cmp_path *Q = &c->paths[renum[map[g]]];
		size_t i = dump[g];
		Q->nodes[i] += Pp->nodes;
		Q->retained[i] += Pp->retained;
		Q->objects[i] += Pp->objects;
		Q->present[i] = 1;
		Q->names[i]++;
		Q->normalised |= nkind[g];
	}
#undef PATH_OF
#undef UP_OF
	for (size_t u = 0; u < nu; u++) {
		const struct hp_cmp_path *Q = &c->paths[u];
		if (!Q->normalised)
			continue;
		c->norm.kinds |= Q->normalised;
		if (Q->parent == HP_NONE && !strncmp(Q->label, "thread \"", 8)) {
			c->norm.threads++;
			for (size_t i = 0; i < n; i++)
				c->norm.thread_names[i] += Q->names[i];
		} else {
			c->norm.paths++;
		}
	}
	/* children by parent, the tops under index nu */
	for (size_t u = 0; u < nu; u++) {
		uint32_t p = c->paths[u].parent == HP_NONE ? (uint32_t)nu : c->paths[u].parent;
		c->child_off[p + 1]++;
	}
	for (size_t u = 0; u < nu + 1; u++)
		c->child_off[u + 1] += c->child_off[u];
	{
		uint32_t *pos = hp_reallocarray(NULL, nu + 1, sizeof *pos);
		if (!pos) {
			rc = HP_ENOMEM;
			goto out;
		}
		memcpy(pos, c->child_off, (nu + 1) * sizeof *pos);
		for (size_t u = 0; u < nu; u++) {
			uint32_t p = c->paths[u].parent == HP_NONE ? (uint32_t)nu : c->paths[u].parent;
			c->children[pos[p]++] = (uint32_t)u;
		}
		hp_free(pos);
	}
out:
	hp_free_all(map, dump, order, prov, pdumps, plast, nlab, nkind, mid, mdumps, mlast, renum,
		    dcount, first, buf, vals, fl, names);
	ktab_release(&U);
	ktab_release(&P);
	ktab_release(&M);
	return rc;
}

int hp_cmp_build(const struct hp_dsum *const *s, size_t n, struct hp_cmp *c, struct hp_error *err)
{
	memset(c, 0, sizeof *c);
	c->n = n;
	c->has_retained = 1;
	for (size_t i = 0; i < n; i++)
		if (!s[i]->has_retained)
			c->has_retained = 0;
	c->same_model = 1;
	for (size_t i = 1; i < n; i++)
		if (s[i]->size_kind != s[0]->size_kind ||
		    (c->has_retained && (s[i]->weak_policy != s[0]->weak_policy || s[i]->roots_policy != s[0]->roots_policy)))
			c->same_model = 0;
	c->pool = hp_calloc(1, sizeof(struct pool));
	c->norm.class_names = hp_calloc(2 * n + 1, sizeof *c->norm.class_names);
	if (c->norm.class_names)
		c->norm.thread_names = c->norm.class_names + n;
	if (!c->pool || !c->norm.class_names || line_classes(s, n, c, 0) || line_classes(s, n, c, 1) ||
	    line_paths(s, n, c)) {
		hp_cmp_release(c);
		return hp_error_set(err, HP_ENOMEM, "out of memory comparing the dumps");
	}
	return HP_OK;
}

void hp_cmp_release(struct hp_cmp *c)
{
	hp_free_all(c->classes, c->groups, c->gvals, c->gflags, c->gnames, c->paths, c->child_off,
		    c->children, c->vals, c->flags, c->cnames, c->paths_vals, c->paths_flags,
		    c->pnames, c->norm.class_names);
	pool_free(c->pool);
	memset(c, 0, sizeof *c);
}

/* ---- growth points ---------------------------------------------------------------- */

static int64_t d64(const uint64_t *v, size_t a, size_t b)
{
	return (int64_t)(v[b] - v[a]);
}

int hp_cmp_growth(const struct hp_cmp *c, size_t a, size_t b, struct hp_growth **out, size_t *nout,
		  struct hp_error *err)
{
	*out = NULL;
	*nout = 0;
	size_t np = c->npaths, n = 0;
	/* at most one point per path */
	struct hp_growth *g = hp_reallocarray(NULL, np ? np : 1, sizeof *g);
	uint32_t *stack = hp_reallocarray(NULL, np ? np : 1, sizeof *stack);
	if (!g || !stack) {
		hp_free(g);
		hp_free(stack);
		return hp_error_set(err, HP_ENOMEM, "out of memory comparing the dumps");
	}
	size_t sp = 0;
	for (uint32_t k = c->child_off[np]; k < c->child_off[np + 1]; k++)
		stack[sp++] = c->children[k];
	while (sp) {
		uint32_t p = stack[--sp];
		const struct hp_cmp_path *P = &c->paths[p];
		int64_t dn = d64(P->nodes, a, b), dr = d64(P->retained, a, b), dobj = d64(P->objects, a, b);
		if (dn) {
			g[n++] = (struct hp_growth){ p, 0, dr, dn, dobj };
			continue;
		}
		int64_t own = dr, own_obj = dobj;
		for (uint32_t k = c->child_off[p]; k < c->child_off[p + 1]; k++) {
			const struct hp_cmp_path *C = &c->paths[c->children[k]];
			own -= d64(C->retained, a, b);
			own_obj -= d64(C->objects, a, b);
			stack[sp++] = c->children[k];
		}
		if (own || own_obj)
			g[n++] = (struct hp_growth){ p, 1, own, 0, own_obj };
	}
	hp_free(stack);
	*out = g;
	*nout = n;
	return HP_OK;
}

/* ---- series -------------------------------------------------------------------------- */

void hp_fit_series(const uint64_t *y, size_t n, struct hp_fit *f)
{
	memset(f, 0, sizeof *f);
	if (!n)
		return;
	double mx = (n - 1) / 2.0, my = 0;
	for (size_t i = 0; i < n; i++)
		my += (double)y[i];
	my /= (double)n;
	double sxy = 0, sxx = 0, syy = 0;
	for (size_t i = 0; i < n; i++) {
		double dx = (double)i - mx, dy = (double)y[i] - my;
		sxy += dx * dy;
		sxx += dx * dx;
		syy += dy * dy;
	}
	f->slope = sxx > 0 ? sxy / sxx : 0;
	f->intercept = my - f->slope * mx;
	f->r2 = syy > 0 && sxx > 0 ? (sxy * sxy) / (sxx * syy) : 1.0;
	f->monotonic = n >= 2;
	for (size_t i = 1; i < n; i++)
		if (y[i] <= y[i - 1])
			f->monotonic = 0;
}

/* ---- ids --------------------------------------------------------------------------------- */

static int by_name_key(const void *key, const void *elem)
{
	return strcmp(key, ((const struct hp_dsum_class *)elem)->name);
}

int hp_idcols_take(const hp_heap *h, const struct hp_dsum *s, struct hp_idcols *c, struct hp_error *err)
{
	memset(c, 0, sizeof *c);
	c->n = h->nobj;
	c->nclasses = h->nclasses;
	c->shallow = h->total_shallow;
	c->ids = hp_reallocarray(NULL, c->n ? c->n : 1, sizeof *c->ids);
	c->cls = hp_reallocarray(NULL, c->n ? c->n : 1, sizeof *c->cls);
	c->names = hp_calloc(c->nclasses ? c->nclasses : 1, sizeof *c->names);
	if (!c->ids || !c->cls || !c->names) {
		hp_idcols_release(c);
		return hp_error_set(err, HP_ENOMEM, "out of memory keeping the object ids");
	}
	if (c->n) {
		for (size_t i = 0; i < c->n; i++)
			c->ids[i] = hp_heap_id(h, i);
		memcpy(c->cls, h->cls, c->n * sizeof *c->cls);
	}
	for (size_t k = 0; k < c->nclasses; k++) {
		const struct hp_dsum_class *sc = bsearch(hp_class_name(h, k), s->classes, s->nclasses,
							 sizeof *s->classes, by_name_key);
		c->names[k] = sc ? sc->name : NULL;
	}
	return HP_OK;
}

void hp_idcols_release(struct hp_idcols *c)
{
	hp_free(c->ids);
	hp_free(c->cls);
	hp_free(c->names);
	memset(c, 0, sizeof *c);
}

int hp_diff_ids(const struct hp_idcols *a, const hp_heap *b, struct hp_idmatch *m, uint64_t *new_count,
		uint64_t *new_bytes, struct hp_error *err)
{
	memset(m, 0, sizeof *m);
	/* a's class -> b's class of the same name, when met (HP_NONE: not yet) */
	uint32_t *same = hp_reallocarray(NULL, a->nclasses ? a->nclasses : 1, sizeof *same);
	if (!same)
		return hp_error_set(err, HP_ENOMEM, "out of memory matching object ids");
	memset(same, 0xff, (a->nclasses ? a->nclasses : 1) * sizeof *same);
	uint64_t kept_bytes = 0;
	size_t i = 0, j = 0;
	while (i < a->n || j < b->nobj) {
		if (j >= b->nobj || (i < a->n && a->ids[i] < hp_heap_id(b, j))) {
			m->gone_objects++;
			i++;
			continue;
		}
		uint64_t sz = hp_heap_shallow(b, j);
		uint32_t cb = b->cls[j];
		if (i >= a->n || hp_heap_id(b, j) < a->ids[i]) {
			m->new_objects++;
			m->new_bytes += sz;
			if (new_count) {
				new_count[cb]++;
				new_bytes[cb] += sz;
			}
			j++;
			continue;
		}
		uint32_t ca = a->cls[i];
		int eq = same[ca] == cb;
		if (!eq && a->names[ca] && !strcmp(a->names[ca], hp_class_name(b, cb))) {
			same[ca] = cb;
			eq = 1;
		}
		if (eq) {
			m->kept++;
			kept_bytes += sz;
		} else {
			m->reused++;
			m->new_objects++;
			m->new_bytes += sz;
			m->gone_objects++;
			if (new_count) {
				new_count[cb]++;
				new_bytes[cb] += sz;
			}
		}
		i++;
		j++;
	}
	m->gone_bytes = a->shallow >= kept_bytes ? a->shallow - kept_bytes : 0;
	hp_free(same);
	return HP_OK;
}
