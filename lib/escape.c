// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include "escape.h"

size_t utf8_sequence(const char *s, size_t n, unsigned int *cp)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned int value, min;
	size_t len;

	if (!n)
		return 0;
	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	}
	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		len = 2, value = p[0] & 0x1f, min = 0x80;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		len = 3, value = p[0] & 0x0f, min = 0x800;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		len = 4, value = p[0] & 0x07, min = 0x10000;
	} else {
		/* A continuation byte, 0xc0/0xc1 (always overlong) or past U+10FFFF. */
		return 0;
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		value = value << 6 | (p[i] & 0x3f);
	}
	if (value < min || value > 0x10ffff || (value >= 0xd800 && value <= 0xdfff))
		return 0;
	*cp = value;
	return len;
}

/*
 * Code points a terminal or a reader would act on rather than show: C1
 * controls (0x9b is CSI to some terminals), characters that reorder or
 * hide text, and the noncharacters XML refuses.
 */
static bool hidden_code_point(unsigned int cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0xad || cp == 0x61c ||
	       cp == 0x180e || (cp >= 0x200b && cp <= 0x200f) ||
	       (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x206f) ||
	       cp == 0xfeff || (cp >= 0xfff9 && cp <= 0xfffb) ||
	       (cp & 0xfffe) == 0xfffe || (cp >= 0xfdd0 && cp <= 0xfdef) ||
	       (cp >= 0xe0000 && cp <= 0xe007f);
}

static const char hex_digits[] = "0123456789abcdef";

/* Appends piece[0..len) if it fits whole with the NUL; false when it does not. */
static bool append(char *out, size_t outlen, size_t *used, const char *piece, size_t len)
{
	if (*used + len + 1 > outlen)
		return false;
	memcpy(out + *used, piece, len);
	*used += len;
	return true;
}

static bool append_hex_bytes(char *out, size_t outlen, size_t *used, const char *bytes,
			     size_t len)
{
	char esc[16];

	for (size_t i = 0; i < len; i++) {
		unsigned char b = (unsigned char)bytes[i];

		esc[4 * i] = '\\';
		esc[4 * i + 1] = 'x';
		esc[4 * i + 2] = hex_digits[b >> 4];
		esc[4 * i + 3] = hex_digits[b & 0xf];
	}
	return append(out, outlen, used, esc, 4 * len);
}

size_t display_name(const char *in, size_t n, char *out, size_t outlen)
{
	size_t used = 0, i = 0;

	if (!outlen)
		return 0;
	while (i < n && in[i]) {
		unsigned char c = (unsigned char)in[i];
		unsigned int cp;
		size_t len = utf8_sequence(in + i, n - i, &cp);
		bool fits;

		if (c == '\\')
			fits = append(out, outlen, &used, "\\\\", 2);
		else if (c == '\n')
			fits = append(out, outlen, &used, "\\n", 2);
		else if (c == '\t')
			fits = append(out, outlen, &used, "\\t", 2);
		else if (c == '\r')
			fits = append(out, outlen, &used, "\\r", 2);
		else if (c < 0x20 || c == 0x7f || !len)
			fits = append_hex_bytes(out, outlen, &used, in + i, 1);
		else if (hidden_code_point(cp))
			fits = append_hex_bytes(out, outlen, &used, in + i, len);
		else
			fits = append(out, outlen, &used, in + i, len);
		if (!fits)
			break;
		i += len ? len : 1;
	}
	out[used] = '\0';
	return used;
}

void display_name_inplace(char *buf, size_t size)
{
	char shown[1024];

	if (!size)
		return;
	display_name(buf, strnlen(buf, size), shown, sizeof(shown) < size ? sizeof(shown) : size);
	memcpy(buf, shown, strlen(shown) + 1);
}

size_t text_columns(const char *s)
{
	size_t columns = 0;

	/* Every byte but a continuation byte starts a code point. */
	for (; *s; s++)
		columns += ((unsigned char)*s & 0xc0) != 0x80;
	return columns;
}

void print_text_cell(FILE *out, const char *s, int width)
{
	size_t columns = text_columns(s);

	if (width <= 2 || columns <= (size_t)width) {
		fprintf(out, "%s%*s", s, width > (int)columns ? width - (int)columns : 0, "");
		return;
	}
	/* Skip code points up to the last width - 2, never into the middle of one. */
	for (size_t skip = columns - (size_t)(width - 2); skip; s++)
		if (((unsigned char)s[1] & 0xc0) != 0x80)
			skip--;
	fprintf(out, "..%s", s);
}
