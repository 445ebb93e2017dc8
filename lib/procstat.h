/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /proc/stat's per-CPU time accounting: the kernel's own record of how
 * long each CPU spent idle, in interrupts and stolen, against which the
 * tests judge the tools' idle and overload times.
 */
#ifndef SCHEDSCAN_PROCSTAT_H
#define SCHEDSCAN_PROCSTAT_H

#include <stdint.h>

/* One CPU's cumulative times, in ns (USER_HZ ticks converted). */
struct procstat_cpu {
	uint64_t user, nice, system, idle, iowait, irq, softirq, steal;
};

struct procstat {
	int nr_cpus;			/* highest "cpuN" + 1 */
	struct procstat_cpu *cpu;	/* [nr_cpus]; a CPU without a line is all 0 */
	unsigned char *present;		/* [nr_cpus]: the CPU had a line */
};

/*
 * Parses /proc/stat text; ticks_per_s is USER_HZ (sysconf(_SC_CLK_TCK)).
 * 0, or -1 with a sentence in err (no cpuN line, a malformed one).
 */
int procstat_parse(const char *text, long ticks_per_s, struct procstat *out, char *err,
		   size_t errlen);
/* procstat_parse() of path (NULL: /proc/stat). */
int procstat_read(const char *path, struct procstat *out, char *err, size_t errlen);
void procstat_free(struct procstat *s);

/* Idle as the kernel counts it: idle + iowait (the idle task ran), in ns. */
uint64_t procstat_idle_ns(const struct procstat_cpu *c);
/*
 * Idle plus the time taken from the idle task: interrupts taken in it
 * count as irq/softirq time, and a halted vCPU the host ran elsewhere as
 * steal. An upper bound on the time the CPU had nothing of its own to run.
 */
uint64_t procstat_idle_upper_ns(const struct procstat_cpu *c);

#endif
