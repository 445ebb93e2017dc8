// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bpfstats.h"
#include "counter_tool.h"
#include "report.h"
#include "runloop.h"
#include "util.h"

/* log2 slots needed to hold value (slot k = [2^(k-1), 2^k - 1]). */
static unsigned int log2_slots_for(unsigned long long value)
{
	unsigned int slots = 1;

	while (value) {
		value >>= 1;
		slots++;
	}
	return slots;
}

struct counter_run {
	const struct counter_tool *tool;
	const struct common_opts *opts;
	struct hook hooks[COUNTER_TOOL_MAX_HOOKS];
	struct report report;
	unsigned long long *last;	/* cumulative sums at the last interval */
	unsigned long long *now;
	struct percpu_sums reader;	/* the counter map */
	struct hist hists[COUNTER_TOOL_MAX_METRICS];	/* histogram metrics */
	/* Where each metric is read from, once the hooks are chosen. */
	struct metric_source {
		int hook;
		unsigned int counter;
		bool estimated;
		int ratio[4];		/* metric indexes, -1: none */
	} sources[COUNTER_TOOL_MAX_METRICS];
};

int percpu_sums_init(struct percpu_sums *r, int fd, unsigned int nr_keys,
		     int nr_cpus)
{
	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->nr_keys = nr_keys;
	r->nr_cpus = nr_cpus;
	r->keys = calloc(nr_keys, sizeof(*r->keys));
	r->values = calloc((size_t)nr_keys * nr_cpus, sizeof(*r->values));
	return r->keys && r->values ? 0 : -ENOMEM;
}

void percpu_sums_free(struct percpu_sums *r)
{
	free(r->keys);
	free(r->values);
	memset(r, 0, sizeof(*r));
}

/*
 * Every key in one BPF_MAP_LOOKUP_BATCH (a tool has thousands of slots:
 * one lookup each would be as many syscalls per report, slow in the TCG
 * guests).
 */
static int percpu_sums_batch(struct percpu_sums *r, unsigned long long *sums)
{
	DECLARE_LIBBPF_OPTS(bpf_map_batch_opts, opts);
	__u32 count, out_batch = 0;
	unsigned int done = 0;

	while (done < r->nr_keys) {
		int ret;

		count = r->nr_keys - done;
		ret = bpf_map_lookup_batch(r->fd, done ? &out_batch : NULL, &out_batch,
					   r->keys + done,
					   r->values + (size_t)done * r->nr_cpus,
					   &count, &opts);
		done += count;
		if (ret && errno == ENOENT)
			break;
		if (ret)
			return -errno;
	}
	if (done != r->nr_keys)
		return -EIO;
	for (unsigned int i = 0; i < done; i++) {
		unsigned long long sum = 0;

		for (int cpu = 0; cpu < r->nr_cpus; cpu++)
			sum += r->values[(size_t)i * r->nr_cpus + cpu];
		if (r->keys[i] < r->nr_keys)
			sums[r->keys[i]] = sum;
	}
	return 0;
}

int percpu_sums_read(struct percpu_sums *r, unsigned long long *sums)
{
	if (!r->no_batch) {
		if (!percpu_sums_batch(r, sums))
			return 0;
		/* Kernels without batch lookups of arrays: key by key. */
		r->no_batch = true;
	}
	for (unsigned int key = 0; key < r->nr_keys; key++) {
		if (bpf_map_lookup_elem(r->fd, &key, r->values))
			return -errno;
		sums[key] = 0;
		for (int cpu = 0; cpu < r->nr_cpus; cpu++)
			sums[key] += r->values[cpu];
	}
	return 0;
}

static int read_counters(struct counter_run *run)
{
	return percpu_sums_read(&run->reader, run->now);
}

static unsigned long long window_count(const struct counter_run *run,
					 bool final, unsigned int c)
{
	return final ? run->now[c] : run->now[c] - run->last[c];
}

static void fill_hist(struct counter_run *run, bool final, int i,
		      unsigned int c)
{
	const struct counter_metric *m = &run->tool->metrics[i];
	struct hist *h = &run->hists[i];

	if (!m->counts || h->kind == HIST_LINEAR) {
		for (unsigned int k = 0; k < m->nr_slots; k++)
			h->slots[k] = window_count(run, final, c + k);
		return;
	}
	for (unsigned int k = 0; k < h->nr_slots; k++)
		h->slots[k] = 0;
	for (unsigned int k = 0; k < m->nr_slots; k++)
		hist_add(h, k, window_count(run, final, c + k));
}

static void fill_ratio(struct counter_run *run, int i,
		       struct metric_value *values)
{
	const int *parts = run->sources[i].ratio;
	double num, den;

	values[i].available = true;
	values[i].estimated = false;
	for (int p = 0; p < 4; p++) {
		if (parts[p] < 0)
			continue;
		if (!values[parts[p]].available) {
			values[i].available = false;
			values[i].why = values[parts[p]].why;
			return;
		}
		values[i].estimated |= values[parts[p]].estimated;
	}
	values[i].tier = values[parts[0]].tier;
	num = (double)values[parts[0]].value -
	      (parts[1] >= 0 ? (double)values[parts[1]].value : 0);
	den = (double)values[parts[2]].value +
	      (parts[3] >= 0 ? (double)values[parts[3]].value : 0);
	values[i].is_ratio = true;
	values[i].ratio = den > 0 ? 100.0 * num / den : NAN;
}

static void fill_metrics(struct counter_run *run, bool final,
			 struct metric_value *values)
{
	const struct counter_tool *tool = run->tool;

	for (int i = 0; i < tool->nr_metrics; i++) {
		const struct counter_metric *m = &tool->metrics[i];
		const struct metric_source *src = &run->sources[i];
		const struct hook *hook = &run->hooks[src->hook];

		values[i] = (struct metric_value){
			.name = m->name,
			.tier = flavour_name(hook->flavour),
			.available = hook->flavour != FLAVOUR_NONE,
			.estimated = src->estimated,
			.why = hook->why,
		};
		if (m->needs > 0 && m->needs <= tool->nr_hooks &&
		    run->hooks[m->needs - 1].flavour == FLAVOUR_NONE) {
			values[i].available = false;
			values[i].why = run->hooks[m->needs - 1].why;
		}
		if (m->ratio[0])
			continue;
		values[i].value = window_count(run, final, src->counter);
		if (!m->nr_slots)
			continue;
		fill_hist(run, final, i, src->counter);
		values[i].hist = &run->hists[i];
		values[i].unit = m->unit;
	}
	for (int i = 0; i < tool->nr_metrics; i++)
		if (tool->metrics[i].ratio[0])
			fill_ratio(run, i, values);
}

static int metric_index(const struct counter_tool *tool, const char *name)
{
	for (int i = 0; i < tool->nr_metrics; i++)
		if (!strcmp(tool->metrics[i].name, name))
			return i;
	return -1;
}

/* After the hooks are chosen: measured, estimated, or a ratio of others. */
static int resolve_sources(struct counter_run *run, char *err, size_t errlen)
{
	const struct counter_tool *tool = run->tool;

	for (int i = 0; i < tool->nr_metrics; i++) {
		const struct counter_metric *m = &tool->metrics[i];
		struct metric_source *src = &run->sources[i];

		src->hook = m->hook;
		src->counter = m->counter;
		src->estimated = false;
		if (m->has_fallback &&
		    run->hooks[m->hook].flavour == FLAVOUR_NONE &&
		    run->hooks[m->fallback_hook].flavour != FLAVOUR_NONE) {
			src->hook = m->fallback_hook;
			src->counter = m->fallback_counter;
			src->estimated = true;
		}
		for (int p = 0; p < 4; p++) {
			src->ratio[p] = m->ratio[p] ? metric_index(tool, m->ratio[p]) : -1;
			if (m->ratio[p] && (src->ratio[p] < 0 || src->ratio[p] >= i))
				return errmsg(err, errlen,
					      "ratio %s: %s is not an earlier metric",
					      m->name, m->ratio[p]);
		}
		if (m->ratio[0] && (src->ratio[2] < 0))
			return errmsg(err, errlen, "ratio %s has no denominator",
				      m->name);
		if (src->counter + (m->nr_slots ? m->nr_slots : 1) > tool->nr_counters &&
		    !m->ratio[0])
			return errmsg(err, errlen, "metric %s: counter out of range",
				      m->name);
	}
	return 0;
}

static int report_counters(void *ctx, const struct run_window *window)
{
	struct counter_run *run = ctx;
	struct metric_value values[COUNTER_TOOL_MAX_METRICS];
	struct prog_stat stats[COUNTER_TOOL_MAX_HOOKS * HOOK_MAX_PROGS];
	int nr_stats = 0, ret;

	/*
	 * After interval reports the summary reuses the last reading, so the
	 * intervals add up to it exactly.
	 */
	ret = window->final && window->intervals ? 0 : read_counters(run);
	if (ret) {
		fprintf(stderr, "%s: reading the counters failed: %s\n",
			run->tool->tool, strerror(-ret));
		return ret;
	}
	if (run->tool->window &&
	    run->tool->window(run->tool->user, window->final, window->intervals)) {
		fprintf(stderr, "%s: reading the breakdown failed\n", run->tool->tool);
		return -EIO;
	}
	fill_metrics(run, window->final, values);
	if (window->final && run->opts->stats)
		nr_stats = bpfstats_collect(run->hooks, run->tool->nr_hooks,
					    stats, sizeof(stats) / sizeof(stats[0]));
	if (report_window(&run->report, window, values, run->tool->nr_metrics,
			  stats, nr_stats)) {
		fprintf(stderr, "%s: writing the report failed\n", run->tool->tool);
		return -EIO;
	}
	memcpy(run->last, run->now, run->tool->nr_counters * sizeof(*run->now));
	return 0;
}

int counter_tool_main(const struct counter_tool *tool,
		      const struct common_opts *opts,
		      struct bpf_object_skeleton *skeleton)
{
	struct metric_value values[COUNTER_TOOL_MAX_METRICS];
	struct counter_run run = { .tool = tool, .opts = opts };
	char err[512];
	int stats_fd = -1, exit_code = 1, nr_cpus;

	if (tool->nr_hooks > COUNTER_TOOL_MAX_HOOKS ||
	    tool->nr_metrics > COUNTER_TOOL_MAX_METRICS)
		return 1;
	nr_cpus = libbpf_num_possible_cpus();
	run.last = calloc(tool->nr_counters, sizeof(*run.last));
	run.now = calloc(tool->nr_counters, sizeof(*run.now));
	run.report.extra = tool->extra;
	report_init(&run.report, tool->tool, probe_mode_name(opts->mode),
		    opts->json, opts->timestamp, stdout);
	if (nr_cpus <= 0 || !run.last || !run.now) {
		fprintf(stderr, "%s: out of memory\n", tool->tool);
		goto out;
	}
	for (int i = 0; i < tool->nr_metrics; i++) {
		const struct counter_metric *m = &tool->metrics[i];
		int ret = 0;

		if (!m->nr_slots)
			continue;
		if (m->counter + m->nr_slots > tool->nr_counters)
			ret = -EINVAL;
		else if (m->counts && !opts->linear)
			/* Enough log2 slots for the largest value, nr_slots - 1. */
			ret = hist_init_log2(&run.hists[i],
					     log2_slots_for(m->nr_slots - 1));
		else if (m->kind == HIST_LOG2 && !m->counts)
			ret = hist_init_log2(&run.hists[i], m->nr_slots);
		else
			ret = hist_init_linear(&run.hists[i], 0, 1, m->nr_slots);
		if (ret) {
			fprintf(stderr, "%s: histogram %s: %s\n", tool->tool,
				m->name, strerror(-ret));
			goto out;
		}
	}
	if (hooks_prepare(*skeleton->obj, tool->hooks, tool->nr_hooks, opts,
			  run.hooks, err, sizeof(err)) ||
	    resolve_sources(&run, err, sizeof(err)) ||
	    (tool->before_load &&
	     tool->before_load(tool->user, run.hooks, opts, err, sizeof(err)))) {
		fprintf(stderr, "%s: %s\n", tool->tool, err);
		goto out;
	}
	if (bpf_object__load_skeleton(skeleton)) {
		fprintf(stderr, "%s: loading the BPF programs failed: %s (run with -v for the verifier log)\n",
			tool->tool, strerror(errno));
		goto out;
	}
	if (percpu_sums_init(&run.reader, bpf_map__fd(tool->counters),
			     tool->nr_counters, nr_cpus)) {
		fprintf(stderr, "%s: out of memory\n", tool->tool);
		goto out;
	}
	if (tool->after_load &&
	    tool->after_load(tool->user, opts, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", tool->tool, err);
		goto out;
	}
	if (opts->stats) {
		stats_fd = bpfstats_enable(err, sizeof(err));
		if (stats_fd == -1) {
			fprintf(stderr, "%s: %s\n", tool->tool, err);
			goto out;
		}
	}
	run_install_signals();
	if (hooks_attach(run.hooks, tool->nr_hooks, err, sizeof(err)) ||
	    (tool->after_attach &&
	     tool->after_attach(tool->user, run.hooks, opts, err, sizeof(err)))) {
		fprintf(stderr, "%s: %s\n", tool->tool, err);
		goto out;
	}
	fill_metrics(&run, true, values);
	report_banner(&run.report, tool->what, values, tool->nr_metrics);
	exit_code = run_loop(opts, report_counters, &run) ? 1 : 0;
out:
	hooks_detach(run.hooks, tool->nr_hooks);
	if (stats_fd >= 0)
		close(stats_fd);
	report_free(&run.report);
	for (int i = 0; i < tool->nr_metrics; i++)
		hist_free(&run.hists[i]);
	free(run.last);
	free(run.now);
	percpu_sums_free(&run.reader);
	return exit_code;
}
