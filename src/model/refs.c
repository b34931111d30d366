#include "model/refs.h"
#include "parser/alloc.h"
#include "parser/reader.h"

#include <stdlib.h>
#include <string.h>

const char *hp_weak_policy_name(int p)
{
	switch (p) {
	case HP_WEAK_SKIP: return "skip";
	case HP_WEAK_SKIP_WEAK: return "skip-weak";
	default: return "follow";
	}
}

/* Where an instance of a class keeps its references. */
struct layout {
	uint32_t nbytes;      /* field bytes of the whole chain */
	uint32_t nrefs;
	uint32_t *offs;       /* byte offsets of reference fields */
	int32_t referent;     /* offset of java.lang.ref.Reference.referent, -1 none */
	uint8_t skip;         /* the weak policy skips it (else it is an edge) */
	uint8_t done;
};

struct builder {
	const hp_heap *h;
	const struct hp_refs_opts *o;
	struct hp_refs *R;
	struct layout *lay;   /* per class */
	struct hp_error *err;
	size_t file_idx;      /* objects seen so far in this pass, in file order */
	int nomem;
	/* the edges of the records, in file order, resolved to object numbers */
	uint32_t *ef;
	size_t nef, efcap;
	/* While the records come in object order (HotSpot and ART write them
	 * so), ef[] is already in object order and nothing more is kept; from
	 * the first record out of order, one block per record that has edges:
	 * its object and how many. */
	int in_order;
	size_t last_v;
	struct block { uint32_t v, k; } *blk;
	size_t nblk, blkcap;
	/* edges from the model (class statics, super, loader; thread locals) */
	uint32_t (*extra)[2];
	size_t nextra, extracap;
};

/* Grows *p (of *cap elements of `size` bytes) to hold one more; 0 on failure. */
static int grow(void *pp, size_t *cap, size_t have, size_t size, size_t first)
{
	void **p = pp;
	if (have < *cap)
		return 1;
	size_t nc = *cap ? 2 * *cap : first;
	void *q = hp_reallocarray(*p, nc, size);
	if (!q)
		return 0;
	*p = q;
	*cap = nc;
	return 1;
}

/* The object number of the record with this id: the next object in file
 * order as the model saw it (no lookup), or, when the model skipped a record
 * (a repeated CLASS DUMP, say), a lookup that leaves the order alone. */
static inline size_t obj_of(struct builder *B, uint64_t id)
{
	const hp_heap *h = B->h;
	size_t k = B->file_idx;
	if (k < h->nobj) {
		size_t v = h->file_order ? h->file_order[k] : k;
		if (h->ids[v] == id) {
			B->file_idx++;
			return v;
		}
	}
	return hp_heap_find(h, id);
}

static int name_is(const hp_heap *h, uint64_t sid, const char *want)
{
	uint32_t n;
	const char *s = hp_heap_string(h, sid, &n);
	return s && n == strlen(want) && memcmp(s, want, n) == 0;
}

int hp_refs_reference_kind(const hp_heap *h, uint32_t cls)
{
	/* walk up the chain (bounded: a loop cannot make it run forever) */
	uint32_t c = cls;
	for (size_t depth = 0; c != HP_NONE && depth < h->nclasses; depth++) {
		const char *n = hp_class_name(h, c);
		if (n) {
			if (!strcmp(n, "java.lang.ref.SoftReference"))
				return 1;
			if (!strcmp(n, "java.lang.ref.WeakReference"))
				return 2;
			if (!strcmp(n, "java.lang.ref.FinalReference"))
				return 3;
			if (!strcmp(n, "java.lang.ref.PhantomReference"))
				return 4;
		}
		c = h->classes[c].super;
	}
	return 0;
}

static int skip_kind(int policy, int kind)
{
	if (!kind)
		return 0;
	if (policy == HP_WEAK_SKIP)
		return 1;
	if (policy == HP_WEAK_SKIP_WEAK)
		return kind != 1;
	return 0;
}

static int make_layout(struct builder *B, uint32_t cls)
{
	const hp_heap *h = B->h;
	struct layout *L = &B->lay[cls];
	unsigned I = h->I;
	uint32_t nrefs = 0;
	uint64_t pos = 0;
	uint32_t c = cls;
	int rkind = hp_refs_reference_kind(h, cls);
	int skip = skip_kind(B->o->weak, rkind);
	/* the referent's offset is wanted when it is skipped or listed */
	int kind = skip || (rkind && B->o->list_followed);
	L->referent = -1;
	L->skip = (uint8_t)skip;
	/* first count, then record */
	for (int pass = 0; pass < 2; pass++) {
		pos = 0;
		nrefs = 0;
		c = cls;
		for (size_t depth = 0; c != HP_NONE && depth < h->nclasses; depth++) {
			const struct hp_class *k = &h->classes[c];
			int is_ref_class = kind && k->name && !strcmp(hp_class_name(h, c), "java.lang.ref.Reference");
			for (uint32_t f = 0; f < k->n_fields; f++) {
				const struct hp_field *fd = &h->fields[k->first_field + f];
				if (fd->type == HP_T_OBJECT) {
					if (is_ref_class && name_is(h, fd->name_sid, "referent"))
						L->referent = (int32_t)pos;
					if (pass == 1)
						L->offs[nrefs] = (uint32_t)pos;
					nrefs++;
				}
				pos += hp_type_size(fd->type, I);
			}
			c = k->super;
		}
		if (pass == 0 && nrefs) {
			L->offs = hp_reallocarray(NULL, nrefs, sizeof *L->offs);
			if (!L->offs)
				return HP_ENOMEM;
		}
	}
	L->nrefs = nrefs;
	L->nbytes = pos > UINT32_MAX ? UINT32_MAX : (uint32_t)pos;
	L->done = 1;
	return HP_OK;
}

/* A reference of the record being read: resolved now; ids the dump does
 * not hold are counted and dropped.  Returns the target or SIZE_MAX. */
static inline size_t edge(struct builder *B, uint64_t id)
{
	if (!id)
		return SIZE_MAX;
	size_t to = hp_heap_find(B->h, id);
	if (to == SIZE_MAX) {
		B->R->dangling++;
		return SIZE_MAX;
	}
	if (B->nef == B->efcap && !grow(&B->ef, &B->efcap, B->nef, sizeof *B->ef, (size_t)1 << 20)) {
		B->nomem = 1;
		return SIZE_MAX;
	}
	B->ef[B->nef++] = (uint32_t)to;
	return to;
}

/* Closes the record of object v whose edges start at ef[start]. */
static inline int end_record(struct builder *B, size_t v, size_t start)
{
	if (B->nomem)
		return HP_ENOMEM;
	if (B->nef == start)
		return HP_OK;
	uint32_t k = (uint32_t)(B->nef - start);   /* a record has fewer than 2^32 references */
	if (B->in_order) {
		if (B->last_v == SIZE_MAX || v > B->last_v) {
			B->last_v = v;
			B->R->off[v + 1] += k;
			return HP_OK;
		}
		/* the first record out of order: the blocks so far, from the counts */
		B->in_order = 0;
		for (size_t u = 0; u <= B->last_v; u++) {
			uint64_t c = B->R->off[u + 1];
			if (!c)
				continue;
			if (B->nblk == B->blkcap && !grow(&B->blk, &B->blkcap, B->nblk, sizeof *B->blk, 4096))
				return HP_ENOMEM;
			B->blk[B->nblk].v = (uint32_t)u;
			B->blk[B->nblk].k = (uint32_t)c;
			B->nblk++;
		}
	}
	if (B->nblk == B->blkcap && !grow(&B->blk, &B->blkcap, B->nblk, sizeof *B->blk, 4096))
		return HP_ENOMEM;
	B->blk[B->nblk].v = (uint32_t)v;
	B->blk[B->nblk].k = k;
	B->nblk++;
	B->R->off[v + 1] += k;
	return HP_OK;
}

struct xedge { uint32_t from, to; size_t seq; };

static int by_from(const void *a, const void *b)
{
	const struct xedge *x = a, *y = b;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Records in object order: ef[] holds their edges in place; the model's
 * edges go in after each object's own, by moving the stretches between
 * their objects right, from the end (one memmove per object that has
 * model edges).  off[] holds the final offsets (off[v] = v's start).
 */
static int merge_in_place(struct builder *B)
{
	struct hp_refs *R = B->R;
	size_t nx = B->nextra;
	uint64_t nrec = B->nef, m = R->nedges;
	uint32_t *adj = hp_reallocarray(B->ef, m ? m : 1, sizeof *adj);
	if (!adj)
		return HP_ENOMEM;
	B->ef = NULL;
	R->adj = adj;
	if (!nx)
		return HP_OK;
	struct xedge *x = hp_reallocarray(NULL, nx, sizeof *x);
	if (!x)
		return HP_ENOMEM;
	for (size_t i = 0; i < nx; i++) {
		x[i].from = B->extra[i][0];
		x[i].to = B->extra[i][1];
		x[i].seq = i;
	}
	qsort(x, nx, sizeof *x, by_from);
	uint64_t r = nrec;          /* record edges [0, r) are not yet in place */
	size_t i = nx;
	while (i > 0) {
		uint32_t v = x[i - 1].from;
		size_t j = i;
		while (j > 0 && x[j - 1].from == v)
			j--;
		/* the extras [0, i) belong to v or below: what lies above v's own
		 * edges moves right by i; v's extras [j, i) end at off[v + 1] */
		uint64_t end_v = R->off[v + 1];
		uint64_t seg = r - (end_v - i);
		memmove(adj + end_v, adj + end_v - i, seg * sizeof *adj);
		for (size_t t = j; t < i; t++)
			adj[end_v - (i - t)] = x[t].to;
		r = end_v - i;
		i = j;
	}
	hp_free(x);
	return HP_OK;
}

/* An edge the model knows of, not a record; dangling ones are dropped. */
static int extra_edge(struct builder *B, size_t from, uint64_t id)
{
	if (!id)
		return HP_OK;
	size_t to = hp_heap_find(B->h, id);
	if (to == SIZE_MAX) {
		B->R->dangling++;
		return HP_OK;
	}
	if (!grow(&B->extra, &B->extracap, B->nextra, sizeof *B->extra, 256))
		return HP_ENOMEM;
	B->extra[B->nextra][0] = (uint32_t)from;
	B->extra[B->nextra][1] = (uint32_t)to;
	B->nextra++;
	B->R->off[from + 1]++;
	return HP_OK;
}

static int push_pair(uint32_t (**arr)[2], size_t *n, size_t *cap, size_t from, size_t to)
{
	if (*n == *cap) {
		size_t nc = *cap ? 2 * *cap : 256;
		uint32_t (*nr)[2] = hp_reallocarray(*arr, nc, sizeof *nr);
		if (!nr)
			return HP_ENOMEM;
		*arr = nr;
		*cap = nc;
	}
	(*arr)[*n][0] = (uint32_t)from;
	(*arr)[*n][1] = (uint32_t)to;
	(*n)++;
	return HP_OK;
}

/* mark_referents: the referent stays an edge and is listed */
static int note_referent(struct builder *B, size_t from, uint64_t id)
{
	struct hp_refs *R = B->R;
	size_t to = edge(B, id);
	if (to == SIZE_MAX)
		return HP_OK;
	return push_pair(&R->referents, &R->nreferents, &R->referents_cap, from, to);
}

/* list_followed: the referent is an edge (already added: `to`), listed */
static int note_followed(struct builder *B, size_t from, size_t to)
{
	struct hp_refs *R = B->R;
	return push_pair(&R->followed, &R->nfollowed, &R->followed_cap, from, to);
}

static int on_instance(void *ud, uint64_t id, uint64_t class_id, const uint8_t *f, uint32_t len, uint64_t off)
{
	struct builder *B = ud;
	const hp_heap *h = B->h;
	size_t from = obj_of(B, id);
	if (from == SIZE_MAX || hp_heap_kind(h, from) != HP_OBJ_INSTANCE)
		return HP_OK;
	uint32_t cls = h->cls[from];
	struct layout *L = &B->lay[cls];
	if (!L->done)
		HP_TRY(make_layout(B, cls));
	if (len < L->nbytes)
		B->R->short_instances++;
	unsigned I = h->I;
	size_t start = B->nef;
	for (uint32_t i = 0; i < L->nrefs; i++) {
		uint32_t o = L->offs[i];
		if ((uint64_t)o + I > len)
			break;
		if ((int32_t)o == L->referent && !L->skip) {
			size_t to = edge(B, hp_be_id(f + o, I));
			if (to != SIZE_MAX)
				HP_TRY(note_followed(B, from, to));
			continue;
		}
		if ((int32_t)o == L->referent) {
			if (hp_be_id(f + o, I))
				B->R->weak_skipped++;
			if (B->o->mark_referents)
				HP_TRY(note_referent(B, from, hp_be_id(f + o, I)));
			continue;
		}
		(void)edge(B, hp_be_id(f + o, I));
	}
	return end_record(B, from, start);
}

static int on_obj_array(void *ud, uint64_t id, uint64_t class_id, uint32_t n, const uint8_t *e, uint64_t off)
{
	struct builder *B = ud;
	size_t from = obj_of(B, id);
	if (from == SIZE_MAX || hp_heap_kind(B->h, from) != HP_OBJ_OBJARRAY)
		return HP_OK;
	unsigned I = B->h->I;
	size_t start = B->nef;
	for (uint32_t i = 0; i < n; i++)
		(void)edge(B, hp_be_id(e + (size_t)i * I, I));
	return end_record(B, from, start);
}

/* the other objects only advance the file-order counter */
static int on_class_dump(void *ud, const struct hp_class_dump *c)
{
	(void)obj_of(ud, c->id);
	return HP_OK;
}

static int on_prim_array(void *ud, uint64_t id, unsigned type, uint32_t n, const uint8_t *e, uint64_t off, int nodata)
{
	struct builder *B = ud;
	const hp_heap *h = B->h;
	size_t k = B->file_idx;     /* advance only when it is the expected one; never look up */
	if (k < h->nobj && h->ids[h->file_order ? h->file_order[k] : k] == id)
		B->file_idx++;
	return HP_OK;
}

/* edges that come from the model, not from the records */
static int model_edges(struct builder *B)
{
	const hp_heap *h = B->h;
	for (size_t i = 0; i < h->nclasses; i++) {
		const struct hp_class *c = &h->classes[i];
		if (!c->dumped)
			continue;
		size_t from = hp_heap_find(h, c->id);
		if (from == SIZE_MAX)
			continue;
		if (!B->o->no_super_edges)
			HP_TRY(extra_edge(B, from, c->super_id));
		/* statics, then the loader: VisualVM's order, which its paths follow */
		for (uint32_t s = 0; s < c->n_statics; s++) {
			const struct hp_static *st = &h->statics[c->first_static + s];
			if (st->type == HP_T_OBJECT)
				HP_TRY(extra_edge(B, from, st->value));
		}
		HP_TRY(extra_edge(B, from, c->loader_id));
	}
	if (!B->o->thread_locals)
		return HP_OK;
	for (size_t i = 0; i < h->nroots; i++) {
		const struct hp_root_rec *r = &h->roots[i];
		if (!r->has_thread || !hp_root_thread_local(r->kind))
			continue;
		uint32_t t = hp_idmap_get(&h->thread_map, r->thread_serial);
		if (t == HP_IDMAP_NONE || !h->threads[t].object_id)
			continue;
		size_t from = hp_heap_find(h, h->threads[t].object_id);
		if (from == SIZE_MAX)
			continue;
		B->R->thread_edges++;
		HP_TRY(extra_edge(B, from, r->object));
	}
	return HP_OK;
}

static int pass(struct builder *B, const char *path)
{
	hp_reader *r;
	HP_TRY(hp_reader_open(&r, path, B->err));
	struct hp_sink s;
	memset(&s, 0, sizeof s);
	s.ud = B;
	s.instance = on_instance;
	s.obj_array = on_obj_array;
	s.class_dump = on_class_dump;
	s.prim_array = on_prim_array;
	B->file_idx = 0;
	struct hp_parse_opts po;
	hp_parse_opts_init(&po);
	po.dump_index = B->h->opts.dump_index;
	po.want_instance_data = 1;
	po.want_array_data = 1;
	po.progress = B->o->progress;
	po.progress_ud = B->o->progress_ud;
	struct hp_stats st;
	int rc = hp_parse(r, &s, &po, &st, B->err);
	hp_stats_release(&st);
	hp_reader_free(r);
	/* a salvaged model stops where the first pass stopped: same error again */
	if (rc == HP_ETRUNC || rc == HP_ECORRUPT)
		rc = HP_OK;
	return rc;
}

int hp_refs_build(const hp_heap *h, const char *path, const struct hp_refs_opts *o,
		  struct hp_refs *R, struct hp_error *err)
{
	memset(R, 0, sizeof *R);
	struct builder B = { .h = h, .o = o, .R = R, .err = err, .in_order = 1, .last_v = SIZE_MAX };
	size_t n = h->nobj;
	R->n = n;
	R->off = hp_calloc(n + 1, sizeof *R->off);
	B.lay = hp_calloc(h->nclasses ? h->nclasses : 1, sizeof *B.lay);
	int rc = HP_OK;
	if (!R->off || !B.lay) {
		rc = hp_error_set(err, HP_ENOMEM, "out of memory for the reference graph");
		goto out;
	}
	/* one pass: each record's edges go to ef[] in file order, off[v + 1]
	 * counts them, blk[] says whose they are (unless in order) */
	if ((rc = pass(&B, path)) != HP_OK || (rc = model_edges(&B)) != HP_OK)
		goto nomem_or_rc;
	for (size_t i = 0; i < n; i++)
		R->off[i + 1] += R->off[i];
	R->nedges = R->off[n];
	if (B.in_order) {
		if ((rc = merge_in_place(&B)) != HP_OK)
			goto nomem_or_rc;
		goto placed;
	}
	/* into object order: off[v] is v's write cursor until the shift back */
	R->adj = hp_reallocarray(NULL, R->nedges ? R->nedges : 1, sizeof *R->adj);
	if (!R->adj) {
		rc = hp_error_set(err, HP_ENOMEM, "out of memory for %llu references",
				  (unsigned long long)R->nedges);
		goto out;
	}
	{
		size_t p = 0;
		for (size_t b = 0; b < B.nblk; b++) {
			uint32_t v = B.blk[b].v, k = B.blk[b].k;
			memcpy(R->adj + R->off[v], B.ef + p, (size_t)k * sizeof *R->adj);
			R->off[v] += k;
			p += k;
		}
		hp_free(B.ef);
		B.ef = NULL;
		for (size_t x = 0; x < B.nextra; x++)   /* after the records' edges */
			R->adj[R->off[B.extra[x][0]]++] = B.extra[x][1];
	}
	memmove(R->off + 1, R->off, n * sizeof *R->off);
	R->off[0] = 0;
placed:
	rc = hp_refs_narrow(R);
nomem_or_rc:
	if (rc == HP_ENOMEM && err->code == HP_OK)
		hp_error_set(err, HP_ENOMEM, "out of memory for the references (%zu so far)", B.nef);
out:
	hp_free(B.ef);
	hp_free(B.blk);
	hp_free(B.extra);
	if (B.lay) {
		for (size_t i = 0; i < h->nclasses; i++)
			hp_free(B.lay[i].offs);
		hp_free(B.lay);
	}
	if (rc && rc != HP_OK) {
		if (err->code == HP_OK)
			hp_error_set(err, rc, "cannot build the reference graph");
		hp_refs_release(R);
	}
	return rc;
}

int hp_refs_narrow(struct hp_refs *r)
{
	if (!r->off || r->nedges > UINT32_MAX)
		return HP_OK;
	/* entry i moves from byte 8i to byte 4i: it never lands on an entry not
	 * yet read (memcpy: the block is read as one type and written as another) */
	unsigned char *b = (unsigned char *)r->off;
	for (size_t i = 0; i <= r->n; i++) {
		uint64_t v;
		memcpy(&v, b + 8 * i, sizeof v);
		uint32_t w = (uint32_t)v;
		memcpy(b + 4 * i, &w, sizeof w);
	}
	uint32_t *shrunk = hp_realloc(b, (r->n + 1) * sizeof *shrunk);
	r->off32 = shrunk ? shrunk : (uint32_t *)(void *)b;   /* a failed shrink keeps the bigger block */
	r->off = NULL;
	return HP_OK;
}

int hp_refs_widen(struct hp_refs *r)
{
	if (!r->off32)
		return HP_OK;
	uint64_t *o = hp_reallocarray(NULL, r->n + 1, sizeof *o);
	if (!o)
		return HP_ENOMEM;
	for (size_t i = 0; i <= r->n; i++)
		o[i] = r->off32[i];
	hp_free(r->off32);
	r->off32 = NULL;
	r->off = o;
	return HP_OK;
}

void hp_refs_release(struct hp_refs *r)
{
	hp_free(r->off32);
	hp_free(r->off);
	hp_free(r->adj);
	hp_free(r->referents);
	hp_free(r->followed);
	memset(r, 0, sizeof *r);
}
