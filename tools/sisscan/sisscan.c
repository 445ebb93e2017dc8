// SPDX-License-Identifier: GPL-2.0
/*
 * sisscan: the wakeup fast path, select_idle_sibling() (SIS).
 *
 * Counts wakeups (sched_waking, tracepoint tier) and, in the fentry or
 * kprobe tier, the select_task_rq_fair() calls where SIS runs, the
 * available_idle_cpu() probes they make and the time they take. See
 * docs/metrics.md.
 */
#include "counter_tool.h"
#include "sisscan.h"
#include "sisscan.skel.h"
#include "util.h"

enum sisscan_hook {
	HOOK_SCHED_WAKING,
	HOOK_SELECT_TASK_RQ_FAIR,
	HOOK_AVAILABLE_IDLE_CPU,
};

static const struct hook_spec hooks[] = {
	[HOOK_SCHED_WAKING] = { .name = "sched_waking", .kind = HOOK_TRACEPOINT,
				.targets = { "sched_waking" },
				.category = "sched" },
	[HOOK_SELECT_TASK_RQ_FAIR] = { .name = "select_task_rq_fair",
				       .kind = HOOK_FUNCTION,
				       .targets = { "select_task_rq_fair" } },
	/* Real symbol, unlike the inlined select_idle_*(): docs/sis-decoding.md. */
	[HOOK_AVAILABLE_IDLE_CPU] = { .name = "available_idle_cpu",
				      .kind = HOOK_FUNCTION,
				      .targets = { "available_idle_cpu" } },
};

static const struct counter_metric metrics[] = {
	{ .name = "wakeups", .counter = SISSCAN_WAKEUPS, .hook = HOOK_SCHED_WAKING },
	{ .name = "select_task_rq_fair_calls",
	  .counter = SISSCAN_SELECT_CALLS,
	  .hook = HOOK_SELECT_TASK_RQ_FAIR },
	{ .name = "sis_search",
	  .counter = SISSCAN_SIS_SEARCH,
	  .hook = HOOK_SELECT_TASK_RQ_FAIR },
	{ .name = "idle_probes",
	  .counter = SISSCAN_IDLE_PROBES,
	  .hook = HOOK_AVAILABLE_IDLE_CPU },
	{ .name = "idle_probes_per_wakeup",
	  .counter = SISSCAN_PROBES_HIST,
	  .hook = HOOK_AVAILABLE_IDLE_CPU,
	  .nr_slots = SISSCAN_PROBE_SLOTS,
	  .kind = HIST_LINEAR,
	  .unit = "probes" },
	{ .name = "select_time_ns",
	  .counter = SISSCAN_TIME_HIST,
	  .hook = HOOK_SELECT_TASK_RQ_FAIR,
	  .nr_slots = SISSCAN_TIME_SLOTS,
	  .kind = HIST_LOG2,
	  .unit = "nsecs" },
};

static const char doc[] =
	"Trace the wakeup fast path, select_idle_sibling() (SIS).\n"
	"\n"
	"EXAMPLES:\n"
	"    sisscan               # count wakeups until Ctrl-C\n"
	"    sisscan 1 5           # five 1-second reports\n"
	"    sisscan -p 185 -d 10  # wakeups of process 185 for 10 s\n"
	"    sisscan --json --mode fentry 1\n"
	"\n"
	"-p, --comm and -c select the woken task; -C the CPU the event runs on.";

COUNTER_TOOL_MAIN(sisscan, ((struct counter_tool){
	.tool = "sisscan",
	.what = "wakeups and select_task_rq_fair() calls",
	.hooks = hooks,
	.nr_hooks = ARRAY_SIZE(hooks),
	.metrics = metrics,
	.nr_metrics = ARRAY_SIZE(metrics),
	.nr_counters = SISSCAN_NR_COUNTERS,
}), doc)
