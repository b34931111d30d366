/*
 * fuzz_report — hprofan report's escaping: whatever the names in the dump
 * and the title, the page is its template with the markers filled by text
 * that cannot end or change an element, and the names come back out of it
 * as they went in.
 *
 * The input is a flags byte and up to five pieces, each a length byte and
 * that many bytes (missing pieces are empty):
 *   flags  bit 0 --title PIECE3 (cut at a NUL: argv holds none), else the
 *          default title; bit 1 the dump given twice (the trend section);
 *          bit 2 Android (1.0.3)
 *   pieces 0 a class name, 1 a method name, 2 a thread name (START
 *          THREAD), 3 a title, 4 a source file name
 * A small dump is built from them (tests/helper/hpw): an instance of the
 * class allocated at a trace whose frame is the method, held by the
 * thread.  hprofan's own main() runs `report DUMP [DUMP] -o -`, stdout
 * captured, and must exit 0.  Then the page, walked along the template
 * (hp_report_page):
 *   - every byte outside the markers is the template's;
 *   - @@TITLE@@ (the <title> and the <h1>) is text without <, > or " and
 *     with & only in &amp; &lt; &gt; &quot;, and decodes to the title;
 *   - @@DATA@@ holds no <, >, & or U+2028/U+2029 (so no "</script" or
 *     "<!--" can end or change the element), cJSON parses it, and its
 *     "title", and the method of the site's frame, equal what cJSON and
 *     hp_text_json_clean() make of the title and of the method's UTF-8;
 *   - @@LIB@@ is the library, byte for byte.
 * A violation aborts.
 *
 * Seeds (corpus/report/): markup, quotes, entity text, "</script>",
 * "<!--", U+2028, invalid and modified UTF-8 in each piece.  Linked like
 * fuzz_cli with the CLI objects and src/cli/main.c compiled with
 * -Dmain=hprofan_main (see the Makefile).
 */
#include "fuzz.h"
#include "helper/hpw.h"
#include "base/text.h"
#include "cli/report_assets.h"
#include "model/heap.h"
#include "base/alloc.h"

#include <cjson/cJSON.h>

int hprofan_main(int argc, char **argv);

#define NPIECES 5

static void fail(const char *what, const uint8_t *p, size_t n)
{
	fprintf(stderr, "fuzz_report: %s (%zu bytes):\n", what, n);
	for (size_t i = 0; i < n && i < 600; i++)
		fprintf(stderr, p[i] >= 0x20 && p[i] < 0x7f ? "%c" : "\\x%02x", p[i]);
	fputc('\n', stderr);
	abort();
}

enum { S_CLS = 1, S_METHOD, S_THREADNAME, S_SRC, S_OBJ, S_THREAD, S_SIG, S_BA };
#define C_OBJ 0x100
#define C_EVIL 0x108
#define C_THREAD 0x110
#define C_BA 0x118
#define O_EVIL 0x1000
#define O_BYTES 0x1008
#define O_THREAD 0x1010
#define F_EVIL 0x2000

static uint8_t *build(const uint8_t *piece[NPIECES], const size_t plen[NPIECES], unsigned flags, size_t *n)
{
	hpw *w = hpw_new(flags & 4 ? "JAVA PROFILE 1.0.3" : "JAVA PROFILE 1.0.2", 4, 0);
	hpw_string_n(w, S_CLS, piece[0], (uint32_t)plen[0]);
	hpw_string_n(w, S_METHOD, piece[1], (uint32_t)plen[1]);
	hpw_string_n(w, S_THREADNAME, piece[2], (uint32_t)plen[2]);
	hpw_string_n(w, S_SRC, piece[4], (uint32_t)plen[4]);
	hpw_string(w, S_OBJ, "java/lang/Object");
	hpw_string(w, S_THREAD, "java/lang/Thread");
	hpw_string(w, S_SIG, "()V");
	hpw_string(w, S_BA, "[B");
	hpw_load_class(w, 1, C_OBJ, 0, S_OBJ);
	hpw_load_class(w, 2, C_EVIL, 0, S_CLS);
	hpw_load_class(w, 3, C_THREAD, 0, S_THREAD);
	hpw_load_class(w, 4, C_BA, 0, S_BA);
	uint64_t frame = F_EVIL;
	hpw_frame(w, F_EVIL, S_METHOD, S_SIG, S_SRC, 2, 7);
	hpw_trace(w, 10, 1, 1, &frame);
	hpw_start_thread(w, 1, O_THREAD, 10, S_THREADNAME, 0, 0);
	hpw_begin_dump(w, HPW_TAG_HEAP_DUMP_SEGMENT);
	struct hpw_class c;
	memset(&c, 0, sizeof c);
	c.class_id = C_OBJ;
	hpw_class_dump(w, &c);
	struct hpw_instance_field ef = { S_CLS, HPW_T_OBJECT };
	c.class_id = C_EVIL;
	c.super_id = C_OBJ;
	c.instance_size = 4;
	c.nfields = 1;
	c.fields = &ef;
	hpw_class_dump(w, &c);
	c.class_id = C_THREAD;
	hpw_class_dump(w, &c);
	memset(&c, 0, sizeof c);
	c.class_id = C_BA;
	c.super_id = C_OBJ;
	hpw_class_dump(w, &c);
	static const uint8_t bytes[64];
	hpw_prim_array(w, O_BYTES, 10, HPW_T_BYTE, sizeof bytes, bytes, sizeof bytes);
	hpw_instance_begin(w, O_EVIL, 10, C_EVIL);
	hpw_value(w, HPW_T_OBJECT, O_BYTES);
	hpw_instance_end(w);
	hpw_instance_begin(w, O_THREAD, 0, C_THREAD);
	hpw_value(w, HPW_T_OBJECT, O_EVIL);
	hpw_instance_end(w);
	hpw_root_thread_object(w, O_THREAD, 1, 10);
	hpw_end_dump(w);
	hpw_dump_end(w);
	size_t len;
	const uint8_t *d = hpw_data(w, &len);
	uint8_t *copy = malloc(len);
	if (copy)
		memcpy(copy, d, len);
	*n = len;
	hpw_free(w);
	return copy;
}

/* the bytes written to fd (a memfd) */
static uint8_t *slurp(int fd, size_t *n)
{
	off_t end = lseek(fd, 0, SEEK_END);
	*n = end > 0 ? (size_t)end : 0;
	uint8_t *b = malloc(*n + 1);
	if (!b)
		return NULL;
	if (*n && pread(fd, b, *n, 0) != (ssize_t)*n)
		*n = 0;
	b[*n] = 0;
	return b;
}

/* What a string in one of hprofan's JSON documents reads as once the
 * document is printed, cleaned (hp_text_json_clean) and parsed again; NULL for
 * NULL.  Free it. */
static char *as_json(const char *s)
{
	if (!s)
		return NULL;
	cJSON *j = cJSON_CreateString(s);
	char *p = j ? cJSON_PrintUnformatted(j) : NULL;
	cJSON_Delete(j);
	if (!p)
		return NULL;
	size_t n = strlen(p);
	char *t = malloc(hp_text_json_clean(p, n, NULL) + 1);
	char *out = NULL;
	if (t) {
		hp_text_json_clean(p, n, t);
		cJSON *back = cJSON_Parse(t);
		if (back && cJSON_IsString(back))
			out = strdup(back->valuestring);
		cJSON_Delete(back);
	}
	free(t);
	cJSON_free(p);
	return out;
}

/* @@TITLE@@'s fill [p, e) decodes to want */
static void check_title(const uint8_t *p, const uint8_t *e, const char *want)
{
	size_t wn = strlen(want), k = 0;
	for (const uint8_t *q = p; q < e; k++) {
		static const char *const ent[] = { "&amp;", "&lt;", "&gt;", "&quot;" };
		static const char chr[] = "&<>\"";
		char c = (char)*q;
		if (c == '>' || c == '"')
			fail("the title holds a raw > or \"", p, (size_t)(e - p));
		if (c == '&') {
			int hit = -1;
			for (int i = 0; i < 4 && hit < 0; i++)
				if ((size_t)(e - q) >= strlen(ent[i]) && !memcmp(q, ent[i], strlen(ent[i])))
					hit = i;
			if (hit < 0)
				fail("the title holds an & that is none of its entities", p, (size_t)(e - p));
			c = chr[hit];
			q += strlen(ent[hit]);
		} else {
			q++;
		}
		if (k >= wn || want[k] != c)
			fail("the title does not decode to the title given", p, (size_t)(e - p));
	}
	if (k != wn)
		fail("the title is cut short", p, (size_t)(e - p));
}

/* member path of j, or NULL */
static const cJSON *member(const cJSON *j, const char *const *path)
{
	for (; j && *path; path++)
		j = **path == '#' ? cJSON_GetArrayItem(j, atoi(*path + 1)) : cJSON_GetObjectItemCaseSensitive(j, *path);
	return j;
}

/* @@DATA@@'s fill [p, e): no byte that could end or change the element;
 * JSON whose title and frame method are as hprofan wrote them */
static void check_data(const uint8_t *p, const uint8_t *e, int ndumps, const char *title, const char *method)
{
	size_t n = (size_t)(e - p);
	for (size_t i = 0; i < n; i++) {
		if (p[i] == '<' || p[i] == '>' || p[i] == '&')
			fail("the data hold a raw <, > or &", p, n);
		if (p[i] == 0xe2 && n - i > 2 && p[i + 1] == 0x80 && (p[i + 2] == 0xa8 || p[i + 2] == 0xa9))
			fail("the data hold a raw U+2028 or U+2029", p, n);
	}
	cJSON *d = cJSON_ParseWithLength((const char *)p, n);
	if (!d)
		fail("cJSON cannot parse the data", p, n);
	char *wt = as_json(title), *wm = as_json(method);
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(d, "title");
	if (!cJSON_IsString(t) || !wt || strcmp(t->valuestring, wt))
		fail("the data's title is not the title given", p, n);
	char last[8];
	snprintf(last, sizeof last, "#%d", ndumps - 1);
	static const char *m_path[] = { "dumps", NULL, "sites", "sites", "#0", "frames", "#0", "method", NULL };
	m_path[1] = last;
	const cJSON *m = member(d, m_path);
	if (wm ? !cJSON_IsString(m) || strcmp(m->valuestring, wm) : m != NULL)
		fail("the data's frame method is not the method in the dump", p, n);
	free(wt);
	free(wm);
	cJSON_Delete(d);
}

/* the page against the template */
static void check_page(const uint8_t *o, size_t no, int ndumps, const char *title, const char *method)
{
	const uint8_t *t = hp_report_page, *te = t + hp_report_page_len, *q = o, *qe = o + no;
	int data = 0, titles = 0;
	while (t < te) {
		const uint8_t *m = (const uint8_t *)strstr((const char *)t, "@@");
		size_t lit = (size_t)((m && m < te ? m : te) - t);
		if ((size_t)(qe - q) < lit || memcmp(q, t, lit))
			fail("the page differs from the template", q, (size_t)(qe - q) < 300 ? (size_t)(qe - q) : 300);
		q += lit;
		t += lit;
		if (t == te)
			break;
		if (!strncmp((const char *)t, "@@LIB@@", 7)) {
			if ((size_t)(qe - q) < hp_report_lib_len || memcmp(q, hp_report_lib, hp_report_lib_len))
				fail("the library differs", q, 300);
			q += hp_report_lib_len;
			t += 7;
		} else if (!strncmp((const char *)t, "@@TITLE@@", 9) || !strncmp((const char *)t, "@@DATA@@", 8)) {
			int is_data = t[2] == 'D';
			t += is_data ? 8 : 9;
			if (t >= te || *t != '<')
				fail("a marker not followed by a tag in the template", t, 40);
			/* the fill ends where the template's next tag begins */
			const uint8_t *e = memchr(q, '<', (size_t)(qe - q));
			if (!e)
				fail("no tag after a marker's fill", q, 300);
			if (is_data) {
				check_data(q, e, ndumps, title, method);
				data++;
			} else {
				check_title(q, e, title);
				titles++;
			}
			q = e;
		} else {        /* "@@" that is no marker is written as it is */
			if ((size_t)(qe - q) < 2 || memcmp(q, "@@", 2))
				fail("the page differs from the template at an @@", q, 40);
			q += 2;
			t += 2;
		}
	}
	if (q != qe)
		fail("bytes after the page's end", q, (size_t)(qe - q));
	if (data != 1 || titles != 2)
		fail("the template's markers are not one @@DATA@@ and two @@TITLE@@", o, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 2048)
		return 0;
	setenv("HPROFAN_NO_INDEX", "1", 1);
	unsigned flags = data[0];
	const uint8_t *piece[NPIECES];
	size_t plen[NPIECES];
	static const uint8_t none[1];
	size_t at = 1;
	for (int i = 0; i < NPIECES; i++) {
		piece[i] = none;
		plen[i] = 0;
		if (at < size) {
			size_t k = data[at++];
			if (k > size - at)
				k = size - at;
			piece[i] = data + at;
			plen[i] = k;
			at += k;
		}
	}
	size_t dn;
	uint8_t *dump = build(piece, plen, flags, &dn);
	if (!dump)
		return 0;
	char path[64];
	int fd = fuzz_memfile(dump, dn, path, sizeof path);
	free(dump);
	if (fd < 0)
		return 0;

	char given[260], title[320];
	memcpy(given, piece[3], plen[3]);
	given[plen[3]] = '\0';
	int ndumps = flags & 2 ? 2 : 1;
	const char *argv[16];
	int argc = 0;
	argv[argc++] = "hprofan";
	argv[argc++] = "report";
	argv[argc++] = path;
	if (ndumps == 2)
		argv[argc++] = path;
	argv[argc++] = "-o";
	argv[argc++] = "-";
	if (flags & 1) {
		argv[argc++] = "--title";
		argv[argc++] = given;
		snprintf(title, sizeof title, "%s", given);
	} else {
		snprintf(title, sizeof title, "hprofan report: %s%s", strrchr(path, '/') + 1,
			 ndumps == 2 ? " and earlier dumps" : "");
	}
	argv[argc++] = "--quiet";
	argv[argc] = NULL;
	char *method = hp_mutf8_to_utf8((const char *)piece[1], plen[1], NULL);

	int out = memfd_create("fuzz-out", MFD_CLOEXEC), err = memfd_create("fuzz-err", MFD_CLOEXEC);
	if (out < 0 || err < 0) {
		if (out >= 0)
			close(out);
		if (err >= 0)
			close(err);
		close(fd);
		hp_free(method);
		return 0;
	}
	fflush(stdout);
	fflush(stderr);
	int save_out = dup(1), save_err = dup(2);
	dup2(out, 1);
	dup2(err, 2);
	int rc = hprofan_main(argc, (char **)argv);
	fflush(stdout);
	fflush(stderr);
	dup2(save_out, 1);
	dup2(save_err, 2);
	close(save_out);
	close(save_err);
	close(fd);
	size_t no, ne;
	uint8_t *o = slurp(out, &no), *e = slurp(err, &ne);
	close(out);
	close(err);
	if (o && e && getenv("FUZZ_REPORT_SHOW")) {
		fprintf(stderr, "fuzz_report:");
		for (int i = 0; i < argc; i++)
			fprintf(stderr, " %s", argv[i]);
		fprintf(stderr, " -> exit %d, %zu bytes of page\n", rc, no);
		fwrite(e, 1, ne, stderr);
	}
	if (o && e) {
		if (rc != 0)
			fail("report failed on a well-formed dump; its stderr", e, ne);
		check_page(o, no, ndumps, title, method);
	}
	free(o);
	free(e);
	hp_free(method);
	return 0;
}
