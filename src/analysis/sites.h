/*
 * sites.h — objects grouped by allocation site: the stack trace serial in
 * each INSTANCE and ARRAY record.  Only dumps written with allocation
 * tracking (the JDK hprof agent, Android with tracking on) have real
 * sites; HotSpot writes one dummy serial, whose trace has no frames, for
 * every object.  A serial counts as a site when it names a STACK TRACE with
 * at least one frame; the other objects are counted apart (untraced).
 *
 * Per site: objects, shallow bytes and the bytes they dominate (the union
 * of their dominator subtrees, each byte once: one preorder walk of the
 * dominator tree counting, per site, whether an ancestor belongs to it).
 * The exact retained set of a site's objects can be larger (objects only
 * two of them reach together).
 *
 * The serial is read from each object's record again (objread.h), nothing
 * is kept per object in the model.  Memory while computing: 4 bytes per
 * object and the walk's stack; the result: 40 bytes per site.
 */
#ifndef HP_SITES_H
#define HP_SITES_H

#include <stddef.h>
#include <stdint.h>
#include "model/heap.h"
#include "model/objread.h"
#include "analysis/retained.h"

struct hp_site {
	uint32_t serial;          /* the stack trace serial */
	uint32_t trace;           /* its index in hp_heap.traces */
	uint64_t objects, shallow;
	uint64_t retained;        /* the union of the objects' dominator subtrees */
};

struct hp_sites {
	struct hp_site *s;        /* by shallow, largest first, then by serial */
	size_t n;
	uint64_t traced, traced_shallow;       /* objects with a site, their shallow bytes */
	uint64_t untraced, untraced_shallow;   /* instances and arrays without one */
};

int hp_sites_collect(const hp_heap *h, const struct hp_retained *R, hp_objread *rd, struct hp_sites *out,
		     struct hp_error *err) HP_MUST_USE;
void hp_sites_release(struct hp_sites *s);

#endif
