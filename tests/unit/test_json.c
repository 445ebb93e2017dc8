// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include "json.h"
#include "unit.h"

static const char *render(struct json_writer *w)
{
	return w->buf ? w->buf : "";
}

static void test_nested_objects_and_arrays(void)
{
	struct json_writer w;

	json_init(&w);
	json_begin_object(&w);
	json_key(&w, "a");
	json_u64(&w, 1);
	json_key(&w, "b");
	json_begin_array(&w);
	json_i64(&w, -2);
	json_bool(&w, true);
	json_null(&w);
	json_begin_object(&w);
	json_end_object(&w);
	json_end_array(&w);
	json_key(&w, "c");
	json_string(&w, "x");
	json_end_object(&w);
	CHECK_STR(render(&w), "{\"a\":1,\"b\":[-2,true,null,{}],\"c\":\"x\"}");
	json_free(&w);
}

static void test_string_escaping(void)
{
	struct json_writer w;

	json_init(&w);
	json_string(&w, "q\"b\\n\n\t\x01");
	CHECK_STR(render(&w), "\"q\\\"b\\\\n\\n\\t\\u0001\"");
	json_free(&w);
}

/*
 * A record stays one line for every line reader: NEL (C2 85), U+2028 and
 * U+2029 are escaped, other multi-byte characters pass as they are (the
 * clean-clone run of c4fb9bf read a random name's NEL as a line break).
 */
static void test_line_separators_escaped(void)
{
	struct json_writer w;

	json_init(&w);
	json_string(&w, "a\xc2\x85" "b\xe2\x80\xa8" "c\xe2\x80\xa9" "d\xc2\xa0\xc3\xa9\x7f");
	CHECK_STR(render(&w), "\"a\\u0085b\\u2028c\\u2029d\xc2\xa0\xc3\xa9\x7f\"");
	json_free(&w);
}

static void test_non_finite_doubles_become_null(void)
{
	struct json_writer w;

	json_init(&w);
	json_begin_array(&w);
	json_double(&w, 1.0 / 0.0, 2);
	json_double(&w, 0.0 / 0.0, 2);
	json_double(&w, 2.5, 1);
	json_end_array(&w);
	CHECK_STR(render(&w), "[null,null,2.5]");
	json_free(&w);
}

static void test_emit_refuses_unbalanced_record(void)
{
	struct json_writer w;
	FILE *out = tmpfile();

	json_init(&w);
	json_begin_object(&w);
	json_key(&w, "k");
	json_u64(&w, 3);
	CHECK_INT(json_emit_line(&w, out), -1);
	json_end_object(&w);
	CHECK_INT(json_emit_line(&w, out), 0);
	CHECK_INT(ftell(out), (long)strlen("{\"k\":3}\n"));
	json_end_object(&w);	/* one close too many */
	CHECK(w.failed);
	fclose(out);
	json_free(&w);
}

static void test_reset_reuses_buffer(void)
{
	struct json_writer w;

	json_init(&w);
	for (int i = 0; i < 3; i++) {
		json_reset(&w);
		json_begin_array(&w);
		for (int j = 0; j < 1000; j++)
			json_u64(&w, j);
		json_end_array(&w);
	}
	CHECK(!w.failed);
	CHECK(strncmp(render(&w), "[0,1,2,", 7) == 0);
	CHECK(strstr(render(&w), ",999]") != NULL);
	json_free(&w);
}

static void test_depth_limit(void)
{
	struct json_writer w;

	json_init(&w);
	for (int i = 0; i <= JSON_MAX_DEPTH; i++)
		json_begin_array(&w);
	CHECK(w.failed);
	json_free(&w);
}

UNIT_MAIN(UNIT_TEST(test_nested_objects_and_arrays),
	  UNIT_TEST(test_string_escaping),
	  UNIT_TEST(test_line_separators_escaped),
	  UNIT_TEST(test_non_finite_doubles_become_null),
	  UNIT_TEST(test_emit_refuses_unbalanced_record),
	  UNIT_TEST(test_reset_reuses_buffer),
	  UNIT_TEST(test_depth_limit))
