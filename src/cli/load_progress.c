/* load_progress.c — the progress line on the terminal (progress.h) while
 * a session reads a dump, references or paths, or redact its passes. */
#include "cli/progress.h"
#include "base/clock.h"
#include "cli/load_state.h"
#include "cli/format.h"

#include <stdio.h>
#include <time.h>

void (*cli_progress_hook)(int phase, const char *what, const char *name, uint64_t done, uint64_t total);

void cli_progress_end(struct cli_progress *p)
{
	if (p->shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		p->shown = 0;
	}
}

void cli_progress_show(struct cli_progress *p, int phase, const char *what, uint64_t done, uint64_t total)
{
	if (!p->enabled)
		return;
	double t = hp_now();
	if (phase != p->phase || p->start == 0) {
		cli_progress_end(p);
		p->phase = phase;
		p->start = t;
		p->last = 0;
	}
	if (t - p->start < 1.0 || t - p->last < 0.25)
		return;
	p->last = t;
	p->shown = 1;
	double rate = done / (t - p->start);
	char a[32], b[32], r[32];
	if (total && done <= total) {
		double eta = rate > 0 ? (total - done) / rate : 0;
		fprintf(stderr, "\rhprofan: %s %s: %s of %s (%.0f%%), %s/s, ETA %.0fs   ",
			what, p->name, cli_fmt_bytes(done, a, sizeof a), cli_fmt_bytes(total, b, sizeof b),
			100.0 * done / total, cli_fmt_bytes((uint64_t)rate, r, sizeof r), eta);
	} else {
		fprintf(stderr, "\rhprofan: %s %s: %s, %s/s   ", what, p->name,
			cli_fmt_bytes(done, a, sizeof a), cli_fmt_bytes((uint64_t)rate, r, sizeof r));
	}
	fflush(stderr);
}

void cli_progress_cb(void *ud, int phase, uint64_t done, uint64_t total)
{
	const char *what = phase == HP_PHASE_READ ? "reading" : phase == HP_PHASE_REFS ? "references in"
			   : "paths in";
	if (cli_progress_hook)
		cli_progress_hook(phase, what, ((struct cli_progress *)ud)->name, done, total);
	cli_progress_show(ud, phase, what, done, total);
}
