/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pieces of a tool's life cycle, as functions its main() calls in
 * the libbpf-tools order:
 *
 *	parse options, preflight, open the skeleton, set .rodata,
 *	tool_init(), tool_choose_hooks()   (hooks picked, metrics resolved)
 *	... the tool sets the rodata that depends on the chosen hooks ...
 *	tool_load(), tool_add_table()...,  (maps readable)
 *	tool_attach(), tool_run()          (banner, windows until the end)
 *	tool_destroy(), destroy the skeleton
 *
 * A tool describes its scalar metrics in a table (struct metric_spec):
 * counters and histograms in one per-CPU array of __u64 slots, ratios of
 * other metrics, each with the set of hooks it needs and an optional
 * estimate from other hooks. Keyed tables (lib/table.h) are added after
 * the load. Every window is rendered as text or JSON (lib/report.h) and,
 * cumulatively, as OpenMetrics (--prometheus-file, --listen).
 */
#ifndef SCHEDSCAN_TOOL_H
#define SCHEDSCAN_TOOL_H

#include <pthread.h>
#include <stdbool.h>
#include "hist.h"
#include "hooks.h"
#include "maps.h"
#include "options.h"
#include "report.h"
#include "selection.h"
#include "table.h"
#include "util.h"

struct bpf_object;
struct bpf_object_skeleton;
struct bpf_map;
struct httpd;

#define TOOL_MAX_HOOKS 32
#define TOOL_MAX_METRICS 128
#define TOOL_MAX_TABLES 12

struct metric_spec {
	const char *name;	/* as in docs/metrics.md */
	unsigned int counter;	/* first slot in the counter map */
	/*
	 * Every hook the metric needs; without all of them it is not
	 * measured (the first missing hook's reason is given). The tier
	 * shown is the most specific flavour among them (fentry before
	 * kprobe before the tracepoints). Ratios leave it 0: they take
	 * availability, tier and "estimated" from their inputs.
	 */
	unsigned int needs;
	/* When needs is not met: an estimate from these hooks, in this slot. */
	unsigned int fallback_needs;
	unsigned int fallback_counter;
	/* The fallback measures the same exactly (an older kernel's hook): not an estimate. */
	bool fallback_exact;
	/* Histograms: nr_slots > 0 buckets from counter (lib/hist.h rules). */
	unsigned int nr_slots;
	enum hist_kind kind;
	const char *unit;
	/*
	 * Count histograms: slot k counts the value k (the last: k or more),
	 * shown in log2 slots unless --linear.
	 */
	bool counts;
	/* The slot after the buckets holds the sum of the values (OpenMetrics _sum). */
	bool has_sum;
	/* A percentage of earlier metrics: 100 * (a - b) / (c + d), b and d optional. */
	const char *ratio[4];
	/* OpenMetrics help text; default: the name. */
	const char *help;
	/*
	 * A histogram of a wider scope (a node's, over an LLC's): its text is
	 * one line when its window equals that metric's (one LLC per node).
	 */
	const char *text_same_as;
	/*
	 * Read by user space from a kernel file (/proc/vmstat), not by a
	 * program: always available, tier "procfs"; the tool's adjust()
	 * fills its slot.
	 */
	bool procfs;
};

struct tool_desc {
	const char *name;	/* "sisscan" */
	const char *what;	/* banner: "Tracing <what>..." */
	const struct hook_spec *hooks;
	int nr_hooks;
	const struct metric_spec *metrics;
	int nr_metrics;
	unsigned int nr_counters;	/* slots of the counter map */
	const char *banner_note;	/* a line after the banner, or NULL */
	/*
	 * Optional, with ctx: finish() runs once counting has stopped, before
	 * the last reading; adjust() corrects each reading of the counters
	 * with what user space knows (records an output could not take).
	 */
	void (*finish)(void *ctx);
	void (*adjust)(void *ctx, unsigned long long *counts);
	/* Optional: runs as counting starts (a procfs metric's baseline); 0 or -1. */
	int (*start)(void *ctx);
	void *ctx;
};

/* Where each metric is read from once the hooks are chosen. */
struct metric_source {
	bool available, estimated;
	const char *tier, *why;
	unsigned int counter;
	int ratio[4];		/* metric indexes, -1: none */
};

struct tool {
	struct tool_desc desc;
	const struct common_opts *opts;
	struct hook hooks[TOOL_MAX_HOOKS];
	struct metric_source sources[TOOL_MAX_METRICS];
	struct hist hists[TOOL_MAX_METRICS];
	struct percpu_sums counters;
	/*
	 * Both banks' slots as read (raw, SCHEDSCAN_SLOT order) and as last
	 * taken into counted[], the per-counter sums of what the banks gained;
	 * bank: the one the BPF side counts in (or last did, once closed).
	 */
	unsigned long long *raw, *bank_seen, *counted;
	unsigned int bank;
	/*
	 * Cumulative counter sums (since the attach): the last read, the
	 * last window; and a window's.
	 */
	unsigned long long *now, *last, *win;
	struct table *tables[TOOL_MAX_TABLES];
	int nr_tables;
	struct report report;
	int stats_fd;
	/* Map reads and renders: the window loop and the HTTP thread. */
	pthread_mutex_t lock;
	struct httpd *httpd;
	/* --svg: every window's JSON record, drawn at the end. */
	struct strbuf svg_records;
	/* The BPF side's counting switch (mapped .data.run). */
	struct schedscan_run *run;
	/*
	 * The instant the last reading cut the count: its bank switch, or
	 * counting's stop (stopped). Its events end there, its durations are
	 * closed there, and its window's record ends there.
	 */
	struct tool_cut {
		unsigned long long ns;	/* CLOCK_MONOTONIC */
		double real, mono;	/* seconds */
	} cut;
	bool stopped;
	int stop_error;		/* reading the durations at the stop failed: -errno */
};

/* The skeleton's open options: --btf FILE for CO-RE relocations. */
const struct bpf_object_open_opts *tool_open_opts(const struct common_opts *opts);
/* 0, or -1 after printing a sentence to stderr (as every tool_* call). */
int tool_init(struct tool *t, const struct tool_desc *desc,
	      const struct common_opts *opts);
/* Between open and load: picks each hook's flavour and target, resolves the metrics. */
int tool_choose_hooks(struct tool *t, struct bpf_object *obj);
/* The hook as chosen (flavour FLAVOUR_NONE: not attached). */
static inline const struct hook *tool_hook(const struct tool *t, int hook)
{
	return &t->hooks[hook];
}
/* Whether every hook of a HOOK_BIT set was chosen. */
bool tool_has_hooks(const struct tool *t, unsigned int needs);
/* The source of the metric called name if it is available, else NULL. */
struct metric_source *tool_available_source(struct tool *t, const char *name);
/* The tier name of the most specific flavour among a set of hooks. */
const char *tool_tier(const struct tool *t, unsigned int needs);
int tool_load(struct tool *t, struct bpf_object_skeleton *skeleton,
	      struct bpf_map *counters);
/*
 * A keyed table read with the counters at every window (after
 * tool_load; the tool keeps the struct table). tier/estimated label it.
 */
int tool_add_table(struct tool *t, struct table *table,
		   const struct table_spec *spec, struct bpf_map *map,
		   struct bpf_map *drops, void *ctx, const char *tier,
		   bool estimated);
/*
 * A table the kernel keeps from this run: not every hook of needs was
 * chosen (the first missing one's reason is given), or why.
 */
void tool_table_unavailable(struct tool *t, const char *name, unsigned int needs);
void tool_table_unavailable_why(struct tool *t, const char *name, const char *why);
/*
 * --list-metrics, after the load and the tables (instead of the attach):
 * prints what a run would report and why the rest is not; the exit code.
 */
int tool_list_metrics(struct tool *t);
/* Enables --stats, installs the signal handlers, attaches every chosen hook. */
int tool_attach(struct tool *t);
/*
 * The banner, then windows until a signal, --duration or [count], then
 * the summary; with --listen, /metrics is served meanwhile. Returns the
 * exit code.
 */
int tool_run(struct tool *t);
void tool_destroy(struct tool *t);

#endif
