// SPDX-License-Identifier: GPL-2.0
/*
 * The SIS decoder (tools/sisscan/sis_decode.h, the code the BPF program runs)
 * fed with the call sequences select_task_rq_fair() makes, written down
 * by hand from the 6.1 / 6.12 / 6.18 sources (docs/sis-decoding.md).
 * Machine: 8 CPUs, LLCs {0-3} and {4-7}; SMT pairs {0,1} {2,3} ... only
 * where a test says so (smt = 1: sched_smt_active(), SIS_DECODE_SMT).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sis_decode.h"
#include "unit.h"

struct decoded {
	unsigned int outcome, probes, smt_probes, domain_probes;
	int target, recent_probed, idle_core_scan;
};

/* One decoder for every run, as the BPF map value is: generations carry over. */
static struct sis_decoder decoder;

/*
 * Runs a script: "P3:1" = available_idle_cpu(3) returned 1, "S3,0:1" =
 * cpus_share_cache(3, 0) returned 1, separated by spaces.
 */
static struct decoded run_flags(int waker, int prev, int recent,
				unsigned int flags, const char *script, int ret,
				int ret_unoccupied)
{
	char buf[512], *save = NULL;
	struct sis_decoder *dp = &decoder;
	int smt = flags & SIS_DECODE_SMT;
	struct decoded out;

#define d (*dp)
	sis_decode_begin(&d, waker, prev, recent, flags);
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
	out.idle_core_scan = sis_decode_idle_core_scan(&d);
	return out;
#undef d
}

static struct decoded run(int waker, int prev, int recent, int smt,
			  const char *script, int ret, int ret_unoccupied)
{
	return run_flags(waker, prev, recent, smt ? SIS_DECODE_SMT : 0, script,
			 ret, ret_unoccupied);
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

static void test_smt_stage_skips_prev(void)
{
	/*
	 * select_idle_smt(p, sd, prev) skips cpu == prev (6.1 L6709, 6.12,
	 * 6.18): after S7's check, a probe of prev is the domain scan's.
	 * W=3, prev=2 (siblings {2,3}), target 3: S7 probes 2's sibling 3
	 * only; the scan from 0 reaches prev 2 second.
	 */
	struct decoded r = run(3, 2, 2, 1,
			       "P3:0 P2:0 P3:0 S2,3:1 P2:0 S2,3:1 P3:0 P0:0 P1:0 P2:1",
			       2, 1);

	CHECK_INT(r.outcome, SIS_OUT_DOMAIN_HIT);
	CHECK_INT(r.smt_probes, 1);
	CHECK_INT(r.domain_probes, 3);
	/*
	 * The guest's scenario: W=0 busy and alone (sync: target 0), prev=1
	 * busy. S7 probes 0, prev's other sibling; the scan from target + 1
	 * probes prev 1 first: the domain scan's, though it is a sibling of
	 * prev above S7's last probe. Depth 2, not 1.
	 */
	r = run(0, 1, 1, 1, "P0:0 P0:0 S1,0:1 P1:0 S1,0:1 P0:0 P1:0 P2:1", 2, 1);
	CHECK_INT(r.outcome, SIS_OUT_DOMAIN_HIT);
	CHECK_INT(r.smt_probes, 1);
	CHECK_INT(r.domain_probes, 2);
	/* prev == target: its sibling is S7's only probe; prev is not. */
	r = run(2, 2, 2, 1, "P2:0 S2,2:1 P3:0 P3:0 P0:0 P1:0 P2:0", 2, 0);
	CHECK_INT(r.outcome, SIS_OUT_DOMAIN_FAILED);
	CHECK_INT(r.smt_probes, 1);
	CHECK_INT(r.domain_probes, 4);
	CHECK_INT(r.idle_core_scan, 0);
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
	/*
	 * The same with SIS_UTIL's nr_idle_scan == 0 on an SMT machine: S7's
	 * check follows prev's probe, so S2 did not return: the scan was
	 * skipped, not a prev hit (it was, before S7's check was counted).
	 */
	r = run(0, 2, 2, 1, "P0:0 P2:0 P0:0 S2,0:1 P2:1 S2,0:1 P3:0", 2, 1);
	CHECK_INT(r.outcome, SIS_OUT_SCAN_SKIPPED);
	/* 6.12's remembered recent after a failed scan: a failure too. */
	r = run(0, 0, 3, 0, "P0:0 S3,0:1 P3:1 P1:0 P2:0", 3, 1);
	CHECK_INT(r.outcome, SIS_OUT_DOMAIN_FAILED);
	r = run(0, 0, 3, 1, "P0:0 S3,0:1 P3:1 S0,0:1 P1:0", 3, 1);
	CHECK_INT(r.outcome, SIS_OUT_SCAN_SKIPPED);
}

/*
 * Whole passes whose outcome the source fixes, one line each. SMT pairs
 * {0,1} {2,3} {4,5} {6,7}, LLC {0-7} here. select_idle_core() (6.1
 * L6672-6697, the same in 6.12 and 6.18): for each core the wrap loop
 * reaches it probes every sibling in ascending order, remembers the first
 * idle (or sched-idle) CPU of LLC & allowed, stops probing a core at its
 * first busy sibling once it remembers one, and returns the core (the CPU
 * the loop reached) when all siblings are idle, else the remembered CPU
 * after the loop.
 */
struct pass_case {
	const char *why;
	int waker, prev, recent;
	unsigned int flags;
	const char *script;
	int ret, ret_unoccupied;
	unsigned int outcome;
};

#define SMT SIS_DECODE_SMT
#define ASYM SIS_DECODE_ASYM

static const struct pass_case pass_cases[] = {
	{ "idle core: 1 idle, its core not; 2-3 busy: the remembered 1",
	  0, 0, 0, SMT, "P0:0 P1:1 P2:0 P3:0", 1, 1, SIS_OUT_DOMAIN_HIT },
	/* Neither the last probe (1) nor the first idle (5): was "failed". */
	{ "target 3: 4 busy, 5 idle (kept), 6 busy (stop), core 0 idle: 0",
	  3, 3, 3, SMT, "P3:0 P4:0 P5:1 P6:0 P0:1 P1:1", 0, 1, SIS_OUT_DOMAIN_HIT },
	{ "target 0: the loop reaches 1 first, core {0,1} idle: 1",
	  0, 0, 0, SMT, "P0:0 P2:0 P3:1 P4:0 P0:1 P1:1", 1, 1, SIS_OUT_DOMAIN_HIT },
	{ "no idle core: the remembered 3, probed in the middle",
	  0, 0, 0, SMT, "P0:0 P2:0 P3:1 P4:0 P6:0 P0:0", 3, 1, SIS_OUT_DOMAIN_HIT },
	{ "a remembered sched-idle CPU: its probe said busy",
	  0, 0, 0, SMT, "P0:0 P2:0 P3:0 P4:0 P5:0 P6:0 P7:0 P0:0 P1:0", 2, 1,
	  SIS_OUT_DOMAIN_HIT },
	{ "every core busy, nothing remembered: target back",
	  0, 0, 0, SMT, "P0:0 P2:0 P3:0 P4:0 P5:0 P6:0 P7:0 P0:0 P1:0", 0, 0,
	  SIS_OUT_DOMAIN_FAILED },
	{ "a CPU the scan never probed is not a scan hit",
	  0, 0, 0, SMT, "P0:0 P2:0 P3:1", 6, 1, SIS_OUT_DOMAIN_FAILED },
	/* Allowed {0,2,4,6}: 3 idle but not allowed, so not remembered. */
	{ "siblings outside affinity probed; 4 kept; core 6 idle: 6",
	  0, 0, 0, SMT, "P0:0 P2:0 P3:1 P4:1 P5:0 P6:1 P7:1", 6, 1, SIS_OUT_DOMAIN_HIT },
	{ "siblings outside affinity probed; no idle core: the remembered 4",
	  0, 0, 0, SMT, "P0:0 P2:0 P3:1 P4:1 P5:0 P6:0 P0:0", 4, 1, SIS_OUT_DOMAIN_HIT },
	/* The bitmaps are per pass: the next two cases run back to back. */
	{ "generations: 4 probed idle in this pass",
	  0, 0, 0, SMT, "P0:0 P2:0 P3:1 P4:1 P5:1", 4, 1, SIS_OUT_DOMAIN_HIT },
	{ "generations: 4 probed idle in the pass before, not in this one",
	  0, 0, 0, SMT, "P0:0 P6:0", 4, 1, SIS_OUT_DOMAIN_FAILED },
	{ "CPU 8191, the last the bitmaps hold",
	  8190, 8190, 8190, 0, "P8190:0 P8191:1", 8191, 1, SIS_OUT_DOMAIN_HIT },
	{ "CPU 8192, beyond them",
	  8190, 8190, 8190, 0, "P8190:0 P8192:1", 8192, 1, SIS_OUT_UNDECODED },
	/* select_idle_capacity() probes from target itself, then returns. */
	{ "asymmetric capacity: past S4, no grammar",
	  4, 4, 4, ASYM, "P4:0 P4:0 P5:1", 5, 1, SIS_OUT_UNDECODED },
	{ "asymmetric capacity: S1 decodes as anywhere",
	  4, 4, 4, ASYM, "P4:1", 4, 1, SIS_OUT_TARGET_IDLE },
	{ "asymmetric capacity: S4 decodes as anywhere",
	  4, 4, 6, ASYM, "P4:0 S6,4:1 P6:1", 6, 1, SIS_OUT_RECENT_HIT },
};

static void test_pass_outcomes(void)
{
	for (size_t i = 0; i < sizeof(pass_cases) / sizeof(pass_cases[0]); i++) {
		const struct pass_case *c = &pass_cases[i];
		struct decoded r = run_flags(c->waker, c->prev, c->recent, c->flags,
					     c->script, c->ret, c->ret_unoccupied);

		if (r.outcome != c->outcome)
			UNIT_FAIL("%s: outcome %u, want %u", c->why, r.outcome,
				  c->outcome);
	}
}

/* The probe counts of two of them: where each probe was put. */
static void test_idle_core_scan_counts(void)
{
	struct decoded r = run(3, 3, 3, 1, "P3:0 P4:0 P5:1 P6:0 P0:1 P1:1", 0, 1);

	CHECK_INT(r.domain_probes, 5);
	CHECK_INT(r.smt_probes, 0);
	CHECK_INT(r.idle_core_scan, 1);
	r = run(0, 0, 0, 1, "P0:0 P2:0 P3:1 P4:1 P5:0 P6:1 P7:1", 6, 1);
	CHECK_INT(r.domain_probes, 6);
	CHECK_INT(r.idle_core_scan, 1);
}

/*
 * 7.3 (fair.c at 7.3.4): available_idle_cpu() is inlined everywhere, so
 * wake_affine_idle()'s probes are not seen; SIS's candidates are asked
 * through choose_idle_cpu(), and select_idle_core()'s sibling probes are
 * replayed at its entry in the same order as 6.12's inlined calls.
 */
static void test_7_3_choose_idle_cpu(void)
{
	unsigned int f = SIS_DECODE_CHOOSE_IDLE;
	/* W=0 busy, prev=2 busy and sharing the LLC: S1 probes prev first. */
	struct decoded r = run_flags(0, 2, 2, f, "P2:1", 2, 1);

	CHECK_INT(r.outcome, SIS_OUT_TARGET_IDLE);
	CHECK_INT(r.target, 2);
	/* wake_affine() picked W: S1 on W, S2 on prev, then the scan from W + 1. */
	r = run_flags(0, 2, 2, f, "P0:0 S2,0:1 P2:0 P1:0 P3:1", 3, 1);
	CHECK_INT(r.outcome, SIS_OUT_DOMAIN_HIT);
	CHECK_INT(r.target, 0);
	CHECK_INT(r.domain_probes, 2);
	/* An idle W sharing prev's LLC: its cache check, then S1 on prev. */
	r = run_flags(0, 2, 2, f, "S0,2:1 P2:1", 2, 1);
	CHECK_INT(r.outcome, SIS_OUT_TARGET_IDLE);
	CHECK_INT(r.target, 2);
	/* A first probe of neither W nor prev is not S1. */
	r = run_flags(0, 2, 2, f, "P5:1", 5, 1);
	CHECK_INT(r.outcome, SIS_OUT_UNDECODED);
	/* Without the flag the same sequence reads W's probe as wake_affine's. */
	r = run(0, 2, 2, 0, "P0:0 S2,0:1 P2:0 P1:0 P3:1", 3, 1);
	CHECK_INT(r.outcome, SIS_OUT_UNDECODED);
	/* SMT, an idle core behind a half-idle one, the replayed probes. */
	r = run_flags(0, 0, 0, f | SIS_DECODE_SMT, "P0:0 P2:0 P3:1 P4:1 P5:1", 4, 1);
	CHECK_INT(r.outcome, SIS_OUT_DOMAIN_HIT);
	CHECK_INT(r.domain_probes, 4);
}

UNIT_MAIN(UNIT_TEST(test_target_idle),
	  UNIT_TEST(test_7_3_choose_idle_cpu),
	  UNIT_TEST(test_wake_affine_then_domain_hit),
	  UNIT_TEST(test_prev_idle),
	  UNIT_TEST(test_recent_hit),
	  UNIT_TEST(test_recent_other_llc_is_not_probed),
	  UNIT_TEST(test_domain_failed),
	  UNIT_TEST(test_scan_skipped),
	  UNIT_TEST(test_sched_idle_target),
	  UNIT_TEST(test_smt_sibling_hit),
	  UNIT_TEST(test_smt_miss_then_domain),
	  UNIT_TEST(test_smt_stage_skips_prev),
	  UNIT_TEST(test_cross_llc_wake_affine),
	  UNIT_TEST(test_sync_shortcut),
	  UNIT_TEST(test_idle_waker_sharing_prev),
	  UNIT_TEST(test_no_sis),
	  UNIT_TEST(test_undecoded),
	  UNIT_TEST(test_6_12_prev_aff_fallback_is_a_failed_scan),
	  UNIT_TEST(test_pass_outcomes),
	  UNIT_TEST(test_idle_core_scan_counts))
