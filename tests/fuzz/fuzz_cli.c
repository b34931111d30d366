/*
 * fuzz_cli — the CLI's text paths: every string the dump holds reaches the
 * terminal escaped and --json stays valid UTF-8 JSON, whatever the bytes.
 *
 * The input is a flags byte and up to seven pieces, each a length byte and
 * that many bytes (missing pieces are empty):
 *   flags  bit 0 Android (1.0.3, heaps), bits 1..3 the command, bit 4 --json,
 *          bit 5 a second instance class without a CLASS DUMP (a warning
 *          naming it), bit 6 --filter with piece 6 as the pattern
 *   pieces 0 a class name, 1 a field name, 2 a static's name, 3 a heap name,
 *          4 a String's characters (UTF-16, big-endian), 5 a thread name
 *          (START THREAD), 6 a pattern
 * A small dump is built from them (tests/helper/hpw) and hprofan's own
 * main() runs one command on it (top, top --fast, info, dominators, roots,
 * object, path, or top --heap PIECE3), stdout and stderr captured.  Then:
 *   - stderr, and stdout unless it is JSON, hold no control character but
 *     \n (and \t), no DEL, no C1 control (U+0080..U+009F) and only valid
 *     UTF-8;
 *   - JSON on stdout is valid UTF-8 (no raw DEL or C1 either) that cJSON
 *     parses.
 * Each piece also goes straight through hp_text_safe() (with a buffer size
 * from the piece) and hp_text_json_clean() (into exactly the bytes its
 * counting call asks for), whose outputs must hold the same rules.  A
 * violation aborts.
 *
 * Linked with the CLI objects and src/cli/main.c compiled with
 * -Dmain=hprofan_main (see the Makefile).
 */
#include "fuzz.h"
#include "helper/hpw.h"
#include "base/text.h"

#include <cjson/cJSON.h>
#include <fcntl.h>

int hprofan_main(int argc, char **argv);

#define NPIECES 7

/* 1 when p[0..n) is valid UTF-8 without C1 controls, DEL or, unless
 * `json`, a control character other than \n and \t (JSON escapes those) */
static int clean_text(const uint8_t *p, size_t n, int json)
{
	size_t i = 0;
	while (i < n) {
		unsigned c = p[i];
		if (c < 0x80) {
			if (c == 0x7f || (c < 0x20 && c != '\n' && c != '\t' && !json))
				return 0;
			if (json && c < 0x20 && c != '\n' && c != '\t')
				return 0;   /* cJSON escapes them in strings; raw ones are not JSON */
			i++;
			continue;
		}
		size_t k = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
		if (!k || n - i < k)
			return 0;
		for (size_t j = 1; j < k; j++)
			if ((p[i + j] & 0xc0) != 0x80)
				return 0;
		if ((c == 0xe0 && p[i + 1] < 0xa0) || (c == 0xed && p[i + 1] >= 0xa0) ||
		    (c == 0xf0 && p[i + 1] < 0x90) || (c == 0xf4 && p[i + 1] >= 0x90))
			return 0;
		if (c == 0xc2 && p[i + 1] <= 0x9f)
			return 0;   /* C1 */
		i += k;
	}
	return 1;
}

static void check(int ok, const char *what, const uint8_t *p, size_t n)
{
	if (ok)
		return;
	fprintf(stderr, "fuzz_cli: %s is not clean (%zu bytes):\n", what, n);
	for (size_t i = 0; i < n && i < 600; i++)
		fprintf(stderr, p[i] >= 0x20 && p[i] < 0x7f ? "%c" : "\\x%02x", p[i]);
	fputc('\n', stderr);
	abort();
}

/* the escapers alone */
static void escapers(const uint8_t *s, size_t n, unsigned size_seed)
{
	char *z = malloc(n + 1);
	if (!z)
		return;
	memcpy(z, s, n);
	z[n] = '\0';
	size_t cap = 1 + size_seed % 64;
	char *buf = malloc(cap);
	if (buf) {
		hp_text_safe(z, buf, cap);
		size_t l = strnlen(buf, cap);
		check(l < cap, "hp_text_safe's output (not terminated)", (const uint8_t *)buf, cap);
		check(clean_text((const uint8_t *)buf, l, 0), "hp_text_safe's output", (const uint8_t *)buf, l);
		free(buf);
	}
	char big[4 * 256 + 8];
	hp_text_safe(z, big, sizeof big);
	check(clean_text((const uint8_t *)big, strlen(big), 0), "hp_text_safe's output", (const uint8_t *)big, strlen(big));
	size_t need = hp_text_json_clean((const char *)s, n, NULL);
	char *out = malloc(need + 1);     /* exactly: ASan sees a byte more */
	if (out) {
		size_t l = hp_text_json_clean((const char *)s, n, out);
		check(l == need, "hp_text_json_clean's length", (const uint8_t *)out, l);
		/* control characters below 0x20 pass (cJSON has escaped those in
		 * its strings before); the rest must be clean */
		for (size_t i = 0; i < l; i++)
			if ((unsigned char)out[i] < 0x20)
				out[i] = ' ';
		check(clean_text((const uint8_t *)out, l, 1), "hp_text_json_clean's output", (const uint8_t *)out, l);
		free(out);
	}
	free(z);
}

/* ids */
enum { S_CLS = 1, S_FIELD, S_STATIC, S_HEAP, S_THREADNAME, S_OBJ, S_STR, S_CA, S_THREAD, S_VALUE,
       S_NAME, S_GONE };
#define C_OBJ 0x100
#define C_EVIL 0x108
#define C_STR 0x110
#define C_CA 0x118
#define C_THREAD 0x120
#define C_GONE 0x128
#define O_EVIL 0x1000
#define O_STR 0x1008
#define O_CHARS 0x1010
#define O_THREAD 0x1018
#define O_GONE 0x1020

static uint8_t *build(const uint8_t *piece[NPIECES], const size_t plen[NPIECES], unsigned flags, size_t *n)
{
	int android = flags & 1;
	hpw *w = hpw_new(android ? "JAVA PROFILE 1.0.3" : "JAVA PROFILE 1.0.2", 4, 0);
	hpw_string_n(w, S_CLS, piece[0], (uint32_t)plen[0]);
	hpw_string_n(w, S_FIELD, piece[1], (uint32_t)plen[1]);
	hpw_string_n(w, S_STATIC, piece[2], (uint32_t)plen[2]);
	hpw_string_n(w, S_HEAP, piece[3], (uint32_t)plen[3]);
	hpw_string_n(w, S_THREADNAME, piece[5], (uint32_t)plen[5]);
	hpw_string(w, S_OBJ, "java/lang/Object");
	hpw_string(w, S_STR, "java/lang/String");
	hpw_string(w, S_CA, "[C");
	hpw_string(w, S_THREAD, "java/lang/Thread");
	hpw_string(w, S_VALUE, "value");
	hpw_string(w, S_NAME, "name");
	uint8_t gone[260];
	gone[0] = 'G';
	memcpy(gone + 1, piece[0], plen[0]);
	hpw_string_n(w, S_GONE, gone, (uint32_t)plen[0] + 1);
	hpw_load_class(w, 1, C_OBJ, 0, S_OBJ);
	hpw_load_class(w, 2, C_EVIL, 0, S_CLS);
	hpw_load_class(w, 3, C_STR, 0, S_STR);
	hpw_load_class(w, 4, C_CA, 0, S_CA);
	hpw_load_class(w, 5, C_THREAD, 0, S_THREAD);
	if (flags & 32)
		hpw_load_class(w, 6, C_GONE, 0, S_GONE);
	hpw_start_thread(w, 1, O_THREAD, 0, S_THREADNAME, 0, 0);
	hpw_begin_dump(w, HPW_TAG_HEAP_DUMP_SEGMENT);
	if (android)
		hpw_heap_info(w, 1, S_HEAP);
	struct hpw_class c;
	memset(&c, 0, sizeof c);
	c.class_id = C_OBJ;
	hpw_class_dump(w, &c);
	struct hpw_instance_field ef[2] = { { S_FIELD, HPW_T_OBJECT }, { S_NAME, HPW_T_INT } };
	struct hpw_static_field sf = { S_STATIC, HPW_T_INT, 7 };
	c.class_id = C_EVIL;
	c.super_id = C_OBJ;
	c.instance_size = 8;
	c.nfields = 2;
	c.fields = ef;
	c.nstatics = 1;
	c.statics = &sf;
	hpw_class_dump(w, &c);
	struct hpw_instance_field stf = { S_VALUE, HPW_T_OBJECT };
	memset(&c, 0, sizeof c);
	c.class_id = C_STR;
	c.super_id = C_OBJ;
	c.instance_size = 4;
	c.nfields = 1;
	c.fields = &stf;
	hpw_class_dump(w, &c);
	struct hpw_instance_field tf = { S_NAME, HPW_T_OBJECT };
	c.class_id = C_THREAD;
	c.fields = &tf;
	hpw_class_dump(w, &c);
	memset(&c, 0, sizeof c);
	c.class_id = C_CA;
	c.super_id = C_OBJ;
	hpw_class_dump(w, &c);
	hpw_prim_array(w, O_CHARS, 0, HPW_T_CHAR, (uint32_t)(plen[4] / 2), piece[4], plen[4] / 2 * 2);
	hpw_instance_begin(w, O_STR, 0, C_STR);
	hpw_value(w, HPW_T_OBJECT, O_CHARS);
	hpw_instance_end(w);
	hpw_instance_begin(w, O_EVIL, 0, C_EVIL);
	hpw_value(w, HPW_T_OBJECT, O_STR);
	hpw_value(w, HPW_T_INT, 1);
	hpw_instance_end(w);
	hpw_instance_begin(w, O_THREAD, 0, C_THREAD);
	hpw_value(w, HPW_T_OBJECT, O_STR);
	hpw_instance_end(w);
	if (flags & 32)
		hpw_instance(w, O_GONE, 0, C_GONE, NULL, 0);
	hpw_root_jni_global(w, O_EVIL, 0);
	hpw_root_thread_object(w, O_THREAD, 1, 0);
	hpw_root_java_frame(w, O_STR, 1, 0);
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 4096)
		return 0;
	/* the dump is a memfd: no index beside it (fuzz_index fuzzes the reader) */
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
		escapers(piece[i], plen[i], (unsigned)(plen[i] ? piece[i][0] : 0) + (unsigned)plen[i]);
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

	char idbuf[32], heap[260], pat[260];
	snprintf(idbuf, sizeof idbuf, "0x%x", O_EVIL);
	memcpy(heap, piece[3], plen[3]);
	heap[plen[3]] = '\0';
	memcpy(pat, piece[6], plen[6]);
	pat[plen[6]] = '\0';
	const char *argv[16];
	int argc = 0;
	argv[argc++] = "hprofan";
	switch ((flags >> 1) & 7) {
	case 0: argv[argc++] = path; argv[argc++] = "--top"; argv[argc++] = "0"; break;
	case 1: argv[argc++] = path; argv[argc++] = "--fast"; break;
	case 2: argv[argc++] = "info"; argv[argc++] = path; break;
	case 3: argv[argc++] = "dominators"; argv[argc++] = path; argv[argc++] = "--depth"; argv[argc++] = "5"; break;
	case 4: argv[argc++] = "roots"; argv[argc++] = path; break;
	case 5: argv[argc++] = "object"; argv[argc++] = path; argv[argc++] = idbuf; break;
	case 6: argv[argc++] = "path"; argv[argc++] = path; argv[argc++] = idbuf; break;
	default: argv[argc++] = path; argv[argc++] = "--heap"; argv[argc++] = heap; break;
	}
	int json = (flags & 16) != 0;
	if (json)
		argv[argc++] = "--json";
	if ((flags & 64) && ((flags >> 1) & 7) <= 3) {
		argv[argc++] = "--filter";
		argv[argc++] = pat;
	}
	argv[argc++] = "--quiet";
	argv[argc] = NULL;

	/* stdout and stderr into memory files while hprofan runs */
	int out = memfd_create("fuzz-out", MFD_CLOEXEC), err = memfd_create("fuzz-err", MFD_CLOEXEC);
	if (out < 0 || err < 0) {
		if (out >= 0)
			close(out);
		if (err >= 0)
			close(err);
		close(fd);
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
	if (o && e && getenv("FUZZ_CLI_SHOW")) {
		fprintf(stderr, "fuzz_cli:");
		for (int i = 0; i < argc; i++)
			fprintf(stderr, " %s", argv[i]);
		fprintf(stderr, " -> exit %d\n", rc);
		fwrite(o, 1, no, stderr);
		fwrite(e, 1, ne, stderr);
	}
	if (o && e) {
		check(clean_text(e, ne, 0), "stderr", e, ne);
		if (json && rc == 0) {
			check(clean_text(o, no, 1), "the JSON", o, no);
			cJSON *j = cJSON_ParseWithLength((const char *)o, no);
			check(j != NULL, "the JSON (cJSON cannot parse it)", o, no);
			cJSON_Delete(j);
		} else {
			check(clean_text(o, no, 0), "stdout", o, no);
		}
	}
	free(o);
	free(e);
	return 0;
}
