/*
 * test_dominators.c — immediate dominators and retained sizes over a
 * virtual super-root S, on small graphs worked out by hand, on the graph of
 * Lengauer and Tarjan's paper, on 10-million-link chains (nothing may
 * recurse), against a slow data-flow reference on random graphs of up to 60
 * nodes and against the definition of dominance on graphs of up to 1,200,
 * with bad input, and with every allocation failing in turn.
 *
 * In the comments "S" is the super-root, "x -> y" an edge, and a node's
 * retained size is the sum of the shallow sizes of its dominator subtree.
 */
#include "analysis/dominators.h"
#include "model/refs.h"
#include "base/alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int passed, failed;
#define CHECK(cond, ...) do { if (cond) passed++; else { failed++; printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } } while (0)

#define SUP HP_DOM_SUPER
#define UNR HP_DOM_UNREACHABLE

/* A graph built from an edge list (plain malloc: the fault-injection
 * children count only the module's own allocations). */
struct graph {
	uint32_t n;
	uint64_t *off;
	uint32_t *adj;
};

static void graph_build(struct graph *g, uint32_t n, const uint32_t (*edges)[2], size_t m)
{
	g->n = n;
	g->off = calloc((size_t)n + 1, sizeof *g->off);
	g->adj = malloc((m ? m : 1) * sizeof *g->adj);
	if (!g->off || !g->adj)
		abort();
	for (size_t k = 0; k < m; k++)
		g->off[edges[k][0] + 1]++;
	for (uint32_t v = 0; v < n; v++)
		g->off[v + 1] += g->off[v];
	uint64_t *pos = malloc(((size_t)n + 1) * sizeof *pos);
	if (!pos)
		abort();
	memcpy(pos, g->off, ((size_t)n + 1) * sizeof *pos);
	for (size_t k = 0; k < m; k++)   /* keeps each node's edges in list order */
		g->adj[pos[edges[k][0]]++] = edges[k][1];
	free(pos);
}

static void graph_free(struct graph *g)
{
	free(g->off);
	free(g->adj);
}

/*
 * hp_dom_compute() as every caller can reach it: 64-bit and 32-bit edge
 * offsets, each with 32-bit cursors in an array (the default below 4 G
 * edges), with 64-bit ones (forced) and with none (the cursors in the
 * nodes: what a tight memory budget chooses; forced).  All must give the
 * same tree, order included; 64-bit cursors must need 4 bytes per reached
 * node more at the peak, none 4 less.  *d gets the default one's result.
 */
static int compute_variants(struct hp_dom *d, const char *name, const struct graph *g,
			    const uint32_t *roots, size_t nroots, struct hp_error *err)
{
	int rc = hp_dom_compute(d, g->n, g->off, g->adj, roots, nroots, err);
	if (rc != HP_OK)
		return rc;
	uint32_t *off32 = malloc(((size_t)g->n + 1) * sizeof *off32);
	if (!off32)
		abort();
	for (size_t v = 0; v <= g->n; v++)
		off32[v] = (uint32_t)g->off[v];
	for (int variant = 1; variant < 8; variant++) {
		struct hp_dom o;
		struct hp_error e2;
		hp_error_clear(&e2);
		hp_dom_wide_cursors = variant & 1;
		hp_dom_compact_cursors = (variant & 4) != 0;
		int r2 = variant & 2 ? hp_dom_compute32(&o, g->n, off32, g->adj, roots, nroots, &e2)
				     : hp_dom_compute(&o, g->n, g->off, g->adj, roots, nroots, &e2);
		hp_dom_wide_cursors = hp_dom_compact_cursors = 0;
		CHECK(r2 == HP_OK, "%s: variant %d: %s", name, variant, e2.msg);
		if (r2 != HP_OK)
			continue;
		int same = o.n == d->n && o.nreach == d->nreach &&
			   !memcmp(o.idom, d->idom, (size_t)d->n * sizeof *d->idom) &&
			   !memcmp(o.order, d->order, (size_t)d->nreach * sizeof *d->order);
		CHECK(same, "%s: variant %d (%s offsets, %s cursors) gives another tree", name, variant,
		      variant & 2 ? "32-bit" : "64-bit", variant & 1 ? "64-bit" : variant & 4 ? "no" : "32-bit");
		if (variant & 1)
			CHECK(o.peak_bytes >= d->peak_bytes + 4ull * d->nreach,
			      "%s: 64-bit cursors peak %llu, 32-bit %llu, %u reached", name,
			      (unsigned long long)o.peak_bytes, (unsigned long long)d->peak_bytes, d->nreach);
		else if (variant & 4)
			CHECK(o.peak_bytes + 4ull * d->nreach <= d->peak_bytes,
			      "%s: no cursor array peak %llu, 32-bit cursors %llu, %u reached", name,
			      (unsigned long long)o.peak_bytes, (unsigned long long)d->peak_bytes, d->nreach);
		else
			CHECK(o.peak_bytes == d->peak_bytes, "%s: variant %d peak %llu, want %llu", name, variant,
			      (unsigned long long)o.peak_bytes, (unsigned long long)d->peak_bytes);
		hp_dom_release(&o);
	}
	/* a memory budget the pass would pass with its cursor array and not
	 * without one: none (and with a budget too small for either, the
	 * array: compared with the default below as every variant is) */
	struct hp_dom o;
	struct hp_error e2;
	hp_error_clear(&e2);
	uint64_t ne = g->n ? g->off[g->n] : 0;
	hp_alloc_set_budget(hp_dom_bytes(g->n, ne, nroots, 0) - 1);
	int r2 = hp_dom_compute(&o, g->n, g->off, g->adj, roots, nroots, &e2);
	hp_alloc_set_budget(0);
	CHECK(hp_dom_bytes(g->n, ne, nroots, 1) <= hp_dom_bytes(g->n, ne, nroots, 0) - 1,
	      "%s: the budget between the two layouts' needs", name);
	CHECK(r2 == HP_OK, "%s: under a budget: %s", name, e2.msg);
	if (r2 == HP_OK) {
		int same = o.n == d->n && o.nreach == d->nreach &&
			   !memcmp(o.idom, d->idom, (size_t)d->n * sizeof *d->idom) &&
			   !memcmp(o.order, d->order, (size_t)d->nreach * sizeof *d->order);
		CHECK(same && o.peak_bytes + 4ull * d->nreach <= d->peak_bytes,
		      "%s: under a budget: %s, peak %llu against %llu", name, same ? "the same tree" : "another tree",
		      (unsigned long long)o.peak_bytes, (unsigned long long)d->peak_bytes);
		hp_dom_release(&o);
	}
	hp_alloc_set_budget(1);
	r2 = hp_dom_compute(&o, g->n, g->off, g->adj, roots, nroots, &e2);
	hp_alloc_set_budget(0);
	CHECK(r2 == HP_OK && o.peak_bytes == d->peak_bytes, "%s: a budget too small for either: the cursor array", name);
	if (r2 == HP_OK)
		hp_dom_release(&o);
	/* the reverse edges made on two threads (from any size here), with
	 * the cursor array and without: the same tree and order */
	for (int k = 0; k < 2; k++) {
		size_t from = hp_dom_parallel_from;
		hp_dom_parallel_from = 0;
		hp_dom_compact_cursors = k;
		r2 = hp_dom_compute(&o, g->n, g->off, g->adj, roots, nroots, &e2);
		hp_dom_parallel_from = from;
		hp_dom_compact_cursors = 0;
		CHECK(r2 == HP_OK, "%s: on two threads: %s", name, e2.msg);
		if (r2 != HP_OK)
			continue;
		int same = o.n == d->n && o.nreach == d->nreach &&
			   !memcmp(o.idom, d->idom, (size_t)d->n * sizeof *d->idom) &&
			   !memcmp(o.order, d->order, (size_t)d->nreach * sizeof *d->order);
		CHECK(same, "%s: on two threads%s: another tree", name, k ? ", no cursor array" : "");
		hp_dom_release(&o);
	}
	free(off32);
	return HP_OK;
}

/* order[] holds every reachable node once, and idom[v] comes before v */
static int order_ok(const struct hp_dom *d)
{
	uint32_t *pos = malloc(((size_t)d->n + 1) * sizeof *pos);
	int ok = 1;
	size_t reach = 0;
	if (!pos)
		abort();
	for (uint32_t v = 0; v < d->n; v++) {
		pos[v] = UINT32_MAX;
		if (d->idom[v] != UNR)
			reach++;
	}
	if (reach != d->nreach)
		ok = 0;
	for (uint32_t k = 0; ok && k < d->nreach; k++) {
		uint32_t v = d->order[k];
		if (v >= d->n || pos[v] != UINT32_MAX || d->idom[v] == UNR)
			ok = 0;
		else
			pos[v] = k;
	}
	for (uint32_t k = 0; ok && k < d->nreach; k++) {
		uint32_t v = d->order[k], p = d->idom[v];
		if (p != SUP && (p >= d->n || pos[p] == UINT32_MAX || pos[p] >= k))
			ok = 0;
	}
	free(pos);
	return ok;
}

/*
 * Runs the module on a small graph and compares with the expected idoms and
 * retained sizes (want_total: the super-root's retained size).
 */
static void run_small(const char *name, uint32_t n, const uint32_t (*edges)[2], size_t m,
		      const uint32_t *roots, size_t nroots, const uint32_t *want_idom,
		      const uint64_t *shallow, const uint64_t *want_ret, uint64_t want_total)
{
	struct graph g;
	struct hp_dom d;
	struct hp_error err;
	hp_error_clear(&err);
	graph_build(&g, n, edges, m);
	int rc = compute_variants(&d, name, &g, roots, nroots, &err);
	CHECK(rc == HP_OK, "%s: compute: %s", name, err.msg);
	if (rc != HP_OK) {
		graph_free(&g);
		return;
	}
	CHECK(d.n == n, "%s: n %u", name, d.n);
	for (uint32_t v = 0; v < n; v++)
		CHECK(d.idom[v] == want_idom[v], "%s: idom(%u) = %ld, want %ld", name, v,
		      d.idom[v] >= SUP ? -(long)(UINT32_MAX - d.idom[v]) - 1 : (long)d.idom[v],
		      want_idom[v] >= SUP ? -(long)(UINT32_MAX - want_idom[v]) - 1 : (long)want_idom[v]);
	CHECK(order_ok(&d), "%s: order is not a preorder of the reachable nodes", name);
	uint64_t *ret = malloc((n ? n : 1) * sizeof *ret), total = 12345;
	if (!ret)
		abort();
	rc = hp_dom_retained(&d, shallow, ret, &total, &err);
	CHECK(rc == HP_OK, "%s: retained: %s", name, err.msg);
	for (uint32_t v = 0; v < n; v++)
		CHECK(ret[v] == want_ret[v], "%s: retained(%u) = %llu, want %llu", name, v,
		      (unsigned long long)ret[v], (unsigned long long)want_ret[v]);
	CHECK(total == want_total, "%s: total %llu, want %llu", name,
	      (unsigned long long)total, (unsigned long long)want_total);
	free(ret);
	hp_dom_release(&d);
	CHECK(d.idom == NULL && d.order == NULL && d.n == 0, "%s: release leaves a struct", name);
	graph_free(&g);
}

#define N_(a) (sizeof(a) / sizeof((a)[0]))

static void test_diamond(void)
{
	/* r=0 a=1 b=2 c=3; S -> r, r -> a, r -> b, a -> c, b -> c.
	 * Every path to a, b or c passes through r, none through a or b
	 * alone: idom(r) = S, idom(a) = idom(b) = idom(c) = r.
	 * Shallow 1, 10, 100, 1000: retained a 10, b 100, c 1000,
	 * r 1 + 10 + 100 + 1000 = 1111 = total. */
	static const uint32_t e[][2] = { {0, 1}, {0, 2}, {1, 3}, {2, 3} };
	static const uint32_t roots[] = { 0 };
	static const uint32_t idom[] = { SUP, 0, 0, 0 };
	static const uint64_t sh[] = { 1, 10, 100, 1000 }, ret[] = { 1111, 10, 100, 1000 };
	run_small("diamond", 4, e, N_(e), roots, 1, idom, sh, ret, 1111);

	/* The same diamond with the join's edges listed first and c -> a
	 * (a back edge only when DFS went r, b, c, a): still idom(a) = r
	 * since r -> a is direct; c is entered from a or from b. */
	static const uint32_t e2[][2] = { {0, 2}, {0, 1}, {2, 3}, {1, 3}, {3, 1} };
	run_small("diamond, other order", 4, e2, N_(e2), roots, 1, idom, sh, ret, 1111);
}

static void test_cycle(void)
{
	/* S -> 0, 0 -> 1 -> 2 -> 3 -> 1 and 3 -> 0.  The only way into the
	 * cycle is 0 -> 1, then 2 only after 1, 3 only after 2:
	 * idom 0 = S, 1 = 0, 2 = 1, 3 = 2.  Shallow 1, 2, 4, 8: retained
	 * 3: 8, 2: 12, 1: 14, 0: 15 = total. */
	static const uint32_t e[][2] = { {0, 1}, {1, 2}, {2, 3}, {3, 1}, {3, 0} };
	static const uint32_t roots[] = { 0 };
	static const uint32_t idom[] = { SUP, 0, 1, 2 };
	static const uint64_t sh[] = { 1, 2, 4, 8 }, ret[] = { 15, 14, 12, 8 };
	run_small("cycle", 4, e, N_(e), roots, 1, idom, sh, ret, 15);

	/* A ring 0 -> 1 -> 2 -> 0 entered at 2: idom 2 = S, 0 = 2, 1 = 0.
	 * Shallow 1, 2, 4: retained 1: 2, 0: 3, 2: 7. */
	static const uint32_t e2[][2] = { {0, 1}, {1, 2}, {2, 0} };
	static const uint32_t roots2[] = { 2 };
	static const uint32_t idom2[] = { 2, 0, SUP };
	static const uint64_t sh2[] = { 1, 2, 4 }, ret2[] = { 3, 2, 7 };
	run_small("ring", 3, e2, N_(e2), roots2, 1, idom2, sh2, ret2, 7);

	/* Two ways around: 0 -> 1 -> 3, 0 -> 2 -> 3, 3 -> 4 -> 1, 4 -> 2.
	 * 1 and 2 each have a way in that skips the other (from 0), and so
	 * does 3 (via 1 or via 2): idom 1 = 2 = 3 = 0; 4 only from 3.
	 * Shallow 1, 2, 4, 8, 16: retained 4: 16, 3: 24, 2: 4, 1: 2, 0: 31. */
	static const uint32_t e3[][2] = { {0, 1}, {1, 3}, {0, 2}, {2, 3}, {3, 4}, {4, 1}, {4, 2} };
	static const uint32_t roots3[] = { 0 };
	static const uint32_t idom3[] = { SUP, 0, 0, 0, 3 };
	static const uint64_t sh3[] = { 1, 2, 4, 8, 16 }, ret3[] = { 31, 2, 4, 24, 16 };
	run_small("two cycles", 5, e3, N_(e3), roots3, 1, idom3, sh3, ret3, 31);
}

static void test_self_loop(void)
{
	/* S -> 0, 0 -> 0, 0 -> 1, 1 -> 1, 1 -> 2, 2 -> 2: a chain with a loop
	 * on every node; loops change nothing: idom 0 = S, 1 = 0, 2 = 1.
	 * Shallow 5, 6, 7: retained 2: 7, 1: 13, 0: 18. */
	static const uint32_t e[][2] = { {0, 0}, {0, 1}, {1, 1}, {1, 2}, {2, 2} };
	static const uint32_t roots[] = { 0 };
	static const uint32_t idom[] = { SUP, 0, 1 };
	static const uint64_t sh[] = { 5, 6, 7 }, ret[] = { 18, 13, 7 };
	run_small("self-loops", 3, e, N_(e), roots, 1, idom, sh, ret, 18);

	/* A single root whose only edge is to itself. */
	static const uint32_t e1[][2] = { {0, 0} };
	static const uint32_t idom1[] = { SUP };
	static const uint64_t sh1[] = { 9 }, ret1[] = { 9 };
	run_small("lone self-loop", 1, e1, N_(e1), roots, 1, idom1, sh1, ret1, 9);
}

static void test_shared(void)
{
	/* Roots 0 and 1, 0 -> 2, 1 -> 2, 2 -> 3.  Neither root is on every
	 * path to 2 (S -> 0 -> 2, S -> 1 -> 2): idom 2 = S; idom 3 = 2.
	 * Shallow 1, 2, 4, 8: retained 0: 1, 1: 2, 2: 12, 3: 8; total 15. */
	static const uint32_t e[][2] = { {0, 2}, {1, 2}, {2, 3} };
	static const uint32_t roots[] = { 0, 1 };
	static const uint32_t idom[] = { SUP, SUP, SUP, 2 };
	static const uint64_t sh[] = { 1, 2, 4, 8 }, ret[] = { 1, 2, 12, 8 };
	run_small("two roots share one object", 4, e, N_(e), roots, 2, idom, sh, ret, 15);

	/* A root that another root also reaches (0 -> 1, both roots) is still
	 * dominated by S only: idom 1 = S, and 0 does not retain it.
	 * Shallow 1, 2, 4 with 1 -> 2: retained 0: 1, 1: 6, 2: 4; total 7. */
	static const uint32_t e2[][2] = { {0, 1}, {1, 2} };
	static const uint32_t idom2[] = { SUP, SUP, 1 };
	static const uint64_t sh2[] = { 1, 2, 4 }, ret2[] = { 1, 6, 4 };
	run_small("root reached from a root", 3, e2, N_(e2), roots, 2, idom2, sh2, ret2, 7);
}

static void test_unreachable(void)
{
	/* S -> 0, 0 -> 1; the cluster 2 <-> 3, 3 -> 4, 4 -> 1 has no way in
	 * from S: idom 2 = 3 = 4 = unreachable, retained 0; the edge 4 -> 1
	 * changes nothing (idom 1 = 0).  Shallow 1, 2, 4, 8, 16: retained
	 * 0: 3, 1: 2; total 3. */
	static const uint32_t e[][2] = { {0, 1}, {2, 3}, {3, 2}, {3, 4}, {4, 1} };
	static const uint32_t roots[] = { 0 };
	static const uint32_t idom[] = { SUP, 0, UNR, UNR, UNR };
	static const uint64_t sh[] = { 1, 2, 4, 8, 16 }, ret[] = { 3, 2, 0, 0, 0 };
	run_small("unreachable cluster", 5, e, N_(e), roots, 1, idom, sh, ret, 3);

	/* No roots: nothing is reachable, the super-root retains 0. */
	static const uint32_t idom0[] = { UNR, UNR, UNR, UNR, UNR };
	static const uint64_t ret0[] = { 0, 0, 0, 0, 0 };
	run_small("no roots", 5, e, N_(e), NULL, 0, idom0, sh, ret0, 0);

	/* No nodes at all. */
	run_small("empty graph", 0, NULL, 0, NULL, 0, NULL, NULL, NULL, 0);
}

static void test_duplicates(void)
{
	/* Roots 1, 1, 0, 1 (1 three times) with 0 -> 1, 1 -> 2: both are
	 * roots, so idom 0 = 1 = S, idom 2 = 1.  Shallow 1, 2, 4: retained
	 * 0: 1, 1: 6, 2: 4; total 7. */
	static const uint32_t e[][2] = { {0, 1}, {1, 2} };
	static const uint32_t roots[] = { 1, 1, 0, 1 };
	static const uint32_t idom[] = { SUP, SUP, 1 };
	static const uint64_t sh[] = { 1, 2, 4 }, ret[] = { 1, 6, 4 };
	run_small("duplicate roots", 3, e, N_(e), roots, N_(roots), idom, sh, ret, 7);

	/* Root 0 listed twice, 0 -> 1 three times, 1 -> 2 twice: a chain,
	 * idom 1 = 0, 2 = 1.  Shallow 1, 2, 4: retained 0: 7, 1: 6, 2: 4. */
	static const uint32_t e2[][2] = { {0, 1}, {0, 1}, {1, 2}, {0, 1}, {1, 2} };
	static const uint32_t roots2[] = { 0, 0 };
	static const uint32_t idom2[] = { SUP, 0, 1 };
	static const uint64_t sh2[] = { 1, 2, 4 }, ret2[] = { 7, 6, 4 };
	run_small("duplicate edges", 3, e2, N_(e2), roots2, 2, idom2, sh2, ret2, 7);

	/* Duplicated edges into a join: 0 -> 1 twice, 0 -> 2 twice, 1 -> 3
	 * twice, 2 -> 3: idom 3 = 0 (paths via 1 and via 2).  Shallow 1, 2,
	 * 4, 8: retained 0: 15, 1: 2, 2: 4, 3: 8. */
	static const uint32_t e3[][2] = { {0, 1}, {0, 1}, {0, 2}, {0, 2}, {1, 3}, {1, 3}, {2, 3} };
	static const uint32_t idom3[] = { SUP, 0, 0, 0 };
	static const uint64_t sh3[] = { 1, 2, 4, 8 }, ret3[] = { 15, 2, 4, 8 };
	run_small("duplicate edges into a join", 4, e3, N_(e3), roots2, 1, idom3, sh3, ret3, 15);
}

static void test_paper(void)
{
	/*
	 * The flowgraph of Lengauer and Tarjan (1979), figure 1, with R the
	 * only root.  Nodes R=0 A=1 B=2 C=3 D=4 E=5 F=6 G=7 H=8 I=9 J=10
	 * K=11 L=12.  Edges:
	 *   R -> A B C   A -> D   B -> A D E   C -> F G   D -> L   E -> H
	 *   F -> I   G -> I J   H -> E K   I -> K   J -> I   K -> I R   L -> H
	 * The paper's dominator tree: R idominates A B C D E H I K; C
	 * idominates F G; G idominates J; D idominates L.  (I: via F or G or
	 * K, whose only common dominator is R; K: via H or I; H: via E or L.)
	 * Shallow 2^node: retained
	 *   D = D + L = 16 + 4096 = 4112
	 *   G = G + J = 128 + 1024 = 1152
	 *   C = C + F + G + J = 8 + 64 + 128 + 1024 = 1224
	 *   R = 2^13 - 1 = 8191; the others their own shallow size.
	 */
	enum { R, A, B, C, D, E, F, G, H, I, J, K, L };
	static const uint32_t e[][2] = {
		{R, A}, {R, B}, {R, C}, {A, D}, {B, A}, {B, D}, {B, E}, {C, F}, {C, G},
		{D, L}, {E, H}, {F, I}, {G, I}, {G, J}, {H, E}, {H, K}, {I, K}, {J, I},
		{K, I}, {K, R}, {L, H}
	};
	static const uint32_t roots[] = { R };
	static const uint32_t idom[] = { SUP, R, R, R, R, R, C, C, R, R, G, R, D };
	uint64_t sh[13], ret[13];
	for (int v = 0; v < 13; v++)
		sh[v] = ret[v] = 1ull << v;
	ret[D] = 4112;
	ret[G] = 1152;
	ret[C] = 1224;
	ret[R] = 8191;
	run_small("Lengauer-Tarjan figure 1", 13, e, N_(e), roots, 1, idom, sh, ret, 8191);

	/* The same graph with every edge list reversed (a different DFS). */
	uint32_t rev[N_(e)][2];
	for (size_t k = 0; k < N_(e); k++) {
		rev[k][0] = e[N_(e) - 1 - k][0];
		rev[k][1] = e[N_(e) - 1 - k][1];
	}
	run_small("Lengauer-Tarjan figure 1, edges reversed", 13, (const uint32_t (*)[2])rev, N_(e),
		  roots, 1, idom, sh, ret, 8191);
}

/* processor time, so that a busy machine does not fail the test */
static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * A chain 0 -> 1 -> ... -> n-1 rooted at 0: idom(k) = k - 1, the DFS
 * depth is n, and retained(k) is the sum of shallow[] from k to the end.
 * back: also n-1 -> 0 (a ring: eval() then compresses a path of n nodes
 * in one call) and every k -> k-1 (a doubly linked list); neither changes
 * a dominator, since the only way forward is still the chain.
 */
static void test_chain(uint32_t n, int ring, int doubly)
{
	char name[80];
	snprintf(name, sizeof name, "chain of %u%s%s", n, ring ? ", closed" : "",
		 doubly ? ", doubly linked" : "");
	uint64_t m = (uint64_t)n - 1 + (ring ? 1 : 0) + (doubly ? n - 1 : 0);
	uint64_t *off = malloc(((size_t)n + 1) * sizeof *off);
	uint32_t *adj = malloc(m * sizeof *adj);
	uint64_t *sh = malloc((size_t)n * sizeof *sh), *ret = malloc((size_t)n * sizeof *ret);
	if (!off || !adj || !sh || !ret)
		abort();
	uint64_t k = 0;
	for (uint32_t v = 0; v < n; v++) {
		off[v] = k;
		if (doubly && v > 0)
			adj[k++] = v - 1;
		if (v + 1 < n)
			adj[k++] = v + 1;
		else if (ring)
			adj[k++] = 0;
		sh[v] = 16 + 8 * (v % 5);
	}
	off[n] = k;
	uint32_t root = 0;
	struct hp_dom d;
	struct hp_error err;
	hp_error_clear(&err);
	double t0 = now();
	int rc = hp_dom_compute(&d, n, off, adj, &root, 1, &err);
	double t1 = now();
	CHECK(rc == HP_OK, "%s: %s", name, err.msg);
	if (rc == HP_OK) {
		uint64_t total = 0;
		rc = hp_dom_retained(&d, sh, ret, &total, &err);
		CHECK(rc == HP_OK, "%s: retained: %s", name, err.msg);
		uint32_t bad_idom = 0, bad_order = 0, bad_ret = 0;
		uint64_t suffix = 0;
		for (uint32_t v = n; v-- > 0;) {
			suffix += sh[v];
			if (d.idom[v] != (v ? v - 1 : SUP))
				bad_idom++;
			if (ret[v] != suffix)
				bad_ret++;
		}
		for (uint32_t v = 0; v < n; v++)
			if (d.order[v] != v)
				bad_order++;
		CHECK(d.nreach == n, "%s: %u reachable", name, d.nreach);
		CHECK(bad_idom == 0, "%s: %u wrong idoms", name, bad_idom);
		CHECK(bad_order == 0, "%s: %u out of order", name, bad_order);
		CHECK(bad_ret == 0, "%s: %u wrong retained sizes", name, bad_ret);
		CHECK(total == suffix && ret[0] == suffix, "%s: total %llu, want %llu", name,
		      (unsigned long long)total, (unsigned long long)suffix);
		CHECK(d.peak_bytes <= 32ull * n + 4 * (m + 1) + 64, "%s: peak %llu bytes",
		      name, (unsigned long long)d.peak_bytes);
		CHECK(t1 - t0 < 5.0, "%s: took %.2f s of processor time", name, t1 - t0);
		hp_dom_release(&d);
	}
	free(off);
	free(adj);
	free(sh);
	free(ret);
}

/* ---- the reference: data-flow dominator sets over at most 63 nodes ---- */

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/*
 * Node n stands for the super-root; dom[v] is a bit set of v's dominators
 * (S included), computed by iterating dom(v) = {v} + the intersection of
 * dom(p) over reachable predecessors p until nothing changes.  No recursion.
 */
static void ref_dominators(uint32_t n, const uint32_t (*edges)[2], size_t m, const uint32_t *roots,
			   size_t nroots, uint64_t *dom, int *reach)
{
	uint64_t all = (n + 1 == 64) ? UINT64_MAX : (1ull << (n + 1)) - 1;
	for (uint32_t v = 0; v < n; v++)
		reach[v] = 0;
	for (size_t k = 0; k < nroots; k++)
		reach[roots[k]] = 1;
	for (int changed = 1; changed;) {   /* reachability by relaxation */
		changed = 0;
		for (size_t k = 0; k < m; k++)
			if (reach[edges[k][0]] && !reach[edges[k][1]])
				reach[edges[k][1]] = changed = 1;
	}
	for (uint32_t v = 0; v < n; v++)
		dom[v] = reach[v] ? all : 0;
	dom[n] = 1ull << n;
	for (int changed = 1; changed;) {
		changed = 0;
		for (uint32_t v = 0; v < n; v++) {
			if (!reach[v])
				continue;
			uint64_t x = all;
			for (size_t k = 0; k < nroots; k++)
				if (roots[k] == v)
					x &= dom[n];
			for (size_t k = 0; k < m; k++)
				if (edges[k][1] == v && reach[edges[k][0]])
					x &= dom[edges[k][0]];
			x |= 1ull << v;
			if (x != dom[v]) {
				dom[v] = x;
				changed = 1;
			}
		}
	}
}

static int popcount64(uint64_t x)
{
	int c = 0;
	for (; x; x &= x - 1)
		c++;
	return c;
}

static void test_random(int graphs)
{
	int bad = 0, reached = 0, supers = 0, deep = 0;
	uint32_t edges[240][2], roots[4];
	uint64_t dom[64], sh[63], ret[63];
	int reach[63];
	for (int gi = 0; gi < graphs; gi++) {
		uint32_t n = 2 + (uint32_t)(next_rand() % 59);       /* 2..60 */
		size_t m = (size_t)(next_rand() % (4 * n));          /* 0..4n-1 */
		size_t nroots = (size_t)(next_rand() % 4);           /* 0..3 */
		if (gi % 10 == 0 && nroots == 0)
			nroots = 1;
		for (size_t k = 0; k < m; k++) {
			edges[k][0] = (uint32_t)(next_rand() % n);
			/* mostly forward and local, some anywhere: deep trees and back edges */
			if (next_rand() % 3)
				edges[k][1] = (edges[k][0] + 1 + (uint32_t)(next_rand() % 3)) % n;
			else
				edges[k][1] = (uint32_t)(next_rand() % n);
		}
		for (size_t k = 0; k < nroots; k++)
			roots[k] = (uint32_t)(next_rand() % n);
		for (uint32_t v = 0; v < n; v++)
			sh[v] = 1 + next_rand() % 1000;

		ref_dominators(n, (const uint32_t (*)[2])edges, m, roots, nroots, dom, reach);
		struct graph g;
		struct hp_dom d;
		struct hp_error err;
		hp_error_clear(&err);
		graph_build(&g, n, (const uint32_t (*)[2])edges, m);
		int rc = hp_dom_compute(&d, n, g.off, g.adj, roots, nroots, &err);
		if (rc != HP_OK) {
			CHECK(0, "random graph %d: %s", gi, err.msg);
			graph_free(&g);
			continue;
		}
		uint64_t total = 0, want_total = 0;
		if (hp_dom_retained(&d, sh, ret, &total, &err) != HP_OK)
			bad++;
		int this_bad = 0;
		for (uint32_t v = 0; v < n; v++) {
			uint32_t want = UNR;
			uint64_t want_ret = 0;
			if (reach[v]) {
				reached++;
				/* the idom is the strict dominator with the most dominators */
				uint64_t strict = dom[v] & ~(1ull << v);
				int best = -1;
				for (uint32_t u = 0; u <= n; u++)
					if ((strict >> u & 1) && (best < 0 || popcount64(dom[u]) > popcount64(dom[best])))
						best = (int)u;
				want = (uint32_t)best == n ? SUP : (uint32_t)best;
				if (want == SUP)
					supers++;
				else if (popcount64(dom[v]) > 3)
					deep++;
				for (uint32_t w = 0; w < n; w++)
					if (reach[w] && (dom[w] >> v & 1))
						want_ret += sh[w];
				want_total += sh[v];
			}
			if (d.idom[v] != want || ret[v] != want_ret) {
				if (!this_bad)
					printf("random graph %d (n %u, m %zu): node %u idom %u want %u, retained %llu want %llu\n",
					       gi, n, m, v, d.idom[v], want, (unsigned long long)ret[v],
					       (unsigned long long)want_ret);
				this_bad = 1;
			}
		}
		if (total != want_total || !order_ok(&d))
			this_bad = 1;
		bad += this_bad;
		hp_dom_release(&d);
		graph_free(&g);
	}
	CHECK(bad == 0, "%d of %d random graphs disagree with the reference", bad, graphs);
	/* the graphs exercised what they should: reached nodes, S-dominated
	 * nodes, and nodes with more than two dominators below S */
	CHECK(reached > graphs * 5 && supers > graphs / 4 && deep > graphs,
	      "random graphs too easy: %d reached, %d under S, %d deep", reached, supers, deep);
}

/*
 * A heap's graph with implicit class edges (model/refs.h: each object's
 * class edge first, not in adj[]) against the same graph with each class
 * edge written out as its object's first edge: the same tree and the same
 * order, with 64- and 32-bit offsets and both cursor widths.  Random
 * graphs of 2..400 nodes; some classes have no class object, some objects
 * no class, a few a gap (refs.h class_gap), and a class object may be of a
 * class whose class object is itself (no edge to itself) or another one.
 */
static void test_class_edges(int graphs)
{
	int bad = 0, with_class = 0, calls = 0;
	for (int gi = 0; gi < graphs; gi++) {
		uint32_t n = 2 + (uint32_t)(next_rand() % 399);
		uint32_t ncls = 1 + (uint32_t)(next_rand() % 6);
		uint32_t *class_obj = malloc(ncls * sizeof *class_obj), *obj_cls = malloc(n * sizeof *obj_cls);
		uint8_t *gap = calloc(n / 8 + 1, 1);
		size_t m = (size_t)(next_rand() % (3 * n)), nroots = 1 + (size_t)(next_rand() % 3);
		uint32_t (*edges)[2] = malloc((m + n + 1) * sizeof *edges), (*fields)[2] = malloc((m + 1) * sizeof *fields);
		uint32_t roots[3];
		if (!class_obj || !obj_cls || !gap || !edges || !fields)
			abort();
		for (uint32_t k = 0; k < ncls; k++)
			class_obj[k] = next_rand() % 5 ? (uint32_t)(next_rand() % n) : HP_NONE;
		int gaps = 0;
		for (uint32_t v = 0; v < n; v++) {
			obj_cls[v] = next_rand() % 8 ? (uint32_t)(next_rand() % ncls) : HP_NONE;
			if (next_rand() % 16 == 0) {
				gap[v / 8] |= (uint8_t)(1u << (v % 8));
				gaps = 1;
			}
		}
		for (size_t k = 0; k < m; k++) {
			fields[k][0] = (uint32_t)(next_rand() % n);
			fields[k][1] = next_rand() % 3 ? (fields[k][0] + 1 + (uint32_t)(next_rand() % 3)) % n
						       : (uint32_t)(next_rand() % n);
		}
		for (size_t k = 0; k < nroots; k++)
			roots[k] = (uint32_t)(next_rand() % n);
		struct hp_refs r;
		memset(&r, 0, sizeof r);
		r.n = n;
		r.class_obj = class_obj;
		r.obj_cls = obj_cls;
		r.nclasses = ncls;
		r.class_gap = gaps ? gap : NULL;
		r.class_gap_bytes = gaps ? n / 8 + 1 : 0;
		/* the explicit graph: each object's class edge, then its fields
		 * in list order (graph_build keeps each node's edges so) */
		size_t me = 0;
		for (uint32_t v = 0; v < n; v++) {
			uint32_t c = hp_refs_class_edge(&r, v);
			if (c != HP_NONE) {
				edges[me][0] = v;
				edges[me][1] = c;
				me++;
				r.nclass_edges++;
			}
			for (size_t k = 0; k < m; k++)
				if (fields[k][0] == v) {
					edges[me][0] = v;
					edges[me][1] = fields[k][1];
					me++;
				}
		}
		with_class += r.nclass_edges > 0;
		struct graph ge, gi_;
		graph_build(&ge, n, (const uint32_t (*)[2])edges, me);
		graph_build(&gi_, n, (const uint32_t (*)[2])fields, m);
		r.off = gi_.off;
		r.adj = gi_.adj;
		r.nedges = m;
		struct hp_error err;
		hp_error_clear(&err);
		struct hp_dom want;
		if (hp_dom_compute(&want, n, ge.off, ge.adj, roots, nroots, &err) != HP_OK) {
			CHECK(0, "class edges graph %d: %s", gi, err.msg);
			bad++;
		} else {
			uint32_t *off32 = malloc(((size_t)n + 1) * sizeof *off32);
			if (!off32)
				abort();
			for (uint32_t v = 0; v <= n; v++)
				off32[v] = (uint32_t)gi_.off[v];
			for (int variant = 0; variant < 8; variant++) {
				struct hp_refs rv = r;
				if (variant & 2) {
					rv.off = NULL;
					rv.off32 = off32;
				}
				hp_dom_wide_cursors = variant & 1;
				hp_dom_compact_cursors = (variant & 4) != 0;
				size_t from = hp_dom_parallel_from;
				if (gi % 2)   /* half the graphs on two threads */
					hp_dom_parallel_from = 0;
				struct hp_dom got;
				int rc = hp_dom_compute_refs(&got, &rv, roots, nroots, &err);
				hp_dom_wide_cursors = hp_dom_compact_cursors = 0;
				hp_dom_parallel_from = from;
				calls++;
				int same = rc == HP_OK && got.n == want.n && got.nreach == want.nreach &&
					   !memcmp(got.idom, want.idom, (size_t)n * sizeof *want.idom) &&
					   !memcmp(got.order, want.order, (size_t)want.nreach * sizeof *want.order);
				if (!same) {
					if (!bad)
						printf("class edges graph %d (n %u, variant %d): %s\n", gi, n, variant,
						       rc == HP_OK ? "another tree or order" : err.msg);
					bad++;
				}
				if (rc == HP_OK)
					hp_dom_release(&got);
			}
			free(off32);
			hp_dom_release(&want);
		}
		graph_free(&ge);
		graph_free(&gi_);
		free(class_obj);
		free(obj_cls);
		free(gap);
		free(edges);
		free(fields);
	}
	CHECK(bad == 0 && calls == 8 * graphs, "%d of %d runs with implicit class edges differ from explicit ones", bad,
	      calls);
	CHECK(with_class > graphs / 2, "class edge graphs too easy: %d of %d have class edges", with_class, graphs);
}

/*
 * Bigger random graphs (300 to 1,200 nodes), checked against the definition
 * itself: u strictly dominates v exactly when v, reachable from S, is not
 * reachable once u is taken out.  One breadth-first search per u (explicit
 * queue) against one pass over order per u telling whether u is a proper
 * ancestor of v in the computed tree.  Shapes: uniform targets, and
 * "local" ones (mostly a little ahead, some back) that make deep DFS
 * trees and long compressed paths.
 */
static void test_random_large(int graphs)
{
	int bad = 0;
	for (int gi = 0; gi < graphs; gi++) {
		uint32_t n = 300 + (uint32_t)(next_rand() % 901);
		size_t m = (size_t)n * (1 + next_rand() % 4);
		size_t nroots = 1 + (size_t)(next_rand() % 8);
		int local = gi % 2;
		uint32_t (*edges)[2] = malloc(m * sizeof *edges);
		uint32_t *roots = malloc(nroots * sizeof *roots);
		uint32_t *queue = malloc((size_t)n * sizeof *queue);
		char *seen = malloc(n), *inside = malloc(n), *reach = malloc(n);
		if (!edges || !roots || !queue || !seen || !inside || !reach)
			abort();
		for (size_t k = 0; k < m; k++) {
			uint32_t a = (uint32_t)(next_rand() % n), b;
			uint64_t r = next_rand();
			if (!local || r % 10 == 0)
				b = (uint32_t)((r >> 8) % n);
			else if (r % 10 < 8)
				b = (a + 1 + (uint32_t)((r >> 8) % 5)) % n;
			else
				b = (a + n - 1 - (uint32_t)((r >> 8) % 50)) % n;
			edges[k][0] = a;
			edges[k][1] = b;
		}
		for (size_t k = 0; k < nroots; k++)
			roots[k] = (uint32_t)(next_rand() % n);
		struct graph g;
		struct hp_dom d;
		struct hp_error err;
		hp_error_clear(&err);
		graph_build(&g, n, (const uint32_t (*)[2])edges, m);
		char gname[48];
		snprintf(gname, sizeof gname, "large random graph %d", gi);
		if (compute_variants(&d, gname, &g, roots, nroots, &err) != HP_OK) {
			CHECK(0, "large random graph %d: %s", gi, err.msg);
			continue;
		}
		int this_bad = !order_ok(&d);
		/* x = n: take nothing out (plain reachability) */
		for (uint32_t x = n + 1; x-- > 0 && !this_bad;) {
			size_t qh = 0, qt = 0;
			memset(seen, 0, n);
			for (size_t k = 0; k < nroots; k++)
				if (roots[k] != x && !seen[roots[k]]) {
					seen[roots[k]] = 1;
					queue[qt++] = roots[k];
				}
			while (qh < qt) {
				uint32_t u = queue[qh++];
				for (uint64_t e = g.off[u]; e < g.off[u + 1]; e++) {
					uint32_t t = g.adj[e];
					if (t != x && !seen[t]) {
						seen[t] = 1;
						queue[qt++] = t;
					}
				}
			}
			if (x == n) {
				memcpy(reach, seen, n);
				for (uint32_t v = 0; v < n; v++)
					if ((d.idom[v] == UNR) != !reach[v])
						this_bad = 1;
				continue;
			}
			memset(inside, 0, n);
			for (uint32_t k = 0; k < d.nreach; k++) {
				uint32_t v = d.order[k], p = d.idom[v];
				inside[v] = p != SUP && (p == x || inside[p]);
			}
			for (uint32_t v = 0; v < n; v++)
				if (reach[v] && v != x && inside[v] != !seen[v]) {
					printf("large random graph %d (n %u, m %zu): %u %s %u\n", gi, n, m, x,
					       inside[v] ? "claimed to dominate" : "dominates", v);
					this_bad = 1;
					break;
				}
		}
		bad += this_bad;
		hp_dom_release(&d);
		graph_free(&g);
		free(edges);
		free(roots);
		free(queue);
		free(seen);
		free(inside);
		free(reach);
	}
	CHECK(bad == 0, "%d of %d large random graphs have a wrong dominator tree", bad, graphs);
}

/* Unreached objects with edges past n, before and after reached ones: the
 * passes that read edges ahead must not trip on them. */
static void test_unreached_garbage(void)
{
	enum { N = 300 };
	static uint32_t e[3 * N][2];
	size_t m = 0;
	for (uint32_t v = 0; v < N; v++) {
		if (v % 3 == 1) {               /* unreached, edges to nowhere */
			e[m][0] = v; e[m++][1] = 1000000 + v;
			e[m][0] = v; e[m++][1] = UINT32_MAX;
		} else {                        /* 0 -> 2 -> 3 -> 5 -> 6 -> ... -> 299, twice */
			uint32_t next = v % 3 == 0 ? v + 2 : v + 1;
			if (next < N) {
				e[m][0] = v; e[m++][1] = next;
				e[m][0] = v; e[m++][1] = next;
			}
		}
	}
	struct graph g;
	struct hp_dom d;
	struct hp_error err;
	uint32_t root = 0;
	hp_error_clear(&err);
	graph_build(&g, N, (const uint32_t (*)[2])e, m);
	int rc = hp_dom_compute(&d, N, g.off, g.adj, &root, 1, &err);
	CHECK(rc == HP_OK, "garbage in unreached objects: %s", err.msg);
	if (rc == HP_OK) {
		/* the reached chain 0, 2, 3, 5, 6, ..., 299: each idom is the one
		 * before; the objects 1, 4, 7, ..., 298 are unreached */
		int bad = 0;
		uint32_t prev = SUP;
		for (uint32_t v = 0; v < N; v++) {
			if (v % 3 == 1) {
				if (d.idom[v] != UNR)
					bad++;
				continue;
			}
			if (d.idom[v] != prev)
				bad++;
			prev = v;
		}
		CHECK(bad == 0, "garbage in unreached objects: %d wrong idoms", bad);
		hp_dom_release(&d);
	}
	graph_free(&g);
}

static void test_bad_input(void)
{
	static const uint32_t e[][2] = { {0, 1}, {1, 7} };
	struct graph g;
	struct hp_dom d;
	struct hp_error err;
	hp_error_clear(&err);
	graph_build(&g, 3, e, 2);
	uint32_t root = 5;
	int rc = hp_dom_compute(&d, 3, g.off, g.adj, &root, 1, &err);
	CHECK(rc == HP_EUSAGE && d.idom == NULL && d.order == NULL, "root beyond n: rc %d", rc);
	CHECK(strstr(err.msg, "root 0 is object 5") != NULL, "message: %s", err.msg);
	hp_dom_release(&d);
	root = 0;
	rc = hp_dom_compute(&d, 3, g.off, g.adj, &root, 1, &err);
	CHECK(rc == HP_EUSAGE && d.idom == NULL, "edge beyond n: rc %d", rc);
	CHECK(strstr(err.msg, "edge 1 goes to object 7") != NULL, "message: %s", err.msg);
	/* an unreachable bad edge is never looked at */
	root = 2;
	rc = hp_dom_compute(&d, 3, g.off, g.adj, &root, 1, &err);
	CHECK(rc == HP_OK && d.nreach == 1 && d.idom[2] == SUP && d.idom[0] == UNR, "bad edge unreached: rc %d", rc);
	hp_dom_release(&d);
	rc = hp_dom_compute(&d, UINT32_MAX - 1, g.off, g.adj, NULL, 0, &err);
	CHECK(rc == HP_EUSAGE && d.idom == NULL, "n too large: rc %d", rc);
	graph_free(&g);
}

/*
 * Allocation failure: a child process per N with HPROFAN_FAIL_ALLOC=N
 * (alloc.c reads it at the first allocation of a process, and this process
 * has made none when main() calls this).  The child exits 0 for HP_ENOMEM
 * with an empty result, 1 for a correct HP_OK, 2 otherwise; a leak makes
 * LeakSanitizer change the exit code.  Every N up to the number of
 * allocations must fail cleanly, and the first N beyond it must succeed.
 */
static int fault_child(void)
{
	/* the paper's graph plus an unreachable node 13 */
	static const uint32_t e[][2] = {
		{0, 1}, {0, 2}, {0, 3}, {1, 4}, {2, 1}, {2, 4}, {2, 5}, {3, 6}, {3, 7},
		{4, 12}, {5, 8}, {6, 9}, {7, 9}, {7, 10}, {8, 5}, {8, 11}, {9, 11}, {10, 9},
		{11, 9}, {11, 0}, {12, 8}, {13, 0}
	};
	static const uint32_t idom[] = { SUP, 0, 0, 0, 0, 0, 3, 3, 0, 0, 7, 0, 4, UNR };
	struct graph g;
	struct hp_dom d;
	struct hp_error err;
	uint32_t root = 0;
	hp_error_clear(&err);
	graph_build(&g, 14, e, N_(e));
	int rc = hp_dom_compute(&d, 14, g.off, g.adj, &root, 1, &err);
	int code = 2;
	if (rc == HP_ENOMEM && d.idom == NULL && d.order == NULL && strstr(err.msg, "out of memory"))
		code = 0;
	else if (rc == HP_OK && memcmp(d.idom, idom, sizeof idom) == 0 && d.nreach == 13)
		code = 1;
	hp_dom_release(&d);
	graph_free(&g);
	return code;
}

static void test_alloc_failure(void)
{
	int first_ok = 0, bad = 0;
	for (int k = 1; k <= 30 && !first_ok; k++) {
		fflush(stdout);
		pid_t pid = fork();
		if (pid < 0) {
			CHECK(0, "fork failed");
			return;
		}
		if (pid == 0) {
			char buf[16];
			snprintf(buf, sizeof buf, "%d", k);
			setenv("HPROFAN_FAIL_ALLOC", buf, 1);
			exit(fault_child());
		}
		int st = 0;
		waitpid(pid, &st, 0);
		int code = WIFEXITED(st) ? WEXITSTATUS(st) : 200;
		if (code == 1)
			first_ok = k;
		else if (code != 0) {
			printf("HPROFAN_FAIL_ALLOC=%d: child exit %d (signal %d)\n", k, code,
			       WIFSIGNALED(st) ? WTERMSIG(st) : 0);
			bad++;
		}
	}
	CHECK(bad == 0, "%d allocation failures not handled cleanly", bad);
	CHECK(first_ok > 5, "hp_dom_compute succeeded with allocation %d failing", first_ok);
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		fprintf(stderr, "usage: test_dominators (no arguments)\n");
		return 2;
	}
	test_alloc_failure();   /* first: the children must start with no allocation made */
	test_diamond();
	test_cycle();
	test_self_loop();
	test_shared();
	test_unreachable();
	test_duplicates();
	test_paper();
	test_bad_input();
	test_random(200);
	test_random(800);       /* more, cheap */
	test_random_large(30);
	test_class_edges(300);
	test_unreached_garbage();
	test_chain(10000000, 0, 0);
	test_chain(10000000, 1, 0);
	test_chain(1000000, 1, 1);
	printf("%d passed, %d failed\n", passed, failed);
	fflush(stdout);   /* before LeakSanitizer's exit, if it has one to make */
	return failed ? 1 : 0;
}
