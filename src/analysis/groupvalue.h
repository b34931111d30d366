/*
 * groupvalue.h — Eclipse MAT's "group by value" (groupvalue.c): the
 * instances of some classes grouped by the value of one of their fields,
 * each group with its instances and their shallow and retained bytes.  A
 * value is a String's text (quoted as "text"), null, another object as
 * its class and id ("java.util.HashMap @0x7f3a10": each object a group), or
 * a primitive as Java writes it (42, true, 'x', 1.5).  Instances without
 * the field are one group, the value NULL with `missing` set.
 * Cost: one record read per instance (in file order), a String read per
 * String value; memory: one key per instance while grouping.
 */
#ifndef HP_ANALYSIS_GROUPVALUE_H
#define HP_ANALYSIS_GROUPVALUE_H

#include <stddef.h>
#include <stdint.h>
#include "base/error.h"
#include "model/heap.h"
#include "model/objread.h"
#include "analysis/retained.h"

struct hp_value_group {
	char *value;                  /* the value's text (owned); NULL: instances without the field */
	uint64_t instances, shallow, retained;
};

struct hp_value_groups {
	struct hp_value_group *g;     /* most instances first, then by value */
	size_t n;
	uint64_t instances, shallow, retained;   /* all of them */
	uint64_t missing;             /* instances without the field */
};

/* The instances (kind instance) among objs[0 .. nobjs) (object numbers,
 * read in that order: by number is file order) grouped by field `name`
 * (the nearest class's when a subclass repeats it); a String value's text
 * cut at max_chars characters (0: whole). */
int hp_group_by_value(const hp_heap *h, const struct hp_retained *R, hp_objread *rd, const uint32_t *objs,
		      size_t nobjs, const char *name, size_t max_chars, struct hp_value_groups *out,
		      struct hp_error *err) HP_MUST_USE;
void hp_value_groups_release(struct hp_value_groups *g);

#endif
