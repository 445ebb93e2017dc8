/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One report = one window of metrics and tables, printed as an
 * 80-column text block or as one JSON Lines record (docs/json.md); the
 * same values, cumulative, as OpenMetrics (docs/openmetrics.md). Every
 * metric carries the flavour that measured it and whether it is an
 * estimate.
 */
#ifndef SCHEDSCAN_REPORT_H
#define SCHEDSCAN_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include "json.h"

struct run_window;
struct hist;
struct prog_stat;
struct strbuf;
struct table;

struct metric_value {
	const char *name;	/* as defined in docs/metrics.md */
	const char *tier;	/* flavour name, e.g. "fentry", "tp_btf" */
	bool available;		/* false: why says what is missing */
	bool estimated;
	const char *why;
	unsigned long long value;	/* counters */
	bool is_ratio;			/* a percentage: ratio, not value */
	double ratio;
	/* The events the ratio is a share of: its noise for --compare. */
	unsigned long long denominator;
	const struct hist *hist;	/* histograms (value unused) */
	const char *unit;		/* histograms */
	bool has_sum;			/* histograms: sum of the values known */
	unsigned long long sum;
	const char *help;		/* OpenMetrics HELP; NULL: the name */
	const char *same_as;		/* text: one line when equal to this histogram */
	enum metric_kind { METRIC_COUNTER, METRIC_HISTOGRAM, METRIC_RATIO } kind;
};

#define REPORT_MAX_MISSING_TABLES 16

/*
 * A table the kernel keeps this run from reporting (its hooks are
 * missing), with the sentence saying why: told as the metrics are.
 */
struct missing_table {
	const char *name, *why;
};

struct report {
	const char *tool;
	const char *mode;
	FILE *out;
	bool json, timestamp;
	struct json_writer writer;
	/* Non-NULL: every window's JSON record is also kept here (--svg). */
	struct strbuf *capture;
	struct missing_table missing_tables[REPORT_MAX_MISSING_TABLES];
	int nr_missing_tables;
};

void report_init(struct report *r, const char *tool, const char *mode,
		 bool json, bool timestamp, FILE *out);
void report_free(struct report *r);
/*
 * Text banner (nothing in JSON mode): what is traced and by which tier;
 * metrics_address ("127.0.0.1:9464", or NULL) is where /metrics is served.
 */
void report_banner(struct report *r, const char *what, const char *metrics_address,
		   const char *note, const struct metric_value *metrics, int nr_metrics);
/* top: rows per table in text (0: each table's default). */
int report_window(struct report *r, const struct run_window *window,
		  const struct metric_value *metrics, int nr_metrics,
		  struct table *const *tables, int nr_tables, int top,
		  const struct prog_stat *stats, int nr_stats);
/* A table not reported, and why (the banner, JSON's tables_unavailable). */
void report_table_missing(struct report *r, const char *name, const char *why);
/*
 * --list-metrics: per metric and table, the tier this kernel allows and
 * whether it is measured or estimated, or why it is not measured; the
 * tables given are those a run would report. Text or one JSON record.
 */
int report_list(struct report *r, const struct metric_value *metrics, int nr_metrics,
		struct table *const *tables, int nr_tables);
/* The metrics as OpenMetrics families (values cumulative since the start). */
void report_openmetrics(const struct report *r, const struct metric_value *metrics,
			int nr_metrics, struct strbuf *out);

#endif
