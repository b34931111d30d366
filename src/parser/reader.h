/*
 * reader.h — bytes in: a sliding window over a dump, from a file, gzip or stdin.
 *
 * Regular uncompressed files are mmap()ed whole: the window is the file and
 * every request is satisfied in place.  gzip input (detected by its magic
 * bytes, including the concatenated members `jcmd GC.heap_dump -gz=N` writes)
 * and pipes are streamed through a buffer that starts at 1 MiB and grows only
 * as far as the largest single request actually present in the data, so
 * memory never depends on a length field the data does not back up.  A
 * thread of the reader's reads (inflates) them ahead, into four 1 MiB
 * chunks, so that inflating overlaps the parse; the bytes, their order and
 * where an error falls are the same as without it.  gzip is inflated by
 * ISA-L's igzip when hprofan is built with it, else by zlib (inflate.h);
 * the members of a jcmd -gz file, two threads inflate ahead (gzmembers.h).
 *
 * Offsets are positions in the uncompressed stream.  Pointers into the window
 * are valid until the next hp_rd_need/hp_rd_skip call.
 *
 * A spool (hp_reader_spool()): a streamed input (gzip, a pipe) can copy
 * every byte it takes in, in order, into a file, which then holds the
 * uncompressed stream (up to where reading stopped) at the same offsets, to
 * be mapped and read again like a plain dump.
 */
#ifndef HP_READER_H
#define HP_READER_H

#include <stddef.h>
#include <stdint.h>
#include "base/error.h"

enum hp_reader_kind { HP_RD_MMAP, HP_RD_FILE, HP_RD_GZIP };

struct hp_inflate;
struct hp_gzm;

typedef struct hp_reader hp_reader;
struct hp_reader {
	/* the window: [win, end) holds the bytes at [win_off, win_off + (end-win)) */
	const uint8_t *win, *pos, *end;
	uint64_t win_off;
	int at_eof;                 /* no more bytes will arrive after end */
	/* private */
	int kind, fd, own_fd;
	uint8_t *map; size_t map_len;
	uint8_t *buf; size_t cap;
	struct hp_inflate *z;       /* the inflater when gzip */
	uint8_t *zin; size_t zin_cap;
	int zin_eof;
	uint64_t z_members;         /* gzip members finished */
	uint64_t z_ahead;           /* of them, inflated ahead (gzmembers.h) */
	uint64_t z_in_total;        /* compressed bytes consumed */
	int z_in_member;            /* inside a member (not at a boundary) */
	uint64_t file_size;         /* size on disk; 0 when unknown (pipe) */
	uint64_t released;          /* mapped bytes before this were given back */
	uint8_t peek[16]; size_t peek_len, peek_pos;   /* sniffed bytes of a pipe */
	char *name;
	/* the input side: the read-ahead thread's while it runs (reader.c) */
	uint64_t src_members, src_in_total, src_ahead;
	struct hp_gzm *gzm;         /* a jcmd -gz file's members inflated ahead, NULL: not */
	int gzm_on;                 /* 1: the reader takes from its threads; -1: no more */
	size_t gz_block;            /* its members' most bytes (hp_gzm_signature()), 0: not jcmd's */
	int src_cut, src_rc;
	struct hp_error src_err;
	void *ra;                   /* the read-ahead thread, NULL: none */
	int ra_ok;                  /* start it on the next fill */
	int spool_fd;               /* -1: none (or given up) */
	int spool_errno;            /* why a write to the spool failed, 0 */
	uint64_t spooled;           /* bytes written to it */
};

/* Opens `path` ("-" is stdin).  Sniffs the first bytes: gzip is streamed,
 * zip archives, empty files and anything not starting "JAVA PROFILE" are
 * refused with HP_EFORMAT and a helpful message. */
int hp_reader_open(hp_reader **out, const char *path, struct hp_error *err) HP_MUST_USE;
void hp_reader_free(hp_reader *r);

const char *hp_reader_kind_name(const hp_reader *r);
/* gzip: the inflater, "isal" or "zlib"; else NULL */
const char *hp_reader_inflater(const hp_reader *r);

/* From now on every byte the reader takes in is also written to fd (which
 * the caller owns), for a streamed input only (not a mapped file): call it
 * right after hp_reader_open(), before anything is read past the header.
 * A failed write (disk full) stops the copy and keeps its errno:
 * hp_reader_spooled() then returns -1 with *errnum set; else the bytes
 * written, which are the stream's first bytes: at least those taken in
 * (more when it read ahead).  hp_reader_spooled() stops reading ahead: the
 * reader is only to be freed after it. */
void hp_reader_spool(hp_reader *r, int fd);
int64_t hp_reader_spooled(hp_reader *r, int *errnum);
/* compressed bytes consumed so far (gzip) or uncompressed offset; for progress */
uint64_t hp_reader_progress(const hp_reader *r);

/* Tells the reader nothing before `off` will be read again: a mapped file
 * gives those pages back (they stay in the page cache) in steps of 8 MiB,
 * so reading a dump of any size keeps only a few MiB of it resident. */
void hp_reader_release_before(hp_reader *r, uint64_t off);

int hp_rd_fill(hp_reader *r, size_t n, struct hp_error *err);
int hp_rd_skip_slow(hp_reader *r, uint64_t n, struct hp_error *err);

static inline uint64_t hp_rd_offset(const hp_reader *r)
{
	return r->win_off + (uint64_t)(r->pos - r->win);
}

static inline size_t hp_rd_avail(const hp_reader *r)
{
	return (size_t)(r->end - r->pos);
}

/* Makes at least n bytes available at r->pos.  HP_ETRUNC (no message set)
 * when the input ends first; hp_rd_avail() then tells how many remain. */
static inline int hp_rd_need(hp_reader *r, size_t n, struct hp_error *err)
{
	if ((size_t)(r->end - r->pos) >= n)
		return HP_OK;
	return hp_rd_fill(r, n, err);
}

/* Skips n bytes; HP_ETRUNC when the input ends first (pos is then at the end). */
static inline int hp_rd_skip(hp_reader *r, uint64_t n, struct hp_error *err)
{
	if ((uint64_t)(r->end - r->pos) >= n) {
		r->pos += n;
		return HP_OK;
	}
	return hp_rd_skip_slow(r, n, err);
}

/* Total bytes of uncompressed input when known (mmap), else 0. */
static inline uint64_t hp_rd_known_size(const hp_reader *r)
{
	return r->kind == HP_RD_MMAP ? (uint64_t)r->map_len : 0;
}

#endif
