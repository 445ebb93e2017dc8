/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Histograms with 64-bit buckets (bcc's are 32-bit and wrap on long
 * runs). Log2 slot k holds [2^(k-1), 2^k - 1] with slot 0 = {0}, exactly
 * what log2_slot() in lib/bpf/schedscan.bpf.h computes; linear slot k
 * holds [base + k*step, base + (k+1)*step - 1], the last slot also
 * everything above.
 */
#ifndef SCHEDSCAN_HIST_H
#define SCHEDSCAN_HIST_H

#include <stdbool.h>
#include <stdio.h>

struct json_writer;

enum hist_kind { HIST_LOG2, HIST_LINEAR };

struct hist {
	enum hist_kind kind;
	unsigned int nr_slots;
	unsigned long long base, step;	/* linear only */
	unsigned long long *slots;
};

int hist_init_log2(struct hist *h, unsigned int nr_slots);
int hist_init_linear(struct hist *h, unsigned long long base,
		     unsigned long long step, unsigned int nr_slots);
void hist_free(struct hist *h);
unsigned int hist_slot(const struct hist *h, unsigned long long value);
void hist_add(struct hist *h, unsigned long long value, unsigned long long n);
/* dst = a - b slot by slot (interval deltas of cumulative kernel counts). */
int hist_sub(struct hist *dst, const struct hist *a, const struct hist *b);
unsigned long long hist_total(const struct hist *h);
void hist_slot_range(const struct hist *h, unsigned int slot,
		     unsigned long long *low, unsigned long long *high);
/*
 * Percentile as the upper bound of the slot holding the p-th sample
 * (nearest rank), so it never understates; 0 with no samples.
 */
unsigned long long hist_percentile(const struct hist *h, double p);
/* Text like bcc's print_log2_hist/print_linear_hist, within 80 columns. */
void hist_print(const struct hist *h, const char *unit, FILE *out);
/* {"kind":..,"unit":..,"count":..,"p50":..,"p90":..,"p99":..,"max":..,"buckets":[...]} */
void hist_json(const struct hist *h, const char *unit, struct json_writer *w);

#endif
