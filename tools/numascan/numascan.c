// SPDX-License-Identifier: GPL-2.0
/*
 * numascan: NUMA balancing.
 *
 * This first slice counts user page faults (page_fault_user), VMAs the
 * NUMA scanner skipped (sched_skip_vma_numa, 6.7+; tracepoint tier) and
 * NUMA hint faults (task_numa_fault(); fentry or kprobe tier), per
 * interval. See docs/metrics.md.
 */
#include "counter_tool.h"
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

static const struct counter_metric metrics[] = {
	{ .name = "user_page_faults",
	  .counter = NUMASCAN_USER_PAGE_FAULTS,
	  .hook = HOOK_PAGE_FAULT_USER },
	{ .name = "vma_skips", .counter = NUMASCAN_VMA_SKIPS, .hook = HOOK_SKIP_VMA },
	{ .name = "numa_hint_faults",
	  .counter = NUMASCAN_HINT_FAULTS,
	  .hook = HOOK_TASK_NUMA_FAULT },
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

COUNTER_TOOL_MAIN(numascan, ((struct counter_tool){
	.tool = "numascan",
	.what = "page faults, NUMA hint faults and VMA scan skips",
	.hooks = hooks,
	.nr_hooks = ARRAY_SIZE(hooks),
	.metrics = metrics,
	.nr_metrics = ARRAY_SIZE(metrics),
	.nr_counters = NUMASCAN_NR_COUNTERS,
}), doc)
