// SPDX-License-Identifier: GPL-2.0
/*
 * Grouping the sd_llc spans the BPF learner records into LLCs: two
 * sockets; CPUs that share no cache (no domain with ->shared); an offline
 * CPU.
 */
#include <stdio.h>
#include <string.h>
#include "cpustate.h"
#include "unit.h"

static void spans_from(struct cpumask *spans, int nr, const char *const *lists)
{
	char err[128];

	for (int cpu = 0; cpu < nr; cpu++) {
		cpumask_clear(&spans[cpu]);
		if (lists[cpu])
			CHECK_INT(cpulist_parse(lists[cpu], &spans[cpu], err, sizeof(err)), 0);
	}
}

static void test_two_sockets(void)
{
	static const char *const lists[8] = { "0-3", "0-3", "0-3", "0-3",
					       "4-7", "4-7", "4-7", "4-7" };
	struct cpumask spans[8], online;
	struct cpustate cs;
	char buf[64];

	spans_from(spans, 8, lists);
	cpumask_clear(&online);
	for (int cpu = 0; cpu < 8; cpu++)
		cpumask_set(&online, cpu);
	CHECK_INT(cpustate_group(&cs, 8, &online, spans), 0);
	CHECK_INT(cs.nr_llcs, 2);
	CHECK_INT(cs.llc_of_cpu[3], 0);
	CHECK_INT(cs.llc_of_cpu[4], 1);
	cpulist_format(&cs.llc_cpus[1], buf, sizeof(buf));
	CHECK_STR(buf, "4-7");
	cpustate_free(&cs);
}

static void test_each_cpu_its_own_llc(void)
{
	/* No domain with ->shared: the learner records the CPU alone. */
	static const char *const lists[2] = { "0", "1" };
	struct cpumask spans[2], online;
	struct cpustate cs;

	spans_from(spans, 2, lists);
	cpumask_clear(&online);
	cpumask_set(&online, 0);
	cpumask_set(&online, 1);
	CHECK_INT(cpustate_group(&cs, 2, &online, spans), 0);
	CHECK_INT(cs.nr_llcs, 2);
	CHECK_INT(cs.llc_of_cpu[0], 0);
	CHECK_INT(cs.llc_of_cpu[1], 1);
	CHECK_INT(cpumask_weight(&cs.llc_cpus[1]), 1);
	cpustate_free(&cs);
}

static void test_offline_cpu(void)
{
	/* CPU 2 offline: no LLC, and not counted in its neighbours' span. */
	static const char *const lists[4] = { "0-3", "0-3", NULL, "0-3" };
	struct cpumask spans[4], online;
	struct cpustate cs;
	char buf[64];

	spans_from(spans, 4, lists);
	cpumask_clear(&online);
	cpumask_set(&online, 0);
	cpumask_set(&online, 1);
	cpumask_set(&online, 3);
	CHECK_INT(cpustate_group(&cs, 4, &online, spans), 0);
	CHECK_INT(cs.nr_llcs, 1);
	CHECK_INT(cs.llc_of_cpu[2], -1);
	cpulist_format(&cs.llc_cpus[0], buf, sizeof(buf));
	CHECK_STR(buf, "0-1,3");
	cpustate_free(&cs);
}

static void test_words(void)
{
	CHECK_INT(cpustate_words(1), 1);
	CHECK_INT(cpustate_words(64), 1);
	CHECK_INT(cpustate_words(65), 2);
	CHECK_INT(cpustate_words(256), 4);
}

UNIT_MAIN(UNIT_TEST(test_two_sockets),
	  UNIT_TEST(test_each_cpu_its_own_llc),
	  UNIT_TEST(test_offline_cpu),
	  UNIT_TEST(test_words))
