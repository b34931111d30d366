/* load_memory.c — bigger than memory: the budget and the directory of the
 * file-backed blocks set before a command runs; and when --max-memory
 * refused an allocation, the message that says so (once). */
#include "cli/load_state.h"
#include "cli/msg.h"
#include "cli/format.h"
#include "base/alloc.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- bigger than memory ------------------------------------------------ */

void cli_memory_setup(const char *file, const char *index_dir)
{
	struct hp_alloc_machine m;
	hp_alloc_machine(&m);
	/* Half of what the machine has available (MemAvailable: what others
	 * do not use, page cache counted as free), or a quarter of the
	 * cgroup's limit when smaller: that limit counts the page cache too,
	 * and the cache must hold the dump's pages and the working set of the
	 * file-backed blocks; our anonymous pages cannot be evicted (often no
	 * swap), the file pages a pass uses are kept and the others written
	 * back, so under a limit the fewer fixed pages the better. */
	uint64_t budget = m.available / 2;
	if (m.cgroup_limit && (!budget || m.cgroup_limit / 4 < budget))
		budget = m.cgroup_limit / 4;
	hp_alloc_set_budget(budget);
	char ix[PATH_MAX];
	if (file && cli_index_path(file, index_dir, ix, sizeof ix) == 0) {
		char *slash = strrchr(ix, '/');
		if (slash && slash != ix) {
			*slash = '\0';
			if (hp_alloc_set_spill_dir(ix) == 0 && cli_dir_writable(ix))
				return;
		}
	}
	const char *t = getenv("TMPDIR");
	if (t && *t && cli_dir_writable(t) && hp_alloc_set_spill_dir(t) == 0)
		return;
	if (cli_dir_writable("/tmp") && hp_alloc_set_spill_dir("/tmp") == 0)
		return;
	hp_alloc_set_spill_dir(NULL);
}

/* ---- --max-memory ---------------------------------------------------- */

static int limit_reported;     /* a message about the limit was printed */

/* "hprofan: FILE: ...; --max-memory is 500 MiB" */
void cli_limit_error(const char *file, const char *fmt, ...)
{
	char msg[600], l[32];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	/* the big arrays could not go to files either: why */
	char why[600] = "";
	if (hp_alloc_spill_failures())
		snprintf(why, sizeof why, "; files in %s could not hold the rest: %s",
			 hp_alloc_spill_dir(), strerror(hp_alloc_spill_errno()));
	else if (!hp_alloc_spill_dir()[0])
		snprintf(why, sizeof why, "; no writable directory for files to hold the rest");
	cli_error("%s: %s; --max-memory is %s%s", file, msg, cli_fmt_bytes(hp_alloc_limit(), l, sizeof l), why);
	limit_reported = 1;
}

int cli_limit_hit(const char *file)
{
	if (!hp_alloc_limit() || !hp_alloc_refusals())
		return 0;
	if (!limit_reported) {
		char a[32], b[32];
		cli_limit_error(file, "the memory limit was hit (%s asked for, %s in use)",
			    cli_fmt_bytes(hp_alloc_refused_request(), a, sizeof a),
			    cli_fmt_bytes(hp_alloc_refused_in_use(), b, sizeof b));
	}
	return 1;
}

