// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "escape.h"
#include "json.h"

void json_init(struct json_writer *w)
{
	memset(w, 0, sizeof(*w));
}

void json_free(struct json_writer *w)
{
	free(w->buf);
	memset(w, 0, sizeof(*w));
}

void json_reset(struct json_writer *w)
{
	w->len = 0;
	w->depth = 0;
	w->after_key = false;
	w->failed = false;
	memset(w->need_comma, 0, sizeof(w->need_comma));
}

static void put(struct json_writer *w, const char *s, size_t n)
{
	if (w->failed)
		return;
	if (w->len + n + 1 > w->cap) {
		size_t cap = w->cap ? w->cap : 256;
		char *buf;

		while (cap < w->len + n + 1)
			cap *= 2;
		buf = realloc(w->buf, cap);
		if (!buf) {
			w->failed = true;
			return;
		}
		w->buf = buf;
		w->cap = cap;
	}
	memcpy(w->buf + w->len, s, n);
	w->len += n;
	w->buf[w->len] = '\0';
}

static void putf(struct json_writer *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void putf(struct json_writer *w, const char *fmt, ...)
{
	char tmp[64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(tmp)) {
		w->failed = true;
		return;
	}
	put(w, tmp, n);
}

/* Separates array elements and object members; a value after a key needs none. */
static void begin_value(struct json_writer *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (w->depth > 0 && w->need_comma[w->depth - 1])
		put(w, ",", 1);
	if (w->depth > 0)
		w->need_comma[w->depth - 1] = true;
}

static void open_container(struct json_writer *w, char c)
{
	begin_value(w);
	if (w->depth >= JSON_MAX_DEPTH) {
		w->failed = true;
		return;
	}
	put(w, &c, 1);
	w->need_comma[w->depth++] = false;
}

static void close_container(struct json_writer *w, char c)
{
	if (w->depth <= 0) {
		w->failed = true;
		return;
	}
	w->depth--;
	put(w, &c, 1);
}

void json_begin_object(struct json_writer *w)
{
	open_container(w, '{');
}

void json_end_object(struct json_writer *w)
{
	close_container(w, '}');
}

void json_begin_array(struct json_writer *w)
{
	open_container(w, '[');
}

void json_end_array(struct json_writer *w)
{
	close_container(w, ']');
}

/*
 * A string's bytes as a JSON string. Names are in their display form
 * already (lib/escape.h); whatever is not valid UTF-8 still becomes
 * U+FFFD, so that a record always parses.
 */
/*
 * Code points that some line readers take for the end of a line: C1
 * controls (NEL among them), U+2028 and U+2029. JSON allows them raw,
 * but a JSON Lines record must stay one line for python's splitlines(),
 * JavaScript before ES2019 and editors as well.
 */
static bool breaks_lines(unsigned int cp)
{
	return (cp >= 0x80 && cp < 0xa0) || cp == 0x2028 || cp == 0x2029;
}

static void put_escaped(struct json_writer *w, const char *s)
{
	size_t n = strlen(s);

	put(w, "\"", 1);
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		unsigned int cp;
		size_t len = utf8_sequence(s + i, n - i, &cp);

		switch (c) {
		case '"':
			put(w, "\\\"", 2);
			break;
		case '\\':
			put(w, "\\\\", 2);
			break;
		case '\n':
			put(w, "\\n", 2);
			break;
		case '\t':
			put(w, "\\t", 2);
			break;
		case '\r':
			put(w, "\\r", 2);
			break;
		default:
			if (c < 0x20)
				putf(w, "\\u%04x", c);
			else if (!len)
				put(w, "\\ufffd", 6);
			else if (breaks_lines(cp))
				putf(w, "\\u%04x", cp);
			else
				put(w, s + i, len);
		}
		i += len ? len : 1;
	}
	put(w, "\"", 1);
}

void json_key(struct json_writer *w, const char *key)
{
	begin_value(w);
	put_escaped(w, key);
	put(w, ":", 1);
	w->after_key = true;
}

void json_string(struct json_writer *w, const char *value)
{
	begin_value(w);
	if (value)
		put_escaped(w, value);
	else
		put(w, "null", 4);
}

void json_u64(struct json_writer *w, unsigned long long value)
{
	begin_value(w);
	putf(w, "%llu", value);
}

void json_i64(struct json_writer *w, long long value)
{
	begin_value(w);
	putf(w, "%lld", value);
}

void json_double(struct json_writer *w, double value, int decimals)
{
	begin_value(w);
	if (!isfinite(value))
		put(w, "null", 4);
	else
		putf(w, "%.*f", decimals, value);
}

void json_bool(struct json_writer *w, bool value)
{
	begin_value(w);
	put(w, value ? "true" : "false", value ? 4 : 5);
}

void json_null(struct json_writer *w)
{
	begin_value(w);
	put(w, "null", 4);
}

int json_end_line(struct json_writer *w)
{
	if (w->failed || w->depth != 0 || !w->len)
		return -1;
	put(w, "\n", 1);
	return w->failed ? -1 : 0;
}

int json_emit_line(struct json_writer *w, FILE *out)
{
	if (json_end_line(w) || fwrite(w->buf, 1, w->len, out) != w->len)
		return -1;
	return fflush(out) ? -1 : 0;
}
