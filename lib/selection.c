// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include "selection.h"

void selection_from_opts(volatile struct schedscan_filter *filter,
		      const struct common_opts *opts)
{
	struct schedscan_filter f = {};

	f.tgid = opts->pid;
	if (opts->comm[0]) {
		f.use_comm = 1;
		memcpy(f.comm, opts->comm, sizeof(f.comm));
	}
	if (opts->cgroup_path) {
		f.use_cgroup = 1;
		f.cgroup_id = opts->cgroup_id;
	}
	if (opts->have_cpus) {
		f.use_cpus = 1;
		for (int cpu = cpumask_next(&opts->cpus, -1);
		     cpu >= 0 && cpu < SCHEDSCAN_MAX_CPUS;
		     cpu = cpumask_next(&opts->cpus, cpu))
			f.cpus[cpu / 64] |= 1ULL << (cpu % 64);
	}
	memcpy((void *)filter, &f, sizeof(f));
}
