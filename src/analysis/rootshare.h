/*
 * rootshare.h — what the GC roots hold, attributed so that it adds up.
 *
 * Every reachable object is in the dominator subtree of exactly one child
 * of the super-root, so the retained sizes of those children sum to the
 * reachable heap.  Each child is one of:
 *   - a root object: its row is the set of root kinds whose records name
 *     it and hang it off the super-root (under --roots=threads a stack local
 *     of a known thread hangs off its Thread instead, so a thread's locals
 *     count in the "thread object" row, not twice);
 *   - an object no root names but two or more roots reach by paths that
 *     share no object ("held jointly"): its row is the set of root kinds
 *     that reach it.
 * Rows are keyed by (kind set, joint); their retained sizes sum to the
 * reachable heap.  Objects made roots under HP_ROOTS_UNREACHABLE are a root
 * row of no kind.
 *
 * The kinds that reach a joint object: an object below a child c of the
 * super-root is reached exactly by what reaches c, so only the edges into
 * the children matter.  One pass over the objects and their edges in
 * order, testing each edge's target against a bit per object (the joint
 * children), gives the graph between the children; only at an edge into
 * one is the source's child found, up the dominator tree (each object's
 * remembered), and an edge is kept once per run of sources in one subtree
 * and grouped by source with a counting sort (no sort of every edge).
 * The kind sets flow along it with a worklist (a set grows at most 16
 * times).  Memory: 4 bytes and a bit per object while computing, 8 per
 * edge kept, then per child of the super-root 12 bytes.
 */
#ifndef HP_ROOTSHARE_H
#define HP_ROOTSHARE_H

#include <stddef.h>
#include <stdint.h>
#include "model/heap.h"
#include "analysis/retained.h"

struct hp_root_share {
	uint16_t kinds;          /* bit set: 1 << root kind */
	int joint;               /* 1: held jointly by roots of these kinds */
	uint64_t objects;        /* children of the super-root in the row */
	uint64_t retained;       /* what they retain */
};

struct hp_root_shares {
	struct hp_root_share *rows;   /* root rows by kind set, then joint rows, largest first */
	size_t n;
	uint64_t total;               /* the rows' retained sizes summed: the reachable heap */
};

/* HP_ENOMEM; on error *out is empty. */
int hp_root_shares_compute(const hp_heap *h, const struct hp_retained *R, struct hp_root_shares *out,
			   struct hp_error *err) HP_MUST_USE;
void hp_root_shares_release(struct hp_root_shares *s);

#endif
