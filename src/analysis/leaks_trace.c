/* leaks_trace.c — a leak trace: the shortest path from a GC root to a
 * suspect or a zombie, cut to its first and last steps, each with the
 * reference it was reached by, and its signature text (leaks.h). */
#include "analysis/leaks_state.h"
#include "base/alloc.h"

#include <stdio.h>
#include <string.h>

/* ---- traces --------------------------------------------------------------- */

void lk_trace_release(struct hp_leak_trace *t)
{
	hp_free(t->steps);
	memset(t, 0, sizeof *t);
}

/* The shortest path to target cut to its first head and last tail steps
 * (paths.h), each step kept with the reference to it from the step before
 * it on the path (steps[gap.at]'s from gap.last). */
int lk_trace_of(struct lk *L, uint32_t target, size_t head, size_t tail, struct hp_leak_trace *t)
{
	memset(t, 0, sizeof *t);
	if (!L->have_paths || target >= L->P.n || hp_paths_parent(&L->P, target) == HP_PATH_UNSEEN)
		return HP_OK;
	size_t len = (size_t)hp_paths_depth(&L->P, target) + 1;
	struct hp_path_gap gap = hp_path_gap(len, head, tail);
	size_t n = len - gap.n;
	uint32_t *nodes = hp_reallocarray(NULL, n, sizeof *nodes);
	t->steps = hp_calloc(n, sizeof *t->steps);
	if (!nodes || !t->steps) {
		hp_free(nodes);
		lk_trace_release(t);
		return hp_error_set(L->err, HP_ENOMEM, "out of memory for a leak trace of %zu steps", n);
	}
	int rc = hp_paths_tree_cut(&L->P, target, &gap, nodes, L->err);
	for (size_t i = 0; rc == HP_OK && i < n; i++) {
		t->steps[i].obj = nodes[i];
		if (i)
			rc = hp_objread_find_ref(L->rd, gap.n && i == gap.at ? gap.last : nodes[i - 1], nodes[i],
						 &t->steps[i].ref, L->err);
	}
	hp_free(nodes);
	if (rc) {
		lk_trace_release(t);
		return rc;
	}
	t->n = n;
	t->gap = gap;
	return HP_OK;
}

/* the class an object's name is taken from: the class a class object is */
const char *lk_owner_name(const hp_heap *h, uint32_t v)
{
	if (hp_heap_kind(h, v) == HP_OBJ_CLASS) {
		size_t k = hp_idmap_get(&h->class_map, hp_heap_id(h, v));
		if (k != HP_IDMAP_NONE)
			return hp_class_name(h, k);
	}
	return hp_class_name(h, h->cls[v]);
}

void hp_leaks_signature_text(const hp_heap *h, const struct hp_leak_trace *t, char *buf, size_t n)
{
	size_t o = 0;
	if (!n)
		return;
	buf[0] = '\0';
	size_t m = t->gap.n ? t->gap.at : t->n;     /* a cut trace: its first steps */
	for (size_t i = 0; i < m && o + 1 < n; i++) {
		uint32_t v = t->steps[i].obj;
		const char *cn = lk_owner_name(h, v);
		int w = snprintf(buf + o, n - o, "%s%s%s", i ? " > " : "",
				 hp_heap_kind(h, v) == HP_OBJ_CLASS ? "class " : "", cn);
		o = w < 0 ? o : o + (size_t)w >= n ? n - 1 : o + (size_t)w;
		if (i + 1 >= m || o + 1 >= n)
			continue;
		const struct hp_objref *r = &t->steps[i + 1].ref;
		switch (r->kind) {
		case HP_REF_FIELD: w = snprintf(buf + o, n - o, ".%s", r->name ? r->name : "?"); break;
		case HP_REF_STATIC: w = snprintf(buf + o, n - o, ".static %s", r->name ? r->name : "?"); break;
		case HP_REF_ELEMENT: w = snprintf(buf + o, n - o, "[x]"); break;
		case HP_REF_SUPER: w = snprintf(buf + o, n - o, ".<super>"); break;
		case HP_REF_LOADER: w = snprintf(buf + o, n - o, ".<loader>"); break;
		case HP_REF_LOCAL: w = snprintf(buf + o, n - o, ".<%s>", hp_root_kind_name(r->root_kind)); break;
		case HP_REF_CLASS: w = snprintf(buf + o, n - o, ".<class>"); break;
		default: w = snprintf(buf + o, n - o, ".<?>"); break;
		}
		o = w < 0 ? o : o + (size_t)w >= n ? n - 1 : o + (size_t)w;
	}
}
