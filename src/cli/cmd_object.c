/* hprofan object FILE ID: one object: what it holds, who holds it, what
 * dominates it and the shortest path to it from a GC root. */
#include "cli/command.h"
#include "cli/msg.h"
#include "cli/format.h"
#include "cli/load.h"
#include "cli/output.h"
#include "cli/objtext.h"
#include "analysis/paths.h"
#include "analysis/collections.h"
#include "base/text.h"
#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>

#define DEFAULT_ROWS 10      /* referrers, array elements */
#define STRING_CHARS 200     /* characters of a String field shown */
#define TEXT_CHARS 1000      /* characters of the object itself when it is text */
#define JSON_TEXT_CHARS (1u << 20)   /* the same in JSON */

struct object_opts {
	struct cli_count top;
};

static void defaults(void *own)
{
	((struct object_opts *)own)->top.n = DEFAULT_ROWS;
}

static const struct cli_option own[] = {
	OPT_TOP("referrers and array elements shown (default 10; 0 shows all)", OPT_OWN(struct object_opts, top)),
	OPT_END
};

struct octx {
	const struct object_opts *o;
	int all_weak;
	int full_path;           /* --full-path: the whole path and dominator chain */
	hp_session *S;
	const hp_heap *h;
	const struct hp_retained *R;
	const struct hp_native *N;   /* native sizes (shown when the dump has some) */
	hp_objread *rd;
	struct hp_error err;
	uint64_t total;          /* shallow bytes of the whole heap */
	int path_rc;             /* exit code of cli_show_paths() (which printed the error) */
	uint64_t class_refs;     /* objects that refer to it only as their class (<class>) */
	int class_listed;        /* 1: those are the referrers listed (nothing else refers to it) */
};

/* a String or a char[] is shown as text */
static int is_text(const hp_heap *h, size_t obj)
{
	return hp_objread_is_string(h, obj) ||
	       (hp_heap_kind(h, obj) == HP_OBJ_PRIMARRAY && h->classes[h->cls[obj]].elem_type == HP_T_CHAR);
}

/* the text of a String or char[] object (NULL utf8 when it is neither) */
static int text_of(struct octx *c, size_t obj, size_t max, struct hp_text *t)
{
	memset(t, 0, sizeof *t);
	if (!is_text(c->h, obj))
		return HP_OK;
	return hp_objread_text(c->rd, obj, max, t, &c->err);
}

/* "java.util.HashMap @0x...", "\"text\" (java.lang.String @0x...)" or "null" */
static int fmt_ref(struct octx *c, uint64_t id, char *buf, size_t n)
{
	if (!id) {
		snprintf(buf, n, "null");
		return HP_OK;
	}
	size_t v = hp_heap_find(c->h, id);
	if (v == SIZE_MAX) {
		snprintf(buf, n, "0x%llx (not in the dump)", (unsigned long long)id);
		return HP_OK;
	}
	char lab[800];
	cli_object_label(c->h, v, lab, sizeof lab);
	struct hp_text t;
	HP_TRY(text_of(c, v, STRING_CHARS, &t));
	if (t.utf8) {
		char *q = cli_quote_text(&t);
		snprintf(buf, n, "%s (%s)", q ? q : "?", lab);
		hp_free(q);
	} else {
		snprintf(buf, n, "%s", lab);
	}
	hp_objread_text_release(&t);
	return HP_OK;
}

static int json_ref(struct octx *c, cJSON *e, uint64_t id)
{
	size_t v = id ? hp_heap_find(c->h, id) : SIZE_MAX;
	if (!id) {
		cJSON_AddNullToObject(e, "value");
		return HP_OK;
	}
	char b[32];
	snprintf(b, sizeof b, "0x%llx", (unsigned long long)id);
	cJSON_AddStringToObject(e, "value", b);
	if (v == SIZE_MAX) {
		cJSON_AddBoolToObject(e, "in_dump", 0);
		return HP_OK;
	}
	cJSON *r = cli_object_json(c->h, v);
	cJSON_AddItemToObject(e, "object", r);
	struct hp_text t;
	HP_TRY(text_of(c, v, STRING_CHARS, &t));
	if (t.utf8) {
		cJSON_AddItemToObject(r, "string", cli_text_json(&t));
		if (t.truncated)
			cJSON_AddBoolToObject(r, "string_truncated", 1);
	}
	hp_objread_text_release(&t);
	return HP_OK;
}

/* ---- sections ------------------------------------------------------- */

static const char *kind_name(int kind)
{
	switch (kind) {
	case HP_OBJ_INSTANCE: return "instance";
	case HP_OBJ_OBJARRAY: return "object_array";
	case HP_OBJ_PRIMARRAY: return "primitive_array";
	default: return "class";
	}
}

static const char *type_name(uint8_t t)
{
	const char *n = hp_type_name(t);
	return t == HP_T_OBJECT ? "object" : n ? n : "?";
}

static int rows_limit(const struct object_opts *o)
{
	return o->top.n;
}

struct refrow { uint32_t v; uint64_t retained; };

static int by_ret(const void *a, const void *b)
{
	const struct refrow *x = a, *y = b;
	if (x->retained != y->retained)
		return x->retained < y->retained ? 1 : -1;
	return x->v < y->v ? -1 : x->v > y->v;
}

/* what holds v in the retained-size graph, most retained first: the
 * objects whose class v is (class edges) only when nothing else refers to it */
static int referrers(struct octx *c, uint32_t v, struct refrow **rows, size_t *n)
{
	struct hp_holders H;
	*rows = NULL;
	*n = 0;
	HP_TRY(hp_paths_holders(&c->R->refs, v, &H, &c->err));
	size_t k = H.n;
	c->class_refs = H.through_class;
	c->class_listed = H.class_listed;
	struct refrow *rr = hp_reallocarray(NULL, k ? k : 1, sizeof *rr);
	if (!rr) {
		hp_paths_holders_release(&H);
		return hp_error_set(&c->err, HP_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < k; i++) {
		rr[i].v = H.obj[i];
		rr[i].retained = c->R->retained[H.obj[i]];
	}
	hp_paths_holders_release(&H);
	qsort(rr, k, sizeof *rr, by_ret);
	*rows = rr;
	*n = k;
	return HP_OK;
}

/* one forward pass over a gzip dump for everything the report reads */
static int prefetch(struct octx *c, uint32_t v, const struct hp_objdata *d, const struct refrow *refs,
		    size_t nshow)
{
	size_t cap = 2 + nshow + d->nfields + d->nelems;
	uint32_t *p = hp_reallocarray(NULL, cap, sizeof *p);
	if (!p)
		return hp_error_set(&c->err, HP_ENOMEM, "out of memory");
	size_t n = 0;
	p[n++] = v;
	for (size_t i = 0; i < nshow; i++)
		p[n++] = refs[i].v;
	for (size_t i = 0; i < d->nfields; i++) {
		size_t t = d->fields[i].type == HP_T_OBJECT && d->fields[i].bits ? hp_heap_find(c->h, d->fields[i].bits)
										   : SIZE_MAX;
		if (t != SIZE_MAX)
			p[n++] = (uint32_t)t;
	}
	for (size_t i = 0; d->elem_type == HP_T_OBJECT && i < d->nelems; i++) {
		size_t t = d->elems[i] ? hp_heap_find(c->h, d->elems[i]) : SIZE_MAX;
		if (t != SIZE_MAX)
			p[n++] = (uint32_t)t;
	}
	int rc = hp_objread_prefetch_text(c->rd, p, n, &c->err);
	hp_free(p);
	return rc;
}

static int text_report(struct octx *c, FILE *f, uint32_t v, const struct hp_objdata *d,
		       const struct refrow *refs, size_t nref, const uint32_t *chain, size_t nchain,
		       const struct hp_path_gap *cgap)
{
	const hp_heap *h = c->h;
	const struct hp_retained *R = c->R;
	char lab[800], a[64], b[64], rt[800], val[4096], nm[512];
	fprintf(f, "%s\n", cli_object_label(h, v, lab, sizeof lab));
	const char *cname = hp_class_name(h, h->cls[v]);
	switch (d->kind) {
	case HP_OBJ_INSTANCE: {
		fprintf(f, "  kind      instance of %s", hp_text_safe(cname, nm, sizeof nm));
		uint32_t s = h->classes[h->cls[v]].super;
		if (s != HP_NONE && hp_class_name(h, s) && strcmp(hp_class_name(h, s), "java.lang.Object"))
			fprintf(f, " (extends %s)", hp_text_safe(hp_class_name(h, s), nm, sizeof nm));
		fputc('\n', f);
		break;
	}
	case HP_OBJ_OBJARRAY:
	case HP_OBJ_PRIMARRAY:
		fprintf(f, "  kind      %s, %s element%s\n", hp_text_safe(cname, nm, sizeof nm),
			cli_fmt_count(d->length, a, sizeof a), d->length == 1 ? "" : "s");
		break;
	default:
		fprintf(f, "  kind      class object (java.lang.Class)\n");
		break;
	}
	if (h->nheaps > 0 && hp_heap_name(h, hp_heap_heap(h, v))[0])
		fprintf(f, "  heap      %s\n", hp_text_safe(hp_heap_name(h, hp_heap_heap(h, v)), nm, sizeof nm));
	fprintf(f, "  shallow   %s\n", cli_fmt_bytes(hp_retained_shallow(R, v), a, sizeof a));
	if (R->dom.idom[v] == HP_DOM_UNREACHABLE)
		fprintf(f, "  retained  %s (no GC root reaches it)\n", cli_fmt_bytes(R->retained[v], a, sizeof a));
	else
		fprintf(f, "  retained  %s (%.1f%% of the heap)\n", cli_fmt_bytes(R->retained[v], a, sizeof a),
			c->total ? 100.0 * R->retained[v] / c->total : 0.0);
	if (cli_native_shown(h, c->N))
		fprintf(f, "  native    %s registered, %s retained\n", cli_fmt_bytes(hp_native_of(c->N, v), a, sizeof a),
			cli_fmt_bytes(hp_native_retained_of(c->N, v), b, sizeof b));
	cli_root_text(h, c->rd, v, rt, sizeof rt);
	fprintf(f, "  GC root   %s\n", rt[0] ? rt : "no");
	struct hp_collection col;
	HP_TRY(hp_collection_of(h, c->rd, v, &col, &c->err));
	if (col.family && col.known)
		fprintf(f, "  size      %s %s (%s)\n", cli_fmt_count(col.size, a, sizeof a),
			col.map ? (col.size == 1 ? "entry" : "entries") : (col.size == 1 ? "element" : "elements"), col.family);
	else if (col.family)
		fprintf(f, "  size      unknown: %s (%s)\n", col.why ? col.why : "?", col.family);
	if (d->kind == HP_OBJ_INSTANCE && d->field_bytes < d->layout_bytes)
		fprintf(f, "  warning   the record holds %u field bytes, its class's layout %u\n", d->field_bytes,
			d->layout_bytes);

	/* text of a String or a char[] */
	if (is_text(h, v)) {
		struct hp_text t;
		HP_TRY(hp_objread_text(c->rd, v, TEXT_CHARS, &t, &c->err));
		char *q = cli_quote_text(&t);
		fprintf(f, "  text      %s", q ? q : "?");
		if (t.utf8 && t.truncated)
			fprintf(f, " (%s characters)", cli_fmt_count(t.chars, a, sizeof a));
		fputc('\n', f);
		hp_free(q);
		hp_objread_text_release(&t);
	}

	if (d->kind == HP_OBJ_CLASS && d->class_of != HP_NONE) {
		const struct hp_class *k = &h->classes[d->class_of];
		size_t s = k->super_id ? hp_heap_find(h, k->super_id) : SIZE_MAX;
		size_t l = k->loader_id ? hp_heap_find(h, k->loader_id) : SIZE_MAX;
		fprintf(f, "  class     %s\n", hp_text_safe(hp_class_name(h, d->class_of), nm, sizeof nm));
		if (s != SIZE_MAX)
			fprintf(f, "  super     %s\n", cli_object_label(h, s, lab, sizeof lab));
		fprintf(f, "  loader    %s\n", l != SIZE_MAX ? cli_object_label(h, l, lab, sizeof lab) : "(bootstrap)");
		fprintf(f, "  instance  %u field bytes\n", k->instance_size);
	}

	/* fields / statics */
	if (d->kind == HP_OBJ_INSTANCE || d->kind == HP_OBJ_CLASS) {
		fprintf(f, "%s:%s\n", d->kind == HP_OBJ_CLASS ? "static fields" : "fields", d->nfields ? "" : " none");
		uint32_t decl = HP_NONE;
		for (size_t i = 0; i < d->nfields; i++) {
			const struct hp_objval *fv = &d->fields[i];
			if (d->kind == HP_OBJ_INSTANCE && fv->decl != decl) {
				decl = fv->decl;
				fprintf(f, "  %s\n", hp_text_safe(hp_class_name(h, decl), nm, sizeof nm));
			}
			if (fv->type == HP_T_OBJECT) {
				HP_TRY(fmt_ref(c, fv->bits, val, sizeof val));
			} else {
				char pv[64];
				snprintf(val, sizeof val, "%s (%s)", cli_prim_text(pv, sizeof pv, fv->type, fv->bits), type_name(fv->type));
			}
			fprintf(f, "%s%s = %s\n", d->kind == HP_OBJ_INSTANCE ? "    " : "  ",
				hp_text_safe(fv->name, nm, sizeof nm), val);
		}
	}

	/* elements */
	if (d->kind == HP_OBJ_OBJARRAY || d->kind == HP_OBJ_PRIMARRAY) {
		if (d->nodata) {
			fprintf(f, "elements: not in the dump (PRIMITIVE ARRAY NODATA)\n");
		} else {
			fprintf(f, "elements (%s of %s):\n", cli_fmt_count(d->nelems, a, sizeof a), cli_fmt_count(d->length, b, sizeof b));
			for (uint32_t i = 0; i < d->nelems; i++) {
				if (d->elem_type == HP_T_OBJECT)
					HP_TRY(fmt_ref(c, d->elems[i], val, sizeof val));
				else
					cli_prim_text(val, sizeof val, d->elem_type, d->elems[i]);
				fprintf(f, "  [%u] = %s\n", i, val);
			}
			if (d->nelems < d->length)
				fprintf(f, "  ... %s more\n", cli_fmt_count(d->length - d->nelems, a, sizeof a));
		}
	}

	/* referrers */
	size_t lim = rows_limit(c->o) > 0 ? (size_t)rows_limit(c->o) : nref;
	size_t shown = nref < lim ? nref : lim;
	fprintf(f, "referrers (%s%s, most retained first):%s\n", shown < nref ? "top " : "",
		cli_fmt_count(shown, a, sizeof a), nref ? "" : " none");
	if (c->class_listed)
		fprintf(f, "  (only objects of its class refer to it, through <class>: Eclipse MAT's reference from an object to its class)\n");
	for (size_t i = 0; i < shown; i++) {
		struct hp_objref ref;
		HP_TRY(hp_objread_find_ref(c->rd, refs[i].v, v, &ref, &c->err));
		char via[600];
		fprintf(f, "  %10s  %s %s\n", cli_fmt_bytes(R->retained[refs[i].v], a, sizeof a),
			cli_object_label(h, refs[i].v, lab, sizeof lab), cli_via_text(h, &ref, via, sizeof via));
	}
	if (shown < nref)
		fprintf(f, "  ... %s more\n", cli_fmt_count(nref - shown, a, sizeof a));
	if (c->class_refs && !c->class_listed)
		fprintf(f, "  and %s object%s of its class through <class> (Eclipse MAT's reference from an object to its class), not listed\n",
			cli_fmt_count(c->class_refs, a, sizeof a), c->class_refs == 1 ? "" : "s");

	/* dominators */
	fprintf(f, "dominators (nearest first):");
	if (!nchain)
		fprintf(f, " none: %s\n", R->dom.idom[v] == HP_DOM_UNREACHABLE ? "no GC root reaches it"
			: "only the GC roots together (the super-root) dominate it");
	else
		fputc('\n', f);
	for (size_t i = 0; i < nchain; i++) {
		uint32_t u = chain[i];
		if (cgap->n && i == cgap->at)
			fprintf(f, "  %10s  %s\n", "", cli_gap_text(cgap, 1, val, sizeof val));
		fprintf(f, "  %10s  %s", cli_fmt_bytes(R->retained[u], a, sizeof a), cli_object_label(h, u, lab, sizeof lab));
		if (R->root_kinds[u])
			fprintf(f, "  [GC root: %s]", cli_root_text(h, c->rd, u, rt, sizeof rt));
		fputc('\n', f);
	}

	/* the shortest path */
	fprintf(f, "shortest path from a GC root (weak referents %s):\n", c->all_weak ? "followed" : "excluded");
	size_t np;
	if ((c->path_rc = cli_list_paths(c->S, v, 1, c->all_weak, c->full_path, f, NULL, &np)) != EXIT_OK)
		return HP_ESTOP;
	if (!np)
		fprintf(f, "  none%s\n", c->all_weak ? "" : " (--all-weak also follows soft, weak, final and phantom referents)");
	return HP_OK;
}

static int json_report(struct octx *c, cJSON *j, uint32_t v, const struct hp_objdata *d,
		       const struct refrow *refs, size_t nref, const uint32_t *chain, size_t nchain,
		       const struct hp_path_gap *cgap)
{
	const hp_heap *h = c->h;
	const struct hp_retained *R = c->R;
	cJSON *ob = cli_object_json(h, v);
	cJSON_AddItemToObject(j, "object", ob);
	cJSON_AddStringToObject(ob, "kind", kind_name(d->kind));
	const struct hp_class *k0 = &h->classes[h->cls[v]];
	if (k0->dumped && hp_heap_find(h, k0->id) != SIZE_MAX) {
		char b[32];
		snprintf(b, sizeof b, "0x%llx", (unsigned long long)k0->id);
		cJSON_AddStringToObject(ob, "class_id", b);
	}
	if (h->nheaps > 0 && hp_heap_name(h, hp_heap_heap(h, v))[0])
		cJSON_AddStringToObject(ob, "heap", hp_heap_name(h, hp_heap_heap(h, v)));
	cli_json_u64(ob, "shallow", hp_retained_shallow(R, v));
	cli_json_u64(ob, "retained", R->retained[v]);
	if (cli_native_shown(h, c->N)) {
		cli_json_u64(ob, "native", hp_native_of(c->N, v));
		cli_json_u64(ob, "retained_native", hp_native_retained_of(c->N, v));
	}
	cJSON_AddBoolToObject(ob, "reachable", R->dom.idom[v] != HP_DOM_UNREACHABLE);
	cli_root_json(ob, h, c->rd, v);
	struct hp_collection col;
	HP_TRY(hp_collection_of(h, c->rd, v, &col, &c->err));
	if (col.family) {
		cJSON_AddStringToObject(ob, "collection", col.family);
		cJSON_AddBoolToObject(ob, "map", col.map);
		if (col.known) {
			cli_json_u64(ob, "size", col.size);
		} else {
			cJSON_AddNullToObject(ob, "size");
			cJSON_AddStringToObject(ob, "size_unknown", col.why ? col.why : "");
		}
	}
	if (is_text(h, v)) {
		struct hp_text t;
		HP_TRY(hp_objread_text(c->rd, v, JSON_TEXT_CHARS, &t, &c->err));
		cJSON_AddItemToObject(ob, "string", cli_text_json(&t));
		if (t.truncated) {
			cJSON_AddBoolToObject(ob, "string_truncated", 1);
			cli_json_u64(ob, "string_chars", t.chars);
		}
		hp_objread_text_release(&t);
	}
	if (d->kind == HP_OBJ_CLASS && d->class_of != HP_NONE) {
		const struct hp_class *k = &h->classes[d->class_of];
		size_t s = k->super_id ? hp_heap_find(h, k->super_id) : SIZE_MAX;
		size_t l = k->loader_id ? hp_heap_find(h, k->loader_id) : SIZE_MAX;
		if (s != SIZE_MAX)
			cJSON_AddItemToObject(ob, "super", cli_object_json(h, s));
		if (l != SIZE_MAX)
			cJSON_AddItemToObject(ob, "loader", cli_object_json(h, l));
		cli_json_u64(ob, "instance_size", k->instance_size);
	}
	if (d->kind == HP_OBJ_INSTANCE || d->kind == HP_OBJ_CLASS) {
		cJSON *fs = cJSON_AddArrayToObject(ob, d->kind == HP_OBJ_CLASS ? "statics" : "fields");
		for (size_t i = 0; i < d->nfields; i++) {
			const struct hp_objval *fv = &d->fields[i];
			cJSON *e = cJSON_CreateObject();
			cJSON_AddStringToObject(e, "name", fv->name);
			cJSON_AddStringToObject(e, "declared_by", hp_class_name(h, fv->decl));
			cJSON_AddStringToObject(e, "type", type_name(fv->type));
			if (fv->type == HP_T_OBJECT)
				HP_TRY(json_ref(c, e, fv->bits));
			else
				cJSON_AddItemToObject(e, "value", cli_prim_json(fv->type, fv->bits));
			cJSON_AddItemToArray(fs, e);
		}
		if (d->kind == HP_OBJ_INSTANCE && d->field_bytes < d->layout_bytes) {
			cli_json_u64(ob, "field_bytes", d->field_bytes);
			cli_json_u64(ob, "layout_bytes", d->layout_bytes);
		}
	}
	if (d->kind == HP_OBJ_OBJARRAY || d->kind == HP_OBJ_PRIMARRAY) {
		cli_json_u64(ob, "length", d->length);
		cJSON_AddStringToObject(ob, "element_type", type_name(d->elem_type));
		if (d->nodata) {
			cJSON_AddBoolToObject(ob, "nodata", 1);
		} else {
			cJSON *es = cJSON_AddArrayToObject(ob, "elements");
			for (uint32_t i = 0; i < d->nelems; i++) {
				if (d->elem_type != HP_T_OBJECT) {
					cJSON_AddItemToArray(es, cli_prim_json(d->elem_type, d->elems[i]));
					continue;
				}
				cJSON *e = cJSON_CreateObject();
				HP_TRY(json_ref(c, e, d->elems[i]));
				cJSON_AddItemToArray(es, e);
			}
		}
	}
	size_t lim = rows_limit(c->o) > 0 ? (size_t)rows_limit(c->o) : nref;
	size_t shown = nref < lim ? nref : lim;
	cli_json_u64(j, "referrers_total", nref);
	if (c->class_refs) {
		cli_json_u64(j, "class_referrers", c->class_refs);
		cJSON_AddBoolToObject(j, "class_referrers_listed", c->class_listed);
	}
	cJSON *ra = cJSON_AddArrayToObject(j, "referrers");
	for (size_t i = 0; i < shown; i++) {
		struct hp_objref ref;
		HP_TRY(hp_objread_find_ref(c->rd, refs[i].v, v, &ref, &c->err));
		cJSON *e = cli_object_json(h, refs[i].v);
		cli_json_u64(e, "shallow", hp_retained_shallow(R, refs[i].v));
		cli_json_u64(e, "retained", R->retained[refs[i].v]);
		cJSON_AddItemToObject(e, "via", cli_via_json(h, &ref));
		cJSON_AddItemToArray(ra, e);
	}
	cJSON *da = cJSON_AddArrayToObject(j, "dominators");
	for (size_t i = 0; i < nchain; i++) {
		cJSON *e = cli_object_json(h, chain[i]);
		cli_json_u64(e, "shallow", hp_retained_shallow(R, chain[i]));
		cli_json_u64(e, "retained", R->retained[chain[i]]);
		if (R->root_kinds[chain[i]])
			cli_root_json(e, h, c->rd, chain[i]);
		cJSON_AddItemToArray(da, e);
	}
	cli_gap_json(j, "dominators_", cgap);
	cJSON *p = cJSON_AddObjectToObject(j, "path");
	cJSON_AddStringToObject(p, "weak_referents", c->all_weak ? "followed" : "excluded");
	cJSON *pa = cJSON_CreateArray();
	size_t np;
	if ((c->path_rc = cli_list_paths(c->S, v, 1, c->all_weak, c->full_path, NULL, pa, &np)) != EXIT_OK) {
		cJSON_Delete(pa);
		return HP_ESTOP;
	}
	cJSON *first = cJSON_DetachItemFromArray(pa, 0);
	cJSON_Delete(pa);
	cJSON_AddBoolToObject(p, "reachable", first != NULL);
	if (first) {
		static const char *const keys[] = { "length", "elided", "elided_at", "steps" };
		for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
			cJSON *m = cJSON_DetachItemFromObject(first, keys[i]);
			if (m)
				cJSON_AddItemToObject(p, keys[i], m);
		}
		cJSON_Delete(first);
	}
	return HP_OK;
}

/* prints what went wrong (unless cli_show_paths() did) and gives the exit code */
static int failed(struct octx *c, int hr)
{
	if (hr == HP_ESTOP)
		return c->path_rc;
	cli_error("%s: %s", hp_session_path(c->S), c->err.msg[0] ? c->err.msg : "error");
	return cli_exit_code(hr);
}

struct object_result {
	struct octx c;
	uint32_t v;
	struct hp_objdata d;
	struct refrow *refs;
	uint32_t *chain;         /* the dominator chain, cut as chain_gap says */
	size_t nref, nchain;
	struct hp_path_gap chain_gap;
};

static void release(void *p)
{
	struct object_result *r = p;
	if (!r)
		return;
	hp_objread_release(&r->d);
	hp_free(r->refs);
	hp_free(r->chain);
	hp_free(r);
}

static int collect(struct cli_ctx *x, hp_session *S, void **res)
{
	const struct object_opts *o = x->own;
	uint64_t id;
	int rc = cli_id_arg(x, &id);
	if (rc)
		return rc;
	rc = cli_refuse_pipe(S, "retained sizes read", "save it to a file (or use --fast for shallow sizes)");
	if (rc)
		return rc;
	struct object_result *r = cli_result_new(sizeof *r, res);
	if (!r)
		return EXIT_NOMEM;
	struct octx *c = &r->c;
	c->o = o;
	c->all_weak = x->c->all_weak;
	c->full_path = x->c->full_path;
	c->S = S;
	if ((rc = cli_retained(S, &c->h, &c->R)) || (rc = cli_native(S, 1, &c->N)))
		return rc;
	const hp_heap *h = c->h;
	size_t v;
	if ((rc = cli_object_arg(x, S, h, id, &v)))
		return rc;
	r->v = (uint32_t)v;
	c->total = c->R->reachable_bytes + c->R->unreachable_bytes;   /* every object's shallow size summed */
	hp_error_clear(&c->err);
	int hr = hp_session_objread(S, &c->rd, &c->err);
	int lim = rows_limit(o);
	uint32_t max_elems = lim > 0 ? (uint32_t)lim : UINT32_MAX;
	if (hr == HP_OK)
		hr = hp_objread_decode(c->rd, v, max_elems, &r->d, &c->err);
	if (hr == HP_OK)
		hr = referrers(c, (uint32_t)v, &r->refs, &r->nref);
	if (hr == HP_OK)
		hr = hp_paths_dom_chain_cut(&c->R->dom, (uint32_t)v, cli_path_head(x), cli_path_tail(x), &r->chain,
					    &r->nchain, &r->chain_gap, &c->err);
	if (hr == HP_OK)
		hr = prefetch(c, (uint32_t)v, &r->d, r->refs, lim > 0 && (size_t)lim < r->nref ? (size_t)lim : r->nref);
	return hr == HP_OK ? EXIT_OK : failed(c, hr);
}

static int json(struct cli_ctx *x, hp_session *S, void *res, cJSON **doc)
{
	struct object_result *r = res;
	cJSON *j = cli_json_begin_heap(x, S, r->c.h, r->c.R);
	cli_json_native(j, r->c.h, r->c.N);
	*doc = j;
	int hr = json_report(&r->c, j, r->v, &r->d, r->refs, r->nref, r->chain, r->nchain, &r->chain_gap);
	return hr == HP_OK ? EXIT_OK : failed(&r->c, hr);
}

static int text(struct cli_ctx *x, hp_session *S, void *res, FILE *f)
{
	struct object_result *r = res;
	cli_partial_note(f, S);
	int hr = text_report(&r->c, f, r->v, &r->d, r->refs, r->nref, r->chain, r->nchain, &r->chain_gap);
	return hr == HP_OK ? EXIT_OK : failed(&r->c, hr);
}

static void after(struct cli_ctx *x, hp_session *S, void *res)
{
	(void)S;
	const struct object_result *r = res;
	if (r && r->c.h)
		cli_native_note(x, r->c.h, r->c.N);
}

CLI_COMMAND(object, "hprofan object FILE ID", "one object: fields, referrers, path",
	    CLI_FILES(1, 1), CLI_ANSWERS, CLI_OWN(struct object_opts, defaults), .args = "ID", .after = after,
	    CLI_TABLES(own, cli_opts_all_weak, cli_opts_full_path, cli_opts_model, cli_opts_policy, cli_opts_load, cli_opts_output, cli_opts_quiet));
