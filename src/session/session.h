/*
 * session.h — one dump, opened once, and everything computed from it on
 * first use: the model (a class histogram only, or with the object table),
 * the reference graph with retained sizes, the object reader, and the
 * searches for paths from GC roots.  Commands ask the session; none of them
 * opens a file or knows whether the model was parsed now or (later) mapped
 * from an index.
 *
 * Each getter computes its part the first time and returns the same result
 * afterwards; a failure is returned again the next time without retrying.
 * What a getter returns is owned by the session and valid until
 * hp_session_free(); the model is not changed after it is returned.
 *
 * Reading twice: retained sizes, the object reader and paths read the dump
 * again (refs.h, objread.h).  So that a gzip dump is inflated once and a
 * pipe can be read again, the pass that builds the object table of a
 * streamed input (gzip, a pipe) copies the bytes it reads into a spool
 * (spool.h): an unlinked file in opts spool_dir, which every later pass
 * maps like a plain dump and which is gone when the session is freed (or
 * the process ends).
 * When the spool cannot be written (no such directory, disk full), gzip is
 * inflated again by each pass, a pipe cannot be read again, and
 * hp_session_spool_note() says why: hp_session_rereadable() says whether
 * the input can be read again.  Asking for the object table after a
 * histogram-only model parses the dump once more.
 *
 * Errors: an HP_E* status and a positioned struct hp_error (the caller adds
 * the file name).  When the memory limit (base/alloc.h) refused an
 * allocation, the status is HP_ENOMEM and hp_session_need() says at which
 * stage and how much the whole would have needed, the same wherever the
 * limit was hit.  With salvage set, a truncated or corrupt dump gives the
 * model of what precedes the break: hp_session_load_info()->partial.
 */
#ifndef HP_SESSION_H
#define HP_SESSION_H

#include <stdint.h>
#include "parser/hprof.h"
#include "model/heap.h"
#include "model/objread.h"
#include "model/mapping.h"
#include "analysis/retained.h"
#include "analysis/paths.h"
#include "analysis/native.h"
#include "analysis/rootshare.h"

/* the analyses after the model need, by a rough rule, this much per object
 * (the reference graph's offsets and the dominator pass: about 32 bytes per
 * object at the dominators' peak, see dominators.h and refs.h) and 8 bytes
 * per reference on top (4 forward, 4 reverse); the references are not
 * known before they are read, so this counts 2 per object (the class edges
 * of Eclipse MAT's graph cost nothing: refs.h): 32 + 8 x 2.  The bench
 * dump (1 reference an object besides its class edge) took 38.6. */
#define HP_RETAINED_BYTES_PER_OBJECT 48

enum hp_session_phase { HP_PHASE_READ = 0, HP_PHASE_REFS, HP_PHASE_PATHS };

struct hp_session_opts {
	int size_kind;                /* enum hp_size_kind; 0: the dump's default */
	int ref_size, header_size, align;   /* size-model overrides; 0 = infer */
	int dump_index;               /* heap dump of the file to analyse (0-based) */
	int salvage;                  /* keep what precedes a break in the dump */
	int weak;                     /* enum hp_weak_policy; -1: the dump's default */
	int roots;                    /* HP_ROOTS_*; -1: the dump's default */
	/* 1: a file without a heap dump is an error: HP_EFORMAT when it holds
	 * records only the JDK hprof agent writes (its files may hold only
	 * allocation sites or CPU samples), else HP_ETRUNC (HotSpot and ART
	 * write the heap dump after the strings and classes, so the file was
	 * cut before it); HP_ECORRUPT with salvage.  0 (info): the records
	 * are described whatever they hold.  2 (sites): as 1, except that a
	 * file with the agent's ALLOC SITES, HEAP SUMMARY or CPU SAMPLES
	 * records gives a model of those (and no objects). */
	int need_dump;
	/* an R8/ProGuard mapping (mapping.h) the model's names are put back
	 * through as it is loaded, or NULL; borrowed, outlives the session */
	const hp_mapping *mapping;
	/* the index of the dump (session/index.h) to map instead of parsing
	 * when it is valid, and to write by hp_session_write_index(); NULL:
	 * none (a pipe never has one).  One that is not trusted when opened
	 * (HP_INDEX_UNTRUSTED: hp_index_place()) is neither read nor written. */
	const char *index_path;
	/* retained sizes computed under policies other than the dump's
	 * defaults replace the index's own (else only when it has none) */
	int index_any_policy;
	/* the directory of the spool (above), NULL: none (borrowed) */
	const char *spool_dir;
	/* called every few MiB; total is 0 when unknown */
	void (*progress)(void *ud, int phase, uint64_t done, uint64_t total);
	void *progress_ud;
};
void hp_session_opts_init(struct hp_session_opts *o);

/* How the dump was read. */
struct hp_load_info {
	struct hp_stats stats;        /* records, dumps, header */
	uint64_t file_size;           /* on disk, 0 for a pipe */
	const char *reader_kind;      /* "file", "gzip", "stream" */
	uint64_t gzip_members;
	int partial;                  /* salvaged after an error */
	struct hp_error partial_err;  /* that error */
	double seconds;               /* all passes so far */
	double t_parse;               /* the first pass */
	uint64_t mem_parse;           /* the allocator's peak until the model was built or mapped (hp_alloc_phase_peak) */
	int index_written;            /* hp_session_write_index() wrote the index: */
	double t_index;               /*   the seconds it took (its thread's work before excepted) */
	uint64_t mem_index;           /*   the allocator's peak from retained sizes' end to its end */
	struct hp_mapping_stats mapped;   /* what the mapping renamed (all 0 without one) */
};

/* The stage at which the memory limit refused, and what it would take. */
enum hp_need_stage {
	HP_NEED_NONE = 0,
	HP_NEED_OPEN_BUFFERS,         /* the reader's buffers: more than `bytes` */
	HP_NEED_OPEN,                 /* the model's first allocation */
	HP_NEED_READING,              /* the parse stopped at `offset`: more than `bytes` */
	HP_NEED_HISTOGRAM,            /* the class histogram: `bytes` */
	HP_NEED_MODEL,                /* the model: `bytes` */
	HP_NEED_MODEL_RETAINED,       /* the model `bytes`, and retained sizes `retained_bytes` */
	HP_NEED_RETAINED              /* retained sizes: `bytes` in all */
};
struct hp_session_need {
	int stage;                    /* enum hp_need_stage */
	uint64_t bytes, retained_bytes, objects, offset;
};

typedef struct hp_session hp_session;

/* Nothing is read yet: the first getter opens the dump.  path "-" is
 * standard input.  HP_ENOMEM when the session itself cannot be allocated. */
int hp_session_open(hp_session **out, const char *path, const struct hp_session_opts *o,
		    struct hp_error *err) HP_MUST_USE;
void hp_session_free(hp_session *s);

const char *hp_session_path(const hp_session *s);
/* 1 when the input is read once: standard input, and a path that is no
 * regular file (a FIFO, /dev/stdin, <(...)), which is read once too */
int hp_session_one_shot(const hp_session *s);
/* 0 when the input cannot be read again: read once and no spool holds it
 * (before the object table is read: the spool could not be created) */
int hp_session_rereadable(const hp_session *s);
/* Why no spool holds a streamed input (one line, no file name), or NULL:
 * it was not needed, not tried yet, or holds the input. */
const char *hp_session_spool_note(const hp_session *s);
/* The file later passes read: the spool, else the dump's path.  For a
 * one-shot input without a spool, NULL with HP_EUSAGE in *err.  When the
 * model came from the index and the dump is streamed (gzip), the first
 * call inflates it into the spool, once (object reads at random then
 * cost what they do on a plain file). */
const char *hp_session_reread_path(hp_session *s, struct hp_error *err);

/* The class histogram: one streaming pass that keeps nothing per object
 * (the heap's object table is empty), or the full model when it was built
 * already. */
int hp_session_histogram(hp_session *s, const hp_heap **h, struct hp_error *err) HP_MUST_USE;
/* The model with the object table. */
int hp_session_model(hp_session *s, const hp_heap **h, struct hp_error *err) HP_MUST_USE;
/* The model, the reference graph and retained sizes under the session's
 * policies (one more pass over the dump).  The graph lists the referents of
 * soft, weak, final and phantom references it follows (hp_refs.followed,
 * 8 bytes each), so that leak traces can leave them out without a pass of
 * their own (analysis/leaks.h). */
int hp_session_retained(hp_session *s, const struct hp_retained **R, struct hp_error *err) HP_MUST_USE;
/* The same, or (from an index holding them under these policies) only
 * what a class table shows: the scalars, class_retained and row_retained,
 * every other array NULL, so that the graph and tree are not read. */
int hp_session_retained_sums(hp_session *s, const struct hp_retained **R, struct hp_error *err) HP_MUST_USE;
/* Likewise with everything but the reference graph (R->refs all zero):
 * the dominator tree, shallow and retained sizes, the roots. */
int hp_session_retained_tree(hp_session *s, const struct hp_retained **R, struct hp_error *err) HP_MUST_USE;
/* Likewise without the tree's order, children lists and subtree counts (NULL when
 * from an index): each object's retained size, its dominator (check it is
 * below the object count before using it as one) and root kinds. */
int hp_session_retained_values(hp_session *s, const struct hp_retained **R, struct hp_error *err) HP_MUST_USE;
/* Likewise with the reference graph (R->refs) too, and still no tree. */
int hp_session_retained_graph(hp_session *s, const struct hp_retained **R, struct hp_error *err) HP_MUST_USE;
/* 1 when hp_session_paths(s, all_weak) would take the path search from
 * the index (no pass over the dump; its checks made on that call) */
int hp_session_paths_indexed(hp_session *s, int all_weak);
/* The object reader (objread.h) over the model. */
int hp_session_objread(hp_session *s, hp_objread **rd, struct hp_error *err) HP_MUST_USE;

/* The objects of each class, by object number: class c's are
 * objs[off[c] .. off[c + 1]) (a class object under java.lang.Class, as
 * h->cls has it).  A counting sort of the class column, 4 bytes an object
 * and 4 a class, made on first use and shared by every command that
 * wants one class's objects (instead of a pass over all objects each). */
int hp_session_by_class(hp_session *s, const uint32_t **off, const uint32_t **objs,
			struct hp_error *err) HP_MUST_USE;
/* 1 when hp_session_by_class() has made its list (a kept session: serve's,
 * mcp's), so that asking costs nothing; a one-shot command looking up one
 * class may do better with one pass over the class column. */
int hp_session_by_class_made(const hp_session *s);

/* What the GC roots hold (rootshare.h) under the session's retained sizes,
 * computed on first use and kept: a pass over every reference. */
int hp_session_root_shares(hp_session *s, const struct hp_root_shares **out, struct hp_error *err) HP_MUST_USE;

/* Native sizes registered through NativeAllocationRegistry (native.h),
 * read through the object reader; with_retained: also the retained native
 * sizes and the per-heap split over the retained sizes' dominator tree. */
int hp_session_native(hp_session *s, int with_retained, const struct hp_native **N,
		      struct hp_error *err) HP_MUST_USE;

/* Paths from GC roots: the graph paths are searched in (the referents of
 * soft, weak, final and phantom references left out unless all_weak; a
 * thread's locals are starts of their own; under the mat size model the
 * class edges, which the search takes last) and a breadth-first search of it
 * from every object a GC root names.  One more pass over the dump, 12 bytes
 * per object + 4 per reference, kept for each value of all_weak asked. */
struct hp_pathsearch {
	int all_weak;
	struct hp_refs g;
	struct hp_paths P;
};
int hp_session_paths(hp_session *s, int all_weak, const struct hp_pathsearch **ps,
		     struct hp_error *err) HP_MUST_USE;

const struct hp_load_info *hp_session_load_info(const hp_session *s);
/* When this run parsed a gzip dump: its inflater ("isal" or "zlib") and
 * how many of its members were inflated ahead on two threads; else NULL. */
const char *hp_session_inflater(const hp_session *s, uint64_t *members_ahead);
/* 1 once retained sizes were computed (successfully or not) */
int hp_session_retained_done(const hp_session *s);
/* After HP_ENOMEM from a getter: the stage and the need (stage HP_NEED_NONE
 * when the limit did not refuse: the machine ran out of memory). */
const struct hp_session_need *hp_session_need(const hp_session *s);
/* 1 when the dump index asked for is past the dumps the file holds (the
 * getter returned HP_EUSAGE); *ndumps gets how many it holds */
int hp_session_no_such_dump(const hp_session *s, unsigned *ndumps);

/* The index (session opts index_path).  hp_session_index_state(): how the
 * index was found on the first getter, enum hp_index_status (HP_INDEX_OK:
 * the model was mapped from it), and *why the reason it was not used.
 * hp_session_index_pending(): 1 when the session computed what the index
 * lacks (the model was parsed, or retained sizes were computed from the
 * dump, under the dump's default policies or when the index held none),
 * so hp_session_write_index() would write it; it writes the model, how the
 * dump was read and the retained sizes when computed. */
int hp_session_index_state(const hp_session *s, const char **why);
int hp_session_index_pending(const hp_session *s);
int hp_session_write_index(hp_session *s, uint64_t *bytes, struct hp_error *err) HP_MUST_USE;

/* The weak and roots policies a dump gets by default: Android follows soft
 * referents only and hangs every root off the super-root (ahat); VisualVM's
 * and NetBeans' size models come with VisualVM's conventions; otherwise
 * Eclipse MAT's (every reference, a thread retains its locals). */
void hp_policy_defaults(const hp_heap *h, int *weak, int *roots);

#endif
