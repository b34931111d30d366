/* hprofan roots FILE: GC roots by kind and the roots that retain most. */
#include "cli/cli.h"
#include "model/objread.h"
#include "parser/alloc.h"

#include <stdlib.h>
#include <string.h>

static const char *sid_text(const hp_heap *h, uint64_t sid, char *buf, size_t n)
{
	uint32_t len;
	const char *s = hp_heap_string(h, sid, &len);
	if (!s)
		return NULL;
	char *u = hp_mutf8_to_utf8(s, len, NULL);
	if (!u)
		return NULL;
	safe_text(u, buf, n);
	hp_free(u);
	return buf;
}

static const struct hp_thread_rec *thread_of(const hp_heap *h, uint32_t serial)
{
	uint32_t t = hp_idmap_get(&h->thread_map, serial);
	return t == HP_IDMAP_NONE ? NULL : &h->threads[t];
}

/* The thread's name: from START THREAD when the dump has it (the hprof
 * agent, ART), else read from the java.lang.Thread object's name field
 * (HotSpot writes no START THREAD records). */
static const char *thread_name(const hp_heap *h, hp_objread **rd, const char *path, uint32_t serial,
			       char *buf, size_t n)
{
	const struct hp_thread_rec *t = thread_of(h, serial);
	if (!t)
		return NULL;
	if (t->name_sid && sid_text(h, t->name_sid, buf, n))
		return buf;
	size_t obj = t->object_id ? hp_heap_find(h, t->object_id) : SIZE_MAX;
	if (obj == SIZE_MAX)
		return NULL;
	struct hp_error err;
	hp_error_clear(&err);
	if (!*rd && hp_objread_open(rd, h, path, &err) != HP_OK)
		return NULL;
	struct hp_text txt;
	memset(&txt, 0, sizeof txt);
	const char *res = NULL;
	if (hp_objread_thread_name(*rd, obj, 200, &txt, &err) == HP_OK && txt.utf8) {
		safe_text(txt.utf8, buf, n);
		res = buf;
	}
	hp_objread_text_release(&txt);
	return res;
}

/* "main" or "thread 3" */
static const char *thread_label(const hp_heap *h, hp_objread **rd, const char *path, uint32_t serial,
				char *buf, size_t n)
{
	char nm[256];
	if (thread_name(h, rd, path, serial, nm, sizeof nm))
		snprintf(buf, n, "\"%s\"", nm);
	else
		snprintf(buf, n, "thread %u", serial);
	return buf;
}

/* "at com.x.Y.run (Y.java:12)" for frame number `depth` of a thread's trace */
static const char *frame_label(const hp_heap *h, uint32_t serial, uint32_t depth, char *buf, size_t n)
{
	const struct hp_thread_rec *t = thread_of(h, serial);
	buf[0] = '\0';
	if (!t || depth == UINT32_MAX)
		return NULL;
	uint32_t ti = hp_idmap_get(&h->trace_map, t->trace_serial);
	if (ti == HP_IDMAP_NONE || depth >= h->traces[ti].n)
		return NULL;
	uint64_t fid = h->trace_frames[h->traces[ti].first + depth];
	uint32_t fi = hp_idmap_get(&h->frame_map, fid);
	if (fi == HP_IDMAP_NONE)
		return NULL;
	const struct hp_frame *f = &h->frames[fi];
	char m[256] = "?", src[256] = "", cls[512] = "?";
	sid_text(h, f->method_sid, m, sizeof m);
	sid_text(h, f->source_sid, src, sizeof src);
	uint32_t ci = hp_idmap_get(&h->serial_map, f->class_serial);
	if (ci != HP_IDMAP_NONE && hp_class_name(h, ci))
		safe_text(hp_class_name(h, ci), cls, sizeof cls);
	char line[64];
	if (f->line > 0)
		snprintf(line, sizeof line, ":%d", f->line);
	else if (f->line == -3)
		snprintf(line, sizeof line, ", native");
	else if (f->line == -2)
		snprintf(line, sizeof line, ", compiled");
	else
		line[0] = '\0';
	snprintf(buf, n, "at %s.%s (%s%s)", cls, m, src[0] ? src : "unknown source", line);
	return buf;
}

struct rrow { uint32_t v; uint64_t retained; };

static int by_ret(const void *a, const void *b)
{
	const struct rrow *x = a, *y = b;
	if (x->retained != y->retained)
		return x->retained < y->retained ? 1 : -1;
	return x->v < y->v ? -1 : x->v > y->v;
}

int cmd_roots(struct cli_opts *o)
{
	struct cli_filter *flt = NULL;
	if ((o->filter || o->exclude) && !(flt = cli_filter_new(o->filter, o->exclude)))
		return EXIT_USAGE;
	struct cli_load L;
	struct hp_retained R;
	int rc = cli_load_retained(o, &L, &R);
	if (rc) {
		cli_filter_free(flt);
		hp_retained_release(&R);
		cli_load_release(&L);
		return rc;
	}
	hp_heap *h = L.heap;
	hp_objread *rd = NULL;      /* opened when a thread name must be read from its object */
	/* root objects that nothing but the super-root dominates, by retained */
	size_t nr = 0;
	struct rrow *rows = hp_reallocarray(NULL, h->nobj ? h->nobj : 1, sizeof *rows);
	if (!rows) {
		rc = EXIT_NOMEM;
		goto out;
	}
	for (size_t v = 0; v < h->nobj; v++) {
		if (!R.root_kinds[v] || R.dom.idom[v] != HP_DOM_SUPER)
			continue;
		if (!cli_filter_match(flt, hp_class_name(h, h->cls[v])))
			continue;
		rows[nr].v = (uint32_t)v;
		rows[nr].retained = R.retained[v];
		nr++;
	}
	qsort(rows, nr, sizeof *rows, by_ret);
	size_t shown = o->top > 0 && (size_t)o->top < nr ? (size_t)o->top : nr;
	uint64_t all = R.reachable_bytes + R.unreachable_bytes;
	uint64_t missing = 0;
	for (size_t i = 0; i < h->nroots; i++)
		if (hp_heap_find(h, h->roots[i].object) == SIZE_MAX)
			missing++;

	if (o->json) {
		cJSON *j = json_begin("roots", o, &L);
		cJSON_AddItemToObject(j, "size_model", json_size_model(h));
		json_policies(j, &R);
		cJSON *tot = cJSON_AddObjectToObject(j, "total");
		json_u64(tot, "roots", h->nroots);
		json_u64(tot, "missing_objects", missing);
		json_u64(tot, "reachable_shallow", R.reachable_bytes);
		json_u64(tot, "joint", R.joint);
		json_u64(tot, "heap_shallow", all);
		cJSON *kinds = cJSON_AddArrayToObject(j, "kinds");
		for (int k = 0; k < HP_ROOT_NKINDS; k++) {
			if (!R.kinds[k].roots)
				continue;
			cJSON *e = cJSON_CreateObject();
			cJSON_AddStringToObject(e, "kind", hp_root_kind_key(k));
			json_u64(e, "roots", R.kinds[k].roots);
			json_u64(e, "objects", R.kinds[k].objects);
			json_u64(e, "retained", R.kinds[k].retained);
			cJSON_AddItemToArray(kinds, e);
		}
		cJSON *arr = cJSON_AddArrayToObject(j, "roots");
		for (size_t i = 0; i < shown; i++) {
			uint32_t v = rows[i].v;
			cJSON *e = cJSON_CreateObject();
			char id[32], buf[1024];
			snprintf(id, sizeof id, "0x%llx", (unsigned long long)h->ids[v]);
			cJSON_AddStringToObject(e, "id", id);
			cJSON_AddStringToObject(e, "class", hp_class_name(h, h->cls[v]));
			json_u64(e, "shallow", R.shallow[v]);
			json_u64(e, "retained", R.retained[v]);
			cJSON *ks = cJSON_AddArrayToObject(e, "kinds");
			for (int k = 0; k < HP_ROOT_NKINDS; k++)
				if (R.root_kinds[v] & (1u << k))
					cJSON_AddItemToArray(ks, cJSON_CreateString(hp_root_kind_key(k)));
			for (size_t r = 0; r < h->nroots; r++) {
				const struct hp_root_rec *rr = &h->roots[r];
				if (rr->object != h->ids[v] || !rr->has_thread)
					continue;
				json_u64(e, "thread_serial", rr->thread_serial);
				if (thread_name(h, &rd, o->file, rr->thread_serial, buf, sizeof buf))
					cJSON_AddStringToObject(e, "thread", buf);
				if ((rr->kind == HP_ROOT_JAVA_FRAME || rr->kind == HP_ROOT_JNI_LOCAL) &&
				    frame_label(h, rr->thread_serial, rr->frame, buf, sizeof buf))
					cJSON_AddStringToObject(e, "frame", buf);
				break;
			}
			cJSON_AddItemToArray(arr, e);
		}
		rc = cli_emit_json(o, j);
	} else {
		char *out = NULL;
		size_t cap = 0;
		FILE *f = open_memstream(&out, &cap);
		if (!f) {
			rc = EXIT_NOMEM;
			goto out;
		}
		char a[32], b[32], c2[32], lab[800], buf[1024];
		if (L.partial)
			fprintf(f, "warning: partial result: %s\n", L.partial_msg);
		fprintf(f, "%-20s %10s %10s %10s  %s\n", "kind", "roots", "objects", "retained", "(what these roots retain alone)");
		for (int k = 0; k < HP_ROOT_NKINDS; k++) {
			if (!R.kinds[k].roots)
				continue;
			fprintf(f, "%-20s %10s %10s %10s\n", hp_root_kind_name(k), fmt_count(R.kinds[k].roots, a, sizeof a),
				fmt_count(R.kinds[k].objects, b, sizeof b), fmt_bytes(R.kinds[k].retained, c2, sizeof c2));
		}
		fprintf(f, "held jointly by several roots: %s; unreachable: %s objects, %s",
			fmt_bytes(R.joint, a, sizeof a), fmt_count(R.unreachable, b, sizeof b),
			fmt_bytes(R.unreachable_bytes, c2, sizeof c2));
		if (missing)
			fprintf(f, "; %s roots name objects the dump does not hold", fmt_count(missing, a, sizeof a));
		fprintf(f, " (weak %s, roots %s)\n\n", hp_weak_policy_name(R.weak), roots_policy_name(R.roots_policy));
		fprintf(f, "%10s  %6s  %-24s  %s\n", "retained", "%", "kind", "root");
		for (size_t i = 0; i < shown; i++) {
			uint32_t v = rows[i].v;
			char kinds[128] = "";
			size_t kl = 0;
			for (int k = 0; k < HP_ROOT_NKINDS; k++)
				if (R.root_kinds[v] & (1u << k)) {
					int w = snprintf(kinds + kl, sizeof kinds - kl, "%s%s", kl ? "," : "", hp_root_kind_name(k));
					if (w > 0 && (size_t)w < sizeof kinds - kl)
						kl += (size_t)w;
				}
			fprintf(f, "%10s  %5.1f%%  %-24s  %s\n", fmt_bytes(R.retained[v], a, sizeof a),
				all ? 100.0 * R.retained[v] / all : 0.0, kinds, object_label(h, v, lab, sizeof lab));
			for (size_t r = 0; r < h->nroots; r++) {
				const struct hp_root_rec *rr = &h->roots[r];
				if (rr->object != h->ids[v] || !rr->has_thread)
					continue;
				fprintf(f, "%10s  %6s  %-24s    %s", "", "", "", thread_label(h, &rd, o->file, rr->thread_serial, buf, sizeof buf));
				if ((rr->kind == HP_ROOT_JAVA_FRAME || rr->kind == HP_ROOT_JNI_LOCAL) &&
				    frame_label(h, rr->thread_serial, rr->frame, buf, sizeof buf))
					fprintf(f, " %s", buf);
				fputc('\n', f);
				break;
			}
		}
		if (shown < nr)
			fprintf(f, "... %s more roots\n", fmt_count(nr - shown, a, sizeof a));
		if (fclose(f) != 0 || !out)
			rc = EXIT_NOMEM;
		else
			rc = cli_write_output(o, out);
		free(out);
	}
out:
	if (rc == EXIT_NOMEM)
		cli_error("out of memory");
	cli_print_stats(o, &L);
	hp_objread_free(rd);
	hp_free(rows);
	cli_filter_free(flt);
	hp_retained_release(&R);
	cli_load_release(&L);
	return rc;
}
