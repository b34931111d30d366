/* hprofan dominators FILE: the top of the dominator tree; with
 * --group=package|loader|component its top level by group (analysis/group.h
 * says which group an object is in); with --root ID the tree below one
 * object (hprofan serve opens the tree a level at a time with it). */
#include "cli/command.h"
#include "cli/msg.h"
#include "cli/format.h"
#include "cli/filter.h"
#include "cli/load.h"
#include "cli/output.h"
#include "cli/objtext.h"
#include "cli/table.h"
#include "analysis/group.h"
#include "base/text.h"
#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>

/* --group: GROUP_CLASS merges same-class siblings everywhere; the others
 * group the top level (enum hp_group_by + 1) */
enum { GROUP_NONE = 0, GROUP_CLASS, GROUP_PACKAGE, GROUP_LOADER, GROUP_COMPONENT };
static const struct cli_choice groups[] = {
	{ "class", GROUP_CLASS, NULL },
	{ "package", GROUP_PACKAGE, NULL },
	{ "loader", GROUP_LOADER, NULL },
	{ "component", GROUP_COMPONENT, NULL },
	{ NULL, 0, NULL }
};

enum { SORT_RETAINED, SORT_SHALLOW, SORT_COUNT, SORT_NAME };
static const struct cli_choice sorts[] = {
	{ "retained", SORT_RETAINED, "default" },
	{ "shallow", SORT_SHALLOW, NULL },
	{ "count", SORT_COUNT, "objects in a group" },
	{ "name", SORT_NAME, "class name" },
	{ NULL, 0, NULL }
};

struct dom_opts {
	struct cli_count top;
	int depth;
	int group;
	int sort;
	const char *heap;
	const char *components;
	const char *root;
};

static void defaults(void *own)
{
	struct dom_opts *o = own;
	o->top.n = 20;
	o->depth = 1;
}

static int set_depth(const struct cli_option *o, const char *as, const char *val, void *dst)
{
	if (cli_parse_int(val, 1, 1000, dst))
		return cli_usage_error(NULL, "%s needs a number of levels (1..1000)", as);
	return EXIT_OK;
}

#define OWN(field) OPT_OWN(struct dom_opts, field)
static const struct cli_option own[] = {
	OPT_TOP("the N largest children of each node (default 20; 0 shows all)", OWN(top)),
	OPT_DEPTH(set_depth, "levels of the tree to show (default 1); a chain of\nsame-class single children is one level",
		  "needs a number of levels (1..1000)", OWN(depth)),
	OPT_GROUP(groups, "class: merge same-class siblings; package, loader,\ncomponent: the top level by group (--depth opens\nthe groups)", OWN(group)),
	OPT_COMPONENTS("components for --group=component (the default with\nit): lines NAME REGEX, as top's", OWN(components)),
	OPT_SORT(sorts, NULL, OWN(sort)),
	OPT_HEAP("Android: only top-level objects of heap NAME (app,\nzygote, image)", OWN(heap)),
	OPT_STRING("--root", "ID", "the tree below object ID (hex or decimal) instead of\nthe whole heap's", "needs an object id", OWN(root)),
	OPT_END
};
#undef OWN

/* one row: an object, or a group of same-class siblings (members
 * mem[first .. first + count) of its level) */
struct drow {
	uint32_t v;            /* object (the largest of a group) */
	uint32_t cls;
	size_t first;
	uint64_t count, shallow, retained;
	uint64_t native, native_retained;   /* registered native bytes (native.h) */
};

struct dctx {
	struct cli_ctx *x;
	const struct dom_opts *o;
	const hp_heap *h;
	const struct hp_retained *R;
	const struct hp_native *N;   /* NULL: no native columns */
	struct cli_filter *flt;
	int heap;              /* heap index of --heap, or -1 */
	int sort;
	uint64_t total;
	FILE *f;               /* table output */
	const struct hp_groups *G;   /* --group=package|loader|component */
	struct cli_table tb;   /* the objects' rows */
	struct cli_table gt;   /* the groups' rows */
	char line[4096];       /* a chain's or a cut's line, written at once (not
				* in show_level()'s frame: it recurses --depth deep) */
};

static int by_ret(const struct drow *x, const struct drow *y)
{
	if (x->retained != y->retained)
		return x->retained < y->retained ? 1 : -1;
	return x->v < y->v ? -1 : x->v > y->v;
}

static const struct dctx *sort_ctx;   /* qsort has no context argument */

/* --sort=shallow, count and name between two rows (the largest first, names
 * A to Z); 0 when equal there, or for --sort=retained: the caller's order
 * decides.  The names are read only for --sort=name. */
static int by_sort(int sort, uint64_t xs, uint64_t ys, uint64_t xc, uint64_t yc, const char *xn, const char *yn)
{
	switch (sort) {
	case SORT_SHALLOW:
		return xs != ys ? (xs < ys ? 1 : -1) : 0;
	case SORT_COUNT:
		return xc != yc ? (xc < yc ? 1 : -1) : 0;
	case SORT_NAME:
		return strcmp(xn, yn);
	}
	return 0;
}

static int by_key(const void *a, const void *b)
{
	const struct drow *x = a, *y = b;
	int name = sort_ctx->sort == SORT_NAME;
	int c = by_sort(sort_ctx->sort, x->shallow, y->shallow, x->count, y->count,
			name ? hp_class_name(sort_ctx->h, x->cls) : NULL, name ? hp_class_name(sort_ctx->h, y->cls) : NULL);
	return c ? c : by_ret(x, y);
}

static const hp_heap *member_heap;
static const uint64_t *member_ret;

/* members: by class, then the largest first */
static int by_cls(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint32_t cx = member_heap->cls[x], cy = member_heap->cls[y];
	if (cx != cy)
		return cx < cy ? -1 : 1;
	if (member_ret[x] != member_ret[y])
		return member_ret[x] < member_ret[y] ? 1 : -1;
	return x < y ? -1 : x > y;
}

/* members ahead of a group's others: the largest retained, then the lowest number (by_cls's first) */
static int ahead(const uint64_t *ret, uint32_t x, uint32_t y)
{
	return ret[x] != ret[y] ? ret[x] > ret[y] : x < y;
}

/* m[0 .. k) by class, as qsort(by_cls) would put them as far as the rows
 * see: each class's members together, classes in ascending order, the
 * first of each its by_cls first (the others in no particular order; the
 * next level sorts its own).  A counting sort: O(k + classes), where qsort
 * takes O(k log k) random reads of two columns (millions of members below
 * a big array).  0, or -1 out of memory. */
static int bucket_by_class(const hp_heap *h, const uint64_t *ret, uint32_t *m, size_t k)
{
	size_t nc = h->nclasses;
	uint32_t *at = hp_calloc(nc + 1, sizeof *at);
	uint32_t *tmp = hp_reallocarray(NULL, k, sizeof *tmp);
	if (!at || !tmp) {
		hp_free(at);
		hp_free(tmp);
		return -1;
	}
	for (size_t i = 0; i < k; i++)
		at[h->cls[m[i]] + 1]++;
	for (size_t c = 0; c < nc; c++)
		at[c + 1] += at[c];
	for (size_t i = 0; i < k; i++)
		tmp[at[h->cls[m[i]]]++] = m[i];
	/* at[c] is now where class c + 1 starts: each bucket's best to its front */
	size_t lo = 0;
	for (size_t c = 0; c < nc; c++) {
		size_t hi = at[c];
		for (size_t i = lo + 1; i < hi; i++)
			if (ahead(ret, tmp[i], tmp[lo])) {
				uint32_t t = tmp[lo];
				tmp[lo] = tmp[i];
				tmp[i] = t;
			}
		lo = hi;
	}
	memcpy(m, tmp, k * sizeof *m);
	hp_free(at);
	hp_free(tmp);
	return 0;
}

/* member lists at least this long are grouped by bucket_by_class() */
#define BUCKET_MIN 4096

/* The dominator children of the nodes par[0 .. npar) (the super-root is
 * node n), or with kids 0 those nodes themselves, as rows in the wanted
 * order; *mem holds a group's members. */
static struct drow *rows_of(struct dctx *c, const uint32_t *par, size_t npar, int kids, size_t *nrows, uint32_t **mem)
{
	const struct hp_retained *R = c->R;
	const hp_heap *h = c->h;
	size_t k = 0;
	for (size_t i = 0; i < npar; i++)
		k += kids ? R->child_off[par[i] + 1] - R->child_off[par[i]] : 1;
	uint32_t *m = hp_reallocarray(NULL, k ? k : 1, sizeof *m);
	struct drow *rows = hp_reallocarray(NULL, k ? k : 1, sizeof *rows);
	if (!m || !rows) {
		hp_free(m);
		hp_free(rows);
		return NULL;
	}
	size_t at = 0;
	for (size_t i = 0; i < npar; i++)
		if (!kids)
			m[at++] = par[i];
		else
			for (uint32_t j = R->child_off[par[i]]; j < R->child_off[par[i] + 1]; j++)
				m[at++] = R->children[j];
	size_t g = 0;
	if (c->o->group == GROUP_CLASS && k > 1) {
		if (k >= BUCKET_MIN && k >= h->nclasses / 4) {
			if (bucket_by_class(h, R->retained, m, k)) {
				hp_free(m);
				hp_free(rows);
				return NULL;
			}
		} else {
			member_heap = h;
			member_ret = R->retained;
			qsort(m, k, sizeof *m, by_cls);
		}
		for (size_t i = 0; i < k; i++) {
			uint32_t v = m[i];
			if (g && rows[g - 1].cls == h->cls[v]) {
				rows[g - 1].count++;
				rows[g - 1].shallow += hp_retained_shallow(R, v);
				rows[g - 1].retained += R->retained[v];
				rows[g - 1].native += hp_native_of(c->N, v);
				rows[g - 1].native_retained += hp_native_retained_of(c->N, v);
				continue;
			}
			rows[g++] = (struct drow){ .v = v, .cls = h->cls[v], .first = i, .count = 1,
						   .shallow = hp_retained_shallow(R, v), .retained = R->retained[v],
						   .native = hp_native_of(c->N, v),
						   .native_retained = hp_native_retained_of(c->N, v) };
		}
	} else {
		for (size_t i = 0; i < k; i++)
			rows[g++] = (struct drow){ .v = m[i], .cls = h->cls[m[i]], .first = i, .count = 1,
						   .shallow = hp_retained_shallow(R, m[i]), .retained = R->retained[m[i]],
						   .native = hp_native_of(c->N, m[i]),
						   .native_retained = hp_native_retained_of(c->N, m[i]) };
	}
	sort_ctx = c;
	qsort(rows, g, sizeof *rows, by_key);
	*nrows = g;
	*mem = m;
	return rows;
}

/* the single dominator child of v, or UINT32_MAX */
static uint32_t only_child(const struct hp_retained *R, uint32_t v)
{
	return R->child_off[v + 1] - R->child_off[v] == 1 ? R->children[R->child_off[v]] : UINT32_MAX;
}

/* Links below v in its chain of same-class single children; *end is the
 * last.  Iterative: a chain can be as long as the heap. */
static uint64_t chain_below(const struct dctx *c, uint32_t v, uint32_t *end)
{
	uint64_t n = 0;
	uint32_t u = v, w;
	while ((w = only_child(c->R, u)) != UINT32_MAX && c->h->cls[w] == c->h->cls[v]) {
		u = w;
		n++;
	}
	*end = u;
	return n;
}

/* chains shorter than this are shown link by link */
#define CHAIN_MIN 3

static void add_roots_json(const struct dctx *c, cJSON *e, uint32_t v)
{
	if (!c->R->root_kinds[v])
		return;
	cJSON *rk = cJSON_AddArrayToObject(e, "gc_root");
	for (int kk = 0; kk < HP_ROOT_NKINDS; kk++)
		if (c->R->root_kinds[v] & (1u << kk))
			cJSON_AddItemToArray(rk, cJSON_CreateString(hp_root_kind_key(kk)));
}

/* ---- the tables ------------------------------------------------------------ */

/* a row of --group=package|loader|component: a group's top-level objects */
struct grow {
	uint32_t g;            /* group, G->n for objects of no class row */
	size_t first;          /* its members: mem[first .. first + count) */
	uint64_t count, shallow, retained;
	char *name;
};

/* a line of the tree: an object, a group of same-class siblings, a chain,
 * what --top left out */
struct dline {
	uint64_t retained, shallow, native, native_retained;
	int depth;             /* its indent */
	int mark;              /* a GC root */
	const char *lab;
};

static void object_put(const struct cli_table *tb, const void *row, FILE *f)
{
	(void)tb;
	const struct dline *l = row;
	fprintf(f, "%*s%s%s", 2 * l->depth, "", l->mark ? "\xe2\x97\x8f " : "", l->lab);
}

/* when the columns are shown */
enum { D_NATIVE = 1 };

/* COL_LINE3: a chain's line */
#define DL_(f) offsetof(struct dline, f)
static const struct cli_col object_cols[] = {
	{ .title = "retained", .width = 10, .cell = CELL_BYTES, .flags = COL_MORE | COL_LINE3, .off = DL_(retained), .key = "retained", .at = 2 },
	{ .title = "%heap", .width = 6, .cell = CELL_PCT, .flags = COL_MORE | COL_LINE3 | COL_PCT100, .off = DL_(retained), .key = "percent", .at = 5 },
	{ .title = "shallow", .width = 10, .cell = CELL_BYTES, .flags = COL_MORE, .off = DL_(shallow), .key = "shallow", .at = 1 },
	{ .title = "native", .width = 10, .cell = CELL_BYTES, .flags = COL_MORE, .when = D_NATIVE, .off = DL_(native), .key = "native", .at = 3 },
	{ .title = "native ret", .width = 10, .cell = CELL_BYTES, .flags = COL_MORE | COL_LINE3, .when = D_NATIVE, .off = DL_(native_retained), .key = "retained_native", .at = 4 },
	{ .title = "object (\xe2\x97\x8f GC root)", .cell = CELL_FN, .put = object_put },
};

/* "package com.acme \"name\" (12 objects)" */
static void group_put(const struct cli_table *tb, const void *row, FILE *f);
static void group_json(const struct cli_table *tb, const void *row, cJSON *e, const char *key);

#define GR_(f) offsetof(struct grow, f)
static const struct cli_col group_cols[] = {
	{ .title = "retained", .width = 10, .cell = CELL_BYTES, .flags = COL_MORE, .off = GR_(retained), .key = "retained", .at = 5 },
	{ .title = "%heap", .width = 6, .cell = CELL_PCT, .flags = COL_MORE | COL_PCT100, .off = GR_(retained), .key = "percent", .at = 6 },
	{ .title = "shallow", .width = 10, .cell = CELL_BYTES, .flags = COL_MORE, .off = GR_(shallow), .key = "shallow", .at = 4 },
	{ .title = "group", .cell = CELL_FN, .put = group_put, .key = "group", .at = 1, .json = group_json },
	{ .cell = CELL_COUNT, .off = GR_(count), .key = "objects", .at = 3 },
};

static void tables_init(struct dctx *c)
{
	CLI_TABLE_INIT(&c->tb, object_cols, c->N ? D_NATIVE : 0, c->total, c);
	CLI_TABLE_INIT(&c->gt, group_cols, 0, c->total, c);
}

static int show(struct dctx *c, const uint32_t *par, size_t npar, int depth, cJSON *arr, cJSON *holder);

/* Shows the children of par[0 .. npar) at `depth`; into arr (JSON) or the
 * table; what --top leaves out is one "… N more" row (JSON: "more" in
 * holder, the parent's element).  Depth is bounded by --depth (at
 * most 1000), not by the dump. */
static int show_level(struct dctx *c, const uint32_t *par, size_t npar, int as_children, int depth, cJSON *arr,
		      cJSON *holder)
{
	size_t k;
	uint32_t *mem;
	struct drow *rows = rows_of(c, par, npar, as_children, &k, &mem);
	if (!rows)
		return EXIT_NOMEM;
	const hp_heap *h = c->h;
	size_t limit = c->o->top.n > 0 ? (size_t)c->o->top.n : k;
	size_t shown = 0;
	uint64_t cut_n = 0, cut_obj = 0, cut_ret = 0, cut_sh = 0, cut_nat = 0, cut_natret = 0;
	int rc = EXIT_OK;
	for (size_t i = 0; i < k && rc == EXIT_OK; i++) {
		const struct drow *r = &rows[i];
		if (depth == 0) {
			if (c->heap >= 0 && (int)hp_heap_heap(h, r->v) != c->heap)
				continue;
			int m = cli_filter_match(c->flt, hp_class_name(h, r->cls));
			if (m < 0) {
				rc = EXIT_USAGE;
				break;
			}
			if (!m)
				continue;
		}
		if (shown >= limit) {
			cut_n++;
			cut_obj += r->count;
			cut_ret += r->retained;
			cut_sh += r->shallow;
			cut_nat += r->native;
			cut_natret += r->native_retained;
			continue;
		}
		shown++;
		char lab[700], nm[512];
		int group = r->count > 1;
		if (group) {
			char cnt[32];
			snprintf(lab, sizeof lab, "[%s \xc3\x97 %s]", cli_fmt_count(r->count, cnt, sizeof cnt),
				 hp_text_safe(hp_class_name(h, r->cls), nm, sizeof nm));
		} else {
			cli_object_label(h, r->v, lab, sizeof lab);
		}
		/* below: the node's children, or a chain's */
		int open = depth + 1 < c->o->depth;
		uint32_t end = r->v;
		/* the table collapses a chain; JSON lists every link (a program
		 * walking the tree needs each one) */
		uint64_t links = !group && open && !arr ? chain_below(c, r->v, &end) : 0;
		if (links < CHAIN_MIN)
			links = 0, end = r->v;
		struct dline l = { .retained = r->retained, .shallow = r->shallow, .native = r->native,
				   .native_retained = r->native_retained, .depth = depth,
				   .mark = !group && c->R->root_kinds[r->v], .lab = lab };
		cJSON *e = NULL, *kids = NULL, *inner = NULL;
		if (arr) {
			if (group) {
				e = cJSON_CreateObject();
				cJSON_AddStringToObject(e, "group", hp_class_name(h, r->cls));
				cli_json_u64(e, "count", r->count);
			} else {
				e = cli_object_json(h, r->v);
				add_roots_json(c, e, r->v);
			}
			cJSON_AddItemToArray(arr, cli_table_json(&c->tb, &l, 0, e));
			inner = e;
		} else {
			cli_table_row(&c->tb, c->f, &l, 0);
		}
		int d = depth + 1;
		if (links) {
			/* "× 12,000,000 links of Node": one level for the whole chain */
			uint32_t first = only_child(c->R, r->v);
			char cnt[32];
			struct dline cl = { .retained = c->R->retained[first], .native_retained = hp_native_retained_of(c->N, first) };
			snprintf(c->line, sizeof c->line, "%*s\xc3\x97 %s links of %s, down to @0x%llx", 2 * d, "",
				 cli_fmt_count(links, cnt, sizeof cnt), hp_text_safe(hp_class_name(h, r->cls), nm, sizeof nm),
				 (unsigned long long)hp_heap_id(h, end));
			cli_table_line(&c->tb, c->f, &cl, COL_LINE3, NULL, c->line);
			d++;
		}
		if (d < c->o->depth) {
			if (arr)
				kids = cJSON_AddArrayToObject(inner, "children");
			if (group)
				rc = show(c, mem + r->first, r->count, d, kids, inner);
			else
				rc = show(c, &end, 1, d, kids, inner);
		}
	}
	if (cut_n && rc == EXIT_OK) {
		char cc[48];
		if (arr) {
			cJSON *mo = cJSON_AddObjectToObject(holder, "more");
			cli_json_u64(mo, "rows", cut_n);
			cli_json_u64(mo, "objects", cut_obj);
			cli_json_u64(mo, "shallow", cut_sh);
			cli_json_u64(mo, "retained", cut_ret);
			if (c->N) {
				cli_json_u64(mo, "native", cut_nat);
				cli_json_u64(mo, "retained_native", cut_natret);
			}
		} else {
			char ob[48];
			struct dline cl = { .retained = cut_ret, .shallow = cut_sh, .native = cut_nat, .native_retained = cut_natret };
			int o = snprintf(c->line, sizeof c->line, "%*s%s", 2 * depth, "", cli_more_text(cut_n, NULL, NULL, cc, sizeof cc));
			if (cut_obj != cut_n)
				snprintf(c->line + o, sizeof c->line - (size_t)o, " (%s)",
					 cli_fmt_counted(cut_obj, "object", "objects", ob, sizeof ob));
			cli_table_line(&c->tb, c->f, &cl, COL_MORE, NULL, c->line);
		}
	}
	hp_free(rows);
	hp_free(mem);
	return rc;
}

static int show(struct dctx *c, const uint32_t *par, size_t npar, int depth, cJSON *arr, cJSON *holder)
{
	return show_level(c, par, npar, 1, depth, arr, holder);
}

/* ---- --group=package|loader|component: the top level by group ---------- */


static const uint64_t *gsort_ret;

struct gmem { uint32_t v, g; };

static int by_gmem(const void *a, const void *b)
{
	const struct gmem *x = a, *y = b;
	if (x->g != y->g)
		return x->g < y->g ? -1 : 1;
	if (gsort_ret[x->v] != gsort_ret[y->v])
		return gsort_ret[x->v] < gsort_ret[y->v] ? 1 : -1;
	return x->v < y->v ? -1 : x->v > y->v;
}

static int by_grow(const void *a, const void *b)
{
	const struct grow *x = a, *y = b;
	int c = by_sort(sort_ctx->sort, x->shallow, y->shallow, x->count, y->count, x->name, y->name);
	if (c)
		return c;
	if (x->retained != y->retained)
		return x->retained < y->retained ? 1 : -1;
	int k = strcmp(x->name, y->name);
	return k ? k : x->g < y->g ? -1 : x->g > y->g;
}

static char *group_label(const struct dctx *c, uint32_t gi)
{
	const struct hp_groups *G = c->G;
	char buf[1024];
	if (gi >= G->n)
		snprintf(buf, sizeof buf, "?");
	else if (G->by == HP_GROUP_PACKAGE)
		snprintf(buf, sizeof buf, "%.*s", G->g[gi].pkg_len ? (int)G->g[gi].pkg_len : 12,
			 G->g[gi].pkg_len ? G->g[gi].pkg : "(no package)");
	else if (G->by == HP_GROUP_LOADER)
		cli_loader_label(c->h, G->g[gi].loader_id, buf, sizeof buf);
	else
		snprintf(buf, sizeof buf, "%s", hp_group_name(G, gi));
	size_t n = strlen(buf);
	char *s = hp_malloc(n + 1);
	if (s)
		memcpy(s, buf, n + 1);
	return s;
}

static void group_put(const struct cli_table *tb, const void *row, FILE *f)
{
	const struct dctx *c = tb->ctx;
	const struct hp_groups *G = c->G;
	const struct grow *w = row;
	char nm[1024], cc[48];
	fprintf(f, "%s %s", cli_choice_name(groups, c->o->group), hp_text_safe(w->name, nm, sizeof nm));
	if (G->by == HP_GROUP_LOADER && w->g < G->n && G->g[w->g].has_loader_name)
		fprintf(f, " \"%s\"", hp_text_safe(hp_group_name(G, w->g), nm, sizeof nm));
	fprintf(f, " (%s)", cli_fmt_counted(w->count, "object", "objects", cc, sizeof cc));
}

/* its name under the kind's key ("package": "com.acme"), a loader's id and own name */
static void group_json(const struct cli_table *tb, const void *row, cJSON *e, const char *key)
{
	(void)key;
	const struct dctx *c = tb->ctx;
	const struct hp_groups *G = c->G;
	const struct grow *w = row;
	cJSON_AddStringToObject(e, cli_choice_name(groups, c->o->group), w->name);
	if (G->by == HP_GROUP_LOADER && w->g < G->n) {
		cli_json_u64(e, "loader_id", G->g[w->g].loader_id);
		if (G->g[w->g].has_loader_name)
			cJSON_AddStringToObject(e, "loader_name", hp_group_name(G, w->g));
	}
}

/* The super-root's children that pass the filters, as rows of their groups
 * (the innermost package: a package's row holds its own classes' objects),
 * each opened below --depth into its objects.  The groups' sums are those
 * of the objects: no top-level object dominates another. */
static int show_groups(struct dctx *c, cJSON *arr, cJSON *holder)
{
	const struct hp_retained *R = c->R;
	const hp_heap *h = c->h;
	const struct hp_groups *G = c->G;
	uint32_t n = (uint32_t)h->nobj;
	size_t k = R->child_off[n + 1] - R->child_off[n], nm = 0, ng = 0;
	struct gmem *gm = hp_reallocarray(NULL, k ? k : 1, sizeof *gm);
	uint32_t *mem = hp_reallocarray(NULL, k ? k : 1, sizeof *mem);
	struct grow *rows = hp_calloc(k ? k : 1, sizeof *rows);
	int rc = EXIT_OK;
	if (!gm || !mem || !rows) {
		rc = EXIT_NOMEM;
		goto out;
	}
	for (uint32_t j = R->child_off[n]; j < R->child_off[n + 1]; j++) {
		uint32_t v = R->children[j];
		if (c->heap >= 0 && (int)hp_heap_heap(h, v) != c->heap)
			continue;
		int m = cli_filter_match(c->flt, hp_class_name(h, h->cls[v]));
		if (m < 0) {
			rc = EXIT_USAGE;
			goto out;
		}
		if (!m)
			continue;
		uint32_t g = hp_groups_object_group(G, h, v);
		if (g == HP_NONE)
			g = (uint32_t)G->n;
		gm[nm++] = (struct gmem){ v, g };
	}
	gsort_ret = R->retained;
	if (nm > 1)
		qsort(gm, nm, sizeof *gm, by_gmem);
	for (size_t i = 0; i < nm; i++) {
		mem[i] = gm[i].v;
		if (!ng || rows[ng - 1].g != gm[i].g) {
			rows[ng].g = gm[i].g;
			rows[ng].first = i;
			if (!(rows[ng].name = group_label(c, gm[i].g))) {
				rc = EXIT_NOMEM;
				goto out;
			}
			ng++;
		}
		struct grow *w = &rows[ng - 1];
		w->count++;
		w->shallow += hp_retained_shallow(R, gm[i].v);
		w->retained += R->retained[gm[i].v];
	}
	sort_ctx = c;
	if (ng > 1)
		qsort(rows, ng, sizeof *rows, by_grow);
	size_t limit = c->o->top.n > 0 && (size_t)c->o->top.n < ng ? (size_t)c->o->top.n : ng;
	for (size_t i = 0; i < limit && rc == EXIT_OK; i++) {
		const struct grow *w = &rows[i];
		cJSON *inner = NULL, *kids = NULL;
		if (arr)
			cJSON_AddItemToArray(arr, inner = cli_table_json(&c->gt, w, 0, NULL));
		else
			cli_table_row(&c->gt, c->f, w, 0);
		if (1 < c->o->depth) {
			if (arr)
				kids = cJSON_AddArrayToObject(inner, "children");
			rc = show_level(c, mem + w->first, w->count, 0, 1, kids, inner);
		}
	}
	if (limit < ng && rc == EXIT_OK) {
		uint64_t cut_obj = 0, cut_sh = 0, cut_ret = 0;
		for (size_t i = limit; i < ng; i++) {
			cut_obj += rows[i].count;
			cut_sh += rows[i].shallow;
			cut_ret += rows[i].retained;
		}
		char cc[48], dd[48];
		if (arr) {
			cJSON *mo = cJSON_AddObjectToObject(holder, "more");
			cli_json_u64(mo, "rows", ng - limit);
			cli_json_u64(mo, "objects", cut_obj);
			cli_json_u64(mo, "shallow", cut_sh);
			cli_json_u64(mo, "retained", cut_ret);
		} else {
			char line[160];
			struct grow cut = { .shallow = cut_sh, .retained = cut_ret };
			snprintf(line, sizeof line, "%s (%s)", cli_more_text(ng - limit, NULL, NULL, cc, sizeof cc),
				 cli_fmt_counted(cut_obj, "object", "objects", dd, sizeof dd));
			cli_table_line(&c->gt, c->f, &cut, COL_MORE, NULL, line);
		}
	}
out:
	for (size_t i = 0; rows && i < ng; i++)
		hp_free(rows[i].name);
	hp_free(rows);
	hp_free(gm);
	hp_free(mem);
	return rc;
}

struct dom_result {
	const hp_heap *h;
	const struct hp_retained *R;
	const struct hp_native *N;
	struct cli_filter *flt;
	int heap;
	struct cli_components comps;
	struct hp_groups G;
	int grouped;           /* G holds the groups */
	uint32_t root;         /* --root's object, else the super-root (nobj) */
};

static void release(void *p)
{
	struct dom_result *d = p;
	if (!d)
		return;
	cli_filter_free(d->flt);
	cli_components_release(&d->comps);
	if (d->grouped)
		hp_groups_release(&d->G);
	hp_free(d);
}

static int collect(struct cli_ctx *x, hp_session *S, void **res)
{
	struct dom_opts *oo = x->own;
	/* cli_rules_components holds: --components alone is --group=component */
	if (oo->components && !oo->group)
		oo->group = GROUP_COMPONENT;
	struct dom_result *d = cli_result_new(sizeof *d, res);
	if (!d)
		return EXIT_NOMEM;
	int rc;
	if ((x->c->filter || x->c->exclude) && !(d->flt = cli_filter_new(x->c->filter, x->c->exclude, &rc)))
		return rc;
	if ((rc = cli_refuse_pipe(S, "retained sizes read", "save it to a file (or use --fast for shallow sizes)")) ||
	    (rc = cli_retained_tree(S, &d->h, &d->R)) || (rc = cli_native(S, 1, &d->N)))   /* (no graph) */
		return rc;
	const struct dom_opts *o = x->own;
	d->heap = -1;
	if (o->heap && (d->heap = cli_heap_named(d->h, hp_session_path(S), o->heap, &rc)) < 0)
		return rc;
	cli_filter_check(d->flt, d->h, hp_session_path(S));
	d->root = (uint32_t)d->h->nobj;
	if (o->root && o->group > GROUP_CLASS)   /* (--components makes it component: no rule sees it) */
		return cli_usage_error(x->cmd->name, "--root does not go with --group=component: the groups are the top level's");
	if (o->root) {
		uint64_t id;
		size_t v;
		char a[256];
		if (cli_parse_object_id(o->root, &id) || !id)
			return cli_usage_error(x->cmd->name, "--root: '%s' is not an object id: give it in hex (0x7f3a10) or decimal",
					       hp_text_safe(o->root, a, sizeof a));
		if ((v = hp_heap_find(d->h, id)) == SIZE_MAX) {
			cli_error("%s: no object 0x%llx in the dump", hp_session_path(S), (unsigned long long)id);
			return EXIT_BAD;
		}
		d->root = (uint32_t)v;
	}
	int by = o->group - GROUP_PACKAGE;
	if (by < 0)
		return EXIT_OK;
	struct hp_error err;
	hp_error_clear(&err);
	if (by == HP_GROUP_COMPONENT && (rc = cli_components_read(o->components, d->h, &d->comps)))
		return rc;
	int st = hp_groups_compute(d->h, NULL, by, NULL, d->comps.comp, (const char *const *)d->comps.names, d->comps.n,
				   &d->G, &err);
	if (st == HP_OK)
		d->grouped = 1;
	if (st == HP_OK && by == HP_GROUP_LOADER) {
		hp_objread *rd;
		if ((rc = cli_objread(S, &rd)))
			return rc;
		st = hp_groups_loader_names(&d->G, d->h, rd, &err);
	}
	if (st != HP_OK) {
		cli_error("%s: %s", hp_session_path(S), err.msg);
		return cli_exit_code(st);
	}
	return EXIT_OK;
}

static int json(struct cli_ctx *x, hp_session *S, void *res, cJSON **doc)
{
	struct dom_result *d = res;
	const hp_heap *h = d->h;
	const struct hp_retained *R = d->R;
	const struct dom_opts *o = x->own;
	uint64_t all = R->reachable_bytes + R->unreachable_bytes;   /* the sum of every shallow size */
	struct dctx c = { .x = x, .o = o, .h = h, .R = R, .flt = d->flt, .total = all, .heap = d->heap,
			  .sort = o->sort, .N = cli_native_shown(h, d->N) ? d->N : NULL };
	cJSON *j = cli_json_begin_heap(x, S, h, R);
	cli_json_u64(j, "depth", (uint64_t)o->depth);
	cJSON_AddBoolToObject(j, "grouped", o->group == GROUP_CLASS);
	if (o->group > GROUP_CLASS)
		cJSON_AddStringToObject(j, "group", cli_choice_name(groups, o->group));
	cJSON_AddStringToObject(j, "sort", cli_choice_name(sorts, c.sort));
	if (o->heap)
		cJSON_AddStringToObject(j, "heap", o->heap);
	if (o->root)
		cJSON_AddItemToObject(j, "root", cli_object_json(h, d->root));
	cJSON *tot = cJSON_AddObjectToObject(j, "total");
	cli_json_u64(tot, "objects", h->nobj);
	cli_json_u64(tot, "shallow", all);
	cli_json_u64(tot, "reachable_objects", R->reachable);
	cli_json_u64(tot, "reachable_shallow", R->reachable_bytes);
	cli_json_u64(tot, "unreachable_objects", R->unreachable);
	cli_json_u64(tot, "unreachable_shallow", R->unreachable_bytes);
	if (c.N) {
		cli_json_u64(tot, "native", d->N->total);
		cli_json_u64(tot, "reachable_native", d->N->held_native);
	}
	cli_json_native(j, h, d->N);
	cJSON *arr = cJSON_AddArrayToObject(j, "dominators");
	*doc = j;
	tables_init(&c);
	c.G = d->grouped ? &d->G : NULL;
	int rc = c.G ? show_groups(&c, arr, j) : show(&c, &d->root, 1, 0, arr, j);
	if (rc == EXIT_NOMEM)
		cli_error("out of memory");
	return rc;
}

static int text(struct cli_ctx *x, hp_session *S, void *res, FILE *f)
{
	struct dom_result *d = res;
	const hp_heap *h = d->h;
	const struct hp_retained *R = d->R;
	uint64_t all = R->reachable_bytes + R->unreachable_bytes;
	const struct dom_opts *o = x->own;
	struct dctx c = { .x = x, .o = o, .h = h, .R = R, .flt = d->flt, .total = all, .f = f,
			  .heap = d->heap, .sort = o->sort, .N = cli_native_shown(h, d->N) ? d->N : NULL };
	char a[48], b[32], dd[48], e[32];
	cli_partial_note(f, S);
	tables_init(&c);
	cli_table_header(&c.tb, f);
	c.G = d->grouped ? &d->G : NULL;
	int rc = c.G ? show_groups(&c, NULL, NULL) : show(&c, &d->root, 1, 0, NULL, NULL);
	fprintf(f, "heap: %s, %s; unreachable %s, %s (weak %s, roots %s)\n",
		cli_fmt_counted(h->nobj, "object", "objects", a, sizeof a), cli_fmt_bytes(all, b, sizeof b),
		cli_fmt_counted(R->unreachable, "object", "objects", dd, sizeof dd), cli_fmt_bytes(R->unreachable_bytes, e, sizeof e),
		hp_weak_policy_name(R->weak), cli_roots_policy_name(R->roots_policy));
	if (c.N)
		fprintf(f, "native: %s registered, %s of it held by GC roots\n", cli_fmt_bytes(d->N->total, a, sizeof a),
			cli_fmt_bytes(d->N->held_native, b, sizeof b));
	if (rc == EXIT_NOMEM)
		cli_error("out of memory");
	return rc;
}

static void after(struct cli_ctx *x, hp_session *S, void *res)
{
	(void)S;
	const struct dom_result *d = res;
	if (d && d->h)
		cli_native_note(x, d->h, d->N);
}

static const struct cli_rule rules_root[] = {
	RULE_EXCLUDES("--root", "--group=package", "the groups are the top level's"),
	RULE_EXCLUDES("--root", "--group=loader", "the groups are the top level's"),
	RULE_END
};

CLI_COMMAND(dominators, "hprofan dominators FILE", "the top of the dominator tree",
	    CLI_FILES(1, 1), CLI_ANSWERS, CLI_OWN(struct dom_opts, defaults), .after = after,
	    CLI_TABLES(own, cli_opts_filter, cli_opts_model, cli_opts_policy, cli_opts_load, cli_opts_output, cli_opts_quiet),
	    CLI_RULES(cli_rules_components, rules_root));
