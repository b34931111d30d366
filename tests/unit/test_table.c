/*
 * test_table.c — tables declared as columns (src/cli/table.h): the header,
 * rows, summary lines and JSON objects one column list writes, checked
 * against the exact text and members expected.
 */
#include "cli/table.h"
#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int passed, failed;
#define CHECK(cond, ...) do { if (cond) passed++; else { failed++; printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } } while (0)

struct row {
	const char *name, *heap;
	uint64_t count, shallow, retained;
	uint32_t serial;
};

/* the cell a function writes */
static void tag_cell(const struct cli_table *t, const void *row, char *buf, size_t n)
{
	(void)t;
	snprintf(buf, n, "<%s>", ((const struct row *)row)->name);
}

enum { ON_RET = 1 };

#define R_(f) offsetof(struct row, f)
static const struct cli_col cols[] = {
	{ .title = "rank", .width = 4, .cell = CELL_RANK, .key = "rank", .at = 1 },
	{ .title = "n", .width = 3, .cell = CELL_COUNT, .flags = COL_FIT | COL_TOTAL | COL_MORE, .off = R_(count), .key = "count", .at = 3 },
	{ .title = "size", .width = 8, .cell = CELL_BYTES, .flags = COL_TOTAL | COL_MORE, .off = R_(shallow), .key = "shallow", .at = 4 },
	{ .title = "%", .width = 6, .cell = CELL_PCT, .flags = COL_TOTAL, .off = R_(shallow), .key = "percent", .at = 6 },
	{ .title = "ret", .width = 8, .cell = CELL_BYTES, .when = ON_RET, .off = R_(retained), .key = "retained", .at = 5 },
	{ .title = "avg", .width = 6, .cell = CELL_BYTES, .off = R_(shallow), .per = COL_PER(struct row, count), .gap = " " },
	{ .title = "heap", .width = 5, .cell = CELL_TEXT, .flags = COL_LEFT, .off = R_(heap), .cap = 8, .key = "heap", .at = 7 },
	{ .title = "name", .cell = CELL_TEXT, .off = R_(name), .key = "name", .at = 2 },
	{ .cell = CELL_INT, .flags = COL_U32, .off = R_(serial), .key = "serial", .at = 8 },
	{ .cell = CELL_FN, .fn = tag_cell },    /* neither text (no title) nor JSON (no key) */
};

/* what f wrote since the last call */
static char *out(FILE *f, char **buf, size_t *len)
{
	fflush(f);
	static size_t seen;
	char *s = strndup(*buf + seen, *len - seen);
	seen = *len;
	return s;
}

static void check_text(const char *what, FILE *f, char **buf, size_t *len, const char *want)
{
	char *got = out(f, buf, len);
	CHECK(!strcmp(got, want), "%s:\n got [%s]\nwant [%s]", what, got, want);
	free(got);
}

int main(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return 1;
	struct row rows[] = {
		{ "java.lang.String", "app", 12345, 3 << 20, 5 << 20, 7 },
		{ "a\x1b[31mb", "zygote", 2, 1000, 0, 8 },
		{ "c", NULL, 0, 0, 0, 9 },
	};
	struct cli_table t;

	/* without the retained column; "n" widened to 12,345 */
	CLI_TABLE_INIT(&t, cols, 0, 4 << 20, NULL);
	cli_table_fit_rows(&t, rows, 3, sizeof *rows);
	cli_table_header(&t, f);
	check_text("header", f, &buf, &len, "rank       n      size       %    avg  heap   name\n");
	cli_table_row(&t, f, &rows[0], 1);
	check_text("row: count, bytes, percent, average, text cut at cap", f, &buf, &len,
		   "   1  12,345  3.00 MiB   75.0%  254 B  app    java.lang.String\n");
	cli_table_row(&t, f, &rows[1], 2);
	check_text("row: text made safe for the terminal", f, &buf, &len,
		   "   2       2    1000 B    0.0%  500 B  zyg    a\\x1b[31mb\n");
	cli_table_row(&t, f, &rows[2], 3);
	check_text("row: NULL text blank, average of nothing 0", f, &buf, &len,
		   "   3       0       0 B    0.0%    0 B         c\n");

	/* summary lines: the total's columns, the label, the text last */
	struct row tot = { .count = 12347, .shallow = (3 << 20) + 1000 };
	cli_table_line(&t, f, &tot, COL_TOTAL, "all", "3 rows");
	check_text("total line", f, &buf, &len, " all  12,347  3.00 MiB   75.0%                3 rows\n");
	struct row more = { 0 };
	cli_table_sum(&t, COL_MORE, rows, 1, 3, sizeof *rows, &more);
	CHECK(more.count == 2 && more.shallow == 1000 && more.retained == 0, "sum of rows 1..3: %llu %llu",
	      (unsigned long long)more.count, (unsigned long long)more.shallow);
	char m[64];
	cli_table_line(&t, f, &more, COL_MORE, NULL, cli_more_text(2, "row", "rows", m, sizeof m));
	check_text("more line: COL_MORE columns only", f, &buf, &len,
		   "           2    1000 B                        \xe2\x80\xa6 2 more rows\n");
	cli_table_line(&t, f, &tot, COL_TOTAL | CLI_WHOLE, "", NULL);
	check_text("CLI_WHOLE: the percent is the whole", f, &buf, &len,
		   "      12,347  3.00 MiB  100.0%                \n");

	/* JSON: members by `at`, NULL text left out, the retained column only when on */
	CLI_TABLE_INIT(&t, cols, ON_RET, 4 << 20, NULL);
	cJSON *j = cli_table_json(&t, &rows[0], 1, NULL);
	char *js = cJSON_PrintUnformatted(j);
	CHECK(!strcmp(js, "{\"rank\":1,\"name\":\"java.lang.String\",\"count\":12345,\"shallow\":3145728,"
			  "\"retained\":5242880,\"percent\":75,\"heap\":\"app\",\"serial\":7}"), "json row: %s", js);
	free(js);
	cJSON_Delete(j);
	j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "id", "0x10");
	cli_table_json(&t, &rows[2], 3, j);
	js = cJSON_PrintUnformatted(j);
	CHECK(!strcmp(js, "{\"id\":\"0x10\",\"rank\":3,\"name\":\"c\",\"count\":0,\"shallow\":0,\"retained\":0,"
			  "\"percent\":0,\"serial\":9}"), "json into an object, no heap: %s", js);
	free(js);
	cJSON_Delete(j);
	cli_table_header(&t, f);
	check_text("header with the retained column", f, &buf, &len, "rank    n      size       %       ret    avg  heap   name\n");

	/* the percent cut at two decimals, both roundings */
	static const struct cli_col pcols[] = {
		{ .title = "a", .width = 6, .cell = CELL_PCT, .off = R_(count), .key = "a", .at = 1 },
		{ .title = "b", .width = 6, .cell = CELL_PCT, .flags = COL_PCT100, .off = R_(count), .key = "b", .at = 2 },
		{ .title = "note", .flags = COL_NOTE },
	};
	struct row p = { .count = 2 };
	CLI_TABLE_INIT(&t, pcols, 0, 3, NULL);
	j = cli_table_json(&t, &p, 0, NULL);
	js = cJSON_PrintUnformatted(j);
	CHECK(!strcmp(js, "{\"a\":66.66,\"b\":66.66}"), "percents: %s", js);
	free(js);
	cJSON_Delete(j);
	cli_table_header(&t, f);
	check_text("a note after the titles", f, &buf, &len, "     a       b  note\n");
	cli_table_row(&t, f, &p, 0);
	check_text("a note has no cell", f, &buf, &len, " 66.7%   66.7%\n");

	/* signed cells, a title set to a kind, padding by characters */
	struct srow { int64_t d; const char *spark, *name; };
	static const struct cli_col scols[] = {
		{ .title = "delta", .width = 7, .cell = CELL_DBYTES, .off = offsetof(struct srow, d) },
		{ .title = "n", .width = 4, .cell = CELL_DCOUNT, .off = offsetof(struct srow, d) },
		{ .title = "sp", .width = 5, .cell = CELL_TEXT, .flags = COL_LEFT | COL_CHARS, .off = offsetof(struct srow, spark) },
		{ .title = "class", .cell = CELL_TEXT, .off = offsetof(struct srow, name) },
	};
	struct srow sr[] = { { -2048, "\xe2\x96\x81\xe2\x96\x88", "x" }, { 5, "abc", "y" } };
	CLI_TABLE_INIT(&t, scols, 0, 0, NULL);
	cli_table_set_title(&t, "class", "package");
	cli_table_header(&t, f);
	cli_table_row(&t, f, &sr[0], 1);
	cli_table_row(&t, f, &sr[1], 2);
	j = cli_table_json(&t, &sr[0], 1, NULL);
	js = cJSON_PrintUnformatted(j);
	CHECK(!js || !strcmp(js, "{}"), "no keys, no members: %s", js ? js : "(null)");
	free(js);
	cJSON_Delete(j);
	static const struct cli_col dcols[] = {
		{ .cell = CELL_DCOUNT, .off = offsetof(struct srow, d), .key = "d", .at = 1 },
	};
	struct srow big = { .d = -9007199254740993LL };
	CLI_TABLE_INIT(&t, dcols, 0, 0, NULL);
	j = cli_table_json(&t, &big, 0, NULL);
	js = cJSON_PrintUnformatted(j);
	CHECK(!strcmp(js, "{\"d\":-9007199254740993}"), "signed JSON exact past 2^53: %s", js);
	free(js);
	cJSON_Delete(j);
	check_text("signed cells, a title set, sparklines padded by characters", f, &buf, &len,
		   "  delta     n  sp     package\n"
		   "-2.00 KiB  -2,048  \xe2\x96\x81\xe2\x96\x88     x\n"
		   "   +5 B    +5  abc    y\n");

	fclose(f);
	free(buf);
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
