/* hprofan path FILE ID: the shortest paths from GC roots to one object. */
#include "cli/command.h"
#include "cli/msg.h"
#include "cli/load.h"
#include "cli/output.h"
#include "cli/objtext.h"
#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>

#define DEFAULT_PATHS 5

struct path_opts {
	struct cli_count top;
};

static void defaults(void *own)
{
	((struct path_opts *)own)->top.n = DEFAULT_PATHS;
}

static const struct cli_option own[] = {
	OPT_TOP("the N shortest paths (default 5; 0 shows all)", OPT_OWN(struct path_opts, top)),
	OPT_END
};

struct path_result {
	const hp_heap *h;
	uint32_t v;
};

static void release(void *p)
{
	hp_free(p);
}

static int collect(struct cli_ctx *x, hp_session *S, void **res)
{
	uint64_t id;
	int rc = cli_id_arg(x, &id);
	if (rc)
		return rc;
	rc = cli_refuse_pipe(S, "path reads", "save it to a file");
	if (rc)
		return rc;
	struct path_result *r = cli_result_new(sizeof *r, res);
	if (!r)
		return EXIT_NOMEM;
	if ((rc = cli_model(S, &r->h)))
		return rc;
	size_t v;
	if ((rc = cli_object_arg(x, S, r->h, id, &v)))
		return rc;
	r->v = (uint32_t)v;
	hp_objread *rd;
	return cli_objread(S, &rd);
}

static int json(struct cli_ctx *x, hp_session *S, void *res, cJSON **doc)
{
	const struct path_opts *o = x->own;
	const struct path_result *r = res;
	size_t npaths = 0;
	cJSON *j = cli_json_begin(x, hp_session_path(S), S);
	*doc = j;
	cJSON_AddItemToObject(j, "target", cli_object_json(r->h, r->v));
	cJSON_AddStringToObject(j, "weak_referents", x->c->all_weak ? "followed" : "excluded");
	cJSON *arr = cJSON_AddArrayToObject(j, "paths");
	int rc = cli_list_paths(S, r->v, (size_t)o->top.n, x->c->all_weak, x->c->full_path, NULL, arr, &npaths);
	cJSON_AddBoolToObject(j, "reachable", npaths > 0);
	return rc;
}

static int text(struct cli_ctx *x, hp_session *S, void *res, FILE *f)
{
	const struct path_opts *o = x->own;
	const struct path_result *r = res;
	size_t npaths = 0;
	char lab[800];
	cli_partial_note(f, S);
	fprintf(f, "shortest paths from GC roots to %s (weak referents %s)\n",
		cli_object_label(r->h, r->v, lab, sizeof lab), x->c->all_weak ? "followed" : "excluded");
	int rc = cli_list_paths(S, r->v, (size_t)o->top.n, x->c->all_weak, x->c->full_path, f, NULL, &npaths);
	if (rc != EXIT_OK || npaths)
		return rc;
	/* through a weak referent, or not at all: the search that follows them tells */
	const struct hp_pathsearch *all = NULL;
	if (!x->c->all_weak && (rc = cli_paths(S, 1, &all)))
		return rc;
	if (all && hp_paths_parent(&all->P, r->v) != HP_PATH_UNSEEN)
		fprintf(f, "no GC root reaches it without going through the referent of a soft, weak, final or"
			" phantom reference (--all-weak follows those)\n");
	else
		fprintf(f, "no GC root reaches it\n");
	return EXIT_OK;
}

CLI_COMMAND(path, "hprofan path FILE ID", "shortest paths from GC roots to ID",
	    CLI_FILES(1, 1), CLI_ANSWERS, CLI_OWN(struct path_opts, defaults), .args = "ID",
	    CLI_TABLES(own, cli_opts_all_weak, cli_opts_full_path, cli_opts_model, cli_opts_load, cli_opts_output, cli_opts_quiet));
