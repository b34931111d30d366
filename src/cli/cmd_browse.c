/*
 * hprofan browse FILE (hprofan FILE -i): the interactive browser, ncdu's
 * browser.c over the list model in src/cli/browse_model.h.  This file holds
 * the key loop and what the keys ask for: the filter and the search typed
 * on the status line, and the views beyond the dominator tree, gathered
 * the first time they are asked for: the leak suspects (L), the threads
 * and their names (T), the groups of the histogram (G, with --components
 * FILE read before the screen opens).  browse_draw.c draws the screen
 * (title bar, path line, list, status bar) and reads keys, browse_popup.c
 * shows the pop-ups for an object (fields and referrers, each line naming
 * an object followed by Enter; the path to a GC root) and for help;
 * browse_view.h is what they share.
 */
#include "cli/command.h"
#include "cli/browse_view.h"
#include "cli/msg.h"
#include "cli/format.h"
#include "cli/filter.h"
#include "cli/load.h"
#include "cli/objtext.h"
#include "base/text.h"
#include "base/alloc.h"

#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct browse_opts {
	const char *components;   /* --components FILE */
};

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
		cli_browse_put(w, LINES - 1, 0, line, COLS);
		attroff(A_REVERSE);
		int cols;
		cli_browse_fit(w, line, COLS - 1, &cols);
		move(LINES - 1, cols < COLS - 1 ? cols : COLS - 1);
		refresh();
		int k = cli_browse_key();
		if (k == 27 || k == ERR) {
			curs_set(0);
			return 0;
		}
		if (k == '\n' || k == '\r' || k == KEY_ENTER)
			break;
		if (k == KEY_RESIZE) {
			cli_browse_draw(w);
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
		snprintf(w->msg, sizeof w->msg, "/%s/: %s", hp_text_safe(pat, sp, sizeof sp), em);
		return;
	}
	w->re = re;
	w->re_err = 0;
	if (hp_browse_filter(&w->m, re_match, w, pat, &err) != HP_OK)
		snprintf(w->msg, sizeof w->msg, "%.400s", err.msg);
	else if (w->re_err) {
		char sp[300], m[200];
		snprintf(w->msg, sizeof w->msg, "/%s/ cannot be matched within its limits on some names (%s): "
			 "they are left out", hp_text_safe(pat, sp, sizeof sp), cli_regex_error(w->re_err, m, sizeof m));
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
			snprintf(w->msg, sizeof w->msg, "/%s/: %s", hp_text_safe(pat, sp, sizeof sp), em);
			return;
		}
		cli_regex_free(w->search_re);
		w->search_re = re;
		snprintf(w->search, sizeof w->search, "%s", pat);
	} else if (!w->search_re) {
		snprintf(w->msg, sizeof w->msg, "n goes to the next match of a search: / asks for its pattern");
		return;
	}
	hp_text_safe(w->search, sp, sizeof sp);
	char line[400];
	snprintf(line, sizeof line, " searching the dominator tree for /%s/ ...", sp);
	cli_browse_put(w, LINES - 1, 0, line, COLS);
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
	snprintf(w->msg, sizeof w->msg, "/%s/: %s%s (n: next match)", sp, cli_object_label(w->h, v, lab, sizeof lab),
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

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* the ThreadLocal suspects as leaks names them ("ThreadLocal
 * ShopServer.AUDIT in 4 threads"), each with its values in every thread */
static int tl_suspects(struct view *w, struct hp_error *err)
{
	const struct hp_leaks *L = &w->leaks;
	const hp_heap *h = w->h;
	size_t n = L->ntls;
	if (!n)
		return HP_OK;
	char **names = calloc(n, sizeof *names);
	uint64_t *ret = calloc(n, sizeof *ret);
	size_t *off = calloc(n + 1, sizeof *off);
	uint32_t *vals = malloc((L->tl.n + 1) * sizeof *vals);
	int rc = names && ret && off && vals ? HP_OK : hp_error_set(err, HP_ENOMEM, "out of memory");
	size_t k = 0;
	for (size_t t = 0; t < n && rc == HP_OK; t++) {
		const struct hp_leak_tl *T = &L->tls[t];
		const struct hp_tl_key *K = &L->tl.keys[T->key];
		char lab[800], c[32], buf[1200];
		if (K->tl == HP_NONE)
			snprintf(buf, sizeof buf, "stale ThreadLocal entries");
		else if (K->holder != HP_NONE)
			snprintf(buf, sizeof buf, "ThreadLocal %s", K->name);
		else
			snprintf(buf, sizeof buf, "ThreadLocal %s", cli_object_label(h, K->tl, lab, sizeof lab));
		size_t l = strlen(buf);
		snprintf(buf + l, sizeof buf - l, " in %s", cli_fmt_counted(K->threads, "thread", "threads", c, sizeof c));
		if (!(names[t] = strdup(buf))) {
			rc = hp_error_set(err, HP_ENOMEM, "out of memory");
			break;
		}
		ret[t] = K->retained;
		off[t] = k;
		size_t first = k;
		for (size_t i = 0; i < L->tl.n; i++) {
			const struct hp_tl_entry *E = &L->tl.e[i];
			if (E->key == T->key && E->value != HP_NONE)
				vals[k++] = E->value;
		}
		/* a value two threads share: once */
		qsort(vals + first, k - first, sizeof *vals, u32_cmp);
		size_t u = first;
		for (size_t j = first; j < k; j++)
			if (u == first || vals[u - 1] != vals[j])
				vals[u++] = vals[j];
		k = u;
	}
	if (rc == HP_OK) {
		off[n] = k;
		rc = hp_browse_set_tls(&w->m, n, (const char *const *)names, ret, off, vals, err);
	}
	for (size_t t = 0; names && t < n; t++)
		free(names[t]);
	free(names);
	free(ret);
	free(off);
	free(vals);
	return rc;
}

/* L lists the leak suspects as hprofan leaks (with its defaults) gives
 * them: the ThreadLocal suspects, the other suspects' accumulation points
 * (a Thread suspect folded into a ThreadLocal one is not listed), and the
 * zombie objects; found the first time */
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
			rc = cli_browse_graph(w, &R, err);
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
			if (!L->suspect_tl || L->suspect_tl[i] == HP_NONE)
				objs[n++] = L->suspects[i].acc != HP_NONE ? L->suspects[i].acc : L->suspects[i].obj;
		for (size_t i = 0; i < L->nzombies; i++)
			objs[n++] = L->zombies[i].obj;
		rc = hp_browse_set_list(&w->m, objs, n, err);
		free(objs);
		if (rc == HP_OK)
			rc = tl_suspects(w, err);
		if (rc != HP_OK)
			return rc;
	}
	int rc = hp_browse_set_view(&w->m, HP_BV_LEAKS, err);
	if (rc == HP_OK && !w->m.nlist && !w->m.ntls)
		snprintf(w->msg, sizeof w->msg, "no leak suspect and no zombie (hprofan leaks says why)");
	return rc;
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
		if ((rc = cli_browse_graph(w, &R, err)) != HP_OK || (rc = hp_threads_collect(h, R, w->rd, &w->T, err)) != HP_OK)
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
			o = snprintf(buf, sizeof buf, "%s@0x%llx", hp_text_safe(hp_class_name(w->h, g->loader_class), nm, sizeof nm),
				     (unsigned long long)g->loader_id);
		else
			o = snprintf(buf, sizeof buf, "0x%llx (not in the dump)", (unsigned long long)g->loader_id);
		if (own[0] && o > 0 && (size_t)o < sizeof buf)
			snprintf(buf + o, sizeof buf - (size_t)o, " \"%s\"", hp_text_safe(own, nm, sizeof nm));
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
		cli_browse_put(w, LINES - 1, 0, " grouping the classes ...", COLS);
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
		cli_browse_draw(w);
		if (first)
			hp_browse_prepare(&w->m);   /* the class views' tables, behind the first screen */
		w->msg[0] = '\0';
		int k = cli_browse_key();
		struct hp_blevel *L = hp_browse_level(&w->m);
		int rc = HP_OK;
		hp_error_clear(&err);
		switch (k) {
		case 'q': return EXIT_OK;
		case ERR: return EXIT_BAD;   /* the terminal is gone (said after endwin) */
		case 'j': case KEY_DOWN: hp_browse_move(&w->m, 1); break;
		case 'k': case KEY_UP: hp_browse_move(&w->m, -1); break;
		case KEY_NPAGE: hp_browse_move(&w->m, cli_browse_list_height()); break;
		case KEY_PPAGE: hp_browse_move(&w->m, -cli_browse_list_height()); break;
		case KEY_HOME: case 'g': hp_browse_goto(&w->m, 0); break;
		case KEY_END: hp_browse_goto(&w->m, SIZE_MAX); break;
		case 'l': case '\n': case '\r': case KEY_ENTER: case KEY_RIGHT: {
			/* a sign of life before a big level */
			const struct hp_brow *cr = hp_browse_cur(&w->m);
			uint64_t big = cr ? rows_under(w, cr) : 0;
			if (big >= 100000) {
				char a[32], line[100];
				snprintf(line, sizeof line, " opening %s rows ...", cli_fmt_count(big, a, sizeof a));
				attron(A_REVERSE);
				cli_browse_put(w, LINES - 1, 0, line, COLS);
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
		case 'i': cli_browse_show_info(w); break;
		case 'f': ask_filter(w); break;
		case '/': search(w, 0); break;
		case 'n': search(w, 1); break;
		case '?': cli_browse_show_help(w); break;
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
	if (cli_browse_term_gone)
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
	OPT_COMPONENTS("components for G (the histogram by component):\nlines NAME REGEX, as top --group=component", OPT_OWN(struct browse_opts, components)),
	OPT_END
};

CLI_COMMAND(browse, "hprofan browse FILE", "browse interactively (also: FILE -i)",
	    CLI_FILES(1, 1), CLI_OWN(struct browse_opts, NULL), .run = run_browse,
	    CLI_TABLES(own, cli_opts_all_weak, cli_opts_model, cli_opts_policy, cli_opts_load, cli_opts_quiet));
