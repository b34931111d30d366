/*
 * fuzz_redact — redact round trips (tools/redact.h): the input is a
 * whole dump file of at most 64 KiB, redacted in each mode (values,
 * strings, names) into a memfd.  What must hold, else the target aborts:
 *   - the copy is made exactly when the input parses (out of memory aside);
 *   - the copy parses without error, with as many records of each kind and
 *     sub-records of each kind as the input (STRING records: those whose id
 *     a record uses), so every analysis sees the same objects;
 *   - it holds none of the input's text: each of its STRING records has an
 *     id that a LOAD CLASS, CLASS DUMP (field or static), STACK FRAME or
 *     HEAP DUMP INFO names (a name), or else a START THREAD (its text is
 *     then '*'s only); no record of the input whose id none of them names
 *     is in it; every char[] element is U+002A and every byte[] one '*';
 *     under values and names every element of the other primitive arrays
 *     is zero; under values and strings, no text of a dropped STRING record
 *     (of 4 bytes or more) is inside one of the copy's names unless it is
 *     inside a name of the input (the same text may be written twice).
 * Seeds (tests/fuzz/corpus/redact/): the scanner's dumps (hotspot4,
 * hotspot8, heapdump8, android4) and secrets.hprof, written by
 * tests/helper/mkhprof.py (see the comment at its end of this file).
 */
#include "fuzz.h"
#include "tools/redact.h"
#include "model/idmap.h"
#include "parser/writer.h"

#define MAX_INPUT (64u << 10)

static void check(int ok, const char *mode, const char *what)
{
	if (ok)
		return;
	fprintf(stderr, "fuzz_redact: --mode=%s: %s\n", mode, what);
	abort();
}

/* ---- what the input's records say of its STRING ids -------------------- */

enum { USE_NAME = 1, USE_TEXT = 2 };

struct uses {
	unsigned id_size;
	struct hp_idmap use;         /* sid -> USE_* */
	uint64_t strings, kept;      /* STRING records, and those of a used id (after the pass) */
	/* the texts of the STRING records: dropped ones and names, each NUL-free
	 * piece kept in one buffer with its length before it */
	uint8_t *txt;
	size_t ntxt, txt_cap;
	struct hp_stats st;
	int rc;
};

static void use(struct uses *u, uint64_t sid, uint32_t how)
{
	uint32_t v = hp_idmap_get(&u->use, sid);
	if (hp_idmap_put(&u->use, sid, v == HP_IDMAP_NONE ? how : v | how) < 0)
		abort();
}

static int u_header(void *ud, const struct hp_header *h) { ((struct uses *)ud)->id_size = h->id_size; return 0; }
static int u_load_class(void *ud, uint32_t serial, uint64_t cid, uint32_t trace, uint64_t name_sid)
{ use(ud, name_sid, USE_NAME); return 0; }
static int u_frame(void *ud, const struct hp_frame *f)
{
	use(ud, f->method_sid, USE_NAME);
	use(ud, f->signature_sid, USE_NAME);
	if (f->source_sid)
		use(ud, f->source_sid, USE_NAME);
	return 0;
}
static int u_thread(void *ud, const struct hp_thread *t)
{
	const uint64_t s[3] = { t->name_sid, t->group_sid, t->parent_group_sid };
	for (int i = 0; i < 3; i++)
		if (s[i])
			use(ud, s[i], USE_TEXT);
	return 0;
}
static int u_heap_info(void *ud, uint32_t heap_id, uint64_t name_sid) { use(ud, name_sid, USE_NAME); return 0; }
static int u_class_dump(void *ud, const struct hp_class_dump *c)
{
	struct uses *u = ud;
	unsigned I = u->id_size;
	for (uint32_t i = 0; i < c->n_fields; i++)
		use(u, hp_be_id(c->fields + i * (I + 1), I), USE_NAME);
	const uint8_t *p = c->statics;
	for (uint32_t i = 0; i < c->n_statics; i++) {
		use(u, hp_be_id(p, I), USE_NAME);
		p += I + 1 + hp_type_size(p[I], I);
	}
	return 0;
}

/* the second pass over the input: its STRING records' texts */
struct texts {
	struct uses *u;
	int names;                   /* keep the names' texts, else the dropped ones' */
	uint8_t *buf;
	size_t n, cap;
};

static int t_string(void *ud, uint64_t id, const uint8_t *s, uint32_t len)
{
	struct texts *t = ud;
	uint32_t how = hp_idmap_get(&t->u->use, id);
	int name = how != HP_IDMAP_NONE && (how & USE_NAME);
	if (name != t->names || (!name && how != HP_IDMAP_NONE))
		return 0;
	while (t->n + 4 + len > t->cap) {
		t->cap = t->cap ? 2 * t->cap : 4096;
		if (!(t->buf = realloc(t->buf, t->cap)))
			abort();
	}
	memcpy(t->buf + t->n, &len, 4);
	memcpy(t->buf + t->n + 4, s, len);
	t->n += 4 + (size_t)len;
	return 0;
}

static int count_string(void *ud, uint64_t id, const uint8_t *s, uint32_t len)
{
	struct uses *u = ud;
	u->strings++;
	u->kept += hp_idmap_get(&u->use, id) != HP_IDMAP_NONE;
	return 0;
}

static int parse_path(const char *path, struct hp_sink *sink, int want_arrays, struct hp_stats *st)
{
	hp_reader *r = NULL;
	struct hp_error err;
	hp_error_clear(&err);
	int rc = hp_reader_open(&r, path, &err);
	if (rc != HP_OK)
		return rc;
	struct hp_parse_opts po;
	hp_parse_opts_init(&po);
	po.dump_index = -1;
	po.want_array_data = want_arrays;
	struct hp_stats local;
	memset(&local, 0, sizeof local);
	rc = hp_parse(r, sink, &po, st ? st : &local, &err);
	hp_stats_release(st ? st : &local);
	hp_reader_free(r);
	return rc;
}

/* ---- the copy --------------------------------------------------------------- */

struct copy {
	const char *mode;
	int zero;                    /* values, names: other primitive arrays all zero */
	struct uses *u;
	uint64_t strings;
	const struct texts *dropped, *names;   /* NULL under names */
};

/* does the piece list hold a text that holds s[0, n)? */
static int in_texts(const struct texts *t, const uint8_t *s, size_t n)
{
	for (size_t k = 0; k + 4 <= t->n;) {
		uint32_t len;
		memcpy(&len, t->buf + k, 4);
		const uint8_t *p = t->buf + k + 4;
		for (size_t i = 0; n <= len && i + n <= len; i++)
			if (!memcmp(p + i, s, n))
				return 1;
		k += 4 + (size_t)len;
	}
	return 0;
}

static int c_string(void *ud, uint64_t id, const uint8_t *s, uint32_t len)
{
	struct copy *c = ud;
	c->strings++;
	uint32_t how = hp_idmap_get(&c->u->use, id);
	check(how != HP_IDMAP_NONE, c->mode, "a STRING no record of the input names is in the copy");
	if (!(how & USE_NAME))
		for (uint32_t i = 0; i < len; i++)
			check(s[i] == '*', c->mode, "a thread's name is not '*'s");
	if (!c->dropped || !(how & USE_NAME))
		return 0;
	/* a dropped text inside a name must be inside a name of the input too */
	const struct texts *d = c->dropped;
	for (size_t k = 0; k + 4 <= d->n;) {
		uint32_t n;
		memcpy(&n, d->buf + k, 4);
		const uint8_t *t = d->buf + k + 4;
		if (n >= 4 && n <= len) {
			for (uint32_t i = 0; i + n <= len; i++)
				if (!memcmp(s + i, t, n)) {
					check(in_texts(c->names, t, n), c->mode, "a dropped STRING's text is in the copy");
					break;
				}
		}
		k += 4 + (size_t)n;
	}
	return 0;
}

static int c_prim_array(void *ud, uint64_t id, uint32_t serial, unsigned type, uint32_t n, const uint8_t *e,
			uint64_t offset, int nodata)
{
	struct copy *c = ud;
	if (nodata || !e)
		return 0;
	for (uint32_t i = 0; i < n; i++) {
		if (type == HP_T_CHAR)
			check(e[2 * i] == 0 && e[2 * i + 1] == '*', c->mode, "a char[] element is not '*'");
		else if (type == HP_T_BYTE)
			check(e[i] == '*', c->mode, "a byte[] element is not '*'");
	}
	if (c->zero && type != HP_T_CHAR && type != HP_T_BYTE) {
		size_t bytes = (size_t)n * hp_type_size(type, c->u->id_size);
		for (size_t i = 0; i < bytes; i++)
			check(e[i] == 0, c->mode, "a primitive array's element is not zero");
	}
	return 0;
}

static int c_header(void *ud, const struct hp_header *h) { return 0; }

static void one_mode(const char *in, struct uses *u, int mode, const struct texts *dropped,
		     const struct texts *names)
{
	static const char *const mname[] = { "values", "strings", "names" };
	const char *m = mname[mode];
	int ofd = memfd_create("hprofan-fuzz-out", MFD_CLOEXEC);
	if (ofd < 0)
		return;
	struct hp_error err;
	hp_error_clear(&err);
	hp_writer *w = NULL;
	struct hp_redact_opts o;
	hp_redact_opts_init(&o);
	o.mode = mode;
	struct hp_redact_stats rs;
	int rc = hp_writer_new(&w, ofd, 0, &err);
	if (rc == HP_OK)
		rc = hp_redact(in, w, &o, &rs, &err);
	hp_writer_free(w);
	if (rc == HP_ENOMEM || u->rc == HP_ENOMEM) {
		close(ofd);
		return;
	}
	check((rc == HP_OK) == (u->rc == HP_OK), m, rc == HP_OK ? "a dump that does not parse is copied" :
	      "a dump that parses is not copied");
	if (rc == HP_OK) {
		char path[64];
		snprintf(path, sizeof path, "/proc/self/fd/%d", ofd);
		struct copy c = { m, mode != HP_REDACT_STRINGS, u, 0, mode == HP_REDACT_NAMES ? NULL : dropped,
				  mode == HP_REDACT_NAMES ? NULL : names };
		struct hp_sink sink;
		memset(&sink, 0, sizeof sink);
		sink.ud = &c;
		sink.header = c_header;
		sink.string = c_string;
		sink.prim_array = c_prim_array;
		struct hp_stats st;
		memset(&st, 0, sizeof st);
		check(parse_path(path, &sink, 1, &st) == HP_OK, m, "the copy does not parse");
		check(c.strings == u->kept, m, "the copy's STRING records are not the input's used ones");
		for (int t = 0; t < 256; t++) {
			if (t != 0x01)
				check(st.records_by_tag[t] == u->st.records_by_tag[t], m, "a kind of record changed in number");
			check(st.subrecords_by_tag[t] == u->st.subrecords_by_tag[t], m,
			      "a kind of sub-record changed in number");
		}
	}
	close(ofd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > MAX_INPUT)
		return 0;
	char in[64];
	int fd = fuzz_memfile(data, size, in, sizeof in);
	if (fd < 0)
		return 0;
	struct uses u;
	memset(&u, 0, sizeof u);
	u.id_size = 4;
	hp_idmap_init(&u.use);
	struct hp_sink sink;
	memset(&sink, 0, sizeof sink);
	sink.ud = &u;
	sink.header = u_header;
	sink.load_class = u_load_class;
	sink.frame = u_frame;
	sink.start_thread = u_thread;
	sink.heap_info = u_heap_info;
	sink.class_dump = u_class_dump;
	u.rc = parse_path(in, &sink, 0, &u.st);
	struct texts dropped = { &u, 0, NULL, 0, 0 }, names = { &u, 1, NULL, 0, 0 };
	if (u.rc == HP_OK) {
		/* a second pass: the STRING records (they come before their uses) */
		memset(&sink, 0, sizeof sink);
		sink.ud = &u;
		sink.header = u_header;
		sink.string = count_string;
		(void)parse_path(in, &sink, 0, NULL);
		sink.header = NULL;
		sink.ud = &dropped;
		sink.string = t_string;
		(void)parse_path(in, &sink, 0, NULL);
		sink.ud = &names;
		(void)parse_path(in, &sink, 0, NULL);
	}
	for (int m = HP_REDACT_VALUES; m <= HP_REDACT_NAMES; m++)
		one_mode(in, &u, m, &dropped, &names);
	free(dropped.buf);
	free(names.buf);
	hp_idmap_release(&u.use);
	close(fd);
	return 0;
}

/*
 * corpus/redact/secrets.hprof: a HotSpot-like dump (4-byte ids) with the
 * text redact must drop: STRING records no record uses, a START THREAD's
 * names, char[] and byte[] contents, a String, a hash map node.
 *
 *   python3 - <<'EOF'
 *   import sys; sys.path.insert(0, "tests/helper")
 *   from mkhprof import *
 *   d = Dump()
 *   d.string("literal-secret"); d.string("Lcom/acme/Secret;")
 *   obj = d.load_class("java.lang.Object"); strc = d.load_class("java.lang.String")
 *   node = d.load_class("java/util/HashMap$Node"); app = d.load_class("com.acme.Secret")
 *   d.class_dump(obj); d.class_dump(strc, obj, fields=[("value", OBJECT), ("hash", INT), ("coder", BYTE)])
 *   d.class_dump(node, obj, fields=[("hash", INT), ("key", OBJECT), ("value", OBJECT), ("next", OBJECT)])
 *   d.class_dump(app, obj, fields=[("token", OBJECT), ("pin", LONG)], statics=[("COUNT", INT, 77)])
 *   b = d.prim_array(BYTE, b"hunter2-bytes"); c = d.prim_array(CHAR, "pw-chars".encode("utf-16-be"))
 *   s = d.instance(strc, [b, 0x1234567, 0]); n = d.instance(node, [0x5eed, s, s, 0])
 *   o = d.instance(app, [s, 0x1122334455667788]); d.prim_array(INT, bytes(range(8)))
 *   d.obj_array(d.load_class("[Ljava/lang/Object;"), [o, n, c])
 *   f = d.stack_frame("leak", "(Lcom/acme/Secret;)V", "Secret.java", app, 7); d.stack_trace(1, 1, [f])
 *   d.start_thread(1, o, 1, "worker-secret", "group-secret"); d.thread_root(o, 1, trace=1); d.root(o)
 *   d.write("tests/fuzz/corpus/redact/secrets.hprof")
 *   EOF
 */
