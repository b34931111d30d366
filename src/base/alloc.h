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
 * allocator; the next request is then refused.
 *
 * Bigger than memory: once a spill directory is set
 * (hp_alloc_set_spill_dir()), a big block (64 KiB or more) that would take
 * the anonymous memory in use past the limit, or past the budget
 * (hp_alloc_set_budget(), the share of the machine's memory hprofan gives
 * itself), is not refused: it becomes a shared mapping of an unlinked file
 * in that directory, which the kernel writes back and evicts under memory
 * pressure, so the run goes on, slower, with the same answers.  Those
 * blocks are not counted in hp_alloc_in_use(); small blocks still are, and
 * past the limit they are refused as before, and so is a big one when its
 * file cannot be made (no space: the file's blocks are reserved up front,
 * so a full disk is a refusal here, never a crash later).  Without a limit,
 * a big block whose file cannot be made is taken from malloc.  The files
 * are never seen (O_TMPFILE, or unlinked at once) and go with the process.
 *
 * The functions may be called from several threads (the counted paths
 * take a spin lock); the setters are for the start, before any thread.
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
/* Room in a growable array: p holds *cap elements of size bytes; when need
 * is more than *cap, p moves to twice *cap (first when *cap is 0), doubled
 * again until need fits.  Returns the array (p itself when it had room),
 * *cap updated, or NULL with p and *cap as they were. */
void *hp_grow(void *p, size_t *cap, size_t need, size_t first, size_t size);
/* Appends s[0, n) and a NUL to the growable text *text (*len bytes used of
 * *cap, grown by hp_grow() from first); *off gets where it starts.
 * Returns 0, or -1 out of memory with the text as it was. */
int hp_grow_text(char **text, size_t *len, size_t *cap, size_t first, const char *s, size_t n, size_t *off);
void hp_free(void *p);
/* hp_free() each of N pointers: what a struct's release() does with its
 * arrays, written as hp_free_all(a->x, a->y, a->z) */
void hp_free_each(void *const *p, size_t n);
#define hp_free_all(...) \
	hp_free_each((void *const[]){ __VA_ARGS__ }, sizeof((void *const[]){ __VA_ARGS__ }) / sizeof(void *))
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
/* bytes handed out and not yet freed (file-backed blocks included), and
 * the most anonymous bytes there ever were, since the limit was set (0
 * without a limit) */
uint64_t hp_alloc_in_use(void);
uint64_t hp_alloc_peak(void);
/* requests the limit refused so far */
uint64_t hp_alloc_refusals(void);
/* 1 when the latest allocation that failed was refused by the limit; 0 when
 * it failed otherwise (the system, an overflow, HPROFAN_FAIL_ALLOC) or none
 * has failed.  Successes leave it as it is, so a caller that frees or
 * allocates on its way out of a failure still reads the failure's cause. */
int hp_alloc_refused_by_limit(void);
/* the size of the latest refused request, and the bytes in use then
 * (file-backed blocks included) */
uint64_t hp_alloc_refused_request(void);
uint64_t hp_alloc_refused_in_use(void);

/* Bigger than memory (see the top): the directory for file-backed blocks
 * (NULL or "" stops making new ones); -1 (errno) when it is no directory.
 * The budget in bytes (0: none): past it, big blocks go to files. */
int hp_alloc_set_spill_dir(const char *dir);
const char *hp_alloc_spill_dir(void);
void hp_alloc_set_budget(uint64_t bytes);
uint64_t hp_alloc_budget(void);
/* bytes in file-backed blocks now and at most, blocks made so far, files
 * that could not be made or grown and the errno of the latest such */
uint64_t hp_alloc_spilled(void);
uint64_t hp_alloc_spilled_peak(void);
uint64_t hp_alloc_spill_blocks(void);
uint64_t hp_alloc_spill_failures(void);
int hp_alloc_spill_errno(void);
/* the most anonymous memory counted at once, under a limit or a budget */
uint64_t hp_alloc_anon_peak(void);
/* The most anonymous memory counted at once since the previous call (since
 * the start at the first), which starts the next phase at the bytes in use
 * now: a phase's peak for --stats.  0 while nothing is counted. */
uint64_t hp_alloc_phase_peak(void);

/* The memory the process may use: MemAvailable from /proc/meminfo, and the
 * least memory limit of its cgroup and the cgroup's parents (v1
 * memory.limit_in_bytes, v2 memory.max); 0 where unknown or unlimited. */
struct hp_alloc_machine {
	uint64_t available, cgroup_limit;
};
void hp_alloc_machine(struct hp_alloc_machine *m);

/* The page traffic so far (/proc/self/io read_bytes and write_bytes: bytes
 * read from storage and bytes of pages dirtied; getrusage major faults),
 * so that a pass can say what it cost; zeros where unknown. */
struct hp_alloc_io {
	uint64_t read_bytes, write_bytes, major_faults;
};
void hp_alloc_io(struct hp_alloc_io *io);

#endif
