/*
 * build.h — the heap builder's state: what the parser sink needs while it
 * fills a struct hp_heap and hp_heap_finish() needs to complete it, and no
 * query afterwards (private to src/model: the sink in build.c, heap.c,
 * finish.c and the files it calls).
 *
 * Capacities of the growing tables, the direct-mapped class cache, the
 * per-class instance counters of the main heap, the array length residues
 * per histogram row (for exact aligned sums), the evidence the size model
 * is inferred from (GCD of ids, compressed references), the Android heap
 * being read, and the tally of what the records need under a memory limit.
 * Freed by a successful hp_heap_finish() (and by hp_heap_free()).
 */
#ifndef HP_MODEL_BUILD_H
#define HP_MODEL_BUILD_H

#include "model/heap.h"

/*
 * The vm size model's evidence (gaps.c): HotSpot object ids are addresses,
 * and a dump lists the objects of each heap region in address order, so the
 * distance from one object to the next is the first one's size in memory
 * (after a compacting GC, nearly always).  Class objects are written first,
 * apart from the others, so the gaps are measured around them: the sorted
 * ids of the class objects are walked alongside.  Collected while streaming,
 * so the histogram-only model gets the same sizes as the full one.
 */
struct hp_gapstat { uint32_t v[3], n[3], other; };   /* the 3 most common gaps */
#define HP_GAP_MAX (1u << 16)         /* instance gaps beyond this are not sizes */
struct hp_mirror { uint64_t id; uint32_t cls; };
struct hp_gaps {
	struct hp_gapstat *inst;      /* per class: gaps after its instances */
	size_t inst_cap;
	uint32_t *mirror;             /* per class: gap after its class object (0 unknown) */
	size_t mirror_cap;
	struct hp_mirror *mirrors;    /* class objects (id, class) */
	size_t nmirrors, mirrors_cap, sorted;
	unsigned resorts;
	size_t mcur;                  /* first class object after prev_id */
	uint64_t next_mirror;         /* its id, UINT64_MAX when none */
	uint64_t prev_id;             /* the previous object record (0 none) */
	uint32_t prev_cls, prev_len;
	uint8_t prev_kind;            /* enum hp_obj_kind + 1, 0 none */
	uint8_t prev_elem;            /* its element size (primitive arrays) */
	int off;                      /* gave up (class objects amid the others) */
	uint64_t objects;             /* object records seen */
	uint64_t inst_gaps, arr_gaps, mirror_gaps;   /* gaps recorded */
	/* arrays: hits of base candidates 12,16,20,24 per element kind:
	 * 0..3 primitive of 1,2,4,8 bytes, 4 references of 4 bytes, 5 of 8 */
	uint64_t arr_obs[6], arr_hit[6][4];
};

/* the slow path of hp_gaps_next() */
int hp_gaps_slow(struct hp_gaps *g, uint64_t id, int kind, uint32_t cls, uint32_t len,
		 unsigned elem, uint64_t gcd) HP_MUST_USE;
int hp_gaps_mirror(struct hp_gaps *g, uint64_t id, uint32_t cls) HP_MUST_USE;
void hp_gaps_release(struct hp_gaps *g);

/* An object record at id: the gap since the previous one is its size.  The
 * common case (an instance after an instance, no class object between)
 * costs a few compares. */
#define HP_GAPS_ARR_ALL (1u << 16)   /* arrays evaluated one by one; then one in 8 */

/* the record the next gap is measured from (the fast path's and the slow one's) */
static inline void hp_gaps_prev(struct hp_gaps *g, uint64_t id, int kind, uint32_t cls, uint32_t len,
				unsigned elem)
{
	g->prev_id = id;
	g->prev_kind = (uint8_t)(kind + 1);
	g->prev_cls = cls;
	g->prev_len = len;
	g->prev_elem = (uint8_t)elem;
}

static inline int hp_gaps_next(struct hp_gaps *g, uint64_t id, int kind, uint32_t cls, uint32_t len,
			       unsigned elem, uint64_t gcd)
{
	g->objects++;
	if (id > g->prev_id && id < g->next_mirror && (kind != HP_OBJ_INSTANCE || cls < g->inst_cap)) {
		if (g->prev_kind == HP_OBJ_INSTANCE + 1) {
			struct hp_gapstat *s = &g->inst[g->prev_cls];
			if (s->v[0] != id - g->prev_id || !s->n[0])
				goto slow;
			s->n[0]++;
			g->inst_gaps++;
		} else if (g->prev_kind > HP_OBJ_INSTANCE + 1 && g->arr_gaps >= HP_GAPS_ARR_ALL &&
			   (++g->arr_gaps & 7)) {
			/* an array not sampled */
		} else {
			goto slow;
		}
		hp_gaps_prev(g, id, kind, cls, len, elem);
		return HP_OK;
	}
slow:
	return hp_gaps_slow(g, id, kind, cls, len, elem, gcd);
}

struct hp_heap_build {
	hp_heap *h;

	/* capacities of the heap's tables */
	size_t str_cap, arena_cap, text_cap, classes_cap, fields_cap, statics_cap, rows_cap;
	size_t frames_cap, traces_cap, trace_frames_cap, threads_cap, roots_cap, obj_cap, warnings_cap;
	size_t alloc_recs_cap, alloc_sites_cap, summaries_cap, cpu_recs_cap, cpu_samples_cap;

	uint64_t ccache_id[64]; uint32_t ccache_idx[64];   /* class id -> index cache */
	/* instances of heap 0 are counted here per class first, folded into rows at the end */
	uint64_t *ccount; size_t ccount_cap;
	/* arrays: per histogram row, HP_LENMOD counters of length mod HP_LENMOD */
	uint64_t **lenmod; size_t lenmod_cap;
	unsigned cur_heap;            /* Android heap of the records being read */
	/* heaps past HP_MAX_HEAPS go into the last one: the names merged so
	 * far (a hash of each), how many */
	struct hp_idmap merged_heaps;
	uint64_t nmerged, merged_more;
	uint64_t merged_base;         /* the last heap's name with the merged names listed */

	/* size-model inference while streaming */
	uint64_t gcd_first; int gcd_have_first, gcd_done; uint64_t gcd;
	uint64_t prev_array_start, prev_array_uend; int found_compressed;
	uint64_t compressed_at;
	struct hp_gaps gaps;          /* the vm size model's evidence (gaps.c) */
	uint64_t *vm_inst, *vm_mirror;   /* the vm model's sizes per class (sizemodel.c) */

	/* --dump all (opts.dump_index < 0): the heap dumps merged, an object
	 * met again in a later dump taken once, from its first record (as ahat
	 * keeps it).  prev_ids: a hash set (open addressing, at most half
	 * full: 16 to 32 bytes an object) of the ids of the dumps before the
	 * current one, each added once as the next dump begins; the ids of the
	 * current dump are the object table's from pend_from on, or, without
	 * the object table, seen (8 bytes a record of the current dump) */
	unsigned dumps;               /* heap dumps begun */
	uint64_t *prev_ids; size_t nprev, prev_cap;
	size_t pend_from;
	uint64_t *seen; size_t nseen, seen_cap;

	/* the memory limit: what the records need, counted whether stored or not
	 * (objects: n_instances, n_objarrays, n_primarrays and class_dumps) */
	int over_limit;               /* the limit refused an allocation: only counting */
	int too_many;                 /* more objects than hp_heap_max_objects: the parse stopped */
	struct hp_tally {
		uint64_t strings, string_bytes, load_classes, class_dumps, fields, statics;
		uint64_t roots, frames, traces, trace_frames, threads;
		uint64_t arrays;          /* array records */
		uint64_t heap_id;         /* Android heap of the records, as written */
		uint64_t last_id;         /* build_objects: were the ids ascending? */
		int unsorted;
		uint64_t rowbits[HP_TALLY_ROWBITS / 64];   /* (array class, heap) seen: a
		                             linear-counting sketch of the array rows */
	} tally;
};

/* Appends s (n bytes) and a NUL to h->text; *off gets where it starts. */
int hp_build_text(struct hp_heap_build *b, const char *s, size_t n, uint64_t *off);
void hp_build_free(struct hp_heap_build *b);
/* histogram row for (class, heap), created when missing; HP_NONE when out of memory */
uint32_t hp_heap_row(hp_heap *h, uint32_t cidx, unsigned heap);
/* a new class at the end of h->classes, zeroed but for id (no super, no
 * row), not in the class map; its index, HP_NONE when out of memory */
uint32_t hp_heap_class_new(hp_heap *h, uint64_t id);

/* "int" for the descriptor 'I', and so on for each primitive type (names.c);
 * NULL for any other character */
const char *hp_prim_of(char c);

/* ---- the size model (sizemodel.c), in hp_heap_finish()'s order */
/* the vm model's layout parameters and every class's sizes inferred from
 * the gaps (gaps.c) and the rules (vmlayout.c), or why not */
int hp_size_vm_decide(hp_heap *h) HP_MUST_USE;
/* the model: the one asked for, else the dump's default (h->size) */
void hp_size_decide(hp_heap *h);
/* the vm model's sizes into the classes */
void hp_size_vm_apply(hp_heap *h);
/* the other models' instance and class object sizes */
int hp_size_instances(hp_heap *h) HP_MUST_USE;
/* the shallow bytes of histogram row r of array class c, each length's
 * padding counted from the row's length residues (lenmod, or NULL) */
uint64_t hp_size_array_row(const hp_heap *h, const struct hp_class *c, const struct hp_hrow *r,
			   const uint64_t *lenmod);

/* ---- the object table (idsort.c) */
/* the radix sort's digit: 11 bits a pass (hp_heap_need() counts its buckets) */
#define RADIX_BITS 11
#define RADIX_N (1u << RADIX_BITS)
/* sorts the objects by id, every column following */
int hp_heap_sort_objects(hp_heap *h) HP_MUST_USE;
/* the id index over the sorted ids (hp_heap_find()) */
int hp_heap_build_index(hp_heap *h) HP_MUST_USE;

#endif
