/*
 * fold.h — sums over the dominator tree that count each key once: a key's
 * sum takes an object only when no ancestor of it in the tree has the same
 * key, so that a subtree holding many objects of the key adds its retained
 * size once, at its topmost object.  The per-class retained sizes
 * (retained.c), the native sizes per row (native.c), the groups' retained
 * sizes and wastes (group.c) and the sites' and call-tree nodes' retained
 * sizes (sites.c) are such sums; each gives its keys and callbacks here.
 *
 * Keys are numbers 0 .. nkeys-1.  An object has a chain of keys, each at
 * most once: key(v) (HP_NONE: none), then next(k) after each key k until
 * HP_NONE (next NULL: one key per object): a class; a package and the
 * packages enclosing it; a site, its call-tree node and the node's callers.
 * A chain is the caller's (its keys' structure, never the dump's) and must
 * end: next() must not cycle.
 *
 * The tree is hp_retained's: the children of v are
 * children[child_off[v] .. child_off[v+1]), the super-root is n and its
 * children are the objects it dominates; the super-root has no keys.
 *
 * Algorithm: one depth-first walk from the super-root, children in their
 * order, with an explicit stack, and per key a counter of the objects with
 * that key on the path from the super-root to the object visited (the
 * key's "active" count).  Entering v: enter(v), when given, is asked first,
 * and 0 leaves v and its subtree out (no key counted, no callback: for a
 * sum whose subtrees there are known to add nothing); then for each key k
 * of v's chain, in chain order, top(v, k) when active[k] is 0 (v is the
 * topmost object of k on its path), and active[k]++.  Leaving v, after its
 * subtree: for each key of its chain, active[k]--, and top_done(v, k) when
 * it comes to 0 (the subtree of a topmost object is done: its objects were
 * entered since top(v, k), for a sum over the subtree).  ahead(s) names a
 * sibling two places ahead of the object entered, for the callbacks to
 * prefetch what they will read of it (the walk prefetches its child_off).
 *
 * No recursion: the stack grows with the tree's depth (8 bytes a level: a
 * chain of 10 million objects takes 80 MB), never the call stack.
 * Cost: O(objects + the keys of their chains): key() is called twice per
 * object and next() twice per key of its chain, entering and leaving.
 * Memory: 4 bytes per key and 8 per level of the deepest path, freed on
 * return.
 *
 * hp_fold() is a static inline function, written once here: each caller
 * passes its callbacks (static inline where speed matters) in a static
 * const struct hp_fold_ops, and the compiler inlines them into the
 * caller's copy of the walk.  The per-class
 * sums are on the path of every retained computation, where the same walk
 * compiled apart, calling its callbacks through the pointers, costs 38%
 * more instructions (callgrind, the per-class phase of `top` on a dump of
 * 3.4 M objects: 680 M against 493 M).
 *
 * Returns HP_OK, HP_ENOMEM, or the first non-zero status top() returns,
 * which stops the walk.
 */
#ifndef HP_FOLD_H
#define HP_FOLD_H

#include <stddef.h>
#include <stdint.h>
#include "analysis/prefetch.h"
#include "model/heap.h"
#include "base/alloc.h"
#include "base/error.h"

struct hp_fold_ops {
	uint32_t (*key)(void *ud, uint32_t v);               /* v's first key, HP_NONE: none */
	uint32_t (*next)(void *ud, uint32_t k);              /* the key after k, HP_NONE; NULL: one key */
	int (*enter)(void *ud, uint32_t v);                  /* NULL, or 0 to leave v's subtree out */
	int (*top)(void *ud, uint32_t v, uint32_t k);        /* NULL, or v is k's topmost: non-zero stops */
	void (*top_done)(void *ud, uint32_t v, uint32_t k);  /* NULL, or that subtree is done */
	void (*ahead)(void *ud, uint32_t v);                 /* NULL, or v is entered soon */
};

#define HP_FOLD_STACK0 4096   /* frames first allocated; the stack doubles past them */

static inline int hp_fold(const uint32_t *child_off, const uint32_t *children, size_t n, size_t nkeys,
			  const struct hp_fold_ops *ops, void *ud) HP_MUST_USE;

static inline int hp_fold(const uint32_t *child_off, const uint32_t *children, size_t n, size_t nkeys,
			  const struct hp_fold_ops *ops, void *ud)
{
	struct hp_fold_frame { uint32_t v, next; } *stack = hp_reallocarray(NULL, HP_FOLD_STACK0, sizeof *stack);
	uint32_t *active = hp_calloc(nkeys ? nkeys : 1, sizeof *active);
	size_t cap = HP_FOLD_STACK0, sp = 0;
	int rc = HP_OK;
	if (!stack || !active) {
		rc = HP_ENOMEM;
		goto out;
	}
	stack[sp].v = (uint32_t)n;
	stack[sp].next = child_off[n];
	sp++;
	while (sp) {
		struct hp_fold_frame *f = &stack[sp - 1];
		uint32_t end = child_off[f->v + 1];
		if (f->next == end) {
			uint32_t v = f->v;
			sp--;
			if (v == n)
				continue;
			for (uint32_t k = ops->key(ud, v); k != HP_NONE; k = ops->next ? ops->next(ud, k) : HP_NONE)
				if (!--active[k] && ops->top_done)
					ops->top_done(ud, v, k);
			continue;
		}
		uint32_t v = children[f->next++];
		if (f->next + 2 < end) {
			uint32_t s = children[f->next + 2];
			PREFETCH(&child_off[s]);
			if (ops->ahead)
				ops->ahead(ud, s);
		}
		if (ops->enter && !ops->enter(ud, v))
			continue;
		for (uint32_t k = ops->key(ud, v); k != HP_NONE; k = ops->next ? ops->next(ud, k) : HP_NONE)
			if (!active[k]++ && ops->top && (rc = ops->top(ud, v, k)) != HP_OK)
				goto out;
		if (sp == cap) {
			/* doubled here, not by hp_grow(): through it the fold ran
			 * 1.9% more instructions (callgrind) */
			struct hp_fold_frame *ns = hp_reallocarray(stack, 2 * cap, sizeof *ns);
			if (!ns) {
				rc = HP_ENOMEM;
				goto out;
			}
			stack = ns;
			cap *= 2;
		}
		stack[sp].v = v;
		stack[sp].next = child_off[v];
		sp++;
	}
out:
	hp_free(stack);
	hp_free(active);
	return rc;
}

#endif
