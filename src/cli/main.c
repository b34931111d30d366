/* hprofan: argv, help, exit codes. */
#include "cli/command.h"
#include "cli/msg.h"
#include "cli/load.h"
#include "base/alloc.h"
#include "base/nearest.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* the command run without one, and the one -i runs (the table: commands.c) */
extern const struct cli_command cmd_top, cmd_browse;

/* ---- help --------------------------------------------------------------- */

/* "hprofan dominators FILE [options]" */
static void usage_of(const struct cli_command *c, char *u, size_t n)
{
	if (c == &cmd_top)
		snprintf(u, n, "hprofan [top] FILE [--top [N]] [options]");
	else
		snprintf(u, n, "%s [options]%s%s%s", c->usage, c->rest ? " [-- " : "", c->rest ? c->rest : "",
			 c->rest ? "]" : "");
}

static void usage_lines(FILE *f)
{
	int first = 1, w = 0;
	char u[160];
	for (const struct cli_command *const *c = cli_commands; *c; c++) {
		usage_of(*c, u, sizeof u);
		if ((int)strlen(u) > w)
			w = (int)strlen(u);
	}
	for (const struct cli_command *const *c = cli_commands; *c; c++) {
		usage_of(*c, u, sizeof u);
		fprintf(f, "%s %-*s  %s\n", first ? "usage:" : "      ", w, u, (*c)->summary);
		first = 0;
	}
	fprintf(f, "       %-*s  %s\n", w, "hprofan FILE -i [options]", "the same as hprofan browse FILE");
	fputs("       hprofan help [COMMAND] | --help | --version\n", f);
	fprintf(f, "       %-*s  %s\n", w, "hprofan completion bash|zsh", "the shell's completion script");
}

/* every option once, in the order of the commands' tables */
static void all_options(FILE *f)
{
	const struct cli_option *seen[128];
	size_t nseen = 0;
	for (const struct cli_command *const *c = cli_commands; *c; c++) {
		for (const struct cli_option *const *t = (*c)->options; *t; t++) {
			for (const struct cli_option *o = *t; o->name; o++) {
				size_t i;
				for (i = 0; i < nseen; i++)
					if (!strcmp(seen[i]->name, o->name))
						break;
				if (i < nseen || nseen == sizeof seen / sizeof seen[0])
					continue;
				seen[nseen++] = o;
			}
		}
	}
	/* the list, with the commands that take each option */
	for (size_t i = 0; i < nseen; i++) {
		const struct cli_option *o = seen[i];
		char who[1024] = "";   /* (25 commands and more take the load options) */
		size_t wl = 0, n = 0, all = 0;
		for (const struct cli_command *const *c = cli_commands; *c; c++, all++) {
			const char *v;
			if (!cli_option_find(*c, o->name, &v))
				continue;
			int k = snprintf(who + wl, sizeof who - wl, "%s%s", n ? ", " : "", (*c)->name);
			if (k > 0 && (size_t)k < sizeof who - wl)
				wl += (size_t)k;
			n++;
		}
		char spec[256];
		cli_option_spec_full(o, spec, sizeof spec);
		fprintf(f, "  %-21s  %s\n", spec, n == all ? "every command" : who);
	}
}

static int help(const struct cli_command *c)
{
	if (!c) {
		usage_lines(stdout);
		fputs("\n"
		      "FILE (and redact's IN) is an HPROF heap dump: plain, gzip (also jcmd -gz), or - for\n"
		      "standard input.\n"
		      "'hprofan help COMMAND' says what COMMAND's options do.\n"
		      "\n"
		      "options (and the commands that take them):\n", stdout);
		all_options(stdout);
		fputs("  -i                     hprofan FILE -i is hprofan browse FILE\n"
		      "  -h, --help             this help\n"
		      "  --version              the version\n"
		      "\n"
		      "exit status: 0 success, 1 bad or corrupt input, 2 usage error, 3 truncated dump,\n"
		      "4 out of memory or over --max-memory, 5 leaks --fail-on-leak found a zombie\n"
		      "or check found its budget broken.\n", stdout);
		return EXIT_OK;
	}
	char sum[200];
	snprintf(sum, sizeof sum, "%s", c->summary);
	if (c != &cmd_top && sum[0] >= 'a' && sum[0] <= 'z')
		sum[0] = (char)(sum[0] - 'a' + 'A');
	fputs("usage: ", stdout);
	cli_help_usage(stdout, c);
	printf("\n%s%s.\n\noptions:\n", c == &cmd_top ? "The default command: the " : "", sum);
	cli_help_options(stdout, c);
	return EXIT_OK;
}

/* ---- "did you mean" ------------------------------------------------------- */

/* the command nearest to word, or NULL when none is close */
static const struct cli_command *nearest(const char *word)
{
	struct hp_near n;
	hp_near_init(&n, word, 2, 0);
	for (const struct cli_command *const *c = cli_commands; *c; c++) {
		unsigned d = hp_near_distance(word, (*c)->name, 2, 0);
		size_t wl = strlen(word), cl = strlen((*c)->name);
		if (wl >= 3 && !strncmp(word, (*c)->name, wl < cl ? wl : cl))
			d = d < 1 ? d : 1;     /* a prefix: "dom", "dominator" */
		hp_near_offer_at(&n, (*c)->name, d);
	}
	return n.n ? cli_command_find(n.name[0]) : NULL;
}

/* The options of c nearest the unknown option arg (its name, before any
 * '='), into buf as "--top" or "--top, --stats"; how many (0: none is
 * close).  Near: one edit for a word of up to 4 letters, two for a longer
 * one, or the start of the name (3 letters or more). */
static size_t nearest_options(const struct cli_command *c, const char *arg, char *buf, size_t n)
{
	char word[64];
	snprintf(word, sizeof word, "%.*s", (int)strcspn(arg, "="), arg);
	size_t wl = strlen(word), letters = wl - strspn(word, "-");
	if (letters < 2)
		return 0;
	struct hp_near near;
	hp_near_init(&near, word, letters <= 4 ? 1 : 2, 0);
	for (const struct cli_option *const *t = c->options; *t; t++)
		for (const struct cli_option *o = *t; o->name; o++) {
			const char *names[2] = { o->name, o->alias };
			for (int i = 0; i < 2; i++) {
				if (!names[i] || names[i][1] != '-')
					continue;      /* short options: too short to guess */
				unsigned d = hp_near_distance(word, names[i], near.cap, 0);
				if (letters >= 3 && wl < strlen(names[i]) && !strncmp(word, names[i], wl))
					d = d < 1 ? d : 1;
				hp_near_offer_at(&near, names[i], d);
			}
		}
	return hp_near_join(&near, 0, 0, buf, n);
}

/* a word that is no file and looks like a command mistyped */
static int mistyped(const char *w, const struct cli_command **near)
{
	struct stat st;
	if (!strcmp(w, "-") || strchr(w, '/') || strchr(w, '.') || stat(w, &st) == 0)
		return 0;
	*near = nearest(w);
	return *near != NULL;
}

/* ---- argv ----------------------------------------------------------------- */

/* The option argv[*i] of command c (or, when c is NULL, of any command):
 * stores it and its value, advancing *i past a value in the next word, and
 * notes it in *g for the rules. */
static int take_option(const struct cli_command *c, int argc, char **argv, int *i, struct cli_common *com,
		       void *own, struct cli_given *g)
{
	const char *a = argv[*i], *val = NULL;
	const struct cli_option *o = cli_option_find(c, a, &val);
	if (!o) {
		if (cli_option_any(a, &val)) {
			char name[64];
			snprintf(name, sizeof name, "%.*s", (int)strcspn(a, "="), a);
			return cli_usage_error(c->name, "%s: %s is not an option of '%s'", c->name, name, c->name);
		}
		char near[200];
		if (nearest_options(c, a, near, sizeof near))
			return cli_usage_error(cli_named_command ? c->name : NULL, "unknown option: %.*s; did you mean %s?",
					       (int)strcspn(a, "="), a, near);
		return cli_usage_error(cli_named_command ? c->name : NULL, "unknown option: %s", a);
	}
	g->o = o;
	switch (o->kind) {
	case OPT_FLAG:
		if (val)
			return cli_usage_error(NULL, "%s takes no value", o->name);
		g->val = NULL;
		return cli_option_set(o, a, NULL, com, own);
	case OPT_OPTVALUE:
		break;
	case OPT_OPTNUM:
		if (!val && *i + 1 < argc && argv[*i + 1][0] >= '0' && argv[*i + 1][0] <= '9' &&
		    strspn(argv[*i + 1], "0123456789") == strlen(argv[*i + 1]))
			val = argv[++*i];
		break;
	default:
		if (!val) {
			if (*i + 1 >= argc)
				return cli_option_missing(o, a);
			val = argv[++*i];
		}
	}
	g->val = val;
	return cli_option_set(o, a, val, com, own);
}

/* whether argv[i], an option, takes the next word as its value (for the
 * scan that finds the command before its options are known) */
static int takes_next(int argc, char **argv, int i)
{
	const char *val;
	const struct cli_option *o = cli_option_any(argv[i], &val);
	if (!o || val || i + 1 >= argc)
		return 0;
	if (o->kind == OPT_VALUE || o->kind == OPT_CHOICE)
		return 1;
	return o->kind == OPT_OPTNUM && argv[i + 1][0] >= '0' && argv[i + 1][0] <= '9' &&
	       strspn(argv[i + 1], "0123456789") == strlen(argv[i + 1]);
}

int cli_argc;
char **cli_argv;

int main(int argc, char **argv)
{
	return cli_main(argc, argv);
}

int cli_main(int argc, char **argv)
{
	cli_argc = argc;
	cli_argv = argv;
	cli_named_command = NULL;
	/* the first pass: the command, help, version, -i */
	int first = -1, want_help = 0, interactive = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			if (first < 0 && i + 1 < argc)
				first = i + 1;
			break;
		}
		if (a[0] != '-' || !strcmp(a, "-")) {
			if (first < 0)
				first = i;
			continue;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			want_help = 1;
		else if (!strcmp(a, "--version")) {
			printf("hprofan %s\n", HPROFAN_VERSION);
			return EXIT_OK;
		} else if (!strcmp(a, "-i"))
			interactive = 1;
		else if (takes_next(argc, argv, i))
			i++;
	}
	const struct cli_command *cmd = NULL;
	int explicit = 0;
	if (first >= 0 && !strcmp(argv[first], "completion")) {
		if (first + 2 != argc)
			return cli_usage_error(NULL, "completion needs one word: bash or zsh");
		return cli_completion(argv[first + 1]);
	}
	if (first >= 0 && !strcmp(argv[first], "help")) {
		for (int i = first + 1; i < argc; i++) {
			if (argv[i][0] == '-')
				continue;
			const struct cli_command *c = cli_command_find(argv[i]), *near;
			if (c)
				return help(c);
			if (!strcmp(argv[i], "completion")) {
				fputs("usage: hprofan completion bash|zsh\n\n"
				      "The completion script of bash or zsh, made from the commands' option tables:\n"
				      "  source <(hprofan completion bash)\n", stdout);
				return EXIT_OK;
			}
			if ((near = nearest(argv[i])))
				return cli_usage_error(NULL, "help: unknown command '%s'; did you mean '%s'?", argv[i], near->name);
			return cli_usage_error(NULL, "help: no such command: %s", argv[i]);
		}
		return help(NULL);
	}
	if (first >= 0 && (cmd = cli_command_find(argv[first])))
		explicit = 1;
	if (want_help)
		return help(cmd);
	if (explicit)
		cli_named_command = cmd->name;
	if (interactive) {
		if (explicit && cmd != &cmd_browse)
			return cli_usage_error(NULL, "-i browses the dump; it does not go with '%s'", cmd->name);
		cmd = &cmd_browse;
	}
	if (!cmd)
		cmd = &cmd_top;

	/* the second pass: options into their tables, the rest positional */
	struct cli_common com;
	memset(&com, 0, sizeof com);
	com.weak = -1;
	com.roots = -1;
	void *own = cmd->own_size ? calloc(1, cmd->own_size) : NULL;
	const char **pos = calloc((size_t)argc + 1, sizeof *pos);
	struct cli_given *given = calloc((size_t)argc + 1, sizeof *given);
	size_t ngiven = 0;
	if ((cmd->own_size && !own) || !pos || !given) {
		free(own);
		free(pos);
		free(given);
		cli_error("out of memory");
		return EXIT_NOMEM;
	}
	if (cmd->defaults)
		cmd->defaults(own);
	int npos = 0, nrest = 0, rc = EXIT_OK;
	char **rest = NULL;
	for (int i = 1; i < argc && rc == EXIT_OK; i++) {
		const char *a = argv[i];
		if (explicit && i == first)
			continue;
		if (!strcmp(a, "--") && cmd->rest) {
			rest = argv + i + 1;  /* capture's COMMAND ARGS...: its own, not files */
			nrest = argc - i - 1;
			break;
		}
		if (!strcmp(a, "--")) {
			while (++i < argc)
				pos[npos++] = argv[i];
			break;
		}
		if (a[0] != '-' || !strcmp(a, "-")) {
			pos[npos++] = a;
			continue;
		}
		if (!strcmp(a, "-i") && cmd == &cmd_browse)
			continue;
		rc = take_option(cmd, argc, argv, &i, &com, own, &given[ngiven++]);
	}
	if (!rc)
		rc = cli_rules_check(cmd, given, ngiven);
	free(given);
	if (rc) {
		free(own);
		free(pos);
		return rc;
	}

	/* FILE... and what follows: one argument, or (many_args) every one left */
	int nargs = !cmd->args ? 0 : cmd->many_args ? (npos > cmd->min_files ? npos - cmd->min_files : 1) : 1;
	const struct cli_command *near;
	if (!explicit && npos > 0 && mistyped(pos[0], &near)) {
		rc = cli_usage_error(NULL, "unknown command '%s'; did you mean '%s'?", pos[0], near->name);
	} else if (npos < cmd->min_files && cmd->operands) {
		rc = cli_usage_error(NULL, "missing %s: hprofan %s %s", npos ? "OUT" : "IN and OUT", cmd->name,
				     cmd->operands);
	} else if (npos < cmd->min_files) {
		if (cmd->min_files >= 2)     /* diff, trend */
			rc = cli_usage_error(NULL, "%s needs %s%d dump files", cmd->name,
					     cmd->max_files > cmd->min_files ? "at least " : "", cmd->min_files);
		else
			rc = cli_usage_error(NULL, "%s", !explicit ? "missing the dump file: hprofan FILE --top"
							 : "missing the dump file");
	} else if (nargs && npos == cmd->min_files) {
		rc = cli_usage_error(NULL, "missing the object id: hprofan %s FILE %s", cmd->name, cmd->args);
	} else if (npos > cmd->max_files + nargs) {
		rc = cli_usage_error(NULL, "unexpected argument: %s", pos[cmd->max_files + nargs]);
	}
	if (rc) {
		free(own);
		free(pos);
		return rc;
	}
	struct cli_ctx x = {
		.cmd = cmd, .c = &com, .files = pos, .nfiles = npos - nargs,
		.args = pos + npos - nargs, .nargs = nargs, .rest = (const char *const *)rest, .nrest = nrest, .own = own,
	};
	/* from here on every allocation counts against the limit */
	cli_memory_setup(x.nfiles ? x.files[0] : NULL, com.index_dir);
	if (com.max_memory)
		hp_alloc_set_limit(com.max_memory);
	rc = cmd->run(&x);
	if (rc == EXIT_NOMEM)
		cli_limit_hit(x.files[0]);
	free(own);
	free(pos);
	return rc;
}
