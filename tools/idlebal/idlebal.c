// SPDX-License-Identifier: GPL-2.0
/*
 * idlebal: load balancing, idle and sched-idle balancing.
 *
 * This first slice counts task migrations (sched_migrate_task,
 * tracepoint tier) and load_balance() calls (sched_balance_rq() since
 * 6.10; fentry or kprobe tier), per interval. See docs/metrics.md.
 */
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "cpustate.h"
#include "preflight.h"
#include "tool.h"
#include "topology.h"
#include "idlebal.h"
#include "idlebal.skel.h"
#include "util.h"

enum idlebal_hook { HOOK_SCHED_MIGRATE_TASK, HOOK_LOAD_BALANCE, HOOK_SCHED_SWITCH };

static const struct hook_spec hooks[] = {
	[HOOK_SCHED_MIGRATE_TASK] = { .name = "sched_migrate_task",
				      .kind = HOOK_TRACEPOINT,
				      .targets = { "sched_migrate_task" },
				      .category = "sched" },
	[HOOK_LOAD_BALANCE] = { .name = "load_balance", .kind = HOOK_FUNCTION,
				.targets = { "sched_balance_rq",
					     "load_balance" } },
	[HOOK_SCHED_SWITCH] = { .name = "sched_switch", .kind = HOOK_TRACEPOINT,
				.targets = { "sched_switch" }, .category = "sched" },
};

static const struct metric_spec metrics[] = {
	{ .name = "migrations",
	  .counter = IDLEBAL_MIGRATIONS,
	  .needs = HOOK_BIT(HOOK_SCHED_MIGRATE_TASK) },
	{ .name = "load_balance_calls",
	  .counter = IDLEBAL_LOAD_BALANCE_CALLS,
	  .needs = HOOK_BIT(HOOK_LOAD_BALANCE) },
	{ .name = "idle_episode_ns", .counter = IDLEBAL_IDLE_EPISODE_HIST,
	  .needs = HOOK_BIT(HOOK_SCHED_SWITCH), .nr_slots = IDLEBAL_TIME_SLOTS,
	  .kind = HIST_LOG2, .has_sum = true, .unit = "nsecs",
	  .help = "lengths of the idle episodes (a CPU running its idle task) that ended" },
};

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

static const char doc[] =
	"Trace load balancing, idle and sched-idle balancing.\n"
	"\n"
	"EXAMPLES:\n"
	"    idlebal               # count until Ctrl-C\n"
	"    idlebal -C 0-3 1 10   # CPUs 0-3, ten 1-second reports\n"
	"    idlebal --json -d 5\n"
	"\n"
	"-p, --comm and -c select the migrated task; -C the destination CPU\n"
	"of a migration, the balancing CPU of load_balance() and the CPUs\n"
	"whose idle time is shown.";

static const struct tool_desc desc = {
	.name = "idlebal",
	.what = "migrations, load_balance() calls and idle time",
	.hooks = hooks,
	.nr_hooks = ARRAY_SIZE(hooks),
	.metrics = metrics,
	.nr_metrics = ARRAY_SIZE(metrics),
	.nr_counters = IDLEBAL_NR_COUNTERS,
};

int main(int argc, char **argv)
{
	struct topology topo = {};
	struct common_opts opts;
	struct idlebal_bpf *obj;
	struct table cpus;
	struct tool tool;
	char err[512];
	int ret = 1;

	parse_tool_args(argc, argv, doc, &opts);
	if (preflight(desc.name, &opts))
		return 1;
	obj = idlebal_bpf__open_opts(tool_open_opts(&opts));
	if (!obj) {
		fprintf(stderr, "idlebal: opening the BPF object failed\n");
		return 1;
	}
	selection_from_opts(&obj->rodata->schedscan_filter, &opts);
	if (tool_init(&tool, &desc, &opts) || tool_choose_hooks(&tool, obj->obj))
		goto out;
	if (topology_load(&topo, opts.sysfs_root, err, sizeof(err)) ||
	    bpf_map__set_max_entries(obj->maps.cpu_states, topo.nr_cpu_ids)) {
		fprintf(stderr, "idlebal: %s\n", err);
		goto out;
	}
	if (tool_load(&tool, obj->skeleton, obj->maps.counters) ||
	    tool_add_table(&tool, &cpus, &cpu_table, obj->maps.cpu_states, NULL, NULL,
			   tool_tier(&tool, HOOK_BIT(HOOK_SCHED_SWITCH)), false) ||
	    tool_attach(&tool))
		goto out;
	/* Every CPU switches once, so each one's idle state is known from the start. */
	cpus_visit(&topo, NULL, NULL);
	ret = tool_run(&tool);
out:
	tool_destroy(&tool);
	idlebal_bpf__destroy(obj);
	topology_free(&topo);
	return ret;
}
