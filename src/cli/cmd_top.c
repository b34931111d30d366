/* hprofan [top] FILE: the class histogram, with retained sizes per class
 * (one more pass) or, with --fast or from a pipe, shallow sizes from one
 * streaming pass. */
#include "cli/command.h"
#include "cli/table.h"
#include "analysis/group.h"
#include "analysis/buckets.h"
#include "analysis/threads.h"
#include "base/alloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct top_opts {
	struct cli_count top;
	const char *sort;
	const char *heap;
	const char *group;        /* --group: package, loader or component */
	const char *components;   /* --components FILE */
	const char *depth;        /* --depth D (packages) */
	int fast, retained_set;
	int buckets;              /* --buckets: objects by size bucket per class */
	int by_thread;            /* --by-thread: retained memory per thread */
};

static void defaults(void *own)
{
	struct top_opts *o = own;
	o->top.n = 20;
}

static const struct cli_option own[] = {
	{ "--top", NULL, OPT_OPTNUM, "--top [N]", "show the N largest rows (default 20; 0 shows all)",
	  0, offsetof(struct top_opts, top), cli_set_count, NULL, NULL },
	{ "--sort", NULL, OPT_VALUE, "--sort=KEY", "retained (default), shallow (default with --fast),\ncount or name",
	  0, offsetof(struct top_opts, sort), NULL, "needs a value: count, shallow or name",
	  "retained shallow count name" },
	{ "--fast", NULL, OPT_FLAG, "--fast", "shallow sizes only, in one streaming pass",
	  0, offsetof(struct top_opts, fast), NULL, NULL, NULL },
	{ "--heap", NULL, OPT_VALUE, "--heap NAME", "Android: only the objects of heap NAME (app, zygote, image)",
	  0, offsetof(struct top_opts, heap), NULL, "needs a heap name", "app zygote image default" },
	{ "--retained-set", NULL, OPT_FLAG, "--retained-set",
	  "also the retained set of all objects of the rows\nselected (what would be freed without them)",
	  0, offsetof(struct top_opts, retained_set), NULL, NULL, NULL },
	{ "--group", NULL, OPT_VALUE, "--group=package|loader|component",
	  "rows by package (a tree, see --depth), by defining\nloader or by component (--components)",
	  0, offsetof(struct top_opts, group), NULL, "needs a value: package, loader or component",
	  "package loader component" },
	{ "--depth", NULL, OPT_VALUE, "--depth D", "--group=package: levels of the package tree to show\n(default 1: com, org, java)",
	  0, offsetof(struct top_opts, depth), NULL, "needs a number of levels", NULL },
	{ "--components", NULL, OPT_VALUE, "--components FILE",
	  "components for --group=component (the default with it):\nlines NAME REGEX, a class in the first whose REGEX\nmatches its name, the others in \"other\"",
	  0, offsetof(struct top_opts, components), NULL, "needs a file of NAME REGEX lines", NULL },
	{ "--buckets", NULL, OPT_FLAG, "--buckets", "per class, how its objects and bytes spread over size\nbuckets (<=16 B, <=32 B, ... <=1 MiB, >1 MiB)",
	  0, offsetof(struct top_opts, buckets), NULL, NULL, NULL },
	{ "--by-thread", NULL, OPT_FLAG, "--by-thread", "rows per thread instead of classes: the objects each\nthread's Thread object or stack locals dominate, the rest\nshared or unreachable",
	  0, offsetof(struct top_opts, by_thread), NULL, NULL, NULL },
	{ NULL }
};

struct trow {
	const struct hp_hrow *r;
	const char *name;
	const char *heap;
	uint64_t count, shallow, retained;
	uint64_t native, native_retained;   /* registered native bytes (native.h) */
	uint64_t largest;                   /* its largest object */
};

struct top_result {
	const hp_heap *h;
	const struct hp_retained *R;  /* NULL: shallow sizes only */
	const struct hp_native *N;    /* with retained sizes: native sizes, else NULL */
	int native_cols;              /* some native size was found: the columns are shown */
	int heap_filter;              /* --heap: its index, else -1 */
	uint64_t tot_native;
	const char *sort;
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

static const char *const group_kinds[] = { "package", "loader", "component" };

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
	const char *sort = o->sort ? o->sort : with_ret ? "retained" : "shallow";
	int (*cmp)(const void *, const void *);
	if (strcmp(sort, "retained") == 0) {
		if (!with_ret) {
			cli_error("--sort=retained needs retained sizes (not with --fast or a pipe)");
			return EXIT_USAGE;
		}
		cmp = by_retained;
	} else if (strcmp(sort, "shallow") == 0) {
		cmp = by_shallow;
	} else if (strcmp(sort, "count") == 0) {
		cmp = by_count;
	} else if (strcmp(sort, "name") == 0) {
		cmp = by_name;
	} else {
		cli_error("--sort=%s: expected retained, shallow, count or name", o->sort);
		return EXIT_USAGE;
	}
	int by = -1;
	unsigned depth = 1;
	int (*gcmp)(const struct hp_group *, const struct hp_group *) =
		cmp == by_retained ? g_retained : cmp == by_shallow ? g_shallow : cmp == by_count ? g_count : g_name;
	if (o->group) {
		for (int k = 0; k < 3; k++)
			if (!strcmp(o->group, group_kinds[k]))
				by = k;
		if (by < 0) {
			cli_error("--group=%s: expected package, loader or component", o->group);
			return EXIT_USAGE;
		}
	} else if (o->components) {
		by = HP_GROUP_COMPONENT;
	}
	if (by == HP_GROUP_COMPONENT && !o->components) {
		cli_error("--group=component needs --components FILE (lines NAME REGEX)");
		return EXIT_USAGE;
	}
	if (o->components && by != HP_GROUP_COMPONENT) {
		cli_error("--components goes with --group=component, not --group=%s", o->group);
		return EXIT_USAGE;
	}
	if (o->depth) {
		char *e;
		errno = 0;
		unsigned long d = strtoul(o->depth, &e, 10);
		if (by != HP_GROUP_PACKAGE) {
			cli_error("--depth opens the package tree: it goes with --group=package");
			return EXIT_USAGE;
		}
		if (*o->depth < '0' || *o->depth > '9' || *e || errno || d < 1 || d > 100000) {
			cli_error("--depth %s: expected a number of levels from 1", o->depth);
			return EXIT_USAGE;
		}
		depth = (unsigned)d;
	}
	if (o->by_thread && (by >= 0 || o->buckets || o->retained_set || x->c->filter || x->c->exclude || o->heap)) {
		cli_error("--by-thread counts every object once, by thread: not with --group, --buckets, --retained-set, --filter, --exclude or --heap");
		return EXIT_USAGE;
	}
	if (o->by_thread && !with_ret) {
		cli_error("--by-thread needs retained sizes (not with --fast or a pipe)");
		return EXIT_USAGE;
	}
	if (o->buckets && o->fast) {
		cli_error("--buckets needs the object table: not with --fast");
		return EXIT_USAGE;
	}
	if (o->buckets && by >= 0) {
		cli_error("--buckets goes with the class table, not with --group");
		return EXIT_USAGE;
	}
	if (by >= 0 && o->retained_set) {
		cli_error("--retained-set goes with the class table, not with --group");
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
	t->android = h->header.version == 3;
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
		w->largest = r->max_shallow;
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

/* the group's name as its row shows it: a package indented by its depth,
 * a loader with its own name */
static void group_put(const struct cli_table *tb, const void *row, FILE *f)
{
	const struct top_result *t = tb->ctx;
	const struct hp_group *g = row;
	char lb[1024], nm[1024];
	int ind = t->by == HP_GROUP_PACKAGE ? 2 * (int)(g->depth - 1) : 0;
	fprintf(f, "%*s%s", ind > 200 ? 200 : ind, "", safe_text(group_label(t, g, lb, sizeof lb), nm, sizeof nm));
	if (t->by == HP_GROUP_LOADER && g->has_loader_name)
		fprintf(f, " \"%s\"", safe_text(t->G.text + g->name, nm, sizeof nm));
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

static void json_groups(const struct top_result *t, cJSON *j)
{
	struct cli_table tb;
	group_table(t, &tb);
	cJSON_AddStringToObject(j, "group", group_kinds[t->by]);
	if (t->by == HP_GROUP_PACKAGE)
		json_u64(j, "depth", t->depth);
	json_u64(j, "groups_total", t->ntop);
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
			cJSON_AddItemToArray(ids, json_u64_item(t->h->classes[G->dup_class[k]].loader_id));
		cJSON_AddItemToArray(dup, e);
	}
}

static void text_groups(const struct top_result *t, FILE *f)
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
	size_t o = (size_t)snprintf(tail, sizeof tail, "%s", fmt_counted(t->ntop, one[t->by], many[t->by], c1, sizeof c1));
	if (t->by == HP_GROUP_PACKAGE)
		o += (size_t)snprintf(tail + o, sizeof tail - o, " at the top (%s in all, %u level%s shown)",
				      fmt_counted(G->n, "package", "packages", c2, sizeof c2), t->depth, t->depth == 1 ? "" : "s");
	if (t->by == HP_GROUP_COMPONENT)
		o += (size_t)snprintf(tail + o, sizeof tail - o, " (with \"other\")");
	snprintf(tail + o, sizeof tail - o, "%s; %s", t->cut ? ", top rows shown" : "",
		 fmt_counted(t->n, "class", "classes", c2, sizeof c2));
	struct hp_group tot = { .classes = t->n, .instances = t->tot_count, .shallow = t->tot_shallow };
	cli_table_line(&tb, f, &tot, COL_TOTAL, "total", tail);
	if (loaders && !t->h->nobj)
		fprintf(f, "the loaders' classes and names are not read with --fast or from a pipe (no object table)\n");
	if (loaders && G->ndups) {
		fprintf(f, "%s defined by several loaders:\n", fmt_counted(G->ndups, "class name", "class names", c1, sizeof c1));
		for (size_t d = 0; d < G->ndups; d++) {
			fprintf(f, "  %s:", safe_text(hp_class_name(t->h, G->dup_class[G->dup_off[d]]), nm, sizeof nm));
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
					safe_text(loader_label(t->h, G, gi < G->n ? &G->g[gi] : &tmp, lb, sizeof lb), nm, sizeof nm));
			}
			fprintf(f, "\n");
		}
	}
}

/* ---- --by-thread -------------------------------------------------------- */

/* a thread's row: its name, serial and Thread object */
static void thread_put(const struct cli_table *tb, const void *row, FILE *f)
{
	const struct top_result *t = tb->ctx;
	const hp_heap *h = t->h;
	const struct hp_thread_mem *m = row;
	size_t i = (size_t)(m - t->M.t);
	char nm[1024];
	if (t->names[i].utf8) {
		char *q = cli_quote_text(&t->names[i]);
		fprintf(f, "%s", q ? q : "?");
		hp_free(q);
	} else {
		fprintf(f, "(no name)");
	}
	fprintf(f, " serial %u", h->threads[m->rec].serial);
	if (m->obj != SIZE_MAX)
		fprintf(f, "  %s @0x%llx", safe_text(hp_class_name(h, h->cls[m->obj]), nm, sizeof nm),
			(unsigned long long)h->ids[m->obj]);
	else
		fprintf(f, "  (no Thread object in the dump)");
}

static void thread_json(const struct cli_table *tb, const void *row, cJSON *e, const char *key)
{
	const struct top_result *t = tb->ctx;
	const hp_heap *h = t->h;
	const struct hp_thread_mem *m = row;
	size_t i = (size_t)(m - t->M.t);
	if (!strcmp(key, "serial")) {
		json_u64(e, key, h->threads[m->rec].serial);
	} else if (!strcmp(key, "name")) {
		if (t->names[i].utf8)
			cJSON_AddItemToObject(e, key, cli_text_json(&t->names[i]));
	} else if (m->obj != SIZE_MAX) {
		char id[32];
		snprintf(id, sizeof id, "0x%llx", (unsigned long long)h->ids[m->obj]);
		cJSON_AddStringToObject(e, key, id);
	}
}

#define TM_(f) offsetof(struct hp_thread_mem, f)
static const struct cli_col thread_cols[] = {
	{ .title = "rank", .width = 5, .cell = CELL_RANK, .key = "rank", .at = 1 },
	{ .title = "objects", .width = 10, .cell = CELL_COUNT, .flags = COL_TOTAL | COL_MORE, .off = TM_(objects), .key = "objects", .at = 5 },
	{ .title = "retained", .width = 10, .cell = CELL_BYTES, .flags = COL_TOTAL | COL_MORE, .off = TM_(bytes), .key = "bytes", .at = 6 },
	{ .title = "%", .width = 6, .cell = CELL_PCT, .flags = COL_TOTAL | COL_MORE, .off = TM_(bytes), .key = "percent", .at = 7 },
	{ .title = "thread", .cell = CELL_FN, .put = thread_put },
	{ .cell = CELL_FN, .key = "serial", .at = 2, .json = thread_json },
	{ .cell = CELL_FN, .key = "name", .at = 3, .json = thread_json },
	{ .cell = CELL_FN, .key = "object", .at = 4, .json = thread_json },
};

/* the table of threads and, in *rest, the sums of the threads not shown */
static void thread_table(const struct top_result *t, struct cli_table *tb, struct hp_thread_mem *rest)
{
	CLI_TABLE_INIT(tb, thread_cols, 0, t->M.bytes, t);
	memset(rest, 0, sizeof *rest);
	cli_table_sum(tb, COL_MORE, t->M.t, t->shown, t->M.n, sizeof *t->M.t, rest);
}

static void json_threads(const struct top_result *t, cJSON *j)
{
	const struct hp_threads_mem *M = &t->M;
	struct cli_table tb;
	struct hp_thread_mem rest;
	thread_table(t, &tb, &rest);
	cJSON *arr = cJSON_AddArrayToObject(j, "threads");
	for (size_t i = 0; i < t->shown; i++)
		cJSON_AddItemToArray(arr, cli_table_json(&tb, &M->t[i], i + 1, NULL));
	cJSON *r = cJSON_AddObjectToObject(j, "thread_rest");
	json_u64(r, "threads_not_shown", M->n - t->shown);
	json_u64(r, "not_shown_objects", rest.objects);
	json_u64(r, "not_shown_bytes", rest.bytes);
	json_u64(r, "shared_objects", M->shared_objects);
	json_u64(r, "shared_bytes", M->shared_bytes);
	json_u64(r, "unreachable_objects", M->unreachable_objects);
	json_u64(r, "unreachable_bytes", M->unreachable_bytes);
	json_u64(r, "objects", M->objects);
	json_u64(r, "bytes", M->bytes);
}

static void text_threads(const struct top_result *t, FILE *f)
{
	const struct hp_threads_mem *M = &t->M;
	char c[48], line[160];
	struct cli_table tb;
	struct hp_thread_mem rest;
	thread_table(t, &tb, &rest);
	cli_table_header(&tb, f);
	for (size_t i = 0; i < t->shown; i++)
		cli_table_row(&tb, f, &M->t[i], i + 1);
	if (t->shown < M->n)
		cli_table_line(&tb, f, &rest, COL_MORE, "", cli_more_text(M->n - t->shown, "thread", "threads", c, sizeof c));
	struct hp_thread_mem shared = { .objects = M->shared_objects, .bytes = M->shared_bytes };
	struct hp_thread_mem unreachable = { .objects = M->unreachable_objects, .bytes = M->unreachable_bytes };
	struct hp_thread_mem all = { .objects = M->objects, .bytes = M->bytes };
	cli_table_line(&tb, f, &shared, COL_MORE, "", "shared/no thread (reachable, dominated by no thread)");
	cli_table_line(&tb, f, &unreachable, COL_MORE, "", "unreachable");
	snprintf(line, sizeof line, "%s (weak %s, roots %s)", fmt_counted(M->n, "thread", "threads", c, sizeof c),
		 hp_weak_policy_name(t->R->weak), roots_policy_name(t->R->roots_policy));
	cli_table_line(&tb, f, &all, COL_TOTAL | CLI_WHOLE, "total", line);
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
		json_u64(e, "above", k ? 16ull << (k - 1) : 0);
		if (k < HP_NBUCKETS - 1)
			json_u64(e, "upto", 16ull << k);
		json_u64(e, "instances", b->count[k]);
		json_u64(e, "bytes", b->bytes[k]);
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
		fprintf(f, "%s %s %s (%s)", first ? "" : ",", bucket_label(k, l, sizeof l), fmt_count(b->count[k], a, sizeof a),
			fmt_bytes(b->bytes[k], c, sizeof c));
		first = 0;
	}
	fprintf(f, "%s\n", first ? " none" : "");
}

/* ---- the class table ---------------------------------------------------- */

/* when the class columns are shown */
enum { C_RETAINED = 1, C_NATIVE = 2, C_ANDROID = 4 };

#define TR_(f) offsetof(struct trow, f)
static const struct cli_col class_cols[] = {
	{ .title = "rank", .width = 5, .cell = CELL_RANK, .key = "rank", .at = 1 },
	{ .title = "instances", .width = 9, .cell = CELL_COUNT, .flags = COL_FIT | COL_TOTAL, .off = TR_(count), .key = "instances", .at = 4 },
	{ .title = "shallow", .width = 10, .cell = CELL_BYTES, .flags = COL_TOTAL, .off = TR_(shallow), .key = "shallow", .at = 5 },
	{ .title = "%", .width = 6, .cell = CELL_PCT, .flags = COL_TOTAL, .off = TR_(shallow), .key = "percent", .at = 10 },
	{ .title = "retained", .width = 10, .cell = CELL_BYTES, .when = C_RETAINED, .off = TR_(retained), .key = "retained", .at = 6 },
	{ .title = "%", .width = 6, .cell = CELL_PCT, .when = C_RETAINED, .off = TR_(retained) },
	{ .title = "native", .width = 10, .cell = CELL_BYTES, .flags = COL_TOTAL, .when = C_NATIVE, .off = TR_(native), .key = "native", .at = 7 },
	{ .title = "native ret", .width = 10, .cell = CELL_BYTES, .when = C_NATIVE, .off = TR_(native_retained), .key = "retained_native", .at = 8 },
	{ .title = "heap", .width = 4, .cell = CELL_TEXT, .flags = COL_LEFT, .when = C_ANDROID, .off = TR_(heap), .key = "heap", .at = 3, .cap = 256 },
	{ .title = "class", .cell = CELL_TEXT, .off = TR_(name), .key = "class", .at = 2 },
	{ .cell = CELL_BYTES, .off = TR_(largest), .key = "largest", .at = 9 },
};

static void class_table(const struct top_result *t, struct cli_table *tb)
{
	CLI_TABLE_INIT(tb, class_cols, (t->R ? C_RETAINED : 0) | (t->native_cols ? C_NATIVE : 0) | (t->android ? C_ANDROID : 0),
		       t->all_shallow, t);
}

static int json(struct cli_ctx *x, hp_session *S, void *res, cJSON **doc)
{
	const struct top_opts *o = x->own;
	const struct top_result *t = res;
	const hp_heap *h = t->h;
	cJSON *j = json_begin(x, hp_session_path(S), S);
	cJSON_AddItemToObject(j, "size_model", json_size_model(h));
	cJSON_AddStringToObject(j, "sort", t->sort);
	cJSON_AddBoolToObject(j, "retained_sizes", t->R != NULL);
	if (t->R)
		json_policies(j, t->R);
	if (x->c->filter)
		cJSON_AddStringToObject(j, "filter", x->c->filter);
	if (x->c->exclude)
		cJSON_AddStringToObject(j, "exclude", x->c->exclude);
	if (o->heap)
		cJSON_AddStringToObject(j, "heap", o->heap);
	cJSON *tot = cJSON_AddObjectToObject(j, "total");
	json_u64(tot, "classes", t->n);
	json_u64(tot, "instances", t->tot_count);
	json_u64(tot, "shallow", t->tot_shallow);
	json_u64(tot, "heap_shallow", t->all_shallow);
	if (t->R) {
		json_u64(tot, "reachable_objects", t->R->reachable);
		json_u64(tot, "reachable_shallow", t->R->reachable_bytes);
		json_u64(tot, "unreachable_objects", t->R->unreachable);
		json_u64(tot, "unreachable_shallow", t->R->unreachable_bytes);
	}
	if (t->buckets)
		cJSON_AddItemToObject(tot, "buckets", json_buckets(&t->bucket_total));
	if (t->native_cols)
		json_u64(tot, "native", t->tot_native);
	json_heap_split(j, h, t->N, t->heap_filter);
	json_native(j, h, t->N);
	json_u64(j, "shown", t->shown);
	if (o->retained_set) {
		cJSON *rs = cJSON_AddObjectToObject(j, "retained_set");
		json_u64(rs, "objects_in_set", t->set_in);
		json_u64(rs, "objects", t->set_objs);
		json_u64(rs, "shallow", t->set_bytes);
	}
	if (t->by >= 0)
		json_groups(t, j);
	if (t->by_thread)
		json_threads(t, j);
	if (t->by < 0 && !t->by_thread) {
		struct cli_table tb;
		class_table(t, &tb);
		cJSON *arr = cJSON_AddArrayToObject(j, "classes");
		for (size_t i = 0; i < t->shown; i++) {
			cJSON *e = cli_table_json(&tb, &t->rows[i], i + 1, NULL);
			if (t->buckets)
				cJSON_AddItemToObject(e, "buckets", json_buckets(&t->buckets[t->rows[i].r - h->rows]));
			cJSON_AddItemToArray(arr, e);
		}
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
	struct cli_table tb;
	class_table(t, &tb);
	cli_table_fit_rows(&tb, t->rows, t->shown, sizeof *t->rows);
	if (t->android) {
		int hw = 4;
		char hn[256];
		for (unsigned i = 0; i < h->nheaps; i++)
			if ((int)strlen(safe_text(hp_heap_name(h, i), hn, sizeof hn)) > hw)
				hw = (int)strlen(hn);
		cli_table_set_width(&tb, "heap", hw);
	}
	cli_table_header(&tb, f);
	for (size_t i = 0; i < t->shown; i++) {
		cli_table_row(&tb, f, &t->rows[i], i + 1);
		if (t->buckets)
			text_buckets("sizes", &t->buckets[t->rows[i].r - h->rows], f);
	}
	char c1[32], tail[200];
	snprintf(tail, sizeof tail, "%s%s (size model %s: ref %u, header %u, align %u)",
		 fmt_counted(t->n, "class", "classes", c1, sizeof c1), t->shown < t->n ? ", top rows shown" : "",
		 hp_size_kind_name(h->size.kind), h->size.ref_size, h->size.header, h->size.align);
	struct trow tot = { .count = t->tot_count, .shallow = t->tot_shallow, .native = t->tot_native };
	cli_table_line(&tb, f, &tot, COL_TOTAL, "total", tail);
	if (t->buckets)
		text_buckets(t->shown < t->n ? "sizes of all the rows" : "sizes", &t->bucket_total, f);
	if (o->retained_set) {
		char u1[48], u2[48], u3[48];
		char rows[64];
		if (t->n == 1)
			snprintf(rows, sizeof rows, "this row");
		else
			snprintf(rows, sizeof rows, "these %s rows", fmt_count(t->n, u3, sizeof u3));
		fprintf(f, "retained set of the %s in %s: %s, %s\n",
			fmt_counted(t->set_in, "object", "objects", u1, sizeof u1), rows,
			fmt_counted(t->set_objs, "object", "objects", u2, sizeof u2), fmt_bytes(t->set_bytes, c1, sizeof c1));
	}
unreachable:
	text_heap_split(f, h, t->N, t->heap_filter);
	if (R) {
		char u1[48], u2[32];
		fprintf(f, "unreachable: %s, %s (not retained by any GC root; references: weak %s, roots %s)\n",
			fmt_counted(R->unreachable, "object", "objects", u1, sizeof u1), fmt_bytes(R->unreachable_bytes, u2, sizeof u2),
			hp_weak_policy_name(R->weak), roots_policy_name(R->roots_policy));
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

const struct cli_command cmd_top = {
	.name = "top",
	.usage = "hprofan [top] FILE [--top [N]] [--sort=retained|shallow|count|name] [--fast] [--filter RE] [--exclude RE] [--heap NAME] [--group=package|loader|component] [--depth D] [--components FILE] [--buckets] [--by-thread]",
	.summary = "class histogram (default 20 rows)",
	.min_files = 1, .max_files = 1,
	.options = tables,
	.own_size = sizeof(struct top_opts),
	.defaults = defaults,
	.run = cli_run_one,
	.collect = collect, .json = json, .text = text, .release = release, .after = after,
};
