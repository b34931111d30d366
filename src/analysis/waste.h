/*
 * waste.h — memory that could be saved: duplicate Strings and primitive
 * arrays, constant arrays, mostly-null object arrays, empty and under-filled
 * collections, boxed primitives (Eclipse MAT's "duplicate strings",
 * "collection fill ratio", "arrays with constant values" and friends).
 *
 * One forward pass over the dump's records (the parser's sink with field and
 * array bytes, so a gzip dump is read once, not object by object) over the
 * model with its object table:
 *   - each primitive array's elements are hashed (64 bits, with its type and
 *     length) and whether all its elements are equal noted; no copy of any
 *     content is kept;
 *   - each java.lang.String keeps its value array and, where the layout has
 *     them, coder (JDK 9+) and offset/count (JDK 6, Android KitKat).  Two Strings are duplicates when their value arrays
 *     hash alike and coder, offset and count agree (ART's count holds the
 *     length and the compression flag, equal for equal content);
 *   - object arrays of 8 elements or more count their null slots;
 *   - instances of the collections below read their size and table fields.
 * Then everything is sorted and grouped.  Duplicates are by 64-bit hash: two
 * different contents hashing alike (about 1 in 2^64 per pair) would be
 * counted as one.
 *
 * What each section counts as wasted (bytes under the heap's size model):
 *   strings     all but one String of each content, and all but one of the
 *               distinct value arrays they use (Strings sharing an array
 *               count it once);
 *   arrays      duplicate primitive arrays (not a String's value, not
 *               constant): all but one copy;
 *   constant    primitive arrays of HP_WASTE_CONST_MIN elements or more, all
 *               equal (not a String's value), whatever their duplicates:
 *               the whole array, grouped by element type and value.  Such
 *               an array is a buffer never written (all zero) or filled
 *               with one value: sharing one copy would not save it (a
 *               buffer is written later, each its own), allocating it later
 *               or smaller would.  It is not in the total (never_written);
 *   null_slots  object arrays of HP_WASTE_CONST_MIN elements or more, at
 *               least 90% null (not a collection's table): the share of the
 *               array the null slots take, grouped by class;
 *   collections ArrayList, Vector, ArrayDeque, HashMap, LinkedHashMap,
 *               Hashtable, WeakHashMap, IdentityHashMap (a HashSet is a
 *               HashMap inside, counted as that) with size 0: the
 *               collection and its table (when it has one of non-zero
 *               length); with a fill (size / capacity) of at most 25%: the
 *               share of the table the empty slots take.  Grouped by class
 *               and fill: empty, 1-10%, 11-25%;
 *   boxes       java.lang.Integer, Long, Short, Byte, Character, Boolean,
 *               Float, Double: each one's size less its primitive's.
 * Rows of fewer than min_count objects are left out (of the row lists and
 * the section totals alike).  The total counts each byte once (a value
 * array two rows of Strings share once, through a bit per object): dedup,
 * what deduplication saves (strings and arrays), plus what smaller or
 * later collections, object arrays and primitives save (null_slots,
 * collections, boxes).  never_written, the constant section, is apart:
 * never added to the total.
 *
 * Memory: a bit per object, plus 24 bytes per primitive array, 16 per String
 * and 24 bytes per collection instance, freed but for the rows when done.
 * Owned by struct hp_waste; hp_waste_release() frees it.  The heap is
 * borrowed and only read.
 */
#ifndef HP_WASTE_H
#define HP_WASTE_H

#include <stddef.h>
#include <stdint.h>
#include "model/heap.h"

#define HP_WASTE_CONST_MIN 8      /* elements an array needs to be a constant or null-slot row */

enum hp_waste_section_kind {
	HP_WASTE_STRINGS = 0, HP_WASTE_ARRAYS, HP_WASTE_CONSTANT, HP_WASTE_NULL_SLOTS,
	HP_WASTE_COLLECTIONS, HP_WASTE_BOXES, HP_WASTE_NSECTIONS
};

enum hp_waste_fill { HP_WASTE_EMPTY = 0, HP_WASTE_FILL10, HP_WASTE_FILL25 };

struct hp_waste_row {
	uint32_t sample;              /* an object of the row (strings, arrays: the copy kept) */
	uint32_t cls;                 /* its class */
	uint8_t type;                 /* arrays, constant: element type */
	uint8_t fill;                 /* collections: enum hp_waste_fill */
	uint32_t length;              /* arrays: elements; constant: the sample's */
	uint64_t value;               /* constant: the element's bits (big-endian, zero-extended) */
	uint64_t count;               /* objects (strings: Strings; boxes: instances) */
	uint64_t bytes;               /* their size (strings: the Strings and distinct arrays) */
	uint64_t wasted;
};

struct hp_waste_section {
	struct hp_waste_row *rows;    /* by wasted, largest first */
	size_t n, cap;
	uint64_t count, wasted;       /* sums over the rows */
};

/* where the bytes of the total are (hp_waste_by_object()): per object, by
 * object number, each object once; a whole object counts its size, an
 * under-filled collection's empty slots count in its table (the collection
 * when it has none), a mostly-null array's in the array, a box's in the box */
struct hp_waste_obj { uint32_t obj; uint64_t bytes; };

struct hp_waste {
	struct hp_waste_section s[HP_WASTE_NSECTIONS];
	struct hp_waste_obj *objs;    /* hp_waste_by_object() only; their bytes add up to total */
	size_t nobjs;
	uint64_t total;               /* could be saved, each byte once: dedup and the rest */
	uint64_t dedup;               /* of total: the strings and arrays sections' */
	uint64_t never_written;       /* the constant section's bytes, not in total */
	uint64_t never_written_n;     /* its arrays */
	uint64_t strings, prim_arrays, collections;   /* seen in the pass */
	uint64_t nodata_arrays;       /* Android arrays without their elements in the dump */
	uint64_t left_out;            /* rows left out by min_count */
};

const char *hp_waste_section_key(int s);   /* "strings", "arrays", ... */
const char *hp_waste_fill_key(int fill);   /* "empty", "1-10%", "11-25%" */

/* path: the dump the heap was built from (it is read once more) */
int hp_waste_compute(const hp_heap *h, const char *path, uint64_t min_count, struct hp_waste *W,
		     struct hp_error *err) HP_MUST_USE;
/* the same, and W->objs: which object each byte of the total is in (12
 * bytes per object holding waste, 4 more per box while computing) */
int hp_waste_by_object(const hp_heap *h, const char *path, uint64_t min_count, struct hp_waste *W,
		       struct hp_error *err) HP_MUST_USE;
void hp_waste_release(struct hp_waste *W);

#endif
