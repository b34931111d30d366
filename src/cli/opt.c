/* opt.c — options: the shared tables and rules, value parsers, lookup, the
 * rule check, and help's spec, lines and usage made from the tables. */
#include "cli/command.h"
#include "cli/msg.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

int cli_parse_int(const char *s, long lo, long hi, int *out)
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

/* ---- choices -------------------------------------------------------------- */

/* "a, b, c or d" (with notes: "a (note), b or c"), into buf */
static const char *choice_list(const struct cli_choice *c, int notes, char *buf, size_t n)
{
	size_t len = 0, k = 0;
	buf[0] = '\0';
	while (c[k].name)
		k++;
	for (size_t i = 0; i < k; i++) {
		const char *sep = i == 0 ? "" : i + 1 == k ? " or " : ", ";
		int w;
		if (notes && c[i].note)
			w = snprintf(buf + len, n - len, "%s%s (%s)", sep, c[i].name, c[i].note);
		else
			w = snprintf(buf + len, n - len, "%s%s", sep, c[i].name);
		if (w < 0 || (size_t)w >= n - len)
			break;
		len += (size_t)w;
	}
	return buf;
}

const char *cli_choice_name(const struct cli_choice *list, int v)
{
	for (; list && list->name; list++)
		if (list->value == v)
			return list->name;
	return NULL;
}

int cli_set_choice(const struct cli_option *o, const char *as, const char *val, void *dst)
{
	for (const struct cli_choice *c = o->choices; c->name; c++)
		if (!strcmp(val, c->name)) {
			*(int *)dst = c->value;
			return EXIT_OK;
		}
	char list[256];
	return cli_usage_error(NULL, "%s=%s: not one of %s", o->name, val, choice_list(o->choices, 0, list, sizeof list));
}

int cli_option_missing(const struct cli_option *o, const char *as)
{
	char list[256];
	if (o->kind == OPT_CHOICE)
		return cli_usage_error(NULL, "%s needs one of: %s", as, choice_list(o->choices, 0, list, sizeof list));
	return cli_usage_error(NULL, "%s %s", as, o->needs);
}

/* ---- value parsers ------------------------------------------------------ */

int cli_set_count(const struct cli_option *o, const char *as, const char *val, void *dst)
{
	struct cli_count *c = dst;
	c->given = 1;
	if (!val)
		return EXIT_OK;     /* --top alone: the default number */
	if (cli_parse_int(val, 0, INT_MAX, &c->n)) {
		size_t k = strspn(val, "0123456789");
		if (k && !val[k])
			return cli_usage_error(NULL, "%s: number too large: %s", o->name, val);
		return cli_usage_error(NULL, "%s: expected a number, got '%s'", o->name, val);
	}
	return EXIT_OK;
}

/* N, or "all": every heap dump of the file as one heap (-1), as ahat reads them */
static int set_dump(const struct cli_option *o, const char *as, const char *val, void *dst)
{
	if (!strcmp(val, "all")) {
		*(int *)dst = -1;
		return EXIT_OK;
	}
	return cli_parse_int(val, 0, INT_MAX, dst) ? bad("%s needs a dump number (0, 1, ...) or all", as) : EXIT_OK;
}

static int set_ref_size(const struct cli_option *o, const char *as, const char *val, void *dst)
{
	int v;
	if (cli_parse_int(val, 4, 8, &v) || (v != 4 && v != 8))
		return bad("%s needs 4 or 8", as);
	*(int *)dst = v;
	return EXIT_OK;
}

static int set_header_size(const struct cli_option *o, const char *as, const char *val, void *dst)
{
	return cli_parse_int(val, 0, 64, dst) ? bad("%s needs a size in bytes (0..64)", as) : EXIT_OK;
}

static int set_align(const struct cli_option *o, const char *as, const char *val, void *dst)
{
	int v;
	if (cli_parse_int(val, 1, 256, &v) || (v & (v - 1)))
		return bad("%s needs a power of two from 1 to 256", as);
	*(int *)dst = v;
	return EXIT_OK;
}

/*
 * --max-memory SIZE: digits, an optional fraction, an optional unit.  K, M,
 * G, T (either case) and KiB, MiB, GiB, TiB are powers of 1024, as the sizes
 * hprofan prints are; kB/KB, MB, GB, TB powers of 1000 (as GNU tools read
 * them); B or nothing is bytes.  A fraction (1.5G) is rounded down to a
 * byte; a fraction of a byte and anything else are refused, and 0 unless
 * zero_ok (check's budgets allow a limit of 0 bytes).
 */
int cli_parse_size(const char *s, int zero_ok, uint64_t *out)
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
		if (whole * m > UINT64_MAX - part || (!zero_ok && whole * m + part == 0))
			return -1;
		*out = whole * m + part;
		return 0;
	}
	return -1;
}

static int set_max_memory(const struct cli_option *o, const char *as, const char *val, void *dst)
{
	if (cli_parse_size(val, 0, dst))
		return bad("--max-memory %s: expected a size of more than 0 bytes, such as 512M, 4G or 1.5GiB", val);
	return EXIT_OK;
}

/* ---- the shared tables ---------------------------------------------------- */

const struct cli_option cli_opts_output[] = {
	{ .name = "--json", .kind = OPT_FLAG, .flags = OPTF_GENERAL,
	  .help = "write JSON (schema hprofan/1) instead of a table", OPT_COMMON(json) },
	OPT_OUTPUT,
	OPT_STATS,
	OPT_END
};

const struct cli_option cli_opts_quiet[] = {
	{ .name = "--quiet", .alias = "-q", .kind = OPT_FLAG, .flags = OPTF_GENERAL,
	  .help = "no progress display", OPT_COMMON(quiet) },
	OPT_END
};

/* the load options but --mapping, in help's order around it */
#define LOAD_OPTS_HEAD \
	OPT_CALLBACK_F("--dump", "N", set_dump, \
		       "analyse heap dump N of the file (0-based; default 0), or\n" \
		       "all of them merged, as ahat reads them (an object a later\n" \
		       "dump repeats is taken once, from the first)", \
		       "needs a dump number (0, 1, ...) or all", \
		       "all", OPTF_GENERAL, OPT_COMMON(dump_index)), \
	{ .name = "--salvage", .kind = OPT_FLAG, .flags = OPTF_GENERAL, \
	  .help = "analyse a truncated or corrupt dump up to the break", OPT_COMMON(salvage) }, \
	OPT_CALLBACK_F("--max-memory", "SIZE", set_max_memory, \
		       "refuse to build a model larger than SIZE and say how\n" \
		       "much it needs; SIZE is bytes, or with K, M, G, T (or\n" \
		       "KiB, MiB, GiB, TiB: powers of two) or kB, MB, GB, TB\n" \
		       "(powers of ten)", \
		       "needs a size (such as 512M or 4G)", NULL, OPTF_GENERAL, OPT_COMMON(max_memory))
#define LOAD_OPTS_TAIL \
	{ .name = "--no-index", .kind = OPT_FLAG, .flags = OPTF_GENERAL, \
	  .help = "neither read nor write the dump's index\n(FILE.hprofan-index; see hprofan index)", \
	  OPT_COMMON(no_index) }, \
	OPT_STRING_F("--index-dir", "DIR", \
		     "keep the dump's index in DIR (made if missing), named\n" \
		     "after the dump and a hash of its path, instead of\n" \
		     "beside it ($HPROFAN_INDEX_DIR does the same)", \
		     "needs a directory", OPTF_FILE | OPTF_GENERAL, OPT_COMMON(index_dir))

const struct cli_option cli_opts_load[] = {
	LOAD_OPTS_HEAD,
	OPT_STRING_F("--mapping", "FILE",
		     "an R8/ProGuard mapping.txt: show the original names\nof classes, fields and stack frames",
		     "needs a mapping file (R8/ProGuard mapping.txt)", OPTF_FILE | OPTF_GENERAL, OPT_COMMON(mapping)),
	LOAD_OPTS_TAIL,
	OPT_END
};

/* the same without --mapping: for a command that shows no name a mapping
 * could change (bitmaps: android.graphics.Bitmap is never obfuscated;
 * index: no index is written under a mapping) */
const struct cli_option cli_opts_load_unmapped[] = {
	LOAD_OPTS_HEAD,
	LOAD_OPTS_TAIL,
	OPT_END
};
#undef LOAD_OPTS_HEAD
#undef LOAD_OPTS_TAIL

static const struct cli_choice size_models[] = {
	{ "vm", HP_SIZE_VM, "HotSpot default when the addresses show the layout" },
	{ "mat", HP_SIZE_MAT, "HotSpot default otherwise" },
	{ "ahat", HP_SIZE_AHAT, "Android default" },
	{ "raw", HP_SIZE_RAW, NULL },
	{ "visualvm", HP_SIZE_VISUALVM, NULL },
	{ "netbeans", HP_SIZE_NETBEANS, NULL },
	{ NULL, 0, NULL }
};

const struct cli_option cli_opts_model[] = {
	{ .name = "--size-model", .kind = OPT_CHOICE, .arg = "MODEL", .choices = size_models, .set = cli_set_choice,
	  .flags = OPTF_GENERAL, OPT_COMMON(size_kind) },
	OPT_CALLBACK_F("--ref-size", "N", set_ref_size,
		       "reference size in bytes (default: inferred)", "needs 4 or 8", "4 8", OPTF_GENERAL, OPT_COMMON(ref_size)),
	OPT_CALLBACK_F("--header-size", "N", set_header_size,
		       "object header size in bytes (default: inferred)", "needs a size in bytes (0..64)", NULL,
		       OPTF_GENERAL, OPT_COMMON(header_size)),
	OPT_CALLBACK_F("--align", "N", set_align,
		       "object alignment in bytes (default: inferred)", "needs a power of two from 1 to 256",
		       "1 2 4 8 16 32 64 128 256", OPTF_GENERAL, OPT_COMMON(align)),
	OPT_END
};

static const struct cli_choice weak_policies[] = {
	{ "follow", HP_WEAK_FOLLOW, "HotSpot default" },
	{ "skip", HP_WEAK_SKIP, "soft, weak, final and phantom referents are not references" },
	{ "skip-weak", HP_WEAK_SKIP_WEAK, "soft referents followed; Android default" },
	{ NULL, 0, NULL }
};

static const struct cli_choice root_policies[] = {
	{ "threads", HP_ROOTS_THREADS, "HotSpot default: a thread retains its stack locals" },
	{ "all", HP_ROOTS_ALL, "every root under the super-root" },
	{ "unreachable-as-roots", HP_ROOTS_UNREACHABLE,
	  "threads, then every object no root reaches is a root: a dump cut before its GC roots" },
	{ NULL, 0, NULL }
};

const struct cli_option cli_opts_policy[] = {
	{ .name = "--weak", .kind = OPT_CHOICE, .arg = "POLICY", .choices = weak_policies, .set = cli_set_choice,
	  .flags = OPTF_GENERAL, OPT_COMMON(weak) },
	{ .name = "--roots", .kind = OPT_CHOICE, .arg = "POLICY", .choices = root_policies, .set = cli_set_choice,
	  .flags = OPTF_GENERAL, OPT_COMMON(roots) },
	OPT_END
};

const struct cli_option cli_opts_all_weak[] = {
	OPT_BOOL("--all-weak",
		 "paths may go through the referents of soft, weak,\nfinal and phantom references", OPT_COMMON(all_weak)),
	OPT_END
};

#define PATH_STR_(v) #v
#define PATH_STR(v) PATH_STR_(v)
const struct cli_option cli_opts_full_path[] = {
	OPT_BOOL("--full-path",
		 "every step of a long path (by default the first " PATH_STR(HP_PATH_HEAD) "\nand the last "
		 PATH_STR(HP_PATH_TAIL) ", and how many are left out between)", OPT_COMMON(full_path)),
	OPT_END
};
#undef PATH_STR_
#undef PATH_STR

const struct cli_option cli_opts_filter[] = {
	OPT_FILTER("only classes whose name matches the PCRE2 pattern RE\n(a class name such as A$B or int[] matches literally)"),
	OPT_EXCLUDE("leave out classes whose name matches RE"),
	OPT_END
};

/* ---- the shared rules ----------------------------------------------------- */

const struct cli_rule cli_rules_components[] = {
	RULE_NEEDS("--group=component", "--components", "the components are lines NAME REGEX of a file"),
	RULE_ONLY_WITH("--components", "--group=component", "it goes with --group=component (the default with it)"),
	RULE_END
};

const struct cli_rule cli_rules_fast_loader[] = {
	RULE_EXCLUDES("--group=loader", "--fast", "it needs the loaders' objects, which --fast does not read"),
	RULE_END
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

/* ---- rules ---------------------------------------------------------------- */

/* One side of a rule ("--name" or "--name=value") against the options
 * given: 1 when it holds; *o is the option it names, *last the value its
 * last occurrence was given (NULL for a flag), *present whether it was
 * given at all.  -1 when the command has no such option. */
static int side(const struct cli_command *c, const char *spec, const struct cli_given *g, size_t n,
		const struct cli_option **o, const char **last, int *present)
{
	const char *want;
	if (!(*o = cli_option_find(c, spec, &want)))
		return -1;
	*present = 0;
	*last = NULL;
	for (size_t i = n; i-- > 0;)
		if (g[i].o == *o) {
			*present = 1;
			*last = g[i].val;
			break;
		}
	if (!*present)
		return 0;
	return !want || (*last && !strcmp(*last, want));
}

int cli_rules_check(const struct cli_command *c, const struct cli_given *g, size_t n)
{
	for (const struct cli_rule *const *t = c->rules; t && *t; t++)
		for (const struct cli_rule *r = *t; r->kind; r++) {
			const struct cli_option *oa, *ob;
			const char *va, *vb;
			int pa, pb;
			int ha = side(c, r->a, g, n, &oa, &va, &pa), hb = side(c, r->b, g, n, &ob, &vb, &pb);
			if (ha <= 0)
				continue;
			if (r->kind == CLI_RULE_NEEDS && hb == 0)
				return cli_usage_error(c->name, "%s needs %s: %s", r->a, r->b, r->why);
			if (r->kind == CLI_RULE_EXCLUDES && hb > 0)
				return cli_usage_error(c->name, "%s does not go with %s: %s", r->a, r->b, r->why);
			if (r->kind == CLI_RULE_ONLY_WITH && hb == 0 && pb)
				return cli_usage_error(c->name, "%s does not go with %s%s%s: %s", r->a, ob->name,
						       vb ? "=" : "", vb ? vb : "", r->why);
		}
	return EXIT_OK;
}

/* ---- help ----------------------------------------------------------------- */

/* help's text column: 2 + 21 + 2 characters in, 54 wide */
enum { HELP_WIDTH = 54 };

const char *cli_option_spec(const struct cli_option *o, char *buf, size_t n)
{
	char vals[256];
	const char *arg = o->arg;
	if (o->kind == OPT_CHOICE && !arg) {
		size_t len = 0;
		vals[0] = '\0';
		for (const struct cli_choice *c = o->choices; c->name; c++) {
			int w = snprintf(vals + len, sizeof vals - len, "%s%s", len ? "|" : "", c->name);
			if (w < 0 || (size_t)w >= sizeof vals - len)
				break;
			len += (size_t)w;
		}
		arg = vals;
	}
	switch (o->kind) {
	case OPT_FLAG:
		snprintf(buf, n, "%s", o->name);
		break;
	case OPT_OPTNUM:
		snprintf(buf, n, "%s [%s]", o->name, arg);
		break;
	case OPT_OPTVALUE:
		snprintf(buf, n, "%s[=%s]", o->name, arg);
		break;
	case OPT_CHOICE:
		snprintf(buf, n, "%s=%s", o->name, arg);
		break;
	default:
		snprintf(buf, n, "%s %s", o->name, arg);
	}
	return buf;
}

const char *cli_option_spec_full(const struct cli_option *o, char *buf, size_t n)
{
	char spec[256];
	cli_option_spec(o, spec, sizeof spec);
	if (o->alias && o->alias[1] != '-')
		snprintf(buf, n, "%s, %s", o->alias, spec);
	else
		snprintf(buf, n, "%s", spec);
	return buf;
}

/* text (no '\n') broken at spaces into lines of at most HELP_WIDTH */
static void wrap(char *text)
{
	size_t start = 0, len = strlen(text);
	while (len - start > HELP_WIDTH) {
		size_t cut = start + HELP_WIDTH;
		while (cut > start && text[cut] != ' ')
			cut--;
		if (cut == start) {      /* a word longer than the line */
			cut = start + HELP_WIDTH;
			while (cut < len && text[cut] != ' ')
				cut++;
			if (cut == len)
				break;
		}
		text[cut] = '\n';
		start = cut + 1;
	}
}

const char *cli_option_help(const struct cli_option *o, char *buf, size_t n)
{
	const char *h = o->help ? o->help : "%v";
	const char *v = o->kind == OPT_CHOICE ? strstr(h, "%v") : NULL;
	if (!v) {
		snprintf(buf, n, "%s", h);
		return buf;
	}
	char list[512];
	choice_list(o->choices, 1, list, sizeof list);
	snprintf(buf, n, "%.*s%s%s", (int)(v - h), h, list, v + 2);
	if (!strchr(buf, '\n'))
		wrap(buf);
	return buf;
}

static void help_line(FILE *f, const struct cli_option *o)
{
	char spec[256], text[1024];
	cli_option_spec_full(o, spec, sizeof spec);
	const char *h = cli_option_help(o, text, sizeof text);
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

void cli_help_usage(FILE *f, const struct cli_command *c)
{
	int general = 0;
	fputs(c->usage, f);
	for (const struct cli_option *const *t = c->options; *t; t++)
		for (const struct cli_option *o = *t; o->name; o++) {
			char spec[256];
			if (o->flags & OPTF_GENERAL) {
				general = 1;
				continue;
			}
			/* a choice shows its values here: --sort=a|b|c */
			if (o->kind == OPT_CHOICE) {
				struct cli_option w = *o;
				w.arg = NULL;
				cli_option_spec(&w, spec, sizeof spec);
			} else {
				cli_option_spec(o, spec, sizeof spec);
			}
			fprintf(f, " [%s]%s", spec, o->flags & OPTF_REPEAT ? "..." : "");
		}
	if (general)
		fputs(" [options]", f);
	if (c->rest)
		fprintf(f, " [-- %s]", c->rest);
	fputc('\n', f);
}

/* ---- checks of the tables --------------------------------------------------- */

static int check_side(const struct cli_command *c, const char *spec)
{
	const char *want;
	const struct cli_option *o = cli_option_find(c, spec, &want);
	if (!o || strncmp(spec, o->name, strlen(o->name))) {
		fprintf(stderr, "hprofan: %s: a rule names %s, which is not an option of the command\n", c->name, spec);
		return 1;
	}
	if (!want)
		return 0;
	for (const struct cli_choice *ch = o->kind == OPT_CHOICE ? o->choices : NULL; ch && ch->name; ch++)
		if (!strcmp(ch->name, want))
			return 0;
	fprintf(stderr, "hprofan: %s: a rule names %s, a value %s does not take\n", c->name, spec, o->name);
	return 1;
}

int cli_tables_check(void)
{
	int bad_ = 0;
	for (const struct cli_command *const *c = cli_commands; *c; c++) {
		for (const struct cli_rule *const *t = (*c)->rules; t && *t; t++)
			for (const struct cli_rule *r = *t; r->kind; r++)
				bad_ += check_side(*c, r->a) + check_side(*c, r->b);
		/* an option once per command, and each with what its kind needs */
		for (const struct cli_option *const *t = (*c)->options; *t; t++)
			for (const struct cli_option *o = *t; o->name; o++) {
				const char *v;
				if (cli_option_find(*c, o->name, &v) != o) {
					fprintf(stderr, "hprofan: %s: %s is in its tables twice\n", (*c)->name, o->name);
					bad_++;
				}
				if ((o->kind == OPT_CHOICE) != (o->choices != NULL) ||
				    (o->kind != OPT_FLAG && o->kind != OPT_CHOICE && !o->arg) ||
				    (o->kind == OPT_VALUE && !o->needs) || (!o->help && o->kind != OPT_CHOICE)) {
					fprintf(stderr, "hprofan: %s: %s is declared without what its kind needs\n",
						(*c)->name, o->name);
					bad_++;
				}
			}
	}
	return bad_ ? 1 : 0;
}
