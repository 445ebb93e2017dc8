// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jsonparse.h"

struct reader {
	const char *text;
	size_t len, pos;
	char *err;
	size_t errlen;
	bool failed;
	/* Values built so far, and the most the caller allows. */
	size_t values, max_values;
};

static int fail(struct reader *r, const char *fmt, ...)
{
	char what[160];
	va_list ap;

	if (r->failed)
		return -1;
	r->failed = true;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (r->err && r->errlen)
		snprintf(r->err, r->errlen, "invalid JSON at byte %zu: %s", r->pos, what);
	return -1;
}

static void skip_space(struct reader *r)
{
	while (r->pos < r->len) {
		char c = r->text[r->pos];

		if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
			break;
		r->pos++;
	}
}

static int peek(const struct reader *r)
{
	return r->pos < r->len ? (unsigned char)r->text[r->pos] : -1;
}

static bool take_word(struct reader *r, const char *word)
{
	size_t n = strlen(word);

	if (r->len - r->pos < n || memcmp(r->text + r->pos, word, n))
		return false;
	r->pos += n;
	return true;
}

static int hex4(struct reader *r, unsigned int *out)
{
	unsigned int v = 0;

	if (r->len - r->pos < 4)
		return fail(r, "a \\u escape needs four hex digits");
	for (int i = 0; i < 4; i++) {
		char c = r->text[r->pos++];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned int)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned int)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned int)(c - 'A' + 10);
		else
			return fail(r, "'%c' is not a hex digit", c);
	}
	*out = v;
	return 0;
}

static size_t put_utf8(char *dst, unsigned int cp)
{
	if (cp < 0x80) {
		dst[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		dst[0] = (char)(0xc0 | (cp >> 6));
		dst[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		dst[0] = (char)(0xe0 | (cp >> 12));
		dst[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		dst[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	dst[0] = (char)(0xf0 | (cp >> 18));
	dst[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	dst[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	dst[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* At the opening quote; the decoded string is never longer than its source. */
static int parse_string(struct reader *r, char **out)
{
	size_t start = ++r->pos, n = 0;
	char *s;

	while (r->pos < r->len && r->text[r->pos] != '"')
		r->pos += r->text[r->pos] == '\\' ? 2 : 1;
	if (r->pos >= r->len)
		return fail(r, "a string is not closed");
	s = malloc(r->pos - start + 1);
	if (!s)
		return fail(r, "out of memory");
	r->pos = start;
	while (r->text[r->pos] != '"') {
		unsigned char c = (unsigned char)r->text[r->pos++];
		unsigned int cp, low;

		if (c < 0x20) {
			free(s);
			return fail(r, "a control character inside a string");
		}
		if (c != '\\') {
			s[n++] = (char)c;
			continue;
		}
		c = (unsigned char)r->text[r->pos++];
		switch (c) {
		case '"': case '\\': case '/':
			s[n++] = (char)c;
			break;
		case 'b': s[n++] = '\b'; break;
		case 'f': s[n++] = '\f'; break;
		case 'n': s[n++] = '\n'; break;
		case 'r': s[n++] = '\r'; break;
		case 't': s[n++] = '\t'; break;
		case 'u':
			if (hex4(r, &cp))
				goto bad;
			if (cp >= 0xd800 && cp < 0xdc00) {
				if (!take_word(r, "\\u") || hex4(r, &low) || low < 0xdc00 || low > 0xdfff) {
					fail(r, "a lone UTF-16 surrogate");
					goto bad;
				}
				cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
			} else if (cp >= 0xdc00 && cp < 0xe000) {
				fail(r, "a lone UTF-16 surrogate");
				goto bad;
			}
			if (!cp) {
				fail(r, "\\u0000 inside a string");
				goto bad;
			}
			/* 6 source bytes (12 for a pair) always hold the 1-4 encoded ones. */
			n += put_utf8(s + n, cp);
			break;
		default:
			fail(r, "unknown escape '\\%c'", c);
			goto bad;
		}
	}
	r->pos++;
	s[n] = '\0';
	*out = s;
	return 0;
bad:
	free(s);
	return -1;
}

static bool is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static int parse_number(struct reader *r, struct jv *v)
{
	size_t start = r->pos;
	bool integer = true;
	char buf[64];

	if (peek(r) == '-')
		r->pos++;
	if (peek(r) == '0') {
		r->pos++;
	} else if (is_digit(peek(r))) {
		while (is_digit(peek(r)))
			r->pos++;
	} else {
		return fail(r, "a number needs a digit");
	}
	if (peek(r) == '.') {
		integer = false;
		r->pos++;
		if (!is_digit(peek(r)))
			return fail(r, "a digit must follow the decimal point");
		while (is_digit(peek(r)))
			r->pos++;
	}
	if (peek(r) == 'e' || peek(r) == 'E') {
		integer = false;
		r->pos++;
		if (peek(r) == '+' || peek(r) == '-')
			r->pos++;
		if (!is_digit(peek(r)))
			return fail(r, "an exponent needs a digit");
		while (is_digit(peek(r)))
			r->pos++;
	}
	if (r->pos - start >= sizeof(buf))
		return fail(r, "a number of more than %zu characters", sizeof(buf) - 1);
	memcpy(buf, r->text + start, r->pos - start);
	buf[r->pos - start] = '\0';
	v->type = JV_NUMBER;
	v->number = strtod(buf, NULL);
	if (integer) {
		const char *digits = buf[0] == '-' ? buf + 1 : buf;
		unsigned long long m;

		errno = 0;
		m = strtoull(digits, NULL, 10);
		if (!errno) {
			v->is_integer = true;
			v->negative = buf[0] == '-' && m;
			v->magnitude = m;
		}
	}
	return 0;
}

static int parse_value(struct reader *r, struct jv *v, int depth);

static int grow(struct jv *v, size_t *cap, bool with_keys)
{
	size_t n = *cap ? *cap * 2 : 8;
	struct jv *items = realloc(v->items, n * sizeof(*items));

	if (!items)
		return -1;
	v->items = items;
	if (with_keys) {
		char **keys = realloc(v->keys, n * sizeof(*keys));

		if (!keys)
			return -1;
		v->keys = keys;
	}
	*cap = n;
	return 0;
}

static int parse_container(struct reader *r, struct jv *v, int depth, bool object)
{
	char close = object ? '}' : ']';
	size_t cap = 0;

	if (depth >= JSONPARSE_MAX_DEPTH)
		return fail(r, "nested deeper than %d levels", JSONPARSE_MAX_DEPTH);
	v->type = object ? JV_OBJECT : JV_ARRAY;
	r->pos++;
	skip_space(r);
	if (peek(r) == close) {
		r->pos++;
		return 0;
	}
	for (;;) {
		char *key = NULL;

		skip_space(r);
		if (object) {
			if (peek(r) != '"')
				return fail(r, "an object member must start with a string key");
			if (parse_string(r, &key))
				return -1;
			skip_space(r);
			if (peek(r) != ':') {
				free(key);
				return fail(r, "':' expected after an object key");
			}
			r->pos++;
		}
		if (v->n == cap && grow(v, &cap, object)) {
			free(key);
			return fail(r, "out of memory");
		}
		memset(&v->items[v->n], 0, sizeof(v->items[0]));
		if (object)
			v->keys[v->n] = key;
		v->n++;
		if (parse_value(r, &v->items[v->n - 1], depth + 1))
			return -1;
		skip_space(r);
		if (peek(r) == ',') {
			r->pos++;
			continue;
		}
		if (peek(r) == close) {
			r->pos++;
			return 0;
		}
		return fail(r, "',' or '%c' expected", close);
	}
}

static int parse_value(struct reader *r, struct jv *v, int depth)
{
	skip_space(r);
	if (++r->values > r->max_values) {
		/* Valid JSON, only too much of it: not "invalid JSON". */
		if (!r->failed && r->err && r->errlen)
			snprintf(r->err, r->errlen, "more than %zu JSON values (at byte %zu)",
				 r->max_values, r->pos);
		r->failed = true;
		return -1;
	}
	switch (peek(r)) {
	case '{':
		return parse_container(r, v, depth, true);
	case '[':
		return parse_container(r, v, depth, false);
	case '"':
		v->type = JV_STRING;
		return parse_string(r, &v->string);
	case 't':
	case 'f':
		v->type = JV_BOOL;
		v->boolean = peek(r) == 't';
		if (take_word(r, v->boolean ? "true" : "false"))
			return 0;
		break;
	case 'n':
		v->type = JV_NULL;
		if (take_word(r, "null"))
			return 0;
		break;
	case -1:
		return fail(r, "the text ends where a value was expected");
	default:
		if (peek(r) == '-' || is_digit(peek(r)))
			return parse_number(r, v);
		break;
	}
	return fail(r, "a value was expected");
}

int jv_parse(const char *text, size_t len, struct jv *out, char *err, size_t errlen)
{
	return jv_parse_bounded(text, len, SIZE_MAX, out, err, errlen);
}

int jv_parse_bounded(const char *text, size_t len, size_t max_values, struct jv *out,
		     char *err, size_t errlen)
{
	struct reader r = { .text = text, .len = len, .err = err, .errlen = errlen,
			    .max_values = max_values };

	memset(out, 0, sizeof(*out));
	if (!parse_value(&r, out, 0)) {
		skip_space(&r);
		if (r.pos == r.len)
			return 0;
		fail(&r, "text after the value");
	}
	jv_free(out);
	return -1;
}

void jv_free(struct jv *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->n; i++) {
		jv_free(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->string);
	memset(v, 0, sizeof(*v));
}

const struct jv *jv_get(const struct jv *v, const char *key)
{
	if (!v || v->type != JV_OBJECT)
		return NULL;
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->keys[i], key))
			return &v->items[i];
	return NULL;
}

const char *jv_string(const struct jv *v)
{
	return v && v->type == JV_STRING ? v->string : NULL;
}

bool jv_number(const struct jv *v, double *out)
{
	if (!v || v->type != JV_NUMBER)
		return false;
	*out = v->number;
	return true;
}

bool jv_u64(const struct jv *v, unsigned long long *out)
{
	if (!v || v->type != JV_NUMBER || !v->is_integer || v->negative)
		return false;
	*out = v->magnitude;
	return true;
}
