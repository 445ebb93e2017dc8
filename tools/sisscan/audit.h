/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sisscan --filter: the SIS filter audit (docs/metrics.md "Filter
 * audit"): which filters, their metrics, their .rodata, and the records
 * of the --events stream.
 */
#ifndef SISSCAN_AUDIT_H
#define SISSCAN_AUDIT_H

#include <stdbool.h>
#include <stddef.h>
#include "sisscan.h"
#include "tool.h"

struct sisscan_bpf;
struct common_opts;
struct cpustate;
struct json_writer;

extern const char *const sis_filter_names[SIS_NR_FILTERS];

/* "a,b": sets a bit per enum sis_filter; -1 on an unknown or empty name. */
int audit_parse_filters(const char *text, unsigned int *filters);

#define AUDIT_MAX_METRICS (6 + SIS_NR_FILTERS * 10 + 2)

/* The audit's metrics, their names built for the chosen filters. */
struct audit_metrics {
	struct metric_spec specs[AUDIT_MAX_METRICS];
	char names[AUDIT_MAX_METRICS][48];
	int nr;
};

/*
 * Fills m for the filters (bits of enum sis_filter); needs: the hooks
 * every audit metric needs, v4_needs: those the v4 model's also need;
 * events: --events given.
 */
void audit_metrics_build(struct audit_metrics *m, unsigned int filters,
			 bool events, unsigned int needs, unsigned int v4_needs);

/* .rodata and map sizes of the audit, before load; 0 or -1 with err. */
int audit_setup(struct sisscan_bpf *obj, unsigned int filters, double delay_ms,
		bool events, const struct common_opts *opts, char *err,
		size_t errlen);

/* One --events record; ctx: struct audit_stream. */
struct audit_stream {
	unsigned int filters;
	const struct cpustate *cpus;	/* the LLCs, to name the CPUs */
};

bool audit_format_event(void *ctx, const void *data, size_t size,
			struct json_writer *w);

#endif
