/*
 * hprofan browse FILE (hprofan FILE -i): the interactive browser, ncdu's
 * browser.c over the list model in src/analysis/browse.h.  This file only
 * draws and reads keys: title bar, path line, list, status bar; pop-ups for
 * an object (fields and referrers, each line naming an object followed by
 * Enter; the path to a GC root) and for help.  It gathers what the views
 * beyond the dominator tree need the first time they are asked for: the
 * leak suspects (L), the threads and their names (T), the groups of the
 * histogram (G, with --components FILE read before the screen opens).
 */
#include "cli/command.h"
#include "analysis/leaks.h"
#include "analysis/browse.h"
#include "analysis/paths.h"
#include "analysis/threads.h"
#include "analysis/group.h"
#include "model/objread.h"
#include "parser/alloc.h"

#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#define POPUP_ELEMS 32
#define POPUP_REFERRERS 50

/* Input is blocking, so getch() gives ERR only when no key can come: the
 * terminal is gone (a hang-up with SIGHUP ignored, end of input, EIO).
 * Every loop that waits for a key then ends instead of spinning. */
static int term_gone;

static int key(void)
{
	for (int tries = 0; tries < 100; tries++) {
		errno = 0;
		int k = getch();
		if (k != ERR)
			return k;
		if (errno != EINTR)
			break;
	}
	term_gone = 1;
	return ERR;
}
#define TEXT_CHARS 80

struct browse_opts {
	const char *components;   /* --components FILE */
};

struct view {
	int all_weak;           /* paths in the i pop-up */
	hp_session *S;
	const char *file;
	const hp_heap *h;
	const struct hp_retained *R;    /* the dominator tree and sizes (from an index: without the graph) */
	const struct hp_retained *Rg;   /* with the reference graph too: graph() */
	struct hp_browse m;
	hp_objread *rd;
	int utf8, color;
	char msg[512];          /* shown in the status bar until the next key */
	struct cli_regex *re;   /* the pattern being applied */
	int re_err;             /* the PCRE2 error it hit on some name, 0 none */
	/* the leaks view (L), found the first time it is asked for */
	struct hp_leaks leaks;
	int leaks_done;
	/* / searches the dominator tree, n goes on */
	char search[256];
	struct cli_regex *search_re;
	/* T, the threads view, collected the first time */
	struct hp_threads T;
	char **tnames;            /* per thread: its name quoted, or "(no name)" */
	int threads_done;
	/* G, the histogram's top level by package, loader, component */
	const char *components;   /* --components FILE */
	struct cli_components comps;   /* read at the start: per class its component, HP_NONE: other */
	struct hp_groups G[3];
	char **gnames[3];
	int groups_done[3];
	int by;                   /* the grouping shown: -1 classes, else enum hp_group_by */
};

/* ---- text on screen --------------------------------------------------- */

/* Bytes of s that fill at most width columns; *cols gets the columns used. */
static size_t fit(const struct view *w, const char *s, int width, int *cols)
{
	size_t i = 0, len = strlen(s);
	int c = 0;
	mbstate_t st;
	memset(&st, 0, sizeof st);
	while (i < len) {
		size_t k = 1;
		int cw = 1;
		if (w->utf8 && (unsigned char)s[i] >= 0x80) {
			wchar_t wc;
			k = mbrtowc(&wc, s + i, len - i, &st);
			if (k == (size_t)-1 || k == (size_t)-2 || k == 0) {
				k = 1;
				memset(&st, 0, sizeof st);
			} else {
				cw = wcwidth(wc);
				if (cw < 0)
					cw = 1;
			}
		}
		if (c + cw > width)
			break;
		c += cw;
		i += k;
	}
	*cols = c;
	return i;
}

/* s in at most width columns at (y, x), cut with '~' when too long, padded */
static void put(const struct view *w, int y, int x, const char *s, int width)
{
	if (width <= 0)
		return;
	char buf[2048], safe[2048];
	const char *t = safe_text(s, safe, sizeof safe);   /* no control character reaches the screen */
	if (!w->utf8) {   /* plain ASCII: anything else is '?' */
		size_t o = 0;
		for (const unsigned char *p = (const unsigned char *)t; *p && o + 1 < sizeof buf; p++)
			if (*p < 0x80)
				buf[o++] = (char)*p;
			else if ((*p & 0xc0) != 0x80)
				buf[o++] = '?';
		buf[o] = '\0';
		t = buf;
	}
	int cols;
	size_t n = fit(w, t, width, &cols);
	if (t[n]) {   /* cut: make room for the mark */
		n = fit(w, t, width - 1, &cols);
		mvaddnstr(y, x, t, (int)n);
		addch('~');
		cols++;
	} else {
		mvaddnstr(y, x, t, (int)n);
	}
	for (; cols < width; cols++)
		addch(' ');
}

static const char *row_label(const struct view *w, const struct hp_brow *r, char *buf, size_t n)
{
	char a[32], nm[600];
	switch (r->kind) {
	case HP_BR_OBJECT:
		return object_label(w->h, r->id, buf, n);
	case HP_BR_GROUP:
		snprintf(buf, n, "[%s %s %s]", fmt_count(r->n, a, sizeof a), w->utf8 ? "\xc3\x97" : "x",
			 safe_text(hp_class_name(w->h, r->id), nm, sizeof nm));
		return buf;
	case HP_BR_CLASS:
		return safe_text(hp_class_name(w->h, r->id), buf, n);
	case HP_BR_THREAD: {
		const struct hp_thread_info *t = &w->T.t[r->id];
		char lab[800];
		snprintf(buf, n, "%s serial %u%s%s%s%s%s", w->tnames[r->id], t->serial, t->daemon > 0 ? " daemon" : "",
			 t->state ? " " : "", t->state ? t->state : "", t->obj != SIZE_MAX ? "  " : "  (no Thread object)",
			 t->obj != SIZE_MAX ? object_label(w->h, t->obj, lab, sizeof lab) : "");
		return buf;
	}
	case HP_BR_FRAME: {
		const struct hp_thread_info *t = &w->T.t[w->m.levels[w->m.depth - 1].node];
		const struct hp_frame *fr = r->id == HP_FRAME_NONE ? NULL : hp_trace_frame(w->h, t->trace, r->id);
		if (r->id == HP_FRAME_NONE)
			snprintf(buf, n, "(held by the thread without a frame: native stack, thread block, JNI local)");
		else if (fr)
			cli_frame_text(w->h, fr, buf, n);
		else
			snprintf(buf, n, "at ? (frame %u: no STACK FRAME record)", r->id);
		return buf;
	}
	case HP_BR_CGROUP:
		return safe_text(w->m.gnames[r->id], buf, n);
	default:
		snprintf(buf, n, "%s (%s root records)", hp_root_kind_name((int)r->id),
			 fmt_count(w->h->roots_by_kind[r->id], a, sizeof a));
		return buf;
	}
}

/* flag column: GC root, then class object, array, leaf or group */
static void row_flags(const struct view *w, const struct hp_brow *r, char f[3])
{
	f[0] = f[1] = ' ';
	f[2] = '\0';
	if (r->kind == HP_BR_GROUP) {
		f[1] = '+';
	} else if (r->kind == HP_BR_OBJECT) {
		int k = hp_heap_kind(w->h, r->id);
		if (w->R->root_kinds[r->id])
			f[0] = 'R';
		f[1] = k == HP_OBJ_CLASS ? 'C' : k != HP_OBJ_INSTANCE ? '[' :
		       !hp_browse_can_open(&w->m, r) ? '.' : ' ';
	}
}

static const char *level_name(const struct view *w, size_t i, char *buf, size_t n)
{
	const struct hp_blevel *L = &w->m.levels[i];
	char a[32], nm[600];
	switch (L->kind) {
	case HP_BL_DOM:
		if (L->node >= w->h->nobj)
			return i == 0 ? "dominators" : "?";
		return object_label(w->h, L->node, buf, n);
	case HP_BL_GROUP:
		snprintf(buf, n, "[%s %s %s]", fmt_count(L->nrows, a, sizeof a), w->utf8 ? "\xc3\x97" : "x",
			 safe_text(hp_class_name(w->h, L->node), nm, sizeof nm));
		return buf;
	case HP_BL_HISTO: return "classes";
	case HP_BL_INSTANCES:
		snprintf(buf, n, "instances of %s", safe_text(hp_class_name(w->h, L->node), nm, sizeof nm));
		return buf;
	case HP_BL_KINDS: return "GC roots";
	case HP_BL_LIST: return "leak suspects (accumulation points) and zombies";
	case HP_BL_THREADS: return "threads";
	case HP_BL_STACK:
		snprintf(buf, n, "thread %s", w->tnames[L->node]);
		return buf;
	case HP_BL_CGROUPS: {
		static const char *const by[] = { "classes by package", "classes by class loader", "classes by component" };
		return by[w->m.G->by];
	}
	case HP_BL_CGROUP:
		return safe_text(w->m.gnames[L->node], buf, n);
	default: return hp_root_kind_name((int)L->node);
	}
}

static int list_height(void)
{
	return LINES - 3 > 1 ? LINES - 3 : 1;
}

static void bar_attr(const struct view *w, int on)
{
	if (w->color)
		on ? attron(COLOR_PAIR(1)) : attroff(COLOR_PAIR(1));
}

static void draw(struct view *w)
{
	erase();
	struct hp_browse *m = &w->m;
	struct hp_blevel *L = hp_browse_level(m);
	char buf[2048], a[32], b[32], c[32];
	static const char *const views[] = { "dominator tree", "class histogram", "GC roots", "leaks", "threads",
					      "class histogram" };

	attron(A_REVERSE);
	snprintf(buf, sizeof buf, " hprofan: %s of %s  (? help, q quit)", views[m->view], w->file);
	put(w, 0, 0, buf, COLS);
	attroff(A_REVERSE);

	/* path line: the levels from the top, cut at the left when too long */
	char path[4096] = "";
	size_t pl = 0;
	for (size_t i = 0; i < m->depth; i++) {
		char nb[800];
		pl += (size_t)snprintf(path + pl, sizeof path - pl, "%s%s", i ? (w->utf8 ? " \xe2\x80\xba " : " > ") : "",
				       level_name(w, i, nb, sizeof nb));
		if (pl >= sizeof path)
			pl = sizeof path - 1;
	}
	int pcols;
	const char *ps = path;
	while (*ps && (fit(w, ps, INT32_MAX / 2, &pcols), pcols > COLS - 2))
		do
			ps++;
		while (((unsigned char)*ps & 0xc0) == 0x80);   /* whole characters */
	put(w, 1, 0, ps == path ? path : ps, COLS);

	/* the list */
	int H = list_height();
	if (L->cursor < L->top)
		L->top = L->cursor;
	if (L->cursor >= L->top + (size_t)H)
		L->top = L->cursor - (size_t)H + 1;
	uint64_t mx = hp_browse_max(m), total = hp_browse_total(m);
	int barw = COLS >= 70 ? 10 : 0;
	int fixed = 2 + 1 + 9 + 1 + (barw ? barw + 3 : 0) + 6 + 1 + 11 + 1;
	for (int y = 0; y < H && L->top + (size_t)y < L->nvis; y++) {
		size_t i = L->top + (size_t)y;
		const struct hp_brow *r = hp_browse_row(m, i);
		uint64_t sz = hp_browse_size(m, r);
		char fl[3];
		row_flags(w, r, fl);
		int sel = i == L->cursor;
		if (sel)
			attron(A_REVERSE);
		int x = 0;
		if (r->kind == HP_BR_FRAME) {   /* a frame: no size; the objects it holds, its text */
			char lab[1024];
			snprintf(buf, sizeof buf, "%*s%11s ", fixed - 12, "", fmt_count(r->count, b, sizeof b));
			put(w, 2 + y, 0, buf, fixed);
			put(w, 2 + y, fixed, row_label(w, r, lab, sizeof lab), COLS - fixed);
			if (sel)
				attroff(A_REVERSE);
			continue;
		}
		snprintf(buf, sizeof buf, "%s %9s ", fl, fmt_bytes(sz, a, sizeof a));
		put(w, 2 + y, x, buf, 13);
		x += 13;
		if (barw) {
			int fill = mx ? (int)((double)sz * barw / (double)mx + 0.5) : 0;
			mvaddch(2 + y, x++, '[');
			bar_attr(w, 1);
			for (int k = 0; k < barw; k++) {
				if (k < fill && w->utf8)
					addstr("\xe2\x96\x88");
				else
					addch(k < fill ? '#' : ' ');
			}
			bar_attr(w, 0);
			addstr("] ");
			x += barw + 2;
		}
		double pct = total ? 100.0 * (double)sz / (double)total : 0;
		snprintf(buf, sizeof buf, "%5.1f%% %11s ", pct, fmt_count(r->count, b, sizeof b));
		put(w, 2 + y, x, buf, 6 + 1 + 11 + 1);
		x += 19;
		char lab[1024];
		if (L->kind == HP_BL_STACK) {   /* a frame's local, under it */
			char ind[1100];
			snprintf(ind, sizeof ind, "  %s", row_label(w, r, lab, sizeof lab));
			put(w, 2 + y, x, ind, COLS - fixed);
		} else {
			put(w, 2 + y, x, row_label(w, r, lab, sizeof lab), COLS - fixed);
		}
		if (sel)
			attroff(A_REVERSE);
	}
	if (!L->nvis)
		put(w, 3, 2, L->filter ? "no rows match the filter" : "nothing here", COLS - 4);

	/* status bar */
	static const char *const keys[] = { "size", "name", "count" };
	const struct hp_brow *cur = hp_browse_cur(m);
	if (w->msg[0]) {
		snprintf(buf, sizeof buf, " %s", w->msg);
	} else {
		char d[32];
		int o = snprintf(buf, sizeof buf, " %s | sort %s%s | %s/%s rows", m->shallow ? "shallow" : "retained",
				 keys[m->sort], m->reverse ? " (reversed)" : "",
				 fmt_count(L->nvis ? L->cursor + 1 : 0, d, sizeof d), fmt_count(L->nvis, a, sizeof a));
		if (L->filter)
			o += snprintf(buf + o, sizeof buf - (size_t)o, " | /%s/", L->filter);
		if (cur && cur->kind == HP_BR_FRAME && o < (int)sizeof buf)
			snprintf(buf + o, sizeof buf - (size_t)o, " | a frame: it holds %s",
				 fmt_counted(cur->count, "object", "objects", b, sizeof b));
		else if (cur && o < (int)sizeof buf)
			snprintf(buf + o, sizeof buf - (size_t)o, " | retained %s B, shallow %s B",
				 fmt_count(cur->retained, b, sizeof b), fmt_count(cur->shallow, c, sizeof c));
	}
	attron(A_REVERSE);
	put(w, LINES - 1, 0, buf, COLS);
	attroff(A_REVERSE);
	refresh();
}

/* ---- pop-ups ---------------------------------------------------------- */

/* a pop-up's lines; tgt[i]: the object line i names (Enter follows it), HP_NONE */
struct lines { char **v; uint32_t *tgt; size_t n; };

static void lines_free(struct lines *l)
{
	for (size_t i = 0; i < l->n; i++)
		hp_free(l->v[i]);
	hp_free(l->v);
	hp_free(l->tgt);
	memset(l, 0, sizeof *l);
}

/* the objects lines name, as (line, object) pairs while the text is written */
struct links { struct { size_t line; uint32_t obj; } *v; size_t n, cap; };

/* the number of the line f is writing (out: its open_memstream buffer) */
static size_t line_no(FILE *f, char *const *out)
{
	fflush(f);
	size_t n = 0;
	for (const char *p = *out; p && *p; p++)
		n += *p == '\n';
	return n;
}

static void link_add(struct links *k, size_t line, uint32_t obj)
{
	if (obj == HP_NONE)
		return;
	if (k->n == k->cap) {
		size_t nc = k->cap ? 2 * k->cap : 32;
		void *p = hp_reallocarray(k->v, nc, sizeof *k->v);
		if (!p)
			return;   /* the line just does not follow */
		k->v = p;
		k->cap = nc;
	}
	k->v[k->n].line = line;
	k->v[k->n].obj = obj;
	k->n++;
}

/* splits text at newlines (text is freed) */
static int lines_of(char *text, struct lines *l)
{
	memset(l, 0, sizeof *l);
	if (!text)
		return -1;
	size_t cnt = 1;
	for (char *p = text; *p; p++)
		cnt += *p == '\n';
	l->v = hp_calloc(cnt, sizeof *l->v);
	l->tgt = hp_reallocarray(NULL, cnt, sizeof *l->tgt);
	if (!l->v || !l->tgt) {
		hp_free(l->v);
		hp_free(l->tgt);
		l->v = NULL;
		l->tgt = NULL;
		free(text);
		return -1;
	}
	for (size_t i = 0; i < cnt; i++)
		l->tgt[i] = HP_NONE;
	char *s = text;
	while (*s) {
		char *e = strchr(s, '\n');
		size_t k = e ? (size_t)(e - s) : strlen(s);
		char *t = hp_malloc(k + 1);
		if (!t)
			break;
		memcpy(t, s, k);
		t[k] = '\0';
		l->v[l->n++] = t;
		s += k + (e != NULL);
	}
	free(text);
	return 0;
}

static void box_at(const struct view *w, int y0, int x0, int hh, int ww)
{
	for (int y = y0; y < y0 + hh; y++)
		for (int x = x0; x < x0 + ww; x++) {
			int top = y == y0 || y == y0 + hh - 1, side = x == x0 || x == x0 + ww - 1;
			const char *ch = " ";
			if (w->utf8)
				ch = top && side ? (y == y0 ? (x == x0 ? "\xe2\x94\x8c" : "\xe2\x94\x90")
							    : (x == x0 ? "\xe2\x94\x94" : "\xe2\x94\x98"))
				     : top ? "\xe2\x94\x80" : side ? "\xe2\x94\x82" : " ";
			else
				ch = top && side ? "+" : top ? "-" : side ? "|" : " ";
			mvaddstr(y, x, ch);
		}
}

/* the next line of l after (dir 1) or before (dir -1) line i that names an
 * object, SIZE_MAX when none */
static size_t next_link(const struct lines *l, size_t i, int dir)
{
	while (dir > 0 ? i + 1 < l->n : i > 0) {
		i = dir > 0 ? i + 1 : i - 1;
		if (l->tgt[i] != HP_NONE)
			return i;
	}
	return SIZE_MAX;
}

/* Shows tabs of lines; Tab switches, j/k move (from one line naming an
 * object to the next, highlighted; tabs without such lines scroll), q/Esc/i
 * close.  Returns the object Enter followed, else HP_NONE; *back is set
 * when Backspace or h asked for the object shown before. */
static uint32_t popup(struct view *w, const char *const *titles, struct lines *tabs, int ntabs, int *back)
{
	int tab = 0;
	size_t top[4] = { 0 }, sel[4];
	*back = 0;
	for (int t = 0; t < ntabs; t++)
		sel[t] = tabs[t].n && tabs[t].tgt[0] != HP_NONE ? 0 : next_link(&tabs[t], 0, 1);
	for (;;) {
		draw(w);
		int hh = LINES - 4, ww = COLS - 4;
		if (hh < 5 || ww < 20)
			return HP_NONE;
		box_at(w, 2, 2, hh, ww);
		int x = 4;
		for (int t = 0; t < ntabs; t++) {
			char tb[128];
			snprintf(tb, sizeof tb, " %s ", titles[t]);
			if (t == tab)
				attron(A_REVERSE);
			put(w, 2, x, tb, (int)strlen(tb));
			if (t == tab)
				attroff(A_REVERSE);
			x += (int)strlen(tb) + 1;
		}
		struct lines *l = &tabs[tab];
		int inner = hh - 3;
		size_t *s = &sel[tab];
		if (*s != SIZE_MAX) {   /* keep the selected line in sight */
			if (*s < top[tab])
				top[tab] = *s;
			if (*s >= top[tab] + (size_t)inner)
				top[tab] = *s - (size_t)inner + 1;
		}
		for (int y = 0; y < inner && top[tab] + (size_t)y < l->n; y++) {
			size_t i = top[tab] + (size_t)y;
			if (i == *s)
				attron(A_REVERSE);
			put(w, 3 + y, 4, l->v[i], ww - 4);
			if (i == *s)
				attroff(A_REVERSE);
		}
		const char *foot = *s != SIZE_MAX ? " Enter: open it, Backspace: back, Tab: next tab, q: close "
			: ntabs > 1 ? " Tab: next tab, j/k: scroll, Backspace: back, q: close " : " j/k: scroll, q: close ";
		put(w, 2 + hh - 1, 4, foot, ww - 8 < (int)strlen(foot) ? ww - 8 : (int)strlen(foot));
		refresh();
		int k = key();
		size_t nx;
		switch (k) {
		case '\t': case KEY_RIGHT: case KEY_LEFT: case KEY_BTAB:
			tab = (tab + (k == KEY_LEFT || k == KEY_BTAB ? ntabs - 1 : 1)) % ntabs;
			break;
		case 'j': case KEY_DOWN:
			if (*s != SIZE_MAX && (nx = next_link(l, *s, 1)) != SIZE_MAX)
				*s = nx;
			else if (top[tab] + 1 < l->n && (*s == SIZE_MAX || *s > top[tab]))
				top[tab]++;
			break;
		case 'k': case KEY_UP:
			if (*s != SIZE_MAX && (nx = next_link(l, *s, -1)) != SIZE_MAX)
				*s = nx;
			else if (top[tab])
				top[tab]--;
			break;
		case KEY_NPAGE: case ' ':
			top[tab] = top[tab] + (size_t)inner < l->n ? top[tab] + (size_t)inner : top[tab];
			if (*s != SIZE_MAX && *s < top[tab] && (nx = next_link(l, top[tab] - 1, 1)) != SIZE_MAX)
				*s = nx;
			break;
		case KEY_PPAGE:
			top[tab] = top[tab] > (size_t)inner ? top[tab] - (size_t)inner : 0;
			if (*s != SIZE_MAX && *s >= top[tab] + (size_t)inner) {
				nx = next_link(l, top[tab] + (size_t)inner, -1);
				if (nx != SIZE_MAX)
					*s = nx;
			}
			break;
		case KEY_RESIZE:
			break;
		case '\n': case '\r': case KEY_ENTER:
			if (*s != SIZE_MAX)
				return l->tgt[*s];
			return HP_NONE;
		case KEY_BACKSPACE: case 127: case 8: case 'h':
			*back = 1;
			return HP_NONE;
		case 'q': case 27: case 'i': case '?': case ERR:
			return HP_NONE;
		default:
			break;
		}
	}
}

/* The retained sizes with their reference graph, which the referrers in
 * the i pop-up, the leaks and the threads need: from an index it is read
 * (and checked) the first time one of them is asked for, so that the
 * browser opens without it. */
static int graph(struct view *w, const struct hp_retained **out, struct hp_error *err)
{
	if (!w->Rg) {
		int rc = hp_session_retained(w->S, &w->Rg, err);
		if (rc != HP_OK)
			return rc;
	}
	*out = w->Rg;
	return HP_OK;
}

/* L lists the leak suspects' accumulation points and the zombie
 * objects (hprofan leaks with its defaults), found the first time */
static int leaks_view(struct view *w, struct hp_error *err)
{
	if (!w->leaks_done) {
		int rc = HP_OK;
		if (!w->rd)
			rc = hp_session_objread(w->S, &w->rd, err);
		struct hp_leaks_opts lo;
		hp_leaks_opts_init(&lo);
		const struct hp_retained *R = NULL;
		if (rc == HP_OK)
			rc = graph(w, &R, err);
		if (rc == HP_OK)
			rc = hp_leaks_find(w->h, R, w->rd, &lo, &w->leaks, err);
		if (rc != HP_OK)
			return rc;
		w->leaks_done = 1;
		const struct hp_leaks *L = &w->leaks;
		uint32_t *objs = malloc((L->nsuspects + L->nzombies + 1) * sizeof *objs);
		if (!objs)
			return hp_error_set(err, HP_ENOMEM, "out of memory");
		size_t n = 0;
		for (size_t i = 0; i < L->nsuspects; i++)
			objs[n++] = L->suspects[i].acc != HP_NONE ? L->suspects[i].acc : L->suspects[i].obj;
		for (size_t i = 0; i < L->nzombies; i++)
			objs[n++] = L->zombies[i].obj;
		rc = hp_browse_set_list(&w->m, objs, n, err);
		free(objs);
		if (rc != HP_OK)
			return rc;
	}
	int rc = hp_browse_set_view(&w->m, HP_BV_LEAKS, err);
	if (rc == HP_OK && !w->m.nlist)
		snprintf(w->msg, sizeof w->msg, "no leak suspect and no zombie (hprofan leaks says why)");
	return rc;
}

static void show_help(struct view *w)
{
	static const char help[] =
		"j/k, Up/Down      move            PgUp/PgDn, Home/End  page, ends\n"
		"l, Enter, Right   open            h, Left, Backspace   back up\n"
		"s / N / C         sort by size / name / count (again: reverse)\n"
		"a                 retained <-> shallow sizes\n"
		"i                 the object (a thread's: its Thread object): fields,\n"
		"                  referrers, path to a GC root;\n"
		"                  j/k pick a field or referrer, Enter opens it,\n"
		"                  Backspace goes back to the one before\n"
		"/                 search the whole dominator tree for an object whose\n"
		"                  class matches a PCRE2 pattern, and show it\n"
		"n                 the next match (after the last: from the top)\n"
		"f                 only this level's rows whose class matches (empty: all)\n"
		"D / H / R         dominator tree / class histogram / GC roots\n"
		"L                 leaks: suspects' accumulation points, zombies\n"
		"T                 threads (retained); Enter: its frames and the\n"
		"                  objects each frame holds\n"
		"G                 the histogram's top level by classes, packages,\n"
		"                  class loaders, components (--components FILE)\n"
		"q                 quit\n"
		"\n"
		"Columns: flags, size, bar (largest sibling = full), % of the parent,\n"
		"objects (in the dominator subtree; classes: instances), name.\n"
		"Flags: R GC root, C class object, [ array, . dominates nothing, + group.\n"
		"A level of many rows sorts only the rows shown (the rest when reached).\n";
	size_t n = sizeof help;
	char *t = malloc(n);
	if (!t)
		return;
	memcpy(t, help, n);
	struct lines l;
	if (lines_of(t, &l))
		return;
	const char *title = "hprofan browse: keys";
	int back;
	popup(w, &title, &l, 1, &back);
	lines_free(&l);
}

/* writes a value; returns the object it names, HP_NONE when none */
static uint32_t fmt_value(struct view *w, FILE *f, uint8_t type, uint64_t bits)
{
	char lab[800];
	uint32_t obj = HP_NONE;
	switch (type) {
	case HP_T_OBJECT: {
		if (!bits) {
			fputs("null", f);
			break;
		}
		size_t v = hp_heap_find(w->h, bits);
		if (v == SIZE_MAX) {
			fprintf(f, "0x%llx (not in the dump)", (unsigned long long)bits);
			break;
		}
		obj = (uint32_t)v;
		fputs(object_label(w->h, v, lab, sizeof lab), f);
		struct hp_text t;
		struct hp_error err;
		hp_error_clear(&err);
		if (hp_objread_is_string(w->h, v) && hp_objread_text(w->rd, v, TEXT_CHARS, &t, &err) == HP_OK) {
			if (t.utf8) {
				char *q = cli_quote_text(&t);
				if (q)
					fprintf(f, " %s", q);
				hp_free(q);
			}
			hp_objread_text_release(&t);
		}
		break;
	}
	default: {
		char pv[64];
		fputs(cli_prim_text(pv, sizeof pv, type, bits), f);
		break;
	}
	}
	return obj;
}

/* the Fields tab: what the object is, its values, who refers to it; the
 * lines naming an object into *lk */
static char *object_text(struct view *w, uint32_t v, struct links *lk)
{
	char *out = NULL;
	size_t cap = 0;
	FILE *f = open_memstream(&out, &cap);
	if (!f)
		return NULL;
	char lab[800], a[32], b[32], rt[800], nm[600];
	fprintf(f, "%s\n", object_label(w->h, v, lab, sizeof lab));
	fprintf(f, "retained %s B, shallow %s B, %s in its dominator subtree\n",
		fmt_count(w->R->retained[v], a, sizeof a), fmt_count(w->R->shallow[v], b, sizeof b),
		fmt_counted(w->m.subtree[v], "object", "objects", rt, sizeof rt));
	const char *root = cli_root_text(w->h, w->rd, v, rt, sizeof rt);
	if (root[0])
		fprintf(f, "GC root: %s\n", root);
	struct hp_error err;
	hp_error_clear(&err);
	struct hp_objdata d;
	if (hp_objread_decode(w->rd, v, POPUP_ELEMS, &d, &err) != HP_OK) {
		fprintf(f, "cannot read the object: %s\n", err.msg);
	} else {
		if (d.kind == HP_OBJ_INSTANCE || d.kind == HP_OBJ_CLASS) {
			fprintf(f, "\n%s:\n", d.kind == HP_OBJ_CLASS ? "statics" : "fields");
			for (size_t i = 0; i < d.nfields; i++) {
				fprintf(f, "  %s = ", safe_text(d.fields[i].name, nm, sizeof nm));
				link_add(lk, line_no(f, &out), fmt_value(w, f, d.fields[i].type, d.fields[i].bits));
				fputc('\n', f);
			}
			if (!d.nfields)
				fputs("  (none)\n", f);
		} else {
			fprintf(f, "\nlength %u%s\n", d.length, d.nodata ? " (values not in the dump)" : "");
			for (uint32_t i = 0; i < d.nelems; i++) {
				fprintf(f, "  [%u] = ", i);
				link_add(lk, line_no(f, &out), fmt_value(w, f, d.elem_type, d.elems[i]));
				fputc('\n', f);
			}
			if (d.nelems < d.length && !d.nodata)
				fprintf(f, "  ... %u more\n", d.length - d.nelems);
		}
		hp_objread_release(&d);
	}
	struct hp_holders H;
	const struct hp_retained *Rg;
	hp_error_clear(&err);
	if (graph(w, &Rg, &err) != HP_OK)
		fprintf(f, "\nreferrers: %s\n", err.msg);
	else if (hp_paths_holders(&Rg->refs, v, &H, &err) == HP_OK) {
		size_t nr = H.n;
		fprintf(f, "\nreferrers (%zu):\n", nr);
		if (H.class_listed)
			fputs("  (only objects of its class, through <class>)\n", f);
		for (size_t i = 0; i < nr && i < POPUP_REFERRERS; i++) {
			link_add(lk, line_no(f, &out), (uint32_t)H.obj[i]);
			fprintf(f, "  %s\n", object_label(w->h, H.obj[i], lab, sizeof lab));
		}
		if (nr > POPUP_REFERRERS)
			fprintf(f, "  ... %zu more\n", nr - POPUP_REFERRERS);
		if (H.through_class && !H.class_listed)
			fprintf(f, "  and %llu object%s of its class through <class>, not listed\n",
				(unsigned long long)H.through_class, H.through_class == 1 ? "" : "s");
		hp_paths_holders_release(&H);
	}
	if (fclose(f) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

static char *path_text(struct view *w, uint32_t v)
{
	char *out = NULL;
	size_t cap = 0;
	FILE *f = open_memstream(&out, &cap);
	if (!f)
		return NULL;
	size_t np = 0;
	fputs("the shortest path from a GC root:\n", f);
	int rc = cli_show_paths(w->S, v, 1, w->all_weak, f, NULL, &np);
	if (rc == EXIT_OK && !np)
		fputs("  no GC root reaches it\n", f);
	else if (rc != EXIT_OK)
		fputs("  (the search failed)\n", f);
	if (fclose(f) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

/* i: the object under the cursor in a pop-up; Enter on a line naming
 * another object shows that one (Backspace: the one before) */
static void show_info(struct view *w)
{
	const struct hp_brow *r = hp_browse_cur(&w->m);
	uint32_t v;
	if (r && r->kind == HP_BR_THREAD && w->T.t[r->id].obj != SIZE_MAX) {
		v = (uint32_t)w->T.t[r->id].obj;   /* a thread: its Thread object */
	} else if (!r || r->kind != HP_BR_OBJECT) {
		snprintf(w->msg, sizeof w->msg, "i shows an object: open the group or class first");
		return;
	} else {
		v = r->id;
	}
	if (!w->rd) {
		struct hp_error err;
		hp_error_clear(&err);
		if (hp_session_objread(w->S, &w->rd, &err) != HP_OK) {
			snprintf(w->msg, sizeof w->msg, "%.200s: %.250s", w->file, err.msg);
			return;
		}
	}
	uint32_t hist[256];
	size_t nh = 0;
	for (;;) {
		put(w, LINES - 1, 0, " reading the object and searching for a path ...", COLS);
		refresh();
		struct lines tabs[2];
		struct links lk = { NULL, 0, 0 };
		if (lines_of(object_text(w, v, &lk), &tabs[0])) {
			hp_free(lk.v);
			snprintf(w->msg, sizeof w->msg, "out of memory");
			return;
		}
		for (size_t i = 0; i < lk.n; i++)
			if (lk.v[i].line < tabs[0].n)
				tabs[0].tgt[lk.v[i].line] = lk.v[i].obj;
		hp_free(lk.v);
		if (lines_of(path_text(w, v), &tabs[1])) {
			lines_free(&tabs[0]);
			snprintf(w->msg, sizeof w->msg, "out of memory");
			return;
		}
		static const char *const titles[] = { "Object", "Path to GC root" };
		int back;
		uint32_t to = popup(w, titles, tabs, 2, &back);
		lines_free(&tabs[0]);
		lines_free(&tabs[1]);
		if (back && nh) {
			v = hist[--nh];
			continue;
		}
		if (to == HP_NONE)
			return;
		if (nh == sizeof hist / sizeof hist[0]) {   /* the oldest goes */
			memmove(hist, hist + 1, (nh - 1) * sizeof *hist);
			nh--;
		}
		hist[nh++] = v;
		v = to;
	}
}

/* ---- filter ----------------------------------------------------------- */

static int re_match(void *ud, const char *name)
{
	struct view *w = ud;
	int m = cli_regex_match(w->re, name);
	if (m < 0 && !w->re_err)
		w->re_err = m;
	return m > 0;
}

/* reads text on the status line after prompt, starting from pat (of size
 * 256): 1 on Enter, 0 when Esc cancels */
static int ask_text(struct view *w, const char *prompt, char *pat)
{
	size_t n = strlen(pat);
	curs_set(1);
	for (;;) {
		char line[300];
		snprintf(line, sizeof line, "%s%s", prompt, pat);
		attron(A_REVERSE);
		put(w, LINES - 1, 0, line, COLS);
		attroff(A_REVERSE);
		int cols;
		fit(w, line, COLS - 1, &cols);
		move(LINES - 1, cols < COLS - 1 ? cols : COLS - 1);
		refresh();
		int k = key();
		if (k == 27 || k == ERR) {
			curs_set(0);
			return 0;
		}
		if (k == '\n' || k == '\r' || k == KEY_ENTER)
			break;
		if (k == KEY_RESIZE) {
			draw(w);
			continue;
		}
		if (k == KEY_BACKSPACE || k == 127 || k == 8) {
			while (n > 0 && ((unsigned char)pat[n - 1] & 0xc0) == 0x80)
				n--;
			if (n > 0)
				n--;
			pat[n] = '\0';
		} else if (k >= 0x20 && k < 0x100 && n + 1 < 256) {
			pat[n++] = (char)k;
			pat[n] = '\0';
		}
	}
	curs_set(0);
	return 1;
}

/* f: a pattern for the current level's rows; empty clears the filter */
static void ask_filter(struct view *w)
{
	char pat[256] = "";
	struct hp_blevel *L = hp_browse_level(&w->m);
	if (L->filter)
		snprintf(pat, sizeof pat, "%s", L->filter);
	if (!ask_text(w, "filter: ", pat))
		return;
	size_t n = strlen(pat);
	struct hp_error err;
	hp_error_clear(&err);
	if (!n) {
		if (hp_browse_filter(&w->m, NULL, NULL, NULL, &err) != HP_OK)
			snprintf(w->msg, sizeof w->msg, "%.400s", err.msg);
		return;
	}
	char em[300];
	struct cli_regex *re = cli_regex_new(pat, em, sizeof em);
	if (!re) {
		char sp[300];
		snprintf(w->msg, sizeof w->msg, "/%s/: %s", safe_text(pat, sp, sizeof sp), em);
		return;
	}
	w->re = re;
	w->re_err = 0;
	if (hp_browse_filter(&w->m, re_match, w, pat, &err) != HP_OK)
		snprintf(w->msg, sizeof w->msg, "%.400s", err.msg);
	else if (w->re_err) {
		char sp[300], m[200];
		snprintf(w->msg, sizeof w->msg, "/%s/ cannot be matched within its limits on some names (%s): "
			 "they are left out", safe_text(pat, sp, sizeof sp), cli_regex_error(w->re_err, m, sizeof m));
	}
	w->re = NULL;
	cli_regex_free(re);
}

/* / (again 0) and n (again 1): the next object of the dominator tree whose
 * class matches the pattern, shown in the dominator view */
static void search(struct view *w, int again)
{
	char sp[300];
	if (!again) {
		char pat[256];
		snprintf(pat, sizeof pat, "%s", w->search);
		if (!ask_text(w, "/", pat))
			return;
		if (!*pat) {
			snprintf(w->msg, sizeof w->msg, "no pattern: no search");
			return;
		}
		char em[300];
		struct cli_regex *re = cli_regex_new(pat, em, sizeof em);
		if (!re) {
			snprintf(w->msg, sizeof w->msg, "/%s/: %s", safe_text(pat, sp, sizeof sp), em);
			return;
		}
		cli_regex_free(w->search_re);
		w->search_re = re;
		snprintf(w->search, sizeof w->search, "%s", pat);
	} else if (!w->search_re) {
		snprintf(w->msg, sizeof w->msg, "n goes to the next match of a search: / asks for its pattern");
		return;
	}
	safe_text(w->search, sp, sizeof sp);
	char line[400];
	snprintf(line, sizeof line, " searching the dominator tree for /%s/ ...", sp);
	put(w, LINES - 1, 0, line, COLS);
	refresh();
	struct hp_error err;
	hp_error_clear(&err);
	uint32_t v;
	int wrapped;
	w->re = w->search_re;
	w->re_err = 0;
	int rc = hp_browse_search(&w->m, !again, re_match, w, &v, &wrapped, &err);
	w->re = NULL;
	if (rc == HP_OK && v != HP_NONE)
		rc = hp_browse_reveal(&w->m, v, &err);
	if (rc < 0) {
		snprintf(w->msg, sizeof w->msg, "%.400s", err.msg);
		return;
	}
	if (v == HP_NONE) {
		snprintf(w->msg, sizeof w->msg, "/%s/: no object in the dominator tree has a class that matches", sp);
		return;
	}
	char lab[800];
	snprintf(w->msg, sizeof w->msg, "/%s/: %s%s (n: next match)", sp, object_label(w->h, v, lab, sizeof lab),
		 wrapped ? ", from the top again" : "");
}

/* the rows a row opens into, when that many that opening may take a moment */
static uint64_t rows_under(const struct view *w, const struct hp_brow *r)
{
	switch (r->kind) {
	case HP_BR_OBJECT: return w->R->child_off[r->id + 1] - w->R->child_off[r->id];
	case HP_BR_GROUP: return r->n;
	case HP_BR_CLASS: return r->count;
	default: return 0;
	}
}

/* ---- threads and groups ------------------------------------------------ */

/* T: every thread with its retained size, collected the first time */
static int threads_view(struct view *w, struct hp_error *err)
{
	if (!w->threads_done) {
		int rc = HP_OK;
		if (!w->rd)
			rc = hp_session_objread(w->S, &w->rd, err);
		if (rc != HP_OK)
			return rc;
		const hp_heap *h = w->h;
		/* a gzip dump: the Thread objects and their names in forward passes */
		uint32_t *pre = hp_reallocarray(NULL, h->nthreads ? h->nthreads : 1, sizeof *pre);
		if (!pre)
			return hp_error_set(err, HP_ENOMEM, "out of memory");
		size_t np = 0;
		for (size_t i = 0; i < h->nthreads; i++) {
			size_t o = h->threads[i].object_id ? hp_heap_find(h, h->threads[i].object_id) : SIZE_MAX;
			if (o != SIZE_MAX)
				pre[np++] = (uint32_t)o;
		}
		rc = hp_objread_prefetch_text(w->rd, pre, np, err);
		hp_free(pre);
		if (rc == HP_ENOMEM)
			return rc;
		hp_error_clear(err);
		const struct hp_retained *R;
		if ((rc = graph(w, &R, err)) != HP_OK || (rc = hp_threads_collect(h, R, w->rd, &w->T, err)) != HP_OK)
			return rc;
		w->threads_done = 1;
		w->tnames = hp_calloc(w->T.n ? w->T.n : 1, sizeof *w->tnames);
		if (!w->tnames)
			return hp_error_set(err, HP_ENOMEM, "out of memory");
		for (size_t i = 0; i < w->T.n; i++) {
			struct hp_text t;
			char *q = NULL;
			if (cli_thread_text(h, w->rd, w->T.t[i].serial, &t))
				q = cli_quote_text(&t);
			hp_objread_text_release(&t);
			if (!q && (q = hp_malloc(10)) != NULL)
				memcpy(q, "(no name)", 10);
			if (!q)
				return hp_error_set(err, HP_ENOMEM, "out of memory");
			w->tnames[i] = q;
		}
		hp_browse_set_threads(&w->m, &w->T, (const char *const *)w->tnames);
	}
	int rc = hp_browse_set_view(&w->m, HP_BV_THREADS, err);
	if (rc == HP_OK && !w->T.n)
		snprintf(w->msg, sizeof w->msg, "the dump names no threads (no START THREAD records or thread object roots)");
	else if (rc == HP_OK && !w->T.with_frames)
		snprintf(w->msg, sizeof w->msg, "the dump holds no stack frames for its threads (Android dumps write none)");
	return rc;
}

/* a group's name as top --group= shows it */
static char *group_name(const struct view *w, const struct hp_groups *G, size_t i)
{
	const struct hp_group *g = &G->g[i];
	char buf[1200], nm[600];
	if (G->by == HP_GROUP_PACKAGE) {
		snprintf(buf, sizeof buf, "%.*s", g->pkg_len ? (int)(g->pkg_len > 1000 ? 1000 : g->pkg_len) : 12,
			 g->pkg_len ? g->pkg : "(no package)");
	} else if (G->by == HP_GROUP_LOADER) {
		const char *own = hp_group_name(G, i);
		int o;
		if (!g->loader_id)
			o = snprintf(buf, sizeof buf, "<bootstrap>");
		else if (g->loader_class != HP_NONE)
			o = snprintf(buf, sizeof buf, "%s@0x%llx", safe_text(hp_class_name(w->h, g->loader_class), nm, sizeof nm),
				     (unsigned long long)g->loader_id);
		else
			o = snprintf(buf, sizeof buf, "0x%llx (not in the dump)", (unsigned long long)g->loader_id);
		if (own[0] && o > 0 && (size_t)o < sizeof buf)
			snprintf(buf + o, sizeof buf - (size_t)o, " \"%s\"", safe_text(own, nm, sizeof nm));
	} else {
		snprintf(buf, sizeof buf, "%s", hp_group_name(G, i));
	}
	size_t n = strlen(buf) + 1;
	char *t = hp_malloc(n);
	if (t)
		memcpy(t, buf, n);
	return t;
}

/* G: the histogram's top level by the next grouping (classes, packages,
 * loaders, components: that one only with --components FILE) */
static int groups_view(struct view *w, struct hp_error *err)
{
	int by = w->m.view == HP_BV_GROUPS || w->m.view == HP_BV_HISTO ? w->by + 1 : 0;
	if (by == HP_GROUP_COMPONENT && !w->components) {
		snprintf(w->msg, sizeof w->msg, "components need --components FILE (lines NAME REGEX): back to classes");
		by = 3;
	}
	if (by > HP_GROUP_COMPONENT) {
		w->by = -1;
		return hp_browse_set_view(&w->m, HP_BV_HISTO, err);
	}
	if (!w->groups_done[by]) {
		put(w, LINES - 1, 0, " grouping the classes ...", COLS);
		refresh();
		int rc = hp_groups_compute(w->h, w->R, by, NULL, w->comps.comp, (const char *const *)w->comps.names, w->comps.n,
					   &w->G[by], err);
		if (rc == HP_OK && by == HP_GROUP_LOADER) {
			if (!w->rd)
				rc = hp_session_objread(w->S, &w->rd, err);
			if (rc == HP_OK)
				rc = hp_groups_loader_names(&w->G[by], w->h, w->rd, err);
		}
		if (rc != HP_OK) {
			hp_groups_release(&w->G[by]);
			return rc;
		}
		w->groups_done[by] = 1;
		w->gnames[by] = hp_calloc(w->G[by].n ? w->G[by].n : 1, sizeof *w->gnames[by]);
		if (!w->gnames[by])
			return hp_error_set(err, HP_ENOMEM, "out of memory");
		for (size_t i = 0; i < w->G[by].n; i++)
			if (!(w->gnames[by][i] = group_name(w, &w->G[by], i)))
				return hp_error_set(err, HP_ENOMEM, "out of memory");
	}
	w->by = by;
	hp_browse_set_groups(&w->m, &w->G[by], (const char *const *)w->gnames[by]);
	return hp_browse_set_view(&w->m, HP_BV_GROUPS, err);
}

/* ---- the loop --------------------------------------------------------- */

static int run(struct view *w)
{
	struct hp_error err;
	for (int first = 1;; first = 0) {
		draw(w);
		if (first)
			hp_browse_prepare(&w->m);   /* the class views' tables, behind the first screen */
		w->msg[0] = '\0';
		int k = key();
		struct hp_blevel *L = hp_browse_level(&w->m);
		int rc = HP_OK;
		hp_error_clear(&err);
		switch (k) {
		case 'q': return EXIT_OK;
		case ERR: return EXIT_BAD;   /* the terminal is gone (said after endwin) */
		case 'j': case KEY_DOWN: hp_browse_move(&w->m, 1); break;
		case 'k': case KEY_UP: hp_browse_move(&w->m, -1); break;
		case KEY_NPAGE: hp_browse_move(&w->m, list_height()); break;
		case KEY_PPAGE: hp_browse_move(&w->m, -list_height()); break;
		case KEY_HOME: case 'g': hp_browse_goto(&w->m, 0); break;
		case KEY_END: hp_browse_goto(&w->m, SIZE_MAX); break;
		case 'l': case '\n': case '\r': case KEY_ENTER: case KEY_RIGHT: {
			/* a sign of life before a big level */
			const struct hp_brow *cr = hp_browse_cur(&w->m);
			uint64_t big = cr ? rows_under(w, cr) : 0;
			if (big >= 100000) {
				char a[32], line[100];
				snprintf(line, sizeof line, " opening %s rows ...", fmt_count(big, a, sizeof a));
				attron(A_REVERSE);
				put(w, LINES - 1, 0, line, COLS);
				attroff(A_REVERSE);
				refresh();
			}
			rc = hp_browse_descend(&w->m, &err);
			if (rc == 0 && hp_browse_cur(&w->m))
				snprintf(w->msg, sizeof w->msg, "it dominates no other object");
			rc = rc == 1 ? HP_OK : rc;
			break;
		}
		case 'h': case KEY_LEFT: case KEY_BACKSPACE: case 127: case 8:
			hp_browse_ascend(&w->m);
			break;
		case 's': hp_browse_sort(&w->m, HP_BSORT_SIZE); break;
		case 'N': hp_browse_sort(&w->m, HP_BSORT_NAME); break;
		case 'C': hp_browse_sort(&w->m, HP_BSORT_COUNT); break;
		case 'a': hp_browse_toggle_shallow(&w->m); break;
		case 'D': rc = hp_browse_set_view(&w->m, HP_BV_DOM, &err); break;
		case 'H': w->by = -1; rc = hp_browse_set_view(&w->m, HP_BV_HISTO, &err); break;
		case 'R': rc = hp_browse_set_view(&w->m, HP_BV_ROOTS, &err); break;
		case 'L': rc = leaks_view(w, &err); break;
		case 'T': rc = threads_view(w, &err); break;
		case 'G': rc = groups_view(w, &err); break;
		case 'i': show_info(w); break;
		case 'f': ask_filter(w); break;
		case '/': search(w, 0); break;
		case 'n': search(w, 1); break;
		case '?': show_help(w); break;
		case KEY_RESIZE: break;
		default: break;
		}
		(void)L;
		if (rc != HP_OK) {
			snprintf(w->msg, sizeof w->msg, "%.400s", err.msg);
			if (rc == HP_ENOMEM && w->m.depth == 0)
				return EXIT_NOMEM;
		}
	}
}

static int run_browse(struct cli_ctx *x)
{
	const char *file = x->files[0];
	const char *term = getenv("TERM");
	if (!term || !*term || strcmp(term, "dumb") == 0) {
		cli_error("browse needs a terminal that can move the cursor (TERM is %s); try 'hprofan dominators %s'",
			  term && *term ? term : "unset", file);
		return EXIT_USAGE;
	}
	if (!isatty(0) || !isatty(1)) {
		cli_error("browse needs a terminal on standard input and output; try 'hprofan dominators %s'", file);
		return EXIT_USAGE;
	}
	setlocale(LC_ALL, "");
	struct view w;
	memset(&w, 0, sizeof w);
	w.all_weak = x->c->all_weak;
	w.file = file;
	w.by = -1;
	w.components = ((const struct browse_opts *)x->own)->components;
	w.utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	int rc = cli_session(x, file, &w.S);
	if (rc)
		return rc;
	if ((rc = cli_refuse_pipe(w.S, "retained sizes read", "save it to a file (or use --fast for shallow sizes)")) ||
	    (rc = cli_retained_tree(w.S, &w.h, &w.R))) {
		cli_session_close(w.S);
		return rc;
	}
	struct hp_error err;
	hp_error_clear(&err);
	/* a bad components file is a usage error before the screen opens */
	if (w.components && (rc = cli_components_read(w.components, w.h, &w.comps))) {
		cli_session_close(w.S);
		return rc;
	}
	if (hp_browse_init(&w.m, w.h, w.R, &err) != HP_OK) {
		cli_error("%s: %s", file, err.msg);
		cli_session_close(w.S);
		cli_components_release(&w.comps);
		return EXIT_NOMEM;
	}
	/* the paths to GC roots the info popup shows: one more pass now, so
	 * that i answers at once (when it fails, i says so); from an index
	 * that holds them, i reads them when first pressed */
	if (!hp_session_paths_indexed(w.S, w.all_weak)) {
		if (!x->c->quiet && isatty(2))
			fprintf(stderr, "hprofan: %s: searching the paths from GC roots ...", file);
		const struct hp_pathsearch *ps;
		if (hp_session_paths(w.S, w.all_weak, &ps, &err) != HP_OK)
			ps = NULL;     /* i says why when it is pressed */
		if (!x->c->quiet && isatty(2))
			fputs("\r\033[K", stderr);
	}
	if (!getenv("ESCDELAY"))
		set_escdelay(25);
	SCREEN *scr = newterm(NULL, stdout, stdin);
	if (!scr) {
		cli_error("cannot start the terminal '%s'", term);
		rc = EXIT_USAGE;
		goto out;
	}
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	const char *nc = getenv("NO_COLOR");
	if ((!nc || !*nc) && has_colors()) {
		start_color();
		use_default_colors();
		init_pair(1, COLOR_CYAN, -1);
		w.color = 1;
	}
	rc = run(&w);
	cli_regex_free(w.search_re);
	endwin();
	delscreen(scr);
	if (term_gone)
		cli_error("browse: the terminal went away (no more input); stopped");
out:
	hp_browse_release(&w.m);
	if (w.leaks_done)
		hp_leaks_release(&w.leaks);
	if (w.threads_done)
		hp_threads_release(&w.T);
	for (size_t i = 0; w.tnames && i < w.T.n; i++)
		hp_free(w.tnames[i]);
	hp_free(w.tnames);
	cli_components_release(&w.comps);
	for (int b = 0; b < 3; b++) {
		if (w.groups_done[b]) {
			for (size_t i = 0; w.gnames[b] && i < w.G[b].n; i++)
				hp_free(w.gnames[b][i]);
			hp_groups_release(&w.G[b]);
		}
		hp_free(w.gnames[b]);
	}
	cli_session_close(w.S);
	return rc;
}

static const struct cli_option own[] = {
	{ "--components", NULL, OPT_VALUE, "--components FILE",
	  "components for G (the histogram by component):\nlines NAME REGEX, as top --group=component",
	  0, offsetof(struct browse_opts, components), NULL, "needs a file of NAME REGEX lines", NULL },
	{ NULL }
};

static const struct cli_option *const tables[] = {
	own, cli_opts_all_weak, cli_opts_model, cli_opts_policy, cli_opts_load, cli_opts_quiet, NULL
};

const struct cli_command cmd_browse = {
	.name = "browse",
	.usage = "hprofan browse FILE [--components FILE] [options]",
	.summary = "browse interactively (also: FILE -i)",
	.min_files = 1, .max_files = 1,
	.options = tables,
	.own_size = sizeof(struct browse_opts),
	.run = run_browse,
};
