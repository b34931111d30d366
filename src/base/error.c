/* error.c — filling struct hp_error (error.h), and the names of HPROF's
 * record and sub-record tags. */
#include "base/error.h"
#include <stdio.h>
#include <string.h>

void hp_error_clear(struct hp_error *err)
{
	memset(err, 0, sizeof *err);
	err->tag = -1;
	err->subtag = -1;
}

int hp_error_set(struct hp_error *err, int code, const char *fmt, ...)
{
	va_list ap;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
	return code;
}

int hp_error_vsetpos(struct hp_error *err, int code, uint64_t offset, uint64_t record,
		     int tag, int subtag, const char *fmt, va_list ap)
{
	err->code = code;
	err->offset = offset;
	err->record = record;
	err->tag = tag;
	err->subtag = subtag;
	err->has_pos = 1;
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	return code;
}

int hp_error_setpos(struct hp_error *err, int code, uint64_t offset, uint64_t record,
		    int tag, int subtag, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	hp_error_vsetpos(err, code, offset, record, tag, subtag, fmt, ap);
	va_end(ap);
	return code;
}

const char *hp_tag_name(int tag)
{
	switch (tag) {
	case 0x01: return "STRING";
	case 0x02: return "LOAD CLASS";
	case 0x03: return "UNLOAD CLASS";
	case 0x04: return "STACK FRAME";
	case 0x05: return "STACK TRACE";
	case 0x06: return "ALLOC SITES";
	case 0x07: return "HEAP SUMMARY";
	case 0x0A: return "START THREAD";
	case 0x0B: return "END THREAD";
	case 0x0C: return "HEAP DUMP";
	case 0x0D: return "CPU SAMPLES";
	case 0x0E: return "CONTROL SETTINGS";
	case 0x1C: return "HEAP DUMP SEGMENT";
	case 0x2C: return "HEAP DUMP END";
	default: return NULL;
	}
}

const char *hp_subtag_name(int st)
{
	switch (st) {
	case 0xFF: return "ROOT UNKNOWN";
	case 0x01: return "ROOT JNI GLOBAL";
	case 0x02: return "ROOT JNI LOCAL";
	case 0x03: return "ROOT JAVA FRAME";
	case 0x04: return "ROOT NATIVE STACK";
	case 0x05: return "ROOT STICKY CLASS";
	case 0x06: return "ROOT THREAD BLOCK";
	case 0x07: return "ROOT MONITOR USED";
	case 0x08: return "ROOT THREAD OBJECT";
	case 0x20: return "CLASS DUMP";
	case 0x21: return "INSTANCE DUMP";
	case 0x22: return "OBJECT ARRAY DUMP";
	case 0x23: return "PRIMITIVE ARRAY DUMP";
	case 0x89: return "ROOT INTERNED STRING";
	case 0x8A: return "ROOT FINALIZING";
	case 0x8B: return "ROOT DEBUGGER";
	case 0x8C: return "ROOT REFERENCE CLEANUP";
	case 0x8D: return "ROOT VM INTERNAL";
	case 0x8E: return "ROOT JNI MONITOR";
	case 0x90: return "ROOT UNREACHABLE";
	case 0xC3: return "PRIMITIVE ARRAY NODATA";
	case 0xFE: return "HEAP DUMP INFO";
	default: return NULL;
	}
}
