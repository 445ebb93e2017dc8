/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tests for lib/vmstat.c: the hand-made samples under
 * tests/fixtures/vmstat/, plus every real capture (debian-*.txt) present.
 */
#include <errno.h>
#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "vmstat.h"

const char *unit_suite_name = "vmstat";

static int load_fixture(const char *rel, struct vmstat *s, char *err,
			size_t errlen)
{
	char path[4096];

	unit_fixture_path(path, sizeof(path), rel);
	return vmstat_read(path, s, err, errlen);
}

static void test_lookup(void)
{
	struct vmstat s;
	char err[256];
	uint64_t v = 12345;

	CHECK_INT(load_fixture("vmstat/numa-before.txt", &s, err, sizeof(err)), 0);
	CHECK_STR(err, "");
	CHECK_INT(s.nr, 19);
	if (s.nr != 19) {
		vmstat_free(&s);
		return;
	}
	/* File order is kept for callers that print everything. */
	CHECK_STR(s.entries[0].name, "nr_free_pages");
	CHECK_STR(s.entries[18].name, "thp_fault_alloc");

	CHECK_INT(vmstat_get(&s, "pgfault", &v), 0);
	CHECK_U64(v, 5000001);
	CHECK_INT(vmstat_get(&s, "nr_free_pages", &v), 0);
	CHECK_U64(v, 1000000);
	CHECK_INT(vmstat_get(&s, "thp_fault_alloc", &v), 0);
	CHECK_U64(v, 17);

	/* Present and zero is not the same as missing. */
	v = 12345;
	CHECK_INT(vmstat_get(&s, "numa_miss", &v), 0);
	CHECK_U64(v, 0);
	CHECK(vmstat_has(&s, "numa_miss"));
	v = 12345;
	CHECK_INT(vmstat_get(&s, "nr_unaccepted", &v), -ENOENT);
	CHECK_U64(v, 12345);
	CHECK(!vmstat_has(&s, "nr_unaccepted"));
	CHECK(!vmstat_has(&s, ""));
	CHECK(!vmstat_has(&s, "pgfaul"));
	CHECK(!vmstat_has(&s, "pgfaultx"));
	CHECK_INT(vmstat_get(&s, NULL, &v), -ENOENT);
	/* The value pointer is optional. */
	CHECK_INT(vmstat_get(&s, "pgmajfault", NULL), 0);
	vmstat_free(&s);
	CHECK_INT(s.nr, 0);
	CHECK(!vmstat_has(&s, "pgfault"));
}

static void test_numa_counters(void)
{
	struct vmstat s;
	struct vmstat_numa n;

	CHECK_INT(load_fixture("vmstat/numa-before.txt", &s, NULL, 0), 0);
	vmstat_numa_fill(&s, &n);
	CHECK_U64(n.numa_pte_updates, 70001);
	CHECK_U64(n.numa_huge_pte_updates, 12);
	CHECK_U64(n.numa_hint_faults, 8003);
	CHECK_U64(n.numa_hint_faults_local, 6004);
	CHECK_U64(n.numa_pages_migrated, 905);
	CHECK_U64(n.pgfault, 5000001);
	CHECK(vmstat_numa_balancing_present(&n));
	CHECK(vmstat_numa_has(&n, VMSTAT_NUMA_HINT_FAULTS_LOCAL));
	CHECK(vmstat_numa_has(&n, VMSTAT_PGFAULT));
	CHECK(!vmstat_numa_has(&n, VMSTAT_NUMA_NR_COUNTERS));
	vmstat_free(&s);

	/* A kernel without CONFIG_NUMA_BALANCING: only pgfault. */
	CHECK_INT(load_fixture("vmstat/no-numa-balancing.txt", &s, NULL, 0), 0);
	memset(&n, 0xff, sizeof(n));
	vmstat_numa_fill(&s, &n);
	CHECK_U64(n.pgfault, 777);
	CHECK(vmstat_numa_has(&n, VMSTAT_PGFAULT));
	CHECK(!vmstat_numa_has(&n, VMSTAT_NUMA_PTE_UPDATES));
	CHECK(!vmstat_numa_has(&n, VMSTAT_NUMA_HINT_FAULTS));
	CHECK_U64(n.numa_hint_faults, 0);
	CHECK_U64(n.numa_pages_migrated, 0);
	CHECK(!vmstat_numa_balancing_present(&n));
	CHECK_INT(n.present, 1u << VMSTAT_PGFAULT);
	vmstat_free(&s);

	CHECK_STR(vmstat_numa_counter_name(VMSTAT_NUMA_HUGE_PTE_UPDATES),
		  "numa_huge_pte_updates");
	CHECK_STR(vmstat_numa_counter_name(VMSTAT_PGFAULT), "pgfault");
	CHECK_STR(vmstat_numa_counter_name(VMSTAT_NUMA_NR_COUNTERS), "?");
}

static void test_delta(void)
{
	struct vmstat a, b, d;
	struct vmstat_numa n;
	char err[256];
	uint64_t v;

	CHECK_INT(load_fixture("vmstat/numa-before.txt", &a, NULL, 0), 0);
	CHECK_INT(load_fixture("vmstat/numa-after.txt", &b, NULL, 0), 0);
	CHECK_INT(vmstat_delta(&a, &b, &d, err, sizeof(err)), 0);
	CHECK_STR(err, "");
	/* nr_unaccepted exists only in "after": left out, still missing. */
	CHECK_INT(d.nr, 19);
	CHECK(!vmstat_has(&d, "nr_unaccepted"));
	CHECK_INT(vmstat_get(&d, "pgfault", &v), 0);
	CHECK_U64(v, 100000);
	CHECK_INT(vmstat_get(&d, "numa_miss", &v), 0);
	CHECK_U64(v, 0);
	/* A gauge that shrank reads back as a negative int64_t. */
	CHECK_INT(vmstat_get(&d, "nr_free_pages", &v), 0);
	CHECK_INT((int64_t)v, -1000);
	if (d.nr)
		CHECK_STR(d.entries[0].name, "nr_free_pages");

	vmstat_numa_fill(&d, &n);
	CHECK(vmstat_numa_balancing_present(&n));
	CHECK_U64(n.numa_pte_updates, 5120);
	CHECK_U64(n.numa_huge_pte_updates, 10);
	CHECK_U64(n.numa_hint_faults, 500);
	CHECK_U64(n.numa_hint_faults_local, 300);
	CHECK_U64(n.numa_pages_migrated, 100);
	CHECK_U64(n.pgfault, 100000);
	vmstat_free(&d);

	/* Counters only in "before" are missing from the delta too. */
	CHECK_INT(vmstat_delta(&b, &a, &d, NULL, 0), 0);
	CHECK(!vmstat_has(&d, "nr_unaccepted"));
	CHECK_INT(d.nr, 19);
	vmstat_free(&d);

	vmstat_free(&a);
	vmstat_free(&b);
}

static void check_rejects(const char *text, const char *msg)
{
	struct vmstat s;
	char err[256];

	memset(&s, 0xa5, sizeof(s));
	CHECK_INT(vmstat_parse(text, &s, err, sizeof(err)), -EINVAL);
	CHECK_CONTAINS(err, msg);
	CHECK_INT(s.nr, 0);
	CHECK(s.entries == NULL);
	vmstat_free(&s);
}

static void test_malformed(void)
{
	struct vmstat s;
	char err[8];

	check_rejects(NULL, "no text");
	check_rejects("", "no counters");
	check_rejects("\n  \n", "no counters");
	check_rejects("pgfault\n", "line 1: expected \"<name> <value>\"");
	check_rejects("pgfault 1\npgmajfault 2 3\n",
		      "line 2: expected \"<name> <value>\"");
	check_rejects("a 1\nb 2\npgfault -1\n",
		      "line 3: pgfault: \"-1\" is not an unsigned decimal number");
	check_rejects("pgfault 1x\n", "\"1x\" is not an unsigned decimal");
	check_rejects("pgfault 18446744073709551616\n",
		      "line 1: pgfault: \"18446744073709551616\" is out of range");
	check_rejects("pgfault 1\nnuma_hit 2\npgfault 3\n",
		      "counter \"pgfault\" appears twice");

	CHECK_INT(vmstat_parse("pgfault 18446744073709551615", &s, NULL, 0), 0);
	CHECK_U64(s.entries[0].value, UINT64_MAX);
	vmstat_free(&s);
	/* Blank lines, tabs, CRLF and a missing final newline are fine. */
	CHECK_INT(vmstat_parse("\n pgfault\t7\r\n\nnuma_hit 8", &s, NULL, 0), 0);
	CHECK_INT(s.nr, 2);
	CHECK(vmstat_has(&s, "numa_hit"));
	vmstat_free(&s);

	/* The error buffer is never overrun. */
	memset(err, 'x', sizeof(err));
	CHECK_INT(vmstat_parse("bad\n", &s, err, 4), -EINVAL);
	CHECK_STR(err, "lin");
	CHECK_INT(err[4], 'x');
}

static void test_read_errors(void)
{
	struct vmstat s;
	char err[256];

	CHECK_INT(vmstat_read("/nonexistent/vmstat", &s, err, sizeof(err)),
		  -ENOENT);
	CHECK_CONTAINS(err, "cannot open /nonexistent/vmstat");
	CHECK_INT(s.nr, 0);
	vmstat_free(&s);
}

/* Far more counters than a real kernel has: no fixed table anywhere. */
static void test_many_counters(void)
{
	const int nr = 50000;
	size_t cap = (size_t)nr * 40, len = 0;
	char *text = malloc(cap), name[32];
	struct vmstat s;
	uint64_t v;
	int i, misses = 0;

	CHECK(text != NULL);
	if (!text)
		return;
	/* Descending names, so the index really has to sort. */
	for (i = nr - 1; i >= 0; i--)
		len += (size_t)snprintf(text + len, cap - len,
					"counter_%06d %d\n", i, i * 3);
	CHECK_INT(vmstat_parse(text, &s, NULL, 0), 0);
	CHECK_INT(s.nr, nr);
	for (i = 0; i < nr; i++) {
		snprintf(name, sizeof(name), "counter_%06d", i);
		if (vmstat_get(&s, name, &v) || v != (uint64_t)i * 3)
			misses++;
	}
	CHECK_INT(misses, 0);
	CHECK(!vmstat_has(&s, "counter_050000"));
	vmstat_free(&s);

	/* One duplicate among them is still found. */
	len += (size_t)snprintf(text + len, cap - len, "counter_012345 1\n");
	check_rejects(text, "counter \"counter_012345\" appears twice");
	free(text);
}

/*
 * numa_hint_faults and numa_hint_faults_local are bumped together in the
 * NUMA hinting fault path, the local one only for a local page. They are
 * summed over CPUs while other CPUs keep faulting, so allow a little slack.
 */
#define SNAPSHOT_SLACK 16

static void check_real_capture(const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	struct vmstat s;
	struct vmstat_numa n;
	char err[512];

	if (vmstat_read(path, &s, err, sizeof(err))) {
		UNIT_FAIL("%s: %s", base, err);
		return;
	}
	vmstat_numa_fill(&s, &n);
	CHECK(vmstat_numa_has(&n, VMSTAT_PGFAULT));
	CHECK(n.pgfault > 0);
	CHECK(vmstat_has(&s, "nr_free_pages"));
	if (vmstat_numa_has(&n, VMSTAT_NUMA_HINT_FAULTS) &&
	    n.numa_hint_faults_local > n.numa_hint_faults + SNAPSHOT_SLACK)
		UNIT_FAIL("%s: numa_hint_faults_local %llu > numa_hint_faults %llu",
			  base, (unsigned long long)n.numa_hint_faults_local,
			  (unsigned long long)n.numa_hint_faults);
	printf("#   %s: %zu counters, NUMA balancing counters %s\n", base,
	       s.nr, vmstat_numa_balancing_present(&n) ? "present" : "absent");
	vmstat_free(&s);
}

/* Captured from the tests/vm guests (6.1 and 6.12) and committed. */
static void test_real_captures(void)
{
	unit_for_each_fixture("vmstat/debian-*.txt", check_real_capture);
}

UNIT_MAIN(UNIT_TEST(test_lookup),
	  UNIT_TEST(test_numa_counters),
	  UNIT_TEST(test_delta),
	  UNIT_TEST(test_malformed),
	  UNIT_TEST(test_read_errors),
	  UNIT_TEST(test_many_counters),
	  UNIT_TEST(test_real_captures))
