/* layout.c — hp_layout_build() (layout.h): each class's own reference
 * offsets, its chain's field bytes, the next class above it that holds
 * references and its reference kind, made from its super class's with an
 * explicit stack. */
#include "model/layout.h"
#include "base/alloc.h"

#include <string.h>

static int name_is(const hp_heap *h, uint64_t sid, const char *want)
{
	uint32_t n;
	const char *s = hp_heap_string(h, sid, &n);
	return s && n == strlen(want) && memcmp(s, want, n) == 0;
}

int hp_layout_name_kind(const char *n)
{
	static const struct { const char *name; int kind; } names[] = {
		{ "java.lang.ref.SoftReference", 1 },
		{ "java.lang.ref.WeakReference", 2 },
		{ "java.lang.ref.FinalReference", 3 },
		{ "java.lang.ref.PhantomReference", 4 },
		{ "java.lang.ref.FinalizerReference", 5 },   /* Android's */
	};
	if (strncmp(n, "java.lang.ref.", 14) != 0)
		return 0;
	for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
		if (!strcmp(n, names[k].name))
			return names[k].kind;
	return 0;
}

void hp_layout_release(struct hp_layout *L)
{
	hp_free_all(L->bytes, L->up, L->next, L->fup, L->fnext, L->ref_first, L->ref_off, L->kind,
		    L->reference, L->referent);
	memset(L, 0, sizeof *L);
}

/* c's own fields: the reference offsets (into L->ref_off from ref_first[c]),
 * its field bytes, and the referent's offset for java.lang.ref.Reference */
static uint64_t own_fields(const hp_heap *h, struct hp_layout *L, uint32_t c, size_t *nrefs)
{
	const struct hp_class *k = &h->classes[c];
	int is_reference = !strcmp(hp_class_name(h, c), "java.lang.ref.Reference");
	uint64_t pos = 0;
	L->referent[c] = -1;
	for (uint32_t f = 0; f < k->n_fields; f++) {
		const struct hp_field *fd = &h->fields[k->first_field + f];
		if (fd->type == HP_T_OBJECT && pos <= INT32_MAX) {
			if (is_reference && L->referent[c] < 0 && name_is(h, fd->name_sid, "referent"))
				L->referent[c] = (int32_t)pos;
			L->ref_off[(*nrefs)++] = (uint32_t)pos;
		}
		pos += hp_type_size(fd->type, h->I);
	}
	return pos;
}

int hp_layout_build(const hp_heap *h, struct hp_layout *L)
{
	memset(L, 0, sizeof *L);
	size_t n = h->nclasses, nn = n ? n : 1;
	size_t nrefs = 0;
	for (size_t c = 0; c < n; c++) {
		const struct hp_class *k = &h->classes[c];
		for (uint32_t f = 0; f < k->n_fields; f++)
			nrefs += h->fields[k->first_field + f].type == HP_T_OBJECT;
	}
	L->n = n;
	L->bytes = hp_reallocarray(NULL, nn, sizeof *L->bytes);
	L->up = hp_reallocarray(NULL, nn, sizeof *L->up);
	L->next = hp_reallocarray(NULL, nn, sizeof *L->next);
	L->fup = hp_reallocarray(NULL, nn, sizeof *L->fup);
	L->fnext = hp_reallocarray(NULL, nn, sizeof *L->fnext);
	L->ref_first = hp_reallocarray(NULL, n + 1, sizeof *L->ref_first);
	L->ref_off = hp_reallocarray(NULL, nrefs ? nrefs : 1, sizeof *L->ref_off);
	L->kind = hp_reallocarray(NULL, nn, sizeof *L->kind);
	L->reference = hp_reallocarray(NULL, nn, sizeof *L->reference);
	L->referent = hp_reallocarray(NULL, nn, sizeof *L->referent);
	uint8_t *state = hp_calloc(nn, 1);            /* 0 todo, 1 on the stack, 2 done */
	uint32_t *stack = hp_reallocarray(NULL, nn, sizeof *stack);
	uint64_t *own = hp_reallocarray(NULL, nn, sizeof *own);
	int rc = HP_OK;
	if (!L->bytes || !L->up || !L->next || !L->fup || !L->fnext || !L->ref_first || !L->ref_off || !L->kind || !L->reference ||
	    !L->referent || !state || !stack || !own || nrefs > UINT32_MAX) {
		rc = HP_ENOMEM;
		goto out;
	}
	/* own fields, in class order */
	nrefs = 0;
	for (size_t c = 0; c < n; c++) {
		L->ref_first[c] = (uint32_t)nrefs;
		own[c] = own_fields(h, L, (uint32_t)c, &nrefs);
	}
	L->ref_first[n] = (uint32_t)nrefs;
	/* the chains: each class from its super class's, once */
	for (size_t i = 0; i < n; i++) {
		size_t sp = 0;
		uint32_t c = (uint32_t)i;
		while (c != HP_NONE && state[c] == 0) {
			state[c] = 1;
			stack[sp++] = c;
			c = h->classes[c].super;
		}
		while (sp > 0) {
			uint32_t k = stack[--sp];
			uint32_t s = h->classes[k].super;
			int has = s != HP_NONE && state[s] == 2;   /* else the top, or a loop cut here */
			uint64_t above = has ? L->bytes[s] : 0;
			L->bytes[k] = own[k] + above < above ? UINT64_MAX : own[k] + above;
			L->next[k] = has ? L->up[s] : HP_NONE;
			L->up[k] = L->ref_first[k] < L->ref_first[k + 1] ? k : L->next[k];
			L->fnext[k] = has ? L->fup[s] : HP_NONE;
			L->fup[k] = h->classes[k].n_fields ? k : L->fnext[k];
			int kind = hp_layout_name_kind(hp_class_name(h, k));
			L->kind[k] = (uint8_t)(kind ? kind : has ? L->kind[s] : 0);
			L->reference[k] = L->referent[k] >= 0 || !strcmp(hp_class_name(h, k), "java.lang.ref.Reference")
					  ? k : has ? L->reference[s] : HP_NONE;
			state[k] = 2;
		}
	}
out:
	hp_free(state);
	hp_free(stack);
	hp_free(own);
	if (rc != HP_OK)
		hp_layout_release(L);
	return rc;
}
