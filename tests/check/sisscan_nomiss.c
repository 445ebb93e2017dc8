// SPDX-License-Identifier: GPL-2.0
/*
 * sisscan's missed-idle known answer, in every tier. Four timer sleepers
 * (wakeloop -t 4), each started on its own CPU of an otherwise idle
 * guest: a wakeup has an idle CPU of its own (the sleeper's), so at least
 * 99% are placed on an unoccupied CPU and missed_idle is about 0.
 *
 * Not quite 0: two sleepers' wakeups can collide on one CPU. Seen in 6.12
 * under TCG: CPU 4's timer woke sleeper A there while CPU 6 woke sleeper
 * B and, CPU 4 still looking idle, queued B onto it; when A's placement
 * ended (select_task_rq_fair()'s exit, 1.7 ms after its waking: the vCPU
 * had been descheduled) CPU 4 had B pending, and CPUs 5-7 were idle: a
 * true missed idle. An ftrace replay of the workload's own wakeups
 * (sched_waking, sched_wakeup, and the switch away when the sleeper
 * sleeps again) counts the colliding wakeups: those whose [waking,
 * wakeup] overlaps another sleeper's [waking, sleep] on the same CPU.
 * missed_idle may not exceed them, plus 1 in 1000 for a foreign task (a
 * kworker) holding a sleeper's CPU. The placements are the wakeups the
 * workload counted (at least 95%: a wakeup can find the wakee still on
 * its CPU; at most 10 more: the threads' exits wake the main thread).
 *
 * Ported from guest-tests.sh's sis_no_miss.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "sisscan_wakeloop.h"
#include "util.h"

/* The neighbours on a CPU's list of wakeups a collision is looked for among. */
#define COLLISION_REACH 4

struct nomiss_data {
	struct wakeloop_data run;
	long traced, colliding;	/* the replay's wakeups, and those that collided */
};

/* One traced wakeup: waking, wakeup and the sleep that ended its run, s. */
struct traced_wakeup {
	double waking, wakeup, end;
	int cpu;
};

/*
 * The replay: each sched_wakeup of a sleeper is a wakeup on target_cpu,
 * begun at the same TID's last sched_waking and ended at its next switch
 * away to sleep (prev_state S or D; until then, the wakeup itself). A
 * wakeup collides when one of its CPU's neighbouring wakeups (in trace
 * order) was under way between its waking and its wakeup.
 */
static int collisions(const char *path, long *traced, long *colliding)
{
	struct traced_wakeup *w = NULL;
	size_t n = 0, cap = 0;
	/* by TID: the pending waking's time, the index of its last wakeup + 1 */
	struct pending { long tid; double waking; size_t last; } *tids = NULL;
	size_t nr_tids = 0, tids_cap = 0;
	char line[1024];
	FILE *f = fopen(path, "r");
	int ret = -1;

	*traced = *colliding = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		double t = trace_line_seconds(line);
		struct pending *p = NULL;
		long tid;

		if (t < 0)
			continue;
		if (trace_line_event(line, "sched_switch")) {
			const char *state = strstr(line, " prev_state=");

			if (!state || (state[12] != 'S' && state[12] != 'D'))
				continue;
			tid = trace_line_field(line, "prev_pid", -1);
		} else if (trace_line_event(line, "sched_waking") ||
			   trace_line_event(line, "sched_wakeup")) {
			tid = trace_line_field(line, "pid", -1);
		} else {
			continue;
		}
		for (size_t i = 0; i < nr_tids; i++)
			if (tids[i].tid == tid)
				p = &tids[i];
		if (!p) {
			if (grow_array((void **)&tids, &tids_cap, nr_tids + 1, sizeof(*tids)))
				goto out;
			p = &tids[nr_tids++];
			*p = (struct pending){ tid, -1, 0 };
		}
		if (trace_line_event(line, "sched_waking")) {
			p->waking = t;
		} else if (trace_line_event(line, "sched_wakeup")) {
			if (grow_array((void **)&w, &cap, n + 1, sizeof(*w)))
				goto out;
			w[n] = (struct traced_wakeup){ p->waking >= 0 ? p->waking : t, t, t,
						       (int)trace_line_field(line, "target_cpu", -1) };
			p->waking = -1;
			p->last = ++n;
		} else if (p->last) {
			w[p->last - 1].end = t;
			p->last = 0;
		}
	}
	*traced = (long)n;
	for (size_t x = 0; x < n; x++) {
		/* x's neighbours on its CPU: up to COLLISION_REACH before and after */
		long before = 0, after = 0;

		for (size_t y = x; y-- > 0 && before < COLLISION_REACH;) {
			if (w[y].cpu != w[x].cpu)
				continue;
			before++;
			if (w[y].waking <= w[x].wakeup && w[y].end >= w[x].waking)
				goto hit;
		}
		for (size_t y = x + 1; y < n && after < COLLISION_REACH; y++) {
			if (w[y].cpu != w[x].cpu)
				continue;
			after++;
			if (w[y].waking <= w[x].wakeup && w[y].end >= w[x].waking)
				goto hit;
		}
		continue;
hit:
		(*colliding)++;
	}
	ret = 0;
out:
	free(w);
	free(tids);
	fclose(f);
	return ret;
}

static const struct trace_event nomiss_events[] = {
	{ "sched/sched_waking", "comm == \"wakeloop\"" },
	{ "sched/sched_wakeup", "comm == \"wakeloop\"" },
	{ "sched/sched_switch", "prev_comm == \"wakeloop\"" },
};

static const struct wakeloop_setup nomiss = {
	.trace_events = nomiss_events,
	.nr_trace_events = sizeof(nomiss_events) / sizeof(nomiss_events[0]),
	.args = { "-t", "4", "-n", "500", "-s", "2000", NULL },
};

static int nomiss_run(enum check_tier tier, void *data, char *err, size_t errlen)
{
	struct nomiss_data *d = data;

	if (wakeloop_run(&nomiss, "nomiss", tier, &d->run, err, errlen))
		return -1;
	if (collisions(d->run.trace_path, &d->traced, &d->colliding))
		return errmsg(err, errlen, "cannot replay the trace %s", d->run.trace_path);
	printf("#   nomiss [%s]: placements %.0f, placed_unoccupied %.0f, missed_idle %.0f; wakeloop: %ld wakeups; ftrace: %ld wakeups, %ld colliding, %ld events lost\n",
	       check_tier_name(tier), d->run.placements, d->run.placed_unoccupied,
	       d->run.missed_idle, d->run.wakeups, d->traced, d->colliding, d->run.trace_lost);
	return 0;
}

static const struct scenario sc_nomiss = { "nomiss", sizeof(struct nomiss_data), nomiss_run };

/* Four sleepers on four CPUs, and CPUs besides them for a collision's wakee. */
#define NEEDS_NOMISS (NEED_ROOT | NEED_CPUS4)

CHECK(nomiss_placements, .id = "sisscan.known.nomiss.placements", .tool = "sisscan",
      .tiers = TIER_ALL, .kind = KIND_KNOWN_ANSWER, .needs = NEEDS_NOMISS,
      .tolerance = "10 above the wakeups, 5% below",
      .what = "each of the four timer sleepers' wakeups is one placement")
{
	const struct nomiss_data *d = scenario_get(r, &sc_nomiss);

	if (!d || check_absent(r, d->run.placements, "placements"))
		return;
	/* the margin read against the narrower side */
	check_near(r, d->run.placements, (double)d->run.wakeups,
		   (double)d->run.wakeups - floor(0.95 * (double)d->run.wakeups), 10,
		   "placements against wakeloop's %ld wakeups", d->run.wakeups);
}

CHECK(nomiss_unoccupied, .id = "sisscan.known.nomiss.placed_unoccupied", .tool = "sisscan",
      .tiers = TIER_ALL, .kind = KIND_KNOWN_ANSWER, .needs = NEEDS_NOMISS,
      .tolerance = "1% of the placements",
      .what = "a wakee with an idle CPU of its own is placed on an unoccupied CPU")
{
	const struct nomiss_data *d = scenario_get(r, &sc_nomiss);

	if (!d || check_absent(r, d->run.placements, "placements") ||
	    check_absent(r, d->run.placed_unoccupied, "placed_unoccupied"))
		return;
	/* more than the placements is a miscount, not a margin */
	if (d->run.placed_unoccupied > d->run.placements) {
		check_pass(r, false, "placed_unoccupied %.0f, more than the %.0f placements",
			   d->run.placed_unoccupied, d->run.placements);
		return;
	}
	check_bounds(r, d->run.placed_unoccupied, floor(0.99 * d->run.placements), INFINITY,
		     0.01 * d->run.placements, "placed_unoccupied of %.0f placements", d->run.placements);
}

CHECK(nomiss_missed, .id = "sisscan.known.nomiss.missed_idle", .tool = "sisscan",
      .tiers = TIER_ALL, .kind = KIND_KNOWN_ANSWER, .needs = NEEDS_NOMISS,
      .tolerance = "1 in 1000 placements above the colliding wakeups",
      .what = "no idle CPU is missed when every wakee has its own, but for colliding wakeups")
{
	const struct nomiss_data *d = scenario_get(r, &sc_nomiss);
	double slack;

	if (!d || check_absent(r, d->run.missed_idle, "missed_idle") ||
	    check_absent(r, d->run.placements, "placements"))
		return;
	if (d->run.trace_lost || d->traced < d->run.wakeups) {
		check_pass(r, false, "ftrace traced %ld of the %ld wakeups, %ld events lost: no replay to count collisions",
			   d->traced, d->run.wakeups, d->run.trace_lost);
		return;
	}
	slack = floor(d->run.placements / 1000);
	check_bounds(r, d->run.missed_idle, -INFINITY, (double)d->colliding + slack, slack,
		     "missed_idle of %.0f placements against %ld colliding wakeups in ftrace's %ld",
		     d->run.placements, d->colliding, d->traced);
}
