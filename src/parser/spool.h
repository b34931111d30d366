/*
 * spool.h — the copy of a streamed input (gzip, a pipe) that lets a
 * session (session/session.h) or redact read it more than once.
 *
 * The pass that builds the object table (or, when the model came from the
 * index, one that only inflates) copies every byte the reader takes in
 * into the spool (hp_reader_spool(), parser/reader.h): an
 * unlinked file in the spool directory, which only its open descriptor
 * keeps, so it is gone when the session closes it or the process ends,
 * however it ends.  Once that pass has read the whole input, later passes
 * open it by a name of the descriptor (/dev/fd/N) like a plain dump: a
 * gzip dump is inflated once, a pipe read twice.  When the spool cannot be
 * made, written or opened again, `note` says why (one line, for a
 * warning), and the caller reads the input again itself or, for a pipe,
 * cannot.
 *
 * Disk: the input's uncompressed bytes, for the session's life.  Memory:
 * this struct.
 */
#ifndef HP_PARSER_SPOOL_H
#define HP_PARSER_SPOOL_H

#include <limits.h>
#include "parser/reader.h"

struct hp_spool {
	int fd;                       /* the unlinked file, open; -1 none */
	int ok;                       /* it holds the whole input, named path */
	char path[32];                /* /dev/fd/N */
	char note[PATH_MAX + 160];    /* why there is no spool, or "" */
};

/* no spool yet (fd -1) */
void hp_spool_init(struct hp_spool *sp);
/* the file made in dir (NULL or "": none, and note says so) */
void hp_spool_create(struct hp_spool *sp, const char *dir);
/* after the pass that filled it from r: ok when it holds every byte r
 * took in and can be opened again by path, else closed with note set
 * (dir names the directory in the note) */
void hp_spool_done(struct hp_spool *sp, hp_reader *r, const char *dir);
/* closes it (the file goes with its descriptor); note is kept */
void hp_spool_close(struct hp_spool *sp);

#endif
