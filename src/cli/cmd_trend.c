/* hprofan trend D1 D2 ... Dn: growth across a series of dumps, per class
 * and per dominator path (analysis/diff.h): each series, its least-squares
 * slope per step, R^2, whether it grows at every step, and a sparkline.
 * Each dump is read, summarised and let go before the next one, so memory
 * stays that of the largest dump (plus the small summaries). */
#include "cli/dumpsum.h"
#include "cli/msg.h"
#include "cli/format.h"
#include "cli/filter.h"
#include "cli/load.h"
#include "cli/output.h"
#include "base/text.h"
#include "cli/table.h"
#include "base/alloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct trend_opts {
	struct cli_count top;
	int fast, by_time;
	int group;                    /* enum hp_group_by, -1 not given */
	const char *components;
};

static void defaults(void *own)
{
	struct trend_opts *o = own;
	o->top.n = 20;
	o->group = -1;
}

static const struct cli_option own[] = {
	OPT_TOP("the N first rows of each table (default 20; 0 shows all)", OPT_OWN(struct trend_opts, top)),
	CLI_OPT_SERIES_FAST(OPT_OWN(struct trend_opts, fast)),
	OPT_BOOL("--sort-by-time",
		 "order the dumps by the time in their headers\n(default: as given)", OPT_OWN(struct trend_opts, by_time)),
	CLI_OPT_SERIES_GROUP(OPT_OWN(struct trend_opts, group)),
	CLI_OPT_SERIES_COMPONENTS(OPT_OWN(struct trend_opts, components)),
	OPT_END
};

/* one class or path of the table */
struct trow {
	uint32_t idx;                 /* class or path */
	const uint64_t *count;        /* instances; objects at the path */
	const uint64_t *bytes;        /* retained (shallow with --fast) */
	const uint64_t *shallow;      /* classes: shallow */
	struct hp_fit fc, fb, fs;
};

/* A class grows when it has more instances at every step: those first,
 * then by shallow bytes per step (what a class retains counts what it
 * holds, so holders, java.lang.Class first, would lead; the paths say who
 * holds). */
static int by_class_rank(const void *a, const void *b)
{
	const struct trow *x = a, *y = b;
	if (x->fc.monotonic != y->fc.monotonic)
		return x->fc.monotonic ? -1 : 1;
	if (x->fs.slope != y->fs.slope)
		return x->fs.slope < y->fs.slope ? 1 : -1;
	if (x->fc.slope != y->fc.slope)
		return x->fc.slope < y->fc.slope ? 1 : -1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* A path grows when what it retains grows at every step. */
static int by_path_rank(const void *a, const void *b)
{
	const struct trow *x = a, *y = b;
	if (x->fb.monotonic != y->fb.monotonic)
		return x->fb.monotonic ? -1 : 1;
	if (x->fb.slope != y->fb.slope)
		return x->fb.slope < y->fb.slope ? 1 : -1;
	if (x->fc.slope != y->fc.slope)
		return x->fc.slope < y->fc.slope ? 1 : -1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

struct trend_state {
	struct cli_ctx *x;
	const struct trend_opts *o;
	size_t n;
	struct hp_dsum *sum;
	cJSON **info;                 /* per dump, for JSON */
	int *partial;
	size_t *order;                /* dump k of the series is file order[k] */
	const struct hp_dsum **ss;
	struct hp_cmp cmp;
	struct cli_filter *flt;
	struct trow *crow, *prow;
	size_t ncrow, nprow;
	uint64_t *pbuf;               /* the paths' series, contiguous */
	struct cli_dumpgroup grp;     /* --group: the class rows are groups (cmp.groups) */
	const struct hp_cmp_class *tab;   /* cmp.classes or cmp.groups */
	int borrowed;                 /* sum, info, partial are the caller's (report) */
	struct cli_series series;     /* the model all are compared under (report: its own) */
	const struct cli_series *sm;  /* &series, or report's */
	struct cli_dumpmodel *own;    /* each dump's own, by file (report's when borrowed) */
};

static const char *spark(const uint64_t *y, size_t n, char *buf, size_t cap)
{
	static const char *const bars[8] = { "\xe2\x96\x81", "\xe2\x96\x82", "\xe2\x96\x83", "\xe2\x96\x84",
					     "\xe2\x96\x85", "\xe2\x96\x86", "\xe2\x96\x87", "\xe2\x96\x88" };
	uint64_t lo = UINT64_MAX, hi = 0;
	for (size_t i = 0; i < n; i++) {
		if (y[i] < lo)
			lo = y[i];
		if (y[i] > hi)
			hi = y[i];
	}
	size_t l = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n && l + 4 < cap; i++) {
		int k = hi > lo ? (int)((double)(y[i] - lo) * 7.0 / (double)(hi - lo) + 0.5) : 0;
		memcpy(buf + l, bars[k], 3);
		l += 3;
		buf[l] = '\0';
	}
	return buf;
}

static int compare(struct trend_state *t);

static int collect(struct trend_state *t)
{
	struct cli_ctx *x = t->x;
	int rc;
	t->n = (size_t)x->nfiles;
	cli_dumpgroup_parse(t->o->group, t->o->components, &t->grp);
	if ((x->c->filter || x->c->exclude) && !(t->flt = cli_filter_new(x->c->filter, x->c->exclude, &rc)))
		return rc;
	t->sum = hp_calloc(t->n, sizeof *t->sum);
	t->info = hp_calloc(t->n, sizeof *t->info);
	t->partial = hp_calloc(t->n, sizeof *t->partial);
	t->order = hp_calloc(t->n, sizeof *t->order);
	t->ss = hp_calloc(t->n, sizeof *t->ss);
	t->own = hp_calloc(t->n, sizeof *t->own);
	if (!t->sum || !t->info || !t->partial || !t->order || !t->ss || !t->own) {
		cli_error("out of memory");
		return EXIT_NOMEM;
	}
	/* all under the first dump's model (the options' where given) */
	t->sm = &t->series;
	cli_series_init(&t->series, x, t->o->fast);
	for (size_t i = 0; i < t->n; i++) {
		hp_session *S = NULL;
		rc = cli_series_summary(&t->series, i, &t->grp, &S, &t->sum[i], &t->own[i]);
		if (!rc) {
			t->info[i] = cli_json_dump_info(x->files[i], S, &t->sum[i]);
			cli_json_dumpmodel(t->info[i], &t->own[i]);
			t->partial[i] = hp_session_load_info(S)->partial;
			cli_print_stats(x, S);
		}
		if (S)
			cli_session_close(S);
		if (rc)
			return rc;
	}
	cli_series_warn(t->sm, t->own, t->n);
	return compare(t);
}

/* The series in order, fitted and ranked (the summaries are read). */
static int compare(struct trend_state *t)
{
	for (size_t i = 0; i < t->n; i++)
		t->order[i] = i;
	if (t->o->by_time) {    /* insertion sort: stable, n is small */
		for (size_t i = 1; i < t->n; i++)
			for (size_t k = i; k > 0 && t->sum[t->order[k]].timestamp_ms < t->sum[t->order[k - 1]].timestamp_ms; k--) {
				size_t tmp = t->order[k];
				t->order[k] = t->order[k - 1];
				t->order[k - 1] = tmp;
			}
	}
	for (size_t i = 0; i < t->n; i++)
		t->ss[i] = &t->sum[t->order[i]];
	struct hp_error err;
	hp_error_clear(&err);
	if (hp_cmp_build(t->ss, t->n, &t->cmp, &err)) {
		cli_error("%s", err.msg);
		return EXIT_NOMEM;
	}
	/* classes */
	const struct hp_cmp *c = &t->cmp;
	int grouped = t->grp.by >= 0;   /* the filters chose the classes grouped */
	size_t ntab = grouped ? c->ngroups : c->nclasses;
	t->tab = grouped ? c->groups : c->classes;
	t->crow = hp_calloc(ntab ? ntab : 1, sizeof *t->crow);
	if (!t->crow) {
		cli_error("out of memory");
		return EXIT_NOMEM;
	}
	for (size_t i = 0; i < ntab; i++) {
		const struct hp_cmp_class *C = &t->tab[i];
		int m = grouped ? 1 : cli_filter_match(t->flt, C->name);
		if (m < 0)
			return EXIT_USAGE;
		if (!m)
			continue;
		struct trow *r = &t->crow[t->ncrow++];
		r->idx = (uint32_t)i;
		r->count = C->instances;
		r->bytes = t->o->fast ? C->shallow : C->retained;
		r->shallow = C->shallow;
		hp_fit_series(r->count, t->n, &r->fc);
		hp_fit_series(r->bytes, t->n, &r->fb);
		hp_fit_series(r->shallow, t->n, &r->fs);
	}
	qsort(t->crow, t->ncrow, sizeof *t->crow, by_class_rank);
	if (t->o->fast)
		return EXIT_OK;
	/* paths: the growth points from the first dump to the last */
	struct hp_growth *g;
	size_t ng;
	if (hp_cmp_growth(c, 0, t->n - 1, &g, &ng, &err)) {
		cli_error("%s", err.msg);
		return EXIT_NOMEM;
	}
	t->prow = hp_calloc(ng ? ng : 1, sizeof *t->prow);
	if (!t->prow) {
		hp_free(g);
		cli_error("out of memory");
		return EXIT_NOMEM;
	}
	for (size_t i = 0; i < ng; i++) {
		const struct hp_cmp_path *P = &c->paths[g[i].path];
		if (g[i].own)
			continue;       /* what a path holds itself is not a series of its own */
		int m = cli_filter_match(t->flt, P->label);
		if (m < 0) {
			hp_free(g);
			return EXIT_USAGE;
		}
		if (!m)
			continue;
		struct trow *r = &t->prow[t->nprow++];
		r->idx = g[i].path;
		r->count = P->nodes;
		r->bytes = P->retained;
		hp_fit_series(r->count, t->n, &r->fc);
		hp_fit_series(r->bytes, t->n, &r->fb);
	}
	hp_free(g);
	qsort(t->prow, t->nprow, sizeof *t->prow, by_path_rank);
	return EXIT_OK;
}

static size_t shown(const struct trend_state *t, size_t n)
{
	return t->o->top.n > 0 && (size_t)t->o->top.n < n ? (size_t)t->o->top.n : n;
}

static cJSON *json_series(const uint64_t *v, size_t n)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(a, cli_json_u64_item(v[i]));
	return a;
}

static cJSON *json_fit(const struct hp_fit *f)
{
	cJSON *e = cJSON_CreateObject();
	cJSON_AddNumberToObject(e, "slope", isfinite(f->slope) ? f->slope : 0);
	cJSON_AddNumberToObject(e, "r2", isfinite(f->r2) ? f->r2 : 0);
	cJSON_AddBoolToObject(e, "every_step", f->monotonic);
	return e;
}

/* the document --json writes; NULL when out of memory */
static cJSON *trend_doc(struct trend_state *t)
{
	struct cli_ctx *x = t->x;
	cJSON **inf = hp_calloc(t->n, sizeof *inf);
	if (!inf)
		return NULL;
	for (size_t i = 0; i < t->n; i++)
		inf[i] = t->info[t->order[i]];
	cJSON *j = cli_json_multi_begin("trend", inf, t->n);
	hp_free(inf);
	cli_json_series_model(j, t->sm);
	cJSON_AddBoolToObject(j, "retained_sizes", !t->o->fast);
	cJSON_AddStringToObject(j, "order", t->o->by_time ? "time" : "given");
	if (x->c->filter)
		cJSON_AddStringToObject(j, "filter", x->c->filter);
	if (x->c->exclude)
		cJSON_AddStringToObject(j, "exclude", x->c->exclude);
	cJSON *d = cJSON_AddArrayToObject(j, "dumps");
	for (size_t i = 0; i < t->n; i++) {
		cJSON_AddItemToArray(d, t->info[t->order[i]]);
		t->info[t->order[i]] = NULL;
	}
	int grouped = t->grp.by >= 0;
	if (grouped)
		cJSON_AddStringToObject(j, "group", t->grp.kind);
	cli_json_normalised(j, &t->cmp);
	cli_json_u64(j, grouped ? "groups_total" : "classes_total", t->ncrow);
	cJSON *arr = cJSON_AddArrayToObject(j, grouped ? "groups" : "classes");
	for (size_t i = 0; i < shown(t, t->ncrow); i++) {
		const struct trow *r = &t->crow[i];
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, grouped ? "name" : "class", t->tab[r->idx].name);
		cJSON_AddBoolToObject(e, "grows", r->fc.monotonic);
		cJSON_AddItemToObject(e, "instances", json_series(r->count, t->n));
		cJSON_AddItemToObject(e, "shallow", json_series(r->shallow, t->n));
		if (!t->o->fast)
			cJSON_AddItemToObject(e, "retained", json_series(r->bytes, t->n));
		cJSON_AddItemToObject(e, "instances_fit", json_fit(&r->fc));
		cJSON_AddItemToObject(e, "shallow_fit", json_fit(&r->fs));
		if (!t->o->fast)
			cJSON_AddItemToObject(e, "retained_fit", json_fit(&r->fb));
		if (t->tab[r->idx].normalised)
			cJSON_AddItemToObject(e, "normalised", cli_json_norm_row(t->tab[r->idx].normalised, t->tab[r->idx].names, t->n));
		cJSON_AddItemToArray(arr, e);
	}
	if (!t->o->fast) {
		cli_json_u64(j, "paths_total", t->nprow);
		arr = cJSON_AddArrayToObject(j, "paths");
		for (size_t i = 0; i < shown(t, t->nprow); i++) {
			const struct trow *r = &t->prow[i];
			cJSON *e = cJSON_CreateObject();
			cJSON_AddItemToObject(e, "path", cli_json_path(&t->cmp, r->idx));
			cJSON_AddBoolToObject(e, "grows", r->fb.monotonic);
			cJSON_AddItemToObject(e, "objects", json_series(r->count, t->n));
			cJSON_AddItemToObject(e, "retained", json_series(r->bytes, t->n));
			cJSON_AddItemToObject(e, "objects_fit", json_fit(&r->fc));
			cJSON_AddItemToObject(e, "retained_fit", json_fit(&r->fb));
			unsigned nk = cli_cmp_path_normalised(&t->cmp, r->idx);
			if (nk)
				cJSON_AddItemToObject(e, "normalised", cli_json_norm_row(nk, t->cmp.paths[r->idx].names, t->n));
			cJSON_AddItemToArray(arr, e);
		}
	}
	return j;
}

static int json_out(struct trend_state *t)
{
	return cli_json_end(t->x, trend_doc(t), EXIT_OK);
}

/* ---- the text's tables ----------------------------------------------------- */

/* a row as the tables show it: the slopes rounded to whole steps */
struct tline {
	const struct trend_state *t;
	const struct trow *r;
	int64_t count_step, shallow_step, bytes_step;
	double r2;
	const char *grows;
};

static struct tline tline_of(const struct trend_state *t, const struct trow *r, int paths)
{
	const struct hp_fit *f = paths ? &r->fb : &r->fc;
	return (struct tline){ .t = t, .r = r, .count_step = (int64_t)llround(r->fc.slope),
			       .shallow_step = (int64_t)llround(r->fs.slope), .bytes_step = (int64_t)llround(r->fb.slope),
			       .r2 = f->r2, .grows = f->monotonic ? "yes" : "" };
}

static void r2_cell(const struct cli_table *tb, const void *row, char *buf, size_t n)
{
	(void)tb;
	snprintf(buf, n, "%.2f", ((const struct tline *)row)->r2);
}

/* blank with --fast: no retained sizes */
static void retained_cell(const struct cli_table *tb, const void *row, char *buf, size_t n)
{
	(void)tb;
	const struct tline *l = row;
	if (l->t->o->fast)
		buf[0] = '\0';
	else
		cli_fmt_dbytes(l->bytes_step, buf, n);
}

/* the last 64 steps as a sparkline (3 bytes a step) */
static void spark_cell(const uint64_t *y, size_t n, char *buf, size_t cap)
{
	char sp[3 * 64 + 8];
	size_t k = n > 64 ? 64 : n;
	snprintf(buf, cap, "%s", spark(y + (n - k), k, sp, sizeof sp));
}

static void count_spark(const struct cli_table *tb, const void *row, char *buf, size_t n)
{
	(void)tb;
	const struct tline *l = row;
	spark_cell(l->r->count, l->t->n, buf, n);
}

static void bytes_spark(const struct cli_table *tb, const void *row, char *buf, size_t n)
{
	(void)tb;
	const struct tline *l = row;
	spark_cell(l->r->bytes, l->t->n, buf, n);
}

/* the class or group, and its instances in the first dump and the last */
static void class_put(const struct cli_table *tb, const void *row, FILE *f)
{
	(void)tb;
	const struct tline *l = row;
	const struct trend_state *t = l->t;
	const struct hp_cmp_class *C = &t->tab[l->r->idx];
	char nm[4200], d[32], e[32], nz[80] = "";
	if (C->normalised)
		snprintf(nz, sizeof nz, "  [normalised: %u \xe2\x86\x92 %u classes]", C->names[0], C->names[t->n - 1]);
	fprintf(f, "%s  (%s \xe2\x86\x92 %s)%s", hp_text_safe(C->name, nm, sizeof nm),
		cli_fmt_count(l->r->count[0], d, sizeof d), cli_fmt_count(l->r->count[t->n - 1], e, sizeof e), nz);
}

/* the path, and what it retains in the first dump and the last */
static void path_put(const struct cli_table *tb, const void *row, FILE *f)
{
	(void)tb;
	const struct tline *l = row;
	const struct trend_state *t = l->t;
	char nm[4200], c[32], d[32];
	fprintf(f, "%s  (%s \xe2\x86\x92 %s)%s", cli_fmt_path(&t->cmp, l->r->idx, nm, sizeof nm),
		cli_fmt_bytes(l->r->bytes[0], c, sizeof c), cli_fmt_bytes(l->r->bytes[t->n - 1], d, sizeof d),
		cli_cmp_path_normalised(&t->cmp, l->r->idx) ? "  [normalised]" : "");
}

#define TL_(f) offsetof(struct tline, f)
static const struct cli_col class_cols[] = {
	{ .title = "count/step", .width = 11, .cell = CELL_DCOUNT, .off = TL_(count_step) },
	{ .title = "R\xc2\xb2", .width = 5, .cell = CELL_FN, .fn = r2_cell },
	{ .title = "grow", .width = 4, .cell = CELL_TEXT, .flags = COL_LEFT, .off = TL_(grows) },
	{ .title = "shallow/step", .width = 12, .cell = CELL_DBYTES, .off = TL_(shallow_step) },
	{ .title = "retained/step", .width = 13, .cell = CELL_FN, .fn = retained_cell },
	{ .title = "count", .width = 5, .cell = CELL_FN, .flags = COL_LEFT | COL_CHARS, .fn = count_spark },
	{ .title = "bytes", .width = 5, .cell = CELL_FN, .flags = COL_LEFT | COL_CHARS, .fn = bytes_spark },
	{ .title = "class (instances first \xe2\x86\x92 last)", .cell = CELL_FN, .put = class_put },
};

static const struct cli_col path_cols[] = {
	{ .title = "retained/step", .width = 13, .cell = CELL_DBYTES, .off = TL_(bytes_step) },
	{ .title = "objects/step", .width = 11, .cell = CELL_DCOUNT, .off = TL_(count_step) },
	{ .title = "R\xc2\xb2", .width = 5, .cell = CELL_FN, .fn = r2_cell },
	{ .title = "grow", .width = 4, .cell = CELL_TEXT, .flags = COL_LEFT, .off = TL_(grows) },
	{ .title = "bytes", .width = 5, .cell = CELL_FN, .flags = COL_LEFT | COL_CHARS, .fn = bytes_spark },
	{ .title = "count", .width = 5, .cell = CELL_FN, .flags = COL_LEFT | COL_CHARS, .fn = count_spark },
	{ .title = "path (retained first \xe2\x86\x92 last)", .cell = CELL_FN, .put = path_put },
};

static void text_rows(struct trend_state *t, FILE *f, const struct trow *rows, size_t nrows, int paths)
{
	/* the sparklines' columns: a character a step, at least 5 */
	int w = t->n > 64 ? 64 : t->n < 5 ? 5 : (int)t->n;
	struct cli_table tb;
	if (paths) {
		CLI_TABLE_INIT(&tb, path_cols, 0, 0, t);
	} else {
		CLI_TABLE_INIT(&tb, class_cols, 0, 0, t);
		if (t->o->fast)
			cli_table_set_title(&tb, "retained/step", "");
		if (t->grp.by >= 0)
			cli_table_set_title(&tb, "class (instances first \xe2\x86\x92 last)",
					    t->grp.by == HP_GROUP_LOADER ? "class loader (instances first \xe2\x86\x92 last)"
					    : t->grp.by == HP_GROUP_COMPONENT ? "component (instances first \xe2\x86\x92 last)"
					    : "package (instances first \xe2\x86\x92 last)");
	}
	cli_table_set_width(&tb, "bytes", w);
	cli_table_set_width(&tb, "count", w);
	cli_table_header(&tb, f);
	for (size_t i = 0; i < shown(t, nrows); i++) {
		struct tline l = tline_of(t, &rows[i], paths);
		cli_table_row(&tb, f, &l, i + 1);
	}
	if (!nrows)
		fprintf(f, "  (none)\n");
}

static int text_out(struct trend_state *t)
{
	struct cli_ctx *x = t->x;
	struct cli_out out;
	FILE *f = cli_text_begin(&out);
	if (!f)
		return EXIT_NOMEM;
	char a[32], b[32], tm[64], nm[1024], mw[200], mf[1300];
	for (size_t i = 0; i < t->n; i++) {
		const struct hp_dsum *s = t->ss[i];
		const struct cli_dumpmodel *dm = &t->own[t->order[i]];
		fprintf(f, "%3zu  %s  %s objects, %s%s  %s", i + 1, cli_fmt_time(s->timestamp_ms, tm, sizeof tm),
			cli_fmt_count(s->objects, a, sizeof a), cli_fmt_bytes(s->shallow, b, sizeof b),
			t->partial[t->order[i]] ? " (partial)" : "", hp_text_safe(x->files[t->order[i]], nm, sizeof nm));
		if (dm->differs)
			fprintf(f, "  (own: %s%s)", cli_dumpmodel_words(dm, mw, sizeof mw),
				dm->reread ? "; read again" : "");
		fputc('\n', f);
	}
	fprintf(f, "compared under: %s (%s)\n", cli_series_words(t->sm, mw, sizeof mw),
		cli_series_from(t->sm, hp_text_safe(x->files[t->sm->first], nm, sizeof nm), mf, sizeof mf));
	cli_text_normalised(f, &t->cmp, 0, t->n - 1, "the first dump", "the last");
	static const char *const plural[] = { "packages", "class loaders", "components", "packages" };
	const char *what = t->grp.by >= 0 ? plural[t->grp.by] : "classes";
	fprintf(f, "\n%s, those with more instances at every step first, then by shallow bytes per step (%s %s%s):\n",
		what, cli_fmt_count(t->ncrow, a, sizeof a), what,
		shown(t, t->ncrow) < t->ncrow ? "; top rows shown" : "");
	text_rows(t, f, t->crow, t->ncrow, 0);
	if (!t->o->fast) {
		fprintf(f, "\ndominator paths where the growth from the first dump to the last is, those growing at every\nstep first (%s%s):\n",
			cli_fmt_count(t->nprow, a, sizeof a), shown(t, t->nprow) < t->nprow ? "; top rows shown" : "");
		text_rows(t, f, t->prow, t->nprow, 1);
	}
	return cli_text_end(x, &out, EXIT_OK);
}

static void release(struct trend_state *t)
{
	hp_free(t->crow);
	hp_free(t->prow);
	hp_cmp_release(&t->cmp);
	hp_free(t->order);
	hp_free(t->ss);
	cli_filter_free(t->flt);
	if (t->borrowed)
		return;
	hp_free(t->own);
	for (size_t i = 0; t->sum && i < t->n; i++)
		hp_dsum_release(&t->sum[i]);
	for (size_t i = 0; t->info && i < t->n; i++)
		cJSON_Delete(t->info[i]);
	hp_free(t->sum);
	hp_free(t->info);
	hp_free(t->partial);
}

static int run(struct cli_ctx *x)
{
	struct trend_state t;
	memset(&t, 0, sizeof t);
	t.x = x;
	t.o = x->own;
	int rc = collect(&t);
	if (!rc)
		rc = x->c->json ? json_out(&t) : text_out(&t);
	release(&t);
	return rc;
}

int cli_trend_doc(struct cli_ctx *x, struct hp_dsum *sum, cJSON **info, int *partial, size_t n,
		  const struct cli_series *sm, struct cli_dumpmodel *models, cJSON **doc)
{
	struct trend_state t;
	memset(&t, 0, sizeof t);
	t.x = x;
	t.o = x->own;
	t.n = n;
	t.borrowed = 1;
	t.grp.by = -1;                /* the classes, not groups */
	t.sum = sum;
	t.info = info;
	t.partial = partial;
	t.sm = sm;
	t.own = models;
	int rc = EXIT_OK;
	if ((x->c->filter || x->c->exclude) && !(t.flt = cli_filter_new(x->c->filter, x->c->exclude, &rc)))
		return rc;
	t.order = hp_calloc(n, sizeof *t.order);
	t.ss = hp_calloc(n, sizeof *t.ss);
	if (!t.order || !t.ss) {
		cli_error("out of memory");
		rc = EXIT_NOMEM;
	}
	if (!rc)
		rc = compare(&t);
	if (!rc && !(*doc = trend_doc(&t))) {
		cli_error("out of memory");
		rc = EXIT_NOMEM;
	}
	release(&t);
	return rc;
}

CLI_COMMAND(trend, "hprofan trend D1 D2 ... Dn", "growth across a series of dumps, class by class and path by path",
	    CLI_FILES(2, 100000), CLI_OWN(struct trend_opts, defaults), .run = run,
	    CLI_TABLES(own, cli_opts_filter, cli_opts_model, cli_opts_policy, cli_opts_load, cli_opts_output, cli_opts_quiet),
	    .rules = cli_series_rules);
