/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SISSCAN_H
#define SISSCAN_H

#include "bpf/sis_decode.h"

/*
 * Count histograms (probes, scan depth, nr_idle_scan) are linear in the
 * kernel, one slot per value 0..254 and a last "255 or more" slot; user
 * space shows them as log2 unless --linear.
 */
#define SISSCAN_COUNT_SLOTS 256
/* select_time_ns: log2 slots up to 2^38 ns. */
#define SISSCAN_TIME_SLOTS 40

/*
 * Per-CPU counter slots, summed by user space; names in sisscan.c and
 * docs/metrics.md. A histogram takes consecutive slots. The SIS_* block
 * is measured at select_task_rq_fair() (fentry/kprobe tiers); the TP_*
 * block estimates the same quantities from tracepoints.
 */
enum sisscan_counter {
	SISSCAN_WAKEUPS,		/* sched_waking of a selected task */
	SISSCAN_SELECT_CALLS,		/* select_task_rq_fair() calls */
	SISSCAN_SELECT_WAKEUPS,		/* ... of them for a wakeup (WF_TTWU) */
	SISSCAN_SIS_SEARCH,		/* ... that ran select_idle_sibling() */
	SISSCAN_IDLE_PROBES,		/* available_idle_cpu() calls inside those */
	SISSCAN_OUTCOME,		/* + enum sis_outcome, up to SIS_OUT_NO_SIS */
	SISSCAN_SIS_DOMAIN_SEARCH = SISSCAN_OUTCOME + SIS_NR_OUTCOMES,
	SISSCAN_SIS_SCANNED,
	SISSCAN_SIS_DOMAIN_SCANNED,
	SISSCAN_SIS_FAILED,
	SISSCAN_SIS_RECENT_MISS,
	SISSCAN_SIS_UTIL_SKIPPED,
	SISSCAN_SIS_UTIL_LIMITED,
	SISSCAN_PLACEMENTS,		/* placements checked for missed idle */
	SISSCAN_PLACED_UNOCCUPIED,
	SISSCAN_MISSED_IDLE,
	/* Tracepoint tier: the same questions, estimated. */
	SISSCAN_TP_SIS_SEARCH,
	SISSCAN_TP_PREV,
	SISSCAN_TP_WAKER,
	SISSCAN_TP_RECENT,
	SISSCAN_TP_OTHER,
	SISSCAN_TP_DOMAIN_SEARCH,
	SISSCAN_TP_SCANNED,
	SISSCAN_TP_FAILED,
	SISSCAN_TP_PLACEMENTS,
	SISSCAN_TP_PLACED_UNOCCUPIED,
	SISSCAN_TP_MISSED_IDLE,
	SISSCAN_TP_LOST,		/* pending placements overwritten */
	SISSCAN_PROBES_HIST,
	SISSCAN_DEPTH_HIST = SISSCAN_PROBES_HIST + SISSCAN_COUNT_SLOTS,
	SISSCAN_NR_IDLE_SCAN_HIST = SISSCAN_DEPTH_HIST + SISSCAN_COUNT_SLOTS,
	SISSCAN_TP_DEPTH_HIST = SISSCAN_NR_IDLE_SCAN_HIST + SISSCAN_COUNT_SLOTS,
	SISSCAN_TIME_HIST = SISSCAN_TP_DEPTH_HIST + SISSCAN_COUNT_SLOTS,
	SISSCAN_NR_COUNTERS = SISSCAN_TIME_HIST + SISSCAN_TIME_SLOTS,
};

#endif
