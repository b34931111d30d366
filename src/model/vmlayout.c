/* vmlayout.c — HotSpot's field layout rules (vmlayout.h). */
#include "model/vmlayout.h"
#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>

#define CONTENDED_PAD 128u      /* -XX:ContendedPaddingWidth's default */
#define INF 0x40000000u
#define LIMIT 0x10000000u       /* a layout ends there at most (a hostile chain of huge classes):
                                   a class adds < 1 MiB, so offsets stay below INF */
#define MAX_GAPS 32             /* gaps kept per class: the first ones (pathological chains only have more) */

static const char *const thread_tlr[] = {
	"threadLocalRandomSeed", "threadLocalRandomProbe", "threadLocalRandomSecondarySeed", NULL };
static const char *const fjp_ctl[] = { "ctl", NULL };
static const char *const fjp_wq[] = { "top", "source", "nsteals", NULL };
static const char *const sp_bs[] = { "demand", "waiting", NULL };

/* JDK 17: javaClasses.hpp ALL_INJECTED_FIELDS, and java.base's @Contended */
static const struct { const char *name; struct hp_vmlayout_extra x; } extras[] = {
	{ "java.lang.Class", { "JJIILLL", NULL, 0 } },
	{ "java.lang.ClassLoader", { "J", NULL, 0 } },
	{ "java.lang.invoke.ResolvedMethodName", { "LJ", NULL, 0 } },
	{ "java.lang.invoke.MemberName", { "J", NULL, 0 } },
	{ "java.lang.invoke.MethodHandleNatives$CallSiteContext", { "JJ", NULL, 0 } },
	{ "java.lang.StackFrameInfo", { "S", NULL, 0 } },
	{ "java.lang.Module", { "J", NULL, 0 } },
	{ "java.lang.InternalError", { "Z", NULL, 0 } },
	{ "java.lang.String", { "B", NULL, 0 } },
	{ "java.lang.Thread", { NULL, thread_tlr, 0 } },
	{ "java.util.concurrent.ForkJoinPool", { NULL, fjp_ctl, 0 } },
	{ "java.util.concurrent.ForkJoinPool$WorkQueue", { NULL, fjp_wq, 0 } },
	{ "java.util.concurrent.SubmissionPublisher$BufferedSubscription", { NULL, sp_bs, 1 } },
	{ "java.util.concurrent.ConcurrentHashMap$CounterCell", { NULL, NULL, 1 } },
	{ "java.util.concurrent.atomic.Striped64$Cell", { NULL, NULL, 1 } },
	{ "java.util.concurrent.Exchanger$Node", { NULL, NULL, 1 } },
};

const struct hp_vmlayout_extra *hp_vmlayout_extra_of(const hp_heap *h, size_t k)
{
	const char *n = hp_class_name(h, k);
	if (strncmp(n, "java.", 5))
		return NULL;
	for (size_t i = 0; i < sizeof extras / sizeof *extras; i++)
		if (!strcmp(n, extras[i].name))
			return &extras[i].x;
	return NULL;
}

/* ---- blocks: a layout being built (fieldLayoutBuilder.cpp's FieldLayout) */

enum { EMPTY = 0, FIELD = 1, RESERVED = 2 };
struct blk { uint32_t off, size; uint8_t kind; };
struct lay {
	struct blk *b;
	size_t n, cap;
	size_t nempty;            /* empty blocks, the last (endless) one included */
	int err;
};

static uint64_t up(uint64_t v, uint64_t a) { return a <= 1 ? v : (v + a - 1) / a * a; }

static void lay_insert_at(struct lay *L, size_t i, struct blk x)
{
	if (L->err)
		return;
	if (L->n >= L->cap) {
		struct blk *nb = hp_grow(L->b, &L->cap, L->n + 1, 32, sizeof *nb);
		if (!nb) {
			L->err = 1;
			return;
		}
		L->b = nb;
	}
	memmove(L->b + i + 1, L->b + i, (L->n - i) * sizeof *L->b);
	L->b[i] = x;
	L->n++;
	L->nempty += x.kind == EMPTY;
}

/* FieldLayout::insert(slot, block): block takes the front of empty slot i */
static void lay_take(struct lay *L, size_t i, uint32_t size, uint8_t kind)
{
	struct blk x = { L->b[i].off, size, kind };
	lay_insert_at(L, i, x);
	if (L->err)
		return;
	L->b[i + 1].off += size;
	L->b[i + 1].size -= size;
	if (L->b[i + 1].size == 0) {
		memmove(L->b + i + 1, L->b + i + 2, (L->n - i - 2) * sizeof *L->b);
		L->n--;
		L->nempty--;
	}
}

static int fits(const struct blk *s, uint32_t size, uint32_t align)
{
	uint32_t adj = s->off % align ? align - s->off % align : 0;
	return s->kind == EMPTY && s->size >= size + adj;
}

/* insert_field_block(): alignment padding, then the field; returns its offset */
static uint32_t lay_put(struct lay *L, size_t i, uint32_t size, uint32_t align)
{
	uint32_t adj = L->b[i].off % align ? align - L->b[i].off % align : 0;
	if (adj) {
		lay_take(L, i, adj, EMPTY);
		i++;
	}
	uint32_t off = L->b[i].off;
	lay_take(L, i, size, FIELD);
	return off;
}

/* FieldLayout::add(): each field (size = alignment) into the smallest empty
 * block after `first` that fits it (the nearest the end among equals), else
 * at the end; append_only: always at the end. */
static void lay_add(struct lay *L, const uint32_t *sizes, size_t n, int append_only)
{
	uint32_t last_size = 0;
	int last_ok = 0;
	for (size_t f = 0; f < n && !L->err; f++) {
		uint32_t s = sizes[f];
		size_t cand = L->n - 1;
		if (!append_only && !(s == last_size && !last_ok)) {
			last_size = s;
			last_ok = 1;
			size_t best = SIZE_MAX;
			/* (only the endless last block empty: nothing to search) */
			for (size_t c = L->nempty > 1 ? L->n - 1 : 0; c-- > 1;)
				if (fits(&L->b[c], s, s) && (best == SIZE_MAX || L->b[c].size < L->b[best].size))
					best = c;
			if (best == SIZE_MAX)
				last_ok = 0;
			else
				cand = best;
		}
		lay_put(L, cand, s, s);
	}
}

static void lay_pad_end(struct lay *L, uint32_t size)
{
	lay_take(L, L->n - 1, size, RESERVED);
}

static uint32_t lay_end(const struct lay *L) { return L->b[L->n - 1].off; }

/* ---- per class ----------------------------------------------------- */

struct cls_lay {
	uint32_t first, ngap;     /* the gaps between its fields (offset, size pairs in the arena) */
	uint32_t fend;            /* end of its last field (the header when none) */
	uint32_t end;             /* raw end of the layout (before rounding) */
	uint64_t level;           /* older rule: the level size */
	uint8_t state;            /* 0 to do, 1 on the stack, 2 done */
	uint8_t contended;        /* has_contended_annotations() */
	uint8_t has_fields;       /* the chain has instance fields */
};

struct ctx {
	const hp_heap *h;
	const struct hp_vmlayout_cfg *cfg;
	struct cls_lay *c;
	uint32_t *arena;          /* (offset, size) pairs: at most MAX_GAPS per class */
	size_t alen, acap;
	struct lay L;
	uint32_t *tmp;            /* sizes of fields to add */
	size_t tcap;
};

/* the extra of class k unless the configuration leaves it out */
static const struct hp_vmlayout_extra *extra(const struct ctx *x, size_t k)
{
	if (x->cfg->no_extras || (x->cfg->no_extra && x->cfg->no_extra[k]))
		return NULL;
	return hp_vmlayout_extra_of(x->h, k);
}

static unsigned type_bytes(const struct ctx *x, unsigned t)
{
	return t == HP_T_OBJECT ? x->cfg->ref : hp_type_size(t, x->h->I);
}

static unsigned code_bytes(const struct ctx *x, char t)
{
	switch (t) {
	case 'J': return x->cfg->word;    /* intptr (a long on 64-bit) */
	case 'I': return 4;
	case 'S': return 2;
	case 'B': case 'Z': return 1;
	default: return x->cfg->ref;
	}
}

static int is_contended(const hp_heap *h, const struct hp_vmlayout_extra *e, uint64_t sid)
{
	if (!e || !e->contended)
		return 0;
	uint32_t n;
	const char *s = hp_heap_string(h, sid, &n);
	if (!s)
		return 0;
	for (const char *const *p = e->contended; *p; p++)
		if (strlen(*p) == n && !memcmp(*p, s, n))
			return 1;
	return 0;
}

static int tmp_room(struct ctx *x, size_t n)
{
	if (n <= x->tcap)
		return 1;
	uint32_t *t = hp_reallocarray(x->tmp, n, sizeof *t);
	if (!t)
		return 0;
	x->tmp = t;
	x->tcap = n;
	return 1;
}

static int desc(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? 1 : x > y ? -1 : 0;
}

/* the own fields of class k in the order the VM adds them: group g 0 the
 * regular fields (primitives by size descending, then references), group 1
 * the @Contended ones; returns how many, with *nprim the primitives */
static size_t own_fields(struct ctx *x, size_t k, int group, size_t *nprim)
{
	const hp_heap *h = x->h;
	const struct hp_class *c = &h->classes[k];
	const struct hp_vmlayout_extra *e = extra(x, k);
	size_t ninj = e && e->injected ? strlen(e->injected) : 0;
	if (!tmp_room(x, (size_t)c->n_fields + ninj + 1))
		return SIZE_MAX;
	size_t n = 0, np;
	for (int pass = 0; pass < 2; pass++) {     /* 0 primitives, 1 references */
		for (uint32_t i = 0; c->dumped && i < c->n_fields; i++) {
			const struct hp_field *f = &h->fields[c->first_field + i];
			if ((f->type == HP_T_OBJECT) != pass || is_contended(h, e, f->name_sid) != group)
				continue;
			x->tmp[n++] = type_bytes(x, f->type);
		}
		for (size_t i = 0; group == 0 && i < ninj; i++)
			if ((e->injected[i] == 'L') == pass)
				x->tmp[n++] = code_bytes(x, e->injected[i]);
		if (pass == 0) {
			np = n;
			qsort(x->tmp, np, sizeof *x->tmp, desc);
		}
	}
	*nprim = np;
	return n;
}

static int arena_room(struct ctx *x, size_t n)
{
	if (x->alen + n <= x->acap)
		return 1;
	uint32_t *a = hp_grow(x->arena, &x->acap, x->alen + n, 1024, sizeof *a);
	if (!a)
		return 0;
	x->arena = a;
	return 1;
}

/* JDK 15+: class k's layout from its super s (HP_NONE: java.lang.Object) */
static int layout15(struct ctx *x, size_t k, uint32_t s)
{
	const struct hp_vmlayout_cfg *cfg = x->cfg;
	struct lay *L = &x->L;
	struct cls_lay *me = &x->c[k];
	const struct cls_lay *sup = s != HP_NONE ? &x->c[s] : NULL;
	const struct hp_vmlayout_extra *e = extra(x, k);
	L->n = L->nempty = 0;
	int append_only = 0;
	struct blk hdr = { 0, cfg->header, RESERVED };
	lay_insert_at(L, 0, hdr);
	uint32_t at = cfg->header;
	if (sup) {
		/* reconstruct_layout() and fill_holes(): the super's fields with
		 * the gaps between them, empty (reserved after a @Contended super) */
		for (uint32_t i = 0; i < sup->ngap; i++) {
			uint32_t off = x->arena[2 * (sup->first + i)], sz = x->arena[2 * (sup->first + i) + 1];
			if (off > at) {
				struct blk f = { at, off - at, FIELD };
				lay_insert_at(L, L->n, f);
			}
			struct blk hole = { off, sz, sup->contended ? RESERVED : EMPTY };
			lay_insert_at(L, L->n, hole);
			at = off + sz;
		}
		if (sup->fend > at) {
			struct blk f = { at, sup->fend - at, FIELD };
			lay_insert_at(L, L->n, f);
			at = sup->fend;
		}
		if (sup->contended) {
			struct blk pad = { at, CONTENDED_PAD, RESERVED };
			lay_insert_at(L, L->n, pad);
			at += CONTENDED_PAD;
		}
		append_only = sup->contended && sup->has_fields;
	}
	struct blk last = { at, INF, EMPTY };
	lay_insert_at(L, L->n, last);
	if (at >= LIMIT) {
		me->end = me->fend = LIMIT;
		me->ngap = 0;
		me->contended = 0;
		me->has_fields = 1;
		return L->err ? HP_ENOMEM : HP_OK;
	}

	size_t np, n = own_fields(x, k, 0, &np);
	if (n == SIZE_MAX)
		return HP_ENOMEM;
	int cls_contended = e && e->contended_class;
	if (cls_contended) {
		lay_pad_end(L, CONTENDED_PAD);
		append_only = 1;
	}
	lay_add(L, x->tmp, np, append_only);
	lay_add(L, x->tmp + np, n - np, append_only);
	size_t gp, gn = e && e->contended ? own_fields(x, k, 1, &gp) : 0;
	if (gn == SIZE_MAX)
		return HP_ENOMEM;
	if (gn) {
		lay_pad_end(L, CONTENDED_PAD);
		lay_add(L, x->tmp, gp, 1);
		lay_add(L, x->tmp + gp, gn - gp, 1);
	}
	if (gn || cls_contended)
		lay_pad_end(L, CONTENDED_PAD);
	if (L->err)
		return HP_ENOMEM;
	me->end = lay_end(L);
	me->contended = gn || cls_contended;
	me->has_fields = (sup && sup->has_fields) || n || gn;
	/* keep the end of the last field and the gaps before it */
	uint32_t fend = cfg->header;
	for (size_t i = 1; i < L->n; i++)
		if (L->b[i].kind == FIELD)
			fend = L->b[i].off + L->b[i].size;
	if (!arena_room(x, 2 * MAX_GAPS))
		return HP_ENOMEM;
	me->first = (uint32_t)(x->alen / 2);
	me->ngap = 0;
	me->fend = fend;
	for (size_t i = 1; i < L->n && L->b[i].off < fend && me->ngap < MAX_GAPS; i++) {
		if (L->b[i].kind == FIELD)
			continue;
		uint32_t *prev = me->ngap ? &x->arena[x->alen - 2] : NULL;
		if (prev && prev[0] + prev[1] == L->b[i].off) {
			prev[1] += L->b[i].size;      /* adjoining non-fields: one gap */
			continue;
		}
		x->arena[x->alen++] = L->b[i].off;
		x->arena[x->alen++] = L->b[i].size;
		me->ngap++;
	}
	return HP_OK;
}

static uint64_t inst_of(const struct ctx *x, const struct cls_lay *c)
{
	const struct hp_vmlayout_cfg *cfg = x->cfg;
	if (cfg->jdk15)
		return up(up(c->end, cfg->word), cfg->align);
	return up(c->level, cfg->align);
}

/* the statics of class k laid out after java.lang.Class's fields */
static int mirror_of(struct ctx *x, size_t k, uint64_t class_size, uint64_t *out)
{
	const hp_heap *h = x->h;
	const struct hp_class *c = &h->classes[k];
	const struct hp_vmlayout_cfg *cfg = x->cfg;
	if (!cfg->jdk15) {
		uint64_t st = (uint64_t)c->static_refs * cfg->ref + c->static_prim;
		*out = up(class_size + st, cfg->align);
		return HP_OK;
	}
	if (!tmp_room(x, (size_t)c->n_statics + 1))
		return HP_ENOMEM;
	/* HotSpot's dumper adds pseudo-statics that are not in the mirror
	 * (<resolved_references>, the constant pool's cache) */
	size_t n = 0, nref = 0;
	for (uint32_t i = 0; i < c->n_statics; i++) {
		const struct hp_static *s = &h->statics[c->first_static + i];
		uint32_t nl;
		const char *nm = hp_heap_string(h, s->name_sid, &nl);
		if (nm && nl > 0 && nm[0] == '<')
			continue;
		if (s->type == HP_T_OBJECT)
			nref++;
		else
			x->tmp[n++] = type_bytes(x, s->type);
	}
	qsort(x->tmp, n, sizeof *x->tmp, desc);
	struct lay *L = &x->L;
	L->n = L->nempty = 0;
	struct blk cls = { 0, (uint32_t)class_size, RESERVED };
	struct blk last = { (uint32_t)class_size, INF, EMPTY };
	lay_insert_at(L, 0, cls);
	lay_insert_at(L, 1, last);
	/* the references, then the primitives, each at the end: the static
	 * layout's start block is its last one (initialize_static_layout()
	 * inserts the Class part before it), so no hole is filled */
	for (size_t i = 0; i < nref; i++)
		lay_put(L, L->n - 1, cfg->ref, cfg->ref);
	lay_add(L, x->tmp, n, 1);
	if (L->err)
		return HP_ENOMEM;
	*out = up(up(lay_end(L), cfg->word), cfg->align);
	return HP_OK;
}

int hp_vmlayout_sizes(const hp_heap *h, const struct hp_vmlayout_cfg *cfg, uint64_t class_size,
		      uint64_t *inst, uint64_t *mirror)
{
	size_t n = h->nclasses;
	struct ctx x;
	memset(&x, 0, sizeof x);
	x.h = h;
	x.cfg = cfg;
	x.c = hp_calloc(n ? n : 1, sizeof *x.c);
	uint32_t *stack = hp_reallocarray(NULL, n ? n : 1, sizeof *stack);
	int rc = x.c && stack ? HP_OK : HP_ENOMEM;
	for (size_t i = 0; i < n && rc == HP_OK; i++) {
		if (x.c[i].state == 2)
			continue;
		size_t sp = 0;
		uint32_t k = (uint32_t)i;
		while (k != HP_NONE && x.c[k].state == 0) {
			x.c[k].state = 1;
			stack[sp++] = k;
			k = h->classes[k].super;
		}
		/* k: a done class, none, or a loop (state 1): the chain is cut there */
		while (sp > 0 && rc == HP_OK) {
			uint32_t j = stack[--sp];
			uint32_t s = h->classes[j].super;
			if (s != HP_NONE && x.c[s].state != 2)
				s = HP_NONE;
			if (cfg->opaque && cfg->opaque[j]) {
				uint32_t sz = cfg->opaque[j] < LIMIT ? (uint32_t)cfg->opaque[j] : LIMIT;
				x.c[j].fend = x.c[j].end = sz;
				x.c[j].level = sz;
				x.c[j].ngap = 0;
				x.c[j].contended = 0;
				x.c[j].has_fields = 1;
			} else if (cfg->jdk15) {
				rc = layout15(&x, j, s);
			} else {
				const struct hp_class *c = &h->classes[j];
				uint64_t own = (uint64_t)c->own_refs * cfg->ref + c->own_prim;
				if (s == HP_NONE)
					x.c[j].level = c->super_id ? up(cfg->header + own, cfg->ref) : cfg->header;
				else
					x.c[j].level = up(x.c[s].level + own, cfg->ref);
			}
			x.c[j].state = 2;
		}
	}
	for (size_t i = 0; i < n && rc == HP_OK; i++)
		inst[i] = inst_of(&x, &x.c[i]);
	if (rc == HP_OK && mirror) {
		if (!class_size)
			class_size = h->jlc != HP_NONE ? inst[h->jlc] : up(cfg->header, cfg->align);
		if (class_size > LIMIT)
			class_size = LIMIT;
		for (size_t i = 0; i < n && rc == HP_OK; i++)
			rc = mirror_of(&x, i, class_size, &mirror[i]);
	}
	hp_free_all(x.c, stack, x.arena, x.tmp, x.L.b);
	return rc;
}
