/*
 * heap.h — the heap as tables, built by a parser sink in one pass.
 *
 * Memory per object: 22.25 bytes before references while building
 * (HP_HEAP_BYTES_PER_OBJECT rounds up), 18.25 once finished when the ids
 * narrow (hp_heap_model_bytes() gives the exact figure):
 *   ids[]    u64  object id (address), sorted ascending after hp_heap_finish();
 *                 then ids32[], u32 (id - min_id) >> id_shift, where that fits
 *   cls[]    u32  class index (for a class object: java.lang.Class)
 *   len[]    u32  array length (0 for instances and classes)
 *   off_lo[] u32  file offset bits 0..31
 *   off_hi[] u16  file offset bits 32..41 (dumps up to 4 TiB), Android heap
 *                 index (bits 10..13), object kind (bits 14..15)
 *   bucket[]      id index: one u32 per 16 objects (0.25 byte per object)
 * plus, for a dump that is not in address order, file_order[] (u32: the
 * object number of each record in file order, which hp_refs_build() walks),
 * and while hp_heap_finish() sorts it 4 bytes per object for the
 * permutation and 8 for one column at a time.
 * Objects are numbered 0..n-1 in id order; hp_heap_find() maps an id to its
 * number through a bucket index over the sorted ids (O(1) expected).
 *
 * Everything else is per class, string, thread, frame or root.  The per-class
 * histogram (count and the data to size arrays exactly under any size model)
 * is accumulated while streaming, so `--top` needs no per-object memory at all
 * (build_objects 0).  Names and strings are owned by the heap; all pointers
 * returned stay valid until hp_heap_free().
 *
 * Two parts: struct hp_heap, the tables every query reads (no pointer inside
 * a table entry: names are offsets into an arena), and the builder's state
 * (model/build.h: capacities, caches, counters, size-model evidence, the
 * tally) that only the sink and hp_heap_finish() use; a finished heap has
 * let go of it and does not change any more.
 *
 * Under a memory limit (base/alloc.h, hprofan --max-memory), when the limit
 * refuses one of the sink's allocations the parse goes on: the heap gives
 * its object columns and strings back and from then on only counts the
 * records (hp_heap_over_limit()), and hp_heap_need() says what the whole model would
 * have taken.  The counts behind that figure (the tally) are kept the same
 * way from the first record on, so it does not depend on where the limit
 * was hit.  A heap over the limit cannot be finished.
 */
#ifndef HP_HEAP_H
#define HP_HEAP_H

#include <stdint.h>
#include <stddef.h>
#include "base/error.h"
#include "parser/hprof.h"
#include "model/idmap.h"

#define HP_HEAP_BYTES_PER_OBJECT 23
#define HP_MAX_OFFSET (1ull << 42)
/* The most objects a model numbers (object numbers are 32 bits, and the
 * top two values mean none and the super-root); past it the parse stops
 * with hp_heap_too_many() set.  --fast keeps no object and counts any
 * number.  hp_heap_max_objects: that, lowered by tests only. */
#define HP_MAX_OBJECTS ((size_t)UINT32_MAX - 2)
extern size_t hp_heap_max_objects;
#define HP_NONE UINT32_MAX
#define HP_MAX_HEAPS 16
#define HP_LENMOD 256          /* array lengths are bucketed mod this for exact aligned sums */
#define HP_TALLY_ROWBITS 4096
#define HP_TRACE_FRAMES_MAX (1u << 16)   /* frames of a stack trace kept; deeper ones are
                                           cut, and hp_parse_opts.trace_frames_max
                                           may say so to the parser */
#define HP_OBJ_SERIALS_MAX 8   /* distinct stack trace serials of objects the heap lists */
#define HP_STRING_MAX (64u << 10)   /* bytes of a string kept; longer ones are cut (a warning
                                       gives the length), and the parser may be told
                                       (hp_parse_opts.string_max) to read no more */

enum hp_obj_kind { HP_OBJ_INSTANCE = 0, HP_OBJ_OBJARRAY = 1, HP_OBJ_PRIMARRAY = 2, HP_OBJ_CLASS = 3 };
enum hp_class_kind { HP_CK_INSTANCE = 0, HP_CK_OBJARRAY = 1, HP_CK_PRIMARRAY = 2 };
enum hp_size_kind { HP_SIZE_AUTO = 0, HP_SIZE_MAT, HP_SIZE_AHAT, HP_SIZE_RAW, HP_SIZE_VISUALVM,
		     HP_SIZE_NETBEANS, HP_SIZE_VM };

struct hp_field { uint64_t name_sid; uint8_t type; };
struct hp_static { uint64_t name_sid; uint64_t value; uint8_t type; };

struct hp_class {
	uint64_t id;
	uint64_t name_sid;
	uint64_t name;                /* offset of its name in hp_heap.text (hp_class_name());
	                                 Java notation: java.lang.String, byte[], a.B$C[] */
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
	uint64_t shallow;             /* filled by hp_heap_finish() */
	uint64_t max_shallow;         /* largest single object (instances, arrays) */
	uint32_t max_len;
	uint8_t is_array;             /* the row counts arrays */
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

/* The vm model's inference (sizemodel.c): object gaps (model/build.h) tested
 * against the layout rules (model/layout.h). */
struct hp_vm_evidence {
	int allowed;                  /* the evidence allows the vm model (so it is HotSpot's default) */
	const char *why_not;          /* when not allowed: why (static text) */
	int jdk15;                    /* the JDK 15+ field layout, else the older rule */
	unsigned ref, header, align;  /* reference size, instance header, object alignment */
	int ref_source, header_source;   /* 0 default, 1 from array gaps, 2 option */
	uint64_t objects;             /* object records walked */
	uint64_t inst_gaps;           /* gaps measured after instances */
	uint64_t rule_agree[2];       /* of those, equal to the older / the JDK 15+ rule's size */
	uint64_t sized_agree;         /* equal to the size finally given */
	uint64_t arr_gaps, arr_tested, arr_agree;   /* after arrays; tested against the rules; agreeing */
	uint64_t ref_arr_gaps;        /* of those tested, after object arrays */
	unsigned array_base[4];       /* where the elements of 1, 2, 4, 8 bytes start */
	unsigned ref_array_base;      /* where the references of an object array start */
	uint64_t class_size;          /* java.lang.Class's instance size (a class object without statics) */
	int class_size_source;        /* 0 the rule, 1 gaps of primitive-type mirrors */
	uint64_t classes_rule;        /* classes with instances sized by the rule, no evidence against */
	uint64_t classes_confirmed;   /* ... of which the most common gap equals it */
	uint64_t classes_gaps;        /* classes whose most common gap (2+ instances, a majority) overrode the rule */
	uint64_t mirrors_measured, mirrors_agree;   /* class objects with a gap; equal to the rule */
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
	struct hp_vm_evidence vm;     /* vm: what was inferred and from what (also when not chosen) */
};

struct hp_heap_opts {
	int build_objects;            /* keep the per-object tables (else stream: histogram only) */
	int size_kind;                /* enum hp_size_kind */
	int ref_size, header_size, align;   /* overrides; 0 = infer */
	int dump_index;               /* the heap dump to read (0-based); -1: all of them, merged */
};

/* The builder's state while the sink fills the heap (capacities, caches,
 * per-class counters, size-model evidence, the tally): model/build.h, freed
 * by a successful hp_heap_finish(). */
struct hp_heap_build;

/*
 * The model queries read.  Every table is a plain column or an array of
 * structs without pointers; names and strings are offsets into the two
 * arenas (arena: the dump's strings as written; text: class names, heap
 * names and warnings as valid UTF-8), so the whole of it could be mapped
 * from a file as it is.  After hp_heap_finish() nothing in it changes but
 * the names an R8/ProGuard mapping puts back (model/mapping.h), which the
 * session does before any query sees the heap.
 */
struct hp_heap {
	struct hp_header header;
	unsigned I;
	struct hp_heap_opts opts;
	struct hp_heap_build *build;  /* non-NULL until hp_heap_finish() succeeds */
	int mapped;                   /* the tables point into a mapped index (session/index.h):
	                                 hp_heap_free() frees the struct only */

	/* strings from the dump */
	struct hp_idmap str_map;      /* sid -> string index */
	uint64_t *str_off; uint32_t *str_len; size_t nstr;
	char *arena; size_t arena_len;

	/* names made by hprofan (offset 0 is the empty string) */
	char *text; size_t text_len;

	/* classes */
	struct hp_class *classes; size_t nclasses;
	struct hp_idmap class_map;    /* class object id -> index */
	struct hp_idmap serial_map;   /* LOAD CLASS serial -> index */
	struct hp_field *fields; size_t nfields;
	struct hp_static *statics; size_t nstatics;
	uint32_t prim_class[12];      /* element type -> class index */
	uint32_t jlc;                 /* java.lang.Class, HP_NONE until known */
	uint32_t jlo;                 /* java.lang.Object */
	size_t nclass_dumps;

	/* histogram rows */
	struct hp_hrow *rows; size_t nrows;

	/* frames, traces, threads, roots */
	struct hp_frame *frames; size_t nframes;
	struct hp_idmap frame_map;
	struct hp_trace_rec *traces; size_t ntraces;
	uint64_t *trace_frames; size_t ntrace_frames;
	struct hp_idmap trace_map;
	/* the stack trace serials of the instance and array records (class
	 * objects left out), whatever their traces hold: the first
	 * HP_OBJ_SERIALS_MAX distinct ones, in the order met, and `many` when
	 * there were more.  A HotSpot dump has one (a trace without frames), so
	 * sites.h need not read every record again to learn them.  n is 0 when
	 * no object was seen (or the heap was not built by the sink). */
	struct hp_obj_serials {
		uint32_t serial[HP_OBJ_SERIALS_MAX];
		uint32_t n, last, many;   /* last: the one the previous record had */
	} obj_serials;
	struct hp_thread_rec *threads; size_t nthreads;
	struct hp_idmap thread_map;   /* serial -> index */
	struct hp_root_rec *roots; size_t nroots;
	uint64_t roots_by_kind[HP_ROOT_NKINDS];

	/* the JDK hprof agent's ALLOC SITES, HEAP SUMMARY and CPU SAMPLES
	 * records, in file order (any heap dump's); a record's entries are
	 * [first, first + k) of alloc_sites / cpu_samples, k < the declared
	 * count only past HP_AGENT_ENTRIES_MAX (a warning says so) */
	struct hp_alloc_sites_rec { struct hp_alloc_sites_hdr hd; uint32_t first, k; } *alloc_recs; size_t nalloc_recs;
	struct hp_alloc_site *alloc_sites; size_t nalloc_sites;
	struct hp_heap_summary *summaries; size_t nsummaries;
	struct hp_cpu_samples_rec { uint32_t total, n, first, k; } *cpu_recs; size_t ncpu_recs;
	struct hp_cpu_sample *cpu_samples; size_t ncpu_samples;

	/* Android heaps */
	uint8_t android_conv;         /* a 1.0.2 dump that hprof-conv converted from Android's
	                                 1.0.3 (hp_heap_finish() recognises it; hp_heap_android()) */
	uint64_t heap_name[HP_MAX_HEAPS];   /* offsets in text (hp_heap_name()) */
	unsigned nheaps;
	uint64_t heap_ids[HP_MAX_HEAPS];
	uint64_t heap_objects[HP_MAX_HEAPS], heap_bytes[HP_MAX_HEAPS], heap_classes[HP_MAX_HEAPS];

	/* objects (build_objects only).  Their ids ascending: once the model is
	 * finished, when every id is min_id + k << id_shift with k < 2^32 (a
	 * heap of under 32 GiB of 8-byte aligned objects), ids32 holds the k
	 * and ids is NULL (4 bytes an object, not 8); else ids32 is NULL.
	 * Read them with hp_heap_id(). */
	uint64_t *ids; uint32_t *ids32; unsigned id_shift;
	uint32_t *cls; uint32_t *len; uint32_t *off_lo; uint16_t *off_hi;
	size_t nobj;
	uint32_t *bucket; unsigned bucket_shift; size_t nbuckets; uint64_t min_id;
	uint32_t *file_order;         /* object number of the k-th object in file order; NULL when
	                                 the dump was in id order (4 bytes per object then) */
	uint64_t duplicate_ids;

	/* counts */
	uint64_t n_instances, n_objarrays, n_primarrays, n_classobjs;
	/* --dump all (opts.dump_index < 0): the heap dumps read into the model,
	 * and the object records (instances, arrays, CLASS DUMPs) a later dump
	 * repeated, which were skipped: an id is taken once, from the first
	 * dump that has it, as ahat merges them */
	uint32_t merged_dumps;
	uint64_t repeated_records;
	uint64_t total_shallow;

	struct hp_size_model size;

	/* warnings: offsets in text (hp_heap_warning()) */
	uint64_t *warnings; size_t nwarnings;
	uint64_t missing_class_objects;   /* instances whose class has no CLASS DUMP */
};
typedef struct hp_heap hp_heap;

static inline const char *hp_heap_text(const hp_heap *h, uint64_t off) { return h->text + off; }
static inline const char *hp_class_name(const hp_heap *h, size_t k) { return h->text + h->classes[k].name; }
/* Android heap i's name ("app", "zygote"; "" for the one heap of a HotSpot dump) */
static inline const char *hp_heap_name(const hp_heap *h, unsigned i) { return h->text + h->heap_name[i]; }
static inline const char *hp_heap_warning(const hp_heap *h, size_t i) { return h->text + h->warnings[i]; }
/* Whether h is an Android dump: format 1.0.3 as ART and Dalvik write it, or
 * such a dump that Android's hprof-conv turned into 1.0.2.  The converter
 * drops the HEAP DUMP INFO records (every object is then in one heap, which
 * is named "default", as ahat names it) and writes Android's own roots as
 * ROOT UNKNOWN; it keeps ART's classes, whose CLASS DUMPs state real
 * instance sizes.  hp_heap_finish() takes a 1.0.2 dump for a conversion
 * when its ids are 4 bytes, java.lang.Object's CLASS DUMP states a size
 * (HotSpot states the field bytes, 0) and dalvik.system.VMRuntime or
 * java.lang.DexCache is dumped. */
static inline int hp_heap_android(const hp_heap *h) { return h->header.version == 3 || h->android_conv; }

void hp_heap_opts_init(struct hp_heap_opts *o);
hp_heap *hp_heap_new(const struct hp_heap_opts *o);
void hp_heap_free(hp_heap *h);
/* The sink that fills h; pass it to hp_parse(). */
void hp_heap_sink(hp_heap *h, struct hp_sink *sink);
/* After parsing (also a salvaged partial parse): resolves names and supers,
 * decides and applies the size model, sums the histogram, sorts objects. */
int hp_heap_finish(hp_heap *h, struct hp_error *err) HP_MUST_USE;

/* (Opening, parsing and finishing a dump in one call, with salvage and the
 * memory limit's report, is the session's: session/session.h.) */

const char *hp_heap_string(const hp_heap *h, uint64_t sid, uint32_t *len);
/* 1 when string sid is name (the same bytes, name's length), else 0 */
int hp_heap_string_is(const hp_heap *h, uint64_t sid, const char *name);
/* Class k's static field called name of the given type (HP_T_*): the first
 * such in the dump's order, NULL when it has none. */
const struct hp_static *hp_class_static(const hp_heap *h, size_t k, const char *name, int type);
int hp_heap_add_warning(hp_heap *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Names substituted after hp_heap_finish() (model/mapping.h), the only
 * change made to a finished heap and only before any query reads it.
 * hp_heap_add_strings: n strings (buf: len bytes, each NUL-terminated) into
 * the string table, under ids no string of the dump has (below 2^62);
 * sids[i] gets the i-th one's.  hp_heap_add_text: buf (len bytes of
 * NUL-terminated names) appended to text; *base gets where it starts. */
int hp_heap_add_strings(hp_heap *h, const char *buf, size_t len, size_t n, uint64_t *sids) HP_MUST_USE;
int hp_heap_add_text(hp_heap *h, const char *buf, size_t len, uint64_t *base) HP_MUST_USE;

/* object table */
size_t hp_heap_find(const hp_heap *h, uint64_t id);   /* object number or SIZE_MAX */
static inline int hp_heap_kind(const hp_heap *h, size_t i) { return h->off_hi[i] >> 14; }
/* object i's id */
static inline uint64_t hp_heap_id(const hp_heap *h, size_t i)
{
	return h->ids32 ? h->min_id + ((uint64_t)h->ids32[i] << h->id_shift) : h->ids[i];
}
static inline unsigned hp_heap_heap(const hp_heap *h, size_t i) { return (h->off_hi[i] >> 10) & 15; }
/* the histogram row of class cls in Android heap `heap`, or HP_NONE */
static inline uint32_t hp_heap_row_of(const hp_heap *h, uint32_t cls, unsigned heap)
{
	for (uint32_t r = h->classes[cls].row; r != HP_NONE; r = h->rows[r].next)
		if (h->rows[r].heap == heap)
			return r;
	return HP_NONE;
}
static inline uint64_t hp_heap_offset(const hp_heap *h, size_t i)
{
	return ((uint64_t)(h->off_hi[i] & 0x3ff) << 32) | h->off_lo[i];
}
/* The object of the record with this id at file offset off (a pass that
 * reads the dump again): SIZE_MAX when the model has no object of that id,
 * or has it from another record (under --dump all, a later dump's repeat of
 * an object taken from an earlier one). */
static inline size_t hp_heap_find_record(const hp_heap *h, uint64_t id, uint64_t off)
{
	size_t v = hp_heap_find(h, id);
	return v != SIZE_MAX && hp_heap_offset(h, v) == off ? v : SIZE_MAX;
}

/* Whether the dump held more objects than the model numbers (the parse
 * stopped there with HP_ENOMEM; HP_MAX_OBJECTS). */
int hp_heap_too_many(const hp_heap *h);
/* size of an array of class c with n elements under the model */
uint64_t hp_heap_array_size(const hp_heap *h, const struct hp_class *c, uint64_t n);
/* object i's shallow size under the model: an instance's is its class's
 * (inline: sums over millions of objects ask it), the others' below */
uint64_t hp_heap_shallow_other(const hp_heap *h, size_t i);
static inline uint64_t hp_heap_shallow(const hp_heap *h, size_t i)
{
	if (hp_heap_kind(h, i) == HP_OBJ_INSTANCE)
		return h->classes[h->cls[i]].inst_size;
	return hp_heap_shallow_other(h, i);
}
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
/* 1 when the memory limit refused one of the sink's allocations: the heap
 * only counted from then on and cannot be finished */
int hp_heap_over_limit(const hp_heap *h);

/* Writes code point cp as UTF-8 (1 to 4 bytes) at out; returns the length. */
size_t hp_utf8_put(char *out, uint32_t cp);
/* Modified UTF-8 to valid UTF-8 (invalid sequences become U+FFFD); NUL-terminated, caller frees */
char *hp_mutf8_to_utf8(const char *in, size_t n, size_t *out_len);
/* "java/lang/String" -> "java.lang.String", "[[I" -> "int[][]", "[Lx;" -> "x[]"; valid UTF-8 */
char *hp_java_name(const char *raw, size_t len);
const char *hp_size_kind_name(int kind);

#endif
