/* hprofan merge-paths FILE CLASS|ID...: Eclipse MAT's "merge shortest
 * paths to GC roots" of a set of objects (every instance of each CLASS,
 * each ID): their shortest paths from the GC roots (as path finds them)
 * merged into one tree from the roots down (analysis/mergepaths.h), each
 * node with the objects of the set at or below it. */
#include "cli/command.h"
#include "cli/msg.h"
#include "cli/format.h"
#include "cli/load.h"
#include "cli/output.h"
#include "cli/objtext.h"
#include "cli/table.h"
#include "analysis/mergepaths.h"
#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>

struct mp_opts {
	struct cli_count top, max_nodes;
};

static void defaults(void *own)
{
	((struct mp_opts *)own)->top.n = 10;
	((struct mp_opts *)own)->max_nodes.n = 200;
}

static const struct cli_option own[] = {
	OPT_TOP("at each node the N children that lead to most objects of the set\n(default 10; 0 shows all)",
		OPT_OWN(struct mp_opts, top)),
	OPT_COUNT("--max-nodes", "open no more node after N nodes are shown (default 200; 0 shows\nthe whole tree): the rest is added up in the \"more\" lines",
		  OPT_OWN(struct mp_opts, max_nodes)),
	OPT_END
};

/* a line of the tree: a node, the nodes a long run of single children
 * leaves out, or the children --top leaves out */
enum { L_NODE, L_GAP, L_MORE };

struct mline {
	int kind;
	uint32_t node;        /* L_NODE: the node; L_MORE: the parent (HP_MERGE_TOP: the starts) */
	size_t depth;         /* its indent: the node's depth (L_MORE: its children's) */
	size_t jparent;       /* the JSON index of the node line above it (L_MORE: of the parent), SIZE_MAX
	                         for a start (and the starts' line) */
	size_t from;          /* L_MORE: the first child left out (an index of its list) */
	uint64_t gap;         /* L_NODE: the nodes left out just above it; L_GAP: how many */
	uint64_t gap_set;     /* those of the set */
};

struct mp_result {
	const hp_heap *h;
	const struct hp_retained *R;
	const struct hp_pathsearch *ps;
	hp_objread *rd;
	struct hp_mergepaths m;
	uint64_t only_weakly, unreachable;    /* the set's objects the search did not reach */
	struct mline *lines;
	size_t nlines, nnodes;                /* lines, of them node lines */
	int via_class;                        /* a reference shown is a class edge */
	int truncated;                        /* --max-nodes left nodes out */
};

static void release(void *p)
{
	struct mp_result *r = p;
	if (!r)
		return;
	hp_mergepaths_release(&r->m);
	hp_free(r->lines);
	hp_free(r);
}

/* the kids of node t (HP_MERGE_TOP: the starts) */
static const uint32_t *kids_of(const struct hp_mergepaths *m, uint32_t t, size_t *n)
{
	if (t == HP_MERGE_TOP) {
		*n = m->ntops;
		return m->tops;
	}
	*n = m->first[t + 1] - m->first[t];
	return m->kids + m->first[t];
}

/* ---- the lines: one preorder walk with a stack of its own --------------- */

struct frame {
	int more;             /* 1: the "more" line of node `node`'s children */
	uint32_t node;
	size_t jparent;
	size_t from;          /* more: the first child it adds up; else the node's place among its parent's */
};

struct walk {
	struct mline *lines;
	size_t n, cap;
	struct frame *st;
	size_t nst, stcap;
};

/* item (size bytes) after the n of arr (room for cap), grown as needed:
 * the array (NULL when out of memory; arr is still the caller's then) */
static void *append(void *arr, size_t *n, size_t *cap, const void *item, size_t size)
{
	char *t = *n < *cap ? arr : hp_grow(arr, cap, *n + 1, 256, size);
	if (t)
		memcpy(t + (*n)++ * size, item, size);
	return t;
}

static int put_line(struct walk *w, struct mline l)
{
	struct mline *t = append(w->lines, &w->n, &w->cap, &l, sizeof l);
	return t ? (w->lines = t, 0) : -1;
}

static int push(struct walk *w, struct frame f)
{
	struct frame *t = append(w->st, &w->nst, &w->stcap, &f, sizeof f);
	return t ? (w->st = t, 0) : -1;
}

/* the children of node t (or the starts) onto the stack: those --top
 * shows, the first on top, and under them the line for the rest */
static int push_kids(struct walk *w, const struct hp_mergepaths *m, uint32_t t, size_t top, size_t jparent)
{
	size_t nk;
	const uint32_t *k = kids_of(m, t, &nk);
	size_t shown = top && top < nk ? top : nk;
	if (shown < nk && push(w, (struct frame){ .more = 1, .node = t, .jparent = jparent, .from = shown }))
		return -1;
	for (size_t i = shown; i-- > 0;)
		if (push(w, (struct frame){ .node = k[i], .jparent = jparent, .from = i }))
			return -1;
	return 0;
}

static int lay_out(struct mp_result *r, size_t top, size_t max, size_t head, size_t tail)
{
	const struct hp_mergepaths *m = &r->m;
	const struct hp_paths *P = &r->ps->P;
	struct walk w = { 0 };
	size_t nodes = 0;
	int bad = push_kids(&w, m, HP_MERGE_TOP, top, SIZE_MAX);
	while (!bad && w.nst) {
		struct frame f = w.st[--w.nst];
		if (f.more) {
			size_t d = f.node == HP_MERGE_TOP ? 0 : hp_paths_depth(P, m->obj[f.node]) + 1;
			bad = put_line(&w, (struct mline){ .kind = L_MORE, .node = f.node, .depth = d, .jparent = f.jparent,
							   .from = f.from });
			continue;
		}
		/* past --max-nodes: this node and its parent's others on one line
		 * (they are the frames below it, then the parent's own line) */
		if (max && nodes >= max) {
			uint32_t p = m->parent[f.node];
			bad = put_line(&w, (struct mline){ .kind = L_MORE, .node = p, .depth = hp_paths_depth(P, m->obj[f.node]),
							   .jparent = f.jparent, .from = f.from });
			while (w.nst && (w.st[w.nst - 1].more ? w.st[w.nst - 1].node == p : m->parent[w.st[w.nst - 1].node] == p))
				w.nst--;
			r->truncated = 1;
			continue;
		}
		/* a run of single children: t, then each one's only child, to a
		 * node with none or several; a long one by its ends */
		uint32_t t = f.node;
		size_t len = 1, jp = f.jparent;
		uint32_t end = t;
		while (m->first[end + 1] - m->first[end] == 1) {
			end = m->kids[m->first[end]];
			len++;
		}
		struct hp_path_gap g = hp_path_gap(len, head, tail);
		uint32_t v = t;
		uint64_t gap = 0, gap_set = 0;
		for (size_t i = 0; i < len && !bad; i++) {
			if (g.n && i >= g.at && i < g.at + g.n) {
				gap++;
				gap_set += m->in_set[v];
				if (i + 1 == g.at + g.n)
					bad = put_line(&w, (struct mline){ .kind = L_GAP, .depth = hp_paths_depth(P, m->obj[v]),
									   .gap = gap, .gap_set = gap_set });
			} else {
				bad = put_line(&w, (struct mline){ .kind = L_NODE, .node = v, .depth = hp_paths_depth(P, m->obj[v]),
								   .jparent = jp, .gap = i == g.at + g.n && g.n ? gap : 0,
								   .gap_set = i == g.at + g.n && g.n ? gap_set : 0 });
				jp = nodes++;
			}
			if (i + 1 < len)
				v = m->kids[m->first[v]];
		}
		if (!bad)
			bad = push_kids(&w, m, end, top, jp);
	}
	hp_free(w.st);
	r->lines = w.lines;
	r->nlines = w.n;
	r->nnodes = nodes;
	if (bad) {
		cli_error("out of memory");
		return EXIT_NOMEM;
	}
	return EXIT_OK;
}

/* the set's objects the search did not reach: through a weak referent
 * (the search that follows them reaches them) or not at all */
static int split_unseen(struct mp_result *r, struct cli_ctx *x, hp_session *S, const uint32_t *set, size_t n)
{
	uint64_t unseen = r->m.objects - r->m.reached;
	if (!unseen)
		return EXIT_OK;
	if (x->c->all_weak) {
		r->unreachable = unseen;
		return EXIT_OK;
	}
	const struct hp_pathsearch *all;
	int rc = cli_paths(S, 1, &all);
	if (rc)
		return rc;
	/* each object once: the set is sorted here */
	for (size_t i = 0; i < n; i++) {
		if (i && set[i] == set[i - 1])
			continue;
		if (hp_paths_parent(&r->ps->P, set[i]) != HP_PATH_UNSEEN)
			continue;
		if (hp_paths_parent(&all->P, set[i]) != HP_PATH_UNSEEN)
			r->only_weakly++;
		else
			r->unreachable++;
	}
	return EXIT_OK;
}

static int by_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static int collect(struct cli_ctx *x, hp_session *S, void **res)
{
	const struct mp_opts *o = x->own;
	int rc;
	if ((rc = cli_refuse_pipe(S, "merge-paths reads", "save it to a file")))
		return rc;
	struct mp_result *r = cli_result_new(sizeof *r, res);
	if (!r)
		return EXIT_NOMEM;
	if ((rc = cli_model(S, &r->h)))
		return rc;
	uint32_t *set;
	size_t n;
	if ((rc = cli_object_set(x, S, r->h, &set, &n)))
		return rc;
	if ((rc = cli_retained_tree(S, &r->h, &r->R)) || (rc = cli_paths(S, x->c->all_weak, &r->ps)) ||
	    (rc = cli_objread(S, &r->rd))) {
		hp_free(set);
		return rc;
	}
	struct hp_error err;
	hp_error_clear(&err);
	int hr = hp_mergepaths_build(&r->ps->P, set, n, r->R->heap, &r->m, &err);
	if (hr) {
		hp_free(set);
		return cli_fail(hp_session_path(S), &err, hr);
	}
	qsort(set, n, sizeof *set, by_u32);
	rc = split_unseen(r, x, S, set, n);
	hp_free(set);
	if (rc || (rc = lay_out(r, (size_t)o->top.n, (size_t)o->max_nodes.n, cli_path_head(x), cli_path_tail(x))))
		return rc;
	/* one forward pass over a gzip dump: the records the references are
	 * read from (each node's parent), and the starts' GC roots */
	uint32_t *from = hp_reallocarray(NULL, r->nnodes ? r->nnodes : 1, sizeof *from), *starts = NULL;
	size_t nf = 0, ns = 0;
	if (from)
		starts = hp_reallocarray(NULL, r->nnodes ? r->nnodes : 1, sizeof *starts);
	if (!starts) {
		hp_free(from);
		cli_error("out of memory");
		return EXIT_NOMEM;
	}
	for (size_t i = 0; i < r->nlines; i++) {
		const struct mline *l = &r->lines[i];
		if (l->kind != L_NODE)
			continue;
		uint32_t p = r->m.parent[l->node];
		if (p == HP_MERGE_TOP)
			starts[ns++] = r->m.obj[l->node];
		else
			from[nf++] = r->m.obj[p];
	}
	hr = cli_prefetch_steps(r->h, r->rd, from, nf, starts, ns, &err);
	hp_free_all(from, starts);
	return hr ? cli_fail(hp_session_path(S), &err, hr) : EXIT_OK;
}

/* ---- the table ---------------------------------------------------------- */

struct mrow {
	uint64_t count, ref_shallow, shallow, retained, nodes;
	const struct mp_result *r;
	const struct mline *l;
	struct hp_objref via;
};

/* the reference from node t's parent (its record read) */
static int via_of(const struct mp_result *r, uint32_t t, struct hp_objref *via, struct hp_error *err)
{
	memset(via, 0, sizeof *via);
	uint32_t p = r->m.parent[t];
	if (p == HP_MERGE_TOP)
		return HP_OK;
	return hp_objread_find_ref(r->rd, r->m.obj[p], r->m.obj[t], via, err);
}

#define DEPTH_SHOWN 20

static void object_put(const struct cli_table *tb, const void *row, FILE *f)
{
	(void)tb;
	const struct mrow *w = row;
	const struct mp_result *r = w->r;
	const struct mline *l = w->l;
	size_t d = l->depth < DEPTH_SHOWN ? l->depth : DEPTH_SHOWN;
	char lab[800], via[600], rt[800];
	fprintf(f, "%*s", (int)(2 * d), "");
	if (l->depth > DEPTH_SHOWN)
		fprintf(f, "(depth %zu) ", l->depth);
	uint32_t t = l->node;
	cli_object_label(r->h, r->m.obj[t], lab, sizeof lab);
	const char *mark = r->m.in_set[t] ? "\xe2\x97\x8f " : "";
	if (r->m.parent[t] == HP_MERGE_TOP)
		fprintf(f, "%s%s  [GC root: %s]", mark, lab, cli_root_text(r->h, r->rd, r->m.obj[t], rt, sizeof rt));
	else
		fprintf(f, "%s -> %s%s", cli_via_text(r->h, &w->via, via, sizeof via), mark, lab);
}

#define MR_(f) offsetof(struct mrow, f)
static const struct cli_col mp_cols[] = {
	{ .title = "ref objs", .width = 9, .cell = CELL_COUNT, .flags = COL_MORE, .off = MR_(count), .key = "ref_objects", .at = 1 },
	{ .title = "ref shallow", .width = 11, .cell = CELL_BYTES, .flags = COL_MORE, .off = MR_(ref_shallow), .key = "ref_shallow", .at = 2 },
	{ .title = "shallow", .width = 10, .cell = CELL_BYTES, .flags = COL_MORE, .off = MR_(shallow), .key = "shallow", .at = 3 },
	{ .title = "retained", .width = 10, .cell = CELL_BYTES, .off = MR_(retained), .key = "retained", .at = 4 },
	{ .title = "object (\xe2\x97\x8f of the set)", .cell = CELL_FN, .put = object_put },
};

static struct mrow node_row(const struct mp_result *r, const struct mline *l)
{
	uint32_t t = l->node, v = r->m.obj[t];
	return (struct mrow){ .count = r->m.count[t], .ref_shallow = r->m.ref_shallow[t], .shallow = hp_retained_shallow(r->R, v),
			      .retained = r->R->retained[v], .r = r, .l = l };
}

/* the children a "more" line stands for, added up (their subtrees are
 * disjoint, so the objects of the set add up; their retained sizes need
 * not, and are not shown) */
static struct mrow more_row(const struct mp_result *r, const struct mline *l)
{
	size_t nk;
	const uint32_t *k = kids_of(&r->m, l->node, &nk);
	struct mrow w = { .r = r, .l = l };
	for (size_t i = l->from; i < nk; i++) {
		w.count += r->m.count[k[i]];
		w.ref_shallow += r->m.ref_shallow[k[i]];
		w.shallow += hp_retained_shallow(r->R, r->m.obj[k[i]]);
		w.nodes++;
	}
	return w;
}

static void total_json(cJSON *j, const struct mp_result *r)
{
	cJSON *tot = cJSON_AddObjectToObject(j, "total");
	cli_json_u64(tot, "objects", r->m.objects);
	cli_json_u64(tot, "reached", r->m.reached);
	cli_json_u64(tot, "only_weakly", r->only_weakly);
	cli_json_u64(tot, "unreachable", r->unreachable);
	cli_json_u64(tot, "shallow", r->m.reached_shallow);
	cli_json_u64(tot, "nodes", r->m.n);
	cli_json_u64(tot, "roots", r->m.ntops);
}

static cJSON *more_json(const struct cli_table *tb, const struct mrow *w)
{
	cJSON *mo = cJSON_CreateObject();
	cli_json_u64(mo, "nodes", w->nodes);
	cli_json_u64(mo, "ref_objects", w->count);
	cli_json_u64(mo, "ref_shallow", w->ref_shallow);
	cli_json_u64(mo, "shallow", w->shallow);
	(void)tb;
	return mo;
}

static int json(struct cli_ctx *x, hp_session *S, void *res, cJSON **doc)
{
	const struct mp_result *r = res;
	const struct mp_opts *o = x->own;
	cJSON *j = cli_json_begin_heap(x, S, r->h, r->R);
	*doc = j;
	cJSON_AddStringToObject(j, "weak_referents", x->c->all_weak ? "followed" : "excluded");
	cJSON *of = cJSON_AddArrayToObject(j, "of");
	for (int a = 0; a < x->nargs; a++)
		cJSON_AddItemToArray(of, cJSON_CreateString(x->args[a]));
	total_json(j, r);
	cli_json_u64(j, "max_nodes", (uint64_t)o->max_nodes.n);
	cJSON_AddBoolToObject(j, "truncated", r->truncated);
	struct cli_table tb;
	CLI_TABLE_INIT(&tb, mp_cols, 0, 0, r);
	cJSON *arr = cJSON_AddArrayToObject(j, "nodes");
	cJSON **at = hp_reallocarray(NULL, r->nnodes ? r->nnodes : 1, sizeof *at);
	if (!at) {
		cli_error("out of memory");
		return EXIT_NOMEM;
	}
	size_t k = 0;
	struct hp_error err;
	hp_error_clear(&err);
	for (size_t i = 0; i < r->nlines; i++) {
		const struct mline *l = &r->lines[i];
		if (l->kind == L_GAP)
			continue;
		if (l->kind == L_MORE) {
			struct mrow w = more_row(r, l);
			cJSON *mo = more_json(&tb, &w);
			if (l->node == HP_MERGE_TOP)
				cJSON_AddItemToObject(j, "more", mo);
			else
				cJSON_AddItemToObject(at[l->jparent], "more", mo);
			continue;
		}
		uint32_t t = l->node, v = r->m.obj[t];
		struct hp_objref via;
		int hr = via_of(r, t, &via, &err);
		if (hr) {
			hp_free(at);
			return cli_fail(hp_session_path(S), &err, hr);
		}
		cJSON *e = cJSON_CreateObject();
		if (l->jparent == SIZE_MAX)
			cJSON_AddNullToObject(e, "parent");
		else
			cli_json_u64(e, "parent", l->jparent);
		cli_json_u64(e, "depth", l->depth);
		cJSON *ob = cli_object_json(r->h, v);
		for (cJSON *c = ob->child; c;) {
			cJSON *next = c->next;
			cJSON_AddItemToObject(e, c->string, cJSON_DetachItemViaPointer(ob, c));
			c = next;
		}
		cJSON_Delete(ob);
		cJSON_AddBoolToObject(e, "in_set", r->m.in_set[t]);
		struct mrow w = node_row(r, l);
		cli_table_json(&tb, &w, 0, e);
		cli_json_u64(e, "children", r->m.first[t + 1] - r->m.first[t]);
		if (r->m.parent[t] == HP_MERGE_TOP)
			cli_root_json(e, r->h, r->rd, v);
		else
			cJSON_AddItemToObject(e, "via", cli_via_json(r->h, &via));
		if (l->gap) {
			cli_json_u64(e, "elided", l->gap);
			cli_json_u64(e, "elided_in_set", l->gap_set);
		}
		cJSON_AddItemToArray(arr, e);
		at[k++] = e;
	}
	hp_free(at);
	return EXIT_OK;
}

static int text(struct cli_ctx *x, hp_session *S, void *res, FILE *f)
{
	const struct mp_result *r = res;
	char a[48], b[48], c[48], line[CLI_TEXT_MAX];
	cli_partial_note(f, S);
	fprintf(f, "merged shortest paths from GC roots to %s (weak referents %s)\n",
		cli_fmt_counted(r->m.objects, "object", "objects", a, sizeof a), x->c->all_weak ? "followed" : "excluded");
	if (r->only_weakly)
		fprintf(f, "%s of them only through the referent of a soft, weak, final or phantom reference"
			" (--all-weak follows those)\n", cli_fmt_count(r->only_weakly, a, sizeof a));
	if (r->unreachable)
		fprintf(f, "%s no GC root reaches\n", cli_fmt_count(r->unreachable, a, sizeof a));
	if (!r->m.reached)
		return EXIT_OK;
	fprintf(f, "%s reached (shallow %s), their paths through %s from %s\n",
		cli_fmt_count(r->m.reached, a, sizeof a), cli_fmt_bytes(r->m.reached_shallow, b, sizeof b),
		cli_fmt_counted(r->m.n, "object", "objects", c, sizeof c),
		cli_fmt_counted(r->m.ntops, "GC root", "GC roots", line, sizeof line));
	struct cli_table tb;
	CLI_TABLE_INIT(&tb, mp_cols, 0, 0, r);
	cli_table_header(&tb, f);
	struct hp_error err;
	hp_error_clear(&err);
	int via_class = 0;
	for (size_t i = 0; i < r->nlines; i++) {
		const struct mline *l = &r->lines[i];
		size_t d = l->depth < DEPTH_SHOWN ? l->depth : DEPTH_SHOWN;
		if (l->kind == L_MORE) {
			struct mrow w = more_row(r, l);
			char m[64];
			snprintf(line, sizeof line, "%*s%s", (int)(2 * d), "",
				 cli_more_text(w.nodes, l->node == HP_MERGE_TOP ? "GC root" : "object",
					       l->node == HP_MERGE_TOP ? "GC roots" : "objects", m, sizeof m));
			cli_table_line(&tb, f, &w, COL_MORE, NULL, line);
			continue;
		}
		if (l->kind == L_GAP) {
			struct hp_path_gap g = { .n = l->gap };
			int o = snprintf(line, sizeof line, "%*s", (int)(2 * d), "");
			cli_gap_text(&g, 1, line + o, sizeof line - (size_t)o);
			if (l->gap_set) {
				size_t len = strlen(line);
				snprintf(line + len, sizeof line - len, ", %s of the set among them", cli_fmt_count(l->gap_set, a, sizeof a));
			}
			cli_table_line(&tb, f, NULL, COL_LINE3, NULL, line);
			continue;
		}
		struct mrow w = node_row(r, l);
		int hr = via_of(r, l->node, &w.via, &err);
		if (hr)
			return cli_fail(hp_session_path(S), &err, hr);
		via_class |= w.via.kind == HP_REF_CLASS && r->m.parent[l->node] != HP_MERGE_TOP;
		cli_table_row(&tb, f, &w, 0);
	}
	if (via_class)
		fprintf(f, "%s\n", cli_class_edge_note());
	if (r->truncated)
		fprintf(f, "(%zu of the tree's %s shown, --max-nodes; the others are in the \"more\" lines: --max-nodes 0 shows all)\n",
			r->nnodes, cli_fmt_counted(r->m.n, "node", "nodes", a, sizeof a));
	return EXIT_OK;
}

CLI_COMMAND_NAMED(merge_paths, "merge-paths", "hprofan merge-paths FILE CLASS|ID...",
		  "the shortest paths from GC roots to a set of objects, merged into a tree",
		  CLI_FILES(1, 1), CLI_ANSWERS, CLI_OWN(struct mp_opts, defaults), .args = "CLASS|ID...", .many_args = 1,
		  CLI_TABLES(own, cli_opts_all_weak, cli_opts_full_path, cli_opts_model, cli_opts_policy, cli_opts_load,
			     cli_opts_output, cli_opts_quiet));
