/* hprofan check FILE --budget B.json [--baseline BASE] [--junit OUT.xml]:
 * a dump held to a budget, for a CI job.  The budget (JSON, docs/check.md)
 * limits classes (by exact name), packages (a dotted prefix), zombie
 * objects (leaks' rules) and growth against a baseline dump; each limit is
 * one rule, checked against figures the other commands compute: the
 * histogram's rows (top), retained sizes per class (retained.h), per package
 * (group.h: retained counted once), zombies (analysis/leaks.h, as leaks
 * counts them) and the two dumps' summaries under one model (diff.h, as diff
 * reads them).  The result: a table of the rules (or JSON, or a JUnit XML
 * file: a testcase per rule, a failure per breach); exit 0 within budget,
 * 5 (EXIT_BUDGET) on a breach, 2 on a bad budget file.
 *
 * The budget is read before the dump, bounded (BUDGET_MAX bytes, MAX_NAMES
 * classes and packages), and must be JSON in UTF-8 without a NUL; a key
 * it does not know, a duplicate key, a bad size or count is an error naming
 * the file and the key's JSON path.  A class or package that is not in the
 * dump is an error when a name of the dump is near it ("did you mean"): a
 * typo must not pass a gate as 0 instances; else it counts as 0, and the
 * output says so. */
#include "cli/command.h"
#include "cli/dumpsum.h"
#include "cli/msg.h"
#include "cli/format.h"
#include "cli/load.h"
#include "cli/output.h"
#include "cli/table.h"
#include "analysis/group.h"
#include "analysis/leaks.h"
#include "base/alloc.h"
#include "base/nearest.h"
#include "base/text.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BUDGET_MAX (4u << 20)   /* bytes of a budget file */
#define MAX_NAMES 10000         /* classes and packages a budget names, growth's included */
#define MAX_ZRULES 256          /* zombie rules (leaks' --zombie limit) */
#define SIZE_WORD 64            /* a size as text: "1.5 GiB" */

struct check_opts {
	const char *budget, *baseline, *junit;
};

static const struct cli_option own[] = {
	OPT_FILENAME("--budget", "FILE", "the budget: limits per class, package, zombies and growth\n(JSON; required)",
		     "needs a budget file (JSON)", OPT_OWN(struct check_opts, budget)),
	OPT_FILENAME("--baseline", "BASE", "the dump the budget's growth limits are measured from", "needs a dump",
		     OPT_OWN(struct check_opts, baseline)),
	OPT_FILENAME("--junit", "FILE", "also write the rules as JUnit XML to FILE (atomically):\na testcase per rule, a failure per breach",
		     "needs a file name", OPT_OWN(struct check_opts, junit)),
	OPT_END
};

/* ---- the budget ------------------------------------------------------------ */

enum rule_kind { R_CLASS, R_PACKAGE, R_ZOMBIES, R_GROWTH, R_GROWTH_CLASS };
enum metric { M_INSTANCES, M_SHALLOW, M_RETAINED, M_ZOMBIES };

static const char *const kind_names[] = { "class", "package", "zombies", "growth", "growth_class" };
static const char *const metric_names[] = { "instances", "shallow", "retained", "zombies" };

struct check_rule {
	int kind;                     /* enum rule_kind */
	int metric;                   /* enum metric */
	const char *name;             /* the class or package (in the budget's tree), NULL */
	char *path;                   /* its JSON path: .classes["X"].max_retained (owned) */
	uint64_t limit;
	int64_t actual;               /* growth may be negative */
	int pass;
	int absent;                   /* the class or package is in no dump read: counted 0 */
	char *near;                   /* a growth class FILE lacks: FILE's names near it (owned) */
};

struct budget {
	const char *file;
	char *text;
	cJSON *root;
	struct check_rule *r;
	size_t n, cap;
	size_t names;                 /* classes and packages named */
	struct hp_leak_rule *zr;      /* "zombies": {"rules": [...]} */
	size_t nzr;
	int zombies, growth, packages, need_retained;
};

static void budget_release(struct budget *b)
{
	for (size_t i = 0; i < b->n; i++)
		hp_free_all(b->r[i].path, b->r[i].near);
	for (size_t i = 0; i < b->nzr; i++)
		hp_leak_rule_release(&b->zr[i]);
	hp_free_all(b->r, b->zr, b->text);
	cJSON_Delete(b->root);
}

/* "hprofan: B.json: PATH: WHY" and the exit status of a bad budget */
static int bad(const struct budget *b, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad(const struct budget *b, const char *path, const char *fmt, ...)
{
	char why[1200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	if (path && path[0])
		cli_error("%s: %s: %s", b->file, path, why);
	else
		cli_error("%s: %s", b->file, why);
	return EXIT_USAGE;
}

static int nomem(void)
{
	cli_error("out of memory");
	return EXIT_NOMEM;
}

/* path + ".key" or path + "[\"name\"]" (a name as JSON writes it), owned */
static char *path_join(const char *path, const char *key, int quoted)
{
	if (!quoted) {
		size_t n = strlen(path) + strlen(key) + 2;
		char *p = hp_malloc(n);
		if (p)
			snprintf(p, n, "%s.%s", path, key);
		return p;
	}
	cJSON *s = cJSON_CreateString(key);
	char *q = s ? cJSON_PrintUnformatted(s) : NULL;
	cJSON_Delete(s);
	if (!q)
		return NULL;
	size_t n = strlen(path) + strlen(q) + 3;
	char *p = hp_malloc(n);
	if (p)
		snprintf(p, n, "%s[%s]", path, q);
	cJSON_free(q);
	return p;
}

/* 1 when the n bytes of s are UTF-8 (no overlong form, no surrogate);
 * else 0 and the offset of the first bad byte in *at */
static int utf8_valid(const unsigned char *s, size_t n, size_t *at)
{
	for (size_t i = 0; i < n;) {
		unsigned c = s[i];
		size_t k = c < 0x80 ? 0 : (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : 9;
		if (k == 9 || i + k >= n + (k == 0)) {
			if (k == 0) {
				i++;
				continue;
			}
			*at = i;
			return 0;
		}
		uint32_t cp = k == 0 ? c : k == 1 ? c & 0x1f : k == 2 ? c & 0x0f : c & 0x07;
		for (size_t j = 1; j <= k; j++) {
			if ((s[i + j] & 0xc0) != 0x80) {
				*at = i;
				return 0;
			}
			cp = cp << 6 | (s[i + j] & 0x3f);
		}
		static const uint32_t least[4] = { 0, 0x80, 0x800, 0x10000 };
		if (cp < least[k] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
			*at = i;
			return 0;
		}
		i += k + 1;
	}
	return 1;
}

static int by_string(const void *a, const void *b)
{
	const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
	return strcmp(x->string, y->string);
}

/* An object's keys: each one of `allowed` (NULL: any name), none twice.
 * The first wrong one is said (with the allowed key nearest it). */
static int check_keys(const struct budget *b, const cJSON *obj, const char *path, const char *const *allowed)
{
	size_t n = 0;
	for (const cJSON *c = obj->child; c; c = c->next)
		n++;
	if (!n)
		return EXIT_OK;
	const cJSON **v = hp_reallocarray(NULL, n, sizeof *v);
	if (!v)
		return nomem();
	n = 0;
	for (const cJSON *c = obj->child; c; c = c->next)
		v[n++] = c;
	int rc = EXIT_OK;
	if (allowed) {
		for (size_t i = 0; i < n && !rc; i++) {
			size_t k = 0;
			while (allowed[k] && strcmp(allowed[k], v[i]->string))
				k++;
			if (allowed[k])
				continue;
			struct hp_near near;
			hp_near_init(&near, v[i]->string, 3, 1);
			for (k = 0; allowed[k]; k++)
				hp_near_offer(&near, allowed[k]);
			char list[256] = "", nm[1024];
			for (k = 0; allowed[k]; k++) {
				size_t l = strlen(list);
				snprintf(list + l, sizeof list - l, "%s%s", k ? ", " : "", allowed[k]);
			}
			hp_text_safe(v[i]->string, nm, sizeof nm);
			if (near.n)
				rc = bad(b, path[0] ? path : ".", "unknown key \"%s\"; did you mean \"%s\"? (keys: %s)", nm,
					 near.name[0], list);
			else
				rc = bad(b, path[0] ? path : ".", "unknown key \"%s\" (keys: %s)", nm, list);
		}
	}
	if (!rc) {
		qsort(v, n, sizeof *v, by_string);
		for (size_t i = 1; i < n; i++)
			if (!strcmp(v[i]->string, v[i - 1]->string)) {
				char nm[1024];
				rc = bad(b, path[0] ? path : ".", "key \"%s\" given twice",
					 hp_text_safe(v[i]->string, nm, sizeof nm));
				break;
			}
	}
	hp_free(v);
	return rc;
}

/* a count: a whole JSON number from 0 to 2^53 */
static int get_count(const struct budget *b, const cJSON *v, const char *path, uint64_t *out)
{
	if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) || v->valuedouble != floor(v->valuedouble) ||
	    v->valuedouble > 9007199254740992.0)
		return bad(b, path, "expected a count: a whole number from 0 to 2^53");
	*out = (uint64_t)v->valuedouble;
	return EXIT_OK;
}

/* the run at *s of a number's characters (number) or of non-blanks,
 * appended to w (n used of cap, a NUL kept room for): 0, -1 when it does
 * not fit */
static int copy_run(const char **s, char *w, size_t cap, size_t *n, int number)
{
	for (const char *p = *s; *p && (number ? (*p >= '0' && *p <= '9') || *p == '.' : *p != ' ' && *p != '\t');
	     p = ++*s) {
		if (*n + 1 >= cap)
			return -1;
		w[(*n)++] = *p;
	}
	return 0;
}

/* a size: a count of bytes, or text --max-memory reads ("10 MiB", "5MB",
 * "1.5GiB", "1024"; blanks around the number and before the unit) */
static int get_size(const struct budget *b, const cJSON *v, const char *path, uint64_t *out)
{
	static const char *const expect = "expected a size of 0 bytes or more: a number of bytes, or text such as "
					  "\"10 MiB\", \"5MB\" or \"1.5 GiB\"";
	if (cJSON_IsNumber(v)) {
		if (!(v->valuedouble >= 0) || v->valuedouble != floor(v->valuedouble) || v->valuedouble > 9007199254740992.0)
			return bad(b, path, "%s", expect);
		*out = (uint64_t)v->valuedouble;
		return EXIT_OK;
	}
	if (!cJSON_IsString(v))
		return bad(b, path, "%s", expect);
	const char *s = v->valuestring;
	char w[SIZE_WORD];
	size_t n = 0;
	while (*s == ' ' || *s == '\t')
		s++;
	if (copy_run(&s, w, sizeof w, &n, 1))
		return bad(b, path, "%s", expect);
	while (*s == ' ' || *s == '\t')
		s++;
	if (copy_run(&s, w, sizeof w, &n, 0))
		return bad(b, path, "%s", expect);
	while (*s == ' ' || *s == '\t')
		s++;
	w[n] = '\0';
	char shown[2 * SIZE_WORD];
	if (*s || cli_parse_size(w, 1, out))
		return bad(b, path, "%s; got \"%s\"", expect, hp_text_safe(v->valuestring, shown, sizeof shown));
	return EXIT_OK;
}

static int add_rule(struct budget *b, int kind, int metric, const char *name, const char *path, uint64_t limit)
{
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 16;
		struct check_rule *r = hp_reallocarray(b->r, cap, sizeof *r);
		if (!r)
			return nomem();
		b->r = r;
		b->cap = cap;
	}
	struct check_rule *r = &b->r[b->n];
	memset(r, 0, sizeof *r);
	if (!(r->path = hp_strdup(path)))
		return nomem();
	b->n++;
	r->kind = kind;
	r->metric = metric;
	r->name = name;
	r->limit = limit;
	if (metric == M_RETAINED || kind == R_ZOMBIES || kind >= R_GROWTH)
		b->need_retained = 1;
	return EXIT_OK;
}

static const char *const limit_keys[] = { "max_instances", "max_shallow", "max_retained", NULL };

/* {"max_instances": N, "max_shallow": S, "max_retained": S}: a rule each */
static int limits(struct budget *b, const cJSON *o, const char *path, int kind, const char *name)
{
	int rc;
	if (!cJSON_IsObject(o))
		return bad(b, path, "expected an object of limits (max_instances, max_shallow, max_retained)");
	if ((rc = check_keys(b, o, path, limit_keys)))
		return rc;
	if (!o->child)
		return bad(b, path, "no limit (max_instances, max_shallow or max_retained)");
	for (int m = M_INSTANCES; m <= M_RETAINED; m++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, limit_keys[m]);
		if (!v)
			continue;
		char *p = path_join(path, limit_keys[m], 0);
		uint64_t lim = 0;
		if (!p)
			return nomem();
		rc = m == M_INSTANCES ? get_count(b, v, p, &lim) : get_size(b, v, p, &lim);
		if (!rc)
			rc = add_rule(b, kind, m, name, p, lim);
		hp_free(p);
		if (rc)
			return rc;
	}
	return EXIT_OK;
}

/* {"NAME": {limits}, ...} of classes or packages */
static int named(struct budget *b, const cJSON *o, const char *path, int kind)
{
	int rc;
	if (!cJSON_IsObject(o))
		return bad(b, path, "expected an object: {\"NAME\": {\"max_retained\": \"10 MiB\"}, ...}");
	if ((rc = check_keys(b, o, path, NULL)))
		return rc;
	for (const cJSON *c = o->child; c; c = c->next) {
		char *p = path_join(path, c->string, 1);
		if (!p)
			return nomem();
		if (!c->string[0])
			rc = bad(b, p, "an empty name");
		else if (++b->names > MAX_NAMES)
			rc = bad(b, p, "more than %d classes and packages", MAX_NAMES);
		else
			rc = limits(b, c, p, kind, c->string);
		hp_free(p);
		if (rc)
			return rc;
	}
	return EXIT_OK;
}

/* "zombies": N, or {"max": N, "rules": ["CLASS:FIELD=VALUE", ...]} */
static int zombies(struct budget *b, const cJSON *z)
{
	static const char *const keys[] = { "max", "rules", NULL };
	uint64_t max = 0;
	int rc;
	b->zombies = 1;
	if (cJSON_IsNumber(z))
		return get_count(b, z, ".zombies", &max) ? EXIT_USAGE : add_rule(b, R_ZOMBIES, M_ZOMBIES, NULL, ".zombies", max);
	if (!cJSON_IsObject(z))
		return bad(b, ".zombies", "expected a count, or {\"max\": N, \"rules\": [\"CLASS:FIELD=VALUE\", ...]}");
	if ((rc = check_keys(b, z, ".zombies", keys)))
		return rc;
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(z, "max");
	if (!m)
		return bad(b, ".zombies", "no \"max\"");
	if ((rc = get_count(b, m, ".zombies.max", &max)))
		return rc;
	const cJSON *rules = cJSON_GetObjectItemCaseSensitive(z, "rules");
	if (rules) {
		if (!cJSON_IsArray(rules))
			return bad(b, ".zombies.rules", "expected an array of rules \"CLASS:FIELD=VALUE\"");
		int n = cJSON_GetArraySize(rules);
		if (n > MAX_ZRULES)
			return bad(b, ".zombies.rules", "more than %d rules", MAX_ZRULES);
		if (n && !(b->zr = hp_calloc((size_t)n, sizeof *b->zr)))
			return nomem();
		int i = 0;
		for (const cJSON *r = rules->child; r; r = r->next, i++) {
			char p[64];
			snprintf(p, sizeof p, ".zombies.rules[%d]", i);
			if (!cJSON_IsString(r))
				return bad(b, p, "expected a rule \"CLASS:FIELD=VALUE\"");
			struct hp_error err;
			hp_error_clear(&err);
			int st = hp_leak_rule_parse(r->valuestring, &b->zr[b->nzr], &err);
			if (st == HP_ENOMEM)
				return nomem();
			if (st)
				return bad(b, p, "%s (a rule is CLASS:FIELD=VALUE; VALUE true, false, null, !null, a number or a string)",
					   err.msg);
			b->nzr++;
		}
	}
	return add_rule(b, R_ZOMBIES, M_ZOMBIES, NULL, ".zombies.max", max);
}

/* "growth": {"max_retained": S, "max_instances": N, "classes": {...}} */
static int growth(struct budget *b, const cJSON *g)
{
	static const char *const keys[] = { "max_retained", "max_instances", "classes", NULL };
	int rc;
	b->growth = 1;
	if (!cJSON_IsObject(g))
		return bad(b, ".growth", "expected an object: {\"max_retained\": \"5 MiB\", \"max_instances\": N, \"classes\": {...}}");
	if ((rc = check_keys(b, g, ".growth", keys)))
		return rc;
	if (!g->child)
		return bad(b, ".growth", "no limit (max_retained, max_instances or classes)");
	uint64_t lim;
	const cJSON *v;
	if ((v = cJSON_GetObjectItemCaseSensitive(g, "max_retained")) &&
	    ((rc = get_size(b, v, ".growth.max_retained", &lim)) ||
	     (rc = add_rule(b, R_GROWTH, M_RETAINED, NULL, ".growth.max_retained", lim))))
		return rc;
	if ((v = cJSON_GetObjectItemCaseSensitive(g, "max_instances")) &&
	    ((rc = get_count(b, v, ".growth.max_instances", &lim)) ||
	     (rc = add_rule(b, R_GROWTH, M_INSTANCES, NULL, ".growth.max_instances", lim))))
		return rc;
	if ((v = cJSON_GetObjectItemCaseSensitive(g, "classes")))
		return named(b, v, ".growth.classes", R_GROWTH_CLASS);
	return EXIT_OK;
}

static int budget_read(const char *file, struct budget *b)
{
	static const char *const keys[] = { "classes", "packages", "zombies", "growth", NULL };
	memset(b, 0, sizeof *b);
	b->file = file;
	FILE *f = fopen(file, "rb");
	if (!f) {
		cli_error("%s: %s", file, strerror(errno));
		return EXIT_USAGE;
	}
	if (!(b->text = hp_malloc(BUDGET_MAX + 1))) {
		fclose(f);
		return nomem();
	}
	size_t len = fread(b->text, 1, BUDGET_MAX + 1, f);
	int err = ferror(f) ? errno : 0;
	fclose(f);
	if (err) {
		cli_error("%s: %s", file, strerror(err));
		return EXIT_USAGE;
	}
	if (len > BUDGET_MAX)
		return bad(b, NULL, "larger than %u MiB: not a budget", BUDGET_MAX >> 20);
	const char *nul = memchr(b->text, '\0', len);
	if (nul)
		return bad(b, NULL, "offset %zu: a NUL byte: not JSON text", (size_t)(nul - b->text));
	size_t at;
	if (!utf8_valid((const unsigned char *)b->text, len, &at))
		return bad(b, NULL, "offset %zu: not UTF-8", at);
	b->text[len] = '\0';
	const char *end = NULL;
	b->root = cJSON_ParseWithLengthOpts(b->text, len, &end, 0);
	if (!b->root) {
		const char *e = cJSON_GetErrorPtr();
		size_t off = e && e >= b->text && e <= b->text + len ? (size_t)(e - b->text) : len;
		size_t line = 1, col = 1;
		for (size_t i = 0; i < off; i++, col++)
			if (b->text[i] == '\n') {
				line++;
				col = 0;
			}
		if (!len || off >= len)
			return bad(b, NULL, "not JSON: it ends early (or nests deeper than %d)", CJSON_NESTING_LIMIT);
		return bad(b, NULL, "line %zu, column %zu: not JSON", line, col);
	}
	if (!cJSON_IsObject(b->root))
		return bad(b, NULL, "expected a JSON object {\"classes\": ..., \"packages\": ..., \"zombies\": ..., \"growth\": ...}");
	int rc;
	if ((rc = check_keys(b, b->root, "", keys)))
		return rc;
	if (!b->root->child)
		return bad(b, NULL, "no rule: an empty budget checks nothing");
	const cJSON *v;
	if ((v = cJSON_GetObjectItemCaseSensitive(b->root, "classes")) && (rc = named(b, v, ".classes", R_CLASS)))
		return rc;
	if ((v = cJSON_GetObjectItemCaseSensitive(b->root, "packages"))) {
		b->packages = 1;
		if ((rc = named(b, v, ".packages", R_PACKAGE)))
			return rc;
	}
	if ((v = cJSON_GetObjectItemCaseSensitive(b->root, "zombies")) && (rc = zombies(b, v)))
		return rc;
	if ((v = cJSON_GetObjectItemCaseSensitive(b->root, "growth")) && (rc = growth(b, v)))
		return rc;
	if (!b->n)
		return bad(b, NULL, "no rule: its objects name no class or package to check");
	return EXIT_OK;
}

/* ---- the dump's figures ------------------------------------------------------- */

/* the classes of h sorted by name (each name's classes together) */
struct names {
	const hp_heap *h;
	uint32_t *ord;
	size_t n;
};

static const hp_heap *sort_heap;   /* by_class_name()'s heap: qsort has no context */

static int by_class_name(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = strcmp(hp_class_name(sort_heap, x), hp_class_name(sort_heap, y));
	return c ? c : (x > y) - (x < y);
}

static int names_init(struct names *N, const hp_heap *h)
{
	N->h = h;
	N->n = h->nclasses;
	if (!(N->ord = hp_reallocarray(NULL, N->n ? N->n : 1, sizeof *N->ord)))
		return nomem();
	for (size_t i = 0; i < N->n; i++)
		N->ord[i] = (uint32_t)i;
	sort_heap = h;
	qsort(N->ord, N->n, sizeof *N->ord, by_class_name);
	return EXIT_OK;
}

/* the first of N->ord named name, or N->n */
static size_t names_find(const struct names *N, const char *name)
{
	size_t lo = 0, hi = N->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(hp_class_name(N->h, N->ord[mid]), name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < N->n && !strcmp(hp_class_name(N->h, N->ord[lo]), name) ? lo : N->n;
}

/* The names nearest `name` that could be a typo of it: within a distance
 * of a sixth of its length (1 to 3), letters' case aside; or whose simple
 * name (after its last '.' or '$') is `name` (a class named without its
 * package or outer class).  Into buf:
 * "'a', 'b'"; how many. */
static unsigned near_cap(const char *name)
{
	size_t l = strlen(name) / 6 + 1;
	return l < 3 ? (unsigned)l : 3;
}

static void near_offer(struct hp_near *near, const char *name, const char *cand)
{
	const char *dot = strrchr(cand, '.'), *dollar = strrchr(cand, '$');
	if (dollar > dot)
		dot = dollar;
	if (dot && !strcmp(dot + 1, name)) {
		hp_near_offer_at(near, cand, 1);
		return;
	}
	size_t a = strlen(name), b = strlen(cand);
	if ((a > b ? a - b : b - a) > near->cap)
		return;
	hp_near_offer(near, cand);
}

static size_t near_join(const struct hp_near *near, char *buf, size_t n)
{
	char raw[1024];
	size_t k = hp_near_join(near, '\'', 1, raw, sizeof raw);
	hp_text_safe(raw, buf, n);
	return k;
}

struct figures {
	uint64_t instances, shallow, retained;
	int found;
};

static void class_figures(const struct names *N, const struct hp_retained *R, const char *name, struct figures *f)
{
	const hp_heap *h = N->h;
	memset(f, 0, sizeof *f);
	for (size_t i = names_find(N, name); i < N->n && !strcmp(hp_class_name(h, N->ord[i]), name); i++) {
		uint32_t c = N->ord[i];
		f->found = 1;
		for (uint32_t r = h->classes[c].row; r != HP_NONE; r = h->rows[r].next) {
			f->instances += h->rows[r].count + h->rows[r].class_objs;
			f->shallow += h->rows[r].shallow;
		}
		if (R)
			f->retained += R->class_retained[c];
	}
}

/* the class names of h near name ("'a', 'b'") into line; how many */
static size_t class_near(const hp_heap *h, const char *name, char *line, size_t n)
{
	struct hp_near near;
	hp_near_init(&near, name, near_cap(name), 1);
	for (size_t k = 0; k < h->nclasses; k++)
		near_offer(&near, name, hp_class_name(h, k));
	return near_join(&near, line, n);
}

/* "B.json: .classes["X"]: no class X in DUMP; did you mean Y?": the
 * rule's path less its last key */
static int absent_error(const struct budget *b, const struct check_rule *r, const char *what, const char *dump,
			const char *line)
{
	char nm[600], p[1200];
	snprintf(p, sizeof p, "%s", r->path);
	char *dot = strrchr(p, '.');
	if (dot)
		*dot = '\0';
	return bad(b, p, "no %s %s in %s; did you mean %s?", what, hp_text_safe(r->name, nm, sizeof nm), dump, line);
}

/* the packages of G by name, NUL-terminated copies (for hp_near) */
struct pkgs {
	char **name;
	size_t n;
};

static void pkgs_release(struct pkgs *P)
{
	for (size_t i = 0; i < P->n; i++)
		hp_free(P->name[i]);
	hp_free(P->name);
}

static int pkgs_init(struct pkgs *P, const struct hp_groups *G)
{
	memset(P, 0, sizeof *P);
	if (!(P->name = hp_calloc(G->n ? G->n : 1, sizeof *P->name)))
		return nomem();
	for (size_t i = 0; i < G->n; i++, P->n++) {
		if (!(P->name[i] = hp_malloc((size_t)G->g[i].pkg_len + 1)))
			return nomem();
		memcpy(P->name[i], G->g[i].pkg, G->g[i].pkg_len);
		P->name[i][G->g[i].pkg_len] = '\0';
	}
	return EXIT_OK;
}

/* ---- checking ------------------------------------------------------------------ */

struct check_state {
	struct cli_ctx *x;
	const struct check_opts *o;
	const char *base;             /* --baseline, when the budget has growth limits */
	struct budget b;
	hp_session *S;                /* FILE's; closed once read when there is a baseline */
	const hp_heap *h;
	const struct hp_retained *R;
	cJSON *doc;                   /* --json: the document, begun while FILE's session is open */
	cJSON *base_info;             /* the baseline's cli_json_dump_info() */
	struct hp_dsum sum[2];        /* FILE's, BASE's (with --baseline) */
	int have_sum[2];
	struct cli_series sm;
	struct cli_dumpmodel own[2];
	const char *files[2];         /* FILE, BASE: the series' */
	struct cli_ctx sx;            /* x with them (the series keeps a pointer) */
	size_t breaches;
	char model[256];              /* "size model vm, weak skip-weak, roots threads" */
};

static void set_actual(struct check_rule *r, int64_t actual)
{
	r->actual = actual;
	r->pass = actual <= 0 || (uint64_t)actual <= r->limit;
}

static int check_classes(struct check_state *st, const struct names *N)
{
	for (size_t i = 0; i < st->b.n; i++) {
		struct check_rule *r = &st->b.r[i];
		if (r->kind != R_CLASS)
			continue;
		struct figures f;
		char line[1024];
		class_figures(N, st->R, r->name, &f);
		/* the limits of one class are neighbours: its names looked up once */
		if (!f.found && i && st->b.r[i - 1].kind == R_CLASS && st->b.r[i - 1].name == r->name) {
			r->absent = 1;
		} else if (!f.found) {
			if (class_near(N->h, r->name, line, sizeof line))
				return absent_error(&st->b, r, "class", st->x->files[0], line);
			r->absent = 1;
		}
		set_actual(r, (int64_t)(r->metric == M_INSTANCES ? f.instances : r->metric == M_SHALLOW ? f.shallow : f.retained));
	}
	return EXIT_OK;
}

static int check_packages(struct check_state *st)
{
	struct hp_groups G;
	struct hp_error err;
	struct pkgs P;
	int rc = EXIT_OK;
	memset(&G, 0, sizeof G);
	memset(&P, 0, sizeof P);
	hp_error_clear(&err);
	int hr = hp_groups_compute(st->h, st->R, HP_GROUP_PACKAGE, NULL, NULL, NULL, 0, &G, &err);
	if (hr) {
		hp_groups_release(&G);
		return cli_fail(hp_session_path(st->S), &err, hr);
	}
	if ((rc = pkgs_init(&P, &G)))
		goto out;
	for (size_t i = 0; i < st->b.n; i++) {
		struct check_rule *r = &st->b.r[i];
		if (r->kind != R_PACKAGE)
			continue;
		size_t k = 0;
		while (k < P.n && strcmp(P.name[k], r->name))
			k++;
		if (k == P.n) {
			struct hp_near near;
			char line[1024];
			hp_near_init(&near, r->name, near_cap(r->name), 1);
			for (size_t j = 0; j < P.n; j++)
				if (P.name[j][0])
					hp_near_offer(&near, P.name[j]);
			if (near_join(&near, line, sizeof line)) {
				rc = absent_error(&st->b, r, "package", st->x->files[0], line);
				goto out;
			}
			r->absent = 1;
			set_actual(r, 0);
			continue;
		}
		const struct hp_group *g = &G.g[k];
		set_actual(r, (int64_t)(r->metric == M_INSTANCES ? g->instances : r->metric == M_SHALLOW ? g->shallow : g->retained));
	}
out:
	pkgs_release(&P);
	hp_groups_release(&G);
	return rc;
}

static int check_zombies(struct check_state *st)
{
	const hp_heap *h = st->h;
	const char *file = hp_session_path(st->S);
	int rc;
	/* a rule that can match nothing is an error, as leaks says it */
	for (size_t i = 0; i < st->b.nzr; i++) {
		const struct hp_leak_rule *z = &st->b.zr[i];
		struct hp_leak_rule_fault f;
		if (hp_leak_rule_check(h, z, &f) != HP_OK)
			return nomem();
		if (f.kind == HP_LRF_OK)
			continue;
		char p[64], cls[300], fld[200], near[1024];
		snprintf(p, sizeof p, ".zombies.rules[%zu]", i);
		hp_text_safe(z->cls, cls, sizeof cls);
		hp_text_safe(z->field, fld, sizeof fld);
		if (f.kind == HP_LRF_TYPE)
			return bad(&st->b, p, "%s#%s in %s is a %s: the value does not fit it", cls, fld, file,
				   f.type == HP_T_OBJECT ? "reference" : hp_type_name(f.type));
		if (f.kind == HP_LRF_NO_FIELD) {
			char raw[1024];
			if (hp_near_join(&f.fields, '\'', 1, raw, sizeof raw))
				return bad(&st->b, p, "%s in %s has no field %s; did you mean %s?", cls, file, fld,
					   hp_text_safe(raw, near, sizeof near));
			return bad(&st->b, p, "%s in %s has no field %s", cls, file, fld);
		}
		if (class_near(h, z->cls, near, sizeof near))
			return bad(&st->b, p, "no class %s in %s; did you mean %s?", cls, file, near);
		return bad(&st->b, p, "no class %s in %s", cls, file);
	}
	hp_objread *rd;
	if ((rc = cli_objread(st->S, &rd)))
		return rc;
	struct hp_leaks_opts lo;
	hp_leaks_opts_init(&lo);
	lo.rules = st->b.zr;
	lo.nrules = st->b.nzr;
	struct hp_leaks L;
	struct hp_error err;
	hp_error_clear(&err);
	int hr = hp_leaks_find(h, st->R, rd, &lo, &L, &err);
	if (hr)
		return cli_fail(file, &err, hr);
	/* as leaks --fail-on-leak counts them: the zombies listed and those only
	 * others reach; not those no strong path reaches (they will be collected) */
	uint64_t n = L.nzombies + L.nested;
	hp_leaks_release(&L);
	for (size_t i = 0; i < st->b.n; i++)
		if (st->b.r[i].kind == R_ZOMBIES)
			set_actual(&st->b.r[i], (int64_t)n);
	return EXIT_OK;
}

static const struct hp_dsum_class *sum_class(const struct hp_dsum *s, const char *name)
{
	size_t lo = 0, hi = s->nclasses;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(s->classes[mid].name, name);
		if (!c)
			return &s->classes[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int64_t delta(uint64_t a, uint64_t b)
{
	return b >= a ? (int64_t)(b - a) : -(int64_t)(a - b);
}

/* growth rules from the two summaries (FILE's sum[0], BASE's sum[1]); a
 * class in neither is an error when a class of FILE was near it */
static int check_growth(struct check_state *st)
{
	const struct hp_dsum *a = &st->sum[1], *b = &st->sum[0];
	char files[1200];
	snprintf(files, sizeof files, "%s or %s", st->x->files[0], st->base);
	for (size_t i = 0; i < st->b.n; i++) {
		struct check_rule *r = &st->b.r[i];
		if (r->kind == R_GROWTH) {
			set_actual(r, r->metric == M_RETAINED ? delta(a->reachable_bytes, b->reachable_bytes)
							  : delta(a->reachable, b->reachable));
			continue;
		}
		if (r->kind != R_GROWTH_CLASS)
			continue;
		const struct hp_dsum_class *ca = sum_class(a, r->name), *cb = sum_class(b, r->name);
		struct hp_dsum_class zero = { .name = NULL };
		if (!ca && !cb) {
			if (r->near)
				return absent_error(&st->b, r, "class", files, r->near);
			r->absent = 1;
		}
		if (!ca)
			ca = &zero;
		if (!cb)
			cb = &zero;
		set_actual(r, r->metric == M_INSTANCES ? delta(ca->instances, cb->instances)
			      : r->metric == M_SHALLOW ? delta(ca->shallow, cb->shallow) : delta(ca->retained, cb->retained));
	}
	return EXIT_OK;
}

/* a growth class FILE lacks: the names of FILE near it, kept for when BASE
 * lacks it too (FILE's session is closed by then) */
static int growth_near(struct check_state *st, const struct names *N)
{
	for (size_t i = 0; i < st->b.n; i++) {
		struct check_rule *r = &st->b.r[i];
		char line[1024];
		/* a class's first limit is enough: check_growth() stops at it */
		if (r->kind != R_GROWTH_CLASS || (i && st->b.r[i - 1].name == r->name) || names_find(N, r->name) < N->n ||
		    !class_near(N->h, r->name, line, sizeof line))
			continue;
		if (!(r->near = hp_strdup(line)))
			return nomem();
	}
	return EXIT_OK;
}

static int collect(struct check_state *st)
{
	struct cli_ctx *x = st->x;
	int rc;
	st->files[0] = x->files[0];
	st->files[1] = st->base;
	st->sx = *x;
	st->sx.files = st->files;
	st->sx.nfiles = st->base ? 2 : 1;
	if (st->base) {
		/* FILE, then BASE under FILE's model (the options' where given):
		 * FILE's figures are the same with a baseline or without */
		cli_series_init(&st->sm, &st->sx, 0);
		if ((rc = cli_series_summary(&st->sm, 0, NULL, &st->S, &st->sum[0], &st->own[0])))
			return rc;
		st->have_sum[0] = 1;
	} else if ((rc = cli_session(x, x->files[0], &st->S))) {
		return rc;
	}
	if (st->b.need_retained) {
		if ((rc = cli_refuse_pipe(st->S, "retained sizes read", "save it to a file")) ||
		    (rc = cli_retained(st->S, &st->h, &st->R)))
			return rc;
	} else if ((rc = cli_histogram(st->S, &st->h))) {
		return rc;
	}
	struct names N;
	if ((rc = names_init(&N, st->h)))
		return rc;
	rc = check_classes(st, &N);
	if (!rc && st->b.packages)
		rc = check_packages(st);
	if (!rc && st->b.zombies)
		rc = check_zombies(st);
	if (!rc && st->b.growth)
		rc = growth_near(st, &N);
	hp_free(N.ord);
	if (!rc && x->c->json)
		st->doc = cli_json_begin_heap(x, st->S, st->h, st->R);
	if (rc || !st->base)
		return rc;
	/* FILE's session is closed before BASE is read: one dump in memory */
	if (x->c->stats)
		cli_print_stats(x, st->S);
	cli_session_close(st->S);
	st->S = NULL;
	st->h = NULL;
	st->R = NULL;
	hp_session *B = NULL;
	rc = cli_series_summary(&st->sm, 1, NULL, &B, &st->sum[1], &st->own[1]);
	if (!rc) {
		st->have_sum[1] = 1;
		st->base_info = cli_json_dump_info(st->base, B, &st->sum[1]);
		cli_json_dumpmodel(st->base_info, &st->own[1]);
		cli_series_warn(&st->sm, st->own, 2);
		cli_series_words(&st->sm, st->model, sizeof st->model);
		if (x->c->stats)
			cli_print_stats(x, B);
	}
	cli_session_close(B);
	return rc ? rc : check_growth(st);
}

/* ---- output ---------------------------------------------------------------------- */

static const char *const key_names[] = { "max_instances", "max_shallow", "max_retained", "max" };

/* "class java.util.HashMap max_retained", "zombies", "growth max_retained" */
static const char *rule_label(const struct check_rule *r, char *buf, size_t n)
{
	switch (r->kind) {
	case R_CLASS:
	case R_PACKAGE:
		snprintf(buf, n, "%s %s %s", kind_names[r->kind], r->name, key_names[r->metric]);
		break;
	case R_GROWTH_CLASS:
		snprintf(buf, n, "growth class %s %s", r->name, key_names[r->metric]);
		break;
	case R_GROWTH:
		snprintf(buf, n, "growth %s", key_names[r->metric]);
		break;
	default:
		snprintf(buf, n, "zombies");
	}
	return buf;
}

static int is_bytes(const struct check_rule *r)
{
	return r->metric == M_SHALLOW || r->metric == M_RETAINED;
}

static const char *limit_text(const struct check_rule *r, char *buf, size_t n)
{
	return is_bytes(r) ? cli_fmt_bytes(r->limit, buf, n) : cli_fmt_count(r->limit, buf, n);
}

static const char *actual_text(const struct check_rule *r, char *buf, size_t n)
{
	if (r->kind >= R_GROWTH)
		return is_bytes(r) ? cli_fmt_dbytes(r->actual, buf, n) : cli_fmt_dcount(r->actual, buf, n);
	return is_bytes(r) ? cli_fmt_bytes((uint64_t)r->actual, buf, n) : cli_fmt_count((uint64_t)r->actual, buf, n);
}

/* a breach in words: "400 instances, over the limit of 100 by 300" */
static const char *breach_text(const struct check_rule *r, char *buf, size_t n)
{
	char a[48], l[48], d[48];
	uint64_t over = (uint64_t)r->actual - r->limit;
	if (is_bytes(r))
		snprintf(buf, n, "%s bytes%s, over the limit of %s bytes by %s", cli_fmt_count((uint64_t)r->actual, a, sizeof a),
			 r->kind >= R_GROWTH ? " more" : "", cli_fmt_count(r->limit, l, sizeof l), cli_fmt_count(over, d, sizeof d));
	else
		snprintf(buf, n, "%s %s%s%s, over the limit of %s by %s", cli_fmt_count((uint64_t)r->actual, a, sizeof a),
			 r->metric == M_ZOMBIES ? "zombie" : "instance", r->actual == 1 ? "" : "s", r->kind >= R_GROWTH ? " more" : "",
			 cli_fmt_count(r->limit, l, sizeof l), cli_fmt_count(over, d, sizeof d));
	return buf;
}

struct crow {
	const struct check_rule *r;
	const char *status;
	const char *label;
};

static void limit_cell(const struct cli_table *t, const void *row, char *buf, size_t n)
{
	(void)t;
	limit_text(((const struct crow *)row)->r, buf, n);
}

static void actual_cell(const struct cli_table *t, const void *row, char *buf, size_t n)
{
	(void)t;
	const struct check_rule *r = ((const struct crow *)row)->r;
	char a[48], l[48];
	actual_text(r, a, sizeof a);
	limit_text(r, l, sizeof l);
	/* a breach the rounding hides: the bytes */
	if (!r->pass && is_bytes(r) && !strcmp(a + (a[0] == '+'), l))
		snprintf(buf, n, "%s B", cli_fmt_count((uint64_t)r->actual, a, sizeof a));
	else
		snprintf(buf, n, "%s", a);
}

#define CR_(f) offsetof(struct crow, f)
static const struct cli_col rule_cols[] = {
	{ .title = "status", .width = 6, .cell = CELL_TEXT, .flags = COL_LEFT, .off = CR_(status) },
	{ .title = "limit", .width = 12, .cell = CELL_FN, .fn = limit_cell },
	{ .title = "actual", .width = 12, .cell = CELL_FN, .fn = actual_cell },
	{ .title = "rule", .cell = CELL_TEXT, .flags = COL_LEFT, .off = CR_(label) },
};

static int text_out(struct check_state *st)
{
	struct cli_ctx *x = st->x;
	struct cli_out out;
	FILE *f = cli_text_begin(&out);
	if (!f)
		return EXIT_NOMEM;
	char a[1200], b[1200], c[1200];
	fprintf(f, "%s against the budget %s", hp_text_safe(x->files[0], a, sizeof a), hp_text_safe(st->b.file, b, sizeof b));
	if (st->base)
		fprintf(f, ", growth since %s (%s)", hp_text_safe(st->base, c, sizeof c), st->model);
	fputs("\n", f);
	struct cli_table tb;
	CLI_TABLE_INIT(&tb, rule_cols, 0, 0, NULL);
	cli_table_header(&tb, f);
	for (size_t i = 0; i < st->b.n; i++) {
		const struct check_rule *r = &st->b.r[i];
		struct crow w = { r, r->pass ? "ok" : "FAIL", rule_label(r, a, sizeof a) };
		cli_table_row(&tb, f, &w, i + 1);
	}
	for (size_t i = 0; i < st->b.n; i++) {
		const struct check_rule *r = &st->b.r[i];
		if (r->absent && (i == 0 || st->b.r[i - 1].name != r->name))
			fprintf(f, "note: %s %s is %s: counted as 0 (no name of the dump is near it)\n",
				r->kind == R_PACKAGE ? "package" : "class", hp_text_safe(r->name, a, sizeof a),
				r->kind == R_GROWTH_CLASS ? "in neither dump" : "not in the dump");
	}
	for (size_t i = 0; i < st->b.n; i++) {
		const struct check_rule *r = &st->b.r[i];
		if (!r->pass)
			fprintf(f, "FAIL %s: %s\n", hp_text_safe(rule_label(r, c, sizeof c), a, sizeof a),
				breach_text(r, b, sizeof b));
	}
	if (st->breaches)
		fprintf(f, "%zu of %zu rules broken\n", st->breaches, st->b.n);
	else
		fprintf(f, "all %zu rule%s within budget\n", st->b.n, st->b.n == 1 ? "" : "s");
	return cli_text_end(x, &out, EXIT_OK);
}

static cJSON *actual_json(const struct check_rule *r)
{
	return r->kind >= R_GROWTH ? cli_json_i64_item(r->actual) : cli_json_u64_item((uint64_t)r->actual);
}

static int json_out(struct check_state *st)
{
	cJSON *j = st->doc;
	st->doc = NULL;
	if (!j)
		return nomem();
	cJSON_AddStringToObject(j, "budget", st->b.file);
	if (st->base_info) {
		cJSON_AddItemToObject(j, "baseline", st->base_info);
		st->base_info = NULL;
		cli_json_series_model(j, &st->sm);
	} else {
		cJSON_AddNullToObject(j, "baseline");
	}
	cJSON *arr = cJSON_AddArrayToObject(j, "rules");
	for (size_t i = 0; i < st->b.n; i++) {
		const struct check_rule *r = &st->b.r[i];
		char l[1200];
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "rule", kind_names[r->kind]);
		if (r->name) {
			cJSON_AddStringToObject(e, "name", r->name);
			cJSON_AddBoolToObject(e, "in_dump", !r->absent);
		}
		cJSON_AddStringToObject(e, "metric", metric_names[r->metric]);
		cJSON_AddStringToObject(e, "key", key_names[r->metric]);
		cJSON_AddStringToObject(e, "path", r->path);
		cJSON_AddStringToObject(e, "label", rule_label(r, l, sizeof l));
		cJSON_AddItemToObject(e, "limit", cli_json_u64_item(r->limit));
		cJSON_AddItemToObject(e, "actual", actual_json(r));
		cJSON_AddBoolToObject(e, "pass", r->pass);
		cJSON_AddItemToArray(arr, e);
	}
	cJSON *sum = cJSON_AddObjectToObject(j, "summary");
	cli_json_u64(sum, "rules", st->b.n);
	cli_json_u64(sum, "breaches", st->breaches);
	cJSON_AddBoolToObject(sum, "pass", !st->breaches);
	return cli_json_end(st->x, j, EXIT_OK);
}

/* s as XML character data or an attribute's value: & < > " ' as entities,
 * tab, newline and return as references (kept in an attribute); bytes XML
 * cannot hold (other C0 controls, invalid UTF-8, surrogates, U+FFFE and
 * U+FFFF) as the text \xNN */
static void xml_put(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		unsigned c = *p;
		switch (c) {
		case '&': fputs("&amp;", f); p++; continue;
		case '<': fputs("&lt;", f); p++; continue;
		case '>': fputs("&gt;", f); p++; continue;
		case '"': fputs("&quot;", f); p++; continue;
		case '\'': fputs("&apos;", f); p++; continue;
		case '\t': case '\n': case '\r': fprintf(f, "&#%u;", c); p++; continue;
		}
		if (c < 0x20) {
			fprintf(f, "\\x%02X", c);
			p++;
			continue;
		}
		if (c < 0x80) {
			fputc((int)c, f);
			p++;
			continue;
		}
		size_t k = (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : 0;
		uint32_t cp = k == 1 ? c & 0x1f : k == 2 ? c & 0x0f : c & 0x07;
		size_t j = 1;
		for (; k && j <= k && (p[j] & 0xc0) == 0x80; j++)
			cp = cp << 6 | (p[j] & 0x3f);
		static const uint32_t least[4] = { 0, 0x80, 0x800, 0x10000 };
		if (!k || j <= k || cp < least[k] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffe ||
		    cp == 0xffff) {
			fprintf(f, "\\x%02X", c);
			p++;
			continue;
		}
		fwrite(p, 1, k + 1, f);
		p += k + 1;
	}
}

static int junit_write(struct check_state *st)
{
	const char *path = st->o->junit;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return nomem();
	char l[1200], m[600], a[48], b[48];
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f, "<testsuite name=\"hprofan check\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"0\">\n",
		st->b.n, st->breaches);
	fputs("  <properties>\n    <property name=\"dump\" value=\"", f);
	xml_put(f, st->x->files[0]);
	fputs("\"/>\n    <property name=\"budget\" value=\"", f);
	xml_put(f, st->b.file);
	fputs("\"/>\n", f);
	if (st->base) {
		fputs("    <property name=\"baseline\" value=\"", f);
		xml_put(f, st->base);
		fputs("\"/>\n", f);
	}
	fputs("  </properties>\n", f);
	for (size_t i = 0; i < st->b.n; i++) {
		const struct check_rule *r = &st->b.r[i];
		fputs("  <testcase classname=\"hprofan.check\" name=\"", f);
		xml_put(f, rule_label(r, l, sizeof l));
		fputs("\" time=\"0\">", f);
		fputs("<system-out>", f);
		snprintf(m, sizeof m, "%s: limit %s, actual %s%s", r->path, limit_text(r, a, sizeof a), actual_text(r, b, sizeof b),
			 r->absent ? " (not in the dump: counted as 0)" : "");
		xml_put(f, m);
		fputs("</system-out>", f);
		if (!r->pass) {
			fputs("\n    <failure type=\"budget\" message=\"", f);
			xml_put(f, breach_text(r, m, sizeof m));
			fputs("\">", f);
			xml_put(f, rule_label(r, l, sizeof l));
			fputs(": ", f);
			xml_put(f, m);
			fputs("</failure>\n  ", f);
		}
		fputs("</testcase>\n", f);
	}
	fputs("</testsuite>\n", f);
	if (fclose(f) != 0 || !buf) {
		free(buf);
		return nomem();
	}
	struct cli_ofile o;
	int rc = cli_ofile_open(&o, path);
	if (!rc) {
		if (cli_write_all(o.fd, buf, len) != 0) {
			cli_error("cannot write %s: %s", path, strerror(errno));
			cli_ofile_abort(&o);
			rc = EXIT_BAD;
		} else {
			rc = cli_ofile_commit(&o);
		}
	}
	free(buf);
	return rc;
}

static void release(struct check_state *st)
{
	budget_release(&st->b);
	for (int i = 0; i < 2; i++)
		if (st->have_sum[i])
			hp_dsum_release(&st->sum[i]);
	cJSON_Delete(st->doc);
	cJSON_Delete(st->base_info);
	cli_session_close(st->S);
}

static int run(struct cli_ctx *x)
{
	struct check_state st;
	memset(&st, 0, sizeof st);
	st.x = x;
	st.o = x->own;
	if (!st.o->budget)
		return cli_usage_error(NULL, "check needs --budget FILE: the limits to check (JSON; see 'hprofan help check')");
	int rc = budget_read(st.o->budget, &st.b);
	if (!rc && st.b.growth && !st.o->baseline)
		rc = bad(&st.b, ".growth", "growth limits need --baseline BASE, the dump growth is measured from");
	if (!rc && st.o->baseline && !st.b.growth)
		cli_warn("--baseline %s: the budget %s has no growth limits: the baseline is not read", st.o->baseline,
			 st.b.file);
	st.base = st.b.growth ? st.o->baseline : NULL;
	if (!rc)
		rc = collect(&st);
	if (!rc) {
		for (size_t i = 0; i < st.b.n; i++)
			st.breaches += !st.b.r[i].pass;
		rc = x->c->json ? json_out(&st) : text_out(&st);
	}
	if (!rc && st.o->junit)
		rc = junit_write(&st);
	if (!rc && x->c->stats && st.S)
		cli_print_stats(x, st.S);
	if (!rc && st.breaches)
		rc = EXIT_BUDGET;
	release(&st);
	return rc;
}

CLI_COMMAND(check, "hprofan check FILE", "a dump held to a budget: limits per class, package, zombies, growth",
	    CLI_FILES(1, 1), CLI_OWN(struct check_opts, NULL), .run = run,
	    CLI_TABLES(own, cli_opts_model, cli_opts_policy, cli_opts_load, cli_opts_output, cli_opts_quiet));
