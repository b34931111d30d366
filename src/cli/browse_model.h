/*
 * browse_model.h — the list model under `hprofan browse` (ncdu's dirlist):
 * a stack of levels, each a list of rows with a cursor, a sort order and a
 * filter, and no terminal anywhere (the view in src/cli/cmd_browse.c only
 * draws).  It answers no question about the heap, so it lives beside its
 * view; tests/wall.sh keeps curses and printing out of it.
 *
 * Three views, each a tree walked one level at a time:
 *   dominators  the super-root's dominator-tree children, then any object's;
 *               same-class siblings become one group row ("[1,204 x byte[]]")
 *               that opens like a folder (class objects are never grouped:
 *               each is a different class);
 *   histogram   classes (count, shallow, retained), then a class's instances,
 *               then an instance's dominator children;
 *   roots       root kinds, then the distinct objects of a kind, then what
 *               they dominate;
 *   leaks       the ThreadLocal suspects the caller gave (hp_browse_set_tls():
 *               one row each, which opens into its values in every thread)
 *               and the objects it listed (hp_browse_set_list(): the CLI
 *               lists the other leak suspects' accumulation points and the
 *               zombie objects of analysis/leaks.h), then what they dominate;
 *   threads     the threads of analysis/threads.h (hp_browse_set_threads()),
 *               then a thread's frames, each followed by the objects it
 *               holds (in stack order, never re-sorted), then what a local
 *               dominates;
 *   groups      the class histogram grouped by package, loader or component
 *               (analysis/group.h, hp_browse_set_groups()): the top-level
 *               groups, then a group's subpackages and classes, then a
 *               class's instances.
 * Rows are built, grouped and sorted when a level is opened, and re-sorted
 * or filtered on request: work proportional to that level's rows (or, for a
 * root kind, to the root records), never to the heap.  Moving the cursor
 * and what a redraw asks (hp_browse_row, _max, _total) take constant time
 * whatever the level's size: a level of every instance of a class can hold
 * most of the heap.
 *
 * Lazy levels: a level of only objects (a class's instances, a group's
 * members, a root kind's objects, the leaks list) with at least
 * hp_browse_lazy_from rows keeps just their object numbers (4 bytes a row)
 * and puts them in order only where a row is asked for: a quickselect
 * around the position asked (random pivots; positions already final are
 * marked in a bitmap and bound the next partitions), the small pieces left
 * sorted outright.  Opening such a level costs one pass over its objects
 * (sums and the largest size for the bars), a screen of rows about two more
 * (O(n + k log k) for the first k rows), and memory of 4 bytes and a bit a
 * row: hp_browse_row() makes the row asked for in a ring of 256, so its
 * pointer holds until 256 more rows of that level are asked for.
 * Re-sorting one forgets what was final (a bitmap clear) and finds the
 * cursor's row by its rank (one pass).
 *
 * Search (hp_browse_search()): a depth-first walk of the dominator tree
 * (children in the tree's own order), resumed where the last match was;
 * matching goes by class name, asked once per class.  The walk's stack is
 * the match's ancestors, which hp_browse_reveal() opens level by level.
 *
 * hp_browse_init() does the per-heap work once: the number of objects in
 * every dominator subtree (one reverse pass over the DFS preorder; an
 * index keeps them, and then there is nothing to do).  The instances of
 * every class (a counting sort) are made by a thread of their own that
 * hp_browse_prepare() starts once the first screen is up; a view of
 * classes (histogram, groups) waits for it, or makes them itself when it
 * was not started.
 * Memory per object: subtree count 4, instances by class 4; per class 20.
 * It reads the dominator tree and sizes only: the retained sizes without
 * the reference graph will do (hp_session_retained_tree()).
 *
 * Ownership: the heap and struct hp_retained are borrowed and must outlive
 * the model; rows and levels belong to it until hp_browse_release().
 */
#ifndef HP_BROWSE_H
#define HP_BROWSE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include "model/heap.h"
#include "analysis/retained.h"
#include "analysis/threads.h"
#include "analysis/group.h"

enum hp_bview { HP_BV_DOM = 0, HP_BV_HISTO, HP_BV_ROOTS, HP_BV_LEAKS, HP_BV_THREADS, HP_BV_GROUPS };
enum hp_brow_kind {
	HP_BR_OBJECT = 0, HP_BR_GROUP, HP_BR_CLASS, HP_BR_ROOTKIND,
	HP_BR_THREAD,         /* id: index in hp_threads.t */
	HP_BR_FRAME,          /* id: frame depth (HP_FRAME_NONE: the roots without a frame) */
	HP_BR_CGROUP,         /* id: index in hp_groups.g */
	HP_BR_TLS             /* id: index in the ThreadLocal suspects (hp_browse_set_tls()) */
};
enum hp_blevel_kind {
	HP_BL_DOM = 0,        /* dominator children of node (node n: the super-root) */
	HP_BL_GROUP,          /* the members of a same-class group under node */
	HP_BL_HISTO,          /* every class with instances */
	HP_BL_INSTANCES,      /* the instances of class node */
	HP_BL_KINDS,          /* root kinds with roots */
	HP_BL_ROOTS,          /* the distinct objects of root kind node */
	HP_BL_LIST,           /* the objects of hp_browse_set_list() */
	HP_BL_THREADS,        /* every thread */
	HP_BL_STACK,          /* thread node's frames and locals (stack order) */
	HP_BL_CGROUPS,        /* the top-level groups */
	HP_BL_CGROUP,         /* group node's subgroups and classes */
	HP_BL_TLVALUES        /* ThreadLocal suspect node's values */
};
enum hp_bsort { HP_BSORT_SIZE = 0, HP_BSORT_NAME, HP_BSORT_COUNT };

struct hp_brow {
	uint8_t kind;         /* enum hp_brow_kind */
	uint8_t hidden;       /* left out by the level's filter */
	uint32_t id;          /* object, class index or root kind */
	uint32_t first, n;    /* GROUP: members[first .. first + n) of its level */
	uint64_t retained, shallow;
	uint64_t count;       /* objects in the dominator subtree(s); class: instances; kind: objects */
};

struct hp_blevel {
	int kind;             /* enum hp_blevel_kind */
	uint32_t node;        /* object, class index or root kind the level lists */
	struct hp_brow *rows;  /* lazy levels: a ring of the rows last asked for */
	size_t nrows;
	uint32_t *members;    /* DOM levels: group members, by group */
	size_t *vis;          /* the rows shown, in order: indexes into rows */
	size_t nvis;
	size_t cursor, top;   /* index into vis; the first row on screen (the view's) */
	int sort, reverse, shallow;   /* the order the rows are in */
	char *filter;         /* pattern text when filtered, else NULL */
	uint64_t total_retained, total_shallow;   /* what percentages are of */
	uint64_t max_retained, max_shallow;       /* the largest visible sizes (bars) */
	int fixed;            /* rows stay in the order built (a stack) */
	/* lazy levels (see above): rows[i] is made when asked for */
	int lazy;
	const uint32_t *src;  /* every object of the level (borrowed, or own_src) */
	size_t nsrc;
	uint32_t *own_src;
	uint32_t *order;      /* the visible objects; order[i] is final where done has bit i */
	uint64_t *done;
	uint64_t rng;
};

struct hp_browse {
	const hp_heap *h;
	const struct hp_retained *R;
	const uint32_t *subtree;   /* per object: objects in its dominator subtree (0 unreachable):
	                              the index's (R->subtree), or subtree_own */
	uint32_t *subtree_own;
	uint32_t *cls_off;    /* nclasses + 1: instances of c are cls_objs[cls_off[c] .. cls_off[c+1]) */
	uint32_t *cls_objs;
	uint64_t *cls_shallow;
	pthread_t cls_th;     /* makes the three above after the first screen */
	int cls_th_on;
	int view;             /* enum hp_bview */
	int sort, reverse;    /* wanted order: enum hp_bsort, reversed from its default */
	int shallow;          /* sizes shown and sorted: shallow instead of retained */
	unsigned group_min;   /* same-class siblings grouped from this many on (default 2; 0 never) */
	struct hp_blevel *levels;
	size_t depth, cap;    /* levels[depth - 1] is the current one */
	uint32_t *list;       /* the leaks view's objects (hp_browse_set_list()) */
	size_t nlist;
	int have_list;
	struct hp_btls { char *name; uint64_t retained; size_t first, n; } *tls;   /* hp_browse_set_tls() */
	size_t ntls;
	uint32_t *tl_vals;    /* their values: tls[i]'s are tl_vals[first .. first + n) */
	const struct hp_threads *T;    /* the threads view's (borrowed) */
	const char *const *tnames;     /*   their names, per thread (borrowed) */
	const struct hp_groups *G;     /* the groups view's (borrowed) */
	const char *const *gnames;     /*   their names, per group (borrowed) */
	/* the search's walk: stack of (node, next child) from the super-root */
	struct hp_bwalk { uint32_t v, next; } *walk;
	size_t nwalk, capwalk;
	int walk_started;
};

/* The model over h and R, showing the dominator view.  HP_ENOMEM. */
int hp_browse_init(struct hp_browse *m, const hp_heap *h, const struct hp_retained *R,
		   struct hp_error *err) HP_MUST_USE;
void hp_browse_release(struct hp_browse *m);
/* Starts making the instances by class on a thread of their own (once the
 * first screen is drawn); hp_browse_release() waits for it. */
void hp_browse_prepare(struct hp_browse *m);

/* The threads view's threads and their names (both borrowed: they must
 * outlive the model), and the groups view's groups and names. */
void hp_browse_set_threads(struct hp_browse *m, const struct hp_threads *T, const char *const *names);
void hp_browse_set_groups(struct hp_browse *m, const struct hp_groups *G, const char *const *names);

/* The objects the leaks view lists (copied; repeats dropped). */
int hp_browse_set_list(struct hp_browse *m, const uint32_t *objs, size_t n, struct hp_error *err) HP_MUST_USE;

/* The leaks view's ThreadLocal suspects, each one row before the objects
 * of hp_browse_set_list(): suspect i named names[i], retaining
 * retained[i] (its distinct values' retained sizes summed), its values
 * vals[off[i] .. off[i + 1]) (everything copied; values not in the heap
 * dropped). */
int hp_browse_set_tls(struct hp_browse *m, size_t n, const char *const *names, const uint64_t *retained,
		      const size_t *off, const uint32_t *vals, struct hp_error *err) HP_MUST_USE;

/* Starts view v (enum hp_bview) at its top level (HP_BV_LEAKS: the list
 * given, empty before hp_browse_set_list()). */
int hp_browse_set_view(struct hp_browse *m, int v, struct hp_error *err) HP_MUST_USE;

static inline struct hp_blevel *hp_browse_level(const struct hp_browse *m)
{
	return &m->levels[m->depth - 1];
}
/* the row at vis index i of the current level (i < nvis); a lazy level's
 * row lives in a ring: the pointer holds until 256 more rows are asked for */
const struct hp_brow *hp_browse_row(const struct hp_browse *m, size_t i);
/* the row under the cursor, NULL when the level shows none */
const struct hp_brow *hp_browse_cur(const struct hp_browse *m);
/* the size shown and sorted by (retained or shallow) */
uint64_t hp_browse_size(const struct hp_browse *m, const struct hp_brow *r);
/* what the current level's percentages are of */
uint64_t hp_browse_total(const struct hp_browse *m);
/* the largest shown size among the visible rows (for bars); kept with the
 * rows, so O(1) */
uint64_t hp_browse_max(const struct hp_browse *m);
/* the class name a row sorts and filters by (a class object: the class it is) */
const char *hp_browse_name(const struct hp_browse *m, const struct hp_brow *r);
/* 1 when the row can be opened */
int hp_browse_can_open(const struct hp_browse *m, const struct hp_brow *r);

/* Cursor: by delta (clamped), or to a position (SIZE_MAX: the last). */
void hp_browse_move(struct hp_browse *m, long delta);
void hp_browse_goto(struct hp_browse *m, size_t pos);

/* Opens the row under the cursor: 1 opened, 0 nothing to open, else an error. */
int hp_browse_descend(struct hp_browse *m, struct hp_error *err) HP_MUST_USE;
/* Back to the parent level, where its cursor was: 1 done, 0 at the top. */
int hp_browse_ascend(struct hp_browse *m);

/* Sorts by key; the key in use again reverses the order.  The cursor stays
 * on its row. */
void hp_browse_sort(struct hp_browse *m, int key);
/* retained <-> shallow sizes (re-sorts when sorted by size) */
void hp_browse_toggle_shallow(struct hp_browse *m);

/* Shows only the rows whose hp_browse_name() match() accepts; match NULL
 * (or text NULL) shows all.  text is kept for display.  The filter belongs
 * to the current level: a level opened below starts unfiltered, the level
 * keeps it when returned to.  HP_ENOMEM. */
int hp_browse_filter(struct hp_browse *m, int (*match)(void *ud, const char *name), void *ud,
		     const char *text, struct hp_error *err) HP_MUST_USE;

/* levels of at least this many rows are sorted by a radix sort (same order
 * as the comparison sort below it); tests lower it */
extern size_t hp_browse_radix_from;
/* object levels of at least this many rows are lazy (see above); tests lower it */
extern size_t hp_browse_lazy_from;

/* Search: the next object after the last match (from the top when
 * restart, or before any search) in a depth-first walk of the dominator
 * tree whose class name (hp_browse_name's) match() accepts, into *found
 * (HP_NONE when no object matches); *wrapped is set when the walk went past
 * the end and began again at the top.  Work: the objects walked, and
 * match() once per class.  HP_ENOMEM. */
int hp_browse_search(struct hp_browse *m, int restart, int (*match)(void *ud, const char *name), void *ud,
		     uint32_t *found, int *wrapped, struct hp_error *err) HP_MUST_USE;

/* Shows object v in the dominator view: the levels from the top down to
 * its dominator opened, the cursor on its row (in a group's level when
 * same-class siblings are grouped).  Returns HP_OK, 1 when no root reaches
 * v (nothing changes), or an error. */
int hp_browse_reveal(struct hp_browse *m, uint32_t v, struct hp_error *err) HP_MUST_USE;

#endif
