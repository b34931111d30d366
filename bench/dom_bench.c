/*
 * dom_bench.c — times hp_dom_compute() and hp_dom_retained() on synthetic
 * graphs.  Not built by the Makefile; from the repository root:
 *
 *   cc -std=c11 -D_GNU_SOURCE -O2 -Isrc -o /tmp/dom_bench bench/dom_bench.c \
 *      src/analysis/dominators.c src/base/alloc.c src/base/error.c
 *   /tmp/dom_bench [random NODES EDGES ROOTS | chain NODES | tree NODES EDGES ROOTS]...
 *
 * Default: random 20000000 60000000 20000, chain 10000000,
 * tree 20000000 60000000 20000.
 *   random: every edge goes to a uniformly random node (no locality at all).
 *   chain:  0 -> 1 -> ... -> n-1, rooted at 0 (DFS depth n).
 *   tree:   heap-like: each node has a parent a little before it (a tree
 *           in allocation order), the other edges go mostly near the node
 *           and sometimes anywhere.
 * Prints one line per graph: time per node for the dominators and for the
 * retained sizes, and the module's peak memory per node.
 */
#include "analysis/dominators.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>

static uint64_t rng = 0x2545f4914f6cdd1dull;
static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double clock_s(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double now(void) { return clock_s(CLOCK_MONOTONIC); }
static double cpu(void) { return clock_s(CLOCK_PROCESS_CPUTIME_ID); }

static int huge_input;   /* DOM_BENCH_HUGE=1: the caller's graph gets huge pages too */

static void *xmalloc(size_t n)
{
	void *p = malloc(n);
	if (!p) {
		fprintf(stderr, "dom_bench: out of memory\n");
		exit(1);
	}
#ifdef MADV_HUGEPAGE
	if (huge_input && n >= (4u << 20)) {
		uintptr_t h = (uintptr_t)2 << 20, a = ((uintptr_t)p + h - 1) & ~(h - 1);
		uintptr_t b = ((uintptr_t)p + n) & ~(h - 1);
		if (b > a)
			madvise((void *)a, b - a, MADV_HUGEPAGE);
	}
#endif
	return p;
}

static void run(const char *kind, uint32_t n, uint64_t m, uint32_t nroots)
{
	uint64_t *off = xmalloc(((size_t)n + 1) * sizeof *off);
	uint32_t *adj, *roots;
	uint64_t k = 0;
	if (!strcmp(kind, "chain")) {
		m = n - 1;
		nroots = 1;
		adj = xmalloc(m * sizeof *adj);
		for (uint32_t v = 0; v < n; v++) {
			off[v] = k;
			if (v + 1 < n)
				adj[k++] = v + 1;
		}
		roots = xmalloc(sizeof *roots);
		roots[0] = 0;
	} else {
		int tree = !strcmp(kind, "tree");
		/* out-degrees: uniform 0..2d, so about m edges in all */
		adj = xmalloc((m + 2 * (m / n) + 2 * (uint64_t)n + 16) * sizeof *adj);
		uint64_t d = m / n;
		if (tree) {
			/* parent edges first: node v's parent is v - 1 - (0..15) */
			uint32_t *cnt = xmalloc((size_t)n * sizeof *cnt);
			uint32_t *par = xmalloc((size_t)n * sizeof *par);
			memset(cnt, 0, (size_t)n * sizeof *cnt);
			for (uint32_t v = 1; v < n; v++) {
				uint32_t back = 1 + (uint32_t)(next_rand() % 16);
				par[v] = v >= back ? v - back : 0;
				cnt[par[v]]++;
			}
			uint64_t extra = m > n ? m - n : 0, per = extra / n;
			for (uint32_t v = 0; v < n; v++) {
				off[v] = k;
				k += cnt[v];
				k += per ? next_rand() % (2 * per + 1) : 0;
			}
			off[n] = k;
			memset(cnt, 0, (size_t)n * sizeof *cnt);
			for (uint32_t v = 1; v < n; v++)
				adj[off[par[v]] + cnt[par[v]]++] = v;
			for (uint32_t v = 0; v < n; v++)
				for (uint64_t e = off[v] + cnt[v]; e < off[v + 1]; e++) {
					uint64_t r = next_rand();
					if (r % 8)   /* near */
						adj[e] = (uint32_t)((v + (r >> 8) % 4096) % n);
					else
						adj[e] = (uint32_t)((r >> 8) % n);
				}
			free(cnt);
			free(par);
			k = off[n];
		} else {
			for (uint32_t v = 0; v < n; v++) {
				off[v] = k;
				uint64_t deg = next_rand() % (2 * d + 1);
				for (uint64_t j = 0; j < deg; j++)
					adj[k++] = (uint32_t)(next_rand() % n);
			}
		}
		m = k;
		roots = xmalloc((nroots ? nroots : 1) * sizeof *roots);
		roots[0] = 0;
		for (uint32_t r = 1; r < nroots; r++)
			roots[r] = (uint32_t)(next_rand() % n);
	}
	off[n] = k;

	struct hp_dom dom;
	struct hp_error err;
	hp_error_clear(&err);
	double c0 = cpu(), t0 = now();
	int rc = hp_dom_compute(&dom, n, off, adj, roots, nroots, &err);
	double t1 = now(), c1 = cpu();
	if (rc != HP_OK) {
		fprintf(stderr, "dom_bench: %s\n", err.msg);
		exit(1);
	}
	uint64_t *sh = xmalloc((size_t)n * sizeof *sh), *ret = xmalloc((size_t)n * sizeof *ret), total;
	for (uint32_t v = 0; v < n; v++)
		sh[v] = 16 + 8 * (v & 7);
	double t2 = now();
	if (hp_dom_retained(&dom, sh, ret, &total, &err) != HP_OK) {
		fprintf(stderr, "dom_bench: %s\n", err.msg);
		exit(1);
	}
	double t3 = now();
	uint64_t super_children = 0;
	for (uint32_t v = 0; v < n; v++)
		super_children += dom.idom[v] == HP_DOM_SUPER;
	printf("%-6s n=%u m=%llu roots=%u reachable=%u under-S=%llu: dominators %.2f s (cpu %.2f s) = %.1f ns/node "
	       "(%.1f ns/edge), retained %.3f s = %.1f ns/node, peak %.1f MB = %.2f B/node, or %.2f B/node + 4 B/edge\n",
	       kind, n, (unsigned long long)m, nroots, dom.nreach, (unsigned long long)super_children,
	       t1 - t0, c1 - c0, (t1 - t0) * 1e9 / n, (t1 - t0) * 1e9 / (m ? m : 1), t3 - t2, (t3 - t2) * 1e9 / n,
	       dom.peak_bytes / 1e6, (double)dom.peak_bytes / n, ((double)dom.peak_bytes - 4.0 * m) / n);
	fflush(stdout);
	hp_dom_release(&dom);
	free(sh);
	free(ret);
	free(off);
	free(adj);
	free(roots);
}

int main(int argc, char **argv)
{
	const char *h = getenv("DOM_BENCH_HUGE");
	huge_input = h && *h == '1';
	if (argc < 2) {
		run("random", 20000000, 60000000, 20000);
		run("chain", 10000000, 0, 1);
		run("tree", 20000000, 60000000, 20000);
		return 0;
	}
	for (int i = 1; i < argc;) {
		const char *kind = argv[i++];
		if (!strcmp(kind, "chain") && i < argc) {
			run(kind, (uint32_t)strtoul(argv[i], NULL, 10), 0, 1);
			i += 1;
		} else if ((!strcmp(kind, "random") || !strcmp(kind, "tree")) && i + 2 < argc) {
			run(kind, (uint32_t)strtoul(argv[i], NULL, 10), strtoull(argv[i + 1], NULL, 10),
			    (uint32_t)strtoul(argv[i + 2], NULL, 10));
			i += 3;
		} else {
			fprintf(stderr, "usage: dom_bench [random N M ROOTS | chain N | tree N M ROOTS]...\n");
			return 2;
		}
	}
	return 0;
}
