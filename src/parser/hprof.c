/*
 * hprof.c — hp_parse() (hprof.h): the header, the top-level records and the
 * heap-dump sub-records, each length checked against what its record has
 * left, handed to the sink in file order; a fast path for the instances
 * and arrays that lie whole in the reader's window; the raw stream
 * (opts.want_raw); positioned errors.  Also the type and root-kind names.
 */
#include "parser/hprof.h"
#include "base/alloc.h"
#include "base/cpus.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROGRESS_STEP (16ull << 20)
#define RAW_CHUNK (1u << 20)      /* raw pieces read at a time from a stream (a multiple of 8) */

unsigned hp_type_size(unsigned type, unsigned id_size)
{
	switch (type) {
	case HP_T_OBJECT: return id_size;
	case HP_T_BOOLEAN: case HP_T_BYTE: return 1;
	case HP_T_CHAR: case HP_T_SHORT: return 2;
	case HP_T_FLOAT: case HP_T_INT: return 4;
	case HP_T_DOUBLE: case HP_T_LONG: return 8;
	default: return 0;
	}
}

const char *hp_type_name(unsigned type)
{
	switch (type) {
	case HP_T_OBJECT: return "Object";
	case HP_T_BOOLEAN: return "boolean";
	case HP_T_CHAR: return "char";
	case HP_T_FLOAT: return "float";
	case HP_T_DOUBLE: return "double";
	case HP_T_BYTE: return "byte";
	case HP_T_SHORT: return "short";
	case HP_T_INT: return "int";
	case HP_T_LONG: return "long";
	default: return NULL;
	}
}

static const char *const root_names[HP_ROOT_NKINDS] = {
	"unknown", "JNI global", "JNI local", "Java frame", "native stack", "sticky class",
	"thread block", "monitor used", "thread object", "interned string", "finalizing",
	"debugger", "reference cleanup", "VM internal", "JNI monitor", "unreachable"
};
static const char *const root_keys[HP_ROOT_NKINDS] = {
	"unknown", "jni_global", "jni_local", "java_frame", "native_stack", "sticky_class",
	"thread_block", "monitor_used", "thread_object", "interned_string", "finalizing",
	"debugger", "reference_cleanup", "vm_internal", "jni_monitor", "unreachable"
};

const char *hp_root_kind_name(int kind)
{
	return kind >= 0 && kind < HP_ROOT_NKINDS ? root_names[kind] : "?";
}

const char *hp_root_kind_key(int kind)
{
	return kind >= 0 && kind < HP_ROOT_NKINDS ? root_keys[kind] : "?";
}

void hp_stats_release(struct hp_stats *st)
{
	hp_free(st->dumps);
	st->dumps = NULL;
	st->ndumps = st->dumps_cap = 0;
}

void hp_parse_opts_init(struct hp_parse_opts *o)
{
	memset(o, 0, sizeof *o);
}

void hp_parse_object_thread(struct hp_parse_opts *o)
{
	const char *e = getenv("HPROFAN_OBJECT_THREAD");
	o->object_thread = hp_cpus_usable() > 1;
	o->object_thread_after = 4u << 20;
	if (e && strcmp(e, "off") == 0) {
		o->object_thread = 0;
	} else if (e && *e >= '0' && *e <= '9') {
		char *end;
		unsigned long long n = strtoull(e, &end, 10);
		if (!*end) {
			o->object_thread = 2;
			o->object_thread_after = n;
		}
	}
}

struct parser {
	hp_reader *r;
	const struct hp_sink *s;
	const struct hp_parse_opts *o;
	struct hp_stats *st;
	struct hp_error *err;
	unsigned I;               /* id size */
	uint64_t recno;           /* current record number (1-based) */
	int tag;                  /* current record tag */
	uint64_t rec_off;         /* current record offset */
	uint64_t next_progress;
	int deliver;              /* current dump's sub-records go to the sink */
	int prev_sub;             /* previous sub-record tag in this dump, -1 none */
	uint64_t prev_sub_off;
	int prev_tag;             /* previous top-level record, -1 none */
	uint64_t prev_off;
	int times_nonzero;        /* some earlier record had a non-zero time field */
	uint32_t cur_time;
	int (*raw)(void *, int, const uint8_t *, size_t, uint64_t);   /* sink->raw when wanted */
	struct objq *q;           /* the object thread, when running (NULL: callbacks here) */
	uint64_t fast_seen;       /* bytes of object sub-records before it started */
};

static const char *tagname(int tag)
{
	const char *n = hp_tag_name(tag);
	return n ? n : "unknown record";
}

static int perr(struct parser *P, int code, uint64_t off, int subtag, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int perr(struct parser *P, int code, uint64_t off, int subtag, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	hp_error_vsetpos(P->err, code, off, P->recno, P->tag, subtag, fmt, ap);
	va_end(ap);
	return code;
}

/* A sink failed: keep its message, add the position. */
static int sink_fail_at(struct parser *P, int rc, uint64_t off, uint64_t recno, int tag, int subtag)
{
	struct hp_error *e = P->err;
	if (rc == HP_ESTOP)
		return rc;
	if (!e->msg[0])
		snprintf(e->msg, sizeof e->msg, "%s", rc == HP_ENOMEM ? "out of memory" : "processing failed");
	if (e->code == HP_OK)
		e->code = rc;
	if (!e->has_pos) {
		e->offset = off;
		e->record = recno;
		e->tag = tag;
		e->subtag = subtag;
		e->has_pos = 1;
	}
	return rc;
}

static int sink_fail(struct parser *P, int rc, uint64_t off, int subtag)
{
	return sink_fail_at(P, rc, off, P->recno, P->tag, subtag);
}

/* ---- the object thread ----------------------------------------------
 * With opts.object_thread, the fast path's instances and arrays are not
 * handed to the sink where they are read: they are queued, a few thousand
 * a batch, and a thread of the parser's own makes the calls, in order,
 * while the parser reads on.  The sink's work (the model builder's, about
 * 60% of the pass) and the reading then share the two cores.  The queue is
 * drained (objq_sync(): every call queued made) before any other callback,
 * and before an error in the dump is said, so the sink sees the calls it
 * would see without the thread, one at a time, in file order.  A call that
 * fails makes the rest of the queue pass unmade; the parse stops at the
 * next drain with that call's error, positioned at its record.
 *
 * Waiting: a spin (the other side is usually a batch's work away), then a
 * condition variable. */
#define OBJQ_BATCH 2048
#define OBJQ_SLOTS 4
#define OBJQ_SPIN 1024

struct objq_batch {
	/* (the flag has a cache line of its own: the side waiting for it
	 * reads it while the other fills a batch) */
	char pad0[64];
	atomic_int full;          /* 1: the thread's to make; 0: the parser's to fill */
	char pad1[64];
	uint32_t n;
	uint64_t recno;           /* the record its entries are in */
	int tag;
	struct hp_objrec e[OBJQ_BATCH];
};
struct objq {
	const struct hp_sink *s;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	char pad0[64];
	atomic_int sleepers, quit;
	char pad1[64];
	unsigned put;             /* the batch the parser fills */
	char pad2[64];
	atomic_uint_fast64_t done;   /* with data: the offset of the last record whose call is made */
	int data;                 /* the records carry their data (pointers into the mapped file) */
	char pad3[64];
	atomic_int failed;        /* a call failed: rc and where (the thread's until the drain) */
	int rc, fail_tag, fail_sub;
	uint64_t fail_off, fail_recno;
	struct objq_batch b[OBJQ_SLOTS];
};

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

static void objq_broadcast(struct objq *q)
{
	pthread_mutex_lock(&q->mu);
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
}

static void objq_wake(struct objq *q)
{
	if (atomic_load(&q->sleepers))
		objq_broadcast(q);
}

/* until *flag is want (or, with quit_too, the queue is told to end): 1, or 0 told to end */
static int objq_wait(struct objq *q, atomic_int *flag, int want, int quit_too)
{
	for (int k = 0; k < OBJQ_SPIN; k++) {
		if (atomic_load(flag) == want)
			return 1;
		if (quit_too && atomic_load(&q->quit))
			return atomic_load(flag) == want;
		cpu_relax();
	}
	pthread_mutex_lock(&q->mu);
	atomic_fetch_add(&q->sleepers, 1);
	while (atomic_load(flag) != want && !(quit_too && atomic_load(&q->quit)))
		pthread_cond_wait(&q->cv, &q->mu);
	atomic_fetch_sub(&q->sleepers, 1);
	pthread_mutex_unlock(&q->mu);
	return atomic_load(flag) == want;
}

static int objq_call(const struct hp_sink *s, const struct hp_objrec *e)
{
	uint64_t off = HP_OBJREC_OFF(e);
	switch (HP_OBJREC_TAG(e)) {
	case 0x21:
		return s->instance(s->ud, e->id, e->serial, e->cid, e->data, e->n, off);
	case 0x22:
		return s->obj_array(s->ud, e->id, e->serial, e->cid, e->n, e->data, off);
	default:
		return s->prim_array(s->ud, e->id, e->serial, (unsigned)e->cid, e->n, e->data, off, 0);
	}
}

/* the batch's calls: 0..n, or up to the one that failed (*failed) */
static int objq_batch_calls(const struct hp_sink *s, const struct objq_batch *b, size_t *failed)
{
	if (s->objects)
		return s->objects(s->ud, b->e, b->n, failed);
	for (size_t k = 0; k < b->n; k++) {
		int rc = objq_call(s, &b->e[k]);
		if (rc != HP_OK) {
			*failed = k;
			return rc;
		}
	}
	return HP_OK;
}

static void *objq_run(void *arg)
{
	struct objq *q = arg;
	for (unsigned i = 0;; i = (i + 1) % OBJQ_SLOTS) {
		struct objq_batch *b = &q->b[i];
		if (!objq_wait(q, &b->full, 1, 1))
			break;
		size_t k = 0;
		int rc = atomic_load_explicit(&q->failed, memory_order_relaxed) ? HP_OK : objq_batch_calls(q->s, b, &k);
		if (rc != HP_OK) {
			q->rc = rc;
			q->fail_off = HP_OBJREC_OFF(&b->e[k]);
			q->fail_sub = HP_OBJREC_TAG(&b->e[k]);
			q->fail_recno = b->recno;
			q->fail_tag = b->tag;
			atomic_store(&q->failed, 1);
		}
		if (q->data && b->n)
			atomic_store(&q->done, HP_OBJREC_OFF(&b->e[b->n - 1]));
		atomic_store(&b->full, 0);
		objq_wake(q);
	}
	return NULL;
}

/* the object thread started (0), or not (-1: the calls stay here) */
static int objq_start(struct parser *P, int data)
{
	struct objq *q = hp_calloc(1, sizeof *q);
	if (!q)
		return -1;
	q->s = P->s;
	q->data = data;
	if (pthread_mutex_init(&q->mu, NULL) != 0) {
		hp_free(q);
		return -1;
	}
	if (pthread_cond_init(&q->cv, NULL) != 0 || pthread_create(&q->th, NULL, objq_run, q) != 0) {
		pthread_cond_destroy(&q->cv);
		pthread_mutex_destroy(&q->mu);
		hp_free(q);
		return -1;
	}
	P->q = q;
	return 0;
}

/* the batch being filled handed to the thread, and the next one taken when it is done */
static void objq_publish(struct objq *q)
{
	struct objq_batch *b = &q->b[q->put];
	atomic_store(&b->full, 1);
	objq_wake(q);
	q->put = (q->put + 1) % OBJQ_SLOTS;
	b = &q->b[q->put];
	objq_wait(q, &b->full, 0, 0);
	b->n = 0;
}

static inline void objq_put(struct parser *P, int tag, uint64_t id, uint32_t serial, uint64_t cid, uint32_t n,
			    const uint8_t *data, uint64_t off)
{
	struct objq *q = P->q;
	struct objq_batch *b = &q->b[q->put];
	if (b->n && b->recno != P->recno)
		objq_publish(q), b = &q->b[q->put];
	if (!b->n) {
		b->recno = P->recno;
		b->tag = P->tag;
	}
	struct hp_objrec *e = &b->e[b->n++];
	e->id = id;
	e->cid = cid;
	e->off = off | (uint64_t)tag << 56;
	e->serial = serial;
	e->n = n;
	e->data = data;
	if (b->n == OBJQ_BATCH)
		objq_publish(q);
}

/* Every queued call made; HP_OK, or the first failed call's error
 * (positioned at its sub-record, as sink_fail() does). */
static int objq_sync(struct parser *P)
{
	struct objq *q = P->q;
	if (!q)
		return HP_OK;
	if (q->b[q->put].n)
		objq_publish(q);
	for (unsigned i = 0; i < OBJQ_SLOTS; i++)
		objq_wait(q, &q->b[i].full, 0, 0);
	if (!atomic_load(&q->failed))
		return HP_OK;
	/* the parser may have read on and said something later in the file: the failed call came first */
	hp_error_clear(P->err);
	return sink_fail_at(P, q->rc, q->fail_off, q->fail_recno, q->fail_tag, q->fail_sub);
}

/* the queue drained and the thread ended; rc, or the failed call's error */
static int objq_end(struct parser *P, int rc)
{
	struct objq *q = P->q;
	if (!q)
		return rc;
	int qrc = objq_sync(P);
	atomic_store(&q->quit, 1);
	objq_broadcast(q);        /* (the thread may sleep on the next batch) */
	pthread_join(q->th, NULL);
	pthread_cond_destroy(&q->cv);
	pthread_mutex_destroy(&q->mu);
	hp_free(q);
	P->q = NULL;
	return qrc != HP_OK ? qrc : rc;
}

#define SINK(P, cb, off, sub, ...) do { \
	if ((P)->s->cb) { int rc_ = (P)->s->cb((P)->s->ud, __VA_ARGS__); \
		if (rc_ != HP_OK) return sink_fail((P), rc_, (off), (sub)); } } while (0)

/* the raw piece [p, p + n) at offset off, when the sink wants raw bytes */
#define RAW(P, kind, p, n, off, sub) do { \
	if ((P)->raw) { int rc_ = (P)->raw((P)->s->ud, (kind), (p), (n), (off)); \
		if (rc_ != HP_OK) return sink_fail((P), rc_, (off), (sub)); } } while (0)

/* Steps over n bytes, handing them to the raw callback first when it is
 * wanted, in pieces of whole units of `unit` bytes (n is a multiple of it).
 * HP_ETRUNC (pos at the end of the input) when the input ends first. */
static int pass_bytes(struct parser *P, int kind, uint64_t n, unsigned unit, int subtag)
{
	hp_reader *r = P->r;
	if (!P->raw)
		return hp_rd_skip(r, n, P->err);
	while (n > 0) {
		size_t avail = hp_rd_avail(r);
		if (avail < unit || (avail < n && avail < RAW_CHUNK)) {
			size_t want = n < RAW_CHUNK ? (size_t)n : RAW_CHUNK;
			int rc = hp_rd_need(r, want, P->err);
			if (rc == HP_ETRUNC)
				r->pos = r->end;
			if (rc)
				return rc;
			avail = hp_rd_avail(r);
		}
		size_t k = avail < n ? avail : (size_t)n;
		k -= k % unit;
		uint64_t off = hp_rd_offset(r);
		RAW(P, kind, r->pos, k, off, subtag);
		r->pos += k;
		n -= k;
	}
	return HP_OK;
}

static int read_header(struct parser *P)
{
	hp_reader *r = P->r;
	struct hp_header *h = &P->st->header;
	/* the format name: NUL-terminated, at most 23 characters + NUL */
	size_t n = 0;
	for (;;) {
		int rc = hp_rd_need(r, n + 1, P->err);
		if (rc == HP_ETRUNC)
			return hp_error_setpos(P->err, HP_ETRUNC, hp_rd_offset(r), 0, -1, -1,
				"file ends inside the header");
		if (rc)
			return rc;
		if (r->pos[n] == '\0')
			break;
		if (++n >= sizeof h->format)
			return hp_error_setpos(P->err, HP_EFORMAT, 0, 0, -1, -1,
				"header format name is not NUL-terminated within %zu bytes", sizeof h->format);
	}
	memcpy(h->format, r->pos, n + 1);
	if (strcmp(h->format, "JAVA PROFILE 1.0.1") == 0)
		h->version = 1;
	else if (strcmp(h->format, "JAVA PROFILE 1.0.2") == 0)
		h->version = 2;
	else if (strcmp(h->format, "JAVA PROFILE 1.0.3") == 0)
		h->version = 3;
	else
		return hp_error_setpos(P->err, HP_EFORMAT, 0, 0, -1, -1,
			"unsupported format \"%s\" (expected JAVA PROFILE 1.0.1, 1.0.2 or 1.0.3)", h->format);
	int rc = hp_rd_need(r, n + 1 + 12, P->err);
	if (rc == HP_ETRUNC)
		return hp_error_setpos(P->err, HP_ETRUNC, hp_rd_offset(r) + n + 1, 0, -1, -1,
			"file ends inside the header (%zu of %zu bytes)", hp_rd_avail(r), n + 13);
	if (rc)
		return rc;
	const uint8_t *p = r->pos + n + 1;
	h->id_size = hp_be32(p);
	h->timestamp_ms = hp_be64(p + 4);
	if (h->id_size != 4 && h->id_size != 8)
		return hp_error_setpos(P->err, HP_EFORMAT, n + 1, 0, -1, -1,
			"identifier size is %u; only 4 and 8 are valid", h->id_size);
	h->length = n + 13;
	P->I = h->id_size;
	const uint8_t *raw = r->pos;
	r->pos += n + 13;
	SINK(P, header, 0, -1, h);
	RAW(P, HP_RAW_HEADER, raw, n + 13, 0, -1);
	return HP_OK;
}

static int grow_dumps(struct parser *P)
{
	struct hp_stats *st = P->st;
	if (st->ndumps == st->dumps_cap) {
		unsigned nc = st->dumps_cap ? st->dumps_cap * 2 : 4;
		struct hp_dump_info *d = hp_reallocarray(st->dumps, nc, sizeof *d);
		if (!d)
			return perr(P, HP_ENOMEM, P->rec_off, -1, "out of memory");
		st->dumps = d;
		st->dumps_cap = nc;
	}
	memset(&st->dumps[st->ndumps], 0, sizeof st->dumps[0]);
	st->ndumps++;
	return HP_OK;
}

static int end_dump(struct parser *P, uint64_t off, int complete)
{
	struct hp_stats *st = P->st;
	if (!st->ndumps)
		return HP_OK;
	struct hp_dump_info *d = &st->dumps[st->ndumps - 1];
	d->complete = complete;
	st->in_segmented_dump = 0;
	if (P->deliver)
		SINK(P, dump_end, off, -1, st->ndumps - 1, off);
	P->deliver = 0;
	return HP_OK;
}

static int begin_dump(struct parser *P)
{
	struct hp_stats *st = P->st;
	HP_TRY(grow_dumps(P));
	struct hp_dump_info *d = &st->dumps[st->ndumps - 1];
	d->offset = P->rec_off;
	unsigned idx = st->ndumps - 1;
	P->deliver = P->o->dump_index < 0 || (unsigned)P->o->dump_index == idx;
	P->prev_sub = -1;
	if (P->deliver) {
		if (st->parsed_dump < 0)
			st->parsed_dump = (int)idx;
		SINK(P, dump_begin, P->rec_off, -1, idx, P->rec_off);
	}
	return HP_OK;
}

static void progress(struct parser *P)
{
	uint64_t off = hp_rd_offset(P->r);
	/* between records: nothing before off is in use, unless the object
	 * thread is still to read it */
	uint64_t done = P->q && P->q->data ? atomic_load(&P->q->done) : UINT64_MAX;
	hp_reader_release_before(P->r, off < done ? off : done);
	if (off >= P->next_progress) {
		P->next_progress = off + PROGRESS_STEP;
		if (P->o->progress)
			P->o->progress(P->o->progress_ud, hp_reader_progress(P->r));
	}
}

/* Error for a sub-record that does not fit: truncation when the input ran
 * out, corruption when the record's own length says so. */
static int sub_short(struct parser *P, int rc, uint64_t off, int st_tag, uint64_t need, uint64_t rem)
{
	const char *sn = st_tag >= 0 ? hp_subtag_name(st_tag) : NULL;
	if (rc == HP_ETRUNC && !sn)
		return perr(P, HP_ETRUNC, off, st_tag,
			"file ends inside %s record %llu at offset %llu (%llu of its bytes are missing)",
			tagname(P->tag), (unsigned long long)P->recno, (unsigned long long)P->rec_off,
			(unsigned long long)rem);
	if (rc == HP_ETRUNC)
		return perr(P, HP_ETRUNC, off, st_tag,
			"file ends inside %s (needs %llu bytes, %llu remain in the file)",
			sn, (unsigned long long)need, (unsigned long long)hp_rd_avail(P->r));
	if (rc != HP_OK)
		return rc;
	return perr(P, HP_ECORRUPT, off, st_tag,
		"%s needs %llu bytes but only %llu remain in its %s record (a sub-record may not straddle records)",
		sn, (unsigned long long)need, (unsigned long long)rem, tagname(P->tag));
}

/* The raw stream of an array sub-record of total bytes (tag included) at
 * off, rem left in its segment: the tag and F fixed bytes as one piece, the
 * elements of elem bytes after it in pieces of whole elements. */
static int raw_array(struct parser *P, uint64_t off, int t, unsigned F, uint64_t total, uint64_t rem,
		     unsigned elem)
{
	hp_reader *r = P->r;
	RAW(P, HP_RAW_SUB, r->pos, 1 + F, off, t);
	r->pos += 1 + F;
	int rc = pass_bytes(P, HP_RAW_ELEMS, total - 1 - F, elem, t);
	if (rc != HP_OK)
		return sub_short(P, rc, off, t, total - 1, rem - 1);
	return HP_OK;
}

/* Fixed part of each sub-record after the tag byte; 0 for unknown tags. */
static unsigned fixed_len(int t, unsigned I)
{
	switch (t) {
	case 0xFF: case 0x05: case 0x07: case 0x89: case 0x8A: case 0x8B: case 0x8C:
	case 0x8D: case 0x90:
		return I;
	case 0x01: return 2 * I;
	case 0x02: case 0x03: case 0x08: case 0x8E: return I + 8;
	case 0x04: case 0x06: return I + 4;
	case 0x20: return 7 * I + 8 + 2;       /* up to and including the constant pool count */
	case 0x21: return 2 * I + 8;
	case 0x22: return 2 * I + 8;
	case 0x23: case 0xC3: return I + 9;
	case 0xFE: return 4 + I;
	default: return 0;
	}
}

static int root_kind_of(int t)
{
	switch (t) {
	case 0xFF: return HP_ROOT_UNKNOWN;
	case 0x01: return HP_ROOT_JNI_GLOBAL;
	case 0x02: return HP_ROOT_JNI_LOCAL;
	case 0x03: return HP_ROOT_JAVA_FRAME;
	case 0x04: return HP_ROOT_NATIVE_STACK;
	case 0x05: return HP_ROOT_STICKY_CLASS;
	case 0x06: return HP_ROOT_THREAD_BLOCK;
	case 0x07: return HP_ROOT_MONITOR_USED;
	case 0x08: return HP_ROOT_THREAD_OBJECT;
	case 0x89: return HP_ROOT_INTERNED_STRING;
	case 0x8A: return HP_ROOT_FINALIZING;
	case 0x8B: return HP_ROOT_DEBUGGER;
	case 0x8C: return HP_ROOT_REFERENCE_CLEANUP;
	case 0x8D: return HP_ROOT_VM_INTERNAL;
	case 0x8E: return HP_ROOT_JNI_MONITOR;
	case 0x90: return HP_ROOT_UNREACHABLE;
	default: return -1;
	}
}

/* Walks a CLASS DUMP's variable part; returns its total length (after the
 * tag) in *total, having made it all available at r->pos + 1. */
static int class_dump_len(struct parser *P, uint64_t rem, uint64_t off, uint64_t *total,
			  uint32_t *statics_at, uint32_t *fields_at, uint16_t *ns, uint16_t *nf)
{
	hp_reader *r = P->r;
	unsigned I = P->I;
	uint64_t k = 1 + 7 * (uint64_t)I + 8;   /* at the constant pool count, from the tag */
	int rc;
#define NEED(n) do { uint64_t n_ = (n); if (n_ > rem) return sub_short(P, HP_OK, off, 0x20, n_ - 1, rem - 1); \
	rc = hp_rd_need(r, (size_t)n_, P->err); if (rc) return sub_short(P, rc, off, 0x20, n_ - 1, rem - 1); } while (0)
	NEED(k + 2);
	unsigned ncp = hp_be16(r->pos + k);
	k += 2;
	for (unsigned i = 0; i < ncp; i++) {
		NEED(k + 3);
		unsigned t = r->pos[k + 2];
		unsigned sz = hp_type_size(t, I);
		if (!sz)
			return perr(P, HP_ECORRUPT, off, 0x20,
				"CLASS DUMP constant pool entry %u has invalid type %u", i, t);
		k += 3 + sz;
	}
	NEED(k + 2);
	*ns = hp_be16(r->pos + k);
	k += 2;
	*statics_at = (uint32_t)k;
	for (unsigned i = 0; i < *ns; i++) {
		NEED(k + I + 1);
		unsigned t = r->pos[k + I];
		unsigned sz = hp_type_size(t, I);
		if (!sz)
			return perr(P, HP_ECORRUPT, off, 0x20,
				"CLASS DUMP static field %u has invalid type %u", i, t);
		k += I + 1 + sz;
	}
	NEED(k + 2);
	*nf = hp_be16(r->pos + k);
	k += 2;
	*fields_at = (uint32_t)k;
	for (unsigned i = 0; i < *nf; i++) {
		NEED(k + I + 1);
		unsigned t = r->pos[k + I];
		if (!hp_type_size(t, I))
			return perr(P, HP_ECORRUPT, off, 0x20,
				"CLASS DUMP instance field %u has invalid type %u", i, t);
		k += I + 1;
	}
	NEED(k);
#undef NEED
	*total = k;
	return HP_OK;
}

/* The fast path: runs over the sub-records that lie whole inside the
 * reader's window and are instances or arrays (nearly all of a dump), with
 * every check the slow path makes, and stops at anything else — another
 * kind, a record cut by the window, or any inconsistency — so that
 * parse_heap_body() handles it (and words the error).  Returns bytes used. */
static uint64_t fast_objects(struct parser *P, uint64_t rem, int *rc)
{
	hp_reader *r = P->r;
	const struct hp_sink *s = P->s;
	void *ud = s->ud;
	const unsigned I = P->I;
	const uint8_t *p = r->pos, *start = p;
	size_t avail = (size_t)(r->end - p);
	const uint8_t *lim = p + (rem < avail ? rem : avail);
	const uint64_t base = hp_rd_offset(r);
	const int deliver = P->deliver;
	const int want_inst = P->o->want_instance_data, want_arr = P->o->want_array_data;
	const int want_parr = want_arr && !P->o->no_prim_array_data;
	int (*inst)(void *, uint64_t, uint32_t, uint64_t, const uint8_t *, uint32_t, uint64_t) = deliver ? s->instance : NULL;
	int (*oarr)(void *, uint64_t, uint32_t, uint64_t, uint32_t, const uint8_t *, uint64_t) = deliver ? s->obj_array : NULL;
	int (*parr)(void *, uint64_t, uint32_t, unsigned, uint32_t, const uint8_t *, uint64_t, int) =
		deliver ? s->prim_array : NULL;
	int (*raw)(void *, int, const uint8_t *, size_t, uint64_t) = deliver ? P->raw : NULL;
	uint64_t n21 = 0, n22 = 0, n23 = 0, fbytes = 0;
	const uint8_t *last = NULL;
	*rc = HP_OK;
	if (!P->q && P->o->object_thread && deliver && !raw && P->fast_seen >= P->o->object_thread_after &&
	    P->fast_seen != UINT64_MAX) {
		/* the data a call gets stays where it is only in a mapped file */
		int data = want_inst || want_arr, mapped = r->kind == HP_RD_MMAP;
		if ((data || P->o->object_thread < 2) && !mapped)
			P->fast_seen = UINT64_MAX;
		else if (objq_start(P, data) != 0)
			P->fast_seen = UINT64_MAX;   /* (not tried again) */
	}
	struct objq *q = P->q;
	while (p < lim) {
		size_t left = (size_t)(lim - p);
		__builtin_prefetch(p + 2048);
		int t = p[0];
		if (t == 0x21) {
			if (left < 1 + 2 * I + 8)
				break;
			uint32_t n = hp_be32(p + 1 + 2 * I + 4);
			uint64_t total = 1 + 2 * (uint64_t)I + 8 + n;
			if (total > left)
				break;
			if (inst && q) {
				objq_put(P, 0x21, hp_be_id(p + 1, I), hp_be32(p + 1 + I), hp_be_id(p + 1 + I + 4, I), n,
					 want_inst ? p + 1 + 2 * I + 8 : NULL, base + (uint64_t)(p - start));
			} else if (inst) {
				*rc = inst(ud, hp_be_id(p + 1, I), hp_be32(p + 1 + I), hp_be_id(p + 1 + I + 4, I),
					   want_inst ? p + 1 + 2 * I + 8 : NULL, n, base + (uint64_t)(p - start));
				if (*rc)
					break;
			}
			if (raw && (*rc = raw(ud, HP_RAW_SUB, p, (size_t)total, base + (uint64_t)(p - start))))
				break;
			n21++;
			fbytes += n;
			last = p;
			p += total;
		} else if (t == 0x23) {
			if (left < 1 + I + 9)
				break;
			uint32_t n = hp_be32(p + 1 + I + 4);
			unsigned ty = p[1 + I + 8];
			unsigned es = ty == HP_T_OBJECT ? 0 : hp_type_size(ty, I);
			if (!es)
				break;
			uint64_t total = 1 + (uint64_t)I + 9 + (uint64_t)n * es;
			if (total > left)
				break;
			if (parr && q) {
				objq_put(P, 0x23, hp_be_id(p + 1, I), hp_be32(p + 1 + I), ty, n, want_parr ? p + 1 + I + 9 : NULL,
					 base + (uint64_t)(p - start));
			} else if (parr) {
				*rc = parr(ud, hp_be_id(p + 1, I), hp_be32(p + 1 + I), ty, n, want_parr ? p + 1 + I + 9 : NULL,
					   base + (uint64_t)(p - start), 0);
				if (*rc)
					break;
			}
			if (raw) {
				uint64_t o = base + (uint64_t)(p - start);
				if ((*rc = raw(ud, HP_RAW_SUB, p, 1 + I + 9, o)))
					break;
				if (n && (*rc = raw(ud, HP_RAW_ELEMS, p + 1 + I + 9, (size_t)(total - 1 - I - 9), o + 1 + I + 9)))
					break;
			}
			n23++;
			last = p;
			p += total;
		} else if (t == 0x22) {
			if (left < 1 + 2 * I + 8)
				break;
			uint32_t n = hp_be32(p + 1 + I + 4);
			uint64_t total = 1 + 2 * (uint64_t)I + 8 + (uint64_t)n * I;
			if (total > left)
				break;
			if (oarr && q) {
				objq_put(P, 0x22, hp_be_id(p + 1, I), hp_be32(p + 1 + I), hp_be_id(p + 1 + I + 8, I), n,
					 want_arr ? p + 1 + 2 * I + 8 : NULL, base + (uint64_t)(p - start));
			} else if (oarr) {
				*rc = oarr(ud, hp_be_id(p + 1, I), hp_be32(p + 1 + I), hp_be_id(p + 1 + I + 8, I), n,
					   want_arr ? p + 1 + 2 * I + 8 : NULL, base + (uint64_t)(p - start));
				if (*rc)
					break;
			}
			if (raw) {
				uint64_t o = base + (uint64_t)(p - start);
				if ((*rc = raw(ud, HP_RAW_SUB, p, 1 + 2 * I + 8, o)))
					break;
				if (n && (*rc = raw(ud, HP_RAW_ELEMS, p + 1 + 2 * I + 8, (size_t)(total - 1 - 2 * I - 8),
						    o + 1 + 2 * I + 8)))
					break;
			}
			n22++;
			last = p;
			p += total;
		} else {
			break;
		}
	}
	struct hp_stats *st = P->st;
	st->subrecords_by_tag[0x21] += n21;
	st->subrecords_by_tag[0x22] += n22;
	st->subrecords_by_tag[0x23] += n23;
	st->instance_field_bytes += fbytes;
	st->dumps[st->ndumps - 1].subrecords += n21 + n22 + n23;
	if (last) {
		P->prev_sub = last[0];
		P->prev_sub_off = base + (uint64_t)(last - start);
	}
	if (*rc)
		*rc = sink_fail(P, *rc, base + (uint64_t)(p - start), p[0]);
	r->pos = p;
	if (P->fast_seen != UINT64_MAX)
		P->fast_seen += (uint64_t)(p - start);
	return (uint64_t)(p - start);
}

/* Parses the sub-records of one HEAP DUMP / HEAP DUMP SEGMENT body of `len` bytes. */
static int parse_heap_body(struct parser *P, uint64_t len)
{
	hp_reader *r = P->r;
	const struct hp_sink *s = P->s;
	void *ud = s->ud;
	unsigned I = P->I;
	uint64_t rem = len;
	struct hp_stats *st = P->st;
	struct hp_dump_info *d = &st->dumps[st->ndumps - 1];
	int want_inst = P->o->want_instance_data, want_arr = P->o->want_array_data;
	uint64_t fast_bytes = 0;      /* the fast path's bytes since the last progress() */
	unsigned counter = 0;
	int rc;

	while (rem > 0) {
		if ((++counter & 0xff) == 0 || fast_bytes >= (4u << 20)) {
			progress(P);
			fast_bytes = 0;
		}
		/* the common case, in bulk: up to 1 MiB of objects at a time */
		uint64_t used = fast_objects(P, rem < (1u << 20) ? rem : (1u << 20), &rc);
		if (rc)
			return rc;
		rem -= used;
		fast_bytes += used;
		if (rem == 0)
			break;
		if (P->q && (rc = objq_sync(P)) != HP_OK)
			return rc;
		uint64_t off = hp_rd_offset(r);
		if ((rc = hp_rd_need(r, 1, P->err)) != HP_OK)
			return sub_short(P, rc, off, -1, 1, rem);
		int t = r->pos[0];
		unsigned F = fixed_len(t, I);
		if (F == 0) {
			if (P->prev_sub >= 0)
				return perr(P, HP_ECORRUPT, off, t,
					"unknown heap-dump sub-record tag 0x%02x after %s at offset %llu; its length is unknowable, so this dump stops here",
					t, hp_subtag_name(P->prev_sub), (unsigned long long)P->prev_sub_off);
			return perr(P, HP_ECORRUPT, off, t,
				"unknown heap-dump sub-record tag 0x%02x at the start of the dump; its length is unknowable, so this dump stops here", t);
		}
		if (1 + (uint64_t)F > rem)
			return sub_short(P, HP_OK, off, t, F, rem - 1);
		if ((rc = hp_rd_need(r, 1 + F, P->err)) != HP_OK)
			return sub_short(P, rc, off, t, F, rem - 1);
		const uint8_t *p = r->pos + 1;
		uint64_t total = 0;     /* bytes of this sub-record including the tag */
		uint64_t consumed = 0;  /* of them, already stepped over (raw arrays) */
		st->subrecords_by_tag[t]++;
		d->subrecords++;
		switch (t) {
		case 0x21: {            /* INSTANCE DUMP */
			uint32_t n = hp_be32(p + 2 * I + 4);
			total = 1 + (uint64_t)F + n;
			if (total > rem)
				return sub_short(P, HP_OK, off, t, total - 1, rem - 1);
			st->instance_field_bytes += n;
			if (P->raw) {
				if ((rc = hp_rd_need(r, (size_t)total, P->err)) != HP_OK)
					return sub_short(P, rc, off, t, total - 1, rem - 1);
				p = r->pos + 1;
			}
			if (P->deliver && s->instance) {
				const uint8_t *f = NULL;
				if (want_inst) {
					uint64_t cap = P->o->instance_data_max, k = total;
					if (cap && n > cap)
						k = 1 + (uint64_t)F + cap;   /* the rest is streamed past */
					if ((rc = hp_rd_need(r, (size_t)k, P->err)) != HP_OK)
						return sub_short(P, rc, off, t, total - 1, rem - 1);
					p = r->pos + 1;
					f = p + F;
				}
				uint64_t id = hp_be_id(p, I), cid = hp_be_id(p + I + 4, I);
				if ((rc = s->instance(ud, id, hp_be32(p + I), cid, f, n, off)) != HP_OK)
					return sink_fail(P, rc, off, t);
			}
			RAW(P, HP_RAW_SUB, r->pos, (size_t)total, off, t);
			break;
		}
		case 0x22: {            /* OBJECT ARRAY DUMP */
			uint32_t n = hp_be32(p + I + 4);
			total = 1 + (uint64_t)F + (uint64_t)n * I;
			if (total > rem)
				return sub_short(P, HP_OK, off, t, total - 1, rem - 1);
			uint32_t chunk = P->o->obj_array_chunk;
			if (P->deliver && want_arr && s->obj_array_part && chunk && n > chunk && r->kind != HP_RD_MMAP) {
				/* in parts: never the whole record in memory (a mapped
				 * file holds it already) */
				uint64_t id = hp_be_id(p, I), cid = hp_be_id(p + I + 8, I);
				uint32_t serial = hp_be32(p + I);
				r->pos += 1 + F;
				consumed = 1 + F;
				for (uint32_t first = 0; first < n;) {
					uint32_t k = n - first < chunk ? n - first : chunk;
					if ((rc = hp_rd_need(r, (size_t)k * I, P->err)) != HP_OK)
						return sub_short(P, rc, off, t, total - 1, rem - 1);
					if ((rc = s->obj_array_part(ud, id, serial, cid, n, first, k, r->pos, off)) != HP_OK)
						return sink_fail(P, rc, off, t);
					r->pos += (size_t)k * I;
					consumed += (uint64_t)k * I;
					first += k;
				}
			} else if (P->deliver && s->obj_array) {
				const uint8_t *e = NULL;
				if (want_arr) {
					if ((rc = hp_rd_need(r, (size_t)total, P->err)) != HP_OK)
						return sub_short(P, rc, off, t, total - 1, rem - 1);
					p = r->pos + 1;
					e = p + F;
				}
				uint64_t id = hp_be_id(p, I), cid = hp_be_id(p + I + 8, I);
				if ((rc = s->obj_array(ud, id, hp_be32(p + I), cid, n, e, off)) != HP_OK)
					return sink_fail(P, rc, off, t);
			}
			if (P->raw) {
				if ((rc = raw_array(P, off, t, F, total, rem, I)) != HP_OK)
					return rc;
				consumed = total;
			}
			break;
		}
		case 0x23: case 0xC3: { /* PRIMITIVE ARRAY DUMP / NODATA */
			uint32_t n = hp_be32(p + I + 4);
			unsigned ty = p[I + 8];
			unsigned es = hp_type_size(ty, I);
			if (!es || ty == HP_T_OBJECT)
				return perr(P, HP_ECORRUPT, off, t, "%s has invalid element type %u",
					    hp_subtag_name(t), ty);
			total = 1 + (uint64_t)F + (t == 0x23 ? (uint64_t)n * es : 0);
			if (total > rem)
				return sub_short(P, HP_OK, off, t, total - 1, rem - 1);
			if (P->deliver && s->prim_array) {
				const uint8_t *e = NULL;
				if (want_arr && !P->o->no_prim_array_data && t == 0x23) {
					if ((rc = hp_rd_need(r, (size_t)total, P->err)) != HP_OK)
						return sub_short(P, rc, off, t, total - 1, rem - 1);
					p = r->pos + 1;
					e = p + F;
				}
				if ((rc = s->prim_array(ud, hp_be_id(p, I), hp_be32(p + I), ty, n, e, off, t == 0xC3)) != HP_OK)
					return sink_fail(P, rc, off, t);
			}
			if (P->raw) {
				if ((rc = raw_array(P, off, t, F, total, rem, es)) != HP_OK)
					return rc;
				consumed = total;
			}
			break;
		}
		case 0x20: {            /* CLASS DUMP */
			uint32_t sa = 0, fa = 0;
			uint16_t ns = 0, nf = 0;
			if ((rc = class_dump_len(P, rem, off, &total, &sa, &fa, &ns, &nf)) != HP_OK)
				return rc;
			p = r->pos + 1;
			if (P->deliver && s->class_dump) {
				struct hp_class_dump c;
				c.id = hp_be_id(p, I);
				c.trace_serial = hp_be32(p + I);
				c.super_id = hp_be_id(p + I + 4, I);
				c.loader_id = hp_be_id(p + 2 * I + 4, I);
				c.signers_id = hp_be_id(p + 3 * I + 4, I);
				c.protection_domain_id = hp_be_id(p + 4 * I + 4, I);
				c.instance_size = hp_be32(p + 7 * I + 4);
				c.n_statics = ns;
				c.n_fields = nf;
				c.statics = r->pos + sa;
				c.statics_len = (uint32_t)(fa - 2 - sa);
				c.fields = r->pos + fa;
				c.offset = off;
				if ((rc = s->class_dump(ud, &c)) != HP_OK)
					return sink_fail(P, rc, off, t);
			}
			RAW(P, HP_RAW_SUB, r->pos, (size_t)total, off, t);
			break;
		}
		case 0xFE:              /* HEAP DUMP INFO (Android) */
			total = 1 + F;
			if (P->deliver && s->heap_info)
				if ((rc = s->heap_info(ud, hp_be32(p), hp_be_id(p + 4, I))) != HP_OK)
					return sink_fail(P, rc, off, t);
			RAW(P, HP_RAW_SUB, r->pos, 1 + F, off, t);
			break;
		default: {              /* GC roots */
			total = 1 + F;
			if (P->deliver && s->root) {
				struct hp_root rt;
				memset(&rt, 0, sizeof rt);
				rt.kind = root_kind_of(t);
				rt.object = hp_be_id(p, I);
				rt.offset = off;
				switch (t) {
				case 0x01: rt.jni_ref = hp_be_id(p + I, I); break;
				case 0x02: case 0x03: case 0x08: case 0x8E:
					rt.thread_serial = hp_be32(p + I);
					rt.frame = hp_be32(p + I + 4);
					rt.has_thread = 1;
					break;
				case 0x04: case 0x06:
					rt.thread_serial = hp_be32(p + I);
					rt.has_thread = 1;
					break;
				}
				if ((rc = s->root(ud, &rt)) != HP_OK)
					return sink_fail(P, rc, off, t);
			}
			RAW(P, HP_RAW_SUB, r->pos, 1 + F, off, t);
			break;
		}
		}
		if (consumed < total && (rc = hp_rd_skip(r, total - consumed, P->err)) != HP_OK)
			return sub_short(P, rc, off, t, total - 1, rem - 1);
		rem -= total;
		P->prev_sub = t;
		P->prev_sub_off = off;
	}
	return HP_OK;
}

/* Exact body length of fixed-size records; 0 for variable ones. */
static uint64_t fixed_body(int tag, unsigned I)
{
	switch (tag) {
	case 0x02: return 8 + 2 * (uint64_t)I;
	case 0x03: case 0x0B: return 4;
	case 0x04: return 8 + 4 * (uint64_t)I;
	case 0x0A: return 8 + 4 * (uint64_t)I;
	case 0x07: return 24;
	case 0x0E: return 6;
	case 0x2C: return 0;
	default: return 0;
	}
}

/* A record runs past the end of the input: truncation, unless the record
 * itself looks like garbage, which means the framing broke here. */
static int past_end(struct parser *P, uint32_t len, uint32_t time, uint64_t remain)
{
	uint64_t fb = fixed_body(P->tag, P->I);
	int known = hp_tag_name(P->tag) != NULL;
	const char *why = NULL;
	char buf[96];
	if (!known)
		why = "the tag is not a known record";
	else if ((fb || P->tag == 0x2C) && len != fb) {
		snprintf(buf, sizeof buf, "%s always has %llu", tagname(P->tag), (unsigned long long)fb);
		why = buf;
	} else if (time != 0 && !P->times_nonzero && P->recno > 1) {
		snprintf(buf, sizeof buf, "its time field 0x%08x is not 0 like every record before it", time);
		why = buf;
	}
	if (why) {
		if (P->prev_tag >= 0)
			return perr(P, HP_ECORRUPT, P->rec_off, -1,
				"record framing is broken: tag 0x%02x declares %u bytes, %llu remain, and %s (previous record: %s at offset %llu)",
				P->tag, len, (unsigned long long)remain, why, tagname(P->prev_tag),
				(unsigned long long)P->prev_off);
		return perr(P, HP_ECORRUPT, P->rec_off, -1,
			"record framing is broken: tag 0x%02x declares %u bytes, %llu remain, and %s",
			P->tag, len, (unsigned long long)remain, why);
	}
	return perr(P, HP_ETRUNC, P->rec_off, -1,
		"file ends inside %s record (declares %u bytes, %llu remain)",
		tagname(P->tag), len, (unsigned long long)remain);
}

/* Checks a small record's body length and makes its first `use` bytes
 * available (0: all of it; never more than a fixed layout). */
static int small_body(struct parser *P, uint32_t len, uint64_t min, uint64_t use)
{
	if (len < min)
		return perr(P, HP_ECORRUPT, P->rec_off, -1,
			"%s record body is %u bytes; at least %llu expected",
			tagname(P->tag), len, (unsigned long long)min);
	uint64_t fb = fixed_body(P->tag, P->I);
	size_t want = fb && len > fb ? (size_t)fb : len;   /* never buffer more than the layout */
	if (use && use < want)
		want = (size_t)use;
	int rc = hp_rd_need(P->r, want, P->err);
	if (rc == HP_ETRUNC)
		return past_end(P, len, P->cur_time, hp_rd_avail(P->r));
	return rc;
}

/* An agent record's counted list (ALLOC SITES, CPU SAMPLES): a head of
 * head bytes ending in the count *n, then *n entries of esize bytes, checked
 * against the body's len; when wanted, the head and the first *k entries (at
 * most HP_AGENT_ENTRIES_MAX) made available. */
static int agent_list(struct parser *P, uint32_t len, uint64_t off, uint32_t head, uint32_t esize,
		      const char *items, int want, uint32_t *n, uint32_t *k)
{
	HP_TRY(small_body(P, len, head, head));
	*n = hp_be32(P->r->pos + head - 4);
	if ((uint64_t)*n * esize > len - head)
		return perr(P, HP_ECORRUPT, off, -1, "%s declares %u %s but its body has room for %u",
			    tagname(P->tag), *n, items, (len - head) / esize);
	*k = *n > HP_AGENT_ENTRIES_MAX ? HP_AGENT_ENTRIES_MAX : *n;
	if (!want)
		return HP_OK;
	int rc = hp_rd_need(P->r, head + (size_t)*k * esize, P->err);
	if (rc == HP_ETRUNC)
		return past_end(P, len, P->cur_time, hp_rd_avail(P->r));
	return rc;
}

static int parse_records(struct parser *P, hp_reader *r, const struct hp_sink *sink, const struct hp_parse_opts *opts,
			 struct hp_stats *st, struct hp_error *err)
{
	static const struct hp_sink empty_sink;
	struct hp_parse_opts defopts;
	if (!sink)
		sink = &empty_sink;
	if (!opts) {
		hp_parse_opts_init(&defopts);
		defopts.dump_index = -1;
		opts = &defopts;
	}
	memset(st, 0, sizeof *st);
	st->parsed_dump = -1;
	*P = (struct parser){ .r = r, .s = sink, .o = opts, .st = st, .err = err,
			      .tag = -1, .prev_sub = -1, .prev_tag = -1,
			      .raw = opts->want_raw ? sink->raw : NULL };
	P->next_progress = PROGRESS_STEP;
	int rc = read_header(P);
	if (rc)
		return rc;
	unsigned I = P->I;

	for (;;) {
		uint64_t off = hp_rd_offset(r);
		st->bytes = off;
		progress(P);
		rc = hp_rd_need(r, 9, err);
		if (rc == HP_ETRUNC) {
			if (hp_rd_avail(r) == 0) {
				if (r->kind == HP_RD_GZIP && r->at_eof == 2)
					return perr(P, HP_ETRUNC, off, -1,
						"the gzip stream ends without its end-of-member trailer after %llu compressed bytes",
						(unsigned long long)r->z_in_total);
				break;          /* clean end of file */
			}
			P->tag = r->pos[0];
			P->recno++;
			return perr(P, HP_ETRUNC, off, -1,
				"file ends inside a record header (%zu of 9 bytes)", hp_rd_avail(r));
		}
		if (rc)
			return rc;
		int tag = r->pos[0];
		uint32_t len = hp_be32(r->pos + 5);
		/* the object thread runs on through the segments of a dump, and
		 * stops for anything else */
		if (P->q && !(tag == 0x1C && st->in_segmented_dump) && (rc = objq_sync(P)) != HP_OK)
			return rc;
		if (P->recno) {
			P->prev_tag = P->tag;
			P->prev_off = P->rec_off;
			if (P->cur_time && hp_tag_name(P->tag))
				P->times_nonzero = 1;   /* garbage read as an unknown tag proves nothing */
		}
		P->cur_time = hp_be32(r->pos + 1);
		P->recno++;
		P->tag = tag;
		P->rec_off = off;
		{
			/* a fixed-size record longer than its layout is accepted (the
			 * rest is skipped) when the file holds it; past the end it
			 * means the framing broke (past_end words it) */
			uint64_t fb = fixed_body(tag, I);
			uint64_t ks = hp_rd_known_size(r);
			if ((fb || tag == 0x2C) && len != fb && ks && off + 9 + (uint64_t)len > ks)
				return past_end(P, len, P->cur_time, ks - off - 9);
		}
		RAW(P, HP_RAW_RECORD, r->pos, 9, off, -1);
		r->pos += 9;
		st->records++;
		st->records_by_tag[tag]++;

		/* a known record of another kind ends a segmented dump left open */
		if (st->in_segmented_dump && tag == 0x0C)
			HP_TRY(end_dump(P, off, 0));   /* segments without HEAP DUMP END */

		const uint8_t *p;
		switch (tag) {
		case 0x01:              /* STRING */
			/* a string longer than string_max: its first bytes, its length */
			HP_TRY(small_body(P, len, I, !sink->string ? I : opts->string_max ? I + (uint64_t)opts->string_max : 0));
			p = r->pos;
			SINK(P, string, off, -1, hp_be_id(p, I), p + I, len - I);
			break;
		case 0x02:              /* LOAD CLASS */
			HP_TRY(small_body(P, len, 8 + 2 * I, 0));
			p = r->pos;
			SINK(P, load_class, off, -1, hp_be32(p), hp_be_id(p + 4, I), hp_be32(p + 4 + I),
			     hp_be_id(p + 8 + I, I));
			break;
		case 0x04: {            /* STACK FRAME */
			HP_TRY(small_body(P, len, 8 + 4 * I, 0));
			p = r->pos;
			struct hp_frame f = { hp_be_id(p, I), hp_be_id(p + I, I), hp_be_id(p + 2 * I, I),
					      hp_be_id(p + 3 * I, I), hp_be32(p + 4 * I),
					      (int32_t)hp_be32(p + 4 * I + 4) };
			SINK(P, frame, off, -1, &f);
			break;
		}
		case 0x05: {            /* STACK TRACE */
			HP_TRY(small_body(P, len, 12, 12));
			uint32_t n = hp_be32(r->pos + 8);
			if ((uint64_t)n * I > len - 12)
				return perr(P, HP_ECORRUPT, off, -1,
					"STACK TRACE declares %u frames (%llu bytes) but its body has %u bytes left",
					n, (unsigned long long)n * I, len - 12);
			if (sink->trace) {      /* the frames wanted, not what may follow them */
				uint32_t k = opts->trace_frames_max && n > opts->trace_frames_max ? opts->trace_frames_max : n;
				rc = hp_rd_need(r, 12 + (size_t)k * I, err);
				if (rc == HP_ETRUNC)
					return past_end(P, len, P->cur_time, hp_rd_avail(r));
				if (rc)
					return rc;
			}
			p = r->pos;
			SINK(P, trace, off, -1, hp_be32(p), hp_be32(p + 4), n, p + 12);
			break;
		}
		case 0x0A: {            /* START THREAD */
			HP_TRY(small_body(P, len, 8 + 4 * I, 0));
			p = r->pos;
			struct hp_thread t = { hp_be32(p), hp_be32(p + 4 + I), hp_be_id(p + 4, I),
					       hp_be_id(p + 8 + I, I), hp_be_id(p + 8 + 2 * I, I),
					       hp_be_id(p + 8 + 3 * I, I) };
			SINK(P, start_thread, off, -1, &t);
			break;
		}
		case 0x03: case 0x0B:   /* UNLOAD CLASS, END THREAD */
			HP_TRY(small_body(P, len, 4, 0));
			break;
		case 0x0E:              /* CONTROL SETTINGS */
			HP_TRY(small_body(P, len, 6, 0));
			break;
		case 0x07: {            /* HEAP SUMMARY */
			HP_TRY(small_body(P, len, 24, 0));
			p = r->pos;
			struct hp_heap_summary hs = { hp_be32(p), hp_be32(p + 4), hp_be64(p + 8), hp_be64(p + 16) };
			SINK(P, heap_summary, off, -1, &hs);
			break;
		}
		case 0x06: {            /* ALLOC SITES */
			uint32_t n, k;
			HP_TRY(agent_list(P, len, off, 34, 25, "sites", sink->alloc_sites != NULL, &n, &k));
			if (sink->alloc_sites) {
				p = r->pos;
				struct hp_alloc_sites_hdr hd = { hp_be16(p), hp_be32(p + 2), hp_be32(p + 6), hp_be32(p + 10),
								 hp_be64(p + 14), hp_be64(p + 22), n };
				SINK(P, alloc_sites, off, -1, &hd, p + 34, k);
			}
			break;
		}
		case 0x0D: {            /* CPU SAMPLES */
			uint32_t n, k;
			HP_TRY(agent_list(P, len, off, 8, 8, "traces", sink->cpu_samples != NULL, &n, &k));
			if (sink->cpu_samples) {
				p = r->pos;
				SINK(P, cpu_samples, off, -1, hp_be32(p), n, p + 8, k);
			}
			break;
		}
		case 0x0C: case 0x1C: { /* HEAP DUMP, HEAP DUMP SEGMENT */
			if (tag == 0x0C || !st->in_segmented_dump) {
				HP_TRY(begin_dump(P));
				if (tag == 0x1C)
					st->in_segmented_dump = 1;
			}
			struct hp_dump_info *d = &st->dumps[st->ndumps - 1];
			d->records++;
			uint64_t body = hp_rd_offset(r);
			if (P->deliver) {
				rc = parse_heap_body(P, len);
				if (rc)
					return rc;
			} else {
				rc = pass_bytes(P, HP_RAW_BODY, len, 1, -1);
				if (rc == HP_ETRUNC)
					return past_end(P, len, P->cur_time, hp_rd_offset(r) - body);
				if (rc)
					return rc;
			}
			d->end = hp_rd_offset(r);
			if (tag == 0x0C)
				HP_TRY(end_dump(P, d->end, 1));
			continue;       /* body already consumed */
		}
		case 0x2C:              /* HEAP DUMP END */
			if (st->in_segmented_dump) {
				st->dumps[st->ndumps - 1].end = off + 9 + len;
				HP_TRY(end_dump(P, off, 1));
			}
			break;
		default: {              /* unknown: skip by length */
			uint64_t avail_known = hp_rd_known_size(r);
			if (avail_known && off + 9 + (uint64_t)len > avail_known)
				return past_end(P, len, P->cur_time, avail_known - off - 9);
			st->unknown_records++;
			st->unknown_bytes += len;
			rc = pass_bytes(P, HP_RAW_BODY, len, 1, -1);
			if (rc == HP_ETRUNC)
				return past_end(P, len, P->cur_time, 0);
			if (rc)
				return rc;
			continue;
		}
		}
		/* small records: the body was made available above; step over it */
		rc = pass_bytes(P, HP_RAW_BODY, len, 1, -1);
		if (rc == HP_ETRUNC)
			return past_end(P, len, P->cur_time, hp_rd_offset(r) - off - 9);
		if (rc)
			return rc;
	}
	st->bytes = hp_rd_offset(r);
	if ((rc = objq_sync(P)) != HP_OK)
		return rc;
	if (st->in_segmented_dump) {
		/* Segments without HEAP DUMP END: HotSpot and ART always write one,
		 * so the file was cut at a record boundary.  The dump is closed
		 * (what was read stands, for --salvage) and the cut reported. */
		st->in_segmented_dump = 0;
		if (P->deliver && sink->dump_end) {
			rc = sink->dump_end(sink->ud, st->ndumps - 1, st->bytes);
			if (rc)
				return sink_fail(P, rc, st->bytes, -1);
		}
		return perr(P, HP_ETRUNC, st->bytes, -1,
			    "file ends after %llu HEAP DUMP SEGMENT record%s of heap dump %u (begun at offset %llu) "
			    "without its HEAP DUMP END: the file is cut short",
			    (unsigned long long)st->dumps[st->ndumps - 1].records,
			    st->dumps[st->ndumps - 1].records == 1 ? "" : "s", st->ndumps - 1,
			    (unsigned long long)st->dumps[st->ndumps - 1].offset);
	}
	return HP_OK;
}

int hp_parse(hp_reader *r, const struct hp_sink *sink, const struct hp_parse_opts *opts,
	     struct hp_stats *st, struct hp_error *err)
{
	struct parser P = { 0 };
	int rc = objq_end(&P, parse_records(&P, r, sink, opts, st, err));
	if (rc == HP_ETRUNC && r->kind == HP_RD_GZIP && r->at_eof == 2 && !strstr(err->msg, "gzip")) {
		size_t l = strlen(err->msg);
		snprintf(err->msg + l, sizeof err->msg - l,
			 "; the gzip stream is cut short after %llu compressed bytes",
			 (unsigned long long)r->z_in_total);
	}
	return rc;
}
