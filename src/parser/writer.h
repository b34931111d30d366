/*
 * writer.h — bytes out: an HPROF stream written to a file descriptor, plain
 * or gzip (one member, zlib's deflate at the level asked for).
 *
 * The writer buffers 1 MiB (plus what one hp_writer_space() asks for) and
 * writes it out in whole; a piece larger than the buffer goes to the file
 * directly when the output is plain.  Memory does not depend on the size of
 * what is written.  The helpers below encode HPROF's big-endian numbers and
 * record heads; what goes where is the caller's business (a copier such as
 * src/tools/redact.c takes the bytes from the parser's raw stream).
 *
 * Errors are HP_EIO (the write failed: disk full, broken pipe) and HP_ENOMEM,
 * with the message in struct hp_error.  The descriptor stays the caller's:
 * hp_writer_free() does not close it.
 */
#ifndef HP_WRITER_H
#define HP_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include "base/error.h"

typedef struct hp_writer hp_writer;

/* gzip_level 0: plain; 1..9: gzip at that level */
int hp_writer_new(hp_writer **out, int fd, int gzip_level, struct hp_error *err) HP_MUST_USE;
void hp_writer_free(hp_writer *w);

int hp_writer_write(hp_writer *w, const void *p, size_t n, struct hp_error *err) HP_MUST_USE;
/* count copies of the unit (1, 2, 4 or 8 bytes) */
int hp_writer_fill(hp_writer *w, const uint8_t *unit, unsigned unit_len, uint64_t count,
		   struct hp_error *err) HP_MUST_USE;
/* n contiguous bytes in the buffer to fill, then hp_writer_commit(w, n);
 * NULL (err set) when out of memory or a flush fails */
uint8_t *hp_writer_space(hp_writer *w, size_t n, struct hp_error *err);
void hp_writer_commit(hp_writer *w, size_t n);

/* a record's head: tag, time, body length */
int hp_writer_record(hp_writer *w, int tag, uint32_t time, uint32_t len, struct hp_error *err) HP_MUST_USE;

/* Writes out what is buffered and, for gzip, ends the member. */
int hp_writer_finish(hp_writer *w, struct hp_error *err) HP_MUST_USE;
/* Starts again from an empty output (lseek + ftruncate): HP_EUSAGE unless
 * the descriptor is a regular file the writer started at offset 0 and not
 * in append mode (never a pipe, a terminal, or a file written after). */
int hp_writer_rewind(hp_writer *w, struct hp_error *err) HP_MUST_USE;
/* 1 once writing to the descriptor failed (the error was the output's, not the input's) */
int hp_writer_failed(const hp_writer *w);
/* whether hp_writer_rewind() can work */
int hp_writer_seekable(const hp_writer *w);

/* bytes written so far: uncompressed, and to the descriptor */
uint64_t hp_writer_offset(const hp_writer *w);
uint64_t hp_writer_file_bytes(const hp_writer *w);

/* big-endian stores */
static inline void hp_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}

#endif
