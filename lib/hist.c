// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "hist.h"
#include "json.h"

#define HIST_MAX_SLOTS 65
#define STARS_WIDTH 40

static int hist_alloc(struct hist *h, unsigned int nr_slots)
{
	if (!nr_slots)
		return -EINVAL;
	h->slots = calloc(nr_slots, sizeof(*h->slots));
	if (!h->slots)
		return -ENOMEM;
	h->nr_slots = nr_slots;
	return 0;
}

int hist_init_log2(struct hist *h, unsigned int nr_slots)
{
	memset(h, 0, sizeof(*h));
	h->kind = HIST_LOG2;
	if (nr_slots > HIST_MAX_SLOTS)
		return -EINVAL;
	return hist_alloc(h, nr_slots);
}

int hist_init_linear(struct hist *h, unsigned long long base,
		     unsigned long long step, unsigned int nr_slots)
{
	memset(h, 0, sizeof(*h));
	h->kind = HIST_LINEAR;
	h->base = base;
	h->step = step;
	if (!step)
		return -EINVAL;
	return hist_alloc(h, nr_slots);
}

void hist_free(struct hist *h)
{
	free(h->slots);
	h->slots = NULL;
	h->nr_slots = 0;
}

unsigned int hist_slot(const struct hist *h, unsigned long long value)
{
	unsigned int slot = 0;

	if (h->kind == HIST_LOG2) {
		while (value) {
			value >>= 1;
			slot++;
		}
	} else if (value >= h->base) {
		unsigned long long k = (value - h->base) / h->step;

		slot = k > h->nr_slots ? h->nr_slots : (unsigned int)k;
	}
	return slot < h->nr_slots ? slot : h->nr_slots - 1;
}

void hist_add(struct hist *h, unsigned long long value, unsigned long long n)
{
	h->slots[hist_slot(h, value)] += n;
}

int hist_sub(struct hist *dst, const struct hist *a, const struct hist *b)
{
	if (dst->nr_slots != a->nr_slots || a->nr_slots != b->nr_slots)
		return -EINVAL;
	for (unsigned int i = 0; i < a->nr_slots; i++)
		dst->slots[i] = a->slots[i] >= b->slots[i] ?
					a->slots[i] - b->slots[i] : 0;
	return 0;
}

unsigned long long hist_total(const struct hist *h)
{
	unsigned long long total = 0;

	for (unsigned int i = 0; i < h->nr_slots; i++)
		total += h->slots[i];
	return total;
}

void hist_slot_range(const struct hist *h, unsigned int slot,
		     unsigned long long *low, unsigned long long *high)
{
	if (h->kind == HIST_LOG2) {
		*low = slot ? 1ULL << (slot - 1) : 0;
		*high = slot >= 64 ? ~0ULL : (1ULL << slot) - 1;
		if (slot + 1 == h->nr_slots)
			*high = ~0ULL;
		return;
	}
	*low = h->base + slot * h->step;
	*high = slot + 1 == h->nr_slots ? ~0ULL : *low + h->step - 1;
}

unsigned long long hist_percentile(const struct hist *h, double p)
{
	unsigned long long total = hist_total(h), rank, seen = 0, low, high;

	if (!total)
		return 0;
	if (p <= 0)
		p = 0;
	if (p > 100)
		p = 100;
	/* Nearest rank: the ceil(p/100 * N)-th sample, at least the first. */
	rank = (unsigned long long)(p / 100.0 * total);
	if ((double)rank < p / 100.0 * total)
		rank++;
	if (!rank)
		rank = 1;
	for (unsigned int i = 0; i < h->nr_slots; i++) {
		seen += h->slots[i];
		if (seen >= rank) {
			hist_slot_range(h, i, &low, &high);
			/* The overflow slot has no upper bound: report its floor. */
			return high == ~0ULL ? low : high;
		}
	}
	return 0;
}

static unsigned long long hist_max(const struct hist *h)
{
	return hist_percentile(h, 100);
}

static void print_stars(unsigned long long val, unsigned long long max,
			int width, FILE *out)
{
	int stars = max ? (int)((long double)val * width / max) : 0;
	bool clipped = false;

	if (stars > width) {
		stars = width;
		clipped = true;
	}
	for (int i = 0; i < stars; i++)
		fputc('*', out);
	for (int i = stars; i < width; i++)
		fputc(' ', out);
	if (clipped)
		fputc('+', out);
}

static int digits(unsigned long long v)
{
	int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/* Row label: "low -> high", a single value, or "low -> inf". */
static void slot_label(const struct hist *h, unsigned int slot, char *buf,
		       size_t len, int width)
{
	unsigned long long low, high;
	int n;

	hist_slot_range(h, slot, &low, &high);
	if (high == ~0ULL)
		n = snprintf(buf, len, "%*llu -> %-*s", width, low, width, "inf");
	else if (low == high)
		n = snprintf(buf, len, "%*llu%*s", width, low, width + 4, "");
	else
		n = snprintf(buf, len, "%*llu -> %-*llu", width, low, width, high);
	/* width is at most 20 digits, so a 64-byte label always fits. */
	if (n < 0 || (size_t)n >= len)
		buf[len - 1] = '\0';
}

void hist_print(const struct hist *h, const char *unit, FILE *out)
{
	unsigned long long max = 0, low, high;
	int first = -1, last = -1, value_width = 5, count_width = 8, stars;
	char label[64];

	for (unsigned int i = 0; i < h->nr_slots; i++) {
		if (h->slots[i] > max)
			max = h->slots[i];
		if (h->slots[i]) {
			if (first < 0)
				first = i;
			last = i;
		}
	}
	if (last < 0) {
		fprintf(out, "     (no samples)\n");
		return;
	}
	if (h->kind == HIST_LOG2)
		first = 0;
	for (int i = first; i <= last; i++) {
		hist_slot_range(h, i, &low, &high);
		if (digits(low) > value_width)
			value_width = digits(low);
		if (high != ~0ULL && digits(high) > value_width)
			value_width = digits(high);
	}
	if (digits(max) > count_width)
		count_width = digits(max);
	/* "label : count |stars|" within 80 columns, 40 stars when they fit. */
	stars = 80 - (2 * value_width + 4) - 3 - count_width - 1 - 3;
	if (stars > STARS_WIDTH)
		stars = STARS_WIDTH;
	if (stars < 10)
		stars = 10;
	fprintf(out, "%*s : %-*s distribution\n", 2 * value_width + 4, unit,
		count_width, "count");
	for (int i = first; i <= last; i++) {
		if (h->kind == HIST_LINEAR && !h->slots[i])
			continue;
		slot_label(h, i, label, sizeof(label), value_width);
		fprintf(out, "%s : %-*llu |", label, count_width, h->slots[i]);
		print_stars(h->slots[i], max, stars, out);
		fprintf(out, "|\n");
	}
}

void hist_json(const struct hist *h, const char *unit, struct json_writer *w)
{
	unsigned long long low, high;

	json_begin_object(w);
	json_key(w, "kind");
	json_string(w, h->kind == HIST_LOG2 ? "log2" : "linear");
	json_key(w, "unit");
	json_string(w, unit);
	json_key(w, "count");
	json_u64(w, hist_total(h));
	json_key(w, "p50");
	json_u64(w, hist_percentile(h, 50));
	json_key(w, "p90");
	json_u64(w, hist_percentile(h, 90));
	json_key(w, "p99");
	json_u64(w, hist_percentile(h, 99));
	json_key(w, "max");
	json_u64(w, hist_max(h));
	json_key(w, "buckets");
	json_begin_array(w);
	for (unsigned int i = 0; i < h->nr_slots; i++) {
		if (!h->slots[i])
			continue;
		hist_slot_range(h, i, &low, &high);
		json_begin_object(w);
		json_key(w, "low");
		json_u64(w, low);
		json_key(w, "high");
		if (high == ~0ULL)
			json_null(w);
		else
			json_u64(w, high);
		json_key(w, "count");
		json_u64(w, h->slots[i]);
		json_end_object(w);
	}
	json_end_array(w);
	json_end_object(w);
}
