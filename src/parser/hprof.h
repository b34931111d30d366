/*
 * hprof.h — the streaming tag-dispatch parser.
 *
 * hp_parse() walks every top-level record and every heap-dump sub-record of
 * the input once, in file order, and hands each to a sink: a struct of
 * callbacks (any may be NULL).  Nothing is kept between callbacks: a command
 * that only counts can stream a dump of any size in constant memory, and the
 * model builder (src/model/) is just one more sink.
 *
 * Every length read from the file is checked against what remains of its
 * record before it is used; an inconsistent record stops the parse with
 * HP_ECORRUPT, a file that ends inside a record with HP_ETRUNC, both with the
 * byte offset, record number and tag in the error.  Everything delivered to
 * the sink before that point is whole, so a caller can salvage it.
 *
 * Pointers passed to callbacks point into the reader's window and are valid
 * only during the callback.  Cost: O(bytes) time, O(1) memory beyond the
 * reader's window and the dump table.
 */
#ifndef HP_HPROF_H
#define HP_HPROF_H

#include <stdint.h>
#include <stddef.h>
#include "base/error.h"
#include "parser/reader.h"

/* basic types (hprof codes) */
enum {
	HP_T_OBJECT = 2, HP_T_BOOLEAN = 4, HP_T_CHAR = 5, HP_T_FLOAT = 6, HP_T_DOUBLE = 7,
	HP_T_BYTE = 8, HP_T_SHORT = 9, HP_T_INT = 10, HP_T_LONG = 11
};
/* size of a basic type's value in the dump (objects: id size); 0 if invalid */
unsigned hp_type_size(unsigned type, unsigned id_size);
const char *hp_type_name(unsigned type);   /* "byte", "int", ...; NULL if invalid */

enum hp_root_kind {
	HP_ROOT_UNKNOWN, HP_ROOT_JNI_GLOBAL, HP_ROOT_JNI_LOCAL, HP_ROOT_JAVA_FRAME,
	HP_ROOT_NATIVE_STACK, HP_ROOT_STICKY_CLASS, HP_ROOT_THREAD_BLOCK,
	HP_ROOT_MONITOR_USED, HP_ROOT_THREAD_OBJECT, HP_ROOT_INTERNED_STRING,
	HP_ROOT_FINALIZING, HP_ROOT_DEBUGGER, HP_ROOT_REFERENCE_CLEANUP,
	HP_ROOT_VM_INTERNAL, HP_ROOT_JNI_MONITOR, HP_ROOT_UNREACHABLE,
	HP_ROOT_NKINDS
};
/* Roots that hold an object for a thread, on its stack: JAVA FRAME, JNI
 * LOCAL, NATIVE STACK, THREAD BLOCK (a thread retains them under Eclipse
 * MAT's rule).  THREAD OBJECT and JNI MONITOR also name a thread, but are
 * not its locals. */
static inline int hp_root_thread_local(int kind)
{
	return kind == HP_ROOT_JAVA_FRAME || kind == HP_ROOT_JNI_LOCAL || kind == HP_ROOT_NATIVE_STACK ||
	       kind == HP_ROOT_THREAD_BLOCK;
}
const char *hp_root_kind_name(int kind);   /* "JNI global", "Java frame", ... */
const char *hp_root_kind_key(int kind);    /* "jni_global", "java_frame", ... */

struct hp_header {
	char format[24];          /* "JAVA PROFILE 1.0.2" */
	int version;              /* 1, 2 or 3 for 1.0.1/1.0.2/1.0.3 */
	unsigned id_size;         /* 4 or 8 */
	uint64_t timestamp_ms;
	uint64_t length;          /* header bytes */
};

struct hp_frame {
	uint64_t id, method_sid, signature_sid, source_sid;
	uint32_t class_serial;
	int32_t line;
};

struct hp_thread {
	uint32_t serial, trace_serial;
	uint64_t object_id, name_sid, group_sid, parent_group_sid;
};

/* The JDK hprof agent's summary records (ALLOC SITES, HEAP SUMMARY, CPU
 * SAMPLES), as written.  An ALLOC SITES or CPU SAMPLES record's entries
 * come raw (25 and 8 bytes each), at most HP_AGENT_ENTRIES_MAX of them
 * (the callback gets how many the record declares and how many come);
 * hp_alloc_site_decode() and hp_cpu_sample_decode() read one. */
#define HP_AGENT_ENTRIES_MAX (1u << 20)
struct hp_alloc_sites_hdr {
	uint16_t flags;           /* 0x1 incremental, 0x2 sorted by allocation, 0x4 GC forced */
	uint32_t cutoff_bits;     /* the cutoff ratio, an IEEE float's bits */
	uint32_t live_bytes, live_instances;
	uint64_t bytes_allocated, instances_allocated;
	uint32_t nsites;
};
struct hp_alloc_site {
	uint8_t is_array;         /* 0 an instance, else the basic type */
	uint32_t class_serial, trace_serial;
	uint32_t live_bytes, live_instances, bytes_allocated, instances_allocated;
};
struct hp_heap_summary {
	uint32_t live_bytes, live_instances;
	uint64_t bytes_allocated, instances_allocated;
};
struct hp_cpu_sample { uint32_t samples, trace_serial; };

struct hp_root {
	int kind;                 /* enum hp_root_kind */
	uint64_t object;
	uint64_t jni_ref;         /* JNI GLOBAL only */
	uint32_t thread_serial;   /* JNI LOCAL, JAVA FRAME, NATIVE STACK, THREAD BLOCK, THREAD OBJECT, JNI MONITOR */
	uint32_t frame;           /* JNI LOCAL/JAVA FRAME: frame number (-1 none); THREAD OBJECT: trace serial; JNI MONITOR: depth */
	int has_thread;
	uint64_t offset;
};

struct hp_class_dump {
	uint64_t id, super_id, loader_id, signers_id, protection_domain_id;
	uint32_t trace_serial, instance_size;
	uint16_t n_statics, n_fields;
	const uint8_t *statics;   /* n_statics × (ID name sid, u1 type, value) */
	uint32_t statics_len;
	const uint8_t *fields;    /* n_fields × (ID name sid, u1 type) */
	uint64_t offset;
};

/* an instance or array sub-record as the object thread queues it (the
 * sink's objects call): its tag is the top byte of off */
struct hp_objrec {
	uint64_t id;
	uint64_t cid;             /* the class object's id; PRIMITIVE ARRAY DUMP: its element type */
	uint64_t off;             /* the sub-record's offset, | tag << 56 */
	uint32_t serial, n;       /* stack trace serial; field bytes, or elements */
	const uint8_t *data;      /* the fields or elements, as the call would get them */
};
#define HP_OBJREC_TAG(r) ((int)((r)->off >> 56))
#define HP_OBJREC_OFF(r) ((r)->off & ((1ull << 56) - 1))

struct hp_sink {
	void *ud;
	int (*header)(void *ud, const struct hp_header *h);
	int (*string)(void *ud, uint64_t id, const uint8_t *utf8, uint32_t len);
	int (*load_class)(void *ud, uint32_t serial, uint64_t class_id, uint32_t trace_serial, uint64_t name_sid);
	int (*frame)(void *ud, const struct hp_frame *f);
	int (*trace)(void *ud, uint32_t serial, uint32_t thread_serial, uint32_t n, const uint8_t *frame_ids);
	int (*start_thread)(void *ud, const struct hp_thread *t);
	int (*dump_begin)(void *ud, unsigned index, uint64_t offset);
	int (*dump_end)(void *ud, unsigned index, uint64_t offset);
	int (*root)(void *ud, const struct hp_root *r);
	int (*class_dump)(void *ud, const struct hp_class_dump *c);
	/* instances and arrays: serial is the record's stack trace serial */
	/* fields is NULL unless opts.want_instance_data */
	int (*instance)(void *ud, uint64_t id, uint32_t serial, uint64_t class_id, const uint8_t *fields, uint32_t len,
			uint64_t offset);
	/* elems is NULL unless opts.want_array_data */
	int (*obj_array)(void *ud, uint64_t id, uint32_t serial, uint64_t class_id, uint32_t n, const uint8_t *elems,
			 uint64_t offset);
	/* elems is NULL unless opts.want_array_data; nodata for Android 0xC3 */
	int (*prim_array)(void *ud, uint64_t id, uint32_t serial, unsigned type, uint32_t n, const uint8_t *elems,
			  uint64_t offset, int nodata);
	int (*heap_info)(void *ud, uint32_t heap_id, uint64_t name_sid);
	/* opts.object_thread: a batch of n instance and array sub-records,
	 * in file order, instead of the instance, obj_array and prim_array
	 * calls each would get (no data; never an Android 0xC3); NULL: those
	 * calls.  On a failure, *failed is the record that failed. */
	int (*objects)(void *ud, const struct hp_objrec *r, size_t n, size_t *failed);
	/* the hprof agent's records: n declared entries, the first k at p */
	int (*alloc_sites)(void *ud, const struct hp_alloc_sites_hdr *hd, const uint8_t *p, uint32_t k);
	int (*heap_summary)(void *ud, const struct hp_heap_summary *s);
	int (*cpu_samples)(void *ud, uint32_t total, uint32_t n, const uint8_t *p, uint32_t k);
	/* with opts.want_array_data and opts.obj_array_chunk: an object array
	 * of more elements than fit a streamed (gzip, pipe) reader's window
	 * comes in parts of at
	 * most obj_array_chunk elements, [first, first + k) each, in order,
	 * instead of one obj_array call */
	int (*obj_array_part)(void *ud, uint64_t id, uint32_t serial, uint64_t class_id, uint32_t n, uint32_t first,
			      uint32_t k, const uint8_t *elems, uint64_t offset);
	/* opts.want_raw: every byte of the input, once and in file order
	 * (enum hp_raw_kind), after the decoded callback of the same bytes */
	int (*raw)(void *ud, int kind, const uint8_t *p, size_t n, uint64_t offset);
};

/*
 * The raw stream (opts.want_raw), for a sink that copies the dump: the
 * pieces concatenated are the input, byte for byte, up to where parsing
 * stopped.  Each piece has been checked as the decoded callbacks' data is
 * (a sub-record's lengths against its record), so a copier can rely on
 * the framing; element bytes come in whole elements.  n is never 0 except
 * for a record without a body (RECORD) or an empty array (no ELEMS).
 */
enum hp_raw_kind {
	HP_RAW_HEADER,            /* the file header */
	HP_RAW_RECORD,            /* a record's tag, time and length (9 bytes) */
	HP_RAW_BODY,              /* body bytes of a record other than a delivered HEAP DUMP
				     (SEGMENT), in pieces of any size */
	HP_RAW_SUB,               /* a heap-dump sub-record, tag first: whole, except that an
				     array's is its fixed part (up to the element type or class id) */
	HP_RAW_ELEMS              /* the elements of the array whose SUB came last, in pieces of
				     whole elements */
};

/*
 * Records a sink does not need whole are not buffered whole (a gzip bomb
 * holds a 4 GiB record in a few MiB): with the limits below the parser reads
 * only what it delivers and streams past the rest.  A callback then gets the
 * record's real length and a pointer to at most the limit's bytes.
 */
struct hp_parse_opts {
	int dump_index;           /* deliver sub-records of this dump only (0-based); -1 all */
	int want_instance_data;
	int want_array_data;
	uint32_t string_max;      /* STRING: at most this many bytes at utf8 (len stays the
	                             string's); 0 all */
	uint64_t instance_data_max; /* want_instance_data: at most this many field bytes at
	                             fields (len stays the record's); 0 all */
	int no_prim_array_data;   /* want_array_data for object arrays only: primitive
	                             arrays' elems are NULL */
	uint32_t obj_array_chunk; /* elements per part for sink.obj_array_part; 0 whole */
	uint32_t trace_frames_max;/* STACK TRACE: at most this many frame ids at frame_ids
	                             (n stays the trace's); 0 all */
	int want_raw;             /* deliver sink->raw (enum hp_raw_kind) */
	/* object_thread: the instance and array callbacks may run on a thread
	 * of the parser's own, after object_thread_after bytes of object
	 * sub-records, while the parser reads on (hprof.c: "the object
	 * thread").  1: for a file read in place (gzip and pipes have a
	 * reader thread already); 2: whatever the input, but with data
	 * (want_instance_data, want_array_data) only for a file read in
	 * place, whose pages stay mapped.  Never with want_raw.  The sink's
	 * callbacks still run one at a time and in file order, every other
	 * one after the objects before it are done; they must not write the
	 * parser's error (a failure is returned, and positioned by the
	 * parser).  hp_parse_object_thread() sets both fields. */
	int object_thread;
	uint64_t object_thread_after;
	void (*progress)(void *ud, uint64_t done);   /* called every few MiB */
	void *progress_ud;
};

struct hp_dump_info {
	uint64_t offset, end;     /* first and one past last byte of its records */
	uint64_t records;         /* HEAP DUMP / SEGMENT records */
	uint64_t subrecords;
	int complete;             /* closed by HEAP DUMP END (segments) or whole record */
};

struct hp_stats {
	struct hp_header header;
	uint64_t records;                     /* top-level records */
	uint64_t records_by_tag[256];
	uint64_t subrecords_by_tag[256];
	uint64_t unknown_records, unknown_bytes;
	uint64_t bytes;                       /* bytes parsed (end offset) */
	uint64_t instance_field_bytes;
	struct hp_dump_info *dumps;           /* owned; hp_stats_release() frees */
	unsigned ndumps, dumps_cap;
	int parsed_dump;                      /* index delivered, -1 none */
	int in_segmented_dump;
};

void hp_stats_release(struct hp_stats *st);
void hp_parse_opts_init(struct hp_parse_opts *o);
/* opts.object_thread as the process wants it: 1 past 4 MiB where a second
 * CPU is there; HPROFAN_OBJECT_THREAD=off: 0; =N: 2 past N bytes */
void hp_parse_object_thread(struct hp_parse_opts *o);

/* Parses the whole input.  st is filled as far as parsing got (also on error). */
int hp_parse(hp_reader *r, const struct hp_sink *sink, const struct hp_parse_opts *opts,
	     struct hp_stats *st, struct hp_error *err) HP_MUST_USE;

static inline uint64_t hp_be_id(const uint8_t *p, unsigned id_size)
{
	if (id_size == 8)
		return ((uint64_t)p[0] << 56) | ((uint64_t)p[1] << 48) | ((uint64_t)p[2] << 40) |
		       ((uint64_t)p[3] << 32) | ((uint64_t)p[4] << 24) | ((uint64_t)p[5] << 16) |
		       ((uint64_t)p[6] << 8) | p[7];
	return ((uint64_t)p[0] << 24) | ((uint64_t)p[1] << 16) | ((uint64_t)p[2] << 8) | p[3];
}
static inline uint32_t hp_be32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}
static inline uint16_t hp_be16(const uint8_t *p)
{
	return (uint16_t)(((unsigned)p[0] << 8) | p[1]);
}
static inline uint64_t hp_be64(const uint8_t *p)
{
	return ((uint64_t)hp_be32(p) << 32) | hp_be32(p + 4);
}
static inline void hp_alloc_site_decode(const uint8_t *p, struct hp_alloc_site *s)
{
	s->is_array = p[0];
	s->class_serial = hp_be32(p + 1);
	s->trace_serial = hp_be32(p + 5);
	s->live_bytes = hp_be32(p + 9);
	s->live_instances = hp_be32(p + 13);
	s->bytes_allocated = hp_be32(p + 17);
	s->instances_allocated = hp_be32(p + 21);
}
static inline void hp_cpu_sample_decode(const uint8_t *p, struct hp_cpu_sample *s)
{
	s->samples = hp_be32(p);
	s->trace_serial = hp_be32(p + 4);
}

#endif
