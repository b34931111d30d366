/*
 * alloc.h — the allocation functions every layer uses.
 *
 * They behave like malloc/realloc/calloc, with two additions:
 *
 * Fault injection: when the environment variable HPROFAN_FAIL_ALLOC=N is
 * set, the Nth allocation (counting from 1) and every later one fail, so
 * tests can prove that running out of memory ends in an error message,
 * never a crash.
 *
 * A memory limit (hprofan --max-memory): hp_alloc_set_limit(bytes) makes the
 * functions account for the bytes they hand out (malloc_usable_size(), so
 * the allocator's rounding counts) and refuse, returning NULL, any request
 * that would take the bytes in use over the limit.  A refusal is told apart
 * from the system running out of memory by hp_alloc_refused_by_limit().
 * Without a limit nothing is accounted and nothing is measured: the
 * functions cost what malloc costs.  The one overshoot: a realloc that the
 * limit allows for the size asked may come back rounded up past it by the
 * allocator; the next request is then refused.  Single-threaded, like the
 * rest of the library.
 */
#ifndef HP_ALLOC_H
#define HP_ALLOC_H
#include <stddef.h>
#include <stdint.h>

void *hp_malloc(size_t n);
void *hp_calloc(size_t n, size_t size);
void *hp_realloc(void *p, size_t n);
/* realloc of an array of n elements of `size` bytes, failing on overflow */
void *hp_reallocarray(void *p, size_t n, size_t size);
void hp_free(void *p);
char *hp_strdup(const char *s);
char *hp_strndup(const char *s, size_t n);

/* Big freed blocks are kept for the next big request (alloc.c: fresh memory
 * is slow to touch); this gives back the ones no request has taken. */
void hp_alloc_release_spare(void);

/* Sets the limit in bytes; 0 removes it, stops the accounting and clears
 * the counters.  Set it before allocating: memory allocated while no limit
 * was set is not counted (freeing it later subtracts nothing below 0). */
void hp_alloc_set_limit(uint64_t bytes);
uint64_t hp_alloc_limit(void);
/* bytes handed out and not yet freed, and the most there ever were, since
 * the limit was set (0 without a limit) */
uint64_t hp_alloc_in_use(void);
uint64_t hp_alloc_peak(void);
/* requests the limit refused so far */
uint64_t hp_alloc_refusals(void);
/* 1 when the latest allocation that failed was refused by the limit; 0 when
 * it failed otherwise (the system, an overflow, HPROFAN_FAIL_ALLOC) or none
 * has failed.  Successes leave it as it is, so a caller that frees or
 * allocates on its way out of a failure still reads the failure's cause. */
int hp_alloc_refused_by_limit(void);
/* the size of the latest refused request, and the bytes in use then */
uint64_t hp_alloc_refused_request(void);
uint64_t hp_alloc_refused_in_use(void);

#endif
