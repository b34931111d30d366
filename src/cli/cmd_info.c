/* hprofan info FILE: what the dump holds, how it was read, the size model. */
#include "cli/command.h"
#include "cli/msg.h"
#include "cli/format.h"
#include "cli/load.h"
#include "cli/output.h"
#include "cli/oom.h"
#include "analysis/sysprops.h"
#include "base/text.h"
#include "base/alloc.h"

#include <string.h>

static const char *flavour(const struct hp_header *h, const hp_heap *m)
{
	if (m->android_conv)
		return "Android ART, converted by hprof-conv";
	switch (h->version) {
	case 1: return "HotSpot or the JDK hprof agent";
	case 2: return "HotSpot, segmented";
	case 3: return "Android ART";
	default: return "?";
	}
}

static const char *source_word(int s)
{
	return s == 2 ? "set by option" : s == 1 ? "inferred" : "fixed";
}

/* what a dump hprof-conv converted lost, and how it is read (heap.h) */
#define CONVERSION_NOTE "by hprof-conv from Android's 1.0.3 (recognised by ART's classes): read as Android, " \
	"its heap records dropped (one heap, default) and Android's roots written as unknown"

/* whether dump i is in the model: the one chosen, or each under --dump all */
static int analysed(const hp_heap *h, const struct hp_stats *st, unsigned i)
{
	return h->opts.dump_index < 0 ? i < h->merged_dumps : (int)i == st->parsed_dump;
}

/* the model, read through the session, and the JDK that wrote the dump */
struct info {
	const hp_heap *h;
	char *java_version, *vm_version;   /* from the heap's system properties */
	const char *props_note;            /* why they are not known (static text) */
	const struct hp_native *N;         /* Android, read again: native sizes and the heap split */
	struct cli_oom oom;                /* the thread that hit an OutOfMemoryError, if the dump was written at one */
};

/* java.version and java.vm.version from System.props: HotSpot dumps that
 * can be read again (the object reader re-reads records) */
static int read_versions(hp_session *S, struct info *r)
{
	static const char *const keys[2] = { "java.version", "java.vm.version" };
	char *v[2] = { NULL, NULL };
	hp_objread *rd;
	struct hp_error err;
	hp_error_clear(&err);
	if (hp_heap_android(r->h)) {
		r->props_note = "an Android dump";
		return EXIT_OK;
	}
	if (!hp_session_rereadable(S)) {
		r->props_note = "not read: the input can be read only once";
		return EXIT_OK;
	}
	int rc = hp_session_objread(S, &rd, &err);
	if (rc == HP_OK)
		rc = hp_sysprops_get(rd, r->h, keys, v, 2, &err);
	if (rc == HP_ENOMEM) {
		cli_error("%s: out of memory reading the system properties", hp_session_path(S));
		return EXIT_NOMEM;
	}
	if (rc != HP_OK) {
		/* a record that cannot be read again: info still describes the dump */
		r->props_note = "not read: the objects could not be read again";
		return EXIT_OK;
	}
	r->java_version = v[0];
	r->vm_version = v[1];
	if (!v[0])
		r->props_note = "not in the heap (no java.lang.System.props with java.version)";
	return EXIT_OK;
}

static int collect(struct cli_ctx *x, hp_session *S, void **res)
{
	struct info *r = cli_result_new(sizeof *r, res);
	if (!r)
		return EXIT_NOMEM;
	int rc = cli_model(S, &r->h);
	if (rc == EXIT_OK)
		rc = read_versions(S, r);
	/* Android: each heap's Java, native and root-held bytes (one more pass) */
	if (rc == EXIT_OK && hp_heap_android(r->h) && hp_session_rereadable(S))
		rc = cli_native(S, 1, &r->N);
	if (rc == EXIT_OK)
		rc = cli_oom_collect(S, &r->oom);
	return rc;
}

static void release(void *res)
{
	struct info *r = res;
	if (!r)
		return;
	hp_free(r->java_version);
	hp_free(r->vm_version);
	cli_oom_release(&r->oom);
	hp_free(r);
}

/* the feature release of a java.version: "1.8.0_392" 8, "17.0.15" 17 */
static int java_feature(const char *v)
{
	if (!v)
		return 0;
	if (!strncmp(v, "1.", 2))
		v += 2;
	int n = 0;
	while (*v >= '0' && *v <= '9' && n < 1000)
		n = n * 10 + (*v++ - '0');
	return n;
}

/* the vm model's inference as JSON: what and from what */
static cJSON *json_vm(const struct info *r)
{
	const struct hp_vm_evidence *v = &r->h->size.vm;
	cJSON *j = cJSON_CreateObject();
	cJSON_AddBoolToObject(j, "allowed", v->allowed);
	if (v->why_not)
		cJSON_AddStringToObject(j, "why_not", v->why_not);
	cJSON_AddStringToObject(j, "field_layout", v->jdk15 ? "jdk15" : "older");
	cli_json_u64(j, "objects", v->objects);
	cli_json_u64(j, "instance_gaps", v->inst_gaps);
	cli_json_u64(j, "gaps_agree_older_rule", v->rule_agree[0]);
	cli_json_u64(j, "gaps_agree_jdk15_rule", v->rule_agree[1]);
	cli_json_u64(j, "gaps_agree_sizes", v->sized_agree);
	cli_json_u64(j, "array_gaps", v->arr_gaps);
	cli_json_u64(j, "array_gaps_tested", v->arr_tested);
	cli_json_u64(j, "array_gaps_agree", v->arr_agree);
	cJSON_AddStringToObject(j, "header_source", v->header_source == 2 ? "option" : v->header_source ? "array gaps" : "default");
	cJSON_AddStringToObject(j, "ref_size_source", v->ref_source == 2 ? "option" : v->ref_source ? "array gaps" : "default");
	cJSON_AddBoolToObject(j, "compressed_oops", v->ref == 4 && r->h->I == 8);
	cJSON_AddBoolToObject(j, "compressed_class_pointers", v->header == 12 && r->h->I == 8);
	cJSON *ab = cJSON_AddObjectToObject(j, "array_base");
	static const char *const en[4] = { "1", "2", "4", "8" };
	for (int k = 0; k < 4; k++)
		cli_json_u64(ab, en[k], v->array_base[k]);
	cli_json_u64(ab, "ref", v->ref_array_base);
	cli_json_u64(j, "class_size", v->class_size);
	cJSON_AddStringToObject(j, "class_size_source", v->class_size_source ? "gaps" : "rule");
	cli_json_u64(j, "classes_by_rule", v->classes_rule);
	cli_json_u64(j, "classes_confirmed", v->classes_confirmed);
	cli_json_u64(j, "classes_by_gaps", v->classes_gaps);
	cli_json_u64(j, "class_objects_measured", v->mirrors_measured);
	cli_json_u64(j, "class_objects_agree", v->mirrors_agree);
	return j;
}

/* instances of java.lang.Class: HotSpot writes the primitive types'
 * mirrors (int.class, void.class...) as instances, having no CLASS DUMP */
static uint64_t primitive_mirrors(const hp_heap *h)
{
	uint64_t n = 0;
	if (h->jlc == HP_NONE)
		return 0;
	for (uint32_t r = h->classes[h->jlc].row; r != HP_NONE; r = h->rows[r].next)
		n += h->rows[r].count;
	return n;
}

static size_t loaded_classes(const hp_heap *h)
{
	size_t loaded = 0;
	for (size_t i = 0; i < h->nclasses; i++)
		if (h->classes[i].serial)
			loaded++;
	return loaded;
}

/* a tag's JSON key: its name, or 0xNN for one that has none (an index
 * read may count what a parse never does) */
static const char *tag_key(const char *name, int t, char *buf, size_t n)
{
	if (name)
		return name;
	snprintf(buf, n, "0x%02X", t);
	return buf;
}

static int json(struct cli_ctx *x, hp_session *S, void *res, cJSON **doc)
{
	const struct info *r = res;
	const hp_heap *h = r->h;
	const struct hp_load_info *L = hp_session_load_info(S);
	const struct hp_stats *st = &L->stats;
	char tb[64];
	cli_fmt_time(st->header.timestamp_ms, tb, sizeof tb);
	cJSON *j = cli_json_begin(x, hp_session_path(S), S);
	cJSON_AddStringToObject(j, "flavour", flavour(&st->header, h));
	cJSON_AddStringToObject(j, "timestamp", tb);
	cli_json_u64(j, "timestamp_ms", st->header.timestamp_ms);
	if (L->file_size)
		cli_json_u64(j, "file_size", L->file_size);
	cJSON_AddStringToObject(j, "input", L->reader_kind);
	if (!strcmp(L->reader_kind, "gzip"))
		cli_json_u64(j, "gzip_members", L->gzip_members);
	cli_json_u64(j, "bytes", st->bytes);
	cJSON *dumps = cJSON_AddArrayToObject(j, "dumps");
	for (unsigned i = 0; i < st->ndumps; i++) {
		cJSON *d = cJSON_CreateObject();
		cli_json_u64(d, "index", i);
		cli_json_u64(d, "offset", st->dumps[i].offset);
		cli_json_u64(d, "end", st->dumps[i].end);
		cli_json_u64(d, "records", st->dumps[i].records);
		if (analysed(h, st, i))
			cli_json_u64(d, "subrecords", st->dumps[i].subrecords);
		cJSON_AddBoolToObject(d, "complete", st->dumps[i].complete);
		cJSON_AddBoolToObject(d, "analysed", analysed(h, st, i));
		cJSON_AddItemToArray(dumps, d);
	}
	if (h->opts.dump_index < 0) {
		cJSON *mg = cJSON_AddObjectToObject(j, "merged");
		cli_json_u64(mg, "dumps", h->merged_dumps);
		cli_json_u64(mg, "repeated_records", h->repeated_records);
	}
	if (h->android_conv)
		cJSON_AddStringToObject(j, "converted", CONVERSION_NOTE);
	cJSON *recs = cJSON_AddObjectToObject(j, "records");
	cli_json_u64(recs, "total", st->records);
	char tk[32];
	for (int t = 0; t < 256; t++)
		if (st->records_by_tag[t])
			cli_json_u64(recs, tag_key(hp_tag_name(t), t, tk, sizeof tk), st->records_by_tag[t]);
	cli_json_u64(recs, "unknown", st->unknown_records);
	cJSON *subs = cJSON_AddObjectToObject(j, "subrecords");
	for (int t = 0; t < 256; t++)
		if (st->subrecords_by_tag[t])
			cli_json_u64(subs, tag_key(hp_subtag_name(t), t, tk, sizeof tk), st->subrecords_by_tag[t]);
	cJSON *ob = cJSON_AddObjectToObject(j, "objects");
	cli_json_u64(ob, "total", h->n_instances + h->n_objarrays + h->n_primarrays + h->n_classobjs);
	cli_json_u64(ob, "instances", h->n_instances);
	cli_json_u64(ob, "object_arrays", h->n_objarrays);
	cli_json_u64(ob, "primitive_arrays", h->n_primarrays);
	cli_json_u64(ob, "classes", h->n_classobjs);
	cli_json_u64(ob, "shallow", h->total_shallow);
	cJSON *cl = cJSON_AddObjectToObject(j, "classes");
	cli_json_u64(cl, "dumped", h->nclass_dumps);
	cli_json_u64(cl, "loaded", loaded_classes(h));
	cJSON *ro = cJSON_AddObjectToObject(j, "gc_roots");
	cli_json_u64(ro, "total", h->nroots);
	cJSON *bk = cJSON_AddObjectToObject(ro, "by_kind");
	for (int k = 0; k < HP_ROOT_NKINDS; k++)
		if (h->roots_by_kind[k])
			cli_json_u64(bk, hp_root_kind_key(k), h->roots_by_kind[k]);
	cli_json_u64(j, "threads", h->nthreads);
	cli_json_u64(j, "stack_traces", h->ntraces);
	cli_json_u64(j, "stack_frames", h->nframes);
	cli_json_u64(j, "strings", h->nstr);
	if (hp_heap_android(h)) {
		cJSON *hs = cJSON_AddArrayToObject(j, "heaps");
		for (unsigned i = 0; i < h->nheaps; i++) {
			if (!h->heap_objects[i] && !h->heap_classes[i])
				continue;
			cJSON *e = cJSON_CreateObject();
			cJSON_AddStringToObject(e, "name", hp_heap_name(h, i));
			cli_json_u64(e, "objects", h->heap_objects[i]);
			cli_json_u64(e, "classes", h->heap_classes[i]);
			cli_json_u64(e, "instances", h->heap_objects[i] - h->heap_classes[i]);
			cli_json_u64(e, "shallow", h->heap_bytes[i]);
			if (r->N && r->N->split_done) {
				cli_json_u64(e, "native", r->N->heaps[i].native);
				cli_json_u64(e, "held_java", r->N->heaps[i].held_java);
				cli_json_u64(e, "held_native", r->N->heaps[i].held_native);
			}
			cJSON_AddItemToArray(hs, e);
		}
	}
	cli_json_native(j, h, r->N);
	cJSON_AddItemToObject(j, "size_model", cli_json_size_model(h));
	if (!hp_heap_android(h) || h->size.kind == HP_SIZE_VM)
		cJSON_AddItemToObject(j, "vm_layout", json_vm(r));
	cJSON *jv = cJSON_AddObjectToObject(j, "jdk");
	if (r->java_version) {
		cJSON_AddStringToObject(jv, "java_version", r->java_version);
		if (r->vm_version)
			cJSON_AddStringToObject(jv, "java_vm_version", r->vm_version);
		cJSON_AddStringToObject(jv, "source", "system properties");
	} else {
		cJSON_AddNullToObject(jv, "java_version");
		cJSON_AddStringToObject(jv, "source", r->props_note ? r->props_note : "?");
	}
	cJSON *jc = cJSON_AddObjectToObject(j, "class_row");
	cli_json_u64(jc, "class_objects", h->n_classobjs);
	cli_json_u64(jc, "primitive_type_mirrors", primitive_mirrors(h));
	cJSON *mo = cJSON_AddObjectToObject(j, "model");
	cli_json_u64(mo, "objects", h->nobj);
	cli_json_u64(mo, "bytes", hp_heap_model_bytes(h));
	cJSON_AddNumberToObject(mo, "bytes_per_object", h->nobj ? (double)hp_heap_model_bytes(h) / h->nobj : 0.0);
	cli_json_u64(mo, "duplicate_ids", h->duplicate_ids);
	cJSON *w = cJSON_AddArrayToObject(j, "warnings");
	if (st->unknown_records) {
		char b[128];
		snprintf(b, sizeof b, "%llu records with unknown tags were skipped (%llu bytes)",
			 (unsigned long long)st->unknown_records, (unsigned long long)st->unknown_bytes);
		cJSON_AddItemToArray(w, cJSON_CreateString(b));
	}
	for (size_t i = 0; i < h->nwarnings; i++)
		cJSON_AddItemToArray(w, cJSON_CreateString(hp_heap_warning(h, i)));
	cli_oom_json(j, &r->oom);
	*doc = j;
	return EXIT_OK;
}

static void text_vm(FILE *f, const struct info *r)
{
	const hp_heap *h = r->h;
	const struct hp_vm_evidence *v = &h->size.vm;
	char a[32], b[32], c[32];
	char hsb[96], rsb[96];
	snprintf(hsb, sizeof hsb, "inferred from %s array gaps", cli_fmt_count(v->arr_agree, a, sizeof a));
	snprintf(rsb, sizeof rsb, "inferred from the gaps after %s object arrays", cli_fmt_count(v->ref_arr_gaps, a, sizeof a));
	const char *hs = v->header_source == 2 ? "set by option" : v->header_source ? hsb : "default";
	const char *rs = v->ref_source == 2 ? "set by option" : v->ref_source ? rsb : "default";
	if (h->I == 8)
		fprintf(f, "  object header        %u: %s class pointers (%s)\n", v->header,
			v->header == 12 ? "compressed" : "uncompressed", hs);
	else
		fprintf(f, "  object header        %u (%s)\n", v->header, hs);
	fprintf(f, "  reference size       %u: %s (%s)\n", v->ref,
		v->ref == 4 && h->I == 8 ? "compressed oops" : "uncompressed", rs);
	fprintf(f, "  alignment            %u (%s)\n", v->align,
		h->opts.align ? "set by option" : "the GCD of object ids");
	fprintf(f, "  array elements at    %u (byte, boolean), %u (char, short), %u (int, float), %u (long, double), %u (references)\n",
		v->array_base[0], v->array_base[1], v->array_base[2], v->array_base[3], v->ref_array_base);
	fprintf(f, "  array gaps           %s of %s tested agree (%s arrays)\n", cli_fmt_count(v->arr_agree, a, sizeof a),
		cli_fmt_count(v->arr_tested, b, sizeof b), cli_fmt_count(v->arr_gaps, c, sizeof c));
	fprintf(f, "  field layout         %s: %s of %s instance gaps agree (the other rule: %s)\n",
		v->jdk15 ? "JDK 15+ (fields by size, filling the super class's holes)" : "before JDK 15 (each class after its super's)",
		cli_fmt_count(v->rule_agree[v->jdk15], a, sizeof a), cli_fmt_count(v->inst_gaps, b, sizeof b),
		cli_fmt_count(v->rule_agree[!v->jdk15], c, sizeof c));
	int feat = java_feature(r->java_version);
	if (feat && (feat >= 15) != v->jdk15)
		fprintf(f, "  JDK                  %s from system properties, whose rule is the other one: the gaps decided\n",
			r->java_version);
	else if (feat)
		fprintf(f, "  JDK                  %s from system properties: the same rule\n", r->java_version);
	fprintf(f, "  instance sizes       %s classes by the rule (%s confirmed by gaps), %s by their gaps\n",
		cli_fmt_count(v->classes_rule, a, sizeof a), cli_fmt_count(v->classes_confirmed, b, sizeof b),
		cli_fmt_count(v->classes_gaps, c, sizeof c));
	fprintf(f, "  class objects        java.lang.Class %llu bytes (%s) + statics; %s of %s measured agree\n",
		(unsigned long long)v->class_size, v->class_size_source ? "gaps of primitive-type mirrors" : "the rule",
		cli_fmt_count(v->mirrors_agree, a, sizeof a), cli_fmt_count(v->mirrors_measured, b, sizeof b));
	fprintf(f, "  sizes given          agree with %s of %s instance gaps%s\n", cli_fmt_count(v->sized_agree, a, sizeof a),
		cli_fmt_count(v->inst_gaps, b, sizeof b), v->allowed ? "" : " (evidence too weak for the default)");
	if (!v->allowed && v->why_not)
		fprintf(f, "  weak evidence:       %s\n", v->why_not);
}

static int text(struct cli_ctx *x, hp_session *S, void *res, FILE *f)
{
	const struct info *r = res;
	const hp_heap *h = r->h;
	const struct hp_load_info *L = hp_session_load_info(S);
	const struct hp_stats *st = &L->stats;
	const struct hp_size_model *m = &h->size;
	char a[32], b[32], c[32], d[32], tb[64];
	cli_fmt_time(st->header.timestamp_ms, tb, sizeof tb);
	cli_partial_note(f, S);
	cli_oom_text(f, &r->oom);
	char fn[1024];
	fprintf(f, "file:        %s\n", hp_text_safe(hp_session_path(S), fn, sizeof fn));
	char hf[64];
	fprintf(f, "format:      %s (%s)\n", hp_text_safe(st->header.format, hf, sizeof hf), flavour(&st->header, h));
	if (h->android_conv)
		fprintf(f, "converted:   %s\n", CONVERSION_NOTE);
	fprintf(f, "id size:     %u bytes\n", st->header.id_size);
	fprintf(f, "timestamp:   %s\n", tb);
	if (L->file_size)
		fprintf(f, "file size:   %s bytes (%s)", cli_fmt_count(L->file_size, a, sizeof a),
			cli_fmt_bytes(L->file_size, b, sizeof b));
	else
		fprintf(f, "file size:   unknown (read from a pipe)");
	if (!strcmp(L->reader_kind, "gzip"))
		fprintf(f, ", gzip, %s members, %s bytes inflated\n", cli_fmt_count(L->gzip_members, a, sizeof a),
			cli_fmt_count(st->bytes, b, sizeof b));
	else
		fputc('\n', f);
	fprintf(f, "dumps:       %u", st->ndumps);
	if (h->opts.dump_index < 0 && h->merged_dumps > 1)
		fprintf(f, " (merged by --dump all; %s object records repeating an earlier dump's id skipped)",
			cli_fmt_count(h->repeated_records, a, sizeof a));
	else if (st->ndumps > 1)
		fprintf(f, " (analysing dump %d; choose with --dump N, or all)", st->parsed_dump);
	fputc('\n', f);
	for (unsigned i = 0; i < st->ndumps; i++) {
		fprintf(f, "  dump %u: offset %s, %s bytes, %s record%s", i,
			cli_fmt_count(st->dumps[i].offset, a, sizeof a),
			cli_fmt_count(st->dumps[i].end - st->dumps[i].offset, b, sizeof b),
			cli_fmt_count(st->dumps[i].records, c, sizeof c), st->dumps[i].records == 1 ? "" : "s");
		if (analysed(h, st, i))
			fprintf(f, ", %s sub-records (analysed)", cli_fmt_count(st->dumps[i].subrecords, d, sizeof d));
		fprintf(f, "%s\n", st->dumps[i].complete ? "" : " (incomplete)");
	}
	fprintf(f, "records:     %s\n", cli_fmt_count(st->records, a, sizeof a));
	for (int t = 0; t < 256; t++) {
		if (!st->records_by_tag[t])
			continue;
		const char *n = hp_tag_name(t);
		if (n)
			fprintf(f, "  %-20s %12s\n", n, cli_fmt_count(st->records_by_tag[t], a, sizeof a));
		else
			fprintf(f, "  unknown tag 0x%02X     %12s (skipped)\n", t, cli_fmt_count(st->records_by_tag[t], a, sizeof a));
	}
	uint64_t objects = h->n_instances + h->n_objarrays + h->n_primarrays + h->n_classobjs;
	fprintf(f, "objects:     %s (%s shallow)\n", cli_fmt_count(objects, a, sizeof a),
		cli_fmt_bytes(h->total_shallow, b, sizeof b));
	fprintf(f, "  %-20s %12s\n", "instances", cli_fmt_count(h->n_instances, a, sizeof a));
	fprintf(f, "  %-20s %12s\n", "object arrays", cli_fmt_count(h->n_objarrays, a, sizeof a));
	fprintf(f, "  %-20s %12s\n", "primitive arrays", cli_fmt_count(h->n_primarrays, a, sizeof a));
	fprintf(f, "  %-20s %12s\n", "classes", cli_fmt_count(h->n_classobjs, a, sizeof a));
	fprintf(f, "classes:     %s dumped, %s loaded\n", cli_fmt_count(h->nclass_dumps, a, sizeof a),
		cli_fmt_count(loaded_classes(h), b, sizeof b));
	if (h->jlc != HP_NONE)
		fprintf(f, "  java.lang.Class row: %s class objects + %s primitive-type mirrors (instances)\n",
			cli_fmt_count(h->n_classobjs, a, sizeof a), cli_fmt_count(primitive_mirrors(h), b, sizeof b));
	if (cli_mapping_file()) {
		char mf[512], fr[32];
		const struct hp_mapping_stats *M = &L->mapped;
		fprintf(f, "  --mapping %s: %s classes, %s fields, %s stack frames renamed\n",
			hp_text_safe(cli_mapping_file(), mf, sizeof mf), cli_fmt_count(M->classes, a, sizeof a),
			cli_fmt_count(M->fields, b, sizeof b), cli_fmt_count(M->frames, fr, sizeof fr));
	}
	if (r->java_version)
		fprintf(f, "JDK:         %s%s%s%s (from system properties)\n", r->java_version,
			r->vm_version ? " (VM " : "", r->vm_version ? r->vm_version : "", r->vm_version ? ")" : "");
	else if (!hp_heap_android(h))
		fprintf(f, "JDK:         unknown: system properties %s\n", r->props_note ? r->props_note : "?");
	fprintf(f, "GC roots:    %s\n", cli_fmt_count(h->nroots, a, sizeof a));
	for (int k = 0; k < HP_ROOT_NKINDS; k++)
		if (h->roots_by_kind[k])
			fprintf(f, "  %-20s %12s\n", hp_root_kind_name(k), cli_fmt_count(h->roots_by_kind[k], a, sizeof a));
	fprintf(f, "threads:     %s\n", cli_fmt_count(h->nthreads, a, sizeof a));
	fprintf(f, "strings:     %s; stack traces %s, frames %s\n", cli_fmt_count(h->nstr, a, sizeof a),
		cli_fmt_count(h->ntraces, b, sizeof b), cli_fmt_count(h->nframes, c, sizeof c));
	if (hp_heap_android(h)) {
		int split = r->N && r->N->split_done;
		fprintf(f, "heaps:       %-10s %10s %12s %12s", "", "classes", "instances", "shallow");
		if (split)
			fprintf(f, " %12s %12s %12s", "native", "held Java", "held native");
		fputc('\n', f);
		for (unsigned i = 0; i < h->nheaps; i++) {
			if (!h->heap_objects[i] && !h->heap_classes[i])
				continue;
			char hn[256];
			fprintf(f, "  %-20s %10s %12s %12s", hp_text_safe(hp_heap_name(h, i), hn, sizeof hn),
				cli_fmt_count(h->heap_classes[i], a, sizeof a),
				cli_fmt_count(h->heap_objects[i] - h->heap_classes[i], b, sizeof b),
				cli_fmt_bytes(h->heap_bytes[i], c, sizeof c));
			if (split) {
				const struct hp_native_heap *sp = &r->N->heaps[i];
				fprintf(f, " %12s", cli_fmt_bytes(sp->native, a, sizeof a));
				fprintf(f, " %12s", cli_fmt_bytes(sp->held_java, a, sizeof a));
				fprintf(f, " %12s", cli_fmt_bytes(sp->held_native, a, sizeof a));
			}
			fputc('\n', f);
		}
		if (split && !r->N->shallow && r->N->why_none)
			fprintf(f, "  native: none found: %s\n", r->N->why_none);
	}
	fprintf(f, "size model:  %s\n", hp_size_kind_name(m->kind));
	if (m->kind == HP_SIZE_MAT) {
		fprintf(f, "  reference size       %u (%s%s)\n", m->ref_size, source_word(m->ref_source),
			m->ref_source == 1 ? (m->compressed_evidence ? ": compressed references, object arrays overlap"
						 : ": object arrays are spaced for 8-byte references") : "");
		fprintf(f, "  object header        %u (%s)\n", m->header, source_word(m->header_source));
		fprintf(f, "  array header         %u\n", m->array_header);
		fprintf(f, "  alignment            %u (%s", m->align, source_word(m->align_source));
		if (m->align_source == 1)
			fprintf(f, " from the GCD of object ids, %llu", (unsigned long long)m->gcd);
		fprintf(f, ")\n");
	} else if (m->kind == HP_SIZE_VM) {
		text_vm(f, r);
	} else if (m->kind == HP_SIZE_AHAT) {
		fprintf(f, "  instances: CLASS DUMP instance size; arrays: elements only; classes: java.lang.Class size %llu + statics\n",
			(unsigned long long)m->class_instance_size);
	} else {
		fprintf(f, "  the bytes the dump holds: field bytes, array elements, static values\n");
	}
	if (m->kind != HP_SIZE_VM && !hp_heap_android(h)) {
		if (m->vm.allowed)
			fprintf(f, "  (--size-model=vm, the default, gives the VM's own sizes)\n");
		else if (m->vm.why_not)
			fprintf(f, "  (not vm: %s)\n", m->vm.why_not);
	}
	fprintf(f, "model:       %s objects, %s (%.2f bytes per object)\n", cli_fmt_count(h->nobj, a, sizeof a),
		cli_fmt_bytes(hp_heap_model_bytes(h), b, sizeof b),
		h->nobj ? (double)hp_heap_model_bytes(h) / h->nobj : 0.0);
	if (st->unknown_records)
		fprintf(f, "warning: %llu records with unknown tags were skipped (%llu bytes)\n",
			(unsigned long long)st->unknown_records, (unsigned long long)st->unknown_bytes);
	for (size_t i = 0; i < h->nwarnings; i++) {
		char buf[1024];
		fprintf(f, "warning: %s\n", hp_text_safe(hp_heap_warning(h, i), buf, sizeof buf));
	}
	return EXIT_OK;
}

CLI_COMMAND(info, "hprofan info FILE", "what the dump holds",
	    CLI_FILES(1, 1), CLI_ANSWERS,
	    CLI_TABLES(cli_opts_model, cli_opts_load, cli_opts_output, cli_opts_quiet));
