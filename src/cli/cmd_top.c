/* hprofan [top] FILE: the class histogram, with retained sizes per class
 * (one more pass) or, with --fast or from a pipe, shallow sizes from one
 * streaming pass. */
#include "cli/command.h"
#include "parser/alloc.h"

#include <stdlib.h>
#include <string.h>

struct top_opts {
	struct cli_count top;
	const char *sort;
	const char *heap;
	int fast, retained_set;
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
	{ NULL }
};

struct trow {
	const struct hp_hrow *r;
	const char *name;
	const char *heap;
	uint64_t count, shallow, retained;
};

struct top_result {
	const hp_heap *h;
	const struct hp_retained *R;  /* NULL: shallow sizes only */
	const char *sort;
	int android;
	struct trow *rows;
	size_t n, shown;
	uint64_t tot_count, tot_shallow, all_shallow;
	uint64_t set_in, set_objs, set_bytes;   /* --retained-set */
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
		unsigned hp = hp_heap_heap(h, v);
		for (uint32_t r = h->classes[h->cls[v]].row; r != HP_NONE; r = h->rows[r].next)
			if (h->rows[r].heap == hp) {
				if (sel[r]) {
					in_set[v] = 1;
					t->set_in++;
				}
				break;
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

static int collect(struct cli_ctx *x, hp_session *S, void **res)
{
	const struct top_opts *o = x->own;
	int with_ret = !o->fast;
	if (with_ret && !hp_session_rereadable(S)) {
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
	rc = with_ret ? cli_retained(S, &t->h, &t->R) : cli_histogram(S, &t->h);
	if (rc)
		goto out;
	const hp_heap *h = t->h;
	t->android = h->header.version == 3;
	int heap_filter = -1;
	if (o->heap && (heap_filter = cli_heap_named(h, hp_session_path(S), o->heap, &rc)) < 0)
		goto out;
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
		t->tot_count += cnt;
		t->tot_shallow += r->shallow;
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
	json_u64(j, "shown", t->shown);
	if (o->retained_set) {
		cJSON *rs = cJSON_AddObjectToObject(j, "retained_set");
		json_u64(rs, "objects_in_set", t->set_in);
		json_u64(rs, "objects", t->set_objs);
		json_u64(rs, "shallow", t->set_bytes);
	}
	cJSON *arr = cJSON_AddArrayToObject(j, "classes");
	for (size_t i = 0; i < t->shown; i++) {
		const struct trow *r = &t->rows[i];
		cJSON *e = cJSON_CreateObject();
		json_u64(e, "rank", i + 1);
		cJSON_AddStringToObject(e, "class", r->name);
		if (t->android)
			cJSON_AddStringToObject(e, "heap", r->heap);
		json_u64(e, "instances", r->count);
		json_u64(e, "shallow", r->shallow);
		if (t->R)
			json_u64(e, "retained", r->retained);
		json_u64(e, "largest", r->r->max_shallow);
		cJSON_AddNumberToObject(e, "percent",
			t->all_shallow ? (double)(int64_t)(10000.0 * r->shallow / t->all_shallow) / 100.0 : 0.0);
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
		int l = (int)strlen(fmt_count(t->rows[i].count, a, sizeof a));
		if (l > cw)
			cw = l;
	}
	int hw = 0;
	char hn[256];
	if (t->android) {
		hw = 4;
		for (unsigned i = 0; i < h->nheaps; i++)
			if ((int)strlen(safe_text(hp_heap_name(h, i), hn, sizeof hn)) > hw)
				hw = (int)strlen(hn);
	}
	if (hp_session_load_info(S)->partial)
		fprintf(f, "warning: partial result: the dump could not be read to its end (--salvage)\n");
	fprintf(f, "%5s  %*s  %10s  %6s", "rank", cw, "instances", "shallow", "%");
	if (R)
		fprintf(f, "  %10s  %6s", "retained", "%");
	if (t->android)
		fprintf(f, "  %-*s", hw, "heap");
	fprintf(f, "  %s\n", "class");
	for (size_t i = 0; i < t->shown; i++) {
		const struct trow *r = &t->rows[i];
		double pct = t->all_shallow ? 100.0 * r->shallow / t->all_shallow : 0;
		safe_text(r->name, nm, sizeof nm);
		fprintf(f, "%5zu  %*s  %10s  %5.1f%%", i + 1, cw, fmt_count(r->count, a, sizeof a),
			fmt_bytes(r->shallow, b, sizeof b), pct);
		if (R)
			fprintf(f, "  %10s  %5.1f%%", fmt_bytes(r->retained, b, sizeof b),
				t->all_shallow ? 100.0 * r->retained / t->all_shallow : 0.0);
		if (t->android)
			fprintf(f, "  %-*s", hw, safe_text(r->heap, hn, sizeof hn));
		fprintf(f, "  %s\n", nm);
	}
	char c1[32];
	fprintf(f, "%5s  %*s  %10s  %5.1f%%", "total", cw, fmt_count(t->tot_count, a, sizeof a),
		fmt_bytes(t->tot_shallow, b, sizeof b), t->all_shallow ? 100.0 * t->tot_shallow / t->all_shallow : 0.0);
	if (R)
		fprintf(f, "  %10s  %6s", "", "");
	if (t->android)
		fprintf(f, "  %-*s", hw, "");
	fprintf(f, "  %s%s (size model %s: ref %u, header %u, align %u)\n", fmt_counted(t->n, "class", "classes", c1, sizeof c1),
		t->shown < t->n ? ", top rows shown" : "", hp_size_kind_name(h->size.kind),
		h->size.ref_size, h->size.header, h->size.align);
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
	.usage = "hprofan [top] FILE [--top [N]] [--sort=retained|shallow|count|name] [--fast] [--filter RE] [--exclude RE] [--heap NAME]",
	.summary = "class histogram (default 20 rows)",
	.min_files = 1, .max_files = 1,
	.options = tables,
	.own_size = sizeof(struct top_opts),
	.defaults = defaults,
	.run = cli_run_one,
	.collect = collect, .json = json, .text = text, .release = release, .after = after,
};
