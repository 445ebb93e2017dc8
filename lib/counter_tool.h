/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The shared body of a tool whose BPF side only counts events into a
 * per-CPU array: pick hooks, load, attach, report interval deltas of the
 * per-CPU sums, detach. Each tool's main() is then option parsing plus
 * one call.
 */
#ifndef SCHEDSCAN_COUNTER_TOOL_H
#define SCHEDSCAN_COUNTER_TOOL_H

#include <stdio.h>
#include "filter.h"
#include "hist.h"
#include "hooks.h"
#include "options.h"
#include "preflight.h"

struct bpf_object_skeleton;
struct bpf_map;

#define COUNTER_TOOL_MAX_HOOKS 16
#define COUNTER_TOOL_MAX_METRICS 32

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
};

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
