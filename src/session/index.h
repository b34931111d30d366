/*
 * index.h — what the analysis of a dump computed, kept in a file beside it
 * (docs/index-format.md) so that later commands map it instead of parsing.
 *
 * The index holds the model (struct hp_heap: object columns, class, string,
 * frame, trace, thread and root tables, the id maps), how the dump was read
 * (struct hp_load_info) and, when they were computed, the retained sizes
 * (struct hp_retained: the reference graph in CSR form, the dominator tree,
 * shallow and retained sizes, the children lists, the per-class, per-row and
 * per-root-kind sums) and the path search from GC roots (its graph and the
 * breadth-first parents, without the referents of weak references).  Each
 * table is one section, 64-byte aligned, with its 64-bit sum (XXH64 of the
 * CRC-32Cs of its 1 MiB blocks); the file is mapped read-only and the structs returned point into
 * the mapping (hp_heap.mapped, hp_retained.mapped: their free paths free no
 * array).  Nothing big is copied.
 *
 * Keys: the model depends on the size-model options, the dump number and
 * salvage (struct hp_index_key: an index made under other options is not
 * used; the session replaces it under the defaults or when asked); the
 * retained part on the weak and roots policies, which it records (the
 * caller compares them with the ones it wants and computes retained sizes
 * from the dump when they differ).
 *
 * The index is untrusted input: hp_index_open() checks the identity of the
 * dump (size, mtime, inode, CRC-32 of its first and last 64 KiB), the
 * version and layout, every section's bounds, and the sums and every count,
 * offset and object number of the model against the others; those of the
 * retained sizes and of the path search on first use, by hp_index_retained()
 * and hp_index_paths().  Nothing is used before it is checked.
 *
 * Writing (hp_index_write, or hp_index_write_start and _finish around the
 * computation of retained sizes) goes to a temporary file in the same
 * directory (unnamed where the file system allows), renamed over the index
 * when complete: a reader sees the old index or the new one, never a part.
 */
#ifndef HP_INDEX_H
#define HP_INDEX_H

#include <stdint.h>
#include "model/heap.h"
#include "analysis/retained.h"

#define HP_INDEX_VERSION 6

struct hp_load_info;
struct hp_pathsearch;

/* The dump the index was made from. */
struct hp_index_ident {
	uint64_t size;
	int64_t mtime_sec, mtime_nsec;
	uint64_t inode;
	uint32_t crc_head, crc_tail;  /* CRC-32 of the first and the last 64 KiB */
};

/* The options the model depends on (what struct hp_session_opts says). */
struct hp_index_key {
	int32_t size_kind, ref_size, header_size, align, dump_index, salvage;
};

/* Why an index was not used. */
enum hp_index_status {
	HP_INDEX_OK = 0,
	HP_INDEX_MISSING,             /* no index file */
	HP_INDEX_OTHER_KEY,           /* made under other options (not an error) */
	HP_INDEX_STALE,               /* the dump is not the one indexed */
	HP_INDEX_VERSION_MISMATCH,    /* other format version, byte order, word size or layout */
	HP_INDEX_TRUNCATED,
	HP_INDEX_CORRUPT,
	HP_INDEX_IOERR,
	HP_INDEX_UNTRUSTED            /* others could have written it (below): neither read nor replaced */
};

typedef struct hp_index hp_index;

int hp_index_identity(const char *dump_path, struct hp_index_ident *id, struct hp_error *err) HP_MUST_USE;

/* Whether an index at path may be trusted: a regular file owned by the
 * user (or root) that group and others cannot write, in a directory owned
 * by the user (or root) that group and others cannot write (or only add to:
 * the sticky bit); nothing at path is followed (a symbolic link, a FIFO is
 * refused without blocking).  HP_INDEX_OK: a trusted file is there;
 * HP_INDEX_MISSING: nothing is, and the directory may hold one (or does not
 * exist); HP_INDEX_UNTRUSTED: not to be read nor written there (why says
 * why, one line, no file name); HP_INDEX_IOERR.  *exists (when not NULL):
 * 1 when something is at path, even in a directory refused.
 * hp_index_open() and the writers make the same checks on what they open. */
int hp_index_place(const char *path, int *exists, char *why, size_t why_len);

/* Maps and checks the index at path.  HP_INDEX_OK: *out holds it, and
 * hp_index_heap() etc. give what it holds; otherwise *out is NULL and why
 * (one line, no file name) is in why. */
int hp_index_open(hp_index **out, const char *path, const struct hp_index_ident *id,
		  const struct hp_index_key *key, char *why, size_t why_len);
/* Unmaps it: what the getters returned must have been freed before. */
void hp_index_close(hp_index *ix);

/* The model (a heap marked mapped, freed by hp_heap_free()), and how the
 * dump was read (stats.dumps points into the mapping: do not release). */
hp_heap *hp_index_heap(hp_index *ix);
void hp_index_load_info(const hp_index *ix, struct hp_load_info *L);
/* 1 and *R filled (marked mapped, its weak and roots policies in
 * R->weak and R->roots_policy) when the index holds retained sizes; 0
 * when it holds none; -1 when they are damaged (why in why: not to be
 * used; the index should be rewritten).  Their sections are summed and
 * checked on the first call, not by hp_index_open(): a command that does
 * not ask for them does not read them.  The model must not have been freed. */
int hp_index_retained(hp_index *ix, struct hp_retained *R, char *why, size_t why_len);
/* hp_index_retained() with only the sums filled: the scalars,
 * class_retained and row_retained (every other array NULL), of which
 * only those two sections are checked */
int hp_index_retained_sums(hp_index *ix, struct hp_retained *R, char *why, size_t why_len);
/* hp_index_retained() without the reference graph (R->refs all zero),
 * whose sections are not checked: the dominator tree, sizes and roots */
int hp_index_retained_tree(hp_index *ix, struct hp_retained *R, char *why, size_t why_len);
/* hp_index_retained_tree() without the shallow sizes, the tree's order,
 * children lists and subtree counts (NULL, not checked): each object's
 * retained size, dominator (a number its readers check before using it as
 * an object) and root kinds */
int hp_index_retained_values(hp_index *ix, struct hp_retained *R, char *why, size_t why_len);
/* hp_index_retained_values() with the reference graph (R->refs, checked) */
int hp_index_retained_graph(hp_index *ix, struct hp_retained *R, char *why, size_t why_len);
/* likewise the path search without the referents of weak references (its
 * arrays in the mapping: release none) */
int hp_index_paths(hp_index *ix, struct hp_pathsearch *ps, char *why, size_t why_len);
/* 1 when the index holds the path search (not checked yet) */
int hp_index_has_paths(const hp_index *ix);
/* the sum a section's entry in the table holds (docs/index-format.md) */
uint64_t hp_index_section_sum(const void *p, uint64_t len);
uint64_t hp_index_size(const hp_index *ix);

/* Writes the index of h (and R when not NULL) atomically at path. */
int hp_index_write(const char *path, const struct hp_index_ident *id, const struct hp_index_key *key,
		   const hp_heap *h, const struct hp_load_info *L, const struct hp_retained *R,
		   const struct hp_pathsearch *ps, uint64_t *bytes, struct hp_error *err) HP_MUST_USE;

/* The same in two steps, so that the object columns of a finished model
 * (most of it) are written by a thread of their own while the caller
 * computes retained sizes: hp_index_write_start() begins (into an unnamed
 * temporary file where the file system allows, so a killed process leaves
 * nothing); hp_index_write_finish() waits for it, writes the rest and
 * renames (it frees w, whatever it returns; w NULL: hp_index_write());
 * hp_index_write_abort() waits and drops it.  h's object columns must not
 * change or be freed in between. */
typedef struct hp_index_writer hp_index_writer;
int hp_index_write_start(hp_index_writer **w, const char *path, const hp_heap *h, struct hp_error *err) HP_MUST_USE;
int hp_index_write_finish(hp_index_writer *w, const char *path, const struct hp_index_ident *id,
			  const struct hp_index_key *key, const hp_heap *h, const struct hp_load_info *L,
			  const struct hp_retained *R, const struct hp_pathsearch *ps, uint64_t *bytes,
			  struct hp_error *err) HP_MUST_USE;
void hp_index_write_abort(hp_index_writer *w);

#endif
