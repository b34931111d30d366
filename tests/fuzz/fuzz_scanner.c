/*
 * fuzz_scanner — the record scanner: the input is a whole dump file, opened
 * through the mmap reader and parsed into the touch sink (sub-record bodies
 * delivered, so every pointer handed out is read).  Any status is fine; a
 * crash, a sanitizer report, a leak or a hang is not.
 */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = fuzz_memfile(data, size, path, sizeof path);
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
