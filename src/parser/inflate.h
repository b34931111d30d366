/*
 * inflate.h — one gzip member at a time, through zlib's inflate or, when
 * hprofan is built with it (HP_HAVE_ISAL), Intel ISA-L's igzip: the same
 * bytes out of both, the same member boundaries, and both check the
 * member's header, its CRC-32 and ISIZE.
 *
 * The inflater is ISA-L's when built with it, unless HPROFAN_INFLATE says
 * zlib (the tests compare the two); HPROFAN_INFLATE=serial (or zlib,serial)
 * keeps a jcmd -gz stream's members on one thread (gzmembers.h).
 *
 * A stream's caller sets next_in/avail_in and next_out/avail_out, calls
 * hp_inflate_step(), which advances them, and hp_inflate_reset() after a
 * member's end for the next one.  The same bytes in give the same bytes
 * out; only a member cut short may give a few bytes fewer with ISA-L
 * (what the last bits would decode to when more came).
 */
#ifndef HP_INFLATE_H
#define HP_INFLATE_H

#include <stddef.h>
#include <stdint.h>
#include "base/error.h"

enum hp_inflate_kind { HP_INFLATE_ZLIB, HP_INFLATE_ISAL };

enum hp_inflate_rc {
	HP_INFLATE_MORE,        /* the input is used up or the output full */
	HP_INFLATE_END,         /* the member's trailer checked; next_in is past it */
	HP_INFLATE_BAD          /* corrupt: *why says how (static text) */
};

typedef struct hp_inflate hp_inflate;
struct hp_inflate {
	const uint8_t *next_in;
	size_t avail_in;
	uint8_t *next_out;
	size_t avail_out;
	int kind;                   /* enum hp_inflate_kind */
	/* private */
	void *impl;                 /* z_stream, or ISA-L's state */
	int hstate;                 /* ISA-L: where in the member (inflate.c) */
	unsigned hflags, hneed;     /* the gzip header's flags, the bytes of a field left */
	uint32_t hcrc;              /* the header's CRC-32 so far (FHCRC) */
	uint8_t hbuf[2];            /* a 2-byte field (XLEN, the header CRC) */
	uint8_t tbuf[8];            /* the trailer: CRC-32, ISIZE */
	unsigned tlen;
};

/* the inflater: ISA-L when built with it, unless HPROFAN_INFLATE=zlib */
int hp_inflate_default(void);
/* HPROFAN_INFLATE holds "serial": inflate a stream's members in order, on
 * one thread */
int hp_inflate_serial(void);
/* "zlib" or "isal" */
const char *hp_inflate_kind_name(int kind);

/* A new inflater of the kind (ISA-L's falls back to zlib's when hprofan
 * was built without it) at the start of a member. */
int hp_inflate_new(hp_inflate **out, int kind, struct hp_error *err) HP_MUST_USE;
void hp_inflate_free(hp_inflate *z);
/* at the start of a member again */
void hp_inflate_reset(hp_inflate *z);
/* Inflates from next_in to next_out until the input is used up, the output
 * is full, the member ends (its trailer checked) or the data is corrupt.
 * A call that can use neither its input nor its output space is an error,
 * never a loop. */
int hp_inflate_step(hp_inflate *z, const char **why);

#endif
