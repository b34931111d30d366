/*
 * load_state.h — what the files that open sessions for the commands share
 * (private to load.c, load_progress.c, load_place.c, load_memory.c and
 * load_errors.c; the commands' interface is load.h): the progress line,
 * the table of what the CLI keeps per session, where an index may go and
 * the --max-memory report.
 */
#ifndef HP_CLI_LOAD_STATE_H
#define HP_CLI_LOAD_STATE_H

#include <limits.h>
#include <sys/stat.h>
#include "cli/load.h"
#include "cli/progress.h"

/* ---- load.c ----------------------------------------------------------- */
/* what the CLI keeps per session: its progress display, the options it
 * was opened with, whether the salvage warning was given */
#define MAX_SESSIONS 256
struct cli_sess {
	hp_session *s;
	struct cli_progress p;
	const struct cli_common *c;
	int warned;
	int map_warned;               /* the note that the mapping renamed nothing */
	int spool_warned;             /* the note that no copy of the input was kept */
	int untrusted_said;           /* that the index was not trusted when opened */
	int need_dump;                /* not info: a file without a heap dump is an error */
	char name[512];               /* the file's name, safe for the terminal */
	char index[PATH_MAX + 64];    /* its index, "" for none */
	char spool[PATH_MAX];         /* the directory of its spool (session.h) */
	/* kept open between command lines (cli_sessions_keep()): the options
	 * it was opened with and the file as it was then, to match the next
	 * cli_session() against; in_use while a command line has it */
	int kept, in_use;
	struct hp_session_opts so;
	struct stat st;
	int st_ok;
};
/* S's entry in the table, NULL when it has none */
struct cli_sess *cli_sess_of(const hp_session *S);
/* erases S's progress line */
void cli_progress_stop(hp_session *S);
/* the mapping named nothing of the dump: says so once */
void cli_mapping_note(hp_session *S);

/* ---- load_place.c ----------------------------------------------------- */
/* a directory we may write to */
int cli_dir_writable(const char *dir);
/* where the index of file goes; note (when not NULL) says when a place
 * was passed over; 0, or -1: no index */
int cli_index_place(const char *file, const char *dir_opt, char *out, size_t n, char *note, size_t note_len);

/* ---- load_memory.c ---------------------------------------------------- */
/* "hprofan: FILE: ...; --max-memory is 500 MiB" */
void cli_limit_error(const char *file, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
