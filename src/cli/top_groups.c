/* top_groups.c — hprofan top --group=package|loader|component: the class
 * rows summed by package (a tree, opened down to --depth), by defining
 * class loader (with the class names several loaders define) or by
 * component (--components FILE), each level ordered by --sort and cut at
 * --top; the table from its column list (table.h). */
#include "cli/top.h"
#include "cli/table.h"
#include "cli/msg.h"
#include "cli/format.h"
#include "cli/filter.h"
#include "cli/load.h"
#include "cli/output.h"
#include "cli/objtext.h"
#include "base/text.h"
#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>

const struct cli_choice top_group_choices[] = {
	{ "package", HP_GROUP_PACKAGE, NULL },
	{ "loader", HP_GROUP_LOADER, NULL },
	{ "component", HP_GROUP_COMPONENT, NULL },
	{ NULL, 0, NULL }
};

static const struct hp_groups *sort_G;
static int (*sort_cmp)(const struct hp_group *, const struct hp_group *);

static int g_name(const struct hp_group *x, const struct hp_group *y)
{
	if (sort_G->by == HP_GROUP_PACKAGE) {
		int c = memcmp(x->pkg, y->pkg, x->pkg_len < y->pkg_len ? x->pkg_len : y->pkg_len);
		return c ? c : x->pkg_len < y->pkg_len ? -1 : x->pkg_len > y->pkg_len;
	}
	return strcmp(sort_G->text + x->name, sort_G->text + y->name);
}

static int g_retained(const struct hp_group *x, const struct hp_group *y)
{
	if (x->retained != y->retained)
		return x->retained < y->retained ? 1 : -1;
	if (x->shallow != y->shallow)
		return x->shallow < y->shallow ? 1 : -1;
	return 0;
}

static int g_shallow(const struct hp_group *x, const struct hp_group *y)
{
	if (x->shallow != y->shallow)
		return x->shallow < y->shallow ? 1 : -1;
	if (x->instances != y->instances)
		return x->instances < y->instances ? 1 : -1;
	return 0;
}

static int g_count(const struct hp_group *x, const struct hp_group *y)
{
	if (x->instances != y->instances)
		return x->instances < y->instances ? 1 : -1;
	if (x->shallow != y->shallow)
		return x->shallow < y->shallow ? 1 : -1;
	return 0;
}

static int g_cmp(const void *a, const void *b)
{
	const struct hp_group *x = &sort_G->g[*(const uint32_t *)a], *y = &sort_G->g[*(const uint32_t *)b];
	int c = sort_cmp(x, y);
	if (!c)
		c = g_name(x, y);
	if (!c && x->loader_id != y->loader_id)
		c = x->loader_id < y->loader_id ? -1 : 1;
	return c;
}

/* the order of the groups shown: each level sorted, its first N (--top),
 * packages opened down to --depth */
static int group_order(struct top_result *t, int (*cmp)(const struct hp_group *, const struct hp_group *), size_t topn)
{
	struct hp_groups *G = &t->G;
	size_t n = G->n;
	t->child_off = hp_calloc(n + 2, sizeof *t->child_off);
	t->child = hp_reallocarray(NULL, n ? n : 1, sizeof *t->child);
	t->order = hp_reallocarray(NULL, n ? n : 1, sizeof *t->order);
	t->rank = hp_reallocarray(NULL, n ? n : 1, sizeof *t->rank);
	if (!t->child_off || !t->child || !t->order || !t->rank)
		return EXIT_NOMEM;
	/* slot n holds the top level */
	uint32_t maxdepth = 1;
	for (size_t i = 0; i < n; i++) {
		uint32_t p = G->g[i].parent == HP_NONE ? (uint32_t)n : G->g[i].parent;
		t->child_off[p + 1]++;
		if (G->g[i].depth > maxdepth)
			maxdepth = G->g[i].depth;
	}
	for (size_t i = 0; i <= n; i++)
		t->child_off[i + 1] += t->child_off[i];
	uint32_t *fill = hp_reallocarray(NULL, n + 1, sizeof *fill);
	struct lvl { uint32_t at, end, rank; } *st = hp_reallocarray(NULL, maxdepth + 1, sizeof *st);
	if (!fill || !st) {
		hp_free(fill);
		hp_free(st);
		return EXIT_NOMEM;
	}
	memcpy(fill, t->child_off, (n + 1) * sizeof *fill);
	for (size_t i = 0; i < n; i++) {
		uint32_t p = G->g[i].parent == HP_NONE ? (uint32_t)n : G->g[i].parent;
		t->child[fill[p]++] = (uint32_t)i;
	}
	hp_free(fill);
	sort_G = G;
	sort_cmp = cmp;
	for (size_t p = 0; p <= n; p++)
		if (t->child_off[p + 1] - t->child_off[p] > 1)
			qsort(t->child + t->child_off[p], t->child_off[p + 1] - t->child_off[p], sizeof *t->child, g_cmp);
	t->ntop = t->child_off[n + 1] - t->child_off[n];
	size_t sp = 0;
#define LEVEL(p) do { \
		uint32_t a_ = t->child_off[p], e_ = t->child_off[(p) + 1]; \
		if (topn && e_ - a_ > topn) { \
			e_ = a_ + (uint32_t)topn; \
			t->cut = 1; \
		} \
		st[sp].at = a_; st[sp].end = e_; st[sp].rank = 0; sp++; \
	} while (0)
	LEVEL(n);
	while (sp) {
		struct lvl *l = &st[sp - 1];
		if (l->at == l->end) {
			sp--;
			continue;
		}
		uint32_t g = t->child[l->at++];
		t->rank[t->norder] = ++l->rank;
		t->order[t->norder++] = g;
		if (t->by == HP_GROUP_PACKAGE && G->g[g].depth < t->depth && sp <= maxdepth)
			LEVEL(g);
	}
#undef LEVEL
	hp_free(st);
	return EXIT_OK;
}

int top_groups_collect(hp_session *S, struct top_result *t, struct cli_filter *flt, int heap_filter,
		       const char *components, size_t topn)
{
	const hp_heap *h = t->h;
	/* --sort: the groups' order, the name last (g_cmp()) */
	int (*cmp)(const struct hp_group *, const struct hp_group *) =
		t->sort == SORT_RETAINED ? g_retained : t->sort == SORT_SHALLOW ? g_shallow
		: t->sort == SORT_COUNT ? g_count : g_name;
	int rc = EXIT_OK;
	uint8_t *row_in = NULL;
	struct hp_error err;
	hp_error_clear(&err);
	if (flt || heap_filter >= 0) {
		if ((rc = cli_filter_rows(flt, h, heap_filter, &row_in)))
			return rc;
	}
	if (t->by == HP_GROUP_COMPONENT && (rc = cli_components_read(components, h, &t->comps)))
		goto out;
	int src = hp_groups_compute(h, t->R, t->by, row_in, t->comps.comp, (const char *const *)t->comps.names,
				    t->comps.n, &t->G, &err);
	if (src == HP_OK && t->by == HP_GROUP_LOADER && t->R) {
		hp_objread *rd;
		if ((src = hp_session_objread(S, &rd, &err)) == HP_OK)
			src = hp_groups_loader_names(&t->G, h, rd, &err);
	}
	if (src) {
		cli_error("%s: %s", hp_session_path(S), err.msg);
		rc = src == HP_ENOMEM ? EXIT_NOMEM : EXIT_BAD;
		goto out;
	}
	if ((rc = group_order(t, cmp, topn))) {
		cli_error("out of memory");
		goto out;
	}
	t->shown = 0;
	for (size_t i = 0; i < t->norder; i++)
		if (t->G.g[t->order[i]].parent == HP_NONE)
			t->shown++;
out:
	hp_free(row_in);
	return rc;
}

/* ---- the table ---------------------------------------------------------- */

static const char *loader_label(const hp_heap *h, const struct hp_groups *G, const struct hp_group *g,
				char *buf, size_t n)
{
	(void)G;
	return cli_loader_label(h, g->loader_id, buf, n);
}

static const char *group_label(const struct top_result *t, const struct hp_group *g, char *buf, size_t n)
{
	const struct hp_groups *G = &t->G;
	if (t->by == HP_GROUP_LOADER)
		return loader_label(t->h, G, g, buf, n);
	if (t->by == HP_GROUP_PACKAGE)
		snprintf(buf, n, "%.*s", g->pkg_len ? (int)g->pkg_len : 12, g->pkg_len ? g->pkg : "(no package)");
	else
		snprintf(buf, n, "%s", G->text + g->name);
	return buf;
}

/* the group's name as its row shows it: a package indented by its depth,
 * a loader with its own name */
static void group_put(const struct cli_table *tb, const void *row, FILE *f)
{
	const struct top_result *t = tb->ctx;
	const struct hp_group *g = row;
	char lb[1024], nm[1024];
	int ind = t->by == HP_GROUP_PACKAGE ? 2 * (int)(g->depth - 1) : 0;
	fprintf(f, "%*s%s", ind > 200 ? 200 : ind, "", hp_text_safe(group_label(t, g, lb, sizeof lb), nm, sizeof nm));
	if (t->by == HP_GROUP_LOADER && g->has_loader_name)
		fprintf(f, " \"%s\"", hp_text_safe(t->G.text + g->name, nm, sizeof nm));
}

/* a package's whole name, however long: "name" ("(no package)" for the
 * classes of none) and "package" ("" then) */
static void package_json(const struct cli_table *tb, const void *row, cJSON *e, const char *key)
{
	(void)tb;
	const struct hp_group *g = row;
	char *pk = hp_malloc((size_t)g->pkg_len + 1);
	if (pk) {
		memcpy(pk, g->pkg, g->pkg_len);
		pk[g->pkg_len] = 0;
	}
	if (!strcmp(key, "name"))
		cJSON_AddStringToObject(e, key, !pk ? "?" : g->pkg_len ? pk : "(no package)");
	else
		cJSON_AddStringToObject(e, key, pk ? pk : "?");
	hp_free(pk);
}

static void group_name_json(const struct cli_table *tb, const void *row, cJSON *e, const char *key)
{
	char lb[1024];
	cJSON_AddStringToObject(e, key, group_label(tb->ctx, row, lb, sizeof lb));
}

static void loader_class_json(const struct cli_table *tb, const void *row, cJSON *e, const char *key)
{
	const struct top_result *t = tb->ctx;
	const struct hp_group *g = row;
	if (g->loader_class != HP_NONE)
		cJSON_AddStringToObject(e, key, hp_class_name(t->h, g->loader_class));
}

static void loader_name_json(const struct cli_table *tb, const void *row, cJSON *e, const char *key)
{
	const struct top_result *t = tb->ctx;
	const struct hp_group *g = row;
	if (g->has_loader_name)
		cJSON_AddStringToObject(e, key, t->G.text + g->name);
}

/* when the group columns are shown */
enum { G_RETAINED = 1, G_PACKAGE = 2, G_LOADER = 4, G_COMPONENT = 8 };

#define G_(f) offsetof(struct hp_group, f)
static const struct cli_col group_cols[] = {
	{ .title = "rank", .width = 5, .cell = CELL_RANK, .key = "rank", .at = 1 },
	{ .title = "classes", .width = 7, .cell = CELL_COUNT, .flags = COL_TOTAL, .off = G_(classes), .key = "classes", .at = 11 },
	{ .title = "defined", .width = 7, .cell = CELL_COUNT, .when = G_LOADER, .off = G_(defined), .key = "defined", .at = 9 },
	{ .title = "instances", .width = 9, .cell = CELL_COUNT, .flags = COL_FIT | COL_TOTAL, .off = G_(instances), .key = "instances", .at = 12 },
	{ .title = "shallow", .width = 10, .cell = CELL_BYTES, .flags = COL_TOTAL, .off = G_(shallow), .key = "shallow", .at = 13 },
	{ .title = "%", .width = 6, .cell = CELL_PCT, .flags = COL_TOTAL, .off = G_(shallow), .key = "percent", .at = 15 },
	{ .title = "retained", .width = 10, .cell = CELL_BYTES, .when = G_RETAINED, .off = G_(retained), .key = "retained", .at = 14 },
	{ .title = "%", .width = 6, .cell = CELL_PCT, .when = G_RETAINED, .off = G_(retained) },
	{ .title = "package", .cell = CELL_FN, .when = G_PACKAGE, .put = group_put, .key = "name", .at = 2, .json = package_json },
	{ .title = "loader", .cell = CELL_FN, .when = G_LOADER, .put = group_put, .key = "name", .at = 2, .json = group_name_json },
	{ .title = "component", .cell = CELL_FN, .when = G_COMPONENT, .put = group_put, .key = "name", .at = 2, .json = group_name_json },
	{ .cell = CELL_FN, .when = G_PACKAGE, .key = "package", .at = 3, .json = package_json },
	{ .cell = CELL_INT, .flags = COL_U32, .when = G_PACKAGE, .off = G_(depth), .key = "depth", .at = 4 },
	{ .cell = CELL_INT, .flags = COL_U32, .when = G_PACKAGE, .off = G_(nchildren), .key = "subpackages", .at = 5 },
	{ .cell = CELL_INT, .when = G_LOADER, .off = G_(loader_id), .key = "loader_id", .at = 6 },
	{ .cell = CELL_FN, .when = G_LOADER, .key = "loader_class", .at = 7, .json = loader_class_json },
	{ .cell = CELL_FN, .when = G_LOADER, .key = "loader_name", .at = 8, .json = loader_name_json },
	{ .cell = CELL_INT, .when = G_LOADER, .off = G_(duplicates), .key = "duplicates", .at = 10 },
};

static void group_table(const struct top_result *t, struct cli_table *tb)
{
	static const unsigned by[] = { G_PACKAGE, G_LOADER, G_COMPONENT };
	CLI_TABLE_INIT(tb, group_cols, by[t->by] | (t->G.retained ? G_RETAINED : 0), t->all_shallow, t);
}

/* group order[*i] and, after it, the subpackages shown (they follow it in order[]) */
static cJSON *json_group(const struct top_result *t, const struct cli_table *tb, size_t *i)
{
	const struct hp_groups *G = &t->G;
	cJSON *e = cli_table_json(tb, &G->g[t->order[*i]], t->rank[*i], NULL);
	uint32_t me = t->order[*i];
	(*i)++;
	if (t->by == HP_GROUP_PACKAGE && *i < t->norder && G->g[t->order[*i]].parent == me) {
		cJSON *sub = cJSON_AddArrayToObject(e, "packages");
		while (*i < t->norder && G->g[t->order[*i]].parent == me)
			cJSON_AddItemToArray(sub, json_group(t, tb, i));
	}
	return e;
}

void top_groups_json(const struct top_result *t, cJSON *j)
{
	struct cli_table tb;
	group_table(t, &tb);
	cJSON_AddStringToObject(j, "group", cli_choice_name(top_group_choices, t->by));
	if (t->by == HP_GROUP_PACKAGE)
		cli_json_u64(j, "depth", t->depth);
	cli_json_u64(j, "groups_total", t->ntop);
	cJSON *arr = cJSON_AddArrayToObject(j, "groups");
	size_t i = 0;
	while (i < t->norder)
		cJSON_AddItemToArray(arr, json_group(t, &tb, &i));
	if (t->by != HP_GROUP_LOADER)
		return;
	const struct hp_groups *G = &t->G;
	cJSON *dup = cJSON_AddArrayToObject(j, "duplicate_classes");
	for (size_t d = 0; d < G->ndups; d++) {
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "class", hp_class_name(t->h, G->dup_class[G->dup_off[d]]));
		cJSON *ids = cJSON_AddArrayToObject(e, "loader_ids");
		for (uint32_t k = G->dup_off[d]; k < G->dup_off[d + 1]; k++)
			cJSON_AddItemToArray(ids, cli_json_u64_item(t->h->classes[G->dup_class[k]].loader_id));
		cJSON_AddItemToArray(dup, e);
	}
}

void top_groups_text(const struct top_result *t, FILE *f)
{
	const struct hp_groups *G = &t->G;
	char lb[1024], nm[1024];
	struct cli_table tb;
	group_table(t, &tb);
	for (size_t i = 0; i < t->norder; i++)
		cli_table_fit(&tb, &G->g[t->order[i]], t->rank[i]);
	int loaders = t->by == HP_GROUP_LOADER;
	cli_table_header(&tb, f);
	for (size_t i = 0; i < t->norder; i++)
		cli_table_row(&tb, f, &G->g[t->order[i]], t->rank[i]);
	static const char *const one[] = { "package", "class loader", "component" };
	static const char *const many[] = { "packages", "class loaders", "components" };
	char c1[48], c2[48], tail[256];
	size_t o = (size_t)snprintf(tail, sizeof tail, "%s", cli_fmt_counted(t->ntop, one[t->by], many[t->by], c1, sizeof c1));
	if (t->by == HP_GROUP_PACKAGE)
		o += (size_t)snprintf(tail + o, sizeof tail - o, " at the top (%s in all, %u level%s shown)",
				      cli_fmt_counted(G->n, "package", "packages", c2, sizeof c2), t->depth, t->depth == 1 ? "" : "s");
	if (t->by == HP_GROUP_COMPONENT)
		o += (size_t)snprintf(tail + o, sizeof tail - o, " (with \"other\")");
	snprintf(tail + o, sizeof tail - o, "%s; %s", t->cut ? ", top rows shown" : "",
		 cli_fmt_counted(t->n, "class", "classes", c2, sizeof c2));
	struct hp_group tot = { .classes = t->n, .instances = t->tot_count, .shallow = t->tot_shallow };
	cli_table_line(&tb, f, &tot, COL_TOTAL, "total", tail);
	if (loaders && !t->h->nobj)
		fprintf(f, "the loaders' classes and names are not read with --fast or from a pipe (no object table)\n");
	if (loaders && G->ndups) {
		fprintf(f, "%s defined by several loaders:\n", cli_fmt_counted(G->ndups, "class name", "class names", c1, sizeof c1));
		for (size_t d = 0; d < G->ndups; d++) {
			fprintf(f, "  %s:", hp_text_safe(hp_class_name(t->h, G->dup_class[G->dup_off[d]]), nm, sizeof nm));
			for (uint32_t k = G->dup_off[d]; k < G->dup_off[d + 1]; k++) {
				uint64_t id = t->h->classes[G->dup_class[k]].loader_id;
				size_t gi = 0;
				while (gi < G->n && G->g[gi].loader_id != id)
					gi++;
				struct hp_group tmp;
				memset(&tmp, 0, sizeof tmp);
				tmp.loader_id = id;
				tmp.loader_class = HP_NONE;
				fprintf(f, "%s %s", k > G->dup_off[d] ? "," : "",
					hp_text_safe(loader_label(t->h, G, gi < G->n ? &G->g[gi] : &tmp, lb, sizeof lb), nm, sizeof nm));
			}
			fprintf(f, "\n");
		}
	}
}
