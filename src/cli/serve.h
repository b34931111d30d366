/*
 * serve.h — hprofan serve, the heap in a browser (docs/serve.md): what its
 * files share.
 *
 *   cmd_serve.c    the command: the sessions opened once, the worker
 *                  processes forked from it, the HTTP server (GNU
 *                  libmicrohttpd) and its checks
 *   serve_cache.c  the answers kept by command line
 *   serve_api.c    /api/COMMAND?QUERY: the query as the arguments of
 *                  hprofan mcp's tools (mcp_tool_argv()), so the answer is
 *                  the CLI's --json document for the same command line
 *   src/cli/serve/ the page: index.html, serve.js, serve.css, built into
 *                  the binary by scripts/embed-files ($(BUILD)/gen/serve_assets.c)
 */
#ifndef HP_CLI_SERVE_H
#define HP_CLI_SERVE_H

#include <stddef.h>
#include "cli/command.h"

/* a file of the page: its path under /static/ ("serve.js"), bytes, length
 * (a NUL follows them) and media type; the table ends with a NULL name */
struct serve_asset {
	const char *name;
	const unsigned char *data;
	size_t len;
	const char *type;
};
extern const struct serve_asset serve_assets[];

/* the longest query (all its names and values) and the most parameters */
#define SERVE_MAX_QUERY 8192
#define SERVE_MAX_PARAMS 64
/* sql's --timeout (seconds) when a query gives none */
#define SERVE_SQL_TIMEOUT "30"

/* One parameter of a query, as libmicrohttpd gives it (value NULL: the
 * name alone, "?flag"). */
struct serve_param { const char *name, *value; };

/* The command line of /api/CMD with the query's parameters p[0..n): the
 * FILE arguments are `file=N` (the Nth of files[0..nfiles)); session, the
 * server's words for the options the sessions are opened under, go before
 * the "--".  0 with *argv (mcp_argv_free()) and *argc; else the HTTP
 * status (400, 404) with why in err. */
int serve_api_argv(const char *cmd, const struct serve_param *p, int n, const char *const *files, int nfiles,
		   char *const *session, char ***argv, int *argc, char *err, size_t errn);

/* serve_cache.c: the answers (200's) of /api by command line (key: its
 * words and their NULs), at most max_bytes kept.  serve_cache_get(): 1
 * with a copy of the answer in *body (free()) and *len; else 0: the
 * caller runs it and then gives its answer to serve_cache_put() (a copy
 * is kept), or serve_cache_drop() when it failed; those asking for the
 * same key meanwhile wait.  serve_cache_clear() forgets every answer;
 * serve_cache_free() all at the end. */
void serve_cache_init(size_t max_bytes);
int serve_cache_get(const char *key, size_t klen, char **body, size_t *len);
void serve_cache_put(const char *key, size_t klen, const char *body, size_t len);
void serve_cache_drop(const char *key, size_t klen);
void serve_cache_clear(void);
void serve_cache_free(void);

#endif
