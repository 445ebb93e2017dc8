// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include "hist.h"
#include "json.h"
#include "unit.h"

static void test_log2_slots_match_bpf_rule(void)
{
	struct hist h;

	CHECK_INT(hist_init_log2(&h, 65), 0);
	/* slot 0 = {0}, 1 = {1}, 2 = [2,3], 3 = [4,7], k = [2^(k-1), 2^k-1] */
	CHECK_INT(hist_slot(&h, 0), 0);
	CHECK_INT(hist_slot(&h, 1), 1);
	CHECK_INT(hist_slot(&h, 2), 2);
	CHECK_INT(hist_slot(&h, 3), 2);
	CHECK_INT(hist_slot(&h, 4), 3);
	CHECK_INT(hist_slot(&h, 7), 3);
	CHECK_INT(hist_slot(&h, 8), 4);
	CHECK_INT(hist_slot(&h, 1ULL << 40), 41);
	CHECK_INT(hist_slot(&h, ~0ULL), 64);
	for (unsigned int s = 0; s < 64; s++) {
		unsigned long long lo, hi;

		hist_slot_range(&h, s, &lo, &hi);
		CHECK_INT(hist_slot(&h, lo), s);
		CHECK_INT(hist_slot(&h, hi), s);
	}
	hist_free(&h);
}

static void test_log2_overflow_slot(void)
{
	struct hist h;
	unsigned long long lo, hi;

	CHECK_INT(hist_init_log2(&h, 4), 0);
	hist_add(&h, 1000, 1);
	CHECK_U64(h.slots[3], 1);
	hist_slot_range(&h, 3, &lo, &hi);
	CHECK_U64(lo, 4);
	CHECK_U64(hi, ~0ULL);
	hist_free(&h);
}

static void test_linear_slots(void)
{
	struct hist h;

	CHECK_INT(hist_init_linear(&h, 0, 1, 8), 0);
	for (int v = 0; v < 8; v++)
		CHECK_INT(hist_slot(&h, v), v);
	CHECK_INT(hist_slot(&h, 100), 7);
	hist_free(&h);
	CHECK_INT(hist_init_linear(&h, 10, 5, 4), 0);
	CHECK_INT(hist_slot(&h, 3), 0);		/* below base: first slot */
	CHECK_INT(hist_slot(&h, 14), 0);
	CHECK_INT(hist_slot(&h, 15), 1);
	CHECK_INT(hist_slot(&h, 29), 3);
	CHECK_INT(hist_slot(&h, 1000), 3);
	hist_free(&h);
	CHECK(hist_init_linear(&h, 0, 0, 4) != 0);
}

/* Percentiles of 1..100 in a step-1 linear histogram are exact. */
static void test_percentiles_exact_on_linear(void)
{
	struct hist h;

	CHECK_INT(hist_init_linear(&h, 0, 1, 128), 0);
	CHECK_U64(hist_percentile(&h, 50), 0);
	for (int v = 1; v <= 100; v++)
		hist_add(&h, v, 1);
	CHECK_U64(hist_total(&h), 100);
	CHECK_U64(hist_percentile(&h, 50), 50);
	CHECK_U64(hist_percentile(&h, 90), 90);
	CHECK_U64(hist_percentile(&h, 99), 99);
	CHECK_U64(hist_percentile(&h, 100), 100);
	CHECK_U64(hist_percentile(&h, 0), 1);
	hist_free(&h);
}

/* On log2 buckets the percentile is the bucket's upper bound. */
static void test_percentiles_log2_upper_bound(void)
{
	struct hist h;

	CHECK_INT(hist_init_log2(&h, 20), 0);
	hist_add(&h, 5, 90);	/* [4,7] */
	hist_add(&h, 100, 10);	/* [64,127] */
	CHECK_U64(hist_percentile(&h, 50), 7);
	CHECK_U64(hist_percentile(&h, 90), 7);
	CHECK_U64(hist_percentile(&h, 91), 127);
	CHECK_U64(hist_percentile(&h, 99), 127);
	hist_free(&h);
}

static void test_sub_gives_interval_delta(void)
{
	struct hist a, b, d;

	hist_init_log2(&a, 8);
	hist_init_log2(&b, 8);
	hist_init_log2(&d, 8);
	hist_add(&a, 3, 10);
	hist_add(&b, 3, 4);
	CHECK_INT(hist_sub(&d, &a, &b), 0);
	CHECK_U64(d.slots[2], 6);
	CHECK_U64(hist_total(&d), 6);
	hist_free(&d);
	hist_init_log2(&d, 9);
	CHECK(hist_sub(&d, &a, &b) != 0);
	hist_free(&a);
	hist_free(&b);
	hist_free(&d);
}

static void test_print_fits_80_columns(void)
{
	struct hist h;
	char *text = NULL, *line, *save = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	hist_init_log2(&h, 65);
	hist_add(&h, 0, 3);
	hist_add(&h, 300, 123456789012ULL);
	hist_add(&h, ~0ULL, 1);
	hist_print(&h, "cpus", out);
	fclose(out);
	CHECK(strstr(text, "count") != NULL);
	CHECK(strstr(text, "256 -> 511") != NULL);
	CHECK(strstr(text, "123456789012") != NULL);
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		CHECK(strlen(line) <= 80);
	free(text);
	hist_free(&h);
}

static void test_json_form(void)
{
	struct hist h;
	struct json_writer w;

	hist_init_linear(&h, 0, 1, 4);
	hist_add(&h, 1, 2);
	hist_add(&h, 9, 1);
	json_init(&w);
	hist_json(&h, "cpus", &w);
	CHECK_STR(w.buf,
		  "{\"kind\":\"linear\",\"unit\":\"cpus\",\"count\":3,\"p50\":1,"
		  "\"p90\":3,\"p99\":3,\"max\":3,\"buckets\":[{\"low\":1,"
		  "\"high\":1,\"count\":2},{\"low\":3,\"high\":null,\"count\":1}]}");
	json_free(&w);
	hist_free(&h);
}

UNIT_MAIN(UNIT_TEST(test_log2_slots_match_bpf_rule),
	  UNIT_TEST(test_log2_overflow_slot),
	  UNIT_TEST(test_linear_slots),
	  UNIT_TEST(test_percentiles_exact_on_linear),
	  UNIT_TEST(test_percentiles_log2_upper_bound),
	  UNIT_TEST(test_sub_gives_interval_delta),
	  UNIT_TEST(test_print_fits_80_columns),
	  UNIT_TEST(test_json_form))
