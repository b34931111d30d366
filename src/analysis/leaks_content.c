/* leaks_content.c — what a leak suspect holds, in the user's terms
 * (leaks.h): the collection that owns the accumulation point and its size,
 * the point's retained set by class, and the objects the set's lambdas and
 * inner classes capture.  Cost: one walk of the point's dominator subtree
 * (a class suspect: its objects'), with a few bytes per class; the captures
 * from the reference graph where a class's layout holds one reference (a
 * lambda's), so that records are read only for the other capturing classes;
 * what the counting needs (a bit per object, the capturing instances, one
 * class's values) is freed before the next suspect. */
#include "analysis/leaks_state.h"
#include "analysis/collections.h"
#include "analysis/prefetch.h"
#include "base/alloc.h"
#include "base/cmp.h"

#include <stdlib.h>
#include <string.h>

/* instances of capturing classes read for their captured fields, at most
 * (the counts are of these when a set holds more) */
#define MAX_CAPTURING 4000000

/* a class's own field names a captured value: a lambda's arg$1, an inner
 * class's this$0, an anonymous class's val$name */
static int captured_name(const char *n)
{
	return !strncmp(n, "arg$", 4) || !strncmp(n, "this$", 5) || !strncmp(n, "val$", 4);
}

/* the JDK's classes, as for the holder (leaks_suspects.c): their inner
 * classes (HashMap$KeySet.this$0) say nothing about the program */
static int is_jdk(const char *n)
{
	return !strncmp(n, "java.", 5) || !strncmp(n, "javax.", 6) || !strncmp(n, "jdk.", 4) ||
	       !strncmp(n, "sun.", 4) || !strncmp(n, "com.sun.", 8);
}

/* a lambda or inner class of the program's: a field of its own names what it captured */
static int capturing_class(const hp_heap *h, hp_objread *rd, uint32_t cls)
{
	const struct hp_class *k = &h->classes[cls];
	const char *name = hp_class_name(h, cls);
	if (k->kind != HP_CK_INSTANCE || !strchr(name, '$') || is_jdk(name))
		return 0;
	for (uint32_t i = 0; i < k->n_fields && (uint64_t)k->first_field + i < h->nfields; i++) {
		const struct hp_field *f = &h->fields[k->first_field + i];
		if (f->type == HP_T_OBJECT && captured_name(hp_objread_name(rd, f->name_sid)))
			return 1;
	}
	return 0;
}

/* ---- the owning collection -------------------------------------------------- */

static int is_coll(const hp_heap *h, uint32_t v)
{
	return v < h->nobj && hp_heap_kind(h, v) == HP_OBJ_INSTANCE && hp_collection_class(h, h->cls[v]) >= 0;
}

/* the point or an object at most two dominator steps above it (never above
 * an object suspect), then its wrapper when a known collection dominates it */
static int owner(struct lk *L, struct hp_leak_suspect *s)
{
	const hp_heap *h = L->h;
	const uint32_t *idom = L->R->dom.idom;
	s->coll = HP_NONE;
	if (s->acc == HP_NONE)
		return HP_OK;
	uint32_t v = s->acc, found = HP_NONE;
	for (int up = 0; up <= 2 && v < h->nobj; up++) {
		if (is_coll(h, v)) {
			found = v;
			break;
		}
		if (!s->is_class && v == s->obj)
			break;
		v = idom[v];
	}
	if (found == HP_NONE)
		return HP_OK;
	if ((s->is_class || found != s->obj) && is_coll(h, idom[found]))
		found = idom[found];
	struct hp_collection c;
	HP_TRY(hp_collection_of(h, L->rd, found, &c, L->err));
	s->coll = found;
	s->coll_family = c.family;
	s->coll_map = c.map;
	s->coll_known = c.known;
	s->coll_size = c.size;
	s->coll_why = c.why;
	return HP_OK;
}

/* ---- the retained set by class ------------------------------------------------- */

struct frame { uint32_t v, next; };   /* an object and the index of its next child */

struct walk {
	uint64_t *count, *shallow, *retained;
	uint32_t *open;           /* per class: objects of it on the walk's stack */
	uint8_t *capt;            /* per class: 0 not looked at, 1 not capturing, 2 capturing */
	struct frame *st;
	size_t cap;
	uint32_t *inst;           /* instances of capturing classes */
	size_t ninst, icap;
};

static int push(struct walk *w, size_t *sp, uint32_t v, uint32_t first)
{
	if (*sp == w->cap) {
		struct frame *ns = hp_grow(w->st, &w->cap, *sp + 1, 1024, sizeof *ns);
		if (!ns)
			return HP_ENOMEM;
		w->st = ns;
	}
	w->st[(*sp)++] = (struct frame){ v, first };
	return HP_OK;
}

/* object v of the set counted: its class's count and shallow bytes, its
 * retained size when no object of its class is above it in the walk (the
 * fold), and v kept when its class captures */
static inline int visit(struct lk *L, struct walk *w, uint32_t v)
{
	const struct hp_retained *R = L->R;
	const hp_heap *h = L->h;
	uint32_t c = h->cls[v];
	w->count[c]++;
	w->shallow[c] += hp_retained_shallow(R, v);
	if (!w->open[c])
		w->retained[c] += R->retained[v];
	if (!w->capt[c])
		w->capt[c] = capturing_class(h, L->rd, c) ? 2 : 1;
	if (w->capt[c] == 2 && hp_heap_kind(h, v) == HP_OBJ_INSTANCE && w->ninst < MAX_CAPTURING) {
		if (w->ninst == w->icap) {
			uint32_t *ni = hp_grow(w->inst, &w->icap, w->ninst + 1, 1024, sizeof *ni);
			if (!ni)
				return HP_ENOMEM;
			w->inst = ni;
		}
		w->inst[w->ninst++] = v;
	}
	return HP_OK;
}

/* one root's dominator subtree, without recursion, children in their
 * order; an object with children stays on the stack (and its class open)
 * until they are done.  What the objects two siblings ahead will read is
 * prefetched: the set lands at random in the per-object arrays. */
static int walk_subtree(struct lk *L, struct walk *w, uint32_t root)
{
	const struct hp_retained *R = L->R;
	const hp_heap *h = L->h;
	const uint32_t *coff = R->child_off, *kids = R->children;
	size_t sp = 0;
	HP_TRY(visit(L, w, root));
	if (coff[root] == coff[root + 1])
		return HP_OK;
	HP_TRY(push(w, &sp, root, coff[root]));
	w->open[h->cls[root]]++;
	while (sp) {
		struct frame *f = &w->st[sp - 1];
		uint32_t end = coff[f->v + 1];
		if (f->next == end) {
			w->open[h->cls[f->v]]--;
			sp--;
			continue;
		}
		uint32_t v = kids[f->next++];
		if (f->next + 2 < end) {
			uint32_t a = kids[f->next + 2];
			PREFETCH(&coff[a]);
			PREFETCH(&h->cls[a]);
			PREFETCH(&R->retained[a]);
		}
		HP_TRY(visit(L, w, v));
		if (coff[v] != coff[v + 1]) {
			HP_TRY(push(w, &sp, v, coff[v]));
			w->open[h->cls[v]]++;
		}
	}
	return HP_OK;
}

static int by_shallow(const void *a, const void *b)
{
	const struct hp_leak_class_count *x = a, *y = b;
	return hp_cmp3_u64(y->shallow, x->shallow, y->count, x->count, x->cls, y->cls);
}

/* ---- what lambdas and inner classes capture ---------------------------------- */

/* One capture being counted: `count` distinct objects of class target held
 * through field sid of class holder, by `refs` references. */
struct grp { struct hp_leak_capture c; uint64_t sid; };

static int by_grp(const void *a, const void *b)
{
	const struct grp *x = a, *y = b;
	return hp_cmp3_u64(x->c.holder, y->c.holder, x->sid, y->sid, x->c.target, y->c.target);
}

static int by_capture_count(const void *a, const void *b)
{
	const struct hp_leak_capture *x = a, *y = b;
	return hp_cmp3_u64(y->count, x->count, x->holder, y->holder, x->target, y->target);
}

static int by_u64(const void *a, const void *b)
{
	return hp_cmp_u64(*(const uint64_t *)a, *(const uint64_t *)b);
}

static int by_u32(const void *a, const void *b)
{
	return hp_cmp_u64(*(const uint32_t *)a, *(const uint32_t *)b);
}

/* a captured value: slot (the rank of its field's name among the class's
 * captured fields' names) and the object */
struct pair { uint32_t slot, obj; };

static int by_slot(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;
	return hp_cmp2_u64(x->slot, y->slot, x->obj, y->obj);
}

/* Counting the captures of the set's capturing instances, one class at a
 * time.  Most such classes (every lambda, most inner classes) hold one
 * reference field in their whole layout: the reference graph then says what
 * each instance holds through it (its one edge that is not the class edge)
 * and no record is read.  The others' records are decoded.  Either way each
 * class's values become (slot, object) pairs, counted by slot with a bit per
 * object for the distinct ones; the pairs are one class's, freed at the end. */
struct capt {
	struct lk *L;
	uint64_t *bits;           /* per object: seen in this slot */
	uint64_t *crefs, *ccount; /* per class: of the slot being counted */
	uint32_t *touched;        /* classes with crefs != 0 */
	uint32_t *threads;        /* thread objects (sorted): they may have thread-local edges */
	size_t nthreads;
	uint64_t *sids;           /* the current class's captured names (sorted, unique) */
	size_t nsids, sidcap;
	struct pair *pr;
	size_t npr, prcap;
	struct grp *g;
	size_t ng, gcap;
};

/* the class has one reference field in its whole layout, its own (then a
 * captured one: the class captures) */
static int one_ref(const hp_heap *h, uint32_t cls)
{
	const struct hp_class *k = &h->classes[cls];
	if (k->own_refs != 1)
		return 0;
	uint32_t c = k->super;
	for (size_t steps = 0; c != HP_NONE && c < h->nclasses && steps < h->nclasses; steps++) {
		if (h->classes[c].own_refs)
			return 0;
		c = h->classes[c].super;
	}
	return 1;
}

static int is_thread(const struct capt *C, uint32_t v)
{
	size_t lo = 0, hi = C->nthreads;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (C->threads[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < C->nthreads && C->threads[lo] == v;
}

/* the edges of v other than its class edge: [*lo, *hi) */
static void field_edges(const struct hp_refs *g, uint32_t v, uint64_t *lo, uint64_t *hi)
{
	*lo = hp_refs_off(g, v);
	*hi = hp_refs_off(g, v + 1);   /* (the class edge is not in adj[]: refs.h) */
}

/* whether v's record is read: its class's graph edges do not say what it
 * captures, or v is a thread (whose edges include its stack's locals); an
 * instance with more than one edge besides its class edge (none such when
 * the class holds one reference) is read as well, as it comes */
static int must_decode(const struct capt *C, int graph, uint32_t v)
{
	return !graph || is_thread(C, v);
}

static int add_pair(struct capt *C, uint32_t slot, uint32_t obj)
{
	if (C->npr == C->prcap) {
		struct pair *np = hp_grow(C->pr, &C->prcap, C->npr + 1, 1024, sizeof *np);
		if (!np)
			return HP_ENOMEM;
		C->pr = np;
	}
	C->pr[C->npr++] = (struct pair){ slot, obj };
	return HP_OK;
}

static uint32_t slot_of(const struct capt *C, uint64_t sid)
{
	size_t lo = 0, hi = C->nsids;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (C->sids[mid] < sid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (uint32_t)lo;    /* always found: the names are the class's own */
}

/* the captured names of class cls (own object fields), sorted, unique */
static int class_sids(struct capt *C, uint32_t cls)
{
	const hp_heap *h = C->L->h;
	const struct hp_class *k = &h->classes[cls];
	C->nsids = 0;
	for (uint32_t i = 0; i < k->n_fields && (uint64_t)k->first_field + i < h->nfields; i++) {
		const struct hp_field *f = &h->fields[k->first_field + i];
		if (f->type != HP_T_OBJECT || !captured_name(hp_objread_name(C->L->rd, f->name_sid)))
			continue;
		if (C->nsids == C->sidcap) {
			uint64_t *ns = hp_grow(C->sids, &C->sidcap, C->nsids + 1, 16, sizeof *ns);
			if (!ns)
				return HP_ENOMEM;
			C->sids = ns;
		}
		C->sids[C->nsids++] = f->name_sid;
	}
	qsort(C->sids, C->nsids, sizeof *C->sids, by_u64);
	size_t u = 0;
	for (size_t i = 0; i < C->nsids; i++)
		if (!u || C->sids[i] != C->sids[u - 1])
			C->sids[u++] = C->sids[i];
	C->nsids = u;
	return HP_OK;
}

/* the (slot, object) pairs of the instances inst[0..n) of class cls */
static int class_pairs(struct capt *C, uint32_t cls, const uint32_t *inst, size_t n, int graph)
{
	struct lk *L = C->L;
	const hp_heap *h = L->h;
	const struct hp_refs *gr = &L->R->refs;
	C->npr = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t v = inst[i];
		if (graph && gr->off32 && i + 16 < n)
			PREFETCH(&gr->off32[inst[i + 16]]);
		if (graph && gr->off32 && i + 8 < n)
			PREFETCH(&gr->adj[gr->off32[inst[i + 8]]]);
		if (!must_decode(C, graph, v)) {
			uint64_t lo, hi;
			field_edges(gr, v, &lo, &hi);
			if (hi - lo == 1)
				HP_TRY(add_pair(C, 0, gr->adj[lo]));
			if (hi - lo <= 1)
				continue;
		}
		struct hp_objdata o;
		int rc = hp_objread_decode(L->rd, v, 0, &o, L->err);
		for (size_t k = 0; rc == HP_OK && k < o.nfields; k++) {
			const struct hp_objval *f = &o.fields[k];
			if (f->decl != cls || f->type != HP_T_OBJECT || !f->bits || !captured_name(f->name))
				continue;
			size_t t = hp_heap_find(h, f->bits);
			if (t != SIZE_MAX && add_pair(C, slot_of(C, f->name_sid), (uint32_t)t))
				rc = HP_ENOMEM;
		}
		hp_objread_release(&o);
		HP_TRY(rc);
	}
	return HP_OK;
}

static int add_grp(struct capt *C, uint32_t holder, uint64_t sid, uint32_t target, uint64_t count, uint64_t refs)
{
	if (C->ng == C->gcap) {
		struct grp *ng = hp_grow(C->g, &C->gcap, C->ng + 1, 64, sizeof *ng);
		if (!ng)
			return HP_ENOMEM;
		C->g = ng;
	}
	struct grp *e = &C->g[C->ng++];
	memset(e, 0, sizeof *e);
	e->c.holder = holder;
	e->c.target = target;
	e->c.field = hp_objread_name(C->L->rd, sid);
	e->c.count = count;
	e->c.refs = refs;
	e->sid = sid;
	return HP_OK;
}

/* the pairs of class cls by slot and target class: one capture each */
static int class_groups(struct capt *C, uint32_t cls)
{
	const hp_heap *h = C->L->h;
	/* each slot's pairs together (most classes have one slot) */
	if (C->nsids > 1)
		qsort(C->pr, C->npr, sizeof *C->pr, by_slot);
	size_t at = 0;
	while (at < C->npr) {
		uint32_t sl = C->pr[at].slot;
		size_t end = at, nt = 0;
		while (end < C->npr && C->pr[end].slot == sl)
			end++;
		for (size_t i = at; i < end; i++) {
			if (i + 8 < end) {
				PREFETCH(&h->cls[C->pr[i + 8].obj]);
				PREFETCH(&C->bits[C->pr[i + 8].obj >> 6]);
			}
			uint32_t t = C->pr[i].obj, tc = h->cls[t];
			if (!C->crefs[tc])
				C->touched[nt++] = tc;
			C->crefs[tc]++;
			if (!(C->bits[t >> 6] >> (t & 63) & 1)) {
				C->bits[t >> 6] |= (uint64_t)1 << (t & 63);
				C->ccount[tc]++;
			}
		}
		int rc = HP_OK;
		for (size_t i = 0; i < nt; i++) {
			uint32_t tc = C->touched[i];
			if (rc == HP_OK)
				rc = add_grp(C, cls, C->sids[sl], tc, C->ccount[tc], C->crefs[tc]);
			C->crefs[tc] = C->ccount[tc] = 0;
		}
		for (size_t i = at; i < end; i++)
			C->bits[C->pr[i].obj >> 6] &= ~((uint64_t)1 << (C->pr[i].obj & 63));
		HP_TRY(rc);
		at = end;
	}
	return HP_OK;
}
static void capt_free(struct capt *C)
{
	hp_free_all(C->bits, C->crefs, C->ccount, C->touched, C->threads, C->sids, C->pr, C->g);
}

/* the captures of the set's capturing instances w->inst, the ones that make
 * 1% of the set's objects' references, most objects first */
static int captures(struct lk *L, struct hp_leak_suspect *s, struct walk *w)
{
	const hp_heap *h = L->h;
	const struct hp_refs *gr = &L->R->refs;
	if (!w->ninst)
		return HP_OK;
	size_t nc = h->nclasses;
	struct capt C;
	memset(&C, 0, sizeof C);
	C.L = L;
	uint32_t *pos = hp_calloc(nc + 2, sizeof *pos);
	uint32_t *by = hp_reallocarray(NULL, w->ninst, sizeof *by);
	C.bits = hp_calloc((h->nobj + 63) / 64, sizeof *C.bits);
	C.crefs = hp_calloc(nc, sizeof *C.crefs);
	C.ccount = hp_calloc(nc, sizeof *C.ccount);
	C.touched = hp_reallocarray(NULL, nc, sizeof *C.touched);
	int rc = HP_OK;
	if (!pos || !by || !C.bits || !C.crefs || !C.ccount || !C.touched)
		rc = HP_ENOMEM;
	/* the instances by class, each class's in the walk's order */
	if (rc == HP_OK) {
		for (size_t i = 0; i < w->ninst; i++)
			pos[h->cls[w->inst[i]] + 2]++;
		for (size_t c = 0; c < nc; c++)
			pos[c + 2] += pos[c + 1];
		for (size_t i = 0; i < w->ninst; i++)
			by[pos[h->cls[w->inst[i]] + 1]++] = w->inst[i];
		/* now pos[c] .. pos[c + 1] are class c's */
	}
	/* thread objects: their graph edges may include the thread's locals */
	if (rc == HP_OK && h->nthreads) {
		if (!(C.threads = hp_reallocarray(NULL, h->nthreads, sizeof *C.threads)))
			rc = HP_ENOMEM;
		for (size_t t = 0; rc == HP_OK && t < h->nthreads; t++) {
			size_t v = h->threads[t].object_id ? hp_heap_find(h, h->threads[t].object_id) : SIZE_MAX;
			if (v != SIZE_MAX)
				C.threads[C.nthreads++] = (uint32_t)v;
		}
		if (rc == HP_OK)
			qsort(C.threads, C.nthreads, sizeof *C.threads, by_u32);
	}
	/* the graph serves when there is one (a record shorter than its
	 * layout loses the same references in the graph and decoded) */
	int graph_ok = gr->adj && (gr->off || gr->off32);
	/* the records to read, in one pass (a gzip dump) */
	if (rc == HP_OK) {
		uint32_t *dec = NULL;
		size_t ndec = 0;
		for (size_t c = 0; c < nc; c++) {
			int graph = graph_ok && pos[c] < pos[c + 1] && one_ref(h, (uint32_t)c);
			for (uint32_t i = pos[c]; i < pos[c + 1]; i++)
				if (must_decode(&C, graph, by[i])) {
					if (!dec && !(dec = hp_reallocarray(NULL, w->ninst, sizeof *dec))) {
						rc = HP_ENOMEM;
						break;
					}
					dec[ndec++] = by[i];
				}
			if (rc)
				break;
		}
		if (rc == HP_OK && ndec)
			rc = hp_objread_prefetch(L->rd, dec, ndec, L->err);
		hp_free(dec);
	}
	/* per class: its pairs, counted */
	for (size_t c = 0; rc == HP_OK && c < nc; c++) {
		if (pos[c] == pos[c + 1])
			continue;
		int graph = graph_ok && one_ref(h, (uint32_t)c);
		if ((rc = class_sids(&C, (uint32_t)c)) == HP_OK &&
		    (rc = class_pairs(&C, (uint32_t)c, by + pos[c], pos[c + 1] - pos[c], graph)) == HP_OK)
			rc = class_groups(&C, (uint32_t)c);
	}
	hp_free(pos);
	hp_free(by);
	if (rc == HP_OK && C.ng) {
		qsort(C.g, C.ng, sizeof *C.g, by_grp);
		/* only the captures that make 1% of the set's objects' references */
		size_t kept = 0;
		for (size_t i = 0; i < C.ng; i++)
			if (C.g[i].c.refs * 100 >= s->set_objects)
				C.g[kept++] = C.g[i];
		struct hp_leak_capture *k = hp_reallocarray(NULL, kept ? kept : 1, sizeof *k);
		if (!k) {
			rc = HP_ENOMEM;
		} else {
			for (size_t i = 0; i < kept; i++)
				k[i] = C.g[i].c;
			qsort(k, kept, sizeof *k, by_capture_count);
			s->ncaptures = kept < HP_LEAK_CAPTURES ? kept : HP_LEAK_CAPTURES;
			/* the ones shown, kept */
			struct hp_leak_capture *t = s->ncaptures ? hp_reallocarray(k, s->ncaptures, sizeof *k) : NULL;
			s->captures = t ? t : k;
		}
	}
	capt_free(&C);
	if (rc == HP_ENOMEM)
		rc = hp_error_set(L->err, HP_ENOMEM, "out of memory");
	return rc;
}


/* ---- the whole ------------------------------------------------------------------ */

int lk_suspect_content(struct lk *L, struct hp_leak_suspect *s, const struct top *objs, size_t nobjs)
{
	const hp_heap *h = L->h;
	HP_TRY(owner(L, s));
	size_t nc = h->nclasses ? h->nclasses : 1;
	struct walk w;
	memset(&w, 0, sizeof w);
	w.count = hp_calloc(nc, sizeof *w.count);
	w.shallow = hp_calloc(nc, sizeof *w.shallow);
	w.retained = hp_calloc(nc, sizeof *w.retained);
	w.open = hp_calloc(nc, sizeof *w.open);
	w.capt = hp_calloc(nc, 1);
	int rc = HP_OK;
	if (!w.count || !w.shallow || !w.retained || !w.open || !w.capt)
		rc = HP_ENOMEM;
	if (rc == HP_OK && !s->is_class && s->acc != HP_NONE)
		rc = walk_subtree(L, &w, s->acc);
	for (size_t i = 0; rc == HP_OK && s->is_class && i < nobjs; i++)
		rc = walk_subtree(L, &w, objs[i].v);
	if (rc == HP_ENOMEM)
		rc = hp_error_set(L->err, HP_ENOMEM, "out of memory");
	size_t k = 0;
	for (size_t c = 0; rc == HP_OK && c < h->nclasses; c++)
		k += w.count[c] != 0;
	struct hp_leak_class_count *bc = NULL;
	if (rc == HP_OK && k && !(bc = hp_reallocarray(NULL, k, sizeof *bc)))
		rc = hp_error_set(L->err, HP_ENOMEM, "out of memory");
	if (rc == HP_OK && k) {
		size_t m = 0;
		for (size_t c = 0; c < h->nclasses; c++) {
			if (!w.count[c])
				continue;
			bc[m++] = (struct hp_leak_class_count){ (uint32_t)c, w.count[c], w.shallow[c], w.retained[c] };
			s->set_objects += w.count[c];
			s->set_bytes += w.shallow[c];
		}
		qsort(bc, k, sizeof *bc, by_shallow);
		s->by_class = bc;
		s->set_classes = k;
		s->nby_class = k < HP_LEAK_CLASSES ? k : HP_LEAK_CLASSES;
		rc = captures(L, s, &w);
	}
	hp_free_all(w.count, w.shallow, w.retained, w.open, w.capt, w.st, w.inst);
	return rc;
}

void lk_suspect_content_release(struct hp_leak_suspect *s)
{
	hp_free(s->by_class);
	hp_free(s->captures);
	s->by_class = NULL;
	s->captures = NULL;
	s->nby_class = s->ncaptures = 0;
}
