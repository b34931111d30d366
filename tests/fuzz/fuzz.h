/*
 * fuzz.h — what the fuzz targets in tests/fuzz/ share.
 *
 * Each fuzz_*.c is one libFuzzer target (LLVMFuzzerTestOneInput) for one
 * parser entry point.  The library opens dumps by path, so an input is put
 * in an anonymous memory file (memfd_create) and opened as /proc/self/fd/N:
 * nothing is added to src/, and the file can be reopened, as hp_refs_build()
 * does.  Built with clang -fsanitize=fuzzer for `make fuzz`, and with
 * replay.c's main() and the normal compiler under ASan/UBSan for
 * `make check`, which replays the seed corpus and tests/fuzz/regressions/.
 *
 * The touch sink reads every byte the parser hands it, so a pointer that
 * runs past the reader's window is caught by ASan even when no model is
 * built.
 */
#ifndef HP_FUZZ_H
#define HP_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "parser/hprof.h"
#include "parser/reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Writes the bytes to a memfd; fills path with its /proc/self/fd name.
 * Returns the fd (close it when done) or -1. */
static inline int fuzz_memfile(const void *data, size_t n, char *path, size_t cap)
{
	int fd = memfd_create("hprofan-fuzz", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	const uint8_t *p = data;
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w <= 0) {
			close(fd);
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	snprintf(path, cap, "/proc/self/fd/%d", fd);
	return fd;
}

/* ---- the touch sink ---------------------------------------------------- */

static volatile uint64_t fuzz_sum;

static inline void fuzz_touch(const uint8_t *p, size_t n)
{
	uint64_t s = 0;
	for (size_t i = 0; p && i < n; i++)
		s += p[i];
	fuzz_sum += s;
}

static int ft_string(void *ud, uint64_t id, const uint8_t *utf8, uint32_t len)
{ fuzz_touch(utf8, len); return 0; }
static int ft_trace(void *ud, uint32_t serial, uint32_t thread_serial, uint32_t n, const uint8_t *frame_ids)
{ fuzz_touch(frame_ids, (size_t)n * *(unsigned *)ud); return 0; }
static int ft_class_dump(void *ud, const struct hp_class_dump *c)
{
	fuzz_touch(c->statics, c->statics_len);
	fuzz_touch(c->fields, (size_t)c->n_fields * (*(unsigned *)ud + 1));
	return 0;
}
static int ft_instance(void *ud, uint64_t id, uint32_t serial, uint64_t class_id, const uint8_t *fields,
		       uint32_t len, uint64_t offset)
{ fuzz_touch(fields, len); return 0; }
static int ft_obj_array(void *ud, uint64_t id, uint32_t serial, uint64_t class_id, uint32_t n, const uint8_t *elems,
			uint64_t offset)
{ fuzz_touch(elems, (size_t)n * *(unsigned *)ud); return 0; }
static int ft_prim_array(void *ud, uint64_t id, uint32_t serial, unsigned type, uint32_t n, const uint8_t *elems,
			 uint64_t offset, int nodata)
{
	if (!nodata)
		fuzz_touch(elems, (size_t)n * hp_type_size(type, *(unsigned *)ud));
	return 0;
}
static int ft_header(void *ud, const struct hp_header *h)
{ *(unsigned *)ud = h->id_size; return 0; }

/* Parses the whole reader into the touch sink; returns hp_parse's status. */
static inline int fuzz_parse_touch(hp_reader *r, int want_data)
{
	unsigned id_size = 4;
	struct hp_sink sink;
	memset(&sink, 0, sizeof sink);
	sink.ud = &id_size;
	sink.header = ft_header;
	sink.string = ft_string;
	sink.trace = ft_trace;
	sink.class_dump = ft_class_dump;
	sink.instance = ft_instance;
	sink.obj_array = ft_obj_array;
	sink.prim_array = ft_prim_array;
	struct hp_parse_opts po;
	hp_parse_opts_init(&po);
	po.want_instance_data = want_data;
	po.want_array_data = want_data;
	struct hp_stats st;
	memset(&st, 0, sizeof st);
	struct hp_error err;
	hp_error_clear(&err);
	int rc = hp_parse(r, &sink, &po, &st, &err);
	hp_stats_release(&st);
	return rc;
}

#endif
