/*
 * refs.h — the outgoing-reference graph of a heap, in CSR form.
 *
 * Edges come from instance fields (each class's layout up the super chain),
 * object array elements, class statics, a class's super class and loader
 * (unless asked not to: ahat's graph has neither), and, when asked, from a thread to the objects its stack frames hold
 * (JAVA FRAME, JNI LOCAL, NATIVE STACK, THREAD BLOCK roots with a known
 * thread).  References to ids that are not objects of the dump are dropped
 * and counted.
 *
 * Class edges (class_edges: Eclipse MAT's graph, whose inspector shows them
 * as "<class>"): every instance, object array and primitive array refers to
 * the class object of its class, and every class object to java.lang.Class's,
 * where the dump has that class object (none to itself).  Such an edge is
 * the first of its object's edges, and it is not in adj[]: it is implicit,
 * the class column and class_obj[] say where it goes (hp_refs_class_edge(),
 * HP_NONE when the object has none), and class_gap marks the few objects
 * that would have one but whose record the references' pass did not read
 * whole.  So an object's edges are its class edge, if any, then
 * adj[off(v), off(v + 1)); every reader of the graph takes both
 * (hp_refs_degree(), struct hp_edges).  One edge per object that costs no
 * memory here (it cost 4 bytes an object before).
 *
 * hp_refs_build() re-reads the dump once with the same streaming parser,
 * so it needs a file it can reopen: a regular file or a gzip file, not a
 * pipe.  It reads of an instance only the bytes the longest class layout
 * covers (model/layout.h: each class's reference offsets, made once from
 * its super class's), of an object array larger than the reader's window
 * one part at a time, and no primitive array's elements: a record of
 * gigabytes in a gzip file is streamed past, never held.  Each record's
 * edges are resolved as it is read and kept in file order, 4 bytes per
 * edge.  When the records come in object order (as
 * HotSpot and ART write them) that is the result already, and the model's
 * edges (statics, super class, loader, thread locals) are merged in place;
 * otherwise a list of 8 bytes per record with edges says whose they are
 * and they are copied into object order (8 bytes per object + 8 per edge
 * on top of the result while building).  Memory: 4 bytes per object (off32) + 4 bytes per
 * edge but class edges (adj), plus per class the layout (37 bytes and 4 per reference
 * field) while building (and 4 bytes per class for class_obj with class
 * edges, and a bit per object while building, kept as class_gap only when
 * some object lacks its class edge).  Edge
 * offsets are 64-bit while building (8 bytes per object then); when the
 * graph has fewer than 4 G edges (always, short of a 16 GiB adj[]) they are
 * narrowed to 32 bits at the end and off is NULL; otherwise off32 is NULL.
 * Read them with hp_refs_off(), which works either way.
 * off/off32, adj and class_obj are owned by struct hp_refs; hp_refs_release()
 * frees them.
 */
#ifndef HP_REFS_H
#define HP_REFS_H

#include <stdint.h>
#include "model/heap.h"

enum hp_weak_policy {
	HP_WEAK_FOLLOW = 0,   /* Eclipse MAT: every reference, referents included */
	HP_WEAK_SKIP,         /* VisualVM: referents of Soft, Weak, Final, Phantom skipped */
	HP_WEAK_SKIP_WEAK     /* ahat: soft referents followed; weak, final (Android's
	                         FinalizerReference too), phantom skipped */
};
const char *hp_weak_policy_name(int p);

struct hp_refs_opts {
	int weak;             /* enum hp_weak_policy */
	int thread_locals;    /* thread-local roots become Thread -> object edges */
	int mark_referents;   /* referents the weak policy skips stay edges, listed in
	                         hp_refs.referents (VisualVM's dominators) */
	int no_super_edges;   /* no class -> super class edges (VisualVM, ahat) */
	int no_loader_edges;  /* no class -> class loader edges (ahat) */
	int class_edges;      /* object -> its class object first (Eclipse MAT; see above) */
	int list_followed;    /* referents the weak policy follows are listed in
	                         hp_refs.followed (leak traces leave them out) */
	void (*progress)(void *ud, uint64_t done);
	void *progress_ud;
};

struct hp_refs {
	size_t n;             /* objects */
	uint64_t *off;        /* n + 1, or NULL when narrowed to off32 */
	uint32_t *off32;      /* n + 1 when every offset fits in 32 bits, else NULL */
	uint32_t *adj;        /* off[n] targets */
	uint64_t nedges;
	uint32_t (*referents)[2]; /* mark_referents: (reference, referent) of each skipped
	                             referent that is an edge, in file order */
	size_t nreferents, referents_cap;
	uint32_t (*followed)[2];  /* list_followed: (reference, referent) of each referent of a
	                             soft, weak, final or phantom reference that is an edge,
	                             in file order (8 bytes each) */
	size_t nfollowed, followed_cap;
	uint64_t dangling;    /* references to ids the dump does not hold */
	uint64_t weak_skipped;
	uint64_t thread_edges;
	uint64_t short_instances;   /* instances with fewer field bytes than their layout */
	/* class_edges: per class index, its class object (HP_NONE when the dump
	 * has none; hp_refs_release() frees it), and the heap's class of each
	 * object (borrowed: valid until hp_heap_free()); both NULL otherwise */
	uint32_t *class_obj;
	const uint32_t *obj_cls;
	size_t nclasses;          /* entries of class_obj (0 without class edges) */
	uint64_t nclass_edges;    /* class edges (implicit: not in adj[] nor nedges) */
	/* bit v set: v has no class edge though hp_refs_class_of(v) names one
	 * (its record was not read whole); NULL and 0 bytes when there is no
	 * such object, else class_gap_bytes = n / 8 + 1 */
	uint8_t *class_gap;
	uint64_t class_gap_bytes;
};

/* Whether a heap's graph has class edges: Eclipse MAT's size model and the
 * VM's (the HotSpot default, which keeps MAT's graph with the sizes the JVM
 * gives) come with them; VisualVM's, NetBeans', ahat's and the raw one have
 * none. */
static inline int hp_refs_want_class_edges(const hp_heap *h)
{
	return h->size.kind == HP_SIZE_MAT || h->size.kind == HP_SIZE_VM;
}

/* Whether class objects refer to their super class and loader: under every
 * size model but ahat's, whose class objects refer to their static fields
 * only (ahat's AhatClassObj.getReferences()). */
static inline int hp_refs_want_class_links(const hp_heap *h)
{
	return h->size.kind != HP_SIZE_AHAT;
}

int hp_refs_build(const hp_heap *h, const char *path, const struct hp_refs_opts *o,
		  struct hp_refs *out, struct hp_error *err) HP_MUST_USE;
void hp_refs_release(struct hp_refs *r);

/* Where object v's edges start in adj (v's end is hp_refs_off(r, v + 1)). */
static inline uint64_t hp_refs_off(const struct hp_refs *r, size_t v)
{
	return r->off32 ? r->off32[v] : r->off[v];
}
/* The class object of v's class when the graph has class edges, else
 * HP_NONE (none in the dump, or v itself). */
static inline uint32_t hp_refs_class_of(const struct hp_refs *r, size_t v)
{
	if (!r->class_obj || r->obj_cls[v] == HP_NONE)
		return HP_NONE;
	uint32_t c = r->class_obj[r->obj_cls[v]];
	return c == v ? HP_NONE : c;
}
/* Where v's class edge goes (its first edge), HP_NONE when v has none. */
static inline uint32_t hp_refs_class_edge(const struct hp_refs *r, size_t v)
{
	uint32_t c = hp_refs_class_of(r, v);
	if (c != HP_NONE && r->class_gap && (r->class_gap[v >> 3] >> (v & 7) & 1))
		return HP_NONE;
	return c;
}
/* How many edges v has, its class edge included. */
static inline uint64_t hp_refs_degree(const struct hp_refs *r, size_t v)
{
	return hp_refs_off(r, v + 1) - hp_refs_off(r, v) + (hp_refs_class_edge(r, v) != HP_NONE);
}
/* Every edge of the graph, class edges included. */
static inline uint64_t hp_refs_total(const struct hp_refs *r)
{
	return r->nedges + r->nclass_edges;
}

/* v's edges in order, its class edge first:
 *   struct hp_edges it = hp_refs_edges(r, v);
 *   for (uint32_t w; hp_edges_next(&it, &w);) ...
 * it.cls is the class edge while it has not been taken, it.e the position
 * in adj[] of the next other edge. */
struct hp_edges {
	const uint32_t *adj;
	uint64_t e, end;
	uint32_t cls;
};
static inline struct hp_edges hp_refs_edges(const struct hp_refs *r, size_t v)
{
	struct hp_edges it = { r->adj, hp_refs_off(r, v), hp_refs_off(r, v + 1), hp_refs_class_edge(r, v) };
	return it;
}
static inline int hp_edges_next(struct hp_edges *it, uint32_t *w)
{
	if (it->cls != HP_NONE) {
		*w = it->cls;
		it->cls = HP_NONE;
		return 1;
	}
	if (it->e < it->end) {
		*w = it->adj[it->e++];
		return 1;
	}
	return 0;
}

/* off -> off32 in place when nedges fits in 32 bits (else nothing happens);
 * off32 -> off.  Both keep the graph as it is on HP_ENOMEM. */
int hp_refs_narrow(struct hp_refs *r) HP_MUST_USE;
int hp_refs_widen(struct hp_refs *r) HP_MUST_USE;

/* The referent kind of a class: 0 none, 1 soft, 2 weak, 3 final, 4 phantom,
 * 5 Android's final (model/layout.h, hp_layout_name_kind()). */
int hp_refs_reference_kind(const hp_heap *h, uint32_t cls);

#endif
