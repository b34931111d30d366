/*
 * paths.h — how an object is reached: shortest paths from GC roots,
 * referrers, the dominator chain.
 *
 * Shortest paths: one breadth-first search over the forward reference graph
 * (struct hp_refs, CSR) from every start object at once (the CLI passes the
 * objects some GC root names), fully iterative: a queue, no recursion, so a
 * chain of millions of links is fine.  For every object it leaves the object
 * it was first reached from (parent) and its distance from the nearest start
 * (depth).  Which references count is the graph's business: build it with
 * HP_WEAK_SKIP to leave out the referents of soft, weak, final and phantom
 * references, with HP_WEAK_FOLLOW to take every reference.
 * Class edges (refs.h: Eclipse MAT's edge from an object to its class
 * object) are taken last: first a search over every other edge, then, in
 * rounds, from the class objects of what was reached to what only they
 * lead to; so a path goes through a class edge only when no other path
 * exists, and through as few as it can.
 * Time O(objects + edges).  Memory: 8 bytes per object kept (parent, depth)
 * and 4 more during the search (the queue), plus 8 per class object
 * reached only through a class edge.
 *
 * More than one path (hp_paths_shortest): the first is the BFS tree's path;
 * the others end with a different last referrer each, the referrers taken
 * nearest the roots first (ties by object number), each with the BFS tree's
 * shortest path to it.  So path k is the shortest path whose last step comes
 * from the k-th nearest referrer; paths may share their beginnings.  A
 * referrer reached only through the target itself is left out (the path
 * would loop).
 *
 * Referrers (hp_paths_referrers, hp_paths_holders): one scan of all edges,
 * O(edges); of a class object, whose referrers' class edges are implicit
 * (refs.h), one pass over the objects and their edges.  The other paths (k > 1) come from the holders: a class edge
 * is the last step of one only when nothing else refers to the target.
 * Dominator chain (hp_paths_dom_chain): idom links up to the super-root.
 *
 * Long paths (a linked list of a million nodes gives one of a million
 * steps) are shown by their ends, one rule for every command that lists a
 * path: its first head nodes, its last tail nodes, and the count of the
 * nodes between them (struct hp_path_gap).  The functions with _cut in
 * their name write only the nodes kept: memory in proportion to head +
 * tail, time in proportion to the path (one walk up the tree).
 *
 * Ownership: struct hp_paths owns parent and depth (hp_paths_release());
 * the graph is borrowed for each call.  Arrays returned through pointers
 * are the caller's (hp_free()); struct hp_pathlist is released with
 * hp_paths_list_release().
 */
#ifndef HP_PATHS_H
#define HP_PATHS_H

#include <stddef.h>
#include <stdint.h>
#include "model/refs.h"
#include "analysis/dominators.h"

#define HP_PATH_UNSEEN UINT32_MAX         /* parent of an object no start reaches */
#define HP_PATH_START  (UINT32_MAX - 1)   /* parent of a start object */

struct hp_paths {
	size_t n;
	uint32_t *parent;         /* n: object, HP_PATH_START or HP_PATH_UNSEEN (plus bias) */
	uint32_t *depth;          /* n: edges from the nearest start, UINT32_MAX unseen (plus bias) */
	uint32_t bias;            /* 0, or 1 after a search with targets: the tables hold each value
	                             plus 1 (unsigned), so unseen is 0 and they need no pass to set
	                             up: a search that stops early writes (and the system clears)
	                             only the pages of what it reached.  Read them with
	                             hp_paths_parent() and hp_paths_depth(). */
	uint64_t reached;         /* objects reached, starts included */
	uint64_t through_class;   /* of those, reached only through a class edge */
};
static inline uint32_t hp_paths_parent(const struct hp_paths *P, size_t v) { return P->parent[v] - P->bias; }
static inline uint32_t hp_paths_depth(const struct hp_paths *P, size_t v) { return P->depth[v] - P->bias; }

/* Breadth-first search of g from the starts (repeats are fine; each must be
 * < g->n, else HP_EUSAGE).  On error *P is empty. */
int hp_paths_bfs(struct hp_paths *P, const struct hp_refs *g, const uint32_t *starts, size_t nstarts,
		 struct hp_error *err) HP_MUST_USE;
/* The same, leaving out the edges (from, to) listed in skip (nskip pairs,
 * sorted by from then to): the referents a graph built for retained sizes
 * followed (hp_refs.followed, sorted); and, when ntargets > 0, stopping as
 * soon as every object of targets (repeats fine, each < g->n) is reached:
 * the paths to them are the same, the objects not reached yet are left
 * HP_PATH_UNSEEN (1 bit per object more while searching). */
int hp_paths_bfs_skip(struct hp_paths *P, const struct hp_refs *g, const uint32_t *starts, size_t nstarts,
		      const uint32_t (*skip)[2], size_t nskip, const uint32_t *targets, size_t ntargets,
		      struct hp_error *err) HP_MUST_USE;
void hp_paths_release(struct hp_paths *P);

/* How much of a path is shown: the first head nodes (from its start) and the
 * last tail ones; nothing is left out of a path of head + tail + 1 nodes or
 * fewer (a count of one would take the place of the node it stands for).
 * The defaults keep a path of up to 21 nodes whole; HP_PATH_WHOLE as head
 * keeps every path whole. */
#define HP_PATH_HEAD 10
#define HP_PATH_TAIL 10
#define HP_PATH_WHOLE SIZE_MAX

/* The nodes a cut path leaves out: its nodes at .. at + n - 1. */
struct hp_path_gap {
	size_t at;                /* the nodes kept before the gap (the path's length when n is 0) */
	size_t n;                 /* the nodes left out; 0: the path is whole */
	uint32_t first, last;     /* the first and the last node left out (HP_PATH_UNSEEN when n
	                             is 0): last is the one that refers to the node after the gap */
};
/* The gap of a path of len nodes shown by its first head and last tail nodes
 * (each 1 at least: a path's start and end are always shown); first and last
 * are left HP_PATH_UNSEEN for the functions that read the path to fill. */
struct hp_path_gap hp_path_gap(size_t len, size_t head, size_t tail);

/* The search tree's path to v (a start first, v last), cut as *gap says (a
 * gap of hp_path_gap() for depth(v) + 1 nodes, or more when the caller adds
 * nodes after v, tail 1 or more then): writes the nodes kept to dst (room
 * for depth(v) + 1 - gap->n) and fills gap->first and gap->last.
 * HP_ECORRUPT when parent and depth do not chain from v to a start. */
int hp_paths_tree_cut(const struct hp_paths *P, uint32_t v, struct hp_path_gap *gap, uint32_t *dst,
		      struct hp_error *err) HP_MUST_USE;

/* Paths from a start to the target, each listed start first, target last. */
struct hp_pathlist {
	size_t npaths;
	size_t *first;            /* npaths + 1: path p's nodes kept are nodes[first[p] .. first[p + 1]) */
	uint32_t *nodes;
	struct hp_path_gap *gap;  /* npaths: what path p leaves out (n 0: nothing) */
};

/* Up to k shortest paths to target as described above, whole: none when no
 * start reaches it (npaths 0, HP_OK). */
int hp_paths_shortest(const struct hp_paths *P, const struct hp_refs *g, uint32_t target, size_t k,
		      struct hp_pathlist *out, struct hp_error *err) HP_MUST_USE;
/* The same, each path cut to its first head and last tail nodes. */
int hp_paths_shortest_cut(const struct hp_paths *P, const struct hp_refs *g, uint32_t target, size_t k,
			  size_t head, size_t tail, struct hp_pathlist *out, struct hp_error *err) HP_MUST_USE;
void hp_paths_list_release(struct hp_pathlist *l);

/* The distinct objects with an edge to target (target itself when it refers
 * to itself), in object order: *out (caller frees) and *n. */
int hp_paths_referrers(const struct hp_refs *g, uint32_t target, uint32_t **out, size_t *n,
		       struct hp_error *err) HP_MUST_USE;

/* Who holds target, as paths see it: the referrers of hp_paths_referrers()
 * but those whose one edge to target is their class edge (refs.h), unless
 * nothing else refers to target; then those (class_listed). */
struct hp_holders {
	uint32_t *obj;            /* in object order; NULL when n is 0 */
	size_t n;
	uint64_t through_class;   /* referrers whose one edge to target is their class edge */
	int class_listed;         /* 1: obj lists those (no other referrer); 0: they are left out */
};
int hp_paths_holders(const struct hp_refs *g, uint32_t target, struct hp_holders *out,
		     struct hp_error *err) HP_MUST_USE;
void hp_paths_holders_release(struct hp_holders *h);

/* v's dominators, nearest first (v itself is not in the list), up to the
 * one the super-root dominates: *out (caller frees) and *n; *n is 0 for an
 * object only the super-root dominates, and for an unreachable one. */
int hp_paths_dom_chain(const struct hp_dom *d, uint32_t v, uint32_t **out, size_t *n,
		       struct hp_error *err) HP_MUST_USE;
/* The same cut to its head nearest and tail farthest dominators: *n of
 * them, what is left out between in *gap. */
int hp_paths_dom_chain_cut(const struct hp_dom *d, uint32_t v, size_t head, size_t tail, uint32_t **out,
			   size_t *n, struct hp_path_gap *gap, struct hp_error *err) HP_MUST_USE;

#endif
