/*
 * fuzz_index — the index reader (session/index.h): an index file is
 * untrusted input too.
 *
 * The input is an index file.  So that the fuzzer gets past the checks a
 * random file fails at once, the target first makes it one of the dump it
 * stands beside: the header's identity and key are those of a small memfd
 * "dump" (the reader does not parse the dump), and, unless the input's last
 * byte is odd, the sum of every section and the CRC-32 of the section table
 * and of the header are set to what the bytes give.  Then hp_index_open() must reject
 * it or hand out a model and retained sizes that every query below can walk
 * without reading out of bounds or looping: each object found by its id,
 * its shallow size and class name, each class's histogram rows and super
 * classes, each string, each object's edges and class edge, the dominator
 * tree's children from the super-root down (and its subtree counts) and
 * the dominator chains of some objects, each object's path search parents
 * back to a start as path, object and waste read them (hp_paths_parent(),
 * hp_paths_shortest()).
 *
 * Seeds (tests/fuzz/corpus/index/): the indexes `hprofan index` writes for
 * the pipeline seeds hotspot4, hotspot8, heapdump8 and android4:
 *   HPROFAN_INDEX_DIR=/tmp/s hprofan index tests/fuzz/corpus/pipeline/X.hprof
 *   HPROFAN_INDEX_DIR=/tmp/s hprofan path tests/fuzz/corpus/pipeline/X.hprof 0x1000
 * (the second adds the path search)
 * (their layout and format version are this build's: rewrite them when a
 * struct of the model or the format changes, or they only test the
 * version check); and hotspot4's with one
 * image field forged, which the reader must refuse
 * (tests/unit/test_index --poke, as tests/cli/index_hostile.sh does):
 *   bias-1, bias-max         the path search's bias 1, 0xffffffff
 *   subrecord-0x99           a count of sub-record tag 0x99 (no name)
 *   format-esc               the header's format with an escape sequence
 *   dump-index-5             the model's dump number 5 (the header's key says 0)
 *   jdk15-max                the vm model's field-layout rule 0x7fffffff
 */
#include "fuzz.h"
#include "session/index.h"
#include "session/session.h"
#include "base/alloc.h"

#include <fcntl.h>
#include <zlib.h>

#define IX_MAX_INPUT (1u << 22)

static uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t rd64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static void wr32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }

/* the header's fields (docs/index-format.md) */
enum { H_IDENT = 32, H_KEY = 72, H_NSEC = 112, H_TABLE_CRC = 116, H_TABLE_OFF = 120, H_CRC = 252,
       H_SIZE = 256, SEC_SIZE = 32 };

static void fix_crcs(uint8_t *b, size_t n)
{
	uint32_t nsec = rd32(b + H_NSEC);
	uint64_t toff = rd64(b + H_TABLE_OFF);
	if (toff <= n && nsec <= (n - toff) / SEC_SIZE) {
		for (uint32_t i = 0; i < nsec; i++) {
			uint8_t *e = b + toff + (size_t)i * SEC_SIZE;
			uint64_t off = rd64(e + 8), len = rd64(e + 16);
			if (off <= n && len <= n - off) {
				uint64_t sum = hp_index_section_sum(b + off, len);
				memcpy(e + 24, &sum, 8);
			}
		}
		wr32(b + H_TABLE_CRC, (uint32_t)crc32(0, b + toff, (uInt)(nsec * SEC_SIZE)));
	}
	wr32(b + H_CRC, (uint32_t)crc32(0, b, H_CRC));
}

static volatile uint64_t sink_;

static void walk(hp_heap *h, const struct hp_retained *R, int have_R)
{
	uint64_t acc = 0;
	for (size_t i = 0; i < h->nobj; i++) {
		acc += hp_heap_find(h, hp_heap_id(h, i));
		acc += hp_heap_shallow(h, i) + hp_heap_offset(h, i) + (unsigned)hp_heap_kind(h, i) + hp_heap_heap(h, i);
		acc += strlen(hp_class_name(h, h->cls[i]));
	}
	for (size_t k = 0; k < h->nclasses; k++) {
		for (unsigned hp = 0; hp < HP_MAX_HEAPS; hp++)
			acc += hp_heap_row_of(h, (uint32_t)k, hp);
		for (uint32_t c = (uint32_t)k; c != HP_NONE; c = h->classes[c].super)
			acc += h->classes[c].n_fields;
		const struct hp_class *c = &h->classes[k];
		for (uint32_t f = 0; f < c->n_fields; f++) {
			uint32_t len;
			const char *s = hp_heap_string(h, h->fields[c->first_field + f].name_sid, &len);
			if (s)
				acc += (unsigned char)s[len];
		}
		acc += hp_idmap_get(&h->class_map, c->id) + hp_idmap_get(&h->serial_map, c->serial);
	}
	for (size_t i = 0; i < h->nstr; i++) {
		uint32_t len;
		const char *s = hp_heap_string(h, h->str_map.cap ? h->str_map.keys[i % h->str_map.cap] : 0, &len);
		if (s)
			acc += (unsigned char)s[len];
	}
	for (size_t i = 0; i < h->nwarnings; i++)
		acc += strlen(hp_heap_warning(h, i));
	for (size_t i = 0; i < h->ntraces; i++)
		for (uint32_t j = 0; j < h->traces[i].n; j++)
			acc += hp_idmap_get(&h->frame_map, h->trace_frames[h->traces[i].first + j]);
	for (size_t i = 0; i < h->nroots; i++)
		acc += hp_heap_find(h, h->roots[i].object) + h->roots[i].kind;
	if (have_R) {
		for (size_t v = 0; v < h->nobj; v++) {
			struct hp_edges it = hp_refs_edges(&R->refs, v);
			for (uint32_t w; hp_edges_next(&it, &w);)
				acc += w;
			acc += R->retained[v] + hp_retained_shallow(R, v) + R->root_kinds[v] + R->dom.idom[v];
			if (R->subtree)
				acc += R->subtree[v];
		}
		for (uint32_t i = 0; i < R->dom.nreach; i++)
			acc += R->dom.order[i];
		/* the tree from the super-root (index n), children before their children */
		for (uint32_t j = R->child_off[h->nobj]; j < R->child_off[h->nobj + 1]; j++) {
			uint32_t v = R->children[j];
			for (uint32_t k = R->child_off[v]; k < R->child_off[v + 1]; k++)
				acc += R->retained[R->children[k]];
		}
		for (uint32_t v = 0; v < h->nobj && v < 64; v++) {
			uint32_t *chain;
			size_t nc;
			struct hp_error e;
			hp_error_clear(&e);
			if (hp_paths_dom_chain(&R->dom, v, &chain, &nc, &e) == HP_OK) {
				acc += nc ? chain[nc - 1] : 0;
				hp_free(chain);
			}
			acc += (unsigned)hp_retained_has_super_edge(R, v);
		}
		for (size_t k = 0; k < h->nclasses; k++)
			acc += R->class_retained[k];
		for (size_t r = 0; r < h->nrows; r++)
			acc += R->row_retained[r];
	}
	sink_ = acc;
}

/* The index is a file of its own in a private directory (0700, made for
 * each input and removed after it, so that nothing is left behind when
 * libFuzzer stops), not a memfd: the reader takes only a regular file of
 * the user's that nothing links to (/proc/self/fd/N is a link), in a
 * directory no one else can write.  Returns an fd of it to close, or -1;
 * index_file_remove() removes both. */
static char index_dir[4096];

static int index_file(const void *data, size_t n, char *path, size_t cap)
{
	const char *t = getenv("TMPDIR");
	snprintf(index_dir, sizeof index_dir, "%s/fuzz_index.XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(index_dir))
		return -1;
	snprintf(path, cap, "%s/index", index_dir);
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		rmdir(index_dir);
		return -1;
	}
	const uint8_t *p = data;
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w <= 0) {
			close(fd);
			unlink(path);
			rmdir(index_dir);
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return fd;
}

static void index_file_remove(const char *path)
{
	unlink(path);
	rmdir(index_dir);
}

/* The path search as path, object and waste read it: each object's parents
 * back to its start (through hp_paths_parent(), which takes the bias
 * off), its edges, and the shortest paths of a few objects, one and three. */
static void walk_paths(const struct hp_pathsearch *ps)
{
	uint64_t acc = 0;
	const struct hp_paths *P = &ps->P;
	for (uint32_t v = 0; v < P->n; v++) {
		uint64_t steps = 0;
		for (uint32_t u = hp_paths_parent(P, v); u != HP_PATH_UNSEEN && u != HP_PATH_START;
		     u = hp_paths_parent(P, u))
			if (++steps > P->n)
				abort();   /* a loop the checks let through */
		acc += steps + hp_paths_depth(P, v);
		struct hp_edges it = hp_refs_edges(&ps->g, v);
		for (uint32_t w; hp_edges_next(&it, &w);)
			acc += w;
	}
	for (uint32_t v = 0; v < P->n && v < 64; v++) {
		struct hp_pathlist pl;
		struct hp_error e;
		hp_error_clear(&e);
		if (hp_paths_shortest(P, &ps->g, v, v & 1 ? 3 : 1, &pl, &e) == HP_OK) {
			for (size_t k = 0; k < pl.npaths; k++)
				for (size_t i = pl.first[k]; i < pl.first[k + 1]; i++)
					acc += pl.nodes[i];
			hp_paths_list_release(&pl);
		}
	}
	sink_ = acc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < H_SIZE || size > IX_MAX_INPUT)
		return 0;
	static const char dump[] = "JAVA PROFILE 1.0.2\0 a dump that is not parsed";
	char dpath[64], ipath[4200];
	int dfd = fuzz_memfile(dump, sizeof dump, dpath, sizeof dpath);
	if (dfd < 0)
		return 0;
	struct hp_error err;
	hp_error_clear(&err);
	struct hp_index_ident id;
	struct hp_index_key key;
	memset(&key, 0, sizeof key);
	if (hp_index_identity(dpath, &id, &err) != HP_OK) {
		close(dfd);
		return 0;
	}
	uint8_t *b = malloc(size);
	if (!b) {
		close(dfd);
		return 0;
	}
	memcpy(b, data, size);
	memcpy(b + H_IDENT, &id, sizeof id);
	memcpy(b + H_KEY, &key, sizeof key);
	if (!(data[size - 1] & 1))
		fix_crcs(b, size);
	int ifd = index_file(b, size, ipath, sizeof ipath);
	free(b);
	if (ifd < 0) {
		close(dfd);
		return 0;
	}
	hp_index *ix = NULL;
	char why[256];
	if (hp_index_open(&ix, ipath, &id, &key, why, sizeof why) == HP_INDEX_OK) {
		if (!memchr(why, 0, sizeof why))
			abort();
		/* the parts first (each checks only its sections), then all */
		struct hp_retained R;
		if (hp_index_retained_sums(ix, &R, why, sizeof why) > 0)
			sink_ += R.reachable;
		if (hp_index_retained_tree(ix, &R, why, sizeof why) > 0)
			sink_ += R.refs.nedges + R.dom.nreach + R.child_off[R.dom.n + 1];
		int have_R = hp_index_retained(ix, &R, why, sizeof why) > 0;
		struct hp_pathsearch ps;
		if (hp_index_paths(ix, &ps, why, sizeof why) > 0)
			walk_paths(&ps);
		struct hp_load_info L;
		hp_index_load_info(ix, &L);
		hp_heap *h = hp_index_heap(ix);
		walk(h, &R, have_R);
		sink_ += L.stats.ndumps ? L.stats.dumps[L.stats.ndumps - 1].records : 0;
		if (have_R)
			hp_retained_release(&R);
		hp_heap_free(h);
		hp_index_close(ix);
	} else if (!memchr(why, 0, sizeof why)) {
		abort();
	} else if (getenv("FUZZ_INDEX_WHY")) {
		fprintf(stderr, "fuzz_index: rejected: %s\n", why);   /* seeds should not be */
	}
	close(ifd);
	index_file_remove(ipath);
	close(dfd);
	return 0;
}
