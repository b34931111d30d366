/* format.c — numbers, sizes and times as the tables print them; text from
 * the dump made safe for a terminal. */
#include "cli/cli.h"

#include <math.h>
#include <string.h>
#include <time.h>

const char *fmt_counted(uint64_t v, const char *one, const char *many, char *buf, size_t n)
{
	char c[32];
	snprintf(buf, n, "%s %s", fmt_count(v, c, sizeof c), v == 1 ? one : many);
	return buf;
}

const char *fmt_count(uint64_t v, char *buf, size_t n)
{
	char tmp[32];
	int len = snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)v);
	size_t o = 0;
	for (int i = 0; i < len && o + 1 < n; i++) {
		if (i > 0 && (len - i) % 3 == 0 && o + 2 < n)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = '\0';
	return buf;
}

static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };

/* v in its unit: d (1 <= d < 1024 unless EiB), *u the unit */
static double scaled(uint64_t v, int *u)
{
	double d = (double)v;
	*u = 0;
	while (d >= 1024 && *u < 6) {
		d /= 1024;
		(*u)++;
	}
	return d;
}

const char *fmt_bytes(uint64_t v, char *buf, size_t n)
{
	if (v < 1024) {
		snprintf(buf, n, "%llu B", (unsigned long long)v);
		return buf;
	}
	int u;
	double d = scaled(v, &u);
	snprintf(buf, n, d < 10 ? "%.2f %s" : d < 100 ? "%.1f %s" : "%.0f %s", d, units[u]);
	return buf;
}

const char *fmt_need(uint64_t v, char *buf, size_t n)
{
	if (v < 1024)
		return fmt_bytes(v, buf, n);
	int u;
	double d = scaled(v, &u);
	double scale = d < 10 ? 100 : d < 100 ? 10 : 1;
	d = ceil(d * scale - 1e-9) / scale;
	snprintf(buf, n, scale == 100 ? "%.2f %s" : scale == 10 ? "%.1f %s" : "%.0f %s", d, units[u]);
	return buf;
}

const char *fmt_time(uint64_t ms, char *buf, size_t n)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;
	if (!gmtime_r(&t, &tm)) {
		snprintf(buf, n, "?");
		return buf;
	}
	char d[32];
	strftime(d, sizeof d, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, n, "%s.%03uZ", d, (unsigned)(ms % 1000));
	return buf;
}

/* Control characters (C0, DEL and the C1 controls U+0080..U+009F, which a
 * terminal may take for CSI and the like), escape sequences and invalid
 * UTF-8 never reach the terminal raw: each of their bytes is shown as \xNN. */
const char *safe_text(const char *s, char *buf, size_t n)
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

size_t cli_json_clean(const char *s, size_t len, char *out)
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
