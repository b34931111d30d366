/*
 * table.h — a table a command prints, declared once as its columns.
 *
 * A column (htop's Process_fields[]) is one line: its title, its width and
 * side, what kind of cell it is (a rank, a count with thousands
 * separators, a size in KiB/MiB, a percent of the table's base, text made
 * safe for the terminal, or a function's), where its value is in the row
 * struct, which summary lines (total, "… N more") show it, its JSON member
 * and that member's place, and the conditions under which it is shown.
 * From that one list the header, each row, the summary lines and each
 * row's JSON object are written, so a new column is one more line.
 *
 * A row is any struct the command has; a value is a uint64_t (a uint32_t
 * with COL_U32, an int64_t for the signed cells, a const char * for text)
 * at `off` in it.  Rows are
 * written one at a time (cli_table_row()), so a command can put its own
 * lines between them (a tree's children, a row's detail).  Nothing is
 * allocated: a struct cli_table lives on the caller's stack; JSON objects
 * belong to the caller.  Widths are in bytes, as printf pads.
 */
#ifndef HP_CLI_TABLE_H
#define HP_CLI_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cjson/cJSON.h>

enum cli_cell {
	CELL_RANK,      /* the rank cli_table_row() is given; a summary line's label */
	CELL_INT,       /* uint64_t as "%llu" (a serial) */
	CELL_COUNT,     /* uint64_t: "12,345" */
	CELL_BYTES,     /* uint64_t: "1.2 MiB"; JSON: the bytes */
	CELL_DCOUNT,    /* int64_t: "+12,345", "-3"; JSON: the number */
	CELL_DBYTES,    /* int64_t: "+1.2 MiB" */
	CELL_PCT,       /* uint64_t as a percent of the table's base: "12.5%";
			 * JSON: to two decimals, cut (10000·v/base, /100) */
	CELL_TEXT,      /* const char *, made safe for the terminal; NULL: blank
			 * (JSON: no member) */
	CELL_FN         /* the column's fn writes the text, its json the member */
};

/* flags */
#define COL_LEFT    0x01u       /* aligned left (default right) */
#define COL_FIT     0x02u       /* widened to its widest cell (cli_table_fit()) */
#define COL_PCT100  0x04u       /* CELL_PCT's JSON: (100·v/base)·100 cut, /100 */
#define COL_U32     0x08u       /* the value is a uint32_t */
#define COL_NOTE    0x10u       /* a note after the header's titles: no cell in the lines */
#define COL_CHARS   0x20u       /* padded to `width` characters of UTF-8, not bytes */
/* the summary lines that show a column's value (a line is written with
 * one of these; a column without it is blank there) */
#define COL_TOTAL   0x100u
#define COL_MORE    0x200u
#define COL_LINE3   0x400u      /* a third kind of line, the command's own */

struct cli_table;
/* CELL_FN: the cell's text into buf (at most n bytes) */
typedef void (*cli_cell_fn)(const struct cli_table *t, const void *row, char *buf, size_t n);
/* CELL_FN: the cell written to f as it is, however long (the last column) */
typedef void (*cli_cell_put)(const struct cli_table *t, const void *row, FILE *f);
/* CELL_FN: its member(s) added to obj (key: the column's) */
typedef void (*cli_cell_json)(const struct cli_table *t, const void *row, cJSON *obj, const char *key);

struct cli_col {
	const char *title;      /* the header; NULL: a JSON member only */
	int width;              /* at least this wide; 0: as its text (the last column) */
	int cell;               /* enum cli_cell */
	unsigned flags;         /* COL_* */
	unsigned when;          /* shown when the table's `on` has all these bits */
	size_t off;             /* the value: at this offset of the row */
	size_t per;             /* 0, or COL_PER(): a uint64_t of the row the value
				 * is divided by (an average; 0 when that is 0) */
	const char *key;        /* JSON member; NULL: text only */
	int at;                 /* its place among the row's members, 1 first */
	const char *gap;        /* written before it; NULL: two spaces, none
				 * before the first column shown */
	size_t cap;             /* CELL_TEXT: at most cap - 1 bytes (0: CLI_TEXT_MAX) */
	cli_cell_fn fn;         /* CELL_FN: the text (bounded: CLI_CELL_MAX), or */
	cli_cell_put put;       /*   written as it is */
	cli_cell_json json;     /* CELL_FN: the JSON member(s) */
};

#define COL_PER(type, field) (1 + offsetof(type, field))

#define CLI_TEXT_MAX 1024
#define CLI_CELL_MAX 8192
#define CLI_TABLE_COLS 24

struct cli_table {
	const struct cli_col *cols;
	size_t ncols;
	unsigned on;            /* the conditions that hold (the columns' `when`) */
	uint64_t base;          /* what CELL_PCT is a percent of */
	const void *ctx;        /* for the columns' functions: the command's result */
	int width[CLI_TABLE_COLS];
	const char *title[CLI_TABLE_COLS];
	unsigned char jorder[CLI_TABLE_COLS];   /* JSON members by `at` */
	size_t njson;
};

/* a table of the n columns cols (at most CLI_TABLE_COLS) */
void cli_table_init(struct cli_table *t, const struct cli_col *cols, size_t n, unsigned on, uint64_t base,
		    const void *ctx);
/* the same for an array cols, its length checked when compiled */
#define CLI_TABLE_INIT(t, cols, on, base, ctx) \
	((void)sizeof(char[sizeof(cols) / sizeof *(cols) <= CLI_TABLE_COLS ? 1 : -1]), \
	 cli_table_init(t, cols, sizeof(cols) / sizeof *(cols), on, base, ctx))
/* COL_FIT columns widened to their cell in row (ranked rank); _rows: the
 * widest among n rows of `size` bytes each at rows (ranks 1..n) */
void cli_table_fit(struct cli_table *t, const void *row, size_t rank);
void cli_table_fit_rows(struct cli_table *t, const void *rows, size_t n, size_t size);
/* the width of the column titled `title` set to w (the widest of values
 * the rows do not show); no such column: nothing */
void cli_table_set_width(struct cli_table *t, const char *title, int w);
/* the title of the column titled `title` (as declared) set to t (a kind the
 * command was asked for) */
void cli_table_set_title(struct cli_table *t, const char *title, const char *to);
/* is the column shown (its `when` holds) */
int cli_table_shown(const struct cli_table *t, size_t k);

/* the header line */
void cli_table_header(const struct cli_table *t, FILE *f);
/* one row, ranked `rank` */
void cli_table_row(const struct cli_table *t, FILE *f, const void *row, size_t rank);
/* A summary line: the columns whose flags have `line` show row's value
 * (row may be NULL when none does), a rank column `label`, the last
 * column `text`, the others blank.  CLI_WHOLE in line: its percents are
 * 100.0% whatever the base (the total of a table of shares). */
#define CLI_WHOLE 0x10000u
void cli_table_line(const struct cli_table *t, FILE *f, const void *row, unsigned line, const char *label,
		    const char *text);
/* a row's members, in the order of `at`, added to obj; a new object
 * when obj is NULL; returns obj */
cJSON *cli_table_json(const struct cli_table *t, const void *row, size_t rank, cJSON *obj);

/* The values of the columns whose flags have `line` (uint64_t and int64_t
 * ones: counts, sizes, percents' values; not COL_U32, COL_PER or text)
 * summed over rows [from, to) of `size` bytes each at rows, added to
 * those of *out (a row struct the caller zeroed) */
void cli_table_sum(const struct cli_table *t, unsigned line, const void *rows, size_t from, size_t to, size_t size,
		   void *out);

/* "… 3 more threads" ("… 3 more" without nouns) */
const char *cli_more_text(uint64_t n, const char *one, const char *many, char *buf, size_t cap);

#endif
