// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <string.h>
#include "json.h"
#include "jsonparse.h"
#include "unit.h"

static int parse(const char *text, struct jv *v, char *err)
{
	return jv_parse(text, strlen(text), v, err, 200);
}

static void test_values(void)
{
	struct jv v;
	char err[200];
	unsigned long long u;
	double d;

	CHECK_INT(parse(" {\"a\": [1, -2, 3.5e2, true, false, null], \"b\": {\"c\": \"x\"}} ", &v, err), 0);
	const struct jv *a = jv_get(&v, "a");

	CHECK(a && a->type == JV_ARRAY && a->n == 6);
	CHECK(jv_u64(&a->items[0], &u) && u == 1);
	CHECK(!jv_u64(&a->items[1], &u));
	CHECK(a->items[1].is_integer && a->items[1].negative && a->items[1].magnitude == 2);
	CHECK(jv_number(&a->items[2], &d) && d == 350);
	CHECK(!a->items[2].is_integer);
	CHECK(a->items[3].type == JV_BOOL && a->items[3].boolean);
	CHECK(a->items[4].type == JV_BOOL && !a->items[4].boolean);
	CHECK(a->items[5].type == JV_NULL);
	CHECK_STR(jv_string(jv_get(jv_get(&v, "b"), "c")), "x");
	CHECK(!jv_get(&v, "missing"));
	CHECK(!jv_get(a, "a"));
	jv_free(&v);
}

static void test_exact_u64(void)
{
	struct jv v;
	char err[200];
	unsigned long long u = 0;

	/* Beyond 2^53 a double would round the last digits. */
	CHECK_INT(parse("18446744073709551615", &v, err), 0);
	CHECK(jv_u64(&v, &u));
	CHECK_U64(u, 18446744073709551615ULL);
	jv_free(&v);
	CHECK_INT(parse("9007199254740993", &v, err), 0);
	CHECK(jv_u64(&v, &u));
	CHECK_U64(u, 9007199254740993ULL);
	jv_free(&v);
	/* Too large for 64 bits: a number, not an integer. */
	CHECK_INT(parse("18446744073709551616", &v, err), 0);
	CHECK(!jv_u64(&v, &u));
	jv_free(&v);
}

static void test_strings(void)
{
	struct jv v;
	char err[200];

	CHECK_INT(parse("\"a\\\"b\\\\c\\/d\\n\\t\\u00e9\\u20ac\\ud83d\\ude00\"", &v, err), 0);
	CHECK_STR(jv_string(&v), "a\"b\\c/d\n\t\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	jv_free(&v);
}

static void test_refusals(void)
{
	static const char *const bad[] = {
		"", "{", "[1,]", "{\"a\":1,}", "01", "1.", "-", "1e", "+1", "tru", "nul",
		"\"abc", "\"a\\qb\"", "\"\\ud800\"", "\"\\udc00x\"", "\"\\u12g4\"", "\"\\u0000\"",
		"\"a\tb\"", "{1:2}", "{\"a\" 1}", "[1 2]", "1 2", "{\"a\":1}x",
	};
	char err[200];
	struct jv v;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (parse(bad[i], &v, err) != -1)
			UNIT_FAIL("'%s' was accepted", bad[i]);
		else
			CHECK_CONTAINS(err, "invalid JSON at byte ");
	}
}

static void test_depth_limit(void)
{
	char deep[2 * JSONPARSE_MAX_DEPTH + 8], err[200];
	struct jv v;
	int n = JSONPARSE_MAX_DEPTH + 1;

	for (int i = 0; i < n; i++) {
		deep[i] = '[';
		deep[2 * n - 1 - i] = ']';
	}
	deep[2 * n] = '\0';
	CHECK_INT(parse(deep, &v, err), -1);
	CHECK_CONTAINS(err, "nested deeper");
	deep[2 * n - 1] = '\0';
	memmove(deep, deep + 1, strlen(deep));
	CHECK_INT(parse(deep, &v, err), 0);
	jv_free(&v);
}

/* What lib/json.c writes, lib/jsonparse.c reads back. */
static void test_round_trip(void)
{
	struct json_writer w;
	struct jv v;
	char err[200];
	unsigned long long u;
	double d;

	json_init(&w);
	json_begin_object(&w);
	json_key(&w, "name");
	json_string(&w, "tab\there \"quoted\" \x01");
	json_key(&w, "big");
	json_u64(&w, 12345678901234567890ULL);
	json_key(&w, "ratio");
	json_double(&w, 12.5, 2);
	json_key(&w, "nan");
	json_double(&w, NAN, 2);
	json_end_object(&w);
	CHECK_INT(jv_parse(w.buf, w.len, &v, err, sizeof(err)), 0);
	CHECK_STR(jv_string(jv_get(&v, "name")), "tab\there \"quoted\" \x01");
	CHECK(jv_u64(jv_get(&v, "big"), &u) && u == 12345678901234567890ULL);
	CHECK(jv_number(jv_get(&v, "ratio"), &d) && d == 12.5);
	CHECK(jv_get(&v, "nan") && jv_get(&v, "nan")->type == JV_NULL);
	jv_free(&v);
	json_free(&w);
}

UNIT_MAIN(UNIT_TEST(test_values),
	  UNIT_TEST(test_exact_u64),
	  UNIT_TEST(test_strings),
	  UNIT_TEST(test_refusals),
	  UNIT_TEST(test_depth_limit),
	  UNIT_TEST(test_round_trip))
