/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small JSON reader (RFC 8259) for what the tools read back: their own
 * JSON Lines output (--compare). One document becomes a tree of struct
 * jv; objects keep their members in document order. Numbers keep both
 * their double value and, when they are integers that fit, their exact
 * 64-bit value: counters above 2^53 must not lose their last digits.
 */
#ifndef SCHEDSCAN_JSONPARSE_H
#define SCHEDSCAN_JSONPARSE_H

#include <stdbool.h>
#include <stddef.h>

enum jv_type { JV_NULL, JV_BOOL, JV_NUMBER, JV_STRING, JV_ARRAY, JV_OBJECT };

struct jv {
	enum jv_type type;
	bool boolean;
	double number;
	/* JV_NUMBER written as an integer that fits in 64 bits: */
	bool is_integer, negative;
	unsigned long long magnitude;
	char *string;		/* JV_STRING, NUL-terminated (no embedded NUL) */
	size_t n;		/* JV_ARRAY items, JV_OBJECT members */
	struct jv *items;
	char **keys;		/* JV_OBJECT: keys[i] names items[i] */
};

/*
 * Parses one JSON text of len bytes (surrounding whitespace allowed,
 * nothing else). 0, or -1 with a sentence in err naming the byte offset.
 * Nesting deeper than JSONPARSE_MAX_DEPTH is refused.
 */
#define JSONPARSE_MAX_DEPTH 32
int jv_parse(const char *text, size_t len, struct jv *out, char *err, size_t errlen);
/*
 * jv_parse() building at most max_values values (each scalar, array and
 * object counts one): a tree costs some 64 bytes a value, so text of tiny
 * values ("[0,0,0,...": 2 bytes each) would cost 32 times its length.
 * Beyond it: -1 with "more than N JSON values" in err.
 */
int jv_parse_bounded(const char *text, size_t len, size_t max_values, struct jv *out,
		     char *err, size_t errlen);
void jv_free(struct jv *v);

/* The member key of an object, or NULL (also when v is not an object). */
const struct jv *jv_get(const struct jv *v, const char *key);
/* The string of a JV_STRING, else NULL. */
const char *jv_string(const struct jv *v);
/* A JV_NUMBER as a double; false for anything else. */
bool jv_number(const struct jv *v, double *out);
/* A non-negative integer JV_NUMBER; false for anything else. */
bool jv_u64(const struct jv *v, unsigned long long *out);

#endif
