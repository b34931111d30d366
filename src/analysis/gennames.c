/* gennames.c — made-up class and thread names, normalised (gennames.h). */
#include "analysis/gennames.h"

#include <stdint.h>
#include <string.h>

static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
static int is_alnum(char c) { return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/* s[at, at + del) becomes ins (never longer than del): *len shrinks */
static void put(char *s, size_t *len, size_t at, size_t del, const char *ins)
{
	size_t il = strlen(ins);
	memmove(s + at + il, s + at + del, *len - at - del + 1);
	memcpy(s + at, ins, il);
	*len -= del - il;
}

static int ends_with(const char *s, size_t len, const char *t)
{
	size_t tl = strlen(t);
	return len >= tl && !memcmp(s + len - tl, t, tl);
}

/* the length of the hidden-class suffix that ends s ("+0x7f12", "/0x7f12",
 * ".0x7f12", "+123", "/123"; ".123" only after a '$'), 0 when none */
static size_t hidden_suffix(const char *s, size_t len)
{
	size_t p = len;
	while (p > 0 && is_hex(s[p - 1]))
		p--;
	/* s[p, len) is hex digits, perhaps with an "0x" before them */
	size_t q = p;
	if (q >= 2 && s[q - 1] == 'x' && s[q - 2] == '0' && q < len)
		q -= 2;
	else {
		q = len;      /* decimal digits only */
		while (q > 0 && is_digit(s[q - 1]))
			q--;
	}
	if (q == len || q == 0)
		return 0;
	char sep = s[q - 1];
	int hex = s[q] == '0' && q + 1 < len && s[q + 1] == 'x';
	if (sep == '+' || sep == '/')
		return len - q + 1;
	if (sep == '.' && (hex || memchr(s, '$', q - 1)))
		return len - q + 1;
	return 0;
}

/* marker at s[i] followed by a run of chars ok() accepts: the run becomes
 * "*"; returns the index after it */
static size_t star_run(char *s, size_t *len, size_t i, int (*ok)(char))
{
	size_t j = i;
	while (j < *len && ok(s[j]))
		j++;
	if (j == i)
		return i;
	put(s, len, i, j - i, "*");
	return i + 1;
}

static int is_cglib_tail(char c) { return is_alnum(c) || c == '_'; }

/* the element class name s (no "[]"), normalised in place */
static unsigned norm_class(char *s, size_t *len)
{
	unsigned k = 0;
	size_t hs = hidden_suffix(s, *len);
	if (hs) {
		size_t at = *len - hs;
		/* "$$Lambda$14" + suffix, "$$Lambda" + suffix (JDK 21) */
		size_t d = at;
		while (d > 0 && is_digit(s[d - 1]))
			d--;
		if (d < at && ends_with(s, d, "$$Lambda$")) {
			put(s, len, d, *len - d, "*");
			return HP_GEN_LAMBDA;
		}
		if (ends_with(s, at, "$$Lambda")) {
			put(s, len, at, hs, "$*");
			return HP_GEN_LAMBDA;
		}
		put(s, len, at, hs, "/*");
		k |= HP_GEN_HIDDEN;
	} else {
		/* "$$Lambda$14" with no suffix (a writer that dropped it) */
		size_t d = *len;
		while (d > 0 && is_digit(s[d - 1]))
			d--;
		if (d < *len && ends_with(s, d, "$$Lambda$")) {
			put(s, len, d, *len - d, "*");
			return HP_GEN_LAMBDA;
		}
	}
	/* dynamic proxies: "$Proxy12" at the end, the package "jdk.proxy3." */
	{
		size_t d = *len;
		while (d > 0 && is_digit(s[d - 1]))
			d--;
		if (d < *len && ends_with(s, d, "$Proxy")) {
			put(s, len, d, *len - d, "*");
			k |= HP_GEN_PROXY;
		}
		if (*len > 10 && !memcmp(s, "jdk.proxy", 9) && is_digit(s[9])) {
			size_t e = 9;
			while (e < *len && is_digit(s[e]))
				e++;
			if (e < *len && s[e] == '.') {
				put(s, len, 9, e - 9, "*");
				k |= HP_GEN_PROXY;
			}
		}
	}
	/* reflection accessors: the class's simple name */
	{
		static const char *const acc[] = { "GeneratedMethodAccessor", "GeneratedConstructorAccessor",
						   "GeneratedSerializationConstructorAccessor" };
		size_t d = *len;
		while (d > 0 && is_digit(s[d - 1]))
			d--;
		for (size_t a = 0; a < 3 && d < *len; a++) {
			size_t al = strlen(acc[a]);
			if (d >= al && !memcmp(s + d - al, acc[a], al) && (d == al || s[d - al - 1] == '.')) {
				put(s, len, d, *len - d, "*");
				k |= HP_GEN_ACCESSOR;
				break;
			}
		}
	}
	/* CGLIB: "$$<word>CGLIB$$<tail>", each one */
	for (size_t i = 0; i + 7 <= *len; i++) {
		if (memcmp(s + i, "CGLIB$$", 7))
			continue;
		size_t w = i;
		while (w > 0 && ((s[w - 1] >= 'a' && s[w - 1] <= 'z') || (s[w - 1] >= 'A' && s[w - 1] <= 'Z')))
			w--;
		if (w < 2 || s[w - 1] != '$' || s[w - 2] != '$')
			continue;
		size_t e = star_run(s, len, i + 7, is_cglib_tail);
		if (e > i + 7)
			k |= HP_GEN_CGLIB;
		i = e - 1;
	}
	/* ByteBuddy and the libraries built on it; Javassist */
	{
		static const struct { const char *m; int (*ok)(char); } bb[] = {
			{ "$ByteBuddy$auxiliary$", is_alnum }, { "$ByteBuddy$", is_alnum }, { "$MockitoMock$", is_alnum },
			{ "$HibernateProxy$", is_alnum }, { "$HibernateInstantiator$", is_alnum },
			{ "_$$_jvst", is_cglib_tail }, { "_$$_javassist_", is_alnum },
		};
		for (size_t b = 0; b < sizeof bb / sizeof bb[0]; b++) {
			size_t ml = strlen(bb[b].m);
			for (size_t i = 0; i + ml < *len; i++) {
				if (memcmp(s + i, bb[b].m, ml))
					continue;
				if (b == 1 && *len - i >= 21 && !memcmp(s + i, "$ByteBuddy$auxiliary$", 21))
					continue;   /* the first marker's */
				if (s[i + ml] == '*')
					continue;
				size_t e = star_run(s, len, i + ml, bb[b].ok);
				if (e > i + ml)
					k |= HP_GEN_BYTEBUDDY;
				i = e - 1;
			}
		}
	}
	return k;
}

/* s and its NUL copied to out when cap holds them: strlen(s), else SIZE_MAX */
static size_t copy_in(const char *s, char *out, size_t cap)
{
	size_t n = strlen(s);
	if (cap < n + 1)
		return SIZE_MAX;
	memcpy(out, s, n + 1);
	return n;
}

unsigned hp_gen_class_name(const char *name, char *out, size_t cap)
{
	size_t n = copy_in(name, out, cap);
	if (n == SIZE_MAX)
		return 0;
	size_t e = n;
	while (e >= 2 && name[e - 2] == '[' && name[e - 1] == ']')
		e -= 2;
	size_t len = e;
	out[len] = '\0';
	unsigned k = norm_class(out, &len);
	memcpy(out + len, name + e, n - e + 1);
	if (!k)
		memcpy(out, name, n + 1);
	return k;
}

/* each run of decimal digits of s[0, *len) becomes "*", in place */
static unsigned norm_digits(char *s, size_t *len)
{
	size_t l = 0, n = *len;
	unsigned k = 0;
	for (size_t i = 0; i < n;) {
		if (is_digit(s[i])) {
			while (i < n && is_digit(s[i]))
				i++;
			s[l++] = '*';
			k = HP_GEN_THREAD;
		} else {
			s[l++] = s[i++];
		}
	}
	*len = l;
	return k;
}

unsigned hp_gen_thread_name(const char *name, char *out, size_t cap)
{
	size_t n = copy_in(name, out, cap);
	if (n == SIZE_MAX)
		return 0;
	unsigned k = norm_digits(out, &n);
	out[n] = '\0';
	if (!k)
		memcpy(out, name, n + 1);
	return k;
}

unsigned hp_gen_label(const char *label, char *out, size_t cap)
{
	size_t n = strlen(label);
	if (cap < n + 1)
		return 0;
	if (n >= 9 && !memcmp(label, "thread \"", 8) && label[n - 1] == '"') {
		/* the name between the quotes */
		memcpy(out, label, n + 1);
		size_t l = n - 9;
		unsigned k = norm_digits(out + 8, &l);
		out[8 + l] = '"';
		out[9 + l] = '\0';
		if (!k)
			memcpy(out, label, n + 1);
		return k;
	}
	if (n > 6 && !memcmp(label, "class ", 6)) {
		memcpy(out, "class ", 6);
		unsigned k = hp_gen_class_name(label + 6, out + 6, cap - 6);
		if (!k)
			memcpy(out, label, n + 1);
		return k;
	}
	return hp_gen_class_name(label, out, cap);
}

const char *hp_gen_kind_name(unsigned k, int key)
{
	static const char *const words[HP_GEN_NKINDS] = { "lambda", "hidden class", "proxy", "reflection accessor",
							  "CGLIB", "ByteBuddy", "thread" };
	static const char *const keys[HP_GEN_NKINDS] = { "lambda", "hidden", "proxy", "accessor", "cglib",
							 "bytebuddy", "thread" };
	return k < HP_GEN_NKINDS ? (key ? keys[k] : words[k]) : "?";
}
