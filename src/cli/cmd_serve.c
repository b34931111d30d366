/* hprofan serve FILE...: the heap in a browser (docs/serve.md, serve.h).
 *
 * Each dump's session is opened once, here, before anything is served:
 * its model, retained sizes and paths are made (or mapped from its index)
 * by running `dominators` and `path` on it through cli_main() with the
 * sessions kept open (cli_sessions_keep()).  Then --workers processes,
 * hprofan mcp's workers (mcp_worker_run()), are forked from a fork of this
 * one made before any thread (the zygote, below): each inherits those
 * sessions copy-on-write, so the heap is in memory once,
 * shared by all of them (and the index's pages by the page cache), and no
 * request copies it.  A request for /api/COMMAND?QUERY is the command line
 * the query makes (serve_api.c), run by an idle worker as the CLI runs it:
 * the answer is the CLI's --json document.  The commands keep global state
 * (stdout, the sessions' table, the option tables' results), so they run
 * in processes, not threads; a worker that dies is replaced by another
 * fork of the zygote, and the call is sent again.
 *
 * The HTTP server is GNU libmicrohttpd, a thread per connection (at most
 * SERVE_MAX_CONN); a connection waits for an idle worker.  Its checks, in
 * order: GET or HEAD, no body (but POST /api/sql, below); the Host header names the bound address
 * or localhost with the port (DNS rebinding); a token bucket per client
 * address (SERVE_RATE a second, SERVE_BURST at once); the token, 128
 * random bits (getrandom), compared in constant time, from the query's
 * `token` or the cookie the first page sets (HttpOnly, SameSite=Strict,
 * named after the port); a query of at most SERVE_MAX_QUERY bytes.  The
 * paths are a fixed table: /, /static/NAME of the embedded files, /api/...
 * (no part of a URL reaches the filesystem).  Every answer carries a
 * Content-Security-Policy of 'self' alone (the page's script and style are
 * files of their own; no 'unsafe-inline'), nosniff, no-referrer, DENY
 * framing and no CORS header.
 *
 * SIGINT and SIGTERM end it: the workers are told to go, the connections
 * closed, the sessions freed.
 */
#include "cli/serve.h"
#include "cli/mcp.h"
#include "cli/output.h"
#include "cli/msg.h"
#include "cli/load.h"
#include "cli/report_assets.h"
#include "base/clock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>

#define SERVE_MAX_WORKERS 16
#define SERVE_MAX_CONN 100            /* connections at once (a thread each) */
#define SERVE_MAX_CONN_PER_IP 60
#define SERVE_TIMEOUT 60              /* seconds a connection may idle */
#define SERVE_RATE 200.0              /* requests a second per client address ... */
#define SERVE_BURST 600.0             /* ... and at once */
#define SERVE_MAX_ANSWER (256u << 20) /* the longest document answered */
#define SERVE_MAX_BODY (1u << 20)     /* the longest query POST /api/sql takes ... */
#define SERVE_BODY_IDLE 10            /* ... the seconds its body may pause ... */
#define SERVE_BODY_TIME 30            /* ... and take in all */
#define SERVE_CACHE_BYTES (256u << 20)   /* the answers kept (serve_cache.c) */
#define TOKEN_BYTES 16

extern char **environ;

struct serve_opts {
	int port;
	const char *bind;
	int open;
	int workers;
};

static void defaults(void *own)
{
	struct serve_opts *o = own;
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	o->workers = n < 2 ? 2 : n > 8 ? 8 : (int)n;
}

static int set_port(const struct cli_option *o, const char *as, const char *val, void *dst)
{
	if (cli_parse_int(val, 0, 65535, dst))
		return cli_usage_error(NULL, "%s needs a port number, 0 to 65535 (0: any free port)", as);
	return EXIT_OK;
}

static int set_workers(const struct cli_option *o, const char *as, const char *val, void *dst)
{
	if (cli_parse_int(val, 1, SERVE_MAX_WORKERS, dst))
		return cli_usage_error(NULL, "%s needs a number of worker processes, 1 to %d", as, SERVE_MAX_WORKERS);
	return EXIT_OK;
}

#define OWN(field) OPT_OWN(struct serve_opts, field)
static const struct cli_option own[] = {
	OPT_CALLBACK("--port", "N", set_port, "listen on port N (default 0: any free port; the URL says which)",
		     "needs a port number", OWN(port)),
	OPT_STRING("--bind", "ADDR", "listen on address ADDR (default 127.0.0.1, loopback only;\nanother is said with a warning)",
		   "needs an IPv4 or IPv6 address", OWN(bind)),
	OPT_BOOL("--open", "open the URL in a browser (xdg-open)", OWN(open)),
	OPT_CALLBACK("--workers", "N", set_workers, "worker processes answering the API (default: the\nnumber of cores, 2 to 8)",
		     "needs a number of workers", OWN(workers)),
	OPT_END
};

/* ---- the server's state ------------------------------------------------- */

struct sworker {
	pid_t pid;                    /* 0: none (not started, or gone) */
	int to, from;                 /* pipes to and from it */
	int busy;
};

static struct {
	const char *const *files;
	int nfiles;
	struct stat *st;              /* each dump as it was at the last request */
	char **session;               /* the session options' words, NULL-ended */
	char token[2 * TOKEN_BYTES + 1];
	char cookie[32];              /* the cookie's name: hprofan-PORT */
	char host[INET6_ADDRSTRLEN + 2];   /* the bound address as a Host names it */
	int port;
	pthread_mutex_t mu;
	pthread_cond_t idle;
	struct sworker w[SERVE_MAX_WORKERS];
	int nw;
	pid_t zygote;                 /* the workers' parent, and its socket */
	int zfd;
	volatile int stopping;
	/* the token buckets, by client address */
	struct bucket { unsigned char addr[16]; int used; double tokens, at; } rate[256];
	pthread_mutex_t rate_mu;
} srv;

/* ---- workers --------------------------------------------------------------- */

/* ---- the zygote -------------------------------------------------------------
 * Workers are forked by a process of their own, forked from the server
 * before it starts any thread: a fork of a process with threads may leave
 * a lock another thread held locked for good in the child (the
 * allocator's, stdio's), and a worker that replaces one that died is forked
 * while the server's connection threads run.  The zygote holds the
 * sessions as the server does (copy-on-write), waits for a byte on its
 * socket, forks a worker and sends back its pid and the server's ends of
 * its two pipes (SCM_RIGHTS).  It reaps its workers (SIGCHLD ignored) and
 * ends when the server closes its socket, or dies with it. */

/* the zygote's loop on socket fd; never returns */
static void zygote_run(int fd)
{
	signal(SIGCHLD, SIG_IGN);
	char c;
	for (;;) {
		ssize_t k = read(fd, &c, 1);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			_exit(0);
		int p[4] = { -1, -1, -1, -1 };   /* down: p[0] its end, p[1] ours; up: p[2] ours, p[3] its end */
		pid_t pid = -1;
		if (pipe2(p, O_CLOEXEC) == 0 && pipe2(p + 2, O_CLOEXEC) == 0) {
			fflush(stdout);
			fflush(stderr);
			pid = fork();
		}
		if (pid == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			signal(SIGCHLD, SIG_DFL);
			close(fd);
			close(p[1]);
			close(p[2]);
			_exit(mcp_worker_run(p[0], p[3]));
		}
		int32_t id = pid;
		union { struct cmsghdr h; char b[CMSG_SPACE(2 * sizeof(int))]; } ctl;
		memset(&ctl, 0, sizeof ctl);
		struct iovec iov = { .iov_base = &id, .iov_len = sizeof id };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
		if (pid > 0) {
			m.msg_control = ctl.b;
			m.msg_controllen = sizeof ctl.b;
			struct cmsghdr *h = CMSG_FIRSTHDR(&m);
			h->cmsg_level = SOL_SOCKET;
			h->cmsg_type = SCM_RIGHTS;
			h->cmsg_len = CMSG_LEN(2 * sizeof(int));
			int two[2] = { p[1], p[2] };
			memcpy(CMSG_DATA(h), two, sizeof two);
		}
		while (sendmsg(fd, &m, MSG_NOSIGNAL) < 0 && errno == EINTR)
			;
		for (int i = 0; i < 4; i++)
			if (p[i] >= 0)
				close(p[i]);
	}
}

/* starts the zygote (before any thread): 0, else -1 */
static int zygote_start(void)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -1;
	fflush(stdout);
	fflush(stderr);
	pid_t parent = getpid(), pid = fork();
	if (pid < 0) {
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	if (pid == 0) {
		mcp_worker_child(parent);
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		close(sv[0]);
		zygote_run(sv[1]);
	}
	close(sv[1]);
	srv.zygote = pid;
	srv.zfd = sv[0];
	return 0;
}

static void zygote_end(void)
{
	if (srv.zygote <= 0)
		return;
	close(srv.zfd);           /* it ends at its next read */
	if (waitpid(srv.zygote, NULL, 0) < 0)
		kill(srv.zygote, SIGKILL);
	srv.zygote = 0;
}

/* a worker into w, from the zygote (srv.mu held): 0, else -1 */
static int worker_start(struct sworker *w)
{
	char c = 1;
	int32_t id = -1;
	union { struct cmsghdr h; char b[CMSG_SPACE(2 * sizeof(int))]; } ctl;
	struct iovec iov = { .iov_base = &id, .iov_len = sizeof id };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.b, .msg_controllen = sizeof ctl.b };
	if (srv.zygote <= 0 || write(srv.zfd, &c, 1) != 1)
		return -1;
	ssize_t k;
	while ((k = recvmsg(srv.zfd, &m, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
		;
	struct cmsghdr *h = k == (ssize_t)sizeof id ? CMSG_FIRSTHDR(&m) : NULL;
	if (!h || id <= 0 || h->cmsg_type != SCM_RIGHTS || h->cmsg_len != CMSG_LEN(2 * sizeof(int)))
		return -1;
	int two[2];
	memcpy(two, CMSG_DATA(h), sizeof two);
	w->pid = id;
	w->to = two[0];
	w->from = two[1];
	w->busy = 0;
	return 0;
}

/* ends worker w (the zygote's child: it reaps it; its pipe's end tells
 * that it is gone) */
static void worker_end(struct sworker *w)
{
	if (!w->pid)
		return;
	kill(w->pid, SIGKILL);
	close(w->to);
	char b[4096];
	while (read(w->from, b, sizeof b) > 0)   /* EOF once it is dead */
		;
	close(w->from);
	w->pid = 0;
}

/* an idle worker, marked busy; NULL when the server stops */
static struct sworker *worker_take(void)
{
	pthread_mutex_lock(&srv.mu);
	struct sworker *got = NULL;
	while (!got && !srv.stopping) {
		for (int i = 0; i < srv.nw && !got; i++)
			if (!srv.w[i].busy && (srv.w[i].pid || worker_start(&srv.w[i]) == 0))
				got = &srv.w[i];
		if (!got)
			pthread_cond_wait(&srv.idle, &srv.mu);
	}
	if (got)
		got->busy = 1;
	pthread_mutex_unlock(&srv.mu);
	return got;
}

/* w back in the pool; dead: it failed a call (ended, started again on its next) */
static void worker_give(struct sworker *w, int dead)
{
	pthread_mutex_lock(&srv.mu);
	if (dead)
		worker_end(w);
	w->busy = 0;
	pthread_cond_signal(&srv.idle);
	pthread_mutex_unlock(&srv.mu);
}

/* discards n bytes from fd: 0, else -1 */
static int skip_bytes(int fd, uint64_t n)
{
	char b[65536];
	while (n) {
		size_t k = n < sizeof b ? (size_t)n : sizeof b;
		if (mcp_read_all(fd, b, k))
			return -1;
		n -= k;
	}
	return 0;
}

/* Runs argv in a worker: 0 with the exit code, stdout (*out, *nout;
 * free()) and stderr (*err, NUL-ended; free()), else -1 (no worker, or it
 * died: *err NULL); buf: the argc words and their NULs, len bytes. */
static int run_in_worker(const char *buf, size_t len, int argc, int *rc, char **out, size_t *nout, char **err)
{
	*out = *err = NULL;
	*nout = 0;
	struct sworker *w = worker_take();
	if (!w)
		return -1;
	struct mcp_frame f = { .type = MCP_RUN, .code = 0, .len1 = (uint32_t)len, .n = (uint32_t)argc };
	int bad = cli_write_all(w->to, &f, sizeof f) || cli_write_all(w->to, buf, len);
	struct mcp_frame d;
	for (;;) {
		if (bad || mcp_read_all(w->from, &d, sizeof d)) {
			bad = 1;
			break;
		}
		if (d.type == MCP_DONE)
			break;
		if (d.type != MCP_PROGRESS || skip_bytes(w->from, d.len1)) {
			bad = 1;
			break;
		}
	}
	if (!bad) {
		int big = d.len1 > SERVE_MAX_ANSWER;
		*out = malloc(big ? 1 : (size_t)d.len1 + 1);
		*err = malloc((size_t)d.len2 + 1);
		if (!*out || !*err)
			bad = 1;
		else if (big ? skip_bytes(w->from, d.len1) : mcp_read_all(w->from, *out, d.len1))
			bad = 1;
		else if (mcp_read_all(w->from, *err, d.len2))
			bad = 1;
		if (!bad) {
			(*err)[d.len2] = '\0';
			*nout = big ? 0 : d.len1;
			*rc = d.code;
			if (big) {
				free(*err);
				*err = strdup("hprofan: the answer is over 256 MiB: ask for fewer rows (top=N)");
				*rc = EXIT_NOMEM;
			}
		}
	}
	worker_give(w, bad);
	if (bad) {
		free(*out);
		free(*err);
		*out = *err = NULL;
		return -1;
	}
	return 0;
}

/* ---- answers ------------------------------------------------------------ */

static const char csp[] = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
			  "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
			  "frame-ancestors 'none'";

static enum MHD_Result answer(struct MHD_Connection *conn, unsigned status, const char *type, const void *body,
			      size_t len, enum MHD_ResponseMemoryMode mode, const char *cookie)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)body, mode);
	if (!r) {
		if (mode == MHD_RESPMEM_MUST_FREE)
			free((void *)body);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", type);
	MHD_add_response_header(r, "Content-Security-Policy", csp);
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(r, "X-Frame-Options", "DENY");
	MHD_add_response_header(r, "Cross-Origin-Resource-Policy", "same-origin");
	MHD_add_response_header(r, "Cache-Control", "no-store");
	if (cookie) {
		MHD_add_response_header(r, "Set-Cookie", cookie);
		MHD_add_response_header(r, "Location", "/");
	}
	enum MHD_Result q = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return q;
}

/* {"error": why, "status": N}: an error as JSON */
static enum MHD_Result answer_error(struct MHD_Connection *conn, unsigned status, const char *why, int exit_code)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "error", why);
	cJSON_AddNumberToObject(j, "status", status);
	if (exit_code >= 0)
		cJSON_AddNumberToObject(j, "exit_code", exit_code);
	char *s = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	if (!s)
		return MHD_NO;
	return answer(conn, status, "application/json", s, strlen(s), MHD_RESPMEM_MUST_FREE, NULL);
}

/* ---- checks --------------------------------------------------------------- */

/* the token given equal to ours, in time that does not depend on where they differ */
static int token_ok(const char *t)
{
	if (!t)
		return 0;
	size_t n = strlen(t);
	const char *s = n == sizeof srv.token - 1 ? t : srv.token;
	unsigned char d = n != sizeof srv.token - 1;
	for (size_t i = 0; i < sizeof srv.token - 1; i++)
		d |= (unsigned char)(s[i] ^ srv.token[i]);
	return d == 0;
}

/* the address conn came to, as a Host header names it ("192.0.2.7",
 * "[2001:db8::7]"), or "" */
static void local_name(struct MHD_Connection *conn, char *out, size_t cap)
{
	out[0] = '\0';
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	struct sockaddr_storage ss;
	socklen_t n = sizeof ss;
	char a[INET6_ADDRSTRLEN];
	if (!ci || getsockname(ci->connect_fd, (struct sockaddr *)&ss, &n))
		return;
	if (ss.ss_family == AF_INET &&
	    inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)&ss)->sin_addr, a, sizeof a))
		snprintf(out, cap, "%s", a);
	else if (ss.ss_family == AF_INET6 &&
		 inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)(const void *)&ss)->sin6_addr, a, sizeof a))
		snprintf(out, cap, "[%s]", a);
}

/* Host: the bound address, the address the connection came to (an
 * address, not a name: what --bind 0.0.0.0 is reached by from another
 * machine; DNS rebinding sends a name), localhost, 127.0.0.1 or [::1],
 * with our port */
static int host_ok(struct MHD_Connection *conn, const char *h)
{
	if (!h)
		return 0;
	char want[128], here[INET6_ADDRSTRLEN + 2];
	local_name(conn, here, sizeof here);
	const char *names[] = { srv.host, "localhost", "127.0.0.1", "[::1]", here[0] ? here : NULL, NULL };
	for (int i = 0; names[i]; i++) {
		snprintf(want, sizeof want, "%s:%d", names[i], srv.port);
		if (!strcasecmp(h, want) || (srv.port == 80 && !strcasecmp(h, names[i])))
			return 1;
	}
	return 0;
}

/* a token from the client's bucket: 1, else 0 (too many) */
static int rate_ok(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	unsigned char a[16] = { 0 };
	if (ci && ci->client_addr) {
		const struct sockaddr *sa = ci->client_addr;
		if (sa->sa_family == AF_INET)
			memcpy(a, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, 4);
		else if (sa->sa_family == AF_INET6)
			memcpy(a, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, 16);
	}
	unsigned h = 0;
	for (int i = 0; i < 16; i++)
		h = h * 31 + a[i];
	double now = hp_now();
	pthread_mutex_lock(&srv.rate_mu);
	struct bucket *b = &srv.rate[h % 256];
	if (!b->used || memcmp(b->addr, a, 16)) {   /* (a collision starts the bucket again) */
		memcpy(b->addr, a, 16);
		b->used = 1;
		b->tokens = SERVE_BURST;
		b->at = now;
	}
	b->tokens += (now - b->at) * SERVE_RATE;
	if (b->tokens > SERVE_BURST)
		b->tokens = SERVE_BURST;
	b->at = now;
	int ok = b->tokens >= 1.0;
	if (ok)
		b->tokens -= 1.0;
	pthread_mutex_unlock(&srv.rate_mu);
	return ok;
}

/* the query's parameters, gathered; too long or too many: over set */
struct query { struct serve_param p[SERVE_MAX_PARAMS]; int n; size_t bytes; int over; };

static enum MHD_Result one_param(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	struct query *q = cls;
	q->bytes += strlen(key) + (value ? strlen(value) : 0) + 2;
	if (q->n == SERVE_MAX_PARAMS || q->bytes > SERVE_MAX_QUERY) {
		q->over = 1;
		return MHD_NO;
	}
	q->p[q->n++] = (struct serve_param){ key, value };
	return MHD_YES;
}

/* ---- the API --------------------------------------------------------------- */

/* /api/files: the dumps served and the commands */
static enum MHD_Result api_files(struct MHD_Connection *conn)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "schema", HP_SCHEMA);
	cJSON_AddStringToObject(j, "command", "serve");
	cJSON *f = cJSON_AddArrayToObject(j, "files");
	for (int i = 0; i < srv.nfiles; i++) {
		cJSON *e = cJSON_CreateObject();
		cJSON_AddNumberToObject(e, "file", i);
		cJSON_AddStringToObject(e, "name", srv.files[i]);
		cJSON_AddItemToArray(f, e);
	}
	cJSON *c = cJSON_AddArrayToObject(j, "commands");
	for (const struct cli_command *const *k = cli_commands; *k; k++)
		if (mcp_tool((*k)->name))
			cJSON_AddItemToArray(c, cJSON_CreateString((*k)->name));
	char *s = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	if (!s)
		return MHD_NO;
	return answer(conn, 200, "application/json", s, strlen(s), MHD_RESPMEM_MUST_FREE, NULL);
}

/* a dump changed on disk since the last request: the answers kept are
 * not its (the workers open it again, as the CLI's kept sessions do) */
static void dumps_check(void)
{
	pthread_mutex_lock(&srv.mu);
	for (int i = 0; i < srv.nfiles; i++) {
		struct stat st;
		int ok = stat(srv.files[i], &st) == 0;
		struct stat *was = &srv.st[i];
		if (!ok)
			memset(&st, 0, sizeof st);
		if (st.st_ino != was->st_ino || st.st_dev != was->st_dev || st.st_size != was->st_size ||
		    st.st_mtim.tv_sec != was->st_mtim.tv_sec || st.st_mtim.tv_nsec != was->st_mtim.tv_nsec) {
			*was = st;
			serve_cache_clear();
		}
	}
	pthread_mutex_unlock(&srv.mu);
}

/* the HTTP status of a command's exit code */
static unsigned status_of(int rc)
{
	switch (rc) {
	case EXIT_OK: case 5: return 200;       /* (5: leaks --fail-on-leak found a zombie) */
	case EXIT_USAGE: return 400;
	case EXIT_BAD: return 422;
	case EXIT_TRUNC: case EXIT_NOMEM: return 503;
	default: return 500;
	}
}

static enum MHD_Result api(struct MHD_Connection *conn, const char *cmd, const struct query *q)
{
	char why[1024];
	char **argv;
	int argc;
	int st = serve_api_argv(cmd, q->p, q->n, srv.files, srv.nfiles, srv.session, &argv, &argc, why, sizeof why);
	if (st)
		return answer_error(conn, (unsigned)st, why, st == 400 ? EXIT_USAGE : -1);
	/* the command line's words as the worker and the cache take them */
	size_t len = 0;
	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	char *key = malloc(len ? len : 1);
	for (size_t i = 0, at = 0; key && i < (size_t)argc; i++) {
		size_t k = strlen(argv[i]) + 1;
		memcpy(key + at, argv[i], k);
		at += k;
	}
	mcp_argv_free(argv);
	if (!key)
		return answer_error(conn, 503, "out of memory", -1);
	dumps_check();
	int rc = 0;
	char *out, *err;
	size_t nout;
	if (serve_cache_get(key, len, &out, &nout)) {
		free(key);
		return answer(conn, 200, "application/json", out, nout, MHD_RESPMEM_MUST_FREE, NULL);
	}
	/* a worker that died before (killed, out of memory) is found so and
	 * replaced: the call goes to another, twice at most */
	int r = -1;
	for (int k = 0; k < 3 && r && !srv.stopping; k++)
		r = run_in_worker(key, len, argc, &rc, &out, &nout, &err);
	if (r || status_of(rc) != 200)
		serve_cache_drop(key, len);
	else
		serve_cache_put(key, len, out, nout);
	free(key);
	if (r)
		return answer_error(conn, 503, srv.stopping ? "the server is stopping" : "the worker ended", -1);
	unsigned status = status_of(rc);
	if (status == 200) {
		free(err);
		return answer(conn, 200, "application/json", out, nout, MHD_RESPMEM_MUST_FREE, NULL);
	}
	free(out);
	/* the CLI's message: stderr, without its last newline */
	size_t n = strlen(err);
	while (n && err[n - 1] == '\n')
		err[--n] = '\0';
	enum MHD_Result res = answer_error(conn, status, err, rc);
	free(err);
	return res;
}

/* ---- POST /api/sql ---------------------------------------------------------
 * The SQL console's query as the request's body (a query may be longer
 * than a URL holds).  Its checks, after those of every request (the Host,
 * the rate, the token): an Origin header, when there is one, names this
 * server as the Host header does (CSRF); the type is application/sql, a
 * type no form of another site can send and that a cross-origin fetch()
 * sends only after a preflight no answer grants; a Content-Length of at
 * most SERVE_MAX_BODY; the body in SERVE_BODY_TIME seconds at most,
 * pausing SERVE_BODY_IDLE at most (else the connection is closed). */

static int seen_headers;        /* a GET's state once its headers are answered */
/* SERVE_BODY_IDLE and SERVE_BODY_TIME, or shorter: HPROFAN_SERVE_BODY_SECONDS=IDLE,TIME
 * (for tests/cli/serve.py, which would wait half a minute for the defaults) */
static unsigned body_idle = SERVE_BODY_IDLE, body_time = SERVE_BODY_TIME;

static void body_seconds(void)
{
	const char *e = getenv("HPROFAN_SERVE_BODY_SECONDS");
	unsigned i, t;
	char end;
	if (e && sscanf(e, "%u,%u%c", &i, &t, &end) == 2 && i >= 1 && i <= SERVE_BODY_IDLE && t >= i &&
	    t <= SERVE_BODY_TIME) {
		body_idle = i;
		body_time = t;
	}
}

struct body { char *b; size_t len, want; double t0; };

static int origin_ok(struct MHD_Connection *conn)
{
	const char *o = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Origin");
	const char *h = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Host");
	return !o || (h && !strncmp(o, "http://", 7) && !strcasecmp(o + 7, h));
}

/* application/sql, and no parameter but charset=utf-8 */
static int sql_type_ok(const char *t)
{
	static const char want[] = "application/sql";
	if (!t || strncasecmp(t, want, sizeof want - 1))
		return 0;
	t += sizeof want - 1;
	t += strspn(t, " \t");
	if (!*t)
		return 1;
	if (*t++ != ';')
		return 0;
	t += strspn(t, " \t");
	return !strcasecmp(t, "charset=utf-8");
}

/* the headers of POST /api/sql: refused now, or its body awaited in *state */
static enum MHD_Result sql_begin(struct MHD_Connection *conn, void **state)
{
	if (!origin_ok(conn))
		return answer_error(conn, 403, "the Origin header names another site", -1);
	if (!sql_type_ok(MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Type")))
		return answer_error(conn, 415, "POST /api/sql takes the query as Content-Type: application/sql", -1);
	const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Length");
	if (!cl || MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Transfer-Encoding"))
		return answer_error(conn, 411, "POST /api/sql needs a Content-Length", -1);
	char *end;
	errno = 0;
	unsigned long long n = strtoull(cl, &end, 10);
	if (!*cl || *end || errno || strspn(cl, "0123456789") != strlen(cl))
		return answer_error(conn, 400, "a Content-Length that is not a number", -1);
	if (n > SERVE_MAX_BODY)
		return answer_error(conn, 413, "the query is over 1 MiB", -1);
	struct body *b = calloc(1, sizeof *b);
	if (!b || !(b->b = malloc((size_t)n + 1))) {
		free(b);
		return answer_error(conn, 503, "out of memory", -1);
	}
	b->want = (size_t)n;
	b->t0 = hp_now();
	MHD_set_connection_option(conn, MHD_CONNECTION_OPTION_TIMEOUT, body_idle);
	*state = b;
	return MHD_YES;
}

/* the body of POST /api/sql, whole: the sql command with the URL's
 * parameters and query=BODY */
static enum MHD_Result sql_run(struct MHD_Connection *conn, struct body *b)
{
	MHD_set_connection_option(conn, MHD_CONNECTION_OPTION_TIMEOUT, (unsigned)SERVE_TIMEOUT);
	if (memchr(b->b, '\0', b->len))
		return answer_error(conn, 400, "sql: the query holds a NUL byte", EXIT_USAGE);
	b->b[b->len] = '\0';
	struct query q = { .n = 0 };
	MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, one_param, &q);
	if (q.over || q.n == SERVE_MAX_PARAMS)
		return answer_error(conn, 414, "the URL is too long", -1);
	q.p[q.n++] = (struct serve_param){ "query", b->b };
	return api(conn, "sql", &q);
}

/* a request's end: its body freed */
static void request_done(void *cls, struct MHD_Connection *conn, void **state, enum MHD_RequestTerminationCode why)
{
	(void)cls;
	(void)conn;
	(void)why;
	if (*state && *state != &seen_headers) {
		struct body *b = *state;
		free(b->b);
		free(b);
	}
	*state = NULL;
}

/* ---- requests ----------------------------------------------------------- */

static const struct serve_asset *asset(const char *name)
{
	for (const struct serve_asset *a = serve_assets; a->name; a++)
		if (!strcmp(a->name, name))
			return a;
	return NULL;
}

static enum MHD_Result request(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
			       const char *version, const char *upload, size_t *upload_size, void **state)
{
	(void)cls;
	(void)version;
	if (*state && *state != &seen_headers) {   /* POST /api/sql's body */
		struct body *b = *state;
		if (!*upload_size)
			return sql_run(conn, b);
		if (*upload_size > b->want - b->len || hp_now() - b->t0 > body_time)
			return MHD_NO;   /* (too slow: the connection closed) */
		memcpy(b->b + b->len, upload, *upload_size);
		b->len += *upload_size;
		*upload_size = 0;
		return MHD_YES;
	}
	if (!*state) {                /* the headers: answered now, nothing read after them (but POST /api/sql's body) */
		*state = &seen_headers;
		int post = !strcmp(method, "POST") && !strcmp(url, "/api/sql");
		if (strcmp(method, "GET") && strcmp(method, "HEAD") && !post)
			return answer_error(conn, 405, "GET only (and POST /api/sql)", -1);
		const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Length");
		if (!post && ((cl && strcmp(cl, "0")) || MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Transfer-Encoding")))
			return answer_error(conn, 413, "no request body is read", -1);
		if (!host_ok(conn, MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Host")))
			return answer_error(conn, 421, "the Host header does not name this server", -1);
		if (!rate_ok(conn))
			return answer_error(conn, 429, "too many requests: slow down", -1);
		struct query q = { .n = 0 };
		MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, one_param, &q);
		if (q.over || strlen(url) > 1024)
			return answer_error(conn, 414, "the URL is too long", -1);
		const char *given = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "token");
		int by_query = token_ok(given);
		if (!by_query && !token_ok(MHD_lookup_connection_value(conn, MHD_COOKIE_KIND, srv.cookie)))
			return answer_error(conn, 403, given ? "wrong token" : "no token: open the URL hprofan serve printed", -1);
		if (post)
			return sql_begin(conn, state);
		if (!strcmp(url, "/") && by_query) {
			/* the token into a cookie, out of the address bar */
			char c[128];
			snprintf(c, sizeof c, "%s=%s; Path=/; HttpOnly; SameSite=Strict", srv.cookie, srv.token);
			return answer(conn, 303, "text/plain", "", 0, MHD_RESPMEM_PERSISTENT, c);
		}
		if (!strcmp(url, "/")) {
			const struct serve_asset *a = asset("index.html");
			return answer(conn, 200, a->type, a->data, a->len, MHD_RESPMEM_PERSISTENT, NULL);
		}
		if (!strncmp(url, "/static/", 8)) {
			const struct serve_asset *a = asset(url + 8);
			if (!strcmp(url + 8, "echarts.min.js"))
				return answer(conn, 200, "text/javascript; charset=utf-8", hp_report_lib, hp_report_lib_len,
					      MHD_RESPMEM_PERSISTENT, NULL);
			if (a && strcmp(a->name, "index.html"))
				return answer(conn, 200, a->type, a->data, a->len, MHD_RESPMEM_PERSISTENT, NULL);
		}
		if (!strcmp(url, "/api/files"))
			return api_files(conn);
		if (!strncmp(url, "/api/", 5) && url[5])
			return api(conn, url + 5, &q);
		return answer_error(conn, 404, "not found", -1);
	}
	*upload_size = 0;
	return MHD_YES;
}

/* ---- starting and stopping ------------------------------------------------ */

/* the words of the options the sessions are opened under, as serve was
 * given them ("--max-memory=2G"), into srv.session */
static int session_words(const struct cli_command *c, int argc, char **argv)
{
	srv.session = calloc((size_t)argc + 1, sizeof *srv.session);
	if (!srv.session)
		return -1;
	int n = 0;
	for (int i = 2; i < argc && strcmp(argv[i], "--"); i++) {
		const char *val = NULL;
		const struct cli_option *o = cli_option_find(c, argv[i], &val);
		if (!o)
			continue;
		int takes = o->kind == OPT_VALUE || o->kind == OPT_CHOICE;
		if (takes && !val && i + 1 < argc)
			val = argv[++i];
		if (!mcp_option_of_session(o))
			continue;
		const char *name = o->name[1] != '-' && o->alias ? o->alias : o->name;
		size_t k = strlen(name) + (val ? strlen(val) + 1 : 0) + 1;
		if (!(srv.session[n] = malloc(k)))
			return -1;
		snprintf(srv.session[n++], k, val ? "%s=%s" : "%s", name, val ? val : "");
	}
	return 0;
}

static void session_words_free(void)
{
	for (int i = 0; srv.session && srv.session[i]; i++)
		free(srv.session[i]);
	free(srv.session);
	srv.session = NULL;
}

/* runs `hprofan CMD SESSION... -- FILE ARG` here, its stdout dropped: the
 * session of FILE opened and kept, and what CMD needs of it made */
static int warm(const char *cmd, const char *file, const char *arg, int quiet, int silent)
{
	char *argv[64];
	int n = 0;
	argv[n++] = (char *)"hprofan";
	argv[n++] = (char *)cmd;
	argv[n++] = (char *)"--json";
	if (quiet)
		argv[n++] = (char *)"--quiet";
	for (int i = 0; srv.session[i] && n < 56; i++)
		argv[n++] = srv.session[i];
	argv[n++] = (char *)"--";
	argv[n++] = (char *)file;
	if (arg)
		argv[n++] = (char *)arg;
	argv[n] = NULL;
	fflush(stdout);
	fflush(stderr);
	int saved = dup(1), saved_err = dup(2), null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	int rc = EXIT_BAD;
	if (saved >= 0 && saved_err >= 0 && null >= 0 && dup2(null, 1) == 1 && (!silent || dup2(null, 2) == 2)) {
		rc = cli_main(n, argv);
		fflush(stdout);
		fflush(stderr);
		clearerr(stdout);
		clearerr(stderr);
	}
	if (saved >= 0) {
		dup2(saved, 1);
		close(saved);
	}
	if (saved_err >= 0) {
		dup2(saved_err, 2);
		close(saved_err);
	}
	if (null >= 0)
		close(null);
	return rc;
}

static int listen_on(const char *bind, struct sockaddr_storage *ss, socklen_t *len, int port)
{
	memset(ss, 0, sizeof *ss);
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
	if (inet_pton(AF_INET, bind, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons((uint16_t)port);
		*len = sizeof *a4;
		snprintf(srv.host, sizeof srv.host, "%s", bind);
		return 0;
	}
	if (inet_pton(AF_INET6, bind, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)port);
		*len = sizeof *a6;
		char b[INET6_ADDRSTRLEN];
		inet_ntop(AF_INET6, &a6->sin6_addr, b, sizeof b);
		snprintf(srv.host, sizeof srv.host, "[%s]", b);
		return 0;
	}
	return -1;
}

static int loopback(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)(const void *)ss)->sin_addr.s_addr) >> 24) == 127;
	return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)(const void *)ss)->sin6_addr);
}

/* xdg-open URL, not waited for (it hands the URL to the browser and ends;
 * the server reaps it when it stops): its pid, or 0 */
static pid_t browser_open(const char *url)
{
	char *argv[] = { (char *)"xdg-open", (char *)url, NULL };
	pid_t pid;
	if (posix_spawnp(&pid, "xdg-open", NULL, NULL, argv, environ)) {
		cli_warn("serve: --open: xdg-open could not be started: open the URL yourself");
		return 0;
	}
	return pid;
}

static void stop_all(void)
{
	pthread_mutex_lock(&srv.mu);
	srv.stopping = 1;
	for (int i = 0; i < srv.nw; i++)
		if (srv.w[i].pid)
			kill(srv.w[i].pid, SIGTERM);   /* a call running fails, an idle worker ends */
	pthread_cond_broadcast(&srv.idle);
	pthread_mutex_unlock(&srv.mu);
}

static int run(struct cli_ctx *x)
{
	const struct serve_opts *o = x->own;
	memset(&srv, 0, sizeof srv);
	body_seconds();
	srv.files = x->files;
	srv.nfiles = x->nfiles;
	srv.nw = o->workers;
	pthread_mutex_init(&srv.mu, NULL);
	pthread_cond_init(&srv.idle, NULL);
	pthread_mutex_init(&srv.rate_mu, NULL);
	struct sockaddr_storage ss;
	socklen_t sslen;
	const char *bind = o->bind ? o->bind : "127.0.0.1";
	if (listen_on(bind, &ss, &sslen, o->port))
		return cli_usage_error(x->cmd->name, "--bind: '%s' is not an IPv4 or IPv6 address", bind);
	if (!loopback(&ss))
		cli_warn("serve: listening on %s, not loopback: anyone who can reach it and has the URL reads the dumps",
			 bind);
	unsigned char raw[TOKEN_BYTES];
	if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw) {
		cli_error("serve: getrandom: %s", strerror(errno));
		return EXIT_BAD;
	}
	for (int i = 0; i < TOKEN_BYTES; i++)
		snprintf(srv.token + 2 * i, 3, "%02x", raw[i]);
	int quiet = x->c->quiet;
	srv.st = calloc((size_t)srv.nfiles, sizeof *srv.st);
	if (!srv.st || session_words(x->cmd, cli_argc, cli_argv)) {
		free(srv.st);
		session_words_free();
		cli_error("out of memory");
		return EXIT_NOMEM;
	}
	for (int i = 0; i < srv.nfiles; i++)
		if (stat(srv.files[i], &srv.st[i]))
			memset(&srv.st[i], 0, sizeof srv.st[i]);
	serve_cache_init(SERVE_CACHE_BYTES);
	/* the sessions, opened once: model, retained sizes (dominators) and
	 * paths (the path of java.lang.Object's class object) */
	cli_sessions_keep(1);
	int rc = EXIT_OK;
	for (int i = 0; i < srv.nfiles && rc == EXIT_OK; i++) {
		rc = warm("dominators", srv.files[i], NULL, quiet, 0);
		if (rc == EXIT_OK)   /* (a dump without it: the first path asked for makes them) */
			warm("path", srv.files[i], "java.lang.Object", 1, 1);
	}
	if (rc == EXIT_OK)
		cli_sessions_prepare();
	if (rc != EXIT_OK) {
		cli_sessions_free();
		cli_sessions_keep(0);
		session_words_free();
		free(srv.st);
		return rc;
	}
	/* the signals waited for here, blocked in every thread */
	sigset_t sigs;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (zygote_start()) {
		cli_error("serve: cannot start the workers: %s", strerror(errno));
		rc = EXIT_BAD;
	}
	for (int i = 0; i < srv.nw && rc == EXIT_OK; i++)
		if (worker_start(&srv.w[i]))
			cli_warn("serve: a worker could not be started: %s", strerror(errno));
	unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG |
			 (ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0);
	struct MHD_Daemon *d = rc != EXIT_OK ? NULL : MHD_start_daemon(flags, (uint16_t)o->port, NULL, NULL, request, NULL,
						MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
						MHD_OPTION_CONNECTION_LIMIT, (unsigned)SERVE_MAX_CONN,
						MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)SERVE_MAX_CONN_PER_IP,
						MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)SERVE_TIMEOUT,
						MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64 * 1024),
						MHD_OPTION_NOTIFY_COMPLETED, request_done, NULL,
						MHD_OPTION_END);
	if (!d && rc == EXIT_OK) {
		cli_error("serve: cannot listen on %s port %d: %s", bind, o->port, strerror(errno));
		rc = EXIT_BAD;
	} else if (d) {
		const union MHD_DaemonInfo *di = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
		srv.port = di ? di->port : o->port;
		snprintf(srv.cookie, sizeof srv.cookie, "hprofan-%d", srv.port);
		char url[256];
		snprintf(url, sizeof url, "http://%s:%d/?token=%s", srv.host, srv.port, srv.token);
		printf("%s\n", url);
		fflush(stdout);
		pid_t opener = o->open ? browser_open(url) : 0;
		int sig = 0;
		while (sigwait(&sigs, &sig) == EINTR)
			;
		if (!quiet)
			fprintf(stderr, "hprofan: serve: ended by signal %d\n", sig);
		stop_all();
		MHD_stop_daemon(d);
		if (opener)
			waitpid(opener, NULL, WNOHANG);
	}
	stop_all();
	for (int i = 0; i < srv.nw; i++)
		worker_end(&srv.w[i]);
	zygote_end();
	pthread_sigmask(SIG_UNBLOCK, &sigs, NULL);
	cli_sessions_free();
	cli_sessions_keep(0);
	session_words_free();
	serve_cache_free();
	free(srv.st);
	pthread_mutex_destroy(&srv.mu);
	pthread_cond_destroy(&srv.idle);
	pthread_mutex_destroy(&srv.rate_mu);
	return rc;
}

CLI_COMMAND(serve, "hprofan serve FILE...", "the dumps in a browser: a local web server answering the analysis commands",
	    CLI_FILES(1, 16), .run = run, CLI_OWN(struct serve_opts, defaults),
	    CLI_TABLES(own, cli_opts_model, cli_opts_policy, cli_opts_load, cli_opts_quiet));
