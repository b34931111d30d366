/* oom.c — the thread that hit an OutOfMemoryError, the biggest consumers (oom.h). */
#include "analysis/oom.h"
#include "analysis/threads.h"

#include <string.h>

/* the string sid is exactly s */
static int str_is(const hp_heap *h, uint64_t sid, const char *s)
{
	uint32_t len;
	const char *t = sid ? hp_heap_string(h, sid, &len) : NULL;
	size_t n = strlen(s);
	return t && len == n && !memcmp(t, s, n);
}

int hp_oom_is_marker(const hp_heap *h, const struct hp_frame *f)
{
	if (!f)
		return 0;
	uint32_t ci = hp_idmap_get(&h->serial_map, f->class_serial);
	return ci != HP_IDMAP_NONE && !strcmp(hp_class_name(h, ci), "java.lang.OutOfMemoryError") &&
	       str_is(h, f->method_sid, "<init>") && str_is(h, f->signature_sid, "()V");
}

void hp_oom_find(const hp_heap *h, struct hp_oom *out)
{
	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < h->nthreads; i++) {
		uint32_t ti = hp_idmap_get(&h->trace_map, h->threads[i].trace_serial);
		if (ti == HP_IDMAP_NONE || ti >= h->ntraces || !hp_oom_is_marker(h, hp_trace_frame(h, ti, 0)))
			continue;
		if (!out->marked++) {
			out->found = 1;
			out->rec = (uint32_t)i;
			out->serial = h->threads[i].serial;
			out->trace = ti;
			out->nframes = h->traces[ti].n;
		}
	}
}

size_t hp_oom_consumers(const hp_heap *h, const struct hp_retained *R, uint32_t *out, size_t k)
{
	size_t n = h->nobj, got = 0;
	if (!k || !R->child_off)
		return 0;
	for (uint32_t c = R->child_off[n]; c < R->child_off[n + 1]; c++) {
		uint32_t v = R->children[c];
		uint64_t rv = R->retained[v];
		/* insertion into the k largest so far */
		size_t at = got;
		while (at > 0 && (R->retained[out[at - 1]] < rv || (R->retained[out[at - 1]] == rv && out[at - 1] > v)))
			at--;
		if (at >= k)
			continue;
		size_t last = got < k ? got : k - 1;
		memmove(out + at + 1, out + at, (last - at) * sizeof *out);
		out[at] = v;
		if (got < k)
			got++;
	}
	return got;
}

uint32_t hp_oom_held_frame(const hp_heap *h, const struct hp_oom *o, uint32_t v)
{
	uint32_t best = HP_FRAME_NONE;
	if (!o->found || v >= h->nobj)
		return best;
	uint64_t id = hp_heap_id(h, v);
	for (size_t r = 0; r < h->nroots; r++) {
		const struct hp_root_rec *rr = &h->roots[r];
		if ((rr->kind == HP_ROOT_JAVA_FRAME || rr->kind == HP_ROOT_JNI_LOCAL) && rr->has_thread &&
		    rr->thread_serial == o->serial && rr->object == id && rr->frame < o->nframes && rr->frame < best)
			best = rr->frame;
	}
	return best;
}
