/*
 * cli.h — what every command gets.
 *
 * A command is a struct cli_command (command.h): its name, usage, the
 * tables of the options it takes and run().  main.c finds the command,
 * parses argv against its tables into struct cli_common (options many
 * commands take) and the command's own options struct, and calls run()
 * with a struct cli_ctx.  run() opens a session per FILE (load.h), collects
 * its result and renders it as a table or JSON (output.h).
 *
 * The files of this folder, by job, and the header a command includes
 * for each:
 *   main.c      argv, help, "did you mean"
 *   commands.c  the command table
 *   opt.c       option tables: parsing, help lines, the shared tables (command.h)
 *   msg.c       messages on stderr, exit codes (msg.h)
 *   load.c      sessions: opened, their index written, closed (load.h;
 *               load_state.h: what the load files share)
 *   load_errors.c    the getters, saying what went wrong; warnings
 *   load_progress.c  the progress line
 *   load_place.c     where an index goes
 *   load_memory.c    the memory budget; --max-memory's report
 *   load_stats.c     --stats
 *   output.c    -o (atomic), JSON helpers and the document's header (output.h)
 *   browse_model.c  the browser's list model, no curses (browse_model.h)
 *   browse_draw.c   the browser's screen and key reader; browse_popup.c its
 *               pop-ups (browse_view.h: what they and cmd_browse.c share)
 *   format.c    numbers, sizes, times (format.h)
 *   table.c     tables declared as columns: header, rows, totals, JSON (table.h)
 *   filter.c    class-name filters (PCRE2), heaps, components (filter.h)
 *   objtext.c   objects, GC roots, references and Java text as words/JSON,
 *               paths from GC roots (objtext.h)
 *   cmd_*.c     one command each
 *   mcp_tools.c, mcp_worker.c  hprofan mcp's tools and workers (mcp.h)
 *   top_*.c     top's modes: its class, group and thread tables (top.h)
 *
 * Exit codes (the man page lists the same):
 *   0 success, 1 bad or corrupt input / I/O error, 2 usage error,
 *   3 truncated dump (without --salvage), 4 out of memory,
 *   5 leaks --fail-on-leak found a zombie, check found a budget broken.
 */
#ifndef HP_CLI_H
#define HP_CLI_H

#include <stdint.h>

#define HP_SCHEMA "hprofan/1"
#define HPROFAN_VERSION "0.1.0"

enum { EXIT_OK = 0, EXIT_BAD = 1, EXIT_USAGE = 2, EXIT_TRUNC = 3, EXIT_NOMEM = 4 };
/* hprofan leaks --fail-on-leak: a zombie was found */
enum { EXIT_LEAK = 5 };
/* hprofan check: a rule of the budget was broken (the same status) */
enum { EXIT_BUDGET = 5 };

/* Options many commands take (each command's tables say which). */
struct cli_common {
	int json, quiet, stats, salvage;
	const char *output;           /* -o FILE */
	uint64_t max_memory;          /* --max-memory, bytes; 0 none */
	int dump_index;
	int size_kind;
	int ref_size, header_size, align;
	int weak;                     /* -1 default for the dump, else enum hp_weak_policy */
	int roots;                    /* -1 default, HP_ROOTS_THREADS, HP_ROOTS_ALL, HP_ROOTS_UNREACHABLE */
	const char *filter, *exclude; /* class names */
	int all_weak;                 /* paths through the referents of weak references */
	int full_path;                /* --full-path: every step of a long path */
	const char *mapping;          /* --mapping FILE: R8/ProGuard names */
	int no_index;                 /* --no-index: neither read nor write the dump's index */
	const char *index_dir;        /* --index-dir DIR: the index there (else $HPROFAN_INDEX_DIR, beside the dump) */
};

struct cli_command;

/* the command line as main() got it (report shows it) */
extern int cli_argc;
extern char **cli_argv;
/* a command line parsed and run, as main() does; returns the exit code
 * (hprofan mcp's workers run each call through it) */
int cli_main(int argc, char **argv);

/* What run() gets. */
struct cli_ctx {
	const struct cli_command *cmd;
	struct cli_common *c;
	const char *const *files;     /* the FILE arguments */
	int nfiles;
	const char *const *args;      /* what follows the files (an object id) */
	int nargs;
	const char *const *rest;      /* the words after -- (a command with .rest) */
	int nrest;
	void *own;                    /* the command's options struct */
};

#endif
