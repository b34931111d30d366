/*
 * command.h — commands and the options they take (git's parse-options,
 * tmux's cmd_entry).
 *
 * Each cmd_X.c defines `const struct cli_command cmd_X`: its name, usage,
 * one-line summary, the FILE arguments it takes, what follows them, the
 * tables of its options and run().  An option table is an array of struct
 * cli_option ending with an entry whose name is NULL.  Options are stored
 * either in struct cli_common (common = 1: the shared tables below) or in
 * the command's own options struct, at `off`.
 *
 * An option a command's tables do not list is a usage error naming the
 * command.  `hprofan help COMMAND`, `hprofan --help`, the completions and
 * the man page all follow the tables (tests/cli/options.sh checks).
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
	OPT_OPTVALUE                  /* --gzip[=N]: a value only after '=' in the same word */
};

struct cli_option;
/* stores val (as typed after option `as`) at dst; prints the usage error
 * and returns EXIT_USAGE when it is not a value the option takes */
typedef int (*cli_opt_set)(const struct cli_option *o, const char *as, const char *val, void *dst);

struct cli_option {
	const char *name;             /* "--sort"; NULL ends a table */
	const char *alias;            /* "-q" for --quiet, "--output" for -o, or NULL */
	int kind;                     /* enum cli_opt_kind */
	const char *spec;             /* as help writes it: "--sort=KEY", "-o FILE", "--top [N]" */
	const char *help;             /* what it does; '\n' between lines */
	int common;                   /* stored in struct cli_common */
	size_t off;                   /* offset of the field */
	cli_opt_set set;              /* NULL: a flag (int) or a string (const char *) */
	const char *needs;            /* the usage error without a value: "needs a regular expression" */
	const char *values;           /* the values completions offer, space-separated, or NULL */
};

/* --top [N] and the like: a number, and whether it was given */
struct cli_count { int n, given; };

struct cli_command {
	const char *name;
	const char *usage;            /* "hprofan roots FILE [--top N] [options]" */
	const char *summary;          /* "GC roots and what they retain" */
	int min_files, max_files;     /* FILE arguments */
	const char *operands;         /* how usage names them when not "FILE": "IN OUT" */
	const char *args;             /* what follows the files: "ID", or NULL */
	const struct cli_option *const *options;   /* tables, NULL-terminated */
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

/* value parsers for own options: --top [N] into a struct cli_count */
int cli_set_count(const struct cli_option *o, const char *as, const char *val, void *dst);

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
/* Help lines "  SPEC   DESCRIPTION" for each option of the command (own
 * first, then shared), into f. */
void cli_help_options(FILE *f, const struct cli_command *c);

#endif
