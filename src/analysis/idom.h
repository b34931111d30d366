/*
 * idom.h — Eclipse MAT's "immediate dominators" of a set of objects
 * (idom.c): for each object of the set, the nearest object that dominates
 * it, looking past the classes marked to skip (MAT's "skip java.*"); the
 * dominators grouped by class, each with how many dominators, their
 * retained bytes (each dominator once), and how many objects of the set it
 * dominates and their shallow and retained bytes.  Objects only the GC
 * roots together dominate (the super-root) form one group, class HP_NONE;
 * unreachable ones are counted apart.
 * Cost: one walk up the dominator tree per object of the set (at most the
 * tree's depth each, no recursion); memory: a byte per object (the
 * dominators seen) and the groups.
 */
#ifndef HP_ANALYSIS_IDOM_H
#define HP_ANALYSIS_IDOM_H

#include <stddef.h>
#include <stdint.h>
#include "base/error.h"
#include "model/heap.h"
#include "analysis/retained.h"

struct hp_idom_group {
	uint32_t cls;                 /* the dominators' class, HP_NONE for the GC roots */
	uint64_t dominators;          /* distinct dominator objects */
	uint64_t retained;            /* their retained bytes, each once */
	uint64_t dominated;           /* objects of the set they dominate */
	uint64_t dominated_shallow, dominated_retained;
};

struct hp_idom {
	struct hp_idom_group *g;      /* by retained, largest first, then dominated_retained, class index */
	size_t n;
	uint64_t objects;             /* in the set */
	uint64_t unreachable;         /* of them, no GC root reaches (no dominator) */
};

/* set: n object numbers (duplicates counted once); skip: per class index,
 * 1 to look past a dominator of that class (NULL: none).  R must hold the
 * dominator tree (idom) and retained sizes. */
int hp_idom_compute(const hp_heap *h, const struct hp_retained *R, const uint32_t *set, size_t n,
		    const uint8_t *skip, struct hp_idom *out, struct hp_error *err) HP_MUST_USE;
void hp_idom_release(struct hp_idom *d);

#endif
