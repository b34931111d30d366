/* hprofan bitmaps FILE: the android.graphics.Bitmap instances, their
 * pixel bytes and duplicates; --out DIR writes the pixels the dump holds as
 * PNG files. */
#include "cli/command.h"
#include "cli/msg.h"
#include "cli/format.h"
#include "cli/load.h"
#include "cli/output.h"
#include "cli/objtext.h"
#include "cli/png.h"
#include "analysis/bitmaps.h"
#include "base/text.h"
#include "base/alloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct bitmaps_opts {
	const char *out;
};

static const struct cli_option own[] = {
	OPT_STRING_F("--out", "DIR",
		     "write each bitmap whose pixels are in the dump to\nDIR/bitmap-0xID.png (DIR is made when missing)",
		     "needs a directory", OPTF_DIR, OPT_OWN(struct bitmaps_opts, out)),
	OPT_END
};

struct bitmaps_result {
	const hp_heap *h;
	const struct hp_native *N;
	struct hp_bitmaps B;
	uint32_t *order;          /* bitmaps by pixel bytes, largest first */
	char **png;               /* per bitmap: the file written, or NULL */
	size_t written;
};

static void release(void *p)
{
	struct bitmaps_result *r = p;
	if (!r)
		return;
	for (size_t i = 0; r->png && i < r->B.n; i++)
		hp_free(r->png[i]);
	hp_free(r->png);
	hp_free(r->order);
	hp_bitmaps_release(&r->B);
	hp_free(r);
}

static const struct hp_bitmap *sort_b;

static int by_bytes(const void *a, const void *b)
{
	const struct hp_bitmap *x = &sort_b[*(const uint32_t *)a], *y = &sort_b[*(const uint32_t *)b];
	if (x->pixel_bytes != y->pixel_bytes)
		return x->pixel_bytes < y->pixel_bytes ? 1 : -1;
	return x->obj < y->obj ? -1 : x->obj > y->obj;
}

/* DIR/bitmap-0xID.png for bitmap b, made new in DIR (open as dfd) and
 * renamed into place: a symbolic link there is refused, never followed */
static int write_png(struct bitmaps_result *r, hp_session *S, hp_objread *rd, const char *dir, int dfd, size_t i)
{
	const struct hp_bitmap *b = &r->B.b[i];
	struct hp_error err;
	hp_error_clear(&err);
	uint8_t *rgba, *png;
	size_t len;
	int st = hp_bitmap_rgba(r->h, rd, b, &rgba, &err);
	if (st) {
		char buf[1024];
		cli_format_error(hp_session_path(S), &err, buf, sizeof buf);
		cli_error("%s", buf);
		return cli_exit_code(st);
	}
	int prc = cli_png_encode((uint32_t)b->width, (uint32_t)b->height, rgba, &png, &len);
	hp_free(rgba);
	if (prc) {
		cli_error(prc == -2 ? "out of memory" : "bitmap 0x%llx: %dx%d is too large for one PNG",
			  (unsigned long long)hp_heap_id(r->h, b->obj), b->width, b->height);
		return prc == -2 ? EXIT_NOMEM : EXIT_BAD;
	}
	size_t pl = strlen(dir) + 64;
	char *path = hp_malloc(pl);
	if (!path) {
		hp_free(png);
		cli_error("out of memory");
		return EXIT_NOMEM;
	}
	snprintf(path, pl, "%s/bitmap-0x%llx.png", dir, (unsigned long long)hp_heap_id(r->h, b->obj));
	struct cli_ofile of;
	int rc = cli_ofile_create(&of, dfd, strrchr(path, '/') + 1, path);
	if (!rc && cli_write_all(of.fd, png, len)) {
		cli_error("cannot write %s: %s", path, strerror(errno));
		cli_ofile_abort(&of);
		rc = EXIT_BAD;
	} else if (!rc) {
		rc = cli_ofile_commit(&of);
	}
	hp_free(png);
	if (rc) {
		hp_free(path);
		return rc;
	}
	r->png[i] = path;
	r->written++;
	return EXIT_OK;
}

static int collect(struct cli_ctx *x, hp_session *S, void **res)
{
	const struct bitmaps_opts *o = x->own;
	int rc;
	struct bitmaps_result *r = cli_result_new(sizeof *r, res);
	if (!r)
		return EXIT_NOMEM;
	hp_objread *rd;
	if ((rc = cli_refuse_pipe(S, "bitmaps reads", "save it to a file")) || (rc = cli_model(S, &r->h)) ||
	    (rc = cli_objread(S, &rd)) || (rc = cli_native(S, 0, &r->N)))
		return rc;
	struct hp_error err;
	hp_error_clear(&err);
	int st = hp_bitmaps_find(r->h, rd, r->N, &r->B, &err);
	if (st) {
		char buf[1024];
		cli_format_error(hp_session_path(S), &err, buf, sizeof buf);
		cli_error("%s", buf);
		return cli_exit_code(st);
	}
	size_t n = r->B.n;
	if (!(r->order = hp_reallocarray(NULL, n ? n : 1, sizeof *r->order)) ||
	    !(r->png = hp_calloc(n ? n : 1, sizeof *r->png))) {
		cli_error("out of memory");
		return EXIT_NOMEM;
	}
	for (size_t i = 0; i < n; i++)
		r->order[i] = (uint32_t)i;
	sort_b = r->B.b;
	qsort(r->order, n, sizeof *r->order, by_bytes);
	if (!o->out)
		return EXIT_OK;
	/* DIR is opened once (a link the user named as DIR is followed, by
	 * the kernel) and every file is made relative to it */
	int dfd = open(o->out, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 && errno == ENOENT) {
		if (mkdir(o->out, 0777) != 0 && errno != EEXIST) {
			cli_error("--out %s: %s", o->out, strerror(errno));
			return EXIT_BAD;
		}
		dfd = open(o->out, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (dfd < 0) {
		int e = errno;
		cli_error("--out %s: %s", o->out, e == ENOTDIR ? "not a directory" : strerror(e));
		return e == ENOTDIR ? EXIT_USAGE : EXIT_BAD;
	}
	rc = EXIT_OK;
	for (size_t i = 0; i < n && !rc; i++)
		if (r->B.b[i].has_pixels)
			rc = write_png(r, S, rd, o->out, dfd, i);
	close(dfd);
	return rc;
}

static void after(struct cli_ctx *x, hp_session *S, void *res)
{
	(void)S;
	const struct bitmaps_result *r = res;
	if (r && r->h)
		cli_native_note(x, r->h, r->N);
}

static int json(struct cli_ctx *x, hp_session *S, void *res, cJSON **doc)
{
	const struct bitmaps_result *r = res;
	const hp_heap *h = r->h;
	const struct hp_bitmaps *B = &r->B;
	const struct bitmaps_opts *o = x->own;
	cJSON *j = cli_json_begin(x, hp_session_path(S), S);
	cli_json_native(j, h, r->N);
	cJSON *tot = cJSON_AddObjectToObject(j, "total");
	cli_json_u64(tot, "bitmaps", B->n);
	cli_json_u64(tot, "with_pixels", B->with_pixels);
	cli_json_u64(tot, "pixel_bytes", B->pixel_bytes);
	cli_json_u64(tot, "duplicate_groups", B->dup_groups);
	cli_json_u64(tot, "duplicate_bitmaps", B->dup_bitmaps);
	cli_json_u64(tot, "duplicate_bytes", B->dup_bytes);
	cli_json_u64(tot, "hashed_bytes", B->hashed_bytes);
	if (o->out) {
		cJSON_AddStringToObject(j, "out", o->out);
		cli_json_u64(tot, "png_written", r->written);
	}
	cJSON *arr = cJSON_AddArrayToObject(j, "bitmaps");
	for (size_t k = 0; k < B->n; k++) {
		const struct hp_bitmap *b = &B->b[r->order[k]];
		cJSON *e = cli_object_json(h, b->obj);
		cJSON_AddNumberToObject(e, "width", b->width);
		cJSON_AddNumberToObject(e, "height", b->height);
		cJSON_AddStringToObject(e, "config", hp_bitmap_config_name(b->config));
		cli_json_u64(e, "pixel_bytes", b->pixel_bytes);
		cJSON_AddStringToObject(e, "source", hp_bitmap_source_name(b->source));
		char hx[24];
		if (b->buffer != HP_NONE) {
			snprintf(hx, sizeof hx, "0x%llx", (unsigned long long)hp_heap_id(h, b->buffer));
			cJSON_AddStringToObject(e, "buffer", hx);
		}
		if (r->N && r->N->shallow)
			cli_json_u64(e, "native", hp_native_of(r->N, b->obj));
		cJSON_AddBoolToObject(e, "pixels_in_dump", b->has_pixels);
		cJSON_AddBoolToObject(e, "premultiplied", b->premultiplied);
		if (b->has_pixels) {
			snprintf(hx, sizeof hx, "%016llx", (unsigned long long)b->hash);
			cJSON_AddStringToObject(e, "content_hash", hx);
			cli_json_u64(e, "copies", b->copies);
			if (b->first != r->order[k]) {
				snprintf(hx, sizeof hx, "0x%llx", (unsigned long long)hp_heap_id(h, B->b[b->first].obj));
				cJSON_AddStringToObject(e, "duplicate_of", hx);
			}
		}
		if (r->png[r->order[k]])
			cJSON_AddStringToObject(e, "png", r->png[r->order[k]]);
		cJSON_AddItemToArray(arr, e);
	}
	*doc = j;
	return EXIT_OK;
}

static int text(struct cli_ctx *x, hp_session *S, void *res, FILE *f)
{
	const struct bitmaps_opts *o = x->own;
	const struct bitmaps_result *r = res;
	const hp_heap *h = r->h;
	const struct hp_bitmaps *B = &r->B;
	char a[32], b1[32], c1[48], lab[700];
	cli_partial_note(f, S);
	if (!B->n) {
		fprintf(f, "no android.graphics.Bitmap instances in the dump\n");
		goto out;
	}
	fprintf(f, "%10s  %11s  %-9s  %-6s  %6s  %s\n", "pixels", "size", "config", "source", "copies", "object");
	for (size_t k = 0; k < B->n; k++) {
		const struct hp_bitmap *b = &B->b[r->order[k]];
		char dim[32], cp[48];
		snprintf(dim, sizeof dim, "%dx%d", b->width, b->height);
		if (!b->has_pixels)
			snprintf(cp, sizeof cp, "-");
		else
			snprintf(cp, sizeof cp, "%u", b->copies);
		fprintf(f, "%10s  %11s  %-9s  %-6s  %6s  %s", cli_fmt_bytes(b->pixel_bytes, a, sizeof a), dim,
			hp_bitmap_config_name(b->config), hp_bitmap_source_name(b->source), cp,
			cli_object_label(h, b->obj, lab, sizeof lab));
		if (b->has_pixels && b->first != r->order[k])
			fprintf(f, " (copy of @0x%llx)", (unsigned long long)hp_heap_id(h, B->b[b->first].obj));
		fputc('\n', f);
	}
	fprintf(f, "%s, %s of pixels; %s with the pixels in the dump", cli_fmt_counted(B->n, "bitmap", "bitmaps", c1, sizeof c1),
		cli_fmt_bytes(B->pixel_bytes, a, sizeof a), cli_fmt_count(B->with_pixels, b1, sizeof b1));
	fprintf(f, "; duplicates: %s, %s, %s\n", cli_fmt_counted(B->dup_groups, "image held twice or more", "images held twice or more", c1, sizeof c1),
		cli_fmt_counted(B->dup_bitmaps, "extra copy", "extra copies", lab, sizeof lab), cli_fmt_bytes(B->dup_bytes, a, sizeof a));
out:
	if (o->out)
		fprintf(f, "%s written to %s\n", cli_fmt_counted(r->written, "PNG file", "PNG files", c1, sizeof c1),
			hp_text_safe(o->out, lab, sizeof lab));
	return EXIT_OK;
}

CLI_COMMAND(bitmaps, "hprofan bitmaps FILE", "Android bitmaps: size, pixel bytes, duplicates, PNG files",
	    CLI_FILES(1, 1), CLI_ANSWERS, CLI_OWN(struct bitmaps_opts, NULL), .after = after,
	    CLI_TABLES(own, cli_opts_load_unmapped, cli_opts_output, cli_opts_quiet));
