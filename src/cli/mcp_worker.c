/* mcp_worker.c — a worker of hprofan mcp (mcp.h): a process forked from
 * the server that runs the command lines it is sent, one at a time,
 * through cli_main() with the sessions kept open between them
 * (cli_sessions_keep()), so that the second call on a dump asks the
 * session the first one opened.  Its fd 1 is a memfd and never the
 * server's stdout (which carries the protocol); fd 2 is another during a
 * call; both go back to the server with the exit code.  Standard input is
 * /dev/null.  With a progress wanted, the sessions' progress goes up the
 * pipe as it comes, at most 10 times a second per phase, the count
 * carried on over the phases so that it only grows. */
#include "cli/mcp.h"
#include "cli/output.h"
#include "cli/load.h"
#include "cli/progress.h"
#include "base/clock.h"

#include <errno.h>
#include <signal.h>
#include <sys/prctl.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int mcp_read_all(int fd, void *p, size_t n)
{
	char *c = p;
	while (n) {
		ssize_t k = read(fd, c, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		c += k;
		n -= (size_t)k;
	}
	return 0;
}

/* ---- progress ---------------------------------------------------------- */

static int to_server = -1;
static struct {
	int wanted, phase;
	uint64_t base, done, total;   /* the count before this phase; this phase's last */
	double at;                    /* when the last frame went */
} prog;

static void progress_hook(int phase, const char *what, const char *name, uint64_t done, uint64_t total)
{
	if (!prog.wanted)
		return;
	double t = hp_now();
	int fresh = phase != prog.phase;
	if (fresh && prog.phase >= 0)
		prog.base += prog.total && prog.done <= prog.total ? prog.total : prog.done;
	prog.phase = phase;
	prog.done = done;
	prog.total = total;
	if (!fresh && t - prog.at < 0.1)
		return;
	prog.at = t;
	char msg[600];
	snprintf(msg, sizeof msg, "%s %s", what, name ? name : "the dump");
	struct mcp_frame f = { .type = MCP_PROGRESS, .code = phase, .a = prog.base + done,
			       .b = total ? prog.base + total : 0, .len1 = (uint32_t)strlen(msg) };
	if (cli_write_all(to_server, &f, sizeof f) == 0)
		cli_write_all(to_server, msg, f.len1);
}

/* ---- calls ------------------------------------------------------------- */

static uint64_t size_of(int fd)
{
	struct stat st;
	return fstat(fd, &st) == 0 ? (uint64_t)st.st_size : 0;
}

/* n bytes of fd from its start, up the pipe */
static int send_fd(int fd, uint64_t n)
{
	char buf[65536];
	for (uint64_t at = 0; at < n;) {
		size_t want = n - at < sizeof buf ? (size_t)(n - at) : sizeof buf;
		ssize_t k = pread(fd, buf, want, (off_t)at);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		if (cli_write_all(to_server, buf, (size_t)k))
			return -1;
		at += (uint64_t)k;
	}
	return 0;
}

static int fresh_fd(int fd)
{
	return ftruncate(fd, 0) == 0 && lseek(fd, 0, SEEK_SET) == 0 ? 0 : -1;
}

/* runs the command line of a MCP_RUN frame (its words in buf); 0, or -1
 * when the pipe to the server is gone */
static int run_one(const struct mcp_frame *f, char *buf, int outfd, int errfd, int saved_err)
{
	char **argv = calloc((size_t)f->n + 1, sizeof *argv);
	if (!argv)
		return -1;
	char *p = buf, *end = buf + f->len1;
	int argc = 0;
	while (p < end && argc < (int)f->n) {
		argv[argc++] = p;
		p += strlen(p) + 1;
	}
	fflush(stdout);
	fflush(stderr);
	int rc = 1;
	if (fresh_fd(outfd) == 0 && fresh_fd(errfd) == 0 && dup2(errfd, 2) == 2) {
		prog.wanted = f->code;
		prog.phase = -1;
		prog.base = prog.done = prog.total = 0;
		prog.at = 0;
		rc = cli_main(argc, argv);
		prog.wanted = 0;
		fflush(stdout);
		fflush(stderr);
		clearerr(stdout);
		clearerr(stderr);
		dup2(saved_err, 2);
	}
	free(argv);
	uint64_t no = size_of(outfd), ne = size_of(errfd);
	static const char big[] = "hprofan: the answer is over 1 GiB: name an output for it\n";
	int too_big = no > MCP_MAX_OUTPUT;
	if (ne > 65536)
		ne = 65536;
	struct mcp_frame d = { .type = MCP_DONE, .code = too_big ? 1 : rc, .len1 = too_big ? 0 : (uint32_t)no,
			       .len2 = too_big ? (uint32_t)strlen(big) : (uint32_t)ne };
	if (cli_write_all(to_server, &d, sizeof d))
		return -1;
	if (too_big)
		return cli_write_all(to_server, big, d.len2);
	if (send_fd(outfd, d.len1) || send_fd(errfd, d.len2))
		return -1;
	return 0;
}

void mcp_worker_child(pid_t parent)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_IGN);   /* (a terminal's ^C is the server's to take) */
}

int mcp_worker_run(int in, int out)
{
	to_server = out;
	int outfd = memfd_create("hprofan-stdout", MFD_CLOEXEC);
	int errfd = memfd_create("hprofan-stderr", MFD_CLOEXEC);
	int saved_err = dup(2);
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (outfd < 0 || errfd < 0 || saved_err < 0 || null < 0 || dup2(outfd, 1) != 1 || dup2(null, 0) != 0) {
		fprintf(stderr, "hprofan: mcp: worker: %s\n", strerror(errno));
		return EXIT_BAD;
	}
	close(null);
	cli_sessions_keep(1);
	cli_progress_hook = progress_hook;
	for (;;) {
		struct mcp_frame f;
		if (mcp_read_all(in, &f, sizeof f) || f.type != MCP_RUN || f.len1 > MCP_MAX_FRAME || !f.n)
			break;
		char *buf = malloc((size_t)f.len1 + 1);
		if (!buf || mcp_read_all(in, buf, f.len1)) {
			free(buf);
			break;
		}
		buf[f.len1] = '\0';
		int r = run_one(&f, buf, outfd, errfd, saved_err);
		free(buf);
		if (r)
			break;
	}
	cli_progress_hook = NULL;
	cli_sessions_free();
	close(outfd);
	close(errfd);
	close(saved_err);
	return EXIT_OK;
}
