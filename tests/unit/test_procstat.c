/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tests for lib/procstat.c: /proc/stat's per-CPU times, as the check
 * runner's overloaded-while-idle references and kstat read them.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "procstat.h"
#include "unit.h"

const char *unit_suite_name = "procstat";

static void test_parse(void)
{
	/* 6.x layout: user nice system idle iowait irq softirq steal guest guest_nice */
	static const char text[] =
		"cpu  10 0 20 300 4 5 6 7 0 0\n"
		"cpu0 1 2 3 400 5 6 7 8 0 0\n"
		"cpu2 1 0 0 100 0 0 0 0 0 0\n"
		"intr 12345 0 0\n"
		"ctxt 99\n";
	struct procstat s;
	char err[128] = "";

	CHECK_INT(procstat_parse(text, 100, &s, err, sizeof(err)), 0);
	CHECK_STR(err, "");
	CHECK_INT(s.nr_cpus, 3);
	if (s.nr_cpus != 3)
		return;
	CHECK_INT(s.present[0], 1);
	CHECK_INT(s.present[1], 0);	/* offline: no line, all zero */
	CHECK_INT(s.present[2], 1);
	CHECK_U64(s.cpu[0].idle, 4000000000ULL);
	CHECK_U64(s.cpu[0].steal, 80000000ULL);
	CHECK_U64(procstat_idle_ns(&s.cpu[0]), 4050000000ULL);
	CHECK_U64(procstat_idle_upper_ns(&s.cpu[0]), 4050000000ULL + 210000000ULL);
	CHECK_U64(procstat_idle_ns(&s.cpu[1]), 0);
	CHECK_U64(s.cpu[2].user, 10000000ULL);
	procstat_free(&s);
	CHECK_INT(s.nr_cpus, 0);
}

static void test_old_layout(void)
{
	/* 2.6.11-era lines stop after softirq: steal reads 0 */
	struct procstat s;

	CHECK_INT(procstat_parse("cpu0 1 2 3 4 5 6 7\n", 1000, &s, NULL, 0), 0);
	if (s.nr_cpus == 1) {
		CHECK_U64(s.cpu[0].softirq, 7000000ULL);
		CHECK_U64(s.cpu[0].steal, 0);
	}
	procstat_free(&s);
}

static void test_malformed(void)
{
	struct procstat s;
	char err[128];

	CHECK_INT(procstat_parse("intr 1\n", 100, &s, err, sizeof(err)), -1);
	CHECK(strstr(err, "no cpuN line") != NULL);
	CHECK_INT(procstat_parse("cpu0 1 2 3\n", 100, &s, err, sizeof(err)), -1);
	CHECK(strstr(err, "line 1") != NULL);
	CHECK_INT(procstat_parse("cpu0 1 2 3 4 5 6 7\ncpu99999999 1 2 3 4 5 6 7\n", 100, &s, err,
				 sizeof(err)), -1);
	CHECK(strstr(err, "line 2") != NULL);
	CHECK_INT(procstat_parse("cpu0 1 2 3 4 5 6 7\n", 0, &s, err, sizeof(err)), -1);
	CHECK_INT(procstat_read("/nonexistent/stat", &s, err, sizeof(err)), -1);
	CHECK(err[0] != '\0');
}

static void test_this_machine(void)
{
	struct procstat a, b;
	char err[128];

	CHECK_INT(procstat_read(NULL, &a, err, sizeof(err)), 0);
	CHECK_INT(procstat_read(NULL, &b, err, sizeof(err)), 0);
	CHECK(a.nr_cpus > 0);
	/* cumulative: never backwards */
	for (int c = 0; c < a.nr_cpus && c < b.nr_cpus; c++)
		CHECK(procstat_idle_upper_ns(&b.cpu[c]) >= procstat_idle_upper_ns(&a.cpu[c]));
	procstat_free(&a);
	procstat_free(&b);
}

UNIT_MAIN(UNIT_TEST(test_parse),
	  UNIT_TEST(test_old_layout),
	  UNIT_TEST(test_malformed),
	  UNIT_TEST(test_this_machine))
