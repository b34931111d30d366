/* leaks.c — leak suspects, zombie objects and leak traces (leaks.h): the
 * run that puts them together, with the one path search that serves every
 * trace.  MAT's suspects are leaks_suspects.c (what they hold
 * leaks_content.c), the zombie rules
 * leaks_zombie.c, the traces and their signature text leaks_trace.c. */
#include "analysis/leaks_state.h"
#include "base/clock.h"
#include "base/alloc.h"
#include "base/cmp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- the path search ---------------------------------------------------- */

static int cmp_pair(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;
	return hp_cmp2_u64(x[0], y[0], x[1], y[1]);
}

static int search_paths(struct lk *L, struct hp_leaks *out, const uint32_t *targets, size_t ntargets)
{
	const struct hp_refs *g = &L->R->refs;
	size_t ns = g->nfollowed + g->nreferents;
	uint32_t (*skip)[2] = hp_reallocarray(NULL, ns ? ns : 1, sizeof *skip);
	if (!skip)
		return hp_error_set(L->err, HP_ENOMEM, "out of memory");
	if (g->nfollowed)
		memcpy(skip, g->followed, g->nfollowed * sizeof *skip);
	if (g->nreferents)
		memcpy(skip + g->nfollowed, g->referents, g->nreferents * sizeof *skip);
	if (ns > 1)
		qsort(skip, ns, sizeof *skip, cmp_pair);
	out->referents_skipped = ns;
	int rc = hp_paths_bfs_skip(&L->P, g, L->R->root_objs, L->R->nroot_objs, (const uint32_t (*)[2])skip, ns,
				   targets, ntargets, L->err);
	hp_free(skip);
	if (rc == HP_OK)
		L->have_paths = 1;
	return rc;
}

/* ---- the whole ------------------------------------------------------------ */

int hp_leaks_find(const hp_heap *h, const struct hp_retained *R, hp_objread *rd,
		  const struct hp_leaks_opts *o, struct hp_leaks *out, struct hp_error *err)
{
	memset(out, 0, sizeof *out);
	struct lk L;
	memset(&L, 0, sizeof L);
	L.h = h;
	L.R = R;
	L.rd = rd;
	L.o = o;
	L.err = err;
	out->heap = R->reachable_bytes;
	double thr = ceil(o->threshold / 100.0 * (double)out->heap);
	out->threshold_bytes = thr < 1 ? 1 : (uint64_t)thr;
	double t0 = hp_now();
	struct cand *c = NULL;
	uint32_t *targets = NULL;
	size_t nc = 0;
	int rc = lk_build_isa(&L);
	if (rc) {
		rc = hp_error_set(err, HP_ENOMEM, "out of memory");
		goto out;
	}
	L.is_zombie = hp_calloc(h->nobj / 8 + 1, 1);
	if (!L.is_zombie) {
		rc = hp_error_set(err, HP_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = lk_find_candidates(&L, out, &c, &nc)) != HP_OK || (rc = lk_select_suspects(&L, out)) != HP_OK ||
	    (rc = lk_select_tls(&L, out)) != HP_OK)
		goto out;
	/* one search serves every trace (12 bytes per object while it lasts),
	 * and stops when it has reached all it must */
	size_t ns = lk_suspect_targets(&L, out, NULL), nt = lk_tl_targets(out, NULL);
	targets = hp_reallocarray(NULL, ns + nt + nc + 1, sizeof *targets);
	if (!targets) {
		rc = hp_error_set(err, HP_ENOMEM, "out of memory");
		goto out;
	}
	lk_suspect_targets(&L, out, targets);
	lk_tl_targets(out, targets + ns);
	ns += nt;
	for (size_t i = 0; i < nc; i++)
		targets[ns + i] = c[i].obj;
	double t = hp_now();
	if (ns + nc && (rc = search_paths(&L, out, targets, ns + nc)) != HP_OK)
		goto out;
	out->t_search = hp_now() - t;
	out->searched = L.have_paths ? L.P.reached : 0;
	if ((rc = lk_finish_suspects(&L, out)) != HP_OK || (rc = lk_finish_tls(&L, out)) != HP_OK)
		goto out;
	rc = lk_find_zombies(&L, out, c, nc);
	out->t_total = hp_now() - t0;
out:
	hp_free_all(c, targets, L.top, L.sfirst, L.isa, L.rule_isa, L.is_zombie);
	lk_zombie_release(&L);
	if (L.have_paths)
		hp_paths_release(&L.P);
	if (rc)
		hp_leaks_release(out);
	return rc;
}

void hp_leaks_release(struct hp_leaks *l)
{
	for (size_t i = 0; i < l->nsuspects; i++) {
		lk_trace_release(&l->suspects[i].trace);
		lk_suspect_content_release(&l->suspects[i]);
	}
	for (size_t i = 0; i < l->nzombies; i++) {
		lk_trace_release(&l->zombies[i].trace);
		hp_free(l->zombies[i].signature_text);
	}
	for (size_t i = 0; i < l->ntls; i++)
		lk_trace_release(&l->tls[i].trace);
	hp_free(l->tls);
	hp_free(l->suspect_tl);
	hp_tlocals_release(&l->tl);
	hp_free_all(l->suspects, l->zombies, l->leaks, l->inspected);
	memset(l, 0, sizeof *l);
}
