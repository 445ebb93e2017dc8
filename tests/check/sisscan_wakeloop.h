/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A wakeloop run under sisscan, the scenario behind sisscan's known
 * answers (sisscan_wakeloop.c, sisscan_nomiss.c).
 */
#ifndef SCHEDSCAN_CHECK_SISSCAN_WAKELOOP_H
#define SCHEDSCAN_CHECK_SISSCAN_WAKELOOP_H

#include "harness.h"

struct tick_replay {
	long wakings;		/* the sleeper's sched_waking events */
	long fp, fn;		/* the v1-v3 model's verdicts against the truth */
	long ticks0, idle0;	/* CPU 0's ticks and idle entries (diagnostics) */
	long crowded_ticks0;	/* CPU 0's ticks that may have found two tasks queued */
	long crowded_wakings;	/* wakings after such a tick (or before CPU 0's first) */
};

/*
 * A wakeloop run under sisscan (--comm wakeloop --linear), spinners
 * pinned around it, as one scenario sets it up.
 */
struct wakeloop_setup {
	const char *spin;		/* the CPUs to pin a spinner on ("1 1 3 3": two each) */
	bool spinners_first;		/* before the tool attaches; else after it, then 1 s */
	bool no_sis_util;		/* a full scan */
	bool no_delay_dequeue;		/* where the kernel has it (6.12+) */
	bool tick_trace;		/* ftrace for the tick model's replay (tick_replay()) */
	/* or ftrace with these events, for the caller's own replay of trace_path */
	const struct trace_event *trace_events;
	int nr_trace_events;
	const char *filters;		/* sisscan --filter in the decoding tiers, or NULL */
	const char *tracepoint_filters;	/* ... in the tracepoint tier */
	const char *args[12];		/* wakeloop's, NULL-terminated */
};

struct wakeloop_data {
	long wakeups;		/* what wakeloop counted */
	long landed[MAX_CPUS], slept[MAX_CPUS];
	long sleeper;		/* the sleeper's TID, -1 if wakeloop printed none (-t) */
	/* the tool's summary (NAN: absent) */
	double placements, placed_unoccupied;
	double search, domain_search, domain_hit, domain_failed, missed_idle, audits;
	double depth1, depth2;
	double util_skipped, util_limited, idle_scan0;
	double tick_fp, tick_fn, tick_hid_all_idle;
	double v4_passed, v4_fn, v4_balances, audit_unoccupied;
	double overloaded_fp, overloaded_fn;
	struct tick_replay replay;
	long trace_lost;
	char trace_path[300];
	char tool_out[256];	/* sisscan's JSON Lines */
};

/*
 * wakeloop's output at path ("wakeloop: pid ... wakeups N", "landed CPU N",
 * "slept CPU N") into d's wakeups, landed[] and slept[]. 0, or -1 with a
 * sentence in err.
 */
int wakeloop_read(const char *path, struct wakeloop_data *d, char *err, size_t errlen);

/*
 * Sets the machine up as setup says, runs wakeloop to its end under
 * sisscan in tier (--comm wakeloop --linear), and reads both outputs and
 * the trace into d; name tags the files in check_env.work. 0, or -1 with
 * a sentence in err.
 */
int wakeloop_run(const struct wakeloop_setup *setup, const char *name, enum check_tier tier,
		 struct wakeloop_data *d, char *err, size_t errlen);

#endif
