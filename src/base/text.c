/* text.c — text from a dump made safe to show: for a terminal, and as JSON
 * (text.h). */
#include "base/text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Control characters (C0, DEL and the C1 controls U+0080..U+009F, which a
 * terminal may take for CSI and the like), escape sequences and invalid
 * UTF-8 never reach the terminal raw: each of their bytes is shown as \xNN. */
const char *hp_text_safe(const char *s, char *buf, size_t n)
{
	size_t o = 0;
	const unsigned char *p = (const unsigned char *)s;
	while (*p && o + 5 < n) {
		unsigned c = *p;
		size_t len = 0;
		if (c >= 0x20 && c < 0x7f) {
			buf[o++] = (char)c;
			p++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			len = 2;
		else if (c >= 0xe0 && c <= 0xef)
			len = 3;
		else if (c >= 0xf0 && c <= 0xf4)
			len = 4;
		int ok = len > 0;
		for (size_t k = 1; ok && k < len; k++)
			if ((p[k] & 0xc0) != 0x80)
				ok = 0;
		if (ok && len == 3 && c == 0xed && p[1] >= 0xa0)
			ok = 0;     /* surrogates (modified UTF-8) are not printable as is */
		if (ok && c == 0xc2 && p[1] <= 0x9f)
			ok = 0;     /* C1 controls */
		if (ok && len == 3 && c == 0xe0 && p[1] < 0xa0)
			ok = 0;     /* overlong */
		if (ok && len == 4 && ((c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] >= 0x90)))
			ok = 0;     /* overlong, past U+10FFFF */
		if (ok && o + len < n) {
			memcpy(buf + o, p, len);
			o += len;
			p += len;
			continue;
		}
		o += (size_t)snprintf(buf + o, n - o, "\\x%02x", c);
		p++;
		if (ok && c == 0xc2) {      /* the C1 control's second byte too */
			o += (size_t)snprintf(buf + o, n - o, "\\x%02x", *p);
			p++;
		}
	}
	buf[o] = '\0';
	return buf;
}

size_t hp_text_json_clean(const char *s, size_t len, char *out)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	size_t o = 0;
	char esc[8];
	while (p < end) {
		unsigned c = *p;
		if (c < 0x80 && c != 0x7f) {
			if (out)
				out[o] = (char)c;
			o++;
			p++;
			continue;
		}
		size_t k = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
		int ok = k > 0 && (size_t)(end - p) >= k;
		for (size_t i = 1; ok && i < k; i++)
			ok = (p[i] & 0xc0) == 0x80;
		if (ok && ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] >= 0xa0) || (c == 0xf0 && p[1] < 0x90) ||
			   (c == 0xf4 && p[1] >= 0x90)))
			ok = 0;
		if (c == 0x7f || (ok && c == 0xc2 && p[1] <= 0x9f)) {
			/* DEL and C1 controls: written as \u escapes (only strings hold them) */
			unsigned cp = c == 0x7f ? 0x7f : p[1];
			snprintf(esc, sizeof esc, "\\u%04x", cp);
			if (out)
				memcpy(out + o, esc, 6);
			o += 6;
			p += c == 0x7f ? 1 : 2;
			continue;
		}
		if (!ok) {              /* invalid UTF-8: U+FFFD */
			if (out)
				memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			p++;
			continue;
		}
		if (out)
			memcpy(out + o, p, k);
		o += k;
		p += k;
	}
	if (out)
		out[o] = '\0';
	return o;
}

void hp_text_real(char *buf, size_t n, double v, int is_float)
{
	if (isnan(v)) {
		snprintf(buf, n, "NaN");
		return;
	}
	if (isinf(v)) {
		snprintf(buf, n, v > 0 ? "Infinity" : "-Infinity");
		return;
	}
	for (int p = 1; p <= 17; p++) {
		snprintf(buf, n, "%.*g", p, v);
		if (is_float ? strtof(buf, NULL) == (float)v : strtod(buf, NULL) == v)
			return;
	}
}
