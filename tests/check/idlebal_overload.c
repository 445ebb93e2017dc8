// SPDX-License-Identifier: GPL-2.0
/*
 * idlebal's "overloaded while idle" (docs/metrics.md; seed 001's
 * cfs_rq_overloaded() and need_pull_cfs_task()): a group is overloaded
 * while idle when one of its runqueues holds more than one runnable
 * non-idle CFS task while another of its CPUs is unoccupied (idle, or
 * running only SCHED_IDLE tasks).
 *
 * Each scenario pins spinners so that the answer follows from the rule,
 * and reads the kernel's own accounting around a window of the tool's
 * (two SIGUSR1 cuts before and two after, the reads between each pair),
 * so the tool's window lies inside the reads and the edges last
 * milliseconds. CPU 1 holds the overloaded runqueue: it exists on the
 * 2-CPU host and in the 8-CPU guests alike, and the runner and the tool
 * run there, so the other CPUs are left to the scenario.
 *
 * The reference for a group with overloaded runqueues all the window
 * long: its other CPUs' unoccupied time, whose union no counter gives but
 * its parts bound. For each such CPU c, over the window:
 *   a CPU without SCHED_IDLE tasks is unoccupied while its idle task
 *   runs (idlebal's cpus.idle_ns, which tests/live/test_tables.sh holds to
 *   bpftrace's own sched_switch episodes, exactly), less the time a woken
 *   task waits for the switch away from it;
 *   a CPU with a SCHED_IDLE spinner is unoccupied while the spinner runs
 *   (its /proc/PID/schedstat) less the time normal tasks wait behind it,
 *   and at most while it or the idle task runs, or an interrupt or the
 *   host takes the CPU from them (irq, softirq, steal of /proc/stat).
 * The waits are c's run_delay in /proc/schedstat less the spinner's own;
 * on a kernel without schedstats (the host's), those of every task but the
 * scenario's own (the runner, its tool and workloads, all pinned where the
 * scenario puts them), from /proc/PID/task/TID/schedstat: summed over
 * every CPU, they bound what c saw. Not /proc/stat's idle, nor the other tasks' run times: on the
 * host's kernel a service's threads run on CPU 0 (perf's sched_switch:
 * 173 ms of a 4 s window) with none of it in their schedstat, and
 * /proc/stat counts that time idle. The union of the CPUs' unoccupied time
 * lies between the largest lower bound and the sum of the upper bounds,
 * capped at the window.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "procstat.h"
#include "schedstat.h"
#include "util.h"

#define OVERLOADED_CPU 1
/* Percentage points of the window: the cuts' edges and /proc/stat's 10 ms ticks. */
#define WINDOW_TOLERANCE 1.0
#define CLOCKSOURCE_DIR "/sys/devices/system/clocksource/clocksource0"

enum spinner_place { NOT_SPINNING, NORMAL_SPINNER, IDLE_SPINNER };

struct overload_setup {
	const char *name;
	int pinned[MAX_CPUS];		/* normal spinners pinned to each CPU */
	int free_spinners;		/* unpinned normal spinners */
	bool others;			/* one spinner on each CPU with none pinned ... */
	bool others_sched_idle;		/* ... as SCHED_IDLE */
	bool stop_machine;		/* two clocksource changes in the window */
};

struct cpu_window {
	double idle_ns, taken_ns;	/* /proc/stat: idle + iowait; irq + softirq + steal */
	double sched_idle_run_ns;	/* the CPU's SCHED_IDLE spinner's run time between its reads */
	double sched_idle_run_lo_ns;	/* ... at least this much of it inside the tool's window */
	double normal_wait_ns;		/* the other tasks' waits on it; -1: unknown */
	double spinner_read_begin, spinner_read_end;	/* its first read began, its last ended */
	bool sched_idle_spinner;
};

struct overload_data {
	double window_s;		/* the tool's window */
	double window_ns;		/* ... in ns */
	double ref_window_ns;		/* between the kernel reads */
	double others_run_ns, others_wait_ns;	/* every task's but the scenario's */
	double sched_clock_rate;		/* ktime ns per scheduler-clock ns */
	int nr_cpus;
	struct cpu_window cpu[MAX_CPUS];
	int overloaded[MAX_CPUS];	/* pinned normal spinners on each CPU */
	/* the tool's window, in % of it, per LLC and node row; system */
	double llc_pct[MAX_CPUS], llc_one_pct[MAX_CPUS], llc_two_pct[MAX_CPUS];
	double node_pct[MAX_CPUS], system_pct;
	double tool_idle_pct[MAX_CPUS];	/* the tool's cpus.idle_ns, for the diagnostics */
	double system_episodes;
	char clocksource_path[160];	/* the stop_machine scenario's changes */
	bool clocksource_restored;
	char no_clocksource[200];	/* why the stop_machine scenario could not run */
};

/* ------------------------------------------------------------ reading */

struct kernel_reads {
	double mono_ns;
	struct procstat stat;
	uint64_t spinner_run[MAX_CPUS], spinner_wait[MAX_CPUS];
	/* realtime s just before and after each spinner's read, the tool's clock */
	double spinner_read_begin[MAX_CPUS], spinner_read_end[MAX_CPUS];
	struct task_snapshot others;	/* every task's run and waits but ours */
	struct schedstat sched;		/* per-CPU run_delay, where the kernel has schedstats */
	bool have_sched;
	long long ktime_ns, cpu_clock_ns;	/* the scheduler's clock against ktime */
};

static int read_kernel(struct kernel_reads *k, const pid_t *idle_spinner, int nr_cpus, char *err,
		       size_t errlen)
{
	memset(k, 0, sizeof(*k));
	k->mono_ns = (double)monotonic_ns();
	if (procstat_read(NULL, &k->stat, err, errlen))
		return -1;
	for (int c = 0; c < nr_cpus; c++) {
		int failed;

		if (idle_spinner[c] <= 0)
			continue;
		k->spinner_read_begin[c] = realtime_seconds();
		failed = task_schedstat(idle_spinner[c], &k->spinner_run[c], &k->spinner_wait[c]);
		k->spinner_read_end[c] = realtime_seconds();
		if (failed) {
			procstat_free(&k->stat);
			return errmsg(err, errlen, "cannot read /proc/%d/schedstat", (int)idle_spinner[c]);
		}
	}
	if (tasks_snapshot(&k->others)) {
		procstat_free(&k->stat);
		return errmsg(err, errlen, "cannot read the tasks' /proc/PID/task/TID/schedstat");
	}
	/* without CONFIG_SCHEDSTATS (the host's kernel) every task's waits bound c's */
	k->have_sched = !schedstat_read(NULL, &k->sched, NULL, 0);
	schedstat_clocks(&k->ktime_ns, &k->cpu_clock_ns);
	return 0;
}

/* CPU c's run_delay (every task's waits there), ns, or -1. */
static double run_delay(const struct kernel_reads *k, int cpu)
{
	const struct schedstat_cpu *c = k->have_sched ? schedstat_find_cpu(&k->sched, cpu) : NULL;

	return c ? (double)schedstat_cpu_value(c, SS_CPU_RUN_DELAY) : -1;
}

static void free_kernel(struct kernel_reads *k)
{
	procstat_free(&k->stat);
	tasks_free(&k->others);
	if (k->have_sched)
		schedstat_free(&k->sched);
}

static int write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	int ok;

	if (!f)
		return -1;
	ok = fputs(text, f) >= 0;
	return fclose(f) == 0 && ok ? 0 : -1;
}

/*
 * Two clocksource changes (to another and back): timekeeping_notify()
 * runs each under stop_machine(), whose stopper occupies every CPU, so the
 * overloaded-while-idle state ends and begins again after each.
 */
static void change_clocksource_twice(struct overload_data *d)
{
	char now[64] = "", avail[256] = "", other[64] = "", *tok, *save = NULL;
	char *text;

	if (!read_text_file(CLOCKSOURCE_DIR "/current_clocksource", &text, NULL, 0)) {
		snprintf(now, sizeof(now), "%s", text);
		free(text);
	}
	if (!read_text_file(CLOCKSOURCE_DIR "/available_clocksource", &text, NULL, 0)) {
		snprintf(avail, sizeof(avail), "%s", text);
		free(text);
	}
	now[strcspn(now, " \n")] = '\0';
	for (tok = strtok_r(avail, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save))
		if (strcmp(tok, now)) {
			snprintf(other, sizeof(other), "%s", tok);
			break;
		}
	if (!now[0] || !other[0]) {
		snprintf(d->no_clocksource, sizeof(d->no_clocksource),
			 "no second clocksource to switch to (current '%s')", now);
		return;
	}
	if (write_text(CLOCKSOURCE_DIR "/current_clocksource", other)) {
		snprintf(d->no_clocksource, sizeof(d->no_clocksource),
			 "cannot write %s to current_clocksource", other);
		return;
	}
	write_text(CLOCKSOURCE_DIR "/current_clocksource", now);
	if (!read_text_file(CLOCKSOURCE_DIR "/current_clocksource", &text, NULL, 0)) {
		text[strcspn(text, " \n")] = '\0';
		d->clocksource_restored = !strcmp(text, now);
		snprintf(d->clocksource_path, sizeof(d->clocksource_path), "%s -> %s -> %s", now,
			 other, text);
		free(text);
	}
}

/*
 * The spinner's run between its reads, less the time from its first read
 * to the window's start and from the window's end to its last read: at
 * least this much of it ran inside the tool's window. The reads are
 * bounded by realtime stamps on our side; the window by the tool's
 * realtime stamps, taken after a cut's signal and before its record,
 * so inside the reads whatever the runner was preempted for between them.
 */
static void spinner_run_in_window(struct overload_data *d, const struct jv *win)
{
	double start, end;

	if (!jv_number(jv_get(win, "start"), &start) || !jv_number(jv_get(win, "end"), &end))
		return;
	for (int c = 0; c < d->nr_cpus; c++) {
		struct cpu_window *w = &d->cpu[c];
		double outside;

		if (!w->sched_idle_spinner)
			continue;
		outside = fmax(0, start - w->spinner_read_begin) + fmax(0, w->spinner_read_end - end);
		w->sched_idle_run_lo_ns = fmax(0, w->sched_idle_run_ns - outside * 1e9);
	}
}

static int overload_run(const struct overload_setup *setup, enum check_tier tier,
			struct overload_data *d, char *err, size_t errlen)
{
	const struct topology *t = &check_env.topo;
	pid_t idle_spinner[MAX_CPUS] = { 0 };
	struct kernel_reads a, b;
	struct tool_run tool;
	struct records recs = { 0 };
	const struct jv *win;
	char tag[64];
	cpu_set_t old;
	int ret = -1;

	d->nr_cpus = t->nr_cpu_ids < MAX_CPUS ? t->nr_cpu_ids : MAX_CPUS;
	if (d->nr_cpus <= OVERLOADED_CPU || t->llc_of_cpu[OVERLOADED_CPU] < 0)
		return errmsg(err, errlen, "CPU %d is offline", OVERLOADED_CPU);
	if (pin_self(OVERLOADED_CPU, &old))
		return errmsg(err, errlen, "cannot pin the runner to CPU %d", OVERLOADED_CPU);
	/*
	 * The tool first: with every CPU busy its attach took 28 s instead of
	 * 3 s in the TCG guests (tests/vm), and over a minute with SCHED_IDLE
	 * spinners.
	 */
	snprintf(tag, sizeof(tag), "overload.%s.%s", setup->name, check_tier_name(tier));
	if (tool_start(&tool, "idlebal", tier, OVERLOADED_CPU, tag, err, errlen, "-i", "600", "-d",
		       "900", ARGS_END))
		goto out;
	for (int c = 0; c < d->nr_cpus; c++) {
		char cpu[16];

		if (t->llc_of_cpu[c] < 0)
			continue;
		snprintf(cpu, sizeof(cpu), "%d", c);
		d->overloaded[c] = setup->pinned[c];
		for (int i = 0; i < setup->pinned[c]; i++)
			if (workload_start(err, errlen, "spinner", "-c", cpu, "-s", "600", ARGS_END) < 0)
				goto stop;
		if (setup->others && !setup->pinned[c] && c != OVERLOADED_CPU) {
			pid_t p = workload_start(err, errlen, "spinner", "-c", cpu, "-s", "600",
						 setup->others_sched_idle ? "-i" : ARGS_END, ARGS_END);

			if (p < 0)
				goto stop;
			if (setup->others_sched_idle) {
				idle_spinner[c] = p;
				d->cpu[c].sched_idle_spinner = true;
			}
		}
	}
	for (int i = 0; i < setup->free_spinners; i++)
		if (workload_start(err, errlen, "spinner", "-s", "600", ARGS_END) < 0)
			goto stop;

	/* the spinners settle (a free pair is separated by the balancer) */
	sleep_seconds(1);
	if (tool_cut(&tool, err, errlen) || read_kernel(&a, idle_spinner, d->nr_cpus, err, errlen) ||
	    tool_cut(&tool, err, errlen))
		goto stop;
	if (setup->stop_machine) {
		sleep_seconds(1.5);
		change_clocksource_twice(d);
		sleep_seconds(2.5);
	} else {
		sleep_seconds(4);
	}
	if (tool_cut(&tool, err, errlen) || read_kernel(&b, idle_spinner, d->nr_cpus, err, errlen)) {
		free_kernel(&a);
		goto stop;
	}
	tool_cut(&tool, err, errlen);
	d->ref_window_ns = b.mono_ns - a.mono_ns;
	/* schedstat's times, on the scheduler's clock, in ktime's ns */
	d->sched_clock_rate = 1;
	if (a.ktime_ns && b.ktime_ns > a.ktime_ns && b.cpu_clock_ns > a.cpu_clock_ns)
		d->sched_clock_rate = (double)(b.ktime_ns - a.ktime_ns) /
				      (double)(b.cpu_clock_ns - a.cpu_clock_ns);
	{
		uint64_t run, wait;

		tasks_between(&a.others, &b.others, &run, &wait);
		d->others_run_ns = (double)run * d->sched_clock_rate;
		d->others_wait_ns = (double)wait * d->sched_clock_rate;
	}
	for (int c = 0; c < d->nr_cpus; c++) {
		struct cpu_window *w = &d->cpu[c];

		if (c >= a.stat.nr_cpus || c >= b.stat.nr_cpus)
			continue;
		w->idle_ns = (double)(procstat_idle_ns(&b.stat.cpu[c]) - procstat_idle_ns(&a.stat.cpu[c]));
		w->taken_ns = (double)(procstat_idle_upper_ns(&b.stat.cpu[c]) -
				       procstat_idle_upper_ns(&a.stat.cpu[c])) - w->idle_ns;
		if (idle_spinner[c] > 0) {
			w->sched_idle_run_ns = (double)(b.spinner_run[c] - a.spinner_run[c]) *
					       d->sched_clock_rate;
			w->spinner_read_begin = a.spinner_read_begin[c];
			w->spinner_read_end = b.spinner_read_end[c];
		}
		/* the waits on c of every task but its SCHED_IDLE spinner */
		w->normal_wait_ns = -1;
		if (run_delay(&a, c) >= 0 && run_delay(&b, c) >= 0) {
			w->normal_wait_ns = run_delay(&b, c) - run_delay(&a, c);
			if (idle_spinner[c] > 0)
				w->normal_wait_ns -= (double)(b.spinner_wait[c] - a.spinner_wait[c]);
			w->normal_wait_ns = fmax(0, w->normal_wait_ns) * d->sched_clock_rate;
		}
	}
	free_kernel(&a);
	free_kernel(&b);
	ret = 0;
stop:
	tool_stop(&tool);
	if (!ret && tool.status != 0)
		ret = errmsg(err, errlen, "idlebal exited with status %d (%s)", tool.status, tool.err);
	/* the tool's window: the third interval, between the two reads */
	if (!ret && records_read(tool.out, &recs, err, errlen))
		ret = -1;
	if (!ret) {
		win = record_of_type(&recs, "interval", 2);
		if (!win || !record_of_type(&recs, "interval", 3)) {
			ret = errmsg(err, errlen, "idlebal wrote no record for each of the four cuts (%s)",
				     tool.out);
		} else {
			double ns;

			d->window_s = record_seconds(win);
			ns = d->window_s * 1e9;
			d->window_ns = ns;
			spinner_run_in_window(d, win);
			for (int l = 0; l < t->nr_llcs && l < MAX_CPUS; l++) {
				d->llc_pct[l] = 100 * table_sum(win, "overload_llc", "llc", l, "overloaded_idle_ns") / ns;
				d->llc_one_pct[l] = 100 * table_sum(win, "overload_llc", "llc", l, "overloaded_1_ns") / ns;
				d->llc_two_pct[l] = 100 * table_sum(win, "overload_llc", "llc", l, "overloaded_2_ns") / ns;
			}
			for (int n = 0; n < t->nr_nodes && n < MAX_CPUS; n++)
				d->node_pct[n] = 100 * table_sum(win, "overload_node", "node", n, "overloaded_idle_ns") / ns;
			d->system_pct = 100 * table_sum(win, "overload_system", "system", -1, "overloaded_idle_ns") / ns;
			for (int c = 0; c < d->nr_cpus; c++)
				d->tool_idle_pct[c] = 100 * table_sum(win, "cpus", "cpu", c, "idle_ns") / ns;
			d->system_episodes = table_sum(win, "overload_system", "system", -1, "overload_episodes");
		}
		records_free(&recs);
	}
out:
	workloads_stop();
	unpin_self(&old);
	return ret;
}

/* ------------------------------------------------------------ bounds */

/*
 * The share of the reference window (in %) in which at least one CPU of
 * mask, other than the overloaded ones, was unoccupied: [lo, hi].
 */
static void unoccupied_union(const struct overload_data *d, const struct cpumask *mask,
			     double *lo, double *hi)
{
	double sum_hi = 0, max_lo = 0;

	for (int c = 0; c < d->nr_cpus; c++) {
		const struct cpu_window *w = &d->cpu[c];
		double l, h;

		if (!cpumask_test(mask, c) || d->overloaded[c] > 1)
			continue;
		/* c's own waits where the kernel counts them, else every task's */
		double waits = w->normal_wait_ns >= 0 ? w->normal_wait_ns : d->others_wait_ns;

		/*
		 * In % of the tool's window. The kernel's counts span the reads
		 * around it, which take longer when the runner is preempted on
		 * the overloaded CPU: whatever they add outside the window
		 * widens the bounds, never narrows them.
		 */
		if (w->sched_idle_spinner) {
			l = 100 * (w->sched_idle_run_lo_ns - waits) / d->window_ns;
			h = d->tool_idle_pct[c] +
			    100 * (w->sched_idle_run_ns + w->taken_ns) / d->window_ns;
		} else {
			l = d->tool_idle_pct[c] - 100 * waits / d->window_ns;
			h = d->tool_idle_pct[c];
		}
		max_lo = fmax(max_lo, l);
		sum_hi += h;
	}
	*lo = max_lo;
	*hi = fmin(100, sum_hi);
}

static void diag_cpus(struct check_run *r, const struct overload_data *d)
{
	struct strbuf b = { 0 };

	for (int c = 0; c < d->nr_cpus; c++) {
		const struct cpu_window *w = &d->cpu[c];

		strbuf_printf(&b, "%d:%.2f/%.2f/%.2f", c, d->tool_idle_pct[c],
			      100 * w->idle_ns / d->ref_window_ns, 100 * w->taken_ns / d->ref_window_ns);
		if (w->sched_idle_spinner)
			strbuf_printf(&b, "+%.1f(>=%.1f%% of the tool's)",
				      100 * w->sched_idle_run_ns / d->ref_window_ns,
				      100 * w->sched_idle_run_lo_ns / d->window_ns);
		if (w->normal_wait_ns >= 0)
			strbuf_printf(&b, " waits %.2f", 100 * w->normal_wait_ns / d->ref_window_ns);
		strbuf_printf(&b, " ");
	}
	check_diag(r, "per CPU, %% of the %.3f s between the kernel reads: the tool's idle (%% of its window)/proc idle/irq+softirq+steal[+SCHED_IDLE spinner's run][ waits]: %s",
		   d->ref_window_ns / 1e9, b.buf ? b.buf : "");
	check_diag(r, "the other tasks waited %.2f%% of the window (their schedstat shows them running %.2f%%)",
		   100 * d->others_wait_ns / d->ref_window_ns, 100 * d->others_run_ns / d->ref_window_ns);
	check_diag(r, "the tool: system %.2f%% (%g episodes begun) in %.3f s; the scheduler's clock at %.4f ns of ktime a ns",
		   d->system_pct, d->system_episodes, d->window_s, d->sched_clock_rate);
	strbuf_free(&b);
}

/*
 * The tool's share of a group against the union of its other CPUs'
 * unoccupied time, within WINDOW_TOLERANCE points.
 */
static void judge_group(struct check_run *r, const struct overload_data *d, double tool_pct,
			const struct cpumask *mask, const char *what)
{
	double lo, hi;

	unoccupied_union(d, mask, &lo, &hi);
	check_bounds(r, tool_pct, lo - WINDOW_TOLERANCE, hi + WINDOW_TOLERANCE, WINDOW_TOLERANCE,
		     "%s: %% of a %.2f s window; the other CPUs unoccupied %.2f-%.2f%%", what,
		     d->window_s, lo, hi);
	/* the parts of the bounds, where a failure or a near one needs them */
	if (tool_pct < lo - WINDOW_TOLERANCE / 2 || tool_pct > hi + WINDOW_TOLERANCE / 2)
		diag_cpus(r, d);
}

/* The largest share of any LLC, node or the system: "nothing overloaded". */
static double largest_share(const struct overload_data *d, const char **which, int *index)
{
	double m = d->system_pct;

	*which = "system";
	*index = 0;
	for (int l = 0; l < check_env.topo.nr_llcs && l < MAX_CPUS; l++)
		if (d->llc_pct[l] > m) {
			m = d->llc_pct[l];
			*which = "LLC";
			*index = l;
		}
	for (int n = 0; n < check_env.topo.nr_nodes && n < MAX_CPUS; n++)
		if (d->node_pct[n] > m) {
			m = d->node_pct[n];
			*which = "node";
			*index = n;
		}
	return m;
}

/* ------------------------------------------------------------ scenarios */

#define SCENARIO(var, ...)							\
	static int var##_run(enum check_tier tier, void *data, char *err, size_t errlen) \
	{									\
		static const struct overload_setup setup = { __VA_ARGS__ };	\
		return overload_run(&setup, tier, data, err, errlen);		\
	}									\
	static const struct scenario var = { #var + 3, sizeof(struct overload_data), var##_run }

/* Two spinners pinned to CPU 1, the rest idle. */
SCENARIO(sc_pinned, .name = "pinned", .pinned = { [OVERLOADED_CPU] = 2 });
/* The same, two stop_machine() calls in the window. */
SCENARIO(sc_stop_machine, .name = "stop_machine", .pinned = { [OVERLOADED_CPU] = 2 },
			   .stop_machine = true);
/* Two spinners each on CPUs 1 and 2. */
SCENARIO(sc_two_rqs, .name = "two_rqs", .pinned = { [1] = 2, [2] = 2 });
/* Two spinners free to move. */
SCENARIO(sc_free_pair, .name = "free", .free_spinners = 2);
/* CPU 1 overloaded, a SCHED_IDLE spinner on every other CPU. */
SCENARIO(sc_sched_idle, .name = "sched_idle", .pinned = { [OVERLOADED_CPU] = 2 },
			 .others = true, .others_sched_idle = true);
/* CPU 1 overloaded, a normal spinner on every other CPU. */
SCENARIO(sc_busy_others, .name = "busy_others", .pinned = { [OVERLOADED_CPU] = 2 },
			  .others = true);

/* ------------------------------------------------------------ checks */

#define TOLERANCE_TEXT "1 point of the window"

enum group_share { SHARE_LLC, SHARE_LLC_ONE_RQ, SHARE_LLC_TWO_RQS, SHARE_NODE, SHARE_SYSTEM };

/*
 * A group holding CPU 1, overloaded all the window: its share against the
 * union of its other CPUs' unoccupied time. The scenario holds only if
 * that union is most of the window (at least half).
 */
static void judge_share(struct check_run *r, const struct scenario *s, enum group_share which,
			const char *what)
{
	const struct overload_data *d = scenario_get(r, s);
	const struct topology *t = &check_env.topo;
	int llc = t->llc_of_cpu[OVERLOADED_CPU], node = t->node_of_cpu[OVERLOADED_CPU];
	const struct cpumask *mask = &t->online;
	double pct, lo, hi;

	if (!d)
		return;
	if (s == &sc_stop_machine && d->no_clocksource[0]) {
		check_skip(r, "%s", d->no_clocksource);
		return;
	}
	switch (which) {
	case SHARE_LLC:
	case SHARE_LLC_ONE_RQ:
	case SHARE_LLC_TWO_RQS:
		mask = &t->llc_cpus[llc];
		pct = which == SHARE_LLC ? d->llc_pct[llc] :
		      which == SHARE_LLC_ONE_RQ ? d->llc_one_pct[llc] : d->llc_two_pct[llc];
		break;
	case SHARE_NODE:
		mask = &t->node_cpus[node];
		pct = d->node_pct[node];
		break;
	default:
		pct = d->system_pct;
	}
	unoccupied_union(d, mask, &lo, &hi);
	if (lo < 50) {
		check_pass(r, false, "the scenario did not hold: the other CPUs unoccupied at least %.2f%% only (< 50%%)",
			   lo);
		diag_cpus(r, d);
		return;
	}
	judge_group(r, d, pct, mask, what);
}

/* GROUP_CHECK(name, scenario, share, text, .needs/.what): idlebal.known.overload.NAME */
#define GROUP_CHECK(name, scenario, share, text, ...)				\
	CHECK(name, .id = "idlebal.known.overload." #name, .tool = "idlebal",	\
	      .tiers = TIER_TRACEPOINT, .kind = KIND_KNOWN_ANSWER,		\
	      .tolerance = TOLERANCE_TEXT, __VA_ARGS__)				\
	{									\
		judge_share(r, &scenario, share, text);				\
	}

GROUP_CHECK(pinned_llc, sc_pinned, SHARE_LLC, "CPU 1's LLC overloaded while idle",
	    .needs = NEED_ROOT,
	    .what = "two spinners pinned to CPU 1: its LLC is overloaded while idle exactly while another of its CPUs is unoccupied")
GROUP_CHECK(pinned_one_rq, sc_pinned, SHARE_LLC_ONE_RQ, "CPU 1's LLC overloaded by one runqueue",
	    .needs = NEED_ROOT,
	    .what = "two spinners pinned to CPU 1: all that time is overloaded by one runqueue (overloaded_1_ns)")
GROUP_CHECK(pinned_node, sc_pinned, SHARE_NODE, "CPU 1's node overloaded while idle",
	    .needs = NEED_ROOT,
	    .what = "two spinners pinned to CPU 1: its node is overloaded while another of its CPUs is unoccupied")
GROUP_CHECK(pinned_system, sc_pinned, SHARE_SYSTEM, "the system overloaded while idle",
	    .needs = NEED_ROOT,
	    .what = "two spinners pinned to CPU 1: the system is overloaded while any other CPU is unoccupied")
GROUP_CHECK(stop_machine_system, sc_stop_machine, SHARE_SYSTEM,
	    "the system overloaded while idle, with stop_machine()", .needs = NEED_ROOT,
	    .what = "two spinners pinned to CPU 1 and two stop_machine() calls: the system still overloaded while another CPU is unoccupied")
GROUP_CHECK(two_rqs, sc_two_rqs, SHARE_LLC_TWO_RQS, "CPU 1's LLC overloaded by two runqueues",
	    .needs = NEED_ROOT | NEED_CPUS4,
	    .what = "two spinners each on CPUs 1 and 2: their LLC overloaded by two runqueues while another of its CPUs is unoccupied")
GROUP_CHECK(sched_idle_llc, sc_sched_idle, SHARE_LLC, "CPU 1's LLC overloaded while sched-idle",
	    .needs = NEED_ROOT,
	    .what = "CPU 1 overloaded, a SCHED_IDLE spinner on every other CPU: sched-idle counts as idle")
GROUP_CHECK(sched_idle_system, sc_sched_idle, SHARE_SYSTEM, "the system overloaded while sched-idle",
	    .needs = NEED_ROOT,
	    .what = "CPU 1 overloaded, a SCHED_IDLE spinner on every other CPU: the system overloaded while sched-idle")

CHECK(pinned_other_llcs, .id = "idlebal.known.overload.pinned_other_llcs", .tool = "idlebal",
      .tiers = TIER_TRACEPOINT, .kind = KIND_KNOWN_ANSWER, .needs = NEED_ROOT | NEED_LLCS2,
      .tolerance = TOLERANCE_TEXT,
      .what = "two spinners pinned to CPU 1: an LLC without CPU 1 is never overloaded")
{
	const struct overload_data *d = scenario_get(r, &sc_pinned);
	double worst = 0;
	int at = -1;

	if (!d)
		return;
	for (int l = 0; l < check_env.topo.nr_llcs && l < MAX_CPUS; l++)
		if (l != check_env.topo.llc_of_cpu[OVERLOADED_CPU] && d->llc_pct[l] >= worst) {
			worst = d->llc_pct[l];
			at = l;
		}
	check_bounds(r, worst, -INFINITY, WINDOW_TOLERANCE, WINDOW_TOLERANCE,
		     "the largest share of an LLC without CPU 1 (LLC %d), %% of a %.2f s window", at,
		     d->window_s);
}

CHECK(stop_machine_episodes, .id = "idlebal.known.overload.stop_machine_episodes",
      .tool = "idlebal", .tiers = TIER_TRACEPOINT, .kind = KIND_KNOWN_ANSWER, .needs = NEED_ROOT,
      .tolerance = "exact: at least one episode begun after each stop_machine()",
      .what = "two spinners pinned to CPU 1 and two stop_machine() calls: the state ends and begins again after each")
{
	const struct overload_data *d = scenario_get(r, &sc_stop_machine);

	if (!d)
		return;
	if (d->no_clocksource[0]) {
		check_skip(r, "%s", d->no_clocksource);
		return;
	}
	if (!d->clocksource_restored) {
		check_pass(r, false, "the clocksource was not put back (%s)", d->clocksource_path);
		return;
	}
	check_bounds(r, d->system_episodes, 2, INFINITY, 0,
		     "system episodes begun in the window, clocksource %s", d->clocksource_path);
}

CHECK(free_pair, .id = "idlebal.known.overload.free", .tool = "idlebal",
      .tiers = TIER_TRACEPOINT, .kind = KIND_KNOWN_ANSWER, .needs = NEED_ROOT,
      .tolerance = "5% of the window",
      .what = "two spinners free to move: the balancer separates them, no group overloaded while idle")
{
	const struct overload_data *d = scenario_get(r, &sc_free_pair);
	const char *which;
	int index;
	double worst;

	if (!d)
		return;
	worst = largest_share(d, &which, &index);
	check_bounds(r, worst, -INFINITY, 5, 5, "the largest share of a group (%s %d), %% of a %.2f s window",
		     which, index, d->window_s);
}

CHECK(busy_others, .id = "idlebal.known.overload.busy_others", .tool = "idlebal",
      .tiers = TIER_TRACEPOINT, .kind = KIND_KNOWN_ANSWER, .needs = NEED_ROOT,
      .tolerance = TOLERANCE_TEXT,
      .what = "CPU 1 overloaded, a normal spinner on every other CPU: nothing unoccupied, no group overloaded while idle")
{
	const struct overload_data *d = scenario_get(r, &sc_busy_others);
	const char *which;
	int index;
	double worst, lo, hi;

	if (!d)
		return;
	worst = largest_share(d, &which, &index);
	/* the other CPUs run normal spinners: unoccupied only when idle */
	unoccupied_union(d, &check_env.topo.online, &lo, &hi);
	check_bounds(r, worst, -INFINITY, hi + WINDOW_TOLERANCE, WINDOW_TOLERANCE,
		     "the largest share of a group (%s %d), %% of a %.2f s window; the other CPUs unoccupied at most %.2f%%",
		     which, index, d->window_s, hi);
}
