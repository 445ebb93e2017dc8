// SPDX-License-Identifier: GPL-2.0
/*
 * lib/plot.c and lib/svg.c: the pictures of a run have as many heatmap
 * cells, lines and bars as its records say, text is escaped, and a write
 * error is reported.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jsonparse.h"
#include "plot.h"
#include "svg.h"
#include "unit.h"

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* A sisscan record: depth buckets {0: a, 1: b, 2-3: c}, two LLC rows. */
static void record(struct jv *out, const char *type, unsigned a, unsigned b, unsigned c,
		   const char *missed)
{
	char text[2048], err[200];

	snprintf(text, sizeof(text),
		 "{\"type\":\"%s\",\"tool\":\"sisscan\",\"duration_s\":0.5,\"metrics\":{"
		 "\"missed_idle_pct\":{\"value\":%s,\"unit\":\"percent\",\"tier\":\"fentry\",\"estimated\":false},"
		 "\"scan_depth\":{\"hist\":{\"kind\":\"log2\",\"unit\":\"cpus\",\"count\":%u,\"buckets\":["
		 "{\"low\":0,\"high\":0,\"count\":%u},{\"low\":1,\"high\":1,\"count\":%u},"
		 "{\"low\":2,\"high\":3,\"count\":%u}]},\"tier\":\"fentry\",\"estimated\":false}},"
		 "\"breakdown\":{\"by\":\"llc\",\"rows\":[{\"llc\":0,\"cpus\":\"0-3 <&>\",\"sis_search\":%u,"
		 "\"sis_domain_search\":%u,\"missed_idle\":1},{\"llc\":1,\"cpus\":\"4-7\",\"sis_search\":5,"
		 "\"sis_domain_search\":4,\"missed_idle\":0}]}}",
		 type, missed, a + b + c, a, b, c, a + b + c, b + c);
	if (jv_parse(text, strlen(text), out, err, sizeof(err)))
		UNIT_FAIL("fixture does not parse: %s", err);
}

static void test_run_picture(void)
{
	struct jv records[4];
	char *buf = NULL, err[200];
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);

	/* Interval 2 has no bucket 2-3: its cell is drawn, empty. */
	record(&records[0], "interval", 10, 5, 1, "1.5");
	record(&records[1], "interval", 0, 7, 0, "null");
	record(&records[2], "interval", 3, 3, 3, "0");
	record(&records[3], "summary", 13, 15, 4, "0.5");
	CHECK_INT(plot_run("sisscan", records, 4, mem, err, sizeof(err)), 0);
	fclose(mem);
	/* 3 intervals x 3 depth buckets; one missed-idle line; 2 LLCs x 3 counters. */
	CHECK_U64(count(buf, "class=\"cell\""), 9);
	CHECK_U64(count(buf, "class=\"series\""), 1);
	CHECK_U64(count(buf, "class=\"bar\""), 6);
	CHECK_CONTAINS(buf, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"800\" height=\"790\"");
	CHECK_CONTAINS(buf, "0-3 &lt;&amp;&gt;");
	CHECK(!strstr(buf, "<&>"));
	CHECK(!strstr(buf, "<script"));
	CHECK_CONTAINS(buf, "</svg>\n");
	free(buf);
	for (int i = 0; i < 4; i++)
		jv_free(&records[i]);
}

static void test_summary_only(void)
{
	struct jv summary;
	char *buf = NULL, err[200];
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);

	record(&summary, "summary", 1, 2, 3, "0");
	CHECK_INT(plot_run("sisscan", &summary, 1, mem, err, sizeof(err)), 0);
	fclose(mem);
	/* A run without intervals: one column. */
	CHECK_U64(count(buf, "class=\"cell\""), 3);
	free(buf);
	jv_free(&summary);
}

static void test_nothing_measured(void)
{
	struct jv summary;
	char *buf = NULL, err[200];
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	const char *text = "{\"type\":\"summary\",\"tool\":\"sisscan\",\"duration_s\":1,\"metrics\":{}}";

	CHECK_INT(jv_parse(text, strlen(text), &summary, err, sizeof(err)), 0);
	CHECK_INT(plot_run("sisscan", &summary, 1, mem, err, sizeof(err)), 0);
	fclose(mem);
	CHECK_CONTAINS(buf, "scan_depth: not measured in this run");
	CHECK_U64(count(buf, "class=\"cell\""), 0);
	free(buf);
	jv_free(&summary);
	CHECK_INT(plot_run("sisscan", NULL, 0, stdout, err, sizeof(err)), -1);
	CHECK_CONTAINS(err, "no record to draw");
}

/*
 * --filter's depth histograms: a heatmap each (filter_*_scan_depth), after
 * the real scan depth; none without them (test_run_picture's height).
 */
static void test_filter_depths(void)
{
	const char *text =
		"{\"type\":\"summary\",\"tool\":\"sisscan\",\"duration_s\":1,\"metrics\":{"
		"\"scan_depth\":{\"hist\":{\"buckets\":[{\"low\":0,\"high\":0,\"count\":4},"
		"{\"low\":1,\"high\":1,\"count\":2}]}},"
		"\"filter_ideal_scan_depth\":{\"hist\":{\"buckets\":[{\"low\":0,\"high\":0,\"count\":6}]}},"
		"\"filter_overloaded_scan_depth\":{\"hist\":{\"buckets\":[{\"low\":0,\"high\":0,\"count\":1},"
		"{\"low\":1,\"high\":1,\"count\":1},{\"low\":2,\"high\":3,\"count\":4}]}},"
		"\"filter_overloaded_passed\":{\"value\":3}}}";
	struct jv summary;
	char *buf = NULL, err[200];
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);

	CHECK_INT(jv_parse(text, strlen(text), &summary, err, sizeof(err)), 0);
	CHECK_INT(plot_run("sisscan", &summary, 1, mem, err, sizeof(err)), 0);
	fclose(mem);
	/* one column: 2 + 1 + 3 buckets */
	CHECK_U64(count(buf, "class=\"cell\""), 6);
	CHECK_CONTAINS(buf, "Scan depth the filter would give, per interval: filter_ideal_scan_depth");
	CHECK_CONTAINS(buf, "Scan depth the filter would give, per interval: filter_overloaded_scan_depth");
	CHECK(strstr(buf, "filter_ideal_scan_depth") > strstr(buf, "Scan depth per interval"));
	CHECK(!strstr(buf, "filter_overloaded_passed"));
	/* 5 charts of 260 + 10 */
	CHECK_CONTAINS(buf, "height=\"1310\"");
	free(buf);
	jv_free(&summary);
}

static void test_write_error(void)
{
	struct jv records[1];
	char err[200] = "";
	FILE *full = fopen("/dev/full", "w");

	if (!full) {
		UNIT_FAIL("no /dev/full");
		return;
	}
	record(&records[0], "summary", 1, 2, 3, "0");
	CHECK_INT(plot_run("sisscan", records, 1, full, err, sizeof(err)), -1);
	CHECK_CONTAINS(err, "writing the picture failed");
	fclose(full);
	jv_free(&records[0]);
	CHECK_INT(plot_run_text("sisscan", "{}", 2, "/nonexistent/dir/x.svg", err, sizeof(err)), -1);
	CHECK_CONTAINS(err, "directory /nonexistent/dir takes no new file");
}

/* numascan's node matrix: a cell per CPU node x memory node, empty ones too. */
static void test_node_matrix(void)
{
	const char *text =
		"{\"type\":\"summary\",\"tool\":\"numascan\",\"duration_s\":1,\"metrics\":{},"
		"\"node_pairs\":{\"by\":\"cpu_node+mem_node\",\"rows\":["
		"{\"cpu_node\":1,\"mem_node\":1,\"numa_task_faults\":30},"
		"{\"cpu_node\":0,\"mem_node\":1,\"numa_task_faults\":50},"
		"{\"cpu_node\":0,\"mem_node\":0,\"numa_task_faults\":100}]}}";
	struct jv summary;
	char *buf = NULL, err[200];
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);

	CHECK_INT(jv_parse(text, strlen(text), &summary, err, sizeof(err)), 0);
	CHECK_INT(plot_run("numascan", &summary, 1, mem, err, sizeof(err)), 0);
	fclose(mem);
	/* 2 CPU nodes x 2 memory nodes; shares of the 180 faults */
	CHECK_U64(count(buf, "class=\"cell\""), 4);
	CHECK_CONTAINS(buf, ">100 (56%)</text>");
	CHECK_CONTAINS(buf, ">50 (28%)</text>");
	CHECK_CONTAINS(buf, ">30 (17%)</text>");
	CHECK_CONTAINS(buf, ">0 (0%)</text>");
	CHECK_CONTAINS(buf, "<title>cpu_node 0, mem_node 1: 50 (27.8%)</title>");
	/* the tables it lacks are said to be unmeasured, not drawn empty */
	CHECK_CONTAINS(buf, "vmas: not measured in this run");
	free(buf);
	jv_free(&summary);
}

static void test_palette(void)
{
	/* Shares map onto the viridis steps monotonically; 0 is the background. */
	CHECK_STR(svg_share_colour(0), "#f4f4f4");
	CHECK_STR(svg_share_colour(1), "#fde725");
	CHECK_STR(svg_share_colour(0.001), "#440154");
	CHECK_STR(svg_series_colour(0), "#0072B2");
	CHECK_STR(svg_series_colour(8), "#0072B2");
}

UNIT_MAIN(UNIT_TEST(test_run_picture),
	  UNIT_TEST(test_summary_only),
	  UNIT_TEST(test_nothing_measured),
	  UNIT_TEST(test_filter_depths),
	  UNIT_TEST(test_write_error),
	  UNIT_TEST(test_node_matrix),
	  UNIT_TEST(test_palette))
