// SPDX-License-Identifier: GPL-2.0
/*
 * idlebal: load balancing, idle and sched-idle balancing.
 *
 * fentry/kprobe tiers: every load_balance() pass (sched_balance_rq()
 * since 6.10) per domain and idle type with /proc/schedstat's names and
 * its outcome, active balances, newidle balance calls and why they
 * pulled nothing, idle load balance kicks. Every tier: task migrations
 * by cause, the time runqueues sit overloaded while a CPU of the same
 * LLC, node or system is idle or sched-idle, each CPU's idle time.
 * Every number is defined in docs/metrics.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "compare.h"
#include "cpustate.h"
#include "preflight.h"
#include "probe.h"
#include "schedstat.h"
#include "tool.h"
#include "topology.h"
#include "idlebal.h"
#include "idlebal.skel.h"
#include "util.h"

enum idlebal_hook {
	HOOK_SCHED_MIGRATE_TASK,
	HOOK_LOAD_BALANCE,
	HOOK_SCHED_SWITCH,
	HOOK_SCHED_UPDATE_NR_RUNNING,
	HOOK_SCHED_WAKEUP,
	HOOK_FIND_BUSIEST_GROUP,
	HOOK_CAN_MIGRATE_TASK,
	HOOK_NEED_ACTIVE_BALANCE,
	HOOK_DETACH_TASK,
	HOOK_ACTIVE_BALANCE,
	HOOK_NEWIDLE,
	HOOK_SOFTIRQ_ENTRY,
	HOOK_SOFTIRQ_EXIT,
	HOOK_SCHED_MOVE_NUMA,
	HOOK_SCHED_SWAP_NUMA,
	HOOK_SCHED_EXEC,
	HOOK_CSD_FUNCTION_ENTRY,
	HOOK_CSD_FUNCTION_EXIT,
	HOOK_NOHZ_CSD_FUNC,
	NR_HOOKS,
};

#define TRACEPOINT HOOK_SPEC_TRACEPOINT
#define FUNCTION HOOK_SPEC_FUNCTION

static const struct hook_spec hooks[NR_HOOKS] = {
	[HOOK_SCHED_MIGRATE_TASK] = { .name = "sched_migrate_task",
				      .kind = HOOK_TRACEPOINT,
				      .targets = { "sched_migrate_task" },
				      .category = "sched" },
	/* Renamed in 6.10, with the helpers the pass's outcome is read from. */
	FUNCTION(HOOK_LOAD_BALANCE, "load_balance", "sched_balance_rq", "load_balance"),
	[HOOK_SCHED_SWITCH] = { .name = "sched_switch", .kind = HOOK_TRACEPOINT,
				.targets = { "sched_switch" }, .category = "sched" },
	/* Learns each CPU's runqueue, then follows the overload state. */
	TRACEPOINT(HOOK_SCHED_UPDATE_NR_RUNNING, "sched_update_nr_running_tp", NULL),
	TRACEPOINT(HOOK_SCHED_WAKEUP, "sched_wakeup", "sched"),
	FUNCTION(HOOK_FIND_BUSIEST_GROUP, "find_busiest_group",
		 "sched_balance_find_src_group", "find_busiest_group"),
	FUNCTION(HOOK_CAN_MIGRATE_TASK, "can_migrate_task", "can_migrate_task"),
	FUNCTION(HOOK_NEED_ACTIVE_BALANCE, "need_active_balance", "need_active_balance"),
	FUNCTION(HOOK_DETACH_TASK, "detach_task", "detach_task"),
	FUNCTION(HOOK_ACTIVE_BALANCE, "active_load_balance_cpu_stop",
		 "active_load_balance_cpu_stop"),
	FUNCTION(HOOK_NEWIDLE, "sched_balance_newidle", "sched_balance_newidle",
		 "newidle_balance"),
	TRACEPOINT(HOOK_SOFTIRQ_ENTRY, "softirq_entry", "irq"),
	TRACEPOINT(HOOK_SOFTIRQ_EXIT, "softirq_exit", "irq"),
	TRACEPOINT(HOOK_SCHED_MOVE_NUMA, "sched_move_numa", "sched"),
	TRACEPOINT(HOOK_SCHED_SWAP_NUMA, "sched_swap_numa", "sched"),
	FUNCTION(HOOK_SCHED_EXEC, "sched_exec", "sched_exec"),
	/* 6.6+; nohz_csd_func() itself where they are missing. */
	TRACEPOINT(HOOK_CSD_FUNCTION_ENTRY, "csd_function_entry", "csd"),
	TRACEPOINT(HOOK_CSD_FUNCTION_EXIT, "csd_function_exit", "csd"),
	[HOOK_NOHZ_CSD_FUNC] = { .name = "nohz_csd_func", .kind = HOOK_FUNCTION,
				 .targets = { "nohz_csd_func" }, .optional = true,
				 .redundant_with = HOOK_BIT(HOOK_CSD_FUNCTION_ENTRY) |
						   HOOK_BIT(HOOK_CSD_FUNCTION_EXIT) },
};

/*
 * A pass's outcome: the pass, the helpers it is read from, the tasks it
 * moves. Its failed verdict comes from need_active_balance(), or where that
 * is inlined (7.3) from the domain's lb_failed schedstat: failed_source().
 */
#define PASS (HOOK_BIT(HOOK_LOAD_BALANCE) | HOOK_BIT(HOOK_FIND_BUSIEST_GROUP) | \
	      HOOK_BIT(HOOK_CAN_MIGRATE_TASK) | HOOK_BIT(HOOK_DETACH_TASK))
#define NEWIDLE (HOOK_BIT(HOOK_NEWIDLE) | PASS)
#define KICKS (HOOK_BIT(HOOK_CSD_FUNCTION_ENTRY) | HOOK_BIT(HOOK_CSD_FUNCTION_EXIT) | \
	       HOOK_BIT(HOOK_SCHED_UPDATE_NR_RUNNING))
#define KICKS_FN (HOOK_BIT(HOOK_NOHZ_CSD_FUNC) | HOOK_BIT(HOOK_SCHED_UPDATE_NR_RUNNING))
#define RUNQUEUES HOOK_BIT(HOOK_SCHED_UPDATE_NR_RUNNING)

#define COUNT(metric, slot, hook_set) { .name = metric, .counter = slot, .needs = hook_set }
#define TIME_HIST_FIELDS(metric, slot, hook_set, what)                         \
	.name = metric, .counter = slot, .needs = hook_set,                    \
	.nr_slots = IDLEBAL_TIME_SLOTS, .kind = HIST_LOG2, .has_sum = true,    \
	.unit = "nsecs", .help = what
#define TIME_HIST(metric, slot, hook_set, what) { TIME_HIST_FIELDS(metric, slot, hook_set, what) }
#define SIZE_HIST(metric, slot, what)                                          \
	{ .name = metric, .counter = slot, .needs = PASS,                      \
	  .nr_slots = IDLEBAL_TIME_SLOTS, .kind = HIST_LOG2, .has_sum = true,  \
	  .unit = what }
#define ILB(metric, slot)                                                      \
	{ .name = metric, .counter = slot, .needs = KICKS,                     \
	  .fallback_needs = KICKS_FN, .fallback_counter = slot, .fallback_exact = true }

static const struct metric_spec metrics[] = {
	{ .name = "migrations",
	  .counter = IDLEBAL_MIGRATIONS,
	  .needs = HOOK_BIT(HOOK_SCHED_MIGRATE_TASK) },
	COUNT("load_balance_calls", IDLEBAL_LOAD_BALANCE_CALLS, PASS),
	COUNT("newidle_calls", IDLEBAL_NEWIDLE_CALLS, NEWIDLE),
	COUNT("newidle_pulled", IDLEBAL_NEWIDLE_PULLED, NEWIDLE),
	COUNT("newidle_no_pull", IDLEBAL_NEWIDLE_NO_PULL, NEWIDLE),
	COUNT("newidle_skipped_no_overload", IDLEBAL_NEWIDLE_SKIPPED_NO_OVERLOAD, NEWIDLE),
	COUNT("newidle_skipped_cost", IDLEBAL_NEWIDLE_SKIPPED_COST, NEWIDLE),
	COUNT("newidle_skipped_random", IDLEBAL_NEWIDLE_SKIPPED_RANDOM, NEWIDLE),
	COUNT("newidle_skipped_other", IDLEBAL_NEWIDLE_SKIPPED_OTHER, NEWIDLE),
	COUNT("newidle_random_skips", IDLEBAL_NEWIDLE_RANDOM_SKIPS, NEWIDLE),
	ILB("ilb_kicks", IDLEBAL_ILB_KICKS),
	ILB("ilb_busy", IDLEBAL_ILB_BUSY),
	COUNT("ilb_runs", IDLEBAL_ILB_RUNS,
	      HOOK_BIT(HOOK_SOFTIRQ_ENTRY) | HOOK_BIT(HOOK_SOFTIRQ_EXIT) | RUNQUEUES),
	{ .name = "ilb_ksoftirqd_wakeups", .counter = IDLEBAL_ILB_KSOFTIRQD_WAKEUPS,
	  .needs = KICKS | HOOK_BIT(HOOK_SCHED_WAKEUP) | HOOK_BIT(HOOK_SOFTIRQ_ENTRY),
	  .fallback_needs = KICKS_FN | HOOK_BIT(HOOK_SCHED_WAKEUP) |
			    HOOK_BIT(HOOK_SOFTIRQ_ENTRY),
	  .fallback_counter = IDLEBAL_ILB_KSOFTIRQD_WAKEUPS, .fallback_exact = true },
	TIME_HIST("idle_episode_ns", IDLEBAL_IDLE_EPISODE_HIST, HOOK_BIT(HOOK_SCHED_SWITCH),
		  "lengths of the idle episodes (a CPU running its idle task) that ended"),
	TIME_HIST("lb_pass_ns", IDLEBAL_LB_PASS_HIST, PASS,
		  "durations of the load balance passes, entry to exit"),
	{ .name = "lb_moved_tasks", .counter = IDLEBAL_LB_MOVED_HIST, .needs = PASS,
	  .nr_slots = IDLEBAL_MOVED_SLOTS, .kind = HIST_LINEAR, .counts = true,
	  .has_sum = true, .unit = "tasks" },
	SIZE_HIST("lb_imbalance_load_size", IDLEBAL_LB_IMBALANCE_LOAD_HIST, "load"),
	SIZE_HIST("lb_imbalance_util_size", IDLEBAL_LB_IMBALANCE_UTIL_HIST, "util"),
	SIZE_HIST("lb_imbalance_task_size", IDLEBAL_LB_IMBALANCE_TASK_HIST, "tasks"),
	TIME_HIST("newidle_ns", IDLEBAL_NEWIDLE_HIST, NEWIDLE,
		  "durations of the newidle balance calls, entry to exit"),
	TIME_HIST("overload_episode_llc_ns", IDLEBAL_OVERLOAD_LLC_HIST, RUNQUEUES,
		  "lengths of the LLCs' overloaded-while-idle episodes that ended"),
	{ TIME_HIST_FIELDS("overload_episode_node_ns", IDLEBAL_OVERLOAD_NODE_HIST, RUNQUEUES,
			   "lengths of the nodes' overloaded-while-idle episodes that ended"),
	  .text_same_as = "overload_episode_llc_ns" },
	{ TIME_HIST_FIELDS("overload_episode_system_ns", IDLEBAL_OVERLOAD_SYSTEM_HIST, RUNQUEUES,
			   "lengths of the system's overloaded-while-idle episodes that ended"),
	  .text_same_as = "overload_episode_node_ns" },
};

/* ------------------------------------------------------------------ tables */

/* Per CPU: the time it ran its idle task, and how often it entered it. */
static const struct table_key_field cpu_key[] = {
	{ .name = "cpu", .heading = "CPU", .size = 4, .width = 4 },
};

static const struct table_column cpu_columns[] = {
	{ "idle_ns", "IDLE_MS", 10, COLUMN_DURATION, 0, 0 },
	{ "idle_share", "IDLE%", 6, COLUMN_SHARE, 0, 0 },
	{ "idle_episodes", "EPISODES", 9, COLUMN_COUNT, 1, 0 },
};

static const struct table_spec cpu_table = {
	.name = "cpus", .row = "cpu", .keys = cpu_key, .nr_keys = 1,
	.source = TABLE_DURATIONS, .value_offset = offsetof(struct idlebal_cpu, idle),
	.nr_values = 2, .columns = cpu_columns, .nr_columns = ARRAY_SIZE(cpu_columns),
	.sort_value = -1, .all_rows = true, .drop_slot = -1,
};

/* /proc/schedstat's per-domain counters, supplied after the tool's own. */
enum schedstat_value {
	KERNEL_LB_COUNT = LB_NR_VALUES,
	KERNEL_LB_BALANCED,
	KERNEL_LB_FAILED,
	KERNEL_LB_GAINED,
	KERNEL_LB_HOT_GAINED,
	KERNEL_LB_NOBUSYG,
	KERNEL_LB_NOBUSYQ,
	KERNEL_LB_IMBALANCE,
	KERNEL_LB_END,
};

static const struct table_key_field domain_keys[] = {
	{ .name = "cpu", .heading = "CPU", .offset = offsetof(struct idlebal_domain_key, cpu),
	  .size = 4, .is_signed = true, .width = 4 },
	{ .name = "domain", .heading = "DOMAIN",
	  .offset = offsetof(struct idlebal_domain_key, domain), .size = 4, .width = 6 },
	{ .name = "idle", .heading = "IDLE",
	  .offset = offsetof(struct idlebal_domain_key, idle), .size = 4, .width = 4 },
};

static const char *const domain_labels[] = { "name", "idle_type" };
static const char *const domain_headings[] = { "NAME", "TYPE" };
static const int domain_label_widths[] = { 6, 8 };

#define LB_COLUMN(name, value) { name, NULL, 0, COLUMN_COUNT, value, 0 }

static const struct table_column domain_columns[] = {
	LB_COLUMN("lb_count", LB_COUNT),
	LB_COLUMN("lb_balanced", LB_BALANCED),
	LB_COLUMN("lb_failed", LB_FAILED),
	LB_COLUMN("lb_gained", LB_GAINED),
	LB_COLUMN("lb_hot_gained", LB_HOT_GAINED),
	LB_COLUMN("lb_nobusyg", LB_NOBUSYG),
	LB_COLUMN("lb_nobusyq", LB_NOBUSYQ),
	LB_COLUMN("lb_imbalance_load", LB_IMBALANCE_LOAD),
	LB_COLUMN("lb_imbalance_util", LB_IMBALANCE_UTIL),
	LB_COLUMN("lb_imbalance_task", LB_IMBALANCE_TASK),
	LB_COLUMN("lb_imbalance_misfit", LB_IMBALANCE_MISFIT),
	/* The kernel's, where /proc/schedstat counts (JSON "schedstat"). */
	LB_COLUMN("lb_count", KERNEL_LB_COUNT),
	LB_COLUMN("lb_balanced", KERNEL_LB_BALANCED),
	LB_COLUMN("lb_failed", KERNEL_LB_FAILED),
	LB_COLUMN("lb_gained", KERNEL_LB_GAINED),
	LB_COLUMN("lb_hot_gained", KERNEL_LB_HOT_GAINED),
	LB_COLUMN("lb_nobusyg", KERNEL_LB_NOBUSYG),
	LB_COLUMN("lb_nobusyq", KERNEL_LB_NOBUSYQ),
	LB_COLUMN("lb_imbalance", KERNEL_LB_IMBALANCE),
};

enum alb_kernel_value {
	KERNEL_ALB_COUNT = ALB_NR_VALUES,
	KERNEL_ALB_FAILED,
	KERNEL_ALB_PUSHED,
	KERNEL_ALB_END,
};

static const struct table_key_field alb_keys[] = {
	{ .name = "cpu", .heading = "CPU", .offset = offsetof(struct idlebal_alb_key, cpu),
	  .size = 4, .is_signed = true, .width = 4 },
	{ .name = "domain", .heading = "DOMAIN",
	  .offset = offsetof(struct idlebal_alb_key, domain), .size = 4, .width = 6 },
};

static const struct table_column alb_columns[] = {
	{ "alb_count", "ALB_COUNT", 10, COLUMN_COUNT, ALB_COUNT, 0 },
	{ "alb_failed", "FAILED", 8, COLUMN_COUNT, ALB_FAILED, 0 },
	{ "alb_pushed", "PUSHED", 8, COLUMN_COUNT, ALB_PUSHED, 0 },
	{ "alb_count", "KERNEL", 8, COLUMN_COUNT, KERNEL_ALB_COUNT, 0 },
	{ "alb_failed", "KFAILED", 8, COLUMN_COUNT, KERNEL_ALB_FAILED, 0 },
	{ "alb_pushed", "KPUSHED", 8, COLUMN_COUNT, KERNEL_ALB_PUSHED, 0 },
};

static const struct table_key_field cause_key[] = {
	{ .name = "cause_id", .heading = "", .size = 4, .width = 0 },
};
static const char *const cause_label[] = { "cause" };
static const char *const cause_heading[] = { "CAUSE" };
static const int cause_width[] = { 16 };

static const char *const cause_names[IDLEBAL_NR_CAUSES] = {
	[CAUSE_WAKEUP] = "wakeup",	[CAUSE_PERIODIC] = "periodic_balance",
	[CAUSE_NEWIDLE] = "newidle_balance", [CAUSE_NOHZ] = "nohz_balance",
	[CAUSE_ACTIVE] = "active_balance", [CAUSE_NUMA] = "numa",
	[CAUSE_EXEC] = "exec",		[CAUSE_AFFINITY] = "affinity",
	[CAUSE_OTHER] = "other",
};

static void cause_labels(void *ctx, const void *key, const struct map_dump *d,
			 unsigned int i, char (*out)[TABLE_LABEL_LEN])
{
	__u32 cause;

	memcpy(&cause, key, sizeof(cause));
	snprintf(out[0], TABLE_LABEL_LEN, "%s",
		 cause < IDLEBAL_NR_CAUSES ? cause_names[cause] : "?");
}

static const struct table_column cause_columns[] = {
	{ "migrations", "MIGRATIONS", 10, COLUMN_COUNT, MIG_MIGRATIONS, 0 },
	{ "idle_tasks", "IDLE_TASKS", 10, COLUMN_COUNT, MIG_IDLE_TASKS, 0 },
	{ "last_nonidle", "LAST_NONIDLE", 12, COLUMN_COUNT, MIG_LAST_NONIDLE, 0 },
};

static const struct table_spec cause_table = {
	.name = "migration_causes", .row = "cause", .keys = cause_key, .nr_keys = 1,
	.label_names = cause_label, .label_headings = cause_heading,
	.label_widths = cause_width, .nr_labels = 1, .labels = cause_labels,
	.source = TABLE_COUNTERS, .nr_values = MIG_NR_VALUES,
	.columns = cause_columns, .nr_columns = ARRAY_SIZE(cause_columns),
	.sort_value = MIG_MIGRATIONS, .drop_slot = -1,
};

/* Overloaded while idle: episodes (a counter), then the integrals. */
enum overload_value {
	OV_EPISODES,
	OV_TIME,
	OV_BY_1,
	OV_BY_2,
	OV_BY_4,
	OV_BY_8,
	OV_NR_VALUES,
};

static const struct table_column overload_columns[] = {
	{ "overloaded_idle_ns", "OVLD_IDLE_MS", 12, COLUMN_DURATION, OV_TIME, 0 },
	{ "overloaded_idle_share", "%", 6, COLUMN_SHARE, OV_TIME, 0 },
	{ "overload_episodes", "EPISODES", 9, COLUMN_COUNT, OV_EPISODES, 0 },
	{ "overloaded_1_ns", NULL, 0, COLUMN_DURATION, OV_BY_1, 0 },
	{ "overloaded_2_ns", NULL, 0, COLUMN_DURATION, OV_BY_2, 0 },
	{ "overloaded_4_ns", NULL, 0, COLUMN_DURATION, OV_BY_4, 0 },
	{ "overloaded_8_ns", NULL, 0, COLUMN_DURATION, OV_BY_8, 0 },
	{ "overloaded_1_pct", "1RQ%", 5, COLUMN_PERCENT, OV_BY_1, OV_TIME },
	{ "overloaded_2_pct", "2-3%", 5, COLUMN_PERCENT, OV_BY_2, OV_TIME },
	{ "overloaded_4_pct", "4-7%", 5, COLUMN_PERCENT, OV_BY_4, OV_TIME },
	{ "overloaded_8_pct", "8+%", 5, COLUMN_PERCENT, OV_BY_8, OV_TIME },
};

#define OVERLOAD_TABLE(table, key_name, nr_words)                             \
	.name = table, .row = #key_name, .keys = key_name##_key, .nr_keys = 1, \
	TABLE_CPUS_LABEL, .source = TABLE_COUNTERS,                            \
	.value_offset = offsetof(struct idlebal_overload_group, episodes),     \
	.nr_values = 1 + (nr_words),                                           \
	.integral_offset = offsetof(struct idlebal_overload_group, time),      \
	.nr_integrals = (nr_words), .columns = overload_columns,               \
	.sort_value = -1, .drop_slot = -1

static const struct table_key_field llc_key[] = {
	{ .name = "llc", .heading = "LLC", .size = 4, .width = 4 },
};
static const struct table_key_field node_key[] = {
	{ .name = "node", .heading = "NODE", .size = 4, .width = 4 },
};
static const struct table_key_field system_key[] = {
	{ .name = "system", .heading = "", .size = 4, .width = 0 },
};

static void node_labels(void *ctx, const void *key, const struct map_dump *d,
			unsigned int i, char (*out)[TABLE_LABEL_LEN]);
static void system_labels(void *ctx, const void *key, const struct map_dump *d,
			  unsigned int i, char (*out)[TABLE_LABEL_LEN]);

static const struct table_spec overload_llc_table = {
	OVERLOAD_TABLE("overload_llc", llc, OVERLOAD_NR_WORDS),
	.labels = cpustate_llc_label, .nr_columns = ARRAY_SIZE(overload_columns),
};
static void overload_text(struct table *t, FILE *out, int top);

static const struct table_spec overload_node_table = {
	OVERLOAD_TABLE("overload_node", node, OVERLOAD_NR_WORDS),
	.labels = node_labels, .nr_columns = ARRAY_SIZE(overload_columns),
	.text = overload_text,
};
/* The system counts nodes, not runqueues: no split by overloaded runqueues. */
static const struct table_spec overload_system_table = {
	OVERLOAD_TABLE("overload_system", system, 1),
	.labels = system_labels, .nr_columns = 3, .text = overload_text,
};

static const struct table_column ilb_columns[] = {
	{ "ilb_kicks", "KICKS", 8, COLUMN_COUNT, ILB_KICKS, 0 },
	{ "ilb_busy", "BUSY", 8, COLUMN_COUNT, ILB_BUSY, 0 },
	{ "ilb_runs", "RUNS", 8, COLUMN_COUNT, ILB_RUNS, 0 },
	{ "ilb_ksoftirqd_wakeups", "KSOFTIRQD", 9, COLUMN_COUNT, ILB_KSOFTIRQD_WAKEUPS, 0 },
};

static const struct table_spec ilb_table = {
	.name = "ilb", .row = "cpu", .keys = cpu_key, .nr_keys = 1,
	.source = TABLE_COUNTERS, .nr_values = ILB_NR_VALUES,
	.columns = ilb_columns, .nr_columns = ARRAY_SIZE(ilb_columns),
	.sort_value = -1, .drop_slot = -1,
};

/* ------------------------------------------------------------------ state */

struct idlebal_args {
	bool per_cpu;
};

struct idlebal {
	struct idlebal_args args;
	struct tool tool;
	struct idlebal_bpf *obj;
	struct topology topo;
	struct cpustate cpus;
	struct cpustate_maps maps;
	struct table cpu_rows, domain_rows, alb_rows, cause_rows, ilb_rows;
	struct table overload_rows[IDLEBAL_NR_SCOPES];
	/* /proc/schedstat at the start, for the KERNEL values. */
	struct schedstat schedstat_base;
	bool have_schedstat;
	bool kicks_unknown;	/* nohz_csd_func's address is not known */
	const char *kicks_why;
	/* Why no pass can be told failed from balanced, or NULL. */
	const char *failed_why;
};

static void node_labels(void *ctx, const void *key, const struct map_dump *d,
			unsigned int i, char (*out)[TABLE_LABEL_LEN])
{
	const struct idlebal *ib = ctx;
	__u32 node;

	memcpy(&node, key, sizeof(node));
	if ((int)node >= ib->topo.nr_nodes ||
	    cpulist_format(&ib->topo.node_cpus[node], out[0], TABLE_LABEL_LEN) < 0)
		snprintf(out[0], TABLE_LABEL_LEN, "?");
}

static void system_labels(void *ctx, const void *key, const struct map_dump *d,
			  unsigned int i, char (*out)[TABLE_LABEL_LEN])
{
	const struct idlebal *ib = ctx;

	if (cpulist_format(&ib->topo.online, out[0], TABLE_LABEL_LEN) < 0)
		snprintf(out[0], TABLE_LABEL_LEN, "?");
}

/*
 * A node's or the system's table, in text only where it differs from the
 * narrower scope's (one LLC per node, one node: three equal tables).
 */
static void overload_text(struct table *t, FILE *out, int top)
{
	struct idlebal *ib = t->ctx;
	int scope = 0, same = -1;

	while (scope < IDLEBAL_NR_SCOPES && &ib->overload_rows[scope] != t)
		scope++;
	for (int below = scope - 1; below >= 0 && ib->overload_rows[below].spec; below--) {
		if (!table_window_same(&ib->overload_rows[below + 1], &ib->overload_rows[below]))
			break;
		same = below;
	}
	if (same < 0) {
		table_text_rows(t, out, top);
		return;
	}
	fprintf(out, "\n%s: same as %s\n", t->spec->name,
		ib->overload_rows[same].spec->name);
}

static const char *const idle_type_names[IDLEBAL_NR_IDLE_TYPES] = {
	[IDLEBAL_BUSY] = "busy", [IDLEBAL_IDLE] = "idle", [IDLEBAL_NEWIDLE] = "newidle",
};

/* The domain's name (written by the BPF side at the row's first event), its idle type. */
static void domain_labels_fill(void *ctx, const void *key, const struct map_dump *d,
			       unsigned int i, char (*out)[TABLE_LABEL_LEN])
{
	struct idlebal_domain_key k;

	memcpy(&k, key, sizeof(k));
	table_label_comm(ctx, key, d, i, out);
	snprintf(out[1], TABLE_LABEL_LEN, "%s",
		 k.idle < IDLEBAL_NR_IDLE_TYPES ? idle_type_names[k.idle] : "?");
}

static void alb_labels_fill(void *ctx, const void *key, const struct map_dump *d,
			    unsigned int i, char (*out)[TABLE_LABEL_LEN])
{
	table_label_comm(ctx, key, d, i, out);
}

/* Our idle type of schedstat's. */
static const enum idlebal_idle_type from_schedstat[SS_NR_IDLE_TYPES] = {
	[SS_IDLE] = IDLEBAL_IDLE, [SS_BUSY] = IDLEBAL_BUSY, [SS_NEWLY_IDLE] = IDLEBAL_NEWIDLE,
};

static bool schedstat_counting(const char *proc_root)
{
	char path[4096], text[16] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/sys/kernel/sched_schedstats",
		 proc_root ? proc_root : "/proc");
	f = fopen(path, "r");
	if (!f)
		return false;
	if (!fgets(text, sizeof(text), f))
		text[0] = 0;
	fclose(f);
	return text[0] == '1';
}

static const char *schedstat_path(const struct idlebal *ib, char *buf, size_t len)
{
	snprintf(buf, len, "%s/schedstat",
		 ib->tool.opts->proc_root ? ib->tool.opts->proc_root : "/proc");
	return buf;
}

/*
 * The kernel's counters for the window next to the tool's: /proc/schedstat
 * since the start, per domain and idle type (and CPU with --per-cpu),
 * over the selected CPUs. Only where schedstats count (sched_schedstats=1).
 */
static bool supply_schedstat(void *ctx, struct table *t, bool start)
{
	struct idlebal *ib = ctx;
	struct schedstat now, delta;
	bool domains = t->spec->keys == domain_keys;
	char path[4096];

	if (start) {
		if (!ib->have_schedstat) {
			if (!schedstat_counting(ib->tool.opts->proc_root) ||
			    schedstat_read(schedstat_path(ib, path, sizeof(path)),
					   &ib->schedstat_base, NULL, 0))
				return false;
			ib->have_schedstat = true;
		}
		return true;
	}
	if (schedstat_read(schedstat_path(ib, path, sizeof(path)), &now, NULL, 0))
		return true;
	if (schedstat_delta(&ib->schedstat_base, &now, &delta, NULL, 0)) {
		schedstat_free(&now);
		return true;
	}
	/* Cumulative per key: every CPU's rows add into the all-CPU rows. */
	table_supply_reset(t);
	for (size_t c = 0; c < delta.nr_cpus; c++) {
		const struct schedstat_cpu *cpu = &delta.cpus[c];

		if (ib->tool.opts->have_cpus && !cpumask_test(&ib->tool.opts->cpus, cpu->cpu))
			continue;
		for (size_t d = 0; d < cpu->nr_domains && d < IDLEBAL_MAX_DOMAINS; d++) {
			const struct schedstat_domain *dom = &cpu->domains[d];
			__s32 key_cpu = ib->args.per_cpu ? cpu->cpu : -1;

			if (!domains) {
				struct idlebal_alb_key key = { key_cpu, (__u32)d };
				const unsigned long long add[] = { dom->alb_count, dom->alb_failed,
								   dom->alb_pushed };

				for (unsigned int v = 0; v < ARRAY_SIZE(add); v++)
					table_supply(t, &key, KERNEL_ALB_COUNT + v, add[v]);
				continue;
			}
			for (int type = 0; type < SS_NR_IDLE_TYPES; type++) {
				const struct schedstat_lb *lb = &dom->lb[type];
				struct idlebal_domain_key key = { key_cpu, (__u32)d,
								  from_schedstat[type] };
				const unsigned long long add[] = {
					lb->count, lb->balanced, lb->failed, lb->gained,
					lb->hot_gained, lb->nobusyg, lb->nobusyq, lb->imbalance,
				};

				for (unsigned int v = 0; v < ARRAY_SIZE(add); v++)
					table_supply(t, &key, KERNEL_LB_COUNT + v, add[v]);
			}
		}
	}
	schedstat_free(&delta);
	schedstat_free(&now);
	return true;
}

/*
 * perf sched stats' layout: a block per domain (and CPU with --per-cpu),
 * the idle types as columns, the kernel's count beside the tool's when
 * /proc/schedstat counts.
 */
static const struct {
	const char *name;
	int value, kernel;	/* -1: none */
} domain_lines[] = {
	{ "lb_count", LB_COUNT, KERNEL_LB_COUNT },
	{ "lb_balanced", LB_BALANCED, KERNEL_LB_BALANCED },
	{ "lb_failed", LB_FAILED, KERNEL_LB_FAILED },
	{ "lb_gained", LB_GAINED, KERNEL_LB_GAINED },
	{ "lb_hot_gained", LB_HOT_GAINED, KERNEL_LB_HOT_GAINED },
	{ "lb_nobusyg", LB_NOBUSYG, KERNEL_LB_NOBUSYG },
	{ "lb_nobusyq", LB_NOBUSYQ, KERNEL_LB_NOBUSYQ },
	{ "lb_imbalance", -1, KERNEL_LB_IMBALANCE },
	{ "  _load", LB_IMBALANCE_LOAD, -1 },
	{ "  _util", LB_IMBALANCE_UTIL, -1 },
	{ "  _task", LB_IMBALANCE_TASK, -1 },
	{ "  _misfit", LB_IMBALANCE_MISFIT, -1 },
};

static unsigned long long domain_line_value(const struct table_row *row, int line)
{
	int v = domain_lines[line].value;

	if (v >= 0)
		return row->win[v];
	return row->win[LB_IMBALANCE_LOAD] + row->win[LB_IMBALANCE_UTIL] +
	       row->win[LB_IMBALANCE_TASK] + row->win[LB_IMBALANCE_MISFIT];
}

static void domains_text(struct table *t, FILE *out, int top)
{
	const struct table_row **rows;
	size_t n = table_sorted_rows(t, &rows);
	bool kernel = t->supplied;
	int width = kernel ? 8 : 10;

	for (size_t r = 0; r < n;) {
		struct idlebal_domain_key first, k;
		const struct table_row *by_type[IDLEBAL_NR_IDLE_TYPES] = {};
		char title[128];

		memcpy(&first, rows[r]->key, sizeof(first));
		for (; r < n; r++) {
			memcpy(&k, rows[r]->key, sizeof(k));
			if (k.cpu != first.cpu || k.domain != first.domain)
				break;
			if (k.idle < IDLEBAL_NR_IDLE_TYPES)
				by_type[k.idle] = rows[r];
		}
		if (first.cpu < 0)
			snprintf(title, sizeof(title), "domain%u %.16s", first.domain,
				 rows[r - 1]->labels[0]);
		else
			snprintf(title, sizeof(title), "cpu%d domain%u %.16s", first.cpu,
				 first.domain, rows[r - 1]->labels[0]);
		fprintf(out, "\n%-20.20s", title);
		for (int type = 0; type < IDLEBAL_NR_IDLE_TYPES; type++)
			fprintf(out, " %*s", kernel ? 2 * width + 1 : width, idle_type_names[type]);
		fputc('\n', out);
		if (kernel) {
			fprintf(out, "%-20s", "");
			for (int type = 0; type < IDLEBAL_NR_IDLE_TYPES; type++)
				fprintf(out, " %*s %*s", width, "tool", width, "kernel");
			fputc('\n', out);
		}
		for (size_t line = 0; line < ARRAY_SIZE(domain_lines); line++) {
			fprintf(out, "%-20s", domain_lines[line].name);
			for (int type = 0; type < IDLEBAL_NR_IDLE_TYPES; type++) {
				const struct table_row *row = by_type[type];
				char cell[2][24] = { "-", "-" };

				if (row)
					snprintf(cell[0], sizeof(cell[0]), "%llu",
						 domain_line_value(row, line));
				if (row && domain_lines[line].kernel >= 0)
					snprintf(cell[1], sizeof(cell[1]), "%llu",
						 row->win[domain_lines[line].kernel]);
				if (kernel)
					fprintf(out, " %*s %*s", width, cell[0], width, cell[1]);
				else
					fprintf(out, " %*s", width, cell[0]);
			}
			fputc('\n', out);
		}
	}
	if (!n)
		fprintf(out, "\nno load balance pass in this window\n");
	if (t->dropped_win)
		fprintf(out, "%llu update%s found the domains table full: its rows undercount\n",
			t->dropped_win, t->dropped_win == 1 ? "" : "s");
	free(rows);
	(void)top;
}

static const struct table_spec domain_table = {
	.name = "domains", .row = "domain", .keys = domain_keys, .nr_keys = 3,
	.label_names = domain_labels, .label_headings = domain_headings,
	.label_widths = domain_label_widths, .nr_labels = 2, .labels = domain_labels_fill,
	.source = TABLE_COUNTERS, .value_offset = offsetof(struct idlebal_domain_row, values),
	.nr_values = LB_NR_VALUES, .nr_supplied = KERNEL_LB_END - LB_NR_VALUES,
	.supplied_name = "schedstat", .supplement = supply_schedstat, .text = domains_text,
	.columns = domain_columns, .nr_columns = ARRAY_SIZE(domain_columns),
	.sort_value = -1, .drop_slot = IDLEBAL_DROPS_DOMAINS,
};

static const char *const alb_label[] = { "name" };
static const char *const alb_heading[] = { "NAME" };
static const int alb_width[] = { 6 };

static const struct table_spec alb_table = {
	.name = "active_balance", .row = "domain", .keys = alb_keys, .nr_keys = 2,
	.label_names = alb_label, .label_headings = alb_heading, .label_widths = alb_width,
	.nr_labels = 1, .labels = alb_labels_fill,
	.source = TABLE_COUNTERS, .value_offset = offsetof(struct idlebal_alb_row, values),
	.nr_values = ALB_NR_VALUES, .nr_supplied = KERNEL_ALB_END - ALB_NR_VALUES,
	.supplied_name = "schedstat", .supplement = supply_schedstat,
	.columns = alb_columns, .nr_columns = ARRAY_SIZE(alb_columns),
	/* Sized for every (CPU, domain) key, as the domains table: it cannot fill. */
	.sort_value = -1, .drop_slot = -1,
};

/* ---------------------------------------------------------------- options */

enum { OPT_PER_CPU = 0x1000 };

static const struct argp_option idlebal_options[] = {
	{ "per-cpu", OPT_PER_CPU, NULL, 0,
	  "Balance passes per CPU and domain instead of per domain", 4 },
	{},
};

static error_t parse_idlebal(int key, char *arg, struct argp_state *state)
{
	struct idlebal_args *args = state->input;

	switch (key) {
	case OPT_PER_CPU:
		args->per_cpu = true;
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

/* ------------------------------------------------------------------ setup */

static bool has_flavour(const struct idlebal *ib, int hook)
{
	return tool_hook(&ib->tool, hook)->flavour != FLAVOUR_NONE;
}

static int set_max_entries(struct bpf_map *map, unsigned int n, char *err, size_t errlen)
{
	int ret = bpf_map__set_max_entries(map, n ? n : 1);

	if (ret)
		return errmsg(err, errlen, "sizing the %s map failed: %s", bpf_map__name(map),
			      strerror(-ret));
	return 0;
}

/* A metric the chosen hooks reach but this run cannot measure, with why. */
static void mark_unavailable(struct idlebal *ib, const char *name, const char *why)
{
	struct metric_source *src = tool_available_source(&ib->tool, name);

	if (!src)
		return;
	src->available = false;
	src->tier = "none";
	src->why = why;
}

/* Kicks cannot be told apart: unavailable, never a count of 0. */
static void mark_kicks_unknown(struct idlebal *ib, const char *why)
{
	mark_unavailable(ib, "ilb_kicks", why);
	mark_unavailable(ib, "ilb_busy", why);
	mark_unavailable(ib, "ilb_ksoftirqd_wakeups", why);
	ib->kicks_unknown = true;
	ib->kicks_why = why;
}

static bool schedstats_enabled(const char *proc_root)
{
	char path[PATH_MAX], *text = NULL, err[256];
	bool on;

	snprintf(path, sizeof(path), "%s/sys/kernel/sched_schedstats", proc_root);
	if (read_text_file(path, &text, err, sizeof(err)))
		return false;
	on = text[0] == '1';
	free(text);
	return on;
}

/*
 * load_balance() calls need_active_balance() on its failed path only. Where
 * the compiler inlined it (7.3), the failed path is the one that counts the
 * domain's lb_failed[idle] schedstat: exact while schedstats are on. With
 * neither, balanced and failed passes look alike, and so do the passes that
 * found a busiest queue (the imbalance sizes).
 */
static void failed_source(struct idlebal *ib)
{
	const struct common_opts *opts = ib->tool.opts;
	bool have_schedstats;

	if (has_flavour(ib, HOOK_NEED_ACTIVE_BALANCE) || !tool_has_hooks(&ib->tool, PASS))
		return;
	have_schedstats = kernel_struct_member_offset("sched_domain", "lb_failed") >= 0;
	if (have_schedstats && schedstats_enabled(opts->proc_root)) {
		ib->obj->rodata->failed_from_schedstats = true;
		return;
	}
	ib->failed_why = !have_schedstats ?
		"need_active_balance() is inlined in this kernel and it has no schedstats "
		"(CONFIG_SCHEDSTATS): no pass can be told failed" :
		"need_active_balance() is inlined in this kernel and schedstats are off: "
		"sysctl kernel.sched_schedstats=1 lets the domain's lb_failed tell a failed pass";
	mark_unavailable(ib, "lb_imbalance_load_size", ib->failed_why);
	mark_unavailable(ib, "lb_imbalance_util_size", ib->failed_why);
	mark_unavailable(ib, "lb_imbalance_task_size", ib->failed_why);
}

/* .rodata and map sizes that depend on the chosen hooks and the topology. */
static int setup_before_load(struct idlebal *ib, char *err, size_t errlen)
{
	const struct common_opts *opts = ib->tool.opts;
	struct idlebal_bpf *obj = ib->obj;
	unsigned int cpus = ib->args.per_cpu ? 0 : 1;

	if (topology_load(&ib->topo, opts->sysfs_root, err, errlen))
		return -1;
	if (!cpus)
		cpus = ib->topo.nr_cpu_ids;
	obj->rodata->nr_cpu_words = cpustate_words(ib->topo.nr_cpu_ids);
	obj->rodata->per_cpu_rows = ib->args.per_cpu;
	/* Delayed dequeue keeps sleepers queued: h_nr_runnable leaves them out. */
	obj->rodata->track_runnable = kernel_struct_member_offset("cfs_rq", "h_nr_runnable") >= 0;
	obj->rodata->alb_hooked = has_flavour(ib, HOOK_ACTIVE_BALANCE);
	failed_source(ib);
	/* The csd tracepoints name the function: a kick is a call of nohz_csd_func(). */
	if (has_flavour(ib, HOOK_CSD_FUNCTION_ENTRY)) {
		obj->rodata->nohz_csd_func_addr = kernel_symbol_address(opts->proc_root,
									"nohz_csd_func");
		if (!obj->rodata->nohz_csd_func_addr)
			mark_kicks_unknown(ib, kernel_addresses_hidden(opts->proc_root) ?
				"/proc/kallsyms hides nohz_csd_func's address from this user "
				"(kptr_restrict): run as root or with CAP_SYSLOG" :
				"nohz_csd_func is not in /proc/kallsyms: no idle load balance "
				"kick can be told from other cross-CPU calls");
	}
	if (set_max_entries(obj->maps.cpu_states, ib->topo.nr_cpu_ids, err, errlen) ||
	    set_max_entries(obj->maps.domains, cpus * IDLEBAL_MAX_DOMAINS * IDLEBAL_NR_IDLE_TYPES,
			    err, errlen) ||
	    set_max_entries(obj->maps.active_balance, cpus * IDLEBAL_MAX_DOMAINS, err, errlen) ||
	    set_max_entries(obj->maps.overload_llc, ib->topo.nr_cpu_ids, err, errlen) ||
	    set_max_entries(obj->maps.overload_node, ib->topo.nr_nodes, err, errlen) ||
	    set_max_entries(obj->maps.overload_system, 1, err, errlen) ||
	    set_max_entries(obj->maps.rq_states, ib->topo.nr_cpu_ids, err, errlen) ||
	    set_max_entries(obj->maps.ilb_cpus, ib->topo.nr_cpu_ids, err, errlen))
		return -1;
	return cpustate_size(&ib->maps, ib->topo.nr_cpu_ids, err, errlen);
}

/* Metrics the chosen hooks reach but the kernel cannot give. */
static void mark_kernel_gaps(struct idlebal *ib)
{
	if (kernel_struct_member_offset("sched_domain", "newidle_call") < 0)
		mark_unavailable(ib, "newidle_random_skips",
				 "the kernel has no proportional newidle balance (sched_domain.newidle_call, "
				 "6.19 and its stable backports)");
}

static int add_tables(struct idlebal *ib)
{
	struct tool *t = &ib->tool;
	struct idlebal_bpf *obj = ib->obj;
	const char *lb_tier = tool_tier(t, PASS);
	const struct hook *migrate = tool_hook(t, HOOK_SCHED_MIGRATE_TASK);
	struct table_spec const *overload[IDLEBAL_NR_SCOPES] = {
		&overload_llc_table, &overload_node_table, &overload_system_table,
	};
	struct bpf_map *overload_maps[IDLEBAL_NR_SCOPES] = {
		obj->maps.overload_llc, obj->maps.overload_node, obj->maps.overload_system,
	};
	void *overload_ctx[IDLEBAL_NR_SCOPES] = { &ib->cpus, ib, ib };

	if (tool_add_table(t, &ib->cpu_rows, &cpu_table, obj->maps.cpu_states, NULL, NULL,
			   tool_tier(t, HOOK_BIT(HOOK_SCHED_SWITCH)), false))
		return -1;
	if (!tool_has_hooks(t, PASS)) {
		tool_table_unavailable(t, domain_table.name, PASS);
		tool_table_unavailable(t, alb_table.name, PASS);
	} else if (ib->failed_why) {
		tool_table_unavailable_why(t, domain_table.name, ib->failed_why);
		tool_table_unavailable_why(t, alb_table.name, ib->failed_why);
	} else if (tool_add_table(t, &ib->domain_rows, &domain_table, obj->maps.domains,
				  obj->maps.table_drops, ib, lb_tier, false)) {
		return -1;
	} else if (!has_flavour(ib, HOOK_ACTIVE_BALANCE)) {
		tool_table_unavailable(t, alb_table.name, HOOK_BIT(HOOK_ACTIVE_BALANCE));
	} else if (tool_add_table(t, &ib->alb_rows, &alb_table, obj->maps.active_balance,
				  obj->maps.table_drops, ib,
				  tool_tier(t, HOOK_BIT(HOOK_ACTIVE_BALANCE)), false)) {
		return -1;
	}
	/* The classic record has no task_struct: no cause. */
	if (migrate->flavour != FLAVOUR_TP_BTF && migrate->flavour != FLAVOUR_RAW_TP)
		tool_table_unavailable_why(t, cause_table.name,
					   "the classic sched_migrate_task record names no task_struct "
					   "(tp_btf or raw_tp tells the causes apart)");
	else if (tool_add_table(t, &ib->cause_rows, &cause_table, obj->maps.migration_causes,
				NULL, NULL, flavour_name(migrate->flavour),
				/* exec balancing and active balancing are told apart by functions */
				!has_flavour(ib, HOOK_ACTIVE_BALANCE)))
		return -1;
	for (int s = 0; s < IDLEBAL_NR_SCOPES; s++)
		if (!has_flavour(ib, HOOK_SCHED_UPDATE_NR_RUNNING))
			tool_table_unavailable(t, overload[s]->name, RUNQUEUES);
		else if (tool_add_table(t, &ib->overload_rows[s], overload[s], overload_maps[s],
					NULL, overload_ctx[s], tool_tier(t, RUNQUEUES), false))
			return -1;
	if (!tool_has_hooks(t, KICKS) && !tool_has_hooks(t, KICKS_FN))
		tool_table_unavailable(t, ilb_table.name, KICKS);
	else if (ib->kicks_unknown)
		tool_table_unavailable_why(t, ilb_table.name, ib->kicks_why);
	else if (tool_add_table(t, &ib->ilb_rows, &ilb_table, obj->maps.ilb_cpus, NULL, NULL,
				tool_tier(t, tool_has_hooks(t, KICKS) ? KICKS : KICKS_FN), false))
		return -1;
	return 0;
}

/* -C leaves the other CPUs out on the BPF side: nothing to wait for there. */
static bool cpu_state_known(void *ctx, int cpu)
{
	const struct idlebal *ib = ctx;
	const struct common_opts *opts = ib->tool.opts;
	struct idlebal_rq_state s;
	__u32 key = cpu;

	if (opts->have_cpus && !cpumask_test(&opts->cpus, cpu))
		return true;
	return !bpf_map_lookup_elem(bpf_map__fd(ib->obj->maps.rq_states), &key, &s) && s.known;
}

/*
 * After the attach: the scheduler's LLCs and runqueues, each CPU's
 * overload groups, then every CPU's state, so that the groups' counts
 * are whole before the first window opens.
 */
static int learn_cpus(struct idlebal *ib, char *err, size_t errlen)
{
	int fd = bpf_map__fd(ib->obj->maps.rq_states), missing;

	if (!has_flavour(ib, HOOK_SCHED_UPDATE_NR_RUNNING)) {
		/* Every CPU switches once, so each one's idle state is known from the start. */
		cpus_visit(&ib->topo, NULL, NULL);
		return 0;
	}
	if (cpustate_learn(&ib->cpus, &ib->maps, &ib->topo, err, errlen))
		return -1;
	for (int cpu = 0; cpu < ib->topo.nr_cpu_ids; cpu++) {
		struct idlebal_rq_state s = { .llc = ib->cpus.llc_of_cpu[cpu],
					      .node = ib->topo.node_of_cpu[cpu] };
		__u32 key = cpu;

		if (bpf_map_update_elem(fd, &key, &s, BPF_ANY))
			return errmsg(err, errlen, "filling the runqueue state map failed: %s",
				      strerror(errno));
	}
	ib->obj->bss->overload_ready = 1;
	missing = cpus_visit(&ib->topo, cpu_state_known, ib);
	if (missing >= 0)
		return errmsg(err, errlen, "CPU %d never reported its runqueue's state", missing);
	return 0;
}

static const char doc[] =
	"Trace load balancing, idle and sched-idle balancing.\n"
	"\n"
	"EXAMPLES:\n"
	"    idlebal               # count until Ctrl-C\n"
	"    idlebal -C 0-3 1 10   # CPUs 0-3, ten 1-second reports\n"
	"    idlebal --per-cpu -d 5  # balance passes per CPU and domain\n"
	"    idlebal --json -d 5\n"
	"\n"
	"-p, --comm and -c select the migrated task; -C the destination CPU\n"
	"of a migration, the CPU whose domain is balanced, the CPUs whose idle\n"
	"time and overload state are followed.";

static struct tool_desc describe(void)
{
	return (struct tool_desc){
		.name = "idlebal",
		.what = "load balancing, migrations and idle time",
		.hooks = hooks,
		.nr_hooks = NR_HOOKS,
		.metrics = metrics,
		.nr_metrics = ARRAY_SIZE(metrics),
		.nr_counters = IDLEBAL_NR_COUNTERS,
	};
}

int main(int argc, char **argv)
{
	static struct idlebal ib;
	struct common_opts opts;
	struct tool_desc desc = describe();
	char err[512];
	int ret = 1;

	parse_tool_args_with(argc, argv, doc, &opts, idlebal_options, parse_idlebal,
			     &ib.args);
	if (opts.compare)
		return compare_from_opts(desc.name, &opts);
	if (preflight(desc.name, &opts))
		return 1;
	ib.obj = idlebal_bpf__open_opts(tool_open_opts(&opts));
	if (!ib.obj) {
		fprintf(stderr, "idlebal: opening the BPF object failed\n");
		return 1;
	}
	selection_from_opts(&ib.obj->rodata->schedscan_filter, &opts);
	ib.maps = CPUSTATE_MAPS(ib.obj);
	if (tool_init(&ib.tool, &desc, &opts) || tool_choose_hooks(&ib.tool, ib.obj->obj))
		goto out;
	mark_kernel_gaps(&ib);
	if (setup_before_load(&ib, err, sizeof(err)))
		goto fail;
	if (tool_load(&ib.tool, ib.obj->skeleton, ib.obj->maps.counters) || add_tables(&ib))
		goto out;
	if (opts.list_metrics) {
		ret = tool_list_metrics(&ib.tool);
		goto out;
	}
	if (tool_attach(&ib.tool))
		goto out;
	if (learn_cpus(&ib, err, sizeof(err)))
		goto fail;
	ret = tool_run(&ib.tool);
	goto out;
fail:
	fprintf(stderr, "idlebal: %s\n", err);
out:
	tool_destroy(&ib.tool);
	idlebal_bpf__destroy(ib.obj);
	topology_free(&ib.topo);
	cpustate_free(&ib.cpus);
	if (ib.have_schedstat)
		schedstat_free(&ib.schedstat_base);
	return ret;
}
