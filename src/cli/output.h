/*
 * output.h — where results go (output.c): tables built in memory and
 * written at once (to -o FILE atomically, else to standard output), files
 * written as they are made under -o's rules, and the JSON document's
 * members every command writes.
 */
#ifndef HP_CLI_OUTPUT_H
#define HP_CLI_OUTPUT_H

#include <stdint.h>
#include <stdio.h>
#include <cjson/cJSON.h>
#include "cli/cli.h"
#include "session/session.h"

/* A table is written into memory, then out at once: to -o FILE
 * atomically, else to standard output. */
struct cli_out { char *buf; size_t len; FILE *f; };
/* NULL when out of memory (said so) */
FILE *cli_text_begin(struct cli_out *o);
/* closes the table and, when rc is EXIT_OK, writes it; returns the exit code */
int cli_text_end(const struct cli_ctx *x, struct cli_out *o, int rc);
/* doc as JSON text, cleaned for output (hp_text_json_clean()): pretty,
 * indented and ending in a newline, else on one line; its length in *len
 * (len may be NULL).  NULL when out of memory (said so); hp_free() it. */
char *cli_json_text(const cJSON *doc, int pretty, size_t *len);
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
/* all n bytes of p to fd (an ofile's), again after EINTR: 0, else -1 (errno
 * says why; a write of nothing is an error too) */
int cli_write_all(int fd, const void *p, size_t n);

/* JSON helpers: exact 64-bit integers */
void cli_json_u64(cJSON *obj, const char *key, uint64_t v);
cJSON *cli_json_u64_item(uint64_t v);
/* file, format, id_size, partial (and partial_reason) of one dump */
void cli_json_dump_members(cJSON *j, const char *file, hp_session *S);
/* {"file", "classes", "fields", "frames"}: what --mapping renamed in S's
 * model (the file: cli_mapping_file(), load.h) */
cJSON *cli_json_mapping(hp_session *S);
/* {"schema", "command", "file", "format", "id_size", "partial", "dump"} */
cJSON *cli_json_begin(const struct cli_ctx *x, const char *file, hp_session *S);
/* the same for an answer about S's heap h: then "size_model" and, when R is
 * given, "weak_policy" and "roots_policy" (cli_json_policies()) */
cJSON *cli_json_begin_heap(const struct cli_ctx *x, hp_session *S, const hp_heap *h, const struct hp_retained *R);
cJSON *cli_json_size_model(const hp_heap *h);
/* "weak_policy" and "roots_policy" of R */
void cli_json_policies(cJSON *j, const struct hp_retained *R);
const char *cli_roots_policy_name(int p);

/* Android: each heap's Java and native bytes and what GC roots hold of
 * them (native.h), one line per heap / "heap_split" (nothing before
 * hp_native_retain() or on a HotSpot dump without native sizes); heap >= 0:
 * that heap only */
void cli_text_heap_split(FILE *f, const hp_heap *h, const struct hp_native *N, int heap);
void cli_json_heap_split(cJSON *j, const hp_heap *h, const struct hp_native *N, int heap);
/* "native": what was found (total, Cleaners, chains, owners, reachable) or
 * why none; on Android dumps and dumps with a registry only */
void cli_json_native(cJSON *j, const hp_heap *h, const struct hp_native *N);

#endif
