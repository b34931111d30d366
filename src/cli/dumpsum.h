/*
 * dumpsum.h — what diff and trend share: a dump read into a summary
 * (analysis/diff.h), signed figures, a path written out, the summary's
 * header in JSON.
 */
#ifndef HP_CLI_DUMPSUM_H
#define HP_CLI_DUMPSUM_H

#include "cli/command.h"
#include "analysis/diff.h"

/* --group: the rows of diff and trend */
struct cli_dumpgroup {
	int by;                       /* enum hp_group_by (packages: HP_GROUP_PACKAGE_FLAT), -1: none */
	const char *components;       /* --components FILE */
	const char *kind;             /* "package", "loader", "component" */
};

/* One model for a series of dumps (diff, trend, report).  Sizes follow the
 * size model and retained sizes the weak and roots policies, and each dump
 * has its own defaults (an Android dump's differ from those of its
 * hprof-conv conversion, the same objects): compared under each one's own,
 * the same objects show changes.  So every part of the model is the
 * option's when given, else the first dump's own, for all dumps.  A later
 * dump is read with the chosen policies; when its own size model differs,
 * it is read again under the chosen one, without its index (which stays
 * that of its own model); a pipe, read once, is read under the chosen one
 * at once (its own size model is then not known). */
struct cli_dumpmodel {            /* a dump's own: what it is read under alone */
	int size_kind;                /* enum hp_size_kind; 0: not inferred (--size-model, a pipe) */
	int weak, roots;              /* its default policies (under the size model it was read
	                                 under first); -1 with --fast */
	int differs;                  /* in a part no option chose, from the chosen model */
	int reread;                   /* read again under the chosen size model */
};
struct cli_series {
	struct cli_ctx *x;
	int fast;
	int chosen;                   /* the first dump was read */
	size_t first;                 /* that dump (x->files) */
	int size_kind, weak, roots;   /* the chosen model; weak, roots -1 with --fast */
	size_t ndiffer, first_differ; /* dumps whose own model differs; the first of them */
	struct cli_common probe, forced;   /* x's options with the chosen policies; and size model */
	struct cli_ctx px, fx;        /* x with them (the struct must not move once used) */
};
/* fast: histograms only (no retained sizes, no policies) */
void cli_series_init(struct cli_series *m, struct cli_ctx *x, int fast);
/* Dump x->files[i] read under the series' model (chosen by the first
 * call) and summarised: the histogram only with fast, else retained sizes
 * and the dominator tree's paths; with grp->by >= 0 the summary's groups
 * too (hp_dsum_groups()), of the classes --filter and --exclude keep.  *S
 * is the open session (the caller closes it; diff keeps it for the ids);
 * *own gets the dump's own model.  Prints errors; returns an exit code. */
int cli_series_summary(struct cli_series *m, size_t i, const struct cli_dumpgroup *grp, hp_session **S,
		       struct hp_dsum *sum, struct cli_dumpmodel *own);
/* One line on stderr when some dump's own model differs (own: n dumps). */
void cli_series_warn(const struct cli_series *m, const struct cli_dumpmodel *own, size_t n);
/* "size model ahat, weak skip-weak, roots all" of the chosen model / of a
 * dump's own (the parts known) */
const char *cli_series_words(const struct cli_series *m, char *buf, size_t n);
const char *cli_dumpmodel_words(const struct cli_dumpmodel *own, char *buf, size_t n);
/* where the chosen model comes from: "as given", "FIRST's own", "--size-model
 * as given, the rest FIRST's own" */
const char *cli_series_from(const struct cli_series *m, const char *first, char *buf, size_t n);
/* "compared_under" and "models_differ" into j; a dump's own as
 * "inferred_model" into its dump object */
void cli_json_series_model(cJSON *j, const struct cli_series *m);
void cli_json_dumpmodel(cJSON *info, const struct cli_dumpmodel *own);

/* --fast, --group=KIND and --components FILE: declared once for diff and
 * trend (WHERE: OPT_OWN(struct x_opts, field)); the group is stored as an
 * enum hp_group_by, -1 when not given */
extern const struct cli_choice cli_dumpgroup_choices[];
#define CLI_OPT_SERIES_FAST(...) OPT_FAST("classes by shallow size only, one streaming pass per file", __VA_ARGS__)
#define CLI_OPT_SERIES_GROUP(...) \
	OPT_GROUP(cli_dumpgroup_choices, \
		  "rows by package, class loader (its class and name)\nor component instead of by class", __VA_ARGS__)
#define CLI_OPT_SERIES_COMPONENTS(...) \
	OPT_COMPONENTS("components for --group=component (the default with\nit): lines NAME REGEX, as top's", __VA_ARGS__)
/* and the rules between them */
extern const struct cli_rule *const cli_series_rules[];

/* --group and --components of diff and trend (the rules hold) into *g */
void cli_dumpgroup_parse(int group, const char *components, struct cli_dumpgroup *g);

/* "+1.2 MiB", "-512 B", "0 B" */
const char *cli_fmt_dbytes(int64_t v, char *buf, size_t n);
/* "+3,000", "-2", "0" */
const char *cli_fmt_dcount(int64_t v, char *buf, size_t n);
/* "class gen.Growth .SESSIONS → java.util.HashMap .table → ..." safe for
 * the terminal */
const char *cli_fmt_path(const struct hp_cmp *c, uint32_t p, char *buf, size_t n);
/* [{"via": ..., "class": ...}, ...] from the top */
cJSON *cli_json_path(const struct hp_cmp *c, uint32_t p);
/* {"file", "format", "id_size", "partial", "timestamp", "objects", ...,
 * "size_model", "weak_policy", "roots_policy"}: S is the summary's session */
cJSON *cli_json_dump_info(const char *file, hp_session *S, const struct hp_dsum *s);
/* The members of every document for a command over several dumps: file,
 * format and id_size those of the last dump, partial when any was salvaged
 * (partial_reason the first one's); infos are cli_json_dump_info() results. */
cJSON *cli_json_multi_begin(const char *command, cJSON *const *infos, size_t n);
/* report: trend's JSON document over n dumps the caller read and
 * summarised (cli_series_summary() under sm, their own models in models), in
 * the order given; x is a context of cmd_trend (its options).  Takes
 * info[i] into the document (sets them NULL); sum, partial, sm and models stay
 * the caller's.  Returns an exit code. */
int cli_trend_doc(struct cli_ctx *x, struct hp_dsum *sum, cJSON **info, int *partial, size_t n,
		  const struct cli_series *sm, struct cli_dumpmodel *models, cJSON **doc);
/* the signed delta b - a as an exact JSON integer */
cJSON *cli_json_i64_item(int64_t v);

#endif
