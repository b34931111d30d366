/*
 * objtext.h — objects, GC roots, references, values and Java text as the
 * commands print them, as words and as JSON (objtext.c), and the paths
 * from GC roots.
 */
#ifndef HP_CLI_OBJTEXT_H
#define HP_CLI_OBJTEXT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cjson/cJSON.h>
#include "cli/cli.h"
#include "session/session.h"
#include "analysis/threadlocals.h"

/* "java.util.HashMap @0x7f3a10", "class java.util.HashMap @0x..." */
const char *cli_object_label(const hp_heap *h, size_t obj, char *buf, size_t n);
/* a class loader: "<bootstrap>" (id 0), "java.net.URLClassLoader@0x7f3a10",
 * "0x7f3a10 (not in the dump)", or "0x7f3a10" without an object table */
const char *cli_loader_label(const hp_heap *h, uint64_t id, char *buf, size_t n);
/* parses "0x1234", "@0x1234" (as tables print it) or decimal "4660"; 0 on success */
int cli_parse_object_id(const char *s, uint64_t *id);
/* the ID argument of the command: EXIT_OK (*id 0: the argument is a class
 * name), or EXIT_USAGE said why */
int cli_id_arg(const struct cli_ctx *x, uint64_t *id);
/* The object the ID argument names in h (id from cli_id_arg(); a class
 * name: its class object): EXIT_OK, or an error said (no such object or
 * class, or a name several loaders define). */
int cli_object_arg(const struct cli_ctx *x, hp_session *S, const hp_heap *h, uint64_t id, size_t *v);
/* The objects of the classes marked in want (a byte per class index of
 * h, the session's model), by object number (class objects too), from the
 * session's objects by class (hp_session_by_class()): into *out (hp_free
 * it) and *n; an exit code, errors said. */
int cli_class_objects(hp_session *S, const hp_heap *h, const uint8_t *want, uint32_t **out, size_t *n);
/* The set the arguments name (idom, merge-paths): every instance of the
 * classes each CLASS argument names exactly (every loader's; no class
 * objects) and each ID, in *set (hp_free it; repeats possible) and *n; an
 * exit code, errors said. */
int cli_object_set(const struct cli_ctx *x, hp_session *S, const hp_heap *h, uint32_t **set, size_t *n);
/* {"id": "0x7f3a10", "class": "java.util.HashMap"} (and "class_object_of") */
cJSON *cli_object_json(const hp_heap *h, size_t obj);
/* a ThreadLocal as threads and leaks name it: "name", "static_field" (the
 * name, or null when no static field holds it) and "thread_local" (the
 * object, or null for the stale entries' key) into e */
void cli_tl_key_json(cJSON *e, const hp_heap *h, const struct hp_tl_key *K);
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
/* adds a stack frame's "class", "method", "signature", "source" (each when
 * known) and "line" to fe; nothing when f is NULL (a frame the dump lacks) */
void cli_frame_json(cJSON *fe, const hp_heap *h, const struct hp_frame *f);
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
/* Reads ahead in one forward pass over a gzip dump (nothing to do for a
 * regular file) what the steps of paths show: the records of objs (the
 * objects references are read from, and the objects named) and the
 * threads of the GC roots of starts (their names). */
int cli_prefetch_steps(const hp_heap *h, hp_objread *rd, const uint32_t *objs, size_t n, const uint32_t *starts,
		       size_t nstarts, struct hp_error *err);
/* the note under paths that take a class edge (refs.h: <class>) */
const char *cli_class_edge_note(void);
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
