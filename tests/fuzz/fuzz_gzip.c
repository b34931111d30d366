/*
 * fuzz_gzip — the gzip reader.  When the input starts with the gzip magic it
 * is the .gz file itself (mutations reach zlib's framing, member boundaries
 * and a stream cut short).  Otherwise byte 0 picks a member count (1..4) and
 * the rest is a dump that is gzipped here first, so mutations of the dump
 * reach the parser through the streaming window rather than the mmap one.
 */
#include "fuzz.h"
#include "helper/hpw.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > (1u << 20))
		return 0;
	const uint8_t *file = data;
	size_t n = size;
	uint8_t *gz = NULL;
	if (size >= 1 && !(size >= 2 && data[0] == 0x1f && data[1] == 0x8b)) {
		hpw *w = hpw_new(NULL, 4, 0);
		hpw_bytes(w, data + 1, size - 1);
		gz = hpw_gzip(w, 1 + (data[0] & 3), data[0] & 4 ? NULL : "HPROF BLOCKSIZE=1", &n);
		hpw_free(w);
		if (!gz)
			return 0;
		file = gz;
	}
	char path[64];
	int fd = fuzz_memfile(file, n, path, sizeof path);
	free(gz);
	if (fd < 0)
		return 0;
	hp_reader *r = NULL;
	struct hp_error err;
	hp_error_clear(&err);
	if (hp_reader_open(&r, path, &err) == HP_OK) {
		(void)fuzz_parse_touch(r, 1);
		hp_reader_free(r);
	}
	close(fd);
	return 0;
}
