/*
 * Tests of the reader and the streaming parser (src/parser/).
 *
 * Dumps are built in memory with tests/helper/hpw, written to temporary files
 * (plain, gzip with one or many members, a FIFO fed by a child process, a
 * pipe on standard input) and parsed with hp_reader_open + hp_parse into a
 * recording sink.  The recorder writes one text line per callback with every
 * decoded value; the builder that writes the dump writes the line each
 * record must produce, so a whole parse is checked by comparing two logs, and
 * the mmap, gzip and streaming paths by comparing their logs with each other.
 *
 * Error paths check the code, err.offset, err.record, err.tag and key words of
 * the message; a loop cuts small dumps at every byte and checks that only
 * record boundaries parse.
 *
 * `test_parser --write-bad DIR` writes the must-fail files that
 * tests/cli/bad.sh feeds to hprofan.  `test_parser --shard K/N` runs the
 * K-th of N shares of the tests (the pieces table at the end), and
 * `test_parser --shards` says how many tests/run-all.sh should run.
 */
#include "helper/hpw.h"
#include "base/error.h"
#include "parser/hprof.h"
#include "parser/reader.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- checks ------------------------------------------------------------- */

static int n_pass, n_fail;
static const char *cur_test = "";

static void check_(int ok, const char *what, const char *file, int line)
{
	if (ok) {
		n_pass++;
		return;
	}
	n_fail++;
	printf("FAIL %s:%d [%s]: %s\n", file, line, cur_test, what);
}

static void check_eq_(uint64_t a, uint64_t b, const char *ea, const char *eb, const char *file, int line)
{
	if (a == b) {
		n_pass++;
		return;
	}
	n_fail++;
	printf("FAIL %s:%d [%s]: %s == %s (got %llu = 0x%llx, want %llu = 0x%llx)\n", file, line, cur_test,
	       ea, eb, (unsigned long long)a, (unsigned long long)a, (unsigned long long)b,
	       (unsigned long long)b);
}

static void check_has_(const char *s, const char *sub, const char *file, int line)
{
	if (s && strstr(s, sub)) {
		n_pass++;
		return;
	}
	n_fail++;
	printf("FAIL %s:%d [%s]: message \"%s\" lacks \"%s\"\n", file, line, cur_test, s ? s : "(null)", sub);
}

static void check_streq_(const char *a, const char *b, const char *file, int line)
{
	if (a && b && strcmp(a, b) == 0) {
		n_pass++;
		return;
	}
	n_fail++;
	printf("FAIL %s:%d [%s]: got \"%s\", want \"%s\"\n", file, line, cur_test, a ? a : "(null)",
	       b ? b : "(null)");
}

#define CHECK(c) check_(!!(c), #c, __FILE__, __LINE__)
#define CHECK_EQ(a, b) check_eq_((uint64_t)(a), (uint64_t)(b), #a, #b, __FILE__, __LINE__)
#define CHECK_HAS(s, sub) check_has_((s), (sub), __FILE__, __LINE__)
#define CHECK_STREQ(a, b) check_streq_((a), (b), __FILE__, __LINE__)

/* ---- a growable text buffer -------------------------------------------- */

struct sbuf {
	char *p;
	size_t len, cap;
};

static void sb_add(struct sbuf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t nc = b->cap ? b->cap : 4096;
		while (nc < b->len + n + 1)
			nc *= 2;
		b->p = realloc(b->p, nc);
		if (!b->p)
			abort();
		b->cap = nc;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	char tmp[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof tmp)
		abort();
	sb_add(b, tmp, (size_t)n);
}

static void sb_free(struct sbuf *b)
{
	free(b->p);
	memset(b, 0, sizeof *b);
}

static const char *sb_str(const struct sbuf *b)
{
	return b->p ? b->p : "";
}

/* bytes as hex when short, as length + FNV-1a hash when long; NULL as "-" */
static void sb_bytes(struct sbuf *b, const uint8_t *p, size_t n)
{
	if (!p) {
		sb_add(b, "-", 1);
		return;
	}
	if (n <= 64) {
		sb_add(b, "x", 1);
		for (size_t i = 0; i < n; i++)
			sb_printf(b, "%02x", p[i]);
		return;
	}
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	sb_printf(b, "#%zu:%016llx", n, (unsigned long long)h);
}

/* first line where two logs differ, for failure messages */
static void show_diff(const char *got, const char *want)
{
	size_t line = 1;
	const char *g = got, *w = want;
	while (*g && *w) {
		const char *ge = strchr(g, '\n'), *we = strchr(w, '\n');
		size_t gl = ge ? (size_t)(ge - g) : strlen(g), wl = we ? (size_t)(we - w) : strlen(w);
		if (gl != wl || memcmp(g, w, gl) != 0)
			break;
		g += gl + (ge ? 1 : 0);
		w += wl + (we ? 1 : 0);
		line++;
	}
	printf("    first difference at line %zu:\n    got:  %.200s\n    want: %.200s\n", line,
	       *g ? g : "(end)", *w ? w : "(end)");
}

static void check_log_(const char *got, const char *want, const char *file, int line)
{
	if (strcmp(got, want) == 0) {
		n_pass++;
		return;
	}
	n_fail++;
	printf("FAIL %s:%d [%s]: callback logs differ\n", file, line, cur_test);
	show_diff(got, want);
}
#define CHECK_LOG(got, want) check_log_((got), (want), __FILE__, __LINE__)

/* ---- small helpers ------------------------------------------------------ */

static unsigned tsize(unsigned type, unsigned I)
{
	switch (type) {
	case HPW_T_OBJECT: return I;
	case HPW_T_BOOLEAN: case HPW_T_BYTE: return 1;
	case HPW_T_CHAR: case HPW_T_SHORT: return 2;
	case HPW_T_FLOAT: case HPW_T_INT: return 4;
	case HPW_T_DOUBLE: case HPW_T_LONG: return 8;
	default: return 0;
	}
}

static uint64_t mask_bytes(uint64_t v, unsigned n)
{
	return n >= 8 ? v : v & ((1ull << (8 * n)) - 1);
}

static void put_be(uint8_t *p, uint64_t v, unsigned n)
{
	while (n--) {
		p[n] = (uint8_t)v;
		v >>= 8;
	}
}

static uint64_t get_be(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
	while (n--)
		v = (v << 8) | *p++;
	return v;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- event lines: the recorder and the builder both use these ---------- */

static void ev_header(struct sbuf *b, const char *fmt, int version, unsigned I, uint64_t ts, uint64_t len)
{
	sb_printf(b, "header '%s' v%d id%u ts=%llx len=%llu\n", fmt, version, I, (unsigned long long)ts,
		  (unsigned long long)len);
}

static void ev_string(struct sbuf *b, uint64_t id, const uint8_t *s, uint32_t len)
{
	sb_printf(b, "string %llx len=%u ", (unsigned long long)id, len);
	sb_bytes(b, s, len);
	sb_add(b, "\n", 1);
}

static void ev_load_class(struct sbuf *b, uint32_t serial, uint64_t cid, uint32_t trace, uint64_t sid)
{
	sb_printf(b, "load_class serial=%u id=%llx trace=%u name=%llx\n", serial, (unsigned long long)cid,
		  trace, (unsigned long long)sid);
}

static void ev_frame(struct sbuf *b, uint64_t id, uint64_t m, uint64_t s, uint64_t src, uint32_t cser, int32_t line)
{
	sb_printf(b, "frame id=%llx method=%llx sig=%llx src=%llx class=%u line=%d\n",
		  (unsigned long long)id, (unsigned long long)m, (unsigned long long)s,
		  (unsigned long long)src, cser, line);
}

/* frame ids as raw bytes (n × I) */
static void ev_trace(struct sbuf *b, uint32_t serial, uint32_t thread, uint32_t n, const uint8_t *ids, unsigned I)
{
	sb_printf(b, "trace serial=%u thread=%u n=%u frames=", serial, thread, n);
	for (uint32_t i = 0; i < n; i++)
		sb_printf(b, "%s%llx", i ? "," : "", (unsigned long long)get_be(ids + (size_t)i * I, I));
	sb_add(b, "\n", 1);
}

static void ev_thread(struct sbuf *b, uint32_t serial, uint64_t obj, uint32_t trace, uint64_t name,
		      uint64_t group, uint64_t parent)
{
	sb_printf(b, "thread serial=%u obj=%llx trace=%u name=%llx group=%llx parent=%llx\n", serial,
		  (unsigned long long)obj, trace, (unsigned long long)name, (unsigned long long)group,
		  (unsigned long long)parent);
}

static void ev_dump_begin(struct sbuf *b, unsigned idx, uint64_t off)
{
	sb_printf(b, "dump_begin %u at %llu\n", idx, (unsigned long long)off);
}

static void ev_dump_end(struct sbuf *b, unsigned idx, uint64_t off)
{
	sb_printf(b, "dump_end %u at %llu\n", idx, (unsigned long long)off);
}

static void ev_root(struct sbuf *b, int kind, uint64_t obj, uint64_t ref, uint32_t thread, uint32_t frame,
		    int has_thread, uint64_t off)
{
	sb_printf(b, "root %s obj=%llx ref=%llx thread=%u frame=%u has_thread=%d at %llu\n",
		  hp_root_kind_key(kind), (unsigned long long)obj, (unsigned long long)ref, thread, frame,
		  has_thread, (unsigned long long)off);
}

/* a CLASS DUMP as the sink sees it; statics and fields in decoded form */
struct cls_ev {
	uint64_t id, super_id, loader_id, signers_id, pd_id;
	uint32_t trace, isize;
	unsigned ns, nf;
	const struct hpw_static_field *statics;
	const struct hpw_instance_field *fields;
	uint32_t statics_len;
	uint64_t off;
};

static void ev_class(struct sbuf *b, const struct cls_ev *c, unsigned I)
{
	sb_printf(b, "class id=%llx trace=%u super=%llx loader=%llx signers=%llx pd=%llx isize=%u ns=%u nf=%u slen=%u statics=",
		  (unsigned long long)c->id, c->trace, (unsigned long long)c->super_id,
		  (unsigned long long)c->loader_id, (unsigned long long)c->signers_id,
		  (unsigned long long)c->pd_id, c->isize, c->ns, c->nf, c->statics_len);
	for (unsigned i = 0; i < c->ns; i++)
		sb_printf(b, "(%llx,%u,%llx)", (unsigned long long)c->statics[i].name_sid, c->statics[i].type,
			  (unsigned long long)mask_bytes(c->statics[i].value, tsize(c->statics[i].type, I)));
	sb_add(b, " fields=", 8);
	for (unsigned i = 0; i < c->nf; i++)
		sb_printf(b, "(%llx,%u)", (unsigned long long)c->fields[i].name_sid, c->fields[i].type);
	sb_printf(b, " at %llu\n", (unsigned long long)c->off);
}

static void ev_instance(struct sbuf *b, uint64_t id, uint32_t serial, uint64_t cid, const uint8_t *f, uint32_t len,
			uint64_t off)
{
	sb_printf(b, "instance id=%llx serial=%u class=%llx len=%u ", (unsigned long long)id, serial,
		  (unsigned long long)cid, len);
	sb_bytes(b, f, len);
	sb_printf(b, " at %llu\n", (unsigned long long)off);
}

/* elements as raw bytes (n × I) */
static void ev_objarr(struct sbuf *b, uint64_t id, uint32_t serial, uint64_t cid, uint32_t n, const uint8_t *e,
		      unsigned I, uint64_t off)
{
	sb_printf(b, "objarr id=%llx serial=%u class=%llx n=%u ", (unsigned long long)id, serial,
		  (unsigned long long)cid, n);
	sb_bytes(b, e, (size_t)n * I);
	sb_printf(b, " at %llu\n", (unsigned long long)off);
}

static void ev_primarr(struct sbuf *b, uint64_t id, uint32_t serial, unsigned type, uint32_t n, const uint8_t *e,
		       unsigned I, uint64_t off, int nodata)
{
	sb_printf(b, "primarr id=%llx serial=%u type=%u n=%u ", (unsigned long long)id, serial, type, n);
	sb_bytes(b, e, (size_t)n * tsize(type, I));
	sb_printf(b, " nodata=%d at %llu\n", nodata, (unsigned long long)off);
}

static void ev_heap_info(struct sbuf *b, uint32_t heap_id, uint64_t sid)
{
	sb_printf(b, "heap_info %u name=%llx\n", heap_id, (unsigned long long)sid);
}

/* ---- the recording sink -------------------------------------------------- */

struct rec {
	struct sbuf log;
	unsigned I;
	unsigned events;
	unsigned stop_after;      /* fail the Nth event (1-based); 0 never */
	int stop_code;
};

static int rec_event(struct rec *r)
{
	r->events++;
	if (r->stop_after && r->events == r->stop_after)
		return r->stop_code;
	return HP_OK;
}

static int r_header(void *ud, const struct hp_header *h)
{
	struct rec *r = ud;
	r->I = h->id_size;
	ev_header(&r->log, h->format, h->version, h->id_size, h->timestamp_ms, h->length);
	return rec_event(r);
}

static int r_string(void *ud, uint64_t id, const uint8_t *s, uint32_t len)
{
	struct rec *r = ud;
	ev_string(&r->log, id, s, len);
	return rec_event(r);
}

static int r_load_class(void *ud, uint32_t serial, uint64_t cid, uint32_t trace, uint64_t sid)
{
	struct rec *r = ud;
	ev_load_class(&r->log, serial, cid, trace, sid);
	return rec_event(r);
}

static int r_frame(void *ud, const struct hp_frame *f)
{
	struct rec *r = ud;
	ev_frame(&r->log, f->id, f->method_sid, f->signature_sid, f->source_sid, f->class_serial, f->line);
	return rec_event(r);
}

static int r_trace(void *ud, uint32_t serial, uint32_t thread, uint32_t n, const uint8_t *ids)
{
	struct rec *r = ud;
	ev_trace(&r->log, serial, thread, n, ids, r->I);
	return rec_event(r);
}

static int r_thread(void *ud, const struct hp_thread *t)
{
	struct rec *r = ud;
	ev_thread(&r->log, t->serial, t->object_id, t->trace_serial, t->name_sid, t->group_sid,
		  t->parent_group_sid);
	return rec_event(r);
}

static int r_dump_begin(void *ud, unsigned idx, uint64_t off)
{
	struct rec *r = ud;
	ev_dump_begin(&r->log, idx, off);
	return rec_event(r);
}

static int r_dump_end(void *ud, unsigned idx, uint64_t off)
{
	struct rec *r = ud;
	ev_dump_end(&r->log, idx, off);
	return rec_event(r);
}

static int r_root(void *ud, const struct hp_root *rt)
{
	struct rec *r = ud;
	ev_root(&r->log, rt->kind, rt->object, rt->jni_ref, rt->thread_serial, rt->frame, rt->has_thread,
		rt->offset);
	return rec_event(r);
}

static int r_class(void *ud, const struct hp_class_dump *c)
{
	struct rec *r = ud;
	unsigned I = r->I;
	struct hpw_static_field *st = calloc(c->n_statics + 1u, sizeof *st);
	struct hpw_instance_field *fl = calloc(c->n_fields + 1u, sizeof *fl);
	if (!st || !fl)
		abort();
	const uint8_t *p = c->statics;
	for (unsigned i = 0; i < c->n_statics; i++) {
		st[i].name_sid = get_be(p, I);
		st[i].type = p[I];
		unsigned sz = tsize(st[i].type, I);
		st[i].value = get_be(p + I + 1, sz);
		p += I + 1 + sz;
	}
	/* the statics must end exactly where statics_len says */
	if ((size_t)(p - c->statics) != c->statics_len)
		sb_printf(&r->log, "!! statics parse to %zu bytes, statics_len %u\n",
			  (size_t)(p - c->statics), c->statics_len);
	p = c->fields;
	for (unsigned i = 0; i < c->n_fields; i++) {
		fl[i].name_sid = get_be(p, I);
		fl[i].type = p[I];
		p += I + 1;
	}
	struct cls_ev e = { c->id, c->super_id, c->loader_id, c->signers_id, c->protection_domain_id,
			    c->trace_serial, c->instance_size, c->n_statics, c->n_fields, st, fl,
			    c->statics_len, c->offset };
	ev_class(&r->log, &e, I);
	free(st);
	free(fl);
	return rec_event(r);
}

static int r_instance(void *ud, uint64_t id, uint32_t serial, uint64_t cid, const uint8_t *f, uint32_t len,
		      uint64_t off)
{
	struct rec *r = ud;
	ev_instance(&r->log, id, serial, cid, f, len, off);
	return rec_event(r);
}

static int r_objarr(void *ud, uint64_t id, uint32_t serial, uint64_t cid, uint32_t n, const uint8_t *e, uint64_t off)
{
	struct rec *r = ud;
	ev_objarr(&r->log, id, serial, cid, n, e, r->I, off);
	return rec_event(r);
}

static int r_primarr(void *ud, uint64_t id, uint32_t serial, unsigned type, uint32_t n, const uint8_t *e,
		     uint64_t off, int nodata)
{
	struct rec *r = ud;
	ev_primarr(&r->log, id, serial, type, n, e, r->I, off, nodata);
	return rec_event(r);
}

/* the object thread's batch call (g_batch): each record as its own call would log it */
static int r_objects(void *ud, const struct hp_objrec *o, size_t n, size_t *failed)
{
	for (size_t k = 0; k < n; k++) {
		const struct hp_objrec *e = &o[k];
		uint64_t off = HP_OBJREC_OFF(e);
		int rc = HP_OBJREC_TAG(e) == 0x21 ? r_instance(ud, e->id, e->serial, e->cid, NULL, e->n, off)
			 : HP_OBJREC_TAG(e) == 0x22 ? r_objarr(ud, e->id, e->serial, e->cid, e->n, NULL, off)
			 : r_primarr(ud, e->id, e->serial, (unsigned)e->cid, e->n, NULL, off, 0);
		if (rc != HP_OK) {
			*failed = k;
			return rc;
		}
	}
	return HP_OK;
}
static int g_batch;   /* the next runs' sinks take batches (r_objects) */

static int r_heap_info(void *ud, uint32_t heap_id, uint64_t sid)
{
	struct rec *r = ud;
	ev_heap_info(&r->log, heap_id, sid);
	return rec_event(r);
}

static void rec_sink(struct rec *r, struct hp_sink *s)
{
	memset(s, 0, sizeof *s);
	s->ud = r;
	s->header = r_header;
	s->string = r_string;
	s->load_class = r_load_class;
	s->frame = r_frame;
	s->trace = r_trace;
	s->start_thread = r_thread;
	s->dump_begin = r_dump_begin;
	s->dump_end = r_dump_end;
	s->root = r_root;
	s->class_dump = r_class;
	s->instance = r_instance;
	s->obj_array = r_objarr;
	s->prim_array = r_primarr;
	s->heap_info = r_heap_info;
	if (g_batch)
		s->objects = r_objects;
}

/* ---- the builder: writes a dump and the log it must produce -------------- */

#define MAX_RECS 4096
#define MAX_DUMPS 8

struct bdump {
	size_t off, end;
	unsigned records;
	uint64_t subs;
	int complete;
};

struct bld {
	hpw *w;
	struct sbuf ex;
	unsigned I;
	int want_inst, want_arr, dump_index;
	/* every top-level record: offset and tag */
	size_t nrec;
	size_t rec_off[MAX_RECS];
	int rec_tag[MAX_RECS];
	size_t hdr_len;
	/* dumps */
	int ndumps, cur, deliver, in_seg, open_tag;
	struct bdump dumps[MAX_DUMPS];
	uint64_t sub_count[256], rec_count[256];
	uint64_t inst_bytes, unknown_records, unknown_bytes;
};

static void b_init(struct bld *b, const char *fmt, unsigned I, uint64_t ts, int want_inst, int want_arr,
		   int dump_index)
{
	memset(b, 0, sizeof *b);
	b->w = hpw_new(fmt, (int)I, ts);
	b->I = I;
	b->want_inst = want_inst;
	b->want_arr = want_arr;
	b->dump_index = dump_index;
	b->cur = -1;
	b->hdr_len = hpw_len(b->w);
	int v = 0;
	if (strcmp(fmt, "JAVA PROFILE 1.0.1") == 0)
		v = 1;
	else if (strcmp(fmt, "JAVA PROFILE 1.0.2") == 0)
		v = 2;
	else if (strcmp(fmt, "JAVA PROFILE 1.0.3") == 0)
		v = 3;
	ev_header(&b->ex, fmt, v, I, ts, b->hdr_len);
}

static void b_free(struct bld *b)
{
	hpw_free(b->w);
	sb_free(&b->ex);
}

static void b_close_segmented(struct bld *b, size_t off)
{
	/* a segmented dump closed by something other than HEAP DUMP END */
	if (b->deliver)
		ev_dump_end(&b->ex, (unsigned)b->cur, off);
	b->in_seg = 0;
	b->deliver = 0;
}

/* notes a top-level record about to be written at the current offset */
static size_t b_rec(struct bld *b, int tag)
{
	size_t off = hpw_len(b->w);
	if (b->nrec >= MAX_RECS)
		abort();
	if (b->in_seg && tag == 0x0C)
		b_close_segmented(b, off);
	b->rec_off[b->nrec] = off;
	b->rec_tag[b->nrec] = tag;
	b->nrec++;
	b->rec_count[tag]++;
	return off;
}

static void b_string(struct bld *b, uint64_t id, const char *text)
{
	b_rec(b, 0x01);
	hpw_string(b->w, id, text);
	ev_string(&b->ex, id, (const uint8_t *)text, (uint32_t)strlen(text));
}

static void b_string_n(struct bld *b, uint64_t id, const void *bytes, uint32_t len)
{
	b_rec(b, 0x01);
	hpw_string_n(b->w, id, bytes, len);
	ev_string(&b->ex, id, bytes, len);
}

static void b_load_class(struct bld *b, uint32_t serial, uint64_t cid, uint32_t trace, uint64_t sid)
{
	b_rec(b, 0x02);
	hpw_load_class(b->w, serial, cid, trace, sid);
	ev_load_class(&b->ex, serial, cid, trace, sid);
}

static void b_frame(struct bld *b, uint64_t id, uint64_t m, uint64_t s, uint64_t src, uint32_t cser, int32_t line)
{
	b_rec(b, 0x04);
	hpw_frame(b->w, id, m, s, src, cser, line);
	ev_frame(&b->ex, id, m, s, src, cser, line);
}

static void b_trace(struct bld *b, uint32_t serial, uint32_t thread, uint32_t n, const uint64_t *ids)
{
	b_rec(b, 0x05);
	hpw_trace(b->w, serial, thread, n, ids);
	uint8_t *raw = calloc(n + 1u, 8);
	for (uint32_t i = 0; i < n; i++)
		put_be(raw + (size_t)i * b->I, ids[i], b->I);
	ev_trace(&b->ex, serial, thread, n, raw, b->I);
	free(raw);
}

static void b_thread(struct bld *b, uint32_t serial, uint64_t obj, uint32_t trace, uint64_t name, uint64_t group,
		     uint64_t parent)
{
	b_rec(b, 0x0A);
	hpw_start_thread(b->w, serial, obj, trace, name, group, parent);
	ev_thread(&b->ex, serial, obj, trace, name, group, parent);
}

/* records that have no callback */
static void b_unload_class(struct bld *b, uint32_t serial)
{
	b_rec(b, 0x03);
	hpw_unload_class(b->w, serial);
}

static void b_end_thread(struct bld *b, uint32_t serial)
{
	b_rec(b, 0x0B);
	hpw_end_thread(b->w, serial);
}

static void b_heap_summary(struct bld *b)
{
	b_rec(b, 0x07);
	hpw_heap_summary(b->w, 1000, 20, 123456789012ull, 9876543210ull);
}

static void b_alloc_sites(struct bld *b, uint32_t n)
{
	struct hpw_site sites[4];
	memset(sites, 0, sizeof sites);
	for (uint32_t i = 0; i < n && i < 4; i++) {
		sites[i].is_array = (uint8_t)(i ? HPW_T_INT : 0);
		sites[i].class_serial = 2 + i;
		sites[i].trace_serial = 7;
		sites[i].live_bytes = 100 * i;
		sites[i].live_instances = i;
		sites[i].bytes_allocated = 200 * i;
		sites[i].instances_allocated = 2 * i;
	}
	b_rec(b, 0x06);
	hpw_alloc_sites(b->w, 1, 0.5f, 300, 3, 5000, 50, n, sites);
}

static void b_cpu_samples(struct bld *b)
{
	struct hpw_sample s[2] = { { 10, 7 }, { 3, 8 } };
	b_rec(b, 0x0D);
	hpw_cpu_samples(b->w, 13, 2, s);
}

static void b_control(struct bld *b)
{
	b_rec(b, 0x0E);
	hpw_control_settings(b->w, 3, 16);
}

static void b_unknown(struct bld *b, uint8_t tag, const void *body, uint32_t len)
{
	b_rec(b, tag);
	hpw_record(b->w, tag, body, len);
	b->unknown_records++;
	b->unknown_bytes += len;
}

/* opens a HEAP DUMP (0x0C) or HEAP DUMP SEGMENT (0x1C) record */
static void b_dump(struct bld *b, uint8_t tag)
{
	size_t off = b_rec(b, tag);
	if (tag == 0x0C || !b->in_seg) {
		if (b->ndumps >= MAX_DUMPS)
			abort();
		b->cur = b->ndumps++;
		b->dumps[b->cur].off = off;
		b->deliver = b->dump_index < 0 || b->dump_index == b->cur;
		if (b->deliver)
			ev_dump_begin(&b->ex, (unsigned)b->cur, off);
		b->in_seg = tag == 0x1C;
	}
	b->dumps[b->cur].records++;
	b->open_tag = tag;
	hpw_begin_dump(b->w, tag);
}

static void b_dump_close(struct bld *b)
{
	hpw_end_dump(b->w);
	b->dumps[b->cur].end = hpw_len(b->w);
	if (b->open_tag == 0x0C) {
		b->dumps[b->cur].complete = 1;
		if (b->deliver)
			ev_dump_end(&b->ex, (unsigned)b->cur, hpw_len(b->w));
		b->deliver = 0;
	}
}

/* HEAP DUMP END */
static void b_heap_end(struct bld *b)
{
	size_t off = b_rec(b, 0x2C);
	hpw_dump_end(b->w);
	if (b->in_seg) {
		b->dumps[b->cur].end = off + 9;
		b->dumps[b->cur].complete = 1;
		if (b->deliver)
			ev_dump_end(&b->ex, (unsigned)b->cur, off);
		b->in_seg = 0;
		b->deliver = 0;
	}
}

/* end of file: a segmented dump left open is closed at the end */
static void b_eof(struct bld *b)
{
	if (b->in_seg && b->deliver)
		ev_dump_end(&b->ex, (unsigned)b->cur, hpw_len(b->w));
	b->in_seg = 0;
	b->deliver = 0;
}

static size_t b_sub(struct bld *b, int tag)
{
	if (b->deliver) {
		b->sub_count[tag]++;
		b->dumps[b->cur].subs++;
	}
	return hpw_len(b->w);
}

static int root_kind_of_tag(int t)
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

/* roots whose body is a lone id */
static void b_root_id(struct bld *b, uint8_t tag, uint64_t obj)
{
	size_t off = b_sub(b, tag);
	hpw_root_id(b->w, tag, obj);
	if (b->deliver)
		ev_root(&b->ex, root_kind_of_tag(tag), obj, 0, 0, 0, 0, off);
}

static void b_root_jni_global(struct bld *b, uint64_t obj, uint64_t ref)
{
	size_t off = b_sub(b, 0x01);
	hpw_root_jni_global(b->w, obj, ref);
	if (b->deliver)
		ev_root(&b->ex, HP_ROOT_JNI_GLOBAL, obj, ref, 0, 0, 0, off);
}

/* 0x02, 0x03, 0x08, 0x8E: id, u4 thread, u4 frame/trace/depth */
static void b_root_thread2(struct bld *b, uint8_t tag, uint64_t obj, uint32_t thread, uint32_t frame)
{
	size_t off = b_sub(b, tag);
	switch (tag) {
	case 0x02: hpw_root_jni_local(b->w, obj, thread, frame); break;
	case 0x03: hpw_root_java_frame(b->w, obj, thread, frame); break;
	case 0x08: hpw_root_thread_object(b->w, obj, thread, frame); break;
	case 0x8E: hpw_root_jni_monitor(b->w, obj, thread, frame); break;
	default: abort();
	}
	if (b->deliver)
		ev_root(&b->ex, root_kind_of_tag(tag), obj, 0, thread, frame, 1, off);
}

/* 0x04, 0x06: id, u4 thread */
static void b_root_thread1(struct bld *b, uint8_t tag, uint64_t obj, uint32_t thread)
{
	size_t off = b_sub(b, tag);
	if (tag == 0x04)
		hpw_root_native_stack(b->w, obj, thread);
	else
		hpw_root_thread_block(b->w, obj, thread);
	if (b->deliver)
		ev_root(&b->ex, root_kind_of_tag(tag), obj, 0, thread, 0, 1, off);
}

static void b_heap_info(struct bld *b, uint32_t heap_id, uint64_t sid)
{
	b_sub(b, 0xFE);
	hpw_heap_info(b->w, heap_id, sid);
	if (b->deliver)
		ev_heap_info(&b->ex, heap_id, sid);
}

static void b_class(struct bld *b, const struct hpw_class *c)
{
	size_t off = b_sub(b, 0x20);
	hpw_class_dump(b->w, c);
	if (!b->deliver)
		return;
	uint32_t slen = 0;
	for (unsigned i = 0; i < c->nstatics; i++)
		slen += b->I + 1 + tsize(c->statics[i].type, b->I);
	struct cls_ev e = { c->class_id, c->super_id, c->loader_id, c->signers_id, c->domain_id,
			    c->trace_serial, c->instance_size, c->nstatics, c->nfields, c->statics,
			    c->fields, slen, off };
	ev_class(&b->ex, &e, b->I);
}

static void b_instance(struct bld *b, uint64_t id, uint32_t trace, uint64_t cid, const uint8_t *f, uint32_t len)
{
	size_t off = b_sub(b, 0x21);
	hpw_instance(b->w, id, trace, cid, f, len);
	if (b->deliver) {
		b->inst_bytes += len;
		/* the parser passes a pointer even for 0 bytes */
		ev_instance(&b->ex, id, trace, cid, b->want_inst ? (f ? f : (const uint8_t *)"") : NULL, len, off);
	}
}

static void b_objarr(struct bld *b, uint64_t id, uint32_t trace, uint64_t cid, uint32_t n, const uint64_t *ids)
{
	size_t off = b_sub(b, 0x22);
	hpw_obj_array(b->w, id, trace, cid, n, ids);
	if (!b->deliver)
		return;
	uint8_t *raw = calloc(n + 1u, 8);
	for (uint32_t i = 0; i < n; i++)
		put_be(raw + (size_t)i * b->I, ids[i], b->I);
	ev_objarr(&b->ex, id, trace, cid, n, b->want_arr ? raw : NULL, b->I, off);
	free(raw);
}

static void b_primarr(struct bld *b, uint64_t id, uint32_t trace, uint8_t type, uint32_t n, const uint64_t *vals)
{
	size_t off = b_sub(b, 0x23);
	hpw_prim_array_values(b->w, id, trace, type, n, vals);
	if (!b->deliver)
		return;
	unsigned es = tsize(type, b->I);
	uint8_t *raw = calloc(n + 1u, es);
	for (uint32_t i = 0; i < n; i++)
		put_be(raw + (size_t)i * es, vals[i], es);
	ev_primarr(&b->ex, id, trace, type, n, b->want_arr ? raw : NULL, b->I, off, 0);
	free(raw);
}

/* a primitive array given as raw element bytes (for big arrays) */
static void b_primarr_raw(struct bld *b, uint64_t id, uint8_t type, uint32_t n, const uint8_t *raw)
{
	size_t off = b_sub(b, 0x23);
	hpw_prim_array(b->w, id, 0, type, n, raw, (size_t)n * tsize(type, b->I));
	if (b->deliver)
		ev_primarr(&b->ex, id, 0, type, n, b->want_arr ? raw : NULL, b->I, off, 0);
}

static void b_nodata(struct bld *b, uint64_t id, uint8_t type, uint32_t n)
{
	size_t off = b_sub(b, 0xC3);
	hpw_prim_array_nodata(b->w, id, 11, type, n);
	if (b->deliver)
		ev_primarr(&b->ex, id, 11, type, n, NULL, b->I, off, 1);
}

static const uint8_t *b_data(const struct bld *b, size_t *n)
{
	return hpw_data(b->w, n);
}

/* ---- temporary files and running the parser ------------------------------ */

static char tmpdir[512];
static unsigned tmp_seq;
static int in_memory;   /* run_bytes: plain and gzip files in memory (memfd) */
static int have_proc;   /* /proc/self/fd works: memfd and SRC_PIPEBUF usable */

static void tmp_init(void)
{
	const char *t = getenv("TMPDIR");
	snprintf(tmpdir, sizeof tmpdir, "%s/hp-test-parser.XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		exit(2);
	}
}

/* a fresh path inside the temporary directory (made with mkstemp) */
static void tmp_path(char *buf, size_t n, const char *suffix)
{
	snprintf(buf, n, "%s/t%u-XXXXXX", tmpdir, tmp_seq++);
	int fd = mkstemp(buf);
	if (fd < 0) {
		perror("mkstemp");
		exit(2);
	}
	close(fd);
	if (suffix && *suffix) {
		char nb[600];
		snprintf(nb, sizeof nb, "%s%s", buf, suffix);
		if (rename(buf, nb) != 0) {
			perror("rename");
			exit(2);
		}
		snprintf(buf, n, "%s", nb);
	}
}

static void write_bytes(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f || (n && fwrite(p, 1, n, f) != n) || fclose(f) != 0) {
		perror(path);
		exit(2);
	}
}

enum src { SRC_FILE, SRC_GZ1, SRC_GZN, SRC_FIFO, SRC_FIFO_GZ, SRC_STDIN, SRC_PIPEBUF, SRC_RAWGZ };
static const char *const src_names[] = { "file", "gzip-1", "gzip-n", "fifo", "fifo-gzip", "stdin", "pipe", "raw-gz" };

struct run {
	int open_rc, rc;
	int kind;
	uint64_t z_members;
	struct rec rec;
	struct hp_stats st;
	struct hp_error err;
	double seconds;
};

static void run_release(struct run *R)
{
	sb_free(&R->rec.log);
	hp_stats_release(&R->st);
}

/* the next run_path()'s sink fails its Nth event with this code */
static unsigned g_stop_after;
static int g_stop_code;

/* opens and parses `path`; results in R */
static void run_path(struct run *R, const char *path, const struct hp_parse_opts *o)
{
	hp_reader *r = NULL;
	struct hp_sink s;
	memset(R, 0, sizeof *R);
	R->rec.stop_after = g_stop_after;
	R->rec.stop_code = g_stop_code;
	g_stop_after = 0;
	g_stop_code = 0;
	hp_error_clear(&R->err);
	R->kind = -1;
	R->rc = HP_OK;
	double t0 = now_s();
	R->open_rc = hp_reader_open(&r, path, &R->err);
	if (R->open_rc != HP_OK) {
		R->rc = R->open_rc;
		CHECK(r == NULL);
		return;
	}
	R->kind = r->kind;
	rec_sink(&R->rec, &s);
	R->rc = hp_parse(r, &s, o, &R->st, &R->err);
	R->z_members = r->z_members;
	hp_reader_free(r);
	R->seconds = now_s() - t0;
}

static pid_t spawn_writer_fd(int fd, const uint8_t *data, size_t n)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(2);
	}
	if (pid == 0) {
		size_t o = 0;
		while (o < n) {
			ssize_t k = write(fd, data + o, n - o);
			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0)
				_exit(1);
			o += (size_t)k;
		}
		close(fd);
		_exit(0);
	}
	return pid;
}

static pid_t spawn_writer_path(const char *path, const uint8_t *data, size_t n)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(2);
	}
	if (pid == 0) {
		int fd = open(path, O_WRONLY);
		if (fd < 0)
			_exit(1);
		size_t o = 0;
		while (o < n) {
			ssize_t k = write(fd, data + o, n - o);
			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0)
				_exit(1);
			o += (size_t)k;
		}
		close(fd);
		_exit(0);
	}
	return pid;
}

static int gz_members_for(int src)
{
	return src == SRC_GZN || src == SRC_FIFO_GZ ? 7 : 1;
}

/* Parses `data` delivered through `src`.  Gzip sources compress it first
 * (SRC_GZN and SRC_FIFO_GZ with 7 members); SRC_RAWGZ writes the bytes as
 * they are (already gzip). */
static void run_bytes(struct run *R, const uint8_t *data, size_t n, int src, const struct hp_parse_opts *o)
{
	char path[600];
	uint8_t *gz = NULL;
	size_t gzn = 0;
	if (src == SRC_GZ1 || src == SRC_GZN || src == SRC_FIFO_GZ) {
		hpw *w = hpw_new(NULL, 4, 0);
		hpw_bytes(w, data, n);
		gz = hpw_gzip(w, gz_members_for(src), "HPROF BLOCKSIZE=1", &gzn);
		hpw_free(w);
		if (!gz)
			abort();
		data = gz;
		n = gzn;
	}
	if (src == SRC_PIPEBUF && (!have_proc || n > 60000))
		src = SRC_FIFO;
	switch (src) {
	case SRC_FILE: case SRC_GZ1: case SRC_GZN: case SRC_RAWGZ: {
		/* the loops that parse thousands of cut files use an in-memory
		 * file (creating and removing files on disk is slow on a busy
		 * machine); everything else a real temporary file */
		int mfd = in_memory && have_proc ? memfd_create("hp-test", 0) : -1;
		if (mfd >= 0) {
			size_t k = 0;
			while (k < n) {
				ssize_t w = write(mfd, data + k, n - k);
				if (w <= 0)
					abort();
				k += (size_t)w;
			}
			snprintf(path, sizeof path, "/proc/self/fd/%d", mfd);
			run_path(R, path, o);
			close(mfd);
			break;
		}
		tmp_path(path, sizeof path, src == SRC_FILE ? ".hprof" : ".hprof.gz");
		write_bytes(path, data, n);
		run_path(R, path, o);
		unlink(path);
		break;
	}
	case SRC_FIFO: case SRC_FIFO_GZ: {
		snprintf(path, sizeof path, "%s/fifo%u", tmpdir, tmp_seq++);
		if (mkfifo(path, 0600) != 0) {
			perror("mkfifo");
			exit(2);
		}
		pid_t pid = spawn_writer_path(path, data, n);
		run_path(R, path, o);
		int status;
		waitpid(pid, &status, 0);
		unlink(path);
		break;
	}
	case SRC_STDIN: {
		int fds[2];
		if (pipe(fds) != 0) {
			perror("pipe");
			exit(2);
		}
		pid_t pid = spawn_writer_fd(fds[1], data, n);
		close(fds[1]);
		int saved = dup(0);
		dup2(fds[0], 0);
		close(fds[0]);
		run_path(R, "-", o);
		dup2(saved, 0);
		close(saved);
		int status;
		waitpid(pid, &status, 0);
		break;
	}
	case SRC_PIPEBUF: {
		/* small inputs: the whole thing fits in the pipe buffer, no child needed */
		int fds[2];
		if (pipe(fds) != 0) {
			perror("pipe");
			exit(2);
		}
		size_t off = 0;
		while (off < n) {
			ssize_t k = write(fds[1], data + off, n - off);
			if (k <= 0)
				abort();
			off += (size_t)k;
		}
		close(fds[1]);
		snprintf(path, sizeof path, "/proc/self/fd/%d", fds[0]);
		run_path(R, path, o);
		close(fds[0]);
		break;
	}
	default:
		abort();
	}
	free(gz);
}

static struct hp_parse_opts popts(int dump_index, int want_inst, int want_arr)
{
	struct hp_parse_opts o;
	hp_parse_opts_init(&o);
	o.dump_index = dump_index;
	o.want_instance_data = want_inst;
	o.want_array_data = want_arr;
	return o;
}

/* ---- test: the small things ---------------------------------------------- */

static void test_names(void)
{
	cur_test = "names";
	CHECK_EQ(hp_type_size(HP_T_OBJECT, 4), 4);
	CHECK_EQ(hp_type_size(HP_T_OBJECT, 8), 8);
	CHECK_EQ(hp_type_size(HP_T_BOOLEAN, 8), 1);
	CHECK_EQ(hp_type_size(HP_T_CHAR, 8), 2);
	CHECK_EQ(hp_type_size(HP_T_FLOAT, 8), 4);
	CHECK_EQ(hp_type_size(HP_T_DOUBLE, 8), 8);
	CHECK_EQ(hp_type_size(HP_T_BYTE, 8), 1);
	CHECK_EQ(hp_type_size(HP_T_SHORT, 8), 2);
	CHECK_EQ(hp_type_size(HP_T_INT, 8), 4);
	CHECK_EQ(hp_type_size(HP_T_LONG, 8), 8);
	CHECK_EQ(hp_type_size(0, 8), 0);
	CHECK_EQ(hp_type_size(1, 8), 0);
	CHECK_EQ(hp_type_size(3, 8), 0);
	CHECK_EQ(hp_type_size(12, 8), 0);
	CHECK_EQ(hp_type_size(255, 8), 0);
	CHECK_STREQ(hp_type_name(HP_T_INT), "int");
	CHECK(hp_type_name(3) == NULL);
	CHECK_STREQ(hp_tag_name(0x1C), "HEAP DUMP SEGMENT");
	CHECK_STREQ(hp_tag_name(0x2C), "HEAP DUMP END");
	CHECK(hp_tag_name(0x42) == NULL);
	CHECK_STREQ(hp_subtag_name(0xC3), "PRIMITIVE ARRAY NODATA");
	CHECK_STREQ(hp_subtag_name(0xFE), "HEAP DUMP INFO");
	CHECK(hp_subtag_name(0x42) == NULL);
	CHECK_STREQ(hp_root_kind_key(HP_ROOT_JNI_MONITOR), "jni_monitor");
	CHECK_STREQ(hp_root_kind_name(HP_ROOT_JAVA_FRAME), "Java frame");
	CHECK_STREQ(hp_root_kind_name(HP_ROOT_NKINDS), "?");
	CHECK_STREQ(hp_root_kind_name(-1), "?");
}

/* ---- the full dump: every record and sub-record ------------------------- */

/* ids: distinct small numbers, with high bits set for 8-byte ids so that a
 * reader decoding only 4 bytes is caught */
static uint64_t X(const struct bld *b, uint64_t x)
{
	return b->I == 8 ? 0xA53C000000000000ull | x : x;
}

enum { LAYOUT_ONE = 0, LAYOUT_SEGMENTS = 1 };

static void build_full(struct bld *b, const char *fmt, unsigned I, int layout, int want_inst, int want_arr)
{
	b_init(b, fmt, I, 0x0000018C12345678ull, want_inst, want_arr, -1);
	static const uint8_t odd[] = { 0, 0xC0, 0x80, 0xED, 0xA0, 0x80, 'x' };
	b_string(b, X(b, 0x101), "java/lang/Object");
	b_string(b, X(b, 0x102), "Main");
	b_string(b, X(b, 0x103), "[I");
	b_string(b, X(b, 0x104), "run");
	b_string(b, X(b, 0x105), "()V");
	b_string(b, X(b, 0x106), "Main.java");
	b_string(b, X(b, 0x107), "main");
	b_string(b, X(b, 0x108), "system");
	b_string(b, X(b, 0x109), "root");
	b_string(b, X(b, 0x10A), "app");
	b_string(b, X(b, 0x10B), "");
	b_string_n(b, X(b, 0x10C), odd, sizeof odd);
	b_string(b, X(b, 0x10D), "zygote");
	for (int i = 0; i < 9; i++) {
		char nm[16];
		snprintf(nm, sizeof nm, "f%d", i);
		b_string(b, X(b, 0x110 + (uint64_t)i), nm);
	}
	b_load_class(b, 1, X(b, 0x1000), 0, X(b, 0x101));
	b_load_class(b, 2, X(b, 0x1010), 7, X(b, 0x102));
	b_load_class(b, 0xFFFFFFFE, X(b, 0x1020), 0xFFFFFFFF, X(b, 0x103));
	b_unload_class(b, 99);
	b_frame(b, X(b, 0x2001), X(b, 0x104), X(b, 0x105), X(b, 0x106), 2, 42);
	b_frame(b, X(b, 0x2002), X(b, 0x104), X(b, 0x105), X(b, 0x106), 2, 0);
	b_frame(b, X(b, 0x2003), X(b, 0x104), X(b, 0x105), 0, 2, -1);
	b_frame(b, X(b, 0x2004), X(b, 0x104), X(b, 0x105), X(b, 0x106), 2, -2);
	b_frame(b, X(b, 0x2005), X(b, 0x104), X(b, 0x105), X(b, 0x106), 2, -3);
	uint64_t fr[3] = { X(b, 0x2001), X(b, 0x2002), X(b, 0x2003) };
	b_trace(b, 7, 3, 3, fr);
	b_trace(b, 8, 0, 0, NULL);
	b_alloc_sites(b, 2);
	b_alloc_sites(b, 0);
	b_heap_summary(b);
	b_thread(b, 3, X(b, 0x5000), 7, X(b, 0x107), X(b, 0x108), X(b, 0x109));
	b_end_thread(b, 3);
	b_cpu_samples(b);
	b_control(b);
	b_unknown(b, 0x42, "hello", 5);
	b_unknown(b, 0x99, NULL, 0);

	/* the dump */
	b_dump(b, layout == LAYOUT_ONE ? 0x0C : 0x1C);
	b_heap_info(b, 'A', X(b, 0x10A));
	b_root_id(b, 0xFF, X(b, 0x6001));
	b_root_jni_global(b, X(b, 0x6002), X(b, 0x7002));
	b_root_thread2(b, 0x02, X(b, 0x6003), 5, 0xFFFFFFFF);
	b_root_thread2(b, 0x03, X(b, 0x6004), 5, 2);
	b_root_thread1(b, 0x04, X(b, 0x6005), 6);
	b_root_id(b, 0x05, X(b, 0x1000));
	b_root_thread1(b, 0x06, X(b, 0x6007), 7);
	b_root_id(b, 0x07, X(b, 0x6008));
	b_root_thread2(b, 0x08, X(b, 0x5000), 3, 7);
	b_root_id(b, 0x89, X(b, 0x6009));
	b_root_id(b, 0x8A, X(b, 0x600A));
	b_root_id(b, 0x8B, X(b, 0x600B));
	b_root_id(b, 0x8C, X(b, 0x600C));
	b_root_id(b, 0x8D, X(b, 0x600D));
	b_root_thread2(b, 0x8E, X(b, 0x600E), 9, 4);
	b_root_id(b, 0x90, X(b, 0x600F));
	if (layout == LAYOUT_SEGMENTS) {
		b_dump_close(b);
		b_dump(b, 0x1C);
	}

	/* classes */
	struct hpw_class obj = { 0 };
	obj.class_id = X(b, 0x1000);
	b_class(b, &obj);
	static const uint8_t types[9] = { HPW_T_OBJECT, HPW_T_BOOLEAN, HPW_T_CHAR, HPW_T_FLOAT, HPW_T_DOUBLE,
					  HPW_T_BYTE, HPW_T_SHORT, HPW_T_INT, HPW_T_LONG };
	uint64_t vals[9] = { X(b, 0x4444), 1, 0x263A, hpw_float_bits(1.5f), hpw_double_bits(-2.25), 0x80, 0xBEEF,
			     0xDEADBEEF, 0x0123456789ABCDEFull };
	struct hpw_cp_entry cp[3] = { { 1, HPW_T_INT, 0x11223344 }, { 2, HPW_T_OBJECT, X(b, 5) },
				      { 0xFFFF, HPW_T_LONG, 0xFFFFFFFFFFFFFFFFull } };
	struct hpw_static_field st[9];
	struct hpw_instance_field fl[9];
	uint32_t isize = 0;
	for (int i = 0; i < 9; i++) {
		st[i].name_sid = X(b, 0x110 + (uint64_t)i);
		st[i].type = types[i];
		st[i].value = vals[i];
		fl[i].name_sid = X(b, 0x110 + (uint64_t)(8 - i));
		fl[i].type = types[i];
		isize += tsize(types[i], I);
	}
	struct hpw_class mc = { X(b, 0x1010), 7, X(b, 0x1000), X(b, 0x3001), X(b, 0x3002), X(b, 0x3003), isize,
				3, cp, 9, st, 9, fl };
	b_class(b, &mc);
	/* an empty class: no cp, statics or fields */
	struct hpw_class ec = { X(b, 0x1030), 0, X(b, 0x1000), 0, 0, 0, 0, 0, NULL, 0, NULL, 0, NULL };
	b_class(b, &ec);
	if (layout == LAYOUT_SEGMENTS) {
		b_dump_close(b);
		b_dump(b, 0x1C);      /* a zero-length segment */
		b_dump_close(b);
		b_dump(b, 0x1C);
	}

	/* instances */
	uint8_t fb[64];
	size_t k = 0;
	for (int i = 0; i < 9; i++) {
		unsigned sz = tsize(types[i], I);
		put_be(fb + k, vals[i], sz);
		k += sz;
	}
	b_instance(b, X(b, 0x8001), 7, X(b, 0x1010), fb, (uint32_t)k);
	b_instance(b, X(b, 0x8002), 0, X(b, 0x1030), NULL, 0);
	b_instance(b, X(b, 0x8003), 0xFFFFFFFF, X(b, 0x1010), fb, (uint32_t)k);

	/* arrays */
	uint64_t el[3] = { X(b, 0x8001), 0, X(b, 0x8002) };
	b_objarr(b, X(b, 0x9001), 7, X(b, 0x1040), 3, el);
	b_objarr(b, X(b, 0x9002), 0, X(b, 0x1040), 0, NULL);
	static const uint64_t pv[8][3] = {
		{ 1, 0, 1 }, { 'a', 0xFFFF, 0x263A }, { 0x3FC00000, 0xBF800000, 0 },
		{ 0x400921FB54442D18ull, 0, 0x8000000000000000ull }, { 0x7F, 0x80, 0xFF },
		{ 0x7FFF, 0x8000, 1 }, { 0x7FFFFFFF, 0x80000000, 42 }, { 1, 0xFFFFFFFFFFFFFFFFull, 0x0102030405060708ull }
	};
	for (int i = 1; i < 9; i++)
		b_primarr(b, X(b, 0xA000 + (uint64_t)i), (uint32_t)i, types[i], 3, pv[i - 1]);
	b_primarr(b, X(b, 0xA010), 0, HPW_T_INT, 0, NULL);
	b_nodata(b, X(b, 0xA011), HPW_T_INT, 1000);
	b_nodata(b, X(b, 0xA012), HPW_T_LONG, 0xFFFFFFFF);
	if (layout == LAYOUT_SEGMENTS) {
		b_dump_close(b);
		b_dump(b, 0x1C);
	}
	b_heap_info(b, 'Z', X(b, 0x10D));
	b_instance(b, X(b, 0x8004), 0, X(b, 0x1030), NULL, 0);
	b_dump_close(b);
	if (layout == LAYOUT_SEGMENTS)
		b_heap_end(b);
	/* a record after the dump */
	b_string(b, X(b, 0x1FF), "after");
	b_eof(b);
}

static void check_stats(const struct run *R, const struct bld *b, size_t total)
{
	CHECK_EQ(R->st.records, b->nrec);
	CHECK_EQ(R->st.bytes, total);
	CHECK_EQ(R->st.header.length, b->hdr_len);
	CHECK_EQ(R->st.header.id_size, b->I);
	for (int t = 0; t < 256; t++) {
		if (R->st.records_by_tag[t] != b->rec_count[t]) {
			printf("    records_by_tag[0x%02x]\n", t);
			CHECK_EQ(R->st.records_by_tag[t], b->rec_count[t]);
		}
		if (R->st.subrecords_by_tag[t] != b->sub_count[t]) {
			printf("    subrecords_by_tag[0x%02x]\n", t);
			CHECK_EQ(R->st.subrecords_by_tag[t], b->sub_count[t]);
		}
	}
	CHECK_EQ(R->st.unknown_records, b->unknown_records);
	CHECK_EQ(R->st.unknown_bytes, b->unknown_bytes);
	CHECK_EQ(R->st.instance_field_bytes, b->inst_bytes);
	CHECK_EQ(R->st.ndumps, (unsigned)b->ndumps);
	for (int i = 0; i < b->ndumps && i < (int)R->st.ndumps; i++) {
		CHECK_EQ(R->st.dumps[i].offset, b->dumps[i].off);
		CHECK_EQ(R->st.dumps[i].end, b->dumps[i].end);
		CHECK_EQ(R->st.dumps[i].records, b->dumps[i].records);
		CHECK_EQ(R->st.dumps[i].complete, b->dumps[i].complete);
		if (b->dump_index < 0 || b->dump_index == i)
			CHECK_EQ(R->st.dumps[i].subrecords, b->dumps[i].subs);
	}
	CHECK_EQ(R->st.in_segmented_dump, 0);
}

static void test_full(void)
{
	static const char *const fmts[3] = { "JAVA PROFILE 1.0.1", "JAVA PROFILE 1.0.2", "JAVA PROFILE 1.0.3" };
	static char name[128];
	for (int v = 0; v < 3; v++) {
		for (unsigned I = 4; I <= 8; I += 4) {
			for (int layout = 0; layout < 2; layout++) {
				for (int want = 0; want < 4; want++) {
					int wi = want & 1, wa = (want >> 1) & 1;
					struct bld b;
					build_full(&b, fmts[v], I, layout, wi, wa);
					size_t n;
					const uint8_t *d = b_data(&b, &n);
					struct hp_parse_opts o = popts(-1, wi, wa);
					static const int srcs[] = { SRC_FILE, SRC_GZ1, SRC_GZN, SRC_FIFO, SRC_FIFO_GZ,
								    SRC_STDIN, SRC_PIPEBUF };
					for (size_t s = 0; s < sizeof srcs / sizeof srcs[0]; s++) {
						/* the slow sources for one flag combination only */
						if (want != 3 && srcs[s] != SRC_FILE && srcs[s] != SRC_PIPEBUF)
							continue;
						snprintf(name, sizeof name, "full v1.0.%d id%u %s inst=%d arr=%d %s",
							 v + 1, I, layout ? "segments" : "one dump", wi, wa,
							 src_names[srcs[s]]);
						cur_test = name;
						struct run R;
						run_bytes(&R, d, n, srcs[s], &o);
						CHECK_EQ(R.rc, HP_OK);
						if (R.rc)
							printf("    error: %s\n", R.err.msg);
						static const int kinds[] = { HP_RD_MMAP, HP_RD_GZIP, HP_RD_GZIP, HP_RD_FILE,
									     HP_RD_GZIP, HP_RD_FILE, HP_RD_FILE };
						CHECK_EQ(R.kind, kinds[s]);
						if (srcs[s] == SRC_GZ1)
							CHECK_EQ(R.z_members, 1);
						if (srcs[s] == SRC_GZN || srcs[s] == SRC_FIFO_GZ)
							CHECK_EQ(R.z_members, 7);
						CHECK_LOG(sb_str(&R.rec.log), sb_str(&b.ex));
						CHECK_EQ(R.st.header.version, v + 1);
						CHECK_STREQ(R.st.header.format, fmts[v]);
						CHECK_EQ(R.st.header.timestamp_ms, 0x0000018C12345678ull);
						CHECK_EQ(R.st.parsed_dump, 0);
						check_stats(&R, &b, n);
						run_release(&R);
					}
					b_free(&b);
				}
			}
		}
	}
}

/* gzip with many members, including empty ones, and FIFOs, against mmap */
static void test_gzip_members(void)
{
	cur_test = "gzip members";
	struct bld b;
	build_full(&b, "JAVA PROFILE 1.0.2", 8, LAYOUT_SEGMENTS, 1, 1);
	size_t n;
	const uint8_t *d = b_data(&b, &n);
	struct hp_parse_opts o = popts(-1, 1, 1);
	static const int members[] = { 1, 2, 3, 64, 999 };
	for (size_t i = 0; i < sizeof members / sizeof members[0]; i++) {
		char path[600];
		tmp_path(path, sizeof path, ".gz");
		CHECK_EQ(hpw_write_gzip(b.w, path, members[i]), 0);
		struct run R;
		run_path(&R, path, &o);
		CHECK_EQ(R.rc, HP_OK);
		CHECK_EQ(R.kind, HP_RD_GZIP);
		CHECK_EQ(R.z_members, (unsigned)members[i]);
		CHECK_LOG(sb_str(&R.rec.log), sb_str(&b.ex));
		check_stats(&R, &b, n);
		run_release(&R);
		unlink(path);
	}
	/* more members than bytes: empty members all along (n < 3000) */
	{
		char path[600];
		tmp_path(path, sizeof path, ".gz");
		CHECK_EQ(hpw_write_gzip_comment(b.w, path, (int)n + 500, NULL), 0);
		struct run R;
		run_path(&R, path, &o);
		CHECK_EQ(R.rc, HP_OK);
		CHECK_EQ(R.z_members, n + 500);
		CHECK_LOG(sb_str(&R.rec.log), sb_str(&b.ex));
		run_release(&R);
		unlink(path);
	}
	/* trailing zero padding after the last member is tolerated */
	{
		size_t gzn;
		uint8_t *gz = hpw_gzip(b.w, 3, NULL, &gzn);
		uint8_t *pad = calloc(gzn + 4096, 1);
		memcpy(pad, gz, gzn);
		struct run R;
		run_bytes(&R, pad, gzn + 4096, SRC_RAWGZ, &o);
		CHECK_EQ(R.rc, HP_OK);
		CHECK_LOG(sb_str(&R.rec.log), sb_str(&b.ex));
		run_release(&R);
		free(pad);
		free(gz);
	}
	(void)d;
	b_free(&b);
}

/* A dump larger than the streaming reader's 1 MiB window: records straddle
 * window boundaries and one array is larger than the window, so the buffer
 * must move and grow.  Every source gives the same log. */
static void test_big(void)
{
	static char name[96];
	for (unsigned I = 4; I <= 8; I += 4) {
		struct bld b;
		b_init(&b, "JAVA PROFILE 1.0.2", I, 1, 1, 1, -1);
		b_string(&b, 1, "java/lang/Object");
		b_load_class(&b, 1, 0x1000, 0, 1);
		struct hpw_instance_field f[2] = { { 1, HPW_T_INT }, { 1, HPW_T_OBJECT } };
		b_dump(&b, 0x1C);
		struct hpw_class c = { 0x1000, 0, 0, 0, 0, 0, 4 + I, 0, NULL, 0, NULL, 2, f };
		b_class(&b, &c);
		uint8_t fb[12];
		for (uint32_t i = 0; i < 25000; i++) {
			put_be(fb, i * 2654435761u, 4);
			put_be(fb + 4, 0x10000 + i * 16ull, I);
			b_instance(&b, 0x10000 + i * 16ull, 0, 0x1000, fb, 4 + I);
			if (i % 9000 == 8999) {
				b_dump_close(&b);
				b_dump(&b, 0x1C);
			}
		}
		size_t big = 2u << 20;   /* 2 MiB of bytes: larger than the 1 MiB window */
		uint8_t *raw = malloc(big);
		for (size_t i = 0; i < big; i++)
			raw[i] = (uint8_t)(i * 7 + (i >> 9));
		b_primarr_raw(&b, 0xF000000, HPW_T_BYTE, (uint32_t)big, raw);
		b_primarr_raw(&b, 0xF000001, HPW_T_LONG, (uint32_t)(big / 8), raw);
		free(raw);
		b_dump_close(&b);
		b_heap_end(&b);
		b_eof(&b);
		size_t n;
		const uint8_t *d = b_data(&b, &n);
		struct hp_parse_opts o = popts(-1, 1, 1);
		static const int srcs[] = { SRC_FILE, SRC_GZN, SRC_FIFO, SRC_FIFO_GZ, SRC_STDIN };
		for (size_t s = 0; s < sizeof srcs / sizeof srcs[0]; s++) {
			snprintf(name, sizeof name, "big id%u %s", I, src_names[srcs[s]]);
			cur_test = name;
			struct run R;
			run_bytes(&R, d, n, srcs[s], &o);
			CHECK_EQ(R.rc, HP_OK);
			if (R.rc)
				printf("    error: %s\n", R.err.msg);
			CHECK_LOG(sb_str(&R.rec.log), sb_str(&b.ex));
			check_stats(&R, &b, n);
			run_release(&R);
		}
		b_free(&b);
	}
}

/* ---- several dumps in one file; dump_index -------------------------------- */

/* dump 0: one HEAP DUMP; dump 1: two segments + END; dump 2: one HEAP DUMP;
 * dump 3: segments with no END before the end of the file (truncated) */
static void build_multi(struct bld *b, unsigned I, int dump_index)
{
	b_init(b, "JAVA PROFILE 1.0.2", I, 77, 1, 1, dump_index);
	b_string(b, 1, "x");
	for (int d = 0; d < 4; d++) {
		uint8_t tag = (d == 0 || d == 2) ? 0x0C : 0x1C;
		b_dump(b, tag);
		b_root_id(b, 0x05, 0x100 * (uint64_t)(d + 1));
		b_instance(b, 0x1000 + (uint64_t)d, 0, 0x10, NULL, 0);
		b_dump_close(b);
		if (tag == 0x1C) {
			b_string(b, 2 + (uint64_t)d, "between segments");
			b_dump(b, 0x1C);
			b_root_id(b, 0x07, 0x200 * (uint64_t)(d + 1));
			b_dump_close(b);
			if (d == 1)
				b_heap_end(b);
		}
		if (d < 3)
			b_string(b, 10 + (uint64_t)d, "after");
	}
	b_eof(b);
}

static void test_multi(void)
{
	static char name[96];
	for (unsigned I = 4; I <= 8; I += 4) {
		for (int di = -1; di <= 4; di++) {
			snprintf(name, sizeof name, "multi id%u dump_index %d", I, di);
			cur_test = name;
			struct bld b;
			build_multi(&b, I, di);
			size_t n;
			const uint8_t *d = b_data(&b, &n);
			struct hp_parse_opts o = popts(di, 1, 1);
			for (int src = 0; src < 2; src++) {
				struct run R;
				run_bytes(&R, d, n, src ? SRC_PIPEBUF : SRC_FILE, &o);
				/* every dump is read and closed, then the missing END of
				 * the last is reported at the end of the file: HotSpot
				 * and ART always write it, so the file was cut */
				CHECK_EQ(R.rc, HP_ETRUNC);
				CHECK_EQ(R.err.offset, n);
				CHECK(strstr(R.err.msg, "without its HEAP DUMP END") != NULL);
				CHECK_LOG(sb_str(&R.rec.log), sb_str(&b.ex));
				CHECK_EQ(R.st.ndumps, 4);
				check_stats(&R, &b, n);
				CHECK_EQ(R.st.parsed_dump, di < 0 ? 0 : di < 4 ? di : -1);
				/* by hand: dump 1 is complete (END), dump 3 is not */
				if (R.st.ndumps == 4) {
					CHECK_EQ(R.st.dumps[0].complete, 1);
					CHECK_EQ(R.st.dumps[1].complete, 1);
					CHECK_EQ(R.st.dumps[2].complete, 1);
					CHECK_EQ(R.st.dumps[3].complete, 0);
					CHECK_EQ(R.st.dumps[1].records, 2);
					CHECK_EQ(R.st.dumps[3].records, 2);
					CHECK_EQ(R.st.dumps[3].end, n);
				}
				run_release(&R);
			}
			b_free(&b);
		}
	}
}

/* A segmented dump that is not closed by HEAP DUMP END but by a following
 * HEAP DUMP (0x0C) record: it must not be marked complete. */
static void test_segments_then_heap_dump(void)
{
	cur_test = "segments closed by a HEAP DUMP";
	struct bld b;
	b_init(&b, "JAVA PROFILE 1.0.2", 4, 0, 0, 0, -1);
	b_dump(&b, 0x1C);
	b_root_id(&b, 0x05, 0x10);
	b_dump_close(&b);
	b_dump(&b, 0x0C);     /* b_rec closes the segmented dump: dump_end at this offset */
	b_root_id(&b, 0x05, 0x20);
	b_dump_close(&b);
	b_eof(&b);
	size_t n;
	const uint8_t *d = b_data(&b, &n);
	struct hp_parse_opts o = popts(-1, 0, 0);
	struct run R;
	run_bytes(&R, d, n, SRC_FILE, &o);
	CHECK_EQ(R.rc, HP_OK);
	CHECK_LOG(sb_str(&R.rec.log), sb_str(&b.ex));
	CHECK_EQ(R.st.ndumps, 2);
	if (R.st.ndumps == 2) {
		/* the segmented dump never saw HEAP DUMP END: not complete
		 * (HEAD a694d16..d5eab19 marked it complete) */
		CHECK_EQ(R.st.dumps[0].complete, 0);
		CHECK_EQ(R.st.dumps[1].complete, 1);
		CHECK_EQ(R.st.dumps[0].end, b.dumps[0].end);
	}
	run_release(&R);
	b_free(&b);
}

/* ---- sinks that stop or fail ---------------------------------------------- */

static void test_sink_stop(void)
{
	cur_test = "sink stop";
	struct bld b;
	build_full(&b, "JAVA PROFILE 1.0.2", 8, LAYOUT_SEGMENTS, 0, 0);
	size_t n;
	const uint8_t *d = b_data(&b, &n);
	struct hp_parse_opts o = popts(-1, 0, 0);
	char path[600];
	tmp_path(path, sizeof path, ".hprof");
	write_bytes(path, d, n);
	/* event 1 is the header; find the event that is the first root */
	const char *ex = sb_str(&b.ex);
	unsigned ev = 1;
	for (const char *p = ex; *p && strncmp(p, "root ", 5) != 0; p = strchr(p, '\n') + 1)
		ev++;
	struct run R;
	g_stop_after = ev;
	g_stop_code = HP_ESTOP;
	run_path(&R, path, &o);
	CHECK_EQ(R.rc, HP_ESTOP);
	CHECK_EQ(R.rec.events, ev);
	run_release(&R);
	/* a failing sink: the error gets the sub-record's position */
	g_stop_after = ev;
	g_stop_code = HP_ENOMEM;
	run_path(&R, path, &o);
	CHECK_EQ(R.rc, HP_ENOMEM);
	CHECK_EQ(R.err.code, HP_ENOMEM);
	CHECK_EQ(R.err.has_pos, 1);
	CHECK_EQ(R.err.tag, 0x1C);
	CHECK_EQ(R.err.subtag, 0xFF);
	/* the first root is the second sub-record (after HEAP DUMP INFO) */
	uint64_t first_seg = b.dumps[0].off;
	unsigned I = 8;
	CHECK_EQ(R.err.offset, first_seg + 9 + 1 + 4 + I);
	CHECK_HAS(R.err.msg, "out of memory");
	run_release(&R);
	/* failing at the header callback */
	g_stop_after = 1;
	g_stop_code = HP_ECORRUPT;
	run_path(&R, path, &o);
	CHECK_EQ(R.rc, HP_ECORRUPT);
	CHECK_EQ(R.err.offset, 0);
	CHECK_HAS(R.err.msg, "processing failed");
	run_release(&R);
	unlink(path);
	b_free(&b);
}

/* ---- the object thread (opts.object_thread) ------------------------------- */

/* Many objects of each kind over several segments, with records between
 * them that stop the thread (a string, a root, a class dump): the sink
 * must see what it sees without the thread, event for event; a failing or
 * stopping sink, and a cut file, must end the parse where they end it
 * without the thread, with the same error. */
static void build_objects(struct bld *b, unsigned I, int want_data)
{
	b_init(b, "JAVA PROFILE 1.0.2", I, 5, want_data, want_data, -1);
	b_string(b, 1, "java/lang/Object");
	b_load_class(b, 1, 0x1000, 0, 1);
	struct hpw_instance_field f[1] = { { 1, HPW_T_INT } };
	b_dump(b, 0x1C);
	struct hpw_class c = { 0x1000, 0, 0, 0, 0, 0, 4, 0, NULL, 0, NULL, 1, f };
	b_class(b, &c);
	uint8_t fb[4] = { 1, 2, 3, 4 };
	uint64_t ids[3] = { 0x10000, 0x10010, 0 };
	uint64_t vals[2] = { 7, 9 };
	for (uint32_t i = 0; i < 12000; i++) {
		uint64_t id = 0x10000 + i * 16ull;
		if (i % 7 == 3)
			b_objarr(b, id, i % 5, 0x1000, 3, ids);
		else if (i % 7 == 5)
			b_primarr(b, id, 2, HPW_T_LONG, 2, vals);
		else
			b_instance(b, id, i % 3, 0x1000, fb, 4);
		if (i == 6000)
			b_root_id(b, 0x05, id);       /* the slow path mid-segment */
		if (i % 4000 == 3999) {
			b_dump_close(b);
			if (i == 7999)
				b_string(b, 2, "between segments");
			b_dump(b, 0x1C);
		}
	}
	b_dump_close(b);
	b_heap_end(b);
	b_eof(b);
}

static void same_run(const struct run *A, const struct run *B)
{
	CHECK_EQ(A->rc, B->rc);
	CHECK_EQ(A->rec.events, B->rec.events);
	CHECK_STREQ(A->err.msg, B->err.msg);
	CHECK_EQ(A->err.has_pos, B->err.has_pos);
	CHECK_EQ(A->err.offset, B->err.offset);
	CHECK_EQ(A->err.record, B->err.record);
	CHECK_EQ((uint64_t)A->err.tag, (uint64_t)B->err.tag);
	CHECK_EQ((uint64_t)A->err.subtag, (uint64_t)B->err.subtag);
	CHECK_LOG(sb_str(&A->rec.log), sb_str(&B->rec.log));
}

/* the whole dump parsed from src with o: every event and count as built */
static void expect_whole(const struct bld *b, const uint8_t *d, size_t n, int src, const struct hp_parse_opts *o)
{
	struct run R;
	run_bytes(&R, d, n, src, o);
	CHECK_EQ(R.rc, HP_OK);
	CHECK_LOG(sb_str(&R.rec.log), sb_str(&b->ex));
	check_stats(&R, b, n);
	run_release(&R);
}

static void test_object_thread(void)
{
	static char name[120];
	for (unsigned I = 4, batch = 0; I <= 8; I += 4 * batch, batch = !batch) {
		g_batch = (int)batch;
		struct bld b;
		build_objects(&b, I, 0);
		size_t n;
		const uint8_t *d = b_data(&b, &n);
		struct hp_parse_opts plain = popts(-1, 0, 0), th = plain;
		th.object_thread = 1;
		th.object_thread_after = 0;
		static const int srcs[] = { SRC_FILE, SRC_GZN, SRC_FIFO };
		for (size_t si = 0; si < sizeof srcs / sizeof srcs[0]; si++) {
			snprintf(name, sizeof name, "object thread id%u%s %s", I, batch ? " (batches)" : "",
				 src_names[srcs[si]]);
			cur_test = name;
			expect_whole(&b, d, n, srcs[si], &th);
		}
		/* a sink that fails or stops at an object, early, mid-batch, late, at the last */
		const char *ex = sb_str(&b.ex);
		unsigned nev = 0;
		for (const char *p = ex; *p; p = strchr(p, '\n') + 1)
			nev++;
		const unsigned at[] = { 10, 2049, 6003, nev - 3 };
		const int codes[] = { HP_ENOMEM, HP_ESTOP };
		for (size_t k = 0; k < sizeof at / sizeof at[0]; k++)
			for (size_t c = 0; c < sizeof codes / sizeof codes[0]; c++) {
				snprintf(name, sizeof name, "object thread id%u%s: the sink gives %d at event %u", I,
					 batch ? " (batches)" : "", codes[c], at[k]);
				cur_test = name;
				struct run A, B;
				g_stop_after = at[k];
				g_stop_code = codes[c];
				run_bytes(&A, d, n, SRC_FILE, &plain);
				g_stop_after = at[k];
				g_stop_code = codes[c];
				run_bytes(&B, d, n, SRC_FILE, &th);
				CHECK_EQ(A.rc, codes[c]);
				same_run(&A, &B);
				run_release(&A);
				run_release(&B);
			}
		/* the file cut short: inside an object, between records, in a later segment */
		for (unsigned k = 1; k < 8; k++) {
			size_t cut = n * k / 8 + k;
			snprintf(name, sizeof name, "object thread id%u%s: cut at %zu of %zu", I, batch ? " (batches)" : "",
				 cut, n);
			cur_test = name;
			struct run A, B;
			run_bytes(&A, d, cut, SRC_FILE, &plain);
			run_bytes(&B, d, cut, SRC_FILE, &th);
			CHECK(A.rc != HP_OK);
			same_run(&A, &B);
			CHECK_EQ(A.st.records, B.st.records);
			CHECK_EQ(A.st.bytes, B.st.bytes);
			CHECK_EQ(A.st.subrecords_by_tag[0x21], B.st.subrecords_by_tag[0x21]);
			run_release(&A);
			run_release(&B);
		}
		b_free(&b);
		if (batch)
			continue;
		/* with the records' data: the thread for a mapped file only (a
		 * stream's window moves on), the same calls either way */
		build_objects(&b, I, 1);
		d = b_data(&b, &n);
		struct hp_parse_opts wd = popts(-1, 1, 1);
		wd.object_thread = 2;
		wd.object_thread_after = 0;
		static const int dsrcs[] = { SRC_FILE, SRC_GZN };
		for (size_t si = 0; si < sizeof dsrcs / sizeof dsrcs[0]; si++) {
			snprintf(name, sizeof name, "object thread id%u with data %s", I, src_names[dsrcs[si]]);
			cur_test = name;
			expect_whole(&b, d, n, dsrcs[si], &wd);
		}
		snprintf(name, sizeof name, "object thread id%u with data: the sink fails at event 6003", I);
		cur_test = name;
		struct run A, B;
		struct hp_parse_opts wd1 = wd;
		wd1.object_thread = 0;
		g_stop_after = 6003;
		g_stop_code = HP_ENOMEM;
		run_bytes(&A, d, n, SRC_FILE, &wd1);
		g_stop_after = 6003;
		g_stop_code = HP_ENOMEM;
		run_bytes(&B, d, n, SRC_FILE, &wd);
		CHECK_EQ(A.rc, HP_ENOMEM);
		same_run(&A, &B);
		run_release(&A);
		run_release(&B);
		b_free(&b);
	}
	g_batch = 0;
}

/* ---- error paths ----------------------------------------------------------- */

static void expect_err(const struct run *R, int code, uint64_t offset, uint64_t record, int tag,
		       const char *words, const char *file, int line)
{
	check_eq_((uint64_t)(int64_t)R->rc, (uint64_t)(int64_t)code, "rc", "code", file, line);
	check_eq_((uint64_t)(int64_t)R->err.code, (uint64_t)(int64_t)code, "err.code", "code", file, line);
	check_eq_(R->err.has_pos, 1, "err.has_pos", "1", file, line);
	check_eq_(R->err.offset, offset, "err.offset", "offset", file, line);
	check_eq_(R->err.record, record, "err.record", "record", file, line);
	check_eq_((uint64_t)(int64_t)R->err.tag, (uint64_t)(int64_t)tag, "err.tag", "tag", file, line);
	check_has_(R->err.msg, words, file, line);
}
#define EXPECT_ERR(R, code, off, rec, tag, words) expect_err((R), (code), (off), (rec), (tag), (words), __FILE__, __LINE__)

static void expect_open_err(const struct run *R, int code, const char *words, const char *file, int line)
{
	check_eq_((uint64_t)(int64_t)R->open_rc, (uint64_t)(int64_t)code, "open_rc", "code", file, line);
	check_eq_((uint64_t)(int64_t)R->err.code, (uint64_t)(int64_t)code, "err.code", "code", file, line);
	check_has_(R->err.msg, words, file, line);
}
#define EXPECT_OPEN_ERR(R, code, words) expect_open_err((R), (code), (words), __FILE__, __LINE__)

/* The must-fail files, also written by --write-bad for tests/cli/bad.sh.
 * Offsets (1.0.2 header: 19 + 4 + 8 = 31 bytes, 4-byte ids) are worked out
 * in each comment. */

/* record 1: STRING id 1 "a" at 31 (9 + 5 bytes, ends at 45);
 * record 2: STRING id 2 of 40 characters at 45: body 4 + 40 = 44 bytes from
 * 54; the file is cut 20 bytes into the body, at 74. */
static hpw *make_trunc_string(void)
{
	hpw *w = hpw_new("JAVA PROFILE 1.0.2", 4, 0);
	hpw_string(w, 1, "a");
	hpw_string(w, 2, "0123456789012345678901234567890123456789");
	hpw_truncate(w, 74);
	return w;
}

/* record 1: STRING at 31 (ends 45); record 2: HEAP DUMP SEGMENT at 45, body
 * from 54: ROOT UNKNOWN (1 + 4 bytes, 54..59), then tag 0x42 at 59 and four
 * more bytes; segment length 10.  Record 3: HEAP DUMP END at 64. */
static hpw *make_unknown_subtag(void)
{
	hpw *w = hpw_new("JAVA PROFILE 1.0.2", 4, 0);
	hpw_string(w, 1, "a");
	hpw_begin_dump(w, 0x1C);
	hpw_root_unknown(w, 0x10);
	hpw_u1(w, 0x42);
	hpw_u4(w, 0xCAFEBABE);
	hpw_end_dump(w);
	hpw_dump_end(w);
	return w;
}

/* record 1: STRING at 31 (ends 45); record 2: HEAP DUMP SEGMENT at 45, body
 * from 54: ROOT STICKY CLASS (5 bytes, 54..59) and ROOT JNI GLOBAL at 59
 * (1 + 8 bytes) but the segment says 9 bytes, so only 4 bytes of JNI GLOBAL
 * (its tag and 3 of its 8 body bytes) are inside: it straddles the end. */
static hpw *make_straddle(void)
{
	hpw *w = hpw_new("JAVA PROFILE 1.0.2", 4, 0);
	hpw_string(w, 1, "a");
	hpw_begin_dump(w, 0x1C);
	hpw_root_sticky_class(w, 0x10);
	hpw_root_jni_global(w, 0x20, 0x30);
	hpw_end_dump_len(w, 9);
	hpw_begin_dump(w, 0x1C);
	hpw_root_sticky_class(w, 0x40);
	hpw_end_dump(w);
	hpw_dump_end(w);
	return w;
}

/* The dump for trunc.hprof.gz, 1.0.2 with 4-byte ids:
 *   31  STRING id 1, 200 bytes of text: 9 + 4 + 200 = 213 bytes, ends 244
 *  244  STRING id 2, 200 bytes: ends 457
 *  457  STRING id 3, 200 bytes: ends 670
 *  670  HEAP DUMP END (9 bytes), ends 679
 * 679 bytes in all; gzip member 1 holds bytes [0, 339) (679 * 1 / 2), member
 * 2 the rest.  The .gz is cut 5 bytes into member 2's gzip header, so the
 * inflated stream stops at 339, 95 bytes into STRING 2 (record 2 at 244,
 * body from 253: 86 of its 204 body bytes are there). */
static hpw *make_gz_source(void)
{
	hpw *w = hpw_new("JAVA PROFILE 1.0.2", 4, 0);
	char text[201];
	for (int s = 1; s <= 3; s++) {
		for (int i = 0; i < 200; i++)
			text[i] = (char)('a' + (i * s) % 26);
		text[200] = '\0';
		hpw_string(w, (uint64_t)s, text);
	}
	hpw_dump_end(w);
	return w;
}

/* the gzip bytes cut inside member 2's header; NULL on failure */
static uint8_t *make_trunc_gz(size_t *out_len)
{
	hpw *w = make_gz_source();
	size_t n;
	const uint8_t *d = hpw_data(w, &n);
	size_t gzn, g1n;
	uint8_t *gz = hpw_gzip(w, 2, NULL, &gzn);
	hpw *w1 = hpw_new(NULL, 4, 0);
	hpw_bytes(w1, d, n / 2);
	uint8_t *g1 = hpw_gzip(w1, 1, NULL, &g1n);
	hpw_free(w1);
	hpw_free(w);
	if (!gz || !g1 || g1n + 10 > gzn || memcmp(gz, g1, g1n) != 0 || gz[g1n] != 0x1f || gz[g1n + 1] != 0x8b) {
		free(gz);
		free(g1);
		return NULL;
	}
	free(g1);
	*out_len = g1n + 5;
	return gz;
}

static void test_errors_open(void)
{
	struct run R;
	cur_test = "empty file";
	run_bytes(&R, (const uint8_t *)"", 0, SRC_FILE, NULL);
	EXPECT_OPEN_ERR(&R, HP_EFORMAT, "empty");
	run_release(&R);
	cur_test = "empty pipe";
	run_bytes(&R, (const uint8_t *)"", 0, SRC_PIPEBUF, NULL);
	EXPECT_OPEN_ERR(&R, HP_EFORMAT, "empty");
	run_release(&R);

	cur_test = "zip";
	static const uint8_t zip[] = { 'P', 'K', 3, 4, 20, 0, 0, 0, 8, 0, 'J', 'A', 'V', 'A', 0, 0, 0, 0, 0, 0 };
	run_bytes(&R, zip, sizeof zip, SRC_FILE, NULL);
	EXPECT_OPEN_ERR(&R, HP_EFORMAT, "zip archive");
	run_release(&R);
	run_bytes(&R, zip, sizeof zip, SRC_PIPEBUF, NULL);
	EXPECT_OPEN_ERR(&R, HP_EFORMAT, "zip archive");
	run_release(&R);

	cur_test = "not hprof";
	static const char txt[] = "hello, this is not a heap dump\n";
	run_bytes(&R, (const uint8_t *)txt, sizeof txt - 1, SRC_FILE, NULL);
	EXPECT_OPEN_ERR(&R, HP_EFORMAT, "not an HPROF heap dump");
	run_release(&R);
	run_bytes(&R, (const uint8_t *)txt, sizeof txt - 1, SRC_PIPEBUF, NULL);
	EXPECT_OPEN_ERR(&R, HP_EFORMAT, "not an HPROF heap dump");
	run_release(&R);
	/* gzip of something that is not HPROF */
	run_bytes(&R, (const uint8_t *)txt, sizeof txt - 1, SRC_GZ1, NULL);
	EXPECT_OPEN_ERR(&R, HP_EFORMAT, "does not contain an HPROF");
	run_release(&R);

	cur_test = "missing file";
	char path[600];
	snprintf(path, sizeof path, "%s/no-such-file.hprof", tmpdir);
	run_path(&R, path, NULL);
	EXPECT_OPEN_ERR(&R, HP_EIO, "No such file");
	run_release(&R);
	cur_test = "directory";
	run_path(&R, tmpdir, NULL);
	EXPECT_OPEN_ERR(&R, HP_EIO, "directory");
	run_release(&R);
}

static void test_errors_header(void)
{
	struct run R;
	for (int src = 0; src < 2; src++) {
		int s = src ? SRC_PIPEBUF : SRC_FILE;
		cur_test = src ? "header (pipe)" : "header (file)";
		/* unsupported version: the format name is the header's first field */
		hpw *w = hpw_new("JAVA PROFILE 1.0.9", 4, 0);
		size_t n;
		const uint8_t *d = hpw_data(w, &n);
		run_bytes(&R, d, n, s, NULL);
		EXPECT_ERR(&R, HP_EFORMAT, 0, 0, -1, "unsupported format \"JAVA PROFILE 1.0.9\"");
		run_release(&R);
		hpw_free(w);

		/* identifier size 3: the field is at 19 */
		w = hpw_new("JAVA PROFILE 1.0.2", 3, 0);
		hpw_string(w, 1, "abc");
		d = hpw_data(w, &n);
		run_bytes(&R, d, n, s, NULL);
		EXPECT_ERR(&R, HP_EFORMAT, 19, 0, -1, "identifier size is 3");
		run_release(&R);
		hpw_free(w);
		w = hpw_new("JAVA PROFILE 1.0.2", 0, 0);
		d = hpw_data(w, &n);
		run_bytes(&R, d, n, s, NULL);
		EXPECT_ERR(&R, HP_EFORMAT, 19, 0, -1, "identifier size is 0");
		run_release(&R);
		hpw_free(w);

		/* header cut after 25 of its 31 bytes: the id size/timestamp part
		 * starting at 19 is incomplete */
		w = hpw_new("JAVA PROFILE 1.0.2", 4, 0);
		hpw_truncate(w, 25);
		d = hpw_data(w, &n);
		run_bytes(&R, d, n, s, NULL);
		EXPECT_ERR(&R, HP_ETRUNC, 19, 0, -1, "file ends inside the header (25 of 31 bytes)");
		run_release(&R);
		/* cut inside the format name (15 bytes: "JAVA PROFILE 1.") */
		hpw_truncate(w, 15);
		d = hpw_data(w, &n);
		run_bytes(&R, d, n, s, NULL);
		EXPECT_ERR(&R, HP_ETRUNC, 0, 0, -1, "file ends inside the header");
		run_release(&R);
		hpw_free(w);

		/* a format name without NUL within 24 bytes */
		static const char longname[] = "JAVA PROFILE 1.0.2 AND MORE AND MORE";
		run_bytes(&R, (const uint8_t *)longname, sizeof longname - 1, s, NULL);
		EXPECT_ERR(&R, HP_EFORMAT, 0, 0, -1, "not NUL-terminated");
		run_release(&R);

		/* a header alone is a valid, empty dump */
		w = hpw_new("JAVA PROFILE 1.0.1", 8, 5);
		d = hpw_data(w, &n);
		run_bytes(&R, d, n, s, NULL);
		CHECK_EQ(R.rc, HP_OK);
		CHECK_EQ(R.st.records, 0);
		CHECK_EQ(R.st.ndumps, 0);
		CHECK_EQ(R.st.bytes, 31);
		CHECK_EQ(R.st.parsed_dump, -1);
		run_release(&R);
		hpw_free(w);
	}
}

static void test_errors_records(void)
{
	struct run R;
	size_t n;
	const uint8_t *d;
	for (int src = 0; src < 3; src++) {
		int s = src == 0 ? SRC_FILE : src == 1 ? SRC_PIPEBUF : SRC_GZ1;
		static char name[64];

		/* file cut in a record header: record 1 at 31, 5 of its 9 bytes */
		snprintf(name, sizeof name, "cut in record header (%s)", src_names[s]);
		cur_test = name;
		hpw *w = hpw_new("JAVA PROFILE 1.0.2", 4, 0);
		hpw_string(w, 1, "abc");
		hpw_truncate(w, 36);
		d = hpw_data(w, &n);
		run_bytes(&R, d, n, s, NULL);
		EXPECT_ERR(&R, HP_ETRUNC, 31, 1, 0x01, "file ends inside a record header (5 of 9 bytes)");
		run_release(&R);
		hpw_free(w);

		/* STRING whose length runs past the end (see make_trunc_string) */
		snprintf(name, sizeof name, "string past the end (%s)", src_names[s]);
		w = make_trunc_string();
		d = hpw_data(w, &n);
		CHECK_EQ(n, 74);
		run_bytes(&R, d, n, s, NULL);
		EXPECT_ERR(&R, HP_ETRUNC, 45, 2, 0x01, "file ends inside STRING record (declares 44 bytes, 20 remain)");
		/* records counts the cut record too: its header was read */
		CHECK_EQ(R.st.records, 2);
		hpw_free(w);
		run_release(&R);

		/* unknown sub-tag (see make_unknown_subtag) */
		snprintf(name, sizeof name, "unknown sub-tag (%s)", src_names[s]);
		w = make_unknown_subtag();
		d = hpw_data(w, &n);
		run_bytes(&R, d, n, s, NULL);
		EXPECT_ERR(&R, HP_ECORRUPT, 59, 2, 0x1C,
			   "unknown heap-dump sub-record tag 0x42 after ROOT UNKNOWN at offset 54");
		CHECK_EQ(R.err.subtag, 0x42);
		hpw_free(w);
		run_release(&R);
		/* ... as the first sub-record of a dump */
		w = hpw_new("JAVA PROFILE 1.0.2", 4, 0);
		hpw_begin_dump(w, 0x0C);
		hpw_u1(w, 0x42);
		hpw_end_dump(w);
		d = hpw_data(w, &n);
		run_bytes(&R, d, n, s, NULL);
		EXPECT_ERR(&R, HP_ECORRUPT, 40, 1, 0x0C, "unknown heap-dump sub-record tag 0x42 at the start of the dump");
		hpw_free(w);
		run_release(&R);

		/* a sub-record straddling the end of its segment (make_straddle) */
		snprintf(name, sizeof name, "straddle (%s)", src_names[s]);
		w = make_straddle();
		d = hpw_data(w, &n);
		run_bytes(&R, d, n, s, NULL);
		EXPECT_ERR(&R, HP_ECORRUPT, 59, 2, 0x1C,
			   "ROOT JNI GLOBAL needs 8 bytes but only 3 remain in its HEAP DUMP SEGMENT record");
		CHECK_EQ(R.err.subtag, 0x01);
		hpw_free(w);
		run_release(&R);

		/* INSTANCE DUMP claiming 812 field bytes in a HEAP DUMP: record 1 at
		 * 31, body from 40; the instance (1 + 16 + 8 bytes) is the whole body,
		 * so 24 bytes remain after its tag, it needs 16 + 812 = 828 */
		snprintf(name, sizeof name, "instance overrun (%s)", src_names[s]);
		w = hpw_new("JAVA PROFILE 1.0.2", 4, 0);
		hpw_begin_dump(w, 0x0C);
		hpw_instance_begin(w, 0x100, 0, 0x10);
		hpw_value(w, HPW_T_LONG, 1);
		hpw_instance_end_len(w, 812);
		hpw_end_dump(w);
		hpw_string(w, 1, "after");
		d = hpw_data(w, &n);
		run_bytes(&R, d, n, s, NULL);
		EXPECT_ERR(&R, HP_ECORRUPT, 40, 1, 0x0C,
			   "INSTANCE DUMP needs 828 bytes but only 24 remain in its HEAP DUMP record");
		CHECK_EQ(R.err.subtag, 0x21);
		hpw_free(w);
		run_release(&R);

		/* primitive arrays with invalid element types (at 40 in record 1) */
		snprintf(name, sizeof name, "bad element type (%s)", src_names[s]);
		static const struct { uint8_t sub, type; const char *msg; } bad_el[] = {
			{ 0x23, 3, "PRIMITIVE ARRAY DUMP has invalid element type 3" },
			{ 0x23, 2, "PRIMITIVE ARRAY DUMP has invalid element type 2" },
			{ 0x23, 12, "PRIMITIVE ARRAY DUMP has invalid element type 12" },
			{ 0xC3, 0, "PRIMITIVE ARRAY NODATA has invalid element type 0" },
		};
		for (size_t i = 0; i < sizeof bad_el / sizeof bad_el[0]; i++) {
			w = hpw_new("JAVA PROFILE 1.0.3", 4, 0);
			hpw_begin_dump(w, 0x1C);
			if (bad_el[i].sub == 0x23)
				hpw_prim_array(w, 0x100, 0, bad_el[i].type, 2, "\1\2\3\4", 4);
			else
				hpw_prim_array_nodata(w, 0x100, 0, bad_el[i].type, 2);
			hpw_end_dump(w);
			d = hpw_data(w, &n);
			run_bytes(&R, d, n, s, NULL);
			EXPECT_ERR(&R, HP_ECORRUPT, 40, 1, 0x1C, bad_el[i].msg);
			CHECK_EQ(R.err.subtag, bad_el[i].sub);
			hpw_free(w);
			run_release(&R);
		}

		/* CLASS DUMPs with invalid types: a ROOT STICKY CLASS (40..45) first,
		 * so the CLASS DUMP is at 45 */
		snprintf(name, sizeof name, "bad class dump types (%s)", src_names[s]);
		for (int kind = 0; kind < 3; kind++) {
			struct hpw_cp_entry cp[2] = { { 1, HPW_T_INT, 5 }, { 2, 12, 0 } };
			struct hpw_static_field st[2] = { { 7, HPW_T_INT, 5 }, { 8, 0, 0 } };
			struct hpw_instance_field fl[3] = { { 7, HPW_T_INT }, { 8, HPW_T_OBJECT }, { 9, 1 } };
			struct hpw_class c = { 0x10, 0, 0, 0, 0, 0, 8, 0, NULL, 0, NULL, 0, NULL };
			const char *msg;
			if (kind == 0) {
				c.ncp = 2; c.cp = cp;
				msg = "CLASS DUMP constant pool entry 1 has invalid type 12";
			} else if (kind == 1) {
				c.nstatics = 2; c.statics = st;
				msg = "CLASS DUMP static field 1 has invalid type 0";
			} else {
				c.nfields = 3; c.fields = fl;
				msg = "CLASS DUMP instance field 2 has invalid type 1";
			}
			w = hpw_new("JAVA PROFILE 1.0.2", 4, 0);
			hpw_begin_dump(w, 0x0C);
			hpw_root_sticky_class(w, 0x10);
			hpw_class_dump(w, &c);
			hpw_end_dump(w);
			d = hpw_data(w, &n);
			run_bytes(&R, d, n, s, NULL);
			EXPECT_ERR(&R, HP_ECORRUPT, 45, 1, 0x0C, msg);
			CHECK_EQ(R.err.subtag, 0x20);
			hpw_free(w);
			run_release(&R);
		}
	}
}

/* Records that declare about 4 billion elements in a few bytes must fail at
 * once, without allocating or reading for them. */
static void test_errors_huge(void)
{
	struct run R;
	size_t n;
	const uint8_t *d;
	static char name[64];
	static const int srcs[] = { SRC_FILE, SRC_PIPEBUF, SRC_GZ1 };
	for (size_t si = 0; si < 3; si++) {
		int s = srcs[si];
		/* a 20-byte HEAP DUMP SEGMENT (record 1 at 31, body 40..60) holding a
		 * PRIMITIVE ARRAY DUMP of 0xFFFFFFFF longs: 1 + 4 + 4 + 4 + 1 header
		 * bytes and 6 element bytes; after its tag 19 bytes remain, it needs
		 * 13 + 8 * 4294967295 = 34359738373 */
		snprintf(name, sizeof name, "4G longs in 20 bytes (%s)", src_names[s]);
		cur_test = name;
		hpw *w = hpw_new("JAVA PROFILE 1.0.2", 4, 0);
		hpw_begin_dump(w, 0x1C);
		hpw_prim_array(w, 0x100, 0, HPW_T_LONG, 0xFFFFFFFF, "\1\2\3\4\5\6", 6);
		hpw_end_dump(w);
		hpw_dump_end(w);
		d = hpw_data(w, &n);
		CHECK_EQ(n, 31 + 9 + 20 + 9);
		run_bytes(&R, d, n, s, NULL);
		EXPECT_ERR(&R, HP_ECORRUPT, 40, 1, 0x1C,
			   "PRIMITIVE ARRAY DUMP needs 34359738373 bytes but only 19 remain in its HEAP DUMP SEGMENT record");
		CHECK(R.seconds < 2.0);
		hpw_free(w);
		run_release(&R);

		/* OBJECT ARRAY DUMP of 0xFFFFFFFF ids (8-byte ids: needs 24 + 8n) */
		snprintf(name, sizeof name, "4G ids in 20 bytes (%s)", src_names[s]);
		w = hpw_new("JAVA PROFILE 1.0.2", 8, 0);
		hpw_begin_dump(w, 0x1C);
		hpw_obj_array(w, 0x100, 0, 0x10, 0, NULL);
		hpw_patch_u4(w, 40 + 1 + 8 + 4, 0xFFFFFFFF);
		hpw_end_dump(w);
		d = hpw_data(w, &n);
		run_bytes(&R, d, n, s, NULL);
		EXPECT_ERR(&R, HP_ECORRUPT, 40, 1, 0x1C, "OBJECT ARRAY DUMP needs 34359738384 bytes but only 24 remain");
		hpw_free(w);
		run_release(&R);

		/* STACK TRACE: 4294967295 frames in a 20-byte body */
		snprintf(name, sizeof name, "4G frames (%s)", src_names[s]);
		w = hpw_new("JAVA PROFILE 1.0.2", 4, 0);
		uint8_t body[20] = { 0, 0, 0, 1, 0, 0, 0, 2, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 9, 0, 0, 0, 10 };
		hpw_record(w, 0x05, body, sizeof body);
		d = hpw_data(w, &n);
		run_bytes(&R, d, n, s, NULL);
		EXPECT_ERR(&R, HP_ECORRUPT, 31, 1, 0x05, "STACK TRACE declares 4294967295 frames");
		hpw_free(w);
		run_release(&R);

		/* ALLOC SITES and CPU SAMPLES with 4294967295 entries */
		w = hpw_new("JAVA PROFILE 1.0.2", 4, 0);
		hpw_alloc_sites(w, 0, 0.0f, 0, 0, 0, 0, 0, NULL);
		hpw_patch_u4(w, 31 + 9 + 30, 0xFFFFFFFF);
		d = hpw_data(w, &n);
		run_bytes(&R, d, n, s, NULL);
		EXPECT_ERR(&R, HP_ECORRUPT, 31, 1, 0x06, "ALLOC SITES declares 4294967295 sites");
		hpw_free(w);
		run_release(&R);
		w = hpw_new("JAVA PROFILE 1.0.2", 4, 0);
		hpw_cpu_samples(w, 0, 0, NULL);
		hpw_patch_u4(w, 31 + 9 + 4, 0xFFFFFFFF);
		d = hpw_data(w, &n);
		run_bytes(&R, d, n, s, NULL);
		EXPECT_ERR(&R, HP_ECORRUPT, 31, 1, 0x0D, "CPU SAMPLES declares 4294967295 traces");
		hpw_free(w);
		run_release(&R);

		/* a HEAP DUMP SEGMENT that declares 0xFFFFFFF0 bytes (the file ends
		 * 20 bytes in) holding a byte[] of 0xFFFFFF00 elements, which fits
		 * the declared length: with want_array_data the reader is asked for
		 * 4 GiB that are not there and must say truncated at once */
		snprintf(name, sizeof name, "4G bytes, file ends (%s)", src_names[s]);
		w = hpw_new("JAVA PROFILE 1.0.2", 4, 0);
		hpw_begin_dump(w, 0x1C);
		hpw_prim_array(w, 0x100, 0, HPW_T_BYTE, 0xFFFFFF00, "\1\2\3\4\5\6", 6);
		hpw_end_dump_len(w, 0xFFFFFFF0);
		d = hpw_data(w, &n);
		struct hp_parse_opts o = popts(-1, 1, 1);
		run_bytes(&R, d, n, s, &o);
		EXPECT_ERR(&R, HP_ETRUNC, 40, 1, 0x1C, "file ends inside PRIMITIVE ARRAY DUMP");
		CHECK(R.seconds < 2.0);
		run_release(&R);
		o = popts(-1, 0, 0);
		run_bytes(&R, d, n, s, &o);
		EXPECT_ERR(&R, HP_ETRUNC, 40, 1, 0x1C, "file ends inside PRIMITIVE ARRAY DUMP");
		run_release(&R);
		/* the same dump not selected by dump_index: skipped by length */
		o = popts(5, 0, 0);
		run_bytes(&R, d, n, s, &o);
		EXPECT_ERR(&R, HP_ETRUNC, 31, 1, 0x1C, "file ends inside HEAP DUMP SEGMENT record");
		run_release(&R);
		hpw_free(w);

		/* an unknown record declaring 4 GiB: a known size tells it is broken */
		w = hpw_new("JAVA PROFILE 1.0.2", 4, 0);
		hpw_string(w, 1, "a");
		hpw_u1(w, 0x77);
		hpw_u4(w, 0);
		hpw_u4(w, 0xFFFFFFFF);
		hpw_bytes(w, "abc", 3);
		d = hpw_data(w, &n);
		run_bytes(&R, d, n, s, NULL);
		CHECK(R.rc == HP_ECORRUPT || R.rc == HP_ETRUNC);
		CHECK_EQ(R.err.offset, 45);
		CHECK_EQ(R.err.record, 2);
		CHECK_EQ(R.err.tag, 0x77);
		CHECK(R.seconds < 2.0);
		run_release(&R);
		hpw_free(w);
	}
}

/* Small records whose length is not the fixed size must be judged the same
 * way by the mmap and the streaming readers. */
static void test_fixed_length_mismatch(void)
{
	static char name[64];
	static const int srcs[] = { SRC_FILE, SRC_PIPEBUF, SRC_GZ1 };
	for (int kind = 0; kind < 3; kind++) {
		hpw *w = hpw_new("JAVA PROFILE 1.0.2", 4, 0);
		uint8_t body[32];
		memset(body, 0, sizeof body);
		if (kind == 0)
			hpw_record(w, 0x02, body, 16 + 4);  /* LOAD CLASS: 16 bytes + 4 extra */
		else if (kind == 1)
			hpw_record(w, 0x2C, body, 3);       /* HEAP DUMP END with a body */
		else
			hpw_record(w, 0x02, body, 12);      /* LOAD CLASS 4 bytes short */
		hpw_string(w, 1, "after");
		size_t n;
		const uint8_t *d = hpw_data(w, &n);
		int rcs[3];
		uint64_t offs[3];
		for (size_t si = 0; si < 3; si++) {
			snprintf(name, sizeof name, "fixed length mismatch %d (%s)", kind, src_names[srcs[si]]);
			cur_test = name;
			struct run R;
			run_bytes(&R, d, n, srcs[si], NULL);
			rcs[si] = R.rc;
			offs[si] = R.rc ? R.err.offset : 0;
			if (kind == 2) {
				/* short: always corrupt, at record 1 */
				CHECK_EQ(R.rc, HP_ECORRUPT);
				CHECK_EQ(R.err.offset, 31);
			}
			run_release(&R);
		}
		snprintf(name, sizeof name, "fixed length mismatch %d: mmap vs stream", kind);
		cur_test = name;
		/* mmap and streaming must agree.  For kinds 0 and 1 (a LOAD CLASS
		 * 4 bytes longer than its fixed size, a HEAP DUMP END with a 3-byte
		 * body, both wholly present) mmap used to accept the record while
		 * the streaming readers, not knowing the size, called past_end() at
		 * once: HP_ECORRUPT "declares 20 bytes, 47 remain" */
		int agree = rcs[1] == rcs[0] && rcs[2] == rcs[0] && offs[1] == offs[0] && offs[2] == offs[0];
		if (!agree)
			printf("    mmap: rc %d offset %llu; pipe: rc %d offset %llu; gzip: rc %d offset %llu\n",
			       rcs[0], (unsigned long long)offs[0], rcs[1], (unsigned long long)offs[1], rcs[2],
			       (unsigned long long)offs[2]);
		CHECK(agree);
		hpw_free(w);
	}
}

static void test_errors_gzip(void)
{
	struct run R;
	struct hp_parse_opts o = popts(-1, 1, 1);

	/* trunc.hprof.gz: see make_gz_source / make_trunc_gz */
	cur_test = "gzip cut in member 2's header";
	size_t gzn;
	uint8_t *gz = make_trunc_gz(&gzn);
	CHECK(gz != NULL);
	if (gz) {
		run_bytes(&R, gz, gzn, SRC_RAWGZ, &o);
		EXPECT_ERR(&R, HP_ETRUNC, 244, 2, 0x01, "file ends inside STRING record (declares 204 bytes, 86 remain)");
		CHECK_EQ(R.st.records, 2);
		run_release(&R);
		free(gz);
	}

	/* the gzip trailer alone missing (CRC32 + ISIZE) */
	cur_test = "gzip without trailer";
	{
		hpw *w = make_gz_source();
		gz = hpw_gzip(w, 1, NULL, &gzn);
		unsigned accepted = 0;
		for (size_t k = 1; k <= 8; k++) {
			run_bytes(&R, gz, gzn - k, SRC_RAWGZ, &o);
			if (R.rc == HP_OK)
				accepted++;
			else
				CHECK(R.rc == HP_ETRUNC || R.rc == HP_ECORRUPT);
			run_release(&R);
		}
		/* (all 8 cuts once parsed OK) */
		CHECK_EQ(accepted, 0);
		/* a corrupt CRC must be an error too */
		gz[gzn - 8] ^= 0xFF;
		run_bytes(&R, gz, gzn, SRC_RAWGZ, &o);
		CHECK_EQ(R.rc, HP_ECORRUPT);
		CHECK_HAS(R.err.msg, "gzip");
		run_release(&R);
		free(gz);
		hpw_free(w);
	}

	/* gzip followed by garbage */
	cur_test = "gzip + garbage";
	{
		hpw *w = make_gz_source();
		size_t n;
		hpw_data(w, &n);
		gz = hpw_gzip(w, 2, NULL, &gzn);
		uint8_t *g2 = malloc(gzn + 64);
		memcpy(g2, gz, gzn);
		memcpy(g2 + gzn, "this is garbage after the gzip members, not another member", 59);
		run_bytes(&R, g2, gzn + 59, SRC_RAWGZ, &o);
		CHECK_EQ(R.rc, HP_ECORRUPT);
		CHECK_HAS(R.err.msg, "garbage after member 2");
		run_release(&R);
		/* garbage that starts like a gzip member: inflate stops inside
		 * it (this once parsed OK) */
		memcpy(g2 + gzn, "\x1f\x8b\x08\x00garbage", 11);
		run_bytes(&R, g2, gzn + 11, SRC_RAWGZ, &o);
		CHECK(R.rc == HP_ECORRUPT || R.rc == HP_ETRUNC);
		CHECK(R.err.msg[0] != '\0');
		run_release(&R);
		/* a corrupt deflate stream in the middle */
		memcpy(g2, gz, gzn);
		for (size_t i = 30; i < 60 && i < gzn; i++)
			g2[i] ^= 0x5A;
		run_bytes(&R, g2, gzn, SRC_RAWGZ, &o);
		CHECK(R.rc == HP_ECORRUPT || R.rc == HP_ETRUNC || R.rc == HP_EFORMAT);
		CHECK(R.err.msg[0] != '\0');
		run_release(&R);
		free(g2);
		free(gz);
		hpw_free(w);
	}

	/* an empty gzip stream and one cut in its header */
	cur_test = "gzip empty";
	{
		hpw *w = hpw_new(NULL, 4, 0);
		gz = hpw_gzip(w, 1, NULL, &gzn);
		run_bytes(&R, gz, gzn, SRC_RAWGZ, &o);
		EXPECT_OPEN_ERR(&R, HP_EFORMAT, "empty gzip stream");
		run_release(&R);
		run_bytes(&R, gz, 6, SRC_RAWGZ, &o);
		EXPECT_OPEN_ERR(&R, HP_ETRUNC, "gzip stream ends before any data");
		run_release(&R);
		free(gz);
		hpw_free(w);
	}
}

/* Every cut of a gzip file of `members` members: a clear error, never a
 * crash, never OK unless the whole stream is there (one part per member
 * count, so that the shards share them out). */
static void test_gzip_cuts(int members)
{
	struct run R;
	struct hp_parse_opts o = popts(-1, 1, 1);
	cur_test = "gzip cut everywhere";
	struct bld b;
	build_full(&b, "JAVA PROFILE 1.0.2", 4, LAYOUT_SEGMENTS, 1, 1);
	in_memory = 1;
	size_t gzn;
	uint8_t *gz = hpw_gzip(b.w, members, "HPROF BLOCKSIZE=1", &gzn);
	unsigned ok = 0, trunc = 0, eformat_cut = 0;
	size_t first_ok = 0, first_ef = 0;
	for (size_t cut = 0; cut < gzn; cut++) {
		run_bytes(&R, gz, cut, SRC_RAWGZ, &o);
		if (R.rc == HP_OK) {
			if (!ok++)
				first_ok = cut;
		} else if (R.rc == HP_ETRUNC) {
			trunc++;
		} else if (R.rc == HP_EFORMAT && cut >= 2) {
			/* a gzip stream cut after its magic is truncated, not
			 * "not HPROF" */
			if (!eformat_cut++)
				first_ef = cut;
		} else if (R.rc != HP_EFORMAT && R.rc != HP_ECORRUPT) {
			printf("    cut %zu: rc %d: %s\n", cut, R.rc, R.err.msg);
			CHECK(0);
		}
		run_release(&R);
	}
	/* OK is acceptable only where a gzip member ends exactly at a
	 * record boundary; with one member, never */
	if (members == 1) {
		if (ok)
			printf("    %u cuts of the .gz parse OK (first at %zu of %zu bytes)\n", ok, first_ok, gzn);
		/* a gzip stream that ends inside a member (the reader sets
		 * at_eof = 2) must not be accepted even when the inflated
		 * bytes end at a record boundary (it once was: 70 cuts) */
		CHECK_EQ(ok, 0);
	}
	if (eformat_cut)
		printf("    %u cuts of the %d-member .gz give HP_EFORMAT (first at %zu of %zu bytes)\n",
		       eformat_cut, members, first_ef, gzn);
	/* a gzip stream cut after fewer than 13 inflated bytes is
	 * truncated, not "gzip file does not contain an HPROF heap dump"
	 * (HP_EFORMAT), as hp_reader_open once said */
	CHECK_EQ(eformat_cut, 0);
	CHECK(trunc > 0);
	free(gz);
	in_memory = 0;
	b_free(&b);
}

/* ---- truncation ------------------------------------------------------------- */

/* a segmented dump of about 2 KB; the last segment and HEAP DUMP END are
 * followed by one more record */
static void build_small(struct bld *b, unsigned I)
{
	b_init(b, "JAVA PROFILE 1.0.2", I, 3, 1, 1, -1);
	b_string(b, 1, "java/lang/Object");
	b_string(b, 2, "Thing");
	b_string(b, 3, "x");
	b_load_class(b, 1, 0x100, 0, 1);
	b_load_class(b, 2, 0x110, 0, 2);
	b_frame(b, 0x900, 3, 3, 3, 1, 12);
	uint64_t fr[2] = { 0x900, 0x900 };
	b_trace(b, 1, 1, 2, fr);
	b_thread(b, 1, 0x5000, 1, 3, 3, 3);
	b_unknown(b, 0x55, "abcdefgh", 8);
	b_dump(b, 0x1C);
	b_root_thread2(b, 0x08, 0x5000, 1, 1);
	b_root_id(b, 0x05, 0x100);
	b_root_jni_global(b, 0x1200, 0x77);
	struct hpw_class o = { 0x100, 0, 0, 0, 0, 0, 0, 0, NULL, 0, NULL, 0, NULL };
	b_class(b, &o);
	struct hpw_static_field st[2] = { { 3, HPW_T_INT, 7 }, { 3, HPW_T_OBJECT, 0x1200 } };
	struct hpw_instance_field fl[2] = { { 3, HPW_T_LONG }, { 3, HPW_T_OBJECT } };
	struct hpw_cp_entry cp[1] = { { 1, HPW_T_SHORT, 3 } };
	struct hpw_class t = { 0x110, 0, 0x100, 0, 0, 0, 8 + I, 1, cp, 2, st, 2, fl };
	b_class(b, &t);
	b_dump_close(b);
	b_dump(b, 0x1C);
	b_dump_close(b);
	b_dump(b, 0x1C);
	uint8_t fb[16];
	for (int i = 0; i < 30; i++) {
		put_be(fb, (uint64_t)i * 1000003, 8);
		put_be(fb + 8, 0x1200, I);
		b_instance(b, 0x1000 + 16 * (uint64_t)i, 0, 0x110, fb, 8 + I);
	}
	b_dump_close(b);
	b_dump(b, 0x1C);
	uint64_t el[4] = { 0x1000, 0x1010, 0, 0x1020 };
	b_objarr(b, 0x1200, 0, 0x120, 4, el);
	uint64_t v[5] = { 1, 2, 3, 4, 5 };
	b_primarr(b, 0x1300, 0, HPW_T_INT, 5, v);
	b_primarr(b, 0x1310, 0, HPW_T_CHAR, 5, v);
	b_nodata(b, 0x1320, HPW_T_LONG, 9);
	b_heap_info(b, 1, 3);
	b_root_thread1(b, 0x04, 0x1300, 1);
	b_dump_close(b);
	b_heap_end(b);
	b_string(b, 4, "the end");
	b_eof(b);
}

/* Is `got` a prefix of `full` at a line boundary? */
static int log_prefix(const char *got, const char *full)
{
	size_t n = strlen(got);
	return strncmp(got, full, n) == 0 && (n == 0 || got[n - 1] == '\n');
}

/* The record that contains byte `cut` - 1, as an index; -1 in the header. */
static int rec_at(const struct bld *b, size_t cut)
{
	int k = -1;
	for (size_t i = 0; i < b->nrec; i++)
		if (b->rec_off[i] < cut)
			k = (int)i;
	return k;
}

static int is_boundary(const struct bld *b, size_t cut, size_t total)
{
	if (cut == b->hdr_len || cut == total)
		return 1;
	for (size_t i = 0; i < b->nrec; i++)
		if (b->rec_off[i] == cut)
			return 1;
	return 0;
}

/* Part `part` (0..5) of the truncation test: ids of 4 bytes (parts 0-2)
 * or 8 (3-5), read as a file, a pipe or gzip (part % 3); the file's part
 * also cuts between segments. */
static void test_truncation(int part)
{
	static char name[96];
	unsigned I = part < 3 ? 4 : 8;
	size_t si = (size_t)part % 3;
	struct bld b;
	build_small(&b, I);
	size_t total;
	const uint8_t *d = b_data(&b, &total);
	snprintf(name, sizeof name, "truncation id%u", I);
	cur_test = name;
	if (si == 0)
		CHECK(total > 1400 && total < 4000);
	struct hp_parse_opts o = popts(-1, 1, 1);
	static const int srcs[] = { SRC_FILE, SRC_PIPEBUF, SRC_GZ1 };
	in_memory = 1;
	snprintf(name, sizeof name, "truncation id%u %s", I, src_names[srcs[si]]);
	cur_test = name;
	unsigned n_ok = 0, n_trunc = 0, n_corrupt = 0, bad = 0;
	for (size_t cut = 0; cut <= total; cut++) {
		struct run R;
		run_bytes(&R, d, cut, srcs[si], &o);
		int fail = 0;
		if (cut < 13) {
			/* too short to be recognised: refused by hp_reader_open,
			 * as empty (0 bytes) or as a header cut short */
			if (cut == 0 ? R.open_rc != HP_EFORMAT : R.open_rc != HP_ETRUNC)
				fail = 1;
		} else if (cut < b.hdr_len) {
			if (R.rc != HP_ETRUNC || R.err.record != 0 || R.err.offset > cut)
				fail = 2;
		} else if (is_boundary(&b, cut, total)) {
			/* a cut inside a segmented dump (no HEAP DUMP END) is
			 * reported at the cut, once every record was read */
			int open_dump = R.st.ndumps == 1 && !R.st.dumps[0].complete;
			if (open_dump ? !(R.rc == HP_ETRUNC && R.err.offset == cut &&
					  strstr(R.err.msg, "without its HEAP DUMP END"))
				      : R.rc != HP_OK)
				fail = 3;
			else {
				n_ok++;
				/* records seen = records that start before the cut */
				size_t nr = 0;
				while (nr < b.nrec && b.rec_off[nr] < cut)
					nr++;
				if (R.st.records != nr || R.st.bytes != cut)
					fail = 4;
				/* the log is a prefix of the full one, plus a
				 * dump_end when a segmented dump was left open */
				const char *g = sb_str(&R.rec.log);
				if (!log_prefix(g, sb_str(&b.ex))) {
					size_t gl = strlen(g);
					const char *last = gl ? g + gl - 1 : g;
					while (last > g && last[-1] != '\n')
						last--;
					char expect_end[64];
					snprintf(expect_end, sizeof expect_end, "dump_end 0 at %zu\n", cut);
					char *cp = strndup(g, (size_t)(last - g));
					if (strcmp(last, expect_end) != 0 || !log_prefix(cp, sb_str(&b.ex)))
						fail = 5;
					if (R.st.ndumps != 1 || R.st.dumps[0].complete)
						fail = 6;
					free(cp);
				}
			}
		} else {
			int k = rec_at(&b, cut);
			if (R.rc == HP_ETRUNC)
				n_trunc++;
			else if (R.rc == HP_ECORRUPT)
				n_corrupt++;
			if (R.rc != HP_ETRUNC && !(R.rc == HP_ECORRUPT && hp_tag_name(b.rec_tag[k]) == NULL))
				fail = 7;
			else if (R.err.offset > cut || R.err.offset < b.rec_off[k])
				fail = 8;
			else if (R.err.record != (uint64_t)k + 1 || R.err.tag != b.rec_tag[k])
				fail = 9;
			else if (!log_prefix(sb_str(&R.rec.log), sb_str(&b.ex)))
				fail = 10;
		}
		if (fail) {
			bad++;
			if (bad <= 5)
				printf("FAIL %s: cut %zu of %zu: check %d: rc %d open %d offset %llu record %llu tag %d: %s\n",
				       name, cut, total, fail, R.rc, R.open_rc,
				       (unsigned long long)R.err.offset, (unsigned long long)R.err.record,
				       R.err.tag, R.err.msg);
		}
		run_release(&R);
	}
	n_fail += bad;
	n_pass += (int)(total + 1 - bad);
	/* boundaries: the header end, every record start after it, the end */
	CHECK_EQ(n_ok, b.nrec + 1);
	CHECK(n_trunc > 1000);
	in_memory = 0;
	/* (the file's part) cut exactly between segments: every segment read,
	 * one dump, not complete, and the cut reported where it is */
	snprintf(name, sizeof name, "cut between segments id%u", I);
	cur_test = name;
	for (size_t i = 0; si == 0 && i < b.nrec; i++) {
		if (b.rec_tag[i] != 0x1C || i == 0 || b.rec_tag[i - 1] != 0x1C)
			continue;
		struct run R;
		run_bytes(&R, d, b.rec_off[i], SRC_FILE, &o);
		CHECK_EQ(R.rc, HP_ETRUNC);
		CHECK_EQ(R.err.offset, b.rec_off[i]);
		CHECK_EQ(R.st.ndumps, 1);
		if (R.st.ndumps == 1) {
			CHECK_EQ(R.st.dumps[0].complete, 0);
			CHECK_EQ(R.st.dumps[0].end, b.rec_off[i]);
		}
		run_release(&R);
	}
	b_free(&b);
}

/* ---- --write-bad DIR ---------------------------------------------------------- */

static int write_file(const char *dir, const char *name, const void *p, size_t n)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	if (!f || (n && fwrite(p, 1, n, f) != n) || fclose(f) != 0) {
		fprintf(stderr, "test_parser: %s: %s\n", path, strerror(errno));
		return 1;
	}
	return 0;
}

static int write_hpw(const char *dir, const char *name, hpw *w)
{
	size_t n;
	const uint8_t *d = hpw_data(w, &n);
	int rc = write_file(dir, name, d, n);
	hpw_free(w);
	return rc;
}

static int write_bad(const char *dir)
{
	static const uint8_t zip[] = { 'P', 'K', 3, 4, 20, 0, 0, 0, 8, 0, 'J', 'A', 'V', 'A', 0, 0, 0, 0, 0, 0 };
	static const char txt[] = "hello, this is not a heap dump\n";
	int rc = 0;
	rc |= write_file(dir, "empty.hprof", "", 0);
	rc |= write_file(dir, "zip.hprof", zip, sizeof zip);
	rc |= write_file(dir, "nothprof.txt", txt, sizeof txt - 1);
	rc |= write_hpw(dir, "trunc-string.hprof", make_trunc_string());
	rc |= write_hpw(dir, "unknown-subtag.hprof", make_unknown_subtag());
	rc |= write_hpw(dir, "straddle.hprof", make_straddle());
	size_t n;
	uint8_t *gz = make_trunc_gz(&n);
	if (!gz) {
		fprintf(stderr, "test_parser: cannot make trunc.hprof.gz\n");
		return 1;
	}
	rc |= write_file(dir, "trunc.hprof.gz", gz, n);
	free(gz);
	return rc;
}

/* ---- records not read whole ---------------------------------------- */

struct lim {
	uint64_t strings, traces, instances, parts, next_first, arrays, prims, bad;
	uint32_t last_n;
};

static int l_string(void *ud, uint64_t id, const uint8_t *s, uint32_t len)
{
	struct lim *L = ud;
	L->strings++;
	L->bad += len != (3u << 20) || memcmp(s, "aaaaaaaaaa", 10) != 0;
	return HP_OK;
}

static int l_trace(void *ud, uint32_t serial, uint32_t thread, uint32_t n, const uint8_t *ids)
{
	struct lim *L = ud;
	L->traces++;
	L->bad += n != (1u << 20);
	for (unsigned i = 0; i < 5; i++)
		L->bad += hp_be32(ids + 4 * i) != i + 1;
	return HP_OK;
}

static int l_instance(void *ud, uint64_t id, uint32_t serial, uint64_t cid, const uint8_t *f, uint32_t len,
		      uint64_t off)
{
	struct lim *L = ud;
	L->instances++;
	L->bad += len != (3u << 20) || !f || serial != 41;
	for (unsigned i = 0; f && i < 16; i++)
		L->bad += f[i] != (uint8_t)i;
	return HP_OK;
}

static int l_part(void *ud, uint64_t id, uint32_t serial, uint64_t cid, uint32_t n, uint32_t first, uint32_t k,
		  const uint8_t *e, uint64_t off)
{
	struct lim *L = ud;
	L->parts++;
	L->bad += first != L->next_first || k == 0 || k > 1000 || n != (1u << 20) || id != 0x500 || serial != 42;
	for (uint32_t j = 0; j < k; j++)
		L->bad += hp_be32(e + 4 * j) != first + j + 1;
	L->next_first = first + k;
	return HP_OK;
}

static int l_array(void *ud, uint64_t id, uint32_t serial, uint64_t cid, uint32_t n, const uint8_t *e, uint64_t off)
{
	struct lim *L = ud;
	L->arrays++;
	L->last_n = n;
	for (uint32_t j = 0; e && j < n; j++)
		L->bad += hp_be32(e + 4 * j) != j + 1;
	L->bad += !e || serial != 42;
	return HP_OK;
}

static int l_prim(void *ud, uint64_t id, uint32_t serial, unsigned type, uint32_t n, const uint8_t *e, uint64_t off,
		  int nodata)
{
	struct lim *L = ud;
	L->prims++;
	L->bad += e != NULL || n != (3u << 20) || serial != 43;
	return HP_OK;
}

/* With string_max, trace_frames_max, instance_data_max, no_prim_array_data
 * and obj_array_chunk, a gzip dump of records of 3-4 MiB each is parsed in
 * the reader's first 1 MiB window (it never grows); the sink gets the real
 * lengths, the bytes asked for and the object array in parts in order.  A
 * mapped file gives the object array whole. */
static void test_limits(void)
{
	cur_test = "records not read whole";
	hpw *w = hpw_new("JAVA PROFILE 1.0.2", 4, 0);
	uint8_t *big = malloc(4u << 20);
	memset(big, 'a', 3u << 20);
	hpw_string_n(w, 0x10, big, 3u << 20);
	uint64_t *ids = malloc((1u << 20) * sizeof *ids);
	for (uint32_t i = 0; i < (1u << 20); i++)
		ids[i] = i + 1;
	hpw_trace(w, 1, 0, 1u << 20, ids);
	hpw_begin_dump(w, HPW_TAG_HEAP_DUMP_SEGMENT);
	for (uint32_t i = 0; i < (3u << 20); i++)
		big[i] = (uint8_t)i;
	hpw_instance(w, 0x400, 41, 0x100, big, 3u << 20);
	hpw_obj_array(w, 0x500, 42, 0x108, 1u << 20, ids);
	hpw_prim_array(w, 0x600, 43, HPW_T_BYTE, 3u << 20, big, 3u << 20);
	hpw_end_dump(w);
	hpw_dump_end(w);
	free(big);
	free(ids);
	for (int gz = 1; gz >= 0; gz--) {
		char path[600];
		tmp_path(path, sizeof path, gz ? ".hprof.gz" : ".hprof");
		CHECK_EQ(gz ? hpw_write_gzip(w, path, 1) : hpw_write_file(w, path), 0);
		struct lim L;
		memset(&L, 0, sizeof L);
		struct hp_sink sink;
		memset(&sink, 0, sizeof sink);
		sink.ud = &L;
		sink.string = l_string;
		sink.trace = l_trace;
		sink.instance = l_instance;
		sink.obj_array = l_array;
		sink.obj_array_part = l_part;
		sink.prim_array = l_prim;
		struct hp_parse_opts o;
		hp_parse_opts_init(&o);
		o.dump_index = -1;
		o.want_instance_data = 1;
		o.want_array_data = 1;
		o.string_max = 10;
		o.trace_frames_max = 5;
		o.instance_data_max = 16;
		o.no_prim_array_data = 1;
		o.obj_array_chunk = 1000;
		hp_reader *r = NULL;
		struct hp_error err;
		hp_error_clear(&err);
		CHECK_EQ(hp_reader_open(&r, path, &err), HP_OK);
		if (r) {
			struct hp_stats st;
			CHECK_EQ(hp_parse(r, &sink, &o, &st, &err), HP_OK);
			hp_stats_release(&st);
			if (gz)
				CHECK_EQ(r->cap, 1u << 20);       /* the window never grew */
			hp_reader_free(r);
		}
		CHECK_EQ(L.bad, 0);
		CHECK_EQ(L.strings, 1);
		CHECK_EQ(L.traces, 1);
		CHECK_EQ(L.instances, 1);
		CHECK_EQ(L.prims, 1);
		if (gz) {
			CHECK_EQ(L.parts, ((1u << 20) + 999) / 1000);
			CHECK_EQ(L.next_first, 1u << 20);
			CHECK_EQ(L.arrays, 0);
		} else {
			CHECK_EQ(L.parts, 0);
			CHECK_EQ(L.arrays, 1);
			CHECK_EQ(L.last_n, 1u << 20);
		}
		unlink(path);
	}
	hpw_free(w);
}

/* ---- the tests, and shards of them -------------------------------------- */

/* Each piece is a test, or a part of one (fn_part with arg); cost is its
 * milliseconds under ASan as TEST_TIMING=1 prints them, by which the pieces
 * are shared out between shards (longest first, each to the least loaded
 * shard), so that tests/run-all.sh can run the shards side by side.  Every
 * piece runs in exactly one shard: the shards' counts add up to the whole
 * run's. */
struct piece {
	void (*fn)(void);
	void (*fn_part)(int);
	int arg;
	unsigned cost;
};

static const struct piece pieces[] = {
	{ test_names, NULL, 0, 0 },
	{ test_full, NULL, 0, 1040 },
	{ test_gzip_members, NULL, 0, 640 },
	{ test_big, NULL, 0, 2170 },
	{ test_multi, NULL, 0, 60 },
	{ test_segments_then_heap_dump, NULL, 0, 0 },
	{ test_sink_stop, NULL, 0, 0 },
	{ test_object_thread, NULL, 0, 180 },
	{ test_errors_open, NULL, 0, 10 },
	{ test_errors_header, NULL, 0, 40 },
	{ test_errors_records, NULL, 0, 130 },
	{ test_errors_huge, NULL, 0, 100 },
	{ test_fixed_length_mismatch, NULL, 0, 20 },
	{ test_errors_gzip, NULL, 0, 50 },
	{ NULL, test_gzip_cuts, 1, 1650 },
	{ NULL, test_gzip_cuts, 4, 2150 },
	{ NULL, test_truncation, 0, 170 },
	{ NULL, test_truncation, 1, 2970 },
	{ NULL, test_truncation, 2, 2440 },
	{ NULL, test_truncation, 3, 180 },
	{ NULL, test_truncation, 4, 2770 },
	{ NULL, test_truncation, 5, 3210 },
	{ test_limits, NULL, 0, 1320 },
};
#define NPIECES (sizeof pieces / sizeof pieces[0])
#define SHARDS 4                /* what `test_parser --shards` says */

/* shard[i]: the shard (0..n-1) piece i runs in */
static void share_out(unsigned n, unsigned shard[NPIECES])
{
	unsigned long load[64] = { 0 };
	int done[NPIECES] = { 0 };
	for (size_t k = 0; k < NPIECES; k++) {
		size_t big = NPIECES;
		for (size_t i = 0; i < NPIECES; i++)
			if (!done[i] && (big == NPIECES || pieces[i].cost > pieces[big].cost))
				big = i;
		unsigned least = 0;
		for (unsigned j = 1; j < n; j++)
			if (load[j] < load[least])
				least = j;
		done[big] = 1;
		shard[big] = least;
		load[least] += pieces[big].cost;
	}
}

int main(int argc, char **argv)
{
	unsigned k = 0, n = 1;
	if (argc == 3 && strcmp(argv[1], "--write-bad") == 0)
		return write_bad(argv[2]);
	if (argc == 2 && strcmp(argv[1], "--shards") == 0) {
		printf("%d\n", SHARDS);
		return 0;
	}
	char c;
	if (argc == 3 && strcmp(argv[1], "--shard") == 0 &&
	    (sscanf(argv[2], "%u/%u%c", &k, &n, &c) != 2 || k < 1 || k > n || n > 64)) {
		fprintf(stderr, "test_parser: --shard K/N: 1 <= K <= N <= 64, not '%s'\n", argv[2]);
		return 2;
	}
	if (argc != 1 && !(argc == 3 && strcmp(argv[1], "--shard") == 0)) {
		fprintf(stderr, "usage: test_parser [--shard K/N | --shards | --write-bad DIR]\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	tmp_init();
	have_proc = access("/proc/self/fd", R_OK) == 0;
	unsigned shard[NPIECES];
	share_out(n, shard);
	int timing = getenv("TEST_TIMING") != NULL;
	for (size_t i = 0; i < NPIECES; i++) {
		if (n > 1 && shard[i] != k - 1)
			continue;
		double t0 = now_s();
		if (pieces[i].fn)
			pieces[i].fn();
		else
			pieces[i].fn_part(pieces[i].arg);
		if (timing)
			fprintf(stderr, "piece %zu: %.2fs\n", i, now_s() - t0);
	}
	rmdir(tmpdir);
	printf("%d passed, %d failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}
