// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "output.h"
#include "plot.h"
#include "svg.h"
#include "util.h"

#define PLOT_MAX_ROWS 64
#define PLOT_MAX_GROUPS 16
#define PLOT_MAX_SERIES 8
#define PLOT_MAX_CHARTS 16

enum chart_kind {
	/* A histogram metric over the intervals. */
	CHART_HIST_OVER_TIME,
	/* A percent metric over the intervals. */
	CHART_METRIC_OVER_TIME,
	/* One series per table row: a *_ns value as a share of each interval. */
	CHART_TABLE_SHARE_OVER_TIME,
	/* The summary's table rows as groups, some of their counters as bars. */
	CHART_TABLE_BARS,
	/*
	 * The summary's table as a matrix: values[0] the row key, values[1]
	 * the column key, values[2] the count in the cell.
	 */
	CHART_TABLE_MATRIX,
};

struct chart_spec {
	const char *tool;
	enum chart_kind kind;
	const char *source;	/* metric or table */
	const char *values[4];	/* CHART_TABLE_*: the row values drawn */
	const char *title, *unit;
};

/* Which pictures each tool draws (docs/metrics.md names every source). */
static const struct chart_spec chart_specs[] = {
	{ "sisscan", CHART_HIST_OVER_TIME, "scan_depth", {}, "Scan depth per interval (share of the interval's domain searches)", "CPUs probed" },
	/* A source with a '*': a chart per metric of the run it matches, none if none does. */
	{ "sisscan", CHART_HIST_OVER_TIME, "filter_*_scan_depth", {}, "Scan depth the filter would give, per interval", "CPUs probed" },
	{ "sisscan", CHART_METRIC_OVER_TIME, "missed_idle_pct", {}, "Missed idle CPUs (% of placements)", "%" },
	{ "sisscan", CHART_TABLE_BARS, "breakdown", { "sis_search", "sis_domain_search", "missed_idle" }, "Per LLC over the run", "events" },
	{ "idlebal", CHART_TABLE_SHARE_OVER_TIME, "overload_llc", { "overloaded_idle_ns" }, "Overloaded while idle, per LLC (% of each interval)", "%" },
	{ "idlebal", CHART_TABLE_BARS, "domains", { "lb_balanced", "lb_failed", "lb_gained" }, "Balance passes per domain and idle type, outcomes", "passes" },
	{ "numascan", CHART_TABLE_BARS, "processes", { "numa_hint_faults", "numa_vma_skips", "user_page_faults" }, "Per process over the run", "events" },
	{ "numascan", CHART_TABLE_BARS, "vmas", { "numa_pte_updates", "numa_pte_updates_unfaulted", "numa_hint_faults" }, "Per VMA over the run: PTEs the scans marked (all, by threads that had not faulted there) and hint faults", "pages" },
	{ "numascan", CHART_TABLE_MATRIX, "node_pairs", { "cpu_node", "mem_node", "numa_task_faults" }, "Hint faults by the faulting CPU's node and the memory's node", NULL },
	{ "numascan", CHART_TABLE_MATRIX, "migration_pairs", { "from_node", "to_node", "numa_hint_fault_pages_migrated" }, "Pages hint faults migrated, by the node they left and the node they went to", NULL },
};

/* The intervals, or the summary alone when the run printed none. */
static size_t time_columns(const struct jv *records, size_t nr, const struct jv **cols)
{
	size_t n = 0;

	for (size_t i = 0; i < nr && n < 4096; i++) {
		const char *type = jv_string(jv_get(&records[i], "type"));

		if (type && !strcmp(type, "interval"))
			cols[n++] = &records[i];
	}
	for (size_t i = 0; i < nr && !n; i++) {
		const char *type = jv_string(jv_get(&records[i], "type"));

		if (type && !strcmp(type, "summary"))
			cols[n++] = &records[i];
	}
	return n;
}

static const struct jv *summary_of(const struct jv *records, size_t nr)
{
	for (size_t i = nr; i-- > 0;) {
		const char *type = jv_string(jv_get(&records[i], "type"));

		if (type && !strcmp(type, "summary"))
			return &records[i];
	}
	return nr ? &records[nr - 1] : NULL;
}

struct bucket_row {
	unsigned long long low, high;
	bool open;
};

static int by_low(const void *x, const void *y)
{
	const struct bucket_row *a = x, *b = y;

	return a->low < b->low ? -1 : a->low > b->low;
}

static size_t bucket_rows(const struct jv *const *cols, size_t n, const char *metric,
			  struct bucket_row *rows)
{
	size_t nr = 0;

	for (size_t c = 0; c < n; c++) {
		const struct jv *b = jv_get(jv_get(jv_get(jv_get(cols[c], "metrics"), metric), "hist"), "buckets");

		for (size_t i = 0; b && b->type == JV_ARRAY && i < b->n; i++) {
			unsigned long long low, high = 0;
			bool open = jv_get(&b->items[i], "high") && jv_get(&b->items[i], "high")->type == JV_NULL;
			size_t k;

			if (!jv_u64(jv_get(&b->items[i], "low"), &low))
				continue;
			if (!open)
				jv_u64(jv_get(&b->items[i], "high"), &high);
			for (k = 0; k < nr && rows[k].low != low; k++)
				;
			if (k == nr && nr < PLOT_MAX_ROWS)
				rows[nr++] = (struct bucket_row){ low, high, open };
		}
	}
	qsort(rows, nr, sizeof(*rows), by_low);
	return nr;
}

static void bucket_label(const struct bucket_row *r, char *buf, size_t len)
{
	if (r->open)
		snprintf(buf, len, "%llu+", r->low);
	else if (r->low == r->high)
		snprintf(buf, len, "%llu", r->low);
	else
		snprintf(buf, len, "%llu-%llu", r->low, r->high);
}

/*
 * Adds one record's buckets of a histogram metric into counts[row] by
 * their low bound; returns the samples added.
 */
static double add_hist_counts(const struct jv *record, const char *metric,
			      const struct bucket_row *rows, size_t ny, double *counts)
{
	const struct jv *b = jv_get(jv_get(jv_get(jv_get(record, "metrics"), metric), "hist"), "buckets");
	double total = 0;

	for (size_t i = 0; b && b->type == JV_ARRAY && i < b->n; i++) {
		unsigned long long low, count;

		if (!jv_u64(jv_get(&b->items[i], "low"), &low) ||
		    !jv_u64(jv_get(&b->items[i], "count"), &count))
			continue;
		for (size_t iy = 0; iy < ny; iy++)
			if (rows[iy].low == low)
				counts[iy] += (double)count;
		total += (double)count;
	}
	return total;
}

static bool draw_hist_over_time(struct svg *s, const struct chart_box *box, const struct chart_spec *spec,
				const struct jv *const *cols, size_t n)
{
	struct bucket_row rows[PLOT_MAX_ROWS] = { 0 };
	char labels[PLOT_MAX_ROWS][32];
	const char *label_ptrs[PLOT_MAX_ROWS];
	size_t ny = bucket_rows(cols, n, spec->source, rows);
	double *share;

	if (!ny)
		return false;
	share = calloc(n * ny, sizeof(*share));
	if (!share)
		return false;
	for (size_t iy = 0; iy < ny; iy++) {
		bucket_label(&rows[iy], labels[iy], sizeof(labels[iy]));
		label_ptrs[iy] = labels[iy];
	}
	for (size_t c = 0; c < n; c++) {
		double total = add_hist_counts(cols[c], spec->source, rows, ny, share + c * ny);

		for (size_t iy = 0; iy < ny && total > 0; iy++)
			share[c * ny + iy] /= total;
	}
	chart_heatmap(s, box, spec->title, "interval", spec->unit, n, ny, share, label_ptrs);
	free(share);
	return true;
}

static bool draw_metric_over_time(struct svg *s, const struct chart_box *box,
				  const struct chart_spec *spec, const struct jv *const *cols, size_t n)
{
	double *values = calloc(n, sizeof(*values));
	bool any = false;

	if (!values)
		return false;
	for (size_t c = 0; c < n; c++) {
		const struct jv *m = jv_get(jv_get(cols[c], "metrics"), spec->source);

		values[c] = NAN;
		if (m && jv_number(jv_get(m, "value"), &values[c]))
			any = true;
	}
	if (any) {
		const struct chart_series series = { spec->source, values };

		chart_lines(s, box, spec->title, "interval", spec->unit, n, &series, 1);
	}
	free(values);
	return any;
}

/* A row's name: its first label, else its key fields. */
static void row_name(const struct jv *row, const char *by, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < row->n; i++)
		if (row->items[i].type == JV_STRING) {
			snprintf(buf, len, "%s", row->items[i].string);
			/* idlebal's domains: the name and the idle type together. */
			for (size_t k = i + 1; k < row->n; k++)
				if (row->items[k].type == JV_STRING) {
					used = strlen(buf);
					snprintf(buf + used, len - used, " %s", row->items[k].string);
					break;
				}
			return;
		}
	for (size_t i = 0; i < row->n && used < len; i++) {
		unsigned long long u;

		if (by && strstr(by, row->keys[i]) && jv_u64(&row->items[i], &u))
			used += (size_t)snprintf(buf + used, len - used, "%s%s %llu", used ? " " : "",
						 row->keys[i], u);
	}
}

static bool draw_table_share_over_time(struct svg *s, const struct chart_box *box,
				       const struct chart_spec *spec, const struct jv *const *cols,
				       size_t n)
{
	char names[PLOT_MAX_SERIES][48];
	struct chart_series series[PLOT_MAX_SERIES];
	double *values = calloc(n * PLOT_MAX_SERIES, sizeof(*values));
	size_t nr = 0;

	if (!values)
		return false;
	for (size_t i = 0; i < n * PLOT_MAX_SERIES; i++)
		values[i] = 0;
	for (size_t c = 0; c < n; c++) {
		const struct jv *t = jv_get(cols[c], spec->source);
		const struct jv *rows = jv_get(t, "rows");
		double duration = 0;

		jv_number(jv_get(cols[c], "duration_s"), &duration);
		for (size_t r = 0; rows && rows->type == JV_ARRAY && r < rows->n; r++) {
			char name[48];
			unsigned long long ns;
			size_t k;

			row_name(&rows->items[r], jv_string(jv_get(t, "by")), name, sizeof(name));
			if (!jv_u64(jv_get(&rows->items[r], spec->values[0]), &ns))
				continue;
			for (k = 0; k < nr && strcmp(names[k], name); k++)
				;
			if (k == nr) {
				if (nr == PLOT_MAX_SERIES)
					continue;
				snprintf(names[nr++], sizeof(names[0]), "%s", name);
			}
			values[k * n + c] = duration > 0 ? 100 * (double)ns / (duration * 1e9) : 0;
		}
	}
	for (size_t k = 0; k < nr; k++)
		series[k] = (struct chart_series){ names[k], values + k * n };
	if (nr)
		chart_lines(s, box, spec->title, "interval", spec->unit, n, series, nr);
	free(values);
	return nr > 0;
}

static bool draw_table_bars(struct svg *s, const struct chart_box *box, const struct chart_spec *spec,
			    const struct jv *summary)
{
	const struct jv *t = jv_get(summary, spec->source);
	const struct jv *rows = jv_get(t, "rows");
	char names[PLOT_MAX_GROUPS][48];
	const char *group_labels[PLOT_MAX_GROUPS], *series_names[4];
	double values[4 * PLOT_MAX_GROUPS];
	size_t nr_series = 0, nr_groups;

	if (!rows || rows->type != JV_ARRAY || !rows->n)
		return false;
	while (nr_series < 4 && spec->values[nr_series]) {
		series_names[nr_series] = spec->values[nr_series];
		nr_series++;
	}
	nr_groups = rows->n < PLOT_MAX_GROUPS ? rows->n : PLOT_MAX_GROUPS;
	for (size_t g = 0; g < nr_groups; g++) {
		row_name(&rows->items[g], jv_string(jv_get(t, "by")), names[g], sizeof(names[g]));
		group_labels[g] = names[g];
		for (size_t k = 0; k < nr_series; k++) {
			unsigned long long v = 0;

			jv_u64(jv_get(&rows->items[g], spec->values[k]), &v);
			values[k * nr_groups + g] = (double)v;
		}
	}
	chart_bars(s, box, spec->title, spec->unit, nr_groups, group_labels, nr_series, series_names,
		   values);
	return true;
}

/* Where key is in keys[0..*n), adding it (up to PLOT_MAX_GROUPS) if new; -1 if full. */
static int key_slot(unsigned long long *keys, size_t *n, unsigned long long key)
{
	for (size_t i = 0; i < *n; i++)
		if (keys[i] == key)
			return (int)i;
	if (*n == PLOT_MAX_GROUPS)
		return -1;
	keys[*n] = key;
	return (int)(*n)++;
}

static int by_value(const void *x, const void *y)
{
	unsigned long long a = *(const unsigned long long *)x, b = *(const unsigned long long *)y;

	return a < b ? -1 : a > b;
}

static bool draw_table_matrix(struct svg *s, const struct chart_box *box,
			      const struct chart_spec *spec, const struct jv *summary)
{
	const struct jv *rows = jv_get(jv_get(summary, spec->source), "rows");
	unsigned long long ykeys[PLOT_MAX_GROUPS], xkeys[PLOT_MAX_GROUPS];
	char ynames[PLOT_MAX_GROUPS][24], xnames[PLOT_MAX_GROUPS][24];
	const char *ylabels[PLOT_MAX_GROUPS], *xlabels[PLOT_MAX_GROUPS];
	double count[PLOT_MAX_GROUPS * PLOT_MAX_GROUPS] = { 0 };
	size_t ny = 0, nx = 0;

	if (!rows || rows->type != JV_ARRAY || !rows->n)
		return false;
	/* The keys first, sorted, so that the axes read in order. */
	for (size_t r = 0; r < rows->n; r++) {
		unsigned long long y, x;

		if (jv_u64(jv_get(&rows->items[r], spec->values[0]), &y) &&
		    jv_u64(jv_get(&rows->items[r], spec->values[1]), &x)) {
			key_slot(ykeys, &ny, y);
			key_slot(xkeys, &nx, x);
		}
	}
	qsort(ykeys, ny, sizeof(ykeys[0]), by_value);
	qsort(xkeys, nx, sizeof(xkeys[0]), by_value);
	for (size_t r = 0; r < rows->n; r++) {
		unsigned long long y, x, v = 0;
		int iy, ix;

		if (!jv_u64(jv_get(&rows->items[r], spec->values[0]), &y) ||
		    !jv_u64(jv_get(&rows->items[r], spec->values[1]), &x))
			continue;
		iy = key_slot(ykeys, &ny, y);
		ix = key_slot(xkeys, &nx, x);
		if (iy < 0 || ix < 0)
			continue;
		jv_u64(jv_get(&rows->items[r], spec->values[2]), &v);
		count[(size_t)ix * ny + (size_t)iy] += (double)v;
	}
	for (size_t i = 0; i < ny; i++) {
		snprintf(ynames[i], sizeof(ynames[i]), "%llu", ykeys[i]);
		ylabels[i] = ynames[i];
	}
	for (size_t i = 0; i < nx; i++) {
		snprintf(xnames[i], sizeof(xnames[i]), "%llu", xkeys[i]);
		xlabels[i] = xnames[i];
	}
	if (!nx || !ny)
		return false;
	chart_matrix(s, box, spec->title, spec->values[1], spec->values[0], nx, ny, count, xlabels,
		     ylabels);
	return true;
}

/*
 * The tool's charts, a source with a '*' expanded to the summary's metrics
 * it matches (their titles in titles[]); returns how many.
 */
static size_t plan_charts(const char *tool, const struct jv *summary, struct chart_spec *plan,
			  char (*titles)[160], size_t max)
{
	const struct jv *metrics = jv_get(summary, "metrics");
	size_t n = 0;

	for (size_t i = 0; i < sizeof(chart_specs) / sizeof(chart_specs[0]) && n < max; i++) {
		const struct chart_spec *spec = &chart_specs[i];

		if (strcmp(spec->tool, tool))
			continue;
		if (!strchr(spec->source, '*')) {
			plan[n++] = *spec;
			continue;
		}
		for (size_t k = 0; metrics && k < metrics->n && n < max; k++) {
			if (fnmatch(spec->source, metrics->keys[k], 0))
				continue;
			plan[n] = *spec;
			plan[n].source = metrics->keys[k];
			snprintf(titles[n], sizeof(titles[n]), "%s: %s", spec->title, metrics->keys[k]);
			plan[n].title = titles[n];
			n++;
		}
	}
	return n;
}

int plot_run(const char *tool, const struct jv *records, size_t nr, FILE *out, char *err,
	     size_t errlen)
{
	const struct jv **cols = calloc(nr ? nr : 1, sizeof(*cols));
	const struct jv *summary = summary_of(records, nr);
	size_t n = cols ? time_columns(records, nr, cols) : 0, drawn = 0, planned;
	struct chart_spec plan[PLOT_MAX_CHARTS];
	char titles[PLOT_MAX_CHARTS][160];
	struct svg s;
	char title[128];
	int ret;

	if (!cols || !summary || !n) {
		free(cols);
		return errmsg(err, errlen, "--svg: the run has no record to draw");
	}
	planned = plan_charts(tool, summary, plan, titles, PLOT_MAX_CHARTS);
	snprintf(title, sizeof(title), "%s, %zu interval%s", tool, n, n > 1 ? "s" : "");
	svg_begin(&s, out, PLOT_WIDTH, (int)(planned * PLOT_CHART_HEIGHT + 10), title);
	for (size_t i = 0; i < planned; i++) {
		const struct chart_spec *spec = &plan[i];
		struct chart_box box = { 0, 5 + (double)drawn * PLOT_CHART_HEIGHT, PLOT_WIDTH,
					 PLOT_CHART_HEIGHT - 10 };
		bool ok = false;

		switch (spec->kind) {
		case CHART_HIST_OVER_TIME:
			ok = draw_hist_over_time(&s, &box, spec, cols, n);
			break;
		case CHART_METRIC_OVER_TIME:
			ok = draw_metric_over_time(&s, &box, spec, cols, n);
			break;
		case CHART_TABLE_SHARE_OVER_TIME:
			ok = draw_table_share_over_time(&s, &box, spec, cols, n);
			break;
		case CHART_TABLE_BARS:
			ok = draw_table_bars(&s, &box, spec, summary);
			break;
		case CHART_TABLE_MATRIX:
			ok = draw_table_matrix(&s, &box, spec, summary);
			break;
		}
		if (!ok) {
			svg_text(&s, PLOT_WIDTH / 2.0, box.y + box.h / 2, "middle", 12, false,
				 "%s: not measured in this run", spec->source);
		}
		drawn++;
	}
	ret = svg_end(&s);
	free(cols);
	if (ret)
		return errmsg(err, errlen, "--svg: writing the picture failed: %s", strerror(errno));
	return 0;
}

int plot_run_text(const char *tool, const char *text, size_t len, const char *path, char *err,
		  size_t errlen)
{
	struct jv *records = NULL;
	size_t nr = 0, cap = 0, pos = 0;
	struct output_file out;
	int ret = -1;

	while (pos < len) {
		size_t end = pos;

		while (end < len && text[end] != '\n')
			end++;
		if (end > pos) {
			if (nr == cap) {
				size_t n = cap ? cap * 2 : 64;
				struct jv *bigger = realloc(records, n * sizeof(*bigger));

				if (!bigger) {
					errmsg(err, errlen, "--svg: out of memory");
					goto out;
				}
				records = bigger;
				cap = n;
			}
			if (jv_parse(text + pos, end - pos, &records[nr], err, errlen))
				goto out;
			nr++;
		}
		pos = end + 1;
	}
	if (output_file_begin(&out, "--svg", path, err, errlen))
		goto out;
	ret = output_file_commit(&out, plot_run(tool, records, nr, out.f, err, errlen), err,
				 errlen);
out:
	for (size_t i = 0; i < nr; i++)
		jv_free(&records[i]);
	free(records);
	return ret;
}

int plot_compare(const struct compare *c, FILE *out, char *err, size_t errlen)
{
	const struct jv *metrics = jv_get(&c->a[0].summary, "metrics");
	size_t nr_hists = 0, drawn = 0;
	struct svg s;
	char title[128];

	for (size_t i = 0; metrics && i < metrics->n; i++)
		nr_hists += jv_get(&metrics->items[i], "hist") != NULL;
	if (!nr_hists)
		return errmsg(err, errlen, "--svg: these runs have no histogram to compare");
	snprintf(title, sizeof(title), "%s: A (%d run%s) against B (%d run%s)", c->tool, c->nr_a,
		 c->nr_a > 1 ? "s" : "", c->nr_b, c->nr_b > 1 ? "s" : "");
	svg_begin(&s, out, PLOT_WIDTH, (int)(nr_hists * PLOT_CHART_HEIGHT + 10), title);
	for (size_t i = 0; i < metrics->n; i++) {
		const char *name = metrics->keys[i];
		const struct jv *cols[2 * 64];
		struct bucket_row rows[PLOT_MAX_ROWS] = { 0 };
		char labels[PLOT_MAX_ROWS][32], chart_title[160];
		const char *label_ptrs[PLOT_MAX_ROWS], *series[2] = { "A", "B" };
		double values[2 * PLOT_MAX_ROWS] = { 0 }, totals[2] = { 0 };
		struct chart_box box = { 0, 5 + (double)drawn * PLOT_CHART_HEIGHT, PLOT_WIDTH,
					 PLOT_CHART_HEIGHT - 10 };
		size_t n = 0, ny;

		if (!jv_get(&metrics->items[i], "hist"))
			continue;
		for (int r = 0; r < c->nr_a && n < 64; r++)
			cols[n++] = &c->a[r].summary;
		for (int r = 0; r < c->nr_b && n < 128; r++)
			cols[n++] = &c->b[r].summary;
		ny = bucket_rows(cols, n, name, rows);
		for (size_t iy = 0; iy < ny; iy++) {
			bucket_label(&rows[iy], labels[iy], sizeof(labels[iy]));
			label_ptrs[iy] = labels[iy];
		}
		for (size_t col = 0; col < n; col++) {
			size_t side = col >= (size_t)c->nr_a;

			totals[side] += add_hist_counts(cols[col], name, rows, ny, values + side * ny);
		}
		for (int side = 0; side < 2; side++)
			for (size_t iy = 0; iy < ny; iy++)
				values[(size_t)side * ny + iy] = totals[side] > 0 ?
					100 * values[(size_t)side * ny + iy] / totals[side] : 0;
		/* chart_bars reads values[series * nr_groups + group]: A's row, then B's. */
		snprintf(chart_title, sizeof(chart_title), "%s (%s): share of samples per bucket, A against B",
			 name, jv_string(jv_get(jv_get(&metrics->items[i], "hist"), "unit")) ?: "?");
		chart_bars(&s, &box, chart_title, "%", ny, label_ptrs, 2, series, values);
		drawn++;
	}
	if (svg_end(&s))
		return errmsg(err, errlen, "--svg: writing the picture failed: %s", strerror(errno));
	return 0;
}

int plot_compare_file(const struct compare *c, const char *path, char *err, size_t errlen)
{
	struct output_file out;

	if (output_file_begin(&out, "--svg", path, err, errlen))
		return -1;
	return output_file_commit(&out, plot_compare(c, out.f, err, errlen), err, errlen);
}
