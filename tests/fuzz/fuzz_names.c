// SPDX-License-Identifier: GPL-2.0
/*
 * Names nobody vouches for through every output (lib/escape.h): the
 * input's first 15 bytes are a task's name, the rest a mapping's path.
 * Each is shown in its display form, and each writer is also handed the
 * raw bytes. Invariants: every output is UTF-8; a JSON record holds no
 * code point that a line reader breaks at and parses back to the display
 * form; an OpenMetrics sample is one line whose label values unescape to
 * the display form; SVG text holds only characters XML 1.0 allows and no
 * raw markup; a text cell has no control character and takes exactly
 * its width.
 *
 * With SCHEDSCAN_FUZZ_DUMP=DIR, every input's outputs are also written
 * under DIR (names.jsonl, names.prom, svg/N.svg) for the real parsers:
 * tests/robustness/test_fuzz_outputs.sh checks them with python's strict
 * JSON and XML parsers and with promtool.
 */
#include "escape.h"
#include "json.h"
#include "jsonparse.h"
#include "openmetrics.h"
#include "svg.h"
#include "util.h"
#include "fuzz.h"

#define COMM_LEN 15

static bool valid_utf8(const char *s, size_t n)
{
	unsigned int cp;

	for (size_t i = 0; i < n;) {
		size_t len = utf8_sequence(s + i, n - i, &cp);

		if (!len)
			return false;
		i += len;
	}
	return true;
}

/* No code point that any line reader ends a line at (lib/json.c). */
static bool no_line_break(const char *s, size_t n)
{
	unsigned int cp;

	for (size_t i = 0; i < n; i += utf8_sequence(s + i, n - i, &cp)) {
		utf8_sequence(s + i, n - i, &cp);
		if ((cp >= 0x0a && cp <= 0x0d) || (cp >= 0x1c && cp <= 0x1e) ||
		    (cp >= 0x80 && cp < 0xa0) || cp == 0x2028 || cp == 0x2029)
			return false;
	}
	return true;
}

static void check_json(const char *comm, const char *path, const char *raw, FILE *dump)
{
	struct json_writer w;
	struct jv parsed;
	char err[256];

	json_init(&w);
	json_begin_object(&w);
	json_key(&w, "comm");
	json_string(&w, comm);
	json_key(&w, "name");
	json_string(&w, path);
	json_key(&w, "raw");
	json_string(&w, raw);
	json_end_object(&w);
	FUZZ_ASSERT(!w.failed && valid_utf8(w.buf, w.len));
	FUZZ_ASSERT(no_line_break(w.buf, w.len));
	FUZZ_ASSERT(!jv_parse(w.buf, w.len, &parsed, err, sizeof(err)));
	FUZZ_ASSERT(!strcmp(jv_string(jv_get(&parsed, "comm")), comm));
	FUZZ_ASSERT(!strcmp(jv_string(jv_get(&parsed, "name")), path));
	jv_free(&parsed);
	if (dump)
		fprintf(dump, "%s\n", w.buf);
	json_free(&w);
}

/*
 * The value of label name in a sample line, unescaped, into out: the
 * labels read in order, as a Prometheus parser reads them.
 */
static void label_value(const char *line, const char *name, char *out, size_t len)
{
	const char *p = strchr(line, '{');
	bool found = false;

	FUZZ_ASSERT(p);
	while (*p++ != '}') {
		size_t name_len = strcspn(p, "="), n = 0;
		bool this_one = name_len == strlen(name) && !strncmp(p, name, name_len);

		p += name_len;
		FUZZ_ASSERT(p[0] == '=' && p[1] == '"');
		for (p += 2; *p != '"'; p++) {
			char c = *p;

			FUZZ_ASSERT(c && c != '\n' && n + 1 < len);
			if (c == '\\') {
				c = *++p;
				FUZZ_ASSERT(c == '\\' || c == '"' || c == 'n');
				c = c == 'n' ? '\n' : c;
			}
			if (this_one)
				out[n++] = c;
		}
		if (this_one) {
			out[n] = '\0';
			found = true;
		}
		p++;
		FUZZ_ASSERT(*p == ',' || *p == '}');
	}
	FUZZ_ASSERT(found);
}

static void check_openmetrics(const char *comm, const char *path, const char *raw,
			      unsigned long long input, FILE *dump)
{
	struct strbuf b = {};
	char number[32], value[8192];
	struct om_label labels[4] = {
		{ "input", number }, { "comm", comm }, { "name", path }, { "raw", raw },
	};

	snprintf(number, sizeof(number), "%llu", input);
	om_sample_u64(&b, "schedscan_fuzz_total", NULL, labels, 4, 1);
	FUZZ_ASSERT(!b.failed && valid_utf8(b.buf, b.len));
	/* One sample, one line. */
	FUZZ_ASSERT(strchr(b.buf, '\n') == b.buf + b.len - 1);
	label_value(b.buf, "comm", value, sizeof(value));
	FUZZ_ASSERT(!strcmp(value, comm));
	label_value(b.buf, "name", value, sizeof(value));
	FUZZ_ASSERT(!strcmp(value, path));
	if (dump)
		fputs(b.buf, dump);
	strbuf_free(&b);
}

/* The picture with the three strings in its title, a text and a tooltip. */
static char *svg_of(const char *comm, const char *path, const char *raw, size_t *len)
{
	char *text = NULL;
	struct svg s;
	FILE *f = open_memstream(&text, len);

	FUZZ_ASSERT(f);
	svg_begin(&s, f, 100, 100, comm);
	svg_text(&s, 1, 1, "start", 10, false, "%s", path);
	svg_rect(&s, 0, 0, 1, 1, "#000000", NULL, raw);
	FUZZ_ASSERT(!svg_end(&s));
	fclose(f);
	return text;
}

static size_t count_char(const char *text, size_t len, char c)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += text[i] == c;
	return n;
}

static void check_svg(const char *comm, const char *path, const char *raw, const char *file)
{
	static size_t markup = 0;
	size_t len = 0;
	unsigned int cp;
	char *text;

	/* The markup of plain strings: the writer's elements, and no more ever. */
	if (!markup) {
		text = svg_of("a", "b", "c", &len);
		markup = count_char(text, len, '<');
		free(text);
	}
	text = svg_of(comm, path, raw, &len);
	FUZZ_ASSERT(valid_utf8(text, len));
	for (size_t i = 0; i < len; i += utf8_sequence(text + i, len - i, &cp)) {
		utf8_sequence(text + i, len - i, &cp);
		FUZZ_ASSERT(cp >= 0x20 || cp == '\t' || cp == '\n' || cp == '\r');
		FUZZ_ASSERT(cp != 0xfffe && cp != 0xffff);
	}
	FUZZ_ASSERT(count_char(text, len, '<') == markup);
	if (file) {
		FILE *out = fopen(file, "w");

		if (out) {
			fwrite(text, 1, len, out);
			fclose(out);
		}
	}
	free(text);
}

static void check_text(const char *comm)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	FUZZ_ASSERT(f);
	print_text_cell(f, comm, COMM_LEN);
	fclose(f);
	FUZZ_ASSERT(valid_utf8(text, len));
	for (size_t i = 0; i < len; i++)
		FUZZ_ASSERT((unsigned char)text[i] >= 0x20 && text[i] != 0x7f);
	FUZZ_ASSERT(text_columns(text) == COMM_LEN);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned long long inputs;
	const char *dir = getenv("SCHEDSCAN_FUZZ_DUMP");
	size_t comm_len = size < COMM_LEN ? size : COMM_LEN;
	char comm[4 * COMM_LEN + 1], path[64], dump[4200], svg_file[4200] = "";
	char *raw = fuzz_string(data, size);
	FILE *json_dump = NULL, *prom_dump = NULL;

	/* A label holds 63 bytes: the table's buffer (lib/table.h). */
	display_name((const char *)data, comm_len, comm, sizeof(comm));
	display_name((const char *)data + comm_len, size - comm_len, path, sizeof(path));
	inputs++;
	if (dir) {
		snprintf(dump, sizeof(dump), "%s/names.jsonl", dir);
		json_dump = fopen(dump, "a");
		snprintf(dump, sizeof(dump), "%s/names.prom", dir);
		prom_dump = fopen(dump, "a");
		snprintf(svg_file, sizeof(svg_file), "%s/svg/%llu.svg", dir, inputs);
	}
	check_json(comm, path, raw, json_dump);
	check_openmetrics(comm, path, raw, inputs, prom_dump);
	check_svg(comm, path, raw, dir ? svg_file : NULL);
	check_text(comm);
	if (json_dump)
		fclose(json_dump);
	if (prom_dump)
		fclose(prom_dump);
	free(raw);
	return 0;
}
