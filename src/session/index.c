/* index.c — the index file: writing, mapping and checking (index.h,
 * docs/index-format.md). */
#include "session/index.h"
#include "session/session.h"
#include "base/alloc.h"
#include "base/hash.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define IX_MAGIC "HPRFIDX\n"
#define IX_ALIGN 64
#define IX_ENDIAN 0x01020304u
#define IX_IDENT_SPAN (64u << 10)

/* the header, at offset 0; the section table follows it */
struct ix_header {
	char magic[8];
	uint32_t version, endian, word_size, layout;
	uint64_t file_size;           /* the index's own size */
	struct hp_index_ident ident;
	struct hp_index_key key;
	int32_t has_retained, weak, roots, has_paths;
	uint32_t nsections, table_crc;
	uint64_t table_off;
	char reader_kind[16];
	uint8_t reserved[104];
	uint32_t pad1, header_crc;    /* CRC-32 of the bytes before header_crc */
};
_Static_assert(sizeof(struct ix_header) == 256, "index header is 256 bytes");

struct ix_section {
	uint32_t id, elem;            /* section id, element size */
	uint64_t off, len;            /* bytes from the start of the file; len a multiple of elem */
	uint64_t sum;                 /* hp_index_section_sum() of its bytes */
};

/* where a section's array lives: which struct, the offset of its pointer */
enum { B_HEAP, B_LOAD, B_RET, B_PATH };

enum {
	S_HEAP_IMG = 1, S_LOAD_IMG, S_RET_IMG, S_WHYNOT,
	S_STR_KEYS, S_STR_VALS, S_STR_OFF, S_STR_LEN, S_ARENA, S_TEXT,
	S_CLASSES, S_CLASS_KEYS, S_CLASS_VALS, S_SERIAL_KEYS, S_SERIAL_VALS, S_FIELDS, S_STATICS,
	S_ROWS, S_FRAMES, S_FRAME_KEYS, S_FRAME_VALS, S_TRACES, S_TRACE_FRAMES, S_TRACE_KEYS,
	S_TRACE_VALS, S_THREADS, S_THREAD_KEYS, S_THREAD_VALS, S_ROOTS,
	S_IDS, S_CLS, S_LEN, S_OFF_LO, S_OFF_HI, S_BUCKET, S_FILE_ORDER, S_WARNINGS, S_DUMPS,
	S_R_OFF, S_R_OFF32, S_R_ADJ, S_R_REFERENTS, S_R_FOLLOWED, S_R_CLASS_OBJ, S_D_IDOM, S_D_ORDER,
	S_R_SHALLOW, S_R_RETAINED, S_R_ROOT_OBJS, S_R_ROOT_KINDS, S_R_CHILD_OFF, S_R_CHILDREN,
	S_R_CLASS_RET, S_R_ROW_RET,
	S_PATH_IMG, S_PG_OFF, S_PG_OFF32, S_PG_ADJ, S_PG_REFERENTS, S_PG_FOLLOWED, S_PG_CLASS_OBJ,
	S_P_PARENT, S_P_DEPTH,
	S_ALLOC_RECS, S_ALLOC_SITES, S_SUMMARIES, S_CPU_RECS, S_CPU_SAMPLES,
	S_R_SUBTREE,
	S_MAX
};

struct desc {
	int id, base;
	size_t elem, ptr_off;
};

#define H(id, f) { id, B_HEAP, sizeof *((hp_heap *)0)->f, offsetof(hp_heap, f) }
#define R(id, f) { id, B_RET, sizeof *((struct hp_retained *)0)->f, offsetof(struct hp_retained, f) }
#define P(id, f) { id, B_PATH, sizeof *((struct hp_pathsearch *)0)->f, offsetof(struct hp_pathsearch, f) }
static const struct desc descs[] = {
	H(S_STR_KEYS, str_map.keys), H(S_STR_VALS, str_map.vals), H(S_STR_OFF, str_off),
	H(S_STR_LEN, str_len), H(S_ARENA, arena), H(S_TEXT, text), H(S_CLASSES, classes),
	H(S_CLASS_KEYS, class_map.keys), H(S_CLASS_VALS, class_map.vals),
	H(S_SERIAL_KEYS, serial_map.keys), H(S_SERIAL_VALS, serial_map.vals),
	H(S_FIELDS, fields), H(S_STATICS, statics), H(S_ROWS, rows), H(S_FRAMES, frames),
	H(S_FRAME_KEYS, frame_map.keys), H(S_FRAME_VALS, frame_map.vals), H(S_TRACES, traces),
	H(S_TRACE_FRAMES, trace_frames), H(S_TRACE_KEYS, trace_map.keys), H(S_TRACE_VALS, trace_map.vals),
	H(S_THREADS, threads), H(S_THREAD_KEYS, thread_map.keys), H(S_THREAD_VALS, thread_map.vals),
	H(S_ROOTS, roots), H(S_IDS, ids), H(S_CLS, cls), H(S_LEN, len), H(S_OFF_LO, off_lo),
	H(S_OFF_HI, off_hi), H(S_BUCKET, bucket), H(S_FILE_ORDER, file_order), H(S_WARNINGS, warnings),
	H(S_ALLOC_RECS, alloc_recs), H(S_ALLOC_SITES, alloc_sites), H(S_SUMMARIES, summaries),
	H(S_CPU_RECS, cpu_recs), H(S_CPU_SAMPLES, cpu_samples),
	{ S_DUMPS, B_LOAD, sizeof(struct hp_dump_info), offsetof(struct hp_load_info, stats.dumps) },
	R(S_R_OFF, refs.off), R(S_R_OFF32, refs.off32), R(S_R_ADJ, refs.adj),
	R(S_R_REFERENTS, refs.referents), R(S_R_FOLLOWED, refs.followed), R(S_R_CLASS_OBJ, refs.class_obj),
	R(S_D_IDOM, dom.idom), R(S_D_ORDER, dom.order), R(S_R_SHALLOW, shallow), R(S_R_RETAINED, retained),
	R(S_R_ROOT_OBJS, root_objs), R(S_R_ROOT_KINDS, root_kinds), R(S_R_CHILD_OFF, child_off),
	R(S_R_CHILDREN, children), R(S_R_SUBTREE, subtree), R(S_R_CLASS_RET, class_retained), R(S_R_ROW_RET, row_retained),
	P(S_PG_OFF, g.off), P(S_PG_OFF32, g.off32), P(S_PG_ADJ, g.adj), P(S_PG_REFERENTS, g.referents),
	P(S_PG_FOLLOWED, g.followed), P(S_PG_CLASS_OBJ, g.class_obj), P(S_P_PARENT, P.parent), P(S_P_DEPTH, P.depth),
};
#undef H
#undef R
#undef P
#define NDESCS (sizeof descs / sizeof descs[0])

static void **ptr_at(void *base, const struct desc *d)
{
	return (void **)(void *)((char *)base + d->ptr_off);
}

/* the pointers of each image cleared: the ones of the tables, and the few
 * others (the builder, static text, the borrowed class column) */
static void *base_of(int base, const void *h, const void *L, const void *R, const void *ps)
{
	return (void *)(base == B_HEAP ? h : base == B_LOAD ? L : base == B_RET ? R : ps);
}

static void clear_ptrs(hp_heap *h, struct hp_load_info *L, struct hp_retained *R, struct hp_pathsearch *ps)
{
	for (size_t i = 0; i < NDESCS; i++) {
		void *base = base_of(descs[i].base, h, L, R, ps);
		if (base)
			*ptr_at(base, &descs[i]) = NULL;
	}
	if (h) {
		h->build = NULL;
		h->size.vm.why_not = NULL;
		h->mapped = 0;
	}
	if (L)
		L->reader_kind = NULL;
	if (R) {
		R->refs.obj_cls = NULL;
		R->mapped = 0;
	}
	if (ps)
		ps->g.obj_cls = NULL;
}

/* the element count each table has, from the scalars of the images */
static uint64_t count_of(int id, const hp_heap *h, const struct hp_load_info *L, const struct hp_retained *R,
			 const struct hp_pathsearch *ps)
{
	uint64_t n = h->nobj;
	switch (id) {
	case S_STR_KEYS: case S_STR_VALS: return h->str_map.cap;
	case S_STR_OFF: case S_STR_LEN: return h->nstr;
	case S_ARENA: return h->arena_len;
	case S_TEXT: return h->text_len;
	case S_CLASSES: return h->nclasses;
	case S_CLASS_KEYS: case S_CLASS_VALS: return h->class_map.cap;
	case S_SERIAL_KEYS: case S_SERIAL_VALS: return h->serial_map.cap;
	case S_FIELDS: return h->nfields;
	case S_STATICS: return h->nstatics;
	case S_ROWS: return h->nrows;
	case S_FRAMES: return h->nframes;
	case S_FRAME_KEYS: case S_FRAME_VALS: return h->frame_map.cap;
	case S_TRACES: return h->ntraces;
	case S_TRACE_FRAMES: return h->ntrace_frames;
	case S_TRACE_KEYS: case S_TRACE_VALS: return h->trace_map.cap;
	case S_THREADS: return h->nthreads;
	case S_THREAD_KEYS: case S_THREAD_VALS: return h->thread_map.cap;
	case S_ROOTS: return h->nroots;
	case S_IDS: case S_CLS: case S_LEN: case S_OFF_LO: case S_OFF_HI: case S_FILE_ORDER: return n;
	case S_BUCKET: return h->nbuckets + 1;
	case S_WARNINGS: return h->nwarnings;
	case S_ALLOC_RECS: return h->nalloc_recs;
	case S_ALLOC_SITES: return h->nalloc_sites;
	case S_SUMMARIES: return h->nsummaries;
	case S_CPU_RECS: return h->ncpu_recs;
	case S_CPU_SAMPLES: return h->ncpu_samples;
	case S_DUMPS: return L->stats.ndumps;
	case S_R_OFF: case S_R_OFF32: return n + 1;
	case S_R_ADJ: return R->refs.nedges;
	case S_R_REFERENTS: return R->refs.nreferents;
	case S_R_FOLLOWED: return R->refs.nfollowed;
	case S_R_CLASS_OBJ: case S_R_CLASS_RET: return h->nclasses;
	case S_D_IDOM: case S_R_SHALLOW: case S_R_RETAINED: case S_R_ROOT_KINDS: case S_R_SUBTREE: return n;
	case S_D_ORDER: case S_R_CHILDREN: return R->dom.nreach;
	case S_R_ROOT_OBJS: return R->nroot_objs;
	case S_R_CHILD_OFF: return n + 2;
	case S_R_ROW_RET: return h->nrows;
	case S_PG_OFF: case S_PG_OFF32: return n + 1;
	case S_PG_ADJ: return ps->g.nedges;
	case S_PG_REFERENTS: return ps->g.nreferents;
	case S_PG_FOLLOWED: return ps->g.nfollowed;
	case S_PG_CLASS_OBJ: return h->nclasses;
	case S_P_PARENT: case S_P_DEPTH: return n;
	}
	return 0;
}

/* the layouts the images and tables were written with */
static uint32_t layout_signature(void)
{
	const uint64_t v[] = {
		sizeof(hp_heap), sizeof(struct hp_load_info), sizeof(struct hp_retained),
		sizeof(struct hp_class), sizeof(struct hp_hrow), sizeof(struct hp_field),
		sizeof(struct hp_static), sizeof(struct hp_frame), sizeof(struct hp_trace_rec),
		sizeof(struct hp_thread_rec), sizeof(struct hp_root_rec), sizeof(struct hp_dump_info),
		sizeof(struct hp_refs), sizeof(struct hp_dom), sizeof(struct hp_size_model),
		sizeof(struct hp_stats), sizeof(struct hp_error), sizeof(struct hp_idmap),
		sizeof(struct hp_pathsearch), sizeof(struct hp_paths),
		sizeof(struct hp_alloc_sites_rec), sizeof(struct hp_alloc_site), sizeof(struct hp_heap_summary),
		sizeof(struct hp_cpu_samples_rec), sizeof(struct hp_cpu_sample),
		offsetof(hp_heap, nobj), offsetof(hp_heap, size), offsetof(hp_heap, nwarnings),
		offsetof(hp_heap, roots_by_kind), offsetof(hp_heap, heap_objects),
		offsetof(struct hp_class, row), offsetof(struct hp_class, self_size),
		offsetof(struct hp_hrow, shallow), offsetof(struct hp_retained, kinds),
		offsetof(struct hp_retained, dom), offsetof(struct hp_load_info, partial_err),
		HP_ROOT_NKINDS, HP_MAX_HEAPS, NDESCS,
	};
	return (uint32_t)crc32(0, (const Bytef *)v, sizeof v);
}

static uint32_t crc_of(const void *p, uint64_t n)
{
	uLong c = crc32(0, Z_NULL, 0);
	const Bytef *b = p;
	while (n) {
		uInt k = n > (1u << 30) ? (1u << 30) : (uInt)n;
		c = crc32(c, b, k);
		b += k;
		n -= k;
	}
	return (uint32_t)c;
}

/* ---- section sums -------------------------------------------------------
 * XXH64 (Yann Collet's, words read in the host's byte order: an index is
 * read only where it was written) of each 1 MiB block, and XXH64 of the
 * blocks' sums: blocks are hashed in any order on both cores when an index
 * is opened, and as they are written.  It finds damage (a flipped byte, a
 * torn write); an index made on purpose is caught by the checks after it. */

#define IX_BLOCK ((uint64_t)1 << 20)
static uint64_t nblocks_of(uint64_t len) { return len ? (len + IX_BLOCK - 1) / IX_BLOCK : 0; }

static uint64_t block_sum(const unsigned char *p, uint64_t len, uint64_t b)
{
	uint64_t off = b * IX_BLOCK;
	return hp_xxh64(p + off, len - off < IX_BLOCK ? len - off : IX_BLOCK, 0);
}

/* the sum of a section whose blocks' sums are sums[0..nblocks_of(len)) */
static uint64_t sum_of_blocks(const uint64_t *sums, uint64_t len)
{
	return hp_xxh64(sums, nblocks_of(len) * sizeof *sums, len);
}

uint64_t hp_index_section_sum(const void *p, uint64_t len)
{
	uint64_t acc[64], nb = nblocks_of(len);
	if (nb <= 64) {
		for (uint64_t b = 0; b < nb; b++)
			acc[b] = block_sum(p, len, b);
		return sum_of_blocks(acc, len);
	}
	uint64_t *sums = hp_reallocarray(NULL, (size_t)nb, sizeof *sums);
	if (!sums)
		return 0;   /* tests only (the fuzz target's small inputs) */
	for (uint64_t b = 0; b < nb; b++)
		sums[b] = block_sum(p, len, b);
	uint64_t s = sum_of_blocks(sums, len);
	hp_free(sums);
	return s;
}

static void set_why(char *why, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set_why(char *why, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, n, fmt, ap);
	va_end(ap);
}

/* ---- trust ---------------------------------------------------------------
 * Whoever can write an index decides every figure read from it (its sums
 * are recomputable), so one is read, and replaced, only where no one but
 * the user (or root, whose files no one else can make) could have written
 * it: a regular file of theirs that group and others cannot write, in a
 * directory of theirs that group and others cannot write, or can only add
 * names to (the sticky bit: /tmp, where no one else may rename or remove
 * the user's file).  Nothing at the index path is followed: a symbolic link
 * is refused (O_NOFOLLOW), a FIFO opened without blocking and refused. */

static int owner_trusted(uid_t u) { return u == geteuid() || u == 0; }

static const char *type_name(mode_t m)
{
	return S_ISLNK(m) ? "a symbolic link" : S_ISFIFO(m) ? "a FIFO" : S_ISDIR(m) ? "a directory"
	       : S_ISSOCK(m) ? "a socket" : S_ISCHR(m) || S_ISBLK(m) ? "a device" : "not a regular file";
}

/* 0 when the directory st may hold an index, else -1 and why */
static int dir_trusted(const struct stat *st, char *why, size_t why_len)
{
	if (!S_ISDIR(st->st_mode))
		set_why(why, why_len, "its directory is not a directory");
	else if (!owner_trusted(st->st_uid))
		set_why(why, why_len, "its directory is owned by uid %u, not by you", (unsigned)st->st_uid);
	else if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !(st->st_mode & S_ISVTX))
		set_why(why, why_len, "its directory is writable by %s: mode %04o",
			st->st_mode & S_IWOTH ? "others" : "its group", (unsigned)(st->st_mode & 07777));
	else
		return 0;
	return -1;
}

/* 0 when the file st may be read as an index, else -1 and why */
static int file_trusted(const struct stat *st, char *why, size_t why_len)
{
	if (!S_ISREG(st->st_mode))
		set_why(why, why_len, "%s, not a regular file", type_name(st->st_mode));
	else if (!owner_trusted(st->st_uid))
		set_why(why, why_len, "owned by uid %u, not by you", (unsigned)st->st_uid);
	else if (st->st_mode & (S_IWGRP | S_IWOTH))
		set_why(why, why_len, "writable by %s: mode %04o", st->st_mode & S_IWOTH ? "others" : "its group",
			(unsigned)(st->st_mode & 07777));
	else
		return 0;
	return -1;
}

/* The directory of path opened (a name looked up or made relative to it
 * later is in that directory, whatever is renamed above it meanwhile),
 * *base the name in it; -1 with errno. */
static int dir_open(const char *path, const char **base)
{
	const char *slash = strrchr(path, '/');
	*base = slash ? slash + 1 : path;
	if (!**base) {
		errno = EISDIR;
		return -1;
	}
#ifdef O_PATH
	int flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
#else
	int flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
#endif
	if (!slash)
		return open(".", flags);
	size_t n = slash == path ? 1 : (size_t)(slash - path);
	char *d = hp_malloc(n + 1);
	if (!d) {
		errno = ENOMEM;
		return -1;
	}
	memcpy(d, path, n);
	d[n] = '\0';
	int fd = open(d, flags);
	int e = errno;
	hp_free(d);
	errno = e;
	return fd;
}

/* The index at path opened for reading: HP_INDEX_OK and the fd in *fd,
 * HP_INDEX_MISSING, HP_INDEX_UNTRUSTED or HP_INDEX_IOERR (why in why);
 * *exists 1 when something is at path (also in a directory refused). */
static int open_trusted(const char *path, int *fd, int *exists, char *why, size_t why_len)
{
	*fd = -1;
	*exists = 0;
	const char *base;
	int dfd = dir_open(path, &base);
	if (dfd < 0) {
		set_why(why, why_len, "its directory: %s", strerror(errno));
		return errno == ENOENT ? HP_INDEX_MISSING : HP_INDEX_IOERR;
	}
	struct stat st;
	int status = HP_INDEX_UNTRUSTED;
	if (fstat(dfd, &st) != 0) {
		set_why(why, why_len, "its directory: %s", strerror(errno));
		status = HP_INDEX_IOERR;
	} else if (dir_trusted(&st, why, why_len)) {
		*exists = fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0;
	} else if ((*fd = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0) {
		int e = errno;
		*exists = e != ENOENT;
		if (e == ENOENT) {
			set_why(why, why_len, "%s", strerror(e));
			status = HP_INDEX_MISSING;
		} else if (e == ELOOP) {
			set_why(why, why_len, "a symbolic link, not a regular file");
		} else {
			set_why(why, why_len, "%s", strerror(e));
			status = HP_INDEX_IOERR;
		}
	} else {
		*exists = 1;
		if (fstat(*fd, &st) != 0) {
			set_why(why, why_len, "%s", strerror(errno));
			status = HP_INDEX_IOERR;
		} else if (!file_trusted(&st, why, why_len)) {
			status = HP_INDEX_OK;
		}
		if (status != HP_INDEX_OK) {
			close(*fd);
			*fd = -1;
		}
	}
	close(dfd);
	return status;
}

int hp_index_place(const char *path, int *exists, char *why, size_t why_len)
{
	why[0] = '\0';
	int fd, ex;
	int status = open_trusted(path, &fd, &ex, why, why_len);
	if (fd >= 0)
		close(fd);
	if (exists)
		*exists = ex;
	return status;
}

/* ---- identity ----------------------------------------------------------- */

static int read_at(int fd, void *buf, size_t n, uint64_t off)
{
	char *p = buf;
	while (n) {
		ssize_t r = pread(fd, p, n, (off_t)off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

int hp_index_identity(const char *path, struct hp_index_ident *id, struct hp_error *err)
{
	memset(id, 0, sizeof *id);
	/* (O_NONBLOCK: a FIFO put where the dump was does not block the open;
	 * fstat then refuses it) */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return hp_error_set(err, HP_EIO, "%s", strerror(errno));
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return hp_error_set(err, HP_EIO, "not a regular file");
	}
	id->size = (uint64_t)st.st_size;
	id->mtime_sec = (int64_t)st.st_mtim.tv_sec;
	id->mtime_nsec = (int64_t)st.st_mtim.tv_nsec;
	id->inode = (uint64_t)st.st_ino;
	unsigned char *buf = hp_malloc(IX_IDENT_SPAN);
	if (!buf) {
		close(fd);
		return hp_error_set(err, HP_ENOMEM, "out of memory");
	}
	size_t n = id->size < IX_IDENT_SPAN ? (size_t)id->size : IX_IDENT_SPAN;
	int rc = HP_OK;
	if (read_at(fd, buf, n, 0) != 0)
		rc = hp_error_set(err, HP_EIO, "cannot read the dump");
	else
		id->crc_head = crc_of(buf, n);
	if (!rc && read_at(fd, buf, n, id->size - n) != 0)
		rc = hp_error_set(err, HP_EIO, "cannot read the dump");
	else if (!rc)
		id->crc_tail = crc_of(buf, n);
	hp_free(buf);
	close(fd);
	return rc;
}

/* ---- writing ------------------------------------------------------------ */

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
	uint64_t nb = nblocks_of(len), one = 0, *sums = nb > 1 ? hp_reallocarray(NULL, (size_t)nb, sizeof *sums) : &one;
	if (!sums) {
		errno = ENOMEM;
		return -1;
	}
	int rc = 0;
	for (uint64_t b = 0; b < nb && !rc; b += 8) {
		uint64_t e = b + 8 < nb ? b + 8 : nb;
		for (uint64_t k = b; k < e; k++)
			sums[k] = block_sum(p, len, k);
		uint64_t from = b * IX_BLOCK, to = e * IX_BLOCK < len ? e * IX_BLOCK : len;
		rc = write_all(fd, (const char *)p + from, to - from, off + from);
	}
	*sum = sum_of_blocks(sums, len);
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
	if ((t->dfd = dir_open(path, &base)) < 0)
		return hp_error_set(err, HP_EIO, "cannot open the directory of %s: %s", path, strerror(errno));
	struct stat st;
	char why[160];
	int bad = fstat(t->dfd, &st) != 0;
	if (bad)
		set_why(why, sizeof why, "%s", strerror(errno));
	if (bad || dir_trusted(&st, why, sizeof why)) {
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
static const int early_ids[] = { S_IDS, S_CLS, S_LEN, S_OFF_LO, S_OFF_HI, S_BUCKET, S_FILE_ORDER };
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
			const struct desc *d = &descs[i];
			const void *p;
			if (d->id != early_ids[k] || !(p = *(void *const *)(const void *)((const char *)h + d->ptr_off)))
				continue;
			uint64_t len = count_of(d->id, h, NULL, NULL, NULL) * d->elem;
			w->sec[w->n] = (struct wsec){ d->id, d->elem, p, len };
			w->off[w->n++] = off;
			off = (off + len + IX_ALIGN - 1) & ~(uint64_t)(IX_ALIGN - 1);
		}
	w->end = off;
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
	clear_ptrs(&himg, &limg, R ? &rimg : NULL, ps ? &pimg : NULL);
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
		const struct desc *d = &descs[i];
		const void *base = base_of(d->base, h, L, R, ps);
		if (!base)
			continue;
		const void *p = *(void *const *)(const void *)((const char *)base + d->ptr_off);
		if (!p)
			continue;   /* absent: NULL when read back */
		uint64_t cnt = count_of(d->id, h, L, R, ps);
		ws[nw++] = (struct wsec){ d->id, d->elem, p, cnt * d->elem };
	}

	struct ix_header hd;
	memset(&hd, 0, sizeof hd);
	memcpy(hd.magic, IX_MAGIC, 8);
	hd.version = HP_INDEX_VERSION;
	hd.endian = IX_ENDIAN;
	hd.word_size = (uint32_t)sizeof(void *);
	hd.layout = layout_signature();
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
	for (size_t i = 0; i < nw && !rc; i++)
		if (!done[i] && write_summed(fd, ws[i].p, ws[i].len, tab[i].off, &tab[i].sum) != 0)
			rc = HP_EIO;
	if (!rc) {
		hd.table_crc = crc_of(tab, nw * sizeof *tab);
		hd.header_crc = crc_of(&hd, offsetof(struct ix_header, header_crc));
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

/* ---- reading ------------------------------------------------------------ */

struct hp_index {
	unsigned char *map;
	int fd;                       /* open for the sums' reads (sum_blocks()) */
	uint64_t size;
	struct ix_header hd;
	hp_heap *heap;                /* handed out by hp_index_heap() */
	struct hp_load_info info;
	struct hp_retained ret;       /* valid when hd.has_retained */
	struct hp_pathsearch paths;   /* valid when hd.has_paths */
	const hp_heap *model;         /* the heap, for the checks made later */
	const struct ix_section *tab;
	int sums_state, tree_state, ret_state, paths_state;   /* 0 not checked yet, 1 good, -1 damaged */
	char sums_why[160], tree_why[160], ret_why[160], paths_why[160];
};

static const unsigned char empty_section[IX_ALIGN];

/* Which sections are summed and checked when: the model's when the index
 * is opened (with the images of the other two, which give their counts),
 * the retained sizes' when first asked for, the path search's likewise; a
 * command that never asks for the graph never reads it. */
enum { G_OPEN, G_SUMS, G_TREE, G_GRAPH, G_PATH };

static int group_of(uint32_t id)
{
	if (id == S_R_CLASS_RET || id == S_R_ROW_RET)
		return G_SUMS;
	if (id >= S_R_OFF && id <= S_R_CLASS_OBJ)
		return G_GRAPH;   /* the retained sizes' reference graph */
	if ((id >= S_D_IDOM && id <= S_R_ROW_RET) || id == S_R_SUBTREE)
		return G_TREE;    /* the dominator tree, sizes, roots */
	return id >= S_PG_OFF && id <= S_P_DEPTH ? G_PATH : G_OPEN;
}

/* the sections' blocks summed on two cores, each thread taking the next
 * few blocks of any section of the group */
struct sum_job {
	const unsigned char *map;
	int fd;                       /* the index open for reading, -1 none */
	const struct ix_section *const *secs;  /* the group's sections */
	const uint64_t *first;        /* index in sums of each one's first block */
	uint32_t nsecs;
	uint64_t nblocks;
	uint64_t *sums;
	atomic_uint_fast64_t next;
};

/* A block is read into a buffer of the thread's own and summed there:
 * read() copies it from the page cache through the kernel's own large
 * pages, where summing it in the mapping takes a page fault and a TLB
 * miss every 4 KiB (four times slower on the bench machine).  The same
 * bytes either way; a read that fails or falls short sums the mapping. */
static uint64_t block_sum_read(const struct sum_job *j, unsigned char *buf, const struct ix_section *x, uint64_t b)
{
	uint64_t off = b * IX_BLOCK, n = x->len - off < IX_BLOCK ? x->len - off : IX_BLOCK;
	if (buf && j->fd >= 0) {
		uint64_t got = 0;
		while (got < n) {
			ssize_t k = pread(j->fd, buf + got, (size_t)(n - got), (off_t)(x->off + off + got));
			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0)
				break;
			got += (uint64_t)k;
		}
		if (got == n)
			return hp_xxh64(buf, n, 0);
	}
	return block_sum(j->map + x->off, x->len, b);
}

static void *sum_blocks(void *arg)
{
	struct sum_job *j = arg;
	uint32_t s = 0;
	unsigned char *buf = j->fd >= 0 ? hp_malloc(IX_BLOCK) : NULL;
	for (;;) {
		uint64_t g = atomic_fetch_add(&j->next, 4);
		if (g >= j->nblocks)
			break;
		uint64_t e = g + 4 < j->nblocks ? g + 4 : j->nblocks;
		for (; g < e; g++) {
			while (s + 1 < j->nsecs && j->first[s + 1] <= g)
				s++;
			while (j->first[s] > g)
				s--;
			const struct ix_section *x = j->secs[s];
			j->sums[g] = block_sum_read(j, buf, x, g - j->first[s]);
		}
	}
	hp_free(buf);
	return NULL;
}

/* the first section (its number in the table) of the group whose sum
 * differs, or n when all agree; -1 out of memory */
static int64_t sum_mismatch(const unsigned char *map, int fd, const struct ix_section *tab, uint32_t n, int group)
{
	const struct ix_section **secs = hp_calloc(n ? n : 1, sizeof *secs);
	uint64_t *first = hp_calloc(n + 1, sizeof *first);
	uint32_t *at = hp_calloc(n ? n : 1, sizeof *at);
	uint64_t *sums = NULL;
	int64_t bad = -1;
	if (!secs || !first || !at)
		goto out;
	uint32_t m = 0;
	uint64_t nb = 0;
	for (uint32_t i = 0; i < n; i++)
		if (group_of(tab[i].id) == group) {
			secs[m] = &tab[i];
			at[m] = i;
			first[m++] = nb;
			nb += nblocks_of(tab[i].len);
		}
	first[m] = nb;
	if (!(sums = hp_reallocarray(NULL, nb ? nb : 1, sizeof *sums)))
		goto out;
	struct sum_job job = { .map = map, .fd = fd, .secs = secs, .first = first, .nsecs = m, .nblocks = nb, .sums = sums };
	atomic_init(&job.next, 0);
	pthread_t th;
	int threaded = nb > 8 && pthread_create(&th, NULL, sum_blocks, &job) == 0;
	sum_blocks(&job);
	if (threaded)
		pthread_join(th, NULL);
	bad = n;
	for (uint32_t k = 0; k < m; k++)
		if (sum_of_blocks(sums + first[k], secs[k]->len) != secs[k]->sum) {
			bad = at[k];
			break;
		}
out:
	hp_free(secs);
	hp_free(first);
	hp_free(at);
	hp_free(sums);
	return bad;
}

/* the checks' random reads (an object's dominator, its parent's depth)
 * asked for this many entries ahead, so that they overlap */
#define PREFETCH_AHEAD 16
static void prefetch_at(const uint32_t *a, uint32_t i, uint64_t n)
{
#if defined(__GNUC__) || defined(__clang__)
	if (i < n)
		__builtin_prefetch(a + i);
#else
	(void)a, (void)i, (void)n;
#endif
}

/* a bit set over n entries, for the checks below */
static uint8_t *bits_new(uint64_t n) { return hp_calloc((size_t)(n / 8 + 1), 1); }
static int bit_test_set(uint8_t *b, uint64_t i)
{
	int was = (b[i >> 3] >> (i & 7)) & 1;
	b[i >> 3] |= (uint8_t)(1u << (i & 7));
	return was;
}

#define BAD(...) do { set_why(why, why_len, __VA_ARGS__); goto bad; } while (0)

static int check_map(const struct hp_idmap *m, uint64_t limit)
{
	if (!m->cap)
		return m->n == 0 && !m->keys && !m->vals ? 0 : -1;
	if ((m->cap & (m->cap - 1)) || m->n > m->cap || !m->keys || !m->vals)
		return -1;
	size_t empty = 0;
	for (size_t i = 0; i < m->cap; i++) {
		if (m->vals[i] == HP_IDMAP_NONE)
			empty++;
		else if (m->vals[i] >= limit)
			return -1;
	}
	return empty ? 0 : -1;   /* a lookup stops at an empty slot */
}

/* a header as the parser takes it: one of the three formats, its version
 * and id size */
static int check_header(const struct hp_header *hh)
{
	static const char *const formats[3] = { "JAVA PROFILE 1.0.1", "JAVA PROFILE 1.0.2", "JAVA PROFILE 1.0.3" };
	if (hh->version < 1 || hh->version > 3 || (hh->id_size != 4 && hh->id_size != 8))
		return -1;
	const char *f = formats[hh->version - 1];
	return memchr(hh->format, 0, sizeof hh->format) && strcmp(hh->format, f) == 0 ? 0 : -1;
}

static int valid_type(unsigned t) { return t == 2 || (t >= 4 && t <= 11); }

/* the model: every index, offset and count in range, no cycle a walk can
 * follow forever */
static int check_heap(const hp_heap *h, char *why, size_t why_len)
{
	uint8_t *seen = NULL;
	if (check_header(&h->header))
		BAD("header out of range");
	if ((h->I != 4 && h->I != 8) || h->header.id_size != h->I)
		BAD("id size %u", h->I);
	if (!h->opts.build_objects)
		BAD("no object table");
	if (h->nobj > HP_DOM_MAX_NODES)
		BAD("%zu objects", h->nobj);
	if (!h->text || h->text_len < 1 || h->text[h->text_len - 1] != '\0' || h->text[0] != '\0')
		BAD("text table not terminated");
	if (h->nstr && (!h->arena || !h->str_off || !h->str_len))
		BAD("string table missing");
	for (size_t i = 0; i < h->nstr; i++)
		if (h->str_off[i] >= h->arena_len || h->str_len[i] >= h->arena_len - h->str_off[i] ||
		    h->arena[h->str_off[i] + h->str_len[i]] != '\0')
			BAD("string %zu out of range", i);
	if (check_map(&h->str_map, h->nstr) || check_map(&h->class_map, h->nclasses) ||
	    check_map(&h->serial_map, h->nclasses) || check_map(&h->frame_map, h->nframes) ||
	    check_map(&h->trace_map, h->ntraces) || check_map(&h->thread_map, h->nthreads))
		BAD("id map inconsistent");
	if (h->nclasses >= HP_NONE || h->nrows >= HP_NONE)
		BAD("too many classes");
	if (h->nclasses && !h->classes)
		BAD("class table missing");
	for (size_t k = 0; k < h->nclasses; k++) {
		const struct hp_class *c = &h->classes[k];
		if (c->name >= h->text_len || (c->super != HP_NONE && c->super >= h->nclasses) ||
		    (uint64_t)c->first_field + c->n_fields > h->nfields ||
		    (uint64_t)c->first_static + c->n_statics > h->nstatics || c->kind > HP_CK_PRIMARRAY ||
		    c->elem_type >= 12 || c->heap >= HP_MAX_HEAPS || (c->row != HP_NONE && c->row >= h->nrows))
			BAD("class %zu out of range", k);
	}
	/* super chains end: 1 on the walk now, 2 known to end */
	if (h->nclasses) {
		seen = hp_calloc(h->nclasses, 1);
		if (!seen)
			BAD("out of memory");
		for (size_t k = 0; k < h->nclasses; k++) {
			uint32_t c = (uint32_t)k;
			while (c != HP_NONE && !seen[c]) {
				seen[c] = 1;
				c = h->classes[c].super;
			}
			if (c != HP_NONE && seen[c] == 1)
				BAD("class %zu: its super classes loop", k);
			for (c = (uint32_t)k; c != HP_NONE && seen[c] == 1; c = h->classes[c].super)
				seen[c] = 2;
		}
		hp_free(seen);
		seen = NULL;
	}
	for (size_t i = 0; i < h->nfields; i++)
		if (!valid_type(h->fields[i].type))
			BAD("field %zu type", i);
	for (size_t i = 0; i < h->nstatics; i++)
		if (!valid_type(h->statics[i].type))
			BAD("static %zu type", i);
	for (size_t i = 0; i < 12; i++)
		if (h->prim_class[i] != HP_NONE && h->prim_class[i] >= h->nclasses)
			BAD("primitive class out of range");
	if ((h->jlc != HP_NONE && h->jlc >= h->nclasses) || (h->jlo != HP_NONE && h->jlo >= h->nclasses))
		BAD("class index out of range");
	for (size_t r = 0; r < h->nrows; r++) {
		const struct hp_hrow *w = &h->rows[r];
		if (w->cls >= h->nclasses || (w->next != HP_NONE && w->next >= h->nrows) || w->heap >= HP_MAX_HEAPS ||
		    w->count > h->nobj || w->class_objs > h->nobj)
			BAD("histogram row %zu out of range", r);
	}
	if (h->nrows) {
		if (!(seen = bits_new(h->nrows)))
			BAD("out of memory");
		for (size_t k = 0; k < h->nclasses; k++)
			for (uint32_t r = h->classes[k].row; r != HP_NONE; r = h->rows[r].next)
				if (bit_test_set(seen, r))
					BAD("histogram rows loop");
		hp_free(seen);
		seen = NULL;
	}
	for (size_t i = 0; i < h->ntraces; i++)
		if ((uint64_t)h->traces[i].first + h->traces[i].n > h->ntrace_frames)
			BAD("trace %zu out of range", i);
	for (size_t i = 0; i < h->nroots; i++)
		if (h->roots[i].kind >= HP_ROOT_NKINDS || h->roots[i].heap >= HP_MAX_HEAPS)
			BAD("root %zu out of range", i);
	/* the hprof agent's records: each one's entries inside their table */
	for (size_t i = 0; i < h->nalloc_recs; i++)
		if ((uint64_t)h->alloc_recs[i].first + h->alloc_recs[i].k > h->nalloc_sites)
			BAD("ALLOC SITES record %zu out of range", i);
	for (size_t i = 0; i < h->ncpu_recs; i++)
		if ((uint64_t)h->cpu_recs[i].first + h->cpu_recs[i].k > h->ncpu_samples)
			BAD("CPU SAMPLES record %zu out of range", i);
	if (h->nheaps > HP_MAX_HEAPS)
		BAD("%u heaps", h->nheaps);
	for (size_t i = 0; i < HP_MAX_HEAPS; i++)
		if (h->heap_name[i] >= h->text_len)
			BAD("heap name out of range");
	for (size_t i = 0; i < h->nwarnings; i++)
		if (h->warnings[i] >= h->text_len)
			BAD("warning out of range");
	if (h->n_instances > h->nobj || h->n_objarrays > h->nobj || h->n_primarrays > h->nobj ||
	    h->n_classobjs > h->nobj)
		BAD("object counts exceed the object table");
	const struct hp_size_model *z = &h->size;
	if (z->kind < HP_SIZE_MAT || z->kind > HP_SIZE_VM || (z->id_size != 4 && z->id_size != 8) ||
	    (z->ref_size != 4 && z->ref_size != 8) || !z->align || (z->align & (z->align - 1)) || z->align > 4096 ||
	    z->header > 4096 || z->array_header > 4096 || (z->vm.jdk15 != 0 && z->vm.jdk15 != 1))
		BAD("size model out of range");
	if (h->nobj) {
		if (!h->ids || !h->cls || !h->len || !h->off_lo || !h->off_hi || !h->bucket)
			BAD("object columns missing");
		for (size_t i = 0; i < h->nobj; i++) {
			if (h->cls[i] >= h->nclasses)
				BAD("object %zu: class out of range", i);
			if (i && h->ids[i] < h->ids[i - 1])
				BAD("object ids not sorted");
		}
		if (h->bucket_shift >= 64 || h->min_id != h->ids[0] || h->nbuckets == 0 || h->nbuckets > h->nobj + 1)
			BAD("id index out of range");
		for (size_t b = 0; b <= h->nbuckets; b++)
			if (h->bucket[b] > h->nobj || (b && h->bucket[b] < h->bucket[b - 1]))
				BAD("id index out of range");
		if (h->file_order)
			for (size_t i = 0; i < h->nobj; i++)
				if (h->file_order[i] >= h->nobj)
					BAD("file order out of range");
	} else if (h->bucket || h->nbuckets || h->file_order) {
		BAD("id index without objects");
	}
	return 0;
bad:
	hp_free(seen);
	return -1;
}

static int check_load(const hp_heap *h, const struct hp_load_info *L, char *why, size_t why_len)
{
	const struct hp_stats *st = &L->stats;
	if (check_header(&st->header) || st->header.id_size != h->header.id_size)
		BAD("header out of range");
	if (st->parsed_dump < -1 || (st->parsed_dump >= 0 && (unsigned)st->parsed_dump >= st->ndumps))
		BAD("dump number out of range");
	if (st->ndumps && !st->dumps)
		BAD("dump table missing");
	for (unsigned i = 0; i < st->ndumps; i++)
		if (st->dumps[i].offset > st->dumps[i].end)
			BAD("dump %u out of range", i);
	/* what the parser counts: only the sub-records it knows (it stops at
	 * any other), so each has a name */
	for (int t = 0; t < 256; t++)
		if (st->subrecords_by_tag[t] && !hp_subtag_name(t))
			BAD("sub-record tag 0x%02x counted", t);
	if (!memchr(L->partial_err.msg, 0, sizeof L->partial_err.msg))
		BAD("message not terminated");
	return 0;
bad:
	return -1;
}

/* a reference graph in CSR form over the model's objects */
static int check_graph(const hp_heap *h, const struct hp_refs *g, char *why, size_t why_len)
{
	uint64_t n = h->nobj;
	if (g->n != n)
		BAD("graph size differs from the model's");
	if (!!g->off == !!g->off32)
		BAD("edge offsets missing");
	if (g->nedges && !g->adj)
		BAD("edges missing");
	if (hp_refs_off(g, 0) != 0 || hp_refs_off(g, n) != g->nedges)
		BAD("edge offsets out of range");
	for (uint64_t v = 0; v < n; v++)
		if (hp_refs_off(g, v + 1) < hp_refs_off(g, v))
			BAD("edge offsets not monotonic");
	for (uint64_t e = 0; e < g->nedges; e++)
		if (g->adj[e] >= n)
			BAD("edge %llu out of range", (unsigned long long)e);
	for (size_t i = 0; i < g->nreferents; i++)
		if (g->referents[i][0] >= n || g->referents[i][1] >= n)
			BAD("referent out of range");
	for (size_t i = 0; i < g->nfollowed; i++)
		if (g->followed[i][0] >= n || g->followed[i][1] >= n)
			BAD("referent out of range");
	if (g->class_obj)
		for (size_t k = 0; k < h->nclasses; k++)
			if (g->class_obj[k] != HP_NONE && g->class_obj[k] >= n)
				BAD("class object out of range");
	return 0;
bad:
	return -1;
}

/* the path search: its graph, and a parent one edge nearer a start */
static int check_paths(const hp_heap *h, const struct hp_pathsearch *ps, char *why, size_t why_len)
{
	uint64_t n = h->nobj;
	if (ps->all_weak != 0 || ps->P.n != n || ps->P.reached > n || ps->P.through_class > n)
		BAD("path search out of range");
	/* the tables as the search without targets the session runs writes
	 * them (readers subtract the bias from every entry: another one
	 * would make each parent another object) */
	if (ps->P.bias != 0)
		BAD("path search bias %u", ps->P.bias);
	if (check_graph(h, &ps->g, why, why_len))
		return -1;
	if (n && (!ps->P.parent || !ps->P.depth))
		BAD("path tables missing");
	const struct hp_paths *P = &ps->P;
	for (uint64_t v = 0; v < n; v++) {
		uint32_t p = hp_paths_parent(P, v), d = hp_paths_depth(P, v);
		if (v + PREFETCH_AHEAD < n)
			prefetch_at(P->depth, P->parent[v + PREFETCH_AHEAD], n);
		int ok = p == HP_PATH_UNSEEN ? d == UINT32_MAX : p == HP_PATH_START ? d == 0
			 : p < n && d != UINT32_MAX && hp_paths_depth(P, p) != UINT32_MAX && d == hp_paths_depth(P, p) + 1;
		if (!ok)
			BAD("path parent of %llu inconsistent", (unsigned long long)v);
	}
	return 0;
bad:
	return -1;
}

static int check_retained(const hp_heap *h, const struct hp_retained *R, char *why, size_t why_len)
{
	uint8_t *seen = NULL;
	uint64_t n = h->nobj;
	if (R->weak < 0 || R->weak > HP_WEAK_SKIP_WEAK || R->roots_policy < 0 || R->roots_policy > HP_ROOTS_UNREACHABLE)
		BAD("policy out of range");
	if (R->dom.n != n || R->dom.nreach > n || R->nmade_roots > n)
		BAD("graph size differs from the model's");
	if (!R->dom.idom || !R->dom.order || !R->shallow || !R->retained || !R->root_objs || !R->root_kinds ||
	    !R->child_off || !R->children || !R->class_retained || !R->row_retained)
		BAD("retained tables missing");
	for (size_t i = 0; i < R->nroot_objs; i++)
		if (R->root_objs[i] >= n || (i && R->root_objs[i] <= R->root_objs[i - 1]))
			BAD("root object out of range");   /* (sorted, unique: looked up by binary search) */
	/* the dominator tree: order lists each reachable object once, its
	 * idom before it */
	uint64_t reach = 0;
	for (uint64_t v = 0; v < n; v++) {
		uint32_t d = R->dom.idom[v];
		if (d != HP_DOM_SUPER && d != HP_DOM_UNREACHABLE && d >= n)
			BAD("dominator of %llu out of range", (unsigned long long)v);
		reach += d != HP_DOM_UNREACHABLE;
	}
	if (reach != R->dom.nreach)
		BAD("dominator order length");
	if (!(seen = bits_new(n)))
		BAD("out of memory");
	for (uint32_t i = 0; i < R->dom.nreach; i++) {
		uint32_t v = R->dom.order[i], d;
		if (i + PREFETCH_AHEAD < R->dom.nreach)
			prefetch_at(R->dom.idom, R->dom.order[i + PREFETCH_AHEAD], n);
		if (v >= n || (d = R->dom.idom[v]) == HP_DOM_UNREACHABLE ||
		    (d != HP_DOM_SUPER && !((seen[d >> 3] >> (d & 7)) & 1)) || bit_test_set(seen, v))
			BAD("dominator order inconsistent");
	}
	hp_free(seen);
	seen = NULL;
	return 0;
bad:
	hp_free(seen);
	return -1;
}

/* the children lists: those of v are the objects whose idom is v (any
 * idom value is safe to compare here) */
static int check_children(const hp_heap *h, const struct hp_retained *R, char *why, size_t why_len)
{
	uint64_t n = h->nobj;
	if (R->dom.n != n || R->dom.nreach > n || !R->dom.idom || !R->child_off || !R->children)
		BAD("retained tables missing");
	if (R->child_off[0] != 0 || R->child_off[n + 1] != R->dom.nreach)
		BAD("dominator children out of range");
	for (uint64_t v = 0; v <= n; v++) {
		if (R->child_off[v + 1] < R->child_off[v])
			BAD("dominator children not monotonic");
		for (uint32_t j = R->child_off[v]; j < R->child_off[v + 1]; j++) {
			uint32_t c = R->children[j];
			if (j + PREFETCH_AHEAD < R->dom.nreach)
				prefetch_at(R->dom.idom, R->children[j + PREFETCH_AHEAD], n);
			if (c >= n || R->dom.idom[c] != (v == n ? HP_DOM_SUPER : (uint32_t)v))
				BAD("dominator child inconsistent");
		}
	}
	return 0;
bad:
	return -1;
}

/* A check run on a thread of its own beside other work (both are safe on
 * any bytes), or after it when no thread can start: beside_start(), then
 * beside_end() with the other work's result, which is said first. */
typedef int beside_fn(const hp_heap *h, const void *x, char *why, size_t why_len);
struct beside {
	beside_fn *fn;
	const hp_heap *h;
	const void *x;
	int rc, threaded;
	pthread_t th;
	char why[160];
};

static void *beside_main(void *arg)
{
	struct beside *b = arg;
	b->rc = b->fn ? b->fn(b->h, b->x, b->why, sizeof b->why) : 0;
	return NULL;
}

/* (fn NULL: nothing to check) */
static void beside_start(struct beside *b, beside_fn *fn, const hp_heap *h, const void *x)
{
	*b = (struct beside){ .fn = fn, .h = h, .x = x };
	b->threaded = fn && pthread_create(&b->th, NULL, beside_main, b) == 0;
}

static int beside_end(struct beside *b, int rc, char *why, size_t why_len)
{
	if (b->threaded)
		pthread_join(b->th, NULL);
	else if (!rc)
		beside_main(b);
	if (!rc && b->rc) {
		set_why(why, why_len, "%s", b->why);
		rc = -1;
	}
	return rc;
}

static int children_beside(const hp_heap *h, const void *R, char *why, size_t why_len)
{
	return check_children(h, R, why, why_len);
}

/* the tree's checks: the children lists beside the rest (they read
 * different arrays at random) */
static int check_tree(const hp_heap *h, const struct hp_retained *R, char *why, size_t why_len)
{
	struct beside b;
	beside_start(&b, children_beside, h, R);
	return beside_end(&b, check_retained(h, R, why, why_len), why, why_len);
}

/* what the images say that the header says too: the options the model
 * was made under (the key; the dump number tells the graph's and the
 * object reader's passes which heap dump to read), the retained sizes'
 * policies */
static int check_images(const hp_heap *h, const hp_index *ix, char *why, size_t why_len)
{
	const struct hp_heap_opts *o = &h->opts;
	const struct hp_index_key *k = &ix->hd.key;
	if (o->size_kind != k->size_kind || o->ref_size != k->ref_size || o->header_size != k->header_size ||
	    o->align != k->align || o->dump_index != k->dump_index)
		BAD("model options differ from the header's");
	if (ix->hd.has_retained && (ix->ret.weak != ix->hd.weak || ix->ret.roots_policy != ix->hd.roots))
		BAD("retained policies differ from the header's");
	return 0;
bad:
	return -1;
}

/* the model's checks (steps 4 and 5) */
static int model_beside(const hp_heap *h, const void *x, char *why, size_t why_len)
{
	const hp_index *ix = x;
	return check_heap(h, why, why_len) || check_load(h, &ix->info, why, why_len) ||
	       check_images(h, ix, why, why_len);
}

/* A group's sections summed, and fn(h, x) checking what the arrays say on
 * a thread of its own meanwhile (they read the arrays at random where the
 * sums read them in order); a sum that differs is said first.  0 good, -1
 * damaged (why in why). */
static int sums_checked(const hp_index *ix, int group, beside_fn *fn, const hp_heap *h, const void *x, char *why,
			size_t why_len)
{
	struct beside b;
	beside_start(&b, fn, h, x);
	int64_t bad = sum_mismatch(ix->map, ix->fd, ix->tab, ix->hd.nsections, group);
	if (bad < 0)
		set_why(why, why_len, "out of memory");
	else if (bad < ix->hd.nsections)
		set_why(why, why_len, "section %u checksum mismatch", (unsigned)bad);
	return beside_end(&b, bad < 0 || bad < ix->hd.nsections ? -1 : 0, why, why_len);
}

static const char *reader_kind(const char *s)
{
	static const char *const kinds[] = { "file", "gzip", "stream", "mmap" };
	for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
		if (strncmp(s, kinds[i], 16) == 0)
			return kinds[i];
	return "file";
}

int hp_index_open(hp_index **out, const char *path, const struct hp_index_ident *id,
		  const struct hp_index_key *key, char *why, size_t why_len)
{
	*out = NULL;
	why[0] = '\0';
	int fd, exists;
	int trust = open_trusted(path, &fd, &exists, why, why_len);
	if (trust != HP_INDEX_OK)
		return trust;
	struct stat st;
	if (fstat(fd, &st) != 0) {
		set_why(why, why_len, "%s", strerror(errno));
		close(fd);
		return HP_INDEX_IOERR;
	}
	uint64_t size = (uint64_t)st.st_size;
	struct ix_header hd;
	if (size < sizeof hd) {
		close(fd);
		set_why(why, why_len, "%llu bytes, shorter than its header", (unsigned long long)size);
		return HP_INDEX_TRUNCATED;
	}
	if (read_at(fd, &hd, sizeof hd, 0) != 0) {
		close(fd);
		set_why(why, why_len, "cannot read it");
		return HP_INDEX_IOERR;
	}
	if (memcmp(hd.magic, IX_MAGIC, 8) != 0) {
		close(fd);
		set_why(why, why_len, "not an hprofan index");
		return HP_INDEX_CORRUPT;
	}
	if (hd.version != HP_INDEX_VERSION || hd.endian != IX_ENDIAN || hd.word_size != sizeof(void *) ||
	    hd.layout != layout_signature()) {
		close(fd);
		if (hd.version != HP_INDEX_VERSION)
			set_why(why, why_len, "format version %u, this hprofan reads %u", hd.version, HP_INDEX_VERSION);
		else
			set_why(why, why_len, "written for another byte order, word size or build");
		return HP_INDEX_VERSION_MISMATCH;
	}
	if (crc_of(&hd, offsetof(struct ix_header, header_crc)) != hd.header_crc) {
		close(fd);
		set_why(why, why_len, "header checksum mismatch");
		return HP_INDEX_CORRUPT;
	}
	if (hd.file_size != size) {
		close(fd);
		set_why(why, why_len, "%llu bytes, its header says %llu", (unsigned long long)size,
			(unsigned long long)hd.file_size);
		return hd.file_size > size ? HP_INDEX_TRUNCATED : HP_INDEX_CORRUPT;
	}
	if (memcmp(&hd.ident, id, sizeof *id) != 0) {
		close(fd);
		if (hd.ident.size != id->size)
			set_why(why, why_len, "the dump is %llu bytes, was %llu", (unsigned long long)id->size,
				(unsigned long long)hd.ident.size);
		else if (hd.ident.inode != id->inode)
			set_why(why, why_len, "made for another file");
		else if (hd.ident.mtime_sec != id->mtime_sec || hd.ident.mtime_nsec != id->mtime_nsec)
			set_why(why, why_len, "the dump was modified since");
		else
			set_why(why, why_len, "the dump's content differs");
		return HP_INDEX_STALE;
	}
	if (memcmp(&hd.key, key, sizeof *key) != 0) {
		close(fd);
		set_why(why, why_len, "made under other options");
		return HP_INDEX_OTHER_KEY;
	}
	unsigned char *map = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		set_why(why, why_len, "cannot map it: %s", strerror(errno));
		close(fd);
		return HP_INDEX_IOERR;
	}
	hp_index *ix = hp_calloc(1, sizeof *ix);
	const struct ix_section *tab = NULL;
	int status = HP_INDEX_CORRUPT;
	if (!ix) {
		set_why(why, why_len, "out of memory");
		status = HP_INDEX_IOERR;
		goto fail;
	}
	ix->map = map;
	ix->fd = fd;
	ix->size = size;
	ix->hd = hd;
	if (hd.table_off != sizeof hd || hd.nsections > S_MAX + 4 ||
	    hd.nsections * (uint64_t)sizeof *tab > size - hd.table_off)
		BAD("section table out of range");
	tab = (const struct ix_section *)(map + hd.table_off);
	if (crc_of(tab, hd.nsections * sizeof *tab) != hd.table_crc)
		BAD("section table checksum mismatch");
	const struct ix_section *by_id[S_MAX] = { 0 };
	for (uint32_t i = 0; i < hd.nsections; i++) {
		const struct ix_section *s = &tab[i];
		if (s->id == 0 || s->id >= S_MAX || by_id[s->id])
			BAD("section %u: unknown or repeated id %u", i, s->id);
		if (s->off % IX_ALIGN || s->off > size || s->len > size - s->off)
			BAD("section %u out of range", i);
		if (s->elem == 0 || s->len % s->elem)
			BAD("section %u: length not a multiple of its element", i);
		by_id[s->id] = s;
	}
	ix->tab = tab;
	/* the images */
	const struct ix_section *sh = by_id[S_HEAP_IMG], *sl = by_id[S_LOAD_IMG], *sr = by_id[S_RET_IMG];
	const struct ix_section *sp = by_id[S_PATH_IMG];
	if (!sh || sh->len != sizeof(hp_heap) || !sl || sl->len != sizeof(struct hp_load_info) ||
	    (hd.has_retained != 0) != (sr != NULL) || (sr && sr->len != sizeof(struct hp_retained)) ||
	    (hd.has_paths != 0) != (sp != NULL) || (sp && sp->len != sizeof(struct hp_pathsearch)))
		BAD("image sections missing or of the wrong size");
	hp_heap *h = hp_calloc(1, sizeof *h);
	if (!h)
		BAD("out of memory");
	ix->heap = h;
	memcpy(h, map + sh->off, sizeof *h);
	memcpy(&ix->info, map + sl->off, sizeof ix->info);
	if (sr)
		memcpy(&ix->ret, map + sr->off, sizeof ix->ret);
	if (sp)
		memcpy(&ix->paths, map + sp->off, sizeof ix->paths);
	clear_ptrs(h, &ix->info, &ix->ret, &ix->paths);
	h->mapped = 1;
	ix->ret.mapped = 1;
	ix->info.reader_kind = reader_kind(hd.reader_kind);
	if (by_id[S_WHYNOT]) {
		const struct ix_section *s = by_id[S_WHYNOT];
		if (!s->len || map[s->off + s->len - 1] != '\0')
			BAD("text not terminated");
		h->size.vm.why_not = (const char *)map + s->off;
	}
	/* the tables: each where its image says, of the length it says */
	for (size_t i = 0; i < NDESCS; i++) {
		const struct desc *d = &descs[i];
		const struct ix_section *s = by_id[d->id];
		if ((d->base == B_RET && !sr) || (d->base == B_PATH && !sp)) {
			if (s)
				BAD("section %d without its image", d->id);
			continue;
		}
		if (!s) {
			/* absent: NULL, which only these may be with entries */
			int may = d->id == S_FILE_ORDER || d->id == S_R_SUBTREE || d->id == S_R_OFF || d->id == S_R_OFF32 ||
				  d->id == S_R_CLASS_OBJ || d->id == S_PG_OFF || d->id == S_PG_OFF32 ||
				  d->id == S_PG_CLASS_OBJ;
			if (!may && count_of(d->id, h, &ix->info, &ix->ret, &ix->paths))
				BAD("section %d missing", d->id);
			continue;
		}
		if (s->elem != d->elem)
			BAD("section %d: element of %u bytes, want %zu", d->id, s->elem, d->elem);
		uint64_t cnt = count_of(d->id, h, &ix->info, &ix->ret, &ix->paths);
		if (s->len / s->elem != cnt)
			BAD("section %d: %llu entries, want %llu", d->id, (unsigned long long)(s->len / s->elem),
			    (unsigned long long)cnt);
		void *base = base_of(d->base, h, &ix->info, &ix->ret, &ix->paths);
		*ptr_at(base, d) = s->len ? (void *)(map + s->off) : (void *)empty_section;
	}
	/* counts the maps and the reference lists keep as capacities */
	ix->info.stats.dumps_cap = ix->info.stats.ndumps;
	ix->ret.refs.referents_cap = ix->ret.refs.nreferents;
	ix->ret.refs.followed_cap = ix->ret.refs.nfollowed;
	if (ix->ret.refs.class_obj)
		ix->ret.refs.obj_cls = h->cls;
	ix->paths.g.referents_cap = ix->paths.g.nreferents;
	ix->paths.g.followed_cap = ix->paths.g.nfollowed;
	if (ix->paths.g.class_obj)
		ix->paths.g.obj_cls = h->cls;
	/* the model's sums, and its checks on a thread of its own meanwhile
	 * (as check_group(): both are safe on any bytes); a sum that differs
	 * is said first */
	if (sums_checked(ix, G_OPEN, model_beside, h, ix, why, why_len))
		goto fail;
	ix->model = h;
	*out = ix;
	return HP_INDEX_OK;
bad:
fail:
	if (ix) {
		hp_free(ix->heap);
		hp_free(ix);
	}
	munmap(map, (size_t)size);
	close(fd);
	return status;
}

void hp_index_close(hp_index *ix)
{
	if (!ix)
		return;
	munmap(ix->map, (size_t)ix->size);
	close(ix->fd);
	hp_free(ix);
}

hp_heap *hp_index_heap(hp_index *ix)
{
	hp_heap *h = ix->heap;
	ix->heap = NULL;
	return h;
}

void hp_index_load_info(const hp_index *ix, struct hp_load_info *L)
{
	*L = ix->info;
}

static int tree_beside(const hp_heap *h, const void *R, char *why, size_t why_len)
{
	return check_tree(h, R, why, why_len);
}

static int graph_beside(const hp_heap *h, const void *g, char *why, size_t why_len)
{
	return check_graph(h, g, why, why_len);
}

static int paths_beside(const hp_heap *h, const void *ps, char *why, size_t why_len)
{
	return check_paths(h, ps, why, why_len);
}

/* The checks of a group made on first use: sums_checked(), with the
 * group's structure checks (the sums' sections are numbers: any value is
 * safe).  1 good, -1 damaged (why in why). */
static int check_group(hp_index *ix, int group, int *state, char *why, size_t why_len)
{
	if (*state)
		return *state;
	beside_fn *fn = group == G_TREE ? tree_beside : group == G_GRAPH ? graph_beside
		      : group == G_PATH ? paths_beside : NULL;
	const void *x = group == G_TREE ? (const void *)&ix->ret : group == G_GRAPH ? (const void *)&ix->ret.refs
		      : (const void *)&ix->paths;
	*state = sums_checked(ix, group, fn, ix->model, x, why, why_len) ? -1 : 1;
	return *state;
}

/* check_group() of the group whose state and reason are the index's
 * NAME_state and NAME_why; when damaged, the reason also in why */
static int checked(hp_index *ix, int group, int *state, char *gwhy, size_t gwhy_len, char *why, size_t why_len)
{
	if (check_group(ix, group, state, gwhy, gwhy_len) >= 0)
		return 0;
	set_why(why, why_len, "%s", gwhy);
	return -1;
}
#define CHECKED(group, name) checked(ix, group, &ix->name##_state, ix->name##_why, sizeof ix->name##_why, why, why_len)

/* The retained part of the index, its groups checked up to `upto`: 1 the
 * sums (the per-object arrays and the graph left NULL), 2 the tree too (the
 * graph left out), 3 all.  Once all are checked, all are given. */
enum { PART_SUMS = 1, PART_TREE, PART_ALL };

static int retained_part(hp_index *ix, int upto, struct hp_retained *R, char *why, size_t why_len)
{
	if (!ix->hd.has_retained)
		return 0;
	if (ix->ret_state)
		upto = PART_ALL;
	if (CHECKED(G_SUMS, sums) < 0)
		return -1;
	if (upto >= PART_TREE && CHECKED(G_TREE, tree) < 0)
		return -1;
	if (upto >= PART_ALL && CHECKED(G_GRAPH, ret) < 0)
		return -1;
	*R = ix->ret;
	if (upto == PART_TREE) {
		memset(&R->refs, 0, sizeof R->refs);   /* not checked: none of it */
	} else if (upto == PART_SUMS) {
		uint64_t *class_retained = R->class_retained, *row_retained = R->row_retained;
		for (size_t i = 0; i < NDESCS; i++)
			if (descs[i].base == B_RET)
				*ptr_at(R, &descs[i]) = NULL;
		R->refs.obj_cls = NULL;
		R->class_retained = class_retained;
		R->row_retained = row_retained;
	}
	return 1;
}

int hp_index_retained(hp_index *ix, struct hp_retained *R, char *why, size_t why_len)
{
	return retained_part(ix, PART_ALL, R, why, why_len);
}

int hp_index_retained_tree(hp_index *ix, struct hp_retained *R, char *why, size_t why_len)
{
	return retained_part(ix, PART_TREE, R, why, why_len);
}

int hp_index_retained_sums(hp_index *ix, struct hp_retained *R, char *why, size_t why_len)
{
	return retained_part(ix, PART_SUMS, R, why, why_len);
}

int hp_index_paths(hp_index *ix, struct hp_pathsearch *ps, char *why, size_t why_len)
{
	if (!ix->hd.has_paths)
		return 0;
	if (CHECKED(G_PATH, paths) < 0)
		return -1;
	*ps = ix->paths;
	return 1;
}

int hp_index_has_paths(const hp_index *ix) { return ix->hd.has_paths != 0; }

uint64_t hp_index_size(const hp_index *ix) { return ix->size; }
