/* hprofan components FILE: Eclipse MAT's "Top Components" in a terminal.
 * Per class loader (or per component of --components FILE) retaining more
 * than 1% of the heap: its retained size (analysis/group.h: counted once),
 * its largest classes, its top objects in the dominator tree, the class
 * names other loaders define too, and the waste (analysis/waste.h) in what
 * it retains. */
#include "cli/command.h"
#include "cli/msg.h"
#include "cli/format.h"
#include "cli/filter.h"
#include "cli/load.h"
#include "cli/output.h"
#include "cli/objtext.h"
#include "cli/table.h"
#include "analysis/group.h"
#include "analysis/waste.h"
#include "base/text.h"
#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>

#define THRESHOLD_PERCENT 1     /* groups retaining more than this share of the heap are shown */
#define WASTE_MIN_COUNT 2       /* waste's default --min-count */

struct comp_opts {
	struct cli_count top;
	const char *components;
};

static void defaults(void *own)
{
	struct comp_opts *o = own;
	o->top.n = 5;
}

static const struct cli_option own[] = {
	OPT_COMPONENTS("per component of FILE (lines NAME REGEX, a class in\nthe first whose REGEX matches its name, the others\nin \"other\") instead of per class loader", OPT_OWN(struct comp_opts, components)),
	OPT_TOP("the N largest classes and top objects of each\n(default 5; 0 shows all)", OPT_OWN(struct comp_opts, top)),
	OPT_END
};

/* a row of the class table in a group: java.lang.Class's holds the group's
 * part of it (the class objects of its classes: analysis/group.h) */
struct crow { uint32_t r; uint64_t instances, shallow, retained; };

struct comp_result {
	const hp_heap *h;
	const struct hp_retained *R;
	int by;                       /* HP_GROUP_LOADER or HP_GROUP_COMPONENT */
	struct cli_components comps;
	struct hp_waste W;
	struct hp_groups G;
	uint64_t heap;                /* every object's shallow size */
	uint32_t *order;              /* the groups shown, largest retained first */
	size_t nshown;
	uint64_t out_n, out_instances, out_shallow, out_retained, out_waste;   /* left out */
	struct crow *rows;            /* each shown group's top classes, rows[row_at[i] .. row_at[i + 1]) */
	size_t *row_at;
	uint64_t *nclasses;           /* its classes with objects */
};

static void release(void *p)
{
	struct comp_result *t = p;
	if (!t)
		return;
	cli_components_release(&t->comps);
	hp_waste_release(&t->W);
	hp_groups_release(&t->G);
	hp_free_all(t->order, t->rows, t->row_at, t->nclasses, t);
}

static const struct hp_groups *sort_G;

static int by_retained(const void *a, const void *b)
{
	const struct hp_group *x = &sort_G->g[*(const uint32_t *)a], *y = &sort_G->g[*(const uint32_t *)b];
	if (x->retained != y->retained)
		return x->retained < y->retained ? 1 : -1;
	if (x->shallow != y->shallow)
		return x->shallow < y->shallow ? 1 : -1;
	return *(const uint32_t *)a > *(const uint32_t *)b ? 1 : -1;
}

static int by_row(const void *a, const void *b)
{
	const struct crow *x = a, *y = b;
	if (x->retained != y->retained)
		return x->retained < y->retained ? 1 : -1;
	if (x->shallow != y->shallow)
		return x->shallow < y->shallow ? 1 : -1;
	return x->r > y->r ? 1 : -1;
}

static int oom(void)
{
	cli_error("out of memory");
	return EXIT_NOMEM;
}

/* row r in the shown groups (pos: group -> shown index): counted into cnt,
 * or with `all` its figures there at fill[] */
static void row_parts(const struct comp_result *t, const uint32_t *pos, uint32_t r, size_t *cnt, struct crow *all,
		      size_t *fill)
{
	const hp_heap *h = t->h;
	const struct hp_groups *G = &t->G;
	const struct hp_hrow *w = &h->rows[r];
	if (w->cls != h->jlc) {
		uint32_t g = G->row_group[r];
		if (g == HP_NONE || pos[g] == HP_NONE || !(w->count + w->class_objs))
			return;
		if (all)
			all[fill[pos[g]]++] = (struct crow){ r, w->count + w->class_objs, w->shallow, t->R->row_retained[r] };
		else
			cnt[pos[g]]++;
		return;
	}
	for (size_t i = 0; i < t->nshown && w->heap < G->nheaps; i++) {
		const struct hp_group_jlc *p = &G->jlc[(size_t)t->order[i] * G->nheaps + w->heap];
		if (!p->instances)
			continue;
		if (all)
			all[fill[i]++] = (struct crow){ r, p->instances, p->shallow, p->retained };
		else
			cnt[i]++;
	}
}

/* each shown group's rows, its largest first, the first N kept */
static int top_classes(struct comp_result *t, size_t topn)
{
	const hp_heap *h = t->h;
	const struct hp_groups *G = &t->G;
	uint32_t *pos = hp_reallocarray(NULL, G->n ? G->n : 1, sizeof *pos);
	size_t *cnt = hp_calloc(t->nshown + 1, sizeof *cnt);
	t->row_at = hp_calloc(t->nshown + 1, sizeof *t->row_at);
	t->nclasses = hp_calloc(t->nshown + 1, sizeof *t->nclasses);
	if (!pos || !cnt || !t->row_at || !t->nclasses) {
		hp_free(pos);
		hp_free(cnt);
		return oom();
	}
	for (size_t g = 0; g < G->n; g++)
		pos[g] = HP_NONE;
	for (size_t i = 0; i < t->nshown; i++)
		pos[t->order[i]] = (uint32_t)i;
	size_t total = 0;
	for (size_t r = 0; r < h->nrows; r++)
		row_parts(t, pos, (uint32_t)r, cnt, NULL, NULL);
	for (size_t i = 0; i < t->nshown; i++)
		total += cnt[i];
	struct crow *all = hp_reallocarray(NULL, total ? total : 1, sizeof *all);
	t->rows = hp_reallocarray(NULL, total ? total : 1, sizeof *t->rows);
	if (!all || !t->rows) {
		hp_free(pos);
		hp_free(cnt);
		hp_free(all);
		return oom();
	}
	size_t *fill = hp_calloc(t->nshown + 1, sizeof *fill);
	if (!fill) {
		hp_free(pos);
		hp_free(cnt);
		hp_free(all);
		return oom();
	}
	for (size_t i = 0; i < t->nshown; i++)
		fill[i + 1] = fill[i] + cnt[i];
	for (size_t r = 0; r < h->nrows; r++)
		row_parts(t, pos, (uint32_t)r, NULL, all, fill);
	size_t at = 0, from = 0;
	for (size_t i = 0; i < t->nshown; i++) {
		if (cnt[i] > 1)
			qsort(all + from, cnt[i], sizeof *all, by_row);
		size_t k = topn && topn < cnt[i] ? topn : cnt[i];
		memcpy(t->rows + at, all + from, k * sizeof *all);
		t->row_at[i] = at;
		t->nclasses[i] = cnt[i];
		at += k;
		from += cnt[i];
	}
	t->row_at[t->nshown] = at;
	hp_free_all(pos, cnt, all, fill);
	return EXIT_OK;
}

static int collect(struct cli_ctx *x, hp_session *S, void **res)
{
	const struct comp_opts *o = x->own;
	struct comp_result *t = cli_result_new(sizeof *t, res);
	if (!t)
		return EXIT_NOMEM;
	int rc;
	if ((rc = cli_refuse_pipe(S, "retained sizes and waste read", "save it to a file")) ||
	    (rc = cli_retained(S, &t->h, &t->R)))
		return rc;
	const hp_heap *h = t->h;
	const struct hp_retained *R = t->R;
	t->by = o->components ? HP_GROUP_COMPONENT : HP_GROUP_LOADER;
	if (o->components && (rc = cli_components_read(o->components, h, &t->comps)))
		return rc;
	struct hp_error err;
	hp_error_clear(&err);
	const char *rp = hp_session_reread_path(S, &err);
	int st = rp ? hp_waste_by_object(h, rp, WASTE_MIN_COUNT, &t->W, &err) : err.code;
	size_t topn = o->top.n > 0 ? (size_t)o->top.n : 0;
	struct hp_groups_more more = { topn ? topn : HP_GROUPS_ALL_TOPS, t->W.objs, t->W.nobjs };
	if (st == HP_OK)
		st = hp_groups_compute_more(h, R, t->by, NULL, t->comps.comp, (const char *const *)t->comps.names,
					    t->comps.n, &more, &t->G, &err);
	if (st == HP_OK && t->by == HP_GROUP_LOADER) {
		hp_objread *rd;
		if ((rc = cli_objread(S, &rd)))
			return rc;
		st = hp_groups_loader_names(&t->G, h, rd, &err);
	}
	if (st != HP_OK) {
		char buf[1024];
		cli_format_error(hp_session_path(S), &err, buf, sizeof buf);
		cli_error("%s", buf);
		return cli_exit_code(st);
	}
	t->heap = R->reachable_bytes + R->unreachable_bytes;
	const struct hp_groups *G = &t->G;
	if (!(t->order = hp_reallocarray(NULL, G->n ? G->n : 1, sizeof *t->order)))
		return oom();
	for (size_t g = 0; g < G->n; g++)
		t->order[g] = (uint32_t)g;
	sort_G = G;
	if (G->n > 1)
		qsort(t->order, G->n, sizeof *t->order, by_retained);
	for (size_t i = 0; i < G->n; i++) {
		const struct hp_group *g = &G->g[t->order[i]];
		/* more than 1%: retained / heap > 1 / 100 */
		if (g->retained > 0 && g->retained * (100 / THRESHOLD_PERCENT) > t->heap && t->nshown == i) {
			t->nshown++;
			continue;
		}
		t->out_n++;
		t->out_instances += g->instances;
		t->out_shallow += g->shallow;
		t->out_retained += g->retained;
		t->out_waste += g->waste;
	}
	return top_classes(t, topn);
}

static double pct(uint64_t v, uint64_t base)
{
	return base ? 100.0 * (double)v / (double)base : 0.0;
}

static double pct2(uint64_t v, uint64_t base)
{
	return base ? (double)(int64_t)(10000.0 * v / base) / 100.0 : 0.0;
}

static const char *group_name(const struct comp_result *t, const struct hp_group *g, char *buf, size_t n)
{
	if (t->by == HP_GROUP_COMPONENT) {
		snprintf(buf, n, "%s", hp_group_name(&t->G, (size_t)(g - t->G.g)));
		return buf;
	}
	return cli_loader_label(t->h, g->loader_id, buf, n);
}

/* the group of class c (a duplicate's) */
static int class_in(const struct comp_result *t, uint32_t c, uint32_t gi)
{
	const struct hp_group *g = &t->G.g[gi];
	if (t->by == HP_GROUP_LOADER)
		return t->h->classes[c].loader_id == g->loader_id;
	uint32_t k = t->comps.comp[c];
	return (k == HP_NONE ? t->comps.n : k) == gi;
}

/* the loader's own name, when it has one */
static const char *loader_name(const struct comp_result *t, uint64_t id)
{
	if (t->by != HP_GROUP_LOADER)
		return NULL;
	for (size_t i = 0; i < t->G.n; i++)
		if (t->G.g[i].loader_id == id)
			return t->G.g[i].has_loader_name ? hp_group_name(&t->G, i) : NULL;
	return NULL;
}

/* ---- the tables of each group: its largest classes, its top objects ---- */

struct ccrow {
	const char *cls, *heap;
	uint64_t retained, shallow, instances;
};

/* the class, and on Android its heap */
static void class_put(const struct cli_table *tb, const void *row, FILE *f)
{
	const struct ccrow *r = row;
	char nm[1024], lb[1024];
	fputs(hp_text_safe(r->cls, nm, sizeof nm), f);
	if (r->heap)
		fprintf(f, " (heap %s)", hp_text_safe(r->heap, lb, sizeof lb));
}

#define CC_(f) offsetof(struct ccrow, f)
static const struct cli_col class_cols[] = {
	{ .title = "retained", .width = 10, .cell = CELL_BYTES, .off = CC_(retained), .key = "retained", .at = 5, .gap = "   " },
	{ .title = "shallow", .width = 10, .cell = CELL_BYTES, .off = CC_(shallow), .key = "shallow", .at = 4 },
	{ .title = "instances", .width = 10, .cell = CELL_COUNT, .off = CC_(instances), .key = "instances", .at = 3 },
	{ .title = "class", .cell = CELL_FN, .put = class_put },
	{ .cell = CELL_TEXT, .off = CC_(cls), .key = "class", .at = 1 },
	{ .cell = CELL_TEXT, .off = CC_(heap), .key = "heap", .at = 2 },
};

static struct ccrow ccrow_of(const struct comp_result *t, size_t k)
{
	const hp_heap *h = t->h;
	const struct hp_hrow *r = &h->rows[t->rows[k].r];
	return (struct ccrow){ .cls = hp_class_name(h, r->cls), .heap = hp_heap_android(h) ? hp_heap_name(h, r->heap) : NULL,
			       .retained = t->rows[k].retained, .shallow = t->rows[k].shallow, .instances = t->rows[k].instances };
}

struct cdrow {
	uint32_t v;
	uint64_t retained, shallow;
};

static void object_put(const struct cli_table *tb, const void *row, FILE *f)
{
	const struct comp_result *t = tb->ctx;
	char lb[1024];
	fputs(cli_object_label(t->h, ((const struct cdrow *)row)->v, lb, sizeof lb), f);
}

#define CD_(f) offsetof(struct cdrow, f)
static const struct cli_col dom_cols[] = {
	{ .title = "retained", .width = 10, .cell = CELL_BYTES, .off = CD_(retained), .key = "retained", .at = 2, .gap = "   " },
	{ .title = "shallow", .width = 10, .cell = CELL_BYTES, .off = CD_(shallow), .key = "shallow", .at = 1 },
	{ .title = "object", .cell = CELL_FN, .put = object_put },
	{ .cell = CELL_PCT, .off = CD_(retained), .key = "percent", .at = 3 },
};

static struct cdrow cdrow_of(const struct comp_result *t, const struct hp_group *g, uint32_t k)
{
	uint32_t v = t->G.top[g->top_at + k];
	return (struct cdrow){ .v = v, .retained = t->R->retained[v], .shallow = hp_retained_shallow(t->R, v) };
}

static int json(struct cli_ctx *x, hp_session *S, void *res, cJSON **doc)
{
	const struct comp_opts *o = x->own;
	const struct comp_result *t = res;
	const hp_heap *h = t->h;
	const struct hp_groups *G = &t->G;
	char lb[1024];
	cJSON *j = cli_json_begin_heap(x, S, h, t->R);
	cJSON_AddStringToObject(j, "group", t->by == HP_GROUP_LOADER ? "loader" : "component");
	if (o->components)
		cJSON_AddStringToObject(j, "components_file", o->components);
	cli_json_u64(j, "threshold_percent", THRESHOLD_PERCENT);
	cJSON *tot = cJSON_AddObjectToObject(j, "total");
	cli_json_u64(tot, "objects", h->nobj);
	cli_json_u64(tot, "shallow", t->heap);
	cli_json_u64(tot, "reachable_shallow", t->R->reachable_bytes);
	cli_json_u64(tot, "waste", t->W.total);
	cli_json_u64(tot, "groups", G->n);
	struct cli_table ct, dt;
	CLI_TABLE_INIT(&ct, class_cols, 0, 0, t);
	CLI_TABLE_INIT(&dt, dom_cols, 0, t->heap, t);
	cJSON *arr = cJSON_AddArrayToObject(j, "components");
	for (size_t i = 0; i < t->nshown; i++) {
		uint32_t gi = t->order[i];
		const struct hp_group *g = &G->g[gi];
		cJSON *e = cJSON_CreateObject();
		cli_json_u64(e, "rank", i + 1);
		cJSON_AddStringToObject(e, "name", group_name(t, g, lb, sizeof lb));
		if (t->by == HP_GROUP_LOADER) {
			cli_json_u64(e, "loader_id", g->loader_id);
			if (g->loader_class != HP_NONE)
				cJSON_AddStringToObject(e, "loader_class", hp_class_name(h, g->loader_class));
			if (g->has_loader_name)
				cJSON_AddStringToObject(e, "loader_name", hp_group_name(G, gi));
			cli_json_u64(e, "defined", g->defined);
		}
		cli_json_u64(e, "classes", g->classes);
		cli_json_u64(e, "instances", g->instances);
		cli_json_u64(e, "shallow", g->shallow);
		cli_json_u64(e, "retained", g->retained);
		cJSON_AddNumberToObject(e, "percent", pct2(g->retained, t->heap));
		cli_json_u64(e, "waste", g->waste);
		cJSON_AddNumberToObject(e, "waste_percent", pct2(g->waste, t->W.total));
		cJSON *tc = cJSON_AddArrayToObject(e, "top_classes");
		for (size_t k = t->row_at[i]; k < t->row_at[i + 1]; k++) {
			struct ccrow w = ccrow_of(t, k);
			cJSON_AddItemToArray(tc, cli_table_json(&ct, &w, 0, NULL));
		}
		cli_json_u64(e, "classes_left_out", t->nclasses[i] - (t->row_at[i + 1] - t->row_at[i]));
		cli_json_u64(e, "top_objects", g->ntops);
		cJSON *td = cJSON_AddArrayToObject(e, "top_dominators");
		for (uint32_t k = 0; k < g->top_n; k++) {
			struct cdrow w = cdrow_of(t, g, k);
			cJSON_AddItemToArray(td, cli_table_json(&dt, &w, 0, cli_object_json(h, w.v)));
		}
		cJSON *dup = cJSON_AddArrayToObject(e, "duplicate_classes");
		for (size_t d = 0; d < G->ndups; d++) {
			int mine = 0;
			for (uint32_t k = G->dup_off[d]; k < G->dup_off[d + 1] && !mine; k++)
				mine = class_in(t, G->dup_class[k], gi);
			if (!mine)
				continue;
			cJSON *de = cJSON_CreateObject();
			cJSON_AddStringToObject(de, "class", hp_class_name(h, G->dup_class[G->dup_off[d]]));
			cJSON *ls = cJSON_AddArrayToObject(de, "loaders");
			for (uint32_t k = G->dup_off[d]; k < G->dup_off[d + 1]; k++) {
				uint64_t id = h->classes[G->dup_class[k]].loader_id;
				cJSON *le = cJSON_CreateObject();
				cli_json_u64(le, "loader_id", id);
				cJSON_AddStringToObject(le, "loader", cli_loader_label(h, id, lb, sizeof lb));
				const char *nm = loader_name(t, id);
				if (nm)
					cJSON_AddStringToObject(le, "loader_name", nm);
				cJSON_AddItemToArray(ls, le);
			}
			cJSON_AddItemToArray(dup, de);
		}
		cJSON_AddItemToArray(arr, e);
	}
	cJSON *lo = cJSON_AddObjectToObject(j, "left_out");
	cli_json_u64(lo, "components", t->out_n);
	cli_json_u64(lo, "instances", t->out_instances);
	cli_json_u64(lo, "shallow", t->out_shallow);
	cli_json_u64(lo, "retained", t->out_retained);
	cli_json_u64(lo, "waste", t->out_waste);
	cJSON *w = cJSON_AddArrayToObject(j, "warnings");
	for (size_t i = 0; i < h->nwarnings; i++)
		cJSON_AddItemToArray(w, cJSON_CreateString(hp_heap_warning(h, i)));
	*doc = j;
	return EXIT_OK;
}

static int text(struct cli_ctx *x, hp_session *S, void *res, FILE *f)
{
	(void)x;
	const struct comp_result *t = res;
	const hp_heap *h = t->h;
	const struct hp_groups *G = &t->G;
	char a[48], b[48], c[48], d[48], lb[1024], nm[1024];
	int loaders = t->by == HP_GROUP_LOADER;
	const char *one = loaders ? "class loader" : "component", *many = loaders ? "class loaders" : "components";
	struct cli_table ct, dt;
	CLI_TABLE_INIT(&ct, class_cols, 0, 0, t);
	CLI_TABLE_INIT(&dt, dom_cols, 0, t->heap, t);
	cli_partial_note(f, S);
	fprintf(f, "%s of %s retain more than %d%% of the heap (%s)\n", cli_fmt_count(t->nshown, a, sizeof a),
		cli_fmt_counted(G->n, one, many, b, sizeof b), THRESHOLD_PERCENT, cli_fmt_bytes(t->heap, c, sizeof c));
	for (size_t i = 0; i < t->nshown; i++) {
		uint32_t gi = t->order[i];
		const struct hp_group *g = &G->g[gi];
		fprintf(f, "\n#%zu %s", i + 1, hp_text_safe(group_name(t, g, lb, sizeof lb), nm, sizeof nm));
		if (loaders && g->has_loader_name)
			fprintf(f, " \"%s\"", hp_text_safe(hp_group_name(G, gi), nm, sizeof nm));
		fprintf(f, "\n   retained %s (%.1f%%), shallow %s, %s of %s", cli_fmt_bytes(g->retained, a, sizeof a),
			pct(g->retained, t->heap), cli_fmt_bytes(g->shallow, b, sizeof b),
			cli_fmt_counted(g->instances, "object", "objects", c, sizeof c),
			cli_fmt_counted(g->classes, "class", "classes", d, sizeof d));
		if (loaders)
			fprintf(f, " (%s defined)", cli_fmt_count(g->defined, a, sizeof a));
		fprintf(f, "\n   waste: %s of what it retains could be saved (%.1f%% of the %s hprofan waste finds)\n",
			cli_fmt_bytes(g->waste, a, sizeof a), pct(g->waste, t->W.total), cli_fmt_bytes(t->W.total, b, sizeof b));
		size_t nrow = t->row_at[i + 1] - t->row_at[i];
		fprintf(f, "   top classes (%s of %s):\n", cli_fmt_count(nrow, a, sizeof a), cli_fmt_count(t->nclasses[i], b, sizeof b));
		cli_table_header(&ct, f);
		for (size_t k = t->row_at[i]; k < t->row_at[i + 1]; k++) {
			struct ccrow w = ccrow_of(t, k);
			cli_table_row(&ct, f, &w, 0);
		}
		fprintf(f, "   top dominators (%s of the %s of it at the top of the dominator tree):\n",
			cli_fmt_count(g->top_n, a, sizeof a), cli_fmt_counted(g->ntops, "object", "objects", b, sizeof b));
		cli_table_header(&dt, f);
		for (uint32_t k = 0; k < g->top_n; k++) {
			struct cdrow w = cdrow_of(t, g, k);
			cli_table_row(&dt, f, &w, 0);
		}
		size_t ndup = 0;
		for (size_t dd = 0; dd < G->ndups; dd++)
			for (uint32_t k = G->dup_off[dd]; k < G->dup_off[dd + 1]; k++)
				if (class_in(t, G->dup_class[k], gi)) {
					if (!ndup++)
						fprintf(f, "   classes several loaders define:\n");
					fprintf(f, "     %s:", hp_text_safe(hp_class_name(h, G->dup_class[G->dup_off[dd]]), nm, sizeof nm));
					for (uint32_t m = G->dup_off[dd]; m < G->dup_off[dd + 1]; m++) {
						uint64_t id = h->classes[G->dup_class[m]].loader_id;
						const char *ln = loader_name(t, id);
						fprintf(f, "%s %s", m > G->dup_off[dd] ? "," : "",
							hp_text_safe(cli_loader_label(h, id, lb, sizeof lb), nm, sizeof nm));
						if (ln)
							fprintf(f, " \"%s\"", hp_text_safe(ln, nm, sizeof nm));
					}
					fputc('\n', f);
					break;
				}
	}
	if (t->out_n)
		fprintf(f, "\nleft out: %s at or below %d%% (%s, %s shallow, %s retained and %s of waste in sum)\n",
			cli_fmt_counted(t->out_n, one, many, a, sizeof a), THRESHOLD_PERCENT,
			cli_fmt_counted(t->out_instances, "object", "objects", b, sizeof b), cli_fmt_bytes(t->out_shallow, c, sizeof c),
			cli_fmt_bytes(t->out_retained, d, sizeof d), cli_fmt_bytes(t->out_waste, lb, sizeof lb));
	fprintf(f, "retained sets overlap (a String a loader's object holds is in the bootstrap loader's too): they do not add up to the heap\n");
	return EXIT_OK;
}

static void after(struct cli_ctx *x, hp_session *S, void *res)
{
	(void)S;
	const struct comp_result *t = res;
	if (x->c->json || x->c->quiet || !t || !t->h)
		return;
	for (size_t i = 0; i < t->h->nwarnings; i++)
		cli_warn("%s", hp_heap_warning(t->h, i));
}

CLI_COMMAND(components, "hprofan components FILE", "top components: per class loader, what it retains",
	    CLI_FILES(1, 1), CLI_ANSWERS, CLI_OWN(struct comp_opts, defaults), .after = after,
	    CLI_TABLES(own, cli_opts_model, cli_opts_policy, cli_opts_load, cli_opts_output, cli_opts_quiet));
