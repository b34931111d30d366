/* hprofan waste FILE: memory that could be saved (duplicate Strings and
 * arrays, mostly-null arrays, under-filled collections, boxes) and, apart,
 * buffers never written (constant arrays). */
#include "cli/command.h"
#include "cli/msg.h"
#include "cli/format.h"
#include "cli/load.h"
#include "cli/output.h"
#include "cli/objtext.h"
#include "cli/table.h"
#include "analysis/waste.h"
#include "base/text.h"
#include "base/alloc.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define VALUE_CHARS 60          /* characters of a duplicate String shown */
#define HOLDER_STEPS 4          /* references of a holder path shown before the sample (text) */
/* the text shows the first reference and the last HOLDER_STEPS of a holder
 * path, which keeps as many at each end as it shows, or more */
_Static_assert(HP_PATH_HEAD >= 2 && HP_PATH_TAIL >= HOLDER_STEPS, "a holder's line shows what its path keeps");

struct waste_opts {
	struct cli_count top;
	int min_count;
};

static void defaults(void *own)
{
	struct waste_opts *o = own;
	o->top.n = 10;
	o->min_count = 2;
}

static int set_min_count(const struct cli_option *o, const char *as, const char *val, void *dst)
{
	(void)o;
	if (cli_parse_int(val, 1, INT_MAX, dst))
		return cli_usage_error(NULL, "%s needs a number of objects (1 or more)", as);
	return EXIT_OK;
}

static const struct cli_option own[] = {
	OPT_TOP("rows shown per section (default 10; 0 shows all)", OPT_OWN(struct waste_opts, top)),
	OPT_CALLBACK("--min-count", "N", set_min_count,
		     "leave out rows of fewer than N objects (default 2;\nduplicates need 2 in any case)",
		     "needs a number of objects", OPT_OWN(struct waste_opts, min_count)),
	OPT_END
};

/* How the sample of a row is held: the shortest path from a GC root to it
 * (the path search of `hprofan path`), cut to its ends unless --full-path
 * (gap): nodes[0] the object a root names, nodes[len - 1] the sample;
 * refs[i] the reference to nodes[i + 1] from the node before it on the path
 * (nodes[i], or gap.last past the gap). */
struct holder {
	size_t len;                 /* the nodes kept; 0: no GC root reaches the sample */
	uint32_t *nodes;
	struct hp_objref *refs;     /* len - 1; names borrowed from the session's object reader */
	struct hp_path_gap gap;
	char root[400];             /* the GC root kinds of nodes[0] */
};

struct waste_result {
	const hp_heap *h;
	hp_objread *rd;
	struct hp_waste W;
	size_t shown[HP_WASTE_NSECTIONS];
	struct hp_text *text;       /* the shown duplicate Strings' values */
	size_t ntext;
	struct holder *hold[HP_WASTE_NSECTIONS];   /* shown[s] each, for rows with a sample */
	int all_weak;
	int full_path;              /* --full-path: holder paths whole */
	size_t head, tail;          /* what the holder paths keep (cli_path_head()) */
};

static void release(void *p)
{
	struct waste_result *r = p;
	if (!r)
		return;
	for (size_t i = 0; i < r->ntext; i++)
		hp_objread_text_release(&r->text[i]);
	hp_free(r->text);
	for (int s = 0; s < HP_WASTE_NSECTIONS; s++) {
		for (size_t i = 0; r->hold[s] && i < r->shown[s]; i++) {
			hp_free(r->hold[s][i].nodes);
			hp_free(r->hold[s][i].refs);
		}
		hp_free(r->hold[s]);
	}
	hp_waste_release(&r->W);
	hp_free(r);
}

static int say_error(hp_session *S, const struct hp_error *err, int st)
{
	char buf[1024];
	cli_format_error(hp_session_path(S), err, buf, sizeof buf);
	cli_error("%s", buf);
	return cli_exit_code(st);
}

/* the holder path of every shown row's sample: one breadth-first search
 * from the GC roots (the session's, shared with `path`), then each path
 * read back from it and its references named */
static int holders(hp_session *S, struct waste_result *r)
{
	const struct hp_pathsearch *ps = NULL;
	int rc;
	struct hp_error err;
	hp_error_clear(&err);
	for (int s = 0; s < HP_WASTE_NSECTIONS; s++) {
		if (!r->shown[s])
			continue;
		if (!ps && (rc = cli_paths(S, r->all_weak, &ps)))
			return rc;
		r->hold[s] = hp_calloc(r->shown[s], sizeof *r->hold[s]);
		if (!r->hold[s]) {
			cli_error("out of memory");
			return EXIT_NOMEM;
		}
		for (size_t i = 0; i < r->shown[s]; i++) {
			uint32_t v = r->W.s[s].rows[i].sample;
			struct holder *o = &r->hold[s][i];
			if (v == HP_NONE)
				continue;
			struct hp_pathlist pl;
			memset(&pl, 0, sizeof pl);
			int st = hp_paths_shortest_cut(&ps->P, &ps->g, v, 1, r->head, r->tail, &pl, &err);
			if (st != HP_OK)
				return say_error(S, &err, st);
			size_t len = pl.npaths ? pl.first[1] - pl.first[0] : 0;
			if (len) {
				o->nodes = hp_reallocarray(NULL, len, sizeof *o->nodes);
				o->refs = hp_calloc(len, sizeof *o->refs);
				if (!o->nodes || !o->refs) {
					hp_paths_list_release(&pl);
					cli_error("out of memory");
					return EXIT_NOMEM;
				}
				memcpy(o->nodes, pl.nodes + pl.first[0], len * sizeof *o->nodes);
				o->len = len;
				o->gap = pl.gap[0];
			}
			hp_paths_list_release(&pl);
			for (size_t k = 0; k + 1 < o->len; k++) {
				uint32_t from = o->gap.n && k + 1 == o->gap.at ? o->gap.last : o->nodes[k];
				if ((st = hp_objread_find_ref(r->rd, from, o->nodes[k + 1], &o->refs[k], &err)) != HP_OK)
					return say_error(S, &err, st);
			}
			if (o->len)
				cli_root_text(r->h, r->rd, o->nodes[0], o->root, sizeof o->root);
		}
	}
	return EXIT_OK;
}

static int collect(struct cli_ctx *x, hp_session *S, void **res)
{
	const struct waste_opts *o = x->own;
	int rc;
	struct waste_result *r = cli_result_new(sizeof *r, res);
	if (!r)
		return EXIT_NOMEM;
	if ((rc = cli_refuse_pipe(S, "waste reads", "save it to a file")) || (rc = cli_model(S, &r->h)))
		return rc;
	struct hp_error err;
	hp_error_clear(&err);
	const char *rp = hp_session_reread_path(S, &err);
	int st = rp ? hp_waste_compute(r->h, rp, (uint64_t)o->min_count, &r->W, &err) : err.code;
	if (st != HP_OK) {
		char buf[1024];
		cli_format_error(hp_session_path(S), &err, buf, sizeof buf);
		cli_error("%s", buf);
		return cli_exit_code(st);
	}
	for (int s = 0; s < HP_WASTE_NSECTIONS; s++)
		r->shown[s] = o->top.n > 0 && (size_t)o->top.n < r->W.s[s].n ? (size_t)o->top.n : r->W.s[s].n;
	/* the values of the duplicate Strings shown */
	size_t n = r->shown[HP_WASTE_STRINGS];
	hp_objread *rd;
	if ((rc = cli_objread(S, &rd)))
		return rc;
	r->rd = rd;
	r->all_weak = x->c->all_weak;
	r->full_path = x->c->full_path;
	r->head = cli_path_head(x);
	r->tail = cli_path_tail(x);
	if (!n)
		return holders(S, r);
	r->text = hp_calloc(n, sizeof *r->text);
	uint32_t *objs = hp_reallocarray(NULL, n, sizeof *objs);
	if (!r->text || !objs) {
		hp_free(objs);
		cli_error("out of memory");
		return EXIT_NOMEM;
	}
	for (size_t i = 0; i < n; i++)
		objs[i] = r->W.s[HP_WASTE_STRINGS].rows[i].sample;
	st = hp_objread_prefetch_text(rd, objs, n, &err);
	hp_free(objs);
	for (size_t i = 0; st == HP_OK && i < n; i++, r->ntext++)
		st = hp_objread_text(rd, r->W.s[HP_WASTE_STRINGS].rows[i].sample, VALUE_CHARS, &r->text[i], &err);
	if (st != HP_OK) {
		char buf[1024];
		cli_format_error(hp_session_path(S), &err, buf, sizeof buf);
		cli_error("%s", buf);
		return cli_exit_code(st);
	}
	return holders(S, r);
}

static const char *id_text(const hp_heap *h, uint32_t v, char *buf, size_t n)
{
	if (v == HP_NONE)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "0x%llx", (unsigned long long)hp_heap_id(h, v));
	return buf;
}

static const char *const titles[HP_WASTE_NSECTIONS] = {
	"duplicate Strings (all but one copy of each value, String and array)",
	"duplicate primitive arrays (all but one copy; not a String's value, not constant)",
	"buffers never written: constant primitive arrays (8+ elements, all equal; the whole array, not in could save)",
	"object arrays 90%+ null (8+ elements; the null slots)",
	"empty and under-filled collections (empty: the collection and its table; else the empty slots)",
	"boxed primitives (their size less the primitive's)",
};

/* null when no GC root reaches the sample, else the path as `path --json`
 * writes its steps: the object a root names first, the sample last (what a
 * cut one leaves out as held_by_elided and held_by_elided_at in q) */
static cJSON *holder_json(const struct waste_result *r, const struct holder *o, cJSON *q)
{
	if (!o->len)
		return cJSON_CreateNull();
	cJSON *steps = cJSON_CreateArray();
	for (size_t k = 0; k < o->len; k++)
		cJSON_AddItemToArray(steps, cli_step_json(r->h, r->rd, o->nodes[k], k ? &o->refs[k - 1] : NULL));
	cli_gap_json(q, "held_by_", &o->gap);
	return steps;
}

/* "held by [sticky class] LeakyCache.LISTENERS -> ArrayList.elementData ->
 * Object[][7]": the root, then the references of the path that lead to the
 * sample, each named after the object it is in: of a long path (unless
 * --full-path) the first and the last HOLDER_STEPS, "(N more)" for the ones
 * between (hp_path_gap()) */
static void holder_text(const struct waste_result *r, const struct holder *o, FILE *f)
{
	char ref[700];
	if (!o->len) {
		fprintf(f, "%12sheld by no GC root%s\n", "", r->all_weak ? "" : " (through strong references)");
		return;
	}
	fprintf(f, "%12sheld by [%s]", "", o->root);
	if (o->len == 1) {
		fprintf(f, " (the sample itself)\n");
		return;
	}
	/* node i of the path (len nodes) is nodes[i] before the gap, nodes[i - gap.n] after it */
	size_t len = o->len + o->gap.n;
	struct hp_path_gap line = r->full_path ? hp_path_gap(len, HP_PATH_WHOLE, HP_PATH_WHOLE)
					       : hp_path_gap(len, 2, HOLDER_STEPS);
	for (size_t i = 1; i < len; i++) {
		if (line.n && i >= line.at && i < line.at + line.n)
			continue;
		size_t k = i < o->gap.at ? i : i - o->gap.n;
		uint32_t from = o->gap.n && k == o->gap.at ? o->gap.last : o->nodes[k - 1];
		cli_ref_text(r->h, from, &o->refs[k - 1], ref, sizeof ref, NULL);
		if (line.n && i == line.at + line.n)
			fprintf(f, " -> (%zu more)", line.n);
		fprintf(f, "%s %s", i > 1 ? " ->" : "", ref);
	}
	fputc('\n', f);
}

/* ---- a section's table ---------------------------------------------------- */

/* row i of section s */
struct wrow {
	const struct hp_waste_row *w;
	int s;
	size_t i;
	uint64_t wasted, count, bytes;
	const char *cls;
};

static const char *sample_text(const struct cli_table *tb, const void *row, char *buf, size_t n)
{
	const struct waste_result *r = tb->ctx;
	return id_text(r->h, ((const struct wrow *)row)->w->sample, buf, n);
}

static void sample_cell(const struct cli_table *tb, const void *row, char *buf, size_t n)
{
	sample_text(tb, row, buf, n);
}

/* the sample's id, null without one; "held_by": the path from a GC root */
static void sample_json(const struct cli_table *tb, const void *row, cJSON *q, const char *key)
{
	const struct waste_result *r = tb->ctx;
	const struct wrow *x = row;
	char id[32];
	if (x->w->sample == HP_NONE) {
		cJSON_AddNullToObject(q, key);
		return;
	}
	cJSON_AddStringToObject(q, key, sample_text(tb, row, id, sizeof id));
	if (r->hold[x->s])
		cJSON_AddItemToObject(q, "held_by", holder_json(r, &r->hold[x->s][x->i], q));
}

/* what the row is: the String's value, the array's type and length, the
 * collection's class and fill, the class */
static void what_cell(const struct cli_table *tb, const void *row, char *buf, size_t n)
{
	const struct waste_result *r = tb->ctx;
	const struct wrow *x = row;
	const struct hp_waste_row *w = x->w;
	const char *tn = hp_type_name(w->type) ? hp_type_name(w->type) : "?";
	char what[800], lab[600];
	switch (x->s) {
	case HP_WASTE_STRINGS: {
		char *q = x->i < r->ntext ? cli_quote_text(&r->text[x->i]) : NULL;
		snprintf(what, sizeof what, "%s", q ? q : "?");
		hp_free(q);
		break;
	}
	case HP_WASTE_ARRAYS:
		snprintf(what, sizeof what, "%s[%u]", tn, w->length);
		break;
	case HP_WASTE_CONSTANT: {
		char v[64];
		snprintf(what, sizeof what, "%s[] all %s (sample of %u)", tn, cli_prim_text(v, sizeof v, w->type, w->value),
			 w->length);
		break;
	}
	case HP_WASTE_COLLECTIONS:
		snprintf(what, sizeof what, "%s %s", hp_text_safe(hp_class_name(r->h, w->cls), lab, sizeof lab),
			 hp_waste_fill_key(w->fill));
		break;
	default:
		snprintf(what, sizeof what, "%s", hp_text_safe(hp_class_name(r->h, w->cls), lab, sizeof lab));
	}
	snprintf(buf, n, "%s", what);
}

/* the section's members: a String's value, an array's length, type and element, a collection's fill */
static void what_json(const struct cli_table *tb, const void *row, cJSON *q, const char *key)
{
	(void)key;
	const struct waste_result *r = tb->ctx;
	const struct wrow *x = row;
	const struct hp_waste_row *w = x->w;
	int s = x->s;
	size_t i = x->i;
	if (s == HP_WASTE_STRINGS) {
		cJSON *v = i < r->ntext ? cli_text_json(&r->text[i]) : cJSON_CreateNull();
		cJSON_AddItemToObject(q, "value", v ? v : cJSON_CreateNull());
		cJSON_AddBoolToObject(q, "value_cut", i < r->ntext && r->text[i].truncated);
		cli_json_u64(q, "chars", i < r->ntext ? r->text[i].chars : 0);
	}
	if (s == HP_WASTE_ARRAYS || s == HP_WASTE_CONSTANT || s == HP_WASTE_NULL_SLOTS)
		cli_json_u64(q, "length", w->length);
	if (s == HP_WASTE_ARRAYS || s == HP_WASTE_CONSTANT)
		cJSON_AddStringToObject(q, "type", hp_type_name(w->type) ? hp_type_name(w->type) : "?");
	if (s == HP_WASTE_CONSTANT) {
		char v[64];
		cJSON_AddStringToObject(q, "element", cli_prim_text(v, sizeof v, w->type, w->value));
	}
	if (s == HP_WASTE_COLLECTIONS)
		cJSON_AddStringToObject(q, "fill", hp_waste_fill_key(w->fill));
}

#define WR_(f) offsetof(struct wrow, f)
static const struct cli_col waste_cols[] = {
	{ .title = "wasted", .width = 10, .cell = CELL_BYTES, .off = WR_(wasted), .key = "wasted", .at = 1 },
	{ .title = "count", .width = 8, .cell = CELL_COUNT, .off = WR_(count), .key = "count", .at = 2, .gap = " " },
	{ .title = "sample", .width = 18, .cell = CELL_FN, .flags = COL_LEFT, .fn = sample_cell, .key = "sample", .at = 5, .json = sample_json },
	{ .title = "what", .cell = CELL_FN, .fn = what_cell, .key = "what", .at = 6, .json = what_json },
	{ .cell = CELL_BYTES, .off = WR_(bytes), .key = "bytes", .at = 3 },
	{ .cell = CELL_TEXT, .off = WR_(cls), .key = "class", .at = 4 },
};

static struct wrow wrow_of(const struct waste_result *r, int s, size_t i)
{
	const struct hp_waste_row *w = &r->W.s[s].rows[i];
	return (struct wrow){ .w = w, .s = s, .i = i, .wasted = w->wasted, .count = w->count, .bytes = w->bytes,
			      .cls = hp_class_name(r->h, w->cls) };
}

static int json(struct cli_ctx *x, hp_session *S, void *res, cJSON **doc)
{
	const struct waste_result *r = res;
	const hp_heap *h = r->h;
	const struct hp_waste *W = &r->W;
	const struct waste_opts *o = x->own;
	cJSON *j = cli_json_begin_heap(x, S, h, NULL);
	cli_json_u64(j, "min_count", (uint64_t)o->min_count);
	cJSON *tot = cJSON_AddObjectToObject(j, "total");
	cli_json_u64(tot, "heap", h->total_shallow);
	cli_json_u64(tot, "could_save", W->total);
	cli_json_u64(tot, "deduplication", W->dedup);
	cli_json_u64(tot, "other", W->total - W->dedup);
	cli_json_u64(tot, "never_written", W->never_written);
	cli_json_u64(tot, "never_written_arrays", W->never_written_n);
	cJSON *seen = cJSON_AddObjectToObject(j, "seen");
	cli_json_u64(seen, "strings", W->strings);
	cli_json_u64(seen, "primitive_arrays", W->prim_arrays);
	cli_json_u64(seen, "arrays_without_data", W->nodata_arrays);
	cli_json_u64(seen, "collections", W->collections);
	cli_json_u64(j, "rows_left_out", W->left_out);
	struct cli_table tb;
	CLI_TABLE_INIT(&tb, waste_cols, 0, 0, r);
	cJSON *secs = cJSON_AddArrayToObject(j, "sections");
	for (int s = 0; s < HP_WASTE_NSECTIONS; s++) {
		const struct hp_waste_section *sec = &W->s[s];
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "section", hp_waste_section_key(s));
		cli_json_u64(e, "count", sec->count);
		cli_json_u64(e, "wasted", sec->wasted);
		cli_json_u64(e, "rows_total", sec->n);
		cJSON *rows = cJSON_AddArrayToObject(e, "rows");
		for (size_t i = 0; i < r->shown[s]; i++) {
			struct wrow w = wrow_of(r, s, i);
			cJSON_AddItemToArray(rows, cli_table_json(&tb, &w, 0, NULL));
		}
		cJSON_AddItemToArray(secs, e);
	}
	*doc = j;
	return EXIT_OK;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static int text(struct cli_ctx *x, hp_session *S, void *res, FILE *f)
{
	const struct waste_result *r = res;
	const hp_heap *h = r->h;
	const struct hp_waste *W = &r->W;
	const struct waste_opts *o = x->own;
	char a[48], b[48], c[48];
	struct cli_table tb;
	CLI_TABLE_INIT(&tb, waste_cols, 0, 0, r);
	cli_partial_note(f, S);
	fprintf(f, "could save %s of %s (%.1f%%), each byte counted once across the sections:\n",
		cli_fmt_bytes(W->total, a, sizeof a), cli_fmt_bytes(h->total_shallow, b, sizeof b),
		pct(W->total, h->total_shallow));
	fprintf(f, "  %s by deduplication (duplicate Strings, equal arrays that are values)\n",
		cli_fmt_bytes(W->dedup, a, sizeof a));
	fprintf(f, "  %s in empty and under-filled collections, mostly-null object arrays and boxes\n",
		cli_fmt_bytes(W->total - W->dedup, a, sizeof a));
	/* apart, never added to could save: sharing a buffer saves nothing */
	fprintf(f, "buffers never written (all zero or one value): %s, %s (%.1f%%), saved only by allocating "
		"them later or smaller\n", cli_fmt_counted(W->never_written_n, "array", "arrays", a, sizeof a),
		cli_fmt_bytes(W->never_written, b, sizeof b), pct(W->never_written, h->total_shallow));
	fprintf(f, "(read %s, %s, %s", cli_fmt_counted(W->strings, "String", "Strings", a, sizeof a),
		cli_fmt_counted(W->prim_arrays, "primitive array", "primitive arrays", b, sizeof b),
		cli_fmt_counted(W->collections, "collection", "collections", c, sizeof c));
	if (W->nodata_arrays)
		fprintf(f, "; %s without elements in the dump, not compared",
			cli_fmt_counted(W->nodata_arrays, "array", "arrays", a, sizeof a));
	if (W->left_out)
		fprintf(f, "; %s of fewer than %d objects left out", cli_fmt_counted(W->left_out, "row", "rows", a, sizeof a),
			o->min_count < 2 ? 2 : o->min_count);
	fprintf(f, ")\n");
	for (int s = 0; s < HP_WASTE_NSECTIONS; s++) {
		const struct hp_waste_section *sec = &W->s[s];
		fprintf(f, "\n%s: %s in %s\n", titles[s], cli_fmt_bytes(sec->wasted, a, sizeof a),
			cli_fmt_counted(sec->count, "object", "objects", b, sizeof b));
		if (!sec->n)
			continue;
		cli_table_header(&tb, f);
		for (size_t i = 0; i < r->shown[s]; i++) {
			struct wrow w = wrow_of(r, s, i);
			cli_table_row(&tb, f, &w, i + 1);
			if (w.w->sample != HP_NONE && r->hold[s])
				holder_text(r, &r->hold[s][i], f);
		}
		if (r->shown[s] < sec->n) {
			uint64_t rest = 0;
			for (size_t i = r->shown[s]; i < sec->n; i++)
				rest += sec->rows[i].wasted;
			fprintf(f, "... %s more %s, %s (--top 0 shows all)\n", cli_fmt_count(sec->n - r->shown[s], a, sizeof a),
				sec->n - r->shown[s] == 1 ? "row" : "rows", cli_fmt_bytes(rest, b, sizeof b));
		}
	}
	return EXIT_OK;
}

CLI_COMMAND(waste, "hprofan waste FILE", "memory that could be saved: duplicates, empty collections",
	    CLI_FILES(1, 1), CLI_ANSWERS, CLI_OWN(struct waste_opts, defaults),
	    CLI_TABLES(own, cli_opts_all_weak, cli_opts_full_path, cli_opts_model, cli_opts_load, cli_opts_output, cli_opts_quiet));
