/* cmd_index.c — hprofan index: build the index of each dump now (the model
 * and retained sizes under the options given), so that the commands after
 * it map it instead of parsing (session/index.h, docs/index-format.md). */
#include "cli/command.h"
#include "cli/msg.h"
#include "cli/format.h"
#include "cli/load.h"
#include "cli/output.h"
#include "session/index.h"

#include <limits.h>
#include <string.h>
#include <sys/stat.h>

static int index_one(struct cli_ctx *x, const char *file)
{
	char where[PATH_MAX + 64];
	if (x->c->no_index) {
		cli_error("index: --no-index leaves nothing to do");
		return EXIT_USAGE;
	}
	if (cli_index_path(file, x->c->index_dir, where, sizeof where) != 0) {
		cli_error("%s: no index for it: it is not a regular file, or no directory can hold its index "
			  "(beside it, or under $XDG_CACHE_HOME/hprofan)", file);
		return EXIT_USAGE;
	}
	if (x->c->max_memory) {
		cli_error("index: --max-memory is for the analyses, an index is not built under it");
		return EXIT_USAGE;
	}
	hp_session *S;
	int rc = cli_session(x, file, &S);
	if (rc)
		return rc;
	const hp_heap *h;
	const struct hp_retained *R;
	rc = cli_retained(S, &h, &R);
	if (!rc) {
		char sz[32];
		uint64_t bytes = 0;
		int pending = hp_session_index_pending(S);
		if (hp_session_index_state(S, NULL) == HP_INDEX_UNTRUSTED) {
			rc = EXIT_BAD;   /* (said when the session closes) */
		} else if (pending && !cli_session_write_index(S, &bytes)) {
			rc = EXIT_BAD;
		} else {
			struct stat st;
			if (!pending && stat(where, &st) == 0)
				bytes = (uint64_t)st.st_size;
			char no[32], ne[32];
			printf("%s: index %s %s (%s, %.1f bytes per object)\n", file, where,
			       pending ? "written" : "up to date", cli_fmt_bytes(bytes, sz, sizeof sz),
			       h->nobj ? (double)bytes / (double)h->nobj : 0.0);
			printf("  %s objects, %s references; size model %s: ref %u, header %u, align %u; "
			       "retained sizes under weak %s, roots %s\n",
			       cli_fmt_count(h->nobj, no, sizeof no), cli_fmt_count(hp_refs_total(&R->refs), ne, sizeof ne),
			       hp_size_kind_name(h->size.kind), h->size.ref_size, h->size.header, h->size.align,
			       hp_weak_policy_name(R->weak), cli_roots_policy_name(R->roots_policy));
			cli_print_stats(x, S);
		}
	}
	cli_session_close(S);
	return rc;
}

static int run(struct cli_ctx *x)
{
	int rc = EXIT_OK;
	for (int i = 0; i < x->nfiles; i++) {
		int r = index_one(x, x->files[i]);
		if (r && !rc)
			rc = r;
	}
	return rc;
}

CLI_COMMAND(index, "hprofan index FILE...", "build the index of each dump now, for the commands after it",
	    CLI_FILES(1, 1024), .run = run,
	    CLI_TABLES(cli_opts_model, cli_opts_policy, cli_opts_load_unmapped, cli_opts_quiet));
