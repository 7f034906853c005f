/* test_kubefeed.c - the API facts from watch stores: the same facts a GET gives, failures recorded, nothing lost. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/unit/fixture.h"
#include "probes/kube/kubefeed.h"
#include "probes/kube/kubeparse.h"
#include "probes/kube/kubeparse_pods.h"
#include "probes/kube/kubeslices.h"
#include "probes/kube/reflector.h"

#define NODE "gke-a3mega-a3mega-pool-1a2b3c4d-x7k2"
#define T0 1000000u

/* A reflector over @path filled by one list whose items are @items (a JSON array's inside). */
static struct reflector *filled(const char *path, const char *kind, const char *items)
{
	struct reflector_config cfg = { .path = path, .kind = kind, .seed = 7 };
	struct reflector *r = NULL;
	char *req = NULL, *body = NULL;
	uint64_t wake;

	assert_int_equal(reflector_new(&cfg, &r), 0);
	assert_int_equal(reflector_next(r, T0, &req, &wake), REFLECTOR_LIST);
	free(req);
	assert_true(asprintf(&body, "{\"kind\":\"%sList\",\"metadata\":{\"resourceVersion\":\"77\"},\"items\":[%s]}",
			     kind, items) > 0);
	assert_int_equal(reflector_list_done(r, T0, 200, body, strlen(body), 1, 0), 0);
	free(body);
	return r;
}

/* The "items" array of a list fixture, without its brackets. */
static char *fixture_items(const char *rel)
{
	size_t len;
	char *text = fixture_read(rel, &len), *open = strstr(text, "\"items\""), *end = strrchr(text, ']'), *out;

	assert_non_null(open);
	assert_non_null(end);
	open = strchr(open, '[') + 1;
	out = strndup(open, (size_t)(end - open));
	free(text);
	return out;
}

static void test_node(void **state)
{
	struct obs_kube k = { 0 }, direct = { 0 };
	size_t len;
	char *node = fixture_read("kube/node-a3mega.json", &len), err[256];
	struct reflector *r = filled("/api/v1/nodes", "Node", node), *empty = filled("/api/v1/nodes", "Node", "");
	struct reflector_config cfg = { .path = "/api/v1/nodes" };
	struct reflector *unfilled = NULL;

	/* The same facts as the GET's body through kubeparse_node(). */
	assert_int_equal(kubefeed_node(r, NODE, NULL, &k), 0);
	assert_int_equal(kubeparse_node(node, len, NULL, &direct, err, sizeof(err)), 0);
	assert_int_equal(k.node_fetch.state, KUBE_FETCH_OK);
	assert_true(k.configured);
	assert_string_equal(k.instance_type, "a3-megagpu-8g");
	assert_string_equal(k.instance_type, direct.instance_type);
	assert_int_equal(k.n_nics, direct.n_nics);
	assert_true(k.n_nics > 0);
	for (size_t i = 0; i < KUBE_ANN__COUNT; i++)
		assert_int_equal(k.ours[i].present, direct.ours[i].present);

	/* Never filled: nothing said yet. */
	assert_int_equal(reflector_new(&cfg, &unfilled), 0);
	assert_int_equal(kubefeed_node(unfilled, NODE, NULL, &k), -EAGAIN);
	assert_int_equal(k.node_fetch.state, KUBE_FETCH_OK);

	/* Filled but empty: the node does not exist, as a GET's 404; the previous facts stay. */
	assert_int_equal(kubefeed_node(empty, NODE, NULL, &k), -ENOENT);
	assert_int_equal(k.node_fetch.state, KUBE_FETCH_FAILED);
	assert_int_equal(k.node_fetch.http_status, 404);
	assert_non_null(strstr(k.node_fetch.message, "node " NODE " not found"));
	assert_string_equal(k.instance_type, "a3-megagpu-8g");
	/* Another name in the same store is no match either. */
	assert_int_equal(kubefeed_node(r, "some-other-node", NULL, &k), -ENOENT);

	reflector_free(unfilled);
	reflector_free(empty);
	reflector_free(r);
	obs_kube_free(&k);
	obs_kube_free(&direct);
	free(node);
}

static void test_pods_and_networks(void **state)
{
	struct obs_kube k = { 0 }, direct = { 0 };
	char *pods = fixture_items("kube/pods-healthy.json"), *nets = fixture_items("kube/networks.json"), err[256];
	struct reflector *rp = filled("/api/v1/pods", "Pod", pods);
	struct reflector *rn = filled("/apis/networking.gke.io/v1/networks", "Network", nets);
	size_t len;
	char *body = fixture_read("kube/pods-healthy.json", &len);

	assert_int_equal(kubefeed_pods(rp, &k), 0);
	assert_int_equal(k.pods_fetch.state, KUBE_FETCH_OK);
	assert_int_equal(kubeparse_pods(body, len, &direct, err, sizeof(err)), 0);
	assert_int_equal(k.n_pods, direct.n_pods);
	assert_int_equal(k.n_pods, 5);
	assert_int_equal(k.n_containers, direct.n_containers);
	for (size_t i = 0; i < k.n_containers; i++) {
		assert_string_equal(k.containers[i].pod, direct.containers[i].pod);
		assert_string_equal(k.containers[i].tag, direct.containers[i].tag);
	}
	assert_int_equal(kubefeed_networks(rn, &k), 0);
	assert_int_equal(k.networks_fetch.state, KUBE_FETCH_OK);
	assert_int_equal(k.n_networks, 9);
	/* The node part was never fed: untouched. */
	assert_int_equal(k.node_fetch.state, KUBE_FETCH_NOT_RUN);

	reflector_free(rp);
	reflector_free(rn);
	obs_kube_free(&k);
	obs_kube_free(&direct);
	free(body);
	free(pods);
	free(nets);
}

/* A DRANET node's slices from the daemon's store: the same facts as the GET's body; a refused store keeps them. */
static void test_slices(void **state)
{
	struct obs_kube k = { 0 }, direct = { 0 };
	char *items = fixture_items("kube/resourceslices-a3ultra.json"), err[256];
	struct reflector *r = filled("/apis/resource.k8s.io/v1/resourceslices", "ResourceSlice", items);
	struct reflector *bad = filled("/apis/resource.k8s.io/v1/resourceslices", "ResourceSlice",
				       "{\"metadata\":{\"name\":\"s\"},\"spec\":{\"driver\":7}}");
	size_t len;
	char *body = fixture_read("kube/resourceslices-a3ultra.json", &len);

	(void)state;
	assert_int_equal(kubefeed_slices(r, &k), 0);
	assert_int_equal(k.slices_fetch.state, KUBE_FETCH_OK);
	assert_int_equal(kubeslices_parse(body, len, &direct, err, sizeof(err)), 0);
	assert_int_equal(k.n_slices, 1);
	assert_int_equal(k.slices[0].n_devices, direct.slices[0].n_devices);
	assert_string_equal(k.slices[0].devices[9].ifname, "gpu7rdma0");
	assert_int_equal(kubefeed_slices(bad, &k), -EINVAL);
	assert_int_equal(k.slices_fetch.state, KUBE_FETCH_FAILED);
	assert_non_null(strstr(k.slices_fetch.message, "items[0].spec.driver"));
	assert_int_equal(k.n_slices, 1);
	assert_int_equal(k.pods_fetch.state, KUBE_FETCH_NOT_RUN);

	reflector_free(r);
	reflector_free(bad);
	obs_kube_free(&k);
	obs_kube_free(&direct);
	free(body);
	free(items);
}

/*
 * A pod the parser cannot read is set aside, named, the others read, as a GET's: one that may be
 * the daemon or the installer (its containers cannot be walked) is only marked so (the checks
 * name it), never the whole store (issue 30).
 */
static void test_refused_pod(void **state)
{
	struct obs_kube k = { 0 };
	char *pods = fixture_items("kube/pods-healthy.json");
	struct reflector *good = filled("/api/v1/pods", "Pod", pods);
	struct reflector *bad = filled("/api/v1/pods", "Pod",
				       "{\"metadata\":{\"name\":\"p\",\"namespace\":\"ml\"},\"spec\":{\"containers\":7}}");
	struct reflector *cpu = filled("/api/v1/pods", "Pod",
				       "{\"metadata\":{\"name\":\"q\",\"namespace\":\"ml\"},\"spec\":{\"containers\":"
				       "[{\"name\":\"c\",\"image\":\"busybox\",\"env\":7}]}}");

	assert_int_equal(kubefeed_pods(good, &k), 0);
	assert_int_equal(kubefeed_pods(bad, &k), 0);
	assert_int_equal(k.pods_fetch.state, KUBE_FETCH_OK);
	assert_int_equal(k.n_aside, 1);
	assert_string_equal(k.aside[0].name, "p");
	assert_true(k.aside[0].ours);
	assert_int_equal(kubefeed_pods(cpu, &k), 0);
	assert_int_equal(k.pods_fetch.state, KUBE_FETCH_OK);
	assert_int_equal(k.n_aside, 1);
	assert_string_equal(k.aside[0].name, "q");
	assert_false(k.aside[0].ours);
	reflector_free(good);
	reflector_free(bad);
	reflector_free(cpu);
	obs_kube_free(&k);
	free(pods);
}

static void test_failed(void **state)
{
	struct kube_fetch f = { .state = KUBE_FETCH_OK };
	char longmsg[2 * KUBE_MSG_MAX];

	kubefeed_failed(&f, 403, -EIO, "GET /apis/networking.gke.io/v1/networks: HTTP 403 Forbidden: no");
	assert_int_equal(f.state, KUBE_FETCH_FORBIDDEN);
	assert_int_equal(f.http_status, 403);
	kubefeed_failed(&f, 0, -ECONNREFUSED, "GET /api/v1/pods: no answer");
	assert_int_equal(f.state, KUBE_FETCH_FAILED);
	assert_int_equal(f.err, -ECONNREFUSED);
	memset(longmsg, 'x', sizeof(longmsg) - 1);
	longmsg[sizeof(longmsg) - 1] = '\0';
	kubefeed_failed(&f, 500, 0, longmsg);
	assert_int_equal(f.err, -EIO);
	assert_int_equal(strlen(f.message), KUBE_MSG_MAX - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_node),
		cmocka_unit_test(test_pods_and_networks),
		cmocka_unit_test(test_slices),
		cmocka_unit_test(test_refused_pod),
		cmocka_unit_test(test_failed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
