/*
 * error.h — the positioned error every library function fills.
 *
 * Library functions return an int status (HP_OK or a negative HP_E* code) and,
 * on failure, fill a caller-owned struct hp_error with the byte offset, the
 * record number and tag, and a one-line message.  Only src/cli/ prints it.
 */
#ifndef HP_ERROR_H
#define HP_ERROR_H

#include <stdint.h>
#include <stdarg.h>

#define HP_MUST_USE __attribute__((warn_unused_result))

enum {
	HP_OK = 0,
	HP_EIO = -1,       /* read error, open error */
	HP_EFORMAT = -2,   /* not an HPROF file, zip archive, empty file, bad header */
	HP_ETRUNC = -3,    /* the file ends inside a record */
	HP_ECORRUPT = -4,  /* framing or a length is inconsistent */
	HP_ENOMEM = -5,    /* allocation failed or a limit was reached */
	HP_EUSAGE = -6,    /* a caller asked for something that does not exist */
	HP_ESTOP = -7      /* a sink asked to stop early (not an error) */
};

struct hp_error {
	int code;               /* HP_E* or HP_OK */
	uint64_t offset;        /* byte offset (in the uncompressed stream) */
	uint64_t record;        /* 1-based top-level record number, 0 if none */
	int tag;                /* top-level tag, -1 if none */
	int subtag;             /* heap-dump sub-tag, -1 if none */
	int has_pos;            /* offset/record/tag are meaningful */
	char msg[512];
};

void hp_error_clear(struct hp_error *err);
/* Sets code and message (printf-style); keeps position fields.  Returns code. */
int hp_error_set(struct hp_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int hp_error_setpos(struct hp_error *err, int code, uint64_t offset, uint64_t record,
		    int tag, int subtag, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));
/* hp_error_setpos() with the arguments in a va_list, for a caller's own
 * printf-style wrapper. */
int hp_error_vsetpos(struct hp_error *err, int code, uint64_t offset, uint64_t record,
		     int tag, int subtag, const char *fmt, va_list ap)
	__attribute__((format(printf, 7, 0)));

/* Propagate a failing status (jq's TRY). */
#define HP_TRY(expr) do { int hp_try_rc_ = (expr); if (hp_try_rc_ != HP_OK) return hp_try_rc_; } while (0)

/* Name of a top-level tag / sub-tag, or NULL when unknown. */
const char *hp_tag_name(int tag);
const char *hp_subtag_name(int subtag);

#endif
