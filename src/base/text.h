/*
 * text.h — text from a dump made safe to show.  A dump's strings are
 * whatever its writer put there (modified UTF-8, control characters,
 * escape sequences, bytes that are no UTF-8 at all); these make them safe
 * for a terminal or a JSON document without losing what they say.  Pure
 * functions: they fill the caller's buffer and print nothing.
 */
#ifndef HP_BASE_TEXT_H
#define HP_BASE_TEXT_H

#include <stddef.h>

/* s for the terminal, into buf (n bytes, always terminated; cut short at
 * a character's boundary when it does not fit): control characters (C0,
 * DEL and the C1 controls U+0080..U+009F, which a terminal may take for
 * CSI and the like), escape sequences and invalid UTF-8 shown as \xNN, a
 * byte each.  Returns buf. */
const char *hp_text_safe(const char *s, char *buf, size_t n);

/* JSON text (cJSON's output) made safe whatever its strings held: invalid
 * UTF-8 becomes U+FFFD, DEL and the C1 controls \u escapes (a DEL byte
 * takes 6).  Returns the length written; with out NULL only counts it, so
 * the caller allocates that plus 1. */
size_t hp_text_json_clean(const char *s, size_t len, char *out);

/* v as the shortest decimal that reads back as the same double (or, with
 * is_float, the same float): "9.4", not "9.39999961853027"; NaN, Infinity
 * and -Infinity as Java writes them.  Into buf (n bytes). */
void hp_text_real(char *buf, size_t n, double v, int is_float);

#endif
