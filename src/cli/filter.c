/* filter.c — what to show: class-name patterns (PCRE2: the one place
 * hprofan compiles and matches a regular expression) and Android heaps. */
#include "cli/filter.h"
#include "cli/msg.h"
#include "cli/load.h"
#include "base/text.h"
#include "base/alloc.h"
#include "base/nearest.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Steps one match may take: a class name is short, so a pattern that needs
 * more backtracks catastrophically ("(a+)+$"): a usage error, not "no match". */
#define MATCH_LIMIT 200000
#define DEPTH_LIMIT 5000

struct cli_regex {
	char *lit;             /* a class name matched as a substring, or NULL */
	pcre2_code *re;
	pcre2_match_data *md;
	pcre2_match_context *mc;
	char *pat;
	int jit;
};

static pcre2_code *compile(const char *pat, char *msg, size_t n, size_t *at)
{
	int ec;
	PCRE2_SIZE eo;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED, PCRE2_UTF, &ec, &eo, NULL);
	if (!re) {
		PCRE2_UCHAR m[256];
		pcre2_get_error_message(ec, m, sizeof m);
		snprintf(msg, n, "%s", (char *)m);
		*at = (size_t)eo;
	}
	return re;
}

int cli_pattern_is_class_name(const char *pat)
{
	const unsigned char *p = (const unsigned char *)pat;
	if (!*p)
		return 0;
	for (; *p && *p != '['; p++)
		if (!(*p >= 0x80 || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '.' || *p == '$' || *p == '_'))
			return 0;
	if (p == (const unsigned char *)pat)
		return 0;
	/* a '$' at the end is the regex anchor ("Thread$": names ending in
	 * Thread); inside, the nested-class separator */
	if (p[-1] == '$')
		return 0;
	while (p[0] == '[' && p[1] == ']')
		p += 2;
	return *p == 0;
}

struct cli_regex *cli_regex_new(const char *pat, char *msg, size_t n)
{
	struct cli_regex *r = hp_calloc(1, sizeof *r);
	if (!r) {
		snprintf(msg, n, "out of memory");
		return NULL;
	}
	if (cli_pattern_is_class_name(pat)) {
		/* "LeakApp$Screen", "int[]", "java.util.HashMap": as pasted */
		if (!(r->lit = hp_strdup(pat)) || !(r->pat = hp_strdup(pat))) {
			snprintf(msg, n, "out of memory");
			cli_regex_free(r);
			return NULL;
		}
		return r;
	}
	char m[256];
	size_t at = 0;
	if (!(r->re = compile(pat, m, sizeof m, &at))) {
		snprintf(msg, n, "bad regular expression at offset %zu: %s", at, m);
		hp_free(r);
		return NULL;
	}
	if (!(r->md = pcre2_match_data_create(4, NULL)) || !(r->mc = pcre2_match_context_create(NULL)) ||
	    !(r->pat = hp_strdup(pat))) {
		snprintf(msg, n, "out of memory");
		cli_regex_free(r);
		return NULL;
	}
	pcre2_set_match_limit(r->mc, MATCH_LIMIT);
	pcre2_set_depth_limit(r->mc, DEPTH_LIMIT);
	/* the JIT when the platform has it: the same answers, faster */
	r->jit = pcre2_jit_compile(r->re, PCRE2_JIT_COMPLETE) == 0;
	return r;
}

int cli_regex_match(const struct cli_regex *r, const char *s)
{
	if (r->lit)
		return strstr(s, r->lit) != NULL;
	int rc = pcre2_match(r->re, (PCRE2_SPTR)s, strlen(s), 0, 0, r->md, r->mc);
	if (rc >= 0)
		return 1;
	return rc == PCRE2_ERROR_NOMATCH ? 0 : rc;
}

const char *cli_regex_error(int rc, char *buf, size_t n)
{
	PCRE2_UCHAR m[256];
	if (pcre2_get_error_message(rc, m, sizeof m) < 0)
		snprintf((char *)m, sizeof m, "error %d", rc);
	snprintf(buf, n, "%s", (char *)m);
	return buf;
}

void cli_regex_free(struct cli_regex *r)
{
	if (!r)
		return;
	pcre2_code_free(r->re);
	pcre2_match_data_free(r->md);
	pcre2_match_context_free(r->mc);
	hp_free(r->pat);
	hp_free(r->lit);
	hp_free(r);
}

struct cli_filter {
	struct cli_regex *inc, *exc;
};

static struct cli_regex *pattern(const char *pat, const char *opt, int *rc)
{
	char msg[400];
	struct cli_regex *r = cli_regex_new(pat, msg, sizeof msg);
	if (!r) {
		if (!strcmp(msg, "out of memory")) {
			cli_error("out of memory");
			*rc = EXIT_NOMEM;
		} else {
			cli_error("%s '%s': %s", opt, pat, msg);
			*rc = EXIT_USAGE;
		}
	}
	return r;
}

struct cli_filter *cli_filter_new(const char *include, const char *exclude, int *rc)
{
	*rc = EXIT_OK;
	struct cli_filter *f = hp_calloc(1, sizeof *f);
	if (!f) {
		cli_error("out of memory");
		*rc = EXIT_NOMEM;
		return NULL;
	}
	if ((include && !(f->inc = pattern(include, "--filter", rc))) ||
	    (exclude && !(f->exc = pattern(exclude, "--exclude", rc)))) {
		cli_filter_free(f);
		return NULL;
	}
	return f;
}

const char *cli_filter_said(const char *include, const char *exclude, char *buf, size_t n)
{
	char p[256];
	snprintf(buf, n, "%s '%s'", include ? "--filter" : "--exclude", hp_text_safe(include ? include : exclude, p, sizeof p));
	return buf;
}

/* a pattern that hit PCRE2's limits on a name: said once */
static int limit_hit(const struct cli_regex *r, const char *opt, const char *name, int rc)
{
	char m[256], nm[256];
	cli_error("%s '%s': the pattern cannot be matched within its limits on the class name '%s' (%s); "
		  "make it backtrack less", opt, r->pat, hp_text_safe(name, nm, sizeof nm), cli_regex_error(rc, m, sizeof m));
	return -1;
}

int cli_filter_match(const struct cli_filter *f, const char *name)
{
	if (!f)
		return 1;
	int m;
	if (f->inc && (m = cli_regex_match(f->inc, name)) <= 0)
		return m < 0 ? limit_hit(f->inc, "--filter", name, m) : 0;
	if (f->exc && (m = cli_regex_match(f->exc, name)) != 0)
		return m < 0 ? limit_hit(f->exc, "--exclude", name, m) : 0;
	return 1;
}

int cli_filter_match_any(const struct cli_filter *f, const char *const *texts, size_t n)
{
	if (!f)
		return 1;
	char nm[256], m[256];
	int hit = !f->inc;
	for (size_t i = 0; i < n; i++) {
		const struct cli_regex *r[2] = { hit ? NULL : f->inc, f->exc };
		for (int k = 0; k < 2; k++) {
			if (!r[k])
				continue;
			int rc = cli_regex_match(r[k], texts[i]);
			if (rc < 0) {
				cli_error("%s '%s': the pattern cannot be matched within its limits on '%s' (%s); make it backtrack less",
					  k ? "--exclude" : "--filter", r[k]->pat, hp_text_safe(texts[i], nm, sizeof nm),
					  cli_regex_error(rc, m, sizeof m));
				return -1;
			}
			if (rc && k)
				return 0;
			if (rc)
				hit = 1;
		}
	}
	return hit;
}

int cli_filter_rows(const struct cli_filter *f, const hp_heap *h, int heap, uint8_t **in)
{
	uint8_t *row_in = hp_calloc(h->nrows ? h->nrows : 1, 1);
	*in = NULL;
	if (!row_in) {
		cli_error("out of memory");
		return EXIT_NOMEM;
	}
	for (size_t i = 0; i < h->nrows; i++) {
		const struct hp_hrow *r = &h->rows[i];
		if (!(r->count + r->class_objs) || (heap >= 0 && r->heap != heap))
			continue;
		int m = cli_filter_match(f, hp_class_name(h, r->cls));
		if (m < 0) {
			hp_free(row_in);
			return EXIT_USAGE;
		}
		row_in[i] = (uint8_t)m;
	}
	*in = row_in;
	return EXIT_OK;
}

void cli_filter_free(struct cli_filter *f)
{
	if (!f)
		return;
	cli_regex_free(f->inc);
	cli_regex_free(f->exc);
	hp_free(f);
}

/* case-insensitive substring */
static int has_folded(const char *s, const char *w)
{
	size_t n = strlen(w);
	for (; *s; s++) {
		size_t i = 0;
		while (i < n && s[i]) {
			int a = (unsigned char)s[i], b = (unsigned char)w[i];
			if (a >= 'A' && a <= 'Z') a += 32;
			if (b >= 'A' && b <= 'Z') b += 32;
			if (a != b)
				break;
			i++;
		}
		if (i == n)
			return 1;
	}
	return 0;
}

/* The distance a class name may be from the pattern: a third of it, at
 * most NEAR_CLASS_CAP edits (farther is no typo, and the cap bounds the
 * work on a dump of many long names: see base/nearest.h). */
#define NEAR_CLASS_CAP 6

size_t cli_nearest_classes(const hp_heap *h, const char *pat, char *line, size_t n)
{
	size_t pl = strlen(pat);
	unsigned cap = pl / 3 + 1 < NEAR_CLASS_CAP ? (unsigned)(pl / 3 + 1) : NEAR_CLASS_CAP;
	struct hp_near near;
	hp_near_init(&near, pat, cap + 1, 1);
	for (size_t k = 0; k < h->nclasses; k++) {
		const char *nm = hp_class_name(h, k);
		if (!nm[0])
			continue;
		unsigned d, reach = hp_near_reach(&near);
		if (pl >= 3 && has_folded(nm, pat)) {
			d = 0;              /* a part of the name, 3 letters or more */
		} else if (reach == 0) {
			continue;           /* three names hold the pattern */
		} else {
			/* the whole name, the simple name, the innermost class,
			 * counted within the distance of the farthest kept */
			const char *dot = strrchr(nm, '.'), *dollar = strrchr(nm, '$');
			unsigned c = reach - 1;
			d = hp_near_distance(pat, nm, c, 1);
			unsigned d2 = hp_near_distance(pat, dot ? dot + 1 : nm, c, 1);
			unsigned d3 = hp_near_distance(pat, dollar ? dollar + 1 : nm, c, 1);
			if (d2 < d)
				d = d2;
			if (d3 < d)
				d = d3;
			if (d > c)
				continue;
			d++;
		}
		hp_near_offer_at(&near, nm, d);
	}
	char raw[1024];
	hp_near_join(&near, '\'', 1, raw, sizeof raw);
	hp_text_safe(raw, line, n);
	return near.n;
}

int cli_filter_check(const struct cli_filter *f, const hp_heap *h, const char *file)
{
	if (!f || !f->inc)
		return 0;
	for (size_t k = 0; k < h->nclasses; k++) {
		int m = cli_regex_match(f->inc, hp_class_name(h, k));
		if (m != 0)
			return 0;          /* a match, or a limit hit said where it happens */
	}
	char p[256], line[1024];
	if (cli_nearest_classes(h, f->inc->pat, line, sizeof line))
		cli_warn("%s: no class matches '%s'; did you mean %s?", file, hp_text_safe(f->inc->pat, p, sizeof p), line);
	else
		cli_warn("%s: no class matches '%s'", file, hp_text_safe(f->inc->pat, p, sizeof p));
	return 1;
}

int cli_classes_named(const hp_heap *h, const char *file, const char *name, uint32_t **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	size_t k = 0;
	for (size_t c = 0; c < h->nclasses; c++)
		k += strcmp(hp_class_name(h, c), name) == 0;
	if (!k) {
		char p[256], line[1024];
		if (cli_nearest_classes(h, name, line, sizeof line))
			cli_error("%s: no class named '%s' in the dump; did you mean %s?", file, hp_text_safe(name, p, sizeof p), line);
		else
			cli_error("%s: no class named '%s' in the dump", file, hp_text_safe(name, p, sizeof p));
		return EXIT_BAD;
	}
	if (!(*out = hp_reallocarray(NULL, k, sizeof **out))) {
		cli_error("out of memory");
		return EXIT_NOMEM;
	}
	for (size_t c = 0; c < h->nclasses; c++)
		if (strcmp(hp_class_name(h, c), name) == 0)
			(*out)[(*n)++] = (uint32_t)c;
	return EXIT_OK;
}

/* the index of heap NAME, or -1 (said why, *rc set) */
int cli_heap_named(const hp_heap *h, const char *file, const char *want, int *rc)
{
	for (unsigned i = 0; i < h->nheaps; i++)
		if (h->heap_objects[i] && hp_heap_name(h, i)[0] && strcmp(hp_heap_name(h, i), want) == 0)
			return (int)i;
	char names[256] = "";
	size_t nl = 0;
	for (unsigned i = 0; i < h->nheaps; i++) {
		if (!h->heap_objects[i] || !hp_heap_name(h, i)[0])
			continue;
		int k = snprintf(names + nl, sizeof names - nl, "%s%s", nl ? ", " : "", hp_heap_name(h, i));
		if (k > 0 && (size_t)k < sizeof names - nl)
			nl += (size_t)k;
	}
	if (nl)
		cli_error("%s: --heap %s: no such heap (the dump has: %s)", file, want, names);
	else
		cli_error("%s: --heap %s: this dump has no Android heaps", file, want);
	*rc = EXIT_USAGE;
	return -1;
}

/* ---- --components FILE ------------------------------------------------ */

/* the next line of f into buf (at most COMPONENTS_LINE_MAX bytes, without
 * its '\n', then a NUL), *off moved past it: its length; -1 at the end of
 * the file, -2 on a line too long, -3 on a read error (errno) */
static ssize_t next_line(FILE *f, char *buf, uint64_t *off)
{
	size_t n = 0;
	int c;
	while ((c = getc_unlocked(f)) != EOF && c != '\n') {
		if (n == COMPONENTS_LINE_MAX)
			return -2;
		buf[n++] = (char)c;
	}
	if (c == EOF && ferror(f))
		return -3;
	if (c == EOF && !n)
		return -1;
	buf[n] = '\0';
	*off += n + (c == '\n');
	return (ssize_t)n;
}

/* the component names so far, by hash: slot = name number + 1 (0 empty) */
struct name_set { uint32_t *slot; size_t cap; };

static size_t name_slot(const struct name_set *S, char *const *names, const char *name)
{
	uint64_t x = 1469598103934665603ull;
	for (const char *p = name; *p; p++)
		x = (x ^ (unsigned char)*p) * 1099511628211ull;
	x ^= x >> 29;
	size_t mask = S->cap - 1, i = (size_t)x & mask;
	while (S->slot[i] && strcmp(names[S->slot[i] - 1], name))
		i = (i + 1) & mask;
	return i;
}

/* room for name number n (at most half the slots full) */
static int name_room(struct name_set *S, char *const *names, size_t n)
{
	if (2 * (n + 1) <= S->cap)
		return 0;
	struct name_set T = { NULL, S->cap ? 2 * S->cap : 64 };
	if (!(T.slot = hp_calloc(T.cap, sizeof *T.slot)))
		return -1;
	for (size_t i = 0; i < n; i++)
		T.slot[name_slot(&T, names, names[i])] = (uint32_t)i + 1;
	hp_free(S->slot);
	*S = T;
	return 0;
}

int cli_components_read(const char *file, const hp_heap *h, struct cli_components *t)
{
	memset(t, 0, sizeof *t);
	FILE *f = fopen(file, "r");
	if (!f) {
		cli_error("--components %s: %s", file, strerror(errno));
		return EXIT_USAGE;
	}
	struct cli_regex **re = NULL;
	struct name_set seen = { NULL, 0 };
	size_t cap = 0, lineno = 0;
	uint64_t off = 0, at;
	char *line = hp_malloc(COMPONENTS_LINE_MAX + 1);
	ssize_t len;
	int rc = EXIT_OK;
	uint32_t *comp = NULL;
	if (!line)
		goto nomem;
	for (;;) {
		at = off;
		if ((len = next_line(f, line, &off)) < 0)
			break;
		lineno++;
		if (memchr(line, '\0', (size_t)len)) {
			cli_error("%s:%zu: a NUL byte (the line starts at byte offset %llu)", file, lineno,
				  (unsigned long long)at);
			rc = EXIT_USAGE;
			goto out;
		}
		while (len && (line[len - 1] == '\r' || line[len - 1] == ' ' || line[len - 1] == '\t'))
			line[--len] = 0;
		char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '#')
			continue;
		char *name = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (*p)
			*p++ = 0;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p) {
			cli_error("%s:%zu: expected NAME REGEX, found only '%s'", file, lineno, name);
			rc = EXIT_USAGE;
			goto out;
		}
		if (!strcmp(name, "other")) {
			cli_error("%s:%zu: \"other\" is the name of the classes no component matches", file, lineno);
			rc = EXIT_USAGE;
			goto out;
		}
		if (t->n >= UINT32_MAX - 1 || name_room(&seen, t->names, t->n))
			goto nomem;
		size_t slot = name_slot(&seen, t->names, name);
		if (seen.slot[slot]) {
			cli_error("%s:%zu: component '%s' named twice", file, lineno, name);
			rc = EXIT_USAGE;
			goto out;
		}
		if (t->n == cap) {
			size_t nc = cap ? 2 * cap : 16;
			struct cli_regex **nr = hp_reallocarray(re, nc, sizeof *nr);
			char **nn = nr ? hp_reallocarray(t->names, nc, sizeof *nn) : NULL;
			if (nr)
				re = nr;
			if (!nn)
				goto nomem;
			t->names = nn;
			cap = nc;
		}
		char msg[400];
		struct cli_regex *r = cli_regex_new(p, msg, sizeof msg);
		if (!r) {
			cli_error("%s:%zu: component '%s': '%s': %s", file, lineno, name, p, msg);
			rc = strcmp(msg, "out of memory") ? EXIT_USAGE : EXIT_NOMEM;
			goto out;
		}
		char *nm = hp_strdup(name);
		if (!nm) {
			cli_regex_free(r);
			goto nomem;
		}
		re[t->n] = r;
		seen.slot[slot] = (uint32_t)t->n + 1;
		t->names[t->n++] = nm;
	}
	if (len == -2) {
		cli_error("%s:%zu: a line longer than %d bytes (it starts at byte offset %llu)", file, lineno + 1,
			  COMPONENTS_LINE_MAX, (unsigned long long)at);
		rc = EXIT_USAGE;
		goto out;
	}
	if (len == -3) {
		cli_error("--components %s: %s (at byte offset %llu)", file, strerror(errno), (unsigned long long)off);
		rc = EXIT_USAGE;
		goto out;
	}
	comp = hp_reallocarray(NULL, h->nclasses ? h->nclasses : 1, sizeof *comp);
	if (!comp)
		goto nomem;
	for (size_t c = 0; c < h->nclasses; c++) {
		comp[c] = HP_NONE;
		/* a class with objects: instances, or its class object */
		if (h->classes[c].row == HP_NONE && !h->classes[c].dumped)
			continue;
		const char *cn = hp_class_name(h, c);
		for (size_t i = 0; i < t->n; i++) {
			int m = cli_regex_match(re[i], cn);
			if (m < 0) {
				char eb[300];
				cli_error("%s: component '%s' on class %s: %s", file, t->names[i], cn,
					  cli_regex_error(m, eb, sizeof eb));
				rc = EXIT_USAGE;
				goto out;
			}
			if (m) {
				comp[c] = (uint32_t)i;
				break;
			}
		}
	}
	goto out;
nomem:
	if (!cli_limit_hit(file))
		cli_error("--components %s: out of memory", file);
	rc = EXIT_NOMEM;
out:
	for (size_t i = 0; i < t->n && re; i++)
		cli_regex_free(re[i]);
	hp_free(re);
	hp_free(seen.slot);
	hp_free(line);
	fclose(f);
	if (rc) {
		hp_free(comp);
		cli_components_release(t);
		return rc;
	}
	t->comp = comp;
	return EXIT_OK;
}

void cli_components_release(struct cli_components *t)
{
	for (size_t i = 0; i < t->n; i++)
		hp_free(t->names[i]);
	hp_free(t->names);
	hp_free(t->comp);
	memset(t, 0, sizeof *t);
}
