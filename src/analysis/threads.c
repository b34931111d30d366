/* threads.c — threads, their stacks and stack locals (threads.h). */
#include "analysis/threads.h"
#include "base/alloc.h"
#include "base/cmp.h"

#include <stdlib.h>
#include <string.h>

const struct hp_frame *hp_trace_frame(const hp_heap *h, uint32_t trace, uint32_t depth)
{
	if (trace == HP_NONE || trace >= h->ntraces || depth >= h->traces[trace].n)
		return NULL;
	uint64_t fid = h->trace_frames[h->traces[trace].first + depth];
	uint32_t fi = hp_idmap_get(&h->frame_map, fid);
	return fi == HP_IDMAP_NONE ? NULL : &h->frames[fi];
}

/* jdk.internal.misc.VM.toThreadState(), on the JVMTI thread state bits */
const char *hp_thread_state_name(int64_t s)
{
	if (s & 0x0004)
		return "RUNNABLE";
	if (s & 0x0400)
		return "BLOCKED";
	if (s & 0x0010)
		return "WAITING";
	if (s & 0x0020)
		return "TIMED_WAITING";
	if (s & 0x0002)
		return "TERMINATED";
	if (!(s & 0x0001))
		return "NEW";
	return "RUNNABLE";
}

/* the primitive value of field `name` of d as a signed integer; 0 when absent */
static int prim_field(hp_objread *rd, const struct hp_objdata *d, const char *name, int64_t *v)
{
	const struct hp_objval *f = hp_objread_field(rd, d, name, NULL);
	if (!f || f->type == HP_T_OBJECT)
		return 0;
	switch (f->type) {
	case HP_T_BOOLEAN: case HP_T_BYTE: *v = (int8_t)f->bits; break;
	case HP_T_SHORT: case HP_T_CHAR: *v = f->type == HP_T_SHORT ? (int16_t)f->bits : (int64_t)f->bits; break;
	case HP_T_INT: *v = (int32_t)f->bits; break;
	case HP_T_LONG: *v = (int64_t)f->bits; break;
	default: return 0;
	}
	return 1;
}

static void fields_from(hp_objread *rd, const struct hp_objdata *d, struct hp_thread_info *t)
{
	int64_t v;
	if (t->daemon < 0 && prim_field(rd, d, "daemon", &v))
		t->daemon = v != 0;
	if (t->priority < 0 && prim_field(rd, d, "priority", &v))
		t->priority = (int)v;
	if (!t->state && prim_field(rd, d, "threadStatus", &v)) {
		t->status = v;
		t->state = hp_thread_state_name(v);
	}
}

/* daemon, priority and state from the Thread object (and JDK 19+'s holder);
 * an object that cannot be read leaves them unknown */
static void read_fields(const hp_heap *h, hp_objread *rd, struct hp_thread_info *t)
{
	if (t->obj == SIZE_MAX || hp_heap_kind(h, t->obj) != HP_OBJ_INSTANCE)
		return;
	struct hp_objdata d;
	struct hp_error e;
	hp_error_clear(&e);
	if (hp_objread_decode(rd, t->obj, 0, &d, &e) != HP_OK)
		return;
	fields_from(rd, &d, t);
	const struct hp_objval *hv = hp_objread_field(rd, &d, "holder", NULL);
	size_t ho = hv && hv->type == HP_T_OBJECT && hv->bits ? hp_heap_find(h, hv->bits) : SIZE_MAX;
	hp_objread_release(&d);
	if (ho == SIZE_MAX || hp_heap_kind(h, ho) != HP_OBJ_INSTANCE)
		return;
	hp_error_clear(&e);
	if (hp_objread_decode(rd, ho, 0, &d, &e) != HP_OK)
		return;
	fields_from(rd, &d, t);
	hp_objread_release(&d);
}

static int by_retained(const void *a, const void *b)
{
	const struct hp_thread_info *x = a, *y = b;
	return hp_cmp2_u64(y->retained, x->retained, x->serial, y->serial);
}

/* locals sorted by thread record, frame (no frame last), object */
struct lkey { uint32_t rec; struct hp_thread_local l; };
static int by_local(const void *a, const void *b)
{
	const struct lkey *x = a, *y = b;
	return hp_cmp4_u64(x->rec, y->rec, x->l.frame, y->l.frame, x->l.obj, y->l.obj, x->l.kind, y->l.kind);
}

void hp_threads_release(struct hp_threads *t)
{
	hp_free(t->t);
	hp_free(t->locals);
	memset(t, 0, sizeof *t);
}

int hp_threads_collect(const hp_heap *h, const struct hp_retained *R, hp_objread *rd, struct hp_threads *out,
		       struct hp_error *err)
{
	memset(out, 0, sizeof *out);
	out->fields_read = rd != NULL;
	struct lkey *keys = NULL;
	size_t nk = 0;
	out->t = hp_reallocarray(NULL, h->nthreads ? h->nthreads : 1, sizeof *out->t);
	for (size_t r = 0; r < h->nroots; r++)
		if (hp_root_thread_local(h->roots[r].kind) && h->roots[r].has_thread)
			nk++;
	keys = hp_reallocarray(NULL, nk ? nk : 1, sizeof *keys);
	if (!out->t || !keys)
		goto oom;
	/* the rows in record order first: locals find their row by index */
	for (size_t i = 0; i < h->nthreads; i++) {
		const struct hp_thread_rec *tr = &h->threads[i];
		struct hp_thread_info *t = &out->t[i];
		memset(t, 0, sizeof *t);
		t->rec = (uint32_t)i;
		t->serial = tr->serial;
		t->obj = tr->object_id ? hp_heap_find(h, tr->object_id) : SIZE_MAX;
		uint32_t ti = hp_idmap_get(&h->trace_map, tr->trace_serial);
		t->trace = ti == HP_IDMAP_NONE ? HP_NONE : ti;
		t->nframes = t->trace == HP_NONE ? 0 : h->traces[t->trace].n;
		t->daemon = -1;
		t->priority = -1;
		if (t->obj != SIZE_MAX && R) {
			t->shallow = hp_retained_shallow(R, t->obj);
			t->retained = R->retained[t->obj];
		} else if (t->obj != SIZE_MAX) {
			t->shallow = hp_heap_shallow(h, t->obj);
		}
		if (rd)
			read_fields(h, rd, t);
		if (t->nframes)
			out->with_frames++;
	}
	out->n = h->nthreads;
	nk = 0;
	for (size_t r = 0; r < h->nroots; r++) {
		const struct hp_root_rec *rr = &h->roots[r];
		if (!hp_root_thread_local(rr->kind) || !rr->has_thread)
			continue;
		uint32_t ti = hp_idmap_get(&h->thread_map, rr->thread_serial);
		if (ti == HP_IDMAP_NONE) {
			out->orphan_roots++;
			continue;
		}
		size_t v = hp_heap_find(h, rr->object);
		if (v == SIZE_MAX) {
			out->missing_locals++;
			continue;
		}
		const struct hp_thread_info *t = &out->t[ti];
		uint32_t fr = HP_FRAME_NONE;
		if ((rr->kind == HP_ROOT_JAVA_FRAME || rr->kind == HP_ROOT_JNI_LOCAL) && rr->frame < t->nframes)
			fr = rr->frame;
		keys[nk].rec = ti;
		keys[nk].l.obj = (uint32_t)v;
		keys[nk].l.frame = fr;
		keys[nk].l.kind = rr->kind;
		nk++;
	}
	qsort(keys, nk, sizeof *keys, by_local);
	out->locals = hp_reallocarray(NULL, nk ? nk : 1, sizeof *out->locals);
	if (!out->locals)
		goto oom;
	size_t m = 0;
	for (size_t k = 0; k < nk; k++) {
		if (k && !by_local(&keys[k], &keys[k - 1]))
			continue;   /* the same root written twice */
		struct hp_thread_info *t = &out->t[keys[k].rec];
		if (!t->nlocals)
			t->first_local = m;
		t->nlocals++;
		out->locals[m++] = keys[k].l;
	}
	out->nlocals = m;
	hp_free(keys);
	qsort(out->t, out->n, sizeof *out->t, by_retained);
	return HP_OK;
oom:
	hp_free(keys);
	hp_threads_release(out);
	return hp_error_set(err, HP_ENOMEM, "out of memory listing the threads");
}

/* ---- retained memory by thread ------------------------------------------ */

void hp_threads_mem_release(struct hp_threads_mem *m)
{
	hp_free(m->t);
	memset(m, 0, sizeof *m);
}

static const struct hp_heap *mem_sort_h;

static int by_bytes(const void *a, const void *b)
{
	const struct hp_thread_mem *x = a, *y = b;
	return hp_cmp2_u64(y->bytes, x->bytes, mem_sort_h->threads[x->rec].serial, mem_sort_h->threads[y->rec].serial);
}

#define MEM_MIXED (HP_NONE - 1)

int hp_threads_memory(const hp_heap *h, const struct hp_retained *R, struct hp_threads_mem *out,
		      struct hp_error *err)
{
	memset(out, 0, sizeof *out);
	size_t n = h->nobj;
	struct hp_idmap anchor;           /* object number -> thread index (MEM_MIXED: several) */
	hp_idmap_init(&anchor);
	uint32_t *stk = NULL, *pos = NULL, *own = NULL;
	out->t = hp_calloc(h->nthreads ? h->nthreads : 1, sizeof *out->t);
	if (!out->t)
		goto oom;
	out->n = h->nthreads;
	for (size_t i = 0; i < h->nthreads; i++) {
		out->t[i].rec = (uint32_t)i;
		out->t[i].obj = h->threads[i].object_id ? hp_heap_find(h, h->threads[i].object_id) : SIZE_MAX;
	}
	/* stack locals hanging off the super-root: their thread, when one */
	for (size_t i = 0; i < h->nroots; i++) {
		const struct hp_root_rec *r = &h->roots[i];
		if (!hp_root_thread_local(r->kind) || !r->has_thread || hp_retained_root_on_thread(h, R->roots_policy, r))
			continue;
		uint32_t t = hp_idmap_get(&h->thread_map, r->thread_serial);
		size_t v = t == HP_IDMAP_NONE ? SIZE_MAX : hp_heap_find(h, r->object);
		if (v == SIZE_MAX)
			continue;
		uint16_t stack_kinds = (1u << HP_ROOT_JAVA_FRAME) | (1u << HP_ROOT_JNI_LOCAL) |
				       (1u << HP_ROOT_NATIVE_STACK) | (1u << HP_ROOT_THREAD_BLOCK);
		if (R->root_kinds && (R->root_kinds[v] & ~stack_kinds))
			continue;           /* another kind of root holds it too */
		uint32_t val = t;
		int ins = hp_idmap_insert(&anchor, v, &val);
		if (ins < 0)
			goto oom;
		if (!ins && val != t && hp_idmap_put(&anchor, v, MEM_MIXED) < 0)
			goto oom;
	}
	/* ... unless an object refers to it: then a path may bypass the
	 * thread's stack (conservative: another local of the same thread
	 * referring to it counts too) */
	if (anchor.n) {
		for (size_t u = 0; u < n; u++) {
			struct hp_edges it = hp_refs_edges(&R->refs, u);
			for (uint32_t v; hp_edges_next(&it, &v);)
				if (v != u && hp_idmap_get(&anchor, v) != HP_IDMAP_NONE && hp_idmap_put(&anchor, v, MEM_MIXED) < 0)
					goto oom;
		}
	}
	/* Thread objects, which win */
	for (size_t i = 0; i < h->nthreads; i++)
		if (out->t[i].obj != SIZE_MAX && hp_idmap_put(&anchor, out->t[i].obj, (uint32_t)i) < 0)
			goto oom;
	/* preorder: an object's owner is its own anchor, else its parent's */
	stk = hp_reallocarray(NULL, n + 1, sizeof *stk);
	pos = hp_reallocarray(NULL, n + 1, sizeof *pos);
	own = hp_reallocarray(NULL, n + 1, sizeof *own);
	if (!stk || !pos || !own)
		goto oom;
	size_t sp = 1;
	stk[0] = (uint32_t)n;
	pos[0] = R->child_off[n];
	own[0] = HP_NONE;
	uint64_t reach = 0, reach_bytes = 0;
	while (sp) {
		uint32_t u = stk[sp - 1];
		if (pos[sp - 1] >= R->child_off[u + 1]) {
			sp--;
			continue;
		}
		uint32_t c = R->children[pos[sp - 1]++];
		uint32_t a = hp_idmap_get(&anchor, c);
		uint32_t o = a != HP_IDMAP_NONE && a != MEM_MIXED ? a : own[sp - 1];
		reach++;
		reach_bytes += hp_retained_shallow(R, c);
		if (o == HP_NONE) {
			out->shared_objects++;
			out->shared_bytes += hp_retained_shallow(R, c);
		} else {
			out->t[o].objects++;
			out->t[o].bytes += hp_retained_shallow(R, c);
		}
		stk[sp] = c;
		pos[sp] = R->child_off[c];
		own[sp] = o;
		sp++;
	}
	for (size_t v = 0; v < n; v++) {
		out->objects++;
		out->bytes += hp_retained_shallow(R, v);
	}
	out->unreachable_objects = out->objects - reach;
	out->unreachable_bytes = out->bytes - reach_bytes;
	mem_sort_h = h;
	if (out->n > 1)
		qsort(out->t, out->n, sizeof *out->t, by_bytes);
	hp_free(stk);
	hp_free(pos);
	hp_free(own);
	hp_idmap_release(&anchor);
	return HP_OK;
oom:
	hp_free(stk);
	hp_free(pos);
	hp_free(own);
	hp_idmap_release(&anchor);
	hp_threads_mem_release(out);
	return hp_error_set(err, HP_ENOMEM, "out of memory attributing memory to threads");
}
