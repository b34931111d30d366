/* hprofan instances FILE CLASS: the instances of a class, largest first,
 * each with what it is (a String's value, an array's length, a
 * collection's size) and an id that pastes back into object and path. */
#include "cli/command.h"
#include "cli/msg.h"
#include "cli/format.h"
#include "cli/filter.h"
#include "cli/load.h"
#include "cli/output.h"
#include "cli/objtext.h"
#include "analysis/collections.h"
#include "base/text.h"
#include "cli/table.h"
#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>

enum { SORT_RETAINED, SORT_SHALLOW };
static const struct cli_choice sorts[] = {
	{ "retained", SORT_RETAINED, "default" },
	{ "shallow", SORT_SHALLOW, NULL },
	{ NULL, 0, NULL }
};

struct inst_opts {
	struct cli_count top;
	int sort;
};

static void defaults(void *own)
{
	((struct inst_opts *)own)->top.n = 20;
}


static const struct cli_option own[] = {
	OPT_TOP("the N largest instances (default 20; 0 shows all)", OPT_OWN(struct inst_opts, top)),
	OPT_SORT(sorts, NULL, OPT_OWN(struct inst_opts, sort)),
	OPT_END
};

/* what a row says about its object, beyond class and sizes */
struct idesc {
	int what;              /* 0 nothing, 1 text, 2 length, 3 size, 4 a collection of unknown size */
	uint64_t n;            /* length */
	int64_t size;          /* a collection's size (collections.h), else a size field (Java int) */
	struct hp_collection coll;   /* family NULL: no known collection */
	char *text;            /* a String's value, quoted and cut (owned) */
	struct hp_text raw;    /* the same for JSON */
};

struct inst_result {
	const hp_heap *h;
	const struct hp_retained *R;
	const char *name;
	uint32_t *classes;     /* class indexes with that name (one per loader) */
	size_t nclasses;
	uint32_t *objs;        /* the instances, in --sort order */
	size_t n, shown;
	uint64_t shallow, retained;   /* all instances: shallow summed, retained as a set */
	uint64_t cut_shallow;  /* of the rows --top left out (their retained sizes
				* may overlap: one instance can hold another) */
	int by_shallow;
	struct idesc *desc;    /* per shown row */
};

static void release(void *p)
{
	struct inst_result *r = p;
	if (!r)
		return;
	for (size_t i = 0; r->desc && i < r->shown; i++) {
		hp_free(r->desc[i].text);
		hp_objread_text_release(&r->desc[i].raw);
	}
	hp_free_all(r->desc, r->classes, r->objs, r);
}

static const struct inst_result *sort_res;   /* qsort has no context argument */

static int by_size(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct hp_retained *R = sort_res->R;
	uint64_t kx = sort_res->by_shallow ? hp_retained_shallow(R, x) : R->retained[x];
	uint64_t ky = sort_res->by_shallow ? hp_retained_shallow(R, y) : R->retained[y];
	if (kx != ky)
		return kx < ky ? 1 : -1;
	uint64_t rx = R->retained[x], ry = R->retained[y];
	if (rx != ry)
		return rx < ry ? 1 : -1;
	return x < y ? -1 : x > y;
}

/* the length of an array, the value of a String, the size of a collection */
static int describe(hp_objread *rd, const hp_heap *h, uint32_t v, struct idesc *d, struct hp_error *err)
{
	int kind = hp_heap_kind(h, v);
	if (kind == HP_OBJ_CLASS)
		return HP_OK;
	if (hp_objread_is_string(h, v)) {
		int rc = hp_objread_text(rd, v, 60, &d->raw, err);
		if (rc)
			return rc;
		if (d->raw.utf8) {
			if (!(d->text = cli_quote_text(&d->raw)))
				return hp_error_set(err, HP_ENOMEM, "out of memory");
			d->what = 1;
		}
		return HP_OK;
	}
	struct hp_objdata o;
	int rc = hp_objread_decode(rd, v, 0, &o, err);
	if (rc)
		return rc;
	if (kind != HP_OBJ_INSTANCE) {
		d->what = 2;
		d->n = o.length;
	} else if ((rc = hp_collection_of(h, rd, v, &d->coll, err)) != HP_OK) {
		hp_objread_release(&o);
		return rc;
	} else if (d->coll.family) {
		/* a JDK or Android collection: as object and leaks say */
		d->what = d->coll.known ? 3 : 4;
		d->size = (int64_t)d->coll.size;
	} else {
		/* other classes with a size field, StringBuilder's count */
		static const char *const names[] = { "size", "elementCount", "count" };
		for (size_t i = 0; i < sizeof names / sizeof *names && !d->what; i++) {
			const struct hp_objval *f = hp_objread_field(rd, &o, names[i], NULL);
			if (f && f->type == HP_T_INT) {
				d->what = 3;
				d->size = (int32_t)(uint32_t)f->bits;
			}
		}
	}
	hp_objread_release(&o);
	return HP_OK;
}

static int collect(struct cli_ctx *x, hp_session *S, void **res)
{
	const struct inst_opts *o = x->own;
	const char *name = x->args[0];
	int rc;
	if ((rc = cli_refuse_pipe(S, "retained sizes read", "save it to a file")))
		return rc;
	struct inst_result *r = cli_result_new(sizeof *r, res);
	if (!r)
		return EXIT_NOMEM;
	r->name = name;
	r->by_shallow = o->sort == SORT_SHALLOW;
	if ((rc = cli_retained(S, &r->h, &r->R)))
		return rc;
	const hp_heap *h = r->h;
	const struct hp_retained *R = r->R;
	if ((rc = cli_classes_named(h, hp_session_path(S), name, &r->classes, &r->nclasses)))
		return rc;
	/* the instances: the session's objects of those classes */
	uint8_t *want = hp_calloc(h->nclasses ? h->nclasses : 1, 1);
	if (!want) {
		cli_error("out of memory");
		return EXIT_NOMEM;
	}
	for (size_t i = 0; i < r->nclasses; i++) {
		want[r->classes[i]] = 1;
		r->retained += R->class_retained[r->classes[i]];
	}
	rc = cli_class_objects(S, h, want, &r->objs, &r->n);
	hp_free(want);
	if (rc)
		return rc;
	for (size_t i = 0; i < r->n; i++)
		r->shallow += hp_retained_shallow(R, r->objs[i]);
	sort_res = r;
	qsort(r->objs, r->n, sizeof *r->objs, by_size);
	r->shown = o->top.n > 0 && (size_t)o->top.n < r->n ? (size_t)o->top.n : r->n;
	for (size_t i = r->shown; i < r->n; i++)
		r->cut_shallow += hp_retained_shallow(R, r->objs[i]);
	/* what each row shown is: one forward pass per kind of read (gzip) */
	if (!(r->desc = hp_calloc(r->shown ? r->shown : 1, sizeof *r->desc))) {
		cli_error("out of memory");
		return EXIT_NOMEM;
	}
	if (!r->shown)
		return EXIT_OK;
	hp_objread *rd;
	if ((rc = cli_objread(S, &rd)))
		return rc;
	struct hp_error err;
	hp_error_clear(&err);
	int hr = hp_objread_prefetch_text(rd, r->objs, r->shown, &err);
	for (size_t i = 0; hr == HP_OK && i < r->shown; i++)
		hr = describe(rd, h, r->objs[i], &r->desc[i], &err);
	if (hr) {
		return cli_fail(hp_session_path(S), &err, hr);
	}
	return EXIT_OK;
}

/* ---- the table ---------------------------------------------------------- */

/* a row: instance v, the i-th shown */
struct irow {
	uint32_t v;
	size_t i;
	uint64_t retained, shallow;
};

/* "java.lang.String @0x7f3a10  \"GET /index.html\"", "... length 1,024", "... size 12" */
static void object_put(const struct cli_table *tb, const void *row, FILE *f)
{
	const struct inst_result *r = tb->ctx;
	const struct irow *w = row;
	const struct idesc *d = &r->desc[w->i];
	char lab[800], c[32];
	fputs(cli_object_label(r->h, w->v, lab, sizeof lab), f);
	if (d->what == 1)
		fprintf(f, "  %s", d->text);
	else if (d->what == 2)
		fprintf(f, "  length %s", cli_fmt_count(d->n, c, sizeof c));
	else if (d->what == 3)
		fprintf(f, "  size %s%s", d->size < 0 ? "-" : "",
			cli_fmt_count(d->size < 0 ? (uint64_t)-d->size : (uint64_t)d->size, c, sizeof c));
	else if (d->what == 4)
		fputs("  size unknown", f);
}

/* "value" and "length" of a String, "length" of an array, "size" of a collection
 * (its family, and why its size is unknown when it is) */
static void desc_json(const struct cli_table *tb, const void *row, cJSON *e, const char *key)
{
	(void)key;
	const struct inst_result *r = tb->ctx;
	const struct idesc *d = &r->desc[((const struct irow *)row)->i];
	if (d->what == 1) {
		cJSON_AddItemToObject(e, "value", cli_text_json(&d->raw));
		cli_json_u64(e, "length", d->raw.chars);
	} else if (d->what == 2) {
		cli_json_u64(e, "length", d->n);
	} else if (d->what == 3) {
		cJSON_AddNumberToObject(e, "size", (double)d->size);
	}
	if (d->coll.family) {
		cJSON_AddStringToObject(e, "collection", d->coll.family);
		if (!d->coll.known) {
			cJSON_AddNullToObject(e, "size");
			cJSON_AddStringToObject(e, "size_unknown", d->coll.why ? d->coll.why : "");
		}
	}
}

#define IR_(f) offsetof(struct irow, f)
static const struct cli_col inst_cols[] = {
	{ .title = "retained", .width = 10, .cell = CELL_BYTES, .off = IR_(retained), .key = "retained", .at = 2 },
	{ .title = "shallow", .width = 10, .cell = CELL_BYTES, .flags = COL_MORE, .off = IR_(shallow), .key = "shallow", .at = 1 },
	{ .title = "object", .cell = CELL_FN, .put = object_put, .key = "value", .at = 3, .json = desc_json },
};

static struct irow irow_of(const struct inst_result *r, size_t i)
{
	uint32_t v = r->objs[i];
	return (struct irow){ .v = v, .i = i, .retained = r->R->retained[v], .shallow = hp_retained_shallow(r->R, v) };
}

static int json(struct cli_ctx *x, hp_session *S, void *res, cJSON **doc)
{
	const struct inst_result *r = res;
	const hp_heap *h = r->h;
	const struct hp_retained *R = r->R;
	cJSON *j = cli_json_begin_heap(x, S, h, R);
	cJSON_AddStringToObject(j, "class", hp_class_name(h, r->classes[0]));
	cJSON *cl = cJSON_AddArrayToObject(j, "class_objects");
	for (size_t i = 0; i < r->nclasses; i++) {
		char id[32];
		snprintf(id, sizeof id, "0x%llx", (unsigned long long)h->classes[r->classes[i]].id);
		cJSON_AddItemToArray(cl, cJSON_CreateString(id));
	}
	cJSON_AddStringToObject(j, "sort", r->by_shallow ? "shallow" : "retained");
	cJSON *tot = cJSON_AddObjectToObject(j, "total");
	cli_json_u64(tot, "instances", r->n);
	cli_json_u64(tot, "shallow", r->shallow);
	cli_json_u64(tot, "retained", r->retained);
	cli_json_u64(tot, "heap_shallow", R->reachable_bytes + R->unreachable_bytes);
	struct cli_table tb;
	CLI_TABLE_INIT(&tb, inst_cols, 0, 0, r);
	cJSON *arr = cJSON_AddArrayToObject(j, "instances");
	for (size_t i = 0; i < r->shown; i++) {
		struct irow w = irow_of(r, i);
		cJSON_AddItemToArray(arr, cli_table_json(&tb, &w, i + 1, cli_object_json(h, w.v)));
	}
	if (r->shown < r->n) {
		cJSON *mo = cJSON_AddObjectToObject(j, "more");
		cli_json_u64(mo, "instances", r->n - r->shown);
		cli_json_u64(mo, "shallow", r->cut_shallow);
	}
	*doc = j;
	return EXIT_OK;
}

static int text(struct cli_ctx *x, hp_session *S, void *res, FILE *f)
{
	(void)x;
	const struct inst_result *r = res;
	const hp_heap *h = r->h;
	const struct hp_retained *R = r->R;
	uint64_t all = R->reachable_bytes + R->unreachable_bytes;
	char a[48], b[32], c[32], nm[512];
	cli_partial_note(f, S);
	fprintf(f, "%s of %s: shallow %s, retained %s as a set (%.1f%% of the heap)",
		cli_fmt_counted(r->n, "instance", "instances", a, sizeof a),
		hp_text_safe(hp_class_name(h, r->classes[0]), nm, sizeof nm), cli_fmt_bytes(r->shallow, b, sizeof b),
		cli_fmt_bytes(r->retained, c, sizeof c), all ? 100.0 * r->retained / all : 0.0);
	if (r->nclasses > 1)
		fprintf(f, "; %zu classes of that name (one per class loader)", r->nclasses);
	fputc('\n', f);
	struct cli_table tb;
	CLI_TABLE_INIT(&tb, inst_cols, 0, 0, r);
	cli_table_header(&tb, f);
	for (size_t i = 0; i < r->shown; i++) {
		struct irow w = irow_of(r, i);
		cli_table_row(&tb, f, &w, i + 1);
	}
	if (r->shown < r->n) {
		/* their retained sizes may overlap: only the shallow ones add up */
		struct irow more = { .shallow = r->cut_shallow };
		cli_table_line(&tb, f, &more, COL_MORE, NULL, cli_more_text(r->n - r->shown, NULL, NULL, c, sizeof c));
	}
	return EXIT_OK;
}

CLI_COMMAND(instances, "hprofan instances FILE CLASS", "the instances of a class, largest first",
	    CLI_FILES(1, 1), CLI_ANSWERS, CLI_OWN(struct inst_opts, defaults), .args = "CLASS",
	    CLI_TABLES(own, cli_opts_model, cli_opts_policy, cli_opts_load, cli_opts_output, cli_opts_quiet));
