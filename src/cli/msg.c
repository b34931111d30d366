/* msg.c — the messages on stderr and the exit codes of the library's
 * statuses (msg.h). */
#include "cli/msg.h"
#include "cli/cli.h"
#include "base/text.h"

#include <stdio.h>

/* every message goes through hp_text_safe: what it quotes from the dump (or
 * from a file name) cannot reach the terminal as control characters */
void cli_vmessage(const char *prefix, const char *fmt, va_list ap)
{
	char msg[4096], safe[4096];
	vsnprintf(msg, sizeof msg, fmt, ap);
	fprintf(stderr, "%s%s\n", prefix, hp_text_safe(msg, safe, sizeof safe));
}

void cli_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cli_vmessage("hprofan: ", fmt, ap);
	va_end(ap);
}

void cli_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cli_vmessage("hprofan: warning: ", fmt, ap);
	va_end(ap);
}

int cli_exit_code(int rc)
{
	switch (rc) {
	case HP_OK: return EXIT_OK;
	case HP_ETRUNC: return EXIT_TRUNC;
	case HP_ENOMEM: return EXIT_NOMEM;
	case HP_EUSAGE: return EXIT_USAGE;
	default: return EXIT_BAD;
	}
}

void cli_format_error(const char *file, const struct hp_error *e, char *buf, size_t n)
{
	if (e->has_pos) {
		char where[160] = "";
		if (e->record) {
			const char *tn = e->tag >= 0 ? hp_tag_name(e->tag) : NULL;
			if (tn)
				snprintf(where, sizeof where, " (record %llu, %s)", (unsigned long long)e->record, tn);
			else if (e->tag >= 0)
				snprintf(where, sizeof where, " (record %llu, tag 0x%02x)", (unsigned long long)e->record, e->tag);
			else
				snprintf(where, sizeof where, " (record %llu)", (unsigned long long)e->record);
		} else {
			snprintf(where, sizeof where, " (header)");
		}
		snprintf(buf, n, "%s: offset %llu (0x%llx)%s: %s", file, (unsigned long long)e->offset,
			 (unsigned long long)e->offset, where, e->msg);
	} else {
		snprintf(buf, n, "%s: %s", file, e->msg);
	}
}

const char *cli_named_command;

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cli_vmessage("hprofan: ", fmt, ap);
	va_end(ap);
	if (!cmd)
		cmd = cli_named_command;
	if (cmd)
		fprintf(stderr, "hprofan: try 'hprofan help %s'\n", cmd);
	else
		fputs("hprofan: try 'hprofan --help'\n", stderr);
	return EXIT_USAGE;
}

int cli_fail(const char *file, const struct hp_error *e, int hp_status)
{
	char msg[900];
	cli_format_error(file, e, msg, sizeof msg);
	cli_error("%s", msg);
	return cli_exit_code(hp_status);
}
