/*
 * test_fold.c — the dominator-tree fold of analysis/fold.h against a
 * brute-force answer, on trees built here as children lists:
 *
 *   - random trees (random parents, so deep and bushy ones) whose objects
 *     have chains of keys from a random forest of keys (next(k) its
 *     parent): top(v, k) must come exactly for the pairs where no ancestor
 *     of v has k in its chain, top_done(v, k) for the same pairs after v's
 *     whole subtree was entered, and each in the walk's preorder;
 *   - enter() leaving subtrees out: no key of theirs counted, no callback;
 *   - a status from top() stops the walk and is returned;
 *   - a chain of 10 million objects (no recursion: the walk's stack grows
 *     on the heap), each the topmost of its own key of two and the one
 *     below of the other.
 */
#include "analysis/fold.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int passed, failed;
#define CHECK(cond, ...) do { if (cond) passed++; else { failed++; printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } } while (0)

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(uint32_t m)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % m);
}

/* a tree of n objects under the super-root n, by parent (HP_NONE: the
 * super-root), as children lists in object order */
struct tree {
	size_t n;
	uint32_t *parent, *off, *kids;
};

static void tree_make(struct tree *T, size_t n, const uint32_t *parent)
{
	T->n = n;
	T->parent = malloc(n * sizeof *T->parent);
	T->off = calloc(n + 2, sizeof *T->off);
	T->kids = malloc((n ? n : 1) * sizeof *T->kids);
	memcpy(T->parent, parent, n * sizeof *parent);
	for (size_t v = 0; v < n; v++)
		T->off[(parent[v] == HP_NONE ? n : parent[v]) + 1]++;
	for (size_t i = 0; i <= n; i++)
		T->off[i + 1] += T->off[i];
	uint32_t *at = malloc((n + 1) * sizeof *at);
	memcpy(at, T->off, (n + 1) * sizeof *at);
	for (size_t v = 0; v < n; v++)
		T->kids[at[parent[v] == HP_NONE ? n : parent[v]]++] = (uint32_t)v;
	free(at);
}

static void tree_free(struct tree *T)
{
	free(T->parent);
	free(T->off);
	free(T->kids);
}

/* what the callbacks saw */
struct seen {
	const struct tree *T;
	const uint32_t *key, *up;     /* per object its first key; per key the next */
	const uint8_t *skip;          /* enter() says 0 for these (NULL: none) */
	size_t nkeys;
	uint32_t *pre;                /* per object its preorder number, HP_NONE: not entered */
	uint32_t *last;               /* per object the preorder number of the last object of its subtree */
	uint32_t clock;               /* objects entered so far */
	uint8_t *top, *done;          /* per (object, key): the calls */
	int bad_order;                /* top_done before its subtree was entered, a call twice */
	int stop_after;               /* top() returns HP_ENOMEM on call number stop_after (0: never) */
	int tops;
};

static uint32_t cb_key(void *ud, uint32_t v) { return ((struct seen *)ud)->key[v]; }
static uint32_t cb_next(void *ud, uint32_t k) { return ((struct seen *)ud)->up[k]; }

static int cb_enter(void *ud, uint32_t v)
{
	struct seen *S = ud;
	if (S->skip && S->skip[v])
		return 0;
	if (S->pre[v] != HP_NONE)
		S->bad_order = 1;
	S->pre[v] = S->clock++;
	return 1;
}

static int cb_top(void *ud, uint32_t v, uint32_t k)
{
	struct seen *S = ud;
	if (S->pre[v] != S->clock - 1 || S->top[(size_t)v * S->nkeys + k])
		S->bad_order = 1;      /* not the object entered last, or twice */
	S->top[(size_t)v * S->nkeys + k] = 1;
	if (++S->tops == S->stop_after)
		return HP_ENOMEM;
	return HP_OK;
}

static void cb_done(void *ud, uint32_t v, uint32_t k)
{
	struct seen *S = ud;
	/* every object of v's subtree has been entered: the last one's
	 * number is the clock's less one, and none comes after */
	if (!S->top[(size_t)v * S->nkeys + k] || S->done[(size_t)v * S->nkeys + k])
		S->bad_order = 1;
	S->done[(size_t)v * S->nkeys + k] = 1;
	S->last[v] = S->clock - 1;
}

static const struct hp_fold_ops ops = {
	.key = cb_key, .next = cb_next, .enter = cb_enter, .top = cb_top, .top_done = cb_done,
};

/* 1 when object v's chain holds key k */
static int has_key(const struct seen *S, uint32_t v, uint32_t k)
{
	for (uint32_t q = S->key[v]; q != HP_NONE; q = S->up[q])
		if (q == k)
			return 1;
	return 0;
}

/* 1 when v or an ancestor is skipped */
static int skipped(const struct seen *S, uint32_t v)
{
	for (uint32_t a = v; a != HP_NONE; a = S->T->parent[a])
		if (S->skip && S->skip[a])
			return 1;
	return 0;
}

/* the number of objects in v's subtree */
static uint32_t subtree_size(const struct tree *T, uint32_t v)
{
	uint32_t n = 1;
	for (uint32_t i = T->off[v]; i < T->off[v + 1]; i++)
		n += subtree_size(T, T->kids[i]);      /* the test's trees are shallow enough */
	return n;
}

static void random_case(size_t n, size_t nkeys, int deep, int with_skip, const char *name)
{
	uint32_t *parent = malloc((2 * n + nkeys) * sizeof *parent), *key = parent + n, *up = key + n;
	uint8_t *skip = with_skip ? calloc(n, 1) : NULL;
	/* parents: deep trees take one of the last few objects, bushy ones any
	 * object before (object order is not the walk's order: kids are by object) */
	for (size_t v = 0; v < n; v++) {
		if (v == 0 || rnd(10) == 0)
			parent[v] = HP_NONE;
		else
			parent[v] = deep ? (uint32_t)(v - 1 - rnd(v < 3 ? (uint32_t)v : 3)) : rnd((uint32_t)v);
		key[v] = rnd(5) == 0 ? HP_NONE : rnd((uint32_t)nkeys);
		if (skip)
			skip[v] = rnd(8) == 0;
	}
	/* the keys: a forest, each key's next a smaller one or none */
	for (size_t k = 0; k < nkeys; k++)
		up[k] = k == 0 || rnd(3) == 0 ? HP_NONE : rnd((uint32_t)k);
	struct tree T;
	tree_make(&T, n, parent);
	struct seen S = { .T = &T, .key = key, .up = up, .skip = skip, .nkeys = nkeys };
	S.pre = malloc(2 * n * sizeof *S.pre);
	S.last = S.pre + n;
	S.top = calloc(2 * n * nkeys, 1);
	S.done = S.top + n * nkeys;
	for (size_t v = 0; v < n; v++)
		S.pre[v] = S.last[v] = HP_NONE;
	int rc = hp_fold(T.off, T.kids, n, nkeys, &ops, &S);
	CHECK(rc == HP_OK, "%s: status %d", name, rc);
	CHECK(!S.bad_order, "%s: a callback out of order or twice", name);
	int wrong_top = 0, wrong_enter = 0, wrong_span = 0;
	for (uint32_t v = 0; v < n; v++) {
		int in = !skipped(&S, v);
		if (in != (S.pre[v] != HP_NONE))
			wrong_enter++;
		for (uint32_t k = 0; k < nkeys; k++) {
			int want = 0;
			if (in && has_key(&S, v, k)) {   /* and no ancestor has it */
				want = 1;
				for (uint32_t a = parent[v]; a != HP_NONE && want; a = parent[a])
					if (has_key(&S, a, k))
						want = 0;
			}
			size_t i = (size_t)v * nkeys + k;
			if (S.top[i] != want || S.done[i] != want)
				wrong_top++;
		}
		/* a top_done comes when v's whole subtree (less what is
		 * skipped) has been entered: without skips, exactly its size */
		if (!skip && S.last[v] != HP_NONE && S.last[v] - S.pre[v] + 1 != subtree_size(&T, v))
			wrong_span++;
	}
	CHECK(!wrong_enter, "%s: %d objects entered or not against enter()", name, wrong_enter);
	CHECK(!wrong_top, "%s: %d (object, key) pairs with top() or top_done() wrong", name, wrong_top);
	CHECK(!wrong_span, "%s: %d top_done() calls before or after their subtree", name, wrong_span);
	/* a status from top() stops the walk there */
	if (S.tops > 2) {
		int all = S.tops;
		for (size_t v = 0; v < n; v++)
			S.pre[v] = S.last[v] = HP_NONE;
		memset(S.top, 0, n * nkeys);
		memset(S.done, 0, n * nkeys);
		S.clock = 0;
		S.tops = 0;
		S.stop_after = all / 2;
		rc = hp_fold(T.off, T.kids, n, nkeys, &ops, &S);
		CHECK(rc == HP_ENOMEM && S.tops == all / 2, "%s: top()'s status: %d after %d calls, want %d after %d",
		      name, rc, S.tops, HP_ENOMEM, all / 2);
	}
	tree_free(&T);
	free(parent);          /* key and up too */
	free(skip);
	free(S.pre);           /* last too */
	free(S.top);           /* done too */
}

/* the long chain: object v's key is v % 2; per key, sums of v + 1 over the
 * topmost objects (objects 0 and 1), and the deepest top_done last */
struct chain {
	uint64_t sum[2];
	uint32_t ntop, ndone, last_done;
};

static uint32_t chain_key(void *ud, uint32_t v) { (void)ud; return v & 1; }

static int chain_top(void *ud, uint32_t v, uint32_t k)
{
	struct chain *C = ud;
	C->sum[k] += v + 1;
	C->ntop++;
	return HP_OK;
}

static void chain_done(void *ud, uint32_t v, uint32_t k)
{
	struct chain *C = ud;
	C->ndone++;
	C->last_done = v;
}

static const struct hp_fold_ops chain_ops = { .key = chain_key, .top = chain_top, .top_done = chain_done };

#define LONG_CHAIN 10000000u

static void chain_case(void)
{
	size_t n = LONG_CHAIN;
	struct tree T;
	T.n = n;
	T.off = malloc((n + 2) * sizeof *T.off);
	T.kids = malloc(n * sizeof *T.kids);
	T.parent = NULL;
	CHECK(T.off && T.kids, "chain: out of memory");
	if (!T.off || !T.kids)
		return;
	/* object v's one child is v + 1; the super-root's is 0 */
	for (size_t v = 0; v + 1 < n; v++) {
		T.off[v] = (uint32_t)v;
		T.kids[v] = (uint32_t)(v + 1);
	}
	T.off[n - 1] = (uint32_t)(n - 1);
	T.off[n] = (uint32_t)(n - 1);
	T.kids[n - 1] = 0;
	T.off[n + 1] = (uint32_t)n;
	struct chain C;
	memset(&C, 0, sizeof C);
	int rc = hp_fold(T.off, T.kids, n, 2, &chain_ops, &C);
	CHECK(rc == HP_OK, "chain: status %d", rc);
	CHECK(C.ntop == 2 && C.ndone == 2, "chain: %u tops, %u dones, want 2 and 2", C.ntop, C.ndone);
	CHECK(C.sum[0] == 1 && C.sum[1] == 2, "chain: sums %llu %llu, want 1 2",
	      (unsigned long long)C.sum[0], (unsigned long long)C.sum[1]);
	CHECK(C.last_done == 0, "chain: the last subtree done is object %u's, want 0's", C.last_done);
	free(T.off);
	free(T.kids);
}

int main(void)
{
	random_case(1, 1, 0, 0, "one object");
	random_case(200, 7, 0, 0, "bushy");
	random_case(200, 7, 1, 0, "deep");
	random_case(3000, 40, 0, 0, "bushy, many keys");
	random_case(1000, 40, 1, 0, "deep, many keys");
	random_case(3000, 40, 0, 1, "bushy, enter() skips");
	random_case(1000, 40, 1, 1, "deep, enter() skips");
	{
		/* no objects: the super-root alone */
		uint32_t off[2] = { 0, 0 };
		struct seen S;
		memset(&S, 0, sizeof S);
		CHECK(hp_fold(off, off, 0, 0, &ops, &S) == HP_OK && !S.tops && !S.clock, "empty tree");
	}
	chain_case();
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
