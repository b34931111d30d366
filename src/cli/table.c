/* table.c — tables declared as columns (table.h): the header, the rows,
 * the summary lines and the rows' JSON objects written from one list. */
#include "cli/table.h"
#include "cli/cli.h"
#include "cli/format.h"
#include "cli/output.h"
#include "base/text.h"

#include <inttypes.h>
#include <string.h>

void cli_table_init(struct cli_table *t, const struct cli_col *cols, size_t n, unsigned on, uint64_t base,
		    const void *ctx)
{
	memset(t, 0, sizeof *t);
	t->cols = cols;
	t->ncols = n > CLI_TABLE_COLS ? CLI_TABLE_COLS : n;
	t->on = on;
	t->base = base;
	t->ctx = ctx;
	for (size_t k = 0; k < t->ncols; k++) {
		t->width[k] = cols[k].width;
		t->title[k] = cols[k].title;
		if (!cols[k].key || !cli_table_shown(t, k))
			continue;
		/* insertion by `at`, stable */
		size_t i = t->njson++;
		while (i > 0 && cols[t->jorder[i - 1]].at > cols[k].at) {
			t->jorder[i] = t->jorder[i - 1];
			i--;
		}
		t->jorder[i] = (unsigned char)k;
	}
}

int cli_table_shown(const struct cli_table *t, size_t k)
{
	return (t->cols[k].when & t->on) == t->cols[k].when;
}

static uint64_t u64_at(const void *row, size_t off)
{
	uint64_t v;
	memcpy(&v, (const char *)row + off, sizeof v);
	return v;
}

static uint64_t value(const struct cli_col *c, const void *row)
{
	uint64_t v;
	if (c->flags & COL_U32) {
		uint32_t w;
		memcpy(&w, (const char *)row + c->off, sizeof w);
		v = w;
	} else {
		v = u64_at(row, c->off);
	}
	if (c->per) {
		uint64_t d = u64_at(row, c->per - 1);
		v = d ? v / d : 0;
	}
	return v;
}

static int64_t svalue(const struct cli_col *c, const void *row)
{
	int64_t v;
	memcpy(&v, (const char *)row + c->off, sizeof v);
	return v;
}

static const char *text_at(const struct cli_col *c, const void *row)
{
	const char *s;
	memcpy(&s, (const char *)row + c->off, sizeof s);
	return s;
}

static double percent(const struct cli_table *t, uint64_t v)
{
	return t->base ? 100.0 * v / t->base : 0.0;
}

/* the cell of column k for row into buf */
static const char *cell(const struct cli_table *t, size_t k, const void *row, size_t rank, char *buf, size_t n)
{
	const struct cli_col *c = &t->cols[k];
	size_t cap = c->cap ? c->cap : CLI_TEXT_MAX;
	if (cap > n)
		cap = n;
	buf[0] = '\0';
	switch (c->cell) {
	case CELL_RANK:
		snprintf(buf, n, "%zu", rank);
		break;
	case CELL_INT:
		snprintf(buf, n, "%llu", (unsigned long long)value(c, row));
		break;
	case CELL_COUNT:
		cli_fmt_count(value(c, row), buf, n);
		break;
	case CELL_BYTES:
		cli_fmt_bytes(value(c, row), buf, n);
		break;
	case CELL_DCOUNT:
		cli_fmt_dcount(svalue(c, row), buf, n);
		break;
	case CELL_DBYTES:
		cli_fmt_dbytes(svalue(c, row), buf, n);
		break;
	case CELL_PCT:
		snprintf(buf, n, "%.1f%%", percent(t, value(c, row)));
		break;
	case CELL_TEXT: {
		const char *s = text_at(c, row);
		if (s)
			hp_text_safe(s, buf, cap);
		break;
	}
	case CELL_FN:
		if (c->fn)
			c->fn(t, row, buf, n);
		break;
	}
	return buf;
}

void cli_table_fit(struct cli_table *t, const void *row, size_t rank)
{
	char buf[CLI_CELL_MAX];
	for (size_t k = 0; k < t->ncols; k++) {
		if (!(t->cols[k].flags & COL_FIT) || t->cols[k].put || !cli_table_shown(t, k))
			continue;
		int l = (int)strlen(cell(t, k, row, rank, buf, sizeof buf));
		if (l > t->width[k])
			t->width[k] = l;
	}
}

void cli_table_fit_rows(struct cli_table *t, const void *rows, size_t n, size_t size)
{
	for (size_t i = 0; i < n; i++)
		cli_table_fit(t, (const char *)rows + i * size, i + 1);
}

void cli_table_set_width(struct cli_table *t, const char *title, int w)
{
	for (size_t k = 0; k < t->ncols; k++)
		if (t->cols[k].title && !strcmp(t->cols[k].title, title))
			t->width[k] = w;
}

void cli_table_set_title(struct cli_table *t, const char *title, const char *to)
{
	for (size_t k = 0; k < t->ncols; k++)
		if (t->cols[k].title && !strcmp(t->cols[k].title, title))
			t->title[k] = to;
}

/* the columns written as text, in order: k, or ncols past the last
 * (notes: only when `notes`) */
static size_t next_col(const struct cli_table *t, size_t k, int notes)
{
	while (k < t->ncols && (!t->cols[k].title || !cli_table_shown(t, k) || (!notes && (t->cols[k].flags & COL_NOTE))))
		k++;
	return k;
}

static size_t next_text(const struct cli_table *t, size_t k)
{
	return next_col(t, k, 0);
}

static void put(const struct cli_table *t, FILE *f, size_t k, int first, const char *s)
{
	const struct cli_col *c = &t->cols[k];
	int w = t->width[k];
	fputs(c->gap ? c->gap : first ? "" : "  ", f);
	if (c->flags & COL_CHARS) {
		/* printf pads bytes: widened by the bytes that continue a character */
		for (const char *p = s; *p; p++)
			if ((*p & 0xc0) == 0x80)
				w++;
	}
	fprintf(f, c->flags & COL_LEFT ? "%-*s" : "%*s", w, s);
}

void cli_table_header(const struct cli_table *t, FILE *f)
{
	int first = 1;
	for (size_t k = next_col(t, 0, 1); k < t->ncols; k = next_col(t, k + 1, 1), first = 0)
		put(t, f, k, first, t->title[k] ? t->title[k] : "");
	fputc('\n', f);
}

void cli_table_row(const struct cli_table *t, FILE *f, const void *row, size_t rank)
{
	char buf[CLI_CELL_MAX];
	int first = 1;
	for (size_t k = next_text(t, 0); k < t->ncols; k = next_text(t, k + 1), first = 0) {
		const struct cli_col *c = &t->cols[k];
		if (c->put) {
			put(t, f, k, first, "");
			c->put(t, row, f);
		} else {
			put(t, f, k, first, cell(t, k, row, rank, buf, sizeof buf));
		}
	}
	fputc('\n', f);
}

void cli_table_line(const struct cli_table *t, FILE *f, const void *row, unsigned line, const char *label,
		    const char *text)
{
	char buf[CLI_CELL_MAX];
	int first = 1;
	for (size_t k = next_text(t, 0); k < t->ncols; k = next_text(t, k + 1), first = 0) {
		const struct cli_col *c = &t->cols[k];
		const char *s = "";
		if (next_text(t, k + 1) == t->ncols)
			s = text ? text : "";
		else if (c->cell == CELL_RANK)
			s = label ? label : "";
		else if ((line & CLI_WHOLE) && c->cell == CELL_PCT && (c->flags & line))
			s = "100.0%";
		else if (row && (c->flags & line))
			s = cell(t, k, row, 0, buf, sizeof buf);
		put(t, f, k, first, s);
	}
	fputc('\n', f);
}

cJSON *cli_table_json(const struct cli_table *t, const void *row, size_t rank, cJSON *obj)
{
	if (!obj)
		obj = cJSON_CreateObject();
	for (size_t j = 0; j < t->njson; j++) {
		const struct cli_col *c = &t->cols[t->jorder[j]];
		switch (c->cell) {
		case CELL_RANK:
			cli_json_u64(obj, c->key, rank);
			break;
		case CELL_INT:
		case CELL_COUNT:
		case CELL_BYTES:
			cli_json_u64(obj, c->key, value(c, row));
			break;
		case CELL_DCOUNT:
		case CELL_DBYTES: {
			/* exact, as cli_json_u64() writes the unsigned ones */
			char b[32];
			snprintf(b, sizeof b, "%" PRId64, svalue(c, row));
			cJSON_AddItemToObject(obj, c->key, cJSON_CreateRaw(b));
			break;
		}
		case CELL_PCT: {
			uint64_t v = value(c, row);
			double p = !t->base ? 0.0
				 : c->flags & COL_PCT100 ? (double)(int64_t)(percent(t, v) * 100) / 100.0
				 : (double)(int64_t)(10000.0 * v / t->base) / 100.0;
			cJSON_AddNumberToObject(obj, c->key, p);
			break;
		}
		case CELL_TEXT: {
			const char *s = text_at(c, row);
			if (s)
				cJSON_AddStringToObject(obj, c->key, s);
			break;
		}
		case CELL_FN:
			if (c->json)
				c->json(t, row, obj, c->key);
			break;
		}
	}
	return obj;
}

void cli_table_sum(const struct cli_table *t, unsigned line, const void *rows, size_t from, size_t to, size_t size,
		   void *out)
{
	size_t done[CLI_TABLE_COLS], nd = 0;   /* offsets summed (a size and its percent share one) */
	for (size_t k = 0; k < t->ncols; k++) {
		const struct cli_col *c = &t->cols[k];
		if (!(c->flags & line) || c->per || (c->flags & COL_U32) || c->cell == CELL_RANK || c->cell == CELL_TEXT ||
		    c->cell == CELL_FN)
			continue;
		size_t d = 0;
		while (d < nd && done[d] != c->off)
			d++;
		if (d < nd)
			continue;      /* a percent of a size summed already */
		done[nd++] = c->off;
		uint64_t s = u64_at(out, c->off);
		for (size_t i = from; i < to; i++)
			s += u64_at((const char *)rows + i * size, c->off);   /* signed cells wrap alike */
		memcpy((char *)out + c->off, &s, sizeof s);
	}
}

const char *cli_more_text(uint64_t n, const char *one, const char *many, char *buf, size_t cap)
{
	char c[32];
	if (one)
		snprintf(buf, cap, "\xe2\x80\xa6 %s more %s", cli_fmt_count(n, c, sizeof c), n == 1 ? one : many);
	else
		snprintf(buf, cap, "\xe2\x80\xa6 %s more", cli_fmt_count(n, c, sizeof c));
	return buf;
}
