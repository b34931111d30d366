/* hprofan dominators FILE: the top of the dominator tree. */
#include "cli/command.h"
#include "parser/alloc.h"

#include <stdlib.h>
#include <string.h>

struct dom_opts {
	struct cli_count top;
	int depth;
	int group_class;
};

static void defaults(void *own)
{
	struct dom_opts *o = own;
	o->top.n = 20;
	o->depth = 1;
}

static int set_depth(const struct cli_option *o, const char *as, const char *val, void *dst)
{
	char *end;
	long v = strtol(val, &end, 10);
	if (end == val || *end || v < 1 || v > 1000)
		return cli_usage_error(NULL, "%s needs a number of levels (1..1000)", as);
	*(int *)dst = (int)v;
	return EXIT_OK;
}

static int set_group(const struct cli_option *o, const char *as, const char *val, void *dst)
{
	if (strcmp(val, "class"))
		return cli_usage_error(NULL, "%s: the only grouping is --group=class", as);
	*(int *)dst = 1;
	return EXIT_OK;
}

static const struct cli_option own[] = {
	{ "--top", NULL, OPT_OPTNUM, "--top [N]", "the N largest children of each node (default 20; 0 shows all)",
	  0, offsetof(struct dom_opts, top), cli_set_count, NULL, NULL },
	{ "--depth", NULL, OPT_VALUE, "--depth D", "levels of the tree to show (default 1)",
	  0, offsetof(struct dom_opts, depth), set_depth, "needs a number of levels (1..1000)", NULL },
	{ "--group", NULL, OPT_VALUE, "--group=class", "merge same-class siblings",
	  0, offsetof(struct dom_opts, group_class), set_group, "needs a value: class", "class" },
	{ NULL }
};

/* one row: an object, or a group of same-class siblings */
struct drow {
	uint32_t v;            /* object (first of the group) */
	uint32_t cls;
	uint64_t count, shallow, retained;
};

struct dctx {
	struct cli_ctx *x;
	const struct dom_opts *o;
	const hp_heap *h;
	const struct hp_retained *R;
	struct cli_filter *flt;
	uint64_t total;
	FILE *f;               /* table output */
};

static int by_ret(const void *a, const void *b)
{
	const struct drow *x = a, *y = b;
	if (x->retained != y->retained)
		return x->retained < y->retained ? 1 : -1;
	return x->v < y->v ? -1 : x->v > y->v;
}

static int by_cls(const void *a, const void *b)
{
	const struct drow *x = a, *y = b;
	if (x->cls != y->cls)
		return x->cls < y->cls ? -1 : 1;
	return by_ret(a, b);
}

/* children of node p (n = the super-root) as sorted rows */
static struct drow *rows_of(struct dctx *c, uint32_t p, size_t *nrows)
{
	const struct hp_retained *R = c->R;
	const hp_heap *h = c->h;
	uint32_t lo = R->child_off[p], hi = R->child_off[p + 1];
	size_t k = hi - lo;
	struct drow *rows = hp_reallocarray(NULL, k ? k : 1, sizeof *rows);
	if (!rows)
		return NULL;
	for (size_t i = 0; i < k; i++) {
		uint32_t v = R->children[lo + i];
		rows[i].v = v;
		rows[i].cls = h->cls[v];
		rows[i].count = 1;
		rows[i].shallow = R->shallow[v];
		rows[i].retained = R->retained[v];
	}
	if (c->o->group_class && k > 1) {
		qsort(rows, k, sizeof *rows, by_cls);
		size_t g = 0;
		for (size_t i = 0; i < k; i++) {
			if (g && rows[g - 1].cls == rows[i].cls) {
				rows[g - 1].count++;
				rows[g - 1].shallow += rows[i].shallow;
				rows[g - 1].retained += rows[i].retained;
			} else {
				rows[g++] = rows[i];
			}
		}
		k = g;
	}
	qsort(rows, k, sizeof *rows, by_ret);
	*nrows = k;
	return rows;
}

/* depth is bounded by --depth (at most 1000), not by the dump */
static int show(struct dctx *c, uint32_t p, int depth, cJSON *arr)
{
	size_t k;
	struct drow *rows = rows_of(c, p, &k);
	if (!rows)
		return EXIT_NOMEM;
	const hp_heap *h = c->h;
	size_t limit = c->o->top.n > 0 ? (size_t)c->o->top.n : k;
	size_t shown = 0;
	int rc = EXIT_OK;
	for (size_t i = 0; i < k && shown < limit && rc == EXIT_OK; i++) {
		const struct drow *r = &rows[i];
		int m = depth == 0 ? cli_filter_match(c->flt, hp_class_name(h, r->cls)) : 1;
		if (m < 0) {
			rc = EXIT_USAGE;
			break;
		}
		if (!m)
			continue;
		shown++;
		char lab[700], nm[512], a[32], b[32];
		if (r->count > 1) {
			char cnt[32];
			snprintf(lab, sizeof lab, "[%s \xc3\x97 %s]", fmt_count(r->count, cnt, sizeof cnt),
				 safe_text(hp_class_name(h, r->cls), nm, sizeof nm));
		} else {
			object_label(h, r->v, lab, sizeof lab);
		}
		double pct = c->total ? 100.0 * r->retained / c->total : 0;
		cJSON *kids = NULL;
		if (arr) {
			cJSON *e;
			if (r->count > 1) {
				e = cJSON_CreateObject();
				cJSON_AddStringToObject(e, "group", hp_class_name(h, r->cls));
				json_u64(e, "count", r->count);
			} else {
				e = cli_object_json(h, r->v);
				if (c->R->root_kinds[r->v]) {
					cJSON *rk = cJSON_AddArrayToObject(e, "gc_root");
					for (int kk = 0; kk < HP_ROOT_NKINDS; kk++)
						if (c->R->root_kinds[r->v] & (1u << kk))
							cJSON_AddItemToArray(rk, cJSON_CreateString(hp_root_kind_key(kk)));
				}
			}
			json_u64(e, "shallow", r->shallow);
			json_u64(e, "retained", r->retained);
			cJSON_AddNumberToObject(e, "percent", (double)(int64_t)(pct * 100) / 100.0);
			if (depth + 1 < c->o->depth && r->count == 1)
				kids = cJSON_AddArrayToObject(e, "children");
			cJSON_AddItemToArray(arr, e);
		} else {
			fprintf(c->f, "%10s  %5.1f%%  %10s  %*s%s%s\n", fmt_bytes(r->retained, a, sizeof a), pct,
				fmt_bytes(r->shallow, b, sizeof b), 2 * depth, "",
				c->R->root_kinds[r->v] && r->count == 1 ? "\xe2\x97\x8f " : "", lab);
		}
		if (depth + 1 < c->o->depth && r->count == 1)
			rc = show(c, r->v, depth + 1, kids);
	}
	if (!arr && k > shown && depth == 0 && !c->x->c->filter && !c->x->c->exclude) {
		char a[32];
		fprintf(c->f, "%*s... %s more\n", 33 + 2 * depth, "", fmt_count(k - shown, a, sizeof a));
	}
	hp_free(rows);
	return rc;
}

struct dom_result {
	const hp_heap *h;
	const struct hp_retained *R;
	struct cli_filter *flt;
};

static void release(void *p)
{
	struct dom_result *d = p;
	if (!d)
		return;
	cli_filter_free(d->flt);
	hp_free(d);
}

static int collect(struct cli_ctx *x, hp_session *S, void **res)
{
	struct dom_result *d = hp_calloc(1, sizeof *d);
	if (!d) {
		cli_error("out of memory");
		return EXIT_NOMEM;
	}
	*res = d;
	int rc;
	if ((x->c->filter || x->c->exclude) && !(d->flt = cli_filter_new(x->c->filter, x->c->exclude, &rc)))
		return rc;
	if ((rc = cli_refuse_pipe(S, "retained sizes read", "save it to a file (or use --fast for shallow sizes)")))
		return rc;
	return cli_retained(S, &d->h, &d->R);
}

static int json(struct cli_ctx *x, hp_session *S, void *res, cJSON **doc)
{
	struct dom_result *d = res;
	const hp_heap *h = d->h;
	const struct hp_retained *R = d->R;
	const struct dom_opts *o = x->own;
	uint64_t all = R->reachable_bytes + R->unreachable_bytes;   /* the sum of every shallow size */
	struct dctx c = { .x = x, .o = o, .h = h, .R = R, .flt = d->flt, .total = all };
	cJSON *j = json_begin(x, hp_session_path(S), S);
	cJSON_AddItemToObject(j, "size_model", json_size_model(h));
	json_policies(j, R);
	json_u64(j, "depth", (uint64_t)o->depth);
	cJSON_AddBoolToObject(j, "grouped", o->group_class);
	cJSON *tot = cJSON_AddObjectToObject(j, "total");
	json_u64(tot, "objects", h->nobj);
	json_u64(tot, "shallow", all);
	json_u64(tot, "reachable_objects", R->reachable);
	json_u64(tot, "reachable_shallow", R->reachable_bytes);
	json_u64(tot, "unreachable_objects", R->unreachable);
	json_u64(tot, "unreachable_shallow", R->unreachable_bytes);
	cJSON *arr = cJSON_AddArrayToObject(j, "dominators");
	*doc = j;
	int rc = show(&c, (uint32_t)h->nobj, 0, arr);
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
	struct dctx c = { .x = x, .o = x->own, .h = h, .R = R, .flt = d->flt, .total = all, .f = f };
	char a[32], b[32], dd[32], e[32];
	cli_partial_note(f, S);
	fprintf(f, "%10s  %6s  %10s  %s\n", "retained", "%", "shallow", "object (\xe2\x97\x8f GC root)");
	int rc = show(&c, (uint32_t)h->nobj, 0, NULL);
	fprintf(f, "heap: %s objects, %s; unreachable %s objects, %s (weak %s, roots %s)\n",
		fmt_count(h->nobj, a, sizeof a), fmt_bytes(all, b, sizeof b),
		fmt_count(R->unreachable, dd, sizeof dd), fmt_bytes(R->unreachable_bytes, e, sizeof e),
		hp_weak_policy_name(R->weak), roots_policy_name(R->roots_policy));
	if (rc == EXIT_NOMEM)
		cli_error("out of memory");
	return rc;
}

static const struct cli_option *const tables[] = {
	own, cli_opts_filter, cli_opts_model, cli_opts_policy, cli_opts_load, cli_opts_output, cli_opts_quiet, NULL
};

const struct cli_command cmd_dominators = {
	.name = "dominators",
	.usage = "hprofan dominators FILE [--depth D] [--group=class] [--top N]",
	.summary = "the top of the dominator tree",
	.min_files = 1, .max_files = 1,
	.options = tables,
	.own_size = sizeof(struct dom_opts),
	.defaults = defaults,
	.run = cli_run_one,
	.collect = collect, .json = json, .text = text, .release = release,
};
