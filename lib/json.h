/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small JSON writer for JSON Lines output. A record is built in memory
 * and written with one fwrite + fflush, so an interrupted run never
 * leaves half an object on stdout.
 */
#ifndef SCHEDSCAN_JSON_H
#define SCHEDSCAN_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

struct json_writer {
	char *buf;
	size_t len, cap;
	int depth;
	bool need_comma[JSON_MAX_DEPTH];
	bool after_key;
	bool failed;		/* out of memory or nesting too deep */
};

void json_init(struct json_writer *w);
void json_free(struct json_writer *w);
void json_reset(struct json_writer *w);
void json_begin_object(struct json_writer *w);
void json_end_object(struct json_writer *w);
void json_begin_array(struct json_writer *w);
void json_end_array(struct json_writer *w);
void json_key(struct json_writer *w, const char *key);
void json_string(struct json_writer *w, const char *value);
void json_u64(struct json_writer *w, unsigned long long value);
void json_i64(struct json_writer *w, long long value);
/* Non-finite numbers are written as null: JSON has no NaN. */
void json_double(struct json_writer *w, double value, int decimals);
void json_bool(struct json_writer *w, bool value);
void json_null(struct json_writer *w);
/* Ends the finished record with '\n' in w->buf; -1 if it is incomplete. */
int json_end_line(struct json_writer *w);
/* Writes the finished record plus '\n'; returns -1 if it is incomplete. */
int json_emit_line(struct json_writer *w, FILE *out);

#endif
