/*
 * leaks.h — what is wrong with a heap: leak suspects (Eclipse MAT's Leak
 * Suspects report), zombie objects (LeakCanary/Shark's leaking objects) and
 * the leak trace of each.
 *
 * Leak suspects, after MAT's FindLeaksQuery: the objects the super-root
 * dominates (the top of the dominator tree) whose retained size is at least
 * `threshold` percent of the reachable heap, then the classes whose objects
 * at the top together retain that much, unless an object suspect is of the
 * class (MAT avoids naming it twice).  From an object suspect the walk
 * goes down the dominator tree to the largest child while that child
 * retains at least `big_drop` of its parent; where it stops is the
 * accumulation point, and what accumulates is the class whose objects the
 * point dominates directly retain the most (the point itself when it
 * dominates nothing).  For a class suspect the accumulation point is the
 * deepest object that the shortest paths of at least 80% of its objects
 * (its 10,000 largest) go through, as MAT's common path (none when they
 * have no common referrer).  The
 * holder named is the nearest object on the path to the accumulation point,
 * the point included, whose class is not the JDK's (java.*, javax.*, jdk.*, sun.*,
 * com.sun.*), as MAT skips JDK holders.
 * A ThreadLocal whose values over all threads retain the threshold
 * together is one suspect (struct hp_leak_tl, leaks_threadlocal.c), and the
 * Thread suspects it explains are folded into it.
 *
 * What a suspect holds, in the user's terms (leaks_content.c): the
 * collection that owns the accumulation point (the point, or an object one
 * or two steps above it in the dominator tree, the outer of a set and its
 * map) with the size the collection itself gives (collections.h); the
 * point's retained set by class, counted over the whole set (MAT's
 * "accumulated objects by class": one walk of its dominator subtree; a class
 * suspect's objects' subtrees); and, behind the lambdas and inner classes
 * of the set (a field arg$N, this$N or val$NAME of a class not the JDK's),
 * the objects they capture, by class and field, each counted once; a
 * capture that fewer references than 1% of the set's objects make is left
 * out (an Activity's one anonymous Handler says nothing of the set).
 *
 * Zombie objects: instances that rules say the program is done with, which
 * a strong path from a GC root still reaches.  Built-in rules (after
 * Shark's AndroidObjectInspectors): android.app.Activity with mDestroyed
 * true; android.app.Fragment, android.support.v4.app.Fragment and
 * androidx.fragment.app.Fragment with mFragmentManager null;
 * android.view.View with mAttachInfo null whose mContext, unwrapped through
 * ContextWrapper.mBase, is a destroyed Activity; android.app.Dialog with
 * mDecor null and mCreated true (shown, then dismissed); android.os.
 * MessageQueue with mQuitting true; android.app.Service not among the
 * values of ActivityThread.sCurrentActivityThread.mServices (an ArrayMap:
 * Shark's SERVICE inspector, what LeakCanary's ServiceWatcher sees on
 * onDestroy()); androidx.lifecycle.ViewModel with mCleared true (or, from
 * lifecycle 2.8, impl.isCleared: ViewModelClearedWatcher's onCleared());
 * android.view.ViewRootImpl not in WindowManagerGlobal.sDefaultWindowManager.
 * mRoots (without it, with mView null: Shark's VIEW_ROOT_IMPL), and a
 * root View (mParent null, or not a View: a ViewRootImpl) detached after
 * it was attached (mAttachInfo null, mWindowAttachCount > 0) whose mParent
 * is not null or that is a com.android.internal.policy.DecorView (Shark's
 * VIEW filter: what RootViewWatcher sees on onDetachedFromWindow()); a
 * registry the dump lacks decides nothing.  User rules CLASS:FIELD=VALUE match the
 * class and its subclasses.  A rule's class whose field has another value
 * makes the object NOT LEAKING (an Activity not destroyed, a Fragment
 * attached, a Service in mServices, a ViewRootImpl in mRoots, a root View
 * in mViews).  A zombie whose shortest path goes through another zombie is
 * not listed apart (fixing the other frees it; counted in `nested`); one no
 * strong path reaches (only through the referent of a soft, weak, final or
 * phantom reference, or not at all) will be collected and is not a leak
 * (counted in `not_strong`).
 *
 * Leak traces: the shortest path from a GC root (the retained graph's root
 * objects; under MAT's roots policy a thread's locals hang off the thread)
 * over that graph without the referents it followed (hp_refs.followed), so
 * no extra pass over the dump; one breadth-first search for all of them,
 * which stops once it has reached every zombie, accumulation point and
 * class suspect's object it must trace.  Each node's status is LeakCanary's: rules
 * give leaking and not-leaking reasons (class objects, class loaders,
 * threads that are GC roots, android.app.Application and ActivityThread are
 * never leaking; a ContextWrapper around a destroyed Activity is leaking);
 * every node above the last not-leaking one is not leaking ("X↓ is not
 * leaking"), every unknown node below the first leaking one after it is
 * leaking ("X↑ is leaking"), and the references from the last not-leaking
 * node down to the first leaking one are the ones to cut.  Zombies whose
 * traces have the same signature (the classes and references along the
 * path, array indices and ids aside) form one leak.
 *
 * Costs: each zombie's retained size (its dominator subtree: what cutting
 * every path to it alone frees); each leak's retained set (the objects only
 * paths through its zombies reach: what fixing that leak frees, shared
 * objects once); and the retained set of every zombie together (fixing all
 * leaks).  A retained set is one walk of the graph (retained.h).
 *
 * Memory: 12 bytes per object during the path search (paths.h), 4 more per
 * object for a class suspect's common path, 1 bit per object for each
 * retained set; the dump's records are read again only for the objects the
 * rules look at (objread.h).  A trace keeps its first and last steps
 * (hp_leaks_opts.path_head, path_tail; paths.h), so a path of a million
 * steps costs a walk up the search tree, not a million steps kept: the
 * statuses, the references to cut and the signature are of the whole path
 * all the same.
 *
 * Ownership: struct hp_leaks owns its arrays (hp_leaks_release()); names
 * in it are borrowed from the heap and the object reader, which must
 * outlive it.  Nothing here prints.
 */
#ifndef HP_LEAKS_H
#define HP_LEAKS_H

#include <stddef.h>
#include <stdint.h>
#include "base/nearest.h"
#include "model/heap.h"
#include "model/objread.h"
#include "analysis/retained.h"
#include "analysis/paths.h"
#include "analysis/threadlocals.h"

#define HP_LEAK_REASON 320   /* bytes for a node's reasons */
#define HP_LEAK_SEP '\x1f'   /* between two reasons in one string ("A\x1fB": A and B) */

enum hp_leak_op { HP_LR_TRUE, HP_LR_FALSE, HP_LR_NULL, HP_LR_NOTNULL, HP_LR_NUMBER, HP_LR_STRING };

/* CLASS:FIELD=VALUE; the strings point into text (owned) */
struct hp_leak_rule {
	char *text;               /* CLASS\0FIELD\0VALUE\0 */
	const char *cls, *field, *value;
	int op;                   /* enum hp_leak_op */
	double num;
};
/* Parses one rule (leading and trailing blanks ignored).  HP_EUSAGE with
 * the reason in err when it is not a rule. */
int hp_leak_rule_parse(const char *s, struct hp_leak_rule *r, struct hp_error *err) HP_MUST_USE;
void hp_leak_rule_release(struct hp_leak_rule *r);

/* Why a rule can match no object of a heap, so that a typo is an error
 * rather than "0 zombies" (hp_leak_rule_check()). */
enum hp_leak_rule_fault_kind {
	HP_LRF_OK = 0,
	HP_LRF_NO_CLASS,          /* no class has that name */
	HP_LRF_NO_FIELD,          /* neither the class, its supers nor its subclasses declare
	                             an instance field of that name */
	HP_LRF_TYPE               /* every such field has a type the value cannot be
	                             (true for an int, 42 for a boolean) */
};
struct hp_leak_rule_fault {
	int kind;                 /* enum hp_leak_rule_fault_kind */
	uint8_t type;             /* HP_LRF_TYPE: the field's type (HP_T_*) */
	/* a class named CLASS$...: for NO_CLASS any (the first by name), for
	 * NO_FIELD one that declares the field (it or a super): the shell may
	 * have expanded an unquoted $Inner to nothing; HP_NONE when none */
	uint32_t inner;
	struct hp_near fields;    /* NO_FIELD: the nearest field names (borrowed from the heap) */
};
/* Checks rule r against heap h into f (f->kind HP_LRF_OK: it can match);
 * O(classes + fields) however deep the super chains.  HP_OK, or
 * HP_ENOMEM. */
int hp_leak_rule_check(const hp_heap *h, const struct hp_leak_rule *r, struct hp_leak_rule_fault *f) HP_MUST_USE;

enum hp_leak_status { HP_LEAK_UNKNOWN = 0, HP_LEAK_NO, HP_LEAK_YES };
const char *hp_leak_status_name(int status);   /* "UNKNOWN", "NOT LEAKING", "LEAKING" */

struct hp_leak_step {
	uint32_t obj;
	struct hp_objref ref;     /* how the previous step refers to this one (HP_REF_NONE first) */
	int cut;                  /* that reference is one to cut (~~~) */
	int status;               /* enum hp_leak_status */
	char reason[HP_LEAK_REASON];
};
struct hp_leak_trace {
	struct hp_leak_step *steps;   /* GC root first: the path's first and last steps (gap) */
	size_t n;                     /* steps kept; 0: no strong path */
	struct hp_path_gap gap;       /* the steps left out (paths.h); steps[gap.at].ref is the
	                                 reference from gap.last */
	uint64_t cut_left_out;        /* of the references to those steps, the ones to cut */
};

/* One class in an accumulation point's retained set (MAT's "accumulated
 * objects by class"): its objects in the set, their shallow sizes, and what
 * they retain counted once (those with no ancestor of the class in the set). */
struct hp_leak_class_count { uint32_t cls; uint64_t count, shallow, retained; };

/* Objects that lambdas or inner classes of the set hold through a captured
 * field (arg$1, this$0, val$x): `count` distinct objects of class target
 * held through field `field` of class holder, `refs` references. */
struct hp_leak_capture {
	uint32_t holder, target;
	const char *field;        /* borrowed from the object reader */
	uint64_t count, refs;
};

#define HP_LEAK_CLASSES 50    /* classes of a retained set kept, most shallow bytes first */
#define HP_LEAK_CAPTURES 8    /* captures kept, most objects first */

struct hp_leak_suspect {
	int is_class;             /* a class's objects rather than one object */
	uint32_t obj;             /* the object (is_class: the largest instance) */
	uint32_t cls;             /* its class */
	uint64_t count;           /* 1, or the class's objects among the top of the tree */
	uint64_t retained;        /* the object's, or the sum over the class's objects */
	uint32_t acc;             /* accumulation point, HP_NONE when none */
	uint64_t acc_retained;
	uint64_t acc_depth;       /* steps down the dominator tree from the suspect (object suspects) */
	uint32_t acc_cls;         /* what accumulates: class, count, retained */
	uint64_t acc_count, acc_bytes;
	uint32_t holder;          /* the nearest non-JDK object at or above acc, HP_NONE none */
	struct hp_leak_trace trace;   /* to acc (or obj when acc is HP_NONE), without statuses */
	/* the collection that owns what accumulates: acc or an object at most
	 * two steps above it in the dominator tree (the outer of a set and its
	 * map), HP_NONE when none is a known collection (collections.h) */
	uint32_t coll;
	const char *coll_family; /* its known class (static text) */
	int coll_map, coll_known;
	const char *coll_why;     /* !coll_known: why (static text) */
	uint64_t coll_size;
	/* what accumulates, counted over the whole set: acc's dominator subtree
	 * (a class suspect: its objects' subtrees) by class */
	struct hp_leak_class_count *by_class;   /* owned; at most HP_LEAK_CLASSES */
	size_t nby_class, set_classes;          /* kept; classes in the set */
	uint64_t set_objects, set_bytes;
	struct hp_leak_capture *captures;       /* owned; at most HP_LEAK_CAPTURES */
	size_t ncaptures;
};

/* A ThreadLocal whose values over all threads retain at least the
 * threshold (the sum of its distinct values' retained sizes; stale entries
 * are one such key): one suspect for the pool, not one a thread.  An object
 * suspect that is a Thread of it whose accumulation point is one of its
 * values or below one is folded into it (hp_leaks.suspect_tl). */
struct hp_leak_tl {
	uint32_t key;             /* index in hp_leaks.tl.keys */
	uint32_t largest;         /* its largest value */
	uint32_t acc_cls;         /* what the folded suspects accumulate, when one class; HP_NONE */
	uint64_t acc_count, acc_bytes;    /* summed over them */
	uint64_t folded;          /* object suspects folded into it */
	struct hp_leak_trace trace;   /* to the largest value */
};

struct hp_leak_zombie {
	uint32_t obj;
	char reasons[HP_LEAK_REASON];
	uint64_t retained;
	uint64_t signature;       /* FNV-1a of signature_text */
	char *signature_text;     /* of the whole trace (hp_leaks_signature_text()); owned */
	size_t leak;              /* index in hp_leaks.leaks */
	struct hp_leak_trace trace;
};

/* Zombies with the same signature. */
struct hp_leak_group {
	uint64_t signature;
	size_t first;             /* its first zombie (the largest retained) */
	uint64_t count;
	uint64_t retained_sum;    /* the sum of its zombies' retained sizes */
	uint64_t retained;        /* its retained set (exact), else retained_sum */
	uint64_t retained_objects;    /* exact: the objects of that set */
	int exact;                /* the retained set was computed (the 100 largest leaks) */
};

/* An object a rule looked at: its class is one a rule names. */
struct hp_leak_inspected {
	uint32_t obj;
	int status;
	int zombie;               /* a rule says the program is done with it */
	char reason[HP_LEAK_REASON];
};

struct hp_leaks_opts {
	double threshold;         /* percent of the reachable heap; MAT: 10 */
	double big_drop;          /* 0..1; MAT: 0.7 */
	const struct hp_leak_rule *rules;
	size_t nrules;
	size_t path_head, path_tail;  /* the steps of a trace kept (paths.h: HP_PATH_HEAD and
	                                 HP_PATH_TAIL; HP_PATH_WHOLE: all) */
};
void hp_leaks_opts_init(struct hp_leaks_opts *o);

struct hp_leaks {
	uint64_t heap;            /* the reachable heap the threshold is of */
	uint64_t threshold_bytes;
	struct hp_leak_suspect *suspects; size_t nsuspects;
	uint32_t *suspect_tl;     /* per suspect: the ThreadLocal suspect it is folded into, HP_NONE */
	struct hp_tlocals tl;     /* every thread's ThreadLocal values (threadlocals.h) */
	struct hp_leak_tl *tls; size_t ntls;   /* ThreadLocal suspects, by retained */
	struct hp_leak_zombie *zombies; size_t nzombies;   /* by leak, then retained */
	struct hp_leak_group *leaks; size_t nleaks;        /* by retained set, largest first */
	struct hp_leak_inspected *inspected; size_t ninspected;   /* in object order */
	uint64_t nested;          /* zombies whose path goes through another zombie */
	uint64_t not_strong;      /* zombies no strong path reaches */
	uint64_t freed, freed_objects;    /* the retained set of every zombie listed or nested */
	uint64_t referents_skipped;       /* followed referents left out of the paths */
	uint64_t searched;        /* objects the path search reached before it had every target */
	double t_search, t_total; /* seconds: the path search, all of hp_leaks_find() */
};

int hp_leaks_find(const hp_heap *h, const struct hp_retained *R, hp_objread *rd,
		  const struct hp_leaks_opts *o, struct hp_leaks *out, struct hp_error *err) HP_MUST_USE;
void hp_leaks_release(struct hp_leaks *l);

/* The signature text of a trace ("com.acme.Bus.listeners > java.lang.Object[].[x] > ..."),
 * into buf (cut to n bytes, NUL-terminated); of a cut trace, of the steps it
 * keeps (hp_leak_zombie.signature_text is the whole trace's). */
void hp_leaks_signature_text(const hp_heap *h, const struct hp_leak_trace *t, char *buf, size_t n);

#endif
