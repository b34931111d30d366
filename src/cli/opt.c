/* opt.c — option tables: the shared ones, value parsers, lookup, help lines. */
#include "cli/command.h"
#include "cli/msg.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define COMMON(field) 1, offsetof(struct cli_common, field)

static int parse_int(const char *s, long lo, long hi, int *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
}

static int bad(const char *fmt, const char *arg)
{
	return cli_usage_error(NULL, fmt, arg);
}

/* ---- value parsers ------------------------------------------------------ */

int cli_set_count(const struct cli_option *o, const char *as, const char *val, void *dst)
{
	struct cli_count *c = dst;
	c->given = 1;
	if (!val)
		return EXIT_OK;     /* --top alone: the default number */
	if (parse_int(val, 0, INT_MAX, &c->n)) {
		size_t k = strspn(val, "0123456789");
		if (k && !val[k])
			return cli_usage_error(NULL, "%s: number too large: %s", o->name, val);
		return cli_usage_error(NULL, "%s: expected a number, got '%s'", o->name, val);
	}
	return EXIT_OK;
}

static int set_dump(const struct cli_option *o, const char *as, const char *val, void *dst)
{
	return parse_int(val, 0, INT_MAX, dst) ? bad("%s needs a dump number (0, 1, ...)", as) : EXIT_OK;
}

static int set_size_model(const struct cli_option *o, const char *as, const char *val, void *dst)
{
	static const struct { const char *name; int kind; } m[] = {
		{ "mat", HP_SIZE_MAT }, { "ahat", HP_SIZE_AHAT }, { "raw", HP_SIZE_RAW },
		{ "visualvm", HP_SIZE_VISUALVM }, { "netbeans", HP_SIZE_NETBEANS }, { "vm", HP_SIZE_VM },
	};
	for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
		if (!strcmp(val, m[i].name)) {
			*(int *)dst = m[i].kind;
			return EXIT_OK;
		}
	return bad("--size-model=%s: expected vm, mat, ahat, raw, visualvm or netbeans", val);
}

static int set_ref_size(const struct cli_option *o, const char *as, const char *val, void *dst)
{
	int v;
	if (parse_int(val, 4, 8, &v) || (v != 4 && v != 8))
		return bad("%s needs 4 or 8", as);
	*(int *)dst = v;
	return EXIT_OK;
}

static int set_header_size(const struct cli_option *o, const char *as, const char *val, void *dst)
{
	return parse_int(val, 0, 64, dst) ? bad("%s needs a size in bytes (0..64)", as) : EXIT_OK;
}

static int set_align(const struct cli_option *o, const char *as, const char *val, void *dst)
{
	int v;
	if (parse_int(val, 1, 256, &v) || (v & (v - 1)))
		return bad("%s needs a power of two from 1 to 256", as);
	*(int *)dst = v;
	return EXIT_OK;
}

static int set_weak(const struct cli_option *o, const char *as, const char *val, void *dst)
{
	int *w = dst;
	if (!strcmp(val, "follow"))
		*w = HP_WEAK_FOLLOW;
	else if (!strcmp(val, "skip"))
		*w = HP_WEAK_SKIP;
	else if (!strcmp(val, "skip-weak"))
		*w = HP_WEAK_SKIP_WEAK;
	else
		return bad("--weak=%s: expected follow, skip or skip-weak", val);
	return EXIT_OK;
}

static int set_roots(const struct cli_option *o, const char *as, const char *val, void *dst)
{
	int *r = dst;
	if (!strcmp(val, "threads"))
		*r = HP_ROOTS_THREADS;
	else if (!strcmp(val, "all"))
		*r = HP_ROOTS_ALL;
	else if (!strcmp(val, "unreachable-as-roots"))
		*r = HP_ROOTS_UNREACHABLE;
	else
		return bad("--roots=%s: expected threads, all or unreachable-as-roots", val);
	return EXIT_OK;
}

/*
 * --max-memory SIZE: digits, an optional fraction, an optional unit.  K, M,
 * G, T (either case) and KiB, MiB, GiB, TiB are powers of 1024, as the sizes
 * hprofan prints are; kB/KB, MB, GB, TB powers of 1000 (as GNU tools read
 * them); B or nothing is bytes.  A fraction (1.5G) is rounded down to a
 * byte; 0, a fraction of a byte and anything else are refused.
 */
static int parse_size(const char *s, uint64_t *out)
{
	static const struct { const char *unit; uint64_t mult; } units[] = {
		{ "", 1 }, { "B", 1 },
		{ "K", 1ull << 10 }, { "M", 1ull << 20 }, { "G", 1ull << 30 }, { "T", 1ull << 40 },
		{ "k", 1ull << 10 }, { "m", 1ull << 20 }, { "g", 1ull << 30 }, { "t", 1ull << 40 },
		{ "KiB", 1ull << 10 }, { "MiB", 1ull << 20 }, { "GiB", 1ull << 30 }, { "TiB", 1ull << 40 },
		{ "kB", 1000 }, { "KB", 1000 }, { "MB", 1000000 }, { "GB", 1000000000 },
		{ "TB", 1000000000000ull },
	};
	const char *p = s;
	uint64_t whole = 0, frac = 0, scale = 1;
	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (whole > (UINT64_MAX - 9) / 10)
			return -1;
		whole = whole * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return -1;
		for (; *p >= '0' && *p <= '9'; p++) {
			if (scale >= 1000000)
				return -1;       /* six digits are plenty (and cannot overflow below) */
			frac = frac * 10 + (uint64_t)(*p - '0');
			scale *= 10;
		}
	}
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
		if (strcmp(p, units[i].unit))
			continue;
		uint64_t m = units[i].mult;
		if (whole > UINT64_MAX / m)
			return -1;
		if (frac && m == 1)
			return -1;       /* a fraction of a byte */
		uint64_t part = frac * m / scale;     /* rounded down to a byte */
		if (whole * m > UINT64_MAX - part || whole * m + part == 0)
			return -1;
		*out = whole * m + part;
		return 0;
	}
	return -1;
}

static int set_max_memory(const struct cli_option *o, const char *as, const char *val, void *dst)
{
	if (parse_size(val, dst))
		return bad("--max-memory %s: expected a size of more than 0 bytes, such as 512M, 4G or 1.5GiB", val);
	return EXIT_OK;
}

/* ---- the shared tables ---------------------------------------------------- */

const struct cli_option cli_opts_output[] = {
	{ "--json", NULL, OPT_FLAG, "--json", "write JSON (schema hprofan/1) instead of a table",
	  COMMON(json), NULL, NULL, NULL },
	{ "-o", "--output", OPT_VALUE, "-o FILE", "write the output to FILE (atomically)",
	  COMMON(output), NULL, "needs a file name", NULL },
	{ "--stats", NULL, OPT_FLAG, "--stats", "print time, throughput and peak memory on stderr",
	  COMMON(stats), NULL, NULL, NULL },
	{ NULL }
};

const struct cli_option cli_opts_quiet[] = {
	{ "--quiet", "-q", OPT_FLAG, "--quiet", "no progress display",
	  COMMON(quiet), NULL, NULL, NULL },
	{ NULL }
};

/* the load options but --mapping, in help's order around it */
#define LOAD_OPTS_HEAD \
	{ "--dump", NULL, OPT_VALUE, "--dump N", "analyse heap dump N of the file (0-based; default 0)", \
	  COMMON(dump_index), set_dump, "needs a dump number (0, 1, ...)", NULL }, \
	{ "--salvage", NULL, OPT_FLAG, "--salvage", "analyse a truncated or corrupt dump up to the break", \
	  COMMON(salvage), NULL, NULL, NULL }, \
	{ "--max-memory", NULL, OPT_VALUE, "--max-memory SIZE", \
	  "refuse to build a model larger than SIZE and say how\n" \
	  "much it needs; SIZE is bytes, or with K, M, G, T (or\n" \
	  "KiB, MiB, GiB, TiB: powers of two) or kB, MB, GB, TB\n" \
	  "(powers of ten)", \
	  COMMON(max_memory), set_max_memory, "needs a size (such as 512M or 4G)", NULL }
#define LOAD_OPTS_TAIL \
	{ "--no-index", NULL, OPT_FLAG, "--no-index", "neither read nor write the dump's index\n" \
	  "(FILE.hprofan-index; see hprofan index)", \
	  COMMON(no_index), NULL, NULL, NULL }

const struct cli_option cli_opts_load[] = {
	LOAD_OPTS_HEAD,
	{ "--mapping", NULL, OPT_VALUE, "--mapping FILE",
	  "an R8/ProGuard mapping.txt: show the original names\nof classes, fields and stack frames",
	  COMMON(mapping), NULL, "needs a mapping file (R8/ProGuard mapping.txt)", NULL },
	LOAD_OPTS_TAIL,
	{ NULL }
};

/* the same without --mapping: for a command that shows no name a mapping
 * could change (bitmaps: android.graphics.Bitmap is never obfuscated;
 * index: no index is written under a mapping) */
const struct cli_option cli_opts_load_unmapped[] = {
	LOAD_OPTS_HEAD,
	LOAD_OPTS_TAIL,
	{ NULL }
};
#undef LOAD_OPTS_HEAD
#undef LOAD_OPTS_TAIL

const struct cli_option cli_opts_model[] = {
	{ "--size-model", NULL, OPT_VALUE, "--size-model=MODEL",
	  "mat (HotSpot default), ahat (Android default), raw,\nvisualvm or netbeans",
	  COMMON(size_kind), set_size_model, "needs a value: vm, mat, ahat, raw, visualvm or netbeans",
	  "mat ahat raw visualvm netbeans" },
	{ "--ref-size", NULL, OPT_VALUE, "--ref-size N", "reference size in bytes (default: inferred)",
	  COMMON(ref_size), set_ref_size, "needs 4 or 8", "4 8" },
	{ "--header-size", NULL, OPT_VALUE, "--header-size N", "object header size in bytes (default: inferred)",
	  COMMON(header_size), set_header_size, "needs a size in bytes (0..64)", NULL },
	{ "--align", NULL, OPT_VALUE, "--align N", "object alignment in bytes (default: inferred)",
	  COMMON(align), set_align, "needs a power of two from 1 to 256", "1 2 4 8 16 32 64 128 256" },
	{ NULL }
};

const struct cli_option cli_opts_policy[] = {
	{ "--weak", NULL, OPT_VALUE, "--weak=POLICY",
	  "follow (HotSpot default), skip (soft, weak, final and\n"
	  "phantom referents are not references) or skip-weak\n"
	  "(soft referents followed; Android default)",
	  COMMON(weak), set_weak, "needs a value: follow, skip or skip-weak", "follow skip skip-weak" },
	{ "--roots", NULL, OPT_VALUE, "--roots=POLICY",
	  "threads (HotSpot default: a thread retains its stack\n"
	  "locals), all (every root under the super-root) or\n"
	  "unreachable-as-roots (threads, then every object no root\n"
	  "reaches is a root: a dump cut before its GC roots)",
	  COMMON(roots), set_roots, "needs a value: threads, all or unreachable-as-roots",
	  "threads all unreachable-as-roots" },
	{ NULL }
};

const struct cli_option cli_opts_all_weak[] = {
	{ "--all-weak", NULL, OPT_FLAG, "--all-weak",
	  "paths may go through the referents of soft, weak,\nfinal and phantom references",
	  COMMON(all_weak), NULL, NULL, NULL },
	{ NULL }
};

#define PATH_STR_(v) #v
#define PATH_STR(v) PATH_STR_(v)
const struct cli_option cli_opts_full_path[] = {
	{ "--full-path", NULL, OPT_FLAG, "--full-path",
	  "every step of a long path (by default the first " PATH_STR(HP_PATH_HEAD) "\nand the last " PATH_STR(HP_PATH_TAIL) ", and how many are left out between)",
	  COMMON(full_path), NULL, NULL, NULL },
	{ NULL }
};
#undef PATH_STR_
#undef PATH_STR

const struct cli_option cli_opts_filter[] = {
	{ "--filter", NULL, OPT_VALUE, "--filter RE", "only classes whose name matches the PCRE2 pattern RE\n(a class name such as A$B or int[] matches literally)",
	  COMMON(filter), NULL, "needs a regular expression", NULL },
	{ "--exclude", NULL, OPT_VALUE, "--exclude RE", "leave out classes whose name matches RE",
	  COMMON(exclude), NULL, "needs a regular expression", NULL },
	{ NULL }
};

/* ---- lookup --------------------------------------------------------------- */

/* arg is the option itself, or it followed by "=value" (long options) */
static int names(const char *arg, const char *name, const char **val)
{
	size_t n = strlen(name);
	if (strncmp(arg, name, n))
		return 0;
	if (arg[n] == '\0') {
		*val = NULL;
		return 1;
	}
	if (arg[n] == '=' && name[1] == '-') {
		*val = arg + n + 1;
		return 1;
	}
	return 0;
}

static const struct cli_option *find_in(const struct cli_option *t, const char *arg, const char **val)
{
	for (; t->name; t++)
		if (names(arg, t->name, val) || (t->alias && names(arg, t->alias, val)))
			return t;
	return NULL;
}

const struct cli_option *cli_option_find(const struct cli_command *c, const char *arg, const char **val)
{
	for (const struct cli_option *const *t = c->options; *t; t++) {
		const struct cli_option *o = find_in(*t, arg, val);
		if (o)
			return o;
	}
	return NULL;
}

const struct cli_option *cli_option_any(const char *arg, const char **val)
{
	for (const struct cli_command *const *c = cli_commands; *c; c++) {
		const struct cli_option *o = cli_option_find(*c, arg, val);
		if (o)
			return o;
	}
	return NULL;
}

int cli_option_set(const struct cli_option *o, const char *as, const char *val, struct cli_common *c, void *own)
{
	char *dst = (o->common ? (char *)c : (char *)own) + o->off;
	if (o->set)
		return o->set(o, as, val, dst);
	if (o->kind == OPT_FLAG)
		*(int *)dst = 1;
	else
		*(const char **)dst = val;
	return EXIT_OK;
}

/* ---- help ----------------------------------------------------------------- */

static void help_line(FILE *f, const struct cli_option *o)
{
	char spec[64];
	if (o->alias && o->alias[1] != '-')
		snprintf(spec, sizeof spec, "%s, %s", o->alias, o->spec);
	else
		snprintf(spec, sizeof spec, "%s", o->spec);
	const char *h = o->help;
	int first = 1;
	while (*h) {
		const char *nl = strchr(h, '\n');
		size_t n = nl ? (size_t)(nl - h) : strlen(h);
		if (first && strlen(spec) < 21)
			fprintf(f, "  %-21s  %.*s\n", spec, (int)n, h);
		else if (first)
			fprintf(f, "  %s\n  %-21s  %.*s\n", spec, "", (int)n, h);
		else
			fprintf(f, "  %-21s  %.*s\n", "", (int)n, h);
		first = 0;
		h += n + (nl ? 1 : 0);
	}
}

void cli_help_options(FILE *f, const struct cli_command *c)
{
	for (const struct cli_option *const *t = c->options; *t; t++)
		for (const struct cli_option *o = *t; o->name; o++)
			help_line(f, o);
}
