/*
 * dumpsum.h — what diff and trend share: a dump read into a summary
 * (analysis/diff.h), signed figures, a path written out, the summary's
 * header in JSON.
 */
#ifndef HP_CLI_DUMPSUM_H
#define HP_CLI_DUMPSUM_H

#include "cli/command.h"
#include "analysis/diff.h"

/* One dump read and summarised: the histogram only with fast, else retained
 * sizes and the dominator tree's paths.  *S is the open session (the caller
 * closes it; diff keeps it for the ids).  Prints errors; returns an exit code. */
struct cli_dumpgroup {
	int by;                       /* enum hp_group_by (packages: HP_GROUP_PACKAGE_FLAT), -1: none */
	const char *components;       /* --components FILE */
	const char *kind;             /* "package", "loader", "component" */
};
/* With grp->by >= 0 the summary's groups too (hp_dsum_groups()), of the
 * classes --filter and --exclude keep. */
int cli_dump_summary(struct cli_ctx *x, const char *file, int fast, const struct cli_dumpgroup *grp, hp_session **S,
		     struct hp_dsum *sum);
/* --group=KIND and --components FILE of diff and trend into *g: a usage
 * error is said and returned */
int cli_dumpgroup_parse(const char *group, const char *components, int fast, struct cli_dumpgroup *g);

/* "+1.2 MiB", "-512 B", "0 B" */
const char *fmt_dbytes(int64_t v, char *buf, size_t n);
/* "+3,000", "-2", "0" */
const char *fmt_dcount(int64_t v, char *buf, size_t n);
/* "class gen.Growth .SESSIONS → java.util.HashMap .table → ..." safe for
 * the terminal */
const char *fmt_path(const struct hp_cmp *c, uint32_t p, char *buf, size_t n);
/* [{"via": ..., "class": ...}, ...] from the top */
cJSON *json_path(const struct hp_cmp *c, uint32_t p);
/* {"file", "format", "id_size", "partial", "timestamp", "objects", ...} */
cJSON *json_dump_info(const char *file, hp_session *S, const struct hp_dsum *s);
/* The members of every document for a command over several dumps: file,
 * format and id_size those of the last dump, partial when any was salvaged
 * (partial_reason the first one's); infos are json_dump_info() results. */
cJSON *json_multi_begin(const char *command, cJSON *const *infos, size_t n);
/* report: trend's JSON document over n dumps the caller read and
 * summarised (cli_dump_summary()), in the order given; x is a context of
 * cmd_trend (its options).  Takes info[i] into the document (sets them
 * NULL); sum and partial stay the caller's.  Returns an exit code. */
int cli_trend_doc(struct cli_ctx *x, struct hp_dsum *sum, cJSON **info, int *partial, size_t n, cJSON **doc);
/* the signed delta b - a as an exact JSON integer */
cJSON *json_i64_item(int64_t v);

#endif
