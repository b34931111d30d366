/*
 * test_base.c — src/base's hashes against their published test vectors
 * (XXH64's from xxHash, FNV-1a's from its authors' page, CRC-32C's check
 * value and RFC 3720's, B.4), CRC-32C's instruction against its tables on
 * random lengths and alignments, the escaping of
 * text for the terminal and for JSON, and the nearest names ("did you
 * mean"), whose distances are counted by hand; the comparisons of (key,
 * tie) pairs, and the growable arrays and texts (sizes counted by hand).
 */
#include "base/alloc.h"
#include "base/cmp.h"
#include "base/hash.h"
#include "base/nearest.h"
#include "base/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int passed, failed;
#define CHECK(cond, ...) do { if (cond) passed++; else { failed++; printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } } while (0)

/* CRC-32C: the check value and RFC 3720's vectors (B.4), from both paths;
 * the instruction (where the processor has it) and the tables agree on
 * random lengths, alignments and starting values, whole and in lanes; the
 * lanes are the CRCs of the thirds hash.h says */
static void test_crc32c(void)
{
	unsigned char v[48];
	static const struct { const char *what; uint32_t want; } rfc[] = {
		{ "32 bytes of 0x00", 0x8A9136AAu }, { "32 bytes of 0xFF", 0x62A8AB43u },
		{ "bytes 0..31", 0x46DD794Eu }, { "bytes 31..0", 0x113FDB5Cu },
		{ "an iSCSI read command", 0xD9963A56u },
	};
	static const unsigned char iscsi[48] = {
		0x01, 0xc0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0x14, 0, 0, 0, 0, 0, 0x04, 0, 0, 0, 0, 0x14, 0, 0, 0, 0x18,
		0x28, 0, 0, 0, 0, 0, 0, 0, 0x02, 0, 0, 0, 0, 0, 0, 0,
	};
	CHECK(hp_crc32c(0, "123456789", 9) == 0xE3069283u && hp_crc32c_tables(0, "123456789", 9) == 0xE3069283u,
	      "crc32c('123456789') %08x, tables %08x", hp_crc32c(0, "123456789", 9), hp_crc32c_tables(0, "123456789", 9));
	CHECK(hp_crc32c(0, "", 0) == 0 && hp_crc32c(0x1234u, "", 0) == 0x1234u, "crc32c of nothing");
	CHECK(hp_crc32c(hp_crc32c(0, "1234", 4), "56789", 5) == 0xE3069283u, "crc32c in pieces");
	for (size_t k = 0; k < sizeof rfc / sizeof rfc[0]; k++) {
		size_t n = k == 4 ? 48 : 32;
		for (size_t i = 0; i < n; i++)
			v[i] = k == 0 ? 0 : k == 1 ? 0xff : k == 2 ? (unsigned char)i : k == 3 ? (unsigned char)(31 - i) : iscsi[i];
		CHECK(hp_crc32c(0, v, n) == rfc[k].want && hp_crc32c_tables(0, v, n) == rfc[k].want,
		      "crc32c(%s) %08x, tables %08x, RFC 3720 %08x", rfc[k].what, hp_crc32c(0, v, n),
		      hp_crc32c_tables(0, v, n), rfc[k].want);
	}

	enum { MAX = 3 * 4096 + 100 };
	unsigned char *buf = malloc(MAX + 8);
	if (!buf) {
		CHECK(0, "no memory");
		return;
	}
	uint64_t x = 0x9E3779B97F4A7C15ull;
	for (size_t i = 0; i < MAX + 8; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		buf[i] = (unsigned char)(x >> 24);
	}
	int bad = 0, badl = 0;
	for (int t = 0; t < 2000; t++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		size_t al = (size_t)(x % 8), n = t < 100 ? (size_t)t : (size_t)((x >> 8) % (MAX - 7));
		uint32_t seed = t & 1 ? (uint32_t)(x >> 32) : 0;
		const unsigned char *p = buf + al;
		bad += hp_crc32c(seed, p, n) != hp_crc32c_tables(seed, p, n);
		uint32_t hw[3], sw[3];
		hp_crc32c_lanes3(p, n, hw);
		hp_crc32c_lanes3_tables(p, n, sw);
		size_t L = n / 24 * 8;
		badl += memcmp(hw, sw, sizeof hw) || hw[0] != hp_crc32c_tables(0, p, L) ||
			hw[1] != hp_crc32c_tables(0, p + L, L) || hw[2] != hp_crc32c_tables(0, p + 2 * L, n - 2 * L);
	}
	CHECK(!bad, "crc32c: the instruction and the tables differ %d times in 2000", bad);
	CHECK(!badl, "crc32c lanes: the instruction, the tables and the thirds differ %d times in 2000", badl);
	free(buf);
}

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
	test_crc32c();

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

	/* edit distance: a swap costs 1 (Levenshtein would say 2), case folded on request */
	CHECK(hp_near_distance("--tpo", "--top", 3, 0) == 1, "swap: %u", hp_near_distance("--tpo", "--top", 3, 0));
	CHECK(hp_near_distance("kitten", "sitting", 5, 0) == 3, "kitten/sitting: %u",
	      hp_near_distance("kitten", "sitting", 5, 0));
	CHECK(hp_near_distance("ca", "abc", 5, 0) == 3, "OSA, not unrestricted: %u", hp_near_distance("ca", "abc", 5, 0));
	CHECK(hp_near_distance("mDestroyed", "mdestroyed", 3, 0) == 1 &&
	      hp_near_distance("mDestroyed", "mdestroyed", 3, 1) == 0, "case folded");
	CHECK(hp_near_distance("", "abc", 5, 0) == 3 && hp_near_distance("abc", "", 5, 0) == 3, "empty words");
	/* the cap: past it the answer is cap + 1, however far */
	CHECK(hp_near_distance("aaaaaaaaaa", "bbbbbbbbbb", 2, 0) == 3, "capped: %u",
	      hp_near_distance("aaaaaaaaaa", "bbbbbbbbbb", 2, 0));
	CHECK(hp_near_distance("abcdefgh", "abcdefghijk", 2, 0) == 3, "length apart past the cap");
	CHECK(hp_near_distance("abcdefgh", "badcfehg", 4, 0) == 4, "four swaps: %u",
	      hp_near_distance("abcdefgh", "badcfehg", 4, 0));
	CHECK(hp_near_distance("abcdefgh", "badcfehg", 3, 0) == 4, "four swaps past a cap of 3");
	char longw[300];
	memset(longw, 'x', sizeof longw - 1);
	longw[sizeof longw - 1] = '\0';
	CHECK(hp_near_distance(longw, longw, 1, 0) == 0, "words past HP_NEAR_LEN are cut, not overrun");
	/* a shared start and end, and the band: the same distances */
	CHECK(hp_near_distance("com.example.CheckoutSession", "com.example.CheckoutSesion", 1, 0) == 1,
	      "shared start and end: %u", hp_near_distance("com.example.CheckoutSession", "com.example.CheckoutSesion", 1, 0));
	CHECK(hp_near_distance("xxxxab", "xxxxba", 1, 0) == 1 && hp_near_distance("abyyyy", "bayyyy", 1, 0) == 1,
	      "a swap next to the shared part");
	CHECK(hp_near_distance("abcdefghij", "bcdefghijk", 2, 0) == 2 && hp_near_distance("abcdefghij", "bcdefghijk", 1, 0) == 2,
	      "one off the diagonal all along: in the band of 2, past the cap of 1");
	CHECK(hp_near_distance("abc", "xyz", 1000, 0) == 3, "a cap past HP_NEAR_LEN: %u", hp_near_distance("abc", "xyz", 1000, 0));
	CHECK(hp_near_distance("Session", "session", 0, 1) == 0 && hp_near_distance("Session", "session", 0, 0) == 1,
	      "a cap of 0");
	/* the nearest names: ties by name, each name once, the cap */
	struct hp_near nn;
	hp_near_init(&nn, "--tpo", 2, 0);
	const char *offers[] = { "--stats", "--top", "--tops", "--json", "--top", "--tp", "--sort" };
	for (size_t i = 0; i < sizeof offers / sizeof offers[0]; i++)
		hp_near_offer(&nn, offers[i]);
	char line[200];
	size_t k = hp_near_join(&nn, 0, 0, line, sizeof line);
	CHECK(k == 2 && !strcmp(line, "--top, --tp"), "the nearest: %zu '%s'", k, line);
	k = hp_near_join(&nn, '\'', 1, line, sizeof line);
	CHECK(nn.n == 3 && k == 3 && !strcmp(line, "'--top', '--tp', '--tops'"), "all kept: %zu '%s'", k, line);
	k = hp_near_join(&nn, 0, 1, line, 9);
	CHECK(k == 1 && !strcmp(line, "--top"), "a name that does not fit is left out: '%s'", line);
	/* the reach: the cap until HP_NEAR_MAX names are kept, then the farthest kept */
	hp_near_init(&nn, "--tpo", 2, 0);
	CHECK(hp_near_reach(&nn) == 2, "reach: the cap");
	hp_near_offer(&nn, "--top");
	hp_near_offer(&nn, "--tp");
	CHECK(hp_near_reach(&nn) == 2, "reach: two kept, the cap");
	hp_near_offer(&nn, "--tpoo");
	CHECK(hp_near_reach(&nn) == 1, "reach: three kept at 1: %u", hp_near_reach(&nn));
	hp_near_offer(&nn, "--ab");
	hp_near_offer(&nn, "--to");
	k = hp_near_join(&nn, 0, 1, line, sizeof line);
	CHECK(k == 3 && !strcmp(line, "--to, --top, --tp"), "a tie that sorts first still comes in: '%s'", line);

	/* three-way comparisons: the first pair that differs decides */
	CHECK(hp_cmp_u64(1, 2) == -1 && hp_cmp_u64(2, 1) == 1 && hp_cmp_u64(7, 7) == 0, "cmp_u64");
	CHECK(hp_cmp_u64(0, UINT64_MAX) == -1 && hp_cmp_u64(UINT64_MAX, 0) == 1, "cmp_u64 at the ends");
	CHECK(hp_cmp2_u64(1, 2, 9, 0) == -1 && hp_cmp2_u64(3, 3, 9, 0) == 1 && hp_cmp2_u64(3, 3, 4, 4) == 0,
	      "cmp2: the key, then the tie");
	CHECK(hp_cmp3_u64(5, 5, 1, 1, 0, 2) == -1 && hp_cmp3_u64(5, 5, 2, 1, 0, 2) == 1, "cmp3");
	CHECK(hp_cmp4_u64(1, 1, 2, 2, 3, 3, 5, 4) == 1 && hp_cmp4_u64(1, 1, 2, 2, 3, 3, 4, 4) == 0 &&
	      hp_cmp4_u64(0, 1, 9, 0, 9, 0, 9, 0) == -1, "cmp4");

	/* growable arrays: first, then doubled until need fits; p kept when it has room */
	size_t cap = 0;
	int *arr = hp_grow(NULL, &cap, 1, 4, sizeof *arr);
	CHECK(arr && cap == 4, "grow from nothing: first (%zu)", cap);
	int *same = hp_grow(arr, &cap, 4, 4, sizeof *arr);
	CHECK(same == arr && cap == 4, "grow with room: the same array");
	arr = hp_grow(arr, &cap, 5, 4, sizeof *arr);
	CHECK(arr && cap == 8, "grow past cap: doubled (%zu)", cap);
	arr = hp_grow(arr, &cap, 33, 4, sizeof *arr);
	CHECK(arr && cap == 64, "grow far past cap: doubled until it fits (%zu)", cap);
	size_t huge = SIZE_MAX / 2 + 1;
	CHECK(!hp_grow(arr, &huge, SIZE_MAX, 4, 1) && huge == SIZE_MAX / 2 + 1,
	      "grow that cannot double: NULL, cap kept");
	CHECK(!hp_grow(arr, &cap, SIZE_MAX / 4, 4, 64) && cap == 64, "grow past memory: NULL, cap kept");
	hp_free(arr);

	/* growable texts: each name NUL-terminated, at the offset returned */
	char *text = NULL;
	size_t tlen = 0, tcap = 0, o1 = 99, o2 = 99;
	CHECK(!hp_grow_text(&text, &tlen, &tcap, 4, "abc", 3, &o1) && o1 == 0 && tlen == 4 && tcap == 4,
	      "text: the first name fills first (%zu of %zu)", tlen, tcap);
	CHECK(!hp_grow_text(&text, &tlen, &tcap, 4, "defgh", 5, &o2) && o2 == 4 && tlen == 10 && tcap == 16,
	      "text: the second after it, doubled to fit (%zu of %zu)", tlen, tcap);
	CHECK(!strcmp(text + o1, "abc") && !strcmp(text + o2, "defgh"), "text: both names read back");
	CHECK(hp_grow_text(&text, &tlen, &tcap, 4, "x", SIZE_MAX - 4, &o1) == -1 && tlen == 10,
	      "text: a length past memory refused, the text as it was");
	hp_free(text);

	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
