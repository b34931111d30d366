/* hprofan: argv, the command table, exit codes. */
#include "cli/cli.h"
#include "parser/alloc.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define HPROFAN_VERSION "0.1.0"

static const struct cli_cmd commands[] = {
	{ "top", "hprofan [top] FILE [--top [N]] [--sort=retained|shallow|count|name] [--fast] [--filter RE] [--exclude RE] [--heap NAME]", cmd_top },
	{ "info", "hprofan info FILE [options]", cmd_info },
	{ "dominators", "hprofan dominators FILE [--depth D] [--group=class] [--top N]", cmd_dominators },
	{ "roots", "hprofan roots FILE [--top N]", cmd_roots },
	{ "object", "hprofan object FILE ID [--top N] [--all-weak]", cmd_object },
	{ "path", "hprofan path FILE ID [--top N] [--all-weak]", cmd_path },
	{ "browse", "hprofan browse FILE [options]", cmd_browse },
};

static const char usage_text[] =
"usage: hprofan [top] FILE [--top [N]] [options]  class histogram (default 20 rows)\n"
"       hprofan info FILE [options]             what the dump holds\n"
"       hprofan dominators FILE [options]       the top of the dominator tree\n"
"       hprofan roots FILE [options]            GC roots and what they retain\n"
"       hprofan object FILE ID [options]        one object: fields, referrers, path\n"
"       hprofan path FILE ID [options]          shortest paths from GC roots to ID\n"
"       hprofan browse FILE [options]           browse interactively (also: FILE -i)\n"
"       hprofan help [COMMAND] | --help | --version\n"
"\n"
"FILE is an HPROF heap dump: plain, gzip (also jcmd -gz), or - for standard input.\n"
"\n"
"options:\n"
"  --top [N]              show the N largest rows (default 20; 0 shows all)\n"
"  --sort=KEY             retained (default), shallow (default with --fast),\n"
"                         count or name\n"
"  --fast                 shallow sizes only, in one streaming pass\n"
"  --filter RE            only classes whose name matches the PCRE2 pattern RE\n"
"  --exclude RE           leave out classes whose name matches RE\n"
"  --heap NAME            Android: only the objects of heap NAME (app, zygote, image)\n"
"  --dump N               analyse heap dump N of the file (0-based; default 0)\n"
"  --size-model=MODEL     mat (HotSpot default), ahat (Android default), raw,\n"
"                         visualvm or netbeans\n"
"  --ref-size N           reference size in bytes (default: inferred)\n"
"  --header-size N        object header size in bytes (default: inferred)\n"
"  --align N              object alignment in bytes (default: inferred)\n"
"  --weak=POLICY          follow (HotSpot default), skip (soft, weak, final and\n"
"                         phantom referents are not references) or skip-weak\n"
"                         (soft referents followed; Android default)\n"
"  --roots=POLICY         threads (HotSpot default: a thread retains its stack\n"
"                         locals) or all (every root under the super-root)\n"
"  --depth D              dominators: levels of the tree to show (default 1)\n"
"  --group=class          dominators: merge same-class siblings\n"
"  --retained-set         top: also the retained set of all objects of the rows\n"
"                         selected (what would be freed without them)\n"
"  --all-weak             object, path: paths may go through the referents of\n"
"                         soft, weak, final and phantom references\n"
"  -i                     browse the dump interactively (hprofan browse FILE)\n"
"  --json                 write JSON (schema hprofan/1) instead of a table\n"
"  -o FILE                write the output to FILE (atomically)\n"
"  --salvage              analyse a truncated or corrupt dump up to the break\n"
"  --quiet                no progress display\n"
"  --max-memory SIZE      refuse to build a model larger than SIZE and say how\n"
"                         much it needs; SIZE is bytes, or with K, M, G, T (or\n"
"                         KiB, MiB, GiB, TiB: powers of two) or kB, MB, GB, TB\n"
"                         (powers of ten)\n"
"  --stats                print time, throughput and peak memory on stderr\n"
"  -h, --help             this help\n"
"  --version              the version\n"
"\n"
"exit status: 0 success, 1 bad or corrupt input, 2 usage error, 3 truncated dump,\n"
"4 out of memory.\n";

static int usage_error(const char *fmt, const char *arg)
{
	fputs("hprofan: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\nhprofan: try 'hprofan --help'\n", stderr);
	return EXIT_USAGE;
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
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

static int is_number(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

/* --name=value or --name value */
static const char *optval(int argc, char **argv, int *i, const char *name)
{
	size_t n = strlen(name);
	const char *a = argv[*i];
	if (strncmp(a, name, n) == 0 && a[n] == '=')
		return a + n + 1;
	if (strcmp(a, name) == 0 && *i + 1 < argc)
		return argv[++*i];
	return NULL;
}

static int matches(const char *a, const char *name)
{
	size_t n = strlen(name);
	return strncmp(a, name, n) == 0 && (a[n] == '\0' || a[n] == '=');
}

int main(int argc, char **argv)
{
	struct cli_opts o;
	memset(&o, 0, sizeof o);
	o.top = 20;
	o.weak = -1;
	o.roots = -1;
	o.depth = 1;
	const char *positional[4];
	int npos = 0;
	int help = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v;
		if (a[0] != '-' || strcmp(a, "-") == 0) {
			if (npos >= 4)
				return usage_error("too many arguments: %s", a);
			positional[npos++] = a;
			continue;
		}
		if (strcmp(a, "--") == 0) {
			while (++i < argc && npos < 4)
				positional[npos++] = argv[i];
			break;
		}
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			help = 1;
		} else if (strcmp(a, "--version") == 0) {
			printf("hprofan %s\n", HPROFAN_VERSION);
			return EXIT_OK;
		} else if (matches(a, "--top")) {
			o.top_given = 1;
			if (a[5] == '=') {
				if (parse_int(a + 6, 0, INT_MAX, &o.top))
					return usage_error("--top: expected a number, got '%s'", a + 6);
			} else if (i + 1 < argc && is_number(argv[i + 1])) {
				if (parse_int(argv[++i], 0, INT_MAX, &o.top))
					return usage_error("--top: number too large: %s", argv[i]);
			}
		} else if (matches(a, "--sort")) {
			if (!(v = optval(argc, argv, &i, "--sort")))
				return usage_error("%s needs a value: count, shallow or name", a);
			o.sort = v;
		} else if (matches(a, "--filter")) {
			if (!(v = optval(argc, argv, &i, "--filter")))
				return usage_error("%s needs a regular expression", a);
			o.filter = v;
		} else if (matches(a, "--exclude")) {
			if (!(v = optval(argc, argv, &i, "--exclude")))
				return usage_error("%s needs a regular expression", a);
			o.exclude = v;
		} else if (matches(a, "--heap")) {
			if (!(v = optval(argc, argv, &i, "--heap")))
				return usage_error("%s needs a heap name", a);
			o.heap = v;
		} else if (matches(a, "--dump")) {
			if (!(v = optval(argc, argv, &i, "--dump")) || parse_int(v, 0, INT_MAX, &o.dump_index))
				return usage_error("%s needs a dump number (0, 1, ...)", a);
		} else if (matches(a, "--size-model")) {
			if (!(v = optval(argc, argv, &i, "--size-model")))
				return usage_error("%s needs a value: mat, ahat, raw, visualvm or netbeans", a);
			if (!strcmp(v, "mat"))
				o.size_kind = HP_SIZE_MAT;
			else if (!strcmp(v, "ahat"))
				o.size_kind = HP_SIZE_AHAT;
			else if (!strcmp(v, "raw"))
				o.size_kind = HP_SIZE_RAW;
			else if (!strcmp(v, "visualvm"))
				o.size_kind = HP_SIZE_VISUALVM;
			else if (!strcmp(v, "netbeans"))
				o.size_kind = HP_SIZE_NETBEANS;
			else
				return usage_error("--size-model=%s: expected mat, ahat, raw, visualvm or netbeans", v);
		} else if (matches(a, "--ref-size")) {
			if (!(v = optval(argc, argv, &i, "--ref-size")) || parse_int(v, 4, 8, &o.ref_size) ||
			    (o.ref_size != 4 && o.ref_size != 8))
				return usage_error("%s needs 4 or 8", a);
		} else if (matches(a, "--header-size")) {
			if (!(v = optval(argc, argv, &i, "--header-size")) || parse_int(v, 0, 64, &o.header_size))
				return usage_error("%s needs a size in bytes (0..64)", a);
		} else if (matches(a, "--align")) {
			if (!(v = optval(argc, argv, &i, "--align")) || parse_int(v, 1, 256, &o.align) ||
			    (o.align & (o.align - 1)))
				return usage_error("%s needs a power of two from 1 to 256", a);
		} else if (matches(a, "--weak")) {
			if (!(v = optval(argc, argv, &i, "--weak")))
				return usage_error("%s needs a value: follow, skip or skip-weak", a);
			if (!strcmp(v, "follow"))
				o.weak = HP_WEAK_FOLLOW;
			else if (!strcmp(v, "skip"))
				o.weak = HP_WEAK_SKIP;
			else if (!strcmp(v, "skip-weak"))
				o.weak = HP_WEAK_SKIP_WEAK;
			else
				return usage_error("--weak=%s: expected follow, skip or skip-weak", v);
		} else if (matches(a, "--roots")) {
			if (!(v = optval(argc, argv, &i, "--roots")))
				return usage_error("%s needs a value: threads or all", a);
			if (!strcmp(v, "threads"))
				o.roots = HP_ROOTS_THREADS;
			else if (!strcmp(v, "all"))
				o.roots = HP_ROOTS_ALL;
			else
				return usage_error("--roots=%s: expected threads or all", v);
		} else if (matches(a, "--depth")) {
			if (!(v = optval(argc, argv, &i, "--depth")) || parse_int(v, 1, 1000, &o.depth))
				return usage_error("%s needs a number of levels (1..1000)", a);
		} else if (matches(a, "--group")) {
			if (!(v = optval(argc, argv, &i, "--group")) || strcmp(v, "class"))
				return usage_error("%s: the only grouping is --group=class", a);
			o.group_class = 1;
		} else if (strcmp(a, "--retained-set") == 0) {
			o.retained_set = 1;
		} else if (strcmp(a, "--all-weak") == 0) {
			o.all_weak = 1;
		} else if (strcmp(a, "-i") == 0) {
			o.interactive = 1;
		} else if (strcmp(a, "--json") == 0) {
			o.json = 1;
		} else if (strcmp(a, "-o") == 0 || matches(a, "--output")) {
			if (strcmp(a, "-o") == 0) {
				if (i + 1 >= argc)
					return usage_error("%s needs a file name", a);
				o.output = argv[++i];
			} else if (!(o.output = optval(argc, argv, &i, "--output"))) {
				return usage_error("%s needs a file name", a);
			}
		} else if (strcmp(a, "--salvage") == 0) {
			o.salvage = 1;
		} else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
			o.quiet = 1;
		} else if (strcmp(a, "--stats") == 0) {
			o.stats = 1;
		} else if (matches(a, "--max-memory")) {
			if (!(v = optval(argc, argv, &i, "--max-memory")))
				return usage_error("%s needs a size (such as 512M or 4G)", a);
			if (parse_size(v, &o.max_memory))
				return usage_error("--max-memory %s: expected a size of more than 0 bytes, "
						   "such as 512M, 4G or 1.5GiB", v);
		} else if (strcmp(a, "--fast") == 0) {
			o.fast = 1;
		} else {
			return usage_error("unknown option: %s", a);
		}
	}

	const struct cli_cmd *cmd = NULL;
	int first = 0;
	if (npos > 0) {
		if (strcmp(positional[0], "help") == 0) {
			if (npos > 1) {
				for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++)
					if (strcmp(commands[k].name, positional[1]) == 0) {
						printf("usage: %s\n", commands[k].usage);
						return EXIT_OK;
					}
				return usage_error("help: no such command: %s", positional[1]);
			}
			fputs(usage_text, stdout);
			return EXIT_OK;
		}
		for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++)
			if (strcmp(commands[k].name, positional[0]) == 0) {
				cmd = &commands[k];
				first = 1;
			}
	}
	if (help) {
		if (cmd)
			printf("usage: %s\n", cmd->usage);
		else
			fputs(usage_text, stdout);
		return EXIT_OK;
	}
	if (!cmd)
		cmd = &commands[0];
	if (o.interactive) {
		if (first && cmd->run != cmd_browse)
			return usage_error("-i browses the dump; it does not go with '%s'", cmd->name);
		for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++)
			if (commands[k].run == cmd_browse)
				cmd = &commands[k];
	}
	/* object and path take an object id after the file */
	int want_id = cmd->run == cmd_object || cmd->run == cmd_path;
	if (want_id && npos - first == 1)
		return usage_error("missing the object id: hprofan %s FILE ID", cmd->name);
	if (want_id && npos - first == 2)
		o.object_id = positional[--npos];
	if (npos - first < 1)
		return usage_error("%s", npos ? "missing the dump file" : "missing the dump file: hprofan FILE --top");
	if (npos - first > 1)
		return usage_error("unexpected argument: %s", positional[first + 1]);
	o.file = positional[first];
	o.command = cmd->name;
	/* from here on every allocation counts against the limit */
	if (o.max_memory)
		hp_alloc_set_limit(o.max_memory);
	int rc = cmd->run(&o);
	if (rc == EXIT_NOMEM)
		cli_limit_hit(o.file);
	return rc;
}
