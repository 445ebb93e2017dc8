/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Prometheus text exposition format (version 0.0.4, which Prometheus
 * and node_exporter's textfile collector read): metric families with
 * HELP and TYPE lines, samples with escaped label values. Naming rules
 * and the families each tool exports: docs/openmetrics.md.
 */
#ifndef SCHEDSCAN_OPENMETRICS_H
#define SCHEDSCAN_OPENMETRICS_H

#include "util.h"

struct hist;

struct om_label {
	const char *name, *value;
};

#define OM_MAX_LABELS 10

/*
 * The family name schedscan_<tool>_[<row>_]<name><suffix> into buf; a name
 * ending in _ns becomes _seconds there. Returns what the values divide
 * by: 1e9 for those, else 1.
 */
double om_family_name(char *buf, size_t len, const char *tool, const char *row,
		      const char *name, const char *suffix);

/* "# HELP family help" and "# TYPE family type". */
void om_header(struct strbuf *b, const char *family, const char *type,
	       const char *help);
/* family[suffix]{labels} value, value an unsigned integer. */
void om_sample_u64(struct strbuf *b, const char *family, const char *suffix,
		   const struct om_label *labels, int nr_labels,
		   unsigned long long value);
void om_sample_double(struct strbuf *b, const char *family, const char *suffix,
		      const struct om_label *labels, int nr_labels, double value);
/*
 * A histogram: cumulative family_bucket{le=...} for each slot's upper
 * bound divided by divisor (1e9 for ns shown in seconds), +Inf, _sum
 * (sum / divisor) and _count.
 */
void om_histogram(struct strbuf *b, const char *family,
		  const struct om_label *labels, int nr_labels,
		  const struct hist *h, double sum, double divisor);

#endif
