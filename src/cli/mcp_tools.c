/* mcp_tools.c — hprofan mcp's tools, made from the command tables
 * (mcp.h): each analysis command is a tool of its name, its summary the
 * description, its FILE arguments, what follows them and its options the
 * properties of the input schema; a call's arguments become the command
 * line `hprofan CMD --json --quiet --OPTION=VALUE... -- FILE... ARG...`,
 * which the worker runs as the CLI does, so a call's answer and its usage
 * errors are the command's.
 *
 * Properties: "file" (string) or, for the commands of two dumps or more,
 * "files" (array); the words after the files named from the usage
 * ("id", "class", "query"; an array when they repeat, "class_or_id");
 * each option by its long name without the dashes ("size-model",
 * "output" for -o): a flag is a boolean, a choice a string of its values,
 * --top [N] an integer or a boolean (true: the option without N), a value
 * an integer when the value is a number (N, D, no other word offered),
 * else a string; an option given more than once an array. */
#include "cli/mcp.h"
#include "cli/msg.h"
#include "base/alloc.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The tools: the commands that answer about dumps, in the order of the
 * command table.  Listed rather than taken from the table, so that a
 * command is a tool by a decision: browse needs a terminal, redact,
 * bitmaps --out, index and report write files as their work. */
static const char *const tool_names[] = {
	"top", "info", "dominators", "roots", "instances", "object", "path", "diff", "trend", "leaks",
	"waste", "threads", "sites", "components", "sql", "idom", "merge-paths", "group-by-value", "refs",
	NULL
};

/* the options no tool takes: --json and --quiet are always on, --stats
 * measures the run; and those that do not go with --json (a rule says so,
 * or, for sql --csv, the command) */
static int left_out(const struct cli_command *c, const struct cli_option *o)
{
	if (!strcmp(o->name, "--json") || !strcmp(o->name, "--quiet") || !strcmp(o->name, "--stats"))
		return 1;
	if (!strcmp(c->name, "sql") && !strcmp(o->name, "--csv"))
		return 1;
	if (c->rules)
		for (const struct cli_rule *const *t = c->rules; *t; t++)
			for (const struct cli_rule *r = *t; r->kind; r++)
				if (r->kind == CLI_RULE_EXCLUDES &&
				    ((!strcmp(r->a, o->name) && !strcmp(r->b, "--json")) ||
				     (!strcmp(r->b, o->name) && !strcmp(r->a, "--json"))))
					return 1;
	return 0;
}

const struct cli_command *mcp_tool(const char *name)
{
	for (int i = 0; tool_names[i]; i++)
		if (!strcmp(tool_names[i], name))
			return cli_command_find(name);
	return NULL;
}

/* the property of option o: "size-model", "output" for -o */
static const char *prop_name(const struct cli_option *o)
{
	const char *n = o->name[1] != '-' && o->alias && o->alias[1] == '-' ? o->alias : o->name;
	return n + strspn(n, "-");
}

/* a value that is a number: named N or D, no word but numbers offered */
static int numeric(const struct cli_option *o)
{
	if (!o->arg || (strcmp(o->arg, "N") && strcmp(o->arg, "D")))
		return 0;
	for (const char *p = o->complete; p && *p; p++)
		if (*p != ' ' && !isdigit((unsigned char)*p))
			return 0;
	return 1;
}

/* the session options: the worker's key holds them */
static int session_option(const struct cli_option *o)
{
	const struct cli_option *const tabs[] = { cli_opts_model, cli_opts_policy, cli_opts_load,
						  cli_opts_load_unmapped, NULL };
	for (int i = 0; tabs[i]; i++)
		for (const struct cli_option *p = tabs[i]; p->name; p++)
			if (!strcmp(p->name, o->name))
				return 1;
	return 0;
}

/* ---- the words after the files ---------------------------------------- */

/* The positional words of c after the files, from its usage or .args:
 * names[i] ("query", "class_or_id"), and whether the last repeats. */
struct words { char name[4][32], word[4][32]; int n, repeat, extra; };

static void word_name(const char *w, size_t len, char *out, size_t n)
{
	size_t o = 0;
	for (size_t i = 0; i < len && o + 5 < n; i++) {
		if (w[i] == '[' || w[i] == ']' || w[i] == '.')
			continue;
		if (w[i] == '|') {
			memcpy(out + o, "_or_", 4);
			o += 4;
			continue;
		}
		out[o++] = (char)tolower((unsigned char)w[i]);
	}
	out[o] = '\0';
}

static void words_of(const struct cli_command *c, struct words *w)
{
	memset(w, 0, sizeof *w);
	const char *s = c->args;
	if (!s && c->max_files > c->min_files && c->min_files < 2) {
		/* sql FILE [QUERY]: the last word of the usage */
		s = strrchr(c->usage, ' ');
		s = s ? s + 1 : NULL;
		w->extra = 1;
	}
	while (s && *s && w->n < 4) {
		size_t len = strcspn(s, " ");
		word_name(s, len, w->name[w->n], sizeof w->name[w->n]);
		snprintf(w->word[w->n], sizeof w->word[w->n], "%.*s", (int)(len - (s[0] == '[') * 2),
			 s + (s[0] == '['));   /* (sql's [QUERY]: QUERY) */
		w->n++;
		s += len;
		s += strspn(s, " ");
	}
	/* "CLASS|ID...": one word, repeated; "CLASS FIELD": two words */
	w->repeat = c->many_args && w->n == 1;
}

/* ---- tools/list -------------------------------------------------------- */

static cJSON *str_prop(const char *type, const char *desc)
{
	cJSON *p = cJSON_CreateObject();
	cJSON_AddStringToObject(p, "type", type);
	if (desc)
		cJSON_AddStringToObject(p, "description", desc);
	return p;
}

static cJSON *option_schema(const struct cli_option *o)
{
	char help[2048];
	cli_option_help(o, help, sizeof help);
	for (char *p = help; *p; p++)
		if (*p == '\n')
			*p = ' ';
	/* (the wrapped lines' indent squeezed) */
	char *d = help;
	for (char *p = help; *p; p++)
		if (!(*p == ' ' && d > help && d[-1] == ' '))
			*d++ = *p;
	*d = '\0';
	cJSON *p = cJSON_CreateObject();
	switch (o->kind) {
	case OPT_FLAG:
		cJSON_AddStringToObject(p, "type", "boolean");
		break;
	case OPT_CHOICE: {
		cJSON_AddStringToObject(p, "type", "string");
		cJSON *e = cJSON_AddArrayToObject(p, "enum");
		for (const struct cli_choice *ch = o->choices; ch && ch->name; ch++)
			cJSON_AddItemToArray(e, cJSON_CreateString(ch->name));
		break;
	}
	case OPT_OPTNUM:
	case OPT_OPTVALUE: {
		cJSON *t = cJSON_AddArrayToObject(p, "type");
		cJSON_AddItemToArray(t, cJSON_CreateString("integer"));
		cJSON_AddItemToArray(t, cJSON_CreateString("boolean"));
		cJSON_AddNumberToObject(p, "minimum", 0);
		break;
	}
	default:
		cJSON_AddStringToObject(p, "type", numeric(o) ? "integer" : "string");
	}
	if (o->flags & OPTF_REPEAT) {
		cJSON *a = cJSON_CreateObject();
		cJSON_AddStringToObject(a, "type", "array");
		cJSON_AddItemToObject(a, "items", p);
		p = a;
	}
	cJSON_AddStringToObject(p, "description", help);
	return p;
}

static cJSON *tool_of(const struct cli_command *c)
{
	cJSON *t = cJSON_CreateObject();
	cJSON_AddStringToObject(t, "name", c->name);
	char desc[512];
	snprintf(desc, sizeof desc, "%s. Answers with the JSON document (schema " HP_SCHEMA ") of `%s --json`.",
		 c->summary, c->usage);
	if (desc[0] >= 'a' && desc[0] <= 'z')
		desc[0] = (char)(desc[0] - 'a' + 'A');
	cJSON_AddStringToObject(t, "description", desc);
	cJSON *s = cJSON_AddObjectToObject(t, "inputSchema");
	cJSON_AddStringToObject(s, "type", "object");
	cJSON *props = cJSON_AddObjectToObject(s, "properties");
	cJSON *req = cJSON_AddArrayToObject(s, "required");
	if (c->min_files >= 2) {
		cJSON *f = str_prop("array", "the heap dumps (HPROF files, plain or gzip), oldest first");
		cJSON_AddItemToObject(f, "items", str_prop("string", NULL));
		cJSON_AddNumberToObject(f, "minItems", c->min_files);
		cJSON_AddNumberToObject(f, "maxItems", c->max_files);
		cJSON_AddItemToObject(props, "files", f);
		cJSON_AddItemToArray(req, cJSON_CreateString("files"));
	} else {
		cJSON_AddItemToObject(props, "file", str_prop("string", "the heap dump: an HPROF file, plain or gzip"));
		cJSON_AddItemToArray(req, cJSON_CreateString("file"));
	}
	struct words w;
	words_of(c, &w);
	for (int i = 0; i < w.n; i++) {
		char d[128];
		snprintf(d, sizeof d, "%s%s of `%s`", w.repeat ? "one or more: " : "", w.word[i], c->usage);
		cJSON *p = str_prop(w.repeat ? "array" : "string", d);
		if (w.repeat) {
			cJSON_AddItemToObject(p, "items", str_prop("string", NULL));
			cJSON_AddNumberToObject(p, "minItems", 1);
		}
		cJSON_AddItemToObject(props, w.name[i], p);
		cJSON_AddItemToArray(req, cJSON_CreateString(w.name[i]));
	}
	for (const struct cli_option *const *tab = c->options; *tab; tab++)
		for (const struct cli_option *o = *tab; o->name; o++)
			if (!left_out(c, o))
				cJSON_AddItemToObject(props, prop_name(o), option_schema(o));
	cJSON_AddBoolToObject(s, "additionalProperties", 0);
	return t;
}

cJSON *mcp_tools_list(void)
{
	cJSON *a = cJSON_CreateArray();
	for (const struct cli_command *const *c = cli_commands; a && *c; c++)
		if (mcp_tool((*c)->name))
			cJSON_AddItemToArray(a, tool_of(*c));
	return a;
}

/* ---- tools/call -------------------------------------------------------- */

/* the words of a command line, grown as they come */
struct line {
	char **w;
	int n, cap;
	char *key;
	size_t klen;
	int nomem;
};

static void add(struct line *l, const char *s)
{
	if (l->nomem)
		return;
	if (l->n + 1 >= l->cap) {
		int cap = l->cap ? 2 * l->cap : 32;
		char **w = realloc(l->w, (size_t)cap * sizeof *w);
		if (!w) {
			l->nomem = 1;
			return;
		}
		l->w = w;
		l->cap = cap;
	}
	if (!(l->w[l->n] = strdup(s))) {
		l->nomem = 1;
		return;
	}
	l->w[++l->n] = NULL;
}

static void add_key(struct line *l, const char *s)
{
	size_t n = strlen(s) + 1;
	char *k = l->nomem ? NULL : realloc(l->key, l->klen + n + 1);
	if (!k) {
		l->nomem = 1;
		return;
	}
	memcpy(k + l->klen, s, n);    /* words apart by NULs; a second NUL ends the key */
	l->klen += n;
	k[l->klen] = '\0';
	l->key = k;
}

void mcp_argv_free(char **argv)
{
	for (int i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

static void line_free(struct line *l)
{
	mcp_argv_free(l->w);
	free(l->key);
}

/* a string or a number (integral: no exponent) as text into buf; -1: neither */
static int scalar_text(const cJSON *v, int integer, char *buf, size_t n)
{
	if (cJSON_IsString(v) && !integer) {
		snprintf(buf, n, "%s", v->valuestring);
		return 0;
	}
	if (!cJSON_IsNumber(v))
		return -1;
	double d = v->valuedouble;
	if (d == floor(d) && fabs(d) < 9007199254740992.0)
		snprintf(buf, n, "%.0f", d);
	else if (integer)
		return -1;
	else
		snprintf(buf, n, "%.17g", d);
	return 0;
}

/* one value of option o as a word "--name=value", "--name", or none (false) */
static int option_word(const struct cli_option *o, const cJSON *v, char *buf, size_t n, int *none)
{
	char val[4096];
	const char *name = o->name[1] != '-' && o->alias ? o->alias : o->name;
	*none = 0;
	switch (o->kind) {
	case OPT_FLAG:
		if (!cJSON_IsBool(v))
			return -1;
		*none = cJSON_IsFalse(v);
		snprintf(buf, n, "%s", name);
		return 0;
	case OPT_OPTNUM:
	case OPT_OPTVALUE:
		if (cJSON_IsBool(v)) {
			*none = cJSON_IsFalse(v);
			snprintf(buf, n, "%s", name);
			return 0;
		}
		if (scalar_text(v, 1, val, sizeof val) || v->valuedouble < 0)
			return -1;
		break;
	case OPT_CHOICE:
		if (!cJSON_IsString(v))
			return -1;
		snprintf(val, sizeof val, "%s", v->valuestring);
		break;
	default:
		if (scalar_text(v, numeric(o), val, sizeof val))
			return -1;
	}
	if ((size_t)snprintf(buf, n, "%s=%s", name, val) >= n)
		return -1;
	return 0;
}

static const char *type_of(const struct cli_option *o)
{
	switch (o->kind) {
	case OPT_FLAG: return "a boolean";
	case OPT_CHOICE: return "a string";
	case OPT_OPTNUM: case OPT_OPTVALUE: return "an integer (0 or more) or a boolean";
	default: return numeric(o) ? "an integer" : "a string";
	}
}

static const struct cli_option *option_of(const struct cli_command *c, const char *prop)
{
	for (const struct cli_option *const *tab = c->options; *tab; tab++)
		for (const struct cli_option *o = *tab; o->name; o++)
			if (!left_out(c, o) && !strcmp(prop_name(o), prop))
				return o;
	return NULL;
}

/* the strings of v (a string, or an array of strings when many) into l */
static int strings(struct line *l, const cJSON *v, int many)
{
	if (!many) {
		if (!cJSON_IsString(v))
			return -1;
		add(l, v->valuestring);
		return 0;
	}
	if (!cJSON_IsArray(v) || !cJSON_GetArraySize(v))
		return -1;
	for (const cJSON *e = v->child; e; e = e->next)
		if (!cJSON_IsString(e))
			return -1;
	for (const cJSON *e = v->child; e; e = e->next)
		add(l, e->valuestring);
	return 0;
}

int mcp_tool_argv(const struct cli_command *c, const cJSON *args, char ***argv, int *argc, char **key,
		  char *err, size_t n)
{
	struct line l = { 0 };
	*argv = NULL;
	*key = NULL;
	if (args && !cJSON_IsObject(args)) {
		snprintf(err, n, "arguments: an object expected");
		return -1;
	}
	struct words w;
	words_of(c, &w);
	const char *files = c->min_files >= 2 ? "files" : "file";
	/* every argument is a property of the schema, of its type */
	for (const cJSON *a = args ? args->child : NULL; a; a = a->next) {
		const struct cli_option *o = option_of(c, a->string);
		int known = !strcmp(a->string, files);
		for (int i = 0; i < w.n; i++)
			known |= !strcmp(a->string, w.name[i]);
		if (!o && !known) {
			snprintf(err, n, "%s: unknown argument '%s'", c->name, a->string);
			return -1;
		}
		if (cJSON_IsNull(a)) {
			snprintf(err, n, "%s: argument '%s' is null", c->name, a->string);
			return -1;
		}
	}
	add(&l, "hprofan");
	add(&l, c->name);
	add(&l, "--json");
	add(&l, "--quiet");
	/* the options, in the order of the tables; the session's into the key */
	for (const struct cli_option *const *tab = c->options; *tab; tab++)
		for (const struct cli_option *o = *tab; o->name; o++) {
			const cJSON *v = left_out(c, o) ? NULL : cJSON_GetObjectItemCaseSensitive(args, prop_name(o));
			if (!v)
				continue;
			int many = (o->flags & OPTF_REPEAT) != 0;
			if (many && !cJSON_IsArray(v)) {
				snprintf(err, n, "%s: '%s' is an array, each item %s", c->name, prop_name(o), type_of(o));
				goto bad;
			}
			for (const cJSON *e = many ? v->child : v; e; e = many ? e->next : NULL) {
				char word[4200];
				int none;
				if (option_word(o, e, word, sizeof word, &none)) {
					snprintf(err, n, "%s: '%s' is %s", c->name, prop_name(o), type_of(o));
					goto bad;
				}
				if (none)
					continue;
				add(&l, word);
				if (session_option(o))
					add_key(&l, word);
			}
		}
	add(&l, "--");
	int dashes = l.n;
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(args, files);
	if (!f) {
		snprintf(err, n, "%s: missing argument '%s'", c->name, files);
		goto bad;
	}
	int nf = cJSON_IsArray(f) ? cJSON_GetArraySize(f) : 1;
	if (strings(&l, f, c->min_files >= 2) || nf < c->min_files || nf > c->max_files) {
		if (c->min_files >= 2)
			snprintf(err, n, "%s: 'files' is an array of %d to %d file names", c->name, c->min_files,
				 c->max_files);
		else
			snprintf(err, n, "%s: 'file' is a file name (a string)", c->name);
		goto bad;
	}
	for (int i = dashes; i < l.n; i++)
		add_key(&l, l.w[i]);
	for (int i = 0; i < w.n; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, w.name[i]);
		if (!v) {
			snprintf(err, n, "%s: missing argument '%s'", c->name, w.name[i]);
			goto bad;
		}
		if (strings(&l, v, w.repeat)) {
			snprintf(err, n, "%s: '%s' is %s", c->name, w.name[i],
				 w.repeat ? "an array of strings (one at least)" : "a string");
			goto bad;
		}
	}
	add_key(&l, "");
	if (l.nomem) {
		snprintf(err, n, "out of memory");
		goto bad;
	}
	*argv = l.w;
	*argc = l.n;
	*key = l.key;
	return 0;
bad:
	line_free(&l);
	return -1;
}

int mcp_key_same(const char *a, const char *b)
{
	for (;;) {
		if (strcmp(a, b))
			return 0;
		if (!*a)
			return 1;     /* the empty word ends both */
		a += strlen(a) + 1;
		b += strlen(b) + 1;
	}
}
