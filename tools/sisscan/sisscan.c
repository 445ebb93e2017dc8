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
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "audit.h"
#include "compare.h"
#include "cpustate.h"
#include "events.h"
#include "preflight.h"
#include "probe.h"
#include "sisscan.h"
#include "sisscan.skel.h"
#include "tool.h"
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
	HOOK_HRTIMER_EXPIRE_ENTRY,
	HOOK_SCHED_SWITCH,
	HOOK_LOAD_BALANCE,
	HOOK_SELECT_IDLE_CORE,
	NR_HOOKS,
};

/* Decoded at select_task_rq_fair() from the calls it makes. */
#define DECODE (HOOK_BIT(HOOK_SELECT_TASK_RQ_FAIR) | HOOK_BIT(HOOK_AVAILABLE_IDLE_CPU) | \
		HOOK_BIT(HOOK_CPUS_SHARE_CACHE))

static const struct hook_spec hook_table[NR_HOOKS] = {
	[HOOK_SCHED_WAKING] = { .name = "sched_waking", .kind = HOOK_TRACEPOINT,
				.targets = { "sched_waking" },
				.category = "sched" },
	[HOOK_SELECT_TASK_RQ_FAIR] = { .name = "select_task_rq_fair",
				       .kind = HOOK_FUNCTION,
				       .targets = { "select_task_rq_fair" } },
	/*
	 * Real symbols, unlike the inlined select_idle_*(): docs/sis-decoding.md.
	 * 7.3 inlines available_idle_cpu() and asks choose_idle_cpu(cpu, p),
	 * available or sched-idle, once per candidate: the same sequence.
	 */
	[HOOK_AVAILABLE_IDLE_CPU] = { .name = "available_idle_cpu",
				      .kind = HOOK_FUNCTION,
				      .targets = { "available_idle_cpu",
						   "choose_idle_cpu" } },
	[HOOK_CPUS_SHARE_CACHE] = { .name = "cpus_share_cache",
				    .kind = HOOK_FUNCTION,
				    .targets = { "cpus_share_cache" } },
	[HOOK_SCHED_MIGRATE_TASK] = {
		.name = "sched_migrate_task", .kind = HOOK_TRACEPOINT,
		.targets = { "sched_migrate_task" }, .category = "sched",
		.optional = true, .redundant_with = DECODE },
	[HOOK_SCHED_WAKEUP] = {
		.name = "sched_wakeup", .kind = HOOK_TRACEPOINT,
		.targets = { "sched_wakeup" }, .category = "sched",
		.optional = true, .redundant_with = DECODE },
	/* Learns each CPU's runqueue at start-up, then detached. */
	[HOOK_SCHED_UPDATE_NR_RUNNING] = {
		.name = "sched_update_nr_running_tp", .kind = HOOK_TRACEPOINT,
		.targets = { "sched_update_nr_running_tp" }, .optional = true },
	/* Filter audit: the modelled filters' updates (tick, idle entry). */
	[HOOK_HRTIMER_EXPIRE_ENTRY] = {
		.name = "hrtimer_expire_entry", .kind = HOOK_TRACEPOINT,
		.targets = { "hrtimer_expire_entry" }, .category = "timer" },
	[HOOK_SCHED_SWITCH] = {
		.name = "sched_switch", .kind = HOOK_TRACEPOINT,
		.targets = { "sched_switch" }, .category = "sched" },
	/* The v4 filter model's updates: SMT-level balancing (renamed in 6.10). */
	[HOOK_LOAD_BALANCE] = {
		.name = "load_balance", .kind = HOOK_FUNCTION,
		.targets = { "sched_balance_rq", "load_balance" }, .optional = true },
	/*
	 * 7.3 keeps select_idle_core() a function and inlines the
	 * available_idle_cpu() calls it makes on a core's siblings: they are
	 * replayed at its entry. Left out where available_idle_cpu() is seen.
	 */
	[HOOK_SELECT_IDLE_CORE] = {
		.name = "select_idle_core", .kind = HOOK_FUNCTION,
		.targets = { "select_idle_core" }, .optional = true },
};

/* The tracepoint tier's estimate: sched_waking, then where the wakee went. */
#define TP_PLACEMENT (HOOK_BIT(HOOK_SCHED_WAKING) | HOOK_BIT(HOOK_SCHED_WAKEUP))
/* Runqueue state: the runqueues learnt at start-up. */
#define RUNQUEUES HOOK_BIT(HOOK_SCHED_UPDATE_NR_RUNNING)

#define DECODED(metric, slot, tp_slot)                                         \
	{ .name = metric, .counter = slot, .needs = DECODE,                    \
	  .fallback_needs = TP_PLACEMENT, .fallback_counter = tp_slot }
#define OUTCOME(metric, outcome)                                               \
	{ .name = metric, .counter = SISSCAN_OUTCOME + outcome, .needs = DECODE }
#define SIS_COUNT(metric, slot) { .name = metric, .counter = slot, .needs = DECODE }
#define PLACED(metric, slot, tp_slot)                                          \
	{ .name = metric, .counter = slot,                                     \
	  .needs = DECODE | RUNQUEUES,                                         \
	  .fallback_needs = TP_PLACEMENT | RUNQUEUES,                          \
	  .fallback_counter = tp_slot }
/* Where the wakee went against prev, the waker and recent: at the exit, or from the tracepoints. */
#define TP_CLASS(metric, slot)                                                 \
	{ .name = metric, .counter = slot, .needs = DECODE,                    \
	  .fallback_needs = TP_PLACEMENT, .fallback_counter = slot,            \
	  .fallback_exact = true }
#define RATIO(metric, a, b, c, d) { .name = metric, .ratio = { a, b, c, d } }
#define COUNT_HIST(metric, slot, hook_set, what)                               \
	{ .name = metric, .counter = slot, .needs = hook_set,                  \
	  .nr_slots = SISSCAN_COUNT_SLOTS, .kind = HIST_LINEAR, .counts = true, \
	  .has_sum = true, .unit = what }

static const struct metric_spec base_metrics[] = {
	{ .name = "wakeups", .counter = SISSCAN_WAKEUPS,
	  .needs = HOOK_BIT(HOOK_SCHED_WAKING) },
	/*
	 * Needs the wakee's task_struct: the classic sched_waking record has
	 * none. The runqueue learner has no classic flavour, so with it
	 * attached sched_waking got a BTF flavour (tp_btf, then raw_tp).
	 */
	{ .name = "wakeups_in_place", .counter = SISSCAN_WAKEUPS_IN_PLACE,
	  .needs = HOOK_BIT(HOOK_SCHED_WAKING) | RUNQUEUES },
	{ .name = "select_task_rq_fair_calls", .counter = SISSCAN_SELECT_CALLS,
	  .needs = HOOK_BIT(HOOK_SELECT_TASK_RQ_FAIR) },
	DECODED("sis_search", SISSCAN_SIS_SEARCH, SISSCAN_TP_SIS_SEARCH),
	OUTCOME("select_without_sis", SIS_OUT_NO_SIS),
	{ .name = "idle_probes", .counter = SISSCAN_IDLE_PROBES,
	  .needs = HOOK_BIT(HOOK_SELECT_TASK_RQ_FAIR) | HOOK_BIT(HOOK_AVAILABLE_IDLE_CPU) },
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
		   HOOK_BIT(HOOK_SELECT_TASK_RQ_FAIR) | HOOK_BIT(HOOK_AVAILABLE_IDLE_CPU),
		   "probes"),
	{ .name = "scan_depth", .counter = SISSCAN_DEPTH_HIST, .needs = DECODE,
	  .nr_slots = SISSCAN_COUNT_SLOTS, .kind = HIST_LINEAR, .counts = true,
	  .has_sum = true, .unit = "cpus", .fallback_needs = TP_PLACEMENT,
	  .fallback_counter = SISSCAN_TP_DEPTH_HIST },
	COUNT_HIST("nr_idle_scan", SISSCAN_NR_IDLE_SCAN_HIST, DECODE, "cpus"),
	{ .name = "select_time_ns", .counter = SISSCAN_SELECT_TIME_HIST,
	  .needs = DECODE, .nr_slots = SISSCAN_TIME_SLOTS,
	  .kind = HIST_LOG2, .has_sum = true, .unit = "nsecs" },
};

/*
 * Breakdowns (per LLC by default, --per-cpu, -P per woken process): the
 * kernel's cumulative per-CPU rows, differenced per window by lib/table.
 */
static const struct table_column group_columns[] = {
	{ "sis_search", "SIS_SEARCH", 10, COLUMN_COUNT, SG_SIS_SEARCH, 0 },
	{ "sis_domain_search", "DOMAIN", 8, COLUMN_COUNT, SG_DOMAIN_SEARCH, 0 },
	{ "sis_domain_scanned", NULL, 0, COLUMN_COUNT, SG_DOMAIN_SCANNED, 0 },
	{ "sis_failed", "FAILED", 8, COLUMN_COUNT, SG_FAILED, 0 },
	{ "depth", "DEPTH", 6, COLUMN_MEAN, SG_DOMAIN_SCANNED, SG_DOMAIN_SEARCH },
	{ "placements", "PLACED", 10, COLUMN_COUNT, SG_PLACEMENTS, 0 },
	{ "placed_unoccupied", NULL, 0, COLUMN_COUNT, SG_PLACED_UNOCCUPIED, 0 },
	{ "missed_idle", "MISSED", 8, COLUMN_COUNT, SG_MISSED_IDLE, 0 },
	{ "missed_idle_pct", "MISSED%", 7, COLUMN_PERCENT, SG_MISSED_IDLE, SG_PLACEMENTS },
};

/* The same without DEPTH, to leave room for COMM within 80 columns. */
static const struct table_column process_columns[] = {
	{ "sis_search", "SIS_SEARCH", 10, COLUMN_COUNT, SG_SIS_SEARCH, 0 },
	{ "sis_domain_search", "DOMAIN", 8, COLUMN_COUNT, SG_DOMAIN_SEARCH, 0 },
	{ "sis_domain_scanned", NULL, 0, COLUMN_COUNT, SG_DOMAIN_SCANNED, 0 },
	{ "sis_failed", "FAILED", 8, COLUMN_COUNT, SG_FAILED, 0 },
	{ "placements", "PLACED", 9, COLUMN_COUNT, SG_PLACEMENTS, 0 },
	{ "placed_unoccupied", NULL, 0, COLUMN_COUNT, SG_PLACED_UNOCCUPIED, 0 },
	{ "missed_idle", "MISSED", 8, COLUMN_COUNT, SG_MISSED_IDLE, 0 },
	{ "missed_idle_pct", "MISSED%", 7, COLUMN_PERCENT, SG_MISSED_IDLE, SG_PLACEMENTS },
};

static const struct table_key_field llc_key[] = {
	{ .name = "llc", .heading = "LLC", .size = 4, .width = 4 },
};
static const struct table_key_field cpu_key[] = {
	{ .name = "cpu", .heading = "CPU", .size = 4, .width = 4 },
};
/* An LLC row's CPU list, from the LLCs learnt at start-up. */
static const struct table_spec llc_table = {
	.name = "breakdown", .row = "llc", .keys = llc_key, .nr_keys = 1,
	TABLE_CPUS_LABEL, .labels = cpustate_llc_label,
	.source = TABLE_COUNTERS, .nr_values = SG_NR,
	.columns = group_columns, .nr_columns = ARRAY_SIZE(group_columns),
	.sort_value = -1, .drop_slot = -1,
};

static const struct table_spec cpu_table = {
	.name = "breakdown", .row = "cpu", .keys = cpu_key, .nr_keys = 1,
	.source = TABLE_COUNTERS, .nr_values = SG_NR,
	.columns = group_columns, .nr_columns = ARRAY_SIZE(group_columns),
	.sort_value = -1, .drop_slot = -1,
};

static const struct table_spec process_table = {
	.name = "processes", TABLE_BY_PROCESS,
	.source = TABLE_COUNTERS,
	.value_offset = offsetof(struct sisscan_process, counts), .nr_values = SG_NR,
	.columns = process_columns, .nr_columns = ARRAY_SIZE(process_columns),
	.sort_value = SG_PLACEMENTS, .text_rows = 10,
	.drop_slot = SISSCAN_PROCESS_DROPS,
};

struct sisscan_args {
	unsigned int filters;		/* bit per enum sis_filter */
	double delay_ms;
	bool delay_given;
	const char *events_path;
	unsigned long long events_max;	/* bytes, 0: no limit */
	bool events_max_given;
	bool per_cpu, per_process;
	unsigned long long given;	/* option_given_once() */
};

enum { OPT_FILTER = 0x200, OPT_FILTER_DELAY, OPT_EVENTS, OPT_EVENTS_MAX, OPT_PER_CPU };

static const struct argp_option sisscan_options[] = {
	{ "filter", OPT_FILTER, "NAME[,NAME]", 0,
	  "Audit SIS filters: ideal, unoccupied, unoccupied_tick, overloaded, "
	  "delayed, real (repeatable)", 4 },
	{ "filter-delay", OPT_FILTER_DELAY, "MS", 0,
	  "How late the delayed filter publishes a change (default 1 ms)", 4 },
	{ "events", OPT_EVENTS, "FILE", 0,
	  "Write every audited wakeup to FILE as JSON Lines (needs --filter)", 4 },
	{ "events-max", OPT_EVENTS_MAX, "SIZE", 0,
	  "Stop writing --events at SIZE bytes (K, M, G; default 256M, 0: no limit); "
	  "the rest is counted in events_dropped", 4 },
	{ "per-cpu", OPT_PER_CPU, NULL, 0,
	  "Break the counts down per CPU instead of per LLC", 4 },
	{ "per-process", 'P', NULL, 0, "Break the counts down per woken process", 4 },
	{},
};

static error_t parse_sisscan(int key, char *arg, struct argp_state *state)
{
	struct sisscan_args *args = state->input;
	char err[512];

	/* --filter adds filters; the other values may be given once. */
	if ((key == OPT_FILTER_DELAY || key == OPT_EVENTS || key == OPT_EVENTS_MAX) &&
	    option_given_once(&args->given, 32 + key - OPT_FILTER_DELAY,
			      key == OPT_EVENTS ? "--events" :
			      key == OPT_EVENTS_MAX ? "--events-max" : "--filter-delay",
			      err, sizeof(err)))
		argp_error(state, "%s", err);
	switch (key) {
	case OPT_FILTER:
		if (audit_parse_filters(arg, &args->filters)) {
			errmsg(err, sizeof(err), "unknown filter in '%s': the filters are ideal, "
			       "unoccupied, unoccupied_tick, overloaded, delayed and real", arg);
			argp_error(state, "%s", err);
		}
		break;
	case OPT_FILTER_DELAY:
		args->delay_given = true;
		if (parse_decimal(arg, &args->delay_ms) || args->delay_ms < 0 ||
		    args->delay_ms > 10000) {
			errmsg(err, sizeof(err),
			       "--filter-delay takes milliseconds from 0 to 10000, not '%s'", arg);
			argp_error(state, "%s", err);
		}
		break;
	case OPT_EVENTS_MAX:
		if (parse_size("--events-max", arg, &args->events_max, err, sizeof(err)))
			argp_error(state, "%s", err);
		args->events_max_given = true;
		break;
	case OPT_EVENTS:
		if (parse_output_path("--events", arg, err, sizeof(err)))
			argp_error(state, "%s", err);
		args->events_path = arg;
		break;
	case OPT_PER_CPU:
		args->per_cpu = true;
		break;
	case 'P':
		args->per_process = true;
		break;
	case ARGP_KEY_END:
		if (args->events_path && !args->filters)
			argp_error(state, "--events records filter audits: give --filter too");
		if (args->events_max_given && !args->events_path)
			argp_error(state, "--events-max limits the --events file: give --events too");
		if (args->delay_given && !(args->filters & (1U << SIS_FILTER_DELAYED)))
			argp_error(state, "--filter-delay sets the delayed filter: give --filter delayed too");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

struct sisscan {
	struct sisscan_args args;
	/* The domain scan's probes are inlined (7.3): it is estimated. */
	bool scan_estimated;
	struct tool tool;
	struct hook_spec hooks[NR_HOOKS];
	struct metric_spec metrics[ARRAY_SIZE(base_metrics) + AUDIT_MAX_METRICS];
	struct audit_metrics audit;
	struct event_stream stream;
	struct audit_stream audit_stream;
	struct table groups, processes;
	struct sisscan_bpf *obj;
	struct topology topo;
	struct cpustate cpus;
	struct cpustate_maps maps;
	char banner_note[PATH_MAX + 160];
};

/* Counting has stopped: the writer drains the ring buffer and ends. */
static void finish_stream(void *ctx)
{
	struct sisscan *ss = ctx;

	event_stream_finish(&ss->stream);
}

/*
 * events counts the records in the file, events_dropped the audited
 * wakeups without one: the ring buffer was full (counted by the BPF
 * side), or the writer could not write them (counted here).
 */
static void count_unwritten(void *ctx, unsigned long long *counts)
{
	struct sisscan *ss = ctx;
	unsigned long long lost = event_stream_lost(&ss->stream);

	if (lost > counts[SISSCAN_EVENTS])
		lost = counts[SISSCAN_EVENTS];
	counts[SISSCAN_EVENTS] -= lost;
	counts[SISSCAN_EVENTS_DROPPED] += lost;
}

/* The metric table: the base metrics, then the audit's for --filter. */
static struct tool_desc describe(struct sisscan *ss)
{
	int nr = ARRAY_SIZE(base_metrics);

	memcpy(ss->hooks, hook_table, sizeof(ss->hooks));
	if (!ss->args.filters) {
		ss->hooks[HOOK_HRTIMER_EXPIRE_ENTRY].skip_why = "only with --filter";
		ss->hooks[HOOK_SCHED_SWITCH].skip_why = "only with --filter";
	}
	if (!(ss->args.filters & (1U << SIS_FILTER_UNOCCUPIED)))
		ss->hooks[HOOK_LOAD_BALANCE].skip_why = "only with --filter unoccupied";
	if (kernel_func_param_index("available_idle_cpu", "cpu") >= 0)
		ss->hooks[HOOK_SELECT_IDLE_CORE].skip_why =
			"available_idle_cpu() shows select_idle_core()'s probes";
	memcpy(ss->metrics, base_metrics, sizeof(base_metrics));
	audit_metrics_build(&ss->audit, ss->args.filters, ss->args.events_path != NULL,
			    HOOK_BIT(HOOK_SCHED_SWITCH) | RUNQUEUES,
			    HOOK_BIT(HOOK_LOAD_BALANCE));
	memcpy(ss->metrics + nr, ss->audit.specs, ss->audit.nr * sizeof(ss->audit.specs[0]));
	if (ss->args.events_path) {
		char size[48] = "no limit";

		if (ss->args.events_max % (1ULL << 20) == 0 && ss->args.events_max)
			snprintf(size, sizeof(size), "at most %llu MiB", ss->args.events_max >> 20);
		else if (ss->args.events_max)
			snprintf(size, sizeof(size), "at most %llu bytes", ss->args.events_max);
		snprintf(ss->banner_note, sizeof(ss->banner_note),
			 "Writing each audited wakeup to %s (%s; records beyond it, "
			 "or lost, are counted in events_dropped).", ss->args.events_path, size);
	}
	return (struct tool_desc){
		.banner_note = ss->args.events_path ? ss->banner_note : NULL,
		.finish = ss->args.events_path ? finish_stream : NULL,
		.adjust = ss->args.events_path ? count_unwritten : NULL,
		.ctx = ss,
		.name = "sisscan",
		.what = "wakeups and select_idle_sibling()",
		.hooks = ss->hooks,
		.nr_hooks = NR_HOOKS,
		.metrics = ss->metrics,
		.nr_metrics = nr + ss->audit.nr,
		.nr_counters = SISSCAN_NR_COUNTERS,
	};
}

/*
 * sched_feat(SIS_UTIL) and sched_feat(UTIL_EST) as the BPF side reads them:
 * sysctl_sched_features and the bits' enumerators. Either missing (no
 * KALLSYMS_ALL, say) leaves the kernel's defaults assumed: both on.
 */
static void set_sched_features(struct sisscan_bpf *obj, const struct common_opts *opts)
{
	long long bit;
	long hz;

	obj->rodata->sched_features_addr = kernel_data_address(opts->proc_root,
							       "sysctl_sched_features");
	if (!kernel_enum_value("__SCHED_FEAT_SIS_UTIL", &bit))
		obj->rodata->sis_util_feature = (__s32)bit;
	if (!kernel_enum_value("__SCHED_FEAT_UTIL_EST", &bit))
		obj->rodata->util_est_feature = (__s32)bit;
	/* wake_wide()'s flips decay once per HZ jiffies; Debian's 250 if unknown. */
	if (!kernel_config_value("CONFIG_HZ", &hz) && hz > 0 && hz <= 10000)
		obj->rodata->kernel_hz = (__u32)hz;
}

/*
 * Where choose_idle_cpu() is the idle probe (7.3), the compiler inlined it
 * into select_idle_cpu()'s loop: the domain scan is estimated from where
 * the wakee went (scan_estimated() in sisscan.bpf.c), and so is all that
 * counts its probes or tells a scan from a skip.
 */
static void mark_scan_estimated(struct sisscan *ss)
{
	static const char *const names[] = {
		"sis_domain_hit", "sis_domain_failed", "sis_scan_skipped",
		"sis_domain_search", "sis_scanned", "sis_domain_scanned", "sis_failed",
		"sis_util_skipped", "sis_util_limited", "scan_depth", "nr_idle_scan",
	};

	ss->scan_estimated = true;
	for (size_t n = 0; n < ARRAY_SIZE(names); n++) {
		struct metric_source *src = tool_available_source(&ss->tool, names[n]);

		if (src)
			src->estimated = true;
	}
}

/* .rodata and map sizes that depend on the chosen hooks and the topology. */
static int setup_before_load(struct sisscan *ss, char *err, size_t errlen)
{
	const struct common_opts *opts = ss->tool.opts;
	struct sisscan_bpf *obj = ss->obj;
	/*
	 * The tracepoints place the wakeups, and estimate their searches,
	 * unless every hook of the decode attached: a kernel that inlined
	 * one of its functions gets the estimates, not nothing.
	 */
	bool tp_placement = !tool_has_hooks(&ss->tool, DECODE) &&
			    tool_hook(&ss->tool, HOOK_SCHED_WAKEUP)->flavour != FLAVOUR_NONE;
	int ret;

	if (topology_load(&ss->topo, opts->sysfs_root, err, errlen))
		return -1;
	obj->rodata->nr_cpu_words = cpustate_words(ss->topo.nr_cpu_ids);
	obj->rodata->tp_placement = tp_placement;
	obj->rodata->decode_flags = (ss->topo.smt_width > 1 ? SIS_DECODE_SMT : 0) |
				    (ss->topo.asym_capacity ? SIS_DECODE_ASYM : 0);
	if (tool_has_hooks(&ss->tool, DECODE) &&
	    !strcmp(tool_hook(&ss->tool, HOOK_AVAILABLE_IDLE_CPU)->target, "choose_idle_cpu")) {
		obj->rodata->decode_flags |= SIS_DECODE_CHOOSE_IDLE;
		mark_scan_estimated(ss);
	}
	obj->rodata->nr_online_cpus = cpumask_weight(&ss->topo.online);
	set_sched_features(obj, opts);
	if (ss->topo.asym_capacity && !tp_placement)
		fprintf(stderr, "sisscan: asymmetric CPU capacity: select_idle_capacity() "
			"replaces the SMT and LLC scans, which are counted as sis_undecoded\n");
	obj->rodata->breakdown = ss->args.per_cpu ? SIS_BY_CPU : SIS_BY_LLC;
	obj->rodata->per_process = ss->args.per_process;
	/*
	 * The v4 model without its load_balance() hook would only replay its
	 * seed: its metrics say "not measured", so leave it out of the audit
	 * (and of the --events records) altogether.
	 */
	if (tool_hook(&ss->tool, HOOK_LOAD_BALANCE)->flavour == FLAVOUR_NONE)
		ss->args.filters &= ~(1U << SIS_FILTER_UNOCCUPIED);
	if (audit_setup(obj, ss->args.filters, ss->args.delay_ms,
			ss->args.events_path != NULL, opts, err, errlen))
		return -1;
	/* LLC indexes are below nr_cpu_ids too. */
	ret = bpf_map__set_max_entries(obj->maps.group_counters, ss->topo.nr_cpu_ids);
	if (!ret && !ss->args.per_process)
		ret = bpf_map__set_max_entries(obj->maps.process_counters, 1);
	if (ret)
		return errmsg(err, errlen, "sizing the breakdown maps failed: %s",
			      strerror(-ret));
	return cpustate_size(&ss->maps, ss->topo.nr_cpu_ids, err, errlen);
}

/*
 * After the load: the SMT cores (sysfs) for the decoder's "sibling of
 * prev" test (S7), and each core's CPUs for the v4 model.
 */
static int fill_smt_cores(struct sisscan *ss, char *err, size_t errlen)
{
	int fd = bpf_map__fd(ss->obj->maps.smt_core);
	int cores_fd = bpf_map__fd(ss->obj->maps.v4_cores);

	for (int cpu = 0; cpu < ss->topo.nr_cpu_ids; cpu++) {
		__u32 key = cpu;
		__s32 core = ss->topo.core_of_cpu[cpu];

		if (bpf_map_update_elem(fd, &key, &core, BPF_ANY))
			return errmsg(err, errlen, "filling the SMT map failed: %s",
				      strerror(errno));
	}
	for (int core = 0; core < ss->topo.nr_cores && core < SCHEDSCAN_MAX_CPUS; core++) {
		struct v4_core value = {};
		__u32 key = core;

		for (int cpu = 0; cpu < ss->topo.nr_cpu_ids; cpu++)
			if (ss->topo.core_of_cpu[cpu] == core && value.nr < V4_MAX_SIBLINGS)
				value.cpus[value.nr++] = (__s16)cpu;
		value.state = V4_IS_BUSY;
		if (bpf_map_update_elem(cores_fd, &key, &value, BPF_ANY))
			return errmsg(err, errlen, "filling the v4 core map failed: %s",
				      strerror(errno));
	}
	return 0;
}

static int add_breakdowns(struct sisscan *ss)
{
	const struct hook *sis = tool_hook(&ss->tool, HOOK_SELECT_TASK_RQ_FAIR);
	/* Without the whole decode the tracepoints place the wakeups. */
	bool placed_by_tracepoints = !tool_has_hooks(&ss->tool, DECODE);
	bool estimated = placed_by_tracepoints || ss->scan_estimated;
	enum flavour flavour = placed_by_tracepoints ?
		tool_hook(&ss->tool, HOOK_SCHED_WAKEUP)->flavour : sis->flavour;
	const char *tier = flavour_name(flavour);

	/* No placement hook (e.g. classic tracepoints only): nothing to break down. */
	if (flavour == FLAVOUR_NONE) {
		tool_table_unavailable(&ss->tool, ss->args.per_cpu ? cpu_table.name : llc_table.name,
				       HOOK_BIT(HOOK_SCHED_WAKEUP));
		if (ss->args.per_process)
			tool_table_unavailable(&ss->tool, process_table.name,
					       HOOK_BIT(HOOK_SCHED_WAKEUP));
		return 0;
	}
	if (tool_add_table(&ss->tool, &ss->groups,
			   ss->args.per_cpu ? &cpu_table : &llc_table,
			   ss->obj->maps.group_counters, NULL, &ss->cpus, tier, estimated))
		return -1;
	if (!ss->args.per_process)
		return 0;
	return tool_add_table(&ss->tool, &ss->processes, &process_table,
			      ss->obj->maps.process_counters, ss->obj->maps.table_drops,
			      NULL, tier, estimated);
}

/* After the attach: the scheduler's LLCs and runqueues, then the learner goes. */
static int learn_cpus(struct sisscan *ss, char *err, size_t errlen)
{
	struct hook *learner = &ss->tool.hooks[HOOK_SCHED_UPDATE_NR_RUNNING];
	int ret;

	/* Without it, the runqueue-based metrics say "not measured". */
	if (learner->flavour == FLAVOUR_NONE)
		return 0;
	ret = cpustate_learn(&ss->cpus, &ss->maps, &ss->topo, err, errlen);
	hook_detach(learner);
	if (ret || !ss->args.events_path)
		return ret;
	ss->audit_stream = (struct audit_stream){ ss->args.filters, &ss->cpus };
	return event_stream_start(&ss->stream, bpf_map__fd(ss->obj->maps.events),
				  audit_format_event, &ss->audit_stream, err, errlen);
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
	"    sisscan --listen 127.0.0.1:9464 10  # Prometheus metrics while tracing\n"
	"\n"
	"-p, --comm, -c and -C select the woken task (-C: by the CPU it last ran\n"
	"on).\n"
	"In the tracepoint tier the SIS counters are estimates (marked ~).";

int main(int argc, char **argv)
{
	static struct sisscan ss = { .args.delay_ms = 1, .args.events_max = 256ULL << 20 };
	struct common_opts opts;
	struct tool_desc desc;
	char err[512];
	int ret = 1;

	parse_tool_args_with(argc, argv, doc, &opts, sisscan_options,
			     parse_sisscan, &ss.args);
	if (opts.compare)
		return compare_from_opts("sisscan", &opts);
	desc = describe(&ss);
	if (opts.list_metrics && ss.args.events_path) {
		fprintf(stderr, "sisscan: --list-metrics traces nothing: --events has no meaning "
			"with it\n");
		return OPTIONS_EXIT_USAGE;
	}
	if (preflight(desc.name, &opts))
		return 1;
	if (ss.args.events_path &&
	    event_stream_open(&ss.stream, ss.args.events_path, ss.args.events_max, err,
			      sizeof(err))) {
		fprintf(stderr, "sisscan: %s\n", err);
		return 1;
	}
	ss.obj = sisscan_bpf__open_opts(tool_open_opts(&opts));
	if (!ss.obj) {
		fprintf(stderr, "sisscan: opening the BPF object failed\n");
		event_stream_stop(&ss.stream, err, sizeof(err));
		return 1;
	}
	selection_from_opts(&ss.obj->rodata->schedscan_filter, &opts);
	ss.maps = CPUSTATE_MAPS(ss.obj);
	if (tool_init(&ss.tool, &desc, &opts) ||
	    tool_choose_hooks(&ss.tool, ss.obj->obj))
		goto out;
	if (setup_before_load(&ss, err, sizeof(err)))
		goto fail;
	if (tool_load(&ss.tool, ss.obj->skeleton, ss.obj->maps.counters))
		goto out;
	if (fill_smt_cores(&ss, err, sizeof(err)))
		goto fail;
	if (add_breakdowns(&ss))
		goto out;
	if (opts.list_metrics) {
		ret = tool_list_metrics(&ss.tool);
		goto out;
	}
	if (tool_attach(&ss.tool))
		goto out;
	if (learn_cpus(&ss, err, sizeof(err)))
		goto fail;
	ret = tool_run(&ss.tool);
	goto out;
fail:
	fprintf(stderr, "sisscan: %s\n", err);
out:
	tool_destroy(&ss.tool);
	/* After the detach: the last events, then close (and say if any was lost). */
	if (ss.args.events_path && event_stream_stop(&ss.stream, err, sizeof(err))) {
		fprintf(stderr, "sisscan: %s\n", err);
		ret = 1;
	}
	sisscan_bpf__destroy(ss.obj);
	topology_free(&ss.topo);
	cpustate_free(&ss.cpus);
	return ret;
}
