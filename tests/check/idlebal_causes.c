// SPDX-License-Identifier: GPL-2.0
/*
 * idlebal's migrations by cause against what a workload reports of itself
 * (docs/metrics.md, migration_causes).
 *
 * wakeloop's sleeper moves itself onto its home CPU before each sleep
 * (sched_setaffinity(): an affinity migration whenever it is elsewhere)
 * and its waker, pinned to CPU 0, wakes it. Each wakeup that lands off
 * the home CPU (wakeloop prints "landed CPU N") is therefore one wakeup
 * migration, and the sleeper's next move home one affinity migration:
 * both counts are the landings off home, whatever SIS decided.
 *
 * Home is the first CPU of another LLC when the machine has two (the
 * guests: the sync wakeup makes wake_affine() pick the waker's CPU as the
 * target, and prev does not share its cache, so SIS places the sleeper in
 * CPU 0's LLC: a wakeup migration across LLCs), else CPU 1 with a spinner
 * on it, so that try_to_wake_up() mostly places the sleeper off it (the
 * 2-CPU host: clean-clone runs saw 967 and 25 of 1000 land on CPU 0).
 *
 * Ported from guest-tests.sh's idlebal_checks ("wakeloop across LLCs")
 * and tests/live/test_idlebal.sh ("wakeloop's migrations by cause").
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "sisscan_wakeloop.h"
#include "util.h"

/*
 * Landings off home below this, and the scenario did not happen: half the
 * wakeups across LLCs (where the answer is SIS's), 20 on the host.
 */
#define MIN_LANDED_HOST 20

struct causes_data {
	int home;		/* the sleeper's CPU */
	bool across_llcs;	/* home in another LLC than the waker's CPU 0 */
	long wakeups, landed_off_home, landed_waker_llc;
	double wakeup, affinity, migrations;	/* the tool's summary */
	/* every record: its causes' migrations against its migrations */
	long records, records_off;
	double worst_off;
};

/* A cause's migrations in a record's migration_causes table (NULL: every cause). */
static double cause_migrations(const struct jv *rec, const char *cause)
{
	const struct jv *rows = table_rows(rec, "migration_causes");
	double sum = 0;

	for (size_t i = 0; rows && i < rows->n; i++) {
		const struct jv *label = jv_get(&rows->items[i], "cause");

		if (!cause || (label && label->type == JV_STRING && !strcmp(label->string, cause)))
			sum += row_number(&rows->items[i], "migrations");
	}
	return sum;
}

/* One record's causes against its migrations, for causes_add_up. */
static void add_up(struct causes_data *d, const struct jv *rec)
{
	double off = fabs(cause_migrations(rec, NULL) - record_metric(rec, "migrations"));

	d->records++;
	if (!(off == 0)) {
		d->records_off++;
		if (!(off <= d->worst_off))	/* NAN (a migrations metric missing) included */
			d->worst_off = off;
	}
}

/* The home CPU: the first online CPU outside CPU 0's LLC, or -1. */
static int other_llc_cpu(void)
{
	const struct topology *t = &check_env.topo;

	for (int cpu = 1; cpu < t->nr_cpu_ids; cpu++)
		if (cpumask_test(&t->online, cpu) && t->llc_of_cpu[cpu] != t->llc_of_cpu[0])
			return cpu;
	return -1;
}

static int causes_run(enum check_tier tier, void *data, char *err, size_t errlen)
{
	struct causes_data *d = data;
	const struct topology *t = &check_env.topo;
	struct wakeloop_data wl;
	struct records recs = { 0 };
	struct tool_run tool;
	const struct jv *s, *rec;
	char wl_out[300], home[16];
	const char *args[] = { "-c", "0", "-p", home, "-n", NULL, NULL };
	int status, ret = -1;

	memset(&wl, 0, sizeof(wl));
	d->home = other_llc_cpu();
	d->across_llcs = d->home > 0;
	if (!d->across_llcs)
		d->home = 1;
	snprintf(home, sizeof(home), "%d", d->home);
	/* fewer wakeups across LLCs: each is a migration both ways, slow under TCG */
	args[5] = d->across_llcs ? "400" : "1000";
	snprintf(wl_out, sizeof(wl_out), "%s/causes-wakeloop.%s.out", check_env.work,
		 check_tier_name(tier));
	if (!d->across_llcs &&
	    workload_start(err, errlen, "spinner", "-c", home, "-s", "600", ARGS_END) < 0)
		goto out;
	/* intervals too: the causes must add up in each record */
	if (tool_start(&tool, "idlebal", tier, -1, "causes", err, errlen, "--comm", "wakeloop",
		       "-i", "0.5", "-d", "300", ARGS_END))
		goto out;
	status = workload_run(wl_out, "wakeloop", args, err, errlen);
	tool_stop(&tool);
	if (status > 0) {
		errmsg(err, errlen, "wakeloop exited with status %d (%s)", status, wl_out);
		goto out;
	}
	if (status < 0)
		goto out;
	if (tool.status != 0) {
		errmsg(err, errlen, "idlebal exited with status %d (%s)", tool.status, tool.err);
		goto out;
	}
	if (wakeloop_read(wl_out, &wl, err, errlen) || records_read(tool.out, &recs, err, errlen))
		goto out;
	s = record_of_type(&recs, "summary", -1);
	if (!s) {
		errmsg(err, errlen, "idlebal wrote no summary (%s)", tool.out);
		goto out;
	}
	for (long k = 0; (rec = record_of_type(&recs, "interval", k)); k++)
		add_up(d, rec);
	add_up(d, s);
	d->wakeups = wl.wakeups;
	for (int cpu = 0; cpu < MAX_CPUS && cpu < t->nr_cpu_ids; cpu++) {
		if (cpu == d->home)
			continue;
		d->landed_off_home += wl.landed[cpu];
		if (t->llc_of_cpu[cpu] == t->llc_of_cpu[0])
			d->landed_waker_llc += wl.landed[cpu];
	}
	d->wakeup = cause_migrations(s, "wakeup");
	d->affinity = cause_migrations(s, "affinity");
	d->migrations = record_metric(s, "migrations");
	printf("#   causes [%s]: home CPU %d (%s); wakeloop: %ld wakeups, %ld landed off home, %ld of them in CPU 0's LLC; idlebal: migrations %.0f, wakeup %.0f, affinity %.0f\n",
	       check_tier_name(tier), d->home, d->across_llcs ? "another LLC" : "CPU 0's LLC, a spinner on it",
	       d->wakeups, d->landed_off_home, d->landed_waker_llc, d->migrations, d->wakeup,
	       d->affinity);
	ret = 0;
out:
	records_free(&recs);
	workloads_stop();
	return ret;
}

static const struct scenario sc_causes = { "causes", sizeof(struct causes_data), causes_run };

/* The scenario's data if the sleeper left home often enough, else NULL (failed). */
static const struct causes_data *causes_get(struct check_run *r)
{
	const struct causes_data *d = scenario_get(r, &sc_causes);
	long need;

	if (!d)
		return NULL;
	need = d->across_llcs ? d->wakeups / 2 : MIN_LANDED_HOST;
	if (d->landed_off_home < need) {
		check_pass(r, false, "the sleeper landed off home CPU %d %ld times of %ld (%ld needed)",
			   d->home, d->landed_off_home, d->wakeups, need);
		return NULL;
	}
	return d;
}

/* A cause's count against the landings off home, 2% + 2 either side. */
static void cause_near_landings(struct check_run *r, bool affinity)
{
	const struct causes_data *d = causes_get(r);
	const char *cause = affinity ? "affinity" : "wakeup";
	double count, slack;

	if (!d)
		return;
	count = affinity ? d->affinity : d->wakeup;
	slack = 0.02 * (double)d->landed_off_home + 2;
	check_bounds(r, count, (double)d->landed_off_home - slack,
		     (double)d->landed_off_home + slack, slack,
		     "%s migrations against the %ld wakeups that landed off home CPU %d (of %.0f migrations)",
		     cause, d->landed_off_home, d->home, d->migrations);
}

CHECK(causes_wakeup, .id = "idlebal.known.causes.wakeup", .tool = "idlebal",
      .tiers = TIER_TRACEPOINT, .kind = KIND_KNOWN_ANSWER, .needs = NEED_ROOT,
      .tolerance = "2% of the landings + 2",
      .what = "wakeloop's sleeper, woken from CPU 0: each wakeup that lands off its home CPU "
	      "is one wakeup migration")
{
	cause_near_landings(r, false);
}

CHECK(causes_affinity, .id = "idlebal.known.causes.affinity", .tool = "idlebal",
      .tiers = TIER_TRACEPOINT, .kind = KIND_KNOWN_ANSWER, .needs = NEED_ROOT,
      .tolerance = "2% of the landings + 2",
      .what = "wakeloop's sleeper moves itself home before each sleep: one affinity "
	      "migration for each wakeup that landed off home")
{
	cause_near_landings(r, true);
}

CHECK(causes_llc, .id = "idlebal.known.causes.waker_llc", .tool = "idlebal",
      .tiers = TIER_TRACEPOINT, .kind = KIND_KNOWN_ANSWER, .needs = NEED_ROOT | NEED_LLCS2,
      .tolerance = "10% of the landings",
      .what = "a sync wakeup from CPU 0 of a sleeper homed in another LLC: wake_affine() "
	      "takes the waker's LLC, where SIS places it")
{
	const struct causes_data *d = causes_get(r);

	if (!d)
		return;
	check_bounds(r, (double)d->landed_waker_llc, 0.9 * (double)d->landed_off_home, INFINITY,
		     0.1 * (double)d->landed_off_home,
		     "landings in CPU 0's LLC of the %ld off home CPU %d", d->landed_off_home,
		     d->home);
}

CHECK(causes_add_up, .id = "idlebal.consistency.causes.add_up", .tool = "idlebal",
      .tiers = TIER_TRACEPOINT, .kind = KIND_CONSISTENCY, .needs = NEED_ROOT,
      .tolerance = "exact",
      .what = "in every record, the migration_causes rows' migrations add up to migrations")
{
	const struct causes_data *d = scenario_get(r, &sc_causes);

	if (!d)
		return;
	if (!d->records) {
		check_pass(r, false, "no interval or summary record");
		return;
	}
	check_bounds(r, (double)d->records_off, 0, 0, 0,
		     "records whose causes do not add up, of %ld (worst by %.0f)", d->records,
		     d->worst_off);
}
