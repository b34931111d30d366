/*
 * dominators.h — the dominator tree of a heap graph under a virtual
 * super-root, and retained sizes.
 *
 * Input: a graph in CSR form over objects 0..n-1 (n <= UINT32_MAX - 2):
 * the targets of object v are adj[off[v]] .. adj[off[v+1] - 1]; off has
 * n + 1 entries and is 64-bit, so more than 4 G edges work.  A virtual
 * super-root S has an edge to every root (roots may repeat; the list may be
 * empty).  Self-loops, duplicate edges and cycles are fine.  Object u
 * dominates v when every path from S to v passes through u; idom[v] is the
 * closest strict dominator, HP_DOM_SUPER when that is S (e.g. an object held
 * by two roots), HP_DOM_UNREACHABLE when no root reaches v.
 *
 * Algorithm: Lengauer and Tarjan, "A Fast Algorithm for Finding Dominators
 * in a Flowgraph" (TOPLAS 1979), the simple version with path compression,
 * fully iterative so a 10-million-link chain needs no call stack:
 *   1. depth-first search from S with no stack: the DFS tree's parent links
 *      are the stack, and a per-node cursor remembers the next edge;
 *   2. predecessors as a reverse CSR in preorder numbers (self-loops and
 *      the edges into a root left out: a root's semidominator is S whatever
 *      else refers to it; S -> root edges put in);
 *   3. semidominators in reverse preorder, with eval()'s path compression
 *      done by pointer reversal (no stack either); each node waits in the
 *      bucket of its semidominator, and the buckets share storage with the
 *      labels and the result, so they cost nothing;
 *   4. one pass in preorder turns relative dominators into idoms.
 * Time O(m log n) for n reachable nodes and m of their edges; in practice
 * near linear (three passes over the reachable edges).  Semi-NCA would be
 * slightly faster on typical graphs but is O(n^2) on some (a long chain
 * whose tail holds many objects that a shallow node also holds), which a
 * 30-million-object heap can hit.
 *
 * Memory during hp_dom_compute(), on top of the caller's graph, for n
 * objects of which r are reachable, with e_r edges leaving reachable ones
 * and not entering a root:
 *   4 n     idom (until the end: the preorder number of each object)
 *   20 n    during the DFS: per object 16 (DFS parent / compressed ancestor,
 *           label, the label's semidominator, bucket link / relative idom:
 *           one cache-line slot) and 4 (edge cursor, then reverse-edge
 *           offsets, then each node's semidominator once its reverse edges
 *           are done; 8 when the graph has 4 G edges or more, counting the
 *           root entries); cut down to r entries when the DFS is over
 *   n / 8   while the reverse edges are made: which objects are roots
 *   4 (e_r + nroots)   reverse edges (self-loops not stored)
 * Peak: max(24 n, 4 n + 20 r + n / 8 + 4 (e_r + nroots)), i.e. at most 24.2
 * bytes per object + 4 per edge (+ 4 per root entry; 4 more per object past
 * 4 G edges); hp_dom.peak_bytes reports the exact figure.  When that would
 * pass the memory budget or limit (base/alloc.h), the cursors living in the
 * nodes instead would not, and there are fewer than 2^31 objects, they do
 * (dominators_lt.h, DOM_COMPACT): 4 bytes per reached object less, the pass
 * a fifth slower.
 * The reverse edges (step 2) are counted and filled on two threads when
 * two CPUs are there and the graph is big (hp_dom_parallel_from objects).  What stays
 * afterwards is idom (4 n) and order (4 r), order being built at the end
 * when the rest has been given back.  Big arrays use huge pages (Linux;
 * hp_malloc() advises every big block to), which matters because every
 * pass is mostly cache misses.
 *
 * Ownership: hp_dom_compute() fills a caller-owned struct hp_dom; idom and
 * order belong to it until hp_dom_release().  The graph, roots and sizes
 * are borrowed for the duration of each call only.
 */
#ifndef HP_DOMINATORS_H
#define HP_DOMINATORS_H

#include <stddef.h>
#include <stdint.h>
#include "base/error.h"

#define HP_DOM_SUPER       (UINT32_MAX - 1)   /* idom of nodes dominated only by the super-root */
#define HP_DOM_UNREACHABLE UINT32_MAX         /* idom of nodes no root reaches */
#define HP_DOM_MAX_NODES   (UINT32_MAX - 2)   /* n must be at most this */

struct hp_dom {
	uint32_t n;
	uint32_t *idom;        /* n entries: object, HP_DOM_SUPER or HP_DOM_UNREACHABLE */
	uint32_t *order;       /* the reachable objects in DFS preorder from the
	                          super-root: idom[v] comes before v */
	uint32_t nreach;       /* entries in order */
	uint64_t peak_bytes;   /* most memory hp_dom_compute() held at once */
};

/*
 * Fills *d.  Roots and the targets of reachable objects must be < n, else
 * HP_EUSAGE; off must be non-decreasing.  HP_ENOMEM when out of memory.  On
 * error *d is left empty (hp_dom_release() is harmless on it).
 */
int hp_dom_compute(struct hp_dom *d, uint32_t n, const uint64_t *off, const uint32_t *adj,
		   const uint32_t *roots, size_t nroots, struct hp_error *err) HP_MUST_USE;
/* the same for a graph whose edge offsets fit in 32 bits (fewer than 4 G edges) */
int hp_dom_compute32(struct hp_dom *d, uint32_t n, const uint32_t *off, const uint32_t *adj,
		     const uint32_t *roots, size_t nroots, struct hp_error *err) HP_MUST_USE;
/* The same for a heap's reference graph (model/refs.h), its implicit class
 * edges included: each object's class edge comes first, as in the graph. */
struct hp_refs;
int hp_dom_compute_refs(struct hp_dom *d, const struct hp_refs *g, const uint32_t *roots, size_t nroots,
			struct hp_error *err) HP_MUST_USE;
/* About the most memory the pass takes for n objects and nedges edges
 * (class edges included), with the cursor array or without (compact):
 * the figure its choice between the two is made on. */
uint64_t hp_dom_bytes(uint32_t n, uint64_t nedges, size_t nroots, int compact);
/* tests only: nonzero makes both use 64-bit cursors even when 32 bits would
 * do; compact_cursors: no cursor array (what a tight memory budget or
 * limit chooses, dominators.c) below 2^31 objects */
extern int hp_dom_wide_cursors, hp_dom_compact_cursors;
/* the reverse edges are made on two threads (two CPUs) from this many
 * objects on (tests lower it) */
extern size_t hp_dom_parallel_from;

/*
 * retained[v] = sum of shallow[] over v's dominator subtree (v included); 0
 * for unreachable objects.  *total (if not NULL) = the retained size of the
 * super-root, the sum of shallow[] over reachable objects.  shallow and
 * retained have d->n entries (retained is caller-owned and fully written).
 * One pass over the objects and one over order in reverse: O(n).
 */
int hp_dom_retained(const struct hp_dom *d, const uint64_t *shallow, uint64_t *retained,
		    uint64_t *total, struct hp_error *err) HP_MUST_USE;
/* The same with retained[] holding each reachable object's shallow size
 * (0 for the unreachable ones) on the way in: summed up the tree in place. */
int hp_dom_accumulate(const struct hp_dom *d, uint64_t *retained, uint64_t *total,
		      struct hp_error *err) HP_MUST_USE;

void hp_dom_release(struct hp_dom *d);

#endif
