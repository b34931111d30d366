/* hprofan group-by-value FILE CLASS FIELD: Eclipse MAT's "group by value",
 * the instances of CLASS (every loader's) grouped by FIELD's value, each
 * group with its instances, shallow and retained bytes
 * (analysis/groupvalue.h). */
#include "cli/command.h"
#include "cli/msg.h"
#include "cli/format.h"
#include "cli/filter.h"
#include "cli/load.h"
#include "cli/objtext.h"
#include "cli/output.h"
#include "cli/table.h"
#include "analysis/groupvalue.h"
#include "base/alloc.h"
#include "base/text.h"

#include <stdlib.h>
#include <string.h>

struct gbv_opts {
	struct cli_count top;
};

static void defaults(void *own)
{
	((struct gbv_opts *)own)->top.n = 20;
}

static const struct cli_option own[] = {
	OPT_TOP("the N values most instances have (default 20; 0 shows all)", OPT_OWN(struct gbv_opts, top)),
	OPT_END
};

struct gbv_result {
	const hp_heap *h;
	const struct hp_retained *R;
	struct hp_value_groups g;
	size_t shown;
};

static void release(void *p)
{
	struct gbv_result *r = p;
	if (!r)
		return;
	hp_value_groups_release(&r->g);
	hp_free(r);
}

static int collect(struct cli_ctx *x, hp_session *S, void **res)
{
	const struct gbv_opts *o = x->own;
	int rc;
	if (x->nargs != 2)
		return cli_usage_error(NULL, "group-by-value needs CLASS and FIELD: hprofan group-by-value FILE CLASS FIELD");
	if ((rc = cli_refuse_pipe(S, "retained sizes read", "save it to a file")))
		return rc;
	struct gbv_result *r = cli_result_new(sizeof *r, res);
	if (!r)
		return EXIT_NOMEM;
	if ((rc = cli_retained(S, &r->h, &r->R)))
		return rc;
	const hp_heap *h = r->h;
	uint32_t *cls;
	size_t nc;
	if ((rc = cli_classes_named(h, hp_session_path(S), x->args[0], &cls, &nc)))
		return rc;
	uint8_t *want = hp_calloc(h->nclasses ? h->nclasses : 1, 1);
	if (!want) {
		hp_free(cls);
		cli_error("out of memory");
		return EXIT_NOMEM;
	}
	for (size_t i = 0; i < nc; i++)
		want[cls[i]] = 1;
	hp_free(cls);
	uint32_t *objs;
	size_t nobjs;
	rc = cli_class_objects(S, h, want, &objs, &nobjs);
	hp_free(want);
	if (rc)
		return rc;
	hp_objread *rd;
	if ((rc = cli_objread(S, &rd))) {
		hp_free(objs);
		return rc;
	}
	struct hp_error err;
	hp_error_clear(&err);
	int hr = hp_group_by_value(h, r->R, rd, objs, nobjs, x->args[1], 200, &r->g, &err);
	hp_free(objs);
	if (hr) {
		return cli_fail(hp_session_path(S), &err, hr);
	}
	if (r->g.instances && r->g.missing == r->g.instances) {
		char a[256], b[256];
		cli_error("%s: no instance of %s has a field '%s'", hp_session_path(S), hp_text_safe(x->args[0], a, sizeof a),
			  hp_text_safe(x->args[1], b, sizeof b));
		return EXIT_USAGE;
	}
	r->shown = o->top.n > 0 && (size_t)o->top.n < r->g.n ? (size_t)o->top.n : r->g.n;
	return EXIT_OK;
}

/* ---- the table ---------------------------------------------------------- */

struct vrow {
	const char *value;
	uint64_t instances, shallow, retained;
};

#define VR_(f) offsetof(struct vrow, f)
static const struct cli_col value_cols[] = {
	{ .title = "instances", .width = 9, .cell = CELL_COUNT, .flags = COL_TOTAL, .off = VR_(instances), .key = "instances", .at = 2 },
	{ .title = "shallow", .width = 10, .cell = CELL_BYTES, .flags = COL_TOTAL, .off = VR_(shallow), .key = "shallow", .at = 3 },
	{ .title = "retained", .width = 10, .cell = CELL_BYTES, .flags = COL_TOTAL, .off = VR_(retained), .key = "retained", .at = 4 },
	{ .title = "value", .cell = CELL_TEXT, .flags = COL_LEFT, .off = VR_(value), .key = "value", .at = 1 },
};

static struct vrow vrow_of(const struct hp_value_group *g)
{
	return (struct vrow){ .value = g->value ? g->value : "(no such field)", .instances = g->instances,
			      .shallow = g->shallow, .retained = g->retained };
}

static struct vrow rest_of(const struct gbv_result *r)
{
	struct vrow m = { .value = NULL };
	for (size_t i = r->shown; i < r->g.n; i++) {
		m.instances += r->g.g[i].instances;
		m.shallow += r->g.g[i].shallow;
		m.retained += r->g.g[i].retained;
	}
	return m;
}

static int json(struct cli_ctx *x, hp_session *S, void *res, cJSON **doc)
{
	const struct gbv_result *r = res;
	cJSON *j = cli_json_begin_heap(x, S, r->h, r->R);
	cJSON_AddStringToObject(j, "class", x->args[0]);
	cJSON_AddStringToObject(j, "field", x->args[1]);
	cJSON *tot = cJSON_AddObjectToObject(j, "total");
	cli_json_u64(tot, "instances", r->g.instances);
	cli_json_u64(tot, "shallow", r->g.shallow);
	cli_json_u64(tot, "retained", r->g.retained);
	cli_json_u64(tot, "values", r->g.n - (r->g.missing ? 1 : 0));
	cli_json_u64(tot, "without_field", r->g.missing);
	struct cli_table tb;
	CLI_TABLE_INIT(&tb, value_cols, 0, 0, r);
	cJSON *arr = cJSON_AddArrayToObject(j, "values");
	for (size_t i = 0; i < r->shown; i++) {
		struct vrow w = vrow_of(&r->g.g[i]);
		cJSON *e = cli_table_json(&tb, &w, i + 1, NULL);
		if (!r->g.g[i].value) {
			cJSON_DeleteItemFromObject(e, "value");
			cJSON_AddNullToObject(e, "value");
		}
		cJSON_AddItemToArray(arr, e);
	}
	if (r->shown < r->g.n) {
		struct vrow m = rest_of(r);
		cJSON *mo = cli_table_json(&tb, &m, 0, NULL);
		cli_json_u64(mo, "values", r->g.n - r->shown);
		cJSON_AddItemToObject(j, "more", mo);
	}
	*doc = j;
	return EXIT_OK;
}

static int text(struct cli_ctx *x, hp_session *S, void *res, FILE *f)
{
	const struct gbv_result *r = res;
	char a[48], b[32], c[32], d[48], nm[512], fl[256];
	cli_partial_note(f, S);
	fprintf(f, "%s of %s by %s: %s (shallow %s, retained %s)\n", cli_fmt_counted(r->g.instances, "instance", "instances", a, sizeof a),
		hp_text_safe(x->args[0], nm, sizeof nm), hp_text_safe(x->args[1], fl, sizeof fl),
		cli_fmt_counted(r->g.n - (r->g.missing ? 1 : 0), "value", "values", d, sizeof d),
		cli_fmt_bytes(r->g.shallow, b, sizeof b), cli_fmt_bytes(r->g.retained, c, sizeof c));
	struct cli_table tb;
	CLI_TABLE_INIT(&tb, value_cols, 0, 0, r);
	cli_table_header(&tb, f);
	for (size_t i = 0; i < r->shown; i++) {
		struct vrow w = vrow_of(&r->g.g[i]);
		cli_table_row(&tb, f, &w, i + 1);
	}
	if (r->shown < r->g.n) {
		struct vrow m = rest_of(r);
		cli_table_line(&tb, f, &m, COL_TOTAL, NULL, cli_more_text(r->g.n - r->shown, "value", "values", c, sizeof c));
	}
	return EXIT_OK;
}

CLI_COMMAND_NAMED(group_by_value, "group-by-value", "hprofan group-by-value FILE CLASS FIELD",
		  "instances grouped by a field's value", CLI_FILES(1, 1), CLI_ANSWERS, CLI_OWN(struct gbv_opts, defaults),
		  .args = "CLASS FIELD", .many_args = 1,
		  CLI_TABLES(own, cli_opts_model, cli_opts_policy, cli_opts_load, cli_opts_output, cli_opts_quiet));
