// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bpfstats.h"
#include "hooks.h"
#include "util.h"

int bpfstats_enable(char *err, size_t errlen)
{
	char *sysctl = NULL;
	int fd = bpf_enable_stats(BPF_STATS_RUN_TIME), saved = errno;

	if (fd >= 0)
		return fd;
	/* Someone may already have set kernel.bpf_stats_enabled=1. */
	if (!read_text_file("/proc/sys/kernel/bpf_stats_enabled", &sysctl, NULL, 0) &&
	    atoi(sysctl) == 1) {
		free(sysctl);
		return -2;
	}
	free(sysctl);
	return errmsg(err, errlen,
		      "cannot enable BPF run-time statistics (%s); set kernel.bpf_stats_enabled=1",
		      strerror(saved));
}

int bpfstats_collect(const struct hook *hooks, int nr_hooks,
		     struct prog_stat *out, int max)
{
	int n = 0;

	for (int h = 0; h < nr_hooks; h++) {
		for (int i = 0; i < HOOK_MAX_PROGS && n < max; i++) {
			struct bpf_prog_info info = {};
			__u32 len = sizeof(info);
			const struct bpf_program *prog = hooks[h].progs[i];

			if (!prog || !hooks[h].links[i])
				continue;
			if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info,
						   &len))
				continue;
			snprintf(out[n].name, sizeof(out[n].name), "%s",
				 bpf_program__name(prog));
			out[n].run_cnt = info.run_cnt;
			out[n].run_time_ns = info.run_time_ns;
			out[n].recursion_misses = info.recursion_misses;
			n++;
		}
	}
	return n;
}

double prog_stat_ns_per_event(const struct prog_stat *stat)
{
	return stat->run_cnt ? (double)stat->run_time_ns / stat->run_cnt : 0;
}
