/*
 * test_alloc.c — the memory limit (hprofan --max-memory).
 *
 * The allocator: without a limit nothing is counted; with one, the bytes in
 * use and the peak follow malloc, calloc, realloc (growing, shrinking,
 * refused) and free exactly (malloc_usable_size()), a request that would go
 * over the limit is refused with the block untouched, and a refusal by the
 * limit is told apart from overflow and from HPROFAN_FAIL_ALLOC (in a child
 * process, since that switch is read once).
 *
 * Bigger than memory: with a spill directory, big blocks past three
 * quarters of the limit are file-backed (counted apart), keep their bytes
 * as they grow, shrink or move there from anonymous memory, are zero from
 * calloc, leave no file to be seen, and are refused when no file can be
 * made; small blocks are refused past the limit as before.
 *
 * The model: a dump built by tests/helper is parsed under limits that give
 * out at different points of the parse.  The parse goes on to the end, the
 * heap is over the limit and refuses to finish, and hp_heap_need() is the
 * same whatever the limit; that figure covers what a parse and finish with
 * no limit really took (and is not wildly more), and with exactly that much
 * the model is built.
 */
#include "helper/hpw.h"
#include "model/heap.h"
#include "base/alloc.h"
#include "parser/reader.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int passed, failed;
#define CHECK(cond, ...) do { if (cond) passed++; else { failed++; printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } } while (0)

#define U(x) ((unsigned long long)(x))

/* ---- the allocator ---------------------------------------------------- */

static void test_no_limit(void)
{
	hp_alloc_set_limit(0);
	void *p = hp_malloc(1000);
	CHECK(p != NULL, "malloc without a limit");
	CHECK(hp_alloc_in_use() == 0 && hp_alloc_peak() == 0 && hp_alloc_limit() == 0,
	      "nothing is counted without a limit: in use %llu, peak %llu", U(hp_alloc_in_use()), U(hp_alloc_peak()));
	hp_free(p);
	CHECK(hp_alloc_in_use() == 0, "free without a limit subtracts nothing");
}

/* Big freed blocks are kept and handed to the next big request (alloc.c):
 * what comes back must be a block of the size asked, hp_calloc's zeroed,
 * and one kept block must never be handed out twice. */
static void test_spare(void)
{
	const size_t M = (size_t)1 << 20;
	unsigned char *a = hp_malloc(64 * M), *b = hp_malloc(40 * M);
	CHECK(a && b, "two big blocks");
	if (!a || !b)
		return;
	memset(a, 0xab, 64 * M);
	memset(b, 0xcd, 40 * M);
	hp_free(a);
	hp_free(b);
	unsigned char *z = hp_calloc(48, M);        /* from a kept block: must be zeroed */
	int zero = z != NULL;
	for (size_t i = 0; z && i < 48 * M; i += 4096)
		zero &= z[i] == 0 && z[i + 4095] == 0;
	CHECK(zero && malloc_usable_size(z) >= 48 * M, "a big calloc after big frees is zeroed and whole");
	unsigned char *g = hp_malloc(100 * M);      /* more than any kept block: one grown */
	CHECK(g && malloc_usable_size(g) >= 100 * M && g != z, "a big malloc bigger than every kept block");
	if (g)
		memset(g, 1, 100 * M);
	unsigned char *r = hp_realloc(NULL, 40 * M);
	CHECK(r && r != z && r != g && malloc_usable_size(r) >= 40 * M, "realloc(NULL) of a big block");
	if (r)
		memset(r, 2, 40 * M);
	CHECK(z && z[0] == 0 && z[48 * M - 1] == 0, "no block handed out twice");
	hp_free(z);
	hp_free(g);
	hp_free(r);
	hp_alloc_release_spare();
}

/* a phase's peak: the most in use since the previous call, which starts
 * the next phase at the bytes in use then */
static void test_phase_peak(void)
{
	hp_alloc_set_limit(1 << 20);
	(void)hp_alloc_phase_peak();
	char *a = hp_malloc(4000), *b = hp_malloc(8000);
	size_t ua = malloc_usable_size(a), ub = malloc_usable_size(b);
	hp_free(b);
	uint64_t p1 = hp_alloc_phase_peak();
	CHECK(p1 == ua + ub, "the first phase's peak is both blocks: %llu, want %llu", U(p1), U(ua + ub));
	uint64_t p2 = hp_alloc_phase_peak();
	CHECK(p2 == ua, "a phase that allocates nothing peaks at what is in use: %llu, want %llu", U(p2), U(ua));
	char *c = hp_malloc(2000);
	size_t uc = malloc_usable_size(c);
	hp_free(a);
	hp_free(c);
	uint64_t p3 = hp_alloc_phase_peak();
	CHECK(p3 == ua + uc, "the next phase's peak counts what the last left and its own: %llu, want %llu",
	      U(p3), U(ua + uc));
	CHECK(hp_alloc_phase_peak() == 0, "and after all is freed, 0");
	hp_alloc_set_limit(0);
}

static void test_accounting(void)
{
	const uint64_t L = 1 << 20;
	hp_alloc_set_limit(L);
	CHECK(hp_alloc_limit() == L, "the limit is set");
	CHECK(hp_alloc_in_use() == 0 && hp_alloc_peak() == 0 && hp_alloc_refusals() == 0, "counters start at 0");

	char *a = hp_malloc(1000);
	size_t ua = malloc_usable_size(a);
	CHECK(a && ua >= 1000, "malloc under the limit");
	CHECK(hp_alloc_in_use() == ua, "malloc counts its usable size: %llu, want %llu", U(hp_alloc_in_use()), U(ua));

	int *b = hp_calloc(100, sizeof *b);
	size_t ub = malloc_usable_size(b);
	int zero = 1;
	for (int i = 0; b && i < 100; i++)
		zero &= b[i] == 0;
	CHECK(b && zero, "calloc under the limit, zeroed");
	CHECK(hp_alloc_in_use() == ua + ub, "calloc counts: %llu, want %llu", U(hp_alloc_in_use()), U(ua + ub));

	/* realloc growing: the old size goes, the new one comes */
	memset(a, 'x', 1000);
	a = hp_realloc(a, 50000);
	size_t ua2 = malloc_usable_size(a);
	CHECK(a && a[0] == 'x' && a[999] == 'x', "realloc keeps the bytes");
	CHECK(hp_alloc_in_use() == ua2 + ub, "realloc up: %llu, want %llu", U(hp_alloc_in_use()), U(ua2 + ub));
	uint64_t peak = hp_alloc_peak();
	CHECK(peak == ua2 + ub, "peak after growing: %llu, want %llu", U(peak), U(ua2 + ub));

	/* realloc shrinking */
	a = hp_realloc(a, 2000);
	size_t ua3 = malloc_usable_size(a);
	CHECK(a && a[0] == 'x', "realloc down keeps the bytes");
	CHECK(hp_alloc_in_use() == ua3 + ub, "realloc down: %llu, want %llu", U(hp_alloc_in_use()), U(ua3 + ub));
	CHECK(hp_alloc_peak() == peak, "the peak stays at the most: %llu, want %llu", U(hp_alloc_peak()), U(peak));

	/* a request over the limit is refused, and nothing changes */
	uint64_t before = hp_alloc_in_use();
	void *big = hp_malloc(L);
	CHECK(big == NULL, "malloc of the whole limit on top of what is in use is refused");
	CHECK(hp_alloc_refused_by_limit() == 1, "the refusal is the limit's");
	CHECK(hp_alloc_refusals() == 1, "one refusal counted: %llu", U(hp_alloc_refusals()));
	CHECK(hp_alloc_refused_request() == L && hp_alloc_refused_in_use() == before,
	      "the refusal records the request (%llu) and the bytes in use (%llu)",
	      U(hp_alloc_refused_request()), U(hp_alloc_refused_in_use()));
	CHECK(hp_alloc_in_use() == before, "a refusal changes nothing in use");

	char *r = hp_realloc(a, L);
	CHECK(r == NULL && a[0] == 'x' && a[999] == 'x', "realloc over the limit is refused, the block untouched");
	CHECK(hp_alloc_in_use() == before && hp_alloc_refusals() == 2, "a refused realloc changes nothing in use");
	CHECK(hp_calloc(L / 4, 8) == NULL && hp_alloc_refused_by_limit(), "calloc over the limit is refused");

	/* a success leaves the cause of the latest failure readable */
	char *s = hp_strdup("small");
	CHECK(s && hp_alloc_refused_by_limit() == 1, "a success after a refusal keeps refused_by_limit");
	CHECK(hp_alloc_in_use() == before + malloc_usable_size(s), "strdup counts");

	/* overflow is not the limit */
	CHECK(hp_reallocarray(NULL, SIZE_MAX / 2, 4) == NULL && hp_alloc_refused_by_limit() == 0,
	      "reallocarray overflow is no refusal of the limit");
	CHECK(hp_calloc(SIZE_MAX / 2, 4) == NULL && hp_alloc_refused_by_limit() == 0,
	      "calloc overflow is no refusal of the limit");
	CHECK(hp_alloc_refusals() == 3, "refusals: %llu, want 3", U(hp_alloc_refusals()));

	/* fill up to the limit in steps: never over it, and the last one refused */
	void *blocks[64];
	int nb = 0;
	while (nb < 64 && (blocks[nb] = hp_malloc(64 << 10)) != NULL) {
		CHECK(hp_alloc_in_use() <= L, "in use %llu stays within the limit", U(hp_alloc_in_use()));
		nb++;
	}
	CHECK(nb > 0 && nb < 64 && hp_alloc_refused_by_limit(), "filling up ends in a refusal (%d blocks)", nb);
	CHECK(hp_alloc_peak() <= L && hp_alloc_peak() + (64 << 10) > L,
	      "the peak is within a block of the limit: %llu", U(hp_alloc_peak()));
	/* shrinking is allowed even when full */
	void *sh = hp_realloc(blocks[0], 100);
	CHECK(sh != NULL, "realloc down at the limit");
	blocks[0] = sh;
	/* freeing makes room again */
	for (int i = 0; i < nb; i++)
		hp_free(blocks[i]);
	void *again = hp_malloc(64 << 10);
	CHECK(again != NULL, "after freeing, a request fits again");
	hp_free(again);
	hp_free(s);
	hp_free(b);
	hp_free(a);
	hp_free(NULL);
	CHECK(hp_alloc_in_use() == 0, "everything freed: in use %llu", U(hp_alloc_in_use()));
	CHECK(hp_alloc_peak() <= L, "the peak never went over the limit: %llu", U(hp_alloc_peak()));

	/* 0 removes the limit and clears the counters */
	hp_alloc_set_limit(0);
	CHECK(hp_alloc_in_use() == 0 && hp_alloc_peak() == 0 && hp_alloc_refusals() == 0 &&
	      hp_alloc_refused_by_limit() == 0, "no limit: counters cleared");
	void *free_again = hp_malloc(2 * L);
	CHECK(free_again != NULL && hp_alloc_in_use() == 0, "no limit: anything goes, nothing counted");
	hp_free(free_again);
}

/* In a child with HPROFAN_FAIL_ALLOC=3: the third allocation fails, and not
 * because of the limit. */
static int child_fail_alloc(void)
{
	int bad = 0;
	hp_alloc_set_limit(1 << 30);
	void *a = hp_malloc(10), *b = hp_malloc(10), *c = hp_malloc(10);
	if (!a || !b || c) {
		printf("FAIL child: the third allocation should fail, and only it\n");
		bad = 1;
	}
	if (hp_alloc_refused_by_limit() || hp_alloc_refusals()) {
		printf("FAIL child: HPROFAN_FAIL_ALLOC counted as a refusal of the limit\n");
		bad = 1;
	}
	hp_free(a);
	hp_free(b);
	return bad;
}

static void test_fail_alloc(const char *self)
{
	pid_t pid = fork();
	if (pid == 0) {
		setenv("HPROFAN_FAIL_ALLOC", "3", 1);
		execl(self, self, "--child-fail-alloc", (char *)NULL);
		_exit(127);
	}
	int st = 0;
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "HPROFAN_FAIL_ALLOC under a limit is no refusal of the limit (child status %d)", st);
}

/* ---- the model ---------------------------------------------------------- */

enum { NSTR = 3000, NCLS = 60, NINST = 40000, NOARR = 3000, NPARR = 5000 };

/* A HotSpot-like dump: strings, classes with fields and statics, a trace,
 * roots, then instances, object arrays of a few classes and primitive arrays
 * of a few types, written in two runs (not in id order: finish sorts). */
static void write_dump(const char *path)
{
	hpw *w = hpw_new("JAVA PROFILE 1.0.2", 8, 0);
	char name[64];
	for (uint64_t s = 1; s <= NSTR; s++) {
		snprintf(name, sizeof name, "com/example/app/Name%llu", U(s));
		hpw_string(w, s, name);
	}
	hpw_string(w, NSTR + 1, "java/lang/Object[]");
	hpw_string(w, NSTR + 2, "[Ljava/lang/String;");
	uint64_t frames[3] = { 0x9001, 0x9002, 0x9003 };
	for (int i = 0; i < 3; i++)
		hpw_frame(w, frames[i], 1, 2, 3, 1, 10 + i);
	hpw_trace(w, 1, 1, 3, frames);
	for (uint32_t c = 0; c < NCLS; c++)
		hpw_load_class(w, c + 1, 0x1000 + 0x100 * c, 1, 10 + c);
	hpw_load_class(w, NCLS + 1, 0x80000, 1, NSTR + 1);
	hpw_load_class(w, NCLS + 2, 0x80100, 1, NSTR + 2);
	hpw_start_thread(w, 1, 0x7000000, 1, 5, 6, 7);
	hpw_begin_dump(w, HPW_TAG_HEAP_DUMP_SEGMENT);
	struct hpw_instance_field f[2] = { { 20, HPW_T_INT }, { 21, HPW_T_OBJECT } };
	struct hpw_static_field st[1] = { { 22, HPW_T_LONG, 7 } };
	for (uint32_t c = 0; c < NCLS; c++) {
		struct hpw_class k;
		memset(&k, 0, sizeof k);
		k.class_id = 0x1000 + 0x100 * c;
		k.super_id = c ? 0x1000 : 0;
		k.instance_size = c ? 12 : 0;
		k.nfields = c ? 2 : 0;
		k.fields = f;
		k.nstatics = 1;
		k.statics = st;
		hpw_class_dump(w, &k);
		hpw_root_sticky_class(w, k.class_id);
	}
	hpw_root_thread_object(w, 0x7000000, 1, 1);
	hpw_root_java_frame(w, 0x10000008, 1, 0);
	uint8_t fields[12] = { 0 };
	uint64_t elems[4] = { 0x10000000, 0x10000008, 0, 0x10000010 };
	uint8_t bytes[64] = { 0 };
	for (int run = 1; run >= 0; run--) {      /* the upper half of the ids first */
		for (uint64_t i = 0; i < NINST / 2; i++) {
			uint64_t k = run * (NINST / 2) + i;
			hpw_instance(w, 0x10000000 + 8 * k, 0, 0x1100 + 0x100 * (k % (NCLS - 1)), fields, sizeof fields);
		}
		for (uint64_t i = 0; i < NOARR / 2; i++) {
			uint64_t k = run * (NOARR / 2) + i;
			hpw_obj_array(w, 0x20000000 + 64 * k, 0, k % 2 ? 0x80000 : 0x80100, 4, elems);
		}
		for (uint64_t i = 0; i < NPARR / 2; i++) {
			uint64_t k = run * (NPARR / 2) + i;
			hpw_prim_array(w, 0x30000000 + 128 * k, 0, k % 3 ? HPW_T_BYTE : HPW_T_INT,
				       (uint32_t)(k % 16), bytes, (k % 16) * (k % 3 ? 1 : 4));
		}
	}
	hpw_end_dump(w);
	hpw_dump_end(w);
	hpw_write_file(w, path);
	hpw_free(w);
}

struct run {
	int rc_parse, rc_finish, over;
	int limited;          /* the latest failure was the limit's */
	struct hp_heap_need need;
	uint64_t base;        /* in use before the parse: the reader, the heap */
	uint64_t peak;        /* the most in use from there */
	uint64_t model_bytes;
	uint64_t nobj;
};

/* Opens, parses and (when the parse stayed within the limit) finishes,
 * under limit (0: a limit too high to matter, so that it counts). */
static void run_parse(const char *path, int build_objects, uint64_t limit, struct run *out)
{
	memset(out, 0, sizeof *out);
	hp_alloc_set_limit(0);
	hp_alloc_set_limit(UINT64_MAX / 2);
	struct hp_error err;
	hp_error_clear(&err);
	hp_reader *r = NULL;
	if (hp_reader_open(&r, path, &err) != HP_OK) {
		CHECK(0, "open %s: %s", path, err.msg);
		return;
	}
	struct hp_heap_opts o;
	hp_heap_opts_init(&o);
	o.build_objects = build_objects;
	hp_heap *h = hp_heap_new(&o);
	struct hp_sink s;
	hp_heap_sink(h, &s);
	struct hp_stats st;
	out->base = hp_alloc_in_use();
	if (limit)
		hp_alloc_set_limit(out->base + limit);
	out->rc_parse = hp_parse(r, &s, NULL, &st, &err);
	out->over = hp_heap_over_limit(h);
	hp_heap_need(h, &out->need);
	out->rc_finish = out->rc_parse == HP_OK ? hp_heap_finish(h, &err) : out->rc_parse;
	out->limited = hp_alloc_refused_by_limit();
	out->peak = hp_alloc_peak() - out->base;
	out->model_bytes = hp_heap_model_bytes(h);
	out->nobj = h->nobj;
	hp_heap_free(h);
	hp_stats_release(&st);
	hp_reader_free(r);
	CHECK(hp_alloc_in_use() == 0, "everything freed after the parse (limit %llu): %llu in use",
	      U(limit), U(hp_alloc_in_use()));
	hp_alloc_set_limit(0);
}

static int same_need(const struct hp_heap_need *a, const struct hp_heap_need *b)
{
	return a->objects == b->objects && a->tables == b->tables && a->peak == b->peak;
}

static void test_model(const char *path, int build_objects)
{
	const char *mode = build_objects ? "model" : "histogram";
	struct run full;
	run_parse(path, build_objects, 0, &full);
	CHECK(full.rc_parse == HP_OK && full.rc_finish == HP_OK && !full.over,
	      "%s: no limit to speak of: parse %d, finish %d", mode, full.rc_parse, full.rc_finish);
	uint64_t want_objs = NINST + NOARR + NPARR + NCLS;
	CHECK(full.need.objects == want_objs, "%s: need counts %llu objects, want %llu", mode,
	      U(full.need.objects), U(want_objs));
	if (build_objects)
		CHECK(full.nobj == want_objs, "%s: %llu objects built", mode, U(full.nobj));
	/* the estimate covers what it took, and is not wildly more */
	CHECK(full.need.peak >= full.peak, "%s: need %llu covers the peak %llu", mode,
	      U(full.need.peak), U(full.peak));
	CHECK(full.need.peak <= full.peak * 2, "%s: need %llu is within twice the peak %llu", mode,
	      U(full.need.peak), U(full.peak));
	CHECK(full.need.peak >= full.model_bytes, "%s: need %llu covers the object table %llu", mode,
	      U(full.need.peak), U(full.model_bytes));
	CHECK(full.need.tables <= full.need.peak, "%s: tables %llu within peak %llu", mode,
	      U(full.need.tables), U(full.need.peak));

	/* limits that give out at different points (leaving the parser its
	 * few hundred bytes): the same need each time; the last ones may give
	 * out only in the sort of hp_heap_finish() */
	int refused = 0, same = 0;
	for (int k = 0; k < 8; k++) {
		uint64_t limit = 4096 + full.peak * k / 9;
		struct run r;
		run_parse(path, build_objects, limit, &r);
		refused += r.over;
		CHECK(r.rc_parse == HP_OK, "%s, limit %llu: the parse goes on to the end (rc %d)", mode,
		      U(limit), r.rc_parse);
		CHECK(r.rc_finish == HP_ENOMEM && r.limited,
		      "%s, limit %llu: refused by the limit (over during the parse: %d; finish %d)",
		      mode, U(limit), r.over, r.rc_finish);
		CHECK(r.peak <= limit, "%s, limit %llu: in use stayed within it (peak %llu)", mode, U(limit), U(r.peak));
		if (same_need(&r.need, &full.need))
			same++;
		else
			CHECK(0, "%s, limit %llu: need %llu objects, %llu tables, %llu peak; without a limit %llu, %llu, %llu",
			      mode, U(limit), U(r.need.objects), U(r.need.tables), U(r.need.peak),
			      U(full.need.objects), U(full.need.tables), U(full.need.peak));
	}
	CHECK(refused >= 6 && same == 8, "%s: 8 limits, %d over during the parse, %d with the same need", mode,
	      refused, same);

	/* no room even for the parser: the parse stops, refused by the limit,
	 * and the need so far is less */
	struct run tiny;
	run_parse(path, build_objects, 1, &tiny);
	CHECK(tiny.rc_parse == HP_ENOMEM && tiny.limited && tiny.need.peak < full.need.peak,
	      "%s, limit 1: the parse stops (%d), refused by the limit, need so far %llu", mode,
	      tiny.rc_parse, U(tiny.need.peak));

	/* exactly the need: the model is built */
	struct run ok;
	run_parse(path, build_objects, full.need.peak, &ok);
	CHECK(ok.rc_parse == HP_OK && ok.rc_finish == HP_OK && !ok.over,
	      "%s: with the need (%llu) as the limit it is built: parse %d, finish %d, over %d", mode,
	      U(full.need.peak), ok.rc_parse, ok.rc_finish, ok.over);
}

/* ---- bigger than memory: file-backed blocks ----------------------------- */

static int all_bytes(const unsigned char *p, size_t n, unsigned char v)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != v)
			return 0;
	return 1;
}

/* big blocks past three quarters of the limit go to files (in use as
 * anonymous memory: nothing; spilled: their pages), keep their bytes when
 * they grow, shrink or move from anonymous memory, and are gone when freed;
 * small ones are refused as before */
static void test_spill(void)
{
	char dir[] = "/tmp/hprofan-spill-XXXXXX";
	if (!mkdtemp(dir)) {
		CHECK(0, "cannot make a temporary directory");
		return;
	}
	const size_t K = 1024, M = K * K;
	hp_alloc_set_limit(0);
	hp_alloc_set_limit(M);
	CHECK(hp_alloc_set_spill_dir("/nonexistent/dir") != 0, "a missing directory is refused");
	CHECK(hp_alloc_set_spill_dir(dir) == 0 && strcmp(hp_alloc_spill_dir(), dir) == 0, "the directory is set");
	uint64_t blocks0 = hp_alloc_spill_blocks();

	unsigned char *a = hp_malloc(2 * M);           /* over the limit: a file */
	CHECK(a != NULL, "a block over the limit is not refused");
	CHECK(hp_alloc_spill_blocks() == blocks0 + 1 && hp_alloc_spilled() == 2 * M,
	      "it is file-backed: %llu blocks, %llu bytes", U(hp_alloc_spill_blocks()), U(hp_alloc_spilled()));
	CHECK(hp_alloc_anon_peak() < 64 * K, "it is not counted as anonymous memory: %llu", U(hp_alloc_anon_peak()));
	CHECK(hp_alloc_in_use() >= 2 * M, "it is counted in use: %llu", U(hp_alloc_in_use()));
	memset(a, 0xab, 2 * M);
	unsigned char *b = hp_realloc(a, 5 * M);
	CHECK(b && all_bytes(b, 2 * M, 0xab), "growing keeps the bytes");
	CHECK(hp_alloc_spilled() == 5 * M, "and the file grows: %llu", U(hp_alloc_spilled()));
	memset(b + 2 * M, 0xcd, 3 * M);
	unsigned char *c = hp_realloc(b, 100 * K);
	CHECK(c && all_bytes(c, 100 * K, 0xab), "shrinking keeps the head");
	CHECK(hp_alloc_spilled() == 100 * K, "and the file shrinks: %llu", U(hp_alloc_spilled()));
	hp_free(c);
	CHECK(hp_alloc_spilled() == 0, "freeing gives the file back: %llu", U(hp_alloc_spilled()));

	unsigned char *z = hp_calloc(3 * M, 1);
	CHECK(z && all_bytes(z, 3 * M, 0), "calloc of a file-backed block is zero");
	hp_free(z);

	/* an anonymous block moving to a file as it grows */
	unsigned char *s = hp_malloc(600 * K);
	uint64_t before = hp_alloc_spill_blocks();
	CHECK(s && hp_alloc_spill_blocks() == before, "a block under three quarters of the limit is anonymous");
	memset(s, 0x5a, 600 * K);
	unsigned char *t = hp_realloc(s, 4 * M);
	CHECK(t && hp_alloc_spill_blocks() == before + 1 && all_bytes(t, 600 * K, 0x5a),
	      "growing past the limit moves it to a file with its bytes");
	CHECK(hp_alloc_in_use() >= 4 * M && hp_alloc_anon_peak() < 800 * K,
	      "the anonymous bytes it had are given back: in use %llu", U(hp_alloc_in_use()));

	/* small blocks past the limit are still refused */
	void *sm[64];
	int n = 0, refused = 0;
	for (; n < 64; n++)
		if (!(sm[n] = hp_malloc(60 * K))) {
			refused = hp_alloc_refused_by_limit();
			break;
		}
	CHECK(n < 64 && refused, "small blocks past the limit are refused (%d taken)", n);
	while (n-- > 0)
		hp_free(sm[n]);
	hp_free(t);

	/* nothing left in the directory at any time: the files are unlinked */
	char cmd[128];
	snprintf(cmd, sizeof cmd, "test -z \"$(ls -A %s)\"", dir);
	CHECK(system(cmd) == 0, "no file is seen in %s", dir);
	CHECK(hp_alloc_spill_failures() == 0, "no file failed: errno %d", hp_alloc_spill_errno());

	/* a directory that cannot hold files: the limit refuses, the reason is kept */
	hp_alloc_set_spill_dir("/proc");
	void *x = hp_malloc(2 * M);
	CHECK(x == NULL && hp_alloc_refused_by_limit() && hp_alloc_spill_failures() == 1,
	      "no file in /proc: refused by the limit, one failure (errno %d)", hp_alloc_spill_errno());
	hp_alloc_set_spill_dir(NULL);
	hp_alloc_set_limit(0);
	rmdir(dir);
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--child-fail-alloc") == 0)
		return child_fail_alloc();
	if (argc > 1) {
		fprintf(stderr, "usage: test_alloc (no arguments)\n");
		return 2;
	}
	test_no_limit();
	test_spare();
	test_accounting();
	test_phase_peak();
	test_fail_alloc("/proc/self/exe");
	test_spill();

	char path[] = "/tmp/hprofan-alloc-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0) {
		printf("FAIL cannot create a temporary file\n");
		return 1;
	}
	close(fd);
	write_dump(path);
	test_model(path, 1);
	test_model(path, 0);
	unlink(path);

	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
