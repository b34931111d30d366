/*
 * Tests of the test-side HPROF writer (tests/helper/hpw.c).
 *
 * Builds complete dumps using every record and sub-record kind with 4- and
 * 8-byte ids, walks them with a small independent reader written here from
 * docs/hprof-format.md (every record length must cover its body exactly, every
 * sub-record must parse), checks exact bytes at known offsets, and round-trips
 * files and multi-member gzip through zlib. Does not use src/.
 */
#include "helper/hpw.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

static int hpw_t_passed, hpw_t_failed;

#define HPW_CHECK(cond) hpw_t_check((cond), #cond, __FILE__, __LINE__)
#define HPW_CHECK_EQ(a, b) \
	hpw_t_check_eq((uint64_t)(a), (uint64_t)(b), #a " == " #b, __FILE__, \
		       __LINE__)

static void hpw_t_check(int ok, const char *what, const char *file, int line)
{
	if (ok) {
		hpw_t_passed++;
		return;
	}
	hpw_t_failed++;
	fprintf(stderr, "%s:%d: FAILED: %s\n", file, line, what);
}

static void hpw_t_check_eq(uint64_t a, uint64_t b, const char *what,
			   const char *file, int line)
{
	if (a == b) {
		hpw_t_passed++;
		return;
	}
	hpw_t_failed++;
	fprintf(stderr, "%s:%d: FAILED: %s (0x%llx != 0x%llx)\n", file, line,
		what, (unsigned long long)a, (unsigned long long)b);
}

static uint64_t hpw_t_be(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	while (n--)
		v = (v << 8) | *p++;
	return v;
}

/* ---- an independent reader ---------------------------------------------- */

struct hpw_t_rd {
	const uint8_t *p;
	size_t end, pos;
	int idsz;
	int bad;		/* set when a read runs past end */
};

static uint64_t hpw_t_get(struct hpw_t_rd *r, size_t n)
{
	uint64_t v;

	if (r->bad || r->end - r->pos < n) {
		r->bad = 1;
		return 0;
	}
	v = hpw_t_be(r->p + r->pos, n);
	r->pos += n;
	return v;
}

static void hpw_t_skip(struct hpw_t_rd *r, size_t n)
{
	if (r->bad || r->end - r->pos < n) {
		r->bad = 1;
		return;
	}
	r->pos += n;
}

static size_t hpw_t_tsize(int idsz, unsigned type)
{
	switch (type) {
	case 2: return (size_t)idsz;
	case 4: case 8: return 1;
	case 5: case 9: return 2;
	case 6: case 10: return 4;
	case 7: case 11: return 8;
	default: return 0;
	}
}

struct hpw_t_counts {
	unsigned tag[256];
	unsigned sub[256];
	unsigned bad_records;	/* records whose body did not parse exactly */
	unsigned unknown_subs;
	uint64_t timestamp;
	int idsz;
	char format[32];
};

/* Parses sub-records in [r->pos, r->end); 0 if they fill it exactly. */
static int hpw_t_subrecords(struct hpw_t_rd *r, struct hpw_t_counts *c)
{
	size_t id = (size_t)r->idsz;

	while (!r->bad && r->pos < r->end) {
		unsigned st = (unsigned)hpw_t_get(r, 1);
		uint64_t n, i;

		c->sub[st]++;
		switch (st) {
		case 0xFF: case 0x05: case 0x07:
		case 0x89: case 0x8A: case 0x8B: case 0x8C: case 0x8D: case 0x90:
			hpw_t_skip(r, id);
			break;
		case 0x01:
			hpw_t_skip(r, 2 * id);
			break;
		case 0x02: case 0x03: case 0x08: case 0x8E:
			hpw_t_skip(r, id + 8);
			break;
		case 0x04: case 0x06:
			hpw_t_skip(r, id + 4);
			break;
		case 0xFE:
			hpw_t_skip(r, 4 + id);
			break;
		case 0x20:
			hpw_t_skip(r, id + 4 + 6 * id + 4);
			n = hpw_t_get(r, 2);
			for (i = 0; i < n; i++) {
				hpw_t_skip(r, 2);
				hpw_t_skip(r, hpw_t_tsize(r->idsz,
					   (unsigned)hpw_t_get(r, 1)));
			}
			n = hpw_t_get(r, 2);
			for (i = 0; i < n; i++) {
				hpw_t_skip(r, id);
				hpw_t_skip(r, hpw_t_tsize(r->idsz,
					   (unsigned)hpw_t_get(r, 1)));
			}
			n = hpw_t_get(r, 2);
			for (i = 0; i < n; i++)
				hpw_t_skip(r, id + 1);
			break;
		case 0x21:
			hpw_t_skip(r, id + 4 + id);
			hpw_t_skip(r, hpw_t_get(r, 4));
			break;
		case 0x22:
			hpw_t_skip(r, id + 4);
			n = hpw_t_get(r, 4);
			hpw_t_skip(r, id + n * id);
			break;
		case 0x23:
			hpw_t_skip(r, id + 4);
			n = hpw_t_get(r, 4);
			hpw_t_skip(r, n * hpw_t_tsize(r->idsz,
				   (unsigned)hpw_t_get(r, 1)));
			break;
		case 0xC3:
			hpw_t_skip(r, id + 4 + 4 + 1);
			break;
		default:
			c->unknown_subs++;
			return -1;
		}
	}
	return r->bad ? -1 : 0;
}

/* Walks a whole file; 0 if header and every record parse exactly. */
static int hpw_t_walk(const uint8_t *p, size_t len, struct hpw_t_counts *c)
{
	struct hpw_t_rd r = { p, len, 0, 0, 0 };
	const uint8_t *nul = memchr(p, 0, len);
	size_t flen;

	memset(c, 0, sizeof(*c));
	if (!nul)
		return -1;
	flen = (size_t)(nul - p);
	if (flen >= sizeof(c->format))
		return -1;
	memcpy(c->format, p, flen);
	r.pos = flen + 1;
	c->idsz = (int)hpw_t_get(&r, 4);
	c->timestamp = hpw_t_get(&r, 8);
	if (r.bad)
		return -1;
	r.idsz = c->idsz;
	while (r.pos < len) {
		unsigned tag = (unsigned)hpw_t_get(&r, 1);
		size_t body, id = (size_t)c->idsz;
		struct hpw_t_rd b;
		uint64_t n;

		hpw_t_get(&r, 4);
		body = (size_t)hpw_t_get(&r, 4);
		if (r.bad || len - r.pos < body)
			return -1;
		c->tag[tag]++;
		b = (struct hpw_t_rd){ p, r.pos + body, r.pos, c->idsz, 0 };
		switch (tag) {
		case 0x01:
			hpw_t_skip(&b, id);
			b.pos = b.bad ? b.pos : b.end;
			break;
		case 0x02:
			hpw_t_skip(&b, 4 + id + 4 + id);
			break;
		case 0x03: case 0x0B:
			hpw_t_skip(&b, 4);
			break;
		case 0x04:
			hpw_t_skip(&b, 4 * id + 8);
			break;
		case 0x05:
			hpw_t_skip(&b, 8);
			hpw_t_skip(&b, hpw_t_get(&b, 4) * id);
			break;
		case 0x06:
			hpw_t_skip(&b, 2 + 4 + 4 + 4 + 8 + 8);
			hpw_t_skip(&b, hpw_t_get(&b, 4) * 25);
			break;
		case 0x07:
			hpw_t_skip(&b, 24);
			break;
		case 0x0A:
			hpw_t_skip(&b, 4 + id + 4 + 3 * id);
			break;
		case 0x0C: case 0x1C:
			hpw_t_subrecords(&b, c);
			break;
		case 0x0D:
			hpw_t_skip(&b, 4);
			n = hpw_t_get(&b, 4);
			hpw_t_skip(&b, n * 8);
			break;
		case 0x0E:
			hpw_t_skip(&b, 6);
			break;
		default:	/* unknown or empty (0x2C): skip by length */
			b.pos = b.end;
			break;
		}
		if (b.bad || b.pos != b.end)
			c->bad_records++;
		r.pos += body;
	}
	return c->bad_records ? -1 : 0;
}

/* ---- building a complete dump ------------------------------------------- */

enum {
	S_OBJECT = 1, S_FOO, S_MAIN, S_RUN, S_SIG, S_SRC, S_VALUE, S_NEXT,
	S_COUNT, S_APP, S_THREAD, S_GROUP, S_ODD
};
#define C_OBJECT 0x1000
#define C_FOO 0x1010
#define C_FOOARR 0x1020
#define C_BYTEARR 0x1030

/* Every top-level record and every sub-record, in two segments and one
 * HEAP DUMP. Returns the writer; *foo_at gets the offset of Foo's CLASS
 * DUMP and *foo_len its length. */
static hpw *hpw_t_build(int idsz, size_t *foo_at, size_t *foo_len)
{
	hpw *w = hpw_new("JAVA PROFILE 1.0.2", idsz, 1700000000123ull);
	static const uint8_t odd[] = { 'a', 0xC0, 0x80, 'b' };
	const uint64_t frames[2] = { 0x501, 0x502 };
	const struct hpw_site sites[2] = {
		{ 0, 2, 1, 100, 10, 200, 20 },
		{ HPW_T_BYTE, 4, 1, 64, 1, 64, 1 },
	};
	const struct hpw_sample samples[2] = { { 7, 1 }, { 3, 2 } };
	const struct hpw_cp_entry cp[1] = { { 3, HPW_T_INT, 12345 } };
	const struct hpw_static_field statics[3] = {
		{ S_COUNT, HPW_T_INT, 42 },
		{ S_NEXT, HPW_T_OBJECT, 0x2000 },
		{ S_VALUE, HPW_T_DOUBLE, 0 },
	};
	const struct hpw_instance_field fields[2] = {
		{ S_VALUE, HPW_T_INT },
		{ S_NEXT, HPW_T_OBJECT },
	};
	struct hpw_class obj = { .class_id = C_OBJECT, .trace_serial = 1 };
	struct hpw_class foo = {
		.class_id = C_FOO, .trace_serial = 1, .super_id = C_OBJECT,
		.instance_size = 4 + (uint32_t)idsz,
		.ncp = 1, .cp = cp, .nstatics = 3, .statics = statics,
		.nfields = 2, .fields = fields,
	};
	const uint64_t elems[3] = { 0x2000, 0, 0x2010 };
	const uint8_t raw_bytes[5] = { 1, 2, 3, 4, 5 };
	const uint64_t chars[3] = { 'h', 'i', 0x263A };
	uint8_t raw_fields[16] = { 0 };

	hpw_string(w, S_OBJECT, "java/lang/Object");
	hpw_string(w, S_FOO, "Foo");
	hpw_string(w, S_MAIN, "main");
	hpw_string(w, S_RUN, "run");
	hpw_string(w, S_SIG, "()V");
	hpw_string(w, S_SRC, "Foo.java");
	hpw_string(w, S_VALUE, "value");
	hpw_string(w, S_NEXT, "next");
	hpw_string(w, S_COUNT, "COUNT");
	hpw_string(w, S_APP, "app");
	hpw_string(w, S_THREAD, "main-thread");
	hpw_string(w, S_GROUP, "");
	hpw_string_n(w, S_ODD, odd, sizeof(odd));
	hpw_load_class(w, 1, C_OBJECT, 1, S_OBJECT);
	hpw_load_class(w, 2, C_FOO, 1, S_FOO);
	hpw_unload_class(w, 9);
	hpw_frame(w, 0x501, S_RUN, S_SIG, S_SRC, 2, 42);
	hpw_frame(w, 0x502, S_MAIN, S_SIG, S_SRC, 2, -3);
	hpw_trace(w, 1, 1, 2, frames);
	hpw_trace(w, 2, 1, 0, NULL);
	hpw_start_thread(w, 1, 0x3000, 1, S_THREAD, S_MAIN, S_GROUP);
	hpw_heap_summary(w, 1000, 10, 5000, 50);
	hpw_alloc_sites(w, 0x1, 0.5f, 100, 10, 200, 20, 2, sites);
	hpw_alloc_sites(w, 0, 0.0f, 0, 0, 0, 0, 0, NULL);
	hpw_cpu_samples(w, 10, 2, samples);
	hpw_control_settings(w, 3, 16);
	hpw_record(w, 0x42, "xyz", 3);

	hpw_begin_dump(w, HPW_TAG_HEAP_DUMP_SEGMENT);
	hpw_heap_info(w, 'A', S_APP);
	hpw_root_unknown(w, 0x2000);
	hpw_root_jni_global(w, 0x2000, 0x9000);
	hpw_root_jni_local(w, 0x2000, 1, 0);
	hpw_root_java_frame(w, 0x2000, 1, 0xFFFFFFFFu);
	hpw_root_native_stack(w, 0x2000, 1);
	hpw_root_sticky_class(w, C_OBJECT);
	hpw_root_thread_block(w, 0x3000, 1);
	hpw_root_monitor_used(w, 0x2000);
	hpw_root_thread_object(w, 0x3000, 1, 1);
	hpw_root_interned_string(w, 0x2000);
	hpw_root_finalizing(w, 0x2000);
	hpw_root_debugger(w, 0x2000);
	hpw_root_reference_cleanup(w, 0x2000);
	hpw_root_vm_internal(w, 0x2000);
	hpw_root_jni_monitor(w, 0x2000, 1, 3);
	hpw_root_unreachable(w, 0x2000);
	hpw_class_dump(w, &obj);
	*foo_at = hpw_len(w);
	hpw_class_dump(w, &foo);
	*foo_len = hpw_len(w) - *foo_at;
	hpw_end_dump(w);

	hpw_begin_dump(w, HPW_TAG_HEAP_DUMP_SEGMENT);
	hpw_instance_begin(w, 0x2000, 1, C_FOO);
	hpw_value(w, HPW_T_INT, 7);
	hpw_value(w, HPW_T_OBJECT, 0x2010);
	hpw_instance_end(w);
	hpw_instance(w, 0x2010, 1, C_FOO, raw_fields, 4 + (uint32_t)idsz);
	hpw_obj_array(w, 0x2020, 1, C_FOOARR, 3, elems);
	hpw_obj_array(w, 0x2030, 1, C_FOOARR, 0, NULL);
	hpw_end_dump(w);

	hpw_begin_dump(w, HPW_TAG_HEAP_DUMP);
	hpw_prim_array(w, 0x2040, 1, HPW_T_BYTE, 5, raw_bytes, 5);
	hpw_prim_array_values(w, 0x2050, 1, HPW_T_CHAR, 3, chars);
	hpw_prim_array_nodata(w, 0x2060, 1, HPW_T_INT, 1000);
	hpw_end_dump(w);

	hpw_end_thread(w, 1);
	hpw_dump_end(w);
	return w;
}

static void hpw_t_full(int idsz)
{
	static const unsigned want_tags[][2] = {
		{ 0x01, 13 }, { 0x02, 2 }, { 0x03, 1 }, { 0x04, 2 },
		{ 0x05, 2 }, { 0x06, 2 }, { 0x07, 1 }, { 0x0A, 1 },
		{ 0x0B, 1 }, { 0x0C, 1 }, { 0x0D, 1 }, { 0x0E, 1 },
		{ 0x1C, 2 }, { 0x2C, 1 }, { 0x42, 1 },
	};
	static const unsigned want_subs[][2] = {
		{ 0xFF, 1 }, { 0x01, 1 }, { 0x02, 1 }, { 0x03, 1 },
		{ 0x04, 1 }, { 0x05, 1 }, { 0x06, 1 }, { 0x07, 1 },
		{ 0x08, 1 }, { 0x20, 2 }, { 0x21, 2 }, { 0x22, 2 },
		{ 0x23, 2 }, { 0x89, 1 }, { 0x8A, 1 }, { 0x8B, 1 },
		{ 0x8C, 1 }, { 0x8D, 1 }, { 0x8E, 1 }, { 0x90, 1 },
		{ 0xC3, 1 }, { 0xFE, 1 },
	};
	struct hpw_t_counts c;
	size_t foo_at, foo_len, len, i, ntags = 0, nsubs = 0, id = (size_t)idsz;
	hpw *w = hpw_t_build(idsz, &foo_at, &foo_len);
	const uint8_t *d = hpw_data(w, &len);

	HPW_CHECK(hpw_t_walk(d, len, &c) == 0);
	HPW_CHECK(strcmp(c.format, "JAVA PROFILE 1.0.2") == 0);
	HPW_CHECK_EQ(c.idsz, idsz);
	HPW_CHECK_EQ(c.timestamp, 1700000000123ull);
	HPW_CHECK_EQ(c.bad_records, 0);
	HPW_CHECK_EQ(c.unknown_subs, 0);
	for (i = 0; i < sizeof(want_tags) / sizeof(want_tags[0]); i++) {
		HPW_CHECK_EQ(c.tag[want_tags[i][0]], want_tags[i][1]);
		ntags += want_tags[i][1];
	}
	for (i = 0; i < sizeof(want_subs) / sizeof(want_subs[0]); i++) {
		HPW_CHECK_EQ(c.sub[want_subs[i][0]], want_subs[i][1]);
		nsubs += want_subs[i][1];
	}
	for (i = 0; i < 256; i++) {	/* and nothing else */
		ntags -= c.tag[i];
		nsubs -= c.sub[i];
	}
	HPW_CHECK_EQ(ntags, 0);
	HPW_CHECK_EQ(nsubs, 0);

	/* Foo's CLASS DUMP: tag, ids, cp (u2 u1 int), statics (int, object,
	 * double), fields (two of id + u1). */
	HPW_CHECK_EQ(foo_len, 1 + id + 4 + 6 * id + 4
		     + 2 + (2 + 1 + 4)
		     + 2 + (id + 1 + 4) + (id + 1 + id) + (id + 1 + 8)
		     + 2 + 2 * (id + 1));
	HPW_CHECK_EQ(d[foo_at], 0x20);
	HPW_CHECK_EQ(hpw_t_be(d + foo_at + 1, id), C_FOO);
	HPW_CHECK_EQ(hpw_t_be(d + foo_at + 1 + id + 4, id), C_OBJECT);
	/* instance size, then cp count 1, index 3, type int, 12345 */
	HPW_CHECK_EQ(hpw_t_be(d + foo_at + 1 + 7 * id + 4, 4), 4 + id);
	HPW_CHECK_EQ(hpw_t_be(d + foo_at + 1 + 7 * id + 8, 2), 1);
	HPW_CHECK_EQ(hpw_t_be(d + foo_at + 1 + 7 * id + 10, 2), 3);
	HPW_CHECK_EQ(d[foo_at + 1 + 7 * id + 12], HPW_T_INT);
	HPW_CHECK_EQ(hpw_t_be(d + foo_at + 1 + 7 * id + 13, 4), 12345);
	/* the file ends with HEAP DUMP END */
	HPW_CHECK(len >= 9 && memcmp(d + len - 9,
				     "\x2c\0\0\0\0\0\0\0\0", 9) == 0);

	/* the walker is not blind: a cut file and a wrong dump length fail */
	HPW_CHECK(hpw_t_walk(d, len - 1, &c) != 0);
	hpw_free(w);
	/* a ROOT UNKNOWN straddling two segments, built from raw bytes */
	w = hpw_new("JAVA PROFILE 1.0.2", idsz, 0);
	hpw_begin_dump(w, HPW_TAG_HEAP_DUMP_SEGMENT);
	hpw_u1(w, HPW_SUB_ROOT_UNKNOWN);
	hpw_u2(w, 0);
	hpw_end_dump(w);
	hpw_begin_dump(w, HPW_TAG_HEAP_DUMP_SEGMENT);
	hpw_bytes(w, "\0\0\0\0\0\0", id - 2);
	hpw_end_dump(w);
	d = hpw_data(w, &len);
	HPW_CHECK_EQ(len, 31 + 9 + 3 + 9 + id - 2);
	HPW_CHECK(hpw_t_walk(d, len, &c) != 0);
	HPW_CHECK_EQ(c.bad_records, 2);
	hpw_free(w);
}

/* ---- exact bytes ------------------------------------------------------- */

static void hpw_t_header(void)
{
	static const uint8_t want8[] = {
		'J', 'A', 'V', 'A', ' ', 'P', 'R', 'O', 'F', 'I', 'L', 'E', ' ',
		'1', '.', '0', '.', '2', 0,
		0, 0, 0, 8,
		0x00, 0x00, 0x01, 0x8C, 0xDE, 0xAD, 0xBE, 0xEF,
	};
	size_t len;
	hpw *w = hpw_new("JAVA PROFILE 1.0.2", 8, 0x0000018CDEADBEEFull);
	const uint8_t *d = hpw_data(w, &len);

	HPW_CHECK_EQ(len, sizeof(want8));
	HPW_CHECK(memcmp(d, want8, sizeof(want8)) == 0);
	HPW_CHECK_EQ(hpw_id_size(w), 8);
	hpw_free(w);

	w = hpw_new("JAVA PROFILE 1.0.3", 4, 1);
	d = hpw_data(w, &len);
	HPW_CHECK_EQ(len, 19 + 4 + 8);
	HPW_CHECK(memcmp(d, "JAVA PROFILE 1.0.3", 19) == 0);
	HPW_CHECK_EQ(hpw_t_be(d + 19, 4), 4);
	HPW_CHECK_EQ(hpw_t_be(d + 23, 4), 0);
	HPW_CHECK_EQ(hpw_t_be(d + 27, 4), 1);
	hpw_free(w);

	/* no header; an id size the format forbids still goes in verbatim */
	w = hpw_new(NULL, 4, 0);
	HPW_CHECK_EQ(hpw_len(w), 0);
	HPW_CHECK(hpw_data(w, NULL) != NULL);
	hpw_free(w);
	w = hpw_new("JAVA PROFILE 1.0.1", 3, 0);
	d = hpw_data(w, &len);
	HPW_CHECK_EQ(hpw_t_be(d + 19, 4), 3);
	hpw_id(w, 0xABCDEF);
	HPW_CHECK_EQ(hpw_len(w), 31 + 3);
	hpw_free(w);
}

static void hpw_t_records(void)
{
	static const uint8_t want_str[] = {
		0x01, 0, 0, 0, 0, 0, 0, 0, 7, 0x11, 0x22, 0x33, 0x44, 'F', 'o', 'o',
	};
	static const uint8_t want_lc[] = {
		0x02, 0, 0, 0, 0, 0, 0, 0, 16,
		0, 0, 0, 5, 0xC0, 0xFF, 0xEE, 0x01, 0, 0, 0, 9, 0, 0, 0, 0x2A,
	};
	static const uint8_t want_frame[] = {
		0x04, 0, 0, 0, 0, 0, 0, 0, 24,
		0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4,
		0, 0, 0, 5, 0xFF, 0xFF, 0xFF, 0xFE,
	};
	const struct hpw_site site = { 11, 1, 2, 3, 4, 5, 6 };
	size_t len, at;
	hpw *w = hpw_new(NULL, 4, 0);
	const uint8_t *d;

	/* a 4-byte id drops the high half */
	hpw_string(w, 0x9999999911223344ull, "Foo");
	d = hpw_data(w, &len);
	HPW_CHECK_EQ(len, sizeof(want_str));
	HPW_CHECK(memcmp(d, want_str, sizeof(want_str)) == 0);
	hpw_truncate(w, 0);

	hpw_load_class(w, 5, 0xC0FFEE01, 9, 42);
	d = hpw_data(w, &len);
	HPW_CHECK_EQ(len, sizeof(want_lc));
	HPW_CHECK(memcmp(d, want_lc, sizeof(want_lc)) == 0);
	hpw_truncate(w, 0);

	hpw_frame(w, 1, 2, 3, 4, 5, -2);
	d = hpw_data(w, &len);
	HPW_CHECK_EQ(len, sizeof(want_frame));
	HPW_CHECK(memcmp(d, want_frame, sizeof(want_frame)) == 0);
	hpw_truncate(w, 0);

	/* ALLOC SITES: 34 bytes before the sites, 25 per site; cutoff as bits */
	hpw_alloc_sites(w, 2, 1.0f, 1, 2, 3, 4, 1, &site);
	d = hpw_data(w, &len);
	HPW_CHECK_EQ(hpw_t_be(d + 5, 4), 34 + 25);
	HPW_CHECK_EQ(len, 9 + 34 + 25);
	HPW_CHECK_EQ(hpw_t_be(d + 9, 2), 2);
	HPW_CHECK_EQ(hpw_t_be(d + 11, 4), 0x3F800000);
	HPW_CHECK_EQ(hpw_t_be(d + 39, 4), 1);	/* site count */
	HPW_CHECK_EQ(d[43], 11);		/* is-array */
	HPW_CHECK_EQ(hpw_t_be(d + 64, 4), 6);	/* last u4 of the site */
	hpw_truncate(w, 0);

	hpw_control_settings(w, 2, 0x1234);
	d = hpw_data(w, &len);
	HPW_CHECK_EQ(len, 9 + 6);
	HPW_CHECK(memcmp(d, "\x0e\0\0\0\0\0\0\0\x06\0\0\0\x02\x12\x34", 15)
		  == 0);
	hpw_truncate(w, 0);

	hpw_dump_end(w);
	hpw_record(w, 0x99, "ab", 2);
	d = hpw_data(w, &len);
	HPW_CHECK_EQ(len, 9 + 11);
	HPW_CHECK(memcmp(d, "\x2c\0\0\0\0\0\0\0\0\x99\0\0\0\0\0\0\0\x02"
			 "ab", 20) == 0);
	hpw_truncate(w, 0);

	/* STACK TRACE with 8-byte ids: 12 + 8 * nframes */
	hpw_free(w);
	w = hpw_new(NULL, 8, 0);
	{
		const uint64_t f[3] = { 1, 2, 0x0102030405060708ull };

		hpw_trace(w, 7, 8, 3, f);
	}
	d = hpw_data(w, &len);
	HPW_CHECK_EQ(len, 9 + 12 + 24);
	HPW_CHECK_EQ(hpw_t_be(d + 5, 4), 36);
	HPW_CHECK_EQ(hpw_t_be(d + 17, 4), 3);
	HPW_CHECK_EQ(hpw_t_be(d + 37, 8), 0x0102030405060708ull);
	at = hpw_len(w);
	hpw_start_thread(w, 1, 2, 3, 4, 5, 6);
	HPW_CHECK_EQ(hpw_len(w) - at, 9 + 4 + 8 + 4 + 24);
	hpw_free(w);
}

static void hpw_t_dump_framing(void)
{
	size_t len, at, body_at;
	hpw *w = hpw_new("JAVA PROFILE 1.0.2", 8, 0);
	const uint8_t *d;
	uint8_t zero[4] = { 0 };

	at = hpw_len(w);
	hpw_begin_dump(w, HPW_TAG_HEAP_DUMP_SEGMENT);
	body_at = hpw_len(w);
	HPW_CHECK_EQ(body_at, at + 9);
	hpw_root_unknown(w, 1);			/* 1 + 8 */
	hpw_root_thread_object(w, 2, 3, 4);	/* 1 + 8 + 8 */
	hpw_end_dump(w);
	d = hpw_data(w, &len);
	HPW_CHECK_EQ(d[at], 0x1C);
	HPW_CHECK_EQ(hpw_t_be(d + at + 1, 4), 0);
	HPW_CHECK_EQ(hpw_t_be(d + at + 5, 4), 26);
	HPW_CHECK_EQ(len, body_at + 26);
	HPW_CHECK_EQ(d[body_at], 0xFF);
	HPW_CHECK_EQ(d[body_at + 9], 0x08);
	HPW_CHECK_EQ(hpw_t_be(d + body_at + 18, 4), 3);
	HPW_CHECK_EQ(hpw_t_be(d + body_at + 22, 4), 4);

	/* an overridden length is written as given */
	at = hpw_len(w);
	hpw_begin_dump(w, HPW_TAG_HEAP_DUMP);
	hpw_root_sticky_class(w, 5);
	hpw_end_dump_len(w, 1000);
	d = hpw_data(w, &len);
	HPW_CHECK_EQ(d[at], 0x0C);
	HPW_CHECK_EQ(hpw_t_be(d + at + 5, 4), 1000);
	HPW_CHECK_EQ(len, at + 9 + 9);

	/* instance builder: byte count patched, fields big-endian */
	at = hpw_len(w);
	hpw_instance_begin(w, 0x10, 0x20, 0x30);
	hpw_value(w, HPW_T_INT, 0x01020304);
	hpw_value(w, HPW_T_LONG, 0x1122334455667788ull);
	hpw_value(w, HPW_T_OBJECT, 0xAABB);
	hpw_value(w, HPW_T_BOOLEAN, 1);
	hpw_value(w, HPW_T_CHAR, 0x263A);
	hpw_value(w, HPW_T_SHORT, 0xFFFF);
	hpw_value(w, HPW_T_BYTE, 0x80);
	hpw_value(w, HPW_T_FLOAT, hpw_float_bits(1.0f));
	hpw_value(w, HPW_T_DOUBLE, hpw_double_bits(1.0));
	hpw_value(w, 99, 0x55);			/* unknown type: nothing */
	hpw_instance_end(w);
	d = hpw_data(w, &len);
	HPW_CHECK_EQ(d[at], 0x21);
	HPW_CHECK_EQ(hpw_t_be(d + at + 1, 8), 0x10);
	HPW_CHECK_EQ(hpw_t_be(d + at + 9, 4), 0x20);
	HPW_CHECK_EQ(hpw_t_be(d + at + 13, 8), 0x30);
	HPW_CHECK_EQ(hpw_t_be(d + at + 21, 4), 4 + 8 + 8 + 1 + 2 + 2 + 1 + 4 + 8);
	HPW_CHECK_EQ(len, at + 25 + 38);
	HPW_CHECK(memcmp(d + at + 25,
			 "\x01\x02\x03\x04"
			 "\x11\x22\x33\x44\x55\x66\x77\x88"
			 "\0\0\0\0\0\0\xAA\xBB"
			 "\x01" "\x26\x3A" "\xFF\xFF" "\x80"
			 "\x3F\x80\0\0"
			 "\x3F\xF0\0\0\0\0\0\0", 38) == 0);
	HPW_CHECK_EQ(hpw_type_size(w, HPW_T_OBJECT), 8);
	HPW_CHECK_EQ(hpw_type_size(w, 1), 0);

	/* instance with an overridden byte count, and a raw instance */
	at = hpw_len(w);
	hpw_instance_begin(w, 1, 2, 3);
	hpw_value(w, HPW_T_INT, 1);
	hpw_instance_end_len(w, 500);
	HPW_CHECK_EQ(hpw_t_be(hpw_data(w, NULL) + at + 21, 4), 500);
	HPW_CHECK_EQ(hpw_len(w), at + 25 + 4);
	at = hpw_len(w);
	hpw_instance(w, 1, 2, 3, zero, 4);
	HPW_CHECK_EQ(hpw_t_be(hpw_data(w, NULL) + at + 21, 4), 4);
	HPW_CHECK_EQ(hpw_len(w), at + 25 + 4);

	/* OBJECT ARRAY: id, trace, count, class, then elements */
	at = hpw_len(w);
	{
		const uint64_t e[2] = { 0x77, 0x88 };

		hpw_obj_array(w, 0x40, 1, 0x50, 2, e);
	}
	d = hpw_data(w, &len);
	HPW_CHECK_EQ(d[at], 0x22);
	HPW_CHECK_EQ(hpw_t_be(d + at + 13, 4), 2);
	HPW_CHECK_EQ(hpw_t_be(d + at + 17, 8), 0x50);
	HPW_CHECK_EQ(hpw_t_be(d + at + 33, 8), 0x88);
	HPW_CHECK_EQ(len, at + 25 + 16);

	/* PRIMITIVE ARRAY values and nodata: id, trace, count, type */
	at = hpw_len(w);
	{
		const uint64_t v[2] = { 0x0102, 0xFFFE };

		hpw_prim_array_values(w, 0x60, 1, HPW_T_SHORT, 2, v);
	}
	hpw_prim_array_nodata(w, 0x70, 1, HPW_T_LONG, 9);
	d = hpw_data(w, &len);
	HPW_CHECK_EQ(d[at], 0x23);
	HPW_CHECK_EQ(hpw_t_be(d + at + 13, 4), 2);
	HPW_CHECK_EQ(d[at + 17], HPW_T_SHORT);
	HPW_CHECK(memcmp(d + at + 18, "\x01\x02\xFF\xFE", 4) == 0);
	HPW_CHECK_EQ(d[at + 22], 0xC3);
	HPW_CHECK_EQ(hpw_t_be(d + at + 35, 4), 9);
	HPW_CHECK_EQ(d[at + 39], HPW_T_LONG);
	HPW_CHECK_EQ(len, at + 40);

	/* ART: heap info, JNI monitor */
	at = hpw_len(w);
	hpw_heap_info(w, 'Z', 0x99);
	hpw_root_jni_monitor(w, 1, 2, 3);
	d = hpw_data(w, &len);
	HPW_CHECK(memcmp(d + at, "\xFE\0\0\0\x5A\0\0\0\0\0\0\0\x99", 13) == 0);
	HPW_CHECK_EQ(d[at + 13], 0x8E);
	HPW_CHECK_EQ(len, at + 13 + 17);
	hpw_free(w);
}

static void hpw_t_truncate_patch(void)
{
	size_t len, full;
	hpw *w = hpw_new("JAVA PROFILE 1.0.2", 4, 0);
	const uint8_t *d;

	hpw_string(w, 1, "hello");
	full = hpw_len(w);
	hpw_truncate(w, full - 2);
	d = hpw_data(w, &len);
	HPW_CHECK_EQ(len, full - 2);
	HPW_CHECK(memcmp(d + 31 + 13, "hel", 3) == 0);
	HPW_CHECK_EQ(hpw_t_be(d + 31 + 5, 4), 9);	/* length kept */
	hpw_u2(w, 0x6C6F);
	d = hpw_data(w, &len);
	HPW_CHECK_EQ(len, full);
	HPW_CHECK(memcmp(d + 31 + 13, "hello", 5) == 0);

	hpw_patch_u4(w, 19, 3);
	hpw_patch_u1(w, 0, 'X');
	d = hpw_data(w, &len);
	HPW_CHECK_EQ(hpw_t_be(d + 19, 4), 3);
	HPW_CHECK_EQ(d[0], 'X');

	/* a dump whose start was cut off is forgotten: a new one may begin */
	hpw_begin_dump(w, HPW_TAG_HEAP_DUMP);
	hpw_truncate(w, full);
	hpw_begin_dump(w, HPW_TAG_HEAP_DUMP);
	hpw_end_dump(w);
	HPW_CHECK_EQ(hpw_len(w), full + 9);
	hpw_free(w);
}

/* ---- files and gzip --------------------------------------------------- */

static uint8_t *hpw_t_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL, *p;
	size_t cap = 0, n = 0, got;

	if (!f)
		return NULL;
	for (;;) {
		if (n == cap) {
			cap = cap ? 2 * cap : 4096;
			p = realloc(buf, cap);
			if (!p) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = p;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	fclose(f);
	*len = n;
	return buf;
}

/* Inflates concatenated gzip members; returns the member count (-1 on a
 * zlib error) and the output in *out. starts[] gets each member's offset. */
static int hpw_t_gunzip(const uint8_t *gz, size_t gzlen, uint8_t **out,
			size_t *out_len, size_t *starts, int max_starts)
{
	z_stream zs;
	uint8_t *buf = NULL, *p;
	size_t cap = 0, n = 0;
	int members = 0, rc = Z_OK;

	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, 15 + 16) != Z_OK)
		return -1;
	zs.next_in = (Bytef *)(uintptr_t)gz;
	zs.avail_in = (uInt)gzlen;
	while (zs.avail_in > 0) {
		if (members < max_starts)
			starts[members] = gzlen - zs.avail_in;
		do {
			if (n == cap) {
				cap = cap ? 2 * cap : 4096;
				p = realloc(buf, cap);
				if (!p)
					goto fail;
				buf = p;
			}
			zs.next_out = buf + n;
			zs.avail_out = (uInt)(cap - n);
			rc = inflate(&zs, Z_NO_FLUSH);
			n = cap - zs.avail_out;
			if (rc != Z_OK && rc != Z_STREAM_END &&
			    !(rc == Z_BUF_ERROR && zs.avail_out == 0))
				goto fail;
		} while (rc != Z_STREAM_END);
		members++;
		inflateReset(&zs);
	}
	inflateEnd(&zs);
	*out = buf;
	*out_len = n;
	return members;
fail:
	inflateEnd(&zs);
	free(buf);
	return -1;
}

static void hpw_t_gzip_case(const hpw *w, const char *path, int members,
			    const char *comment, int use_default)
{
	size_t len, gzlen = 0, outlen = 0, starts[64];
	const uint8_t *d = hpw_data(w, &len);
	uint8_t *gz, *out = NULL;
	char want_comment[64];
	int got, rc, i, expect = members < 1 ? 1 : members;

	if (use_default) {
		rc = hpw_write_gzip(w, path, members);
		snprintf(want_comment, sizeof(want_comment),
			 "HPROF BLOCKSIZE=%zu",
			 len / (size_t)expect + (len % (size_t)expect != 0));
		comment = want_comment;
	} else {
		rc = hpw_write_gzip_comment(w, path, members, comment);
	}
	HPW_CHECK_EQ(rc, 0);
	gz = hpw_t_slurp(path, &gzlen);
	HPW_CHECK(gz != NULL);
	if (!gz)
		return;
	got = hpw_t_gunzip(gz, gzlen, &out, &outlen, starts, 64);
	HPW_CHECK_EQ(got, expect);
	HPW_CHECK_EQ(outlen, len);
	HPW_CHECK(out && outlen == len && memcmp(out, d, len) == 0);
	/* each member starts with a gzip header; only the first has FCOMMENT */
	for (i = 0; i < got && i < 64; i++) {
		const uint8_t *m = gz + starts[i];

		HPW_CHECK(m[0] == 0x1F && m[1] == 0x8B && m[2] == 8);
		HPW_CHECK_EQ(m[3], (i == 0 && comment) ? 0x10 : 0);
	}
	if (comment)
		HPW_CHECK(gzlen > 10 + strlen(comment) &&
			  strcmp((const char *)gz + 10, comment) == 0);
	free(out);
	free(gz);

	/* zlib's own gz* reader sees the same bytes across members */
	{
		gzFile g = gzopen(path, "rb");
		uint8_t *buf = malloc(len + 16);
		int nread = -1;

		if (g && buf) {
			nread = gzread(g, buf, (unsigned)len + 16);
			HPW_CHECK_EQ(nread, len);
			HPW_CHECK(nread >= 0 && memcmp(buf, d, len) == 0);
		} else {
			HPW_CHECK(g != NULL && buf != NULL);
		}
		if (g)
			gzclose(g);
		free(buf);
	}

	/* the in-memory form is what was written */
	gz = hpw_gzip(w, members, comment, &gzlen);
	{
		size_t flen = 0;
		uint8_t *f = hpw_t_slurp(path, &flen);

		HPW_CHECK(gz && f && flen == gzlen &&
			  memcmp(gz, f, gzlen) == 0);
		free(f);
	}
	free(gz);
}

static void hpw_t_files(const char *dir)
{
	char path[512], gzpath[512];	/* dir is < 256 bytes */
	size_t len, flen = 0, foo_at, foo_len;
	hpw *w = hpw_t_build(8, &foo_at, &foo_len);
	const uint8_t *d = hpw_data(w, &len);
	uint8_t *f;
	hpw *tiny;

	snprintf(path, sizeof(path), "%s/full.hprof", dir);
	snprintf(gzpath, sizeof(gzpath), "%s/full.hprof.gz", dir);
	HPW_CHECK_EQ(hpw_write_file(w, path), 0);
	f = hpw_t_slurp(path, &flen);
	HPW_CHECK(f && flen == len && memcmp(f, d, len) == 0);
	free(f);

	hpw_t_gzip_case(w, gzpath, 3, NULL, 1);
	hpw_t_gzip_case(w, gzpath, 1, NULL, 1);
	hpw_t_gzip_case(w, gzpath, 0, NULL, 1);
	hpw_t_gzip_case(w, gzpath, 7, NULL, 0);
	hpw_t_gzip_case(w, gzpath, 2, "anything", 0);
	hpw_free(w);

	/* more members than bytes: some members are empty */
	tiny = hpw_new("JAVA PROFILE 1.0.2", 4, 0);
	hpw_t_gzip_case(tiny, gzpath, 40, NULL, 1);
	hpw_free(tiny);
	tiny = hpw_new(NULL, 4, 0);
	hpw_t_gzip_case(tiny, gzpath, 2, NULL, 1);
	HPW_CHECK_EQ(hpw_write_file(tiny, path), 0);
	f = hpw_t_slurp(path, &flen);
	HPW_CHECK(f && flen == 0);
	free(f);
	hpw_free(tiny);

	snprintf(path, sizeof(path), "%s/no/such/dir/x.hprof", dir);
	tiny = hpw_new(NULL, 4, 0);
	HPW_CHECK_EQ(hpw_write_file(tiny, path), -1);
	HPW_CHECK_EQ(hpw_write_gzip(tiny, path, 2), -1);
	hpw_free(tiny);

	snprintf(path, sizeof(path), "%s/full.hprof", dir);
	unlink(path);
	unlink(gzpath);
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		fprintf(stderr, "usage: test_hpw (no arguments)\n");
		return 2;
	}
	const char *tmp = getenv("TMPDIR");
	char dir[256];
	int n;

	hpw_t_header();
	hpw_t_records();
	hpw_t_dump_framing();
	hpw_t_truncate_patch();
	hpw_t_full(4);
	hpw_t_full(8);

	n = snprintf(dir, sizeof(dir), "%s/test_hpw.XXXXXX",
		     tmp && *tmp ? tmp : "/tmp");
	if (n > 0 && (size_t)n < sizeof(dir) && mkdtemp(dir)) {
		hpw_t_files(dir);
		rmdir(dir);
	} else {
		perror("test_hpw: mkdtemp");
		hpw_t_failed++;
	}

	printf("%d passed, %d failed\n", hpw_t_passed, hpw_t_failed);
	return hpw_t_failed != 0;
}
