/* hprofan [top] FILE: the class histogram, with retained sizes per class
 * (one more pass) or, with --fast or from a pipe, shallow sizes from one
 * streaming pass.  This file is the command: its options, what it reads,
 * the class rows every mode starts from and the document around the
 * mode's table; the modes' tables are in top_classes.c, top_groups.c and
 * top_threads.c (top.h). */
#include "cli/command.h"
#include "cli/top.h"
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

static const char *const *const group_kinds = top_group_kinds;

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
	if (o->buckets && (rc = top_buckets_collect(t)))
		goto out;
	if (o->retained_set) {
		if (!t->R) {
			cli_error("--retained-set needs retained sizes (not with --fast or a pipe)");
			rc = EXIT_USAGE;
			goto out;
		}
		if ((rc = top_retained_set(S, t)))
			goto out;
	}
	size_t topn = o->top.n > 0 ? (size_t)o->top.n : 0;
	if (by >= 0) {
		rc = top_groups_collect(S, t, flt, heap_filter, o->components, topn);
		goto out;
	}
	if (o->by_thread) {
		rc = top_threads_collect(S, t, topn);
		goto out;
	}
	qsort(t->rows, t->n, sizeof *t->rows, cmp);
	t->shown = o->top.n > 0 && (size_t)o->top.n < t->n ? (size_t)o->top.n : t->n;
out:
	cli_filter_free(flt);
	return rc;
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
		cJSON_AddItemToObject(tot, "buckets", top_buckets_json(&t->bucket_total));
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
		top_groups_json(t, j);
	else if (t->by_thread)
		top_threads_json(t, j);
	else
		top_classes_json(t, j);
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
		top_groups_text(t, f);
	} else if (t->by_thread) {
		top_threads_text(t, f);
		return EXIT_OK;
	} else {
		top_classes_text(t, f);
		if (o->retained_set)
			top_retained_set_text(t, f);
	}
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
