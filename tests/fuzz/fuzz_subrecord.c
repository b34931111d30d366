/*
 * fuzz_subrecord — the heap-dump sub-record decoder.  The input after its
 * first byte is the body of one HEAP DUMP SEGMENT, wrapped in a valid header
 * (1.0.2, or 1.0.3 when bit 1 of the first byte is set; 8-byte ids when bit
 * 0 is set), a STRING record and a HEAP DUMP END, so every execution reaches
 * the decoder with a consistent frame around it.
 */
#include "fuzz.h"

#define MAX_INPUT (1u << 20)

static size_t put(uint8_t *p, size_t o, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[o + i] = (uint8_t)(v >> (8 * (n - 1 - i)));
	return o + n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > MAX_INPUT)
		return 0;
	unsigned flags = data[0];
	data++;
	size--;
	unsigned id_size = flags & 1 ? 8 : 4;
	const char *fmt = flags & 2 ? "JAVA PROFILE 1.0.3" : "JAVA PROFILE 1.0.2";
	size_t cap = 64 + 9 + id_size + 1 + 9 + size + 9;
	uint8_t *buf = malloc(cap);
	if (!buf)
		return 0;
	size_t o = strlen(fmt) + 1;
	memcpy(buf, fmt, o);
	o = put(buf, o, id_size, 4);
	o = put(buf, o, 0, 8);
	/* STRING id 1 "a" */
	buf[o++] = 0x01;
	o = put(buf, o, 0, 4);
	o = put(buf, o, id_size + 1, 4);
	o = put(buf, o, 1, id_size);
	buf[o++] = 'a';
	/* HEAP DUMP SEGMENT around the input */
	buf[o++] = 0x1C;
	o = put(buf, o, 0, 4);
	o = put(buf, o, size, 4);
	memcpy(buf + o, data, size);
	o += size;
	/* HEAP DUMP END */
	buf[o++] = 0x2C;
	o = put(buf, o, 0, 4);
	o = put(buf, o, 0, 4);

	char path[64];
	int fd = fuzz_memfile(buf, o, path, sizeof path);
	free(buf);
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
