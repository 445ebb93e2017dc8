// SPDX-License-Identifier: GPL-2.0
/*
 * sisscan: the wakeup fast path, select_idle_sibling() (SIS).
 *
 * fentry/kprobe tiers: each wakeup's select_task_rq_fair() call, decoded
 * into SIS stages from the available_idle_cpu() and cpus_share_cache()
 * calls it makes (docs/sis-decoding.md): outcome classes, CPUs probed,
 * domain-scan depth, SIS_UTIL's limit, Mel Gorman's sis_* counters.
 * Every tier: whether the chosen CPU was busy while an allowed CPU of
 * its LLC was idle (missed_idle). Tracepoint tier: the same counters
 * estimated from sched_waking / sched_migrate_task / sched_wakeup.
 * Every number is defined in docs/metrics.md.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "counter_tool.h"
#include "cpustate.h"
#include "sisscan.h"
#include "sisscan.skel.h"
#include "topology.h"
#include "util.h"

enum sisscan_hook {
	HOOK_SCHED_WAKING,
	HOOK_SELECT_TASK_RQ_FAIR,
	HOOK_AVAILABLE_IDLE_CPU,
	HOOK_CPUS_SHARE_CACHE,
	HOOK_SCHED_MIGRATE_TASK,
	HOOK_SCHED_WAKEUP,
	HOOK_SCHED_UPDATE_NR_RUNNING,
};

static const struct hook_spec hooks[] = {
	[HOOK_SCHED_WAKING] = { .name = "sched_waking", .kind = HOOK_TRACEPOINT,
				.targets = { "sched_waking" },
				.category = "sched" },
	[HOOK_SELECT_TASK_RQ_FAIR] = { .name = "select_task_rq_fair",
				       .kind = HOOK_FUNCTION,
				       .targets = { "select_task_rq_fair" } },
	/* Real symbols, unlike the inlined select_idle_*(): docs/sis-decoding.md. */
	[HOOK_AVAILABLE_IDLE_CPU] = { .name = "available_idle_cpu",
				      .kind = HOOK_FUNCTION,
				      .targets = { "available_idle_cpu" } },
	[HOOK_CPUS_SHARE_CACHE] = { .name = "cpus_share_cache",
				    .kind = HOOK_FUNCTION,
				    .targets = { "cpus_share_cache" } },
	[HOOK_SCHED_MIGRATE_TASK] = {
		.name = "sched_migrate_task", .kind = HOOK_TRACEPOINT,
		.targets = { "sched_migrate_task" }, .category = "sched",
		.optional = true,
		.needed_without = 1 + HOOK_SELECT_TASK_RQ_FAIR },
	[HOOK_SCHED_WAKEUP] = {
		.name = "sched_wakeup", .kind = HOOK_TRACEPOINT,
		.targets = { "sched_wakeup" }, .category = "sched",
		.optional = true,
		.needed_without = 1 + HOOK_SELECT_TASK_RQ_FAIR },
	/* Learns each CPU's runqueue at start-up, then detached. */
	[HOOK_SCHED_UPDATE_NR_RUNNING] = {
		.name = "sched_update_nr_running_tp", .kind = HOOK_TRACEPOINT,
		.targets = { "sched_update_nr_running_tp" }, .optional = true },
};

/* Decoded at select_task_rq_fair(); estimated from tracepoints otherwise. */
#define DECODED(metric, slot, tp_slot)                                         \
	{ .name = metric, .counter = slot, .hook = HOOK_CPUS_SHARE_CACHE,      \
	  .has_fallback = true, .fallback_hook = HOOK_SCHED_WAKEUP,            \
	  .fallback_counter = tp_slot }
#define OUTCOME(metric, outcome)                                               \
	{ .name = metric, .counter = SISSCAN_OUTCOME + outcome,                \
	  .hook = HOOK_CPUS_SHARE_CACHE }
#define SIS_COUNT(metric, slot)                                                \
	{ .name = metric, .counter = slot, .hook = HOOK_CPUS_SHARE_CACHE }
/* Runqueue state: needs the runqueues learnt at start-up. */
#define PLACED(metric, slot, tp_slot)                                          \
	{ .name = metric, .counter = slot, .hook = HOOK_SELECT_TASK_RQ_FAIR,   \
	  .has_fallback = true, .fallback_hook = HOOK_SCHED_WAKEUP,            \
	  .fallback_counter = tp_slot,                                         \
	  .needs = 1 + HOOK_SCHED_UPDATE_NR_RUNNING }
#define TP_CLASS(metric, slot)                                                 \
	{ .name = metric, .counter = slot, .hook = HOOK_SCHED_WAKEUP }
#define RATIO(metric, a, b, c, d)                                              \
	{ .name = metric, .hook = HOOK_CPUS_SHARE_CACHE, .ratio = { a, b, c, d } }
#define COUNT_HIST(metric, slot, hook_index, what)                             \
	{ .name = metric, .counter = slot, .hook = hook_index,                 \
	  .nr_slots = SISSCAN_COUNT_SLOTS, .kind = HIST_LINEAR, .counts = true, \
	  .unit = what }

static const struct counter_metric metrics[] = {
	{ .name = "wakeups", .counter = SISSCAN_WAKEUPS, .hook = HOOK_SCHED_WAKING },
	{ .name = "select_task_rq_fair_calls",
	  .counter = SISSCAN_SELECT_CALLS,
	  .hook = HOOK_SELECT_TASK_RQ_FAIR },
	DECODED("sis_search", SISSCAN_SIS_SEARCH, SISSCAN_TP_SIS_SEARCH),
	OUTCOME("select_without_sis", SIS_OUT_NO_SIS),
	{ .name = "idle_probes",
	  .counter = SISSCAN_IDLE_PROBES,
	  .hook = HOOK_AVAILABLE_IDLE_CPU },
	OUTCOME("sis_target_idle", SIS_OUT_TARGET_IDLE),
	OUTCOME("sis_prev_idle", SIS_OUT_PREV_IDLE),
	OUTCOME("sis_recent_hit", SIS_OUT_RECENT_HIT),
	OUTCOME("sis_smt_hit", SIS_OUT_SMT_HIT),
	OUTCOME("sis_domain_hit", SIS_OUT_DOMAIN_HIT),
	OUTCOME("sis_domain_failed", SIS_OUT_DOMAIN_FAILED),
	OUTCOME("sis_scan_skipped", SIS_OUT_SCAN_SKIPPED),
	OUTCOME("sis_undecoded", SIS_OUT_UNDECODED),
	SIS_COUNT("sis_recent_miss", SISSCAN_SIS_RECENT_MISS),
	DECODED("sis_domain_search", SISSCAN_SIS_DOMAIN_SEARCH,
		SISSCAN_TP_DOMAIN_SEARCH),
	DECODED("sis_scanned", SISSCAN_SIS_SCANNED, SISSCAN_TP_SCANNED),
	SIS_COUNT("sis_domain_scanned", SISSCAN_SIS_DOMAIN_SCANNED),
	DECODED("sis_failed", SISSCAN_SIS_FAILED, SISSCAN_TP_FAILED),
	SIS_COUNT("sis_util_skipped", SISSCAN_SIS_UTIL_SKIPPED),
	SIS_COUNT("sis_util_limited", SISSCAN_SIS_UTIL_LIMITED),
	PLACED("placements", SISSCAN_PLACEMENTS, SISSCAN_TP_PLACEMENTS),
	PLACED("placed_unoccupied", SISSCAN_PLACED_UNOCCUPIED,
	       SISSCAN_TP_PLACED_UNOCCUPIED),
	PLACED("missed_idle", SISSCAN_MISSED_IDLE, SISSCAN_TP_MISSED_IDLE),
	TP_CLASS("placed_prev", SISSCAN_TP_PREV),
	TP_CLASS("placed_waker", SISSCAN_TP_WAKER),
	TP_CLASS("placed_recent", SISSCAN_TP_RECENT),
	TP_CLASS("placed_other", SISSCAN_TP_OTHER),
	TP_CLASS("placements_lost", SISSCAN_TP_LOST),
	RATIO("search_efficiency_pct", "sis_search", "sis_failed",
	      "sis_scanned", NULL),
	RATIO("domain_search_efficiency_pct", "sis_domain_search", "sis_failed",
	      "sis_domain_scanned", NULL),
	RATIO("fast_success_rate_pct", "sis_search", "sis_domain_search",
	      "sis_search", NULL),
	RATIO("success_rate_pct", "sis_search", "sis_failed", "sis_search", NULL),
	RATIO("recent_success_rate_pct", "sis_recent_hit", NULL,
	      "sis_recent_hit", "sis_recent_miss"),
	RATIO("missed_idle_pct", "missed_idle", NULL, "placements", NULL),
	COUNT_HIST("idle_probes_per_wakeup", SISSCAN_PROBES_HIST,
		   HOOK_AVAILABLE_IDLE_CPU, "probes"),
	{ .name = "scan_depth", .counter = SISSCAN_DEPTH_HIST,
	  .hook = HOOK_CPUS_SHARE_CACHE, .nr_slots = SISSCAN_COUNT_SLOTS,
	  .kind = HIST_LINEAR, .counts = true, .unit = "cpus",
	  .has_fallback = true, .fallback_hook = HOOK_SCHED_WAKEUP,
	  .fallback_counter = SISSCAN_TP_DEPTH_HIST },
	COUNT_HIST("nr_idle_scan", SISSCAN_NR_IDLE_SCAN_HIST,
		   HOOK_CPUS_SHARE_CACHE, "cpus"),
	{ .name = "select_time_ns",
	  .counter = SISSCAN_TIME_HIST,
	  .hook = HOOK_SELECT_TASK_RQ_FAIR,
	  .nr_slots = SISSCAN_TIME_SLOTS,
	  .kind = HIST_LOG2,
	  .unit = "nsecs" },
};

struct sisscan {
	struct sisscan_bpf *obj;
	struct topology topo;
	struct cpustate cpus;
	struct cpustate_maps maps;
};

static int sisscan_before_load(void *user, const struct hook *chosen,
			       const struct common_opts *opts, char *err,
			       size_t errlen)
{
	struct sisscan *ss = user;

	if (topology_load(&ss->topo, opts->sysfs_root, err, errlen))
		return -1;
	ss->obj->rodata->nr_cpu_words = cpustate_words(ss->topo.nr_cpu_ids);
	ss->obj->rodata->tp_placement =
		chosen[HOOK_SELECT_TASK_RQ_FAIR].flavour == FLAVOUR_NONE &&
		chosen[HOOK_SCHED_WAKEUP].flavour != FLAVOUR_NONE;
	return cpustate_size(&ss->maps, ss->topo.nr_cpu_ids, err, errlen);
}

/* SMT cores (sysfs) for the decoder's "sibling of prev" test (S7). */
static int sisscan_after_load(void *user, const struct common_opts *opts,
			      char *err, size_t errlen)
{
	struct sisscan *ss = user;
	int fd = bpf_map__fd(ss->obj->maps.smt_core);

	(void)opts;
	for (int cpu = 0; cpu < ss->topo.nr_cpu_ids; cpu++) {
		__u32 key = cpu;
		__s32 core = ss->topo.core_of_cpu[cpu];

		if (bpf_map_update_elem(fd, &key, &core, BPF_ANY))
			return errmsg(err, errlen, "filling the SMT map failed: %s",
				      strerror(errno));
	}
	return 0;
}

/* The scheduler's LLCs and runqueues, then the learner goes. */
static int sisscan_after_attach(void *user, struct hook *attached,
				const struct common_opts *opts, char *err,
				size_t errlen)
{
	struct sisscan *ss = user;
	int ret;

	(void)opts;
	/* Without it, the runqueue-based metrics say "not measured". */
	if (attached[HOOK_SCHED_UPDATE_NR_RUNNING].flavour == FLAVOUR_NONE)
		return 0;
	ret = cpustate_learn(&ss->cpus, &ss->maps, &ss->topo, err, errlen);
	hook_detach(&attached[HOOK_SCHED_UPDATE_NR_RUNNING]);
	return ret;
}

static const char doc[] =
	"Trace the wakeup fast path, select_idle_sibling() (SIS).\n"
	"\n"
	"EXAMPLES:\n"
	"    sisscan               # SIS outcomes and scan depth until Ctrl-C\n"
	"    sisscan 1 5           # five 1-second reports\n"
	"    sisscan -p 185 -d 10  # wakeups of process 185 for 10 s\n"
	"    sisscan --linear 5    # scan depth in linear slots\n"
	"    sisscan --json --mode tracepoint 1\n"
	"\n"
	"-p, --comm and -c select the woken task; -C the CPU the event runs on.\n"
	"In the tracepoint tier the SIS counters are estimates (marked ~).";

int main(int argc, char **argv)
{
	struct counter_tool tool = {
		.tool = "sisscan",
		.what = "wakeups and select_idle_sibling()",
		.hooks = hooks,
		.nr_hooks = ARRAY_SIZE(hooks),
		.metrics = metrics,
		.nr_metrics = ARRAY_SIZE(metrics),
		.nr_counters = SISSCAN_NR_COUNTERS,
		.before_load = sisscan_before_load,
		.after_load = sisscan_after_load,
		.after_attach = sisscan_after_attach,
	};
	struct sisscan ss = {};
	struct common_opts opts;
	struct sisscan_bpf *obj;
	int ret;

	parse_tool_args(argc, argv, doc, &opts);
	if (preflight(tool.tool, &opts))
		return 1;
	obj = sisscan_bpf__open();
	if (!obj) {
		fprintf(stderr, "sisscan: opening the BPF object failed\n");
		return 1;
	}
	filter_from_opts(&obj->rodata->schedscan_filter, &opts);
	tool.counters = obj->maps.counters;
	ss.obj = obj;
	ss.maps = (struct cpustate_maps){
		.rq_of_cpu = obj->maps.rq_of_cpu,
		.llc_of_cpu = obj->maps.llc_of_cpu,
		.llc_cpu_count = obj->maps.llc_cpu_count,
		.llc_span_words = obj->maps.llc_span_words,
		.llc_first = obj->maps.llc_first,
		.llc_cpus = obj->maps.llc_cpus,
	};
	tool.user = &ss;
	ret = counter_tool_main(&tool, &opts, obj->skeleton);
	sisscan_bpf__destroy(obj);
	topology_free(&ss.topo);
	cpustate_free(&ss.cpus);
	return ret;
}
