/* serve_api.c — /api/COMMAND?QUERY of hprofan serve (serve.h): the query
 * becomes the arguments of hprofan mcp's tool of that command, typed by the
 * command's option table, and mcp_tool_argv() makes the command line, so a
 * query names what a tool call names (`top=5`, `sort=shallow`, `id=0x1f`,
 * `class_or_id=java.lang.String`) and means what the option means on the
 * command line.  What the server does not offer: the options that name a
 * file (`-o`, `--components`, `--mapping`, `sql --export`: no part of a URL
 * reaches the filesystem) and those the sessions are opened under
 * (`--size-model`, `--weak`, `--max-memory`...: given once, to serve).
 * sql runs with --timeout SERVE_SQL_TIMEOUT unless the query names one. */
#include "cli/serve.h"
#include "cli/mcp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "" "1" "true" (and the name alone): 1; "0" "false": 0; else -1 */
static int truth(const char *v)
{
	if (!v || !*v || !strcmp(v, "1") || !strcmp(v, "true"))
		return 1;
	if (!strcmp(v, "0") || !strcmp(v, "false"))
		return 0;
	return -1;
}

/* a whole decimal number */
static int number(const char *v, double *d)
{
	if (!v || !*v || strlen(v) > 15 || strspn(v, "0123456789") != strlen(v))
		return 0;
	*d = strtod(v, NULL);
	return 1;
}

/* the value of option o as the tool's schema types it */
static cJSON *typed(const struct cli_option *o, const char *v)
{
	double d;
	int t;
	switch (o->kind) {
	case OPT_FLAG:
		t = truth(v);
		return t < 0 ? cJSON_CreateString(v) : cJSON_CreateBool(t);
	case OPT_OPTNUM:
	case OPT_OPTVALUE:
		if (number(v, &d))
			return cJSON_CreateNumber(d);
		t = truth(v);
		return t < 0 ? cJSON_CreateString(v) : cJSON_CreateBool(t);
	case OPT_CHOICE:
		return cJSON_CreateString(v ? v : "");
	default:
		if (mcp_option_numeric(o) && number(v, &d))
			return cJSON_CreateNumber(d);
		return cJSON_CreateString(v ? v : "");
	}
}

/* adds v under name: an array when many, else once only (-1: twice) */
static int put(cJSON *args, const char *name, cJSON *v, int many)
{
	cJSON *have = cJSON_GetObjectItemCaseSensitive(args, name);
	if (!many) {
		if (have) {
			cJSON_Delete(v);
			return -1;
		}
		cJSON_AddItemToObject(args, name, v);
		return 0;
	}
	if (!have)
		have = cJSON_AddArrayToObject(args, name);
	cJSON_AddItemToArray(have, v);
	return 0;
}

/* the query as the tool's arguments; 0, else the HTTP status, why in err */
static int query_args(const struct cli_command *c, const struct serve_param *p, int n, const char *const *files,
		      int nfiles, cJSON *args, char *err, size_t errn)
{
	int many_files = c->min_files >= 2;
	for (int i = 0; i < n; i++) {
		const char *k = p[i].name, *v = p[i].value;
		const struct cli_option *o;
		int repeat = 0;
		cJSON *val;
		if (!strcmp(k, "token"))
			continue;
		if (!strcmp(k, "file")) {
			int f = -1;
			if (!v || cli_parse_int(v, 0, nfiles - 1, &f)) {
				snprintf(err, errn, "%s: 'file' is the number of a served dump, 0 to %d", c->name, nfiles - 1);
				return 400;
			}
			if (put(args, many_files ? "files" : "file", cJSON_CreateString(files[f]), many_files)) {
				snprintf(err, errn, "%s: one 'file' only", c->name);
				return 400;
			}
			continue;
		}
		if (!strcmp(k, "files") && many_files) {
			snprintf(err, errn, "%s: the dumps are given as file=N, once for each", c->name);
			return 400;
		}
		if (mcp_tool_word(c, k, &repeat)) {
			val = cJSON_CreateString(v ? v : "");
		} else if ((o = mcp_tool_option(c, k))) {
			if (o->flags & (OPTF_FILE | OPTF_DIR)) {
				snprintf(err, errn, "%s: '%s' names a file: the server reads and writes none for a request",
					 c->name, k);
				return 400;
			}
			if (mcp_option_of_session(o)) {
				snprintf(err, errn, "%s: '%s' is the server's: give it to hprofan serve", c->name, k);
				return 400;
			}
			repeat = (o->flags & OPTF_REPEAT) != 0;
			val = typed(o, v);
		} else {
			val = cJSON_CreateString(v ? v : "");   /* mcp_tool_argv() names it unknown */
		}
		if (put(args, k, val, repeat)) {
			snprintf(err, errn, "%s: '%s' given twice", c->name, k);
			return 400;
		}
	}
	return 0;
}

int serve_api_argv(const char *cmd, const struct serve_param *p, int n, const char *const *files, int nfiles,
		   char *const *session, char ***argv, int *argc, char *err, size_t errn)
{
	*argv = NULL;
	const struct cli_command *c = mcp_tool(cmd);
	if (!c) {
		snprintf(err, errn, "no command '%s' is served", cmd);
		return 404;
	}
	cJSON *args = cJSON_CreateObject();
	if (!args) {
		snprintf(err, errn, "out of memory");
		return 503;
	}
	int st = query_args(c, p, n, files, nfiles, args, err, errn);
	/* a statement that never ends would hold a worker for good */
	if (!st && !strcmp(c->name, "sql") && !cJSON_GetObjectItemCaseSensitive(args, "timeout"))
		cJSON_AddStringToObject(args, "timeout", SERVE_SQL_TIMEOUT);
	char **w = NULL, *key = NULL;
	int wn = 0;
	if (!st && mcp_tool_argv(c, args, &w, &wn, &key, err, errn))
		st = 400;
	cJSON_Delete(args);
	free(key);
	if (st)
		return st;
	/* the server's session options before the "--" (mcp_tool_argv() puts
	 * it after the options, the files and words after it) */
	int ns = 0;
	while (session[ns])
		ns++;
	char **all = calloc((size_t)(wn + ns + 1), sizeof *all);
	int at = 0, dashes = 0;
	while (dashes < wn && strcmp(w[dashes], "--"))
		dashes++;
	for (int i = 0; all && i < wn + ns; i++) {
		const char *s = i < dashes ? w[i] : i < dashes + ns ? session[i - dashes] : w[i - ns];
		if (!(all[at++] = strdup(s))) {
			mcp_argv_free(all);
			all = NULL;
		}
	}
	mcp_argv_free(w);
	if (!all) {
		snprintf(err, errn, "out of memory");
		return 503;
	}
	*argv = all;
	*argc = at;
	return 0;
}
