/* refstats.c — reachability levels, the Reference objects and the
 * finalizer queue (refstats.h). */
#include "analysis/refstats.h"
#include "analysis/fold.h"
#include "model/refs.h"
#include "base/alloc.h"
#include "base/cmp.h"
#include "parser/hprof.h"

#include <stdlib.h>
#include <string.h>

const char *hp_reach_name(int level)
{
	static const char *const names[HP_REACH_N] = { "none", "strong", "soft", "weak", "final", "phantom" };
	return level >= 0 && level < HP_REACH_N ? names[level] : "?";
}

int hp_reach_of_kind(int k)
{
	switch (k) {
	case 1: return HP_REACH_SOFT;
	case 2: return HP_REACH_WEAK;
	case 3: case 5: return HP_REACH_FINAL;
	case 4: return HP_REACH_PHANTOM;
	default: return HP_REACH_STRONG;
	}
}

/* the reach byte: the level in the low bits, a finalizer group above */
#define LEVEL_MASK 0x07u
#define FIN_SHIFT 4
enum { FIN_QUEUE = 1, FIN_REGISTERED, FIN_RUNNING, FIN_NGROUPS = 3 };

struct rs {
	const hp_heap *h;
	const struct hp_retained *R;
	uint8_t *reach;
	uint8_t *klevel;              /* per class: the level its referents get, 0 no Reference */
	uint32_t (*pairs)[2];         /* (reference, referent), sorted */
	size_t npairs;
	uint32_t *queue;
	size_t qt;
	struct hp_reach_class *acc;   /* [group * nclasses + class] */
	struct hp_error *err;
};

static int cmp_pair(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;
	return hp_cmp2_u64(x[0], y[0], x[1], y[1]);
}

/* the pairs whose reference is v: [*lo, *hi) */
static void pairs_of(const struct rs *S, uint32_t v, size_t *lo_out, size_t *hi_out)
{
	hp_pairs_equal_range((const uint32_t (*)[2])S->pairs, S->npairs, v, lo_out, hi_out);
}

static void reach_at(struct rs *S, uint32_t w, int level)
{
	if (!S->reach[w]) {
		S->reach[w] = (uint8_t)level;
		S->queue[S->qt++] = w;
	}
}

/* the search at `level` from what the queue holds past *qh: every edge
 * but the referents of References weaker than the level */
static void search(struct rs *S, int level, size_t *qh)
{
	const struct hp_refs *g = &S->R->refs;
	const hp_heap *h = S->h;
	while (*qh < S->qt) {
		uint32_t v = S->queue[(*qh)++];
		size_t lo = 0, hi = 0;
		uint64_t used = 0;   /* the pairs matched to an edge (one edge each; the first 64) */
		if (S->klevel[h->cls[v]] && hp_heap_kind(h, v) == HP_OBJ_INSTANCE)
			pairs_of(S, v, &lo, &hi);
		int pl = lo < hi ? S->klevel[h->cls[v]] : 0;
		struct hp_edges it = hp_refs_edges(g, v);
		for (uint32_t w; hp_edges_next(&it, &w);) {
			int referent = 0;
			for (size_t k = lo; k < hi && !referent; k++)
				if (S->pairs[k][1] == w && (k - lo >= 64 || !((used >> (k - lo)) & 1))) {
					referent = 1;
					if (k - lo < 64)
						used |= (uint64_t)1 << (k - lo);
				}
			if (referent && pl > level)
				continue;
			reach_at(S, w, level);
		}
	}
}

static int levels(struct rs *S)
{
	const struct hp_retained *R = S->R;
	size_t n = S->h->nobj, qh = 0;
	for (size_t i = 0; i < R->nroot_objs; i++)
		if (R->root_objs[i] < n)
			reach_at(S, R->root_objs[i], HP_REACH_STRONG);
	search(S, HP_REACH_STRONG, &qh);
	for (int level = HP_REACH_SOFT; level < HP_REACH_N; level++) {
		/* from the referents of this level's References reached so far */
		for (size_t k = 0; k < S->npairs; k++) {
			uint32_t v = S->pairs[k][0];
			if (S->klevel[S->h->cls[v]] == level && S->reach[v])
				reach_at(S, S->pairs[k][1], level);
		}
		search(S, level, &qh);
	}
	return HP_OK;
}

/* ---- sums over the dominator tree --------------------------------------- */

struct fold_ud { struct rs *S; int fin; };

static inline uint32_t key_level(void *ud, uint32_t v)
{
	const struct fold_ud *F = ud;
	unsigned l = F->S->reach[v] & LEVEL_MASK;
	return l ? l - 1 : HP_NONE;
}

static inline uint32_t key_fin(void *ud, uint32_t v)
{
	const struct fold_ud *F = ud;
	unsigned k = F->S->reach[v] >> FIN_SHIFT;
	return k ? k - 1 : HP_NONE;
}

static inline int top_add(void *ud, uint32_t v, uint32_t k)
{
	const struct fold_ud *F = ud;
	struct rs *S = F->S;
	/* the groups: the unreachable, the levels, then the finalizers' */
	size_t group = F->fin ? HP_REACH_N + k : k + 1;
	S->acc[group * S->h->nclasses + S->h->cls[v]].retained += S->R->retained[v];
	return HP_OK;
}

static const struct hp_fold_ops level_ops = { .key = key_level, .top = top_add };
static const struct hp_fold_ops fin_ops = { .key = key_fin, .top = top_add };

static int by_retained(const void *a, const void *b)
{
	const struct hp_reach_class *x = a, *y = b;
	return hp_cmp3_u64(y->retained, x->retained, y->shallow, x->shallow, x->cls, y->cls);
}

/* a group's classes from its row of acc */
static int compact(struct rs *S, size_t group, struct hp_reach_group *g)
{
	size_t nc = S->h->nclasses, m = 0;
	const struct hp_reach_class *a = S->acc + group * nc;
	memset(g, 0, sizeof *g);
	for (size_t c = 0; c < nc; c++)
		m += a[c].objects != 0;
	g->c = hp_calloc(m ? m : 1, sizeof *g->c);
	if (!g->c)
		return hp_error_set(S->err, HP_ENOMEM, "out of memory counting references");
	for (size_t c = 0; c < nc; c++) {
		if (!a[c].objects)
			continue;
		g->c[g->n] = a[c];
		g->c[g->n].cls = (uint32_t)c;
		g->objects += a[c].objects;
		g->shallow += a[c].shallow;
		g->retained += a[c].retained;
		g->n++;
	}
	qsort(g->c, g->n, sizeof *g->c, by_retained);
	return HP_OK;
}

/* ---- the Reference objects ---------------------------------------------- */

static int by_instances(const void *a, const void *b)
{
	const struct hp_ref_class *x = a, *y = b;
	return hp_cmp2_u64(y->instances, x->instances, x->cls, y->cls);
}

static int references(struct rs *S, struct hp_refstats *out)
{
	const hp_heap *h = S->h;
	size_t nc = h->nclasses, m = 0;
	struct hp_ref_class *rc = hp_calloc(nc ? nc : 1, sizeof *rc);
	if (!rc)
		return hp_error_set(S->err, HP_ENOMEM, "out of memory counting references");
	for (size_t v = 0; v < h->nobj; v++) {
		uint32_t c = h->cls[v];
		if (!S->klevel[c] || hp_heap_kind(h, v) != HP_OBJ_INSTANCE)
			continue;
		if (!(S->reach[v] & LEVEL_MASK)) {
			out->refs_unreachable++;
			continue;
		}
		rc[c].instances++;
		rc[c].shallow += hp_retained_shallow(S->R, v);
	}
	for (size_t k = 0; k < S->npairs; k++) {
		uint32_t v = S->pairs[k][0], c = h->cls[v];
		if (k && S->pairs[k - 1][0] == v)
			continue;   /* a Reference has one referent */
		if (!(S->reach[v] & LEVEL_MASK))
			continue;
		rc[c].referents++;
		rc[c].by_level[S->reach[S->pairs[k][1]] & LEVEL_MASK]++;
	}
	for (size_t c = 0; c < nc; c++)
		if (rc[c].instances) {
			rc[m] = rc[c];
			rc[m].cls = (uint32_t)c;
			rc[m].level = S->klevel[c];
			m++;
		}
	qsort(rc, m, sizeof *rc, by_instances);
	out->refs = rc;
	out->nrefs = m;
	return HP_OK;
}

/* ---- the finalizers ------------------------------------------------------- */

static const struct flavor {
	int id;
	const char *cls;              /* the Finalizer class */
	const char *list;             /* its static: the registered list's head */
	const char *qlink;            /* Reference's field linking the queue */
	const char *zombie;           /* the finalizable object once queued, or NULL */
	const char *thread;           /* the finalizer thread's name */
} flavors[] = {
	{ HP_FIN_HOTSPOT, "java.lang.ref.Finalizer", "unfinalized", "next", NULL, "Finalizer" },
	{ HP_FIN_ART, "java.lang.ref.FinalizerReference", "head", "queueNext", "zombie", "FinalizerDaemon" },
};

struct fin_ent {
	uint32_t v;
	uint32_t next;                /* the list's link (the class's own `next`), HP_NONE: null or not in the dump */
	uint32_t qnext;               /* the queue's (Reference's) */
	uint32_t object;              /* the referent, else the zombie; HP_NONE none */
	uint8_t seen;                 /* 1 walked in the queue, 2 in the list */
};

static uint32_t obj_of(const hp_heap *h, const struct hp_objval *f)
{
	size_t w = f && f->type == HP_T_OBJECT && f->bits ? hp_heap_find(h, f->bits) : SIZE_MAX;
	return w == SIZE_MAX ? HP_NONE : (uint32_t)w;
}

static struct fin_ent *ent_of(struct fin_ent *e, size_t n, uint32_t v)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (e[mid].v < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && e[lo].v == v ? &e[lo] : NULL;
}

/* the finalizable object v into group `fin` (each object once) */
static void fin_add(struct rs *S, uint32_t v, int fin)
{
	if (v == HP_NONE || S->reach[v] >> FIN_SHIFT)
		return;
	S->reach[v] |= (uint8_t)(fin << FIN_SHIFT);
	struct hp_reach_class *a = &S->acc[(HP_REACH_N + fin - 1) * S->h->nclasses + S->h->cls[v]];
	a->objects++;
	a->shallow += hp_retained_shallow(S->R, v);
}

/* the object a static of class c names, HP_NONE when none */
static uint32_t static_obj(const hp_heap *h, uint32_t c, const char *name)
{
	const struct hp_static *st = hp_class_static(h, c, name, HP_T_OBJECT);
	size_t w = st && st->value ? hp_heap_find(h, st->value) : SIZE_MAX;
	return w == SIZE_MAX ? HP_NONE : (uint32_t)w;
}

/* walks from first through each entry's link (qnext or next), calling
 * fin_add for the entries the walk takes (the list: those not queued) */
static void walk(struct rs *S, struct hp_finalizers *F, struct fin_ent *e, size_t n, uint32_t first, int queue)
{
	uint8_t mark = queue ? 1 : 2;
	for (uint32_t v = first; v != HP_NONE;) {
		struct fin_ent *x = ent_of(e, n, v);
		if (!x)
			break;   /* no Finalizer: the end (ART's sentinel) */
		if (x->seen & mark) {
			F->loops++;
			break;
		}
		x->seen |= mark;
		if (queue || !(x->seen & 1))
			fin_add(S, x->object, queue ? FIN_QUEUE : FIN_REGISTERED);
		uint32_t nx = queue ? x->qnext : x->next;
		if (nx == v)
			break;
		v = nx;
	}
}

static int thread_of(struct rs *S, hp_objread *rd, const char *name, uint32_t *out)
{
	const hp_heap *h = S->h;
	*out = HP_NONE;
	for (size_t i = 0; i < h->nthreads && *out == HP_NONE; i++) {
		size_t t = h->threads[i].object_id ? hp_heap_find(h, h->threads[i].object_id) : SIZE_MAX;
		if (t == SIZE_MAX || hp_heap_kind(h, t) != HP_OBJ_INSTANCE)
			continue;
		struct hp_text s;
		HP_TRY(hp_objread_thread_name(rd, t, 64, &s, S->err));
		if (s.utf8 && !strcmp(s.utf8, name))
			*out = (uint32_t)t;
		hp_objread_text_release(&s);
	}
	return HP_OK;
}

static int finalizers(struct rs *S, hp_objread *rd, struct hp_finalizers *F)
{
	const hp_heap *h = S->h;
	const struct flavor *fl = NULL;
	F->cls = HP_NONE;
	F->thread = HP_NONE;
	F->queue_length = -1;
	for (size_t k = 0; k < sizeof flavors / sizeof flavors[0] && !fl; k++)
		for (size_t c = 0; c < h->nclasses; c++)
			if (h->classes[c].dumped && !strcmp(hp_class_name(h, c), flavors[k].cls)) {
				fl = &flavors[k];
				F->cls = (uint32_t)c;
				break;
			}
	if (!fl)
		return HP_OK;
	F->flavor = fl->id;
	size_t n = 0;
	for (size_t v = 0; v < h->nobj; v++)
		n += h->cls[v] == F->cls && hp_heap_kind(h, v) == HP_OBJ_INSTANCE;
	F->instances = n;
	struct fin_ent *e = hp_calloc(n ? n : 1, sizeof *e);
	uint32_t *objs = hp_calloc(n ? n : 1, sizeof *objs);
	int rc = HP_OK;
	if (!e || !objs) {
		rc = hp_error_set(S->err, HP_ENOMEM, "out of memory reading the finalizers");
		goto out;
	}
	n = 0;
	for (size_t v = 0; v < h->nobj; v++)
		if (h->cls[v] == F->cls && hp_heap_kind(h, v) == HP_OBJ_INSTANCE)
			objs[n++] = (uint32_t)v;
	if ((rc = hp_objread_prefetch(rd, objs, n, S->err)))
		goto out;
	for (size_t i = 0; i < n; i++) {
		struct hp_objdata d;
		if ((rc = hp_objread_decode(rd, objs[i], 0, &d, S->err)))
			goto out;
		e[i].v = objs[i];
		e[i].next = obj_of(h, hp_objread_field(rd, &d, "next", fl->cls));
		e[i].qnext = obj_of(h, hp_objread_field(rd, &d, fl->qlink, "java.lang.ref.Reference"));
		e[i].object = obj_of(h, hp_objread_field(rd, &d, "referent", "java.lang.ref.Reference"));
		if (e[i].object == HP_NONE && fl->zombie)
			e[i].object = obj_of(h, hp_objread_field(rd, &d, fl->zombie, fl->cls));
		hp_objread_release(&d);
	}
	uint32_t q = static_obj(h, F->cls, "queue"), list = static_obj(h, F->cls, fl->list);
	if (q != HP_NONE && hp_heap_kind(h, q) == HP_OBJ_INSTANCE) {
		struct hp_objdata d;
		if ((rc = hp_objread_decode(rd, q, 0, &d, S->err)))
			goto out;
		F->has_queue = 1;
		uint32_t head = obj_of(h, hp_objread_field(rd, &d, "head", NULL));
		const struct hp_objval *len = hp_objread_field(rd, &d, "queueLength", NULL);
		if (len && len->type == HP_T_LONG)
			F->queue_length = (int64_t)len->bits;
		hp_objread_release(&d);
		walk(S, F, e, n, head, 1);
	}
	if (list != HP_NONE || hp_class_static(h, F->cls, fl->list, HP_T_OBJECT)) {
		F->has_list = 1;
		walk(S, F, e, n, list, 0);
	}
	/* HotSpot: taken off the list (next = itself), not yet cleared */
	for (size_t i = 0; fl->id == HP_FIN_HOTSPOT && i < n; i++)
		if (e[i].next == e[i].v && !e[i].seen && (S->reach[e[i].v] & LEVEL_MASK))
			fin_add(S, e[i].object, FIN_RUNNING);
	rc = thread_of(S, rd, fl->thread, &F->thread);
out:
	hp_free_all(e, objs);
	return rc;
}

/* ---- the whole ------------------------------------------------------------ */

int hp_refstats_compute(const hp_heap *h, const struct hp_retained *R, hp_objread *rd, struct hp_refstats *out,
			struct hp_error *err)
{
	memset(out, 0, sizeof *out);
	out->fin.cls = out->fin.thread = HP_NONE;
	out->fin.queue_length = -1;
	if (R->weak != HP_WEAK_FOLLOW || !R->child_off || (R->refs.n != h->nobj))
		return hp_error_set(err, HP_EUSAGE, "reference statistics need the graph of every reference (--weak=follow)");
	size_t n = h->nobj, nc = h->nclasses, ngroups = HP_REACH_N + FIN_NGROUPS;
	struct rs S = { .h = h, .R = R, .err = err };
	S.reach = hp_calloc(n ? n : 1, 1);
	S.klevel = hp_calloc(nc ? nc : 1, 1);
	S.queue = hp_reallocarray(NULL, n ? n : 1, sizeof *S.queue);
	S.pairs = hp_reallocarray(NULL, R->refs.nfollowed ? R->refs.nfollowed : 1, sizeof *S.pairs);
	S.acc = hp_calloc(ngroups * (nc ? nc : 1), sizeof *S.acc);
	int rc = HP_OK;
	if (!S.reach || !S.klevel || !S.queue || !S.pairs || !S.acc) {
		rc = hp_error_set(err, HP_ENOMEM, "out of memory counting references");
		goto out;
	}
	for (size_t c = 0; c < nc; c++) {
		int k = hp_refs_reference_kind(h, (uint32_t)c);
		S.klevel[c] = (uint8_t)(k ? hp_reach_of_kind(k) : 0);
	}
	for (size_t k = 0; k < R->refs.nfollowed; k++)
		if (R->refs.followed[k][0] < n && R->refs.followed[k][1] < n)
			memcpy(S.pairs[S.npairs++], R->refs.followed[k], sizeof *S.pairs);
	if (S.npairs > 1)
		qsort(S.pairs, S.npairs, sizeof *S.pairs, cmp_pair);
	if ((rc = levels(&S)))
		goto out;
	hp_free(S.queue);
	S.queue = NULL;
	for (size_t v = 0; v < n; v++) {
		struct hp_reach_class *a = &S.acc[S.reach[v] * nc + h->cls[v]];
		a->objects++;
		a->shallow += hp_retained_shallow(R, v);
		out->reached += S.reach[v] != HP_REACH_NONE;
	}
	struct fold_ud F = { &S, 0 };
	if ((rc = hp_fold(R->child_off, R->children, n, HP_REACH_N - 1, &level_ops, &F)) != HP_OK) {
		rc = hp_error_set(err, rc, "out of memory summing retained sizes");
		goto out;
	}
	if ((rc = references(&S, out)) || (rc = finalizers(&S, rd, &out->fin)))
		goto out;
	F.fin = 1;
	if (out->fin.flavor && (rc = hp_fold(R->child_off, R->children, n, FIN_NGROUPS, &fin_ops, &F)) != HP_OK) {
		rc = hp_error_set(err, rc, "out of memory summing retained sizes");
		goto out;
	}
	for (int l = 0; l < HP_REACH_N && !rc; l++)
		rc = compact(&S, (size_t)l, &out->level[l]);
	if (!rc)
		rc = compact(&S, HP_REACH_N + FIN_QUEUE - 1, &out->fin.queue);
	if (!rc)
		rc = compact(&S, HP_REACH_N + FIN_REGISTERED - 1, &out->fin.registered);
	if (!rc)
		rc = compact(&S, HP_REACH_N + FIN_RUNNING - 1, &out->fin.running);
	for (size_t v = 0; v < n; v++)
		S.reach[v] &= LEVEL_MASK;
out:
	hp_free_all(S.klevel, S.queue, S.pairs, S.acc);
	if (rc) {
		hp_free(S.reach);
		hp_refstats_release(out);
		return rc;
	}
	out->reach = S.reach;
	return HP_OK;
}

void hp_refstats_release(struct hp_refstats *s)
{
	for (int l = 0; l < HP_REACH_N; l++)
		hp_free(s->level[l].c);
	hp_free_all(s->refs, s->fin.queue.c, s->fin.registered.c, s->fin.running.c, s->reach);
	memset(s, 0, sizeof *s);
	s->fin.cls = s->fin.thread = HP_NONE;
	s->fin.queue_length = -1;
}
