/*
 * objread.h — one object's record read again from the dump, and decoded.
 *
 * The model keeps no field values, only each object's file offset
 * (hp_heap_offset()).  An hp_objread handle re-reads the record there:
 *   - a regular file is mapped (the reader's mmap window), so a record costs
 *     one page fault;
 *   - a gzip file cannot be entered in the middle: the handle streams it
 *     forward from where it last stopped and starts again from the top when
 *     asked for an earlier offset (or goes on in an uncompressed copy of it:
 *     hp_objread_on_restart()).  That is fine for a one-off command that
 *     reads a few dozen records; hp_objread_prefetch() reads a batch in one
 *     forward pass, and every record read from gzip (up to 64 KiB of it, at
 *     most 64 MiB in all) stays in a cache, so asking again is free.
 *     hp_objread_restarts() counts the passes from the top.
 *   - standard input cannot be read twice: hp_objread_open() refuses "-".
 *
 * Decoding: an instance's fields along its class's layout up the super chain
 * (the class's own fields first, as HotSpot and ART write them; the classes
 * that declare none are skipped through model/layout.h, made on the first
 * decode, and only the bytes the layout covers are read), giving the
 * declaring class, name, type and value of each; an object array's element
 * ids; a primitive array's values; a class object's statics from the model.
 * Arrays give at most max_elems values (their length is always given).
 * Every length is checked against the record and the file; a record that is
 * not where the model says (the file changed) is HP_ECORRUPT.
 *
 * Java strings (hp_objread_text), for every layout met in practice:
 *   JDK <= 8      value char[] (UTF-16), JDK 6 and early 7 also offset/count;
 *   JDK 9+        value byte[] and coder: 0 LATIN1, 1 UTF16 in the byte
 *                 order of the VM that wrote the dump (StringUTF16 keeps the
 *                 platform's order; HPROF copies the bytes as they are).
 *                 The order is java.lang.StringUTF16.HI_BYTE_SHIFT when the
 *                 dump holds that static (8: big-endian, 0: little-endian),
 *                 else little-endian (x86, ARM);
 *   Android KitKat  value char[] with offset/count, as JDK 6;
 *   ART (Android 8+) count (the length and a compression flag) and a "value"
 *                 field the dumper adds, naming a char[] or, for a
 *                 compressed string, a byte[] (LATIN1); count is not used.
 * Characters become UTF-8 (unpaired surrogates U+FFFD; U+0000 stays a NUL
 * byte inside the returned length); the CLI escapes them for display.
 *
 * Ownership: names returned are borrowed from the handle (valid until
 * hp_objread_free()); struct hp_objdata and struct hp_text own their arrays
 * (hp_objread_release(), hp_objread_text_release()).  The heap is borrowed
 * and must outlive the handle.  Memory: the reader's window (the map, or a
 * 1 MiB gzip buffer grown to the largest record read) plus the cache.
 */
#ifndef HP_OBJREAD_H
#define HP_OBJREAD_H

#include <stddef.h>
#include <stdint.h>
#include "model/heap.h"

typedef struct hp_objread hp_objread;

/* One field of an instance, or one static of a class object. */
struct hp_objval {
	uint32_t decl;            /* declaring class index */
	uint64_t name_sid;
	const char *name;         /* valid UTF-8, borrowed from the handle */
	uint8_t type;             /* HP_T_* */
	uint64_t bits;            /* the value's bytes, big-endian, zero-extended; an id for HP_T_OBJECT */
};

struct hp_objdata {
	size_t obj;
	uint64_t id;
	int kind;                 /* enum hp_obj_kind */
	uint32_t cls;             /* class index: the object's class (java.lang.Class for class objects) */
	uint32_t class_of;        /* class objects: the class it is, else HP_NONE */
	uint64_t offset;          /* of the record (0 for class objects: from the model) */
	/* instances: the fields, this class's first; class objects: the statics */
	struct hp_objval *fields;
	size_t nfields;
	uint32_t field_bytes;     /* instances: bytes in the record */
	uint32_t layout_bytes;    /* instances: bytes the class layout asks for */
	/* arrays */
	uint32_t length;
	uint8_t elem_type;        /* HP_T_OBJECT for object arrays */
	uint64_t *elems;          /* the first nelems values: ids, or bits as for hp_objval */
	uint32_t nelems;
	int nodata;               /* Android PRIMITIVE ARRAY NODATA: no values in the dump */
};

/* Text decoded from a java.lang.String, a char[] or a byte[]. */
struct hp_text {
	char *utf8;               /* NUL-terminated (U+0000 may occur before len); NULL: not text */
	size_t len;               /* bytes of utf8 */
	uint64_t chars;           /* characters (UTF-16 units) of the whole string */
	int truncated;            /* only the first max_chars were decoded */
	const char *why;          /* utf8 == NULL: why not ("not a String", "value not in the dump") */
};

int hp_objread_open(hp_objread **out, const hp_heap *h, const char *path, struct hp_error *err) HP_MUST_USE;
void hp_objread_free(hp_objread *f);
/* passes over a gzip stream from its start beyond the first (0 for a regular file) */
uint64_t hp_objread_restarts(const hp_objread *f);
/* For a gzip file: once starting again from the top for an earlier
 * offset would take what all passes inflate past `after` bytes, copy(ud)
 * is called instead, and the file it names (the stream uncompressed, at
 * the same offsets: a spool) is read from then on; NULL from it: the
 * stream is started again, as without.  (A caller passing a quarter of
 * the inflated size inflates at most 1.25 times it in all, plus the copy's
 * writing, however the reads fall.) */
void hp_objread_on_restart(hp_objread *f, uint64_t after, const char *(*copy)(void *ud), void *ud);

/* Reads the records of these objects into the cache in one forward pass
 * (gzip; nothing to do for a regular file).  Class objects are skipped. */
int hp_objread_prefetch(hp_objread *f, const uint32_t *objs, size_t n, struct hp_error *err) HP_MUST_USE;

/* hp_objread_prefetch(), then what hp_objread_text() and
 * hp_objread_thread_name() of those objects go on to read (a Thread's name,
 * a String's value array): three forward passes at most. */
int hp_objread_prefetch_text(hp_objread *f, const uint32_t *objs, size_t n, struct hp_error *err) HP_MUST_USE;

/* Decodes object obj (0 <= obj < h->nobj); arrays give at most max_elems
 * values.  On error *out is empty (hp_objread_release() is harmless). */
int hp_objread_decode(hp_objread *f, size_t obj, uint32_t max_elems, struct hp_objdata *out,
		      struct hp_error *err) HP_MUST_USE;
void hp_objread_release(struct hp_objdata *o);

/* The stack trace serial written in object obj's record (an instance or an
 * array; 0 for class objects): the allocation site in dumps written with
 * allocation tracking, a dummy serial otherwise. */
int hp_objread_trace_serial(hp_objread *f, size_t obj, uint32_t *serial, struct hp_error *err) HP_MUST_USE;

/* The elements of primitive array obj as the dump holds them (big-endian),
 * copied into a new buffer *out of *len bytes (the caller frees it with
 * hp_free()); *nodata = 1 and *out NULL when the dump holds no elements
 * (Android PRIMITIVE ARRAY NODATA). */
int hp_objread_prim_bytes(hp_objread *f, size_t obj, uint8_t **out, size_t *len, int *nodata,
			  struct hp_error *err) HP_MUST_USE;

/* The field called name (declared by class decl_name, or by any class when
 * NULL; the first met from the object's own class up), or NULL. */
const struct hp_objval *hp_objread_field(const hp_objread *f, const struct hp_objdata *o,
					 const char *name, const char *decl_name);

/* A name from the string table as valid UTF-8, "?" when the dump has none. */
const char *hp_objread_name(hp_objread *f, uint64_t sid);

/* 1 when obj is an instance of java.lang.String */
int hp_objread_is_string(const hp_heap *h, size_t obj);

/* The characters of a String instance, a char[] (UTF-16) or a byte[]
 * (LATIN1), at most max_chars of them (0: all).  HP_OK with out->utf8 NULL
 * and out->why set when obj holds no text. */
int hp_objread_text(hp_objread *f, size_t obj, size_t max_chars, struct hp_text *out,
		    struct hp_error *err) HP_MUST_USE;
void hp_objread_text_release(struct hp_text *t);

/* The name of a java.lang.Thread object (its field "name": a String, or a
 * char[] before JDK 7), at most max_chars characters.  HP_OK with
 * out->utf8 NULL when the object has no name (not a Thread, null name). */
int hp_objread_thread_name(hp_objread *f, size_t thread_obj, size_t max_chars, struct hp_text *out,
			   struct hp_error *err) HP_MUST_USE;

/* How object `from` refers to object `to`. */
enum hp_ref_kind {
	HP_REF_NONE = 0,          /* none found */
	HP_REF_FIELD,             /* instance field: decl, name_sid */
	HP_REF_ELEMENT,           /* object array element: index */
	HP_REF_STATIC,            /* static field of a class object: decl, name_sid */
	HP_REF_SUPER,             /* a class object's super class */
	HP_REF_LOADER,            /* a class object's class loader */
	HP_REF_LOCAL,             /* from is a Thread, to a root on its stack: root_kind, frame */
	HP_REF_CLASS              /* to is the class object of from (an edge of MAT's and VisualVM's graphs) */
};
struct hp_objref {
	int kind;                 /* enum hp_ref_kind */
	uint32_t decl;            /* declaring class index (FIELD, STATIC) */
	uint64_t name_sid;
	const char *name;         /* FIELD, STATIC: borrowed from the handle; else NULL */
	uint64_t index;           /* ELEMENT */
	int root_kind;            /* LOCAL: enum hp_root_kind */
	uint32_t frame;           /* LOCAL: frame number for JAVA FRAME / JNI LOCAL, else UINT32_MAX */
	uint64_t count;           /* fields or elements of from that hold to (the first is given) */
};
/* Fields and elements first; then, when none holds to, a stack local of a
 * thread (the Thread -> local edges of hp_refs' thread_locals), then the
 * class of the object (refs.h: class edges).  out->kind HP_REF_NONE when from does not refer to to. */
int hp_objread_find_ref(hp_objread *f, size_t from, size_t to, struct hp_objref *out,
			struct hp_error *err) HP_MUST_USE;
/* How from refers to each of to[0 .. n), its edges (as hp_refs lists them,
 * the class edge left out): out[k] as hp_objread_find_ref() gives it, but
 * the j-th repeat of one target in to gets the j-th field, element or
 * static (in the record's order) that holds it, and count is 1 each.  One
 * decode of from for all n (an object array's elements are all read). */
int hp_objread_edge_refs(hp_objread *f, size_t from, const uint32_t *to, size_t n, struct hp_objref *out,
			 struct hp_error *err) HP_MUST_USE;

#endif
