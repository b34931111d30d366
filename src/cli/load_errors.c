/* load_errors.c — the getters a command calls on its session (cli_model(),
 * cli_retained(), cli_paths(), ...), which say what went wrong: the error
 * with the file and its position, what --max-memory would need, what
 * --salvage would do; and the warnings given once per session (salvaged,
 * the mapping renamed nothing, no copy of a pipe kept, no GC roots). */
#include "cli/load_state.h"
#include "cli/msg.h"
#include "cli/format.h"

#include <stdio.h>

/* says what went wrong in a getter of S; returns the exit code */
static int failed(hp_session *S, int rc, const struct hp_error *err)
{
	const char *file = hp_session_path(S);
	const struct hp_session_need *nd = hp_session_need(S);
	char x[32], y[32], n[32];
	cli_progress_stop(S);
	if (rc == HP_ENOMEM && nd->stage != HP_NEED_NONE) {
		cli_fmt_count(nd->objects, n, sizeof n);
		switch (nd->stage) {
		case HP_NEED_OPEN_BUFFERS:
			cli_limit_error(file, "the memory limit was hit opening the dump (its buffers need more than %s)",
				    cli_fmt_bytes(nd->bytes, x, sizeof x));
			break;
		case HP_NEED_OPEN:
			cli_limit_error(file, "the memory limit was hit opening the dump");
			break;
		case HP_NEED_READING:
			cli_limit_error(file, "offset %llu: the memory limit was hit reading; the model needs more than %s (%s objects before this offset)",
				    (unsigned long long)nd->offset, cli_fmt_need(nd->bytes, x, sizeof x), n);
			break;
		case HP_NEED_HISTOGRAM:
			cli_limit_error(file, "the class histogram needs about %s (%s objects, nothing kept per object)",
				    cli_fmt_need(nd->bytes, x, sizeof x), n);
			break;
		case HP_NEED_MODEL_RETAINED:
			cli_limit_error(file, "the model needs about %s (%s objects), and retained sizes about %s in all",
				    cli_fmt_need(nd->bytes, x, sizeof x), n, cli_fmt_need(nd->retained_bytes, y, sizeof y));
			break;
		case HP_NEED_MODEL:
			cli_limit_error(file, "the model needs about %s (%s objects)", cli_fmt_need(nd->bytes, x, sizeof x), n);
			break;
		default:
			cli_limit_error(file, "retained sizes need about %s in all (%s objects; more with many references)",
				    cli_fmt_need(nd->bytes, x, sizeof x), n);
			break;
		}
		return EXIT_NOMEM;
	}
	if (hp_session_no_such_dump(S, NULL)) {
		struct cli_sess *cs = cli_sess_of(S);
		cli_error("%s: --dump %d: %s", file, cs ? cs->c->dump_index : 0, err->msg);
		return EXIT_USAGE;
	}
	char msg[900];
	cli_format_error(file, err, msg, sizeof msg);
	cli_error("%s", msg);
	/* --salvage helps only where a heap dump began before the break
	 * (info: wherever there are records) */
	const struct hp_load_info *L = hp_session_load_info(S);
	struct cli_sess *cs = cli_sess_of(S);
	if (!L->stats.ndumps && cs && cs->need_dump)
		;
	else if (rc == HP_ETRUNC && err->has_pos)
		fprintf(stderr, "hprofan: the dump is truncated; --salvage analyses what precedes offset %llu\n",
			(unsigned long long)err->offset);
	else if (rc == HP_ECORRUPT && err->has_pos)
		fprintf(stderr, "hprofan: --salvage analyses what precedes offset %llu\n",
			(unsigned long long)err->offset);
	return cli_exit_code(rc);
}

/* no copy of a streamed input was kept: say so once, with what it costs */
void cli_spool_note(hp_session *S)
{
	struct cli_sess *cs = cli_sess_of(S);
	const char *why = hp_session_spool_note(S);
	if (!why || !cs || cs->spool_warned || (cs->c->quiet && !hp_session_one_shot(S)))
		return;
	cs->spool_warned = 1;
	if (hp_session_one_shot(S))
		cli_warn("%s: no copy of the input is kept (%s), so it cannot be read again", hp_session_path(S), why);
	else
		cli_warn("%s: no copy of the inflated dump is kept (%s), so each pass inflates it again",
			 hp_session_path(S), why);
}

/* the model was read, salvaged: say so once */
static void partial_warning(hp_session *S)
{
	const struct hp_load_info *L = hp_session_load_info(S);
	struct cli_sess *cs = cli_sess_of(S);
	cli_mapping_note(S);
	if (!hp_session_one_shot(S))   /* a pipe's: where it is read again */
		cli_spool_note(S);
	if (!L->partial || !cs || cs->warned)
		return;
	cs->warned = 1;
	char msg[900];
	cli_format_error(hp_session_path(S), &L->partial_err, msg, sizeof msg);
	cli_warn("%s", msg);
	cli_warn("--salvage: analysing what precedes offset %llu; figures are partial",
		 (unsigned long long)L->partial_err.offset);
}

#define GET(S, call) do { \
	struct hp_error err_; \
	hp_error_clear(&err_); \
	int rc_ = (call); \
	cli_progress_stop(S); \
	if (rc_) \
		return failed((S), rc_, &err_); \
	partial_warning(S); \
	return EXIT_OK; \
} while (0)

int cli_histogram(hp_session *S, const hp_heap **h) { GET(S, hp_session_histogram(S, h, &err_)); }
int cli_model(hp_session *S, const hp_heap **h) { GET(S, hp_session_model(S, h, &err_)); }
int cli_objread(hp_session *S, hp_objread **rd) { GET(S, hp_session_objread(S, rd, &err_)); }
int cli_native(hp_session *S, int with_retained, const struct hp_native **N)
{
	GET(S, hp_session_native(S, with_retained, N, &err_));
}

int cli_native_shown(const hp_heap *h, const struct hp_native *N)
{
	(void)h;
	return N && N->shallow != NULL;
}

void cli_native_note(const struct cli_ctx *x, const hp_heap *h, const struct hp_native *N)
{
	static int said;
	if (said || x->c->quiet || !N || !N->why_none || !(hp_heap_android(h) || N->has_registry))
		return;
	said = 1;
	fprintf(stderr, "hprofan: note: no native sizes: %s\n", N->why_none);
}

int cli_paths(hp_session *S, int all_weak, const struct hp_pathsearch **ps)
{
	GET(S, hp_session_paths(S, all_weak, ps, &err_));
}

/* sums: 1 the sums only, 2 without the graph, 0 all (session.h) */
static int get_retained(hp_session *S, int sums, const hp_heap **h, const struct hp_retained **R)
{
	struct hp_error err;
	hp_error_clear(&err);
	int rc = sums == 1 ? hp_session_retained_sums(S, R, &err) : sums == 2 ? hp_session_retained_tree(S, R, &err)
		 : hp_session_retained(S, R, &err);
	if (!rc)
		rc = hp_session_model(S, h, &err);
	cli_progress_stop(S);
	if (rc)
		return failed(S, rc, &err);
	partial_warning(S);
	/* no GC root: every object is unreachable and retains nothing */
	if ((*h)->nobj && !(*R)->nroot_objs) {
		const struct hp_load_info *L = hp_session_load_info(S);
		cli_warn("%s: the dump has no GC roots%s: no object is reachable, so retained sizes are all 0; "
			 "--roots=unreachable-as-roots makes every object no root reaches a root",
			 hp_session_path(S), L->partial ? " before the break (HotSpot writes them last)" : "");
	}
	return EXIT_OK;
}

int cli_retained(hp_session *S, const hp_heap **h, const struct hp_retained **R)
{
	return get_retained(S, 0, h, R);
}

int cli_retained_sums(hp_session *S, const hp_heap **h, const struct hp_retained **R)
{
	return get_retained(S, 1, h, R);
}

int cli_retained_tree(hp_session *S, const hp_heap **h, const struct hp_retained **R)
{
	return get_retained(S, 2, h, R);
}

int cli_pipe_read(hp_session *S)
{
	const hp_heap *h;
	if (!hp_session_one_shot(S) || !hp_session_rereadable(S))
		return EXIT_OK;
	return cli_model(S, &h);
}

int cli_refuse_pipe(hp_session *S, const char *what, const char *hint)
{
	int rc = cli_pipe_read(S);
	if (rc)
		return rc;
	if (hp_session_rereadable(S))
		return EXIT_OK;
	cli_spool_note(S);
	cli_error("%s: %s the dump twice, which a pipe cannot do; %s", hp_session_path(S), what, hint);
	return EXIT_USAGE;
}

void cli_partial_note(FILE *f, hp_session *S)
{
	const struct hp_load_info *L = hp_session_load_info(S);
	if (!L->partial)
		return;
	char msg[900];
	cli_format_error(hp_session_path(S), &L->partial_err, msg, sizeof msg);
	fprintf(f, "warning: partial result: %s\n", msg);
}
