/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPU topology (SMT cores, last-level caches, NUMA nodes) read from sysfs.
 *
 * The sysfs root is a parameter so tests can load the machine trees made by
 * tests/fixtures/mksysfs.sh instead of the host's /sys.
 */
#ifndef SCHEDSCAN_TOPOLOGY_H
#define SCHEDSCAN_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>

#include "cpumask.h"

/*
 * Every online CPU has a valid core, LLC and node index; offline CPUs (and
 * possible-but-absent hotplug slots) have -1 in all three arrays, and the
 * core, LLC and node masks hold online CPUs only. The per-CPU arrays have
 * nr_cpu_ids entries.
 */
struct topology {
	int nr_cpu_ids;            /* highest possible CPU + 1 */
	struct cpumask possible, online;
	int *core_of_cpu;          /* dense core index per CPU, -1 if offline/unknown */
	int *llc_of_cpu;           /* dense LLC index per CPU */
	int *node_of_cpu;          /* NUMA node id per CPU (0 if no NUMA info) */
	int nr_cores, nr_llcs, nr_nodes;
	struct cpumask *core_cpus; /* [nr_cores]  SMT siblings of each core */
	struct cpumask *llc_cpus;  /* [nr_llcs]   CPUs sharing each LLC */
	struct cpumask *node_cpus; /* [nr_nodes]  index = node id, may have holes -> empty masks */
	int llc_level;             /* cache level used as LLC (highest level found, usually 3) */
	int smt_width;             /* max siblings per core */
	bool asym_capacity;        /* online CPUs' cpu_capacity differ (arm64) */
};

/*
 * Load the topology below @sysfs_root ("/sys" layout). A NULL root means
 * $SCHEDSCAN_SYSFS if set and non-empty, else "/sys".
 *
 * Dense core and LLC indexes are numbered in order of each group's lowest
 * CPU, so they are stable for a given machine. When no CPU exposes cache
 * information (common in VMs), each package counts as one LLC and
 * llc_level is 0. Without a devices/system/node directory every online
 * CPU is on node 0.
 *
 * Returns 0, or -1 with @t zeroed and one sentence in @err (if non-NULL).
 */
int topology_load(struct topology *t, const char *sysfs_root, char *err,
		  size_t errlen);

/* Free what topology_load() allocated; safe on a zeroed or freed @t. */
void topology_free(struct topology *t);

#endif
