/*
 * redact.h — a copy of a heap dump without its data (hprofan redact).
 *
 * hp_redact() streams the dump from the parser's raw stream (hprof.h,
 * opts.want_raw) to an HPROF writer (writer.h), record by record, and
 * changes only values:
 *   - every char[] and byte[] element becomes '*' (a char is U+002A), in
 *     every mode: they hold the text of Strings, and which do is not known
 *     before the String that names them has gone by;
 *   - java.lang.String keeps its shape (count, offset, coder: a String is
 *     as long as before and reads as '*'s) and loses its hash;
 *   - STRING records, in every mode: a name some record uses (a class's,
 *     a field's, a frame's method, signature or source file, a heap's)
 *     stays; a thread's or thread group's name (START THREAD) becomes a
 *     '*' per character; any other is dropped — HotSpot writes its whole
 *     symbol table, every literal of every loaded class among it, and no
 *     record names those ids;
 *   - HP_REDACT_VALUES and HP_REDACT_NAMES: every other primitive value
 *     (instance fields, static fields, constant-pool entries, the elements
 *     of the other primitive arrays) becomes zero;
 *   - HP_REDACT_STRINGS: other primitive values are kept, but for the
 *     hashes of text (redact.c's text_hashes: the hash field of the nodes
 *     of hash-based collections, URI's, URL's), which become zero;
 *   - HP_REDACT_NAMES: the names of the application's classes, fields,
 *     methods and source files become stable hashed names (the same name
 *     gives the same hash in every dump), in method signatures too; the
 *     JDK's and Android's own classes and what they use keep their names,
 *     unless names_all;
 *   - the bodies of records of unknown kinds become zeros.
 * Everything else — the header, ids, references, lengths, the framing of
 * records and sub-records, class layouts, GC roots, heap-dump info, stack
 * traces and frames — is copied byte for byte, so every analysis of the
 * copy gives the same counts, sizes and paths (at other file offsets, the
 * dropped STRING records being gone).  Field bytes past what a class's
 * layout describes (which no analysis reads) become zeros; an instance of
 * a class the dump has no layout for is zeroed whole.
 *
 * Two passes: the first reads the uses of every STRING id (which come
 * after the STRING) and the class layouts (an instance's fields can only
 * be told apart with its class's, and it may come first); the second
 * copies.  A pipe (standard input, a FIFO) is copied during the first pass
 * into an unlinked file in opts.spool_dir, which the second one reads.
 *
 * Memory: the reader's and writer's buffers, the class layouts (a byte
 * per field) and a table of the names the dump's records use (16 bytes
 * each; names mode also 16 bytes per field and 32 per frame); nothing per
 * object.  Time: two passes over the input.  Disk: a pipe's uncompressed
 * bytes, for the time of the copy.
 */
#ifndef HP_REDACT_H
#define HP_REDACT_H

#include <stdint.h>
#include "base/error.h"
#include "parser/writer.h"

enum hp_redact_mode { HP_REDACT_VALUES, HP_REDACT_STRINGS, HP_REDACT_NAMES };

struct hp_redact_opts {
	int mode;                   /* enum hp_redact_mode */
	int names_all;              /* HP_REDACT_NAMES: the JDK's names too */
	/* HP_REDACT_NAMES: called once for each name replaced: the new name
	 * and the old one (class names in Java notation, java.util.Map$Entry;
	 * others as the dump has them, in UTF-8) */
	int (*mapping)(void *ud, const char *hashed, const char *real);
	void *mapping_ud;
	void (*progress)(void *ud, uint64_t done, uint64_t total);
	void *progress_ud;
	const char *spool_dir;      /* where a pipe's copy goes; NULL: a pipe is refused */
};

struct hp_redact_stats {
	uint64_t bytes_in, bytes_out;   /* uncompressed */
	uint64_t file_bytes_out;        /* written to the descriptor */
	int passes;                     /* 1 or 2 */
	uint64_t instances, instances_unknown_class;
	uint64_t arrays;                /* object and primitive arrays */
	uint64_t strings;               /* java.lang.String instances */
	uint64_t text_arrays;           /* char[] and byte[] filled */
	uint64_t prim_arrays_zeroed;
	uint64_t statics_zeroed;
	uint64_t names_replaced;
	uint64_t strings_dropped;       /* STRING records no record uses */
	uint64_t strings_starred;       /* thread and thread group names */
	uint64_t unknown_records, unknown_bytes;
};

void hp_redact_opts_init(struct hp_redact_opts *o);

/* Copies the dump at in_path ("-": standard input) to w, redacted, and
 * finishes w.  On failure the error names the input's offset, record and
 * tag as the parser's do; what w holds then is to be thrown away. */
int hp_redact(const char *in_path, hp_writer *w, const struct hp_redact_opts *o,
	      struct hp_redact_stats *st, struct hp_error *err) HP_MUST_USE;

#endif
