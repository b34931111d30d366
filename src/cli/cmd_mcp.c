/* cmd_mcp.c — hprofan mcp: a Model Context Protocol server (revision
 * 2025-06-18, and 2025-03-26 or 2024-11-05 when the client asks for one)
 * over stdio: newline-delimited JSON-RPC 2.0 on stdin and stdout, the
 * analysis commands as tools (mcp_tools.c), each call run as the CLI runs
 * it by the worker of its dumps (mcp_worker.c; mcp.h says how the work is
 * shared out).  docs/mcp.md.
 *
 * One thread, one poll loop over stdin and the workers' pipes.  stdout
 * carries nothing but JSON-RPC messages, one a line; what the server has
 * to say otherwise goes to stderr.  Every bad frame is answered (-32700
 * for one that is no JSON, -32600 for one that is no request, a batch
 * included: MCP 2025-06-18 has none) and the loop goes on; a notification
 * is never answered.  notifications/cancelled for a running call kills its
 * worker and the call is not answered; the next call on those dumps starts
 * a new one.  At the end of stdin the calls under way are answered, then
 * the workers told to end; SIGTERM or SIGINT ends them at once. */
#include "cli/command.h"
#include "cli/mcp.h"
#include "cli/output.h"
#include "cli/msg.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *const versions[] = { "2025-06-18", "2025-03-26", "2024-11-05", NULL };

/* a tools/call, waiting or running */
struct call {
	cJSON *id;                    /* the request's id (a copy) */
	cJSON *token;                 /* params._meta.progressToken (a copy), or NULL */
	char **argv;
	int argc;
	char *key;                    /* its worker's (mcp_tool_argv()) */
	char *output;                 /* the file it names (-o), or NULL */
	uint64_t sent;                /* progress: the last value sent + 1, 0 none */
	struct call *next;
};

struct worker {
	pid_t pid;                    /* 0: the slot is free */
	int to, from;                 /* the pipes to and from it */
	char *key;
	struct call *running;
	struct call *queue;           /* the calls for it after the one running */
	uint64_t used;                /* when it got its last call (a tick) */
	char *buf;                    /* from it: frames as they come */
	size_t len, cap;
};

static struct {
	struct worker w[MCP_MAX_WORKERS];
	struct call *waiting;         /* calls for no worker yet, all slots busy */
	uint64_t tick;
	char *in;                     /* stdin: the line so far */
	size_t len, cap;
	int skipping;                 /* in a line over MCP_MAX_FRAME, till its end */
	int eof, gone, quiet;
} srv;

static volatile sig_atomic_t stop;

static void on_signal(int sig) { stop = sig; }

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
	if (srv.quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	cli_vmessage("hprofan: mcp: ", fmt, ap);
	va_end(ap);
}

/* ---- messages out --------------------------------------------------------- */

static void send_msg(cJSON *m)
{
	char *t = m ? cJSON_PrintUnformatted(m) : NULL;
	cJSON_Delete(m);
	if (!t) {
		note("out of memory writing a message");
		return;
	}
	size_t n = strlen(t);
	t[n] = '\n';                  /* (over the NUL: the length is known) */
	if (cli_write_all(1, t, n + 1))
		srv.gone = 1;         /* the client is gone */
	free(t);
}

static cJSON *message(const cJSON *id)
{
	cJSON *m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	cJSON_AddItemToObject(m, "id", id ? cJSON_Duplicate(id, 1) : cJSON_CreateNull());
	return m;
}

static void reply(const cJSON *id, cJSON *result)
{
	cJSON *m = message(id);
	cJSON_AddItemToObject(m, "result", result);
	send_msg(m);
}

static void reply_error(const cJSON *id, int code, const char *msg, cJSON *data)
{
	cJSON *m = message(id);
	cJSON *e = cJSON_AddObjectToObject(m, "error");
	cJSON_AddNumberToObject(e, "code", code);
	cJSON_AddStringToObject(e, "message", msg);
	if (data)
		cJSON_AddItemToObject(e, "data", data);
	send_msg(m);
}

/* ---- calls ---------------------------------------------------------------- */

static void call_free(struct call *c)
{
	if (!c)
		return;
	cJSON_Delete(c->id);
	cJSON_Delete(c->token);
	mcp_argv_free(c->argv);
	free(c->key);
	free(c->output);
	free(c);
}

static void append(struct call **list, struct call *c)
{
	while (*list)
		list = &(*list)->next;
	c->next = NULL;
	*list = c;
}

/* text without its last newline, as a JSON string */
static cJSON *text_item(const char *t, size_t n)
{
	while (n && t[n - 1] == '\n')
		n--;
	char *s = malloc(n + 1);
	if (!s)
		return NULL;
	memcpy(s, t, n);
	s[n] = '\0';
	cJSON *c = cJSON_CreateObject();
	cJSON_AddStringToObject(c, "type", "text");
	cJSON_AddStringToObject(c, "text", s);
	free(s);
	return c;
}

/* the JSON document of out, minified, as a raw item (printed as it is), or
 * NULL when it is no JSON object */
static cJSON *document(const char *out, size_t n)
{
	char *s = malloc(n + 1);
	if (!s)
		return NULL;
	memcpy(s, out, n);
	s[n] = '\0';
	cJSON_Minify(s);
	cJSON *d = cJSON_Parse(s);
	cJSON *raw = cJSON_IsObject(d) ? cJSON_CreateRaw(s) : NULL;
	cJSON_Delete(d);
	free(s);
	return raw;
}

/* A call's answer from its exit code, stdout and stderr: exit 0 (and 5,
 * leaks --fail-on-leak found a zombie) the document, as text and as
 * structuredContent; 2, a usage error, the JSON-RPC error -32602 with the
 * CLI's message; any other a result with isError. */
static void answer(struct call *c, int rc, const char *out, size_t no, const char *err, size_t ne)
{
	if (rc == EXIT_USAGE) {
		char msg[1024];
		size_t len = strcspn(err, "\n");
		size_t skip = len >= 9 && !strncmp(err, "hprofan: ", 9) ? 9 : 0;
		snprintf(msg, sizeof msg, "%.*s", (int)(len - skip), err + skip);
		cJSON *data = cJSON_CreateObject();
		cJSON_AddNumberToObject(data, "exitCode", rc);
		cJSON *e = text_item(err, ne);
		cJSON_AddItemToObject(data, "stderr", cJSON_DetachItemFromObject(e, "text"));
		cJSON_Delete(e);
		reply_error(c->id, -32602, msg[0] ? msg : "usage error", data);
		return;
	}
	cJSON *r = cJSON_CreateObject();
	cJSON *content = cJSON_AddArrayToObject(r, "content");
	int ok = rc == EXIT_OK || rc == EXIT_LEAK;
	if (ok && no) {
		cJSON_AddItemToArray(content, text_item(out, no));
		cJSON *d = document(out, no);
		if (d)
			cJSON_AddItemToObject(r, "structuredContent", d);
	} else if (ok) {
		char t[4200];
		snprintf(t, sizeof t, "written to %s", c->output ? c->output : "the output");
		cJSON_AddItemToArray(content, text_item(t, strlen(t)));
	}
	if (ne || !ok) {
		char t[64];
		snprintf(t, sizeof t, "hprofan: exit status %d", rc);
		cJSON_AddItemToArray(content, ne ? text_item(err, ne) : text_item(t, strlen(t)));
	}
	cJSON_AddBoolToObject(r, "isError", !ok);
	reply(c->id, r);
}

/* ---- workers ---------------------------------------------------------------- */

static int send_call(struct worker *w, struct call *c)
{
	size_t len = 0;
	for (int i = 0; i < c->argc; i++)
		len += strlen(c->argv[i]) + 1;
	char *b = malloc(len ? len : 1);
	if (!b)
		return -1;
	char *p = b;
	for (int i = 0; i < c->argc; i++) {
		size_t k = strlen(c->argv[i]) + 1;
		memcpy(p, c->argv[i], k);
		p += k;
	}
	struct mcp_frame f = { .type = MCP_RUN, .code = c->token != NULL, .len1 = (uint32_t)len,
			       .n = (uint32_t)c->argc };
	int r = cli_write_all(w->to, &f, sizeof f) || cli_write_all(w->to, b, len) ? -1 : 0;
	free(b);
	w->running = c;
	w->used = ++srv.tick;
	return r;
}

static void dispatch(struct call *c);

/* a worker's slot freed once its process is reaped, the calls queued for
 * it placed again */
static void worker_slot_free(struct worker *w)
{
	close(w->from);
	free(w->key);
	free(w->buf);
	struct call *q = w->queue;
	memset(w, 0, sizeof *w);
	w->to = w->from = -1;
	while (q) {
		struct call *n = q->next;
		dispatch(q);
		q = n;
	}
}

/* the worker gone: its slot freed, the calls queued for it placed again
 * (the one running is the caller's) */
static void worker_drop(struct worker *w, int kill_it)
{
	if (kill_it)
		kill(w->pid, SIGKILL);
	if (w->to >= 0)
		close(w->to);
	int st;
	while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR)
		;
	worker_slot_free(w);
}

/* the server's state the worker does not need (in the child) */
static void forget_server(void)
{
	for (int i = 0; i < MCP_MAX_WORKERS; i++) {
		struct worker *w = &srv.w[i];
		if (!w->pid)
			continue;
		close(w->to);
		close(w->from);
	}
	free(srv.in);
	srv.in = NULL;
}

static struct worker *worker_new(struct worker *w, const char *key)
{
	int down[2], up[2];
	if (pipe2(down, O_CLOEXEC))
		return NULL;
	if (pipe2(up, O_CLOEXEC)) {
		close(down[0]);
		close(down[1]);
		return NULL;
	}
	fflush(stderr);
	pid_t parent = getpid(), pid = fork();
	if (pid < 0) {
		close(down[0]);
		close(down[1]);
		close(up[0]);
		close(up[1]);
		return NULL;
	}
	if (pid == 0) {
		mcp_worker_child(parent);
		close(down[1]);
		close(up[0]);
		forget_server();
		int rc = mcp_worker_run(down[0], up[1]);
		close(down[0]);
		close(up[1]);
		exit(rc);
	}
	close(down[0]);
	close(up[1]);
	fcntl(up[0], F_SETFL, O_NONBLOCK);
	size_t kl = 0;
	while (key[kl] || (kl && key[kl - 1]))   /* words and their NULs, up to "" */
		kl += strlen(key + kl) + 1;
	char *k = malloc(kl + 1);
	if (!k) {
		close(down[1]);
		close(up[0]);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return NULL;
	}
	memcpy(k, key, kl);
	k[kl] = '\0';
	memset(w, 0, sizeof *w);
	w->pid = pid;
	w->to = down[1];
	w->from = up[0];
	w->key = k;
	return w;
}

/* Places c: with the worker of its key (after the call it runs), else
 * in a free slot or the least recently used idle worker's, else it
 * waits.  A call whose worker cannot be started is answered so. */
static void dispatch(struct call *c)
{
	struct worker *free_slot = NULL, *idle = NULL;
	for (int i = 0; i < MCP_MAX_WORKERS; i++) {
		struct worker *w = &srv.w[i];
		if (w->pid && mcp_key_same(w->key, c->key)) {
			if (w->running)
				append(&w->queue, c);
			else
				send_call(w, c);   /* (failing, its end is seen as its pipe closes) */
			return;
		}
		if (!w->pid && !free_slot)
			free_slot = w;
		if (w->pid && !w->running && !w->queue && (!idle || w->used < idle->used))
			idle = w;
	}
	if (!free_slot && idle) {
		worker_drop(idle, 0);
		free_slot = idle;
	}
	if (!free_slot) {
		append(&srv.waiting, c);
		return;
	}
	struct worker *w = worker_new(free_slot, c->key);
	if (!w) {
		char m[300];
		snprintf(m, sizeof m, "cannot start a worker: %s", strerror(errno));
		reply_error(c->id, -32603, m, NULL);
		call_free(c);
		return;
	}
	send_call(w, c);
}

/* the calls waiting, placed while there is room */
static void pump(void)
{
	struct call *q = srv.waiting;
	srv.waiting = NULL;
	while (q) {
		struct call *n = q->next;
		dispatch(q);
		q = n;
	}
}

static void progress(struct call *c, const struct mcp_frame *f, const char *msg)
{
	if (!c || !c->token || (c->sent && f->a + 1 <= c->sent))
		return;               /* (only growing: as the specification asks) */
	c->sent = f->a + 1;
	cJSON *m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	cJSON_AddStringToObject(m, "method", "notifications/progress");
	cJSON *p = cJSON_AddObjectToObject(m, "params");
	cJSON_AddItemToObject(p, "progressToken", cJSON_Duplicate(c->token, 1));
	cJSON_AddNumberToObject(p, "progress", (double)f->a);
	if (f->b)
		cJSON_AddNumberToObject(p, "total", (double)f->b);
	cJSON_AddStringToObject(p, "message", msg);
	send_msg(m);
}

/* what came from w: its frames handled; 0, or -1 when it is gone (or
 * its frames cannot be held) */
static int worker_read(struct worker *w)
{
	int eof = 0;
	while (!eof) {
		if (w->cap - w->len < 65536) {
			size_t cap = w->cap ? 2 * w->cap : 131072;
			char *b = realloc(w->buf, cap);
			if (!b)
				return -1;
			w->buf = b;
			w->cap = cap;
		}
		ssize_t k = read(w->from, w->buf + w->len, w->cap - w->len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (k <= 0)
			eof = 1;      /* (the frames before it handled first) */
		else
			w->len += (size_t)k;
	}
	size_t at = 0;
	while (w->len - at >= sizeof(struct mcp_frame)) {
		struct mcp_frame f;
		memcpy(&f, w->buf + at, sizeof f);
		size_t need = sizeof f + f.len1 + (size_t)f.len2;
		if (w->len - at < need)
			break;
		const char *p = w->buf + at + sizeof f;
		if (f.type == MCP_PROGRESS) {
			char msg[600];
			snprintf(msg, sizeof msg, "%.*s", (int)f.len1, p);
			progress(w->running, &f, msg);
		} else if (f.type == MCP_DONE && w->running) {
			struct call *c = w->running;
			w->running = NULL;
			answer(c, f.code, p, f.len1, p + f.len1, f.len2);
			call_free(c);
			struct call *q = w->queue;
			if (q) {
				w->queue = q->next;
				send_call(w, q);
			}
		}
		at += need;
	}
	memmove(w->buf, w->buf + at, w->len - at);
	w->len -= at;
	if (!w->len && w->cap > (1u << 20)) {
		free(w->buf);     /* (a big answer's room not kept) */
		w->buf = NULL;
		w->cap = 0;
	}
	return eof ? -1 : 0;
}

static void worker_died(struct worker *w)
{
	int st = 0;
	pid_t pid = w->pid;
	struct call *c = w->running;
	w->running = NULL;
	kill(pid, SIGKILL);
	close(w->to);
	w->to = -1;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	char how[64], m[200];
	if (WIFSIGNALED(st))
		snprintf(how, sizeof how, "by signal %d", WTERMSIG(st));
	else
		snprintf(how, sizeof how, "with exit status %d", WEXITSTATUS(st));
	snprintf(m, sizeof m, "the worker running this call ended %s", how);
	note("worker %d ended %s", (int)pid, how);
	if (c)
		reply_error(c->id, -32603, m, NULL);
	call_free(c);
	worker_slot_free(w);
}

/* ---- requests ---------------------------------------------------------------- */

static int in_flight(const cJSON *id)
{
	for (int i = 0; i < MCP_MAX_WORKERS; i++) {
		const struct worker *w = &srv.w[i];
		if (w->running && cJSON_Compare(w->running->id, id, 1))
			return 1;
		for (const struct call *q = w->queue; q; q = q->next)
			if (cJSON_Compare(q->id, id, 1))
				return 1;
	}
	for (const struct call *q = srv.waiting; q; q = q->next)
		if (cJSON_Compare(q->id, id, 1))
			return 1;
	return 0;
}

/* notifications/cancelled: the call not answered; running, its worker killed */
static void cancel(const cJSON *params)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(params, "requestId");
	if (!id)
		return;
	for (int i = 0; i < MCP_MAX_WORKERS; i++) {
		struct worker *w = &srv.w[i];
		for (struct call **q = &w->queue; *q; q = &(*q)->next)
			if (cJSON_Compare((*q)->id, id, 1)) {
				struct call *c = *q;
				*q = c->next;
				call_free(c);
				return;
			}
		if (w->running && cJSON_Compare(w->running->id, id, 1)) {
			struct call *c = w->running;
			w->running = NULL;
			note("call cancelled: worker %d stopped", (int)w->pid);
			call_free(c);
			worker_drop(w, 1);
			pump();
			return;
		}
	}
	for (struct call **q = &srv.waiting; *q; q = &(*q)->next)
		if (cJSON_Compare((*q)->id, id, 1)) {
			struct call *c = *q;
			*q = c->next;
			call_free(c);
			return;
		}
}

static void initialize(const cJSON *id, const cJSON *params)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(params, "protocolVersion");
	const char *ver = versions[0];
	for (int i = 0; cJSON_IsString(v) && versions[i]; i++)
		if (!strcmp(v->valuestring, versions[i]))
			ver = versions[i];
	cJSON *r = cJSON_CreateObject();
	cJSON_AddStringToObject(r, "protocolVersion", ver);
	cJSON *caps = cJSON_AddObjectToObject(r, "capabilities");
	cJSON_AddBoolToObject(cJSON_AddObjectToObject(caps, "tools"), "listChanged", 0);
	cJSON *si = cJSON_AddObjectToObject(r, "serverInfo");
	cJSON_AddStringToObject(si, "name", "hprofan");
	cJSON_AddStringToObject(si, "version", HPROFAN_VERSION);
	cJSON_AddStringToObject(r, "instructions",
				"hprofan analyses Java and Android heap dumps (HPROF files, plain or gzip). Each tool "
				"is an hprofan command and answers with its JSON document (schema " HP_SCHEMA "). "
				"Start with info or top on a dump; a dump stays open between calls, so the calls after "
				"the first on it are quick.");
	reply(id, r);
}

static void tools_call(const cJSON *id, const cJSON *params)
{
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(params, "name");
	if (!cJSON_IsString(name)) {
		reply_error(id, -32602, "tools/call: params.name, the tool's name, is missing", NULL);
		return;
	}
	const struct cli_command *cmd = mcp_tool(name->valuestring);
	if (!cmd) {
		char m[300];
		snprintf(m, sizeof m, "Unknown tool: %s", name->valuestring);
		reply_error(id, -32602, m, NULL);
		return;
	}
	if (in_flight(id)) {
		reply_error(id, -32600, "a request of this id is under way", NULL);
		return;
	}
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(params, "arguments");
	if (cJSON_IsNull(args))
		args = NULL;
	struct call *c = calloc(1, sizeof *c);
	char err[600];
	if (!c) {
		reply_error(id, -32603, "out of memory", NULL);
		return;
	}
	if (mcp_tool_argv(cmd, args, &c->argv, &c->argc, &c->key, err, sizeof err)) {
		reply_error(id, -32602, err, NULL);
		call_free(c);
		return;
	}
	const cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
	const cJSON *tok = cJSON_GetObjectItemCaseSensitive(meta, "progressToken");
	const cJSON *out = cJSON_GetObjectItemCaseSensitive(args, "output");
	c->id = cJSON_Duplicate(id, 1);
	if (cJSON_IsString(tok) || cJSON_IsNumber(tok))
		c->token = cJSON_Duplicate(tok, 1);
	if (cJSON_IsString(out))
		c->output = strdup(out->valuestring);
	if (!c->id || (tok && !c->token && (cJSON_IsString(tok) || cJSON_IsNumber(tok)))) {
		reply_error(id, -32603, "out of memory", NULL);
		call_free(c);
		return;
	}
	dispatch(c);
}

static void request(const cJSON *id, const char *method, const cJSON *params)
{
	if (!strcmp(method, "initialize"))
		initialize(id, params);
	else if (!strcmp(method, "ping"))
		reply(id, cJSON_CreateObject());
	else if (!strcmp(method, "tools/list")) {
		cJSON *r = cJSON_CreateObject();
		cJSON *t = mcp_tools_list();
		if (!r || !t) {
			cJSON_Delete(r);
			cJSON_Delete(t);
			reply_error(id, -32603, "out of memory", NULL);
			return;
		}
		cJSON_AddItemToObject(r, "tools", t);
		reply(id, r);
	} else if (!strcmp(method, "tools/call"))
		tools_call(id, params);
	else {
		char m[300];
		snprintf(m, sizeof m, "Method not found: %.200s", method);
		reply_error(id, -32601, m, NULL);
	}
}

/* one line from the client */
static void frame(const char *s, size_t n)
{
	size_t sp = 0;
	while (sp < n && (s[sp] == ' ' || s[sp] == '\t' || s[sp] == '\r' || s[sp] == '\n'))
		sp++;
	if (sp == n)
		return;               /* (an empty line) */
	cJSON *j = cJSON_ParseWithLength(s, n);
	if (!j) {
		reply_error(NULL, -32700, "Parse error: the line is no JSON", NULL);
		return;
	}
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(j, "id");
	const cJSON *ver = cJSON_GetObjectItemCaseSensitive(j, "jsonrpc");
	const cJSON *method = cJSON_GetObjectItemCaseSensitive(j, "method");
	const cJSON *params = cJSON_GetObjectItemCaseSensitive(j, "params");
	if (cJSON_IsArray(j))
		reply_error(NULL, -32600, "Invalid Request: batches are not supported (MCP 2025-06-18 has none)", NULL);
	else if (!cJSON_IsObject(j))
		reply_error(NULL, -32600, "Invalid Request: not an object", NULL);
	else if (id && !cJSON_IsString(id) && !cJSON_IsNumber(id))
		reply_error(NULL, -32600, "Invalid Request: the id is neither a string nor a number", NULL);
	else if (!cJSON_IsString(ver) || strcmp(ver->valuestring, "2.0"))
		reply_error(id, -32600, "Invalid Request: jsonrpc is not \"2.0\"", NULL);
	else if (!method && id && (cJSON_HasObjectItem(j, "result") || cJSON_HasObjectItem(j, "error")))
		;                     /* a response: the server asks nothing */
	else if (!cJSON_IsString(method))
		reply_error(id, -32600, "Invalid Request: no method", NULL);
	else if (params && !cJSON_IsObject(params) && id)
		reply_error(id, -32602, "Invalid params: params is not an object", NULL);
	else if (!id) {
		if (!strcmp(method->valuestring, "notifications/cancelled"))
			cancel(params);
		/* (notifications/initialized and any other: nothing to do) */
	} else
		request(id, method->valuestring, params);
	cJSON_Delete(j);
}

/* stdin's bytes: each whole line a frame; a line over MCP_MAX_FRAME
 * answered and skipped */
static void input(const char *b, size_t n)
{
	while (n) {
		const char *nl = memchr(b, '\n', n);
		size_t take = nl ? (size_t)(nl - b) + 1 : n;
		if (!srv.skipping) {
			if (srv.len + take > srv.cap) {
				size_t cap = srv.cap ? srv.cap : 65536;
				while (cap < srv.len + take)
					cap *= 2;
				char *p = realloc(srv.in, cap);
				if (!p) {
					reply_error(NULL, -32603, "out of memory reading a frame", NULL);
					srv.skipping = 1;
					srv.len = 0;
					goto next;
				}
				srv.in = p;
				srv.cap = cap;
			}
			memcpy(srv.in + srv.len, b, take);
			srv.len += take;
			if (srv.len > MCP_MAX_FRAME + 1) {
				reply_error(NULL, -32700, "Parse error: a line over 16 MiB (skipped)", NULL);
				srv.skipping = 1;
				srv.len = 0;
			} else if (nl) {
				frame(srv.in, srv.len);
				srv.len = 0;
			}
		}
next:
		if (nl)
			srv.skipping = 0;
		b += take;
		n -= take;
	}
	if (srv.cap > MCP_MAX_FRAME && !srv.len) {
		free(srv.in);     /* (a long line's buffer not kept) */
		srv.in = NULL;
		srv.cap = 0;
	}
}

static int busy(void)
{
	if (srv.waiting)
		return 1;
	for (int i = 0; i < MCP_MAX_WORKERS; i++)
		if (srv.w[i].running || srv.w[i].queue)
			return 1;
	return 0;
}

static void end_all(void)
{
	for (int i = 0; i < MCP_MAX_WORKERS; i++) {
		struct worker *w = &srv.w[i];
		if (!w->pid)
			continue;
		struct call *c = w->running;
		w->running = NULL;
		call_free(c);
		for (struct call *q = w->queue, *n; q; q = n) {
			n = q->next;
			call_free(q);
		}
		w->queue = NULL;
		worker_drop(w, c != NULL);
	}
	for (struct call *q = srv.waiting, *n; q; q = n) {
		n = q->next;
		call_free(q);
	}
	srv.waiting = NULL;
	free(srv.in);
	srv.in = NULL;
}

static int run(struct cli_ctx *x)
{
	memset(&srv, 0, sizeof srv);
	for (int i = 0; i < MCP_MAX_WORKERS; i++)
		srv.w[i].to = srv.w[i].from = -1;
	srv.quiet = x->c->quiet;
	signal(SIGPIPE, SIG_IGN);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	while (!stop && !srv.gone && !(srv.eof && !busy())) {
		struct pollfd p[1 + MCP_MAX_WORKERS];
		struct worker *of[1 + MCP_MAX_WORKERS];
		int n = 0;
		if (!srv.eof) {
			p[n] = (struct pollfd){ .fd = 0, .events = POLLIN };
			of[n++] = NULL;
		}
		for (int i = 0; i < MCP_MAX_WORKERS; i++)
			if (srv.w[i].pid) {
				p[n] = (struct pollfd){ .fd = srv.w[i].from, .events = POLLIN };
				of[n++] = &srv.w[i];
			}
		if (poll(p, (nfds_t)n, -1) < 0) {
			if (errno == EINTR)
				continue;
			cli_error("mcp: poll: %s", strerror(errno));
			break;
		}
		for (int i = 0; i < n && !srv.gone; i++) {
			if (!p[i].revents)
				continue;
			if (!of[i]) {
				char b[65536];
				ssize_t k = read(0, b, sizeof b);
				if (k < 0 && (errno == EINTR || errno == EAGAIN))
					continue;
				if (k <= 0) {
					srv.eof = 1;
					if (srv.len && !srv.skipping)
						frame(srv.in, srv.len);   /* a last line without its newline */
					srv.len = 0;
				} else {
					input(b, (size_t)k);
				}
			} else if (of[i]->pid && worker_read(of[i])) {
				worker_died(of[i]);
			}
		}
		pump();
	}
	if (stop)
		note("ended by signal %d", (int)stop);
	end_all();
	return EXIT_OK;
}

CLI_COMMAND(mcp, "hprofan mcp", "a Model Context Protocol server (stdio): the analysis commands as tools",
	    CLI_FILES(0, 0), .run = run, CLI_TABLES(cli_opts_quiet));
