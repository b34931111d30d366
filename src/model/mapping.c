/* mapping.c — R8/ProGuard mapping files and renaming a model (mapping.h). */
#include "model/mapping.h"
#include "parser/alloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

struct mclass {
	uint32_t obf, orig, source;   /* arena offsets; source 0: none */
	uint32_t first_field, nfields, first_method, nmethods;
};
struct mfield {
	uint32_t cls, obf, orig;
	uint8_t type;                 /* HP_T_*; HP_T_OBJECT for any reference */
};
struct mmethod {
	uint32_t cls, obf, orig;      /* orig may be qualified: com.foo.Other.run */
	int32_t a, b, c, d;           /* obfuscated a..b, original c..d */
	uint8_t has_range, norig;     /* norig: original numbers given, 0..2 */
};

/* open addressing over (class, name) keys: slot = index + 1, 0 empty */
struct table { uint32_t *slot; size_t cap; };

struct hp_mapping {
	char *arena; size_t arena_len, arena_cap;
	struct mclass *classes; size_t nclasses, classes_cap;
	struct mfield *fields; size_t nfields, fields_cap;
	struct mmethod *methods; size_t nmethods, methods_cap;
	uint32_t *fnext, *mnext;      /* the next member of the class with the same obfuscated name */
	struct table ctab, ftab, mtab;
};

/* ---- small helpers --------------------------------------------------------- */

/* nm (NUL-terminated) is s[0..n), which may hold NULs (a dump's names) */
static int same(const char *nm, const char *s, size_t n)
{
	return strnlen(nm, n + 1) == n && memcmp(nm, s, n) == 0;
}

static uint64_t hash_bytes(uint64_t seed, const char *s, size_t n)
{
	uint64_t x = 1469598103934665603ull ^ seed;
	for (size_t i = 0; i < n; i++) {
		x ^= (unsigned char)s[i];
		x *= 1099511628211ull;
	}
	x ^= x >> 29;
	return x;
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

static int table_init(struct table *t, size_t n)
{
	size_t cap = 16;
	while (cap < 2 * n + 2)
		cap *= 2;
	t->slot = hp_calloc(cap, sizeof *t->slot);
	t->cap = t->slot ? cap : 0;
	return t->slot ? HP_OK : HP_ENOMEM;
}

/* the slot of (cls, s[0..n)) under names[] (arena offsets by entry) */
static size_t table_find(const struct table *t, const struct hp_mapping *m, uint32_t cls, const char *s, size_t n,
			 const uint32_t *cls_of, size_t stride, const uint32_t *names)
{
	size_t mask = t->cap - 1, i = (size_t)hash_bytes(cls, s, n) & mask;
	for (;; i = (i + 1) & mask) {
		uint32_t v = t->slot[i];
		if (!v)
			return i;
		size_t e = v - 1;
		const char *nm = m->arena + *(const uint32_t *)((const char *)names + e * stride);
		uint32_t c = cls_of ? *(const uint32_t *)((const char *)cls_of + e * stride) : 0;
		if (c == cls && same(nm, s, n))
			return i;
	}
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
	if (!q || q == fn || bad_name(fn, q - fn))
		return HP_OK;         /* a comment: not worth an error */
	return add_text(m, fn, q - fn, &m->classes[m->nclasses - 1].source);
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
	HP_TRY(grow((void **)&m->classes, &m->classes_cap, m->nclasses + 1, sizeof *m->classes));
	struct mclass *c = &m->classes[m->nclasses];
	memset(c, 0, sizeof *c);
	HP_TRY(add_text(m, s, ne - s, &c->orig));
	HP_TRY(add_text(m, o, oe - o, &c->obf));
	c->first_field = (uint32_t)m->nfields;
	c->first_method = (uint32_t)m->nmethods;
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
		HP_TRY(add_text(m, simple, le - simple, &f->orig));
		HP_TRY(add_text(m, o, oe - o, &f->obf));
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
	HP_TRY(add_text(m, name, paren - name, &mm->orig));
	HP_TRY(add_text(m, o, oe - o, &mm->obf));
	m->nmethods++;
	m->classes[m->nclasses - 1].nmethods++;
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

/* the tables: classes by obfuscated name (the first wins), members by
 * class and obfuscated name, chained in file order */
static int index_all(struct hp_mapping *m)
{
	HP_TRY(table_init(&m->ctab, m->nclasses));
	for (size_t i = 0; i < m->nclasses; i++) {
		const char *nm = m->arena + m->classes[i].obf;
		size_t j = table_find(&m->ctab, m, 0, nm, strlen(nm), NULL, sizeof(struct mclass),
				      &m->classes[0].obf);
		if (!m->ctab.slot[j])
			m->ctab.slot[j] = (uint32_t)i + 1;
	}
	uint32_t *tail = hp_reallocarray(NULL, (m->nfields > m->nmethods ? m->nfields : m->nmethods) + 1, sizeof *tail);
	m->fnext = hp_reallocarray(NULL, m->nfields + 1, sizeof *m->fnext);
	m->mnext = hp_reallocarray(NULL, m->nmethods + 1, sizeof *m->mnext);
	int rc = HP_ENOMEM;
	if (!tail || !m->fnext || !m->mnext || table_init(&m->ftab, m->nfields) || table_init(&m->mtab, m->nmethods))
		goto out;
	for (size_t i = 0; i < m->nfields; i++) {
		const struct mfield *f = &m->fields[i];
		const char *nm = m->arena + f->obf;
		size_t j = table_find(&m->ftab, m, f->cls, nm, strlen(nm), &m->fields[0].cls, sizeof *f, &m->fields[0].obf);
		m->fnext[i] = NONE;
		if (!m->ftab.slot[j]) {
			m->ftab.slot[j] = (uint32_t)i + 1;
		} else {
			uint32_t head = m->ftab.slot[j] - 1;
			m->fnext[tail[head]] = (uint32_t)i;
		}
		tail[m->ftab.slot[j] - 1] = (uint32_t)i;
	}
	for (size_t i = 0; i < m->nmethods; i++) {
		const struct mmethod *x = &m->methods[i];
		const char *nm = m->arena + x->obf;
		size_t j = table_find(&m->mtab, m, x->cls, nm, strlen(nm), &m->methods[0].cls, sizeof *x, &m->methods[0].obf);
		m->mnext[i] = NONE;
		if (!m->mtab.slot[j]) {
			m->mtab.slot[j] = (uint32_t)i + 1;
		} else {
			uint32_t head = m->mtab.slot[j] - 1;
			m->mnext[tail[head]] = (uint32_t)i;
		}
		tail[m->mtab.slot[j] - 1] = (uint32_t)i;
	}
	rc = HP_OK;
out:
	hp_free(tail);
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
	hp_free(m->arena);
	hp_free(m->classes);
	hp_free(m->fields);
	hp_free(m->methods);
	hp_free(m->fnext);
	hp_free(m->mnext);
	hp_free(m->ctab.slot);
	hp_free(m->ftab.slot);
	hp_free(m->mtab.slot);
	hp_free(m);
}

void hp_mapping_counts(const hp_mapping *m, uint64_t *classes, uint64_t *fields, uint64_t *methods)
{
	*classes = m->nclasses;
	*fields = m->nfields;
	*methods = m->nmethods;
}

/* ---- lookups --------------------------------------------------------------- */

static uint32_t find_class(const hp_mapping *m, const char *s, size_t n)
{
	if (!m->nclasses)
		return NONE;
	size_t j = table_find(&m->ctab, m, 0, s, n, NULL, sizeof(struct mclass), &m->classes[0].obf);
	return m->ctab.slot[j] ? m->ctab.slot[j] - 1 : NONE;
}

static uint32_t first_field(const hp_mapping *m, uint32_t cls, const char *s, size_t n)
{
	if (!m->nfields)
		return NONE;
	size_t j = table_find(&m->ftab, m, cls, s, n, &m->fields[0].cls, sizeof(struct mfield), &m->fields[0].obf);
	return m->ftab.slot[j] ? m->ftab.slot[j] - 1 : NONE;
}

static uint32_t first_method(const hp_mapping *m, uint32_t cls, const char *s, size_t n)
{
	if (!m->nmethods)
		return NONE;
	size_t j = table_find(&m->mtab, m, cls, s, n, &m->methods[0].cls, sizeof(struct mmethod), &m->methods[0].obf);
	return m->mtab.slot[j] ? m->mtab.slot[j] - 1 : NONE;
}

/* ---- applying ---------------------------------------------------------------- */

/* new names, collected before the heap grows once */
struct names {
	char *buf; size_t len, cap, n;
	struct table dedup;           /* slot = string number + 1 */
	uint32_t *off; size_t off_cap;   /* start of string i in buf */
};

/* the number of string s[0..n) in N, added when new */
static int name_add(struct names *N, const char *s, size_t n, uint32_t *idx)
{
	n = strnlen(s, n);            /* a dump's signature may hold a NUL: cut there */
	if (2 * (N->n + 1) >= N->dedup.cap) {
		struct table t;
		HP_TRY(table_init(&t, 2 * N->n + 16));
		for (size_t i = 0; i < N->dedup.cap; i++) {
			uint32_t v = N->dedup.slot[i];
			if (!v)
				continue;
			const char *x = N->buf + N->off[v - 1];
			size_t k = (size_t)hash_bytes(0, x, strlen(x)) & (t.cap - 1);
			while (t.slot[k])
				k = (k + 1) & (t.cap - 1);
			t.slot[k] = v;
		}
		hp_free(N->dedup.slot);
		N->dedup = t;
	}
	size_t k = (size_t)hash_bytes(0, s, n) & (N->dedup.cap - 1);
	for (; N->dedup.slot[k]; k = (k + 1) & (N->dedup.cap - 1)) {
		const char *x = N->buf + N->off[N->dedup.slot[k] - 1];
		if (same(x, s, n)) {
			*idx = N->dedup.slot[k] - 1;
			return HP_OK;
		}
	}
	HP_TRY(grow((void **)&N->buf, &N->cap, N->len + n + 1, 1));
	HP_TRY(grow((void **)&N->off, &N->off_cap, N->n + 1, sizeof *N->off));
	if (N->len > UINT32_MAX - n - 1)
		return HP_ENOMEM;
	memcpy(N->buf + N->len, s, n);
	N->buf[N->len + n] = '\0';
	N->off[N->n] = (uint32_t)N->len;
	N->len += n + 1;
	N->dedup.slot[k] = (uint32_t)N->n + 1;
	*idx = (uint32_t)N->n++;
	return HP_OK;
}

static void names_release(struct names *N)
{
	hp_free(N->buf);
	hp_free(N->off);
	hp_free(N->dedup.slot);
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

/* The original of class name s[0..n) (no array suffix) into b; 0 when the
 * map does not name it (b untouched); *exact gets the class's entry when
 * the map lists it itself, NONE when through its outer class. */
static int class_orig(const hp_mapping *m, const char *s, size_t n, struct sbuf *b, uint32_t *exact, int *rc)
{
	*exact = NONE;
	uint32_t c = find_class(m, s, n);
	if (c != NONE) {
		*exact = c;
		const char *o = m->arena + m->classes[c].orig;
		*rc = sb_put(b, o, strlen(o));
		return 1;
	}
	for (size_t i = n; i-- > 1;) {
		if (s[i] != '$')
			continue;
		c = find_class(m, s, i);
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

/* a JVM signature with the class names in L...; mapped; 0 when unchanged */
static int map_signature(const hp_mapping *m, const char *s, size_t n, struct sbuf *out, int *rc)
{
	int changed = 0;
	struct sbuf cn = { 0 }, on = { 0 };
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
		cn.len = 0;
		if ((*rc = sb_put(&cn, s + i + 1, k)))
			break;
		for (size_t j = 0; j < cn.len; j++)
			if (cn.p[j] == '/')
				cn.p[j] = '.';
		uint32_t ex;
		on.len = 0;
		if (class_orig(m, cn.p, cn.len, &on, &ex, rc) && !*rc && strcmp(on.p, cn.p)) {
			for (size_t j = 0; j < on.len; j++)
				if (on.p[j] == '.')
					on.p[j] = '/';
			*rc = sb_put(out, "L", 1);
			if (!*rc)
				*rc = sb_put(out, on.p, on.len);
			if (!*rc)
				*rc = sb_put(out, ";", 1);
			changed = 1;
		} else if (!*rc) {
			*rc = sb_put(out, s + i, k + 2);
		}
		i += k + 2;
	}
	hp_free(cn.p);
	hp_free(on.p);
	return changed && !*rc;
}

/* the method a frame of class cls, named s[0..n), at line (<= 0: none) is:
 * the one whose range holds the line, else the first; of inlined code, the
 * method it was inlined into (the last line of the group) */
static uint32_t pick_method(const hp_mapping *m, uint32_t cls, const char *s, size_t n, int32_t line)
{
	uint32_t first = first_method(m, cls, s, n), pick = first;
	if (first == NONE)
		return NONE;
	if (line > 0)
		for (uint32_t j = first; j != NONE; j = m->mnext[j]) {
			const struct mmethod *x = &m->methods[j];
			if (x->has_range && x->a <= line && line <= x->b) {
				pick = j;
				break;
			}
		}
	const struct mmethod *x = &m->methods[pick];
	if (!x->has_range)
		return pick;
	/* the group: the lines right after it with the same name and range */
	uint32_t last = pick;
	for (size_t j = (size_t)pick + 1; j < m->nmethods; j++) {
		const struct mmethod *y = &m->methods[j];
		if (y->cls != x->cls || !y->has_range || y->a != x->a || y->b != x->b ||
		    strcmp(m->arena + y->obf, m->arena + x->obf))
			break;
		last = (uint32_t)j;
	}
	return last;
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

int hp_mapping_apply(const hp_mapping *m, hp_heap *h, struct hp_mapping_stats *st, struct hp_error *err)
{
	memset(st, 0, sizeof *st);
	int rc = HP_OK;
	struct names N = { 0 };
	struct sbuf text = { 0 }, sb = { 0 }, sig = { 0 };
	size_t nf = h->nfields + h->nstatics;
	uint32_t *exact = hp_reallocarray(NULL, h->nclasses + 1, sizeof *exact);
	uint64_t *ctext = hp_reallocarray(NULL, h->nclasses + 1, sizeof *ctext);
	uint32_t *fname = hp_reallocarray(NULL, nf + 1, sizeof *fname);
	uint32_t *frname = hp_reallocarray(NULL, 3 * h->nframes + 1, sizeof *frname);
	uint64_t *sids = NULL;
	if (!exact || !ctext || !fname || !frname || table_init(&N.dedup, 64)) {
		rc = HP_ENOMEM;
		goto out;
	}

	/* classes: the element class of an array, then the dimensions again */
	for (size_t k = 0; k < h->nclasses && !rc; k++) {
		const char *nm = hp_class_name(h, k);
		size_t n = strlen(nm), base = n;
		while (base >= 2 && nm[base - 1] == ']' && nm[base - 2] == '[')
			base -= 2;
		ctext[k] = UINT64_MAX;
		sb.len = 0;
		if (!class_orig(m, nm, base, &sb, &exact[k], &rc) || rc)
			continue;
		if (base != n)
			exact[k] = NONE;      /* an array class: no fields or frames of its own */
		if ((rc = sb_put(&sb, nm + base, n - base)))
			break;
		if (!strcmp(sb.p, nm))
			continue;
		ctext[k] = text.len;
		if ((rc = sb_put(&text, sb.p, sb.len + 1)))
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
			uint32_t len;
			const char *s = hp_heap_string(h, sid, &len);
			if (!s)
				continue;
			uint32_t pick = NONE;
			for (uint32_t j = first_field(m, c, s, len); j != NONE; j = m->fnext[j]) {
				if (pick == NONE)
					pick = j;
				if (m->fields[j].type == (type == HP_T_OBJECT ? HP_T_OBJECT : type)) {
					pick = j;
					break;
				}
			}
			if (pick == NONE)
				continue;
			const char *o = m->arena + m->fields[pick].orig;
			if (strlen(o) == len && !memcmp(o, s, len))
				continue;
			rc = name_add(&N, o, strlen(o), &fname[(is_static ? h->nfields : 0) + fi]);
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
		uint32_t len;
		/* the class names in the signature, whatever the frame's class */
		const char *sg = hp_heap_string(h, f->signature_sid, &len);
		if (sg && map_signature(m, sg, len, &sig, &rc)) {
			if ((rc = name_add(&N, sig.p, sig.len, &frname[3 * i + 2])))
				break;
			changed = 1;
		}
		if (rc)
			break;
		uint32_t k = hp_idmap_get(&h->serial_map, f->class_serial);
		if (k == HP_IDMAP_NONE || k >= h->nclasses || exact[k] == NONE) {
			st->frames += changed;
			continue;
		}
		uint32_t c = exact[k];
		const struct mclass *mc = &m->classes[c];
		const char *s = hp_heap_string(h, f->method_sid, &len);
		const char *qual = NULL;      /* the method's original class when another */
		size_t qual_len = 0;
		uint32_t pick = s ? pick_method(m, c, s, len, f->line) : NONE;
		if (pick != NONE) {
			const struct mmethod *x = &m->methods[pick];
			const char *o = m->arena + x->orig, *dot = strrchr(o, '.');
			if (dot) {
				qual = o;
				qual_len = dot - o;
				o = dot + 1;
			}
			if (strlen(o) != len || memcmp(o, s, len)) {
				if ((rc = name_add(&N, o, strlen(o), &frname[3 * i])))
					break;
				changed = 1;
			}
			int32_t l = map_line(x, f->line);
			if (l != f->line) {
				f->line = l;
				changed = 1;
			}
		}
		/* the source file: R8's comment, else, when the class was renamed
		 * or the dump's file is the "SourceFile" R8 and ProGuard put in
		 * its place, the outermost class's name */
		const char *src = hp_heap_string(h, f->source_sid, &len);
		const char *orig = m->arena + mc->orig;
		sb.len = 0;
		if (mc->source && !qual) {
			rc = sb_put(&sb, m->arena + mc->source, strlen(m->arena + mc->source));
		} else if (src && (qual || strcmp(orig, m->arena + mc->obf) ||
				   (len == 10 && !memcmp(src, "SourceFile", 10)))) {
			const char *cn = qual ? qual : orig;
			size_t cl = qual ? qual_len : strlen(orig);
			const char *dot = NULL;
			for (size_t j = 0; j < cl; j++)
				if (cn[j] == '.')
					dot = cn + j;
			const char *simple = dot ? dot + 1 : cn;
			size_t sl = cn + cl - simple;
			const char *dollar = memchr(simple, '$', sl);
			if (dollar && dollar > simple)
				sl = dollar - simple;
			const char *ext = NULL;
			for (uint32_t j = 0; j < len; j++)
				if (src[j] == '.')
					ext = src + j;
			rc = sb_put(&sb, simple, sl);
			if (!rc)
				rc = ext ? sb_put(&sb, ext, src + len - ext) : sb_put(&sb, ".java", 5);
		}
		if (rc)
			break;
		if (sb.len && (!src || sb.len != len || memcmp(sb.p, src, len))) {
			if ((rc = name_add(&N, sb.p, sb.len, &frname[3 * i + 1])))
				break;
			changed = 1;
		}
		st->frames += changed;
	}
	if (rc)
		goto out;

	/* the heap grows once for the strings and once for the class names */
	if (N.n) {
		sids = hp_reallocarray(NULL, N.n, sizeof *sids);
		if (!sids || (rc = hp_heap_add_strings(h, N.buf, N.len, N.n, sids))) {
			rc = HP_ENOMEM;
			goto out;
		}
		for (size_t i = 0; i < h->nfields; i++)
			if (fname[i] != NEW_NONE)
				h->fields[i].name_sid = sids[fname[i]];
		for (size_t i = 0; i < h->nstatics; i++)
			if (fname[h->nfields + i] != NEW_NONE)
				h->statics[i].name_sid = sids[fname[h->nfields + i]];
		for (size_t i = 0; i < h->nframes; i++) {
			if (frname[3 * i] != NEW_NONE)
				h->frames[i].method_sid = sids[frname[3 * i]];
			if (frname[3 * i + 1] != NEW_NONE)
				h->frames[i].source_sid = sids[frname[3 * i + 1]];
			if (frname[3 * i + 2] != NEW_NONE)
				h->frames[i].signature_sid = sids[frname[3 * i + 2]];
		}
	}
	if (text.len) {
		uint64_t base;
		if ((rc = hp_heap_add_text(h, text.p, text.len, &base)))
			goto out;
		for (size_t k = 0; k < h->nclasses; k++)
			if (ctext[k] != UINT64_MAX)
				h->classes[k].name = base + ctext[k];
	}
out:
	if (rc)
		hp_error_set(err, rc, "out of memory applying the mapping");
	names_release(&N);
	hp_free(text.p);
	hp_free(sb.p);
	hp_free(sig.p);
	hp_free(exact);
	hp_free(ctext);
	hp_free(fname);
	hp_free(frname);
	hp_free(sids);
	return rc;
}
