/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /proc/schedstat reader: the kernel's own load-balance and wakeup counters,
 * used as ground truth for what our BPF tools report.
 *
 * Three text layouts exist in mainline and are all normalised into the same
 * structs below, so callers never look at a version number:
 *
 *   v15  (<= 6.9)      domain<N> <cpumask> + 3 x 8 lb fields + 12 others
 *   v16  (6.10-6.13)   same 36 fields, but the three idle-type column groups
 *                      are in a different order (enum cpu_idle_type changed)
 *   v17  (>= 6.14)     domain<N> <name> <cpumask> + 3 x 11 lb fields + 12;
 *                      lb_imbalance split into load/util/task/misfit
 *
 * The cpu<N> line is the same 9 fields in all three. lib/schedstat.c says
 * which kernel source defined each layout.
 *
 * The kernel only counts while kernel.sched_schedstats=1 (or the
 * "schedstats=enable" boot option); otherwise the file is there but frozen.
 *
 * Every counter is stored as uint64_t. In the kernel the per-domain counters
 * and most per-cpu ones are 32 bits wide and wrap; schedstat_delta() knows
 * which, so always diff two snapshots through it rather than by hand.
 *
 * Functions returning int give 0 on success or a negative errno:
 * -EINVAL malformed text or mismatched snapshots, -ENOTSUP an unknown
 * version, -ENOMEM, or the errno of a failed open/read. When @err is not
 * NULL a one-line reason (with the line number for parse errors) is written
 * to it, truncated to @errlen.
 */
#ifndef SCHEDSCAN_SCHEDSTAT_H
#define SCHEDSCAN_SCHEDSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SCHEDSTAT_DEFAULT_PATH "/proc/schedstat"

/* Pass as @level to the sum helpers to add up every domain level. */
#define SCHEDSTAT_ALL_LEVELS (-1)

/*
 * Our own idle-type index. The kernel's enum cpu_idle_type changed order in
 * v16, so its numeric values must never leak out of the parser.
 */
enum schedstat_idle_type {
	SS_IDLE,	/* balancing from an idle CPU (kernel CPU_IDLE) */
	SS_BUSY,	/* balancing from a busy CPU (CPU_NOT_IDLE / __CPU_NOT_IDLE) */
	SS_NEWLY_IDLE,	/* balancing on the way into idle (CPU_NEWLY_IDLE) */
	SS_NR_IDLE_TYPES,
};

/* Load-balance counters for one idle type of one domain. */
struct schedstat_lb {
	uint64_t count;		/* sched_balance_rq()/load_balance() calls */
	uint64_t balanced;	/* ... that found nothing to do */
	uint64_t failed;	/* ... that tried to move tasks and moved none */
	/*
	 * v15/v16: the kernel's single lb_imbalance. v17: the sum of the four
	 * fields below, so the same number is comparable across versions.
	 */
	uint64_t imbalance;
	/* v17 only (zero before; see schedstat.imbalance_split). */
	uint64_t imbalance_load;
	uint64_t imbalance_util;
	uint64_t imbalance_task;
	uint64_t imbalance_misfit;
	uint64_t gained;	/* tasks pulled */
	uint64_t hot_gained;	/* ... of which were cache-hot */
	uint64_t nobusyq;	/* busiest group found, but no busiest queue */
	uint64_t nobusyg;	/* no busiest group */
};

enum schedstat_lb_field {
	SS_LB_COUNT,
	SS_LB_BALANCED,
	SS_LB_FAILED,
	SS_LB_IMBALANCE,
	SS_LB_IMBALANCE_LOAD,
	SS_LB_IMBALANCE_UTIL,
	SS_LB_IMBALANCE_TASK,
	SS_LB_IMBALANCE_MISFIT,
	SS_LB_GAINED,
	SS_LB_HOT_GAINED,
	SS_LB_NOBUSYQ,
	SS_LB_NOBUSYG,
	SS_LB_NR_FIELDS,
};

/* The per-domain counters that are not split by idle type. */
enum schedstat_domain_field {
	SS_DOM_ALB_COUNT,
	SS_DOM_ALB_FAILED,
	SS_DOM_ALB_PUSHED,
	SS_DOM_SBE_COUNT,
	SS_DOM_SBE_BALANCED,
	SS_DOM_SBE_PUSHED,
	SS_DOM_SBF_COUNT,
	SS_DOM_SBF_BALANCED,
	SS_DOM_SBF_PUSHED,
	SS_DOM_TTWU_WAKE_REMOTE,
	SS_DOM_TTWU_MOVE_AFFINE,
	SS_DOM_TTWU_MOVE_BALANCE,
	SS_DOM_NR_FIELDS,
};

struct schedstat_domain {
	int level;		/* N of "domain<N>": 0 is the smallest span */
	char *name;		/* "SMT", "MC", "PKG", "NUMA"...; "" before v17 */
	char *cpumask;		/* span as the kernel prints it, e.g. "0f" */
	struct schedstat_lb lb[SS_NR_IDLE_TYPES];
	uint64_t alb_count;	/* active balance (push) attempts */
	uint64_t alb_failed;
	uint64_t alb_pushed;
	uint64_t sbe_count;	/* sbe_* and sbf_* are documented unused */
	uint64_t sbe_balanced;
	uint64_t sbe_pushed;
	uint64_t sbf_count;
	uint64_t sbf_balanced;
	uint64_t sbf_pushed;
	uint64_t ttwu_wake_remote;	/* wakeups of a task last on another CPU of this span */
	uint64_t ttwu_move_affine;	/* wake_affine() moved the wakee here */
	uint64_t ttwu_move_balance;
};

enum schedstat_cpu_field {
	SS_CPU_YLD_COUNT,
	SS_CPU_SCHED_COUNT,
	SS_CPU_SCHED_GOIDLE,
	SS_CPU_TTWU_COUNT,
	SS_CPU_TTWU_LOCAL,
	SS_CPU_RQ_CPU_TIME,
	SS_CPU_RUN_DELAY,
	SS_CPU_PCOUNT,
	SS_CPU_NR_FIELDS,
};

struct schedstat_cpu {
	int cpu;		/* N of "cpu<N>"; offline CPUs are absent */
	uint64_t yld_count;	/* sched_yield() calls */
	uint64_t sched_count;	/* schedule() calls */
	uint64_t sched_goidle;	/* ... that switched to the idle task */
	uint64_t ttwu_count;	/* try_to_wake_up() issued from this CPU */
	uint64_t ttwu_local;	/* ... whose wakee was on this CPU */
	uint64_t rq_cpu_time;	/* ns tasks ran here (the doc's "jiffies" is stale) */
	uint64_t run_delay;	/* ns tasks waited on this runqueue */
	uint64_t pcount;	/* timeslices run */
	size_t nr_domains;
	struct schedstat_domain *domains;	/* domains[i].level == i */
};

struct schedstat {
	int version;		/* 15, 16 or 17 */
	/* jiffies at read time; in a delta, the jiffies elapsed */
	uint64_t timestamp;
	/* true (v17) when lb.imbalance_{load,util,task,misfit} are real */
	bool imbalance_split;
	/* true (v17) when domain names are filled in */
	bool has_domain_names;
	size_t nr_cpus;
	struct schedstat_cpu *cpus;	/* in ascending cpu order */
};

/*
 * Parse the text of /proc/schedstat. @out is overwritten (not freed first);
 * on failure it is left empty, so schedstat_free() is always safe.
 */
int schedstat_parse(const char *text, struct schedstat *out,
		    char *err, size_t errlen);
/* Read and parse a file; @path NULL means SCHEDSTAT_DEFAULT_PATH. */
int schedstat_read(const char *path, struct schedstat *out,
		   char *err, size_t errlen);
void schedstat_free(struct schedstat *s);

/*
 * @delta = @after - @before for every counter, with 32-bit kernel counters
 * diffed modulo 2^32. Fails with -EINVAL unless both snapshots have the same
 * version, CPUs and, per CPU, the same domains (level, name and span): a
 * topology rebuild resets the domain counters, so a diff across one would be
 * garbage. @delta->timestamp is the elapsed jiffies. @delta is overwritten
 * and must not be one of the inputs.
 */
int schedstat_delta(const struct schedstat *before,
		    const struct schedstat *after,
		    struct schedstat *delta, char *err, size_t errlen);

/* NULL if @cpu is not in the snapshot (offline, or out of range). */
const struct schedstat_cpu *schedstat_find_cpu(const struct schedstat *s,
					       int cpu);
/* 1 + the highest domain level of any CPU; 0 without domains. */
int schedstat_nr_levels(const struct schedstat *s);

uint64_t schedstat_lb_value(const struct schedstat_lb *lb,
			    enum schedstat_lb_field field);
uint64_t schedstat_domain_value(const struct schedstat_domain *d,
				enum schedstat_domain_field field);
uint64_t schedstat_cpu_value(const struct schedstat_cpu *c,
			     enum schedstat_cpu_field field);

/*
 * Sums over all CPUs. @level selects domain<level> on every CPU, or
 * SCHEDSTAT_ALL_LEVELS. Levels are per-CPU positions, not topology names:
 * with asymmetric topologies level 1 can be "MC" on one CPU and "PKG" on
 * another; use the _by_name variants (v17) when that matters.
 */
uint64_t schedstat_sum_lb(const struct schedstat *s, int level,
			  enum schedstat_idle_type type,
			  enum schedstat_lb_field field);
uint64_t schedstat_sum_lb_all_types(const struct schedstat *s, int level,
				    enum schedstat_lb_field field);
uint64_t schedstat_sum_lb_by_name(const struct schedstat *s, const char *name,
				  enum schedstat_idle_type type,
				  enum schedstat_lb_field field);
uint64_t schedstat_sum_domain(const struct schedstat *s, int level,
			      enum schedstat_domain_field field);
uint64_t schedstat_sum_domain_by_name(const struct schedstat *s,
				      const char *name,
				      enum schedstat_domain_field field);
uint64_t schedstat_sum_cpu(const struct schedstat *s,
			   enum schedstat_cpu_field field);

/* Short names for reports: "idle", "busy", "newidle"; "lb_count"... */
const char *schedstat_idle_type_name(enum schedstat_idle_type type);
const char *schedstat_lb_field_name(enum schedstat_lb_field field);
const char *schedstat_domain_field_name(enum schedstat_domain_field field);
const char *schedstat_cpu_field_name(enum schedstat_cpu_field field);

/*
 * "ktime" and "cpu_clk" of debugfs sched/debug's header, in ns (0 if
 * absent): the scheduler's run and wait times (rq_cpu_time, run_delay,
 * /proc/PID/schedstat) run on cpu_clk, bpf_ktime_get_ns() and
 * CLOCK_MONOTONIC on ktime, and under emulation their rates differ (1% in
 * the TCG guests).
 */
void schedstat_clocks(long long *ktime_ns, long long *cpu_clock_ns);

#endif /* SCHEDSCAN_SCHEDSTAT_H */
