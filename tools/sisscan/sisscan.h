/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SISSCAN_H
#define SISSCAN_H

/* idle_probes_per_wakeup: linear, 0..62 probes and a last "63 or more" slot. */
#define SISSCAN_PROBE_SLOTS 64
/* select_time_ns: log2 slots up to 2^38 ns. */
#define SISSCAN_TIME_SLOTS 40

/*
 * Per-CPU counter slots, summed by user space; names in sisscan.c. A
 * histogram takes consecutive slots.
 */
enum sisscan_counter {
	SISSCAN_WAKEUPS,		/* sched_waking of a selected task */
	SISSCAN_SELECT_CALLS,		/* select_task_rq_fair() calls */
	SISSCAN_SIS_SEARCH,		/* ... of them for a wakeup (WF_TTWU) */
	SISSCAN_IDLE_PROBES,		/* available_idle_cpu() calls inside those */
	SISSCAN_PROBES_HIST,
	SISSCAN_TIME_HIST = SISSCAN_PROBES_HIST + SISSCAN_PROBE_SLOTS,
	SISSCAN_NR_COUNTERS = SISSCAN_TIME_HIST + SISSCAN_TIME_SLOTS,
};

#endif
