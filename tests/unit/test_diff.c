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
 *     policies of a histogram-only summary do not count.
 */
#include "analysis/diff.h"
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

int main(int argc, char **argv)
{
	if (argc > 1) {
		fprintf(stderr, "usage: test_diff (no arguments)\n");
		return 2;
	}
	test_fit();
	test_lineup_and_growth();
	test_same_model();
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
