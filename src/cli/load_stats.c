/* load_stats.c — --stats: a session's bytes, objects, time, peak memory,
 * gzip's inflater, the file-backed blocks, I/O, the phases' times and the
 * allocator's peak in each phase on stderr. */
#include "cli/load.h"
#include "base/alloc.h"

#include <stdio.h>
#include <sys/resource.h>

void cli_print_stats(const struct cli_ctx *x, hp_session *S)
{
	if (!x->c->stats || !S)
		return;
	const struct hp_load_info *L = hp_session_load_info(S);
	const hp_heap *h;
	struct hp_error err;
	if (hp_session_histogram(S, &h, &err) != HP_OK)
		return;
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	uint64_t objs = h->n_instances + h->n_objarrays + h->n_primarrays + h->n_classobjs;
	fprintf(stderr, "stats: bytes=%llu objects=%llu seconds=%.6f peak_rss_kb=%ld model_bytes=%llu\n",
		(unsigned long long)L->stats.bytes, (unsigned long long)objs, L->seconds,
		ru.ru_maxrss, (unsigned long long)hp_heap_model_bytes(h));
	uint64_t ahead;
	const char *inflater = hp_session_inflater(S, &ahead);
	if (inflater)
		fprintf(stderr, "gzip: inflate=%s members=%llu ahead=%llu\n", inflater,
			(unsigned long long)L->gzip_members, (unsigned long long)ahead);
	if (hp_alloc_limit())
		fprintf(stderr, "memory: max_memory=%llu alloc_peak=%llu alloc_in_use=%llu\n",
			(unsigned long long)hp_alloc_limit(), (unsigned long long)hp_alloc_peak(),
			(unsigned long long)hp_alloc_in_use());
	struct hp_alloc_io io;
	hp_alloc_io(&io);
	fprintf(stderr, "spill: budget=%llu anon_peak=%llu file_peak=%llu file_blocks=%llu failures=%llu dir=%s\n",
		(unsigned long long)hp_alloc_budget(), (unsigned long long)hp_alloc_anon_peak(),
		(unsigned long long)hp_alloc_spilled_peak(), (unsigned long long)hp_alloc_spill_blocks(),
		(unsigned long long)hp_alloc_spill_failures(), hp_alloc_spill_dir()[0] ? hp_alloc_spill_dir() : "-");
	fprintf(stderr, "io: read_bytes=%llu write_bytes=%llu major_faults=%llu",
		(unsigned long long)io.read_bytes, (unsigned long long)io.write_bytes,
		(unsigned long long)io.major_faults);
	const struct hp_retained *R;
	int ret = hp_session_retained_done(S) && hp_session_retained(S, &R, &err) == HP_OK;
	if (ret)
		fprintf(stderr, " dom_read_bytes=%llu dom_write_bytes=%llu dom_major_faults=%llu",
			(unsigned long long)R->io_dom.read_bytes, (unsigned long long)R->io_dom.write_bytes,
			(unsigned long long)R->io_dom.major_faults);
	fputc('\n', stderr);
	if (ret) {
		double n = objs ? (double)objs : 1;
		fprintf(stderr, "phases: parse=%.3fs (%.0f ns/obj) refs=%.3fs (%.0f ns/obj, %llu refs, %llu of them class) "
			"dominators=%.3fs (%.0f ns/obj, peak %llu bytes) retained=%.3fs aggregate=%.3fs\n",
			L->t_parse, 1e9 * L->t_parse / n, R->t_refs, 1e9 * R->t_refs / n,
			(unsigned long long)hp_refs_total(&R->refs), (unsigned long long)R->refs.nclass_edges, R->t_dom, 1e9 * R->t_dom / n,
			(unsigned long long)R->dom_peak_bytes, R->t_retained, R->t_aggregate);
	}
	/* bytes: the model's phase, then retained sizes' when computed here,
	 * then the index's when it was written */
	fprintf(stderr, "phase_peaks: parse=%llu", (unsigned long long)L->mem_parse);
	if (ret && !R->mapped)
		fprintf(stderr, " refs=%llu dominators=%llu retained=%llu", (unsigned long long)R->mem_refs,
			(unsigned long long)R->mem_dom, (unsigned long long)R->mem_retained);
	if (L->index_written)
		fprintf(stderr, " index=%llu index_seconds=%.3f", (unsigned long long)L->mem_index, L->t_index);
	fputc('\n', stderr);
}
