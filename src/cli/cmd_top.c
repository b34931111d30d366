/* hprofan FILE --top [N]: the class histogram, one streaming pass. */
#include "cli/cli.h"
#include "parser/alloc.h"

#include <stdlib.h>
#include <string.h>

struct trow {
	const struct hp_hrow *r;
	const char *name;
	const char *heap;
	uint64_t count, shallow, retained;
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

int cmd_top(struct cli_opts *o)
{
	int with_ret = !o->fast;
	if (with_ret && strcmp(o->file, "-") == 0) {
		with_ret = 0;
		if (!o->quiet)
			cli_warn("reading from a pipe: shallow sizes only (retained sizes need to read the file again; --fast says this is fine)");
	}
	const char *sort = o->sort ? o->sort : with_ret ? "retained" : "shallow";
	int (*cmp)(const void *, const void *) = by_shallow;
	if (strcmp(sort, "retained") == 0) {
		if (!with_ret) {
			cli_error("--sort=retained needs retained sizes (not with --fast or a pipe)");
			return EXIT_USAGE;
		}
		cmp = by_retained;
	} else if (strcmp(sort, "shallow") == 0)
		cmp = by_shallow;
	else if (strcmp(o->sort, "count") == 0)
		cmp = by_count;
	else if (strcmp(o->sort, "name") == 0)
		cmp = by_name;
	else {
		cli_error("--sort=%s: expected retained, shallow, count or name", o->sort);
		return EXIT_USAGE;
	}
	struct cli_filter *flt = NULL;
	if ((o->filter || o->exclude) && !(flt = cli_filter_new(o->filter, o->exclude)))
		return EXIT_USAGE;

	struct cli_load L;
	struct hp_retained R;
	memset(&R, 0, sizeof R);
	int rc = with_ret ? cli_load_retained(o, &L, &R) : cli_load_dump(o, 0, &L);
	if (rc) {
		cli_filter_free(flt);
		hp_retained_release(&R);
		cli_load_release(&L);
		return rc;
	}
	hp_heap *h = L.heap;
	int android = h->header.version == 3;
	int heap_filter = -1;
	if (o->heap) {
		for (unsigned i = 0; i < h->nheaps; i++)
			if (h->heap_objects[i] && hp_heap_name(h, i)[0] && strcmp(hp_heap_name(h, i), o->heap) == 0)
				heap_filter = (int)i;
		if (heap_filter < 0) {
			char names[256] = "";
			size_t nl = 0;
			for (unsigned i = 0; i < h->nheaps; i++) {
				if (!h->heap_objects[i] || !hp_heap_name(h, i)[0])
					continue;
				int k = snprintf(names + nl, sizeof names - nl, "%s%s", nl ? ", " : "", hp_heap_name(h, i));
				if (k > 0 && (size_t)k < sizeof names - nl)
					nl += (size_t)k;
			}
			if (nl)
				cli_error("%s: --heap %s: no such heap (the dump has: %s)", o->file, o->heap, names);
			else
				cli_error("%s: --heap %s: this dump has no Android heaps", o->file, o->heap);
			cli_filter_free(flt);
			hp_retained_release(&R);
			cli_load_release(&L);
			return EXIT_USAGE;
		}
	}
	struct trow *rows = hp_reallocarray(NULL, h->nrows ? h->nrows : 1, sizeof *rows);
	if (!rows) {
		cli_error("out of memory");
		cli_filter_free(flt);
		hp_retained_release(&R);
		cli_load_release(&L);
		return EXIT_NOMEM;
	}
	size_t n = 0;
	uint64_t tot_count = 0, tot_shallow = 0, all_shallow = 0;
	for (size_t i = 0; i < h->nrows; i++) {
		const struct hp_hrow *r = &h->rows[i];
		uint64_t cnt = r->count + r->class_objs;
		if (!cnt)
			continue;
		if (heap_filter >= 0 && r->heap != heap_filter)
			continue;
		all_shallow += r->shallow;
		const char *name = hp_class_name(h, r->cls);
		if (!cli_filter_match(flt, name))
			continue;
		rows[n].r = r;
		rows[n].name = name;
		rows[n].heap = hp_heap_name(h, r->heap);
		rows[n].count = cnt;
		rows[n].shallow = r->shallow;
		rows[n].retained = with_ret ? R.row_retained[i] : 0;
		tot_count += cnt;
		tot_shallow += r->shallow;
		n++;
	}
	/* the retained set of everything the selected rows hold */
	uint64_t set_in = 0, set_objs = 0, set_bytes = 0;
	if (o->retained_set) {
		if (!with_ret) {
			cli_error("--retained-set needs retained sizes (not with --fast or a pipe)");
			rc = EXIT_USAGE;
			goto done;
		}
		uint8_t *sel = hp_calloc(h->nrows ? h->nrows : 1, 1);
		uint8_t *in_set = hp_calloc(h->nobj ? h->nobj : 1, 1);
		struct hp_error err;
		hp_error_clear(&err);
		if (!sel || !in_set) {
			hp_free(sel);
			hp_free(in_set);
			rc = EXIT_NOMEM;
			goto done;
		}
		for (size_t i = 0; i < n; i++)
			sel[rows[i].r - h->rows] = 1;
		for (size_t v = 0; v < h->nobj; v++) {
			unsigned hp = hp_heap_heap(h, v);
			for (uint32_t r = h->classes[h->cls[v]].row; r != HP_NONE; r = h->rows[r].next)
				if (h->rows[r].heap == hp) {
					if (sel[r]) {
						in_set[v] = 1;
						set_in++;
					}
					break;
				}
		}
		int src = hp_retained_set(h, &R, in_set, &set_objs, &set_bytes, &err);
		hp_free(sel);
		hp_free(in_set);
		if (src) {
			cli_error("%s: %s", o->file, err.msg);
			rc = EXIT_NOMEM;
			goto done;
		}
	}
	qsort(rows, n, sizeof *rows, cmp);
	size_t shown = o->top > 0 && (size_t)o->top < n ? (size_t)o->top : n;

	if (o->json) {
		cJSON *j = json_begin("top", o, &L);
		cJSON_AddItemToObject(j, "size_model", json_size_model(h));
		cJSON_AddStringToObject(j, "sort", sort);
		cJSON_AddBoolToObject(j, "retained_sizes", with_ret);
		if (with_ret)
			json_policies(j, &R);
		if (o->filter)
			cJSON_AddStringToObject(j, "filter", o->filter);
		if (o->exclude)
			cJSON_AddStringToObject(j, "exclude", o->exclude);
		if (o->heap)
			cJSON_AddStringToObject(j, "heap", o->heap);
		cJSON *tot = cJSON_AddObjectToObject(j, "total");
		json_u64(tot, "classes", n);
		json_u64(tot, "instances", tot_count);
		json_u64(tot, "shallow", tot_shallow);
		json_u64(tot, "heap_shallow", all_shallow);
		if (with_ret) {
			json_u64(tot, "reachable_objects", R.reachable);
			json_u64(tot, "reachable_shallow", R.reachable_bytes);
			json_u64(tot, "unreachable_objects", R.unreachable);
			json_u64(tot, "unreachable_shallow", R.unreachable_bytes);
		}
		json_u64(j, "shown", shown);
		if (o->retained_set) {
			cJSON *rs = cJSON_AddObjectToObject(j, "retained_set");
			json_u64(rs, "objects_in_set", set_in);
			json_u64(rs, "objects", set_objs);
			json_u64(rs, "shallow", set_bytes);
		}
		cJSON *arr = cJSON_AddArrayToObject(j, "classes");
		for (size_t i = 0; i < shown; i++) {
			cJSON *e = cJSON_CreateObject();
			json_u64(e, "rank", i + 1);
			cJSON_AddStringToObject(e, "class", rows[i].name);
			if (android)
				cJSON_AddStringToObject(e, "heap", rows[i].heap);
			json_u64(e, "instances", rows[i].count);
			json_u64(e, "shallow", rows[i].shallow);
			if (with_ret)
				json_u64(e, "retained", rows[i].retained);
			json_u64(e, "largest", rows[i].r->max_shallow);
			cJSON_AddNumberToObject(e, "percent",
				all_shallow ? (double)(int64_t)(10000.0 * rows[i].shallow / all_shallow) / 100.0 : 0.0);
			cJSON_AddItemToArray(arr, e);
		}
		cJSON *w = cJSON_AddArrayToObject(j, "warnings");
		for (size_t i = 0; i < h->nwarnings; i++)
			cJSON_AddItemToArray(w, cJSON_CreateString(hp_heap_warning(h, i)));
		rc = cli_emit_json(o, j);
	} else {
		/* build the table in memory so -o can write it atomically */
		char *out = NULL;
		size_t cap = 0;
		FILE *f = open_memstream(&out, &cap);
		if (!f) {
			rc = EXIT_NOMEM;
			goto done;
		}
		char a[32], b[32], nm[1024];
		int cw = 9;     /* width of the instances column */
		for (size_t i = 0; i < shown; i++) {
			int l = (int)strlen(fmt_count(rows[i].count, a, sizeof a));
			if (l > cw)
				cw = l;
		}
		int hw = 0;
		if (android) {
			hw = 4;
			for (unsigned i = 0; i < h->nheaps; i++)
				if ((int)strlen(hp_heap_name(h, i)) > hw)
					hw = (int)strlen(hp_heap_name(h, i));
		}
#define OUT(...) fprintf(f, __VA_ARGS__)
		if (L.partial)
			OUT("warning: partial result: the dump could not be read to its end (--salvage)\n");
		OUT("%5s  %*s  %10s  %6s", "rank", cw, "instances", "shallow", "%");
		if (with_ret)
			OUT("  %10s  %6s", "retained", "%");
		if (android)
			OUT("  %-*s", hw, "heap");
		OUT("  %s\n", "class");
		for (size_t i = 0; i < shown; i++) {
			double pct = all_shallow ? 100.0 * rows[i].shallow / all_shallow : 0;
			safe_text(rows[i].name, nm, sizeof nm);
			OUT("%5zu  %*s  %10s  %5.1f%%", i + 1, cw, fmt_count(rows[i].count, a, sizeof a),
			    fmt_bytes(rows[i].shallow, b, sizeof b), pct);
			if (with_ret)
				OUT("  %10s  %5.1f%%", fmt_bytes(rows[i].retained, b, sizeof b),
				    all_shallow ? 100.0 * rows[i].retained / all_shallow : 0.0);
			if (android)
				OUT("  %-*s", hw, rows[i].heap);
			OUT("  %s\n", nm);
		}
		char c1[32];
		OUT("%5s  %*s  %10s  %5.1f%%", "total", cw, fmt_count(tot_count, a, sizeof a),
		    fmt_bytes(tot_shallow, b, sizeof b), all_shallow ? 100.0 * tot_shallow / all_shallow : 0.0);
		if (with_ret)
			OUT("  %10s  %6s", "", "");
		if (android)
			OUT("  %-*s", hw, "");
		OUT("  %s classes%s (size model %s: ref %u, header %u, align %u)\n", fmt_count(n, c1, sizeof c1),
		    shown < n ? ", top rows shown" : "", hp_size_kind_name(h->size.kind),
		    h->size.ref_size, h->size.header, h->size.align);
		if (o->retained_set) {
			char u1[32], u2[32], u3[32];
			OUT("retained set of the %s objects of these %s rows: %s objects, %s\n",
			    fmt_count(set_in, u1, sizeof u1), fmt_count(n, u3, sizeof u3),
			    fmt_count(set_objs, u2, sizeof u2), fmt_bytes(set_bytes, c1, sizeof c1));
		}
		if (with_ret) {
			char u1[32], u2[32];
			OUT("unreachable: %s objects, %s (not retained by any GC root; references: weak %s, roots %s)\n",
			    fmt_count(R.unreachable, u1, sizeof u1), fmt_bytes(R.unreachable_bytes, u2, sizeof u2),
			    hp_weak_policy_name(R.weak), roots_policy_name(R.roots_policy));
		}
#undef OUT
		if (fclose(f) != 0 || !out) {
			free(out);
			rc = EXIT_NOMEM;
			goto done;
		}
		rc = cli_write_output(o, out);
		free(out);
		for (size_t i = 0; i < h->nwarnings && !o->quiet; i++)
			cli_warn("%s", hp_heap_warning(h, i));
	}
done:
	if (rc == EXIT_NOMEM)
		cli_error("out of memory");
	cli_print_stats(o, &L);
	hp_free(rows);
	cli_filter_free(flt);
	hp_retained_release(&R);
	cli_load_release(&L);
	return rc;
}
