/* hprofan info FILE: what the dump holds, how it was read, the size model. */
#include "cli/command.h"

#include <string.h>

static const char *flavour(const struct hp_header *h)
{
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

/* the result is the model itself, read through the session */
static int collect(struct cli_ctx *x, hp_session *S, void **res)
{
	const hp_heap *h;
	int rc = cli_model(S, &h);
	*res = (void *)h;
	return rc;
}

static size_t loaded_classes(const hp_heap *h)
{
	size_t loaded = 0;
	for (size_t i = 0; i < h->nclasses; i++)
		if (h->classes[i].serial)
			loaded++;
	return loaded;
}

static int json(struct cli_ctx *x, hp_session *S, void *res, cJSON **doc)
{
	const hp_heap *h = res;
	const struct hp_load_info *L = hp_session_load_info(S);
	const struct hp_stats *st = &L->stats;
	char tb[64];
	fmt_time(st->header.timestamp_ms, tb, sizeof tb);
	cJSON *j = json_begin(x, hp_session_path(S), S);
	cJSON_AddStringToObject(j, "flavour", flavour(&st->header));
	cJSON_AddStringToObject(j, "timestamp", tb);
	json_u64(j, "timestamp_ms", st->header.timestamp_ms);
	if (L->file_size)
		json_u64(j, "file_size", L->file_size);
	cJSON_AddStringToObject(j, "input", L->reader_kind);
	if (!strcmp(L->reader_kind, "gzip"))
		json_u64(j, "gzip_members", L->gzip_members);
	json_u64(j, "bytes", st->bytes);
	cJSON *dumps = cJSON_AddArrayToObject(j, "dumps");
	for (unsigned i = 0; i < st->ndumps; i++) {
		cJSON *d = cJSON_CreateObject();
		json_u64(d, "index", i);
		json_u64(d, "offset", st->dumps[i].offset);
		json_u64(d, "end", st->dumps[i].end);
		json_u64(d, "records", st->dumps[i].records);
		if ((int)i == st->parsed_dump)
			json_u64(d, "subrecords", st->dumps[i].subrecords);
		cJSON_AddBoolToObject(d, "complete", st->dumps[i].complete);
		cJSON_AddBoolToObject(d, "analysed", (int)i == st->parsed_dump);
		cJSON_AddItemToArray(dumps, d);
	}
	cJSON *recs = cJSON_AddObjectToObject(j, "records");
	json_u64(recs, "total", st->records);
	for (int t = 0; t < 256; t++) {
		if (!st->records_by_tag[t])
			continue;
		const char *n = hp_tag_name(t);
		char k[32];
		if (!n) {
			snprintf(k, sizeof k, "0x%02X", t);
			n = k;
		}
		json_u64(recs, n, st->records_by_tag[t]);
	}
	json_u64(recs, "unknown", st->unknown_records);
	cJSON *subs = cJSON_AddObjectToObject(j, "subrecords");
	for (int t = 0; t < 256; t++)
		if (st->subrecords_by_tag[t])
			json_u64(subs, hp_subtag_name(t), st->subrecords_by_tag[t]);
	cJSON *ob = cJSON_AddObjectToObject(j, "objects");
	json_u64(ob, "total", h->n_instances + h->n_objarrays + h->n_primarrays + h->n_classobjs);
	json_u64(ob, "instances", h->n_instances);
	json_u64(ob, "object_arrays", h->n_objarrays);
	json_u64(ob, "primitive_arrays", h->n_primarrays);
	json_u64(ob, "classes", h->n_classobjs);
	json_u64(ob, "shallow", h->total_shallow);
	cJSON *cl = cJSON_AddObjectToObject(j, "classes");
	json_u64(cl, "dumped", h->nclass_dumps);
	json_u64(cl, "loaded", loaded_classes(h));
	cJSON *ro = cJSON_AddObjectToObject(j, "gc_roots");
	json_u64(ro, "total", h->nroots);
	cJSON *bk = cJSON_AddObjectToObject(ro, "by_kind");
	for (int k = 0; k < HP_ROOT_NKINDS; k++)
		if (h->roots_by_kind[k])
			json_u64(bk, hp_root_kind_key(k), h->roots_by_kind[k]);
	json_u64(j, "threads", h->nthreads);
	json_u64(j, "stack_traces", h->ntraces);
	json_u64(j, "stack_frames", h->nframes);
	json_u64(j, "strings", h->nstr);
	if (st->header.version == 3) {
		cJSON *hs = cJSON_AddArrayToObject(j, "heaps");
		for (unsigned i = 0; i < h->nheaps; i++) {
			if (!h->heap_objects[i] && !h->heap_classes[i])
				continue;
			cJSON *e = cJSON_CreateObject();
			cJSON_AddStringToObject(e, "name", hp_heap_name(h, i));
			json_u64(e, "objects", h->heap_objects[i]);
			json_u64(e, "classes", h->heap_classes[i]);
			json_u64(e, "instances", h->heap_objects[i] - h->heap_classes[i]);
			json_u64(e, "shallow", h->heap_bytes[i]);
			cJSON_AddItemToArray(hs, e);
		}
	}
	cJSON_AddItemToObject(j, "size_model", json_size_model(h));
	cJSON *mo = cJSON_AddObjectToObject(j, "model");
	json_u64(mo, "objects", h->nobj);
	json_u64(mo, "bytes", hp_heap_model_bytes(h));
	cJSON_AddNumberToObject(mo, "bytes_per_object", h->nobj ? (double)hp_heap_model_bytes(h) / h->nobj : 0.0);
	json_u64(mo, "duplicate_ids", h->duplicate_ids);
	cJSON *w = cJSON_AddArrayToObject(j, "warnings");
	if (st->unknown_records) {
		char b[128];
		snprintf(b, sizeof b, "%llu records with unknown tags were skipped (%llu bytes)",
			 (unsigned long long)st->unknown_records, (unsigned long long)st->unknown_bytes);
		cJSON_AddItemToArray(w, cJSON_CreateString(b));
	}
	for (size_t i = 0; i < h->nwarnings; i++)
		cJSON_AddItemToArray(w, cJSON_CreateString(hp_heap_warning(h, i)));
	*doc = j;
	return EXIT_OK;
}

static int text(struct cli_ctx *x, hp_session *S, void *res, FILE *f)
{
	const hp_heap *h = res;
	const struct hp_load_info *L = hp_session_load_info(S);
	const struct hp_stats *st = &L->stats;
	const struct hp_size_model *m = &h->size;
	char a[32], b[32], c[32], d[32], tb[64];
	fmt_time(st->header.timestamp_ms, tb, sizeof tb);
	cli_partial_note(f, S);
	char fn[1024];
	fprintf(f, "file:        %s\n", safe_text(hp_session_path(S), fn, sizeof fn));
	fprintf(f, "format:      %s (%s)\n", st->header.format, flavour(&st->header));
	fprintf(f, "id size:     %u bytes\n", st->header.id_size);
	fprintf(f, "timestamp:   %s\n", tb);
	if (L->file_size)
		fprintf(f, "file size:   %s bytes (%s)", fmt_count(L->file_size, a, sizeof a),
			fmt_bytes(L->file_size, b, sizeof b));
	else
		fprintf(f, "file size:   unknown (read from a pipe)");
	if (!strcmp(L->reader_kind, "gzip"))
		fprintf(f, ", gzip, %s members, %s bytes inflated\n", fmt_count(L->gzip_members, a, sizeof a),
			fmt_count(st->bytes, b, sizeof b));
	else
		fputc('\n', f);
	fprintf(f, "dumps:       %u", st->ndumps);
	if (st->ndumps > 1)
		fprintf(f, " (analysing dump %d; choose with --dump N)", st->parsed_dump);
	fputc('\n', f);
	for (unsigned i = 0; i < st->ndumps; i++) {
		fprintf(f, "  dump %u: offset %s, %s bytes, %s record%s", i,
			fmt_count(st->dumps[i].offset, a, sizeof a),
			fmt_count(st->dumps[i].end - st->dumps[i].offset, b, sizeof b),
			fmt_count(st->dumps[i].records, c, sizeof c), st->dumps[i].records == 1 ? "" : "s");
		if ((int)i == st->parsed_dump)
			fprintf(f, ", %s sub-records (analysed)", fmt_count(st->dumps[i].subrecords, d, sizeof d));
		fprintf(f, "%s\n", st->dumps[i].complete ? "" : " (incomplete)");
	}
	fprintf(f, "records:     %s\n", fmt_count(st->records, a, sizeof a));
	for (int t = 0; t < 256; t++) {
		if (!st->records_by_tag[t])
			continue;
		const char *n = hp_tag_name(t);
		if (n)
			fprintf(f, "  %-20s %12s\n", n, fmt_count(st->records_by_tag[t], a, sizeof a));
		else
			fprintf(f, "  unknown tag 0x%02X     %12s (skipped)\n", t, fmt_count(st->records_by_tag[t], a, sizeof a));
	}
	uint64_t objects = h->n_instances + h->n_objarrays + h->n_primarrays + h->n_classobjs;
	fprintf(f, "objects:     %s (%s shallow)\n", fmt_count(objects, a, sizeof a),
		fmt_bytes(h->total_shallow, b, sizeof b));
	fprintf(f, "  %-20s %12s\n", "instances", fmt_count(h->n_instances, a, sizeof a));
	fprintf(f, "  %-20s %12s\n", "object arrays", fmt_count(h->n_objarrays, a, sizeof a));
	fprintf(f, "  %-20s %12s\n", "primitive arrays", fmt_count(h->n_primarrays, a, sizeof a));
	fprintf(f, "  %-20s %12s\n", "classes", fmt_count(h->n_classobjs, a, sizeof a));
	fprintf(f, "classes:     %s dumped, %s loaded\n", fmt_count(h->nclass_dumps, a, sizeof a),
		fmt_count(loaded_classes(h), b, sizeof b));
	fprintf(f, "GC roots:    %s\n", fmt_count(h->nroots, a, sizeof a));
	for (int k = 0; k < HP_ROOT_NKINDS; k++)
		if (h->roots_by_kind[k])
			fprintf(f, "  %-20s %12s\n", hp_root_kind_name(k), fmt_count(h->roots_by_kind[k], a, sizeof a));
	fprintf(f, "threads:     %s\n", fmt_count(h->nthreads, a, sizeof a));
	fprintf(f, "strings:     %s; stack traces %s, frames %s\n", fmt_count(h->nstr, a, sizeof a),
		fmt_count(h->ntraces, b, sizeof b), fmt_count(h->nframes, c, sizeof c));
	if (st->header.version == 3) {
		fprintf(f, "heaps:       %-10s %10s %12s %12s\n", "", "classes", "instances", "shallow");
		for (unsigned i = 0; i < h->nheaps; i++) {
			if (!h->heap_objects[i] && !h->heap_classes[i])
				continue;
			char hn[256];
			fprintf(f, "  %-20s %10s %12s %12s\n", safe_text(hp_heap_name(h, i), hn, sizeof hn),
				fmt_count(h->heap_classes[i], a, sizeof a),
				fmt_count(h->heap_objects[i] - h->heap_classes[i], b, sizeof b),
				fmt_bytes(h->heap_bytes[i], c, sizeof c));
		}
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
	} else if (m->kind == HP_SIZE_AHAT) {
		fprintf(f, "  instances: CLASS DUMP instance size; arrays: elements only; classes: java.lang.Class size %llu + statics\n",
			(unsigned long long)m->class_instance_size);
	} else {
		fprintf(f, "  the bytes the dump holds: field bytes, array elements, static values\n");
	}
	fprintf(f, "model:       %s objects, %s (%.2f bytes per object)\n", fmt_count(h->nobj, a, sizeof a),
		fmt_bytes(hp_heap_model_bytes(h), b, sizeof b),
		h->nobj ? (double)hp_heap_model_bytes(h) / h->nobj : 0.0);
	if (st->unknown_records)
		fprintf(f, "warning: %llu records with unknown tags were skipped (%llu bytes)\n",
			(unsigned long long)st->unknown_records, (unsigned long long)st->unknown_bytes);
	for (size_t i = 0; i < h->nwarnings; i++) {
		char buf[1024];
		fprintf(f, "warning: %s\n", safe_text(hp_heap_warning(h, i), buf, sizeof buf));
	}
	return EXIT_OK;
}

static const struct cli_option *const tables[] = {
	cli_opts_model, cli_opts_load, cli_opts_output, cli_opts_quiet, NULL
};

const struct cli_command cmd_info = {
	.name = "info",
	.usage = "hprofan info FILE [options]",
	.summary = "what the dump holds",
	.min_files = 1, .max_files = 1,
	.options = tables,
	.run = cli_run_one,
	.collect = collect, .json = json, .text = text,
};
