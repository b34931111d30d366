/*
 * test_diff.c — the comparison of summaries (analysis/diff.h) on summaries
 * written by hand, with the answers worked out by hand:
 *   - hp_fit_series: exact slopes of straight lines, R^2 of a constant and
 *     of a noisy series, "grows at every step";
 *   - hp_cmp_build: classes lined up by name (new and gone ones), paths by
 *     (parent, via, label) whatever their order in each summary;
 *   - hp_cmp_growth: a path whose number of objects changed takes all its
 *     change; one whose number did not hands it down and keeps only its own
 *     part; the points add up to the change of the tops; a subtree moved to
 *     another holder is one new and one gone point; unchanged is nothing;
 *   - same_model: summaries of one size model and (with retained sizes)
 *     policies agree; another size model, weak or roots policy does not; the
 *     policies of a histogram-only summary do not count;
 *   - names made up at run time (analysis/gennames.h): two runs (the
 *     lambdas of a class differ both ways) line up every made-up name by
 *     its normalised form, all of a class's lambdas in one row and path, the
 *     counts summed (6 -> 7, not an arbitrary pairing), the accessors too
 *     though both dumps have their names, numbered pool threads as one top
 *     path whose children line up beneath it; one JVM that made a lambda
 *     more lines up only that class's lambdas (and a pool with a thread
 *     more its threads), and one where nothing was made keeps every exact
 *     name; over three dumps, two runs are seen between any two next to
 *     each other, never in a series that only adds names.
 */
#include "analysis/diff.h"
#include "analysis/gennames.h"
#include "base/alloc.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int passed, failed;
#define CHECK(cond, ...) do { if (cond) passed++; else { failed++; printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } } while (0)

static void test_fit(void)
{
	struct hp_fit f;
	uint64_t line[] = { 1000, 2000, 3000, 4000 };
	hp_fit_series(line, 4, &f);
	CHECK(fabs(f.slope - 1000) < 1e-9 && fabs(f.r2 - 1) < 1e-12 && f.monotonic, "line: slope %g r2 %g mono %d",
	      f.slope, f.r2, f.monotonic);
	CHECK(fabs(f.intercept - 1000) < 1e-9, "line: intercept %g", f.intercept);
	uint64_t flat[] = { 500, 500, 500 };
	hp_fit_series(flat, 3, &f);
	CHECK(f.slope == 0 && f.r2 == 1 && !f.monotonic, "flat: slope %g r2 %g mono %d", f.slope, f.r2, f.monotonic);
	/* 0, 2, 1, 3: slope 0.8, R^2 = 0.64 (sxy 4, sxx 5, syy 5) */
	uint64_t zig[] = { 0, 2, 1, 3 };
	hp_fit_series(zig, 4, &f);
	CHECK(fabs(f.slope - 0.8) < 1e-12 && fabs(f.r2 - 0.64) < 1e-12 && !f.monotonic, "zig: slope %g r2 %g mono %d",
	      f.slope, f.r2, f.monotonic);
	uint64_t one[] = { 7 };
	hp_fit_series(one, 1, &f);
	CHECK(f.slope == 0 && !f.monotonic, "one value: slope %g mono %d", f.slope, f.monotonic);
	uint64_t down[] = { 9, 6, 3 };
	hp_fit_series(down, 3, &f);
	CHECK(fabs(f.slope + 3) < 1e-12 && !f.monotonic, "down: slope %g", f.slope);
}

/* a summary by hand: classes (sorted by name) and paths (parents first) */
struct spath { uint32_t parent; const char *via, *label; uint64_t nodes, retained, objects; };

static void make(struct hp_dsum *s, const struct hp_dsum_class *cls, size_t nc, struct hp_dsum_path *paths,
		 const struct spath *sp, size_t np)
{
	memset(s, 0, sizeof *s);
	s->has_retained = 1;
	s->classes = (struct hp_dsum_class *)cls;
	s->nclasses = nc;
	for (size_t i = 0; i < np; i++) {
		paths[i] = (struct hp_dsum_path){ sp[i].parent, 0, sp[i].via, sp[i].label, sp[i].nodes, sp[i].retained,
						  sp[i].objects };
		paths[i].depth = sp[i].parent == HP_NONE ? 1 : paths[sp[i].parent].depth + 1;
	}
	s->paths = paths;
	s->npaths = np;
}

static const struct hp_cmp_path *find(const struct hp_cmp *c, const char *via, const char *label)
{
	for (size_t i = 0; i < c->npaths; i++)
		if (!strcmp(c->paths[i].via, via) && !strcmp(c->paths[i].label, label))
			return &c->paths[i];
	return NULL;
}

static void test_lineup_and_growth(void)
{
	/* BASE: class H (sticky) .CACHE -> Object[] [] -> 4 Items (16 bytes each),
	 * H .OTHER -> Item -> Item; NEW: CACHE's array bigger (+16) with 7 Items,
	 * the OTHER chain moved under H2 .KEEP, a new class Fresh.  The paths are
	 * listed in another order in NEW. */
	static const struct hp_dsum_class ca[] = {
		{ "Item", 6, 96, 96 }, { "Object[]", 1, 32, 96 }, { "Old", 1, 16, 16 },
	};
	static const struct hp_dsum_class cb[] = {
		{ "Fresh", 1, 16, 16 }, { "Item", 9, 144, 144 }, { "Object[]", 1, 48, 160 },
	};
	static const struct spath pa[] = {
		{ HP_NONE, "sticky_class", "class H", 1, 128, 8 },            /* 0 */
		{ 0, "CACHE", "Object[]", 1, 96, 5 },                         /* 1 */
		{ 1, "[]", "Item", 4, 64, 4 },                                /* 2 */
		{ 0, "OTHER", "Item", 1, 32, 2 },                             /* 3 */
		{ 3, "next", "Item", 1, 16, 1 },                              /* 4 */
		{ HP_NONE, "sticky_class", "class H2", 1, 0, 1 },             /* 5 */
		{ HP_NONE, "jni_global", "Old", 1, 16, 1 },                   /* 6 */
	};
	static const struct spath pb[] = {
		{ HP_NONE, "sticky_class", "class H2", 1, 32, 3 },            /* 0 */
		{ 0, "KEEP", "Item", 1, 32, 2 },                              /* 1 */
		{ 1, "next", "Item", 1, 16, 1 },                              /* 2 */
		{ HP_NONE, "sticky_class", "class H", 1, 160, 9 },            /* 3 */
		{ 3, "CACHE", "Object[]", 1, 160, 8 },                        /* 4 */
		{ 4, "[]", "Item", 7, 112, 7 },                               /* 5 */
		{ HP_NONE, "jni_global", "Fresh", 1, 16, 1 },                 /* 6 */
	};
	struct hp_dsum_path qa[7], qb[7];
	struct hp_dsum a, b;
	make(&a, ca, 3, qa, pa, 7);
	make(&b, cb, 3, qb, pb, 7);
	const struct hp_dsum *ss[2] = { &a, &b };
	struct hp_cmp c;
	struct hp_error err;
	hp_error_clear(&err);
	CHECK(hp_cmp_build(ss, 2, &c, &err) == HP_OK, "hp_cmp_build: %s", err.msg);
	CHECK(c.nclasses == 4, "classes %zu", c.nclasses);
	if (c.nclasses == 4) {
		CHECK(!strcmp(c.classes[0].name, "Fresh") && !c.classes[0].present[0] && c.classes[0].present[1],
		      "Fresh is new");
		CHECK(!strcmp(c.classes[1].name, "Item") && c.classes[1].instances[0] == 6 && c.classes[1].instances[1] == 9,
		      "Item 6 -> 9");
		CHECK(!strcmp(c.classes[3].name, "Old") && c.classes[3].present[0] && !c.classes[3].present[1], "Old is gone");
	}
	/* the union: class H, CACHE, [], OTHER, next under OTHER, H2, Old, KEEP, next under KEEP, Fresh */
	CHECK(c.npaths == 10, "paths %zu", c.npaths);
	const struct hp_cmp_path *items = find(&c, "[]", "Item");
	CHECK(items && items->nodes[0] == 4 && items->nodes[1] == 7 && items->retained[1] == 112, "[] Item lined up");
	for (size_t i = 0; i < c.npaths; i++)
		CHECK(c.paths[i].parent == HP_NONE || c.paths[i].parent < i, "parent before child at %zu", i);

	struct hp_growth *g;
	size_t ng;
	CHECK(hp_cmp_growth(&c, 0, 1, &g, &ng, &err) == HP_OK, "growth: %s", err.msg);
	/* CACHE's items +48 (+3); the array's own +16; KEEP +32 new; OTHER -32 gone;
	 * Fresh +16 new; Old -16 gone; H2's own part: nothing (0 -> 32 is KEEP) */
	int64_t sum = 0;
	for (size_t i = 0; i < ng; i++)
		sum += g[i].bytes;
	int64_t tops = (128 + 0 + 16) - (160 + 32 + 16);
	CHECK(sum == -tops, "points add up: %lld, tops %lld", (long long)sum, (long long)-tops);
	CHECK(ng == 6, "6 growth points, got %zu", ng);
	int seen = 0;
	for (size_t i = 0; i < ng; i++) {
		const struct hp_cmp_path *P = &c.paths[g[i].path];
		if (!strcmp(P->via, "[]")) {
			seen++;
			CHECK(g[i].bytes == 48 && g[i].nodes == 3 && !g[i].own && g[i].objects == 3, "[] Item +48 +3");
		} else if (!strcmp(P->via, "CACHE")) {
			seen++;
			CHECK(g[i].bytes == 16 && g[i].nodes == 0 && g[i].own, "the array's own +16");
		} else if (!strcmp(P->via, "KEEP")) {
			seen++;
			CHECK(g[i].bytes == 32 && g[i].nodes == 1 && !P->present[0], "KEEP new +32");
		} else if (!strcmp(P->via, "OTHER")) {
			seen++;
			CHECK(g[i].bytes == -32 && g[i].nodes == -1 && !P->present[1], "OTHER gone -32");
		} else if (!strcmp(P->label, "Fresh")) {
			seen++;
			CHECK(g[i].bytes == 16 && g[i].nodes == 1, "Fresh +16");
		} else if (!strcmp(P->label, "Old")) {
			seen++;
			CHECK(g[i].bytes == -16 && g[i].nodes == -1, "Old -16");
		} else {
			CHECK(0, "unexpected point %s %s %lld", P->via, P->label, (long long)g[i].bytes);
		}
	}
	CHECK(seen == 6, "the six points, %d", seen);
	hp_free(g);

	/* a summary against itself: no point */
	const struct hp_dsum *same[3] = { &a, &a, &a };
	struct hp_cmp c2;
	CHECK(hp_cmp_build(same, 3, &c2, &err) == HP_OK, "self: %s", err.msg);
	CHECK(hp_cmp_growth(&c2, 0, 2, &g, &ng, &err) == HP_OK && ng == 0, "self: %zu points", ng);
	hp_free(g);
	CHECK(c2.npaths == 7 && c2.nclasses == 3, "self: %zu paths %zu classes", c2.npaths, c2.nclasses);
	hp_cmp_release(&c2);
	hp_cmp_release(&c);
}

static void test_same_model(void)
{
	struct hp_dsum a, b, f;
	struct hp_dsum_path none[1];
	make(&a, NULL, 0, none, NULL, 0);
	a.size_kind = HP_SIZE_AHAT;
	a.weak_policy = HP_WEAK_SKIP_WEAK;
	a.roots_policy = HP_ROOTS_ALL;
	b = a;
	const struct hp_dsum *ss[3] = { &a, &b, &b };
	struct hp_cmp c;
	struct hp_error err;
	hp_error_clear(&err);
	CHECK(hp_cmp_build(ss, 3, &c, &err) == HP_OK && c.same_model, "one model: same");
	hp_cmp_release(&c);
	b.size_kind = HP_SIZE_MAT;          /* an Android dump and its hprof-conv conversion, each its own */
	CHECK(hp_cmp_build(ss, 3, &c, &err) == HP_OK && !c.same_model, "mat against ahat: not the same");
	hp_cmp_release(&c);
	b.size_kind = HP_SIZE_AHAT;
	b.weak_policy = HP_WEAK_FOLLOW;
	CHECK(hp_cmp_build(ss, 3, &c, &err) == HP_OK && !c.same_model, "another weak policy: not the same");
	hp_cmp_release(&c);
	b.weak_policy = HP_WEAK_SKIP_WEAK;
	b.roots_policy = HP_ROOTS_THREADS;
	CHECK(hp_cmp_build(ss, 3, &c, &err) == HP_OK && !c.same_model, "another roots policy: not the same");
	hp_cmp_release(&c);
	/* without retained sizes the policies are not used */
	f = b;
	f.has_retained = 0;
	f.weak_policy = f.roots_policy = -1;
	const struct hp_dsum *sf[2] = { &a, &f };
	CHECK(hp_cmp_build(sf, 2, &c, &err) == HP_OK && c.same_model && !c.has_retained, "histograms: same");
	hp_cmp_release(&c);
}

/* the row of a name, NULL when none */
static const struct hp_cmp_class *row(const struct hp_cmp *c, const char *name)
{
	for (size_t i = 0; i < c->nclasses; i++)
		if (!strcmp(c->classes[i].name, name))
			return &c->classes[i];
	return NULL;
}

static void test_normalised(void)
{
	struct hp_error err;
	hp_error_clear(&err);
	/* two runs: the lambdas and accessors got other numbers and addresses,
	 * the pool another number; the accessors' retained sizes are swapped */
	static const struct hp_dsum_class ca[] = {
		{ "Bus$$Lambda$1+0x0000000800c01000", 4, 64, 64 },
		{ "Bus$$Lambda$2+0x0000000800c01400", 2, 32, 32 },
		{ "Item", 2, 32, 32 },
		{ "jdk.internal.reflect.GeneratedMethodAccessor1", 1, 16, 100 },
		{ "jdk.internal.reflect.GeneratedMethodAccessor2", 1, 16, 50 },
	};
	static const struct hp_dsum_class cb[] = {
		{ "Bus$$Lambda$7+0x00007f0000001000", 2, 32, 32 },
		{ "Bus$$Lambda$8+0x00007f0000001400", 5, 80, 80 },
		{ "Item", 2, 32, 32 },
		{ "jdk.internal.reflect.GeneratedMethodAccessor1", 1, 16, 50 },
		{ "jdk.internal.reflect.GeneratedMethodAccessor2", 1, 16, 100 },
	};
	static const struct spath pa[] = {
		{ HP_NONE, "sticky_class", "class Bus", 1, 144, 8 },                   /* 0 */
		{ 0, "LISTENERS", "Object[]", 1, 128, 7 },                             /* 1 */
		{ 1, "[]", "Bus$$Lambda$1+0x0000000800c01000", 4, 64, 4 },             /* 2 */
		{ 1, "[]", "Bus$$Lambda$2+0x0000000800c01400", 2, 32, 2 },             /* 3 */
		{ HP_NONE, "thread_object", "thread \"pool-1-thread-1\"", 1, 40, 2 },  /* 4 */
		{ 4, "<java_frame>", "Item", 1, 16, 1 },                               /* 5 */
		{ HP_NONE, "thread_object", "thread \"pool-1-thread-2\"", 1, 40, 2 },  /* 6 */
		{ 6, "<java_frame>", "Item", 1, 16, 1 },                               /* 7 */
		{ HP_NONE, "thread_object", "thread \"main\"", 1, 24, 1 },             /* 8 */
	};
	static const struct spath pb[] = {
		{ HP_NONE, "thread_object", "thread \"main\"", 1, 24, 1 },             /* 0 */
		{ HP_NONE, "thread_object", "thread \"pool-3-thread-2\"", 1, 40, 2 },  /* 1 */
		{ 1, "<java_frame>", "Item", 1, 16, 1 },                               /* 2 */
		{ HP_NONE, "sticky_class", "class Bus", 1, 160, 9 },                   /* 3 */
		{ 3, "LISTENERS", "Object[]", 1, 144, 8 },                             /* 4 */
		{ 4, "[]", "Bus$$Lambda$7+0x00007f0000001000", 2, 32, 2 },             /* 5 */
		{ 4, "[]", "Bus$$Lambda$8+0x00007f0000001400", 5, 80, 5 },             /* 6 */
		{ HP_NONE, "thread_object", "thread \"pool-3-thread-1\"", 1, 40, 2 },  /* 7 */
		{ 7, "<java_frame>", "Item", 1, 16, 1 },                               /* 8 */
	};
	struct hp_dsum_path qa[9], qb[9];
	struct hp_dsum a, b;
	make(&a, ca, 5, qa, pa, 9);
	make(&b, cb, 5, qb, pb, 9);
	const struct hp_dsum *ss[2] = { &a, &b };
	struct hp_cmp c;
	CHECK(hp_cmp_build(ss, 2, &c, &err) == HP_OK, "two runs: %s", err.msg);
	CHECK(c.norm.runs_differ, "two runs: seen");
	CHECK(c.nclasses == 3, "two runs: 3 rows, got %zu", c.nclasses);
	const struct hp_cmp_class *L = row(&c, "Bus$$Lambda$*");
	CHECK(L && L->instances[0] == 6 && L->instances[1] == 7 && L->shallow[0] == 96 && L->shallow[1] == 112 &&
	      L->names[0] == 2 && L->names[1] == 2 && L->normalised == HP_GEN_LAMBDA && L->present[0] && L->present[1],
	      "two runs: the lambdas one row, 6 -> 7");
	const struct hp_cmp_class *A = row(&c, "jdk.internal.reflect.GeneratedMethodAccessor*");
	CHECK(A && A->instances[0] == 2 && A->instances[1] == 2 && A->retained[0] == 150 && A->retained[1] == 150 &&
	      A->normalised == HP_GEN_ACCESSOR, "two runs: the accessors one row, unchanged");
	const struct hp_cmp_class *I = row(&c, "Item");
	CHECK(I && !I->normalised && I->names[0] == 1, "two runs: Item by its name");
	CHECK(c.norm.classes == 2 && c.norm.class_names[0] == 4 && c.norm.class_names[1] == 4,
	      "two runs: 2 rows of 4 names each, got %zu, %llu %llu", c.norm.classes,
	      (unsigned long long)c.norm.class_names[0], (unsigned long long)c.norm.class_names[1]);
	/* class Bus, LISTENERS, [] lambdas, the pool's threads, their Items, main */
	CHECK(c.npaths == 6, "two runs: 6 paths, got %zu", c.npaths);
	const struct hp_cmp_path *lp = find(&c, "[]", "Bus$$Lambda$*");
	CHECK(lp && lp->nodes[0] == 6 && lp->nodes[1] == 7 && lp->retained[1] == 112 && lp->names[0] == 2 &&
	      lp->normalised == HP_GEN_LAMBDA, "two runs: the lambdas one path");
	const struct hp_cmp_path *tp = find(&c, "thread_object", "thread \"pool-*-thread-*\"");
	CHECK(tp && tp->nodes[0] == 2 && tp->nodes[1] == 2 && tp->retained[0] == 80 && tp->names[1] == 2 &&
	      tp->normalised == HP_GEN_THREAD, "two runs: the pool's threads one path");
	const struct hp_cmp_path *ti = find(&c, "<java_frame>", "Item");
	CHECK(ti && tp && ti->parent == (uint32_t)(tp - c.paths) && ti->nodes[0] == 2 && ti->nodes[1] == 2 &&
	      !ti->normalised, "two runs: their locals one path beneath");
	const struct hp_cmp_path *mp = find(&c, "thread_object", "thread \"main\"");
	CHECK(mp && !mp->normalised && mp->names[0] == 1, "two runs: main by its name");
	CHECK(c.norm.threads == 1 && c.norm.paths == 1 && c.norm.thread_names[0] == 2 && c.norm.thread_names[1] == 2 &&
	      c.norm.kinds == (HP_GEN_LAMBDA | HP_GEN_ACCESSOR | HP_GEN_THREAD), "two runs: counts, kinds %#x",
	      c.norm.kinds);
	for (size_t i = 0; i < c.npaths; i++)
		CHECK(c.paths[i].parent == HP_NONE || c.paths[i].parent < i, "two runs: parent before child at %zu", i);
	struct hp_growth *g;
	size_t ng;
	CHECK(hp_cmp_growth(&c, 0, 1, &g, &ng, &err) == HP_OK && ng == 1 && lp && g[0].path == (uint32_t)(lp - c.paths) &&
	      g[0].bytes == 16 && g[0].nodes == 1, "two runs: one growth point, the lambdas +16 (+1), got %zu", ng);
	hp_free(g);
	hp_cmp_release(&c);

	/* one JVM that made a lambda more and started a pool thread more: those
	 * families line up normalised, the accessors (unchanged) by name */
	static const struct hp_dsum_class cc[] = {
		{ "Bus$$Lambda$1+0x0000000800c01000", 4, 64, 64 },
		{ "Bus$$Lambda$3+0x0000000800c01800", 1, 16, 16 },
		{ "jdk.internal.reflect.GeneratedMethodAccessor1", 1, 16, 100 },
	};
	static const struct spath pc[] = {
		{ HP_NONE, "thread_object", "thread \"pool-1-thread-1\"", 1, 40, 2 },
		{ HP_NONE, "thread_object", "thread \"pool-1-thread-2\"", 1, 40, 2 },
	};
	static const struct hp_dsum_class ca1[] = {
		{ "Bus$$Lambda$1+0x0000000800c01000", 4, 64, 64 },
		{ "jdk.internal.reflect.GeneratedMethodAccessor1", 1, 16, 100 },
	};
	struct hp_dsum_path qc[2], qa1[1];
	struct hp_dsum one, grown;
	make(&one, ca1, 2, qa1, pc, 1);                 /* pool-1-thread-1 only */
	make(&grown, cc, 3, qc, pc, 2);
	const struct hp_dsum *s1[2] = { &one, &grown };
	CHECK(hp_cmp_build(s1, 2, &c, &err) == HP_OK, "one JVM: %s", err.msg);
	CHECK(!c.norm.runs_differ, "one JVM: not two runs");
	L = row(&c, "Bus$$Lambda$*");
	CHECK(L && L->instances[0] == 4 && L->instances[1] == 5 && L->names[0] == 1 && L->names[1] == 2,
	      "one JVM: the class's lambdas one row, 4 -> 5");
	CHECK(row(&c, "jdk.internal.reflect.GeneratedMethodAccessor1") && c.nclasses == 2,
	      "one JVM: the accessor by its name");
	tp = find(&c, "thread_object", "thread \"pool-*-thread-*\"");
	CHECK(tp && tp->nodes[0] == 1 && tp->nodes[1] == 2 && c.npaths == 1, "one JVM: the pool one path, 1 -> 2");
	hp_cmp_release(&c);

	/* one JVM, nothing made: every name as it is */
	const struct hp_dsum *s2[2] = { &a, &a };
	CHECK(hp_cmp_build(s2, 2, &c, &err) == HP_OK, "same: %s", err.msg);
	CHECK(!c.norm.runs_differ && !c.norm.classes && !c.norm.threads && !c.norm.paths && !c.norm.kinds &&
	      c.nclasses == 5 && c.npaths == 9 && row(&c, "Bus$$Lambda$1+0x0000000800c01000"),
	      "same: nothing normalised (%zu classes, %zu paths)", c.nclasses, c.npaths);
	hp_cmp_release(&c);

	/* made-up names of one dump only (an unrelated dump against another):
	 * nothing to line up with, so each by its own name, nothing normalised */
	static const struct hp_dsum_class cu[] = {
		{ "Item", 2, 32, 32 },
	};
	static const struct hp_dsum_class cv[] = {
		{ "Item", 2, 32, 32 },
		{ "Other$$Lambda$5+0x00007f0000005000", 1, 16, 16 },
		{ "Other$$Lambda$6+0x00007f0000005400", 2, 32, 32 },
	};
	static const struct spath pu[] = {
		{ HP_NONE, "thread_object", "thread \"main\"", 1, 24, 1 },
	};
	static const struct spath pv[] = {
		{ HP_NONE, "thread_object", "thread \"main\"", 1, 24, 1 },
		{ HP_NONE, "thread_object", "thread \"worker-1\"", 1, 40, 1 },
		{ HP_NONE, "thread_object", "thread \"worker-2\"", 1, 40, 1 },
	};
	struct hp_dsum_path qu[1], qv[3];
	struct hp_dsum u, v;
	make(&u, cu, 1, qu, pu, 1);
	make(&v, cv, 3, qv, pv, 3);
	const struct hp_dsum *s5[2] = { &u, &v };
	CHECK(hp_cmp_build(s5, 2, &c, &err) == HP_OK, "one side only: %s", err.msg);
	CHECK(!c.norm.classes && !c.norm.threads && !c.norm.paths && !c.norm.kinds && c.nclasses == 3 &&
	      c.npaths == 3 && row(&c, "Other$$Lambda$5+0x00007f0000005000") &&
	      find(&c, "thread_object", "thread \"worker-2\""),
	      "one side only: every name as it is (%zu classes, %zu paths)", c.nclasses, c.npaths);
	hp_cmp_release(&c);

	/* three dumps: names only added (a, a + L3, a + L3) is one JVM; a third
	 * dump of other lambdas is another run */
	const struct hp_dsum *s3[3] = { &one, &grown, &grown };
	CHECK(hp_cmp_build(s3, 3, &c, &err) == HP_OK && !c.norm.runs_differ, "series adding names: one JVM");
	hp_cmp_release(&c);
	const struct hp_dsum *s4[3] = { &one, &grown, &b };
	CHECK(hp_cmp_build(s4, 3, &c, &err) == HP_OK && c.norm.runs_differ, "a run between the 2nd and 3rd: seen");
	L = row(&c, "Bus$$Lambda$*");
	CHECK(L && L->instances[0] == 4 && L->instances[1] == 5 && L->instances[2] == 7 && L->names[2] == 2,
	      "three dumps: 4, 5, 7 lambdas");
	hp_cmp_release(&c);
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		fprintf(stderr, "usage: test_diff (no arguments)\n");
		return 2;
	}
	test_fit();
	test_lineup_and_growth();
	test_same_model();
	test_normalised();
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
