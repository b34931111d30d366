/* writer.c — hp_writer (writer.h): a 1 MiB buffer written out plain or
 * through zlib's deflate to the caller's descriptor, the record heads, and
 * rewinding a seekable output to start over. */
#include "parser/writer.h"
#include "base/alloc.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define BUF_CAP (1u << 20)
#define ZOUT_CAP (256u << 10)

struct hp_writer {
	uint8_t *buf;
	size_t len, cap;
	int fd;
	int level;                /* 0 plain, else gzip */
	z_stream *z;
	uint8_t *zout;
	uint64_t flushed;         /* uncompressed bytes before buf */
	uint64_t file_bytes;      /* bytes written to fd */
	int failed;
	int seekable;             /* a regular file, from its start, not O_APPEND */
};

static int io_fail(struct hp_error *err, const char *what)
{
	return hp_error_set(err, HP_EIO, "%s: %s", what, strerror(errno));
}

static int write_fd(hp_writer *w, const uint8_t *p, size_t n, struct hp_error *err)
{
	while (n > 0) {
		ssize_t k = write(w->fd, p, n);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			w->failed = 1;
			return io_fail(err, "write");
		}
		p += k;
		n -= (size_t)k;
		w->file_bytes += (uint64_t)k;
	}
	return HP_OK;
}

/* deflates [p, p + n) (flush: Z_NO_FLUSH or Z_FINISH) and writes what comes out */
static int deflate_out(hp_writer *w, const uint8_t *p, size_t n, int flush, struct hp_error *err)
{
	z_stream *z = w->z;
	while (n > 0 || flush == Z_FINISH) {
		uInt in = (uInt)(n > (1u << 30) ? (1u << 30) : n);
		z->next_in = (Bytef *)(uintptr_t)p;
		z->avail_in = in;
		int last = flush == Z_FINISH && in == n;
		int rc;
		do {
			z->next_out = w->zout;
			z->avail_out = ZOUT_CAP;
			rc = deflate(z, last ? Z_FINISH : Z_NO_FLUSH);
			if (rc == Z_STREAM_ERROR) {
				w->failed = 1;
				return hp_error_set(err, HP_EIO, "gzip: deflate failed");
			}
			size_t have = ZOUT_CAP - z->avail_out;
			if (have)
				HP_TRY(write_fd(w, w->zout, have, err));
		} while (z->avail_out == 0 || (last && rc != Z_STREAM_END));
		p += in;
		n -= in;
		if (last)
			break;
	}
	return HP_OK;
}

static int out_bytes(hp_writer *w, const uint8_t *p, size_t n, struct hp_error *err)
{
	w->flushed += n;
	if (w->level)
		return deflate_out(w, p, n, Z_NO_FLUSH, err);
	return write_fd(w, p, n, err);
}

static int flush_buf(hp_writer *w, struct hp_error *err)
{
	if (!w->len)
		return HP_OK;
	size_t n = w->len;
	w->len = 0;
	return out_bytes(w, w->buf, n, err);
}

static int z_start(hp_writer *w, struct hp_error *err)
{
	if (!w->z && !(w->z = hp_calloc(1, sizeof *w->z)))
		return hp_error_set(err, HP_ENOMEM, "out of memory");
	if (deflateInit2(w->z, w->level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return hp_error_set(err, HP_ENOMEM, "cannot initialise zlib");
	return HP_OK;
}

int hp_writer_new(hp_writer **out, int fd, int gzip_level, struct hp_error *err)
{
	*out = NULL;
	if (gzip_level < 0 || gzip_level > 9)
		return hp_error_set(err, HP_EUSAGE, "gzip level %d: expected 1 to 9", gzip_level);
	hp_writer *w = hp_calloc(1, sizeof *w);
	if (!w || !(w->buf = hp_malloc(BUF_CAP))) {
		hp_free(w);
		return hp_error_set(err, HP_ENOMEM, "out of memory");
	}
	w->cap = BUF_CAP;
	w->fd = fd;
	w->level = gzip_level;
	struct stat st;
	int fl = fcntl(fd, F_GETFL);
	w->seekable = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && lseek(fd, 0, SEEK_CUR) == 0 &&
		      fl >= 0 && !(fl & O_APPEND);
	if (w->level) {
		int rc;
		if (!(w->zout = hp_malloc(ZOUT_CAP))) {
			hp_writer_free(w);
			return hp_error_set(err, HP_ENOMEM, "out of memory");
		}
		if ((rc = z_start(w, err)) != HP_OK) {
			hp_writer_free(w);
			return rc;
		}
	}
	*out = w;
	return HP_OK;
}

void hp_writer_free(hp_writer *w)
{
	if (!w)
		return;
	if (w->z) {
		deflateEnd(w->z);
		hp_free(w->z);
	}
	hp_free(w->zout);
	hp_free(w->buf);
	hp_free(w);
}

int hp_writer_write(hp_writer *w, const void *p, size_t n, struct hp_error *err)
{
	if (n <= w->cap - w->len) {
		memcpy(w->buf + w->len, p, n);
		w->len += n;
		return HP_OK;
	}
	HP_TRY(flush_buf(w, err));
	if (n >= w->cap)
		return out_bytes(w, p, n, err);
	memcpy(w->buf, p, n);
	w->len = n;
	return HP_OK;
}

int hp_writer_fill(hp_writer *w, const uint8_t *unit, unsigned unit_len, uint64_t count, struct hp_error *err)
{
	uint64_t n = count * unit_len;
	while (n > 0) {
		if (w->len == w->cap)
			HP_TRY(flush_buf(w, err));
		size_t room = w->cap - w->len;
		size_t k = n < room ? (size_t)n : room;
		k -= k % unit_len;
		if (k == 0) {
			HP_TRY(flush_buf(w, err));
			continue;
		}
		uint8_t *q = w->buf + w->len;
		if (unit_len == 1) {
			memset(q, unit[0], k);
		} else {
			for (size_t i = 0; i < k; i += unit_len)
				memcpy(q + i, unit, unit_len);
		}
		w->len += k;
		n -= k;
	}
	return HP_OK;
}

uint8_t *hp_writer_space(hp_writer *w, size_t n, struct hp_error *err)
{
	if (n <= w->cap - w->len)
		return w->buf + w->len;
	if (flush_buf(w, err) != HP_OK)
		return NULL;
	if (n > w->cap) {
		uint8_t *nb = hp_realloc(w->buf, n);
		if (!nb) {
			hp_error_set(err, HP_ENOMEM, "out of memory buffering a %zu-byte record", n);
			return NULL;
		}
		w->buf = nb;
		w->cap = n;
	}
	return w->buf;
}

void hp_writer_commit(hp_writer *w, size_t n)
{
	w->len += n;
}

int hp_writer_record(hp_writer *w, int tag, uint32_t time, uint32_t len, struct hp_error *err)
{
	uint8_t h[9];
	h[0] = (uint8_t)tag;
	hp_put32(h + 1, time);
	hp_put32(h + 5, len);
	return hp_writer_write(w, h, sizeof h, err);
}

int hp_writer_finish(hp_writer *w, struct hp_error *err)
{
	HP_TRY(flush_buf(w, err));
	if (w->level)
		HP_TRY(deflate_out(w, NULL, 0, Z_FINISH, err));
	return HP_OK;
}

int hp_writer_failed(const hp_writer *w)
{
	return w->failed;
}

int hp_writer_seekable(const hp_writer *w)
{
	return w->seekable;
}

int hp_writer_rewind(hp_writer *w, struct hp_error *err)
{
	if (!hp_writer_seekable(w))
		return hp_error_set(err, HP_EUSAGE, "the output cannot be rewound");
	if (lseek(w->fd, 0, SEEK_SET) < 0 || ftruncate(w->fd, 0) != 0)
		return io_fail(err, "rewind");
	w->len = 0;
	w->flushed = 0;
	w->file_bytes = 0;
	if (w->level) {
		deflateEnd(w->z);
		HP_TRY(z_start(w, err));
	}
	return HP_OK;
}

uint64_t hp_writer_offset(const hp_writer *w)
{
	return w->flushed + w->len;
}

uint64_t hp_writer_file_bytes(const hp_writer *w)
{
	return w->file_bytes;
}
