/* SPDX-License-Identifier: GPL-2.0 */
#ifndef IDLEBAL_H
#define IDLEBAL_H

#include "bpf/table.h"

/* Nanosecond histograms: log2 slots up to 2^38 ns, then their sum. */
#define IDLEBAL_TIME_SLOTS 40
/* Tasks moved by one balance pass: 0..31 and 32 or more, then their sum. */
#define IDLEBAL_MOVED_SLOTS 33
/* Domains above a CPU's base domain that the tool follows (schedstat's domain<N>). */
#define IDLEBAL_MAX_DOMAINS 8

/*
 * Per-CPU counter slots, summed by user space; names in idlebal.c and
 * docs/metrics.md.
 */
enum idlebal_counter {
	IDLEBAL_MIGRATIONS,		/* sched_migrate_task of a selected task */
	IDLEBAL_LOAD_BALANCE_CALLS,	/* sched_balance_rq()/load_balance() */
	/* sched_balance_newidle() calls, and the class each one ended in */
	IDLEBAL_NEWIDLE_CALLS,
	IDLEBAL_NEWIDLE_PULLED,
	IDLEBAL_NEWIDLE_NO_PULL,
	IDLEBAL_NEWIDLE_SKIPPED_NO_OVERLOAD,
	IDLEBAL_NEWIDLE_SKIPPED_COST,
	IDLEBAL_NEWIDLE_SKIPPED_RANDOM,
	IDLEBAL_NEWIDLE_SKIPPED_OTHER,
	/* domain passes the NI_RANDOM dice skipped */
	IDLEBAL_NEWIDLE_RANDOM_SKIPS,
	/* idle load balance: kicks received, kicks that found the CPU busy */
	IDLEBAL_ILB_KICKS,
	IDLEBAL_ILB_BUSY,
	IDLEBAL_ILB_RUNS,
	IDLEBAL_ILB_KSOFTIRQD_WAKEUPS,
	IDLEBAL_IDLE_EPISODE_HIST,	/* lengths of the idle episodes that ended */
	IDLEBAL_LB_PASS_HIST = IDLEBAL_IDLE_EPISODE_HIST + IDLEBAL_TIME_SLOTS + 1,
	IDLEBAL_LB_MOVED_HIST = IDLEBAL_LB_PASS_HIST + IDLEBAL_TIME_SLOTS + 1,
	IDLEBAL_LB_IMBALANCE_LOAD_HIST = IDLEBAL_LB_MOVED_HIST + IDLEBAL_MOVED_SLOTS + 1,
	IDLEBAL_LB_IMBALANCE_UTIL_HIST = IDLEBAL_LB_IMBALANCE_LOAD_HIST + IDLEBAL_TIME_SLOTS + 1,
	IDLEBAL_LB_IMBALANCE_TASK_HIST = IDLEBAL_LB_IMBALANCE_UTIL_HIST + IDLEBAL_TIME_SLOTS + 1,
	IDLEBAL_NEWIDLE_HIST = IDLEBAL_LB_IMBALANCE_TASK_HIST + IDLEBAL_TIME_SLOTS + 1,
	/* overloaded-while-idle episodes that ended, per scope */
	IDLEBAL_OVERLOAD_LLC_HIST = IDLEBAL_NEWIDLE_HIST + IDLEBAL_TIME_SLOTS + 1,
	IDLEBAL_OVERLOAD_NODE_HIST = IDLEBAL_OVERLOAD_LLC_HIST + IDLEBAL_TIME_SLOTS + 1,
	IDLEBAL_OVERLOAD_SYSTEM_HIST = IDLEBAL_OVERLOAD_NODE_HIST + IDLEBAL_TIME_SLOTS + 1,
	IDLEBAL_NR_COUNTERS = IDLEBAL_OVERLOAD_SYSTEM_HIST + IDLEBAL_TIME_SLOTS + 1,
};

/* One CPU's states over time, keyed by CPU; written only by that CPU. */
struct idlebal_cpu {
	struct schedscan_duration idle;	/* running its idle task */
};

/*
 * Idle types in schedstat v16/v17's column order (busy, idle, newidle),
 * whatever the kernel's enum cpu_idle_type says (reordered in 6.10).
 */
enum idlebal_idle_type {
	IDLEBAL_BUSY,
	IDLEBAL_IDLE,
	IDLEBAL_NEWIDLE,
	IDLEBAL_NR_IDLE_TYPES,
};

/*
 * Balance passes per domain and idle type. domain is N of schedstat's
 * domain<N>: the position above the CPU's base domain, not sd->level
 * (degenerate levels are removed without renumbering). cpu is the CPU
 * whose domain it is (this_cpu), or -1 for all CPUs (without --per-cpu).
 */
struct idlebal_domain_key {
	__s32 cpu;
	__u32 domain;
	__u32 idle;
};

enum idlebal_lb_value {
	LB_COUNT,
	LB_BALANCED,
	LB_FAILED,
	LB_GAINED,
	LB_HOT_GAINED,
	LB_NOBUSYG,
	LB_NOBUSYQ,
	LB_IMBALANCE_LOAD,
	LB_IMBALANCE_UTIL,
	LB_IMBALANCE_TASK,
	LB_IMBALANCE_MISFIT,
	LB_NR_VALUES,
};

#define IDLEBAL_NAME_LEN 16

/* The bounded tables' slots in table_drops. */
enum { IDLEBAL_DROPS_DOMAINS, IDLEBAL_DROPS_ALB };

struct idlebal_domain_row {
	char name[IDLEBAL_NAME_LEN];	/* sd->name, "" without CONFIG_SCHED_DEBUG */
	__u64 values[SCHEDSCAN_BANKS * LB_NR_VALUES];
};

/* Active balancing per domain (not per idle type, as in schedstat). */
struct idlebal_alb_key {
	__s32 cpu;
	__u32 domain;
};

enum idlebal_alb_value { ALB_COUNT, ALB_FAILED, ALB_PUSHED, ALB_NR_VALUES };

struct idlebal_alb_row {
	char name[IDLEBAL_NAME_LEN];
	__u64 values[SCHEDSCAN_BANKS * ALB_NR_VALUES];
};

/* Why a task changed CPU (docs/metrics.md, "migrations"). */
enum idlebal_cause {
	CAUSE_WAKEUP,
	CAUSE_PERIODIC,
	CAUSE_NEWIDLE,
	CAUSE_NOHZ,
	CAUSE_ACTIVE,
	CAUSE_NUMA,
	CAUSE_EXEC,
	CAUSE_AFFINITY,
	CAUSE_OTHER,
	IDLEBAL_NR_CAUSES,
};

enum idlebal_migration_value {
	MIG_MIGRATIONS,
	MIG_IDLE_TASKS,		/* SCHED_IDLE or in an idle cgroup */
	MIG_LAST_NONIDLE,	/* took the last non-idle task off its runqueue */
	MIG_NR_VALUES,
};

struct idlebal_migration_row {
	__u64 values[SCHEDSCAN_BANKS * MIG_NR_VALUES];
};

/*
 * Overloaded while idle: per LLC, node and system, the time during which
 * a runqueue of the group has more than one runnable non-idle CFS task
 * while another is idle or runs only SCHED_IDLE tasks, as time integrals
 * (lib/bpf/table.h) that every CPU of the group switches.
 */
enum idlebal_overload_word {
	OVERLOAD_TIME,		/* overloaded while idle, any number of overloaded rqs */
	OVERLOAD_BY_1,		/* ... with 1 overloaded runqueue */
	OVERLOAD_BY_2,		/* 2-3 */
	OVERLOAD_BY_4,		/* 4-7 */
	OVERLOAD_BY_8,		/* 8 or more */
	OVERLOAD_NR_WORDS,
};

enum idlebal_scope { SCOPE_LLC, SCOPE_NODE, SCOPE_SYSTEM, IDLEBAL_NR_SCOPES };

struct idlebal_overload_group {
	/* overloaded runqueues (low 32 bits), unoccupied ones (high 32) */
	__u64 counts;
	__u64 since;		/* when the current episode began */
	__u64 episodes[SCHEDSCAN_BANKS];	/* episodes begun, by bank */
	__s64 time[OVERLOAD_NR_WORDS];
};

/* Per CPU: the groups it belongs to and its last known state. */
struct idlebal_rq_state {
	__s32 llc, node;	/* group indexes, -1 until user space fills them */
	__u8 known;		/* counted in its groups' counts */
	__u8 overloaded;
	__u8 unoccupied;
	__u8 pad;
	__u32 pad2;
};

/* Idle load balance per CPU. */
enum idlebal_ilb_value { ILB_KICKS, ILB_BUSY, ILB_RUNS, ILB_KSOFTIRQD_WAKEUPS, ILB_NR_VALUES };

struct idlebal_ilb_row {
	__u64 values[SCHEDSCAN_BANKS * ILB_NR_VALUES];
};

#endif
