#include "parser/alloc.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

static long fail_at = -2;      /* -2: not read yet; -1: never fail */
static long alloc_count;

static int should_fail(void)
{
	if (fail_at == -2) {
		const char *s = getenv("HPROFAN_FAIL_ALLOC");
		fail_at = -1;
		if (s && *s) {
			char *end;
			long v = strtol(s, &end, 10);
			if (*end == '\0' && v > 0)
				fail_at = v;
		}
	}
	if (fail_at < 0)
		return 0;
	return ++alloc_count >= fail_at;
}

/*
 * Big arrays (the model's columns, the reference graph, the dominator
 * arrays) are advised to use transparent huge pages: filling them then
 * takes one page fault per 2 MiB instead of per 4 KiB, which on the bench
 * dump was about a fifth of the run's time spent in the kernel.
 */
#define HUGE_FROM ((size_t)8 << 20)

static void *advise(void *p, size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
	if (p && bytes >= HUGE_FROM) {
		const uintptr_t huge = (uintptr_t)2 << 20;
		uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1);
		uintptr_t b = ((uintptr_t)p + bytes) & ~(huge - 1);
		if (b > a)
			(void)madvise((void *)a, b - a, MADV_HUGEPAGE);   /* a hint; failure is harmless */
	}
#else
	(void)bytes;
#endif
	return p;
}

void *hp_malloc(size_t n)
{
	if (should_fail())
		return NULL;
	return advise(malloc(n ? n : 1), n);
}

void *hp_calloc(size_t n, size_t size)
{
	if (should_fail())
		return NULL;
	void *p = calloc(n ? n : 1, size ? size : 1);
	return size && n <= SIZE_MAX / size ? advise(p, n * size) : p;
}

void *hp_realloc(void *p, size_t n)
{
	if (should_fail())
		return NULL;
	return advise(realloc(p, n ? n : 1), n);
}

void *hp_reallocarray(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return hp_realloc(p, n * size);
}

void hp_free(void *p)
{
	free(p);
}

char *hp_strndup(const char *s, size_t n)
{
	char *d = hp_malloc(n + 1);
	if (!d)
		return NULL;
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

char *hp_strdup(const char *s)
{
	return hp_strndup(s, strlen(s));
}
