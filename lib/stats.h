/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The statistics --compare needs, written out so that every step can be
 * checked against a table: means and standard deviations, Welch's
 * t-test, Pearson's chi-squared test of homogeneity for two binned
 * samples, and Holm's step-down adjustment for many tests at once.
 */
#ifndef SCHEDSCAN_STATS_H
#define SCHEDSCAN_STATS_H

#include <stddef.h>

/* Mean and sample standard deviation (n - 1); sd is 0 for n < 2. */
void stats_mean_sd(const double *x, size_t n, double *mean, double *sd);

/* Regularized incomplete beta I_x(a, b), for 0 <= x <= 1, a, b > 0. */
double stats_inc_beta(double a, double b, double x);
/* Regularized upper incomplete gamma Q(a, x), for a > 0, x >= 0. */
double stats_gamma_q(double a, double x);

/* Two-sided p-value of Student's t with df degrees of freedom. */
double stats_t_pvalue(double t, double df);
/* Upper-tail p-value of chi-squared with df degrees of freedom. */
double stats_chi2_pvalue(double chi2, double df);

/*
 * Welch's t-test of two samples' means (each of at least two values):
 * the two-sided p-value, and t and the Welch-Satterthwaite df if wanted.
 * Two samples without any spread give 1 when their means are equal, 0
 * when they are not.
 */
double stats_welch(const double *a, size_t na, const double *b, size_t nb,
		   double *t, double *df);
/*
 * The same test with each side's variance taken as at least min_var_a,
 * min_var_b (the variance a known noise, such as a count's Poisson noise,
 * gives every value), in the statistic and in its degrees of freedom.
 */
double stats_welch_floor(const double *a, size_t na, double min_var_a,
			 const double *b, size_t nb, double min_var_b,
			 double *t, double *df);

/*
 * Pearson's chi-squared test of homogeneity of two count vectors over
 * the same n bins: bins are merged, in order, until every merged bin
 * expects at least 5 counts on both sides (Cochran's rule), then the 2 x k
 * table is tested. The p-value, and the statistic and df if wanted; 1
 * when fewer than two bins remain (nothing to compare).
 */
double stats_chi2_homogeneity(const double *a, const double *b, size_t n,
			      double *chi2, double *df);

/*
 * Holm's step-down adjustment of n p-values, in place: adjusted[i] is
 * max over the j ranked at or before i of min(1, (n - rank_j) * p_j).
 */
void stats_holm(double *p, size_t n);

#endif
