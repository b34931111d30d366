/*
 * retained.h — retained sizes: the reference graph, the dominator tree over
 * a virtual super-root, and what each object, class, root and root kind
 * retains.
 *
 * Roots policy: every GC root is an edge from the super-root, except
 * thread-local roots with a known thread (JAVA FRAME, JNI LOCAL, NATIVE
 * STACK, THREAD BLOCK) under HP_ROOTS_THREADS, which become Thread -> object
 * edges so that a thread retains its locals (Eclipse MAT).  Under
 * HP_ROOTS_ALL every root hangs off the super-root (ahat, VisualVM).
 * Objects no root reaches are counted apart and retain nothing.
 *
 * Eclipse MAT's graph (the mat size model, unless opts.visualvm): every
 * object also refers to its class object (refs.h: class edges), so a class
 * object that an instance reached another way holds is not dominated by the
 * class loader that lists it.
 *
 * VisualVM's retained sizes (opts.visualvm, and always under the visualvm
 * and netbeans size models): VisualVM's search for live objects, its
 * dominator tree (referents and unreachable objects share what they
 * reference, no class -> super class edges, an instance may hold its class)
 * and its "tree objects" rules, object for object (retained.c says how).
 * They are not sums over dominator subtrees: a class object that is not a
 * tree object retains all but itself, and a GC root can count in its one
 * referrer.  Per class, class objects do not count.  Extra memory: about
 * 33 bytes per object while computing.
 *
 * Per class: the retained size of all its instances counted once, i.e. the
 * sum over instances with no ancestor of the same class in the dominator
 * tree (the fold of fold.h: one iterative walk of the tree with a counter
 * per class).
 *
 * Memory per object: refs 4 + 4/edge (class edges implicit), dominators
 * (see dominators.h), retained 8, tree children 8 while aggregating.  The
 * shallow sizes are not kept: the model gives each (hp_retained_shallow()).
 */
#ifndef HP_RETAINED_H
#define HP_RETAINED_H

#include <stdint.h>
#include "model/heap.h"
#include "model/refs.h"
#include "analysis/dominators.h"
#include "base/alloc.h"

/* HP_ROOTS_UNREACHABLE: as HP_ROOTS_THREADS, and then every object no root
 * reaches becomes a root (Eclipse MAT's "keep unreachable objects"): first
 * those no object refers to, then one per cycle left, in file order, each
 * taking what it reaches; a dump cut before its GC roots (HotSpot writes
 * them last) still gets a dominator tree */
enum { HP_ROOTS_THREADS = 0, HP_ROOTS_ALL = 1, HP_ROOTS_UNREACHABLE = 2 };

struct hp_retained_opts {
	int weak;             /* enum hp_weak_policy */
	int roots;            /* HP_ROOTS_THREADS, HP_ROOTS_ALL or HP_ROOTS_UNREACHABLE */
	int visualvm;         /* VisualVM's retained sizes (see above) */
	int list_followed;    /* hp_refs.followed: the referents followed (refs.h) */
	void (*progress)(void *ud, uint64_t done);
	void *progress_ud;
};

struct hp_root_kind_sum {
	uint64_t roots;       /* root records of this kind */
	uint64_t objects;     /* distinct root objects of this kind */
	uint64_t retained;    /* retained alone by the root objects of this kind */
};

struct hp_retained {
	int weak, roots_policy;
	int visualvm;                 /* VisualVM's retained sizes: per class, class objects do not count */
	struct hp_refs refs;
	struct hp_dom dom;
	const hp_heap *heap;          /* the model the sizes are of: hp_retained_shallow() */
	uint64_t *retained;           /* per object */
	uint32_t *root_objs;          /* objects with an edge from the super-root (sorted, unique) */
	size_t nroot_objs;
	size_t nmade_roots;           /* HP_ROOTS_UNREACHABLE: objects made roots */
	uint16_t *root_kinds;         /* per object bit set of root kinds (1 << kind), 0 if none */
	uint64_t reachable, reachable_bytes;
	uint64_t unreachable, unreachable_bytes;
	uint64_t joint;               /* bytes held jointly by several roots */
	uint32_t *child_off;          /* dominator tree: children of v are children[child_off[v] .. child_off[v+1]); */
	uint32_t *children;           /*   the super-root's are at index n */
	uint32_t *subtree;            /* per object: objects in its dominator subtree, itself included (0:
	                                 unreachable); only from an index (NULL when computed):
	                                 hp_retained_subtree() makes them */
	uint64_t *class_retained;     /* per class index */
	uint64_t *row_retained;       /* per histogram row (class, heap) */
	struct hp_root_kind_sum kinds[HP_ROOT_NKINDS];
	/* seconds spent in each phase, for --stats and make bench */
	double t_refs, t_dom, t_retained, t_aggregate;
	uint64_t dom_peak_bytes;
	/* the allocator's peak in each (hp_alloc_phase_peak): from the parse's
	 * end to the references' end, then to the dominators' end (the roots'
	 * collection with them), then to the end (retained sizes, the class
	 * sums, the root kinds); 0 from an index */
	uint64_t mem_refs, mem_dom, mem_retained;
	struct hp_alloc_io io_dom;    /* the dominator pass's page traffic (base/alloc.h) */
	int mapped;                   /* the arrays point into a mapped index (session/index.h):
	                                 hp_retained_release() frees none of them */
};

/* Object v's shallow size: the model's (hp_heap_shallow()), not an array. */
static inline uint64_t hp_retained_shallow(const struct hp_retained *R, size_t v)
{
	return hp_heap_shallow(R->heap, v);
}

int hp_retained_compute(const hp_heap *h, const char *path, const struct hp_retained_opts *o,
			struct hp_retained *out, struct hp_error *err) HP_MUST_USE;
void hp_retained_release(struct hp_retained *r);

/* R->subtree's counts, made from the dominator tree of n objects (one
 * reverse pass over the preorder) into *out (hp_free() it): 4 bytes per
 * object.  HP_OK or HP_ENOMEM. */
int hp_retained_subtree(const struct hp_retained *R, size_t n, uint32_t **out) HP_MUST_USE;

/* 1 when root record r hangs off its thread's object rather than the
 * super-root under roots policy `policy` (a stack root of a known thread,
 * HP_ROOTS_THREADS or HP_ROOTS_UNREACHABLE) */
int hp_retained_root_on_thread(const hp_heap *h, int policy, const struct hp_root_rec *r);
/* 1 when v hangs off the super-root (it is in root_objs) */
int hp_retained_has_super_edge(const struct hp_retained *R, uint32_t v);

/* The retained set of the objects v with in_set[v] != 0 (n entries): the
 * objects that only paths through the set reach, the set included.  Uses the
 * reference graph and roots of R (so its weak and roots policies). */
int hp_retained_set(const hp_heap *h, const struct hp_retained *R, const uint8_t *in_set,
		    uint64_t *objects, uint64_t *bytes, struct hp_error *err) HP_MUST_USE;

#endif
