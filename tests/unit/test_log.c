/* test_log.c - daemon log lines: text quoting, one JSON object per line in Cloud Logging's structured form, no raw control characters. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "agent/log.h"
#include "probes/model/json.h"

#define TS "2026-12-02T14:31:17.123Z"

static char *test_log_line(enum cli_log_format f, enum log_level lvl, const char *msg, const char *const *kv,
			   size_t n)
{
	struct strbuf sb = { 0 };

	assert_int_equal(log_format_line(f, TS, lvl, msg, kv, n, NULL, NULL, &sb), 0);
	return strbuf_take(&sb);
}

static void test_text_plain_and_quoted(void **state)
{
	const char *kv[] = { "node", "gke-a", "changes", "ready true→false; links: eth3 is down", "skip", NULL,
			     "empty", "" };
	char *s = test_log_line(CLI_LOG_TEXT, LOG_LEVEL_INFO, "observed change", kv, 4);

	assert_string_equal(s, TS " info observed change node=gke-a changes=\"ready true→false; links: eth3 is down\""
			    " empty=\"\"\n");
	free(s);
}

static void test_text_escapes_controls(void **state)
{
	const char *kv[] = { "error", "line1\nline2\t\"q\" \\ \x1b[31m" };
	char *s = test_log_line(CLI_LOG_TEXT, LOG_LEVEL_ERROR, "API\nerror", kv, 1);

	assert_string_equal(s, TS " error API\\x0aerror error=\"line1\\nline2\\t\\\"q\\\" \\\\ \\x1b[31m\"\n");
	/* Exactly one line. */
	assert_ptr_equal(strchr(s, '\n'), s + strlen(s) - 1);
	free(s);
}

static void test_text_value_cut(void **state)
{
	char *big = malloc(LOG_VALUE_MAX * 3), *s;
	const char *kv[] = { "body", big };

	memset(big, 'x', LOG_VALUE_MAX * 3 - 1);
	big[LOG_VALUE_MAX * 3 - 1] = '\0';
	s = test_log_line(CLI_LOG_TEXT, LOG_LEVEL_INFO, "m", kv, 1);
	assert_true(strlen(s) < LOG_VALUE_MAX + 64);
	assert_non_null(strstr(s, "...\"\n"));
	free(s);
	free(big);
}

static void test_json_object_per_line(void **state)
{
	const char *kv[] = { "status", "500", "error", "HTTP 500\nInternal", "none", NULL };
	char *s = test_log_line(CLI_LOG_JSON, LOG_LEVEL_WARN, "API error", kv, 3);
	struct json *v;

	assert_ptr_equal(strchr(s, '\n'), s + strlen(s) - 1);
	assert_int_equal(json_parse(s, strlen(s), &v), 0);
	/*
	 * Cloud Logging's names: its severity (WARNING, not "warn": else every line would be ERROR),
	 * message, time; the fields beside them at the top level (jsonPayload.status, not
	 * jsonPayload.fields.status), none of them null.
	 */
	assert_int_equal(json_size(v), 5);
	assert_string_equal(json_get_string(v, "time"), TS);
	assert_string_equal(json_get_string(v, "severity"), "WARNING");
	assert_string_equal(json_get_string(v, "message"), "API error");
	assert_string_equal(json_get_string(v, "status"), "500");
	assert_string_equal(json_get_string(v, "error"), "HTTP 500\nInternal");
	assert_null(json_get(v, "fields"));
	assert_null(json_get(v, "none"));
	/* No node, no source: no labels, no sourceLocation. */
	assert_null(json_get(v, "logging.googleapis.com/labels"));
	assert_null(json_get(v, "logging.googleapis.com/sourceLocation"));
	json_free(v);
	free(s);
}

/* The node is Cloud Logging's label: the daemon's node, or a line's own "node" pair; never a payload field. */
static void test_json_node_label(void **state)
{
	const char *kv[] = { "keys", "3", "node", "gke-b" };
	struct strbuf sb = { 0 };
	const struct json *labels;
	struct json *v;
	char *s;

	assert_int_equal(log_format_line(CLI_LOG_JSON, TS, LOG_LEVEL_INFO, "published", kv, 1, "gke-a", NULL, &sb), 0);
	s = strbuf_take(&sb);
	assert_int_equal(json_parse(s, strlen(s), &v), 0);
	labels = json_get(v, "logging.googleapis.com/labels");
	assert_int_equal(json_type(labels), JSON_OBJECT);
	assert_int_equal(json_size(labels), 1);
	assert_string_equal(json_get_string(labels, "node"), "gke-a");
	assert_string_equal(json_get_string(v, "keys"), "3");
	assert_null(json_get(v, "node"));
	json_free(v);
	free(s);
	/* A line about a node names that one (and the text format prints it as before). */
	assert_int_equal(log_format_line(CLI_LOG_JSON, TS, LOG_LEVEL_INFO, "published", kv, 2, "gke-a", NULL, &sb), 0);
	s = strbuf_take(&sb);
	assert_int_equal(json_parse(s, strlen(s), &v), 0);
	assert_string_equal(json_get_string(json_get(v, "logging.googleapis.com/labels"), "node"), "gke-b");
	assert_null(json_get(v, "node"));
	assert_int_equal(json_size(v), 5);
	json_free(v);
	free(s);
	assert_int_equal(log_format_line(CLI_LOG_TEXT, TS, LOG_LEVEL_INFO, "published", kv, 2, "gke-a", NULL, &sb), 0);
	s = strbuf_take(&sb);
	assert_string_equal(s, TS " info published keys=3 node=gke-b\n");
	free(s);
}

/*
 * A field named like one of Cloud Logging's special fields would set the entry's own time,
 * severity or message (or be dropped from the payload): it is written with a trailing '_'.
 */
static void test_json_reserved_keys(void **state)
{
	const char *kv[] = { "time", "2026-12-02T14:30:00Z", "severity", "x", "message", "y", "timestamp", "z",
			     "logging.googleapis.com/trace", "t", "condition", "True" };
	char *s = test_log_line(CLI_LOG_JSON, LOG_LEVEL_DEBUG, "heartbeat", kv, 6);
	struct json *v;

	assert_int_equal(json_parse(s, strlen(s), &v), 0);
	assert_string_equal(json_get_string(v, "time"), TS);
	assert_string_equal(json_get_string(v, "severity"), "DEBUG");
	assert_string_equal(json_get_string(v, "message"), "heartbeat");
	assert_string_equal(json_get_string(v, "time_"), "2026-12-02T14:30:00Z");
	assert_string_equal(json_get_string(v, "severity_"), "x");
	assert_string_equal(json_get_string(v, "message_"), "y");
	assert_string_equal(json_get_string(v, "timestamp_"), "z");
	assert_string_equal(json_get_string(v, "logging.googleapis.com/trace_"), "t");
	assert_null(json_get(v, "logging.googleapis.com/trace"));
	assert_string_equal(json_get_string(v, "condition"), "True");
	json_free(v);
	free(s);
	/* The rest of the list, and keys that only look like one of them, as written. */
	{
		const char *more[] = { "httpRequest", "a", "logging.googleapis.com/labels2", "b", "times", "c",
				       "timestampNanos", "d" };

		s = test_log_line(CLI_LOG_JSON, LOG_LEVEL_DEBUG, "heartbeat", more, 4);
		assert_int_equal(json_parse(s, strlen(s), &v), 0);
		assert_string_equal(json_get_string(v, "httpRequest_"), "a");
		assert_null(json_get(v, "httpRequest"));
		assert_string_equal(json_get_string(v, "logging.googleapis.com/labels2_"), "b");
		assert_string_equal(json_get_string(v, "times"), "c");
		assert_string_equal(json_get_string(v, "timestampNanos_"), "d");
		json_free(v);
		free(s);
	}
}

/* log_emit() says where it was called: Cloud Logging's sourceLocation (file, line as a string, function). */
static void test_json_source_location(void **state)
{
	char *buf = NULL, line[16];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	const struct json *loc;
	struct json *v;
	unsigned here;

	assert_non_null(f);
	log_setup(CLI_LOG_JSON, 0, "gke-a", f);
	here = __LINE__ + 1;
	log_emit(LOG_LEVEL_INFO, "located", "k", "v", NULL);
	fflush(f);
	assert_int_equal(json_parse(buf, strlen(buf), &v), 0);
	loc = json_get(v, "logging.googleapis.com/sourceLocation");
	assert_int_equal(json_type(loc), JSON_OBJECT);
	assert_string_equal(json_get_string(loc, "file"), "tests/unit/test_log.c");
	snprintf(line, sizeof(line), "%u", here);
	assert_string_equal(json_get_string(loc, "line"), line);
	assert_string_equal(json_get_string(loc, "function"), "test_json_source_location");
	assert_string_equal(json_get_string(json_get(v, "logging.googleapis.com/labels"), "node"), "gke-a");
	assert_string_equal(json_get_string(v, "k"), "v");
	json_free(v);
	fclose(f);
	free(buf);
	/* The text format is as it was: no node, no source. */
	buf = NULL;
	f = open_memstream(&buf, &len);
	log_setup(CLI_LOG_TEXT, 0, "gke-a", f);
	log_emit(LOG_LEVEL_INFO, "located", "k", "v", NULL);
	fflush(f);
	assert_non_null(strstr(buf, " info located k=v\n"));
	assert_null(strstr(buf, "gke-a"));
	assert_null(strstr(buf, "test_log.c"));
	fclose(f);
	free(buf);
	log_setup(CLI_LOG_TEXT, 0, NULL, NULL);
}

static void test_json_utf8_cut_on_boundary(void **state)
{
	/* "é" is two bytes: a cut in the middle of one would make invalid UTF-8. */
	char *big = malloc(LOG_VALUE_MAX * 2 + 1), *s;
	const char *kv[] = { "v", big };
	struct json *v;
	const char *got;

	for (size_t i = 0; i < LOG_VALUE_MAX; i++)
		memcpy(big + 2 * i, "\xc3\xa9", 2);
	big[LOG_VALUE_MAX * 2] = '\0';
	s = test_log_line(CLI_LOG_JSON, LOG_LEVEL_INFO, "m", kv, 1);
	assert_int_equal(json_parse(s, strlen(s), &v), 0);
	got = json_get_string(v, "v");
	assert_non_null(got);
	assert_true(strlen(got) <= LOG_VALUE_MAX);
	assert_int_equal(strcmp(got + strlen(got) - 3, "..."), 0);
	assert_int_equal((strlen(got) - 3) % 2, 0);
	json_free(v);
	free(s);
	free(big);
}

/* The text format's level words, as each line writes them. */
static void test_levels(void **state)
{
	static const struct { enum log_level l; const char *line; } cases[] = {
		{ LOG_LEVEL_ERROR, TS " error m\n" }, { LOG_LEVEL_WARN, TS " warn m\n" },
		{ LOG_LEVEL_INFO, TS " info m\n" }, { LOG_LEVEL_DEBUG, TS " debug m\n" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s = test_log_line(CLI_LOG_TEXT, cases[i].l, "m", NULL, 0);

		assert_string_equal(s, cases[i].line);
		free(s);
	}
}

/* Cloud Logging's LogSeverity names, and the level of each JSON line as it writes it. */
static void test_severities(void **state)
{
	static const struct { enum log_level l; const char *sev; } cases[] = {
		{ LOG_LEVEL_ERROR, "ERROR" }, { LOG_LEVEL_WARN, "WARNING" },
		{ LOG_LEVEL_INFO, "INFO" }, { LOG_LEVEL_DEBUG, "DEBUG" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s = test_log_line(CLI_LOG_JSON, cases[i].l, "m", NULL, 0);
		struct json *v;

		assert_int_equal(json_parse(s, strlen(s), &v), 0);
		assert_string_equal(json_get_string(v, "severity"), cases[i].sev);
		json_free(v);
		free(s);
	}
}

/* Setup and the level: below it nothing is written; -v (verbose 1 or more) adds debug. */
static void test_verbose_levels(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	log_setup(CLI_LOG_JSON, 0, NULL, f);
	log_emit(LOG_LEVEL_DEBUG, "hidden", NULL);
	log_emit(LOG_LEVEL_INFO, "shown", "k", "v", NULL);
	fflush(f);
	assert_null(strstr(buf, "hidden"));
	assert_non_null(strstr(buf, "\"severity\":\"INFO\""));
	log_setup(CLI_LOG_JSON, 2, NULL, f);
	log_emit(LOG_LEVEL_DEBUG, "debug now", NULL);
	fflush(f);
	assert_non_null(strstr(buf, "\"severity\":\"DEBUG\",\"message\":\"debug now\""));
	fclose(f);
	free(buf);
	log_setup(CLI_LOG_TEXT, 0, NULL, NULL);
}

/* The inverse of log_time_text() for whole seconds, strict: what a node's lastHeartbeatTime holds. */
/* One formatter for every time text: the log's milliseconds, an Event's microseconds, whole seconds. */
static void test_time_text(void **state)
{
	const struct timespec ts = { .tv_sec = 1796221877, .tv_nsec = 123456789 };
	char buf[48];

	log_time_text(&ts, 0, buf, sizeof(buf));
	assert_string_equal(buf, "2026-12-02T14:31:17Z");
	log_time_text(&ts, 3, buf, sizeof(buf));
	assert_string_equal(buf, "2026-12-02T14:31:17.123Z");
	log_time_text(&ts, 6, buf, sizeof(buf));
	assert_string_equal(buf, "2026-12-02T14:31:17.123456Z");
	log_time_text(&(struct timespec){ .tv_sec = 1796221877, .tv_nsec = 5000 }, 6, buf, sizeof(buf));
	assert_string_equal(buf, "2026-12-02T14:31:17.000005Z");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_plain_and_quoted),
		cmocka_unit_test(test_text_escapes_controls),
		cmocka_unit_test(test_text_value_cut),
		cmocka_unit_test(test_json_object_per_line),
		cmocka_unit_test(test_json_node_label),
		cmocka_unit_test(test_json_reserved_keys),
		cmocka_unit_test(test_json_source_location),
		cmocka_unit_test(test_json_utf8_cut_on_boundary),
		cmocka_unit_test(test_levels),
		cmocka_unit_test(test_severities),
		cmocka_unit_test(test_verbose_levels),
		cmocka_unit_test(test_time_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
