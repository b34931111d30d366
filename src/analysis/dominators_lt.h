/*
 * dominators_lt.h — the body of hp_dom_compute(), included by dominators.c
 * once per combination of edge-offset width (DOM_OFF: the caller's off[])
 * and cursor width (DOM_CUR: the per-node edge cursor and reverse-edge
 * offsets, 4 bytes when every edge position fits in 32 bits, which saves
 * 4 bytes per object at the peak).  DOM_FN names the function.
 *
 * DOM_COMPACT (32-bit cursors, fewer than 2^31 objects): no cursor array at
 * all.  During the DFS a node's edge cursor is its label and its end its
 * lsemi (both free then); its reverse edges are counted, summed and
 * filled in its lsemi, which holds the start of its list until the node
 * is processed (its end is the start of the node after it, processed just
 * before: kept in a local); and where the semidominator went to the cursor
 * array for the last pass, a bucket's node deferred to another's idom gets
 * that one's number with the top bit set (DEFER).  4 bytes per reached
 * object less at the peak.
 *
 * Not a header of its own: no include guard, and it needs dominators.c's
 * statics (grab, drop, shrink, eval, set_end, get_end, PREFETCH).
 */
#ifdef DOM_COMPACT
#define CUR_AT(i) nd[i].label
#define END_OF(c) ((uint64_t)nd[c].lsemi)
#define START(j, a, b) (nd[j].label = (uint32_t)(a), nd[j].lsemi = (uint32_t)(b))
#define REV(p) nd[p].lsemi
#define DEFER (1u << 31)
#else
#define CUR_AT(i) cur[i]
#define END_OF(c) get_end(&nd[c])
#define START(j, a, b) (set_end(&nd[j], (b)), cur[j] = (DOM_CUR)(a))
#define REV(p) cur[p]
#endif
#define DOM_CAT2(a, b) a##b
#define DOM_CAT(a, b) DOM_CAT2(a, b)
#define REV_JOB DOM_CAT(DOM_FN, _revjob)
#define REV_RUN DOM_CAT(DOM_FN, _rev)
#define REV_SPLIT DOM_CAT(DOM_FN, _revsplit)

/* Step 2's two passes over the objects [lo, hi): count (fill 0) or fill
 * the reverse edges; atomic when two threads share the counts. */
struct REV_JOB {
	const uint32_t *pre, *adj;
	const DOM_OFF *off;
	const struct hp_refs *cg;
	const uint8_t *isroot;
	uint32_t n, lo, hi;
	uint64_t nadj;
	struct node *nd;
	DOM_CUR *cur;
	uint32_t *radj;
	int fill, atomic;
};

static void *REV_RUN(void *arg)
{
	const struct REV_JOB *J = arg;
	const uint32_t *pre = J->pre, *adj = J->adj;
	const DOM_OFF *off = J->off;
	const struct hp_refs *cg = J->cg;
	const uint8_t *isroot = J->isroot;
	const uint32_t n = J->n;
	const uint64_t nadj = J->nadj;
	struct node *nd = J->nd;
	DOM_CUR *cur = J->cur;
	uint32_t *radj = J->radj;
	const int atomic = J->atomic;
	(void)nd;
	(void)cur;
#define ROOT(t) (isroot[(t) >> 3] & (1u << ((t) & 7)))
#define TARGET_AT(x) (adj[x] < n ? adj[x] : 0)
#define REV_INC(p) (atomic ? (void)__atomic_fetch_add(&REV(p), 1, __ATOMIC_RELAXED) : (void)REV(p)++)
#define REV_TAKE(p) (atomic ? __atomic_sub_fetch(&REV(p), 1, __ATOMIC_RELAXED) : --REV(p))
	if (!J->fill) {
		for (uint32_t v = J->lo; v < J->hi; v++) {
			uint32_t i = pre[v];
			if (!i)
				continue;
			uint32_t ct = cg ? hp_refs_class_edge(cg, v) : NONE;
			if (ct != NONE && pre[ct] != i && !ROOT(ct))
				REV_INC(pre[ct]);
			for (uint64_t e = off[v], end = off[v + 1]; e < end; e++) {
				if (e + AHEAD < nadj)
					PREFETCH(&pre[TARGET_AT(e + AHEAD)]);
				uint32_t t = adj[e], p = pre[t];
				if (p != i && !ROOT(t))
					REV_INC(p);
			}
		}
		return NULL;
	}
	for (uint32_t v = J->lo; v < J->hi; v++) {
		uint32_t i = pre[v];
		if (!i)
			continue;
		uint32_t ct = cg ? hp_refs_class_edge(cg, v) : NONE;
		if (ct != NONE && pre[ct] != i && !ROOT(ct))
			radj[REV_TAKE(pre[ct])] = i;
		for (uint64_t e = off[v], end = off[v + 1]; e < end; e++) {
			if (e + 2 * AHEAD < nadj)
				PREFETCH(&pre[TARGET_AT(e + 2 * AHEAD)]);
			if (e + AHEAD < nadj)
				PREFETCH_W(&REV(pre[TARGET_AT(e + AHEAD)]));
			if (e + AHEAD / 2 < nadj) {
				uint64_t at = REV(pre[TARGET_AT(e + AHEAD / 2)]);
				PREFETCH_W(&radj[at ? at - 1 : 0]);
			}
			uint32_t t = adj[e], p = pre[t];
			if (p != i && !ROOT(t))
				radj[REV_TAKE(p)] = i;
		}
	}
#undef REV_TAKE
#undef REV_INC
#undef TARGET_AT
#undef ROOT
	return NULL;
}

/* A pass on two threads (halves of the edges) on a big graph when two
 * CPUs are there: the lists' order then varies, the tree and the preorder
 * do not (a node's semidominator is a minimum over its list). */
static void REV_SPLIT(struct REV_JOB *J)
{
	if (J->n >= hp_dom_parallel_from && J->n > 1 && hp_cpus_usable() >= 2) {
		uint32_t lo = 0, hi = J->n;   /* the first object at or past half the edges */
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (J->off[mid] < J->nadj / 2)
				lo = mid + 1;
			else
				hi = mid;
		}
		struct REV_JOB A = *J, B = *J;
		A.hi = B.lo = lo;
		A.atomic = B.atomic = 1;
		pthread_t th;
		if (pthread_create(&th, NULL, REV_RUN, &B) == 0) {
			REV_RUN(&A);
			pthread_join(th, NULL);
			return;
		}
	}
	REV_RUN(J);
}

static int DOM_FN(struct hp_dom *d, uint32_t n, const DOM_OFF *off, const uint32_t *adj,
		  const struct hp_refs *cg, const uint32_t *roots, size_t nroots, struct hp_error *err)
{
	struct mem m = { 0, 0 };
	uint32_t *pre = NULL, *order = NULL, *radj = NULL;
	uint8_t *isroot = NULL;
	struct node *nd = NULL;
	DOM_CUR *cur = NULL;
	uint64_t nrev = 0;
	uint32_t N = 1;
	int rc = HP_OK;

	size_t n1 = (size_t)n + 1;
	pre = grab(&m, n, sizeof *pre, 1);
	nd = grab(&m, n1, sizeof *nd, 0);
#ifndef DOM_COMPACT
	/* cur ends with N + 1 entries (the prefix sums' end), N at most n + 1:
	 * made that big now, so that the shrink below never has to grow it */
	cur = grab(&m, n1 + 1, sizeof *cur, 0);
	if (!cur)
		goto nomem;
#endif
	if (!pre || !nd)
		goto nomem;

	/* 1. DFS from the super-root.  The tree's parent links are the stack;
	 * cur[i] is the next edge of node i to look at, get_end() its last. */
	nd[0].anc = NONE;
	nd[0].label = 0;
	for (size_t k = 0; k < nroots; k++) {
		uint32_t r = roots[k];
		if (r >= n) {
			rc = hp_error_set(err, HP_EUSAGE, "dominators: root %zu is object %lu, beyond the %lu objects",
					  k, (unsigned long)r, (unsigned long)n);
			goto fail;
		}
		if (pre[r])
			continue;
		uint32_t c = N++;
		pre[r] = c;
		nd[c].anc = 0;
		nd[c].label = 0;
		START(c, off[r], off[r + 1]);
		c = class_chain(nd, pre, cur, off, cg, n, r, c, &N);
		while (c) {
			uint64_t e = CUR_AT(c), end = END_OF(c);
			uint32_t t = 0;
			for (; e < end; e++) {
				t = adj[e];
				if (t >= n) {
					rc = hp_error_set(err, HP_EUSAGE,
							  "dominators: edge %llu goes to object %lu, beyond the %lu objects",
							  (unsigned long long)e, (unsigned long)t, (unsigned long)n);
					goto fail;
				}
				PREFETCH(&off[t]);   /* needed next if t is new */
				if (cg)
					PREFETCH(&cg->obj_cls[t]);
				if (!pre[t])
					break;
			}
			if (e < end) {
				CUR_AT(c) = (DOM_CUR)(e + 1);
				uint32_t j = N++;
				pre[t] = j;
				nd[j].anc = c;
				nd[j].label = 0;
				START(j, off[t], off[t + 1]);
				c = class_chain(nd, pre, cur, off, cg, n, t, j, &N);
			} else {
				c = nd[c].anc;
			}
		}
	}
	nd = shrink(&m, nd, n1, N, sizeof *nd);
#ifdef DOM_COMPACT
	for (uint32_t i = 0; i < N; i++) {   /* bucket heads empty, counts 0 */
		nd[i].label = 0;
		nd[i].lsemi = 0;
	}
#else
	cur = shrink(&m, cur, n1 + 1, (size_t)N + 1, sizeof *cur);
#endif

	/* 2. Predecessors in preorder numbers: count into cur[], prefix sums
	 * (cur[p] = end of p's list), fill downwards (cur[p] = start).  Both
	 * passes walk the objects in their own order and skip unreached ones;
	 * self-loops are left out, and so are the edges into a root: its
	 * semidominator is the super-root whatever else refers to it (in a
	 * heap with class edges, most instances' edge to their class).
	 * Targets of unreached objects were never checked, so a prefetch
	 * clamps them. */
#ifndef DOM_COMPACT
	memset(cur, 0, ((size_t)N + 1) * sizeof *cur);
#endif
	isroot = grab(&m, n / 8 + 1, 1, 1);
	if (!isroot)
		goto nomem;
	for (size_t k = 0; k < nroots; k++)
		isroot[roots[k] >> 3] |= (uint8_t)(1u << (roots[k] & 7));
	uint64_t nadj = n ? off[n] : 0;
	struct REV_JOB J = { pre, adj, off, cg, isroot, n, 0, n, nadj, nd, cur, NULL, 0, 0 };
	REV_SPLIT(&J);
	for (size_t k = 0; k < nroots; k++)
		REV(pre[roots[k]])++;
	for (uint32_t p = 1; p < N; p++)
		REV(p) += REV(p - 1);
	nrev = REV(N - 1);
#ifndef DOM_COMPACT
	cur[N] = (DOM_CUR)nrev;
#endif
	if (nrev > SIZE_MAX / sizeof *radj)
		goto nomem;
	radj = grab(&m, (size_t)nrev, sizeof *radj, 0);
	if (!radj)
		goto nomem;
	J.radj = radj;
	J.fill = 1;
	REV_SPLIT(&J);
	drop(&m, isroot, n / 8 + 1, 1);
	isroot = NULL;
	for (size_t k = 0; k < nroots; k++)
		radj[--REV(pre[roots[k]])] = 0;

	/* 3. Semidominators in reverse preorder; each node waits in the bucket
	 * of its semidominator, which is emptied when that one is processed.
	 * Node i's semidominator goes to cur[i + 1], which nothing reads once
	 * i's reverse edges are done (SEMI(i)). */
#define SEMI(i) cur[(i) + 1]
#ifdef DOM_COMPACT
	uint64_t hi = nrev;   /* the end of node i's list: the start of i + 1's */
#endif
	for (uint32_t i = N; i-- > 0;) {
		uint32_t s = 0;
		if (i > 0) {
			s = i;
#ifdef DOM_COMPACT
			uint64_t lo = nd[i].lsemi, end = hi;
			hi = lo;
#else
			uint64_t lo = cur[i], end = cur[i + 1];
#endif
			for (uint64_t e = lo; e < end; e++) {
				uint32_t v = radj[e];
				/* eval() walks up from an edge's source: prefetch the
				 * first node of the path AHEAD edges before it is needed
				 * (the edges ahead are below: i goes down), the second
				 * 3/4 AHEAD before (the first is in cache by then), the
				 * third 1/2, the fourth 1/4.  Paths may be compressed in
				 * between; a prefetch is only a hint. */
				if (e >= AHEAD) {
#define UP(x) (nd[x].anc < N ? nd[x].anc : 0)
					uint32_t a = radj[e - AHEAD];
					PREFETCH(&nd[a]);
					a = radj[e - AHEAD * 3 / 4];
					PREFETCH(&nd[UP(a)]);
					a = radj[e - AHEAD / 2];
					a = UP(a);
					PREFETCH(&nd[UP(a)]);
					a = radj[e - AHEAD / 4];
					a = UP(a);
					a = UP(a);
					PREFETCH(&nd[UP(a)]);
#undef UP
				}
				if (v < i) {
					if (v < s)
						s = v;
				} else {
					uint32_t su = (uint32_t)eval(nd, v, i + 1);
					if (su < s)
						s = su;
				}
			}
			nd[i].idm = nd[s].label;
			nd[s].label = i;
		}
		/* the nodes whose semidominator is i: semi(v) = i */
		uint32_t v = nd[i].label;
		while (v) {
			uint32_t next = nd[v].idm;
			PREFETCH(&nd[next]);
			uint64_t u = eval(nd, v, i + 1);
#ifdef DOM_COMPACT
			nd[v].idm = (uint32_t)u < i ? (uint32_t)(u >> 32) | DEFER : i;
#else
			nd[v].idm = (uint32_t)u < i ? (uint32_t)(u >> 32) : i;
#endif
			v = next;
		}
		nd[i].label = i;
		nd[i].lsemi = s;
#ifndef DOM_COMPACT
		SEMI(i) = (DOM_CUR)s;
#endif
	}
	drop(&m, radj, (size_t)nrev, sizeof *radj);
	radj = NULL;

	/* 4. Relative dominators to idoms in preorder; order[] from pre[]; the
	 * idoms to object numbers (in nd[i].anc, free now); pre[] becomes idom[]. */
#ifdef DOM_COMPACT
	for (uint32_t i = 1; i < N; i++)   /* (an idom before i: final already) */
		if (nd[i].idm & DEFER)
			nd[i].idm = nd[nd[i].idm & ~DEFER].idm;
#else
	for (uint32_t i = 1; i < N; i++)
		if (nd[i].idm != SEMI(i))
			nd[i].idm = nd[nd[i].idm].idm;
	drop(&m, cur, (size_t)N + 1, sizeof *cur);
	cur = NULL;
#endif
#undef SEMI
	order = grab(&m, (size_t)N - 1, sizeof *order, 0);
	if (!order)
		goto nomem;
	for (uint32_t v = 0; v < n; v++)
		if (pre[v])
			order[pre[v] - 1] = v;
	for (uint32_t i = 1; i < N; i++) {
		uint32_t r = nd[i].idm;
		nd[i].anc = r ? order[r - 1] : HP_DOM_SUPER;
	}
	for (uint32_t v = 0; v < n; v++) {
		uint32_t p = pre[v];
		pre[v] = p ? nd[p].anc : HP_DOM_UNREACHABLE;
	}
	drop(&m, nd, N, sizeof *nd);

	d->n = n;
	d->idom = pre;
	d->order = order;
	d->nreach = N - 1;
	d->peak_bytes = m.peak;
	return HP_OK;

nomem:
	rc = hp_error_set(err, HP_ENOMEM, "dominators: out of memory (%lu objects, %llu bytes held)",
			  (unsigned long)n, (unsigned long long)m.cur);
fail:
	hp_free(pre);
	hp_free(order);
	hp_free(isroot);
	hp_free(nd);
	hp_free(cur);
	hp_free(radj);
	return rc;
}
#undef CUR_AT
#undef END_OF
#undef START
#undef REV
#ifdef DEFER
#undef DEFER
#endif
#undef REV_SPLIT
#undef REV_RUN
#undef REV_JOB
#undef DOM_CAT
#undef DOM_CAT2
