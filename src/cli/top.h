/*
 * top.h — what the files of `hprofan top` share.
 *
 * cmd_top.c is the command: its options, what it reads (retained sizes,
 * or shallow ones with --fast or from a pipe), the class rows every mode
 * starts from, and the document each mode's table goes into.  Each mode's
 * table is a file of its own, written from its column list (table.h):
 *   top_classes.c  the class histogram, with --buckets and --retained-set
 *   top_groups.c   --group=package|loader|component
 *   top_threads.c  --by-thread
 * A mode's collect fills its part of struct top_result; its text and json
 * write it.  The result is released by cmd_top.c.
 */
#ifndef HP_CLI_TOP_H
#define HP_CLI_TOP_H

#include "cli/cli.h"
#include "cli/command.h"
#include "cli/filter.h"
#include "analysis/group.h"
#include "analysis/buckets.h"
#include "analysis/threads.h"

/* --sort: SORT_DEFAULT when not given (retained, or shallow without them) */
enum { SORT_DEFAULT = 0, SORT_RETAINED, SORT_SHALLOW, SORT_COUNT, SORT_NAME };

/* one class row (a histogram row: a class in a heap) */
struct trow {
	const struct hp_hrow *r;
	const char *name;
	const char *heap;
	uint64_t count, shallow, retained;
	uint64_t native, native_retained;   /* registered native bytes (native.h) */
	uint64_t largest;                   /* its largest object */
};

/* What top found: filled by cmd_top.c's collect and the mode's collect,
 * released by cmd_top.c.  rows[0 .. n) are the class rows that pass the
 * filters, sorted by --sort; the first `shown` of them are shown (of the
 * threads with --by-thread, of the top-level groups with --group). */
struct top_result {
	const hp_heap *h;
	const struct hp_retained *R;  /* NULL: shallow sizes only */
	const struct hp_native *N;    /* with retained sizes: native sizes, else NULL */
	int native_cols;              /* some native size was found: the columns are shown */
	int heap_filter;              /* --heap: its index, else -1 */
	uint64_t tot_native;
	int sort;                     /* SORT_* */
	int android;
	struct trow *rows;
	size_t n, shown;
	uint64_t tot_count, tot_shallow, all_shallow;
	uint64_t set_in, set_objs, set_bytes;   /* --retained-set */
	/* --group */
	int by;                   /* enum hp_group_by, -1: classes */
	unsigned depth;
	struct hp_groups G;
	uint32_t *order;          /* the groups shown, in the order shown */
	uint32_t *rank;           /* their rank among their siblings */
	size_t norder;
	size_t ntop;              /* top-level groups */
	int cut;                  /* --top left groups out of a level */
	uint32_t *child_off, *child; /* packages: children of g at child[child_off[g] .. child_off[g+1]) */
	struct cli_components comps;
	struct hp_bucket_row *buckets;   /* --buckets: per histogram row */
	struct hp_bucket_row bucket_total;   /* over the rows of the table (t->n) */
	int by_thread;
	struct hp_threads_mem M;  /* --by-thread */
	struct hp_text *names;    /* per row of M.t */
};

/* ---- top_classes.c ----------------------------------------------------- */
/* the class table rows t->rows[0 .. t->shown), then the total line */
void top_classes_text(const struct top_result *t, FILE *f);
/* "classes": the rows shown */
void top_classes_json(const struct top_result *t, cJSON *j);
/* --buckets: per histogram row, and summed over the class rows; an exit code */
int top_buckets_collect(struct top_result *t);
/* "buckets" of the total */
cJSON *top_buckets_json(const struct hp_bucket_row *b);
/* --retained-set: the retained set of the objects of the class rows, into
 * t->set_*; an exit code */
int top_retained_set(hp_session *S, struct top_result *t);
/* its line after the table */
void top_retained_set_text(const struct top_result *t, FILE *f);

/* ---- top_groups.c ------------------------------------------------------ */
/* --group's values: enum hp_group_by */
extern const struct cli_choice top_group_choices[];
/* The groups (t->by) of the class rows that pass flt and the heap filter,
 * ordered by t->sort, the first topn of each level (0: all), packages
 * down to t->depth levels; components from the file `components`.  An
 * exit code (said). */
int top_groups_collect(hp_session *S, struct top_result *t, struct cli_filter *flt, int heap_filter,
		       const char *components, size_t topn);
void top_groups_text(const struct top_result *t, FILE *f);
void top_groups_json(const struct top_result *t, cJSON *j);

/* ---- top_threads.c ----------------------------------------------------- */
/* what each thread retains, the first topn shown (0: all); an exit code */
int top_threads_collect(hp_session *S, struct top_result *t, size_t topn);
void top_threads_text(const struct top_result *t, FILE *f);
void top_threads_json(const struct top_result *t, cJSON *j);

#endif
