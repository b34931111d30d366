/* idmap.c — the open-addressing id -> index map (idmap.h): linear probing,
 * doubling at half full. */
#include "model/idmap.h"
#include "base/alloc.h"
#include <string.h>

void hp_idmap_init(struct hp_idmap *m)
{
	memset(m, 0, sizeof *m);
}

void hp_idmap_release(struct hp_idmap *m)
{
	hp_free(m->keys);
	hp_free(m->vals);
	memset(m, 0, sizeof *m);
}

static int rehash(struct hp_idmap *m, size_t ncap)
{
	uint64_t *nk = hp_reallocarray(NULL, ncap, sizeof *nk);
	uint32_t *nv = hp_reallocarray(NULL, ncap, sizeof *nv);
	if (!nk || !nv) {
		hp_free(nk);
		hp_free(nv);
		return -1;
	}
	memset(nv, 0xff, ncap * sizeof *nv);
	size_t mask = ncap - 1;
	for (size_t i = 0; i < m->cap; i++) {
		if (m->vals[i] == HP_IDMAP_NONE)
			continue;
		size_t j = (size_t)hp_idmap_hash(m->keys[i]) & mask;
		while (nv[j] != HP_IDMAP_NONE)
			j = (j + 1) & mask;
		nk[j] = m->keys[i];
		nv[j] = m->vals[i];
	}
	hp_free(m->keys);
	hp_free(m->vals);
	m->keys = nk;
	m->vals = nv;
	m->cap = ncap;
	return 0;
}

int hp_idmap_insert(struct hp_idmap *m, uint64_t key, uint32_t *val)
{
	if ((m->n + 1) * 2 > m->cap && rehash(m, m->cap ? m->cap * 2 : 64) != 0)
		return -1;
	size_t mask = m->cap - 1, i = (size_t)hp_idmap_hash(key) & mask;
	for (;;) {
		if (m->vals[i] == HP_IDMAP_NONE) {
			m->keys[i] = key;
			m->vals[i] = *val;
			m->n++;
			return 1;
		}
		if (m->keys[i] == key) {
			*val = m->vals[i];
			return 0;
		}
		i = (i + 1) & mask;
	}
}

int hp_idmap_put(struct hp_idmap *m, uint64_t key, uint32_t val)
{
	uint32_t v = val;
	int rc = hp_idmap_insert(m, key, &v);
	if (rc < 0)
		return -1;
	if (rc == 0) {
		size_t mask = m->cap - 1, i = (size_t)hp_idmap_hash(key) & mask;
		while (m->keys[i] != key || m->vals[i] == HP_IDMAP_NONE)
			i = (i + 1) & mask;
		m->vals[i] = val;
	}
	return 0;
}
