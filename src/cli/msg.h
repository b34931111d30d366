/*
 * msg.h — the messages on stderr, in git's voice ("hprofan: FILE: offset
 * 0x1a2b (record 4711, HEAP DUMP SEGMENT): ..."), and the exit code of a
 * library status.  Every message goes through hp_text_safe(): what it quotes
 * from a dump or a file name never reaches the terminal as control
 * characters.  A room of its own, so that every cli file can say what went
 * wrong without depending on the files that open sessions or write output.
 */
#ifndef HP_CLI_MSG_H
#define HP_CLI_MSG_H

#include <stdarg.h>
#include <stddef.h>
#include "base/error.h"

/* PREFIX, the message, a newline */
void cli_vmessage(const char *prefix, const char *fmt, va_list ap);
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "hprofan: MSG" and the line that says where help is; returns EXIT_USAGE.
 * cmd NULL: the command named on the command line (cli_named_command),
 * else the general help. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* the command the command line named, for "try 'hprofan help X'"; NULL
 * when it named none (main() sets it) */
extern const char *cli_named_command;
/* exit code for an HP_E* status */
int cli_exit_code(int hp_status);
/* "FILE: offset 123 (0x7b) (record 4, HEAP DUMP SEGMENT): MSG", or
 * "FILE: MSG" for an error without a position */
void cli_format_error(const char *file, const struct hp_error *e, char *buf, size_t n);
/* the error e says (cli_format_error()) printed; returns the exit code for
 * status hp_status */
int cli_fail(const char *file, const struct hp_error *e, int hp_status);

#endif
