/*
 * layout.h — where an instance of each class keeps its references, for all
 * classes at once, in time and memory linear in the classes and fields.
 *
 * An instance record holds its class's own fields first, then its super
 * class's, and so on up (HotSpot and ART write them so).  Measured from the
 * end of the record, the fields of an ancestor A are at the same place in
 * an instance of any class below A; so each class keeps only its own
 * reference offsets, the field bytes of its whole chain (its own plus its
 * super class's, memoised) and a link to the next class above it that
 * declares a reference.  An instance of class C then finds ancestor A's
 * fields at bytes[C] - bytes[A] and walks only the classes that hold
 * references: no class's layout is copied into its subclasses', and a
 * chain 100,000 classes deep costs 100,000 entries, not 5 billion.
 *
 * Built once by hp_layout_build() iteratively from each class's super class
 * (an explicit stack, no recursion), loop-safe (a super chain that loops is
 * cut where it closes, as hp_heap_finish() cuts it).  The reference kind
 * (soft, weak, final, phantom) of each class and the java.lang.ref.Reference
 * in its chain are memoised the same way: a class's kind is that of the
 * nearest class of its chain (itself first) that hp_layout_name_kind()
 * names, as ahat's AhatClassInstance.getJavaLangRefType() walks it.
 *
 * Memory: 37 bytes per class plus 4 per reference field declared.
 * Owned by struct hp_layout; hp_layout_release() frees it.  The heap is
 * read only while building.
 */
#ifndef HP_LAYOUT_H
#define HP_LAYOUT_H

#include <stdint.h>
#include "model/heap.h"

struct hp_layout {
	size_t n;             /* classes */
	uint64_t *bytes;      /* field bytes of the chain from the class up */
	uint32_t *up;         /* the class itself when it declares a reference field, else the
	                         nearest one above it that does; HP_NONE when none */
	uint32_t *next;       /* up[] of the class's super class (the walk's next step) */
	uint32_t *fup, *fnext;/* the same for classes that declare any instance field (decoding
	                         every field of an instance: hp_objread) */
	uint32_t *ref_first;  /* n + 1: own reference fields of c are ref_off[ref_first[c] ..
	                         ref_first[c + 1]) */
	uint32_t *ref_off;    /* offsets from the start of the class's own fields */
	uint8_t *kind;        /* referent kind (hp_layout_name_kind()): 0 none, 1 soft, 2 weak,
	                         3 final, 4 phantom, 5 Android's final */
	uint32_t *reference;  /* java.lang.ref.Reference in the chain, HP_NONE if none */
	int32_t *referent;    /* java.lang.ref.Reference itself: own offset of its field
	                         "referent", -1 for every other class */
};

int hp_layout_build(const hp_heap *h, struct hp_layout *out) HP_MUST_USE;

/* The referent kind a class's own name gives: 1 java.lang.ref.SoftReference,
 * 2 WeakReference, 3 FinalReference (HotSpot's finalizer queue, whose
 * Finalizer extends it), 4 PhantomReference, 5 Android's FinalizerReference
 * (a Reference of its own, ART's finalizer queue: a final reference to ahat,
 * unknown to VisualVM, which skips the referents of the first four only);
 * 0 any other name. */
int hp_layout_name_kind(const char *name);
void hp_layout_release(struct hp_layout *L);

/* Walking the references of an instance of class c whose record holds len
 * field bytes, in record order:
 *     struct hp_layout_walk w;
 *     for (hp_layout_walk_init(&w, L, c); hp_layout_walk_next(&w, len, I); )
 *             use w.off (and w.is_referent: the referent of a Reference);
 * It stops at the first reference the record is too short to hold. */
struct hp_layout_walk {
	const struct hp_layout *L;
	uint64_t total;       /* bytes[c] */
	uint64_t base;        /* where the current class's own fields start */
	uint32_t a;           /* the current class */
	uint32_t j, end;      /* the next of its reference fields, and its end */
	uint32_t reference;   /* java.lang.ref.Reference in c's chain */
	uint64_t off;         /* the reference found */
	int is_referent;
};

static inline void hp_layout_walk_init(struct hp_layout_walk *w, const struct hp_layout *L, uint32_t c)
{
	w->L = L;
	w->total = L->bytes[c];
	w->a = L->up[c];
	w->reference = L->reference[c];
	w->j = w->end = 0;
	w->base = 0;
	w->is_referent = 0;
	if (w->a != HP_NONE) {
		w->j = L->ref_first[w->a];
		w->end = L->ref_first[w->a + 1];
		w->base = w->total - L->bytes[w->a];
	}
}

static inline int hp_layout_walk_next(struct hp_layout_walk *w, uint64_t len, unsigned I)
{
	const struct hp_layout *L = w->L;
	while (w->a != HP_NONE) {
		if (w->j < w->end) {
			uint32_t own = L->ref_off[w->j++];
			uint64_t o = w->base + own;
			if (o + I > len) {
				w->a = HP_NONE;
				return 0;
			}
			w->off = o;
			w->is_referent = w->a == w->reference && L->referent[w->a] == (int32_t)own;
			return 1;
		}
		w->a = L->next[w->a];
		if (w->a == HP_NONE)
			return 0;
		w->j = L->ref_first[w->a];
		w->end = L->ref_first[w->a + 1];
		w->base = w->total - L->bytes[w->a];
	}
	return 0;
}

#endif
