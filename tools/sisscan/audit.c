// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "audit.h"
#include "cpustate.h"
#include "json.h"
#include "probe.h"
#include "sisscan.skel.h"
#include "util.h"

const char *const sis_filter_names[SIS_NR_FILTERS] = {
	[SIS_FILTER_IDEAL] = "ideal",
	[SIS_FILTER_UNOCCUPIED] = "unoccupied",
	[SIS_FILTER_UNOCCUPIED_TICK] = "unoccupied_tick",
	[SIS_FILTER_OVERLOADED] = "overloaded",
	[SIS_FILTER_DELAYED] = "delayed",
	[SIS_FILTER_REAL] = "real",
};

int audit_parse_filters(const char *text, unsigned int *filters)
{
	const char *p = text;

	/* Every comma-separated name must be a filter: no empty ones. */
	for (;;) {
		size_t len = strcspn(p, ",");
		int f;

		for (f = 0; f < SIS_NR_FILTERS; f++)
			if (len == strlen(sis_filter_names[f]) &&
			    !strncmp(p, sis_filter_names[f], len))
				break;
		if (f == SIS_NR_FILTERS)
			return -1;
		*filters |= 1U << f;
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

static const char *name_of(struct audit_metrics *m, const char *fmt,
			   const char *filter)
{
	char *name = m->names[m->nr];

	snprintf(name, sizeof(m->names[0]), fmt, filter);
	return name;
}

static void add(struct audit_metrics *m, struct metric_spec spec)
{
	if (m->nr < AUDIT_MAX_METRICS)
		m->specs[m->nr++] = spec;
}

void audit_metrics_build(struct audit_metrics *m, unsigned int filters,
			 bool events, unsigned int needs, unsigned int v4_needs)
{
	static const struct { const char *name; unsigned int counter; } common[] = {
		{ "audits", SISSCAN_AUDITS },
		{ "audit_cpus", SISSCAN_AUDIT_CPUS },
		{ "audit_unoccupied", SISSCAN_AUDIT_UNOCCUPIED },
		{ "audit_truncated", SISSCAN_AUDIT_TRUNCATED },
		{ "events", SISSCAN_EVENTS },
		{ "events_dropped", SISSCAN_EVENTS_DROPPED },
	};

	m->nr = 0;
	if (!filters)
		return;
	for (unsigned int i = 0; i < ARRAY_SIZE(common); i++) {
		if (common[i].counter >= SISSCAN_EVENTS && !events)
			continue;
		add(m, (struct metric_spec){ .name = common[i].name,
					     .counter = common[i].counter, .needs = needs });
	}
	for (int f = 0; f < SIS_NR_FILTERS; f++) {
		unsigned int base = SISSCAN_FILTER_BASE + f * SIS_FC_STRIDE;
		const char *n = sis_filter_names[f];
		/* v4's updates come from load_balance(): no tracepoint has them. */
		unsigned int fneeds = needs | (f == SIS_FILTER_UNOCCUPIED ? v4_needs : 0);
		const char *passed, *fp, *fn;

		if (!(filters & (1U << f)))
			continue;
		if (f == SIS_FILTER_UNOCCUPIED) {
			add(m, (struct metric_spec){ .name = "filter_unoccupied_balances",
						     .counter = SISSCAN_V4_BALANCES, .needs = fneeds });
			add(m, (struct metric_spec){ .name = "filter_unoccupied_updates",
						     .counter = SISSCAN_V4_UPDATES, .needs = fneeds });
		}
		passed = name_of(m, "filter_%s_passed", n);
		add(m, (struct metric_spec){ .name = passed, .counter = base + SIS_FC_PASSED,
					     .needs = fneeds });
		fp = name_of(m, "filter_%s_fp", n);
		add(m, (struct metric_spec){ .name = fp, .counter = base + SIS_FC_FP,
					     .needs = fneeds });
		fn = name_of(m, "filter_%s_fn", n);
		add(m, (struct metric_spec){ .name = fn, .counter = base + SIS_FC_FN,
					     .needs = fneeds });
		add(m, (struct metric_spec){ .name = name_of(m, "filter_%s_hid_all_idle", n),
					     .counter = base + SIS_FC_HID_ALL, .needs = fneeds });
		add(m, (struct metric_spec){ .name = name_of(m, "filter_%s_fp_pct", n),
					     .ratio = { fp, NULL, passed, NULL } });
		add(m, (struct metric_spec){ .name = name_of(m, "filter_%s_fn_pct", n),
					     .ratio = { fn, NULL, "audit_unoccupied", NULL } });
		add(m, (struct metric_spec){
			.name = name_of(m, "filter_%s_scan_depth", n),
			.counter = base + SIS_FC_DEPTH_HIST, .needs = fneeds,
			.nr_slots = SISSCAN_COUNT_SLOTS, .kind = HIST_LINEAR,
			.counts = true, .has_sum = true, .unit = "cpus" });
		if (f == SIS_FILTER_IDEAL || f == SIS_FILTER_REAL)
			continue;
		if (filters & (1U << SIS_FILTER_REAL)) {
			const char *disagree = name_of(m, "filter_%s_disagree_real", n);

			add(m, (struct metric_spec){ .name = disagree,
						     .counter = base + SIS_FC_DISAGREE_REAL,
						     .needs = fneeds });
			add(m, (struct metric_spec){
				.name = name_of(m, "filter_%s_agree_real_pct", n),
				.ratio = { "audit_cpus", disagree, "audit_cpus", NULL } });
		}
		add(m, (struct metric_spec){
			.name = name_of(m, "filter_%s_stale_age_ns", n),
			.counter = base + SIS_FC_AGE_HIST, .needs = fneeds,
			.nr_slots = SISSCAN_TIME_SLOTS, .kind = HIST_LOG2,
			.has_sum = true, .unit = "nsecs" });
	}
}

/*
 * The real masks of a patched kernel, by the members the patches add,
 * and the sched features that switch them on in schedscan's test ports
 * (tests/vm/patches/; -1 when the kernel has none: the mask as posted,
 * always on). Returns false when the kernel has no mask at all.
 */
static bool find_real_masks(struct sisscan_bpf *obj)
{
	static const struct {
		const char *member, *feature;
	} overloaded[] = {
		{ "overloaded_cpus", "__SCHED_FEAT_SIS_FILTER" },	/* draft */
		{ "overloaded", "__SCHED_FEAT_SIS_FILTER" },		/* seed 001 */
	};
	long long value;
	int offset;

	offset = kernel_struct_member_offset("sched_domain_shared", "idle_cpus");	/* v4 */
	if (offset >= 0) {
		obj->rodata->real_idle_offset = offset;
		obj->rodata->real_idle_feature =
			kernel_enum_value("__SCHED_FEAT_SIS_FILTER_V4", &value) ? -1 : (int)value;
		/* sd_is_busy makes SIS return target unscanned: read by name. */
		offset = kernel_struct_member_offset("sched_domain_shared", "state");
		if (offset >= 0 && !kernel_enum_value("sd_is_busy", &value)) {
			obj->rodata->real_state_offset = offset;
			obj->rodata->real_busy_value = (__u32)value;
		}
	}
	for (unsigned int i = 0; i < ARRAY_SIZE(overloaded); i++) {
		offset = kernel_struct_member_offset("sched_domain_shared", overloaded[i].member);
		if (offset < 0)
			continue;
		obj->rodata->real_over_offset = offset;
		obj->rodata->real_over_feature =
			kernel_enum_value(overloaded[i].feature, &value) ? -1 : (int)value;
		break;
	}
	return obj->rodata->real_idle_offset >= 0 || obj->rodata->real_over_offset >= 0;
}

int audit_setup(struct sisscan_bpf *obj, unsigned int filters, double delay_ms,
		bool events, const struct common_opts *opts, char *err,
		size_t errlen)
{
	const unsigned int ticked = (1U << SIS_FILTER_UNOCCUPIED_TICK) |
				    (1U << SIS_FILTER_OVERLOADED);
	unsigned long long tick = 0;
	int ret;

	obj->rodata->audit_filters = filters;
	obj->rodata->audit_delay_ns = (__u64)(delay_ms * 1e6);
	obj->rodata->emit_events = events;
	if (filters & (1U << SIS_FILTER_REAL)) {
		if (!find_real_masks(obj))
			return errmsg(err, errlen,
				      "--filter real: this kernel's struct sched_domain_shared has no SIS filter mask "
				      "(idle_cpus, overloaded_cpus or overloaded): the SIS filter patches are not applied");
	}
	if (filters & ticked) {
		/*
		 * The tick's hrtimer callback: tick_sched_timer() until 6.9
		 * renamed it tick_nohz_handler(). Before that a different
		 * tick_nohz_handler() exists too (the low-resolution clock
		 * event handler, never an hrtimer callback), so the old name
		 * must be tried first.
		 */
		tick = kernel_symbol_address(opts->proc_root, "tick_sched_timer");
		if (!tick)
			tick = kernel_symbol_address(opts->proc_root, "tick_nohz_handler");
		if (!tick)
			return errmsg(err, errlen,
				      "--filter unoccupied_tick/overloaded: no tick_nohz_handler or tick_sched_timer in %s/kallsyms",
				      opts->proc_root);
	}
	obj->rodata->tick_function = tick;
	if (filters & (1U << SIS_FILTER_UNOCCUPIED)) {
		long long flag;

		/* An anonymous enum of sd_flags.h: CO-RE cannot relocate it. */
		if (kernel_enum_value("SD_SHARE_CPUCAPACITY", &flag) || flag <= 0)
			return errmsg(err, errlen,
				      "--filter unoccupied: the kernel's BTF has no SD_SHARE_CPUCAPACITY, "
				      "which marks the SMT domains whose balancing updates the v4 filter");
		obj->rodata->sd_share_cpucapacity = (__u32)flag;
	}
	/* Without --events the ring buffer is the smallest there is. */
	if (!events) {
		ret = bpf_map__set_max_entries(obj->maps.events, getpagesize());
		if (ret)
			return errmsg(err, errlen, "sizing the event buffer failed: %s",
				      strerror(-ret));
	}
	return 0;
}

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

bool audit_format_event(void *ctx, const void *data, size_t size,
			struct json_writer *w)
{
	const struct audit_stream *as = ctx;
	const struct sisscan_event *e = data;
	const struct cpumask *llc;

	if (size < sizeof(*e) || (int)e->llc >= as->cpus->nr_llcs)
		return false;
	llc = &as->cpus->llc_cpus[e->llc];
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
		if (as->filters & (1U << f))
			json_cpu_list(w, sis_filter_names[f], llc, e->passed[f]);
	json_end_object(w);
	return true;
}
