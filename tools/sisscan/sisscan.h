/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SISSCAN_H
#define SISSCAN_H

#include "sis_decode.h"
#include "filter_v4.h"
#include "bpf/table.h"

/*
 * Count histograms (probes, scan depth, nr_idle_scan) are linear in the
 * kernel, one slot per value 0..254 and a last "255 or more" slot; user
 * space shows them as log2 unless --linear.
 */
#define SISSCAN_COUNT_SLOTS 256
/* Nanosecond histograms (select_time_ns, stale-bit ages): log2 slots up to 2^38 ns. */
#define SISSCAN_TIME_SLOTS 40
/* Counter slots a histogram takes: its buckets, then the sum of its values. */
#define SISSCAN_COUNT_HIST (SISSCAN_COUNT_SLOTS + 1)
#define SISSCAN_TIME_HIST (SISSCAN_TIME_SLOTS + 1)

/* Filters the audit can model (--filter); docs/metrics.md "Filter audit". */
enum sis_filter {
	SIS_FILTER_IDEAL,	/* instantaneous truth */
	SIS_FILTER_UNOCCUPIED,	/* v4: unoccupied CPUs, updated at SMT balancing */
	SIS_FILTER_UNOCCUPIED_TICK,	/* v1-v3: unoccupied CPUs, at the tick */
	SIS_FILTER_OVERLOADED,	/* SIS_FILTER draft: overloaded CPUs, at the tick */
	SIS_FILTER_DELAYED,	/* the truth published --filter-delay late */
	SIS_FILTER_REAL,	/* a patched kernel's own mask */
	SIS_NR_FILTERS,
};

/* How the real mask in struct sched_domain_shared reads. */
enum sis_real_mask {
	SIS_REAL_NONE,			/* none applied: every CPU passes */
	SIS_REAL_IDLE_CPUS,		/* v4 idle_cpus: set = scanned */
	SIS_REAL_OVERLOADED_CPUS,	/* draft overloaded_cpus[], seed 001 overloaded[]: set = skipped */
};

/* Counter slots of one audited filter, from SISSCAN_FILTER_BASE + f * stride. */
enum sis_filter_counter {
	SIS_FC_PASSED,		/* CPUs the filter let through */
	SIS_FC_FP,		/* ... that were not unoccupied */
	SIS_FC_FN,		/* unoccupied CPUs it filtered out */
	SIS_FC_HID_ALL,		/* audits where it hid every unoccupied CPU */
	SIS_FC_DISAGREE_REAL,	/* verdicts unlike the real mask's (with real) */
	SIS_FC_DEPTH_HIST,
	SIS_FC_AGE_HIST = SIS_FC_DEPTH_HIST + SISSCAN_COUNT_HIST,
	SIS_FC_STRIDE = SIS_FC_AGE_HIST + SISSCAN_TIME_HIST,
};

/*
 * Breakdown counters, per LLC (of target for the SIS counts, of chosen for
 * the placements), per CPU (--per-cpu) or per process (-P).
 */
enum sis_group_counter {
	SG_SIS_SEARCH,
	SG_DOMAIN_SEARCH,
	SG_DOMAIN_SCANNED,
	SG_FAILED,
	SG_PLACEMENTS,
	SG_PLACED_UNOCCUPIED,
	SG_MISSED_IDLE,
	SG_NR,
};

#define SISSCAN_MAX_PROCESSES 10240
/* The process table's slot in table_drops (lib/bpf/table.bpf.h). */
#define SISSCAN_PROCESS_DROPS 0

/* A row of the per-LLC or per-CPU breakdown (a per-CPU array by group). */
struct sisscan_group {
	__u64 counts[SG_NR * SCHEDSCAN_BANKS];	/* SCHEDSCAN_SLOT(SG_*, bank) */
};

/* A -P row, shared by every CPU. */
struct sisscan_process {
	char comm[16];
	__u64 counts[SG_NR * SCHEDSCAN_BANKS];	/* SCHEDSCAN_SLOT(SG_*, bank) */
};

enum sis_breakdown { SIS_BY_LLC, SIS_BY_CPU };

/* One audited placement, in the opt-in event stream (--events). */
#define SISSCAN_EVENT_CPUS 64
struct sisscan_event {
	__u64 ts_ns;		/* bpf_ktime_get_ns() */
	__u32 pid, tgid;	/* the wakee */
	__s32 waker, prev, target, chosen;
	__u32 llc;		/* target's LLC: bit i = its i-th CPU, ascending */
	__u32 nr_cpus;		/* CPUs of target's LLC (bits beyond 64 dropped) */
	__u32 domain_search;	/* the wakeup went to the domain scan */
	__u32 domain_depth;	/* its (estimated, tracepoint tier) depth */
	__u64 allowed;		/* bit i: llc cpu i is in p->cpus_ptr */
	__u64 unoccupied;	/* bit i: llc cpu i was unoccupied */
	__u64 passed[SIS_NR_FILTERS];	/* bit i: filter f let llc cpu i through */
};

/*
 * Per-CPU counter slots, summed by user space; names in sisscan.c and
 * docs/metrics.md. A histogram takes consecutive slots. The SIS_* block
 * is measured at select_task_rq_fair() (fentry/kprobe tiers); the TP_*
 * block estimates the same quantities from tracepoints.
 */
enum sisscan_counter {
	SISSCAN_WAKEUPS,		/* sched_waking of a selected task */
	SISSCAN_WAKEUPS_IN_PLACE,	/* ... still queued: ttwu_runnable() */
	SISSCAN_SELECT_CALLS,		/* select_task_rq_fair() calls */
	SISSCAN_SIS_SEARCH,		/* ... for a wakeup, that ran SIS */
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
	SISSCAN_DEPTH_HIST = SISSCAN_PROBES_HIST + SISSCAN_COUNT_HIST,
	SISSCAN_NR_IDLE_SCAN_HIST = SISSCAN_DEPTH_HIST + SISSCAN_COUNT_HIST,
	SISSCAN_TP_DEPTH_HIST = SISSCAN_NR_IDLE_SCAN_HIST + SISSCAN_COUNT_HIST,
	SISSCAN_SELECT_TIME_HIST = SISSCAN_TP_DEPTH_HIST + SISSCAN_COUNT_HIST,
	/* Filter audit (--filter): common, then SIS_FC_STRIDE per filter. */
	SISSCAN_AUDITS = SISSCAN_SELECT_TIME_HIST + SISSCAN_TIME_HIST,
	SISSCAN_AUDIT_CPUS,		/* LLC & allowed CPUs checked */
	SISSCAN_AUDIT_UNOCCUPIED,	/* ... of them unoccupied */
	SISSCAN_AUDIT_TRUNCATED,	/* LLCs over 64 CPUs: no filter depth */
	SISSCAN_V4_BALANCES,		/* SMT-level load_balance() calls seen */
	SISSCAN_V4_UPDATES,		/* ... that updated the v4 model */
	SISSCAN_EVENTS,			/* records written to the event stream */
	SISSCAN_EVENTS_DROPPED,		/* ... and lost (ring buffer full) */
	SISSCAN_FILTER_BASE,
	SISSCAN_NR_COUNTERS = SISSCAN_FILTER_BASE + SIS_NR_FILTERS * SIS_FC_STRIDE,
};

/* A v4 model core (v4_cores), its CPUs filled by user space at start-up. */
struct v4_core {
	__u64 updating;			/* the patch's cmpxchg() guard */
	__u8 state;			/* enum v4_core_state */
	__u8 seeded;
	__u8 nr;			/* CPUs of the core */
	__s16 cpus[V4_MAX_SIBLINGS];	/* ascending */
};

/*
 * What one SIS search tells the audit (audit_placement()): filled at
 * select_task_rq_fair()'s exit, or estimated by the tracepoint tier.
 */
struct audit_facts {
	__u32 depth;		/* domain-scan probes */
	__u32 domain_search;	/* reached select_idle_cpu() */
	__u32 has_idle_core;	/* sd_llc_shared(target)->has_idle_cores as SIS began */
	__s32 nr_idle_scan;	/* SIS_UTIL's limit as SIS began; -1: no limit */
	__u32 bank;		/* the bank this wakeup counts in, 0: none (counting()) */
	__u32 real_llc_busy;	/* v4 port: the LLC's state sd_is_busy as SIS began */
};	/* no padding: the 6.1 verifier wants every byte a global function reads written */

#endif
