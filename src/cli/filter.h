/*
 * filter.h — what to show (filter.c): class-name patterns (PCRE2),
 * classes and Android heaps named on the command line, --components FILE.
 */
#ifndef HP_CLI_FILTER_H
#define HP_CLI_FILTER_H

#include <stddef.h>
#include <stdint.h>
#include "model/heap.h"

struct cli_filter;
/* NULL patterns match everything; prints the error and returns NULL on a
 * bad pattern (*rc EXIT_USAGE) or no memory (*rc EXIT_NOMEM) */
struct cli_filter *cli_filter_new(const char *include, const char *exclude, int *rc);
/* 1 when name passes, 0 when not, -1 (said why) when a pattern hit PCRE2's
 * match or depth limit on it: a usage error, never taken for "no match" */
int cli_filter_match(const struct cli_filter *f, const char *name);
void cli_filter_free(struct cli_filter *f);
/* The class rows (h->rows) f passes (NULL: all) on Android heap `heap` (-1:
 * any): *in (hp_free it) holds 1 for a row kept, 0 for one not and for a
 * row without objects.  An exit code (said why; *in NULL then). */
int cli_filter_rows(const struct cli_filter *f, const hp_heap *h, int heap, uint8_t **in);
/* The same over a list of texts (a stack's frames): 1 when one of them
 * matches --filter (or there is none) and none matches --exclude */
int cli_filter_match_any(const struct cli_filter *f, const char *const *texts, size_t n);
/* "--filter 'RE'" (--exclude's when no --filter is given), RE made safe for
 * the terminal: the filter a warning says nothing passed */
const char *cli_filter_said(const char *include, const char *exclude, char *buf, size_t n);
/* When --filter matches no class of h, says so on stderr with the nearest
 * class names ("no class matches 'X'; did you mean ..."); 1 then, else 0. */
int cli_filter_check(const struct cli_filter *f, const hp_heap *h, const char *file);
/* "'java.util.HashMap', 'java.util.HashSet'": the (at most three) class
 * names of h nearest pat, into line; how many */
size_t cli_nearest_classes(const hp_heap *h, const char *pat, char *line, size_t n);
/* The class indexes named exactly `name` (one per class loader) into *out
 * (hp_free it), or an error naming the nearest names: an exit code. */
int cli_classes_named(const hp_heap *h, const char *file, const char *name, uint32_t **out, size_t *n);
/* A pattern that is a Java class name as people paste it (letters, digits,
 * '.', '$', '_', trailing "[]") is matched literally, as a substring; a '$'
 * at its end stays the regex anchor ("Thread$"). */
int cli_pattern_is_class_name(const char *pat);
/* The index of Android heap NAME in h, or -1 after saying why (the heaps
 * the dump has) with *rc EXIT_USAGE. */
int cli_heap_named(const hp_heap *h, const char *file, const char *want, int *rc);
/* one pattern, for the browser's filter: NULL and the error in msg on a
 * bad pattern */
struct cli_regex;
struct cli_regex *cli_regex_new(const char *pat, char *msg, size_t n);
/* 1 match, 0 none, < 0 a PCRE2 error (a limit hit): cli_regex_error() */
int cli_regex_match(const struct cli_regex *r, const char *s);
const char *cli_regex_error(int rc, char *buf, size_t n);
void cli_regex_free(struct cli_regex *r);
/* --components FILE: lines NAME REGEX ('#' comments, blank lines), NAME
 * not "other" nor twice; comp[c] the first component whose REGEX matches
 * class c's name (HP_NONE: none, or a class without objects).  Prints
 * what is wrong (with the line; a line past COMPONENTS_LINE_MAX bytes or
 * with a NUL byte with its byte offset too); returns an exit code.  Time
 * linear in the file (the names are hashed), memory one line's buffer and
 * the components. */
#define COMPONENTS_LINE_MAX 65536
struct cli_components { size_t n; char **names; uint32_t *comp; };
int cli_components_read(const char *file, const hp_heap *h, struct cli_components *out);
void cli_components_release(struct cli_components *c);

#endif
