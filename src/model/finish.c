/*
 * finish.c — after the parse: names, super chains, the size model, the
 * histogram sums and the sorted object table with its id index.
 *
 * Size models (the man page documents the same):
 *  mat  (HotSpot default, Eclipse MAT's): pointer = id size, ref = 4 when an
 *       object array starts inside where the previous one would end with
 *       8-byte references, else the id size; header = pointer + ref;
 *       align = largest power of two dividing the GCD of id differences,
 *       clamped to 8..256.  Instance = align(level sizes up the super chain,
 *       each level aligned to ref), object array = align(header + 4 + n*ref),
 *       primitive array = align(align(header + 4, ref) + n*elem),
 *       class object = align(static field bytes).
 *  ahat (Android default): instance = CLASS DUMP instance size; arrays =
 *       elements only; class object = java.lang.Class instance size + statics.
 *  raw: the bytes the dump holds: instance field bytes, array elements,
 *       static values; no header, no alignment.
 *  visualvm (VisualVM's heap library, lib.jfluid.heap): align = 8; ref =
 *       4 with 4-byte ids, else the difference of two static long offsets
 *       VisualVM reads (java.lang.Class$Atomic.annotationTypeOffset -
 *       annotationDataOffset, else FutureTask.waitersOffset - runnerOffset),
 *       else (VisualVM looks for the system property
 *       java.vm.compressedOopsMode, which needs object data) mat's evidence
 *       of compressed references, else the id size; header = id + ref.
 *       Instance = align(header + the fields of the whole super chain, refs
 *       at ref), with no per-level rounding; arrays = align(header + 4 +
 *       n*elem), references at ref; class objects = 0 (VisualVM leaves them
 *       out of the heap's size and of retained sizes).  When java.lang.Object's
 *       CLASS DUMP states a non-zero instance size (Android), header = that
 *       size, ref = header - id (4 or 8), and an instance takes the size its
 *       CLASS DUMP states, unaligned, as VisualVM does.
 *  netbeans (the NetBeans profiler's heap library, VisualVM's ancestor, as
 *       in NetBeans 9): header = 2 ids, ref = id, instance = header + the
 *       fields of the chain (the CLASS DUMP's size when java.lang.Object's
 *       is not 0), arrays = header + 8 + n*elem, class objects = 0, no
 *       alignment.
 */
#include "model/heap.h"
#include "model/build.h"
#include "model/vmlayout.h"
#include "base/alloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return a <= 1 ? v : (v + a - 1) / a * a;
}

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
			if (h->nclasses >= h->build->classes_cap) {
				size_t nc = h->build->classes_cap ? h->build->classes_cap * 2 : 16;
				struct hp_class *n = hp_reallocarray(h->classes, nc, sizeof *n);
				if (!n)
					return HP_ENOMEM;
				h->classes = n;
				h->build->classes_cap = nc;
			}
			struct hp_class *c = &h->classes[h->nclasses];
			memset(c, 0, sizeof *c);
			c->super = HP_NONE;
			c->row = HP_NONE;
			c->synthetic = 1;
			HP_TRY(hp_build_text(h->build, "java.lang.Class", 15, &c->name));
			h->nclasses++;
		}
		h->jlc = (uint32_t)i;
	}
	return HP_OK;
}

static unsigned largest_pow2_divisor(uint64_t g)
{
	if (!g)
		return 8;
	uint64_t p = g & (~g + 1);
	if (p < 8)
		p = 8;
	if (p > 256)
		p = 256;
	return (unsigned)p;
}

/* the value of a static field of type long of the class named cls, 0 if none */
static int static_long(const hp_heap *h, const char *cls, const char *field, int64_t *out)
{
	size_t fl = strlen(field);
	for (size_t i = 0; i < h->nclasses; i++) {
		const struct hp_class *c = &h->classes[i];
		if (!c->dumped || !c->name || strcmp(hp_class_name(h, i), cls))
			continue;
		for (uint32_t k = 0; k < c->n_statics; k++) {
			const struct hp_static *st = &h->statics[c->first_static + k];
			uint32_t n;
			const char *s = hp_heap_string(h, st->name_sid, &n);
			if (st->type == HP_T_LONG && s && n == fl && !memcmp(s, field, n)) {
				*out = (int64_t)st->value;
				return 1;
			}
		}
	}
	return 0;
}

/* VisualVM's guess of the reference size from two static offsets: 0 when it has none */
static unsigned offsets_diff(const hp_heap *h, const char *cls, const char *f1, const char *f2)
{
	int64_t a, b;
	if (!static_long(h, cls, f1, &a) || !static_long(h, cls, f2, &b))
		return 0;
	int32_t d = (int32_t)(b - a);
	return d == 4 || d == 8 ? (unsigned)d : 0;
}

static void decide_visualvm(hp_heap *h, struct hp_size_model *m)
{
	unsigned I = h->I;
	uint32_t obj_size = h->jlo != HP_NONE && h->classes[h->jlo].dumped ? h->classes[h->jlo].instance_size : 0;
	m->align = 8;
	m->align_source = 0;
	if (obj_size > 0) {
		/* the CLASS DUMP sizes are real (Android): VisualVM's "newSize" */
		m->real_instance_sizes = 1;
		m->header = obj_size;
		m->header_source = 1;
		m->ref_size = I != 8 ? I : obj_size - I == 4 || obj_size - I == 8 ? obj_size - I : obj_size < I + 8 ? 4 : 8;
		m->ref_source = I == 8 ? 1 : 0;
		return;
	}
	if (I != 8) {
		m->ref_size = I;
		m->ref_source = 0;
	} else {
		unsigned r = offsets_diff(h, "java.lang.Class$Atomic", "annotationDataOffset", "annotationTypeOffset");
		if (!r)
			r = offsets_diff(h, "java.util.concurrent.FutureTask", "runnerOffset", "waitersOffset");
		if (!r && h->build->found_compressed)
			r = 4;
		m->ref_size = r ? r : I;
		m->ref_source = r ? 1 : 0;
	}
	m->header = I + m->ref_size;
	m->header_source = 1;
}

static void decide_model(hp_heap *h)
{
	struct hp_size_model *m = &h->size;
	const struct hp_heap_opts *o = &h->opts;
	struct hp_vm_evidence ev = m->vm;
	memset(m, 0, sizeof *m);
	m->vm = ev;
	m->id_size = h->I;
	m->kind = o->size_kind;
	m->gcd = h->build->gcd;
	m->compressed_evidence = h->build->found_compressed ? h->build->compressed_at : 0;
	if (m->kind == HP_SIZE_AUTO)
		m->kind = h->header.version == 3 ? HP_SIZE_AHAT : h->size.vm.allowed ? HP_SIZE_VM : HP_SIZE_MAT;
	switch (m->kind) {
	case HP_SIZE_MAT:
		m->ref_size = h->build->found_compressed ? 4 : h->I;
		m->ref_source = h->I == 8 ? 1 : 0;
		m->header = h->I + m->ref_size;
		m->header_source = 1;
		m->align = largest_pow2_divisor(h->build->gcd);
		m->align_source = 1;
		break;
	case HP_SIZE_VISUALVM:
		decide_visualvm(h, m);
		break;
	case HP_SIZE_VM:
		break;          /* vm_decide() set them */
	case HP_SIZE_NETBEANS:
		m->ref_size = h->I;
		m->header = 2 * h->I;
		m->align = 1;
		m->real_instance_sizes = h->jlo != HP_NONE && h->classes[h->jlo].dumped &&
					 h->classes[h->jlo].instance_size > 0;
		break;
	default:   /* ahat, raw */
		m->ref_size = h->I;
		m->header = 0;
		m->align = 1;
		break;
	}
	if (m->kind == HP_SIZE_VM) {
		m->ref_size = m->vm.ref;
		m->header = m->vm.header;
		m->align = m->vm.align;
		m->ref_source = m->vm.ref_source;
		m->header_source = m->vm.header_source;
		m->align_source = o->align ? 2 : 1;
		m->array_header = m->vm.array_base[0];
		if (h->jlc != HP_NONE)
			m->class_instance_size = m->vm.class_size;
		return;
	}
	if (o->ref_size) {
		m->ref_size = (unsigned)o->ref_size;
		m->ref_source = 2;
		if (m->kind != HP_SIZE_AHAT && m->kind != HP_SIZE_RAW && !o->header_size) {
			m->header = h->I + m->ref_size;
			m->header_source = 2;
		}
	}
	if (o->header_size) {
		m->header = (unsigned)o->header_size;
		m->header_source = 2;
	}
	if (o->align) {
		m->align = (unsigned)o->align;
		m->align_source = 2;
	}
	m->array_header = m->header + (m->kind == HP_SIZE_MAT || m->kind == HP_SIZE_VISUALVM ? 4 :
				       m->kind == HP_SIZE_NETBEANS ? 8 : 0);
	if (h->jlc != HP_NONE)
		m->class_instance_size = h->classes[h->jlc].instance_size;
}

/* ---- the vm model: HotSpot's own sizes ---------------------------------- */

static const unsigned gap_bases[4] = { 12, 16, 20, 24 };

static int best_base(const struct hp_gaps *g, int k, uint64_t *hits)
{
	int best = 0;
	for (int j = 1; j < 4; j++)
		if (g->arr_hit[k][j] > g->arr_hit[k][best])
			best = j;
	*hits = g->arr_hit[k][best];
	return best;
}

/* gaps after instances of class k equal to size */
static uint64_t gaps_equal(const struct hp_gaps *g, size_t k, uint64_t size)
{
	if (k >= g->inst_cap)
		return 0;
	const struct hp_gapstat *s = &g->inst[k];
	uint64_t n = 0;
	for (int i = 0; i < 3; i++)
		if (s->n[i] && s->v[i] == size)
			n += s->n[i];
	return n;
}

/* the most common gap after instances of k when it is strong evidence: 2
 * or more of them and a majority; else 0 */
static uint64_t gap_mode(const struct hp_gaps *g, size_t k)
{
	if (k >= g->inst_cap)
		return 0;
	const struct hp_gapstat *s = &g->inst[k];
	uint64_t tot = (uint64_t)s->n[0] + s->n[1] + s->n[2] + s->other;
	return s->n[0] >= 2 && 2ull * s->n[0] > tot ? s->v[0] : 0;
}

static int has_instances(const hp_heap *h, const struct hp_class *c)
{
	for (uint32_t r = c->row; r != HP_NONE; r = h->rows[r].next)
		if (h->rows[r].count && !h->rows[r].is_array)
			return 1;
	return 0;
}

/* Infers the VM's layout parameters and the size of every class from the
 * gaps and the rules; the sizes go to b->vm_inst and b->vm_mirror. */
static int vm_decide(hp_heap *h)
{
	struct hp_vm_evidence *v = &h->size.vm;
	struct hp_heap_build *b = h->build;
	const struct hp_gaps *g = &b->gaps;
	const struct hp_heap_opts *o = &h->opts;
	unsigned I = h->I;
	size_t n = h->nclasses;
	memset(v, 0, sizeof *v);
	v->objects = g->objects;
	v->inst_gaps = g->inst_gaps;
	v->arr_gaps = g->arr_gaps;
	v->align = o->align ? (unsigned)o->align : largest_pow2_divisor(b->gcd);

	/* references: object arrays spaced for 4- or 8-byte elements */
	uint64_t h4, h8;
	best_base(g, 4, &h4);
	best_base(g, 5, &h8);
	int refk = 0;
	if (o->ref_size) {
		v->ref = (unsigned)o->ref_size;
		v->ref_source = 2;
	} else if (I != 8) {
		v->ref = I;
	} else if (g->arr_obs[4] >= 8 && h4 != h8 && 2 * (h4 > h8 ? h4 : h8) >= g->arr_obs[4]) {
		v->ref = h4 > h8 ? 4 : 8;
		v->ref_source = 1;
	} else {
		v->ref = b->found_compressed ? 4 : I;
	}
	refk = v->ref == 4 ? 4 : 5;
	v->ref_arr_gaps = g->arr_obs[refk];

	/* where the elements start, per element size (a base another one
	 * ties with under the alignment is taken only as the default's twin) */
	int known[4];
	for (int k = 0; k < 4; k++) {
		uint64_t hk;
		int j = best_base(g, k, &hk);
		known[k] = g->arr_obs[k] >= 8 && 2 * hk >= g->arr_obs[k] ? (int)gap_bases[j] : 0;
	}
	/* the header: 12 when byte[] start at 16 (compressed class pointers),
	 * 16 when at 20 or 24 (one-byte elements tell every base apart) */
	if (o->header_size) {
		v->header = (unsigned)o->header_size;
		v->header_source = 2;
	} else if (I != 8) {
		v->header = 2 * I;
	} else {
		int base = known[0] ? known[0] : known[1] ? known[1] : known[2];
		if (base) {
			/* 12: an 8-byte header (compact object headers, JDK 24+) */
			v->header = base <= 12 ? 8 : base <= 16 ? 12 : 16;
			v->header_source = 1;
		} else {
			v->header = I + v->ref;
		}
	}
	for (int k = 0; k < 5; k++) {
		int kk = k < 4 ? k : refk;
		unsigned e = k < 4 ? 1u << k : v->ref;
		unsigned dflt = (unsigned)align_up(v->header + 4, e > I ? e : I);
		unsigned base = dflt;
		if (v->header_source != 2 && g->arr_obs[kk] >= 8) {
			uint64_t hk, hd = 0;
			int j = best_base(g, kk, &hk);
			for (int q = 0; q < 4; q++)
				if (gap_bases[q] == dflt)
					hd = g->arr_hit[kk][q];
			if (2 * hk >= g->arr_obs[kk] && hd < hk)
				base = gap_bases[j];
		}
		if (k < 4)
			v->array_base[k] = base;
		else
			v->ref_array_base = base;
		v->arr_tested += g->arr_obs[kk];
		for (int q = 0; q < 4; q++)
			if (gap_bases[q] == base)
				v->arr_agree += g->arr_hit[kk][q];
	}

	/* the field layout: the rule more gaps agree with */
	uint64_t *inst[2] = { hp_calloc(n ? n : 1, sizeof(uint64_t)), hp_calloc(n ? n : 1, sizeof(uint64_t)) };
	uint64_t *mirror = hp_calloc(n ? n : 1, sizeof(uint64_t));
	int rc = inst[0] && inst[1] && mirror ? HP_OK : HP_ENOMEM;
	struct hp_vmlayout_cfg cfg = { v->header, v->ref, v->align, I, 0, 0, NULL, NULL };
	for (int r = 0; r < 2 && rc == HP_OK; r++) {
		cfg.jdk15 = r;
		rc = hp_vmlayout_sizes(h, &cfg, 0, inst[r], NULL);
		for (size_t k = 0; k < n && rc == HP_OK; k++)
			v->rule_agree[r] += gaps_equal(g, k, inst[r][k]);
	}
	if (rc == HP_OK) {
		v->jdk15 = v->rule_agree[1] >= v->rule_agree[0];
		cfg.jdk15 = v->jdk15;
		uint64_t *sz = inst[v->jdk15];
		/* java.lang.Class: the primitive-type mirrors are its instances */
		uint64_t cs = h->jlc != HP_NONE ? sz[h->jlc] : 0, cm = h->jlc != HP_NONE ? gap_mode(g, h->jlc) : 0;
		v->class_size = cm ? cm : cs;
		v->class_size_source = cm != 0;
		rc = hp_vmlayout_sizes(h, &cfg, v->class_size, sz, mirror);
		/* the injected and @Contended fields are JDK 17's: a class whose
		 * gaps say its size is the one without them (another JDK) loses
		 * them, and its subclasses with it */
		uint8_t *drop = NULL;
		if (rc == HP_OK && v->jdk15) {
			struct hp_vmlayout_cfg bare = cfg;
			bare.no_extras = 1;
			drop = hp_calloc(n ? n : 1, 1);
			rc = drop ? hp_vmlayout_sizes(h, &bare, 0, inst[0], NULL) : HP_ENOMEM;
			int any = 0;
			for (size_t k = 0; k < n && rc == HP_OK; k++) {
				uint64_t mode = gap_mode(g, k);
				if (mode && mode != sz[k] && mode == inst[0][k] && hp_vmlayout_extra_of(h, k))
					drop[k] = any = 1;
			}
			if (rc == HP_OK && any) {
				cfg.no_extra = drop;
				rc = hp_vmlayout_sizes(h, &cfg, v->class_size, sz, mirror);
			}
		}
		hp_free(drop);
		/* a class whose gaps say otherwise gets its gap, and its
		 * subclasses lay out after it */
		uint64_t *opaque = rc == HP_OK ? hp_calloc(n ? n : 1, sizeof *opaque) : NULL;
		int any = 0;
		if (rc == HP_OK && !opaque)
			rc = HP_ENOMEM;
		for (size_t k = 0; k < n && rc == HP_OK; k++) {
			uint64_t mode = has_instances(h, &h->classes[k]) ? gap_mode(g, k) : 0;
			if (mode && mode != sz[k])
				opaque[k] = mode, any = 1;
		}
		if (rc == HP_OK && any) {
			cfg.opaque = opaque;
			rc = hp_vmlayout_sizes(h, &cfg, v->class_size, sz, mirror);
		}
		for (size_t k = 0; k < n && rc == HP_OK; k++) {
			if (!has_instances(h, &h->classes[k]))
				continue;
			if (opaque[k]) {
				v->classes_gaps++;
			} else {
				uint64_t mode = gap_mode(g, k);
				v->classes_rule++;
				v->classes_confirmed += mode == sz[k];
			}
		}
		hp_free(opaque);
		for (size_t k = 0; k < n && rc == HP_OK; k++) {
			v->sized_agree += gaps_equal(g, k, sz[k]);
			if (k < g->mirror_cap && g->mirror[k] && h->classes[k].dumped) {
				v->mirrors_measured++;
				v->mirrors_agree += g->mirror[k] == mirror[k];
			}
		}
	}
	if (rc != HP_OK) {
		hp_free(inst[0]);
		hp_free(inst[1]);
		hp_free(mirror);
		return rc;
	}
	b->vm_inst = inst[v->jdk15];
	hp_free(inst[!v->jdk15]);
	b->vm_mirror = mirror;

	uint64_t best = v->rule_agree[v->jdk15];
	if (h->header.version == 3)
		v->why_not = "an Android dump (ART lays objects out otherwise)";
	else if (I != 8 && I != 4)
		v->why_not = "the id size is neither 4 nor 8";
	else if (g->off)
		v->why_not = "class objects are interleaved with the other records";
	else if (!b->gcd || b->gcd % 8)
		v->why_not = "object ids are not 8-byte aligned addresses";
	else if (v->inst_gaps < 100)
		v->why_not = "fewer than 100 gaps between instances";
	else if (2 * best < v->inst_gaps)
		v->why_not = "fewer than half of the gaps between instances agree with a layout rule";
	else if (v->arr_tested && 2 * v->arr_agree < v->arr_tested)
		v->why_not = "fewer than half of the gaps after arrays agree with an array layout";
	v->allowed = v->why_not == NULL;
	return HP_OK;
}

static void vm_apply(hp_heap *h)
{
	const struct hp_heap_build *b = h->build;
	for (size_t k = 0; k < h->nclasses; k++) {
		struct hp_class *c = &h->classes[k];
		c->inst_size = b->vm_inst[k];
		c->self_size = b->vm_mirror[k];
	}
}

static unsigned log2_size(unsigned e)
{
	return e >= 8 ? 3 : e >= 4 ? 2 : e >= 2 ? 1 : 0;
}

static unsigned elem_size(const hp_heap *h, const struct hp_class *c)
{
	if (c->kind == HP_CK_PRIMARRAY)
		return hp_type_size(c->elem_type, h->I);
	return h->size.kind == HP_SIZE_AHAT || h->size.kind == HP_SIZE_RAW ? h->I : h->size.ref_size;
}

/* base bytes of an array before its elements */
static uint64_t array_base(const hp_heap *h, const struct hp_class *c)
{
	const struct hp_size_model *m = &h->size;
	if (m->kind == HP_SIZE_VM)
		return c->kind == HP_CK_PRIMARRAY ? m->vm.array_base[log2_size(hp_type_size(c->elem_type, h->I))]
						  : m->vm.ref_array_base;
	if (m->kind == HP_SIZE_VISUALVM || m->kind == HP_SIZE_NETBEANS)
		return m->array_header;
	if (m->kind != HP_SIZE_MAT)
		return 0;
	if (c->kind == HP_CK_PRIMARRAY)
		return align_up(m->header + 4, m->ref_size);
	return m->header + 4;
}

uint64_t hp_heap_array_size(const hp_heap *h, const struct hp_class *c, uint64_t n)
{
	return align_up(array_base(h, c) + n * elem_size(h, c), h->size.align);
}

/* The instance size a CLASS DUMP states (ahat, and VisualVM's real sizes),
 * unless no instance could take it: more than the chain's field bytes (the
 * record's; `fields`) plus a header and padding.  Such a size (0xffffffff,
 * say) would make a few instances terabytes; the field bytes are used and
 * a warning says so. */
#define HP_INSTANCE_SLACK 256
static uint64_t stated_size(hp_heap *h, uint32_t k, uint64_t fields, int *rc)
{
	const struct hp_class *cl = &h->classes[k];
	if ((uint64_t)cl->instance_size <= fields + HP_INSTANCE_SLACK)
		return cl->instance_size;
	if (*rc == HP_OK)
		*rc = hp_heap_add_warning(h, "class %s: its CLASS DUMP states an instance size of %u bytes, "
					  "which no instance with %llu bytes of fields takes; %llu is used",
					  hp_class_name(h, k), cl->instance_size, (unsigned long long)fields,
					  (unsigned long long)fields);
	return fields;
}

/* instance sizes: iterative up the super chain, memoised, loop-safe */
static int instance_sizes(hp_heap *h)
{
	const struct hp_size_model *m = &h->size;
	unsigned I = h->I;
	size_t n = h->nclasses;
	uint8_t *state = hp_calloc(n ? n : 1, 1);   /* 0 todo, 1 on stack, 2 done */
	uint64_t *level = hp_calloc(n ? n : 1, sizeof *level);
	uint32_t *stack = hp_reallocarray(NULL, n ? n : 1, sizeof *stack);
	if (!state || !level || !stack) {
		hp_free(state);
		hp_free(level);
		hp_free(stack);
		return HP_ENOMEM;
	}
	int rc = HP_OK;
	for (size_t i = 0; i < n; i++) {
		if (state[i] == 2)
			continue;
		/* push the chain until a done class, a root or a loop */
		size_t sp = 0;
		uint32_t c = (uint32_t)i;
		int loop = 0;
		while (c != HP_NONE && state[c] != 2) {
			if (state[c] == 1) {
				loop = 1;
				break;
			}
			state[c] = 1;
			stack[sp++] = c;
			c = h->classes[c].super;
		}
		if (loop) {
			rc = hp_heap_add_warning(h, "the super class chain of %s loops; it is cut",
						 hp_class_name(h, i));
			if (rc)
				break;
		}
		/* pop: compute each level from its super's */
		while (sp > 0) {
			uint32_t k = stack[--sp];
			struct hp_class *cl = &h->classes[k];
			uint32_t s = cl->super;
			int has_super = s != HP_NONE && state[s] == 2 && !(loop && sp == 0 && s == c);
			uint64_t own_mat = (uint64_t)cl->own_refs * m->ref_size + cl->own_prim;
			uint64_t own_raw = (uint64_t)cl->own_refs * I + cl->own_prim;
			switch (m->kind) {
			case HP_SIZE_MAT:
				if (!cl->super_id && !has_super)
					level[k] = m->header;           /* java.lang.Object */
				else
					level[k] = align_up(own_mat + (has_super ? level[s] : m->header), m->ref_size);
				cl->inst_size = align_up(level[k], m->align);
				break;
			case HP_SIZE_AHAT:
				level[k] = own_raw + (has_super ? level[s] : 0);
				cl->inst_size = stated_size(h, k, level[k], &rc);
				break;
			case HP_SIZE_VISUALVM:
			case HP_SIZE_NETBEANS:
				level[k] = own_mat + (has_super ? level[s] : m->header);
				cl->inst_size = m->real_instance_sizes ? stated_size(h, k, level[k], &rc)
								       : align_up(level[k], m->align);
				break;
			default:
				level[k] = own_raw + (has_super ? level[s] : 0);
				cl->inst_size = level[k];
				break;
			}
			state[k] = 2;
		}
	}
	hp_free(state);
	hp_free(level);
	hp_free(stack);
	/* class objects */
	for (size_t i = 0; i < n && rc == HP_OK; i++) {
		struct hp_class *cl = &h->classes[i];
		uint64_t st_mat = (uint64_t)cl->static_refs * m->ref_size + cl->static_prim;
		uint64_t st_raw = (uint64_t)cl->static_refs * I + cl->static_prim;
		switch (m->kind) {
		case HP_SIZE_MAT: cl->self_size = align_up(st_mat, m->align); break;
		case HP_SIZE_AHAT: cl->self_size = m->class_instance_size + st_raw; break;
		case HP_SIZE_VISUALVM: case HP_SIZE_NETBEANS: cl->self_size = 0; break;
		default: cl->self_size = st_raw; break;
		}
	}
	return rc;
}

static uint64_t row_array_total(const hp_heap *h, const struct hp_class *c, const struct hp_hrow *r,
				const uint64_t *lenmod)
{
	uint64_t base = array_base(h, c), es = elem_size(h, c), A = h->size.align;
	uint64_t total = r->count * base + r->sum_len * es;
	if (A > 1 && lenmod) {
		for (unsigned k = 0; k < HP_LENMOD; k++) {
			if (!lenmod[k])
				continue;
			uint64_t v = base + (uint64_t)k * es;
			total += lenmod[k] * ((A - v % A) % A);
		}
	}
	return total;
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
			uint32_t r = HP_NONE;
			for (uint32_t k = h->classes[h->jlc].row; k != HP_NONE; k = h->rows[k].next)
				if (h->rows[k].heap == c->heap)
					r = k;
			if (r == HP_NONE) {
				if (h->nrows >= h->build->rows_cap) {
					size_t nc = h->build->rows_cap ? h->build->rows_cap * 2 : 64;
					struct hp_hrow *nr = hp_reallocarray(h->rows, nc, sizeof *nr);
					if (!nr)
						return HP_ENOMEM;
					h->rows = nr;
					h->build->rows_cap = nc;
				}
				r = (uint32_t)h->nrows++;
				memset(&h->rows[r], 0, sizeof h->rows[r]);
				h->rows[r].cls = h->jlc;
				h->rows[r].heap = c->heap;
				h->rows[r].next = h->classes[h->jlc].row;
				h->classes[h->jlc].row = r;
			}
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
			r->shallow += row_array_total(h, c, r, i < h->build->lenmod_cap ? h->build->lenmod[i] : NULL);
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

/* ---- objects: sort by id, index ------------------------------------- */

static int is_sorted(const uint64_t *a, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (a[i] < a[i - 1])
			return 0;
	return 1;
}

/* LSD radix sort of the ids in place, 11 bits a pass (2,048 buckets keep the
 * scatter inside the TLB), carrying each id's original position so the other
 * columns can follow; digits that are the same in every id are skipped, so a
 * heap spanning a few GiB takes three passes.  Temporary memory: 16 bytes per
 * object (a second id buffer and two position buffers). */
#define RADIX_BITS 11
#define RADIX_N (1u << RADIX_BITS)

static int radix_sort_ids(uint64_t *ids, size_t n, uint32_t **out)
{
	uint64_t *k2 = hp_reallocarray(NULL, n, sizeof *k2);
	uint32_t *a = hp_reallocarray(NULL, n, sizeof *a);
	uint32_t *b = hp_reallocarray(NULL, n, sizeof *b);
	size_t *cnt = hp_calloc(RADIX_N, sizeof *cnt);
	if (!k2 || !a || !b || !cnt) {
		hp_free(k2);
		hp_free(a);
		hp_free(b);
		hp_free(cnt);
		return HP_ENOMEM;
	}
	uint64_t diff = 0;
	for (size_t i = 0; i < n; i++) {
		a[i] = (uint32_t)i;
		diff |= ids[i] ^ ids[0];
	}
	uint64_t *src = ids, *dst = k2;
	for (unsigned shift = 0; shift < 64; shift += RADIX_BITS) {
		if (!((diff >> shift) & (RADIX_N - 1)))
			continue;
		memset(cnt, 0, RADIX_N * sizeof *cnt);
		for (size_t i = 0; i < n; i++)
			cnt[(src[i] >> shift) & (RADIX_N - 1)]++;
		size_t sum = 0;
		for (size_t d = 0; d < RADIX_N; d++) {
			size_t t = cnt[d];
			cnt[d] = sum;
			sum += t;
		}
		for (size_t i = 0; i < n; i++) {
			size_t at = cnt[(src[i] >> shift) & (RADIX_N - 1)]++;
			dst[at] = src[i];
			b[at] = a[i];
		}
		uint64_t *tk = src;
		src = dst;
		dst = tk;
		uint32_t *tp = a;
		a = b;
		b = tp;
	}
	if (src != ids)
		memcpy(ids, src, n * sizeof *ids);
	hp_free(k2);
	hp_free(b);
	hp_free(cnt);
	*out = a;
	return HP_OK;
}

#define PERMUTE(type, arr) do { \
	type *np_ = hp_reallocarray(NULL, n, sizeof *np_); \
	if (!np_) { hp_free(perm); return HP_ENOMEM; } \
	for (size_t i_ = 0; i_ < n; i_++) np_[i_] = (arr)[perm[i_]]; \
	hp_free(arr); (arr) = np_; } while (0)

struct run { uint64_t first, last; size_t start, len; };

#define LONG_RUN 256
#define LONG_MERGE 64       /* overlapping runs merge_runs() takes at most */

static int by_first(const void *a, const void *b)
{
	const struct run *x = a, *y = b;
	return x->first < y->first ? -1 : x->first > y->first;
}

struct idpos { uint64_t id; uint32_t pos; };

static int by_id(const void *a, const void *b)
{
	const struct idpos *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int by_id_pos(const void *a, const void *b)
{
	const struct idpos *x = a, *y = b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* the head of sequence q of merge_runs(): runs 0..nruns-1, the strays nruns */
struct mhead { uint64_t id; uint32_t pos, q; size_t at, end; };

static int mhead_less(const struct mhead *a, const struct mhead *b)
{
	return a->id != b->id ? a->id < b->id : a->pos < b->pos;
}

static void mheap_down(struct mhead *hp, size_t k, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		if (l < k && mhead_less(&hp[l], &hp[m]))
			m = l;
		if (l + 1 < k && mhead_less(&hp[l + 1], &hp[m]))
			m = l + 1;
		if (m == i)
			return;
		struct mhead t = hp[i];
		hp[i] = hp[m];
		hp[m] = t;
		i = m;
	}
}

/* Runs whose ranges overlap (a JDK 17 dump of a G1 heap has two): a merge
 * of the runs and the sorted strays through a heap of their heads, by id
 * and then file position, which is the order the stable radix sort gives,
 * duplicate ids included; O(n log k) for k runs, and a run is followed
 * without touching the heap while its ids stay below every other head. */
static void merge_runs(const uint64_t *ids, const struct run *runs, size_t nruns,
		       const struct idpos *stray, size_t nstray, uint64_t *sorted, uint32_t *perm)
{
	struct mhead hp[LONG_MERGE + 1];
	size_t k = 0, o = 0;
	for (size_t r = 0; r < nruns; r++)
		hp[k++] = (struct mhead){ ids[runs[r].start], (uint32_t)runs[r].start, (uint32_t)r,
					  runs[r].start, runs[r].start + runs[r].len };
	if (nstray)
		hp[k++] = (struct mhead){ stray[0].id, stray[0].pos, (uint32_t)nruns, 0, nstray };
	for (size_t i = k / 2; i-- > 0;)
		mheap_down(hp, k, i);
	while (k) {
		struct mhead *t = &hp[0];
		/* the next smallest head: the top's lesser child */
		const struct mhead *nx = k > 1 ? &hp[1] : NULL;
		if (k > 2 && mhead_less(&hp[2], &hp[1]))
			nx = &hp[2];
		for (;;) {
			sorted[o] = t->id;
			perm[o++] = t->pos;
			if (++t->at == t->end)
				break;
			if (t->q == nruns) {
				t->id = stray[t->at].id;
				t->pos = stray[t->at].pos;
			} else {
				t->id = ids[t->at];
				t->pos = (uint32_t)t->at;
			}
			if (nx && !mhead_less(t, nx))
				break;
		}
		if (t->at == t->end)
			hp[0] = hp[--k];
		mheap_down(hp, k, 0);
	}
}

/* HotSpot writes the class objects first, in no particular order, then each
 * heap region in address order (parallel dumpers: one region after another,
 * in any order).  So the ids are a few long sorted runs plus a few thousand
 * strays.  Sorting is then: sort the strays, order the long runs, merge the
 * two, in linear time when the runs' ranges are disjoint (else
 * merge_runs()).  Returns 1 with the permutation when the ids have that
 * shape, 0 when a general sort is needed, -1 when out of memory. */

static int sort_by_runs(uint64_t **idsp, size_t n, uint32_t **out)
{
	const uint64_t *ids = *idsp;
	size_t nlong = 0, nstray = 0, st = 0;
	for (size_t i = 1; i <= n; i++) {
		if (i == n || ids[i] <= ids[i - 1]) {
			if (i - st >= LONG_RUN)
				nlong++;
			else
				nstray += i - st;
			st = i;
		}
	}
	if (nstray > n / 8 || nlong > n / LONG_RUN)
		return 0;
	struct run *runs = hp_reallocarray(NULL, nlong ? nlong : 1, sizeof *runs);
	struct idpos *stray = hp_reallocarray(NULL, nstray ? nstray : 1, sizeof *stray);
	if (!runs || !stray) {
		hp_free(runs);
		hp_free(stray);
		return -1;
	}
	size_t k = 0, m = 0;
	st = 0;
	for (size_t i = 1; i <= n; i++) {
		if (i == n || ids[i] <= ids[i - 1]) {
			if (i - st >= LONG_RUN) {
				runs[k].first = ids[st];
				runs[k].last = ids[i - 1];
				runs[k].start = st;
				runs[k].len = i - st;
				k++;
			} else {
				for (size_t j = st; j < i; j++, m++) {
					stray[m].id = ids[j];
					stray[m].pos = (uint32_t)j;
				}
			}
			st = i;
		}
	}
	qsort(runs, nlong, sizeof *runs, by_first);
	int overlap = 0;
	for (size_t i = 1; i < nlong; i++)
		if (runs[i].first <= runs[i - 1].last)
			overlap = 1;
	if (overlap && nlong > LONG_MERGE) {
		hp_free(runs);
		hp_free(stray);
		return 0;
	}
	uint32_t *perm = hp_reallocarray(NULL, n, sizeof *perm);
	uint64_t *sorted = hp_reallocarray(NULL, n, sizeof *sorted);
	if (!perm || !sorted) {
		hp_free(perm);
		hp_free(sorted);
		hp_free(runs);
		hp_free(stray);
		return -1;
	}
	if (overlap) {
		qsort(stray, nstray, sizeof *stray, by_id_pos);
		merge_runs(ids, runs, nlong, stray, nstray, sorted, perm);
		goto done;
	}
	qsort(stray, nstray, sizeof *stray, by_id);
	size_t o = 0, si = 0;
	for (size_t r = 0; r < nlong; r++) {
		const uint64_t *src = ids + runs[r].start;
		for (size_t j = 0; j < runs[r].len; j++) {
			while (si < nstray && stray[si].id <= src[j]) {
				sorted[o] = stray[si].id;
				perm[o++] = stray[si++].pos;
			}
			sorted[o] = src[j];
			perm[o++] = (uint32_t)(runs[r].start + j);
		}
	}
	while (si < nstray) {
		sorted[o] = stray[si].id;
		perm[o++] = stray[si++].pos;
	}
done:
	hp_free(*idsp);          /* the sorted copy takes the column's place */
	*idsp = sorted;
	hp_free(runs);
	hp_free(stray);
	*out = perm;
	return 1;
}

static int sort_objects(hp_heap *h)
{
	size_t n = h->nobj;
	if (n == 0 || is_sorted(h->ids, n))
		return HP_OK;
	uint32_t *perm;
	int k = sort_by_runs(&h->ids, n, &perm);
	if (k < 0)
		return HP_ENOMEM;
	if (k == 0)
		HP_TRY(radix_sort_ids(h->ids, n, &perm));
	/* the 32-bit columns go through one scratch block: each column's old
	 * block is the next one's scratch (fresh memory costs page faults) */
	{
		uint32_t *scratch = hp_reallocarray(NULL, n, sizeof *scratch);
		if (!scratch) {
			hp_free(perm);
			return HP_ENOMEM;
		}
		uint32_t **col[3] = { &h->cls, &h->len, &h->off_lo };
		for (int c = 0; c < 3; c++) {
			const uint32_t *a = *col[c];
			for (size_t i = 0; i < n; i++)
				scratch[i] = a[perm[i]];
			uint32_t *t = *col[c];
			*col[c] = scratch;
			scratch = t;
		}
		hp_free(scratch);
	}
	PERMUTE(uint16_t, h->off_hi);
	/* invert in place: perm[i] = file index of number i -> file_order[k] = number */
	uint32_t *inv = hp_reallocarray(NULL, n, sizeof *inv);
	if (inv) {
		for (size_t i = 0; i < n; i++)
			inv[perm[i]] = (uint32_t)i;
		h->file_order = inv;
	}
	hp_free(perm);
	return HP_OK;
}

static int build_index(hp_heap *h)
{
	size_t n = h->nobj;
	if (!n)
		return HP_OK;
	for (size_t i = 1; i < n; i++)
		if (h->ids[i] == h->ids[i - 1])
			h->duplicate_ids++;
	if (h->duplicate_ids)
		HP_TRY(hp_heap_add_warning(h, "%llu object ids appear more than once; lookups find the first",
					   (unsigned long long)h->duplicate_ids));
	h->min_id = h->ids[0];
	uint64_t span = h->ids[n - 1] - h->min_id;
	size_t want = n / 16 + 1;
	unsigned shift = 0;
	while (shift < 63 && (span >> shift) >= want)
		shift++;
	h->bucket_shift = shift;
	h->nbuckets = (size_t)(span >> shift) + 1;
	h->bucket = hp_reallocarray(NULL, h->nbuckets + 1, sizeof *h->bucket);
	if (!h->bucket)
		return HP_ENOMEM;
	size_t i = 0;
	for (size_t b = 0; b <= h->nbuckets; b++) {
		while (i < n && ((h->ids[i] - h->min_id) >> shift) < b)
			i++;
		h->bucket[b] = (uint32_t)i;
	}
	return HP_OK;
}

size_t hp_heap_find(const hp_heap *h, uint64_t id)
{
	if (!h->nobj || id < h->min_id)
		return SIZE_MAX;
	uint64_t b = (id - h->min_id) >> h->bucket_shift;
	if (b >= h->nbuckets)
		return SIZE_MAX;
	size_t lo = h->bucket[b], hi = h->bucket[b + 1];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (h->ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < h->nobj && h->ids[lo] == id ? lo : SIZE_MAX;
}

uint64_t hp_heap_shallow(const hp_heap *h, size_t i)
{
	const struct hp_class *c = &h->classes[h->cls[i]];
	switch (hp_heap_kind(h, i)) {
	case HP_OBJ_INSTANCE: return c->inst_size;
	case HP_OBJ_CLASS: {
		size_t k = hp_idmap_get(&h->class_map, h->ids[i]);
		return k == HP_IDMAP_NONE ? 0 : h->classes[k].self_size;
	}
	default: return hp_heap_array_size(h, c, h->len[i]);
	}
}

uint64_t hp_heap_model_bytes(const hp_heap *h)
{
	return (uint64_t)h->nobj * (8 + 4 + 4 + 4 + 2) + (h->bucket ? (h->nbuckets + 1) * 4 : 0);
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
	 * instance_sizes()' three arrays */
	uint64_t transient = idmap_bytes(t->strings) / 2;
	if (nclasses * 13 > transient)
		transient = nclasses * 13;
	/* vm_decide(): three sizes per class, and the layouts' field blocks */
	if (nclasses * 24 + t->fields * 16 > transient)
		transient = nclasses * 24 + t->fields * 16;

	uint64_t n = h->n_instances + h->n_objarrays + h->n_primarrays + t->class_dumps;
	if (h->opts.build_objects && n) {
		b += grown(n, 1 << 14) * (8 + 4 + 4 + 4 + 2);    /* the columns, as grown */
		b += (n / 16 + 2) * sizeof *h->bucket;
		if (t->unsorted) {
			/* file_order stays; sort_objects() needs 16 bytes per object
			 * at its peak (radix: a second id buffer, two positions) */
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
	/* class objects of a built model point at java.lang.Class */
	if (h->opts.build_objects && h->jlc != HP_NONE)
		for (size_t i = 0; i < h->nobj; i++)
			if (hp_heap_kind(h, i) == HP_OBJ_CLASS)
				h->cls[i] = h->jlc;
	if (((h->header.version != 3 && h->opts.size_kind == HP_SIZE_AUTO) || h->opts.size_kind == HP_SIZE_VM) &&
	    (rc = vm_decide(h)) != HP_OK)
		goto fail;
	decide_model(h);
	if (h->size.kind == HP_SIZE_VM)
		vm_apply(h);
	else if ((rc = instance_sizes(h)) != HP_OK)
		goto fail;
	if ((rc = sum_rows(h)) != HP_OK)
		goto fail;
	if (h->opts.build_objects) {
		if ((rc = sort_objects(h)) != HP_OK)
			goto fail;
		if ((rc = build_index(h)) != HP_OK)
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
