/*
 * heap.h — the heap as tables, built by a parser sink in one pass.
 *
 * Memory per object: 22.25 bytes before references (HP_HEAP_BYTES_PER_OBJECT
 * rounds up; hp_heap_model_bytes() gives the exact figure):
 *   ids[]    u64  object id (address), sorted ascending after hp_heap_finish()
 *   cls[]    u32  class index (for a class object: java.lang.Class)
 *   len[]    u32  array length (0 for instances and classes)
 *   off_lo[] u32  file offset bits 0..31
 *   off_hi[] u16  file offset bits 32..41 (dumps up to 4 TiB), Android heap
 *                 index (bits 10..13), object kind (bits 14..15)
 *   bucket[]      id index: one u32 per 16 objects (0.25 byte per object)
 * plus, while hp_heap_finish() sorts a dump that is not in address order,
 * 4 bytes per object for the permutation and 8 for one column at a time.
 * Objects are numbered 0..n-1 in id order; hp_heap_find() maps an id to its
 * number through a bucket index over the sorted ids (O(1) expected).
 *
 * Everything else is per class, string, thread, frame or root.  The per-class
 * histogram (count and the data to size arrays exactly under any size model)
 * is accumulated while streaming, so `--top` needs no per-object memory at all
 * (HP_HEAP_STREAM).  Names and strings are owned by the heap; all pointers
 * returned stay valid until hp_heap_free().
 *
 * Under a memory limit (parser/alloc.h, hprofan --max-memory), when the limit
 * refuses one of the sink's allocations the parse goes on: the heap gives
 * its object columns and strings back and from then on only counts the
 * records (over_limit), and hp_heap_need() says what the whole model would
 * have taken.  The counts behind that figure (the tally) are kept the same
 * way from the first record on, so it does not depend on where the limit
 * was hit.  A heap over the limit cannot be finished.
 */
#ifndef HP_HEAP_H
#define HP_HEAP_H

#include <stdint.h>
#include <stddef.h>
#include "parser/error.h"
#include "parser/hprof.h"
#include "model/idmap.h"

#define HP_HEAP_BYTES_PER_OBJECT 23
#define HP_MAX_OFFSET (1ull << 42)
#define HP_NONE UINT32_MAX
#define HP_MAX_HEAPS 16
#define HP_LENMOD 256          /* array lengths are bucketed mod this for exact aligned sums */
#define HP_TALLY_ROWBITS 4096

enum hp_obj_kind { HP_OBJ_INSTANCE = 0, HP_OBJ_OBJARRAY = 1, HP_OBJ_PRIMARRAY = 2, HP_OBJ_CLASS = 3 };
enum hp_class_kind { HP_CK_INSTANCE = 0, HP_CK_OBJARRAY = 1, HP_CK_PRIMARRAY = 2 };
enum hp_size_kind { HP_SIZE_AUTO = 0, HP_SIZE_MAT, HP_SIZE_AHAT, HP_SIZE_RAW, HP_SIZE_VISUALVM,
		     HP_SIZE_NETBEANS };

struct hp_field { uint64_t name_sid; uint8_t type; };
struct hp_static { uint64_t name_sid; uint64_t value; uint8_t type; };

struct hp_class {
	uint64_t id;
	uint64_t name_sid;
	const char *name;             /* Java notation: java.lang.String, byte[], a.B$C[] */
	uint32_t serial;              /* LOAD CLASS serial, 0 if none */
	uint32_t super;               /* class index or HP_NONE */
	uint64_t super_id, loader_id;
	uint32_t instance_size;       /* as written in CLASS DUMP */
	uint32_t first_field, n_fields;   /* own declared instance fields in hp_heap.fields */
	uint32_t first_static, n_statics; /* in hp_heap.statics */
	uint32_t own_refs, own_prim;  /* own instance fields: references, primitive bytes */
	uint32_t static_refs, static_prim;
	uint8_t kind;                 /* enum hp_class_kind */
	uint8_t elem_type;            /* primitive array classes: element type */
	uint8_t dumped;               /* a CLASS DUMP was seen */
	uint8_t heap;                 /* heap index of the CLASS DUMP */
	uint8_t synthetic;            /* made up by hprofan (no LOAD CLASS / CLASS DUMP) */
	uint32_t row;                 /* first histogram row, HP_NONE if none */
	uint64_t offset;              /* CLASS DUMP offset */
	uint64_t inst_size;           /* shallow size of one instance under the size model */
	uint64_t self_size;           /* shallow size of the class object itself */
};

/* One histogram row: the objects of one class in one Android heap. */
struct hp_hrow {
	uint32_t cls, next;
	uint8_t heap;
	uint64_t count;               /* instances / arrays */
	uint64_t class_objs;          /* class objects counted in this row (java.lang.Class) */
	uint64_t sum_len;             /* arrays: total elements */
	uint64_t *lenmod;             /* arrays: HP_LENMOD counters of length mod HP_LENMOD */
	uint64_t shallow;             /* filled by hp_heap_finish() */
	uint64_t max_shallow;         /* largest single object (instances, arrays) */
	uint32_t max_len;
};

struct hp_root_rec {
	uint64_t object;
	uint32_t thread_serial, frame;
	uint8_t kind, heap, has_thread;
};

struct hp_trace_rec { uint32_t serial, thread_serial, first, n; };
struct hp_thread_rec {
	uint32_t serial, trace_serial;
	uint64_t object_id, name_sid, group_sid;
	uint8_t from_start_thread, from_root;
};

struct hp_size_model {
	int kind;                     /* enum hp_size_kind, never HP_SIZE_AUTO */
	unsigned id_size;
	unsigned ref_size, header, array_header, align;
	int ref_source, header_source, align_source;   /* 0 default, 1 inferred, 2 option */
	uint64_t gcd;                 /* GCD of id differences (0 if < 2 objects) */
	uint64_t compressed_evidence; /* offset of the array that proved compressed refs, 0 none */
	uint64_t class_instance_size; /* ahat: java.lang.Class instance size */
	int real_instance_sizes;      /* visualvm, netbeans: CLASS DUMP states real instance sizes
	                                 (java.lang.Object's is not 0: Android) */
};

struct hp_heap_opts {
	int build_objects;            /* keep the per-object tables (else stream: histogram only) */
	int size_kind;                /* enum hp_size_kind */
	int ref_size, header_size, align;   /* overrides; 0 = infer */
	int dump_index;
};

struct hp_heap {
	struct hp_header header;
	unsigned I;
	struct hp_heap_opts opts;

	/* strings */
	struct hp_idmap str_map;      /* sid -> string index */
	uint64_t *str_off; uint32_t *str_len; size_t nstr, str_cap;
	char *arena; size_t arena_len, arena_cap;

	/* classes */
	struct hp_class *classes; size_t nclasses, classes_cap;
	struct hp_idmap class_map;    /* class object id -> index */
	struct hp_idmap serial_map;   /* LOAD CLASS serial -> index */
	struct hp_field *fields; size_t nfields, fields_cap;
	struct hp_static *statics; size_t nstatics, statics_cap;
	uint32_t prim_class[12];      /* element type -> class index */
	uint32_t jlc;                 /* java.lang.Class, HP_NONE until known */
	uint32_t jlo;                 /* java.lang.Object */
	size_t nclass_dumps;
	uint64_t ccache_id[64]; uint32_t ccache_idx[64];   /* class id -> index cache */

	/* histogram rows; instances of heap 0 are counted in ccount[class] first */
	uint64_t *ccount; size_t ccount_cap;
	struct hp_hrow *rows; size_t nrows, rows_cap;

	/* frames, traces, threads, roots */
	struct hp_frame *frames; size_t nframes, frames_cap;
	struct hp_idmap frame_map;
	struct hp_trace_rec *traces; size_t ntraces, traces_cap;
	uint64_t *trace_frames; size_t ntrace_frames, trace_frames_cap;
	struct hp_idmap trace_map;
	struct hp_thread_rec *threads; size_t nthreads, threads_cap;
	struct hp_idmap thread_map;   /* serial -> index */
	struct hp_root_rec *roots; size_t nroots, roots_cap;
	uint64_t roots_by_kind[HP_ROOT_NKINDS];

	/* Android heaps */
	char *heap_names[HP_MAX_HEAPS]; unsigned nheaps; unsigned cur_heap;
	uint64_t heap_ids[HP_MAX_HEAPS];
	uint64_t heap_objects[HP_MAX_HEAPS], heap_bytes[HP_MAX_HEAPS], heap_classes[HP_MAX_HEAPS];

	/* objects (build_objects only) */
	uint64_t *ids; uint32_t *cls; uint32_t *len; uint32_t *off_lo; uint16_t *off_hi;
	size_t nobj, obj_cap;
	uint32_t *bucket; unsigned bucket_shift; size_t nbuckets; uint64_t min_id;
	uint32_t *file_order;         /* object number of the k-th object in file order; NULL when
	                                 the dump was in id order.  Kept for hp_refs_build(), which
	                                 frees it (4 bytes per object until then). */
	uint64_t duplicate_ids;

	/* counts */
	uint64_t n_instances, n_objarrays, n_primarrays, n_classobjs;
	uint64_t total_shallow;

	/* size-model inference while streaming */
	struct hp_size_model size;
	uint64_t gcd_first; int gcd_have_first, gcd_done; uint64_t gcd;
	uint64_t prev_array_start, prev_array_uend; int found_compressed;
	uint64_t compressed_at;

	/* warnings */
	char **warnings; size_t nwarnings;
	uint64_t missing_class_objects;   /* instances whose class has no CLASS DUMP */
	int finished;

	/* the memory limit: what the records need, counted whether stored or not
	 * (objects: n_instances, n_objarrays, n_primarrays and class_dumps) */
	int over_limit;               /* the limit refused an allocation: only counting */
	struct hp_tally {
		uint64_t strings, string_bytes, load_classes, class_dumps, fields, statics;
		uint64_t roots, frames, traces, trace_frames, threads;
		uint64_t arrays;          /* array records */
		uint64_t heap_id;         /* Android heap of the records, as written */
		uint64_t last_id;         /* build_objects: were the ids ascending? */
		int unsorted;
		uint64_t rowbits[HP_TALLY_ROWBITS / 64];   /* (array class, heap) seen: a
		                             linear-counting sketch of the array rows */
	} tally;
};
typedef struct hp_heap hp_heap;

void hp_heap_opts_init(struct hp_heap_opts *o);
hp_heap *hp_heap_new(const struct hp_heap_opts *o);
void hp_heap_free(hp_heap *h);
/* The sink that fills h; pass it to hp_parse(). */
void hp_heap_sink(hp_heap *h, struct hp_sink *sink);
/* After parsing (also a salvaged partial parse): resolves names and supers,
 * decides and applies the size model, sums the histogram, sorts objects. */
int hp_heap_finish(hp_heap *h, struct hp_error *err) HP_MUST_USE;

/* Convenience: open, parse and finish.  On HP_ETRUNC/HP_ECORRUPT with
 * salvage set, *h still holds everything read before the error. */

const char *hp_heap_string(const hp_heap *h, uint64_t sid, uint32_t *len);
int hp_heap_add_warning(hp_heap *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* object table */
size_t hp_heap_find(const hp_heap *h, uint64_t id);   /* object number or SIZE_MAX */
uint64_t hp_heap_shallow(const hp_heap *h, size_t obj);
static inline int hp_heap_kind(const hp_heap *h, size_t i) { return h->off_hi[i] >> 14; }
static inline unsigned hp_heap_heap(const hp_heap *h, size_t i) { return (h->off_hi[i] >> 10) & 15; }
static inline uint64_t hp_heap_offset(const hp_heap *h, size_t i)
{
	return ((uint64_t)(h->off_hi[i] & 0x3ff) << 32) | h->off_lo[i];
}

/* histogram row for (class, heap), created when missing; HP_NONE when out of memory */
uint32_t hp_heap_row(hp_heap *h, uint32_t cidx, unsigned heap);
/* size of an array of class c with n elements under the model */
uint64_t hp_heap_array_size(const hp_heap *h, const struct hp_class *c, uint64_t n);
/* bytes the model keeps per object (ids, cls, len, where) plus the index */
uint64_t hp_heap_model_bytes(const hp_heap *h);

/* What building the model of the records parsed so far takes (all of them,
 * also those only counted over the limit), in bytes, estimated from the
 * tally and the growth rules of the tables: `tables` what the finished
 * model keeps, `peak` the most at any one time (the tables plus the sort in
 * hp_heap_finish() or the rehash of the largest map).  Not counted: the
 * reader's buffers.  The same wherever the limit refused. */
struct hp_heap_need {
	uint64_t objects;             /* objects in the dump, all kinds */
	uint64_t tables, peak;
};
void hp_heap_need(const hp_heap *h, struct hp_heap_need *need);

/* Writes code point cp as UTF-8 (1 to 4 bytes) at out; returns the length. */
size_t hp_utf8_put(char *out, uint32_t cp);
/* Modified UTF-8 to valid UTF-8 (invalid sequences become U+FFFD); NUL-terminated, caller frees */
char *hp_mutf8_to_utf8(const char *in, size_t n, size_t *out_len);
/* "java/lang/String" -> "java.lang.String", "[[I" -> "int[][]", "[Lx;" -> "x[]"; valid UTF-8 */
char *hp_java_name(const char *raw, size_t len);
const char *hp_size_kind_name(int kind);

#endif
