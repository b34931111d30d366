/* hprofan diff BASE NEW: what grew between two dumps, per class, per GC
 * root kind and Android heap, and who holds it (the dominator trees matched
 * by structure, analysis/diff.h).  With --fast, per class only, from one
 * streaming pass over each file.  Also the commands diff and trend share
 * (cli/dumpsum.h). */
#include "cli/dumpsum.h"
#include "base/clock.h"
#include "cli/msg.h"
#include "cli/format.h"
#include "cli/filter.h"
#include "cli/load.h"
#include "cli/output.h"
#include "base/text.h"
#include "cli/table.h"
#include "base/alloc.h"
#include "analysis/gennames.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- shared with trend --------------------------------------------------- */

const struct cli_choice cli_dumpgroup_choices[] = {
	{ "package", HP_GROUP_PACKAGE_FLAT, NULL },
	{ "loader", HP_GROUP_LOADER, NULL },
	{ "component", HP_GROUP_COMPONENT, NULL },
	{ NULL, 0, NULL }
};

const struct cli_rule *const cli_series_rules[] = { cli_rules_components, cli_rules_fast_loader, NULL };

void cli_dumpgroup_parse(int group, const char *components, struct cli_dumpgroup *g)
{
	g->by = group >= 0 ? group : components ? HP_GROUP_COMPONENT : -1;
	g->components = components;
	g->kind = cli_choice_name(cli_dumpgroup_choices, g->by);
}

/* the summary's groups (cli_series_summary()) */
static int dump_groups(struct cli_ctx *x, hp_session *S, const hp_heap *h, const struct hp_retained *R,
		       hp_objread *rd, const struct cli_dumpgroup *grp, struct hp_dsum *sum)
{
	int rc = EXIT_OK;
	uint8_t *row_in = NULL;
	struct cli_filter *flt = NULL;
	struct cli_components comps;
	struct hp_groups G;
	struct hp_error err;
	memset(&comps, 0, sizeof comps);
	memset(&G, 0, sizeof G);
	hp_error_clear(&err);
	if (x->c->filter || x->c->exclude) {
		if (!(flt = cli_filter_new(x->c->filter, x->c->exclude, &rc)))
			return rc;
		if ((rc = cli_filter_rows(flt, h, -1, &row_in)))
			goto out;
	}
	if (grp->by == HP_GROUP_COMPONENT && (rc = cli_components_read(grp->components, h, &comps)))
		goto out;
	int st = hp_groups_compute(h, R, grp->by, row_in, comps.comp, (const char *const *)comps.names, comps.n, &G, &err);
	if (st == HP_OK && grp->by == HP_GROUP_LOADER && rd)
		st = hp_groups_loader_names(&G, h, rd, &err);
	if (st == HP_OK)
		st = hp_dsum_groups(sum, h, &G, &err);
	if (st != HP_OK) {
		cli_error("%s: %s", hp_session_path(S), err.msg);
		rc = cli_exit_code(st);
	}
out:
	hp_groups_release(&G);
	cli_components_release(&comps);
	cli_filter_free(flt);
	hp_free(row_in);
	return rc;
}

/* the summary of a dump whose session is open */
static int summarise(struct cli_ctx *x, hp_session *S, const char *file, int fast, const struct cli_dumpgroup *grp,
		     struct hp_dsum *sum)
{
	const hp_heap *h;
	const struct hp_retained *R = NULL;
	hp_objread *rd = NULL;
	int rc;
	if (fast) {
		rc = cli_histogram(S, &h);
	} else {
		rc = cli_refuse_pipe(S, "retained sizes read", "save it to a file (or use --fast for shallow sizes)");
		if (!rc)
			rc = cli_retained(S, &h, &R);
		if (!rc)
			rc = cli_objread(S, &rd);
	}
	if (rc)
		return rc;
	struct hp_error err;
	hp_error_clear(&err);
	int hr = hp_dsum_build(h, R, rd, sum, &err);
	if (hr) {
		return cli_fail(file, &err, hr);
	}
	if (grp && grp->by >= 0)
		return dump_groups(x, S, h, R, rd, grp, sum);
	return EXIT_OK;
}

/* ---- one model for a series of dumps ----------------------------------------- */

void cli_series_init(struct cli_series *m, struct cli_ctx *x, int fast)
{
	memset(m, 0, sizeof *m);
	m->x = x;
	m->fast = fast;
	m->weak = m->roots = -1;
}

/* the later dumps' options: the chosen policies, and for a dump read again
 * the chosen size model too, without the index (it stays the dump's own) */
static void series_choose(struct cli_series *m, const hp_heap *h, const struct cli_dumpmodel *own)
{
	const struct cli_common *c = m->x->c;
	m->chosen = 1;
	m->size_kind = h->size.kind;
	if (!m->fast) {
		m->weak = c->weak >= 0 ? c->weak : own->weak;
		m->roots = c->roots >= 0 ? c->roots : own->roots;
	}
	m->probe = *c;
	if (!m->fast) {
		m->probe.weak = m->weak;
		m->probe.roots = m->roots;
	}
	m->forced = m->probe;
	m->forced.size_kind = m->size_kind;
	m->forced.no_index = 1;
	m->px = *m->x;
	m->px.c = &m->probe;
	m->fx = *m->x;
	m->fx.c = &m->forced;
}

int cli_series_summary(struct cli_series *m, size_t i, const struct cli_dumpgroup *grp, hp_session **S,
		       struct hp_dsum *sum, struct cli_dumpmodel *own)
{
	struct cli_ctx *x = m->x;
	const char *file = x->files[i];
	const struct cli_common *c = x->c;
	memset(own, 0, sizeof *own);
	own->weak = own->roots = -1;
	struct cli_ctx *cx = m->chosen ? &m->px : x;
	int rc = cli_session(cx, file, S);
	if (rc)
		return rc;
	if (m->chosen && !c->size_kind && hp_session_one_shot(*S)) {
		/* a pipe is read once: under the chosen model, its own not known */
		cli_session_close(*S);
		*S = NULL;
		cx = &m->fx;
		if ((rc = cli_session(cx, file, S)))
			return rc;
	}
	const hp_heap *h;
	if (m->fast)
		rc = cli_histogram(*S, &h);
	else if (!(rc = cli_refuse_pipe(*S, "retained sizes read", "save it to a file (or use --fast for shallow sizes)")))
		rc = cli_model(*S, &h);
	if (rc)
		return rc;
	if (!c->size_kind && cx != &m->fx)
		own->size_kind = h->size.kind;
	if (!m->fast)
		hp_policy_defaults(h, &own->weak, &own->roots);
	if (!m->chosen) {
		series_choose(m, h, own);
		m->first = i;
	} else {
		int other_size = own->size_kind && own->size_kind != m->size_kind;
		own->differs = other_size || (!m->fast && ((c->weak < 0 && own->weak != m->weak) ||
							     (c->roots < 0 && own->roots != m->roots)));
		if (other_size) {
			cli_session_close(*S);
			*S = NULL;
			if ((rc = cli_session(&m->fx, file, S)))
				return rc;
			own->reread = 1;
		}
	}
	if (own->differs && !m->ndiffer++)
		m->first_differ = i;
	return summarise(x, *S, file, m->fast, grp, sum);
}

/* "size model mat, weak follow, roots threads": the parts known (kind 0,
 * policies -1 are left out) */
static const char *model_words(int kind, int weak, int roots, char *buf, size_t n)
{
	size_t l = 0;
	buf[0] = '\0';
	if (kind)
		l += (size_t)snprintf(buf, n, "size model %s", hp_size_kind_name(kind));
	if (weak >= 0 && l < n)
		l += (size_t)snprintf(buf + l, n - l, "%sweak %s", l ? ", " : "", hp_weak_policy_name(weak));
	if (roots >= 0 && l < n)
		snprintf(buf + l, n - l, "%sroots %s", l ? ", " : "", cli_roots_policy_name(roots));
	return buf;
}

const char *cli_series_words(const struct cli_series *m, char *buf, size_t n)
{
	return model_words(m->size_kind, m->weak, m->roots, buf, n);
}

const char *cli_dumpmodel_words(const struct cli_dumpmodel *own, char *buf, size_t n)
{
	return model_words(own->size_kind, own->weak, own->roots, buf, n);
}

const char *cli_series_from(const struct cli_series *m, const char *first, char *buf, size_t n)
{
	const struct cli_common *c = m->x->c;
	int gs = c->size_kind != 0, gw = !m->fast && c->weak >= 0, gr = !m->fast && c->roots >= 0;
	int all = gs && (m->fast || (gw && gr));
	if (all)
		snprintf(buf, n, "as given");
	else if (!gs && !gw && !gr)
		snprintf(buf, n, "%s's own", first);
	else
		snprintf(buf, n, "%s%s%s%s as given, the rest %s's own", gs ? "--size-model" : "",
			 gs && (gw || gr) ? ", " : "", gw ? "--weak" : "", gw && gr ? ", --roots" : gr ? "--roots" : "",
			 first);
	return buf;
}

void cli_series_warn(const struct cli_series *m, const struct cli_dumpmodel *own, size_t n)
{
	if (!m->ndiffer)
		return;
	const struct cli_ctx *x = m->x;
	char a[200], b[200], fa[1024], fb[1024], more[64] = "";
	if (m->ndiffer > 1)
		snprintf(more, sizeof more, " (%zu more dump%s too)", m->ndiffer - 1,
			 m->ndiffer > 2 ? "s differ" : " differs");
	cli_warn("models differ: %s's own is %s%s; %s's is %s; %s compared under %s's (%s)",
		 hp_text_safe(x->files[m->first_differ], fa, sizeof fa), cli_dumpmodel_words(&own[m->first_differ], a, sizeof a),
		 more, hp_text_safe(x->files[m->first], fb, sizeof fb), cli_series_words(m, b, sizeof b),
		 n > 2 ? "all are" : "both are", fb,
		 m->fast ? "--size-model chooses another" : "--size-model, --weak and --roots choose another");
}

static cJSON *json_model_words(cJSON *e, int kind, int weak, int roots)
{
	if (kind)
		cJSON_AddStringToObject(e, "size_model", hp_size_kind_name(kind));
	if (weak >= 0)
		cJSON_AddStringToObject(e, "weak_policy", hp_weak_policy_name(weak));
	if (roots >= 0)
		cJSON_AddStringToObject(e, "roots_policy", cli_roots_policy_name(roots));
	return e;
}

void cli_json_series_model(cJSON *j, const struct cli_series *m)
{
	const struct cli_common *c = m->x->c;
	cJSON *e = json_model_words(cJSON_AddObjectToObject(j, "compared_under"), m->size_kind, m->weak, m->roots);
	cJSON_AddStringToObject(e, "size_model_source", c->size_kind ? "option" : "first_dump");
	if (!m->fast) {
		cJSON_AddStringToObject(e, "weak_policy_source", c->weak >= 0 ? "option" : "first_dump");
		cJSON_AddStringToObject(e, "roots_policy_source", c->roots >= 0 ? "option" : "first_dump");
	}
	cJSON_AddBoolToObject(j, "models_differ", m->ndiffer > 0);
}

void cli_json_dumpmodel(cJSON *info, const struct cli_dumpmodel *own)
{
	cJSON *e = json_model_words(cJSON_AddObjectToObject(info, "inferred_model"), own->size_kind, own->weak, own->roots);
	cJSON_AddBoolToObject(e, "differs", own->differs);
	cJSON_AddBoolToObject(e, "read_again", own->reread);
}

/* a ThreadLocal's path (its values, whatever the thread; analysis/diff.h):
 * the threads holding a value, the most in any of the dumps; 0 for another */
static uint64_t tl_threads(const struct hp_cmp *c, const struct hp_cmp_path *P)
{
	uint64_t m = 0;
	if (P->parent != HP_NONE || strcmp(P->via, "thread_local"))
		return 0;
	for (size_t d = 0; d < c->n; d++)
		if (P->nodes[d] > m)
			m = P->nodes[d];
	return m;
}

const char *cli_fmt_path(const struct hp_cmp *c, uint32_t p, char *buf, size_t n)
{
	uint32_t chain[HP_DSUM_DEPTH + 1];
	size_t k = 0;
	for (uint32_t q = p; q != HP_NONE && k < HP_DSUM_DEPTH + 1; q = c->paths[q].parent)
		chain[k++] = q;
	char raw[4096];
	size_t l = 0;
	raw[0] = '\0';
	while (k-- > 0) {
		const struct hp_cmp_path *P = &c->paths[chain[k]];
		int w;
		uint64_t nt = tl_threads(c, P);
		if (nt)
			w = snprintf(raw + l, sizeof raw - l, "%s in %llu thread%s", P->label, (unsigned long long)nt,
				     nt == 1 ? "" : "s");
		else if (P->parent == HP_NONE)
			w = snprintf(raw + l, sizeof raw - l, "%s", P->label);
		else if (!strcmp(P->via, "[]") || P->via[0] == '<')
			w = snprintf(raw + l, sizeof raw - l, " %s \xe2\x86\x92 %s", P->via, P->label);
		else if (P->via[0])
			w = snprintf(raw + l, sizeof raw - l, " .%s \xe2\x86\x92 %s", P->via, P->label);
		else
			w = snprintf(raw + l, sizeof raw - l, " \xe2\x86\x92 %s", P->label);
		if (w < 0 || (size_t)w >= sizeof raw - l)
			break;
		l += (size_t)w;
	}
	if (c->paths[p].depth >= HP_DSUM_DEPTH && l + 8 < sizeof raw)
		snprintf(raw + l, sizeof raw - l, " \xe2\x86\x92 \xe2\x80\xa6");
	return hp_text_safe(raw, buf, n);
}

cJSON *cli_json_path(const struct hp_cmp *c, uint32_t p)
{
	uint32_t chain[HP_DSUM_DEPTH + 1];
	size_t k = 0;
	for (uint32_t q = p; q != HP_NONE && k < HP_DSUM_DEPTH + 1; q = c->paths[q].parent)
		chain[k++] = q;
	cJSON *a = cJSON_CreateArray();
	while (k-- > 0) {
		const struct hp_cmp_path *P = &c->paths[chain[k]];
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, P->parent == HP_NONE ? "root" : "via", P->via);
		cJSON_AddStringToObject(e, "object", P->label);
		if (tl_threads(c, P))
			cli_json_u64(e, "threads", tl_threads(c, P));
		if (P->normalised)
			cJSON_AddBoolToObject(e, "normalised", 1);
		cJSON_AddItemToArray(a, e);
	}
	return a;
}

/* ---- names lined up by their normalised form (analysis/gennames.h) -------- */

unsigned cli_cmp_path_normalised(const struct hp_cmp *c, uint32_t p)
{
	unsigned k = 0;
	for (size_t d = 0; p != HP_NONE && d <= HP_DSUM_DEPTH; p = c->paths[p].parent, d++)
		k |= c->paths[p].normalised;
	return k;
}

static cJSON *json_kinds(unsigned kinds)
{
	cJSON *a = cJSON_CreateArray();
	for (unsigned k = 0; k < HP_GEN_NKINDS; k++)
		if (kinds & (1u << k))
			cJSON_AddItemToArray(a, cJSON_CreateString(hp_gen_kind_name(k, 1)));
	return a;
}

cJSON *cli_json_norm_row(unsigned kinds, const uint32_t *names, size_t n)
{
	cJSON *e = cJSON_CreateObject();
	cJSON_AddItemToObject(e, "kinds", json_kinds(kinds));
	cJSON *a = cJSON_AddArrayToObject(e, "names");
	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(a, cli_json_u64_item(names[i]));
	return e;
}

void cli_json_normalised(cJSON *j, const struct hp_cmp *c)
{
	const struct hp_cmp_norm *m = &c->norm;
	cJSON *e = cJSON_AddObjectToObject(j, "normalised");
	cJSON_AddBoolToObject(e, "runs_differ", m->runs_differ);
	cli_json_u64(e, "classes", m->classes);
	cli_json_u64(e, "threads", m->threads);
	cli_json_u64(e, "paths", m->paths);
	cJSON_AddItemToObject(e, "kinds", json_kinds(m->kinds));
	cJSON *cn = cJSON_AddArrayToObject(e, "class_names"), *tn = cJSON_AddArrayToObject(e, "thread_names");
	for (size_t i = 0; i < c->n; i++) {
		cJSON_AddItemToArray(cn, cli_json_u64_item(m->class_names[i]));
		cJSON_AddItemToArray(tn, cli_json_u64_item(m->thread_names[i]));
	}
}

void cli_text_normalised(FILE *f, const struct hp_cmp *c, size_t a, size_t b, const char *an, const char *bn)
{
	const struct hp_cmp_norm *m = &c->norm;
	if (!m->classes && !m->threads && !m->paths)
		return;
	char x[32], y[32], z[32], kinds[200] = "";
	size_t l = 0;
	for (unsigned k = 0; k < HP_GEN_NKINDS; k++)
		if ((m->kinds & (1u << k)) && (1u << k) != HP_GEN_THREAD && l < sizeof kinds) {
			int w = snprintf(kinds + l, sizeof kinds - l, "%s%s", l ? ", " : "", hp_gen_kind_name(k, 0));
			if (w > 0)
				l += (size_t)w;
		}
	fprintf(f, "matched by normalised name (names made up at run time):");
	const char *sep = " ";
	if (m->classes) {
		fprintf(f, "%s%s class row%s (%s classes in %s, %s in %s; %s)", sep, cli_fmt_count(m->classes, x, sizeof x),
			m->classes == 1 ? "" : "s", cli_fmt_count(m->class_names[a], y, sizeof y), an,
			cli_fmt_count(m->class_names[b], z, sizeof z), bn, kinds);
		sep = ", ";
	}
	if (m->threads) {
		fprintf(f, "%s%s thread path%s (%s threads in %s, %s in %s)", sep, cli_fmt_count(m->threads, x, sizeof x),
			m->threads == 1 ? "" : "s", cli_fmt_count(m->thread_names[a], y, sizeof y), an,
			cli_fmt_count(m->thread_names[b], z, sizeof z), bn);
		sep = ", ";
	}
	if (m->paths)
		fprintf(f, "%s%s other path node%s", sep, cli_fmt_count(m->paths, x, sizeof x), m->paths == 1 ? "" : "s");
	fputc('\n', f);
	if (m->runs_differ)
		fprintf(f, "  (the lambdas of a class differ both ways: two runs, so every made-up name is normalised)\n");
}

cJSON *cli_json_i64_item(int64_t v)
{
	char b[32];
	snprintf(b, sizeof b, "%" PRId64, v);
	return cJSON_CreateRaw(b);
}

cJSON *cli_json_dump_info(const char *file, hp_session *S, const struct hp_dsum *s)
{
	cJSON *j = cJSON_CreateObject();
	cli_json_dump_members(j, file, S);
	char t[64];
	cJSON_AddStringToObject(j, "timestamp", cli_fmt_time(s->timestamp_ms, t, sizeof t));
	cli_json_u64(j, "objects", s->objects);
	cli_json_u64(j, "shallow", s->shallow);
	/* the model its sizes follow: the heap the summary was made of */
	const hp_heap *h;
	struct hp_error err;
	hp_error_clear(&err);
	if (hp_session_histogram(S, &h, &err) == HP_OK)
		cJSON_AddItemToObject(j, "size_model", cli_json_size_model(h));
	if (s->has_retained) {
		cJSON_AddStringToObject(j, "weak_policy", hp_weak_policy_name(s->weak_policy));
		cJSON_AddStringToObject(j, "roots_policy", cli_roots_policy_name(s->roots_policy));
		cli_json_u64(j, "reachable_objects", s->reachable);
		cli_json_u64(j, "reachable_shallow", s->reachable_bytes);
		cli_json_u64(j, "unreachable_objects", s->unreachable);
		cli_json_u64(j, "unreachable_shallow", s->unreachable_bytes);
	}
	return j;
}

cJSON *cli_json_multi_begin(const char *command, cJSON *const *infos, size_t n)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "schema", HP_SCHEMA);
	cJSON_AddStringToObject(j, "command", command);
	const cJSON *last = infos[n - 1];
	static const char *const keys[] = { "file", "format", "id_size" };
	for (size_t k = 0; k < 3; k++)
		cJSON_AddItemToObject(j, keys[k], cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(last, keys[k]), 1));
	const cJSON *reason = NULL;
	for (size_t i = 0; i < n && !reason; i++)
		reason = cJSON_GetObjectItemCaseSensitive(infos[i], "partial_reason");
	cJSON_AddBoolToObject(j, "partial", reason != NULL);
	if (reason)
		cJSON_AddItemToObject(j, "partial_reason", cJSON_Duplicate(reason, 1));
	const cJSON *map = cJSON_GetObjectItemCaseSensitive(last, "mapping");
	if (map)
		cJSON_AddItemToObject(j, "mapping", cJSON_Duplicate(map, 1));
	return j;
}

/* ---- diff ----------------------------------------------------------------------- */

struct diff_opts {
	struct cli_count top;
	int fast;
	int group;                    /* enum hp_group_by, -1 not given */
	const char *components;
};

static void defaults(void *own)
{
	struct diff_opts *o = own;
	o->top.n = 20;
	o->group = -1;
}

static const struct cli_option own[] = {
	OPT_TOP("the N largest rows of each table (default 20; 0 shows all)", OPT_OWN(struct diff_opts, top)),
	CLI_OPT_SERIES_FAST(OPT_OWN(struct diff_opts, fast)),
	CLI_OPT_SERIES_GROUP(OPT_OWN(struct diff_opts, group)),
	CLI_OPT_SERIES_COMPONENTS(OPT_OWN(struct diff_opts, components)),
	OPT_END
};

struct drow {                  /* one class of the comparison */
	const struct hp_cmp_class *c;
	int64_t d_inst, d_shallow, d_ret, key;
};

static int by_key(const void *a, const void *b)
{
	const struct drow *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? 1 : -1;
	return strcmp(x->c->name, y->c->name);
}

static int by_growth(const void *a, const void *b)
{
	const struct hp_growth *x = a, *y = b;
	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	if (x->nodes != y->nodes)
		return x->nodes < y->nodes ? 1 : -1;
	return x->path < y->path ? -1 : x->path > y->path;
}

struct diff_state {
	struct cli_ctx *x;
	const struct diff_opts *o;
	hp_session *S[2];             /* BASE's is closed once summarised */
	cJSON *info[2];               /* cli_json_dump_info() of each */
	char partial[2][1024];        /* "FILE: offset ...: why" of a salvaged dump, else "" */
	struct hp_idcols ida;         /* BASE's ids, for the objects that kept theirs */
	double t_sum[2], t_cmp;       /* --stats */
	struct hp_dsum sum[2];
	struct hp_cmp cmp;
	struct cli_filter *flt;
	struct drow *rows;
	size_t nrows, nnew, ngone, nchanged;
	struct hp_growth *g;
	size_t ng;
	int ids_done, ids_used;
	struct hp_idmatch ids;
	uint64_t *new_count, *new_bytes;   /* per class of NEW (ids) */
	const hp_heap *hb;
	struct cli_dumpgroup grp;     /* --group: the rows are groups (cmp.groups) */
	struct cli_series sm;         /* the model both are compared under */
	struct cli_dumpmodel own[2];  /* each one's own */
};

static const char *status_of(const uint8_t *present)
{
	return !present[0] ? "new" : !present[1] ? "gone" : "changed";
}

/* the growth point is one --filter keeps */
static int keep_path(struct diff_state *d, uint32_t p, int *rc)
{
	int m = cli_filter_match(d->flt, d->cmp.paths[p].label);
	if (m < 0)
		*rc = EXIT_USAGE;
	return m > 0;
}

static int collect(struct diff_state *d)
{
	struct cli_ctx *x = d->x;
	int rc;
	cli_dumpgroup_parse(d->o->group, d->o->components, &d->grp);
	if ((x->c->filter || x->c->exclude) && !(d->flt = cli_filter_new(x->c->filter, x->c->exclude, &rc)))
		return rc;
	struct hp_error err;
	hp_error_clear(&err);
	/* BASE, then NEW; BASE's session is closed before NEW is read (only its
	 * ids stay, 12 bytes an object), so the two are not in memory together.
	 * NEW is read under BASE's model (the options' where given). */
	cli_series_init(&d->sm, x, d->o->fast);
	for (int i = 0; i < 2; i++) {
		double t0 = hp_now();
		if ((rc = cli_series_summary(&d->sm, (size_t)i, &d->grp, &d->S[i], &d->sum[i], &d->own[i])))
			return rc;
		d->info[i] = cli_json_dump_info(x->files[i], d->S[i], &d->sum[i]);
		cli_json_dumpmodel(d->info[i], &d->own[i]);
		const struct hp_load_info *L = hp_session_load_info(d->S[i]);
		if (L->partial)
			cli_format_error(x->files[i], &L->partial_err, d->partial[i], sizeof d->partial[i]);
		if (i == 0 && !d->o->fast) {
			const hp_heap *ha;
			if ((rc = cli_model(d->S[0], &ha)))
				return rc;
			if (hp_idcols_take(ha, &d->sum[0], &d->ida, &err)) {
				cli_error("%s", err.msg);
				return EXIT_NOMEM;
			}
		}
		d->t_sum[i] = hp_now() - t0;
		if (i == 0) {
			cli_print_stats(x, d->S[0]);
			cli_session_close(d->S[0]);
			d->S[0] = NULL;
		}
	}
	cli_series_warn(&d->sm, d->own, 2);
	double t0 = hp_now();
	const struct hp_dsum *ss[2] = { &d->sum[0], &d->sum[1] };
	if (hp_cmp_build(ss, 2, &d->cmp, &err)) {
		cli_error("%s", err.msg);
		return EXIT_NOMEM;
	}
	/* the classes, or (--group) the groups of the classes the filters kept */
	int grouped = d->grp.by >= 0;
	const struct hp_cmp_class *tab = grouped ? d->cmp.groups : d->cmp.classes;
	size_t ntab = grouped ? d->cmp.ngroups : d->cmp.nclasses;
	d->rows = hp_reallocarray(NULL, ntab ? ntab : 1, sizeof *d->rows);
	if (!d->rows) {
		cli_error("out of memory");
		return EXIT_NOMEM;
	}
	for (size_t i = 0; i < ntab; i++) {
		const struct hp_cmp_class *c = &tab[i];
		struct drow r = { c, (int64_t)(c->instances[1] - c->instances[0]),
				  (int64_t)(c->shallow[1] - c->shallow[0]), (int64_t)(c->retained[1] - c->retained[0]), 0 };
		if (!r.d_inst && !r.d_shallow && !r.d_ret && c->present[0] && c->present[1])
			continue;
		int m = grouped ? 1 : cli_filter_match(d->flt, c->name);
		if (m < 0)
			return EXIT_USAGE;
		if (!m)
			continue;
		r.key = d->o->fast ? r.d_shallow : r.d_ret;
		d->nnew += !c->present[0];
		d->ngone += !c->present[1];
		d->nchanged += c->present[0] && c->present[1];
		d->rows[d->nrows++] = r;
	}
	qsort(d->rows, d->nrows, sizeof *d->rows, by_key);
	if (!d->o->fast) {
		if (hp_cmp_growth(&d->cmp, 0, 1, &d->g, &d->ng, &err)) {
			cli_error("%s", err.msg);
			return EXIT_NOMEM;
		}
		size_t k = 0;
		for (size_t i = 0; i < d->ng; i++) {
			int keep = keep_path(d, d->g[i].path, &rc);
			if (rc)
				return rc;
			if (keep)
				d->g[k++] = d->g[i];
		}
		d->ng = k;
		qsort(d->g, d->ng, sizeof *d->g, by_growth);
		/* objects that kept their id: the same process, no GC between */
		const hp_heap *hb;
		if ((rc = cli_model(d->S[1], &hb)))
			return rc;
		d->hb = hb;
		d->new_count = hp_calloc(hb->nclasses ? hb->nclasses : 1, sizeof *d->new_count);
		d->new_bytes = hp_calloc(hb->nclasses ? hb->nclasses : 1, sizeof *d->new_bytes);
		if (!d->new_count || !d->new_bytes || hp_diff_ids(&d->ida, hb, &d->ids, d->new_count, d->new_bytes, &err)) {
			cli_error("out of memory");
			return EXIT_NOMEM;
		}
		d->ids_done = 1;
		/* most of BASE's objects are in NEW with the same id and class */
		uint64_t na = d->ida.n;
		d->ids_used = na && d->ids.kept * 2 >= na;
		hp_idcols_release(&d->ida);
	}
	d->t_cmp = hp_now() - t0;
	return EXIT_OK;
}

static void release(struct diff_state *d)
{
	hp_free_all(d->rows, d->g, d->new_count, d->new_bytes);
	hp_cmp_release(&d->cmp);
	hp_idcols_release(&d->ida);
	for (int i = 0; i < 2; i++) {
		cJSON_Delete(d->info[i]);
		hp_dsum_release(&d->sum[i]);
		if (d->S[i])
			cli_session_close(d->S[i]);
	}
	cli_filter_free(d->flt);
}

static size_t shown(const struct diff_state *d, size_t n)
{
	return d->o->top.n > 0 && (size_t)d->o->top.n < n ? (size_t)d->o->top.n : n;
}

/* which growth points a list holds: 0 grown (matched), 1 new, 2 shrunk or gone */
static int list_of(const struct diff_state *d, const struct hp_growth *g)
{
	const struct hp_cmp_path *P = &d->cmp.paths[g->path];
	if (g->bytes < 0 || (g->bytes == 0 && g->nodes < 0))
		return 2;
	return P->present[0] ? 0 : 1;
}

/* the new objects by id, per class, largest first: top rows */
struct idrow { uint32_t cls; uint64_t count, bytes; };
static int by_idrow(const void *a, const void *b)
{
	const struct idrow *x = a, *y = b;
	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	return x->cls < y->cls ? -1 : x->cls > y->cls;
}

static struct idrow *id_rows(const struct diff_state *d, size_t *n)
{
	const hp_heap *h = d->hb;
	struct idrow *r = hp_reallocarray(NULL, h->nclasses ? h->nclasses : 1, sizeof *r);
	*n = 0;
	if (!r)
		return NULL;
	for (size_t k = 0; k < h->nclasses; k++)
		if (d->new_count[k] && cli_filter_match(d->flt, hp_class_name(h, k)) > 0)
			r[(*n)++] = (struct idrow){ (uint32_t)k, d->new_count[k], d->new_bytes[k] };
	qsort(r, *n, sizeof *r, by_idrow);
	return r;
}

static cJSON *json_trio(uint64_t inst, uint64_t sh, uint64_t ret, int with_ret)
{
	cJSON *e = cJSON_CreateObject();
	cli_json_u64(e, "instances", inst);
	cli_json_u64(e, "shallow", sh);
	if (with_ret)
		cli_json_u64(e, "retained", ret);
	return e;
}

static int json_out(struct diff_state *d)
{
	struct cli_ctx *x = d->x;
	int R = !d->o->fast;
	cJSON *j = cli_json_multi_begin("diff", d->info, 2);
	cJSON_AddItemToObject(j, "base", d->info[0]);
	cJSON_AddItemToObject(j, "new", d->info[1]);
	d->info[0] = d->info[1] = NULL;
	cli_json_series_model(j, &d->sm);
	cJSON_AddBoolToObject(j, "retained_sizes", R);
	cJSON_AddStringToObject(j, "sort", R ? "retained" : "shallow");
	if (x->c->filter)
		cJSON_AddStringToObject(j, "filter", x->c->filter);
	if (x->c->exclude)
		cJSON_AddStringToObject(j, "exclude", x->c->exclude);
	cJSON *tot = cJSON_AddObjectToObject(j, "delta");
	cJSON_AddItemToObject(tot, "objects", cli_json_i64_item((int64_t)(d->sum[1].objects - d->sum[0].objects)));
	cJSON_AddItemToObject(tot, "shallow", cli_json_i64_item((int64_t)(d->sum[1].shallow - d->sum[0].shallow)));
	if (R) {
		cJSON_AddItemToObject(tot, "reachable_shallow",
				      cli_json_i64_item((int64_t)(d->sum[1].reachable_bytes - d->sum[0].reachable_bytes)));
		cJSON_AddItemToObject(tot, "unreachable_shallow",
				      cli_json_i64_item((int64_t)(d->sum[1].unreachable_bytes - d->sum[0].unreachable_bytes)));
	}
	cli_json_normalised(j, &d->cmp);
	int grouped = d->grp.by >= 0;
	if (grouped)
		cJSON_AddStringToObject(j, "group", d->grp.kind);
	cJSON *cs = cJSON_AddObjectToObject(j, grouped ? "group_counts" : "class_counts");
	cli_json_u64(cs, "changed", d->nchanged);
	cli_json_u64(cs, "new", d->nnew);
	cli_json_u64(cs, "gone", d->ngone);
	cli_json_u64(cs, "shown", shown(d, d->nrows));
	cJSON *arr = cJSON_AddArrayToObject(j, grouped ? "groups" : "classes");
	for (size_t i = 0; i < shown(d, d->nrows); i++) {
		const struct drow *r = &d->rows[i];
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, grouped ? "name" : "class", r->c->name);
		cJSON_AddStringToObject(e, "status", status_of(r->c->present));
		cJSON_AddItemToObject(e, "base", json_trio(r->c->instances[0], r->c->shallow[0], r->c->retained[0], R));
		cJSON_AddItemToObject(e, "new", json_trio(r->c->instances[1], r->c->shallow[1], r->c->retained[1], R));
		cJSON *dd = cJSON_AddObjectToObject(e, "delta");
		cJSON_AddItemToObject(dd, "instances", cli_json_i64_item(r->d_inst));
		cJSON_AddItemToObject(dd, "shallow", cli_json_i64_item(r->d_shallow));
		if (R)
			cJSON_AddItemToObject(dd, "retained", cli_json_i64_item(r->d_ret));
		if (r->c->normalised)
			cJSON_AddItemToObject(e, "normalised", cli_json_norm_row(r->c->normalised, r->c->names, 2));
		cJSON_AddItemToArray(arr, e);
	}
	arr = cJSON_AddArrayToObject(j, "root_kinds");
	for (int k = 0; k < HP_ROOT_NKINDS; k++) {
		const struct hp_dsum_root *a = &d->sum[0].roots[k], *b = &d->sum[1].roots[k];
		if (!a->records && !b->records && !a->objects && !b->objects)
			continue;
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "kind", hp_root_kind_key(k));
		cJSON *ea = cJSON_AddObjectToObject(e, "base"), *eb = cJSON_AddObjectToObject(e, "new");
		cli_json_u64(ea, "roots", a->records);
		cli_json_u64(eb, "roots", b->records);
		if (R) {
			cli_json_u64(ea, "objects", a->objects);
			cli_json_u64(ea, "retained", a->retained);
			cli_json_u64(eb, "objects", b->objects);
			cli_json_u64(eb, "retained", b->retained);
		}
		cJSON *dd = cJSON_AddObjectToObject(e, "delta");
		cJSON_AddItemToObject(dd, "roots", cli_json_i64_item((int64_t)(b->records - a->records)));
		if (R) {
			cJSON_AddItemToObject(dd, "objects", cli_json_i64_item((int64_t)(b->objects - a->objects)));
			cJSON_AddItemToObject(dd, "retained", cli_json_i64_item((int64_t)(b->retained - a->retained)));
		}
		cJSON_AddItemToArray(arr, e);
	}
	if (d->sum[0].android || d->sum[1].android) {
		arr = cJSON_AddArrayToObject(j, "heaps");
		for (int side = 0; side < 2; side++)
			for (unsigned i = 0; i < d->sum[side].nheaps; i++) {
				const struct hp_dsum_heap *H = &d->sum[side].heaps[i];
				const struct hp_dsum_heap *o = NULL;
				for (unsigned k = 0; k < d->sum[!side].nheaps; k++)
					if (!strcmp(d->sum[!side].heaps[k].name, H->name))
						o = &d->sum[!side].heaps[k];
				if (side == 1 && o)
					continue;     /* listed with BASE's */
				const struct hp_dsum_heap *a = side ? o : H, *b = side ? H : o;
				cJSON *e = cJSON_CreateObject();
				cJSON_AddStringToObject(e, "heap", H->name);
				cJSON *ea = cJSON_AddObjectToObject(e, "base"), *eb = cJSON_AddObjectToObject(e, "new");
				cli_json_u64(ea, "objects", a ? a->objects : 0);
				cli_json_u64(ea, "shallow", a ? a->shallow : 0);
				cli_json_u64(eb, "objects", b ? b->objects : 0);
				cli_json_u64(eb, "shallow", b ? b->shallow : 0);
				cJSON *dd = cJSON_AddObjectToObject(e, "delta");
				cJSON_AddItemToObject(dd, "objects", cli_json_i64_item((int64_t)((b ? b->objects : 0) - (a ? a->objects : 0))));
				cJSON_AddItemToObject(dd, "shallow", cli_json_i64_item((int64_t)((b ? b->shallow : 0) - (a ? a->shallow : 0))));
				cJSON_AddItemToArray(arr, e);
			}
	}
	if (R) {
		static const char *const names[3] = { "grown", "new", "shrunk" };
		cJSON *gs = cJSON_AddObjectToObject(j, "holders");
		for (int list = 0; list < 3; list++) {
			cJSON *ga = cJSON_AddArrayToObject(gs, names[list]);
			size_t cnt = 0, lim = shown(d, SIZE_MAX);
			for (size_t ii = 0; ii < d->ng; ii++) {
				size_t i = list == 2 ? d->ng - 1 - ii : ii;    /* the most shrunk first */
				const struct hp_growth *g = &d->g[i];
				if (list_of(d, g) != list || cnt >= lim)
					continue;
				cnt++;
				const struct hp_cmp_path *P = &d->cmp.paths[g->path];
				cJSON *e = cJSON_CreateObject();
				cJSON_AddItemToObject(e, "path", cli_json_path(&d->cmp, g->path));
				cJSON_AddStringToObject(e, "status", !P->present[0] ? "new" : !P->present[1] ? "gone" : "matched");
				cJSON_AddBoolToObject(e, "own", g->own);
				cJSON *dd = cJSON_AddObjectToObject(e, "delta");
				cJSON_AddItemToObject(dd, "retained", cli_json_i64_item(g->bytes));
				cJSON_AddItemToObject(dd, "objects", cli_json_i64_item(g->nodes));
				cJSON_AddItemToObject(dd, "retained_objects", cli_json_i64_item(g->objects));
				cJSON *ea = cJSON_AddObjectToObject(e, "base"), *eb = cJSON_AddObjectToObject(e, "new");
				cli_json_u64(ea, "objects", P->nodes[0]);
				cli_json_u64(ea, "retained", P->retained[0]);
				cli_json_u64(eb, "objects", P->nodes[1]);
				cli_json_u64(eb, "retained", P->retained[1]);
				unsigned nk = cli_cmp_path_normalised(&d->cmp, g->path);
				if (nk)
					cJSON_AddItemToObject(e, "normalised", cli_json_norm_row(nk, P->names, 2));
				cJSON_AddItemToArray(ga, e);
			}
		}
		cli_json_u64(gs, "points", d->ng);
		cli_json_u64(gs, "depth_limit", HP_DSUM_DEPTH);
	}
	if (d->ids_done) {
		cJSON *ie = cJSON_AddObjectToObject(j, "object_ids");
		cJSON_AddBoolToObject(ie, "matched", d->ids_used);
		cli_json_u64(ie, "kept", d->ids.kept);
		cli_json_u64(ie, "reused", d->ids.reused);
		cli_json_u64(ie, "new_objects", d->ids.new_objects);
		cli_json_u64(ie, "new_shallow", d->ids.new_bytes);
		cli_json_u64(ie, "gone_objects", d->ids.gone_objects);
		cli_json_u64(ie, "gone_shallow", d->ids.gone_bytes);
		if (d->ids_used) {
			size_t n;
			struct idrow *r = id_rows(d, &n);
			if (!r) {
				cJSON_Delete(j);
				cli_error("out of memory");
				return EXIT_NOMEM;
			}
			cJSON *na = cJSON_AddArrayToObject(ie, "new_by_class");
			for (size_t i = 0; i < shown(d, n); i++) {
				cJSON *e = cJSON_CreateObject();
				cJSON_AddStringToObject(e, "class", hp_class_name(d->hb, r[i].cls));
				cli_json_u64(e, "objects", r[i].count);
				cli_json_u64(e, "shallow", r[i].bytes);
				cJSON_AddItemToArray(na, e);
			}
			hp_free(r);
		}
	}
	cJSON_AddStringToObject(j, "allocation_sites", "not read");
	return cli_json_end(x, j, EXIT_OK);
}

/* ---- the text's tables ----------------------------------------------------- */

/* "1,204 → 1,310": a count in base, then in new, from a row's pair */
struct pair { uint64_t a, b; };

static void pair_text(const struct pair *p, char *buf, size_t n)
{
	char c[32], e[32];
	snprintf(buf, n, "%s \xe2\x86\x92 %s", cli_fmt_count(p->a, c, sizeof c), cli_fmt_count(p->b, e, sizeof e));
}

static void instances_cell(const struct cli_table *tb, const void *row, char *buf, size_t n)
{
	(void)tb;
	const struct drow *r = row;
	struct pair p = { r->c->instances[0], r->c->instances[1] };
	pair_text(&p, buf, n);
}

/* the class (or group), marked when only one dump has it or when its
 * names were lined up by their normalised form */
static void class_put(const struct cli_table *tb, const void *row, FILE *f)
{
	(void)tb;
	const struct drow *r = row;
	char nm[4200], nz[80] = "";
	if (r->c->normalised)
		snprintf(nz, sizeof nz, "  [normalised: %u \xe2\x86\x92 %u classes]", r->c->names[0], r->c->names[1]);
	fprintf(f, "%s%s%s", hp_text_safe(r->c->name, nm, sizeof nm),
		!r->c->present[0] ? "  [new]" : !r->c->present[1] ? "  [gone]" : "", nz);
}

/* when the columns are shown: with retained sizes (not --fast) */
enum { DF_RETAINED = 1 };

#define DR_(f) offsetof(struct drow, f)
static const struct cli_col class_cols[] = {
	{ .title = "retained", .width = 11, .cell = CELL_DBYTES, .when = DF_RETAINED, .off = DR_(d_ret) },
	{ .title = "shallow", .width = 11, .cell = CELL_DBYTES, .off = DR_(d_shallow) },
	{ .title = "instances", .width = 11, .cell = CELL_DCOUNT, .off = DR_(d_inst) },
	{ .title = "instances base \xe2\x86\x92 new", .width = 27, .cell = CELL_FN, .fn = instances_cell },
	{ .title = "class", .cell = CELL_FN, .put = class_put },
};

/* a kind of GC root in both dumps */
struct rootrow {
	int64_t d_records, d_retained;
	struct pair records;
	const char *kind;
};

static void records_cell(const struct cli_table *tb, const void *row, char *buf, size_t n)
{
	(void)tb;
	pair_text(&((const struct rootrow *)row)->records, buf, n);
}

#define RR_(f) offsetof(struct rootrow, f)
static const struct cli_col root_cols[] = {
	{ .title = "roots", .width = 11, .cell = CELL_DCOUNT, .off = RR_(d_records) },
	{ .title = "base \xe2\x86\x92 new", .width = 19, .cell = CELL_FN, .fn = records_cell },
	{ .title = "retained", .width = 11, .cell = CELL_DBYTES, .when = DF_RETAINED, .off = RR_(d_retained) },
	{ .title = "kind", .cell = CELL_TEXT, .off = RR_(kind) },
};

/* an Android heap in either dump */
struct heaprow {
	int64_t d_objects, d_shallow;
	const char *name;
};

#define HR_(f) offsetof(struct heaprow, f)
static const struct cli_col heap_cols[] = {
	{ .title = "objects", .width = 11, .cell = CELL_DCOUNT, .off = HR_(d_objects) },
	{ .title = "shallow", .width = 11, .cell = CELL_DBYTES, .off = HR_(d_shallow) },
	{ .title = "heap", .cell = CELL_TEXT, .off = HR_(name), .cap = 4200 },
};

/* a growth point: its retained delta, its objects (not for the part its
 * children do not explain), its path */
static void nodes_cell(const struct cli_table *tb, const void *row, char *buf, size_t n)
{
	(void)tb;
	const struct hp_growth *g = row;
	if (g->own)
		buf[0] = '\0';
	else
		cli_fmt_dcount(g->nodes, buf, n);
}

static void path_put(const struct cli_table *tb, const void *row, FILE *f)
{
	const struct diff_state *d = tb->ctx;
	const struct hp_growth *g = row;
	char nm[4200];
	fprintf(f, "%s%s%s", cli_fmt_path(&d->cmp, g->path, nm, sizeof nm), g->own ? "  (its own size)" : "",
		cli_cmp_path_normalised(&d->cmp, g->path) ? "  [normalised]" : "");
}

#define GW_(f) offsetof(struct hp_growth, f)
static const struct cli_col growth_cols[] = {
	{ .title = "retained", .width = 11, .cell = CELL_DBYTES, .off = GW_(bytes) },
	{ .title = "objects", .width = 11, .cell = CELL_FN, .fn = nodes_cell },
	{ .title = "path", .cell = CELL_FN, .put = path_put },
};

/* a class whose objects new holds by id that base did not */
static void id_class_put(const struct cli_table *tb, const void *row, FILE *f)
{
	const struct diff_state *d = tb->ctx;
	char nm[4200];
	fputs(hp_text_safe(hp_class_name(d->hb, ((const struct idrow *)row)->cls), nm, sizeof nm), f);
}

#define ID_(f) offsetof(struct idrow, f)
static const struct cli_col id_cols[] = {
	{ .title = "new", .width = 11, .cell = CELL_COUNT, .off = ID_(count) },
	{ .title = "shallow", .width = 11, .cell = CELL_BYTES, .off = ID_(bytes) },
	{ .title = "class (objects new by id)", .cell = CELL_FN, .put = id_class_put },
};

static int text_out(struct diff_state *d)
{
	struct cli_ctx *x = d->x;
	int R = !d->o->fast;
	struct cli_out out;
	FILE *f = cli_text_begin(&out);
	if (!f)
		return EXIT_NOMEM;
	char a[32], b[32], c[32], e[32], g[32], nm[4200];
	for (int i = 0; i < 2; i++) {
		const struct hp_dsum *s = &d->sum[i];
		if (d->partial[i][0])
			fprintf(f, "warning: partial result: %s\n", d->partial[i]);
		fprintf(f, "%-5s %s: %s objects, %s", i ? "new" : "base", hp_text_safe(x->files[i], nm, sizeof nm),
			cli_fmt_count(s->objects, a, sizeof a), cli_fmt_bytes(s->shallow, b, sizeof b));
		if (R)
			fprintf(f, " (reachable %s)", cli_fmt_bytes(s->reachable_bytes, c, sizeof c));
		fputc('\n', f);
	}
	char mw[200], mf[200];
	fprintf(f, "compared under: %s (%s)\n", cli_series_words(&d->sm, mw, sizeof mw),
		cli_series_from(&d->sm, "base", mf, sizeof mf));
	if (d->own[1].differs)
		fprintf(f, "  new's own: %s%s\n", cli_dumpmodel_words(&d->own[1], mw, sizeof mw),
			d->own[1].reread ? " (read again under base's)" : "");
	const struct hp_dsum *s0 = &d->sum[0], *s1 = &d->sum[1];
	fprintf(f, "change: %s objects, %s shallow", cli_fmt_dcount((int64_t)(s1->objects - s0->objects), a, sizeof a),
		cli_fmt_dbytes((int64_t)(s1->shallow - s0->shallow), b, sizeof b));
	if (R)
		fprintf(f, ", %s reachable, %s unreachable",
			cli_fmt_dbytes((int64_t)(s1->reachable_bytes - s0->reachable_bytes), c, sizeof c),
			cli_fmt_dbytes((int64_t)(s1->unreachable_bytes - s0->unreachable_bytes), e, sizeof e));
	fputc('\n', f);
	cli_text_normalised(f, &d->cmp, 0, 1, "base", "new");

	/* classes, or groups */
	static const char *const plural[] = { "packages", "class loaders", "components", "packages" };
	const char *what = d->grp.by >= 0 ? plural[d->grp.by] : "classes";
	fprintf(f, "\n%s by %s change (%s changed, %s new, %s gone%s):\n", what, R ? "retained" : "shallow",
		cli_fmt_count(d->nchanged, a, sizeof a), cli_fmt_count(d->nnew, b, sizeof b), cli_fmt_count(d->ngone, c, sizeof c),
		shown(d, d->nrows) < d->nrows ? "; top rows shown" : "");
	struct cli_table tb;
	CLI_TABLE_INIT(&tb, class_cols, R ? DF_RETAINED : 0, 0, d);
	if (d->grp.by >= 0)
		cli_table_set_title(&tb, "class", d->grp.kind);
	cli_table_header(&tb, f);
	for (size_t i = 0; i < shown(d, d->nrows); i++)
		cli_table_row(&tb, f, &d->rows[i], i + 1);
	if (!d->nrows)
		fprintf(f, "  (no %s changed)\n", d->grp.by >= 0 ? d->grp.kind : "class");

	/* GC roots, heaps */
	fprintf(f, "\nGC roots by kind:\n");
	struct cli_table rt;
	CLI_TABLE_INIT(&rt, root_cols, R ? DF_RETAINED : 0, 0, d);
	cli_table_header(&rt, f);
	for (int k = 0; k < HP_ROOT_NKINDS; k++) {
		const struct hp_dsum_root *ra = &s0->roots[k], *rb = &s1->roots[k];
		if (!ra->records && !rb->records && !ra->objects && !rb->objects)
			continue;
		struct rootrow w = { .d_records = (int64_t)(rb->records - ra->records),
				     .d_retained = (int64_t)(rb->retained - ra->retained),
				     .records = { ra->records, rb->records }, .kind = hp_root_kind_name(k) };
		cli_table_row(&rt, f, &w, 0);
	}
	if (s0->android || s1->android) {
		struct cli_table ht;
		CLI_TABLE_INIT(&ht, heap_cols, 0, 0, d);
		fprintf(f, "\nAndroid heaps:\n");
		cli_table_header(&ht, f);
		for (int side = 0; side < 2; side++)
			for (unsigned i = 0; i < d->sum[side].nheaps; i++) {
				const struct hp_dsum_heap *H = &d->sum[side].heaps[i], *o = NULL;
				for (unsigned k = 0; k < d->sum[!side].nheaps; k++)
					if (!strcmp(d->sum[!side].heaps[k].name, H->name))
						o = &d->sum[!side].heaps[k];
				if (side == 1 && o)
					continue;
				int64_t dob = (int64_t)H->objects - (int64_t)(o ? o->objects : 0);
				int64_t dsh = (int64_t)H->shallow - (int64_t)(o ? o->shallow : 0);
				if (!side) {
					dob = -dob;
					dsh = -dsh;
				}
				struct heaprow w = { dob, dsh, H->name[0] ? H->name : "(default)" };
				cli_table_row(&ht, f, &w, 0);
			}
	}

	/* holders */
	if (R) {
		static const char *const titles[3] = {
			"who holds the growth (dominator paths matched by structure)",
			"new (no match in base)",
			"shrunk or gone"
		};
		for (int list = 0; list < 3; list++) {
			size_t cnt = 0, total = 0;
			for (size_t i = 0; i < d->ng; i++)
				total += list_of(d, &d->g[i]) == list;
			fprintf(f, "\n%s:%s\n", titles[list], total > shown(d, total) ? " (top rows shown)" : "");
			struct cli_table gt;
			CLI_TABLE_INIT(&gt, growth_cols, 0, 0, d);
			if (total)
				cli_table_header(&gt, f);
			for (size_t ii = 0; ii < d->ng; ii++) {
				size_t i = list == 2 ? d->ng - 1 - ii : ii;
				const struct hp_growth *gp = &d->g[i];
				if (list_of(d, gp) != list || cnt >= shown(d, total))
					continue;
				cnt++;
				cli_table_row(&gt, f, gp, cnt);
			}
			if (!total)
				fprintf(f, "  (none)\n");
		}
	}
	if (d->ids_done) {
		if (d->ids_used) {
			fprintf(f, "\nobject ids: %s of base's %s objects kept their id and class in new (one process, "
				"and they did not move): matched by id as well: %s new objects (%s), %s gone (%s)\n",
				cli_fmt_count(d->ids.kept, a, sizeof a), cli_fmt_count(d->ids.kept + d->ids.gone_objects, b, sizeof b),
				cli_fmt_count(d->ids.new_objects, c, sizeof c), cli_fmt_bytes(d->ids.new_bytes, e, sizeof e),
				cli_fmt_count(d->ids.gone_objects, g, sizeof g), cli_fmt_bytes(d->ids.gone_bytes, nm, sizeof nm));
			size_t n;
			struct idrow *r = id_rows(d, &n);
			if (!r) {
				cli_text_end(x, &out, EXIT_NOMEM);
				cli_error("out of memory");
				return EXIT_NOMEM;
			}
			struct cli_table it;
			CLI_TABLE_INIT(&it, id_cols, 0, 0, d);
			if (n)
				cli_table_header(&it, f);
			for (size_t i = 0; i < shown(d, n); i++)
				cli_table_row(&it, f, &r[i], i + 1);
			hp_free(r);
		} else {
			fprintf(f, "\nobject ids: %s of base's objects kept their id and class in new: not matched by id "
				"(the objects moved: another process, or a GC between)\n", cli_fmt_count(d->ids.kept, a, sizeof a));
		}
	}
	return cli_text_end(x, &out, EXIT_OK);
}

static int run(struct cli_ctx *x)
{
	struct diff_state d;
	memset(&d, 0, sizeof d);
	d.x = x;
	d.o = x->own;
	int rc = collect(&d);
	if (!rc)
		rc = x->c->json ? json_out(&d) : text_out(&d);
	if (!rc && x->c->stats) {
		cli_print_stats(x, d.S[1]);
		fprintf(stderr, "diff: base %.3fs, new %.3fs (each read and summarised), compare %.3fs\n",
			d.t_sum[0], d.t_sum[1], d.t_cmp);
	}
	release(&d);
	return rc;
}

CLI_COMMAND(diff, "hprofan diff BASE NEW", "what grew between two dumps, and who holds it",
	    CLI_FILES(2, 2), CLI_OWN(struct diff_opts, defaults), .run = run,
	    CLI_TABLES(own, cli_opts_filter, cli_opts_model, cli_opts_policy, cli_opts_load, cli_opts_output, cli_opts_quiet),
	    .rules = cli_series_rules);
