/*
 * refstats.h — Eclipse MAT's soft, weak and phantom reference statistics
 * and its finalizer overview (refstats.c).
 *
 * Reachability: Java orders strengths strong > soft > weak > final >
 * phantom, and a path from the GC roots is as weak as its weakest link:
 * the referent edge of a Reference has the Reference's kind (model/layout.h:
 * SoftReference soft; WeakReference weak; FinalReference, so HotSpot's
 * Finalizer, and Android's FinalizerReference final; PhantomReference, so
 * the Cleaners, phantom); every other edge is strong.  An object's level is
 * the strongest path's.  One breadth-first search per level, iterative (a
 * queue, no recursion): from the roots over strong edges; then from the
 * referents of the soft references reached so far, over strong and soft
 * edges; then weak, final and phantom alike, each object keeping the first
 * level that reaches it.  O(objects + edges) in all, plus a scan of the
 * referent list per level.  The graph is the retained sizes' (R->refs): it
 * must follow every referent (HP_WEAK_FOLLOW) and list them (list_followed,
 * as the session builds it), and the searches start from R's root
 * objects, so the levels together hold what the dominator tree reaches
 * (R->reachable).
 *
 * Per level and class: objects, shallow bytes, and retained: the retained
 * sizes of the level's top objects, those with no ancestor of the same
 * level in the dominator tree (a fold, fold.h).  Their subtrees are
 * disjoint, so the classes' retained bytes add up to the level's.  (Along
 * the tree levels only weaken: what dominates an object reaches it as
 * strongly.  A top object's subtree may hold objects of weaker levels, so
 * two levels' retained bytes may overlap.)
 *
 * References: the Reference objects the roots reach, by class: how many,
 * their shallow bytes, how many have a referent in the dump, and those
 * referents by level (MAT's "referents strongly retained" is by_level
 * strong; "only softly" the level of the kind).
 *
 * Finalizers: HotSpot's java.lang.ref.Finalizer (registered: the list
 * from the static `unfinalized` through Finalizer.next; ready: the queue
 * Finalizer.queue from its `head` through Reference.next; in processing: a
 * reachable Finalizer taken off the list, its next itself, whose referent
 * is still set) and ART's java.lang.ref.FinalizerReference (the list from
 * the static `head`; the queue `queue` through Reference.queueNext, a
 * queued object in `zombie` once its referent is cleared).  Each group by
 * the finalizable object's class, its retained bytes those of the group's
 * top objects as above; registered leaves out what is queued.  Every
 * Finalizer instance is read once (hp_objread, prefetched in file order);
 * a walk ends at null, at itself, at an object that is no Finalizer (ART's
 * sentinel), or where it loops (counted in `loops`).
 *
 * Memory: one byte per object (the level, kept in reach), 4 per reached
 * object for the queue while searching, 8 per referent (the list sorted),
 * 24 bytes per class for each level and group, 32 per Finalizer instance.
 */
#ifndef HP_ANALYSIS_REFSTATS_H
#define HP_ANALYSIS_REFSTATS_H

#include <stddef.h>
#include <stdint.h>
#include "base/error.h"
#include "model/heap.h"
#include "model/objread.h"
#include "analysis/retained.h"

enum hp_reach { HP_REACH_NONE = 0, HP_REACH_STRONG, HP_REACH_SOFT, HP_REACH_WEAK, HP_REACH_FINAL, HP_REACH_PHANTOM,
		HP_REACH_N };
/* "strong", "soft", "weak", "final", "phantom" ("none" for HP_REACH_NONE) */
const char *hp_reach_name(int level);
/* the level a referent of a Reference of kind k (hp_refs_reference_kind())
 * is reached at: a kind no name gives is strong */
int hp_reach_of_kind(int k);

struct hp_reach_class {
	uint32_t cls;
	uint64_t objects, shallow;
	uint64_t retained;            /* of the top objects (see above) */
};

/* objects by class: c by retained, then shallow, largest first, then class index */
struct hp_reach_group {
	struct hp_reach_class *c;
	size_t n;
	uint64_t objects, shallow, retained;
};

struct hp_ref_class {
	uint32_t cls;
	int level;                    /* the level its referents are reached at, through it */
	uint64_t instances, shallow;
	uint64_t referents;           /* with a referent in the dump */
	uint64_t by_level[HP_REACH_N];   /* those referents by their level */
};

enum { HP_FIN_NONE = 0, HP_FIN_HOTSPOT, HP_FIN_ART };

struct hp_finalizers {
	int flavor;                   /* HP_FIN_*: NONE when the dump has neither class */
	uint32_t cls;                 /* java.lang.ref.Finalizer or FinalizerReference */
	uint64_t instances;           /* of it, reachable or not */
	int has_queue, has_list;      /* the statics name objects of the dump */
	struct hp_reach_group queue, registered, running;
	int64_t queue_length;         /* the queue's queueLength as dumped; -1 none (ART) */
	uint64_t loops;               /* walks that came back to an entry seen */
	uint32_t thread;              /* the finalizer thread's object ("Finalizer",
	                                 "FinalizerDaemon"), HP_NONE when not found */
};

struct hp_refstats {
	struct hp_reach_group level[HP_REACH_N];   /* [HP_REACH_NONE]: the unreachable (retained 0) */
	uint64_t reached;             /* objects at some level */
	struct hp_ref_class *refs;    /* by instances, most first, then class index */
	size_t nrefs;
	uint64_t refs_unreachable;    /* Reference objects no root reaches (left out of refs) */
	struct hp_finalizers fin;
	uint8_t *reach;               /* per object, enum hp_reach (owned) */
};

/* R: retained sizes with the graph (HP_WEAK_FOLLOW, the referents listed)
 * and the dominator tree (HP_EUSAGE otherwise); rd: for the Finalizers. */
int hp_refstats_compute(const hp_heap *h, const struct hp_retained *R, hp_objread *rd, struct hp_refstats *out,
			struct hp_error *err) HP_MUST_USE;
void hp_refstats_release(struct hp_refstats *s);

#endif
