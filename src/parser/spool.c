/* spool.c — a streamed input's copy, made, checked and closed (spool.h). */
#include "parser/spool.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void hp_spool_init(struct hp_spool *sp)
{
	sp->fd = -1;
	sp->ok = 0;
	sp->path[0] = sp->note[0] = '\0';
}

void hp_spool_close(struct hp_spool *sp)
{
	if (sp->fd >= 0)
		close(sp->fd);
	sp->fd = -1;
	sp->ok = 0;
}

/* an unlinked file in the spool directory: only the open descriptor keeps
 * it, so it is gone when that is closed, however the process ends */
void hp_spool_create(struct hp_spool *sp, const char *dir)
{
	if (!dir || !*dir) {
		snprintf(sp->note, sizeof sp->note, "no directory for a copy of the input");
		return;
	}
	char tmpl[PATH_MAX];
	if (snprintf(tmpl, sizeof tmpl, "%s/hprofan-spool.XXXXXX", dir) >= (int)sizeof tmpl) {
		snprintf(sp->note, sizeof sp->note, "cannot create a file in %s: name too long", dir);
		return;
	}
	int fd = mkostemp(tmpl, O_CLOEXEC);
	if (fd < 0) {
		snprintf(sp->note, sizeof sp->note, "cannot create a file in %s: %s", dir, strerror(errno));
		return;
	}
	unlink(tmpl);
	sp->fd = fd;
	sp->note[0] = '\0';
}

/* after the pass that filled it: later passes read it by a name of the
 * open descriptor, when the system has one */
void hp_spool_done(struct hp_spool *sp, hp_reader *r, const char *dir)
{
	int e = 0;
	int64_t n = hp_reader_spooled(r, &e);
	if (n < 0) {
		snprintf(sp->note, sizeof sp->note, "cannot write to %s: %s", dir, strerror(e));
		hp_spool_close(sp);
		return;
	}
	/* every byte the reader took in (and what it read ahead), and the
	 * file holds them */
	struct stat st;
	if ((uint64_t)n < r->win_off + (uint64_t)(r->end - r->win) || fstat(sp->fd, &st) != 0 ||
	    (uint64_t)st.st_size != (uint64_t)n) {
		snprintf(sp->note, sizeof sp->note, "its copy in %s is not the whole input", dir);
		hp_spool_close(sp);
		return;
	}
	snprintf(sp->path, sizeof sp->path, "/dev/fd/%d", sp->fd);
	int fd = open(sp->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(sp->note, sizeof sp->note, "cannot open its copy again as %s: %s", sp->path,
			 strerror(errno));
		hp_spool_close(sp);
		return;
	}
	close(fd);
	sp->ok = 1;
}
