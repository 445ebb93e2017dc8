/* SPDX-License-Identifier: GPL-2.0 */
#include <limits.h>
#include <stdbool.h>

#include "cpumask.h"
#include "unit.h"

/* Parse @list, which the test expects to be valid, and return its canonical form. */
static const char *canonical(const char *list)
{
	static char out[65536];
	struct cpumask m;
	char err[256];

	if (cpulist_parse(list, &m, err, sizeof(err))) {
		snprintf(out, sizeof(out), "error: %s", err);
		return out;
	}
	if (cpulist_format(&m, out, sizeof(out)) < 0)
		return "format failed";
	return out;
}

static const char *hex_canonical(const char *hex)
{
	static char out[65536];
	struct cpumask m;
	char err[256];

	if (cpumask_parse_hex(hex, &m, err, sizeof(err))) {
		snprintf(out, sizeof(out), "error: %s", err);
		return out;
	}
	if (cpulist_format(&m, out, sizeof(out)) < 0)
		return "format failed";
	return out;
}

/* Every rejected input must clear the mask and give one line of text. */
static const char *parse_error(const char *list)
{
	static char err[256];
	struct cpumask m;

	memset(&m, 0xff, sizeof(m));
	strcpy(err, "untouched");
	if (cpulist_parse(list, &m, err, sizeof(err)) != -1)
		return "accepted";
	if (!cpumask_empty(&m))
		return "mask not cleared";
	if (strchr(err, '\n'))
		return "multi-line message";
	return err;
}

static const char *hex_error(const char *hex)
{
	static char err[256];
	struct cpumask m;

	memset(&m, 0xff, sizeof(m));
	if (cpumask_parse_hex(hex, &m, err, sizeof(err)) != -1)
		return "accepted";
	if (!cpumask_empty(&m))
		return "mask not cleared";
	return err;
}

static void test_set_test_unset(void)
{
	struct cpumask m;

	cpumask_clear(&m);
	CHECK(cpumask_empty(&m));
	CHECK_INT(cpumask_weight(&m), 0);
	cpumask_set(&m, 0);
	cpumask_set(&m, 63);
	cpumask_set(&m, 64);
	cpumask_set(&m, CPUMASK_MAX_CPUS - 1);
	cpumask_set(&m, 64);
	CHECK_INT(cpumask_weight(&m), 4);
	CHECK(cpumask_test(&m, 0));
	CHECK(cpumask_test(&m, 63));
	CHECK(cpumask_test(&m, 64));
	CHECK(!cpumask_test(&m, 65));
	CHECK(cpumask_test(&m, CPUMASK_MAX_CPUS - 1));
	cpumask_unset(&m, 63);
	CHECK(!cpumask_test(&m, 63));
	CHECK_INT(cpumask_weight(&m), 3);
	CHECK(!cpumask_empty(&m));
}

static void test_out_of_range_is_ignored(void)
{
	struct cpumask m, before;

	cpumask_clear(&m);
	cpumask_set(&m, 5);
	before = m;
	cpumask_set(&m, -1);
	cpumask_set(&m, CPUMASK_MAX_CPUS);
	cpumask_set(&m, INT_MAX);
	cpumask_set(&m, INT_MIN);
	cpumask_unset(&m, -1);
	cpumask_unset(&m, CPUMASK_MAX_CPUS);
	CHECK(cpumask_equal(&m, &before));
	CHECK(!cpumask_test(&m, -1));
	CHECK(!cpumask_test(&m, CPUMASK_MAX_CPUS));
	CHECK(!cpumask_test(&m, INT_MIN));
	CHECK(!cpumask_test(&m, INT_MAX));
}

static void test_next_and_last(void)
{
	static const int cpus[] = { 0, 1, 63, 64, 127, 128, 1000, 8191 };
	struct cpumask m;
	int cpu, i = 0;

	cpumask_clear(&m);
	CHECK_INT(cpumask_next(&m, -1), -1);
	CHECK_INT(cpumask_last(&m), -1);

	for (i = 0; i < (int)(sizeof(cpus) / sizeof(cpus[0])); i++)
		cpumask_set(&m, cpus[i]);
	i = 0;
	for (cpu = cpumask_next(&m, -1); cpu >= 0; cpu = cpumask_next(&m, cpu)) {
		CHECK(i < 8);
		if (i < 8)
			CHECK_INT(cpu, cpus[i]);
		i++;
	}
	CHECK_INT(i, 8);
	CHECK_INT(cpumask_last(&m), 8191);
	CHECK_INT(cpumask_next(&m, 8191), -1);
	CHECK_INT(cpumask_next(&m, 8190), 8191);
	CHECK_INT(cpumask_next(&m, 2), 63);
	CHECK_INT(cpumask_next(&m, 62), 63);
	CHECK_INT(cpumask_next(&m, 63), 64);
	CHECK_INT(cpumask_next(&m, -100), 0);
	CHECK_INT(cpumask_next(&m, INT_MIN), 0);
	CHECK_INT(cpumask_next(&m, INT_MAX), -1);
	CHECK_INT(cpumask_next(&m, CPUMASK_MAX_CPUS), -1);

	cpumask_unset(&m, 8191);
	CHECK_INT(cpumask_last(&m), 1000);
	cpumask_clear(&m);
	cpumask_set(&m, 64);
	CHECK_INT(cpumask_last(&m), 64);
	CHECK_INT(cpumask_next(&m, -1), 64);
}

static void test_set_operations(void)
{
	struct cpumask a, b, dst;

	CHECK_INT(cpulist_parse("0-7,100", &a, NULL, 0), 0);
	CHECK_INT(cpulist_parse("4-11", &b, NULL, 0), 0);

	cpumask_and(&dst, &a, &b);
	{
		char buf[64];

		CHECK(cpulist_format(&dst, buf, sizeof(buf)) > 0);
		CHECK_STR(buf, "4-7");
		cpumask_or(&dst, &a, &b);
		cpulist_format(&dst, buf, sizeof(buf));
		CHECK_STR(buf, "0-11,100");
		/* dst aliasing an operand is allowed */
		dst = a;
		cpumask_and(&dst, &dst, &b);
		cpulist_format(&dst, buf, sizeof(buf));
		CHECK_STR(buf, "4-7");
		dst = a;
		cpumask_or(&dst, &b, &dst);
		cpulist_format(&dst, buf, sizeof(buf));
		CHECK_STR(buf, "0-11,100");
	}

	cpumask_and(&dst, &a, &b);
	CHECK(cpumask_subset(&dst, &a));
	CHECK(cpumask_subset(&dst, &b));
	CHECK(!cpumask_subset(&a, &b));
	CHECK(cpumask_subset(&a, &a));
	cpumask_clear(&dst);
	CHECK(cpumask_subset(&dst, &a));	/* empty is a subset of anything */
	CHECK(!cpumask_subset(&a, &dst));

	CHECK(cpumask_equal(&a, &a));
	CHECK(!cpumask_equal(&a, &b));
	dst = a;
	CHECK(cpumask_equal(&dst, &a));
	cpumask_set(&dst, 8191);
	CHECK(!cpumask_equal(&dst, &a));
}

static void test_parse_basic(void)
{
	struct cpumask m;
	char err[128] = "untouched";

	CHECK_INT(cpulist_parse("0-3,8,10-11", &m, err, sizeof(err)), 0);
	CHECK_INT(cpumask_weight(&m), 7);
	CHECK(cpumask_test(&m, 3));
	CHECK(!cpumask_test(&m, 4));
	CHECK(cpumask_test(&m, 11));
	CHECK_STR(err, "");	/* success leaves no stale message */

	CHECK_STR(canonical("0-3,8,10-11"), "0-3,8,10-11");
	CHECK_STR(canonical("5"), "5");
	CHECK_STR(canonical("0"), "0");
	CHECK_STR(canonical("0-0"), "0");
	CHECK_STR(canonical("7-7"), "7");
	CHECK_STR(canonical("10,11"), "10-11");
	CHECK_STR(canonical("8191"), "8191");
	CHECK_STR(canonical("0-8191"), "0-8191");
	CHECK_STR(canonical("007,010"), "7,10");
	/* order and overlap do not matter, output is canonical */
	CHECK_STR(canonical("8,0-3,2,1-2,4"), "0-4,8");
	CHECK_STR(canonical("63,64,62,65"), "62-65");
}

static void test_parse_whitespace_and_empty(void)
{
	struct cpumask m;

	cpumask_set(&m, 3);
	CHECK_INT(cpulist_parse("", &m, NULL, 0), 0);
	CHECK(cpumask_empty(&m));
	/* an empty sysfs file, e.g. devices/system/cpu/offline, is "\n" */
	CHECK_INT(cpulist_parse("\n", &m, NULL, 0), 0);
	CHECK(cpumask_empty(&m));
	CHECK_INT(cpulist_parse("  \t\n", &m, NULL, 0), 0);
	CHECK(cpumask_empty(&m));

	CHECK_STR(canonical("0-3\n"), "0-3");
	CHECK_STR(canonical("0-3\r\n"), "0-3");
	CHECK_STR(canonical("  1 , 3 \n"), "1,3");
	CHECK_STR(canonical("0-1,\t4"), "0-1,4");
}

static void test_parse_stride(void)
{
	/* examples from the kernel's bitmap_parselist() documentation */
	CHECK_STR(canonical("0-1023:2/256"), "0-1,256-257,512-513,768-769");
	CHECK_STR(canonical("0-7:2/4"), "0-1,4-5");
	CHECK_STR(canonical("0-7:1/2"), "0,2,4,6");
	/* the last group is cut by the range end */
	CHECK_STR(canonical("1-9:3/4"), "1-3,5-7,9");
	CHECK_STR(canonical("0-8:4/4"), "0-8");
	CHECK_STR(canonical("0-15:1/1"), "0-15");
	CHECK_STR(canonical("2-3:1/100"), "2");
	CHECK_STR(canonical("0-8191:1/4096"), "0,4096");
	CHECK_STR(canonical("0-3:1/2,10"), "0,2,10");
	CHECK_STR(canonical("0-9:1/2,1"), "0-2,4,6,8");
}

static void test_parse_errors(void)
{
	CHECK_STR(parse_error("abc"),
		  "invalid CPU list \"abc\": expected a CPU number at \"abc\"");
	CHECK_STR(parse_error("3-1"),
		  "invalid CPU list \"3-1\": range end is below its start");
	CHECK_STR(parse_error("0,3-1"),
		  "invalid CPU list \"0,3-1\": range end is below its start in \"3-1\"");
	CHECK_STR(parse_error("1,,2"),
		  "invalid CPU list \"1,,2\": empty entry between commas");
	CHECK_STR(parse_error("1, ,2"),
		  "invalid CPU list \"1, ,2\": empty entry between commas");
	CHECK_STR(parse_error(",1"),
		  "invalid CPU list \",1\": it starts with a comma");
	CHECK_STR(parse_error("1,\n"),
		  "invalid CPU list \"1,\": it ends with a comma");
	CHECK_STR(parse_error("-1"),
		  "invalid CPU list \"-1\": CPU numbers cannot be negative");
	CHECK_STR(parse_error("99999"),
		  "invalid CPU list \"99999\": CPU 99999 is beyond the supported maximum of 8191");
	CHECK_STR(parse_error("8192"),
		  "invalid CPU list \"8192\": CPU 8192 is beyond the supported maximum of 8191");
	CHECK_STR(parse_error("0-99999999999999999999999"),
		  "invalid CPU list \"0-99999999999999999999999\": CPU 99999999999999999999999 is beyond the supported maximum of 8191");
	CHECK_STR(parse_error("4294967296"),
		  "invalid CPU list \"4294967296\": CPU 4294967296 is beyond the supported maximum of 8191");
	CHECK_STR(parse_error("0-3:0/2"),
		  "invalid CPU list \"0-3:0/2\": a stride that uses 0 CPUs per group selects nothing");
	CHECK_STR(parse_error("0-7:2/0"),
		  "invalid CPU list \"0-7:2/0\": the stride group size must be at least 1");
	CHECK_STR(parse_error("0-7:3/2"),
		  "invalid CPU list \"0-7:3/2\": the stride uses 3 CPUs per group but groups have only 2");
	CHECK_STR(parse_error("0-7:2"),
		  "invalid CPU list \"0-7:2\": a stride must look like \"first-last:used/group\", e.g. \"0-7:2/4\"");
	CHECK_STR(parse_error("0-7:2/"),
		  "invalid CPU list \"0-7:2/\": a stride must look like \"first-last:used/group\", e.g. \"0-7:2/4\"");
	CHECK_STR(parse_error("0-7:/4"),
		  "invalid CPU list \"0-7:/4\": a stride must look like \"first-last:used/group\", e.g. \"0-7:2/4\"");
	CHECK_STR(parse_error("5:1/2"),
		  "invalid CPU list \"5:1/2\": a stride needs a range, as in \"0-7:2/4\"");
	CHECK_STR(parse_error("0-"),
		  "invalid CPU list \"0-\": range \"0-\" has no end");
	CHECK_STR(parse_error("1-2-3"),
		  "invalid CPU list \"1-2-3\": unexpected '-' after \"1-2\"");
	CHECK_STR(parse_error("1x"),
		  "invalid CPU list \"1x\": unexpected 'x' after \"1\"");
	CHECK_STR(parse_error("1 2"),
		  "invalid CPU list \"1 2\": unexpected ' ' after \"1\"");
	CHECK_STR(parse_error("0-3,8-x"),
		  "invalid CPU list \"0-3,8-x\": expected a CPU number at \"x\" in \"8-x\"");
	CHECK_STR(parse_error("+1"),
		  "invalid CPU list \"+1\": expected a CPU number at \"+1\"");
	CHECK_STR(parse_error("-"),
		  "invalid CPU list \"-\": expected a CPU number at \"-\"");
	CHECK_STR(parse_error("0x10"),
		  "invalid CPU list \"0x10\": unexpected 'x' after \"0\"");
	CHECK_STR(parse_error("1\t2"),
		  "invalid CPU list \"1?2\": unexpected character 0x09 after \"1\"");
	/* "all" and "N" depend on the running kernel's nr_cpu_ids */
	CHECK_STR(parse_error("all"),
		  "invalid CPU list \"all\": expected a CPU number at \"all\"");
	CHECK_STR(parse_error("0-N"),
		  "invalid CPU list \"0-N\": expected a CPU number at \"N\"");
}

static void test_parse_error_buffers(void)
{
	struct cpumask m;
	char small[16], err[256];
	char long_list[400];

	/* NULL err is fine, a tiny buffer is truncated, not overrun */
	CHECK_INT(cpulist_parse("abc", &m, NULL, 0), -1);
	CHECK_INT(cpulist_parse("abc", &m, small, sizeof(small)), -1);
	CHECK_INT(strlen(small), sizeof(small) - 1);
	CHECK_INT(cpulist_parse("abc", &m, small, 1), -1);

	/* a huge bad input is quoted in shortened form */
	memset(long_list, 0, sizeof(long_list));
	for (int i = 0; i < 60; i++)
		strcat(long_list, "1,");
	strcat(long_list, "x");
	CHECK_INT(cpulist_parse(long_list, &m, err, sizeof(err)), -1);
	CHECK_CONTAINS(err, "1,1,...\": expected a CPU number at \"x\"");
	CHECK(strlen(err) < 120);
}

static void test_format(void)
{
	struct cpumask m;
	char buf[32];

	cpumask_clear(&m);
	memset(buf, 'x', sizeof(buf));
	CHECK_INT(cpulist_format(&m, buf, sizeof(buf)), 0);
	CHECK_STR(buf, "");
	CHECK_INT(cpulist_format(&m, buf, 1), 0);
	CHECK_INT(cpulist_format(&m, buf, 0), -1);

	cpulist_parse("0-3,8,10-11", &m, NULL, 0);
	CHECK_INT(cpulist_format(&m, buf, sizeof(buf)), 11);
	CHECK_STR(buf, "0-3,8,10-11");
	/* exactly enough room for the text and its NUL */
	CHECK_INT(cpulist_format(&m, buf, 12), 11);
	CHECK_STR(buf, "0-3,8,10-11");
	CHECK_INT(cpulist_format(&m, buf, 11), -1);
	CHECK_STR(buf, "");
	CHECK_INT(cpulist_format(&m, buf, 4), -1);

	cpumask_clear(&m);
	cpumask_set(&m, 8191);
	CHECK_INT(cpulist_format(&m, buf, sizeof(buf)), 4);
	CHECK_STR(buf, "8191");
	cpumask_set(&m, 8190);
	cpulist_format(&m, buf, sizeof(buf));
	CHECK_STR(buf, "8190-8191");
}

static void test_format_worst_case(void)
{
	/* every other CPU: the longest canonical list of a full mask */
	static char buf[65536];
	struct cpumask m, back;
	int len;

	cpumask_clear(&m);
	for (int cpu = 0; cpu < CPUMASK_MAX_CPUS; cpu += 2)
		cpumask_set(&m, cpu);
	len = cpulist_format(&m, buf, sizeof(buf));
	CHECK(len > 0);
	CHECK_INT(strlen(buf), len);
	CHECK_INT(cpulist_parse(buf, &back, NULL, 0), 0);
	CHECK(cpumask_equal(&m, &back));
	CHECK_STR(canonical("0-8191:1/2"), buf);
}

static unsigned int rng_state = 12345;

static unsigned int rng(void)
{
	rng_state = rng_state * 1103515245 + 12345;
	return rng_state >> 8;
}

static void test_round_trip_random(void)
{
	static char buf[65536];

	for (int round = 0; round < 300; round++) {
		struct cpumask m, back;
		int span = 1 + rng() % CPUMASK_MAX_CPUS;
		int density = 1 + rng() % 100;

		cpumask_clear(&m);
		for (int cpu = 0; cpu < span; cpu++)
			if ((int)(rng() % 100) < density)
				cpumask_set(&m, cpu);
		CHECK(cpulist_format(&m, buf, sizeof(buf)) >= 0);
		CHECK_INT(cpulist_parse(buf, &back, NULL, 0), 0);
		if (!cpumask_equal(&m, &back)) {
			UNIT_FAIL("round %d does not round-trip", round);
			break;
		}
	}
}

static void test_parse_hex(void)
{
	CHECK_STR(hex_canonical("ff,ffffffff"), "0-39");
	CHECK_STR(hex_canonical("ff,ffffffff\n"), "0-39");
	CHECK_STR(hex_canonical("3"), "0-1");
	CHECK_STR(hex_canonical("00000000,00000001"), "0");
	CHECK_STR(hex_canonical("80000000,00000000"), "63");
	CHECK_STR(hex_canonical("1,00000000,00000000"), "64");
	CHECK_STR(hex_canonical("f,f"), "0-3,32-35");
	CHECK_STR(hex_canonical("AA"), "1,3,5,7");
	CHECK_STR(hex_canonical("00000000"), "");
	CHECK_STR(hex_canonical(""), "");
	CHECK_STR(hex_canonical("\n"), "");
	/* a 96-CPU /proc/schedstat domain mask */
	CHECK_STR(hex_canonical("ffffffff,ffffffff,ffffffff"), "0-95");
	CHECK_STR(hex_canonical("00000000,00ffffff,00000000,00ffffff"),
		  "0-23,64-87");
}

static void test_parse_hex_limits(void)
{
	static char hex[4096];
	char *p;

	/* 256 groups: the top bit is CPU 8191 */
	p = hex + sprintf(hex, "80000000");
	for (int i = 0; i < 255; i++)
		p += sprintf(p, ",00000000");
	CHECK_STR(hex_canonical(hex), "8191");

	/* a 257th all-zero group is harmless (wider kernel masks) */
	memmove(hex + 9, hex, strlen(hex) + 1);
	memcpy(hex, "00000000,", 9);
	CHECK_STR(hex_canonical(hex), "8191");

	/* but a set bit in it is beyond what we can hold */
	hex[7] = '1';
	CHECK_CONTAINS(hex_error(hex),
		       "it sets CPUs beyond the supported maximum of 8191");
}

static void test_parse_hex_errors(void)
{
	CHECK_STR(hex_error("xyz"),
		  "invalid CPU mask \"xyz\": 'x' is not a hex digit");
	CHECK_STR(hex_error("ff,fg"),
		  "invalid CPU mask \"ff,fg\": 'g' is not a hex digit in \"fg\"");
	CHECK_STR(hex_error("0x3"),
		  "invalid CPU mask \"0x3\": 'x' is not a hex digit");
	CHECK_STR(hex_error("1,,2"),
		  "invalid CPU mask \"1,,2\": empty group between commas");
	CHECK_STR(hex_error(",1"),
		  "invalid CPU mask \",1\": it starts with a comma");
	CHECK_STR(hex_error("123456789"),
		  "invalid CPU mask \"123456789\": group \"123456789\" has more than 8 hex digits");
	CHECK_STR(hex_error("-1"),
		  "invalid CPU mask \"-1\": '-' is not a hex digit");
}

static void test_hex_matches_list(void)
{
	/* sysfs cpumap and cpulist of the same CPUs must agree */
	struct cpumask from_hex, from_list;

	CHECK_INT(cpumask_parse_hex("0000ffff,ff000000,00ffffff", &from_hex,
				    NULL, 0), 0);
	CHECK_INT(cpulist_parse("0-23,56-79", &from_list, NULL, 0), 0);
	CHECK(cpumask_equal(&from_hex, &from_list));
}

UNIT_MAIN(UNIT_TEST(test_set_test_unset),
	  UNIT_TEST(test_out_of_range_is_ignored),
	  UNIT_TEST(test_next_and_last),
	  UNIT_TEST(test_set_operations),
	  UNIT_TEST(test_parse_basic),
	  UNIT_TEST(test_parse_whitespace_and_empty),
	  UNIT_TEST(test_parse_stride),
	  UNIT_TEST(test_parse_errors),
	  UNIT_TEST(test_parse_error_buffers),
	  UNIT_TEST(test_format),
	  UNIT_TEST(test_format_worst_case),
	  UNIT_TEST(test_round_trip_random),
	  UNIT_TEST(test_parse_hex),
	  UNIT_TEST(test_parse_hex_limits),
	  UNIT_TEST(test_parse_hex_errors),
	  UNIT_TEST(test_hex_matches_list));
