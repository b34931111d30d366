/*
 * vmlayout.h — HotSpot's object sizes from the field lists of a dump, as the
 * VM lays fields out (the `vm` size model, sizemodel.c).
 *
 * Two rules:
 *   JDK 15+ (JDK-8237767, classfile/fieldLayoutBuilder.cpp): a class's
 *     fields start from its super class's layout, holes included; its
 *     primitive fields, by size descending, then its references each go into
 *     the smallest hole they fit (naturally aligned), else at the end.
 *     @Contended fields and classes get 128 bytes of padding around them
 *     (and a subclass of such a class appends after it); class objects
 *     (mirrors) are java.lang.Class instances with the statics after the
 *     Class fields: references first, then primitives by size.
 *   older: each class's fields after its super's, the level rounded up to
 *     the reference size (Eclipse MAT's rule; HotSpot 6 to 14 agree with it
 *     for nearly every class).
 * Both add the fields the VM injects, which a dump does not list
 * (java.lang.Class, ClassLoader, Module, MemberName, ResolvedMethodName and
 * a few more, as JDK 17's javaClasses.hpp names them), and know the
 * @Contended annotations of java.base (JDK 17); other JDKs differ (JDK 25's
 * Thread has no @Contended fields), so the caller can leave them out per
 * class where the gaps say so.  An instance is the layout's end rounded up
 * to the word, then to the object alignment.
 *
 * Input: the finished class table (names, supers, field types and statics).
 * Output: one size per class (hp_vmlayout_sizes()).  Time: linear in the
 * fields of the class table times the holes met (a handful); memory: the
 * field blocks of every class's chain while computing, freed at return.
 */
#ifndef HP_MODEL_VMLAYOUT_H
#define HP_MODEL_VMLAYOUT_H

#include <stdint.h>
#include "model/heap.h"

struct hp_vmlayout_cfg {
	unsigned header;          /* instance header: 12 (compressed class pointers), 16, or 8 (32-bit) */
	unsigned ref;             /* a reference field: 4 (compressed oops) or 8 */
	unsigned align;           /* object alignment (ObjectAlignmentInBytes) */
	unsigned word;            /* 8, or 4 on a 32-bit VM */
	int jdk15;                /* 1: the JDK 15+ layout; 0: the older rule */
	int no_extras;            /* leave out every injected and @Contended field */
	const uint8_t *no_extra;  /* per class: 1 leaves out its own (NULL: none) */
	const uint64_t *opaque;   /* per class: a size measured otherwise (0 none): the class
	                             is taken as fields up to there, no holes, and its
	                             subclasses' fields go after (NULL: none) */
};

/* What the VM adds to a class that its CLASS DUMP does not show. */
struct hp_vmlayout_extra {
	const char *injected;     /* injected field types: J long/intptr, I int, S short,
	                             B byte, Z boolean, L reference; NULL none */
	const char *const *contended;   /* names of @Contended fields (one group), NULL none */
	int contended_class;      /* the class itself is @Contended */
};
/* The extra of class k, or NULL. */
const struct hp_vmlayout_extra *hp_vmlayout_extra_of(const hp_heap *h, size_t k);

/* Instance size of every class into inst[k] and, for class objects, the
 * mirror's size (java.lang.Class's instance size class_size, plus the
 * statics) into mirror[k] (mirror may be NULL).  class_size 0: computed
 * from java.lang.Class's fields.  Classes without a CLASS DUMP get the size
 * of their super chain as far as known.  HP_ENOMEM when out of memory. */
int hp_vmlayout_sizes(const hp_heap *h, const struct hp_vmlayout_cfg *cfg, uint64_t class_size,
		      uint64_t *inst, uint64_t *mirror) HP_MUST_USE;

#endif
