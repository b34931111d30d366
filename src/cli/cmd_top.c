/* hprofan [top] FILE: the class histogram, with retained sizes per class
 * (one more pass) or, with --fast or from a pipe, shallow sizes from one
 * streaming pass. */
#include "cli/command.h"
#include "cli/msg.h"
#include "cli/format.h"
#include "cli/filter.h"
#include "cli/load.h"
#include "cli/output.h"
#include "cli/objtext.h"
#include "analysis/group.h"
#include "analysis/buckets.h"
#include "analysis/threads.h"
#include "base/text.h"
#include "base/alloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* --sort: SORT_DEFAULT when not given (retained, or shallow without them) */
enum { SORT_DEFAULT = 0, SORT_RETAINED, SORT_SHALLOW, SORT_COUNT, SORT_NAME };
static const struct cli_choice sorts[] = {
	{ "retained", SORT_RETAINED, "default" },
	{ "shallow", SORT_SHALLOW, "default with --fast" },
	{ "count", SORT_COUNT, NULL },
	{ "name", SORT_NAME, NULL },
	{ NULL, 0, NULL }
};

static const struct cli_choice groups[] = {
	{ "package", HP_GROUP_PACKAGE, NULL },
	{ "loader", HP_GROUP_LOADER, NULL },
	{ "component", HP_GROUP_COMPONENT, NULL },
	{ NULL, 0, NULL }
};

struct top_opts {
	struct cli_count top;
	int sort;
	const char *heap;
	int group;                /* --group: enum hp_group_by, -1 not given */
	const char *components;   /* --components FILE */
	int depth;                /* --depth D (packages), 0 not given */
	int fast, retained_set;
	int buckets;              /* --buckets: objects by size bucket per class */
	int by_thread;            /* --by-thread: retained memory per thread */
};

static void defaults(void *own)
{
	struct top_opts *o = own;
	o->top.n = 20;
	o->group = -1;
}

static int set_depth(const struct cli_option *o, const char *as, const char *val, void *dst)
{
	char *e;
	errno = 0;
	unsigned long d = strtoul(val, &e, 10);
	if (*val < '0' || *val > '9' || *e || errno || d < 1 || d > 100000)
		return cli_usage_error(NULL, "--depth %s: expected a number of levels from 1", val);
	*(int *)dst = (int)d;
	return EXIT_OK;
}

#define OWN(field) OPT_OWN(struct top_opts, field)
static const struct cli_option own[] = {
	OPT_TOP("show the N largest rows (default 20; 0 shows all)", OWN(top)),
	OPT_SORT(sorts, NULL, OWN(sort)),
	OPT_FAST("shallow sizes only, in one streaming pass", OWN(fast)),
	OPT_HEAP("Android: only the objects of heap NAME (app, zygote, image)", OWN(heap)),
	OPT_BOOL("--retained-set",
		 "also the retained set of all objects of the rows\nselected (what would be freed without them)", OWN(retained_set)),
	OPT_GROUP(groups, "rows by package (a tree, see --depth), by defining\nloader or by component (--components)", OWN(group)),
	OPT_DEPTH(set_depth, "--group=package: levels of the package tree to show\n(default 1: com, org, java)",
		  "needs a number of levels", OWN(depth)),
	OPT_COMPONENTS("components for --group=component (the default with it):\nlines NAME REGEX, a class in the first whose REGEX\nmatches its name, the others in \"other\"", OWN(components)),
	OPT_BOOL("--buckets",
		 "per class, how its objects and bytes spread over size\nbuckets (<=16 B, <=32 B, ... <=1 MiB, >1 MiB)", OWN(buckets)),
	OPT_BOOL("--by-thread",
		 "rows per thread instead of classes: the objects each\nthread's Thread object or stack locals dominate, the rest\nshared or unreachable", OWN(by_thread)),
	OPT_END
};
#undef OWN

/* --by-thread counts each object once, by thread; --buckets and
 * --retained-set are columns of the class table */
#define BY_THREAD_NOT(b) RULE_EXCLUDES("--by-thread", b, "it counts every object once, by thread")
static const struct cli_rule rules[] = {
	RULE_NEEDS("--depth", "--group=package", "it opens the package tree"),
	BY_THREAD_NOT("--group"), BY_THREAD_NOT("--components"), BY_THREAD_NOT("--buckets"),
	BY_THREAD_NOT("--retained-set"), BY_THREAD_NOT("--filter"), BY_THREAD_NOT("--exclude"), BY_THREAD_NOT("--heap"),
	RULE_EXCLUDES("--buckets", "--fast", "it needs the object table"),
	RULE_EXCLUDES("--buckets", "--group", "it goes with the class table"),
	RULE_EXCLUDES("--buckets", "--components", "it goes with the class table"),
	RULE_EXCLUDES("--retained-set", "--group", "it goes with the class table"),
	RULE_EXCLUDES("--retained-set", "--components", "it goes with the class table"),
	RULE_END
};
#undef BY_THREAD_NOT

struct trow {
	const struct hp_hrow *r;
	const char *name;
	const char *heap;
	uint64_t count, shallow, retained;
	uint64_t native, native_retained;   /* registered native bytes (native.h) */
};

struct top_result {
	const hp_heap *h;
	const struct hp_retained *R;  /* NULL: shallow sizes only */
	const struct hp_native *N;    /* with retained sizes: native sizes, else NULL */
	int native_cols;              /* some native size was found: the columns are shown */
	int heap_filter;              /* --heap: its index, else -1 */
	uint64_t tot_native;
	int sort;                     /* SORT_* */
	int android;
	struct trow *rows;
	size_t n, shown;
	uint64_t tot_count, tot_shallow, all_shallow;
	uint64_t set_in, set_objs, set_bytes;   /* --retained-set */
	/* --group */
	int by;                   /* enum hp_group_by, -1: classes */
	unsigned depth;
	struct hp_groups G;
	uint32_t *order;          /* the groups shown, in the order shown */
	uint32_t *rank;           /* their rank among their siblings */
	size_t norder;
	size_t ntop;              /* top-level groups */
	int cut;                  /* --top left groups out of a level */
	uint32_t *child_off, *child; /* packages: children of g at child[child_off[g] .. child_off[g+1]) */
	struct cli_components comps;
	struct hp_bucket_row *buckets;   /* --buckets: per histogram row */
	struct hp_bucket_row bucket_total;   /* over the rows of the table (t->n) */
	int by_thread;
	struct hp_threads_mem M;  /* --by-thread */
	struct hp_text *names;    /* per row of M.t */
};

static int by_retained(const void *a, const void *b)
{
	const struct trow *x = a, *y = b;
	if (x->retained != y->retained)
		return x->retained < y->retained ? 1 : -1;
	if (x->shallow != y->shallow)
		return x->shallow < y->shallow ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int by_shallow(const void *a, const void *b)
{
	const struct trow *x = a, *y = b;
	if (x->shallow != y->shallow)
		return x->shallow < y->shallow ? 1 : -1;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int by_count(const void *a, const void *b)
{
	const struct trow *x = a, *y = b;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	if (x->shallow != y->shallow)
		return x->shallow < y->shallow ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int by_name(const void *a, const void *b)
{
	const struct trow *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : strcmp(x->heap, y->heap);
}

static void release(void *p)
{
	struct top_result *t = p;
	if (!t)
		return;
	hp_free(t->rows);
	hp_groups_release(&t->G);
	hp_free(t->order);
	hp_free(t->rank);
	hp_free(t->child_off);
	hp_free(t->child);
	cli_components_release(&t->comps);
	hp_free(t->buckets);
	if (t->names)
		for (size_t i = 0; i < t->M.n; i++)
			hp_objread_text_release(&t->names[i]);
	hp_free(t->names);
	hp_threads_mem_release(&t->M);
	hp_free(t);
}

/* the retained set of everything the selected rows hold */
static int retained_set(hp_session *S, struct top_result *t)
{
	const hp_heap *h = t->h;
	uint8_t *sel = hp_calloc(h->nrows ? h->nrows : 1, 1);
	uint8_t *in_set = hp_calloc(h->nobj ? h->nobj : 1, 1);
	struct hp_error err;
	hp_error_clear(&err);
	if (!sel || !in_set) {
		hp_free(sel);
		hp_free(in_set);
		cli_error("out of memory");
		return EXIT_NOMEM;
	}
	for (size_t i = 0; i < t->n; i++)
		sel[t->rows[i].r - h->rows] = 1;
	for (size_t v = 0; v < h->nobj; v++) {
		uint32_t r = hp_heap_row_of(h, h->cls[v], hp_heap_heap(h, v));
		if (r != HP_NONE && sel[r]) {
			in_set[v] = 1;
			t->set_in++;
		}
	}
	int src = hp_retained_set(h, t->R, in_set, &t->set_objs, &t->set_bytes, &err);
	hp_free(sel);
	hp_free(in_set);
	if (src) {
		cli_error("%s: %s", hp_session_path(S), err.msg);
		cli_error("out of memory");
		return EXIT_NOMEM;
	}
	return EXIT_OK;
}

/* ---- --group ----------------------------------------------------------- */

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

static int collect_groups(struct cli_ctx *x, hp_session *S, struct top_result *t, struct cli_filter *flt,
			  int heap_filter, int (*cmp)(const struct hp_group *, const struct hp_group *))
{
	const struct top_opts *o = x->own;
	const hp_heap *h = t->h;
	int rc = EXIT_OK;
	uint8_t *row_in = NULL;
	struct hp_error err;
	hp_error_clear(&err);
	if (flt || heap_filter >= 0) {
		if (!(row_in = hp_calloc(h->nrows ? h->nrows : 1, 1))) {
			cli_error("out of memory");
			return EXIT_NOMEM;
		}
		for (size_t i = 0; i < h->nrows; i++) {
			const struct hp_hrow *r = &h->rows[i];
			if (!(r->count + r->class_objs) || (heap_filter >= 0 && r->heap != heap_filter))
				continue;
			int m = cli_filter_match(flt, hp_class_name(h, r->cls));
			if (m < 0) {
				rc = EXIT_USAGE;
				goto out;
			}
			row_in[i] = (uint8_t)m;
		}
	}
	if (t->by == HP_GROUP_COMPONENT && (rc = cli_components_read(o->components, h, &t->comps)))
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
	if ((rc = group_order(t, cmp, o->top.n > 0 ? (size_t)o->top.n : 0))) {
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

static int collect(struct cli_ctx *x, hp_session *S, void **res)
{
	const struct top_opts *o = x->own;
	int with_ret = !o->fast;
	if (with_ret && hp_session_one_shot(S) && hp_session_rereadable(S)) {
		/* a pipe: read now, kept for the second read; when no copy of
		 * it could be kept, shallow sizes (below), else an error says
		 * what failed */
		const struct hp_retained *R0;
		const hp_heap *h0;
		struct hp_error e0;
		hp_error_clear(&e0);
		if (hp_session_retained(S, &R0, &e0) != HP_OK && hp_session_model(S, &h0, &e0) != HP_OK)
			return cli_retained(S, &h0, &R0);
	}
	if (with_ret && !hp_session_rereadable(S)) {
		cli_spool_note(S);
		with_ret = 0;
		if (!x->c->quiet)
			cli_warn("reading from a pipe: shallow sizes only (retained sizes need to read the file again; --fast says this is fine)");
	}
	int sort = o->sort ? o->sort : with_ret ? SORT_RETAINED : SORT_SHALLOW;
	if (sort == SORT_RETAINED && !with_ret) {
		cli_error("--sort=retained needs retained sizes (not with --fast or a pipe)");
		return EXIT_USAGE;
	}
	int (*cmp)(const void *, const void *) = sort == SORT_RETAINED ? by_retained : sort == SORT_SHALLOW ? by_shallow
						 : sort == SORT_COUNT ? by_count : by_name;
	/* the rules (rules[], cli_rules_components) hold: --components alone is
	 * --group=component, --depth comes with --group=package */
	int by = o->group >= 0 ? o->group : o->components ? HP_GROUP_COMPONENT : -1;
	unsigned depth = o->depth ? (unsigned)o->depth : 1;
	int (*gcmp)(const struct hp_group *, const struct hp_group *) =
		cmp == by_retained ? g_retained : cmp == by_shallow ? g_shallow : cmp == by_count ? g_count : g_name;
	if (o->by_thread && !with_ret) {
		cli_error("--by-thread needs retained sizes (not with --fast or a pipe)");
		return EXIT_USAGE;
	}
	int rc;
	struct cli_filter *flt = NULL;
	if ((x->c->filter || x->c->exclude) && !(flt = cli_filter_new(x->c->filter, x->c->exclude, &rc)))
		return rc;
	struct top_result *t = hp_calloc(1, sizeof *t);
	if (!t) {
		cli_filter_free(flt);
		cli_error("out of memory");
		return EXIT_NOMEM;
	}
	*res = t;
	t->sort = sort;
	t->by = by;
	t->depth = depth;
	/* --buckets reads the object table (also from a pipe: one pass) */
	/* the class table shows only the sums: from an index, no tree is read */
	int sums_only = !o->retained_set && by < 0 && !o->by_thread;
	rc = with_ret ? (sums_only ? cli_retained_sums : cli_retained)(S, &t->h, &t->R)
		      : o->buckets ? cli_model(S, &t->h) : cli_histogram(S, &t->h);
	if (!rc && with_ret)
		rc = cli_native(S, 1, &t->N);
	if (rc)
		goto out;
	t->native_cols = cli_native_shown(t->h, t->N);
	const hp_heap *h = t->h;
	t->android = hp_heap_android(h);
	int heap_filter = -1;
	t->heap_filter = -1;
	if (o->heap && (heap_filter = cli_heap_named(h, hp_session_path(S), o->heap, &rc)) < 0)
		goto out;
	t->heap_filter = heap_filter;
	cli_filter_check(flt, h, hp_session_path(S));
	t->rows = hp_reallocarray(NULL, h->nrows ? h->nrows : 1, sizeof *t->rows);
	if (!t->rows) {
		cli_error("out of memory");
		rc = EXIT_NOMEM;
		goto out;
	}
	for (size_t i = 0; i < h->nrows; i++) {
		const struct hp_hrow *r = &h->rows[i];
		uint64_t cnt = r->count + r->class_objs;
		if (!cnt)
			continue;
		if (heap_filter >= 0 && r->heap != heap_filter)
			continue;
		t->all_shallow += r->shallow;
		const char *name = hp_class_name(h, r->cls);
		int m = cli_filter_match(flt, name);
		if (m < 0) {
			rc = EXIT_USAGE;
			goto out;
		}
		if (!m)
			continue;
		struct trow *w = &t->rows[t->n++];
		w->r = r;
		w->name = name;
		w->heap = hp_heap_name(h, r->heap);
		w->count = cnt;
		w->shallow = r->shallow;
		w->retained = t->R ? t->R->row_retained[i] : 0;
		w->native = t->native_cols ? t->N->row_shallow[i] : 0;
		w->native_retained = t->native_cols && t->N->row_retained ? t->N->row_retained[i] : 0;
		t->tot_native += w->native;
		t->tot_count += cnt;
		t->tot_shallow += r->shallow;
	}
	if (o->buckets) {
		if (!(t->buckets = hp_reallocarray(NULL, h->nrows ? h->nrows : 1, sizeof *t->buckets))) {
			cli_error("out of memory");
			rc = EXIT_NOMEM;
			goto out;
		}
		hp_buckets_collect(h, t->buckets);
		for (size_t i = 0; i < t->n; i++)
			for (unsigned k = 0; k < HP_NBUCKETS; k++) {
				t->bucket_total.count[k] += t->buckets[t->rows[i].r - h->rows].count[k];
				t->bucket_total.bytes[k] += t->buckets[t->rows[i].r - h->rows].bytes[k];
			}
	}
	if (o->retained_set) {
		if (!t->R) {
			cli_error("--retained-set needs retained sizes (not with --fast or a pipe)");
			rc = EXIT_USAGE;
			goto out;
		}
		if ((rc = retained_set(S, t)))
			goto out;
	}
	if (by >= 0) {
		rc = collect_groups(x, S, t, flt, heap_filter, gcmp);
		goto out;
	}
	if (o->by_thread) {
		t->by_thread = 1;
		hp_objread *rd = NULL;
		struct hp_error err;
		hp_error_clear(&err);
		if ((rc = cli_objread(S, &rd)))
			goto out;
		if (hp_threads_memory(h, t->R, &t->M, &err) != HP_OK) {
			cli_error("%s: %s", hp_session_path(S), err.msg);
			rc = EXIT_NOMEM;
			goto out;
		}
		if (!(t->names = hp_calloc(t->M.n ? t->M.n : 1, sizeof *t->names))) {
			cli_error("out of memory");
			rc = EXIT_NOMEM;
			goto out;
		}
		for (size_t i = 0; i < t->M.n; i++)
			cli_thread_text(h, rd, h->threads[t->M.t[i].rec].serial, &t->names[i]);
		t->shown = o->top.n > 0 && (size_t)o->top.n < t->M.n ? (size_t)o->top.n : t->M.n;
		goto out;
	}
	qsort(t->rows, t->n, sizeof *t->rows, cmp);
	t->shown = o->top.n > 0 && (size_t)o->top.n < t->n ? (size_t)o->top.n : t->n;
out:
	cli_filter_free(flt);
	return rc;
}

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

static double pct2(uint64_t v, uint64_t base)
{
	return base ? (double)(int64_t)(10000.0 * v / base) / 100.0 : 0.0;
}

static cJSON *json_group(const struct top_result *t, size_t *i)
{
	const struct hp_groups *G = &t->G;
	const struct hp_group *g = &G->g[t->order[*i]];
	char lb[1024];
	cJSON *e = cJSON_CreateObject();
	cli_json_u64(e, "rank", t->rank[*i]);
	if (t->by == HP_GROUP_PACKAGE) {
		/* the whole name, however long */
		char *pk = hp_malloc((size_t)g->pkg_len + 1);
		if (pk) {
			memcpy(pk, g->pkg, g->pkg_len);
			pk[g->pkg_len] = 0;
		}
		cJSON_AddStringToObject(e, "name", !pk ? "?" : g->pkg_len ? pk : "(no package)");
		cJSON_AddStringToObject(e, "package", pk ? pk : "?");
		hp_free(pk);
	} else {
		cJSON_AddStringToObject(e, "name", group_label(t, g, lb, sizeof lb));
	}
	if (t->by == HP_GROUP_PACKAGE) {
		cli_json_u64(e, "depth", g->depth);
		cli_json_u64(e, "subpackages", g->nchildren);
	}
	if (t->by == HP_GROUP_LOADER) {
		cli_json_u64(e, "loader_id", g->loader_id);
		if (g->loader_class != HP_NONE)
			cJSON_AddStringToObject(e, "loader_class", hp_class_name(t->h, g->loader_class));
		if (g->has_loader_name)
			cJSON_AddStringToObject(e, "loader_name", G->text + g->name);
		cli_json_u64(e, "defined", g->defined);
		cli_json_u64(e, "duplicates", g->duplicates);
	}
	cli_json_u64(e, "classes", g->classes);
	cli_json_u64(e, "instances", g->instances);
	cli_json_u64(e, "shallow", g->shallow);
	if (G->retained)
		cli_json_u64(e, "retained", g->retained);
	cJSON_AddNumberToObject(e, "percent", pct2(g->shallow, t->all_shallow));
	/* the subpackages shown follow it in order[] */
	uint32_t me = t->order[*i];
	(*i)++;
	if (t->by == HP_GROUP_PACKAGE && *i < t->norder && G->g[t->order[*i]].parent == me) {
		cJSON *sub = cJSON_AddArrayToObject(e, "packages");
		while (*i < t->norder && G->g[t->order[*i]].parent == me)
			cJSON_AddItemToArray(sub, json_group(t, i));
	}
	return e;
}

static void json_groups(const struct top_result *t, cJSON *j)
{
	cJSON_AddStringToObject(j, "group", cli_choice_name(groups, t->by));
	if (t->by == HP_GROUP_PACKAGE)
		cli_json_u64(j, "depth", t->depth);
	cli_json_u64(j, "groups_total", t->ntop);
	cJSON *arr = cJSON_AddArrayToObject(j, "groups");
	size_t i = 0;
	while (i < t->norder)
		cJSON_AddItemToArray(arr, json_group(t, &i));
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

static void text_groups(const struct top_result *t, FILE *f)
{
	const struct hp_groups *G = &t->G;
	char a[32], b[32], c[32], lb[1024], nm[1024];
	int cw = 9;
	for (size_t i = 0; i < t->norder; i++) {
		int l = (int)strlen(cli_fmt_count(G->g[t->order[i]].instances, a, sizeof a));
		if (l > cw)
			cw = l;
	}
	int loaders = t->by == HP_GROUP_LOADER;
	fprintf(f, "%5s  %7s", "rank", "classes");
	if (loaders)
		fprintf(f, "  %7s", "defined");
	fprintf(f, "  %*s  %10s  %6s", cw, "instances", "shallow", "%");
	if (G->retained)
		fprintf(f, "  %10s  %6s", "retained", "%");
	fprintf(f, "  %s\n", cli_choice_name(groups, t->by));
	for (size_t i = 0; i < t->norder; i++) {
		const struct hp_group *g = &G->g[t->order[i]];
		fprintf(f, "%5u  %7s", t->rank[i], cli_fmt_count(g->classes, c, sizeof c));
		if (loaders)
			fprintf(f, "  %7s", cli_fmt_count(g->defined, c, sizeof c));
		fprintf(f, "  %*s  %10s  %5.1f%%", cw, cli_fmt_count(g->instances, a, sizeof a),
			cli_fmt_bytes(g->shallow, b, sizeof b), t->all_shallow ? 100.0 * g->shallow / t->all_shallow : 0.0);
		if (G->retained)
			fprintf(f, "  %10s  %5.1f%%", cli_fmt_bytes(g->retained, b, sizeof b),
				t->all_shallow ? 100.0 * g->retained / t->all_shallow : 0.0);
		int ind = t->by == HP_GROUP_PACKAGE ? 2 * (int)(g->depth - 1) : 0;
		fprintf(f, "  %*s%s", ind > 200 ? 200 : ind, "", hp_text_safe(group_label(t, g, lb, sizeof lb), nm, sizeof nm));
		if (loaders && g->has_loader_name)
			fprintf(f, " \"%s\"", hp_text_safe(G->text + g->name, nm, sizeof nm));
		fprintf(f, "\n");
	}
	char c1[48], c2[48];
	fprintf(f, "%5s  %7s", "total", cli_fmt_count(t->n, c, sizeof c));
	if (loaders)
		fprintf(f, "  %7s", "");
	fprintf(f, "  %*s  %10s  %5.1f%%", cw, cli_fmt_count(t->tot_count, a, sizeof a), cli_fmt_bytes(t->tot_shallow, b, sizeof b),
		t->all_shallow ? 100.0 * t->tot_shallow / t->all_shallow : 0.0);
	if (G->retained)
		fprintf(f, "  %10s  %6s", "", "");
	static const char *const one[] = { "package", "class loader", "component" };
	static const char *const many[] = { "packages", "class loaders", "components" };
	fprintf(f, "  %s", cli_fmt_counted(t->ntop, one[t->by], many[t->by], c1, sizeof c1));
	if (t->by == HP_GROUP_PACKAGE)
		fprintf(f, " at the top (%s in all, %u level%s shown)", cli_fmt_counted(G->n, "package", "packages", c2, sizeof c2),
			t->depth, t->depth == 1 ? "" : "s");
	if (t->by == HP_GROUP_COMPONENT)
		fprintf(f, " (with \"other\")");
	fprintf(f, "%s; %s\n", t->cut ? ", top rows shown" : "", cli_fmt_counted(t->n, "class", "classes", c2, sizeof c2));
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

/* ---- --by-thread -------------------------------------------------------- */

static void json_threads(const struct top_result *t, cJSON *j)
{
	const hp_heap *h = t->h;
	const struct hp_threads_mem *M = &t->M;
	cJSON *arr = cJSON_AddArrayToObject(j, "threads");
	uint64_t mo = 0, mb = 0;
	for (size_t i = 0; i < M->n; i++) {
		const struct hp_thread_mem *m = &M->t[i];
		if (i >= t->shown) {
			mo += m->objects;
			mb += m->bytes;
			continue;
		}
		cJSON *e = cJSON_CreateObject();
		cli_json_u64(e, "rank", i + 1);
		cli_json_u64(e, "serial", h->threads[m->rec].serial);
		if (t->names[i].utf8)
			cJSON_AddItemToObject(e, "name", cli_text_json(&t->names[i]));
		if (m->obj != SIZE_MAX) {
			char id[32];
			snprintf(id, sizeof id, "0x%llx", (unsigned long long)h->ids[m->obj]);
			cJSON_AddStringToObject(e, "object", id);
		}
		cli_json_u64(e, "objects", m->objects);
		cli_json_u64(e, "bytes", m->bytes);
		cJSON_AddNumberToObject(e, "percent", pct2(m->bytes, M->bytes));
		cJSON_AddItemToArray(arr, e);
	}
	cJSON *r = cJSON_AddObjectToObject(j, "thread_rest");
	cli_json_u64(r, "threads_not_shown", M->n - t->shown);
	cli_json_u64(r, "not_shown_objects", mo);
	cli_json_u64(r, "not_shown_bytes", mb);
	cli_json_u64(r, "shared_objects", M->shared_objects);
	cli_json_u64(r, "shared_bytes", M->shared_bytes);
	cli_json_u64(r, "unreachable_objects", M->unreachable_objects);
	cli_json_u64(r, "unreachable_bytes", M->unreachable_bytes);
	cli_json_u64(r, "objects", M->objects);
	cli_json_u64(r, "bytes", M->bytes);
}

static void text_threads(const struct top_result *t, FILE *f)
{
	const hp_heap *h = t->h;
	const struct hp_threads_mem *M = &t->M;
	char a[32], b[32], c[32], nm[1024];
	fprintf(f, "%5s  %10s  %10s  %6s  %s\n", "rank", "objects", "retained", "%", "thread");
	uint64_t mo = 0, mb = 0;
	for (size_t i = 0; i < M->n; i++) {
		const struct hp_thread_mem *m = &M->t[i];
		if (i >= t->shown) {
			mo += m->objects;
			mb += m->bytes;
			continue;
		}
		fprintf(f, "%5zu  %10s  %10s  %5.1f%%  ", i + 1, cli_fmt_count(m->objects, a, sizeof a), cli_fmt_bytes(m->bytes, b, sizeof b),
			M->bytes ? 100.0 * m->bytes / M->bytes : 0.0);
		if (t->names[i].utf8) {
			char *q = cli_quote_text(&t->names[i]);
			fprintf(f, "%s", q ? q : "?");
			hp_free(q);
		} else {
			fprintf(f, "(no name)");
		}
		fprintf(f, " serial %u", h->threads[m->rec].serial);
		if (m->obj != SIZE_MAX)
			fprintf(f, "  %s @0x%llx", hp_text_safe(hp_class_name(h, h->cls[m->obj]), nm, sizeof nm),
				(unsigned long long)h->ids[m->obj]);
		else
			fprintf(f, "  (no Thread object in the dump)");
		fprintf(f, "\n");
	}
	if (t->shown < M->n)
		fprintf(f, "%5s  %10s  %10s  %5.1f%%  \xe2\x80\xa6 %s more %s\n", "", cli_fmt_count(mo, a, sizeof a), cli_fmt_bytes(mb, b, sizeof b),
			M->bytes ? 100.0 * mb / M->bytes : 0.0, cli_fmt_count(M->n - t->shown, c, sizeof c),
			M->n - t->shown == 1 ? "thread" : "threads");
	fprintf(f, "%5s  %10s  %10s  %5.1f%%  shared/no thread (reachable, dominated by no thread)\n", "",
		cli_fmt_count(M->shared_objects, a, sizeof a), cli_fmt_bytes(M->shared_bytes, b, sizeof b),
		M->bytes ? 100.0 * M->shared_bytes / M->bytes : 0.0);
	fprintf(f, "%5s  %10s  %10s  %5.1f%%  unreachable\n", "", cli_fmt_count(M->unreachable_objects, a, sizeof a),
		cli_fmt_bytes(M->unreachable_bytes, b, sizeof b), M->bytes ? 100.0 * M->unreachable_bytes / M->bytes : 0.0);
	fprintf(f, "%5s  %10s  %10s  %5.1f%%  %s (weak %s, roots %s)\n", "total", cli_fmt_count(M->objects, a, sizeof a),
		cli_fmt_bytes(M->bytes, b, sizeof b), 100.0, cli_fmt_counted(M->n, "thread", "threads", c, sizeof c),
		hp_weak_policy_name(t->R->weak), cli_roots_policy_name(t->R->roots_policy));
}

/* ---- --buckets ---------------------------------------------------------- */

/* "≤16 B", "≤1 KiB", ">1 MiB" */
static const char *bucket_label(unsigned k, char *buf, size_t n)
{
	static const char *const unit[] = { "B", "KiB", "MiB" };
	uint64_t v = k == HP_NBUCKETS - 1 ? 1 << 20 : 16ull << k;
	unsigned u = 0;
	while (v >= 1024 && u < 2) {
		v /= 1024;
		u++;
	}
	snprintf(buf, n, "%s%llu %s", k == HP_NBUCKETS - 1 ? ">" : "\xe2\x89\xa4", (unsigned long long)v, unit[u]);
	return buf;
}

static cJSON *json_buckets(const struct hp_bucket_row *b)
{
	cJSON *arr = cJSON_CreateArray();
	for (unsigned k = 0; k < HP_NBUCKETS; k++) {
		if (!b->count[k])
			continue;
		cJSON *e = cJSON_CreateObject();
		cli_json_u64(e, "above", k ? 16ull << (k - 1) : 0);
		if (k < HP_NBUCKETS - 1)
			cli_json_u64(e, "upto", 16ull << k);
		cli_json_u64(e, "instances", b->count[k]);
		cli_json_u64(e, "bytes", b->bytes[k]);
		cJSON_AddItemToArray(arr, e);
	}
	return arr;
}

/* "      sizes: ≤16 B 1,204 (18.8 KiB), >1 MiB 1 (1.50 MiB)": every non-empty bucket */
static void text_buckets(const char *what, const struct hp_bucket_row *b, FILE *f)
{
	char l[32], a[32], c[32];
	fprintf(f, "%5s  %s:", "", what);
	int first = 1;
	for (unsigned k = 0; k < HP_NBUCKETS; k++) {
		if (!b->count[k])
			continue;
		fprintf(f, "%s %s %s (%s)", first ? "" : ",", bucket_label(k, l, sizeof l), cli_fmt_count(b->count[k], a, sizeof a),
			cli_fmt_bytes(b->bytes[k], c, sizeof c));
		first = 0;
	}
	fprintf(f, "%s\n", first ? " none" : "");
}

static int json(struct cli_ctx *x, hp_session *S, void *res, cJSON **doc)
{
	const struct top_opts *o = x->own;
	const struct top_result *t = res;
	const hp_heap *h = t->h;
	cJSON *j = cli_json_begin(x, hp_session_path(S), S);
	cJSON_AddItemToObject(j, "size_model", cli_json_size_model(h));
	cJSON_AddStringToObject(j, "sort", cli_choice_name(sorts, t->sort));
	cJSON_AddBoolToObject(j, "retained_sizes", t->R != NULL);
	if (t->R)
		cli_json_policies(j, t->R);
	if (x->c->filter)
		cJSON_AddStringToObject(j, "filter", x->c->filter);
	if (x->c->exclude)
		cJSON_AddStringToObject(j, "exclude", x->c->exclude);
	if (o->heap)
		cJSON_AddStringToObject(j, "heap", o->heap);
	cJSON *tot = cJSON_AddObjectToObject(j, "total");
	cli_json_u64(tot, "classes", t->n);
	cli_json_u64(tot, "instances", t->tot_count);
	cli_json_u64(tot, "shallow", t->tot_shallow);
	cli_json_u64(tot, "heap_shallow", t->all_shallow);
	if (t->R) {
		cli_json_u64(tot, "reachable_objects", t->R->reachable);
		cli_json_u64(tot, "reachable_shallow", t->R->reachable_bytes);
		cli_json_u64(tot, "unreachable_objects", t->R->unreachable);
		cli_json_u64(tot, "unreachable_shallow", t->R->unreachable_bytes);
	}
	if (t->buckets)
		cJSON_AddItemToObject(tot, "buckets", json_buckets(&t->bucket_total));
	if (t->native_cols)
		cli_json_u64(tot, "native", t->tot_native);
	cli_json_heap_split(j, h, t->N, t->heap_filter);
	cli_json_native(j, h, t->N);
	cli_json_u64(j, "shown", t->shown);
	if (o->retained_set) {
		cJSON *rs = cJSON_AddObjectToObject(j, "retained_set");
		cli_json_u64(rs, "objects_in_set", t->set_in);
		cli_json_u64(rs, "objects", t->set_objs);
		cli_json_u64(rs, "shallow", t->set_bytes);
	}
	if (t->by >= 0)
		json_groups(t, j);
	if (t->by_thread)
		json_threads(t, j);
	int classes = t->by < 0 && !t->by_thread;
	cJSON *arr = !classes ? NULL : cJSON_AddArrayToObject(j, "classes");
	for (size_t i = 0; classes && i < t->shown; i++) {
		const struct trow *r = &t->rows[i];
		cJSON *e = cJSON_CreateObject();
		cli_json_u64(e, "rank", i + 1);
		cJSON_AddStringToObject(e, "class", r->name);
		if (t->android)
			cJSON_AddStringToObject(e, "heap", r->heap);
		cli_json_u64(e, "instances", r->count);
		cli_json_u64(e, "shallow", r->shallow);
		if (t->R)
			cli_json_u64(e, "retained", r->retained);
		if (t->native_cols) {
			cli_json_u64(e, "native", r->native);
			cli_json_u64(e, "retained_native", r->native_retained);
		}
		cli_json_u64(e, "largest", r->r->max_shallow);
		cJSON_AddNumberToObject(e, "percent",
			t->all_shallow ? (double)(int64_t)(10000.0 * r->shallow / t->all_shallow) / 100.0 : 0.0);
		if (t->buckets)
			cJSON_AddItemToObject(e, "buckets", json_buckets(&t->buckets[r->r - h->rows]));
		cJSON_AddItemToArray(arr, e);
	}
	cJSON *w = cJSON_AddArrayToObject(j, "warnings");
	for (size_t i = 0; i < h->nwarnings; i++)
		cJSON_AddItemToArray(w, cJSON_CreateString(hp_heap_warning(h, i)));
	*doc = j;
	return EXIT_OK;
}

static int text(struct cli_ctx *x, hp_session *S, void *res, FILE *f)
{
	const struct top_opts *o = x->own;
	const struct top_result *t = res;
	const hp_heap *h = t->h;
	const struct hp_retained *R = t->R;
	char a[32], b[32], nm[1024];
	int cw = 9;     /* width of the instances column */
	for (size_t i = 0; i < t->shown; i++) {
		int l = (int)strlen(cli_fmt_count(t->rows[i].count, a, sizeof a));
		if (l > cw)
			cw = l;
	}
	int hw = 0;
	char hn[256];
	if (t->android) {
		hw = 4;
		for (unsigned i = 0; i < h->nheaps; i++)
			if ((int)strlen(hp_text_safe(hp_heap_name(h, i), hn, sizeof hn)) > hw)
				hw = (int)strlen(hn);
	}
	if (hp_session_load_info(S)->partial)
		fprintf(f, "warning: partial result: the dump could not be read to its end (--salvage)\n");
	if (t->by >= 0) {
		text_groups(t, f);
		goto unreachable;
	}
	if (t->by_thread) {
		text_threads(t, f);
		return EXIT_OK;
	}
	fprintf(f, "%5s  %*s  %10s  %6s", "rank", cw, "instances", "shallow", "%");
	if (R)
		fprintf(f, "  %10s  %6s", "retained", "%");
	if (t->native_cols)
		fprintf(f, "  %10s  %10s", "native", "native ret");
	if (t->android)
		fprintf(f, "  %-*s", hw, "heap");
	fprintf(f, "  %s\n", "class");
	for (size_t i = 0; i < t->shown; i++) {
		const struct trow *r = &t->rows[i];
		double pct = t->all_shallow ? 100.0 * r->shallow / t->all_shallow : 0;
		hp_text_safe(r->name, nm, sizeof nm);
		fprintf(f, "%5zu  %*s  %10s  %5.1f%%", i + 1, cw, cli_fmt_count(r->count, a, sizeof a),
			cli_fmt_bytes(r->shallow, b, sizeof b), pct);
		if (R)
			fprintf(f, "  %10s  %5.1f%%", cli_fmt_bytes(r->retained, b, sizeof b),
				t->all_shallow ? 100.0 * r->retained / t->all_shallow : 0.0);
		if (t->native_cols)
			fprintf(f, "  %10s  %10s", cli_fmt_bytes(r->native, a, sizeof a), cli_fmt_bytes(r->native_retained, b, sizeof b));
		if (t->android)
			fprintf(f, "  %-*s", hw, hp_text_safe(r->heap, hn, sizeof hn));
		fprintf(f, "  %s\n", nm);
		if (t->buckets)
			text_buckets("sizes", &t->buckets[r->r - h->rows], f);
	}
	char c1[32];
	fprintf(f, "%5s  %*s  %10s  %5.1f%%", "total", cw, cli_fmt_count(t->tot_count, a, sizeof a),
		cli_fmt_bytes(t->tot_shallow, b, sizeof b), t->all_shallow ? 100.0 * t->tot_shallow / t->all_shallow : 0.0);
	if (R)
		fprintf(f, "  %10s  %6s", "", "");
	if (t->native_cols)
		fprintf(f, "  %10s  %10s", cli_fmt_bytes(t->tot_native, a, sizeof a), "");
	if (t->android)
		fprintf(f, "  %-*s", hw, "");
	fprintf(f, "  %s%s (size model %s: ref %u, header %u, align %u)\n", cli_fmt_counted(t->n, "class", "classes", c1, sizeof c1),
		t->shown < t->n ? ", top rows shown" : "", hp_size_kind_name(h->size.kind),
		h->size.ref_size, h->size.header, h->size.align);
	if (t->buckets)
		text_buckets(t->shown < t->n ? "sizes of all the rows" : "sizes", &t->bucket_total, f);
	if (o->retained_set) {
		char u1[48], u2[48], u3[48];
		char rows[64];
		if (t->n == 1)
			snprintf(rows, sizeof rows, "this row");
		else
			snprintf(rows, sizeof rows, "these %s rows", cli_fmt_count(t->n, u3, sizeof u3));
		fprintf(f, "retained set of the %s in %s: %s, %s\n",
			cli_fmt_counted(t->set_in, "object", "objects", u1, sizeof u1), rows,
			cli_fmt_counted(t->set_objs, "object", "objects", u2, sizeof u2), cli_fmt_bytes(t->set_bytes, c1, sizeof c1));
	}
unreachable:
	cli_text_heap_split(f, h, t->N, t->heap_filter);
	if (R) {
		char u1[48], u2[32];
		fprintf(f, "unreachable: %s, %s (not retained by any GC root; references: weak %s, roots %s)\n",
			cli_fmt_counted(R->unreachable, "object", "objects", u1, sizeof u1), cli_fmt_bytes(R->unreachable_bytes, u2, sizeof u2),
			hp_weak_policy_name(R->weak), cli_roots_policy_name(R->roots_policy));
	}
	return EXIT_OK;
}

/* the model's warnings, after the table */
static void after(struct cli_ctx *x, hp_session *S, void *res)
{
	const struct top_result *t = res;
	if (t && t->h)
		cli_native_note(x, t->h, t->N);
	if (x->c->json || x->c->quiet || !t || !t->h)
		return;
	for (size_t i = 0; i < t->h->nwarnings; i++)
		cli_warn("%s", hp_heap_warning(t->h, i));
}

static const struct cli_option *const tables[] = {
	own, cli_opts_filter, cli_opts_model, cli_opts_policy, cli_opts_load, cli_opts_output, cli_opts_quiet, NULL
};
static const struct cli_rule *const rule_tables[] = { rules, cli_rules_components, NULL };

const struct cli_command cmd_top = {
	.name = "top",
	.usage = "hprofan [top] FILE",
	.summary = "class histogram (default 20 rows)",
	.min_files = 1, .max_files = 1,
	.options = tables,
	.rules = rule_tables,
	.own_size = sizeof(struct top_opts),
	.defaults = defaults,
	.run = cli_run_one,
	.collect = collect, .json = json, .text = text, .release = release, .after = after,
};
