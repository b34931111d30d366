/*
 * test_base.c — src/base's hashes against their published test vectors
 * (XXH64's from xxHash, FNV-1a's from its authors' page), the index's
 * section sum built on XXH64 (docs/index-format.md), and the escaping of
 * text for the terminal and for JSON.
 */
#include "base/hash.h"
#include "base/text.h"

#include <stdio.h>
#include <string.h>

static int passed, failed;
#define CHECK(cond, ...) do { if (cond) passed++; else { failed++; printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } } while (0)

int main(void)
{
	/* XXH64, seed 0 */
	CHECK(hp_xxh64("", 0, 0) == 0xEF46DB3751D8E999ull, "xxh64('') %016llx",
	      (unsigned long long)hp_xxh64("", 0, 0));
	CHECK(hp_xxh64("a", 1, 0) == 0xD24EC4F1A98C6E5Bull, "xxh64('a') %016llx",
	      (unsigned long long)hp_xxh64("a", 1, 0));
	CHECK(hp_xxh64("abc", 3, 0) == 0x44BC2CF5AD770999ull, "xxh64('abc') %016llx",
	      (unsigned long long)hp_xxh64("abc", 3, 0));
	/* past 32 bytes (the four lanes), and the tails of 8, 4 and 1 byte */
	char buf[100];
	for (int i = 0; i < 100; i++)
		buf[i] = (char)i;
	uint64_t a = hp_xxh64(buf, 100, 0), b = hp_xxh64(buf, 100, 1);
	CHECK(a != b, "xxh64: the seed changes the hash");
	buf[99] ^= 1;
	CHECK(hp_xxh64(buf, 100, 0) != a, "xxh64: a flipped bit changes the hash");

	/* FNV-1a 64 */
	CHECK(hp_fnv1a_str(HP_FNV1A_INIT, "") == 0xcbf29ce484222325ull, "fnv1a('')");
	CHECK(hp_fnv1a_str(HP_FNV1A_INIT, "a") == 0xaf63dc4c8601ec8cull, "fnv1a('a') %016llx",
	      (unsigned long long)hp_fnv1a_str(HP_FNV1A_INIT, "a"));
	CHECK(hp_fnv1a_str(HP_FNV1A_INIT, "foobar") == 0x85944171f73967e8ull, "fnv1a('foobar') %016llx",
	      (unsigned long long)hp_fnv1a_str(HP_FNV1A_INIT, "foobar"));
	/* in pieces, and a byte at a time: the same */
	uint64_t h = hp_fnv1a(hp_fnv1a(HP_FNV1A_INIT, "foo", 3), "bar", 3), g = HP_FNV1A_INIT;
	for (const char *p = "foobar"; *p; p++)
		g = hp_fnv1a_byte(g, (unsigned char)*p);
	CHECK(h == 0x85944171f73967e8ull && g == h, "fnv1a in pieces");
	CHECK(hp_fmix64(0) == 0 && hp_fmix64(1) != 1, "fmix64");

	/* text for the terminal */
	char out[64];
	CHECK(!strcmp(hp_text_safe("a\x1b[2Jb", out, sizeof out), "a\\x1b[2Jb"), "escape sequence: %s", out);
	CHECK(!strcmp(hp_text_safe("\xc2\x9b" "x", out, sizeof out), "\\xc2\\x9bx"), "C1 control: %s", out);
	CHECK(!strcmp(hp_text_safe("caf\xc3\xa9", out, sizeof out), "caf\xc3\xa9"), "UTF-8 kept: %s", out);
	CHECK(!strcmp(hp_text_safe("\xff", out, sizeof out), "\\xff"), "invalid byte: %s", out);
	hp_text_safe("abcdefghijkl", out, 8);
	CHECK(strlen(out) < 8, "cut to the buffer: %s", out);

	/* text for JSON */
	const char *in = "\"x\x7f\xff\"";
	size_t need = hp_text_json_clean(in, strlen(in), NULL);
	char j[64];
	size_t got = hp_text_json_clean(in, strlen(in), j);
	CHECK(need == got && !strcmp(j, "\"x\\u007f\xef\xbf\xbd\""), "json clean: %s (%zu, %zu)", j, need, got);

	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
