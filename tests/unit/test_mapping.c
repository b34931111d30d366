/*
 * test_mapping.c — R8/ProGuard mapping files (model/mapping.h).
 *
 * The parser: what a file lists (classes, fields, methods), the line and
 * status of each kind of bad line, and the file reader agreeing with the
 * one in memory (also across its 1 MiB refills and on a line at the limit).
 * The renaming, on a dump built by tests/helper: class names (arrays, inner
 * classes listed or through their outer class), fields told apart by type,
 * frames (line ranges, inlined code, overloads, source files, signatures)
 * and the counts hp_mapping_apply() reports, each worked out by hand from
 * the mapping below.  Under memory limits both end in HP_ENOMEM or succeed,
 * never crash or leak (ASan).  The lookups on chains, groups and OUTER
 * prefixes (overlapping ranges, groups next to each other, two fields of a
 * type) and the 255-byte bound on source file names.
 */
#include "helper/hpw.h"
#include "model/heap.h"
#include "model/mapping.h"
#include "base/alloc.h"
#include "parser/reader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int passed, failed;
#define CHECK(cond, ...) do { if (cond) passed++; else { failed++; printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } } while (0)

static const char *const MAP =
	"# compiler: R8\n"
	"# {\"id\":\"com.android.tools.r8.mapping\",\"version\":\"2.2\"}\n"
	"com.example.Cache -> a.b:\n"
	"# {\"id\":\"sourceFile\",\"fileName\":\"Cache.kt\"}\n"
	"    java.util.Map entries -> a\n"
	"    int count -> a\n"
	"    java.lang.Object INSTANCE -> c\n"
	"    int com.example.Other.moved -> d\n"      /* moved from another class */
	"    1:3:void evict(com.example.Cache$Entry):10:12 -> a\n"
	"    1:3:void trim(com.example.Cache$Entry):40 -> a\n"
	"    4:6:void put(java.lang.Object):50:52 -> a\n"
	"    7:9:void com.example.Other.moved():90:92 -> a\n"
	"    void clear() -> b\n"
	"com.example.Cache$Entry -> a.b$c:\r\n"
	"    java.lang.Object value -> b\r\n"
	"    void run() -> a\r\n"
	"    void stop() -> a\r\n"
	"\n"
	"com.example.Later -> a.b:\n";     /* the first line naming a.b wins */

static hp_mapping *parse(const char *text, size_t *line, int *rc)
{
	hp_mapping *m = NULL;
	struct hp_error err;
	hp_error_clear(&err);
	*rc = hp_mapping_parse(&m, text, strlen(text), line, &err);
	return m;
}

static void test_counts(void)
{
	size_t line = 99;
	int rc;
	hp_mapping *m = parse(MAP, &line, &rc);
	CHECK(rc == HP_OK && m && line == 0, "the mapping parses: rc %d line %zu", rc, line);
	if (!m)
		return;
	uint64_t c, f, me;
	hp_mapping_counts(m, &c, &f, &me);
	CHECK(c == 3 && f == 5 && me == 7, "3 classes, 5 fields, 7 methods: %llu %llu %llu",
	      (unsigned long long)c, (unsigned long long)f, (unsigned long long)me);
	hp_mapping_free(m);
}

static const struct bad { const char *text; size_t line; const char *msg; } BAD[] = {
	{ "a.b -> c\n", 1, "a class line ends with ':'" },
	{ "# x\n\na b -> c:\n", 3, "white space or a control character in a name" },
	{ "    int x -> a\n", 1, "a member line before any class line" },
	{ "a -> b:\n    int x\n", 2, "expected 'TYPE NAME -> OBFUSCATED'" },
	{ "a -> b:\n    x -> y\n", 2, "expected a type and a name before '->'" },
	{ "a -> b:\n    1:void f() -> a\n", 2, "expected a line range 'START:END:' before the method" },
	{ "a -> b:\n    5:4:void f() -> a\n", 2, "line range 5:4 ends before it starts" },
	{ "a -> b:\n    1:1:int f -> a\n", 2, "a line range before a field" },
	{ "a -> b:\n    void f( -> a\n", 2, "a method's '(' without ')'" },
	{ "a -> b:\n    void f(int x) -> a\n", 2, "white space or a control character in the arguments" },
	{ "a -> b:\n    void f():1:2:3 -> a\n", 2, "expected ':LINE' or ':START:END' after the method's ')'" },
	{ "a -> b:\n    void f():9:8 -> a\n", 2, "original line range 9:8 ends before it starts" },
	{ "a -> b:\n    1:2147483648:void f() -> a\n", 2, "expected a line range" },
	{ "a -> \xc3(:\n", 1, "not valid UTF-8" },
	{ "a -> \xed\xa0\x80:\n", 1, "not valid UTF-8" },     /* a surrogate */
	{ "a -> \xe0\x80\x80:\n", 1, "not valid UTF-8" },     /* overlong */
	{ "a -> b:\n    int x -> \x7f\n", 2, "after '->'" },
};

static void test_errors(void)
{
	char path[] = "/tmp/hp-test-mapping-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0, "a temporary file");
	if (fd < 0)
		return;
	close(fd);
	for (size_t i = 0; i < sizeof BAD / sizeof *BAD; i++) {
		size_t line = 0;
		hp_mapping *m = NULL;
		struct hp_error err;
		hp_error_clear(&err);
		int rc = hp_mapping_parse(&m, BAD[i].text, strlen(BAD[i].text), &line, &err);
		CHECK(rc == HP_EFORMAT && !m && line == BAD[i].line && strstr(err.msg, BAD[i].msg),
		      "bad %zu: rc %d line %zu (want %zu) '%s' (want '%s')", i, rc, line, BAD[i].line, err.msg, BAD[i].msg);
		FILE *f = fopen(path, "wb");
		fputs(BAD[i].text, f);
		fclose(f);
		size_t line2 = 0;
		struct hp_error err2;
		hp_error_clear(&err2);
		int rc2 = hp_mapping_read(&m, path, &line2, &err2);
		CHECK(rc2 == rc && line2 == line && !strcmp(err.msg, err2.msg), "bad %zu read from a file: rc %d line %zu '%s'",
		      i, rc2, line2, err2.msg);
	}
	/* NUL bytes (not through strlen) */
	static const char nul[] = "a -> b:\n    int x\0y -> a\n";
	size_t line = 0;
	hp_mapping *m = NULL;
	struct hp_error err;
	int rc = hp_mapping_parse(&m, nul, sizeof nul - 1, &line, &err);
	CHECK(rc == HP_EFORMAT && line == 2 && strstr(err.msg, "NUL"), "a NUL byte: rc %d line %zu '%s'", rc, line, err.msg);

	/* a file of many short lines (across the reader's refills), then a
	 * line of exactly the limit, then one past it */
	FILE *f = fopen(path, "wb");
	size_t n = 0;
	for (int i = 0; i < 60000; i++, n++)
		fprintf(f, "c%d -> o%d:\n    int f -> a\n", i, i), n++;
	fputc('#', f);
	for (int i = 1; i < HP_MAPPING_LINE_MAX; i++)
		fputc('x', f);
	fputc('\n', f);
	n++;
	fclose(f);
	rc = hp_mapping_read(&m, path, &line, &err);
	CHECK(rc == HP_OK && m, "%zu lines, the last of %d bytes: rc %d line %zu '%s'", n, HP_MAPPING_LINE_MAX, rc, line, err.msg);
	if (m) {
		uint64_t c, fl, me;
		hp_mapping_counts(m, &c, &fl, &me);
		CHECK(c == 60000 && fl == 60000 && me == 0, "60,000 classes and fields: %llu %llu",
		      (unsigned long long)c, (unsigned long long)fl);
		hp_mapping_free(m);
	}
	f = fopen(path, "ab");
	fputs("a -> b:\n", f);
	for (int i = 0; i < HP_MAPPING_LINE_MAX + 1; i++)
		fputc('#', f);
	fclose(f);
	rc = hp_mapping_read(&m, path, &line, &err);
	CHECK(rc == HP_EFORMAT && line == n + 2 && strstr(err.msg, "longer than"),
	      "a line past the limit at the end: rc %d line %zu (want %zu) '%s'", rc, line, n + 2, err.msg);
	unlink(path);
	rc = hp_mapping_read(&m, path, &line, &err);
	CHECK(rc == HP_EIO && line == 0, "no such file: rc %d line %zu", rc, line);
}

/* ---- the renaming ------------------------------------------------------- */

enum { S_OBJ = 1, S_AB, S_ABC, S_AB1, S_ARR, S_ARR2, S_XY, S_A, S_B, S_C, S_D, S_SIG, S_V, S_SRC, S_YKT, S_NSTR };

static char dump_path[64];

static int write_dump(void)
{
	hpw *w = hpw_new("JAVA PROFILE 1.0.2", 4, 0);
	static const char *const strs[S_NSTR] = { "", "java/lang/Object", "a/b", "a/b$c", "a/b$1", "[La/b$c;", "[[La/b;",
						  "x/Y", "a", "b", "c", "d", "(La/b$c;[La/b;)V", "()V", "SourceFile", "Y.kt" };
	for (int i = 1; i < S_NSTR; i++)
		hpw_string(w, 0x100 + i, strs[i]);
	for (uint32_t k = 0; k < 7; k++)
		hpw_load_class(w, k + 1, 0x1000 + 0x10 * k, 0, 0x100 + S_OBJ + k);
	/* frames: a.b.a at 2 (trim 40), at 5 (put 51), at 8 (moved 91, from
	 * Other), a.b.b (clear, line 0 kept), a.b$c.a (run), a.b$1.a (no
	 * members: unchanged), x.Y.b (not listed) */
	static const struct { uint32_t cls; int m, sig, src; int32_t line; } fr[] = {
		{ 2, S_A, S_SIG, S_SRC, 2 }, { 2, S_A, S_V, S_SRC, 5 }, { 2, S_A, S_V, S_SRC, 8 }, { 2, S_B, S_V, S_SRC, 0 },
		{ 3, S_A, S_V, S_YKT, -1 }, { 4, S_A, S_V, S_SRC, 3 }, { 7, S_B, S_SIG, S_YKT, 4 },
	};
	uint64_t ids[7];
	for (size_t i = 0; i < 7; i++) {
		ids[i] = 0x3000 + 8 * i;
		hpw_frame(w, ids[i], 0x100 + fr[i].m, 0x100 + fr[i].sig, 0x100 + fr[i].src, fr[i].cls, fr[i].line);
	}
	hpw_trace(w, 1, 1, 7, ids);
	hpw_begin_dump(w, 0x1C);
	struct hpw_class c = { 0 };
	c.class_id = 0x1000;
	hpw_class_dump(w, &c);
	/* a.b: a (reference), a (int), d (int), static c */
	struct hpw_instance_field fb[] = { { 0x100 + S_A, HP_T_OBJECT }, { 0x100 + S_A, HP_T_INT }, { 0x100 + S_D, HP_T_INT } };
	struct hpw_static_field sb[] = { { 0x100 + S_C, HP_T_OBJECT, 0 } };
	c.class_id = 0x1010, c.super_id = 0x1000, c.instance_size = 12;
	c.nfields = 3, c.fields = fb, c.nstatics = 1, c.statics = sb;
	hpw_class_dump(w, &c);
	struct hpw_instance_field fc[] = { { 0x100 + S_B, HP_T_OBJECT } };
	memset(&c, 0, sizeof c);
	c.class_id = 0x1020, c.super_id = 0x1000, c.instance_size = 4, c.nfields = 1, c.fields = fc;
	hpw_class_dump(w, &c);
	struct hpw_instance_field f1[] = { { 0x100 + S_A, HP_T_INT } };
	c.class_id = 0x1030, c.fields = f1;
	hpw_class_dump(w, &c);
	hpw_end_dump(w);
	hpw_dump_end(w);
	snprintf(dump_path, sizeof dump_path, "/tmp/hp-test-mapping-dump-XXXXXX");
	int fd = mkstemp(dump_path);
	if (fd < 0) {
		hpw_free(w);
		return -1;
	}
	close(fd);
	int rc = hpw_write_file(w, dump_path);
	hpw_free(w);
	return rc;
}

static hp_heap *load(void)
{
	hp_reader *r = NULL;
	struct hp_error err;
	hp_error_clear(&err);
	if (hp_reader_open(&r, dump_path, &err))
		return NULL;
	struct hp_heap_opts ho;
	hp_heap_opts_init(&ho);
	ho.build_objects = 1;
	hp_heap *h = hp_heap_new(&ho);
	struct hp_sink sink;
	hp_heap_sink(h, &sink);
	struct hp_parse_opts po;
	hp_parse_opts_init(&po);
	struct hp_stats st;
	memset(&st, 0, sizeof st);
	int rc = hp_parse(r, &sink, &po, &st, &err);
	hp_stats_release(&st);
	hp_reader_free(r);
	if (rc || hp_heap_finish(h, &err)) {
		hp_heap_free(h);
		return NULL;
	}
	return h;
}

static const char *class_named(const hp_heap *h, uint64_t id)
{
	uint32_t k = hp_idmap_get(&h->class_map, id);
	return k == HP_IDMAP_NONE ? "?" : hp_class_name(h, k);
}

static const char *str(const hp_heap *h, uint64_t sid)
{
	const char *s = hp_heap_string(h, sid, NULL);
	return s ? s : "(none)";
}

static void test_apply(void)
{
	CHECK(write_dump() == 0, "the test dump is written");
	hp_heap *h = load();
	size_t line;
	int rc;
	hp_mapping *m = parse(MAP, &line, &rc);
	CHECK(h && m, "the dump and the mapping load");
	if (!h || !m) {
		hp_heap_free(h);
		hp_mapping_free(m);
		return;
	}
	struct hp_mapping_stats st;
	struct hp_error err;
	rc = hp_mapping_apply(m, h, &st, &err);
	CHECK(rc == HP_OK, "apply: %d %s", rc, err.msg);
	/* classes: a.b, a.b$c, a.b$1 (through a.b), a.b$c[], a.b[][]; x.Y kept */
	static const struct { uint64_t id; const char *name; } want[] = {
		{ 0x1010, "com.example.Cache" }, { 0x1020, "com.example.Cache$Entry" }, { 0x1030, "com.example.Cache$1" },
		{ 0x1040, "com.example.Cache$Entry[]" }, { 0x1050, "com.example.Cache[][]" }, { 0x1060, "x.Y" },
		{ 0x1000, "java.lang.Object" },
	};
	for (size_t i = 0; i < sizeof want / sizeof *want; i++)
		CHECK(!strcmp(class_named(h, want[i].id), want[i].name), "class 0x%llx: '%s', want '%s'",
		      (unsigned long long)want[i].id, class_named(h, want[i].id), want[i].name);
	uint32_t k = hp_idmap_get(&h->class_map, 0x1010);
	if (k != HP_IDMAP_NONE) {
		const struct hp_class *C = &h->classes[k];
		char got[128] = "";
		for (uint32_t i = 0; i < C->n_fields; i++) {
			strcat(got, str(h, h->fields[C->first_field + i].name_sid));
			strcat(got, " ");
		}
		if (C->n_statics)
			strcat(got, str(h, h->statics[C->first_static].name_sid));
		CHECK(!strcmp(got, "entries count moved INSTANCE"), "a.b's fields: '%s'", got);
	}
	k = hp_idmap_get(&h->class_map, 0x1030);
	if (k != HP_IDMAP_NONE)
		CHECK(!strcmp(str(h, h->fields[h->classes[k].first_field].name_sid), "a"),
		      "a.b$1's field stays a (its class is mapped through its outer one)");
	static const struct { const char *text; } frames[] = {
		{ "trim (Lcom/example/Cache$Entry;[Lcom/example/Cache;)V Cache.kt 40" },
		{ "put ()V Cache.kt 51" },
		{ "moved ()V Other.java 91" },
		{ "clear ()V Cache.kt 0" },
		{ "run ()V Cache.kt -1" },
		{ "a ()V SourceFile 3" },
		{ "b (Lcom/example/Cache$Entry;[Lcom/example/Cache;)V Y.kt 4" },
	};
	CHECK(h->nframes == 7, "7 frames: %zu", h->nframes);
	for (size_t i = 0; i < h->nframes && i < 7; i++) {
		/* frames are kept in record order */
		const struct hp_frame *f = &h->frames[i];
		char got[256];
		snprintf(got, sizeof got, "%s %s %s %d", str(h, f->method_sid), str(h, f->signature_sid), str(h, f->source_sid),
			 f->line);
		CHECK(!strcmp(got, frames[i].text), "frame %zu: '%s', want '%s'", i, got, frames[i].text);
	}
	/* fields: entries, count, moved, INSTANCE, a.b$c's value; frames:
	 * all but a.b$1's (x.Y's for its signature) */
	CHECK(st.classes == 5 && st.fields == 5 && st.frames == 6, "renamed: %llu classes, %llu fields, %llu frames",
	      (unsigned long long)st.classes, (unsigned long long)st.fields, (unsigned long long)st.frames);
	hp_heap_free(h);
	hp_mapping_free(m);
}

/* ---- chains, groups and prefixes ------------------------------------------ */

/* The tables hp_mapping_apply() looks frames, fields and classes up in,
 * checked against answers worked out by hand: a method chain whose ranges
 * overlap (the first line in the file holding the frame's line wins, the
 * chain's head when none does), a group of inlined lines (the last), a
 * field chain with two lines of one type (the first of the type), class
 * names through their longest listed OUTER prefix, and the 255-byte bound
 * on source file names. */
static const char *const CHAINS =
	"com.A -> a:\n"
	"    void h() -> b\n"                /* the head: no range */
	"    3:8:void r():300:305 -> b\n"
	"    1:10:void p():100 -> b\n"
	"    5:6:void q():200 -> b\n"
	"    20:22:void in1():7 -> b\n"
	"    20:22:void in2():8 -> b\n"
	"    20:22:void outer():9 -> b\n"   /* in1 and in2 inlined into outer */
	"    30:30:void g1():1 -> b\n"
	"    30:30:void g2():2 -> b\n"
	"    30:31:void g3():3 -> b\n"      /* another range: no group with g2 */
	"    int f -> c\n"
	"    long g -> c\n"
	"    int f2 -> c\n"                 /* a second int c: never picked */
	"    java.lang.Object o -> c\n"
	"com.A$B$C -> a$b$c:\n"
	"com.D -> a$$:\n"
	"com.Long -> l:\n"
	"# {\"id\":\"sourceFile\",\"fileName\":\"%s\"}\n";   /* 300 bytes: ignored */

enum { C_OBJ = 1, C_A, C_ABCD, C_ABX, C_A3, C_L, C_B, C_C, C_V, C_SRC, C_LONGSRC, C_N };

static int write_chains_dump(void)
{
	static char longsrc[301];
	memset(longsrc, 'x', 300);
	memcpy(longsrc + 297, ".kt", 3);
	hpw *w = hpw_new("JAVA PROFILE 1.0.2", 4, 0);
	const char *strs[C_N] = { "", "java/lang/Object", "a", "a$b$c$d", "a$b$x", "a$$$", "l", "b", "c", "()V",
				  "SourceFile", longsrc };
	for (int i = 1; i < C_N; i++)
		hpw_string(w, 0x100 + i, strs[i]);
	for (uint32_t k = 0; k < 6; k++)
		hpw_load_class(w, k + 1, 0x1000 + 0x10 * k, 0, 0x100 + C_OBJ + k);
	/* frames of a.b at these lines, then two of l.b */
	static const int32_t lines[] = { 2, 3, 5, 7, 9, 10, 11, 0, 21, 30, 31 };
	enum { NL = sizeof lines / sizeof *lines };
	uint64_t ids[NL + 2];
	for (size_t i = 0; i < NL; i++) {
		ids[i] = 0x3000 + 8 * i;
		hpw_frame(w, ids[i], 0x100 + C_B, 0x100 + C_V, 0x100 + C_SRC, 2, lines[i]);
	}
	ids[NL] = 0x3000 + 8 * NL;
	hpw_frame(w, ids[NL], 0x100 + C_B, 0x100 + C_V, 0x100 + C_SRC, 6, 1);
	ids[NL + 1] = 0x3000 + 8 * (NL + 1);
	hpw_frame(w, ids[NL + 1], 0x100 + C_B, 0x100 + C_V, 0x100 + C_LONGSRC, 2, 0);
	hpw_trace(w, 1, 1, NL + 2, ids);
	hpw_begin_dump(w, 0x1C);
	struct hpw_class c = { 0 };
	c.class_id = 0x1000;
	hpw_class_dump(w, &c);
	struct hpw_instance_field fa[] = { { 0x100 + C_C, HP_T_INT }, { 0x100 + C_C, HP_T_LONG },
					   { 0x100 + C_C, HP_T_OBJECT }, { 0x100 + C_C, HP_T_SHORT } };
	c.class_id = 0x1010, c.super_id = 0x1000, c.instance_size = 18, c.nfields = 4, c.fields = fa;
	hpw_class_dump(w, &c);
	hpw_end_dump(w);
	hpw_dump_end(w);
	int rc = hpw_write_file(w, dump_path);
	hpw_free(w);
	return rc;
}

static void test_chains(void)
{
	char text[1024], name[301];
	memset(name, 'y', 300);
	name[300] = '\0';
	snprintf(text, sizeof text, CHAINS, name);
	hp_heap *h = write_chains_dump() == 0 ? load() : NULL;
	size_t line;
	int rc;
	hp_mapping *m = parse(text, &line, &rc);
	CHECK(h && m, "the chains dump and mapping load: rc %d line %zu", rc, line);
	if (!h || !m) {
		hp_heap_free(h);
		hp_mapping_free(m);
		return;
	}
	struct hp_mapping_stats st;
	struct hp_error err;
	rc = hp_mapping_apply(m, h, &st, &err);
	CHECK(rc == HP_OK, "apply: %d %s", rc, err.msg);
	static const struct { uint64_t id; const char *name; } want[] = {
		{ 0x1010, "com.A" }, { 0x1020, "com.A$B$C$d" }, { 0x1030, "com.A$b$x" }, { 0x1040, "com.D$" },
		{ 0x1050, "com.Long" },
	};
	for (size_t i = 0; i < sizeof want / sizeof *want; i++)
		CHECK(!strcmp(class_named(h, want[i].id), want[i].name), "class 0x%llx: '%s', want '%s'",
		      (unsigned long long)want[i].id, class_named(h, want[i].id), want[i].name);
	/* line 2: only p holds it; 3 and 5: r is first in the file; 7: r
	 * again; 9 and 10: r has ended, p holds them; 11: none, the head h
	 * (the line kept); 0: no line, h; 21: the group's last, outer; 30:
	 * g1..g2's group ends at g2 (g3's range differs); 31: g3 */
	static const char *const frames[] = {
		"p 100 A.java", "r 300 A.java", "r 302 A.java", "r 304 A.java", "p 100 A.java", "p 100 A.java",
		"h 11 A.java", "h 0 A.java", "outer 9 A.java", "g2 2 A.java", "g3 3 A.java",
		"b 1 Long.java",             /* the 300-byte comment ignored: a name made from the class */
		"h 0 (kept)",                /* a 300-byte name in the dump: kept */
	};
	size_t nf = sizeof frames / sizeof *frames;
	CHECK(h->nframes == nf, "%zu frames: %zu", nf, h->nframes);
	for (size_t i = 0; i < h->nframes && i < nf; i++) {
		const struct hp_frame *f = &h->frames[i];
		uint32_t len;
		const char *src = hp_heap_string(h, f->source_sid, &len);
		char got[128];
		snprintf(got, sizeof got, "%s %d %s", str(h, f->method_sid), f->line,
			 len == 300 && src[299] == 't' ? "(kept)" : src ? src : "(none)");
		CHECK(!strcmp(got, frames[i]), "chains frame %zu: '%s', want '%s'", i, got, frames[i]);
	}
	uint32_t k = hp_idmap_get(&h->class_map, 0x1010);
	if (k != HP_IDMAP_NONE) {
		const struct hp_class *C = &h->classes[k];
		char got[128] = "";
		for (uint32_t i = 0; i < C->n_fields; i++) {
			strcat(got, str(h, h->fields[C->first_field + i].name_sid));
			strcat(got, " ");
		}
		CHECK(!strcmp(got, "f g o f "), "a's fields by type: '%s' (a short c: the first, f)", got);
	}
	hp_heap_free(h);
	hp_mapping_free(m);
}

/* under memory limits: HP_ENOMEM or success, never a crash or a leak */
static void test_limits(void)
{
	int ok = 0, oom = 0, other = 0;
	for (uint64_t lim = 1024; lim < (1u << 20); lim += lim / 4) {
		hp_alloc_set_limit(lim);
		size_t line;
		int rc;
		hp_mapping *m = parse(MAP, &line, &rc);
		hp_alloc_set_limit(0);
		if (rc == HP_OK)
			ok++;
		else if (rc == HP_ENOMEM && line == 0)
			oom++;
		else
			other++;
		if (!m)
			continue;
		hp_heap *h = load();
		if (!h) {
			hp_mapping_free(m);
			continue;
		}
		for (uint64_t extra = 64; extra < (1u << 16); extra *= 2) {
			hp_alloc_set_limit(hp_alloc_in_use() + extra);
			struct hp_mapping_stats st;
			struct hp_error err;
			rc = hp_mapping_apply(m, h, &st, &err);
			hp_alloc_set_limit(0);
			if (rc != HP_OK && rc != HP_ENOMEM)
				other++;
		}
		hp_heap_free(h);
		hp_mapping_free(m);
	}
	CHECK(ok && oom && !other, "under limits: %d parsed, %d out of memory, %d other", ok, oom, other);
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		fprintf(stderr, "usage: test_mapping (no arguments)\n");
		return 2;
	}
	test_counts();
	test_errors();
	test_apply();
	test_chains();
	test_limits();
	if (dump_path[0])
		unlink(dump_path);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
