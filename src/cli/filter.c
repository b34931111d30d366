/* filter.c — class-name patterns (PCRE2): the one place hprofan compiles
 * and matches a regular expression. */
#include "cli/cli.h"
#include "parser/alloc.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <string.h>

struct cli_regex {
	pcre2_code *re;
	pcre2_match_data *md;
};

static pcre2_code *compile(const char *pat, char *msg, size_t n, size_t *at)
{
	int ec;
	PCRE2_SIZE eo;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED, PCRE2_UTF, &ec, &eo, NULL);
	if (!re) {
		PCRE2_UCHAR m[256];
		pcre2_get_error_message(ec, m, sizeof m);
		snprintf(msg, n, "%s", (char *)m);
		*at = (size_t)eo;
	}
	return re;
}

struct cli_regex *cli_regex_new(const char *pat, char *msg, size_t n)
{
	struct cli_regex *r = hp_calloc(1, sizeof *r);
	if (!r) {
		snprintf(msg, n, "out of memory");
		return NULL;
	}
	char m[256];
	size_t at = 0;
	if (!(r->re = compile(pat, m, sizeof m, &at))) {
		snprintf(msg, n, "bad regular expression at offset %zu: %s", at, m);
		hp_free(r);
		return NULL;
	}
	if (!(r->md = pcre2_match_data_create(4, NULL))) {
		snprintf(msg, n, "out of memory");
		cli_regex_free(r);
		return NULL;
	}
	return r;
}

int cli_regex_match(const struct cli_regex *r, const char *s)
{
	return pcre2_match(r->re, (PCRE2_SPTR)s, strlen(s), 0, 0, r->md, NULL) >= 0;
}

void cli_regex_free(struct cli_regex *r)
{
	if (!r)
		return;
	pcre2_code_free(r->re);
	pcre2_match_data_free(r->md);
	hp_free(r);
}

struct cli_filter {
	struct cli_regex *inc, *exc;
};

static struct cli_regex *pattern(const char *pat, const char *opt, int *rc)
{
	char msg[400];
	struct cli_regex *r = cli_regex_new(pat, msg, sizeof msg);
	if (!r) {
		if (!strcmp(msg, "out of memory")) {
			cli_error("out of memory");
			*rc = EXIT_NOMEM;
		} else {
			cli_error("%s '%s': %s", opt, pat, msg);
			*rc = EXIT_USAGE;
		}
	}
	return r;
}

struct cli_filter *cli_filter_new(const char *include, const char *exclude, int *rc)
{
	*rc = EXIT_OK;
	struct cli_filter *f = hp_calloc(1, sizeof *f);
	if (!f) {
		cli_error("out of memory");
		*rc = EXIT_NOMEM;
		return NULL;
	}
	if ((include && !(f->inc = pattern(include, "--filter", rc))) ||
	    (exclude && !(f->exc = pattern(exclude, "--exclude", rc)))) {
		cli_filter_free(f);
		return NULL;
	}
	return f;
}

int cli_filter_match(const struct cli_filter *f, const char *name)
{
	if (!f)
		return 1;
	if (f->inc && !cli_regex_match(f->inc, name))
		return 0;
	if (f->exc && cli_regex_match(f->exc, name))
		return 0;
	return 1;
}

void cli_filter_free(struct cli_filter *f)
{
	if (!f)
		return;
	cli_regex_free(f->inc);
	cli_regex_free(f->exc);
	hp_free(f);
}
