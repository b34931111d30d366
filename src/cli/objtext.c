/* objtext.c — objects, GC roots, references, values and Java text as the
 * commands print them (tables and JSON), and the paths from GC roots. */
#include "cli/objtext.h"
#include "cli/command.h"
#include "cli/msg.h"
#include "cli/format.h"
#include "cli/filter.h"
#include "cli/load.h"
#include "cli/output.h"
#include "base/text.h"
#include "base/alloc.h"
#include "base/cmp.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define THREAD_NAME_CHARS 200

/* ---- objects ---------------------------------------------------------- */

const char *cli_object_label(const hp_heap *h, size_t obj, char *buf, size_t n)
{
	char nm[512];
	if (hp_heap_kind(h, obj) == HP_OBJ_CLASS) {
		size_t k = hp_idmap_get(&h->class_map, hp_heap_id(h, obj));
		if (k != HP_IDMAP_NONE) {
			snprintf(buf, n, "class %s @0x%llx", hp_text_safe(hp_class_name(h, k), nm, sizeof nm),
				 (unsigned long long)hp_heap_id(h, obj));
			return buf;
		}
	}
	snprintf(buf, n, "%s @0x%llx", hp_text_safe(hp_class_name(h, h->cls[obj]), nm, sizeof nm),
		 (unsigned long long)hp_heap_id(h, obj));
	return buf;
}

const char *cli_loader_label(const hp_heap *h, uint64_t id, char *buf, size_t n)
{
	size_t o = id && h->nobj ? hp_heap_find(h, id) : SIZE_MAX;
	if (!id)
		snprintf(buf, n, "<bootstrap>");
	else if (o != SIZE_MAX)
		snprintf(buf, n, "%s@0x%llx", hp_class_name(h, h->cls[o]), (unsigned long long)id);
	else if (h->nobj)
		snprintf(buf, n, "0x%llx (not in the dump)", (unsigned long long)id);
	else
		snprintf(buf, n, "0x%llx", (unsigned long long)id);   /* no object table */
	return buf;
}

int cli_parse_object_id(const char *s, uint64_t *id)
{
	char *end;
	errno = 0;
	/* "@0x1f2e" as the tables print it, pasted back */
	if (s[0] == '@')
		s++;
	/* hex with 0x, else decimal (010000 is ten thousand, not octal) */
	int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	if (s[0] == '-' || s[0] == '+' || s[0] == ' ' || (hex && (s[2] == '-' || s[2] == '+' || s[2] == ' ')))
		return -1;
	unsigned long long v = strtoull(hex ? s + 2 : s, &end, hex ? 16 : 10);
	if (errno || end == (hex ? s + 2 : s) || *end)
		return -1;
	*id = v;
	return 0;
}

/* a Java class name as it is written: letters, digits, '.', '$', '_' (any
 * non-ASCII letter too), then "[]"s */
static int java_name(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	if (!*p || (*p >= '0' && *p <= '9'))
		return 0;
	for (; *p && *p != '['; p++)
		if (!(*p >= 0x80 || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '.' || *p == '$' || *p == '_'))
			return 0;
	while (p[0] == '[' && p[1] == ']')
		p += 2;
	return *p == 0;
}

int cli_id_arg(const struct cli_ctx *x, uint64_t *id)
{
	if (cli_parse_object_id(x->args[0], id) == 0 && *id)
		return EXIT_OK;
	if (java_name(x->args[0])) {
		*id = 0;          /* a class name: its class object, once the model is read */
		return EXIT_OK;
	}
	char a[256];
	cli_error("%s: '%s' is not an object id or a class name: give the id in hex (0x7f3a10) or decimal, "
		  "or a class name (java.util.HashMap)", x->cmd->name, hp_text_safe(x->args[0], a, sizeof a));
	return EXIT_USAGE;
}

int cli_object_arg(const struct cli_ctx *x, hp_session *S, const hp_heap *h, uint64_t id, size_t *v)
{
	const char *file = hp_session_path(S);
	if (id) {
		if ((*v = hp_heap_find(h, id)) == SIZE_MAX) {
			cli_error("%s: no object 0x%llx in the dump", file, (unsigned long long)id);
			return EXIT_BAD;
		}
		return EXIT_OK;
	}
	uint32_t *cls;
	size_t n;
	int rc = cli_classes_named(h, file, x->args[0], &cls, &n);
	if (rc)
		return rc;
	char ids[512] = "";
	size_t l = 0, found = 0;
	*v = SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		size_t o = hp_heap_find(h, h->classes[cls[i]].id);
		if (o == SIZE_MAX)
			continue;
		found++;
		*v = o;
		int w = snprintf(ids + l, sizeof ids - l, "%s0x%llx", l ? ", " : "", (unsigned long long)h->classes[cls[i]].id);
		if (w > 0 && (size_t)w < sizeof ids - l)
			l += (size_t)w;
	}
	hp_free(cls);
	char nm[256];
	if (!found) {
		cli_error("%s: the class object of %s is not in the dump (only its name is)", file,
			  hp_text_safe(x->args[0], nm, sizeof nm));
		return EXIT_BAD;
	}
	if (found > 1) {
		cli_error("%s: %zu classes are named %s (one per class loader): give the id of one: %s", file, found,
			  hp_text_safe(x->args[0], nm, sizeof nm), ids);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

static int by_u32(const void *a, const void *b)
{
	return hp_cmp_u64(*(const uint32_t *)a, *(const uint32_t *)b);
}

int cli_class_objects(hp_session *S, const hp_heap *h, const uint8_t *want, uint32_t **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	const uint32_t *off, *objs;
	struct hp_error err;
	hp_error_clear(&err);
	int hr = hp_session_by_class(S, &off, &objs, &err);
	if (hr)
		return cli_fail(hp_session_path(S), &err, hr);
	size_t k = 0, parts = 0;
	for (size_t c = 0; c < h->nclasses; c++)
		if (want[c]) {
			k += off[c + 1] - off[c];
			parts++;
		}
	uint32_t *o = hp_reallocarray(NULL, k ? k : 1, sizeof *o);
	if (!o) {
		cli_error("out of memory");
		return EXIT_NOMEM;
	}
	for (size_t c = 0; c < h->nclasses; c++)
		if (want[c] && off[c + 1] > off[c]) {
			memcpy(o + *n, objs + off[c], (off[c + 1] - off[c]) * sizeof *o);
			*n += off[c + 1] - off[c];
		}
	if (parts > 1)   /* each class's in order: the union in order too */
		qsort(o, *n, sizeof *o, by_u32);
	*out = o;
	return EXIT_OK;
}

int cli_object_set(const struct cli_ctx *x, hp_session *S, const hp_heap *h, uint32_t **set, size_t *n)
{
	uint8_t *want = hp_calloc(h->nclasses ? h->nclasses : 1, 1);
	size_t cap = 0;
	int any = 0;
	*set = NULL;
	*n = 0;
	if (!want)
		goto nomem;
	for (int a = 0; a < x->nargs; a++) {
		uint64_t id;
		if (cli_parse_object_id(x->args[a], &id) == 0 && id) {
			size_t v = hp_heap_find(h, id);
			if (v == SIZE_MAX) {
				cli_error("%s: no object 0x%llx in the dump", hp_session_path(S), (unsigned long long)id);
				hp_free_all(want, *set);
				return EXIT_BAD;
			}
			uint32_t *t = *n < cap ? *set : hp_grow(*set, &cap, *n + 1, 64, sizeof **set);
			if (!t)
				goto nomem;
			*set = t;
			(*set)[(*n)++] = (uint32_t)v;
			continue;
		}
		uint32_t *cls;
		size_t nc;
		int rc = cli_classes_named(h, hp_session_path(S), x->args[a], &cls, &nc);
		if (rc) {
			hp_free_all(want, *set);
			return rc;
		}
		for (size_t i = 0; i < nc; i++)
			want[cls[i]] = 1;
		any = 1;
		hp_free(cls);
	}
	uint32_t *objs = NULL;
	size_t k = 0;
	int rc = any ? cli_class_objects(S, h, want, &objs, &k) : EXIT_OK;
	hp_free(want);
	want = NULL;
	if (rc) {
		hp_free(*set);
		*set = NULL;
		*n = 0;
		return rc;
	}
	if (k && *n + k > cap) {
		uint32_t *t = hp_grow(*set, &cap, *n + k, 1024, sizeof **set);
		if (!t) {
			hp_free(objs);
			goto nomem;
		}
		*set = t;
	}
	for (size_t i = 0; i < k; i++)
		if (hp_heap_kind(h, objs[i]) != HP_OBJ_CLASS)
			(*set)[(*n)++] = objs[i];
	hp_free(objs);
	return EXIT_OK;
nomem:
	hp_free_all(want, *set);
	*set = NULL;
	cli_error("out of memory");
	return EXIT_NOMEM;
}

cJSON *cli_object_json(const hp_heap *h, size_t obj)
{
	cJSON *e = cJSON_CreateObject();
	char id[32];
	snprintf(id, sizeof id, "0x%llx", (unsigned long long)hp_heap_id(h, obj));
	cJSON_AddStringToObject(e, "id", id);
	cJSON_AddStringToObject(e, "class", hp_class_name(h, h->cls[obj]));
	if (hp_heap_kind(h, obj) == HP_OBJ_CLASS) {
		size_t ci = hp_idmap_get(&h->class_map, hp_heap_id(h, obj));
		if (ci != HP_IDMAP_NONE)
			cJSON_AddStringToObject(e, "class_object_of", hp_class_name(h, ci));
	}
	return e;
}

/* ---- Java text -------------------------------------------------------- */

/* appends p[*i] to s[*o], escaped for a quoted Java string; s has room */
static void put_escaped(char *s, size_t *o, const unsigned char *p, size_t *i, size_t len, int json)
{
	unsigned c = p[*i];
	const char *esc = NULL;
	switch (c) {
	case '"': esc = "\\\""; break;
	case '\\': esc = "\\\\"; break;
	case '\n': esc = "\\n"; break;
	case '\t': esc = "\\t"; break;
	case '\r': esc = "\\r"; break;
	}
	if (esc) {
		size_t k = strlen(esc);
		memcpy(s + *o, esc, k);
		*o += k;
		(*i)++;
		return;
	}
	if (c < 0x20 || c == 0x7f) {
		*o += (size_t)snprintf(s + *o, 7, "\\u%04x", c);
		(*i)++;
		return;
	}
	/* C1 controls (U+0080..U+009F) would reach the terminal as CSI & co */
	if (!json && c == 0xc2 && *i + 1 < len && p[*i + 1] >= 0x80 && p[*i + 1] <= 0x9f) {
		*o += (size_t)snprintf(s + *o, 7, "\\u%04x", p[*i + 1]);
		*i += 2;
		return;
	}
	s[(*o)++] = (char)c;
	(*i)++;
}

static char *quote(const struct hp_text *t, int json)
{
	size_t len = t->len;
	char *s = hp_malloc(len * 6 + 8);
	if (!s)
		return NULL;
	size_t o = 0, i = 0;
	const unsigned char *p = (const unsigned char *)t->utf8;
	s[o++] = '"';
	while (i < len)
		put_escaped(s, &o, p, &i, len, json);
	s[o++] = '"';
	if (!json && t->truncated) {
		memcpy(s + o, "...", 3);
		o += 3;
	}
	s[o] = '\0';
	return s;
}

char *cli_quote_text(const struct hp_text *t)
{
	if (!t->utf8) {
		size_t n = strlen(t->why ? t->why : "?") + 3;
		char *s = hp_malloc(n);
		if (s)
			snprintf(s, n, "(%s)", t->why ? t->why : "?");
		return s;
	}
	return quote(t, 0);
}

cJSON *cli_text_json(const struct hp_text *t)
{
	if (!t->utf8)
		return cJSON_CreateNull();
	if (!memchr(t->utf8, 0, t->len))
		return cJSON_CreateString(t->utf8);
	char *s = quote(t, 1);
	if (!s)
		return NULL;
	cJSON *j = cJSON_CreateRaw(s);
	hp_free(s);
	return j;
}

/* ---- primitive values --------------------------------------------------- */

static double real_of(uint8_t type, uint64_t bits)
{
	if (type == HP_T_FLOAT) {
		uint32_t b = (uint32_t)bits;
		float f;
		memcpy(&f, &b, sizeof f);
		return f;
	}
	double d;
	memcpy(&d, &bits, sizeof d);
	return d;
}

static int64_t signed_of(uint8_t type, uint64_t bits)
{
	switch (type) {
	case HP_T_BYTE: return (int8_t)bits;
	case HP_T_SHORT: return (int16_t)bits;
	case HP_T_INT: return (int32_t)bits;
	default: return (int64_t)bits;
	}
}

/* a char as a Java literal: 'a', '\n', '\u0000', 'é' */
static void fmt_char(char *buf, size_t n, uint32_t u)
{
	if (u == '\'' || u == '\\') {
		snprintf(buf, n, "'\\%c'", (char)u);
	} else if (u == '\n') {
		snprintf(buf, n, "'\\n'");
	} else if (u == '\t') {
		snprintf(buf, n, "'\\t'");
	} else if (u < 0x20 || (u >= 0x7f && u < 0xa0) || (u >= 0xd800 && u <= 0xdfff)) {
		snprintf(buf, n, "'\\u%04x'", u);
	} else {
		char c[8];
		c[hp_utf8_put(c, u)] = '\0';
		snprintf(buf, n, "'%s'", c);
	}
}

const char *cli_prim_text(char *buf, size_t n, uint8_t type, uint64_t bits)
{
	switch (type) {
	case HP_T_BOOLEAN:
		snprintf(buf, n, "%s", bits ? "true" : "false");
		break;
	case HP_T_CHAR:
		fmt_char(buf, n, (uint32_t)bits);
		break;
	case HP_T_FLOAT:
	case HP_T_DOUBLE:
		hp_text_real(buf, n, real_of(type, bits), type == HP_T_FLOAT);
		break;
	default:
		snprintf(buf, n, "%lld", (long long)signed_of(type, bits));
		break;
	}
	return buf;
}

cJSON *cli_prim_json(uint8_t type, uint64_t bits)
{
	char b[64];
	switch (type) {
	case HP_T_BOOLEAN:
		return cJSON_CreateBool(bits != 0);
	case HP_T_CHAR: {
		uint32_t u = (uint32_t)bits;
		if (u == 0 || (u >= 0xd800 && u <= 0xdfff)) {
			snprintf(b, sizeof b, "\"\\u%04x\"", u);
			return cJSON_CreateRaw(b);
		}
		char c[8];
		c[hp_utf8_put(c, u)] = '\0';
		return cJSON_CreateString(c);
	}
	case HP_T_FLOAT:
	case HP_T_DOUBLE: {
		double d = real_of(type, bits);
		hp_text_real(b, sizeof b, d, type == HP_T_FLOAT);
		if (isnan(d) || isinf(d))
			return cJSON_CreateString(b);
		return cJSON_CreateRaw(b);
	}
	default:
		snprintf(b, sizeof b, "%lld", (long long)signed_of(type, bits));
		return cJSON_CreateRaw(b);
	}
}

/* ---- GC roots and threads ----------------------------------------------- */

/* the kinds of the roots naming obj, and the thread of the first one that
 * names a thread (not the thread object itself) */
static unsigned root_kinds(const hp_heap *h, uint32_t obj, int *thread_kind, uint32_t *serial)
{
	unsigned kinds = 0;
	*thread_kind = -1;
	for (size_t i = 0; i < h->nroots; i++) {
		const struct hp_root_rec *r = &h->roots[i];
		if (r->object != hp_heap_id(h, obj))
			continue;
		kinds |= 1u << r->kind;
		if (*thread_kind < 0 && r->has_thread && r->kind != HP_ROOT_THREAD_OBJECT) {
			*thread_kind = r->kind;
			*serial = r->thread_serial;
		}
	}
	return kinds;
}

int cli_thread_text(const hp_heap *h, hp_objread *rd, uint32_t serial, struct hp_text *t)
{
	memset(t, 0, sizeof *t);
	uint32_t k = hp_idmap_get(&h->thread_map, serial);
	if (k == HP_IDMAP_NONE)
		return 0;
	const struct hp_thread_rec *th = &h->threads[k];
	size_t o = th->object_id ? hp_heap_find(h, th->object_id) : SIZE_MAX;
	if (rd && o != SIZE_MAX) {
		struct hp_error err;
		hp_error_clear(&err);
		if (hp_objread_thread_name(rd, o, THREAD_NAME_CHARS, t, &err) == HP_OK && t->utf8)
			return 1;
		hp_objread_text_release(t);
	}
	uint32_t len;
	const char *s = th->name_sid ? hp_heap_string(h, th->name_sid, &len) : NULL;
	if (s && (t->utf8 = hp_mutf8_to_utf8(s, len, &t->len)) != NULL)
		return 1;
	return 0;
}

const char *cli_root_text(const hp_heap *h, hp_objread *rd, uint32_t obj, char *buf, size_t n)
{
	int tk;
	uint32_t serial = 0;
	unsigned kinds = root_kinds(h, obj, &tk, &serial);
	size_t o = 0;
	buf[0] = '\0';
	for (int k = 0; k < HP_ROOT_NKINDS && o < n; k++) {
		if (!(kinds & (1u << k)))
			continue;
		int w = snprintf(buf + o, n - o, "%s%s", o ? ", " : "", hp_root_kind_name(k));
		o = w > 0 && (size_t)w < n - o ? o + (size_t)w : n - 1;
		if (k != tk)
			continue;
		struct hp_text t;
		if (cli_thread_text(h, rd, serial, &t)) {
			char *q = cli_quote_text(&t);
			w = snprintf(buf + o, n - o, " (thread %s)", q ? q : "?");
			hp_free(q);
		} else {
			w = snprintf(buf + o, n - o, " (thread %u)", serial);
		}
		hp_objread_text_release(&t);
		o = w > 0 && (size_t)w < n - o ? o + (size_t)w : n - 1;
	}
	return buf;
}

void cli_root_json(cJSON *e, const hp_heap *h, hp_objread *rd, uint32_t obj)
{
	int tk;
	uint32_t serial = 0;
	unsigned kinds = root_kinds(h, obj, &tk, &serial);
	if (!kinds)
		return;
	cJSON *a = cJSON_AddArrayToObject(e, "gc_root");
	for (int k = 0; k < HP_ROOT_NKINDS; k++)
		if (kinds & (1u << k))
			cJSON_AddItemToArray(a, cJSON_CreateString(hp_root_kind_key(k)));
	if (tk < 0)
		return;
	cli_json_u64(e, "thread_serial", serial);
	struct hp_text t;
	if (cli_thread_text(h, rd, serial, &t))
		cJSON_AddItemToObject(e, "thread", cli_text_json(&t));
	hp_objread_text_release(&t);
}

/* ---- stack frames ---------------------------------------------------------- */

/* a name from the dump's strings, safe for the terminal ("" when none) */
static const char *str_text(const hp_heap *h, uint64_t sid, char *buf, size_t n)
{
	uint32_t len;
	const char *s = sid ? hp_heap_string(h, sid, &len) : NULL;
	char *u;
	buf[0] = '\0';
	if (s && (u = hp_mutf8_to_utf8(s, len, NULL))) {
		hp_text_safe(u, buf, n);
		hp_free(u);
	}
	return buf;
}

/* the declaring class of a frame, or "" */
const char *cli_frame_class(const hp_heap *h, const struct hp_frame *f)
{
	uint32_t ci = hp_idmap_get(&h->serial_map, f->class_serial);
	return ci == HP_IDMAP_NONE ? "" : hp_class_name(h, ci);
}

/* key: a string of the dump as UTF-8, left out when sid is 0 or unknown */
static void json_sid(cJSON *e, const char *key, const hp_heap *h, uint64_t sid)
{
	uint32_t len;
	const char *s = sid ? hp_heap_string(h, sid, &len) : NULL;
	char *u = s ? hp_mutf8_to_utf8(s, len, NULL) : NULL;
	if (u)
		cJSON_AddStringToObject(e, key, u);
	hp_free(u);
}

void cli_frame_json(cJSON *fe, const hp_heap *h, const struct hp_frame *f)
{
	if (!f)
		return;
	if (cli_frame_class(h, f)[0])
		cJSON_AddStringToObject(fe, "class", cli_frame_class(h, f));
	json_sid(fe, "method", h, f->method_sid);
	json_sid(fe, "signature", h, f->signature_sid);
	json_sid(fe, "source", h, f->source_sid);
	cJSON_AddNumberToObject(fe, "line", f->line);
}

/* "at com.acme.Foo.bar(Foo.java:42)"; line -1 unknown, -2 compiled, -3 native */
const char *cli_frame_text(const hp_heap *h, const struct hp_frame *f, char *buf, size_t n)
{
	char m[256], src[256], cls[512];
	str_text(h, f->method_sid, m, sizeof m);
	str_text(h, f->source_sid, src, sizeof src);
	hp_text_safe(cli_frame_class(h, f), cls, sizeof cls);
	const char *file = src[0] ? src : "Unknown Source";
	if (f->line > 0)
		snprintf(buf, n, "at %s.%s(%s:%d)", cls[0] ? cls : "?", m[0] ? m : "?", file, f->line);
	else if (f->line == -3)
		snprintf(buf, n, "at %s.%s(Native Method)", cls[0] ? cls : "?", m[0] ? m : "?");
	else if (f->line == -2)
		snprintf(buf, n, "at %s.%s(%s, compiled method)", cls[0] ? cls : "?", m[0] ? m : "?", file);
	else
		snprintf(buf, n, "at %s.%s(%s)", cls[0] ? cls : "?", m[0] ? m : "?", file);
	return buf;
}

void cli_tl_key_json(cJSON *e, const hp_heap *h, const struct hp_tl_key *K)
{
	cJSON_AddStringToObject(e, "name", K->name);
	if (K->holder != HP_NONE)
		cJSON_AddStringToObject(e, "static_field", K->name);
	else
		cJSON_AddNullToObject(e, "static_field");
	if (K->tl != HP_NONE)
		cJSON_AddItemToObject(e, "thread_local", cli_object_json(h, K->tl));
	else
		cJSON_AddNullToObject(e, "thread_local");
}

/* ---- references ----------------------------------------------------------- */

const char *cli_via_text(const hp_heap *h, const struct hp_objref *r, char *buf, size_t n)
{
	char nm[512];
	switch (r->kind) {
	case HP_REF_FIELD:
		snprintf(buf, n, ".%s", hp_text_safe(r->name ? r->name : "?", nm, sizeof nm));
		break;
	case HP_REF_ELEMENT:
		snprintf(buf, n, "[%llu]", (unsigned long long)r->index);
		break;
	case HP_REF_STATIC:
		snprintf(buf, n, "static %s", hp_text_safe(r->name ? r->name : "?", nm, sizeof nm));
		break;
	case HP_REF_SUPER:
		snprintf(buf, n, "<super class>");
		break;
	case HP_REF_LOADER:
		snprintf(buf, n, "<class loader>");
		break;
	case HP_REF_LOCAL:
		snprintf(buf, n, "<%s>", hp_root_kind_name(r->root_kind));
		break;
	case HP_REF_CLASS:
		snprintf(buf, n, "<class>");
		break;
	default:
		snprintf(buf, n, "<?>");
		break;
	}
	return buf;
}

static const char *simple(const char *n)
{
	const char *d = strrchr(n, '.');
	return d ? d + 1 : n;
}

/* the class an object's references are named after (the class a class object is) */
static const char *own_class(const hp_heap *h, uint32_t v)
{
	if (hp_heap_kind(h, v) == HP_OBJ_CLASS) {
		size_t k = hp_idmap_get(&h->class_map, hp_heap_id(h, v));
		if (k != HP_IDMAP_NONE)
			return hp_class_name(h, k);
	}
	return hp_class_name(h, h->cls[v]);
}

void cli_ref_text(const hp_heap *h, uint32_t from, const struct hp_objref *r, char *buf, size_t n, size_t *at)
{
	size_t at_;
	if (!at)
		at = &at_;
	char cn[300], fn[300];
	const char *c = simple(own_class(h, from));
	if ((r->kind == HP_REF_FIELD || r->kind == HP_REF_STATIC) && r->decl != HP_NONE && r->decl < h->nclasses)
		c = simple(hp_class_name(h, r->decl));
	hp_text_safe(c, cn, sizeof cn);
	const char *pre = r->kind == HP_REF_STATIC ? "static " : "";
	int w;
	switch (r->kind) {
	case HP_REF_FIELD:
	case HP_REF_STATIC:
		hp_text_safe(r->name ? r->name : "?", fn, sizeof fn);
		w = snprintf(buf, n, "%s%s.", pre, cn);
		snprintf(buf + (w > 0 && (size_t)w < n ? (size_t)w : 0), n - (w > 0 && (size_t)w < n ? (size_t)w : 0), "%s", fn);
		*at = w > 0 && (size_t)w < n ? (size_t)w : 0;
		return;
	case HP_REF_ELEMENT:
		w = snprintf(buf, n, "%s", cn);
		snprintf(buf + (w > 0 && (size_t)w < n ? (size_t)w : 0), n - (w > 0 && (size_t)w < n ? (size_t)w : 0),
			 "[%llu]", (unsigned long long)r->index);
		*at = w > 0 && (size_t)w < n ? (size_t)w : 0;
		return;
	default: {
		char via[200];
		cli_via_text(h, r, via, sizeof via);
		w = snprintf(buf, n, "%s", cn);
		snprintf(buf + (w > 0 && (size_t)w < n ? (size_t)w : 0), n - (w > 0 && (size_t)w < n ? (size_t)w : 0), "%s", via);
		*at = w > 0 && (size_t)w < n ? (size_t)w : 0;
		return;
	}
	}
}

cJSON *cli_via_json(const hp_heap *h, const struct hp_objref *r)
{
	static const char *const kinds[] = { "unknown", "field", "element", "static", "super", "loader",
					     "local", "class" };
	cJSON *e = cJSON_CreateObject();
	int k = r->kind >= 0 && r->kind <= HP_REF_CLASS ? r->kind : 0;
	cJSON_AddStringToObject(e, "kind", kinds[k]);
	if (k == HP_REF_FIELD || k == HP_REF_STATIC) {
		cJSON_AddStringToObject(e, "name", r->name ? r->name : "?");
		if (r->decl != HP_NONE)
			cJSON_AddStringToObject(e, "declared_by", hp_class_name(h, r->decl));
	} else if (k == HP_REF_ELEMENT) {
		cli_json_u64(e, "index", r->index);
	} else if (k == HP_REF_LOCAL) {
		cJSON_AddStringToObject(e, "root_kind", hp_root_kind_key(r->root_kind));
		if (r->frame != UINT32_MAX)
			cli_json_u64(e, "frame", r->frame);
	}
	if (r->count > 1)
		cli_json_u64(e, "count", r->count);
	return e;
}

/* ---- paths ---------------------------------------------------------------- */

cJSON *cli_step_json(const hp_heap *h, hp_objread *rd, uint32_t v, const struct hp_objref *via)
{
	cJSON *s = cli_object_json(h, v);
	cli_json_u64(s, "shallow", hp_heap_shallow(h, v));
	if (!via)
		cli_root_json(s, h, rd, v);
	else
		cJSON_AddItemToObject(s, "via", cli_via_json(h, via));
	return s;
}

static int report(hp_session *S, const struct hp_error *err, int rc)
{
	cli_error("%s: %s", hp_session_path(S), err->msg[0] ? err->msg : "error");
	return cli_exit_code(rc);
}

size_t cli_path_head(const struct cli_ctx *x)
{
	return x->c->full_path ? HP_PATH_WHOLE : HP_PATH_HEAD;
}

size_t cli_path_tail(const struct cli_ctx *x)
{
	return x->c->full_path ? HP_PATH_WHOLE : HP_PATH_TAIL;
}

const char *cli_gap_text(const struct hp_path_gap *g, int hint, char *buf, size_t n)
{
	char c[32];
	snprintf(buf, n, "... %s more%s", cli_fmt_count(g->n, c, sizeof c), hint ? " (--full-path shows every step)" : "");
	return buf;
}

void cli_gap_json(cJSON *o, const char *prefix, const struct hp_path_gap *g)
{
	char key[64];
	if (!g->n)
		return;
	snprintf(key, sizeof key, "%selided", prefix);
	cli_json_u64(o, key, g->n);
	snprintf(key, sizeof key, "%selided_at", prefix);
	cli_json_u64(o, key, g->at);
}

int cli_prefetch_steps(const hp_heap *h, hp_objread *rd, const uint32_t *objs, size_t n, const uint32_t *starts,
		       size_t nstarts, struct hp_error *err)
{
	uint32_t *pre = hp_reallocarray(NULL, n + nstarts + 1, sizeof *pre);
	if (!pre)
		return hp_error_set(err, HP_ENOMEM, "out of memory");
	if (n)
		memcpy(pre, objs, n * sizeof *pre);
	size_t np = n;
	for (size_t i = 0; i < nstarts; i++) {
		int tk;
		uint32_t serial = 0;
		root_kinds(h, starts[i], &tk, &serial);
		uint32_t t = tk >= 0 ? hp_idmap_get(&h->thread_map, serial) : HP_IDMAP_NONE;
		size_t to = t != HP_IDMAP_NONE ? hp_heap_find(h, h->threads[t].object_id) : SIZE_MAX;
		if (to != SIZE_MAX)
			pre[np++] = (uint32_t)to;
	}
	int rc = hp_objread_prefetch_text(rd, pre, np, err);
	hp_free(pre);
	return rc;
}

const char *cli_class_edge_note(void)
{
	return "(<class> is Eclipse MAT's reference from an object to its class: taken only where no path without one goes on)";
}

/* cli_list_paths(); hint: the line for a gap names --full-path */
static int list_paths(hp_session *S, uint32_t obj, size_t k, int all_weak, int whole, int hint, FILE *f, cJSON *arr,
		      size_t *npaths)
{
	*npaths = 0;
	const struct hp_pathsearch *ps;
	const hp_heap *h;
	hp_objread *rd;
	int rc;
	if ((rc = cli_model(S, &h)) || (rc = cli_objread(S, &rd)) || (rc = cli_paths(S, all_weak, &ps)))
		return rc;
	struct hp_error err;
	hp_error_clear(&err);
	struct hp_pathlist pl;
	memset(&pl, 0, sizeof pl);
	size_t head = whole ? HP_PATH_WHOLE : HP_PATH_HEAD, tail = whole ? HP_PATH_WHOLE : HP_PATH_TAIL;
	rc = hp_paths_shortest_cut(&ps->P, &ps->g, obj, k ? k : SIZE_MAX, head, tail, &pl, &err);
	if (rc)
		return report(S, &err, rc);
	/* one forward pass over a gzip dump for the records and thread names:
	 * the nodes kept, the last each gap leaves out (it names the next) */
	size_t nn = pl.npaths ? pl.first[pl.npaths] : 0;
	uint32_t *pre = hp_reallocarray(NULL, nn + 2 * pl.npaths + 1, sizeof *pre);
	if (!pre) {
		hp_paths_list_release(&pl);
		cli_error("out of memory");
		return EXIT_NOMEM;
	}
	if (nn)
		memcpy(pre, pl.nodes, nn * sizeof *pre);
	size_t np = nn;
	for (size_t p = 0; p < pl.npaths; p++)
		if (pl.gap[p].n)
			pre[np++] = pl.gap[p].last;
	for (size_t p = 0; p < pl.npaths; p++)
		pre[np + p] = pl.nodes[pl.first[p]];
	rc = cli_prefetch_steps(h, rd, pre, np, pre + np, pl.npaths, &err);
	hp_free(pre);
	if (rc) {
		hp_paths_list_release(&pl);
		return report(S, &err, rc);
	}
	for (size_t p = 0; p < pl.npaths && rc == HP_OK; p++) {
		const uint32_t *nodes = pl.nodes + pl.first[p];
		const struct hp_path_gap *g = &pl.gap[p];
		size_t len = pl.first[p + 1] - pl.first[p];
		cJSON *steps = NULL;
		if (arr) {
			cJSON *e = cJSON_CreateObject();
			cli_json_u64(e, "length", len + g->n - 1);
			cli_gap_json(e, "", g);
			steps = cJSON_AddArrayToObject(e, "steps");
			cJSON_AddItemToArray(arr, e);
		} else if (k != 1) {
			fprintf(f, "path %zu of %zu, %zu reference%s:\n", p + 1, pl.npaths, len + g->n - 1,
				len + g->n == 2 ? "" : "s");
		}
		int via_class = 0;
		for (size_t i = 0; i < len; i++) {
			uint32_t v = nodes[i];
			int after_gap = g->n && i == g->at;
			struct hp_objref ref;
			memset(&ref, 0, sizeof ref);
			if (i > 0 && (rc = hp_objread_find_ref(rd, after_gap ? g->last : nodes[i - 1], v, &ref, &err)) != HP_OK)
				break;
			if (arr) {
				cJSON_AddItemToArray(steps, cli_step_json(h, rd, v, i ? &ref : NULL));
				continue;
			}
			char lab[800], via[600], rt[800];
			cli_object_label(h, v, lab, sizeof lab);
			if (after_gap)
				fprintf(f, "  %s\n", cli_gap_text(g, hint, via, sizeof via));
			if (i == 0)
				fprintf(f, "  %s  [GC root: %s]\n", lab, cli_root_text(h, rd, v, rt, sizeof rt));
			else
				fprintf(f, "  %s -> %s\n", cli_via_text(h, &ref, via, sizeof via), lab);
			via_class |= ref.kind == HP_REF_CLASS;
		}
		if (via_class && !arr)
			fprintf(f, "  %s\n", cli_class_edge_note());
	}
	*npaths = pl.npaths;
	hp_paths_list_release(&pl);
	if (rc)
		return report(S, &err, rc);
	return EXIT_OK;
}

int cli_list_paths(hp_session *S, uint32_t obj, size_t k, int all_weak, int whole, FILE *f, cJSON *arr,
		   size_t *npaths)
{
	return list_paths(S, obj, k, all_weak, whole, 1, f, arr, npaths);
}

int cli_show_paths(hp_session *S, uint32_t obj, size_t k, int all_weak, FILE *f, cJSON *arr, size_t *npaths)
{
	return list_paths(S, obj, k, all_weak, 0, 0, f, arr, npaths);
}
