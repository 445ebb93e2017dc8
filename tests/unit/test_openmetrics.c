// SPDX-License-Identifier: GPL-2.0
/*
 * The Prometheus text format writer (lib/openmetrics.c): label escaping,
 * cumulative histogram buckets with +Inf, _sum and _count. The live test
 * (tests/live/test_prometheus.sh) has Prometheus itself read the output.
 */
#include <math.h>
#include "hist.h"
#include "openmetrics.h"
#include "unit.h"

static void test_label_values_are_escaped(void)
{
	struct strbuf b = {};
	struct om_label l[] = { { "comm", "a\"b\\c\nd" }, { "cpu", "3" } };

	om_header(&b, "schedscan_x_total", "counter", "with a \\ and\na newline");
	om_sample_u64(&b, "schedscan_x_total", NULL, l, 2, 42);
	CHECK(!b.failed);
	CHECK_STR(b.buf, "# HELP schedscan_x_total with a \\\\ and\\na newline\n"
			 "# TYPE schedscan_x_total counter\n"
			 "schedscan_x_total{comm=\"a\\\"b\\\\c\\nd\",cpu=\"3\"} 42\n");
	strbuf_free(&b);
}

static void test_histogram_buckets_are_cumulative(void)
{
	struct strbuf b = {};
	struct hist h;
	struct om_label tier = { "tier", "tp_btf" };

	CHECK_INT(hist_init_log2(&h, 4), 0);	/* {0}, {1}, [2,3], [4,inf) */
	hist_add(&h, 0, 2);
	hist_add(&h, 3, 5);
	hist_add(&h, 9, 1);
	om_histogram(&b, "schedscan_x_depth", &tier, 1, &h, 2 * 0 + 5 * 3 + 9, 1.0);
	CHECK(!b.failed);
	CHECK_STR(b.buf, "schedscan_x_depth_bucket{tier=\"tp_btf\",le=\"0\"} 2\n"
			 "schedscan_x_depth_bucket{tier=\"tp_btf\",le=\"1\"} 2\n"
			 "schedscan_x_depth_bucket{tier=\"tp_btf\",le=\"3\"} 7\n"
			 "schedscan_x_depth_bucket{tier=\"tp_btf\",le=\"+Inf\"} 8\n"
			 "schedscan_x_depth_sum{tier=\"tp_btf\"} 24\n"
			 "schedscan_x_depth_count{tier=\"tp_btf\"} 8\n");
	strbuf_free(&b);
	/* Nanoseconds shown in seconds: le and _sum scaled, counts not. */
	om_histogram(&b, "schedscan_x_seconds", NULL, 0, &h, 1000, 1e9);
	CHECK_CONTAINS(b.buf, "schedscan_x_seconds_bucket{le=\"3e-09\"} 7\n");
	CHECK_CONTAINS(b.buf, "schedscan_x_seconds_sum 1e-06\n");
	strbuf_free(&b);
	hist_free(&h);
}

static void test_nan_and_growth(void)
{
	struct strbuf b = {};

	om_sample_double(&b, "g", NULL, NULL, 0, NAN);
	CHECK_STR(b.buf, "g NaN\n");
	for (int i = 0; i < 10000; i++)
		om_sample_u64(&b, "schedscan_many_total", NULL, NULL, 0, i);
	CHECK(!b.failed);
	CHECK_CONTAINS(b.buf, "schedscan_many_total 9999\n");
	strbuf_free(&b);
}

UNIT_MAIN(UNIT_TEST(test_label_values_are_escaped),
	  UNIT_TEST(test_histogram_buckets_are_cumulative),
	  UNIT_TEST(test_nan_and_growth))
