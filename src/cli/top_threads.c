/* top_threads.c — hprofan top --by-thread: rows per thread instead of
 * classes, what each thread's Thread object or stack locals dominate
 * (analysis/threads.h), then what no thread dominates and the unreachable
 * rest; the table from its column list (table.h). */
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

int top_threads_collect(hp_session *S, struct top_result *t, size_t topn)
{
	const hp_heap *h = t->h;
	hp_objread *rd = NULL;
	struct hp_error err;
	hp_error_clear(&err);
	int rc;
	t->by_thread = 1;
	if ((rc = cli_objread(S, &rd)))
		return rc;
	if (hp_threads_memory(h, t->R, &t->M, &err) != HP_OK) {
		cli_error("%s: %s", hp_session_path(S), err.msg);
		return EXIT_NOMEM;
	}
	if (!(t->names = hp_calloc(t->M.n ? t->M.n : 1, sizeof *t->names))) {
		cli_error("out of memory");
		return EXIT_NOMEM;
	}
	for (size_t i = 0; i < t->M.n; i++)
		cli_thread_text(h, rd, h->threads[t->M.t[i].rec].serial, &t->names[i]);
	t->shown = topn && topn < t->M.n ? topn : t->M.n;
	return EXIT_OK;
}

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
		fprintf(f, "  %s @0x%llx", hp_text_safe(hp_class_name(h, h->cls[m->obj]), nm, sizeof nm),
			(unsigned long long)hp_heap_id(h, m->obj));
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
		cli_json_u64(e, key, h->threads[m->rec].serial);
	} else if (!strcmp(key, "name")) {
		if (t->names[i].utf8)
			cJSON_AddItemToObject(e, key, cli_text_json(&t->names[i]));
	} else if (m->obj != SIZE_MAX) {
		char id[32];
		snprintf(id, sizeof id, "0x%llx", (unsigned long long)hp_heap_id(h, m->obj));
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

void top_threads_json(const struct top_result *t, cJSON *j)
{
	const struct hp_threads_mem *M = &t->M;
	struct cli_table tb;
	struct hp_thread_mem rest;
	thread_table(t, &tb, &rest);
	cJSON *arr = cJSON_AddArrayToObject(j, "threads");
	for (size_t i = 0; i < t->shown; i++)
		cJSON_AddItemToArray(arr, cli_table_json(&tb, &M->t[i], i + 1, NULL));
	cJSON *r = cJSON_AddObjectToObject(j, "thread_rest");
	cli_json_u64(r, "threads_not_shown", M->n - t->shown);
	cli_json_u64(r, "not_shown_objects", rest.objects);
	cli_json_u64(r, "not_shown_bytes", rest.bytes);
	cli_json_u64(r, "shared_objects", M->shared_objects);
	cli_json_u64(r, "shared_bytes", M->shared_bytes);
	cli_json_u64(r, "unreachable_objects", M->unreachable_objects);
	cli_json_u64(r, "unreachable_bytes", M->unreachable_bytes);
	cli_json_u64(r, "objects", M->objects);
	cli_json_u64(r, "bytes", M->bytes);
}

void top_threads_text(const struct top_result *t, FILE *f)
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
	snprintf(line, sizeof line, "%s (weak %s, roots %s)", cli_fmt_counted(M->n, "thread", "threads", c, sizeof c),
		 hp_weak_policy_name(t->R->weak), cli_roots_policy_name(t->R->roots_policy));
	cli_table_line(&tb, f, &all, COL_TOTAL | CLI_WHOLE, "total", line);
}
