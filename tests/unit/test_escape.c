// SPDX-License-Identifier: GPL-2.0
/*
 * Hostile names (lib/escape.h) through each writer: the display form,
 * and the JSON, OpenMetrics and SVG writers given raw bytes anyway.
 */
#include "escape.h"
#include "json.h"
#include "openmetrics.h"
#include "svg.h"
#include "unit.h"

/* The names issue 32 found breaking every output. */
static const char hostile[] = "<x&y>\"\\\n\x01\xff\xfeZ";
static const char terminal[] = "\x1b[31mRED\nFAKE 9 9";

static void test_display_form(void)
{
	char out[64];

	CHECK_INT(display_name(hostile, sizeof(hostile) - 1, out, sizeof(out)), 23);
	CHECK_STR(out, "<x&y>\"\\\\\\n\\x01\\xff\\xfeZ");
	display_name(terminal, sizeof(terminal) - 1, out, sizeof(out));
	CHECK_STR(out, "\\x1b[31mRED\\nFAKE 9 9");
	/* Valid UTF-8 stays; a C1 control (CSI to some terminals) and a bidi override go. */
	display_name("\xc3\xa4\xc2\x9b\xe2\x80\xae!", 9, out, sizeof(out));
	CHECK_STR(out, "\xc3\xa4\\xc2\\x9b\\xe2\\x80\\xae!");
	/* Overlong forms and surrogates are not UTF-8. */
	display_name("\xc0\xaf\xed\xa0\x80", 5, out, sizeof(out));
	CHECK_STR(out, "\\xc0\\xaf\\xed\\xa0\\x80");
	/* Stops at the NUL within n; an escape that does not fit is left out whole. */
	display_name("ab\0cd", 5, out, sizeof(out));
	CHECK_STR(out, "ab");
	CHECK_INT(display_name("a\x01", 2, out, 5), 1);
	CHECK_STR(out, "a");
}

static void test_display_inplace(void)
{
	char label[64];

	/* A 15-byte task name of escapes fits a table label (60 bytes). */
	memset(label, 0xff, 15);
	label[15] = '\0';
	display_name_inplace(label, sizeof(label));
	CHECK_INT(strlen(label), 60);
	CHECK_INT(strncmp(label, "\\xff\\xff", 8), 0);
}

static void test_text_cell(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	/* Padding counts code points, and a cut never splits one. */
	print_text_cell(f, "\xc3\xa4x", 4);
	fputc('|', f);
	print_text_cell(f, "abc\xc3\xa4\xc3\xb6", 4);
	fputc('|', f);
	fclose(f);
	CHECK_STR(text, "\xc3\xa4x  |..\xc3\xa4\xc3\xb6|");
	CHECK_INT(text_columns("\xc3\xa4x"), 2);
	free(text);
}

/* Every byte of s is valid UTF-8. */
static int valid_utf8(const char *s)
{
	size_t n = strlen(s);
	unsigned int cp;

	for (size_t i = 0; i < n;) {
		size_t len = utf8_sequence(s + i, n - i, &cp);

		if (!len)
			return 0;
		i += len;
	}
	return 1;
}

static void test_writers_given_raw_bytes(void)
{
	struct json_writer w;
	struct strbuf b = {};
	struct om_label label = { "comm", hostile };
	char *svg_text = NULL;
	size_t svg_len = 0;
	struct svg s;
	FILE *f;

	json_init(&w);
	json_string(&w, hostile);
	CHECK(valid_utf8(w.buf));
	CHECK_STR(w.buf, "\"<x&y>\\\"\\\\\\n\\u0001\\ufffd\\ufffdZ\"");
	json_free(&w);

	om_sample_u64(&b, "schedscan_x_total", NULL, &label, 1, 1);
	CHECK(!b.failed && valid_utf8(b.buf));
	CHECK_STR(b.buf, "schedscan_x_total{comm=\"<x&y>\\\"\\\\\\n" UTF8_REPLACEMENT
			 UTF8_REPLACEMENT UTF8_REPLACEMENT "Z\"} 1\n");
	strbuf_free(&b);

	f = open_memstream(&svg_text, &svg_len);
	svg_begin(&s, f, 100, 100, hostile);
	CHECK_INT(svg_end(&s), 0);
	fclose(f);
	CHECK(valid_utf8(svg_text));
	CHECK(strstr(svg_text, "&lt;x&amp;y&gt;&quot;\\\n" UTF8_REPLACEMENT UTF8_REPLACEMENT
			       UTF8_REPLACEMENT "Z") != NULL);
	free(svg_text);
}

UNIT_MAIN(UNIT_TEST(test_display_form), UNIT_TEST(test_display_inplace),
	  UNIT_TEST(test_text_cell), UNIT_TEST(test_writers_given_raw_bytes))
