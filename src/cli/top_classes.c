/* top_classes.c — hprofan top's class histogram: a row per class (and
 * heap), with retained sizes or, with --fast or from a pipe, shallow sizes
 * only; under each row how its objects spread over size buckets
 * (--buckets); after the table the retained set of all the rows'
 * objects (--retained-set).  The table from its column list (table.h). */
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

#include <string.h>

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

cJSON *top_buckets_json(const struct hp_bucket_row *b)
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


int top_buckets_collect(struct top_result *t)
{
	const hp_heap *h = t->h;
	if (!(t->buckets = hp_reallocarray(NULL, h->nrows ? h->nrows : 1, sizeof *t->buckets))) {
		cli_error("out of memory");
		return EXIT_NOMEM;
	}
	hp_buckets_collect(h, t->buckets);
	for (size_t i = 0; i < t->n; i++)
		for (unsigned k = 0; k < HP_NBUCKETS; k++) {
			t->bucket_total.count[k] += t->buckets[t->rows[i].r - h->rows].count[k];
			t->bucket_total.bytes[k] += t->buckets[t->rows[i].r - h->rows].bytes[k];
		}
	return EXIT_OK;
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
	{ .title = "avg", .width = 8, .cell = CELL_BYTES, .off = TR_(shallow), .per = COL_PER(struct trow, count), .key = "average", .at = 11 },
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

void top_classes_json(const struct top_result *t, cJSON *j)
{
	const hp_heap *h = t->h;
	struct cli_table tb;
	class_table(t, &tb);
	cJSON *arr = cJSON_AddArrayToObject(j, "classes");
	for (size_t i = 0; i < t->shown; i++) {
		cJSON *e = cli_table_json(&tb, &t->rows[i], i + 1, NULL);
		if (t->buckets)
			cJSON_AddItemToObject(e, "buckets", top_buckets_json(&t->buckets[t->rows[i].r - h->rows]));
		cJSON_AddItemToArray(arr, e);
	}
}

void top_classes_text(const struct top_result *t, FILE *f)
{
	const hp_heap *h = t->h;
	struct cli_table tb;
	class_table(t, &tb);
	cli_table_fit_rows(&tb, t->rows, t->shown, sizeof *t->rows);
	if (t->android) {
		/* as wide as the widest heap name of the dump */
		int hw = 4;
		char hn[256];
		for (unsigned i = 0; i < h->nheaps; i++)
			if ((int)strlen(hp_text_safe(hp_heap_name(h, i), hn, sizeof hn)) > hw)
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
		 cli_fmt_counted(t->n, "class", "classes", c1, sizeof c1), t->shown < t->n ? ", top rows shown" : "",
		 hp_size_kind_name(h->size.kind), h->size.ref_size, h->size.header, h->size.align);
	struct trow tot = { .count = t->tot_count, .shallow = t->tot_shallow, .native = t->tot_native };
	cli_table_line(&tb, f, &tot, COL_TOTAL, "total", tail);
	if (t->buckets)
		text_buckets(t->shown < t->n ? "sizes of all the rows" : "sizes", &t->bucket_total, f);
}

/* ---- --retained-set ---------------------------------------------------- */

/* the retained set of everything the selected rows hold */
int top_retained_set(hp_session *S, struct top_result *t)
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

void top_retained_set_text(const struct top_result *t, FILE *f)
{
	char u1[48], u2[48], u3[48], c1[32];
	char rows[64];
	if (t->n == 1)
		snprintf(rows, sizeof rows, "this row");
	else
		snprintf(rows, sizeof rows, "these %s rows", cli_fmt_count(t->n, u3, sizeof u3));
	fprintf(f, "retained set of the %s in %s: %s, %s\n",
		cli_fmt_counted(t->set_in, "object", "objects", u1, sizeof u1), rows,
		cli_fmt_counted(t->set_objs, "object", "objects", u2, sizeof u2), cli_fmt_bytes(t->set_bytes, c1, sizeof c1));
}
