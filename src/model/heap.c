/* heap.c — the model's life (made empty, freed), what it holds that is
 * not read from records (warnings, added strings and text), and the names
 * of its size models (heap.h); the sink that fills it is build.c, the
 * names of Java types names.c, its completion finish.c. */
#include "model/heap.h"
#include "model/build.h"
#include "base/alloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hp_heap_opts_init(struct hp_heap_opts *o)
{
	memset(o, 0, sizeof *o);
	o->dump_index = 0;
}

hp_heap *hp_heap_new(const struct hp_heap_opts *o)
{
	hp_heap *h = hp_calloc(1, sizeof *h);
	if (!h)
		return NULL;
	struct hp_heap_build *b = hp_calloc(1, sizeof *b);
	/* the text arena starts with the empty string: offset 0 is "" */
	h->text = hp_malloc(256);
	if (!b || !h->text) {
		hp_free(b);
		hp_free(h->text);
		hp_free(h);
		return NULL;
	}
	h->text[0] = '\0';
	h->text_len = 1;
	b->text_cap = 256;
	b->h = h;
	h->build = b;
	if (o)
		h->opts = *o;
	else
		hp_heap_opts_init(&h->opts);
	hp_idmap_init(&h->str_map);
	hp_idmap_init(&h->class_map);
	hp_idmap_init(&h->serial_map);
	hp_idmap_init(&h->frame_map);
	hp_idmap_init(&h->trace_map);
	hp_idmap_init(&h->thread_map);
	for (size_t i = 0; i < sizeof h->prim_class / sizeof h->prim_class[0]; i++)
		h->prim_class[i] = HP_NONE;
	h->jlc = h->jlo = HP_NONE;
	for (size_t i = 0; i < 64; i++)
		b->ccache_idx[i] = HP_NONE;
	return h;
}

void hp_heap_free(hp_heap *h)
{
	if (!h)
		return;
	if (h->mapped) {
		hp_free(h);
		return;
	}
	hp_idmap_release(&h->str_map);
	hp_idmap_release(&h->class_map);
	hp_idmap_release(&h->serial_map);
	hp_idmap_release(&h->frame_map);
	hp_idmap_release(&h->trace_map);
	hp_idmap_release(&h->thread_map);
	hp_free(h->str_off);
	hp_free(h->str_len);
	hp_free(h->arena);
	hp_build_free(h->build);
	hp_free_all(h->text, h->classes, h->fields, h->statics, h->rows, h->frames, h->traces,
		    h->trace_frames, h->alloc_recs, h->alloc_sites, h->summaries, h->cpu_recs,
		    h->cpu_samples, h->threads, h->roots, h->ids, h->ids32, h->cls, h->len, h->off_lo,
		    h->off_hi, h->bucket, h->file_order, h->warnings, h);
}

int hp_heap_add_warning(hp_heap *h, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (h->nwarnings >= 100 || !h->build)
		return HP_OK;        /* enough said (and a finished heap is not changed) */
	struct hp_heap_build *b = h->build;
	if (h->nwarnings >= b->warnings_cap) {
		uint64_t *w = hp_grow(h->warnings, &b->warnings_cap, h->nwarnings + 1, 8, sizeof *w);
		if (!w)
			return HP_ENOMEM;
		h->warnings = w;
	}
	HP_TRY(hp_build_text(b, buf, strlen(buf), &h->warnings[h->nwarnings]));
	h->nwarnings++;
	return HP_OK;
}

int hp_build_text(struct hp_heap_build *b, const char *s, size_t n, uint64_t *off)
{
	hp_heap *h = b->h;
	size_t at;
	if (hp_grow_text(&h->text, &h->text_len, &b->text_cap, 1, s, n, &at))
		return HP_ENOMEM;
	*off = at;
	return HP_OK;
}

void hp_build_free(struct hp_heap_build *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->lenmod_cap; i++)
		hp_free(b->lenmod[i]);
	hp_free(b->lenmod);
	hp_free(b->ccount);
	hp_idmap_release(&b->merged_heaps);
	hp_gaps_release(&b->gaps);
	hp_free_all(b->vm_inst, b->vm_mirror, b->prev_ids, b->seen, b);
}

int hp_heap_over_limit(const hp_heap *h)
{
	return h->build && h->build->over_limit;
}

size_t hp_heap_max_objects = HP_MAX_OBJECTS;

int hp_heap_too_many(const hp_heap *h)
{
	return h->build && h->build->too_many;
}

const char *hp_size_kind_name(int kind)
{
	switch (kind) {
	case HP_SIZE_MAT: return "mat";
	case HP_SIZE_AHAT: return "ahat";
	case HP_SIZE_RAW: return "raw";
	case HP_SIZE_VISUALVM: return "visualvm";
	case HP_SIZE_NETBEANS: return "netbeans";
	case HP_SIZE_VM: return "vm";
	default: return "auto";
	}
}

/* ---- strings added after the parse (diff's tags) ----------------------- */

const char *hp_heap_string(const hp_heap *h, uint64_t sid, uint32_t *len)
{
	uint32_t i = hp_idmap_get(&h->str_map, sid);
	if (i == HP_IDMAP_NONE) {
		if (len)
			*len = 0;
		return NULL;
	}
	if (len)
		*len = h->str_len[i];
	return h->arena + h->str_off[i];
}

int hp_heap_string_is(const hp_heap *h, uint64_t sid, const char *name)
{
	uint32_t n;
	const char *s = hp_heap_string(h, sid, &n);
	return s && n == strlen(name) && !memcmp(s, name, n);
}

const struct hp_static *hp_class_static(const hp_heap *h, size_t k, const char *name, int type)
{
	const struct hp_class *c = &h->classes[k];
	for (uint32_t i = 0; i < c->n_statics; i++) {
		const struct hp_static *st = &h->statics[c->first_static + i];
		if (st->type == type && hp_heap_string_is(h, st->name_sid, name))
			return st;
	}
	return NULL;
}

int hp_heap_add_strings(hp_heap *h, const char *buf, size_t len, size_t n, uint64_t *sids)
{
	if (!n)
		return HP_OK;
	if (len > UINT32_MAX || h->nstr + n >= HP_IDMAP_NONE)
		return HP_ENOMEM;
	char *na = hp_realloc(h->arena, h->arena_len + len);
	if (!na)
		return HP_ENOMEM;
	h->arena = na;
	uint64_t *no = hp_reallocarray(h->str_off, h->nstr + n, sizeof *no);
	if (!no)
		return HP_ENOMEM;
	h->str_off = no;
	uint32_t *nl = hp_reallocarray(h->str_len, h->nstr + n, sizeof *nl);
	if (!nl)
		return HP_ENOMEM;
	h->str_len = nl;
	/* ids from 2^61 up, past any a 4-byte dump has and below the tags of
	 * analysis/diff.c (2^62) */
	uint64_t sid = 1ull << 61;
	size_t p = 0;
	for (size_t i = 0; i < n; i++) {
		while (hp_idmap_get(&h->str_map, sid) != HP_IDMAP_NONE)
			sid++;
		if (p >= len)
			return HP_EUSAGE;
		size_t l = strnlen(buf + p, len - p);
		if (p + l >= len)
			return HP_EUSAGE;
		if (hp_idmap_put(&h->str_map, sid, (uint32_t)h->nstr) < 0)
			return HP_ENOMEM;
		h->str_off[h->nstr] = h->arena_len;
		h->str_len[h->nstr] = (uint32_t)l;
		memcpy(h->arena + h->arena_len, buf + p, l + 1);
		h->arena_len += l + 1;
		h->nstr++;
		sids[i] = sid++;
		p += l + 1;
	}
	return HP_OK;
}

int hp_heap_add_text(hp_heap *h, const char *buf, size_t len, uint64_t *base)
{
	char *t = hp_realloc(h->text, h->text_len + len);
	if (!t)
		return HP_ENOMEM;
	h->text = t;
	memcpy(h->text + h->text_len, buf, len);
	*base = h->text_len;
	h->text_len += len;
	return HP_OK;
}
