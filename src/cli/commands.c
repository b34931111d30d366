/* commands.c — the command table: every command, in the order help lists
 * them (command.h).  A new command is a cmd_X.c and a line here. */
#include "cli/command.h"

#include <string.h>

extern const struct cli_command cmd_top, cmd_info, cmd_dominators, cmd_roots, cmd_instances, cmd_object, cmd_path,
	cmd_browse, cmd_redact;
/* comparing dumps */
extern const struct cli_command cmd_diff, cmd_trend;
extern const struct cli_command cmd_leaks;
extern const struct cli_command cmd_waste;
extern const struct cli_command cmd_threads, cmd_sites;
/* Android bitmaps */
extern const struct cli_command cmd_bitmaps;
/* top components */
extern const struct cli_command cmd_components;
extern const struct cli_command cmd_index;
extern const struct cli_command cmd_report;
extern const struct cli_command cmd_sql, cmd_idom, cmd_merge_paths, cmd_group_by_value, cmd_refs;
/* CI budgets */
extern const struct cli_command cmd_check;
extern const struct cli_command cmd_mcp;
extern const struct cli_command cmd_serve;
/* taking a dump */
extern const struct cli_command cmd_capture;

const struct cli_command *const cli_commands[] = {
	&cmd_top, &cmd_info, &cmd_dominators, &cmd_roots, &cmd_instances, &cmd_object, &cmd_path, &cmd_browse,
	&cmd_redact,
	/* comparing dumps */
	&cmd_diff, &cmd_trend,
	&cmd_leaks,
	&cmd_waste,
	&cmd_threads, &cmd_sites,
	/* Android bitmaps */
	&cmd_bitmaps,
	/* top components */
	&cmd_components,
	&cmd_index,
	&cmd_report,
	&cmd_sql,
	&cmd_idom,
	&cmd_merge_paths,
	&cmd_group_by_value,
	&cmd_refs,
	&cmd_check,
	&cmd_mcp,
	&cmd_serve,
	&cmd_capture,
	NULL
};

const struct cli_command *cli_command_find(const char *name)
{
	for (const struct cli_command *const *c = cli_commands; *c; c++)
		if (!strcmp((*c)->name, name))
			return *c;
	return NULL;
}
