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

/*
 * What --compare reads at most, so that a file it is handed (/dev/zero,
 * a file still growing, a crafted record) cannot take the host's memory.
 * A line is one record. The largest the tools write are numascan's
 * summaries: 10-44 KB on the 2-CPU host; at its tables' limits (10240
 * processes of ~300 bytes, 16384 VMAs of ~450, 8192 node pairs of ~150)
 * about 12 MB, 20 MB if every name were escaped byte by byte; idlebal
 * --per-cpu on 1024 CPUs (12288 domain rows of ~470 bytes) about 6 MB:
 * 64 MiB is 3 times the largest. A file is read a line at a time, so
 * its size costs time, not memory (~100 MB/s here, 3 MB of RSS for a
 * 1 GB file): 1 GiB holds a day of 1 s intervals of a 10 KB record.
 */
#define COMPARE_MAX_LINE_MIB 64
#define COMPARE_MAX_FILE_MIB 1024
/*
 * A record of the tools spends 22 to 64 bytes a JSON value (measured on
 * all three; a numascan process row, 270 bytes for 12), so a line at the
 * bound holds some 3 million; a tree costs ~64 bytes a value, and a
 * crafted line of tiny values ("[0,0,...": 2 bytes each) 32 times its
 * length (2 GiB at 64 MiB) without this bound.
 */
#define COMPARE_MAX_VALUES (4u << 20)
/*
 * The most metrics of a record and buckets of a histogram: sisscan with
 * every --filter has under 150 metrics, the widest histogram 256 linear
 * slots; more is not a run of the tools (and each costs a look-up in
 * every run).
 */
#define COMPARE_MAX_METRICS 4096
#define COMPARE_MAX_BUCKETS 4096

/*
 * Calls each_line on every line of a regular file (without its '\n'; the
 * last line may lack one), numbered from 1, reading at most max_file
 * bytes and lines of at most max_line. A path that is not a regular file
 * (a FIFO, a device, a directory) is refused without reading from it.
 * 0, or -1 with a sentence in err (each_line's own, if it returned -1).
 */
typedef int (*compare_line_fn)(const char *line, size_t len, size_t line_no, void *ctx,
			       char *err, size_t errlen);
int compare_read_lines(const char *path, unsigned long long max_file, size_t max_line,
		       compare_line_fn each_line, void *ctx, char *err, size_t errlen);

struct compare_side {
	const char *const *files;
	int nr_files;
};

struct compare_run {
	const char *file;
	struct jv summary;	/* the run's summary record */
	size_t summary_line;	/* its line in file, for the sentences that refuse it */
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
 * with a summary, every record valid against docs/json.md's schema in
 * what --compare reads (counters non-negative 64-bit integers, ratios
 * non-negative with their denominator, histogram buckets increasing and
 * non-empty, table rows of integers and labels), all runs with the same
 * metrics measured by the same tiers. 0, or -1 with a sentence in err
 * naming the file, line and field (the caller exits 2).
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
