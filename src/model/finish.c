/*
 * finish.c — after the parse: class names, java.lang.Class for class
 * objects, the size model (sizemodel.c: decided, then each class's sizes),
 * the histogram sums, the sorted object table and its id index (idsort.c),
 * and what the model needs under a memory limit.
 */
#include "model/heap.h"
#include "model/build.h"
#include "base/alloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int resolve_names(hp_heap *h)
{
	for (size_t i = 0; i < h->nclasses; i++) {
		struct hp_class *c = &h->classes[i];
		if (!c->name) {
			uint32_t n;
			const char *s = hp_heap_string(h, c->name_sid, &n);
			char *jn = NULL, buf[48];
			if (s) {
				if (!(jn = hp_java_name(s, n)))
					return HP_ENOMEM;
			} else {
				snprintf(buf, sizeof buf, "<unknown class 0x%llx>", (unsigned long long)c->id);
			}
			const char *nm = jn ? jn : buf;
			int rc = hp_build_text(h->build, nm, strlen(nm), &c->name);
			hp_free(jn);
			HP_TRY(rc);
		}
		const char *name = hp_class_name(h, i);
		if (h->jlc == HP_NONE && strcmp(name, "java.lang.Class") == 0 && !c->synthetic)
			h->jlc = (uint32_t)i;
		if (h->jlo == HP_NONE && strcmp(name, "java.lang.Object") == 0)
			h->jlo = (uint32_t)i;
		if (c->kind == HP_CK_INSTANCE) {
			size_t nl = strlen(name);
			if (nl > 2 && strcmp(name + nl - 2, "[]") == 0)
				c->kind = HP_CK_OBJARRAY;
		}
		if (!c->dumped && !c->synthetic && c->kind == HP_CK_INSTANCE && c->row != HP_NONE) {
			uint64_t cnt = 0;
			for (uint32_t r = c->row; r != HP_NONE; r = h->rows[r].next)
				cnt += h->rows[r].count;
			h->missing_class_objects += cnt;
			HP_TRY(hp_heap_add_warning(h, "%llu instances of class 0x%llx (%s), which has no CLASS DUMP; their size is unknown",
						   (unsigned long long)cnt, (unsigned long long)c->id, hp_class_name(h, i)));
		}
		if (c->dumped && c->super_id) {
			uint32_t s = hp_idmap_get(&h->class_map, c->super_id);
			c->super = s == HP_IDMAP_NONE ? HP_NONE : s;
			if (s == HP_IDMAP_NONE || !h->classes[s].dumped)
				HP_TRY(hp_heap_add_warning(h, "class %s: super class 0x%llx has no CLASS DUMP",
							   hp_class_name(h, i), (unsigned long long)c->super_id));
		}
	}
	if (h->jlc == HP_NONE && h->n_classobjs) {
		size_t i;
		for (i = 0; i < h->nclasses; i++)
			if (h->classes[i].synthetic && strcmp(hp_class_name(h, i), "java.lang.Class") == 0)
				break;
		if (i == h->nclasses) {
			if (hp_heap_class_new(h, 0) == HP_NONE)
				return HP_ENOMEM;
			h->classes[i].synthetic = 1;
			HP_TRY(hp_build_text(h->build, "java.lang.Class", 15, &h->classes[i].name));
		}
		h->jlc = (uint32_t)i;
	}
	return HP_OK;
}

/* hprof-conv's output (heap.h, hp_heap_android()): its one heap is "default" */
static int recognise_conversion(hp_heap *h)
{
	static const char *const art[] = { "dalvik.system.VMRuntime", "java.lang.DexCache" };
	if (h->header.version != 2 || h->I != 4 || h->jlo == HP_NONE || !h->classes[h->jlo].dumped ||
	    !h->classes[h->jlo].instance_size)
		return HP_OK;
	int found = 0;
	for (size_t i = 0; i < h->nclasses && !found; i++)
		for (size_t k = 0; k < sizeof art / sizeof art[0]; k++)
			if (h->classes[i].dumped && !strcmp(hp_class_name(h, i), art[k]))
				found = 1;
	if (!found)
		return HP_OK;
	h->android_conv = 1;
	return hp_build_text(h->build, "default", 7, &h->heap_name[0]);
}

/* the per-class instance counts of heap 0 become rows */
static int fold_counts(hp_heap *h)
{
	for (size_t i = 0; i < h->build->ccount_cap && i < h->nclasses; i++) {
		if (!h->build->ccount[i])
			continue;
		uint32_t r = hp_heap_row(h, (uint32_t)i, 0);
		if (r == HP_NONE)
			return HP_ENOMEM;
		h->rows[r].count += h->build->ccount[i];
		h->build->ccount[i] = 0;
	}
	return HP_OK;
}

static int sum_rows(hp_heap *h)
{
	/* class objects go to java.lang.Class in their heap */
	if (h->jlc != HP_NONE) {
		for (size_t i = 0; i < h->nclasses; i++) {
			struct hp_class *c = &h->classes[i];
			if (!c->dumped)
				continue;
			uint32_t r = hp_heap_row(h, h->jlc, c->heap);
			if (r == HP_NONE)
				return HP_ENOMEM;
			h->rows[r].class_objs++;
			h->rows[r].shallow += c->self_size;
			if (c->self_size > h->rows[r].max_shallow)
				h->rows[r].max_shallow = c->self_size;
		}
	}
	h->total_shallow = 0;
	memset(h->heap_objects, 0, sizeof h->heap_objects);
	memset(h->heap_bytes, 0, sizeof h->heap_bytes);
	for (size_t i = 0; i < h->nrows; i++) {
		struct hp_hrow *r = &h->rows[i];
		const struct hp_class *c = &h->classes[r->cls];
		if (r->is_array) {
			r->shallow += hp_size_array_row(h, c, r, i < h->build->lenmod_cap ? h->build->lenmod[i] : NULL);
			uint64_t mx = hp_heap_array_size(h, c, r->max_len);
			if (mx > r->max_shallow)
				r->max_shallow = mx;
		} else if (r->count) {
			r->shallow += r->count * c->inst_size;
			if (c->inst_size > r->max_shallow)
				r->max_shallow = c->inst_size;
		}
		h->total_shallow += r->shallow;
		h->heap_objects[r->heap] += r->count + r->class_objs;
		h->heap_bytes[r->heap] += r->shallow;
	}
	return HP_OK;
}

uint64_t hp_heap_model_bytes(const hp_heap *h)
{
	return (uint64_t)h->nobj * ((h->ids32 ? 4 : 8) + 4 + 4 + 4 + 2) + (h->bucket ? (h->nbuckets + 1) * 4 : 0);
}

/* ---- what the model needs (--max-memory) -------------------------------- */

/* the capacity a table doubling from `first` reaches for n entries */
static uint64_t grown(uint64_t n, uint64_t first)
{
	if (!n)
		return 0;
	uint64_t c = first;
	while (c < n)
		c *= 2;
	return c;
}

/* an idmap of n entries: 12 bytes a slot, at most half full, from 64 slots */
static uint64_t idmap_bytes(uint64_t n)
{
	if (!n)
		return 0;
	uint64_t c = 64;
	while (n * 2 > c)
		c *= 2;
	return c * 12;
}

#define NAME_BYTES 96            /* a class name, with the allocator's overhead */
#define SMALL_BYTES (128u << 10) /* warnings, heap names, the allocator's rounding */

void hp_heap_need(const hp_heap *h, struct hp_heap_need *need)
{
	memset(need, 0, sizeof *need);
	if (!h->build)
		return;              /* a finished heap needs what it holds */
	const struct hp_tally *t = &h->build->tally;
	/* classes: loaded or dumped, plus the ones made up for primitive
	 * arrays and java.lang.Class */
	uint64_t nclasses = (t->load_classes > t->class_dumps ? t->load_classes : t->class_dumps) + 9;
	/* array rows: distinct (class, heap) pairs, estimated from the
	 * fraction of the sketch's bits still clear (linear counting) */
	unsigned zeros = 0;
	for (size_t i = 0; i < HP_TALLY_ROWBITS / 64; i++)
		zeros += 64 - (unsigned)__builtin_popcountll(t->rowbits[i]);
	double m = HP_TALLY_ROWBITS;
	uint64_t arows = zeros ? (uint64_t)ceil(m * log(m / zeros)) : t->arrays;
	if (arows > t->arrays)
		arows = t->arrays;
	uint64_t nrows = arows + nclasses;     /* instance rows: one per class */

	uint64_t b = SMALL_BYTES;
	b += grown(t->string_bytes + t->strings, 1 << 16);                /* the string arena */
	b += grown(t->strings, 1024) * (sizeof *h->str_off + sizeof *h->str_len);
	b += idmap_bytes(t->strings);
	b += grown(nclasses, 64) * sizeof(struct hp_class) + nclasses * NAME_BYTES;
	b += idmap_bytes(nclasses) + idmap_bytes(t->load_classes);
	b += grown(nclasses, 256) * sizeof *h->build->ccount;
	/* the vm model's evidence (gaps.c): per class its gaps and its class
	 * object's, and the class objects' ids */
	b += grown(nclasses, 256) * (sizeof(struct hp_gapstat) + sizeof(uint32_t));
	b += grown(t->class_dumps, 1024) * sizeof(struct hp_mirror);
	b += grown(t->fields, 16) * sizeof(struct hp_field) + grown(t->statics, 16) * sizeof(struct hp_static);
	b += grown(nrows, 64) * sizeof(struct hp_hrow) + arows * HP_LENMOD * sizeof(uint64_t);
	b += grown(t->roots, 16) * sizeof(struct hp_root_rec);
	b += grown(t->frames, 16) * sizeof(struct hp_frame) + idmap_bytes(t->frames);
	b += grown(t->traces, 16) * sizeof(struct hp_trace_rec) + idmap_bytes(t->traces);
	b += grown(t->trace_frames, 16) * sizeof(uint64_t);
	b += grown(t->threads, 16) * sizeof(struct hp_thread_rec) + idmap_bytes(t->threads);
	/* the largest passing need: a map rehashing (old and new slots) or
	 * hp_size_instances()' three arrays */
	uint64_t transient = idmap_bytes(t->strings) / 2;
	if (nclasses * 13 > transient)
		transient = nclasses * 13;
	/* hp_size_vm_decide(): three sizes per class, and the layouts' field blocks */
	if (nclasses * 24 + t->fields * 16 > transient)
		transient = nclasses * 24 + t->fields * 16;

	uint64_t n = h->n_instances + h->n_objarrays + h->n_primarrays + t->class_dumps;
	if (h->opts.build_objects && n) {
		b += grown(n, 1 << 14) * (8 + 4 + 4 + 4 + 2);    /* the columns, as grown */
		b += (n / 16 + 2) * sizeof *h->bucket;
		if (t->unsorted) {
			/* file_order stays; hp_heap_sort_objects() needs 16 bytes
			 * per object at its peak (radix: a second id buffer, two
			 * positions) */
			b += n * sizeof *h->file_order;
			uint64_t sort = 12 * n + RADIX_N * sizeof(size_t);
			if (sort > transient)
				transient = sort;
		}
	}
	need->objects = n;
	need->tables = b;
	need->peak = b + transient;
}

int hp_heap_finish(hp_heap *h, struct hp_error *err)
{
	int rc;
	if (!h->build)
		return HP_OK;        /* finished already */
	if (h->build->over_limit)
		return hp_error_set(err, HP_ENOMEM, "the memory limit was reached while reading: the model is incomplete");
	if ((rc = fold_counts(h)) != HP_OK)
		goto fail;
	if ((rc = resolve_names(h)) != HP_OK)
		goto fail;
	if ((rc = recognise_conversion(h)) != HP_OK)
		goto fail;
	/* class objects of a built model point at java.lang.Class */
	if (h->opts.build_objects && h->jlc != HP_NONE)
		for (size_t i = 0; i < h->nobj; i++)
			if (hp_heap_kind(h, i) == HP_OBJ_CLASS)
				h->cls[i] = h->jlc;
	if (((!hp_heap_android(h) && h->opts.size_kind == HP_SIZE_AUTO) || h->opts.size_kind == HP_SIZE_VM) &&
	    (rc = hp_size_vm_decide(h)) != HP_OK)
		goto fail;
	hp_size_decide(h);
	if (h->size.kind == HP_SIZE_VM)
		hp_size_vm_apply(h);
	else if ((rc = hp_size_instances(h)) != HP_OK)
		goto fail;
	if ((rc = sum_rows(h)) != HP_OK)
		goto fail;
	if (h->opts.build_objects) {
		if ((rc = hp_heap_sort_objects(h)) != HP_OK)
			goto fail;
		if ((rc = hp_heap_build_index(h)) != HP_OK)
			goto fail;
	}
	hp_build_free(h->build);
	h->build = NULL;
	return HP_OK;
fail:
	if (rc == HP_ENOMEM)
		return hp_error_set(err, HP_ENOMEM, "out of memory while finishing the model");
	return hp_error_set(err, rc, "cannot finish the model");
}
