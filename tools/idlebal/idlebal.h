/* SPDX-License-Identifier: GPL-2.0 */
#ifndef IDLEBAL_H
#define IDLEBAL_H

#include "bpf/table.h"

/* Nanosecond histograms: log2 slots up to 2^38 ns, then their sum. */
#define IDLEBAL_TIME_SLOTS 40

/*
 * Per-CPU counter slots, summed by user space; names in idlebal.c and
 * docs/metrics.md.
 */
enum idlebal_counter {
	IDLEBAL_MIGRATIONS,		/* sched_migrate_task of a selected task */
	IDLEBAL_LOAD_BALANCE_CALLS,	/* sched_balance_rq()/load_balance() */
	IDLEBAL_IDLE_EPISODE_HIST,	/* lengths of the idle episodes that ended */
	IDLEBAL_NR_COUNTERS = IDLEBAL_IDLE_EPISODE_HIST + IDLEBAL_TIME_SLOTS + 1,
};

/* One CPU's states over time, keyed by CPU; written only by that CPU. */
struct idlebal_cpu {
	struct schedscan_duration idle;	/* running its idle task */
};

#endif
