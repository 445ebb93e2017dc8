// SPDX-License-Identifier: GPL-2.0
/*
 * idlebal: load balancing, idle and sched-idle balancing.
 *
 * This first slice counts task migrations (sched_migrate_task,
 * tracepoint tier) and load_balance() calls (sched_balance_rq() since
 * 6.10; fentry or kprobe tier), per interval. See docs/metrics.md.
 */
#include "counter_tool.h"
#include "idlebal.h"
#include "idlebal.skel.h"
#include "util.h"

enum idlebal_hook { HOOK_SCHED_MIGRATE_TASK, HOOK_LOAD_BALANCE };

static const struct hook_spec hooks[] = {
	[HOOK_SCHED_MIGRATE_TASK] = { .name = "sched_migrate_task",
				      .kind = HOOK_TRACEPOINT,
				      .targets = { "sched_migrate_task" },
				      .category = "sched" },
	[HOOK_LOAD_BALANCE] = { .name = "load_balance", .kind = HOOK_FUNCTION,
				.targets = { "sched_balance_rq",
					     "load_balance" } },
};

static const struct counter_metric metrics[] = {
	{ .name = "migrations",
	  .counter = IDLEBAL_MIGRATIONS,
	  .hook = HOOK_SCHED_MIGRATE_TASK },
	{ .name = "load_balance_calls",
	  .counter = IDLEBAL_LOAD_BALANCE_CALLS,
	  .hook = HOOK_LOAD_BALANCE },
};

static const char doc[] =
	"Trace load balancing, idle and sched-idle balancing.\n"
	"\n"
	"EXAMPLES:\n"
	"    idlebal               # count until Ctrl-C\n"
	"    idlebal -C 0-3 1 10   # CPUs 0-3, ten 1-second reports\n"
	"    idlebal --json -d 5\n"
	"\n"
	"-p, --comm and -c select the migrated task; -C the destination CPU\n"
	"of a migration and the balancing CPU of load_balance().";

COUNTER_TOOL_MAIN(idlebal, ((struct counter_tool){
	.tool = "idlebal",
	.what = "task migrations and load_balance() calls",
	.hooks = hooks,
	.nr_hooks = ARRAY_SIZE(hooks),
	.metrics = metrics,
	.nr_metrics = ARRAY_SIZE(metrics),
	.nr_counters = IDLEBAL_NR_COUNTERS,
}), doc)
