/* load.c — sessions for the commands: progress on the terminal, errors with
 * the file name and position, what --max-memory would need, --stats. */
#include "cli/cli.h"
#include "cli/command.h"
#include "base/alloc.h"

#include "session/index.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- progress --------------------------------------------------------- */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* one per session: a line on stderr, redrawn at most 4 times a second
 * after the first second of a phase, erased when the phase ends */
struct progress {
	int enabled, shown, phase;
	double start, last;
	const char *name;
};

static void progress_end(struct progress *p)
{
	if (p->shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		p->shown = 0;
	}
}

static void progress_cb(void *ud, int phase, uint64_t done, uint64_t total)
{
	struct progress *p = ud;
	if (!p->enabled)
		return;
	double t = now();
	if (phase != p->phase || p->start == 0) {
		progress_end(p);
		p->phase = phase;
		p->start = t;
		p->last = 0;
	}
	if (t - p->start < 1.0 || t - p->last < 0.25)
		return;
	p->last = t;
	p->shown = 1;
	const char *what = phase == HP_PHASE_READ ? "reading" : phase == HP_PHASE_REFS ? "references in"
			   : "paths in";
	double rate = done / (t - p->start);
	char a[32], b[32], r[32];
	if (total && done <= total) {
		double eta = rate > 0 ? (total - done) / rate : 0;
		fprintf(stderr, "\rhprofan: %s %s: %s of %s (%.0f%%), %s/s, ETA %.0fs   ",
			what, p->name, fmt_bytes(done, a, sizeof a), fmt_bytes(total, b, sizeof b),
			100.0 * done / total, fmt_bytes((uint64_t)rate, r, sizeof r), eta);
	} else {
		fprintf(stderr, "\rhprofan: %s %s: %s, %s/s   ", what, p->name,
			fmt_bytes(done, a, sizeof a), fmt_bytes((uint64_t)rate, r, sizeof r));
	}
	fflush(stderr);
}

/* what the CLI keeps per session: its progress display, the options it
 * was opened with, whether the salvage warning was given */
#define MAX_SESSIONS 256
static struct cli_sess {
	hp_session *s;
	struct progress p;
	const struct cli_common *c;
	int warned;
	int map_warned;               /* the note that the mapping renamed nothing */
	int spool_warned;             /* the note that no copy of the input was kept */
	int untrusted_said;           /* that the index was not trusted when opened */
	int need_dump;                /* not info: a file without a heap dump is an error */
	char name[512];               /* the file's name, safe for the terminal */
	char index[PATH_MAX + 64];    /* its index, "" for none */
	char spool[PATH_MAX];         /* the directory of its spool (session.h) */
} sessions[MAX_SESSIONS];

static struct cli_sess *sess_of(const hp_session *S)
{
	for (int i = 0; i < MAX_SESSIONS; i++)
		if (sessions[i].s == S)
			return &sessions[i];
	return NULL;
}

static void progress_stop(hp_session *S)
{
	struct cli_sess *cs = sess_of(S);
	if (cs)
		progress_end(&cs->p);
}

/* ---- --mapping ---------------------------------------------------------- */

/* read once, for every dump of the command */
static hp_mapping *mapping;
static const char *mapping_file;

const char *cli_mapping_file(void) { return mapping_file; }

static void mapping_free(void)
{
	hp_mapping_free(mapping);
}

/* "FILE:LINE: what" for a bad line, as --components FILE says */
static int mapping_load(const char *file)
{
	if (mapping)
		return EXIT_OK;
	struct hp_error err;
	hp_error_clear(&err);
	size_t line;
	int rc = hp_mapping_read(&mapping, file, &line, &err);
	if (rc == HP_ENOMEM) {
		if (!cli_limit_hit(file))
			cli_error("--mapping %s: out of memory", file);
		return EXIT_NOMEM;
	}
	if (rc && line) {
		cli_error("%s:%zu: %s", file, line, err.msg);
		return EXIT_USAGE;
	}
	if (rc) {
		cli_error("--mapping %s: %s", file, err.msg);
		return EXIT_USAGE;
	}
	mapping_file = file;
	atexit(mapping_free);
	return EXIT_OK;
}

/* ---- the index's place --------------------------------------------------- */

/* mkdir -p, the last directory private (the cache may say what dumps the
 * user looked at) */
static int make_dirs(const char *dir)
{
	char buf[PATH_MAX];
	if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf)
		return -1;
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) != 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(buf, 0700) != 0 && errno != EEXIST)
		return -1;
	struct stat st;
	return stat(buf, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -1;
}

/* a directory we may write to: access() says so and so do its mode bits
 * (which root's access() ignores: a read-only corpus stays untouched) */
static int dir_writable(const char *dir)
{
	struct stat st;
	return stat(dir, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0222) && access(dir, W_OK) == 0;
}

/* the index named name in the user's cache ($XDG_CACHE_HOME/hprofan, else
 * ~/.cache/hprofan, made 0700), into out: 0 when it may be used there,
 * else -1 (why in why when the cache is not trusted) */
static int cache_place(const char *name, char *out, size_t n, char *why, size_t why_len)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char cache[PATH_MAX];
	int w;
	why[0] = '\0';
	if (xdg && *xdg == '/')
		w = snprintf(cache, sizeof cache, "%s/hprofan", xdg);
	else if (home && *home)
		w = snprintf(cache, sizeof cache, "%s/.cache/hprofan", home);
	else
		return -1;
	if (w <= 0 || (size_t)w >= sizeof cache || make_dirs(cache) != 0 ||
	    (w = snprintf(out, n, "%s/%s", cache, name)) <= 0 || (size_t)w >= n)
		return -1;
	int t = hp_index_place(out, NULL, why, why_len);
	return t == HP_INDEX_OK || t == HP_INDEX_MISSING ? 0 : -1;
}

/* Where the index of file goes, into out: in $HPROFAN_INDEX_DIR when set,
 * else beside the dump when its directory is writable, else in the user's
 * cache; but only where it may be trusted (hp_index_place(): the user's or
 * root's, and no one else can write it), else in the cache.  note (when
 * not NULL) gets a line to say so when a place was passed over: always for
 * $HPROFAN_INDEX_DIR, which the user chose, beside the dump only when
 * something is there (a dump in a directory others can write has its
 * index in the cache without a word).  0, or -1: no index. */
static int index_place(const char *file, char *out, size_t n, char *note, size_t note_len)
{
	if (note)
		note[0] = '\0';
	struct stat st;
	if (strcmp(file, "-") == 0 || stat(file, &st) != 0 || !S_ISREG(st.st_mode))
		return -1;
	char *abs = realpath(file, NULL);
	if (!abs)
		return -1;
	/* the name in a shared directory: the dump's, and a hash of its
	 * absolute path (FNV-1a) so that two a.hprof do not meet */
	uint64_t hsh = 0xcbf29ce484222325ull;
	for (const char *p = abs; *p; p++)
		hsh = (hsh ^ (unsigned char)*p) * 0x100000001b3ull;
	const char *slash = strrchr(abs, '/');
	const char *base = slash ? slash + 1 : abs;
	char dir[PATH_MAX], name[NAME_MAX + 64], first[PATH_MAX + 64], why[256], cwhy[256];
	snprintf(dir, sizeof dir, "%.*s", slash && slash != abs ? (int)(slash - abs) : 1, abs);
	snprintf(name, sizeof name, "%s.%016llx.hprofan-index", base, (unsigned long long)hsh);
	const char *env = getenv("HPROFAN_INDEX_DIR");
	int w, exists = 0, chosen = 0;
	first[0] = '\0';
	if (env && *env) {
		chosen = 1;
		if (make_dirs(env) != 0 || (w = snprintf(first, sizeof first, "%s/%s", env, name)) <= 0 ||
		    (size_t)w >= sizeof first) {
			free(abs);
			return -1;   /* (no place: none, rather than one the user did not choose) */
		}
	} else if (dir_writable(dir)) {
		if ((w = snprintf(first, sizeof first, "%s.hprofan-index", abs)) <= 0 || (size_t)w >= sizeof first)
			first[0] = '\0';
	}
	free(abs);
	int t = HP_INDEX_MISSING;
	if (first[0]) {
		t = hp_index_place(first, &exists, why, sizeof why);
		if (t == HP_INDEX_OK || t == HP_INDEX_MISSING)
			return (size_t)snprintf(out, n, "%s", first) < n ? 0 : -1;
	}
	int rc = cache_place(name, out, n, cwhy, sizeof cwhy);
	if (!note)
		return rc;
	const char *what = t == HP_INDEX_UNTRUSTED ? "not trusted" : "unreadable";
	if (first[0] && (chosen || exists)) {
		if (!rc)
			snprintf(note, note_len, "index %s is %s (%s): using %s", first, what, why, out);
		else
			snprintf(note, note_len, "index %s is %s (%s): no index%s%s", first, what, why,
				 cwhy[0] ? ", nor the cache's: " : "", cwhy);
	} else if (rc && cwhy[0]) {
		snprintf(note, note_len, "index %s is not trusted (%s): no index", out, cwhy);
	}
	return rc;
}

int cli_index_path(const char *file, char *out, size_t n)
{
	return index_place(file, out, n, NULL, 0);
}

/* ---- bigger than memory ------------------------------------------------ */

void cli_memory_setup(const char *file)
{
	struct hp_alloc_machine m;
	hp_alloc_machine(&m);
	/* Half of what the machine has available (MemAvailable: what others
	 * do not use, page cache counted as free), or a quarter of the
	 * cgroup's limit when smaller: that limit counts the page cache too,
	 * and the cache must hold the dump's pages and the working set of the
	 * file-backed blocks; our anonymous pages cannot be evicted (often no
	 * swap), the file pages a pass uses are kept and the others written
	 * back, so under a limit the fewer fixed pages the better. */
	uint64_t budget = m.available / 2;
	if (m.cgroup_limit && (!budget || m.cgroup_limit / 4 < budget))
		budget = m.cgroup_limit / 4;
	hp_alloc_set_budget(budget);
	char ix[PATH_MAX];
	if (file && cli_index_path(file, ix, sizeof ix) == 0) {
		char *slash = strrchr(ix, '/');
		if (slash && slash != ix) {
			*slash = '\0';
			if (hp_alloc_set_spill_dir(ix) == 0 && dir_writable(ix))
				return;
		}
	}
	const char *t = getenv("TMPDIR");
	if (t && *t && dir_writable(t) && hp_alloc_set_spill_dir(t) == 0)
		return;
	if (dir_writable("/tmp") && hp_alloc_set_spill_dir("/tmp") == 0)
		return;
	hp_alloc_set_spill_dir(NULL);
}

/* ---- sessions --------------------------------------------------------- */

int cli_session(struct cli_ctx *x, const char *file, hp_session **S)
{
	struct hp_session_opts so;
	hp_session_opts_init(&so);
	const struct cli_common *c = x->c;
	so.size_kind = c->size_kind;
	so.ref_size = c->ref_size;
	so.header_size = c->header_size;
	so.align = c->align;
	so.dump_index = c->dump_index;
	so.salvage = c->salvage;
	so.weak = c->weak;
	so.roots = c->roots;
	if (c->mapping) {
		int rc = mapping_load(c->mapping);
		if (rc)
			return rc;
		so.mapping = mapping;
	}
	/* info describes any HPROF file; every other command needs a heap dump */
	so.need_dump = strcmp(x->cmd->name, "info") != 0;
	if (!strcmp(x->cmd->name, "sites"))
		so.need_dump = 2;            /* issue 16: the agent's tables without a heap dump */
	struct cli_sess *cs = NULL;
	for (int i = 0; i < MAX_SESSIONS && !cs; i++)
		if (!sessions[i].s)
			cs = &sessions[i];
	if (!cs) {
		cli_error("%s: too many dumps at once (at most %d)", file, MAX_SESSIONS);
		return EXIT_USAGE;
	}
	memset(cs, 0, sizeof *cs);
	cs->p.enabled = !c->quiet && isatty(2);
	cs->p.name = safe_text(file, cs->name, sizeof cs->name);
	cs->c = c;
	cs->need_dump = so.need_dump;
	so.progress = progress_cb;
	so.progress_ud = &cs->p;
	/* the index: not under a memory limit (the limit is about building
	 * the model), not under --mapping (the names it puts back are in the
	 * model: an index written so would show them to runs without it, and
	 * a mapped model is not renamed), not when told so */
	const char *off = getenv("HPROFAN_NO_INDEX");
	char note[3 * PATH_MAX];
	note[0] = '\0';
	if (!c->no_index && !c->max_memory && !c->mapping && !(off && *off && strcmp(off, "0") != 0) &&
	    index_place(file, cs->index, sizeof cs->index, note, sizeof note) == 0)
		so.index_path = cs->index;
	else
		cs->index[0] = '\0';
	if (note[0])
		cli_error("%s", note);
	so.index_any_policy = strcmp(x->cmd->name, "index") == 0;   /* hprofan index --weak=...: as asked */
	/* a gzip dump's inflated bytes and a pipe's are kept for the passes
	 * after the first: in $TMPDIR, else beside the index, else in /tmp */
	const char *tmp = getenv("TMPDIR");
	if (tmp && *tmp)
		snprintf(cs->spool, sizeof cs->spool, "%s", tmp);
	else if (cs->index[0] && strrchr(cs->index, '/'))
		snprintf(cs->spool, sizeof cs->spool, "%.*s", (int)(strrchr(cs->index, '/') - cs->index), cs->index);
	else
		snprintf(cs->spool, sizeof cs->spool, "/tmp");
	if (!cs->spool[0])
		snprintf(cs->spool, sizeof cs->spool, "/");
	so.spool_dir = cs->spool;
	struct hp_error err;
	hp_error_clear(&err);
	if (hp_session_open(S, file, &so, &err)) {
		cli_error("%s: out of memory", file);
		return EXIT_NOMEM;
	}
	cs->s = *S;
	return EXIT_OK;
}

int cli_session_write_index(hp_session *S, uint64_t *bytes)
{
	struct cli_sess *cs = sess_of(S);
	const char *why, *what = NULL;
	if (cs && cs->index[0] && !cs->untrusted_said && hp_session_index_state(S, &why) == HP_INDEX_UNTRUSTED) {
		/* (it was trusted when placed: changed since) */
		cli_error("index %s is not trusted (%s): not used", cs->index, why);
		cs->untrusted_said = 1;
	}
	if (!cs || !cs->index[0] || !hp_session_index_pending(S))
		return 0;
	switch (hp_session_index_state(S, &why)) {
	case HP_INDEX_STALE: what = "stale"; break;
	case HP_INDEX_VERSION_MISMATCH: what = "of another version"; break;
	case HP_INDEX_TRUNCATED: what = "truncated"; break;
	case HP_INDEX_CORRUPT: what = "corrupt"; break;
	case HP_INDEX_IOERR: what = "unreadable"; break;
	default: break;
	}
	if (what)
		cli_error("index %s is %s (%s): rebuilding", cs->index, what, why);
	struct hp_error err;
	hp_error_clear(&err);
	uint64_t b = 0;
	if (hp_session_write_index(S, &b, &err) != HP_OK) {
		cli_warn("%s: no index written: %s", hp_session_path(S), err.msg);
		return 0;
	}
	if (bytes)
		*bytes = b;
	return 1;
}

void cli_session_close(hp_session *S)
{
	struct cli_sess *cs = sess_of(S);
	if (cs) {
		progress_end(&cs->p);
		cli_session_write_index(S, NULL);
		memset(cs, 0, sizeof *cs);
	}
	hp_session_free(S);
}

/* ---- errors ----------------------------------------------------------- */

static int limit_reported;     /* a message about the limit was printed */

static void limit_error(const char *file, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "hprofan: FILE: ...; --max-memory is 500 MiB" */
static void limit_error(const char *file, const char *fmt, ...)
{
	char msg[600], l[32];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	/* the big arrays could not go to files either: why */
	char why[600] = "";
	if (hp_alloc_spill_failures())
		snprintf(why, sizeof why, "; files in %s could not hold the rest: %s",
			 hp_alloc_spill_dir(), strerror(hp_alloc_spill_errno()));
	else if (!hp_alloc_spill_dir()[0])
		snprintf(why, sizeof why, "; no writable directory for files to hold the rest");
	cli_error("%s: %s; --max-memory is %s%s", file, msg, fmt_bytes(hp_alloc_limit(), l, sizeof l), why);
	limit_reported = 1;
}

int cli_limit_hit(const char *file)
{
	if (!hp_alloc_limit() || !hp_alloc_refusals())
		return 0;
	if (!limit_reported) {
		char a[32], b[32];
		limit_error(file, "the memory limit was hit (%s asked for, %s in use)",
			    fmt_bytes(hp_alloc_refused_request(), a, sizeof a),
			    fmt_bytes(hp_alloc_refused_in_use(), b, sizeof b));
	}
	return 1;
}

/* says what went wrong in a getter of S; returns the exit code */
static int failed(hp_session *S, int rc, const struct hp_error *err)
{
	const char *file = hp_session_path(S);
	const struct hp_session_need *nd = hp_session_need(S);
	char x[32], y[32], n[32];
	progress_stop(S);
	if (rc == HP_ENOMEM && nd->stage != HP_NEED_NONE) {
		fmt_count(nd->objects, n, sizeof n);
		switch (nd->stage) {
		case HP_NEED_OPEN_BUFFERS:
			limit_error(file, "the memory limit was hit opening the dump (its buffers need more than %s)",
				    fmt_bytes(nd->bytes, x, sizeof x));
			break;
		case HP_NEED_OPEN:
			limit_error(file, "the memory limit was hit opening the dump");
			break;
		case HP_NEED_READING:
			limit_error(file, "offset %llu: the memory limit was hit reading; the model needs more than %s (%s objects before this offset)",
				    (unsigned long long)nd->offset, fmt_need(nd->bytes, x, sizeof x), n);
			break;
		case HP_NEED_HISTOGRAM:
			limit_error(file, "the class histogram needs about %s (%s objects, nothing kept per object)",
				    fmt_need(nd->bytes, x, sizeof x), n);
			break;
		case HP_NEED_MODEL_RETAINED:
			limit_error(file, "the model needs about %s (%s objects), and retained sizes about %s in all",
				    fmt_need(nd->bytes, x, sizeof x), n, fmt_need(nd->retained_bytes, y, sizeof y));
			break;
		case HP_NEED_MODEL:
			limit_error(file, "the model needs about %s (%s objects)", fmt_need(nd->bytes, x, sizeof x), n);
			break;
		default:
			limit_error(file, "retained sizes need about %s in all (%s objects; more with many references)",
				    fmt_need(nd->bytes, x, sizeof x), n);
			break;
		}
		return EXIT_NOMEM;
	}
	if (hp_session_no_such_dump(S, NULL)) {
		struct cli_sess *cs = sess_of(S);
		cli_error("%s: --dump %d: %s", file, cs ? cs->c->dump_index : 0, err->msg);
		return EXIT_USAGE;
	}
	char msg[900];
	cli_format_error(file, err, msg, sizeof msg);
	cli_error("%s", msg);
	/* --salvage helps only where a heap dump began before the break
	 * (info: wherever there are records) */
	const struct hp_load_info *L = hp_session_load_info(S);
	struct cli_sess *cs = sess_of(S);
	if (!L->stats.ndumps && cs && cs->need_dump)
		;
	else if (rc == HP_ETRUNC && err->has_pos)
		fprintf(stderr, "hprofan: the dump is truncated; --salvage analyses what precedes offset %llu\n",
			(unsigned long long)err->offset);
	else if (rc == HP_ECORRUPT && err->has_pos)
		fprintf(stderr, "hprofan: --salvage analyses what precedes offset %llu\n",
			(unsigned long long)err->offset);
	return cli_exit_code(rc);
}

/* the mapping named nothing of the dump: say so once */
static void mapping_note(hp_session *S)
{
	const struct hp_load_info *L = hp_session_load_info(S);
	struct cli_sess *cs = sess_of(S);
	const struct hp_mapping_stats *M = &L->mapped;
	if (!mapping || !cs || cs->map_warned || M->classes || M->fields || M->frames)
		return;
	cs->map_warned = 1;
	cli_warn("--mapping %s: no class, field or stack frame of %s is in it (a mapping of another build?); "
		 "names are as in the dump", mapping_file, hp_session_path(S));
}

/* no copy of a streamed input was kept: say so once, with what it costs */
void cli_spool_note(hp_session *S)
{
	struct cli_sess *cs = sess_of(S);
	const char *why = hp_session_spool_note(S);
	if (!why || !cs || cs->spool_warned || (cs->c->quiet && !hp_session_one_shot(S)))
		return;
	cs->spool_warned = 1;
	if (hp_session_one_shot(S))
		cli_warn("%s: no copy of the input is kept (%s), so it cannot be read again", hp_session_path(S), why);
	else
		cli_warn("%s: no copy of the inflated dump is kept (%s), so each pass inflates it again",
			 hp_session_path(S), why);
}

/* the model was read, salvaged: say so once */
static void partial_warning(hp_session *S)
{
	const struct hp_load_info *L = hp_session_load_info(S);
	struct cli_sess *cs = sess_of(S);
	mapping_note(S);
	if (!hp_session_one_shot(S))   /* a pipe's: where it is read again */
		cli_spool_note(S);
	if (!L->partial || !cs || cs->warned)
		return;
	cs->warned = 1;
	char msg[900];
	cli_format_error(hp_session_path(S), &L->partial_err, msg, sizeof msg);
	cli_warn("%s", msg);
	cli_warn("--salvage: analysing what precedes offset %llu; figures are partial",
		 (unsigned long long)L->partial_err.offset);
}

#define GET(S, call) do { \
	struct hp_error err_; \
	hp_error_clear(&err_); \
	int rc_ = (call); \
	progress_stop(S); \
	if (rc_) \
		return failed((S), rc_, &err_); \
	partial_warning(S); \
	return EXIT_OK; \
} while (0)

int cli_histogram(hp_session *S, const hp_heap **h) { GET(S, hp_session_histogram(S, h, &err_)); }
int cli_model(hp_session *S, const hp_heap **h) { GET(S, hp_session_model(S, h, &err_)); }
int cli_objread(hp_session *S, hp_objread **rd) { GET(S, hp_session_objread(S, rd, &err_)); }
int cli_native(hp_session *S, int with_retained, const struct hp_native **N)
{
	GET(S, hp_session_native(S, with_retained, N, &err_));
}

int cli_native_shown(const hp_heap *h, const struct hp_native *N)
{
	(void)h;
	return N && N->shallow != NULL;
}

void cli_native_note(const struct cli_ctx *x, const hp_heap *h, const struct hp_native *N)
{
	static int said;
	if (said || x->c->quiet || !N || !N->why_none || !(hp_heap_android(h) || N->has_registry))
		return;
	said = 1;
	fprintf(stderr, "hprofan: note: no native sizes: %s\n", N->why_none);
}

int cli_paths(hp_session *S, int all_weak, const struct hp_pathsearch **ps)
{
	GET(S, hp_session_paths(S, all_weak, ps, &err_));
}

/* sums: 1 the sums only, 2 without the graph, 0 all (session.h) */
static int get_retained(hp_session *S, int sums, const hp_heap **h, const struct hp_retained **R)
{
	struct hp_error err;
	hp_error_clear(&err);
	int rc = sums == 1 ? hp_session_retained_sums(S, R, &err) : sums == 2 ? hp_session_retained_tree(S, R, &err)
		 : hp_session_retained(S, R, &err);
	if (!rc)
		rc = hp_session_model(S, h, &err);
	progress_stop(S);
	if (rc)
		return failed(S, rc, &err);
	partial_warning(S);
	/* no GC root: every object is unreachable and retains nothing */
	if ((*h)->nobj && !(*R)->nroot_objs) {
		const struct hp_load_info *L = hp_session_load_info(S);
		cli_warn("%s: the dump has no GC roots%s: no object is reachable, so retained sizes are all 0; "
			 "--roots=unreachable-as-roots makes every object no root reaches a root",
			 hp_session_path(S), L->partial ? " before the break (HotSpot writes them last)" : "");
	}
	return EXIT_OK;
}

int cli_retained(hp_session *S, const hp_heap **h, const struct hp_retained **R)
{
	return get_retained(S, 0, h, R);
}

int cli_retained_sums(hp_session *S, const hp_heap **h, const struct hp_retained **R)
{
	return get_retained(S, 1, h, R);
}

int cli_retained_tree(hp_session *S, const hp_heap **h, const struct hp_retained **R)
{
	return get_retained(S, 2, h, R);
}

int cli_pipe_read(hp_session *S)
{
	const hp_heap *h;
	if (!hp_session_one_shot(S) || !hp_session_rereadable(S))
		return EXIT_OK;
	return cli_model(S, &h);
}

int cli_refuse_pipe(hp_session *S, const char *what, const char *hint)
{
	int rc = cli_pipe_read(S);
	if (rc)
		return rc;
	if (hp_session_rereadable(S))
		return EXIT_OK;
	cli_spool_note(S);
	cli_error("%s: %s the dump twice, which a pipe cannot do; %s", hp_session_path(S), what, hint);
	return EXIT_USAGE;
}

void cli_partial_note(FILE *f, hp_session *S)
{
	const struct hp_load_info *L = hp_session_load_info(S);
	if (!L->partial)
		return;
	char msg[900];
	cli_format_error(hp_session_path(S), &L->partial_err, msg, sizeof msg);
	fprintf(f, "warning: partial result: %s\n", msg);
}

void cli_print_stats(const struct cli_ctx *x, hp_session *S)
{
	if (!x->c->stats || !S)
		return;
	const struct hp_load_info *L = hp_session_load_info(S);
	const hp_heap *h;
	struct hp_error err;
	if (hp_session_histogram(S, &h, &err) != HP_OK)
		return;
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	uint64_t objs = h->n_instances + h->n_objarrays + h->n_primarrays + h->n_classobjs;
	fprintf(stderr, "stats: bytes=%llu objects=%llu seconds=%.6f peak_rss_kb=%ld model_bytes=%llu\n",
		(unsigned long long)L->stats.bytes, (unsigned long long)objs, L->seconds,
		ru.ru_maxrss, (unsigned long long)hp_heap_model_bytes(h));
	if (hp_alloc_limit())
		fprintf(stderr, "memory: max_memory=%llu alloc_peak=%llu alloc_in_use=%llu\n",
			(unsigned long long)hp_alloc_limit(), (unsigned long long)hp_alloc_peak(),
			(unsigned long long)hp_alloc_in_use());
	struct hp_alloc_io io;
	hp_alloc_io(&io);
	fprintf(stderr, "spill: budget=%llu anon_peak=%llu file_peak=%llu file_blocks=%llu failures=%llu dir=%s\n",
		(unsigned long long)hp_alloc_budget(), (unsigned long long)hp_alloc_anon_peak(),
		(unsigned long long)hp_alloc_spilled_peak(), (unsigned long long)hp_alloc_spill_blocks(),
		(unsigned long long)hp_alloc_spill_failures(), hp_alloc_spill_dir()[0] ? hp_alloc_spill_dir() : "-");
	fprintf(stderr, "io: read_bytes=%llu write_bytes=%llu major_faults=%llu",
		(unsigned long long)io.read_bytes, (unsigned long long)io.write_bytes,
		(unsigned long long)io.major_faults);
	const struct hp_retained *R;
	int ret = hp_session_retained_done(S) && hp_session_retained(S, &R, &err) == HP_OK;
	if (ret)
		fprintf(stderr, " dom_read_bytes=%llu dom_write_bytes=%llu dom_major_faults=%llu",
			(unsigned long long)R->io_dom.read_bytes, (unsigned long long)R->io_dom.write_bytes,
			(unsigned long long)R->io_dom.major_faults);
	fputc('\n', stderr);
	if (ret) {
		double n = objs ? (double)objs : 1;
		fprintf(stderr, "phases: parse=%.3fs (%.0f ns/obj) refs=%.3fs (%.0f ns/obj, %llu refs, %llu of them class) "
			"dominators=%.3fs (%.0f ns/obj, peak %llu bytes) retained=%.3fs aggregate=%.3fs\n",
			L->t_parse, 1e9 * L->t_parse / n, R->t_refs, 1e9 * R->t_refs / n,
			(unsigned long long)R->refs.nedges, (unsigned long long)R->refs.nclass_edges, R->t_dom, 1e9 * R->t_dom / n,
			(unsigned long long)R->dom_peak_bytes, R->t_retained, R->t_aggregate);
	}
}
