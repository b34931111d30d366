/* mapping.c — R8/ProGuard mapping files and renaming a model (mapping.h). */
#include "model/mapping.h"
#include "base/alloc.h"
#include "base/hash.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

struct mclass {
	uint32_t obf, orig, source;   /* arena offsets; source 0: none */
	uint32_t obf_len, source_len;
	uint32_t simple, simple_len;  /* the outermost class's simple name in orig (Cache of a.Cache$Entry) */
	uint32_t nfields;
	uint8_t renamed;              /* orig is not obf */
};
struct mfield {
	uint32_t cls, obf, orig;      /* names[] */
	uint8_t type;                 /* HP_T_*; HP_T_OBJECT for any reference */
};
struct mmethod {
	uint32_t cls, obf, orig;      /* names[]; orig without the class of a qualified name */
	uint32_t qsimple, qsimple_len;   /* of com.foo.Other.run, Other (arena) */
	int32_t a, b, c, d;           /* obfuscated a..b, original c..d */
	uint8_t has_range, norig;     /* norig: original numbers given, 0..2 */
	uint8_t qualified;            /* com.foo.Other.run: moved from another class */
};
/* a member name: its text in the arena */
struct mname { uint32_t off, len; };
/* a method chain's lines by frame line: from start on, the first line of the
 * chain whose range holds it is pick (NONE: none) */
struct seg { uint32_t start, pick; };

/* open addressing: slot = entry + 1 (0 empty), beside the entry's hash */
struct table { uint32_t *slot; uint64_t *hash; size_t cap, n; };

struct hp_mapping {
	char *arena; size_t arena_len, arena_cap;
	struct mclass *classes; size_t nclasses, classes_cap;
	struct mfield *fields; size_t nfields, fields_cap;
	struct mmethod *methods; size_t nmethods, methods_cap;
	struct mname *names; size_t nnames, names_cap;
	struct table ntab;            /* names by text: each distinct name once */
	struct table ctab;            /* classes by obfuscated name (the first wins) */
	struct table ftab, mtab;      /* members by class and obfuscated name: a chain's head */
	uint32_t *fnext;              /* the next field of the chain: the first of each type only */
	uint32_t *mnext;              /* the next method of the chain, in file order */
	uint32_t *glast;              /* a method line's group's last line (itself when none) */
	uint32_t *mseg, *mnseg;       /* at a chain's head: its segs[] */
	struct seg *segs; size_t nsegs;
};

/* ---- small helpers --------------------------------------------------------- */

/* names: FNV-1a a byte at a time (base/hash.h), so that one pass gives the
 * hash of every prefix of a name, then mixed */
static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

static uint64_t hash_text(const char *s, size_t n)
{
	uint64_t x = HP_FNV1A_INIT;
	for (size_t i = 0; i < n; i++)
		x = hp_fnv1a_byte(x, (unsigned char)s[i]);
	return mix(x);
}

static uint64_t hash_pair(uint32_t a, uint32_t b)
{
	return mix(((uint64_t)a << 32 | b) * 0x9e3779b97f4a7c15ull + 1);
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return HP_OK;
	size_t nc = *cap ? *cap : 64;
	while (nc < need)
		nc *= 2;
	void *np = hp_reallocarray(*p, nc, size);
	if (!np)
		return HP_ENOMEM;
	*p = np;
	*cap = nc;
	return HP_OK;
}

/* room for one more entry, at most half the slots full (it may move the
 * entries: find a slot after it) */
static int t_room(struct table *t)
{
	if (2 * (t->n + 1) <= t->cap)
		return HP_OK;
	size_t nc = t->cap ? 2 * t->cap : 64;
	uint32_t *slot = hp_calloc(nc, sizeof *slot);
	uint64_t *hash = hp_reallocarray(NULL, nc, sizeof *hash);
	if (!slot || !hash) {
		hp_free(slot);
		hp_free(hash);
		return HP_ENOMEM;
	}
	for (size_t i = 0; i < t->cap; i++) {
		if (!t->slot[i])
			continue;
		size_t j = (size_t)t->hash[i] & (nc - 1);
		while (slot[j])
			j = (j + 1) & (nc - 1);
		slot[j] = t->slot[i];
		hash[j] = t->hash[i];
	}
	hp_free(t->slot);
	hp_free(t->hash);
	t->slot = slot;
	t->hash = hash;
	t->cap = nc;
	return HP_OK;
}

static void t_release(struct table *t)
{
	hp_free(t->slot);
	hp_free(t->hash);
}

/* is entry e the key? */
typedef int (*is_fn)(const struct hp_mapping *m, uint32_t e, const void *key);

/* the slot of the key: the entry's, else the empty one where it goes (the
 * table has slots: t_room() first) */
static size_t t_find(const struct table *t, uint64_t hv, const struct hp_mapping *m, is_fn is, const void *key)
{
	size_t mask = t->cap - 1;
	for (size_t i = (size_t)hv & mask;; i = (i + 1) & mask)
		if (!t->slot[i] || (t->hash[i] == hv && is(m, t->slot[i] - 1, key)))
			return i;
}

/* the entry of the key, or NONE */
static uint32_t t_get(const struct table *t, uint64_t hv, const struct hp_mapping *m, is_fn is, const void *key)
{
	if (!t->cap)
		return NONE;
	size_t i = t_find(t, hv, m, is, key);
	return t->slot[i] ? t->slot[i] - 1 : NONE;
}

static void t_put(struct table *t, size_t i, uint64_t hv, uint32_t e)
{
	t->slot[i] = e + 1;
	t->hash[i] = hv;
	t->n++;
}

struct text_key { const char *s; size_t n; };
struct member_key { uint32_t cls, name; };

static int class_is(const struct hp_mapping *m, uint32_t e, const void *key)
{
	const struct text_key *k = key;
	const struct mclass *c = &m->classes[e];
	return c->obf_len == k->n && !memcmp(m->arena + c->obf, k->s, k->n);
}

static int name_is(const struct hp_mapping *m, uint32_t e, const void *key)
{
	const struct text_key *k = key;
	return m->names[e].len == k->n && !memcmp(m->arena + m->names[e].off, k->s, k->n);
}

static int field_is(const struct hp_mapping *m, uint32_t e, const void *key)
{
	const struct member_key *k = key;
	return m->fields[e].cls == k->cls && m->fields[e].obf == k->name;
}

static int method_is(const struct hp_mapping *m, uint32_t e, const void *key)
{
	const struct member_key *k = key;
	return m->methods[e].cls == k->cls && m->methods[e].obf == k->name;
}

static int add_text(struct hp_mapping *m, const char *s, size_t n, uint32_t *off)
{
	if (m->arena_len + n + 1 > UINT32_MAX)
		return HP_ENOMEM;
	HP_TRY(grow((void **)&m->arena, &m->arena_cap, m->arena_len + n + 1, 1));
	memcpy(m->arena + m->arena_len, s, n);
	m->arena[m->arena_len + n] = '\0';
	*off = (uint32_t)m->arena_len;
	m->arena_len += n + 1;
	return HP_OK;
}

/* the number of member name s[0..n), added when new */
static int intern(struct hp_mapping *m, const char *s, size_t n, uint32_t *id)
{
	HP_TRY(t_room(&m->ntab));
	struct text_key k = { s, n };
	uint64_t hv = hash_text(s, n);
	size_t i = t_find(&m->ntab, hv, m, name_is, &k);
	if (m->ntab.slot[i]) {
		*id = m->ntab.slot[i] - 1;
		return HP_OK;
	}
	if (m->nnames >= NONE - 1)
		return HP_ENOMEM;
	HP_TRY(grow((void **)&m->names, &m->names_cap, m->nnames + 1, sizeof *m->names));
	struct mname *nm = &m->names[m->nnames];
	HP_TRY(add_text(m, s, n, &nm->off));
	nm->len = (uint32_t)n;
	*id = (uint32_t)m->nnames;
	t_put(&m->ntab, i, hv, (uint32_t)m->nnames++);
	return HP_OK;
}

/* the simple name of the outermost class of cn[0..cl) (at arena offset
 * base): after the last '.', up to the first '$' past its first byte */
static void outer_simple(const char *cn, size_t cl, uint32_t base, uint32_t *off, uint32_t *len)
{
	const char *dot = cl ? memrchr(cn, '.', cl) : NULL;
	const char *simple = dot ? dot + 1 : cn;
	size_t sl = cn + cl - simple;
	const char *dollar = sl ? memchr(simple, '$', sl) : NULL;
	if (dollar && dollar > simple)
		sl = dollar - simple;
	*off = base + (uint32_t)(simple - cn);
	*len = (uint32_t)sl;
}
static int is_space(char c) { return c == ' ' || c == '\t'; }

/* s[0..n) is a name: no white space or control character, valid UTF-8 */
static const char *bad_name(const char *s, size_t n)
{
	if (!n)
		return "an empty name";
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		if (c <= 0x20 || c == 0x7f)
			return "white space or a control character in a name";
		if (c < 0x80) {
			i++;
			continue;
		}
		size_t k = c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : 0;
		if (!k || k >= n - i)
			return "a name that is not valid UTF-8";
		for (size_t j = 1; j <= k; j++)
			if (((unsigned char)s[i + j] & 0xc0) != 0x80)
				return "a name that is not valid UTF-8";
		unsigned char c1 = (unsigned char)s[i + 1];
		/* no overlong form, surrogate or code point past U+10FFFF */
		if ((c == 0xe0 && c1 < 0xa0) || (c == 0xed && c1 >= 0xa0) || (c == 0xf0 && c1 < 0x90) ||
		    (c == 0xf4 && c1 >= 0x90))
			return "a name that is not valid UTF-8";
		i += k + 1;
	}
	return NULL;
}

/* a decimal number 0..2^31-1 at *p, which moves past it */
static int number(const char **p, const char *end, int32_t *out)
{
	const char *s = *p;
	int64_t v = 0;
	if (s >= end || *s < '0' || *s > '9')
		return -1;
	while (s < end && *s >= '0' && *s <= '9') {
		v = v * 10 + (*s - '0');
		if (v > INT32_MAX)
			return -1;
		s++;
	}
	*p = s;
	*out = (int32_t)v;
	return 0;
}

static uint8_t type_code(const char *s, size_t n)
{
	static const struct { const char *name; uint8_t t; } prims[] = {
		{ "boolean", HP_T_BOOLEAN }, { "char", HP_T_CHAR }, { "float", HP_T_FLOAT },
		{ "double", HP_T_DOUBLE }, { "byte", HP_T_BYTE }, { "short", HP_T_SHORT },
		{ "int", HP_T_INT }, { "long", HP_T_LONG },
	};
	for (size_t i = 0; i < sizeof prims / sizeof *prims; i++)
		if (strlen(prims[i].name) == n && !memcmp(prims[i].name, s, n))
			return prims[i].t;
	return HP_T_OBJECT;
}

/* ---- parsing --------------------------------------------------------------- */

/* a source file name longer than this is none (NAME_MAX) */
#define SOURCE_MAX 255

struct parse { struct hp_mapping *m; size_t line; struct hp_error *err; };

#define BAD(P, ...) hp_error_set((P)->err, HP_EFORMAT, __VA_ARGS__)

/* "# {"id":"sourceFile","fileName":"Foo.kt"}" after a class line */
static int comment(struct parse *P, const char *s, const char *end)
{
	struct hp_mapping *m = P->m;
	if (!m->nclasses || m->classes[m->nclasses - 1].source)
		return HP_OK;
	const char *id = memmem(s, end - s, "\"sourceFile\"", 12);
	const char *fn = memmem(s, end - s, "\"fileName\":\"", 12);
	if (!id || !fn)
		return HP_OK;
	fn += 12;
	const char *q = memchr(fn, '"', end - fn);
	if (!q || q == fn || q - fn > SOURCE_MAX || bad_name(fn, q - fn))
		return HP_OK;         /* a comment: not worth an error */
	struct mclass *c = &m->classes[m->nclasses - 1];
	c->source_len = (uint32_t)(q - fn);
	return add_text(m, fn, q - fn, &c->source);
}

/* "com.foo.Bar -> a.b:" */
static int class_line(struct parse *P, const char *s, const char *end)
{
	struct hp_mapping *m = P->m;
	const char *arrow = memmem(s, end - s, " -> ", 4);
	if (!arrow)
		return BAD(P, "expected 'ORIGINAL -> OBFUSCATED:' (a class) or an indented member");
	const char *o = arrow + 4;
	while (o < end && is_space(*o))
		o++;
	if (end == o || end[-1] != ':')
		return BAD(P, "a class line ends with ':'");
	const char *oe = end - 1;
	while (oe > o && is_space(oe[-1]))
		oe--;
	const char *ne = arrow;
	while (ne > s && is_space(ne[-1]))
		ne--;
	const char *why;
	if ((why = bad_name(s, ne - s)) || (why = bad_name(o, oe - o)))
		return BAD(P, "class line: %s", why);
	if (m->nclasses >= NONE - 1)
		return HP_ENOMEM;
	HP_TRY(grow((void **)&m->classes, &m->classes_cap, m->nclasses + 1, sizeof *m->classes));
	struct mclass *c = &m->classes[m->nclasses];
	memset(c, 0, sizeof *c);
	HP_TRY(add_text(m, s, ne - s, &c->orig));
	HP_TRY(add_text(m, o, oe - o, &c->obf));
	c->obf_len = (uint32_t)(oe - o);
	c->renamed = ne - s != oe - o || memcmp(s, o, oe - o);
	outer_simple(s, ne - s, c->orig, &c->simple, &c->simple_len);
	m->nclasses++;
	return HP_OK;
}

/* "int count -> a", "1:3:void run(int):42:44 -> b" */
static int member_line(struct parse *P, const char *s, const char *end)
{
	struct hp_mapping *m = P->m;
	if (!m->nclasses)
		return BAD(P, "a member line before any class line");
	const char *arrow = memmem(s, end - s, " -> ", 4);
	if (!arrow)
		return BAD(P, "expected 'TYPE NAME -> OBFUSCATED' (a field) or 'TYPE NAME(ARGS) -> OBFUSCATED' (a method)");
	const char *o = arrow + 4, *oe = end;
	while (o < oe && is_space(*o))
		o++;
	const char *why = bad_name(o, oe - o);
	if (why)
		return BAD(P, "member line: %s after '->'", why);
	const char *p = s, *le = arrow;
	while (le > p && is_space(le[-1]))
		le--;
	int32_t a = 0, b = 0, c = 0, d = 0;
	int has_range = 0, norig = 0;
	if (p < le && *p >= '0' && *p <= '9') {
		if (number(&p, le, &a) || p >= le || *p++ != ':' || number(&p, le, &b) || p >= le || *p++ != ':')
			return BAD(P, "expected a line range 'START:END:' before the method");
		if (b < a)
			return BAD(P, "line range %d:%d ends before it starts", a, b);
		has_range = 1;
	}
	const char *sp = p;
	while (sp < le && !is_space(*sp))
		sp++;
	if (sp == p || sp >= le)
		return BAD(P, "expected a type and a name before '->'");
	const char *type = p;
	size_t type_len = sp - p;
	const char *name = sp + 1;
	while (name < le && is_space(*name))
		name++;
	const char *paren = memchr(name, '(', le - name);
	if (m->nfields + m->nmethods >= NONE - 1)
		return HP_ENOMEM;
	if (!paren) {
		if (has_range)
			return BAD(P, "a line range before a field (a method has '(')");
		if ((why = bad_name(type, type_len)) || (why = bad_name(name, le - name)))
			return BAD(P, "field line: %s", why);
		HP_TRY(grow((void **)&m->fields, &m->fields_cap, m->nfields + 1, sizeof *m->fields));
		struct mfield *f = &m->fields[m->nfields];
		f->cls = (uint32_t)m->nclasses - 1;
		f->type = type_code(type, type_len);
		/* a field R8 moved from another class: com.foo.Other.count */
		const char *simple = name;
		for (const char *q = name; q < le; q++)
			if (*q == '.' && q + 1 < le)
				simple = q + 1;
		HP_TRY(intern(m, simple, le - simple, &f->orig));
		HP_TRY(intern(m, o, oe - o, &f->obf));
		m->nfields++;
		m->classes[m->nclasses - 1].nfields++;
		return HP_OK;
	}
	const char *close = memchr(paren, ')', le - paren);
	if (!close)
		return BAD(P, "a method's '(' without ')'");
	if ((why = bad_name(type, type_len)) || (why = bad_name(name, paren - name)))
		return BAD(P, "method line: %s", why);
	for (const char *q = paren + 1; q < close; q++)
		if ((unsigned char)*q < 0x20 || is_space(*q))
			return BAD(P, "method line: white space or a control character in the arguments");
	p = close + 1;
	if (p < le) {
		if (*p++ != ':' || number(&p, le, &c))
			return BAD(P, "expected ':LINE' or ':START:END' after the method's ')'");
		norig = 1;
		if (p < le) {
			if (*p++ != ':' || number(&p, le, &d) || p != le)
				return BAD(P, "expected ':LINE' or ':START:END' after the method's ')'");
			if (d < c)
				return BAD(P, "original line range %d:%d ends before it starts", c, d);
			norig = 2;
		}
	}
	HP_TRY(grow((void **)&m->methods, &m->methods_cap, m->nmethods + 1, sizeof *m->methods));
	struct mmethod *mm = &m->methods[m->nmethods];
	memset(mm, 0, sizeof *mm);
	mm->cls = (uint32_t)m->nclasses - 1;
	mm->a = a, mm->b = b, mm->c = c, mm->d = d;
	mm->has_range = (uint8_t)has_range;
	mm->norig = (uint8_t)norig;
	/* com.foo.Other.run: code R8 moved from another class */
	const char *dot = memrchr(name, '.', paren - name);
	if (dot) {
		uint32_t q;
		HP_TRY(add_text(m, name, dot - name, &q));
		outer_simple(name, dot - name, q, &mm->qsimple, &mm->qsimple_len);
		mm->qualified = 1;
	}
	const char *simple = dot ? dot + 1 : name;
	HP_TRY(intern(m, simple, paren - simple, &mm->orig));
	HP_TRY(intern(m, o, oe - o, &mm->obf));
	m->nmethods++;
	return HP_OK;
}

static int one_line(struct parse *P, const char *s, size_t n)
{
	const char *end = s + n;
	if (memchr(s, '\0', n))
		return BAD(P, "a NUL byte");
	while (end > s && (end[-1] == '\r' || is_space(end[-1])))
		end--;
	const char *p = s;
	while (p < end && is_space(*p))
		p++;
	if (p == end)
		return HP_OK;
	if (*p == '#')
		return comment(P, p, end);
	if (p == s)
		return class_line(P, p, end);
	return member_line(P, p, end);
}

/* ---- the tables -------------------------------------------------------------- */

/* a line range [a, b1) of the chain's line idx */
struct ivl { uint32_t a, b1, idx; };

static int ivl_by_start(const void *x, const void *y)
{
	const struct ivl *p = x, *q = y;
	return (p->a > q->a) - (p->a < q->a);
}

static int u32_cmp(const void *x, const void *y)
{
	uint32_t p = *(const uint32_t *)x, q = *(const uint32_t *)y;
	return (p > q) - (p < q);
}

/* the min-heap of the ranges open at a point, by line number */
static void heap_push(uint32_t *hp, size_t *n, const struct ivl *iv, uint32_t x)
{
	size_t i = (*n)++;
	while (i && iv[hp[(i - 1) / 2]].idx > iv[x].idx) {
		hp[i] = hp[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	hp[i] = x;
}

static void heap_pop(uint32_t *hp, size_t *n, const struct ivl *iv)
{
	uint32_t x = hp[--*n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= *n)
			break;
		if (c + 1 < *n && iv[hp[c + 1]].idx < iv[hp[c]].idx)
			c++;
		if (iv[hp[c]].idx >= iv[x].idx)
			break;
		hp[i] = hp[c];
		i = c;
	}
	if (*n)
		hp[i] = x;
}

/* The segments of the chain with head h: sweeping the range ends in
 * order, the first line (in the file) of the ranges that hold each point.
 * iv, pts and hp have room for the chain's ranges (pts twice). */
static int chain_segments(struct hp_mapping *m, uint32_t h, struct ivl *iv, uint32_t *pts, uint32_t *hp, size_t *segs_cap)
{
	size_t k = 0, np = 0;
	for (uint32_t j = h; j != NONE; j = m->mnext[j]) {
		const struct mmethod *x = &m->methods[j];
		if (!x->has_range)
			continue;
		iv[k] = (struct ivl){ (uint32_t)x->a, (uint32_t)x->b + 1, j };
		pts[np++] = iv[k].a;
		pts[np++] = iv[k].b1;
		k++;
	}
	m->mseg[h] = (uint32_t)m->nsegs;
	m->mnseg[h] = 0;
	if (!k)
		return HP_OK;
	qsort(iv, k, sizeof *iv, ivl_by_start);
	qsort(pts, np, sizeof *pts, u32_cmp);
	size_t nh = 0, next = 0;
	uint32_t last = NONE;
	for (size_t i = 0; i < np; i++) {
		if (i && pts[i] == pts[i - 1])
			continue;
		uint32_t p = pts[i];
		while (next < k && iv[next].a <= p)
			heap_push(hp, &nh, iv, (uint32_t)next++);
		while (nh && iv[hp[0]].b1 <= p)
			heap_pop(hp, &nh, iv);
		uint32_t pick = nh ? iv[hp[0]].idx : NONE;
		if (m->mnseg[h] && pick == last)
			continue;
		HP_TRY(grow((void **)&m->segs, segs_cap, m->nsegs + 1, sizeof *m->segs));
		m->segs[m->nsegs++] = (struct seg){ p, pick };
		m->mnseg[h]++;
		last = pick;
	}
	return HP_OK;
}

/* classes by obfuscated name (the first wins); members by class and
 * obfuscated name, chained in file order (fields: the first of each type);
 * each method line's group; each method chain's segments */
static int index_all(struct hp_mapping *m)
{
	for (size_t i = 0; i < m->nclasses; i++) {
		const struct mclass *c = &m->classes[i];
		struct text_key k = { m->arena + c->obf, c->obf_len };
		uint64_t hv = hash_text(k.s, k.n);
		HP_TRY(t_room(&m->ctab));
		size_t j = t_find(&m->ctab, hv, m, class_is, &k);
		if (!m->ctab.slot[j])
			t_put(&m->ctab, j, hv, (uint32_t)i);
	}
	m->fnext = hp_reallocarray(NULL, m->nfields + 1, sizeof *m->fnext);
	if (!m->fnext)
		return HP_ENOMEM;
	for (size_t i = 0; i < m->nfields; i++) {
		const struct mfield *f = &m->fields[i];
		struct member_key k = { f->cls, f->obf };
		uint64_t hv = hash_pair(f->cls, f->obf);
		HP_TRY(t_room(&m->ftab));
		size_t j = t_find(&m->ftab, hv, m, field_is, &k);
		m->fnext[i] = NONE;
		if (!m->ftab.slot[j]) {
			t_put(&m->ftab, j, hv, (uint32_t)i);
			continue;
		}
		/* a later field of a type the chain has is never picked */
		uint32_t t = m->ftab.slot[j] - 1;
		for (;; t = m->fnext[t]) {
			if (m->fields[t].type == f->type)
				break;
			if (m->fnext[t] == NONE) {
				m->fnext[t] = (uint32_t)i;
				break;
			}
		}
	}
	size_t n = m->nmethods + 1;
	m->mnext = hp_reallocarray(NULL, n, sizeof *m->mnext);
	m->glast = hp_reallocarray(NULL, n, sizeof *m->glast);
	m->mseg = hp_reallocarray(NULL, n, sizeof *m->mseg);
	m->mnseg = hp_reallocarray(NULL, n, sizeof *m->mnseg);
	uint32_t *tail = hp_reallocarray(NULL, n, sizeof *tail);
	uint32_t *pts = hp_reallocarray(NULL, n, 2 * sizeof *pts);
	uint32_t *hp = hp_reallocarray(NULL, n, sizeof *hp);
	struct ivl *iv = hp_reallocarray(NULL, n, sizeof *iv);
	int rc = HP_ENOMEM;
	if (!m->mnext || !m->glast || !m->mseg || !m->mnseg || !tail || !pts || !hp || !iv)
		goto out;
	for (size_t i = 0; i < m->nmethods; i++) {
		const struct mmethod *x = &m->methods[i];
		struct member_key k = { x->cls, x->obf };
		uint64_t hv = hash_pair(x->cls, x->obf);
		if ((rc = t_room(&m->mtab)))
			goto out;
		size_t j = t_find(&m->mtab, hv, m, method_is, &k);
		m->mnext[i] = NONE;
		m->mnseg[i] = 0;
		if (!m->mtab.slot[j]) {
			t_put(&m->mtab, j, hv, (uint32_t)i);
			tail[i] = (uint32_t)i;
		} else {
			uint32_t head = m->mtab.slot[j] - 1;
			m->mnext[tail[head]] = (uint32_t)i;
			tail[head] = (uint32_t)i;
		}
	}
	/* a group: lines one after the other with the same class, name and
	 * range (code inlined into the last) */
	for (size_t i = m->nmethods; i-- > 0;) {
		const struct mmethod *x = &m->methods[i], *y = x + 1;
		m->glast[i] = (uint32_t)i;
		if (x->has_range && i + 1 < m->nmethods && y->has_range && y->cls == x->cls && y->obf == x->obf &&
		    y->a == x->a && y->b == x->b)
			m->glast[i] = m->glast[i + 1];
	}
	size_t segs_cap = 0;
	rc = HP_OK;
	for (size_t i = 0; i < m->mtab.cap && !rc; i++)
		if (m->mtab.slot[i])
			rc = chain_segments(m, m->mtab.slot[i] - 1, iv, pts, hp, &segs_cap);
out:
	hp_free_all(tail, pts, hp, iv);
	return rc;
}
static int mapping_new(hp_mapping **out)
{
	hp_mapping *m = hp_calloc(1, sizeof *m);
	if (!m)
		return HP_ENOMEM;
	/* offset 0 is "": no source file */
	if (add_text(m, "", 0, &(uint32_t){ 0 })) {
		hp_free(m);
		return HP_ENOMEM;
	}
	*out = m;
	return HP_OK;
}

static int finish(struct parse *P, hp_mapping **out)
{
	if (index_all(P->m)) {
		P->line = 0;
		hp_mapping_free(P->m);
		return hp_error_set(P->err, HP_ENOMEM, "out of memory");
	}
	*out = P->m;
	return HP_OK;
}

static int line_error(struct parse *P, int rc)
{
	if (rc == HP_ENOMEM) {
		hp_error_set(P->err, HP_ENOMEM, "out of memory");
		P->line = 0;
	}
	hp_mapping_free(P->m);
	return rc;
}

int hp_mapping_parse(hp_mapping **out, const char *buf, size_t len, size_t *line, struct hp_error *err)
{
	*out = NULL;
	struct parse P = { NULL, 0, err };
	if (mapping_new(&P.m))
		return hp_error_set(err, HP_ENOMEM, "out of memory");
	for (size_t pos = 0; pos < len;) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (buf + pos)) : len - pos;
		P.line++;
		*line = P.line;
		int rc;
		if (n > HP_MAPPING_LINE_MAX)
			rc = BAD(&P, "a line longer than %d bytes", HP_MAPPING_LINE_MAX);
		else
			rc = one_line(&P, buf + pos, n);
		if (rc) {
			rc = line_error(&P, rc);
			*line = P.line;
			return rc;
		}
		pos += n + 1;
	}
	*line = 0;
	return finish(&P, out);
}

int hp_mapping_read(hp_mapping **out, const char *path, size_t *line, struct hp_error *err)
{
	*out = NULL;
	*line = 0;
	FILE *f = fopen(path, "rb");
	if (!f)
		return hp_error_set(err, HP_EIO, "%s", strerror(errno));
	struct parse P = { NULL, 0, err };
	/* lines are cut out of buf[start..end) (128 KiB), refilled when no
	 * whole line is left (moving the part line to the front: at most one
	 * line per 64 KiB read); a line never takes more than the limit */
	size_t cap = 2 * (size_t)HP_MAPPING_LINE_MAX + 2;
	char *buf = hp_malloc(cap);
	int rc = HP_OK;
	if (!buf || mapping_new(&P.m)) {
		hp_free(buf);
		fclose(f);
		return hp_error_set(err, HP_ENOMEM, "out of memory");
	}
	size_t start = 0, end = 0;
	int eof = 0;
	while (!rc) {
		char *nl = memchr(buf + start, '\n', end - start);
		if (!nl && !eof && end - start <= HP_MAPPING_LINE_MAX) {
			memmove(buf, buf + start, end - start);
			end -= start;
			start = 0;
			size_t got = fread(buf + end, 1, cap - end, f);
			if (got == 0) {
				if (ferror(f)) {
					rc = hp_error_set(err, HP_EIO, "read error: %s", strerror(errno));
					P.line = 0;
					break;
				}
				eof = 1;
			}
			end += got;
			continue;
		}
		if (!nl && start == end)
			break;
		size_t n = nl ? (size_t)(nl - (buf + start)) : end - start;
		P.line++;
		if (n > HP_MAPPING_LINE_MAX) {
			rc = BAD(&P, "a line longer than %d bytes", HP_MAPPING_LINE_MAX);
			break;
		}
		rc = one_line(&P, buf + start, n);
		start += nl ? n + 1 : n;
	}
	hp_free(buf);
	fclose(f);
	if (rc) {
		rc = line_error(&P, rc);
		*line = P.line;
		return rc;
	}
	return finish(&P, out);
}

void hp_mapping_free(hp_mapping *m)
{
	if (!m)
		return;
	hp_free_all(m->arena, m->classes, m->fields, m->methods, m->names, m->fnext, m->mnext,
		    m->glast, m->mseg, m->mnseg, m->segs);
	t_release(&m->ntab);
	t_release(&m->ctab);
	t_release(&m->ftab);
	t_release(&m->mtab);
	hp_free(m);
}

void hp_mapping_counts(const hp_mapping *m, uint64_t *classes, uint64_t *fields, uint64_t *methods)
{
	*classes = m->nclasses;
	*fields = m->nfields;
	*methods = m->nmethods;
}

/* ---- lookups --------------------------------------------------------------- */
/* ---- lookups --------------------------------------------------------------- */

static uint32_t class_at(const hp_mapping *m, uint64_t hv, const char *s, size_t n)
{
	struct text_key k = { s, n };
	return t_get(&m->ctab, hv, m, class_is, &k);
}

/* the member name s[0..n) (NONE: no member has it) */
static uint32_t name_of(const hp_mapping *m, const char *s, size_t n)
{
	struct text_key k = { s, n };
	return t_get(&m->ntab, hash_text(s, n), m, name_is, &k);
}

static uint32_t first_field(const hp_mapping *m, uint32_t cls, uint32_t name)
{
	struct member_key k = { cls, name };
	return t_get(&m->ftab, hash_pair(cls, name), m, field_is, &k);
}

static uint32_t first_method(const hp_mapping *m, uint32_t cls, uint32_t name)
{
	struct member_key k = { cls, name };
	return t_get(&m->mtab, hash_pair(cls, name), m, method_is, &k);
}

/* ---- applying ---------------------------------------------------------------- */

/* new names, collected before the heap grows once */
struct names {
	char *buf; size_t len, cap, n;
	struct table dedup;           /* slot = string number + 1 */
	uint32_t *off; size_t off_cap;   /* start of string i in buf */
	uint32_t *len_of; size_t len_cap;   /* its length */
};

/* the number of string s[0..n) in N, added when new */
static int name_add(struct names *N, const char *s, size_t n, uint32_t *idx)
{
	n = strnlen(s, n);            /* a dump's signature may hold a NUL: cut there */
	HP_TRY(t_room(&N->dedup));
	uint64_t hv = hash_text(s, n);
	size_t mask = N->dedup.cap - 1, k = (size_t)hv & mask;
	for (; N->dedup.slot[k]; k = (k + 1) & mask) {
		uint32_t e = N->dedup.slot[k] - 1;
		if (N->dedup.hash[k] == hv && N->len_of[e] == n && !memcmp(N->buf + N->off[e], s, n)) {
			*idx = e;
			return HP_OK;
		}
	}
	if (N->len > UINT32_MAX - n - 1 || N->n >= NONE - 1)
		return HP_ENOMEM;
	HP_TRY(grow((void **)&N->buf, &N->cap, N->len + n + 1, 1));
	HP_TRY(grow((void **)&N->off, &N->off_cap, N->n + 1, sizeof *N->off));
	HP_TRY(grow((void **)&N->len_of, &N->len_cap, N->n + 1, sizeof *N->len_of));
	memcpy(N->buf + N->len, s, n);
	N->buf[N->len + n] = '\0';
	N->off[N->n] = (uint32_t)N->len;
	N->len_of[N->n] = (uint32_t)n;
	N->len += n + 1;
	t_put(&N->dedup, k, hv, (uint32_t)N->n);
	*idx = (uint32_t)N->n++;
	return HP_OK;
}

static void names_release(struct names *N)
{
	hp_free(N->buf);
	hp_free(N->off);
	hp_free(N->len_of);
	t_release(&N->dedup);
}

/* a growable byte string */
struct sbuf { char *p; size_t len, cap; };

static int sb_put(struct sbuf *b, const char *s, size_t n)
{
	HP_TRY(grow((void **)&b->p, &b->cap, b->len + n + 1, 1));
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
	return HP_OK;
}

/* what a dump's string gave, by string id: the work on a string is done
 * once however many frames or fields share it */
struct memo_slot { uint64_t key; uint32_t val, used; };
struct memo { struct memo_slot *s; size_t cap, n; };

/* the slot of key: its value when used, else to fill (used = 1, n + 1)
 * before the next call */
static int memo_at(struct memo *M, uint64_t key, struct memo_slot **out)
{
	if (2 * (M->n + 1) > M->cap) {
		size_t nc = M->cap ? 2 * M->cap : 256;
		struct memo_slot *s = hp_calloc(nc, sizeof *s);
		if (!s)
			return HP_ENOMEM;
		for (size_t i = 0; i < M->cap; i++) {
			if (!M->s[i].used)
				continue;
			size_t j = (size_t)mix(M->s[i].key) & (nc - 1);
			while (s[j].used)
				j = (j + 1) & (nc - 1);
			s[j] = M->s[i];
		}
		hp_free(M->s);
		M->s = s;
		M->cap = nc;
	}
	size_t mask = M->cap - 1, i = (size_t)mix(key) & mask;
	while (M->s[i].used && M->s[i].key != key)
		i = (i + 1) & mask;
	M->s[i].key = key;
	*out = &M->s[i];
	return HP_OK;
}

static void memo_fill(struct memo *M, struct memo_slot *s, uint32_t val)
{
	s->val = val;
	s->used = 1;
	M->n++;
}

/* the prefixes of a class name that end before a '$', with their hashes */
struct cut { size_t at; uint64_t hash; };
struct cuts { struct cut *c; size_t cap; };

/* The original of class name s[0..n) (no array suffix) into b; 0 when the
 * map does not name it (b untouched); *exact gets the class's entry when
 * the map lists it itself, NONE when through its outer class (the longest
 * prefix before a '$' the map lists).  One pass over the name. */
static int class_orig(const hp_mapping *m, const char *s, size_t n, struct sbuf *b, uint32_t *exact, struct cuts *C,
		      int *rc)
{
	*exact = NONE;
	if (!m->nclasses)
		return 0;
	size_t k = 0;
	uint64_t x = HP_FNV1A_INIT;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '$' && i) {
			if ((*rc = grow((void **)&C->c, &C->cap, k + 1, sizeof *C->c)))
				return 0;
			C->c[k++] = (struct cut){ i, mix(x) };
		}
		x = hp_fnv1a_byte(x, (unsigned char)s[i]);
	}
	uint32_t c = class_at(m, mix(x), s, n);
	if (c != NONE) {
		*exact = c;
		*rc = sb_put(b, m->arena + m->classes[c].orig, strlen(m->arena + m->classes[c].orig));
		return 1;
	}
	while (k--) {
		size_t i = C->c[k].at;
		c = class_at(m, C->c[k].hash, s, i);
		if (c == NONE)
			continue;
		const char *o = m->arena + m->classes[c].orig;
		*rc = sb_put(b, o, strlen(o));
		if (!*rc)
			*rc = sb_put(b, s + i, n - i);
		return 1;
	}
	return 0;
}

/* a JVM signature with the class names in L...; mapped into out; 0 when
 * unchanged */
static int map_signature(const hp_mapping *m, const char *s, size_t n, struct sbuf *out, struct sbuf *cn,
			 struct sbuf *on, struct cuts *C, int *rc)
{
	int changed = 0;
	*rc = HP_OK;
	out->len = 0;
	for (size_t i = 0; i < n && !*rc;) {
		if (s[i] != 'L') {
			*rc = sb_put(out, s + i, 1);
			i++;
			continue;
		}
		const char *semi = memchr(s + i, ';', n - i);
		if (!semi) {
			*rc = sb_put(out, s + i, n - i);
			break;
		}
		size_t k = semi - (s + i + 1);
		cn->len = 0;
		if ((*rc = sb_put(cn, s + i + 1, k)))
			break;
		for (size_t j = 0; j < cn->len; j++)
			if (cn->p[j] == '/')
				cn->p[j] = '.';
		uint32_t ex;
		on->len = 0;
		if (class_orig(m, cn->p, cn->len, on, &ex, C, rc) && !*rc &&
		    (on->len != cn->len || memcmp(on->p, cn->p, cn->len))) {
			for (size_t j = 0; j < on->len; j++)
				if (on->p[j] == '.')
					on->p[j] = '/';
			*rc = sb_put(out, "L", 1);
			if (!*rc)
				*rc = sb_put(out, on->p, on->len);
			if (!*rc)
				*rc = sb_put(out, ";", 1);
			changed = 1;
		} else if (!*rc) {
			*rc = sb_put(out, s + i, k + 2);
		}
		i += k + 2;
	}
	return changed && !*rc;
}

/* the method a frame at line (<= 0: none) is, of the chain with head h:
 * the first whose range holds the line, else the head; of inlined code,
 * the method it was inlined into (the last line of the group) */
static uint32_t pick_method(const hp_mapping *m, uint32_t h, int32_t line)
{
	uint32_t pick = h;
	if (line > 0 && m->mnseg[h]) {
		const struct seg *s = m->segs + m->mseg[h];
		size_t lo = 0, hi = m->mnseg[h];
		while (lo < hi) {          /* the last segment starting at or before line */
			size_t mid = lo + (hi - lo) / 2;
			if (s[mid].start <= (uint32_t)line)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo && s[lo - 1].pick != NONE)
			pick = s[lo - 1].pick;
	}
	return m->glast[pick];
}

static int32_t map_line(const struct mmethod *x, int32_t line)
{
	if (line <= 0 || !x->has_range || line < x->a || line > x->b || !x->norig)
		return line;
	if (x->norig == 2 && x->d - x->c == x->b - x->a)
		return x->c + (line - x->a);
	return x->c;
}

enum { NEW_NONE = UINT32_MAX };

/* what hp_mapping_apply() works with */
struct apply {
	const hp_mapping *m;
	hp_heap *h;
	struct names N;
	struct memo name_memo;        /* string id -> member name (NONE) */
	struct memo sig_memo;         /* signature string id -> new name (NEW_NONE: unchanged) */
	uint32_t *name_new;           /* member name -> new name, NEW_NONE until asked */
	struct sbuf sb, sig, cn, on;
	struct cuts cuts;
};

/* the member name a dump's string is (NONE: none) */
static int dump_name(struct apply *A, uint64_t sid, uint32_t *id)
{
	struct memo_slot *s;
	HP_TRY(memo_at(&A->name_memo, sid, &s));
	if (!s->used) {
		uint32_t len;
		const char *str = hp_heap_string(A->h, sid, &len);
		memo_fill(&A->name_memo, s, str ? name_of(A->m, str, len) : NONE);
	}
	*id = s->val;
	return HP_OK;
}

/* member name id as a new name */
static int new_name(struct apply *A, uint32_t id, uint32_t *idx)
{
	if (A->name_new[id] == NEW_NONE) {
		const struct mname *nm = &A->m->names[id];
		HP_TRY(name_add(&A->N, A->m->arena + nm->off, nm->len, &A->name_new[id]));
	}
	*idx = A->name_new[id];
	return HP_OK;
}

/* the mapped signature string sid (NEW_NONE: unchanged) */
static int new_signature(struct apply *A, uint64_t sid, uint32_t *idx)
{
	struct memo_slot *s;
	HP_TRY(memo_at(&A->sig_memo, sid, &s));
	if (!s->used) {
		uint32_t len, v = NEW_NONE;
		int rc = HP_OK;
		const char *sg = hp_heap_string(A->h, sid, &len);
		if (sg && map_signature(A->m, sg, len, &A->sig, &A->cn, &A->on, &A->cuts, &rc))
			rc = name_add(&A->N, A->sig.p, A->sig.len, &v);
		if (rc)
			return rc;
		memo_fill(&A->sig_memo, s, v);
	}
	*idx = s->val;
	return HP_OK;
}

int hp_mapping_apply(const hp_mapping *m, hp_heap *h, struct hp_mapping_stats *st, struct hp_error *err)
{
	memset(st, 0, sizeof *st);
	int rc = HP_OK;
	struct apply A = { .m = m, .h = h };
	struct sbuf text = { 0 }, *sb = &A.sb;
	size_t nf = h->nfields + h->nstatics;
	uint32_t *exact = hp_reallocarray(NULL, h->nclasses + 1, sizeof *exact);
	uint64_t *ctext = hp_reallocarray(NULL, h->nclasses + 1, sizeof *ctext);
	uint32_t *fname = hp_reallocarray(NULL, nf + 1, sizeof *fname);
	uint32_t *frname = hp_reallocarray(NULL, 3 * h->nframes + 1, sizeof *frname);
	int32_t *frline = hp_reallocarray(NULL, h->nframes + 1, sizeof *frline);
	A.name_new = hp_reallocarray(NULL, m->nnames + 1, sizeof *A.name_new);
	uint64_t *sids = NULL;
	if (!exact || !ctext || !fname || !frname || !frline || !A.name_new) {
		rc = HP_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < m->nnames; i++)
		A.name_new[i] = NEW_NONE;

	/* classes: the element class of an array, then the dimensions again */
	for (size_t k = 0; k < h->nclasses && !rc; k++) {
		const char *nm = hp_class_name(h, k);
		size_t n = strlen(nm), base = n;
		while (base >= 2 && nm[base - 1] == ']' && nm[base - 2] == '[')
			base -= 2;
		ctext[k] = UINT64_MAX;
		sb->len = 0;
		if (!class_orig(m, nm, base, sb, &exact[k], &A.cuts, &rc) || rc)
			continue;
		if (base != n)
			exact[k] = NONE;      /* an array class: no fields or frames of its own */
		if ((rc = sb_put(sb, nm + base, n - base)))
			break;
		if (sb->len == n && !memcmp(sb->p, nm, n))
			continue;
		ctext[k] = text.len;
		if ((rc = sb_put(&text, sb->p, sb->len + 1)))
			break;
		st->classes++;
	}
	if (rc)
		goto out;

	/* fields, instance and static, of the classes the map lists */
	for (size_t i = 0; i < nf; i++)
		fname[i] = NEW_NONE;
	for (size_t k = 0; k < h->nclasses && !rc; k++) {
		uint32_t c = exact[k];
		if (c == NONE || !m->classes[c].nfields)
			continue;
		const struct hp_class *C = &h->classes[k];
		for (uint32_t i = 0; i < C->n_fields + C->n_statics && !rc; i++) {
			int is_static = i >= C->n_fields;
			size_t fi = is_static ? C->first_static + (i - C->n_fields) : C->first_field + i;
			if (fi >= (is_static ? h->nstatics : h->nfields))
				continue;
			uint64_t sid = is_static ? h->statics[fi].name_sid : h->fields[fi].name_sid;
			uint8_t type = is_static ? h->statics[fi].type : h->fields[fi].type;
			uint32_t id, pick = NONE;
			if ((rc = dump_name(&A, sid, &id)) || id == NONE)
				continue;
			for (uint32_t j = first_field(m, c, id); j != NONE; j = m->fnext[j]) {
				if (pick == NONE)
					pick = j;
				if (m->fields[j].type == type) {
					pick = j;
					break;
				}
			}
			/* names are interned: the same number is the same text */
			if (pick == NONE || m->fields[pick].orig == id)
				continue;
			rc = new_name(&A, m->fields[pick].orig, &fname[(is_static ? h->nfields : 0) + fi]);
			st->fields++;
		}
	}
	if (rc)
		goto out;

	/* stack frames: method, source file, signature, line */
	for (size_t i = 0; i < 3 * h->nframes; i++)
		frname[i] = NEW_NONE;
	for (size_t i = 0; i < h->nframes && !rc; i++) {
		struct hp_frame *f = &h->frames[i];
		int changed = 0;
		frline[i] = f->line;
		/* the class names in the signature, whatever the frame's class */
		if ((rc = new_signature(&A, f->signature_sid, &frname[3 * i + 2])))
			break;
		changed = frname[3 * i + 2] != NEW_NONE;
		uint32_t k = hp_idmap_get(&h->serial_map, f->class_serial);
		if (k == HP_IDMAP_NONE || k >= h->nclasses || exact[k] == NONE) {
			st->frames += changed;
			continue;
		}
		uint32_t c = exact[k];
		const struct mclass *mc = &m->classes[c];
		const struct mmethod *x = NULL;   /* the method */
		uint32_t id, head;
		if ((rc = dump_name(&A, f->method_sid, &id)))
			break;
		if (id != NONE && (head = first_method(m, c, id)) != NONE) {
			x = &m->methods[pick_method(m, head, f->line)];
			if (x->orig != id) {
				if ((rc = new_name(&A, x->orig, &frname[3 * i])))
					break;
				changed = 1;
			}
			int32_t l = map_line(x, f->line);
			if (l != f->line) {
				frline[i] = l;
				changed = 1;
			}
		}
		/* the source file: R8's comment, else, when the class was renamed
		 * or the dump's file is the "SourceFile" R8 and ProGuard put in
		 * its place, the outermost class's name with the dump's file's
		 * extension (none made past SOURCE_MAX bytes) */
		uint32_t len;
		const char *src = hp_heap_string(h, f->source_sid, &len);
		int qual = x && x->qualified;
		sb->len = 0;
		if (mc->source && !qual) {
			rc = sb_put(sb, m->arena + mc->source, mc->source_len);
		} else if (src && len <= SOURCE_MAX &&
			   (qual || mc->renamed || (len == 10 && !memcmp(src, "SourceFile", 10)))) {
			const char *simple = m->arena + (qual ? x->qsimple : mc->simple);
			size_t sl = qual ? x->qsimple_len : mc->simple_len;
			const char *ext = len ? memrchr(src, '.', len) : NULL;
			size_t el = ext ? (size_t)(src + len - ext) : 5;
			if (sl + el <= SOURCE_MAX) {
				rc = sb_put(sb, simple, sl);
				if (!rc)
					rc = sb_put(sb, ext ? ext : ".java", el);
			}
		}
		if (rc)
			break;
		if (sb->len && (!src || sb->len != len || memcmp(sb->p, src, len))) {
			if ((rc = name_add(&A.N, sb->p, sb->len, &frname[3 * i + 1])))
				break;
			changed = 1;
		}
		st->frames += changed;
	}
	if (rc)
		goto out;

	/* the heap grows once for the strings and once for the class names */
	if (A.N.n) {
		sids = hp_reallocarray(NULL, A.N.n, sizeof *sids);
		if (!sids || (rc = hp_heap_add_strings(h, A.N.buf, A.N.len, A.N.n, sids))) {
			rc = HP_ENOMEM;
			goto out;
		}
	}
	uint64_t base = 0;
	if (text.len && (rc = hp_heap_add_text(h, text.p, text.len, &base)))
		goto out;
	for (size_t i = 0; i < h->nfields; i++)
		if (fname[i] != NEW_NONE)
			h->fields[i].name_sid = sids[fname[i]];
	for (size_t i = 0; i < h->nstatics; i++)
		if (fname[h->nfields + i] != NEW_NONE)
			h->statics[i].name_sid = sids[fname[h->nfields + i]];
	for (size_t i = 0; i < h->nframes; i++) {
		struct hp_frame *f = &h->frames[i];
		if (frname[3 * i] != NEW_NONE)
			f->method_sid = sids[frname[3 * i]];
		if (frname[3 * i + 1] != NEW_NONE)
			f->source_sid = sids[frname[3 * i + 1]];
		if (frname[3 * i + 2] != NEW_NONE)
			f->signature_sid = sids[frname[3 * i + 2]];
		f->line = frline[i];
	}
	for (size_t k = 0; k < h->nclasses && text.len; k++)
		if (ctext[k] != UINT64_MAX)
			h->classes[k].name = base + ctext[k];
out:
	if (rc)
		hp_error_set(err, rc, "out of memory applying the mapping");
	names_release(&A.N);
	hp_free_all(A.name_memo.s, A.sig_memo.s, A.name_new, A.sb.p, A.sig.p, A.cn.p, A.on.p,
		    A.cuts.c, text.p, exact, ctext, fname, frname, frline, sids);
	return rc;
}
