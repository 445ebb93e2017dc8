/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Strings nobody vouches for: a task's name (any task sets its own with
 * prctl(PR_SET_NAME), 15 arbitrary bytes), a mapping's path (any user
 * names files), a domain's name. Each output format must stay well
 * formed whatever they hold: JSON that parses, Prometheus label values
 * that promtool accepts, SVG that is XML, and text whose rows and
 * colours the name cannot forge.
 *
 * So a name is shown in one display form everywhere (text, JSON,
 * OpenMetrics, SVG), the same in each, so that the formats can be joined
 * on it: valid, printable UTF-8 as it is; a backslash as "\\"; newline,
 * tab and carriage return as "\n", "\t", "\r"; any other control
 * character (C0, DEL, C1), a Unicode format character that reorders or
 * hides text (bidirectional overrides, zero-width characters, line and
 * paragraph separators, the BOM) and every byte of invalid UTF-8 as
 * "\xNN". That is how /proc/PID/status escapes a task's Name: (a
 * backslash doubled, a newline as "\n"), extended to every byte that a
 * terminal or a parser could act on. The writers of each format
 * (lib/json.c, lib/openmetrics.c, lib/svg.c) check UTF-8 again, so a
 * string that skipped this still cannot break them.
 */
#ifndef SCHEDSCAN_ESCAPE_H
#define SCHEDSCAN_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * The length (1 to 4) of the well-formed UTF-8 sequence at s, which has
 * n bytes, with its code point in *cp; 0 when s does not start one
 * (overlong forms, surrogates and values past U+10FFFF are not UTF-8).
 */
size_t utf8_sequence(const char *s, size_t n, unsigned int *cp);

/* The replacement character U+FFFD, in UTF-8. */
#define UTF8_REPLACEMENT "\xef\xbf\xbd"

/*
 * The display form of the n bytes at in (stopping at a NUL) into out,
 * always NUL-terminated; an escape is never cut: what does not fit is
 * left out whole. Returns the length written.
 */
size_t display_name(const char *in, size_t n, char *out, size_t outlen);
/* The same in place, for a buffer of size bytes. */
void display_name_inplace(char *buf, size_t size);

/* Code points in a UTF-8 string: the columns it takes in a terminal. */
size_t text_columns(const char *s);
/*
 * Prints s in a column of width: padded with spaces, or, when longer,
 * ".." and its last width - 2 code points (a path's informative end).
 */
void print_text_cell(FILE *out, const char *s, int width);

#endif
