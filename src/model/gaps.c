/* gaps.c — object sizes measured as the distance between consecutive
 * object ids, the vm size model's evidence (model/build.h). */
#include "model/build.h"
#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>

#define MAX_RESORTS 16           /* class objects interleaved with the others: give up */

static const unsigned bases[4] = { 12, 16, 20, 24 };

static int by_mirror_id(const void *a, const void *b)
{
	const struct hp_mirror *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* the first class object after id */
static void seek(struct hp_gaps *g, uint64_t id)
{
	size_t lo = 0, hi = g->nmirrors;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (g->mirrors[mid].id <= id)
			lo = mid + 1;
		else
			hi = mid;
	}
	g->mcur = lo;
	g->next_mirror = lo < g->nmirrors ? g->mirrors[lo].id : UINT64_MAX;
}

static void gap_add(struct hp_gapstat *s, uint32_t d)
{
	for (int i = 0; i < 3; i++) {
		if (s->n[i] && s->v[i] == d) {
			s->n[i]++;
			if (i > 0 && s->n[i] > s->n[i - 1]) {
				uint32_t tv = s->v[i], tn = s->n[i];
				s->v[i] = s->v[i - 1];
				s->n[i] = s->n[i - 1];
				s->v[i - 1] = tv;
				s->n[i - 1] = tn;
			}
			return;
		}
	}
	for (int i = 0; i < 3; i++) {
		if (!s->n[i]) {
			s->v[i] = d;
			s->n[i] = 1;
			return;
		}
	}
	s->other++;
}

static int grow(void **arr, size_t *cap, size_t need, size_t elsize)
{
	size_t oc = *cap;
	char *n = hp_grow(*arr, cap, need + 1, 256, elsize);
	if (!n)
		return 0;
	memset(n + oc * elsize, 0, (*cap - oc) * elsize);
	*arr = n;
	return 1;
}

static unsigned align_of_gcd(uint64_t gcd)
{
	if (!gcd)
		return 8;
	uint64_t p = gcd & (~gcd + 1);
	return p < 8 ? 8 : p > 256 ? 256 : (unsigned)p;
}

static uint64_t up(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }   /* a: a power of two */

static void arr_gap(struct hp_gaps *g, uint32_t len, unsigned elem, uint64_t d, uint64_t gcd)
{
	if (++g->arr_gaps > HP_GAPS_ARR_ALL && (g->arr_gaps & 7))
		return;
	uint64_t A = align_of_gcd(gcd);
	int k0, k1;
	unsigned e0, e1;
	if (elem) {
		k0 = k1 = elem == 1 ? 0 : elem == 2 ? 1 : elem == 4 ? 2 : 3;
		e0 = e1 = elem;
	} else {
		k0 = 4;
		k1 = 5;
		e0 = 4;
		e1 = 8;
	}
	for (int k = k0, e = (int)e0; ; k = k1, e = (int)e1) {
		g->arr_obs[k]++;
		for (int j = 0; j < 4; j++)
			if (up(bases[j] + (uint64_t)len * (unsigned)e, A) == d)
				g->arr_hit[k][j]++;
		if (k == k1)
			break;
	}
}

int hp_gaps_slow(struct hp_gaps *g, uint64_t id, int kind, uint32_t cls, uint32_t len,
		 unsigned elem, uint64_t gcd)
{
	if (g->off)
		return HP_OK;
	if (g->sorted != g->nmirrors) {
		if (++g->resorts > MAX_RESORTS) {
			g->off = 1;
			return HP_OK;
		}
		qsort(g->mirrors, g->nmirrors, sizeof *g->mirrors, by_mirror_id);
		g->sorted = g->nmirrors;
		seek(g, g->prev_id);
	}
	if (g->prev_kind && id > g->prev_id) {
		uint64_t end = g->next_mirror < id ? g->next_mirror : id;
		uint64_t d = end - g->prev_id;
		if (g->prev_kind == HP_OBJ_INSTANCE + 1) {
			if (d < HP_GAP_MAX) {
				if (!grow((void **)&g->inst, &g->inst_cap, g->prev_cls, sizeof *g->inst))
					return HP_ENOMEM;
				gap_add(&g->inst[g->prev_cls], (uint32_t)d);
				g->inst_gaps++;
			}
		} else {
			arr_gap(g, g->prev_len, g->prev_kind == HP_OBJ_PRIMARRAY + 1 ? g->prev_elem : 0, d, gcd);
		}
		/* the class objects in between: each up to the next */
		while (g->mcur < g->nmirrors && g->mirrors[g->mcur].id < id) {
			uint64_t m = g->mirrors[g->mcur].id;
			uint64_t nx = g->mcur + 1 < g->nmirrors && g->mirrors[g->mcur + 1].id < id
				      ? g->mirrors[g->mcur + 1].id : id;
			uint32_t c = g->mirrors[g->mcur].cls;
			if (nx - m < HP_GAP_MAX) {
				if (!grow((void **)&g->mirror, &g->mirror_cap, c, sizeof *g->mirror))
					return HP_ENOMEM;
				g->mirror[c] = (uint32_t)(nx - m);
				g->mirror_gaps++;
			}
			g->mcur++;
		}
		while (g->mcur < g->nmirrors && g->mirrors[g->mcur].id <= id)
			g->mcur++;
		g->next_mirror = g->mcur < g->nmirrors ? g->mirrors[g->mcur].id : UINT64_MAX;
	} else {
		seek(g, id);
	}
	if (kind == HP_OBJ_INSTANCE && cls >= g->inst_cap &&
	    !grow((void **)&g->inst, &g->inst_cap, cls, sizeof *g->inst))
		return HP_ENOMEM;
	hp_gaps_prev(g, id, kind, cls, len, elem);
	return HP_OK;
}

int hp_gaps_mirror(struct hp_gaps *g, uint64_t id, uint32_t cls)
{
	if (g->nmirrors >= g->mirrors_cap) {
		struct hp_mirror *n = hp_grow(g->mirrors, &g->mirrors_cap, g->nmirrors + 1, 1024, sizeof *n);
		if (!n)
			return HP_ENOMEM;
		g->mirrors = n;
	}
	g->mirrors[g->nmirrors].id = id;
	g->mirrors[g->nmirrors].cls = cls;
	g->nmirrors++;
	return HP_OK;
}

void hp_gaps_release(struct hp_gaps *g)
{
	hp_free(g->inst);
	hp_free(g->mirror);
	hp_free(g->mirrors);
	memset(g, 0, sizeof *g);
}
