/*
 * test_raw.c — the parser's raw stream (hprof.h, opts.want_raw) and the HPROF
 * writer (writer.h).
 *
 * A dump with every record and sub-record kind (4- and 8-byte ids, arrays of
 * every type, one of 3 MiB so that a streamed reader hands it over in
 * pieces, a record of an unknown kind) is read from a file (mapped) and from
 * gzip (streamed): the raw pieces put together are the file byte for byte,
 * each ELEMS piece holds whole elements, SUB pieces start with their tag.
 * The same pieces written through hp_writer, plain and gzip, give the file
 * back.  A dump cut short at many places: the pieces are a prefix of the
 * file, up to where the parse stopped.  hp_writer_rewind() starts over;
 * a descriptor in append mode cannot be rewound.
 */
#include "helper/hpw.h"
#include "base/alloc.h"
#include "parser/hprof.h"
#include "parser/reader.h"
#include "parser/writer.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int passed, failed;
#define CHECK(cond, ...) do { if (cond) passed++; else { failed++; printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } } while (0)

static char dir[256];

/* the dump; *elems_at is where the 3 MiB array's elements start */
static hpw *build(int id_size, size_t *elems_at)
{
	hpw *w = hpw_new("JAVA PROFILE 1.0.2", id_size, 1234);
	hpw_string(w, 1, "java/lang/Object");
	hpw_string(w, 2, "x");
	hpw_load_class(w, 1, 0x100, 0, 1);
	hpw_frame(w, 7, 2, 2, 2, 1, 12);
	uint64_t frames[] = { 7 };
	hpw_trace(w, 1, 1, 1, frames);
	hpw_start_thread(w, 1, 0x300, 1, 2, 2, 2);
	hpw_end_thread(w, 1);
	hpw_heap_summary(w, 1, 2, 3, 4);
	hpw_control_settings(w, 1, 2);
	uint8_t junk[5] = { 1, 2, 3, 4, 5 };
	hpw_record(w, 0x99, junk, sizeof junk);
	hpw_begin_dump(w, HPW_TAG_HEAP_DUMP_SEGMENT);
	hpw_root_unknown(w, 0x200);
	hpw_root_jni_global(w, 0x200, 9);
	hpw_root_java_frame(w, 0x200, 1, 0);
	hpw_root_sticky_class(w, 0x100);
	hpw_heap_info(w, 1, 2);
	struct hpw_cp_entry cp[] = { { 1, 10, 77 } };
	struct hpw_static_field st[] = { { 2, 11, 5 }, { 2, 2, 0x200 } };
	struct hpw_instance_field fl[] = { { 2, 10 }, { 2, 2 } };
	struct hpw_class c = { .class_id = 0x100, .instance_size = 4 + (uint32_t)id_size, .ncp = 1, .cp = cp,
			       .nstatics = 2, .statics = st, .nfields = 2, .fields = fl };
	hpw_class_dump(w, &c);
	hpw_instance_begin(w, 0x200, 0, 0x100);
	hpw_value(w, 10, 42);
	hpw_value(w, 2, 0x200);
	hpw_instance_end(w);
	uint64_t ids[] = { 0x200, 0 };
	hpw_obj_array(w, 0x210, 0, 0x100, 2, ids);
	static const uint8_t types[] = { 4, 5, 6, 7, 8, 9, 10, 11 };
	uint64_t vals[3] = { 1, 2, 3 };
	for (size_t i = 0; i < sizeof types; i++)
		hpw_prim_array_values(w, 0x400 + 16 * i, 0, types[i], 3, vals);
	hpw_prim_array_nodata(w, 0x500, 0, 5, 9);
	size_t big = 3u << 20;
	uint8_t *b = malloc(big);
	for (size_t i = 0; i < big; i++)
		b[i] = (uint8_t)(i * 7);
	*elems_at = hpw_len(w) + 1 + (size_t)id_size + 4 + 4 + 1;
	hpw_prim_array(w, 0x600, 0, 11, (uint32_t)(big / 8), b, big);
	free(b);
	hpw_end_dump(w);
	hpw_dump_end(w);
	return w;
}

struct cat {
	uint8_t *buf;
	size_t len, cap;
	int bad_elems, bad_sub;
	unsigned esize, I;
	hp_writer *w;
	struct hp_error *err;
};

static int on_raw(void *ud, int kind, const uint8_t *p, size_t n, uint64_t off)
{
	struct cat *c = ud;
	if (off != c->len)
		c->bad_sub++;
	if (kind == HP_RAW_SUB) {
		if (!n || !hp_subtag_name(p[0]))
			c->bad_sub++;
		c->esize = p[0] == 0x23 && n > 1 + c->I + 8 ? hp_type_size(p[1 + c->I + 8], c->I) : p[0] == 0x22 ? c->I : 0;
	}
	if (kind == HP_RAW_ELEMS && c->esize && n % c->esize)
		c->bad_elems++;
	if (c->len + n > c->cap) {
		c->cap = (c->len + n) * 2;
		c->buf = realloc(c->buf, c->cap);
	}
	memcpy(c->buf + c->len, p, n);
	c->len += n;
	if (c->w && hp_writer_write(c->w, p, n, c->err) != HP_OK)
		return c->err->code;
	return HP_OK;
}

static int on_header(void *ud, const struct hp_header *h)
{
	((struct cat *)ud)->I = h->id_size;
	return HP_OK;
}

/* parses path with the raw stream into c; returns the parse status */
static int cat_file(const char *path, struct cat *c, hp_writer *w, struct hp_error *err)
{
	memset(c, 0, sizeof *c);
	c->w = w;
	c->err = err;
	hp_reader *r;
	int rc = hp_reader_open(&r, path, err);
	if (rc)
		return rc;
	struct hp_sink s;
	memset(&s, 0, sizeof s);
	s.ud = c;
	s.raw = on_raw;
	s.header = on_header;
	struct hp_parse_opts o;
	hp_parse_opts_init(&o);
	o.dump_index = -1;
	o.want_raw = 1;
	struct hp_stats st;
	rc = hp_parse(r, &s, &o, &st, err);
	hp_stats_release(&st);
	hp_reader_free(r);
	return rc;
}

static void test_whole(int id_size)
{
	size_t elems_at;
	hpw *w = build(id_size, &elems_at);
	size_t len;
	const uint8_t *data = hpw_data(w, &len);
	char plain[300], gz[300], out[300];
	snprintf(plain, sizeof plain, "%s/d%d.hprof", dir, id_size);
	snprintf(gz, sizeof gz, "%s/d%d.hprof.gz", dir, id_size);
	snprintf(out, sizeof out, "%s/o%d.hprof", dir, id_size);
	CHECK(hpw_write_file(w, plain) == 0 && hpw_write_gzip(w, gz, 3) == 0, "cannot write the dumps");
	for (int g = 0; g < 2; g++) {
		struct cat c;
		struct hp_error err;
		hp_error_clear(&err);
		int rc = cat_file(g ? gz : plain, &c, NULL, &err);
		CHECK(rc == HP_OK, "id %d %s: parse: %s", id_size, g ? "gzip" : "plain", err.msg);
		CHECK(c.len == len && !memcmp(c.buf, data, len), "id %d %s: the pieces are not the file (%zu of %zu bytes)",
		      id_size, g ? "gzip" : "plain", c.len, len);
		CHECK(!c.bad_elems && !c.bad_sub, "id %d %s: %d ELEMS pieces of part elements, %d bad SUB or offsets",
		      id_size, g ? "gzip" : "plain", c.bad_elems, c.bad_sub);
		free(c.buf);
		/* through the writer, plain and gzip, and back */
		for (int level = 0; level <= 9; level += 9) {
			int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
			hp_writer *hw = NULL;
			CHECK(fd >= 0 && hp_writer_new(&hw, fd, level, &err) == HP_OK, "writer: %s", err.msg);
			if (!hw)
				continue;
			CHECK(hp_writer_seekable(hw), "a new regular file can be rewound");
			/* something to throw away first */
			CHECK(hp_writer_write(hw, "garbage", 7, &err) == HP_OK && hp_writer_rewind(hw, &err) == HP_OK,
			      "rewind: %s", err.msg);
			rc = cat_file(g ? gz : plain, &c, hw, &err);
			free(c.buf);
			CHECK(rc == HP_OK && hp_writer_finish(hw, &err) == HP_OK, "write: %s", err.msg);
			CHECK(hp_writer_offset(hw) == len, "writer offset %llu, want %zu",
			      (unsigned long long)hp_writer_offset(hw), len);
			hp_writer_free(hw);
			close(fd);
			rc = cat_file(out, &c, NULL, &err);
			CHECK(rc == HP_OK && c.len == len && !memcmp(c.buf, data, len),
			      "id %d, from %s, written at level %d: not the file back (%s)", id_size,
			      g ? "gzip" : "plain", level, err.msg);
			free(c.buf);
		}
	}
	/* cut short: a prefix, up to where the parse stopped; all of it when
	 * the cut fell between records (a shorter dump, not an error).  Every
	 * byte is a cut but inside the big array's elements, where 64 cuts
	 * spread over it and those at its first and last 16 bytes stand for
	 * the rest; the file is written once and shortened, last cut first */
	int prefix_ok = 1, whole = 1, errors = 0, ncuts = 0;
	size_t elems_end = elems_at + (3u << 20), span = (3u << 20) / 64;
	CHECK(elems_end < len && data[elems_at + 1] == 7 && data[elems_at + 2] == 14, "id %d: the array is not where expected",
	      id_size);
	FILE *f = fopen(plain, "wb");
	CHECK(f && fwrite(data, 1, len, f) == len && fflush(f) == 0, "cannot write %s", plain);
	for (size_t cut = len - 1; f && cut >= 1; cut--) {
		if (cut > elems_at + 16 && cut < elems_end - 16) {
			size_t k = (cut - elems_at) / span;   /* down to the next of the 64, or to the first 16 */
			size_t to = elems_at + k * span;
			cut = to > elems_at + 16 ? to : elems_at + 16;
		}
		if (ftruncate(fileno(f), (off_t)cut) != 0) {
			CHECK(0, "ftruncate %s: cut %zu", plain, cut);
			break;
		}
		ncuts++;
		struct cat c;
		struct hp_error err;
		hp_error_clear(&err);
		int rc = cat_file(plain, &c, NULL, &err);
		if (rc != HP_OK)
			errors++;
		else if (c.len != cut)
			whole = 0;
		if (c.len > cut || (c.len && memcmp(c.buf, data, c.len)))
			prefix_ok = 0;
		free(c.buf);
	}
	if (f)
		fclose(f);
	CHECK((size_t)ncuts > elems_at + 64 + (len - elems_end), "id %d: only %d cuts", id_size, ncuts);
	CHECK(prefix_ok, "id %d: a cut dump's pieces are not a prefix of it", id_size);
	CHECK(whole, "id %d: a dump cut between records parsed, but its pieces are not all of it", id_size);
	CHECK(errors > 100, "id %d: only %d cuts were errors", id_size, errors);
	unlink(plain);
	unlink(gz);
	unlink(out);
	hpw_free(w);
}

static void test_append(void)
{
	char path[300];
	snprintf(path, sizeof path, "%s/append", dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0600);
	struct hp_error err;
	hp_writer *w = NULL;
	CHECK(fd >= 0 && hp_writer_new(&w, fd, 0, &err) == HP_OK, "writer: %s", err.msg);
	CHECK(w && !hp_writer_seekable(w) && hp_writer_rewind(w, &err) == HP_EUSAGE,
	      "a file in append mode is not rewound");
	hp_writer_free(w);
	close(fd);
	unlink(path);
	CHECK(hp_writer_new(&w, 1, 10, &err) == HP_EUSAGE && !w, "gzip level 10 is refused");
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		fprintf(stderr, "usage: test_raw (no arguments)\n");
		return 2;
	}
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof dir, "%s/test_raw.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perror("test_raw: mkdtemp");
		printf("0 passed, 1 failed\n");
		return 1;
	}
	test_whole(4);
	test_whole(8);
	test_append();
	rmdir(dir);
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
