/* hprofan threads FILE: every thread, its stack, what its frames hold, its
 * ThreadLocal values and what it retains (Eclipse MAT's thread overview,
 * jstack's format). */
#include "cli/command.h"
#include "cli/msg.h"
#include "cli/format.h"
#include "cli/load.h"
#include "cli/output.h"
#include "cli/objtext.h"
#include "analysis/threads.h"
#include "analysis/threadlocals.h"
#include "base/alloc.h"
#include "base/text.h"

#include <stdlib.h>
#include <string.h>

struct threads_opts {
	int locals;
};

static const struct cli_option own[] = {
	OPT_BOOL("--locals",
		 "under each frame the objects it holds (Java frame and\nJNI local roots) with class and retained size", OPT_OWN(struct threads_opts, locals)),
	OPT_END
};

struct threads_result {
	const hp_heap *h;
	const struct hp_retained *R;
	struct hp_threads T;
	struct hp_tlocals TL;
	struct hp_text *names;    /* per row of T.t */
};

#define TL_IN_TEXT 20          /* a thread's ThreadLocal values the text lists */

static void release(void *p)
{
	struct threads_result *r = p;
	if (!r)
		return;
	if (r->names)
		for (size_t i = 0; i < r->T.n; i++)
			hp_objread_text_release(&r->names[i]);
	hp_free(r->names);
	hp_threads_release(&r->T);
	hp_tlocals_release(&r->TL);
	hp_free(r);
}

static int collect(struct cli_ctx *x, hp_session *S, void **res)
{
	(void)x;
	struct threads_result *r = cli_result_new(sizeof *r, res);
	if (!r)
		return EXIT_NOMEM;
	int rc;
	if ((rc = cli_refuse_pipe(S, "retained sizes and thread objects read", "save it to a file")) ||
	    (rc = cli_retained(S, &r->h, &r->R)))
		return rc;
	const hp_heap *h = r->h;
	hp_objread *rd = NULL;
	if ((rc = cli_objread(S, &rd)))
		return rc;
	struct hp_error err;
	hp_error_clear(&err);
	/* a gzip dump: the Thread objects and their names in forward passes */
	uint32_t *pre = hp_reallocarray(NULL, h->nthreads ? h->nthreads : 1, sizeof *pre);
	if (!pre) {
		cli_error("out of memory");
		return EXIT_NOMEM;
	}
	size_t np = 0;
	for (size_t i = 0; i < h->nthreads; i++) {
		size_t o = h->threads[i].object_id ? hp_heap_find(h, h->threads[i].object_id) : SIZE_MAX;
		if (o != SIZE_MAX)
			pre[np++] = (uint32_t)o;
	}
	int hr = hp_objread_prefetch_text(rd, pre, np, &err);
	hp_free(pre);
	if (hr == HP_ENOMEM) {
		cli_error("out of memory");
		return EXIT_NOMEM;
	}
	hp_error_clear(&err);
	if (hp_threads_collect(h, r->R, rd, &r->T, &err) != HP_OK) {
		cli_error("%s: %s", hp_session_path(S), err.msg);
		return EXIT_NOMEM;
	}
	hp_error_clear(&err);
	if (hp_tlocals_collect(h, r->R, rd, &r->TL, &err) != HP_OK) {
		cli_error("%s: %s", hp_session_path(S), err.msg);
		return EXIT_NOMEM;
	}
	r->names = hp_calloc(r->T.n ? r->T.n : 1, sizeof *r->names);
	if (!r->names) {
		cli_error("out of memory");
		return EXIT_NOMEM;
	}
	for (size_t i = 0; i < r->T.n; i++)
		cli_thread_text(h, rd, r->T.t[i].serial, &r->names[i]);
	return EXIT_OK;
}

static cJSON *local_json(const struct threads_result *r, const struct hp_thread_local *l)
{
	cJSON *o = cli_object_json(r->h, l->obj);
	cJSON_AddStringToObject(o, "root", hp_root_kind_key(l->kind));
	cli_json_u64(o, "shallow", hp_retained_shallow(r->R, l->obj));
	cli_json_u64(o, "retained", r->R->retained[l->obj]);
	return o;
}

/* one ThreadLocal value of a thread */
static cJSON *tl_entry_json(const struct threads_result *r, const struct hp_tl_entry *E)
{
	const hp_heap *h = r->h;
	const struct hp_tl_key *K = &r->TL.keys[E->key];
	cJSON *e = cJSON_CreateObject();
	cli_tl_key_json(e, h, K);
	cJSON_AddBoolToObject(e, "stale", K->tl == HP_NONE);
	cJSON_AddStringToObject(e, "map", hp_tl_map_field(E->map));
	cJSON_AddItemToObject(e, "entry", cli_object_json(h, E->entry));
	if (E->value != HP_NONE) {
		cJSON *v = cli_object_json(h, E->value);
		cli_json_u64(v, "shallow", hp_retained_shallow(r->R, E->value));
		cli_json_u64(v, "retained", E->retained);
		cJSON_AddBoolToObject(v, "owned", E->owned);
		cJSON_AddItemToObject(e, "value", v);
	} else {
		cJSON_AddNullToObject(e, "value");
	}
	return e;
}

static int json(struct cli_ctx *x, hp_session *S, void *res, cJSON **doc)
{
	const struct threads_opts *o = x->own;
	const struct threads_result *r = res;
	const hp_heap *h = r->h;
	cJSON *j = cli_json_begin_heap(x, S, h, r->R);
	cJSON *tot = cJSON_AddObjectToObject(j, "total");
	cli_json_u64(tot, "threads", r->T.n);
	cli_json_u64(tot, "with_stacks", r->T.with_frames);
	cli_json_u64(tot, "stack_roots", r->T.nlocals);
	cli_json_u64(tot, "orphan_roots", r->T.orphan_roots);
	cli_json_u64(tot, "missing_objects", r->T.missing_locals);
	cli_json_u64(tot, "thread_local_maps", r->TL.maps);
	cli_json_u64(tot, "thread_local_entries", r->TL.n);
	cli_json_u64(tot, "thread_local_skipped", r->TL.skipped);
	cJSON *ka = cJSON_AddArrayToObject(j, "thread_locals");
	for (size_t k = 0; k < r->TL.nkeys; k++) {
		const struct hp_tl_key *K = &r->TL.keys[k];
		cJSON *e = cJSON_CreateObject();
		cli_tl_key_json(e, h, K);
		cli_json_u64(e, "threads", K->threads);
		cli_json_u64(e, "values", K->values);
		cli_json_u64(e, "retained", K->retained);
		cli_json_u64(e, "owned_retained", K->owned);
		cJSON_AddItemToArray(ka, e);
	}
	cJSON *arr = cJSON_AddArrayToObject(j, "threads");
	for (size_t i = 0; i < r->T.n; i++) {
		const struct hp_thread_info *t = &r->T.t[i];
		cJSON *e = cJSON_CreateObject();
		cli_json_u64(e, "serial", t->serial);
		if (r->names[i].utf8)
			cJSON_AddItemToObject(e, "name", cli_text_json(&r->names[i]));

		if (t->obj != SIZE_MAX)
			cJSON_AddItemToObject(e, "object", cli_object_json(h, t->obj));

		if (t->daemon >= 0)
			cJSON_AddBoolToObject(e, "daemon", t->daemon);

		if (t->priority >= 0)
			cJSON_AddNumberToObject(e, "priority", t->priority);

		if (t->state)
			cJSON_AddStringToObject(e, "state", t->state);

		cli_json_u64(e, "shallow", t->shallow);
		cli_json_u64(e, "retained", t->retained);
		cli_json_u64(e, "stack_roots", t->nlocals);
		if (t->trace != HP_NONE)
			cli_json_u64(e, "trace_serial", h->traces[t->trace].serial);

		cJSON *fr = cJSON_AddArrayToObject(e, "frames");
		size_t l = t->first_local, lend = t->first_local + t->nlocals;
		for (uint32_t d = 0; d < t->nframes; d++) {
			const struct hp_frame *f = hp_trace_frame(h, t->trace, d);
			cJSON *fe = cJSON_CreateObject();
			cli_json_u64(fe, "depth", d);
			cli_frame_json(fe, h, f);
			if (o->locals) {
				cJSON *la = cJSON_AddArrayToObject(fe, "locals");
				for (; l < lend && r->T.locals[l].frame == d; l++)
					cJSON_AddItemToArray(la, local_json(r, &r->T.locals[l]));
			}
			cJSON_AddItemToArray(fr, fe);
		}
		if (o->locals) {
			/* roots of the thread without a frame */
			cJSON *la = cJSON_AddArrayToObject(e, "other_roots");
			for (; l < lend; l++)
				if (r->T.locals[l].frame == HP_FRAME_NONE)
					cJSON_AddItemToArray(la, local_json(r, &r->T.locals[l]));
		}
		size_t ntl, tl = hp_tlocals_of_thread(&r->TL, t->rec, &ntl);
		cJSON *ta = cJSON_AddArrayToObject(e, "thread_locals");
		for (size_t k = tl; k < tl + ntl; k++)
			cJSON_AddItemToArray(ta, tl_entry_json(r, &r->TL.e[k]));
		cJSON_AddItemToArray(arr, e);
	}
	*doc = j;
	return EXIT_OK;
}

static void local_line(FILE *f, const struct threads_result *r, const struct hp_thread_local *l, const char *indent)
{
	char lab[800], a[32];
	fprintf(f, "%s- %s %s, retained %s\n", indent, l->kind == HP_ROOT_JAVA_FRAME ? "local" : hp_root_kind_name(l->kind),
		cli_object_label(r->h, l->obj, lab, sizeof lab), cli_fmt_bytes(r->R->retained[l->obj], a, sizeof a));
}

/* a thread's ThreadLocal values, the largest first */
static void tl_lines(FILE *f, const struct threads_result *r, uint32_t rec)
{
	const hp_heap *h = r->h;
	char lab[800], vl[800], nm[600], a[32];
	size_t n, first = hp_tlocals_of_thread(&r->TL, rec, &n);
	if (!n)
		return;
	/* the largest values first across the maps: entries are by map, then retained */
	size_t *ord = hp_reallocarray(NULL, n, sizeof *ord);
	if (ord) {
		for (size_t i = 0; i < n; i++)
			ord[i] = first + i;
		for (size_t i = 1; i < n; i++)      /* insertion sort, stable; few entries */
			for (size_t k = i; k > 0 && r->TL.e[ord[k]].retained > r->TL.e[ord[k - 1]].retained; k--) {
				size_t t = ord[k];
				ord[k] = ord[k - 1];
				ord[k - 1] = t;
			}
	}
	fprintf(f, "    ThreadLocal values: %zu\n", n);
	size_t shown = n < TL_IN_TEXT ? n : TL_IN_TEXT;
	for (size_t i = 0; i < shown; i++) {
		const struct hp_tl_entry *E = &r->TL.e[ord ? ord[i] : first + i];
		const struct hp_tl_key *K = &r->TL.keys[E->key];
		if (E->value != HP_NONE)
			snprintf(vl, sizeof vl, "%s, retained %s", cli_object_label(h, E->value, lab, sizeof lab),
				 cli_fmt_bytes(E->retained, a, sizeof a));
		else
			snprintf(vl, sizeof vl, "null");
		const char *inh = E->map == HP_TL_INHERITABLE || E->map == HP_TL_INHERITABLE_VALUES ? " (inheritable)" : "";
		if (K->tl == HP_NONE)
			fprintf(f, "    - stale entry (its ThreadLocal was collected)%s: %s\n", inh, vl);
		else if (K->holder != HP_NONE)
			fprintf(f, "    - %s (%s)%s: %s\n", hp_text_safe(K->name, nm, sizeof nm),
				cli_object_label(h, K->tl, lab, sizeof lab), inh, vl);
		else
			fprintf(f, "    - %s%s: %s\n", cli_object_label(h, K->tl, lab, sizeof lab), inh, vl);
	}
	if (n > shown)
		fprintf(f, "    (and %zu more ThreadLocal values; --json lists all)\n", n - shown);
	hp_free(ord);
}

static int text(struct cli_ctx *x, hp_session *S, void *res, FILE *f)
{
	const struct threads_opts *o = x->own;
	const struct threads_result *r = res;
	const hp_heap *h = r->h;
	char a[64], b[64], lab[800], buf[2048];
	cli_partial_note(f, S);
	if (!r->T.n) {
		fprintf(f, "the dump names no threads (no START THREAD records or thread object roots)\n");
		return EXIT_OK;
	}
	fprintf(f, "%s, %zu with a stack; retained: the Thread object's retained size (weak %s, roots %s%s)\n",
		cli_fmt_counted(r->T.n, "thread", "threads", a, sizeof a), r->T.with_frames,
		hp_weak_policy_name(r->R->weak), cli_roots_policy_name(r->R->roots_policy),
		r->R->roots_policy == HP_ROOTS_THREADS ? ": it counts what only its stack holds" :
		": stack locals hang off the super-root, not the thread");
	if (!r->T.with_frames)
		fprintf(f, "the dump holds no stack frames for its threads (Android dumps and some tools write none)\n");
	if (r->T.orphan_roots || r->T.missing_locals)
		fprintf(f, "%s naming no known thread, %s naming objects the dump lacks (left out)\n",
			cli_fmt_counted(r->T.orphan_roots, "stack root", "stack roots", a, sizeof a),
			cli_fmt_count(r->T.missing_locals, b, sizeof b));
	for (size_t i = 0; i < r->T.n; i++) {
		const struct hp_thread_info *t = &r->T.t[i];
		fputc('\n', f);
		if (r->names[i].utf8) {
			char *q = cli_quote_text(&r->names[i]);
			fprintf(f, "%s", q ? q : "\"?\"");
			hp_free(q);
		} else {
			fprintf(f, "(no name)");
		}
		fprintf(f, " serial %u", t->serial);
		if (t->daemon > 0)
			fprintf(f, " daemon");
		if (t->priority >= 0)
			fprintf(f, " prio=%d", t->priority);
		if (t->state)
			fprintf(f, " %s", t->state);
		if (t->obj != SIZE_MAX)
			fprintf(f, "  retained %s  %s", cli_fmt_bytes(t->retained, a, sizeof a), cli_object_label(h, t->obj, lab, sizeof lab));
		else
			fprintf(f, "  (its Thread object is not in the dump)");
		fputc('\n', f);
		size_t l = t->first_local, lend = t->first_local + t->nlocals;
		if (t->trace == HP_NONE)
			fprintf(f, "    (no stack trace)\n");
		else if (!t->nframes)
			fprintf(f, "    (empty stack)\n");
		for (uint32_t d = 0; d < t->nframes; d++) {
			const struct hp_frame *fr = hp_trace_frame(h, t->trace, d);
			if (fr)
				fprintf(f, "    %s\n", cli_frame_text(h, fr, buf, sizeof buf));
			else
				fprintf(f, "    at ? (frame %u: no STACK FRAME record)\n", d);
			for (; l < lend && r->T.locals[l].frame == d; l++)
				if (o->locals)
					local_line(f, r, &r->T.locals[l], "        ");
		}
		size_t others = lend - l;
		if (o->locals) {
			for (; l < lend; l++)
				local_line(f, r, &r->T.locals[l], "    ");
		} else if (t->nlocals) {
			fprintf(f, "    (%s held by its stack; --locals lists them", cli_fmt_counted(t->nlocals, "object", "objects", a, sizeof a));
			if (others)
				fprintf(f, ", %zu not in a frame", others);
			fprintf(f, ")\n");
		}
		tl_lines(f, r, t->rec);
	}
	return EXIT_OK;
}

CLI_COMMAND(threads, "hprofan threads FILE", "threads, their stacks, the objects their frames hold and what they retain",
	    CLI_FILES(1, 1), CLI_ANSWERS, CLI_OWN(struct threads_opts, NULL),
	    CLI_TABLES(own, cli_opts_model, cli_opts_policy, cli_opts_load, cli_opts_output, cli_opts_quiet));
