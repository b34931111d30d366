/* hpw — byte-by-byte HPROF writer for tests; see hpw.h. */
#include "hpw.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define HPW_NONE ((size_t)-1)

struct hpw {
	uint8_t *buf;
	size_t len, cap;
	int id_size;
	size_t dump_start;	/* offset of the open dump's length field */
	size_t inst_start;	/* offset of the open instance's byte count */
};

static void hpw_die(const char *fmt, ...)
{
	va_list ap;

	fputs("hpw: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

static void hpw_reserve(hpw *w, size_t n)
{
	size_t cap;
	uint8_t *p;

	if (n <= w->cap - w->len)
		return;
	if (n > SIZE_MAX / 2 - w->len)
		hpw_die("buffer too large");
	cap = w->cap ? w->cap : 256;
	while (cap - w->len < n)
		cap *= 2;
	p = realloc(w->buf, cap);
	if (!p)
		hpw_die("out of memory (%zu bytes)", cap);
	w->buf = p;
	w->cap = cap;
}

static void hpw_put_be(uint8_t *p, uint64_t v, size_t n)
{
	while (n--) {
		p[n] = (uint8_t)v;
		v >>= 8;
	}
}

static void hpw_be(hpw *w, uint64_t v, size_t n)
{
	hpw_reserve(w, n);
	hpw_put_be(w->buf + w->len, v, n);
	w->len += n;
}

/* ---- lifecycle and output ---------------------------------------------- */

hpw *hpw_new(const char *format, int id_size, uint64_t timestamp_ms)
{
	hpw *w = calloc(1, sizeof(*w));

	if (!w)
		hpw_die("out of memory");
	w->id_size = id_size;
	w->dump_start = HPW_NONE;
	w->inst_start = HPW_NONE;
	if (format) {
		hpw_bytes(w, format, strlen(format) + 1);
		hpw_u4(w, (uint32_t)id_size);
		hpw_u8(w, timestamp_ms);
	}
	return w;
}

void hpw_free(hpw *w)
{
	if (!w)
		return;
	free(w->buf);
	free(w);
}

int hpw_id_size(const hpw *w)
{
	return w->id_size;
}

size_t hpw_len(const hpw *w)
{
	return w->len;
}

const uint8_t *hpw_data(const hpw *w, size_t *len)
{
	static const uint8_t empty[1];

	if (len)
		*len = w->len;
	return w->buf ? w->buf : empty;
}

static int hpw_write_bytes(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	int saved;

	if (!f)
		return -1;
	if (n && fwrite(p, 1, n, f) != n) {
		saved = errno ? errno : EIO;
		fclose(f);
		errno = saved;
		return -1;
	}
	if (fclose(f) != 0)
		return -1;
	return 0;
}

int hpw_write_file(const hpw *w, const char *path)
{
	return hpw_write_bytes(path, w->buf, w->len);
}

/* Append one gzip member holding in[0..n) to *out. */
static int hpw_gzip_member(const uint8_t *in, size_t n, const char *comment,
			   uint8_t **out, size_t *out_len, size_t *out_cap)
{
	z_stream zs;
	gz_header head;
	char *cbuf = NULL;
	size_t need;
	uint8_t *p;
	int rc;

	memset(&zs, 0, sizeof(zs));
	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	memset(&head, 0, sizeof(head));
	head.os = 3;	/* Unix; time stays 0 so output is reproducible */
	if (comment) {
		cbuf = strdup(comment);
		if (!cbuf)
			hpw_die("out of memory");
		head.comment = (Bytef *)cbuf;
	}
	if (deflateSetHeader(&zs, &head) != Z_OK) {
		deflateEnd(&zs);
		free(cbuf);
		return -1;
	}
	need = deflateBound(&zs, (uLong)n) + (comment ? strlen(comment) + 1 : 0)
	       + 64;
	if (need > *out_cap - *out_len) {
		size_t cap = *out_len + need;

		p = realloc(*out, cap);
		if (!p)
			hpw_die("out of memory");
		*out = p;
		*out_cap = cap;
	}
	zs.next_in = (Bytef *)(uintptr_t)in;	/* zlib does not write input */
	zs.avail_in = (uInt)n;
	zs.next_out = *out + *out_len;
	zs.avail_out = (uInt)(*out_cap - *out_len);
	rc = deflate(&zs, Z_FINISH);
	*out_len += zs.total_out;
	deflateEnd(&zs);
	free(cbuf);
	return rc == Z_STREAM_END ? 0 : -1;
}

uint8_t *hpw_gzip(const hpw *w, int members, const char *comment,
		  size_t *out_len)
{
	const uint8_t *base = hpw_data(w, NULL);
	uint8_t *out = NULL;
	size_t len = 0, cap = 0;
	int i;

	if (members < 1)
		members = 1;
	for (i = 0; i < members; i++) {
		size_t a = (size_t)i * w->len / (size_t)members;
		size_t b = (size_t)(i + 1) * w->len / (size_t)members;

		if (hpw_gzip_member(base + a, b - a,
				    i == 0 ? comment : NULL, &out, &len,
				    &cap) != 0) {
			free(out);
			return NULL;
		}
	}
	*out_len = len;
	return out;
}

int hpw_write_gzip_comment(const hpw *w, const char *path, int members,
			   const char *comment)
{
	size_t n;
	uint8_t *gz = hpw_gzip(w, members, comment, &n);
	int rc, saved;

	if (!gz) {
		errno = EIO;
		return -1;
	}
	rc = hpw_write_bytes(path, gz, n);
	saved = errno;
	free(gz);
	errno = saved;
	return rc;
}

int hpw_write_gzip(const hpw *w, const char *path, int members)
{
	char comment[64];
	size_t block;

	if (members < 1)
		members = 1;
	/* the largest member: the ceiling of len / members */
	block = w->len / (size_t)members + (w->len % (size_t)members != 0);
	snprintf(comment, sizeof(comment), "HPROF BLOCKSIZE=%zu", block);
	return hpw_write_gzip_comment(w, path, members, comment);
}

/* ---- raw bytes ------------------------------------------------------------ */

void hpw_u1(hpw *w, uint8_t v)
{
	hpw_be(w, v, 1);
}

void hpw_u2(hpw *w, uint16_t v)
{
	hpw_be(w, v, 2);
}

void hpw_u4(hpw *w, uint32_t v)
{
	hpw_be(w, v, 4);
}

void hpw_u8(hpw *w, uint64_t v)
{
	hpw_be(w, v, 8);
}

void hpw_id(hpw *w, uint64_t id)
{
	if (w->id_size < 0 || w->id_size > 8)
		hpw_die("hpw_id: id size %d unsupported", w->id_size);
	hpw_be(w, id, (size_t)w->id_size);
}

void hpw_bytes(hpw *w, const void *p, size_t n)
{
	if (!n)
		return;
	hpw_reserve(w, n);
	memcpy(w->buf + w->len, p, n);
	w->len += n;
}

void hpw_patch_u1(hpw *w, size_t offset, uint8_t v)
{
	if (offset >= w->len)
		hpw_die("hpw_patch_u1: offset %zu past end %zu", offset, w->len);
	w->buf[offset] = v;
}

void hpw_patch_u4(hpw *w, size_t offset, uint32_t v)
{
	if (offset > w->len || w->len - offset < 4)
		hpw_die("hpw_patch_u4: offset %zu past end %zu", offset, w->len);
	hpw_put_be(w->buf + offset, v, 4);
}

void hpw_truncate(hpw *w, size_t new_len)
{
	if (new_len > w->len)
		hpw_die("hpw_truncate: %zu is past end %zu", new_len, w->len);
	w->len = new_len;
	if (w->dump_start != HPW_NONE && w->dump_start + 4 > new_len)
		w->dump_start = HPW_NONE;
	if (w->inst_start != HPW_NONE && w->inst_start + 4 > new_len)
		w->inst_start = HPW_NONE;
}

size_t hpw_type_size(const hpw *w, uint8_t type)
{
	switch (type) {
	case HPW_T_OBJECT:
		return w->id_size > 0 ? (size_t)w->id_size : 0;
	case HPW_T_BOOLEAN:
	case HPW_T_BYTE:
		return 1;
	case HPW_T_CHAR:
	case HPW_T_SHORT:
		return 2;
	case HPW_T_FLOAT:
	case HPW_T_INT:
		return 4;
	case HPW_T_DOUBLE:
	case HPW_T_LONG:
		return 8;
	default:
		return 0;
	}
}

void hpw_value(hpw *w, uint8_t type, uint64_t v)
{
	if (type == HPW_T_OBJECT)
		hpw_id(w, v);
	else
		hpw_be(w, v, hpw_type_size(w, type));
}

uint64_t hpw_float_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

uint64_t hpw_double_bits(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return u;
}

/* ---- top-level records ---------------------------------------------------- */

/* Header of a record whose length is patched by hpw_rec_end(); returns the
 * offset of the length field. */
static size_t hpw_rec_begin(hpw *w, uint8_t tag)
{
	size_t at;

	hpw_u1(w, tag);
	hpw_u4(w, 0);
	at = w->len;
	hpw_u4(w, 0);
	return at;
}

static void hpw_rec_end(hpw *w, size_t at)
{
	size_t body = w->len - at - 4;

	if (body > UINT32_MAX)
		hpw_die("record body of %zu bytes does not fit a u4", body);
	hpw_put_be(w->buf + at, body, 4);
}

void hpw_record(hpw *w, uint8_t tag, const void *body, uint32_t len)
{
	hpw_u1(w, tag);
	hpw_u4(w, 0);
	hpw_u4(w, len);
	hpw_bytes(w, body, len);
}

void hpw_string(hpw *w, uint64_t id, const char *text)
{
	size_t n = strlen(text);

	if (n > UINT32_MAX)
		hpw_die("string too long");
	hpw_string_n(w, id, text, (uint32_t)n);
}

void hpw_string_n(hpw *w, uint64_t id, const void *bytes, uint32_t len)
{
	size_t at = hpw_rec_begin(w, HPW_TAG_STRING);

	hpw_id(w, id);
	hpw_bytes(w, bytes, len);
	hpw_rec_end(w, at);
}

void hpw_load_class(hpw *w, uint32_t serial, uint64_t class_id,
		    uint32_t trace_serial, uint64_t name_sid)
{
	size_t at = hpw_rec_begin(w, HPW_TAG_LOAD_CLASS);

	hpw_u4(w, serial);
	hpw_id(w, class_id);
	hpw_u4(w, trace_serial);
	hpw_id(w, name_sid);
	hpw_rec_end(w, at);
}

void hpw_unload_class(hpw *w, uint32_t serial)
{
	size_t at = hpw_rec_begin(w, HPW_TAG_UNLOAD_CLASS);

	hpw_u4(w, serial);
	hpw_rec_end(w, at);
}

void hpw_frame(hpw *w, uint64_t frame_id, uint64_t method_sid,
	       uint64_t sig_sid, uint64_t source_sid, uint32_t class_serial,
	       int32_t line)
{
	size_t at = hpw_rec_begin(w, HPW_TAG_FRAME);

	hpw_id(w, frame_id);
	hpw_id(w, method_sid);
	hpw_id(w, sig_sid);
	hpw_id(w, source_sid);
	hpw_u4(w, class_serial);
	hpw_u4(w, (uint32_t)line);
	hpw_rec_end(w, at);
}

void hpw_trace(hpw *w, uint32_t serial, uint32_t thread_serial,
	       uint32_t nframes, const uint64_t *frame_ids)
{
	size_t at = hpw_rec_begin(w, HPW_TAG_TRACE);
	uint32_t i;

	hpw_u4(w, serial);
	hpw_u4(w, thread_serial);
	hpw_u4(w, nframes);
	for (i = 0; i < nframes; i++)
		hpw_id(w, frame_ids[i]);
	hpw_rec_end(w, at);
}

void hpw_alloc_sites(hpw *w, uint16_t flags, float cutoff,
		     uint32_t live_bytes, uint32_t live_instances,
		     uint64_t bytes_allocated, uint64_t instances_allocated,
		     uint32_t nsites, const struct hpw_site *sites)
{
	size_t at = hpw_rec_begin(w, HPW_TAG_ALLOC_SITES);
	uint32_t i;

	hpw_u2(w, flags);
	hpw_u4(w, (uint32_t)hpw_float_bits(cutoff));
	hpw_u4(w, live_bytes);
	hpw_u4(w, live_instances);
	hpw_u8(w, bytes_allocated);
	hpw_u8(w, instances_allocated);
	hpw_u4(w, nsites);
	for (i = 0; i < nsites; i++) {
		const struct hpw_site *s = &sites[i];

		hpw_u1(w, s->is_array);
		hpw_u4(w, s->class_serial);
		hpw_u4(w, s->trace_serial);
		hpw_u4(w, s->live_bytes);
		hpw_u4(w, s->live_instances);
		hpw_u4(w, s->bytes_allocated);
		hpw_u4(w, s->instances_allocated);
	}
	hpw_rec_end(w, at);
}

void hpw_heap_summary(hpw *w, uint32_t live_bytes, uint32_t live_instances,
		      uint64_t bytes_allocated, uint64_t instances_allocated)
{
	size_t at = hpw_rec_begin(w, HPW_TAG_HEAP_SUMMARY);

	hpw_u4(w, live_bytes);
	hpw_u4(w, live_instances);
	hpw_u8(w, bytes_allocated);
	hpw_u8(w, instances_allocated);
	hpw_rec_end(w, at);
}

void hpw_start_thread(hpw *w, uint32_t serial, uint64_t thread_id,
		      uint32_t trace_serial, uint64_t name_sid,
		      uint64_t group_sid, uint64_t parent_group_sid)
{
	size_t at = hpw_rec_begin(w, HPW_TAG_START_THREAD);

	hpw_u4(w, serial);
	hpw_id(w, thread_id);
	hpw_u4(w, trace_serial);
	hpw_id(w, name_sid);
	hpw_id(w, group_sid);
	hpw_id(w, parent_group_sid);
	hpw_rec_end(w, at);
}

void hpw_end_thread(hpw *w, uint32_t serial)
{
	size_t at = hpw_rec_begin(w, HPW_TAG_END_THREAD);

	hpw_u4(w, serial);
	hpw_rec_end(w, at);
}

void hpw_cpu_samples(hpw *w, uint32_t total, uint32_t ntraces,
		     const struct hpw_sample *samples)
{
	size_t at = hpw_rec_begin(w, HPW_TAG_CPU_SAMPLES);
	uint32_t i;

	hpw_u4(w, total);
	hpw_u4(w, ntraces);
	for (i = 0; i < ntraces; i++) {
		hpw_u4(w, samples[i].samples);
		hpw_u4(w, samples[i].trace_serial);
	}
	hpw_rec_end(w, at);
}

void hpw_control_settings(hpw *w, uint32_t flags, uint16_t depth)
{
	size_t at = hpw_rec_begin(w, HPW_TAG_CONTROL_SETTINGS);

	hpw_u4(w, flags);
	hpw_u2(w, depth);
	hpw_rec_end(w, at);
}

/* ---- heap dump framing ---------------------------------------------------- */

void hpw_begin_dump(hpw *w, uint8_t tag)
{
	if (w->dump_start != HPW_NONE)
		hpw_die("hpw_begin_dump: a dump is already open");
	w->dump_start = hpw_rec_begin(w, tag);
}

void hpw_end_dump(hpw *w)
{
	if (w->dump_start == HPW_NONE)
		hpw_die("hpw_end_dump: no dump is open");
	hpw_rec_end(w, w->dump_start);
	w->dump_start = HPW_NONE;
}

void hpw_end_dump_len(hpw *w, uint32_t len)
{
	if (w->dump_start == HPW_NONE)
		hpw_die("hpw_end_dump_len: no dump is open");
	hpw_put_be(w->buf + w->dump_start, len, 4);
	w->dump_start = HPW_NONE;
}

void hpw_dump_end(hpw *w)
{
	hpw_record(w, HPW_TAG_HEAP_DUMP_END, NULL, 0);
}

/* ---- heap-dump sub-records ------------------------------------------------ */

void hpw_root_id(hpw *w, uint8_t subtag, uint64_t id)
{
	hpw_u1(w, subtag);
	hpw_id(w, id);
}

void hpw_root_unknown(hpw *w, uint64_t id)
{
	hpw_root_id(w, HPW_SUB_ROOT_UNKNOWN, id);
}

void hpw_root_jni_global(hpw *w, uint64_t id, uint64_t ref_id)
{
	hpw_root_id(w, HPW_SUB_ROOT_JNI_GLOBAL, id);
	hpw_id(w, ref_id);
}

void hpw_root_jni_local(hpw *w, uint64_t id, uint32_t thread_serial,
			uint32_t frame)
{
	hpw_root_id(w, HPW_SUB_ROOT_JNI_LOCAL, id);
	hpw_u4(w, thread_serial);
	hpw_u4(w, frame);
}

void hpw_root_java_frame(hpw *w, uint64_t id, uint32_t thread_serial,
			 uint32_t frame)
{
	hpw_root_id(w, HPW_SUB_ROOT_JAVA_FRAME, id);
	hpw_u4(w, thread_serial);
	hpw_u4(w, frame);
}

void hpw_root_native_stack(hpw *w, uint64_t id, uint32_t thread_serial)
{
	hpw_root_id(w, HPW_SUB_ROOT_NATIVE_STACK, id);
	hpw_u4(w, thread_serial);
}

void hpw_root_sticky_class(hpw *w, uint64_t id)
{
	hpw_root_id(w, HPW_SUB_ROOT_STICKY_CLASS, id);
}

void hpw_root_thread_block(hpw *w, uint64_t id, uint32_t thread_serial)
{
	hpw_root_id(w, HPW_SUB_ROOT_THREAD_BLOCK, id);
	hpw_u4(w, thread_serial);
}

void hpw_root_monitor_used(hpw *w, uint64_t id)
{
	hpw_root_id(w, HPW_SUB_ROOT_MONITOR_USED, id);
}

void hpw_root_thread_object(hpw *w, uint64_t id, uint32_t thread_serial,
			    uint32_t trace_serial)
{
	hpw_root_id(w, HPW_SUB_ROOT_THREAD_OBJECT, id);
	hpw_u4(w, thread_serial);
	hpw_u4(w, trace_serial);
}

void hpw_root_interned_string(hpw *w, uint64_t id)
{
	hpw_root_id(w, HPW_SUB_ROOT_INTERNED_STRING, id);
}

void hpw_root_finalizing(hpw *w, uint64_t id)
{
	hpw_root_id(w, HPW_SUB_ROOT_FINALIZING, id);
}

void hpw_root_debugger(hpw *w, uint64_t id)
{
	hpw_root_id(w, HPW_SUB_ROOT_DEBUGGER, id);
}

void hpw_root_reference_cleanup(hpw *w, uint64_t id)
{
	hpw_root_id(w, HPW_SUB_ROOT_REFERENCE_CLEANUP, id);
}

void hpw_root_vm_internal(hpw *w, uint64_t id)
{
	hpw_root_id(w, HPW_SUB_ROOT_VM_INTERNAL, id);
}

void hpw_root_jni_monitor(hpw *w, uint64_t id, uint32_t thread_serial,
			  uint32_t stack_depth)
{
	hpw_root_id(w, HPW_SUB_ROOT_JNI_MONITOR, id);
	hpw_u4(w, thread_serial);
	hpw_u4(w, stack_depth);
}

void hpw_root_unreachable(hpw *w, uint64_t id)
{
	hpw_root_id(w, HPW_SUB_ROOT_UNREACHABLE, id);
}

void hpw_heap_info(hpw *w, uint32_t heap_id, uint64_t name_sid)
{
	hpw_u1(w, HPW_SUB_HEAP_DUMP_INFO);
	hpw_u4(w, heap_id);
	hpw_id(w, name_sid);
}

void hpw_class_dump(hpw *w, const struct hpw_class *c)
{
	uint16_t i;

	hpw_u1(w, HPW_SUB_CLASS_DUMP);
	hpw_id(w, c->class_id);
	hpw_u4(w, c->trace_serial);
	hpw_id(w, c->super_id);
	hpw_id(w, c->loader_id);
	hpw_id(w, c->signers_id);
	hpw_id(w, c->domain_id);
	hpw_id(w, 0);
	hpw_id(w, 0);
	hpw_u4(w, c->instance_size);
	hpw_u2(w, c->ncp);
	for (i = 0; i < c->ncp; i++) {
		hpw_u2(w, c->cp[i].index);
		hpw_u1(w, c->cp[i].type);
		hpw_value(w, c->cp[i].type, c->cp[i].value);
	}
	hpw_u2(w, c->nstatics);
	for (i = 0; i < c->nstatics; i++) {
		hpw_id(w, c->statics[i].name_sid);
		hpw_u1(w, c->statics[i].type);
		hpw_value(w, c->statics[i].type, c->statics[i].value);
	}
	hpw_u2(w, c->nfields);
	for (i = 0; i < c->nfields; i++) {
		hpw_id(w, c->fields[i].name_sid);
		hpw_u1(w, c->fields[i].type);
	}
}

void hpw_instance(hpw *w, uint64_t id, uint32_t trace_serial,
		  uint64_t class_id, const void *fields, uint32_t len)
{
	hpw_u1(w, HPW_SUB_INSTANCE_DUMP);
	hpw_id(w, id);
	hpw_u4(w, trace_serial);
	hpw_id(w, class_id);
	hpw_u4(w, len);
	hpw_bytes(w, fields, len);
}

void hpw_instance_begin(hpw *w, uint64_t id, uint32_t trace_serial,
			uint64_t class_id)
{
	if (w->inst_start != HPW_NONE)
		hpw_die("hpw_instance_begin: an instance is already open");
	hpw_u1(w, HPW_SUB_INSTANCE_DUMP);
	hpw_id(w, id);
	hpw_u4(w, trace_serial);
	hpw_id(w, class_id);
	w->inst_start = w->len;
	hpw_u4(w, 0);
}

void hpw_instance_end(hpw *w)
{
	size_t n;

	if (w->inst_start == HPW_NONE)
		hpw_die("hpw_instance_end: no instance is open");
	n = w->len - w->inst_start - 4;
	if (n > UINT32_MAX)
		hpw_die("instance of %zu bytes does not fit a u4", n);
	hpw_put_be(w->buf + w->inst_start, n, 4);
	w->inst_start = HPW_NONE;
}

void hpw_instance_end_len(hpw *w, uint32_t len)
{
	if (w->inst_start == HPW_NONE)
		hpw_die("hpw_instance_end_len: no instance is open");
	hpw_put_be(w->buf + w->inst_start, len, 4);
	w->inst_start = HPW_NONE;
}

void hpw_obj_array(hpw *w, uint64_t id, uint32_t trace_serial,
		   uint64_t class_id, uint32_t count, const uint64_t *ids)
{
	uint32_t i;

	hpw_u1(w, HPW_SUB_OBJ_ARRAY_DUMP);
	hpw_id(w, id);
	hpw_u4(w, trace_serial);
	hpw_u4(w, count);
	hpw_id(w, class_id);
	for (i = 0; i < count; i++)
		hpw_id(w, ids[i]);
}

static void hpw_prim_head(hpw *w, uint8_t subtag, uint64_t id,
			  uint32_t trace_serial, uint8_t type, uint32_t count)
{
	hpw_u1(w, subtag);
	hpw_id(w, id);
	hpw_u4(w, trace_serial);
	hpw_u4(w, count);
	hpw_u1(w, type);
}

void hpw_prim_array(hpw *w, uint64_t id, uint32_t trace_serial, uint8_t type,
		    uint32_t count, const void *data, size_t nbytes)
{
	hpw_prim_head(w, HPW_SUB_PRIM_ARRAY_DUMP, id, trace_serial, type, count);
	hpw_bytes(w, data, nbytes);
}

void hpw_prim_array_values(hpw *w, uint64_t id, uint32_t trace_serial,
			   uint8_t type, uint32_t count, const uint64_t *vals)
{
	uint32_t i;

	hpw_prim_head(w, HPW_SUB_PRIM_ARRAY_DUMP, id, trace_serial, type, count);
	for (i = 0; i < count; i++)
		hpw_value(w, type, vals[i]);
}

void hpw_prim_array_nodata(hpw *w, uint64_t id, uint32_t trace_serial,
			   uint8_t type, uint32_t count)
{
	hpw_prim_head(w, HPW_SUB_PRIM_ARRAY_NODATA, id, trace_serial, type,
		      count);
}
