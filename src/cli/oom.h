/* oom.h — the out-of-memory block that info, leaks and report share: the
 * thread that hit the OutOfMemoryError of a dump HotSpot wrote at one, its
 * frames and the biggest consumers at that moment (analysis/oom.h says
 * what is certain and what is inferred). */
#ifndef HP_CLI_OOM_H
#define HP_CLI_OOM_H

#include <stdio.h>
#include "cli/command.h"
#include "analysis/oom.h"
#include "model/objread.h"

#define CLI_OOM_CONSUMERS 5

/* borrowed from the session: valid until it closes */
struct cli_oom {
	struct hp_oom o;
	const hp_heap *h;
	const struct hp_retained *R;  /* NULL: no retained sizes (a pipe) */
	struct hp_text name;          /* the thread's name, empty when it has none */
	size_t obj;                   /* its Thread object, SIZE_MAX when absent */
	uint32_t top[CLI_OOM_CONSUMERS];
	uint32_t top_frame[CLI_OOM_CONSUMERS];  /* the thread's frame holding it, HP_FRAME_NONE: none */
	size_t ntop;
};

/* Looks for the thread on the model of S; when found and the dump can be
 * read again, the retained sizes and the thread's name too.  EXIT_OK
 * (also when there is none: o.found is 0) or an exit code, said. */
int cli_oom_collect(hp_session *S, struct cli_oom *m);
void cli_oom_release(struct cli_oom *m);
/* "out_of_memory" into j when the thread was found; nothing otherwise */
void cli_oom_json(cJSON *j, const struct cli_oom *m);
/* the block of lines, then a blank line; nothing when not found */
void cli_oom_text(FILE *f, const struct cli_oom *m);

#endif
