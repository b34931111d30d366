/* run.c — how a command that answers about one dump runs: open the
 * session, collect, render as JSON or a table, say what comes after; and
 * the result collect() allocates. */
#include "cli/command.h"
#include "cli/load.h"
#include "cli/output.h"
#include "cli/msg.h"
#include "base/alloc.h"

int cli_run_one(struct cli_ctx *x)
{
	const struct cli_command *c = x->cmd;
	hp_session *S = NULL;
	int rc = cli_session(x, x->files[0], &S);
	if (rc)
		return rc;
	void *res = NULL;
	rc = c->collect(x, S, &res);
	int collected = rc == EXIT_OK;
	if (rc == EXIT_OK) {
		if (x->c->json) {
			cJSON *doc = NULL;
			rc = c->json(x, S, res, &doc);
			rc = cli_json_end(x, doc, rc);
		} else {
			struct cli_out out;
			FILE *f = cli_text_begin(&out);
			rc = f ? c->text(x, S, res, f) : EXIT_NOMEM;
			rc = cli_text_end(x, &out, rc);
		}
	}
	if (collected && c->after)
		c->after(x, S, res);
	/* with --stats the index is written first, for its phase's figures */
	if (collected && x->c->stats)
		cli_session_write_index(S, NULL);
	if (collected)
		cli_print_stats(x, S);
	if (c->release)
		c->release(res);
	cli_session_close(S);
	return rc;
}

void *cli_result_new(size_t size, void **res)
{
	void *r = hp_calloc(1, size);
	if (!r)
		cli_error("out of memory");
	*res = r;
	return r;
}
