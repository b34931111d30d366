#include "parser/alloc.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__APPLE__)
#include <malloc/malloc.h>
#define usable_size(p) malloc_size(p)
#else
#include <malloc.h>
#define usable_size(p) malloc_usable_size(p)
#endif
#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
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

/* The advice covers the block's whole pages, the allocator's own mapping
 * of it included (malloc_usable_size() reaches its end): advising only the
 * huge-page-aligned middle split the mapping in three, and then realloc()'s
 * mremap() failed (EFAULT) and fell back to copying into fresh memory. */
static void *advise(void *p, size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
	if (p && bytes >= HUGE_FROM) {
		static uintptr_t page;
		if (!page)
			page = (uintptr_t)sysconf(_SC_PAGESIZE);
		uintptr_t a = (uintptr_t)p & ~(page - 1);
		uintptr_t b = ((uintptr_t)p + usable_size(p) + page - 1) & ~(page - 1);
		(void)madvise((void *)a, b - a, MADV_HUGEPAGE);   /* a hint; failure is harmless */
	}
#else
	(void)bytes;
#endif
	return p;
}

/* ---- the memory limit ------------------------------------------------ */

static uint64_t limit;          /* 0: no limit, no accounting */
static uint64_t in_use, peak, refusals, refused_request, refused_in_use;
static int last_refused;

/* 1 (and the refusal noted) when taking `sub` bytes away and adding `add`
 * would leave more than the limit in use */
static int refuse(uint64_t add, uint64_t sub)
{
	uint64_t base = in_use - (sub < in_use ? sub : in_use);
	if (add > limit || base > limit - add) {
		refusals++;
		refused_request = add;
		refused_in_use = in_use;
		last_refused = 1;
		return 1;
	}
	return 0;
}

/* a failure that is not the limit's */
static void *failed(void)
{
	last_refused = 0;
	return NULL;
}

static void account(uint64_t add, uint64_t sub)
{
	in_use = in_use - (sub < in_use ? sub : in_use) + add;
	if (in_use > peak)
		peak = in_use;
}

/* malloc (count == 0) or calloc(count, size) of n bytes under the limit;
 * the allocator's rounding counts, so a block it rounds past the limit
 * is given back and refused */
static __attribute__((noinline)) void *limited_alloc(size_t n, size_t count, size_t size)
{
	if (refuse(n, 0))
		return NULL;
	void *p = count ? calloc(count, size) : malloc(n);
	if (!p)
		return failed();
	size_t u = usable_size(p);
	if (u > n && refuse(u, 0)) {
		free(p);
		refused_request = n;
		return NULL;
	}
	account(u, 0);
	return advise(p, n);
}

static __attribute__((noinline)) void *limited_realloc(void *p, size_t n)
{
	size_t old = p ? usable_size(p) : 0;
	if (n > old && refuse(n, old))     /* shrinking is always allowed */
		return NULL;
	void *q = realloc(p, n);
	if (!q)
		return failed();
	account(usable_size(q), old);
	return advise(q, n);
}

static void spare_flush(void);

void hp_alloc_set_limit(uint64_t bytes)
{
	spare_flush();
	if (!bytes)
		in_use = peak = refusals = refused_request = refused_in_use = 0;
	limit = bytes;
	last_refused = 0;
}

uint64_t hp_alloc_limit(void) { return limit; }
uint64_t hp_alloc_in_use(void) { return in_use; }
uint64_t hp_alloc_peak(void) { return peak; }
uint64_t hp_alloc_refusals(void) { return refusals; }
int hp_alloc_refused_by_limit(void) { return last_refused; }
uint64_t hp_alloc_refused_request(void) { return refused_request; }
uint64_t hp_alloc_refused_in_use(void) { return refused_in_use; }

/* ---- spare blocks ------------------------------------------------------
 * On a virtual machine the first touch of fresh memory costs about a second
 * per GiB (the kernel zeroes each huge page, the host backs it), and glibc
 * gives every big block back to the system when it is freed.  So the big
 * blocks one phase frees (the model's sort scratch, the reference graph's
 * file-order edges, the dominators' node arrays) are kept, a few at most,
 * and the next big request takes one, resized in place (mremap) to the size
 * asked: the smallest that holds it, else the largest grown.  Not under a
 * memory limit, whose accounting then stays exact. */
#define SPARE_FROM ((size_t)32 << 20)
#define SPARE_MAX 8
static void *spare[SPARE_MAX];
static size_t nspare;

/* 1 when p, being freed, is kept */
static int spare_keep(void *p)
{
	if (limit || !p || usable_size(p) < SPARE_FROM)
		return 0;
	if (nspare == SPARE_MAX) {
		size_t s = 0;
		for (size_t i = 1; i < nspare; i++)
			if (usable_size(spare[i]) < usable_size(spare[s]))
				s = i;
		if (usable_size(spare[s]) >= usable_size(p))
			return 0;
		free(spare[s]);
		spare[s] = spare[--nspare];
	}
	spare[nspare++] = p;
	return 1;
}

/* a kept block resized to n bytes (contents undefined), or NULL */
static void *spare_take(size_t n)
{
	if (!nspare || n < SPARE_FROM || limit)
		return NULL;
	size_t best = SIZE_MAX, big = 0;
	for (size_t i = 0; i < nspare; i++) {
		size_t u = usable_size(spare[i]);
		if (u >= n && (best == SIZE_MAX || u < usable_size(spare[best])))
			best = i;
		if (u > usable_size(spare[big]))
			big = i;
	}
	if (best == SIZE_MAX)
		best = big;
	void *p = spare[best];
	spare[best] = spare[--nspare];
	size_t u = usable_size(p);
	if (u < n || u - n >= ((size_t)2 << 20)) {
		void *q = realloc(p, n);
		if (!q) {
			free(p);
			return NULL;
		}
		p = q;
	}
	return advise(p, n);
}

static void spare_flush(void)
{
	while (nspare)
		free(spare[--nspare]);
}

void hp_alloc_release_spare(void)
{
	spare_flush();
}

/* ---- the functions --------------------------------------------------- */

void *hp_malloc(size_t n)
{
	if (should_fail())
		return failed();
	if (limit)
		return limited_alloc(n ? n : 1, 0, 0);
	void *p = spare_take(n);
	if (p)
		return p;
	p = malloc(n ? n : 1);
	return p ? advise(p, n) : failed();
}

void *hp_calloc(size_t n, size_t size)
{
	if (should_fail())
		return failed();
	n = n ? n : 1;
	size = size ? size : 1;
	if (limit) {
		if (n > SIZE_MAX / size)
			return failed();
		return limited_alloc(n * size, n, size);
	}
	void *p = n <= SIZE_MAX / size ? spare_take(n * size) : NULL;
	if (p)
		return memset(p, 0, n * size);
	p = calloc(n, size);
	if (!p)
		return failed();
	return n <= SIZE_MAX / size ? advise(p, n * size) : p;
}

void *hp_realloc(void *p, size_t n)
{
	if (should_fail())
		return failed();
	if (limit)
		return limited_realloc(p, n ? n : 1);
	void *q = p ? NULL : spare_take(n);
	if (q)
		return q;
	q = realloc(p, n ? n : 1);
	return q ? advise(q, n) : failed();
}

void *hp_reallocarray(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return failed();
	return hp_realloc(p, n * size);
}

void hp_free(void *p)
{
	if (limit && p)
		account(0, usable_size(p));
	else if (spare_keep(p))
		return;
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
