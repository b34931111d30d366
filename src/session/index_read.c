/* index_read.c — an index mapped and handed out: the header and section
 * table checked, the structs' images copied and their pointers set into
 * the mapping, each group of sections summed (on two cores) and checked
 * on first use (index.h). */
#include "session/index_format.h"
#include "base/alloc.h"

#include <errno.h>
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

static const unsigned char empty_section[IX_ALIGN];

/* Which sections are summed and checked when: the model's when the index
 * is opened (with the images of the other two, which give their counts),
 * the retained sizes' when first asked for, the path search's likewise; a
 * command that never asks for the graph never reads it.  The retained
 * sizes come in parts: the class sums; each object's values (its retained
 * size, its dominator as a number, its root kinds: what sql's objects
 * table shows); the rest of the dominator tree (the order and the children
 * lists, which walks follow; the shallow sizes, which the model gives
 * too); the reference graph. */
enum { G_OPEN, G_SUMS, G_VALUES, G_TREE, G_GRAPH, G_PATH };

static int group_of(uint32_t id)
{
	if (id == S_R_CLASS_RET || id == S_R_ROW_RET)
		return G_SUMS;
	if ((id >= S_R_OFF && id <= S_R_CLASS_OBJ) || id == S_R_CLASS_GAP)
		return G_GRAPH;   /* the retained sizes' reference graph */
	if (id == S_D_IDOM || id == S_R_RETAINED || id == S_R_ROOT_OBJS || id == S_R_ROOT_KINDS)
		return G_VALUES;  /* each object's retained size, dominator, root kinds */
	if ((id >= S_D_IDOM && id <= S_R_ROW_RET) || id == S_R_SUBTREE)
		return G_TREE;    /* the dominator tree's order and children, the shallow sizes */
	return (id >= S_PG_OFF && id <= S_P_DEPTH) || id == S_PG_CLASS_GAP ? G_PATH : G_OPEN;
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

/* A block's pages are mapped in one call (MADV_POPULATE_READ, Linux 5.14)
 * and summed in the mapping, then let go (MADV_DONTNEED: the mapping is
 * read-only, so a later read maps them again from the page cache): summing
 * in the mapping page by page takes a page fault and a TLB miss every 4
 * KiB (four times slower on the bench machine), and read() into a buffer
 * copies every byte.  The bench dump's one-class sql count: 0.48 s with
 * read(), 0.40-0.44 s so, and a lower peak RSS (the pages summed are not
 * kept mapped).  Where the kernel lacks it, the block is read into a
 * buffer of the thread's own and summed there; a read that fails or
 * falls short sums the mapping.  The same bytes every way. */
static int block_mapped(const unsigned char *p, uint64_t n)
{
#ifdef MADV_POPULATE_READ
	uintptr_t a = (uintptr_t)p, a0 = a & ~(uintptr_t)4095;
	return madvise((void *)a0, (size_t)(a + n - a0), MADV_POPULATE_READ) == 0;
#else
	(void)p, (void)n;
	return 0;
#endif
}

/* the whole pages of [p, p + n) unmapped (mapped again on use) */
static void block_let_go(const unsigned char *p, uint64_t n)
{
	uintptr_t s0 = ((uintptr_t)p + 4095) & ~(uintptr_t)4095, e = ((uintptr_t)p + n) & ~(uintptr_t)4095;
	if (e > s0)
		(void)madvise((void *)s0, (size_t)(e - s0), MADV_DONTNEED);
}

static uint64_t block_sum_read(const struct sum_job *j, unsigned char *buf, const struct ix_section *x, uint64_t b)
{
	uint64_t off = b * IX_BLOCK, n = x->len - off < IX_BLOCK ? x->len - off : IX_BLOCK;
	const unsigned char *p = j->map + x->off + off;
	if (block_mapped(p, n)) {
		uint64_t h = ix_block_sum(j->map + x->off, x->len, b);
		block_let_go(p, n);
		return h;
	}
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
			return ix_sum_of_block(buf, n);
	}
	return ix_block_sum(j->map + x->off, x->len, b);
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
			nb += ix_nblocks(tab[i].len);
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
		if (ix_sum_of_blocks(sums + first[k], secs[k]->len) != secs[k]->sum) {
			bad = at[k];
			break;
		}
out:
	hp_free_all(secs, first, at, sums);
	return bad;
}

/* A group's sections summed, and fn(h, x) checking what the arrays say on
 * a thread of its own meanwhile (they read the arrays at random where the
 * sums read them in order); a sum that differs is said first.  0 good, -1
 * damaged (why in why). */
static int sums_checked(const hp_index *ix, int group, ix_check_fn *fn, const hp_heap *h, const void *x, char *why,
			size_t why_len)
{
	struct ix_beside b;
	ix_beside_start(&b, fn, h, x);
	int64_t bad = sum_mismatch(ix->map, ix->fd, ix->tab, ix->hd.nsections, group);
	if (bad < 0)
		ix_set_why(why, why_len, "out of memory");
	else if (bad < ix->hd.nsections)
		ix_set_why(why, why_len, "section %u checksum mismatch", (unsigned)bad);
	return ix_beside_end(&b, bad < 0 || bad < ix->hd.nsections ? -1 : 0, why, why_len);
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
	int trust = ix_open_trusted(path, &fd, &exists, why, why_len);
	if (trust != HP_INDEX_OK)
		return trust;
	struct stat st;
	if (fstat(fd, &st) != 0) {
		ix_set_why(why, why_len, "%s", strerror(errno));
		close(fd);
		return HP_INDEX_IOERR;
	}
	uint64_t size = (uint64_t)st.st_size;
	struct ix_header hd;
	if (size < sizeof hd) {
		close(fd);
		ix_set_why(why, why_len, "%llu bytes, shorter than its header", (unsigned long long)size);
		return HP_INDEX_TRUNCATED;
	}
	if (ix_read_at(fd, &hd, sizeof hd, 0) != 0) {
		close(fd);
		ix_set_why(why, why_len, "cannot read it");
		return HP_INDEX_IOERR;
	}
	if (memcmp(hd.magic, IX_MAGIC, 8) != 0) {
		close(fd);
		ix_set_why(why, why_len, "not an hprofan index");
		return HP_INDEX_CORRUPT;
	}
	if (hd.version != HP_INDEX_VERSION || hd.endian != IX_ENDIAN || hd.word_size != sizeof(void *) ||
	    hd.layout != ix_layout_signature()) {
		close(fd);
		if (hd.version != HP_INDEX_VERSION)
			ix_set_why(why, why_len, "format version %u, this hprofan reads %u", hd.version, HP_INDEX_VERSION);
		else
			ix_set_why(why, why_len, "written for another byte order, word size or build");
		return HP_INDEX_VERSION_MISMATCH;
	}
	if (ix_crc(&hd, offsetof(struct ix_header, header_crc)) != hd.header_crc) {
		close(fd);
		ix_set_why(why, why_len, "header checksum mismatch");
		return HP_INDEX_CORRUPT;
	}
	if (hd.file_size != size) {
		close(fd);
		ix_set_why(why, why_len, "%llu bytes, its header says %llu", (unsigned long long)size,
			(unsigned long long)hd.file_size);
		return hd.file_size > size ? HP_INDEX_TRUNCATED : HP_INDEX_CORRUPT;
	}
	if (memcmp(&hd.ident, id, sizeof *id) != 0) {
		close(fd);
		if (hd.ident.size != id->size)
			ix_set_why(why, why_len, "the dump is %llu bytes, was %llu", (unsigned long long)id->size,
				(unsigned long long)hd.ident.size);
		else if (hd.ident.inode != id->inode)
			ix_set_why(why, why_len, "made for another file");
		else if (hd.ident.mtime_sec != id->mtime_sec || hd.ident.mtime_nsec != id->mtime_nsec)
			ix_set_why(why, why_len, "the dump was modified since");
		else
			ix_set_why(why, why_len, "the dump's content differs");
		return HP_INDEX_STALE;
	}
	if (memcmp(&hd.key, key, sizeof *key) != 0) {
		close(fd);
		ix_set_why(why, why_len, "made under other options");
		return HP_INDEX_OTHER_KEY;
	}
	unsigned char *map = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		ix_set_why(why, why_len, "cannot map it: %s", strerror(errno));
		close(fd);
		return HP_INDEX_IOERR;
	}
	hp_index *ix = hp_calloc(1, sizeof *ix);
	const struct ix_section *tab = NULL;
	int status = HP_INDEX_CORRUPT;
	if (!ix) {
		ix_set_why(why, why_len, "out of memory");
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
	if (ix_crc(tab, hd.nsections * sizeof *tab) != hd.table_crc)
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
	ix_clear_ptrs(h, &ix->info, &ix->ret, &ix->paths);
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
		const struct ix_desc *d = &ix_descs[i];
		const struct ix_section *s = by_id[d->id];
		if ((d->base == B_RET && !sr) || (d->base == B_PATH && !sp)) {
			if (s)
				BAD("section %d without its image", d->id);
			continue;
		}
		if (!s) {
			/* absent: NULL, which only these may be with entries */
			int may = d->id == S_FILE_ORDER || d->id == S_IDS || d->id == S_IDS32 || d->id == S_R_SUBTREE || d->id == S_R_OFF || d->id == S_R_OFF32 ||
				  d->id == S_R_CLASS_OBJ || d->id == S_PG_OFF || d->id == S_PG_OFF32 ||
				  d->id == S_PG_CLASS_OBJ;
			/* (the class edge gaps may not: their count is their bytes) */
			if (!may && ix_count_of(d->id, h, &ix->info, &ix->ret, &ix->paths))
				BAD("section %d missing", d->id);
			continue;
		}
		if (s->elem != d->elem)
			BAD("section %d: element of %u bytes, want %zu", d->id, s->elem, d->elem);
		uint64_t cnt = ix_count_of(d->id, h, &ix->info, &ix->ret, &ix->paths);
		if (s->len / s->elem != cnt)
			BAD("section %d: %llu entries, want %llu", d->id, (unsigned long long)(s->len / s->elem),
			    (unsigned long long)cnt);
		void *base = ix_base_of(d->base, h, &ix->info, &ix->ret, &ix->paths);
		*ix_ptr_at(base, d) = s->len ? (void *)(map + s->off) : (void *)empty_section;
	}
	/* counts the maps and the reference lists keep as capacities */
	ix->info.stats.dumps_cap = ix->info.stats.ndumps;
	ix->ret.refs.referents_cap = ix->ret.refs.nreferents;
	ix->ret.refs.followed_cap = ix->ret.refs.nfollowed;
	if (ix->ret.refs.class_obj)
		ix->ret.refs.obj_cls = h->cls;
	ix->ret.heap = h;
	ix->paths.g.referents_cap = ix->paths.g.nreferents;
	ix->paths.g.followed_cap = ix->paths.g.nfollowed;
	if (ix->paths.g.class_obj)
		ix->paths.g.obj_cls = h->cls;
	/* the model's sums, and its checks on a thread of its own meanwhile
	 * (as check_group(): both are safe on any bytes); a sum that differs
	 * is said first */
	if (sums_checked(ix, G_OPEN, ix_check_model, h, ix, why, why_len))
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

/* The checks of a group made on first use: sums_checked(), with the
 * group's structure checks (the sums' sections are numbers: any value is
 * safe).  1 good, -1 damaged (why in why). */
static int check_group(hp_index *ix, int group, int *state, char *why, size_t why_len)
{
	if (*state)
		return *state;
	ix_check_fn *fn = group == G_VALUES ? ix_check_values : group == G_TREE ? ix_check_tree
		      : group == G_GRAPH ? ix_check_graph : group == G_PATH ? ix_check_paths : NULL;
	const void *x = group == G_VALUES || group == G_TREE ? (const void *)&ix->ret
		      : group == G_GRAPH ? (const void *)&ix->ret.refs : (const void *)&ix->paths;
	*state = sums_checked(ix, group, fn, ix->model, x, why, why_len) ? -1 : 1;
	return *state;
}

/* check_group() of the group whose state and reason are the index's
 * NAME_state and NAME_why; when damaged, the reason also in why */
static int checked(hp_index *ix, int group, int *state, char *gwhy, size_t gwhy_len, char *why, size_t why_len)
{
	if (check_group(ix, group, state, gwhy, gwhy_len) >= 0)
		return 0;
	ix_set_why(why, why_len, "%s", gwhy);
	return -1;
}
#define CHECKED(group, name) checked(ix, group, &ix->name##_state, ix->name##_why, sizeof ix->name##_why, why, why_len)

/* The retained part of the index, its groups checked as `upto` asks: 1
 * the sums (the per-object arrays and the graph left NULL), 2 the values
 * too (the shallow sizes, the tree's order, children and subtree, and the
 * graph, left NULL), 3 the values and the graph (the tree's arrays left
 * NULL), 4 the values and the tree (the graph left out), 5 all.  Once all
 * are checked, all are given. */
enum { PART_SUMS = 1, PART_VALUES, PART_GRAPH, PART_TREE, PART_ALL };

static int retained_part(hp_index *ix, int upto, struct hp_retained *R, char *why, size_t why_len)
{
	if (!ix->hd.has_retained)
		return 0;
	if (ix->ret_state < 0 || (ix->ret_state > 0 && ix->tree_state > 0))
		upto = PART_ALL;   /* (a damaged graph: nothing of the part, as before there was a part 3) */
	int tree = upto == PART_TREE || upto == PART_ALL, graph = upto == PART_GRAPH || upto == PART_ALL;
	if (CHECKED(G_SUMS, sums) < 0)
		return -1;
	if (upto >= PART_VALUES && CHECKED(G_VALUES, values) < 0)
		return -1;
	if (tree && CHECKED(G_TREE, tree) < 0)
		return -1;
	if (graph && CHECKED(G_GRAPH, ret) < 0)
		return -1;
	*R = ix->ret;
	if (upto == PART_TREE || upto == PART_VALUES)
		memset(&R->refs, 0, sizeof R->refs);   /* not checked: none of it */
	if (upto == PART_VALUES || upto == PART_GRAPH) {
		R->dom.order = NULL;
		R->child_off = R->children = NULL;
		R->subtree = NULL;
	} else if (upto == PART_SUMS) {
		uint64_t *class_retained = R->class_retained, *row_retained = R->row_retained;
		for (size_t i = 0; i < NDESCS; i++)
			if (ix_descs[i].base == B_RET)
				*ix_ptr_at(R, &ix_descs[i]) = NULL;
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

int hp_index_retained_values(hp_index *ix, struct hp_retained *R, char *why, size_t why_len)
{
	return retained_part(ix, PART_VALUES, R, why, why_len);
}

int hp_index_retained_graph(hp_index *ix, struct hp_retained *R, char *why, size_t why_len)
{
	return retained_part(ix, PART_GRAPH, R, why, why_len);
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
