/* hprofan [top] FILE: the class histogram, with retained sizes per class
 * (one more pass) or, with --fast or from a pipe, shallow sizes from one
 * streaming pass.  This file is the command: its options, what it reads,
 * the class rows every mode starts from and the document around the
 * mode's table; the modes' tables are in top_classes.c, top_groups.c and
 * top_threads.c (top.h). */
#include "cli/command.h"
#include "cli/top.h"
#include "cli/msg.h"
#include "cli/format.h"
#include "cli/filter.h"
#include "cli/load.h"
#include "cli/output.h"
#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>

/* --sort (SORT_*: top.h) */
static const struct cli_choice sorts[] = {
	{ "retained", SORT_RETAINED, "default" },
	{ "shallow", SORT_SHALLOW, "default with --fast" },
	{ "count", SORT_COUNT, NULL },
	{ "name", SORT_NAME, NULL },
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
	/* digits only: no sign, no leading space */
	if (*val < '0' || *val > '9' || cli_parse_int(val, 1, 100000, dst))
		return cli_usage_error(NULL, "--depth %s: expected a number of levels from 1", val);
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
	OPT_GROUP(top_group_choices, "rows by package (a tree, see --depth), by defining\nloader or by component (--components)", OWN(group)),
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
	hp_free_all(t->order, t->rank, t->child_off, t->child);
	cli_components_release(&t->comps);
	hp_free(t->buckets);
	if (t->names)
		for (size_t i = 0; i < t->M.n; i++)
			hp_objread_text_release(&t->names[i]);
	hp_free(t->names);
	hp_threads_mem_release(&t->M);
	hp_free(t);
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
		cJSON_AddItemToObject(tot, "buckets", top_buckets_json(&t->bucket_total));
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

CLI_COMMAND(top, "hprofan [top] FILE", "class histogram (default 20 rows)",
	    CLI_FILES(1, 1), CLI_ANSWERS, CLI_OWN(struct top_opts, defaults), .after = after,
	    CLI_TABLES(own, cli_opts_filter, cli_opts_model, cli_opts_policy, cli_opts_load, cli_opts_output, cli_opts_quiet),
	    CLI_RULES(rules, cli_rules_components));
