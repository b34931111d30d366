/*
 * fuzz_pipeline — the whole analysis on small inputs: parse into the model
 * (hp_heap with build_objects), hp_heap_finish (also after a parse that
 * stopped early, as --salvage does), then hp_retained_compute, which reads
 * the file twice more.  The input's length picks the size model, weak
 * policy and roots policy, so the corpus covers them all.  JSON output is
 * CLI-only and not reached.
 */
#include "fuzz.h"
#include "model/heap.h"
#include "analysis/retained.h"

#define MAX_INPUT (64u << 10)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > MAX_INPUT)
		return 0;
	char path[64];
	int fd = fuzz_memfile(data, size, path, sizeof path);
	if (fd < 0)
		return 0;
	struct hp_error err;
	hp_error_clear(&err);
	hp_reader *r = NULL;
	if (hp_reader_open(&r, path, &err) != HP_OK) {
		close(fd);
		return 0;
	}
	struct hp_heap_opts ho;
	hp_heap_opts_init(&ho);
	ho.build_objects = 1;
	ho.size_kind = (int)(size % 6);            /* auto, mat, ahat, raw, visualvm, netbeans */
	hp_heap *h = hp_heap_new(&ho);
	if (h) {
		struct hp_sink sink;
		hp_heap_sink(h, &sink);
		struct hp_parse_opts po;
		hp_parse_opts_init(&po);
		struct hp_stats st;
		memset(&st, 0, sizeof st);
		int rc = hp_parse(r, &sink, &po, &st, &err);
		hp_stats_release(&st);
		if (rc == HP_OK || rc == HP_ETRUNC || rc == HP_ECORRUPT) {
			hp_error_clear(&err);
			if (hp_heap_finish(h, &err) == HP_OK) {
				struct hp_retained_opts ro;
				memset(&ro, 0, sizeof ro);
				ro.weak = (int)(size / 6 % 3);
				ro.roots = (int)(size / 18 % 2);
				ro.visualvm = (int)(size / 36 % 2);
				struct hp_retained R;
				hp_error_clear(&err);
				int rrc = hp_retained_compute(h, path, &ro, &R, &err);
				(void)rrc;
				hp_retained_release(&R);
			}
		}
		hp_heap_free(h);
	}
	hp_reader_free(r);
	close(fd);
	return 0;
}
