/* index_check.c — what a mapped index holds, checked before it is used:
 * every index, offset and count of the model in range, no loop a walk
 * could follow forever, the dominator tree, the children lists, the
 * reference graphs and the path search consistent; each safe on any bytes
 * (index_format.h, index.h). */
#include "session/index_format.h"
#include "base/alloc.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* the checks' random reads (an object's dominator, its parent's depth)
 * asked for this many entries ahead, so that they overlap */
#define PREFETCH_AHEAD 16
static void prefetch_at(const uint32_t *a, uint32_t i, uint64_t n)
{
#if defined(__GNUC__) || defined(__clang__)
	if (i < n)
		__builtin_prefetch(a + i);
#else
	(void)a, (void)i, (void)n;
#endif
}

/* a bit set over n entries, for the checks below */
static uint8_t *bits_new(uint64_t n) { return hp_calloc((size_t)(n / 8 + 1), 1); }
static int bit_test_set(uint8_t *b, uint64_t i)
{
	int was = (b[i >> 3] >> (i & 7)) & 1;
	b[i >> 3] |= (uint8_t)(1u << (i & 7));
	return was;
}

static int check_map(const struct hp_idmap *m, uint64_t limit)
{
	if (!m->cap)
		return m->n == 0 && !m->keys && !m->vals ? 0 : -1;
	if ((m->cap & (m->cap - 1)) || m->n > m->cap || !m->keys || !m->vals)
		return -1;
	size_t empty = 0;
	for (size_t i = 0; i < m->cap; i++) {
		if (m->vals[i] == HP_IDMAP_NONE)
			empty++;
		else if (m->vals[i] >= limit)
			return -1;
	}
	return empty ? 0 : -1;   /* a lookup stops at an empty slot */
}

/* a header as the parser takes it: one of the three formats, its version
 * and id size */
static int check_header(const struct hp_header *hh)
{
	static const char *const formats[3] = { "JAVA PROFILE 1.0.1", "JAVA PROFILE 1.0.2", "JAVA PROFILE 1.0.3" };
	if (hh->version < 1 || hh->version > 3 || (hh->id_size != 4 && hh->id_size != 8))
		return -1;
	const char *f = formats[hh->version - 1];
	return memchr(hh->format, 0, sizeof hh->format) && strcmp(hh->format, f) == 0 ? 0 : -1;
}

static int valid_type(unsigned t) { return t == 2 || (t >= 4 && t <= 11); }

/* the model: every index, offset and count in range, no cycle a walk can
 * follow forever */
static int check_heap(const hp_heap *h, char *why, size_t why_len)
{
	uint8_t *seen = NULL;
	if (check_header(&h->header))
		BAD("header out of range");
	if ((h->I != 4 && h->I != 8) || h->header.id_size != h->I)
		BAD("id size %u", h->I);
	if (!h->opts.build_objects)
		BAD("no object table");
	if (h->nobj > HP_DOM_MAX_NODES)
		BAD("%zu objects", h->nobj);
	if (!h->text || h->text_len < 1 || h->text[h->text_len - 1] != '\0' || h->text[0] != '\0')
		BAD("text table not terminated");
	if (h->nstr && (!h->arena || !h->str_off || !h->str_len))
		BAD("string table missing");
	for (size_t i = 0; i < h->nstr; i++)
		if (h->str_off[i] >= h->arena_len || h->str_len[i] >= h->arena_len - h->str_off[i] ||
		    h->arena[h->str_off[i] + h->str_len[i]] != '\0')
			BAD("string %zu out of range", i);
	if (check_map(&h->str_map, h->nstr) || check_map(&h->class_map, h->nclasses) ||
	    check_map(&h->serial_map, h->nclasses) || check_map(&h->frame_map, h->nframes) ||
	    check_map(&h->trace_map, h->ntraces) || check_map(&h->thread_map, h->nthreads))
		BAD("id map inconsistent");
	if (h->nclasses >= HP_NONE || h->nrows >= HP_NONE)
		BAD("too many classes");
	if (h->nclasses && !h->classes)
		BAD("class table missing");
	for (size_t k = 0; k < h->nclasses; k++) {
		const struct hp_class *c = &h->classes[k];
		if (c->name >= h->text_len || (c->super != HP_NONE && c->super >= h->nclasses) ||
		    (uint64_t)c->first_field + c->n_fields > h->nfields ||
		    (uint64_t)c->first_static + c->n_statics > h->nstatics || c->kind > HP_CK_PRIMARRAY ||
		    c->elem_type >= 12 || c->heap >= HP_MAX_HEAPS || (c->row != HP_NONE && c->row >= h->nrows))
			BAD("class %zu out of range", k);
	}
	/* super chains end: 1 on the walk now, 2 known to end */
	if (h->nclasses) {
		seen = hp_calloc(h->nclasses, 1);
		if (!seen)
			BAD("out of memory");
		for (size_t k = 0; k < h->nclasses; k++) {
			uint32_t c = (uint32_t)k;
			while (c != HP_NONE && !seen[c]) {
				seen[c] = 1;
				c = h->classes[c].super;
			}
			if (c != HP_NONE && seen[c] == 1)
				BAD("class %zu: its super classes loop", k);
			for (c = (uint32_t)k; c != HP_NONE && seen[c] == 1; c = h->classes[c].super)
				seen[c] = 2;
		}
		hp_free(seen);
		seen = NULL;
	}
	for (size_t i = 0; i < h->nfields; i++)
		if (!valid_type(h->fields[i].type))
			BAD("field %zu type", i);
	for (size_t i = 0; i < h->nstatics; i++)
		if (!valid_type(h->statics[i].type))
			BAD("static %zu type", i);
	for (size_t i = 0; i < 12; i++)
		if (h->prim_class[i] != HP_NONE && h->prim_class[i] >= h->nclasses)
			BAD("primitive class out of range");
	if ((h->jlc != HP_NONE && h->jlc >= h->nclasses) || (h->jlo != HP_NONE && h->jlo >= h->nclasses))
		BAD("class index out of range");
	for (size_t r = 0; r < h->nrows; r++) {
		const struct hp_hrow *w = &h->rows[r];
		if (w->cls >= h->nclasses || (w->next != HP_NONE && w->next >= h->nrows) || w->heap >= HP_MAX_HEAPS ||
		    w->count > h->nobj || w->class_objs > h->nobj)
			BAD("histogram row %zu out of range", r);
	}
	if (h->nrows) {
		if (!(seen = bits_new(h->nrows)))
			BAD("out of memory");
		for (size_t k = 0; k < h->nclasses; k++)
			for (uint32_t r = h->classes[k].row; r != HP_NONE; r = h->rows[r].next)
				if (bit_test_set(seen, r))
					BAD("histogram rows loop");
		hp_free(seen);
		seen = NULL;
	}
	for (size_t i = 0; i < h->ntraces; i++)
		if ((uint64_t)h->traces[i].first + h->traces[i].n > h->ntrace_frames)
			BAD("trace %zu out of range", i);
	for (size_t i = 0; i < h->nroots; i++)
		if (h->roots[i].kind >= HP_ROOT_NKINDS || h->roots[i].heap >= HP_MAX_HEAPS)
			BAD("root %zu out of range", i);
	/* the hprof agent's records: each one's entries inside their table */
	for (size_t i = 0; i < h->nalloc_recs; i++)
		if ((uint64_t)h->alloc_recs[i].first + h->alloc_recs[i].k > h->nalloc_sites)
			BAD("ALLOC SITES record %zu out of range", i);
	for (size_t i = 0; i < h->ncpu_recs; i++)
		if ((uint64_t)h->cpu_recs[i].first + h->cpu_recs[i].k > h->ncpu_samples)
			BAD("CPU SAMPLES record %zu out of range", i);
	if (h->nheaps > HP_MAX_HEAPS)
		BAD("%u heaps", h->nheaps);
	for (size_t i = 0; i < HP_MAX_HEAPS; i++)
		if (h->heap_name[i] >= h->text_len)
			BAD("heap name out of range");
	for (size_t i = 0; i < h->nwarnings; i++)
		if (h->warnings[i] >= h->text_len)
			BAD("warning out of range");
	if (h->n_instances > h->nobj || h->n_objarrays > h->nobj || h->n_primarrays > h->nobj ||
	    h->n_classobjs > h->nobj)
		BAD("object counts exceed the object table");
	const struct hp_size_model *z = &h->size;
	if (z->kind < HP_SIZE_MAT || z->kind > HP_SIZE_VM || (z->id_size != 4 && z->id_size != 8) ||
	    (z->ref_size != 4 && z->ref_size != 8) || !z->align || (z->align & (z->align - 1)) || z->align > 4096 ||
	    z->header > 4096 || z->array_header > 4096 || (z->vm.jdk15 != 0 && z->vm.jdk15 != 1))
		BAD("size model out of range");
	if (h->nobj) {
		if (!h->ids == !h->ids32 || !h->cls || !h->len || !h->off_lo || !h->off_hi || !h->bucket)
			BAD("object columns missing");
		if (h->id_shift >= 64)
			BAD("id shift %u", h->id_shift);
		for (size_t i = 0; i < h->nobj; i++) {
			if (h->cls[i] >= h->nclasses)
				BAD("object %zu: class out of range", i);
			if (i && (h->ids32 ? h->ids32[i] < h->ids32[i - 1] : h->ids[i] < h->ids[i - 1]))
				BAD("object ids not sorted");
		}
		if (h->bucket_shift >= 64 || h->min_id != hp_heap_id(h, 0) || h->nbuckets == 0 || h->nbuckets > h->nobj + 1)
			BAD("id index out of range");
		for (size_t b = 0; b <= h->nbuckets; b++)
			if (h->bucket[b] > h->nobj || (b && h->bucket[b] < h->bucket[b - 1]))
				BAD("id index out of range");
		if (h->file_order)
			for (size_t i = 0; i < h->nobj; i++)
				if (h->file_order[i] >= h->nobj)
					BAD("file order out of range");
	} else if (h->bucket || h->nbuckets || h->file_order) {
		BAD("id index without objects");
	}
	return 0;
bad:
	hp_free(seen);
	return -1;
}

static int check_load(const hp_heap *h, const struct hp_load_info *L, char *why, size_t why_len)
{
	const struct hp_stats *st = &L->stats;
	if (check_header(&st->header) || st->header.id_size != h->header.id_size)
		BAD("header out of range");
	if (st->parsed_dump < -1 || (st->parsed_dump >= 0 && (unsigned)st->parsed_dump >= st->ndumps))
		BAD("dump number out of range");
	if (st->ndumps && !st->dumps)
		BAD("dump table missing");
	for (unsigned i = 0; i < st->ndumps; i++)
		if (st->dumps[i].offset > st->dumps[i].end)
			BAD("dump %u out of range", i);
	/* what the parser counts: only the sub-records it knows (it stops at
	 * any other), so each has a name */
	for (int t = 0; t < 256; t++)
		if (st->subrecords_by_tag[t] && !hp_subtag_name(t))
			BAD("sub-record tag 0x%02x counted", t);
	if (!memchr(L->partial_err.msg, 0, sizeof L->partial_err.msg))
		BAD("message not terminated");
	return 0;
bad:
	return -1;
}

/* a reference graph in CSR form over the model's objects */
static int check_graph(const hp_heap *h, const struct hp_refs *g, char *why, size_t why_len)
{
	uint64_t n = h->nobj;
	if (g->n != n)
		BAD("graph size differs from the model's");
	if (!!g->off == !!g->off32)
		BAD("edge offsets missing");
	if (g->nedges && !g->adj)
		BAD("edges missing");
	if (hp_refs_off(g, 0) != 0 || hp_refs_off(g, n) != g->nedges)
		BAD("edge offsets out of range");
	for (uint64_t v = 0; v < n; v++)
		if (hp_refs_off(g, v + 1) < hp_refs_off(g, v))
			BAD("edge offsets not monotonic");
	for (uint64_t e = 0; e < g->nedges; e++)
		if (g->adj[e] >= n)
			BAD("edge %llu out of range", (unsigned long long)e);
	for (size_t i = 0; i < g->nreferents; i++)
		if (g->referents[i][0] >= n || g->referents[i][1] >= n)
			BAD("referent out of range");
	for (size_t i = 0; i < g->nfollowed; i++)
		if (g->followed[i][0] >= n || g->followed[i][1] >= n)
			BAD("referent out of range");
	if (g->class_obj)
		for (size_t k = 0; k < h->nclasses; k++)
			if (g->class_obj[k] != HP_NONE && g->class_obj[k] >= n)
				BAD("class object out of range");
	/* the implicit class edges (refs.h): their gaps a bit per object, and
	 * as many as the graph says */
	if (!g->class_obj && (g->nclasses || g->class_gap_bytes || g->nclass_edges))
		BAD("class edges without class objects");
	if (g->class_obj && g->nclasses != h->nclasses)
		BAD("class objects of %llu classes, want %llu", (unsigned long long)g->nclasses,
		    (unsigned long long)h->nclasses);
	if (g->class_gap_bytes && (!g->class_gap || g->class_gap_bytes != n / 8 + 1))
		BAD("class edge gaps of %llu bytes", (unsigned long long)g->class_gap_bytes);
	if (g->class_obj) {
		uint64_t nc = 0;
		for (uint64_t v = 0; v < n; v++)
			nc += hp_refs_class_edge(g, v) != HP_NONE;
		if (nc != g->nclass_edges)
			BAD("%llu class edges, the graph says %llu", (unsigned long long)nc,
			    (unsigned long long)g->nclass_edges);
	}
	return 0;
bad:
	return -1;
}

/* the path search: its graph, and a parent one edge nearer a start */
static int check_paths(const hp_heap *h, const struct hp_pathsearch *ps, char *why, size_t why_len)
{
	uint64_t n = h->nobj;
	if (ps->all_weak != 0 || ps->P.n != n || ps->P.reached > n || ps->P.through_class > n)
		BAD("path search out of range");
	/* the tables as the search without targets the session runs writes
	 * them (readers subtract the bias from every entry: another one
	 * would make each parent another object) */
	if (ps->P.bias != 0)
		BAD("path search bias %u", ps->P.bias);
	if (check_graph(h, &ps->g, why, why_len))
		return -1;
	if (n && (!ps->P.parent || !ps->P.depth))
		BAD("path tables missing");
	const struct hp_paths *P = &ps->P;
	for (uint64_t v = 0; v < n; v++) {
		uint32_t p = hp_paths_parent(P, v), d = hp_paths_depth(P, v);
		if (v + PREFETCH_AHEAD < n)
			prefetch_at(P->depth, P->parent[v + PREFETCH_AHEAD], n);
		int ok = p == HP_PATH_UNSEEN ? d == UINT32_MAX : p == HP_PATH_START ? d == 0
			 : p < n && d != UINT32_MAX && hp_paths_depth(P, p) != UINT32_MAX && d == hp_paths_depth(P, p) + 1;
		if (!ok)
			BAD("path parent of %llu inconsistent", (unsigned long long)v);
	}
	return 0;
bad:
	return -1;
}

/* what the values are read by: retained sizes and root kinds are numbers
 * (any value is safe), an object's dominator is shown, never followed, by
 * their readers (which check it is an object); the roots are looked up */
static int check_values(const hp_heap *h, const struct hp_retained *R, char *why, size_t why_len)
{
	uint64_t n = h->nobj;
	if (R->weak < 0 || R->weak > HP_WEAK_SKIP_WEAK || R->roots_policy < 0 || R->roots_policy > HP_ROOTS_UNREACHABLE)
		BAD("policy out of range");
	if (R->dom.n != n || R->dom.nreach > n || R->nmade_roots > n)
		BAD("graph size differs from the model's");
	if (!R->dom.idom || !R->retained || !R->root_objs || !R->root_kinds || !R->class_retained || !R->row_retained)
		BAD("retained tables missing");
	for (size_t i = 0; i < R->nroot_objs; i++)
		if (R->root_objs[i] >= n || (i && R->root_objs[i] <= R->root_objs[i - 1]))
			BAD("root object out of range");   /* (sorted, unique: looked up by binary search) */
	return 0;
bad:
	return -1;
}

/* the tree walks follow: every dominator an object, the order */
static int check_retained(const hp_heap *h, const struct hp_retained *R, char *why, size_t why_len)
{
	uint8_t *seen = NULL;
	uint64_t n = h->nobj;
	if (check_values(h, R, why, why_len))
		return -1;
	if (!R->dom.order || !R->child_off || !R->children)
		BAD("retained tables missing");
	/* the dominator tree: order lists each reachable object once, its
	 * idom before it */
	uint64_t reach = 0;
	for (uint64_t v = 0; v < n; v++) {
		uint32_t d = R->dom.idom[v];
		if (d != HP_DOM_SUPER && d != HP_DOM_UNREACHABLE && d >= n)
			BAD("dominator of %llu out of range", (unsigned long long)v);
		reach += d != HP_DOM_UNREACHABLE;
	}
	if (reach != R->dom.nreach)
		BAD("dominator order length");
	if (!(seen = bits_new(n)))
		BAD("out of memory");
	for (uint32_t i = 0; i < R->dom.nreach; i++) {
		uint32_t v = R->dom.order[i], d;
		if (i + PREFETCH_AHEAD < R->dom.nreach)
			prefetch_at(R->dom.idom, R->dom.order[i + PREFETCH_AHEAD], n);
		if (v >= n || (d = R->dom.idom[v]) == HP_DOM_UNREACHABLE ||
		    (d != HP_DOM_SUPER && !((seen[d >> 3] >> (d & 7)) & 1)) || bit_test_set(seen, v))
			BAD("dominator order inconsistent");
	}
	hp_free(seen);
	seen = NULL;
	return 0;
bad:
	hp_free(seen);
	return -1;
}

/* the children lists: those of v are the objects whose idom is v (any
 * idom value is safe to compare here) */
static int check_children(const hp_heap *h, const struct hp_retained *R, char *why, size_t why_len)
{
	uint64_t n = h->nobj;
	if (R->dom.n != n || R->dom.nreach > n || !R->dom.idom || !R->child_off || !R->children)
		BAD("retained tables missing");
	if (R->child_off[0] != 0 || R->child_off[n + 1] != R->dom.nreach)
		BAD("dominator children out of range");
	for (uint64_t v = 0; v <= n; v++) {
		if (R->child_off[v + 1] < R->child_off[v])
			BAD("dominator children not monotonic");
		for (uint32_t j = R->child_off[v]; j < R->child_off[v + 1]; j++) {
			uint32_t c = R->children[j];
			if (j + PREFETCH_AHEAD < R->dom.nreach)
				prefetch_at(R->dom.idom, R->children[j + PREFETCH_AHEAD], n);
			if (c >= n || R->dom.idom[c] != (v == n ? HP_DOM_SUPER : (uint32_t)v))
				BAD("dominator child inconsistent");
		}
	}
	return 0;
bad:
	return -1;
}

static void *beside_main(void *arg)
{
	struct ix_beside *b = arg;
	b->rc = b->fn ? b->fn(b->h, b->x, b->why, sizeof b->why) : 0;
	return NULL;
}

void ix_beside_start(struct ix_beside *b, ix_check_fn *fn, const hp_heap *h, const void *x)
{
	*b = (struct ix_beside){ .fn = fn, .h = h, .x = x };
	b->threaded = fn && pthread_create(&b->th, NULL, beside_main, b) == 0;
}

int ix_beside_end(struct ix_beside *b, int rc, char *why, size_t why_len)
{
	if (b->threaded)
		pthread_join(b->th, NULL);
	else if (!rc)
		beside_main(b);
	if (!rc && b->rc) {
		ix_set_why(why, why_len, "%s", b->why);
		rc = -1;
	}
	return rc;
}

static int children_beside(const hp_heap *h, const void *R, char *why, size_t why_len)
{
	return check_children(h, R, why, why_len);
}

/* the tree's checks: the children lists beside the rest (they read
 * different arrays at random) */
static int check_tree(const hp_heap *h, const struct hp_retained *R, char *why, size_t why_len)
{
	struct ix_beside b;
	ix_beside_start(&b, children_beside, h, R);
	return ix_beside_end(&b, check_retained(h, R, why, why_len), why, why_len);
}

/* what the images say that the header says too: the options the model
 * was made under (the key; the dump number tells the graph's and the
 * object reader's passes which heap dump to read), the retained sizes'
 * policies */
static int check_images(const hp_heap *h, const hp_index *ix, char *why, size_t why_len)
{
	const struct hp_heap_opts *o = &h->opts;
	const struct hp_index_key *k = &ix->hd.key;
	if (o->size_kind != k->size_kind || o->ref_size != k->ref_size || o->header_size != k->header_size ||
	    o->align != k->align || o->dump_index != k->dump_index)
		BAD("model options differ from the header's");
	if (ix->hd.has_retained && (ix->ret.weak != ix->hd.weak || ix->ret.roots_policy != ix->hd.roots))
		BAD("retained policies differ from the header's");
	return 0;
bad:
	return -1;
}

/* the model's checks (steps 4 and 5) */
int ix_check_model(const hp_heap *h, const void *x, char *why, size_t why_len)
{
	const hp_index *ix = x;
	return check_heap(h, why, why_len) || check_load(h, &ix->info, why, why_len) ||
	       check_images(h, ix, why, why_len);
}

int ix_check_values(const hp_heap *h, const void *R, char *why, size_t why_len)
{
	return check_values(h, R, why, why_len);
}

int ix_check_tree(const hp_heap *h, const void *R, char *why, size_t why_len)
{
	return check_tree(h, R, why, why_len);
}

int ix_check_graph(const hp_heap *h, const void *g, char *why, size_t why_len)
{
	return check_graph(h, g, why, why_len);
}

int ix_check_paths(const hp_heap *h, const void *ps, char *why, size_t why_len)
{
	return check_paths(h, ps, why, why_len);
}
