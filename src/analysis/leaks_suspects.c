/* leaks_suspects.c — Eclipse MAT's leak suspects (leaks.h): the objects
 * and classes at the top of the dominator tree that retain past the
 * threshold, their accumulation points and holders. */
#include "analysis/leaks_state.h"
#include "base/alloc.h"
#include "base/cmp.h"

#include <stdlib.h>
#include <string.h>

/* a class suspect's common path is looked for over its largest instances */
#define MAX_GROUP_INSTANCES 10000
/* a class suspect's accumulation point is on the paths of this share of its
 * objects (MAT's common path: 80%) */
#define GROUP_SHARE 0.8

static int is_jdk(const char *n)
{
	return !strncmp(n, "java.", 5) || !strncmp(n, "javax.", 6) || !strncmp(n, "jdk.", 4) ||
	       !strncmp(n, "sun.", 4) || !strncmp(n, "com.sun.", 8);
}

/* ---- suspects ------------------------------------------------------------- */

static int by_retained(const void *a, const void *b)
{
	const struct top *x = a, *y = b;
	return hp_cmp2_u64(y->retained, x->retained, x->v, y->v);
}

static int by_class_then_retained(const void *a, const void *b, const hp_heap *h)
{
	const struct top *x = a, *y = b;
	return hp_cmp3_u64(h->cls[x->v], h->cls[y->v], y->retained, x->retained, x->v, y->v);
}

static const hp_heap *sort_heap;
static int cmp_cls(const void *a, const void *b) { return by_class_then_retained(a, b, sort_heap); }

/* MAT's walk down the dominator tree: to the largest child while it keeps big_drop */
static void accumulation(struct lk *L, struct hp_leak_suspect *s)
{
	const struct hp_retained *R = L->R;
	uint32_t v = s->obj;
	uint64_t depth = 0;
	for (;;) {
		uint32_t lo = R->child_off[v], hi = R->child_off[v + 1];
		uint32_t best = HP_NONE;
		for (uint32_t i = lo; i < hi; i++) {
			uint32_t c = R->children[i];
			if (best == HP_NONE || R->retained[c] > R->retained[best] ||
			    (R->retained[c] == R->retained[best] && c < best))
				best = c;
		}
		if (best == HP_NONE || !R->retained[v] ||
		    (double)R->retained[best] < L->o->big_drop * (double)R->retained[v])
			break;
		v = best;
		depth++;
	}
	s->acc = v;
	s->acc_retained = R->retained[v];
	s->acc_depth = depth;
}

/* what accumulates under the point: the class whose directly dominated
 * objects retain the most together */
static int accumulated(struct lk *L, struct hp_leak_suspect *s)
{
	const struct hp_retained *R = L->R;
	const hp_heap *h = L->h;
	uint32_t a = s->acc;
	uint32_t lo = R->child_off[a], hi = R->child_off[a + 1];
	if (lo == hi) {
		s->acc_cls = h->cls[a];
		s->acc_count = 1;
		s->acc_bytes = R->retained[a];
		return HP_OK;
	}
	struct top *t = hp_reallocarray(NULL, hi - lo, sizeof *t);
	if (!t)
		return hp_error_set(L->err, HP_ENOMEM, "out of memory");
	for (uint32_t i = lo; i < hi; i++) {
		t[i - lo].v = R->children[i];
		t[i - lo].retained = R->retained[R->children[i]];
	}
	sort_heap = h;
	qsort(t, hi - lo, sizeof *t, cmp_cls);
	uint64_t best_bytes = 0, best_count = 0;
	uint32_t best_cls = HP_NONE;
	for (size_t i = 0; i < hi - lo;) {
		size_t j = i;
		uint64_t b = 0;
		uint32_t c = h->cls[t[i].v];
		while (j < hi - lo && h->cls[t[j].v] == c)
			b += t[j++].retained;
		if (best_cls == HP_NONE || b > best_bytes) {
			best_cls = c;
			best_bytes = b;
			best_count = j - i;
		}
		i = j;
	}
	hp_free(t);
	s->acc_cls = best_cls;
	s->acc_count = best_count;
	s->acc_bytes = best_bytes;
	return HP_OK;
}

/* the nearest object on the whole trace from its end whose class is not the JDK's */
static void holder_of(struct lk *L, struct hp_leak_suspect *s)
{
	const hp_heap *h = L->h;
	s->holder = HP_NONE;
	if (!s->trace.n)
		return;
	for (uint32_t v = s->trace.steps[s->trace.n - 1].obj; v < L->P.n; v = hp_paths_parent(&L->P, v)) {
		if (!is_jdk(lk_owner_name(h, v))) {
			s->holder = v;
			return;
		}
	}
}

/* a class suspect's accumulation point: the deepest object on the shortest
 * paths of at least big_drop of its (largest) instances */
static int group_point(struct lk *L, struct hp_leak_suspect *s, const struct top *inst, size_t ninst,
		       uint32_t *cnt)
{
	size_t n = L->h->nobj;
	s->acc = HP_NONE;
	if (!L->have_paths)
		return HP_OK;
	size_t m = ninst < MAX_GROUP_INSTANCES ? ninst : MAX_GROUP_INSTANCES, walked = 0;
	for (size_t i = 0; i < m; i++) {
		uint32_t v = inst[i].v;
		if (hp_paths_parent(&L->P, v) == HP_PATH_UNSEEN)
			continue;
		walked++;
		for (uint32_t u = hp_paths_parent(&L->P, v); u != HP_PATH_START && u != HP_PATH_UNSEEN;
		     u = hp_paths_parent(&L->P, u))
			cnt[u]++;
	}
	uint32_t best = HP_NONE;
	double need = GROUP_SHARE * (double)walked;
	for (size_t u = 0; u < n && walked; u++) {
		if (!cnt[u])
			continue;     /* (cnt's pages nothing counted in stay unwritten) */
		if ((double)cnt[u] >= need && (best == HP_NONE || hp_paths_depth(&L->P, u) > hp_paths_depth(&L->P, best)))
			best = (uint32_t)u;
		cnt[u] = 0;
	}
	if (best != HP_NONE) {
		s->acc = best;
		s->acc_retained = L->R->retained[best];
	}
	return HP_OK;
}

/* a class whose objects at the top retain sum together is a suspect when
 * that passes the threshold and no object suspect is of the class (MAT) */
static int class_suspect(const hp_heap *h, uint64_t sum, uint64_t thr, uint32_t cls, const uint32_t *objs, size_t n)
{
	if (!sum || sum < thr)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (h->cls[objs[i]] == cls)
			return 0;
	return 1;
}

/* The suspects, before the path search: the objects at the top of the
 * dominator tree that pass the threshold, walked down to their
 * accumulation points, then the classes (their objects stay in L->top). */
int lk_select_suspects(struct lk *L, struct hp_leaks *out)
{
	const struct hp_retained *R = L->R;
	const hp_heap *h = L->h;
	size_t n = h->nobj;
	uint32_t lo = R->child_off[n], hi = R->child_off[n + 1];
	size_t k = hi - lo;
	if (!k)
		return HP_OK;
	struct top *t = L->top = hp_reallocarray(NULL, k, sizeof *t);
	if (!t)
		return hp_error_set(L->err, HP_ENOMEM, "out of memory");
	L->ntop = k;
	for (size_t i = 0; i < k; i++) {
		t[i].v = R->children[lo + i];
		t[i].retained = R->retained[t[i].v];
	}
	qsort(t, k, sizeof *t, by_retained);
	uint64_t thr = out->threshold_bytes;
	size_t nobj_s = 0;
	while (nobj_s < k && t[nobj_s].retained >= thr && t[nobj_s].retained)
		nobj_s++;
	/* MAT: the object suspects first; then every object at the top by
	 * class, a class suspect unless an object suspect is of that class */
	uint32_t *objs = hp_reallocarray(NULL, nobj_s + 1, sizeof *objs);
	if (!objs)
		return hp_error_set(L->err, HP_ENOMEM, "out of memory");
	for (size_t i = 0; i < nobj_s; i++)
		objs[i] = t[i].v;
	sort_heap = h;
	qsort(t, k, sizeof *t, cmp_cls);
	size_t ncls_s = 0;
	for (size_t i = 0; i < k;) {
		size_t j = i;
		uint64_t sum = 0;
		while (j < k && h->cls[t[j].v] == h->cls[t[i].v])
			sum += t[j++].retained;
		if (class_suspect(h, sum, thr, h->cls[t[i].v], objs, nobj_s))
			ncls_s++;
		i = j;
	}
	out->suspects = hp_calloc(nobj_s + ncls_s + 1, sizeof *out->suspects);
	L->sfirst = hp_calloc(nobj_s + ncls_s + 1, sizeof *L->sfirst);
	if (!out->suspects || !L->sfirst) {
		hp_free(objs);
		return hp_error_set(L->err, HP_ENOMEM, "out of memory");
	}
	int rc = HP_OK;
	for (size_t i = 0; i < nobj_s && rc == HP_OK; i++) {
		struct hp_leak_suspect *s = &out->suspects[out->nsuspects++];
		s->obj = objs[i];
		s->cls = h->cls[s->obj];
		s->count = 1;
		s->retained = R->retained[s->obj];
		s->acc = s->holder = s->coll = HP_NONE;
		accumulation(L, s);
		rc = accumulated(L, s);
	}
	for (size_t i = 0; i < k && rc == HP_OK;) {
		size_t j = i;
		uint64_t sum = 0;
		while (j < k && h->cls[t[j].v] == h->cls[t[i].v])
			sum += t[j++].retained;
		if (class_suspect(h, sum, thr, h->cls[t[i].v], objs, nobj_s)) {
			L->sfirst[out->nsuspects] = i;
			struct hp_leak_suspect *s = &out->suspects[out->nsuspects++];
			s->is_class = 1;
			s->obj = t[i].v;
			s->cls = h->cls[s->obj];
			s->count = j - i;
			s->retained = sum;
			s->acc = s->holder = s->coll = HP_NONE;
			s->acc_cls = s->cls;
			s->acc_count = s->count;
			s->acc_bytes = sum;
		}
		i = j;
	}
	hp_free(objs);
	return rc;
}

/* what the path search must reach for the suspects: the accumulation
 * points, and the (largest) objects of each class suspect */
size_t lk_suspect_targets(const struct lk *L, const struct hp_leaks *out, uint32_t *to)
{
	size_t n = 0;
	for (size_t i = 0; i < out->nsuspects; i++) {
		const struct hp_leak_suspect *s = &out->suspects[i];
		if (!s->is_class) {
			if (to)
				to[n] = s->acc;
			n++;
			continue;
		}
		size_t m = s->count < MAX_GROUP_INSTANCES ? (size_t)s->count : MAX_GROUP_INSTANCES;
		for (size_t k = 0; k < m; k++, n++)
			if (to)
				to[n] = L->top[L->sfirst[i] + k].v;
	}
	return n;
}

/* After the path search: the class suspects' accumulation points, every
 * suspect's trace and holder; largest first. */
int lk_finish_suspects(struct lk *L, struct hp_leaks *out)
{
	uint32_t *cnt = NULL;
	int rc = HP_OK;
	for (size_t i = 0; i < out->nsuspects && rc == HP_OK; i++) {
		struct hp_leak_suspect *s = &out->suspects[i];
		if (s->is_class) {
			if (!cnt && !(cnt = hp_calloc(L->h->nobj ? L->h->nobj : 1, sizeof *cnt)))
				return hp_error_set(L->err, HP_ENOMEM, "out of memory");
			if ((rc = group_point(L, s, L->top + L->sfirst[i], (size_t)s->count, cnt)))
				break;
		}
		if ((rc = lk_trace_of(L, s->acc != HP_NONE ? s->acc : s->obj, L->o->path_head, L->o->path_tail, &s->trace)))
			break;
		holder_of(L, s);
		if ((rc = lk_suspect_content(L, s, s->is_class ? L->top + L->sfirst[i] : NULL,
					     s->is_class ? (size_t)s->count : 0)))
			break;
	}
	hp_free(cnt);
	if (rc)
		return rc;
	/* largest first (few: at most 100 / threshold objects and classes) */
	for (size_t a = 1; a < out->nsuspects; a++) {
		struct hp_leak_suspect x = out->suspects[a];
		size_t b = a;
		while (b > 0 && out->suspects[b - 1].retained < x.retained) {
			out->suspects[b] = out->suspects[b - 1];
			b--;
		}
		out->suspects[b] = x;
	}
	return HP_OK;
}
