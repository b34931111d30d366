/*
 * mergepaths.h — Eclipse MAT's "merge shortest paths to GC roots"
 * (mergepaths.c): the shortest paths from the GC roots to every object of
 * a set, merged into one tree from the roots down.
 *
 * The paths are those of a breadth-first search (paths.h: its parent
 * links), so they merge where they meet: the tree is the union of the
 * search tree's paths to the set's objects.  Each node counts the objects
 * of the set at or below it (MAT's "Ref. Objects") and their shallow
 * bytes ("Ref. Shallow Heap"); a node's children are ordered by that
 * count, largest first, then by those bytes, then by object number.
 * Objects of the set the search did not reach are counted apart.
 *
 * Cost: one walk up the search tree per object of the set, stopping at
 * the first node the tree has already (so O(set + tree) steps, no
 * recursion: a chain of millions of links is fine), a sort of the set, a
 * counting sort of the nodes by depth (the counts) and by parent (the
 * children), then a sort of each node's children.  Memory: about 60 bytes
 * per node of the tree (hash, arrays, a cursor each while placing) and 4
 * per object of the set, nothing per object of the heap.
 */
#ifndef HP_ANALYSIS_MERGEPATHS_H
#define HP_ANALYSIS_MERGEPATHS_H

#include <stddef.h>
#include <stdint.h>
#include "base/error.h"
#include "analysis/paths.h"
#include "model/heap.h"

#define HP_MERGE_TOP UINT32_MAX       /* the parent of a node the search starts at */

struct hp_mergepaths {
	size_t n;                     /* nodes */
	uint32_t *obj;                /* n: each node's object */
	uint32_t *parent;             /* n: its parent node, HP_MERGE_TOP for a start */
	uint64_t *count;              /* n: objects of the set at or below it */
	uint64_t *ref_shallow;        /* n: their shallow bytes */
	uint8_t *in_set;              /* n: 1 when its object is one of the set */
	size_t *first;                /* n + 1: node t's children are kids[first[t] .. first[t + 1]) */
	uint32_t *kids;               /* n - ntops nodes, each node's in order */
	uint32_t *tops;               /* the starts, in the same order */
	size_t ntops;
	uint64_t objects;             /* in the set (each once) */
	uint64_t reached;             /* of them, reached by the search */
	uint64_t reached_shallow;     /* their shallow bytes */
};

/* set: nset object numbers (repeats counted once; each < P->n, else
 * HP_EUSAGE); h: the model, whose shallow sizes are summed.  P must come
 * from a whole search (no targets) or one whose targets were the set. */
int hp_mergepaths_build(const struct hp_paths *P, const uint32_t *set, size_t nset, const hp_heap *h,
			struct hp_mergepaths *out, struct hp_error *err) HP_MUST_USE;
void hp_mergepaths_release(struct hp_mergepaths *m);

#endif
