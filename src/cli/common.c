#include "cli/cli.h"
#include "parser/alloc.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void cli_error(const char *fmt, ...)
{
	va_list ap;
	fputs("hprofan: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void cli_warn(const char *fmt, ...)
{
	va_list ap;
	fputs("hprofan: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

const char *fmt_count(uint64_t v, char *buf, size_t n)
{
	char tmp[32];
	int len = snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)v);
	size_t o = 0;
	for (int i = 0; i < len && o + 1 < n; i++) {
		if (i > 0 && (len - i) % 3 == 0 && o + 2 < n)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = '\0';
	return buf;
}

const char *fmt_bytes(uint64_t v, char *buf, size_t n)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	if (v < 1024) {
		snprintf(buf, n, "%llu B", (unsigned long long)v);
		return buf;
	}
	double d = (double)v;
	int u = 0;
	while (d >= 1024 && u < 6) {
		d /= 1024;
		u++;
	}
	snprintf(buf, n, d < 10 ? "%.2f %s" : d < 100 ? "%.1f %s" : "%.0f %s", d, units[u]);
	return buf;
}

const char *fmt_time(uint64_t ms, char *buf, size_t n)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;
	if (!gmtime_r(&t, &tm)) {
		snprintf(buf, n, "?");
		return buf;
	}
	char d[32];
	strftime(d, sizeof d, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, n, "%s.%03uZ", d, (unsigned)(ms % 1000));
	return buf;
}

/* Control characters, escape sequences and invalid UTF-8 never reach the
 * terminal raw: they are shown as \xNN. */
const char *safe_text(const char *s, char *buf, size_t n)
{
	size_t o = 0;
	const unsigned char *p = (const unsigned char *)s;
	while (*p && o + 5 < n) {
		unsigned c = *p;
		size_t len = 0;
		if (c >= 0x20 && c < 0x7f) {
			buf[o++] = (char)c;
			p++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			len = 2;
		else if (c >= 0xe0 && c <= 0xef)
			len = 3;
		else if (c >= 0xf0 && c <= 0xf4)
			len = 4;
		int ok = len > 0;
		for (size_t k = 1; ok && k < len; k++)
			if ((p[k] & 0xc0) != 0x80)
				ok = 0;
		if (ok && len == 3 && c == 0xed && p[1] >= 0xa0)
			ok = 0;     /* surrogates (modified UTF-8) are not printable as is */
		if (ok && o + len < n) {
			memcpy(buf + o, p, len);
			o += len;
			p += len;
			continue;
		}
		o += (size_t)snprintf(buf + o, n - o, "\\x%02x", c);
		p++;
	}
	buf[o] = '\0';
	return buf;
}

/* ---- progress ------------------------------------------------------- */

struct progress {
	int enabled, shown;
	double start, last;
	uint64_t total;           /* 0: unknown, no percentage or ETA */
	const char *name;
	const char *what;         /* "reading", "references in" */
};

static void progress_cb(void *ud, uint64_t done)
{
	struct progress *p = ud;
	if (!p->enabled)
		return;
	double t = now();
	if (t - p->start < 1.0 || t - p->last < 0.25)
		return;
	p->last = t;
	p->shown = 1;
	double rate = done / (t - p->start);
	char a[32], b[32], r[32];
	if (p->total && done <= p->total) {
		double eta = rate > 0 ? (p->total - done) / rate : 0;
		fprintf(stderr, "\rhprofan: %s %s: %s of %s (%.0f%%), %s/s, ETA %.0fs   ",
			p->what, p->name, fmt_bytes(done, a, sizeof a), fmt_bytes(p->total, b, sizeof b),
			100.0 * done / p->total, fmt_bytes((uint64_t)rate, r, sizeof r), eta);
	} else {
		fprintf(stderr, "\rhprofan: %s %s: %s, %s/s   ", p->what, p->name,
			fmt_bytes(done, a, sizeof a), fmt_bytes((uint64_t)rate, r, sizeof r));
	}
	fflush(stderr);
}

static void progress_end(struct progress *p)
{
	if (p->shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
}

/* ---- loading -------------------------------------------------------- */

static int exit_for(int code)
{
	switch (code) {
	case HP_ETRUNC: return EXIT_TRUNC;
	case HP_ENOMEM: return EXIT_NOMEM;
	case HP_EUSAGE: return EXIT_USAGE;
	default: return EXIT_BAD;
	}
}

/* ---- the memory limit (--max-memory) --------------------------------- */

/* The analyses after the model need, by a rough rule, this much per object
 * (the reference graph, the dominator tree, retained sizes: 36 bytes per
 * object at the dominators' peak, see dominators.h and refs.h) and 8 bytes
 * per reference on top; the references are not known before they are read,
 * so this counts about 1.5 per object. */
#define RETAINED_BYTES_PER_OBJECT 48

static int limit_reported;     /* a message about the limit was printed */
static int loading_retained;   /* cli_load_dump() called by cli_load_retained() */

/* fmt_bytes() rounded up at the precision shown: a need is never printed
 * below what it is */
static const char *fmt_need(uint64_t v, char *buf, size_t n)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	if (v < 1024)
		return fmt_bytes(v, buf, n);
	double d = (double)v;
	int u = 0;
	while (d >= 1024 && u < 6) {
		d /= 1024;
		u++;
	}
	double scale = d < 10 ? 100 : d < 100 ? 10 : 1;
	d = ceil(d * scale - 1e-9) / scale;
	snprintf(buf, n, scale == 100 ? "%.2f %s" : scale == 10 ? "%.1f %s" : "%.0f %s", d, units[u]);
	return buf;
}

static void limit_error(const char *file, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "hprofan: FILE: ...; --max-memory is 500 MiB" */
static void limit_error(const char *file, const char *fmt, ...)
{
	char msg[600], l[32];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	cli_error("%s: %s; --max-memory is %s", file, msg, fmt_bytes(hp_alloc_limit(), l, sizeof l));
	limit_reported = 1;
}

/* the limit refused an allocation since `before` refusals */
static int limit_refused(uint64_t before)
{
	return hp_alloc_limit() && hp_alloc_refusals() > before;
}

int cli_limit_hit(const char *file)
{
	if (!hp_alloc_limit() || !hp_alloc_refusals())
		return 0;
	if (!limit_reported) {
		char a[32], b[32];
		limit_error(file, "the memory limit was hit (%s asked for, %s in use)",
			    fmt_bytes(hp_alloc_refused_request(), a, sizeof a),
			    fmt_bytes(hp_alloc_refused_in_use(), b, sizeof b));
	}
	return 1;
}

/* What the load would need, once the limit refused part of it: `base` bytes
 * in use before the parse (the reader's buffers, the heap's struct) and
 * what the reader grew by, plus the model's estimate.  stopped_at: the
 * parse did not finish (offset), so the figure is a lower bound. */
static void report_model_need(const char *file, const hp_heap *h, uint64_t base, uint64_t before_reader,
			      int stopped, uint64_t stopped_at)
{
	struct hp_heap_need need;
	hp_heap_need(h, &need);
	char x[32], y[32], n[32];
	uint64_t total = base + need.peak;
	fmt_count(need.objects, n, sizeof n);
	if (stopped) {
		limit_error(file, "offset %llu: the memory limit was hit reading; the model needs more than %s (%s objects before this offset)",
			    (unsigned long long)stopped_at, fmt_need(total, x, sizeof x), n);
	} else if (!h->opts.build_objects) {
		limit_error(file, "the class histogram needs about %s (%s objects, nothing kept per object)",
			    fmt_need(total, x, sizeof x), n);
	} else if (loading_retained) {
		/* after the load: the model's tables (not the reader, not the sort)
		 * and the retained-size analysis */
		uint64_t ret = before_reader + need.tables + need.objects * RETAINED_BYTES_PER_OBJECT;
		if (ret < total)
			ret = total;
		limit_error(file, "the model needs about %s (%s objects), and retained sizes about %s in all",
			    fmt_need(total, x, sizeof x), n, fmt_need(ret, y, sizeof y));
	} else {
		limit_error(file, "the model needs about %s (%s objects)", fmt_need(total, x, sizeof x), n);
	}
}

static void format_error(const char *file, const struct hp_error *e, char *buf, size_t n)
{
	if (e->has_pos) {
		char where[160] = "";
		if (e->record) {
			const char *tn = e->tag >= 0 ? hp_tag_name(e->tag) : NULL;
			if (tn)
				snprintf(where, sizeof where, " (record %llu, %s)", (unsigned long long)e->record, tn);
			else if (e->tag >= 0)
				snprintf(where, sizeof where, " (record %llu, tag 0x%02x)", (unsigned long long)e->record, e->tag);
			else
				snprintf(where, sizeof where, " (record %llu)", (unsigned long long)e->record);
		} else {
			snprintf(where, sizeof where, " (header)");
		}
		snprintf(buf, n, "%s: offset %llu (0x%llx)%s: %s", file, (unsigned long long)e->offset,
			 (unsigned long long)e->offset, where, e->msg);
	} else {
		snprintf(buf, n, "%s: %s", file, e->msg);
	}
}

int cli_load_dump(struct cli_opts *o, int build_objects, struct cli_load *L)
{
	memset(L, 0, sizeof *L);
	struct hp_error err;
	hp_error_clear(&err);
	char msg[900];
	double t0 = now();
	hp_reader *r = NULL;
	uint64_t refusals0 = hp_alloc_refusals(), before_reader = hp_alloc_in_use();
	int rc = hp_reader_open(&r, o->file, &err);
	if (rc) {
		if (rc == HP_ENOMEM && limit_refused(refusals0)) {
			char a[32];
			limit_error(o->file, "the memory limit was hit opening the dump (its buffers need more than %s)",
				    fmt_bytes(hp_alloc_refused_in_use() + hp_alloc_refused_request(), a, sizeof a));
			return EXIT_NOMEM;
		}
		format_error(o->file, &err, msg, sizeof msg);
		cli_error("%s", msg);
		return exit_for(rc);
	}
	L->file_size = r->file_size;
	L->reader_kind = hp_reader_kind_name(r);

	struct hp_heap_opts ho;
	hp_heap_opts_init(&ho);
	ho.build_objects = build_objects;
	ho.size_kind = o->size_kind;
	ho.ref_size = o->ref_size;
	ho.header_size = o->header_size;
	ho.align = o->align;
	ho.dump_index = o->dump_index;
	L->heap = hp_heap_new(&ho);
	if (!L->heap) {
		hp_reader_free(r);
		if (limit_refused(refusals0))
			limit_error(o->file, "the memory limit was hit opening the dump");
		else
			cli_error("%s: out of memory", o->file);
		return EXIT_NOMEM;
	}
	/* what is in use before the model grows, and the reader's buffer then */
	uint64_t base = hp_alloc_in_use();
	size_t rd_cap0 = r->cap;
	struct hp_sink sink;
	hp_heap_sink(L->heap, &sink);
	struct progress pr = { .enabled = !o->quiet && isatty(2), .start = t0, .last = 0,
			       .total = r->file_size, .name = o->file, .what = "reading" };
	struct hp_parse_opts po;
	hp_parse_opts_init(&po);
	po.dump_index = o->dump_index;
	po.progress = progress_cb;
	po.progress_ud = &pr;
	rc = hp_parse(r, &sink, &po, &L->stats, &err);
	progress_end(&pr);
	L->gzip_members = r->z_members;
	if (r->cap > rd_cap0)
		base += r->cap - rd_cap0;
	hp_reader_free(r);
	if (rc == HP_ENOMEM && limit_refused(refusals0)) {
		/* the reader or the parser itself was refused: the tally stops here */
		report_model_need(o->file, L->heap, base, before_reader, 1,
				  err.has_pos ? err.offset : L->stats.bytes);
		return EXIT_NOMEM;
	}
	if (rc) {
		format_error(o->file, &err, msg, sizeof msg);
		if (!o->salvage || rc == HP_ENOMEM || rc == HP_EIO || rc == HP_EFORMAT || !L->stats.records) {
			cli_error("%s", msg);
			if (rc == HP_ETRUNC)
				fprintf(stderr, "hprofan: the dump is truncated; --salvage analyses what precedes offset %llu\n",
					(unsigned long long)err.offset);
			else if (rc == HP_ECORRUPT && !o->salvage)
				fprintf(stderr, "hprofan: --salvage analyses what precedes offset %llu\n",
					(unsigned long long)err.offset);
			return exit_for(rc);
		}
		L->partial = 1;
		snprintf(L->partial_msg, sizeof L->partial_msg, "%s", msg);
		cli_warn("%s", msg);
		cli_warn("--salvage: analysing what precedes offset %llu; figures are partial",
			 (unsigned long long)err.offset);
	}
	if (o->dump_index > 0 && (unsigned)o->dump_index >= L->stats.ndumps) {
		cli_error("%s: --dump %d: the file holds %u heap dump%s", o->file, o->dump_index,
			  L->stats.ndumps, L->stats.ndumps == 1 ? "" : "s");
		return EXIT_USAGE;
	}
	if (hp_heap_over_limit(L->heap)) {
		report_model_need(o->file, L->heap, base, before_reader, 0, 0);
		return EXIT_NOMEM;
	}
	hp_error_clear(&err);
	rc = hp_heap_finish(L->heap, &err);
	if (rc == HP_ENOMEM && limit_refused(refusals0)) {
		report_model_need(o->file, L->heap, base, before_reader, 0, 0);
		return EXIT_NOMEM;
	}
	if (rc) {
		cli_error("%s: %s", o->file, err.msg);
		return exit_for(rc);
	}
	L->seconds = now() - t0;
	L->t_parse = L->seconds;
	return EXIT_OK;
}

void cli_load_release(struct cli_load *L)
{
	hp_heap_free(L->heap);
	hp_stats_release(&L->stats);
	memset(L, 0, sizeof *L);
}

void cli_print_stats(const struct cli_opts *o, const struct cli_load *L)
{
	if (!o->stats)
		return;
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	const hp_heap *h = L->heap;
	uint64_t objs = h->n_instances + h->n_objarrays + h->n_primarrays + h->n_classobjs;
	fprintf(stderr, "stats: bytes=%llu objects=%llu seconds=%.6f peak_rss_kb=%ld model_bytes=%llu\n",
		(unsigned long long)L->stats.bytes, (unsigned long long)objs, L->seconds,
		ru.ru_maxrss, (unsigned long long)hp_heap_model_bytes(h));
	if (hp_alloc_limit())
		fprintf(stderr, "memory: max_memory=%llu alloc_peak=%llu alloc_in_use=%llu\n",
			(unsigned long long)hp_alloc_limit(), (unsigned long long)hp_alloc_peak(),
			(unsigned long long)hp_alloc_in_use());
	if (L->ret) {
		const struct hp_retained *R = L->ret;
		double n = objs ? (double)objs : 1;
		fprintf(stderr, "phases: parse=%.3fs (%.0f ns/obj) refs=%.3fs (%.0f ns/obj, %llu refs) "
			"dominators=%.3fs (%.0f ns/obj, peak %llu bytes) retained=%.3fs aggregate=%.3fs\n",
			L->t_parse, 1e9 * L->t_parse / n, R->t_refs, 1e9 * R->t_refs / n,
			(unsigned long long)R->refs.nedges, R->t_dom, 1e9 * R->t_dom / n,
			(unsigned long long)R->dom_peak_bytes, R->t_retained, R->t_aggregate);
	}
}

/* ---- filters -------------------------------------------------------- */

struct cli_filter {
	pcre2_code *inc, *exc;
	pcre2_match_data *md;
};

static pcre2_code *compile(const char *pat, const char *opt)
{
	int ec;
	PCRE2_SIZE eo;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED, PCRE2_UTF, &ec, &eo, NULL);
	if (!re) {
		PCRE2_UCHAR m[256];
		pcre2_get_error_message(ec, m, sizeof m);
		cli_error("%s '%s': bad regular expression at offset %zu: %s", opt, pat, (size_t)eo, (char *)m);
	}
	return re;
}

struct cli_filter *cli_filter_new(const char *include, const char *exclude)
{
	struct cli_filter *f = hp_calloc(1, sizeof *f);
	if (!f)
		return NULL;
	if (include && !(f->inc = compile(include, "--filter")))
		goto fail;
	if (exclude && !(f->exc = compile(exclude, "--exclude")))
		goto fail;
	f->md = pcre2_match_data_create(4, NULL);
	if (!f->md)
		goto fail;
	return f;
fail:
	cli_filter_free(f);
	return NULL;
}

int cli_filter_match(const struct cli_filter *f, const char *name)
{
	if (!f)
		return 1;
	size_t n = strlen(name);
	if (f->inc && pcre2_match(f->inc, (PCRE2_SPTR)name, n, 0, PCRE2_NO_UTF_CHECK * 0, f->md, NULL) < 0)
		return 0;
	if (f->exc && pcre2_match(f->exc, (PCRE2_SPTR)name, n, 0, 0, f->md, NULL) >= 0)
		return 0;
	return 1;
}

void cli_filter_free(struct cli_filter *f)
{
	if (!f)
		return;
	pcre2_code_free(f->inc);
	pcre2_code_free(f->exc);
	pcre2_match_data_free(f->md);
	hp_free(f);
}

/* ---- JSON ----------------------------------------------------------- */

cJSON *json_u64_item(uint64_t v)
{
	char b[32];
	snprintf(b, sizeof b, "%llu", (unsigned long long)v);
	return cJSON_CreateRaw(b);
}

void json_u64(cJSON *obj, const char *key, uint64_t v)
{
	cJSON_AddItemToObject(obj, key, json_u64_item(v));
}

int cli_write_output(const struct cli_opts *o, const char *text)
{
	if (!o->output || strcmp(o->output, "-") == 0) {
		if (fputs(text, stdout) == EOF || fflush(stdout) == EOF) {
			cli_error("cannot write to standard output: %s", strerror(errno));
			return EXIT_BAD;
		}
		return EXIT_OK;
	}
	size_t n = strlen(o->output);
	char *tmp = hp_malloc(n + 32);
	if (!tmp) {
		cli_error("out of memory");
		return EXIT_NOMEM;
	}
	snprintf(tmp, n + 32, "%s.tmp.XXXXXX", o->output);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		cli_error("cannot create %s: %s", tmp, strerror(errno));
		hp_free(tmp);
		return EXIT_BAD;
	}
	size_t len = strlen(text), off = 0;
	int ok = 1;
	while (off < len) {
		ssize_t k = write(fd, text + off, len - off);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			ok = 0;
			break;
		}
		off += (size_t)k;
	}
	if (ok && fsync(fd) != 0 && errno != EINVAL)
		ok = 0;
	fchmod(fd, 0644 & ~0);
	if (close(fd) != 0)
		ok = 0;
	if (!ok || rename(tmp, o->output) != 0) {
		cli_error("cannot write %s: %s", o->output, strerror(errno));
		unlink(tmp);
		hp_free(tmp);
		return EXIT_BAD;
	}
	hp_free(tmp);
	return EXIT_OK;
}

int cli_emit_json(const struct cli_opts *o, cJSON *doc)
{
	if (!doc) {
		cli_error("out of memory building JSON");
		return EXIT_NOMEM;
	}
	char *s = cJSON_Print(doc);
	cJSON_Delete(doc);
	if (!s) {
		cli_error("out of memory printing JSON");
		return EXIT_NOMEM;
	}
	size_t n = strlen(s);
	char *t = hp_malloc(n + 2);
	if (!t) {
		cJSON_free(s);
		cli_error("out of memory");
		return EXIT_NOMEM;
	}
	memcpy(t, s, n);
	t[n] = '\n';
	t[n + 1] = '\0';
	cJSON_free(s);
	int rc = cli_write_output(o, t);
	hp_free(t);
	return rc;
}

static const char *source_name(int s)
{
	return s == 2 ? "option" : s == 1 ? "inferred" : "default";
}

cJSON *json_size_model(const hp_heap *h)
{
	const struct hp_size_model *m = &h->size;
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "name", hp_size_kind_name(m->kind));
	json_u64(j, "id_size", m->id_size);
	json_u64(j, "ref_size", m->ref_size);
	cJSON_AddStringToObject(j, "ref_size_source", source_name(m->ref_source));
	json_u64(j, "header", m->header);
	cJSON_AddStringToObject(j, "header_source", source_name(m->header_source));
	json_u64(j, "array_header", m->array_header);
	json_u64(j, "align", m->align);
	cJSON_AddStringToObject(j, "align_source", source_name(m->align_source));
	json_u64(j, "id_gcd", m->gcd);
	if (m->compressed_evidence)
		json_u64(j, "compressed_refs_evidence_offset", m->compressed_evidence);
	if (m->kind == HP_SIZE_AHAT)
		json_u64(j, "class_instance_size", m->class_instance_size);
	return j;
}

cJSON *json_begin(const char *command, const struct cli_opts *o, const struct cli_load *L)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "schema", HP_SCHEMA);
	cJSON_AddStringToObject(j, "command", command);
	cJSON_AddStringToObject(j, "file", o->file);
	cJSON_AddStringToObject(j, "format", L->stats.header.format);
	json_u64(j, "id_size", L->stats.header.id_size);
	cJSON_AddBoolToObject(j, "partial", L->partial);
	if (L->partial)
		cJSON_AddStringToObject(j, "partial_reason", L->partial_msg);
	if (L->stats.parsed_dump >= 0)
		json_u64(j, "dump", (uint64_t)L->stats.parsed_dump);
	return j;
}

/* ---- retained sizes ------------------------------------------------- */

const char *roots_policy_name(int p)
{
	return p == HP_ROOTS_ALL ? "all" : "threads";
}

void json_policies(cJSON *j, const struct hp_retained *R)
{
	cJSON_AddStringToObject(j, "weak_policy", hp_weak_policy_name(R->weak));
	cJSON_AddStringToObject(j, "roots_policy", roots_policy_name(R->roots_policy));
}

const char *object_label(const hp_heap *h, size_t obj, char *buf, size_t n)
{
	char nm[512];
	const char *name = hp_class_name(h, h->cls[obj]);
	if (hp_heap_kind(h, obj) == HP_OBJ_CLASS) {
		size_t k = hp_idmap_get(&h->class_map, h->ids[obj]);
		if (k != HP_IDMAP_NONE) {
			snprintf(buf, n, "class %s @0x%llx", safe_text(hp_class_name(h, k), nm, sizeof nm),
				 (unsigned long long)h->ids[obj]);
			return buf;
		}
	}
	snprintf(buf, n, "%s @0x%llx", safe_text(name, nm, sizeof nm), (unsigned long long)h->ids[obj]);
	return buf;
}

int parse_object_id(const char *s, uint64_t *id)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || end == s || *end)
		return -1;
	*id = v;
	return 0;
}

int cli_load_retained(struct cli_opts *o, struct cli_load *L, struct hp_retained *R)
{
	memset(R, 0, sizeof *R);
	memset(L, 0, sizeof *L);
	if (strcmp(o->file, "-") == 0) {
		cli_error("-: retained sizes read the dump twice, which a pipe cannot do; save it to a file (or use --fast for shallow sizes)");
		return EXIT_USAGE;
	}
	loading_retained = 1;
	int rc = cli_load_dump(o, 1, L);
	loading_retained = 0;
	if (rc)
		return rc;
	struct hp_retained_opts ro;
	memset(&ro, 0, sizeof ro);
	int android = L->heap->header.version == 3;
	/* VisualVM's and NetBeans' size models come with their conventions */
	int vvm = L->heap->size.kind == HP_SIZE_VISUALVM || L->heap->size.kind == HP_SIZE_NETBEANS;
	ro.weak = o->weak >= 0 ? o->weak : android ? HP_WEAK_SKIP_WEAK : vvm ? HP_WEAK_SKIP : HP_WEAK_FOLLOW;
	ro.roots = o->roots >= 0 ? o->roots : (android || vvm) ? HP_ROOTS_ALL : HP_ROOTS_THREADS;
	struct progress pr = { .enabled = !o->quiet && isatty(2), .start = now(), .name = o->file,
			       .what = "references in" };
	ro.progress = progress_cb;
	ro.progress_ud = &pr;
	struct hp_error err;
	hp_error_clear(&err);
	double t0 = now();
	uint64_t refusals0 = hp_alloc_refusals(), model = hp_alloc_in_use();
	rc = hp_retained_compute(L->heap, o->file, &ro, R, &err);
	progress_end(&pr);
	if (rc == HP_ENOMEM && limit_refused(refusals0)) {
		/* the rough rule, and never less than what was asked for when
		 * the limit refused */
		uint64_t objs = L->heap->nobj;
		uint64_t need = model + objs * RETAINED_BYTES_PER_OBJECT;
		uint64_t asked = hp_alloc_refused_in_use() + hp_alloc_refused_request();
		char a[32], n[32];
		limit_error(o->file, "retained sizes need about %s in all (%s objects; more with many references)",
			    fmt_need(need > asked ? need : asked, a, sizeof a), fmt_count(objs, n, sizeof n));
		return EXIT_NOMEM;
	}
	if (rc) {
		char msg[900];
		format_error(o->file, &err, msg, sizeof msg);
		cli_error("%s", msg);
		return exit_for(rc);
	}
	L->seconds += now() - t0;
	L->ret = R;
	return EXIT_OK;
}
