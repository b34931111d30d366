/*
 * threads.h — the threads of a dump: each one's Thread object, its stack
 * (STACK TRACE and STACK FRAME records) and the objects its frames hold
 * (the JAVA FRAME and JNI LOCAL roots naming its serial, with the frame
 * depth; NATIVE STACK and THREAD BLOCK roots belong to the thread without
 * a frame).
 *
 * A thread is a serial that a START THREAD record or a ROOT THREAD OBJECT
 * names (model/heap.h: hp_heap.threads).  Its daemon flag, priority and
 * state come from the Thread object's fields (daemon, priority,
 * threadStatus; JDK 19+ keeps them in Thread.holder, a
 * java.lang.Thread$FieldHolder) when the reader and those fields are
 * there; threadStatus is turned into a java.lang.Thread.State as
 * jdk.internal.misc.VM.toThreadState() does.
 *
 * What a thread retains is its Thread object's retained size, which under
 * HP_ROOTS_THREADS counts the objects only its stack holds (Eclipse MAT's
 * rule); under HP_ROOTS_ALL the locals hang off the super-root instead.
 * Memory: per thread 64 bytes, per stack root 12.
 */
#ifndef HP_THREADS_H
#define HP_THREADS_H

#include <stddef.h>
#include <stdint.h>
#include "model/heap.h"
#include "model/objread.h"
#include "analysis/retained.h"

#define HP_FRAME_NONE UINT32_MAX   /* a stack root without a frame */

struct hp_thread_local {
	uint32_t obj;             /* object number */
	uint32_t frame;           /* depth in the thread's trace (0: the top), HP_FRAME_NONE: no frame
	                             (or a depth past the trace's frames) */
	uint8_t kind;             /* HP_ROOT_JAVA_FRAME, JNI_LOCAL, NATIVE_STACK, THREAD_BLOCK */
};

struct hp_thread_info {
	uint32_t rec;             /* index in hp_heap.threads */
	uint32_t serial;
	size_t obj;               /* the Thread object's number, SIZE_MAX when the dump lacks it */
	uint32_t trace;           /* index in hp_heap.traces, HP_NONE when none */
	uint32_t nframes;         /* frames of that trace (0 when none) */
	int daemon;               /* 1, 0; -1 unknown */
	int priority;             /* -1 unknown */
	const char *state;        /* "RUNNABLE", "WAITING", ... (static); NULL unknown */
	int64_t status;           /* threadStatus as written; valid when state != NULL */
	uint64_t shallow, retained;   /* of the Thread object (0 without R or object) */
	size_t first_local, nlocals;  /* in hp_threads.locals: by frame, then object */
};

struct hp_threads {
	struct hp_thread_info *t; /* by retained, largest first, then by serial */
	size_t n;
	struct hp_thread_local *locals;
	size_t nlocals;
	uint64_t orphan_roots;    /* stack roots naming a serial no thread has */
	uint64_t missing_locals;  /* stack roots naming objects the dump lacks */
	size_t with_frames;       /* threads whose trace has frames */
	int fields_read;          /* 1: Thread objects' fields were read (rd was given) */
};

/* R (retained sizes) and rd (the object reader) may be NULL: then the
 * retained sizes are 0 and daemon, priority and state unknown. */
int hp_threads_collect(const hp_heap *h, const struct hp_retained *R, hp_objread *rd, struct hp_threads *out,
		       struct hp_error *err) HP_MUST_USE;
void hp_threads_release(struct hp_threads *t);

/*
 * Retained memory by thread: each reachable object counts for the thread
 * whose Thread object is its nearest such ancestor in the dominator tree
 * (under HP_ROOTS_THREADS a thread's stack locals hang off its Thread
 * object, so they count too); a stack local that hangs off the super-root
 * instead (HP_ROOTS_ALL, or a thread without a Thread object) counts, with
 * what it dominates, for its thread when every root naming it is a stack
 * root of that one thread and no other object refers to it (conservative:
 * one pass over the edges).
 * The rest is shared (reachable, no thread) or unreachable; the rows add up
 * to every object of the dump.  One preorder walk of the dominator tree,
 * without recursion; memory: 4 bytes per object while walking.
 */
struct hp_thread_mem {
	uint32_t rec;             /* index in hp_heap.threads */
	size_t obj;               /* its Thread object, SIZE_MAX when none */
	uint64_t objects, bytes;
};
struct hp_threads_mem {
	struct hp_thread_mem *t;  /* one per hp_heap.threads, by bytes, largest first, then serial */
	size_t n;
	uint64_t shared_objects, shared_bytes;
	uint64_t unreachable_objects, unreachable_bytes;
	uint64_t objects, bytes;  /* all of them */
};
int hp_threads_memory(const hp_heap *h, const struct hp_retained *R, struct hp_threads_mem *out,
		      struct hp_error *err) HP_MUST_USE;
void hp_threads_mem_release(struct hp_threads_mem *m);

/* frame `depth` of trace index `trace`, or NULL (the frame id has no STACK FRAME) */
const struct hp_frame *hp_trace_frame(const hp_heap *h, uint32_t trace, uint32_t depth);
/* java.lang.Thread.State's name for a threadStatus value */
const char *hp_thread_state_name(int64_t status);

#endif
