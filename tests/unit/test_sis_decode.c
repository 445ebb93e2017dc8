// SPDX-License-Identifier: GPL-2.0
/*
 * The SIS decoder (tools/sisscan/sis_decode.h, the code the BPF program runs)
 * fed with the call sequences select_task_rq_fair() makes, written down
 * by hand from the 6.1 / 6.12 / 6.18 sources (docs/sis-decoding.md).
 * Machine: 8 CPUs, LLCs {0-3} and {4-7}; SMT pairs {0,1} {2,3} ... only
 * where a test says so.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sis_decode.h"
#include "unit.h"

struct decoded {
	unsigned int outcome, probes, smt_probes, domain_probes;
	int target, recent_probed;
};

/*
 * Runs a script: "P3:1" = available_idle_cpu(3) returned 1, "S3,0:1" =
 * cpus_share_cache(3, 0) returned 1, separated by spaces.
 */
static struct decoded run(int waker, int prev, int recent, int smt,
			  const char *script, int ret, int ret_unoccupied)
{
	char buf[256], *save = NULL;
	struct sis_decoder d;
	struct decoded out;

	sis_decode_begin(&d, waker, prev, recent);
	snprintf(buf, sizeof(buf), "%s", script);
	for (char *tok = strtok_r(buf, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		int a, b, r;

		if (sscanf(tok, "P%d:%d", &a, &r) == 2)
			sis_decode_probe(&d, a, r, smt && a / 2 == prev / 2);
		else if (sscanf(tok, "S%d,%d:%d", &a, &b, &r) == 3)
			sis_decode_share_cache(&d, a, b, r);
		else
			UNIT_FAIL("bad script token %s", tok);
	}
	out.outcome = sis_decode_finish(&d, ret, ret_unoccupied);
	out.probes = d.probes;
	out.smt_probes = d.smt_probes;
	out.domain_probes = d.domain_probes;
	out.target = d.target;
	out.recent_probed = d.recent_probed;
	return out;
}

static void test_target_idle(void)
{
	struct decoded r = run(1, 1, 1, 0, "P1:1", 1, 1);

	CHECK_INT(r.outcome, SIS_OUT_TARGET_IDLE);
	CHECK_INT(r.target, 1);
	CHECK_INT(r.domain_probes, 0);
}

static void test_wake_affine_then_domain_hit(void)
{
	/*
	 * W=0 prev=2 recent=3, one LLC: wake_affine_idle probes W (busy)
	 * and prev (busy), wake_affine_weight picks W; S1 W busy; S2 prev
	 * busy; S4 recent busy; the scan wraps from 1: 1, 2, 3 idle.
	 */
	struct decoded r = run(0, 2, 3, 0,
			       "P0:0 P2:0 P0:0 S2,0:1 P2:0 S3,0:1 P3:0 "
			       "P1:0 P2:0 P3:1", 3, 1);

	CHECK_INT(r.outcome, SIS_OUT_DOMAIN_HIT);
	CHECK_INT(r.target, 0);
	CHECK_INT(r.domain_probes, 3);
	CHECK_INT(r.probes, 8);
	CHECK_INT(r.recent_probed, 1);
}

static void test_prev_idle(void)
{
	struct decoded r = run(0, 2, 2, 0, "P0:0 P2:0 P0:0 S2,0:1 P2:1", 2, 1);

	CHECK_INT(r.outcome, SIS_OUT_PREV_IDLE);
}

static void test_recent_hit(void)
{
	struct decoded r = run(1, 1, 3, 0, "P1:0 S3,1:1 P3:1", 3, 1);

	CHECK_INT(r.outcome, SIS_OUT_RECENT_HIT);
	CHECK_INT(r.recent_probed, 1);
}

static void test_recent_other_llc_is_not_probed(void)
{
	struct decoded r = run(1, 1, 5, 0, "P1:0 S5,1:0 P2:1", 2, 1);

	CHECK_INT(r.outcome, SIS_OUT_DOMAIN_HIT);
	CHECK_INT(r.recent_probed, 0);
	CHECK_INT(r.domain_probes, 1);
}

static void test_domain_failed(void)
{
	struct decoded r = run(1, 1, 1, 0, "P1:0 P2:0 P3:0 P0:0", 1, 0);

	CHECK_INT(r.outcome, SIS_OUT_DOMAIN_FAILED);
	CHECK_INT(r.domain_probes, 3);
}

static void test_scan_skipped(void)
{
	/* SIS_UTIL's nr_idle_scan == 0: S1 busy, then nothing. */
	struct decoded r = run(1, 1, 1, 0, "P1:0", 1, 0);

	CHECK_INT(r.outcome, SIS_OUT_SCAN_SKIPPED);
}

static void test_sched_idle_target(void)
{
	/* sched_idle_cpu(target) is not a call: the probe said busy. */
	struct decoded r = run(1, 1, 1, 0, "P1:0", 1, 1);

	CHECK_INT(r.outcome, SIS_OUT_TARGET_IDLE);
}

static void test_smt_sibling_hit(void)
{
	/* SMT active, no idle core: S7 checks (prev, target), probes 3. */
	struct decoded r = run(2, 2, 2, 1, "P2:0 S2,2:1 P3:1", 3, 1);

	CHECK_INT(r.outcome, SIS_OUT_SMT_HIT);
	CHECK_INT(r.smt_probes, 1);
	CHECK_INT(r.domain_probes, 0);
}

static void test_smt_miss_then_domain(void)
{
	/* The scan from target + 1 = 3 probes 3 again: that is S8. */
	struct decoded r = run(2, 2, 2, 1, "P2:0 S2,2:1 P3:0 P3:0 P0:0 P1:1",
			       1, 1);

	CHECK_INT(r.outcome, SIS_OUT_DOMAIN_HIT);
	CHECK_INT(r.smt_probes, 1);
	CHECK_INT(r.domain_probes, 3);
}

static void test_smt_6_1_probes_prev_too(void)
{
	/* 6.1's select_idle_smt() does not skip prev itself. */
	struct decoded r = run(2, 2, 2, 1, "P2:0 S2,2:1 P2:0 P3:1", 3, 1);

	CHECK_INT(r.outcome, SIS_OUT_SMT_HIT);
	CHECK_INT(r.smt_probes, 2);
}

static void test_cross_llc_wake_affine(void)
{
	/*
	 * W=5, prev=1 in the other LLC: W idle, not sharing with prev, no
	 * sync shortcut, so prev is probed; the weight test picks W; S1 W
	 * (busy by now); S2's check is false; the scan runs in W's LLC.
	 */
	struct decoded r = run(5, 1, 1, 0,
			       "P5:1 S5,1:0 P1:0 P5:0 S1,5:0 P6:0 P7:1", 7, 1);

	CHECK_INT(r.outcome, SIS_OUT_DOMAIN_HIT);
	CHECK_INT(r.target, 5);
	CHECK_INT(r.domain_probes, 2);
}

static void test_sync_shortcut(void)
{
	struct decoded r = run(5, 1, 1, 0, "P5:0 P5:0 S1,5:0 P6:1", 6, 1);

	CHECK_INT(r.outcome, SIS_OUT_DOMAIN_HIT);
	CHECK_INT(r.target, 5);
	CHECK_INT(r.domain_probes, 1);
}

static void test_idle_waker_sharing_prev(void)
{
	/* W idle and sharing the LLC: prev busy, so W; S1 W idle. */
	struct decoded r = run(0, 2, 2, 0, "P0:1 S0,2:1 P2:0 P0:1", 0, 1);

	CHECK_INT(r.outcome, SIS_OUT_TARGET_IDLE);
	CHECK_INT(r.target, 0);
}

static void test_no_sis(void)
{
	/* WF_CURRENT_CPU returns the waker before SIS. */
	struct decoded r = run(3, 1, 1, 0, "", 3, 0);

	CHECK_INT(r.outcome, SIS_OUT_NO_SIS);
}

static void test_undecoded(void)
{
	struct decoded r = run(0, 2, 2, 0, "P6:0", 6, 0);

	CHECK_INT(r.outcome, SIS_OUT_UNDECODED);
	r = run(0, 2, 2, 0, "P0:0 P2:0 P0:0 S2,0:1 P3:0", 3, 0);
	CHECK_INT(r.outcome, SIS_OUT_UNDECODED);
	r = run(1, 1, 1, 0, "P1:0 P2:0 S2,1:1", 2, 1);
	CHECK_INT(r.outcome, SIS_OUT_UNDECODED);
}

static void test_6_12_prev_aff_fallback_is_a_failed_scan(void)
{
	/* prev idle but in another cluster: remembered, scan fails, prev. */
	struct decoded r = run(0, 2, 2, 0,
			       "P0:0 P2:0 P0:0 S2,0:1 P2:1 P1:0 P2:0 P3:0", 2, 0);

	CHECK_INT(r.outcome, SIS_OUT_DOMAIN_FAILED);
	CHECK_INT(r.domain_probes, 3);
}

static void test_idle_core_scan_returns_remembered_cpu(void)
{
	/* select_idle_core(): 1 idle but its core is not; keeps scanning. */
	struct decoded r = run(0, 0, 0, 0, "P0:0 P1:1 P2:0 P3:0", 1, 1);

	CHECK_INT(r.outcome, SIS_OUT_DOMAIN_HIT);
	CHECK_INT(r.domain_probes, 3);
}

UNIT_MAIN(UNIT_TEST(test_target_idle),
	  UNIT_TEST(test_wake_affine_then_domain_hit),
	  UNIT_TEST(test_prev_idle),
	  UNIT_TEST(test_recent_hit),
	  UNIT_TEST(test_recent_other_llc_is_not_probed),
	  UNIT_TEST(test_domain_failed),
	  UNIT_TEST(test_scan_skipped),
	  UNIT_TEST(test_sched_idle_target),
	  UNIT_TEST(test_smt_sibling_hit),
	  UNIT_TEST(test_smt_miss_then_domain),
	  UNIT_TEST(test_smt_6_1_probes_prev_too),
	  UNIT_TEST(test_cross_llc_wake_affine),
	  UNIT_TEST(test_sync_shortcut),
	  UNIT_TEST(test_idle_waker_sharing_prev),
	  UNIT_TEST(test_no_sis),
	  UNIT_TEST(test_undecoded),
	  UNIT_TEST(test_6_12_prev_aff_fallback_is_a_failed_scan),
	  UNIT_TEST(test_idle_core_scan_returns_remembered_cpu))
