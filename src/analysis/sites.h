/*
 * sites.h — objects grouped by allocation site: the stack trace serial in
 * each INSTANCE and ARRAY record.  Only dumps written with allocation
 * tracking (the JDK hprof agent, Android with tracking on) have real
 * sites; HotSpot writes one dummy serial, whose trace has no frames, for
 * every object.  A serial counts as a site when it names a STACK TRACE with
 * at least one frame; the other objects are counted apart (untraced).
 *
 * Per site: objects, shallow bytes and the bytes they dominate (the union
 * of their dominator subtrees, each byte once: the fold of fold.h, one
 * preorder walk of the dominator tree counting, per site, whether an
 * ancestor belongs to it).
 * The exact retained set of a site's objects can be larger (objects only
 * two of them reach together).
 *
 * The call tree: the sites' stacks merged frame by frame (a frame is its
 * STACK FRAME id), top-down (the outermost frame at the first level, the
 * allocating frame last) or bottom-up (the allocating frame first, its
 * callers below).  Per node: the sites, objects and shallow bytes of the
 * stacks through it, and the bytes their objects dominate, each once (the
 * same walk, counting per node: objects x trace depth steps); per node too
 * what the stacks ending there hold (self_*).  Node 0 is the root (all
 * sites kept); children are sorted by shallow bytes, largest first, then by
 * retained, then by first appearance.
 *
 * A site can be left out (keep[trace index] == 0: the caller's filter on
 * frames); its objects are counted apart (filtered).
 *
 * Nothing is kept per object in the model: the serial is read from each
 * object's record again (objread.h), unless the model's summary of the
 * serials (hp_heap.obj_serials) answers for every object: all have one
 * serial, or none has a serial whose trace has frames (a HotSpot dump).
 * Memory while computing: 4 bytes per
 * object (only once an object with a site is met: none on a dump without
 * allocation traces) and the walk's stack; the result: 40 bytes per site
 * and 96 per tree node.
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

struct hp_site_node {
	uint64_t frame_id;        /* the frame's id (the root: 0) */
	uint32_t trace, at;       /* a trace through the node and the frame's depth in it
	                             (hp_trace_frame(h, trace, at)); the root: HP_NONE */
	uint32_t parent;          /* HP_NONE for the root */
	uint32_t first_child, next_sibling;   /* HP_NONE when none */
	uint32_t level;           /* 0 the root, 1 its children, ... */
	uint32_t nchildren;
	uint32_t sites;           /* sites whose stack goes through the node */
	uint64_t objects, shallow, retained;
	uint64_t self_objects, self_shallow, self_retained;   /* of the stacks ending here */
};

enum hp_sites_tree { HP_SITES_NO_TREE = 0, HP_SITES_TOP_DOWN, HP_SITES_BOTTOM_UP };

struct hp_sites {
	struct hp_site *s;        /* by shallow, largest first, then by serial */
	size_t n;
	uint64_t traced, traced_shallow;       /* objects with a kept site, their shallow bytes */
	uint64_t untraced, untraced_shallow;   /* instances and arrays without a site */
	uint64_t filtered, filtered_shallow;   /* objects whose site was not kept */
	size_t filtered_sites;
	struct hp_site_node *node;             /* the tree (tree != HP_SITES_NO_TREE), node 0 the root */
	size_t nnodes;
};

/* keep: per trace index, 0 to leave the trace's site out (NULL keeps all);
 * tree: enum hp_sites_tree */
int hp_sites_collect(const hp_heap *h, const struct hp_retained *R, hp_objread *rd, const uint8_t *keep, int tree,
		     struct hp_sites *out, struct hp_error *err) HP_MUST_USE;
void hp_sites_release(struct hp_sites *s);

#endif
