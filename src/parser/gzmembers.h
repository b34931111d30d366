/*
 * gzmembers.h — the members of a `jcmd GC.heap_dump -gz=N` file inflated
 * ahead, two at a time, each on a thread of its own (the reader's thread
 * puts them in order).
 *
 * The VM writes the dump in blocks of at most N bytes (BLOCKSIZE, 1 MiB),
 * each a gzip member of its own, the first one's header saying "HPROF
 * BLOCKSIZE=N" in its comment, every header with MTIME 0.  Where the
 * member being inflated ends is not known before it is inflated, so the
 * next one is looked for by such a header; a member is taken only when it starts where the one
 * before it ended, and it was inflated whole: its header, its data, its
 * CRC-32 and ISIZE checked, at most BLOCKSIZE bytes.  Anything else (a
 * member that is corrupt, cut short or larger, garbage or padding after
 * the last, the end) is left to the reader, which inflates on from there
 * itself, in order, as without this: the bytes, the errors and where they
 * fall are the same.
 *
 * Regular files only (the threads read with pread()).  Memory: four
 * BLOCKSIZE buffers of inflated bytes, and each thread's inflater and a
 * 256 KiB buffer of its input, all allocated by hp_gzm_new().
 */
#ifndef HP_GZMEMBERS_H
#define HP_GZMEMBERS_H

#include <stddef.h>
#include <stdint.h>

#define HP_GZM_SIG_MAX 64

typedef struct hp_gzm hp_gzm;

/* When b[0..n) (a gzip file's first bytes) starts with the header jcmd
 * gives the first member (FCOMMENT "HPROF BLOCKSIZE=N", no other field,
 * MTIME 0, N from 4 KiB to 4 MiB): the header's length, with N in
 * *block; else 0. */
size_t hp_gzm_signature(const uint8_t *b, size_t n, size_t *block);

/* Everything the threads need, for the stream in fd (file_size bytes)
 * whose members inflate to at most `block` bytes (hp_gzm_signature()),
 * with inflaters of `kind`.  NULL when the memory is not there; nothing
 * runs yet. */
hp_gzm *hp_gzm_new(int fd, uint64_t file_size, size_t block, int kind);
/* Starts the threads at compressed offset `at`, where a member starts:
 * 0 when none could be started. */
int hp_gzm_start(hp_gzm *g, uint64_t at);
/* The next inflated bytes, in order, of the member that starts at *at:
 * up to n of them into dst (*got, maybe 0).  When they were the member's
 * last, *at becomes its end and *done 1.  0 when there is no member
 * inflated ahead at *at (then the threads are stopped, and the caller
 * inflates from *at on itself); else 1. */
int hp_gzm_take(hp_gzm *g, uint8_t *dst, size_t n, size_t *got, uint64_t *at, int *done);
/* Stops the threads and waits for them (a member each at most). */
void hp_gzm_stop(hp_gzm *g);
void hp_gzm_free(hp_gzm *g);

#endif
