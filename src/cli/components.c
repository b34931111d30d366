/* components.c — the --components FILE of top --group=component and
 * browse: lines NAME REGEX ('#' comments, blank lines), a class in the
 * first component whose REGEX matches its name, the others in "other". */
#include "cli/command.h"
#include "parser/alloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void cli_components_free(char **names, size_t n)
{
	for (size_t i = 0; i < n && names; i++)
		hp_free(names[i]);
	hp_free(names);
}

/* The component of each class into *comp_out (HP_NONE: other), their names
 * into *names_out (ncomp of them; free with cli_components_free()).  Prints
 * the error; returns an exit status. */
int cli_components_read(const char *file, const hp_heap *h, char ***names_out, size_t *ncomp_out, uint32_t **comp_out)
{
	FILE *f = fopen(file, "r");
	if (!f) {
		cli_error("--components %s: %s", file, strerror(errno));
		return EXIT_USAGE;
	}
	struct cli_regex **re = NULL;
	size_t cap = 0, lineno = 0;
	char *line = NULL;
	size_t lcap = 0;
	ssize_t len;
	int rc = EXIT_OK;
	uint32_t *comp = NULL;
	char **names = NULL;
	size_t ncomp = 0;
	*names_out = NULL;
	*ncomp_out = 0;
	*comp_out = NULL;
	while ((len = getline(&line, &lcap, f)) >= 0) {
		lineno++;
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r' || line[len - 1] == ' ' || line[len - 1] == '\t'))
			line[--len] = 0;
		char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '#')
			continue;
		char *name = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (*p)
			*p++ = 0;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p) {
			cli_error("%s:%zu: expected NAME REGEX, found only '%s'", file, lineno, name);
			rc = EXIT_USAGE;
			goto out;
		}
		if (!strcmp(name, "other")) {
			cli_error("%s:%zu: \"other\" is the name of the classes no component matches", file, lineno);
			rc = EXIT_USAGE;
			goto out;
		}
		for (size_t i = 0; i < ncomp; i++)
			if (!strcmp(names[i], name)) {
				cli_error("%s:%zu: component '%s' named twice", file, lineno, name);
				rc = EXIT_USAGE;
				goto out;
			}
		if (ncomp == cap) {
			size_t nc = cap ? 2 * cap : 16;
			struct cli_regex **nr = hp_reallocarray(re, nc, sizeof *nr);
			char **nn = nr ? hp_reallocarray(names, nc, sizeof *nn) : NULL;
			if (nr)
				re = nr;
			if (!nn) {
				rc = EXIT_NOMEM;
				cli_error("out of memory");
				goto out;
			}
			names = nn;
			cap = nc;
		}
		char msg[400];
		struct cli_regex *r = cli_regex_new(p, msg, sizeof msg);
		if (!r) {
			cli_error("%s:%zu: component '%s': '%s': %s", file, lineno, name, p, msg);
			rc = strcmp(msg, "out of memory") ? EXIT_USAGE : EXIT_NOMEM;
			goto out;
		}
		char *nm = hp_malloc(strlen(name) + 1);
		if (!nm) {
			cli_regex_free(r);
			cli_error("out of memory");
			rc = EXIT_NOMEM;
			goto out;
		}
		strcpy(nm, name);
		re[ncomp] = r;
		names[ncomp++] = nm;
	}
	if (ferror(f)) {
		cli_error("--components %s: %s", file, strerror(errno));
		rc = EXIT_USAGE;
		goto out;
	}
	comp = hp_reallocarray(NULL, h->nclasses ? h->nclasses : 1, sizeof *comp);
	if (!comp) {
		cli_error("out of memory");
		rc = EXIT_NOMEM;
		goto out;
	}
	for (size_t c = 0; c < h->nclasses; c++) {
		comp[c] = HP_NONE;
		if (h->classes[c].row == HP_NONE)
			continue;
		const char *cn = hp_class_name(h, c);
		for (size_t i = 0; i < ncomp; i++) {
			int m = cli_regex_match(re[i], cn);
			if (m < 0) {
				char eb[200];
				cli_error("%s: component '%s' on class %s: %s", file, names[i], cn,
					  cli_regex_error(m, eb, sizeof eb));
				rc = EXIT_USAGE;
				goto out;
			}
			if (m) {
				comp[c] = (uint32_t)i;
				break;
			}
		}
	}
out:
	for (size_t i = 0; i < ncomp && re; i++)
		cli_regex_free(re[i]);
	hp_free(re);
	hp_free(line);
	fclose(f);
	if (rc) {
		hp_free(comp);
		cli_components_free(names, ncomp);
		return rc;
	}
	*names_out = names;
	*ncomp_out = ncomp;
	*comp_out = comp;
	return EXIT_OK;
}

