/* test_metrics.c - the /metrics page (metrics_render), its histogram, and the API request counters (apicount). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "probes/kube/apicount.h"
#include "report/render/metrics.h"

/* The page of @in; the caller frees. */
static char *render(const struct metrics_input *in)
{
	struct strbuf sb = { 0 };

	assert_int_equal(metrics_render(in, &sb), 0);
	assert_non_null(sb.s);
	return strbuf_take(&sb);
}

/* @line is one whole line of @page. */
static void has_line(const char *page, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = page; (p = strstr(p, line)); p++) {
		if ((p == page || p[-1] == '\n') && p[n] == '\n')
			return;
	}
	fail_msg("no line \"%s\" in:\n%s", line, page);
}

static void no_text(const char *page, const char *text)
{
	if (strstr(page, text))
		fail_msg("\"%s\" should not be in:\n%s", text, page);
}

static size_t count_lines(const char *page, const char *prefix)
{
	size_t n = 0, k = strlen(prefix);

	for (const char *p = page; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		n += strncmp(p, prefix, k) == 0;
	return n;
}

static void test_before_any_verdict(void **state)
{
	struct metrics_input in = { .version = "0.1.0" };
	char *page = render(&in);

	has_line(page, "# TYPE tcpxo_build_info gauge");
	has_line(page, "tcpxo_build_info{version=\"0.1.0\"} 1");
	has_line(page, "tcpxo_node_ready 0");
	has_line(page, "tcpxo_node_observed 0");
	has_line(page, "tcpxo_node_profile{profile=\"none\"} 0");
	has_line(page, "tcpxo_node_profile{profile=\"tcpxo\"} 0");
	/* Every check and status has its series from the start: alerts never lose them. */
	assert_int_equal(count_lines(page, "tcpxo_check_status{"), CHECK__COUNT * 4);
	has_line(page, "tcpxo_check_status{check=\"machine-type\",status=\"pass\"} 0");
	no_text(page, "tcpxo_check_status{check=\"gpus\",status=\"skip\"} 1");
	has_line(page, "# TYPE tcpxo_pod_attachment gauge");
	assert_int_equal(count_lines(page, "tcpxo_pod_attachment{"), 0);
	has_line(page, "tcpxo_last_observation_timestamp_seconds 0.000");
	has_line(page, "tcpxo_observation_duration_seconds_bucket{le=\"+Inf\"} 0");
	has_line(page, "tcpxo_observation_duration_seconds_count 0");
	has_line(page, "# TYPE tcpxo_api_requests_total counter");
	has_line(page, "# TYPE tcpxo_watch_relists_total counter");
	has_line(page, "tcpxo_node_writes_total{kind=\"merge_patch\"} 0");
	has_line(page, "tcpxo_node_writes_total{kind=\"status_patch\"} 0");
	has_line(page, "tcpxo_node_writes_total{kind=\"event\"} 0");
	free(page);
}

static void test_verdict_and_pods(void **state)
{
	struct metrics_pod pods[] = {
		{ .ns = "team-b", .name = "train-0", .verdict = ATTACH_ATTACHED, .gpus = 8, .has_transport = true,
		  .transport = TRANSPORT_PARTIAL, .rails = 2 },
		{ .ns = "team-a", .name = "zeta", .verdict = ATTACH_PARTIAL, .has_transport = true,
		  .transport = TRANSPORT_TCP },
		{ .ns = "team-a", .name = "alpha", .verdict = ATTACH_UNATTACHED },
	};
	struct metrics_input in = {
		.version = "0.1.0", .evaluated = true, .observed = true, .ready = false, .profile = PROFILE_TCPXO,
		.pods = pods, .n_pods = 3, .last_observation_s = 1767225600.25,
		.writes = { 2, 3, 4 },
	};
	char *page, *a, *z, *t;

	for (unsigned c = 0; c < CHECK__COUNT; c++)
		in.checks[c] = CHECK_PASS;
	in.checks[CHECK_LINKS] = CHECK_FAIL;
	in.checks[CHECK_NETWORKS] = CHECK_SKIP;
	page = render(&in);
	has_line(page, "tcpxo_node_ready 0");
	has_line(page, "tcpxo_node_observed 1");
	has_line(page, "tcpxo_node_profile{profile=\"tcpxo\"} 1");
	has_line(page, "tcpxo_node_profile{profile=\"tcpx\"} 0");
	has_line(page, "tcpxo_node_profile{profile=\"none\"} 0");
	has_line(page, "tcpxo_check_status{check=\"links\",status=\"fail\"} 1");
	has_line(page, "tcpxo_check_status{check=\"links\",status=\"pass\"} 0");
	has_line(page, "tcpxo_check_status{check=\"networks\",status=\"skip\"} 1");
	has_line(page, "tcpxo_check_status{check=\"gpus\",status=\"pass\"} 1");
	has_line(page, "tcpxo_check_status{check=\"gpus\",status=\"warn\"} 0");
	/* One series per verdict for each pod; 1 for its own. */
	assert_int_equal(count_lines(page, "tcpxo_pod_attachment{"), 3 * ATTACH_VERDICT__COUNT);
	has_line(page, "tcpxo_pod_attachment{namespace=\"team-a\",pod=\"zeta\",verdict=\"partial\"} 1");
	has_line(page, "tcpxo_pod_attachment{namespace=\"team-a\",pod=\"zeta\",verdict=\"attached\"} 0");
	has_line(page, "tcpxo_pod_attachment{namespace=\"team-a\",pod=\"alpha\",verdict=\"unattached\"} 1");
	has_line(page, "tcpxo_pod_attachment{namespace=\"team-b\",pod=\"train-0\",verdict=\"attached\"} 1");
	has_line(page, "tcpxo_pod_attachment{namespace=\"team-b\",pod=\"train-0\",verdict=\"not-fabric\"} 0");
	/* A gauge family: one series per pod. */
	has_line(page, "# TYPE tcpxo_pod_gpus gauge");
	assert_int_equal(count_lines(page, "tcpxo_pod_gpus{"), 3);
	has_line(page, "tcpxo_pod_gpus{namespace=\"team-b\",pod=\"train-0\"} 8");
	has_line(page, "tcpxo_pod_gpus{namespace=\"team-a\",pod=\"zeta\"} 0");
	/* Transport: a state set and a gauge for the pods sampled; none for a pod not sampled yet. */
	has_line(page, "# TYPE tcpxo_pod_transport gauge");
	assert_int_equal(count_lines(page, "tcpxo_pod_transport{"), 2 * TRANSPORT__COUNT);
	has_line(page, "tcpxo_pod_transport{namespace=\"team-b\",pod=\"train-0\",state=\"partial\"} 1");
	has_line(page, "tcpxo_pod_transport{namespace=\"team-b\",pod=\"train-0\",state=\"fastrak\"} 0");
	has_line(page, "tcpxo_pod_transport{namespace=\"team-a\",pod=\"zeta\",state=\"tcp\"} 1");
	has_line(page, "tcpxo_pod_transport{namespace=\"team-a\",pod=\"zeta\",state=\"idle\"} 0");
	assert_int_equal(count_lines(page, "state=\"none\""), 0);
	has_line(page, "tcpxo_pod_transport{namespace=\"team-a\",pod=\"zeta\",state=\"not-observed\"} 0");
	assert_int_equal(count_lines(page, "tcpxo_pod_transport{namespace=\"team-a\",pod=\"alpha\""), 0);
	assert_int_equal(count_lines(page, "tcpxo_pod_transport_rails{"), 2);
	has_line(page, "tcpxo_pod_transport_rails{namespace=\"team-b\",pod=\"train-0\"} 2");
	has_line(page, "tcpxo_pod_transport_rails{namespace=\"team-a\",pod=\"zeta\"} 0");
	/* Sorted by namespace, then name, whatever the input order. */
	a = strstr(page, "pod=\"alpha\"");
	z = strstr(page, "pod=\"zeta\"");
	t = strstr(page, "pod=\"train-0\"");
	assert_true(a && z && t && a < z && z < t);
	has_line(page, "tcpxo_last_observation_timestamp_seconds 1767225600.250");
	has_line(page, "tcpxo_node_writes_total{kind=\"merge_patch\"} 2");
	has_line(page, "tcpxo_node_writes_total{kind=\"status_patch\"} 3");
	has_line(page, "tcpxo_node_writes_total{kind=\"event\"} 4");
	in.ready = true;
	free(page);
	page = render(&in);
	has_line(page, "tcpxo_node_ready 1");
	free(page);
}

static void test_label_escaping(void **state)
{
	char longname[400];
	struct metrics_pod pods[] = {
		{ .ns = "a\"b\\c\nd", .name = "ctl\x01\xc3\xa9", .verdict = ATTACH_ATTACHED },
		{ .ns = "long", .name = longname, .verdict = ATTACH_ATTACHED },
	};
	struct metrics_input in = { .version = "v\"1", .pods = pods, .n_pods = 2 };
	char *page, *p;

	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	page = render(&in);
	has_line(page, "tcpxo_build_info{version=\"v\\\"1\"} 1");
	has_line(page, "tcpxo_pod_attachment{namespace=\"a\\\"b\\\\c\\nd\",pod=\"ctl???\",verdict=\"attached\"} 1");
	/* Cut at 253 bytes. */
	p = strstr(page, "pod=\"xxx");
	assert_non_null(p);
	assert_int_equal(strspn(p + 5, "x"), 253);
	assert_int_equal(p[5 + 253], '"');
	free(page);
}

static void test_histogram(void **state)
{
	struct metrics_histogram h = { 0 };
	struct metrics_input in = { .version = "0.1.0", .duration = &h };
	char *page;

	metrics_histogram_observe(&h, 0.0004);  /* <= 1 ms */
	metrics_histogram_observe(&h, 0.001);   /* on a bound: in it */
	metrics_histogram_observe(&h, 0.03);    /* <= 50 ms */
	metrics_histogram_observe(&h, 12.0);    /* +Inf only */
	metrics_histogram_observe(&h, -1.0);    /* a clock step: 0 */
	assert_int_equal(h.count, 5);
	page = render(&in);
	has_line(page, "# TYPE tcpxo_observation_duration_seconds histogram");
	has_line(page, "tcpxo_observation_duration_seconds_bucket{le=\"0.001\"} 3");
	has_line(page, "tcpxo_observation_duration_seconds_bucket{le=\"0.025\"} 3");
	has_line(page, "tcpxo_observation_duration_seconds_bucket{le=\"0.05\"} 4");
	has_line(page, "tcpxo_observation_duration_seconds_bucket{le=\"10\"} 4");
	has_line(page, "tcpxo_observation_duration_seconds_bucket{le=\"+Inf\"} 5");
	has_line(page, "tcpxo_observation_duration_seconds_sum 12.0314");
	has_line(page, "tcpxo_observation_duration_seconds_count 5");
	assert_int_equal(count_lines(page, "tcpxo_observation_duration_seconds_bucket{"), METRICS_DURATION_BUCKETS + 1);
	free(page);
}

static void test_counters_sorted(void **state)
{
	struct apicount api = { 0 };
	struct metrics_relist rel[] = {
		{ "pods", "resync", 1 }, { "nodes", "gone", 2 }, { "nodes", "error", 0 },
	};
	struct metrics_input in = { .version = "0.1.0", .api = &api, .relists = rel, .n_relists = 3 };
	char *page, *a, *b, *c;

	apicount_add(&api, "PATCH", "/api/v1/nodes/n1/status", 200);
	apicount_add(&api, "GET", "/api/v1/pods?fieldSelector=spec.nodeName%3Dn1&watch=1&resourceVersion=5", 200);
	apicount_add(&api, "GET", "/api/v1/nodes/n1", 200);
	apicount_add(&api, "GET", "/api/v1/nodes/n1", 200);
	apicount_add(&api, "GET", "/api/v1/nodes/n1", 0);
	apicount_add(&api, "POST", "/apis/events.k8s.io/v1/namespaces/default/events", 201);
	apicount_add(&api, "GET", "/apis/networking.gke.io/v1/networks?resourceVersion=0", 403);
	page = render(&in);
	has_line(page, "tcpxo_api_requests_total{verb=\"GET\",resource=\"nodes\",code=\"200\"} 2");
	has_line(page, "tcpxo_api_requests_total{verb=\"GET\",resource=\"nodes\",code=\"error\"} 1");
	has_line(page, "tcpxo_api_requests_total{verb=\"PATCH\",resource=\"nodes/status\",code=\"200\"} 1");
	has_line(page, "tcpxo_api_requests_total{verb=\"WATCH\",resource=\"pods\",code=\"200\"} 1");
	has_line(page, "tcpxo_api_requests_total{verb=\"POST\",resource=\"events\",code=\"201\"} 1");
	has_line(page, "tcpxo_api_requests_total{verb=\"LIST\",resource=\"networks\",code=\"403\"} 1");
	a = strstr(page, "verb=\"GET\",resource=\"nodes\",code=\"200\"");
	b = strstr(page, "verb=\"GET\",resource=\"nodes\",code=\"error\"");
	c = strstr(page, "verb=\"WATCH\"");
	assert_true(a && b && c && b < a && a < c);     /* "error" as code 0: before every status */
	has_line(page, "tcpxo_watch_relists_total{resource=\"nodes\",reason=\"error\"} 0");
	a = strstr(page, "resource=\"nodes\",reason=\"error\"");
	b = strstr(page, "resource=\"nodes\",reason=\"gone\"");
	c = strstr(page, "resource=\"pods\",reason=\"resync\"");
	assert_true(a && b && c && a < b && b < c);
	free(page);
}

static void test_deterministic(void **state)
{
	struct metrics_pod pods[] = {
		{ .ns = "b", .name = "p", .verdict = ATTACH_PARTIAL }, { .ns = "a", .name = "p", .verdict = ATTACH_ATTACHED },
	};
	struct metrics_pod rev[] = { pods[1], pods[0] };
	struct metrics_input in = { .version = "0.1.0", .evaluated = true, .pods = pods, .n_pods = 2 };
	char *x, *y;

	x = render(&in);
	in.pods = rev;
	y = render(&in);
	assert_string_equal(x, y);
	free(x);
	free(y);
}

/* The publisher's state: no series while the daemon publishes nothing, else 1 in sync and 0 owed. */
static void test_publish_in_sync(void **state)
{
	struct metrics_input in = { .version = "0.1.0" };
	char *page = render(&in);

	no_text(page, "tcpxo_node_publish_in_sync");
	free(page);
	in.publish = METRICS_PUBLISH_IN_SYNC;
	page = render(&in);
	has_line(page, "# TYPE tcpxo_node_publish_in_sync gauge");
	has_line(page, "tcpxo_node_publish_in_sync 1");
	free(page);
	in.publish = METRICS_PUBLISH_OWED;
	page = render(&in);
	has_line(page, "tcpxo_node_publish_in_sync 0");
	free(page);
}

/* process_*: each family with the client libraries' name and type, only when its figure was read. */
static void test_process(void **state)
{
	struct procstat ps = {
		.have = PROCSTAT_CPU | PROCSTAT_START | PROCSTAT_RESIDENT | PROCSTAT_VIRTUAL | PROCSTAT_OPEN_FDS |
			PROCSTAT_MAX_FDS,
		.cpu_seconds = 1.25, .start_time = 1700000000.5, .resident_bytes = 6 << 20, .virtual_bytes = 11 << 20,
		.open_fds = 14, .max_fds = 1048576,
	};
	struct metrics_input in = { .version = "0.1.0", .process = &ps };
	char *page = render(&in);

	has_line(page, "# TYPE process_cpu_seconds_total counter");
	has_line(page, "process_cpu_seconds_total 1.250");
	has_line(page, "# TYPE process_start_time_seconds gauge");
	has_line(page, "process_start_time_seconds 1700000000.50");
	has_line(page, "# TYPE process_resident_memory_bytes gauge");
	has_line(page, "process_resident_memory_bytes 6291456");
	has_line(page, "# TYPE process_virtual_memory_bytes gauge");
	has_line(page, "process_virtual_memory_bytes 11534336");
	has_line(page, "# TYPE process_open_fds gauge");
	has_line(page, "process_open_fds 14");
	has_line(page, "# TYPE process_max_fds gauge");
	has_line(page, "process_max_fds 1048576");
	free(page);
	/* What could not be read has no family at all, rather than a 0 that would read as a fact. */
	ps.have = PROCSTAT_CPU;
	page = render(&in);
	has_line(page, "process_cpu_seconds_total 1.250");
	no_text(page, "process_start_time_seconds");
	no_text(page, "process_open_fds");
	free(page);
	in.process = NULL;
	page = render(&in);
	no_text(page, "process_");
	free(page);
}

static void test_apicount_resource(void **state)
{
	static const struct {
		const char *path, *resource;
		int object;
	} cases[] = {
		{ "/api/v1/nodes/n1", "nodes", 1 },
		{ "/api/v1/nodes/n1/status", "nodes/status", 1 },
		{ "/api/v1/nodes?limit=500", "nodes", 0 },
		{ "/api/v1/pods?fieldSelector=spec.nodeName%3Dn1", "pods", 0 },
		{ "/api/v1/namespaces/kube-system/pods/p1", "pods", 1 },
		{ "/api/v1/namespaces/kube-system", "namespaces", 1 },
		{ "/apis/events.k8s.io/v1/namespaces/default/events", "events", 0 },
		{ "/apis/networking.gke.io/v1/networks", "networks", 0 },
		{ "/apis/trainer.kubeflow.org/v1alpha1/clustertrainingruntimes/r1", "clustertrainingruntimes", 1 },
		{ "/version", "", 0 },
		{ "/api/v1", "", 0 },
		{ "/api/v1/NODES/x", "other", 1 },
		{ "/api/v1/nodes/n1/St\"atus", "other", 1 },
		{ "//api//v1//nodes", "nodes", 0 },
		{ "", "", 0 },
	};
	char buf[APICOUNT_RESOURCE_MAX], tiny[6];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int obj = apicount_resource(cases[i].path, buf, sizeof(buf));

		if (strcmp(buf, cases[i].resource) != 0 || obj != cases[i].object)
			fail_msg("%s: \"%s\" %d, want \"%s\" %d", cases[i].path, buf, obj, cases[i].resource,
				 cases[i].object);
	}
	/* Too long for the buffer: "other", never a cut name. */
	apicount_resource("/api/v1/nodes/n1/status", tiny, sizeof(tiny));
	assert_string_equal(tiny, "other");
}

static void test_apicount_bounded(void **state)
{
	struct apicount c = { 0 };
	char path[64];

	/* Hostile statuses fold into "error"; a client that sees too many triples keeps counting apart. */
	apicount_add(&c, "GET", "/api/v1/nodes/a", 99999);
	apicount_add(&c, "get", "/api/v1/nodes/a", 200);
	assert_int_equal(c.n, 2);
	assert_int_equal(c.v[0].code, 0);
	assert_string_equal(c.v[1].verb, "OTHER");
	for (int i = 0; i < 200; i++) {
		snprintf(path, sizeof(path), "/api/v1/r%d", i);
		apicount_add(&c, "GET", path, 200);
	}
	assert_int_equal(c.n, APICOUNT_MAX);
	assert_int_equal(c.dropped, 202 - APICOUNT_MAX);
	apicount_add(NULL, "GET", "/api/v1/nodes", 200);       /* no client: nothing */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_before_any_verdict),
		cmocka_unit_test(test_verdict_and_pods),
		cmocka_unit_test(test_label_escaping),
		cmocka_unit_test(test_histogram),
		cmocka_unit_test(test_counters_sorted),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_publish_in_sync),
		cmocka_unit_test(test_process),
		cmocka_unit_test(test_apicount_resource),
		cmocka_unit_test(test_apicount_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
