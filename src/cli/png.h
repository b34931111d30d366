/*
 * png.h — encodes an image of w x h pixels, 4 bytes each (R, G, B, A,
 * straight alpha), row by row, as a PNG file in memory.
 */
#ifndef HP_CLI_PNG_H
#define HP_CLI_PNG_H

#include <stddef.h>
#include <stdint.h>

/* 0 and the file in *out (hp_free()) of *len bytes; -1 an image PNG or
 * zlib cannot take (0 wide or high, rows over 2 GiB, over 4 GiB in all);
 * -2 out of memory */
int cli_png_encode(uint32_t w, uint32_t h, const uint8_t *rgba, uint8_t **out, size_t *len);

#endif
