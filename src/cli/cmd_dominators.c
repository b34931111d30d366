/* hprofan dominators FILE: the top of the dominator tree. */
#include "cli/cli.h"
#include "parser/alloc.h"

#include <stdlib.h>
#include <string.h>

struct dctx {
	struct cli_opts *o;
	hp_heap *h;
	struct hp_retained *R;
	struct cli_filter *flt;
	uint64_t total;
	FILE *f;               /* table output */
};

/* one row: an object, or a group of same-class siblings */
struct drow {
	uint32_t v;            /* object (first of the group) */
	uint32_t cls;
	uint64_t count, shallow, retained;
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

static int matches_row(struct dctx *c, const struct drow *r)
{
	return cli_filter_match(c->flt, hp_class_name(c->h, r->cls));
}

/* depth is bounded by --depth (at most 1000), not by the dump */
static int show(struct dctx *c, uint32_t p, int depth, cJSON *arr)
{
	size_t k;
	struct drow *rows = rows_of(c, p, &k);
	if (!rows)
		return EXIT_NOMEM;
	size_t limit = c->o->top > 0 ? (size_t)c->o->top : k;
	size_t shown = 0;
	int rc = EXIT_OK;
	for (size_t i = 0; i < k && shown < limit && rc == EXIT_OK; i++) {
		const struct drow *r = &rows[i];
		if (depth == 0 && !matches_row(c, r))
			continue;
		shown++;
		char lab[700], nm[512], a[32], b[32];
		if (r->count > 1) {
			char cnt[32];
			snprintf(lab, sizeof lab, "[%s \xc3\x97 %s]", fmt_count(r->count, cnt, sizeof cnt),
				 safe_text(hp_class_name(c->h, r->cls), nm, sizeof nm));
		} else {
			object_label(c->h, r->v, lab, sizeof lab);
		}
		double pct = c->total ? 100.0 * r->retained / c->total : 0;
		cJSON *kids = NULL;
		if (arr) {
			cJSON *e = cJSON_CreateObject();
			if (r->count > 1) {
				cJSON_AddStringToObject(e, "group", hp_class_name(c->h, r->cls));
				json_u64(e, "count", r->count);
			} else {
				char id[32];
				snprintf(id, sizeof id, "0x%llx", (unsigned long long)c->h->ids[r->v]);
				cJSON_AddStringToObject(e, "id", id);
				cJSON_AddStringToObject(e, "class", hp_class_name(c->h, r->cls));
				if (hp_heap_kind(c->h, r->v) == HP_OBJ_CLASS) {
					size_t ci = hp_idmap_get(&c->h->class_map, c->h->ids[r->v]);
					if (ci != HP_IDMAP_NONE)
						cJSON_AddStringToObject(e, "class_object_of", hp_class_name(c->h, ci));
				}
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
	if (!arr && k > shown && depth == 0 && !c->o->filter && !c->o->exclude) {
		char a[32];
		fprintf(c->f, "%*s... %s more\n", 33 + 2 * depth, "", fmt_count(k - shown, a, sizeof a));
	}
	hp_free(rows);
	return rc;
}

int cmd_dominators(struct cli_opts *o)
{
	struct cli_filter *flt = NULL;
	if ((o->filter || o->exclude) && !(flt = cli_filter_new(o->filter, o->exclude)))
		return EXIT_USAGE;
	struct cli_load L;
	struct hp_retained R;
	int rc = cli_load_retained(o, &L, &R);
	if (rc) {
		cli_filter_free(flt);
		hp_retained_release(&R);
		cli_load_release(&L);
		return rc;
	}
	hp_heap *h = L.heap;
	uint64_t all = R.reachable_bytes + R.unreachable_bytes;   /* the sum of every shallow size */
	struct dctx c = { .o = o, .h = h, .R = &R, .flt = flt, .total = all };
	if (o->json) {
		cJSON *j = json_begin("dominators", o, &L);
		cJSON_AddItemToObject(j, "size_model", json_size_model(h));
		json_policies(j, &R);
		json_u64(j, "depth", (uint64_t)o->depth);
		cJSON_AddBoolToObject(j, "grouped", o->group_class);
		cJSON *tot = cJSON_AddObjectToObject(j, "total");
		json_u64(tot, "objects", h->nobj);
		json_u64(tot, "shallow", all);
		json_u64(tot, "reachable_objects", R.reachable);
		json_u64(tot, "reachable_shallow", R.reachable_bytes);
		json_u64(tot, "unreachable_objects", R.unreachable);
		json_u64(tot, "unreachable_shallow", R.unreachable_bytes);
		cJSON *arr = cJSON_AddArrayToObject(j, "dominators");
		rc = show(&c, (uint32_t)h->nobj, 0, arr);
		if (rc == EXIT_OK)
			rc = cli_emit_json(o, j);
		else
			cJSON_Delete(j);
	} else {
		char *out = NULL;
		size_t cap = 0;
		c.f = open_memstream(&out, &cap);
		if (!c.f) {
			rc = EXIT_NOMEM;
		} else {
			char a[32], b[32], d[32], e[32];
			if (L.partial)
				fprintf(c.f, "warning: partial result: %s\n", L.partial_msg);
			fprintf(c.f, "%10s  %6s  %10s  %s\n", "retained", "%", "shallow", "object (\xe2\x97\x8f GC root)");
			rc = show(&c, (uint32_t)h->nobj, 0, NULL);
			fprintf(c.f, "heap: %s objects, %s; unreachable %s objects, %s (weak %s, roots %s)\n",
				fmt_count(h->nobj, a, sizeof a), fmt_bytes(all, b, sizeof b),
				fmt_count(R.unreachable, d, sizeof d), fmt_bytes(R.unreachable_bytes, e, sizeof e),
				hp_weak_policy_name(R.weak), roots_policy_name(R.roots_policy));
			if (fclose(c.f) != 0 || !out)
				rc = EXIT_NOMEM;
			if (rc == EXIT_OK)
				rc = cli_write_output(o, out);
			free(out);
		}
	}
	if (rc == EXIT_NOMEM)
		cli_error("out of memory");
	cli_print_stats(o, &L);
	cli_filter_free(flt);
	hp_retained_release(&R);
	cli_load_release(&L);
	return rc;
}
