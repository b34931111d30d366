/*
 * format.h — numbers, sizes and times as the tables print them
 * (format.c).  Text from the dump is made safe for the terminal by
 * hp_text_safe() (base/text.h).
 */
#ifndef HP_CLI_FORMAT_H
#define HP_CLI_FORMAT_H

#include <stddef.h>
#include <stdint.h>

/* "12,345" */
const char *cli_fmt_count(uint64_t v, char *buf, size_t n);
/* "1 object", "2,048 objects": the count and the noun it takes */
const char *cli_fmt_counted(uint64_t v, const char *one, const char *many, char *buf, size_t n);
/* "1.2 MiB" */
const char *cli_fmt_bytes(uint64_t v, char *buf, size_t n);
/* cli_fmt_bytes() rounded up at the precision shown (a need is never printed
 * below what it is) */
const char *cli_fmt_need(uint64_t v, char *buf, size_t n);
/* "2018-01-14T12:47:39.123Z" */
const char *cli_fmt_time(uint64_t ms, char *buf, size_t n);

#endif
