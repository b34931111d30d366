/* hprofan leaks FILE: leak suspects (MAT), zombie objects and their leak
 * traces (LeakCanary), and what fixing them frees (analysis/leaks.h). */
#include "cli/command.h"
#include "cli/msg.h"
#include "cli/format.h"
#include "cli/load.h"
#include "cli/output.h"
#include "cli/objtext.h"
#include "cli/filter.h"
#include "cli/oom.h"
#include "analysis/leaks.h"
#include "base/text.h"
#include "base/alloc.h"
#include "base/nearest.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RULES 256          /* --zombie and --zombie-rules together */
#define LIST_IN_TEXT 10        /* the other zombies of a leak the table names */

struct rule_args { const char *v[MAX_RULES]; int n; };

struct leaks_opts {
	double threshold, big_drop;
	struct rule_args zombie;
	const char *rules_file;
	int fail_on_leak;
	int found;                 /* set by collect: a zombie was found */
};

static void defaults(void *own)
{
	struct leaks_opts *o = own;
	o->threshold = 10;
	o->big_drop = 0.7;
}

/* val as a number above 0, at most max, into *dst: 0, else -1 (dst untouched) */
static int parse_share(const char *val, double max, double *dst)
{
	char *end;
	errno = 0;
	double v = strtod(val, &end);
	if (errno || end == val || *end || !(v > 0 && v <= max))
		return -1;
	*dst = v;
	return 0;
}

static int set_threshold(const struct cli_option *o, const char *as, const char *val, void *dst)
{
	if (parse_share(val, 100, dst))
		return cli_usage_error(NULL, "%s needs a percentage above 0, at most 100", as);
	return EXIT_OK;
}

static int set_big_drop(const struct cli_option *o, const char *as, const char *val, void *dst)
{
	if (parse_share(val, 1, dst))
		return cli_usage_error(NULL, "%s needs a ratio above 0, at most 1 (MAT's is 0.7)", as);
	return EXIT_OK;
}

static int set_zombie(const struct cli_option *o, const char *as, const char *val, void *dst)
{
	struct rule_args *a = dst;
	struct hp_leak_rule r;
	struct hp_error err;
	hp_error_clear(&err);
	int rc = hp_leak_rule_parse(val, &r, &err);
	hp_leak_rule_release(&r);
	if (rc == HP_ENOMEM) {
		cli_error("out of memory");
		return EXIT_NOMEM;
	}
	if (rc)
		return cli_usage_error(NULL, "%s: %s (VALUE: true, false, null, !null, a number or a string)", as, err.msg);
	if (a->n == MAX_RULES)
		return cli_usage_error(NULL, "%s: at most %d rules", as, MAX_RULES);
	a->v[a->n++] = val;
	return EXIT_OK;
}

static const struct cli_option own[] = {
	OPT_CALLBACK("--threshold", "PCT", set_threshold,
		     "a suspect retains at least PCT% of the reachable heap (default 10)", "needs a percentage", OPT_OWN(struct leaks_opts, threshold)),
	OPT_CALLBACK("--big-drop", "F", set_big_drop,
		     "walk down to the largest child while it keeps F of its parent\n(default 0.7)", "needs a ratio (0.7)", OPT_OWN(struct leaks_opts, big_drop)),
	OPT_CALLBACK_F("--zombie", "RULE", set_zombie,
		       "CLASS:FIELD=VALUE marks a zombie (repeatable; VALUE true,\nfalse, null, !null, a number or a string)",
		       "needs a rule CLASS:FIELD=VALUE", NULL, OPTF_REPEAT, OPT_OWN(struct leaks_opts, zombie)),
	OPT_FILENAME("--zombie-rules", "FILE",
		     "read rules from FILE, one a line (# starts a comment)", "needs a file name", OPT_OWN(struct leaks_opts, rules_file)),
	OPT_BOOL("--fail-on-leak", "exit 5 when a zombie is found (for CI gates)", OPT_OWN(struct leaks_opts, fail_on_leak)),
	OPT_END
};

struct leaks_result {
	const hp_heap *h;
	const struct hp_retained *R;
	hp_objread *rd;
	struct hp_leak_rule *rules;
	size_t nrules;
	unsigned *line;            /* per rule: its line in --zombie-rules, 0 for a --zombie */
	char *file_text;           /* --zombie-rules: the file (rules point into copies) */
	int have;
	struct hp_leaks L;
	struct cli_oom oom;        /* a dump written at an OutOfMemoryError: who hit it */
};

static void release(void *p)
{
	struct leaks_result *r = p;
	if (!r)
		return;
	if (r->have)
		hp_leaks_release(&r->L);
	cli_oom_release(&r->oom);
	for (size_t i = 0; i < r->nrules; i++)
		hp_leak_rule_release(&r->rules[i]);
	hp_free_all(r->rules, r->line, r->file_text, r);
}

/* --zombie-rules FILE: one rule a line, blank lines and # comments skipped */
static int read_rules_file(const char *path, struct leaks_result *r)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		cli_error("%s: %s", path, strerror(errno));
		return EXIT_BAD;
	}
	char line[4096];
	unsigned lineno = 0;
	int rc = EXIT_OK;
	while (rc == EXIT_OK && fgets(line, sizeof line, f)) {
		lineno++;
		size_t len = strlen(line);
		if (len == sizeof line - 1 && line[len - 1] != '\n') {
			rc = cli_usage_error(NULL, "%s:%u: line longer than %zu bytes", path, lineno, sizeof line - 2);
			break;
		}
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		const char *p = line;
		while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
			p++;
		if (!*p)
			continue;
		if (r->nrules >= MAX_RULES) {
			rc = cli_usage_error(NULL, "%s:%u: at most %d rules", path, lineno, MAX_RULES);
			break;
		}
		struct hp_error err;
		hp_error_clear(&err);
		int prc = hp_leak_rule_parse(p, &r->rules[r->nrules], &err);
		if (prc == HP_ENOMEM) {
			cli_error("out of memory");
			rc = EXIT_NOMEM;
		} else if (prc) {
			rc = cli_usage_error(NULL, "%s:%u: %s", path, lineno, err.msg);
		} else {
			r->line[r->nrules++] = lineno;
		}
	}
	if (rc == EXIT_OK && ferror(f)) {
		cli_error("%s: %s", path, strerror(errno));
		rc = EXIT_BAD;
	}
	fclose(f);
	return rc;
}

static const char *type_values(int type)
{
	switch (type) {
	case HP_T_BOOLEAN: return "true or false";
	case HP_T_OBJECT: return "null, !null or a string";
	default: return "a number";
	}
}

/* A rule that can match no object of the dump is a usage error, with the
 * names nearest to what it says: a typo must not pass a CI gate as "0
 * zombies".  A --zombie argument whose CLASS$Inner lost its $Inner (the
 * shell's expansion of an unquoted variable) says so. */
static int check_rule(const char *file, const hp_heap *h, const struct hp_leak_rule *r, const char *rules_file,
		      unsigned line)
{
	struct hp_leak_rule_fault f;
	if (hp_leak_rule_check(h, r, &f) != HP_OK) {
		cli_error("out of memory");
		return EXIT_NOMEM;
	}
	if (f.kind == HP_LRF_OK)
		return EXIT_OK;
	char where[1100], cls[300], fld[200], val[200], near[1024], in[300], lack[800];
	hp_text_safe(r->cls, cls, sizeof cls);
	hp_text_safe(r->field, fld, sizeof fld);
	hp_text_safe(r->value, val, sizeof val);
	if (line)
		snprintf(where, sizeof where, "%.300s:%u: %s:%s=%s", rules_file, line, cls, fld, val);
	else
		snprintf(where, sizeof where, "--zombie %s:%s=%s", cls, fld, val);
	if (f.kind == HP_LRF_TYPE)
		return cli_usage_error(NULL, "%s: %s: %s#%s is %s %s: the value must be %s", file, where, cls, fld,
				       f.type == HP_T_OBJECT || f.type == HP_T_INT ? "an" : "a",
				       f.type == HP_T_OBJECT ? "reference" : hp_type_name(f.type), type_values(f.type));
	if (f.kind == HP_LRF_NO_FIELD)
		snprintf(lack, sizeof lack, "%s has no field %s (nor do its super classes or subclasses)", cls, fld);
	else
		snprintf(lack, sizeof lack, "no class %s in the dump", cls);
	if (f.inner != HP_NONE) {
		hp_text_safe(hp_class_name(h, f.inner), in, sizeof in);
		if (!line)
			return cli_usage_error(NULL, "%s: %s: %s, but %s %s: did the shell expand an unquoted $%s to "
					       "nothing? Quote the rule: --zombie '%s:%s=%s'", file, where, lack, in,
					       f.kind == HP_LRF_NO_FIELD ? "has it" : "is", in + strlen(cls) + 1, in, fld, val);
		return cli_usage_error(NULL, "%s: %s: %s; did you mean %s?", file, where, lack, in);
	}
	size_t k = 0;
	if (f.kind == HP_LRF_NO_FIELD) {
		char raw[1024];
		if ((k = hp_near_join(&f.fields, '\'', 1, raw, sizeof raw)))
			hp_text_safe(raw, near, sizeof near);
	} else {
		k = cli_nearest_classes(h, r->cls, near, sizeof near);
	}
	if (k)
		return cli_usage_error(NULL, "%s: %s: %s; did you mean %s?", file, where, lack, near);
	return cli_usage_error(NULL, "%s: %s: %s", file, where, lack);
}

static int collect(struct cli_ctx *x, hp_session *S, void **res)
{
	struct leaks_opts *o = x->own;
	struct leaks_result *r = hp_calloc(1, sizeof *r);
	if (!r || !(r->rules = hp_calloc(MAX_RULES, sizeof *r->rules)) ||
	    !(r->line = hp_calloc(MAX_RULES, sizeof *r->line))) {
		if (r)
			hp_free(r->rules);
		hp_free(r);
		cli_error("out of memory");
		return EXIT_NOMEM;
	}
	*res = r;
	int rc;
	for (int i = 0; i < o->zombie.n; i++) {
		struct hp_error err;
		hp_error_clear(&err);
		if (hp_leak_rule_parse(o->zombie.v[i], &r->rules[r->nrules], &err)) {
			cli_error("%s", err.msg);
			return EXIT_NOMEM;
		}
		r->nrules++;
	}
	if (o->rules_file && (rc = read_rules_file(o->rules_file, r)))
		return rc;
	if ((rc = cli_refuse_pipe(S, "leaks reads", "save it to a file")))
		return rc;
	if (r->nrules) {
		const hp_heap *h;
		if ((rc = cli_model(S, &h)))
			return rc;
		for (size_t i = 0; i < r->nrules; i++)
			if ((rc = check_rule(hp_session_path(S), h, &r->rules[i], o->rules_file, r->line[i])))
				return rc;
	}
	if ((rc = cli_retained(S, &r->h, &r->R)) || (rc = cli_objread(S, &r->rd)) ||
	    (rc = cli_oom_collect(S, &r->oom)))
		return rc;
	struct hp_leaks_opts lo;
	hp_leaks_opts_init(&lo);
	lo.threshold = o->threshold;
	lo.big_drop = o->big_drop;
	lo.rules = r->rules;
	lo.nrules = r->nrules;
	lo.path_head = cli_path_head(x);
	lo.path_tail = cli_path_tail(x);
	struct hp_error err;
	hp_error_clear(&err);
	int hr = hp_leaks_find(r->h, r->R, r->rd, &lo, &r->L, &err);
	if (hr) {
		char msg[1024];
		cli_format_error(hp_session_path(S), &err, msg, sizeof msg);
		cli_error("%s", msg);
		return cli_exit_code(hr);
	}
	r->have = 1;
	o->found = r->L.nzombies > 0 || r->L.nested > 0;
	return EXIT_OK;
}

/* ---- pieces ----------------------------------------------------------------- */

/* terminal columns of UTF-8 text (one per code point) */
static size_t columns(const char *s, size_t bytes)
{
	size_t c = 0;
	for (size_t i = 0; i < bytes && s[i]; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			c++;
	return c;
}

/* reasons "A\x1fB" as "A and B" */
static void reasons_text(const char *r, char *buf, size_t n)
{
	char tmp[HP_LEAK_REASON * 2];
	size_t o = 0;
	for (const char *p = r; *p && o + 6 < sizeof tmp; p++) {
		if (*p == HP_LEAK_SEP) {
			memcpy(tmp + o, " and ", 5);
			o += 5;
		} else {
			tmp[o++] = *p;
		}
	}
	tmp[o] = '\0';
	hp_text_safe(tmp, buf, n);
}

static cJSON *reasons_json(const char *r)
{
	cJSON *a = cJSON_CreateArray();
	const char *p = r;
	while (*p) {
		const char *e = strchr(p, HP_LEAK_SEP);
		size_t len = e ? (size_t)(e - p) : strlen(p);
		char one[HP_LEAK_REASON];
		snprintf(one, sizeof one, "%.*s", (int)len, p);
		cJSON_AddItemToArray(a, cJSON_CreateString(one));
		p += len;
		if (*p)
			p++;
	}
	return a;
}

static const char *status_key(int s)
{
	return s == HP_LEAK_YES ? "leaking" : s == HP_LEAK_NO ? "not_leaking" : "unknown";
}

/* a trace drawn as LeakCanary draws it; statuses when `statuses`; a cut
 * one with a line for the steps it leaves out */
static void text_trace(FILE *f, const struct leaks_result *r, const struct hp_leak_trace *t, int statuses)
{
	const hp_heap *h = r->h;
	char lab[800], rt[800], ref[700], rs[HP_LEAK_REASON * 3], a[32];
	const struct hp_path_gap *g = &t->gap;
	if (!t->n) {
		fprintf(f, "  (no path from a GC root without soft, weak, final or phantom referents)\n");
		return;
	}
	fprintf(f, "  \xe2\x94\xac\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\n");
	fprintf(f, "  \xe2\x94\x82 GC root: %s\n", cli_root_text(h, r->rd, t->steps[0].obj, rt, sizeof rt));
	fprintf(f, "  \xe2\x94\x82\n");
	for (size_t i = 0; i < t->n; i++) {
		const struct hp_leak_step *s = &t->steps[i];
		int last = i + 1 == t->n;
		const char *bar = last ? " " : "\xe2\x94\x82";
		if (i > 0) {
			/* the reference to this step from the one above it (past a gap, from the gap's last) */
			size_t at = 0;
			if (g->n && i == g->at) {
				fprintf(f, "  \xe2\x94\x82    %s", cli_gap_text(g, 1, ref, sizeof ref));
				if (statuses && t->cut_left_out)
					fprintf(f, "; %s of their references to cut", cli_fmt_count(t->cut_left_out, a, sizeof a));
				fputc('\n', f);
			}
			cli_ref_text(h, g->n && i == g->at ? g->last : t->steps[i - 1].obj, &s->ref, ref, sizeof ref, &at);
			fprintf(f, "  \xe2\x94\x82    \xe2\x86\x93 %s\n", ref);
			if (statuses && s->cut) {
				size_t pad = columns(ref, at), len = columns(ref + at, strlen(ref + at));
				fprintf(f, "  \xe2\x94\x82      %*s", (int)pad, "");
				for (size_t k = 0; k < len; k++)
					fputc('~', f);
				fputc('\n', f);
			}
		}
		cli_object_label(h, s->obj, lab, sizeof lab);
		fprintf(f, "  %s %s\n", last ? "\xe2\x95\xb0\xe2\x86\x92" : "\xe2\x94\x9c\xe2\x94\x80", lab);
		if (statuses) {
			if (s->reason[0]) {
				reasons_text(s->reason, rs, sizeof rs);
				fprintf(f, "  %s    %s (%s)\n", bar, hp_leak_status_name(s->status), rs);
			} else {
				fprintf(f, "  %s    %s\n", bar, hp_leak_status_name(s->status));
			}
		}
		if (last)
			fprintf(f, "       retained %s\n", cli_fmt_bytes(r->R->retained[s->obj], a, sizeof a));
	}
}

/* a trace's steps; what a cut one leaves out as PREFIX "elided" and
 * "elided_at" (with statuses also "elided_cut") into o */
static cJSON *json_trace(const struct leaks_result *r, const struct hp_leak_trace *t, int statuses, cJSON *o,
			 const char *prefix)
{
	const hp_heap *h = r->h;
	cJSON *arr = cJSON_CreateArray();
	for (size_t i = 0; i < t->n; i++) {
		const struct hp_leak_step *s = &t->steps[i];
		cJSON *e = cli_object_json(h, s->obj);
		cli_json_u64(e, "shallow", hp_retained_shallow(r->R, s->obj));
		cli_json_u64(e, "retained", r->R->retained[s->obj]);
		if (i == 0)
			cli_root_json(e, h, r->rd, s->obj);
		else
			cJSON_AddItemToObject(e, "via", cli_via_json(h, &s->ref));
		if (statuses) {
			cJSON_AddStringToObject(e, "status", status_key(s->status));
			cJSON_AddItemToObject(e, "reasons", reasons_json(s->reason));
			if (i > 0)
				cJSON_AddBoolToObject(e, "cut", s->cut);
		}
		cJSON_AddItemToArray(arr, e);
	}
	cli_gap_json(o, prefix, &t->gap);
	if (statuses && t->gap.n) {
		char key[64];
		snprintf(key, sizeof key, "%selided_cut", prefix);
		cli_json_u64(o, key, t->cut_left_out);
	}
	return arr;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

/* ---- ThreadLocal suspects -------------------------------------------------------- */

#define TL_THREADS_IN_TEXT 8   /* the threads a ThreadLocal suspect's text names */

static const struct hp_tl_key *tl_key(const struct leaks_result *r, const struct hp_leak_tl *T)
{
	return &r->L.tl.keys[T->key];
}

static int folded(const struct hp_leaks *L, size_t i)
{
	return L->suspect_tl && L->suspect_tl[i] != HP_NONE;
}

/* the threads of a ThreadLocal suspect: each entry of its key with a value */
static cJSON *tl_threads_json(const struct leaks_result *r, const struct hp_leak_tl *T)
{
	const hp_heap *h = r->h;
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < r->L.tl.n; i++) {
		const struct hp_tl_entry *E = &r->L.tl.e[i];
		if (E->key != T->key || E->value == HP_NONE)
			continue;
		cJSON *e = cJSON_CreateObject();
		cli_json_u64(e, "serial", h->threads[E->thread].serial);
		struct hp_text nm;
		if (cli_thread_text(h, r->rd, h->threads[E->thread].serial, &nm) && nm.utf8)
			cJSON_AddItemToObject(e, "name", cli_text_json(&nm));
		hp_objread_text_release(&nm);
		cJSON *v = cli_object_json(h, E->value);
		cli_json_u64(v, "retained", E->retained);
		cJSON_AddBoolToObject(v, "owned", E->owned);
		cJSON_AddItemToObject(e, "value", v);
		cJSON_AddItemToArray(a, e);
	}
	return a;
}

static cJSON *tl_suspects_json(const struct leaks_result *r)
{
	const hp_heap *h = r->h;
	const struct hp_leaks *L = &r->L;
	cJSON *arr = cJSON_CreateArray();
	for (size_t t = 0; t < L->ntls; t++) {
		const struct hp_leak_tl *T = &L->tls[t];
		const struct hp_tl_key *K = tl_key(r, T);
		cJSON *e = cJSON_CreateObject();
		cli_tl_key_json(e, h, K);
		cJSON_AddBoolToObject(e, "stale", K->tl == HP_NONE);
		cli_json_u64(e, "thread_count", K->threads);
		cli_json_u64(e, "values", K->values);
		cli_json_u64(e, "retained", K->retained);
		cli_json_u64(e, "owned_retained", K->owned);
		cJSON_AddNumberToObject(e, "percent", floor(pct(K->retained, L->heap) * 100) / 100);
		cJSON_AddItemToObject(e, "threads", tl_threads_json(r, T));
		cli_json_u64(e, "folded_suspects", T->folded);
		if (T->folded && T->acc_cls != HP_NONE) {
			cJSON *ac = cJSON_AddObjectToObject(e, "accumulated");
			cJSON_AddStringToObject(ac, "class", hp_class_name(h, T->acc_cls));
			cli_json_u64(ac, "count", T->acc_count);
			cli_json_u64(ac, "retained", T->acc_bytes);
		} else {
			cJSON_AddNullToObject(e, "accumulated");
		}
		cJSON_AddItemToObject(e, "trace", json_trace(r, &T->trace, 0, e, "trace_"));
		cJSON_AddItemToArray(arr, e);
	}
	return arr;
}

static void tl_suspect_text(FILE *f, const struct leaks_result *r, const struct hp_leak_tl *T, size_t num)
{
	const hp_heap *h = r->h;
	const struct hp_leaks *L = &r->L;
	const struct hp_tl_key *K = tl_key(r, T);
	char a[32], c[32], lab[800], nm[600];
	fprintf(f, "\nsuspect %zu: ", num);
	if (K->tl == HP_NONE)
		fprintf(f, "stale ThreadLocal entries (their ThreadLocals were collected)");
	else if (K->holder != HP_NONE)
		fprintf(f, "ThreadLocal %s (%s)", hp_text_safe(K->name, nm, sizeof nm), cli_object_label(h, K->tl, lab, sizeof lab));
	else
		fprintf(f, "ThreadLocal %s", cli_object_label(h, K->tl, lab, sizeof lab));
	fprintf(f, ": its values in %s retain %s (%.1f%%)\n", cli_fmt_counted(K->threads, "thread", "threads", c, sizeof c),
		cli_fmt_bytes(K->retained, a, sizeof a), pct(K->retained, L->heap));
	fprintf(f, "  threads:");
	size_t shown = 0, more = 0;
	for (size_t i = 0; i < L->tl.n; i++) {
		const struct hp_tl_entry *E = &L->tl.e[i];
		if (E->key != T->key || E->value == HP_NONE)
			continue;
		if (shown == TL_THREADS_IN_TEXT) {
			more++;
			continue;
		}
		struct hp_text tn;
		char *q = NULL;
		if (cli_thread_text(h, r->rd, h->threads[E->thread].serial, &tn) && tn.utf8)
			q = cli_quote_text(&tn);
		hp_objread_text_release(&tn);
		if (q)
			fprintf(f, "%s %s %s", shown ? "," : "", q, cli_fmt_bytes(E->retained, a, sizeof a));
		else
			fprintf(f, "%s serial %u %s", shown ? "," : "", h->threads[E->thread].serial, cli_fmt_bytes(E->retained, a, sizeof a));
		hp_free(q);
		shown++;
	}
	if (more)
		fprintf(f, " and %zu more (--json lists all)", more);
	fputc('\n', f);
	if (T->largest != HP_NONE)
		fprintf(f, "  largest value: %s (%s)\n", cli_object_label(h, T->largest, lab, sizeof lab),
			cli_fmt_bytes(r->R->retained[T->largest], a, sizeof a));
	if (T->folded && T->acc_cls != HP_NONE)
		fprintf(f, "  accumulated: %s \xc3\x97 %s, %s\n", cli_fmt_count(T->acc_count, c, sizeof c),
			hp_text_safe(hp_class_name(h, T->acc_cls), nm, sizeof nm), cli_fmt_bytes(T->acc_bytes, a, sizeof a));
	if (T->folded)
		fprintf(f, "  (%s of its threads, one suspect each otherwise, folded into this one)\n",
			cli_fmt_counted(T->folded, "suspect", "suspects", c, sizeof c));
	fprintf(f, "  shortest path from a GC root to the largest value:\n");
	text_trace(f, r, &T->trace, 0);
}

/* ---- JSON ----------------------------------------------------------------------- */

/* what a suspect holds: its collection, its retained set by class, what
 * its lambdas and inner classes capture */
static void json_content(const hp_heap *h, const struct hp_leak_suspect *s, cJSON *e)
{
	if (s->coll != HP_NONE) {
		cJSON *c = cli_object_json(h, s->coll);
		cJSON_AddStringToObject(c, "collection", s->coll_family);
		cJSON_AddBoolToObject(c, "map", s->coll_map);
		if (s->coll_known) {
			cli_json_u64(c, "size", s->coll_size);
		} else {
			cJSON_AddNullToObject(c, "size");
			cJSON_AddStringToObject(c, "size_unknown", s->coll_why ? s->coll_why : "");
		}
		cJSON_AddItemToObject(e, "collection", c);
	} else {
		cJSON_AddNullToObject(e, "collection");
	}
	cJSON *bc = cJSON_AddObjectToObject(e, "accumulated_by_class");
	cli_json_u64(bc, "objects", s->set_objects);
	cli_json_u64(bc, "shallow", s->set_bytes);
	cli_json_u64(bc, "classes", s->set_classes);
	cJSON *rows = cJSON_AddArrayToObject(bc, "rows");
	for (size_t i = 0; i < s->nby_class; i++) {
		const struct hp_leak_class_count *k = &s->by_class[i];
		cJSON *row = cJSON_CreateObject();
		cJSON_AddStringToObject(row, "class", hp_class_name(h, k->cls));
		cli_json_u64(row, "count", k->count);
		cli_json_u64(row, "shallow", k->shallow);
		cli_json_u64(row, "retained", k->retained);
		cJSON_AddItemToArray(rows, row);
	}
	cJSON *ca = cJSON_AddArrayToObject(e, "captured");
	for (size_t i = 0; i < s->ncaptures; i++) {
		const struct hp_leak_capture *k = &s->captures[i];
		cJSON *row = cJSON_CreateObject();
		cJSON_AddStringToObject(row, "class", hp_class_name(h, k->target));
		cli_json_u64(row, "count", k->count);
		cJSON_AddStringToObject(row, "holder", hp_class_name(h, k->holder));
		cJSON_AddStringToObject(row, "field", k->field);
		cli_json_u64(row, "references", k->refs);
		cJSON_AddItemToArray(ca, row);
	}
}

static int json(struct cli_ctx *x, hp_session *S, void *res, cJSON **doc)
{
	const struct leaks_opts *o = x->own;
	struct leaks_result *r = res;
	const hp_heap *h = r->h;
	const struct hp_leaks *L = &r->L;
	char hex[32];
	cJSON *j = cli_json_begin_heap(x, S, h, r->R);
	*doc = j;
	cJSON_AddNumberToObject(j, "threshold_percent", o->threshold);
	cJSON_AddNumberToObject(j, "big_drop", o->big_drop);
	cli_json_u64(j, "reachable", L->heap);
	cli_json_u64(j, "threshold_bytes", L->threshold_bytes);
	cli_oom_json(j, &r->oom);
	cJSON *ru = cJSON_AddArrayToObject(j, "zombie_rules");
	for (size_t i = 0; i < r->nrules; i++) {
		char t[2048];
		snprintf(t, sizeof t, "%s:%s=%s", r->rules[i].cls, r->rules[i].field, r->rules[i].value);
		cJSON_AddItemToArray(ru, cJSON_CreateString(t));
	}
	cJSON_AddItemToObject(j, "thread_local_suspects", tl_suspects_json(r));
	cJSON *sa = cJSON_AddArrayToObject(j, "suspects");
	for (size_t i = 0; i < L->nsuspects; i++) {
		const struct hp_leak_suspect *s = &L->suspects[i];
		if (folded(L, i))
			continue;   /* in its ThreadLocal suspect */
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "kind", s->is_class ? "class" : "object");
		cJSON_AddStringToObject(e, "class", hp_class_name(h, s->cls));
		if (!s->is_class)
			cJSON_AddItemToObject(e, "object", cli_object_json(h, s->obj));
		cli_json_u64(e, "count", s->count);
		cli_json_u64(e, "retained", s->retained);
		cJSON_AddNumberToObject(e, "percent", floor(pct(s->retained, L->heap) * 100) / 100);
		if (s->acc != HP_NONE) {
			cJSON *a = cli_object_json(h, s->acc);
			cli_json_u64(a, "retained", s->acc_retained);
			if (!s->is_class)
				cli_json_u64(a, "depth", s->acc_depth);
			cJSON_AddItemToObject(e, "accumulation_point", a);
		} else {
			cJSON_AddNullToObject(e, "accumulation_point");
		}
		cJSON *ac = cJSON_AddObjectToObject(e, "accumulated");
		cJSON_AddStringToObject(ac, "class", s->acc_cls != HP_NONE ? hp_class_name(h, s->acc_cls) : "");
		cli_json_u64(ac, "count", s->acc_count);
		cli_json_u64(ac, "retained", s->acc_bytes);
		json_content(h, s, e);
		if (s->holder != HP_NONE)
			cJSON_AddItemToObject(e, "held_by", cli_object_json(h, s->holder));
		else
			cJSON_AddNullToObject(e, "held_by");
		cJSON_AddItemToObject(e, "trace", json_trace(r, &s->trace, 0, e, "trace_"));
		cJSON_AddItemToArray(sa, e);
	}
	cJSON *za = cJSON_AddArrayToObject(j, "zombies");
	for (size_t i = 0; i < L->nzombies; i++) {
		const struct hp_leak_zombie *z = &L->zombies[i];
		cJSON *e = cli_object_json(h, z->obj);
		cJSON_AddItemToObject(e, "reasons", reasons_json(z->reasons));
		cli_json_u64(e, "retained", z->retained);
		cli_json_u64(e, "leak", z->leak);
		snprintf(hex, sizeof hex, "%016llx", (unsigned long long)z->signature);
		cJSON_AddStringToObject(e, "signature", hex);
		cJSON_AddItemToObject(e, "trace", json_trace(r, &z->trace, 1, e, "trace_"));
		cJSON_AddItemToArray(za, e);
	}
	cJSON *la = cJSON_AddArrayToObject(j, "leaks");
	for (size_t g = 0; g < L->nleaks; g++) {
		const struct hp_leak_group *G = &L->leaks[g];
		const struct hp_leak_zombie *z = &L->zombies[G->first];
		cJSON *e = cJSON_CreateObject();
		snprintf(hex, sizeof hex, "%016llx", (unsigned long long)G->signature);
		cJSON_AddStringToObject(e, "signature", hex);
		cJSON_AddStringToObject(e, "signature_text", z->signature_text ? z->signature_text : "");
		cJSON_AddStringToObject(e, "class", hp_class_name(h, h->cls[z->obj]));
		cli_json_u64(e, "count", G->count);
		cli_json_u64(e, "retained", G->retained);
		cJSON_AddBoolToObject(e, "retained_exact", G->exact);
		if (G->exact)
			cli_json_u64(e, "retained_objects", G->retained_objects);
		cli_json_u64(e, "retained_sum", G->retained_sum);
		cJSON *ids = cJSON_AddArrayToObject(e, "zombies");
		for (size_t k = G->first; k < G->first + G->count; k++) {
			char id[32];
			snprintf(id, sizeof id, "0x%llx", (unsigned long long)hp_heap_id(h, L->zombies[k].obj));
			cJSON_AddItemToArray(ids, cJSON_CreateString(id));
		}
		cJSON_AddItemToArray(la, e);
	}
	cli_json_u64(j, "nested_zombies", L->nested);
	cli_json_u64(j, "not_strongly_reachable_zombies", L->not_strong);
	cJSON *fr = cJSON_AddObjectToObject(j, "freed_by_fixing_all");
	cli_json_u64(fr, "bytes", L->freed);
	cli_json_u64(fr, "objects", L->freed_objects);
	cJSON *ia = cJSON_AddArrayToObject(j, "inspected");
	for (size_t i = 0; i < L->ninspected; i++) {
		const struct hp_leak_inspected *in = &L->inspected[i];
		cJSON *e = cli_object_json(h, in->obj);
		cJSON_AddStringToObject(e, "status", status_key(in->status));
		cJSON_AddBoolToObject(e, "zombie", in->zombie);
		cJSON_AddItemToObject(e, "reasons", reasons_json(in->reason));
		cJSON_AddItemToArray(ia, e);
	}
	return EXIT_OK;
}

/* ---- text ----------------------------------------------------------------------- */

#define CLASSES_IN_TEXT 10     /* rows of a retained set by class */
#define CAPTURES_IN_TEXT 3

/* "collection: java.util.HashMap @0x... with 10,000 entries" */
static void text_collection(FILE *f, const hp_heap *h, const struct hp_leak_suspect *s)
{
	char lab[800], c[32], nm[600];
	if (s->coll == HP_NONE)
		return;
	fprintf(f, "  collection: %s", cli_object_label(h, s->coll, lab, sizeof lab));
	if (strcmp(hp_class_name(h, h->cls[s->coll]), s->coll_family))
		fprintf(f, " (a %s)", hp_text_safe(s->coll_family, nm, sizeof nm));
	if (s->coll_known)
		fprintf(f, " %s %s %s%s\n", s->coll_map ? "with" : "of", cli_fmt_count(s->coll_size, c, sizeof c),
			s->coll_map ? "entr" : "element", s->coll_map ? (s->coll_size == 1 ? "y" : "ies") : (s->coll_size == 1 ? "" : "s"));
	else
		fprintf(f, ", size unknown (%s)\n", s->coll_why ? s->coll_why : "?");
}

/* the retained set by class, and what lambdas and inner classes capture */
static void text_content(FILE *f, const hp_heap *h, const struct hp_leak_suspect *s)
{
	char a[32], b[32], c[32], nm[600], nm2[600];
	if (!s->nby_class)
		return;
	fprintf(f, "  accumulated objects by class (%s retained set%s: %s objects, %s):\n",
		s->is_class ? "their" : "the point's", s->is_class ? "s" : "", cli_fmt_count(s->set_objects, c, sizeof c),
		cli_fmt_bytes(s->set_bytes, a, sizeof a));
	size_t shown = s->nby_class < CLASSES_IN_TEXT ? s->nby_class : CLASSES_IN_TEXT;
	for (size_t i = 0; i < shown; i++) {
		const struct hp_leak_class_count *k = &s->by_class[i];
		fprintf(f, "    %10s \xc3\x97 %s: %s shallow, %s retained\n", cli_fmt_count(k->count, c, sizeof c),
			hp_text_safe(hp_class_name(h, k->cls), nm, sizeof nm), cli_fmt_bytes(k->shallow, a, sizeof a),
			cli_fmt_bytes(k->retained, b, sizeof b));
	}
	if (s->set_classes > shown)
		fprintf(f, "    and %s more class%s (--json lists %zu)\n", cli_fmt_count(s->set_classes - shown, c, sizeof c),
			s->set_classes - shown == 1 ? "" : "es", s->nby_class);
	size_t nc = s->ncaptures < CAPTURES_IN_TEXT ? s->ncaptures : CAPTURES_IN_TEXT;
	for (size_t i = 0; i < nc; i++) {
		const struct hp_leak_capture *k = &s->captures[i];
		fprintf(f, "  captured: %s \xc3\x97 %s held through %s.%s", cli_fmt_count(k->count, c, sizeof c),
			hp_text_safe(hp_class_name(h, k->target), nm, sizeof nm),
			hp_text_safe(hp_class_name(h, k->holder), nm2, sizeof nm2), hp_text_safe(k->field, b, sizeof b));
		if (k->refs != k->count)
			fprintf(f, " (%s references)", cli_fmt_count(k->refs, c, sizeof c));
		fputc('\n', f);
	}
}

struct irow { uint32_t cls; int status; const char *reason; uint64_t count; };

static int by_irow(const void *a, const void *b)
{
	const struct irow *x = a, *y = b;
	if (x->cls != y->cls)
		return x->cls < y->cls ? -1 : 1;
	if (x->status != y->status)
		return x->status > y->status ? -1 : 1;
	return strcmp(x->reason, y->reason);
}

static int text(struct cli_ctx *x, hp_session *S, void *res, FILE *f)
{
	const struct leaks_opts *o = x->own;
	struct leaks_result *r = res;
	const hp_heap *h = r->h;
	const struct hp_leaks *L = &r->L;
	char a[32], b[32], c[32], lab[800], nm[600], rs[HP_LEAK_REASON * 3];
	cli_partial_note(f, S);
	cli_oom_text(f, &r->oom);
	fprintf(f, "leak suspects: objects and classes retaining at least %g%% of the reachable heap (%s of %s;"
		" big drop %g; weak %s, roots %s)\n", o->threshold, cli_fmt_bytes(L->threshold_bytes, a, sizeof a),
		cli_fmt_bytes(L->heap, b, sizeof b), o->big_drop, hp_weak_policy_name(r->R->weak),
		cli_roots_policy_name(r->R->roots_policy));
	if (!L->nsuspects && !L->ntls)
		fprintf(f, "  none\n");
	size_t num = 0;
	for (size_t t = 0; t < L->ntls; t++)
		tl_suspect_text(f, r, &L->tls[t], ++num);
	for (size_t i = 0; i < L->nsuspects; i++) {
		const struct hp_leak_suspect *s = &L->suspects[i];
		if (folded(L, i))
			continue;
		fprintf(f, "\nsuspect %zu: ", ++num);
		if (s->is_class)
			fprintf(f, "%s \xc3\x97 %s retain %s (%.1f%%)\n", cli_fmt_count(s->count, c, sizeof c),
				hp_text_safe(hp_class_name(h, s->cls), nm, sizeof nm), cli_fmt_bytes(s->retained, a, sizeof a),
				pct(s->retained, L->heap));
		else
			fprintf(f, "%s retains %s (%.1f%%)\n", cli_object_label(h, s->obj, lab, sizeof lab),
				cli_fmt_bytes(s->retained, a, sizeof a), pct(s->retained, L->heap));
		text_collection(f, h, s);
		if (s->acc != HP_NONE && s->is_class)
			fprintf(f, "  accumulation point: %s (%s), on the paths of 80%% of them\n",
				cli_object_label(h, s->acc, lab, sizeof lab), cli_fmt_bytes(s->acc_retained, a, sizeof a));
		else if (s->acc != HP_NONE)
			fprintf(f, "  accumulation point: %s (%s, %llu step%s down the dominator tree)\n",
				cli_object_label(h, s->acc, lab, sizeof lab), cli_fmt_bytes(s->acc_retained, a, sizeof a),
				(unsigned long long)s->acc_depth, s->acc_depth == 1 ? "" : "s");
		else
			fprintf(f, "  accumulation point: none (no object is on the paths of 80%% of them)\n");
		text_content(f, h, s);
		if (s->holder != HP_NONE)
			fprintf(f, "  held by %s\n", cli_object_label(h, s->holder, lab, sizeof lab));
		else
			fprintf(f, "  held by JDK objects and GC roots only\n");
		fprintf(f, "  shortest path from a GC root to the %s:\n",
			s->acc != HP_NONE ? "accumulation point" : "largest of them");
		text_trace(f, r, &s->trace, 0);
	}
	fprintf(f, "\nzombie objects: %s, %zu leak%s (rules: destroyed Activities and Services, detached Fragments"
		" and Views, cleared ViewModels, removed windows, dismissed Dialogs, quit MessageQueues%s)\n",
		L->nzombies == 1 ? "1 zombie" : (snprintf(c, sizeof c, "%zu zombies", L->nzombies), c),
		L->nleaks, L->nleaks == 1 ? "" : "s", r->nrules ? " and the --zombie rules" : "");
	if (!L->nzombies)
		fprintf(f, "  none\n");
	for (size_t g = 0; g < L->nleaks; g++) {
		const struct hp_leak_group *G = &L->leaks[g];
		const struct hp_leak_zombie *z = &L->zombies[G->first];
		if (G->exact)
			fprintf(f, "\nleak %zu of %zu: %s \xc3\x97 %s; fixing it frees %s (%s objects); retained by the"
				" zombies themselves: %s\n", g + 1, L->nleaks, cli_fmt_count(G->count, c, sizeof c),
				hp_text_safe(hp_class_name(h, h->cls[z->obj]), nm, sizeof nm), cli_fmt_bytes(G->retained, a, sizeof a),
				cli_fmt_count(G->retained_objects, lab, sizeof lab), cli_fmt_bytes(G->retained_sum, b, sizeof b));
		else
			fprintf(f, "\nleak %zu of %zu: %s \xc3\x97 %s; fixing it frees at least %s (retained by the zombies"
				" themselves; the retained set is computed for the 100 largest leaks)\n", g + 1, L->nleaks,
				cli_fmt_count(G->count, c, sizeof c), hp_text_safe(hp_class_name(h, h->cls[z->obj]), nm, sizeof nm),
				cli_fmt_bytes(G->retained_sum, a, sizeof a));
		reasons_text(z->reasons, rs, sizeof rs);
		fprintf(f, "  signature %016llx; %s\n", (unsigned long long)G->signature, rs);
		text_trace(f, r, &z->trace, 1);
		if (G->count > 1) {
			fprintf(f, "  the other zombies of this leak:");
			size_t shown = 0;
			for (size_t k = G->first + 1; k < G->first + G->count && shown < LIST_IN_TEXT; k++, shown++)
				fprintf(f, " 0x%llx (%s)", (unsigned long long)hp_heap_id(h, L->zombies[k].obj),
					cli_fmt_bytes(L->zombies[k].retained, a, sizeof a));
			if (G->count - 1 > shown)
				fprintf(f, " and %s more (--json lists all)", cli_fmt_count(G->count - 1 - shown, c, sizeof c));
			fputc('\n', f);
		}
	}
	if (L->nested)
		fprintf(f, "\n%s more zombie%s reached only through the zombies above (not listed apart; fixing those"
			" frees them)\n", cli_fmt_count(L->nested, c, sizeof c), L->nested == 1 ? " is" : "s are");
	if (L->not_strong)
		fprintf(f, "%s zombie%s no strong path reaches (only soft, weak, final or phantom references: they"
			" will be collected; not leaks)\n", cli_fmt_count(L->not_strong, c, sizeof c),
			L->not_strong == 1 ? "" : "s");
	if (L->nzombies)
		fprintf(f, "\nfixing every leak frees %s in %s objects (the retained set of all %s zombies, shared"
			" objects counted once)\n", cli_fmt_bytes(L->freed, a, sizeof a),
			cli_fmt_count(L->freed_objects, b, sizeof b), cli_fmt_count(L->nzombies + L->nested, c, sizeof c));
	/* what the rules looked at, by class, status and reason */
	if (L->ninspected) {
		struct irow *rows = hp_reallocarray(NULL, L->ninspected, sizeof *rows);
		if (!rows) {
			cli_error("out of memory");
			return EXIT_NOMEM;
		}
		for (size_t i = 0; i < L->ninspected; i++) {
			rows[i].cls = h->cls[L->inspected[i].obj];
			rows[i].status = L->inspected[i].status;
			rows[i].reason = L->inspected[i].reason;
			rows[i].count = 1;
		}
		qsort(rows, L->ninspected, sizeof *rows, by_irow);
		fprintf(f, "\nobjects the zombie rules looked at: %s\n", cli_fmt_count(L->ninspected, c, sizeof c));
		for (size_t i = 0; i < L->ninspected;) {
			size_t k = i;
			while (k < L->ninspected && !by_irow(&rows[i], &rows[k]))
				k++;
			reasons_text(rows[i].reason, rs, sizeof rs);
			fprintf(f, "  %8s \xc3\x97 %s: %s (%s)\n", cli_fmt_count(k - i, c, sizeof c),
				hp_text_safe(hp_class_name(h, rows[i].cls), nm, sizeof nm), hp_leak_status_name(rows[i].status), rs);
			i = k;
		}
		hp_free(rows);
	}
	return EXIT_OK;
}

/* --stats: what the analysis took after retained sizes */
static void after(struct cli_ctx *x, hp_session *S, void *res)
{
	const struct leaks_result *r = res;
	if (!x->c->stats || !r || !r->have)
		return;
	fprintf(stderr, "leaks: search=%.3fs (%llu objects reached) total=%.3fs\n", r->L.t_search,
		(unsigned long long)r->L.searched, r->L.t_total);
}

static int run(struct cli_ctx *x)
{
	struct leaks_opts *o = x->own;
	int rc = cli_run_one(x);
	if (rc == EXIT_OK && o->fail_on_leak && o->found)
		rc = EXIT_LEAK;
	return rc;
}

CLI_COMMAND(leaks, "hprofan leaks FILE", "leak suspects, zombie objects and their leak traces",
	    CLI_FILES(1, 1), .collect = collect, .json = json, .text = text, .release = release,
	    CLI_OWN(struct leaks_opts, defaults), .run = run, .after = after,
	    CLI_TABLES(own, cli_opts_full_path, cli_opts_model, cli_opts_policy, cli_opts_load, cli_opts_output, cli_opts_quiet));
