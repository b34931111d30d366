/*
 * test_browse_model.c — the list model under hprofan browse
 * (src/cli/browse_model), without a terminal, on a dump built byte by byte:
 *
 * Classes: Object 0x100, Node 0x120 {next: Object}, Holder 0x130 with
 * statics A -> 0x1000 and B -> 0x1010, Object[] 0x160.
 * Objects:
 *   A 0x1000 Node {next ARR}       ARR 0x1020 Object[4] {N1, N2, N3, BIG}
 *   N1 0x1030, N2 0x1040, N3 0x1050 Node {next 0}
 *   BIG 0x1060 byte[1000]
 *   B 0x1010 Object[1] {C}         C 0x1070 Node {next 0}
 *   G 0x1100 Node (JNI global)     U 0x1200 Node (no root reaches it)
 * Roots: STICKY CLASS Holder, JNI GLOBAL G.
 * Dominator tree: Holder -> A, B; A -> ARR; ARR -> N1, N2, N3, BIG; B -> C.
 * So ARR's level holds two rows: byte[] @0x1060 and the group [3 x Node];
 * ARR's subtree holds 5 objects, A's 6.
 */
#include "cli/browse_model.h"
#include "analysis/retained.h"
#include "helper/hpw.h"
#include "model/heap.h"
#include "parser/hprof.h"
#include "parser/reader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int passed, failed;
#define CHECK(cond, ...) do { if (cond) passed++; else { failed++; printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } } while (0)

enum {
	OBJ_C = 0x100, NODE_C = 0x120, HOLDER_C = 0x130, OARR_C = 0x160,
	A = 0x1000, B = 0x1010, ARR = 0x1020, N1 = 0x1030, N2 = 0x1040, N3 = 0x1050, BIG = 0x1060,
	C = 0x1070, G = 0x1100, U = 0x1200
};

static uint64_t next_sid = 1000;
static uint32_t next_serial = 1;

static uint64_t sid(hpw *w, const char *s)
{
	hpw_string(w, next_sid, s);
	return next_sid++;
}

static void class_dump(hpw *w, uint64_t cid, uint64_t super, uint64_t fsid, int nf,
		       const struct hpw_static_field *st, int ns)
{
	struct hpw_instance_field f = { fsid, HPW_T_OBJECT };
	struct hpw_class c;
	memset(&c, 0, sizeof c);
	c.class_id = cid;
	c.super_id = super;
	c.instance_size = nf ? 8 : 0;
	c.nfields = (uint16_t)nf;
	c.fields = nf ? &f : NULL;
	c.nstatics = (uint16_t)ns;
	c.statics = st;
	hpw_class_dump(w, &c);
}

static void node(hpw *w, uint64_t id, uint64_t next)
{
	hpw_instance_begin(w, id, 0, NODE_C);
	hpw_value(w, HPW_T_OBJECT, next);
	hpw_instance_end(w);
}

static int write_dump(const char *path)
{
	hpw *w = hpw_new("JAVA PROFILE 1.0.2", 8, 1700000000000ull);
	uint64_t next = sid(w, "next"), sa = sid(w, "A"), sb = sid(w, "B");
	hpw_load_class(w, next_serial++, OBJ_C, 0, sid(w, "java/lang/Object"));
	hpw_load_class(w, next_serial++, NODE_C, 0, sid(w, "Node"));
	hpw_load_class(w, next_serial++, HOLDER_C, 0, sid(w, "Holder"));
	hpw_load_class(w, next_serial++, OARR_C, 0, sid(w, "[Ljava/lang/Object;"));
	hpw_begin_dump(w, HPW_TAG_HEAP_DUMP_SEGMENT);
	hpw_root_sticky_class(w, HOLDER_C);
	hpw_root_jni_global(w, G, 0x9999);
	class_dump(w, OBJ_C, 0, 0, 0, NULL, 0);
	class_dump(w, NODE_C, OBJ_C, next, 1, NULL, 0);
	struct hpw_static_field st[2] = { { sa, HPW_T_OBJECT, A }, { sb, HPW_T_OBJECT, B } };
	class_dump(w, HOLDER_C, OBJ_C, 0, 0, st, 2);
	class_dump(w, OARR_C, OBJ_C, 0, 0, NULL, 0);
	node(w, A, ARR);
	uint64_t bl[1] = { C };
	hpw_obj_array(w, B, 0, OARR_C, 1, bl);
	uint64_t el[4] = { N1, N2, N3, BIG };
	hpw_obj_array(w, ARR, 0, OARR_C, 4, el);
	node(w, N1, 0);
	node(w, N2, 0);
	node(w, N3, 0);
	static uint8_t bytes[1000];
	hpw_prim_array(w, BIG, 0, HPW_T_BYTE, 1000, bytes, sizeof bytes);
	node(w, C, 0);
	node(w, G, 0);
	node(w, U, A);
	hpw_end_dump(w);
	hpw_dump_end(w);
	int rc = hpw_write_file(w, path);
	hpw_free(w);
	return rc;
}

static hp_heap *load(const char *path)
{
	struct hp_error err;
	hp_error_clear(&err);
	hp_reader *r = NULL;
	if (hp_reader_open(&r, path, &err) != HP_OK)
		return NULL;
	struct hp_heap_opts ho;
	hp_heap_opts_init(&ho);
	ho.build_objects = 1;
	hp_heap *h = hp_heap_new(&ho);
	struct hp_sink s;
	hp_heap_sink(h, &s);
	struct hp_parse_opts po;
	hp_parse_opts_init(&po);
	struct hp_stats stt;
	int rc = hp_parse(r, &s, &po, &stt, &err);
	hp_stats_release(&stt);
	hp_reader_free(r);
	if (rc == HP_OK)
		rc = hp_heap_finish(h, &err);
	if (rc != HP_OK) {
		printf("load %s: %s\n", path, err.msg);
		hp_heap_free(h);
		return NULL;
	}
	return h;
}

/* the vis index of the row for object id (or group of class name), SIZE_MAX if none */
static size_t find_obj(const struct hp_browse *m, uint64_t id)
{
	const struct hp_blevel *L = hp_browse_level(m);
	for (size_t i = 0; i < L->nvis; i++) {
		const struct hp_brow *r = hp_browse_row(m, i);
		if (r->kind == HP_BR_OBJECT && hp_heap_id(m->h, r->id) == id)
			return i;
	}
	return SIZE_MAX;
}

static size_t find_name(const struct hp_browse *m, int kind, const char *name)
{
	const struct hp_blevel *L = hp_browse_level(m);
	for (size_t i = 0; i < L->nvis; i++) {
		const struct hp_brow *r = hp_browse_row(m, i);
		if (r->kind == kind && strcmp(hp_browse_name(m, r), name) == 0)
			return i;
	}
	return SIZE_MAX;
}

/* the largest shown size among the visible rows, the long way */
static uint64_t max_by_scan(const struct hp_browse *m)
{
	const struct hp_blevel *L = hp_browse_level(m);
	uint64_t mx = 0;
	for (size_t i = 0; i < L->nvis; i++) {
		uint64_t s = hp_browse_size(m, hp_browse_row(m, i));
		mx = s > mx ? s : mx;
	}
	return mx;
}

static int has_substr(void *ud, const char *name)
{
	return strstr(name, (const char *)ud) != NULL;
}

/* opens the row for object id at the current level */
static int open_obj(struct hp_browse *m, uint64_t id)
{
	size_t i = find_obj(m, id);
	if (i == SIZE_MAX)
		return 0;
	hp_browse_goto(m, i);
	struct hp_error err;
	hp_error_clear(&err);
	return hp_browse_descend(m, &err) == 1;
}

/* ---- the radix sort against the comparison sort ----------------------- */

/* ARR2 (a JNI global) holds 600 byte[] of 12 lengths, 300 Nodes and 90
 * int[] of 3 lengths: many equal sizes, in every view. */
enum { ARR2 = 0x100000, MANY = 0x200000, NMANY = 990 };

static int write_many(const char *path)
{
	hpw *w = hpw_new("JAVA PROFILE 1.0.2", 8, 1700000000000ull);
	uint64_t next = sid(w, "next");
	hpw_load_class(w, next_serial++, OBJ_C, 0, sid(w, "java/lang/Object"));
	hpw_load_class(w, next_serial++, NODE_C, 0, sid(w, "Node"));
	hpw_load_class(w, next_serial++, OARR_C, 0, sid(w, "[Ljava/lang/Object;"));
	hpw_begin_dump(w, HPW_TAG_HEAP_DUMP_SEGMENT);
	hpw_root_jni_global(w, ARR2, 0x7777);
	class_dump(w, OBJ_C, 0, 0, 0, NULL, 0);
	class_dump(w, NODE_C, OBJ_C, next, 1, NULL, 0);
	class_dump(w, OARR_C, OBJ_C, 0, 0, NULL, 0);
	static uint64_t el[NMANY];
	for (uint32_t i = 0; i < NMANY; i++)
		el[i] = MANY + 16ull * i;
	hpw_obj_array(w, ARR2, 0, OARR_C, NMANY, el);
	static uint8_t bytes[64];
	for (uint32_t i = 0; i < NMANY; i++) {
		uint64_t id = MANY + 16ull * i;
		if (i < 600) {
			hpw_prim_array(w, id, 0, HPW_T_BYTE, (i * 7) % 12 * 4, bytes, (i * 7) % 12 * 4);
		} else if (i < 900) {
			/* odd Nodes also hold an int[] (ARR2 holds it too) */
			hpw_instance_begin(w, id, 0, NODE_C);
			hpw_value(w, HPW_T_OBJECT, i % 2 ? MANY + 16ull * (900 + i % 90) : 0);
			hpw_instance_end(w);
		} else {
			hpw_prim_array(w, id, 0, HPW_T_INT, (i % 3) * 2, bytes, (i % 3) * 8);
		}
	}
	hpw_end_dump(w);
	hpw_dump_end(w);
	int rc = hpw_write_file(w, path);
	hpw_free(w);
	return rc;
}

/* rows of the current levels of a and b are the same, in the same order */
static int same_rows(const struct hp_browse *a, const struct hp_browse *b)
{
	const struct hp_blevel *x = hp_browse_level(a), *y = hp_browse_level(b);
	if (x->nvis != y->nvis)
		return 0;
	for (size_t i = 0; i < x->nvis; i++) {
		const struct hp_brow *p = hp_browse_row(a, i), *q = hp_browse_row(b, i);
		if (p->kind != q->kind || p->id != q->id)
			return 0;
	}
	return 1;
}

/* a sort key (or the toggle, key -1) applied to both models, a with the
 * comparison sort, b with the radix sort (every level counts as big) */
static void both(struct hp_browse *a, struct hp_browse *b, int key)
{
	hp_browse_radix_from = SIZE_MAX;
	if (key < 0)
		hp_browse_toggle_shallow(a);
	else
		hp_browse_sort(a, key);
	hp_browse_radix_from = 1;
	if (key < 0)
		hp_browse_toggle_shallow(b);
	else
		hp_browse_sort(b, key);
}

static void test_radix(const char *dir)
{
	char path[600];
	snprintf(path, sizeof path, "%s/many.hprof", dir);
	if (write_many(path)) {
		CHECK(0, "cannot write %s", path);
		return;
	}
	hp_heap *h = load(path);
	if (!h)
		return;
	struct hp_retained R;
	struct hp_retained_opts ro;
	memset(&ro, 0, sizeof ro);
	struct hp_error err;
	hp_error_clear(&err);
	if (hp_retained_compute(h, path, &ro, &R, &err) != HP_OK) {
		CHECK(0, "retained: %s", err.msg);
		hp_heap_free(h);
		return;
	}
	struct hp_browse a, b;
	hp_browse_radix_from = SIZE_MAX;
	int ok = hp_browse_init(&a, h, &R, &err) == HP_OK;
	hp_browse_radix_from = 1;
	ok = ok && hp_browse_init(&b, h, &R, &err) == HP_OK;
	CHECK(ok, "init: %s", err.msg);
	static const int keys[] = { HP_BSORT_NAME, HP_BSORT_NAME, HP_BSORT_COUNT, HP_BSORT_COUNT, -1,
				    HP_BSORT_SIZE, HP_BSORT_SIZE, HP_BSORT_NAME, -1, HP_BSORT_COUNT, HP_BSORT_SIZE };
	int levels = 0, bad = 0;
	for (int view = HP_BV_DOM; ok && view <= HP_BV_ROOTS; view++) {
		hp_browse_radix_from = SIZE_MAX;
		ok = hp_browse_set_view(&a, view, &err) == HP_OK;
		hp_browse_radix_from = 1;
		ok = ok && hp_browse_set_view(&b, view, &err) == HP_OK;
		/* down the first row each time, comparing every order on the way */
		for (int depth = 0; ok && depth < 4; depth++) {
			levels++;
			if (!same_rows(&a, &b))
				bad++;
			for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
				both(&a, &b, keys[k]);
				if (!same_rows(&a, &b)) {
					printf("radix: view %d depth %d key %d: another order\n", view, depth, keys[k]);
					bad++;
				}
			}
			/* open the row with the most rows under it, in both */
			const struct hp_blevel *L = hp_browse_level(&a);
			size_t best = SIZE_MAX;
			uint64_t most = 0;
			for (size_t i = 0; i < L->nvis; i++) {
				const struct hp_brow *r = hp_browse_row(&a, i);
				uint64_t c = r->kind == HP_BR_GROUP ? r->n : r->count;
				if (hp_browse_can_open(&a, r) && (best == SIZE_MAX || c > most)) {
					best = i;
					most = c;
				}
			}
			if (best == SIZE_MAX)
				break;
			hp_browse_goto(&a, best);
			hp_browse_goto(&b, best);
			hp_browse_radix_from = SIZE_MAX;
			int da = hp_browse_descend(&a, &err);
			hp_browse_radix_from = 1;
			int db = hp_browse_descend(&b, &err);
			if (da != 1 || db != 1)
				break;
		}
	}
	hp_browse_radix_from = 20000;
	CHECK(ok && levels >= 6 && !bad, "the radix sort gives the comparison sort's order: %d levels, %d differ",
	      levels, bad);
	hp_browse_release(&a);
	hp_browse_release(&b);
	hp_retained_release(&R);
	hp_heap_free(h);
	unlink(path);
}

/* ---- lazy levels against built ones ------------------------------------ */

/* a lazy and b built: the same rows in the same order, asked for from the
 * middle first (a lazy level makes positions final where asked) */
static int same_rows_mid(const struct hp_browse *a, const struct hp_browse *b)
{
	const struct hp_blevel *x = hp_browse_level(a), *y = hp_browse_level(b);
	if (x->nvis != y->nvis)
		return 0;
	size_t n = x->nvis;
	for (size_t k = 0; k < n; k++) {
		size_t i = (k + n / 2) % n;
		const struct hp_brow *p = hp_browse_row(a, i), *q = hp_browse_row(b, i);
		if (p->kind != q->kind || p->id != q->id || p->retained != q->retained || p->count != q->count)
			return 0;
	}
	return hp_browse_max(a) == hp_browse_max(b) && hp_browse_total(a) == hp_browse_total(b) &&
	       x->cursor == y->cursor;
}

static void test_lazy(const char *dir)
{
	char path[600];
	snprintf(path, sizeof path, "%s/many-lazy.hprof", dir);
	if (write_many(path)) {
		CHECK(0, "cannot write %s", path);
		return;
	}
	hp_heap *h = load(path);
	if (!h)
		return;
	struct hp_retained R;
	struct hp_retained_opts ro;
	memset(&ro, 0, sizeof ro);
	struct hp_error err;
	hp_error_clear(&err);
	if (hp_retained_compute(h, path, &ro, &R, &err) != HP_OK) {
		CHECK(0, "retained: %s", err.msg);
		hp_heap_free(h);
		return;
	}
	struct hp_browse a, b;
	int ok = hp_browse_init(&a, h, &R, &err) == HP_OK && hp_browse_init(&b, h, &R, &err) == HP_OK;
	CHECK(ok, "init: %s", err.msg);
	/* the leaks view's list: every object, of several classes */
	uint32_t *all = malloc(h->nobj * sizeof *all);
	for (size_t i = 0; all && i < h->nobj; i++)
		all[i] = (uint32_t)i;
	ok = ok && all && hp_browse_set_list(&a, all, h->nobj, &err) == HP_OK &&
	     hp_browse_set_list(&b, all, h->nobj, &err) == HP_OK;
	free(all);
	static const int keys[] = { HP_BSORT_NAME, HP_BSORT_NAME, HP_BSORT_COUNT, HP_BSORT_COUNT, -1,
				    HP_BSORT_SIZE, HP_BSORT_SIZE, HP_BSORT_NAME, -1, HP_BSORT_COUNT, HP_BSORT_SIZE };
	static const int views[] = { HP_BV_HISTO, HP_BV_DOM, HP_BV_LEAKS };
	int lazy = 0, bad = 0;
	for (size_t vi = 0; ok && vi < 3; vi++) {
		hp_browse_lazy_from = 1;
		ok = hp_browse_set_view(&a, views[vi], &err) == HP_OK;
		hp_browse_lazy_from = SIZE_MAX;
		ok = ok && hp_browse_set_view(&b, views[vi], &err) == HP_OK;
		for (int depth = 0; ok && depth < 3; depth++) {
			lazy += hp_browse_level(&a)->lazy;
			if (!same_rows_mid(&a, &b)) {
				printf("lazy: view %d depth %d: another order\n", views[vi], depth);
				bad++;
			}
			for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
				/* the cursor on a row in the middle: it stays on it */
				hp_browse_goto(&a, hp_browse_level(&a)->nvis / 3);
				hp_browse_goto(&b, hp_browse_level(&b)->nvis / 3);
				if (keys[k] < 0) {
					hp_browse_toggle_shallow(&a);
					hp_browse_toggle_shallow(&b);
				} else {
					hp_browse_sort(&a, keys[k]);
					hp_browse_sort(&b, keys[k]);
				}
				if (!same_rows_mid(&a, &b)) {
					printf("lazy: view %d depth %d key %d: another order\n", views[vi], depth, keys[k]);
					bad++;
				}
			}
			if (views[vi] == HP_BV_LEAKS && depth == 0) {
				/* a filter on a lazy level of mixed classes, and cleared */
				int fa = hp_browse_filter(&a, has_substr, (void *)"byte", "byte", &err);
				int fb = hp_browse_filter(&b, has_substr, (void *)"byte", "byte", &err);
				if (fa || fb || !same_rows_mid(&a, &b) || hp_browse_level(&a)->nvis != 600) {
					printf("lazy: the filter 'byte': %zu rows\n", hp_browse_level(&a)->nvis);
					bad++;
				}
				fa = hp_browse_filter(&a, NULL, NULL, NULL, &err);
				fb = hp_browse_filter(&b, NULL, NULL, NULL, &err);
				if (fa || fb || !same_rows_mid(&a, &b) || hp_browse_level(&a)->nvis != h->nobj) {
					printf("lazy: the filter cleared: %zu rows\n", hp_browse_level(&a)->nvis);
					bad++;
				}
			}
			/* open the row with the most rows under it, in both */
			const struct hp_blevel *L = hp_browse_level(&b);
			size_t best = SIZE_MAX;
			uint64_t most = 0;
			for (size_t i = 0; i < L->nvis; i++) {
				const struct hp_brow *r = hp_browse_row(&b, i);
				uint64_t c = r->kind == HP_BR_GROUP ? r->n : r->count;
				if (hp_browse_can_open(&b, r) && (best == SIZE_MAX || c > most)) {
					best = i;
					most = c;
				}
			}
			if (best == SIZE_MAX)
				break;
			hp_browse_goto(&a, best);
			hp_browse_goto(&b, best);
			hp_browse_lazy_from = 1;
			int da = hp_browse_descend(&a, &err);
			hp_browse_lazy_from = SIZE_MAX;
			int db = hp_browse_descend(&b, &err);
			if (da != 1 || db != 1)
				break;
		}
	}
	hp_browse_lazy_from = 100000;
	CHECK(ok && lazy >= 4 && !bad, "lazy levels give the built levels' rows and order: %d lazy levels, %d differ",
	      lazy, bad);
	hp_browse_release(&a);
	hp_browse_release(&b);
	hp_retained_release(&R);
	hp_heap_free(h);
	unlink(path);
}

/* ---- search and reveal ----------------------------------------------- */

static void test_search(struct hp_browse *m, const hp_heap *h, const struct hp_retained *R)
{
	struct hp_error err;
	hp_error_clear(&err);
	/* 'Node': A, N1, N2, N3, C, G (U: no root reaches it) and the class
	 * object Node (it goes by the class it is), each once a cycle */
	uint32_t first = HP_NONE, v = HP_NONE;
	int wrapped = 0, seen = 0, bad = 0, restart = 1;
	uint8_t got[64] = { 0 };
	for (int i = 0; i < 20; i++) {
		if (hp_browse_search(m, restart, has_substr, (void *)"Node", &v, &wrapped, &err) != HP_OK || v == HP_NONE)
			break;
		restart = 0;
		if (wrapped)
			break;
		if (first == HP_NONE)
			first = v;
		if ((strcmp(hp_class_name(h, h->cls[v]), "Node") && hp_heap_id(h, v) != NODE_C) || v >= 64 || got[v]++)
			bad++;
		seen++;
		/* each match shown in the dominator view, the cursor on it */
		if (hp_browse_reveal(m, v, &err) != HP_OK || !hp_browse_cur(m) || hp_browse_cur(m)->id != v ||
		    hp_browse_cur(m)->kind != HP_BR_OBJECT || m->view != HP_BV_DOM) {
			printf("search: reveal %llx failed\n", (unsigned long long)hp_heap_id(h, v));
			bad++;
		} else {
			/* the level above lists v's dominator */
			const struct hp_blevel *L = hp_browse_level(m);
			uint32_t d = R->dom.idom[v];
			uint32_t node = L->kind == HP_BL_GROUP ? m->levels[m->depth - 2].node : L->node;
			if (node != (d == HP_DOM_SUPER ? (uint32_t)h->nobj : d))
				bad++;
		}
	}
	CHECK(seen == 7 && !bad && wrapped && v == first,
	      "search 'Node': 7 matches each once, then it wraps to the first (%d, %d bad)", seen, bad);
	CHECK(hp_browse_search(m, 1, has_substr, (void *)"nothing", &v, &wrapped, &err) == HP_OK && v == HP_NONE,
	      "search 'nothing': no match");
	CHECK(hp_browse_reveal(m, (uint32_t)hp_heap_find(h, U), &err) == 1, "reveal: U is unreachable");
	/* a match in a group: N1's level is the group's */
	uint32_t n1 = (uint32_t)hp_heap_find(h, N1);
	CHECK(hp_browse_reveal(m, n1, &err) == HP_OK && hp_browse_level(m)->kind == HP_BL_GROUP &&
	      hp_browse_cur(m)->id == n1 && m->depth == 5, "reveal N1: Holder, A, ARR, the group of Nodes");
}

/* ---- threads and groups ------------------------------------------------ */

static void test_threads_groups(struct hp_browse *m, const hp_heap *h, const struct hp_retained *R)
{
	struct hp_error err;
	hp_error_clear(&err);
	uint32_t a = (uint32_t)hp_heap_find(h, A), b = (uint32_t)hp_heap_find(h, B), g = (uint32_t)hp_heap_find(h, G);
	/* one thread, two frames: A in frame 0, B in frame 1, G without a frame */
	struct hp_thread_local lo[3] = { { a, 0, HP_ROOT_JAVA_FRAME }, { b, 1, HP_ROOT_JAVA_FRAME },
					 { g, HP_FRAME_NONE, HP_ROOT_NATIVE_STACK } };
	struct hp_thread_info ti;
	memset(&ti, 0, sizeof ti);
	ti.obj = SIZE_MAX;
	ti.trace = HP_NONE;
	ti.nframes = 2;
	ti.retained = 77;
	ti.nlocals = 3;
	struct hp_threads T;
	memset(&T, 0, sizeof T);
	T.t = &ti;
	T.n = 1;
	T.locals = lo;
	T.nlocals = 3;
	const char *names[1] = { "\"main\"" };
	hp_browse_set_threads(m, &T, names);
	CHECK(hp_browse_set_view(m, HP_BV_THREADS, &err) == HP_OK && hp_browse_level(m)->nvis == 1 &&
	      hp_browse_row(m, 0)->kind == HP_BR_THREAD && hp_browse_row(m, 0)->retained == 77 &&
	      strcmp(hp_browse_name(m, hp_browse_row(m, 0)), "\"main\"") == 0, "threads view: one thread, retained 77");
	CHECK(hp_browse_descend(m, &err) == 1 && hp_browse_level(m)->kind == HP_BL_STACK, "Enter: its stack");
	static const struct { int kind; uint32_t id; } want[6] = {
		{ HP_BR_FRAME, 0 }, { HP_BR_OBJECT, 0 }, { HP_BR_FRAME, 1 }, { HP_BR_OBJECT, 0 },
		{ HP_BR_FRAME, HP_FRAME_NONE }, { HP_BR_OBJECT, 0 } };
	uint32_t objs[3] = { a, b, g };
	int bad = 0;
	for (int k = 0; k < 3; k++) {   /* as built, then sorted by name and by count: the order stays */
		const struct hp_blevel *L = hp_browse_level(m);
		if (L->nvis != 6) {
			bad++;
			break;
		}
		for (size_t i = 0, o = 0; i < 6; i++) {
			const struct hp_brow *r = hp_browse_row(m, i);
			if (r->kind != want[i].kind || (r->kind == HP_BR_FRAME ? r->id != want[i].id || r->count != 1
										: r->id != objs[o++]))
				bad++;
		}
		hp_browse_sort(m, k == 0 ? HP_BSORT_NAME : HP_BSORT_COUNT);
	}
	hp_browse_sort(m, HP_BSORT_SIZE);
	CHECK(!bad, "the stack: frame 0, A, frame 1, B, no frame, G, in that order whatever the sort (%d bad)", bad);
	hp_browse_goto(m, 0);
	CHECK(hp_browse_descend(m, &err) == 0, "a frame does not open");
	hp_browse_goto(m, 1);
	CHECK(hp_browse_descend(m, &err) == 1 && hp_browse_level(m)->kind == HP_BL_DOM && hp_browse_level(m)->node == a,
	      "a local opens as an object");

	/* groups by package: "" (Node, Holder, byte[], Object[]...) and java with java.lang */
	struct hp_groups GR;
	if (hp_groups_compute(h, R, HP_GROUP_PACKAGE, NULL, NULL, NULL, 0, &GR, &err) != HP_OK) {
		CHECK(0, "groups: %s", err.msg);
		return;
	}
	const char **gn = calloc(GR.n ? GR.n : 1, sizeof *gn);
	char (*buf)[64] = calloc(GR.n ? GR.n : 1, sizeof *buf);
	for (size_t i = 0; gn && buf && i < GR.n; i++) {
		snprintf(buf[i], sizeof buf[i], "%.*s", (int)GR.g[i].pkg_len, GR.g[i].pkg ? GR.g[i].pkg : "");
		gn[i] = buf[i];
	}
	hp_browse_set_groups(m, &GR, gn);
	CHECK(hp_browse_set_view(m, HP_BV_GROUPS, &err) == HP_OK && hp_browse_level(m)->kind == HP_BL_CGROUPS,
	      "groups view");
	size_t top = 0, jv = SIZE_MAX;
	uint64_t inst = 0;
	for (size_t i = 0; i < GR.n; i++)
		if (GR.g[i].parent == HP_NONE) {
			top++;
			inst += GR.g[i].instances;
		}
	uint64_t sum = 0;
	for (size_t i = 0; i < hp_browse_level(m)->nvis; i++) {
		const struct hp_brow *r = hp_browse_row(m, i);
		sum += r->count;
		if (!strcmp(hp_browse_name(m, r), "java"))
			jv = i;
	}
	CHECK(hp_browse_level(m)->nvis == top && top == 2 && sum == inst && inst == h->nobj,
	      "the top-level packages: %zu rows, %llu objects of %zu", top, (unsigned long long)sum, h->nobj);
	hp_browse_goto(m, jv);
	CHECK(jv != SIZE_MAX && hp_browse_descend(m, &err) == 1 && hp_browse_level(m)->nvis == 1 &&
	      hp_browse_row(m, 0)->kind == HP_BR_CGROUP && !strcmp(hp_browse_name(m, hp_browse_row(m, 0)), "java.lang"),
	      "java opens into java.lang");
	/* (java.lang.Object has no instance: its class object counts under java.lang.Class) */
	CHECK(hp_browse_descend(m, &err) == 1 && hp_browse_level(m)->nvis == 2 &&
	      find_name(m, HP_BR_CLASS, "java.lang.Object[]") != SIZE_MAX &&
	      find_name(m, HP_BR_CLASS, "java.lang.Class") != SIZE_MAX, "java.lang lists its classes with objects");
	CHECK(hp_browse_set_view(m, HP_BV_DOM, &err) == HP_OK, "back to the dominator tree");
	hp_browse_set_groups(m, NULL, NULL);
	hp_browse_set_threads(m, NULL, NULL);
	hp_groups_release(&GR);
	free(gn);
	free(buf);
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		fprintf(stderr, "usage: test_browse_model (no arguments)\n");
		return 2;
	}
	char dir[512], path[600];
	const char *t = getenv("TMPDIR");
	snprintf(dir, sizeof dir, "%s/hp-test-browse.XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 2;
	}
	snprintf(path, sizeof path, "%s/tree.hprof", dir);
	if (write_dump(path)) {
		perror(path);
		return 2;
	}
	hp_heap *h = load(path);
	if (!h)
		return 2;
	struct hp_retained R;
	struct hp_retained_opts ro;
	memset(&ro, 0, sizeof ro);
	ro.weak = HP_WEAK_FOLLOW;
	ro.roots = HP_ROOTS_THREADS;
	struct hp_error err;
	hp_error_clear(&err);
	if (hp_retained_compute(h, path, &ro, &R, &err) != HP_OK) {
		printf("retained: %s\n", err.msg);
		return 2;
	}
	struct hp_browse m;
	CHECK(hp_browse_init(&m, h, &R, &err) == HP_OK, "init: %s", err.msg);

	/* subtree counts */
	size_t arr = hp_heap_find(h, ARR), a = hp_heap_find(h, A), u = hp_heap_find(h, U);
	CHECK(m.subtree[arr] == 5, "ARR's subtree: %u objects, expected 5", m.subtree[arr]);
	CHECK(m.subtree[a] == 6, "A's subtree: %u objects, expected 6", m.subtree[a]);
	CHECK(m.subtree[u] == 0, "U is unreachable: %u", m.subtree[u]);

	/* the top level: Holder (a class object, never grouped) and G, largest first */
	struct hp_blevel *L = hp_browse_level(&m);
	CHECK(L->kind == HP_BL_DOM && L->node == h->nobj, "top level is the super-root's children");
	CHECK(find_obj(&m, HOLDER_C) != SIZE_MAX, "the class object Holder is a row of its own");
	CHECK(find_obj(&m, G) != SIZE_MAX, "the JNI global G is a row");
	int sorted = 1;
	for (size_t i = 1; i < L->nvis; i++)
		if (hp_browse_size(&m, hp_browse_row(&m, i - 1)) < hp_browse_size(&m, hp_browse_row(&m, i)))
			sorted = 0;
	CHECK(sorted, "the top level is sorted by retained size, largest first");
	CHECK(L->cursor == 0, "the cursor starts on the first row");

	/* Holder -> A -> ARR */
	CHECK(open_obj(&m, HOLDER_C), "Holder opens");
	/* (and class java.lang.Object, its super class, which nothing else holds) */
	CHECK(find_obj(&m, A) != SIZE_MAX && find_obj(&m, B) != SIZE_MAX, "Holder dominates A and B");
	CHECK(hp_browse_row(&m, 0)->id == a, "A (it retains the most) comes first");
	CHECK(open_obj(&m, A), "A opens");
	CHECK(open_obj(&m, ARR), "ARR opens");
	L = hp_browse_level(&m);
	CHECK(m.depth == 4 && L->nvis == 2, "ARR's level: depth %zu, %zu rows (byte[] and the group)", m.depth, L->nvis);
	size_t gi = find_name(&m, HP_BR_GROUP, "Node");
	CHECK(gi != SIZE_MAX, "N1, N2, N3 are grouped");
	if (gi == SIZE_MAX)
		goto out;
	const struct hp_brow *g = hp_browse_row(&m, gi);
	CHECK(g->n == 3 && g->count == 3, "the group holds 3 objects: n %u count %llu", g->n,
	      (unsigned long long)g->count);
	CHECK(g->retained == 3 * hp_retained_shallow(&R, hp_heap_find(h, N1)), "the group retains its members' sum");
	CHECK(find_obj(&m, BIG) == 0 && gi == 1, "by size: byte[1000] first, the group second");
	CHECK(hp_browse_max(&m) == R.retained[hp_heap_find(h, BIG)] && hp_browse_max(&m) == max_by_scan(&m),
	      "the bars' maximum is byte[1000]'s retained size");

	/* sorting: name, count, reversing, the cursor stays on its row */
	hp_browse_goto(&m, 1);   /* on the group */
	hp_browse_sort(&m, HP_BSORT_NAME);
	CHECK(find_name(&m, HP_BR_GROUP, "Node") == 0, "by name: Node before byte[]");
	CHECK(hp_browse_level(&m)->cursor == 0, "the cursor followed the group to row 0");
	hp_browse_sort(&m, HP_BSORT_NAME);
	CHECK(find_name(&m, HP_BR_GROUP, "Node") == 1 && m.reverse, "n again reverses: byte[] first");
	hp_browse_sort(&m, HP_BSORT_COUNT);
	CHECK(find_name(&m, HP_BR_GROUP, "Node") == 0 && !m.reverse, "by count: the group (3) first");
	hp_browse_sort(&m, HP_BSORT_COUNT);
	CHECK(find_name(&m, HP_BR_GROUP, "Node") == 1, "C again: reversed");
	hp_browse_sort(&m, HP_BSORT_SIZE);
	CHECK(find_obj(&m, BIG) == 0 && !m.reverse, "back to size, largest first");
	hp_browse_toggle_shallow(&m);
	CHECK(m.shallow && hp_browse_size(&m, hp_browse_row(&m, 0)) == hp_retained_shallow(&R, hp_heap_find(h, BIG)),
	      "a: shallow sizes");
	CHECK(hp_browse_max(&m) == hp_retained_shallow(&R, hp_heap_find(h, BIG)) && hp_browse_max(&m) == max_by_scan(&m),
	      "a: the bars' maximum is a shallow size");
	hp_browse_toggle_shallow(&m);

	/* the group opens like a folder; going up lands on it again */
	hp_browse_goto(&m, 1);
	CHECK(hp_browse_descend(&m, &err) == 1, "the group opens");
	L = hp_browse_level(&m);
	CHECK(L->kind == HP_BL_GROUP && L->nvis == 3, "the group's level lists 3 Nodes");
	CHECK(hp_browse_row(&m, 0)->id == hp_heap_find(h, N1), "equal sizes: by object number");
	hp_browse_move(&m, 10);
	CHECK(hp_browse_level(&m)->cursor == 2, "move is clamped to the last row");
	hp_browse_move(&m, -1);
	CHECK(hp_browse_descend(&m, &err) == 0, "a leaf does not open");
	CHECK(hp_browse_ascend(&m) == 1, "up");
	CHECK(hp_browse_level(&m)->cursor == 1 && hp_browse_cur(&m)->kind == HP_BR_GROUP,
	      "back on the group, cursor 1");
	CHECK(hp_browse_descend(&m, &err) == 1 && hp_browse_level(&m)->cursor == 0,
	      "a level opened again starts at the top");
	hp_browse_ascend(&m);
	CHECK(hp_browse_ascend(&m) == 1 && hp_browse_cur(&m)->id == arr, "up again: on ARR");
	CHECK(hp_browse_ascend(&m) == 1 && hp_browse_cur(&m)->id == a, "up again: on A");
	CHECK(hp_browse_ascend(&m) == 1 && hp_browse_cur(&m)->id == hp_heap_find(h, HOLDER_C),
	      "up again: on Holder");
	CHECK(hp_browse_ascend(&m) == 0, "no level above the top");

	/* filter: per level, kept when coming back */
	CHECK(open_obj(&m, HOLDER_C) && open_obj(&m, A) && open_obj(&m, ARR), "down to ARR again");
	CHECK(hp_browse_filter(&m, has_substr, (void *)"byte", "byte", &err) == HP_OK, "filter");
	L = hp_browse_level(&m);
	CHECK(L->nvis == 1 && hp_browse_row(&m, 0)->id == hp_heap_find(h, BIG), "only byte[] matches 'byte'");
	CHECK(hp_browse_max(&m) == max_by_scan(&m), "filtered: the maximum is the visible rows'");
	CHECK(L->filter && strcmp(L->filter, "byte") == 0, "the level keeps the pattern text");
	CHECK(hp_browse_filter(&m, has_substr, (void *)"nothing", "nothing", &err) == HP_OK &&
	      hp_browse_level(&m)->nvis == 0 && hp_browse_cur(&m) == NULL, "no match: no rows, no cursor");
	CHECK(hp_browse_descend(&m, &err) == 0, "nothing to open in an empty list");
	CHECK(hp_browse_max(&m) == 0, "nothing visible: maximum 0");
	CHECK(hp_browse_filter(&m, has_substr, (void *)"Node", "Node", &err) == HP_OK &&
	      hp_browse_level(&m)->nvis == 1, "'Node' matches the group");
	CHECK(hp_browse_max(&m) == hp_browse_row(&m, 0)->retained && hp_browse_max(&m) < R.retained[hp_heap_find(h, BIG)],
	      "'Node': the maximum is the group's, not byte[]'s");
	CHECK(hp_browse_descend(&m, &err) == 1 && !hp_browse_level(&m)->filter &&
	      hp_browse_level(&m)->nvis == 3, "the group opens unfiltered");
	hp_browse_ascend(&m);
	CHECK(hp_browse_level(&m)->nvis == 1 && hp_browse_level(&m)->filter, "the filter is still there");
	CHECK(hp_browse_filter(&m, NULL, NULL, NULL, &err) == HP_OK && hp_browse_level(&m)->nvis == 2 &&
	      !hp_browse_level(&m)->filter, "cleared: both rows");

	/* the histogram: Node has 7 instances; Enter lists them by retained */
	CHECK(hp_browse_set_view(&m, HP_BV_HISTO, &err) == HP_OK && m.depth == 1, "histogram view");
	size_t ni = find_name(&m, HP_BR_CLASS, "Node");
	CHECK(ni != SIZE_MAX && hp_browse_row(&m, ni)->count == 7, "Node: 7 instances");
	hp_browse_goto(&m, ni);
	CHECK(hp_browse_descend(&m, &err) == 1 && hp_browse_level(&m)->nvis == 7, "its instances");
	CHECK(hp_browse_row(&m, 0)->id == a, "A retains the most");
	CHECK(hp_browse_max(&m) == R.retained[a] && hp_browse_max(&m) == max_by_scan(&m),
	      "instances: the maximum is A's");
	CHECK(hp_browse_descend(&m, &err) == 1 && hp_browse_level(&m)->kind == HP_BL_DOM &&
	      hp_browse_level(&m)->nvis == 1, "Enter again: A's dominator children (ARR)");

	/* roots: kinds, then the roots, then what they retain */
	CHECK(hp_browse_set_view(&m, HP_BV_ROOTS, &err) == HP_OK, "roots view");
	size_t ki = find_name(&m, HP_BR_ROOTKIND, hp_root_kind_name(HP_ROOT_JNI_GLOBAL));
	CHECK(ki != SIZE_MAX && hp_browse_level(&m)->nvis == 2, "two root kinds");
	hp_browse_goto(&m, ki);
	CHECK(hp_browse_descend(&m, &err) == 1 && hp_browse_level(&m)->nvis == 1 &&
	      hp_browse_row(&m, 0)->id == hp_heap_find(h, G), "JNI global: G");
	CHECK(hp_browse_descend(&m, &err) == 0, "G dominates nothing");

	/* the leaks view (L) lists the objects given, repeats once, then opens them */
	CHECK(hp_browse_set_view(&m, HP_BV_LEAKS, &err) == HP_OK && hp_browse_level(&m)->nvis == 0,
	      "leaks view before a list: empty");
	uint32_t lst[3] = { (uint32_t)arr, (uint32_t)hp_heap_find(h, G), (uint32_t)arr };
	CHECK(hp_browse_set_list(&m, lst, 3, &err) == HP_OK && m.nlist == 2, "the list keeps ARR once, and G");
	CHECK(hp_browse_set_view(&m, HP_BV_LEAKS, &err) == HP_OK && hp_browse_level(&m)->kind == HP_BL_LIST &&
	      hp_browse_level(&m)->nvis == 2 && hp_browse_row(&m, 0)->id == arr, "leaks view: ARR (larger) and G");
	CHECK(hp_browse_descend(&m, &err) == 1 && hp_browse_level(&m)->kind == HP_BL_DOM &&
	      hp_browse_level(&m)->node == arr, "Enter opens ARR's dominator children");

	test_search(&m, h, &R);
	test_threads_groups(&m, h, &R);

out:
	hp_browse_release(&m);
	hp_retained_release(&R);
	hp_heap_free(h);
	unlink(path);
	test_radix(dir);
	test_lazy(dir);
	rmdir(dir);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
