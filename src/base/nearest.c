/* nearest.c — "did you mean": edit distance and the nearest names
 * (nearest.h). */
#include "base/nearest.h"

#include <stdio.h>
#include <string.h>

static int fold_byte(int c, int fold)
{
	return fold && c >= 'A' && c <= 'Z' ? c + 32 : c;
}

#define EQ(x, y) (fold_byte((unsigned char)(x), fold) == fold_byte((unsigned char)(y), fold))

unsigned hp_near_distance(const char *a, const char *b, unsigned cap, int fold)
{
	size_t la = strnlen(a, HP_NEAR_LEN), lb = strnlen(b, HP_NEAR_LEN);
	if (cap > HP_NEAR_LEN)
		cap = HP_NEAR_LEN;     /* no distance is more */
	if ((la > lb ? la - lb : lb - la) > cap)
		return cap + 1;
	/* a common start and end change nothing: the table is of what differs */
	while (la && lb && EQ(a[0], b[0])) {
		a++, b++;
		la--, lb--;
	}
	while (la && lb && EQ(a[la - 1], b[lb - 1])) {
		la--;
		lb--;
	}
	if (!la || !lb)
		return (unsigned)(la + lb) > cap ? cap + 1 : (unsigned)(la + lb);
	/* rows i-2, i-1 and i of the table, in the band |i - j| <= cap (a
	 * cell outside it is more than cap); values saturate at cap + 1 */
	const unsigned far = cap + 1;
	unsigned r[3][HP_NEAR_LEN + 2];
	unsigned *pp = r[0], *p = r[1], *c = r[2];
	for (size_t j = 0; j <= lb + 1 && j < HP_NEAR_LEN + 2; j++)
		p[j] = pp[j] = j < far ? (unsigned)j : far;
	unsigned prev_min = 0;
	for (size_t i = 1; i <= la; i++) {
		int ca = fold_byte((unsigned char)a[i - 1], fold);
		size_t lo = i > cap ? i - cap : 1, hi = i + cap < lb ? i + cap : lb;
		c[0] = i < far ? (unsigned)i : far;
		c[lo - 1] = lo > 1 ? far : c[0];
		unsigned row_min = lo > 1 ? far : c[0];
		for (size_t j = lo; j <= hi; j++) {
			int cb = fold_byte((unsigned char)b[j - 1], fold);
			unsigned v = p[j - 1] + (ca != cb);
			if (p[j] + 1 < v)
				v = p[j] + 1;
			if (c[j - 1] + 1 < v)
				v = c[j - 1] + 1;
			if (i > 1 && j > 1 && ca == fold_byte((unsigned char)b[j - 2], fold) &&
			    fold_byte((unsigned char)a[i - 2], fold) == cb && pp[j - 2] + 1 < v)
				v = pp[j - 2] + 1;
			if (v > far)
				v = far;
			c[j] = v;
			if (v < row_min)
				row_min = v;
		}
		if (hi < lb)
			c[hi + 1] = far;
		/* a cell of a later row comes from this row (at no cost) or from
		 * the one before it (a swap, at cost 1) */
		if (row_min > cap && prev_min >= cap)
			return far;
		prev_min = row_min;
		unsigned *t = pp;
		pp = p;
		p = c;
		c = t;
	}
	return p[lb] > cap ? far : p[lb];
}

void hp_near_init(struct hp_near *n, const char *word, unsigned cap, int fold)
{
	memset(n, 0, sizeof *n);
	n->word = word;
	n->cap = cap;
	n->fold = fold;
}

void hp_near_offer_at(struct hp_near *n, const char *name, unsigned d)
{
	if (d > n->cap || !name[0])
		return;
	for (size_t i = 0; i < n->n; i++)
		if (!strcmp(n->name[i], name))
			return;
	size_t at = n->n;
	while (at > 0 && (n->dist[at - 1] > d || (n->dist[at - 1] == d && strcmp(n->name[at - 1], name) > 0)))
		at--;
	if (at >= HP_NEAR_MAX)
		return;
	size_t last = n->n < HP_NEAR_MAX ? n->n : HP_NEAR_MAX - 1;
	for (size_t i = last; i > at; i--) {
		n->name[i] = n->name[i - 1];
		n->dist[i] = n->dist[i - 1];
	}
	n->name[at] = name;
	n->dist[at] = d;
	if (n->n < HP_NEAR_MAX)
		n->n++;
}

unsigned hp_near_reach(const struct hp_near *n)
{
	return n->n == HP_NEAR_MAX && n->dist[HP_NEAR_MAX - 1] < n->cap ? n->dist[HP_NEAR_MAX - 1] : n->cap;
}

void hp_near_offer(struct hp_near *n, const char *name)
{
	hp_near_offer_at(n, name, hp_near_distance(n->word, name, hp_near_reach(n), n->fold));
}

size_t hp_near_join(const struct hp_near *n, char quote, int all, char *buf, size_t len)
{
	size_t o = 0, k = 0;
	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < n->n && len; i++) {
		if (!all && n->dist[i] != n->dist[0])
			break;
		int w = quote ? snprintf(buf + o, len - o, "%s%c%s%c", k ? ", " : "", quote, n->name[i], quote)
			      : snprintf(buf + o, len - o, "%s%s", k ? ", " : "", n->name[i]);
		if (w < 0 || (size_t)w >= len - o) {
			buf[o] = '\0';
			break;
		}
		o += (size_t)w;
		k++;
	}
	return k;
}
