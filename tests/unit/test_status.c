/* test_status.c - the fleet's status (report/fleet/status.c, report/checks/stresult.c, report/render/render_status.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/unit/fleetbuild.h"
#include "probes/model/timetext.h"
#include "report/fleet/coherence.h"
#include "report/fleet/status.h"
#include "report/render/render_status.h"

#define NOW 1796428800LL                /* 2026-12-05T00:00:00Z */
#define FAILS(list) "{\"versions\":{\"installer\":\"v1.0.15\"},\"checks\":[" list "]}"
#define FAIL(id) "{\"id\":\"" id "\",\"status\":\"fail\",\"message\":\"m\"}"

/* The status of @n built nodes (period 300 s), judged at NOW. Return: status_judge()'s. */
static int judge(const struct fb_node *v, size_t n, struct stresult *res, char *err, size_t errlen)
{
	struct coherence *c = NULL;
	const struct coherence_node *nodes;
	char *text = fb_list(v, n);
	size_t cnt = 0;
	int r;

	assert_non_null(text);
	assert_int_equal(coherence_new(FB_P, &c), 0);
	assert_int_equal(coherence_add_nodelist(c, text, strlen(text), NULL, err, errlen), (int)n);
	nodes = coherence_nodes(c, &cnt);
	r = status_judge(nodes, cnt, NOW, 300, res, err, errlen);
	coherence_free(c);
	free(text);
	return r;
}

static struct fb_node node(const char *name, const char *itype, const char *profile, const char *ready,
			   const char *attachment, const char *hb)
{
	return (struct fb_node){ .name = name, .itype = itype, .profile = profile, .ready = ready,
				 .attachment = attachment, .cond_status = hb ? "True" : NULL, .heartbeat = hb };
}

static const struct stresult_node *row(const struct stresult *r, const char *name)
{
	for (size_t i = 0; i < r->n_nodes; i++)
		if (strcmp(r->nodes[i].name, name) == 0)
			return &r->nodes[i];
	fail_msg("no row %s", name);
	return NULL;
}

static void causes_are(const struct stresult_node *n, const char *want)
{
	char got[256] = "";

	for (size_t k = 0; k < n->n_causes; k++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", k ? "," : "", n->causes[k]);
	assert_string_equal(got, want);
}

/* Who is listed: a fabric profile other than none, or an A3 GPU machine type; CPU nodes are not. */
static void test_listed(void **state)
{
	const struct fb_node v[] = {
		node("cpu-none", "n2-standard-8", "none", "false", FAILS(FAIL("gpus")), "2026-12-05T00:00:00Z"),
		node("cpu-bare", "n2-standard-8", NULL, NULL, NULL, NULL),
		node("high-bare", "a3-highgpu-8g", NULL, NULL, NULL, NULL),
		node("edge-bare", "a3-edgegpu-8g", NULL, NULL, NULL, NULL),
		node("mega-none", "a3-megagpu-8g", "none", "false", FAILS(FAIL("gpus") "," FAIL("gpu-nics")),
		     "2026-12-04T23:59:00Z"),
		node("odd-tcpxo", "x9-custom", "tcpxo", "true", FAILS(""), "2026-12-04T23:59:50Z"),
		node("tcpx-node", "a3-highgpu-8g", "tcpx", "true", FAILS(""), "2026-12-05T00:00:30Z"),
	};
	struct stresult r = { 0 };
	char err[256] = "";

	(void)state;
	assert_int_equal(judge(v, sizeof(v) / sizeof(v[0]), &r, err, sizeof(err)), 0);
	assert_int_equal(r.n_nodes, 5);
	/* By name. */
	assert_string_equal(r.nodes[0].name, "edge-bare");
	assert_string_equal(r.nodes[1].name, "high-bare");
	assert_string_equal(r.nodes[2].name, "mega-none");
	assert_string_equal(r.nodes[3].name, "odd-tcpxo");
	assert_string_equal(r.nodes[4].name, "tcpx-node");
	assert_true(row(&r, "high-bare")->unobserved);
	assert_false(row(&r, "high-bare")->ready);
	assert_null(row(&r, "high-bare")->profile);
	causes_are(row(&r, "high-bare"), "unobserved");
	assert_int_equal(row(&r, "high-bare")->age_s, -1);
	causes_are(row(&r, "mega-none"), "gpus,gpu-nics");
	assert_string_equal(row(&r, "mega-none")->profile, "none");
	assert_int_equal(row(&r, "mega-none")->age_s, 60);
	assert_true(row(&r, "odd-tcpxo")->ready);
	assert_int_equal(row(&r, "odd-tcpxo")->age_s, 10);
	/* A heartbeat ahead of our clock is no age at all. */
	assert_int_equal(row(&r, "tcpx-node")->age_s, 0);
	assert_true(row(&r, "tcpx-node")->ready);
	assert_int_equal(r.n_ready, 2);
	/* Grouped: the most nodes first, then by id. */
	assert_int_equal(r.n_causes, 3);
	assert_string_equal(r.causes[0].id, "unobserved");
	assert_int_equal(r.causes[0].n, 2);
	assert_string_equal(r.nodes[r.causes[0].nodes[0]].name, "edge-bare");
	assert_string_equal(r.nodes[r.causes[0].nodes[1]].name, "high-bare");
	assert_string_equal(r.causes[1].id, "gpu-nics");
	assert_string_equal(r.causes[2].id, "gpus");
	stresult_free(&r);
	assert_null(r.nodes);
	stresult_free(NULL);
}

/*
 * Stale after three heartbeat periods (not at): not ready whatever the node published. Issue 30: a
 * heartbeat status cannot vouch for (none, no condition, not a time) is never ready either.
 */
static void test_stale(void **state)
{
	const struct fb_node v[] = {
		node("at-limit", "a3-megagpu-8g", "tcpxo", "true", FAILS(""), "2026-12-04T23:45:00Z"),
		node("past-limit", "a3-megagpu-8g", "tcpxo", "true", FAILS(""), "2026-12-04T23:44:59Z"),
		node("stale-failing", "a3-megagpu-8g", "tcpxo", "false", FAILS(FAIL("links")), "2026-12-01T00:00:00Z"),
		node("no-heartbeat", "a3-megagpu-8g", "tcpxo", "true", FAILS(""), NULL),
		node("bad-heartbeat", "a3-megagpu-8g", "tcpxo", "true", FAILS(""), "yesterday"),
	};
	struct stresult r = { 0 };
	char err[256] = "";

	(void)state;
	assert_int_equal(judge(v, sizeof(v) / sizeof(v[0]), &r, err, sizeof(err)), 0);
	assert_int_equal(r.period_s, 300);
	assert_false(row(&r, "at-limit")->stale);
	assert_true(row(&r, "at-limit")->ready);
	assert_int_equal(row(&r, "at-limit")->age_s, 900);
	assert_true(row(&r, "past-limit")->stale);
	assert_false(row(&r, "past-limit")->ready);
	causes_are(row(&r, "past-limit"), "stale");
	causes_are(row(&r, "stale-failing"), "links,stale");
	assert_int_equal(row(&r, "stale-failing")->age_s, 4 * 86400);
	assert_true(row(&r, "past-limit")->unknown);
	assert_false(row(&r, "no-heartbeat")->stale);
	assert_false(row(&r, "no-heartbeat")->ready);
	assert_true(row(&r, "no-heartbeat")->unknown);
	causes_are(row(&r, "no-heartbeat"), "condition-missing");
	assert_null(row(&r, "no-heartbeat")->heartbeat);
	assert_int_equal(row(&r, "bad-heartbeat")->age_s, -1);
	assert_false(row(&r, "bad-heartbeat")->ready);
	causes_are(row(&r, "bad-heartbeat"), "heartbeat-unknown");
	assert_string_equal(row(&r, "bad-heartbeat")->heartbeat, "yesterday");
	assert_int_equal(r.n_ready, 1);
	assert_int_equal(r.n_unknown, 4);
	assert_string_equal(r.causes[0].id, "stale");
	assert_int_equal(r.causes[0].n, 2);
	stresult_free(&r);
}

/*
 * Issue 30: a heartbeat ahead of this clock: within 2 minutes (clocks apart) it is now; further, its
 * age is unknown and the node is not ready (heartbeat-in-future); a condition without its heartbeat;
 * ready "true" without the condition (the status patch never landed).
 */
static void test_heartbeat_vouched(void **state)
{
	struct fb_node v[] = {
		node("ahead-120", "a3-megagpu-8g", "tcpxo", "true", FAILS(""), "2026-12-05T00:02:00Z"),
		node("ahead-121", "a3-megagpu-8g", "tcpxo", "true", FAILS(""), "2026-12-05T00:02:01Z"),
		node("ahead-year", "a3-megagpu-8g", "tcpxo", "true", FAILS(""), "2027-12-05T00:00:00Z"),
		node("cond-no-beat", "a3-megagpu-8g", "tcpxo", "true", FAILS(""), NULL),
		node("no-cond", "a3-megagpu-8g", "tcpxo", "true", FAILS(""), NULL),
		node("no-cond-failing", "a3-megagpu-8g", "tcpxo", "false", FAILS(FAIL("links")), NULL),
	};
	struct stresult r = { 0 };
	char err[256] = "";

	(void)state;
	v[3].cond_status = "True";
	assert_int_equal(judge(v, sizeof(v) / sizeof(v[0]), &r, err, sizeof(err)), 0);
	assert_true(row(&r, "ahead-120")->ready);
	assert_int_equal(row(&r, "ahead-120")->age_s, 0);
	causes_are(row(&r, "ahead-120"), "");
	assert_false(row(&r, "ahead-121")->ready);
	assert_true(row(&r, "ahead-121")->unknown);
	assert_int_equal(row(&r, "ahead-121")->age_s, -1);
	assert_false(row(&r, "ahead-121")->stale);
	causes_are(row(&r, "ahead-121"), "heartbeat-in-future");
	causes_are(row(&r, "ahead-year"), "heartbeat-in-future");
	assert_false(row(&r, "cond-no-beat")->ready);
	causes_are(row(&r, "cond-no-beat"), "heartbeat-unknown");
	assert_false(row(&r, "no-cond")->ready);
	assert_true(row(&r, "no-cond")->unknown);
	causes_are(row(&r, "no-cond"), "condition-missing");
	causes_are(row(&r, "no-cond-failing"), "links,condition-missing");
	assert_int_equal(r.n_ready, 1);
	assert_int_equal(r.n_unknown, 5);
	stresult_free(&r);
}

/* Not ready without a failed check named, a ready annotation that says nothing, a check listed twice. */
#define HB "2026-12-04T23:59:00Z"

static void test_unknown_causes(void **state)
{
	const struct fb_node v[] = {
		node("no-checks", "a3-megagpu-8g", "tcpxo", "false", FAILS(""), HB),
		node("no-attachment", "a3-megagpu-8g", "tcpxo", "false", NULL, HB),
		node("bad-ready", "a3-megagpu-8g", "tcpxo", "maybe", FAILS(""), HB),
		node("no-ready", "a3-megagpu-8g", "tcpxo", NULL, FAILS(""), HB),
		node("twice", "a3-megagpu-8g", "tcpxo", "false", FAILS(FAIL("links") "," FAIL("links")), HB),
		node("ready-fails", "a3-megagpu-8g", "tcpxo", "true", FAILS(FAIL("networks")), HB),
	};
	struct stresult r = { 0 };
	char err[256] = "";

	(void)state;
	assert_int_equal(judge(v, sizeof(v) / sizeof(v[0]), &r, err, sizeof(err)), 0);
	causes_are(row(&r, "no-checks"), "checks-unknown");
	causes_are(row(&r, "no-attachment"), "checks-unknown");
	causes_are(row(&r, "bad-ready"), "ready-unknown");
	causes_are(row(&r, "no-ready"), "ready-unknown");
	causes_are(row(&r, "twice"), "links");
	/* A ready node's row says what its attachment says; only the not-ready nodes are grouped. */
	causes_are(row(&r, "ready-fails"), "networks");
	assert_true(row(&r, "ready-fails")->ready);
	for (size_t i = 0; i < r.n_causes; i++)
		assert_string_not_equal(r.causes[i].id, "networks");
	stresult_free(&r);
}

/* A hostile attachment: a check id with control bytes and one too long are printable and cut, never dropped. */
static void test_hostile_ids(void **state)
{
	const struct fb_node v[] = {
		node("h", "a3-megagpu-8g", "tcpxo\a", "false",
		     FAILS(FAIL("li\\nnks") "," FAIL("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")),
		     "2026-12-05T00:00:00Z\x01"),
	};
	struct stresult r = { 0 };
	char err[256] = "";

	(void)state;
	assert_int_equal(judge(v, 1, &r, err, sizeof(err)), 0);
	assert_int_equal(r.n_nodes, 1);
	assert_string_equal(r.nodes[0].profile, "tcpxo?");
	assert_int_equal(r.nodes[0].n_causes, 3);
	assert_string_equal(r.nodes[0].causes[0], "li?nks");
	assert_int_equal(strlen(r.nodes[0].causes[1]), 64 + strlen("…"));
	/* A heartbeat that is not a time: no age, not stale, not vouched for. */
	assert_string_equal(r.nodes[0].causes[2], "heartbeat-unknown");
	assert_int_equal(r.nodes[0].age_s, -1);
	assert_false(r.nodes[0].stale);
	assert_true(r.nodes[0].unknown);
	stresult_free(&r);
}

/* FabricReady Unknown (the daemon cannot observe the node): not ready, whatever the annotations kept. */
static void test_condition_unknown(void **state)
{
	struct fb_node v[] = {
		node("unknown", "a3-megagpu-8g", "tcpxo", "true", FAILS(""), "2026-12-04T23:59:00Z"),
		node("garbage", "a3-megagpu-8g", "tcpxo", "true", FAILS(""), "2026-12-04T23:59:00Z"),
		node("false-cond", "a3-megagpu-8g", "tcpxo", "true", FAILS(""), "2026-12-04T23:59:00Z"),
	};
	struct stresult r = { 0 };
	char err[256] = "";

	(void)state;
	v[0].cond_status = "Unknown";
	v[1].cond_status = "Maybe";
	v[2].cond_status = "False";
	assert_int_equal(judge(v, 3, &r, err, sizeof(err)), 0);
	assert_false(row(&r, "unknown")->ready);
	causes_are(row(&r, "unknown"), "observation-failed");
	causes_are(row(&r, "garbage"), "observation-failed");
	/* False beside ready "true": two writes, the second on its way; the annotation is the verdict. */
	assert_true(row(&r, "false-cond")->ready);
	assert_string_equal(r.causes[0].id, "observation-failed");
	assert_int_equal(r.causes[0].n, 2);
	stresult_free(&r);
}

static void test_duplicate(void **state)
{
	const struct fb_node v[] = {
		node("a", "a3-megagpu-8g", "tcpxo", "true", FAILS(""), NULL),
		node("a", "a3-megagpu-8g", "tcpxo", "false", FAILS(FAIL("links")), NULL),
	};
	struct stresult r = { 0 };
	char err[256] = "";

	(void)state;
	assert_int_equal(judge(v, 2, &r, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "node 'a' appears more than once in the list");
	assert_null(r.nodes);
}

/* The output does not depend on the order the nodes came in; the human form and the JSON. */
static void test_render(void **state)
{
	const struct fb_node v[] = {
		node("n-links-1", "a3-megagpu-8g", "tcpxo", "false", FAILS(FAIL("links")), "2026-12-04T23:58:00Z"),
		node("healthy", "a3-megagpu-8g", "tcpxo", "true", FAILS(""), "2026-12-04T23:59:15Z"),
		node("n-links-0", "a3-megagpu-8g", "tcpxo", "false", FAILS(FAIL("links") "," FAIL("aperture-devices")),
		     "2026-12-04T20:00:00Z"),
		node("fresh", "a3-highgpu-8g", NULL, NULL, NULL, NULL),
	};
	struct fb_node rev[4];
	struct stresult r = { 0 }, r2 = { 0 };
	char err[256] = "", *json, *json2, *human = NULL;
	size_t hlen = 0;
	FILE *f;

	(void)state;
	for (size_t i = 0; i < 4; i++)
		rev[i] = v[3 - i];
	assert_int_equal(judge(v, 4, &r, err, sizeof(err)), 0);
	assert_int_equal(judge(rev, 4, &r2, err, sizeof(err)), 0);
	json = render_status_json(&r);
	json2 = render_status_json(&r2);
	assert_non_null(json);
	assert_string_equal(json, json2);
	assert_non_null(strstr(json, "\"causes\": {\n    \"links\": [\n      \"n-links-0\",\n      \"n-links-1\"\n    ],"));
	assert_non_null(strstr(json, "\"ready\": false"));
	assert_non_null(strstr(json, "\"ageSeconds\": null"));
	f = open_memstream(&human, &hlen);
	assert_int_equal(render_status_table(&r, false, f), 0);
	fclose(f);
	assert_string_equal(human,
		"fleet: 4 nodes listed, 1 ready, 3 not ready (1 unknown: not vouched for)\n"
		"\n"
		"  NODE       PROFILE  READY       AGE          CAUSES\n"
		"  fresh      -        unobserved  -            unobserved\n"
		"  healthy    tcpxo    yes         45s          -\n"
		"  n-links-0  tcpxo    unknown     4h (stale)   links, aperture-devices, stale\n"
		"  n-links-1  tcpxo    no          2m           links\n"
		"\n"
		"not ready, by cause:\n"
		"  links: 2 nodes: n-links-0, n-links-1\n"
		"  aperture-devices: 1 node: n-links-0\n"
		"  stale: 1 node: n-links-0\n"
		"  unobserved: 1 node: fresh\n");
	free(human);
	free(json);
	free(json2);
	stresult_free(&r);
	stresult_free(&r2);
}

/* A cause held by more nodes than are shown: the first RENDER_STATUS_NAMES_SHOWN by name, then "… (N more)". */
static void test_many_nodes_one_cause(void **state)
{
	enum { N = RENDER_STATUS_NAMES_SHOWN + 5 };
	struct fb_node v[N];
	char names[N][16], *human = NULL, want[64];
	struct stresult r = { 0 };
	char err[256] = "";
	size_t hlen = 0;
	FILE *f;

	(void)state;
	for (int i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), "n%02d", i);
		v[i] = node(names[i], "a3-megagpu-8g", "tcpxo", "false", FAILS(FAIL("links")), HB);
	}
	assert_int_equal(judge(v, N, &r, err, sizeof(err)), 0);
	assert_int_equal(r.n_causes, 1);
	assert_int_equal(r.causes[0].n, N);
	f = open_memstream(&human, &hlen);
	assert_int_equal(render_status_table(&r, false, f), 0);
	fclose(f);
	snprintf(want, sizeof(want), "  links: %d nodes: n00, n01, ", N);
	assert_non_null(strstr(human, want));
	snprintf(want, sizeof(want), ", n%02d, … (5 more)\n", RENDER_STATUS_NAMES_SHOWN - 1);
	assert_non_null(strstr(human, want));
	snprintf(want, sizeof(want), "n%02d,", RENDER_STATUS_NAMES_SHOWN);
	assert_null(strstr(strstr(human, "links: "), want));
	free(human);
	stresult_free(&r);
}

static void test_age_text(void **state)
{
	char b[32];

	(void)state;
	timetext_duration(-1, TIMETEXT_COARSE, b, sizeof(b));
	assert_string_equal(b, "-");
	timetext_duration(119, TIMETEXT_COARSE, b, sizeof(b));
	assert_string_equal(b, "119s");
	timetext_duration(120, TIMETEXT_COARSE, b, sizeof(b));
	assert_string_equal(b, "2m");
	timetext_duration(7199, TIMETEXT_COARSE, b, sizeof(b));
	assert_string_equal(b, "119m");
	timetext_duration(7200, TIMETEXT_COARSE, b, sizeof(b));
	assert_string_equal(b, "2h");
	timetext_duration(48 * 3600, TIMETEXT_COARSE, b, sizeof(b));
	assert_string_equal(b, "2d");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_listed),
		cmocka_unit_test(test_stale),
		cmocka_unit_test(test_heartbeat_vouched),
		cmocka_unit_test(test_unknown_causes),
		cmocka_unit_test(test_hostile_ids),
		cmocka_unit_test(test_condition_unknown),
		cmocka_unit_test(test_duplicate),
		cmocka_unit_test(test_render),
		cmocka_unit_test(test_many_nodes_one_cause),
		cmocka_unit_test(test_age_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
