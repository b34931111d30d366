/* index.c — the index file's format: the table of its sections (where
 * each array of the model, the retained sizes and the path search goes and
 * how many entries it has), the layout signature, the section sums, and
 * what the writer and the reader share: where an index may be trusted,
 * the identity of its dump (index.h, index_format.h, docs/index-format.md).
 * Writing is index_write.c, mapping index_read.c, the checks of what a
 * mapped index holds index_check.c. */
#include "session/index_format.h"
#include "base/dir.h"
#include "base/alloc.h"
#include "base/hash.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define H(id, f) { id, B_HEAP, sizeof *((hp_heap *)0)->f, offsetof(hp_heap, f) }
#define R(id, f) { id, B_RET, sizeof *((struct hp_retained *)0)->f, offsetof(struct hp_retained, f) }
#define P(id, f) { id, B_PATH, sizeof *((struct hp_pathsearch *)0)->f, offsetof(struct hp_pathsearch, f) }
const struct ix_desc ix_descs[] = {
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
	R(S_D_IDOM, dom.idom), R(S_D_ORDER, dom.order), R(S_R_RETAINED, retained),
	R(S_R_ROOT_OBJS, root_objs), R(S_R_ROOT_KINDS, root_kinds), R(S_R_CHILD_OFF, child_off),
	R(S_R_CHILDREN, children), R(S_R_SUBTREE, subtree), R(S_R_CLASS_RET, class_retained), R(S_R_ROW_RET, row_retained),
	P(S_PG_OFF, g.off), P(S_PG_OFF32, g.off32), P(S_PG_ADJ, g.adj), P(S_PG_REFERENTS, g.referents),
	P(S_PG_FOLLOWED, g.followed), P(S_PG_CLASS_OBJ, g.class_obj), P(S_P_PARENT, P.parent), P(S_P_DEPTH, P.depth),
	R(S_R_CLASS_GAP, refs.class_gap), P(S_PG_CLASS_GAP, g.class_gap), H(S_IDS32, ids32),
};
#undef H
#undef R
#undef P
const size_t ix_ndescs = sizeof ix_descs / sizeof ix_descs[0];

void **ix_ptr_at(void *base, const struct ix_desc *d)
{
	return (void **)(void *)((char *)base + d->ptr_off);
}

/* the pointers of each image cleared: the ones of the tables, and the few
 * others (the builder, static text, the borrowed class column) */
void *ix_base_of(int base, const void *h, const void *L, const void *R, const void *ps)
{
	return (void *)(base == B_HEAP ? h : base == B_LOAD ? L : base == B_RET ? R : ps);
}

void ix_clear_ptrs(hp_heap *h, struct hp_load_info *L, struct hp_retained *R, struct hp_pathsearch *ps)
{
	for (size_t i = 0; i < NDESCS; i++) {
		void *base = ix_base_of(ix_descs[i].base, h, L, R, ps);
		if (base)
			*ix_ptr_at(base, &ix_descs[i]) = NULL;
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
		R->heap = NULL;
		R->mapped = 0;
	}
	if (ps)
		ps->g.obj_cls = NULL;
}

/* the element count each table has, from the scalars of the images */
uint64_t ix_count_of(int id, const hp_heap *h, const struct hp_load_info *L, const struct hp_retained *R,
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
	case S_IDS: case S_IDS32: case S_CLS: case S_LEN: case S_OFF_LO: case S_OFF_HI: case S_FILE_ORDER: return n;
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
	case S_D_IDOM: case S_R_RETAINED: case S_R_ROOT_KINDS: case S_R_SUBTREE: return n;
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
	case S_R_CLASS_GAP: return R->refs.class_gap_bytes;
	case S_PG_CLASS_GAP: return ps->g.class_gap_bytes;
	}
	return 0;
}

/* the layouts the images and tables were written with */
uint32_t ix_layout_signature(void)
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

uint32_t ix_crc(const void *p, uint64_t n)
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
 * A block's sum is the CRC-32Cs of its three lanes (about thirds of the
 * 1 MiB block) computed side by side, so that the instruction's latency is
 * hidden (hp_crc32c_lanes3(): 13.7 GB/s from memory on the bench machine,
 * where XXH64 of the block did 7.2), folded into 64 bits by XXH64 with
 * the block's length as seed; a section's sum is XXH64 (words read in the
 * host's byte order: an index is read only where it was written) of its
 * blocks' sums.  Blocks are summed in any order on both cores when an
 * index is opened, and as they are written.  The CRCs find every burst of
 * damage up to 32 bits long and every error of up to 3 bits in a lane,
 * and miss other damage (a torn write, stray bytes) with probability
 * 2^-32 per damaged lane; an index made on purpose is caught by the checks
 * after them.  (IX_BLOCK and ix_nblocks(): index_format.h) */

uint64_t ix_sum_of_block(const void *p, uint64_t n)
{
	uint32_t crc[3];
	unsigned char b[12];
	hp_crc32c_lanes3(p, (size_t)n, crc);
	for (int k = 0; k < 12; k++)
		b[k] = (unsigned char)(crc[k / 4] >> 8 * (k % 4));
	return hp_xxh64(b, sizeof b, n);
}

uint64_t ix_block_sum(const unsigned char *p, uint64_t len, uint64_t b)
{
	uint64_t off = b * IX_BLOCK;
	return ix_sum_of_block(p + off, len - off < IX_BLOCK ? len - off : IX_BLOCK);
}

/* the sum of a section whose blocks' sums are sums[0..ix_nblocks(len)) */
uint64_t ix_sum_of_blocks(const uint64_t *sums, uint64_t len)
{
	return hp_xxh64(sums, ix_nblocks(len) * sizeof *sums, len);
}

uint64_t hp_index_section_sum(const void *p, uint64_t len)
{
	uint64_t acc[64], nb = ix_nblocks(len);
	if (nb <= 64) {
		for (uint64_t b = 0; b < nb; b++)
			acc[b] = ix_block_sum(p, len, b);
		return ix_sum_of_blocks(acc, len);
	}
	uint64_t *sums = hp_reallocarray(NULL, (size_t)nb, sizeof *sums);
	if (!sums)
		return 0;   /* tests only (the fuzz target's small inputs) */
	for (uint64_t b = 0; b < nb; b++)
		sums[b] = ix_block_sum(p, len, b);
	uint64_t s = ix_sum_of_blocks(sums, len);
	hp_free(sums);
	return s;
}

void ix_set_why(char *why, size_t n, const char *fmt, ...)
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
int ix_dir_trusted(const struct stat *st, char *why, size_t why_len)
{
	if (!S_ISDIR(st->st_mode))
		ix_set_why(why, why_len, "its directory is not a directory");
	else if (!owner_trusted(st->st_uid))
		ix_set_why(why, why_len, "its directory is owned by uid %u, not by you", (unsigned)st->st_uid);
	else if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !(st->st_mode & S_ISVTX))
		ix_set_why(why, why_len, "its directory is writable by %s: mode %04o",
			st->st_mode & S_IWOTH ? "others" : "its group", (unsigned)(st->st_mode & 07777));
	else
		return 0;
	return -1;
}

/* 0 when the file st may be read as an index, else -1 and why */
static int file_trusted(const struct stat *st, char *why, size_t why_len)
{
	if (!S_ISREG(st->st_mode))
		ix_set_why(why, why_len, "%s, not a regular file", type_name(st->st_mode));
	else if (!owner_trusted(st->st_uid))
		ix_set_why(why, why_len, "owned by uid %u, not by you", (unsigned)st->st_uid);
	else if (st->st_mode & (S_IWGRP | S_IWOTH))
		ix_set_why(why, why_len, "writable by %s: mode %04o", st->st_mode & S_IWOTH ? "others" : "its group",
			(unsigned)(st->st_mode & 07777));
	else
		return 0;
	return -1;
}

/* The index at path opened for reading: HP_INDEX_OK and the fd in *fd,
 * HP_INDEX_MISSING, HP_INDEX_UNTRUSTED or HP_INDEX_IOERR (why in why);
 * *exists 1 when something is at path (also in a directory refused). */
int ix_open_trusted(const char *path, int *fd, int *exists, char *why, size_t why_len)
{
	*fd = -1;
	*exists = 0;
	const char *base;
	int dfd = hp_open_parent(AT_FDCWD, path, &base);
	if (dfd < 0) {
		ix_set_why(why, why_len, "its directory: %s", strerror(errno));
		return errno == ENOENT ? HP_INDEX_MISSING : HP_INDEX_IOERR;
	}
	struct stat st;
	int status = HP_INDEX_UNTRUSTED;
	if (fstat(dfd, &st) != 0) {
		ix_set_why(why, why_len, "its directory: %s", strerror(errno));
		status = HP_INDEX_IOERR;
	} else if (ix_dir_trusted(&st, why, why_len)) {
		*exists = fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0;
	} else if ((*fd = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0) {
		int e = errno;
		*exists = e != ENOENT;
		if (e == ENOENT) {
			ix_set_why(why, why_len, "%s", strerror(e));
			status = HP_INDEX_MISSING;
		} else if (e == ELOOP) {
			ix_set_why(why, why_len, "a symbolic link, not a regular file");
		} else {
			ix_set_why(why, why_len, "%s", strerror(e));
			status = HP_INDEX_IOERR;
		}
	} else {
		*exists = 1;
		if (fstat(*fd, &st) != 0) {
			ix_set_why(why, why_len, "%s", strerror(errno));
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
	int status = ix_open_trusted(path, &fd, &ex, why, why_len);
	if (fd >= 0)
		close(fd);
	if (exists)
		*exists = ex;
	return status;
}

/* ---- identity ----------------------------------------------------------- */

int ix_read_at(int fd, void *buf, size_t n, uint64_t off)
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
	if (ix_read_at(fd, buf, n, 0) != 0)
		rc = hp_error_set(err, HP_EIO, "cannot read the dump");
	else
		id->crc_head = ix_crc(buf, n);
	if (!rc && ix_read_at(fd, buf, n, id->size - n) != 0)
		rc = hp_error_set(err, HP_EIO, "cannot read the dump");
	else if (!rc)
		id->crc_tail = ix_crc(buf, n);
	hp_free(buf);
	close(fd);
	return rc;
}
