/* groupvalue.c — instances grouped by a field's value (groupvalue.h). */
#include "analysis/groupvalue.h"
#include "base/alloc.h"
#include "base/cmp.h"
#include "base/text.h"
#include "parser/hprof.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct key { char *value; uint32_t v; };

static int by_value(const void *a, const void *b)
{
	const struct key *x = a, *y = b;
	if (!x->value || !y->value)
		return !x->value - !y->value;   /* the instances without the field last */
	return strcmp(x->value, y->value);
}

static int by_count(const void *a, const void *b)
{
	const struct hp_value_group *x = a, *y = b;
	int c = hp_cmp_u64(y->instances, x->instances);
	if (c || !x->value || !y->value)
		return c ? c : !x->value - !y->value;
	return strcmp(x->value, y->value);
}

/* a primitive as Java writes it */
static void prim_text(const struct hp_objval *f, char *buf, size_t n)
{
	uint64_t b = f->bits;
	switch (f->type) {
	case HP_T_BOOLEAN: snprintf(buf, n, "%s", b ? "true" : "false"); break;
	case HP_T_CHAR:
		if (b >= 0x20 && b < 0x7f)
			snprintf(buf, n, "'%c'", (char)b);
		else
			snprintf(buf, n, "'\\u%04x'", (unsigned)(b & 0xffff));
		break;
	case HP_T_FLOAT: {
		uint32_t u = (uint32_t)b;
		float x;
		memcpy(&x, &u, sizeof x);
		hp_text_real(buf, n, x, 1);
		break;
	}
	case HP_T_DOUBLE: {
		double x;
		memcpy(&x, &b, sizeof x);
		hp_text_real(buf, n, x, 0);
		break;
	}
	case HP_T_BYTE: snprintf(buf, n, "%d", (int8_t)(uint8_t)b); break;
	case HP_T_SHORT: snprintf(buf, n, "%d", (int16_t)(uint16_t)b); break;
	case HP_T_INT: snprintf(buf, n, "%d", (int32_t)(uint32_t)b); break;
	default: snprintf(buf, n, "%lld", (long long)b); break;
	}
}

/* the key of instance v: *out NULL when it has no such field */
static int key_of(const hp_heap *h, hp_objread *rd, uint32_t v, const char *name, size_t max_chars, char **out,
		  struct hp_error *err)
{
	*out = NULL;
	struct hp_objdata o;
	HP_TRY(hp_objread_decode(rd, v, 0, &o, err));
	const struct hp_objval *f = hp_objread_field(rd, &o, name, NULL);
	char buf[600];
	int rc = HP_OK;
	if (!f) {
		hp_objread_release(&o);
		return HP_OK;
	}
	if (f->type != HP_T_OBJECT) {
		prim_text(f, buf, sizeof buf);
	} else if (!f->bits) {
		snprintf(buf, sizeof buf, "null");
	} else {
		size_t t = hp_heap_find(h, f->bits);
		if (t == SIZE_MAX) {
			snprintf(buf, sizeof buf, "@0x%llx (not in the dump)", (unsigned long long)f->bits);
		} else if (hp_objread_is_string(h, t)) {
			struct hp_text s = { 0 };
			if ((rc = hp_objread_text(rd, t, max_chars, &s, err)) == HP_OK) {
				size_t n = s.utf8 ? s.len : 0;
				char *k = hp_malloc(n + 3 + (s.truncated ? 3 : 0));
				if (k) {
					k[0] = '"';
					if (n)
						memcpy(k + 1, s.utf8, n);
					memcpy(k + 1 + n, s.truncated ? "...\"" : "\"", s.truncated ? 5 : 2);
					*out = k;
				} else {
					rc = hp_error_set(err, HP_ENOMEM, "out of memory grouping by value");
				}
			}
			hp_objread_text_release(&s);
			hp_objread_release(&o);
			return rc;
		} else {
			snprintf(buf, sizeof buf, "%s @0x%llx", hp_class_name(h, h->cls[t]), (unsigned long long)f->bits);
		}
	}
	hp_objread_release(&o);
	if (!(*out = hp_strdup(buf)))
		return hp_error_set(err, HP_ENOMEM, "out of memory grouping by value");
	return HP_OK;
}

int hp_group_by_value(const hp_heap *h, const struct hp_retained *R, hp_objread *rd, const uint32_t *objs,
		      size_t nobjs, const char *name, size_t max_chars, struct hp_value_groups *out, struct hp_error *err)
{
	memset(out, 0, sizeof *out);
	size_t n = 0, cap = 0;
	struct key *k = NULL;
	int rc = HP_OK;
	for (size_t i = 0; i < nobjs && rc == HP_OK; i++) {
		uint32_t v = objs[i];
		if (v >= h->nobj || hp_heap_kind(h, v) != HP_OBJ_INSTANCE)
			continue;
		if (n == cap) {
			struct key *t = hp_grow(k, &cap, n + 1, 1024, sizeof *k);
			if (!t) {
				rc = hp_error_set(err, HP_ENOMEM, "out of memory grouping by value");
				break;
			}
			k = t;
		}
		k[n].v = (uint32_t)v;
		if ((rc = key_of(h, rd, (uint32_t)v, name, max_chars, &k[n].value, err)) == HP_OK)
			n++;
	}
	if (rc == HP_OK && n)
		qsort(k, n, sizeof *k, by_value);
	struct hp_value_group *g = rc == HP_OK ? hp_calloc(n ? n : 1, sizeof *g) : NULL;
	if (rc == HP_OK && !g)
		rc = hp_error_set(err, HP_ENOMEM, "out of memory grouping by value");
	size_t m = 0;
	for (size_t i = 0; rc == HP_OK && i < n; i++) {
		const char *last = m ? g[m - 1].value : NULL;
		int same = m && (last && k[i].value ? !strcmp(last, k[i].value) : last == k[i].value);
		if (!same)
			g[m++].value = k[i].value;   /* (the group owns its first key's text) */
		else
			hp_free(k[i].value);
		k[i].value = NULL;
		struct hp_value_group *x = &g[m - 1];
		x->instances++;
		x->shallow += hp_retained_shallow(R, k[i].v);
		x->retained += R->retained[k[i].v];
		out->instances++;
		out->shallow += hp_retained_shallow(R, k[i].v);
		out->retained += R->retained[k[i].v];
		if (!x->value)
			out->missing++;
	}
	for (size_t i = 0; i < n; i++)
		hp_free(k[i].value);
	hp_free(k);
	if (rc != HP_OK) {
		for (size_t i = 0; g && i < m; i++)
			hp_free(g[i].value);
		hp_free(g);
		memset(out, 0, sizeof *out);
		return rc;
	}
	qsort(g, m, sizeof *g, by_count);
	out->g = g;
	out->n = m;
	return HP_OK;
}

void hp_value_groups_release(struct hp_value_groups *g)
{
	for (size_t i = 0; g->g && i < g->n; i++)
		hp_free(g->g[i].value);
	hp_free(g->g);
	memset(g, 0, sizeof *g);
}
