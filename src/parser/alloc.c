#include "parser/alloc.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

void *hp_malloc(size_t n)
{
	if (should_fail())
		return NULL;
	return malloc(n ? n : 1);
}

void *hp_calloc(size_t n, size_t size)
{
	if (should_fail())
		return NULL;
	return calloc(n ? n : 1, size ? size : 1);
}

void *hp_realloc(void *p, size_t n)
{
	if (should_fail())
		return NULL;
	return realloc(p, n ? n : 1);
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
