/*
 * threadlocals.h — the values threads keep in ThreadLocals: every entry of
 * every thread's ThreadLocal map, and the ThreadLocals they belong to.
 *
 * Layouts read:
 *   OpenJDK (and ART from Android 7): Thread.threadLocals and
 *     Thread.inheritableThreadLocals, each a java.lang.ThreadLocal$
 *     ThreadLocalMap whose field table is an Entry[]; an Entry is a
 *     WeakReference whose referent is the ThreadLocal and whose field value
 *     is the value;
 *   Android before 7: Thread.localValues and Thread.inheritableValues, each
 *     a java.lang.ThreadLocal$Values whose table is an Object[] of pairs: at
 *     2i the key, the ThreadLocal's own WeakReference (its referent the
 *     ThreadLocal; null or the TOMBSTONE object when free), at 2i+1 the
 *     value.
 * An entry whose referent is null (the ThreadLocal was collected) is stale:
 * its value stays until the map expunges it; stale entries are one key.
 *
 * A ThreadLocal is named by the static field that holds it
 * ("ShopServer.AUDIT", the first met in class order), else by its class.
 * A value is owned when its dominator is its entry (its table, for old
 * Android): only that thread's map holds it.  A key's retained size is the
 * sum of its distinct values' retained sizes.
 *
 * The walk is four levels deep (Thread, map, table, entry), each level read
 * with one prefetch (one forward pass of a gzip dump; objread.h), with no
 * recursion: a field that is missing or of the wrong type, or an object of
 * the wrong kind, ends that branch (counted in `skipped`); a record that
 * cannot be read again likewise.  Cost: the records of the Thread objects,
 * their maps, tables and entries; memory 32 bytes per entry.
 *
 * Ownership: struct hp_tlocals owns its arrays and names
 * (hp_tlocals_release()).
 */
#ifndef HP_THREADLOCALS_H
#define HP_THREADLOCALS_H

#include <stddef.h>
#include <stdint.h>
#include "model/heap.h"
#include "model/objread.h"
#include "analysis/retained.h"

enum hp_tl_map { HP_TL_LOCALS, HP_TL_INHERITABLE, HP_TL_VALUES, HP_TL_INHERITABLE_VALUES };
/* "threadLocals", "inheritableThreadLocals", "localValues", "inheritableValues" */
const char *hp_tl_map_field(int map);

struct hp_tl_entry {
	uint32_t thread;          /* index in hp_heap.threads */
	uint32_t key;             /* index in hp_tlocals.keys */
	uint32_t entry;           /* the Entry (old Android: the key's WeakReference) */
	uint32_t value;           /* HP_NONE: null, or not in the dump */
	uint8_t map;              /* enum hp_tl_map */
	uint8_t owned;            /* the value's dominator is its entry (or table) */
	uint64_t retained;        /* the value's retained size (0 without retained sizes) */
};

struct hp_tl_key {
	uint32_t tl;              /* the ThreadLocal object; HP_NONE: stale entries */
	uint32_t holder;          /* class whose static field holds it, HP_NONE when none */
	char *name;               /* "ShopServer.AUDIT", else its class name; "(stale entries)" */
	uint64_t threads;         /* distinct threads with an entry */
	uint64_t values;          /* entries with a value */
	uint64_t retained;        /* its distinct values' retained sizes, summed */
	uint64_t owned;           /* of the owned values */
};

struct hp_tlocals {
	struct hp_tl_entry *e;    /* by thread (hp_heap.threads order), map, retained (largest first) */
	size_t n;
	struct hp_tl_key *keys;   /* by retained (largest first), then name */
	size_t nkeys;
	uint64_t maps;            /* maps read */
	uint64_t skipped;         /* branches given up: a missing field, a wrong type or kind,
	                             a record that could not be read */
};

/* R may be NULL (retained sizes 0, no value owned).  HP_ENOMEM is the
 * only error: what cannot be read is skipped. */
int hp_tlocals_collect(const hp_heap *h, const struct hp_retained *R, hp_objread *rd, struct hp_tlocals *out,
		       struct hp_error *err) HP_MUST_USE;
void hp_tlocals_release(struct hp_tlocals *t);

/* the first entry of thread record `thread` in t (entries are by thread),
 * with *count of them */
size_t hp_tlocals_of_thread(const struct hp_tlocals *t, uint32_t thread, size_t *count);

#endif
