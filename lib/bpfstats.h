/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --stats: the tool's own cost, per attached BPF program, from the
 * kernel's run_cnt/run_time_ns (bpf_prog_info). Run-time accounting is
 * switched on with BPF_ENABLE_STATS for as long as the returned fd is
 * open, so nothing stays enabled after the tool exits.
 */
#ifndef SCHEDSCAN_BPFSTATS_H
#define SCHEDSCAN_BPFSTATS_H

#include <stddef.h>

struct hook;

struct prog_stat {
	char name[64];
	unsigned long long run_cnt, run_time_ns;
	/* Events the program missed because it was already running on that CPU. */
	unsigned long long recursion_misses;
};

/* Returns an fd to close at exit, or -1 with the reason in err. */
int bpfstats_enable(char *err, size_t errlen);
/* Fills up to max entries for the loaded programs of the hooks. */
int bpfstats_collect(const struct hook *hooks, int nr_hooks,
		     struct prog_stat *out, int max);
double prog_stat_ns_per_event(const struct prog_stat *stat);

#endif
