/*
 * reader.c — hp_reader (reader.h): a regular file mapped whole; gzip
 * (multi-member) and pipes streamed through a window that grows only to
 * the largest request the data backs, read ahead by a thread into four
 * 1 MiB chunks (a jcmd -gz file's members inflated ahead on two more,
 * gzmembers.h); the format sniffing of hp_reader_open() and the spool.
 */
#include "parser/reader.h"
#include "parser/gzmembers.h"
#include "parser/inflate.h"
#include "base/alloc.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define BUF_INIT (1u << 20)
#define ZIN_CAP  (256u << 10)

static int io_error(struct hp_error *err, const hp_reader *r, const char *what)
{
	return hp_error_set(err, HP_EIO, "%s: %s", what, strerror(errno));
}

/* read() that retries on EINTR and fills as much as it can */
static ssize_t read_some(int fd, uint8_t *dst, size_t n)
{
	for (;;) {
		ssize_t k = read(fd, dst, n);
		if (k < 0 && errno == EINTR)
			continue;
		return k;
	}
}

static ssize_t ra_read(int fd, uint8_t *dst, size_t n);
static void spool_write(hp_reader *r, const uint8_t *p, size_t n);

/* raw bytes from the file descriptor, peeked bytes first */
static ssize_t raw_read(hp_reader *r, uint8_t *dst, size_t n)
{
	if (r->peek_pos < r->peek_len) {
		size_t k = r->peek_len - r->peek_pos;
		if (k > n)
			k = n;
		memcpy(dst, r->peek + r->peek_pos, k);
		r->peek_pos += k;
		return (ssize_t)k;
	}
	if (r->ra)
		return ra_read(r->fd, dst, n);
	return read_some(r->fd, dst, n);
}

static int sniff(hp_reader *r, const uint8_t *b, size_t n, struct hp_error *err)
{
	if (n == 0)
		return hp_error_set(err, HP_EFORMAT, "empty file: no HPROF header");
	if (n >= 4 && b[0] == 'P' && b[1] == 'K' && b[2] == 3 && b[3] == 4)
		return hp_error_set(err, HP_EFORMAT,
			"this is a zip archive, not a heap dump; unzip it first (unzip -p FILE > dump.hprof)");
	if (n >= 3 && b[0] == 'B' && b[1] == 'Z' && b[2] == 'h')
		return hp_error_set(err, HP_EFORMAT,
			"this is a bzip2 file; decompress it first (bunzip2 -k FILE) or pipe it: bzcat FILE | hprofan - ...");
	if (n >= 4 && b[0] == 0x28 && b[1] == 0xB5 && b[2] == 0x2F && b[3] == 0xFD)
		return hp_error_set(err, HP_EFORMAT,
			"this is a zstd file; pipe it: zstdcat FILE | hprofan - ...");
	if (n >= 6 && b[0] == 0xFD && memcmp(b + 1, "7zXZ", 4) == 0)
		return hp_error_set(err, HP_EFORMAT,
			"this is an xz file; pipe it: xzcat FILE | hprofan - ...");
	size_t m = n < 13 ? n : 13;
	if (n < 13 && memcmp(b, "JAVA PROFILE ", m) == 0)
		return hp_error_setpos(err, HP_ETRUNC, n, 0, -1, -1,
			"file ends inside the header (%zu bytes)", n);
	if (memcmp(b, "JAVA PROFILE ", m) != 0 || n < 13)
		return hp_error_set(err, HP_EFORMAT,
			"not an HPROF heap dump (it does not start with \"JAVA PROFILE\")");
	(void)r;
	return HP_OK;
}

static int is_gzip(const uint8_t *b, size_t n)
{
	return n >= 2 && b[0] == 0x1f && b[1] == 0x8b;
}

static int gz_init(hp_reader *r, struct hp_error *err)
{
	HP_TRY(hp_inflate_new(&r->z, hp_inflate_default(), err));
	r->zin = hp_malloc(ZIN_CAP);
	if (!r->zin)
		return hp_error_set(err, HP_ENOMEM, "out of memory");
	r->zin_cap = ZIN_CAP;
	r->kind = HP_RD_GZIP;
	return HP_OK;
}

/* At a member boundary of a jcmd -gz file, with the read-ahead thread:
 * the members the threads inflated ahead, while they have them (1), else
 * the reader inflates on from where they stopped itself (0; HP_EIO when
 * the file cannot be read from there). */
static int gz_ahead(hp_reader *r, hp_inflate *z, struct hp_error *err)
{
	if (!r->gzm_on) {
		if (!hp_gzm_start(r->gzm, r->src_in_total)) {
			r->gzm_on = -1;
			return 0;
		}
		r->gzm_on = 1;
		z->avail_in = 0;          /* they read the file from here on */
	}
	size_t k;
	int done;
	if (hp_gzm_take(r->gzm, z->next_out, z->avail_out, &k, &r->src_in_total, &done)) {
		z->next_out += k;
		z->avail_out -= k;
		if (done) {
			r->src_members++;
			r->src_ahead++;
		}
		return 1;
	}
	/* on from here, in order (the memory is freed with the reader) */
	r->gzm_on = -1;
	r->zin_eof = 0;
	if (lseek(r->fd, (off_t)r->src_in_total, SEEK_SET) < 0)
		return io_error(err, r, "read");
	return 0;
}

/* Inflates into dst (up to n bytes): *got bytes produced, 0 at the end
 * (src_cut set when the stream stops inside a member).  On an error, *got
 * still says how many bytes came before it.  Counts in src_members and
 * src_in_total, which are the read-ahead thread's while it runs. */
static int gz_read(hp_reader *r, uint8_t *dst, size_t n, size_t *got, struct hp_error *err)
{
	hp_inflate *z = r->z;
	int rc = HP_OK;
	size_t want = n > (1u << 30) ? (1u << 30) : n;
	*got = 0;
	z->next_out = dst;
	z->avail_out = want;
	while (z->avail_out > 0) {
		if (!r->z_in_member && (r->gzm_on == 1 || (r->gzm_on == 0 && r->gzm && r->ra))) {
			int a = gz_ahead(r, z, err);
			if (a == 1)
				continue;
			if (a != 0) {
				rc = a;
				break;
			}
		}
		if (z->avail_in == 0 && !r->zin_eof) {
			ssize_t k = raw_read(r, r->zin, r->zin_cap);
			if (k < 0) {
				rc = io_error(err, r, "read");
				break;
			}
			if (k == 0)
				r->zin_eof = 1;
			z->next_in = r->zin;
			z->avail_in = (size_t)k;
		}
		int drain = 0;
		if (z->avail_in == 0 && r->zin_eof) {
			if (!r->z_in_member)
				break;
			/* the input ends inside a member: what the inflater
			 * holds comes out first (ISA-L decodes ahead) */
			drain = 1;
		}
		if (!r->z_in_member) {
			/* at a member boundary: only another gzip member may follow */
			if (z->avail_in >= 1 && z->next_in[0] != 0x1f) {
				/* trailing zero padding is tolerated; anything else is not */
				size_t i = 0;
				while (i < z->avail_in && z->next_in[i] == 0)
					i++;
				if (i == z->avail_in) {
					r->src_in_total += z->avail_in;
					z->avail_in = 0;
					continue;
				}
				rc = hp_error_set(err, HP_ECORRUPT,
					"gzip: garbage after member %llu at compressed byte %llu",
					(unsigned long long)r->src_members,
					(unsigned long long)r->src_in_total);
				break;
			}
			r->z_in_member = 1;
		}
		size_t before_in = z->avail_in, before_out = z->avail_out;
		const char *why;
		int zrc = hp_inflate_step(z, &why);
		r->src_in_total += before_in - z->avail_in;
		if (zrc == HP_INFLATE_END) {
			r->src_members++;
			r->z_in_member = 0;
			hp_inflate_reset(z);
			continue;
		}
		if (zrc == HP_INFLATE_BAD) {
			rc = hp_error_set(err, HP_ECORRUPT,
				"gzip: corrupt compressed data at compressed byte %llu (%s)",
				(unsigned long long)r->src_in_total, why);
			break;
		}
		if (drain && z->avail_out == before_out) {
			/* the compressed stream stops inside a member */
			r->src_cut = 1;
			break;
		}
	}
	*got = want - z->avail_out;
	return rc;
}

/* The next bytes of a streamed input (up to n) into dst: *got of them, 0
 * at the end.  An error that comes after some bytes is kept for the next
 * call, so the bytes before it arrive however large the calls are. */
static int src_read(hp_reader *r, uint8_t *dst, size_t n, size_t *got)
{
	*got = 0;
	if (r->src_rc)
		return r->src_rc;
	int rc = HP_OK;
	if (r->kind == HP_RD_GZIP) {
		rc = gz_read(r, dst, n, got, &r->src_err);
	} else {
		ssize_t k = raw_read(r, dst, n);
		if (k < 0)
			rc = io_error(&r->src_err, r, "read");
		else
			*got = (size_t)k;
	}
	r->src_rc = rc;
	return *got ? HP_OK : rc;
}

/* ---- reading ahead --------------------------------------------------------
 * A streamed input is read (inflated) by a thread of its own into a ring of
 * chunks that hp_rd_fill() copies from, so that inflating overlaps parsing;
 * the thread also writes the spool.  It owns the input side (fd, zlib,
 * src_*, the spool) while it runs; the chunks between tail and head are the
 * reader's.  It stops at the end of the input, an error, or
 * hp_reader_free() (which cancels a read() that waits on a pipe). */
#define RA_CHUNKS 4
#define RA_CHUNK (1u << 20)

struct ra_chunk {
	uint8_t *p;
	size_t len;
	int end;                    /* 0; 1: the input ends after it; 2: the gzip stream is cut; 3: error */
	int rc;                     /* end 3: the error */
	struct hp_error err;
	uint64_t in_total, members, ahead;   /* the input's counts after it */
};

struct readahead {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct ra_chunk c[RA_CHUNKS];
	unsigned head, tail;        /* filled: [tail, head), counted modulo RA_CHUNKS */
	size_t pos;                 /* read of chunk tail */
	int stop;
};

static void *ra_main(void *arg)
{
	hp_reader *r = arg;
	struct readahead *ra = r->ra;
	int old;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	for (;;) {
		pthread_mutex_lock(&ra->mu);
		while (ra->head - ra->tail == RA_CHUNKS && !ra->stop)
			pthread_cond_wait(&ra->cv, &ra->mu);
		int stop = ra->stop;
		pthread_mutex_unlock(&ra->mu);
		if (stop)
			break;
		struct ra_chunk *c = &ra->c[ra->head % RA_CHUNKS];
		c->len = 0;
		c->end = 0;
		int rc = src_read(r, c->p, RA_CHUNK, &c->len);
		if (rc != HP_OK) {
			c->end = 3;
			c->rc = rc;
			c->err = r->src_err;
		} else if (c->len == 0) {
			c->end = r->src_cut ? 2 : 1;
		}
		if (r->spool_fd >= 0)
			spool_write(r, c->p, c->len);
		c->in_total = r->src_in_total;
		c->members = r->src_members;
		c->ahead = r->src_ahead;
		pthread_mutex_lock(&ra->mu);
		ra->head++;
		pthread_cond_broadcast(&ra->cv);
		pthread_mutex_unlock(&ra->mu);
		if (c->end)
			break;
	}
	return NULL;
}

/* cancel only inside read(): a pipe that sends nothing must not keep
 * hp_reader_free() waiting */
static ssize_t ra_read(int fd, uint8_t *dst, size_t n)
{
	int old;
	pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old);
	ssize_t k = read_some(fd, dst, n);
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	return k;
}

static void ra_free(hp_reader *r)
{
	struct readahead *ra = r->ra;
	for (int i = 0; i < RA_CHUNKS; i++)
		hp_free(ra->c[i].p);
	hp_free(ra);
	r->ra = NULL;
}

/* starts the thread; without one (no memory, no thread) the reader reads
 * as it goes */
static void ra_start(hp_reader *r)
{
	struct readahead *ra = hp_calloc(1, sizeof *ra);
	if (!ra)
		return;
	r->ra = ra;
	for (int i = 0; i < RA_CHUNKS; i++)
		if (!(ra->c[i].p = hp_malloc(RA_CHUNK))) {
			ra_free(r);
			return;
		}
	/* a jcmd -gz file's members: the threads' memory now, in this
	 * thread; they start at the thread's first member boundary */
	if (r->gz_block && !r->gzm)
		r->gzm = hp_gzm_new(r->fd, r->file_size, r->gz_block, r->z->kind);
	pthread_mutex_init(&ra->mu, NULL);
	pthread_cond_init(&ra->cv, NULL);
	if (pthread_create(&ra->th, NULL, ra_main, r) != 0) {
		pthread_mutex_destroy(&ra->mu);
		pthread_cond_destroy(&ra->cv);
		ra_free(r);
	}
}

/* stops the thread and waits for it: the input side is the reader's again */
static void ra_stop(hp_reader *r)
{
	struct readahead *ra = r->ra;
	if (!ra)
		return;
	pthread_mutex_lock(&ra->mu);
	ra->stop = 1;
	pthread_cond_broadcast(&ra->cv);
	pthread_mutex_unlock(&ra->mu);
	pthread_cancel(ra->th);
	pthread_join(ra->th, NULL);
	pthread_mutex_destroy(&ra->mu);
	pthread_cond_destroy(&ra->cv);
	ra_free(r);
}

/* hp_rd_fill's source with the thread: bytes of the chunks, in order */
static int ra_take(hp_reader *r, uint8_t *dst, size_t n, size_t *got, int *cut, struct hp_error *err)
{
	struct readahead *ra = r->ra;
	*got = 0;
	*cut = 0;
	pthread_mutex_lock(&ra->mu);
	while (ra->head == ra->tail)
		pthread_cond_wait(&ra->cv, &ra->mu);
	pthread_mutex_unlock(&ra->mu);
	struct ra_chunk *c = &ra->c[ra->tail % RA_CHUNKS];
	r->z_in_total = c->in_total;
	r->z_members = c->members;
	r->z_ahead = c->ahead;
	size_t k = c->len - ra->pos;
	if (k == 0 && c->end) {
		if (c->end == 3)
			return hp_error_set(err, c->rc, "%s", c->err.msg);
		*cut = c->end == 2;
		return HP_OK;        /* the end: stays at it */
	}
	if (k > n)
		k = n;
	memcpy(dst, c->p + ra->pos, k);
	ra->pos += k;
	*got = k;
	if (ra->pos == c->len && !c->end) {
		pthread_mutex_lock(&ra->mu);
		ra->tail++;
		ra->pos = 0;
		pthread_cond_broadcast(&ra->cv);
		pthread_mutex_unlock(&ra->mu);
	}
	return HP_OK;
}

int hp_reader_open(hp_reader **out, const char *path, struct hp_error *err)
{
	*out = NULL;
	hp_reader *r = hp_calloc(1, sizeof *r);
	if (!r)
		return hp_error_set(err, HP_ENOMEM, "out of memory");
	r->fd = -1;
	r->spool_fd = -1;
	hp_error_clear(&r->src_err);
	r->name = hp_strdup(path);
	if (!r->name) {
		hp_free(r);
		return hp_error_set(err, HP_ENOMEM, "out of memory");
	}
	int rc;
	if (strcmp(path, "-") == 0) {
		r->fd = 0;
	} else {
		r->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (r->fd < 0) {
			rc = io_error(err, r, "cannot open");
			goto fail;
		}
		r->own_fd = 1;
	}
	struct stat st;
	if (fstat(r->fd, &st) != 0) {
		rc = io_error(err, r, "cannot stat");
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		rc = io_error(err, r, "cannot read");
		goto fail;
	}
	if (S_ISREG(st.st_mode))
		r->file_size = (uint64_t)st.st_size;
#ifdef F_SETPIPE_SZ
	if (S_ISFIFO(st.st_mode))
		(void)fcntl(r->fd, F_SETPIPE_SZ, 1 << 20);   /* fewer, larger reads; best effort */
#endif

	/* sniff the first bytes */
	uint8_t head[16];
	size_t hn = 0;
	if (S_ISREG(st.st_mode) && st.st_size > 0) {
		ssize_t k = pread(r->fd, head, sizeof head, 0);
		if (k < 0) {
			rc = io_error(err, r, "read");
			goto fail;
		}
		hn = (size_t)k;
	} else if (!S_ISREG(st.st_mode)) {
		while (hn < sizeof head) {
			ssize_t k = read_some(r->fd, head + hn, sizeof head - hn);
			if (k < 0) {
				rc = io_error(err, r, "read");
				goto fail;
			}
			if (k == 0)
				break;
			hn += (size_t)k;
		}
		memcpy(r->peek, head, hn);
		r->peek_len = hn;
	}
	if (is_gzip(head, hn)) {
		if ((rc = gz_init(r, err)) != HP_OK)
			goto fail;
		/* a jcmd -gz file: its members can be inflated ahead */
		uint8_t sig[HP_GZM_SIG_MAX];
		ssize_t k = S_ISREG(st.st_mode) && !hp_inflate_serial() ? pread(r->fd, sig, sizeof sig, 0) : 0;
		if (k <= 0 || !hp_gzm_signature(sig, (size_t)k, &r->gz_block))
			r->gz_block = 0;
	} else {
		if ((rc = sniff(r, head, hn, err)) != HP_OK)
			goto fail;
		if (S_ISREG(st.st_mode)) {
			void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, r->fd, 0);
			if (m == MAP_FAILED) {
				rc = io_error(err, r, "mmap");
				goto fail;
			}
			madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
			madvise(m, (size_t)st.st_size, MADV_WILLNEED);
			r->map = m;
			r->map_len = (size_t)st.st_size;
			r->kind = HP_RD_MMAP;
			r->win = r->pos = m;
			r->end = r->map + r->map_len;
			r->at_eof = 1;
			*out = r;
			return HP_OK;
		}
		r->kind = HP_RD_FILE;
	}
	r->buf = hp_malloc(BUF_INIT);
	if (!r->buf) {
		rc = hp_error_set(err, HP_ENOMEM, "out of memory");
		goto fail;
	}
	r->cap = BUF_INIT;
	r->win = r->pos = r->end = r->buf;
	if (r->kind == HP_RD_GZIP) {
		/* the inflated stream must itself be HPROF */
		if ((rc = hp_rd_fill(r, 13, err)) != HP_OK && rc != HP_ETRUNC)
			goto fail;
		if ((rc = sniff(r, r->pos, hp_rd_avail(r), err)) != HP_OK) {
			size_t av = hp_rd_avail(r);
			if (r->at_eof == 2 && av == 0)
				hp_error_set(err, HP_ETRUNC,
					"gzip stream ends before any data (cut short after %llu compressed bytes)",
					(unsigned long long)r->z_in_total);
			else if (r->at_eof == 2 && memcmp(r->pos, "JAVA PROFILE ", av < 13 ? av : 13) == 0)
				hp_error_set(err, HP_ETRUNC,
					"the gzip stream is cut short after %llu compressed bytes, inside the HPROF header",
					(unsigned long long)r->z_in_total);
			else if (rc == HP_EFORMAT && av == 0)
				hp_error_set(err, HP_EFORMAT, "empty gzip stream: no HPROF header");
			else if (rc == HP_EFORMAT)
				hp_error_set(err, HP_EFORMAT,
					"gzip file does not contain an HPROF heap dump");
			rc = err->code;
			goto fail;
		}
	} else {
		if ((rc = hp_rd_fill(r, 13, err)) != HP_OK && rc != HP_ETRUNC)
			goto fail;
		if ((rc = sniff(r, r->pos, hp_rd_avail(r), err)) != HP_OK)
			goto fail;
	}
	r->ra_ok = 1;                /* read ahead from the first fill on */
	*out = r;
	return HP_OK;
fail:
	hp_reader_free(r);
	return rc;
}

void hp_reader_free(hp_reader *r)
{
	if (!r)
		return;
	ra_stop(r);
	hp_gzm_free(r->gzm);
	if (r->map)
		munmap(r->map, r->map_len);
	hp_inflate_free(r->z);
	hp_free(r->zin);
	hp_free(r->buf);
	if (r->own_fd && r->fd >= 0)
		close(r->fd);
	hp_free(r->name);
	hp_free(r);
}

const char *hp_reader_kind_name(const hp_reader *r)
{
	switch (r->kind) {
	case HP_RD_MMAP: return "file";
	case HP_RD_GZIP: return "gzip";
	default: return "stream";
	}
}

const char *hp_reader_inflater(const hp_reader *r)
{
	return r->kind == HP_RD_GZIP && r->z ? hp_inflate_kind_name(r->z->kind) : NULL;
}

uint64_t hp_reader_progress(const hp_reader *r)
{
	if (r->kind == HP_RD_GZIP)
		return r->z_in_total;
	return hp_rd_offset(r);
}

/* n bytes into the spool, or the spool given up with the write's errno */
static void spool_write(hp_reader *r, const uint8_t *p, size_t n)
{
	while (n > 0 && r->spool_fd >= 0) {
		ssize_t k = write(r->spool_fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			r->spool_errno = k < 0 ? errno : ENOSPC;
			r->spool_fd = -1;
			return;
		}
		p += k;
		n -= (size_t)k;
		r->spooled += (uint64_t)k;
	}
}

void hp_reader_spool(hp_reader *r, int fd)
{
	if (r->kind == HP_RD_MMAP || r->ra || r->win_off != 0 || r->win != r->buf) {
		r->spool_errno = EINVAL;   /* too late: bytes were let go */
		return;
	}
	r->spool_fd = fd;
	r->spooled = 0;
	spool_write(r, r->buf, (size_t)(r->end - r->buf));
}

int64_t hp_reader_spooled(hp_reader *r, int *errnum)
{
	ra_stop(r);
	*errnum = r->spool_errno;
	return r->spool_errno ? -1 : (int64_t)r->spooled;
}

/* Moves the unread bytes to the start of the buffer, growing it when the
 * request does not fit, then reads until n bytes are available or input ends. */
int hp_rd_fill(hp_reader *r, size_t n, struct hp_error *err)
{
	if (r->kind == HP_RD_MMAP || r->at_eof)
		return HP_ETRUNC;
	size_t have = (size_t)(r->end - r->pos);
	if (r->pos != r->buf) {
		r->win_off += (uint64_t)(r->pos - r->buf);
		memmove(r->buf, r->pos, have);
		r->win = r->pos = r->buf;
		r->end = r->buf + have;
	}
	while (have < n) {
		if (have == r->cap) {
			/* grow by doubling: only ever as far as data actually arrived */
			size_t nc = r->cap * 2;
			if (nc < r->cap) 
				return hp_error_set(err, HP_ENOMEM, "record too large for memory");
			uint8_t *nb = hp_realloc(r->buf, nc);
			if (!nb)
				return hp_error_set(err, HP_ENOMEM,
					"out of memory buffering a %zu-byte record", n);
			r->buf = nb;
			r->cap = nc;
			r->win = r->pos = nb;
			r->end = nb + have;
		}
		size_t room = r->cap - have;
		size_t got = 0;
		int rc, cut;
		if (!r->ra && r->ra_ok) {
			/* not under a memory limit: its figures stay those of
			 * the reader's one buffer */
			r->ra_ok = 0;
			if (!hp_alloc_limit())
				ra_start(r);
		}
		if (r->ra) {
			rc = ra_take(r, r->buf + have, room, &got, &cut, err);
		} else {
			rc = src_read(r, r->buf + have, room, &got);
			if (rc != HP_OK)
				hp_error_set(err, rc, "%s", r->src_err.msg);
			cut = r->src_cut;
			r->z_in_total = r->src_in_total;
			r->z_members = r->src_members;
			r->z_ahead = r->src_ahead;
		}
		if (rc != HP_OK)
			return rc;
		if (got == 0) {
			r->at_eof = cut ? 2 : 1;
			return HP_ETRUNC;
		}
		if (!r->ra && r->spool_fd >= 0)
			spool_write(r, r->buf + have, got);
		have += got;
		r->end = r->buf + have;
	}
	return HP_OK;
}

int hp_rd_skip_slow(hp_reader *r, uint64_t n, struct hp_error *err)
{
	for (;;) {
		uint64_t have = (uint64_t)(r->end - r->pos);
		if (have >= n) {
			r->pos += n;
			return HP_OK;
		}
		n -= have;
		r->pos = r->end;
		if (r->kind == HP_RD_MMAP || r->at_eof)
			return HP_ETRUNC;
		size_t want = n < r->cap ? (size_t)n : r->cap;
		int rc = hp_rd_fill(r, want, err);
		if (rc == HP_ETRUNC) {
			if ((uint64_t)(r->end - r->pos) >= n) {
				r->pos += n;
				return HP_OK;
			}
			r->pos = r->end;
			return HP_ETRUNC;
		}
		if (rc != HP_OK)
			return rc;
	}
}

void hp_reader_release_before(hp_reader *r, uint64_t off)
{
	const uint64_t step = 8ull << 20;
	if (r->kind != HP_RD_MMAP || off > r->map_len)
		return;
	uint64_t end = off & ~(uint64_t)0xfffff;        /* 1 MiB multiples: page aligned */
	if (end < r->released + step)
		return;
	madvise(r->map + r->released, (size_t)(end - r->released), MADV_DONTNEED);
	r->released = end;
}
