/*
 * inflate.c — hp_inflate (inflate.h): a gzip member through zlib's inflate
 * (its gzip wrapper does the header and the trailer), or through ISA-L's
 * igzip, for which the header and the trailer are read here, with zlib's
 * checks and words at the same bytes (ISA-L 2.30 takes reserved flags,
 * misreads a header CRC whose header arrives in pieces, and checks CRC-32
 * and ISIZE as one), and the deflate data is ISA-L's.
 */
#include "parser/inflate.h"
#include "base/alloc.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#ifdef HP_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

/* one call's share: both libraries count in 32 bits */
#define STEP_MAX ((size_t)1 << 30)

/* the words in HPROFAN_INFLATE, separated by commas or spaces */
static int env_has(const char *word)
{
	const char *s = getenv("HPROFAN_INFLATE");
	size_t n = strlen(word);
	while (s && *s) {
		size_t k = strcspn(s, ", ");
		if (k == n && memcmp(s, word, n) == 0)
			return 1;
		s += k;
		s += strspn(s, ", ");
	}
	return 0;
}

int hp_inflate_default(void)
{
#ifdef HP_HAVE_ISAL
	if (!env_has("zlib"))
		return HP_INFLATE_ISAL;
#endif
	return HP_INFLATE_ZLIB;
}

int hp_inflate_serial(void)
{
	return env_has("serial");
}

const char *hp_inflate_kind_name(int kind)
{
	return kind == HP_INFLATE_ISAL ? "isal" : "zlib";
}

/* ---- zlib ----------------------------------------------------------------- */

static int zlib_step(hp_inflate *z, const char **why)
{
	z_stream *s = z->impl;
	uInt in = (uInt)(z->avail_in < STEP_MAX ? z->avail_in : STEP_MAX);
	uInt out = (uInt)(z->avail_out < STEP_MAX ? z->avail_out : STEP_MAX);
	s->next_in = (Bytef *)(uintptr_t)z->next_in;
	s->avail_in = in;
	s->next_out = z->next_out;
	s->avail_out = out;
	int zrc = inflate(s, Z_NO_FLUSH);
	z->next_in += in - s->avail_in;
	z->avail_in -= in - s->avail_in;
	z->next_out += out - s->avail_out;
	z->avail_out -= out - s->avail_out;
	if (zrc == Z_STREAM_END)
		return HP_INFLATE_END;
	if (zrc == Z_OK || (zrc == Z_BUF_ERROR && z->avail_in == 0))
		return HP_INFLATE_MORE;
	*why = s->msg ? s->msg : "inflate error";
	return HP_INFLATE_BAD;
}

/* ---- ISA-L ---------------------------------------------------------------- */
#ifdef HP_HAVE_ISAL

/* where in the member: the header's fields in order (read as zlib reads
 * them: ID1 ID2, then CM FLG, then MTIME XFL OS, ... each group whole
 * before it is checked), then the data, then the trailer */
enum { H_ID, H_CMFLG, H_FIXED, H_XLEN, H_EXTRA, H_NAME, H_COMMENT, H_HCRC, H_DATA, H_TRAILER };
#define F_HCRC    0x02
#define F_EXTRA   0x04
#define F_NAME    0x08
#define F_COMMENT 0x10

/* the state after the field `st` (its bytes read): the next one present */
static int next_field(const hp_inflate *z, int st)
{
	switch (st) {
	case H_FIXED: if (z->hflags & F_EXTRA) return H_XLEN; /* fallthrough */
	case H_EXTRA: if (z->hflags & F_NAME) return H_NAME; /* fallthrough */
	case H_NAME: if (z->hflags & F_COMMENT) return H_COMMENT; /* fallthrough */
	case H_COMMENT: if (z->hflags & F_HCRC) return H_HCRC; /* fallthrough */
	default: return H_DATA;
	}
}

/* enters field st: the bytes it takes (NAME, COMMENT: up to their NUL) */
static void enter(hp_inflate *z, int st)
{
	z->hstate = st;
	z->hneed = st == H_FIXED ? 6 : 2;
}

/* A 2-byte field is in hbuf: checked, and the next field entered.
 * HP_INFLATE_BAD (*why) when it is wrong. */
static int two_bytes(hp_inflate *z, const char **why)
{
	unsigned v = (unsigned)z->hbuf[0] | (unsigned)z->hbuf[1] << 8;
	switch (z->hstate) {
	case H_ID:
		if (v != 0x8b1f) {
			*why = "incorrect header check";
			return HP_INFLATE_BAD;
		}
		enter(z, H_CMFLG);
		break;
	case H_CMFLG:
		if ((v & 0xff) != 8) {
			*why = "unknown compression method";
			return HP_INFLATE_BAD;
		}
		if (v & 0xe000) {
			*why = "unknown header flags set";
			return HP_INFLATE_BAD;
		}
		z->hflags = v >> 8;
		enter(z, H_FIXED);
		break;
	case H_XLEN:
		z->hneed = v;
		z->hstate = H_EXTRA;
		if (!v)
			enter(z, next_field(z, H_EXTRA));
		break;
	default:                            /* H_HCRC */
		if (v != (z->hcrc & 0xffff)) {
			*why = "header crc mismatch";
			return HP_INFLATE_BAD;
		}
		z->hstate = H_DATA;
		break;
	}
	return HP_INFLATE_MORE;
}

/* Reads the gzip header (RFC 1952) as far as the input goes, with zlib's
 * checks in zlib's words.  HP_INFLATE_MORE, also once the data begins. */
static int isal_header(hp_inflate *z, const char **why)
{
	const uint8_t *p = z->next_in, *e = p + z->avail_in, *crc_from = p;
	int rc = HP_INFLATE_MORE;
	while (p < e && z->hstate != H_DATA && rc == HP_INFLATE_MORE) {
		switch (z->hstate) {
		case H_FIXED:
		case H_EXTRA: {
			size_t k = (size_t)(e - p) < z->hneed ? (size_t)(e - p) : z->hneed;
			p += k;
			z->hneed -= (unsigned)k;
			if (!z->hneed)
				enter(z, next_field(z, z->hstate));
			break;
		}
		case H_NAME:
		case H_COMMENT: {
			const uint8_t *nul = memchr(p, 0, (size_t)(e - p));
			p = nul ? nul + 1 : e;
			if (nul)
				enter(z, next_field(z, z->hstate));
			break;
		}
		default:                    /* the 2-byte fields */
			if (z->hstate == H_HCRC && z->hneed == 2) {
				/* the CRC covers the header before it */
				z->hcrc = (uint32_t)crc32(z->hcrc, crc_from, (uInt)(p - crc_from));
				crc_from = NULL;
			}
			z->hbuf[2 - z->hneed] = *p++;
			if (!--z->hneed)
				rc = two_bytes(z, why);
			break;
		}
	}
	if (crc_from && crc_from < p)
		z->hcrc = (uint32_t)crc32(z->hcrc, crc_from, (uInt)(p - crc_from));
	z->avail_in -= (size_t)(p - z->next_in);
	z->next_in = p;
	return rc;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The trailer, as zlib reads it: the CRC-32 checked once its 4 bytes are
 * in, then ISIZE (the member's length modulo 2^32). */
static int isal_trailer(hp_inflate *z, const char **why)
{
	const struct inflate_state *s = z->impl;
	while (z->tlen < 8) {
		if (z->tlen >= 4 && le32(z->tbuf) != s->crc) {
			*why = "incorrect data check";
			return HP_INFLATE_BAD;
		}
		if (!z->avail_in)
			return HP_INFLATE_MORE;
		z->tbuf[z->tlen++] = *z->next_in++;
		z->avail_in--;
	}
	if (le32(z->tbuf) != s->crc) {
		*why = "incorrect data check";
		return HP_INFLATE_BAD;
	}
	if (le32(z->tbuf + 4) != s->total_out) {
		*why = "incorrect length check";
		return HP_INFLATE_BAD;
	}
	return HP_INFLATE_END;
}

/* At the end of the deflate data: the whole bytes ISA-L read past it (in
 * its bit buffer, after the bits that pad the last byte) are the
 * trailer's first; those of this call's input go back to it, those of an
 * earlier one's are kept as read. */
static void isal_data_end(hp_inflate *z, struct inflate_state *s, size_t used)
{
	unsigned bits = s->read_in_length > 0 ? (unsigned)s->read_in_length : 0;
	if (bits > 64)
		bits = 64;
	unsigned whole = bits / 8;
	uint64_t v = bits % 8 ? s->read_in >> (bits % 8) : s->read_in;
	unsigned back = used < whole ? (unsigned)used : whole;
	z->tlen = 0;
	for (unsigned i = 0; i < whole - back; i++)
		z->tbuf[z->tlen++] = (uint8_t)(v >> (8 * i));
	z->next_in -= back;
	z->avail_in += back;
	s->read_in = 0;
	s->read_in_length = 0;
	z->hstate = H_TRAILER;
}

static int isal_step(hp_inflate *z, const char **why)
{
	if (z->hstate == H_TRAILER)
		return isal_trailer(z, why);
	if (z->hstate != H_DATA) {
		int rc = isal_header(z, why);
		if (rc != HP_INFLATE_MORE || z->hstate != H_DATA)
			return rc;
	}
	struct inflate_state *s = z->impl;
	uint32_t in = (uint32_t)(z->avail_in < STEP_MAX ? z->avail_in : STEP_MAX);
	uint32_t out = (uint32_t)(z->avail_out < STEP_MAX ? z->avail_out : STEP_MAX);
	s->next_in = (uint8_t *)(uintptr_t)z->next_in;
	s->avail_in = in;
	s->next_out = z->next_out;
	s->avail_out = out;
	int irc = isal_inflate(s);
	uint32_t used = in - s->avail_in, made = out - s->avail_out;
	z->next_in += used;
	z->avail_in -= used;
	z->next_out += made;
	z->avail_out -= made;
	switch (irc) {
	case ISAL_DECOMP_OK:
	case ISAL_END_INPUT:
	case ISAL_OUT_OVERFLOW:
		break;
	case ISAL_INVALID_BLOCK: *why = "invalid block"; return HP_INFLATE_BAD;
	case ISAL_INVALID_SYMBOL: *why = "invalid code"; return HP_INFLATE_BAD;
	case ISAL_INVALID_LOOKBACK: *why = "invalid distance too far back"; return HP_INFLATE_BAD;
	default: *why = "inflate error"; return HP_INFLATE_BAD;
	}
	if (s->block_state == ISAL_BLOCK_FINISH) {
		isal_data_end(z, s, used);
		return isal_trailer(z, why);
	}
	if (!used && !made && z->avail_in && z->avail_out) {
		*why = "inflate error (no progress)";
		return HP_INFLATE_BAD;
	}
	return HP_INFLATE_MORE;
}
#endif

/* ---- either --------------------------------------------------------------- */

int hp_inflate_new(hp_inflate **out, int kind, struct hp_error *err)
{
	*out = NULL;
	hp_inflate *z = hp_calloc(1, sizeof *z);
	if (!z)
		return hp_error_set(err, HP_ENOMEM, "out of memory");
#ifdef HP_HAVE_ISAL
	if (kind == HP_INFLATE_ISAL) {
		/* malloc's, as zlib's state is: what the allocator counts
		 * (--max-memory's figures) is the same with either inflater */
		struct inflate_state *s = malloc(sizeof *s);
		if (!s) {
			hp_free(z);
			return hp_error_set(err, HP_ENOMEM, "out of memory");
		}
		isal_inflate_init(s);
		z->impl = s;
		z->kind = HP_INFLATE_ISAL;
		hp_inflate_reset(z);
		*out = z;
		return HP_OK;
	}
#endif
	(void)kind;
	z_stream *s = hp_calloc(1, sizeof *s);
	if (!s) {
		hp_free(z);
		return hp_error_set(err, HP_ENOMEM, "out of memory");
	}
	z->impl = s;
	z->kind = HP_INFLATE_ZLIB;
	if (inflateInit2(s, 16 + MAX_WBITS) != Z_OK) {
		hp_free(s);
		hp_free(z);
		return hp_error_set(err, HP_ENOMEM, "cannot initialise zlib");
	}
	*out = z;
	return HP_OK;
}

void hp_inflate_free(hp_inflate *z)
{
	if (!z)
		return;
	if (z->kind == HP_INFLATE_ZLIB) {
		inflateEnd(z->impl);
		hp_free(z->impl);
	} else {
		free(z->impl);
	}
	hp_free(z);
}

void hp_inflate_reset(hp_inflate *z)
{
#ifdef HP_HAVE_ISAL
	if (z->kind == HP_INFLATE_ISAL) {
		struct inflate_state *s = z->impl;
		isal_inflate_reset(s);
		s->crc_flag = ISAL_GZIP_NO_HDR;       /* the data's CRC-32 in s->crc */
		s->hist_bits = 0;                     /* the whole 32 KiB window */
		z->hflags = 0;
		enter(z, H_ID);
		z->hcrc = 0;
		z->tlen = 0;
		return;
	}
#endif
	inflateReset(z->impl);
}

int hp_inflate_step(hp_inflate *z, const char **why)
{
	*why = NULL;
#ifdef HP_HAVE_ISAL
	if (z->kind == HP_INFLATE_ISAL)
		return isal_step(z, why);
#endif
	return zlib_step(z, why);
}
