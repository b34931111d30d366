/* hprofan sites FILE: objects grouped by allocation site (the stack trace
 * serial of their records), with the site's frames, or as folded stacks
 * for flame graphs. */
#include "cli/command.h"
#include "analysis/sites.h"
#include "analysis/threads.h"
#include "parser/alloc.h"

#include <stdlib.h>
#include <string.h>

struct sites_opts {
	struct cli_count top;
	int frames;
	int folded;
};

static void defaults(void *own)
{
	struct sites_opts *o = own;
	o->top.n = 20;
	o->frames = 5;
}

static int set_frames(const struct cli_option *o, const char *as, const char *val, void *dst)
{
	(void)o;
	char *end;
	long v = strtol(val, &end, 10);
	if (end == val || *end || v < 0 || v > 100000)
		return cli_usage_error(NULL, "%s needs a number of frames (0 for all, up to 100000)", as);
	*(int *)dst = (int)v;
	return EXIT_OK;
}

static const struct cli_option own[] = {
	{ "--top", NULL, OPT_OPTNUM, "--top [N]", "the N sites with the most shallow bytes (default 20;\n0 shows all)",
	  0, offsetof(struct sites_opts, top), cli_set_count, NULL, NULL },
	{ "--frames", NULL, OPT_VALUE, "--frames N", "frames of each site's stack shown, top first (default 5;\n0 shows all)",
	  0, offsetof(struct sites_opts, frames), set_frames, "needs a number of frames", NULL },
	{ "--folded", NULL, OPT_FLAG, "--folded", "folded stacks for flame graphs: a line per site, its\nframes outermost first, ';' between, then its shallow bytes",
	  0, offsetof(struct sites_opts, folded), NULL, NULL, NULL },
	{ NULL }
};

struct sites_result {
	const hp_heap *h;
	const struct hp_retained *R;
	struct hp_sites S;
};

static void release(void *p)
{
	struct sites_result *r = p;
	if (!r)
		return;
	hp_sites_release(&r->S);
	hp_free(r);
}

static int collect(struct cli_ctx *x, hp_session *S, void **res)
{
	const struct sites_opts *o = x->own;
	if (o->folded && x->c->json)
		return cli_usage_error("sites", "--folded and --json write two different formats: give one");
	struct sites_result *r = hp_calloc(1, sizeof *r);
	if (!r) {
		cli_error("out of memory");
		return EXIT_NOMEM;
	}
	*res = r;
	int rc;
	hp_objread *rd = NULL;
	if ((rc = cli_refuse_pipe(S, "retained sizes and allocation sites read", "save it to a file")) ||
	    (rc = cli_retained(S, &r->h, &r->R)) || (rc = cli_objread(S, &rd)))
		return rc;
	struct hp_error err;
	hp_error_clear(&err);
	if ((rc = hp_sites_collect(r->h, r->R, rd, &r->S, &err)) != HP_OK) {
		cli_error("%s: %s", hp_session_path(S), err.msg);
		return cli_exit_code(rc);
	}
	return EXIT_OK;
}

static size_t shown(const struct sites_opts *o, size_t n)
{
	return o->top.n > 0 && (size_t)o->top.n < n ? (size_t)o->top.n : n;
}

static const char *no_sites =
	"no allocation sites: no object's stack trace serial names a trace with frames (HotSpot and Android\n"
	"dumps have none; the JDK 8 hprof agent writes them: java -agentlib:hprof=heap=dump,depth=8)\n";

static void json_str(cJSON *e, const char *key, const hp_heap *h, uint64_t sid)
{
	uint32_t len;
	const char *s = sid ? hp_heap_string(h, sid, &len) : NULL;
	char *u = s ? hp_mutf8_to_utf8(s, len, NULL) : NULL;
	if (u)
		cJSON_AddStringToObject(e, key, u);
	hp_free(u);
}

static int json(struct cli_ctx *x, hp_session *S, void *res, cJSON **doc)
{
	const struct sites_opts *o = x->own;
	const struct sites_result *r = res;
	const hp_heap *h = r->h;
	cJSON *j = json_begin(x, hp_session_path(S), S);
	cJSON_AddItemToObject(j, "size_model", json_size_model(h));
	json_policies(j, r->R);
	cJSON *tot = cJSON_AddObjectToObject(j, "total");
	json_u64(tot, "sites", r->S.n);
	json_u64(tot, "traced_objects", r->S.traced);
	json_u64(tot, "traced_shallow", r->S.traced_shallow);
	json_u64(tot, "untraced_objects", r->S.untraced);
	json_u64(tot, "untraced_shallow", r->S.untraced_shallow);
	cJSON *arr = cJSON_AddArrayToObject(j, "sites");
	size_t ns = shown(o, r->S.n);
	for (size_t i = 0; i < ns; i++) {
		const struct hp_site *s = &r->S.s[i];
		const struct hp_trace_rec *tr = &h->traces[s->trace];
		cJSON *e = cJSON_CreateObject();
		json_u64(e, "trace_serial", s->serial);
		json_u64(e, "objects", s->objects);
		json_u64(e, "shallow", s->shallow);
		json_u64(e, "retained", s->retained);
		json_u64(e, "depth", tr->n);
		cJSON *fr = cJSON_AddArrayToObject(e, "frames");
		uint32_t nf = o->frames > 0 && (uint32_t)o->frames < tr->n ? (uint32_t)o->frames : tr->n;
		for (uint32_t d = 0; d < nf; d++) {
			const struct hp_frame *f = hp_trace_frame(h, s->trace, d);
			cJSON *fe = cJSON_CreateObject();
			if (f) {
				if (cli_frame_class(h, f)[0])
					cJSON_AddStringToObject(fe, "class", cli_frame_class(h, f));
				json_str(fe, "method", h, f->method_sid);
				json_str(fe, "signature", h, f->signature_sid);
				json_str(fe, "source", h, f->source_sid);
				cJSON_AddNumberToObject(fe, "line", f->line);
			}
			cJSON_AddItemToArray(fr, fe);
		}
		cJSON_AddItemToArray(arr, e);
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
	safe_text(u ? u : "?", m, sizeof m);
	hp_free(u);
	safe_text(f && cli_frame_class(h, f)[0] ? cli_frame_class(h, f) : "?", cls, sizeof cls);
	snprintf(buf, sizeof buf, "%s.%s", cls, m);
	for (char *p = buf; *p; p++)
		if (*p == ';' || *p == ' ')
			*p = '_';
	fputs(buf, out);
}

static int text(struct cli_ctx *x, hp_session *S, void *res, FILE *f)
{
	const struct sites_opts *o = x->own;
	const struct sites_result *r = res;
	const hp_heap *h = r->h;
	char a[64], b[64], c[64], buf[2048];
	if (o->folded) {
		if (!r->S.n) {
			cli_error("%s: %s", hp_session_path(S), "no allocation sites: no object's stack trace serial names a trace with frames");
			return EXIT_BAD;
		}
		for (size_t i = 0; i < r->S.n; i++) {
			const struct hp_site *s = &r->S.s[i];
			const struct hp_trace_rec *tr = &h->traces[s->trace];
			for (uint32_t d = tr->n; d-- > 0;) {
				folded_frame(h, hp_trace_frame(h, s->trace, d), f);
				fputc(d ? ';' : ' ', f);
			}
			fprintf(f, "%llu\n", (unsigned long long)s->shallow);
		}
		return EXIT_OK;
	}
	cli_partial_note(f, S);
	if (!r->S.n) {
		fputs(no_sites, f);
		fprintf(f, "(%s, %s, all without a site)\n", fmt_counted(r->S.untraced, "object", "objects", a, sizeof a),
			fmt_bytes(r->S.untraced_shallow, b, sizeof b));
		return EXIT_OK;
	}
	fprintf(f, "%s: %s with a site (%s), %s without one (%s)\n",
		fmt_counted(r->S.n, "allocation site", "allocation sites", a, sizeof a),
		fmt_count(r->S.traced, b, sizeof b), fmt_bytes(r->S.traced_shallow, c, sizeof c),
		fmt_count(r->S.untraced, buf, 64), fmt_bytes(r->S.untraced_shallow, buf + 64, 64));
	fprintf(f, "retained: the bytes the site's objects dominate, each once (weak %s, roots %s)\n\n",
		hp_weak_policy_name(r->R->weak), roots_policy_name(r->R->roots_policy));
	fprintf(f, "%10s %10s %10s  %s\n", "objects", "shallow", "retained", "site (trace serial, frames top first)");
	size_t ns = shown(o, r->S.n);
	for (size_t i = 0; i < ns; i++) {
		const struct hp_site *s = &r->S.s[i];
		const struct hp_trace_rec *tr = &h->traces[s->trace];
		fprintf(f, "%10s %10s %10s  trace %u\n", fmt_count(s->objects, a, sizeof a), fmt_bytes(s->shallow, b, sizeof b),
			fmt_bytes(s->retained, c, sizeof c), s->serial);
		uint32_t nf = o->frames > 0 && (uint32_t)o->frames < tr->n ? (uint32_t)o->frames : tr->n;
		for (uint32_t d = 0; d < nf; d++) {
			const struct hp_frame *fr = hp_trace_frame(h, s->trace, d);
			if (fr)
				fprintf(f, "%32s    %s\n", "", cli_frame_text(h, fr, buf, sizeof buf));
			else
				fprintf(f, "%32s    at ? (frame %u: no STACK FRAME record)\n", "", d);
		}
		if (nf < tr->n)
			fprintf(f, "%32s    ... %u more frames\n", "", tr->n - nf);
	}
	if (ns < r->S.n)
		fprintf(f, "... %s more sites\n", fmt_count(r->S.n - ns, a, sizeof a));
	return EXIT_OK;
}

static const struct cli_option *const tables[] = {
	own, cli_opts_model, cli_opts_policy, cli_opts_load, cli_opts_output, cli_opts_quiet, NULL
};

const struct cli_command cmd_sites = {
	.name = "sites",
	.usage = "hprofan sites FILE [--top N] [--frames N] [--folded]",
	.summary = "objects by allocation site (dumps written with allocation tracking)",
	.min_files = 1, .max_files = 1,
	.options = tables,
	.own_size = sizeof(struct sites_opts),
	.defaults = defaults,
	.run = cli_run_one,
	.collect = collect, .json = json, .text = text, .release = release,
};
