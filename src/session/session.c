/* session.c — the dump's model and analyses, each made on first use (session.h). */
#include "session/session.h"
#include "base/clock.h"
#include "session/index.h"
#include "parser/spool.h"
#include "base/alloc.h"
#include "parser/reader.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct hp_session {
	char *path;
	int one_shot;                 /* standard input, a FIFO, a pipe named by a path: one read */
	struct hp_spool spool;        /* a streamed input's copy (spool.h) */
	struct hp_session_opts o;
	struct hp_load_info info;
	const char *inflater;         /* the parse's, gzip: hp_session_inflater() */
	uint64_t gzip_ahead;
	struct hp_session_need need;

	hp_heap *heap;                /* NULL until loaded */
	int heap_objects;             /* the heap has the object table */
	int heap_rc;                  /* a failed load: returned again */
	struct hp_error heap_err;
	int want_retained;            /* the model is loaded for retained sizes */
	int no_such_dump;

	struct hp_retained R;
	int ret_done, ret_rc;
	struct hp_retained Rpart[4];  /* from the index: the sums only, the tree without the graph, the values only, the values and the graph */
	struct hp_error ret_err;

	hp_objread *rd;
	int rd_rc;
	struct hp_error rd_err;

	struct hp_native native;
	int native_done, native_rc, native_ret_rc;
	struct hp_error native_err;

	uint32_t *by_cls_off, *by_cls;   /* hp_session_by_class(): NULL until asked */
	int by_cls_rc;
	struct hp_error by_cls_err;

	struct hp_root_shares shares;    /* hp_session_root_shares() */
	int shares_done, shares_rc;
	struct hp_error shares_err;

	struct hp_pathsearch paths[2];   /* by all_weak */
	int paths_done[2], paths_rc[2];
	struct hp_error paths_err[2];

	/* the index: tried on the first getter */
	char *index_path;             /* NULL: none */
	int ix_tried, ix_status;
	char ix_why[256];
	hp_index *ix;                 /* mapped; the heap and maybe R point into it */
	hp_index_writer *ixw;         /* the index being written (its object columns) */
	struct hp_index_ident ident;
	int ident_ok;
	int heap_mapped;              /* s->heap came from the index */
	int spool_tried;              /* the index's model: the dump spooled for rereading */
	int ret_mapped;               /* s->R came from the index */
	int ix_written;               /* hp_session_write_index() wrote what there is */
	int ix_failed;                /* it could not (said once: not tried again) */
	int ix_had_ret;               /* the index held retained sizes (under some policies) */
	int ret_default;              /* s->R is under the dump's default policies */
	int paths_mapped[2];          /* s->paths[k] came from the index */
};

void hp_session_opts_init(struct hp_session_opts *o)
{
	memset(o, 0, sizeof *o);
	o->weak = -1;
	o->roots = -1;
}

int hp_session_open(hp_session **out, const char *path, const struct hp_session_opts *o, struct hp_error *err)
{
	*out = NULL;
	hp_session *s = hp_calloc(1, sizeof *s);
	if (!s || !(s->path = hp_strdup(path))) {
		hp_free(s);
		return hp_error_set(err, HP_ENOMEM, "out of memory");
	}
	if (o)
		s->o = *o;
	else
		hp_session_opts_init(&s->o);
	s->info.stats.parsed_dump = -1;
	s->ix_status = HP_INDEX_MISSING;
	if (s->o.index_path && !(s->index_path = hp_strdup(s->o.index_path))) {
		hp_free(s->path);
		hp_free(s);
		return hp_error_set(err, HP_ENOMEM, "out of memory");
	}
	s->o.index_path = s->index_path;
	/* what is not a regular file (or a disk) may not be there a second
	 * time: a FIFO, /dev/stdin, <(zcat ...) are read once, like "-" (stat
	 * does not open, so a FIFO without a writer does not block here) */
	struct stat st;
	s->one_shot = strcmp(path, "-") == 0 ||
		      (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode));
	hp_spool_init(&s->spool);
	/* a pipe's spool at once: when it cannot be made, the commands that
	 * read twice say so before reading (a FIFO without a writer blocks) */
	if (s->one_shot)
		hp_spool_create(&s->spool, s->o.spool_dir);
	*out = s;
	return HP_OK;
}

void hp_session_free(hp_session *s)
{
	if (!s)
		return;
	hp_spool_close(&s->spool);
	for (int i = 0; i < 2; i++) {
		if (s->paths_done[i] && !s->paths_rc[i] && !s->paths_mapped[i]) {
			hp_paths_release(&s->paths[i].P);
			hp_refs_release(&s->paths[i].g);
		}
	}
	hp_index_write_abort(s->ixw);   /* (before the heap it reads is freed) */
	hp_native_release(&s->native);
	hp_root_shares_release(&s->shares);
	hp_free_all(s->by_cls_off, s->by_cls);
	hp_objread_free(s->rd);
	hp_retained_release(&s->R);
	hp_heap_free(s->heap);
	if (s->heap_mapped)
		s->info.stats.dumps = NULL;   /* in the mapping */
	hp_stats_release(&s->info.stats);
	hp_index_close(s->ix);
	hp_free(s->index_path);
	hp_free(s->path);
	hp_free(s);
}

const char *hp_session_path(const hp_session *s) { return s->path; }

int hp_session_one_shot(const hp_session *s) { return s->one_shot; }

int hp_session_rereadable(const hp_session *s)
{
	if (!s->one_shot || s->spool.ok)
		return 1;
	/* not read yet: the spool will hold it */
	return s->spool.fd >= 0 && !s->heap && !s->heap_rc;
}

const char *hp_session_spool_note(const hp_session *s)
{
	return s->spool.note[0] ? s->spool.note : NULL;
}

struct progress_fwd { const struct hp_session_opts *o; int phase; uint64_t total; };

static void progress_cb(void *ud, uint64_t done)
{
	const struct progress_fwd *p = ud;
	if (p->o->progress)
		p->o->progress(p->o->progress_ud, p->phase, done, p->total);
}

/* The model came from the index, so no pass filled the spool: a streamed
 * dump (gzip) is inflated into it now, once, in one pass (what the parse
 * would have cost), since reading a gzip stream at an earlier offset
 * inflates it again from its start.  A plain file is read in place; when
 * the spool cannot be made or filled, the dump itself is read as before. */
static void spool_for_index(hp_session *s)
{
	s->spool_tried = 1;
	struct hp_error e;
	hp_error_clear(&e);
	hp_reader *r = NULL;
	if (hp_reader_open(&r, s->path, &e) != HP_OK)
		return;   /* the reread says what is wrong */
	if (r->kind == HP_RD_MMAP) {
		hp_reader_free(r);
		return;
	}
	if (s->spool.fd < 0)
		hp_spool_create(&s->spool, s->o.spool_dir);
	if (s->spool.fd < 0) {
		hp_reader_free(r);
		return;
	}
	hp_reader_spool(r, s->spool.fd);
	struct progress_fwd pf = { &s->o, HP_PHASE_READ, r->file_size };
	progress_cb(&pf, 0);
	int rc;
	/* in steps of 8 MiB, for the progress */
	while ((rc = hp_rd_skip(r, 8u << 20, &e)) == HP_OK)
		progress_cb(&pf, hp_reader_progress(r));
	if (rc == HP_ETRUNC || (s->o.salvage && rc == HP_ECORRUPT)) {
		progress_cb(&pf, r->file_size);
		hp_spool_done(&s->spool, r, s->o.spool_dir);
	} else {
		snprintf(s->spool.note, sizeof s->spool.note, "the input could not be read");
		hp_spool_close(&s->spool);
	}
	hp_reader_free(r);
}

const char *hp_session_reread_path(hp_session *s, struct hp_error *err)
{
	if (!s->spool.ok && s->heap_mapped && !s->one_shot && !s->spool_tried)
		spool_for_index(s);
	if (s->spool.ok)
		return s->spool.path;
	if (!s->one_shot)
		return s->path;
	hp_error_set(err, HP_EUSAGE, "the input was read once and no copy of it was kept (%s)",
		     s->spool.note[0] ? s->spool.note : "it was read without its objects");
	return NULL;
}

const struct hp_load_info *hp_session_load_info(const hp_session *s) { return &s->info; }

const char *hp_session_inflater(const hp_session *s, uint64_t *members_ahead)
{
	*members_ahead = s->gzip_ahead;
	return s->inflater;
}
const struct hp_session_need *hp_session_need(const hp_session *s) { return &s->need; }
int hp_session_retained_done(const hp_session *s) { return s->ret_done; }

int hp_session_no_such_dump(const hp_session *s, unsigned *ndumps)
{
	if (ndumps)
		*ndumps = s->info.stats.ndumps;
	return s->no_such_dump;
}

void hp_policy_defaults(const hp_heap *h, int *weak, int *roots)
{
	int android = hp_heap_android(h);
	int vvm = h->size.kind == HP_SIZE_VISUALVM || h->size.kind == HP_SIZE_NETBEANS;
	*weak = android ? HP_WEAK_SKIP_WEAK : vvm ? HP_WEAK_SKIP : HP_WEAK_FOLLOW;
	*roots = (android || vvm) ? HP_ROOTS_ALL : HP_ROOTS_THREADS;
}

/* ---- the model ---------------------------------------------------------- */

/* the limit refused an allocation since `before` refusals */
static int limit_refused(uint64_t before)
{
	return hp_alloc_limit() && hp_alloc_refusals() > before;
}

/* What the load would need, once the limit refused part of it: `base`
 * bytes in use before the parse (the reader's buffers, the heap's struct)
 * and what the reader grew by, plus the model's estimate.  stopped: the
 * parse did not finish (at offset), so the figure is a lower bound. */
static void model_need(hp_session *s, const hp_heap *h, uint64_t base, uint64_t before_reader, int stopped,
		       uint64_t stopped_at)
{
	struct hp_heap_need need;
	hp_heap_need(h, &need);
	uint64_t total = base + need.peak;
	s->need.bytes = total;
	s->need.objects = need.objects;
	if (stopped) {
		s->need.stage = HP_NEED_READING;
		s->need.offset = stopped_at;
	} else if (!h->opts.build_objects) {
		s->need.stage = HP_NEED_HISTOGRAM;
	} else if (s->want_retained) {
		/* after the load: the model's tables (not the reader, not the
		 * sort) and the retained-size analysis */
		uint64_t ret = before_reader + need.tables + need.objects * HP_RETAINED_BYTES_PER_OBJECT;
		s->need.stage = HP_NEED_MODEL_RETAINED;
		s->need.retained_bytes = ret < total ? total : ret;
	} else {
		s->need.stage = HP_NEED_MODEL;
	}
}

/* a file that holds no heap dump, said as what it most likely is */
static int no_dump(hp_session *s, struct hp_error *err)
{
	const struct hp_load_info *L = &s->info;
	if (L->partial) {
		*err = L->partial_err;
		size_t l = strlen(err->msg);
		snprintf(err->msg + l, sizeof err->msg - l, "; no heap dump begins before it: nothing to salvage");
		err->code = HP_ECORRUPT;
		return HP_ECORRUPT;
	}
	if (s->o.salvage) {
		hp_error_clear(err);
		return hp_error_setpos(err, HP_ECORRUPT, L->stats.bytes, L->stats.records + 1, -1, -1,
				       "file ends after %llu records and no heap dump: nothing to salvage",
				       (unsigned long long)L->stats.records);
	}
	/* records only the JDK hprof agent writes (a file of allocation sites
	 * or CPU samples may hold no heap dump); HotSpot's and ART's dumpers
	 * write strings, classes and stacks, then the heap dump */
	static const int agent_tags[] = { 0x06, 0x07, 0x0A, 0x0B, 0x0D, 0x0E };
	int agent = 0;
	for (size_t i = 0; i < sizeof agent_tags / sizeof *agent_tags; i++)
		agent |= L->stats.records_by_tag[agent_tags[i]] != 0;
	if (agent) {
		hp_error_clear(err);
		return hp_error_set(err, HP_EFORMAT,
				    "the file holds no heap dump, only %llu other records of the JDK hprof agent "
				    "('hprofan info' lists them; if the file was cut short, its heap dump is missing)",
				    (unsigned long long)L->stats.records);
	}
	hp_error_clear(err);
	return hp_error_setpos(err, HP_ETRUNC, L->stats.bytes, L->stats.records + 1, -1, -1,
			       "file ends after %llu records and no heap dump: %s writes the heap dump after "
			       "the strings and classes, so the file is cut short",
			       (unsigned long long)L->stats.records,
			       L->stats.header.version == 3 ? "ART" : "HotSpot");
}

static int load(hp_session *s, int build_objects, struct hp_error *err)
{
	struct hp_load_info *L = &s->info;
	hp_stats_release(&L->stats);
	memset(L, 0, sizeof *L);
	L->stats.parsed_dump = -1;
	memset(&s->need, 0, sizeof s->need);
	double t0 = hp_now();
	hp_reader *r = NULL;
	uint64_t refusals0 = hp_alloc_refusals(), before_reader = hp_alloc_in_use();
	int rc = hp_reader_open(&r, s->path, err);
	if (rc) {
		if (rc == HP_ENOMEM && limit_refused(refusals0)) {
			s->need.stage = HP_NEED_OPEN_BUFFERS;
			s->need.bytes = hp_alloc_refused_in_use() + hp_alloc_refused_request();
		}
		return rc;
	}
	L->file_size = r->file_size;
	L->reader_kind = hp_reader_kind_name(r);
	/* a streamed input read for its objects: into the spool as it is read */
	int spooling = 0;
	if (build_objects && r->kind != HP_RD_MMAP && !s->spool.ok) {
		if (s->spool.fd < 0 && !s->one_shot)
			hp_spool_create(&s->spool, s->o.spool_dir);
		if (s->spool.fd >= 0) {
			hp_reader_spool(r, s->spool.fd);
			spooling = 1;
		}
	}

	struct hp_heap_opts ho;
	hp_heap_opts_init(&ho);
	ho.build_objects = build_objects;
	ho.size_kind = s->o.size_kind;
	ho.ref_size = s->o.ref_size;
	ho.header_size = s->o.header_size;
	ho.align = s->o.align;
	ho.dump_index = s->o.dump_index;
	hp_heap *h = hp_heap_new(&ho);
	if (!h) {
		hp_reader_free(r);
		if (limit_refused(refusals0))
			s->need.stage = HP_NEED_OPEN;
		return hp_error_set(err, HP_ENOMEM, "out of memory");
	}
	/* what is in use before the model grows, and the reader's buffer then */
	uint64_t base = hp_alloc_in_use();
	size_t rd_cap0 = r->cap;
	struct hp_sink sink;
	hp_heap_sink(h, &sink);
	struct progress_fwd pf = { &s->o, HP_PHASE_READ, r->file_size };
	progress_cb(&pf, 0);
	struct hp_parse_opts po;
	hp_parse_opts_init(&po);
	po.dump_index = s->o.dump_index;
	po.string_max = HP_STRING_MAX;   /* the heap keeps no more of a string */
	po.trace_frames_max = HP_TRACE_FRAMES_MAX;   /* nor of a stack trace */
	po.progress = progress_cb;
	po.progress_ud = &pf;
	hp_parse_object_thread(&po);   /* (the bench dump's --fast: docs/performance.md) */
	rc = hp_parse(r, &sink, &po, &L->stats, err);
	L->gzip_members = r->z_members;
	s->inflater = hp_reader_inflater(r);
	s->gzip_ahead = r->z_ahead;
	if (r->cap > rd_cap0)
		base += r->cap - rd_cap0;
	if (spooling && (rc == HP_OK || (s->o.salvage && (rc == HP_ETRUNC || rc == HP_ECORRUPT))))
		hp_spool_done(&s->spool, r, s->o.spool_dir);
	else if (spooling) {
		snprintf(s->spool.note, sizeof s->spool.note, "the input could not be read");
		hp_spool_close(&s->spool);
	}
	hp_reader_free(r);
	if (rc && hp_heap_too_many(h)) {
		/* (err keeps the record's position) */
		hp_error_set(err, HP_ENOMEM, "more than %zu objects: the model numbers objects in 32 bits "
			     "(--fast counts any number)", hp_heap_max_objects);
		hp_heap_free(h);
		return HP_ENOMEM;
	}
	if (rc == HP_ENOMEM && limit_refused(refusals0)) {
		/* the reader or the parser itself was refused: the tally stops here */
		model_need(s, h, base, before_reader, 1, err->has_pos ? err->offset : L->stats.bytes);
		hp_heap_free(h);
		return rc;
	}
	if (rc) {
		if (!s->o.salvage || rc == HP_ENOMEM || rc == HP_EIO || rc == HP_EFORMAT || !L->stats.records) {
			hp_heap_free(h);
			return rc;
		}
		L->partial = 1;
		L->partial_err = *err;
		hp_error_clear(err);
	}
	if (s->o.need_dump && L->stats.ndumps == 0 &&
	    !(s->o.need_dump == 2 && (h->nalloc_recs || h->nsummaries || h->ncpu_recs))) {
		hp_heap_free(h);
		return no_dump(s, err);
	}
	if (s->o.dump_index > 0 && (unsigned)s->o.dump_index >= L->stats.ndumps) {
		s->no_such_dump = 1;
		hp_heap_free(h);
		return hp_error_set(err, HP_EUSAGE, "the file holds %u heap dump%s", L->stats.ndumps,
				    L->stats.ndumps == 1 ? "" : "s");
	}
	if (hp_heap_over_limit(h)) {
		model_need(s, h, base, before_reader, 0, 0);
		hp_heap_free(h);
		return hp_error_set(err, HP_ENOMEM, "the memory limit was reached while reading");
	}
	rc = hp_heap_finish(h, err);
	if (rc) {
		if (rc == HP_ENOMEM && limit_refused(refusals0))
			model_need(s, h, base, before_reader, 0, 0);
		hp_heap_free(h);
		return rc;
	}
	if (s->o.mapping && (rc = hp_mapping_apply(s->o.mapping, h, &L->mapped, err))) {
		hp_heap_free(h);
		return rc;
	}
	L->seconds = hp_now() - t0;
	L->t_parse = L->seconds;
	L->mem_parse = hp_alloc_phase_peak();
	s->heap = h;
	s->heap_objects = build_objects;
	return HP_OK;
}

static struct hp_index_key index_key(const hp_session *s)
{
	struct hp_index_key k;
	memset(&k, 0, sizeof k);
	k.size_kind = s->o.size_kind;
	k.ref_size = s->o.ref_size;
	k.header_size = s->o.header_size;
	k.align = s->o.align;
	k.dump_index = s->o.dump_index;
	k.salvage = s->o.salvage;
	return k;
}

/* the model from the index, when there is a valid one */
static void try_index(hp_session *s)
{
	s->ix_tried = 1;
	if (!s->index_path || s->one_shot)
		return;
	struct hp_error e;
	hp_error_clear(&e);
	if (hp_index_identity(s->path, &s->ident, &e) != HP_OK)
		return;   /* the parse says what is wrong with the dump */
	s->ident_ok = 1;
	double t0 = hp_now();
	struct hp_index_key key = index_key(s);
	s->ix_status = hp_index_open(&s->ix, s->index_path, &s->ident, &key, s->ix_why, sizeof s->ix_why);
	if (s->ix_status != HP_INDEX_OK)
		return;
	hp_stats_release(&s->info.stats);
	hp_index_load_info(s->ix, &s->info);
	s->heap = hp_index_heap(s->ix);
	s->heap_objects = 1;
	s->heap_mapped = 1;
	s->info.seconds = s->info.t_parse = hp_now() - t0;
	s->info.mem_parse = hp_alloc_phase_peak();
	s->info.index_written = 0;
	s->info.t_index = 0;
	s->info.mem_index = 0;
}

static int get_heap(hp_session *s, int objects, const hp_heap **out, struct hp_error *err)
{
	*out = NULL;
	if (!s->ix_tried && !s->heap)
		try_index(s);
	if (s->heap && (s->heap_objects || !objects)) {
		*out = s->heap;
		return HP_OK;
	}
	if (s->heap_rc) {
		*err = s->heap_err;
		return s->heap_rc;
	}
	if (s->heap) {
		/* a histogram was read: the object table needs another pass */
		if (!hp_session_rereadable(s))
			return hp_error_set(err, HP_EUSAGE, "the dump was read from a pipe once already");
		hp_heap_free(s->heap);
		s->heap = NULL;
	}
	hp_error_clear(err);
	int rc = load(s, objects, err);
	if (rc) {
		s->heap_rc = rc;
		s->heap_err = *err;
		return rc;
	}
	/* the index will be written at the end: its object columns now, on
	 * a thread of their own, while retained sizes are computed */
	if (hp_session_index_pending(s) && !s->ixw) {
		struct hp_error e;
		hp_error_clear(&e);
		if (hp_index_write_start(&s->ixw, s->index_path, s->heap, &e) != HP_OK)
			s->ixw = NULL;   /* hp_session_write_index() says why, trying again */
	}
	*out = s->heap;
	return HP_OK;
}

int hp_session_histogram(hp_session *s, const hp_heap **h, struct hp_error *err)
{
	return get_heap(s, 0, h, err);
}

int hp_session_model(hp_session *s, const hp_heap **h, struct hp_error *err)
{
	return get_heap(s, 1, h, err);
}

/* ---- retained sizes ----------------------------------------------------- */

/* the weak and roots policies asked for: the options, else the dump's */
static void wanted_policies(const hp_session *s, const hp_heap *h, int *weak, int *roots)
{
	hp_policy_defaults(h, weak, roots);
	if (s->o.weak >= 0)
		*weak = s->o.weak;
	if (s->o.roots >= 0)
		*roots = s->o.roots;
}

/* the model, loaded knowing that retained sizes will follow (a refusal
 * under --max-memory then says what both need) */
static int model_for_retained(hp_session *s, const hp_heap **h, struct hp_error *err)
{
	s->want_retained = 1;
	int rc = hp_session_model(s, h, err);
	s->want_retained = 0;
	return rc;
}

/* part of the index's retained sizes: 1 the sums, 2 the tree, 3 the
 * values, 4 the values and the graph (into s->Rpart[part - 1]), else all
 * of them (hp_session_retained()) */
static int retained_part(hp_session *s, int part, const struct hp_retained **out, struct hp_error *err)
{
	*out = NULL;
	if (!s->ret_done) {
		const hp_heap *h;
		int rc = model_for_retained(s, &h, err);
		if (rc)
			return rc;
		int weak, roots;
		wanted_policies(s, h, &weak, &roots);
		struct hp_retained ixR, *P = &s->Rpart[part - 1];
		int got = !s->ix ? 0 : part == 1 ? hp_index_retained_sums(s->ix, &ixR, s->ix_why, sizeof s->ix_why)
				       : part == 2 ? hp_index_retained_tree(s->ix, &ixR, s->ix_why, sizeof s->ix_why)
				       : part == 3 ? hp_index_retained_values(s->ix, &ixR, s->ix_why, sizeof s->ix_why)
				       : hp_index_retained_graph(s->ix, &ixR, s->ix_why, sizeof s->ix_why);
		if (got > 0 && ixR.weak == weak && ixR.roots_policy == roots) {
			*P = ixR;
			P->t_refs = P->t_dom = P->t_retained = P->t_aggregate = 0;
			P->mem_refs = P->mem_dom = P->mem_retained = 0;
			*out = P;
			return HP_OK;
		}
	}
	return hp_session_retained(s, out, err);   /* (a damaged index says so again there) */
}

int hp_session_retained_sums(hp_session *s, const struct hp_retained **out, struct hp_error *err)
{
	return retained_part(s, 1, out, err);
}

int hp_session_retained_tree(hp_session *s, const struct hp_retained **out, struct hp_error *err)
{
	return retained_part(s, 2, out, err);
}

int hp_session_retained_values(hp_session *s, const struct hp_retained **out, struct hp_error *err)
{
	return retained_part(s, 3, out, err);
}

int hp_session_retained_graph(hp_session *s, const struct hp_retained **out, struct hp_error *err)
{
	return retained_part(s, 4, out, err);
}

int hp_session_retained(hp_session *s, const struct hp_retained **out, struct hp_error *err)
{
	*out = NULL;
	if (s->ret_done) {
		if (s->ret_rc)
			*err = s->ret_err;
		else
			*out = &s->R;
		return s->ret_rc;
	}
	const hp_heap *h;
	int rc = model_for_retained(s, &h, err);
	if (rc)
		return rc;
	struct hp_retained_opts ro;
	memset(&ro, 0, sizeof ro);
	wanted_policies(s, h, &ro.weak, &ro.roots);
	/* leak traces leave the followed referents out (8 bytes per Reference) */
	ro.list_followed = 1;
	int dw, dr;
	hp_policy_defaults(h, &dw, &dr);
	s->ret_default = dw == ro.weak && dr == ro.roots;
	struct hp_retained ixR;
	int got = s->ix ? hp_index_retained(s->ix, &ixR, s->ix_why, sizeof s->ix_why) : 0;
	if (got < 0)
		s->ix_status = HP_INDEX_CORRUPT;   /* computed from the dump, the index rewritten */
	s->ix_had_ret = got > 0;
	if (got > 0 && ixR.weak == ro.weak && ixR.roots_policy == ro.roots) {
		s->R = ixR;
		s->R.t_refs = s->R.t_dom = s->R.t_retained = s->R.t_aggregate = 0;
		s->R.mem_refs = s->R.mem_dom = s->R.mem_retained = 0;
		s->ret_mapped = 1;
		s->ret_done = 1;
		*out = &s->R;
		return HP_OK;
	}
	hp_error_clear(err);
	const char *path = hp_session_reread_path(s, err);
	if (!path) {
		s->ret_done = 1;
		s->ret_rc = err->code;
		s->ret_err = *err;
		return s->ret_rc;
	}
	struct progress_fwd pf = { &s->o, HP_PHASE_REFS, 0 };
	progress_cb(&pf, 0);
	ro.progress = progress_cb;
	ro.progress_ud = &pf;
	double t0 = hp_now();
	uint64_t refusals0 = hp_alloc_refusals(), model = hp_alloc_in_use();
	rc = hp_retained_compute(h, path, &ro, &s->R, err);
	if (rc == HP_ENOMEM && limit_refused(refusals0)) {
		/* the rough rule, and never less than what was asked for when
		 * the limit refused */
		uint64_t need = model + (uint64_t)h->nobj * HP_RETAINED_BYTES_PER_OBJECT;
		uint64_t asked = hp_alloc_refused_in_use() + hp_alloc_refused_request();
		s->need.stage = HP_NEED_RETAINED;
		s->need.bytes = need > asked ? need : asked;
		s->need.objects = h->nobj;
	}
	s->ret_done = 1;
	s->ret_rc = rc;
	if (rc) {
		s->ret_err = *err;
		return rc;
	}
	s->info.seconds += hp_now() - t0;
	*out = &s->R;
	return HP_OK;
}

/* ---- objects and paths -------------------------------------------------- */

/* the spool for an object reader that would start a gzip stream again */
static const char *objread_copy(void *ud)
{
	hp_session *s = ud;
	if (!s->spool_tried)
		spool_for_index(s);
	return s->spool.ok ? s->spool.path : NULL;
}

int hp_session_objread(hp_session *s, hp_objread **out, struct hp_error *err)
{
	*out = NULL;
	if (s->rd) {
		*out = s->rd;
		return HP_OK;
	}
	if (s->rd_rc) {
		*err = s->rd_err;
		return s->rd_rc;
	}
	const hp_heap *h;
	HP_TRY(hp_session_model(s, &h, err));
	/* the model from the index: a gzip dump is streamed, started again
	 * for an earlier object, until that has inflated a quarter of it;
	 * then it is spooled (once) and read there.  A few objects cost what
	 * they did, many at most 1.25 inflates, never more than the run
	 * without the index (whose parse inflates it once and spools it) */
	int lazy = s->heap_mapped && !s->spool.ok && !s->one_shot;
	const char *path = lazy ? s->path : hp_session_reread_path(s, err);
	int rc = path ? hp_objread_open(&s->rd, h, path, err) : err->code;
	if (rc) {
		s->rd_rc = rc;
		s->rd_err = *err;
		return rc;
	}
	if (lazy)
		hp_objread_on_restart(s->rd, s->info.stats.bytes / 4, objread_copy, s);
	*out = s->rd;
	return HP_OK;
}

int hp_session_by_class_made(const hp_session *s)
{
	return s->by_cls != NULL;
}

int hp_session_by_class(hp_session *s, const uint32_t **off, const uint32_t **objs, struct hp_error *err)
{
	*off = *objs = NULL;
	if (s->by_cls) {
		*off = s->by_cls_off;
		*objs = s->by_cls;
		return HP_OK;
	}
	if (s->by_cls_rc) {
		*err = s->by_cls_err;
		return s->by_cls_rc;
	}
	const hp_heap *h;
	HP_TRY(hp_session_model(s, &h, err));
	size_t n = h->nobj, nc = h->nclasses;
	int rc = HP_OK;
	uint32_t *o = NULL, *list = NULL;
	if (n > UINT32_MAX) {
		rc = hp_error_set(err, HP_ECORRUPT, "%zu objects: more than an object number holds", n);
		goto out;
	}
	/* a counting sort: the counts shifted by two, so that the fill
	 * leaves o[c] at the start of class c */
	o = hp_calloc(nc + 2, sizeof *o);
	list = hp_reallocarray(NULL, n ? n : 1, sizeof *list);
	if (!o || !list) {
		rc = hp_error_set(err, HP_ENOMEM, "out of memory listing the objects by class");
		goto out;
	}
	for (size_t v = 0; v < n; v++) {
		if (h->cls[v] >= nc) {
			rc = hp_error_set(err, HP_ECORRUPT, "object %zu: class %u out of range", v, h->cls[v]);
			goto out;
		}
		o[h->cls[v] + 2]++;
	}
	for (size_t c = 0; c < nc; c++)
		o[c + 2] += o[c + 1];
	for (size_t v = 0; v < n; v++)
		list[o[h->cls[v] + 1]++] = (uint32_t)v;
	s->by_cls_off = o;
	s->by_cls = list;
	*off = o;
	*objs = list;
	return HP_OK;
out:
	hp_free_all(o, list);
	s->by_cls_rc = rc;
	s->by_cls_err = *err;
	return rc;
}

int hp_session_root_shares(hp_session *s, const struct hp_root_shares **out, struct hp_error *err)
{
	*out = NULL;
	if (!s->shares_done) {
		const struct hp_retained *R;
		const hp_heap *h;
		HP_TRY(hp_session_retained(s, &R, err));
		HP_TRY(hp_session_model(s, &h, err));
		s->shares_done = 1;
		hp_error_clear(&s->shares_err);
		s->shares_rc = hp_root_shares_compute(h, R, &s->shares, &s->shares_err);
	}
	if (s->shares_rc) {
		*err = s->shares_err;
		return s->shares_rc;
	}
	*out = &s->shares;
	return HP_OK;
}

int hp_session_native(hp_session *s, int with_retained, const struct hp_native **out, struct hp_error *err)
{
	*out = NULL;
	if (!s->native_done) {
		const hp_heap *h;
		hp_objread *rd;
		HP_TRY(hp_session_objread(s, &rd, err));
		HP_TRY(hp_session_model(s, &h, err));
		s->native_done = 1;
		s->native_rc = hp_native_compute(h, rd, &s->native, &s->native_err);
	}
	if (s->native_rc) {
		*err = s->native_err;
		return s->native_rc;
	}
	if (with_retained && !s->native_ret_rc) {
		const struct hp_retained *R;
		const hp_heap *h;
		HP_TRY(hp_session_model(s, &h, err));
		/* hp_native_retain() sums over the tree only with native sizes or
		 * an Android dump's heaps (so --top from an index reads no tree) */
		if (hp_heap_android(h) || s->native.shallow) {
			HP_TRY(hp_session_retained(s, &R, err));
			s->native_ret_rc = hp_native_retain(h, R, &s->native, &s->native_err);
		}
	}
	if (with_retained && s->native_ret_rc) {
		*err = s->native_err;
		return s->native_ret_rc;
	}
	*out = &s->native;
	return HP_OK;
}

int hp_session_paths_indexed(hp_session *s, int all_weak)
{
	if (!s->ix_tried && !s->heap)
		try_index(s);
	return !all_weak && !s->paths_done[0] && s->ix && hp_index_has_paths(s->ix);
}

int hp_session_paths(hp_session *s, int all_weak, const struct hp_pathsearch **out, struct hp_error *err)
{
	*out = NULL;
	int k = all_weak ? 1 : 0;
	if (s->paths_done[k]) {
		if (s->paths_rc[k])
			*err = s->paths_err[k];
		else
			*out = &s->paths[k];
		return s->paths_rc[k];
	}
	const hp_heap *h;
	HP_TRY(hp_session_model(s, &h, err));
	struct hp_pathsearch *ps = &s->paths[k];
	memset(ps, 0, sizeof *ps);
	int got = !all_weak && s->ix ? hp_index_paths(s->ix, ps, s->ix_why, sizeof s->ix_why) : 0;
	if (got < 0) {
		s->ix_status = HP_INDEX_CORRUPT;   /* computed from the dump, the index rewritten */
		memset(ps, 0, sizeof *ps);
	}
	if (got > 0) {
		s->paths_done[k] = 1;
		s->paths_mapped[k] = 1;
		*out = ps;
		return HP_OK;
	}
	ps->all_weak = all_weak;
	int rc = HP_OK;
	uint32_t *starts = hp_reallocarray(NULL, h->nroots ? h->nroots : 1, sizeof *starts);
	if (!starts) {
		rc = hp_error_set(err, HP_ENOMEM, "out of memory");
		goto out;
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
	ro.class_edges = hp_refs_want_class_edges(h);   /* taken last (paths.h) */
	ro.no_super_edges = ro.no_loader_edges = !hp_refs_want_class_links(h);
	const char *path = hp_session_reread_path(s, err);
	rc = path ? hp_refs_build(h, path, &ro, &ps->g, err) : err->code;
	if (!rc) {
		rc = hp_paths_bfs(&ps->P, &ps->g, starts, ns, err);
		if (rc)
			hp_refs_release(&ps->g);
	}
	hp_free(starts);
out:
	s->paths_done[k] = 1;
	s->paths_rc[k] = rc;
	if (rc) {
		s->paths_err[k] = *err;
		return rc;
	}
	*out = ps;
	return HP_OK;
}

/* ---- the index ---------------------------------------------------------- */

int hp_session_index_state(const hp_session *s, const char **why)
{
	if (why)
		*why = s->ix_why;
	return s->ix_status;
}

/* retained sizes computed from the dump that go into the index: under
 * other policies they replace the index's only when those were not the
 * defaults (or when asked), so alternating does not rewrite it each time */
static int write_ret(const hp_session *s)
{
	return s->ret_done && !s->ret_rc && !s->ret_mapped &&
	       (s->ret_default || !s->ix_had_ret || s->o.index_any_policy);
}

/* the model under options other than the defaults (size model, dump,
 * salvage): it replaces an index made under other options only when asked
 * (hprofan index), so alternating --align 64 and the default does not
 * rewrite the index each time (the default's index replaces any other) */
static int keeps_other_key(const hp_session *s)
{
	struct hp_index_key k = index_key(s), d;
	memset(&d, 0, sizeof d);
	return s->ix_status == HP_INDEX_OTHER_KEY && memcmp(&k, &d, sizeof k) != 0 && !s->o.index_any_policy;
}

int hp_session_index_pending(const hp_session *s)
{
	if (!s->index_path || s->one_shot || !s->ident_ok || s->ix_written || s->ix_failed || !s->heap || !s->heap_objects || s->heap_rc ||
	    !s->info.stats.ndumps || s->no_such_dump || s->ix_status == HP_INDEX_UNTRUSTED || keeps_other_key(s))
		return 0;
	return !s->heap_mapped || write_ret(s) || (s->paths_done[0] && !s->paths_rc[0] && !s->paths_mapped[0]);
}

int hp_session_write_index(hp_session *s, uint64_t *bytes, struct hp_error *err)
{
	if (!hp_session_index_pending(s))
		return HP_OK;
	struct hp_index_key key = index_key(s);
	/* what was computed, else what the index held */
	/* (what the index holds is checked first: a damaged part is left out) */
	struct hp_retained ixR;
	struct hp_pathsearch ixP;
	char why[160];
	const struct hp_retained *R = write_ret(s) || s->ret_mapped ? &s->R
				      : s->ix && hp_index_retained(s->ix, &ixR, why, sizeof why) > 0 ? &ixR : NULL;
	const struct hp_pathsearch *P = s->paths_done[0] && !s->paths_rc[0] ? &s->paths[0]
					: s->ix && hp_index_paths(s->ix, &ixP, why, sizeof why) > 0 ? &ixP : NULL;
	double t0 = hp_now();
	int rc = hp_index_write_finish(s->ixw, s->index_path, &s->ident, &key, s->heap, &s->info, R, P, bytes, err);
	s->ixw = NULL;
	s->ix_written = rc == HP_OK;
	s->ix_failed = rc != HP_OK;
	if (s->ix_written) {
		s->info.index_written = 1;
		s->info.t_index = hp_now() - t0;
		s->info.mem_index = hp_alloc_phase_peak();
	}
	return rc;
}
