/*
 * test_sort.c — the object table is sorted by id whatever order the dump
 * wrote objects in, every column follows its id, and every id is found.
 *
 * Orders tried: already sorted; HotSpot's shape (class objects first, then
 * long sorted runs over disjoint ranges in shuffled order: the linear path);
 * overlapping runs and random order (the radix path).  Each object is a
 * primitive array whose length and element type are functions of its id, so
 * a column that did not follow its id shows up.
 */
#include "helper/hpw.h"
#include "model/heap.h"
#include "parser/reader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int passed, failed;
#define CHECK(cond, ...) do { if (cond) passed++; else { failed++; printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } } while (0)

static uint64_t hpw_be64_test(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static uint32_t len_of(uint64_t id) { return (uint32_t)((id >> 3) % 97); }
static uint8_t type_of(uint64_t id) { return (id >> 3) % 2 ? HPW_T_INT : HPW_T_BYTE; }

static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void shuffle(uint64_t *a, size_t n)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = next_rand() % i;
		uint64_t t = a[i - 1];
		a[i - 1] = a[j];
		a[j] = t;
	}
}

/* writes the ids as primitive arrays in the given order, and classes first */
static void run_case(const char *name, const uint64_t *ids, size_t n, const uint64_t *cls_ids, size_t ncls,
		     int dups)
{
	hpw *w = hpw_new("JAVA PROFILE 1.0.2", 8, 0);
	hpw_string(w, 1, "java/lang/Object");
	for (size_t i = 0; i < ncls; i++)
		hpw_load_class(w, (uint32_t)(i + 1), cls_ids[i], 0, 1);
	hpw_begin_dump(w, 0x1C);
	for (size_t i = 0; i < ncls; i++) {
		struct hpw_class c;
		memset(&c, 0, sizeof c);
		c.class_id = cls_ids[i];
		hpw_class_dump(w, &c);
	}
	uint8_t zero[97 * 4];
	memset(zero, 0, sizeof zero);
	for (size_t i = 0; i < n; i++) {
		uint8_t t = type_of(ids[i]);
		uint32_t l = len_of(ids[i]);
		hpw_prim_array(w, ids[i], 0, t, l, zero, (size_t)l * (t == HPW_T_INT ? 4 : 1));
	}
	hpw_end_dump(w);
	hpw_dump_end(w);
	char path[] = "/tmp/hprofan-sort-XXXXXX";
	int fd = mkstemp(path);
	close(fd);
	hpw_write_file(w, path);
	size_t flen;
	const uint8_t *file = hpw_data(w, &flen);

	struct hp_error err;
	hp_error_clear(&err);
	struct hp_heap_opts o;
	hp_heap_opts_init(&o);
	o.build_objects = 1;
	hp_heap *h = hp_heap_new(&o);
	struct hp_sink s;
	hp_heap_sink(h, &s);
	hp_reader *r;
	struct hp_stats st;
	int rc = hp_reader_open(&r, path, &err);
	CHECK(rc == HP_OK, "%s: open: %s", name, err.msg);
	rc = hp_parse(r, &s, NULL, &st, &err);
	CHECK(rc == HP_OK, "%s: parse: %s", name, err.msg);
	rc = hp_heap_finish(h, &err);
	CHECK(rc == HP_OK, "%s: finish: %s", name, err.msg);
	CHECK(h->nobj == n + ncls, "%s: %zu objects, want %zu", name, h->nobj, n + ncls);
	size_t bad_order = 0, bad_col = 0, not_found = 0;
	for (size_t i = 0; i < h->nobj; i++) {
		/* equal ids (dups) stay in file order: a lookup finds the first */
		if (i && (hp_heap_id(h, i) < hp_heap_id(h, i - 1) || (hp_heap_id(h, i) == hp_heap_id(h, i - 1) &&
		     (!dups || hp_heap_offset(h, i) < hp_heap_offset(h, i - 1)))))
			bad_order++;
		uint64_t off = hp_heap_offset(h, i);
		/* the record at the offset must hold this id */
		if (off + 9 > flen || hpw_be64_test(file + off + 1) != hp_heap_id(h, i))
			bad_col++;
		if (hp_heap_kind(h, i) == HP_OBJ_PRIMARRAY) {
			if (h->len[i] != len_of(hp_heap_id(h, i)) ||
			    h->classes[h->cls[i]].elem_type != type_of(hp_heap_id(h, i)))
				bad_col++;
		} else if (hp_heap_kind(h, i) != HP_OBJ_CLASS) {
			bad_col++;
		}
	}
	CHECK(bad_order == 0, "%s: %zu ids out of order", name, bad_order);
	CHECK(bad_col == 0, "%s: %zu objects whose columns did not follow their id", name, bad_col);
	for (size_t i = 0; i < n; i++)
		if (hp_heap_find(h, ids[i]) == SIZE_MAX || hp_heap_id(h, hp_heap_find(h, ids[i])) != ids[i])
			not_found++;
	CHECK(not_found == 0, "%s: %zu ids not found", name, not_found);
	/* ids that are not there */
	size_t false_hits = 0;
	for (size_t i = 0; i < n; i++)
		if (hp_heap_find(h, ids[i] + 4) != SIZE_MAX)
			false_hits++;
	CHECK(dups || false_hits == 0, "%s: %zu absent ids found", name, false_hits);
	CHECK(hp_heap_find(h, 0) == SIZE_MAX && hp_heap_find(h, UINT64_MAX) == SIZE_MAX,
	      "%s: 0 or max found", name);
	hp_heap_free(h);
	hp_stats_release(&st);
	hp_reader_free(r);
	hpw_free(w);
	unlink(path);
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		fprintf(stderr, "usage: test_sort (no arguments)\n");
		return 2;
	}
	enum { N = 20000, NC = 300 };
	static uint64_t ids[N], cls[NC];
	for (size_t i = 0; i < NC; i++)
		cls[i] = 0x7000000 + 0x100 * i + 8;
	shuffle(cls, NC);

	for (size_t i = 0; i < N; i++)
		ids[i] = 0x10000000 + 8 * i * 3;
	run_case("sorted", ids, N, cls, 0, 0);
	run_case("sorted after class objects", ids, N, cls, NC, 0);

	/* 8 disjoint sorted runs written in shuffled order, classes interleaved below them */
	static uint64_t runs[N];
	size_t order[8] = { 5, 2, 7, 0, 3, 6, 1, 4 };
	size_t k = 0;
	for (size_t r = 0; r < 8; r++)
		for (size_t j = 0; j < N / 8; j++)
			runs[k++] = ids[order[r] * (N / 8) + j];
	run_case("disjoint runs", runs, N, cls, NC, 0);

	/* classes in the middle of the id range */
	static uint64_t mid[NC];
	for (size_t i = 0; i < NC; i++)
		mid[i] = 0x10000000 + 8 * (3 * (i * (N / NC)) + 1);
	shuffle(mid, NC);
	run_case("disjoint runs, strays inside", runs, N, mid, NC, 0);

	/* overlapping runs: even and odd multiples interleave */
	static uint64_t ov[N];
	for (size_t i = 0; i < N / 2; i++) {
		ov[i] = 0x10000000 + 16 * i;
		ov[N / 2 + i] = 0x10000000 + 16 * i + 8;
	}
	run_case("overlapping runs", ov, N, cls, NC, 0);

	/* overlapping runs with ids written twice: the second run repeats
	 * every fifth id of the first, and some class objects repeat too */
	static uint64_t dup[N], dcls[NC];
	for (size_t i = 0; i < N / 2; i++) {
		dup[i] = 0x10000000 + 16 * i;
		dup[N / 2 + i] = 0x10000000 + 16 * i + (i % 5 ? 8 : 0);
	}
	memcpy(dcls, cls, sizeof dcls);
	for (size_t i = 0; i < NC; i += 7)
		dcls[i] = dup[3 * i];
	run_case("overlapping runs, duplicate ids", dup, N, dcls, NC, 1);

	/* random order, ids spread over 40 bits */
	static uint64_t rnd[N];
	for (size_t i = 0; i < N; i++)
		rnd[i] = (((next_rand() & 0xffffffffffull) << 3) | 0) + 8;
	/* make them unique */
	for (size_t i = 0; i < N; i++)
		rnd[i] = (rnd[i] & ~0x3ffffull) | (i << 3);
	shuffle(rnd, N);
	run_case("random", rnd, N, cls, NC, 0);

	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
