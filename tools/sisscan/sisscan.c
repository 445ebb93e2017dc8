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
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "counter_tool.h"
#include "cpustate.h"
#include "json.h"
#include "probe.h"
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
	HOOK_HRTIMER_EXPIRE_ENTRY,
	HOOK_SCHED_SWITCH,
	NR_HOOKS,
};

static const struct hook_spec hook_table[NR_HOOKS] = {
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
	/* Filter audit: the modelled filters' updates (tick, idle entry). */
	[HOOK_HRTIMER_EXPIRE_ENTRY] = {
		.name = "hrtimer_expire_entry", .kind = HOOK_TRACEPOINT,
		.targets = { "hrtimer_expire_entry" }, .category = "timer" },
	[HOOK_SCHED_SWITCH] = {
		.name = "sched_switch", .kind = HOOK_TRACEPOINT,
		.targets = { "sched_switch" }, .category = "sched" },
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

static const char *const filter_names[SIS_NR_FILTERS] = {
	[SIS_FILTER_IDEAL] = "ideal",
	[SIS_FILTER_UNOCCUPIED] = "unoccupied",
	[SIS_FILTER_OVERLOADED] = "overloaded",
	[SIS_FILTER_DELAYED] = "delayed",
	[SIS_FILTER_REAL] = "real",
};

struct sisscan_args {
	unsigned int filters;		/* bit per enum sis_filter */
	double delay_ms;
	const char *events_path;
	bool per_cpu, per_process;
};

enum { OPT_FILTER = 0x200, OPT_FILTER_DELAY, OPT_EVENTS, OPT_PER_CPU };

static const struct argp_option sisscan_options[] = {
	{ "filter", OPT_FILTER, "NAME[,NAME]", 0,
	  "Audit SIS filters: ideal, unoccupied, overloaded, delayed, real "
	  "(repeatable)", 4 },
	{ "filter-delay", OPT_FILTER_DELAY, "MS", 0,
	  "How late the delayed filter publishes a change (default 1 ms)", 4 },
	{ "events", OPT_EVENTS, "FILE", 0,
	  "Write every audited wakeup to FILE as JSON Lines (needs --filter)", 4 },
	{ "per-cpu", OPT_PER_CPU, NULL, 0,
	  "Break the counts down per CPU instead of per LLC", 4 },
	{ "per-process", 'P', NULL, 0, "Break the counts down per woken process", 4 },
	{},
};

static int parse_filter_list(const char *text, unsigned int *filters)
{
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", text);
	for (char *name = strtok_r(buf, ",", &save); name;
	     name = strtok_r(NULL, ",", &save)) {
		int f;

		for (f = 0; f < SIS_NR_FILTERS; f++)
			if (!strcmp(name, filter_names[f]))
				break;
		if (f == SIS_NR_FILTERS)
			return -1;
		*filters |= 1U << f;
	}
	return 0;
}

static error_t parse_sisscan(int key, char *arg, struct argp_state *state)
{
	struct sisscan_args *args = state->input;
	char *end;

	switch (key) {
	case OPT_FILTER:
		if (parse_filter_list(arg, &args->filters))
			argp_error(state, "unknown filter in '%s': the filters are ideal, "
				   "unoccupied, overloaded, delayed and real", arg);
		break;
	case OPT_FILTER_DELAY:
		args->delay_ms = strtod(arg, &end);
		if (*end || end == arg || args->delay_ms < 0 || args->delay_ms > 10000)
			argp_error(state, "--filter-delay takes milliseconds from 0 to 10000, not '%s'",
				   arg);
		break;
	case OPT_EVENTS:
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
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* The base table plus, per audited filter, its metrics (names built here). */
struct metric_table {
	struct counter_metric *metrics;
	int nr;
	char names[SIS_NR_FILTERS * 8 + 8][48];
	int nr_names;
};

static const char *table_name(struct metric_table *t, const char *fmt, const char *filter)
{
	char *name = t->names[t->nr_names++];

	snprintf(name, sizeof(t->names[0]), fmt, filter);
	return name;
}

static int build_metrics(struct metric_table *t, const struct sisscan_args *args)
{
	static const struct { const char *name; unsigned int counter; } common[] = {
		{ "audits", SISSCAN_AUDITS },
		{ "audit_cpus", SISSCAN_AUDIT_CPUS },
		{ "audit_unoccupied", SISSCAN_AUDIT_UNOCCUPIED },
		{ "audit_truncated", SISSCAN_AUDIT_TRUNCATED },
		{ "events", SISSCAN_EVENTS },
		{ "events_dropped", SISSCAN_EVENTS_DROPPED },
	};
	int max = ARRAY_SIZE(metrics) + ARRAY_SIZE(common) + SIS_NR_FILTERS * 8;

	t->metrics = calloc(max, sizeof(*t->metrics));
	if (!t->metrics)
		return -1;
	memcpy(t->metrics, metrics, sizeof(metrics));
	t->nr = ARRAY_SIZE(metrics);
	if (!args->filters)
		return 0;
	for (unsigned int i = 0; i < ARRAY_SIZE(common); i++) {
		if (common[i].counter >= SISSCAN_EVENTS && !args->events_path)
			continue;
		t->metrics[t->nr++] = (struct counter_metric){
			.name = common[i].name, .counter = common[i].counter,
			.hook = HOOK_SCHED_SWITCH,
			.needs = 1 + HOOK_SCHED_UPDATE_NR_RUNNING };
	}
	for (int f = 0; f < SIS_NR_FILTERS; f++) {
		unsigned int base = SISSCAN_FILTER_BASE + f * SIS_FC_STRIDE;
		const char *n = filter_names[f];
		const char *passed, *fp, *fn;

		if (!(args->filters & (1U << f)))
			continue;
		passed = table_name(t, "filter_%s_passed", n);
		fp = table_name(t, "filter_%s_fp", n);
		fn = table_name(t, "filter_%s_fn", n);
		t->metrics[t->nr++] = (struct counter_metric){
			.name = passed, .counter = base + SIS_FC_PASSED,
			.hook = HOOK_SCHED_SWITCH };
		t->metrics[t->nr++] = (struct counter_metric){
			.name = fp, .counter = base + SIS_FC_FP, .hook = HOOK_SCHED_SWITCH };
		t->metrics[t->nr++] = (struct counter_metric){
			.name = fn, .counter = base + SIS_FC_FN, .hook = HOOK_SCHED_SWITCH };
		t->metrics[t->nr++] = (struct counter_metric){
			.name = table_name(t, "filter_%s_hid_all_idle", n),
			.counter = base + SIS_FC_HID_ALL, .hook = HOOK_SCHED_SWITCH };
		t->metrics[t->nr++] = (struct counter_metric){
			.name = table_name(t, "filter_%s_fp_pct", n),
			.hook = HOOK_SCHED_SWITCH, .ratio = { fp, NULL, passed, NULL } };
		t->metrics[t->nr++] = (struct counter_metric){
			.name = table_name(t, "filter_%s_fn_pct", n),
			.hook = HOOK_SCHED_SWITCH,
			.ratio = { fn, NULL, "audit_unoccupied", NULL } };
		t->metrics[t->nr++] = (struct counter_metric){
			.name = table_name(t, "filter_%s_scan_depth", n),
			.counter = base + SIS_FC_DEPTH_HIST, .hook = HOOK_SCHED_SWITCH,
			.nr_slots = SISSCAN_COUNT_SLOTS, .kind = HIST_LINEAR,
			.counts = true, .unit = "cpus" };
		if (f == SIS_FILTER_IDEAL || f == SIS_FILTER_REAL)
			continue;
		t->metrics[t->nr++] = (struct counter_metric){
			.name = table_name(t, "filter_%s_stale_age_ns", n),
			.counter = base + SIS_FC_AGE_HIST, .hook = HOOK_SCHED_SWITCH,
			.nr_slots = SISSCAN_TIME_SLOTS, .kind = HIST_LOG2,
			.unit = "nsecs" };
	}
	return 0;
}

/* The opt-in event stream: a thread drains the ring buffer into a file. */
struct event_stream {
	struct ring_buffer *rb;
	FILE *out;
	pthread_t thread;
	volatile bool stop;
	bool running;
	struct json_writer writer;
	unsigned int filters;
	const struct cpustate *cpus;	/* the LLCs, to name the CPUs */
};

/* Bit i of mask is the i-th CPU of the LLC, in ascending order. */
static void json_cpu_list(struct json_writer *w, const char *key,
			  const struct cpumask *llc, __u64 mask)
{
	unsigned int i = 0;

	json_key(w, key);
	json_begin_array(w);
	for (int cpu = cpumask_next(llc, -1); cpu >= 0 && i < SISSCAN_EVENT_CPUS;
	     cpu = cpumask_next(llc, cpu), i++)
		if ((mask >> i) & 1)
			json_i64(w, cpu);
	json_end_array(w);
}

static int write_event(void *ctx, void *data, size_t size)
{
	struct event_stream *es = ctx;
	const struct sisscan_event *e = data;
	struct json_writer *w = &es->writer;
	const struct cpumask *llc;

	if (size < sizeof(*e) || (int)e->llc >= es->cpus->nr_llcs)
		return 0;
	llc = &es->cpus->llc_cpus[e->llc];
	json_reset(w);
	json_begin_object(w);
	json_key(w, "ts_ns");
	json_u64(w, e->ts_ns);
	json_key(w, "pid");
	json_i64(w, e->pid);
	json_key(w, "tgid");
	json_i64(w, e->tgid);
	json_key(w, "waker");
	json_i64(w, e->waker);
	json_key(w, "prev");
	json_i64(w, e->prev);
	json_key(w, "target");
	json_i64(w, e->target);
	json_key(w, "chosen");
	json_i64(w, e->chosen);
	json_key(w, "domain_search");
	json_bool(w, e->domain_search);
	json_key(w, "domain_depth");
	json_i64(w, e->domain_depth);
	json_key(w, "llc_cpus");
	json_i64(w, e->nr_cpus);
	json_key(w, "truncated");
	json_bool(w, e->nr_cpus > SISSCAN_EVENT_CPUS);
	json_cpu_list(w, "allowed", llc, e->allowed);
	json_cpu_list(w, "unoccupied", llc, e->unoccupied);
	json_key(w, "passed");
	json_begin_object(w);
	for (int f = 0; f < SIS_NR_FILTERS; f++)
		if (es->filters & (1U << f))
			json_cpu_list(w, filter_names[f], llc, e->passed[f]);
	json_end_object(w);
	json_end_object(w);
	return json_emit_line(w, es->out) ? -EIO : 0;
}

static void *drain_events(void *arg)
{
	struct event_stream *es = arg;

	while (!es->stop)
		ring_buffer__poll(es->rb, 100);
	return NULL;
}

/*
 * Breakdowns: per LLC (default) or per CPU, and per woken process (-P).
 * The kernel keeps cumulative per-CPU sums; a window is the difference
 * from the previous reading (the summary: since the start).
 */
static const char *const group_names[SG_NR] = {
	[SG_SIS_SEARCH] = "sis_search",
	[SG_DOMAIN_SEARCH] = "sis_domain_search",
	[SG_DOMAIN_SCANNED] = "sis_domain_scanned",
	[SG_FAILED] = "sis_failed",
	[SG_PLACEMENTS] = "placements",
	[SG_PLACED_UNOCCUPIED] = "placed_unoccupied",
	[SG_MISSED_IDLE] = "missed_idle",
};

struct process_row {
	__u32 tgid;
	char comm[16];
	unsigned long long last[SG_NR], win[SG_NR];
};

struct breakdown {
	bool by_cpu, per_process;
	int nr_groups, nr_possible;
	unsigned long long *now, *last, *win;	/* [nr_groups * SG_NR] */
	struct percpu_sums groups;		/* group_counters */
	struct sisscan_process *process_values;	/* one process's per-CPU rows */
	struct process_row *procs;
	int nr_procs, cap_procs;
	const char *tier;
	bool estimated;
	const struct cpustate *cpus;
	struct bpf_map *group_map, *processes;
};

static int read_groups(struct breakdown *b, bool cumulative)
{
	if (percpu_sums_read(&b->groups, b->now))
		return -1;
	for (int key = 0; key < b->nr_groups * SG_NR; key++) {
		b->win[key] = cumulative ? b->now[key] : b->now[key] - b->last[key];
		b->last[key] = b->now[key];
	}
	return 0;
}

static struct process_row *process_slot(struct breakdown *b, __u32 tgid)
{
	for (int i = 0; i < b->nr_procs; i++)
		if (b->procs[i].tgid == tgid)
			return &b->procs[i];
	if (b->nr_procs == b->cap_procs) {
		int cap = b->cap_procs ? 2 * b->cap_procs : 64;
		struct process_row *grown = realloc(b->procs, cap * sizeof(*grown));

		if (!grown)
			return NULL;
		b->procs = grown;
		b->cap_procs = cap;
	}
	memset(&b->procs[b->nr_procs], 0, sizeof(b->procs[0]));
	b->procs[b->nr_procs].tgid = tgid;
	return &b->procs[b->nr_procs++];
}

static int read_processes(struct breakdown *b, bool cumulative)
{
	struct sisscan_process *values = b->process_values;
	int fd = bpf_map__fd(b->processes);
	__u32 key, next;
	bool first = true;

	for (int i = 0; i < b->nr_procs; i++)
		memset(b->procs[i].win, 0, sizeof(b->procs[i].win));
	while (!bpf_map_get_next_key(fd, first ? NULL : &key, &next)) {
		struct process_row *row;

		first = false;
		key = next;
		if (bpf_map_lookup_elem(fd, &key, values))
			continue;	/* removed meanwhile: never, rows stay */
		row = process_slot(b, key);
		if (!row)
			return -1;
		/* Only the CPU that created the row wrote its name. */
		for (int cpu = 0; cpu < b->nr_possible && !row->comm[0]; cpu++)
			memcpy(row->comm, values[cpu].comm, sizeof(row->comm));
		row->comm[sizeof(row->comm) - 1] = '\0';
		for (int c = 0; c < SG_NR; c++) {
			unsigned long long sum = 0;

			for (int cpu = 0; cpu < b->nr_possible; cpu++)
				sum += values[cpu].counts[c];
			row->win[c] = cumulative ? sum : sum - row->last[c];
			row->last[c] = sum;
		}
	}
	return 0;
}

static int breakdown_window(struct breakdown *b, bool final, int intervals)
{
	/* A summary after interval records: totals of the last reading. */
	if (final && intervals) {
		memcpy(b->win, b->last, b->nr_groups * SG_NR * sizeof(*b->win));
		for (int i = 0; i < b->nr_procs; i++)
			memcpy(b->procs[i].win, b->procs[i].last, sizeof(b->procs[i].win));
		return 0;
	}
	if (read_groups(b, final))
		return -1;
	return b->per_process ? read_processes(b, final) : 0;
}

static double percent(unsigned long long part, unsigned long long whole)
{
	return whole ? 100.0 * part / whole : 0.0;
}

static void group_label(const struct breakdown *b, int group, char *buf, size_t len)
{
	if (b->by_cpu)
		snprintf(buf, len, "%d", group);
	else if (b->cpus && group < b->cpus->nr_llcs)
		cpulist_format(&b->cpus->llc_cpus[group], buf, len);
	else
		snprintf(buf, len, "?");
}

static int compare_rows(const void *a, const void *b)
{
	const struct process_row *x = a, *y = b;

	if (x->win[SG_PLACEMENTS] != y->win[SG_PLACEMENTS])
		return x->win[SG_PLACEMENTS] < y->win[SG_PLACEMENTS] ? 1 : -1;
	return x->tgid < y->tgid ? -1 : x->tgid > y->tgid;
}

#define TEXT_PROCESSES 10

static void breakdown_text(void *ctx, FILE *out)
{
	struct breakdown *b = ctx;
	char cpus[32];

	fprintf(out, "\n%-4s %-9s %10s %8s %8s %6s %10s %8s %7s\n",
		b->by_cpu ? "CPU" : "LLC", b->by_cpu ? "" : "CPUS", "SIS_SEARCH",
		"DOMAIN", "FAILED", "DEPTH", "PLACED", "MISSED", "MISSED%");
	for (int g = 0; g < b->nr_groups; g++) {
		const unsigned long long *v = &b->win[g * SG_NR];

		if (!v[SG_SIS_SEARCH] && !v[SG_PLACEMENTS])
			continue;
		group_label(b, g, cpus, sizeof(cpus));
		fprintf(out, "%-4d %-9.9s %10llu %8llu %8llu %6.1f %10llu %8llu %7.2f\n",
			g, b->by_cpu ? "" : cpus, v[SG_SIS_SEARCH], v[SG_DOMAIN_SEARCH],
			v[SG_FAILED],
			v[SG_DOMAIN_SEARCH] ? (double)v[SG_DOMAIN_SCANNED] / v[SG_DOMAIN_SEARCH] : 0.0,
			v[SG_PLACEMENTS], v[SG_MISSED_IDLE],
			percent(v[SG_MISSED_IDLE], v[SG_PLACEMENTS]));
	}
	if (!b->per_process)
		return;
	qsort(b->procs, b->nr_procs, sizeof(*b->procs), compare_rows);
	fprintf(out, "\n%-8s %-15s %10s %8s %8s %9s %8s %7s\n", "TGID", "COMM",
		"SIS_SEARCH", "DOMAIN", "FAILED", "PLACED", "MISSED", "MISSED%");
	for (int i = 0; i < b->nr_procs && i < TEXT_PROCESSES; i++) {
		const struct process_row *r = &b->procs[i];

		if (!r->win[SG_PLACEMENTS])
			break;
		fprintf(out, "%-8u %-15.15s %10llu %8llu %8llu %9llu %8llu %7.2f\n",
			r->tgid, r->comm, r->win[SG_SIS_SEARCH], r->win[SG_DOMAIN_SEARCH],
			r->win[SG_FAILED], r->win[SG_PLACEMENTS], r->win[SG_MISSED_IDLE],
			percent(r->win[SG_MISSED_IDLE], r->win[SG_PLACEMENTS]));
	}
}

static void json_counts(struct json_writer *w, const unsigned long long *v)
{
	for (int c = 0; c < SG_NR; c++) {
		json_key(w, group_names[c]);
		json_u64(w, v[c]);
	}
}

static void breakdown_json(void *ctx, struct json_writer *w)
{
	struct breakdown *b = ctx;
	char cpus[256];

	json_key(w, "breakdown");
	json_begin_object(w);
	json_key(w, "by");
	json_string(w, b->by_cpu ? "cpu" : "llc");
	json_key(w, "tier");
	json_string(w, b->tier);
	json_key(w, "estimated");
	json_bool(w, b->estimated);
	json_key(w, "rows");
	json_begin_array(w);
	for (int g = 0; g < b->nr_groups; g++) {
		const unsigned long long *v = &b->win[g * SG_NR];

		if (!v[SG_SIS_SEARCH] && !v[SG_PLACEMENTS])
			continue;
		json_begin_object(w);
		json_key(w, b->by_cpu ? "cpu" : "llc");
		json_i64(w, g);
		if (!b->by_cpu) {
			group_label(b, g, cpus, sizeof(cpus));
			json_key(w, "cpus");
			json_string(w, cpus);
		}
		json_counts(w, v);
		json_end_object(w);
	}
	json_end_array(w);
	json_end_object(w);
	if (!b->per_process)
		return;
	qsort(b->procs, b->nr_procs, sizeof(*b->procs), compare_rows);
	json_key(w, "processes");
	json_begin_array(w);
	for (int i = 0; i < b->nr_procs; i++) {
		const struct process_row *r = &b->procs[i];

		if (!r->win[SG_PLACEMENTS])
			break;
		json_begin_object(w);
		json_key(w, "tgid");
		json_i64(w, r->tgid);
		json_key(w, "comm");
		json_string(w, r->comm);
		json_counts(w, r->win);
		json_end_object(w);
	}
	json_end_array(w);
}

static void breakdown_free(struct breakdown *b)
{
	free(b->now);
	free(b->last);
	free(b->win);
	percpu_sums_free(&b->groups);
	free(b->process_values);
	free(b->procs);
}

struct sisscan {
	struct sisscan_args args;
	struct event_stream stream;
	struct breakdown breakdown;
	struct sisscan_bpf *obj;
	struct topology topo;
	struct cpustate cpus;
	struct cpustate_maps maps;
};

/* The real mask of a patched kernel, by the member the patch adds. */
static enum sis_real_mask find_real_mask(int *offset)
{
	static const struct { const char *member; enum sis_real_mask kind; } masks[] = {
		{ "idle_cpus", SIS_REAL_IDLE_CPUS },		/* v4 */
		{ "overloaded_cpus", SIS_REAL_OVERLOADED_CPUS },	/* draft */
		{ "overloaded", SIS_REAL_OVERLOADED },		/* seed 001 */
	};

	for (unsigned int i = 0; i < ARRAY_SIZE(masks); i++) {
		*offset = kernel_struct_member_offset("sched_domain_shared", masks[i].member);
		if (*offset >= 0)
			return masks[i].kind;
	}
	return SIS_REAL_NONE;
}

static int audit_setup(struct sisscan *ss, const struct common_opts *opts,
		       char *err, size_t errlen)
{
	const unsigned int ticked = (1U << SIS_FILTER_UNOCCUPIED) |
				    (1U << SIS_FILTER_OVERLOADED);
	struct sisscan_bpf *obj = ss->obj;
	unsigned long long tick = 0;
	int ret;

	obj->rodata->audit_filters = ss->args.filters;
	obj->rodata->audit_delay_ns = (__u64)(ss->args.delay_ms * 1e6);
	obj->rodata->emit_events = ss->args.events_path != NULL;
	if (ss->args.filters & (1U << SIS_FILTER_REAL)) {
		int offset = -1;

		obj->rodata->real_mask = find_real_mask(&offset);
		obj->rodata->real_mask_offset = offset;
		if (obj->rodata->real_mask == SIS_REAL_NONE)
			return errmsg(err, errlen,
				      "--filter real: this kernel's struct sched_domain_shared has no SIS filter mask "
				      "(idle_cpus, overloaded_cpus or overloaded): the SIS filter patches are not applied");
	}
	if (ss->args.filters & ticked) {
		/* The tick's hrtimer callback: renamed in 6.9. */
		tick = kernel_symbol_address(opts->proc_root, "tick_nohz_handler");
		if (!tick)
			tick = kernel_symbol_address(opts->proc_root, "tick_sched_timer");
		if (!tick)
			return errmsg(err, errlen,
				      "--filter unoccupied/overloaded: no tick_nohz_handler or tick_sched_timer in %s/kallsyms",
				      opts->proc_root);
	}
	obj->rodata->tick_function = tick;
	/* Without --events the ring buffer is the smallest there is. */
	if (!ss->args.events_path) {
		ret = bpf_map__set_max_entries(obj->maps.events, getpagesize());
		if (ret)
			return errmsg(err, errlen, "sizing the event buffer failed: %s",
				      strerror(-ret));
	}
	return 0;
}

static int sisscan_window(void *user, bool final, int intervals)
{
	struct sisscan *ss = user;

	return breakdown_window(&ss->breakdown, final, intervals);
}

static int breakdown_setup(struct sisscan *ss, const struct hook *chosen,
			   char *err, size_t errlen)
{
	struct breakdown *b = &ss->breakdown;
	const struct hook *sis = &chosen[HOOK_SELECT_TASK_RQ_FAIR];
	int ret;

	b->by_cpu = ss->args.per_cpu;
	b->per_process = ss->args.per_process;
	b->nr_groups = ss->topo.nr_cpu_ids;	/* LLC indexes are below it too */
	b->nr_possible = libbpf_num_possible_cpus();
	b->group_map = ss->obj->maps.group_counters;
	b->processes = ss->obj->maps.process_counters;
	b->cpus = &ss->cpus;
	b->estimated = sis->flavour == FLAVOUR_NONE;
	b->tier = flavour_name(b->estimated ? chosen[HOOK_SCHED_WAKEUP].flavour : sis->flavour);
	if (b->nr_possible <= 0)
		return errmsg(err, errlen, "cannot count the possible CPUs");
	b->now = calloc(b->nr_groups * SG_NR, sizeof(*b->now));
	b->last = calloc(b->nr_groups * SG_NR, sizeof(*b->last));
	b->win = calloc(b->nr_groups * SG_NR, sizeof(*b->win));
	b->process_values = calloc(b->nr_possible, sizeof(*b->process_values));
	/* The map's fd exists once it is loaded: sisscan_after_load(). */
	if (!b->now || !b->last || !b->win || !b->process_values ||
	    percpu_sums_init(&b->groups, 0, b->nr_groups * SG_NR, b->nr_possible))
		return errmsg(err, errlen, "out of memory");
	ss->obj->rodata->breakdown = b->by_cpu ? SIS_BY_CPU : SIS_BY_LLC;
	ss->obj->rodata->per_process = b->per_process;
	ret = bpf_map__set_max_entries(b->group_map, b->nr_groups * SG_NR);
	if (!ret && !b->per_process)
		ret = bpf_map__set_max_entries(b->processes, 1);
	if (ret)
		return errmsg(err, errlen, "sizing the breakdown maps failed: %s",
			      strerror(-ret));
	return 0;
}

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
	if (audit_setup(ss, opts, err, errlen) || breakdown_setup(ss, chosen, err, errlen))
		return -1;
	return cpustate_size(&ss->maps, ss->topo.nr_cpu_ids, err, errlen);
}

/* SMT cores (sysfs) for the decoder's "sibling of prev" test (S7). */
static int sisscan_after_load(void *user, const struct common_opts *opts,
			      char *err, size_t errlen)
{
	struct sisscan *ss = user;
	int fd = bpf_map__fd(ss->obj->maps.smt_core);

	(void)opts;
	ss->breakdown.groups.fd = bpf_map__fd(ss->obj->maps.group_counters);
	for (int cpu = 0; cpu < ss->topo.nr_cpu_ids; cpu++) {
		__u32 key = cpu;
		__s32 core = ss->topo.core_of_cpu[cpu];

		if (bpf_map_update_elem(fd, &key, &core, BPF_ANY))
			return errmsg(err, errlen, "filling the SMT map failed: %s",
				      strerror(errno));
	}
	return 0;
}

static int events_start(struct sisscan *ss, char *err, size_t errlen)
{
	struct event_stream *es = &ss->stream;

	es->filters = ss->args.filters;
	es->cpus = &ss->cpus;
	es->out = fopen(ss->args.events_path, "w");
	if (!es->out)
		return errmsg(err, errlen, "cannot write the event stream to %s: %s",
			      ss->args.events_path, strerror(errno));
	json_init(&es->writer);
	es->rb = ring_buffer__new(bpf_map__fd(ss->obj->maps.events), write_event,
				  es, NULL);
	if (!es->rb)
		return errmsg(err, errlen, "opening the event ring buffer failed: %s",
			      strerror(errno));
	if (pthread_create(&es->thread, NULL, drain_events, es))
		return errmsg(err, errlen, "cannot start the event writer thread");
	es->running = true;
	return 0;
}

/* After the programs are detached: the last events, then close. */
static void events_stop(struct event_stream *es)
{
	if (es->running) {
		es->stop = true;
		pthread_join(es->thread, NULL);
	}
	if (es->rb) {
		ring_buffer__consume(es->rb);
		ring_buffer__free(es->rb);
	}
	if (es->out)
		fclose(es->out);
	json_free(&es->writer);
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
	if (ret || !ss->args.events_path)
		return ret;
	return events_start(ss, err, errlen);
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
	"-p, --comm, -c and -C select the woken task (-C: by the CPU it last ran\n"
	"on).\n"
	"In the tracepoint tier the SIS counters are estimates (marked ~).";

int main(int argc, char **argv)
{
	struct hook_spec hooks[NR_HOOKS];
	struct metric_table table = {};
	struct counter_tool tool = {
		.tool = "sisscan",
		.what = "wakeups and select_idle_sibling()",
		.hooks = hooks,
		.nr_hooks = NR_HOOKS,
		.nr_counters = SISSCAN_NR_COUNTERS,
		.before_load = sisscan_before_load,
		.after_load = sisscan_after_load,
		.after_attach = sisscan_after_attach,
		.window = sisscan_window,
		.extra = { .text = breakdown_text, .json = breakdown_json },
	};
	struct sisscan ss = { .args.delay_ms = 1 };
	struct common_opts opts;
	struct sisscan_bpf *obj;
	int ret;

	parse_tool_args_with(argc, argv, doc, &opts, sisscan_options,
			     parse_sisscan, &ss.args);
	memcpy(hooks, hook_table, sizeof(hooks));
	if (!ss.args.filters) {
		hooks[HOOK_HRTIMER_EXPIRE_ENTRY].skip_why = "only with --filter";
		hooks[HOOK_SCHED_SWITCH].skip_why = "only with --filter";
	}
	if (build_metrics(&table, &ss.args)) {
		fprintf(stderr, "sisscan: out of memory\n");
		return 1;
	}
	tool.metrics = table.metrics;
	tool.nr_metrics = table.nr;
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
	tool.extra.ctx = &ss.breakdown;
	ret = counter_tool_main(&tool, &opts, obj->skeleton);
	breakdown_free(&ss.breakdown);
	events_stop(&ss.stream);
	sisscan_bpf__destroy(obj);
	free(table.metrics);
	topology_free(&ss.topo);
	cpustate_free(&ss.cpus);
	return ret;
}
