/* test_watchevent.c - one watch event line: types, names, resource versions, ERROR Status, malformed lines. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "probes/kube/watchevent.h"

static void parse_ok(const char *line, struct watchevent *ev)
{
	char err[200] = "";

	if (watchevent_parse(line, strlen(line), ev, err, sizeof(err)) != 0)
		fail_msg("%s: %s", line, err);
}

static void parse_bad(const char *line, const char *want)
{
	struct watchevent ev;
	char err[200] = "";

	assert_int_equal(watchevent_parse(line, line ? strlen(line) : 0, &ev, err, sizeof(err)), -EINVAL);
	assert_null(ev.root);
	if (!strstr(err, want))
		fail_msg("%s: error \"%s\" does not say \"%s\"", line ? line : "(null)", err, want);
}

static void test_added_pod(void **state)
{
	struct watchevent ev;

	parse_ok("{\"type\":\"ADDED\",\"object\":{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":"
		 "{\"name\":\"llama-0\",\"namespace\":\"ml-team\",\"resourceVersion\":\"48213402\"},"
		 "\"spec\":{\"nodeName\":\"n1\"}}}\r\n", &ev);
	assert_int_equal(ev.type, WATCHEVENT_ADDED);
	assert_string_equal(watchevent_type_name(ev.type), "ADDED");
	assert_string_equal(ev.kind, "Pod");
	assert_string_equal(ev.name, "llama-0");
	assert_string_equal(ev.ns, "ml-team");
	assert_string_equal(ev.resource_version, "48213402");
	assert_string_equal(json_get_string(json_get(ev.object, "spec"), "nodeName"), "n1");
	assert_int_equal(ev.code, 0);
	watchevent_free(&ev);
	assert_null(ev.root);
	watchevent_free(&ev);                   /* idempotent */
	watchevent_free(NULL);
}

static void test_modified_deleted_node(void **state)
{
	static const char *const types[] = { "MODIFIED", "DELETED" };

	for (size_t i = 0; i < 2; i++) {
		char line[256];
		struct watchevent ev;

		snprintf(line, sizeof(line), "{\"object\":{\"kind\":\"Node\",\"metadata\":{\"name\":\"gke-a.b-1\","
			 "\"resourceVersion\":\"7\"}},\"type\":\"%s\"}", types[i]);
		parse_ok(line, &ev);
		assert_int_equal(ev.type, i == 0 ? WATCHEVENT_MODIFIED : WATCHEVENT_DELETED);
		assert_string_equal(ev.ns, "");
		assert_string_equal(ev.name, "gke-a.b-1");
		watchevent_free(&ev);
	}
}

static void test_bookmarks(void **state)
{
	struct watchevent ev;

	/* As the real server encodes them: a typed zero object carrying only the resourceVersion. */
	parse_ok("{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":"
		 "{\"resourceVersion\":\"12345\",\"creationTimestamp\":null},\"spec\":{\"containers\":null},"
		 "\"status\":{}}}", &ev);
	assert_int_equal(ev.type, WATCHEVENT_BOOKMARK);
	assert_string_equal(ev.resource_version, "12345");
	assert_string_equal(ev.name, "");
	assert_false(ev.initial_events_end);
	watchevent_free(&ev);
	parse_ok("{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"Pod\",\"metadata\":{\"resourceVersion\":\"9\","
		 "\"annotations\":{\"k8s.io/initial-events-end\":\"true\"}}}}", &ev);
	assert_true(ev.initial_events_end);
	watchevent_free(&ev);
	parse_bad("{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{}}}", "BOOKMARK event: object.metadata.resourceVersion: missing");
}

static void test_error_status(void **state)
{
	struct watchevent ev;

	parse_ok("{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
		 "\"status\":\"Failure\",\"message\":\"too old resource version: 1 (48213377)\",\"reason\":"
		 "\"Expired\",\"code\":410}}", &ev);
	assert_int_equal(ev.type, WATCHEVENT_ERROR);
	assert_string_equal(ev.kind, "Status");
	assert_int_equal(ev.code, 410);
	assert_string_equal(ev.reason, "Expired");
	assert_string_equal(ev.message, "too old resource version: 1 (48213377)");
	assert_string_equal(ev.resource_version, "");
	watchevent_free(&ev);
	/* Hostile text is made printable and cut. */
	{
		char line[2048], msg[1200];

		memset(msg, 'm', sizeof(msg) - 1);
		msg[sizeof(msg) - 1] = '\0';
		msg[3] = '\x01';
		snprintf(line, sizeof(line), "{\"type\":\"ERROR\",\"object\":{\"code\":500,\"message\":\"%s\"}}", msg);
		parse_ok(line, &ev);
		assert_true(strlen(ev.message) < WATCHEVENT_MESSAGE_MAX);
		assert_null(strchr(ev.message, '\x01'));
		watchevent_free(&ev);
	}
	parse_bad("{\"type\":\"ERROR\",\"object\":{\"reason\":\"Expired\"}}", "object.code");
	parse_bad("{\"type\":\"ERROR\",\"object\":{\"code\":\"410\"}}", "object.code");
	parse_bad("{\"type\":\"ERROR\",\"object\":{\"code\":410.5}}", "object.code");
	parse_bad("{\"type\":\"ERROR\",\"object\":{\"code\":-1}}", "object.code");
	parse_bad("{\"type\":\"ERROR\",\"object\":{\"code\":4e119}}", "object.code");   /* fuzz: no UB cast */
}

static void test_malformed(void **state)
{
	char deep[400];
	size_t n = 0;

	parse_bad(NULL, "empty line");
	parse_bad("", "empty line");
	parse_bad(" \r\n", "empty line");
	parse_bad("{\"type\":\"ADDED\",\"object\":[1,2", "not JSON");
	parse_bad("[1]", "expected an object");
	parse_bad("{\"object\":{}}", "type: expected a string, got nothing");
	parse_bad("{\"type\":7,\"object\":{}}", "type: expected a string, got number");
	parse_bad("{\"type\":\"UPSERTED\",\"object\":{}}", "unknown event type \"UPSERTED\"");
	parse_bad("{\"type\":\"ADDED\"}", "ADDED event: object: expected an object, got nothing");
	parse_bad("{\"type\":\"ADDED\",\"object\":\"x\"}", "expected an object, got string");
	parse_bad("{\"type\":\"ADDED\",\"object\":{\"kind\":3,\"metadata\":{}}}", "object.kind: expected a string");
	parse_bad("{\"type\":\"ADDED\",\"object\":{\"kind\":\"Pod\"}}", "ADDED event: object.metadata: missing");
	parse_bad("{\"type\":\"ADDED\",\"object\":{\"metadata\":[]}}", "object.metadata: expected an object");
	parse_bad("{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\"}}}", "resourceVersion: missing");
	/* Names are taken as sent (the parsers judge them); none to key the object by is "": set aside. */
	{
		static const char *const unnamed[] = {
			"{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"resourceVersion\":\"1\"}}}",
			"{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":5,\"resourceVersion\":\"1\"}}}",
			"{\"type\":\"DELETED\",\"object\":{\"metadata\":{\"name\":\"a\",\"namespace\":[],\"resourceVersion\":\"1\"}}}",
		};
		struct watchevent ev;
		char big[600];

		for (size_t i = 0; i < sizeof(unnamed) / sizeof(unnamed[0]); i++) {
			parse_ok(unnamed[i], &ev);
			assert_string_equal(ev.name, "");
			assert_string_equal(ev.resource_version, "1");
			watchevent_free(&ev);
		}
		parse_ok("{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a b\",\"namespace\":\"x/y\","
			 "\"resourceVersion\":\"1\"}}}", &ev);
		assert_string_equal(ev.name, "a b");
		assert_string_equal(ev.ns, "x/y");
		watchevent_free(&ev);
		n = (size_t)snprintf(big, sizeof(big), "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"");
		memset(big + n, 'a', 300);
		snprintf(big + n + 300, sizeof(big) - n - 300, "\",\"resourceVersion\":\"1\"}}}");
		parse_ok(big, &ev);
		assert_int_equal(strlen(ev.name), 300);
		watchevent_free(&ev);
		n = 0;
	}
	/* A resourceVersion goes back into a query: nothing that could end or extend it. */
	parse_bad("{\"type\":\"MODIFIED\",\"object\":{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"1&watch=0\"}}}",
		  "not 1..63 of");
	parse_bad("{\"type\":\"MODIFIED\",\"object\":{\"metadata\":{\"name\":\"a\",\"resourceVersion\":12}}}",
		  "resourceVersion: expected a string");
	for (int i = 0; i < 100; i++)
		n += (size_t)snprintf(deep + n, sizeof(deep) - n, "[");
	parse_bad(deep, "not JSON");
}

static void test_rv_rules(void **state)
{
	char rv[80];

	assert_true(watchevent_rv_valid("48213377"));
	assert_true(watchevent_rv_valid("a-b.c_d~e"));
	assert_false(watchevent_rv_valid(""));
	assert_false(watchevent_rv_valid(NULL));
	assert_false(watchevent_rv_valid("1 2"));
	assert_false(watchevent_rv_valid("1%20"));
	memset(rv, '1', 63);
	rv[63] = '\0';
	assert_true(watchevent_rv_valid(rv));
	strcat(rv, "1");
	assert_false(watchevent_rv_valid(rv));
	assert_string_equal(watchevent_type_name((enum watchevent_type)99), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_added_pod),
		cmocka_unit_test(test_modified_deleted_node),
		cmocka_unit_test(test_bookmarks),
		cmocka_unit_test(test_error_status),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_rv_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
