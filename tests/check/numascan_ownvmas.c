// SPDX-License-Identifier: GPL-2.0
/*
 * numascan's per-VMA scanning against seed 002's case (docs/metrics.md,
 * numa_scans_unfaulted), in the decoding tiers (task_numa_work() and the
 * VMA walk are not tracepoints). ownvmas -t 2 -i 1: thread 0 keeps
 * writing its own 16 MiB buffer, thread 1 touches its own once and
 * sleeps. NUMA balancing scans the whole mm from whichever thread runs
 * task_numa_work() at a tick, and a sleeping thread runs none: thread 1's
 * buffer is scanned only by thread 0, and never faulted on again.
 *
 *   The sleeping thread's buffer: every scan of it unfaulted
 *   (numa_scans_unfaulted = numa_scans, at least 2 scans), every PTE
 *   update of it unfaulted, its hint faults at most 1% of its pages.
 *
 *   The busy thread's buffer: hint faults, and after the interval of its
 *   first hint fault no unfaulted scan but by another thread's
 *   task_numa_work(). Thread 1 runs task_numa_work() too if a tick finds
 *   it running long enough while it makes its first touches (under TCG,
 *   8 vCPUs on one host core, that can outlast thread 0's first hint
 *   fault: a clean run once saw 1 late unfaulted scan on 6.1 kprobe), so
 *   the late unfaulted scans may be at most the other threads' runs of
 *   task_numa_work() that a kprobe event counted in ftrace.
 *
 *   Private and shared by task_numa_fault()'s rule (the page's last hint
 *   fault by the same pid bits, or none yet): one thread takes all the
 *   hint faults here, so shared at most 1% (those that meet a page thread
 *   1's first touches or the main thread's marked), and the two sum to
 *   numa_task_faults.
 *
 *   The PID filter (vma_numab_state.pids_active, 6.4+): the sleeping
 *   thread's buffer is skipped (pid_inactive) in most passes and scanned
 *   in fewer than the busy thread's (only in its first two scan sequences
 *   and when forced: unscanned for more sequences than the process has
 *   threads, vma_is_accessed()); before 6.4 every pass scans both
 *   buffers; 6.4-6.6 have the filter but not sched_skip_vma_numa (6.7),
 *   which numascan sees it by: a SKIP.
 *
 * pid_hash (below): four threads on one VMA, their TIDs picked to share a
 * bit of the PID filter's hash.
 *
 * Ported from guest-tests.sh's numascan_ownvmas and numascan_pid_hash
 * (tests/README.md maps the old descriptions to these ids).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "harness.h"
#include "numascan_ownvmas.h"
#include "util.h"

#define BUFFER_MB 16
#define BUSY 0		/* ownvmas' thread 0 */
#define SLEEPING 1	/* thread 1 (-i 1) */
#define SCAN_PERIOD_MAX_MS "200"

/* A buffer's row of numascan's vmas table. */
struct vma_counts {
	bool found;
	double scans, unfaulted, faults, ptes, ptes_unfaulted, skips;
};

struct ownvmas_data {
	long tid[2];
	unsigned long long start[2];	/* the threads' buffers */
	struct vma_counts row[2];
	/* the summary's scalars (NAN: absent) */
	double passes, faults_private, faults_shared, task_faults;
	double pte_unfaulted_pct, pte_updates, pte_updates_unfaulted, pid_inactive_skips;
	long late_unfaulted;	/* the busy buffer's, in intervals after its first fault */
	long other_work;	/* task_numa_work() runs by threads other than thread 0 */
	long work_runs;		/* all of them */
	long trace_lost;
};

int ownvmas_threads_read(const char *path, int nr_threads, long tid[], unsigned long long start[],
			 double *late, char *err, size_t errlen)
{
	char line[256];
	FILE *f = fopen(path, "r");
	unsigned int seen = 0, want = (1u << nr_threads) - 1;

	if (!f)
		return errmsg(err, errlen, "cannot read ownvmas' output %s", path);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e;
		double at;
		long t;
		int i;

		if (sscanf(line, "ownvmas thread %d tid %ld start %llu end %llu", &i, &t, &s, &e) ==
			    4 && i >= 0 && i < nr_threads) {
			tid[i] = t;
			start[i] = s;
			seen |= 1u << i;
		} else if (late && sscanf(line, "ownvmas late at %lf", &at) == 1) {
			*late = at;
			seen |= 1u << nr_threads;
		}
	}
	fclose(f);
	if (late)
		want |= 1u << nr_threads;
	if ((seen & want) != want)
		return errmsg(err, errlen, "ownvmas printed no line for %s (%s)",
			      (seen | (1u << nr_threads)) == (want | (1u << nr_threads))
				      ? "its late start" : "each of its threads", path);
	return 0;
}

const struct jv *vma_row(const struct jv *rec, unsigned long long start)
{
	const struct jv *rows = table_rows(rec, "vmas");
	unsigned long long s;

	if (!rows)
		return NULL;
	for (size_t i = 0; i < rows->n; i++)
		if (jv_u64(jv_get(&rows->items[i], "start"), &s) && s == start)
			return &rows->items[i];
	return NULL;
}

static void summary_read(const struct jv *s, struct ownvmas_data *d)
{
	d->passes = record_metric(s, "numa_scan_passes");
	d->faults_private = record_metric(s, "numa_hint_faults_private");
	d->faults_shared = record_metric(s, "numa_hint_faults_shared");
	d->task_faults = record_metric(s, "numa_task_faults");
	d->pte_unfaulted_pct = record_metric(s, "numa_pte_unfaulted_pct");
	d->pte_updates = record_metric(s, "numa_pte_updates");
	d->pte_updates_unfaulted = record_metric(s, "numa_pte_updates_unfaulted");
	d->pid_inactive_skips = record_metric(s, "numa_vma_skips_pid_inactive");
	for (int i = BUSY; i <= SLEEPING; i++) {
		const struct jv *row = vma_row(s, d->start[i]);

		d->row[i] = (struct vma_counts){
			.found = row != NULL,
			.scans = row_number(row, "numa_scans"),
			.unfaulted = row_number(row, "numa_scans_unfaulted"),
			.faults = row_number(row, "numa_hint_faults"),
			.ptes = row_number(row, "numa_pte_updates"),
			.ptes_unfaulted = row_number(row, "numa_pte_updates_unfaulted"),
			.skips = row_number(row, "numa_vma_skips"),
		};
	}
}

/* The busy buffer's unfaulted scans in the intervals after the one of its first hint fault. */
static long late_unfaulted(const struct records *recs, unsigned long long start)
{
	const struct jv *rec;
	bool faulted = false;
	long late = 0;

	for (long k = 0; (rec = record_of_type(recs, "interval", k)); k++) {
		const struct jv *row = vma_row(rec, start);
		double unfaulted = row_number(row, "numa_scans_unfaulted");

		if (faulted && unfaulted > 0)
			late += (long)unfaulted;
		if (row_number(row, "numa_hint_faults") > 0)
			faulted = true;
	}
	return late;
}

/* task_numa_work() runs in the trace: all, and those not by thread 0. */
static int work_runs(const char *path, long busy_tid, long *all, long *others)
{
	char line[512];
	const char *b;
	FILE *f = fopen(path, "r");

	*all = *others = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (trace_line_cpu(line, &b) < 0 || !trace_line_event(line, "own_work"))
			continue;
		(*all)++;
		*others += trace_line_task_pid(line, b) != busy_tid;
	}
	fclose(f);
	return 0;
}

int ownvmas_under_numascan(const struct ownvmas_setup *setup, enum check_tier tier,
			   struct ownvmas_output *out, char *err, size_t errlen)
{
	static const char *const period_files[] = {
		"/sys/kernel/debug/sched/numa_balancing/scan_period_max_ms",
		"/proc/sys/kernel/numa_balancing_scan_period_max_ms",	/* before 5.13 */
		NULL,
	};
	struct saved_setting period = { 0 };
	struct trace_session trace;
	struct tool_run tool;
	char tag[64];
	int ret = -1, status, probes = 0;

	snprintf(tag, sizeof(tag), "%s.%s", setup->name, check_tier_name(tier));
	snprintf(out->wl_out, sizeof(out->wl_out), "%s/%s.wl", check_env.work, tag);
	snprintf(out->trace_path, sizeof(out->trace_path), "%s/%s.trace", check_env.work, tag);
	/* scans every 200 ms at most, so that a few seconds hold many passes */
	if (setup->fast_scans &&
	    setting_replace(period_files, SCAN_PERIOD_MAX_MS, &period, err, errlen))
		return -1;
	for (; probes < setup->nr_probes; probes++)
		if (kprobe_event_add(setup->probes[probes].type, setup->probes[probes].name,
				     setup->probes[probes].spec, err, errlen))
			goto probes_out;
	if (setup->nr_events &&
	    trace_begin(&trace, "schedscan-check", setup->events, setup->nr_events, err, errlen))
		goto probes_out;
	if (tool_start(&tool, "numascan", tier, -1, tag, err, errlen, "--comm", "ownvmas", "-i",
		       "1", "-d", "300", ARGS_END)) {
		if (setup->nr_events)
			trace_end(&trace, out->trace_path, &out->trace_lost, NULL, 0);
		goto probes_out;
	}
	status = workload_run(out->wl_out, "ownvmas", setup->args, err, errlen);
	tool_stop(&tool);
	if (status > 0)
		errmsg(err, errlen, "ownvmas exited with status %d (%s)", status, out->wl_out);
	if (setup->nr_events &&
	    trace_end(&trace, out->trace_path, &out->trace_lost, status ? NULL : err, errlen))
		goto probes_out;
	if (status)
		goto probes_out;
	if (tool.status != 0) {
		errmsg(err, errlen, "numascan exited with status %d (%s)", tool.status, tool.err);
		goto probes_out;
	}
	if (records_read(tool.out, &out->recs, err, errlen))
		goto probes_out;
	out->summary = record_of_type(&out->recs, "summary", -1);
	if (!out->summary)
		errmsg(err, errlen, "numascan wrote no summary (%s)", tool.out);
	else
		ret = 0;
probes_out:
	while (probes-- > 0)
		kprobe_event_remove(setup->probes[probes].name);
	if (setting_restore(&period, ret ? NULL : err, errlen))
		ret = -1;
	workloads_stop();
	return ret;
}

static const struct trace_event own_work_events[] = {
	{ "schedscan/own_work", "comm == \"ownvmas\"" },
};

/* ftrace: ownvmas' threads' task_numa_work() runs */
static const struct ownvmas_setup ownvmas = {
	.name = "ownvmas", .fast_scans = true,
	.probes = { { 'p', "own_work", "task_numa_work" } }, .nr_probes = 1,
	.events = own_work_events, .nr_events = 1,
	.args = { "-t", "2", "-i", "1", "-m", "16", "-s", "10", NULL },
};

static int ownvmas_run(enum check_tier tier, void *data, char *err, size_t errlen)
{
	struct ownvmas_data *d = data;
	struct ownvmas_output out = { 0 };
	int ret = -1;

	if (ownvmas_under_numascan(&ownvmas, tier, &out, err, errlen))
		goto out;
	d->trace_lost = out.trace_lost;
	if (ownvmas_threads_read(out.wl_out, 2, d->tid, d->start, NULL, err, errlen))
		goto out;
	if (work_runs(out.trace_path, d->tid[BUSY], &d->work_runs, &d->other_work)) {
		errmsg(err, errlen, "cannot read the trace %s", out.trace_path);
		goto out;
	}
	summary_read(out.summary, d);
	d->late_unfaulted = late_unfaulted(&out.recs, d->start[BUSY]);
	ret = 0;
	for (int i = BUSY; i <= SLEEPING; i++)
		printf("#   ownvmas [%s]: the %s thread's buffer: %.0f scans, %.0f unfaulted, %.0f hint faults, %.0f PTE updates (%.0f unfaulted), %.0f skips%s\n",
		       check_tier_name(tier), i == BUSY ? "busy" : "sleeping", d->row[i].scans,
		       d->row[i].unfaulted, d->row[i].faults, d->row[i].ptes,
		       d->row[i].ptes_unfaulted, d->row[i].skips,
		       d->row[i].found ? "" : " (no row)");
	printf("#   ownvmas [%s]: %.0f passes; task_numa_work() %ld runs, %ld by other threads than thread 0; %ld events lost\n",
	       check_tier_name(tier), d->passes, d->work_runs, d->other_work, d->trace_lost);
out:
	records_free(&out.recs);
	return ret;
}

static const struct scenario sc_ownvmas = { "ownvmas", sizeof(struct ownvmas_data), ownvmas_run };

#define OWNVMAS_TIERS (TIER_FENTRY | TIER_KPROBE)

/* The scenario's data when the buffer's row is there, else NULL (the check has failed). */
static const struct ownvmas_data *ownvmas_get(struct check_run *r, int thread)
{
	const struct ownvmas_data *d = scenario_get(r, &sc_ownvmas);

	if (d && !d->row[thread].found) {
		check_pass(r, false, "numascan's vmas table has no row for the %s thread's buffer (start %llu)",
			   thread == BUSY ? "busy" : "sleeping", d->start[thread]);
		return NULL;
	}
	return d;
}

CHECK(idle_scans, .id = "numascan.known.ownvmas.sleeping_scans_unfaulted", .tool = "numascan",
      .tiers = OWNVMAS_TIERS, .kind = KIND_KNOWN_ANSWER, .needs = NEED_ROOT,
      .tolerance = "exact",
      .what = "a sleeping thread's buffer, scanned only by the other thread: every scan "
	      "unfaulted, at least 2")
{
	const struct ownvmas_data *d = ownvmas_get(r, SLEEPING);
	const struct vma_counts *b = d ? &d->row[SLEEPING] : NULL;

	if (!d)
		return;
	if (!(b->scans >= 2)) {
		check_pass(r, false, "the sleeping thread's buffer was scanned %.0f times in %.0f passes (2 needed)",
			   b->scans, d->passes);
		return;
	}
	check_bounds(r, b->unfaulted, b->scans, b->scans, 0,
		     "numa_scans_unfaulted against numa_scans %.0f of the sleeping thread's buffer",
		     b->scans);
}

CHECK(idle_ptes, .id = "numascan.known.ownvmas.sleeping_ptes_unfaulted", .tool = "numascan",
      .tiers = OWNVMAS_TIERS, .kind = KIND_KNOWN_ANSWER, .needs = NEED_ROOT,
      .tolerance = "exact",
      .what = "every PTE update of a sleeping thread's buffer is unfaulted")
{
	const struct ownvmas_data *d = ownvmas_get(r, SLEEPING);
	const struct vma_counts *b = d ? &d->row[SLEEPING] : NULL;

	if (!d)
		return;
	if (!(b->ptes > 0)) {
		check_pass(r, false, "no PTE update of the sleeping thread's buffer (%.0f)", b->ptes);
		return;
	}
	check_bounds(r, b->ptes_unfaulted, b->ptes, b->ptes, 0,
		     "numa_pte_updates_unfaulted against numa_pte_updates %.0f of the sleeping thread's buffer",
		     b->ptes);
}

CHECK(idle_faults, .id = "numascan.known.ownvmas.sleeping_faults", .tool = "numascan",
      .tiers = OWNVMAS_TIERS, .kind = KIND_KNOWN_ANSWER, .needs = NEED_ROOT,
      .tolerance = "1% of its pages",
      .what = "nobody faults on a sleeping thread's buffer after its first touches")
{
	const struct ownvmas_data *d = ownvmas_get(r, SLEEPING);
	double pages = (double)BUFFER_MB * 1024 * 1024 / (double)sysconf(_SC_PAGESIZE);

	if (!d)
		return;
	check_bounds(r, d->row[SLEEPING].faults, -INFINITY, pages / 100, pages / 100,
		     "numa_hint_faults of the sleeping thread's %.0f pages", pages);
}

CHECK(busy_late, .id = "numascan.known.ownvmas.busy_late_unfaulted", .tool = "numascan",
      .tiers = OWNVMAS_TIERS, .kind = KIND_KNOWN_ANSWER, .needs = NEED_ROOT,
      .tolerance = "exact (ftrace's count of the other threads' task_numa_work())",
      .what = "the busy thread's own buffer: hint faults, and no unfaulted scan after the "
	      "interval of its first hint fault but by another thread's task_numa_work()")
{
	const struct ownvmas_data *d = ownvmas_get(r, BUSY);
	const struct vma_counts *a = d ? &d->row[BUSY] : NULL;

	if (!d)
		return;
	if (!(a->scans >= 2 && a->faults > 0 && a->unfaulted < a->scans)) {
		check_pass(r, false, "the busy thread's buffer: %.0f scans (2 needed), %.0f hint faults (some needed), %.0f unfaulted scans (fewer than the scans needed)",
			   a->scans, a->faults, a->unfaulted);
		return;
	}
	if (d->trace_lost) {
		check_pass(r, false, "ftrace lost %ld events: no count of task_numa_work()'s runs",
			   d->trace_lost);
		return;
	}
	check_bounds(r, (double)d->late_unfaulted, -INFINITY, (double)d->other_work, 0,
		     "unfaulted scans after the first hint fault against %ld task_numa_work() runs by other threads (of %ld); %.0f of %.0f scans unfaulted, %.0f hint faults",
		     d->other_work, d->work_runs, a->unfaulted, a->scans, a->faults);
}

CHECK(faults_split, .id = "numascan.consistency.ownvmas.faults_private_shared",
      .tool = "numascan", .tiers = OWNVMAS_TIERS, .kind = KIND_CONSISTENCY, .needs = NEED_ROOT,
      .tolerance = "exact",
      .what = "numa_hint_faults_private + numa_hint_faults_shared = numa_task_faults")
{
	const struct ownvmas_data *d = scenario_get(r, &sc_ownvmas);

	if (!d || check_absent(r, d->faults_private, "numa_hint_faults_private") ||
	    check_absent(r, d->faults_shared, "numa_hint_faults_shared") ||
	    check_absent(r, d->task_faults, "numa_task_faults"))
		return;
	if (!(d->task_faults > 0)) {
		check_pass(r, false, "no task fault (numa_task_faults %.0f)", d->task_faults);
		return;
	}
	check_bounds(r, d->faults_private + d->faults_shared, d->task_faults, d->task_faults, 0,
		     "private %.0f + shared %.0f against numa_task_faults", d->faults_private,
		     d->faults_shared);
}

CHECK(faults_shared, .id = "numascan.known.ownvmas.faults_shared", .tool = "numascan",
      .tiers = OWNVMAS_TIERS, .kind = KIND_KNOWN_ANSWER, .needs = NEED_ROOT,
      .tolerance = "1% of the task faults",
      .what = "one faulting thread: its hint faults are private, shared at most 1%")
{
	const struct ownvmas_data *d = scenario_get(r, &sc_ownvmas);

	if (!d || check_absent(r, d->faults_shared, "numa_hint_faults_shared") ||
	    check_absent(r, d->task_faults, "numa_task_faults"))
		return;
	check_bounds(r, d->faults_shared, -INFINITY, d->task_faults / 100, d->task_faults / 100,
		     "numa_hint_faults_shared of %.0f task faults", d->task_faults);
}

CHECK(pte_pct, .id = "numascan.consistency.ownvmas.pte_unfaulted_pct", .tool = "numascan",
      .tiers = OWNVMAS_TIERS, .kind = KIND_CONSISTENCY, .needs = NEED_ROOT,
      .tolerance = "0.01 points",
      .what = "numa_pte_unfaulted_pct = 100 numa_pte_updates_unfaulted / numa_pte_updates, "
	      "the sleeping thread's buffer within the scalar")
{
	const struct ownvmas_data *d = ownvmas_get(r, SLEEPING);
	double unfaulted = d ? d->row[SLEEPING].ptes_unfaulted : NAN;

	if (!d)
		return;
	if (!(unfaulted > 0 && unfaulted <= d->pte_updates_unfaulted)) {
		check_pass(r, false, "the sleeping thread's buffer's unfaulted PTE updates %.0f (some, at most the scalar's %.0f)",
			   unfaulted, d->pte_updates_unfaulted);
		return;
	}
	check_percent(r, d->pte_unfaulted_pct, "numa_pte_unfaulted_pct", d->pte_updates_unfaulted,
		      d->pte_updates, false);
}

/* The running kernel's major * 1000 + minor. */
static int kernel_version(void)
{
	struct utsname u;
	int major, minor;

	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return 0;
	return major * 1000 + minor;
}

CHECK(pid_filter, .id = "numascan.known.ownvmas.pid_filter", .tool = "numascan",
      .tiers = OWNVMAS_TIERS, .kind = KIND_KNOWN_ANSWER, .needs = NEED_ROOT,
      .tolerance = "2 passes before 6.4; half the passes with the filter",
      .what = "before 6.4 every pass scans both buffers; with the PID filter the sleeping "
	      "thread's buffer is skipped (pid_inactive) in most passes, scanned in fewer "
	      "than the busy thread's")
{
	const struct ownvmas_data *d = scenario_get(r, &sc_ownvmas);
	const struct vma_counts *a, *b;
	int version = kernel_version();

	if (!d || !ownvmas_get(r, BUSY) || !ownvmas_get(r, SLEEPING))
		return;
	a = &d->row[BUSY];
	b = &d->row[SLEEPING];
	if (version < 6004) {
		if (!(d->passes >= 5) || a->scans > d->passes || a->scans < d->passes - 2) {
			check_pass(r, false, "%.0f passes (5 needed), the busy thread's buffer scanned %.0f times (within 2 of the passes)",
				   d->passes, a->scans);
			return;
		}
		check_near(r, b->scans, d->passes, 2, 0,
			   "the sleeping thread's buffer's scans against %.0f passes, no PID filter before 6.4 (the busy one's %.0f)",
			   d->passes, a->scans);
		return;
	}
	if (!trace_event_exists("sched/sched_skip_vma_numa")) {
		check_skip(r, "6.4-6.6 have the filter but no sched_skip_vma_numa to see it by");
		return;
	}
	if (check_absent(r, d->pid_inactive_skips, "numa_vma_skips_pid_inactive"))
		return;
	if (!(d->pid_inactive_skips > 0 && b->skips > 0 && b->scans < a->scans)) {
		check_pass(r, false, "pid_inactive skips %.0f and the sleeping buffer's %.0f (some needed), its scans %.0f (fewer than the busy buffer's %.0f needed)",
			   d->pid_inactive_skips, b->skips, b->scans, a->scans);
		return;
	}
	check_bounds(r, b->scans + b->skips, d->passes / 2, INFINITY, 0,
		     "the sleeping thread's buffer's scans %.0f and skips %.0f against half the %.0f passes (%.0f pid_inactive skips; the busy buffer's scans %.0f)",
		     b->scans, b->skips, d->passes, d->pid_inactive_skips, a->scans);
}

/*
 * pid_hash: four threads of ownvmas -S 4 write one shared buffer, their
 * TIDs picked (ns_last_pid) to share one bit of the PID filter's
 * hash_32(tid, 6); ownvmas reports the distinct bits its threads really
 * got. The buffer's row has 4 faulting TIDs and 4 - bits collisions (3
 * when the picking worked). Four threads writing the same pages: a page's
 * next hint fault is by whichever thread reaches it first after a scan,
 * often not the one that took its last, so task_numa_fault()'s rule finds
 * shared faults.
 */
struct pid_hash_data {
	unsigned long long start;	/* the shared buffer's */
	long tids, bits;		/* ownvmas': its threads, their distinct hash bits */
	double faulting_tids, collisions, faults;	/* the buffer's row (NAN: no row) */
	double faults_shared, faults_private;
};

static const struct ownvmas_setup pid_hash = {
	.name = "pid_hash",
	.args = { "-t", "0", "-S", "4", "-m", "16", "-s", "8", NULL },
};

static int pid_hash_run(enum check_tier tier, void *data, char *err, size_t errlen)
{
	struct pid_hash_data *d = data;
	struct ownvmas_output out = { 0 };
	const struct jv *row;
	char line[256];
	FILE *f;
	int ret = -1;

	if (ownvmas_under_numascan(&pid_hash, tier, &out, err, errlen))
		goto out;
	f = fopen(out.wl_out, "r");
	d->tids = -1;
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long start, end;
		long tids, bits;

		/* "ownvmas shared start START end END tids N bits B" */
		if (sscanf(line, "ownvmas shared start %llu end %llu tids %ld bits %ld", &start, &end,
			   &tids, &bits) == 4) {
			d->start = start;
			d->tids = tids;
			d->bits = bits;
		}
	}
	if (f)
		fclose(f);
	if (d->tids < 0) {
		errmsg(err, errlen, "ownvmas printed no shared buffer line (%s)", out.wl_out);
		goto out;
	}
	row = vma_row(out.summary, d->start);
	d->faulting_tids = row_number(row, "numa_faulting_tids");
	d->collisions = row_number(row, "numa_tid_hash_collisions");
	d->faults = row_number(row, "numa_hint_faults");
	d->faults_shared = record_metric(out.summary, "numa_hint_faults_shared");
	d->faults_private = record_metric(out.summary, "numa_hint_faults_private");
	printf("#   pid_hash [%s]: the shared buffer's row: %.0f faulting TIDs, %.0f collisions, %.0f hint faults; ownvmas: %ld threads, %ld distinct bits; shared %.0f, private %.0f\n",
	       check_tier_name(tier), d->faulting_tids, d->collisions, d->faults, d->tids, d->bits,
	       d->faults_shared, d->faults_private);
	ret = 0;
out:
	records_free(&out.recs);
	return ret;
}

static const struct scenario sc_pid_hash = { "pid_hash", sizeof(struct pid_hash_data),
					     pid_hash_run };

/* The pid_hash run when its buffer's row is there with hint faults, else NULL (failed). */
static const struct pid_hash_data *pid_hash_get(struct check_run *r)
{
	const struct pid_hash_data *d = scenario_get(r, &sc_pid_hash);

	if (d && !(d->faults > 0)) {
		check_pass(r, false, "the shared buffer's row (start %llu) %s",
			   d->start, isnan(d->faults) ? "is missing" : "has no hint fault");
		return NULL;
	}
	return d;
}

CHECK(tids, .id = "numascan.known.pid_hash.faulting_tids", .tool = "numascan",
      .tiers = OWNVMAS_TIERS, .kind = KIND_KNOWN_ANSWER, .needs = NEED_ROOT,
      .tolerance = "exact",
      .what = "four threads on one VMA: numa_faulting_tids = 4")
{
	const struct pid_hash_data *d = pid_hash_get(r);

	if (d)
		check_bounds(r, d->faulting_tids, (double)d->tids, (double)d->tids, 0,
			     "numa_faulting_tids of the shared buffer against ownvmas' %ld threads",
			     d->tids);
}

CHECK(collisions, .id = "numascan.known.pid_hash.collisions", .tool = "numascan",
      .tiers = OWNVMAS_TIERS, .kind = KIND_KNOWN_ANSWER, .needs = NEED_ROOT,
      .tolerance = "exact",
      .what = "TIDs picked to share a PID-hash bit: numa_tid_hash_collisions = the threads "
	      "less the distinct bits ownvmas computed")
{
	const struct pid_hash_data *d = pid_hash_get(r);

	if (d)
		check_bounds(r, d->collisions, (double)(d->tids - d->bits),
			     (double)(d->tids - d->bits), 0,
			     "numa_tid_hash_collisions against %ld threads on %ld distinct bits",
			     d->tids, d->bits);
}

CHECK(shared, .id = "numascan.known.pid_hash.faults_shared", .tool = "numascan",
      .tiers = OWNVMAS_TIERS, .kind = KIND_KNOWN_ANSWER, .needs = NEED_ROOT,
      .tolerance = "at least 1",
      .what = "four threads on one buffer take shared hint faults")
{
	const struct pid_hash_data *d = scenario_get(r, &sc_pid_hash);

	if (!d || check_absent(r, d->faults_shared, "numa_hint_faults_shared"))
		return;
	check_bounds(r, d->faults_shared, 1, INFINITY, 0,
		     "numa_hint_faults_shared (private %.0f)", d->faults_private);
}
