/* test_kube_event.c - the events.k8s.io/v1 Event object: its name, its fields, the API server's limits. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "probes/model/json.h"
#include "report/render/kube_event.h"

#define NODE "gke-a3mega-a3mega-pool-1a2b3c4d-x7k2"

static void test_name(void **state)
{
	char buf[KUBE_EVENT_NAME_MAX + 1], big[400];

	assert_int_equal(kube_event_name("llama-train-node-0-0-x2b9f", 0x188f0a1b2c3d4e5fULL, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "llama-train-node-0-0-x2b9f.188f0a1b2c3d4e5f");
	/* Not a subdomain character: dropped; nothing left: a stand-in. */
	assert_int_equal(kube_event_name("-Bad_Name.", 0x1f, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "adame.1f");
	assert_int_equal(kube_event_name("", 1, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "tcpxo-agent.1");
	assert_int_equal(kube_event_name(NULL, 1, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "tcpxo-agent.1");
	/* A 253-character pod name: cut so the whole name is 253 and ends the cut part in [a-z0-9]. */
	memset(big, 'a', 253);
	big[235] = '-';
	big[253] = '\0';
	assert_int_equal(kube_event_name(big, UINT64_MAX, buf, sizeof(buf)), 0);
	assert_true(strlen(buf) <= KUBE_EVENT_NAME_MAX);
	assert_non_null(strstr(buf, ".ffffffffffffffff"));
	assert_int_equal(strlen(buf), 235 + 17);        /* cut to 236, then the trailing - dropped */
	assert_int_equal(kube_event_name("x", 1, buf, 3), -ENOSPC);
}

static void test_render(void **state)
{
	struct kube_event e = {
		.ns = "ml-team", .name = "train-0.1f", .time = "2026-01-20T10:00:00.123456Z",
		.regarding = { .kind = "Pod", .ns = "ml-team", .name = "train-0", .uid = "6f1e2d3c-0000-4000-8000-000000000001" },
		.type = "Warning", .reason = "TCPXOUnattached", .action = "Check", .note = "requests 8 GPUs \"and\" no wiring",
		.instance = NODE,
	};
	struct json *v;
	char *text = NULL;

	assert_int_equal(kube_event_render(&e, &text), 0);
	assert_int_equal(json_parse(text, strlen(text), &v), 0);
	assert_string_equal(json_get_string(v, "apiVersion"), "events.k8s.io/v1");
	assert_string_equal(json_get_string(v, "kind"), "Event");
	assert_string_equal(json_get_string(json_get(v, "metadata"), "name"), "train-0.1f");
	assert_string_equal(json_get_string(json_get(v, "metadata"), "namespace"), "ml-team");
	assert_string_equal(json_get_string(v, "eventTime"), "2026-01-20T10:00:00.123456Z");
	assert_string_equal(json_get_string(v, "reportingController"), "fabric.aicr.run/tcpxo-agent");
	assert_string_equal(json_get_string(v, "reportingInstance"), NODE);
	assert_string_equal(json_get_string(v, "type"), "Warning");
	assert_string_equal(json_get_string(v, "reason"), "TCPXOUnattached");
	assert_string_equal(json_get_string(v, "action"), "Check");
	assert_string_equal(json_get_string(v, "note"), "requests 8 GPUs \"and\" no wiring");
	assert_string_equal(json_get_string(json_get(v, "regarding"), "apiVersion"), "v1");
	assert_string_equal(json_get_string(json_get(v, "regarding"), "kind"), "Pod");
	assert_string_equal(json_get_string(json_get(v, "regarding"), "namespace"), "ml-team");
	assert_string_equal(json_get_string(json_get(v, "regarding"), "uid"), "6f1e2d3c-0000-4000-8000-000000000001");
	/* Nothing the API server rejects on create: no series, no deprecated fields. */
	assert_int_equal(json_size(v), 11);
	json_free(v);
	free(text);

	/* The Node: no namespace in the reference, no uid when unknown. */
	e.regarding = (struct kube_event_ref){ .kind = "Node", .name = NODE, .uid = "" };
	e.ns = "default";
	e.note = NULL;
	assert_int_equal(kube_event_render(&e, &text), 0);
	assert_int_equal(json_parse(text, strlen(text), &v), 0);
	assert_int_equal(json_size(json_get(v, "regarding")), 3);
	assert_string_equal(json_get_string(json_get(v, "regarding"), "apiVersion"), "v1");
	assert_string_equal(json_get_string(json_get(v, "regarding"), "kind"), "Node");
	assert_null(json_get(v, "related"));      /* the agent relates an Event to nothing */
	assert_null(json_get(v, "note"));
	json_free(v);
	free(text);
}

static void test_limits(void **state)
{
	char long_name[200], note[1100];
	struct kube_event e = {
		.ns = "default", .name = "n.1", .time = "2026-01-20T10:00:00.000000Z",
		.regarding = { .kind = "Node", .name = NODE }, .type = "Normal", .reason = "FabricReady",
		.action = "Check", .instance = NODE,
	};
	char *text = NULL;

	/* reportingInstance is at most 128 characters: a longer node name cannot be named. */
	memset(long_name, 'a', 129);
	long_name[129] = '\0';
	e.instance = long_name;
	assert_int_equal(kube_event_render(&e, &text), -EINVAL);
	long_name[128] = '\0';
	assert_int_equal(kube_event_render(&e, &text), 0);
	free(text);
	e.instance = NODE;
	memset(note, 'n', 1025);
	note[1025] = '\0';
	e.note = note;
	assert_int_equal(kube_event_render(&e, &text), -EINVAL);
	note[1024] = '\0';
	assert_int_equal(kube_event_render(&e, &text), 0);
	free(text);
	e.reason = "";
	assert_int_equal(kube_event_render(&e, &text), -EINVAL);
	e.reason = "FabricReady";
	e.ns = NULL;
	assert_int_equal(kube_event_render(&e, &text), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name),
		cmocka_unit_test(test_render),
		cmocka_unit_test(test_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
