/* native.c — native sizes registered through NativeAllocationRegistry,
 * credited to the Cleaners' referents: see native.h. */
#include "analysis/native.h"
#include "analysis/fold.h"
#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>

enum { K_CLEANER = 1, K_THUNK = 2, K_REGISTRY = 4 };

static const char *const cleaner_names[] = { "sun.misc.Cleaner", "jdk.internal.ref.Cleaner" };
#define THUNK_NAME "libcore.util.NativeAllocationRegistry$CleanerThunk"
#define REGISTRY_NAME "libcore.util.NativeAllocationRegistry"

/* what each class is an instance of (itself or a super class), as K_* bits */
static uint8_t *class_kinds(const hp_heap *h, int *has_registry)
{
	uint8_t *k = hp_calloc(h->nclasses ? h->nclasses : 1, 1);
	if (!k)
		return NULL;
	*has_registry = 0;
	for (size_t c = 0; c < h->nclasses; c++) {
		const char *n = hp_class_name(h, c);
		if (!strcmp(n, cleaner_names[0]) || !strcmp(n, cleaner_names[1]))
			k[c] |= K_CLEANER;
		else if (!strcmp(n, THUNK_NAME))
			k[c] |= K_THUNK, *has_registry = 1;
		else if (!strcmp(n, REGISTRY_NAME))
			k[c] |= K_REGISTRY, *has_registry = 1;
	}
	if (hp_class_flags_inherit(h, k) != HP_OK) {
		hp_free(k);
		return NULL;
	}
	return k;
}

int hp_class_flags_inherit(const hp_heap *h, uint8_t *flags)
{
	size_t n = h->nclasses;
	/* st: 1 final, 2 on the walk's path (a cycle in a bad dump ends there) */
	uint8_t *st = hp_calloc(n ? n : 1, 1);
	uint32_t *path = hp_reallocarray(NULL, n ? n : 1, sizeof *path);
	if (!st || !path) {
		hp_free(st);
		hp_free(path);
		return HP_ENOMEM;
	}
	for (size_t c = 0; c < n; c++)
		if (flags[c])
			st[c] = 1;
	for (size_t c = 0; c < n; c++) {
		if (st[c])
			continue;
		size_t np = 0;
		uint32_t u = (uint32_t)c;
		while (u != HP_NONE && u < n && !st[u]) {
			st[u] = 2;
			path[np++] = u;
			u = h->classes[u].super;
		}
		uint8_t v = u != HP_NONE && u < n && st[u] == 1 ? flags[u] : 0;
		for (size_t i = 0; i < np; i++) {
			flags[path[i]] = v;
			st[path[i]] = 1;
		}
	}
	hp_free(st);
	hp_free(path);
	return HP_OK;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* the object an instance's reference field names, or HP_NONE */
static uint32_t ref_field(const hp_heap *h, hp_objread *rd, const struct hp_objdata *o, const char *name)
{
	const struct hp_objval *v = hp_objread_field(rd, o, name, NULL);
	if (!v || v->type != HP_T_OBJECT || !v->bits)
		return HP_NONE;
	size_t i = hp_heap_find(h, v->bits);
	return i == SIZE_MAX ? HP_NONE : (uint32_t)i;
}

int hp_native_compute(const hp_heap *h, hp_objread *rd, struct hp_native *N, struct hp_error *err)
{
	memset(N, 0, sizeof *N);
	size_t n = h->nobj;
	uint8_t *kind = class_kinds(h, &N->has_registry);
	uint32_t *cl = NULL, *thunk = NULL, *ref = NULL, *reg = NULL, *regs = NULL;
	uint64_t *size = NULL;
	struct hp_objdata od;
	memset(&od, 0, sizeof od);
	int rc = HP_OK;
	if (!kind)
		goto nomem;
	size_t ncl = 0;
	for (size_t v = 0; v < n; v++)
		if (hp_heap_kind(h, v) == HP_OBJ_INSTANCE && (kind[h->cls[v]] & K_CLEANER))
			ncl++;
	N->cleaners = ncl;
	if (!N->has_registry) {
		N->why_none = "the dump has no libcore.util.NativeAllocationRegistry (Android 7.0 and later register native sizes through it)";
		goto out;
	}
	if (!ncl) {
		N->why_none = "the dump has no sun.misc.Cleaner or jdk.internal.ref.Cleaner, which NativeAllocationRegistry frees native memory with";
		goto out;
	}
	cl = hp_reallocarray(NULL, ncl, sizeof *cl);
	thunk = hp_reallocarray(NULL, ncl, sizeof *thunk);
	ref = hp_reallocarray(NULL, ncl, sizeof *ref);
	reg = hp_reallocarray(NULL, ncl, sizeof *reg);
	regs = hp_reallocarray(NULL, ncl, sizeof *regs);
	if (!cl || !thunk || !ref || !reg || !regs)
		goto nomem;
	ncl = 0;
	for (size_t v = 0; v < n; v++)
		if (hp_heap_kind(h, v) == HP_OBJ_INSTANCE && (kind[h->cls[v]] & K_CLEANER))
			cl[ncl++] = (uint32_t)v;
	/* the Cleaners: thunk and referent */
	if ((rc = hp_objread_prefetch(rd, cl, ncl, err)))
		goto out;
	size_t nt = 0;
	for (size_t i = 0; i < ncl; i++) {
		if ((rc = hp_objread_decode(rd, cl[i], 0, &od, err)))
			goto out;
		thunk[i] = ref_field(h, rd, &od, "thunk");
		ref[i] = ref_field(h, rd, &od, "referent");
		hp_objread_release(&od);
		reg[i] = HP_NONE;
		if (thunk[i] != HP_NONE && hp_heap_kind(h, thunk[i]) == HP_OBJ_INSTANCE &&
		    (kind[h->cls[thunk[i]]] & K_THUNK) && ref[i] != HP_NONE)
			regs[nt++] = thunk[i];
		else
			thunk[i] = HP_NONE;
	}
	/* the thunks: their registry */
	if ((rc = hp_objread_prefetch(rd, regs, nt, err)))
		goto out;
	for (size_t i = 0; i < ncl; i++) {
		if (thunk[i] == HP_NONE)
			continue;
		if ((rc = hp_objread_decode(rd, thunk[i], 0, &od, err)))
			goto out;
		uint32_t r = ref_field(h, rd, &od, "this$0");
		hp_objread_release(&od);
		if (r != HP_NONE && hp_heap_kind(h, r) == HP_OBJ_INSTANCE && (kind[h->cls[r]] & K_REGISTRY))
			reg[i] = r;
	}
	/* each registry once: its size */
	size_t nr = 0;
	for (size_t i = 0; i < ncl; i++)
		if (reg[i] != HP_NONE)
			regs[nr++] = reg[i];
	qsort(regs, nr, sizeof *regs, cmp_u32);
	size_t u = 0;
	for (size_t i = 0; i < nr; i++)
		if (!u || regs[u - 1] != regs[i])
			regs[u++] = regs[i];
	nr = u;
	N->registries = nr;
	if (!(size = hp_calloc(nr ? nr : 1, sizeof *size)))
		goto nomem;
	if ((rc = hp_objread_prefetch(rd, regs, nr, err)))
		goto out;
	for (size_t i = 0; i < nr; i++) {
		if ((rc = hp_objread_decode(rd, regs[i], 0, &od, err)))
			goto out;
		const struct hp_objval *s = hp_objread_field(rd, &od, "size", REGISTRY_NAME);
		if (s && s->type == HP_T_LONG && (int64_t)s->bits > 0)
			size[i] = s->bits;
		hp_objread_release(&od);
	}
	/* credit the referents */
	for (size_t i = 0; i < ncl; i++) {
		uint64_t sz = 0;
		if (reg[i] != HP_NONE) {
			uint32_t *p = bsearch(&reg[i], regs, nr, sizeof *regs, cmp_u32);
			sz = p ? size[p - regs] : 0;
		}
		if (!sz) {
			N->broken++;
			continue;
		}
		if (!N->shallow && !(N->shallow = hp_calloc(n, sizeof *N->shallow)))
			goto nomem;
		if (!N->shallow[ref[i]])
			N->owners++;
		N->shallow[ref[i]] += sz;
		N->total += sz;
		N->registered++;
	}
	if (!N->registered)
		N->why_none = "no Cleaner in the dump leads to a NativeAllocationRegistry with a size";
	if (N->shallow) {
		if (!(N->row_shallow = hp_calloc(h->nrows ? h->nrows : 1, sizeof *N->row_shallow)))
			goto nomem;
		for (size_t v = 0; v < n; v++) {
			if (!N->shallow[v])
				continue;
			uint32_t r = hp_heap_row_of(h, h->cls[v], hp_heap_heap(h, v));
			if (r != HP_NONE)
				N->row_shallow[r] += N->shallow[v];
		}
	}
	goto out;
nomem:
	rc = hp_error_set(err, HP_ENOMEM, "out of memory reading native sizes");
out:
	hp_objread_release(&od);
	hp_free_all(kind, cl, thunk, ref, reg, regs, size);
	if (rc)
		hp_native_release(N);
	return rc;
}

/* Per row: the fold of fold.h with the class as the key (retained.c's rule
 * for row_retained); a subtree without native bytes adds nothing and is
 * not entered. */
struct row_fold {
	const hp_heap *h;
	struct hp_native *N;
};

static uint32_t row_key(void *ud, uint32_t v)
{
	const struct row_fold *F = ud;
	return F->h->cls[v];
}

static int row_enter(void *ud, uint32_t v)
{
	const struct row_fold *F = ud;
	return F->N->retained[v] != 0;
}

static int row_top(void *ud, uint32_t v, uint32_t c)
{
	const struct row_fold *F = ud;
	uint32_t r = hp_heap_row_of(F->h, c, hp_heap_heap(F->h, v));
	if (r != HP_NONE)
		F->N->row_retained[r] += F->N->retained[v];
	return HP_OK;
}

static const struct hp_fold_ops row_ops = { .key = row_key, .enter = row_enter, .top = row_top };

static int row_sums(const hp_heap *h, const struct hp_retained *R, struct hp_native *N)
{
	if (!(N->row_retained = hp_calloc(h->nrows ? h->nrows : 1, sizeof *N->row_retained)))
		return HP_ENOMEM;
	struct row_fold F = { h, N };
	return hp_fold(R->child_off, R->children, h->nobj, h->nclasses, &row_ops, &F);
}

int hp_native_retain(const hp_heap *h, const struct hp_retained *R, struct hp_native *N, struct hp_error *err)
{
	size_t n = h->nobj;
	/* the per-heap split: Android dumps, and any with native sizes */
	if (!N->split_done && (hp_heap_android(h) || N->shallow)) {
		for (size_t v = 0; v < n; v++) {
			struct hp_native_heap *s = &N->heaps[hp_heap_heap(h, v)];
			uint64_t nat = hp_native_of(N, v);
			s->java += hp_retained_shallow(R, v);
			s->native += nat;
			if (R->dom.idom[v] != HP_DOM_UNREACHABLE) {
				s->held_java += hp_retained_shallow(R, v);
				s->held_native += nat;
			}
		}
		N->split_done = 1;
	}
	if (!N->shallow || N->retained)
		return HP_OK;
	if (!(N->retained = hp_reallocarray(NULL, n ? n : 1, sizeof *N->retained)))
		return hp_error_set(err, HP_ENOMEM, "out of memory summing native sizes");
	HP_TRY(hp_dom_retained(&R->dom, N->shallow, N->retained, &N->held_native, err));
	if (row_sums(h, R, N) != HP_OK)
		return hp_error_set(err, HP_ENOMEM, "out of memory summing native sizes");
	return HP_OK;
}

void hp_native_release(struct hp_native *N)
{
	hp_free_all(N->shallow, N->retained, N->row_shallow, N->row_retained);
	memset(N, 0, sizeof *N);
}
