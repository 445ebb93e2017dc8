// SPDX-License-Identifier: GPL-2.0
/* lib/stats.c against values from statistical tables and closed forms. */
#include <math.h>
#include "stats.h"
#include "unit.h"

static void test_mean_sd(void)
{
	const double x[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	double mean, sd;

	stats_mean_sd(x, 8, &mean, &sd);
	CHECK_DBL(mean, 5, 1e-12);
	/* Sample sd: sqrt(32 / 7). */
	CHECK_DBL(sd, sqrt(32.0 / 7), 1e-12);
	stats_mean_sd(x, 1, &mean, &sd);
	CHECK_DBL(sd, 0, 0);
}

static void test_incomplete_beta_closed_forms(void)
{
	/* I_0.5(2, 3) = sum_{j=2..4} C(4, j) / 16 = 11/16. */
	CHECK_DBL(stats_inc_beta(2, 3, 0.5), 11.0 / 16, 1e-12);
	/* I_x(1, 1) = x; I_x(a, 1) = x^a. */
	CHECK_DBL(stats_inc_beta(1, 1, 0.3), 0.3, 1e-12);
	CHECK_DBL(stats_inc_beta(3, 1, 0.9), 0.729, 1e-12);
	/* Both branches of the symmetry, and the ends. */
	CHECK_DBL(stats_inc_beta(2, 3, 0.9) + stats_inc_beta(3, 2, 0.1), 1, 1e-12);
	CHECK_DBL(stats_inc_beta(2, 3, 0), 0, 0);
	CHECK_DBL(stats_inc_beta(2, 3, 1), 1, 0);
}

static void test_gamma_q_closed_forms(void)
{
	/* Q(1, x) = e^-x; Q(2, x) = (1 + x) e^-x (both branches). */
	CHECK_DBL(stats_gamma_q(1, 2), exp(-2), 1e-12);
	CHECK_DBL(stats_gamma_q(1, 0.5), exp(-0.5), 1e-12);
	CHECK_DBL(stats_gamma_q(2, 7), 8 * exp(-7), 1e-12);
	CHECK_DBL(stats_gamma_q(2, 0), 1, 0);
}

static void test_t_table(void)
{
	/* Two-sided 5% critical values of Student's t. */
	CHECK_DBL(stats_t_pvalue(12.7062047, 1), 0.05, 1e-7);
	CHECK_DBL(stats_t_pvalue(2.5705818, 5), 0.05, 1e-7);
	CHECK_DBL(stats_t_pvalue(-2.2281389, 10), 0.05, 1e-7);
	CHECK_DBL(stats_t_pvalue(1.9599640, 1e7), 0.05, 1e-6);
	/* 1% at df 4. */
	CHECK_DBL(stats_t_pvalue(4.6040949, 4), 0.01, 1e-7);
	CHECK_DBL(stats_t_pvalue(0, 3), 1, 1e-12);
}

static void test_chi2_table(void)
{
	/* Upper 5% and 1% points of chi-squared. */
	CHECK_DBL(stats_chi2_pvalue(3.8414588, 1), 0.05, 1e-7);
	CHECK_DBL(stats_chi2_pvalue(11.0704977, 5), 0.05, 1e-7);
	CHECK_DBL(stats_chi2_pvalue(23.2092512, 10), 0.01, 1e-7);
	/* df 2: Q = e^(-x/2). */
	CHECK_DBL(stats_chi2_pvalue(20, 2), exp(-10), 1e-12);
	CHECK_DBL(stats_chi2_pvalue(0, 4), 1, 0);
}

static void test_welch(void)
{
	const double a[] = { 1, 2, 3, 4, 5 }, b[] = { 3, 4, 5, 6, 7 };
	const double flat_a[] = { 2, 2 }, flat_b[] = { 3, 3 };
	double t, df;

	/* Equal variances 2.5: t = -2, df = 1 / (2 * 0.5^2 / 4) = 8. */
	double p = stats_welch(a, 5, b, 5, &t, &df);

	CHECK_DBL(t, -2, 1e-12);
	CHECK_DBL(df, 8, 1e-12);
	CHECK_DBL(p, stats_t_pvalue(2, 8), 1e-15);
	CHECK_DBL(p, 0.0805162, 1e-6);
	/* Unequal variances and sizes: df between min(n) - 1 and na + nb - 2. */
	const double c[] = { 10, 12, 9, 11, 30, 31 }, d[] = { 20, 21, 22 };

	stats_welch(c, 6, d, 3, &t, &df);
	CHECK(df > 2 && df < 7);
	/* No spread: equal means are no change, different ones a certain one. */
	CHECK_DBL(stats_welch(flat_a, 2, flat_a, 2, NULL, NULL), 1, 0);
	CHECK_DBL(stats_welch(flat_a, 2, flat_b, 2, NULL, NULL), 0, 0);
}

/*
 * A floor on each side's variance: 0 0 0 against 1 1 1 with a floor of
 * 0.5 a side is t = -1 / sqrt(0.5 / 3 + 0.5 / 3) = -sqrt(3), df 4 (each
 * side's floored variance, Welch-Satterthwaite), two-sided p 0.158302
 * (closed form for df 4: 1 - sin(h) (1 + cos^2(h) / 2), h = atan(t / 2)).
 * A spread above the floor is the plain test.
 */
static void test_welch_floor(void)
{
	const double zeros[] = { 0, 0, 0 }, ones[] = { 1, 1, 1 };
	const double a[] = { 1, 2, 3, 4, 5 }, b[] = { 3, 4, 5, 6, 7 };
	double t, df, p;

	p = stats_welch_floor(zeros, 3, 0.5, ones, 3, 0.5, &t, &df);
	CHECK_DBL(t, -sqrt(3), 1e-12);
	CHECK_DBL(df, 4, 1e-12);
	CHECK_DBL(p, 0.1583024, 1e-6);
	CHECK_DBL(stats_welch_floor(a, 5, 1, b, 5, 2.5, NULL, NULL),
		  stats_welch(a, 5, b, 5, NULL, NULL), 1e-15);
	/* Without a floor, no spread is still a certain change. */
	CHECK_DBL(stats_welch_floor(zeros, 3, 0, ones, 3, 0, NULL, NULL), 0, 0);
}

static void test_chi2_homogeneity(void)
{
	const double a[] = { 10, 20, 30 }, b[] = { 30, 20, 10 };
	const double same_a[] = { 100, 200, 300 }, same_b[] = { 50, 100, 150 };
	/* The sparse tail merges into the bin before it (expected < 5). */
	const double sparse_a[] = { 50, 50, 1, 1, 0 }, sparse_b[] = { 50, 50, 1, 0, 1 };
	double chi2, df;

	CHECK_DBL(stats_chi2_homogeneity(a, b, 3, &chi2, &df), exp(-10), 1e-12);
	CHECK_DBL(chi2, 20, 1e-12);
	CHECK_DBL(df, 2, 0);
	CHECK_DBL(stats_chi2_homogeneity(same_a, same_b, 3, &chi2, &df), 1, 1e-12);
	CHECK_DBL(chi2, 0, 1e-12);
	stats_chi2_homogeneity(sparse_a, sparse_b, 5, &chi2, &df);
	CHECK_DBL(df, 1, 0);
	/* One side empty, or one bin: nothing to test. */
	CHECK_DBL(stats_chi2_homogeneity(a, (const double[]){ 0, 0, 0 }, 3, &chi2, &df), 1, 0);
	CHECK_DBL(stats_chi2_homogeneity(a, b, 1, &chi2, &df), 1, 0);
}

static void test_holm(void)
{
	double p[] = { 0.01, 0.04, 0.03, 0.005 };

	/* Ranked 0.005 x4, 0.01 x3, 0.03 x2, 0.04 x1, each at least the one before. */
	stats_holm(p, 4);
	CHECK_DBL(p[0], 0.03, 1e-15);
	CHECK_DBL(p[1], 0.06, 1e-15);
	CHECK_DBL(p[2], 0.06, 1e-15);
	CHECK_DBL(p[3], 0.02, 1e-15);
	double q[] = { 0.9, 0.8 };

	stats_holm(q, 2);
	CHECK_DBL(q[0], 1, 0);
	CHECK_DBL(q[1], 1, 0);
}

UNIT_MAIN(UNIT_TEST(test_mean_sd),
	  UNIT_TEST(test_incomplete_beta_closed_forms),
	  UNIT_TEST(test_gamma_q_closed_forms),
	  UNIT_TEST(test_t_table),
	  UNIT_TEST(test_chi2_table),
	  UNIT_TEST(test_welch),
	  UNIT_TEST(test_welch_floor),
	  UNIT_TEST(test_chi2_homogeneity),
	  UNIT_TEST(test_holm))
