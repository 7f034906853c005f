/* test_json.c - the JSON adapter: parsing limits, lookups, building, the printer. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "probes/model/json.h"

static void test_parse_lookup(void **state)
{
	const char *t = "{\"metadata\":{\"name\":\"n1\",\"labels\":{\"a\":\"b\"}},\"n\":3,\"t\":true,\"l\":[1,2,3]}";
	struct json *v;
	double d;
	bool b;

	assert_int_equal(json_parse(t, strlen(t), &v), 0);
	assert_string_equal(json_get_string(json_get(v, "metadata"), "name"), "n1");
	assert_string_equal(json_string(json_get(json_get(json_get(v, "metadata"), "labels"), "a")), "b");
	assert_null(json_get(json_get(json_get(v, "metadata"), "nope"), "a"));
	assert_true(json_number(json_get(v, "n"), &d));
	assert_true(d == 3);
	assert_true(json_bool(json_get(v, "t"), &b) && b);
	assert_false(json_bool(json_get(v, "n"), &b));
	assert_int_equal(json_size(json_get(v, "l")), 3);
	assert_int_equal(json_type(json_get(v, "l")), JSON_ARRAY);
	assert_null(json_get_string(v, "n"));           /* wrong type is absent, not a crash */
	assert_null(json_get(json_get(v, "l"), "x"));   /* lookup in a non-object */
	json_free(v);
}

static void test_parse_rejects(void **state)
{
	struct json *v = NULL;
	char deep[400];

	assert_int_equal(json_parse("{\"a\":", 5, &v), -EINVAL);
	assert_int_equal(json_parse("", 0, &v), -EINVAL);
	assert_int_equal(json_parse("{\"a\":1}", 3, &v), -EINVAL);    /* length is honoured */
	memset(deep, '[', 200);
	memset(deep + 200, ']', 200);
	assert_int_equal(json_parse(deep, sizeof(deep), &v), -EINVAL);   /* deeper than JSON_MAX_DEPTH */
	assert_null(v);
}

static void test_case_sensitive_keys(void **state)
{
	struct json *v;

	assert_int_equal(json_parse("{\"Name\":\"x\"}", 12, &v), 0);
	assert_null(json_get(v, "name"));
	json_free(v);
}

static void test_build_print(void **state)
{
	struct json *o = json_new_object(), *a = json_new_array();
	char *s;

	assert_int_equal(json_add_string(o, "s", "a\"b\\c\n\x01"), 0);
	assert_int_equal(json_add_int(o, "i", 8244), 0);
	assert_int_equal(json_add_bool(o, "b", false), 0);
	assert_int_equal(json_add_string(o, "z", NULL), 0);
	assert_int_equal(json_append_string(a, "x"), 0);
	assert_int_equal(json_add(o, "a", a), 0);
	assert_int_equal(json_add(o, "e", json_new_array()), 0);
	s = json_print(o, false);
	assert_string_equal(s, "{\"s\":\"a\\\"b\\\\c\\n\\u0001\",\"i\":8244,\"b\":false,\"z\":null,\"a\":[\"x\"],\"e\":[]}");
	free(s);
	s = json_print(o, true);
	assert_string_equal(s, "{\n  \"s\": \"a\\\"b\\\\c\\n\\u0001\",\n  \"i\": 8244,\n  \"b\": false,\n  \"z\": null,\n"
			       "  \"a\": [\n    \"x\"\n  ],\n  \"e\": []\n}");
	free(s);
	json_free(o);
}

static void test_roundtrip_utf8(void **state)
{
	const char *t = "{\"k\":\"caf\\u00e9 \xe2\x86\x92\"}";
	struct json *v;
	char *s;

	assert_int_equal(json_parse(t, strlen(t), &v), 0);
	s = json_print(v, false);
	assert_string_equal(s, "{\"k\":\"caf\xc3\xa9 \xe2\x86\x92\"}");
	free(s);
	json_free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_lookup),
		cmocka_unit_test(test_parse_rejects),
		cmocka_unit_test(test_case_sensitive_keys),
		cmocka_unit_test(test_build_print),
		cmocka_unit_test(test_roundtrip_utf8),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
