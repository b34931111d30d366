/*
 * sysprops.h — the Java system properties held in the heap, as Eclipse
 * MAT's system_properties query reads them: the static field `props` of
 * java.lang.System, a java.util.Properties whose entries are in a
 * ConcurrentHashMap (`map`, JDK 9+) or in the Hashtable it extends (JDK 8
 * and earlier): the bucket array `table`, each bucket a chain of nodes
 * (key, val or value, next).
 *
 * Reads only the keys asked for, walking at most HP_SYSPROPS_MAX_NODES
 * nodes (a hostile dump cannot make it loop).  Needs the object reader, so a
 * dump that can be read only once has none to give.
 */
#ifndef HP_SYSPROPS_H
#define HP_SYSPROPS_H

#include "model/heap.h"
#include "model/objread.h"

#define HP_SYSPROPS_MAX_NODES 100000

/* values[i] gets the property keys[i] as valid UTF-8 (caller frees), NULL
 * when the heap has no such property (or no System.props at all). */
int hp_sysprops_get(hp_objread *rd, const hp_heap *h, const char *const *keys, char **values, size_t n,
		    struct hp_error *err) HP_MUST_USE;

#endif
