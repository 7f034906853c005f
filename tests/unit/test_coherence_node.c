/* test_coherence_node.c - one NodeList node's published annotations read as facts: kind, readiness, mapping, failed checks. */
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
#include "report/fleet/coherence_node.h"
#include "tests/unit/fleetbuild.h"

#define NODES_MAX 8

struct got {
	struct coherence_node v[NODES_MAX];
	size_t n;
};

static int on_item(void *ctx, size_t idx, const struct nodelist_item *it, char *err, size_t errlen)
{
	struct got *g = ctx;

	(void)idx;
	(void)err;
	(void)errlen;
	assert_true(g->n < NODES_MAX);
	return coherence_node_read(&g->v[g->n++], it);
}

/* Read every node of the NodeList @text (taken) through the scanner, as coherence.c does. */
static void read_text(struct got *g, char *text)
{
	char err[512] = "";

	memset(g, 0, sizeof(*g));
	assert_non_null(text);
	if (nodelist_scan(text, strlen(text), FB_P, on_item, g, NULL, err, sizeof(err)) < 0)
		fail_msg("nodelist_scan: %s", err[0] ? err : "?");
	free(text);
}

static void read_nodes(struct got *g, const struct fb_node *v, size_t n)
{
	read_text(g, fb_list(v, n));
}

/* One node whose annotation @key holds the raw JSON @value (not a string, say). */
static void read_raw(struct got *g, const char *key, const char *value)
{
	char *text;

	assert_true(asprintf(&text, "{\"kind\":\"NodeList\",\"items\":[{\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\","
			     "\"annotations\":{\"" FB_P "profile\":\"tcpxo\",\"" FB_P "%s\":%s}}}]}", key, value) > 0);
	read_text(g, text);
}

static void got_free(struct got *g)
{
	for (size_t i = 0; i < g->n; i++)
		coherence_node_clear(&g->v[i]);
	g->n = 0;
}

static void test_kinds(void **state)
{
	static const struct fb_node v[] = {
		{ .name = "a", .profile = "tcpxo" },
		{ .name = "b", .profile = "tcpx", .ready = "bogus", .interfaces = "[", .attachment = "[" },
		{ .name = "c", .profile = "none" },
		{ .name = "d", .profile = "TCPXO" },                     /* an unknown profile */
		{ .name = "e", .itype = "a3-megagpu-8g" },               /* no profile yet */
		{ .name = "f", .itype = "a3-highgpu-8g" },
		{ .name = "g" },
		{ .name = "h", .profile = "", .itype = "a3-megagpu-8g" },  /* present, empty: not unobserved */
	};
	static const enum coherence_node_kind want[] = {
		COHERENCE_NODE_KIND_TCPXO, COHERENCE_NODE_KIND_TCPX, COHERENCE_NODE_KIND_NONE, COHERENCE_NODE_KIND_OTHER,
		COHERENCE_NODE_KIND_UNOBSERVED, COHERENCE_NODE_KIND_OTHER, COHERENCE_NODE_KIND_OTHER,
		COHERENCE_NODE_KIND_OTHER,
	};
	struct got g;

	(void)state;
	read_nodes(&g, v, 8);
	assert_int_equal(g.n, 8);
	for (size_t i = 0; i < g.n; i++) {
		assert_string_equal(g.v[i].name, v[i].name);
		if (g.v[i].kind != want[i])
			fail_msg("node %s: kind %d, want %d", v[i].name, g.v[i].kind, want[i]);
	}
	/* Only a TCPXO node's annotations are read: the tcpx node's bad values leave no trace. */
	assert_null(g.v[1].ready_value);
	assert_null(g.v[1].map_why);
	assert_int_equal(g.v[1].n_fails, 0);
	got_free(&g);
}

static void test_ready(void **state)
{
	static const struct fb_node v[] = {
		{ .name = "a", .profile = "tcpxo", .ready = "true" },
		{ .name = "b", .profile = "tcpxo", .ready = "false" },
		{ .name = "c", .profile = "tcpxo" },
		{ .name = "d", .profile = "tcpxo", .ready = "True" },
		{ .name = "e", .profile = "tcpxo", .ready = "yes\n\x1b[31m" },
	};
	struct got g;

	(void)state;
	read_nodes(&g, v, 5);
	assert_int_equal(g.v[0].ready, COHERENCE_NODE_READY_TRUE);
	assert_int_equal(g.v[1].ready, COHERENCE_NODE_READY_FALSE);
	assert_int_equal(g.v[2].ready, COHERENCE_NODE_READY_MISSING);
	assert_null(g.v[2].ready_value);
	assert_int_equal(g.v[3].ready, COHERENCE_NODE_READY_BAD);
	assert_string_equal(g.v[3].ready_value, "True");
	assert_int_equal(g.v[4].ready, COHERENCE_NODE_READY_BAD);
	assert_string_equal(g.v[4].ready_value, "yes??[31m");   /* control bytes never reach a terminal */
	got_free(&g);

	read_raw(&g, "ready", "true");                          /* a JSON boolean, not the string */
	assert_int_equal(g.v[0].ready, COHERENCE_NODE_READY_BAD);
	assert_string_equal(g.v[0].ready_value, "(not a string)");
	got_free(&g);
}

static void test_mapping(void **state)
{
	char *good = fb_mapping(NULL, NULL), *dflt = fb_mapping("eth3", "default");
	char *vpc = strdup("[{\"interfaceName\":\"eth8\",\"network\":\"vpc8\"},{\"interfaceName\":\"eth7\",\"network\":\"vpc7\"},"
			   "{\"interfaceName\":\"eth6\",\"network\":\"vpc6\"},{\"interfaceName\":\"eth5\",\"network\":\"vpc5\"},"
			   "{\"interfaceName\":\"eth4\",\"network\":\"vpc4\"},{\"interfaceName\":\"eth3\",\"network\":\"vpc3\"},"
			   "{\"interfaceName\":\"eth2\",\"network\":\"vpc2\"},{\"interfaceName\":\"eth1\",\"network\":\"vpc1\"}]");
	const struct fb_node v[] = {
		{ .name = "a", .profile = "tcpxo", .interfaces = good },
		{ .name = "b", .profile = "tcpxo" },
		{ .name = "c", .profile = "tcpxo", .interfaces = "eth1=gpu-nic-0" },
		{ .name = "d", .profile = "tcpxo", .interfaces = dflt },
		{ .name = "e", .profile = "tcpxo", .interfaces = vpc },
	};
	struct got g;

	(void)state;
	read_nodes(&g, v, 5);
	assert_int_equal(g.v[0].map, COHERENCE_NODE_MAP_VALID);
	assert_string_equal(g.v[0].ifaces[0].name, "eth1");
	assert_string_equal(g.v[0].ifaces[7].network, "a3pool-gpu-nic-8");
	assert_null(g.v[0].names_why);
	assert_null(g.v[0].map_why);
	assert_int_equal(g.v[1].map, COHERENCE_NODE_MAP_MISSING);
	assert_int_equal(g.v[2].map, COHERENCE_NODE_MAP_MALFORMED);
	assert_int_equal(g.v[3].map, COHERENCE_NODE_MAP_INVALID);
	assert_non_null(strstr(g.v[3].map_why, "default"));
	/* Google's names: the shape holds, AICR's naming rule is noted for the judgement to weigh. */
	assert_int_equal(g.v[4].map, COHERENCE_NODE_MAP_VALID);
	assert_string_equal(g.v[4].ifaces[0].name, "eth1");     /* sorted by interface */
	assert_string_equal(g.v[4].ifaces[0].network, "vpc1");
	assert_non_null(g.v[4].names_why);
	assert_non_null(strstr(g.v[4].names_why, "vpc1"));
	assert_null(g.v[4].map_why);
	got_free(&g);
	free(good);
	free(dflt);
	free(vpc);

	read_raw(&g, "interfaces", "[{\"interfaceName\":\"eth1\",\"network\":\"gpu-nic-0\"}]");  /* JSON, not a string */
	assert_int_equal(g.v[0].map, COHERENCE_NODE_MAP_MALFORMED);
	got_free(&g);
}

static void test_attachment(void **state)
{
	const struct fb_node v[] = {
		{ .name = "a", .profile = "tcpxo" },
		{ .name = "b", .profile = "tcpxo", .attachment = "{\"checks\":" },
		{ .name = "c", .profile = "tcpxo", .attachment = "[]" },
		{ .name = "d", .profile = "tcpxo", .attachment = "{\"schema\":\"fabric.aicr.run/v1\"}" },
		{ .name = "e", .profile = "tcpxo", .attachment = "{\"checks\":{}}" },
		{ .name = "f", .profile = "tcpxo", .attachment =
			"{\"checks\":[{\"id\":\"version-pair\",\"status\":\"fail\",\"message\":\"daemon v1.0.20\\u001b[0m\"},"
			"{\"id\":\"daemon-args\",\"status\":\"warn\",\"message\":\"retired\"},"
			"{\"id\":\"\",\"status\":\"fail\",\"message\":\"no id\"},{\"status\":\"fail\"},7,"
			"{\"id\":\"gpu-count\",\"status\":\"FAIL\"},"
			"{\"id\":\"plugin-files\",\"status\":\"fail\"}]}" },
	};
	struct got g;

	(void)state;
	read_nodes(&g, v, 6);
	assert_int_equal(g.v[0].attach, COHERENCE_NODE_ATTACH_MISSING);
	assert_int_equal(g.v[1].attach, COHERENCE_NODE_ATTACH_BAD);
	assert_int_equal(g.v[2].attach, COHERENCE_NODE_ATTACH_BAD);
	assert_int_equal(g.v[3].attach, COHERENCE_NODE_ATTACH_OK);      /* no checks list: nothing failed that we know */
	assert_int_equal(g.v[3].n_fails, 0);
	assert_int_equal(g.v[4].attach, COHERENCE_NODE_ATTACH_BAD);
	assert_int_equal(g.v[5].attach, COHERENCE_NODE_ATTACH_OK);
	assert_int_equal(g.v[5].n_fails, 2);                    /* failed, with an id; in the attachment's order */
	assert_string_equal(g.v[5].fails[0].id, "version-pair");
	assert_string_equal(g.v[5].fails[0].message, "daemon v1.0.20?[0m");
	assert_string_equal(g.v[5].fails[1].id, "plugin-files");
	assert_string_equal(g.v[5].fails[1].message, "");
	got_free(&g);

	read_raw(&g, "attachment", "{\"checks\":[]}");          /* an object, not the string */
	assert_int_equal(g.v[0].attach, COHERENCE_NODE_ATTACH_BAD);
	got_free(&g);
}

static void test_attachment_limits(void **state)
{
	struct strbuf many = { 0 }, big = { 0 }, longmsg = { 0 };
	struct got g;

	(void)state;
	strbuf_append(&many, "{\"checks\":[");
	for (int i = 0; i < COHERENCE_NODE_FAILS_MAX + 8; i++)
		strbuf_appendf(&many, "%s{\"id\":\"c%d\",\"status\":\"fail\"}", i ? "," : "", i);
	strbuf_append(&many, "]}");
	/* Over 64 KiB: refused unread, however well formed. */
	strbuf_append(&big, "{\"checks\":[{\"id\":\"x\",\"status\":\"fail\"}],\"pad\":\"");
	for (int i = 0; i < (64 << 10) / 64; i++)
		strbuf_append(&big, "0123456789012345678901234567890123456789012345678901234567890123");
	strbuf_append(&big, "\"}");
	strbuf_append(&longmsg, "{\"checks\":[{\"id\":\"x\",\"status\":\"fail\",\"message\":\"");
	for (int i = 0; i < 100; i++)
		strbuf_append(&longmsg, "abcdefghij");
	strbuf_append(&longmsg, "\"}]}");
	assert_false(many.oom || big.oom || longmsg.oom);
	{
		const struct fb_node v[] = {
			{ .name = "a", .profile = "tcpxo", .attachment = many.s },
			{ .name = "b", .profile = "tcpxo", .attachment = big.s },
			{ .name = "c", .profile = "tcpxo", .attachment = longmsg.s },
		};

		read_nodes(&g, v, 3);
	}
	assert_int_equal(g.v[0].attach, COHERENCE_NODE_ATTACH_OK);
	assert_int_equal(g.v[0].n_fails, COHERENCE_NODE_FAILS_MAX);
	assert_string_equal(g.v[0].fails[COHERENCE_NODE_FAILS_MAX - 1].id, "c31");
	assert_int_equal(g.v[1].attach, COHERENCE_NODE_ATTACH_BAD);
	assert_int_equal(g.v[1].n_fails, 0);
	assert_int_equal(g.v[2].n_fails, 1);
	assert_true(strlen(g.v[2].fails[0].message) < 300);     /* cut (240 bytes and "…") */
	assert_non_null(strstr(g.v[2].fails[0].message, "…"));
	got_free(&g);
	strbuf_free(&many);
	strbuf_free(&big);
	strbuf_free(&longmsg);
}

/* What every node keeps for the runtime check: labels, taints, the attachment's versions and pairs (read once). */
static void test_published(void **state)
{
	char *map = fb_mapping(NULL, NULL), *a15 = fb_attachment("v1.0.15", "v1.0.21", 8, 8);
	char *ax = fb_attachment("v3.1.12", "", 8, 4), *bare = fb_attachment(NULL, NULL, -1, 0);
	const struct fb_node v[] = {
		fb_tcpxo("a", map, a15),
		{ .name = "x", .profile = "tcpx", .ready = "true", .attachment = ax, .itype = "a3-highgpu-8g" },
		{ .name = "b", .profile = "tcpxo", .attachment = bare, .taint_effect = "NoExecute" },
		{ .name = "c", .profile = "tcpxo", .attachment = "{not json" },
	};
	struct got g;

	(void)state;
	read_nodes(&g, v, 4);
	assert_non_null(g.v[0].profile);
	assert_string_equal(g.v[0].itype, "a3-megagpu-8g");
	assert_string_equal(g.v[0].accel, "nvidia-h100-mega-80gb");
	assert_string_equal(g.v[0].pool, "a3pool");
	assert_string_equal(g.v[0].installer, "v1.0.15");
	assert_string_equal(g.v[0].expected, "v1.0.21");
	assert_string_equal(g.v[0].gpus, "8");
	assert_string_equal(g.v[0].nics, "8");
	assert_int_equal(g.v[0].n_taints, 1);
	assert_string_equal(g.v[0].taints[0].key, "nvidia.com/gpu");
	assert_string_equal(g.v[0].taints[0].value, "present");
	assert_string_equal(g.v[0].taints[0].effect, "NoSchedule");
	assert_int_equal(g.v[0].attach, COHERENCE_NODE_ATTACH_OK);
	/* A TCPX node: its versions and pairs, never its checks; an empty expectedDaemon is not published. */
	assert_int_equal(g.v[1].ready, COHERENCE_NODE_READY_TRUE);
	assert_string_equal(g.v[1].installer, "v3.1.12");
	assert_null(g.v[1].expected);
	assert_string_equal(g.v[1].nics, "4");
	assert_null(g.v[1].accel);
	/* No versions, no pairs, a taint without key or value; an unreadable attachment leaves all unknown. */
	assert_null(g.v[2].installer);
	assert_null(g.v[2].gpus);
	assert_int_equal(g.v[2].n_taints, 1);
	assert_null(g.v[2].taints[0].key);
	assert_null(g.v[2].taints[0].value);
	assert_string_equal(g.v[2].taints[0].effect, "NoExecute");
	assert_null(g.v[3].installer);
	assert_null(g.v[3].gpus);
	assert_int_equal(g.v[3].attach, COHERENCE_NODE_ATTACH_BAD);
	got_free(&g);
	free(map);
	free(a15);
	free(ax);
	free(bare);
}

static void test_name_printable(void **state)
{
	struct got g;

	(void)state;
	read_text(&g, strdup("{\"kind\":\"NodeList\",\"items\":[{\"kind\":\"Node\",\"metadata\":{\"name\":\"n\\u0007\\r1\"}}]}"));
	assert_int_equal(g.n, 1);
	assert_string_equal(g.v[0].name, "n??1");
	assert_int_equal(g.v[0].kind, COHERENCE_NODE_KIND_OTHER);
	got_free(&g);
}

/* The fleet's status reads every profiled node's failed checks, its profile's text and our condition. */
static void test_status_facts(void **state)
{
	const struct fb_node v[] = {
		{ .name = "x", .profile = "tcpx", .ready = "false", .itype = "a3-highgpu-8g",
		  .attachment = "{\"checks\":[{\"id\":\"links\",\"status\":\"fail\"}]}",
		  .cond_status = "False", .heartbeat = "2026-12-05T00:00:00Z" },
		{ .name = "n", .profile = "none", .ready = "false", .attachment = "{\"checks\":[{\"id\":\"gpus\",\"status\":\"fail\"}]}",
		  .cond_status = "Unknown" },
		{ .name = "o", .itype = "n2-standard-8", .attachment = "{\"checks\":[{\"id\":\"gpus\",\"status\":\"fail\"}]}",
		  .cond_status = "True" },
		{ .name = "p", .profile = "tcpxo", .cond_status = "sure" },
		{ .name = "q", .profile = "tcpxo" },
	};
	struct got g;

	(void)state;
	read_nodes(&g, v, 5);
	assert_string_equal(g.v[0].profile, "tcpx");
	assert_int_equal(g.v[0].n_fails, 1);
	assert_string_equal(g.v[0].fails[0].id, "links");
	assert_int_equal(g.v[0].cond, COHERENCE_NODE_COND_FALSE);
	assert_string_equal(g.v[0].heartbeat, "2026-12-05T00:00:00Z");
	assert_int_equal(g.v[1].n_fails, 1);
	assert_int_equal(g.v[1].cond, COHERENCE_NODE_COND_UNKNOWN);
	assert_null(g.v[1].heartbeat);
	/* No profile annotation: the agent's checks are not its verdict (none is kept). */
	assert_null(g.v[2].profile);
	assert_int_equal(g.v[2].n_fails, 0);
	assert_int_equal(g.v[2].cond, COHERENCE_NODE_COND_TRUE);
	assert_int_equal(g.v[3].cond, COHERENCE_NODE_COND_UNKNOWN);
	assert_int_equal(g.v[4].cond, COHERENCE_NODE_COND_MISSING);
	assert_int_equal(g.v[4].attach, COHERENCE_NODE_ATTACH_MISSING);
	got_free(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_ready),
		cmocka_unit_test(test_mapping),
		cmocka_unit_test(test_attachment),
		cmocka_unit_test(test_attachment_limits),
		cmocka_unit_test(test_published),
		cmocka_unit_test(test_name_printable),
		cmocka_unit_test(test_status_facts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
