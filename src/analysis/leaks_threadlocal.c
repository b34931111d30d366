/* leaks_threadlocal.c — ThreadLocal suspects (leaks.h): a ThreadLocal
 * whose values over all threads retain at least the threshold is one
 * suspect, and the Thread suspects it explains are folded into it. */
#include "analysis/leaks_state.h"
#include "base/alloc.h"

#include <string.h>

int lk_select_tls(struct lk *L, struct hp_leaks *out)
{
	int rc = hp_tlocals_collect(L->h, L->R, L->rd, &out->tl, L->err);
	if (rc)
		return rc;
	size_t n = 0;
	for (size_t k = 0; k < out->tl.nkeys; k++)
		if (out->tl.keys[k].retained >= out->threshold_bytes && out->tl.keys[k].values)
			n++;
	out->tls = hp_calloc(n ? n : 1, sizeof *out->tls);
	if (!out->tls)
		return hp_error_set(L->err, HP_ENOMEM, "out of memory");
	for (size_t k = 0; k < out->tl.nkeys; k++) {
		const struct hp_tl_key *K = &out->tl.keys[k];
		if (K->retained < out->threshold_bytes || !K->values)
			continue;
		struct hp_leak_tl *T = &out->tls[out->ntls++];
		T->key = (uint32_t)k;
		T->largest = HP_NONE;
		T->acc_cls = HP_NONE;
	}
	/* the largest value of each (keys are by retained, so are the suspects) */
	for (size_t i = 0; i < out->tl.n; i++) {
		const struct hp_tl_entry *E = &out->tl.e[i];
		if (E->value == HP_NONE)
			continue;
		for (size_t t = 0; t < out->ntls; t++) {
			struct hp_leak_tl *T = &out->tls[t];
			if (T->key == E->key && (T->largest == HP_NONE || E->retained > L->R->retained[T->largest]))
				T->largest = E->value;
		}
	}
	return HP_OK;
}

size_t lk_tl_targets(const struct hp_leaks *out, uint32_t *to)
{
	size_t n = 0;
	for (size_t t = 0; t < out->ntls; t++)
		if (out->tls[t].largest != HP_NONE) {
			if (to)
				to[n] = out->tls[t].largest;
			n++;
		}
	return n;
}

/* the ThreadLocal suspect whose value, held by thread object `thread`, is
 * acc or one of its dominators within `depth` steps up; HP_NONE */
static uint32_t explaining(const struct lk *L, const struct hp_leaks *out, const struct hp_idmap *thread_rec,
			   uint32_t thread, uint32_t acc, uint64_t depth)
{
	uint32_t rec = hp_idmap_get(thread_rec, thread);
	if (rec == HP_IDMAP_NONE)
		return HP_NONE;
	size_t ne, first = hp_tlocals_of_thread(&out->tl, rec, &ne);
	const uint32_t *idom = L->R->dom.idom;
	uint32_t v = acc;
	for (uint64_t d = 0; d <= depth && v < L->h->nobj; d++) {
		for (size_t i = first; i < first + ne; i++) {
			const struct hp_tl_entry *E = &out->tl.e[i];
			if (E->value != v || !E->owned)
				continue;
			for (size_t t = 0; t < out->ntls; t++)
				if (out->tls[t].key == E->key)
					return (uint32_t)t;
		}
		if (!idom)
			break;
		v = idom[v];
	}
	return HP_NONE;
}

int lk_finish_tls(struct lk *L, struct hp_leaks *out)
{
	const hp_heap *h = L->h;
	out->suspect_tl = hp_reallocarray(NULL, out->nsuspects ? out->nsuspects : 1, sizeof *out->suspect_tl);
	if (!out->suspect_tl)
		return hp_error_set(L->err, HP_ENOMEM, "out of memory");
	for (size_t i = 0; i < out->nsuspects; i++)
		out->suspect_tl[i] = HP_NONE;
	for (size_t t = 0; t < out->ntls; t++) {
		struct hp_leak_tl *T = &out->tls[t];
		if (T->largest != HP_NONE) {
			int rc = lk_trace_of(L, T->largest, L->o->path_head, L->o->path_tail, &T->trace);
			if (rc)
				return rc;
		}
	}
	if (!out->ntls)
		return HP_OK;
	/* Thread object -> its thread record */
	struct hp_idmap rec;
	hp_idmap_init(&rec);
	for (size_t i = 0; i < h->nthreads; i++) {
		size_t o = h->threads[i].object_id ? hp_heap_find(h, h->threads[i].object_id) : SIZE_MAX;
		uint32_t r = (uint32_t)i;
		if (o != SIZE_MAX && hp_idmap_insert(&rec, o, &r) < 0) {
			hp_idmap_release(&rec);
			return hp_error_set(L->err, HP_ENOMEM, "out of memory");
		}
	}
	for (size_t i = 0; i < out->nsuspects; i++) {
		const struct hp_leak_suspect *s = &out->suspects[i];
		if (s->is_class || s->acc == HP_NONE)
			continue;
		uint32_t t = explaining(L, out, &rec, s->obj, s->acc, s->acc_depth);
		if (t == HP_NONE)
			continue;
		struct hp_leak_tl *T = &out->tls[t];
		out->suspect_tl[i] = t;
		if (!T->folded++) {
			T->acc_cls = s->acc_cls;
		} else if (T->acc_cls != s->acc_cls) {
			T->acc_cls = HP_NONE;
		}
		T->acc_count += s->acc_count;
		T->acc_bytes += s->acc_bytes;
	}
	hp_idmap_release(&rec);
	return HP_OK;
}
