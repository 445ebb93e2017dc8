/* SPDX-License-Identifier: GPL-2.0 */
#ifndef NUMASCAN_H
#define NUMASCAN_H

#include "bpf/table.h"

#define NUMASCAN_TIME_SLOTS 40

/*
 * sched_skip_vma_numa's reasons (enum numa_vmaskip_reason, 6.7+), in our
 * own fixed order: the BPF side maps the kernel's values with CO-RE, so
 * a reordered or extended enum lands in the right (or the "other") slot.
 */
enum numascan_skip_reason {
	NUMASCAN_SKIP_UNSUITABLE,
	NUMASCAN_SKIP_SHARED_RO,
	NUMASCAN_SKIP_INACCESSIBLE,
	NUMASCAN_SKIP_SCAN_DELAY,
	NUMASCAN_SKIP_PID_INACTIVE,
	NUMASCAN_SKIP_IGNORE_PID,
	NUMASCAN_SKIP_SEQ_COMPLETED,
	NUMASCAN_SKIP_OTHER,
	NUMASCAN_NR_SKIP_REASONS,
};

enum numascan_counter {
	NUMASCAN_USER_PAGE_FAULTS,	/* page_fault_user of a selected task */
	/* numa_migrate_prep/check(), where /proc/vmstat counts hint faults */
	NUMASCAN_HINT_FAULTS,
	NUMASCAN_HINT_FAULTS_LOCAL,
	NUMASCAN_HINT_FAULTS_REMOTE,
	/* task_numa_fault() calls, by what its flags and last_cpupid say */
	NUMASCAN_TASK_FAULTS,
	NUMASCAN_TASK_FAULTS_LOCAL,
	NUMASCAN_TASK_FAULTS_REMOTE,
	NUMASCAN_HINT_FAULTS_PRIVATE,
	NUMASCAN_HINT_FAULTS_SHARED,
	NUMASCAN_HINT_FAULT_PAGES,
	NUMASCAN_HINT_FAULTS_MIGRATED,
	NUMASCAN_HINT_FAULTS_MIGRATE_FAILED,
	/* task_numa_work(): every run, and the runs that took the scan */
	NUMASCAN_SCAN_WORK_CALLS,
	NUMASCAN_SCAN_PASSES,
	/* change_prot_numa(): calls (one VMA chunk each) and PTEs updated */
	NUMASCAN_SCAN_CHUNKS,
	NUMASCAN_PTE_UPDATES,
	/* ... of VMAs the scanning thread had not hint-faulted on (yet) */
	NUMASCAN_PTE_UPDATES_UNFAULTED,
	/* sched_skip_vma_numa: all, then one slot per numascan_skip_reason */
	NUMASCAN_VMA_SKIPS,
	NUMASCAN_VMA_SKIPS_BY_REASON,
	/* mm_migrate_pages with reason MR_NUMA_MISPLACED */
	NUMASCAN_PAGES_MIGRATED = NUMASCAN_VMA_SKIPS_BY_REASON + NUMASCAN_NR_SKIP_REASONS,
	NUMASCAN_PAGES_MIGRATE_FAILED,
	/* migrate_misplaced_folio() (migrate_misplaced_page() before 6.7) */
	NUMASCAN_MIGRATE_CALLS,
	/* sched_move_numa, sched_swap_numa, sched_stick_numa */
	NUMASCAN_TASK_MOVES,
	NUMASCAN_TASK_SWAPS,
	NUMASCAN_TASK_STICKS,
	/* task_numa_fault()'s pages with TNF_FAULT_LOCAL */
	NUMASCAN_HINT_FAULT_PAGES_LOCAL,
	/*
	 * Tracepoint tier: what the task's own numa_faults_locality[] grew
	 * by between two of its switches (sched_switch): an estimate of its
	 * hint faults' pages, as the kernel resets it once a scan sequence.
	 */
	NUMASCAN_SWITCH_FAULT_PAGES,
	NUMASCAN_SWITCH_FAULT_PAGES_LOCAL,
	/*
	 * The scan decisions' audit: a thread's scan (or skip) of a VMA,
	 * resolved at its next decision on that VMA by whether the thread
	 * took a hint fault there in between.
	 */
	NUMASCAN_SCANS_AUDITED,
	NUMASCAN_SCANS_UNFAULTED_AFTER,
	NUMASCAN_SKIPS_AUDITED,
	NUMASCAN_SKIPS_FAULTED_AFTER,
	NUMASCAN_SKIPS_FAULTED_AFTER_BY_REASON,
	NUMASCAN_SCAN_PASS_HIST = NUMASCAN_SKIPS_FAULTED_AFTER_BY_REASON + NUMASCAN_NR_SKIP_REASONS,
	NUMASCAN_MIGRATE_HIST = NUMASCAN_SCAN_PASS_HIST + NUMASCAN_TIME_SLOTS + 1,
	/* skip to the skipped thread's hint fault on the VMA, ns */
	NUMASCAN_SKIP_FAULT_DELAY_HIST = NUMASCAN_MIGRATE_HIST + NUMASCAN_TIME_SLOTS + 1,
	/*
	 * Written by user space only (never by a program): /proc/vmstat
	 * deltas since the start and the cost formula (numascan.c).
	 */
	NUMASCAN_VMSTAT_HINT_FAULTS = NUMASCAN_SKIP_FAULT_DELAY_HIST + NUMASCAN_TIME_SLOTS + 1,
	NUMASCAN_VMSTAT_HINT_FAULTS_LOCAL,
	NUMASCAN_VMSTAT_PTE_UPDATES,
	NUMASCAN_VMSTAT_HUGE_PTE_UPDATES,
	NUMASCAN_VMSTAT_PAGES_MIGRATED,
	NUMASCAN_AUTONUMA_COST,
	NUMASCAN_VMSTAT_AUTONUMA_COST,
	NUMASCAN_NR_COUNTERS,
};

/* Tables' slots in table_drops (lib/bpf/table.bpf.h). */
enum numascan_table_slot {
	NUMASCAN_PROCESS_DROPS,
	NUMASCAN_VMA_DROPS,
	NUMASCAN_NODE_PAIR_DROPS,
	NUMASCAN_MIGRATION_PAIR_DROPS,
};

/* Per process: the faulting or scanning task's. */
enum numascan_process_counter {
	NP_USER_PAGE_FAULTS,
	NP_HINT_FAULTS,
	NP_HINT_FAULTS_LOCAL,
	NP_HINT_FAULTS_MIGRATED,
	NP_SCAN_PASSES,
	NP_PTE_UPDATES,
	NP_VMA_SKIPS,
	/* task_numa_fault()'s pages, or the sched_switch estimate above */
	NP_HINT_FAULT_PAGES,
	NP_HINT_FAULT_PAGES_LOCAL,
	NP_NR,
};

#define NUMASCAN_MAX_PROCESSES 10240

/* Shared by every CPU (atomic adds): one row per process, not per CPU. */
struct numascan_process {
	char comm[16];
	__u64 counts[NP_NR * SCHEDSCAN_BANKS];	/* SCHEDSCAN_SLOT(NP_*, bank) */
};

/* Per VMA of a process, keyed by its start when the event saw it. */
enum numascan_vma_counter {
	NV_SCANS,		/* scan passes that updated some of its PTEs */
	NV_PTE_UPDATES,
	NV_HINT_FAULTS,
	NV_HINT_FAULTS_LOCAL,
	NV_VMA_SKIPS,
	/* scans by a thread that had taken no hint fault on it since the start */
	NV_SCANS_UNFAULTED,
	NV_PTE_UPDATES_UNFAULTED,
	/*
	 * Threads that took a first hint fault on it, and those of them whose
	 * bit in the PID filter's hash (vma_numab_state.pids_active, 6.4+)
	 * an earlier one already had.
	 */
	NV_FAULTING_TIDS,
	NV_TID_HASH_COLLISIONS,
	/* the audit's: scans no fault followed, skips a fault followed */
	NV_SCANS_UNFAULTED_AFTER,
	NV_SKIPS_FAULTED_AFTER,
	NV_NR,
};

#define NUMASCAN_MAX_VMAS 16384

struct numascan_vma_key {
	__u32 tgid;
	__u32 pad;
	__u64 start;
};

/* A thread and a VMA of its process it took a hint fault on, scanned or skipped. */
struct numascan_thread_vma {
	__u32 tid;
	__u32 pad;
	__u64 start;
};

#define NUMASCAN_MAX_THREAD_VMAS 65536

struct numascan_vma {
	__u64 end;
	__u64 last_pass;	/* the pass (its start time) that last scanned it */
	__u64 tid_hash_bits;	/* hash_32(tid, 6) of every faulting thread */
	__u64 counts[NV_NR * SCHEDSCAN_BANKS];
};

/* task_numa_fault() calls by the faulting CPU's node and the memory's node. */
enum numascan_node_pair_counter {
	NN_TASK_FAULTS,
	NN_TASK_FAULT_PAGES,
	NN_TASK_FAULTS_MIGRATED,
	NN_NR,
};

#define NUMASCAN_MAX_NODE_PAIRS 4096

struct numascan_node_pair_key {
	__u32 cpu_node;
	__u32 mem_node;
};

struct numascan_node_pair {
	__u64 counts[NN_NR * SCHEDSCAN_BANKS];
};

/*
 * Hint faults that migrated their page, by the page's node before
 * (should_numa_migrate_memory()'s src_nid) and after (task_numa_fault()'s
 * node). from_node -1: the fault migrated without passing through
 * should_numa_migrate_memory() where numascan saw it.
 */
enum numascan_migration_pair_counter {
	NM_HINT_FAULTS_MIGRATED,
	NM_HINT_FAULT_PAGES_MIGRATED,
	NM_MIGRATION_NS,	/* in migrate_misplaced_folio(), of those faults */
	NM_NR,
};

#define NUMASCAN_MAX_MIGRATION_PAIRS 4096

struct numascan_migration_pair_key {
	__s32 from_node;
	__s32 to_node;
};

struct numascan_migration_pair {
	__u64 counts[NM_NR * SCHEDSCAN_BANKS];
};

#endif
