/*
 * browse.h — the list model under `hprofan browse` (ncdu's dirlist): a stack
 * of levels, each a list of rows with a cursor, a sort order and a filter,
 * and no terminal anywhere (the view in src/cli/cmd_browse.c only draws).
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
 *   leaks       the objects the caller listed (hp_browse_set_list(): the CLI
 *               lists the leak suspects' accumulation points and the zombie
 *               objects of analysis/leaks.h), then what they dominate.
 * Rows are built, grouped and sorted when a level is opened, and re-sorted
 * or filtered on request: work proportional to that level's rows (or, for a
 * root kind, to the root records), never to the heap.  Moving the cursor
 * and what a redraw asks (hp_browse_row, _max, _total) take constant time
 * whatever the level's size: a level of every instance of a class can hold
 * most of the heap.
 *
 * hp_browse_init() does the per-heap work once: the number of objects in
 * every dominator subtree (one reverse pass over the DFS preorder) and the
 * instances of every class (a counting sort).
 * Memory per object: subtree count 4, instances by class 4; per class 20.
 *
 * Ownership: the heap and struct hp_retained are borrowed and must outlive
 * the model; rows and levels belong to it until hp_browse_release().
 */
#ifndef HP_BROWSE_H
#define HP_BROWSE_H

#include <stddef.h>
#include <stdint.h>
#include "model/heap.h"
#include "analysis/retained.h"

enum hp_bview { HP_BV_DOM = 0, HP_BV_HISTO, HP_BV_ROOTS, HP_BV_LEAKS };
enum hp_brow_kind { HP_BR_OBJECT = 0, HP_BR_GROUP, HP_BR_CLASS, HP_BR_ROOTKIND };
enum hp_blevel_kind {
	HP_BL_DOM = 0,        /* dominator children of node (node n: the super-root) */
	HP_BL_GROUP,          /* the members of a same-class group under node */
	HP_BL_HISTO,          /* every class with instances */
	HP_BL_INSTANCES,      /* the instances of class node */
	HP_BL_KINDS,          /* root kinds with roots */
	HP_BL_ROOTS,          /* the distinct objects of root kind node */
	HP_BL_LIST            /* the objects of hp_browse_set_list() */
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
	struct hp_brow *rows;
	size_t nrows;
	uint32_t *members;    /* DOM levels: group members, by group */
	size_t *vis;          /* the rows shown, in order: indexes into rows */
	size_t nvis;
	size_t cursor, top;   /* index into vis; the first row on screen (the view's) */
	int sort, reverse, shallow;   /* the order the rows are in */
	char *filter;         /* pattern text when filtered, else NULL */
	uint64_t total_retained, total_shallow;   /* what percentages are of */
	uint64_t max_retained, max_shallow;       /* the largest visible sizes (bars) */
};

struct hp_browse {
	const hp_heap *h;
	const struct hp_retained *R;
	uint32_t *subtree;    /* per object: objects in its dominator subtree (0 unreachable) */
	uint32_t *cls_off;    /* nclasses + 1: instances of c are cls_objs[cls_off[c] .. cls_off[c+1]) */
	uint32_t *cls_objs;
	uint64_t *cls_shallow;
	int view;             /* enum hp_bview */
	int sort, reverse;    /* wanted order: enum hp_bsort, reversed from its default */
	int shallow;          /* sizes shown and sorted: shallow instead of retained */
	unsigned group_min;   /* same-class siblings grouped from this many on (default 2; 0 never) */
	struct hp_blevel *levels;
	size_t depth, cap;    /* levels[depth - 1] is the current one */
	uint32_t *list;       /* the leaks view's objects (hp_browse_set_list()) */
	size_t nlist;
	int have_list;
};

/* The model over h and R, showing the dominator view.  HP_ENOMEM. */
int hp_browse_init(struct hp_browse *m, const hp_heap *h, const struct hp_retained *R,
		   struct hp_error *err) HP_MUST_USE;
void hp_browse_release(struct hp_browse *m);

/* The objects the leaks view lists (copied; repeats dropped). */
int hp_browse_set_list(struct hp_browse *m, const uint32_t *objs, size_t n, struct hp_error *err) HP_MUST_USE;

/* Starts view v (enum hp_bview) at its top level (HP_BV_LEAKS: the list
 * given, empty before hp_browse_set_list()). */
int hp_browse_set_view(struct hp_browse *m, int v, struct hp_error *err) HP_MUST_USE;

static inline struct hp_blevel *hp_browse_level(const struct hp_browse *m)
{
	return &m->levels[m->depth - 1];
}
/* the row at vis index i of the current level (i < nvis) */
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

#endif
