/*
 * command.h — commands and the options they take (git's parse-options,
 * tmux's cmd_entry).
 *
 * Each cmd_X.c defines `const struct cli_command cmd_X`: its name, the
 * words of its usage before the options, a one-line summary, the FILE
 * arguments it takes, what follows them, the tables of its options, the
 * rules between them and run().  An option table is an array of struct
 * cli_option written with the OPT_* macros below and ending with OPT_END.
 * Options are stored either in struct cli_common (OPT_COMMON: the shared
 * tables of opt.c) or in the command's own options struct (OPT_OWN).
 *
 * Each fact about an option is written once, in its declaration: its name,
 * kind, the name of its value, the values a choice allows (help lists them,
 * the usage error names them, the completions offer them), its parser and
 * the message when the value is missing.  The options several commands take
 * are declared once here (OPT_TOP, OPT_SORT, OPT_GROUP, ...) or in the
 * shared tables of opt.c; a command gives only where the value goes and
 * what the option means there (its help line).
 *
 * From the tables come: the usage line and option list of `hprofan help
 * COMMAND`, the list of `hprofan --help`, the bash and zsh completions
 * (`hprofan completion bash|zsh`, complete.c), and the checks that an
 * option a command does not list is a usage error naming the command and
 * that the rules hold (tests/cli/options.sh, completion.sh and manpage.sh
 * read the tables from `hprofan completion options`).
 */
#ifndef HP_CLI_COMMAND_H
#define HP_CLI_COMMAND_H

#include <stddef.h>
#include <stdio.h>
#include <cjson/cJSON.h>
#include "cli/cli.h"
#include "session/session.h"

enum cli_opt_kind {
	OPT_FLAG,                     /* sets an int to 1 */
	OPT_VALUE,                    /* --x V or --x=V */
	OPT_OPTNUM,                   /* --top [N]: the next word only when it is a number */
	OPT_OPTVALUE,                 /* --gzip[=N]: a value only after '=' in the same word */
	OPT_CHOICE                    /* --sort=KEY: a VALUE that is one of a list (an int stored) */
};

/* what the completions offer for a value that is no choice */
enum {
	OPTF_FILE = 1,                /* a file name */
	OPTF_DIR = 2,                 /* a directory */
	OPTF_REPEAT = 4,              /* may be given more than once (each counts) */
	OPTF_GENERAL = 8              /* a general option: the usage line says [options] for it */
};

/* One value of a choice: its name, the int stored, and a note help writes
 * after it in parentheses ("default", "objects in a group") or NULL.  A
 * list ends with an entry whose name is NULL. */
struct cli_choice {
	const char *name;
	int value;
	const char *note;
};

struct cli_option;
/* stores val (as typed after option `as`) at dst; prints the usage error
 * and returns EXIT_USAGE when it is not a value the option takes */
typedef int (*cli_opt_set)(const struct cli_option *o, const char *as, const char *val, void *dst);

struct cli_option {
	const char *name;             /* "--sort"; NULL ends a table */
	const char *alias;            /* "-q" for --quiet, "--output" for -o, or NULL */
	int kind;                     /* enum cli_opt_kind */
	const char *arg;              /* the value's name: "N", "FILE", "KEY"; NULL for a flag,
	                               * and for a choice written with its values (--group=a|b) */
	const char *help;             /* what it does; '\n' between lines.  A choice's help
	                               * may hold "%v": the list of its values with their
	                               * notes ("a (default), b or c"), wrapped; NULL is "%v" */
	int common;                   /* stored in struct cli_common */
	size_t off;                   /* offset of the field */
	cli_opt_set set;              /* NULL: a flag (int) or a string (const char *) */
	const char *needs;            /* the usage error without a value: "needs a regular expression" */
	const char *complete;         /* the words completions offer for a value, space-separated */
	const struct cli_choice *choices;   /* OPT_CHOICE: the values */
	unsigned flags;               /* OPTF_* */
};

/* ---- declaring options (git's OPT_BOOL, OPT_STRING, OPT_CALLBACK) ---------
 * The last argument, WHERE, is OPT_OWN(struct my_opts, field) or
 * OPT_COMMON(field). */
#define OPT_OWN(type, field) .common = 0, .off = offsetof(type, field)
#define OPT_COMMON(field) .common = 1, .off = offsetof(struct cli_common, field)

#define OPT_BOOL(n, h, ...) { .name = (n), .kind = OPT_FLAG, .help = (h), __VA_ARGS__ }
#define OPT_STRING_F(n, a, h, nd, f, ...) \
	{ .name = (n), .kind = OPT_VALUE, .arg = (a), .help = (h), .needs = (nd), .flags = (f), __VA_ARGS__ }
#define OPT_STRING(n, a, h, nd, ...) OPT_STRING_F(n, a, h, nd, 0, __VA_ARGS__)
#define OPT_FILENAME(n, a, h, nd, ...) OPT_STRING_F(n, a, h, nd, OPTF_FILE, __VA_ARGS__)
/* a value parsed by fn (a cli_opt_set); words: what completions offer */
#define OPT_CALLBACK_F(n, a, fn, h, nd, words, f, ...) \
	{ .name = (n), .kind = OPT_VALUE, .arg = (a), .set = (fn), .help = (h), .needs = (nd), \
	  .complete = (words), .flags = (f), __VA_ARGS__ }
#define OPT_CALLBACK(n, a, fn, h, nd, ...) OPT_CALLBACK_F(n, a, fn, h, nd, NULL, 0, __VA_ARGS__)
/* --top [N]: into a struct cli_count */
#define OPT_COUNT(n, h, ...) \
	{ .name = (n), .kind = OPT_OPTNUM, .arg = "N", .set = cli_set_count, .help = (h), __VA_ARGS__ }
/* one of the values of list (a struct cli_choice[]), into an int */
#define OPT_CHOICE(n, a, list, h, ...) \
	{ .name = (n), .kind = OPT_CHOICE, .arg = (a), .set = cli_set_choice, .choices = (list), .help = (h), __VA_ARGS__ }
#define OPT_END { .name = NULL }

/* ---- the options several commands take: declared here, once -------------
 * (each command says what they mean for it and where they go) */
#define OPT_TOP(h, ...) OPT_COUNT("--top", h, __VA_ARGS__)
#define OPT_SORT(list, h, ...) OPT_CHOICE("--sort", "KEY", list, h, __VA_ARGS__)
#define OPT_GROUP(list, h, ...) OPT_CHOICE("--group", NULL, list, h, __VA_ARGS__)
#define OPT_COMPONENTS(h, ...) OPT_FILENAME("--components", "FILE", h, "needs a file of NAME REGEX lines", __VA_ARGS__)
#define OPT_FAST(h, ...) OPT_BOOL("--fast", h, __VA_ARGS__)
#define OPT_HEAP(h, ...) \
	OPT_CALLBACK_F("--heap", "NAME", NULL, h, "needs a heap name", "app zygote image default", 0, __VA_ARGS__)
/* fn parses the number of levels (the range is the command's) */
#define OPT_DEPTH(fn, h, nd, ...) OPT_CALLBACK("--depth", "D", fn, h, nd, __VA_ARGS__)
#define OPT_FILTER(h) OPT_STRING("--filter", "RE", h, "needs a regular expression", OPT_COMMON(filter))
#define OPT_EXCLUDE(h) OPT_STRING("--exclude", "RE", h, "needs a regular expression", OPT_COMMON(exclude))
/* -o FILE; f: OPTF_GENERAL, or 0 for a command whose usage line names it */
#define OPT_OUTPUT_F(f) { .name = "-o", .alias = "--output", .kind = OPT_VALUE, .arg = "FILE", \
	.help = "write the output to FILE (atomically)", .needs = "needs a file name", .flags = OPTF_FILE | (f), \
	OPT_COMMON(output) }
#define OPT_OUTPUT OPT_OUTPUT_F(OPTF_GENERAL)
#define OPT_STATS { .name = "--stats", .kind = OPT_FLAG, .flags = OPTF_GENERAL, \
	.help = "print time, throughput and peak memory on stderr", OPT_COMMON(stats) }

/* ---- rules between options -----------------------------------------------
 * A rule names two options of the command, each "--name" (given) or
 * "--name=value" (given with that value); main.c checks them once the
 * command line is read, and a rule broken is a usage error:
 *   RULE_NEEDS(a, b, why)      a needs b:              "A needs B: WHY"
 *   RULE_EXCLUDES(a, b, why)   not both:               "A does not go with B: WHY"
 *   RULE_ONLY_WITH(a, b=v, why) a and b's option given: b is v
 *                                                      "A does not go with B=W: WHY"
 * A table ends with RULE_END. */
enum cli_rule_kind { CLI_RULE_NEEDS = 1, CLI_RULE_EXCLUDES, CLI_RULE_ONLY_WITH };
struct cli_rule {
	int kind;                     /* enum cli_rule_kind; 0 ends a table */
	const char *a, *b;
	const char *why;
};
#define RULE_NEEDS(a, b, why) { CLI_RULE_NEEDS, (a), (b), (why) }
#define RULE_EXCLUDES(a, b, why) { CLI_RULE_EXCLUDES, (a), (b), (why) }
#define RULE_ONLY_WITH(a, b, why) { CLI_RULE_ONLY_WITH, (a), (b), (why) }
#define RULE_END { 0, NULL, NULL, NULL }

/* --top [N] and the like: a number, and whether it was given */
struct cli_count { int n, given; };

struct cli_command {
	const char *name;
	const char *usage;            /* the usage before the options: "hprofan roots FILE" */
	const char *summary;          /* "GC roots and what they retain" */
	int min_files, max_files;     /* FILE arguments */
	const char *operands;         /* redact's "IN OUT": the message for a missing one names
	                               * them, and OUT is a file written (completions) */
	const char *args;             /* what follows the files: "ID", or NULL */
	int many_args;                /* args may repeat: every argument after the files (at least one) */
	const char *rest;             /* capture's "COMMAND ARGS...": the words after -- are run()'s
	                               * x->rest, not files; the usage line ends [-- REST] */
	const struct cli_option *const *options;   /* tables, NULL-terminated */
	const struct cli_rule *const *rules;       /* tables of rules, NULL-terminated, or NULL */
	size_t own_size;              /* sizeof the command's options struct */
	void (*defaults)(void *own);  /* its defaults (NULL: all zero) */
	int (*run)(struct cli_ctx *x);
	/* Commands that answer about one dump: run() is cli_run_one(), which
	 * opens FILE, calls collect() for the result, renders it with json()
	 * or text() and releases it.  report calls the same functions. */
	int (*collect)(struct cli_ctx *x, hp_session *S, void **res);
	int (*json)(struct cli_ctx *x, hp_session *S, void *res, cJSON **doc);
	int (*text)(struct cli_ctx *x, hp_session *S, void *res, FILE *f);
	void (*release)(void *res);
	/* after the output: warnings on stderr (optional) */
	void (*after)(struct cli_ctx *x, hp_session *S, void *res);
};

/* run() of the commands with collect/json/text */
int cli_run_one(struct cli_ctx *x);

/* ---- a command's definition, in one statement ---------------------------
 *   CLI_COMMAND(roots, "hprofan roots FILE", "GC roots and what they retain",
 *               CLI_FILES(1, 1), CLI_ANSWERS, CLI_OWN(struct roots_opts, defaults),
 *               CLI_TABLES(own, cli_opts_model, cli_opts_output));
 * defines cmd_roots (named "roots"; commands.c lists it).  CLI_ANSWERS:
 * run() is cli_run_one() with the file's collect, json, text and release;
 * CLI_TABLES and CLI_RULES make the NULL-terminated lists; anything else
 * (.args, .operands, .after, .run) is a designated initializer. */
#define CLI_COMMAND(id, use, sum, ...) CLI_COMMAND_NAMED(id, #id, use, sum, __VA_ARGS__)
/* the same for a name that is no C identifier ("group-by-value") */
#define CLI_COMMAND_NAMED(id, nm, use, sum, ...) \
	const struct cli_command cmd_##id = { .name = (nm), .usage = (use), .summary = (sum), __VA_ARGS__ }
#define CLI_FILES(lo, hi) .min_files = (lo), .max_files = (hi)
#define CLI_ANSWERS .run = cli_run_one, .collect = collect, .json = json, .text = text, .release = release
#define CLI_OWN(type, defaults_fn) .own_size = sizeof(type), .defaults = (defaults_fn)
#define CLI_TABLES(...) .options = (const struct cli_option *const[]){ __VA_ARGS__, NULL }
#define CLI_RULES(...) .rules = (const struct cli_rule *const[]){ __VA_ARGS__, NULL }
/* collect()'s result: size bytes, zeroed, stored at *res at once, so that
 * release() frees it whatever collect() returns; NULL when out of memory
 * (said so) */
void *cli_result_new(size_t size, void **res);

/* The shared tables; a command lists the ones it takes. */
extern const struct cli_option cli_opts_output[];   /* --json, -o, --stats */
extern const struct cli_option cli_opts_quiet[];    /* --quiet */
extern const struct cli_option cli_opts_load[];     /* --dump, --salvage, --max-memory, --mapping */
extern const struct cli_option cli_opts_load_unmapped[];   /* the same without --mapping (bitmaps, index) */
extern const struct cli_option cli_opts_model[];    /* --size-model, --ref-size, --header-size, --align */
extern const struct cli_option cli_opts_policy[];   /* --weak, --roots */
extern const struct cli_option cli_opts_filter[];   /* --filter, --exclude */
extern const struct cli_option cli_opts_all_weak[]; /* --all-weak */
extern const struct cli_option cli_opts_full_path[]; /* --full-path */

/* The shared rules: --components FILE and --group=component go together */
extern const struct cli_rule cli_rules_components[];
/* --group=loader reads the loaders' objects: not with --fast (diff, trend) */
extern const struct cli_rule cli_rules_fast_loader[];

/* value parsers for own options: --top [N] into a struct cli_count; a
 * choice into an int */
int cli_set_count(const struct cli_option *o, const char *as, const char *val, void *dst);
int cli_set_choice(const struct cli_option *o, const char *as, const char *val, void *dst);
/* s as a decimal number from lo to hi (the whole word; strtol's leading
 * space and sign allowed) into *out: 0, else -1 (out untouched) */
int cli_parse_int(const char *s, long lo, long hi, int *out);
/* s as a size (--max-memory's: 512M, 4G, 1.5GiB, 10MB, a number of bytes)
 * into *out: 0, else -1; 0 bytes only when zero_ok */
int cli_parse_size(const char *s, int zero_ok, uint64_t *out);
/* the name of value v in a choice list, or NULL */
const char *cli_choice_name(const struct cli_choice *list, int v);

/* The commands, in the order help lists them (commands.c). */
extern const struct cli_command *const cli_commands[];
const struct cli_command *cli_command_find(const char *name);

/* Finds the option `arg` (an argv word: "--sort", "--sort=x", "-q") in the
 * command's tables; *val points after '=' when there is one. */
const struct cli_option *cli_option_find(const struct cli_command *c, const char *arg, const char **val);
/* The same over every command's tables (NULL when no command has it). */
const struct cli_option *cli_option_any(const char *arg, const char **val);
/* Stores an option's value into common / own; returns an exit code. */
int cli_option_set(const struct cli_option *o, const char *as, const char *val, struct cli_common *c, void *own);
/* The usage error of an option given without its value */
int cli_option_missing(const struct cli_option *o, const char *as);

/* An option as given on the command line (val: its value, or NULL) */
struct cli_given { const struct cli_option *o; const char *val; };
/* Checks the command's rules against the options given (in order; the
 * last of an option counts); prints the first broken and returns
 * EXIT_USAGE, else EXIT_OK. */
int cli_rules_check(const struct cli_command *c, const struct cli_given *g, size_t n);

/* "--sort=KEY", "-o FILE", "--top [N]", "--gzip[=N]", "--group=a|b|c" */
const char *cli_option_spec(const struct cli_option *o, char *buf, size_t n);
/* the same with a short alias in front: "-q, --quiet" */
const char *cli_option_spec_full(const struct cli_option *o, char *buf, size_t n);
/* The help text of an option, a choice's list filled in and wrapped, into
 * buf ('\n' between lines) */
const char *cli_option_help(const struct cli_option *o, char *buf, size_t n);
/* Help lines "  SPEC   DESCRIPTION" for each option of the command (own
 * first, then shared), into f. */
void cli_help_options(FILE *f, const struct cli_command *c);
/* The usage line of the command: its words, then each option it does not
 * take as [options] ("[--top [N]] [--sort=a|b] [options]") */
void cli_help_usage(FILE *f, const struct cli_command *c);

/* Checks the tables: every rule names options of its command, with values
 * its choices allow; prints what is wrong.  0 when all hold. */
int cli_tables_check(void);
/* hprofan completion bash|zsh|options (complete.c) */
int cli_completion(const char *what);

#endif
