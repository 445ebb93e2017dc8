// SPDX-License-Identifier: GPL-2.0
#include <math.h>
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

/* Prints text word-wrapped to 80 columns, continuation lines indented. */
static void print_wrapped(FILE *out, const char *text, int indent)
{
	bool line_empty = true;
	int column = 0;

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

void report_banner(struct report *r, const char *what, const char *note,
		   const struct metric_value *metrics, int nr_metrics)
{
	char line[1024];

	if (r->json)
		return;
	fprintf(r->out, "Tracing %s... Hit Ctrl-C to end.\n", what);
	if (note)
		print_wrapped(r->out, note, 4);
	/* One line per distinct reason, naming every metric it leaves out. */
	for (int i = 0; i < nr_metrics; i++) {
		size_t used;
		bool seen = false;

		if (metrics[i].available)
			continue;
		for (int j = 0; j < i && !seen; j++)
			seen = !metrics[j].available &&
			       !strcmp(metrics[j].why, metrics[i].why);
		if (seen)
			continue;
		used = snprintf(line, sizeof(line), "Not measured: %s", metrics[i].name);
		for (int j = i + 1; j < nr_metrics && used < sizeof(line); j++)
			if (!metrics[j].available &&
			    !strcmp(metrics[j].why, metrics[i].why))
				used += snprintf(line + used, sizeof(line) - used,
						 ", %s", metrics[j].name);
		if (used < sizeof(line))
			snprintf(line + used, sizeof(line) - used, " (%s)",
				 metrics[i].why);
		print_wrapped(r->out, line, 4);
	}
	fflush(r->out);
}

static void print_clock(FILE *out, double when)
{
	time_t secs = (time_t)when;
	struct tm tm;
	char buf[16];

	localtime_r(&secs, &tm);
	strftime(buf, sizeof(buf), "%H:%M:%S", &tm);
	fprintf(out, "%s\n", buf);
}

static int text_window(struct report *r, const struct run_window *window,
		       const struct metric_value *metrics, int nr_metrics,
		       struct table *const *tables, int nr_tables, int top,
		       const struct prog_stat *stats, int nr_stats)
{
	double seconds = window->end_mono - window->start_mono;
	FILE *out = r->out;

	fputc('\n', out);
	if (window->final)
		fprintf(out, "Summary: %.2f s, %d interval%s, ended by %s\n",
			seconds, window->intervals,
			window->intervals == 1 ? "" : "s", window->end_reason);
	else if (r->timestamp)
		print_clock(out, window->end);
	fprintf(out, "%-34s %-10s %14s %14s\n", "METRIC", "TIER", "COUNT",
		"PER SEC");
	for (int i = 0; i < nr_metrics; i++) {
		const struct metric_value *m = &metrics[i];
		char tier[24];

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
	/*
	 * Once a write failed (a reader gone or stalled), stop rendering;
	 * the flush below says why.
	 */
	for (int i = 0; i < nr_metrics && !ferror(out); i++) {
		const struct metric_value *m = &metrics[i];

		if (!m->available || !m->hist)
			continue;
		fprintf(out, "\n%s (%s%s):\n", m->name, m->tier,
			m->estimated ? ", estimated" : "");
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
	/* A full disk or a closed stdout is an error, never silence. */
	if (fflush(out) || ferror(out))
		return -1;
	return 0;
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

static int json_window(struct report *r, const struct run_window *window,
		       const struct metric_value *metrics, int nr_metrics,
		       struct table *const *tables, int nr_tables,
		       const struct prog_stat *stats, int nr_stats)
{
	struct json_writer *w = &r->writer;
	bool any_missing = false;

	json_reset(w);
	json_begin_object(w);
	json_key(w, "type");
	json_string(w, window->final ? "summary" : "interval");
	json_key(w, "tool");
	json_string(w, r->tool);
	json_key(w, "version");
	json_string(w, SCHEDSCAN_VERSION);
	json_key(w, "kernel");
	json_string(w, kernel_release());
	json_key(w, "mode");
	json_string(w, r->mode);
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
	for (int i = 0; i < nr_metrics; i++) {
		if (metrics[i].available)
			json_metric(w, &metrics[i]);
		else
			any_missing = true;
	}
	json_end_object(w);
	if (any_missing) {
		json_key(w, "unavailable");
		json_begin_object(w);
		for (int i = 0; i < nr_metrics; i++) {
			if (metrics[i].available)
				continue;
			json_key(w, metrics[i].name);
			json_string(w, metrics[i].why);
		}
		json_end_object(w);
	}
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
	return r->json ? json_emit_line(w, r->out) : 0;
}

int report_window(struct report *r, const struct run_window *window,
		  const struct metric_value *metrics, int nr_metrics,
		  struct table *const *tables, int nr_tables, int top,
		  const struct prog_stat *stats, int nr_stats)
{
	if (r->json)
		return json_window(r, window, metrics, nr_metrics, tables,
				   nr_tables, stats, nr_stats);
	if (r->capture && json_window(r, window, metrics, nr_metrics, tables, nr_tables,
				      stats, nr_stats))
		return -1;
	return text_window(r, window, metrics, nr_metrics, tables, nr_tables,
			   top, stats, nr_stats);
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
