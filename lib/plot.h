/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --svg FILE: pictures of a run or of a comparison, drawn from the same
 * JSON records the tools print (docs/json.md), so that what is drawn is
 * what --json says. Which charts each tool gets is in plot.c's tables.
 */
#ifndef SCHEDSCAN_PLOT_H
#define SCHEDSCAN_PLOT_H

#include <stddef.h>
#include <stdio.h>
#include "compare.h"
#include "jsonparse.h"

#define PLOT_WIDTH 800
#define PLOT_CHART_HEIGHT 260

/*
 * A run's records, intervals then the summary (the summary alone when the
 * run had no interval), as one SVG on out. 0, or -1 with a sentence in
 * err (nothing to draw, or a failed write).
 */
int plot_run(const char *tool, const struct jv *records, size_t nr, FILE *out, char *err,
	     size_t errlen);
/* The same for the JSON Lines text of a run (what lib/report.c captured). */
int plot_run_text(const char *tool, const char *text, size_t len, const char *path, char *err,
		  size_t errlen);
/* A comparison: each histogram's A and B bucket shares side by side. */
int plot_compare(const struct compare *c, FILE *out, char *err, size_t errlen);
/* plot_compare() into the file path. */
int plot_compare_file(const struct compare *c, const char *path, char *err, size_t errlen);

#endif
