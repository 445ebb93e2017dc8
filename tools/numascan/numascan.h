/* SPDX-License-Identifier: GPL-2.0 */
#ifndef NUMASCAN_H
#define NUMASCAN_H

/* Per-CPU counter slots, summed by user space; names in numascan.c. */
enum numascan_counter {
	NUMASCAN_USER_PAGE_FAULTS,	/* page_fault_user of a selected task */
	NUMASCAN_VMA_SKIPS,		/* sched_skip_vma_numa (6.7+) */
	NUMASCAN_HINT_FAULTS,		/* task_numa_fault() calls */
	NUMASCAN_NR_COUNTERS,
};

#endif
