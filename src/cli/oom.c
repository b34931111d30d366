/* oom.c — the out-of-memory block of info, leaks and report (cli/oom.h). */
#include "cli/oom.h"
#include "cli/msg.h"
#include "cli/format.h"
#include "cli/load.h"
#include "cli/output.h"
#include "cli/objtext.h"
#include "analysis/threads.h"
#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>

/* text frames shown under the thread; JSON has them all */
#define TEXT_FRAMES 12

static const char *const certain_text =
	"HotSpot, dumping at an OutOfMemoryError, writes a frame java.lang.OutOfMemoryError.<init>() "
	"on top of the stack of the thread that hit it, and of no other";
static const char *const inferred_text =
	"the frame below it is where the failed allocation was asked for; the dump does not say what was being "
	"allocated, nor how big";

int cli_oom_collect(hp_session *S, struct cli_oom *m)
{
	memset(m, 0, sizeof *m);
	m->obj = SIZE_MAX;
	int rc = cli_model(S, &m->h);
	if (rc)
		return rc;
	hp_oom_find(m->h, &m->o);
	if (!m->o.found)
		return EXIT_OK;
	const struct hp_thread_rec *t = &m->h->threads[m->o.rec];
	m->obj = t->object_id ? hp_heap_find(m->h, t->object_id) : SIZE_MAX;
	if (!hp_session_rereadable(S)) {
		/* the name START THREAD gives, if any; no retained sizes */
		cli_thread_text(m->h, NULL, m->o.serial, &m->name);
		return EXIT_OK;
	}
	hp_objread *rd = NULL;
	if ((rc = cli_retained(S, &m->h, &m->R)) || (rc = cli_objread(S, &rd)))
		return rc;
	cli_thread_text(m->h, rd, m->o.serial, &m->name);
	m->ntop = hp_oom_consumers(m->h, m->R, m->top, CLI_OOM_CONSUMERS);
	for (size_t i = 0; i < m->ntop; i++)
		m->top_frame[i] = hp_oom_held_frame(m->h, &m->o, m->top[i]);
	return EXIT_OK;
}

void cli_oom_release(struct cli_oom *m)
{
	hp_objread_text_release(&m->name);
}

static double share(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

void cli_oom_json(cJSON *j, const struct cli_oom *m)
{
	if (!m->o.found)
		return;
	const hp_heap *h = m->h;
	cJSON *o = cJSON_AddObjectToObject(j, "out_of_memory");
	cJSON *t = cJSON_AddObjectToObject(o, "thread");
	cli_json_u64(t, "serial", m->o.serial);
	if (m->name.utf8)
		cJSON_AddItemToObject(t, "name", cli_text_json(&m->name));
	if (m->obj != SIZE_MAX)
		cJSON_AddItemToObject(t, "object", cli_object_json(h, m->obj));
	if (m->R && m->obj != SIZE_MAX)
		cli_json_u64(t, "retained", m->R->retained[m->obj]);
	cli_json_u64(o, "marked_threads", m->o.marked);
	cJSON_AddStringToObject(o, "certain", certain_text);
	cJSON_AddStringToObject(o, "inferred", inferred_text);
	cJSON *fr = cJSON_AddArrayToObject(o, "frames");
	for (uint32_t d = 1; d < m->o.nframes; d++) {
		const struct hp_frame *f = hp_trace_frame(h, m->o.trace, d);
		cJSON *fe = cJSON_CreateObject();
		cli_json_u64(fe, "depth", d);
		cli_frame_json(fe, h, f);
		cJSON_AddItemToArray(fr, fe);
	}
	if (!m->R) {
		cJSON_AddStringToObject(o, "consumers_note", "read from a pipe: no retained sizes");
		return;
	}
	cli_json_u64(o, "reachable", m->R->reachable_bytes);
	cJSON *ca = cJSON_AddArrayToObject(o, "consumers");
	for (size_t i = 0; i < m->ntop; i++) {
		uint32_t v = m->top[i];
		cJSON *e = cli_object_json(h, v);
		cli_json_u64(e, "shallow", hp_retained_shallow(m->R, v));
		cli_json_u64(e, "retained", m->R->retained[v]);
		cJSON_AddNumberToObject(e, "percent", share(m->R->retained[v], m->R->reachable_bytes));
		if (m->top_frame[i] != HP_FRAME_NONE)
			cli_json_u64(e, "held_by_frame", m->top_frame[i]);
		if (v == m->obj)
			cJSON_AddBoolToObject(e, "oom_thread", 1);
		cJSON_AddItemToArray(ca, e);
	}
}

void cli_oom_text(FILE *f, const struct cli_oom *m)
{
	if (!m->o.found)
		return;
	const hp_heap *h = m->h;
	char a[64], b[64], lab[800], buf[2048];
	fprintf(f, "out of memory: thread ");
	if (m->name.utf8) {
		char *q = cli_quote_text(&m->name);
		fprintf(f, "%s ", q ? q : "\"?\"");
		hp_free(q);
	}
	fprintf(f, "(serial %u) hit the OutOfMemoryError this dump was written at", m->o.serial);
	if (m->R && m->obj != SIZE_MAX)
		fprintf(f, "; its Thread object retains %s", cli_fmt_bytes(m->R->retained[m->obj], a, sizeof a));
	fprintf(f, "\n  certain: %s%s\n", certain_text,
		m->o.marked > 1 ? " (but this dump has it on several: the first is shown)" : "");
	fprintf(f, "  inferred: %s:\n", inferred_text);
	uint32_t shown = m->o.nframes > 1 + TEXT_FRAMES ? 1 + TEXT_FRAMES : m->o.nframes;
	if (m->o.nframes < 2)
		fprintf(f, "    (no frame below it)\n");
	for (uint32_t d = 1; d < shown; d++) {
		const struct hp_frame *fr = hp_trace_frame(h, m->o.trace, d);
		if (fr)
			fprintf(f, "    %s\n", cli_frame_text(h, fr, buf, sizeof buf));
		else
			fprintf(f, "    at ? (frame %u: no STACK FRAME record)\n", d);
	}
	if (shown < m->o.nframes)
		fprintf(f, "    ... %u more frames (hprofan threads lists them)\n", m->o.nframes - shown);
	if (!m->R) {
		fprintf(f, "  biggest consumers: not known (read from a pipe: save the dump to a file)\n\n");
		return;
	}
	fprintf(f, "  biggest consumers at that moment (the top of the dominator tree, by retained size, of %s reachable):\n",
		cli_fmt_bytes(m->R->reachable_bytes, b, sizeof b));
	for (size_t i = 0; i < m->ntop; i++) {
		uint32_t v = m->top[i];
		fprintf(f, "    %10s %5.1f%%  %s", cli_fmt_bytes(m->R->retained[v], a, sizeof a),
			share(m->R->retained[v], m->R->reachable_bytes), cli_object_label(h, v, lab, sizeof lab));
		const struct hp_frame *fr = m->top_frame[i] != HP_FRAME_NONE ? hp_trace_frame(h, m->o.trace, m->top_frame[i]) : NULL;
		if (fr)
			fprintf(f, "  (held by its frame %u, %s)", m->top_frame[i], cli_frame_text(h, fr, buf, sizeof buf));
		if (v == m->obj)
			fprintf(f, "  (that thread: what only its stack holds)");
		fputc('\n', f);
	}
	fputc('\n', f);
}
