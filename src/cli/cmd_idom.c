/* hprofan idom FILE CLASS|ID...: Eclipse MAT's "immediate dominators" of a
 * set of objects (every instance of each CLASS, each ID), grouped by the
 * dominators' class, looking past the classes --skip names
 * (analysis/idom.h). */
#include "cli/command.h"
#include "cli/msg.h"
#include "cli/format.h"
#include "cli/filter.h"
#include "cli/load.h"
#include "cli/output.h"
#include "cli/objtext.h"
#include "cli/table.h"
#include "analysis/idom.h"
#include "base/alloc.h"
#include "base/text.h"

#include <stdlib.h>
#include <string.h>

struct idom_opts {
	struct cli_count top;
	const char *skip;
};

static void defaults(void *own)
{
	((struct idom_opts *)own)->top.n = 20;
}

static const struct cli_option own[] = {
	OPT_TOP("the N dominator classes that retain most (default 20; 0 shows all)", OPT_OWN(struct idom_opts, top)),
	OPT_STRING("--skip", "RE", "look past dominators whose class matches RE (MAT's java\\..*)",
		   "needs a regular expression", OPT_OWN(struct idom_opts, skip)),
	OPT_END
};

struct idom_result {
	const hp_heap *h;
	const struct hp_retained *R;
	struct hp_idom d;
	size_t shown;
	uint64_t set_shallow, set_retained;   /* of the objects of the set (each once) */
};

static void release(void *p)
{
	struct idom_result *r = p;
	if (!r)
		return;
	hp_idom_release(&r->d);
	hp_free(r);
}

static int collect(struct cli_ctx *x, hp_session *S, void **res)
{
	const struct idom_opts *o = x->own;
	int rc;
	if ((rc = cli_refuse_pipe(S, "retained sizes read", "save it to a file")))
		return rc;
	struct idom_result *r = cli_result_new(sizeof *r, res);
	if (!r)
		return EXIT_NOMEM;
	if ((rc = cli_retained(S, &r->h, &r->R)))
		return rc;
	const hp_heap *h = r->h;
	uint32_t *set;
	size_t n;
	if ((rc = cli_object_set(x, S, h, &set, &n)))
		return rc;
	uint8_t *skip = NULL;
	if (o->skip) {
		struct cli_filter *f = cli_filter_new(o->skip, NULL, &rc);
		if (!f || !(skip = hp_calloc(h->nclasses ? h->nclasses : 1, 1))) {
			cli_filter_free(f);
			hp_free(set);
			if (f)
				cli_error("out of memory");
			return f ? EXIT_NOMEM : rc;
		}
		for (size_t c = 0; c < h->nclasses && rc == EXIT_OK; c++) {
			int m = cli_filter_match(f, hp_class_name(h, c));
			if (m < 0)
				rc = EXIT_USAGE;
			skip[c] = m > 0;
		}
		cli_filter_free(f);
		if (rc) {
			hp_free_all(set, skip);
			return rc;
		}
	}
	struct hp_error err;
	hp_error_clear(&err);
	int hr = hp_idom_compute(h, r->R, set, n, skip, &r->d, &err);
	hp_free_all(set, skip);
	if (hr) {
		cli_error("%s", err.msg);
		return cli_exit_code(hr);
	}
	for (size_t i = 0; i < r->d.n; i++) {
		r->set_shallow += r->d.g[i].dominated_shallow;
		r->set_retained += r->d.g[i].dominated_retained;
	}
	r->shown = o->top.n > 0 && (size_t)o->top.n < r->d.n ? (size_t)o->top.n : r->d.n;
	return EXIT_OK;
}

/* ---- the table ---------------------------------------------------------- */

struct drow {
	const char *cls;
	uint64_t dominators, retained, dominated, dshallow, dretained;
};

#define DR_(f) offsetof(struct drow, f)
static const struct cli_col idom_cols[] = {
	{ .title = "dominators", .width = 10, .cell = CELL_COUNT, .flags = COL_TOTAL, .off = DR_(dominators), .key = "dominators", .at = 2 },
	{ .title = "retained", .width = 10, .cell = CELL_BYTES, .flags = COL_TOTAL, .off = DR_(retained), .key = "retained", .at = 3 },
	{ .title = "dominated", .width = 10, .cell = CELL_COUNT, .flags = COL_TOTAL, .off = DR_(dominated), .key = "dominated", .at = 4 },
	{ .title = "dom shallow", .width = 11, .cell = CELL_BYTES, .flags = COL_TOTAL, .off = DR_(dshallow), .key = "dominated_shallow", .at = 5 },
	{ .title = "dom retained", .width = 12, .cell = CELL_BYTES, .flags = COL_TOTAL, .off = DR_(dretained), .key = "dominated_retained", .at = 6 },
	{ .title = "dominator class", .cell = CELL_TEXT, .flags = COL_LEFT, .off = DR_(cls), .key = "class", .at = 1 },
};

static struct drow drow_of(const struct idom_result *r, const struct hp_idom_group *g)
{
	return (struct drow){ .cls = g->cls == HP_NONE ? "<GC roots>" : hp_class_name(r->h, g->cls),
			      .dominators = g->dominators, .retained = g->retained, .dominated = g->dominated,
			      .dshallow = g->dominated_shallow, .dretained = g->dominated_retained };
}

/* the groups --top leaves out, added up (their dominators are distinct) */
static struct drow rest_of(const struct idom_result *r)
{
	struct drow m = { .cls = NULL };
	for (size_t i = r->shown; i < r->d.n; i++) {
		struct drow w = drow_of(r, &r->d.g[i]);
		m.dominators += w.dominators;
		m.retained += w.retained;
		m.dominated += w.dominated;
		m.dshallow += w.dshallow;
		m.dretained += w.dretained;
	}
	return m;
}

static int json(struct cli_ctx *x, hp_session *S, void *res, cJSON **doc)
{
	const struct idom_result *r = res;
	const struct idom_opts *o = x->own;
	cJSON *j = cli_json_begin_heap(x, S, r->h, r->R);
	cJSON *set = cJSON_AddArrayToObject(j, "of");
	for (int a = 0; a < x->nargs; a++)
		cJSON_AddItemToArray(set, cJSON_CreateString(x->args[a]));
	if (o->skip)
		cJSON_AddStringToObject(j, "skip", o->skip);
	cJSON *tot = cJSON_AddObjectToObject(j, "total");
	cli_json_u64(tot, "objects", r->d.objects);
	cli_json_u64(tot, "unreachable", r->d.unreachable);
	cli_json_u64(tot, "shallow", r->set_shallow);
	cli_json_u64(tot, "retained", r->set_retained);
	cli_json_u64(tot, "classes", r->d.n);
	struct cli_table tb;
	CLI_TABLE_INIT(&tb, idom_cols, 0, 0, r);
	cJSON *arr = cJSON_AddArrayToObject(j, "dominators");
	for (size_t i = 0; i < r->shown; i++) {
		struct drow w = drow_of(r, &r->d.g[i]);
		cJSON *e = cli_table_json(&tb, &w, i + 1, NULL);
		if (r->d.g[i].cls == HP_NONE)
			cJSON_AddBoolToObject(e, "gc_roots", 1);
		cJSON_AddItemToArray(arr, e);
	}
	if (r->shown < r->d.n) {
		struct drow m = rest_of(r);
		cJSON *mo = cli_table_json(&tb, &m, 0, NULL);
		cli_json_u64(mo, "classes", r->d.n - r->shown);
		cJSON_AddItemToObject(j, "more", mo);
	}
	*doc = j;
	return EXIT_OK;
}

static int text(struct cli_ctx *x, hp_session *S, void *res, FILE *f)
{
	const struct idom_result *r = res;
	const struct idom_opts *o = x->own;
	char a[48], b[32], c[32], re[512];
	cli_partial_note(f, S);
	fprintf(f, "immediate dominators of %s (shallow %s, retained %s)",
		cli_fmt_counted(r->d.objects, "object", "objects", a, sizeof a), cli_fmt_bytes(r->set_shallow, b, sizeof b),
		cli_fmt_bytes(r->set_retained, c, sizeof c));
	if (o->skip)
		fprintf(f, ", looking past %s", hp_text_safe(o->skip, re, sizeof re));
	fputc('\n', f);
	if (r->d.unreachable)
		fprintf(f, "%s no GC root reaches have none\n", cli_fmt_counted(r->d.unreachable, "object", "objects", a, sizeof a));
	struct cli_table tb;
	CLI_TABLE_INIT(&tb, idom_cols, 0, 0, r);
	cli_table_header(&tb, f);
	for (size_t i = 0; i < r->shown; i++) {
		struct drow w = drow_of(r, &r->d.g[i]);
		cli_table_row(&tb, f, &w, i + 1);
	}
	if (r->shown < r->d.n) {
		struct drow m = rest_of(r);
		cli_table_line(&tb, f, &m, COL_TOTAL, NULL, cli_more_text(r->d.n - r->shown, "class", "classes", c, sizeof c));
	}
	return EXIT_OK;
}

CLI_COMMAND(idom, "hprofan idom FILE CLASS|ID...", "the immediate dominators of a set of objects, by class",
	    CLI_FILES(1, 1), CLI_ANSWERS, CLI_OWN(struct idom_opts, defaults), .args = "CLASS|ID...", .many_args = 1,
	    CLI_TABLES(own, cli_opts_model, cli_opts_policy, cli_opts_load, cli_opts_output, cli_opts_quiet));
