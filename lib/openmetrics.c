// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "escape.h"
#include "hist.h"
#include "openmetrics.h"
#include "util.h"

double om_family_name(char *buf, size_t len, const char *tool, const char *row,
		      const char *name, const char *suffix)
{
	size_t n = strlen(name);
	bool ns = metric_is_duration(name);

	snprintf(buf, len, "schedscan_%s_%s%s%.*s%s%s", tool, row ? row : "",
		 row ? "_" : "", (int)(ns ? n - 3 : n), name, ns ? "_seconds" : "",
		 suffix);
	return ns ? 1e9 : 1.0;
}

/*
 * HELP text escapes backslash and newline, a label value the double quote
 * too (the exposition format's only escapes). Both must be UTF-8: a
 * scrape with one bad byte is dropped whole, so what is not (names are in
 * their display form already, lib/escape.h) becomes U+FFFD, as does a
 * control character, which no parser needs to see.
 */
static void om_escaped(struct strbuf *b, const char *text, bool label_value)
{
	size_t n = strlen(text);

	for (size_t i = 0; i < n;) {
		unsigned int cp;
		size_t len = utf8_sequence(text + i, n - i, &cp);

		if (text[i] == '\\' || (label_value && text[i] == '"'))
			strbuf_printf(b, "\\%c", text[i]);
		else if (text[i] == '\n')
			strbuf_printf(b, "\\n");
		else if (!len || cp < 0x20)
			strbuf_printf(b, UTF8_REPLACEMENT);
		else
			strbuf_printf(b, "%.*s", (int)len, text + i);
		i += len ? len : 1;
	}
}

void om_header(struct strbuf *b, const char *family, const char *type,
	       const char *help)
{
	strbuf_printf(b, "# HELP %s ", family);
	om_escaped(b, help, false);
	strbuf_printf(b, "\n# TYPE %s %s\n", family, type);
}

static void labels_out(struct strbuf *b, const struct om_label *labels,
		       int nr_labels)
{
	if (!nr_labels)
		return;
	strbuf_printf(b, "{");
	for (int i = 0; i < nr_labels; i++) {
		strbuf_printf(b, "%s%s=\"", i ? "," : "", labels[i].name);
		om_escaped(b, labels[i].value, true);
		strbuf_printf(b, "\"");
	}
	strbuf_printf(b, "}");
}

void om_sample_u64(struct strbuf *b, const char *family, const char *suffix,
		   const struct om_label *labels, int nr_labels,
		   unsigned long long value)
{
	strbuf_printf(b, "%s%s", family, suffix ? suffix : "");
	labels_out(b, labels, nr_labels);
	strbuf_printf(b, " %llu\n", value);
}

void om_sample_double(struct strbuf *b, const char *family, const char *suffix,
		      const struct om_label *labels, int nr_labels, double value)
{
	strbuf_printf(b, "%s%s", family, suffix ? suffix : "");
	labels_out(b, labels, nr_labels);
	if (isnan(value))
		strbuf_printf(b, " NaN\n");
	else
		strbuf_printf(b, " %.15g\n", value);
}

void om_histogram(struct strbuf *b, const char *family,
		  const struct om_label *labels, int nr_labels,
		  const struct hist *h, double sum, double divisor)
{
	struct om_label all[OM_MAX_LABELS + 1];
	unsigned long long cumulative = 0;
	char le[48];

	if (nr_labels > OM_MAX_LABELS)
		nr_labels = OM_MAX_LABELS;
	for (int i = 0; i < nr_labels; i++)
		all[i] = labels[i];
	all[nr_labels].name = "le";
	all[nr_labels].value = le;
	for (unsigned int k = 0; k < h->nr_slots; k++) {
		unsigned long long low, high;

		hist_slot_range(h, k, &low, &high);
		cumulative += h->slots[k];
		/* The last slot is open-ended: it is the +Inf bucket. */
		if (k + 1 == h->nr_slots)
			break;
		snprintf(le, sizeof(le), "%.15g", (double)high / divisor);
		om_sample_u64(b, family, "_bucket", all, nr_labels + 1, cumulative);
	}
	snprintf(le, sizeof(le), "+Inf");
	om_sample_u64(b, family, "_bucket", all, nr_labels + 1, hist_total(h));
	om_sample_double(b, family, "_sum", labels, nr_labels, sum / divisor);
	om_sample_u64(b, family, "_count", labels, nr_labels, hist_total(h));
}
