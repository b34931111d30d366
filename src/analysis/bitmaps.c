/* bitmaps.c — android.graphics.Bitmap instances, their pixels and
 * duplicates: see bitmaps.h. */
#include "analysis/bitmaps.h"
#include "base/alloc.h"
#include "base/cmp.h"
#include "base/hash.h"

#include <stdlib.h>
#include <string.h>

#define BITMAP_CLASS "android.graphics.Bitmap"

const char *hp_bitmap_config_name(int c)
{
	switch (c) {
	case HP_BM_ARGB_8888: return "ARGB_8888";
	case HP_BM_RGB_565: return "RGB_565";
	case HP_BM_ALPHA_8: return "ALPHA_8";
	default: return "unknown";
	}
}

const char *hp_bitmap_source_name(int s)
{
	return s == HP_BM_BUFFER ? "buffer" : s == HP_BM_NATIVE ? "native" : "none";
}

static unsigned bytes_per_pixel(int config)
{
	return config == HP_BM_ARGB_8888 ? 4 : config == HP_BM_RGB_565 ? 2 : config == HP_BM_ALPHA_8 ? 1 : 0;
}

/* 1 for the Bitmap class and its subclasses */
static uint8_t *bitmap_classes(const hp_heap *h, int *any)
{
	uint8_t *k = hp_calloc(h->nclasses ? h->nclasses : 1, 1);
	if (!k)
		return NULL;
	*any = 0;
	for (size_t c = 0; c < h->nclasses; c++)
		if (!strcmp(hp_class_name(h, c), BITMAP_CLASS))
			k[c] = 1, *any = 1;
	if (*any && hp_class_flags_inherit(h, k) != HP_OK) {
		hp_free(k);
		return NULL;
	}
	return k;
}

static int get_int(hp_objread *rd, const struct hp_objdata *o, const char *name, int64_t *v)
{
	const struct hp_objval *f = hp_objread_field(rd, o, name, NULL);
	if (!f)
		return 0;
	switch (f->type) {
	case HP_T_INT: *v = (int32_t)(uint32_t)f->bits; return 1;
	case HP_T_LONG: *v = (int64_t)f->bits; return 1;
	case HP_T_SHORT: *v = (int16_t)(uint16_t)f->bits; return 1;
	case HP_T_BOOLEAN: case HP_T_BYTE: *v = (int8_t)(uint8_t)f->bits; return 1;
	default: return 0;
	}
}

static const struct hp_bitmap *sort_b;

static int by_hash(const void *a, const void *b)
{
	const struct hp_bitmap *x = &sort_b[*(const uint32_t *)a], *y = &sort_b[*(const uint32_t *)b];
	return hp_cmp2_u64(x->hash, y->hash, x->obj, y->obj);
}

static uint64_t need_bytes(const struct hp_bitmap *b)
{
	return (uint64_t)b->width * (uint64_t)b->height * bytes_per_pixel(b->config);
}

/* by buffer, then by the pixel bytes each bitmap reads of it */
static int by_buffer(const void *a, const void *b)
{
	const struct hp_bitmap *x = &sort_b[*(const uint32_t *)a], *y = &sort_b[*(const uint32_t *)b];
	return hp_cmp3_u64(x->buffer, y->buffer, need_bytes(x), need_bytes(y), x->obj, y->obj);
}

/* The content hashes of the bitmaps idx[0..k) that read pixels from one
 * buffer, in by_buffer() order: the buffer is read once and hashed once,
 * as one FNV-1a stream whose state is taken at each bitmap's length, then
 * the bitmap's width, height and format are mixed in. */
static int hash_buffer(hp_objread *rd, struct hp_bitmaps *B, const uint32_t *idx, size_t k, struct hp_error *err)
{
	uint8_t *pix;
	size_t plen;
	int nodata;
	HP_TRY(hp_objread_prim_bytes(rd, B->b[idx[0]].buffer, &pix, &plen, &nodata, err));
	uint64_t state = HP_FNV1A_INIT, done = 0;
	for (size_t i = 0; i < k && !nodata; i++) {
		struct hp_bitmap *b = &B->b[idx[i]];
		uint64_t need = need_bytes(b);
		if (need > plen)
			break;          /* this and every later one read past the elements */
		state = hp_fnv1a(state, pix + done, (size_t)(need - done));
		B->hashed_bytes += need - done;
		done = need;
		uint32_t dims[3] = { (uint32_t)b->width, (uint32_t)b->height, b->config };
		b->hash = hp_fnv1a(state, (const uint8_t *)dims, sizeof dims);
		b->has_pixels = 1;
		B->with_pixels++;
	}
	hp_free(pix);
	return HP_OK;
}

int hp_bitmaps_find(const hp_heap *h, hp_objread *rd, const struct hp_native *N, struct hp_bitmaps *B,
		    struct hp_error *err)
{
	memset(B, 0, sizeof *B);
	int any, rc = HP_OK;
	uint8_t *is_bm = bitmap_classes(h, &any);
	uint32_t *objs = NULL, *idx = NULL;
	struct hp_objdata od;
	memset(&od, 0, sizeof od);
	if (!is_bm)
		goto nomem;
	size_t n = 0;
	for (size_t v = 0; any && v < h->nobj; v++)
		if (hp_heap_kind(h, v) == HP_OBJ_INSTANCE && is_bm[h->cls[v]])
			n++;
	if (!n)
		goto out;
	if (!(objs = hp_reallocarray(NULL, n, sizeof *objs)) || !(B->b = hp_calloc(n, sizeof *B->b)) ||
	    !(idx = hp_reallocarray(NULL, n, sizeof *idx)))
		goto nomem;
	n = 0;
	for (size_t v = 0; v < h->nobj; v++)
		if (hp_heap_kind(h, v) == HP_OBJ_INSTANCE && is_bm[h->cls[v]])
			objs[n++] = (uint32_t)v;
	if ((rc = hp_objread_prefetch(rd, objs, n, err)))
		goto out;
	size_t k = 0;                 /* idx[0..k): the bitmaps that read pixels from their buffer */
	for (size_t i = 0; i < n; i++) {
		struct hp_bitmap *b = &B->b[i];
		b->obj = objs[i];
		b->buffer = HP_NONE;
		if ((rc = hp_objread_decode(rd, objs[i], 0, &od, err)))
			goto out;
		int64_t w = 0, hh = 0, pm = 0;
		get_int(rd, &od, "mWidth", &w);
		get_int(rd, &od, "mHeight", &hh);
		b->width = (int32_t)w;
		b->height = (int32_t)hh;
		if (get_int(rd, &od, "mIsPremultiplied", &pm) || get_int(rd, &od, "mRequestPremultiplied", &pm))
			b->premultiplied = pm != 0;
		const struct hp_objval *f = hp_objread_field(rd, &od, "mBuffer", NULL);
		if (f && f->type == HP_T_OBJECT && f->bits) {
			size_t a = hp_heap_find(h, f->bits);
			if (a != SIZE_MAX && hp_heap_kind(h, a) == HP_OBJ_PRIMARRAY &&
			    h->classes[h->cls[a]].elem_type == HP_T_BYTE)
				b->buffer = (uint32_t)a;
		}
		hp_objread_release(&od);
		if (b->buffer != HP_NONE) {
			b->source = HP_BM_BUFFER;
			b->pixel_bytes = h->len[b->buffer];
		} else if (hp_native_of(N, b->obj)) {
			b->source = HP_BM_NATIVE;
			b->pixel_bytes = hp_native_of(N, b->obj);
		}
		B->pixel_bytes += b->pixel_bytes;
		if (b->buffer == HP_NONE || b->width <= 0 || b->height <= 0)
			continue;
		uint64_t px = (uint64_t)b->width * (uint64_t)b->height;
		uint64_t len = h->len[b->buffer];
		b->config = len >= 4 * px ? HP_BM_ARGB_8888 : len >= 2 * px ? HP_BM_RGB_565 :
			    len >= px ? HP_BM_ALPHA_8 : HP_BM_UNKNOWN;
		if (b->config != HP_BM_UNKNOWN)
			idx[k++] = (uint32_t)i;
	}
	B->n = n;
	/* the pixels: many bitmaps may share one buffer, so each buffer is
	 * read and hashed once for all of them */
	sort_b = B->b;
	qsort(idx, k, sizeof *idx, by_buffer);
	for (size_t i = 0; i < k;) {
		size_t j = i + 1;
		while (j < k && B->b[idx[j]].buffer == B->b[idx[i]].buffer)
			j++;
		if ((rc = hash_buffer(rd, B, idx + i, j - i, err)))
			goto out;
		i = j;
	}
	/* duplicates: sort the bitmaps with pixels by hash */
	k = 0;
	for (size_t i = 0; i < n; i++) {
		B->b[i].first = (uint32_t)i;
		if (B->b[i].has_pixels)
			idx[k++] = (uint32_t)i;
	}
	qsort(idx, k, sizeof *idx, by_hash);
	for (size_t i = 0; i < k;) {
		size_t j = i + 1;
		while (j < k && B->b[idx[j]].hash == B->b[idx[i]].hash)
			j++;
		/* idx[i] has the lowest object number of its group */
		for (size_t m = i; m < j; m++) {
			struct hp_bitmap *b = &B->b[idx[m]];
			b->first = idx[i];
			b->copies = (uint32_t)(j - i);
			if (m > i) {
				B->dup_bitmaps++;
				B->dup_bytes += b->pixel_bytes;
			}
		}
		if (j - i > 1)
			B->dup_groups++;
		i = j;
	}
	goto out;
nomem:
	rc = hp_error_set(err, HP_ENOMEM, "out of memory reading bitmaps");
out:
	hp_objread_release(&od);
	hp_free(is_bm);
	hp_free(objs);
	hp_free(idx);
	if (rc)
		hp_bitmaps_release(B);
	return rc;
}

void hp_bitmaps_release(struct hp_bitmaps *B)
{
	hp_free(B->b);
	memset(B, 0, sizeof *B);
}

static uint8_t unpremul(unsigned c, unsigned a)
{
	unsigned v = (c * 255 + a / 2) / a;
	return (uint8_t)(v > 255 ? 255 : v);
}

int hp_bitmap_rgba(const hp_heap *h, hp_objread *rd, const struct hp_bitmap *b, uint8_t **out,
		   struct hp_error *err)
{
	(void)h;
	*out = NULL;
	if (!b->has_pixels)
		return hp_error_set(err, HP_EUSAGE, "the bitmap's pixels are not in the dump");
	uint8_t *pix;
	size_t plen;
	int nodata;
	HP_TRY(hp_objread_prim_bytes(rd, b->buffer, &pix, &plen, &nodata, err));
	uint64_t px = (uint64_t)b->width * (uint64_t)b->height;
	unsigned bpp = bytes_per_pixel(b->config);
	if (nodata || !bpp || plen < px * bpp) {
		hp_free(pix);
		return hp_error_set(err, HP_ECORRUPT, "the bitmap's buffer changed under the reader");
	}
	uint8_t *o = hp_malloc((size_t)px * 4);
	if (!o) {
		hp_free(pix);
		return hp_error_set(err, HP_ENOMEM, "out of memory converting a bitmap");
	}
	for (uint64_t i = 0; i < px; i++) {
		uint8_t *d = o + i * 4;
		const uint8_t *s = pix + i * bpp;
		switch (b->config) {
		case HP_BM_ARGB_8888:
			memcpy(d, s, 4);
			break;
		case HP_BM_RGB_565: {
			unsigned v = s[0] | (unsigned)s[1] << 8;
			unsigned r = v >> 11, g = (v >> 5) & 63, bl = v & 31;
			d[0] = (uint8_t)(r << 3 | r >> 2);
			d[1] = (uint8_t)(g << 2 | g >> 4);
			d[2] = (uint8_t)(bl << 3 | bl >> 2);
			d[3] = 255;
			break;
		}
		default:
			d[0] = d[1] = d[2] = 0;
			d[3] = s[0];
			break;
		}
		if (b->premultiplied && b->config == HP_BM_ARGB_8888 && d[3] < 255) {
			if (!d[3]) {
				d[0] = d[1] = d[2] = 0;
			} else {
				d[0] = unpremul(d[0], d[3]);
				d[1] = unpremul(d[1], d[3]);
				d[2] = unpremul(d[2], d[3]);
			}
		}
	}
	hp_free(pix);
	*out = o;
	return HP_OK;
}
