/* sites.c — objects by allocation site (sites.h). */
#include "analysis/sites.h"
#include "analysis/fold.h"
#include "base/alloc.h"
#include "base/cmp.h"

#include <stdlib.h>
#include <string.h>

static int by_shallow(const void *a, const void *b)
{
	const struct hp_site *x = a, *y = b;
	return hp_cmp2_u64(y->shallow, x->shallow, x->serial, y->serial);
}

void hp_sites_release(struct hp_sites *s)
{
	hp_free(s->s);
	hp_free(s->node);
	memset(s, 0, sizeof *s);
}

static const struct hp_site_node *sort_nodes;

static int by_bytes(const void *a, const void *b)
{
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	const struct hp_site_node *x = &sort_nodes[i], *y = &sort_nodes[j];
	return hp_cmp4_u64(x->parent, y->parent, y->shallow, x->shallow, y->retained, x->retained, i, j);
}

/* the stacks of the sites merged into out->node; leaf[site] gets the node
 * its stack ends at.  A child is found by (parent, frame number) in a map. */
static int build_tree(const hp_heap *h, struct hp_sites *out, int tree, uint32_t *leaf)
{
	struct hp_idmap fnum, child;
	hp_idmap_init(&fnum);
	hp_idmap_init(&child);
	size_t cap = 64;
	uint32_t nf = 0;
	int rc = HP_ENOMEM;
	out->node = hp_calloc(cap, sizeof *out->node);
	if (!out->node)
		goto out;
	out->nnodes = 1;
	out->node[0].trace = out->node[0].at = HP_NONE;
	out->node[0].parent = out->node[0].first_child = out->node[0].next_sibling = HP_NONE;
	for (size_t i = 0; i < out->n; i++) {
		const struct hp_trace_rec *tr = &h->traces[out->s[i].trace];
		uint32_t u = 0;
		for (uint32_t k = 0; k < tr->n; k++) {
			uint32_t d = tree == HP_SITES_TOP_DOWN ? tr->n - 1 - k : k;
			uint64_t fid = h->trace_frames[tr->first + d];
			uint32_t f = nf;
			int ins = hp_idmap_insert(&fnum, fid, &f);
			if (ins < 0)
				goto out;
			nf += ins;
			uint32_t c = (uint32_t)out->nnodes;
			ins = hp_idmap_insert(&child, (uint64_t)u << 32 | f, &c);
			if (ins < 0)
				goto out;
			if (ins) {
				if (out->nnodes == cap) {
					struct hp_site_node *nn = hp_grow(out->node, &cap, out->nnodes + 1, 64, sizeof *nn);
					if (!nn)
						goto out;
					out->node = nn;
				}
				struct hp_site_node *e = &out->node[out->nnodes++];
				memset(e, 0, sizeof *e);
				e->frame_id = fid;
				e->trace = out->s[i].trace;
				e->at = d;
				e->parent = u;
				e->first_child = e->next_sibling = HP_NONE;
				e->level = k + 1;
				out->node[u].nchildren++;
			}
			u = c;
		}
		leaf[i] = u;
		const struct hp_site *st = &out->s[i];
		out->node[u].self_objects += st->objects;
		out->node[u].self_shallow += st->shallow;
		for (;; u = out->node[u].parent) {
			out->node[u].sites++;
			out->node[u].objects += st->objects;
			out->node[u].shallow += st->shallow;
			if (!u)
				break;
		}
	}
	rc = HP_OK;
out:
	hp_idmap_release(&fnum);
	hp_idmap_release(&child);
	return rc;
}

/* children in order: one sort of all nodes by (parent, bytes), relinked */
static int order_children(struct hp_sites *out)
{
	size_t nn = out->nnodes;
	uint32_t *ix = hp_reallocarray(NULL, nn, sizeof *ix);
	if (!ix)
		return HP_ENOMEM;
	for (size_t i = 0; i < nn; i++)
		ix[i] = (uint32_t)i;
	sort_nodes = out->node;
	qsort(ix + 1, nn - 1, sizeof *ix, by_bytes);
	for (size_t i = nn; i-- > 1;) {
		struct hp_site_node *e = &out->node[ix[i]];
		e->next_sibling = out->node[e->parent].first_child;
		out->node[e->parent].first_child = ix[i];
	}
	hp_free(ix);
	return HP_OK;
}

/* 1 when every instance's and array's serial can be told without reading
 * its record: *fixed gets one that gives each object its right answer.
 * That is when all of them have one serial, or none of the serials they
 * have names a trace with frames (they are all untraced then, whichever). */
static int serial_known(const hp_heap *h, uint32_t *fixed)
{
	const struct hp_obj_serials *s = &h->obj_serials;
	if (!s->n || s->many || s->n > HP_OBJ_SERIALS_MAX)
		return 0;
	*fixed = s->serial[0];
	if (s->n == 1)
		return 1;
	for (uint32_t i = 0; i < s->n; i++) {
		uint32_t t = hp_idmap_get(&h->trace_map, s->serial[i]);
		if (t != HP_IDMAP_NONE && h->traces[t].n)
			return 0;
	}
	return 1;
}

/* The keys of the fold: site i is key i; with the tree, node u's own
 * stacks (self_retained) are key nsites + u and node u (retained, for the
 * stacks through it) key nsites + nnodes + u.  An object's chain: its site,
 * its stack's last node as self, then that node and each caller up to the
 * root. */
struct site_fold {
	struct hp_sites *out;
	const struct hp_retained *R;
	const uint32_t *site;         /* per object, HP_NONE: none */
	const uint32_t *leaf;         /* per site its stack's last node; NULL: no tree */
	size_t nsites, nnodes;        /* nnodes 0: no tree */
};

static uint32_t site_key(void *ud, uint32_t v)
{
	const struct site_fold *F = ud;
	return F->site[v];
}

static uint32_t site_next(void *ud, uint32_t k)
{
	const struct site_fold *F = ud;
	size_t S = F->nsites, N = F->nnodes;
	if (k < S)
		return F->leaf ? (uint32_t)(S + F->leaf[k]) : HP_NONE;
	if (k < S + N)
		return (uint32_t)(k + N);
	uint32_t p = F->out->node[k - S - N].parent;
	return p == HP_NONE ? HP_NONE : (uint32_t)(S + N + p);
}

static int site_top(void *ud, uint32_t v, uint32_t k)
{
	const struct site_fold *F = ud;
	size_t S = F->nsites, N = F->nnodes;
	uint64_t r = F->R->retained[v];
	if (k < S)
		F->out->s[k].retained += r;
	else if (k < S + N)
		F->out->node[k - S].self_retained += r;
	else
		F->out->node[k - S - N].retained += r;
	return HP_OK;
}

static const struct hp_fold_ops site_ops = { .key = site_key, .next = site_next, .top = site_top };

int hp_sites_collect(const hp_heap *h, const struct hp_retained *R, hp_objread *rd, const uint8_t *keep, int tree,
		     struct hp_sites *out, struct hp_error *err)
{
	memset(out, 0, sizeof *out);
	int rc = HP_OK;
	size_t n = h->nobj;
	uint32_t *site = NULL, *of_trace = NULL, *leaf = NULL;
	/* a site per trace with frames: of_trace[trace index] (HP_NONE - 1: left out) */
	of_trace = hp_reallocarray(NULL, h->ntraces ? h->ntraces : 1, sizeof *of_trace);
	if (!of_trace)
		goto oom;
	for (size_t t = 0; t < h->ntraces; t++)
		of_trace[t] = keep && !keep[t] ? HP_NONE - 1 : HP_NONE;
	size_t cap = 0;
	uint32_t fixed = 0;
	int known = serial_known(h, &fixed);
	uint32_t fixed_t = known ? hp_idmap_get(&h->trace_map, fixed) : HP_IDMAP_NONE;
	for (size_t v = 0; v < n; v++) {
		if (site)
			site[v] = HP_NONE;
		if (hp_heap_kind(h, v) == HP_OBJ_CLASS)
			continue;
		uint32_t serial = fixed, t = fixed_t;
		if (!known) {
			if ((rc = hp_objread_trace_serial(rd, v, &serial, err)) != HP_OK)
				goto out;
			t = hp_idmap_get(&h->trace_map, serial);
		}
		uint64_t sh = hp_retained_shallow(R, v);
		if (t == HP_IDMAP_NONE || !h->traces[t].n) {
			out->untraced++;
			out->untraced_shallow += sh;
			continue;
		}
		if (of_trace[t] == HP_NONE - 1) {
			out->filtered++;
			out->filtered_shallow += sh;
			continue;
		}
		if (!site) {
			/* the first object with a site: from here on a site per object */
			if (!(site = hp_reallocarray(NULL, n, sizeof *site)))
				goto oom;
			for (size_t w = 0; w <= v; w++)
				site[w] = HP_NONE;
		}
		if (of_trace[t] == HP_NONE) {
			if (out->n == cap) {
				struct hp_site *ns = hp_grow(out->s, &cap, out->n + 1, 64, sizeof *ns);
				if (!ns)
					goto oom;
				out->s = ns;
			}
			memset(&out->s[out->n], 0, sizeof out->s[out->n]);
			out->s[out->n].serial = serial;
			out->s[out->n].trace = t;
			of_trace[t] = (uint32_t)out->n++;
		}
		struct hp_site *s = &out->s[of_trace[t]];
		site[v] = of_trace[t];
		s->objects++;
		s->shallow += sh;
		out->traced++;
		out->traced_shallow += sh;
	}
	for (size_t t = 0; t < h->ntraces; t++)
		if (of_trace[t] == HP_NONE - 1 && h->traces[t].n)
			out->filtered_sites++;
	if (tree) {
		if (!(leaf = hp_reallocarray(NULL, out->n ? out->n : 1, sizeof *leaf)))
			goto oom;
		if ((rc = build_tree(h, out, tree, leaf)) != HP_OK)
			goto oom;
	}
	/* the fold of fold.h: a site's object adds its retained size unless an
	 * ancestor of the same site did; the same per tree node, for the nodes
	 * on the object's stack */
	if (out->n) {
		struct site_fold F = { out, R, site, leaf, out->n, tree ? out->nnodes : 0 };
		if (F.nsites + 2 * F.nnodes >= HP_NONE)
			goto oom;
		if ((rc = hp_fold(R->child_off, R->children, n, F.nsites + 2 * F.nnodes, &site_ops, &F)) != HP_OK)
			goto oom;
	}
	if (tree && (rc = order_children(out)) != HP_OK)
		goto oom;
	/* the sites by size; the tree keeps trace indexes, not site numbers */
	if (out->n)
		qsort(out->s, out->n, sizeof *out->s, by_shallow);
	goto out;
oom:
	rc = hp_error_set(err, HP_ENOMEM, "out of memory grouping objects by allocation site");
out:
	hp_free(site);
	hp_free(of_trace);
	hp_free(leaf);
	if (rc)
		hp_sites_release(out);
	return rc;
}
