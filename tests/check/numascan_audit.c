// SPDX-License-Identifier: GPL-2.0
/*
 * numascan's scan audit (docs/metrics.md, numa_scans_audited and its
 * kin) replayed from the kernel's own trace, in the decoding tiers.
 * ownvmas -t 2 -i 1 -m 4 -s 9 -L 5: thread 0 writes its buffer for 9 s,
 * thread 1's buffer lies idle until second 5, when thread 0 starts
 * writing it too. ftrace records for ownvmas' threads every
 * task_numa_work() call (a kprobe event: a pass), every
 * change_prot_numa() call with its VMA's start and its return (the PTEs
 * it marked), every sched_skip_vma_numa (6.7+) and every hint fault with
 * its VMA's start (a kprobe event on numa_migrate_prep(), whose second
 * argument is the VMA on 6.1, or numa_migrate_check(), whose second is
 * the vm_fault, on 6.12+: vma and vm_start are both at offset 0).
 *
 * audit_replay() applies docs/metrics.md's rule to that stream (a
 * thread's scan or skip of a VMA, resolved at its next decision there, by
 * whether it took a hint fault there in between), and the tool's counts
 * must be the replay's exactly. The kernel source's known answers: the
 * idle buffer's scans by thread 0 before second 5 had no fault of thread
 * 0 after them (it does not touch that buffer yet), while its own
 * buffer's scans always do (it writes it without pause).
 *
 * Until it starts on the idle buffer, thread 0 writes only its own, and
 * each of its passes (run in thread 0 itself) marks all of it: its next
 * write faults before its next pass. (On 6.12 the same pass's retry_pids
 * revisits the buffer 2-3 ms later as seq_completed: no decision, or
 * every scan there would look unfaulted: 1 seen in 3 of 5 runs before
 * the audit knew it.) After that thread 0 spends its loops on the idle
 * buffer's hint faults too, and a pass can come first (1 seen once in
 * five runs); and a pass another thread ran (the others touch their
 * memory at the start) is that thread's decision, which no fault of its
 * own follows. A scan that marked no PTE (change_prot_numa() returned 0:
 * change_pte_range() skips PTEs that are already PROT_NONE, shared, or of
 * the node a single-threaded mm runs on) sets no fault up: a CI run saw
 * thread 0's first scan of its own buffer go 0.46 s without one, and the
 * return value tells the two apart. So only thread 0's scans that marked
 * PTEs before "late at" are held to 0, from the trace (mono clock, as
 * ownvmas'), while the tool's per-VMA counts are held to the replay's
 * over the whole run; a failure names each such scan, what resolved it
 * and when.
 *
 * Ported from guest-tests.sh's numascan_audit (tests/README.md maps the
 * old descriptions to these ids).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "numascan_ownvmas.h"
#include "util.h"

#define MAX_DECISIONS 256
#define MAX_THREADS 16

/* The replay's counts over the trace. */
struct audit_replay {
	long scans, unfaulted, skips, skips_faulted, skips_faulted_pid;
	long own_unfaulted, idle_unfaulted;	/* thread 0's buffer's and thread 1's */
	long faults, lines, passes, chunks;
	long own_early;		/* thread 0's scans of its buffer, PTEs marked, before late */
	long own_unmarked;	/* ... that marked none */
	long returns, calls;	/* change_prot_numa() returns seen for the scans set up */
	char why[512];		/* each early one: when, what resolved it */
};

struct audit_data {
	long tid0;
	unsigned long long own, idle;	/* thread 0's and thread 1's buffers */
	double late;			/* ownvmas' "late at", CLOCK_MONOTONIC s */
	bool skip_events;		/* the kernel has sched_skip_vma_numa */
	const char *hint_function;
	struct audit_replay replay;
	long trace_lost;
	/* the tool's (NAN: absent) */
	double scans_audited, scans_unfaulted_after, skips_audited, skips_faulted_after;
	double skips_faulted_after_pid_inactive, scan_work_calls, scan_chunks;
	double scans_unfaulted_after_pct, skips_faulted_after_pct;
	double own_row, idle_row;	/* vmas.numa_scans_unfaulted_after of each buffer */
};

/* " name=VALUE": its text up to the next space, in buf; false when absent. */
static bool field_text(const char *line, const char *name, char *buf, size_t len)
{
	char key[48];
	const char *p;
	size_t n;

	snprintf(key, sizeof(key), " %s=", name);
	p = strstr(line, key);
	if (!p)
		return false;
	p += strlen(key);
	n = strcspn(p, " \n");
	snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), p);
	return true;
}

/* The kprobe events' u64 are decimal; sched_skip_vma_numa prints vm_start "%lX", no 0x. */
static unsigned long long field_u64(const char *line, const char *name, int base)
{
	char text[32];

	return field_text(line, name, text, sizeof(text)) ? strtoull(text, NULL, base) : 0;
}

/* One thread's decision about one VMA, pending until its next one there. */
struct decision {
	long pid;
	unsigned long long start;
	long pass;		/* the pass that made it; -1: none yet */
	bool scan;		/* a scan pending */
	char skip[32];		/* a skip pending: its reason; "" none */
	double at;		/* the scan's time */
	long marked;		/* the PTEs its change_prot_numa() marked; -1 unknown */
};

struct replay_state {
	struct decision d[MAX_DECISIONS];
	int n;
	struct thread_state { long pid, passes; int open; } t[MAX_THREADS];
	int nr_threads;
	/* thread 0's own buffer: scans set up, hint faults, the first one's time */
	long own_scans, own_faults;
	double own_first_fault;
};

static struct decision *decision_of(struct replay_state *s, long pid, unsigned long long start)
{
	for (int i = 0; i < s->n; i++)
		if (s->d[i].pid == pid && s->d[i].start == start)
			return &s->d[i];
	if (s->n == MAX_DECISIONS)
		return NULL;
	s->d[s->n] = (struct decision){ .pid = pid, .start = start, .pass = -1, .marked = -1 };
	return &s->d[s->n++];
}

static struct thread_state *thread_of(struct replay_state *s, long pid)
{
	for (int i = 0; i < s->nr_threads; i++)
		if (s->t[i].pid == pid)
			return &s->t[i];
	if (s->nr_threads == MAX_THREADS)
		return NULL;
	s->t[s->nr_threads] = (struct thread_state){ .pid = pid, .open = -1 };
	return &s->t[s->nr_threads++];
}

/* A new decision: the thread's first pass, or a pass other than the last decision's. */
static bool new_decision(const struct thread_state *t, const struct decision *k)
{
	return t->passes == 0 || k->pass < 0 || k->pass != t->passes;
}

/* The pending decision is resolved by a new one: a scan with no fault since, a skip. */
static void resolve(const struct audit_data *a, struct audit_replay *r,
		    const struct replay_state *s, struct decision *k, const char *event, double t)
{
	if (k->scan) {
		r->scans++;
		r->unfaulted++;
		if (k->start == a->idle)
			r->idle_unfaulted++;
		if (k->start == a->own) {
			r->own_unfaulted++;
			if (k->at < a->late && k->pid == a->tid0) {
				if (k->marked == 0) {
					r->own_unmarked++;
				} else {
					size_t used = strlen(r->why);

					r->own_early++;
					if (used < sizeof(r->why))
						snprintf(r->why + used, sizeof(r->why) - used,
							 "scan %ld at %.4f (marked %ld, first fault at %.4f, %ld faults) -> %s at %.4f; ",
							 s->own_scans, k->at, k->marked,
							 s->own_first_fault, s->own_faults, event, t);
				}
			}
		}
		k->scan = false;
	}
	if (k->skip[0]) {
		r->skips++;
		k->skip[0] = '\0';
	}
}

static int audit_replay(const char *path, const struct audit_data *a, struct audit_replay *r)
{
	struct replay_state *s = calloc(1, sizeof(*s));
	char line[1024];
	const char *b;
	FILE *f = fopen(path, "r");

	memset(r, 0, sizeof(*r));
	if (!f || !s) {
		if (f)
			fclose(f);
		free(s);
		return -1;
	}
	s->own_first_fault = -1;
	while (fgets(line, sizeof(line), f)) {
		struct thread_state *t;
		struct decision *k;
		unsigned long long start;
		double time;
		long pid;

		if (trace_line_cpu(line, &b) < 0)
			continue;
		pid = trace_line_task_pid(line, b);
		time = trace_line_seconds(line);
		t = thread_of(s, pid);
		if (!t)
			continue;
		if (trace_line_event(line, "audit_pass")) {
			r->lines++;
			r->passes++;
			t->passes++;
		} else if (trace_line_event(line, "audit_marked")) {
			/* the return of the change_prot_numa() call that set a scan up */
			r->lines++;
			if (t->open >= 0) {
				char ptes[32] = "0";

				field_text(line, "ptes", ptes, sizeof(ptes));
				s->d[t->open].marked = strtol(ptes, NULL, 10);
				r->returns++;
			}
			t->open = -1;
		} else if (trace_line_event(line, "sched_skip_vma_numa")) {
			char reason[32] = "";

			r->lines++;
			field_text(line, "reason", reason, sizeof(reason));
			if (!strcmp(reason, "ignore_pid_inactive"))
				continue;
			k = decision_of(s, pid, field_u64(line, "vm_start", 16));
			/* a pass decides once per VMA (retry_pids revisits them) */
			if (k && new_decision(t, k)) {
				resolve(a, r, s, k, "sched_skip_vma_numa", time);
				snprintf(k->skip, sizeof(k->skip), "%s", reason);
				k->pass = t->passes;
			}
		} else if (trace_line_event(line, "audit_scan")) {
			bool fresh;

			r->lines++;
			r->chunks++;
			start = field_u64(line, "start", 10);
			k = decision_of(s, pid, start);
			t->open = -1;
			if (!k)
				continue;
			fresh = new_decision(t, k);
			if (fresh) {
				resolve(a, r, s, k, "audit_scan", time);
				k->pass = t->passes;
				if (start == a->own && pid == a->tid0)
					s->own_scans++;
			} else if (!k->scan) {
				k->skip[0] = '\0';
			}
			/* a scan set up (a new decision, or one after a skip): its return is awaited */
			if (fresh || !k->scan) {
				k->scan = true;
				k->at = time;
				k->marked = -1;
				t->open = (int)(k - s->d);
				r->calls++;
			}
		} else if (trace_line_event(line, "audit_fault")) {
			r->lines++;
			r->faults++;
			start = field_u64(line, "start", 10);
			if (start == a->own && pid == a->tid0) {
				s->own_faults++;
				if (s->own_first_fault < 0)
					s->own_first_fault = time;
			}
			k = decision_of(s, pid, start);
			if (!k)
				continue;
			if (k->scan) {
				r->scans++;
				k->scan = false;
			}
			if (k->skip[0]) {
				r->skips++;
				r->skips_faulted++;
				r->skips_faulted_pid += !strcmp(k->skip, "pid_inactive");
				k->skip[0] = '\0';
			}
		}
	}
	fclose(f);
	free(s);
	return 0;
}

/* Whether /proc/kallsyms lists a function of that name. */
static bool kernel_has_function(const char *name)
{
	char line[512], sym[256];
	FILE *f = fopen("/proc/kallsyms", "r");
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%*s %*s %255s", sym) == 1 && !strcmp(sym, name);
	if (f)
		fclose(f);
	return found;
}

static int audit_run(enum check_tier tier, void *data, char *err, size_t errlen)
{
	struct audit_data *d = data;
	struct trace_event events[5];
	struct ownvmas_setup setup = {
		.name = "audit", .fast_scans = true,
		.args = { "-t", "2", "-i", "1", "-m", "4", "-s", "9", "-L", "5", NULL },
		.events = events,
	};
	struct ownvmas_output out = { 0 };
	unsigned long long start[2];
	const struct jv *s;
	long tid[2];
	int ret = -1;

	/* the hint fault's VMA: numa_migrate_check(vmf) on 6.12+, numa_migrate_prep(vma) on 6.1 */
	bool check = kernel_has_function("numa_migrate_check");

	d->hint_function = check ? "numa_migrate_check" : "numa_migrate_prep";
	setup.probes[0] = (struct ownvmas_probe){ 'p', "audit_pass", "task_numa_work" };
	setup.probes[1] = (struct ownvmas_probe){ 'p', "audit_scan",
						  "change_prot_numa start=+0(%di):u64" };
	setup.probes[2] = (struct ownvmas_probe){ 'r', "audit_marked",
						  "change_prot_numa ptes=$retval:s64" };
	setup.probes[3] = (struct ownvmas_probe){
		'p', "audit_fault",
		check ? "numa_migrate_check start=+0(+0(%si)):u64" : "numa_migrate_prep start=+0(%si):u64"
	};
	setup.nr_probes = 4;
	for (int i = 0; i < 4; i++)
		events[i] = (struct trace_event){ NULL, "comm == \"ownvmas\"" };
	events[0].event = "schedscan/audit_pass";
	events[1].event = "schedscan/audit_scan";
	events[2].event = "schedscan/audit_marked";
	events[3].event = "schedscan/audit_fault";
	setup.nr_events = 4;
	d->skip_events = trace_event_exists("sched/sched_skip_vma_numa");
	if (d->skip_events)
		events[setup.nr_events++] = (struct trace_event){ "sched/sched_skip_vma_numa",
								  "comm == \"ownvmas\"" };
	if (ownvmas_under_numascan(&setup, tier, &out, err, errlen))
		goto out;
	d->trace_lost = out.trace_lost;
	if (ownvmas_threads_read(out.wl_out, 2, tid, start, &d->late, err, errlen))
		goto out;
	d->tid0 = tid[0];
	d->own = start[0];
	d->idle = start[1];
	if (audit_replay(out.trace_path, d, &d->replay)) {
		errmsg(err, errlen, "cannot replay the trace %s", out.trace_path);
		goto out;
	}
	s = out.summary;
	d->scans_audited = record_metric(s, "numa_scans_audited");
	d->scans_unfaulted_after = record_metric(s, "numa_scans_unfaulted_after");
	d->skips_audited = record_metric(s, "numa_skips_audited");
	d->skips_faulted_after = record_metric(s, "numa_skips_faulted_after");
	d->skips_faulted_after_pid_inactive =
		record_metric(s, "numa_skips_faulted_after_pid_inactive");
	d->scan_work_calls = record_metric(s, "numa_scan_work_calls");
	d->scan_chunks = record_metric(s, "numa_scan_chunks");
	d->scans_unfaulted_after_pct = record_metric(s, "numa_scans_unfaulted_after_pct");
	d->skips_faulted_after_pct = record_metric(s, "numa_skips_faulted_after_pct");
	d->own_row = row_number(vma_row(s, d->own), "numa_scans_unfaulted_after");
	d->idle_row = row_number(vma_row(s, d->idle), "numa_scans_unfaulted_after");
	printf("#   audit [%s]: the tool: scans %.0f (unfaulted after %.0f), skips %.0f (faulted after %.0f, pid_inactive %.0f), passes %.0f, chunks %.0f, own buffer %.0f, idle buffer %.0f; the replay (%s, %s): scans %ld (%ld), skips %ld (%ld, %ld), passes %ld, chunks %ld, own %ld, idle %ld, %ld hint faults, %ld lines, %ld events lost\n",
	       check_tier_name(tier), d->scans_audited, d->scans_unfaulted_after,
	       d->skips_audited, d->skips_faulted_after, d->skips_faulted_after_pid_inactive,
	       d->scan_work_calls, d->scan_chunks, d->own_row, d->idle_row, d->hint_function,
	       d->skip_events ? "sched_skip_vma_numa" : "no skip events", d->replay.scans,
	       d->replay.unfaulted, d->replay.skips, d->replay.skips_faulted,
	       d->replay.skips_faulted_pid, d->replay.passes, d->replay.chunks,
	       d->replay.own_unfaulted, d->replay.idle_unfaulted, d->replay.faults,
	       d->replay.lines, d->trace_lost);
	ret = 0;
out:
	records_free(&out.recs);
	return ret;
}

static const struct scenario sc_audit = { "audit", sizeof(struct audit_data), audit_run };

#define AUDIT_TIERS (TIER_FENTRY | TIER_KPROBE)

/* The run when its trace is whole and holds scans and hint faults, else NULL (failed). */
static const struct audit_data *audit_get(struct check_run *r)
{
	const struct audit_data *d = scenario_get(r, &sc_audit);

	if (d && (d->trace_lost || d->replay.faults <= 0 || d->replay.scans <= 0)) {
		check_pass(r, false, "the trace: %ld events lost, %ld hint faults and %ld scans (some of each needed)",
			   d->trace_lost, d->replay.faults, d->replay.scans);
		return NULL;
	}
	return d;
}

/* value against the replay's count, exactly. */
static void against_replay(struct check_run *r, double value, const char *name, long replay,
			   const struct audit_data *d)
{
	if (check_absent(r, value, name))
		return;
	check_bounds(r, value, (double)replay, (double)replay, 0,
		     "%s against the replay's %ld (%ld trace lines, %ld hint faults, faults by %s)",
		     name, replay, d->replay.lines, d->replay.faults, d->hint_function);
}

/* The skip counts need sched_skip_vma_numa (6.7+): the run, or NULL (a SKIP). */
static const struct audit_data *audit_skips_get(struct check_run *r)
{
	const struct audit_data *d = audit_get(r);

	if (d && !d->skip_events) {
		check_skip(r, "no sched_skip_vma_numa on this kernel (6.7+): no skip to replay");
		return NULL;
	}
	return d;
}

CHECK(scans_audited, .id = "numascan.truth.audit.scans_audited", .tool = "numascan",
      .tiers = AUDIT_TIERS, .kind = KIND_GROUND_TRUTH, .needs = NEED_ROOT, .tolerance = "exact",
      .what = "numa_scans_audited = the replay of the audit's rule over ftrace's scans and "
	      "hint faults")
{
	const struct audit_data *d = audit_get(r);

	if (d)
		against_replay(r, d->scans_audited, "numa_scans_audited", d->replay.scans, d);
}

CHECK(scans_unfaulted, .id = "numascan.truth.audit.scans_unfaulted_after", .tool = "numascan",
      .tiers = AUDIT_TIERS, .kind = KIND_GROUND_TRUTH, .needs = NEED_ROOT, .tolerance = "exact",
      .what = "numa_scans_unfaulted_after = the replay's")
{
	const struct audit_data *d = audit_get(r);

	if (d)
		against_replay(r, d->scans_unfaulted_after, "numa_scans_unfaulted_after",
			       d->replay.unfaulted, d);
}

CHECK(skips_audited, .id = "numascan.truth.audit.skips_audited", .tool = "numascan",
      .tiers = AUDIT_TIERS, .kind = KIND_GROUND_TRUTH, .needs = NEED_ROOT, .tolerance = "exact",
      .what = "numa_skips_audited = the replay's over sched_skip_vma_numa")
{
	const struct audit_data *d = audit_skips_get(r);

	if (d)
		against_replay(r, d->skips_audited, "numa_skips_audited", d->replay.skips, d);
}

CHECK(skips_faulted, .id = "numascan.truth.audit.skips_faulted_after", .tool = "numascan",
      .tiers = AUDIT_TIERS, .kind = KIND_GROUND_TRUTH, .needs = NEED_ROOT, .tolerance = "exact",
      .what = "numa_skips_faulted_after = the replay's")
{
	const struct audit_data *d = audit_skips_get(r);

	if (d)
		against_replay(r, d->skips_faulted_after, "numa_skips_faulted_after",
			       d->replay.skips_faulted, d);
}

CHECK(skips_faulted_pid, .id = "numascan.truth.audit.skips_faulted_after_pid_inactive",
      .tool = "numascan", .tiers = AUDIT_TIERS, .kind = KIND_GROUND_TRUTH, .needs = NEED_ROOT,
      .tolerance = "exact",
      .what = "numa_skips_faulted_after_pid_inactive = the replay's")
{
	const struct audit_data *d = audit_skips_get(r);

	if (d)
		against_replay(r, d->skips_faulted_after_pid_inactive,
			       "numa_skips_faulted_after_pid_inactive",
			       d->replay.skips_faulted_pid, d);
}

CHECK(work_calls, .id = "numascan.truth.audit.scan_work_calls", .tool = "numascan",
      .tiers = AUDIT_TIERS, .kind = KIND_GROUND_TRUTH, .needs = NEED_ROOT, .tolerance = "exact",
      .what = "numa_scan_work_calls = ftrace's count of ownvmas' threads' task_numa_work() calls")
{
	const struct audit_data *d = audit_get(r);

	if (d)
		against_replay(r, d->scan_work_calls, "numa_scan_work_calls", d->replay.passes, d);
}

CHECK(chunks, .id = "numascan.truth.audit.scan_chunks", .tool = "numascan",
      .tiers = AUDIT_TIERS, .kind = KIND_GROUND_TRUTH, .needs = NEED_ROOT, .tolerance = "exact",
      .what = "numa_scan_chunks = ftrace's count of ownvmas' threads' change_prot_numa() calls")
{
	const struct audit_data *d = audit_get(r);

	if (d)
		against_replay(r, d->scan_chunks, "numa_scan_chunks", d->replay.chunks, d);
}

CHECK(scans_pct, .id = "numascan.consistency.audit.scans_unfaulted_after_pct",
      .tool = "numascan", .tiers = AUDIT_TIERS, .kind = KIND_CONSISTENCY, .needs = NEED_ROOT,
      .tolerance = "0.01 points",
      .what = "numa_scans_unfaulted_after_pct = 100 numa_scans_unfaulted_after / "
	      "numa_scans_audited")
{
	const struct audit_data *d = scenario_get(r, &sc_audit);

	if (d)
		check_percent(r, d->scans_unfaulted_after_pct, "numa_scans_unfaulted_after_pct",
			      d->scans_unfaulted_after, d->scans_audited, false);
}

CHECK(skips_pct, .id = "numascan.consistency.audit.skips_faulted_after_pct", .tool = "numascan",
      .tiers = AUDIT_TIERS, .kind = KIND_CONSISTENCY, .needs = NEED_ROOT,
      .tolerance = "0.01 points",
      .what = "numa_skips_faulted_after_pct = 100 numa_skips_faulted_after / numa_skips_audited")
{
	const struct audit_data *d = scenario_get(r, &sc_audit);

	if (!d)
		return;
	if (!d->skip_events) {
		check_skip(r, "no sched_skip_vma_numa on this kernel (6.7+)");
		return;
	}
	check_percent(r, d->skips_faulted_after_pct, "numa_skips_faulted_after_pct",
		      d->skips_faulted_after, d->skips_audited, true);
}

CHECK(own_early, .id = "numascan.known.audit.own_buffer_early", .tool = "numascan",
      .tiers = AUDIT_TIERS, .kind = KIND_KNOWN_ANSWER, .needs = NEED_ROOT, .tolerance = "exact",
      .what = "the busy thread's own buffer, written without pause: no scan by it that marked "
	      "PTEs goes without a fault after it until it starts on the idle buffer")
{
	const struct audit_data *d = audit_get(r);

	if (d)
		check_bounds(r, (double)d->replay.own_early, 0, 0, 0,
			     "thread 0's scans of its buffer before second %.3f that marked PTEs and took no fault after (%ld that marked none; the returns of %ld of %ld scans seen) %s",
			     d->late, d->replay.own_unmarked, d->replay.returns, d->replay.calls,
			     d->replay.why);
}

CHECK(own_row, .id = "numascan.truth.audit.vmas_own_buffer", .tool = "numascan",
      .tiers = AUDIT_TIERS, .kind = KIND_GROUND_TRUTH, .needs = NEED_ROOT, .tolerance = "exact",
      .what = "the busy thread's buffer's numa_scans_unfaulted_after row = the replay's")
{
	const struct audit_data *d = audit_get(r);

	if (d)
		against_replay(r, d->own_row, "the own buffer's numa_scans_unfaulted_after",
			       d->replay.own_unfaulted, d);
}

CHECK(idle_row, .id = "numascan.known.audit.vmas_idle_buffer", .tool = "numascan",
      .tiers = AUDIT_TIERS, .kind = KIND_KNOWN_ANSWER, .needs = NEED_ROOT, .tolerance = "exact",
      .what = "the idle buffer has unfaulted scans before the busy thread starts on it, its "
	      "numa_scans_unfaulted_after row the replay's")
{
	const struct audit_data *d = audit_get(r);

	if (!d || check_absent(r, d->idle_row, "the idle buffer's numa_scans_unfaulted_after"))
		return;
	if (!(d->idle_row > 0)) {
		check_pass(r, false, "the idle buffer's numa_scans_unfaulted_after is %.0f (some needed; the replay's %ld)",
			   d->idle_row, d->replay.idle_unfaulted);
		return;
	}
	against_replay(r, d->idle_row, "the idle buffer's numa_scans_unfaulted_after",
		       d->replay.idle_unfaulted, d);
}
