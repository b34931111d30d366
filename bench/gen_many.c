/*
 * gen_many.c — writes a synthetic HPROF heap dump of N objects to standard
 * output, for `make bench-many` (issue 32: past 2^32 objects).  Memory and
 * time do not grow with N: the records are made one block at a time and
 * only their ids change from block to block.
 *
 *   gen_many N [-o FILE]
 *
 * The dump (JAVA PROFILE 1.0.2, 8-byte ids): java.lang.Object and two
 * classes, Many$A (no fields) and Many$B (one int field, 7), a segment
 * with their CLASS DUMPs and a root, then the N objects in heap dump
 * segments of 2^20 objects each: three in every eight an instance of Many$A with no field bytes,
 * two an instance of Many$B with its int, three an empty byte[]; ids 16
 * apart from 0x100000000 up, so that past 2^28 objects they pass 2^32.
 * The first object is a GC root (ROOT UNKNOWN).  On standard error, one
 * line: the counts a reader must find, as
 *   gen_many: objects=N A=a B=b byte[]=c bytes=TOTAL
 * Exit 0, or 1 when a write fails (a closed pipe included: SIGPIPE is
 * ignored, so that it is said).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <signal.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEG_OBJECTS (1u << 20)
#define CLASS_OBJ 0x10000
#define CLASS_A 0x10010
#define CLASS_B 0x10020
#define FIRST_ID 0x100000000ull

static FILE *out;
static uint64_t written;

static void put(const void *p, size_t n)
{
	if (fwrite(p, 1, n, out) != n) {
		fprintf(stderr, "gen_many: write failed after %" PRIu64 " bytes: %s\n", written, strerror(errno));
		exit(1);
	}
	written += n;
}

static size_t be(uint8_t *p, uint64_t v, int n)
{
	for (int i = n - 1; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
	return (size_t)n;
}

static void record(uint8_t tag, const uint8_t *body, uint32_t len)
{
	uint8_t h[9];
	h[0] = tag;
	be(h + 1, 0, 4);
	be(h + 5, len, 4);
	put(h, sizeof h);
	put(body, len);
}

static void string(uint64_t id, const char *s)
{
	uint8_t b[256];
	size_t n = strlen(s);
	be(b, id, 8);
	memcpy(b + 8, s, n);
	record(0x01, b, (uint32_t)(8 + n));
}

static void load_class(uint32_t serial, uint64_t cid, uint64_t name)
{
	uint8_t b[24];
	size_t k = be(b, serial, 4);
	k += be(b + k, cid, 8);
	k += be(b + k, 0, 4);
	k += be(b + k, name, 8);
	record(0x02, b, (uint32_t)k);
}

/* a CLASS DUMP into p: no statics, nf int fields named by field_name */
static size_t class_dump(uint8_t *p, uint64_t cid, uint64_t super, uint32_t size, int nf, uint64_t field_name)
{
	size_t k = 0;
	p[k++] = 0x20;
	k += be(p + k, cid, 8);
	k += be(p + k, 0, 4);
	k += be(p + k, super, 8);
	for (int i = 0; i < 5; i++)   /* loader, signers, protection domain, two reserved */
		k += be(p + k, 0, 8);
	k += be(p + k, size, 4);
	k += be(p + k, 0, 2);         /* constant pool */
	k += be(p + k, 0, 2);         /* statics */
	k += be(p + k, (uint64_t)nf, 2);
	for (int i = 0; i < nf; i++) {
		k += be(p + k, field_name, 8);
		p[k++] = 10;              /* int */
	}
	return k;
}

/* one object's record: kind 0..7 of the eight (see the header) */
static size_t object(uint8_t *p, uint64_t id, unsigned kind)
{
	size_t k = 0;
	if (kind < 5) {
		int b = kind >= 3;
		p[k++] = 0x21;
		k += be(p + k, id, 8);
		k += be(p + k, 0, 4);
		k += be(p + k, b ? CLASS_B : CLASS_A, 8);
		k += be(p + k, b ? 4 : 0, 4);
		if (b)
			k += be(p + k, 7, 4);
	} else {
		p[k++] = 0x23;
		k += be(p + k, id, 8);
		k += be(p + k, 0, 4);
		k += be(p + k, 0, 4);     /* no elements */
		p[k++] = 8;               /* byte */
	}
	return k;
}

int main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN);   /* a closed pipe: the write fails, said */
	out = stdout;
	if (argc == 4 && !strcmp(argv[2], "-o")) {
		if (!(out = fopen(argv[3], "wb"))) {
			fprintf(stderr, "gen_many: %s: %s\n", argv[3], strerror(errno));
			return 1;
		}
	} else if (argc != 2) {
		fprintf(stderr, "usage: gen_many N [-o FILE]\n");
		return 2;
	}
	char *end;
	errno = 0;
	uint64_t n = strtoull(argv[1], &end, 0);
	if (errno || *end || n == 0 || n > (UINT64_MAX - FIRST_ID) / 16) {
		fprintf(stderr, "gen_many: N must be a positive count: %s\n", argv[1]);
		return 2;
	}
	static char buf[1 << 22];
	setvbuf(out, buf, _IOFBF, sizeof buf);
	put("JAVA PROFILE 1.0.2", 19);
	uint8_t hd[12];
	be(hd, 8, 4);
	be(hd + 4, 0, 8);
	put(hd, sizeof hd);
	string(1, "java/lang/Object");
	string(2, "Many$A");
	string(3, "Many$B");
	string(4, "value");
	load_class(1, CLASS_OBJ, 1);
	load_class(2, CLASS_A, 2);
	load_class(3, CLASS_B, 3);

	/* the classes and the root in a segment of their own */
	uint8_t pre[512];
	size_t k = class_dump(pre, CLASS_OBJ, 0, 0, 0, 0);
	k += class_dump(pre + k, CLASS_A, CLASS_OBJ, 0, 0, 0);
	k += class_dump(pre + k, CLASS_B, CLASS_OBJ, 4, 1, 4);
	pre[k++] = 0xFF;              /* ROOT UNKNOWN: the first object */
	k += be(pre + k, FIRST_ID, 8);
	record(0x1C, pre, (uint32_t)k);

	/* one segment's records, made once (the kinds repeat every eight
	 * objects and a segment starts at a multiple of eight): then only the
	 * ids change, and the last segment is the first records of it */
	uint8_t *seg = malloc((size_t)SEG_OBJECTS * 29);
	size_t *at = malloc(((size_t)SEG_OBJECTS + 1) * sizeof *at);
	if (!seg || !at) {
		fprintf(stderr, "gen_many: out of memory\n");
		return 1;
	}
	k = 0;
	for (uint32_t i = 0; i < SEG_OBJECTS; i++) {
		at[i] = k;
		k += object(seg + k, 0, i & 7);
	}
	at[SEG_OBJECTS] = k;
	for (uint64_t done = 0; done < n;) {
		uint64_t m = n - done < SEG_OBJECTS ? n - done : SEG_OBJECTS;
		for (uint64_t i = 0; i < m; i++) {
			uint64_t id = __builtin_bswap64(FIRST_ID + 16 * (done + i));
			memcpy(seg + at[i] + 1, &id, 8);
		}
		record(0x1C, seg, (uint32_t)at[m]);
		done += m;
	}
	/* of each eight: 0-2 Many$A, 3-4 Many$B, 5-7 byte[] */
	uint64_t counts[3];
	counts[0] = n / 8 * 3 + (n % 8 < 3 ? n % 8 : 3);
	counts[1] = n / 8 * 2 + (n % 8 > 3 ? (n % 8 < 5 ? n % 8 - 3 : 2) : 0);
	counts[2] = n - counts[0] - counts[1];
	record(0x2C, NULL, 0);
	if (fflush(out) != 0 || (out != stdout && fclose(out) != 0)) {
		fprintf(stderr, "gen_many: write failed: %s\n", strerror(errno));
		return 1;
	}
	fprintf(stderr, "gen_many: objects=%" PRIu64 " A=%" PRIu64 " B=%" PRIu64 " byte[]=%" PRIu64 " bytes=%" PRIu64 "\n",
		n, counts[0], counts[1], counts[2], written);
	free(seg);
	free(at);
	return 0;
}
