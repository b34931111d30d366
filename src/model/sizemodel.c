/*
 * sizemodel.c — the size model decided after the parse, and the sizes it
 * gives: of each class's instances and class object, of an array, of any
 * object (hp_heap_shallow()).  The vm model's evidence is gathered while
 * streaming (gaps.c) and its layouts computed by vmlayout.c; the others
 * follow the rules below.
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
 *  ahat (Android default, hp_heap_android()): instance = CLASS DUMP instance size; arrays =
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

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return a <= 1 ? v : (v + a - 1) / a * a;
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
	for (size_t i = 0; i < h->nclasses; i++) {
		const struct hp_class *c = &h->classes[i];
		if (!c->dumped || !c->name || strcmp(hp_class_name(h, i), cls))
			continue;
		const struct hp_static *st = hp_class_static(h, i, field, HP_T_LONG);
		if (st) {
			*out = (int64_t)st->value;
			return 1;
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

void hp_size_decide(hp_heap *h)
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
		m->kind = hp_heap_android(h) ? HP_SIZE_AHAT : h->size.vm.allowed ? HP_SIZE_VM : HP_SIZE_MAT;
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
		break;          /* hp_size_vm_decide() set them */
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
int hp_size_vm_decide(hp_heap *h)
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
	if (hp_heap_android(h))
		v->why_not = h->android_conv ? "an Android dump converted by hprof-conv (ART lays objects out otherwise)"
					     : "an Android dump (ART lays objects out otherwise)";
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

void hp_size_vm_apply(hp_heap *h)
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
int hp_size_instances(hp_heap *h)
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

uint64_t hp_size_array_row(const hp_heap *h, const struct hp_class *c, const struct hp_hrow *r,
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

uint64_t hp_heap_shallow_other(const hp_heap *h, size_t i)
{
	const struct hp_class *c = &h->classes[h->cls[i]];
	switch (hp_heap_kind(h, i)) {
	case HP_OBJ_INSTANCE: return c->inst_size;
	case HP_OBJ_CLASS: {
		size_t k = hp_idmap_get(&h->class_map, hp_heap_id(h, i));
		return k == HP_IDMAP_NONE ? 0 : h->classes[k].self_size;
	}
	default: return hp_heap_array_size(h, c, h->len[i]);
	}
}
