/* browse_draw.c — the browser's screen: text fitted to its columns and
 * made safe for the terminal, each row's flags, label and bar, the path
 * line, the status bar; and the one key reader every loop waits on (it
 * notices when the terminal is gone). */
#include "cli/browse_view.h"
#include "cli/format.h"
#include "cli/objtext.h"
#include "base/text.h"

#include <curses.h>
#include <errno.h>
#include <string.h>
#include <wchar.h>

/* Input is blocking, so getch() gives ERR only when no key can come: the
 * terminal is gone (a hang-up with SIGHUP ignored, end of input, EIO).
 * Every loop that waits for a key then ends instead of spinning. */
int cli_browse_term_gone;

int cli_browse_key(void)
{
	for (int tries = 0; tries < 100; tries++) {
		errno = 0;
		int k = getch();
		if (k != ERR)
			return k;
		if (errno != EINTR)
			break;
	}
	cli_browse_term_gone = 1;
	return ERR;
}

/* ---- text on screen --------------------------------------------------- */

/* Bytes of s that fill at most width columns; *cols gets the columns used. */
size_t cli_browse_fit(const struct view *w, const char *s, int width, int *cols)
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
void cli_browse_put(const struct view *w, int y, int x, const char *s, int width)
{
	if (width <= 0)
		return;
	char buf[2048], safe[2048];
	const char *t = hp_text_safe(s, safe, sizeof safe);   /* no control character reaches the screen */
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
	size_t n = cli_browse_fit(w, t, width, &cols);
	if (t[n]) {   /* cut: make room for the mark */
		n = cli_browse_fit(w, t, width - 1, &cols);
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
		return cli_object_label(w->h, r->id, buf, n);
	case HP_BR_GROUP:
		snprintf(buf, n, "[%s %s %s]", cli_fmt_count(r->n, a, sizeof a), w->utf8 ? "\xc3\x97" : "x",
			 hp_text_safe(hp_class_name(w->h, r->id), nm, sizeof nm));
		return buf;
	case HP_BR_CLASS:
		return hp_text_safe(hp_class_name(w->h, r->id), buf, n);
	case HP_BR_THREAD: {
		const struct hp_thread_info *t = &w->T.t[r->id];
		char lab[800];
		snprintf(buf, n, "%s serial %u%s%s%s%s%s", w->tnames[r->id], t->serial, t->daemon > 0 ? " daemon" : "",
			 t->state ? " " : "", t->state ? t->state : "", t->obj != SIZE_MAX ? "  " : "  (no Thread object)",
			 t->obj != SIZE_MAX ? cli_object_label(w->h, t->obj, lab, sizeof lab) : "");
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
		return hp_text_safe(w->m.gnames[r->id], buf, n);
	case HP_BR_TLS:
		return hp_text_safe(hp_browse_name(&w->m, r), buf, n);
	default:
		snprintf(buf, n, "%s (%s root records)", hp_root_kind_name((int)r->id),
			 cli_fmt_count(w->h->roots_by_kind[r->id], a, sizeof a));
		return buf;
	}
}

/* flag column: GC root, then class object, array, leaf or group */
static void row_flags(const struct view *w, const struct hp_brow *r, char f[3])
{
	f[0] = f[1] = ' ';
	f[2] = '\0';
	if (r->kind == HP_BR_GROUP || r->kind == HP_BR_TLS) {
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
		return cli_object_label(w->h, L->node, buf, n);
	case HP_BL_GROUP:
		snprintf(buf, n, "[%s %s %s]", cli_fmt_count(L->nrows, a, sizeof a), w->utf8 ? "\xc3\x97" : "x",
			 hp_text_safe(hp_class_name(w->h, L->node), nm, sizeof nm));
		return buf;
	case HP_BL_HISTO: return "classes";
	case HP_BL_INSTANCES:
		snprintf(buf, n, "instances of %s", hp_text_safe(hp_class_name(w->h, L->node), nm, sizeof nm));
		return buf;
	case HP_BL_KINDS: return "GC roots";
	case HP_BL_LIST:
		return w->m.ntls ? "leak suspects (ThreadLocals, accumulation points) and zombies" :
				   "leak suspects (accumulation points) and zombies";
	case HP_BL_THREADS: return "threads";
	case HP_BL_STACK:
		snprintf(buf, n, "thread %s", w->tnames[L->node]);
		return buf;
	case HP_BL_CGROUPS: {
		static const char *const by[] = { "classes by package", "classes by class loader", "classes by component" };
		return by[w->m.G->by];
	}
	case HP_BL_CGROUP:
		return hp_text_safe(w->m.gnames[L->node], buf, n);
	case HP_BL_TLVALUES:
		snprintf(buf, n, "the values of %s", hp_text_safe(w->m.tls[L->node].name, nm, sizeof nm));
		return buf;
	default: return hp_root_kind_name((int)L->node);
	}
}

int cli_browse_list_height(void)
{
	return LINES - 3 > 1 ? LINES - 3 : 1;
}

static void bar_attr(const struct view *w, int on)
{
	if (w->color)
		on ? attron(COLOR_PAIR(1)) : attroff(COLOR_PAIR(1));
}

void cli_browse_draw(struct view *w)
{
	erase();
	struct hp_browse *m = &w->m;
	struct hp_blevel *L = hp_browse_level(m);
	char buf[2048], a[32], b[32], c[32];
	static const char *const views[] = { "dominator tree", "class histogram", "GC roots", "leaks", "threads",
					      "class histogram" };

	attron(A_REVERSE);
	snprintf(buf, sizeof buf, " hprofan: %s of %s  (? help, q quit)", views[m->view], w->file);
	cli_browse_put(w, 0, 0, buf, COLS);
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
	while (*ps && (cli_browse_fit(w, ps, INT32_MAX / 2, &pcols), pcols > COLS - 2))
		do
			ps++;
		while (((unsigned char)*ps & 0xc0) == 0x80);   /* whole characters */
	cli_browse_put(w, 1, 0, ps == path ? path : ps, COLS);

	/* the list */
	int H = cli_browse_list_height();
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
			snprintf(buf, sizeof buf, "%*s%11s ", fixed - 12, "", cli_fmt_count(r->count, b, sizeof b));
			cli_browse_put(w, 2 + y, 0, buf, fixed);
			cli_browse_put(w, 2 + y, fixed, row_label(w, r, lab, sizeof lab), COLS - fixed);
			if (sel)
				attroff(A_REVERSE);
			continue;
		}
		snprintf(buf, sizeof buf, "%s %9s ", fl, cli_fmt_bytes(sz, a, sizeof a));
		cli_browse_put(w, 2 + y, x, buf, 13);
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
		snprintf(buf, sizeof buf, "%5.1f%% %11s ", pct, cli_fmt_count(r->count, b, sizeof b));
		cli_browse_put(w, 2 + y, x, buf, 6 + 1 + 11 + 1);
		x += 19;
		char lab[1024];
		if (L->kind == HP_BL_STACK) {   /* a frame's local, under it */
			char ind[1100];
			snprintf(ind, sizeof ind, "  %s", row_label(w, r, lab, sizeof lab));
			cli_browse_put(w, 2 + y, x, ind, COLS - fixed);
		} else {
			cli_browse_put(w, 2 + y, x, row_label(w, r, lab, sizeof lab), COLS - fixed);
		}
		if (sel)
			attroff(A_REVERSE);
	}
	if (!L->nvis)
		cli_browse_put(w, 3, 2, L->filter ? "no rows match the filter" : "nothing here", COLS - 4);

	/* status bar */
	static const char *const keys[] = { "size", "name", "count" };
	const struct hp_brow *cur = hp_browse_cur(m);
	if (w->msg[0]) {
		snprintf(buf, sizeof buf, " %s", w->msg);
	} else {
		char d[32];
		int o = snprintf(buf, sizeof buf, " %s | sort %s%s | %s/%s rows", m->shallow ? "shallow" : "retained",
				 keys[m->sort], m->reverse ? " (reversed)" : "",
				 cli_fmt_count(L->nvis ? L->cursor + 1 : 0, d, sizeof d), cli_fmt_count(L->nvis, a, sizeof a));
		if (L->filter)
			o += snprintf(buf + o, sizeof buf - (size_t)o, " | /%s/", L->filter);
		if (cur && cur->kind == HP_BR_FRAME && o < (int)sizeof buf)
			snprintf(buf + o, sizeof buf - (size_t)o, " | a frame: it holds %s",
				 cli_fmt_counted(cur->count, "object", "objects", b, sizeof b));
		else if (cur && o < (int)sizeof buf)
			snprintf(buf + o, sizeof buf - (size_t)o, " | retained %s B, shallow %s B",
				 cli_fmt_count(cur->retained, b, sizeof b), cli_fmt_count(cur->shallow, c, sizeof c));
	}
	attron(A_REVERSE);
	cli_browse_put(w, LINES - 1, 0, buf, COLS);
	attroff(A_REVERSE);
	refresh();
}
