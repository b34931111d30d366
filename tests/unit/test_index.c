/*
 * test_index.c — the section sum of the index (docs/index-format.md): each
 * 1 MiB block's sum is XXH64 (seed: the block's length) of the CRC-32Cs of
 * its three lanes, then XXH64 (seed: the section's length) of the blocks'
 * sums.  The expected values were computed without this code: CRC-32C
 * bit by bit in Python (checked against its check value), XXH64 by the
 * xxHash library itself (libxxhash 0.8.1 through Python's ctypes):
 *
 *   import ctypes, ctypes.util, struct
 *   x = ctypes.CDLL(ctypes.util.find_library('xxhash'))
 *   x.XXH64.restype = ctypes.c_uint64
 *   x.XXH64.argtypes = (ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint64)
 *   def XXH64(b, seed): return x.XXH64(b, len(b), seed)
 *   def crc32c(b):
 *       c = 0xFFFFFFFF
 *       for v in b:
 *           c ^= v
 *           for _ in range(8):
 *               c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
 *       return c ^ 0xFFFFFFFF
 *   assert crc32c(b'123456789') == 0xE3069283
 *   def block(b):
 *       n = len(b); L = n // 24 * 8
 *       return XXH64(struct.pack('<III', crc32c(b[:L]), crc32c(b[L:2 * L]), crc32c(b[2 * L:])), n)
 *   def data(n): return bytes(((i * 131 + (i >> 11) * 7 + 3) & 0xff) for i in range(n))
 *   B, d = 1 << 20, data(n)
 *   blocks = b''.join(struct.pack('<Q', block(d[o:o + B])) for o in range(0, n, B))
 *   want = XXH64(blocks, n)
 *
 * on lengths that cover the empty input, blocks too short for the first
 * two lanes (< 24 bytes), lanes of one word with and without a tail, one
 * block, its edges, and several blocks (whose sums XXH64 takes in its
 * 32-byte stripes).
 *
 * And what tests/cli/index_hostile.sh forges indexes with (the sums and
 * CRCs set to what the bytes give, so that only the reader's checks stand
 * between a forged field and the commands):
 *   test_index --field NAME                  SECTION-ID OFFSET SIZE of an image's field
 *   test_index --poke INDEX SECTION-ID OFFSET HEX   those bytes written there
 *   test_index --replace INDEX SECTION-ID OLD NEW   the first OLD in the section made NEW (as long)
 */
#include "session/index.h"
#include "session/session.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static int passed, failed;
#define CHECK(cond, ...) do { if (cond) passed++; else { failed++; printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } } while (0)

static const struct { uint64_t n, want; } cases[] = {
	{ 0, 0xef46db3751d8e999ull },   /* XXH64 of nothing, seed 0 */
	{ 3, 0x885b1a11b8fc7c16ull },
	{ 23, 0x4e8eb337f8e93b0aull },
	{ 24, 0xf3137f4f8db1d5ceull },
	{ 31, 0x6b5363228fa9e3ddull },
	{ 32, 0x72ffcea9ba2dbb77ull },
	{ 47, 0xd24e269941f4038full },
	{ 100, 0x1ea9ccde7ae4bd57ull },
	{ 1048575, 0x08d66e5728d094eeull },
	{ 1048576, 0xed467ff49e413003ull },
	{ 1048581, 0x1ec4bf743ca14532ull },
	{ 3145745, 0x854b7406e07d9ce6ull },
};

/* ---- trust ------------------------------------------------------------------ */

static void mkfile(const char *path, mode_t mode)
{
	FILE *f = fopen(path, "wb");
	if (f) {
		fputs("not an index", f);
		fclose(f);
	}
	chmod(path, mode);
}

/* hp_index_place() on what may be at an index path (and hp_index_open()
 * on a FIFO, which must not block) */
static void test_trust(void)
{
	char dir[] = "/tmp/test_index.XXXXXX", p[256], q[256], why[160];
	if (!mkdtemp(dir)) {
		CHECK(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	int root = geteuid() == 0, ex = -1;
	snprintf(p, sizeof p, "%s/x.hprofan-index", dir);
	CHECK(hp_index_place(p, &ex, why, sizeof why) == HP_INDEX_MISSING && ex == 0, "missing: %s", why);
	mkfile(p, 0600);
	CHECK(hp_index_place(p, &ex, why, sizeof why) == HP_INDEX_OK && ex == 1, "0600: %s", why);
	chmod(p, 0644);
	CHECK(hp_index_place(p, NULL, why, sizeof why) == HP_INDEX_OK, "0644: %s", why);
	chmod(p, 0666);
	CHECK(hp_index_place(p, NULL, why, sizeof why) == HP_INDEX_UNTRUSTED && strstr(why, "writable by others"),
	      "0666: %s", why);
	chmod(p, 0620);
	CHECK(hp_index_place(p, NULL, why, sizeof why) == HP_INDEX_UNTRUSTED && strstr(why, "writable by its group"),
	      "0620: %s", why);
	chmod(p, 0600);
	if (root && chown(p, 12345, 0) == 0) {
		CHECK(hp_index_place(p, NULL, why, sizeof why) == HP_INDEX_UNTRUSTED && strstr(why, "uid 12345"),
		      "uid 12345: %s", why);
		CHECK(chown(p, 0, 0) == 0, "chown back");
	}
	/* a link to a trusted file is refused all the same */
	snprintf(q, sizeof q, "%s/link.hprofan-index", dir);
	CHECK(symlink(p, q) == 0, "symlink");
	CHECK(hp_index_place(q, &ex, why, sizeof why) == HP_INDEX_UNTRUSTED && ex == 1 && strstr(why, "symbolic link"),
	      "symlink: %s", why);
	unlink(q);
	/* a FIFO: refused, and neither call blocks on it */
	snprintf(q, sizeof q, "%s/fifo.hprofan-index", dir);
	CHECK(mkfifo(q, 0600) == 0, "mkfifo");
	CHECK(hp_index_place(q, NULL, why, sizeof why) == HP_INDEX_UNTRUSTED && strstr(why, "FIFO"), "FIFO: %s", why);
	struct hp_index_ident id = { 0 };
	struct hp_index_key key = { 0 };
	hp_index *ix = NULL;
	CHECK(hp_index_open(&ix, q, &id, &key, why, sizeof why) == HP_INDEX_UNTRUSTED && !ix, "open a FIFO: %s", why);
	unlink(q);
	/* the directory: writable by others, but for the sticky bit; another uid's */
	chmod(dir, 0777);
	CHECK(hp_index_place(p, &ex, why, sizeof why) == HP_INDEX_UNTRUSTED && ex == 1 && strstr(why, "its directory"),
	      "in 0777: %s", why);
	unlink(p);
	CHECK(hp_index_place(p, &ex, why, sizeof why) == HP_INDEX_UNTRUSTED && ex == 0, "none in 0777: %s", why);
	chmod(dir, 01777);
	CHECK(hp_index_place(p, NULL, why, sizeof why) == HP_INDEX_MISSING, "none in 1777: %s", why);
	mkfile(p, 0600);
	CHECK(hp_index_place(p, NULL, why, sizeof why) == HP_INDEX_OK, "in 1777: %s", why);
	if (root && chown(dir, 12345, 0) == 0) {
		CHECK(hp_index_place(p, NULL, why, sizeof why) == HP_INDEX_UNTRUSTED && strstr(why, "uid 12345"),
		      "in a directory of uid 12345: %s", why);
		CHECK(chown(dir, 0, 0) == 0, "chown back");
	}
	chmod(dir, 0700);
	unlink(p);
	rmdir(dir);
}

/* ---- forging ------------------------------------------------------------ */

/* the images' fields a forger may want (docs/index-format.md: sections 1,
 * 2, 3 and 55 are struct hp_heap, hp_load_info, hp_retained and
 * hp_pathsearch as they are in memory) */
static const struct { const char *name; unsigned sid; size_t off, size; } fields[] = {
	{ "heap.format", 1, offsetof(hp_heap, header.format), sizeof ((hp_heap *)0)->header.format },
	{ "heap.obj_serials.n", 1, offsetof(hp_heap, obj_serials.n), 4 },
	{ "heap.opts.dump_index", 1, offsetof(hp_heap, opts.dump_index), 4 },
	{ "heap.size.vm.jdk15", 1, offsetof(hp_heap, size.vm.jdk15), 4 },
	{ "load.format", 2, offsetof(struct hp_load_info, stats.header.format), sizeof ((hp_heap *)0)->header.format },
	{ "load.subrecords_by_tag", 2, offsetof(struct hp_load_info, stats.subrecords_by_tag), 8 },
	{ "ret.weak", 3, offsetof(struct hp_retained, weak), 4 },
	{ "paths.all_weak", 55, offsetof(struct hp_pathsearch, all_weak), 4 },
	{ "paths.bias", 55, offsetof(struct hp_pathsearch, P.bias), 4 },
};

static uint32_t rd32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t rd64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }

/* the index at path, its section sid changed by edit(), its sums and CRCs
 * fixed, written back in place (the same file: owner and mode kept) */
static int forge(const char *path, unsigned sid, int (*edit)(unsigned char *p, uint64_t len, char **argv), char **argv)
{
	FILE *f = fopen(path, "r+b");
	if (!f) {
		perror(path);
		return 2;
	}
	struct stat st;
	unsigned char *b = NULL;
	int rc = 2;
	if (fstat(fileno(f), &st) != 0 || st.st_size < 256 || !(b = malloc((size_t)st.st_size)) ||
	    fread(b, 1, (size_t)st.st_size, f) != (size_t)st.st_size)
		goto out;
	uint64_t n = (uint64_t)st.st_size, toff = rd64(b + 120);
	uint32_t nsec = rd32(b + 112);
	if (toff > n || nsec > (n - toff) / 32)
		goto out;
	for (uint32_t i = 0; i < nsec; i++) {
		unsigned char *e = b + toff + 32 * (uint64_t)i;
		uint64_t off = rd64(e + 8), len = rd64(e + 16);
		if (rd32(e) != sid || off > n || len > n - off)
			continue;
		if (edit(b + off, len, argv) != 0) {
			fprintf(stderr, "test_index: cannot make that change in section %u\n", sid);
			goto out;
		}
		uint64_t sum = hp_index_section_sum(b + off, len);
		memcpy(e + 24, &sum, 8);
		uint32_t c = (uint32_t)crc32(0, b + toff, (uInt)(nsec * 32));
		memcpy(b + 116, &c, 4);
		c = (uint32_t)crc32(0, b, 252);
		memcpy(b + 252, &c, 4);
		rewind(f);
		rc = fwrite(b, 1, (size_t)n, f) == (size_t)n ? 0 : 2;
		goto out;
	}
	fprintf(stderr, "test_index: %s has no section %u\n", path, sid);
out:
	if (fclose(f) != 0)
		rc = 2;
	free(b);
	return rc;
}

static int poke(unsigned char *p, uint64_t len, char **argv)
{
	uint64_t off = strtoull(argv[0], NULL, 0);
	const char *hex = argv[1];
	size_t k = strlen(hex) / 2;
	if (off > len || k > len - off)
		return -1;
	for (size_t i = 0; i < k; i++) {
		unsigned v;
		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return -1;
		p[off + i] = (unsigned char)v;
	}
	return 0;
}

static int replace(unsigned char *p, uint64_t len, char **argv)
{
	size_t k = strlen(argv[0]);
	if (!k || strlen(argv[1]) != k)
		return -1;
	for (uint64_t i = 0; i + k <= len; i++)
		if (!memcmp(p + i, argv[0], k)) {
			memcpy(p + i, argv[1], k);
			return 0;
		}
	return -1;
}

static int tool(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--field")) {
		for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
			if (!strcmp(argv[2], fields[i].name)) {
				printf("%u %zu %zu\n", fields[i].sid, fields[i].off, fields[i].size);
				return 0;
			}
		fprintf(stderr, "test_index: no field %s\n", argv[2]);
		return 2;
	}
	if (argc == 6 && !strcmp(argv[1], "--poke"))
		return forge(argv[2], (unsigned)strtoul(argv[3], NULL, 0), poke, argv + 4);
	if (argc == 6 && !strcmp(argv[1], "--replace"))
		return forge(argv[2], (unsigned)strtoul(argv[3], NULL, 0), replace, argv + 4);
	fprintf(stderr, "usage: test_index [--field NAME | --poke INDEX SECTION OFFSET HEX | "
		"--replace INDEX SECTION OLD NEW]\n");
	return 2;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		return tool(argc, argv);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	printf("skip: the expected sums read words little-endian\n");
	printf("0 passed, 0 failed\n");
	return 0;
#endif
	uint64_t max = 3145745;
	unsigned char *d = malloc(max);
	if (!d)
		return 1;
	for (uint64_t i = 0; i < max; i++)
		d[i] = (unsigned char)((i * 131 + (i >> 11) * 7 + 3) & 0xff);
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		uint64_t got = hp_index_section_sum(d, cases[k].n);
		CHECK(got == cases[k].want, "%llu bytes: sum %016llx, Python and xxHash give %016llx", (unsigned long long)cases[k].n,
		      (unsigned long long)got, (unsigned long long)cases[k].want);
	}
	/* a byte flipped anywhere (each block, its first and last byte, each
	 * lane of the first) changes it */
	uint64_t n = 3145745, base = hp_index_section_sum(d, n);
	const uint64_t at[] = { 0, 349520 + 5, 2 * 349520 + 5, 1048575, 1048576, 2097151 + 77, n - 1 };
	for (size_t k = 0; k < sizeof at / sizeof at[0]; k++) {
		d[at[k]] ^= 0x10;
		CHECK(hp_index_section_sum(d, n) != base, "byte %llu flipped: same sum", (unsigned long long)at[k]);
		d[at[k]] ^= 0x10;
	}
	CHECK(hp_index_section_sum(d, n) == base, "sum not repeatable");
	free(d);
	test_trust();
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
