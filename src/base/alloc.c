/*
 * alloc.c — hp_malloc and its kin (alloc.h): fault injection
 * (HPROFAN_FAIL_ALLOC), the --max-memory limit and the budget with their
 * counters, big blocks spilled to unlinked files past them, huge-page
 * advice for big arrays, a few freed big blocks kept for the next phase;
 * and the machine's figures (available memory, cgroup limit, page traffic).
 * All state is process-wide; the counted paths take a lock.
 */
#include "base/alloc.h"
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
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* ---- the memory limit and the budget ---------------------------------- */

static uint64_t limit;          /* 0: no limit */
static uint64_t f_bytes, f_peak, f_blocks, f_failures;   /* file-backed blocks, below */
static uint64_t budget;         /* 0: none; else big blocks past it go to files */
static uint64_t in_use, peak, refusals, refused_request, refused_in_use;
static uint64_t phase_peak;    /* peak since the latest hp_alloc_phase_peak() */
static int last_refused;

/* 1 (and the refusal noted) when taking `sub` bytes away and adding `add`
 * would leave more than the limit in use */
static int refuse(uint64_t add, uint64_t sub)
{
	if (!limit)
		return 0;
	uint64_t base = in_use - (sub < in_use ? sub : in_use);
	if (add > limit || base > limit - add) {
		refusals++;
		refused_request = add;
		refused_in_use = in_use + f_bytes;
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
	if (in_use > phase_peak)
		phase_peak = in_use;
}

/* ---- file-backed blocks ------------------------------------------------
 *
 * A block of SPILL_MIN bytes or more that would take the anonymous memory
 * in use past the limit (or the budget, the smaller of the two) is a
 * shared mapping of a file of its own, opened unlinked (O_TMPFILE, else
 * mkstemp() and unlink() at once) in the spill directory, so it is gone
 * when the process ends, however it ends.  Its blocks are reserved with
 * posix_fallocate() first, so a full disk is an error here, never a SIGBUS
 * later.  realloc() grows or shrinks the file and mremap()s; free()
 * unmaps and closes (the kernel drops the dirty pages of a deleted file
 * without writing them).  Such blocks are page-aligned and few (the
 * model's columns, the graph, the dominator arrays): hp_free() and
 * hp_realloc() look a page-aligned pointer up in a short table.
 */
#define SPILL_MIN ((size_t)64 << 10)

struct fblock {
	char *p;
	size_t len;          /* mapped and file length, a multiple of the page */
	int fd;
};
static struct fblock *fb;
static size_t nfb, capfb;
static char spill_dir[4096];
static int f_errno;

static size_t page_size(void)
{
	static size_t ps;
	if (!ps) {
		long v = sysconf(_SC_PAGESIZE);
		ps = v > 0 ? (size_t)v : 4096;
	}
	return ps;
}

static size_t page_round(size_t n)
{
	size_t ps = page_size();
	return n > SIZE_MAX - ps ? 0 : (n + ps - 1) / ps * ps;
}

static long fb_find(const void *p)
{
	if (!nfb || ((uintptr_t)p & (page_size() - 1)))
		return -1;
	for (size_t i = nfb; i-- > 0;)
		if (fb[i].p == p)
			return (long)i;
	return -1;
}

static void f_count(size_t add, size_t sub)
{
	f_bytes = f_bytes - sub + add;
	if (f_bytes > f_peak)
		f_peak = f_bytes;
}

/* the failure of a file-backed block: noted, errno kept */
static void *f_failed(int e, int fd)
{
	if (fd >= 0)
		close(fd);
	f_failures++;
	f_errno = e ? e : EIO;
	return NULL;
}

/* 1 when a block of n bytes, replacing `sub` bytes of anonymous memory,
 * goes to a file */
static int to_file(uint64_t n, uint64_t sub)
{
	if (!spill_dir[0] || n < SPILL_MIN)
		return 0;
	/* under a limit, big blocks leave a quarter of it to the small ones */
	uint64_t cap = limit ? limit - limit / 4 : budget;
	if (budget && budget < cap)
		cap = budget;
	if (!cap)
		return 0;
	uint64_t base = in_use - (sub < in_use ? sub : in_use);
	return n > cap || base > cap - n;
}

static int f_open(void)
{
	int fd = -1;
#ifdef O_TMPFILE
	fd = open(spill_dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0 || (errno != EISDIR && errno != EOPNOTSUPP && errno != EINVAL))
		return fd;
#endif
	char path[sizeof spill_dir + 32];
	int w = snprintf(path, sizeof path, "%s/.hprofan-spill-XXXXXX", spill_dir);
	if (w < 0 || (size_t)w >= sizeof path) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = mkstemp(path);
	if (fd >= 0) {
		unlink(path);
		(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
	}
	return fd;
}

/* a new zero-filled file-backed block of n bytes, or NULL (f_errno) */
static void *f_alloc(size_t n)
{
	size_t len = page_round(n);
	if (!len)
		return f_failed(ENOMEM, -1);
	if (nfb == capfb) {
		size_t nc = capfb ? 2 * capfb : 16;
		struct fblock *t = realloc(fb, nc * sizeof *t);
		if (!t)
			return f_failed(ENOMEM, -1);
		fb = t;
		capfb = nc;
	}
	int fd = f_open();
	if (fd < 0)
		return f_failed(errno, -1);
	int e = posix_fallocate(fd, 0, (off_t)len);
	if (e)
		return f_failed(e, fd);
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return f_failed(errno, fd);
	/* no read-around: a fault reads its own page, not read_ahead_kb
	 * (often megabytes) of pages a random walk will not touch */
	(void)madvise(p, len, MADV_RANDOM);
	fb[nfb++] = (struct fblock){ p, len, fd };
	f_blocks++;
	f_count(len, 0);
	return p;
}

/* block i resized to n bytes (new bytes zero), or NULL with it unchanged */
static void *f_realloc(size_t i, size_t n)
{
	struct fblock *b = &fb[i];
	size_t len = page_round(n ? n : 1);
	if (!len)
		return NULL;
	if (len == b->len)
		return b->p;
	if (len > b->len) {
		int e = posix_fallocate(b->fd, (off_t)b->len, (off_t)(len - b->len));
		if (e) {
			f_failed(e, -1);
			(void)ftruncate(b->fd, (off_t)b->len);
			return NULL;
		}
	}
	void *q = mremap(b->p, b->len, len, MREMAP_MAYMOVE);
	if (q == MAP_FAILED) {
		f_failed(errno, -1);
		if (len > b->len)
			(void)ftruncate(b->fd, (off_t)b->len);
		return NULL;
	}
	if (len < b->len)
		(void)ftruncate(b->fd, (off_t)len);   /* the tail's disk blocks back */
	f_count(len, b->len);
	b->p = q;
	b->len = len;
	return q;
}

static void f_free(size_t i)
{
	munmap(fb[i].p, fb[i].len);
	close(fb[i].fd);
	f_count(0, fb[i].len);
	fb[i] = fb[--nfb];
}

int hp_alloc_set_spill_dir(const char *dir)
{
	if (!dir || !*dir) {
		spill_dir[0] = '\0';
		return 0;
	}
	struct stat st;
	size_t l = strlen(dir);
	if (l >= sizeof spill_dir) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (stat(dir, &st) != 0)
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	memcpy(spill_dir, dir, l + 1);
	return 0;
}

const char *hp_alloc_spill_dir(void) { return spill_dir; }
void hp_alloc_set_budget(uint64_t bytes) { budget = bytes; }
uint64_t hp_alloc_budget(void) { return budget; }
uint64_t hp_alloc_spilled(void) { return f_bytes; }
uint64_t hp_alloc_spilled_peak(void) { return f_peak; }
uint64_t hp_alloc_spill_blocks(void) { return f_blocks; }
uint64_t hp_alloc_spill_failures(void) { return f_failures; }
int hp_alloc_spill_errno(void) { return f_errno; }

/* ---- limited (or budgeted) allocation ----------------------------------- */

/* malloc (count == 0) or calloc(count, size) of n bytes, counted; to a
 * file past the budget or the limit, refused past the limit; the
 * allocator's rounding counts, so a block it rounds past the limit is
 * given back and refused */
static void *spare_take(size_t n);
static void spare_flush(void);

static __attribute__((noinline)) void *limited_alloc(size_t n, size_t count, size_t size)
{
	if (to_file(n, 0)) {
		spare_flush();   /* the kept blocks' memory first given back */
		void *p = f_alloc(n);
		if (p)
			return p;
	}
	/* a kept block (none under a limit): not counted while kept */
	void *kept = spare_take(n);
	if (kept) {
		account(usable_size(kept), 0);
		return count ? memset(kept, 0, n) : kept;
	}
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
	long i = p ? fb_find(p) : -1;
	if (i >= 0) {
		void *q = f_realloc((size_t)i, n);
		if (q)
			return q;
		if (limit) {
			/* the file cannot grow: the limit's refusal, with the
			 * reason kept by f_failed() */
			refusals++;
			refused_request = n;
			refused_in_use = in_use + f_bytes;
			last_refused = 1;
			return NULL;
		}
		/* no limit: the block moves to anonymous memory */
		q = malloc(n);
		if (!q)
			return failed();
		memcpy(q, p, fb[i].len < n ? fb[i].len : n);
		f_free((size_t)i);
		account(usable_size(q), 0);
		return advise(q, n);
	}
	size_t old = p ? usable_size(p) : 0;
	if (n > old && to_file(n, old)) {
		void *q = f_alloc(n);
		if (q) {
			if (p)
				memcpy(q, p, old);
			account(0, old);
			free(p);
			return q;
		}
	}
	if (n > old && refuse(n, old))     /* shrinking is always allowed */
		return NULL;
	void *q = realloc(p, n);
	if (!q)
		return failed();
	account(usable_size(q), old);
	return advise(q, n);
}


void hp_alloc_set_limit(uint64_t bytes)
{
	spare_flush();
	if (!bytes)
		in_use = peak = phase_peak = refusals = refused_request = refused_in_use = 0;
	limit = bytes;
	last_refused = 0;
}

uint64_t hp_alloc_limit(void) { return limit; }
uint64_t hp_alloc_in_use(void) { return limit ? in_use + f_bytes : 0; }
uint64_t hp_alloc_peak(void) { return limit ? peak : 0; }
uint64_t hp_alloc_anon_peak(void) { return peak; }
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

static void lock(void);
static void unlock(void);

uint64_t hp_alloc_phase_peak(void)
{
	lock();
	uint64_t p = phase_peak > in_use ? phase_peak : in_use;
	phase_peak = in_use;
	unlock();
	return p;
}

void hp_alloc_release_spare(void)
{
	lock();
	spare_flush();
	unlock();
}

/* ---- the functions --------------------------------------------------- */

/* The counted paths (a limit, a budget or file-backed blocks: in hprofan,
 * always) share counters and the table of files, so they take a lock
 * (uncontended: one atomic exchange; a pass that allocates from two
 * threads stays correct).  A mutex, not a spin lock: the holder may be in
 * malloc or mmap for a while (page faults, the sanitizers' allocator), and
 * a thread spinning meanwhile burnt a core (16% of a small run's CPU
 * samples under the sanitizers were the spin). */
static pthread_mutex_t lk = PTHREAD_MUTEX_INITIALIZER;
static void lock(void) { pthread_mutex_lock(&lk); }
static void unlock(void) { pthread_mutex_unlock(&lk); }

#define COUNTED (limit || budget || __atomic_load_n(&nfb, __ATOMIC_RELAXED))

static void *locked_alloc(size_t n, size_t count, size_t size)
{
	lock();
	void *p = limited_alloc(n, count, size);
	unlock();
	return p;
}

void *hp_malloc(size_t n)
{
	if (should_fail())
		return failed();
	if (COUNTED)
		return locked_alloc(n ? n : 1, 0, 0);
	lock();
	void *p = spare_take(n);
	unlock();
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
	if (COUNTED) {
		if (n > SIZE_MAX / size)
			return failed();
		return locked_alloc(n * size, n, size);
	}
	lock();
	void *p = n <= SIZE_MAX / size ? spare_take(n * size) : NULL;
	unlock();
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
	if (COUNTED) {
		lock();
		void *q = p ? limited_realloc(p, n ? n : 1) : limited_alloc(n ? n : 1, 0, 0);
		unlock();
		return q;
	}
	void *q = NULL;
	if (!p) {
		lock();
		q = spare_take(n);
		unlock();
		if (q)
			return q;
	}
	q = realloc(p, n ? n : 1);
	return q ? advise(q, n) : failed();
}

void *hp_reallocarray(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return failed();
	return hp_realloc(p, n * size);
}

void *hp_grow(void *p, size_t *cap, size_t need, size_t first, size_t size)
{
	if (need <= *cap)
		return p;
	size_t nc = *cap ? *cap : first ? first : 1;
	while (nc < need) {
		if (nc > SIZE_MAX / 2)
			return failed();
		nc *= 2;
	}
	void *n = hp_reallocarray(p, nc, size);
	if (n)
		*cap = nc;
	return n;
}

int hp_grow_text(char **text, size_t *len, size_t *cap, size_t first, const char *s, size_t n, size_t *off)
{
	if (n > SIZE_MAX - 1 - *len)
		return -1;
	char *t = hp_grow(*text, cap, *len + n + 1, first, 1);
	if (!t)
		return -1;
	*text = t;
	memcpy(t + *len, s, n);
	t[*len + n] = '\0';
	*off = *len;
	*len += n + 1;
	return 0;
}

void hp_free(void *p)
{
	if (!p)
		return;
	if (COUNTED) {
		lock();
		long i = fb_find(p);
		if (i >= 0) {
			f_free((size_t)i);
		} else {
			account(0, usable_size(p));
			if (!spare_keep(p))
				free(p);
		}
		unlock();
		return;
	}
	lock();
	int kept = spare_keep(p);
	unlock();
	if (kept)
		return;
	free(p);
}

void hp_free_each(void *const *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		hp_free(p[i]);
}

/* ---- the machine ------------------------------------------------------- */

static uint64_t read_u64_file(const char *path, int *ok)
{
	FILE *f = fopen(path, "re");
	char buf[64];
	*ok = 0;
	if (!f)
		return 0;
	int got = fgets(buf, sizeof buf, f) != NULL;
	fclose(f);
	if (!got)
		return 0;
	if (strncmp(buf, "max", 3) == 0) {
		*ok = 1;
		return UINT64_MAX;
	}
	char *end;
	errno = 0;
	unsigned long long v = strtoull(buf, &end, 10);
	if (errno || end == buf)
		return 0;
	*ok = 1;
	return v;
}

/* the least limit in FILE over the cgroup directory `dir` and its parents
 * down to `top` */
static uint64_t cgroup_limit(const char *top, const char *rel, const char *file)
{
	char path[4096];
	uint64_t best = UINT64_MAX;
	int w = snprintf(path, sizeof path, "%s%s", top, rel);
	if (w < 0 || (size_t)w >= sizeof path)
		return best;
	size_t toplen = strlen(top);
	for (;;) {
		size_t l = strlen(path);
		while (l > toplen && path[l - 1] == '/')
			path[--l] = '\0';
		char f[4200];
		int ok;
		snprintf(f, sizeof f, "%s/%s", path, file);
		uint64_t v = read_u64_file(f, &ok);
		if (ok && v < best)
			best = v;
		char *slash = strrchr(path, '/');
		if (!slash || (size_t)(slash - path) < toplen)
			break;
		*slash = '\0';
	}
	return best;
}

void hp_alloc_machine(struct hp_alloc_machine *m)
{
	memset(m, 0, sizeof *m);
	FILE *f = fopen("/proc/meminfo", "re");
	char line[512];
	if (f) {
		unsigned long long kb;
		while (fgets(line, sizeof line, f))
			if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
				m->available = (uint64_t)kb << 10;
		fclose(f);
	}
	m->cgroup_limit = UINT64_MAX;
	f = fopen("/proc/self/cgroup", "re");
	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = '\0';
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2 || c2[1] != '/')
			continue;
		*c2 = '\0';
		const char *ctl = c1 + 1, *rel = c2 + 1;
		uint64_t v = UINT64_MAX;
		if (!*ctl) {            /* v2: 0::/path */
			v = cgroup_limit("/sys/fs/cgroup", rel, "memory.max");
		} else {                /* v1: N:memory[,other]:/path */
			int mem = 0;
			for (const char *p = ctl; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
				mem |= strncmp(p, "memory", 6) == 0 && (p[6] == ',' || p[6] == '\0');
			if (mem)
				v = cgroup_limit("/sys/fs/cgroup/memory", rel, "memory.limit_in_bytes");
		}
		if (v < m->cgroup_limit)
			m->cgroup_limit = v;
	}
	fclose(f);
	/* v1 says "no limit" with a page-rounded LLONG_MAX */
	if (m->cgroup_limit >= ((uint64_t)1 << 62))
		m->cgroup_limit = 0;
}

void hp_alloc_io(struct hp_alloc_io *io)
{
	memset(io, 0, sizeof *io);
	FILE *f = fopen("/proc/self/io", "re");
	if (f) {
		char line[128];
		unsigned long long v;
		while (fgets(line, sizeof line, f)) {
			if (sscanf(line, "read_bytes: %llu", &v) == 1)
				io->read_bytes = v;
			else if (sscanf(line, "write_bytes: %llu", &v) == 1)
				io->write_bytes = v;
		}
		fclose(f);
	}
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) == 0)
		io->major_faults = (uint64_t)ru.ru_majflt;
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
