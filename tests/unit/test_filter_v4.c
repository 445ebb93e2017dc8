// SPDX-License-Identifier: GPL-2.0
/*
 * The v4 "unoccupied" filter model (tools/sisscan/filter_v4.h, the code
 * the BPF program runs) on cases written down from seed 000's patches 5-7
 * (sd_classify(), sd_update_state(), sd_update_icpus(), select_idle_cpu()).
 * Cores are SMT2 {0,1} and SMT4 {4,5,6,7}; siblings are listed in the
 * order update_sd_lb_stats() visits them, dst's group first.
 */
#include "filter_v4.h"
#include "unit.h"

/* u: unoccupied_rq(); i: idle_cpu() with nothing queued; s: sched-idle. */
#define BUSY(c) { .cpu = (c) }
#define IDLE(c) { .cpu = (c), .unoccupied = 1, .idle = 1 }
#define SCHED_IDLE(c) { .cpu = (c), .unoccupied = 1, .sched_idle = 1 }
/* nr_running == 0 while the outgoing task is still curr (newly idle). */
#define EMPTY(c) { .cpu = (c), .unoccupied = 1 }

/* P6: another idle CPU of the core is propagated, the LLC is not busy. */
static void test_idle_sibling_propagated(void)
{
	struct v4_cpu_view core[] = { BUSY(0), IDLE(1) };
	struct v4_update u;

	v4_balance(V4_IS_BUSY, core, 2, 0, &u);
	CHECK_INT(u.set_cpu, 1);
	CHECK_INT(u.clear_core, 0);
	CHECK_INT(u.llc_idle, 1);
	CHECK_INT(u.state, V4_HAS_ICPUS);
}

/* P7 L771-772 and L806-807: dst is never the CPU propagated. */
static void test_dst_excluded(void)
{
	struct v4_cpu_view core[] = { IDLE(1), IDLE(0) };
	struct v4_update u;

	v4_balance(V4_IS_BUSY, core, 2, 0, &u);
	CHECK_INT(u.set_cpu, 0);	/* the sibling, not dst 1 */
}

/*
 * P7 L936-946 with L990 as posted: dst is the core's only unoccupied CPU,
 * so the state is sd_may_idle and icpu = dst, but sd_update_icpus() gets
 * sds->idle_cpu = -1 and clears the core. The LLC is marked not busy.
 */
static void test_only_dst_idle_clears_core_as_posted(void)
{
	struct v4_cpu_view core[] = { IDLE(1), BUSY(0) };
	struct v4_update u;

	v4_balance(V4_HAS_ICPUS, core, 2, 0, &u);
	CHECK_INT(u.state, V4_MAY_IDLE);
	CHECK_INT(u.clear_core, 1);
	CHECK_INT(u.set_cpu, -1);
	CHECK_INT(u.llc_idle, 1);
}

/* A sched-idle dst counts too (sched_idle_cpu(this)). */
static void test_sched_idle_dst_may_idle(void)
{
	struct v4_cpu_view core[] = { SCHED_IDLE(1), BUSY(0) };
	struct v4_update u;

	v4_balance(V4_IS_BUSY, core, 2, 0, &u);
	CHECK_INT(u.state, V4_MAY_IDLE);
}

/*
 * A newly idle dst whose outgoing task is still curr is not idle_cpu():
 * with a busy sibling the balance sees a busy core.
 */
static void test_newly_idle_dst_is_busy(void)
{
	struct v4_cpu_view core[] = { EMPTY(1), BUSY(0) };
	struct v4_update u;

	v4_balance(V4_IS_BUSY, core, 2, 0, &u);
	CHECK_INT(u.state, V4_IS_BUSY);
	CHECK_INT(u.set_cpu, -1);
	CHECK_INT(u.clear_core, 0);
	CHECK_INT(u.llc_idle, 0);
}

/* P7 L966-993: busy after has_icpus only marks sd_may_idle; again, it clears. */
static void test_busy_core_two_steps(void)
{
	struct v4_cpu_view core[] = { BUSY(0), BUSY(1) };
	struct v4_update u;

	v4_balance(V4_HAS_ICPUS, core, 2, 0, &u);
	CHECK_INT(u.state, V4_MAY_IDLE);
	CHECK_INT(u.clear_core, 0);	/* false positives stay a while */
	CHECK_INT(u.llc_idle, 0);
	v4_balance(u.state, core, 2, 0, &u);
	CHECK_INT(u.state, V4_IS_BUSY);
	CHECK_INT(u.clear_core, 1);
	v4_balance(u.state, core, 2, 0, &u);	/* "nothing changes" */
	CHECK_INT(u.state, V4_IS_BUSY);
	CHECK_INT(u.clear_core, 0);
	CHECK_INT(u.set_cpu, -1);
}

/*
 * SMT4: the first unoccupied CPU is remembered, a later idle one wins
 * (P6 L8731-8745 and L8797-8804: "prefer the last idle cpu").
 */
static void test_last_idle_wins(void)
{
	struct v4_cpu_view sched_idle_first[] = { BUSY(5), SCHED_IDLE(6), BUSY(7), BUSY(4) };
	struct v4_cpu_view idle_later[] = { BUSY(5), SCHED_IDLE(6), IDLE(7), IDLE(4) };
	struct v4_update u;

	v4_balance(V4_IS_BUSY, sched_idle_first, 4, 0, &u);
	CHECK_INT(u.set_cpu, 6);
	v4_balance(V4_IS_BUSY, idle_later, 4, 0, &u);
	CHECK_INT(u.set_cpu, 4);
}

/* The seeding balances for nobody: every CPU may be chosen. */
static void test_seed_takes_any_cpu(void)
{
	struct v4_cpu_view core[] = { IDLE(0), BUSY(1) };
	struct v4_update u;

	v4_balance(V4_IS_BUSY, core, 2, -1, &u);
	CHECK_INT(u.set_cpu, 0);
	CHECK_INT(u.state, V4_HAS_ICPUS);
}

/*
 * P5 L741-747: a complete scan that found nothing leaves the LLC busy;
 * SIS_UTIL's cut returns before the write; an idle-core scan is complete.
 */
static void test_scan_leaves_busy(void)
{
	CHECK_INT(v4_scan_leaves_busy(0, 0, 1), 1);
	CHECK_INT(v4_scan_leaves_busy(0, 0, 0), 0);
	CHECK_INT(v4_scan_leaves_busy(0, 1, 1), 0);
	CHECK_INT(v4_scan_leaves_busy(1, 0, 0), 1);
	CHECK_INT(v4_scan_leaves_busy(1, 1, 0), 0);
}

UNIT_MAIN(UNIT_TEST(test_idle_sibling_propagated),
	  UNIT_TEST(test_dst_excluded),
	  UNIT_TEST(test_only_dst_idle_clears_core_as_posted),
	  UNIT_TEST(test_sched_idle_dst_may_idle),
	  UNIT_TEST(test_newly_idle_dst_is_busy),
	  UNIT_TEST(test_busy_core_two_steps),
	  UNIT_TEST(test_last_idle_wins),
	  UNIT_TEST(test_seed_takes_any_cpu),
	  UNIT_TEST(test_scan_leaves_busy))
