/*
 * progress.h — the progress line on the terminal (load_progress.c): what,
 * how far, how fast, how long still, on stderr; redrawn at most 4 times a
 * second after the first second of a phase, erased when the phase ends.
 * The sessions' loads show it per phase; redact shows it for its passes.
 */
#ifndef HP_CLI_PROGRESS_H
#define HP_CLI_PROGRESS_H

#include <stdint.h>

struct cli_progress {
	int enabled, shown, phase;
	double start, last;
	const char *name;             /* the file's name, safe for the terminal */
};

/* the line for done of total bytes (total 0: not known) under "what NAME",
 * when enabled and due; a new phase restarts the clock and erases the line
 * of the one before */
void cli_progress_show(struct cli_progress *p, int phase, const char *what, uint64_t done, uint64_t total);
/* the line erased, if shown */
void cli_progress_end(struct cli_progress *p);
/* the session's progress callback (session.h), ud a struct cli_progress */
void cli_progress_cb(void *ud, int phase, uint64_t done, uint64_t total);
/* when set, cli_progress_cb() tells it too, whether the line is shown or
 * not (hprofan mcp's workers: notifications/progress) */
extern void (*cli_progress_hook)(int phase, const char *what, const char *name, uint64_t done, uint64_t total);

#endif
