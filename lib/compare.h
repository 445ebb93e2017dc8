/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --compare A.jsonl [A2.jsonl ...] -- B.jsonl [B2.jsonl ...]: what
 * changed between two sets of runs of one tool, read from the tool's own
 * --json output, without tracing anything.
 *
 * Each file is one run; its summary record is what is compared. Counters
 * are compared per second of each run (runs of different lengths compare),
 * ratios as they are, histograms bucket by bucket, table rows per key.
 * The tests (docs/metrics.md, "Comparing runs"): Welch's t-test on the
 * runs' values of each counter and ratio (two runs or more per side),
 * Pearson's chi-squared test of homogeneity on each histogram's pooled
 * buckets together with Cramer's V, all p-values Holm-adjusted over the
 * tests of the comparison.
 */
#ifndef SCHEDSCAN_COMPARE_H
#define SCHEDSCAN_COMPARE_H

#include <stdbool.h>
#include <stdio.h>
#include "jsonparse.h"
#include "options.h"

/* A change is significant when its Holm-adjusted p-value is below this. */
#define COMPARE_ALPHA 0.01
/*
 * and, for a histogram, when Cramer's V reaches this (Cohen's "small"
 * effect): with 10^5 samples a side, shifts too small to matter would
 * otherwise be called changes.
 */
#define COMPARE_MIN_CRAMERS_V 0.1

struct compare_side {
	const char *const *files;
	int nr_files;
};

struct compare_run {
	const char *file;
	struct jv summary;	/* the run's summary record */
	double duration_s;
};

/* Loaded runs of both sides, checked to be comparable. */
struct compare {
	const char *tool;
	struct compare_run *a, *b;
	int nr_a, nr_b;
};

/*
 * Reads and checks every file: schedscan JSON Lines of the tool, each
 * with a summary, all with the same metric set. 0, or -1 with a sentence
 * in err (the caller exits 2).
 */
int compare_load(struct compare *c, const char *tool, const struct compare_side *a,
		 const struct compare_side *b, char *err, size_t errlen);
void compare_free(struct compare *c);

/* The comparison as 80-column text; top: table rows shown (0: 10). */
int compare_text(const struct compare *c, FILE *out, int top);
/* The comparison as one JSON record ({"type":"compare",...}, docs/json.md). */
int compare_json(const struct compare *c, FILE *out, int top);

/*
 * The whole of --compare for a tool: load, print (and draw, with
 * svg_path), and the exit code (0, 1 when the output could not be
 * written, 2 when the files cannot be compared, with the sentence on
 * stderr).
 */
int compare_main(const char *tool, const struct compare_side *a,
		 const struct compare_side *b, bool json, int top, const char *svg_path);
/* compare_main() with the files, --json and --top of the command line. */
int compare_from_opts(const char *tool, const struct common_opts *opts);

#endif
