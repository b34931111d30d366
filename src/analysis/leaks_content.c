/* leaks_content.c — what a leak suspect holds, in the user's terms
 * (leaks.h): the collection that owns the accumulation point and its size,
 * the point's retained set by class, and the objects the set's lambdas and
 * inner classes capture. */
#include "analysis/leaks_state.h"
#include "analysis/collections.h"
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

struct frame { uint32_t v, next; };

struct walk {
	uint64_t *count, *shallow, *retained;
	uint32_t *open;           /* per class: objects of it on the walk's stack */
	uint8_t *capt;            /* per class: 0 not looked at, 1 not capturing, 2 capturing */
	struct frame *st;
	size_t cap;
	uint32_t *inst;           /* instances of capturing classes */
	size_t ninst, icap;
};

static int push(struct walk *w, size_t *sp, uint32_t v)
{
	if (*sp == w->cap) {
		struct frame *ns = hp_grow(w->st, &w->cap, *sp + 1, 1024, sizeof *ns);
		if (!ns)
			return HP_ENOMEM;
		w->st = ns;
	}
	w->st[(*sp)++] = (struct frame){ v, 0 };
	return HP_OK;
}

/* one root's dominator subtree, without recursion: each object counted on
 * the way down, its retained size only when no object of its class is above
 * it in the subtree (the fold) */
static int walk_subtree(struct lk *L, struct walk *w, uint32_t root)
{
	const struct hp_retained *R = L->R;
	const hp_heap *h = L->h;
	size_t sp = 0;
	for (uint32_t v = root;;) {
		if (v != HP_NONE) {
			uint32_t c = h->cls[v];
			w->count[c]++;
			w->shallow[c] += R->shallow[v];
			if (!w->open[c]++)
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
			if (push(w, &sp, v))
				return HP_ENOMEM;
		}
		if (!sp)
			return HP_OK;
		struct frame *f = &w->st[sp - 1];
		uint32_t lo = R->child_off[f->v], hi = R->child_off[f->v + 1];
		if (lo + f->next < hi) {
			v = R->children[lo + f->next++];
		} else {
			w->open[h->cls[f->v]]--;
			sp--;
			v = HP_NONE;
			if (!sp)
				return HP_OK;
		}
	}
}

static int by_shallow(const void *a, const void *b)
{
	const struct hp_leak_class_count *x = a, *y = b;
	return hp_cmp3_u64(y->shallow, x->shallow, y->count, x->count, x->cls, y->cls);
}

/* ---- what lambdas and inner classes capture ---------------------------------- */

struct cap { uint32_t holder, target, obj; uint64_t sid; const char *name; };

static int by_cap(const void *a, const void *b)
{
	const struct cap *x = a, *y = b;
	return hp_cmp4_u64(x->holder, y->holder, x->sid, y->sid, x->target, y->target, x->obj, y->obj);
}

static int by_capture_count(const void *a, const void *b)
{
	const struct hp_leak_capture *x = a, *y = b;
	return hp_cmp3_u64(y->count, x->count, x->holder, y->holder, x->target, y->target);
}

static int captures(struct lk *L, struct hp_leak_suspect *s, struct walk *w)
{
	const hp_heap *h = L->h;
	if (!w->ninst)
		return HP_OK;
	HP_TRY(hp_objread_prefetch(L->rd, w->inst, w->ninst, L->err));
	struct cap *cs = NULL;
	size_t n = 0, cap = 0;
	int rc = HP_OK;
	for (size_t i = 0; i < w->ninst && rc == HP_OK; i++) {
		struct hp_objdata o;
		if ((rc = hp_objread_decode(L->rd, w->inst[i], 0, &o, L->err)))
			break;
		for (size_t k = 0; k < o.nfields; k++) {
			const struct hp_objval *f = &o.fields[k];
			if (f->decl != o.cls || f->type != HP_T_OBJECT || !f->bits || !captured_name(f->name))
				continue;
			size_t t = hp_heap_find(h, f->bits);
			if (t == SIZE_MAX)
				continue;
			if (n == cap) {
				struct cap *ncs = hp_grow(cs, &cap, n + 1, 256, sizeof *ncs);
				if (!ncs) {
					rc = hp_error_set(L->err, HP_ENOMEM, "out of memory");
					break;
				}
				cs = ncs;
			}
			cs[n++] = (struct cap){ o.cls, h->cls[t], (uint32_t)t, f->name_sid, f->name };
		}
		hp_objread_release(&o);
	}
	if (rc == HP_OK && n) {
		qsort(cs, n, sizeof *cs, by_cap);
		struct hp_leak_capture *g = hp_calloc(n, sizeof *g);
		if (!g) {
			rc = hp_error_set(L->err, HP_ENOMEM, "out of memory");
		} else {
			size_t ng = 0;
			for (size_t i = 0; i < n;) {
				size_t j = i;
				struct hp_leak_capture *e = &g[ng++];
				e->holder = cs[i].holder;
				e->target = cs[i].target;
				e->field = cs[i].name;
				while (j < n && cs[j].holder == cs[i].holder && cs[j].sid == cs[i].sid && cs[j].target == cs[i].target) {
					e->refs++;
					e->count += j == i || cs[j].obj != cs[j - 1].obj;
					j++;
				}
				i = j;
			}
			/* only the captures that make 1% of the set's objects' references */
			size_t kept = 0;
			for (size_t i = 0; i < ng; i++)
				if (g[i].refs * 100 >= s->set_objects)
					g[kept++] = g[i];
			qsort(g, kept, sizeof *g, by_capture_count);
			s->captures = g;
			s->ncaptures = kept < HP_LEAK_CAPTURES ? kept : HP_LEAK_CAPTURES;
		}
	}
	hp_free(cs);
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
	hp_free(w.count);
	hp_free(w.shallow);
	hp_free(w.retained);
	hp_free(w.open);
	hp_free(w.capt);
	hp_free(w.st);
	hp_free(w.inst);
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
