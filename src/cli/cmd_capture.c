/* cmd_capture.c — hprofan capture: a heap dump taken from a running JVM
 * (jcmd PID GC.heap_dump) or Android app (adb shell am dumpheap, waited
 * for, pulled and removed from the device), written to -o FILE atomically
 * (a temporary name beside it, renamed when the dump is whole), then, when
 * `-- COMMAND ARGS...` follows, analysed by `hprofan COMMAND FILE ARGS...`.
 *
 * It opens no session: the dump is written by the target (the JVM writes
 * the file itself, am dumpheap on the device), and the analysis runs as a
 * new hprofan exec'd in this process's place (see run_after()).
 *
 * jcmd: without --live, -all (every object, no GC first: what jmap -dump
 * writes without live, and what a leak hunt wants -- unreachable objects
 * are counted by --roots=unreachable, not lost); --live leaves -all out,
 * and the JVM runs a full GC first.  --gz=N is jcmd's -gz=N.  The JVM
 * writes the file, so the temporary name is an absolute path in -o's
 * directory (which the JVM's user must be able to write), free until jcmd
 * makes it (jcmd refuses to overwrite).  jcmd's exit status is 0 on some
 * failures: its output and the file's first bytes decide.
 *
 * Before jcmd is run the PID is checked: a process of the user's (or any,
 * for root) that catches SIGQUIT or has an attach socket.  jcmd asks a JVM
 * to start its attach listener with SIGQUIT, whose default action kills
 * any other process: a shell's PID given by mistake must not die of it.
 */
#include "cli/command.h"
#include "cli/msg.h"
#include "cli/format.h"
#include "cli/output.h"
#include "base/alloc.h"
#include "base/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <pwd.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

struct capture_opts {
	int gz;                       /* 0 plain, else jcmd's -gz level */
	int live;
	const char *adb;              /* --adb PACKAGE */
	const char *serial;
};

static int set_gz(const struct cli_option *o, const char *as, const char *val, void *dst)
{
	int *g = dst;
	if (!val) {
		*g = 1;
		return EXIT_OK;
	}
	if (strlen(val) != 1 || val[0] < '1' || val[0] > '9')
		return cli_usage_error(NULL, "--gz=%s: expected a level from 1 to 9", val);
	*g = val[0] - '0';
	return EXIT_OK;
}

#define OWN(field) OPT_OWN(struct capture_opts, field)
static const struct cli_option own[] = {
	{ .name = "-o", .alias = "--output", .kind = OPT_VALUE, .arg = "FILE",
	  .help = "write the dump to FILE (atomically, replacing one there); default: PID-TIME.hprof\n"
		  "or PACKAGE-TIME.hprof in the current directory",
	  .needs = "needs a file name", .flags = OPTF_FILE, OPT_COMMON(output) },
	{ .name = "--gz", .kind = OPT_OPTVALUE, .arg = "N", .set = set_gz, .complete = "1 2 3 4 5 6 7 8 9",
	  .help = "jcmd writes the dump gzip-compressed at level N (default 1)", OWN(gz) },
	OPT_BOOL("--live", "only live objects: a full GC first (without it jcmd dumps every object,\n"
		 "unreachable ones too; adb: am dumpheap -g)", OWN(live)),
	OPT_STRING("--adb", "PACKAGE", "an Android app's heap, through adb shell am dumpheap (the app debuggable)",
		   "needs a package (process) name", OWN(adb)),
	OPT_STRING("--serial", "S", "the device adb talks to (adb -s S)", "needs a device serial", OWN(serial)),
	OPT_END
};
#undef OWN

static const struct cli_rule rules[] = {
	RULE_NEEDS("--serial", "--adb", "it names the Android device of the app"),
	RULE_EXCLUDES("--gz", "--adb", "am dumpheap writes no gzip"),
	RULE_END
};

/* ---- progress and signals ------------------------------------------------ */

static int quiet;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	if (quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	cli_vmessage("capture: ", fmt, ap);
	va_end(ap);
}

/* SIGINT, SIGTERM, SIGHUP while a tool runs: stop, clean up, exit 130 */
static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = sig;
}

static void catch_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* ---- the tools: found, run, their output read ------------------------------ */

/* name found in PATH, else in DIR/SUB of the first environment variable of
 * envs (NULL-terminated) that is set: into out; 0, else -1 */
static int find_tool(const char *name, const char *const *envs, const char *sub, char *out, size_t n)
{
	const char *path = getenv("PATH");
	for (const char *p = path ? path : ""; *p || p == path;) {
		size_t l = strcspn(p, ":");
		int k = l ? snprintf(out, n, "%.*s/%s", (int)l, p, name) : snprintf(out, n, "./%s", name);
		if (k > 0 && (size_t)k < n && access(out, X_OK) == 0) {
			struct stat st;
			if (stat(out, &st) == 0 && S_ISREG(st.st_mode))
				return 0;
		}
		p += l;
		if (!*p)
			break;
		p++;
	}
	for (; *envs; envs++) {
		const char *d = getenv(*envs);
		if (!d || !*d)
			continue;
		int k = snprintf(out, n, "%s/%s/%s", d, sub, name);
		if (k > 0 && (size_t)k < n && access(out, X_OK) == 0)
			return 0;
	}
	return -1;
}

/* what a tool printed (stdout and stderr together; the first 1 MiB) and
 * how it ended */
struct ran {
	char *out;
	size_t len;
	int status;                   /* waitpid's */
};

static void ran_release(struct ran *r)
{
	hp_free(r->out);
	r->out = NULL;
	r->len = 0;
}

/* runs argv[0] (a path) with argv, stdin /dev/null, its output read into
 * r; tick(ud) about every 250 ms while it runs (may be NULL).  0, else -1
 * said (it could not start, or a signal came: then it is killed) */
static int run_tool(char *const argv[], struct ran *r, void (*tick)(void *), void *ud)
{
	memset(r, 0, sizeof *r);
	int p[2];
	if (pipe2(p, O_CLOEXEC) != 0) {
		cli_error("capture: cannot run %s: %s", argv[0], strerror(errno));
		return -1;
	}
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	posix_spawn_file_actions_adddup2(&fa, p[1], 2);
	pid_t pid;
	int e = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	if (e) {
		close(p[0]);
		cli_error("capture: cannot run %s: %s", argv[0], strerror(e));
		return -1;
	}
	size_t cap = 0;
	char buf[4096];
	double last = hp_now();
	for (;;) {
		if (interrupted)
			break;
		struct pollfd pf = { .fd = p[0], .events = POLLIN };
		int k = poll(&pf, 1, 250);
		if (k < 0 && errno != EINTR)
			break;
		if (k > 0) {
			ssize_t m = read(p[0], buf, sizeof buf);
			if (m < 0 && errno == EINTR)
				continue;
			if (m <= 0)
				break;
			if (r->len + (size_t)m + 1 > cap && r->len < (1u << 20)) {
				size_t nc = cap ? cap * 2 : 8192;
				while (nc < r->len + (size_t)m + 1)
					nc *= 2;
				char *t = hp_realloc(r->out, nc);
				if (t) {
					r->out = t;
					cap = nc;
				}
			}
			if (r->len + (size_t)m + 1 <= cap) {
				memcpy(r->out + r->len, buf, (size_t)m);
				r->len += (size_t)m;
				r->out[r->len] = '\0';
			}
		}
		if (tick && hp_now() - last >= 0.25) {
			tick(ud);
			last = hp_now();
		}
	}
	close(p[0]);
	if (interrupted)
		kill(pid, SIGTERM);
	while (waitpid(pid, &r->status, 0) < 0 && errno == EINTR)
		;
	if (!r->out && (r->out = hp_malloc(1)))
		r->out[0] = '\0';
	if (interrupted || !r->out) {
		if (!r->out)
			cli_error("out of memory");
		ran_release(r);
		return -1;
	}
	return 0;
}

static int ran_ok(const struct ran *r)
{
	return WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0;
}

/* the first line of the output holding word, else its first non-empty
 * line, else "exit N" (into buf, without its newline) */
static const char *ran_line(const struct ran *r, const char *word, char *buf, size_t n)
{
	const char *s = r->out && word ? strstr(r->out, word) : NULL;
	if (s) {
		while (s > r->out && s[-1] != '\n')
			s--;
	} else {
		for (s = r->out ? r->out : ""; *s == '\n' || *s == '\r' || *s == ' '; s++)
			;
	}
	if (*s) {
		snprintf(buf, n, "%.*s", (int)strcspn(s, "\r\n"), s);
		return buf;
	}
	if (WIFEXITED(r->status))
		snprintf(buf, n, "exit %d, nothing said", WEXITSTATUS(r->status));
	else
		snprintf(buf, n, "killed by signal %d", WTERMSIG(r->status));
	return buf;
}

static int has(const struct ran *r, const char *word)
{
	return r->out && strstr(r->out, word);
}

/* ---- the file written ------------------------------------------------------- */

/* the default name in the current directory: NAME-YYYYmmdd-HHMMSS.hprof[.gz] */
static void default_name(char *buf, size_t n, const char *who, int gz)
{
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
	int k = snprintf(buf, n, "%s-%s.hprof%s", who, stamp, gz ? ".gz" : "");
	for (int i = 0; i < k && (size_t)i < n; i++)
		if (buf[i] == '/' || buf[i] == ':')
			buf[i] = '_';
}

/* Opens the output (-o FILE or the default name, which is never replaced)
 * as o, its temporary file's absolute path in tmp.  leave_free: the temporary
 * name left free, for a tool that makes the file itself and refuses one
 * there (the JVM: O_EXCL, so it follows no link planted meanwhile); else
 * the empty file made stays, ours, for a tool that writes over it (adb
 * pull).  An exit code, said. */
static int out_open(struct cli_ctx *x, const char *who, int gz, int leave_free, struct cli_ofile *o, char *name,
		    size_t nn, char *tmp, size_t nt)
{
	const char *path = x->c->output;
	if (!path) {
		default_name(name, nn, who, gz);
		struct stat st;
		if (lstat(name, &st) == 0) {
			cli_error("capture: %s exists; name the file with -o", name);
			return EXIT_BAD;
		}
		path = name;
	} else {
		snprintf(name, nn, "%s", path);
	}
	int rc = cli_ofile_open(o, name);
	if (rc)
		return rc;
	if (o->direct) {
		cli_ofile_abort(o);
		cli_error("capture: -o %s: the dump is written to a file (the tool writes it itself), not to "
			  "standard output, a FIFO or a device", name);
		return EXIT_USAGE;
	}
	char link[64], dir[PATH_MAX];
	snprintf(link, sizeof link, "/proc/self/fd/%d", o->dir);
	ssize_t k = readlink(link, dir, sizeof dir - 1);
	if (k <= 0 || dir[0] != '/') {
		cli_error("capture: cannot name the directory of %s: %s", name, k < 0 ? strerror(errno) : "not absolute");
		cli_ofile_abort(o);
		return EXIT_BAD;
	}
	dir[k] = '\0';
	k = snprintf(tmp, nt, "%s%s%s", dir, strcmp(dir, "/") ? "/" : "", o->tmp);
	if (k < 0 || (size_t)k >= nt) {
		cli_error("capture: the path of %s is too long", name);
		cli_ofile_abort(o);
		return EXIT_BAD;
	}
	close(o->fd);
	o->fd = -1;
	if (leave_free)
		unlinkat(o->dir, o->tmp, 0);
	return EXIT_OK;
}

/* the temporary file the tool wrote: opened as o->fd, its first bytes a
 * heap dump (or gzip's) and, from Android (whose dumps always end so), its
 * last record a HEAP DUMP END; made the owner's only, renamed into place */
static int out_commit(struct cli_ofile *o, int gz, int android, const char *what_missing)
{
	int fd = openat(o->dir, o->tmp, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		cli_error("capture: %s", what_missing);
		cli_ofile_abort(o);
		return EXIT_BAD;
	}
	o->fd = fd;
	unsigned char head[18];
	ssize_t k = pread(fd, head, sizeof head, 0);
	int dump = k >= 17 && !memcmp(head, "JAVA PROFILE 1.0.", 17);
	int gzip = k >= 2 && head[0] == 0x1f && head[1] == 0x8b;
	if (!(gz ? gzip : dump)) {
		cli_error("capture: what was written is no %sheap dump (%s)", gz ? "gzip-compressed " : "",
			  k <= 0 ? "an empty file" : "it starts with other bytes");
		cli_ofile_abort(o);
		return EXIT_BAD;
	}
	struct stat st;
	unsigned char end[9];
	if (android && (fstat(fd, &st) != 0 || st.st_size < 9 ||
			pread(fd, end, sizeof end, st.st_size - 9) != 9 || end[0] != 0x2c || memcmp(end + 5, "\0\0\0\0", 4))) {
		cli_error("capture: the dump pulled is incomplete: it does not end with a HEAP DUMP END record");
		cli_ofile_abort(o);
		return EXIT_BAD;
	}
	/* a heap dump holds the program's data (passwords, keys, what its
	 * users sent): readable by its owner only, as the JVM makes it */
	o->mode = 0600;
	return cli_ofile_commit(o);
}

static uint64_t tmp_size(const struct cli_ofile *o)
{
	struct stat st;
	return fstatat(o->dir, o->tmp, &st, AT_SYMLINK_NOFOLLOW) == 0 ? (uint64_t)st.st_size : 0;
}

/* ---- after the dump: hprofan COMMAND FILE ARGS... ----------------------------- */

/* COMMAND is one hprofan runs on a dump (or, starting with '-', the
 * options of the default command); checked before anything is dumped */
static int check_after(const struct cli_ctx *x)
{
	if (!x->nrest)
		return EXIT_OK;
	const char *c = x->rest[0];
	if (c[0] == '-')
		return EXIT_OK;
	const struct cli_command *cmd = cli_command_find(c);
	if (!cmd)
		return cli_usage_error(NULL, "capture: -- %s: no such command (after -- comes a command of "
					     "hprofan's and its arguments, the dump put after the command)", c);
	if (cmd == x->cmd || cmd->min_files < 1)
		return cli_usage_error(NULL, "capture: -- %s: not a command that reads a dump", c);
	return EXIT_OK;
}

/* Runs hprofan COMMAND FILE ARGS... in this process's place: exec'd, so
 * the analysis is a fresh hprofan (its own argv, tables, memory budget),
 * its output, exit status and signals are the user's with nothing relayed
 * or translated, and nothing of the capture stays in memory.  An ARG that
 * is exactly {} is replaced by FILE (find -exec's habit: diff OLD {}),
 * else FILE goes right after COMMAND. */
static int run_after(const struct cli_ctx *x, const char *file)
{
	char **av = hp_malloc(((size_t)x->nrest + 3) * sizeof *av);
	if (!av) {
		cli_error("out of memory");
		return EXIT_NOMEM;
	}
	int n = 0, placed = 0, named = x->rest[0][0] != '-';
	av[n++] = cli_argv[0];
	for (int i = 0; i < x->nrest; i++)
		if (!strcmp(x->rest[i], "{}"))
			placed = 1;
	for (int i = 0; i < x->nrest; i++) {
		if (!placed && i == named)
			av[n++] = (char *)file;
		av[n++] = !strcmp(x->rest[i], "{}") ? (char *)file : (char *)x->rest[i];
	}
	if (!placed && named == x->nrest)
		av[n++] = (char *)file;
	av[n] = NULL;
	say("running hprofan %s%s", named ? x->rest[0] : "", named ? "" : "(top)");
	fflush(stdout);
	fflush(stderr);
	execv("/proc/self/exe", av);
	if (strchr(cli_argv[0], '/'))
		execv(cli_argv[0], av);
	else
		execvp(cli_argv[0], av);
	cli_error("capture: cannot run hprofan %s on %s: %s", named ? x->rest[0] : "", file, strerror(errno));
	hp_free(av);
	return EXIT_BAD;
}

/* the dump is in place: its path on stdout (no COMMAND), or COMMAND runs */
static int done(const struct cli_ctx *x, const char *name, double t0)
{
	struct stat st;
	char sz[32];
	say("%s written: %s in %.1f s", name,
	    cli_fmt_bytes(stat(name, &st) == 0 ? (uint64_t)st.st_size : 0, sz, sizeof sz), hp_now() - t0);
	if (x->nrest)
		return run_after(x, name);
	printf("%s\n", name);
	if (fflush(stdout) == EOF) {
		cli_error("cannot write to standard output: %s", strerror(errno));
		return EXIT_BAD;
	}
	return EXIT_OK;
}

/* ---- jcmd ------------------------------------------------------------------------- */

/* /proc/PID/status: its name, effective uid and whether it catches SIGQUIT */
struct proc_info { char name[64]; long uid; int sigquit; };

static int proc_read(long pid, struct proc_info *p)
{
	char path[64], line[512];
	snprintf(path, sizeof path, "/proc/%ld/status", pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	memset(p, 0, sizeof *p);
	p->uid = -1;
	while (fgets(line, sizeof line, f)) {
		if (!strncmp(line, "Name:\t", 6))
			snprintf(p->name, sizeof p->name, "%.*s", (int)strcspn(line + 6, "\n"), line + 6);
		else if (!strncmp(line, "Uid:", 4)) {
			long real, eff;
			if (sscanf(line + 4, "%ld %ld", &real, &eff) == 2)
				p->uid = eff;
		} else if (!strncmp(line, "SigCgt:", 7)) {
			unsigned long long m = strtoull(line + 7, NULL, 16);
			p->sigquit = (int)(m >> (SIGQUIT - 1) & 1);
		}
	}
	fclose(f);
	return 0;
}

struct jvm_tick { const struct cli_ofile *o; uint64_t shown; double last; };

/* while jcmd runs: the bytes written so far, a line every 2 s */
static void jvm_tick(void *ud)
{
	struct jvm_tick *t = ud;
	uint64_t n = tmp_size(t->o);
	if (n != t->shown && hp_now() - t->last >= 2.0) {
		char sz[32];
		say("%s written", cli_fmt_bytes(n, sz, sizeof sz));
		t->shown = n;
		t->last = hp_now();
	}
}

/* jcmd's own words for what went wrong, as one line */
static void jcmd_error(long pid, const struct proc_info *pi, const struct ran *r, const char *dir)
{
	char l[400];
	if (has(r, "Permission denied"))
		cli_error("capture: the JVM (process %ld) cannot write its dump in %s: %s", pid, dir,
			  ran_line(r, "Permission denied", l, sizeof l));
	else if (has(r, "File exists"))
		cli_error("capture: the JVM found a file where it was to write the dump: %s", ran_line(r, "File exists", l, sizeof l));
	else if (has(r, "No such process"))
		cli_error("capture: no process %ld (it ended)", pid);
	else if (has(r, "is not a Java process") || has(r, "not a java process"))
		cli_error("capture: process %ld (%s) is not a Java VM", pid, pi->name);
	else if (has(r, "Unable to open socket file") || has(r, "AttachNotSupportedException"))
		cli_error("capture: process %ld (%s) did not let jcmd attach (not a HotSpot JVM, started with "
			  "-XX:+DisableAttachMechanism, or in a container with a /tmp of its own): %s",
			  pid, pi->name, ran_line(r, "Exception", l, sizeof l));
	else
		cli_error("capture: jcmd failed: %s", ran_line(r, "Exception", l, sizeof l));
}

static int capture_jvm(struct cli_ctx *x, const char *pids)
{
	struct capture_opts *op = x->own;
	int pid;
	if (cli_parse_int(pids, 1, INT_MAX, &pid) != 0 || pids[0] < '0' || pids[0] > '9')
		return cli_usage_error(NULL, "capture: %s is no process id (a number), and --adb PACKAGE is not given", pids);
	char jcmd[PATH_MAX];
	if (find_tool("jcmd", (const char *const[]){ "JAVA_HOME", NULL }, "bin", jcmd, sizeof jcmd) != 0) {
		cli_error("capture: jcmd is not on PATH nor in $JAVA_HOME/bin (it comes with a JDK, not a JRE)");
		return EXIT_BAD;
	}
	struct proc_info pi;
	if (kill(pid, 0) != 0 && errno == ESRCH) {
		cli_error("capture: no process %d", pid);
		return EXIT_BAD;
	}
	if (proc_read(pid, &pi) != 0) {
		cli_error("capture: process %d: cannot read /proc/%d/status: %s", pid, pid, strerror(errno));
		return EXIT_BAD;
	}
	if (pi.uid >= 0 && (uid_t)pi.uid != geteuid() && geteuid() != 0) {
		struct passwd *pw = getpwuid((uid_t)pi.uid);
		cli_error("capture: process %d (%s) is user %s's; jcmd attaches only to a JVM of the same user "
			  "(run hprofan capture as %s)", pid, pi.name, pw ? pw->pw_name : "another", pw ? pw->pw_name : "that user");
		return EXIT_BAD;
	}
	char sock[96];
	struct stat st;
	snprintf(sock, sizeof sock, "/proc/%d/root/tmp/.java_pid%d", pid, pid);
	if (!pi.sigquit && stat(sock, &st) != 0) {
		cli_error("capture: process %d (%s) is not a Java VM: it neither catches SIGQUIT (through which jcmd asks "
			  "a HotSpot JVM to listen) nor has an attach socket", pid, pi.name);
		return EXIT_BAD;
	}

	char who[32], name[PATH_MAX], tmp[PATH_MAX];
	snprintf(who, sizeof who, "%d", pid);
	struct cli_ofile o;
	int rc = out_open(x, who, op->gz, 1, &o, name, sizeof name, tmp, sizeof tmp);
	if (rc)
		return rc;
	char all[] = "-all", gz[16], pidw[16], cmdw[] = "GC.heap_dump";
	snprintf(gz, sizeof gz, "-gz=%d", op->gz);
	snprintf(pidw, sizeof pidw, "%d", pid);
	char *av[8];
	int n = 0;
	av[n++] = jcmd;
	av[n++] = pidw;
	av[n++] = cmdw;
	if (!op->live)
		av[n++] = all;
	if (op->gz)
		av[n++] = gz;
	av[n++] = tmp;
	av[n] = NULL;
	double t0 = hp_now();
	say("dumping process %d (%s) with jcmd: %s%s", pid, pi.name,
	    op->live ? "live objects, after a full GC" : "every object, unreachable ones too",
	    op->gz ? ", gzip-compressed" : "");
	struct jvm_tick t = { &o, 0, hp_now() };
	struct ran r;
	catch_signals();
	if (run_tool(av, &r, jvm_tick, &t) != 0) {
		cli_ofile_abort(&o);
		if (interrupted) {
			cli_error("capture: interrupted; %s not written", name);
			return 128 + interrupted;
		}
		return EXIT_BAD;
	}
	if (!has(&r, "Heap dump file created")) {
		char dir[PATH_MAX];
		snprintf(dir, sizeof dir, "%.*s", (int)(strrchr(tmp, '/') - tmp), tmp);
		jcmd_error(pid, &pi, &r, dir[0] ? dir : "/");
		ran_release(&r);
		cli_ofile_abort(&o);
		return EXIT_BAD;
	}
	ran_release(&r);
	char missing[PATH_MAX + 200];
	snprintf(missing, sizeof missing, "jcmd said the dump was written, but %s is not there (is the JVM in a "
		 "container, with files of its own?)", tmp);
	rc = out_commit(&o, op->gz, 0, missing);
	return rc ? rc : done(x, name, t0);
}

/* ---- adb ------------------------------------------------------------------------- */

struct adb { char path[PATH_MAX]; const char *serial; };

/* adb [-s S] shell WORDS... (NULL-terminated) or, shell 0, adb [-s S] WORDS... */
static int adb_run(const struct adb *a, int shell, const char *const *words, struct ran *r)
{
	char *av[16];
	int n = 0;
	av[n++] = (char *)a->path;
	if (a->serial) {
		av[n++] = (char *)"-s";
		av[n++] = (char *)a->serial;
	}
	if (shell)
		av[n++] = (char *)"shell";
	while (*words && n < 15)
		av[n++] = (char *)*words++;
	av[n] = NULL;
	return run_tool(av, r, NULL, NULL);
}

/* adb itself failed (no device, several, unauthorized): said, 1 */
static int adb_failed(const struct ran *r)
{
	char l[400];
	if (!has(r, "adb: ") && !has(r, "error: "))
		return 0;
	const char *line = ran_line(r, has(r, "error: ") ? "error: " : "adb: ", l, sizeof l);
	cli_error("capture: adb: %s%s", line,
		  has(r, "more than one") ? " (name the device with --serial)" : "");
	return 1;
}

/* a name am and the device's shell take as one word */
static int package_ok(const char *p)
{
	if (!*p || *p == '-')
		return 0;
	for (; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      *p == '.' || *p == '_' || *p == ':'))
			return 0;
	return 1;
}

/* the size of the device's file, or -1 when there is none */
static long long adb_size(const struct adb *a, const char *dev)
{
	struct ran r;
	if (adb_run(a, 1, (const char *const[]){ "stat", "-c", "%s", dev, NULL }, &r) != 0)
		return -1;
	char *end;
	long long v = -1;
	if (ran_ok(&r) && r.out[0] >= '0' && r.out[0] <= '9') {
		v = strtoll(r.out, &end, 10);
		if (*end && *end != '\n' && *end != '\r')
			v = -1;
	}
	ran_release(&r);
	return v;
}

/* Until the device's file stops growing: the same size, not 0, over 1 s
 * (am dumpheap returns before the dump is written on Android before 10).
 * A timeout when it never grows for 60 s.  0, else -1 said. */
static int adb_wait(const struct adb *a, const char *dev)
{
	long long last = -1;
	double since = hp_now(), shown = hp_now();
	int same = 0;
	while (!interrupted) {
		long long s = adb_size(a, dev);
		if (interrupted)
			break;
		if (s > 0 && s == last) {
			if (++same >= 4)
				return 0;
		} else {
			same = 0;
			if (s != last)
				since = hp_now();
		}
		last = s;
		if (hp_now() - since > 60) {
			cli_error("capture: the dump on the device (%s) did not grow for 60 s", dev);
			return -1;
		}
		if (s > 0 && hp_now() - shown >= 2.0) {
			char sz[32];
			say("%s written on the device", cli_fmt_bytes((uint64_t)s, sz, sizeof sz));
			shown = hp_now();
		}
		struct timespec ts = { 0, 250000000 };
		nanosleep(&ts, NULL);
	}
	return -1;
}

static int capture_adb(struct cli_ctx *x)
{
	struct capture_opts *op = x->own;
	const char *pkg = op->adb;
	if (x->nfiles)
		return cli_usage_error(NULL, "capture: a PID (%s) does not go with --adb: the app is named by its package",
				       x->files[0]);
	if (!package_ok(pkg))
		return cli_usage_error(NULL, "capture: --adb %s: not a package or process name (letters, digits, . _ :)", pkg);
	struct adb a = { .serial = op->serial };
	if (find_tool("adb", (const char *const[]){ "ANDROID_HOME", "ANDROID_SDK_ROOT", NULL }, "platform-tools",
		      a.path, sizeof a.path) != 0) {
		cli_error("capture: adb is not on PATH nor in $ANDROID_HOME/platform-tools (it comes with the Android "
			  "SDK's platform-tools)");
		return EXIT_BAD;
	}
	catch_signals();
	/* running? */
	struct ran r;
	if (adb_run(&a, 1, (const char *const[]){ "pidof", pkg, NULL }, &r) != 0)
		return interrupted ? 128 + interrupted : EXIT_BAD;
	if (adb_failed(&r)) {
		ran_release(&r);
		return EXIT_BAD;
	}
	long apid = strtol(r.out, NULL, 10);
	ran_release(&r);
	if (apid <= 0) {
		cli_error("capture: %s is not running on the device (adb shell pidof %s found no process)", pkg, pkg);
		return EXIT_BAD;
	}
	char name[PATH_MAX], tmp[PATH_MAX], dev[128];
	struct cli_ofile o;
	int rc = out_open(x, pkg, 0, 0, &o, name, sizeof name, tmp, sizeof tmp);
	if (rc)
		return rc;
	snprintf(dev, sizeof dev, "/data/local/tmp/hprofan-%ld-%ld.hprof", apid, (long)getpid());
	double t0 = hp_now();
	say("dumping %s (process %ld) with am dumpheap%s to %s", pkg, apid, op->live ? " -g (a GC first)" : "", dev);
	const char *dump[] = { "am", "dumpheap", pkg, dev, NULL }, *dump_g[] = { "am", "dumpheap", "-g", pkg, dev, NULL };
	rc = adb_run(&a, 1, op->live ? dump_g : dump, &r);
	char l[400];
	if (rc == 0 && !adb_failed(&r)) {
		if (has(&r, "not debuggable")) {
			cli_error("capture: %s is not debuggable: am dumpheap dumps only a debuggable app "
				  "(android:debuggable, a debug build) or on a userdebug or eng build of Android", pkg);
			rc = -1;
		} else if (has(&r, "Unknown process") || has(&r, "No process found")) {
			cli_error("capture: %s is not running on the device (it ended?): %s", pkg,
				  ran_line(&r, "process", l, sizeof l));
			rc = -1;
		} else if (op->live && has(&r, "Unknown option")) {
			cli_error("capture: this device's am dumpheap has no -g (an older Android): capture without --live");
			rc = -1;
		} else if (has(&r, "Exception") || has(&r, "Error") || has(&r, "FAILED") || !ran_ok(&r)) {
			cli_error("capture: am dumpheap failed: %s", ran_line(&r, has(&r, "Exception") ? "Exception" : "rror",
									  l, sizeof l));
			rc = -1;
		}
		/* "Waiting for dump to finish...": am waited (Android 10 and
		 * later); before, the file is watched until it stops growing */
		if (!rc && !has(&r, "Waiting for dump to finish") && adb_wait(&a, dev) != 0)
			rc = -1;
	} else if (rc == 0) {
		rc = -1;
	}
	ran_release(&r);
	if (!rc) {
		say("pulling %s", dev);
		rc = adb_run(&a, 0, (const char *const[]){ "pull", dev, tmp, NULL }, &r);
		if (!rc && !ran_ok(&r)) {
			cli_error("capture: adb pull %s failed: %s", dev, ran_line(&r, "error", l, sizeof l));
			rc = -1;
		}
		ran_release(&r);
	}
	/* the device's copy goes, whatever happened (a signal's too) */
	int sig = interrupted;
	interrupted = 0;
	struct ran rm;
	if (adb_run(&a, 1, (const char *const[]){ "rm", "-f", dev, NULL }, &rm) == 0) {
		if (!ran_ok(&rm))
			cli_warn("capture: could not remove %s from the device: %s", dev, ran_line(&rm, NULL, l, sizeof l));
		ran_release(&rm);
	}
	if (sig) {
		cli_ofile_abort(&o);
		cli_error("capture: interrupted; %s not written", name);
		return 128 + sig;
	}
	if (rc) {
		cli_ofile_abort(&o);
		return EXIT_BAD;
	}
	char missing[PATH_MAX + 64];
	snprintf(missing, sizeof missing, "adb pull wrote no %s", tmp);
	rc = out_commit(&o, 0, 1, missing);
	return rc ? rc : done(x, name, t0);
}

static int run(struct cli_ctx *x)
{
	struct capture_opts *op = x->own;
	quiet = x->c->quiet;
	int rc = check_after(x);
	if (rc)
		return rc;
	if (op->adb)
		return capture_adb(x);
	if (!x->nfiles)
		return cli_usage_error(NULL, "capture needs a PID (a JVM's) or --adb PACKAGE (an Android app's)");
	return capture_jvm(x, x->files[0]);
}

CLI_COMMAND(capture, "hprofan capture [PID]", "take a heap dump of a running JVM or Android app",
	    CLI_FILES(0, 1), .rest = "COMMAND ARGS...", .run = run, CLI_OWN(struct capture_opts, NULL),
	    CLI_TABLES(own, cli_opts_quiet), CLI_RULES(rules));
