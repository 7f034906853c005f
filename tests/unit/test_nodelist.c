/* test_nodelist.c - probes/kube/nodelist.c: the facts kept per item (labels, taints, our annotations and condition), in one pass. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "probes/kube/nodelist.h"
#include "probes/model/obs_kube.h"
#include "probes/model/strbuf.h"

struct seen {
	size_t n;
	char text[4][512];      /* one line per item: what was kept */
};

static void add_field(char *buf, size_t len, const char *name, const struct jsonscan_field *f)
{
	size_t k = strlen(buf);

	snprintf(buf + k, len - k, " %s=%s", name, !f->present ? "-" : f->s ? f->s : "?");
}

static int on_item(void *ctx, size_t idx, const struct nodelist_item *it, char *err, size_t errlen)
{
	struct seen *s = ctx;
	char *b = s->text[s->n];
	size_t len = sizeof(s->text[0]);

	(void)err;
	(void)errlen;
	assert_int_equal(idx, s->n);
	snprintf(b, len, "%s", it->name.s);
	add_field(b, len, "type", &it->itype);
	add_field(b, len, "accel", &it->accelerator);
	add_field(b, len, "pool", &it->pool);
	add_field(b, len, "profile", &it->profile);
	for (size_t i = 0; i < it->n_taints; i++) {
		add_field(b, len, "taint", &it->taints[i].key);
		add_field(b, len, "", &it->taints[i].value);
		add_field(b, len, "", &it->taints[i].effect);
	}
	snprintf(b + strlen(b), len - strlen(b), " seen=%zu", it->taints_seen);
	s->n++;
	return 0;
}

static void test_labels_and_taints(void **state)
{
	static const char text[] =
		"{\"kind\":\"NodeList\",\"items\":["
		"{\"kind\":\"Node\",\"metadata\":{\"name\":\"a\",\"labels\":{"
		"\"node.kubernetes.io/instance-type\":\"a3-megagpu-8g\",\"cloud.google.com/gke-accelerator\":"
		"\"nvidia-h100-mega-80gb\",\"cloud.google.com/gke-nodepool\":\"a3mega\"},\"annotations\":{"
		"\"fabric.aicr.run/profile\":\"tcpxo\"}},\"spec\":{\"podCIDR\":\"10.0.0.0/24\",\"taints\":["
		"{\"effect\":\"NoSchedule\",\"key\":\"nvidia.com/gpu\",\"value\":\"present\"},"
		"7,{\"key\":\"dedicated\",\"effect\":\"NoExecute\"}],\"taints\":[{\"key\":\"again\"}]}},"
		"{\"kind\":\"Node\",\"spec\":{\"taints\":null},\"metadata\":{\"name\":\"b\"}}]}";
	struct seen s = { 0 };
	char err[256] = "";

	assert_int_equal(nodelist_scan(text, strlen(text), "fabric.aicr.run/", on_item, &s, NULL, err, sizeof(err)), 2);
	/* A non-object entry is counted and skipped; a second taints key adds nothing; absent values are "-". */
	assert_string_equal(s.text[0], "a type=a3-megagpu-8g accel=nvidia-h100-mega-80gb pool=a3mega profile=tcpxo "
			    "taint=nvidia.com/gpu =present =NoSchedule taint=dedicated =- =NoExecute seen=3");
	assert_string_equal(s.text[1], "b type=- accel=- pool=- profile=- seen=0");
	assert_string_equal(err, "");                           /* written only on failure */
}

/* More taints than kept: the first NODELIST_TAINTS_MAX are, all are counted. */
static void test_taints_bounded(void **state)
{
	struct strbuf t = { 0 };
	struct seen s = { 0 };
	char err[256] = "";

	strbuf_append(&t, "{\"kind\":\"NodeList\",\"items\":[{\"metadata\":{\"name\":\"a\"},\"spec\":{\"taints\":[");
	for (int i = 0; i < NODELIST_TAINTS_MAX + 5; i++)
		strbuf_appendf(&t, "%s{\"key\":\"k%d\",\"effect\":\"NoSchedule\"}", i ? "," : "", i);
	strbuf_append(&t, "]}}]}");
	assert_false(t.oom);
	assert_int_equal(nodelist_scan(t.s, t.len, "fabric.aicr.run/", on_item, &s, NULL, err, sizeof(err)), 1);
	assert_non_null(strstr(s.text[0], "taint=k15 "));
	assert_null(strstr(s.text[0], "taint=k16 "));
	assert_non_null(strstr(s.text[0], "seen=21"));
	strbuf_free(&t);
}

/* A taint cut by malformed JSON leaves nothing behind (ASan and valgrind watch the strings). */
static void test_taint_malformed(void **state)
{
	static const char text[] = "{\"kind\":\"NodeList\",\"items\":[{\"metadata\":{\"name\":\"a\"},\"spec\":{\"taints\":"
		"[{\"key\":\"nvidia.com/gpu\",\"value\":\"present\",\"effect\":";
	struct seen s = { 0 };
	char err[256] = "";

	assert_int_equal(nodelist_scan(text, strlen(text), "fabric.aicr.run/", on_item, &s, NULL, err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(s.n, 0);
	assert_non_null(strstr(err, "not valid JSON"));
}

/* One line per item: our condition as kept (status, heartbeat), or "none". */
static int on_cond(void *ctx, size_t idx, const struct nodelist_item *it, char *err, size_t errlen)
{
	struct seen *s = ctx;
	char *b = s->text[s->n];
	size_t len = sizeof(s->text[0]);

	(void)err;
	(void)errlen;
	assert_int_equal(idx, s->n);
	snprintf(b, len, "%s", it->name.s);
	if (!it->condition.present) {
		snprintf(b + strlen(b), len - strlen(b), " none");
	} else {
		add_field(b, len, "status", &it->condition.status);
		add_field(b, len, "hb", &it->condition.heartbeat);
	}
	s->n++;
	return 0;
}

/* status.conditions: ours by type, its members in any order, the first of ours only; others skipped. */
static void test_condition(void **state)
{
	static const char text[] =
		"{\"kind\":\"NodeList\",\"items\":["
		"{\"metadata\":{\"name\":\"a\"},\"status\":{\"capacity\":{\"cpu\":\"208\"},\"conditions\":["
		"{\"type\":\"Ready\",\"status\":\"True\",\"lastHeartbeatTime\":\"2026-12-05T00:00:00Z\"},7,null,"
		"{\"lastHeartbeatTime\":\"2026-12-05T01:02:03Z\",\"reason\":\"Links\",\"status\":\"False\","
		"\"type\":\"FabricReady\",\"lastTransitionTime\":\"2026-12-04T23:00:00Z\"},"
		"{\"type\":\"FabricReady\",\"status\":\"True\",\"lastHeartbeatTime\":\"1999-01-01T00:00:00Z\"}]}},"
		"{\"metadata\":{\"name\":\"b\"},\"status\":{\"conditions\":[{\"type\":\"FabricReady\","
		"\"status\":true,\"lastHeartbeatTime\":null}]}},"
		"{\"metadata\":{\"name\":\"c\"},\"status\":{\"conditions\":{\"type\":\"FabricReady\"}}},"
		"{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"},{\"type\":7,\"status\":\"True\"}]},"
		"\"metadata\":{\"name\":\"d\"}}]}";
	struct seen s = { 0 };
	char err[256] = "";

	assert_int_equal(nodelist_scan(text, strlen(text), "fabric.aicr.run/", on_cond, &s, NULL, err, sizeof(err)), 4);
	assert_string_equal(s.text[0], "a status=False hb=2026-12-05T01:02:03Z");
	/* Values that are not strings are present, not kept: the judgement calls them unknown. */
	assert_string_equal(s.text[1], "b status=? hb=?");
	assert_string_equal(s.text[2], "c none");
	assert_string_equal(s.text[3], "d none");
	assert_string_equal(err, "");
}

/* Only the first KUBE_CONDITIONS_MAX entries are looked at; a condition cut by bad JSON leaves nothing. */
static void test_condition_bounded(void **state)
{
	static const char cut[] = "{\"kind\":\"NodeList\",\"items\":[{\"metadata\":{\"name\":\"a\"},\"status\":"
		"{\"conditions\":[{\"type\":\"FabricReady\",\"status\":\"True\",\"lastHeartbeatTime\":";

	for (int at = KUBE_CONDITIONS_MAX - 1; at <= KUBE_CONDITIONS_MAX; at++) {
		struct strbuf t = { 0 };
		struct seen s = { 0 };
		char err[256] = "";

		strbuf_append(&t, "{\"kind\":\"NodeList\",\"items\":[{\"metadata\":{\"name\":\"a\"},"
			      "\"status\":{\"conditions\":[");
		for (int i = 0; i < at; i++)
			strbuf_appendf(&t, "{\"type\":\"X%d\",\"status\":\"True\"},", i);
		strbuf_append(&t, "{\"type\":\"FabricReady\",\"status\":\"True\"}]}}]}");
		assert_false(t.oom);
		assert_int_equal(nodelist_scan(t.s, t.len, "fabric.aicr.run/", on_cond, &s, NULL, err, sizeof(err)), 1);
		assert_string_equal(s.text[0], at < KUBE_CONDITIONS_MAX ? "a status=True hb=-" : "a none");
		strbuf_free(&t);
	}
	{
		struct seen s = { 0 };
		char err[256] = "";

		assert_int_equal(nodelist_scan(cut, strlen(cut), "fabric.aicr.run/", on_cond, &s, NULL, err, sizeof(err)),
				 -EINVAL);
		assert_int_equal(s.n, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_labels_and_taints),
		cmocka_unit_test(test_taints_bounded),
		cmocka_unit_test(test_taint_malformed),
		cmocka_unit_test(test_condition),
		cmocka_unit_test(test_condition_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
