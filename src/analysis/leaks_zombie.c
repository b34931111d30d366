/* leaks_zombie.c — the zombie rules (leaks.h): the built-in ones after
 * Shark's object inspectors and LeakCanary's watchers, the user's --zombie
 * ones and the check that each can match, what they say of each object,
 * LeakCanary's statuses along a zombie's trace, and the zombies grouped
 * into leaks by signature. */
#include "analysis/leaks_state.h"
#include "base/alloc.h"
#include "base/cmp.h"
#include "base/hash.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* leaks whose retained set is computed (one walk of the graph each) */
#define MAX_LEAK_SETS 100
/* ContextWrapper.mBase links followed to find an Activity */
#define MAX_UNWRAP 16
/* the steps of a trace its signature text is made of, at most: 8192 bytes
 * (lk_find_zombies()) hold fewer, each step past the first taking 6 or more */
#define SIG_STEPS 2048

/* ---- rules ---------------------------------------------------------------- */

int hp_leak_rule_parse(const char *s, struct hp_leak_rule *r, struct hp_error *err)
{
	memset(r, 0, sizeof *r);
	while (*s == ' ' || *s == '\t')
		s++;
	size_t len = strlen(s);
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r' || s[len - 1] == '\n'))
		len--;
	const char *colon = memchr(s, ':', len);
	const char *eq = colon ? memchr(colon, '=', len - (size_t)(colon - s)) : NULL;
	if (!colon || !eq || colon == s || eq == colon + 1 || eq == s + len - 1)
		return hp_error_set(err, HP_EUSAGE, "'%.*s' is not a rule CLASS:FIELD=VALUE", (int)(len > 200 ? 200 : len), s);
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20)
			return hp_error_set(err, HP_EUSAGE, "a rule holds no control character");
	r->text = hp_malloc(len + 1);
	if (!r->text)
		return hp_error_set(err, HP_ENOMEM, "out of memory");
	memcpy(r->text, s, len);
	r->text[len] = '\0';
	size_t ci = (size_t)(colon - s), ei = (size_t)(eq - s);
	r->text[ci] = '\0';
	r->text[ei] = '\0';
	r->cls = r->text;
	r->field = r->text + ci + 1;
	r->value = r->text + ei + 1;
	const char *v = r->value;
	size_t vl = strlen(v);
	if (!strcmp(v, "true")) {
		r->op = HP_LR_TRUE;
	} else if (!strcmp(v, "false")) {
		r->op = HP_LR_FALSE;
	} else if (!strcmp(v, "null")) {
		r->op = HP_LR_NULL;
	} else if (!strcmp(v, "!null")) {
		r->op = HP_LR_NOTNULL;
	} else if (vl >= 2 && (v[0] == '"' || v[0] == '\'') && v[vl - 1] == v[0]) {
		r->op = HP_LR_STRING;
		memmove(r->text + ei + 1, v + 1, vl - 2);
		r->text[ei + 1 + vl - 2] = '\0';
	} else {
		char *end;
		double d = strtod(v, &end);
		if (end != v && !*end && isfinite(d)) {
			r->op = HP_LR_NUMBER;
			r->num = d;
		} else {
			r->op = HP_LR_STRING;
		}
	}
	return HP_OK;
}

void hp_leak_rule_release(struct hp_leak_rule *r)
{
	hp_free(r->text);
	memset(r, 0, sizeof *r);
}

/* ---- checking a rule against the heap ----------------------------------- */

/* the type of instance field `name` that class c declares itself, 0 when it
 * declares none of that name */
static int own_field(const hp_heap *h, uint32_t c, const char *name)
{
	const struct hp_class *k = &h->classes[c];
	for (uint32_t i = 0; i < k->n_fields && (size_t)k->first_field + i < h->nfields; i++) {
		const char *fn = hp_heap_string(h, h->fields[k->first_field + i].name_sid, NULL);
		if (fn && !strcmp(fn, name))
			return h->fields[k->first_field + i].type;
	}
	return 0;
}

/* the value of rule op can be a field of that type */
static int value_fits(int op, int type)
{
	switch (op) {
	case HP_LR_TRUE:
	case HP_LR_FALSE:
		return type == HP_T_BOOLEAN;
	case HP_LR_NUMBER:
		return type != HP_T_BOOLEAN && type != HP_T_OBJECT;
	default:    /* null, !null, a string */
		return type == HP_T_OBJECT;
	}
}

/* The classes in an order where each comes after its super class, into
 * order (nclasses entries), with up[c] the super class c's answers build
 * on: HP_NONE at the top and where a loop of super classes (which the
 * model may leave) is cut.  O(classes) however deep the chains: a class's
 * answer is its own and its super class's, never a walk up the chain. */
static int chain_order(const hp_heap *h, uint32_t **order, uint32_t **up)
{
	size_t nc = h->nclasses;
	uint8_t *state = hp_calloc(nc ? nc : 1, 1);
	uint32_t *stack = hp_calloc(nc ? nc : 1, sizeof *stack);
	*order = hp_calloc(nc ? nc : 1, sizeof **order);
	*up = hp_calloc(nc ? nc : 1, sizeof **up);
	if (!state || !stack || !*order || !*up) {
		hp_free_all(state, stack, *order, *up);
		*order = *up = NULL;
		return HP_ENOMEM;
	}
	size_t no = 0;
	for (size_t i = 0; i < nc; i++) {
		size_t sp = 0;
		uint32_t c = (uint32_t)i;
		while (c != HP_NONE && c < nc && state[c] == 0) {
			state[c] = 1;
			stack[sp++] = c;
			c = h->classes[c].super;
		}
		while (sp > 0) {
			uint32_t k = stack[--sp], sup = h->classes[k].super;
			(*up)[k] = sup != HP_NONE && sup < nc && state[sup] == 2 ? sup : HP_NONE;
			state[k] = 2;
			(*order)[no++] = k;
		}
	}
	hp_free(state);
	hp_free(stack);
	return HP_OK;
}

/* the own instance fields of class c offered to near */
static void offer_fields(const hp_heap *h, uint32_t c, struct hp_near *near)
{
	const struct hp_class *k = &h->classes[c];
	for (uint32_t i = 0; i < k->n_fields && (size_t)k->first_field + i < h->nfields; i++) {
		const char *fn = hp_heap_string(h, h->fields[k->first_field + i].name_sid, NULL);
		if (fn)
			hp_near_offer(near, fn);
	}
}

/* per class (mark): bit 1 the class is, or extends, one named r->cls; bit
 * 2 it is a super class of one so named; bit 4 it or a super class
 * declares r->field */
enum { M_SUB = 1, M_ABOVE = 2, M_HAS = 4 };

int hp_leak_rule_check(const hp_heap *h, const struct hp_leak_rule *r, struct hp_leak_rule_fault *f)
{
	memset(f, 0, sizeof *f);
	f->inner = HP_NONE;
	size_t flen = strlen(r->field);
	hp_near_init(&f->fields, r->field, flen <= 4 ? 1 : flen <= 8 ? 2 : 3, 1);
	size_t nc = h->nclasses, cl = strlen(r->cls);
	uint32_t *order, *up;
	uint8_t *mark = hp_calloc(nc ? nc : 1, 1);
	if (!mark || chain_order(h, &order, &up) != HP_OK) {
		hp_free(mark);
		return HP_ENOMEM;
	}
	int named = 0, declared = 0, fits = 0;
	for (size_t i = 0; i < nc; i++) {
		uint32_t c = order[i], s = up[c];
		int t = own_field(h, c, r->field);
		if (!strcmp(hp_class_name(h, c), r->cls)) {
			named = 1;
			mark[c] |= M_SUB;
			/* its super classes: each marked once */
			for (uint32_t a = up[c]; a != HP_NONE && !(mark[a] & M_ABOVE); a = up[a])
				mark[a] |= M_ABOVE;
		}
		if (s != HP_NONE)
			mark[c] |= mark[s] & (M_SUB | M_HAS);
		if (t)
			mark[c] |= M_HAS;
	}
	/* the field in the class, a super or a subclass */
	for (size_t c = 0; c < nc && !fits; c++) {
		int t = mark[c] & (M_SUB | M_ABOVE) ? own_field(h, (uint32_t)c, r->field) : 0;
		if (!t)
			continue;
		if (!declared)
			f->type = (uint8_t)t;
		declared = 1;
		fits = value_fits(r->op, t);
	}
	f->kind = fits ? HP_LRF_OK : !named ? HP_LRF_NO_CLASS : !declared ? HP_LRF_NO_FIELD : HP_LRF_TYPE;
	if (f->kind == HP_LRF_NO_CLASS || f->kind == HP_LRF_NO_FIELD) {
		/* CLASS$...: an inner class the shell may have cut to CLASS */
		for (size_t c = 0; c < nc; c++) {
			const char *n = hp_class_name(h, c);
			if (strncmp(n, r->cls, cl) || n[cl] != '$' || !n[cl + 1])
				continue;
			if (f->kind == HP_LRF_NO_FIELD && !(mark[c] & M_HAS))
				continue;
			if (f->inner == HP_NONE || strcmp(n, hp_class_name(h, f->inner)) < 0)
				f->inner = (uint32_t)c;
		}
	}
	if (f->kind == HP_LRF_NO_FIELD) {
		/* the nearest names: the fields of the rule's classes, their
		 * super classes and their subclasses */
		for (size_t c = 0; c < nc; c++)
			if (mark[c] & (M_SUB | M_ABOVE))
				offer_fields(h, (uint32_t)c, &f->fields);
	}
	hp_free(mark);
	hp_free(order);
	hp_free(up);
	return HP_OK;
}

const char *hp_leak_status_name(int status)
{
	switch (status) {
	case HP_LEAK_NO: return "NOT LEAKING";
	case HP_LEAK_YES: return "LEAKING";
	default: return "UNKNOWN";
	}
}

void hp_leaks_opts_init(struct hp_leaks_opts *o)
{
	memset(o, 0, sizeof *o);
	o->threshold = 10;
	o->big_drop = 0.7;
	o->path_head = HP_PATH_HEAD;
	o->path_tail = HP_PATH_TAIL;
}

/* ---- the classes the rules know --------------------------------------- */

enum {
	K_ACTIVITY = 1 << 0, K_FRAGMENT = 1 << 1, K_SUPPORT_FRAGMENT = 1 << 2, K_ANDROIDX_FRAGMENT = 1 << 3,
	K_VIEW = 1 << 4, K_DIALOG = 1 << 5, K_MQ = 1 << 6, K_APPLICATION = 1 << 7,
	K_ACTIVITY_THREAD = 1 << 8, K_CONTEXT_WRAPPER = 1 << 9, K_CLASSLOADER = 1 << 10,
	K_THREAD = 1 << 11, K_SERVICE = 1 << 12, K_VIEWMODEL = 1 << 13, K_VIEW_ROOT = 1 << 14
};
#define K_FRAGMENTS (K_FRAGMENT | K_SUPPORT_FRAGMENT | K_ANDROIDX_FRAGMENT)
/* the classes whose instances are looked at for zombies */
#define K_WATCHED (K_ACTIVITY | K_FRAGMENTS | K_VIEW | K_DIALOG | K_MQ | K_SERVICE | K_VIEWMODEL | K_VIEW_ROOT)
/* the classes whose fields a rule reads */
#define K_DECODED (K_ACTIVITY | K_FRAGMENTS | K_VIEW | K_DIALOG | K_MQ | K_CONTEXT_WRAPPER | K_VIEWMODEL | K_VIEW_ROOT)

static const struct { const char *name; unsigned bit; } known[] = {
	{ "android.app.Activity", K_ACTIVITY },
	{ "android.app.Fragment", K_FRAGMENT },
	{ "android.support.v4.app.Fragment", K_SUPPORT_FRAGMENT },
	{ "androidx.fragment.app.Fragment", K_ANDROIDX_FRAGMENT },
	{ "android.view.View", K_VIEW },
	{ "android.app.Dialog", K_DIALOG },
	{ "android.os.MessageQueue", K_MQ },
	{ "android.app.Application", K_APPLICATION },
	{ "android.app.ActivityThread", K_ACTIVITY_THREAD },
	{ "android.content.ContextWrapper", K_CONTEXT_WRAPPER },
	{ "java.lang.ClassLoader", K_CLASSLOADER },
	{ "java.lang.Thread", K_THREAD },
	{ "android.app.Service", K_SERVICE },
	{ "androidx.lifecycle.ViewModel", K_VIEWMODEL },
	{ "android.view.ViewRootImpl", K_VIEW_ROOT },
};

static const char *simple_name(const char *n)
{
	const char *d = strrchr(n, '.');
	return d ? d + 1 : n;
}

int lk_build_isa(struct lk *L)
{
	const hp_heap *h = L->h;
	size_t nc = h->nclasses;
	L->isa = hp_calloc(nc ? nc : 1, sizeof *L->isa);
	if (!L->isa)
		return HP_ENOMEM;
	if (L->o->nrules) {
		if (nc && L->o->nrules > SIZE_MAX / nc)
			return HP_ENOMEM;
		L->rule_isa = hp_calloc(L->o->nrules * nc + 1, 1);
		if (!L->rule_isa)
			return HP_ENOMEM;
	}
	/* the known names, per class (no pass up the chain yet) */
	uint32_t *own = hp_calloc(nc ? nc : 1, sizeof *own);
	if (!own)
		return HP_ENOMEM;
	for (size_t c = 0; c < nc; c++) {
		const char *n = hp_class_name(h, c);
		for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
			if (!strcmp(n, known[k].name))
				own[c] |= known[k].bit;
	}
	/* then down the chains: a class has what its super class has */
	uint32_t *order, *up;
	if (chain_order(h, &order, &up) != HP_OK) {
		hp_free(own);
		return HP_ENOMEM;
	}
	for (size_t i = 0; i < nc; i++) {
		uint32_t c = order[i], s = up[c];
		L->isa[c] = own[c] | (s != HP_NONE ? L->isa[s] : 0);
		if (L->o->nrules) {
			const char *n = hp_class_name(h, c);
			for (size_t r = 0; r < L->o->nrules; r++)
				L->rule_isa[r * nc + c] = !strcmp(n, L->o->rules[r].cls) ||
							  (s != HP_NONE && L->rule_isa[r * nc + s]);
		}
	}
	hp_free(order);
	hp_free(up);
	hp_free(own);
	return HP_OK;
}

static int rule_matches_class(const struct lk *L, size_t r, uint32_t cls)
{
	return L->rule_isa && L->rule_isa[r * L->h->nclasses + cls];
}

/* ---- inspecting one object -------------------------------------------- */


static void add(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(char *buf, const char *fmt, ...)
{
	size_t o = strlen(buf);
	if (o >= HP_LEAK_REASON - 1)
		return;
	if (o) {
		int w = snprintf(buf + o, HP_LEAK_REASON - o, "%c", HP_LEAK_SEP);
		if (w < 0 || (size_t)w >= HP_LEAK_REASON - o)
			return;
		o += (size_t)w;
	}
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + o, HP_LEAK_REASON - o, fmt, ap);
	va_end(ap);
}

static int decode(struct lk *L, uint32_t v, struct hp_objdata *od)
{
	return hp_objread_decode(L->rd, v, 0, od, L->err);
}

static const struct hp_objval *field(struct lk *L, const struct hp_objdata *od, const char *name, const char *decl)
{
	const struct hp_objval *f = hp_objread_field(L->rd, od, name, decl);
	if (!f && decl)
		f = hp_objread_field(L->rd, od, name, NULL);
	return f;
}

/* -1 no such field, else 0 / 1 */
static int bool_field(struct lk *L, const struct hp_objdata *od, const char *name, const char *decl)
{
	const struct hp_objval *f = field(L, od, name, decl);
	if (!f || f->type != HP_T_BOOLEAN)
		return -1;
	return f->bits != 0;
}

/* -1 no such field, 0 null, 1 not null */
static int ref_field(struct lk *L, const struct hp_objdata *od, const char *name, const char *decl, uint64_t *id)
{
	const struct hp_objval *f = field(L, od, name, decl);
	if (!f || f->type != HP_T_OBJECT)
		return -1;
	if (id)
		*id = f->bits;
	return f->bits != 0;
}

/* Activity.mDestroyed of object v: -1 unknown */
static int activity_destroyed(struct lk *L, size_t v, int *rc)
{
	struct hp_objdata od;
	if ((*rc = decode(L, (uint32_t)v, &od)) != HP_OK)
		return -1;
	int d = bool_field(L, &od, "mDestroyed", "android.app.Activity");
	hp_objread_release(&od);
	return d;
}

/* the Activity a context is, or wraps through ContextWrapper.mBase;
 * SIZE_MAX when none */
static size_t unwrap_activity(struct lk *L, uint64_t id, int *rc)
{
	const hp_heap *h = L->h;
	*rc = HP_OK;
	for (int i = 0; i < MAX_UNWRAP && id; i++) {
		size_t v = hp_heap_find(h, id);
		if (v == SIZE_MAX || hp_heap_kind(h, v) != HP_OBJ_INSTANCE)
			return SIZE_MAX;
		unsigned k = L->isa[h->cls[v]];
		if (k & K_ACTIVITY)
			return v;
		if (!(k & K_CONTEXT_WRAPPER))
			return SIZE_MAX;
		struct hp_objdata od;
		if ((*rc = decode(L, (uint32_t)v, &od)) != HP_OK)
			return SIZE_MAX;
		uint64_t next = 0;
		if (ref_field(L, &od, "mBase", "android.content.ContextWrapper", &next) != 1)
			next = 0;
		hp_objread_release(&od);
		id = next;
	}
	return SIZE_MAX;
}

/* whether od's context field name (declared in decl) is, or wraps, a
 * destroyed Activity: 1 yes, 0 no, -1 it is no Activity or cannot be read
 * (*rc set when that is an error) */
static int context_destroyed(struct lk *L, const struct hp_objdata *od, const char *name, const char *decl,
			     int *rc)
{
	uint64_t ctx = 0;
	size_t act = SIZE_MAX;
	if (ref_field(L, od, name, decl, &ctx) == 1)
		act = unwrap_activity(L, ctx, rc);
	return act != SIZE_MAX && *rc == HP_OK ? activity_destroyed(L, act, rc) : -1;
}

/* an int field: 1 with *v set, -1 no such field */
static int int_field(struct lk *L, const struct hp_objdata *od, const char *name, const char *decl, int32_t *v)
{
	const struct hp_objval *f = field(L, od, name, decl);
	if (!f || f->type != HP_T_INT)
		return -1;
	*v = (int32_t)(uint32_t)f->bits;
	return 1;
}

/* ---- the Android registries ------------------------------------------- */

static int by_u32(const void *a, const void *b)
{
	return hp_cmp_u64(*(const uint32_t *)a, *(const uint32_t *)b);
}

static int in_set(const struct lk_set *s, uint32_t v)
{
	return s->n && bsearch(&v, s->v, s->n, sizeof *s->v, by_u32) != NULL;
}

/* the instance the static `name` of the class named cname holds (the
 * first such class whose static is an instance), SIZE_MAX when none */
static size_t static_instance(struct lk *L, const char *cname, const char *name, int *rc)
{
	const hp_heap *h = L->h;
	*rc = HP_OK;
	for (size_t c = 0; c < h->nclasses; c++) {
		if (strcmp(hp_class_name(h, c), cname))
			continue;
		size_t v = hp_heap_find(h, h->classes[c].id);
		if (v == SIZE_MAX || hp_heap_kind(h, v) != HP_OBJ_CLASS)
			continue;
		struct hp_objdata od;
		if ((*rc = decode(L, (uint32_t)v, &od)) != HP_OK)
			return SIZE_MAX;
		uint64_t id = 0;
		if (ref_field(L, &od, name, NULL, &id) != 1)
			id = 0;
		hp_objread_release(&od);
		size_t t = id ? hp_heap_find(h, id) : SIZE_MAX;
		if (t != SIZE_MAX && hp_heap_kind(h, t) == HP_OBJ_INSTANCE)
			return t;
	}
	return SIZE_MAX;
}

/* the object array that field `name` of instance v names, decoded into
 * arr (every element); 1 when there is one, 0 when not */
static int array_field(struct lk *L, size_t v, const char *name, const char *decl, struct hp_objdata *arr,
		       int32_t *size, int *rc)
{
	const hp_heap *h = L->h;
	struct hp_objdata od;
	*size = -1;
	if ((*rc = decode(L, (uint32_t)v, &od)) != HP_OK)
		return 0;
	uint64_t id = 0;
	if (ref_field(L, &od, name, decl, &id) != 1)
		id = 0;
	int32_t sz;
	if (int_field(L, &od, "size", NULL, &sz) == 1)
		*size = sz;
	hp_objread_release(&od);
	size_t a = id ? hp_heap_find(h, id) : SIZE_MAX;
	if (a == SIZE_MAX || hp_heap_kind(h, a) != HP_OBJ_OBJARRAY)
		return 0;
	if ((*rc = hp_objread_decode(L->rd, a, UINT32_MAX, arr, L->err)) != HP_OK)
		return 0;
	return 1;
}

/* the objects of elements first, first + step, ... of arr (up to end) into s */
static int set_of(struct lk *L, const struct hp_objdata *arr, size_t first, size_t step, size_t end,
		  struct lk_set *s)
{
	if (end > arr->nelems)
		end = arr->nelems;
	s->v = hp_reallocarray(NULL, end / step + 1, sizeof *s->v);
	if (!s->v)
		return hp_error_set(L->err, HP_ENOMEM, "out of memory");
	for (size_t i = first; i < end; i += step) {
		size_t o = arr->elems[i] ? hp_heap_find(L->h, arr->elems[i]) : SIZE_MAX;
		if (o != SIZE_MAX)
			s->v[s->n++] = (uint32_t)o;
	}
	qsort(s->v, s->n, sizeof *s->v, by_u32);
	s->known = 1;
	return HP_OK;
}

/* the elements of java.util.ArrayList field `name` of instance v
 * (elementData and size; the libcore ArrayList of Android before 7 calls
 * its array `array`) into s; s->known 0 when v has no such list */
static int list_field(struct lk *L, size_t v, const char *name, const char *decl, struct lk_set *s)
{
	const hp_heap *h = L->h;
	struct hp_objdata od;
	int rc = decode(L, (uint32_t)v, &od);
	if (rc)
		return rc;
	uint64_t id = 0;
	if (ref_field(L, &od, name, decl, &id) != 1)
		id = 0;
	hp_objread_release(&od);
	size_t list = id ? hp_heap_find(h, id) : SIZE_MAX;
	if (list == SIZE_MAX || hp_heap_kind(h, list) != HP_OBJ_INSTANCE)
		return HP_OK;
	struct hp_objdata arr;
	int32_t size;
	int have = array_field(L, list, "elementData", NULL, &arr, &size, &rc);
	if (!have && !rc)
		have = array_field(L, list, "array", NULL, &arr, &size, &rc);
	if (!have)
		return rc;
	rc = set_of(L, &arr, 0, 1, size >= 0 ? (size_t)size : arr.nelems, s);
	hp_objread_release(&arr);
	return rc;
}

/* What the registries hold: the services ActivityThread runs (the values
 * of the ArrayMap sCurrentActivityThread.mServices: its mArray holds key,
 * value, key, value, ...; as Shark's AndroidServices), and the windows
 * WindowManagerGlobal.sDefaultWindowManager has (mRoots, mViews). */
static int read_registries(struct lk *L)
{
	int rc;
	size_t at = static_instance(L, "android.app.ActivityThread", "sCurrentActivityThread", &rc);
	if (rc)
		return rc;
	if (at != SIZE_MAX) {
		struct hp_objdata od;
		HP_TRY(decode(L, (uint32_t)at, &od));
		uint64_t id = 0;
		if (ref_field(L, &od, "mServices", "android.app.ActivityThread", &id) != 1)
			id = 0;
		hp_objread_release(&od);
		size_t map = id ? hp_heap_find(L->h, id) : SIZE_MAX;
		struct hp_objdata arr;
		int32_t size;
		if (map != SIZE_MAX && hp_heap_kind(L->h, map) == HP_OBJ_INSTANCE &&
		    array_field(L, map, "mArray", "android.util.ArrayMap", &arr, &size, &rc)) {
			rc = set_of(L, &arr, 1, 2, arr.nelems, &L->services);
			hp_objread_release(&arr);
		}
		if (rc)
			return rc;
	}
	size_t wm = static_instance(L, "android.view.WindowManagerGlobal", "sDefaultWindowManager", &rc);
	if (rc)
		return rc;
	if (wm != SIZE_MAX) {
		HP_TRY(list_field(L, wm, "mRoots", "android.view.WindowManagerGlobal", &L->roots));
		HP_TRY(list_field(L, wm, "mViews", "android.view.WindowManagerGlobal", &L->root_views));
	}
	return HP_OK;
}

void lk_zombie_release(struct lk *L)
{
	hp_free(L->services.v);
	hp_free(L->roots.v);
	hp_free(L->root_views.v);
}

static double value_number(const struct hp_objval *f, int *ok)
{
	*ok = 1;
	switch (f->type) {
	case HP_T_FLOAT: {
		float x;
		uint32_t b = (uint32_t)f->bits;
		memcpy(&x, &b, sizeof x);
		return x;
	}
	case HP_T_DOUBLE: {
		double x;
		memcpy(&x, &f->bits, sizeof x);
		return x;
	}
	case HP_T_BYTE: return (int8_t)f->bits;
	case HP_T_SHORT: return (int16_t)f->bits;
	case HP_T_INT: return (int32_t)f->bits;
	case HP_T_CHAR: return (uint16_t)f->bits;
	case HP_T_LONG: return (double)(int64_t)f->bits;
	default: *ok = 0; return 0;
	}
}

/* 1 the rule holds, 0 it does not, -1 no such field */
static int rule_holds(struct lk *L, const struct hp_leak_rule *r, const struct hp_objdata *od, int *rc)
{
	*rc = HP_OK;
	const struct hp_objval *f = hp_objread_field(L->rd, od, r->field, NULL);
	if (!f)
		return -1;
	int ok;
	double d;
	switch (r->op) {
	case HP_LR_TRUE:
		return f->type == HP_T_BOOLEAN && f->bits;
	case HP_LR_FALSE:
		return f->type == HP_T_BOOLEAN && !f->bits;
	case HP_LR_NULL:
		return f->type == HP_T_OBJECT && !f->bits;
	case HP_LR_NOTNULL:
		return f->type == HP_T_OBJECT && f->bits;
	case HP_LR_NUMBER:
		d = value_number(f, &ok);
		return ok && d == r->num;
	default:
		break;
	}
	/* a string: the field names a java.lang.String with that text */
	if (f->type != HP_T_OBJECT || !f->bits)
		return 0;
	size_t v = hp_heap_find(L->h, f->bits);
	if (v == SIZE_MAX || !hp_objread_is_string(L->h, v))
		return 0;
	struct hp_text t;
	if ((*rc = hp_objread_text(L->rd, v, 0, &t, L->err)) != HP_OK)
		return 0;
	int m = t.utf8 && t.len == strlen(r->value) && !memcmp(t.utf8, r->value, t.len);
	hp_objread_text_release(&t);
	return m;
}

/* A View at the root of its hierarchy (mParent null, or not a View: a
 * ViewRootImpl) whose context is no destroyed Activity: not leaking while
 * WindowManagerGlobal.mViews holds it; a zombie when it was attached once
 * and is detached (mWindowAttachCount > 0, mAttachInfo null) and its
 * mParent is not null or it is a DecorView, as Shark's VIEW filter (a
 * parentless view of another class may be kept for reuse). */
/* a flag's verdict (1 true, 0 false, -1 unknown): true makes a zombie,
 * false says why not, unknown says nothing */
static void flag_verdict(struct verdict *vd, int flag, const char *what)
{
	if (flag == 1) {
		add(vd->yes, "%s is true", what);
		vd->zombie = 1;
	} else if (flag == 0) {
		add(vd->no, "%s is false", what);
	}
}

static void root_view(struct lk *L, uint32_t v, const struct hp_objdata *od, int attached, struct verdict *vd)
{
	const hp_heap *h = L->h;
	uint64_t pid = 0;
	int has_parent = ref_field(L, od, "mParent", "android.view.View", &pid);
	if (has_parent < 0)
		return;
	const char *parent = "not a View";
	if (has_parent == 1) {
		size_t p = hp_heap_find(h, pid);
		if (p != SIZE_MAX && hp_heap_kind(h, p) == HP_OBJ_INSTANCE && (L->isa[h->cls[p]] & K_VIEW))
			return;      /* not a root */
		if (p != SIZE_MAX && hp_heap_kind(h, p) == HP_OBJ_INSTANCE)
			parent = simple_name(hp_class_name(h, h->cls[p]));
	}
	if (L->root_views.known && in_set(&L->root_views, v)) {
		add(vd->no, "View is in WindowManagerGlobal.mViews (a window's root view)");
		vd->ruled = 1;
		return;
	}
	int32_t count = 0;
	if (attached != 0 || int_field(L, od, "mWindowAttachCount", "android.view.View", &count) != 1 || count <= 0)
		return;
	const char *cn = hp_class_name(h, h->cls[v]);
	if (has_parent == 1)
		add(vd->yes, "View.mParent is %s%s, View.mAttachInfo is null and View.mWindowAttachCount is %d"
		    " (a root view detached from its window)", strcmp(parent, "not a View") ? "a " : "", parent,
		    (int)count);
	else if (!strcmp(cn, "com.android.internal.policy.DecorView"))
		add(vd->yes, "DecorView.mParent is null, View.mAttachInfo is null and View.mWindowAttachCount is %d"
		    " (a window's root view, detached)", (int)count);
	else
		return;
	vd->zombie = 1;
	vd->ruled = 1;
}

static int inspect(struct lk *L, uint32_t v, struct verdict *vd)
{
	const hp_heap *h = L->h;
	memset(vd, 0, sizeof *vd);
	int kind = hp_heap_kind(h, v);
	if (kind == HP_OBJ_CLASS) {
		add(vd->no, "a class is never leaking");
		return HP_OK;
	}
	if (kind != HP_OBJ_INSTANCE)
		return HP_OK;
	uint32_t cls = h->cls[v];
	unsigned k = L->isa[cls];
	int ruled = 0;
	for (size_t r = 0; r < L->o->nrules && !ruled; r++)
		ruled = rule_matches_class(L, r, cls);
	if (!k && !ruled)
		return HP_OK;
	if (k & K_CLASSLOADER)
		add(vd->no, "a ClassLoader is never leaking");
	if ((k & K_THREAD) && (L->R->root_kinds[v] & (1u << HP_ROOT_THREAD_OBJECT)))
		add(vd->no, "the thread is alive (a GC root)");
	if (k & K_APPLICATION)
		add(vd->no, "Application is a singleton");
	if (k & K_ACTIVITY_THREAD)
		add(vd->no, "ActivityThread is a singleton");
	/* a Service ActivityThread no longer runs has been destroyed */
	if ((k & K_SERVICE) && L->services.known) {
		vd->ruled = 1;
		if (in_set(&L->services, v)) {
			add(vd->no, "Service is in ActivityThread.mServices");
		} else {
			add(vd->yes, "Service is not in ActivityThread.mServices (destroyed)");
			vd->zombie = 1;
		}
	}
	if (!(k & K_DECODED) && !ruled)
		return HP_OK;
	struct hp_objdata od;
	int rc = decode(L, v, &od);
	if (rc)
		return rc;
	vd->ruled |= ruled || (k & (K_ACTIVITY | K_FRAGMENTS | K_DIALOG | K_MQ | K_VIEWMODEL));
	if (k & K_ACTIVITY) {
		flag_verdict(vd, bool_field(L, &od, "mDestroyed", "android.app.Activity"), "Activity#mDestroyed");
	}
	static const struct { unsigned bit; const char *decl; } frag[] = {
		{ K_FRAGMENT, "android.app.Fragment" },
		{ K_SUPPORT_FRAGMENT, "android.support.v4.app.Fragment" },
		{ K_ANDROIDX_FRAGMENT, "androidx.fragment.app.Fragment" },
	};
	for (size_t i = 0; i < 3; i++) {
		if (!(k & frag[i].bit))
			continue;
		int m = ref_field(L, &od, "mFragmentManager", frag[i].decl, NULL);
		if (m == 0) {
			add(vd->yes, "Fragment#mFragmentManager is null");
			vd->zombie = 1;
		} else if (m == 1) {
			add(vd->no, "Fragment#mFragmentManager is not null");
		}
		break;
	}
	if (k & K_VIEW) {
		int attached = ref_field(L, &od, "mAttachInfo", "android.view.View", NULL);
		int destroyed = context_destroyed(L, &od, "mContext", "android.view.View", &rc);
		if (rc)
			goto out;
		if (destroyed == 1) {
			add(vd->yes, "View.mContext references a destroyed activity");
			if (attached == 0) {
				add(vd->yes, "View.mAttachInfo is null (view detached)");
				vd->zombie = 1;
				vd->ruled = 1;
			}
		} else {
			root_view(L, v, &od, attached, vd);
			if (attached == 1)
				add(vd->no, "View.mAttachInfo is not null (view attached)");
		}
	}
	if (k & K_VIEWMODEL) {
		int c = bool_field(L, &od, "mCleared", "androidx.lifecycle.ViewModel");
		const char *what = "ViewModel#mCleared";
		uint64_t impl = 0;
		if (c < 0 && ref_field(L, &od, "impl", "androidx.lifecycle.ViewModel", &impl) == 1) {
			/* lifecycle 2.8 and later: the state is in a ViewModelImpl */
			size_t iv = hp_heap_find(h, impl);
			struct hp_objdata io;
			if (iv != SIZE_MAX && hp_heap_kind(h, iv) == HP_OBJ_INSTANCE) {
				if ((rc = decode(L, (uint32_t)iv, &io)) != HP_OK)
					goto out;
				c = bool_field(L, &io, "isCleared", "androidx.lifecycle.viewmodel.internal.ViewModelImpl");
				hp_objread_release(&io);
				what = "ViewModel#impl.isCleared";
			}
		}
		flag_verdict(vd, c, what);
	}
	if (k & K_VIEW_ROOT) {
		int has_view = ref_field(L, &od, "mView", "android.view.ViewRootImpl", NULL);
		int destroyed = context_destroyed(L, &od, "mContext", "android.view.ViewRootImpl", &rc);
		if (rc)
			goto out;
		if (destroyed == 1) {
			add(vd->yes, "ViewRootImpl.mContext references a destroyed activity");
			vd->zombie = 1;
		}
		if (L->roots.known && !in_set(&L->roots, v)) {
			add(vd->yes, "ViewRootImpl is not in WindowManagerGlobal.mRoots (its window was removed)");
			vd->zombie = 1;
		} else if (L->roots.known && destroyed != 1) {
			add(vd->no, "ViewRootImpl is in WindowManagerGlobal.mRoots");
		}
		if (has_view == 0 && (vd->zombie || !L->roots.known)) {
			add(vd->yes, "ViewRootImpl#mView is null");
			vd->zombie = 1;
		}
		/* listed when a rule decided (not without mRoots and with a view) */
		vd->ruled |= vd->zombie || L->roots.known;
	}
	if (k & K_DIALOG) {
		int decor = ref_field(L, &od, "mDecor", "android.app.Dialog", NULL);
		int created = bool_field(L, &od, "mCreated", "android.app.Dialog");
		if (decor == 0 && created == 1) {
			add(vd->yes, "Dialog#mDecor is null, Dialog#mCreated is true (dismissed)");
			vd->zombie = 1;
		} else if (decor == 0 && created < 0) {
			add(vd->yes, "Dialog#mDecor is null (dismissed or never shown)");
			vd->zombie = 1;
		} else if (decor == 1) {
			add(vd->no, "Dialog#mDecor is not null (showing)");
		}
	}
	if (k & K_MQ) {
		flag_verdict(vd, bool_field(L, &od, "mQuitting", "android.os.MessageQueue"), "MessageQueue#mQuitting");
	}
	if ((k & K_CONTEXT_WRAPPER) && !(k & (K_ACTIVITY | K_APPLICATION | K_SERVICE))) {
		if (context_destroyed(L, &od, "mBase", "android.content.ContextWrapper", &rc) == 1)
			add(vd->yes, "%s wraps an Activity with Activity#mDestroyed true",
			    simple_name(hp_class_name(h, cls)));
		if (rc)
			goto out;
	}
	for (size_t r = 0; r < L->o->nrules; r++) {
		if (!rule_matches_class(L, r, cls))
			continue;
		const struct hp_leak_rule *ru = &L->o->rules[r];
		int m = rule_holds(L, ru, &od, &rc);
		if (rc)
			goto out;
		/* the rule's value as written, so that the reasons are the same for
		 * every object the rule holds (or does not hold) for */
		char want[120];
		snprintf(want, sizeof want, ru->op == HP_LR_STRING ? "\"%s\"" : "%s", ru->value);
		int notnull = ru->op == HP_LR_NOTNULL;
		if (m == 1) {
			add(vd->yes, "%s#%s is %s (--zombie rule)", simple_name(ru->cls), ru->field,
			    notnull ? "not null" : want);
			vd->zombie = 1;
		} else if (m == 0) {
			add(vd->no, "%s#%s is %s%s (--zombie rule)", simple_name(ru->cls), ru->field,
			    notnull ? "" : "not ", notnull ? "null" : want);
		}
	}
out:
	hp_objread_release(&od);
	return rc;
}

static int status_of(const struct verdict *vd, char *reason)
{
	reason[0] = '\0';
	if (vd->no[0]) {
		snprintf(reason, HP_LEAK_REASON, "%s", vd->no);
		if (vd->yes[0])
			add(reason, "conflicts with %s", vd->yes);
		return HP_LEAK_NO;
	}
	if (vd->yes[0]) {
		snprintf(reason, HP_LEAK_REASON, "%s", vd->yes);
		return HP_LEAK_YES;
	}
	return HP_LEAK_UNKNOWN;
}

/* the step of t at index i of the whole path, SIZE_MAX when the gap holds it */
static size_t kept_step(const struct hp_leak_trace *t, size_t i)
{
	if (i < t->gap.at)
		return i;
	if (i < t->gap.at + t->gap.n)
		return SIZE_MAX;
	return i - t->gap.n;
}

/* node i of t's whole path, for i next to a step kept (the gap's first or last otherwise) */
static uint32_t node_near(const struct hp_leak_trace *t, size_t i)
{
	size_t k = kept_step(t, i);
	if (k != SIZE_MAX)
		return t->steps[k].obj;
	return i == t->gap.at ? t->gap.first : t->gap.last;
}

/* LeakCanary's statuses along a zombie's trace (leaks.h), of the whole
 * path: every node on it is looked at, walking up the search tree from the
 * zombie; the steps kept get theirs */
static int trace_statuses(struct lk *L, struct hp_leak_trace *t, const struct verdict *zv)
{
	const hp_heap *h = L->h;
	size_t n = t->n, len = t->n + t->gap.n;
	/* the last not-leaking node and the first leaking one below it: up from
	 * the zombie, the first not-leaking one found is the last */
	ptrdiff_t last_no = -1;
	size_t first_yes = len - 1;
	char reason[HP_LEAK_REASON];
	uint32_t u = t->steps[n - 1].obj;
	for (size_t i = len - 1; i-- > 0;) {
		u = hp_paths_parent(&L->P, u);
		size_t k = kept_step(t, i);
		if (last_no >= 0 && k == SIZE_MAX)
			continue;      /* only the steps kept are needed above it */
		struct verdict vd;
		HP_TRY(inspect(L, u, &vd));
		int st = status_of(&vd, k != SIZE_MAX ? t->steps[k].reason : reason);
		if (k != SIZE_MAX)
			t->steps[k].status = st;
		if (last_no >= 0)
			continue;
		if (st == HP_LEAK_NO)
			last_no = (ptrdiff_t)i;
		else if (st == HP_LEAK_YES)
			first_yes = i;
	}
	struct hp_leak_step *z = &t->steps[n - 1];
	z->status = HP_LEAK_YES;
	snprintf(z->reason, HP_LEAK_REASON, "%s", zv->yes);
	char tmp[HP_LEAK_REASON], nm[200];
	for (size_t k = 0; k < n; k++) {
		size_t i = k < t->gap.at ? k : k + t->gap.n;
		struct hp_leak_step *s = &t->steps[k];
		/* above the last not-leaking node: not leaking, for the one below */
		if ((ptrdiff_t)i < last_no) {
			uint32_t below = node_near(t, i + 1);
			const char *bn = hp_class_name(h, h->cls[below]);
			if (hp_heap_kind(h, below) == HP_OBJ_CLASS) {
				size_t c = hp_idmap_get(&h->class_map, hp_heap_id(h, below));
				if (c != HP_IDMAP_NONE)
					bn = hp_class_name(h, c);
			}
			snprintf(nm, sizeof nm, "%s", simple_name(bn));
			snprintf(tmp, sizeof tmp, "%s", s->reason);
			int was = s->status;
			snprintf(s->reason, HP_LEAK_REASON, "%s\xe2\x86\x93 is not leaking", nm);
			if (was == HP_LEAK_NO && tmp[0])
				add(s->reason, "%s", tmp);
			else if (was == HP_LEAK_YES && tmp[0])
				add(s->reason, "conflicts with %s", tmp);
			s->status = HP_LEAK_NO;
		}
		/* below the first leaking node: leaking, for the one above */
		if (i > first_yes) {
			snprintf(nm, sizeof nm, "%s", simple_name(hp_class_name(h, h->cls[node_near(t, i - 1)])));
			snprintf(tmp, sizeof tmp, "%s", s->reason);
			snprintf(s->reason, HP_LEAK_REASON, "%s\xe2\x86\x91 is leaking", nm);
			if (s->status == HP_LEAK_YES && tmp[0])
				add(s->reason, "%s", tmp);
			s->status = HP_LEAK_YES;
		}
	}
	/* the references to cut: from the last not-leaking node down to the
	 * first leaking one, the references into nodes lo .. first_yes */
	size_t lo = last_no + 1 > 1 ? (size_t)(last_no + 1) : 1;
	for (size_t k = 1; k < n; k++) {
		size_t i = k < t->gap.at ? k : k + t->gap.n;
		t->steps[k].cut = i >= lo && i <= first_yes;
	}
	if (t->gap.n) {
		size_t a = lo > t->gap.at ? lo : t->gap.at;
		size_t b = first_yes < t->gap.at + t->gap.n - 1 ? first_yes : t->gap.at + t->gap.n - 1;
		t->cut_left_out = a <= b ? b - a + 1 : 0;
	}
	return HP_OK;
}

/* ---- zombies ---------------------------------------------------------------- */


static int by_group(const void *a, const void *b)
{
	const struct hp_leak_zombie *x = a, *y = b;
	return hp_cmp3_u64(x->leak, y->leak, y->retained, x->retained, x->obj, y->obj);
}

static int by_sig(const void *a, const void *b)
{
	const struct hp_leak_zombie *x = a, *y = b;
	return hp_cmp3_u64(x->signature, y->signature, y->retained, x->retained, x->obj, y->obj);
}

static const struct hp_leak_group *sort_leaks;
/* leak indexes by the sum of their zombies' retained sizes, largest first */
static int by_sum(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	return hp_cmp2_u64(sort_leaks[j].retained_sum, sort_leaks[i].retained_sum, i, j);
}

static int by_group_retained(const void *a, const void *b)
{
	const struct hp_leak_group *x = a, *y = b;
	return hp_cmp3_u64(y->retained, x->retained, y->count, x->count, x->signature, y->signature);
}

int lk_find_candidates(struct lk *L, struct hp_leaks *out, struct cand **cands, size_t *ncand)
{
	const hp_heap *h = L->h;
	size_t cap = 0;
	*cands = NULL;
	*ncand = 0;
	HP_TRY(read_registries(L));
	for (size_t v = 0; v < h->nobj; v++) {
		if (hp_heap_kind(h, v) != HP_OBJ_INSTANCE)
			continue;
		uint32_t cls = h->cls[v];
		int watched = (L->isa[cls] & K_WATCHED) != 0;
		for (size_t r = 0; r < L->o->nrules && !watched; r++)
			watched = rule_matches_class(L, r, cls);
		if (!watched)
			continue;
		struct verdict vd;
		HP_TRY(inspect(L, (uint32_t)v, &vd));
		if (!vd.ruled)
			continue;
		if (out->ninspected % 256 == 0) {
			void *p = hp_reallocarray(out->inspected, out->ninspected + 256, sizeof *out->inspected);
			if (!p)
				return hp_error_set(L->err, HP_ENOMEM, "out of memory");
			out->inspected = p;
		}
		struct hp_leak_inspected *in = &out->inspected[out->ninspected++];
		in->obj = (uint32_t)v;
		in->zombie = vd.zombie;
		in->status = status_of(&vd, in->reason);
		if (!in->reason[0])
			snprintf(in->reason, sizeof in->reason, "no rule's field in the dump");
		if (!vd.zombie)
			continue;
		if (*ncand == cap) {
			size_t nc = cap ? 2 * cap : 64;
			struct cand *p = hp_reallocarray(*cands, nc, sizeof *p);
			if (!p)
				return hp_error_set(L->err, HP_ENOMEM, "out of memory");
			*cands = p;
			cap = nc;
		}
		(*cands)[*ncand].obj = (uint32_t)v;
		(*cands)[*ncand].vd = vd;
		(*ncand)++;
		L->is_zombie[v >> 3] |= (uint8_t)(1u << (v & 7));
	}
	return HP_OK;
}

static int zombie_at(const struct lk *L, uint32_t v)
{
	return (L->is_zombie[v >> 3] >> (v & 7)) & 1;
}

/* z's signature and its text, of the whole trace: of a cut one, its first
 * SIG_STEPS steps read again (more than the text holds) */
static int signature_of(struct lk *L, struct hp_leak_zombie *z, char *sig, size_t n)
{
	if (!z->trace.gap.n) {
		hp_leaks_signature_text(L->h, &z->trace, sig, n);
	} else {
		struct hp_leak_trace first;
		HP_TRY(lk_trace_of(L, z->obj, SIG_STEPS, 1, &first));
		hp_leaks_signature_text(L->h, &first, sig, n);
		lk_trace_release(&first);
	}
	z->signature = hp_fnv1a_str(HP_FNV1A_INIT, sig);
	size_t len = strlen(sig);
	if (!(z->signature_text = hp_malloc(len + 1)))
		return hp_error_set(L->err, HP_ENOMEM, "out of memory");
	memcpy(z->signature_text, sig, len + 1);
	return HP_OK;
}

int lk_find_zombies(struct lk *L, struct hp_leaks *out, struct cand *c, size_t nc)
{
	const hp_heap *h = L->h;
	size_t n = h->nobj;
	out->zombies = hp_calloc(nc ? nc : 1, sizeof *out->zombies);
	uint8_t *in_set = hp_calloc(n ? n : 1, 1);
	int rc = HP_OK;
	if (!out->zombies || !in_set) {
		hp_free(in_set);
		return hp_error_set(L->err, HP_ENOMEM, "out of memory");
	}
	size_t nfreed = 0;
	char *sig = hp_malloc(8192);
	if (!sig) {
		hp_free(in_set);
		return hp_error_set(L->err, HP_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < nc; i++) {
		uint32_t v = c[i].obj;
		if (!L->have_paths || hp_paths_parent(&L->P, v) == HP_PATH_UNSEEN) {
			out->not_strong++;
			continue;
		}
		in_set[v] = 1;
		nfreed++;
		int nested = 0;
		for (uint32_t u = hp_paths_parent(&L->P, v); u != HP_PATH_START && u != HP_PATH_UNSEEN && !nested;
		     u = hp_paths_parent(&L->P, u))
			nested = zombie_at(L, u);
		if (nested) {
			out->nested++;
			continue;
		}
		struct hp_leak_zombie *z = &out->zombies[out->nzombies];
		z->obj = v;
		z->retained = L->R->retained[v];
		snprintf(z->reasons, sizeof z->reasons, "%s", c[i].vd.yes);
		if ((rc = lk_trace_of(L, v, L->o->path_head, L->o->path_tail, &z->trace)) != HP_OK)
			goto out;
		out->nzombies++;
		if ((rc = trace_statuses(L, &z->trace, &c[i].vd)) != HP_OK ||
		    (rc = signature_of(L, z, sig, 8192)) != HP_OK)
			goto out;
	}
	/* leaks: the same signature */
	qsort(out->zombies, out->nzombies, sizeof *out->zombies, by_sig);
	out->leaks = hp_calloc(out->nzombies + 1, sizeof *out->leaks);
	if (!out->leaks) {
		rc = hp_error_set(L->err, HP_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < out->nzombies;) {
		size_t j = i;
		struct hp_leak_group *g = &out->leaks[out->nleaks];
		g->signature = out->zombies[i].signature;
		g->first = i;
		while (j < out->nzombies && out->zombies[j].signature == g->signature) {
			out->zombies[j].leak = out->nleaks;
			g->retained_sum += out->zombies[j].retained;
			j++;
		}
		g->count = j - i;
		/* a lower bound until the retained set is computed: the listed
		 * zombies do not dominate one another (that would nest them) */
		g->retained = g->retained_sum;
		out->nleaks++;
		i = j;
	}
	/* the retained sets of the MAX_LEAK_SETS largest leaks: one walk of the
	 * graph each (the zombies are grouped, so each leak's are together) */
	{
		size_t *ord = hp_reallocarray(NULL, out->nleaks + 1, sizeof *ord);
		if (!ord) {
			rc = hp_error_set(L->err, HP_ENOMEM, "out of memory");
			goto out;
		}
		for (size_t g = 0; g < out->nleaks; g++)
			ord[g] = g;
		sort_leaks = out->leaks;
		qsort(ord, out->nleaks, sizeof *ord, by_sum);
		uint8_t *gs = hp_calloc(n ? n : 1, 1);
		if (!gs) {
			hp_free(ord);
			rc = hp_error_set(L->err, HP_ENOMEM, "out of memory");
			goto out;
		}
		for (size_t k = 0; k < out->nleaks && k < MAX_LEAK_SETS && rc == HP_OK; k++) {
			struct hp_leak_group *g = &out->leaks[ord[k]];
			for (size_t z = g->first; z < g->first + g->count; z++)
				gs[out->zombies[z].obj] = 1;
			rc = hp_retained_set(h, L->R, gs, &g->retained_objects, &g->retained, L->err);
			g->exact = rc == HP_OK;
			for (size_t z = g->first; z < g->first + g->count; z++)
				gs[out->zombies[z].obj] = 0;
		}
		hp_free(gs);
		hp_free(ord);
		if (rc)
			goto out;
	}
	/* largest leak first; zombies in the order of their leaks */
	size_t *map = hp_reallocarray(NULL, out->nleaks + 1, sizeof *map);
	if (!map) {
		rc = hp_error_set(L->err, HP_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t g = 0; g < out->nleaks; g++)
		out->leaks[g].first = g;     /* old index, for the map */
	qsort(out->leaks, out->nleaks, sizeof *out->leaks, by_group_retained);
	for (size_t g = 0; g < out->nleaks; g++)
		map[out->leaks[g].first] = g;
	for (size_t i = 0; i < out->nzombies; i++)
		out->zombies[i].leak = map[out->zombies[i].leak];
	hp_free(map);
	qsort(out->zombies, out->nzombies, sizeof *out->zombies, by_group);
	for (size_t i = out->nzombies; i-- > 0;)
		out->leaks[out->zombies[i].leak].first = i;
	if (nfreed)
		rc = hp_retained_set(h, L->R, in_set, &out->freed_objects, &out->freed, L->err);
out:
	hp_free(sig);
	hp_free(in_set);
	return rc;
}
