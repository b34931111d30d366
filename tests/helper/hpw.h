/*
 * hpw — a byte-by-byte HPROF writer for tests.
 *
 * Builds an HPROF file in a growable in-memory buffer, exactly as the caller
 * asks, so tests can make both well-formed dumps (every record and sub-record
 * kind of docs/hprof-format.md, 4- or 8-byte ids, HotSpot 1.0.1/1.0.2 and ART
 * 1.0.3 flavours) and broken ones (wrong lengths, truncation, stray bytes).
 * Nothing is checked against the format: the writer emits what it is told.
 *
 * Layout: all integers big-endian. Header = NUL-terminated format string,
 * u4 id size, u8 timestamp. Record = u1 tag, u4 time delta (always 0),
 * u4 body length, body. Top-level record functions compute their own length;
 * a heap dump (0x0C) or segment (0x1C) is opened with hpw_begin_dump() and its
 * length is patched by hpw_end_dump() (or set to any value by
 * hpw_end_dump_len()). Sub-records are written into whatever is open.
 *
 * Ids are written as the low id_size bytes of a uint64_t (high bits of a value
 * too large for a 4-byte id are dropped silently).
 *
 * Errors: out of memory and API misuse (ending a dump that was never begun,
 * ...) print "hpw: ..." to stderr and abort(): this is a test helper, a
 * failure here is a broken test. Only the file writers return errors.
 *
 * Ownership: the buffer belongs to the writer; hpw_data()'s pointer is valid
 * until the next write, hpw_truncate() or hpw_free(). Everything passed in
 * (strings, arrays, descriptor structs) is copied and may be freed after the
 * call. hpw_gzip() returns a malloc'd buffer the caller frees.
 *
 * Memory: one buffer, grown by doubling. No global state.
 */
#ifndef HPW_H
#define HPW_H

#include <stddef.h>
#include <stdint.h>

typedef struct hpw hpw;

/* Top-level record tags. */
enum {
	HPW_TAG_STRING = 0x01,
	HPW_TAG_LOAD_CLASS = 0x02,
	HPW_TAG_UNLOAD_CLASS = 0x03,
	HPW_TAG_FRAME = 0x04,
	HPW_TAG_TRACE = 0x05,
	HPW_TAG_ALLOC_SITES = 0x06,
	HPW_TAG_HEAP_SUMMARY = 0x07,
	HPW_TAG_START_THREAD = 0x0A,
	HPW_TAG_END_THREAD = 0x0B,
	HPW_TAG_HEAP_DUMP = 0x0C,
	HPW_TAG_CPU_SAMPLES = 0x0D,
	HPW_TAG_CONTROL_SETTINGS = 0x0E,
	HPW_TAG_HEAP_DUMP_SEGMENT = 0x1C,
	HPW_TAG_HEAP_DUMP_END = 0x2C,
};

/* Heap-dump sub-record tags. */
enum {
	HPW_SUB_ROOT_UNKNOWN = 0xFF,
	HPW_SUB_ROOT_JNI_GLOBAL = 0x01,
	HPW_SUB_ROOT_JNI_LOCAL = 0x02,
	HPW_SUB_ROOT_JAVA_FRAME = 0x03,
	HPW_SUB_ROOT_NATIVE_STACK = 0x04,
	HPW_SUB_ROOT_STICKY_CLASS = 0x05,
	HPW_SUB_ROOT_THREAD_BLOCK = 0x06,
	HPW_SUB_ROOT_MONITOR_USED = 0x07,
	HPW_SUB_ROOT_THREAD_OBJECT = 0x08,
	HPW_SUB_CLASS_DUMP = 0x20,
	HPW_SUB_INSTANCE_DUMP = 0x21,
	HPW_SUB_OBJ_ARRAY_DUMP = 0x22,
	HPW_SUB_PRIM_ARRAY_DUMP = 0x23,
	/* Android ART (1.0.3) */
	HPW_SUB_ROOT_INTERNED_STRING = 0x89,
	HPW_SUB_ROOT_FINALIZING = 0x8A,
	HPW_SUB_ROOT_DEBUGGER = 0x8B,
	HPW_SUB_ROOT_REFERENCE_CLEANUP = 0x8C,
	HPW_SUB_ROOT_VM_INTERNAL = 0x8D,
	HPW_SUB_ROOT_JNI_MONITOR = 0x8E,
	HPW_SUB_ROOT_UNREACHABLE = 0x90,
	HPW_SUB_PRIM_ARRAY_NODATA = 0xC3,
	HPW_SUB_HEAP_DUMP_INFO = 0xFE,
};

/* Basic types. */
enum {
	HPW_T_OBJECT = 2,
	HPW_T_BOOLEAN = 4,
	HPW_T_CHAR = 5,
	HPW_T_FLOAT = 6,
	HPW_T_DOUBLE = 7,
	HPW_T_BYTE = 8,
	HPW_T_SHORT = 9,
	HPW_T_INT = 10,
	HPW_T_LONG = 11,
};

/* ---- lifecycle and output ---------------------------------------------- */

/* A new writer with the header already written. format NULL writes no header
 * at all (build a hand-made one with the primitive emitters); id_size is used
 * by hpw_id() and written verbatim in the header, so any value can be put
 * there, but hpw_id() only supports 1..8 (0 writes nothing, >8 aborts). */
hpw *hpw_new(const char *format, int id_size, uint64_t timestamp_ms);
void hpw_free(hpw *w);

int hpw_id_size(const hpw *w);
/* Bytes written so far (the offset the next byte will land at). */
size_t hpw_len(const hpw *w);
const uint8_t *hpw_data(const hpw *w, size_t *len);

/* Write the bytes as they are. 0 on success, -1 with errno set. */
int hpw_write_file(const hpw *w, const char *path);

/* Gzip the bytes as `members` concatenated gzip members (members < 1 means
 * 1), the way `jcmd GC.heap_dump -gz=N` does: member i holds bytes
 * [i*len/members, (i+1)*len/members) (empty members when len < members), and
 * the first member's header carries the FCOMMENT "HPROF BLOCKSIZE=<n>" with n
 * the largest member's uncompressed size, as HotSpot writes it.
 * 0 on success, -1 with errno set (EIO for a zlib failure). */
int hpw_write_gzip(const hpw *w, const char *path, int members);
/* Same with the first member's comment chosen: NULL for no comment at all. */
int hpw_write_gzip_comment(const hpw *w, const char *path, int members,
			   const char *comment);
/* The gzip bytes in memory (malloc'd, caller frees); NULL on zlib failure. */
uint8_t *hpw_gzip(const hpw *w, int members, const char *comment,
		  size_t *out_len);

/* ---- raw bytes ------------------------------------------------------------ */

void hpw_u1(hpw *w, uint8_t v);
void hpw_u2(hpw *w, uint16_t v);
void hpw_u4(hpw *w, uint32_t v);
void hpw_u8(hpw *w, uint64_t v);
void hpw_id(hpw *w, uint64_t id);
void hpw_bytes(hpw *w, const void *p, size_t n);

/* Overwrite bytes already written (offset + size must be <= hpw_len()). */
void hpw_patch_u1(hpw *w, size_t offset, uint8_t v);
void hpw_patch_u4(hpw *w, size_t offset, uint32_t v);

/* Shrink the buffer to new_len bytes (must be <= hpw_len()). Later writes
 * append after it. A dump or instance left open is forgotten if its
 * start was cut off. */
void hpw_truncate(hpw *w, size_t new_len);

/* Size in the dump of a value of basic type `type` (HPW_T_OBJECT is the id
 * size); 0 for an unknown type code. */
size_t hpw_type_size(const hpw *w, uint8_t type);
/* A value of basic type `type`, big-endian, hpw_type_size() bytes: the low
 * bytes of v. For float/double pass the bits (hpw_float_bits()). Unknown
 * types write nothing. */
void hpw_value(hpw *w, uint8_t type, uint64_t v);
uint64_t hpw_float_bits(float f);
uint64_t hpw_double_bits(double d);

/* ---- top-level records ---------------------------------------------------- */

/* Any record: tag, delta 0, len, body. */
void hpw_record(hpw *w, uint8_t tag, const void *body, uint32_t len);

/* 0x01: text without its NUL; hpw_string_n for bytes with NULs or invalid
 * (modified) UTF-8. */
void hpw_string(hpw *w, uint64_t id, const char *text);
void hpw_string_n(hpw *w, uint64_t id, const void *bytes, uint32_t len);
/* 0x02 */
void hpw_load_class(hpw *w, uint32_t serial, uint64_t class_id,
		    uint32_t trace_serial, uint64_t name_sid);
/* 0x03 */
void hpw_unload_class(hpw *w, uint32_t serial);
/* 0x04; line: >0 line, 0 none, -1 unknown, -2 compiled, -3 native */
void hpw_frame(hpw *w, uint64_t frame_id, uint64_t method_sid,
	       uint64_t sig_sid, uint64_t source_sid, uint32_t class_serial,
	       int32_t line);
/* 0x05; frame_ids may be NULL when nframes is 0 */
void hpw_trace(hpw *w, uint32_t serial, uint32_t thread_serial,
	       uint32_t nframes, const uint64_t *frame_ids);

struct hpw_site {
	uint8_t is_array;	/* 0 normal, else a basic type */
	uint32_t class_serial;
	uint32_t trace_serial;
	uint32_t live_bytes;
	uint32_t live_instances;
	uint32_t bytes_allocated;
	uint32_t instances_allocated;
};
/* 0x06; sites may be NULL when nsites is 0; cutoff is written as float bits */
void hpw_alloc_sites(hpw *w, uint16_t flags, float cutoff,
		     uint32_t live_bytes, uint32_t live_instances,
		     uint64_t bytes_allocated, uint64_t instances_allocated,
		     uint32_t nsites, const struct hpw_site *sites);
/* 0x07 */
void hpw_heap_summary(hpw *w, uint32_t live_bytes, uint32_t live_instances,
		      uint64_t bytes_allocated, uint64_t instances_allocated);
/* 0x0A */
void hpw_start_thread(hpw *w, uint32_t serial, uint64_t thread_id,
		      uint32_t trace_serial, uint64_t name_sid,
		      uint64_t group_sid, uint64_t parent_group_sid);
/* 0x0B */
void hpw_end_thread(hpw *w, uint32_t serial);

struct hpw_sample {
	uint32_t samples;
	uint32_t trace_serial;
};
/* 0x0D; samples may be NULL when ntraces is 0 */
void hpw_cpu_samples(hpw *w, uint32_t total, uint32_t ntraces,
		     const struct hpw_sample *samples);
/* 0x0E; flags bit 0 alloc traces, bit 1 cpu sampling */
void hpw_control_settings(hpw *w, uint32_t flags, uint16_t depth);

/* ---- heap dump framing ---------------------------------------------------- */

/* Open a HEAP DUMP (0x0C) or HEAP DUMP SEGMENT (0x1C) record (any tag is
 * accepted). Only one may be open at a time. */
void hpw_begin_dump(hpw *w, uint8_t tag);
/* Close it, patching its length to the bytes written since the begin. */
void hpw_end_dump(hpw *w);
/* Close it, patching its length to `len` whatever was written (for corrupt
 * files: a length that overruns the file or ends mid sub-record). */
void hpw_end_dump_len(hpw *w, uint32_t len);
/* A HEAP DUMP END (0x2C) record with an empty body. Not to be confused with
 * hpw_end_dump(), which closes a dump record. */
void hpw_dump_end(hpw *w);

/* ---- heap-dump sub-records ------------------------------------------------ */

/* GC roots. hpw_root_id() writes any root whose body is a lone ID (0xFF,
 * 0x05, 0x07, 0x89-0x8D, 0x90); the named wrappers below call it. */
void hpw_root_id(hpw *w, uint8_t subtag, uint64_t id);
void hpw_root_unknown(hpw *w, uint64_t id);
void hpw_root_jni_global(hpw *w, uint64_t id, uint64_t ref_id);
void hpw_root_jni_local(hpw *w, uint64_t id, uint32_t thread_serial,
			uint32_t frame);
void hpw_root_java_frame(hpw *w, uint64_t id, uint32_t thread_serial,
			 uint32_t frame);
void hpw_root_native_stack(hpw *w, uint64_t id, uint32_t thread_serial);
void hpw_root_sticky_class(hpw *w, uint64_t id);
void hpw_root_thread_block(hpw *w, uint64_t id, uint32_t thread_serial);
void hpw_root_monitor_used(hpw *w, uint64_t id);
void hpw_root_thread_object(hpw *w, uint64_t id, uint32_t thread_serial,
			    uint32_t trace_serial);
void hpw_root_interned_string(hpw *w, uint64_t id);
void hpw_root_finalizing(hpw *w, uint64_t id);
void hpw_root_debugger(hpw *w, uint64_t id);
void hpw_root_reference_cleanup(hpw *w, uint64_t id);
void hpw_root_vm_internal(hpw *w, uint64_t id);
void hpw_root_jni_monitor(hpw *w, uint64_t id, uint32_t thread_serial,
			  uint32_t stack_depth);
void hpw_root_unreachable(hpw *w, uint64_t id);

/* 0xFE (ART): the heap the following sub-records belong to. */
void hpw_heap_info(hpw *w, uint32_t heap_id, uint64_t name_sid);

struct hpw_cp_entry {
	uint16_t index;
	uint8_t type;
	uint64_t value;		/* as for hpw_value() */
};
struct hpw_static_field {
	uint64_t name_sid;
	uint8_t type;
	uint64_t value;		/* as for hpw_value() */
};
struct hpw_instance_field {
	uint64_t name_sid;
	uint8_t type;
};
/* A CLASS DUMP. Array pointers may be NULL when their count is 0.
 * instance_size is written as given: HotSpot puts there the field bytes of
 * an instance, this class's fields and all its super classes'. */
struct hpw_class {
	uint64_t class_id;
	uint32_t trace_serial;
	uint64_t super_id;
	uint64_t loader_id;
	uint64_t signers_id;
	uint64_t domain_id;
	uint32_t instance_size;
	uint16_t ncp;
	const struct hpw_cp_entry *cp;
	uint16_t nstatics;
	const struct hpw_static_field *statics;
	uint16_t nfields;
	const struct hpw_instance_field *fields;
};
/* 0x20; the two reserved ids are written as 0. */
void hpw_class_dump(hpw *w, const struct hpw_class *c);

/* 0x21 with `len` raw field bytes (already big-endian) and byte count len. */
void hpw_instance(hpw *w, uint64_t id, uint32_t trace_serial,
		  uint64_t class_id, const void *fields, uint32_t len);
/* 0x21 built field by field: begin, then hpw_value() per field (this class's
 * fields in declared order, then the super class's, ...), then end, which
 * patches the byte count to what was written (or to `len` with _end_len).
 * Only one instance may be open at a time; it may be inside a dump. */
void hpw_instance_begin(hpw *w, uint64_t id, uint32_t trace_serial,
			uint64_t class_id);
void hpw_instance_end(hpw *w);
void hpw_instance_end_len(hpw *w, uint32_t len);

/* 0x22; ids may be NULL when count is 0 */
void hpw_obj_array(hpw *w, uint64_t id, uint32_t trace_serial,
		   uint64_t class_id, uint32_t count, const uint64_t *ids);
/* 0x23 with `nbytes` raw element bytes (already big-endian); nbytes need not
 * match count * type size, so claims that overrun can be built. */
void hpw_prim_array(hpw *w, uint64_t id, uint32_t trace_serial, uint8_t type,
		    uint32_t count, const void *data, size_t nbytes);
/* 0x23 with each element written by hpw_value(type, vals[i]). */
void hpw_prim_array_values(hpw *w, uint64_t id, uint32_t trace_serial,
			   uint8_t type, uint32_t count, const uint64_t *vals);
/* 0xC3 (ART): header only, no element bytes. */
void hpw_prim_array_nodata(hpw *w, uint64_t id, uint32_t trace_serial,
			   uint8_t type, uint32_t count);

#endif
