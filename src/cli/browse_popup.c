/* browse_popup.c — the browser's pop-ups: tabs of lines in a box, where
 * the lines that name an object are followed with Enter; i (the object:
 * what it is, its fields or elements, its referrers; its path to a GC
 * root) and ? (the keys).  And the reference graph they need, read the
 * first time. */
#include "cli/browse_view.h"
#include "cli/format.h"
#include "cli/objtext.h"
#include "analysis/paths.h"
#include "base/text.h"
#include "base/alloc.h"

#include <curses.h>
#include <stdlib.h>
#include <string.h>

#define POPUP_ELEMS 32
#define POPUP_REFERRERS 50

#define TEXT_CHARS 80

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
		cli_browse_draw(w);
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
			cli_browse_put(w, 2, x, tb, (int)strlen(tb));
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
			cli_browse_put(w, 3 + y, 4, l->v[i], ww - 4);
			if (i == *s)
				attroff(A_REVERSE);
		}
		const char *foot = *s != SIZE_MAX ? " Enter: open it, Backspace: back, Tab: next tab, q: close "
			: ntabs > 1 ? " Tab: next tab, j/k: scroll, Backspace: back, q: close " : " j/k: scroll, q: close ";
		cli_browse_put(w, 2 + hh - 1, 4, foot, ww - 8 < (int)strlen(foot) ? ww - 8 : (int)strlen(foot));
		refresh();
		int k = cli_browse_key();
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
int cli_browse_graph(struct view *w, const struct hp_retained **out, struct hp_error *err)
{
	if (!w->Rg) {
		int rc = hp_session_retained(w->S, &w->Rg, err);
		if (rc != HP_OK)
			return rc;
	}
	*out = w->Rg;
	return HP_OK;
}

void cli_browse_show_help(struct view *w)
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
		"L                 leaks: ThreadLocal suspects, suspects' accumulation\n"
		"                  points, zombies\n"
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
		fputs(cli_object_label(w->h, v, lab, sizeof lab), f);
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
	fprintf(f, "%s\n", cli_object_label(w->h, v, lab, sizeof lab));
	fprintf(f, "retained %s B, shallow %s B, %s in its dominator subtree\n",
		cli_fmt_count(w->R->retained[v], a, sizeof a), cli_fmt_count(hp_retained_shallow(w->R, v), b, sizeof b),
		cli_fmt_counted(w->m.subtree[v], "object", "objects", rt, sizeof rt));
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
				fprintf(f, "  %s = ", hp_text_safe(d.fields[i].name, nm, sizeof nm));
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
	if (cli_browse_graph(w, &Rg, &err) != HP_OK)
		fprintf(f, "\nreferrers: %s\n", err.msg);
	else if (hp_paths_holders(&Rg->refs, v, &H, &err) == HP_OK) {
		size_t nr = H.n;
		fprintf(f, "\nreferrers (%zu):\n", nr);
		if (H.class_listed)
			fputs("  (only objects of its class, through <class>)\n", f);
		for (size_t i = 0; i < nr && i < POPUP_REFERRERS; i++) {
			link_add(lk, line_no(f, &out), (uint32_t)H.obj[i]);
			fprintf(f, "  %s\n", cli_object_label(w->h, H.obj[i], lab, sizeof lab));
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
void cli_browse_show_info(struct view *w)
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
		cli_browse_put(w, LINES - 1, 0, " reading the object and searching for a path ...", COLS);
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

