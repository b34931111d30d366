/* hprofan roots FILE: GC roots by kind and the roots that retain most. */
#include "cli/command.h"
#include "cli/msg.h"
#include "cli/format.h"
#include "cli/filter.h"
#include "cli/load.h"
#include "cli/output.h"
#include "cli/objtext.h"
#include "cli/table.h"
#include "analysis/rootshare.h"
#include "base/text.h"
#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>

struct roots_opts {
	struct cli_count top;
	const char *heap;
};

static void defaults(void *own)
{
	((struct roots_opts *)own)->top.n = 20;
}

static const struct cli_option own[] = {
	OPT_TOP("the N roots that retain most (default 20; 0 shows all)", OPT_OWN(struct roots_opts, top)),
	OPT_HEAP("Android: only roots in heap NAME (app, zygote, image)\nin the list; the kinds above it cover every heap", OPT_OWN(struct roots_opts, heap)),
	OPT_END
};

/* "at com.x.Y.run (Y.java:12)" for frame number `depth` of a thread's trace */
static const char *frame_label(const hp_heap *h, uint32_t serial, uint32_t depth, char *buf, size_t n)
{
	uint32_t t = hp_idmap_get(&h->thread_map, serial);
	buf[0] = '\0';
	if (t == HP_IDMAP_NONE || depth == UINT32_MAX)
		return NULL;
	uint32_t ti = hp_idmap_get(&h->trace_map, h->threads[t].trace_serial);
	if (ti == HP_IDMAP_NONE || depth >= h->traces[ti].n)
		return NULL;
	uint64_t fid = h->trace_frames[h->traces[ti].first + depth];
	uint32_t fi = hp_idmap_get(&h->frame_map, fid);
	if (fi == HP_IDMAP_NONE)
		return NULL;
	const struct hp_frame *f = &h->frames[fi];
	char m[256] = "?", src[256] = "", cls[512] = "?";
	uint32_t len;
	const char *s;
	char *u;
	if ((s = hp_heap_string(h, f->method_sid, &len)) && (u = hp_mutf8_to_utf8(s, len, NULL))) {
		hp_text_safe(u, m, sizeof m);
		hp_free(u);
	}
	if ((s = hp_heap_string(h, f->source_sid, &len)) && (u = hp_mutf8_to_utf8(s, len, NULL))) {
		hp_text_safe(u, src, sizeof src);
		hp_free(u);
	}
	uint32_t ci = hp_idmap_get(&h->serial_map, f->class_serial);
	if (ci != HP_IDMAP_NONE)
		hp_text_safe(hp_class_name(h, ci), cls, sizeof cls);
	char line[64];
	if (f->line > 0)
		snprintf(line, sizeof line, ":%d", f->line);
	else if (f->line == -3)
		snprintf(line, sizeof line, ", native");
	else if (f->line == -2)
		snprintf(line, sizeof line, ", compiled");
	else
		line[0] = '\0';
	snprintf(buf, n, "at %s.%s (%s%s)", cls, m, src[0] ? src : "unknown source", line);
	return buf;
}

/* the thread's name, safe for the terminal, or NULL */
static const char *thread_name(const hp_heap *h, hp_session *S, uint32_t serial, char *buf, size_t n)
{
	hp_objread *rd = NULL;
	struct hp_error err;
	struct hp_text t;
	if (hp_session_objread(S, &rd, &err) != HP_OK)
		rd = NULL;
	const char *res = NULL;
	if (cli_thread_text(h, rd, serial, &t) && t.utf8) {
		hp_text_safe(t.utf8, buf, n);
		res = buf;
	}
	hp_objread_text_release(&t);
	return res;
}

struct rrow {
	uint32_t v;
	uint64_t retained;
	const struct hp_root_rec *thread;   /* its first root record naming a thread */
};

struct roots_result {
	const hp_heap *h;
	const struct hp_retained *R;
	struct rrow *rows;
	size_t n, shown;
	uint64_t missing;         /* roots naming objects the dump does not hold */
	struct hp_root_shares sh; /* the reachable heap, by the kinds that hold it (the session's, copied) */
};

static int by_ret(const void *a, const void *b)
{
	const struct rrow *x = a, *y = b;
	if (x->retained != y->retained)
		return x->retained < y->retained ? 1 : -1;
	return x->v < y->v ? -1 : x->v > y->v;
}

static void release(void *p)
{
	struct roots_result *r = p;
	if (!r)
		return;
	hp_free(r->rows);
	hp_free(r);
}

/* --roots=unreachable-as-roots: v was made a root (no record names it) */
static int made_root(const struct hp_retained *R, uint32_t v)
{
	return R->nmade_roots && hp_retained_has_super_edge(R, v);
}

static int by_v(const void *a, const void *b)
{
	const struct rrow *x = *(const struct rrow *const *)a, *y = *(const struct rrow *const *)b;
	return x->v < y->v ? -1 : x->v > y->v;
}

/* The first root record naming a thread of each row shown: one pass over
 * the roots, each looked up among the rows by object (not a scan of every
 * root per row: a dump can have many thousands of thread roots). */
static int thread_roots(const hp_heap *h, struct roots_result *t)
{
	if (!t->shown)
		return EXIT_OK;
	struct rrow **by = hp_reallocarray(NULL, t->shown, sizeof *by);
	if (!by) {
		cli_error("out of memory");
		return EXIT_NOMEM;
	}
	for (size_t i = 0; i < t->shown; i++)
		by[i] = &t->rows[i];
	qsort(by, t->shown, sizeof *by, by_v);
	for (size_t r = 0; r < h->nroots; r++) {
		if (!h->roots[r].has_thread)
			continue;
		size_t v = hp_heap_find(h, h->roots[r].object);
		if (v == SIZE_MAX)
			continue;
		size_t lo = 0, hi = t->shown;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (by[mid]->v < v)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < t->shown && by[lo]->v == v && !by[lo]->thread)
			by[lo]->thread = &h->roots[r];
	}
	hp_free(by);
	return EXIT_OK;
}

static int collect(struct cli_ctx *x, hp_session *S, void **res)
{
	const struct roots_opts *o = x->own;
	struct cli_filter *flt = NULL;
	int rc;
	if ((x->c->filter || x->c->exclude) && !(flt = cli_filter_new(x->c->filter, x->c->exclude, &rc)))
		return rc;
	struct roots_result *t = cli_result_new(sizeof *t, res);
	if (!t) {
		cli_filter_free(flt);
		return EXIT_NOMEM;
	}
	if ((rc = cli_refuse_pipe(S, "retained sizes read", "save it to a file (or use --fast for shallow sizes)")) ||
	    (rc = cli_retained(S, &t->h, &t->R)))
		goto out;
	const hp_heap *h = t->h;
	const struct hp_retained *R = t->R;
	int heap = -1;
	if (o->heap && (heap = cli_heap_named(h, hp_session_path(S), o->heap, &rc)) < 0)
		goto out;
	cli_filter_check(flt, h, hp_session_path(S));
	/* root objects that nothing but the super-root dominates, by retained:
	 * among the super-root's children in the tree (all objects without it) */
	size_t n = h->nobj, lo = 0, hi = n;
	const uint32_t *kids = NULL;
	if (R->child_off && R->children) {
		kids = R->children;
		lo = R->child_off[n];
		hi = R->child_off[n + 1];
	}
	t->rows = hp_reallocarray(NULL, hi > lo ? hi - lo : 1, sizeof *t->rows);
	if (!t->rows) {
		cli_error("out of memory");
		rc = EXIT_NOMEM;
		goto out;
	}
	for (size_t i = lo; i < hi; i++) {
		size_t v = kids ? kids[i] : i;
		if (v >= n || R->dom.idom[v] != HP_DOM_SUPER || (!R->root_kinds[v] && !made_root(R, (uint32_t)v)))
			continue;
		if (heap >= 0 && (int)hp_heap_heap(h, v) != heap)
			continue;
		int m = cli_filter_match(flt, hp_class_name(h, h->cls[v]));
		if (m < 0) {
			rc = EXIT_USAGE;
			goto out;
		}
		if (!m)
			continue;
		t->rows[t->n].v = (uint32_t)v;
		t->rows[t->n].retained = R->retained[v];
		t->rows[t->n].thread = NULL;
		t->n++;
	}
	qsort(t->rows, t->n, sizeof *t->rows, by_ret);
	t->shown = o->top.n > 0 && (size_t)o->top.n < t->n ? (size_t)o->top.n : t->n;
	if ((rc = thread_roots(h, t)))
		goto out;
	for (size_t i = 0; i < h->nroots; i++)
		if (hp_heap_find(h, h->roots[i].object) == SIZE_MAX)
			t->missing++;
	struct hp_error err;
	hp_error_clear(&err);
	const struct hp_root_shares *sh;
	int hr = hp_session_root_shares(S, &sh, &err);
	if (hr) {
		cli_error("%s: %s", hp_session_path(S), err.msg);
		rc = cli_exit_code(hr);
		goto out;
	}
	t->sh = *sh;
out:
	cli_filter_free(flt);
	return rc;
}

/* what the roots of kind k alone hold: the root objects that only records
 * of that kind hang off the super-root */
static uint64_t alone(const struct roots_result *t, int k)
{
	for (size_t i = 0; i < t->sh.n; i++)
		if (!t->sh.rows[i].joint && t->sh.rows[i].kinds == (1u << k))
			return t->sh.rows[i].retained;
	return 0;
}

/* "Java frame + thread object" ("made" for roots no record names) */
static const char *kinds_text(unsigned kinds, char *buf, size_t n)
{
	size_t l = 0;
	snprintf(buf, n, "made");
	for (int k = 0; k < HP_ROOT_NKINDS; k++)
		if (kinds & (1u << k)) {
			int w = snprintf(buf + l, n - l, "%s%s", l ? " + " : "", hp_root_kind_name(k));
			if (w < 0 || (size_t)w >= n - l)
				break;
			l += (size_t)w;
		}
	return buf;
}

/* ---- the tables --------------------------------------------------------- */

/* a kind of GC root: its records, the objects they name, what they alone retain */
struct krow {
	const char *name, *key;
	uint64_t roots, objects, retained;
};

#define KR_(f) offsetof(struct krow, f)
static const struct cli_col kind_cols[] = {
	{ .title = "kind", .width = 20, .cell = CELL_TEXT, .flags = COL_LEFT, .off = KR_(name) },
	{ .title = "roots", .width = 10, .cell = CELL_COUNT, .off = KR_(roots), .key = "roots", .at = 2, .gap = " " },
	{ .title = "objects", .width = 10, .cell = CELL_COUNT, .off = KR_(objects), .key = "objects", .at = 3, .gap = " " },
	{ .title = "retained", .width = 10, .cell = CELL_BYTES, .off = KR_(retained), .key = "retained", .at = 4, .gap = " " },
	{ .title = "(what these roots alone retain)", .flags = COL_NOTE },
	{ .cell = CELL_TEXT, .off = KR_(key), .key = "kind", .at = 1 },
};

static struct krow krow_of(const struct roots_result *t, int k)
{
	const struct hp_retained *R = t->R;
	return (struct krow){ .name = hp_root_kind_name(k), .key = hp_root_kind_key(k), .roots = R->kinds[k].roots,
			      .objects = R->kinds[k].objects, .retained = alone(t, k) };
}

/* a root object of the list */
struct lrow {
	uint32_t v;
	const char *cls;
	uint64_t retained, shallow;
	const struct hp_root_rec *thread;
};

struct lctx {
	const struct roots_result *t;
	hp_session *S;
};

/* "Java frame,thread object", or "made root" */
static void kinds_cell(const struct cli_table *tb, const void *row, char *buf, size_t n)
{
	const struct lctx *c = tb->ctx;
	uint32_t v = ((const struct lrow *)row)->v;
	char kinds[128] = "";
	size_t kl = 0;
	for (int k = 0; k < HP_ROOT_NKINDS; k++)
		if (c->t->R->root_kinds[v] & (1u << k)) {
			int w = snprintf(kinds + kl, sizeof kinds - kl, "%s%s", kl ? "," : "", hp_root_kind_name(k));
			if (w > 0 && (size_t)w < sizeof kinds - kl)
				kl += (size_t)w;
		}
	snprintf(buf, n, "%s", kl ? kinds : "made root");
}

static void kinds_json(const struct cli_table *tb, const void *row, cJSON *e, const char *key)
{
	const struct lctx *c = tb->ctx;
	uint32_t v = ((const struct lrow *)row)->v;
	cJSON *ks = cJSON_AddArrayToObject(e, key);
	for (int k = 0; k < HP_ROOT_NKINDS; k++)
		if (c->t->R->root_kinds[v] & (1u << k))
			cJSON_AddItemToArray(ks, cJSON_CreateString(hp_root_kind_key(k)));
}

static void root_put(const struct cli_table *tb, const void *row, FILE *f)
{
	const struct lctx *c = tb->ctx;
	char lab[800];
	fputs(cli_object_label(c->t->h, ((const struct lrow *)row)->v, lab, sizeof lab), f);
}

static void id_json(const struct cli_table *tb, const void *row, cJSON *e, const char *key)
{
	const struct lctx *c = tb->ctx;
	char id[32];
	snprintf(id, sizeof id, "0x%llx", (unsigned long long)hp_heap_id(c->t->h, ((const struct lrow *)row)->v));
	cJSON_AddStringToObject(e, key, id);
}

/* "thread_serial", "thread" and "frame" of the thread whose stack or
 * Thread object the root is */
static void thread_json(const struct cli_table *tb, const void *row, cJSON *e, const char *key)
{
	(void)key;
	const struct lctx *c = tb->ctx;
	const hp_heap *h = c->t->h;
	const struct hp_root_rec *rr = ((const struct lrow *)row)->thread;
	char buf[1024];
	if (!rr)
		return;
	cli_json_u64(e, "thread_serial", rr->thread_serial);
	if (thread_name(h, c->S, rr->thread_serial, buf, sizeof buf))
		cJSON_AddStringToObject(e, "thread", buf);
	if ((rr->kind == HP_ROOT_JAVA_FRAME || rr->kind == HP_ROOT_JNI_LOCAL) &&
	    frame_label(h, rr->thread_serial, rr->frame, buf, sizeof buf))
		cJSON_AddStringToObject(e, "frame", buf);
}

#define LR_(f) offsetof(struct lrow, f)
static const struct cli_col root_cols[] = {
	{ .title = "retained", .width = 10, .cell = CELL_BYTES, .off = LR_(retained), .key = "retained", .at = 4 },
	{ .title = "%heap", .width = 6, .cell = CELL_PCT, .off = LR_(retained) },
	{ .title = "kind", .width = 24, .cell = CELL_FN, .flags = COL_LEFT, .fn = kinds_cell, .key = "kinds", .at = 5, .json = kinds_json },
	{ .title = "root", .cell = CELL_FN, .put = root_put },
	{ .cell = CELL_FN, .key = "id", .at = 1, .json = id_json },
	{ .cell = CELL_TEXT, .off = LR_(cls), .key = "class", .at = 2 },
	{ .cell = CELL_BYTES, .off = LR_(shallow), .key = "shallow", .at = 3 },
	{ .cell = CELL_FN, .key = "thread", .at = 6, .json = thread_json },
};

static struct lrow lrow_of(const struct roots_result *t, size_t i)
{
	uint32_t v = t->rows[i].v;
	return (struct lrow){ .v = v, .cls = hp_class_name(t->h, t->h->cls[v]), .retained = t->R->retained[v],
			      .shallow = hp_retained_shallow(t->R, v), .thread = t->rows[i].thread };
}

static int json(struct cli_ctx *x, hp_session *S, void *res, cJSON **doc)
{
	const struct roots_result *t = res;
	const hp_heap *h = t->h;
	const struct hp_retained *R = t->R;
	cJSON *j = cli_json_begin_heap(x, S, h, R);
	if (((const struct roots_opts *)x->own)->heap)
		cJSON_AddStringToObject(j, "heap", ((const struct roots_opts *)x->own)->heap);
	cJSON *tot = cJSON_AddObjectToObject(j, "total");
	cli_json_u64(tot, "roots", h->nroots);
	cli_json_u64(tot, "missing_objects", t->missing);
	cli_json_u64(tot, "reachable_shallow", R->reachable_bytes);
	cli_json_u64(tot, "joint", R->joint);
	cli_json_u64(tot, "heap_shallow", R->reachable_bytes + R->unreachable_bytes);
	struct cli_table kt;
	CLI_TABLE_INIT(&kt, kind_cols, 0, 0, t);
	cJSON *kinds = cJSON_AddArrayToObject(j, "kinds");
	for (int k = 0; k < HP_ROOT_NKINDS; k++) {
		if (!R->kinds[k].roots)
			continue;
		struct krow w = krow_of(t, k);
		cJSON_AddItemToArray(kinds, cli_table_json(&kt, &w, 0, NULL));
	}
	cJSON *shares = cJSON_AddArrayToObject(j, "shares");
	for (size_t i = 0; i < t->sh.n; i++) {
		const struct hp_root_share *r = &t->sh.rows[i];
		cJSON *e = cJSON_CreateObject();
		cJSON *ks = cJSON_AddArrayToObject(e, "kinds");
		for (int k = 0; k < HP_ROOT_NKINDS; k++)
			if (r->kinds & (1u << k))
				cJSON_AddItemToArray(ks, cJSON_CreateString(hp_root_kind_key(k)));
		cJSON_AddBoolToObject(e, "joint", r->joint);
		cli_json_u64(e, "objects", r->objects);
		cli_json_u64(e, "retained", r->retained);
		cJSON_AddItemToArray(shares, e);
	}
	struct lctx c = { t, S };
	struct cli_table tb;
	CLI_TABLE_INIT(&tb, root_cols, 0, R->reachable_bytes + R->unreachable_bytes, &c);
	cJSON *arr = cJSON_AddArrayToObject(j, "roots");
	for (size_t i = 0; i < t->shown; i++) {
		struct lrow w = lrow_of(t, i);
		cJSON_AddItemToArray(arr, cli_table_json(&tb, &w, 0, NULL));
	}
	*doc = j;
	return EXIT_OK;
}

static int text(struct cli_ctx *x, hp_session *S, void *res, FILE *f)
{
	const struct roots_result *t = res;
	const hp_heap *h = t->h;
	const struct hp_retained *R = t->R;
	uint64_t all = R->reachable_bytes + R->unreachable_bytes;
	char a[64], b[48], c2[32], buf[1024];
	cli_partial_note(f, S);
	struct cli_table kt;
	CLI_TABLE_INIT(&kt, kind_cols, 0, 0, t);
	cli_table_header(&kt, f);
	for (int k = 0; k < HP_ROOT_NKINDS; k++) {
		if (!R->kinds[k].roots)
			continue;
		struct krow w = krow_of(t, k);
		cli_table_row(&kt, f, &w, 0);
	}
	/* the rest of the reachable heap: objects named by roots of several
	 * kinds, and objects several roots reach by separate paths */
	char ks[256];
	for (size_t i = 0; i < t->sh.n; i++) {
		const struct hp_root_share *r = &t->sh.rows[i];
		if (!r->joint && !r->kinds)
			fprintf(f, "made roots (--roots=unreachable-as-roots): %s, %s\n",
				cli_fmt_counted(r->objects, "object", "objects", a, sizeof a), cli_fmt_bytes(r->retained, c2, sizeof c2));
	}
	for (size_t i = 0; i < t->sh.n; i++) {
		const struct hp_root_share *r = &t->sh.rows[i];
		if (r->joint || (r->kinds & (r->kinds - 1)) == 0)
			continue;
		fprintf(f, "named by %s: %s, %s\n", kinds_text(r->kinds, ks, sizeof ks),
			cli_fmt_counted(r->objects, "object", "objects", a, sizeof a), cli_fmt_bytes(r->retained, c2, sizeof c2));
	}
	for (size_t i = 0; i < t->sh.n; i++) {
		const struct hp_root_share *r = &t->sh.rows[i];
		if (!r->joint)
			continue;
		fprintf(f, "held jointly by %s%s roots: %s, %s\n", (r->kinds & (r->kinds - 1)) ? "" : "several ",
			kinds_text(r->kinds, ks, sizeof ks),
			cli_fmt_counted(r->objects, "object", "objects", a, sizeof a), cli_fmt_bytes(r->retained, c2, sizeof c2));
	}
	if (R->roots_policy != HP_ROOTS_ALL)
		fprintf(f, "(--roots=%s: the stack roots of a known thread count in its thread object's row)\n",
			cli_roots_policy_name(R->roots_policy));
	fprintf(f, "reachable: %s in all (the rows above add up to it); unreachable: %s, %s",
		cli_fmt_bytes(t->sh.total, b, sizeof b), cli_fmt_counted(R->unreachable, "object", "objects", a, sizeof a),
		cli_fmt_bytes(R->unreachable_bytes, c2, sizeof c2));
	if (t->missing)
		fprintf(f, "; %s the dump does not hold", cli_fmt_counted(t->missing, "root names an object", "roots name objects", a, sizeof a));
	fprintf(f, " (weak %s, roots %s)\n\n", hp_weak_policy_name(R->weak), cli_roots_policy_name(R->roots_policy));
	const char *heap = ((const struct roots_opts *)x->own)->heap;
	if (heap) {
		char hn[256];
		fprintf(f, "roots in heap %s:\n", hp_text_safe(heap, hn, sizeof hn));
	}
	struct lctx c = { t, S };
	struct cli_table tb;
	CLI_TABLE_INIT(&tb, root_cols, 0, all, &c);
	cli_table_header(&tb, f);
	for (size_t i = 0; i < t->shown; i++) {
		struct lrow w = lrow_of(t, i);
		cli_table_row(&tb, f, &w, i + 1);
		const struct hp_root_rec *rr = w.thread;
		if (!rr)
			continue;
		/* under it, the thread (and the frame) that holds it */
		char nm[512], line[2200];
		size_t o;
		if (thread_name(h, S, rr->thread_serial, nm, sizeof nm))
			o = (size_t)snprintf(line, sizeof line, "  \"%s\"", nm);
		else
			o = (size_t)snprintf(line, sizeof line, "  thread %u", rr->thread_serial);
		if ((rr->kind == HP_ROOT_JAVA_FRAME || rr->kind == HP_ROOT_JNI_LOCAL) &&
		    frame_label(h, rr->thread_serial, rr->frame, buf, sizeof buf))
			snprintf(line + o, sizeof line - o, " %s", buf);
		cli_table_line(&tb, f, NULL, 0, NULL, line);
	}
	if (t->shown < t->n)
		fprintf(f, "... %s more roots\n", cli_fmt_count(t->n - t->shown, a, sizeof a));
	return EXIT_OK;
}

CLI_COMMAND(roots, "hprofan roots FILE", "GC roots and what they retain",
	    CLI_FILES(1, 1), CLI_ANSWERS, CLI_OWN(struct roots_opts, defaults),
	    CLI_TABLES(own, cli_opts_filter, cli_opts_model, cli_opts_policy, cli_opts_load, cli_opts_output, cli_opts_quiet));
