/* hprofan sql FILE [QUERY]: SQL over the heap (session/sql.h's tables and
 * functions), each statement's rows as an aligned table, CSV or JSON;
 * without QUERY the statements come from standard input, a prompt when it
 * is a terminal.  Rows are written as they come (the text table's widths
 * from its first 1,000 rows), to -o FILE atomically. */
#include "cli/command.h"
#include "cli/msg.h"
#include "cli/load.h"
#include "cli/output.h"
#include "session/sql.h"
#include "base/alloc.h"
#include "base/text.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined HP_HAVE_EDITLINE
#include <editline/readline.h>
#define LINE_EDITOR "libedit"
#elif defined HP_HAVE_READLINE
#include <readline/readline.h>
#include <readline/history.h>
#define LINE_EDITOR "readline"
#endif

struct sql_opts {
	int csv;
	double timeout;
	const char *export;
};

static int set_timeout(const struct cli_option *o, const char *as, const char *val, void *dst)
{
	char *end;
	double v = strtod(val, &end);
	if (end == val || *end || !(v > 0) || v > 1e6)
		return cli_usage_error(NULL, "%s needs a number of seconds above 0 (got '%s')", as ? as : o->name, val);
	*(double *)dst = v;
	return EXIT_OK;
}

static const struct cli_option own[] = {
	OPT_BOOL("--csv", "rows as CSV (RFC 4180), a header line first", OPT_OWN(struct sql_opts, csv)),
	OPT_CALLBACK("--timeout", "S", set_timeout, "stop a statement that runs longer than S seconds (exit 2)",
		     "needs a number of seconds", OPT_OWN(struct sql_opts, timeout)),
	OPT_FILENAME("--export", "DB", "write the tables into the SQLite database DB (with indexes), atomically",
		     "needs a file name", OPT_OWN(struct sql_opts, export)),
	OPT_END
};

/* ---- writing as the rows come ------------------------------------------- */

struct sink {
	struct cli_ofile of;
	char buf[1 << 16];
	size_t len;
	int failed;
};

static void put(struct sink *k, const char *s, size_t n)
{
	while (n && !k->failed) {
		size_t m = sizeof k->buf - k->len < n ? sizeof k->buf - k->len : n;
		memcpy(k->buf + k->len, s, m);
		k->len += m;
		s += m;
		n -= m;
		if (k->len == sizeof k->buf) {
			if (cli_write_all(k->of.fd, k->buf, k->len) != 0)
				k->failed = 1;
			k->len = 0;
		}
	}
}

static void puts_(struct sink *k, const char *s) { put(k, s, strlen(s)); }

static int flush(struct sink *k)
{
	if (k->len && !k->failed && cli_write_all(k->of.fd, k->buf, k->len) != 0)
		k->failed = 1;
	k->len = 0;
	return k->failed ? -1 : 0;
}

/* ---- one statement's rows ----------------------------------------------- */

enum { F_TEXT, F_CSV, F_JSON };
#define WIDTH_ROWS 1000

/* a cell as the text table shows it, safe for a terminal: into buf */
static const char *cell_text(sqlite3_stmt *st, int i, char *buf, size_t n)
{
	switch (sqlite3_column_type(st, i)) {
	case SQLITE_NULL: return "NULL";
	case SQLITE_BLOB: snprintf(buf, n, "(%d bytes)", sqlite3_column_bytes(st, i)); return buf;
	default: return hp_text_safe((const char *)sqlite3_column_text(st, i), buf, n);
	}
}

static void csv_cell(struct sink *k, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		puts_(k, s);
		return;
	}
	put(k, "\"", 1);
	for (const char *p = s; *p; p++) {
		if (*p == '"')
			put(k, "\"", 1);
		put(k, p, 1);
	}
	put(k, "\"", 1);
}

static void json_cell(struct sink *k, sqlite3_stmt *st, int i)
{
	char num[32];
	switch (sqlite3_column_type(st, i)) {
	case SQLITE_NULL: puts_(k, "null"); return;
	case SQLITE_INTEGER:
		snprintf(num, sizeof num, "%lld", (long long)sqlite3_column_int64(st, i));
		puts_(k, num);
		return;
	case SQLITE_FLOAT: {
		double d = sqlite3_column_double(st, i);
		if (d != d || d - d != 0)
			puts_(k, "null");   /* NaN and infinities have no JSON */
		else {
			snprintf(num, sizeof num, "%.17g", d);
			puts_(k, num);
		}
		return;
	}
	default: {
		const char *s = (const char *)sqlite3_column_text(st, i);
		cJSON *c = cJSON_CreateString(s ? s : "");
		char *t = c ? cJSON_PrintUnformatted(c) : NULL;
		cJSON_Delete(c);
		if (!t) {
			k->failed = 1;
			return;
		}
		size_t n = hp_text_json_clean(t, strlen(t), NULL);
		char *u = hp_malloc(n + 1);
		if (u) {
			hp_text_json_clean(t, strlen(t), u);
			put(k, u, n);
		} else {
			k->failed = 1;
		}
		hp_free(u);
		cJSON_free(t);
	}
	}
}

/* the text table: widths from the first rows, kept in memory meanwhile */
struct tbl {
	int ncol;
	size_t *w;
	char **cells;                 /* WIDTH_ROWS * ncol, each hp_strdup'ed */
	size_t nrows;
	int *right;                   /* numbers right-aligned */
};

/* the columns a cell takes: its characters (not its UTF-8 bytes) */
static size_t width(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static void tbl_line(struct sink *k, const struct tbl *t, char *const *cells)
{
	for (int i = 0; i < t->ncol; i++) {
		size_t n = width(cells[i]), pad = t->w[i] > n ? t->w[i] - n : 0;
		if (i)
			puts_(k, "  ");
		for (size_t p = 0; t->right[i] && p < pad; p++)
			put(k, " ", 1);
		puts_(k, cells[i]);
		for (size_t p = 0; !t->right[i] && i + 1 < t->ncol && p < pad; p++)
			put(k, " ", 1);
	}
	put(k, "\n", 1);
}

static void tbl_flush(struct sink *k, struct tbl *t, char *const *names)
{
	for (int i = 0; i < t->ncol; i++)
		if (width(names[i]) > t->w[i])
			t->w[i] = width(names[i]);
	tbl_line(k, t, names);
	for (int i = 0; i < t->ncol; i++) {
		if (i)
			puts_(k, "  ");
		for (size_t p = 0; p < t->w[i]; p++)
			put(k, "-", 1);
	}
	put(k, "\n", 1);
	for (size_t r = 0; r < t->nrows; r++)
		tbl_line(k, t, t->cells + r * (size_t)t->ncol);
}

struct run {
	const struct cli_ctx *x;
	hp_session *S;
	hp_sql *q;
	struct sink *k;
	int fmt;
	int statements;               /* those with rows, so far */
};

/* what went wrong in a statement: the dump's error when a table could not
 * read it, the timeout, or SQLite's message; returns the exit code */
static int sql_failed(struct run *u, const char *what)
{
	const struct hp_error *e = hp_sql_error(u->q);
	if (e->code) {
		return cli_fail(hp_session_path(u->S), e, e->code);
	}
	if (hp_sql_timed_out(u->q)) {
		const struct sql_opts *o = u->x->own;
		cli_error("sql: the statement ran past --timeout %g s, stopped", o->timeout);
		return EXIT_USAGE;
	}
	if (!strcmp(what, "no query solution"))
		cli_error("sql: no query solution: retained_set() and entries() need the object, retained_set(ID), "
			  "entries(ID)");
	else if (!strcmp(what, "not authorized"))
		cli_error("sql: not authorized: hprofan sql only reads (SELECT, WITH, and the pragmas that list tables, "
			  "columns, functions and modules)");
	else
		cli_error("sql: %s", what);
	return EXIT_USAGE;
}

/* Steps st to its end, writing its rows; returns an exit code */
static int rows(struct run *u, sqlite3_stmt *st)
{
	struct sink *k = u->k;
	int ncol = sqlite3_column_count(st);
	if (!ncol) {
		int s;
		while ((s = sqlite3_step(st)) == SQLITE_ROW)
			;
		return s == SQLITE_DONE ? EXIT_OK : sql_failed(u, sqlite3_errmsg(sqlite3_db_handle(st)));
	}
	/* (--json and --csv: run_sql() let one statement with rows through) */
	if (u->statements++)
		put(k, "\n", 1);
	char **names = hp_calloc((size_t)ncol, sizeof *names);
	struct tbl t = { .ncol = ncol };
	t.w = hp_calloc((size_t)ncol, sizeof *t.w);
	t.right = hp_calloc((size_t)ncol, sizeof *t.right);
	t.cells = u->fmt == F_TEXT ? hp_calloc((size_t)ncol * WIDTH_ROWS, sizeof *t.cells) : NULL;
	int rc = EXIT_OK;
	if (!names || !t.w || !t.right || (u->fmt == F_TEXT && !t.cells)) {
		cli_error("out of memory");
		rc = EXIT_NOMEM;
		goto out;
	}
	char buf[4096];
	for (int i = 0; i < ncol; i++) {
		const char *n = sqlite3_column_name(st, i);
		if (!(names[i] = hp_strdup(hp_text_safe(n ? n : "?", buf, sizeof buf)))) {
			cli_error("out of memory");
			rc = EXIT_NOMEM;
			goto out;
		}
	}
	if (u->fmt == F_CSV) {
		for (int i = 0; i < ncol; i++) {
			if (i)
				put(k, ",", 1);
			csv_cell(k, sqlite3_column_name(st, i));
		}
		puts_(k, "\r\n");
	} else if (u->fmt == F_JSON) {
		const hp_heap *h = NULL;
		struct hp_error e;
		hp_error_clear(&e);
		cJSON *j = hp_session_model(u->S, &h, &e) == HP_OK ? cli_json_begin_heap(u->x, u->S, h, NULL) : NULL;
		cJSON *cols = j ? cJSON_AddArrayToObject(j, "columns") : NULL;
		for (int i = 0; cols && i < ncol; i++)
			cJSON_AddItemToArray(cols, cJSON_CreateString(sqlite3_column_name(st, i)));
		size_t len = 0;
		char *head = cols ? cli_json_text(j, 0, &len) : NULL;
		cJSON_Delete(j);
		if (!head) {
			rc = EXIT_NOMEM;
			goto out;
		}
		while (len && (head[len - 1] == '\n' || head[len - 1] == '}'))
			len--;
		put(k, head, len);
		puts_(k, ",\"rows\":[");
		hp_free(head);
	}
	uint64_t n = 0;
	int s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW && !k->failed) {
		if (u->fmt == F_CSV) {
			for (int i = 0; i < ncol; i++) {
				if (i)
					put(k, ",", 1);
				const unsigned char *c = sqlite3_column_text(st, i);
				csv_cell(k, c ? (const char *)c : "");
			}
			puts_(k, "\r\n");
		} else if (u->fmt == F_JSON) {
			puts_(k, n ? ",\n[" : "\n[");
			for (int i = 0; i < ncol; i++) {
				if (i)
					put(k, ",", 1);
				json_cell(k, st, i);
			}
			put(k, "]", 1);
		} else if (t.nrows < WIDTH_ROWS) {
			char **row = t.cells + t.nrows * (size_t)ncol;
			for (int i = 0; i < ncol; i++) {
				int ty = sqlite3_column_type(st, i);
				if (!(row[i] = hp_strdup(cell_text(st, i, buf, sizeof buf)))) {
					cli_error("out of memory");
					rc = EXIT_NOMEM;
					goto out;
				}
				if (width(row[i]) > t.w[i])
					t.w[i] = width(row[i]);
				if (!n)
					t.right[i] = ty == SQLITE_INTEGER || ty == SQLITE_FLOAT;
			}
			t.nrows++;
		} else {
			if (t.nrows == WIDTH_ROWS) {
				tbl_flush(k, &t, names);
				t.nrows++;
			}
			char **cells = hp_calloc((size_t)ncol, sizeof *cells);
			char (*b)[256] = hp_malloc((size_t)ncol * sizeof *b);
			if (!cells || !b) {
				hp_free_all(cells, b);
				cli_error("out of memory");
				rc = EXIT_NOMEM;
				goto out;
			}
			for (int i = 0; i < ncol; i++)
				cells[i] = (char *)cell_text(st, i, b[i], sizeof b[i]);
			tbl_line(k, &t, cells);
			hp_free_all(cells, b);
		}
		n++;
	}
	if (s != SQLITE_ROW && s != SQLITE_DONE) {
		rc = sql_failed(u, sqlite3_errmsg(sqlite3_db_handle(st)));
		goto out;
	}
	if (u->fmt == F_JSON) {
		puts_(k, n ? "\n]}\n" : "]}\n");
	} else if (u->fmt == F_TEXT) {
		if (t.nrows <= WIDTH_ROWS)
			tbl_flush(k, &t, names);
		char c[64];
		snprintf(c, sizeof c, "(%llu row%s)\n", (unsigned long long)n, n == 1 ? "" : "s");
		puts_(k, c);
	}
out:
	for (size_t r = 0; t.cells && r < (t.nrows < WIDTH_ROWS ? t.nrows : WIDTH_ROWS) * (size_t)ncol; r++)
		hp_free(t.cells[r]);
	for (int i = 0; names && i < ncol; i++)
		hp_free(names[i]);
	hp_free_all(names, t.w, t.right, t.cells);
	return rc;
}

/* --json and --csv: how many statements of sql have rows (prepared, not
 * run), so that a second one is refused before the first is written; -1
 * with the error said when one does not compile */
static int with_rows(struct run *u, const char *sql)
{
	sqlite3 *db = hp_sql_db(u->q);
	int n = 0;
	for (const char *p = sql, *tail = sql; *p; p = tail) {
		sqlite3_stmt *st = NULL;
		if (sqlite3_prepare_v2(db, p, -1, &st, &tail) != SQLITE_OK) {
			sql_failed(u, sqlite3_errmsg(db));
			return -1;
		}
		n += st && sqlite3_column_count(st) > 0;
		sqlite3_finalize(st);
		if (tail == p)
			break;
	}
	return n;
}

/* Runs every statement of sql; returns an exit code */
static int run_sql(struct run *u, const char *sql)
{
	const char *p = sql;
	sqlite3 *db = hp_sql_db(u->q);
	if (u->fmt != F_TEXT) {
		int n = with_rows(u, sql);
		if (n < 0)
			return EXIT_USAGE;
		if (n > 1)
			return cli_usage_error(NULL, "sql: --json and --csv write one statement's rows: give one SELECT");
	}
	while (*p) {
		sqlite3_stmt *st = NULL;
		const char *tail = p;
		hp_sql_arm(u->q);
		if (sqlite3_prepare_v2(db, p, -1, &st, &tail) != SQLITE_OK)
			return sql_failed(u, sqlite3_errmsg(db));
		int rc = st ? rows(u, st) : EXIT_OK;
		sqlite3_finalize(st);
		if (rc)
			return rc;
		if (tail == p)
			break;
		p = tail;
	}
	return EXIT_OK;
}

/* --export DB: the tables into a new file beside DB, renamed into place
 * once whole; returns an exit code */
static int export_db(struct run *u, const char *db)
{
	size_t n = strlen(db) + 16;
	char *tmp = hp_malloc(n);
	if (!tmp) {
		cli_error("out of memory");
		return EXIT_NOMEM;
	}
	snprintf(tmp, n, "%s.tmp.XXXXXX", db);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		cli_error("cannot write %s: %s", db, strerror(errno));
		hp_free(tmp);
		return EXIT_BAD;
	}
	mode_t um = umask(0);
	umask(um);
	if (fchmod(fd, 0666 & ~um) != 0) {
		/* (keeps mkstemp's 0600) */
	}
	close(fd);
	char msg[600];
	int rc = EXIT_OK;
	if (hp_sql_export(u->q, tmp, msg, sizeof msg) != SQLITE_OK) {
		rc = hp_sql_error(u->q)->code ? sql_failed(u, msg) : EXIT_BAD;
		if (rc == EXIT_BAD)
			cli_error("cannot write %s: %s", db, msg);
	} else if (rename(tmp, db) != 0) {
		cli_error("cannot write %s: %s", db, strerror(errno));
		rc = EXIT_BAD;
	}
	if (rc)
		unlink(tmp);
	hp_free(tmp);
	return rc;
}

/* ---- without QUERY: standard input ------------------------------------- */

#define SCRIPT_MAX (64u << 20)

static int read_all(FILE *in, char **out)
{
	size_t len = 0, cap = 0;
	char *s = NULL;
	for (;;) {
		if (len + 4096 + 1 > cap) {
			char *t = hp_grow(s, &cap, len + 4096 + 1, 65536, 1);
			if (!t) {
				hp_free(s);
				cli_error("out of memory");
				return EXIT_NOMEM;
			}
			s = t;
		}
		size_t m = fread(s + len, 1, 4096, in);
		len += m;
		if (len > SCRIPT_MAX) {
			hp_free(s);
			cli_error("sql: the statements on standard input are longer than %u MiB", SCRIPT_MAX >> 20);
			return EXIT_USAGE;
		}
		if (m < 4096)
			break;
	}
	s[len] = '\0';
	*out = s;
	return EXIT_OK;
}

static const char *const tables[] = { "objects", "classes", "refs", "roots", "strings", "fields", "threads", "frames" };

/* .tables, .schema, .help: what the prompt answers itself */
static void dot(struct run *u, const char *line)
{
	if (!strncmp(line, ".tables", 7)) {
		puts_(u->k, "objects  classes  refs  roots  strings  fields  threads  frames  (and retained_set(ID), entries(ID))\n");
		return;
	}
	if (!strncmp(line, ".schema", 7)) {
		for (size_t i = 0; i < sizeof tables / sizeof *tables; i++) {
			char q[128];
			snprintf(q, sizeof q, "SELECT '%s' AS \"table\", name, type FROM pragma_table_info('%s')", tables[i],
				 tables[i]);
			if (run_sql(u, q) != EXIT_OK)
				return;
		}
		return;
	}
	puts_(u->k, ".tables      the tables\n.schema      their columns\n.quit        leave\n"
		    "functions: str(id), field(id, name), instance_of(id, class), size(id), map_get(id, key),\n"
		    "           list_get(id, i), path(id); table-valued: retained_set(id), entries(id)\n");
}

/* one line of the prompt into *line (its newline kept), NULL at the end of
 * input: the line editor's when there is one (arrows edit, up and down
 * recall the session's earlier lines), else a plain read */
static char *read_line(const char *ps, char **line, size_t *cap)
{
#ifdef LINE_EDITOR
	char *l = readline(ps);
	if (!l)
		return NULL;
	size_t m = strlen(l);
	if (m)
		add_history(l);
	char *t = m + 2 > *cap ? hp_grow(*line, cap, m + 2, 8192, 1) : *line;
	if (!t) {
		free(l);   /* (readline's own malloc) */
		return NULL;
	}
	*line = t;
	memcpy(t, l, m);
	t[m] = '\n';
	t[m + 1] = 0;
	free(l);
	return t;
#else
	fputs(ps, stderr);
	fflush(stderr);
	if (!*line) {
		*line = hp_grow(NULL, cap, 8192, 8192, 1);
		if (!*line)
			return NULL;
	}
	return fgets(*line, (int)*cap, stdin);
#endif
}

static int prompt(struct run *u)
{
	char *line = NULL, *acc = NULL;
	size_t len = 0, cap = 0, lcap = 0;
	int rc = EXIT_OK;
#ifdef LINE_EDITOR
	rl_instream = stdin;
	rl_outstream = stderr;   /* the prompt where the messages go; rows on standard output */
	fputs("SQL over the heap: .tables, .schema, .help, .quit; statements end with ; (line editing: " LINE_EDITOR ")\n",
	      stderr);
#else
	fputs("SQL over the heap: .tables, .schema, .help, .quit; statements end with ;\n", stderr);
#endif
	for (;;) {
		flush(u->k);
		if (!read_line(len ? "   ...> " : "hprofan> ", &line, &lcap))
			break;
		if (!len && line[0] == '.') {
			if (!strncmp(line, ".quit", 5) || !strncmp(line, ".exit", 5))
				break;
			dot(u, line);
			continue;
		}
		size_t m = strlen(line);
		if (len + m + 1 > SCRIPT_MAX) {
			cli_error("sql: a statement longer than %u MiB", SCRIPT_MAX >> 20);
			len = 0;
			continue;
		}
		char *t = hp_grow(acc, &cap, len + m + 1, 4096, 1);
		if (!t) {
			cli_error("out of memory");
			rc = EXIT_NOMEM;
			break;
		}
		acc = t;
		memcpy(acc + len, line, m + 1);
		len += m;
		if (sqlite3_complete(acc)) {
			u->statements = 0;
			run_sql(u, acc);   /* (said; the prompt goes on) */
			len = 0;
		}
	}
#ifdef LINE_EDITOR
	clear_history();
#endif
	hp_free(line);
	hp_free(acc);
	return rc;
}

static int run(struct cli_ctx *x)
{
	const struct sql_opts *o = x->own;
	if (o->csv && x->c->json)
		return cli_usage_error(NULL, "--csv does not go with --json: one format");
	const char *query = x->nfiles > 1 ? x->files[1] : NULL;
	int tty = !query && !o->export && isatty(0);
	if (tty && x->c->output)
		return cli_usage_error(NULL, "sql: -o needs QUERY or statements on standard input, not the prompt");
	hp_session *S = NULL;
	int rc = cli_session(x, x->files[0], &S);
	if (rc)
		return rc;
	hp_sql *q = NULL;
	struct hp_error err;
	hp_error_clear(&err);
	struct hp_sql_opts so = { .timeout = o->timeout };
	if (hp_sql_open(&q, S, &so, &err) != HP_OK) {
		rc = cli_fail(hp_session_path(S), &err, err.code);
		cli_session_close(S);
		return rc;
	}
	struct sink *k = hp_calloc(1, sizeof *k);
	char *script = NULL;
	if (!k) {
		cli_error("out of memory");
		rc = EXIT_NOMEM;
	} else {
		rc = cli_ofile_open(&k->of, x->c->output ? x->c->output : "-");
	}
	int opened = rc == EXIT_OK;
	struct run u = { .x = x, .S = S, .q = q, .k = k, .fmt = x->c->json ? F_JSON : o->csv ? F_CSV : F_TEXT };
	if (rc == EXIT_OK && o->export)
		rc = export_db(&u, o->export);
	if (rc == EXIT_OK) {
		if (query)
			rc = run_sql(&u, query);
		else if (o->export)
			;   /* the database alone */
		else if (tty)
			rc = prompt(&u);
		else if ((rc = read_all(stdin, &script)) == EXIT_OK)
			rc = run_sql(&u, script);
		if (flush(k) != 0 && rc == EXIT_OK) {
			cli_error("cannot write %s", x->c->output ? x->c->output : "the output");
			rc = EXIT_BAD;
		}
		if (rc == EXIT_OK && u.fmt != F_TEXT && !u.statements && (query || !o->export))
			rc = cli_usage_error(NULL, "sql: no statement with rows to write as %s", u.fmt == F_JSON ? "JSON" : "CSV");
	}
	if (opened && rc == EXIT_OK)
		rc = cli_ofile_commit(&k->of);
	else if (opened)
		cli_ofile_abort(&k->of);
	if (rc == EXIT_OK)
		cli_print_stats(x, S);
	hp_free(script);
	hp_free(k);
	hp_sql_close(q);
	cli_session_close(S);
	return rc;
}

CLI_COMMAND(sql, "hprofan sql FILE [QUERY]", "SQL over the heap: objects, classes, refs, roots, strings, fields, threads, frames (SQLite)",
	    CLI_FILES(1, 2), CLI_OWN(struct sql_opts, NULL), .run = run,
	    CLI_TABLES(own, cli_opts_model, cli_opts_policy, cli_opts_load, cli_opts_output, cli_opts_quiet));
