/* hprofan refs FILE: Eclipse MAT's soft, weak and phantom reference
 * statistics and its finalizer overview: the objects only soft, weak,
 * final or phantom references reach, by class; the Reference objects by
 * class and what their referents are reached by; the finalizer queue
 * (analysis/refstats.h).  Always over the graph of every reference
 * (--weak=follow), from the dump's default roots. */
#include "cli/command.h"
#include "cli/msg.h"
#include "cli/format.h"
#include "cli/load.h"
#include "cli/output.h"
#include "cli/objtext.h"
#include "cli/table.h"
#include "analysis/refstats.h"
#include "base/alloc.h"
#include "base/text.h"

#include <stdlib.h>
#include <string.h>

static const struct cli_choice levels[] = {
	{ "soft", HP_REACH_SOFT, NULL },
	{ "weak", HP_REACH_WEAK, NULL },
	{ "final", HP_REACH_FINAL, "with the finalizer queue" },
	{ "phantom", HP_REACH_PHANTOM, NULL },
	{ NULL, 0, NULL }
};

struct refs_opts {
	struct cli_count top;
	int level;                    /* enum hp_reach; 0: every level */
};

static void defaults(void *own)
{
	((struct refs_opts *)own)->top.n = 20;
}

static const struct cli_option own[] = {
	OPT_TOP("the N classes of each table that retain most (default\n20; 0 shows all)", OPT_OWN(struct refs_opts, top)),
	OPT_CHOICE("--level", NULL, levels, "only this level (and its references): %v", OPT_OWN(struct refs_opts, level)),
	OPT_END
};

struct refs_result {
	const hp_heap *h;
	const struct hp_retained *R;
	struct hp_refstats s;
	hp_objread *rd;
};

static void release(void *p)
{
	struct refs_result *r = p;
	if (!r)
		return;
	hp_refstats_release(&r->s);
	hp_free(r);
}

static int collect(struct cli_ctx *x, hp_session *S, void **res)
{
	int rc;
	(void)x;
	if ((rc = cli_refuse_pipe(S, "retained sizes read", "save it to a file")))
		return rc;
	struct refs_result *r = cli_result_new(sizeof *r, res);
	if (!r)
		return EXIT_NOMEM;
	if ((rc = cli_retained(S, &r->h, &r->R)) || (rc = cli_objread(S, &r->rd)))
		return rc;
	struct hp_error err;
	hp_error_clear(&err);
	int hr = hp_refstats_compute(r->h, r->R, r->rd, &r->s, &err);
	if (hr) {
		return cli_fail(hp_session_path(S), &err, hr);
	}
	return EXIT_OK;
}

/* ---- the tables ----------------------------------------------------------- */

struct orow {
	const char *cls;
	uint64_t objects, shallow, retained;
};

#define OR_(f) offsetof(struct orow, f)
static const struct cli_col obj_cols[] = {
	{ .title = "objects", .width = 10, .cell = CELL_COUNT, .flags = COL_TOTAL, .off = OR_(objects), .key = "objects", .at = 2 },
	{ .title = "shallow", .width = 10, .cell = CELL_BYTES, .flags = COL_TOTAL, .off = OR_(shallow), .key = "shallow", .at = 3 },
	{ .title = "retained", .width = 10, .cell = CELL_BYTES, .flags = COL_TOTAL, .off = OR_(retained), .key = "retained", .at = 4 },
	{ .title = "class", .cell = CELL_TEXT, .flags = COL_LEFT, .off = OR_(cls), .key = "class", .at = 1 },
};

struct rrow {
	const char *cls, *kind;
	uint64_t instances, shallow, referents, strongly, only;
};

#define RR_(f) offsetof(struct rrow, f)
static const struct cli_col ref_cols[] = {
	{ .title = "instances", .width = 10, .cell = CELL_COUNT, .flags = COL_TOTAL, .off = RR_(instances), .key = "instances", .at = 3 },
	{ .title = "shallow", .width = 10, .cell = CELL_BYTES, .flags = COL_TOTAL, .off = RR_(shallow), .key = "shallow", .at = 4 },
	{ .title = "referents", .width = 10, .cell = CELL_COUNT, .flags = COL_TOTAL, .off = RR_(referents), .key = "referents", .at = 5 },
	{ .title = "strongly", .width = 9, .cell = CELL_COUNT, .flags = COL_TOTAL, .off = RR_(strongly), .key = "strongly", .at = 6 },
	{ .title = "only", .width = 9, .cell = CELL_COUNT, .flags = COL_TOTAL, .off = RR_(only), .key = "only", .at = 7 },
	{ .title = "kind", .width = 7, .cell = CELL_TEXT, .flags = COL_LEFT, .off = RR_(kind), .key = "kind", .at = 2 },
	{ .title = "class", .cell = CELL_TEXT, .flags = COL_LEFT, .off = RR_(cls), .key = "class", .at = 1 },
};

static size_t shown_of(const struct cli_ctx *x, size_t n)
{
	const struct refs_opts *o = x->own;
	return o->top.n > 0 && (size_t)o->top.n < n ? (size_t)o->top.n : n;
}

static struct orow orow_of(const hp_heap *h, const struct hp_reach_class *c)
{
	return (struct orow){ .cls = hp_class_name(h, c->cls), .objects = c->objects, .shallow = c->shallow,
			      .retained = c->retained };
}

static struct orow orest_of(const struct hp_reach_group *g, size_t from)
{
	struct orow m = { .cls = NULL };
	for (size_t i = from; i < g->n; i++) {
		m.objects += g->c[i].objects;
		m.shallow += g->c[i].shallow;
		m.retained += g->c[i].retained;
	}
	return m;
}

static struct rrow rrow_of(const hp_heap *h, const struct hp_ref_class *c)
{
	return (struct rrow){ .cls = hp_class_name(h, c->cls), .kind = hp_reach_name(c->level), .instances = c->instances,
			      .shallow = c->shallow, .referents = c->referents, .strongly = c->by_level[HP_REACH_STRONG],
			      .only = c->by_level[c->level] };
}

/* the Reference classes --level shows */
static int ref_shown(const struct cli_ctx *x, const struct hp_ref_class *c)
{
	const struct refs_opts *o = x->own;
	return !o->level || c->level == o->level;
}

static int level_shown(const struct cli_ctx *x, int l)
{
	const struct refs_opts *o = x->own;
	return o->level ? l == o->level : l >= HP_REACH_SOFT;
}

static const char *const titles[HP_REACH_N] = {
	"unreachable", "strongly reachable", "only softly reachable", "only weakly reachable",
	"only finalizer reachable", "only phantom reachable"
};

/* the finalizer class's static naming the registered list */
static const char *list_static(const struct hp_finalizers *F)
{
	return F->flavor == HP_FIN_ART ? "head" : "unfinalized";
}

/* ---- JSON ------------------------------------------------------------------ */

static cJSON *group_json(const struct cli_ctx *x, const hp_heap *h, const struct hp_reach_group *g)
{
	struct cli_table tb;
	CLI_TABLE_INIT(&tb, obj_cols, 0, 0, NULL);
	cJSON *o = cJSON_CreateObject();
	cli_json_u64(o, "objects", g->objects);
	cli_json_u64(o, "shallow", g->shallow);
	cli_json_u64(o, "retained", g->retained);
	cli_json_u64(o, "classes", g->n);
	cJSON *arr = cJSON_AddArrayToObject(o, "by_class");
	size_t shown = shown_of(x, g->n);
	for (size_t i = 0; i < shown; i++) {
		struct orow w = orow_of(h, &g->c[i]);
		cJSON_AddItemToArray(arr, cli_table_json(&tb, &w, i + 1, NULL));
	}
	if (shown < g->n) {
		struct orow m = orest_of(g, shown);
		cJSON *mo = cli_table_json(&tb, &m, 0, NULL);
		cli_json_u64(mo, "classes", g->n - shown);
		cJSON_AddItemToObject(o, "more", mo);
	}
	return o;
}

static int json(struct cli_ctx *x, hp_session *S, void *res, cJSON **doc)
{
	(void)S;
	const struct refs_result *r = res;
	const struct refs_opts *o = x->own;
	const struct hp_refstats *s = &r->s;
	const hp_heap *h = r->h;
	cJSON *j = cli_json_begin_heap(x, S, h, r->R);
	if (o->level)
		cJSON_AddStringToObject(j, "level", hp_reach_name(o->level));
	cJSON *reach = cJSON_AddObjectToObject(j, "reachability");
	cli_json_u64(reach, "reached", s->reached);
	for (int l = 0; l < HP_REACH_N; l++) {
		cJSON *e = cJSON_AddObjectToObject(reach, l ? hp_reach_name(l) : "unreachable");
		cli_json_u64(e, "objects", s->level[l].objects);
		cli_json_u64(e, "shallow", s->level[l].shallow);
		if (l)
			cli_json_u64(e, "retained", s->level[l].retained);
	}
	cJSON *lv = cJSON_AddObjectToObject(j, "levels");
	for (int l = HP_REACH_SOFT; l < HP_REACH_N; l++)
		if (level_shown(x, l))
			cJSON_AddItemToObject(lv, hp_reach_name(l), group_json(x, h, &s->level[l]));
	/* the Reference classes */
	struct cli_table tb;
	CLI_TABLE_INIT(&tb, ref_cols, 0, 0, NULL);
	cJSON *refs = cJSON_AddObjectToObject(j, "references");
	size_t nshown = 0;
	struct rrow tot = { .cls = NULL }, more = { .cls = NULL };
	for (size_t i = 0; i < s->nrefs; i++)
		nshown += ref_shown(x, &s->refs[i]);
	size_t shown = shown_of(x, nshown), k = 0;
	cJSON *arr = cJSON_CreateArray();
	for (size_t i = 0; i < s->nrefs; i++) {
		const struct hp_ref_class *c = &s->refs[i];
		if (!ref_shown(x, c))
			continue;
		struct rrow w = rrow_of(h, c);
		cli_table_sum(&tb, COL_TOTAL, &w, 0, 1, sizeof w, &tot);
		if (k++ >= shown) {
			cli_table_sum(&tb, COL_TOTAL, &w, 0, 1, sizeof w, &more);
			continue;
		}
		cJSON *e = cli_table_json(&tb, &w, k, NULL);
		cJSON *bl = cJSON_AddObjectToObject(e, "referents_by_level");
		for (int l = HP_REACH_STRONG; l < HP_REACH_N; l++)
			cli_json_u64(bl, hp_reach_name(l), c->by_level[l]);
		cJSON_AddItemToArray(arr, e);
	}
	cJSON *t = cli_table_json(&tb, &tot, 0, NULL);
	cli_json_u64(t, "classes", nshown);
	cli_json_u64(t, "unreachable", s->refs_unreachable);
	cJSON_AddItemToObject(refs, "total", t);
	cJSON_AddItemToObject(refs, "by_class", arr);
	if (shown < nshown) {
		cJSON *mo = cli_table_json(&tb, &more, 0, NULL);
		cli_json_u64(mo, "classes", nshown - shown);
		cJSON_AddItemToObject(refs, "more", mo);
	}
	/* the finalizers */
	if (!o->level || o->level == HP_REACH_FINAL) {
		const struct hp_finalizers *F = &s->fin;
		cJSON *fj = cJSON_AddObjectToObject(j, "finalizers");
		cJSON_AddBoolToObject(fj, "found", F->flavor != HP_FIN_NONE);
		if (F->flavor) {
			cJSON_AddStringToObject(fj, "class", hp_class_name(h, F->cls));
			cli_json_u64(fj, "instances", F->instances);
			cJSON_AddBoolToObject(fj, "has_queue", F->has_queue);
			cJSON_AddBoolToObject(fj, "has_list", F->has_list);
			if (F->queue_length >= 0)
				cli_json_u64(fj, "queue_length", (uint64_t)F->queue_length);
			cli_json_u64(fj, "loops", F->loops);
			cJSON_AddItemToObject(fj, "queue", group_json(x, h, &F->queue));
			cJSON_AddItemToObject(fj, "registered", group_json(x, h, &F->registered));
			cJSON_AddItemToObject(fj, "running", group_json(x, h, &F->running));
			if (F->thread != HP_NONE)
				cJSON_AddItemToObject(fj, "thread", cli_object_json(h, F->thread));
		}
	}
	*doc = j;
	return EXIT_OK;
}

/* ---- text ------------------------------------------------------------------ */

static void group_text(const struct cli_ctx *x, FILE *f, const hp_heap *h, const struct hp_reach_group *g)
{
	if (!g->n)
		return;
	struct cli_table tb;
	CLI_TABLE_INIT(&tb, obj_cols, 0, 0, NULL);
	cli_table_header(&tb, f);
	size_t shown = shown_of(x, g->n);
	for (size_t i = 0; i < shown; i++) {
		struct orow w = orow_of(h, &g->c[i]);
		cli_table_row(&tb, f, &w, i + 1);
	}
	char c[32];
	if (shown < g->n) {
		struct orow m = orest_of(g, shown);
		cli_table_line(&tb, f, &m, COL_TOTAL, NULL, cli_more_text(g->n - shown, "class", "classes", c, sizeof c));
	}
}

/* "80 objects in 2 classes, shallow 41.3 KiB, retained 41.9 KiB" */
static void group_line(FILE *f, const struct hp_reach_group *g)
{
	char a[48], b[48], c[32], d[32];
	if (!g->objects) {
		fprintf(f, "none");
		return;
	}
	fprintf(f, "%s in %s, shallow %s, retained %s", cli_fmt_counted(g->objects, "object", "objects", a, sizeof a),
		cli_fmt_counted(g->n, "class", "classes", b, sizeof b), cli_fmt_bytes(g->shallow, c, sizeof c),
		cli_fmt_bytes(g->retained, d, sizeof d));
}

static void refs_text(const struct cli_ctx *x, FILE *f, const struct refs_result *r)
{
	const struct hp_refstats *s = &r->s;
	char a[48], b[48], c[32];
	size_t nshown = 0, k = 0;
	uint64_t inst = 0;
	for (size_t i = 0; i < s->nrefs; i++)
		if (ref_shown(x, &s->refs[i])) {
			nshown++;
			inst += s->refs[i].instances;
		}
	fprintf(f, "\nReference objects: %s in %s", cli_fmt_counted(inst, "object", "objects", a, sizeof a),
		cli_fmt_counted(nshown, "class", "classes", b, sizeof b));
	if (s->refs_unreachable)
		fprintf(f, " (%s no GC root reaches left out)", cli_fmt_count(s->refs_unreachable, c, sizeof c));
	fputc('\n', f);
	if (!nshown)
		return;
	fprintf(f, "(referents: set and in the dump; strongly: of them, strongly reachable; only: reachable no\n"
		"more strongly than through a reference of the kind)\n");
	struct cli_table tb;
	CLI_TABLE_INIT(&tb, ref_cols, 0, 0, NULL);
	cli_table_header(&tb, f);
	size_t shown = shown_of(x, nshown);
	struct rrow more = { .cls = NULL };
	for (size_t i = 0; i < s->nrefs; i++) {
		if (!ref_shown(x, &s->refs[i]))
			continue;
		struct rrow w = rrow_of(r->h, &s->refs[i]);
		if (k++ < shown)
			cli_table_row(&tb, f, &w, k);
		else
			cli_table_sum(&tb, COL_TOTAL, &w, 0, 1, sizeof w, &more);
	}
	if (shown < nshown)
		cli_table_line(&tb, f, &more, COL_TOTAL, NULL, cli_more_text(nshown - shown, "class", "classes", c, sizeof c));
}

static void fin_text(const struct cli_ctx *x, FILE *f, const struct refs_result *r)
{
	const struct hp_finalizers *F = &r->s.fin;
	const hp_heap *h = r->h;
	char a[48], lab[600];
	if (!F->flavor) {
		fprintf(f, "\nno finalizer queue found (neither java.lang.ref.Finalizer nor java.lang.ref.FinalizerReference is in the dump)\n");
		return;
	}
	const char *cn = hp_class_name(h, F->cls);
	if (!F->has_queue) {
		fprintf(f, "\nno finalizer queue found (%s.queue names no object of the dump)\n", cn);
	} else {
		fprintf(f, "\nfinalizer queue (%s.queue), ready for finalization: ", cn);
		group_line(f, &F->queue);
		if (F->queue_length >= 0)
			fprintf(f, "; queueLength %lld", (long long)F->queue_length);
		fputc('\n', f);
		group_text(x, f, h, &F->queue);
	}
	if (F->has_list) {
		fprintf(f, "\nregistered, not queued (%s.%s): ", cn, list_static(F));
		group_line(f, &F->registered);
		fputc('\n', f);
		group_text(x, f, h, &F->registered);
	}
	if (F->running.objects) {
		fprintf(f, "\nin processing (taken off the list, not yet cleared): ");
		group_line(f, &F->running);
		fputc('\n', f);
		group_text(x, f, h, &F->running);
	}
	if (F->loops)
		fprintf(f, "warning: %s of the lists came back to an entry seen: cut there\n",
			cli_fmt_counted(F->loops, "walk", "walks", a, sizeof a));
	if (F->thread != HP_NONE)
		fprintf(f, "\nfinalizer thread: %s\n", cli_object_label(h, F->thread, lab, sizeof lab));
	else
		fprintf(f, "\nfinalizer thread: not found\n");
}

static int text(struct cli_ctx *x, hp_session *S, void *res, FILE *f)
{
	const struct refs_result *r = res;
	const struct refs_opts *o = x->own;
	const struct hp_refstats *s = &r->s;
	char a[48], b[32], c[32];
	cli_partial_note(f, S);
	fprintf(f, "reachability from the GC roots, every reference followed: %s\n",
		cli_fmt_counted(s->reached, "object", "objects", a, sizeof a));
	for (int l = HP_REACH_STRONG; l <= HP_REACH_N; l++) {
		int k = l % HP_REACH_N;   /* the unreachable last */
		const struct hp_reach_group *g = &s->level[k];
		if (!k && !g->objects)
			continue;
		fprintf(f, "  %-24s %14s  shallow %10s", titles[k], cli_fmt_count(g->objects, a, sizeof a),
			cli_fmt_bytes(g->shallow, b, sizeof b));
		if (k > HP_REACH_STRONG)
			fprintf(f, "  retained %10s", cli_fmt_bytes(g->retained, c, sizeof c));
		fputc('\n', f);
	}
	for (int l = HP_REACH_SOFT; l < HP_REACH_N; l++) {
		if (!level_shown(x, l))
			continue;
		fprintf(f, "\n%s: ", titles[l]);
		group_line(f, &s->level[l]);
		fputc('\n', f);
		group_text(x, f, r->h, &s->level[l]);
	}
	refs_text(x, f, r);
	if (!o->level || o->level == HP_REACH_FINAL)
		fin_text(x, f, r);
	return EXIT_OK;
}

/* every reference followed, whatever the dump's default */
static int run(struct cli_ctx *x)
{
	x->c->weak = HP_WEAK_FOLLOW;
	return cli_run_one(x);
}

CLI_COMMAND(refs, "hprofan refs FILE", "soft, weak, final and phantom reachability; the finalizer queue",
	    CLI_FILES(1, 1), CLI_OWN(struct refs_opts, defaults), .run = run, .collect = collect, .json = json,
	    .text = text, .release = release,
	    CLI_TABLES(own, cli_opts_model, cli_opts_load, cli_opts_output, cli_opts_quiet));
