/*
 * oom.h — a dump HotSpot wrote at an OutOfMemoryError
 * (-XX:+HeapDumpOnOutOfMemoryError): the thread whose allocation failed,
 * and the objects retaining most of the heap at that moment.
 *
 * The marker: dumping from an OutOfMemoryError, HotSpot's heap dumper
 * (services/heapDumper.cpp) writes one extra STACK FRAME on top of the
 * stack trace of the thread that hit the error, "a fake frame that makes
 * it look like the thread ... is in the OutOfMemoryError zero-parameter
 * constructor": java.lang.OutOfMemoryError.<init> with signature ()V at
 * bci 0.  No other dump it writes has that frame on top of a stack, and it
 * writes it for one thread, so a trace that opens with it names the thread
 * (certain for a HotSpot dump).  Inferred, not written in the dump: that
 * the next frame is where the failed allocation was made (true for a
 * `new` in Java code; for an array copy or a native allocation it is the
 * Java frame that called it), and that a dump taken by jcmd of a thread
 * really running `new OutOfMemoryError()` is not one (it would show the
 * same frame, with the caller's frames below it).
 *
 * The consumers: the children of the dominator tree's super-root that
 * retain most, largest first (what would be freed if each were dropped).
 * No memory beyond the caller's array of k entries; O(objects at the top
 * level x k).
 */
#ifndef HP_OOM_H
#define HP_OOM_H

#include <stddef.h>
#include <stdint.h>
#include "model/heap.h"
#include "analysis/retained.h"

struct hp_oom {
	int found;                /* 1: a thread's trace opens with the marker frame */
	uint32_t rec;             /* its index in hp_heap.threads */
	uint32_t serial;          /* its thread serial */
	uint32_t trace;           /* index in hp_heap.traces */
	uint32_t nframes;         /* frames of that trace, the marker included */
	size_t marked;            /* threads whose trace opens with the marker (HotSpot: 1) */
};

/* Fills *out from the model alone (frames, traces, threads); found 0 when
 * no thread's stack opens with the marker. */
void hp_oom_find(const hp_heap *h, struct hp_oom *out);

/* 1 when frame f is the marker: java.lang.OutOfMemoryError.<init>()V */
int hp_oom_is_marker(const hp_heap *h, const struct hp_frame *f);

/* The k objects of the dominator tree's top level (children of the
 * super-root) that retain most, largest first, then by object number,
 * into out[]; returns how many (fewer when the top level has fewer). */
size_t hp_oom_consumers(const hp_heap *h, const struct hp_retained *R, uint32_t *out, size_t k);

/* The depth of the topmost frame of the thread of o (found) whose JAVA
 * FRAME or JNI LOCAL root names object v, HP_FRAME_NONE when none does:
 * one pass over the roots. */
uint32_t hp_oom_held_frame(const hp_heap *h, const struct hp_oom *o, uint32_t v);

#endif
