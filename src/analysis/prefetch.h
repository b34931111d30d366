/*
 * prefetch.h — a hint that memory will be read (PREFETCH) or written
 * (PREFETCH_W) soon; nothing where the compiler has no such builtin.
 * The analysis passes land at random in arrays of one entry per object
 * and use it to overlap those cache misses.
 */
#ifndef HP_PREFETCH_H
#define HP_PREFETCH_H

#if defined(__GNUC__)
#define PREFETCH(p) __builtin_prefetch(p)
#define PREFETCH_W(p) __builtin_prefetch((p), 1)
#else
#define PREFETCH(p) ((void)0)
#define PREFETCH_W(p) ((void)0)
#endif

#endif
