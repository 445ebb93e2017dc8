/* SPDX-License-Identifier: GPL-2.0 */
#ifndef NUMASCAN_H
#define NUMASCAN_H

#include "bpf/table.h"

enum numascan_counter {
	NUMASCAN_USER_PAGE_FAULTS,	/* page_fault_user of a selected task */
	NUMASCAN_VMA_SKIPS,		/* sched_skip_vma_numa (6.7+) */
	NUMASCAN_HINT_FAULTS,		/* task_numa_fault() calls */
	NUMASCAN_NR_COUNTERS,
};

/* The per-process table: the same events, by the process they are about. */
enum numascan_process_counter {
	NP_USER_PAGE_FAULTS,
	NP_VMA_SKIPS,
	NP_NR,
};

#define NUMASCAN_MAX_PROCESSES 10240
/* The process table's slot in table_drops (lib/bpf/table.bpf.h). */
#define NUMASCAN_PROCESS_DROPS 0

/* Shared by every CPU (atomic adds): one row per process, not per CPU. */
struct numascan_process {
	char comm[16];
	__u64 counts[NP_NR * SCHEDSCAN_BANKS];	/* SCHEDSCAN_SLOT(NP_*, bank) */
};

#endif
