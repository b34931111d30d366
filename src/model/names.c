/* names.c — text from a dump as the model hands it out: modified UTF-8 to
 * UTF-8, and a JVM type descriptor as a Java name (heap.h). */
#include "model/heap.h"
#include "model/build.h"
#include "base/alloc.h"

#include <string.h>

const char *hp_prim_of(char c)
{
	switch (c) {
	case 'Z': return "boolean";
	case 'C': return "char";
	case 'F': return "float";
	case 'D': return "double";
	case 'B': return "byte";
	case 'S': return "short";
	case 'I': return "int";
	case 'J': return "long";
	case 'V': return "void";
	default: return NULL;
	}
}

/* Modified UTF-8 (NUL as C0 80, supplementary characters as surrogate
 * pairs) to standard UTF-8; every byte sequence that is not valid becomes
 * U+FFFD, so names are always valid UTF-8 for JSON and terminals. */
size_t hp_utf8_put(char *out, uint32_t cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xC0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xE0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	out[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

/* decodes one (modified) UTF-8 sequence; returns its length, 0 if invalid */
static size_t get_cp(const unsigned char *p, size_t n, uint32_t *cp)
{
	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	}
	if ((p[0] & 0xE0) == 0xC0 && n >= 2 && (p[1] & 0xC0) == 0x80) {
		*cp = ((uint32_t)(p[0] & 0x1F) << 6) | (p[1] & 0x3F);
		return (*cp >= 0x80 || *cp == 0) ? 2 : 0;     /* C0 80 is NUL */
	}
	if ((p[0] & 0xF0) == 0xE0 && n >= 3 && (p[1] & 0xC0) == 0x80 && (p[2] & 0xC0) == 0x80) {
		*cp = ((uint32_t)(p[0] & 0x0F) << 12) | ((uint32_t)(p[1] & 0x3F) << 6) | (p[2] & 0x3F);
		return *cp >= 0x800 ? 3 : 0;
	}
	if ((p[0] & 0xF8) == 0xF0 && n >= 4 && (p[1] & 0xC0) == 0x80 && (p[2] & 0xC0) == 0x80 &&
	    (p[3] & 0xC0) == 0x80) {
		*cp = ((uint32_t)(p[0] & 0x07) << 18) | ((uint32_t)(p[1] & 0x3F) << 12) |
		      ((uint32_t)(p[2] & 0x3F) << 6) | (p[3] & 0x3F);
		return (*cp >= 0x10000 && *cp <= 0x10FFFF) ? 4 : 0;
	}
	return 0;
}

char *hp_mutf8_to_utf8(const char *in, size_t n, size_t *out_len)
{
	char *out = hp_malloc(n * 3 + 1);     /* each input byte yields at most 3 */
	if (!out)
		return NULL;
	const unsigned char *p = (const unsigned char *)in;
	size_t i = 0, o = 0;
	while (i < n) {
		uint32_t cp;
		size_t k = get_cp(p + i, n - i, &cp);
		if (!k) {
			o += hp_utf8_put(out + o, 0xFFFD);
			i++;
			continue;
		}
		if (cp >= 0xD800 && cp <= 0xDBFF) {
			uint32_t lo;
			size_t k2 = i + k < n ? get_cp(p + i + k, n - i - k, &lo) : 0;
			if (k2 && lo >= 0xDC00 && lo <= 0xDFFF) {
				o += hp_utf8_put(out + o, 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00));
				i += k + k2;
				continue;
			}
			cp = 0xFFFD;
		} else if (cp >= 0xDC00 && cp <= 0xDFFF) {
			cp = 0xFFFD;
		}
		if (cp == 0)
			cp = 0x2400;    /* SYMBOL FOR NULL: a NUL would end the C string */
		o += hp_utf8_put(out + o, cp);
		i += k;
	}
	out[o] = '\0';
	if (out_len)
		*out_len = o;
	return out;
}

char *hp_java_name(const char *raw_in, size_t raw_len)
{
	size_t len;
	char *conv = hp_mutf8_to_utf8(raw_in, raw_len, &len);
	if (!conv)
		return NULL;
	const char *raw = conv;
	size_t dims = 0;
	while (dims < len && raw[dims] == '[')
		dims++;
	const char *base = raw + dims;
	size_t blen = len - dims;
	const char *prim = NULL;
	if (dims) {
		if (blen >= 2 && base[0] == 'L' && base[blen - 1] == ';') {
			base++;
			blen -= 2;
		} else if (blen == 1 && (prim = hp_prim_of(base[0]))) {
			base = prim;
			blen = strlen(prim);
		}
	}
	size_t n = blen + 2 * dims;
	char *out = hp_malloc(n + 1);
	if (!out) {
		hp_free(conv);
		return NULL;
	}
	for (size_t i = 0; i < blen; i++) {
		char c = base[i];
		out[i] = (c == '/' && !prim) ? '.' : c;
	}
	for (size_t i = 0; i < dims; i++) {
		out[blen + 2 * i] = '[';
		out[blen + 2 * i + 1] = ']';
	}
	out[n] = '\0';
	hp_free(conv);
	return out;
}
