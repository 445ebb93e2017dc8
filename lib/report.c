// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bpfstats.h"
#include "hist.h"
#include "preflight.h"
#include "report.h"
#include "openmetrics.h"
#include "runloop.h"
#include "table.h"
#include "util.h"

void report_init(struct report *r, const char *tool, const char *mode,
		 bool json, bool timestamp, FILE *out)
{
	memset(r, 0, sizeof(*r));
	r->tool = tool;
	r->mode = mode;
	r->json = json;
	r->timestamp = timestamp;
	r->out = out;
	json_init(&r->writer);
}

void report_free(struct report *r)
{
	json_free(&r->writer);
}

/*
 * Prints text word-wrapped to 80 columns: the first line indented by
 * first, the others by indent.
 */
static void print_wrapped_from(FILE *out, const char *text, int first, int indent)
{
	bool line_empty = true;
	int column = first;

	fprintf(out, "%*s", first, "");

	while (*text) {
		int word = strcspn(text, " ");

		if (!line_empty && column + 1 + word > 80) {
			fprintf(out, "\n%*s", indent, "");
			column = indent;
			line_empty = true;
		}
		if (!line_empty) {
			fputc(' ', out);
			column++;
		}
		fprintf(out, "%.*s", word, text);
		column += word;
		line_empty = false;
		text += word;
		text += strspn(text, " ");
	}
	fputc('\n', out);
}

static void print_wrapped(FILE *out, const char *text, int indent)
{
	print_wrapped_from(out, text, 0, indent);
}

/* The length of the first words of a metric name, with their '_' (0: fewer words). */
static size_t words_length(const char *name, int words)
{
	size_t n = 0;

	while (words--) {
		n += strcspn(name + n, "_");
		if (name[n] != '_')
			return 0;
		n++;
	}
	return n;
}

/* Two metric names share their first words ("sis_" of sis_failed and sis_smt_hit). */
static bool same_words(const char *a, const char *b, int words)
{
	size_t n = words_length(a, words);

	return n && !strncmp(a, b, n);
}

/*
 * The banner's line of metrics: those not measured because of why
 * (non-NULL), then the tables missing for it, or the estimated ones (why
 * NULL), with three or more names of one first word shown once as
 * "sis_* (12)". Empty when there is none.
 */
static void metric_list(const struct report *r, const struct metric_value *metrics, int nr,
			const char *why, char *buf, size_t len)
{
	bool listed[256] = {}, picked[256] = {};
	int count = 0, words = 1;
	size_t used;

	for (int i = 0; i < nr && i < 256; i++) {
		picked[i] = why ? !metrics[i].available && !strcmp(metrics[i].why, why) :
				  metrics[i].available && metrics[i].estimated;
		count += picked[i];
	}
	for (int i = 0; why && i < r->nr_missing_tables; i++)
		count += !strcmp(r->missing_tables[i].why, why);
	buf[0] = '\0';
	if (!count)
		return;
	used = snprintf(buf, len, why ? "Not measured (%d):" : "Estimated (%d, marked ~):", count);
	/* Two words when one would gather nearly all ("numa_" of numascan's). */
	for (int i = 0; i < nr && i < 256 && words == 1; i++) {
		int same = 0;

		for (int j = 0; j < nr && j < 256 && picked[i]; j++)
			same += picked[j] && same_words(metrics[i].name, metrics[j].name, 1);
		if (4 * same > 3 * count)
			words = 2;
	}
	for (int i = 0; i < nr && i < 256 && used < len; i++) {
		int same = 0;

		if (!picked[i] || listed[i])
			continue;
		for (int j = i; j < nr && j < 256; j++)
			same += picked[j] && !listed[j] &&
				same_words(metrics[i].name, metrics[j].name, words);
		if (same >= 3) {
			for (int j = i; j < nr && j < 256; j++)
				if (picked[j] && same_words(metrics[i].name, metrics[j].name, words))
					listed[j] = true;
			used += snprintf(buf + used, len - used, " %.*s* (%d),",
					 (int)words_length(metrics[i].name, words), metrics[i].name,
					 same);
		} else {
			listed[i] = true;
			used += snprintf(buf + used, len - used, " %s,", metrics[i].name);
		}
	}
	for (int i = 0; why && i < r->nr_missing_tables && used < len; i++)
		if (!strcmp(r->missing_tables[i].why, why))
			used += snprintf(buf + used, len - used, " table %s,",
					 r->missing_tables[i].name);
	/* The last comma goes. */
	if (used < len && used > 0 && buf[used - 1] == ',')
		buf[used - 1] = '\0';
}

void report_table_missing(struct report *r, const char *name, const char *why)
{
	if (r->nr_missing_tables < REPORT_MAX_MISSING_TABLES)
		r->missing_tables[r->nr_missing_tables++] = (struct missing_table){ name, why };
}

/*
 * The distinct sentences of why metrics and tables are not measured, in
 * order of first use: metrics first, then tables. Returns how many.
 */
#define MAX_REASONS (256 + REPORT_MAX_MISSING_TABLES)

static int intern_reason(const char **reasons, int *nr, const char *why)
{
	for (int k = 0; k < *nr; k++)
		if (!strcmp(reasons[k], why))
			return k;
	reasons[*nr] = why;
	return (*nr)++;
}

static int missing_reasons(const struct report *r, const struct metric_value *metrics,
			   int nr_metrics, const char **reasons)
{
	int nr = 0;

	for (int i = 0; i < nr_metrics && i < 256; i++)
		if (!metrics[i].available)
			intern_reason(reasons, &nr, metrics[i].why);
	for (int i = 0; i < r->nr_missing_tables; i++)
		intern_reason(reasons, &nr, r->missing_tables[i].why);
	return nr;
}

void report_banner(struct report *r, const char *what, const char *metrics_address,
		   const char *note, const struct metric_value *metrics, int nr_metrics)
{
	const char *reasons[MAX_REASONS];
	int nr_reasons;
	char line[1024];

	if (r->json)
		return;
	fprintf(r->out, "Tracing %s... Hit Ctrl-C to end.\n", what);
	if (metrics_address)
		fprintf(r->out, "Serving Prometheus metrics at http://%s/metrics\n",
			metrics_address);
	if (note)
		print_wrapped(r->out, note, 4);
	/* Per reason, the metrics and tables it leaves out, then the estimates. */
	nr_reasons = missing_reasons(r, metrics, nr_metrics, reasons);
	for (int k = 0; k < nr_reasons; k++) {
		metric_list(r, metrics, nr_metrics, reasons[k], line, sizeof(line));
		print_wrapped(r->out, line, 4);
		snprintf(line, sizeof(line), "because %s", reasons[k]);
		print_wrapped_from(r->out, line, 4, 4);
	}
	metric_list(r, metrics, nr_metrics, NULL, line, sizeof(line));
	if (line[0])
		print_wrapped(r->out, line, 4);
	fflush(r->out);
}

static void print_clock(FILE *out, double when)
{
	time_t secs = (time_t)when;
	struct tm tm;
	char buf[16];

	localtime_r(&secs, &tm);
	strftime(buf, sizeof(buf), "%H:%M:%S", &tm);
	fprintf(out, "%s ", buf);
}

/*
 * The narrowest histogram m's window equals, following same_as down (a
 * system's over its node's over its LLC's), or NULL: printed instead.
 */
static const struct metric_value *same_histogram(const struct metric_value *metrics,
						 int nr_metrics, const struct metric_value *m)
{
	const struct metric_value *found = NULL;

	while (m && m->same_as) {
		const struct metric_value *below = NULL;

		for (int i = 0; i < nr_metrics && !below; i++)
			if (!strcmp(metrics[i].name, m->same_as))
				below = &metrics[i];
		if (!below || !below->available || !below->hist || !m->hist ||
		    below->hist->nr_slots != m->hist->nr_slots || below->sum != m->sum ||
		    memcmp(below->hist->slots, m->hist->slots,
			   m->hist->nr_slots * sizeof(m->hist->slots[0])))
			break;
		found = m = below;
	}
	return found;
}

/* The text of one window, rendered into out (a memory stream). */
static int text_window(struct report *r, FILE *out, const struct run_window *window,
		       const struct metric_value *metrics, int nr_metrics,
		       struct table *const *tables, int nr_tables, int top,
		       const struct prog_stat *stats, int nr_stats)
{
	double seconds = window->end_mono - window->start_mono;
	bool any_estimated = false;

	fputc('\n', out);
	if (window->final) {
		fprintf(out, "Summary: %.2f s, %d interval%s, ended by %s\n",
			seconds, window->intervals,
			window->intervals == 1 ? "" : "s", window->end_reason);
	} else {
		/* Reports follow one another: each says where it begins. */
		if (r->timestamp)
			print_clock(out, window->end);
		fprintf(out, "Interval %d: %.2f s\n", window->intervals, seconds);
	}
	fprintf(out, "%-34s %-10s %14s %14s\n", "METRIC", "TIER", "COUNT",
		"PER SEC");
	for (int i = 0; i < nr_metrics; i++) {
		const struct metric_value *m = &metrics[i];
		char tier[24];

		any_estimated |= m->available && m->estimated;
		if (!m->available || m->hist)
			continue;
		snprintf(tier, sizeof(tier), "%s%s", m->tier,
			 m->estimated ? "~" : "");
		if (m->is_ratio && isnan(m->ratio))
			fprintf(out, "%-34s %-10s %14s %14s\n", m->name,
				tier, "-", "-");
		else if (m->is_ratio)
			fprintf(out, "%-34s %-10s %13.2f%% %14s\n", m->name,
				tier, m->ratio, "-");
		else
			fprintf(out, "%-34s %-10s %14llu %14.1f\n", m->name,
				tier, m->value,
				seconds > 0 ? m->value / seconds : 0.0);
	}
	if (any_estimated)
		fprintf(out, "~: estimated from the hooks this tier has, not measured "
			"(docs/metrics.md)\n");
	for (int i = 0; i < nr_metrics && !ferror(out); i++) {
		const struct metric_value *m = &metrics[i];
		const struct metric_value *same = same_histogram(metrics, nr_metrics, m);

		if (!m->available || !m->hist)
			continue;
		fprintf(out, "\n%s (%s%s)", m->name, m->tier, m->estimated ? ", estimated" : "");
		if (same) {
			fprintf(out, ": same as %s\n", same->name);
			continue;
		}
		fprintf(out, ":\n");
		hist_print(m->hist, m->unit, out);
	}
	for (int i = 0; i < nr_tables && !ferror(out); i++)
		table_text(tables[i], out, top);
	if (nr_stats && !ferror(out)) {
		fprintf(out, "\n%-29s %11s %14s %10s %8s\n", "BPF PROGRAM",
			"RUN_CNT", "RUN_TIME_NS", "NS/EVENT", "MISSED");
		for (int i = 0; i < nr_stats; i++)
			fprintf(out, "%-29.29s %11llu %14llu %10.1f %8llu\n",
				stats[i].name, stats[i].run_cnt,
				stats[i].run_time_ns,
				prog_stat_ns_per_event(&stats[i]),
				stats[i].recursion_misses);
	}
	return fflush(out) || ferror(out) ? -1 : 0;
}

static void json_metric(struct json_writer *w, const struct metric_value *m)
{
	json_key(w, m->name);
	json_begin_object(w);
	if (m->hist) {
		json_key(w, "hist");
		hist_json(m->hist, m->unit, w);
	} else if (m->is_ratio) {
		json_key(w, "value");
		/* 0 / 0: no event to take a ratio of. */
		if (isnan(m->ratio))
			json_null(w);
		else
			json_double(w, m->ratio, 2);
		json_key(w, "unit");
		json_string(w, "percent");
		json_key(w, "denominator");
		json_u64(w, m->denominator);
	} else {
		json_key(w, "value");
		json_u64(w, m->value);
	}
	json_key(w, "tier");
	json_string(w, m->tier);
	json_key(w, "estimated");
	json_bool(w, m->estimated);
	json_end_object(w);
}

/*
 * "unavailable": metric name -> index in "unavailable_reasons", each
 * distinct sentence once: a few reasons cover dozens of metrics (34 of
 * numascan's on a kernel without fentry and kprobes, 8 KB a record when
 * each carried its sentence). "tables_unavailable" points into the same
 * array.
 */
static void json_unavailable(const struct report *r, struct json_writer *w,
			     const struct metric_value *metrics, int nr_metrics)
{
	const char *reasons[MAX_REASONS];
	int nr_reasons = missing_reasons(r, metrics, nr_metrics, reasons);
	bool any = false;

	for (int i = 0; i < nr_metrics && i < 256; i++)
		any |= !metrics[i].available;
	if (any) {
		json_key(w, "unavailable");
		json_begin_object(w);
		for (int i = 0; i < nr_metrics && i < 256; i++) {
			if (metrics[i].available)
				continue;
			json_key(w, metrics[i].name);
			json_i64(w, intern_reason(reasons, &nr_reasons, metrics[i].why));
		}
		json_end_object(w);
	}
	if (r->nr_missing_tables) {
		json_key(w, "tables_unavailable");
		json_begin_object(w);
		for (int i = 0; i < r->nr_missing_tables; i++) {
			json_key(w, r->missing_tables[i].name);
			json_i64(w, intern_reason(reasons, &nr_reasons, r->missing_tables[i].why));
		}
		json_end_object(w);
	}
	if (!nr_reasons)
		return;
	json_key(w, "unavailable_reasons");
	json_begin_array(w);
	for (int k = 0; k < nr_reasons; k++)
		json_string(w, reasons[k]);
	json_end_array(w);
}

/* A record's first fields: what it is, and of which tool, version, kernel and mode. */
static void json_record_begin(struct report *r, const char *type)
{
	struct json_writer *w = &r->writer;

	json_reset(w);
	json_begin_object(w);
	json_key(w, "type");
	json_string(w, type);
	json_key(w, "tool");
	json_string(w, r->tool);
	json_key(w, "version");
	json_string(w, SCHEDSCAN_VERSION);
	json_key(w, "kernel");
	json_string(w, kernel_release());
	json_key(w, "mode");
	json_string(w, r->mode);
}

static int json_window(struct report *r, const struct run_window *window,
		       const struct metric_value *metrics, int nr_metrics,
		       struct table *const *tables, int nr_tables,
		       const struct prog_stat *stats, int nr_stats)
{
	struct json_writer *w = &r->writer;

	json_record_begin(r, window->final ? "summary" : "interval");
	json_key(w, "start");
	json_double(w, window->start, 6);
	json_key(w, "end");
	json_double(w, window->end, 6);
	json_key(w, "duration_s");
	json_double(w, window->end_mono - window->start_mono, 6);
	if (window->final) {
		json_key(w, "intervals");
		json_i64(w, window->intervals);
		json_key(w, "end_reason");
		json_string(w, window->end_reason);
	}
	json_key(w, "metrics");
	json_begin_object(w);
	for (int i = 0; i < nr_metrics; i++)
		if (metrics[i].available)
			json_metric(w, &metrics[i]);
	json_end_object(w);
	json_unavailable(r, w, metrics, nr_metrics);
	for (int i = 0; i < nr_tables; i++)
		table_json(tables[i], w);
	if (window->final && nr_stats) {
		json_key(w, "prog_stats");
		json_begin_array(w);
		for (int i = 0; i < nr_stats; i++) {
			json_begin_object(w);
			json_key(w, "name");
			json_string(w, stats[i].name);
			json_key(w, "run_cnt");
			json_u64(w, stats[i].run_cnt);
			json_key(w, "run_time_ns");
			json_u64(w, stats[i].run_time_ns);
			json_key(w, "ns_per_event");
			json_double(w, prog_stat_ns_per_event(&stats[i]), 1);
			json_key(w, "recursion_misses");
			json_u64(w, stats[i].recursion_misses);
			json_end_object(w);
		}
		json_end_array(w);
	}
	json_end_object(w);
	if (r->capture && !w->failed) {
		strbuf_printf(r->capture, "%.*s\n", (int)w->len, w->buf);
		if (r->capture->failed)
			return -1;
	}
	return w->failed || w->depth ? -1 : 0;
}

/*
 * A window is rendered whole first, then written with one call that
 * waits for room rather than leave half a record behind
 * (run_write_record()): a reader of JSON Lines or of the text never gets
 * a cut report, even when a signal ends the tool while stdout is full.
 */
int report_window(struct report *r, const struct run_window *window,
		  const struct metric_value *metrics, int nr_metrics,
		  struct table *const *tables, int nr_tables, int top,
		  const struct prog_stat *stats, int nr_stats)
{
	struct json_writer *w = &r->writer;
	char *text = NULL;
	size_t len = 0;
	FILE *mem;
	int ret;

	if (r->json || r->capture) {
		if (json_window(r, window, metrics, nr_metrics, tables, nr_tables, stats,
				nr_stats))
			return -1;
	}
	if (r->json) {
		if (json_end_line(w))
			return -1;
		return run_write_record(fileno(r->out), w->buf, w->len);
	}
	mem = open_memstream(&text, &len);
	if (!mem)
		return -1;
	ret = text_window(r, mem, window, metrics, nr_metrics, tables, nr_tables, top, stats,
			  nr_stats);
	if (fclose(mem))
		ret = -1;
	if (!ret)
		ret = run_write_record(fileno(r->out), text, len);
	free(text);
	return ret;
}

void report_openmetrics(const struct report *r, const struct metric_value *metrics,
			int nr_metrics, struct strbuf *out)
{
	struct om_label labels[3];
	char family[160], help[256];
	bool any_missing = false;

	snprintf(family, sizeof(family), "schedscan_%s_info", r->tool);
	om_header(out, family, "gauge", "the tool, its version, the kernel and the --mode asked for");
	labels[0] = (struct om_label){ "version", SCHEDSCAN_VERSION };
	labels[1] = (struct om_label){ "kernel", kernel_release() };
	labels[2] = (struct om_label){ "mode", r->mode };
	om_sample_u64(out, family, NULL, labels, 3, 1);
	for (int i = 0; i < nr_metrics; i++) {
		const struct metric_value *m = &metrics[i];
		double divisor;

		if (!m->available) {
			any_missing = true;
			continue;
		}
		labels[0] = (struct om_label){ "tier", m->tier };
		labels[1] = (struct om_label){ "estimated", m->estimated ? "true" : "false" };
		snprintf(help, sizeof(help), "%s (docs/metrics.md)%s",
			 m->help ? m->help : m->name,
			 m->is_ratio ? ", over the whole run" : ", since the tool started");
		if (m->hist) {
			divisor = om_family_name(family, sizeof(family), r->tool, NULL,
						 m->name, "");
			om_header(out, family, "histogram", help);
			om_histogram(out, family, labels, 2, m->hist,
				     m->has_sum ? (double)m->sum : NAN, divisor);
		} else if (m->is_ratio) {
			om_family_name(family, sizeof(family), r->tool, NULL, m->name, "");
			om_header(out, family, "gauge", help);
			om_sample_double(out, family, NULL, labels, 2, m->ratio);
		} else {
			om_family_name(family, sizeof(family), r->tool, NULL, m->name, "_total");
			om_header(out, family, "counter", help);
			om_sample_u64(out, family, NULL, labels, 2, m->value);
		}
	}
	if (!any_missing)
		return;
	snprintf(family, sizeof(family), "schedscan_%s_unavailable", r->tool);
	om_header(out, family, "gauge", "1 for each metric this run cannot measure, with the reason");
	for (int i = 0; i < nr_metrics; i++) {
		if (metrics[i].available)
			continue;
		labels[0] = (struct om_label){ "metric", metrics[i].name };
		labels[1] = (struct om_label){ "reason", metrics[i].why ? metrics[i].why : "" };
		om_sample_u64(out, family, NULL, labels, 2, 1);
	}
}

static const char *const kind_names[] = {
	[METRIC_COUNTER] = "counter", [METRIC_HISTOGRAM] = "histogram", [METRIC_RATIO] = "ratio",
};

static void json_list(struct report *r, const struct metric_value *metrics, int nr_metrics,
		      struct table *const *tables, int nr_tables)
{
	struct json_writer *w = &r->writer;

	json_record_begin(r, "metrics");
	json_key(w, "metrics");
	json_begin_object(w);
	for (int i = 0; i < nr_metrics; i++) {
		if (!metrics[i].available)
			continue;
		json_key(w, metrics[i].name);
		json_begin_object(w);
		json_key(w, "kind");
		json_string(w, kind_names[metrics[i].kind]);
		json_key(w, "tier");
		json_string(w, metrics[i].tier);
		json_key(w, "estimated");
		json_bool(w, metrics[i].estimated);
		json_end_object(w);
	}
	json_end_object(w);
	json_key(w, "tables");
	json_begin_object(w);
	for (int i = 0; i < nr_tables; i++) {
		json_key(w, tables[i]->spec->name);
		json_begin_object(w);
		json_key(w, "tier");
		json_string(w, tables[i]->tier);
		json_key(w, "estimated");
		json_bool(w, tables[i]->estimated);
		json_end_object(w);
	}
	json_end_object(w);
	json_unavailable(r, w, metrics, nr_metrics);
	json_end_object(w);
}

/* One row of the text list: a reason's footnote number when not measured. */
static void list_row(FILE *out, int width, const char *name, const char *tier, bool estimated,
		     int footnote)
{
	if (footnote)
		fprintf(out, "%-*s %-10s not measured (%d)\n", width, name, "-", footnote);
	else
		fprintf(out, "%-*s %-10s %s\n", width, name, tier,
			estimated ? "estimated" : "measured");
}

static void text_list(struct report *r, FILE *out, const struct metric_value *metrics,
		      int nr_metrics, struct table *const *tables, int nr_tables)
{
	const char *reasons[MAX_REASONS];
	int nr_reasons = missing_reasons(r, metrics, nr_metrics, reasons);
	int width = 24, measured = 0, estimated = 0;
	char line[512];

	for (int i = 0; i < nr_metrics; i++) {
		if ((int)strlen(metrics[i].name) > width)
			width = (int)strlen(metrics[i].name);
		measured += metrics[i].available && !metrics[i].estimated;
		estimated += metrics[i].available && metrics[i].estimated;
	}
	for (int i = 0; i < nr_tables; i++)
		if ((int)strlen(tables[i]->spec->name) > width)
			width = (int)strlen(tables[i]->spec->name);
	/* Room for the tier and "not measured (NN)" in 80 columns. */
	if (width > 80 - 1 - 10 - 1 - 17)
		width = 80 - 1 - 10 - 1 - 17;
	snprintf(line, sizeof(line),
		 "%s on %s, --mode %s: of %d metrics %d measured, %d estimated, %d not "
		 "measured; of %d tables %d reported",
		 r->tool, kernel_release(), r->mode, nr_metrics, measured, estimated,
		 nr_metrics - measured - estimated, nr_tables + r->nr_missing_tables, nr_tables);
	print_wrapped(out, line, 4);
	fprintf(out, "\n%-*s %-10s %s\n", width, "METRIC", "TIER", "STATUS");
	for (int i = 0; i < nr_metrics; i++) {
		int footnote = 0;

		if (!metrics[i].available)
			footnote = 1 + intern_reason(reasons, &nr_reasons, metrics[i].why);
		list_row(out, width, metrics[i].name, metrics[i].tier, metrics[i].estimated,
			 footnote);
	}
	fprintf(out, "\n%-*s %-10s %s\n", width, "TABLE", "TIER", "STATUS");
	for (int i = 0; i < nr_tables; i++)
		list_row(out, width, tables[i]->spec->name, tables[i]->tier, tables[i]->estimated,
			 0);
	for (int i = 0; i < r->nr_missing_tables; i++)
		list_row(out, width, r->missing_tables[i].name, "none", false,
			 1 + intern_reason(reasons, &nr_reasons, r->missing_tables[i].why));
	if (nr_reasons)
		fputc('\n', out);
	for (int k = 0; k < nr_reasons; k++) {
		snprintf(line, sizeof(line), "(%d) %s", k + 1, reasons[k]);
		print_wrapped(out, line, 4);
	}
}

int report_list(struct report *r, const struct metric_value *metrics, int nr_metrics,
		struct table *const *tables, int nr_tables)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem;
	int ret;

	if (r->json) {
		json_list(r, metrics, nr_metrics, tables, nr_tables);
		if (r->writer.failed || r->writer.depth || json_end_line(&r->writer))
			return -1;
		return run_write_record(fileno(r->out), r->writer.buf, r->writer.len);
	}
	mem = open_memstream(&text, &len);
	if (!mem)
		return -1;
	text_list(r, mem, metrics, nr_metrics, tables, nr_tables);
	ret = fclose(mem) ? -1 : run_write_record(fileno(r->out), text, len);
	free(text);
	return ret;
}
