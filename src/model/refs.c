/*
 * refs.c — hp_refs_build() (refs.h): the dump re-read with a sink that
 * resolves each record's references to object numbers, in file order, then
 * in object order with the model's edges (statics, super class, loader,
 * thread locals) merged in; class edges, the weak policy, the narrowing of
 * edge offsets to 32 bits.
 */
#include "model/refs.h"
#include "model/layout.h"
#include "base/alloc.h"
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

struct builder {
	const hp_heap *h;
	const struct hp_refs_opts *o;
	struct hp_refs *R;
	struct hp_layout lay; /* where each class's instances keep references */
	uint64_t max_layout;  /* the most field bytes a layout reads (at least 1) */
	size_t part_from, part_start;   /* the object array coming in parts, its first edge */
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
	/* class edges: bit v set once v's is taken (becomes hp_refs.class_gap) */
	uint8_t *has_class;
};

/* Grows *p (of *cap elements of `size` bytes) to hold one more; 0 on failure. */
static int grow(void *pp, size_t *cap, size_t have, size_t size, size_t first)
{
	void **p = pp;
	if (have < *cap)
		return 1;
	void *q = hp_grow(*p, cap, have + 1, first, size);
	if (!q)
		return 0;
	*p = q;
	return 1;
}

/* The object number of the record with this id at this offset: the next
 * object in file order as the model saw it (no lookup), or, when the model
 * skipped a record (a repeated CLASS DUMP, say), a lookup that leaves the
 * order alone; SIZE_MAX when the object with that id is another record's
 * (under --dump all, a later dump's repeat of an object the model took
 * from an earlier one). */
static inline size_t obj_of(struct builder *B, uint64_t id, uint64_t off)
{
	const hp_heap *h = B->h;
	size_t k = B->file_idx;
	if (k < h->nobj) {
		size_t v = h->file_order ? h->file_order[k] : k;
		if (hp_heap_id(h, v) == id) {
			B->file_idx++;
			return v;
		}
	}
	return hp_heap_find_record(h, id, off);
}

int hp_refs_reference_kind(const hp_heap *h, uint32_t cls)
{
	/* walk up the chain (bounded: a loop cannot make it run forever) */
	uint32_t c = cls;
	for (size_t depth = 0; c != HP_NONE && depth < h->nclasses; depth++) {
		int k = hp_layout_name_kind(hp_class_name(h, c));
		if (k)
			return k;
		c = h->classes[c].super;
	}
	return 0;
}

/* VisualVM's skip: the four reference classes of the JDK; ahat's
 * skip-weak: all but soft, Android's FinalizerReference included */
static int skip_kind(int policy, int kind)
{
	if (!kind)
		return 0;
	if (policy == HP_WEAK_SKIP)
		return kind <= 4;
	if (policy == HP_WEAK_SKIP_WEAK)
		return kind != 1;
	return 0;
}

/* A reference of the record being read: resolved now; ids the dump does
 * not hold are counted and dropped.  Returns the target or SIZE_MAX.
 * (extra_edge() resolves its ids the same way; this copy is the hot path's,
 * written out: through a shared inline function the references pass ran
 * 0.7% more instructions, callgrind.) */
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

/* v's class edge (refs.h), when the graph has them and v has one: the
 * first edge of its record, implicit (only marked taken). */
static inline void class_edge(struct builder *B, size_t v)
{
	if (!B->has_class || hp_refs_class_of(B->R, v) == HP_NONE)
		return;
	uint8_t bit = (uint8_t)(1u << (v & 7));
	if (!(B->has_class[v >> 3] & bit)) {
		B->has_class[v >> 3] |= bit;
		B->R->nclass_edges++;
	}
}

/* has_class -> class_gap: the objects that would have a class edge and
 * did not get one; none (the usual case) frees the bitmap */
static void class_gaps(struct builder *B)
{
	struct hp_refs *R = B->R;
	if (!B->has_class)
		return;
	size_t n = R->n, gaps = 0;
	for (size_t v = 0; v < n; v++) {
		uint8_t bit = (uint8_t)(1u << (v & 7));
		int want = hp_refs_class_of(R, v) != HP_NONE, has = !!(B->has_class[v >> 3] & bit);
		if (want && !has) {
			B->has_class[v >> 3] |= bit;
			gaps++;
		} else {
			B->has_class[v >> 3] &= (uint8_t)~bit;
		}
	}
	if (gaps) {
		R->class_gap = B->has_class;
		R->class_gap_bytes = n / 8 + 1;
	} else {
		hp_free(B->has_class);
	}
	B->has_class = NULL;
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

static int on_instance(void *ud, uint64_t id, uint32_t serial, uint64_t class_id, const uint8_t *f, uint32_t len,
		       uint64_t off)
{
	struct builder *B = ud;
	const hp_heap *h = B->h;
	size_t from = obj_of(B, id, off);
	if (from == SIZE_MAX || hp_heap_kind(h, from) != HP_OBJ_INSTANCE)
		return HP_OK;
	uint32_t cls = h->cls[from];
	if (len < B->lay.bytes[cls])
		B->R->short_instances++;
	int skip = skip_kind(B->o->weak, B->lay.kind[cls]);
	uint64_t avail = len < B->max_layout ? len : B->max_layout;   /* what the parser read */
	size_t start = B->nef;
	class_edge(B, from);
	struct hp_layout_walk w;
	for (hp_layout_walk_init(&w, &B->lay, cls); hp_layout_walk_next(&w, avail, h->I); ) {
		uint64_t ref = hp_be_id(f + w.off, h->I);
		/* list_followed: a referent the policy follows is an edge, listed */
		if (!skip && w.is_referent && B->o->list_followed) {
			size_t to = edge(B, ref);
			if (to != SIZE_MAX)
				HP_TRY(note_followed(B, from, to));
			continue;
		}
		if (skip && w.is_referent) {
			if (ref)
				B->R->weak_skipped++;
			if (B->o->mark_referents)
				HP_TRY(note_referent(B, from, ref));
			continue;
		}
		(void)edge(B, ref);
	}
	return end_record(B, from, start);
}

static int on_obj_array(void *ud, uint64_t id, uint32_t serial, uint64_t class_id, uint32_t n, const uint8_t *e,
			uint64_t off)
{
	struct builder *B = ud;
	size_t from = obj_of(B, id, off);
	if (from == SIZE_MAX || hp_heap_kind(B->h, from) != HP_OBJ_OBJARRAY)
		return HP_OK;
	unsigned I = B->h->I;
	size_t start = B->nef;
	class_edge(B, from);
	for (uint32_t i = 0; i < n; i++)
		(void)edge(B, hp_be_id(e + (size_t)i * I, I));
	return end_record(B, from, start);
}

/* a big object array, part by part (the parser's obj_array_chunk) */
static int on_obj_array_part(void *ud, uint64_t id, uint32_t serial, uint64_t class_id, uint32_t n, uint32_t first,
			     uint32_t k, const uint8_t *e, uint64_t off)
{
	struct builder *B = ud;
	if (first == 0) {
		B->part_from = obj_of(B, id, off);
		if (B->part_from != SIZE_MAX && hp_heap_kind(B->h, B->part_from) != HP_OBJ_OBJARRAY)
			B->part_from = SIZE_MAX;
		B->part_start = B->nef;
	}
	if (B->part_from == SIZE_MAX)
		return HP_OK;
	unsigned I = B->h->I;
	for (uint32_t i = 0; i < k; i++)
		(void)edge(B, hp_be_id(e + (size_t)i * I, I));
	if (first + k < n)
		return B->nomem ? HP_ENOMEM : HP_OK;
	size_t from = B->part_from;
	B->part_from = SIZE_MAX;
	class_edge(B, from);   /* (taken once the array is whole) */
	return end_record(B, from, B->part_start);
}

/* the other objects only advance the file-order counter */
static int on_class_dump(void *ud, const struct hp_class_dump *c)
{
	(void)obj_of(ud, c->id, c->offset);
	return HP_OK;
}

static int on_prim_array(void *ud, uint64_t id, uint32_t serial, unsigned type, uint32_t n, const uint8_t *e,
			 uint64_t off, int nodata)
{
	struct builder *B = ud;
	const hp_heap *h = B->h;
	if (B->R->class_obj) {      /* its one edge, to its class */
		size_t from = obj_of(B, id, off);
		if (from == SIZE_MAX || hp_heap_kind(h, from) != HP_OBJ_PRIMARRAY)
			return HP_OK;
		class_edge(B, from);
		return HP_OK;
	}
	size_t k = B->file_idx;     /* advance only when it is the expected one; never look up */
	if (k < h->nobj && hp_heap_id(h, h->file_order ? h->file_order[k] : k) == id)
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
		class_edge(B, from);   /* first: java.lang.Class (implicit) */
		if (!B->o->no_super_edges)
			HP_TRY(extra_edge(B, from, c->super_id));
		/* statics, then the loader: VisualVM's order, which its paths follow */
		for (uint32_t s = 0; s < c->n_statics; s++) {
			const struct hp_static *st = &h->statics[c->first_static + s];
			if (st->type == HP_T_OBJECT)
				HP_TRY(extra_edge(B, from, st->value));
		}
		if (!B->o->no_loader_edges)
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
	s.obj_array_part = on_obj_array_part;
	s.class_dump = on_class_dump;
	s.prim_array = on_prim_array;
	B->file_idx = 0;
	struct hp_parse_opts po;
	hp_parse_opts_init(&po);
	po.dump_index = B->h->opts.dump_index;
	po.want_instance_data = 1;
	po.want_array_data = 1;
	/* only the bytes of the longest layout and no primitive array's
	 * elements are read: a record of gigabytes is streamed past */
	po.instance_data_max = B->max_layout;
	po.no_prim_array_data = 1;
	po.obj_array_chunk = 1u << 16;
	po.progress = B->o->progress;
	po.progress_ud = B->o->progress_ud;
	hp_parse_object_thread(&po);   /* (the references decoded beside the reading) */
	struct hp_stats st;
	int rc = hp_parse(r, &s, &po, &st, B->err);
	hp_stats_release(&st);
	hp_reader_free(r);
	if (B->part_from != SIZE_MAX) {
		/* an object array cut short after some of its parts: none of its
		 * edges, as when it comes whole */
		B->nef = B->part_start;
		B->part_from = SIZE_MAX;
	}
	/* a salvaged model stops where the first pass stopped: same error again */
	if (rc == HP_ETRUNC || rc == HP_ECORRUPT)
		rc = HP_OK;
	return rc;
}

int hp_refs_build(const hp_heap *h, const char *path, const struct hp_refs_opts *o,
		  struct hp_refs *R, struct hp_error *err)
{
	memset(R, 0, sizeof *R);
	struct builder B = { .h = h, .o = o, .R = R, .err = err, .in_order = 1, .last_v = SIZE_MAX,
			     .part_from = SIZE_MAX };
	size_t n = h->nobj;
	R->n = n;
	R->off = hp_calloc(n + 1, sizeof *R->off);
	int rc = HP_OK;
	if (!R->off || hp_layout_build(h, &B.lay) != HP_OK) {
		rc = hp_error_set(err, HP_ENOMEM, "out of memory for the reference graph");
		goto out;
	}
	B.max_layout = 1;
	for (size_t c = 0; c < h->nclasses; c++)
		if (B.lay.bytes[c] > B.max_layout)
			B.max_layout = B.lay.bytes[c];
	if (o->class_edges && n) {
		R->class_obj = hp_reallocarray(NULL, h->nclasses ? h->nclasses : 1, sizeof *R->class_obj);
		if (!R->class_obj) {
			rc = hp_error_set(err, HP_ENOMEM, "out of memory for the reference graph");
			goto out;
		}
		for (size_t c = 0; c < h->nclasses; c++) {
			size_t k = h->classes[c].dumped ? hp_heap_find(h, h->classes[c].id) : SIZE_MAX;
			R->class_obj[c] = k != SIZE_MAX && hp_heap_kind(h, k) == HP_OBJ_CLASS ? (uint32_t)k : HP_NONE;
		}
		R->obj_cls = h->cls;
		R->nclasses = h->nclasses;
		B.has_class = hp_calloc(n / 8 + 1, 1);
		if (!B.has_class) {
			rc = hp_error_set(err, HP_ENOMEM, "out of memory for the reference graph");
			goto out;
		}
	}
	/* one pass: each record's edges go to ef[] in file order, off[v + 1]
	 * counts them, blk[] says whose they are (unless in order) */
	if ((rc = pass(&B, path)) != HP_OK || (rc = model_edges(&B)) != HP_OK)
		goto nomem_or_rc;
	class_gaps(&B);
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
	hp_free(B.has_class);
	hp_layout_release(&B.lay);
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
	hp_free_all(r->class_obj, r->class_gap, r->off32, r->off, r->adj, r->referents, r->followed);
	memset(r, 0, sizeof *r);
}
