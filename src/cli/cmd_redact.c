/* hprofan redact IN OUT: a copy of the dump without its data (tools/redact.h). */
#include "cli/command.h"
#include "base/clock.h"
#include "cli/msg.h"
#include "cli/format.h"
#include "cli/output.h"
#include "cli/progress.h"
#include "tools/redact.h"
#include "base/text.h"
#include "base/alloc.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

struct redact_opts {
	int mode;                     /* -1 not given, else enum hp_redact_mode */
	int names_all;
	const char *mapping_out;
	int gzip;                     /* 0 plain, else the level */
};

static void defaults(void *own)
{
	((struct redact_opts *)own)->mode = -1;
}

static const struct cli_choice modes[] = {
	{ "values", HP_REDACT_VALUES, "default: every primitive value zero, String text '*'" },
	{ "strings", HP_REDACT_STRINGS, "only text: Strings, char[]/byte[] and hashes of text" },
	{ "names", HP_REDACT_NAMES, "values, and the application's class, field, method and source file names hashed" },
	{ NULL, 0, NULL }
};

static int set_gzip(const struct cli_option *o, const char *as, const char *val, void *dst)
{
	int *g = dst;
	if (!val) {
		*g = 1;
		return EXIT_OK;
	}
	if (strlen(val) != 1 || val[0] < '1' || val[0] > '9')
		return cli_usage_error(NULL, "--gzip=%s: expected a level from 1 to 9", val);
	*g = val[0] - '0';
	return EXIT_OK;
}

#define OWN(field) OPT_OWN(struct redact_opts, field)
static const struct cli_option own[] = {
	OPT_CHOICE("--mode", "MODE", modes, "%v; in every mode the STRING records no record uses (literals) go", OWN(mode)),
	OPT_BOOL("--names-all", "names: the JDK's and Android's names hashed too", OWN(names_all)),
	OPT_FILENAME("--mapping-out", "FILE", "names: write each hashed name and the real one to FILE",
		     "needs a file name", OWN(mapping_out)),
	{ .name = "--gzip", .kind = OPT_OPTVALUE, .arg = "N", .set = set_gzip, .complete = "1 2 3 4 5 6 7 8 9",
	  .help = "write OUT gzip-compressed at level N (default 1)", OWN(gzip) },
	OPT_STATS,
	OPT_END
};
#undef OWN

/* --names-all and --mapping-out choose --mode=names when no mode is given */
static const struct cli_rule rules[] = {
	RULE_ONLY_WITH("--names-all", "--mode=names", "--names-all renames names (--mode=names, the default with it)"),
	RULE_ONLY_WITH("--mapping-out", "--mode=names", "--mapping-out renames names (--mode=names, the default with it)"),
	RULE_END
};

/* ---- progress on stderr ------------------------------------------------ */

static void progress_cb(void *ud, uint64_t done, uint64_t total)
{
	cli_progress_show(ud, 0, "redacting", done, total);
}

/* ---- the mapping file -------------------------------------------------- */

struct mapping {
	struct cli_ofile f;
	FILE *fp;
	int failed;                   /* errno of a failed write, else 0 */
};

static int map_write(struct mapping *m, const char *hashed, const char *real);

static int map_line(void *ud, const char *hashed, const char *real)
{
	struct mapping *m = ud;
	int rc = map_write(m, hashed, real);
	if (rc != HP_OK)
		m->failed = errno ? errno : EIO;
	return rc;
}

static int map_write(struct mapping *m, const char *hashed, const char *real)
{
	/* one name a line: a name with a tab or newline in it is written escaped */
	if (fputs(hashed, m->fp) == EOF || fputc('\t', m->fp) == EOF)
		return HP_EIO;
	for (const char *p = real; *p; p++) {
		int rc;
		if (*p == '\\')
			rc = fputs("\\\\", m->fp);
		else if (*p == '\t')
			rc = fputs("\\t", m->fp);
		else if (*p == '\n')
			rc = fputs("\\n", m->fp);
		else
			rc = fputc(*p, m->fp);
		if (rc == EOF)
			return HP_EIO;
	}
	return fputc('\n', m->fp) == EOF ? HP_EIO : HP_OK;
}

/* ---- run ------------------------------------------------------------------ */

static int run(struct cli_ctx *x)
{
	struct redact_opts *o = x->own;
	const char *in = x->files[0], *out = x->files[1];
	if (o->mode < 0)
		o->mode = o->names_all || o->mapping_out ? HP_REDACT_NAMES : HP_REDACT_VALUES;
	if (!strcmp(out, "-") && isatty(1))
		return cli_usage_error(NULL, "redact writes a heap dump; standard output is a terminal (give a file, or redirect it)");
	if (o->mapping_out && (!strcmp(o->mapping_out, out) || !strcmp(o->mapping_out, in)))
		return cli_usage_error(NULL, "--mapping-out %s: the mapping needs a file of its own", o->mapping_out);

	struct cli_ofile of;
	int rc = cli_ofile_open(&of, out);
	if (rc)
		return rc;
	struct mapping map = { .fp = NULL };
	map.f.fd = -1;
	if (o->mapping_out) {
		if ((rc = cli_ofile_open(&map.f, o->mapping_out)) != EXIT_OK) {
			cli_ofile_abort(&of);
			return rc;
		}
		if (!(map.fp = fdopen(dup(map.f.fd), "w"))) {
			cli_error("cannot write %s: %s", o->mapping_out, strerror(errno));
			cli_ofile_abort(&map.f);
			cli_ofile_abort(&of);
			return EXIT_BAD;
		}
	}

	char name[512];
	struct cli_progress pr;
	memset(&pr, 0, sizeof pr);
	pr.enabled = !x->c->quiet && isatty(2);
	pr.name = hp_text_safe(in, name, sizeof name);
	pr.start = hp_now();    /* the first second counts from here */
	struct hp_redact_opts ro;
	hp_redact_opts_init(&ro);
	ro.mode = o->mode;
	ro.names_all = o->names_all;
	if (map.fp) {
		ro.mapping = map_line;
		ro.mapping_ud = &map;
	}
	ro.progress = progress_cb;
	ro.progress_ud = &pr;
	/* a pipe is read twice through a copy: in $TMPDIR, else /tmp */
	const char *tmp = getenv("TMPDIR");
	ro.spool_dir = tmp && *tmp ? tmp : "/tmp";

	struct hp_error err;
	hp_error_clear(&err);
	hp_writer *w = NULL;
	struct hp_redact_stats st;
	memset(&st, 0, sizeof st);
	double t0 = hp_now();
	int hrc = hp_writer_new(&w, of.fd, o->gzip, &err);
	if (hrc == HP_OK)
		hrc = hp_redact(in, w, &ro, &st, &err);
	double secs = hp_now() - t0;
	cli_progress_end(&pr);
	int out_failed = w && hp_writer_failed(w);
	hp_writer_free(w);
	if (hrc != HP_OK) {
		char msg[900];
		if (out_failed)
			cli_error("cannot write %s: %s", out, err.msg);
		else if (map.failed)
			cli_error("cannot write %s: %s", o->mapping_out, strerror(map.failed));
		else {
			cli_format_error(in, &err, msg, sizeof msg);
			cli_error("%s", msg);
		}
		if (!of.direct)
			cli_error("%s: nothing written", out);
		if (map.fp)
			fclose(map.fp);
		cli_ofile_abort(&map.f);
		cli_ofile_abort(&of);
		return cli_exit_code(hrc);
	}
	if (map.fp && fclose(map.fp) != 0) {
		map.fp = NULL;
		cli_error("cannot write %s: %s", o->mapping_out, strerror(errno));
		cli_ofile_abort(&map.f);
		cli_ofile_abort(&of);
		return EXIT_BAD;
	}
	map.fp = NULL;
	if ((rc = cli_ofile_commit(&of)) != EXIT_OK) {
		cli_ofile_abort(&map.f);
		return rc;
	}
	if (o->mapping_out && (rc = cli_ofile_commit(&map.f)) != EXIT_OK)
		return rc;
	if (x->c->stats) {
		struct rusage ru;
		getrusage(RUSAGE_SELF, &ru);
		double cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
			     ru.ru_stime.tv_usec / 1e6;
		fprintf(stderr, "stats: bytes=%llu objects=%llu seconds=%.6f peak_rss_kb=%ld bytes_out=%llu "
			"file_bytes_out=%llu passes=%d cpu_seconds=%.6f\n",
			(unsigned long long)st.bytes_in, (unsigned long long)(st.instances + st.arrays),
			secs, ru.ru_maxrss, (unsigned long long)st.bytes_out,
			(unsigned long long)st.file_bytes_out, st.passes, cpu);
		fprintf(stderr, "redact: instances=%llu strings=%llu unknown_class_instances=%llu text_arrays=%llu "
			"zeroed_arrays=%llu zeroed_statics=%llu names=%llu strings_dropped=%llu strings_starred=%llu "
			"unknown_records=%llu\n",
			(unsigned long long)st.instances, (unsigned long long)st.strings,
			(unsigned long long)st.instances_unknown_class, (unsigned long long)st.text_arrays,
			(unsigned long long)st.prim_arrays_zeroed, (unsigned long long)st.statics_zeroed,
			(unsigned long long)st.names_replaced, (unsigned long long)st.strings_dropped,
			(unsigned long long)st.strings_starred, (unsigned long long)st.unknown_records);
	}
	return EXIT_OK;
}

CLI_COMMAND(redact, "hprofan redact IN OUT", "a copy of the dump without its data, to share it",
	    CLI_FILES(2, 2), CLI_OWN(struct redact_opts, defaults), .operands = "IN OUT", .run = run,
	    CLI_TABLES(own, cli_opts_quiet), CLI_RULES(rules));
