/* sites.c — objects by allocation site (sites.h). */
#include "analysis/sites.h"
#include "parser/alloc.h"

#include <stdlib.h>
#include <string.h>

static int by_shallow(const void *a, const void *b)
{
	const struct hp_site *x = a, *y = b;
	if (x->shallow != y->shallow)
		return x->shallow < y->shallow ? 1 : -1;
	return x->serial < y->serial ? -1 : x->serial > y->serial;
}

void hp_sites_release(struct hp_sites *s)
{
	hp_free(s->s);
	memset(s, 0, sizeof *s);
}

int hp_sites_collect(const hp_heap *h, const struct hp_retained *R, hp_objread *rd, struct hp_sites *out,
		     struct hp_error *err)
{
	memset(out, 0, sizeof *out);
	int rc = HP_OK;
	size_t n = h->nobj;
	uint32_t *site = NULL, *of_trace = NULL, *active = NULL, *stk = NULL, *pos = NULL;
	/* a site per trace with frames: of_trace[trace index] */
	of_trace = hp_reallocarray(NULL, h->ntraces ? h->ntraces : 1, sizeof *of_trace);
	site = hp_reallocarray(NULL, n ? n : 1, sizeof *site);
	if (!of_trace || !site)
		goto oom;
	for (size_t t = 0; t < h->ntraces; t++)
		of_trace[t] = HP_NONE;
	size_t cap = 0;
	for (size_t v = 0; v < n; v++) {
		site[v] = HP_NONE;
		if (hp_heap_kind(h, v) == HP_OBJ_CLASS)
			continue;
		uint32_t serial;
		if ((rc = hp_objread_trace_serial(rd, v, &serial, err)) != HP_OK)
			goto out;
		uint32_t t = hp_idmap_get(&h->trace_map, serial);
		uint64_t sh = R->shallow[v];
		if (t == HP_IDMAP_NONE || !h->traces[t].n) {
			out->untraced++;
			out->untraced_shallow += sh;
			continue;
		}
		if (of_trace[t] == HP_NONE) {
			if (out->n == cap) {
				size_t nc = cap ? 2 * cap : 64;
				struct hp_site *ns = hp_reallocarray(out->s, nc, sizeof *ns);
				if (!ns)
					goto oom;
				out->s = ns;
				cap = nc;
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
	/* the dominator tree in preorder, no recursion: a site's object adds its
	 * retained size unless an ancestor of the same site did */
	if (out->n) {
		active = hp_calloc(out->n, sizeof *active);
		stk = hp_reallocarray(NULL, n + 1, sizeof *stk);
		pos = hp_reallocarray(NULL, n + 1, sizeof *pos);
		if (!active || !stk || !pos)
			goto oom;
		size_t sp = 0;
		stk[0] = (uint32_t)n;
		pos[0] = R->child_off[n];
		sp = 1;
		while (sp) {
			uint32_t u = stk[sp - 1];
			if (pos[sp - 1] < R->child_off[u + 1]) {
				uint32_t c = R->children[pos[sp - 1]++];
				if (site[c] != HP_NONE && !active[site[c]]++)
					out->s[site[c]].retained += R->retained[c];
				stk[sp] = c;
				pos[sp] = R->child_off[c];
				sp++;
			} else {
				if (u != n && site[u] != HP_NONE)
					active[site[u]]--;
				sp--;
			}
		}
	}
	if (out->n)
		qsort(out->s, out->n, sizeof *out->s, by_shallow);
	goto out;
oom:
	rc = hp_error_set(err, HP_ENOMEM, "out of memory grouping objects by allocation site");
out:
	hp_free(site);
	hp_free(of_trace);
	hp_free(active);
	hp_free(stk);
	hp_free(pos);
	if (rc)
		hp_sites_release(out);
	return rc;
}
