/*
 * bitmaps.h — android.graphics.Bitmap instances: size, pixel bytes, where
 * the pixels are, duplicates by content, and the pixels as RGBA.
 *
 * Each instance of android.graphics.Bitmap (or a subclass) gives mWidth and
 * mHeight.  Its pixel bytes come from
 *   - mBuffer, a byte[] holding the pixels in the Java heap (Android 3.0 to
 *     7.1): its length; the pixels are in the dump unless the array was
 *     written without its elements (PRIMITIVE ARRAY NODATA);
 *   - else the native size registered for the Bitmap (native.h, Android 8.0
 *     and later keep the pixels in native memory, which the dump lacks).
 * The Java object holds no pixel format; it is inferred from mBuffer's
 * bytes per pixel (length / (width x height)): 4 or more ARGB_8888, 2 or 3
 * RGB_565 (ARGB_4444 is read as RGB_565: it takes 2 bytes too), 1 ALPHA_8;
 * "unknown" without mBuffer or a width or height of 0.
 *
 * Duplicates: a 64-bit hash of the pixel bytes (the first width x height x
 * bytes-per-pixel of mBuffer) with the width, height and format; bitmaps
 * with equal hashes are copies of one image (two different images hashing
 * alike, about 1 in 2^64 per pair, would be counted as one).  Bitmaps may
 * share one mBuffer (a dump can hold thousands on one 8 MiB array): each
 * buffer is read and hashed once, as one FNV-1a stream whose state is
 * taken at each of its bitmaps' lengths, so the time is linear in the
 * buffers' bytes plus n log n in the bitmaps, however they share.
 *
 * RGBA (hp_bitmap_rgba()): Skia's memory layouts on Android's little-endian
 * CPUs: ARGB_8888 is the bytes R, G, B, A; RGB_565 a little-endian u16 with
 * red in the top 5 bits, widened to 8 bits by repeating the top bits;
 * ALPHA_8 black with that alpha.  Premultiplied pixels (mIsPremultiplied,
 * or mRequestPremultiplied, true) are turned back into straight alpha,
 * rounding to nearest.
 *
 * Memory: 56 bytes per Bitmap, and one mBuffer at a time while hashing.
 * Owned by struct hp_bitmaps; hp_bitmaps_release() frees it.
 */
#ifndef HP_BITMAPS_H
#define HP_BITMAPS_H

#include <stddef.h>
#include <stdint.h>
#include "model/heap.h"
#include "model/objread.h"
#include "analysis/native.h"

enum hp_bitmap_config { HP_BM_UNKNOWN = 0, HP_BM_ARGB_8888, HP_BM_RGB_565, HP_BM_ALPHA_8 };
enum hp_bitmap_source { HP_BM_NONE = 0, HP_BM_BUFFER, HP_BM_NATIVE };

struct hp_bitmap {
	uint32_t obj;
	uint32_t buffer;              /* the mBuffer byte[], HP_NONE when none */
	int32_t width, height;
	uint64_t pixel_bytes;         /* mBuffer's length, or the registered native size */
	uint8_t source;               /* enum hp_bitmap_source: where pixel_bytes comes from */
	uint8_t config;               /* enum hp_bitmap_config */
	uint8_t premultiplied;
	uint8_t has_pixels;           /* the pixels are in the dump (hp_bitmap_rgba() can give them) */
	uint64_t hash;                /* of the pixels, when has_pixels */
	uint32_t first;               /* the first bitmap (index) with the same pixels; its own index when none before */
	uint32_t copies;              /* bitmaps with these pixels (0 without pixels) */
};

struct hp_bitmaps {
	struct hp_bitmap *b;          /* in object order */
	size_t n;
	size_t with_pixels;
	uint64_t pixel_bytes;         /* summed over the bitmaps */
	uint64_t dup_groups;          /* contents held by 2 or more bitmaps */
	uint64_t dup_bitmaps;         /* bitmaps that are a copy of an earlier one */
	uint64_t dup_bytes;           /* their pixel bytes */
	uint64_t hashed_bytes;        /* bytes hashed to compare pixels: at most each buffer's length, once */
};

const char *hp_bitmap_config_name(int config);   /* "ARGB_8888", ..., "unknown" */
const char *hp_bitmap_source_name(int source);   /* "buffer", "native", "none" */

/* N may be NULL (no native sizes) */
int hp_bitmaps_find(const hp_heap *h, hp_objread *rd, const struct hp_native *N, struct hp_bitmaps *B,
		    struct hp_error *err) HP_MUST_USE;
void hp_bitmaps_release(struct hp_bitmaps *B);

/* The pixels of b (has_pixels) as width x height x 4 bytes of straight
 * RGBA, row by row, into a new buffer *out (hp_free()). */
int hp_bitmap_rgba(const hp_heap *h, hp_objread *rd, const struct hp_bitmap *b, uint8_t **out,
		   struct hp_error *err) HP_MUST_USE;

#endif
