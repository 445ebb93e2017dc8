// SPDX-License-Identifier: GPL-2.0
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include "stats.h"

#define STATS_EPS 1e-15
#define STATS_TINY 1e-300
#define STATS_MAX_STEPS 500

void stats_mean_sd(const double *x, size_t n, double *mean, double *sd)
{
	double sum = 0, m, ss = 0;

	for (size_t i = 0; i < n; i++)
		sum += x[i];
	m = n ? sum / (double)n : 0;
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - m) * (x[i] - m);
	*mean = m;
	*sd = n > 1 ? sqrt(ss / (double)(n - 1)) : 0;
}

/*
 * The continued fraction of I_x(a, b) (the form that converges for
 * x < (a + 1) / (a + b + 2)), evaluated with the modified Lentz method.
 */
/* One step of the modified Lentz method: the next factor of the fraction. */
static double lentz_step(double *c, double *d, double num)
{
	*d = 1 + num * *d;
	*c = 1 + num / *c;
	if (fabs(*d) < STATS_TINY)
		*d = STATS_TINY;
	if (fabs(*c) < STATS_TINY)
		*c = STATS_TINY;
	*d = 1 / *d;
	return *d * *c;
}

/*
 * The continued fraction of I_x(a, b) (the form that converges for
 * x < (a + 1) / (a + b + 2)), evaluated with the modified Lentz method.
 */
static double beta_fraction(double a, double b, double x)
{
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	if (fabs(d) < STATS_TINY)
		d = STATS_TINY;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= STATS_MAX_STEPS; m++) {
		double m2 = 2.0 * m, delta;

		/* The even step d_{2m}, then the odd step d_{2m+1}. */
		h *= lentz_step(&c, &d, m * (b - m) * x / ((a + m2 - 1) * (a + m2)));
		delta = lentz_step(&c, &d, -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1)));
		h *= delta;
		if (fabs(delta - 1) < STATS_EPS)
			break;
	}
	return h;
}

double stats_inc_beta(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_fraction(a, b, x) / a;
	/* The symmetry I_x(a, b) = 1 - I_{1-x}(b, a) keeps the fraction convergent. */
	return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

double stats_gamma_q(double a, double x)
{
	double lead;

	if (x <= 0)
		return 1;
	lead = exp(-x + a * log(x) - lgamma(a));
	if (x < a + 1) {
		/* P(a, x) by its series, Q = 1 - P. */
		double term = 1 / a, sum = term;

		for (int n = 1; n <= STATS_MAX_STEPS; n++) {
			term *= x / (a + n);
			sum += term;
			if (fabs(term) < fabs(sum) * STATS_EPS)
				break;
		}
		return fmax(0, 1 - sum * lead);
	}
	/* Q(a, x) by its continued fraction (modified Lentz). */
	double b = x + 1 - a, c = 1 / STATS_TINY, d = 1 / b, h = d;

	for (int i = 1; i <= STATS_MAX_STEPS; i++) {
		double an = -i * (i - a), delta;

		b += 2;
		d = an * d + b;
		if (fabs(d) < STATS_TINY)
			d = STATS_TINY;
		c = b + an / c;
		if (fabs(c) < STATS_TINY)
			c = STATS_TINY;
		d = 1 / d;
		delta = d * c;
		h *= delta;
		if (fabs(delta - 1) < STATS_EPS)
			break;
	}
	return fmin(1, lead * h);
}

double stats_t_pvalue(double t, double df)
{
	if (!isfinite(t))
		return isnan(t) ? 1 : 0;
	if (df <= 0)
		return 1;
	return stats_inc_beta(df / 2, 0.5, df / (df + t * t));
}

double stats_chi2_pvalue(double chi2, double df)
{
	if (df <= 0 || chi2 <= 0)
		return 1;
	return stats_gamma_q(df / 2, chi2 / 2);
}

double stats_welch(const double *a, size_t na, const double *b, size_t nb,
		   double *t_out, double *df_out)
{
	return stats_welch_floor(a, na, 0, b, nb, 0, t_out, df_out);
}

double stats_welch_floor(const double *a, size_t na, double min_var_a,
			 const double *b, size_t nb, double min_var_b,
			 double *t_out, double *df_out)
{
	double ma, sa, mb, sb, va, vb, se2, t, df;

	stats_mean_sd(a, na, &ma, &sa);
	stats_mean_sd(b, nb, &mb, &sb);
	va = fmax(sa * sa, min_var_a) / (double)na;
	vb = fmax(sb * sb, min_var_b) / (double)nb;
	se2 = va + vb;
	if (se2 <= 0 || na < 2 || nb < 2) {
		if (t_out)
			*t_out = ma == mb ? 0 : INFINITY;
		if (df_out)
			*df_out = 0;
		return ma == mb ? 1 : 0;
	}
	t = (ma - mb) / sqrt(se2);
	df = se2 * se2 / (va * va / (double)(na - 1) + vb * vb / (double)(nb - 1));
	if (t_out)
		*t_out = t;
	if (df_out)
		*df_out = df;
	return stats_t_pvalue(t, df);
}

double stats_chi2_homogeneity(const double *a, const double *b, size_t n,
			      double *chi2_out, double *df_out)
{
	double total_a = 0, total_b = 0, total, chi2 = 0;
	double bin_a = 0, bin_b = 0;
	double *merged_a, *merged_b;
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		total_a += a[i];
		total_b += b[i];
	}
	total = total_a + total_b;
	merged_a = calloc(n ? n : 1, sizeof(*merged_a));
	merged_b = calloc(n ? n : 1, sizeof(*merged_b));
	if (!merged_a || !merged_b || total_a <= 0 || total_b <= 0) {
		free(merged_a);
		free(merged_b);
		if (chi2_out)
			*chi2_out = 0;
		if (df_out)
			*df_out = 0;
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		double col;

		bin_a += a[i];
		bin_b += b[i];
		col = bin_a + bin_b;
		/* Expected counts of the merged bin on each side: col x share. */
		if (col * total_a / total >= 5 && col * total_b / total >= 5) {
			merged_a[k] = bin_a;
			merged_b[k] = bin_b;
			k++;
			bin_a = bin_b = 0;
		}
	}
	/* What is left over joins the last bin. */
	if (bin_a + bin_b > 0) {
		if (k) {
			merged_a[k - 1] += bin_a;
			merged_b[k - 1] += bin_b;
		} else {
			merged_a[k] = bin_a;
			merged_b[k] = bin_b;
			k++;
		}
	}
	for (size_t i = 0; i < k; i++) {
		double col = merged_a[i] + merged_b[i];
		double ea = col * total_a / total, eb = col * total_b / total;

		chi2 += (merged_a[i] - ea) * (merged_a[i] - ea) / ea +
			(merged_b[i] - eb) * (merged_b[i] - eb) / eb;
	}
	free(merged_a);
	free(merged_b);
	if (chi2_out)
		*chi2_out = k > 1 ? chi2 : 0;
	if (df_out)
		*df_out = k > 1 ? (double)(k - 1) : 0;
	return k > 1 ? stats_chi2_pvalue(chi2, (double)(k - 1)) : 1;
}

struct ranked {
	double p;
	size_t index;
};

static int by_p(const void *x, const void *y)
{
	const struct ranked *a = x, *b = y;

	if (a->p != b->p)
		return a->p < b->p ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

void stats_holm(double *p, size_t n)
{
	struct ranked *r = calloc(n ? n : 1, sizeof(*r));
	double running = 0;

	if (!r) {
		/* Without memory, Bonferroni: never less conservative than Holm. */
		for (size_t i = 0; i < n; i++)
			p[i] = fmin(1, p[i] * (double)n);
		return;
	}
	for (size_t i = 0; i < n; i++)
		r[i] = (struct ranked){ p[i], i };
	qsort(r, n, sizeof(*r), by_p);
	for (size_t i = 0; i < n; i++) {
		double adjusted = fmin(1, (double)(n - i) * r[i].p);

		if (adjusted > running)
			running = adjusted;
		p[r[i].index] = running;
	}
	free(r);
}
