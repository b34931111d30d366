/*
 * fuzz_mapping — R8/ProGuard mapping files (model/mapping.h): the input is
 * a mapping.txt, read both from memory (hp_mapping_parse) and from a file
 * (hp_mapping_read, whose line reader has its own buffer), and when it
 * parses, applied to a small dump built here whose names are short and
 * obfuscated-looking (classes a.b, a.b$c, their arrays, fields a and b of
 * both types, frames with and without lines, signatures naming them), so
 * that mutated mappings reach the renaming of classes, fields and frames.
 */
#include "fuzz.h"
#include "helper/hpw.h"
#include "model/heap.h"
#include "model/mapping.h"

#define MAX_INPUT (256u << 10)

/* the dump: classes a.b (fields a: object, a: int, b: int; static c),
 * a.b$c (field b), a.b$1, [La/b;, [[La/b$c;, x.Y; one instance of each;
 * a thread's stack of frames of a.b and a.b$c */
static uint8_t *dump(size_t *n)
{
	hpw *w = hpw_new(NULL, 4, 0);
	if (!w)
		return NULL;
	static const char *const strs[] = { "java/lang/Object", "a/b", "a/b$c", "a/b$1", "[La/b;", "[[La/b$c;", "x/Y",
					    "a", "b", "c", "(La/b;[La/b$c;)V", "()V", "SourceFile", "Y.kt" };
	for (size_t i = 0; i < sizeof strs / sizeof *strs; i++)
		hpw_string(w, 0x100 + 8 * i, strs[i]);
	for (uint32_t k = 0; k < 7; k++)
		hpw_load_class(w, k + 1, 0x1000 + 0x10 * k, 0, 0x100 + 8 * k);
	/* frames: a.b.a line 2, a.b.a line 5, a.b.b no line, a.b$c.a, x.Y.b native */
	static const struct { uint32_t cls; uint64_t m, sig, src; int32_t line; } fr[] = {
		{ 2, 0x138, 0x150, 0x160, 2 }, { 2, 0x138, 0x158, 0x160, 5 }, { 2, 0x140, 0x158, 0x160, 0 },
		{ 3, 0x138, 0x150, 0x168, 7 }, { 7, 0x140, 0x158, 0, -3 },
	};
	uint64_t ids[5];
	for (size_t i = 0; i < 5; i++) {
		ids[i] = 0x3000 + 8 * i;
		hpw_frame(w, ids[i], fr[i].m, fr[i].sig, fr[i].src, fr[i].cls, fr[i].line);
	}
	hpw_trace(w, 1, 1, 5, ids);
	hpw_begin_dump(w, 0x1C);
	struct hpw_class c = { 0 };
	c.class_id = 0x1000;
	hpw_class_dump(w, &c);
	struct hpw_instance_field fb[] = { { 0x138, HP_T_OBJECT }, { 0x138, HP_T_INT }, { 0x140, HP_T_INT } };
	struct hpw_static_field sb[] = { { 0x148, HP_T_OBJECT, 0 } };
	c.class_id = 0x1010, c.super_id = 0x1000, c.instance_size = 12;
	c.nfields = 3, c.fields = fb, c.nstatics = 1, c.statics = sb;
	hpw_class_dump(w, &c);
	struct hpw_instance_field fc[] = { { 0x140, HP_T_OBJECT } };
	memset(&c, 0, sizeof c);
	c.class_id = 0x1020, c.super_id = 0x1000, c.instance_size = 4, c.nfields = 1, c.fields = fc;
	hpw_class_dump(w, &c);
	memset(&c, 0, sizeof c);
	c.class_id = 0x1030, c.super_id = 0x1000;
	hpw_class_dump(w, &c);
	c.class_id = 0x1060;
	hpw_class_dump(w, &c);
	static const uint8_t zero[12];
	hpw_instance(w, 0x2000, 0, 0x1010, zero, 12);
	hpw_instance(w, 0x2010, 0, 0x1020, zero, 4);
	hpw_instance(w, 0x2020, 0, 0x1030, NULL, 0);
	hpw_instance(w, 0x2030, 0, 0x1060, NULL, 0);
	uint64_t one = 0x2000;
	hpw_obj_array(w, 0x2040, 0, 0x1040, 1, &one);
	hpw_obj_array(w, 0x2050, 0, 0x1050, 0, NULL);
	hpw_root_java_frame(w, 0x2000, 1, 0);
	hpw_end_dump(w);
	hpw_dump_end(w);
	size_t len;
	const uint8_t *d = hpw_data(w, &len);
	uint8_t *out = malloc(len);
	if (out)
		memcpy(out, d, len);
	*n = len;
	hpw_free(w);
	return out;
}

static void touch_names(const hp_heap *h)
{
	for (size_t k = 0; k < h->nclasses; k++) {
		const char *s = hp_class_name(h, k);
		fuzz_touch((const uint8_t *)s, strlen(s) + 1);
	}
	uint32_t len;
	for (size_t i = 0; i < h->nfields; i++) {
		const char *s = hp_heap_string(h, h->fields[i].name_sid, &len);
		fuzz_touch((const uint8_t *)s, s ? len + 1 : 0);
	}
	for (size_t i = 0; i < h->nframes; i++) {
		const struct hp_frame *f = &h->frames[i];
		uint64_t sids[3] = { f->method_sid, f->signature_sid, f->source_sid };
		for (int j = 0; j < 3; j++) {
			const char *s = hp_heap_string(h, sids[j], &len);
			fuzz_touch((const uint8_t *)s, s ? len + 1 : 0);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > MAX_INPUT)
		return 0;
	struct hp_error err;
	hp_error_clear(&err);
	size_t line;
	hp_mapping *m = NULL, *m2 = NULL;
	int rc = hp_mapping_parse(&m, (const char *)data, size, &line, &err);
	/* the file reader agrees with the one in memory */
	char path[64];
	int fd = fuzz_memfile(data, size, path, sizeof path);
	if (fd >= 0) {
		size_t line2;
		int rc2 = hp_mapping_read(&m2, path, &line2, &err);
		if (rc2 != rc || (rc && line2 != line))
			abort();
		hp_mapping_free(m2);
		close(fd);
	}
	if (rc)
		return 0;
	size_t n;
	uint8_t *d = dump(&n);
	fd = d ? fuzz_memfile(d, n, path, sizeof path) : -1;
	free(d);
	hp_reader *r = NULL;
	if (fd >= 0 && hp_reader_open(&r, path, &err) == HP_OK) {
		struct hp_heap_opts ho;
		hp_heap_opts_init(&ho);
		ho.build_objects = 1;
		hp_heap *h = hp_heap_new(&ho);
		if (h) {
			struct hp_sink sink;
			hp_heap_sink(h, &sink);
			struct hp_parse_opts po;
			hp_parse_opts_init(&po);
			struct hp_stats st;
			memset(&st, 0, sizeof st);
			struct hp_mapping_stats ms;
			if (hp_parse(r, &sink, &po, &st, &err) == HP_OK && hp_heap_finish(h, &err) == HP_OK &&
			    hp_mapping_apply(m, h, &ms, &err) == HP_OK)
				touch_names(h);
			hp_stats_release(&st);
			hp_heap_free(h);
		}
		hp_reader_free(r);
	}
	if (fd >= 0)
		close(fd);
	hp_mapping_free(m);
	return 0;
}
