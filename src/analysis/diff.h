/*
 * diff.h — comparing heap dumps: what grew, and who holds it.
 *
 * HotSpot's object ids are addresses that change at every GC, so dumps are
 * compared by structure.  Each dump is reduced once to a summary
 * (hp_dsum_build()), small next to the dump, and the model can be freed
 * before the next dump is read; summaries of n dumps are then lined up
 * (hp_cmp_build()): `diff` is n = 2, `trend` any n >= 2.
 *
 * A summary holds, for one dump:
 *   - per class name (class loaders merged): instances, shallow bytes and,
 *     with retained sizes, the retained size of all its instances;
 *   - per GC root kind: root records, distinct objects, what they retain;
 *     per Android heap: objects and shallow bytes;
 *   - the dominator tree summarised by structure (ahat's matching, see
 *     tools/ahat/.../heapdump/Diff.java): every object of the tree gets a
 *     path of keys from a GC root.  The key of an object the super-root
 *     dominates is its root kinds and its class (a class object by the class
 *     it is, a Thread by its name); the key of any other object is how its
 *     dominator refers to it (the field or static name, "[]" for an array
 *     element, "<super>", "<loader>", the root kind of a thread's local, ""
 *     when it is held only through other objects) and its class.  The
 *     objects with the same path are one path node: how many there are
 *     (`nodes`), what they retain together and how many objects that is.
 *     ahat pairs same-key siblings one by one in order of retained size;
 *     summing them into one node pairs the same objects in aggregate, and
 *     it lets a summary be compared without its dump.  Paths stop at depth
 *     HP_DSUM_DEPTH: a deeper object is counted in its ancestor's node.
 *
 * Lined up, a path node of the union has a value per dump (0 where absent).
 * Between two dumps, the growth is attributed to "growth points"
 * (hp_cmp_growth()): walking down from the roots, a path whose number of
 * nodes changed (objects were added there, or it is new or gone) is a
 * growth point for all its retained delta, and the walk does not go below
 * it; a path with the same number of nodes passes its delta on to its
 * children and is a growth point only for what they do not explain (its
 * own shallow size changed, or what lies below HP_DSUM_DEPTH).  The points'
 * deltas add up to the change of the reachable bytes.
 *
 * Memory: hp_dsum_build() takes 8 bytes per object while it runs (the path
 * of each object, the objects each one dominates) on top of the model and
 * retained sizes; a summary keeps about 64 bytes per class and per path
 * node, and their names.  Time: one pass over the dominator tree; with an
 * object reader, the records of the instances that dominate others within
 * HP_DSUM_DEPTH are decoded once each for their field names.
 *
 * Sizes and retained sizes depend on the size model and on the weak and
 * roots policies the dump was read under (model/heap.h, analysis/retained.h),
 * and each dump has its own defaults (an Android dump's are not a HotSpot
 * dump's, nor a converted one's): a summary records what it was made under,
 * and a comparison says whether its summaries agree; comparing the same
 * objects under two models shows changes that are not there.  Choosing one
 * model for all (reading a dump again under it) is the caller's.
 *
 * Names made up at run time (lambdas, proxies, reflection accessors, CGLIB
 * and ByteBuddy classes, numbered threads: analysis/gennames.h) differ
 * between two runs of one program.  When lining up, a class or path whose
 * name is not in every summary and normalises is lined up by its normalised
 * name, together with every other one of that normalised name (at the same
 * place in the tree, for a path): one row holds all the lambdas of a class
 * in each dump, counts and sizes summed, rather than pairing one lambda of
 * one dump with an arbitrary lambda of the other.  Names in every summary,
 * names not made up, and names whose normalised name only one summary has
 * (nothing to line up with) are lined up as they are.  The rows so lined up
 * say so (normalised) and are counted (hp_cmp.norm).  Groups are lined up
 * by their own names.
 *
 * Ownership: a summary owns its strings (hp_dsum_release()); a comparison
 * borrows the summaries' strings (its normalised names are its own) and
 * must be released before them.
 */
#ifndef HP_DIFF_H
#define HP_DIFF_H

#include <stddef.h>
#include <stdint.h>
#include "model/heap.h"
#include "model/objread.h"
#include "analysis/retained.h"
#include "analysis/group.h"

#define HP_DSUM_DEPTH 16

struct hp_dsum_class {
	const char *name;
	uint64_t instances, shallow, retained;
};

struct hp_dsum_root {
	uint64_t records, objects, retained;
};

struct hp_dsum_heap {
	const char *name;             /* "app", "zygote", ...; "" for the one heap of a HotSpot dump */
	uint64_t objects, shallow;
};

struct hp_dsum_path {
	uint32_t parent;              /* path index, HP_NONE for an object the super-root dominates */
	uint32_t depth;               /* 1 at the top */
	const char *via;              /* top: the root kinds ("sticky_class", "jni_global+java_frame"),
	                                 "joint" for an object held by several roots and none itself;
	                                 else the field or static name, "[]", "<super>", "<loader>",
	                                 "<java_frame>" (a thread's local), "" (held through others) */
	const char *label;            /* "java.util.HashMap", "class gen.Growth", "thread \"main\"" */
	uint64_t nodes;               /* objects with this path */
	uint64_t retained;            /* what they retain, together */
	uint64_t objects;             /* the objects that is (their dominator subtrees) */
};

struct hp_dsum {
	int has_retained;             /* 0: histogram only (no retained sizes, no paths) */
	int android;
	int size_kind;                /* the size model of its sizes (enum hp_size_kind) */
	int weak_policy, roots_policy;   /* with retained sizes: the policies they follow
	                                 (enum hp_weak_policy, HP_ROOTS_*); else -1 */
	uint64_t timestamp_ms;        /* the header's */
	uint64_t objects, shallow;    /* the whole dump */
	uint64_t reachable, reachable_bytes, unreachable, unreachable_bytes;
	struct hp_dsum_class *classes; size_t nclasses;   /* sorted by name, names unique */
	struct hp_dsum_class *groups; size_t ngroups;     /* hp_dsum_groups(): as classes, by group name */
	struct hp_dsum_root roots[HP_ROOT_NKINDS];
	struct hp_dsum_heap heaps[HP_MAX_HEAPS]; unsigned nheaps;
	struct hp_dsum_path *paths; size_t npaths;        /* a parent before its children */
	uint64_t deep_objects;        /* objects below HP_DSUM_DEPTH, counted in an ancestor's node */
	uint64_t unnamed_fields;      /* children whose field could not be read (no object reader) */
	void *pool;                   /* the strings */
};

/* R NULL: the histogram only.  rd NULL: field and thread names are not
 * read (children of instances get via "", threads their class). */
int hp_dsum_build(const hp_heap *h, const struct hp_retained *R, hp_objread *rd, struct hp_dsum *out,
		  struct hp_error *err) HP_MUST_USE;
void hp_dsum_release(struct hp_dsum *s);
/* The groups of G (analysis/group.h, computed on the summary's heap) into
 * s->groups, by a name that holds across dumps: a package's, a component's,
 * a loader's class and own name ("java.net.URLClassLoader \"plugin-A\"",
 * "<bootstrap>"; loaders of one class without a name share one), groups of
 * one name summed.  Groups with no objects are left out. */
int hp_dsum_groups(struct hp_dsum *s, const hp_heap *h, const struct hp_groups *G, struct hp_error *err) HP_MUST_USE;

/* ---- n summaries lined up ------------------------------------------------ */

struct hp_cmp_class {
	const char *name;             /* normalised ("shop.Cart$$Lambda$*") when normalised */
	uint64_t *instances, *shallow, *retained;   /* n values each */
	uint8_t *present;                           /* n flags */
	uint32_t *names;              /* n values: the summary's classes (names) in the row */
	unsigned normalised;          /* HP_GEN_* (analysis/gennames.h) of the names lined up by
	                                 their normalised name; 0: by the name itself */
};

struct hp_cmp_path {
	uint32_t parent, depth;
	const char *via, *label;      /* label normalised when normalised */
	uint64_t *nodes, *retained, *objects;       /* n values each */
	uint8_t *present;
	uint32_t *names;              /* n values: the summary's paths lined up here */
	unsigned normalised;          /* HP_GEN_* of the labels lined up by their normalised label */
};

/* what was lined up by normalised name */
struct hp_cmp_norm {
	int runs_differ;              /* the dumps are of two runs: every made-up name normalised */
	size_t classes;               /* class rows */
	size_t threads;               /* top paths of threads ("thread \"pool-*-thread-*\"") */
	size_t paths;                 /* other path nodes */
	unsigned kinds;               /* HP_GEN_* met */
	uint64_t *class_names;        /* n values: each summary's classes in those rows */
	uint64_t *thread_names;       /* n values: each summary's threads in those paths */
};

struct hp_cmp {
	size_t n;                     /* dumps */
	int has_retained;             /* every summary has retained sizes */
	int same_model;               /* every summary has the first one's size model and (with
	                                 retained sizes) policies */
	struct hp_cmp_class *classes; size_t nclasses;   /* sorted by name */
	struct hp_cmp_class *groups; size_t ngroups;     /* the summaries' groups, by name */
	uint64_t *gvals; uint8_t *gflags;
	struct hp_cmp_path *paths; size_t npaths;        /* a parent before its children */
	uint32_t *child_off, *children;                  /* children of path p; the tops at npaths */
	struct hp_cmp_norm norm;
	uint64_t *vals, *paths_vals; uint8_t *flags, *paths_flags;   /* storage */
	uint32_t *cnames, *gnames, *pnames;
	void *pool;                   /* the normalised names */
};

int hp_cmp_build(const struct hp_dsum *const *s, size_t n, struct hp_cmp *out, struct hp_error *err) HP_MUST_USE;
void hp_cmp_release(struct hp_cmp *c);

/* A growth point between dumps a and b (see above). */
struct hp_growth {
	uint32_t path;
	int own;                      /* only the part its children do not explain */
	int64_t bytes;                /* retained delta */
	int64_t nodes;                /* objects at the path */
	int64_t objects;              /* retained objects */
};
/* Every growth point with a nonzero delta; *out is the caller's (hp_free). */
int hp_cmp_growth(const struct hp_cmp *c, size_t a, size_t b, struct hp_growth **out, size_t *nout,
		  struct hp_error *err) HP_MUST_USE;

/* ---- series -------------------------------------------------------------- */

/* The least-squares line through (i, y[i]), i = 0..n-1: slope per step and
 * R^2 (1 when y is constant: the line explains it); monotonic when y grows
 * at every step. */
struct hp_fit { double slope, intercept, r2; int monotonic; };
void hp_fit_series(const uint64_t *y, size_t n, struct hp_fit *f);

/* ---- objects that kept their id ------------------------------------------- */

/* What of a model the id matching needs, kept after the model is freed:
 * 12 bytes per object (the sorted ids, each object's class) and a name per
 * class (borrowed from the summary s, which must outlive it). */
struct hp_idcols {
	size_t n;
	uint64_t *ids;
	uint32_t *cls;
	const char **names;           /* per class index; NULL for a class without instances */
	size_t nclasses;
	uint64_t shallow;             /* the model's shallow bytes, all objects */
};
int hp_idcols_take(const hp_heap *h, const struct hp_dsum *s, struct hp_idcols *out, struct hp_error *err) HP_MUST_USE;
void hp_idcols_release(struct hp_idcols *c);

/* Two dumps of one process (ART, or a JVM with no GC between the dumps):
 * objects with the same id and class name in both are the same object.
 * One merge over the two sorted id columns.  new_count and new_bytes
 * (b->nclasses entries each, NULL to skip) get per class of b the objects
 * of b that are not in a and their shallow bytes.  An object that kept its
 * id and class has the same shallow size in both, so what is gone is a's
 * shallow bytes less what was kept. */
struct hp_idmatch {
	uint64_t kept;                /* same id, same class name */
	uint64_t reused;              /* same id, another class */
	uint64_t new_objects, new_bytes;      /* in b only (reused ones included) */
	uint64_t gone_objects, gone_bytes;    /* in a only (reused ones included) */
};
int hp_diff_ids(const struct hp_idcols *a, const hp_heap *b, struct hp_idmatch *m, uint64_t *new_count,
		uint64_t *new_bytes, struct hp_error *err) HP_MUST_USE;

#endif
