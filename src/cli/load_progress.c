/* load_progress.c — the progress line on the terminal while a session
 * reads a dump, references or paths: what, how far, how fast, how long
 * still; redrawn at most 4 times a second, erased when the phase ends. */
#include "cli/load_state.h"
#include "cli/format.h"

#include <stdio.h>
#include <time.h>

/* ---- progress --------------------------------------------------------- */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void cli_progress_end(struct progress *p)
{
	if (p->shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		p->shown = 0;
	}
}

void cli_progress_cb(void *ud, int phase, uint64_t done, uint64_t total)
{
	struct progress *p = ud;
	if (!p->enabled)
		return;
	double t = now();
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
	const char *what = phase == HP_PHASE_READ ? "reading" : phase == HP_PHASE_REFS ? "references in"
			   : "paths in";
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
