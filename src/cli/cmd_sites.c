/* hprofan sites FILE: objects grouped by allocation site (the stack trace
 * serial of their records), with the site's frames, or as folded stacks
 * for flame graphs. */
#include "cli/command.h"
#include "cli/msg.h"
#include "cli/format.h"
#include "cli/filter.h"
#include "cli/load.h"
#include "cli/output.h"
#include "cli/objtext.h"
#include "cli/table.h"
#include "analysis/sites.h"
#include "analysis/threads.h"
#include "base/text.h"
#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>

struct sites_opts {
	struct cli_count top;
	struct cli_count depth;
	int collapsed, bottom_up, flat;
};

static void defaults(void *own)
{
	struct sites_opts *o = own;
	o->top.n = 20;
}

static int set_depth(const struct cli_option *o, const char *as, const char *val, void *dst)
{
	(void)o;
	struct cli_count *c = dst;
	if (cli_parse_int(val, 0, 100000, &c->n))
		return cli_usage_error(NULL, "%s needs a number of levels (0 for all, up to 100000)", as);
	c->given = 1;
	return EXIT_OK;
}

#define OWN(field) OPT_OWN(struct sites_opts, field)
static const struct cli_option own[] = {
	OPT_TOP("the N largest children of each tree node, the rest\nsummed in one line (default 20; 0 shows all); with\nthe list of --flat the N largest sites", OWN(top)),
	OPT_DEPTH(set_depth, "tree levels shown, the rest summed per node (default all);\nwith --flat the frames of each site (default 5); 0: all",
		  "needs a number of levels", OWN(depth)),
	OPT_BOOL("--bottom-up", "the tree from the allocating frame down to its callers\n(default: top-down, from the outermost frame)", OWN(bottom_up)),
	OPT_BOOL("--flat", "a list of the sites, largest first, each with its frames,\ninstead of the tree", OWN(flat)),
	{ .name = "--collapsed", .alias = "--folded", .kind = OPT_FLAG, OWN(collapsed),
	  .help = "folded stacks for flame graphs (flamegraph.pl, inferno,\nspeedscope): a line per stack, frames ';' between, then its\nshallow bytes (--folded is the same)" },
	OPT_FILTER("only sites whose stack has a frame matching RE\n(Class.method(File.java:LINE); PCRE2)"),
	OPT_EXCLUDE("leave out sites whose stack has a frame matching RE"),
	OPT_END
};
#undef OWN

static const struct cli_rule rules[] = {
	RULE_EXCLUDES("--collapsed", "--json", "they write two different formats (give one)"),
	RULE_EXCLUDES("--collapsed", "--flat", "they write two different formats (give one)"),
	RULE_EXCLUDES("--collapsed", "--top", "it writes every stack (--depth and --filter apply)"),
	RULE_EXCLUDES("--bottom-up", "--flat", "it orders the tree"),
	RULE_END
};

struct sites_result {
	const hp_heap *h;
	const struct hp_retained *R;
	struct hp_sites S;
	int no_dump;              /* the file holds only the agent's records */
};

static void release(void *p)
{
	struct sites_result *r = p;
	if (!r)
		return;
	hp_sites_release(&r->S);
	hp_free(r);
}

/* "com.acme.Foo.bar(Foo.java:42)": a frame as --filter sees it */
static const char *frame_words(const hp_heap *h, uint32_t trace, uint32_t d, char *buf, size_t n)
{
	const struct hp_frame *f = hp_trace_frame(h, trace, d);
	if (!f) {
		snprintf(buf, n, "? (frame 0x%llx: no STACK FRAME record)",
			 (unsigned long long)h->trace_frames[h->traces[trace].first + d]);
		return buf;
	}
	char t[2048];
	cli_frame_text(h, f, t, sizeof t);
	snprintf(buf, n, "%s", t + 3);           /* without "at " */
	return buf;
}

/* keep[trace index]: the traces with a frame --filter matches and none --exclude does */
static int filter_traces(struct cli_ctx *x, const hp_heap *h, uint8_t **keep)
{
	int rc = EXIT_OK;
	*keep = NULL;
	if (!x->c->filter && !x->c->exclude)
		return EXIT_OK;
	struct cli_filter *flt = cli_filter_new(x->c->filter, x->c->exclude, &rc);
	if (!flt)
		return rc;
	char **texts = NULL;
	size_t cap = 0;
	if (!(*keep = hp_calloc(h->ntraces ? h->ntraces : 1, 1)))
		goto oom;
	for (size_t t = 0; t < h->ntraces; t++) {
		uint32_t nf = h->traces[t].n;
		if (!nf)
			continue;
		if (nf > cap) {
			char **nt = hp_reallocarray(texts, nf, sizeof *nt);
			if (!nt)
				goto oom;
			for (size_t i = cap; i < nf; i++)
				nt[i] = NULL;
			texts = nt;
			cap = nf;
		}
		for (uint32_t d = 0; d < nf; d++) {
			if (!texts[d] && !(texts[d] = hp_malloc(2048)))
				goto oom;
			frame_words(h, (uint32_t)t, d, texts[d], 2048);
		}
		int m = cli_filter_match_any(flt, (const char *const *)texts, nf);
		if (m < 0) {
			rc = EXIT_USAGE;
			goto out;
		}
		(*keep)[t] = (uint8_t)m;
	}
	goto out;
oom:
	cli_error("out of memory");
	rc = EXIT_NOMEM;
out:
	for (size_t i = 0; i < cap; i++)
		hp_free(texts[i]);
	hp_free(texts);
	cli_filter_free(flt);
	return rc;
}

static int collect(struct cli_ctx *x, hp_session *S, void **res)
{
	const struct sites_opts *o = x->own;
	struct sites_result *r = cli_result_new(sizeof *r, res);
	if (!r)
		return EXIT_NOMEM;
	int rc;
	hp_objread *rd = NULL;
	if ((rc = cli_refuse_pipe(S, "retained sizes and allocation sites read", "save it to a file")) ||
	    (rc = cli_retained(S, &r->h, &r->R)) || (rc = cli_objread(S, &rd)))
		return rc;
	r->no_dump = hp_session_load_info(S)->stats.ndumps == 0;
	uint8_t *keep = NULL;
	if ((rc = filter_traces(x, r->h, &keep)))
		return rc;
	struct hp_error err;
	hp_error_clear(&err);
	int tree = o->flat ? HP_SITES_NO_TREE : o->bottom_up ? HP_SITES_BOTTOM_UP : HP_SITES_TOP_DOWN;
	rc = hp_sites_collect(r->h, r->R, rd, keep, tree, &r->S, &err);
	hp_free(keep);
	if (rc != HP_OK) {
		cli_error("%s: %s", hp_session_path(S), err.msg);
		return cli_exit_code(rc);
	}
	if ((x->c->filter || x->c->exclude) && !r->S.n && r->S.filtered_sites) {
		char p[300];
		cli_warn("%s: no allocation site's stack passes %s", hp_session_path(S),
			 cli_filter_said(x->c->filter, x->c->exclude, p, sizeof p));
	}
	return EXIT_OK;
}

static size_t shown(const struct sites_opts *o, size_t n)
{
	return o->top.n > 0 && (size_t)o->top.n < n ? (size_t)o->top.n : n;
}

/* the tree's levels shown (0 all), the frames per site of --flat */
static uint32_t depth_of(const struct sites_opts *o)
{
	if (o->flat)
		return o->depth.given ? (uint32_t)o->depth.n : 5;
	return o->depth.given ? (uint32_t)o->depth.n : 0;
}

static const char *no_sites =
	"no allocation sites: no object's stack trace serial names a trace with frames (HotSpot and Android\n"
	"dumps have none; the JDK 8 hprof agent writes them: java -agentlib:hprof=heap=dump,depth=8)\n";

static cJSON *json_frame(const hp_heap *h, const struct hp_frame *f)
{
	cJSON *fe = cJSON_CreateObject();
	cli_frame_json(fe, h, f);
	return fe;
}

/* ---- the hprof agent's records ---------------------------------------- */


/* the class an ALLOC SITES entry names: by its LOAD CLASS serial, else
 * the basic type of an array ("char[]"), else "" */
static const char *site_class(const hp_heap *h, const struct hp_alloc_site *e, char *buf, size_t n)
{
	uint32_t k = hp_idmap_get(&h->serial_map, e->class_serial);
	if (k != HP_IDMAP_NONE)
		return hp_class_name(h, k);
	const char *t = e->is_array ? hp_type_name(e->is_array) : NULL;
	if (t && e->is_array != 2) {
		snprintf(buf, n, "%s[]", t);
		return buf;
	}
	buf[0] = 0;
	return buf;
}

static double bits_float(uint32_t b)
{
	float f;
	memcpy(&f, &b, sizeof f);
	return f;
}

/* ---- the hprof agent's tables ------------------------------------------- */

/* a site of an ALLOC SITES record: its class, or "class serial N" */
static void site_class_cell(const struct cli_table *tb, const void *row, char *buf, size_t n)
{
	const struct hp_alloc_site *st = row;
	char raw[64], nm[600];
	hp_text_safe(site_class(tb->ctx, st, raw, sizeof raw), nm, sizeof nm);
	if (nm[0])
		snprintf(buf, n, "%s", nm);
	else
		snprintf(buf, n, "class serial %u", st->class_serial);
}

static void site_json(const struct cli_table *tb, const void *row, cJSON *e, const char *key)
{
	const struct hp_alloc_site *st = row;
	char buf[600];
	if (!strcmp(key, "is_array")) {
		cli_json_u64(e, key, st->is_array);
		return;
	}
	const char *cn = site_class(tb->ctx, st, buf, sizeof buf);
	if (cn[0])
		cJSON_AddStringToObject(e, key, cn);
}

#define AS_(f) offsetof(struct hp_alloc_site, f)
static const struct cli_col alloc_cols[] = {
	{ .title = "rank", .width = 6, .cell = CELL_RANK },
	{ .title = "live bytes", .width = 12, .cell = CELL_COUNT, .flags = COL_U32, .off = AS_(live_bytes), .key = "live_bytes", .at = 5, .gap = " " },
	{ .title = "live objs", .width = 10, .cell = CELL_COUNT, .flags = COL_U32, .off = AS_(live_instances), .key = "live_instances", .at = 6, .gap = " " },
	{ .title = "alloc bytes", .width = 12, .cell = CELL_COUNT, .flags = COL_U32, .off = AS_(bytes_allocated), .key = "bytes_allocated", .at = 7, .gap = " " },
	{ .title = "alloc objs", .width = 10, .cell = CELL_COUNT, .flags = COL_U32, .off = AS_(instances_allocated), .key = "instances_allocated", .at = 8, .gap = " " },
	{ .title = "trace", .width = 10, .cell = CELL_INT, .flags = COL_U32, .off = AS_(trace_serial), .key = "trace_serial", .at = 4, .gap = " " },
	{ .title = "class", .cell = CELL_FN, .fn = site_class_cell, .key = "class", .at = 3, .json = site_json },
	{ .cell = CELL_FN, .key = "is_array", .at = 1, .json = site_json },
	{ .cell = CELL_INT, .flags = COL_U32, .off = AS_(class_serial), .key = "class_serial", .at = 2 },
};

/* a CPU SAMPLES record's table: the heap, the record */
struct cpu_ctx {
	const hp_heap *h;
	const struct hp_cpu_samples_rec *rec;
};

static void share_cell(const struct cli_table *tb, const void *row, char *buf, size_t n)
{
	const struct cpu_ctx *c = tb->ctx;
	const struct hp_cpu_sample *cs = row;
	if (c->rec->total)
		snprintf(buf, n, "%.2f%%", 100.0 * cs->samples / c->rec->total);
	else
		snprintf(buf, n, "-");
}

static const char *top_frame(const hp_heap *h, uint32_t serial, char *buf, size_t n);

static void top_frame_cell(const struct cli_table *tb, const void *row, char *buf, size_t n)
{
	const struct cpu_ctx *c = tb->ctx;
	char nm[600];
	snprintf(buf, n, "%s", top_frame(c->h, ((const struct hp_cpu_sample *)row)->trace_serial, nm, sizeof nm));
}

#define CS_(f) offsetof(struct hp_cpu_sample, f)
static const struct cli_col cpu_cols[] = {
	{ .title = "rank", .width = 6, .cell = CELL_RANK },
	{ .title = "samples", .width = 10, .cell = CELL_COUNT, .flags = COL_U32, .off = CS_(samples), .key = "samples", .at = 1, .gap = " " },
	{ .title = "share", .width = 7, .cell = CELL_FN, .fn = share_cell, .gap = " " },
	{ .title = "trace", .width = 10, .cell = CELL_INT, .flags = COL_U32, .off = CS_(trace_serial), .key = "trace_serial", .at = 2, .gap = " " },
	{ .title = "top frame", .cell = CELL_FN, .fn = top_frame_cell },
};

static void agent_json(const struct sites_opts *o, const hp_heap *h, cJSON *j)
{
	struct cli_table at;
	CLI_TABLE_INIT(&at, alloc_cols, 0, 0, h);
	cJSON *as = cJSON_AddArrayToObject(j, "agent_alloc_sites");
	for (size_t r = 0; r < h->nalloc_recs; r++) {
		const struct hp_alloc_sites_rec *rec = &h->alloc_recs[r];
		cJSON *e = cJSON_CreateObject();
		cli_json_u64(e, "flags", rec->hd.flags);
		cli_json_u64(e, "cutoff_bits", rec->hd.cutoff_bits);
		double cf = bits_float(rec->hd.cutoff_bits);
		if (cf == cf && cf - cf == 0)
			cJSON_AddNumberToObject(e, "cutoff", cf);
		cli_json_u64(e, "live_bytes", rec->hd.live_bytes);
		cli_json_u64(e, "live_instances", rec->hd.live_instances);
		cli_json_u64(e, "bytes_allocated", rec->hd.bytes_allocated);
		cli_json_u64(e, "instances_allocated", rec->hd.instances_allocated);
		cli_json_u64(e, "sites_declared", rec->hd.nsites);
		cJSON *arr = cJSON_AddArrayToObject(e, "sites");
		size_t ns = shown(o, rec->k);
		for (size_t i = 0; i < ns; i++)
			cJSON_AddItemToArray(arr, cli_table_json(&at, &h->alloc_sites[rec->first + i], i + 1, NULL));
		cJSON_AddItemToArray(as, e);
	}
	cJSON *hs = cJSON_AddArrayToObject(j, "agent_heap_summaries");
	for (size_t r = 0; r < h->nsummaries; r++) {
		cJSON *e = cJSON_CreateObject();
		cli_json_u64(e, "live_bytes", h->summaries[r].live_bytes);
		cli_json_u64(e, "live_instances", h->summaries[r].live_instances);
		cli_json_u64(e, "bytes_allocated", h->summaries[r].bytes_allocated);
		cli_json_u64(e, "instances_allocated", h->summaries[r].instances_allocated);
		cJSON_AddItemToArray(hs, e);
	}
	cJSON *cs = cJSON_AddArrayToObject(j, "agent_cpu_samples");
	for (size_t r = 0; r < h->ncpu_recs; r++) {
		const struct hp_cpu_samples_rec *rec = &h->cpu_recs[r];
		cJSON *e = cJSON_CreateObject();
		cli_json_u64(e, "total", rec->total);
		cli_json_u64(e, "traces_declared", rec->n);
		cJSON *arr = cJSON_AddArrayToObject(e, "traces");
		struct cpu_ctx cc = { h, rec };
		struct cli_table ct;
		CLI_TABLE_INIT(&ct, cpu_cols, 0, 0, &cc);
		size_t ns = shown(o, rec->k);
		for (size_t i = 0; i < ns; i++)
			cJSON_AddItemToArray(arr, cli_table_json(&ct, &h->cpu_samples[rec->first + i], i + 1, NULL));
		cJSON_AddItemToArray(cs, e);
	}
}

/* the top frame of the trace with this serial, "" when none */
static const char *top_frame(const hp_heap *h, uint32_t serial, char *buf, size_t n)
{
	uint32_t t = hp_idmap_get(&h->trace_map, serial);
	const struct hp_frame *f = t != HP_IDMAP_NONE ? hp_trace_frame(h, t, 0) : NULL;
	if (!f) {
		buf[0] = 0;
		return buf;
	}
	return cli_frame_text(h, f, buf, n);
}

/* An agent record's table: the first k rows (k entries read of the
 * declared; size: bytes a row), as many as --top shows, then lines for
 * what --top and the read left out ("... 3 more sites") */
static void record_table(const struct cli_table *t, FILE *f, const struct sites_opts *o, const void *rows,
			 size_t size, size_t k, size_t declared, const char *what)
{
	char a[64], b[64];
	cli_table_header(t, f);
	size_t ns = shown(o, k);
	for (size_t i = 0; i < ns; i++)
		cli_table_row(t, f, (const char *)rows + i * size, i + 1);
	if (ns < k)
		fprintf(f, "... %s more %s\n", cli_fmt_count(k - ns, a, sizeof a), what);
	if (k < declared)
		fprintf(f, "(the record declares %s %s; only the first %s were read)\n",
			cli_fmt_count(declared, a, sizeof a), what, cli_fmt_count(k, b, sizeof b));
}

static void agent_text(const struct sites_opts *o, const hp_heap *h, FILE *f)
{
	char a[64], b[64], c[64], d[64], nm[600];
	struct cli_table at;
	CLI_TABLE_INIT(&at, alloc_cols, 0, 0, h);
	for (size_t r = 0; r < h->nalloc_recs; r++) {
		const struct hp_alloc_sites_rec *rec = &h->alloc_recs[r];
		const struct hp_alloc_sites_hdr *hd = &rec->hd;
		double cf = bits_float(hd->cutoff_bits);
		fprintf(f, "\nALLOC SITES record %zu of %zu (the hprof agent's): flags 0x%04x (%s, sorted by %s%s), cutoff ",
			r + 1, h->nalloc_recs, hd->flags, hd->flags & 1 ? "incremental" : "complete",
			hd->flags & 2 ? "allocation" : "live bytes", hd->flags & 4 ? ", GC forced" : "");
		if (cf == cf && cf - cf == 0 && (cf == 0 || (cf > 1e-9 && cf < 1e9)))
			fprintf(f, "%g\n", cf);
		else
			fprintf(f, "bits 0x%08x\n", hd->cutoff_bits);
		fprintf(f, "live %s bytes in %s instances; allocated %s bytes in %s instances; %s\n",
			cli_fmt_count(hd->live_bytes, a, sizeof a), cli_fmt_count(hd->live_instances, b, sizeof b),
			cli_fmt_count(hd->bytes_allocated, c, sizeof c), cli_fmt_count(hd->instances_allocated, d, sizeof d),
			cli_fmt_counted(hd->nsites, "site", "sites", nm, sizeof nm));
		record_table(&at, f, o, &h->alloc_sites[rec->first], sizeof *h->alloc_sites, rec->k, hd->nsites, "sites");
	}
	for (size_t r = 0; r < h->nsummaries; r++) {
		const struct hp_heap_summary *hs = &h->summaries[r];
		fprintf(f, "\nHEAP SUMMARY record %zu of %zu (the hprof agent's): live %s bytes in %s instances; "
			"allocated %s bytes in %s instances\n", r + 1, h->nsummaries,
			cli_fmt_count(hs->live_bytes, a, sizeof a), cli_fmt_count(hs->live_instances, b, sizeof b),
			cli_fmt_count(hs->bytes_allocated, c, sizeof c), cli_fmt_count(hs->instances_allocated, d, sizeof d));
	}
	for (size_t r = 0; r < h->ncpu_recs; r++) {
		const struct hp_cpu_samples_rec *rec = &h->cpu_recs[r];
		fprintf(f, "\nCPU SAMPLES record %zu of %zu (the hprof agent's): %s samples over %s\n", r + 1, h->ncpu_recs,
			cli_fmt_count(rec->total, a, sizeof a), cli_fmt_counted(rec->n, "trace", "traces", b, sizeof b));
		struct cpu_ctx cc = { h, rec };
		struct cli_table ct;
		CLI_TABLE_INIT(&ct, cpu_cols, 0, 0, &cc);
		record_table(&ct, f, o, &h->cpu_samples[rec->first], sizeof *h->cpu_samples, rec->k, rec->n, "traces");
	}
}

/* The tree in preorder, without recursion: node u is shown when its level
 * is within the depth and it is among the first --top children of its
 * parent; visit() gets each shown node, cut() each node with children not
 * shown (how many, their objects and shallow bytes). */
struct walk {
	const struct hp_sites *S;
	uint32_t depth;            /* 0 all */
	size_t top;                /* 0 all */
};

struct cut { uint32_t n; uint64_t objects, shallow; int by_depth; };

/* the children of u past the shown ones */
static struct cut cut_of(const struct walk *w, uint32_t u)
{
	struct cut c = { 0, 0, 0, 0 };
	const struct hp_site_node *e = &w->S->node[u];
	size_t k = 0;
	c.by_depth = w->depth && e->level >= w->depth;
	for (uint32_t ch = e->first_child; ch != HP_NONE; ch = w->S->node[ch].next_sibling, k++) {
		if (!c.by_depth && (!w->top || k < w->top))
			continue;
		c.n++;
		c.objects += w->S->node[ch].objects;
		c.shallow += w->S->node[ch].shallow;
	}
	return c;
}

/* next node in preorder among the shown ones, after u (HP_NONE: done) */
static uint32_t next_shown(const struct walk *w, uint32_t u, size_t *rank)
{
	const struct hp_site_node *N = w->S->node;
	/* down: the first child, when within the depth */
	if (N[u].first_child != HP_NONE && !(w->depth && N[u].level >= w->depth)) {
		rank[N[u].level + 1] = 0;
		return N[u].first_child;
	}
	/* else the next sibling shown of u or of an ancestor */
	while (u != 0) {
		uint32_t s = N[u].next_sibling;
		if (s != HP_NONE && (!w->top || ++rank[N[u].level] < w->top))
			return s;
		u = N[u].parent;
	}
	return HP_NONE;
}

/* ---- the tree's and the list's tables ------------------------------------ */

/* for the tree's rows: the heap, the sites, node numbers as JSON lists them */
struct tree_ctx {
	const hp_heap *h;
	const struct hp_sites *S;
	const uint32_t *index;
};

/* the node's frame, indented by its level */
static void node_put(const struct cli_table *tb, const void *row, FILE *f)
{
	const struct tree_ctx *c = tb->ctx;
	const struct hp_site_node *e = row;
	char a[64], t[2048];
	uint32_t lv = e->level;
	fprintf(f, "%*s", (int)(2 * (lv > 30 ? 30 : lv)), "");
	if (lv > 30)
		fprintf(f, "[level %u] ", e->level);
	if (!e->level) {
		fprintf(f, "all sites (%s)", cli_fmt_count(e->sites, a, sizeof a));
		return;
	}
	const struct hp_frame *fr = hp_trace_frame(c->h, e->trace, e->at);
	if (fr) {
		cli_frame_text(c->h, fr, t, sizeof t);
		fputs(t + 3, f);
	} else {
		fprintf(f, "? (frame 0x%llx: no STACK FRAME record)", (unsigned long long)e->frame_id);
	}
}

/* "parent": its parent's place in the list; "frame" (not the root's) */
static void node_json(const struct cli_table *tb, const void *row, cJSON *je, const char *key)
{
	const struct tree_ctx *c = tb->ctx;
	const struct hp_site_node *e = row;
	if (e == c->S->node)
		return;
	if (!strcmp(key, "parent"))
		cli_json_u64(je, key, c->index[e->parent]);
	else
		cJSON_AddItemToObject(je, key, json_frame(c->h, hp_trace_frame(c->h, e->trace, e->at)));
}

/* when the columns are shown */
enum { S_TOP_DOWN = 1, S_BOTTOM_UP = 2 };

#define SN_(f) offsetof(struct hp_site_node, f)
static const struct cli_col node_cols[] = {
	{ .title = "objects", .width = 10, .cell = CELL_COUNT, .off = SN_(objects), .key = "objects", .at = 5 },
	{ .title = "shallow", .width = 10, .cell = CELL_BYTES, .off = SN_(shallow), .key = "shallow", .at = 6, .gap = " " },
	{ .title = "retained", .width = 10, .cell = CELL_BYTES, .off = SN_(retained), .key = "retained", .at = 7, .gap = " " },
	{ .title = "call tree top-down: outermost frame, then what it calls", .cell = CELL_FN, .when = S_TOP_DOWN, .put = node_put },
	{ .title = "call tree bottom-up: allocating frame, then its callers", .cell = CELL_FN, .when = S_BOTTOM_UP, .put = node_put },
	{ .cell = CELL_INT, .flags = COL_U32, .off = SN_(level), .key = "level", .at = 1 },
	{ .cell = CELL_FN, .key = "parent", .at = 2, .json = node_json },
	{ .cell = CELL_FN, .key = "frame", .at = 3, .json = node_json },
	{ .cell = CELL_INT, .flags = COL_U32, .off = SN_(sites), .key = "sites", .at = 4 },
	{ .cell = CELL_COUNT, .off = SN_(self_objects), .key = "self_objects", .at = 8 },
	{ .cell = CELL_BYTES, .off = SN_(self_shallow), .key = "self_shallow", .at = 9 },
	{ .cell = CELL_BYTES, .off = SN_(self_retained), .key = "self_retained", .at = 10 },
	{ .cell = CELL_INT, .flags = COL_U32, .off = SN_(nchildren), .key = "children", .at = 11 },
};

static void node_table(const struct sites_opts *o, const struct tree_ctx *c, struct cli_table *tb)
{
	CLI_TABLE_INIT(tb, node_cols, o->bottom_up ? S_BOTTOM_UP : S_TOP_DOWN, 0, c);
}

/* a line under node e's row: indented past its level */
static void under(const struct cli_table *tb, const struct hp_site_node *e, const char *text, FILE *f)
{
	char line[512];
	uint32_t lv = e->level + 1;
	snprintf(line, sizeof line, "%*s%s", (int)(2 * (lv > 31 ? 31 : lv)), "", text);
	cli_table_line(tb, f, NULL, 0, NULL, line);
}

/* "... N more (objects, bytes)": the children of u not shown */
static void more_line(const struct cli_table *tb, const struct walk *w, uint32_t u, FILE *f)
{
	char a[64], b[64], c[64], line[300];
	struct cut ct = cut_of(w, u);
	snprintf(line, sizeof line, "... %s more (%s, %s)%s", cli_fmt_count(ct.n, a, sizeof a),
		 cli_fmt_counted(ct.objects, "object", "objects", b, sizeof b), cli_fmt_bytes(ct.shallow, c, sizeof c),
		 ct.by_depth ? ", below --depth" : "");
	under(tb, &w->S->node[u], line, f);
}

static void site_cell(const struct cli_table *tb, const void *row, char *buf, size_t n)
{
	(void)tb;
	snprintf(buf, n, "trace %u", ((const struct hp_site *)row)->serial);
}

#define ST_(f) offsetof(struct hp_site, f)
static const struct cli_col site_cols[] = {
	{ .title = "objects", .width = 10, .cell = CELL_COUNT, .off = ST_(objects), .key = "objects", .at = 2 },
	{ .title = "shallow", .width = 10, .cell = CELL_BYTES, .off = ST_(shallow), .key = "shallow", .at = 3, .gap = " " },
	{ .title = "retained", .width = 10, .cell = CELL_BYTES, .off = ST_(retained), .key = "retained", .at = 4, .gap = " " },
	{ .title = "site (trace serial, frames top first)", .cell = CELL_FN, .fn = site_cell },
	{ .cell = CELL_INT, .flags = COL_U32, .off = ST_(serial), .key = "trace_serial", .at = 1 },
};

static int json(struct cli_ctx *x, hp_session *S, void *res, cJSON **doc)
{
	const struct sites_opts *o = x->own;
	const struct sites_result *r = res;
	const hp_heap *h = r->h;
	cJSON *j = cli_json_begin_heap(x, S, h, r->R);
	cJSON_AddStringToObject(j, "view", o->flat ? "flat" : o->bottom_up ? "bottom-up" : "top-down");
	if (x->c->filter)
		cJSON_AddStringToObject(j, "filter", x->c->filter);
	if (x->c->exclude)
		cJSON_AddStringToObject(j, "exclude", x->c->exclude);
	cJSON *tot = cJSON_AddObjectToObject(j, "total");
	cli_json_u64(tot, "sites", r->S.n);
	cli_json_u64(tot, "traced_objects", r->S.traced);
	cli_json_u64(tot, "traced_shallow", r->S.traced_shallow);
	cli_json_u64(tot, "untraced_objects", r->S.untraced);
	cli_json_u64(tot, "untraced_shallow", r->S.untraced_shallow);
	cli_json_u64(tot, "filtered_sites", r->S.filtered_sites);
	cli_json_u64(tot, "filtered_objects", r->S.filtered);
	cli_json_u64(tot, "filtered_shallow", r->S.filtered_shallow);
	cJSON_AddBoolToObject(j, "heap_dump", !r->no_dump);
	agent_json(o, h, j);
	uint32_t depth = depth_of(o);
	if (o->flat) {
		struct cli_table stb;
		CLI_TABLE_INIT(&stb, site_cols, 0, 0, h);
		cJSON *arr = cJSON_AddArrayToObject(j, "sites");
		size_t ns = shown(o, r->S.n);
		for (size_t i = 0; i < ns; i++) {
			const struct hp_site *s = &r->S.s[i];
			const struct hp_trace_rec *tr = &h->traces[s->trace];
			cJSON *e = cli_table_json(&stb, s, i + 1, NULL);
			cli_json_u64(e, "depth", tr->n);
			cJSON *fr = cJSON_AddArrayToObject(e, "frames");
			uint32_t nf = depth > 0 && depth < tr->n ? depth : tr->n;
			for (uint32_t d = 0; d < nf; d++)
				cJSON_AddItemToArray(fr, json_frame(h, hp_trace_frame(h, s->trace, d)));
			cJSON_AddItemToArray(arr, e);
		}
	} else {
		cJSON *arr = cJSON_AddArrayToObject(j, "tree");
		struct walk w = { &r->S, depth, (size_t)(o->top.n > 0 ? o->top.n : 0) };
		size_t *rank = hp_calloc((size_t)r->S.nnodes + 2, sizeof *rank);
		uint32_t *index = hp_reallocarray(NULL, r->S.nnodes ? r->S.nnodes : 1, sizeof *index);
		if (!rank || !index) {
			hp_free(rank);
			hp_free(index);
			cJSON_Delete(j);
			cli_error("out of memory");
			return EXIT_NOMEM;
		}
		struct tree_ctx tc = { h, &r->S, index };
		struct cli_table ntb;
		node_table(o, &tc, &ntb);
		uint32_t k = 0;
		for (uint32_t u = r->S.nnodes ? 0 : HP_NONE; u != HP_NONE; u = next_shown(&w, u, rank)) {
			const struct hp_site_node *e = &r->S.node[u];
			index[u] = k++;
			cJSON *je = cli_table_json(&ntb, e, 0, NULL);
			struct cut c = cut_of(&w, u);
			if (c.n) {
				cJSON *m = cJSON_AddObjectToObject(je, "more");
				cli_json_u64(m, "nodes", c.n);
				cli_json_u64(m, "objects", c.objects);
				cli_json_u64(m, "shallow", c.shallow);
				cJSON_AddStringToObject(m, "cut_by", c.by_depth ? "depth" : "top");
			}
			cJSON_AddItemToArray(arr, je);
		}
		hp_free(rank);
		hp_free(index);
	}
	*doc = j;
	return EXIT_OK;
}

/* "com.acme.Foo.bar" for the folded format, without ';' or spaces */
static void folded_frame(const hp_heap *h, const struct hp_frame *f, FILE *out)
{
	char m[256], cls[512], buf[800];
	uint32_t len;
	const char *s = f ? hp_heap_string(h, f->method_sid, &len) : NULL;
	char *u = s ? hp_mutf8_to_utf8(s, len, NULL) : NULL;
	hp_text_safe(u ? u : "?", m, sizeof m);
	hp_free(u);
	hp_text_safe(f && cli_frame_class(h, f)[0] ? cli_frame_class(h, f) : "?", cls, sizeof cls);
	snprintf(buf, sizeof buf, "%s.%s", cls, m);
	for (char *p = buf; *p; p++)
		if (*p == ';' || *p == ' ')
			*p = '_';
	fputs(buf, out);
}

/* a line per node whose own stacks end there (or, at the depth cut, per
 * node with anything below): its path from the root, its shallow bytes */
static int collapsed(const hp_heap *h, const struct hp_sites *S, uint32_t depth, FILE *f)
{
	struct walk w = { S, depth, 0 };
	uint32_t *path = hp_reallocarray(NULL, S->nnodes + 1, sizeof *path);
	size_t *rank = hp_calloc(S->nnodes + 2, sizeof *rank);
	if (!path || !rank) {
		hp_free(path);
		hp_free(rank);
		return -1;
	}
	for (uint32_t u = next_shown(&w, 0, rank); u != HP_NONE;) {
		const struct hp_site_node *e = &S->node[u];
		int at_cut = depth && e->level >= depth;
		uint64_t bytes = at_cut ? e->shallow : e->self_shallow;
		if (bytes || (at_cut ? e->objects : e->self_objects)) {
			uint32_t n = 0;
			for (uint32_t v = u; v; v = S->node[v].parent)
				path[n++] = v;
			while (n--) {
				folded_frame(h, hp_trace_frame(h, S->node[path[n]].trace, S->node[path[n]].at), f);
				fputc(n ? ';' : ' ', f);
			}
			fprintf(f, "%llu\n", (unsigned long long)bytes);
		}
		u = next_shown(&w, u, rank);
	}
	hp_free(path);
	hp_free(rank);
	return 0;
}

static int sites_text(struct cli_ctx *x, hp_session *S, const struct sites_result *r, FILE *f);

static int text(struct cli_ctx *x, hp_session *S, void *res, FILE *f)
{
	const struct sites_opts *o = x->own;
	const struct sites_result *r = res;
	if (o->collapsed)
		return sites_text(x, S, r, f);
	cli_partial_note(f, S);
	int rc = EXIT_OK;
	if (r->no_dump)
		fputs("the file holds no heap dump, only the hprof agent's records: no objects to group by allocation site\n", f);
	else
		rc = sites_text(x, S, r, f);
	if (rc == EXIT_OK)
		agent_text(o, r->h, f);
	return rc;
}

static int sites_text(struct cli_ctx *x, hp_session *S, const struct sites_result *r, FILE *f)
{
	const struct sites_opts *o = x->own;
	const hp_heap *h = r->h;
	char a[64], b[64], c[64], buf[2048];
	uint32_t depth = depth_of(o);
	if (o->collapsed) {
		if (!r->S.n) {
			cli_error("%s: %s", hp_session_path(S), r->S.filtered_sites ?
				  "no allocation site's stack passes the filter" :
				  "no allocation sites: no object's stack trace serial names a trace with frames");
			return EXIT_BAD;
		}
		if (collapsed(h, &r->S, depth, f)) {
			cli_error("out of memory");
			return EXIT_NOMEM;
		}
		return EXIT_OK;
	}
	if (!r->S.n && !r->S.filtered_sites) {
		fputs(no_sites, f);
		fprintf(f, "(%s, %s, all without a site)\n", cli_fmt_counted(r->S.untraced, "object", "objects", a, sizeof a),
			cli_fmt_bytes(r->S.untraced_shallow, b, sizeof b));
		return EXIT_OK;
	}
	fprintf(f, "%s: %s with a site (%s), %s without one (%s)\n",
		cli_fmt_counted(r->S.n, "allocation site", "allocation sites", a, sizeof a),
		cli_fmt_count(r->S.traced, b, sizeof b), cli_fmt_bytes(r->S.traced_shallow, c, sizeof c),
		cli_fmt_count(r->S.untraced, buf, 64), cli_fmt_bytes(r->S.untraced_shallow, buf + 64, 64));
	if (r->S.filtered_sites)
		fprintf(f, "left out by the filter: %s (%s, %s)\n",
			cli_fmt_counted(r->S.filtered_sites, "site", "sites", a, sizeof a),
			cli_fmt_counted(r->S.filtered, "object", "objects", b, sizeof b), cli_fmt_bytes(r->S.filtered_shallow, c, sizeof c));
	fprintf(f, "retained: the bytes the objects dominate, each once (weak %s, roots %s)\n\n",
		hp_weak_policy_name(r->R->weak), cli_roots_policy_name(r->R->roots_policy));
	if (!r->S.n)
		return EXIT_OK;
	if (!o->flat) {
		struct tree_ctx tc = { h, &r->S, NULL };
		struct cli_table ntb;
		node_table(o, &tc, &ntb);
		cli_table_header(&ntb, f);
		struct walk w = { &r->S, depth, (size_t)(o->top.n > 0 ? o->top.n : 0) };
		size_t *rank = hp_calloc((size_t)r->S.nnodes + 2, sizeof *rank);
		uint32_t *pend = hp_reallocarray(NULL, (size_t)r->S.nnodes + 1, sizeof *pend);
		size_t np = 0;         /* nodes whose "... more" line comes after their shown children */
		if (!rank || !pend) {
			hp_free(rank);
			hp_free(pend);
			cli_error("out of memory");
			return EXIT_NOMEM;
		}
		for (uint32_t u = 0;; u = next_shown(&w, u, rank)) {
			while (np && (u == HP_NONE || r->S.node[pend[np - 1]].level >= r->S.node[u].level))
				more_line(&ntb, &w, pend[--np], f);
			if (u == HP_NONE)
				break;
			const struct hp_site_node *e = &r->S.node[u];
			cli_table_row(&ntb, f, e, 0);
			struct cut ct = cut_of(&w, u);
			if (e->self_objects && e->nchildren && !ct.by_depth) {
				char line[300];
				snprintf(line, sizeof line, "%s %s, retained %s: %s",
					 cli_fmt_counted(e->self_objects, "object", "objects", a, sizeof a),
					 cli_fmt_bytes(e->self_shallow, b, sizeof b), cli_fmt_bytes(e->self_retained, c, sizeof c),
					 o->bottom_up ? "the stack ends here" : "allocated in this frame");
				under(&ntb, e, line, f);
			}
			if (ct.n && ct.by_depth)
				more_line(&ntb, &w, u, f);
			else if (ct.n)
				pend[np++] = u;
		}
		hp_free(pend);
		hp_free(rank);
		return EXIT_OK;
	}
	struct cli_table stb;
	CLI_TABLE_INIT(&stb, site_cols, 0, 0, h);
	cli_table_header(&stb, f);
	size_t ns = shown(o, r->S.n);
	for (size_t i = 0; i < ns; i++) {
		const struct hp_site *s = &r->S.s[i];
		const struct hp_trace_rec *tr = &h->traces[s->trace];
		cli_table_row(&stb, f, s, i + 1);
		uint32_t nf = depth > 0 && depth < tr->n ? depth : tr->n;
		char line[2200];
		for (uint32_t d = 0; d < nf; d++) {
			const struct hp_frame *fr = hp_trace_frame(h, s->trace, d);
			if (fr)
				snprintf(line, sizeof line, "  %s", cli_frame_text(h, fr, buf, sizeof buf));
			else
				snprintf(line, sizeof line, "  at ? (frame %u: no STACK FRAME record)", d);
			cli_table_line(&stb, f, NULL, 0, NULL, line);
		}
		if (nf < tr->n) {
			snprintf(line, sizeof line, "  ... %u more frames", tr->n - nf);
			cli_table_line(&stb, f, NULL, 0, NULL, line);
		}
	}
	if (ns < r->S.n)
		fprintf(f, "... %s more sites\n", cli_fmt_count(r->S.n - ns, a, sizeof a));
	return EXIT_OK;
}

CLI_COMMAND(sites, "hprofan sites FILE", "objects by allocation site (dumps written with allocation tracking)",
	    CLI_FILES(1, 1), CLI_ANSWERS, CLI_OWN(struct sites_opts, defaults),
	    CLI_TABLES(own, cli_opts_model, cli_opts_policy, cli_opts_load, cli_opts_output, cli_opts_quiet),
	    CLI_RULES(rules));
