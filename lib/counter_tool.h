/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The shared body of a tool whose BPF side only counts events into a
 * per-CPU array: pick hooks, load, attach, report interval deltas of the
 * per-CPU sums, detach. Each tool's main() is then option parsing plus
 * one call.
 */
#ifndef SCHEDSCAN_COUNTER_TOOL_H
#define SCHEDSCAN_COUNTER_TOOL_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "filter.h"
#include "hist.h"
#include "hooks.h"
#include "options.h"
#include "preflight.h"
#include "report.h"

struct bpf_object_skeleton;
struct bpf_map;

#define COUNTER_TOOL_MAX_HOOKS 16
#define COUNTER_TOOL_MAX_METRICS 128

/*
 * A counter, or with nr_slots > 0 a histogram whose buckets are the
 * counter slots [counter, counter + nr_slots) (lib/hist.h slot rules).
 */
struct counter_metric {
	const char *name;	/* as in docs/metrics.md */
	unsigned int counter;	/* slot in the BPF counter map */
	int hook;		/* index in the hook table that feeds it */
	unsigned int nr_slots;	/* 0: a counter */
	enum hist_kind kind;	/* histograms: log2 or linear (base 0, step 1) */
	const char *unit;	/* histograms */
	/*
	 * Count histograms: slot k counts the value k (the last slot: k or
	 * more); shown in log2 slots unless --linear.
	 */
	bool counts;
	/*
	 * When hook is not attached, an estimate of the same quantity from
	 * fallback_hook into fallback_counter (reported as estimated).
	 */
	bool has_fallback;
	int fallback_hook;
	unsigned int fallback_counter;
	/*
	 * 1 + the index of a second hook this metric also depends on (0:
	 * none); without it the metric is not measured.
	 */
	int needs;
	/*
	 * A percentage of other metrics, by name: 100 * (a - b) / (c + d),
	 * b and d optional; no counter of its own.
	 */
	const char *ratio[4];
};

struct counter_tool {
	const char *tool;
	const char *what;	/* banner: "Tracing <what>..." */
	const struct hook_spec *hooks;
	int nr_hooks;
	const struct counter_metric *metrics;
	int nr_metrics;
	struct bpf_map *counters;
	unsigned int nr_counters;
	/*
	 * Optional: after the hooks are chosen and before the load (set
	 * .rodata), after the load (fill maps), after the attach. 0 or -1 with a
	 * sentence in err.
	 */
	void *user;
	int (*before_load)(void *user, const struct hook *hooks,
			   const struct common_opts *opts, char *err,
			   size_t errlen);
	int (*after_load)(void *user, const struct common_opts *opts,
			  char *err, size_t errlen);
	/*
	 * Before each window is reported (after the counters are read;
	 * final && intervals: the summary of a run with interval records),
	 * and the tool's own report sections.
	 */
	int (*window)(void *user, bool final, int intervals);
	struct report_extra extra;
	/* After attaching, before the first window starts. */
	int (*after_attach)(void *user, struct hook *hooks,
			    const struct common_opts *opts, char *err,
			    size_t errlen);
};

/*
 * The per-CPU sums of every key of a BPF_MAP_TYPE_PERCPU_ARRAY of __u64
 * (keys 0 .. nr_keys - 1), read in one batch lookup where the kernel has
 * them. fd: the loaded map's.
 */
struct percpu_sums {
	int fd, nr_cpus;
	unsigned int nr_keys;
	__u32 *keys;
	unsigned long long *values;	/* [nr_keys][nr_cpus] */
	bool no_batch;
};

int percpu_sums_init(struct percpu_sums *r, int fd, unsigned int nr_keys,
		     int nr_cpus);
int percpu_sums_read(struct percpu_sums *r, unsigned long long *sums);
void percpu_sums_free(struct percpu_sums *r);

/* Runs the tool on an opened (not loaded) skeleton; returns the exit code. */
int counter_tool_main(const struct counter_tool *tool,
		      const struct common_opts *opts,
		      struct bpf_object_skeleton *skeleton);

/*
 * main() of a counter tool whose skeleton is <skel>_bpf with a map named
 * "counters" (the skeleton types differ per tool, hence a macro).
 */
#define COUNTER_TOOL_MAIN(skel, tool_desc, doc)                                \
	int main(int argc, char **argv)                                        \
	{                                                                      \
		struct counter_tool tool = (tool_desc);                        \
		struct common_opts opts;                                       \
		struct skel##_bpf *obj;                                        \
		int ret;                                                       \
                                                                               \
		parse_tool_args(argc, argv, (doc), &opts);                     \
		if (preflight(tool.tool, &opts))                               \
			return 1;                                              \
		obj = skel##_bpf__open();                                      \
		if (!obj) {                                                    \
			fprintf(stderr, "%s: opening the BPF object failed\n", \
				tool.tool);                                    \
			return 1;                                              \
		}                                                              \
		filter_from_opts(&obj->rodata->schedscan_filter, &opts);       \
		tool.counters = obj->maps.counters;                            \
		ret = counter_tool_main(&tool, &opts, obj->skeleton);          \
		skel##_bpf__destroy(obj);                                      \
		return ret;                                                    \
	}

#endif
