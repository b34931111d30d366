/*
 * idmap.h — open-addressing hash map from a 64-bit dump id to a 32-bit index.
 *
 * Used for the small tables (strings, classes, frames, threads); objects use
 * the sorted id array in heap.h.  Linear probing, power-of-two capacity, load
 * at most 1/2: 12 bytes per slot, 24–48 bytes per entry.  Id 0 is a valid key.
 */
#ifndef HP_IDMAP_H
#define HP_IDMAP_H
#include <stdint.h>
#include <stddef.h>

struct hp_idmap {
	uint64_t *keys;
	uint32_t *vals;           /* UINT32_MAX marks an empty slot */
	size_t cap, n;
};

#define HP_IDMAP_NONE UINT32_MAX

void hp_idmap_init(struct hp_idmap *m);
void hp_idmap_release(struct hp_idmap *m);
/* 0 on success, -1 when out of memory.  An existing key is overwritten. */
int hp_idmap_put(struct hp_idmap *m, uint64_t key, uint32_t val);
/* Inserts if absent; *val gets the stored value.  Returns 1 if inserted, 0 if present, -1 on OOM. */
int hp_idmap_insert(struct hp_idmap *m, uint64_t key, uint32_t *val);

static inline uint64_t hp_idmap_hash(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return k;
}

static inline uint32_t hp_idmap_get(const struct hp_idmap *m, uint64_t key)
{
	if (!m->cap)
		return HP_IDMAP_NONE;
	size_t mask = m->cap - 1, i = (size_t)hp_idmap_hash(key) & mask;
	for (;;) {
		uint32_t v = m->vals[i];
		if (v == HP_IDMAP_NONE)
			return HP_IDMAP_NONE;
		if (m->keys[i] == key)
			return v;
		i = (i + 1) & mask;
	}
}

#endif
