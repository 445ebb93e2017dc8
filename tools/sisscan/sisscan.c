// SPDX-License-Identifier: GPL-2.0
/*
 * sisscan: the wakeup fast path, select_idle_sibling() (SIS).
 *
 * This first slice counts wakeups (sched_waking, tracepoint tier) and
 * calls of select_task_rq_fair(), where SIS runs (fentry or kprobe tier),
 * per interval. See docs/metrics.md.
 */
#include "counter_tool.h"
#include "sisscan.h"
#include "sisscan.skel.h"
#include "util.h"

enum sisscan_hook { HOOK_SCHED_WAKING, HOOK_SELECT_TASK_RQ_FAIR };

static const struct hook_spec hooks[] = {
	[HOOK_SCHED_WAKING] = { .name = "sched_waking", .kind = HOOK_TRACEPOINT,
				.targets = { "sched_waking" },
				.category = "sched" },
	[HOOK_SELECT_TASK_RQ_FAIR] = { .name = "select_task_rq_fair",
				       .kind = HOOK_FUNCTION,
				       .targets = { "select_task_rq_fair" } },
};

static const struct counter_metric metrics[] = {
	{ "wakeups", SISSCAN_WAKEUPS, HOOK_SCHED_WAKING },
	{ "select_task_rq_fair_calls", SISSCAN_SELECT_CALLS,
	  HOOK_SELECT_TASK_RQ_FAIR },
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
