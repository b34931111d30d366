/*
 * mapping.h — R8/ProGuard mapping files (mapping.txt) and the model's names
 * put back to the original ones (hprofan --mapping FILE).
 *
 * The format, line by line (R8's retrace reads the same):
 *   # comment                      '#' first: a comment; R8's JSON comments
 *                                  ({"id":"sourceFile","fileName":"Foo.kt"})
 *                                  after a class line give its source file
 *   com.foo.Bar -> a.b:            a class: original -> obfuscated
 *       int count -> a             a field of it: type original -> obfuscated
 *       void run() -> b            a method
 *       1:3:void run(int):42:44 -> b   with the obfuscated line range 1..3
 *                                  and the original 42..44 (one original
 *                                  number: that line for the whole range;
 *                                  none: the same numbers)
 *       1:3:void inner():10 -> b   lines with the same range after each
 *       1:3:void run(int):20 -> b  other: code inlined into one method, the
 *                                  innermost first, the method itself last
 * Member lines begin with white space and belong to the class line above.
 * Names are in Java notation (java.lang.String, int[]), as the model's are.
 *
 * hp_mapping_apply() renames a finished model in place (the only change made
 * to a finished heap, done by the session before any query sees the model):
 *  - a class whose name the map lists (arrays by their element class: a.b[]
 *    and a.b[][]) gets the original name; one it does not list, named
 *    OUTER$REST where OUTER is listed, gets ORIGINAL-OUTER$REST;
 *  - a field of a listed class (instance or static) gets its original name;
 *    of two fields with the same obfuscated name, the one whose type agrees
 *    with the dump's (a reference or the same primitive type) wins, else the
 *    first in the file; a field R8 moved from another class (an original
 *    name like com.foo.Other.count) gets its simple name;
 *  - a stack frame of a listed class gets the original method name, its
 *    line (through the line ranges, when the frame has a line and a range
 *    holds it) and the class's source file: R8's sourceFile comment, else,
 *    when the class was renamed or the dump's source file is "SourceFile"
 *    (the placeholder -renamesourcefileattribute puts there), the outermost
 *    class's simple name with the extension of the dump's source file name
 *    or ".java" (a source file name is at most 255 bytes: a longer comment
 *    is ignored, a longer name in the dump kept, none longer made).  Of
 *    several methods with the frame's obfuscated name, the
 *    one whose range holds the frame's line wins, else the first in the
 *    file; of inlined code (lines with one range), the method it was
 *    inlined into: a frame is not split into the frames R8 inlined.  The
 *    class names in every frame's signature are mapped.
 * Names the map does not list stay as they are.  The first line naming an
 * obfuscated class wins over later ones.
 *
 * Time: linear in the file and in the model's names.  A class name is
 * hashed in one pass that gives every OUTER prefix's hash too (a name of
 * many '$' costs its length, not its length times its '$'s); member names
 * are interned, so each dump string (a member name, a signature) is looked
 * up or mapped once however many fields or frames share it; a method is
 * found by a binary search over its chain's ranges (the first line holding
 * each line, swept once from the ends of the ranges) and the last line of
 * its group is kept beside each line, so a group or an overload chain of
 * 100,000 lines costs each frame a few steps.
 * Memory: the file's names once (an arena, member names interned) plus 36
 * bytes per class, 16 per field, 56 per method and 8 per segment (at most
 * two per line range), and hash tables of 12 bytes a slot (at most four
 * slots per class, member and distinct member name).
 * Errors: a line longer than HP_MAPPING_LINE_MAX bytes, one that is no
 * comment, class or member line, a member before any class, a bad number:
 * HP_EFORMAT with *line the line number (1-based; 0 when the error is not
 * about one line, as for a read error, HP_EIO).
 */
#ifndef HP_MAPPING_H
#define HP_MAPPING_H

#include <stddef.h>
#include <stdint.h>
#include "base/error.h"
#include "model/heap.h"

#define HP_MAPPING_LINE_MAX 65536

typedef struct hp_mapping hp_mapping;

/* Reads the mapping file at path. */
int hp_mapping_read(hp_mapping **out, const char *path, size_t *line, struct hp_error *err) HP_MUST_USE;
/* The same from memory (len bytes at buf). */
int hp_mapping_parse(hp_mapping **out, const char *buf, size_t len, size_t *line,
		     struct hp_error *err) HP_MUST_USE;
void hp_mapping_free(hp_mapping *m);
/* classes, fields and methods the file lists */
void hp_mapping_counts(const hp_mapping *m, uint64_t *classes, uint64_t *fields, uint64_t *methods);

/* What hp_mapping_apply() changed: classes (array classes included),
 * fields (each declaration: instance and static) and stack frames renamed. */
struct hp_mapping_stats {
	uint64_t classes, fields, frames;
};

int hp_mapping_apply(const hp_mapping *m, hp_heap *h, struct hp_mapping_stats *st,
		     struct hp_error *err) HP_MUST_USE;

#endif
