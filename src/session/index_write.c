/* index_write.c — the index written: its sections, summed as they go out,
 * into a temporary file in the index's directory that is renamed over the
 * index when complete; the object columns on a thread of their own while
 * the caller computes retained sizes (index.h). */
#include "session/index_format.h"
#include "base/dir.h"
#include "base/alloc.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

struct wsec { int id; size_t elem; const void *p; uint64_t len; };

static int write_all(int fd, const void *p, uint64_t n, uint64_t off)
{
	const char *b = p;
	while (n) {
		size_t k = n > (1u << 30) ? (1u << 30) : (size_t)n;
		ssize_t w = pwrite(fd, b, k, (off_t)off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		b += w;
		n -= (uint64_t)w;
		off += (uint64_t)w;
	}
	return 0;
}

/* writes a section and sums it on the way, 8 blocks at a time, each
 * summed while the cache holds it */
static int write_summed(int fd, const void *p, uint64_t len, uint64_t off, uint64_t *sum)
{
	uint64_t nb = ix_nblocks(len), one = 0, *sums = nb > 1 ? hp_reallocarray(NULL, (size_t)nb, sizeof *sums) : &one;
	if (!sums) {
		errno = ENOMEM;
		return -1;
	}
	int rc = 0;
	for (uint64_t b = 0; b < nb && !rc; b += 8) {
		uint64_t e = b + 8 < nb ? b + 8 : nb;
		for (uint64_t k = b; k < e; k++)
			sums[k] = ix_block_sum(p, len, k);
		uint64_t from = b * IX_BLOCK, to = e * IX_BLOCK < len ? e * IX_BLOCK : len;
		rc = write_all(fd, (const char *)p + from, to - from, off + from);
	}
	*sum = ix_sum_of_blocks(sums, len);
	if (sums != &one)
		hp_free(sums);
	return rc;
}

/* The temporary file, in the index's directory, which is opened once and
 * checked (trust, above): every name below is made relative to it, never
 * followed.  Unnamed (O_TMPFILE) where the file system can, so that a
 * process killed before the end leaves nothing; else a new name
 * INDEX.tmp.PID.N made with O_EXCL | O_NOFOLLOW. */
struct tmpf {
	int fd, dfd;
	char *name;                   /* NULL: unnamed */
};

static const char *base_of_path(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* the n-th name of the temporary file beside base (this process's) */
static void tmp_name(char *buf, size_t n, const char *base, unsigned k)
{
	snprintf(buf, n, "%s.tmp.%ld.%u", base, (long)getpid(), k);
}

static void tmp_close(struct tmpf *t, int remove)
{
	if (t->fd >= 0)
		close(t->fd);
	if (remove && t->name && t->dfd >= 0)
		unlinkat(t->dfd, t->name, 0);
	if (t->dfd >= 0)
		close(t->dfd);
	hp_free(t->name);
	t->fd = t->dfd = -1;
	t->name = NULL;
}

static int tmp_open(const char *path, struct tmpf *t, struct hp_error *err)
{
	t->fd = t->dfd = -1;
	t->name = NULL;
	const char *base;
	if ((t->dfd = hp_open_parent(AT_FDCWD, path, &base)) < 0)
		return hp_error_set(err, HP_EIO, "cannot open the directory of %s: %s", path, strerror(errno));
	struct stat st;
	char why[160];
	int bad = fstat(t->dfd, &st) != 0;
	if (bad)
		ix_set_why(why, sizeof why, "%s", strerror(errno));
	if (bad || ix_dir_trusted(&st, why, sizeof why)) {
		tmp_close(t, 0);
		return hp_error_set(err, HP_EIO, "%s: not written there: %s", path, why);
	}
#ifdef O_TMPFILE
	/* (linked through /proc at the end) */
	if (access("/proc/self/fd", X_OK) == 0 &&
	    (t->fd = openat(t->dfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600)) >= 0)
		return HP_OK;
#endif
	size_t n = strlen(base) + 48;
	if (!(t->name = hp_malloc(n))) {
		tmp_close(t, 0);
		return hp_error_set(err, HP_ENOMEM, "out of memory");
	}
	for (unsigned k = 0; k < 100; k++) {
		tmp_name(t->name, n, base, k);
		if ((t->fd = openat(t->dfd, t->name, O_CREAT | O_EXCL | O_NOFOLLOW | O_RDWR | O_CLOEXEC, 0600)) >= 0)
			return HP_OK;
		if (errno != EEXIST)
			break;
	}
	int e = errno;
	hp_free(t->name);
	t->name = NULL;
	tmp_close(t, 0);
	return hp_error_set(err, HP_EIO, "cannot create a file beside %s: %s", path, strerror(e));
}

/* the whole file put in place of the index: an unnamed one linked under
 * a new name of its own first, then renamed over it (a link or anything
 * else at the index's name is replaced, never followed) */
static int tmp_commit(struct tmpf *t, const char *path, struct hp_error *err)
{
	const char *base = base_of_path(path);
	if (t->name)
		return renameat(t->dfd, t->name, t->dfd, base) == 0 ? HP_OK
		       : hp_error_set(err, HP_EIO, "cannot put %s in place: %s", path, strerror(errno));
	char proc[64], name[512];
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", t->fd);
	for (unsigned k = 0; k < 100; k++) {
		tmp_name(name, sizeof name, base, k);
		if (linkat(AT_FDCWD, proc, t->dfd, name, AT_SYMLINK_FOLLOW) == 0) {
			if (renameat(t->dfd, name, t->dfd, base) == 0)
				return HP_OK;
			int e = errno;
			unlinkat(t->dfd, name, 0);
			return hp_error_set(err, HP_EIO, "cannot put %s in place: %s", path, strerror(e));
		}
		if (errno != EEXIST)
			break;
	}
	return hp_error_set(err, HP_EIO, "cannot link a file beside %s: %s", path, strerror(errno));
}

/* The object columns, written first and by a thread of their own while
 * the caller computes retained sizes (hp_index_write_start): they are
 * most of the model and fixed once it is finished. */
static const int early_ids[] = { S_IDS, S_IDS32, S_CLS, S_LEN, S_OFF_LO, S_OFF_HI, S_BUCKET, S_FILE_ORDER };
#define NEARLY (sizeof early_ids / sizeof early_ids[0])
#define IX_TABLE_END (((sizeof(struct ix_header) + (S_MAX + 4) * sizeof(struct ix_section)) + IX_ALIGN - 1) & \
		      ~(uint64_t)(IX_ALIGN - 1))

struct hp_index_writer {
	struct tmpf t;
	char *path;
	pthread_t th;
	int threaded, rc, err_no;
	size_t n;
	struct wsec sec[NEARLY];
	uint64_t off[NEARLY], sum[NEARLY];
	uint64_t end;                 /* where the other sections start */
};

static void *write_early(void *arg)
{
	hp_index_writer *w = arg;
	for (size_t i = 0; i < w->n && !w->rc; i++)
		if (write_summed(w->t.fd, w->sec[i].p, w->sec[i].len, w->off[i], &w->sum[i]) != 0) {
			w->rc = HP_EIO;
			w->err_no = errno;
		}
	return NULL;
}

static void writer_join(hp_index_writer *w)
{
	if (w->threaded) {
		pthread_join(w->th, NULL);
		w->threaded = 0;
	}
}

void hp_index_write_abort(hp_index_writer *w)
{
	if (!w)
		return;
	writer_join(w);
	tmp_close(&w->t, 1);
	hp_free(w->path);
	hp_free(w);
}

/* ---- room for it -------------------------------------------------------
 * Before bytes are written, the file system that holds the index must have
 * had room for the whole of it (WHOLE bytes) plus a margin (an eighth of
 * it, at least 16 MiB) left free: an index is a convenience, never a reason
 * to fill a user's disk.  What was free is fstatvfs's figure for
 * unprivileged users (f_bavail) plus what the temporary file already holds
 * (the sections written early); for tests, HPROFAN_TEST_INDEX_FREE=N
 * (bytes) says what was free instead. */
static int room_for(int fd, uint64_t whole, const char *path, struct hp_error *err)
{
	uint64_t avail;
	const char *s = getenv("HPROFAN_TEST_INDEX_FREE");
	char *end;
	if (s && *s && (avail = strtoull(s, &end, 10), *end == '\0')) {
		/* (stated by a test) */
	} else {
		struct statvfs v;
		struct stat st;
		if (fstatvfs(fd, &v) != 0 || fstat(fd, &st) != 0)
			return HP_OK;   /* unknown: the writes themselves say */
		avail = (uint64_t)v.f_bavail * (uint64_t)(v.f_frsize ? v.f_frsize : v.f_bsize) +
			(uint64_t)st.st_blocks * 512u;
	}
	uint64_t margin = whole / 8 > (16u << 20) ? whole / 8 : (16u << 20);
	if (whole + margin <= avail)
		return HP_OK;
	return hp_error_set(err, HP_EIO, "%s would take %.1f MiB and only %.1f MiB are free there "
			    "(%.1f MiB must stay free)", path, whole / 1048576.0, avail / 1048576.0,
			    margin / 1048576.0);
}

int hp_index_write_start(hp_index_writer **out, const char *path, const hp_heap *h, struct hp_error *err)
{
	*out = NULL;
	hp_index_writer *w = hp_calloc(1, sizeof *w);
	if (!w || !(w->path = hp_strdup(path))) {
		hp_free(w);
		return hp_error_set(err, HP_ENOMEM, "out of memory");
	}
	if (tmp_open(path, &w->t, err) != HP_OK) {
		hp_free(w->path);
		hp_free(w);
		return err->code ? err->code : HP_EIO;
	}
	uint64_t off = IX_TABLE_END;
	for (size_t k = 0; k < NEARLY; k++)
		for (size_t i = 0; i < NDESCS; i++) {
			const struct ix_desc *d = &ix_descs[i];
			const void *p;
			if (d->id != early_ids[k] || !(p = *(void *const *)(const void *)((const char *)h + d->ptr_off)))
				continue;
			uint64_t len = ix_count_of(d->id, h, NULL, NULL, NULL) * d->elem;
			w->sec[w->n] = (struct wsec){ d->id, d->elem, p, len };
			w->off[w->n++] = off;
			off = (off + len + IX_ALIGN - 1) & ~(uint64_t)(IX_ALIGN - 1);
		}
	w->end = off;
	if (room_for(w->t.fd, w->end, path, err) != HP_OK) {
		hp_index_write_abort(w);
		return HP_EIO;
	}
	w->threaded = pthread_create(&w->th, NULL, write_early, w) == 0;
	if (!w->threaded)
		write_early(w);   /* (now, then) */
	*out = w;
	return HP_OK;
}

int hp_index_write(const char *path, const struct hp_index_ident *id, const struct hp_index_key *key,
		   const hp_heap *h, const struct hp_load_info *L, const struct hp_retained *R,
		   const struct hp_pathsearch *ps, uint64_t *bytes, struct hp_error *err)
{
	return hp_index_write_finish(NULL, path, id, key, h, L, R, ps, bytes, err);
}

int hp_index_write_finish(hp_index_writer *w, const char *path, const struct hp_index_ident *id,
			  const struct hp_index_key *key, const hp_heap *h, const struct hp_load_info *L,
			  const struct hp_retained *R, const struct hp_pathsearch *ps, uint64_t *bytes,
			  struct hp_error *err)
{
	if (w) {
		writer_join(w);
		if (w->rc || strcmp(w->path, path) != 0) {
			/* the columns could not be written: all of it again */
			hp_index_write_abort(w);
			w = NULL;
		}
	}
	/* the subtree counts, which the browser opens on, made here when
	 * the retained sizes were computed (left out when there is no memory
	 * for them: the browser then counts them itself) */
	struct hp_retained Rw;
	uint32_t *subtree = NULL;
	if (R) {
		Rw = *R;
		if (!Rw.subtree && hp_retained_subtree(R, h->nobj, &subtree) == HP_OK)
			Rw.subtree = subtree;
		R = &Rw;
	}
	/* the images: the structs with their pointers cleared */
	hp_heap himg = *h;
	struct hp_load_info limg = *L;
	struct hp_retained rimg;
	struct hp_pathsearch pimg;
	if (R)
		rimg = *R;
	if (ps)
		pimg = *ps;
	ix_clear_ptrs(&himg, &limg, R ? &rimg : NULL, ps ? &pimg : NULL);
	const char *why_not = h->size.vm.why_not;

	struct wsec ws[S_MAX + 4];
	size_t nw = 0;
	ws[nw++] = (struct wsec){ S_HEAP_IMG, 1, &himg, sizeof himg };
	ws[nw++] = (struct wsec){ S_LOAD_IMG, 1, &limg, sizeof limg };
	if (R)
		ws[nw++] = (struct wsec){ S_RET_IMG, 1, &rimg, sizeof rimg };
	if (ps)
		ws[nw++] = (struct wsec){ S_PATH_IMG, 1, &pimg, sizeof pimg };
	if (why_not)
		ws[nw++] = (struct wsec){ S_WHYNOT, 1, why_not, strlen(why_not) + 1 };
	for (size_t i = 0; i < NDESCS; i++) {
		const struct ix_desc *d = &ix_descs[i];
		const void *base = ix_base_of(d->base, h, L, R, ps);
		if (!base)
			continue;
		const void *p = *(void *const *)(const void *)((const char *)base + d->ptr_off);
		if (!p)
			continue;   /* absent: NULL when read back */
		uint64_t cnt = ix_count_of(d->id, h, L, R, ps);
		ws[nw++] = (struct wsec){ d->id, d->elem, p, cnt * d->elem };
	}

	struct ix_header hd;
	memset(&hd, 0, sizeof hd);
	memcpy(hd.magic, IX_MAGIC, 8);
	hd.version = HP_INDEX_VERSION;
	hd.endian = IX_ENDIAN;
	hd.word_size = (uint32_t)sizeof(void *);
	hd.layout = ix_layout_signature();
	hd.ident = *id;
	hd.key = *key;
	hd.has_retained = R != NULL;
	hd.weak = R ? R->weak : -1;
	hd.roots = R ? R->roots_policy : -1;
	hd.has_paths = ps != NULL;
	hd.nsections = (uint32_t)nw;
	hd.table_off = sizeof hd;
	snprintf(hd.reader_kind, sizeof hd.reader_kind, "%s", L->reader_kind ? L->reader_kind : "file");
	struct ix_section *tab = hp_calloc(nw, sizeof *tab);
	if (!tab) {
		hp_free(subtree);
		hp_index_write_abort(w);
		return hp_error_set(err, HP_ENOMEM, "out of memory");
	}
	/* after the table (room for every section with a writer that began
	 * early), each section where the early one put it or after the rest */
	uint64_t off = w ? w->end : hd.table_off + nw * sizeof *tab;
	uint8_t *done = hp_calloc(nw, 1);
	if (!done) {
		hp_free(subtree);
		hp_free(tab);
		hp_index_write_abort(w);
		return hp_error_set(err, HP_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < nw; i++) {
		tab[i].id = (uint32_t)ws[i].id;
		tab[i].elem = (uint32_t)ws[i].elem;
		tab[i].len = ws[i].len;
		for (size_t k = 0; w && k < w->n; k++)
			if (w->sec[k].id == ws[i].id && w->sec[k].p == ws[i].p && w->sec[k].len == ws[i].len) {
				tab[i].off = w->off[k];
				tab[i].sum = w->sum[k];
				done[i] = 1;
			}
		if (done[i])
			continue;
		off = (off + IX_ALIGN - 1) & ~(uint64_t)(IX_ALIGN - 1);
		tab[i].off = off;
		off += ws[i].len;
	}
	if (w && off < w->end)
		off = w->end;
	hd.file_size = off;

	struct tmpf t;
	if (w) {
		t = w->t;
		w->t.fd = w->t.dfd = -1;
		w->t.name = NULL;
		hp_free(w->path);
		hp_free(w);
	} else if (tmp_open(path, &t, err) != HP_OK) {
		hp_free(subtree);
		hp_free(done);
		hp_free(tab);
		return err->code ? err->code : HP_EIO;
	}
	int fd = t.fd, rc = HP_OK;
	if (room_for(fd, hd.file_size, path, err) != HP_OK) {
		tmp_close(&t, 1);
		hp_free(subtree);
		hp_free(done);
		hp_free(tab);
		return HP_EIO;
	}
	for (size_t i = 0; i < nw && !rc; i++)
		if (!done[i] && write_summed(fd, ws[i].p, ws[i].len, tab[i].off, &tab[i].sum) != 0)
			rc = HP_EIO;
	if (!rc) {
		hd.table_crc = ix_crc(tab, nw * sizeof *tab);
		hd.header_crc = ix_crc(&hd, offsetof(struct ix_header, header_crc));
		if (write_all(fd, &hd, sizeof hd, 0) != 0 || write_all(fd, tab, nw * sizeof *tab, hd.table_off) != 0 ||
		    ftruncate(fd, (off_t)hd.file_size) != 0)
			rc = HP_EIO;
	}
	if (rc)
		hp_error_set(err, HP_EIO, "cannot write %s: %s", path, strerror(errno));
	if (!rc)
		rc = tmp_commit(&t, path, err);
	if (close(fd) != 0 && !rc)
		rc = hp_error_set(err, HP_EIO, "cannot write %s: %s", path, strerror(errno));
	t.fd = -1;
	tmp_close(&t, rc != HP_OK);
	hp_free(subtree);
	hp_free(done);
	hp_free(tab);
	if (!rc && bytes)
		*bytes = hd.file_size;
	return rc;
}
