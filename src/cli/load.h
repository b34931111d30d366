/*
 * load.h — sessions for the commands (load.c and the load_*.c files): a
 * session per FILE under the common options, the getters of session.h
 * that print what went wrong, the index's place, the memory budget and
 * --max-memory's report, --stats.
 */
#ifndef HP_CLI_LOAD_H
#define HP_CLI_LOAD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "cli/cli.h"
#include "session/session.h"

/* ---- load.c: sessions ------------------------------------------------- */
/* A session for FILE under the common options (progress on a terminal
 * unless --quiet).  Prints errors; returns an exit code. */
int cli_session(struct cli_ctx *x, const char *file, hp_session **S);
void cli_session_close(hp_session *S);
/* Writes the session's index when it computed what the index lacks;
 * says when it replaces a stale or corrupt one.  *bytes (if not NULL) the
 * index's size; returns 1 when written. */
int cli_session_write_index(hp_session *S, uint64_t *bytes);
/* hprofan mcp's workers: sessions kept open between command lines.  Once
 * on, cli_session() gives the session kept for FILE when it was opened
 * under the same options and FILE is the same file still (a dump
 * replaced on disk is opened again), and cli_session_close() writes its
 * index but keeps it; cli_sessions_free() frees those kept. */
void cli_sessions_keep(int on);
void cli_sessions_free(void);
/* hprofan serve, before it forks its workers: what most calls on every
 * kept session would each make (or check, from the index) on first use,
 * made once here and shared copy-on-write: the retained sizes with the
 * reference graph, the objects by class.  A failure is left for the call
 * that asks to say. */
void cli_sessions_prepare(void);
/* --mapping's file once it was read (NULL without one) */
const char *cli_mapping_file(void);

/* ---- load_errors.c: the getters, and what they say -------------------- */
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
int cli_refuse_pipe(hp_session *S, const char *what, const char *hint);
/* an input read once (a pipe): its object table read now, so that whether
 * it can be read again (a copy of it was kept) is known */
int cli_pipe_read(hp_session *S);
/* why no copy of a streamed input was kept, as a warning (once) */
void cli_spool_note(hp_session *S);
/* "warning: partial result: ..." when the dump was salvaged */
void cli_partial_note(FILE *f, hp_session *S);

/* ---- load_place.c: the index's place ---------------------------------- */
/* Where the index of FILE is (FILE.hprofan-index, or under the cache
 * directory when FILE's directory is not writable, or under
 * $HPROFAN_INDEX_DIR); 0 on success, -1 when FILE has none (not a regular
 * file, or no directory can hold it). */
int cli_index_path(const char *file, const char *dir_opt, char *out, size_t n);

/* ---- load_memory.c: memory -------------------------------------------- */
/* --max-memory: when the limit refused an allocation, makes sure a
 * message says so (once); returns 1 then */
int cli_limit_hit(const char *file);
/* Bigger than memory: the budget (half the memory the machine or the
 * cgroup gives the process) and the directory of the file-backed blocks
 * (the index's directory for FILE, else $TMPDIR, else /tmp), set before
 * the command runs; FILE may be NULL. */
void cli_memory_setup(const char *file, const char *index_dir);

/* ---- load_stats.c ----------------------------------------------------- */
/* --stats: time, throughput and peak memory on stderr */
void cli_print_stats(const struct cli_ctx *x, hp_session *S);

#endif
