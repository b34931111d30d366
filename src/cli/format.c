/* format.c — numbers, sizes and times as the tables print them (text from
 * the dump made safe for a terminal: base/text.c). */
#include "cli/format.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

const char *cli_fmt_counted(uint64_t v, const char *one, const char *many, char *buf, size_t n)
{
	char c[32];
	snprintf(buf, n, "%s %s", cli_fmt_count(v, c, sizeof c), v == 1 ? one : many);
	return buf;
}

const char *cli_fmt_count(uint64_t v, char *buf, size_t n)
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

const char *cli_fmt_bytes(uint64_t v, char *buf, size_t n)
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

const char *cli_fmt_need(uint64_t v, char *buf, size_t n)
{
	if (v < 1024)
		return cli_fmt_bytes(v, buf, n);
	int u;
	double d = scaled(v, &u);
	double scale = d < 10 ? 100 : d < 100 ? 10 : 1;
	d = ceil(d * scale - 1e-9) / scale;
	snprintf(buf, n, scale == 100 ? "%.2f %s" : scale == 10 ? "%.1f %s" : "%.0f %s", d, units[u]);
	return buf;
}

const char *cli_fmt_time(uint64_t ms, char *buf, size_t n)
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
