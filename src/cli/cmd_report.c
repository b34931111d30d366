/* hprofan report FILE... -o report.html: one self-contained HTML page.
 *
 * The page carries the JSON documents the other commands write with
 * --json (info, top, dominators, leaks, threads, sites; trend over several
 * dumps), made by those commands' own collect() and json() on one session
 * per dump, so the page and the CLI cannot disagree.  The page's script
 * (src/cli/report.html) draws them with Apache ECharts, which the binary
 * carries (report_assets.h): the file asks for nothing from the network or
 * another file, and its Content-Security-Policy allows only the page's own
 * inline script and style and the library, by their SHA-256 (filled in at
 * build time), so no text from the dump can run as script even where it
 * would reach the page as markup.  Text from the dump is escaped here for
 * the element it goes into (put_html, put_json; tests/fuzz/fuzz_report.c)
 * and shown by the page as DOM text only.
 *
 * With several dumps each gives its summary and class histogram; the last
 * one also its dominator tree, leaks, threads and allocation sites; trend
 * compares them all.  A dump read from a pipe gives what one pass can: the
 * summary and the histogram by shallow size.  The dominator tree is cut to
 * --depth levels of at most TREE_TOP children each (the rest one "more"
 * cell): at most 12 + 12^2 + 12^3 + 12^4 nodes at the default depth 4, so
 * the page stays a few MB whatever the dump's size (each level more can
 * multiply the tree's part by 12).
 */
#include "cli/dumpsum.h"
#include "base/clock.h"
#include "cli/msg.h"
#include "cli/load.h"
#include "cli/output.h"
#include "cli/report_assets.h"
#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* --threshold and --zombie as pairs (option, value) for leaks, NULL-ended */
#define LEAK_ZOMBIES_MAX 256   /* leaks takes as many rules */
struct leak_args {
	const char *v[2 * (LEAK_ZOMBIES_MAX + 1) + 1];
	int n, zombies;
};

struct report_opts {
	const char *title;
	int depth;
	struct leak_args leaks;
};

/* rows of the class histogram (the page filters and sorts them) */
#define HIST_TOP "500"
/* children per node of the treemap */
#define TREE_TOP_N 12
#define STR_(v) #v
#define STR(v) STR_(v)
#define TREE_TOP STR(TREE_TOP_N)
/* allocation sites, threads' rows come whole */
#define SITES_TOP "200"

static void defaults(void *own)
{
	struct report_opts *o = own;
	o->depth = 4;
}

static int set_depth(const struct cli_option *o, const char *as, const char *val, void *dst)
{
	if (cli_parse_int(val, 1, 8, dst))
		return cli_usage_error(NULL, "%s needs a number of levels (1..8)", as);
	return EXIT_OK;
}

/* --threshold PCT, --zombie RULE: checked by leaks's own option (the same
 * values and messages, before any dump is read), kept for its run */
static int pass_to_leaks(const struct cli_option *o, const char *as, const char *val, void *dst)
{
	struct leak_args *a = dst;
	const struct cli_command *lk = cli_command_find("leaks");
	const char *inline_val = NULL;
	const struct cli_option *lo = lk ? cli_option_find(lk, o->name, &inline_val) : NULL;
	if (!lo)
		return cli_usage_error(NULL, "%s: the leaks command is not built in", as);
	int zombie = !strcmp(o->name, "--zombie");
	if (zombie && a->zombies == LEAK_ZOMBIES_MAX)
		return cli_usage_error(NULL, "%s: at most %d rules", as, LEAK_ZOMBIES_MAX);
	struct cli_common c;
	memset(&c, 0, sizeof c);
	void *scratch = hp_calloc(1, lk->own_size ? lk->own_size : 1);
	if (!scratch) {
		cli_error("out of memory");
		return EXIT_NOMEM;
	}
	if (lk->defaults)
		lk->defaults(scratch);
	int rc = cli_option_set(lo, as, val, &c, scratch);
	hp_free(scratch);
	if (rc)
		return rc;
	if (!zombie) {
		/* the last --threshold counts: one pair, replaced */
		for (int i = 0; i < a->n; i += 2)
			if (!strcmp(a->v[i], o->name)) {
				a->v[i + 1] = val;
				return EXIT_OK;
			}
	}
	a->v[a->n++] = o->name;
	a->v[a->n++] = val;
	a->zombies += zombie;
	return EXIT_OK;
}

static const struct cli_option own[] = {
	OPT_STRING("--title", "T",
		   "the page's title (default: hprofan report and the\nlast FILE's name)", "needs a title", OPT_OWN(struct report_opts, title)),
	OPT_DEPTH(set_depth,
		  "levels of the dominator tree the treemap can open\n(default 4; each shows the " TREE_TOP " largest children)",
		  "needs a number of levels (1..8)", OPT_OWN(struct report_opts, depth)),
	OPT_CALLBACK("--threshold", "PCT", pass_to_leaks,
		     "as leaks: a leak suspect retains at least PCT% of the\nreachable heap (default 10)", "needs a percentage",
		     OPT_OWN(struct report_opts, leaks)),
	OPT_CALLBACK_F("--zombie", "RULE", pass_to_leaks,
		       "as leaks: CLASS:FIELD=VALUE marks a zombie (repeatable)", "needs a rule CLASS:FIELD=VALUE",
		       NULL, OPTF_REPEAT, OPT_OWN(struct report_opts, leaks)),
	OPT_OUTPUT_F(0),
	OPT_STATS,
	OPT_END
};

/* Another command run inside report: its context, with --json and the
 * options given here as if typed after it (pairs: option, value; the
 * value NULL for a flag). */
struct sub {
	const struct cli_command *cmd;
	struct cli_common c;
	void *own;
	struct cli_ctx x;
};

/* EXIT_OK; 1 when the command does not exist (its section is absent) */
static int sub_init(struct sub *s, const struct cli_ctx *x, const char *name, const char *const *opts)
{
	memset(s, 0, sizeof *s);
	if (!(s->cmd = cli_command_find(name)))
		return 1;
	s->c = *x->c;
	s->c.json = 1;
	s->c.output = NULL;
	s->c.stats = 0;
	s->c.filter = s->c.exclude = NULL;
	if (!(s->own = hp_calloc(1, s->cmd->own_size ? s->cmd->own_size : 1))) {
		cli_error("out of memory");
		return EXIT_NOMEM;
	}
	if (s->cmd->defaults)
		s->cmd->defaults(s->own);
	s->x = (struct cli_ctx){ .cmd = s->cmd, .c = &s->c, .files = x->files, .nfiles = x->nfiles, .own = s->own };
	for (size_t i = 0; opts && opts[i]; i += 2) {
		const char *val = NULL;
		const struct cli_option *o = cli_option_find(s->cmd, opts[i], &val);
		if (!o) {
			cli_error("report: %s takes no %s", name, opts[i]);
			return EXIT_USAGE;
		}
		int rc = cli_option_set(o, opts[i], opts[i + 1], &s->c, s->own);
		if (rc)
			return rc;
	}
	return EXIT_OK;
}

static void sub_release(struct sub *s)
{
	hp_free(s->own);
	s->own = NULL;
}

/* The document `hprofan NAME FILE --json OPTS...` writes, on session S,
 * as member NAME of d; nothing when there is no such command. */
static int sub_doc(const struct cli_ctx *x, hp_session *S, const char *name, const char *const *opts, cJSON *d)
{
	struct sub s;
	int rc = sub_init(&s, x, name, opts);
	if (rc == 1) {
		sub_release(&s);
		return EXIT_OK;
	}
	void *res = NULL;
	cJSON *doc = NULL;
	if (!rc)
		rc = s.cmd->collect(&s.x, S, &res);
	if (!rc)
		rc = s.cmd->json(&s.x, S, res, &doc);
	if (!rc && !doc) {
		cli_error("out of memory building JSON");
		rc = EXIT_NOMEM;
	}
	if (rc)
		cJSON_Delete(doc);
	else
		cJSON_AddItemToObject(d, name, doc);
	if (s.cmd && s.cmd->release)
		s.cmd->release(res);
	sub_release(&s);
	return rc;
}

/* sub_doc(), its time added to --stats' "report:" line */
static int timed_doc(const struct cli_ctx *x, hp_session *S, const char *name, const char *const *opts, cJSON *d,
		     char *line, size_t n)
{
	double t0 = hp_now();
	int rc = sub_doc(x, S, name, opts, d);
	size_t l = strlen(line);
	if (l < n)
		snprintf(line + l, n - l, " %s=%.2fs", name, hp_now() - t0);
	return rc;
}

/* What the page shows of one dump, into d: every dump its summary and
 * histogram; with details (the last dump) the rest. */
static int dump_docs(const struct cli_ctx *x, hp_session *S, cJSON *d, int details)
{
	const struct report_opts *o = x->own;
	char line[256] = "";
	int rc = timed_doc(x, S, "info", NULL, d, line, sizeof line);
	static const char *const top[] = { "--top", HIST_TOP, NULL };
	if (rc)
		return rc;
	if (!hp_session_rereadable(S)) {
		/* top says on stderr that it gives shallow sizes only */
		cJSON_AddStringToObject(d, "note", "read from a pipe: the summary and the class histogram by shallow "
					"size only (the rest needs to read the dump again: save it to a file)");
		rc = timed_doc(x, S, "top", top, d, line, sizeof line);
	} else if (!(rc = timed_doc(x, S, "top", top, d, line, sizeof line)) && details) {
		char depth[16];
		snprintf(depth, sizeof depth, "%d", o->depth);
		const char *const dom[] = { "--depth", depth, "--top", TREE_TOP, "--group", "class", NULL };
		static const char *const sites[] = { "--flat", NULL, "--top", SITES_TOP, NULL };
		rc = timed_doc(x, S, "dominators", dom, d, line, sizeof line);
		if (!rc)
			rc = timed_doc(x, S, "leaks", o->leaks.v, d, line, sizeof line);
		if (!rc)
			rc = timed_doc(x, S, "threads", NULL, d, line, sizeof line);
		if (!rc)
			rc = timed_doc(x, S, "sites", sites, d, line, sizeof line);
	}
	if (x->c->stats && !rc)
		fprintf(stderr, "report: %s:%s\n", hp_session_path(S), line);
	return rc;
}

/* the file's last path component, for the default title */
static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s && s[1] ? s + 1 : p;
}

/* text for HTML (the title): &, <, >, " as entities */
static void put_html(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

/* JSON text inside <script type="application/json">: "<", ">" and "&"
 * (only ever in strings) as \u escapes, so no "</script" or "<!--" can end
 * or change the element; U+2028 and U+2029 escaped too. */
static void put_json(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '<')
			fputs("\\u003c", f);
		else if (c == '>')
			fputs("\\u003e", f);
		else if (c == '&')
			fputs("\\u0026", f);
		else if (c == 0xe2 && i + 2 < n && (unsigned char)s[i + 1] == 0x80 &&
			 ((unsigned char)s[i + 2] == 0xa8 || (unsigned char)s[i + 2] == 0xa9)) {
			fputs((unsigned char)s[i + 2] == 0xa8 ? "\\u2028" : "\\u2029", f);
			i += 2;
		} else
			fputc(c, f);
	}
}

/* The template with @@TITLE@@, @@DATA@@ and @@LIB@@ filled in, into f. */
static int write_page(FILE *f, const char *title, const char *json, size_t jn)
{
	const char *p = (const char *)hp_report_page, *end = p + hp_report_page_len;
	while (p < end) {
		const char *m = strstr(p, "@@");
		if (!m || m >= end) {
			fwrite(p, 1, (size_t)(end - p), f);
			break;
		}
		fwrite(p, 1, (size_t)(m - p), f);
		if (!strncmp(m, "@@TITLE@@", 9)) {
			put_html(f, title);
			p = m + 9;
		} else if (!strncmp(m, "@@DATA@@", 8)) {
			put_json(f, json, jn);
			p = m + 8;
		} else if (!strncmp(m, "@@LIB@@", 7)) {
			fwrite(hp_report_lib, 1, hp_report_lib_len, f);
			p = m + 7;
		} else {
			fputs("@@", f);
			p = m + 2;
		}
	}
	return ferror(f) ? EXIT_NOMEM : EXIT_OK;
}

static int emit(struct cli_ctx *x, cJSON *data, const char *title)
{
	size_t n;
	char *t = cli_json_text(data, 0, &n);
	if (!t)
		return EXIT_NOMEM;
	struct cli_out out;
	FILE *f = cli_text_begin(&out);
	int rc = f ? write_page(f, title, t, n) : EXIT_NOMEM;
	hp_free(t);
	if (rc == EXIT_NOMEM && f)
		cli_error("out of memory");
	return cli_text_end(x, &out, rc);
}

static int run(struct cli_ctx *x)
{
	const struct report_opts *o = x->own;
	size_t n = (size_t)x->nfiles;
	int multi = n > 1, rc = EXIT_OK;
	const char *bn = base_name(x->files[n - 1]);
	size_t dn = strlen(bn) + 64;
	char *def = hp_malloc(dn);
	if (!def) {
		cli_error("out of memory");
		return EXIT_NOMEM;
	}
	snprintf(def, dn, "hprofan report: %s%s", bn, multi ? " and earlier dumps" : "");
	const char *title = o->title ? o->title : def;
	cJSON *data = cJSON_CreateObject();
	cJSON_AddStringToObject(data, "schema", HP_SCHEMA);
	cJSON_AddStringToObject(data, "command", "report");
	cJSON_AddStringToObject(data, "title", title);
	cJSON_AddStringToObject(data, "hprofan_version", HPROFAN_VERSION);
	cJSON *argv = cJSON_AddArrayToObject(data, "command_line");
	for (int i = 0; i < cli_argc; i++)
		cJSON_AddItemToArray(argv, cJSON_CreateString(cli_argv[i]));
	cJSON *lib = cJSON_AddObjectToObject(data, "library");
	cJSON_AddStringToObject(lib, "name", hp_report_lib_name);
	cJSON_AddStringToObject(lib, "version", hp_report_lib_version);
	cJSON_AddStringToObject(lib, "license", hp_report_lib_license);
	cli_json_u64(data, "tree_depth", (uint64_t)o->depth);
	cli_json_u64(data, "tree_top", TREE_TOP_N);
	cJSON *dumps = cJSON_AddArrayToObject(data, "dumps");

	/* several dumps: trend's summaries come from the same sessions */
	struct sub tr;
	memset(&tr, 0, sizeof tr);
	struct hp_dsum *sum = NULL;
	cJSON **info = NULL;
	int *partial = NULL;
	struct cli_series sm;         /* trend's: every dump under one model */
	struct cli_dumpmodel *models = NULL;
	if (multi) {
		static const char *const topt[] = { "--top", "20", NULL };
		rc = sub_init(&tr, x, "trend", topt);
		sum = hp_calloc(n, sizeof *sum);
		info = hp_calloc(n, sizeof *info);
		partial = hp_calloc(n, sizeof *partial);
		models = hp_calloc(n, sizeof *models);
		cli_series_init(&sm, &tr.x, 0);
		if (!rc && (!sum || !info || !partial || !models)) {
			cli_error("out of memory");
			rc = EXIT_NOMEM;
		}
	}
	for (size_t i = 0; i < n && rc == EXIT_OK; i++) {
		hp_session *S = NULL;
		if (multi) {
			static const struct cli_dumpgroup classes = { .by = -1 };
			rc = cli_series_summary(&sm, i, &classes, &S, &sum[i], &models[i]);
			if (!rc) {
				info[i] = cli_json_dump_info(x->files[i], S, &sum[i]);
				cli_json_dumpmodel(info[i], &models[i]);
				partial[i] = hp_session_load_info(S)->partial;
			}
		} else {
			rc = cli_session(x, x->files[i], &S);
		}
		if (!rc) {
			cJSON *d = cJSON_CreateObject();
			cJSON_AddItemToArray(dumps, d);
			cJSON_AddStringToObject(d, "file", x->files[i]);
			rc = dump_docs(x, S, d, i == n - 1);
			if (!rc)
				cli_print_stats(x, S);
		}
		if (S)
			cli_session_close(S);
	}
	if (multi && !rc) {
		cJSON *doc = NULL;
		cli_series_warn(&sm, models, n);
		if (!(rc = cli_trend_doc(&tr.x, sum, info, partial, n, &sm, models, &doc)))
			cJSON_AddItemToObject(data, "trend", doc);
	}
	if (multi) {
		for (size_t i = 0; sum && i < n; i++)
			hp_dsum_release(&sum[i]);
		for (size_t i = 0; info && i < n; i++)
			cJSON_Delete(info[i]);
		hp_free_all(sum, info, partial, models);
		sub_release(&tr);
	}
	if (!rc)
		rc = emit(x, data, title);
	cJSON_Delete(data);
	hp_free(def);
	return rc;
}

CLI_COMMAND(report, "hprofan report FILE...", "one self-contained HTML page: summary, histogram, dominator treemap, leaks, threads, sites, trend",
	    CLI_FILES(1, 100000), CLI_OWN(struct report_opts, defaults), .run = run,
	    CLI_TABLES(own, cli_opts_model, cli_opts_policy, cli_opts_load, cli_opts_quiet));
