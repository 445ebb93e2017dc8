// SPDX-License-Identifier: GPL-2.0
/*
 * --compare on runs written here: refusals, the same workload twice (no
 * significant change), and a known shift (a counter doubled, a histogram
 * moved one bucket up) found significant in the right direction; what it
 * will not read (files that are not regular, past its bounds) and the
 * records it refuses (values against docs/json.md's schema, a changed
 * tier, histograms whose buckets are not buckets).
 */
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "compare.h"
#include "jsonparse.h"
#include "unit.h"

static char dir[64];

static const char *path_of(const char *name)
{
	static char paths[16][128];
	static int next;
	char *p = paths[next++ % 16];

	snprintf(p, 128, "%s/%s", dir, name);
	return p;
}

static void write_file(const char *name, const char *fmt, ...)
{
	FILE *f = fopen(path_of(name), "w");
	va_list ap;

	if (!f) {
		UNIT_FAIL("cannot write %s", name);
		return;
	}
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

/*
 * One sisscan-like run: an interval and the summary; counter searches
 * over duration seconds, a ratio, a histogram with counts in buckets
 * 0-1, 2-3, 4-7, 8+ and a breakdown table of two LLCs.
 */
static void write_run(const char *name, const char *tool, double duration,
		      unsigned long long searches, double ratio, const unsigned int hist[4],
		      unsigned long long llc1)
{
	unsigned long long total = (unsigned long long)hist[0] + hist[1] + hist[2] + hist[3];

	write_file(name,
		   "{\"type\":\"interval\",\"tool\":\"%s\",\"metrics\":{}}\n"
		   "{\"type\":\"summary\",\"tool\":\"%s\",\"version\":\"0.1.0\",\"kernel\":\"6.18\","
		   "\"mode\":\"auto\",\"start\":1,\"end\":2,\"duration_s\":%g,\"intervals\":1,"
		   "\"end_reason\":\"duration\",\"metrics\":{"
		   "\"sis_search\":{\"value\":%llu,\"tier\":\"fentry\",\"estimated\":false},"
		   "\"search_efficiency_pct\":{\"value\":%g,\"unit\":\"percent\",\"tier\":\"fentry\",\"estimated\":false},"
		   "\"scan_depth\":{\"hist\":{\"kind\":\"log2\",\"unit\":\"cpus\",\"count\":%llu,\"p50\":0,\"p90\":0,"
		   "\"p99\":0,\"max\":0,\"buckets\":["
		   "{\"low\":0,\"high\":1,\"count\":%u},{\"low\":2,\"high\":3,\"count\":%u},"
		   "{\"low\":4,\"high\":7,\"count\":%u},{\"low\":8,\"high\":null,\"count\":%u}]},"
		   "\"tier\":\"fentry\",\"estimated\":false}},"
		   "\"breakdown\":{\"by\":\"llc\",\"tier\":\"fentry\",\"estimated\":false,\"rows_dropped\":0,"
		   "\"rows\":[{\"llc\":0,\"cpus\":\"0-3\",\"sis_search\":%llu},"
		   "{\"llc\":1,\"cpus\":\"4-7\",\"sis_search\":%llu}]}}\n",
		   tool, tool, duration, searches, ratio, total, hist[0], hist[1], hist[2], hist[3],
		   searches - llc1, llc1);
}

static int load(struct compare *c, const char *const *a, int na, const char *const *b, int nb,
		char *err)
{
	const struct compare_side sa = { a, na }, sb = { b, nb };
	int ret = compare_load(c, "sisscan", &sa, &sb, err, 300);

	return ret;
}

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/schedscan-compare-XXXXXX");
	if (!mkdtemp(dir))
		UNIT_FAIL("mkdtemp failed");
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		UNIT_FAIL("removing %s failed", dir);
}

static void expect_refusal(const char *const *a, int na, const char *const *b, int nb,
			   const char *sentence)
{
	struct compare c;
	char err[300] = "";

	CHECK_INT(load(&c, a, na, b, nb, err), -1);
	CHECK_CONTAINS(err, sentence);
	compare_free(&c);
}

static void test_refusals(void)
{
	const unsigned int h[4] = { 10, 20, 30, 5 };
	const char *a[1], *b[1];

	setup();
	write_run("a.jsonl", "sisscan", 2, 1000, 50, h, 400);
	write_run("idle.jsonl", "idlebal", 2, 1000, 50, h, 400);
	write_file("nosummary.jsonl", "{\"type\":\"interval\",\"tool\":\"sisscan\",\"metrics\":{}}\n");
	write_file("text.jsonl", "Tracing SIS... Hit Ctrl-C to end.\n");
	write_file("other.jsonl", "{\"hello\":1}\n");
	write_file("fewer.jsonl",
		   "{\"type\":\"summary\",\"tool\":\"sisscan\",\"duration_s\":2,\"metrics\":{"
		   "\"sis_search\":{\"value\":5,\"tier\":\"fentry\",\"estimated\":false}}}\n");
	a[0] = path_of("a.jsonl");

	b[0] = path_of("idle.jsonl");
	expect_refusal(a, 1, b, 1, "is idlebal output: sisscan compares runs of sisscan only");
	b[0] = path_of("nosummary.jsonl");
	expect_refusal(a, 1, b, 1, "has no summary record");
	b[0] = path_of("text.jsonl");
	expect_refusal(a, 1, b, 1, "is not schedscan output: line 1: invalid JSON at byte 0");
	b[0] = path_of("other.jsonl");
	expect_refusal(a, 1, b, 1, "is not schedscan output: line 1 is not a record of a run");
	b[0] = path_of("fewer.jsonl");
	expect_refusal(a, 1, b, 1, "measured different metrics");
	b[0] = path_of("missing.jsonl");
	expect_refusal(a, 1, b, 1, "cannot read");
	expect_refusal(a, 1, b, 0, "needs runs on both sides");
	teardown();
}

/* The comparison's JSON record, parsed. */
static int compare_record(const char *const *a, int na, const char *const *b, int nb,
			  struct jv *out)
{
	struct compare c;
	char err[300], *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	int ret = -1;

	if (!mem)
		return -1;
	if (!load(&c, a, na, b, nb, err) && !compare_json(&c, mem, 0)) {
		fclose(mem);
		mem = NULL;
		ret = jv_parse(buf, len, out, err, sizeof(err));
		if (ret)
			UNIT_FAIL("compare JSON does not parse: %s", err);
	} else {
		UNIT_FAIL("compare failed: %s", err);
	}
	if (mem)
		fclose(mem);
	compare_free(&c);
	free(buf);
	return ret;
}

static bool significant(const struct jv *rec, const char *group, const char *name)
{
	const struct jv *s = jv_get(jv_get(jv_get(rec, group), name), "significant");

	return s && s->type == JV_BOOL && s->boolean;
}

static double number(const struct jv *v)
{
	double d = -1;

	jv_number(v, &d);
	return d;
}

/* The paths of runs a1..a3 and b1..b3. */
static void three_a_side(const char *a[3], const char *b[3])
{
	for (int i = 0; i < 3; i++) {
		char n[4] = { 'a', (char)('1' + i), 0, 0 };

		a[i] = path_of(n);
		n[0] = 'b';
		b[i] = path_of(n);
	}
}

static void test_same_workload(void)
{
	/* Three runs a side with run-to-run noise of a few percent and the same shape. */
	const unsigned int h1[4] = { 1000, 2000, 3000, 500 }, h2[4] = { 1030, 1990, 2950, 510 },
			   h3[4] = { 980, 2040, 3010, 490 };
	const char *a[3], *b[3];
	struct jv rec;

	setup();
	write_run("a1", "sisscan", 2.0, 20000, 50.1, h1, 9000);
	write_run("a2", "sisscan", 2.1, 21500, 49.7, h2, 9800);
	write_run("a3", "sisscan", 1.9, 18700, 50.4, h3, 8300);
	write_run("b1", "sisscan", 2.0, 20400, 49.9, h2, 9100);
	write_run("b2", "sisscan", 2.0, 19800, 50.2, h3, 8900);
	write_run("b3", "sisscan", 2.2, 22300, 50.0, h1, 10100);
	three_a_side(a, b);
	if (!compare_record(a, 3, b, 3, &rec)) {
		CHECK_STR(jv_string(jv_get(&rec, "type")), "compare");
		CHECK(!significant(&rec, "metrics", "sis_search"));
		CHECK(!significant(&rec, "metrics", "search_efficiency_pct"));
		CHECK(!significant(&rec, "histograms", "scan_depth"));
		/* Counters per second: every run is ~10000/s. */
		CHECK_DBL(number(jv_get(jv_get(jv_get(jv_get(&rec, "metrics"), "sis_search"), "a"), "mean")),
			  (10000 + 21500 / 2.1 + 18700 / 1.9) / 3, 1e-3);
		CHECK_STR(jv_string(jv_get(jv_get(jv_get(&rec, "metrics"), "sis_search"), "test")), "welch_t");
		jv_free(&rec);
	}
	teardown();
}

/*
 * A ratio that came out the same in every run of each side (0 against
 * 0.1 pt: one event in a thousand) has no spread to weigh the difference
 * against: not tested, never marked (a guest run saw Welch's t call it
 * certain).
 */
static void test_no_spread(void)
{
	const unsigned int h1[4] = { 1000, 2000, 3000, 500 }, h2[4] = { 1030, 1990, 2950, 510 };
	const char *a[3], *b[3];
	struct jv rec;

	setup();
	write_run("a1", "sisscan", 2.0, 20000, 0, h1, 9000);
	write_run("a2", "sisscan", 2.1, 21500, 0, h2, 9800);
	write_run("a3", "sisscan", 1.9, 18700, 0, h1, 8300);
	write_run("b1", "sisscan", 2.0, 20400, 0.1, h2, 9100);
	write_run("b2", "sisscan", 2.0, 19800, 0.1, h1, 8900);
	write_run("b3", "sisscan", 2.2, 22300, 0.1, h2, 10100);
	three_a_side(a, b);
	if (!compare_record(a, 3, b, 3, &rec)) {
		CHECK(!significant(&rec, "metrics", "search_efficiency_pct"));
		CHECK(!significant(&rec, "metrics", "sis_search"));
		jv_free(&rec);
	}
	teardown();
}

/* An idlebal-like run: kicks events in duration seconds, nothing else. */
static void write_kicks(const char *name, double duration, unsigned int kicks)
{
	write_file(name,
		   "{\"type\":\"summary\",\"tool\":\"sisscan\",\"duration_s\":%.4f,\"metrics\":{"
		   "\"ilb_kicks\":{\"value\":%u,\"tier\":\"tp_btf\",\"estimated\":false}}}\n",
		   duration, kicks);
}

/*
 * Few events: 0 kicks in each A run, 1 in each B run (a host CI run of
 * idlebal saw it). The B rates differ by their runs' lengths only, so
 * Welch's t on the runs alone called it certain; a count spreads by at
 * least its Poisson noise (0.5 kicks/s pooled: variance 0.5 per 1 s
 * run), which makes it t = -sqrt(3), df 4, p 0.158: no change. Forty
 * kicks a run against none is one.
 */
static void test_few_events(void)
{
	static const double seconds[3] = { 1.0008, 1.0011, 1.0013 };
	static const char *names_a[3] = { "a1", "a2", "a3" }, *names_b[3] = { "b1", "b2", "b3" };
	const char *a[3], *b[3];
	struct jv rec;

	setup();
	three_a_side(a, b);
	for (int i = 0; i < 3; i++) {
		write_kicks(names_a[i], seconds[i], 0);
		write_kicks(names_b[i], seconds[2 - i], 1);
	}
	if (!compare_record(a, 3, b, 3, &rec)) {
		const struct jv *kicks = jv_get(jv_get(&rec, "metrics"), "ilb_kicks");

		CHECK(!significant(&rec, "metrics", "ilb_kicks"));
		CHECK_DBL(number(jv_get(kicks, "p")), 0.158, 0.002);
		/* 0.5 kicks/s pooled over runs of ~1 s: sd ~sqrt(0.5). */
		CHECK_DBL(number(jv_get(jv_get(kicks, "poisson_sd"), "a")), sqrt(0.5), 0.001);
		jv_free(&rec);
	}
	for (int i = 0; i < 3; i++)
		write_kicks(names_b[i], seconds[2 - i], 40 + (unsigned int)i);
	if (!compare_record(a, 3, b, 3, &rec)) {
		CHECK(significant(&rec, "metrics", "ilb_kicks"));
		jv_free(&rec);
	}
	teardown();
}

/* A run with one ratio: value percent of denominator scans (< 0: no denominator, as before 0.1.1). */
static void write_share(const char *name, double value, long denominator)
{
	char den[48] = "";

	if (denominator >= 0)
		snprintf(den, sizeof(den), "\"denominator\":%ld,", denominator);
	write_file(name,
		   "{\"type\":\"summary\",\"tool\":\"sisscan\",\"duration_s\":2,\"metrics\":{"
		   "\"search_efficiency_pct\":{\"value\":%.2f,\"unit\":\"percent\",%s"
		   "\"tier\":\"tp_btf\",\"estimated\":true}}}\n",
		   value, den);
}

/*
 * Few scans: a host CI run compared four runs of ~80 scans a side,
 * search_efficiency_pct 81.2+-1.6 against 73.26+-1.1, and Welch's t on
 * the runs alone called it a change (Holm p 0.006 over 18 tests): four
 * runs spread less than 80 scans can (binomial sd 4.7 points at the
 * pooled 77%). With the floor: t 2.07, df 4, p 0.107. The same runs
 * over 10^5 scans each are a change; without denominators (files of
 * older versions) nothing is floored.
 */
static void test_few_scans(void)
{
	static const double a_pct[3] = { 79.6, 81.2, 82.8 }, b_pct[3] = { 72.16, 73.26, 74.36 };
	static const char *names_a[3] = { "a1", "a2", "a3" }, *names_b[3] = { "b1", "b2", "b3" };
	static const long scans[3] = { 80, 100000, -1 };
	const char *a[3], *b[3];
	struct jv rec;

	setup();
	for (int k = 0; k < 3; k++) {
		for (int i = 0; i < 3; i++) {
			write_share(names_a[i], a_pct[i], scans[k]);
			write_share(names_b[i], b_pct[i], scans[k]);
		}
		/* After the writes: path_of() reuses its 16 buffers. */
		three_a_side(a, b);
		if (compare_record(a, 3, b, 3, &rec))
			continue;
		const struct jv *m = jv_get(jv_get(&rec, "metrics"), "search_efficiency_pct");
		const struct jv *sd = jv_get(m, "binomial_sd");
		/* 77.23% pooled: sd 100 sqrt(p (1 - p) / n). */
		double want = 100 * sqrt(0.7723 * 0.2277 / (double)scans[k]);

		if (k == 0) {
			CHECK(!significant(&rec, "metrics", "search_efficiency_pct"));
			CHECK_DBL(number(jv_get(m, "p")), 0.107, 0.01);
		} else {
			CHECK(significant(&rec, "metrics", "search_efficiency_pct"));
		}
		if (scans[k] > 0) {
			CHECK_DBL(number(jv_get(sd, "a")), want, want * 0.001);
			CHECK_DBL(number(jv_get(sd, "b")), want, want * 0.001);
		} else {
			CHECK(sd && sd->type == JV_NULL);
		}
		jv_free(&rec);
	}
	teardown();
}

static void test_known_shift(void)
{
	/* B: twice the searches per second, every sample one bucket deeper, LLC 1 took the growth. */
	const unsigned int ha[4] = { 4000, 1000, 1000, 100 }, hb[4] = { 100, 4000, 1000, 1000 };
	const char *a[3], *b[3];
	struct jv rec;

	setup();
	write_run("a1", "sisscan", 2.0, 20000, 40.0, ha, 5000);
	write_run("a2", "sisscan", 2.0, 20600, 41.0, ha, 5100);
	write_run("a3", "sisscan", 2.0, 19500, 39.5, ha, 4900);
	write_run("b1", "sisscan", 2.0, 40000, 60.0, hb, 25000);
	write_run("b2", "sisscan", 2.0, 41000, 61.0, hb, 26000);
	write_run("b3", "sisscan", 2.0, 39000, 59.5, hb, 24000);
	three_a_side(a, b);
	if (!compare_record(a, 3, b, 3, &rec)) {
		const struct jv *depth = jv_get(jv_get(&rec, "histograms"), "scan_depth");
		const struct jv *row = jv_get(&rec, "rows");

		CHECK(significant(&rec, "metrics", "sis_search"));
		CHECK_DBL(number(jv_get(jv_get(jv_get(&rec, "metrics"), "sis_search"), "change_pct")),
			  100.0 * (40000 - 20033.33) / 20033.33, 0.01);
		CHECK(significant(&rec, "metrics", "search_efficiency_pct"));
		CHECK_DBL(number(jv_get(jv_get(jv_get(&rec, "metrics"), "search_efficiency_pct"),
					"change_points")), 20, 1e-9);
		CHECK(significant(&rec, "histograms", "scan_depth"));
		/* Deeper: B's median bucket ends at 3, A's at 1. */
		CHECK_DBL(number(jv_get(jv_get(depth, "a"), "p50")), 1, 0);
		CHECK_DBL(number(jv_get(jv_get(depth, "b"), "p50")), 3, 0);
		CHECK(number(jv_get(depth, "cramers_v")) > 0.5);
		/* The row that changed most: LLC 1's searches. */
		CHECK(row && row->type == JV_ARRAY && row->n >= 1);
		if (row && row->n) {
			CHECK_STR(jv_string(jv_get(&row->items[0], "row")), "llc=1");
			CHECK_STR(jv_string(jv_get(&row->items[0], "label")), "4-7");
		}
		jv_free(&rec);
	}
	teardown();
}

static void test_one_run_a_side(void)
{
	const unsigned int h[4] = { 10, 20, 30, 5 };
	const char *a[1], *b[1];
	struct compare c;
	char err[300], *buf = NULL;
	size_t len = 0;
	FILE *mem;

	setup();
	write_run("a.jsonl", "sisscan", 2, 1000, 50, h, 400);
	write_run("b.jsonl", "sisscan", 4, 1000, 50, h, 400);
	a[0] = path_of("a.jsonl");
	b[0] = path_of("b.jsonl");
	mem = open_memstream(&buf, &len);
	CHECK_INT(load(&c, a, 1, b, 1, err), 0);
	CHECK_INT(compare_text(&c, mem, 0), 0);
	fclose(mem);
	/* Half the rate: per second, not per run; no t-test with one run. */
	CHECK_CONTAINS(buf, "sis_search");
	CHECK_CONTAINS(buf, "-50.0%");
	for (char *line = buf; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		size_t n = strcspn(line, "\n");

		if (n > 80)
			UNIT_FAIL("a line of %zu columns: %.*s", n, (int)n, line);
	}
	compare_free(&c);
	free(buf);
	teardown();
}

/* A table of 3000 processes: rows are matched by key across the sides; the one that moved leads. */
static void test_big_table(void)
{
	const char *a[1], *b[1];
	struct jv rec;

	setup();
	for (int side = 0; side < 2; side++) {
		FILE *f = fopen(path_of(side ? "b" : "a"), "w");

		if (!f) {
			UNIT_FAIL("cannot write");
			break;
		}
		fprintf(f, "{\"type\":\"summary\",\"tool\":\"sisscan\",\"duration_s\":1,\"metrics\":{},"
			   "\"processes\":{\"by\":\"tgid\",\"rows\":[");
		for (int i = 0; i < 3000; i++)
			fprintf(f, "%s{\"tgid\":%d,\"comm\":\"p%d\",\"placements\":%d}", i ? "," : "",
				1000 + i, i, side && i == 1234 ? 5000 : 100 + i % 7);
		fprintf(f, "]}}\n");
		fclose(f);
	}
	a[0] = path_of("a");
	b[0] = path_of("b");
	if (!compare_record(a, 1, b, 1, &rec)) {
		const struct jv *rows = jv_get(&rec, "rows");

		CHECK(rows && rows->type == JV_ARRAY && rows->n == 1);
		if (rows && rows->n) {
			CHECK_STR(jv_string(jv_get(&rows->items[0], "row")), "tgid=2234");
			CHECK_STR(jv_string(jv_get(&rows->items[0], "label")), "p1234");
		}
		jv_free(&rec);
	}
	teardown();
}

/*
 * Two one-row tables whose counters each move by nearly all of their
 * total: "aaa" falls from one noisy A run (3, then a run without the row
 * and a 0) to nothing (share 1), "zzz" rises in every B run beyond every A
 * run (share 0.9996); zzz leads: its runs do not overlap.
 */
static void test_equal_shares(void)
{
	static const char *names[6] = { "a1", "a2", "a3", "b1", "b2", "b3" };
	static const int noisy[6] = { 3, -1, 0, 0, 0, -1 }, rising[6] = { 0, 1, 0, 900, 950, 1000 };
	const char *a[3], *b[3];
	struct jv rec;

	setup();
	for (int i = 0; i < 6; i++) {
		char aaa[64] = "";

		if (noisy[i] >= 0)
			snprintf(aaa, sizeof(aaa), "{\"cpu\":0,\"moves\":%d}", noisy[i]);
		write_file(names[i],
			   "{\"type\":\"summary\",\"tool\":\"sisscan\",\"duration_s\":1,\"metrics\":{},"
			   "\"aaa\":{\"by\":\"cpu\",\"rows\":[%s]},"
			   "\"zzz\":{\"by\":\"cpu\",\"rows\":[{\"cpu\":0,\"time_ns\":%d}]}}\n",
			   aaa, rising[i]);
		if (i < 3)
			a[i] = path_of(names[i]);
		else
			b[i - 3] = path_of(names[i]);
	}
	if (!compare_record(a, 3, b, 3, &rec)) {
		const struct jv *rows = jv_get(&rec, "rows");

		CHECK(rows && rows->type == JV_ARRAY && rows->n == 2);
		if (rows && rows->n == 2) {
			CHECK_STR(jv_string(jv_get(&rows->items[0], "table")), "zzz");
			CHECK_STR(jv_string(jv_get(&rows->items[1], "table")), "aaa");
		}
		jv_free(&rec);
	}
	teardown();
}

/* ------------------------------------------------ bounds and validation */

#define MIB (1024 * 1024)

/* A copy of file from with the first from_text replaced by to_text. */
static void write_variant(const char *name, const char *from, const char *from_text,
			  const char *to_text)
{
	FILE *f = fopen(path_of(from), "r");
	char text[8192], *at;
	size_t n;

	if (!f) {
		UNIT_FAIL("cannot read %s", from);
		return;
	}
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	at = strstr(text, from_text);
	if (!at) {
		UNIT_FAIL("%s has no '%s'", from, from_text);
		return;
	}
	*at = '\0';
	write_file(name, "%s%s%s", text, to_text, at + strlen(from_text));
}

/* One sentence naming the file, as compare_main() prints it after "TOOL: --compare: ". */
static void expect_one_refusal(const char *a_name, const char *b_name, const char *sentence)
{
	const char *a[1] = { path_of(a_name) }, *b[1] = { path_of(b_name) };
	struct compare c;
	char err[300] = "";

	if (load(&c, a, 1, b, 1, err) != -1)
		UNIT_FAIL("%s was compared, not refused with \"%s\"", b_name, sentence);
	CHECK_CONTAINS(err, sentence);
	CHECK(!strchr(err, '\n'));
	compare_free(&c);
}

static void expect_loaded(const char *a_name, const char *b_name)
{
	const char *a[1] = { path_of(a_name) }, *b[1] = { path_of(b_name) };
	struct compare c;
	char err[300] = "";

	if (load(&c, a, 1, b, 1, err))
		UNIT_FAIL("%s against %s refused: %s", a_name, b_name, err);
	compare_free(&c);
}

/* /dev/zero grew a run to 23.5 GB: a device, a FIFO or a directory is never read. */
static void test_not_regular(void)
{
	const char *a[1], *b[1];
	const unsigned int h[4] = { 10, 20, 30, 5 };

	setup();
	write_run("a.jsonl", "sisscan", 2, 1000, 50, h, 400);
	a[0] = path_of("a.jsonl");
	b[0] = "/dev/zero";
	expect_refusal(a, 1, b, 1, "/dev/zero is not a regular file (a character device)");
	/* A FIFO with no writer: opening it must not wait for one. */
	if (mkfifo(path_of("fifo"), 0600))
		UNIT_FAIL("mkfifo failed");
	b[0] = path_of("fifo");
	expect_refusal(a, 1, b, 1, "fifo is not a regular file (a FIFO)");
	b[0] = dir;
	expect_refusal(a, 1, b, 1, "is not a regular file (a directory)");
	teardown();
}

static void sparse_file(const char *name, const char *start, off_t size)
{
	int fd = open(path_of(name), O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || write(fd, start, strlen(start)) != (ssize_t)strlen(start) ||
	    ftruncate(fd, size))
		UNIT_FAIL("cannot write %s", name);
	if (fd >= 0)
		close(fd);
}

/* write_run()'s summary record, padded with blanks to len bytes, as one line. */
static void write_padded_summary(const char *name, const char *from, size_t len)
{
	FILE *in = fopen(path_of(from), "r"), *out = fopen(path_of(name), "w");
	char line[4096] = "";

	/* Line 1 is the interval record, line 2 the summary. */
	if (!in || !out || !fgets(line, sizeof(line), in) || !fgets(line, sizeof(line), in)) {
		UNIT_FAIL("cannot copy %s to %s", from, name);
	} else {
		size_t n = strcspn(line, "\n");

		fwrite(line, 1, n, out);
		for (; n < len; n++)
			fputc(' ', out);
		fputc('\n', out);
	}
	if (in)
		fclose(in);
	if (out)
		fclose(out);
}

/* The file and line bounds: at the bound is read, one byte past it is refused. */
static void test_bounds(void)
{
	const unsigned int h[4] = { 10, 20, 30, 5 };
	const size_t max_line = (size_t)COMPARE_MAX_LINE_MIB * MIB;
	char sentence[128];

	setup();
	write_run("a.jsonl", "sisscan", 2, 1000, 50, h, 400);
	/* Sparse: the test writes one block, not a gigabyte. */
	sparse_file("huge.jsonl", "{\"type\":\"summary\"", (off_t)COMPARE_MAX_FILE_MIB * MIB + 1);
	snprintf(sentence, sizeof(sentence), "huge.jsonl is larger than %d MiB, the most --compare reads",
		 COMPARE_MAX_FILE_MIB);
	expect_one_refusal("a.jsonl", "huge.jsonl", sentence);
	sparse_file("long.jsonl", "{\"type\":\"summary\",\"x\":\"", (off_t)max_line + 1);
	snprintf(sentence, sizeof(sentence), "long.jsonl line 1 is longer than %d MiB",
		 COMPARE_MAX_LINE_MIB);
	expect_one_refusal("a.jsonl", "long.jsonl", sentence);
	write_padded_summary("padded.jsonl", "a.jsonl", max_line);
	expect_loaded("a.jsonl", "padded.jsonl");
	write_padded_summary("padded.jsonl", "a.jsonl", max_line + 1);
	snprintf(sentence, sizeof(sentence), "padded.jsonl line 1 is longer than %d MiB",
		 COMPARE_MAX_LINE_MIB);
	expect_one_refusal("a.jsonl", "padded.jsonl", sentence);
	teardown();
}

struct growth {
	int fd;			/* appends a line to the file being read */
	size_t lines;
	size_t lengths[8];
};

static int append_a_line(const char *line, size_t len, size_t line_no, void *ctx, char *err,
			 size_t errlen)
{
	struct growth *g = ctx;

	(void)line;
	(void)line_no;
	(void)err;
	(void)errlen;
	if (g->lines < 8)
		g->lengths[g->lines] = len;
	g->lines++;
	if (write(g->fd, "123456789\n", 10) != 10)
		return -1;
	return 0;
}

/* A file that grows while read (a run still writing it) stops at the bound, not at st_size. */
static void test_growing_file(void)
{
	struct growth g = { .fd = -1 };
	char err[300] = "";

	setup();
	write_file("growing", "123456789\n");
	g.fd = open(path_of("growing"), O_WRONLY | O_APPEND);
	CHECK(g.fd >= 0);
	CHECK_INT(compare_read_lines(path_of("growing"), 100, 20, append_a_line, &g, err,
				     sizeof(err)), -1);
	CHECK_CONTAINS(err, "growing is larger than 9.54e-05 MiB, the most --compare reads");
	/* Its lines up to the bound were read, whole. */
	CHECK_INT(g.lines, 10);
	CHECK_INT(g.lengths[0], 9);
	CHECK_INT(g.lengths[7], 9);
	if (g.fd >= 0)
		close(g.fd);
	teardown();
}

struct lines_seen {
	size_t n, lengths[8];
	char first[8], last[8];
};

static int note_line(const char *line, size_t len, size_t line_no, void *ctx, char *err,
		     size_t errlen)
{
	struct lines_seen *seen = ctx;

	(void)err;
	(void)errlen;
	if (line_no != seen->n + 1 || seen->n >= 8)
		return -1;
	seen->lengths[seen->n++] = len;
	snprintf(seen->first, sizeof(seen->first), "%.*s", (int)(len < 4 ? len : 4), line);
	snprintf(seen->last, sizeof(seen->last), "%.*s", (int)(len < 4 ? len : 4),
		 len < 4 ? line : line + len - 4);
	return 0;
}

/* Lines across the reads' boundaries, empty lines, a last line without '\n'. */
static void test_read_lines(void)
{
	struct lines_seen seen = { 0 };
	char err[300] = "";
	FILE *f;

	setup();
	f = fopen(path_of("lines"), "w");
	if (!f) {
		UNIT_FAIL("cannot write lines");
		teardown();
		return;
	}
	fputs("\nabcde\n", f);
	fputs("head", f);
	for (int i = 0; i < 300000; i++)
		fputc('x', f);
	fputs("tail\nend", f);
	fclose(f);
	CHECK_INT(compare_read_lines(path_of("lines"), 1 << 20, 300008, note_line, &seen, err,
				     sizeof(err)), 0);
	CHECK_INT(seen.n, 4);
	CHECK_INT(seen.lengths[0], 0);
	CHECK_INT(seen.lengths[1], 5);
	CHECK_INT(seen.lengths[2], 300008);
	CHECK_INT(seen.lengths[3], 3);
	CHECK_STR(seen.last, "end");
	/* One byte shorter a bound: the long line is refused, by number. */
	memset(&seen, 0, sizeof(seen));
	CHECK_INT(compare_read_lines(path_of("lines"), 1 << 20, 300007, note_line, &seen, err,
				     sizeof(err)), -1);
	CHECK_CONTAINS(err, "lines line 3 is longer than 0.286 MiB");
	teardown();
}

/*
 * Records that parse but are not what the tools write: each refused
 * with one sentence naming the file, line and field, never compared
 * into a plausible number (-0.6994, 9.992e+294T before).
 */
static void test_invalid_values(void)
{
	static const struct {
		const char *from, *to, *sentence;
	} bad[] = {
		/* Counters: non-negative integers below 2^64, in digits. */
		{ "\"value\":1000,", "\"value\":-5,", "b line 2: metrics.sis_search.value is -5, not a count" },
		{ "\"value\":1000,", "\"value\":\"1000\",", "metrics.sis_search.value is the string \"1000\", not a count" },
		{ "\"value\":1000,", "\"value\":1e308,", "metrics.sis_search.value is 1e+308, not a count" },
		{ "\"value\":1000,", "\"value\":18446744073709551616,", "metrics.sis_search.value is 18446744073709551616, not a count" },
		{ "\"value\":1000,", "\"value\":1000.5,", "metrics.sis_search.value is 1000.5, not a count" },
		{ "\"value\":1000,", "\"value\":null,", "metrics.sis_search.value is null, not a count" },
		{ "\"value\":1000,", "\"value\":1000,\"denominator\":5,", "metrics.sis_search has a denominator but no unit" },
		/* Ratios: at least 0, or null; what a 64-bit count over the denominator can give. */
		{ "\"value\":50,", "\"value\":-0.6994,", "metrics.search_efficiency_pct.value is -0.6994, not a percentage" },
		{ "\"value\":50,", "\"value\":\"50\",", "metrics.search_efficiency_pct.value is the string \"50\", not a percentage" },
		{ "\"value\":50,", "\"value\":1e308,", "metrics.search_efficiency_pct.value is 1e+308, more than a ratio of 64-bit counts can be" },
		{ "\"value\":50,", "\"value\":4e19,\"denominator\":51,", "metrics.search_efficiency_pct.value is 40000000000000000000% of 51 events, more than 2^64 - 1" },
		{ "\"value\":50,", "\"value\":null,\"denominator\":51,", "metrics.search_efficiency_pct.value is null over a denominator of 51 events" },
		{ "\"value\":50,", "\"value\":50,\"denominator\":0,", "metrics.search_efficiency_pct.value is 50 over a denominator of 0" },
		{ "\"unit\":\"percent\"", "\"unit\":\"ms\"", "metrics.search_efficiency_pct.unit is the string \"ms\", not \"percent\"" },
		/* Histograms: buckets once each, in order, non-empty, the open one last. */
		{ "{\"low\":2,\"high\":3,", "{\"low\":0,\"high\":1,", "metrics.scan_depth.hist.buckets[1] starts at 0, not after the previous bucket's end 1" },
		{ "{\"low\":2,\"high\":3,", "{\"low\":1,\"high\":3,", "metrics.scan_depth.hist.buckets[1] starts at 1, not after the previous bucket's end 1" },
		{ "{\"low\":2,\"high\":3,\"count\":20}", "{\"low\":2,\"high\":3,\"count\":-3}", "metrics.scan_depth.hist.buckets[1].count is -3, not a count" },
		{ "{\"low\":2,\"high\":3,\"count\":20}", "{\"low\":2,\"high\":3,\"count\":0}", "metrics.scan_depth.hist.buckets[1].count is 0: only non-empty buckets are listed" },
		{ "{\"low\":2,\"high\":3,", "{\"low\":2,\"high\":null,", "metrics.scan_depth.hist.buckets[1].high is null (open-ended) but the bucket is not the last" },
		{ "{\"low\":4,\"high\":7,", "{\"low\":4,\"high\":3,", "metrics.scan_depth.hist.buckets[2].high is 3, below the bucket's low 4" },
		{ "\"kind\":\"log2\"", "\"kind\":\"log3\"", "metrics.scan_depth.hist.kind is the string \"log3\", not one of log2, linear" },
		{ "\"p50\":0,", "\"p50\":-1,", "metrics.scan_depth.hist.p50 is -1, not a count" },
		/* Metrics: a tier, estimated, and a value or a hist. */
		{ "\"tier\":\"fentry\",\"estimated\":false},\"search", "\"tier\":\"ebpf\",\"estimated\":false},\"search", "metrics.sis_search.tier is the string \"ebpf\", not one of fentry, kprobe" },
		{ "\"tier\":\"fentry\",\"estimated\":false},\"search", "\"tier\":\"fentry\",\"estimated\":0},\"search", "metrics.sis_search.estimated is 0, not true or false" },
		{ "{\"value\":1000,", "{\"value\":1000,\"hist\":{},", "metrics.sis_search has both value and hist" },
		{ "\"sis_search\":{\"value\":1000,", "\"sis_search\":{\"value\":1,\"tier\":\"fentry\",\"estimated\":false},\"sis_search\":{\"value\":1000,", "metrics has two members named sis_search" },
		{ "\"sis_search\":{", "\"Sis\\u001b[2J\":{", "metrics has a member \"Sis?[2J\": not a name" },
		/* The record: a run's length; tables of integer keys and counts. */
		{ "\"duration_s\":2,", "\"duration_s\":1e-300,", "duration_s is 1e-300, not the run's length in seconds" },
		{ "\"duration_s\":2,", "\"duration_s\":\"2\",", "duration_s is the string \"2\", not the run's length" },
		{ "\"duration_s\":2,", "", "duration_s is absent, not the run's length" },
		{ "\"type\":\"summary\"", "\"type\":\"compare\"", "b line 2: type is the string \"compare\", not one of interval, summary" },
		{ "{\"llc\":1,", "{\"llc\":1.5,", "breakdown.rows[1].llc is 1.5, not an integer key of 64 bits" },
		{ "{\"llc\":1,", "{\"llc\":\"1\",", "breakdown.rows[1].llc is the string \"1\", not an integer key" },
		{ "\"sis_search\":400}", "\"sis_search\":-400}", "breakdown.rows[1].sis_search is -400, not a count" },
		{ "\"rows_dropped\":0,", "\"rows_dropped\":-1,", "breakdown.rows_dropped is -1, not a count" },
		{ "\"by\":\"llc\"", "\"by\":\"llc+\"", "breakdown.by is not a list of key names joined by +" },
		{ "\"rows\":[", "\"rows\":{},\"x\":[", "breakdown.rows is an object, not an array" },
		/* Interval records are checked as much: a broken one is a broken file. */
		{ "\"type\":\"interval\",\"tool\":\"sisscan\",\"metrics\":{}", "\"type\":\"interval\",\"tool\":\"sisscan\",\"metrics\":{\"x\":{\"value\":-1,\"tier\":\"fentry\",\"estimated\":false}}", "b line 1: metrics.x.value is -1, not a count" },
	};
	const unsigned int h[4] = { 10, 20, 30, 5 };

	setup();
	write_run("a", "sisscan", 2, 1000, 50, h, 400);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_variant("b", "a", bad[i].from, bad[i].to);
		expect_one_refusal("a", "b", bad[i].sentence);
	}
	teardown();
}

/* What the tools do write is read: the schema's edges. */
static void test_valid_edges(void)
{
	static const struct {
		const char *from, *to;
	} good[] = {
		/* numa_pte_fault_pct: hint faults per PTE update pass 100%. */
		{ "\"value\":50,", "\"value\":250,\"denominator\":4," },
		/* A ratio of no event. */
		{ "\"value\":50,", "\"value\":null,\"denominator\":0," },
		/* Files before the denominator was written. */
		{ "\"value\":50,", "\"value\":null," },
		{ "\"value\":1000,", "\"value\":18446744073709551615," },
		/* idlebal's cpu -1 (all CPUs), migration_pairs' from_node -1. */
		{ "{\"llc\":1,", "{\"llc\":-1," },
		/* idlebal's kernel deltas beside a row's counters. */
		{ "\"sis_search\":400}", "\"sis_search\":400,\"schedstat\":{\"lb_count\":3}}" },
		/* The open last bucket, and a bucket of one value. */
		{ "{\"low\":2,\"high\":3,", "{\"low\":2,\"high\":2," },
		{ "\"duration_s\":2,", "\"duration_s\":0.000001," },
	};
	const unsigned int h[4] = { 10, 20, 30, 5 };

	setup();
	write_run("a", "sisscan", 2, 1000, 50, h, 400);
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		write_variant("b", "a", good[i].from, good[i].to);
		expect_loaded("b", "b");
	}
	teardown();
}

/*
 * Runs measured otherwise: another tier (docs/json.md: refused), another
 * histogram kind (--linear), buckets of other bounds. Between the sides
 * and within one.
 */
static void test_changed_measurement(void)
{
	const unsigned int h[4] = { 10, 20, 30, 5 };
	const char *a[2], *b[2];

	setup();
	write_run("a1", "sisscan", 2, 1000, 50, h, 400);
	write_run("a2", "sisscan", 2, 1100, 51, h, 450);
	write_variant("kprobe", "a1", "\"tier\":\"fentry\",\"estimated\":false},\"search",
		      "\"tier\":\"kprobe\",\"estimated\":false},\"search");
	expect_one_refusal("a1", "kprobe",
			   "kprobe line 2: metrics.sis_search.tier is kprobe where ");
	expect_one_refusal("a1", "kprobe", "a1 line 2 has fentry: compare runs of one configuration and kernel tier");
	/* Within side A: the second A run against the first. */
	a[0] = path_of("a1");
	a[1] = path_of("kprobe");
	b[0] = path_of("a2");
	b[1] = path_of("a1");
	expect_refusal(a, 2, b, 2, "kprobe line 2: metrics.sis_search.tier is kprobe where");
	/* Within side B. */
	a[0] = path_of("a1");
	a[1] = path_of("a2");
	b[0] = path_of("a2");
	b[1] = path_of("kprobe");
	expect_refusal(a, 2, b, 2, "kprobe line 2: metrics.sis_search.tier is kprobe where");
	write_variant("table_tier", "a1", "\"by\":\"llc\",\"tier\":\"fentry\"", "\"by\":\"llc\",\"tier\":\"tp_btf\"");
	expect_one_refusal("a1", "table_tier", "breakdown.tier is tp_btf where ");
	write_variant("ratio", "a1", "\"sis_search\":{\"value\":1000,", "\"sis_search\":{\"value\":10,\"unit\":\"percent\",");
	expect_one_refusal("a1", "ratio", "metrics.sis_search is a ratio where ");
	write_variant("linear", "a1", "\"kind\":\"log2\"", "\"kind\":\"linear\"");
	expect_one_refusal("a1", "linear", "metrics.scan_depth.hist.kind is linear where ");
	/* Each run's buckets in order, but not the same buckets: 2-3 against 2-5. */
	write_variant("wider", "a1", "{\"low\":2,\"high\":3,\"count\":20},{\"low\":4,\"high\":7,",
		      "{\"low\":2,\"high\":5,\"count\":20},{\"low\":6,\"high\":7,");
	expect_one_refusal("a1", "wider", "metrics.scan_depth.hist.buckets[1] is 2-5 where ");
	expect_one_refusal("a1", "wider", "a1 line 2 has 2-3: compare runs of one configuration");
	teardown();
}

/* A line of tiny values costs 32 times its length as a tree: refused while parsed. */
static void test_value_budget(void)
{
	const unsigned int h[4] = { 10, 20, 30, 5 };
	char sentence[160];
	FILE *f;

	setup();
	write_run("a", "sisscan", 2, 1000, 50, h, 400);
	f = fopen(path_of("tiny"), "w");
	if (f) {
		fputc('[', f);
		for (unsigned int i = 0; i < COMPARE_MAX_VALUES; i++)
			fputs("0,", f);
		fputs("0]\n", f);
		fclose(f);
	}
	snprintf(sentence, sizeof(sentence), "tiny is not schedscan output: line 1: more than %u JSON values",
		 COMPARE_MAX_VALUES);
	expect_one_refusal("a", "tiny", sentence);
	teardown();
}

UNIT_MAIN(UNIT_TEST(test_refusals),
	  UNIT_TEST(test_same_workload),
	  UNIT_TEST(test_no_spread),
	  UNIT_TEST(test_few_events),
	  UNIT_TEST(test_few_scans),
	  UNIT_TEST(test_known_shift),
	  UNIT_TEST(test_one_run_a_side),
	  UNIT_TEST(test_big_table),
	  UNIT_TEST(test_equal_shares),
	  UNIT_TEST(test_not_regular),
	  UNIT_TEST(test_bounds),
	  UNIT_TEST(test_growing_file),
	  UNIT_TEST(test_read_lines),
	  UNIT_TEST(test_invalid_values),
	  UNIT_TEST(test_valid_edges),
	  UNIT_TEST(test_changed_measurement),
	  UNIT_TEST(test_value_budget))
