/*
 * Tests of the heap model (src/model/): size models, the histogram, the
 * object table and its index, warnings, Java names.
 *
 * Small dumps with answers worked out by hand (in the comments and the
 * tables below) are built with tests/helper/hpw, parsed through the model
 * sink (hp_heap_sink + hp_parse + hp_heap_finish) and checked object by
 * object; the histogram rows streamed during the parse must equal the sum of
 * hp_heap_shallow() over the objects of each row, and the rows of a streamed
 * model (build_objects = 0) must equal those of a built one.
 */
#include "helper/hpw.h"
#include "model/heap.h"
#include "parser/hprof.h"
#include "parser/reader.h"
#include "session/session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- checks ------------------------------------------------------------- */

static int n_pass, n_fail;
static const char *cur_test = "";

static void check_(int ok, const char *what, const char *file, int line)
{
	if (ok) {
		n_pass++;
		return;
	}
	n_fail++;
	printf("FAIL %s:%d [%s]: %s\n", file, line, cur_test, what);
}

static void check_eq_(uint64_t a, uint64_t b, const char *ea, const char *eb, const char *file, int line)
{
	if (a == b) {
		n_pass++;
		return;
	}
	n_fail++;
	printf("FAIL %s:%d [%s]: %s == %s (got %llu = 0x%llx, want %llu = 0x%llx)\n", file, line, cur_test,
	       ea, eb, (unsigned long long)a, (unsigned long long)a, (unsigned long long)b,
	       (unsigned long long)b);
}

static void check_streq_(const char *a, const char *b, const char *file, int line)
{
	if (a && b && strcmp(a, b) == 0) {
		n_pass++;
		return;
	}
	n_fail++;
	printf("FAIL %s:%d [%s]: got \"%s\", want \"%s\"\n", file, line, cur_test, a ? a : "(null)",
	       b ? b : "(null)");
}

#define CHECK(c) check_(!!(c), #c, __FILE__, __LINE__)
#define CHECK_EQ(a, b) check_eq_((uint64_t)(a), (uint64_t)(b), #a, #b, __FILE__, __LINE__)
#define CHECK_STREQ(a, b) check_streq_((a), (b), __FILE__, __LINE__)

static int has_warning(const hp_heap *h, const char *words)
{
	for (size_t i = 0; i < h->nwarnings; i++)
		if (strstr(hp_heap_warning(h, i), words))
			return 1;
	return 0;
}

/* ---- running the model --------------------------------------------------- */

static char tmpdir[512];

static void tmp_init(void)
{
	const char *t = getenv("TMPDIR");
	snprintf(tmpdir, sizeof tmpdir, "%s/hp-test-model.XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		exit(2);
	}
}

/* Parses the writer's bytes into a new model and finishes it; NULL (and a
 * failed check) when anything fails. */
static hp_heap *model_run(const hpw *w, const struct hp_heap_opts *ho)
{
	char path[600];
	snprintf(path, sizeof path, "%s/dump-XXXXXX", tmpdir);
	int fd = mkstemp(path);
	if (fd < 0) {
		perror("mkstemp");
		exit(2);
	}
	close(fd);
	if (hpw_write_file(w, path) != 0) {
		perror(path);
		exit(2);
	}
	struct hp_error err;
	hp_error_clear(&err);
	hp_reader *r = NULL;
	int rc = hp_reader_open(&r, path, &err);
	CHECK_EQ(rc, HP_OK);
	if (rc) {
		printf("    open: %s\n", err.msg);
		unlink(path);
		return NULL;
	}
	hp_heap *h = hp_heap_new(ho);
	CHECK(h != NULL);
	struct hp_sink s;
	hp_heap_sink(h, &s);
	struct hp_parse_opts po;
	hp_parse_opts_init(&po);
	po.dump_index = ho->dump_index;
	struct hp_stats st;
	rc = hp_parse(r, &s, &po, &st, &err);
	CHECK_EQ(rc, HP_OK);
	if (rc)
		printf("    parse: %s\n", err.msg);
	hp_stats_release(&st);
	hp_reader_free(r);
	unlink(path);
	hp_error_clear(&err);
	rc = hp_heap_finish(h, &err);
	CHECK_EQ(rc, HP_OK);
	/* finishing twice is harmless */
	CHECK_EQ(hp_heap_finish(h, &err), HP_OK);
	return h;
}

static struct hp_heap_opts hopts(int build, int kind)
{
	struct hp_heap_opts o;
	hp_heap_opts_init(&o);
	o.build_objects = build;
	o.size_kind = kind;
	o.dump_index = 0;
	return o;
}

static const struct hp_class *class_by_id(const hp_heap *h, uint64_t id)
{
	for (size_t i = 0; i < h->nclasses; i++)
		if (h->classes[i].id == id && !h->classes[i].synthetic)
			return &h->classes[i];
	return NULL;
}

static const struct hp_class *class_by_name(const hp_heap *h, const char *name)
{
	for (size_t i = 0; i < h->nclasses; i++)
		if (hp_class_name(h, i) && strcmp(hp_class_name(h, i), name) == 0)
			return &h->classes[i];
	return NULL;
}

static const struct hp_hrow *row_of(const hp_heap *h, const struct hp_class *c, unsigned heap)
{
	if (!c)
		return NULL;
	for (uint32_t r = c->row; r != HP_NONE; r = h->rows[r].next)
		if (h->rows[r].heap == heap)
			return &h->rows[r];
	return NULL;
}

/* Every histogram row equals the sum of hp_heap_shallow() over the built
 * objects of its class and heap; the totals agree. */
static void cross_check_rows(const hp_heap *h)
{
	size_t nr = h->nrows;
	uint64_t *cnt = calloc(nr + 1, sizeof *cnt), *cobj = calloc(nr + 1, sizeof *cobj);
	uint64_t *sh = calloc(nr + 1, sizeof *sh);
	uint64_t total = 0, heap_objs[HP_MAX_HEAPS] = { 0 }, heap_bytes[HP_MAX_HEAPS] = { 0 };
	int missing = 0;
	for (size_t i = 0; i < h->nobj; i++) {
		const struct hp_class *c = &h->classes[h->cls[i]];
		unsigned heap = hp_heap_heap(h, i);
		const struct hp_hrow *r = row_of(h, c, heap);
		if (!r) {
			missing++;
			continue;
		}
		size_t k = (size_t)(r - h->rows);
		uint64_t s = hp_heap_shallow(h, i);
		if (hp_heap_kind(h, i) == HP_OBJ_CLASS)
			cobj[k]++;
		else
			cnt[k]++;
		sh[k] += s;
		total += s;
		heap_objs[heap]++;
		heap_bytes[heap] += s;
	}
	CHECK_EQ(missing, 0);
	int bad = 0;
	for (size_t k = 0; k < nr; k++) {
		const struct hp_hrow *r = &h->rows[k];
		if (r->count != cnt[k] || r->class_objs != cobj[k] || r->shallow != sh[k]) {
			bad++;
			printf("    row %s heap %u: count %llu/%llu class_objs %llu/%llu shallow %llu/%llu (row/objects)\n",
			       hp_class_name(h, r->cls), r->heap, (unsigned long long)r->count,
			       (unsigned long long)cnt[k], (unsigned long long)r->class_objs,
			       (unsigned long long)cobj[k], (unsigned long long)r->shallow, (unsigned long long)sh[k]);
		}
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(h->total_shallow, total);
	for (unsigned i = 0; i < HP_MAX_HEAPS; i++) {
		CHECK_EQ(h->heap_objects[i], heap_objs[i]);
		CHECK_EQ(h->heap_bytes[i], heap_bytes[i]);
	}
	free(cnt);
	free(cobj);
	free(sh);
}

/* The rows of a streamed model equal those of a built one (matched by class
 * id and name, and heap). */
static void compare_rows(const hp_heap *a, const hp_heap *b)
{
	CHECK_EQ(a->nrows, b->nrows);
	CHECK_EQ(a->total_shallow, b->total_shallow);
	int bad = 0;
	for (size_t i = 0; i < a->nrows; i++) {
		const struct hp_hrow *ra = &a->rows[i];
		const struct hp_class *ca = &a->classes[ra->cls];
		const struct hp_hrow *rb = NULL;
		for (size_t k = 0; k < b->nrows && !rb; k++) {
			const struct hp_class *cb = &b->classes[b->rows[k].cls];
			if (cb->id == ca->id && strcmp(hp_heap_text(b, cb->name), hp_heap_text(a, ca->name)) == 0 && b->rows[k].heap == ra->heap)
				rb = &b->rows[k];
		}
		if (!rb || rb->count != ra->count || rb->class_objs != ra->class_objs || rb->shallow != ra->shallow ||
		    rb->max_shallow != ra->max_shallow)
			bad++;
	}
	CHECK_EQ(bad, 0);
}

/* ---- the HotSpot dump ------------------------------------------------------ */

/* What each object is, for the size tables. */
enum key {
	K_OBJ, K_A, K_B, K_C, K_D, K_E,             /* instances */
	K_OA0, K_OA1, K_OA3, K_OA5,                 /* object arrays of n elements */
	K_INT3, K_BYTE1, K_BYTE0, K_LONG2, K_CHAR5, K_BYTE256, K_BYTE257, K_BYTE300,
	K_CLS_A, K_CLS_B, K_CLS_D, K_CLS_0,         /* class objects (by statics) */
	K_N
};

enum model { M32, M64, M64C, RAW32, RAW64, OVR, M_N };

/*
 * Shallow sizes by hand.
 *
 * Classes: Object; A extends Object {byte}; B extends A {boolean};
 * C extends B {byte}; D extends C {int, Object}; E extends Object {long, short}.
 * Statics: A {int, Object}; B {long, byte, Object}; D {char}; others none.
 *
 * M32 (4-byte ids, MAT): ref 4, header 4 + 4 = 8, align 8.
 *   levels, each aligned to ref 4: Object 8; A 1+8=9->12; B 1+12=13->16;
 *   C 1+16=17->20; D 4+4+20=28; E 8+2+8=18->20.
 *   instances (align 8): Object 8, A 16, B 16, C 24, D 32, E 24.
 *   (without the per-level alignment C would be 8+1+1+1 = 11 -> 16.)
 *   object arrays align(8+4+4n, 8): n=0 16, 1 16, 3 24, 5 32.
 *   primitive arrays align(align(12, 4) + n*e, 8): int[3] 24, byte[1] 16,
 *   byte[0] 16, long[2] 32, char[5] 24, byte[256] 268->272, byte[257]
 *   269->272, byte[300] 312.
 *   class objects align(statics, 8): A 4+4=8, B 8+1+4=13->16, D 2->8, none 0.
 * M64 (8-byte ids, no compressed refs): ref 8, header 16, align 8.
 *   levels: Object 16; A 17->24; B 25->32; C 33->40; D 4+8+40=52->56;
 *   E 8+2+16=26->32.  instances: 16, 24, 32, 40, 56, 32.
 *   object arrays align(16+4+8n, 8): 24, 32, 48, 64.
 *   primitive arrays align(align(20, 8) + n*e, 8): int[3] 24+12=36->40,
 *   byte[1] 25->32, byte[0] 24, long[2] 40, char[5] 34->40, byte[256] 280,
 *   byte[257] 281->288, byte[300] 324->328.
 *   class objects: A 4+8=12->16, B 8+1+8=17->24, D 8, none 0.
 * M64C (8-byte ids, two object arrays overlap: compressed refs): ref 4,
 *   header 8 + 4 = 12, align 8.
 *   levels: Object 12; A 13->16; B 17->20; C 21->24; D 4+4+24=32;
 *   E 8+2+12=22->24.  instances: 16, 16, 24, 24, 32, 24.
 *   object arrays align(12+4+4n, 8): 16, 24, 28->32, 36->40.
 *   primitive arrays align(align(16, 4) + n*e, 8): int[3] 28->32, byte[1]
 *   17->24, byte[0] 16, long[2] 32, char[5] 26->32, byte[256] 272,
 *   byte[257] 273->280, byte[300] 316->320.
 *   class objects: A 8, B 13->16, D 8, none 0.
 * RAW32 / RAW64: field bytes, elements, static values; no header, no
 *   alignment.  instances: Object 0, A 1, B 2, C 3, D 3+4+I, E 10; object
 *   arrays n*I; primitive arrays n*e; class objects A 4+I, B 9+I, D 2.
 * OVR: the M64 dump with --ref-size 4 --header-size 16 --align 16:
 *   levels: Object 16; A 17->20; B 21->24; C 25->28; D 4+4+28=36;
 *   E 8+2+16=26->28.  instances (align 16): 16, 32, 32, 32, 48, 32.
 *   object arrays align(16+4+4n, 16): 20->32, 24->32, 32, 40->48.
 *   primitive arrays align(align(20, 4) + n*e, 16): int[3] 32, byte[1]
 *   21->32, byte[0] 20->32, long[2] 36->48, char[5] 30->32, byte[256]
 *   276->288, byte[257] 277->288, byte[300] 320.
 *   class objects align(statics, 16): A 8->16, B 13->16, D 2->16, none 0.
 */
static const uint64_t SIZE[M_N][K_N] = {
	/*        OBJ  A   B   C   D   E  OA0 OA1 OA3 OA5 I3 B1 B0 L2 C5  B256 B257 B300 cA cB cD c0 */
	[M32]   = { 8, 16, 16, 24, 32, 24, 16, 16, 24, 32, 24, 16, 16, 32, 24, 272, 272, 312, 8, 16, 8, 0 },
	[M64]   = { 16, 24, 32, 40, 56, 32, 24, 32, 48, 64, 40, 32, 24, 40, 40, 280, 288, 328, 16, 24, 8, 0 },
	[M64C]  = { 16, 16, 24, 24, 32, 24, 16, 24, 32, 40, 32, 24, 16, 32, 32, 272, 280, 320, 8, 16, 8, 0 },
	[RAW32] = { 0, 1, 2, 3, 11, 10, 0, 4, 12, 20, 12, 1, 0, 16, 10, 256, 257, 300, 8, 13, 2, 0 },
	[RAW64] = { 0, 1, 2, 3, 15, 10, 0, 8, 24, 40, 12, 1, 0, 16, 10, 256, 257, 300, 12, 17, 2, 0 },
	[OVR]   = { 16, 32, 32, 32, 48, 32, 32, 32, 32, 48, 32, 32, 32, 48, 32, 288, 288, 320, 16, 16, 16, 0 },
};

/* class ids (index into this table times the class id step) */
enum cls {
	C_OBJECT, C_A, C_B, C_C, C_D, C_E, C_INTARR, C_OBJARR, C_BYTEARR, C_LONGARR, C_CHARARR, C_CLASS,
	C_INTARR2, C_N
};
static const char *const cls_names[C_N] = {
	"java/lang/Object", "A", "B", "C", "D", "E", "[I", "[Ljava/lang/Object;", "[B", "[J", "[C",
	"java/lang/Class", "[[I"
};
static const char *const cls_java[C_N] = {
	"java.lang.Object", "A", "B", "C", "D", "E", "int[]", "java.lang.Object[]", "byte[]", "long[]", "char[]",
	"java.lang.Class", "int[][]"
};

struct exp_obj {
	uint64_t id, off, cid;
	int kind;
	uint32_t len;
	enum key key;
};

struct hs {
	hpw *w;
	unsigned I;
	uint64_t cstep, base, step;
	uint64_t cid[C_N];
	struct exp_obj o[128];
	size_t n;
	uint64_t compressed_off;     /* offset of the array that proves compressed refs */
	uint64_t max_id, min_id;
};

static void hs_note(struct hs *s, uint64_t id, uint64_t off, uint64_t cid, int kind, uint32_t len, enum key k)
{
	struct exp_obj *e = &s->o[s->n++];
	e->id = id;
	e->off = off;
	e->cid = cid;
	e->kind = kind;
	e->len = len;
	e->key = k;
	if (s->n == 1 || id > s->max_id)
		s->max_id = id;
	if (s->n == 1 || id < s->min_id)
		s->min_id = id;
}

/*
 * The HotSpot-style dump: 1.0.2, one segment per group.  Class ids are
 * 0x1000 + k * cstep; object ids base + k * step, written in descending
 * order so the model has to sort them.  With compressed set, the last two
 * object arrays are written ascending and the second starts 16 bytes after
 * the first (inside where a 3-element array of 8-byte refs would end);
 * otherwise `step` bytes apart (step >= 64).
 */
static void build_hotspot(struct hs *s, unsigned I, uint64_t cstep, uint64_t base, uint64_t step, int compressed)
{
	memset(s, 0, sizeof *s);
	s->I = I;
	s->cstep = cstep;
	s->base = base;
	s->step = step;
	hpw *w = s->w = hpw_new("JAVA PROFILE 1.0.2", (int)I, 1700000000000ull);
	for (int c = 0; c < C_N; c++) {
		s->cid[c] = 0x1000 + (uint64_t)c * cstep;
		hpw_string(w, 100 + (uint64_t)c, cls_names[c]);
	}
	hpw_string(w, 200, "f");
	for (int c = 0; c < C_N; c++)
		hpw_load_class(w, (uint32_t)c + 1, s->cid[c], 0, 100 + (uint64_t)c);

	/* class dumps */
	hpw_begin_dump(w, 0x1C);
	struct hpw_instance_field fA[1] = { { 200, HPW_T_BYTE } };
	struct hpw_instance_field fB[1] = { { 200, HPW_T_BOOLEAN } };
	struct hpw_instance_field fC[1] = { { 200, HPW_T_BYTE } };
	struct hpw_instance_field fD[2] = { { 200, HPW_T_INT }, { 200, HPW_T_OBJECT } };
	struct hpw_instance_field fE[2] = { { 200, HPW_T_LONG }, { 200, HPW_T_SHORT } };
	struct hpw_static_field sA[2] = { { 200, HPW_T_INT, 7 }, { 200, HPW_T_OBJECT, 0 } };
	struct hpw_static_field sB[3] = { { 200, HPW_T_LONG, 1 }, { 200, HPW_T_BYTE, 2 }, { 200, HPW_T_OBJECT, 0 } };
	struct hpw_static_field sD[1] = { { 200, HPW_T_CHAR, 'x' } };
	for (int c = 0; c < C_N; c++) {
		struct hpw_class cd;
		memset(&cd, 0, sizeof cd);
		cd.class_id = s->cid[c];
		cd.super_id = c == C_OBJECT ? 0 : s->cid[c == C_B ? C_A : c == C_C ? C_B : c == C_D ? C_C : C_OBJECT];
		enum key k = K_CLS_0;
		switch (c) {
		case C_A: cd.nfields = 1; cd.fields = fA; cd.nstatics = 2; cd.statics = sA; cd.instance_size = 1; k = K_CLS_A; break;
		case C_B: cd.nfields = 1; cd.fields = fB; cd.nstatics = 3; cd.statics = sB; cd.instance_size = 2; k = K_CLS_B; break;
		case C_C: cd.nfields = 1; cd.fields = fC; cd.instance_size = 3; break;
		case C_D: cd.nfields = 2; cd.fields = fD; cd.nstatics = 1; cd.statics = sD; cd.instance_size = 7 + I; k = K_CLS_D; break;
		case C_E: cd.nfields = 2; cd.fields = fE; cd.instance_size = 10; break;
		default: break;
		}
		uint64_t off = hpw_len(w);
		hpw_class_dump(w, &cd);
		hs_note(s, s->cid[c], off, s->cid[c], HP_OBJ_CLASS, 0, k);
	}
	hpw_end_dump(w);

	/* objects, ids descending */
	static const struct { int cls; enum key k; int kind; uint32_t n; uint8_t type; } objs[] = {
		{ C_OBJECT, K_OBJ, HP_OBJ_INSTANCE, 0, 0 }, { C_A, K_A, HP_OBJ_INSTANCE, 0, 0 },
		{ C_B, K_B, HP_OBJ_INSTANCE, 0, 0 }, { C_A, K_A, HP_OBJ_INSTANCE, 0, 0 },
		{ C_C, K_C, HP_OBJ_INSTANCE, 0, 0 }, { C_D, K_D, HP_OBJ_INSTANCE, 0, 0 },
		{ C_E, K_E, HP_OBJ_INSTANCE, 0, 0 }, { C_A, K_A, HP_OBJ_INSTANCE, 0, 0 },
		{ C_OBJECT, K_OBJ, HP_OBJ_INSTANCE, 0, 0 }, { C_B, K_B, HP_OBJ_INSTANCE, 0, 0 },
		{ C_D, K_D, HP_OBJ_INSTANCE, 0, 0 },
		{ C_OBJARR, K_OA0, HP_OBJ_OBJARRAY, 0, 0 }, { C_OBJARR, K_OA3, HP_OBJ_OBJARRAY, 3, 0 },
		{ C_INTARR2, K_OA1, HP_OBJ_OBJARRAY, 1, 0 }, { C_OBJARR, K_OA5, HP_OBJ_OBJARRAY, 5, 0 },
		{ C_INTARR, K_INT3, HP_OBJ_PRIMARRAY, 3, HPW_T_INT }, { C_BYTEARR, K_BYTE1, HP_OBJ_PRIMARRAY, 1, HPW_T_BYTE },
		{ C_BYTEARR, K_BYTE0, HP_OBJ_PRIMARRAY, 0, HPW_T_BYTE }, { C_LONGARR, K_LONG2, HP_OBJ_PRIMARRAY, 2, HPW_T_LONG },
		{ C_CHARARR, K_CHAR5, HP_OBJ_PRIMARRAY, 5, HPW_T_CHAR },
		{ C_BYTEARR, K_BYTE256, HP_OBJ_PRIMARRAY, 256, HPW_T_BYTE },
		{ C_BYTEARR, K_BYTE257, HP_OBJ_PRIMARRAY, 257, HPW_T_BYTE },
		{ C_BYTEARR, K_BYTE300, HP_OBJ_PRIMARRAY, 300, HPW_T_BYTE },
		{ C_INTARR, K_INT3, HP_OBJ_PRIMARRAY, 3, HPW_T_INT },
	};
	size_t nobjs = sizeof objs / sizeof objs[0];
	static const uint8_t zeros[512];
	hpw_begin_dump(w, 0x1C);
	for (size_t i = 0; i < nobjs; i++) {
		uint64_t id = base + (uint64_t)(nobjs - i) * step;
		uint64_t cid = s->cid[objs[i].cls];
		uint64_t off = hpw_len(w);
		if (i == 11) {
			/* a new segment in the middle */
			hpw_end_dump(w);
			hpw_begin_dump(w, 0x1C);
			off = hpw_len(w);
		}
		switch (objs[i].kind) {
		case HP_OBJ_INSTANCE: {
			hpw_instance_begin(w, id, 0, cid);
			/* field bytes: own fields, then the supers' */
			for (int c = objs[i].cls; c != C_OBJECT;) {
				switch (c) {
				case C_A: hpw_value(w, HPW_T_BYTE, 1); c = C_OBJECT; break;
				case C_B: hpw_value(w, HPW_T_BOOLEAN, 1); c = C_A; break;
				case C_C: hpw_value(w, HPW_T_BYTE, 2); c = C_B; break;
				case C_D: hpw_value(w, HPW_T_INT, 3); hpw_value(w, HPW_T_OBJECT, base + step); c = C_C; break;
				case C_E: hpw_value(w, HPW_T_LONG, 4); hpw_value(w, HPW_T_SHORT, 5); c = C_OBJECT; break;
				default: c = C_OBJECT; break;
				}
			}
			hpw_instance_end(w);
			break;
		}
		case HP_OBJ_OBJARRAY: {
			uint64_t el[5] = { base + step, 0, base + 2 * step, 0, 0 };
			hpw_obj_array(w, id, 0, cid, objs[i].n, el);
			break;
		}
		default:
			hpw_prim_array(w, id, 0, objs[i].type, objs[i].n, zeros,
				       (size_t)objs[i].n * hpw_type_size(w, objs[i].type));
			break;
		}
		hs_note(s, id, off, cid, objs[i].kind, objs[i].n, objs[i].k);
	}
	/* the pair of object arrays that decides compressed references */
	uint64_t p = base + (nobjs + 10) * step;
	uint64_t el[3] = { base + step, base + step, base + step };
	uint64_t off = hpw_len(w);
	hpw_obj_array(w, p, 0, s->cid[C_OBJARR], 3, el);
	hs_note(s, p, off, s->cid[C_OBJARR], HP_OBJ_OBJARRAY, 3, K_OA3);
	uint64_t q = p + (compressed ? 16 : step);
	off = hpw_len(w);
	hpw_obj_array(w, q, 0, s->cid[C_OBJARR], 1, el);
	hs_note(s, q, off, s->cid[C_OBJARR], HP_OBJ_OBJARRAY, 1, K_OA1);
	if (compressed)
		s->compressed_off = off;
	hpw_end_dump(w);
	hpw_dump_end(w);
}

/* checks every object of the model against the expectations */
static void check_objects(const hp_heap *h, const struct hs *s, enum model m)
{
	CHECK_EQ(h->nobj, s->n);
	/* sorted by id */
	int sorted = 1;
	for (size_t i = 1; i < h->nobj; i++)
		if (hp_heap_id(h, i) <= hp_heap_id(h, i - 1))
			sorted = 0;
	CHECK(sorted);
	const struct hp_class *jlc = class_by_id(h, s->cid[C_CLASS]);
	CHECK(jlc != NULL);
	int bad = 0;
	for (size_t k = 0; k < s->n; k++) {
		const struct exp_obj *e = &s->o[k];
		size_t i = hp_heap_find(h, e->id);
		if (i == SIZE_MAX) {
			bad++;
			printf("    id 0x%llx not found\n", (unsigned long long)e->id);
			continue;
		}
		const struct hp_class *c = &h->classes[h->cls[i]];
		uint64_t want_cid = e->kind == HP_OBJ_CLASS ? s->cid[C_CLASS] : e->cid;
		uint64_t sz = hp_heap_shallow(h, i);
		if (hp_heap_id(h, i) != e->id || hp_heap_offset(h, i) != e->off || hp_heap_kind(h, i) != e->kind ||
		    h->len[i] != e->len || c->id != want_cid || hp_heap_heap(h, i) != 0 || sz != SIZE[m][e->key]) {
			bad++;
			printf("    id 0x%llx: offset %llu/%llu kind %d/%d len %u/%u class 0x%llx/0x%llx shallow %llu/%llu (got/want)\n",
			       (unsigned long long)e->id, (unsigned long long)hp_heap_offset(h, i),
			       (unsigned long long)e->off, hp_heap_kind(h, i), e->kind, h->len[i], e->len,
			       (unsigned long long)c->id, (unsigned long long)want_cid, (unsigned long long)sz,
			       (unsigned long long)SIZE[m][e->key]);
		}
	}
	CHECK_EQ(bad, 0);
	/* absent ids: below the smallest, above the largest, between, 0, max */
	CHECK_EQ(hp_heap_find(h, s->min_id - 8), SIZE_MAX);
	CHECK_EQ(hp_heap_find(h, s->min_id - 1), SIZE_MAX);
	CHECK_EQ(hp_heap_find(h, 0), SIZE_MAX);
	CHECK_EQ(hp_heap_find(h, s->max_id + 1), SIZE_MAX);
	CHECK_EQ(hp_heap_find(h, s->max_id + 8), SIZE_MAX);
	CHECK_EQ(hp_heap_find(h, UINT64_MAX), SIZE_MAX);
	int between = 0;
	for (size_t k = 0; k < s->n; k++) {
		uint64_t id = s->o[k].id;
		if (hp_heap_find(h, id + 1) != SIZE_MAX || hp_heap_find(h, id + 4) != SIZE_MAX)
			between++;
	}
	CHECK_EQ(between, 0);
	CHECK_EQ(h->duplicate_ids, 0);
}

/* the row of a class in the default heap, by class index */
static const struct hp_hrow *row_cls(const hp_heap *h, const struct hs *s, int c)
{
	return row_of(h, class_by_id(h, s->cid[c]), 0);
}

static void test_hotspot_models(void)
{
	static const struct { enum model m; unsigned I; int compressed; int kind; const char *name; } cases[] = {
		{ M32, 4, 0, HP_SIZE_AUTO, "mat 32-bit" },
		{ M64, 8, 0, HP_SIZE_AUTO, "mat 64-bit" },
		{ M64C, 8, 1, HP_SIZE_MAT, "mat 64-bit compressed" },
		{ RAW32, 4, 0, HP_SIZE_RAW, "raw 32-bit" },
		{ RAW64, 8, 1, HP_SIZE_RAW, "raw 64-bit" },
	};
	for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
		cur_test = cases[ci].name;
		struct hs s;
		/* class ids 16 apart, object ids 8 mod 16, 64 apart: GCD 8 */
		build_hotspot(&s, cases[ci].I, 0x10, 0x100008, 0x40, cases[ci].compressed);
		struct hp_heap_opts o = hopts(1, cases[ci].kind);
		hp_heap *h = model_run(s.w, &o);
		if (!h) {
			hpw_free(s.w);
			continue;
		}
		enum model m = cases[ci].m;
		const struct hp_size_model *z = &h->size;
		CHECK_EQ(z->id_size, cases[ci].I);
		CHECK_EQ(z->gcd, 8);
		if (m == M32 || m == M64 || m == M64C) {
			CHECK_EQ(z->kind, HP_SIZE_MAT);
			CHECK_EQ(z->ref_size, m == M64 ? 8 : 4);
			CHECK_EQ(z->header, m == M32 ? 8 : m == M64 ? 16 : 12);
			CHECK_EQ(z->array_header, z->header + 4);
			CHECK_EQ(z->align, 8);
			CHECK_EQ(z->compressed_evidence, m == M64C ? s.compressed_off : 0);
		} else {
			CHECK_EQ(z->kind, HP_SIZE_RAW);
			CHECK_EQ(z->header, 0);
			CHECK_EQ(z->align, 1);
		}
		check_objects(h, &s, m);
		cross_check_rows(h);
		/* counts: 13 class dumps, 11 instances, 6 object arrays, 9 primitive */
		CHECK_EQ(h->n_classobjs, 13);
		CHECK_EQ(h->n_instances, 11);
		CHECK_EQ(h->n_objarrays, 6);
		CHECK_EQ(h->n_primarrays, 9);
		CHECK_EQ(h->nclass_dumps, 13);
		CHECK_EQ(h->nwarnings, 0);
		for (size_t i = 0; i < h->nwarnings; i++)
			printf("    warning: %s\n", hp_heap_warning(h, i));
		/* names */
		for (int c = 0; c < C_N; c++) {
			const struct hp_class *cl = class_by_id(h, s.cid[c]);
			CHECK(cl != NULL);
			if (cl)
				CHECK_STREQ(hp_heap_text(h, cl->name), cls_java[c]);
		}
		/* rows by hand for the M32 dump:
		 *  A: 3 instances x 16 = 48; D: 2 x 32 = 64;
		 *  byte[]: 1, 0, 256, 257, 300 elements: 16 + 16 + 272 + 272 + 312 = 888;
		 *  Object[]: 0, 3, 5, 3, 1 elements: 16 + 24 + 32 + 24 + 16 = 112;
		 *  java.lang.Class: 13 class objects: A 8 + B 16 + D 8 = 32 */
		if (m == M32) {
			const struct hp_hrow *r;
			CHECK((r = row_cls(h, &s, C_A)) && r->count == 3 && r->shallow == 48 && r->max_shallow == 16);
			CHECK((r = row_cls(h, &s, C_D)) && r->count == 2 && r->shallow == 64);
			CHECK((r = row_cls(h, &s, C_BYTEARR)) && r->count == 5 && r->shallow == 888 &&
			      r->sum_len == 814 && r->max_len == 300 && r->max_shallow == 312);
			CHECK((r = row_cls(h, &s, C_OBJARR)) && r->count == 5 && r->shallow == 112);
			CHECK((r = row_cls(h, &s, C_CLASS)) && r->count == 0 && r->class_objs == 13 && r->shallow == 32);
			CHECK(row_cls(h, &s, C_B) && row_cls(h, &s, C_B)->shallow == 32);
			CHECK_EQ(h->total_shallow, 8 * 2 + 48 + 32 + 24 + 64 + 24 + 112 + 16 + 48 + 888 + 32 + 24 + 32);
		}
		/* the same dump streamed (no object table): identical rows */
		struct hp_heap_opts os = hopts(0, cases[ci].kind);
		hp_heap *hs2 = model_run(s.w, &os);
		if (hs2) {
			CHECK_EQ(hs2->nobj, 0);
			compare_rows(h, hs2);
			CHECK_EQ(hs2->size.align, h->size.align);
			CHECK_EQ(hs2->size.ref_size, h->size.ref_size);
			hp_heap_free(hs2);
		}
		hp_heap_free(h);
		hpw_free(s.w);
	}
}

static void test_overrides(void)
{
	struct hs s;
	cur_test = "overrides ref 4 header 16 align 16";
	build_hotspot(&s, 8, 0x10, 0x100008, 0x40, 0);
	struct hp_heap_opts o = hopts(1, HP_SIZE_AUTO);
	o.ref_size = 4;
	o.header_size = 16;
	o.align = 16;
	hp_heap *h = model_run(s.w, &o);
	if (h) {
		CHECK_EQ(h->size.ref_size, 4);
		CHECK_EQ(h->size.header, 16);
		CHECK_EQ(h->size.align, 16);
		CHECK_EQ(h->size.ref_source, 2);
		CHECK_EQ(h->size.header_source, 2);
		CHECK_EQ(h->size.align_source, 2);
		check_objects(h, &s, OVR);
		cross_check_rows(h);
		hp_heap_free(h);
	}
	/* --ref-size 4 alone on the uncompressed dump: header 8 + 4 = 12, the
	 * compressed model (align still inferred: 8) */
	cur_test = "override ref 4";
	o = hopts(1, HP_SIZE_AUTO);
	o.ref_size = 4;
	h = model_run(s.w, &o);
	if (h) {
		CHECK_EQ(h->size.header, 12);
		CHECK_EQ(h->size.align, 8);
		CHECK_EQ(h->size.align_source, 1);
		check_objects(h, &s, M64C);
		cross_check_rows(h);
		hp_heap_free(h);
	}
	hpw_free(s.w);
	/* --ref-size 8 on the compressed dump: back to the M64 sizes */
	cur_test = "override ref 8 on compressed";
	build_hotspot(&s, 8, 0x10, 0x100008, 0x40, 1);
	o = hopts(1, HP_SIZE_MAT);
	o.ref_size = 8;
	h = model_run(s.w, &o);
	if (h) {
		CHECK_EQ(h->size.header, 16);
		CHECK(h->size.compressed_evidence != 0);
		check_objects(h, &s, M64);
		hp_heap_free(h);
	}
	hpw_free(s.w);
}

/* alignment from the GCD of id differences */
static void test_alignment(void)
{
	static const struct { uint64_t cstep, base, step, gcd; unsigned align; const char *name; } cases[] = {
		/* everything a multiple of 16, class ids 16 apart: GCD 16 */
		{ 0x10, 0x100000, 0x40, 0x10, 16, "align 16" },
		/* class ids 32 apart, objects 64 apart, all multiples of 32 */
		{ 0x20, 0x100000, 0x40, 0x20, 32, "align 32" },
		/* one odd id among them: GCD odd, alignment 8 */
		{ 0x10, 0x100001, 0x40, 1, 8, "odd id" },
		/* ids 24 apart, object ids 8 mod 16: GCD 8 */
		{ 0x18, 0x100008, 0x48, 8, 8, "gcd 8 (24)" },
		/* 4 KiB apart: clamped to 256 */
		{ 0x1000, 0x1000000, 0x1000, 0x1000, 256, "align clamps at 256" },
	};
	for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
		cur_test = cases[ci].name;
		struct hs s;
		build_hotspot(&s, 8, cases[ci].cstep, cases[ci].base, cases[ci].step, 0);
		struct hp_heap_opts o = hopts(1, HP_SIZE_AUTO);
		hp_heap *h = model_run(s.w, &o);
		if (h) {
			/* the GCD stops being refined once it is 8 or less */
			if (cases[ci].gcd > 8)
				CHECK_EQ(h->size.gcd, cases[ci].gcd);
			else
				CHECK(h->size.gcd <= 8 && cases[ci].gcd % h->size.gcd == 0);
			CHECK_EQ(h->size.align, cases[ci].align);
			CHECK_EQ(h->size.align_source, 1);
			/* M64 levels: Object 16, A 24, B 32, C 40, D 56, E 32; object
			 * array of 3: 16 + 4 + 24 = 44 */
			unsigned A = cases[ci].align;
			const struct hp_class *a = class_by_id(h, s.cid[C_A]);
			const struct hp_class *d = class_by_id(h, s.cid[C_D]);
			const struct hp_class *ob = class_by_id(h, s.cid[C_OBJECT]);
			CHECK(a && a->inst_size == (24 + A - 1) / A * A);
			CHECK(d && d->inst_size == (56 + A - 1) / A * A);
			CHECK(ob && ob->inst_size == (16 + A - 1) / A * A);
			const struct hp_class *oa = class_by_id(h, s.cid[C_OBJARR]);
			CHECK(oa && hp_heap_array_size(h, oa, 3) == (44 + A - 1) / A * A);
			cross_check_rows(h);
			hp_heap_free(h);
		}
		hpw_free(s.w);
	}
}

/* ---- the Android dump: ahat sizes and heaps ---------------------------------- */

/*
 * 1.0.3, 4-byte ids, dotted names as ART writes them.
 * Heaps: "default" (index 0, before any HEAP DUMP INFO), then HEAP DUMP INFO
 * switches to zygote (1), app (2), image (3), back to zygote and app.
 * ahat sizes: instance = CLASS DUMP instance size; arrays = elements only
 * (object arrays: 4-byte refs); class object = java.lang.Class's instance
 * size (112) + raw static bytes.
 *
 *   zygote: CLASS DUMP java.lang.Object (isize 8, no statics)      -> 112
 *           CLASS DUMP java.lang.Class (isize 112, no statics)     -> 112
 *           Object instance 0x20000                                -> 8
 *           Foo instance 0x20010                                   -> 20
 *   app:    CLASS DUMP Foo (isize 20; statics int, Object, long = 16) -> 128
 *           Foo instances 0x30000, 0x30010                         -> 20 each
 *           int[5] 0x30020                                         -> 20
 *           java.lang.Object[] of 3 0x30030                        -> 12
 *           an instance of java.lang.Class 0x30040                 -> 112
 *   image:  byte[] NODATA of 100 0x40000                           -> 100
 *   zygote: (again) int[2] 0x20020                                 -> 8
 *
 * Rows: (Foo, app) 2 / 40; (Foo, zygote) 1 / 20; (Object, zygote) 1 / 8;
 * (int[], app) 1 / 20; (int[], zygote) 1 / 8; (Object[], app) 1 / 12;
 * (byte[], image) 1 / 100; (Class, zygote) 2 class objects / 224;
 * (Class, app) 1 instance + 1 class object / 112 + 128 = 240.
 * heap_objects: default 0, zygote 2 + 2 + 1 = 5, app 2 + 1 + 1 + 1 + 1 = 6,
 * image 1; heap_classes: zygote 2, app 1; heap_bytes: zygote 224 + 8 + 20 + 8
 * = 260, app 40 + 20 + 12 + 240 = 312, image 100.
 */
static hpw *build_android(void)
{
	hpw *w = hpw_new("JAVA PROFILE 1.0.3", 4, 1);
	hpw_string(w, 1, "java.lang.Object");
	hpw_string(w, 2, "java.lang.Class");
	hpw_string(w, 3, "com.example.Foo");
	hpw_string(w, 4, "int[]");
	hpw_string(w, 5, "java.lang.Object[]");
	hpw_string(w, 6, "byte[]");
	hpw_string(w, 10, "zygote");
	hpw_string(w, 11, "app");
	hpw_string(w, 12, "image");
	hpw_string(w, 20, "x");
	hpw_load_class(w, 1, 0x100, 0, 1);
	hpw_load_class(w, 2, 0x110, 0, 2);
	hpw_load_class(w, 3, 0x120, 0, 3);
	hpw_load_class(w, 4, 0x130, 0, 4);
	hpw_load_class(w, 5, 0x140, 0, 5);
	hpw_load_class(w, 6, 0x150, 0, 6);
	hpw_begin_dump(w, 0x0C);
	hpw_root_sticky_class(w, 0x100);      /* a root in the default heap */
	hpw_heap_info(w, 'Z', 10);
	struct hpw_class c = { 0 };
	c.class_id = 0x100;
	c.instance_size = 8;
	hpw_class_dump(w, &c);
	c.class_id = 0x110;
	c.super_id = 0x100;
	c.instance_size = 112;
	hpw_class_dump(w, &c);
	hpw_instance(w, 0x20000, 0, 0x100, "12345678", 8);
	hpw_instance(w, 0x20010, 0, 0x120, "12345678901234567890", 20);
	hpw_heap_info(w, 'A', 11);
	struct hpw_static_field st[3] = { { 20, HPW_T_INT, 1 }, { 20, HPW_T_OBJECT, 0x20000 }, { 20, HPW_T_LONG, 3 } };
	struct hpw_instance_field fl[2] = { { 20, HPW_T_INT }, { 20, HPW_T_OBJECT } };
	struct hpw_class foo = { 0x120, 0, 0x100, 0, 0, 0, 20, 0, NULL, 3, st, 2, fl };
	hpw_class_dump(w, &foo);
	hpw_instance(w, 0x30000, 0, 0x120, "12345678901234567890", 20);
	hpw_instance(w, 0x30010, 0, 0x120, "12345678901234567890", 20);
	uint64_t iv[5] = { 1, 2, 3, 4, 5 };
	hpw_prim_array_values(w, 0x30020, 0, HPW_T_INT, 5, iv);
	uint64_t el[3] = { 0x30000, 0, 0x30010 };
	hpw_obj_array(w, 0x30030, 0, 0x140, 3, el);
	hpw_instance(w, 0x30040, 0, 0x110, NULL, 0);
	hpw_heap_info(w, 'I', 12);
	hpw_prim_array_nodata(w, 0x40000, 0, HPW_T_BYTE, 100);
	hpw_heap_info(w, 'Z', 10);
	hpw_prim_array_values(w, 0x20020, 0, HPW_T_INT, 2, iv);
	hpw_heap_info(w, 'A', 11);
	hpw_end_dump(w);
	return w;
}

static void test_android(void)
{
	cur_test = "ahat on 1.0.3";
	hpw *w = build_android();
	struct hp_heap_opts o = hopts(1, HP_SIZE_AUTO);
	hp_heap *h = model_run(w, &o);
	if (!h) {
		hpw_free(w);
		return;
	}
	CHECK_EQ(h->size.kind, HP_SIZE_AHAT);
	CHECK_EQ(h->size.class_instance_size, 112);
	CHECK_EQ(h->nheaps, 4);
	if (h->nheaps == 4) {
		CHECK_STREQ(hp_heap_name(h, 0), "default");
		CHECK_STREQ(hp_heap_name(h, 1), "zygote");
		CHECK_STREQ(hp_heap_name(h, 2), "app");
		CHECK_STREQ(hp_heap_name(h, 3), "image");
		CHECK_EQ(h->heap_ids[1], 'Z');
		CHECK_EQ(h->heap_ids[2], 'A');
		CHECK_EQ(h->heap_ids[3], 'I');
	}
	static const struct { uint64_t id; unsigned heap; uint64_t shallow; int kind; } objs[] = {
		{ 0x100, 1, 112, HP_OBJ_CLASS }, { 0x110, 1, 112, HP_OBJ_CLASS }, { 0x120, 2, 128, HP_OBJ_CLASS },
		{ 0x20000, 1, 8, HP_OBJ_INSTANCE }, { 0x20010, 1, 20, HP_OBJ_INSTANCE },
		{ 0x20020, 1, 8, HP_OBJ_PRIMARRAY }, { 0x30000, 2, 20, HP_OBJ_INSTANCE },
		{ 0x30010, 2, 20, HP_OBJ_INSTANCE }, { 0x30020, 2, 20, HP_OBJ_PRIMARRAY },
		{ 0x30030, 2, 12, HP_OBJ_OBJARRAY }, { 0x30040, 2, 112, HP_OBJ_INSTANCE },
		{ 0x40000, 3, 100, HP_OBJ_PRIMARRAY },
	};
	CHECK_EQ(h->nobj, sizeof objs / sizeof objs[0]);
	for (size_t k = 0; k < sizeof objs / sizeof objs[0]; k++) {
		size_t i = hp_heap_find(h, objs[k].id);
		CHECK(i != SIZE_MAX);
		if (i == SIZE_MAX)
			continue;
		CHECK_EQ(hp_heap_heap(h, i), objs[k].heap);
		CHECK_EQ(hp_heap_shallow(h, i), objs[k].shallow);
		CHECK_EQ(hp_heap_kind(h, i), objs[k].kind);
	}
	CHECK_EQ(h->heap_objects[0], 0);
	CHECK_EQ(h->heap_objects[1], 5);
	CHECK_EQ(h->heap_objects[2], 6);
	CHECK_EQ(h->heap_objects[3], 1);
	CHECK_EQ(h->heap_classes[0], 0);
	CHECK_EQ(h->heap_classes[1], 2);
	CHECK_EQ(h->heap_classes[2], 1);
	CHECK_EQ(h->heap_bytes[1], 260);
	CHECK_EQ(h->heap_bytes[2], 312);
	CHECK_EQ(h->heap_bytes[3], 100);
	CHECK_EQ(h->total_shallow, 672);
	const struct hp_class *foo = class_by_name(h, "com.example.Foo");
	const struct hp_class *obj = class_by_name(h, "java.lang.Object");
	const struct hp_class *jlc = class_by_name(h, "java.lang.Class");
	const struct hp_class *ia = class_by_name(h, "int[]");
	const struct hp_class *oa = class_by_name(h, "java.lang.Object[]");
	const struct hp_class *ba = class_by_name(h, "byte[]");
	CHECK(foo && obj && jlc && ia && oa && ba);
	if (foo && obj && jlc && ia && oa && ba) {
		const struct hp_hrow *r;
		CHECK((r = row_of(h, foo, 2)) && r->count == 2 && r->shallow == 40);
		CHECK((r = row_of(h, foo, 1)) && r->count == 1 && r->shallow == 20);
		CHECK(row_of(h, foo, 0) == NULL);
		CHECK((r = row_of(h, obj, 1)) && r->count == 1 && r->shallow == 8);
		CHECK((r = row_of(h, ia, 2)) && r->count == 1 && r->shallow == 20);
		CHECK((r = row_of(h, ia, 1)) && r->count == 1 && r->shallow == 8);
		CHECK((r = row_of(h, oa, 2)) && r->count == 1 && r->shallow == 12);
		CHECK((r = row_of(h, ba, 3)) && r->count == 1 && r->shallow == 100);
		CHECK((r = row_of(h, jlc, 1)) && r->count == 0 && r->class_objs == 2 && r->shallow == 224);
		CHECK((r = row_of(h, jlc, 2)) && r->count == 1 && r->class_objs == 1 && r->shallow == 240);
		CHECK_EQ(foo->heap, 2);
		CHECK_EQ(foo->inst_size, 20);
		CHECK_EQ(foo->self_size, 128);
		CHECK_EQ(ia->kind, HP_CK_PRIMARRAY);
		CHECK_EQ(oa->kind, HP_CK_OBJARRAY);
	}
	/* 9 rows: Foo x2, Object, int[] x2, Object[], byte[], Class x2 */
	CHECK_EQ(h->nrows, 9);
	CHECK_EQ(h->nroots, 1);
	if (h->nroots == 1)
		CHECK_EQ(h->roots[0].heap, 0);
	cross_check_rows(h);
	CHECK_EQ(h->nwarnings, 0);
	for (size_t i = 0; i < h->nwarnings; i++)
		printf("    warning: %s\n", hp_heap_warning(h, i));

	struct hp_heap_opts os = hopts(0, HP_SIZE_AUTO);
	hp_heap *h2 = model_run(w, &os);
	if (h2) {
		compare_rows(h, h2);
		for (unsigned i = 0; i < 4; i++) {
			CHECK_EQ(h2->heap_objects[i], h->heap_objects[i]);
			CHECK_EQ(h2->heap_bytes[i], h->heap_bytes[i]);
		}
		hp_heap_free(h2);
	}
	hp_heap_free(h);

	/* the same dump under the MAT model: 4-byte ids, header 8, align 8
	 * (ids are 16 apart: GCD 16 -> align 16) */
	cur_test = "mat on 1.0.3";
	o = hopts(1, HP_SIZE_MAT);
	h = model_run(w, &o);
	if (h) {
		CHECK_EQ(h->size.kind, HP_SIZE_MAT);
		CHECK_EQ(h->size.header, 8);
		CHECK_EQ(h->size.align, 16);
		cross_check_rows(h);
		hp_heap_free(h);
	}
	hpw_free(w);
}

/* ---- warnings, duplicates, loops --------------------------------------------- */

static void test_duplicates(void)
{
	cur_test = "duplicate ids";
	hpw *w = hpw_new("JAVA PROFILE 1.0.2", 8, 0);
	hpw_string(w, 1, "java/lang/Object");
	hpw_load_class(w, 1, 0x100, 0, 1);
	hpw_begin_dump(w, 0x1C);
	struct hpw_class c = { 0 };
	c.class_id = 0x100;
	hpw_class_dump(w, &c);
	hpw_instance(w, 0x2000, 0, 0x100, NULL, 0);
	hpw_instance(w, 0x1000, 0, 0x100, NULL, 0);
	hpw_instance(w, 0x2000, 0, 0x100, NULL, 0);
	hpw_instance(w, 0x3000, 0, 0x100, NULL, 0);
	hpw_end_dump(w);
	hpw_dump_end(w);
	struct hp_heap_opts o = hopts(1, HP_SIZE_AUTO);
	hp_heap *h = model_run(w, &o);
	if (h) {
		CHECK_EQ(h->nobj, 5);
		CHECK_EQ(h->duplicate_ids, 1);
		CHECK(has_warning(h, "appear more than once"));
		size_t i = hp_heap_find(h, 0x2000);
		CHECK(i != SIZE_MAX && hp_heap_id(h, i) == 0x2000);
		CHECK(hp_heap_find(h, 0x1000) != SIZE_MAX);
		CHECK(hp_heap_find(h, 0x3000) != SIZE_MAX);
		CHECK(hp_heap_find(h, 0x100) != SIZE_MAX);
		CHECK_EQ(hp_heap_find(h, 0x2008), SIZE_MAX);
		cross_check_rows(h);
		hp_heap_free(h);
	}
	hpw_free(w);
}

static void test_super_loop(void)
{
	cur_test = "super loop";
	hpw *w = hpw_new("JAVA PROFILE 1.0.2", 4, 0);
	hpw_string(w, 1, "L1");
	hpw_string(w, 2, "L2");
	hpw_string(w, 3, "Self");
	hpw_string(w, 4, "Child");
	hpw_load_class(w, 1, 0x100, 0, 1);
	hpw_load_class(w, 2, 0x110, 0, 2);
	hpw_load_class(w, 3, 0x120, 0, 3);
	hpw_load_class(w, 4, 0x130, 0, 4);
	hpw_begin_dump(w, 0x0C);
	struct hpw_instance_field f[1] = { { 1, HPW_T_INT } };
	struct hpw_class c1 = { 0x100, 0, 0x110, 0, 0, 0, 4, 0, NULL, 0, NULL, 1, f };
	struct hpw_class c2 = { 0x110, 0, 0x100, 0, 0, 0, 4, 0, NULL, 0, NULL, 1, f };
	struct hpw_class c3 = { 0x120, 0, 0x120, 0, 0, 0, 4, 0, NULL, 0, NULL, 1, f };
	struct hpw_class c4 = { 0x130, 0, 0x100, 0, 0, 0, 8, 0, NULL, 0, NULL, 1, f };
	hpw_class_dump(w, &c1);
	hpw_class_dump(w, &c2);
	hpw_class_dump(w, &c3);
	hpw_class_dump(w, &c4);
	hpw_instance(w, 0x1000, 0, 0x100, "abcd", 4);
	hpw_instance(w, 0x1008, 0, 0x120, "abcd", 4);
	hpw_instance(w, 0x1010, 0, 0x130, "abcdefgh", 8);
	hpw_end_dump(w);
	static const int kinds[] = { HP_SIZE_MAT, HP_SIZE_RAW, HP_SIZE_AHAT };
	for (size_t k = 0; k < 3; k++) {
		struct hp_heap_opts o = hopts(1, kinds[k]);
		hp_heap *h = model_run(w, &o);
		if (!h)
			continue;
		CHECK(has_warning(h, "super class chain of"));
		CHECK(has_warning(h, "loops"));
		/* sizes stay small and finite: at most the header plus the fields
		 * of a few levels */
		for (size_t i = 0; i < h->nclasses; i++)
			CHECK(h->classes[i].inst_size < 64);
		cross_check_rows(h);
		hp_heap_free(h);
	}
	hpw_free(w);
}

static void test_missing_class(void)
{
	cur_test = "missing class dump";
	hpw *w = hpw_new("JAVA PROFILE 1.0.2", 8, 0);
	hpw_string(w, 1, "java/lang/Object");
	hpw_string(w, 2, "com/example/Gone");
	hpw_string(w, 3, "com/example/Orphan");
	hpw_load_class(w, 1, 0x100, 0, 1);
	hpw_load_class(w, 2, 0x110, 0, 2);
	hpw_load_class(w, 3, 0x120, 0, 3);
	hpw_begin_dump(w, 0x1C);
	struct hpw_class c = { 0 };
	c.class_id = 0x100;
	hpw_class_dump(w, &c);
	/* Orphan's super (0x999) has no CLASS DUMP */
	struct hpw_class orphan = { 0x120, 0, 0x999, 0, 0, 0, 0, 0, NULL, 0, NULL, 0, NULL };
	hpw_class_dump(w, &orphan);
	hpw_instance(w, 0x1000, 0, 0x110, "abcd", 4);
	hpw_instance(w, 0x1010, 0, 0x110, "abcd", 4);
	hpw_instance(w, 0x1020, 0, 0x777, NULL, 0);   /* no LOAD CLASS either */
	hpw_instance(w, 0x1030, 0, 0x120, NULL, 0);
	hpw_end_dump(w);
	hpw_dump_end(w);
	struct hp_heap_opts o = hopts(1, HP_SIZE_AUTO);
	hp_heap *h = model_run(w, &o);
	if (h) {
		/* instances of heap 0 are counted in h->ccount[]: they must be
		 * folded into rows before resolve_names() looks for classes with
		 * rows but no CLASS DUMP (from c2e0d71 until the fix they were not:
		 * no warning, 0 counted) */
		CHECK(has_warning(h, "2 instances of class 0x110 (com.example.Gone), which has no CLASS DUMP"));
		CHECK(has_warning(h, "which has no CLASS DUMP"));
		CHECK(has_warning(h, "class com.example.Orphan: super class 0x999 has no CLASS DUMP"));
		CHECK_EQ(h->missing_class_objects, 3);
		const struct hp_class *u = class_by_id(h, 0x777);
		CHECK(u && strcmp(hp_heap_text(h, u->name), "<unknown class 0x777>") == 0);
		CHECK(hp_heap_find(h, 0x1020) != SIZE_MAX);
		cross_check_rows(h);
		hp_heap_free(h);
	}
	hpw_free(w);
}

/* More objects than the model numbers (HP_MAX_OBJECTS, lowered here to
 * 10): the load stops with one message, positioned at the record past the
 * limit; the same dump loads whole under the real limit. */
static void test_too_many(void)
{
	cur_test = "too many objects";
	hpw *w = hpw_new("JAVA PROFILE 1.0.2", 8, 0);
	hpw_string(w, 1, "java/lang/Object");
	hpw_load_class(w, 1, 0x10, 0, 1);
	hpw_begin_dump(w, 0x1C);
	struct hpw_class c = { 0 };
	c.class_id = 0x10;
	hpw_class_dump(w, &c);
	for (uint64_t i = 0; i < 20; i++)
		hpw_instance(w, 0x1000 + 16 * i, 0, 0x10, NULL, 0);
	hpw_end_dump(w);
	hpw_dump_end(w);
	char path[600];
	snprintf(path, sizeof path, "%s/many-XXXXXX", tmpdir);
	int fd = mkstemp(path);
	CHECK(fd >= 0 && (close(fd), hpw_write_file(w, path) == 0));
	struct hp_session_opts so;
	hp_session_opts_init(&so);
	for (int pass = 0; pass < 2; pass++) {
		hp_heap_max_objects = pass ? HP_MAX_OBJECTS : 10;
		struct hp_error err;
		hp_error_clear(&err);
		hp_session *s = NULL;
		CHECK_EQ(hp_session_open(&s, path, &so, &err), HP_OK);
		const hp_heap *h = NULL;
		int rc = s ? hp_session_model(s, &h, &err) : HP_ENOMEM;
		if (!pass) {
			CHECK_EQ(rc, HP_ENOMEM);
			CHECK(strstr(err.msg, "more than 10 objects: the model numbers objects in 32 bits") != NULL);
			CHECK(err.has_pos && err.offset > 0 && err.tag == 0x1C && err.subtag == 0x21);
			if (!strstr(err.msg, "more than 10"))
				printf("    message: %s\n", err.msg);
		} else {
			CHECK_EQ(rc, HP_OK);
			CHECK(h && h->nobj == 21);
		}
		hp_session_free(s);
	}
	hp_heap_max_objects = HP_MAX_OBJECTS;
	unlink(path);
	hpw_free(w);
}

/* an empty dump (header only) and one with classes but no objects */
static void test_empty(void)
{
	cur_test = "empty dump";
	hpw *w = hpw_new("JAVA PROFILE 1.0.2", 8, 0);
	struct hp_heap_opts o = hopts(1, HP_SIZE_AUTO);
	hp_heap *h = model_run(w, &o);
	if (h) {
		CHECK_EQ(h->nobj, 0);
		CHECK_EQ(h->nrows, 0);
		CHECK_EQ(h->total_shallow, 0);
		CHECK_EQ(hp_heap_find(h, 0), SIZE_MAX);
		CHECK_EQ(hp_heap_find(h, 0x1000), SIZE_MAX);
		CHECK_EQ(h->size.align, 8);
		hp_heap_free(h);
	}
	hpw_free(w);
	/* one object: no id difference, GCD 0, alignment 8 */
	cur_test = "one object";
	w = hpw_new("JAVA PROFILE 1.0.2", 8, 0);
	hpw_begin_dump(w, 0x1C);
	hpw_prim_array(w, 0x1234567, 0, HPW_T_BYTE, 3, "abc", 3);
	hpw_end_dump(w);
	hpw_dump_end(w);
	h = model_run(w, &o);
	if (h) {
		CHECK_EQ(h->nobj, 1);
		CHECK_EQ(h->size.gcd, 0);
		CHECK_EQ(h->size.align, 8);
		CHECK_EQ(hp_heap_find(h, 0x1234567), 0);
		CHECK_EQ(hp_heap_find(h, 0x1234566), SIZE_MAX);
		CHECK_EQ(hp_heap_find(h, 0x1234568), SIZE_MAX);
		/* byte[3] with no LOAD CLASS: a made-up byte[] class; 24 + 3 -> 32 */
		CHECK_EQ(hp_heap_shallow(h, 0), 32);
		const struct hp_class *b = class_by_name(h, "byte[]");
		CHECK(b && b->synthetic);
		cross_check_rows(h);
		hp_heap_free(h);
	}
	hpw_free(w);
}

/* many objects, random order: the bucket index.  far: some ids 2^48 away,
 * past 2^32 steps of 16, so they stay 8 bytes each (heap.h); else within
 * 64 MiB, narrowed to 4-byte steps of 16 (id_shift 4), and with odd: one
 * odd id among them (steps of 1, id_shift 0). */
static void test_find_many(int far, int odd)
{
	cur_test = far ? "find many, far" : odd ? "find many, one odd id" : "find many, near";
	hpw *w = hpw_new("JAVA PROFILE 1.0.2", 8, 0);
	hpw_string(w, 1, "java/lang/Object");
	uint64_t cid = far ? 0x10 : 0x7f0000000000ull - 0x10;   /* the class object: the least id */
	hpw_load_class(w, 1, cid, 0, 1);
	hpw_begin_dump(w, 0x1C);
	struct hpw_class c = { 0 };
	c.class_id = cid;
	hpw_class_dump(w, &c);
	enum { N = 20000 };
	uint64_t *ids = malloc(N * sizeof *ids);
	uint64_t x = 88172645463325252ull;
	for (size_t i = 0; i < N; i++) {
		/* clustered and spread: most ids near 0x7f0000000000, some far away */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		uint64_t id = (far && i % 100 == 0) ? (x & 0xFFFFFFFFFFF0ull) | 0x1000000000000ull : 0x7f0000000000ull + (x % 4000000) * 16;
		if (odd && i == N / 2)
			id = 0x7f0000000000ull + 4000000ull * 16 + 1;
		ids[i] = id;
		hpw_instance(w, id, 0, cid, NULL, 0);
	}
	hpw_end_dump(w);
	hpw_dump_end(w);
	struct hp_heap_opts o = hopts(1, HP_SIZE_AUTO);
	hp_heap *h = model_run(w, &o);
	if (h) {
		int sorted = 1;
		for (size_t i = 1; i < h->nobj; i++)
			if (hp_heap_id(h, i) < hp_heap_id(h, i - 1))
				sorted = 0;
		CHECK(sorted);
		int missing = 0, phantom = 0;
		for (size_t i = 0; i < N; i++) {
			size_t k = hp_heap_find(h, ids[i]);
			if (k == SIZE_MAX || hp_heap_id(h, k) != ids[i])
				missing++;
			/* ids are multiples of 16: +8 never exists */
			if (hp_heap_find(h, ids[i] + 8) != SIZE_MAX)
				phantom++;
		}
		CHECK_EQ(missing, 0);
		CHECK_EQ(phantom, 0);
		CHECK_EQ(h->nobj, N + 1);
		CHECK_EQ(h->min_id, cid);
		CHECK(far ? h->ids && !h->ids32 : !h->ids && h->ids32);
		if (!far)
			CHECK_EQ(h->id_shift, odd ? 0 : 4);
		CHECK_EQ(hp_heap_model_bytes(h) - (h->nbuckets + 1) * 4, (uint64_t)h->nobj * (far ? 22 : 18));
		/* between and around: nothing */
		CHECK_EQ(hp_heap_find(h, 0x7f0000000000ull + 4000000ull * 16 + 17), SIZE_MAX);
		CHECK_EQ(hp_heap_find(h, cid + 8), SIZE_MAX);
		CHECK_EQ(hp_heap_find(h, cid), 0);
		hp_heap_free(h);
	}
	free(ids);
	hpw_free(w);
}

/* ---- Java names ------------------------------------------------------------- */

static void name_is(const char *raw, const char *want)
{
	char *got = hp_java_name(raw, strlen(raw));
	CHECK_STREQ(got, want);
	free(got);
}

static void test_java_names(void)
{
	cur_test = "java names";
	name_is("[[I", "int[][]");
	name_is("[I", "int[]");
	name_is("[Z", "boolean[]");
	name_is("[C", "char[]");
	name_is("[F", "float[]");
	name_is("[D", "double[]");
	name_is("[B", "byte[]");
	name_is("[S", "short[]");
	name_is("[J", "long[]");
	name_is("[[[J", "long[][][]");
	name_is("[Ljava/lang/String;", "java.lang.String[]");
	name_is("[[Ljava/lang/Object;", "java.lang.Object[][]");
	name_is("java/util/HashMap$Entry", "java.util.HashMap$Entry");
	name_is("java/lang/String", "java.lang.String");
	name_is("Main", "Main");
	/* Android names are already in Java notation */
	name_is("java.lang.String", "java.lang.String");
	name_is("int[]", "int[]");
	name_is("java.lang.String[][]", "java.lang.String[][]");
	name_is("com.example.Foo$Bar", "com.example.Foo$Bar");
	/* hidden classes keep their '+' */
	name_is("LeakyCache$$Lambda$14+0x0000000801001200", "LeakyCache$$Lambda$14+0x0000000801001200");
	/* modified UTF-8 becomes UTF-8: a surrogate pair (U+1F600), a two-byte
	 * character (U+00E9), invalid bytes become U+FFFD */
	name_is("a/\xED\xA0\xBD\xED\xB8\x80", "a.\xF0\x9F\x98\x80");
	name_is("caf\xC3\xA9/X", "caf\xC3\xA9.X");
	name_is("a\xFF" "b", "a\xEF\xBF\xBD" "b");
	name_is("[La/\xED\xB8\x80;", "a.\xEF\xBF\xBD[]");     /* a lone low surrogate */
	size_t ol = 99;
	char *u = hp_mutf8_to_utf8("x\xC0\x80y", 4, &ol);   /* C0 80 is NUL in modified UTF-8 */
	/* shown as U+2400 SYMBOL FOR NULL: a real NUL would cut the C string */
	CHECK(u && ol == 5 && strcmp(u, "x\xE2\x90\x80y") == 0);
	free(u);
	/* odd inputs must not crash */
	char *s = hp_java_name("", 0);
	CHECK(s != NULL);
	free(s);
	s = hp_java_name("[", 1);
	CHECK(s != NULL);
	free(s);
	s = hp_java_name("[L;", 3);
	CHECK(s != NULL);
	free(s);
	/* the length is respected: no NUL needed */
	s = hp_java_name("[Ijunk", 2);
	CHECK_STREQ(s, "int[]");
	free(s);
}

/* ---- the vm model's field layout (model/vmlayout.c) ----------------------------
 * One instance per class, 4 KiB apart (no gap is evidence), sizes by the JDK
 * 15+ rule alone under three header/reference settings given as options,
 * worked out by hand from JDK 17's fieldLayoutBuilder.cpp:
 *   A {byte} : Object          B {long, int} : A      C {Object, short} : B
 *   D {long, Object, byte}     E {int, boolean} : D   T2 {boolean} : Thread
 *   java.lang.Thread {Object name; @Contended("tlr") long, int, int}
 *   java.lang.ClassLoader {Object parent} + injected intptr;  L2 : ClassLoader
 *   java.lang.Class: no field listed; injected 2 intptr, 2 int, 3 references
 * e.g. header 12, references 4: B's long goes to 16 (leaving 13..16), its int
 * cannot fit there aligned, 24..28: 32; C's short fills 14..16, its reference
 * 28..32: 32 (MAT's rule: 40); Thread: name 12..16, 128 padding, the group
 * 144..160, 128 padding: 288; T2's boolean goes after all that: 296.
 * The mirror of D (statics Object, long, boolean and the dumper's
 * <resolved_references>, which is not in the mirror) under header 12 /
 * references 4: java.lang.Class is 48 (intptrs 16..32, ints 12 and 32,
 * references 36..48), then the reference 48..52, the long 56..64, the
 * boolean 64: 72. */
enum { V_OBJ, V_A, V_B, V_C, V_D, V_E, V_THREAD, V_T2, V_CL, V_L2, V_CLASS, V_N };
static const char *const v_names[V_N] = {
	"java/lang/Object", "A", "B", "C", "D", "E", "java/lang/Thread", "T2",
	"java/lang/ClassLoader", "L2", "java/lang/Class",
};

static void test_vm_layout(void)
{
	static const struct { unsigned hdr, ref; uint64_t size[V_N]; uint64_t mirror_d; } cases[] = {
		/*               Obj  A   B   C   D   E  Thread T2  CL  L2  Class */
		{ 12, 4, { 16, 16, 32, 32, 32, 32, 288, 296, 24, 24, 48 }, 72 },
		{ 16, 4, { 16, 24, 32, 40, 32, 40, 296, 304, 32, 32, 0 }, 0 },
		{ 12, 8, { 16, 16, 32, 40, 32, 40, 296, 304, 32, 32, 0 }, 0 },
	};
	hpw *w = hpw_new("JAVA PROFILE 1.0.2", 8, 1700000000000ull);
	uint64_t cid[V_N];
	for (int c = 0; c < V_N; c++) {
		cid[c] = 0x10000 + (uint64_t)c * 0x1000;
		hpw_string(w, 100 + (uint64_t)c, v_names[c]);
		hpw_load_class(w, (uint32_t)c + 1, cid[c], 0, 100 + (uint64_t)c);
	}
	hpw_string(w, 200, "f");
	hpw_string(w, 201, "threadLocalRandomSeed");
	hpw_string(w, 202, "threadLocalRandomProbe");
	hpw_string(w, 203, "threadLocalRandomSecondarySeed");
	hpw_string(w, 204, "<resolved_references>");
	static const struct hpw_instance_field fA[] = { { 200, HPW_T_BYTE } };
	static const struct hpw_instance_field fB[] = { { 200, HPW_T_LONG }, { 200, HPW_T_INT } };
	static const struct hpw_instance_field fC[] = { { 200, HPW_T_OBJECT }, { 200, HPW_T_SHORT } };
	static const struct hpw_instance_field fD[] = { { 200, HPW_T_LONG }, { 200, HPW_T_OBJECT }, { 200, HPW_T_BYTE } };
	static const struct hpw_instance_field fE[] = { { 200, HPW_T_INT }, { 200, HPW_T_BOOLEAN } };
	static const struct hpw_instance_field fT[] = { { 200, HPW_T_OBJECT }, { 201, HPW_T_LONG },
							{ 202, HPW_T_INT }, { 203, HPW_T_INT } };
	static const struct hpw_instance_field fT2[] = { { 200, HPW_T_BOOLEAN } };
	static const struct hpw_instance_field fCL[] = { { 200, HPW_T_OBJECT } };
	static const struct hpw_static_field sD[] = { { 200, HPW_T_OBJECT, 0 }, { 200, HPW_T_LONG, 1 },
						      { 200, HPW_T_BOOLEAN, 1 }, { 204, HPW_T_OBJECT, 0 } };
	static const int super_of[V_N] = { -1, V_OBJ, V_A, V_B, V_OBJ, V_D, V_OBJ, V_THREAD, V_OBJ, V_CL, V_OBJ };
	const struct hpw_instance_field *fields[V_N] = { NULL, fA, fB, fC, fD, fE, fT, fT2, fCL, NULL, NULL };
	static const uint16_t nf[V_N] = { 0, 1, 2, 2, 3, 2, 4, 1, 1, 0, 0 };
	hpw_begin_dump(w, 0x1C);
	for (int c = 0; c < V_N; c++) {
		struct hpw_class cd;
		memset(&cd, 0, sizeof cd);
		cd.class_id = cid[c];
		cd.super_id = super_of[c] < 0 ? 0 : cid[super_of[c]];
		cd.nfields = nf[c];
		cd.fields = fields[c];
		if (c == V_D) {
			cd.nstatics = 4;
			cd.statics = sD;
		}
		hpw_class_dump(w, &cd);
	}
	static const uint8_t zeros[64];
	for (int c = 0; c < V_N; c++) {
		if (c == V_CLASS)
			continue;
		uint32_t bytes = 0;
		for (int k = c; k >= 0; k = super_of[k])
			for (int i = 0; i < nf[k]; i++)
				bytes += (uint32_t)hpw_type_size(w, fields[k][i].type);
		hpw_instance(w, 0x800000 + (uint64_t)c * 0x1000, 0, cid[c], zeros, bytes);
	}
	hpw_end_dump(w);
	hpw_dump_end(w);
	for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
		char name[64];
		snprintf(name, sizeof name, "vm layout header %u ref %u", cases[ci].hdr, cases[ci].ref);
		cur_test = name;
		struct hp_heap_opts o = hopts(0, HP_SIZE_VM);
		o.header_size = (int)cases[ci].hdr;
		o.ref_size = (int)cases[ci].ref;
		o.align = 8;
		hp_heap *h = model_run(w, &o);
		if (!h)
			continue;
		CHECK_EQ(h->size.kind, HP_SIZE_VM);
		CHECK_EQ(h->size.vm.jdk15, 1);
		CHECK_EQ(h->size.vm.classes_gaps, 0);
		for (int c = 0; c < V_N; c++) {
			const struct hp_class *cl = class_by_id(h, cid[c]);
			CHECK(cl != NULL);
			if (cl && cases[ci].size[c])
				CHECK_EQ(cl->inst_size, cases[ci].size[c]);
			if (cl && c == V_D && cases[ci].mirror_d)
				CHECK_EQ(cl->self_size, cases[ci].mirror_d);
		}
		hp_heap_free(h);
	}
	hpw_free(w);
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		fprintf(stderr, "usage: test_model (no arguments)\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	tmp_init();
	test_java_names();
	test_hotspot_models();
	test_overrides();
	test_alignment();
	test_android();
	test_duplicates();
	test_super_loop();
	test_missing_class();
	test_empty();
	test_too_many();
	test_find_many(1, 0);
	test_find_many(0, 0);
	test_find_many(0, 1);
	test_vm_layout();
	rmdir(tmpdir);
	printf("%d passed, %d failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}
