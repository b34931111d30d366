/*
 * browse_view.h — what the files of the interactive browser share
 * (private to cmd_browse.c, browse_draw.c and browse_popup.c): struct
 * view, one browse session over the list model (browse_model.h) with what
 * the views beyond the dominator tree gathered, and the functions each
 * file gives the others.
 */
#ifndef HP_CLI_BROWSE_VIEW_H
#define HP_CLI_BROWSE_VIEW_H

#include "cli/cli.h"
#include "cli/filter.h"
#include "cli/browse_model.h"
#include "analysis/leaks.h"
#include "analysis/threads.h"
#include "analysis/group.h"
#include "model/objread.h"
#include "session/session.h"

struct view {
	int all_weak;           /* paths in the i pop-up */
	hp_session *S;
	const char *file;
	const hp_heap *h;
	const struct hp_retained *R;    /* the dominator tree and sizes (from an index: without the graph) */
	const struct hp_retained *Rg;   /* with the reference graph too: cli_browse_graph() */
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

/* ---- browse_draw.c: the screen ---------------------------------------- */
/* set when no key can come any more: the terminal is gone */
extern int cli_browse_term_gone;
/* the next key, ERR when the terminal is gone (every loop then ends) */
int cli_browse_key(void);
/* Bytes of s that fill at most width columns; *cols gets the columns used. */
size_t cli_browse_fit(const struct view *w, const char *s, int width, int *cols);
/* s in at most width columns at (y, x), cut with '~' when too long, padded */
void cli_browse_put(const struct view *w, int y, int x, const char *s, int width);
/* the rows of the list on screen */
int cli_browse_list_height(void);
/* the screen: title bar, path line, list, status bar */
void cli_browse_draw(struct view *w);

/* ---- browse_popup.c: the pop-ups --------------------------------------- */
/* the retained sizes with their reference graph, read the first time */
int cli_browse_graph(struct view *w, const struct hp_retained **out, struct hp_error *err);
/* ?: the keys */
void cli_browse_show_help(struct view *w);
/* i: the object under the cursor: its fields, referrers, path to a GC root */
void cli_browse_show_info(struct view *w);

#endif
