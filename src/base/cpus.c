/* cpus.c — hp_cpus_usable() (cpus.h). */
#include "base/cpus.h"

#include <sched.h>
#include <unistd.h>

unsigned hp_cpus_usable(void)
{
#ifdef CPU_COUNT
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0) {
		int n = CPU_COUNT(&set);
		return n > 0 ? (unsigned)n : 1;
	}
#endif
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}
