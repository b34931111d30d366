/*
 * native.h — the native memory Android objects own through
 * libcore.util.NativeAllocationRegistry, credited to the Java objects that
 * own it (ahat's "registered native size", perfetto's native_size).
 *
 * Android 7.0 and later register each native allocation that a Java object
 * owns (a Bitmap's pixels, a Matrix, a Paint...) with a registry that knows
 * its size, and free it with a Cleaner:
 *
 *     sun.misc.Cleaner (or jdk.internal.ref.Cleaner)  --referent-->  owner
 *       .thunk  -> libcore.util.NativeAllocationRegistry$CleanerThunk
 *       .this$0 -> libcore.util.NativeAllocationRegistry
 *       .size   (long) bytes
 *
 * Every Cleaner whose chain reads through to a size above 0 credits that
 * size to its referent (an owner registered several times gets the sum).
 * A chain that breaks anywhere (a null field, an object of another class, a
 * size <= 0) credits nothing and is counted in `broken`.  The classes are
 * matched by name, subclasses included.  The objects are read again from
 * the dump through the object reader: the Cleaners, their thunks and each
 * registry once (gzip: a forward pass each, objread.h).
 *
 * Native bytes are kept apart from the Java sizes: nothing here changes a
 * shallow or retained size of retained.h.
 *
 * Retained native (hp_native_retain()): an object's native bytes plus those
 * of every object it dominates, summed along the dominator tree of
 * retained.h without recursion (its preorder, in reverse); per histogram
 * row, the sum over the row's objects with no dominator-tree ancestor of the
 * same class (as hp_retained.row_retained: the fold of fold.h).  Per Android heap: the Java
 * bytes, the native bytes, and what GC roots hold of both (the objects some
 * root reaches).
 *
 * Memory: 8 bytes per object for the shallow figures, 8 more for the
 * retained ones, allocated only when some native size was found; 12 bytes
 * per Cleaner while reading.  Owned by struct hp_native;
 * hp_native_release() frees it.  The heap is borrowed.
 */
#ifndef HP_NATIVE_H
#define HP_NATIVE_H

#include <stdint.h>
#include "model/heap.h"
#include "model/objread.h"
#include "analysis/retained.h"

struct hp_native_heap {
	uint64_t java;                /* shallow bytes of the heap's objects */
	uint64_t native;              /* native bytes credited to them */
	uint64_t held_java, held_native;   /* of those, held by GC roots (reachable objects) */
};

struct hp_native {
	uint64_t *shallow;            /* per object, NULL when no native size was found */
	uint64_t *retained;           /* per object after hp_native_retain(), else NULL */
	uint64_t *row_shallow;        /* per histogram row (with shallow) */
	uint64_t *row_retained;       /* per histogram row (with retained) */
	uint64_t total;               /* every size credited */
	uint64_t cleaners;            /* Cleaner objects in the dump */
	uint64_t registered;          /* of those, chains read through to a size */
	uint64_t broken;              /* chains that break (see above) */
	uint64_t owners;              /* objects credited */
	uint64_t registries;          /* distinct registries met */
	int has_registry;             /* the dump has the registry's classes */
	const char *why_none;         /* no native size was found: why (static text); else NULL */
	/* per Android heap (index as hp_heap_name()), filled by hp_native_retain() */
	int split_done;
	struct hp_native_heap heaps[HP_MAX_HEAPS];
	uint64_t held_native;         /* native bytes of objects GC roots hold */
};

/* Reads the chains of every Cleaner in h (with its object table) through rd. */
int hp_native_compute(const hp_heap *h, hp_objread *rd, struct hp_native *N, struct hp_error *err) HP_MUST_USE;
/* Retained native sizes, per row, and the per-heap split, over R's dominator tree. */
int hp_native_retain(const hp_heap *h, const struct hp_retained *R, struct hp_native *N,
		     struct hp_error *err) HP_MUST_USE;
void hp_native_release(struct hp_native *N);

/* Gives each class with flags[c] == 0 the flags of its nearest super class
 * that has some (subclasses inherit what their super classes are): O(classes),
 * a super chain in a cycle ends it.  HP_ENOMEM when out of memory. */
int hp_class_flags_inherit(const hp_heap *h, uint8_t *flags) HP_MUST_USE;

/* the native bytes credited to obj (0 when none) */
static inline uint64_t hp_native_of(const struct hp_native *N, size_t obj)
{
	return N && N->shallow ? N->shallow[obj] : 0;
}
static inline uint64_t hp_native_retained_of(const struct hp_native *N, size_t obj)
{
	return N && N->retained ? N->retained[obj] : 0;
}

#endif
