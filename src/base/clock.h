/*
 * clock.h — seconds on the monotonic clock, for the phases' timings and
 * the progress line (differences only: the origin is arbitrary).
 */
#ifndef HP_BASE_CLOCK_H
#define HP_BASE_CLOCK_H

#include <time.h>

static inline double hp_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

#endif
