/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SISSCAN_H
#define SISSCAN_H

/* Per-CPU counter slots, summed by user space; names in sisscan.c. */
enum sisscan_counter {
	SISSCAN_WAKEUPS,		/* sched_waking of a selected task */
	SISSCAN_SELECT_CALLS,		/* select_task_rq_fair() calls */
	SISSCAN_NR_COUNTERS,
};

#endif
