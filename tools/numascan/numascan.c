// SPDX-License-Identifier: GPL-2.0
/*
 * numascan: NUMA balancing.
 *
 * This first slice counts user page faults (page_fault_user), VMAs the
 * NUMA scanner skipped (sched_skip_vma_numa, 6.7+; tracepoint tier) and
 * NUMA hint faults (task_numa_fault(); fentry or kprobe tier), per
 * interval. See docs/metrics.md.
 */
#include <stddef.h>
#include <stdio.h>
#include "compare.h"
#include "preflight.h"
#include "tool.h"
#include "numascan.h"
#include "numascan.skel.h"
#include "util.h"

enum numascan_hook { HOOK_PAGE_FAULT_USER, HOOK_SKIP_VMA, HOOK_TASK_NUMA_FAULT };

static const struct hook_spec hooks[] = {
	[HOOK_PAGE_FAULT_USER] = { .name = "page_fault_user",
				   .kind = HOOK_TRACEPOINT,
				   .targets = { "page_fault_user" } },
	[HOOK_SKIP_VMA] = { .name = "sched_skip_vma_numa",
			    .kind = HOOK_TRACEPOINT,
			    .targets = { "sched_skip_vma_numa" },
			    .optional = true },
	[HOOK_TASK_NUMA_FAULT] = { .name = "task_numa_fault",
				   .kind = HOOK_FUNCTION,
				   .targets = { "task_numa_fault" } },
};

static const struct metric_spec metrics[] = {
	{ .name = "user_page_faults",
	  .counter = NUMASCAN_USER_PAGE_FAULTS,
	  .needs = HOOK_BIT(HOOK_PAGE_FAULT_USER) },
	{ .name = "vma_skips", .counter = NUMASCAN_VMA_SKIPS, .needs = HOOK_BIT(HOOK_SKIP_VMA) },
	{ .name = "numa_hint_faults",
	  .counter = NUMASCAN_HINT_FAULTS,
	  .needs = HOOK_BIT(HOOK_TASK_NUMA_FAULT) },
};

/* Per process (the faulting or scanning task's), most faults first. */
static const struct table_column process_columns[] = {
	{ "user_page_faults", "PAGE_FAULTS", 12, COLUMN_COUNT, NP_USER_PAGE_FAULTS, 0 },
	{ "vma_skips", "VMA_SKIPS", 10, COLUMN_COUNT, NP_VMA_SKIPS, 0 },
};

static const struct table_spec process_table = {
	.name = "processes", TABLE_BY_PROCESS,
	.source = TABLE_COUNTERS,
	.value_offset = offsetof(struct numascan_process, counts), .nr_values = NP_NR,
	.columns = process_columns, .nr_columns = ARRAY_SIZE(process_columns),
	.sort_value = NP_USER_PAGE_FAULTS, .text_rows = 10,
	.drop_slot = NUMASCAN_PROCESS_DROPS,
};

static const char doc[] =
	"Trace NUMA balancing: hint faults, VMA scanning, migrations.\n"
	"\n"
	"EXAMPLES:\n"
	"    numascan              # count until Ctrl-C\n"
	"    numascan -p 185 1     # process 185, 1-second reports\n"
	"    numascan --json -d 10\n"
	"\n"
	"-p, --comm and -c select the faulting (or scanning) task; -C the CPU.";

static const struct tool_desc desc = {
	.name = "numascan",
	.what = "page faults, NUMA hint faults and VMA scan skips",
	.hooks = hooks,
	.nr_hooks = ARRAY_SIZE(hooks),
	.metrics = metrics,
	.nr_metrics = ARRAY_SIZE(metrics),
	.nr_counters = NUMASCAN_NR_COUNTERS,
};

int main(int argc, char **argv)
{
	struct common_opts opts;
	struct numascan_bpf *obj;
	struct table processes;
	struct tool tool;
	int ret = 1;

	parse_tool_args(argc, argv, doc, &opts);
	if (opts.compare)
		return compare_from_opts(desc.name, &opts);
	if (preflight(desc.name, &opts))
		return 1;
	obj = numascan_bpf__open_opts(tool_open_opts(&opts));
	if (!obj) {
		fprintf(stderr, "numascan: opening the BPF object failed\n");
		return 1;
	}
	selection_from_opts(&obj->rodata->schedscan_filter, &opts);
	if (tool_init(&tool, &desc, &opts) || tool_choose_hooks(&tool, obj->obj) ||
	    tool_load(&tool, obj->skeleton, obj->maps.counters) ||
	    tool_add_table(&tool, &processes, &process_table, obj->maps.process_counters,
			   obj->maps.table_drops, NULL,
			   tool_tier(&tool, HOOK_BIT(HOOK_PAGE_FAULT_USER)), false) ||
	    tool_attach(&tool))
		goto out;
	ret = tool_run(&tool);
out:
	tool_destroy(&tool);
	numascan_bpf__destroy(obj);
	return ret;
}

