/*
 * cli.h — what the subcommands share: options, loading with progress and
 * positioned errors, number formatting, regex filters, JSON output.
 *
 * Exit codes (the man page lists the same):
 *   0 success, 1 bad or corrupt input / I/O error, 2 usage error,
 *   3 truncated dump (without --salvage), 4 out of memory.
 */
#ifndef HP_CLI_H
#define HP_CLI_H

#include <stdint.h>
#include <stdio.h>
#include <cjson/cJSON.h>
#include "parser/hprof.h"
#include "model/heap.h"
#include "analysis/retained.h"
#include "analysis/paths.h"

#define HP_SCHEMA "hprofan/1"

enum { EXIT_OK = 0, EXIT_BAD = 1, EXIT_USAGE = 2, EXIT_TRUNC = 3, EXIT_NOMEM = 4 };

struct cli_opts {
	const char *file;
	const char *command;
	int top;                  /* rows to show; 0 all */
	int top_given;
	const char *sort;         /* count, shallow, name */
	const char *filter, *exclude, *heap;
	int json, quiet, salvage, stats, fast;
	const char *output;       /* -o FILE */
	int dump_index;
	int size_kind;
	int ref_size, header_size, align;
	int weak;                 /* -1 default for the dump, else enum hp_weak_policy */
	int roots;                /* -1 default, HP_ROOTS_THREADS, HP_ROOTS_ALL */
	int depth;                /* dominators --depth */
	int group_class;          /* dominators --group=class */
	int all_weak;             /* path --all-weak */
	int retained_set;         /* top --retained-set */
	const char *object_id;    /* object/path ID argument */
	int interactive;          /* -i: browse */
	uint64_t max_memory;      /* --max-memory, bytes; 0 none */
};

struct cli_cmd {
	const char *name;
	const char *usage;
	int (*run)(struct cli_opts *o);
};

/* The result of loading a dump. */
struct cli_load {
	hp_heap *heap;
	struct hp_stats stats;
	uint64_t file_size;       /* on disk, 0 for a pipe */
	const char *reader_kind;  /* "file", "gzip", "stream" */
	uint64_t gzip_members;
	int partial;              /* salvaged after an error */
	char partial_msg[1024];
	double seconds;
	double t_parse;           /* the first pass, for --stats */
	const struct hp_retained *ret;   /* set by cli_load_retained, for --stats */
};

/* Opens, parses and finishes.  Prints the error and returns an exit code
 * (non-zero) on failure; with --salvage a truncated or corrupt dump gives
 * partial = 1 and 0. */
int cli_load_dump(struct cli_opts *o, int build_objects, struct cli_load *L);
void cli_load_release(struct cli_load *L);
/* Loads with the object table and computes retained sizes (one more pass
 * over the file).  Prints errors; returns an exit code. */
int cli_load_retained(struct cli_opts *o, struct cli_load *L, struct hp_retained *R);
/* JSON for the weak/roots policies in use */
void json_policies(cJSON *j, const struct hp_retained *R);
const char *roots_policy_name(int p);
/* "java.util.HashMap @0x7f3a10" into buf */
const char *object_label(const hp_heap *h, size_t obj, char *buf, size_t n);
/* parses "0x1234", "1234" (decimal is taken as an id too); 0 on success */
int parse_object_id(const char *s, uint64_t *id);

void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* --max-memory: when the limit refused an allocation, makes sure a message
 * says so (once; the loaders say what the model needs) and returns 1 */
int cli_limit_hit(const char *file);
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_print_stats(const struct cli_opts *o, const struct cli_load *L);

/* "12,345" */
const char *fmt_count(uint64_t v, char *buf, size_t n);
/* "1.2 MiB" */
const char *fmt_bytes(uint64_t v, char *buf, size_t n);
/* "2018-01-14T12:47:39.123Z" */
const char *fmt_time(uint64_t ms, char *buf, size_t n);

/* PCRE2 class-name filter: NULL patterns match everything. */
struct cli_filter;
struct cli_filter *cli_filter_new(const char *include, const char *exclude);
int cli_filter_match(const struct cli_filter *f, const char *name);
void cli_filter_free(struct cli_filter *f);

/* JSON helpers: exact 64-bit integers */
void json_u64(cJSON *obj, const char *key, uint64_t v);
cJSON *json_u64_item(uint64_t v);
/* Writes text to -o FILE atomically (temp file + rename) or stdout. */
int cli_write_output(const struct cli_opts *o, const char *text);
/* Prints a JSON document (and frees it). */
int cli_emit_json(const struct cli_opts *o, cJSON *doc);
/* Escapes control characters and invalid UTF-8 for the terminal. */
const char *safe_text(const char *s, char *buf, size_t n);

cJSON *json_size_model(const hp_heap *h);
cJSON *json_begin(const char *command, const struct cli_opts *o, const struct cli_load *L);

int cmd_top(struct cli_opts *o);
int cmd_info(struct cli_opts *o);
int cmd_dominators(struct cli_opts *o);
int cmd_roots(struct cli_opts *o);
int cmd_object(struct cli_opts *o);
int cmd_path(struct cli_opts *o);
int cmd_browse(struct cli_opts *o);

/* cmd_path.c, shared with cmd_object.c: paths from GC roots and how one
 * object refers to the next. */
struct hp_objread;
struct hp_objref;
struct hp_text;
/* The graph paths are searched in (weak referents skipped unless all_weak)
 * and a breadth-first search of it from the objects GC roots name: one
 * more pass over the dump, 12 bytes per object + 4 per reference. */
struct cli_paths {
	int ready, all_weak;
	struct hp_refs g;
	struct hp_paths P;
};
/* Errors are printed; returns an exit code (on error *c is left empty). */
int cli_paths_prepare(const struct cli_opts *o, hp_heap *h, int all_weak, struct cli_paths *c);
void cli_paths_release(struct cli_paths *c);
/* Up to k (0: all) shortest paths from the objects GC roots name to obj:
 * text into f, or one JSON object per path into arr.  ready (may be NULL)
 * is a search made for the same all_weak, else one is made and dropped.
 * Errors are printed; returns an exit code, *npaths the paths found. */
int cli_show_paths(const struct cli_opts *o, hp_heap *h, struct hp_objread *rd, uint32_t obj, size_t k,
		   int all_weak, struct cli_paths *ready, FILE *f, cJSON *arr, size_t *npaths);
/* {"id": "0x7f3a10", "class": "java.util.HashMap"} (and "class_object_of") */
cJSON *cli_object_json(const hp_heap *h, size_t obj);
/* ".table", "[12]", "static SESSIONS", "<super class>", ... */
const char *cli_via_text(const hp_heap *h, const struct hp_objref *r, char *buf, size_t n);
cJSON *cli_via_json(const hp_heap *h, const struct hp_objref *r);
/* "Java frame (thread \"worker-1\"), sticky class"; "" when obj is no GC root */
const char *cli_root_text(const hp_heap *h, struct hp_objread *rd, uint32_t obj, char *buf, size_t n);
/* adds "gc_root": [kinds] and "thread"/"thread_serial" when obj is a GC root */
void cli_root_json(cJSON *e, const hp_heap *h, struct hp_objread *rd, uint32_t obj);
/* Java text quoted for the terminal ("..." with \n, \u0000, ... escapes and
 * "..." when cut); caller frees */
char *cli_quote_text(const struct hp_text *t);
/* the same as a JSON string (cJSON cannot hold U+0000) */
cJSON *cli_text_json(const struct hp_text *t);
/* exit code for an HP_E* status */
int cli_exit_code(int hp_status);

#endif
