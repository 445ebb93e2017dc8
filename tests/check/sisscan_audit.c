// SPDX-License-Identifier: GPL-2.0
/*
 * sisscan's filter audit against itself, in every tier. The "ideal" filter
 * is the truth at the wakeup (docs/metrics.md, filter_<f>_fp): it passes
 * exactly the CPUs the audit finds unoccupied, so a false positive or
 * negative of it is a bug in the accounting, not a verdict. Every
 * select_idle_sibling() search is audited once: with --comm, a wakeup's
 * counts all go to one counter bank and a reading takes whole banks
 * (docs/json.md), so audits = sis_search exactly.
 *
 * pingpong's wakeups, with every model the tier has beside ideal (the v4
 * "unoccupied" mask is read at select_idle_cpu(), so not in the
 * tracepoint tier): the audit must hold with all of them attached.
 *
 * Ported from guest-tests.sh's sis_audit and tests/live/test_sisscan.sh's
 * "filter ideal" check (the host's --events replay stays there: it needs
 * Python).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "util.h"

struct audit_data {
	double audits, search, ideal_fp, ideal_fn;
};

static int audit_run(enum check_tier tier, void *data, char *err, size_t errlen)
{
	struct audit_data *d = data;
	const char *filters = tier == TIER_TRACEPOINT
				      ? "ideal,unoccupied_tick,overloaded,delayed"
				      : "ideal,unoccupied,unoccupied_tick,overloaded,delayed";
	static const char *const pingpong_args[] = { "-n", "10000", NULL };
	struct records recs = { 0 };
	struct tool_run tool;
	const struct jv *s;
	char wl_out[300];
	int status, ret = -1;

	snprintf(wl_out, sizeof(wl_out), "%s/audit-pingpong.%s.out", check_env.work,
		 check_tier_name(tier));
	if (tool_start(&tool, "sisscan", tier, -1, "audit", err, errlen, "--comm", "pingpong",
		       "--filter", filters, "-d", "300", ARGS_END))
		return -1;
	status = workload_run(wl_out, "pingpong", pingpong_args, err, errlen);
	tool_stop(&tool);
	if (status > 0)
		return errmsg(err, errlen, "pingpong exited with status %d (%s)", status, wl_out);
	if (status < 0)
		return -1;
	if (tool.status != 0)
		return errmsg(err, errlen, "sisscan exited with status %d (%s)", tool.status,
			      tool.err);
	if (records_read(tool.out, &recs, err, errlen))
		return -1;
	s = record_of_type(&recs, "summary", -1);
	if (!s) {
		errmsg(err, errlen, "sisscan wrote no summary (%s)", tool.out);
	} else {
		d->audits = record_metric(s, "audits");
		d->search = record_metric(s, "sis_search");
		d->ideal_fp = record_metric(s, "filter_ideal_fp");
		d->ideal_fn = record_metric(s, "filter_ideal_fn");
		printf("#   sis_audit [%s]: audits %.0f, sis_search %.0f; ideal fp %.0f fn %.0f; unoccupied fp %.0f fn %.0f, unoccupied_tick fp %.0f fn %.0f, overloaded fp %.0f fn %.0f, delayed fp %.0f fn %.0f\n",
		       check_tier_name(tier), d->audits, d->search, d->ideal_fp, d->ideal_fn,
		       record_metric(s, "filter_unoccupied_fp"),
		       record_metric(s, "filter_unoccupied_fn"),
		       record_metric(s, "filter_unoccupied_tick_fp"),
		       record_metric(s, "filter_unoccupied_tick_fn"),
		       record_metric(s, "filter_overloaded_fp"),
		       record_metric(s, "filter_overloaded_fn"),
		       record_metric(s, "filter_delayed_fp"), record_metric(s, "filter_delayed_fn"));
		ret = 0;
	}
	records_free(&recs);
	return ret;
}

static const struct scenario sc_audit = { "sis_audit", sizeof(struct audit_data), audit_run };

/* The data of an audit that audited something, or NULL with the check failed. */
static const struct audit_data *audit_get(struct check_run *r)
{
	const struct audit_data *d = scenario_get(r, &sc_audit);

	if (!d || check_absent(r, d->audits, "audits"))
		return NULL;
	if (!(d->audits > 0)) {
		check_pass(r, false, "no audit over %.0f searches", d->search);
		return NULL;
	}
	return d;
}

/* One of ideal's counts, 0 by construction. */
static void ideal_zero(struct check_run *r, bool negatives)
{
	const struct audit_data *d = audit_get(r);
	const char *name = negatives ? "filter_ideal_fn" : "filter_ideal_fp";
	double value;

	if (!d)
		return;
	value = negatives ? d->ideal_fn : d->ideal_fp;
	if (!check_absent(r, value, name))
		check_bounds(r, value, 0, 0, 0, "%s over %.0f audits", name, d->audits);
}

CHECK(audit_ideal_fp, .id = "sisscan.consistency.audit.ideal_fp", .tool = "sisscan",
      .tiers = TIER_ALL, .kind = KIND_CONSISTENCY, .needs = NEED_ROOT, .tolerance = "exact",
      .what = "--filter ideal, the truth at the wakeup: no false positive")
{
	ideal_zero(r, false);
}

CHECK(audit_ideal_fn, .id = "sisscan.consistency.audit.ideal_fn", .tool = "sisscan",
      .tiers = TIER_ALL, .kind = KIND_CONSISTENCY, .needs = NEED_ROOT, .tolerance = "exact",
      .what = "--filter ideal, the truth at the wakeup: no false negative")
{
	ideal_zero(r, true);
}

CHECK(audit_per_search, .id = "sisscan.consistency.audit.one_per_search", .tool = "sisscan",
      .tiers = TIER_ALL, .kind = KIND_CONSISTENCY, .needs = NEED_ROOT, .tolerance = "exact",
      .what = "with --comm, every select_idle_sibling() search is audited once: audits = "
	      "sis_search")
{
	const struct audit_data *d = audit_get(r);

	if (d && !check_absent(r, d->search, "sis_search"))
		check_bounds(r, d->audits, d->search, d->search, 0,
			     "audits against sis_search, every filter of the tier attached");
}
