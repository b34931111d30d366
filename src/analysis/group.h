/*
 * group.h — the class histogram grouped by package, by class loader or by
 * components (sets of classes a caller names), with retained sizes per
 * group counted once.
 *
 * The unit is the histogram row (a class, on Android a class in one heap):
 * every object counts in the group of its row's class, but for a class
 * object, the java.lang.Class instance that stands for class C, which counts
 * in C's group: C's package, the loader that defined C (its CLASS DUMP's),
 * C's component.  So a class whose static field holds a cache of 70 MB
 * retains it for its own loader and package, not for java.lang and the
 * bootstrap loader, as Eclipse MAT's dominator tree groups it.  The class
 * objects are still java.lang.Class's row of the class table, which the
 * groups share (hp_groups.jlc: each group's part of it): the groups'
 * instances and shallow bytes add up to the table's, and a filter (row_in)
 * picks the class objects with java.lang.Class's row, since that row is
 * where the table shows them.
 *
 *   package    the class name's package: the name up to its last '.', after
 *              dropping array suffixes ("com.acme.Bill[]" is in com.acme);
 *              a name without a '.' (primitive arrays, the default package)
 *              is in the group "" (no package).  Packages form a tree: a
 *              package's figures include its subpackages', and "com",
 *              "com.acme" and "com.acme.billing" are each a group (parent
 *              the enclosing package, depth 1 for "com").  The tree is
 *              at most HP_PKG_MAX_DEPTH deep: a deeper package counts in its
 *              prefix of that many levels (so a hostile name of 30,000 dots
 *              costs no more per object than a real one).
 *   loader     the class's loader id from its CLASS DUMP (0: the bootstrap
 *              loader); the group also counts the classes the loader
 *              defined, whether they have instances or not.
 *   component  comp[c] for class c (0 .. ncomp-1), or ncomp: "other".
 *
 * Retained (with R): the retained bytes of the group's objects counted once,
 * i.e. the sum of the retained sizes of its objects that have no object of
 * the same group above them in the dominator tree (the rule of per-class
 * retained sizes, retained.h; under VisualVM's sizes class objects do not
 * count).  For a package, "the same group" includes its subpackages.  The
 * fold of fold.h: one iterative walk of the dominator tree (its depth does
 * not recurse), with a counter per group.
 *
 * hp_groups_compute_more() adds, with R, what a component report needs:
 * per group its top objects (those of the group with no object of the
 * group above them: the objects whose retained sizes make the group's), the
 * ktop largest of them, and the waste in the group's retained set (the
 * bytes of hp_waste_by_object() in the dominator subtrees of its top
 * objects).  In the same walk: a bounded heap of ktop entries per group, a
 * running sum of the objects' wastes in the walk's order.  Groups overlap (a String a Bill holds is in
 * its loader's retained set and in the bootstrap loader's), so the groups'
 * retained sizes and wastes do not add up to the heap's.
 */
#ifndef HP_GROUP_H
#define HP_GROUP_H

#include <stdint.h>
#include <stddef.h>
#include "model/heap.h"
#include "model/objread.h"
#include "analysis/retained.h"
#include "analysis/waste.h"

#define HP_PKG_MAX_DEPTH 64

/* HP_GROUP_PACKAGE_FLAT: packages without the tree, each its own classes
 * only ("com.acme" not including "com.acme.billing"); prefixes without
 * classes of their own are groups with nothing in them */
enum hp_group_by { HP_GROUP_PACKAGE = 0, HP_GROUP_LOADER, HP_GROUP_COMPONENT, HP_GROUP_PACKAGE_FLAT };

struct hp_group {
	size_t name;                  /* offset in hp_groups.text: component, loader name ("" for packages) */
	const char *pkg;              /* packages: the name, pkg_len bytes of a class name of the heap */
	uint32_t pkg_len;             /*   (not NUL-terminated; valid as long as the heap) */
	uint32_t parent;              /* packages: the enclosing package, HP_NONE at the top */
	uint32_t depth;               /* packages: 1 for "com", 2 for "com.acme"; else 1 */
	uint32_t nchildren;           /* packages: direct subpackages */
	/* loaders */
	uint64_t loader_id;           /* 0: the bootstrap loader */
	uint32_t loader_obj;          /* the loader's object number, HP_NONE when not in the dump */
	uint32_t loader_class;        /* its class index, HP_NONE */
	int has_loader_name;          /* name holds the loader's own name (hp_groups_loader_names()) */
	uint64_t defined;             /* classes whose CLASS DUMP names this loader */
	uint64_t duplicates;          /* of those, classes whose name another loader defines too */
	/* every kind */
	uint64_t classes;             /* rows with objects in the group (its subpackages' included);
	                                 java.lang.Class's counts in each group that has a part of it */
	uint64_t instances, shallow;  /* objects, as the rows count them */
	uint64_t retained;            /* with R only */
	/* hp_groups_compute_more() */
	uint64_t ntops;               /* objects of the group with none of it above them */
	uint64_t waste;               /* waste bytes in their dominator subtrees */
	uint32_t top_at, top_n;       /* its largest top objects: hp_groups.top[top_at .. top_at + top_n) */
};

struct hp_groups {
	int by;                       /* enum hp_group_by */
	int retained;                 /* retained sizes were summed */
	struct hp_group *g;
	size_t n;
	uint32_t *row_group;          /* per histogram row: its group (the innermost package), HP_NONE: left out;
	                                 for java.lang.Class's rows the group of its instances that are no class object */
	uint32_t *class_group;        /* per class index: the group its class object counts in (the innermost
	                                 package), HP_NONE: no class object, or left out */
	/* java.lang.Class's rows shared out: jlc[g * nheaps + heap] is group g's
	 * part of that heap's row: the class objects of its classes (a
	 * package's own classes, not its subpackages'), and in java.lang.Class's
	 * own group any other object of java.lang.Class.  retained: counted
	 * once, as the group's (with R). */
	struct hp_group_jlc { uint64_t instances, shallow, retained; } *jlc;
	unsigned nheaps;
	/* loaders: the class names several loaders define (a class-loader
	 * leak after redeploys): runs dup_class[dup_off[i] .. dup_off[i+1]) of
	 * class indexes of one name, one per loader, by name */
	uint32_t *dup_class, *dup_off;
	size_t ndups;
	uint32_t *top;                /* top objects, each group's by retained size, largest first */
	int has_waste;
	char *text;                   /* names, NUL-terminated */
	size_t text_len, text_cap;
};

/* Groups the rows of h with row_in[r] != 0 (row_in NULL: every row with
 * objects).  comp (per class index) and comp_names (ncomp names) only for
 * HP_GROUP_COMPONENT; the components are groups 0 .. ncomp-1 in that order,
 * "other" group ncomp, each there even when empty.  R NULL: no retained
 * sizes (R needs h's object table).  Returns HP_OK or HP_ENOMEM. */
int hp_groups_compute(const hp_heap *h, const struct hp_retained *R, int by, const uint8_t *row_in,
		      const uint32_t *comp, const char *const *comp_names, size_t ncomp,
		      struct hp_groups *out, struct hp_error *err) HP_MUST_USE;

#define HP_GROUPS_ALL_TOPS SIZE_MAX

struct hp_groups_more {
	size_t ktop;                       /* top objects kept per group; HP_GROUPS_ALL_TOPS: all (8 bytes each while computing) */
	const struct hp_waste_obj *waste;  /* by object (hp_waste_by_object()); NULL: no waste sums */
	size_t nwaste;
};

/* hp_groups_compute() and, with R, the top objects and wastes of `more`.
 * Duplicates (class names several loaders define) are found for
 * HP_GROUP_COMPONENT too. */
int hp_groups_compute_more(const hp_heap *h, const struct hp_retained *R, int by, const uint8_t *row_in,
			   const uint32_t *comp, const char *const *comp_names, size_t ncomp,
			   const struct hp_groups_more *more, struct hp_groups *out, struct hp_error *err) HP_MUST_USE;

/* Loaders: the loader object's own name, when it has one of these fields
 * holding a String: "name" (java.lang.ClassLoader, JDK 9+), "contextName"
 * (Tomcat's web application loader), "symbolicName" (an OSGi bundle).
 * Loaders without one keep the name "". */
int hp_groups_loader_names(struct hp_groups *G, const hp_heap *h, hp_objread *rd,
			   struct hp_error *err) HP_MUST_USE;

/* The group object v counts in (the innermost package): a class object
 * its class's, another object its row's; HP_NONE when it is left out.  Needs
 * h's object table. */
uint32_t hp_groups_object_group(const struct hp_groups *G, const hp_heap *h, uint32_t v);

static inline const char *hp_group_name(const struct hp_groups *G, size_t i) { return G->text + G->g[i].name; }

void hp_groups_release(struct hp_groups *G);

#endif
