/*
 * build.h — the heap builder's state: what the parser sink needs while it
 * fills a struct hp_heap and hp_heap_finish() needs to complete it, and no
 * query afterwards (private to src/model/heap.c and finish.c).
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

struct hp_heap_build {
	hp_heap *h;

	/* capacities of the heap's tables */
	size_t str_cap, arena_cap, text_cap, classes_cap, fields_cap, statics_cap, rows_cap;
	size_t frames_cap, traces_cap, trace_frames_cap, threads_cap, roots_cap, obj_cap, warnings_cap;

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

	/* the memory limit: what the records need, counted whether stored or not
	 * (objects: n_instances, n_objarrays, n_primarrays and class_dumps) */
	int over_limit;               /* the limit refused an allocation: only counting */
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

#endif
