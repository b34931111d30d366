/*
 * cli.h — what the subcommands share.
 *
 * A command is a struct cli_command (command.h): its name, usage, the
 * tables of the options it takes and run().  main.c finds the command,
 * parses argv against its tables into struct cli_common (options many
 * commands take) and the command's own options struct, and calls run()
 * with a struct cli_ctx.  run() opens a session per FILE (load.c), collects
 * its result and renders it as a table or JSON (output.c).
 *
 * The files of this folder, by job:
 *   main.c      argv, help, "did you mean"
 *   commands.c  the command table
 *   opt.c       option tables: parsing, help lines, the shared tables
 *   msg.c       messages on stderr, exit codes (msg.h)
 *   load.c      sessions: progress, errors, --max-memory reports, --stats
 *   output.c    -o (atomic), JSON helpers and the document's header
 *   browse_model.c  the browser's list model, no curses (browse_model.h)
 *   format.c    numbers, sizes, times
 *   table.c     tables declared as columns: header, rows, totals, JSON (table.h)
 *   filter.c    class-name filters (PCRE2)
 *   objtext.c   objects, GC roots, references and Java text as words/JSON
 *   cmd_*.c     one command each
 *   top_*.c     top's modes: its class, group and thread tables (top.h)
 *
 * Exit codes (the man page lists the same):
 *   0 success, 1 bad or corrupt input / I/O error, 2 usage error,
 *   3 truncated dump (without --salvage), 4 out of memory,
 *   5 leaks --fail-on-leak found a zombie.
 */
#ifndef HP_CLI_H
#define HP_CLI_H

#include <stdint.h>
#include <stdio.h>
#include <cjson/cJSON.h>
#include "parser/hprof.h"
#include "model/heap.h"
#include "model/objread.h"
#include "analysis/retained.h"
#include "analysis/paths.h"
#include "session/session.h"
#include "base/text.h"

#define HP_SCHEMA "hprofan/1"
#define HPROFAN_VERSION "0.1.0"

enum { EXIT_OK = 0, EXIT_BAD = 1, EXIT_USAGE = 2, EXIT_TRUNC = 3, EXIT_NOMEM = 4 };
/* hprofan leaks --fail-on-leak: a zombie was found */
enum { EXIT_LEAK = 5 };

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
};

struct cli_command;

/* the command line as main() got it (report shows it) */
extern int cli_argc;
extern char **cli_argv;

/* What run() gets. */
struct cli_ctx {
	const struct cli_command *cmd;
	struct cli_common *c;
	const char *const *files;     /* the FILE arguments */
	int nfiles;
	const char *const *args;      /* what follows the files (an object id) */
	int nargs;
	void *own;                    /* the command's options struct */
};

/* ---- msg.c: messages on stderr (msg.h) -------------------------------- */
#include "cli/msg.h"

/* ---- format.c --------------------------------------------------------- */
/* "12,345" */
const char *fmt_count(uint64_t v, char *buf, size_t n);
/* "1 object", "2,048 objects": the count and the noun it takes */
const char *fmt_counted(uint64_t v, const char *one, const char *many, char *buf, size_t n);
/* "1.2 MiB" */
const char *fmt_bytes(uint64_t v, char *buf, size_t n);
/* "+1.2 MiB", "-512 B", "0 B" */
const char *fmt_dbytes(int64_t v, char *buf, size_t n);
/* "+3,000", "-2", "0" */
const char *fmt_dcount(int64_t v, char *buf, size_t n);
/* fmt_bytes() rounded up at the precision shown (a need is never printed
 * below what it is) */
const char *fmt_need(uint64_t v, char *buf, size_t n);
/* "2018-01-14T12:47:39.123Z" */
const char *fmt_time(uint64_t ms, char *buf, size_t n);
/* Text from the dump for the terminal: control characters, escape
 * sequences and invalid UTF-8 shown as \xNN (base/text.h). */
static inline const char *safe_text(const char *s, char *buf, size_t n) { return hp_text_safe(s, buf, n); }

/* ---- filter.c: class names -------------------------------------------- */
struct cli_filter;
/* NULL patterns match everything; prints the error and returns NULL on a
 * bad pattern (*rc EXIT_USAGE) or no memory (*rc EXIT_NOMEM) */
struct cli_filter *cli_filter_new(const char *include, const char *exclude, int *rc);
/* 1 when name passes, 0 when not, -1 (said why) when a pattern hit PCRE2's
 * match or depth limit on it: a usage error, never taken for "no match" */
int cli_filter_match(const struct cli_filter *f, const char *name);
void cli_filter_free(struct cli_filter *f);
/* The same over a list of texts (a stack's frames): 1 when one of them
 * matches --filter (or there is none) and none matches --exclude */
int cli_filter_match_any(const struct cli_filter *f, const char *const *texts, size_t n);
/* When --filter matches no class of h, says so on stderr with the nearest
 * class names ("no class matches 'X'; did you mean ..."); 1 then, else 0. */
int cli_filter_check(const struct cli_filter *f, const hp_heap *h, const char *file);
/* "'java.util.HashMap', 'java.util.HashSet'": the (at most three) class
 * names of h nearest pat, into line; how many */
size_t cli_nearest_classes(const hp_heap *h, const char *pat, char *line, size_t n);
/* The class indexes named exactly `name` (one per class loader) into *out
 * (hp_free it), or an error naming the nearest names: an exit code. */
int cli_classes_named(const hp_heap *h, const char *file, const char *name, uint32_t **out, size_t *n);
/* A pattern that is a Java class name as people paste it (letters, digits,
 * '.', '$', '_', trailing "[]") is matched literally, as a substring; a '$'
 * at its end stays the regex anchor ("Thread$"). */
int cli_pattern_is_class_name(const char *pat);
/* The index of Android heap NAME in h, or -1 after saying why (the heaps
 * the dump has) with *rc EXIT_USAGE. */
int cli_heap_named(const hp_heap *h, const char *file, const char *want, int *rc);
/* one pattern, for the browser's filter: NULL and the error in msg on a
 * bad pattern */
struct cli_regex;
struct cli_regex *cli_regex_new(const char *pat, char *msg, size_t n);
/* 1 match, 0 none, < 0 a PCRE2 error (a limit hit): cli_regex_error() */
int cli_regex_match(const struct cli_regex *r, const char *s);
const char *cli_regex_error(int rc, char *buf, size_t n);
void cli_regex_free(struct cli_regex *r);
/* --components FILE: lines NAME REGEX ('#' comments, blank lines), NAME
 * not "other" nor twice; comp[c] the first component whose REGEX matches
 * class c's name (HP_NONE: none, or a class without objects).  Prints
 * what is wrong (with the line; a line past COMPONENTS_LINE_MAX bytes or
 * with a NUL byte with its byte offset too); returns an exit code.  Time
 * linear in the file (the names are hashed), memory one line's buffer and
 * the components. */
#define COMPONENTS_LINE_MAX 65536
struct cli_components { size_t n; char **names; uint32_t *comp; };
int cli_components_read(const char *file, const hp_heap *h, struct cli_components *out);
void cli_components_release(struct cli_components *c);

/* ---- load.c: sessions ------------------------------------------------- */
/* A session for FILE under the common options (progress on a terminal
 * unless --quiet).  Prints errors; returns an exit code. */
int cli_session(struct cli_ctx *x, const char *file, hp_session **S);
void cli_session_close(hp_session *S);
/* The getters of session.h, printing what went wrong (with the file name,
 * the offset, what --max-memory would need) and returning an exit code. */
int cli_histogram(hp_session *S, const hp_heap **h);
int cli_model(hp_session *S, const hp_heap **h);
int cli_retained(hp_session *S, const hp_heap **h, const struct hp_retained **R);
/* hp_session_retained_sums(): R's arrays but class_retained and row_retained may be NULL */
int cli_retained_sums(hp_session *S, const hp_heap **h, const struct hp_retained **R);
/* hp_session_retained_tree(): R->refs may be all zero */
int cli_retained_tree(hp_session *S, const hp_heap **h, const struct hp_retained **R);
int cli_objread(hp_session *S, hp_objread **rd);
int cli_paths(hp_session *S, int all_weak, const struct hp_pathsearch **ps);
/* Native sizes (analysis/native.h); with_retained: retained native too. */
int cli_native(hp_session *S, int with_retained, const struct hp_native **N);
/* 1 when the native columns are shown: some native size was found */
int cli_native_shown(const hp_heap *h, const struct hp_native *N);
/* On an Android dump without native sizes, why (once per run, stderr,
 * not with --quiet). */
void cli_native_note(const struct cli_ctx *x, const hp_heap *h, const struct hp_native *N);
/* "-: WHAT the dump twice, which a pipe cannot do; HINT" when S
 * cannot be read again; returns EXIT_USAGE then, else EXIT_OK */
/* Where the index of FILE is (FILE.hprofan-index, or under the cache
 * directory when FILE's directory is not writable, or under
 * $HPROFAN_INDEX_DIR); 0 on success, -1 when FILE has none (not a regular
 * file, or no directory can hold it). */
int cli_index_path(const char *file, char *out, size_t n);
/* Writes the session's index when it computed what the index lacks;
 * says when it replaces a stale or corrupt one.  *bytes (if not NULL) the
 * index's size; returns 1 when written. */
int cli_session_write_index(hp_session *S, uint64_t *bytes);

int cli_refuse_pipe(hp_session *S, const char *what, const char *hint);
/* an input read once (a pipe): its object table read now, so that whether
 * it can be read again (a copy of it was kept) is known */
int cli_pipe_read(hp_session *S);
/* why no copy of a streamed input was kept, as a warning (once) */
void cli_spool_note(hp_session *S);
/* --max-memory: when the limit refused an allocation, makes sure a
 * message says so (once); returns 1 then */
int cli_limit_hit(const char *file);
/* Bigger than memory: the budget (half the memory the machine or the
 * cgroup gives the process) and the directory of the file-backed blocks
 * (the index's directory for FILE, else $TMPDIR, else /tmp), set before
 * the command runs; FILE may be NULL. */
void cli_memory_setup(const char *file);
/* --stats: time, throughput and peak memory on stderr */
void cli_print_stats(const struct cli_ctx *x, hp_session *S);
/* "warning: partial result: ..." when the dump was salvaged */
void cli_partial_note(FILE *f, hp_session *S);

/* ---- output.c --------------------------------------------------------- */
/* A table is written into memory, then out at once: to -o FILE
 * atomically, else to standard output. */
struct cli_out { char *buf; size_t len; FILE *f; };
/* NULL when out of memory (said so) */
FILE *cli_text_begin(struct cli_out *o);
/* closes the table and, when rc is EXIT_OK, writes it; returns the exit code */
int cli_text_end(const struct cli_ctx *x, struct cli_out *o, int rc);
/* prints doc (and frees it) when rc is EXIT_OK; returns the exit code */
int cli_json_end(const struct cli_ctx *x, cJSON *doc, int rc);
/* Writes text to -o FILE atomically (temp file + rename) or stdout. */
int cli_write_output(const struct cli_ctx *x, const char *text);
/* An output file written as it is made, under -o's rules (output.c):
 * open, write to fd, then commit (renamed into place) or abort (removed).
 * Both print what went wrong; open and commit return an exit code.
 * cli_ofile_create() makes the file name in the directory open as dir
 * (path names it in messages): made new, following no link (one there is
 * refused). */
struct cli_ofile {
	int fd;
	int direct;                   /* written in place: stdout, a FIFO, a device */
	const char *path;
	int dir;                      /* the directory tmp and target are in: open while target is set */
	char *tmp, *target;
	unsigned mode;
};
int cli_ofile_open(struct cli_ofile *o, const char *path);
int cli_ofile_create(struct cli_ofile *o, int dir, const char *name, const char *path);
int cli_ofile_commit(struct cli_ofile *o);
void cli_ofile_abort(struct cli_ofile *o);

/* JSON helpers: exact 64-bit integers */
void json_u64(cJSON *obj, const char *key, uint64_t v);
cJSON *json_u64_item(uint64_t v);
/* {"schema", "command", "file", "format", "id_size", "partial", "dump"} */
/* file, format, id_size, partial (and partial_reason) of one dump */
void json_dump_members(cJSON *j, const char *file, hp_session *S);
/* --mapping's file once it was read (NULL without one), and {"file",
 * "classes", "fields", "frames"}: what it renamed in S's model */
const char *cli_mapping_file(void);
cJSON *json_mapping(hp_session *S);
cJSON *json_begin(const struct cli_ctx *x, const char *file, hp_session *S);
cJSON *json_size_model(const hp_heap *h);
/* "weak_policy" and "roots_policy" of R */
void json_policies(cJSON *j, const struct hp_retained *R);
const char *roots_policy_name(int p);

/* Android: each heap's Java and native bytes and what GC roots hold of
 * them (native.h), one line per heap / "heap_split" (nothing before
 * hp_native_retain() or on a HotSpot dump without native sizes); heap >= 0:
 * that heap only */
void text_heap_split(FILE *f, const hp_heap *h, const struct hp_native *N, int heap);
void json_heap_split(cJSON *j, const hp_heap *h, const struct hp_native *N, int heap);
/* "native": what was found (total, Cleaners, chains, owners, reachable) or
 * why none; on Android dumps and dumps with a registry only */
void json_native(cJSON *j, const hp_heap *h, const struct hp_native *N);

/* ---- objtext.c -------------------------------------------------------- */
/* "java.util.HashMap @0x7f3a10", "class java.util.HashMap @0x..." */
const char *object_label(const hp_heap *h, size_t obj, char *buf, size_t n);
/* a class loader: "<bootstrap>" (id 0), "java.net.URLClassLoader@0x7f3a10",
 * "0x7f3a10 (not in the dump)", or "0x7f3a10" without an object table */
const char *cli_loader_label(const hp_heap *h, uint64_t id, char *buf, size_t n);
/* parses "0x1234", "@0x1234" (as tables print it) or decimal "4660"; 0 on success */
int parse_object_id(const char *s, uint64_t *id);
/* the ID argument of the command: EXIT_OK (*id 0: the argument is a class
 * name), or EXIT_USAGE said why */
int cli_id_arg(const struct cli_ctx *x, uint64_t *id);
/* The object the ID argument names in h (id from cli_id_arg(); a class
 * name: its class object): EXIT_OK, or an error said (no such object or
 * class, or a name several loaders define). */
int cli_object_arg(const struct cli_ctx *x, hp_session *S, const hp_heap *h, uint64_t id, size_t *v);
/* {"id": "0x7f3a10", "class": "java.util.HashMap"} (and "class_object_of") */
cJSON *cli_object_json(const hp_heap *h, size_t obj);
/* ".table", "[12]", "static SESSIONS", "<super class>", ... */
const char *cli_via_text(const hp_heap *h, const struct hp_objref *r, char *buf, size_t n);
cJSON *cli_via_json(const hp_heap *h, const struct hp_objref *r);
/* "LeakyCache.SESSIONS", "static LeakyCache.LISTENERS", "Object[][3]": the
 * reference r from object `from` named after its declaring class (simple
 * names, as LeakCanary writes them), with where the field or index starts
 * (*at, in bytes: the part a leak trace underlines; at may be NULL) */
void cli_ref_text(const hp_heap *h, uint32_t from, const struct hp_objref *r, char *buf, size_t n, size_t *at);
/* "Java frame (thread \"worker-1\"), sticky class"; "" when obj is no GC root */
const char *cli_root_text(const hp_heap *h, hp_objread *rd, uint32_t obj, char *buf, size_t n);
/* adds "gc_root": [kinds] and "thread"/"thread_serial" when obj is a GC root */
void cli_root_json(cJSON *e, const hp_heap *h, hp_objread *rd, uint32_t obj);
/* the name of thread `serial`: from its Thread object, else from START
 * THREAD; 0 when it has none (t is empty then) */
int cli_thread_text(const hp_heap *h, hp_objread *rd, uint32_t serial, struct hp_text *t);
/* a stack frame's declaring class, "" when unknown */
const char *cli_frame_class(const hp_heap *h, const struct hp_frame *f);
/* "at com.acme.Foo.bar(Foo.java:42)" (jstack's format), safe for the
 * terminal; line -1 or 0 unknown, -2 "(Foo.java, compiled method)", -3
 * "(Native Method)" */
const char *cli_frame_text(const hp_heap *h, const struct hp_frame *f, char *buf, size_t n);
/* Java text quoted for the terminal ("..." with \n, \u0000, ... escapes
 * and "..." when cut); caller frees */
char *cli_quote_text(const struct hp_text *t);
/* the same as a JSON string (cJSON cannot hold U+0000) */
cJSON *cli_text_json(const struct hp_text *t);
/* a primitive value as Java writes it: 42, true, 'a', 1.5, NaN */
const char *cli_prim_text(char *buf, size_t n, uint8_t type, uint64_t bits);
/* the same for JSON: numbers exact, NaN and infinities as strings */
cJSON *cli_prim_json(uint8_t type, uint64_t bits);
/* one step of a path as path --json writes it: the object, its shallow
 * size, and its GC roots (via NULL: the first step) or the reference to it */
cJSON *cli_step_json(const hp_heap *h, hp_objread *rd, uint32_t v, const struct hp_objref *via);
/* Up to k (0: all) shortest paths from the objects GC roots name to obj:
 * text into f, or one JSON object per path into arr; a long path by its
 * ends (HP_PATH_HEAD and HP_PATH_TAIL, paths.h) unless whole.  Errors are
 * printed; returns an exit code, *npaths the paths found. */
int cli_list_paths(hp_session *S, uint32_t obj, size_t k, int all_weak, int whole, FILE *f, cJSON *arr,
		   size_t *npaths);
/* cli_list_paths(), long paths by their ends, for a command that takes no
 * --full-path (browse) */
int cli_show_paths(hp_session *S, uint32_t obj, size_t k, int all_weak, FILE *f, cJSON *arr, size_t *npaths);
/* The ends of a path a command keeps: HP_PATH_HEAD and HP_PATH_TAIL, or
 * with --full-path every step (HP_PATH_WHOLE). */
size_t cli_path_head(const struct cli_ctx *x);
size_t cli_path_tail(const struct cli_ctx *x);
/* "... 999,980 more (--full-path shows every step)": the line that stands
 * for what a cut path leaves out (hint: with the words on --full-path) */
const char *cli_gap_text(const struct hp_path_gap *g, int hint, char *buf, size_t n);
/* PREFIX "elided" (the steps left out) and PREFIX "elided_at" (where, as an
 * index of the steps kept) into o, when g left steps out */
void cli_gap_json(cJSON *o, const char *prefix, const struct hp_path_gap *g);

#endif
