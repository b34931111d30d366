/*
 * collections.h — the size of a JDK or Android collection, read from the
 * collection as the collection itself counts it.
 *
 * Known classes (and their subclasses: the nearest known class up the super
 * chain decides), with where the size comes from:
 *   java.util.HashMap, LinkedHashMap, WeakHashMap, IdentityHashMap, TreeMap,
 *   ArrayList, LinkedList, PriorityQueue   the int field size
 *   java.util.Vector                       elementCount
 *   java.util.Hashtable (Properties)       count
 *   java.util.HashSet (LinkedHashSet)      its map's size (field map)
 *   java.util.TreeSet                      its map's size (field m)
 *   java.util.concurrent.ConcurrentHashMap baseCount plus the value of every
 *                                          CounterCell in counterCells
 *                                          (its sumCount(); below 0 is 0)
 *   java.util.ArrayDeque                   tail - head modulo elements.length
 *   java.util.concurrent.CopyOnWriteArrayList  the length of its array
 *   java.util.concurrent.CopyOnWriteArraySet   its list's (field al)
 *   android.util.ArrayMap, ArraySet, SparseArray, LongSparseArray,
 *   SparseIntArray, SparseBooleanArray, SparseLongArray, androidx.collection
 *   SimpleArrayMap, ArraySet, SparseArrayCompat, LongSparseArray   mSize
 *
 * A size is only given when it is consistent: the field is there with its
 * Java type, not negative, at most the length of the backing array when the
 * collection has one (ArrayList.elementData, an ArrayMap's mHashes, a
 * SparseArray's mKeys, ...), and at most the dump's objects for the
 * collections made of one object per entry.  Otherwise the collection is
 * known but its size is not (hp_collection.why says why); never an error.
 * A set's or wrapper's inner collection is followed one level, no more.
 *
 * Cost: one or two records read again (objread.h); a ConcurrentHashMap one
 * more per CounterCell (at most as many as the machine has processors).
 * Nothing here prints; names are static or borrowed from the heap.
 */
#ifndef HP_COLLECTIONS_H
#define HP_COLLECTIONS_H

#include <stdint.h>
#include "model/heap.h"
#include "model/objread.h"

struct hp_collection {
	const char *family;       /* the known class ("java.util.HashMap"); NULL: not a collection */
	int map;                  /* 1: a map (its size counts entries), 0: elements */
	int known;                /* size is known */
	uint64_t size;
	const char *why;          /* !known: why not (static text) */
};

/* The known class that class cls is or extends, as an index into the
 * table (>= 0), or -1 when it is no known collection.  No record read. */
int hp_collection_class(const hp_heap *h, uint32_t cls);

/* What object obj is as a collection: out->family NULL when it is none.
 * Errors only when the dump cannot be read again (objread.h). */
int hp_collection_of(const hp_heap *h, hp_objread *rd, uint32_t obj, struct hp_collection *out,
		     struct hp_error *err) HP_MUST_USE;

/* The entries of a collection, in the order its own iterator gives them
 * (hash maps and sets: table order; TreeMap: key order; lists, queues and
 * deques: first to last).  A map's entry has key and value; a list's or a
 * set's, its element in value (key 0).  Ids are 0 for null; a SparseArray's
 * key is a primitive (key_type HP_T_INT or HP_T_LONG, key_bits the value
 * sign-extended), else key_type is 0.  IdentityHashMap's NULL_KEY object
 * is given as the null key it stands for. */
struct hp_entry {
	uint64_t index;           /* 0, 1, ... in the walk's order */
	uint64_t key, value;      /* ids, 0 for null */
	uint8_t key_type;         /* 0: key is an id; HP_T_INT, HP_T_LONG: key_bits */
	uint64_t key_bits;
};
/* called for each entry; non-zero stops the walk */
typedef int hp_entry_fn(void *ud, const struct hp_entry *e);

/* Walks obj's entries: the JDK's HashMap, LinkedHashMap, WeakHashMap,
 * Hashtable, Properties, ConcurrentHashMap (a TreeBin's nodes too),
 * IdentityHashMap, TreeMap, HashSet, LinkedHashSet, TreeSet, ArrayList,
 * Vector, PriorityQueue, LinkedList, ArrayDeque, CopyOnWriteArrayList and
 * Set, Arrays.asList and List/Set/Map.of, Android's and androidx' ArrayMap,
 * SimpleArrayMap, ArraySet, SparseArray and LongSparseArray, their
 * subclasses, and an object array's elements.  *map: 1 a map, 0 a list or
 * a set (or an array), -1 none of these (nothing walked).  A count field
 * beyond its array gives what the array holds; every record the walk reads
 * counts, and it stops after as many as the dump has objects (a cycle in a
 * hostile dump).  Errors only when the dump cannot be read again. */
int hp_collection_walk(const hp_heap *h, hp_objread *rd, uint32_t obj, hp_entry_fn *fn, void *ud, int *map,
		       struct hp_error *err) HP_MUST_USE;

#endif
