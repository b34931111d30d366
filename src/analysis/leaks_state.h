/*
 * leaks_state.h — what one run of hp_leaks_find() keeps, and the steps
 * its files share (private to leaks.c, leaks_suspects.c, leaks_content.c,
 * leaks_zombie.c and leaks_trace.c; the interface is leaks.h).
 *
 * leaks.c runs the whole: the zombie candidates (leaks_zombie.c), the
 * suspects (leaks_suspects.c), one path search from the GC roots that
 * reaches all of them, then the suspects' traces and the zombies' traces,
 * statuses and signatures.
 */
#ifndef HP_ANALYSIS_LEAKS_STATE_H
#define HP_ANALYSIS_LEAKS_STATE_H

#include "analysis/leaks.h"
#include "analysis/paths.h"

struct top { uint32_t v; uint64_t retained; };

struct lk {
	const hp_heap *h;
	const struct hp_retained *R;
	hp_objread *rd;
	const struct hp_leaks_opts *o;
	struct hp_error *err;
	uint32_t *isa;            /* per class: K_* bits of the class and its supers */
	uint8_t *rule_isa;        /* nrules x nclasses: the class is the rule's or a subclass */
	uint8_t *is_zombie;       /* per object, 1 bit */
	struct hp_paths P;
	int have_paths;
	struct top *top;          /* the top of the dominator tree, suspects' order */
	size_t ntop;
	size_t *sfirst;           /* per suspect: a class suspect's first object in top */
	/* the Android registries the zombie rules read (lk_find_candidates()):
	 * the objects they hold, sorted; known 0 when the dump has no such
	 * registry (then it decides nothing) */
	struct lk_set { uint32_t *v; size_t n; int known; } services, roots, root_views;
};

/* what the zombie rules say of one object (leaks_zombie.c) */
struct verdict {
	char yes[HP_LEAK_REASON];     /* why it is leaking */
	char no[HP_LEAK_REASON];      /* why it is not */
	int zombie;                   /* a zombie rule holds */
	int ruled;                    /* a zombie rule's class (watched) */
};

/* an instance a zombie rule looked at */
struct cand { uint32_t obj; struct verdict vd; };

/* ---- leaks_trace.c: traces */
void lk_trace_release(struct hp_leak_trace *t);
/* The shortest path to target cut to its first head and last tail steps
 * (paths.h), each step kept with the reference to it from the step before
 * it on the path. */
int lk_trace_of(struct lk *L, uint32_t target, size_t head, size_t tail, struct hp_leak_trace *t) HP_MUST_USE;
/* the class an object's name is taken from: the class a class object is */
const char *lk_owner_name(const hp_heap *h, uint32_t v);

/* ---- leaks_suspects.c: Eclipse MAT's leak suspects */
/* the objects and classes at the top of the dominator tree over the threshold */
int lk_select_suspects(struct lk *L, struct hp_leaks *out) HP_MUST_USE;
/* what the path search must reach for the suspects into to (NULL: only
 * counted); how many */
size_t lk_suspect_targets(const struct lk *L, const struct hp_leaks *out, uint32_t *to);
/* after the path search: accumulation points, traces, holders */
int lk_finish_suspects(struct lk *L, struct hp_leaks *out) HP_MUST_USE;

/* ---- leaks_content.c: what a suspect holds, in the user's terms */
/* the owning collection and its size, the retained set by class (of acc,
 * or for a class suspect of its objects objs), what lambdas capture */
int lk_suspect_content(struct lk *L, struct hp_leak_suspect *s, const struct top *objs, size_t nobjs) HP_MUST_USE;
void lk_suspect_content_release(struct hp_leak_suspect *s);

/* ---- leaks_threadlocal.c: ThreadLocals whose values retain over the threshold */
/* the ThreadLocal values, and the suspects among their keys */
int lk_select_tls(struct lk *L, struct hp_leaks *out) HP_MUST_USE;
/* what the path search must reach for them into to (NULL: only counted) */
size_t lk_tl_targets(const struct hp_leaks *out, uint32_t *to);
/* after the path search and lk_finish_suspects(): traces, and the object
 * suspects each one explains folded into it */
int lk_finish_tls(struct lk *L, struct hp_leaks *out) HP_MUST_USE;

/* ---- leaks_zombie.c: the zombie rules (LeakCanary's) */
/* per class, the K_* bits of the classes the rules know it is or extends */
int lk_build_isa(struct lk *L) HP_MUST_USE;
/* the instances of the watched classes and the rules' classes, inspected */
int lk_find_candidates(struct lk *L, struct hp_leaks *out, struct cand **cands, size_t *ncand) HP_MUST_USE;
/* after the path search: the zombies among the candidates, their traces,
 * statuses, signatures and leaks */
int lk_find_zombies(struct lk *L, struct hp_leaks *out, struct cand *c, size_t nc) HP_MUST_USE;
/* frees what the rules read (the registries) */
void lk_zombie_release(struct lk *L);

#endif
