/*
 * mkseeds — writes the seed corpus of the fuzz targets (tests/fuzz/corpus/)
 * from small dumps built byte by byte with tests/helper/hpw: a HotSpot-like
 * dump with 4- and 8-byte ids, an Android (1.0.3) one with heaps and 0xC3
 * arrays, one with a HEAP DUMP (0x0C) record, and the same as gzip with one
 * and several members.  The must-fail files come from
 * `test_parser --write-bad` and are copied into corpus/scanner by hand.
 *
 *   cc -std=c11 -D_GNU_SOURCE -Itests -o /tmp/mkseeds tests/fuzz/mkseeds.c \
 *      tests/helper/hpw.c -lz && /tmp/mkseeds tests/fuzz/corpus
 */
#include "helper/hpw.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { S_OBJ = 1, S_CLS, S_STR, S_BA, S_NODE, S_WEAK, S_NEXT, S_VAL, S_REF, S_NAME, S_MAIN,
       S_RUN, S_SIG, S_SRC, S_COUNT, S_OA, S_HEAP, S_REFERENT, S_THREAD, S_INTS };

/* ids: classes 0x100.., objects 0x1000.. (8-aligned) */
#define C_OBJ 0x100
#define C_CLS 0x108
#define C_STR 0x110
#define C_BA 0x118
#define C_NODE 0x120
#define C_WEAK 0x128
#define C_OA 0x130
#define C_THREAD 0x138
#define C_INTS 0x140

static void strings(hpw *w)
{
	static const char *const s[] = { "", "java/lang/Object", "java/lang/Class", "java/lang/String",
		"[B", "app/Node", "java/lang/ref/WeakReference", "next", "value", "ref", "name",
		"main", "run", "()V", "Node.java", "count", "[Ljava/lang/Object;", "heap",
		"referent", "java/lang/Thread", "[I" };
	for (unsigned i = 1; i < sizeof s / sizeof s[0]; i++)
		hpw_string(w, i, s[i]);
	hpw_string_n(w, 99, "bad \xc0\x80 \xed\xa0\x80", 9);
}

static void top_records(hpw *w)
{
	strings(w);
	static const uint64_t cls[] = { C_OBJ, C_CLS, C_STR, C_BA, C_NODE, C_WEAK, C_OA, C_THREAD, C_INTS };
	static const uint64_t nm[] = { S_OBJ, S_CLS, S_STR, S_BA, S_NODE, S_WEAK, S_OA, S_THREAD, S_INTS };
	for (unsigned i = 0; i < 9; i++)
		hpw_load_class(w, i + 1, cls[i], 1, nm[i]);
	hpw_frame(w, 0x50, S_RUN, S_SIG, S_SRC, 5, 12);
	hpw_frame(w, 0x58, S_MAIN, S_SIG, S_SRC, 5, -3);
	uint64_t fr[] = { 0x50, 0x58 };
	hpw_trace(w, 1, 1, 2, fr);
	hpw_trace(w, 2, 0, 0, NULL);
	hpw_start_thread(w, 1, 0x2000, 1, S_MAIN, S_MAIN, 0);
	hpw_heap_summary(w, 100, 10, 200, 20);
	hpw_control_settings(w, 3, 8);
}

static void class_dump(hpw *w, uint64_t id, uint64_t super, uint32_t isize,
		       uint16_t nf, const struct hpw_instance_field *f, uint16_t ns,
		       const struct hpw_static_field *s)
{
	struct hpw_class c;
	memset(&c, 0, sizeof c);
	c.class_id = id;
	c.trace_serial = 1;
	c.super_id = super;
	c.instance_size = isize;
	c.nfields = nf;
	c.fields = f;
	c.nstatics = ns;
	c.statics = s;
	hpw_class_dump(w, &c);
}

static void sub_records(hpw *w, int android)
{
	unsigned I = (unsigned)hpw_id_size(w);
	if (android)
		hpw_heap_info(w, 'A', S_HEAP);
	class_dump(w, C_OBJ, 0, 0, 0, NULL, 0, NULL);
	class_dump(w, C_CLS, C_OBJ, 0, 0, NULL, 0, NULL);
	struct hpw_instance_field sf[] = { { S_VAL, HPW_T_OBJECT }, { S_COUNT, HPW_T_INT } };
	class_dump(w, C_STR, C_OBJ, I + 4, 2, sf, 0, NULL);
	class_dump(w, C_BA, C_OBJ, 0, 0, NULL, 0, NULL);
	class_dump(w, C_OA, C_OBJ, 0, 0, NULL, 0, NULL);
	class_dump(w, C_INTS, C_OBJ, 0, 0, NULL, 0, NULL);
	struct hpw_instance_field nf[] = { { S_NEXT, HPW_T_OBJECT }, { S_NAME, HPW_T_OBJECT },
		{ S_COUNT, HPW_T_LONG }, { S_VAL, HPW_T_BYTE } };
	struct hpw_static_field st[] = { { S_COUNT, HPW_T_INT, 7 }, { S_REF, HPW_T_OBJECT, 0x1000 },
		{ S_VAL, HPW_T_DOUBLE, 0 } };
	class_dump(w, C_NODE, C_OBJ, 2 * I + 9, 4, nf, 3, st);
	struct hpw_instance_field wf[] = { { S_REFERENT, HPW_T_OBJECT } };
	class_dump(w, C_WEAK, C_OBJ, I, 1, wf, 0, NULL);
	class_dump(w, C_THREAD, C_OBJ, 0, 0, NULL, 0, NULL);
	/* a chain of nodes 0x1000 -> 0x1010 -> 0x1020, each naming a string */
	for (int k = 0; k < 3; k++) {
		hpw_instance_begin(w, 0x1000 + 0x10 * k, 1, C_NODE);
		hpw_id(w, k < 2 ? 0x1000 + 0x10 * (k + 1) : 0);
		hpw_id(w, 0x1100 + 0x20 * k);
		hpw_value(w, HPW_T_LONG, (uint64_t)k);
		hpw_value(w, HPW_T_BYTE, 1);
		hpw_instance_end(w);
		hpw_instance_begin(w, 0x1100 + 0x20 * k, 1, C_STR);
		hpw_id(w, 0x1200 + 0x20 * k);
		hpw_value(w, HPW_T_INT, 0);
		hpw_instance_end(w);
		hpw_prim_array(w, 0x1200 + 0x20 * k, 1, HPW_T_BYTE, 3 + k, "abcdef", 3 + k);
	}
	hpw_instance_begin(w, 0x1300, 1, C_WEAK);
	hpw_id(w, 0x1010);
	hpw_instance_end(w);
	uint64_t els[] = { 0x1000, 0, 0x1300, 0xdead0 };
	hpw_obj_array(w, 0x1400, 1, C_OA, 4, els);
	uint64_t iv[] = { 1, 2, 3, 0xffffffff };
	hpw_prim_array_values(w, 0x1500, 1, HPW_T_INT, 4, iv);
	hpw_prim_array_values(w, 0x1510, 1, HPW_T_LONG, 2, iv);
	hpw_prim_array_values(w, 0x1520, 1, HPW_T_CHAR, 3, iv);
	hpw_instance(w, 0x2000, 1, C_THREAD, NULL, 0);
	if (android) {
		hpw_heap_info(w, 'Z', S_NAME);
		hpw_prim_array_nodata(w, 0x1600, 1, HPW_T_SHORT, 100);
		hpw_root_interned_string(w, 0x1100);
		hpw_root_finalizing(w, 0x1300);
		hpw_root_debugger(w, 0x1600);
		hpw_root_reference_cleanup(w, 0x1300);
		hpw_root_vm_internal(w, C_NODE);
		hpw_root_jni_monitor(w, 0x1400, 1, 2);
		hpw_root_unreachable(w, 0x1510);
	}
	hpw_root_unknown(w, 0x1520);
	hpw_root_jni_global(w, 0x1400, 0x77);
	hpw_root_jni_local(w, 0x1100, 1, 0);
	hpw_root_java_frame(w, 0x1000, 1, 1);
	hpw_root_native_stack(w, 0x1500, 1);
	hpw_root_sticky_class(w, C_CLS);
	hpw_root_thread_block(w, 0x1120, 1);
	hpw_root_monitor_used(w, 0x1200);
	hpw_root_thread_object(w, 0x2000, 1, 1);
}

static hpw *dump(int id_size, int android, int whole_record)
{
	hpw *w = hpw_new(android ? "JAVA PROFILE 1.0.3" : "JAVA PROFILE 1.0.2", id_size, 1700000000000ull);
	top_records(w);
	hpw_begin_dump(w, whole_record ? HPW_TAG_HEAP_DUMP : HPW_TAG_HEAP_DUMP_SEGMENT);
	sub_records(w, android);
	hpw_end_dump(w);
	if (!whole_record)
		hpw_dump_end(w);
	return w;
}

static void put(const char *dir, const char *sub, const char *name, const void *p, size_t n)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", dir, sub);
	mkdir(path, 0777);
	snprintf(path, sizeof path, "%s/%s/%s", dir, sub, name);
	FILE *f = fopen(path, "wb");
	if (!f || (n && fwrite(p, 1, n, f) != n) || fclose(f)) {
		perror(path);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: mkseeds DIR\n");
		return 2;
	}
	const char *dir = argv[1];
	mkdir(dir, 0777);
	static const struct { const char *name; int id, android, whole; } v[] = {
		{ "hotspot4", 4, 0, 0 }, { "hotspot8", 8, 0, 0 }, { "android4", 4, 1, 0 },
		{ "heapdump8", 8, 0, 1 },
	};
	for (unsigned i = 0; i < sizeof v / sizeof v[0]; i++) {
		hpw *w = dump(v[i].id, v[i].android, v[i].whole);
		size_t n;
		const uint8_t *d = hpw_data(w, &n);
		char name[64];
		snprintf(name, sizeof name, "%s.hprof", v[i].name);
		put(dir, "scanner", name, d, n);
		put(dir, "pipeline", name, d, n);
		/* gzip: the .gz itself, and the raw form the target gzips (byte 0: members-1) */
		size_t gn;
		uint8_t *gz = hpw_gzip(w, i + 1, "HPROF BLOCKSIZE=1", &gn);
		snprintf(name, sizeof name, "%s.hprof.gz", v[i].name);
		put(dir, "gzip", name, gz, gn);
		free(gz);
		uint8_t *raw = malloc(n + 1);
		raw[0] = (uint8_t)i;
		memcpy(raw + 1, d, n);
		snprintf(name, sizeof name, "%s.raw", v[i].name);
		put(dir, "gzip", name, raw, n + 1);
		free(raw);
		hpw_free(w);
		/* sub-records alone, for fuzz_subrecord: flag byte, then the body */
		hpw *s = hpw_new(NULL, v[i].id, 0);
		hpw_u1(s, (uint8_t)((v[i].id == 8) | (v[i].android << 1)));
		sub_records(s, v[i].android);
		d = hpw_data(s, &n);
		snprintf(name, sizeof name, "%s.sub", v[i].name);
		put(dir, "subrecord", name, d, n);
		hpw_free(s);
	}
	return 0;
}
