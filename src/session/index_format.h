/*
 * index_format.h — the index file's layout and what index.c,
 * index_write.c, index_read.c and index_check.c share (private to them;
 * the interface is index.h, the format docs/index-format.md).
 *
 * A file is a 256-byte header, a table of sections and the sections, each
 * 64-byte aligned.  A section is one array of the model (struct hp_heap),
 * of how the dump was read (struct hp_load_info), of the retained sizes
 * (struct hp_retained) or of the path search (struct hp_pathsearch), or
 * an image of one of those structs with its pointers cleared; ix_descs[]
 * says where each array's pointer lives and ix_count_of() how many entries
 * the images say it has.  Every section carries its sum: XXH64 of its
 * 1 MiB blocks' sums, each XXH64 of the CRC-32Cs of the block's three
 * lanes.
 */
#ifndef HP_SESSION_INDEX_FORMAT_H
#define HP_SESSION_INDEX_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <sys/stat.h>
#include "session/index.h"
#include "session/session.h"

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
	S_R_CLASS_GAP, S_PG_CLASS_GAP, S_IDS32,
	S_MAX
};

struct ix_desc {
	int id, base;
	size_t elem, ptr_off;
};

/* the table: each array of the structs, its section id, where its
 * pointer is in its struct (base: B_*) and its element size */
extern const struct ix_desc ix_descs[];
extern const size_t ix_ndescs;
#define NDESCS ix_ndescs

/* the mapped index (index_read.c; its checks read the header and images) */
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
	int sums_state, values_state, tree_state, ret_state, paths_state;   /* 0 not checked yet, 1 good, -1 damaged */
	char sums_why[160], values_why[160], tree_why[160], ret_why[160], paths_why[160];
};

/* where the array of d is in the struct at base */
void **ix_ptr_at(void *base, const struct ix_desc *d);
/* the struct of kind base (B_*) among the four */
void *ix_base_of(int base, const void *h, const void *L, const void *R, const void *ps);
/* the pointers of each image cleared: the ones of the tables, and the few
 * others (the builder, static text, the borrowed class column) */
void ix_clear_ptrs(hp_heap *h, struct hp_load_info *L, struct hp_retained *R, struct hp_pathsearch *ps);
/* the element count section id has, from the scalars of the images */
uint64_t ix_count_of(int id, const hp_heap *h, const struct hp_load_info *L, const struct hp_retained *R,
		     const struct hp_pathsearch *ps);
/* the layouts the images and tables were written with */
uint32_t ix_layout_signature(void);
/* CRC-32 of n bytes (zlib's, any length) */
uint32_t ix_crc(const void *p, uint64_t n);

/* ---- section sums */
#define IX_BLOCK ((uint64_t)1 << 20)
static inline uint64_t ix_nblocks(uint64_t len) { return len ? (len + IX_BLOCK - 1) / IX_BLOCK : 0; }
/* the sum of one block, the n bytes at p (n <= IX_BLOCK) */
uint64_t ix_sum_of_block(const void *p, uint64_t n);
/* the sum of block b of the len bytes at p */
uint64_t ix_block_sum(const unsigned char *p, uint64_t len, uint64_t b);
/* the sum of a section whose blocks' sums are sums[0..ix_nblocks(len)) */
uint64_t ix_sum_of_blocks(const uint64_t *sums, uint64_t len);

/* the reason, one line, into why */
void ix_set_why(char *why, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* in a check: the reason, then to the function's label bad */
#define BAD(...) do { ix_set_why(why, why_len, __VA_ARGS__); goto bad; } while (0)

/* ---- trust (index.c) */
/* 0 when the directory st may hold an index, else -1 and why */
int ix_dir_trusted(const struct stat *st, char *why, size_t why_len);
/* The index at path opened for reading: HP_INDEX_OK and the fd in *fd,
 * HP_INDEX_MISSING, HP_INDEX_UNTRUSTED or HP_INDEX_IOERR (why in why);
 * *exists 1 when something is at path (also in a directory refused). */
int ix_open_trusted(const char *path, int *fd, int *exists, char *why, size_t why_len);
/* n bytes at off, all of them: 0, else -1 */
int ix_read_at(int fd, void *buf, size_t n, uint64_t off);

/* ---- the checks (index_check.c): safe on any bytes, 0 good, -1 damaged
 * (why in why), run beside the sums on a thread of their own */
typedef int ix_check_fn(const hp_heap *h, const void *x, char *why, size_t why_len);
/* the model (x: the hp_index, for its load info and header) */
ix_check_fn ix_check_model;
/* each object's retained values: sizes, dominator (a number, not
 * followed), root kinds; the roots (x: struct hp_retained) */
ix_check_fn ix_check_values;
/* the dominator tree: its order and children lists (x: struct hp_retained;
 * the values checked before) */
ix_check_fn ix_check_tree;
/* a reference graph (x: struct hp_refs) */
ix_check_fn ix_check_graph;
/* the path search (x: struct hp_pathsearch) */
ix_check_fn ix_check_paths;

/* A check run on a thread of its own beside other work (both are safe on
 * any bytes), or after it when no thread can start: ix_beside_start(),
 * then ix_beside_end() with the other work's result, which is said first.
 * fn NULL: nothing to check. */
struct ix_beside {
	ix_check_fn *fn;
	const hp_heap *h;
	const void *x;
	int rc, threaded;
	pthread_t th;
	char why[160];
};
void ix_beside_start(struct ix_beside *b, ix_check_fn *fn, const hp_heap *h, const void *x);
int ix_beside_end(struct ix_beside *b, int rc, char *why, size_t why_len);

#endif
