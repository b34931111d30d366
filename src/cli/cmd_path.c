/* hprofan path FILE ID: the shortest paths from GC roots to one object. */
#include "cli/cli.h"
#include "analysis/paths.h"
#include "model/objread.h"
#include "parser/alloc.h"

#include <stdlib.h>
#include <string.h>

#define THREAD_NAME_CHARS 200
#define DEFAULT_PATHS 5

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

static int thread_local_kind(int kind)
{
	return kind == HP_ROOT_JAVA_FRAME || kind == HP_ROOT_JNI_LOCAL || kind == HP_ROOT_NATIVE_STACK ||
	       kind == HP_ROOT_THREAD_BLOCK || kind == HP_ROOT_JNI_MONITOR;
}

/* ---- text ----------------------------------------------------------- */

/* appends c to s[*o], escaped for a quoted Java string; s has room */
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

/* ---- objects, roots, references --------------------------------------- */

cJSON *cli_object_json(const hp_heap *h, size_t obj)
{
	cJSON *e = cJSON_CreateObject();
	char id[32];
	snprintf(id, sizeof id, "0x%llx", (unsigned long long)h->ids[obj]);
	cJSON_AddStringToObject(e, "id", id);
	cJSON_AddStringToObject(e, "class", hp_class_name(h, h->cls[obj]));
	if (hp_heap_kind(h, obj) == HP_OBJ_CLASS) {
		size_t ci = hp_idmap_get(&h->class_map, h->ids[obj]);
		if (ci != HP_IDMAP_NONE)
			cJSON_AddStringToObject(e, "class_object_of", hp_class_name(h, ci));
	}
	return e;
}

/* the kinds of the roots naming obj, and the thread of a thread-local one */
static unsigned root_kinds(const hp_heap *h, uint32_t obj, int *thread_kind, uint32_t *serial)
{
	unsigned kinds = 0;
	*thread_kind = -1;
	for (size_t i = 0; i < h->nroots; i++) {
		const struct hp_root_rec *r = &h->roots[i];
		if (r->object != h->ids[obj])
			continue;
		kinds |= 1u << r->kind;
		if (*thread_kind < 0 && r->has_thread && thread_local_kind(r->kind)) {
			*thread_kind = r->kind;
			*serial = r->thread_serial;
		}
	}
	return kinds;
}

/* the name of thread `serial`: from its Thread object, else from START THREAD */
static int thread_text(const hp_heap *h, struct hp_objread *rd, uint32_t serial, struct hp_text *t)
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

const char *cli_root_text(const hp_heap *h, struct hp_objread *rd, uint32_t obj, char *buf, size_t n)
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
		if (thread_text(h, rd, serial, &t)) {
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

void cli_root_json(cJSON *e, const hp_heap *h, struct hp_objread *rd, uint32_t obj)
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
	json_u64(e, "thread_serial", serial);
	struct hp_text t;
	if (thread_text(h, rd, serial, &t))
		cJSON_AddItemToObject(e, "thread", cli_text_json(&t));
	hp_objread_text_release(&t);
}

const char *cli_via_text(const hp_heap *h, const struct hp_objref *r, char *buf, size_t n)
{
	char nm[512];
	switch (r->kind) {
	case HP_REF_FIELD:
		snprintf(buf, n, ".%s", safe_text(r->name ? r->name : "?", nm, sizeof nm));
		break;
	case HP_REF_ELEMENT:
		snprintf(buf, n, "[%llu]", (unsigned long long)r->index);
		break;
	case HP_REF_STATIC:
		snprintf(buf, n, "static %s", safe_text(r->name ? r->name : "?", nm, sizeof nm));
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

cJSON *cli_via_json(const hp_heap *h, const struct hp_objref *r)
{
	static const char *const kinds[] = { "unknown", "field", "element", "static", "super", "loader",
					     "local", "class" };
	cJSON *e = cJSON_CreateObject();
	int k = r->kind >= 0 && r->kind <= HP_REF_CLASS ? r->kind : 0;
	cJSON_AddStringToObject(e, "kind", kinds[k]);
	if (k == HP_REF_FIELD || k == HP_REF_STATIC) {
		cJSON_AddStringToObject(e, "name", r->name ? r->name : "?");
		if (r->decl != HP_NONE && hp_class_name(h, r->decl))
			cJSON_AddStringToObject(e, "declared_by", hp_class_name(h, r->decl));
	} else if (k == HP_REF_ELEMENT) {
		json_u64(e, "index", r->index);
	} else if (k == HP_REF_LOCAL) {
		cJSON_AddStringToObject(e, "root_kind", hp_root_kind_key(r->root_kind));
		if (r->frame != UINT32_MAX)
			json_u64(e, "frame", r->frame);
	}
	if (r->count > 1)
		json_u64(e, "count", r->count);
	return e;
}

/* ---- paths ---------------------------------------------------------- */

static int report(const char *file, const struct hp_error *err, int rc)
{
	cli_error("%s: %s", file, err->msg[0] ? err->msg : "error");
	return cli_exit_code(rc);
}

int cli_paths_prepare(const struct cli_opts *o, hp_heap *h, int all_weak, struct cli_paths *c)
{
	memset(c, 0, sizeof *c);
	struct hp_error err;
	hp_error_clear(&err);
	uint32_t *starts = hp_reallocarray(NULL, h->nroots ? h->nroots : 1, sizeof *starts);
	if (!starts) {
		cli_error("out of memory");
		return EXIT_NOMEM;
	}
	size_t ns = 0;
	for (size_t i = 0; i < h->nroots; i++) {
		size_t v = hp_heap_find(h, h->roots[i].object);
		if (v != SIZE_MAX)
			starts[ns++] = (uint32_t)v;
	}
	struct hp_refs_opts ro;
	memset(&ro, 0, sizeof ro);
	ro.weak = all_weak ? HP_WEAK_FOLLOW : HP_WEAK_SKIP;
	ro.thread_locals = 0;         /* a stack local is a start of its own */
	int rc = hp_refs_build(h, o->file, &ro, &c->g, &err);
	if (rc) {
		hp_free(starts);
		return report(o->file, &err, rc);
	}
	rc = hp_paths_bfs(&c->P, &c->g, starts, ns, &err);
	hp_free(starts);
	if (rc) {
		hp_refs_release(&c->g);
		return report(o->file, &err, rc);
	}
	c->ready = 1;
	c->all_weak = all_weak;
	return EXIT_OK;
}

void cli_paths_release(struct cli_paths *c)
{
	if (c->ready) {
		hp_paths_release(&c->P);
		hp_refs_release(&c->g);
	}
	memset(c, 0, sizeof *c);
}

int cli_show_paths(const struct cli_opts *o, hp_heap *h, struct hp_objread *rd, uint32_t obj, size_t k,
		   int all_weak, struct cli_paths *ready, FILE *f, cJSON *arr, size_t *npaths)
{
	*npaths = 0;
	struct hp_error err;
	hp_error_clear(&err);
	struct cli_paths own;
	struct cli_paths *c = ready;
	int rc;
	if (!c || !c->ready || c->all_weak != all_weak) {
		if ((rc = cli_paths_prepare(o, h, all_weak, &own)) != EXIT_OK)
			return rc;
		c = &own;
	}
	struct hp_pathlist pl;
	memset(&pl, 0, sizeof pl);
	rc = hp_paths_shortest(&c->P, &c->g, obj, k ? k : SIZE_MAX, &pl, &err);
	if (c == &own)
		cli_paths_release(&own);
	if (rc)
		return report(o->file, &err, rc);
	/* one forward pass over a gzip dump for the records and thread names */
	size_t nn = pl.npaths ? pl.first[pl.npaths] : 0;
	uint32_t *pre = hp_reallocarray(NULL, nn + pl.npaths + 1, sizeof *pre);
	if (!pre) {
		hp_paths_list_release(&pl);
		cli_error("out of memory");
		return EXIT_NOMEM;
	}
	if (nn)
		memcpy(pre, pl.nodes, nn * sizeof *pre);
	size_t np = nn;
	for (size_t p = 0; p < pl.npaths; p++) {
		int tk;
		uint32_t serial = 0;
		root_kinds(h, pl.nodes[pl.first[p]], &tk, &serial);
		uint32_t t = tk >= 0 ? hp_idmap_get(&h->thread_map, serial) : HP_IDMAP_NONE;
		size_t to = t != HP_IDMAP_NONE ? hp_heap_find(h, h->threads[t].object_id) : SIZE_MAX;
		if (to != SIZE_MAX)
			pre[np++] = (uint32_t)to;
	}
	rc = hp_objread_prefetch_text(rd, pre, np, &err);
	hp_free(pre);
	if (rc) {
		hp_paths_list_release(&pl);
		return report(o->file, &err, rc);
	}
	for (size_t p = 0; p < pl.npaths && rc == HP_OK; p++) {
		const uint32_t *nodes = pl.nodes + pl.first[p];
		size_t len = pl.first[p + 1] - pl.first[p];
		cJSON *steps = NULL;
		if (arr) {
			cJSON *e = cJSON_CreateObject();
			json_u64(e, "length", len - 1);
			steps = cJSON_AddArrayToObject(e, "steps");
			cJSON_AddItemToArray(arr, e);
		} else if (k != 1) {
			fprintf(f, "path %zu of %zu, %zu reference%s:\n", p + 1, pl.npaths, len - 1, len == 2 ? "" : "s");
		}
		for (size_t i = 0; i < len; i++) {
			uint32_t v = nodes[i];
			struct hp_objref ref;
			memset(&ref, 0, sizeof ref);
			if (i > 0 && (rc = hp_objread_find_ref(rd, nodes[i - 1], v, &ref, &err)) != HP_OK)
				break;
			if (arr) {
				cJSON *s = cli_object_json(h, v);
				json_u64(s, "shallow", hp_heap_shallow(h, v));
				if (i == 0)
					cli_root_json(s, h, rd, v);
				else
					cJSON_AddItemToObject(s, "via", cli_via_json(h, &ref));
				cJSON_AddItemToArray(steps, s);
				continue;
			}
			char lab[800], via[600], rt[800];
			object_label(h, v, lab, sizeof lab);
			if (i == 0)
				fprintf(f, "  %s  [GC root: %s]\n", lab, cli_root_text(h, rd, v, rt, sizeof rt));
			else
				fprintf(f, "  %s -> %s\n", cli_via_text(h, &ref, via, sizeof via), lab);
		}
	}
	*npaths = pl.npaths;
	hp_paths_list_release(&pl);
	if (rc)
		return report(o->file, &err, rc);
	return EXIT_OK;
}

/* ---- the command ---------------------------------------------------- */

int cmd_path(struct cli_opts *o)
{
	uint64_t id;
	if (!o->object_id || parse_object_id(o->object_id, &id)) {
		cli_error("path: '%s' is not an object id: give it in hex (0x7f3a10) or decimal",
			  o->object_id ? o->object_id : "");
		return EXIT_USAGE;
	}
	if (strcmp(o->file, "-") == 0) {
		cli_error("-: path reads the dump twice, which a pipe cannot do; save it to a file");
		return EXIT_USAGE;
	}
	struct cli_load L;
	int rc = cli_load_dump(o, 1, &L);
	if (rc) {
		cli_load_release(&L);
		return rc;
	}
	hp_heap *h = L.heap;
	struct hp_objread *rd = NULL;
	size_t v = hp_heap_find(h, id);
	if (v == SIZE_MAX) {
		cli_error("%s: no object 0x%llx in the dump", o->file, (unsigned long long)id);
		rc = EXIT_BAD;
		goto out;
	}
	struct hp_error err;
	hp_error_clear(&err);
	if ((rc = hp_objread_open(&rd, h, o->file, &err)) != HP_OK) {
		rc = report(o->file, &err, rc);
		goto out;
	}
	size_t k = o->top_given ? (size_t)o->top : DEFAULT_PATHS;
	size_t npaths = 0;
	const char *weak = o->all_weak ? "followed" : "excluded";
	if (o->json) {
		cJSON *j = json_begin("path", o, &L);
		cJSON_AddItemToObject(j, "target", cli_object_json(h, v));
		cJSON_AddStringToObject(j, "weak_referents", weak);
		cJSON *arr = cJSON_AddArrayToObject(j, "paths");
		rc = cli_show_paths(o, h, rd, (uint32_t)v, k, o->all_weak, NULL, NULL, arr, &npaths);
		cJSON_AddBoolToObject(j, "reachable", npaths > 0);
		if (rc == EXIT_OK)
			rc = cli_emit_json(o, j);
		else
			cJSON_Delete(j);
	} else {
		char *out = NULL;
		size_t cap = 0;
		FILE *f = open_memstream(&out, &cap);
		if (!f) {
			cli_error("out of memory");
			rc = EXIT_NOMEM;
			goto out;
		}
		char lab[800];
		if (L.partial)
			fprintf(f, "warning: partial result: %s\n", L.partial_msg);
		fprintf(f, "shortest paths from GC roots to %s (weak referents %s)\n",
			object_label(h, v, lab, sizeof lab), weak);
		rc = cli_show_paths(o, h, rd, (uint32_t)v, k, o->all_weak, NULL, f, NULL, &npaths);
		if (rc == EXIT_OK && !npaths)
			fprintf(f, "no GC root reaches it%s\n", o->all_weak ? "" :
				" without going through the referent of a soft, weak, final or phantom reference"
				" (--all-weak follows those)");
		if (fclose(f) != 0 || !out) {
			cli_error("out of memory");
			rc = EXIT_NOMEM;
		} else if (rc == EXIT_OK)
			rc = cli_write_output(o, out);
		free(out);
	}
out:
	cli_print_stats(o, &L);
	hp_objread_free(rd);
	cli_load_release(&L);
	return rc;
}
