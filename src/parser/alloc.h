/*
 * alloc.h — the allocation functions every layer uses.
 *
 * They behave like malloc/realloc/calloc, with one addition for testing:
 * when the environment variable HPROFAN_FAIL_ALLOC=N is set, the Nth
 * allocation (counting from 1) and every later one fail, so tests can prove
 * that running out of memory ends in an error message, never a crash.
 */
#ifndef HP_ALLOC_H
#define HP_ALLOC_H
#include <stddef.h>

void *hp_malloc(size_t n);
void *hp_calloc(size_t n, size_t size);
void *hp_realloc(void *p, size_t n);
/* realloc of an array of n elements of `size` bytes, failing on overflow */
void *hp_reallocarray(void *p, size_t n, size_t size);
void hp_free(void *p);
char *hp_strdup(const char *s);
char *hp_strndup(const char *s, size_t n);

#endif
