/*
 * cpus.h — how many CPUs this process may run on (its affinity mask:
 * `taskset -c 0` gives 1), for a pass deciding whether a second thread
 * can help.
 */
#ifndef HP_BASE_CPUS_H
#define HP_BASE_CPUS_H

unsigned hp_cpus_usable(void);

#endif
