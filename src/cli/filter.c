/* filter.c — class-name patterns (PCRE2): the one place hprofan compiles
 * and matches a regular expression. */
#include "cli/cli.h"
#include "parser/alloc.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <string.h>

/* Steps one match may take: a class name is short, so a pattern that needs
 * more backtracks catastrophically ("(a+)+$"): a usage error, not "no match". */
#define MATCH_LIMIT 200000
#define DEPTH_LIMIT 5000

struct cli_regex {
	pcre2_code *re;
	pcre2_match_data *md;
	pcre2_match_context *mc;
	char *pat;
	int jit;
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
	if (!(r->md = pcre2_match_data_create(4, NULL)) || !(r->mc = pcre2_match_context_create(NULL)) ||
	    !(r->pat = hp_strdup(pat))) {
		snprintf(msg, n, "out of memory");
		cli_regex_free(r);
		return NULL;
	}
	pcre2_set_match_limit(r->mc, MATCH_LIMIT);
	pcre2_set_depth_limit(r->mc, DEPTH_LIMIT);
	/* the JIT when the platform has it: the same answers, faster */
	r->jit = pcre2_jit_compile(r->re, PCRE2_JIT_COMPLETE) == 0;
	return r;
}

int cli_regex_match(const struct cli_regex *r, const char *s)
{
	int rc = pcre2_match(r->re, (PCRE2_SPTR)s, strlen(s), 0, 0, r->md, r->mc);
	if (rc >= 0)
		return 1;
	return rc == PCRE2_ERROR_NOMATCH ? 0 : rc;
}

const char *cli_regex_error(int rc, char *buf, size_t n)
{
	PCRE2_UCHAR m[256];
	if (pcre2_get_error_message(rc, m, sizeof m) < 0)
		snprintf((char *)m, sizeof m, "error %d", rc);
	snprintf(buf, n, "%s", (char *)m);
	return buf;
}

void cli_regex_free(struct cli_regex *r)
{
	if (!r)
		return;
	pcre2_code_free(r->re);
	pcre2_match_data_free(r->md);
	pcre2_match_context_free(r->mc);
	hp_free(r->pat);
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

/* a pattern that hit PCRE2's limits on a name: said once */
static int limit_hit(const struct cli_regex *r, const char *opt, const char *name, int rc)
{
	char m[256], nm[256];
	cli_error("%s '%s': the pattern cannot be matched within its limits on the class name '%s' (%s); "
		  "make it backtrack less", opt, r->pat, safe_text(name, nm, sizeof nm), cli_regex_error(rc, m, sizeof m));
	return -1;
}

int cli_filter_match(const struct cli_filter *f, const char *name)
{
	if (!f)
		return 1;
	int m;
	if (f->inc && (m = cli_regex_match(f->inc, name)) <= 0)
		return m < 0 ? limit_hit(f->inc, "--filter", name, m) : 0;
	if (f->exc && (m = cli_regex_match(f->exc, name)) != 0)
		return m < 0 ? limit_hit(f->exc, "--exclude", name, m) : 0;
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
