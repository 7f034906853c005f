/* test_fleet.c - report/fleet/fleet.c and fleet_node.c: what a fleet published, grouped, and the node facts made of it. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/fleet/fleet.h"
#include "report/fleet/fleet_node.h"
#include "tests/unit/fleetbuild.h"

static struct coherence *load(const struct fb_node *v, size_t n)
{
	char err[512] = "";
	struct coherence *f = NULL;
	char *text = fb_list(v, n);

	assert_int_equal(fleet_new(FB_P, &f), 0);
	assert_int_equal(coherence_add_nodelist(f, text, strlen(text), NULL, err, sizeof(err)), (int)n);
	free(text);
	return f;
}

static char *groups(const struct fleet_groups *g)
{
	struct strbuf sb = { 0 };

	fleet_groups_text(g, &sb);
	return strbuf_take(&sb);
}

static void expect_groups(const struct fleet_groups *g, const char *want)
{
	char *s = groups(g);

	assert_string_equal(s, want);
	free(s);
}

/* Four TCPXO nodes, two installer releases, one node short of a GPU, a TCPX node and a CPU node apart. */
static void test_facts(void **state)
{
	char *map = fb_mapping(NULL, NULL), *a15 = fb_attachment("v1.0.15", "v1.0.21", 8, 8);
	char *a14 = fb_attachment("v1.0.14", "v1.0.20", 8, 8), *a7 = fb_attachment("v1.0.15", "v1.0.21", 7, 7);
	char *ax = fb_attachment("v3.1.12", "v2.0.15", 8, 4);
	struct fb_node v[] = {
		fb_tcpxo("n-d", map, a15), fb_tcpxo("n-a", map, a14), fb_tcpxo("n-c", map, a7), fb_tcpxo("n-b", map, a15),
		{ .name = "x-1", .profile = "tcpx", .ready = "true", .attachment = ax, .itype = "a3-highgpu-8g" },
		{ .name = "cpu-1", .itype = "e2-standard-8" },
		{ .name = "n-new", .itype = "a3-megagpu-8g" },
	};
	struct fleet_facts ff = { 0 };
	char err[512] = "";
	struct coherence *f;

	v[3].ready = "false";
	v[2].taint_key = "dedicated";
	v[2].taint_value = NULL;
	f = load(v, sizeof(v) / sizeof(v[0]));
	assert_int_equal(fleet_count(f, PROFILE_TCPXO), 4);
	assert_int_equal(fleet_count(f, PROFILE_TCPX), 1);
	assert_int_equal(fleet_facts(f, PROFILE_TCPXO, &ff, err, sizeof(err)), 0);
	assert_int_equal(ff.n_nodes, 4);
	assert_int_equal(ff.n_not_ready, 1);
	assert_int_equal(ff.n_unobserved, 1);
	expect_groups(&ff.installers, "v1.0.15 on 3 nodes (n-b, n-c, n-d), v1.0.14 on 1 node (n-a)");
	expect_groups(&ff.expected_daemons, "v1.0.21 on 3 nodes (n-b, n-c, n-d), v1.0.20 on 1 node (n-a)");
	expect_groups(&ff.gpus, "8 on 3 nodes (n-a, n-b, n-d), 7 on 1 node (n-c)");
	expect_groups(&ff.nics, "8 on 3 nodes (n-a, n-b, n-d), 7 on 1 node (n-c)");
	expect_groups(&ff.machine_types, "a3-megagpu-8g on 4 nodes (n-a, n-b, n-c, …)");
	assert_string_equal(fleet_groups_top(&ff.accelerators), "nvidia-h100-mega-80gb");
	assert_true(fleet_groups_has(&ff.pools, "a3pool"));
	assert_false(fleet_groups_has(&ff.pools, "a3high"));
	/* Taints: the GPU taint on three nodes, the other one on the fourth, most frequent first. */
	assert_int_equal(ff.n_taints, 2);
	assert_string_equal(ff.taints[0].key, "nvidia.com/gpu");
	assert_string_equal(ff.taints[0].value, "present");
	assert_int_equal(ff.taints[0].count, 3);
	assert_string_equal(ff.taints[0].names, "n-a, n-b, n-d");
	assert_string_equal(ff.taints[1].key, "dedicated");
	assert_null(ff.taints[1].value);
	/* One mapping, readiness apart; the unobserved node makes it incoherent (it may differ). */
	assert_false(ff.ifaces_known);
	assert_non_null(strstr(ff.mapping_why, "not yet observed: 1 node (n-new)"));
	fleet_facts_free(&ff);

	/* The TCPX fleet of the same cluster: no mapping, its own facts. */
	assert_int_equal(fleet_facts(f, PROFILE_TCPX, &ff, err, sizeof(err)), 0);
	assert_int_equal(ff.n_nodes, 1);
	assert_int_equal(ff.n_unobserved, 0);
	expect_groups(&ff.nics, "4 on 1 node (x-1)");
	assert_string_equal(ff.mapping_why, "TCPX nodes publish no mapping (the agent publishes the eth1..eth8 mapping of "
			    "TCPXO nodes only)\n");
	assert_int_equal(ff.n_taints, 0);
	fleet_facts_free(&ff);
	coherence_free(f);
	free(map);
	free(a15);
	free(a14);
	free(a7);
	free(ax);
}

/* The mapping: known when every node publishes the same one; a swap names the interface. */
static void test_mapping(void **state)
{
	char *map = fb_mapping(NULL, NULL), *swap = fb_mapping("eth2", "a3pool-gpu-nic-9");
	char *att = fb_attachment("v1.0.15", "v1.0.21", 8, 8);
	struct fb_node v[] = { fb_tcpxo("a", map, att), fb_tcpxo("b", map, att), fb_tcpxo("c", swap, att) };
	struct fleet_facts ff = { 0 };
	char err[512] = "";
	struct coherence *f = load(v, 2);

	assert_int_equal(fleet_facts(f, PROFILE_TCPXO, &ff, err, sizeof(err)), 0);
	assert_true(ff.ifaces_known);
	assert_null(ff.mapping_why);
	assert_int_equal(ff.n_ifaces, 8);
	assert_string_equal(ff.ifaces[2].name, "eth3");
	assert_string_equal(ff.ifaces[2].network, "a3pool-gpu-nic-3");
	fleet_facts_free(&ff);
	coherence_free(f);

	f = load(v, 3);
	assert_int_equal(fleet_facts(f, PROFILE_TCPXO, &ff, err, sizeof(err)), 0);
	assert_false(ff.ifaces_known);
	assert_string_equal(ff.mapping_why, "eth2: 2 nodes → a3pool-gpu-nic-2, 1 node → a3pool-gpu-nic-9 (c)\n"
			    "incoherent: 3 TCPXO nodes: mappings differ on 1 interface; no mapping printed\n");
	fleet_facts_free(&ff);

	/* The order the nodes came in changes nothing; a node listed twice is refused. */
	coherence_reset(f);
	{
		char *text = fb_list(v, 3);

		assert_int_equal(coherence_add_nodelist(f, text, strlen(text), NULL, err, sizeof(err)), 3);
		assert_int_equal(coherence_add_nodelist(f, text, strlen(text), NULL, err, sizeof(err)), 3);
		free(text);
	}
	assert_int_equal(fleet_facts(f, PROFILE_TCPXO, &ff, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "node 'a' appears more than once in the list");
	coherence_free(f);
	free(map);
	free(swap);
	free(att);
}

/* Attachments that say less: no versions, no pairs, not JSON; facts unknown, never invented. */
static void test_unknown_facts(void **state)
{
	char *map = fb_mapping(NULL, NULL), *bare = fb_attachment(NULL, NULL, -1, 0);
	struct fb_node v[] = { fb_tcpxo("a", map, bare), fb_tcpxo("b", map, "{not json"), fb_tcpxo("c", map, NULL) };
	struct fleet_facts ff = { 0 };
	char err[512] = "";
	struct attach_node n;
	struct coherence *f = load(v, 3);

	assert_int_equal(fleet_facts(f, PROFILE_TCPXO, &ff, err, sizeof(err)), 0);
	expect_groups(&ff.installers, "3 nodes without it (a, b, c)");
	assert_null(fleet_groups_top(&ff.gpus));
	fleet_node_build(&ff, NULL, &n);
	assert_int_equal(n.gpus, 0);
	assert_string_equal(n.installer, "");
	assert_string_equal(n.versions_why, "no node publishes its installed plugin release (attachment versions.installer)");
	/* The profile's 8 GPUs are assumed for the device list. */
	assert_int_equal(n.n_devices, 11);
	fleet_facts_free(&ff);
	coherence_free(f);
	free(map);
	free(bare);
}

/* The node facts of a TCPXO fleet: the majority's values, the mapping, devices; the pair from the table when unpublished. */
static void test_node_build(void **state)
{
	char *map = fb_mapping(NULL, NULL), *a15 = fb_attachment("v1.0.15", "v1.0.21", 8, 8);
	char *a15x = fb_attachment("v1.0.15", NULL, 8, 8), *ax = fb_attachment("v3.1.9", NULL, 8, 4);
	struct fb_node v[] = { fb_tcpxo("a", map, a15), fb_tcpxo("b", map, a15) };
	struct fleet_facts ff = { 0 };
	char err[512] = "";
	struct attach_node n;
	struct coherence *f = load(v, 2);

	assert_int_equal(fleet_facts(f, PROFILE_TCPXO, &ff, err, sizeof(err)), 0);
	fleet_node_build(&ff, NULL, &n);
	assert_int_equal(n.kind, PROFILE_TCPXO);
	assert_int_equal(n.gpus, 8);
	assert_int_equal(n.gpu_nics, 8);
	assert_true(n.ifaces_known);
	assert_int_equal(n.n_ifaces, 8);
	assert_string_equal(n.ifaces[7].network, "a3pool-gpu-nic-8");
	assert_string_equal(n.installer, "v1.0.15");
	assert_string_equal(n.expected_daemon, "v1.0.21");
	assert_int_equal(n.n_devices, 11);
	assert_string_equal(n.devices[10], "/dev/dmabuf_import_helper");
	assert_int_equal(n.injector, ATTACH_INJECTOR_UNKNOWN);
	assert_false(n.plugin_files_known);
	fleet_facts_free(&ff);
	coherence_free(f);

	/* No expectedDaemon published: the release table pairs it. TCPX: 4 NICs, 10 devices, no mapping. */
	v[0].attachment = v[1].attachment = a15x;
	f = load(v, 2);
	assert_int_equal(fleet_facts(f, PROFILE_TCPXO, &ff, err, sizeof(err)), 0);
	fleet_node_build(&ff, NULL, &n);
	assert_string_equal(n.expected_daemon, "v1.0.21");
	fleet_facts_free(&ff);
	coherence_free(f);
	v[0] = (struct fb_node){ .name = "x", .profile = "tcpx", .ready = "true", .attachment = ax, .itype = "a3-highgpu-8g" };
	f = load(v, 1);
	assert_int_equal(fleet_facts(f, PROFILE_TCPX, &ff, err, sizeof(err)), 0);
	fleet_node_build(&ff, NULL, &n);
	assert_int_equal(n.gpu_nics, 4);
	assert_int_equal(n.n_devices, 10);
	assert_false(n.ifaces_known);
	assert_string_equal(n.ifaces_why, "TCPX nodes publish no mapping");
	assert_string_equal(n.expected_daemon, "v2.0.12");
	fleet_facts_free(&ff);
	coherence_free(f);
	free(map);
	free(a15);
	free(a15x);
	free(ax);
}

/* A refused page: the message names why, and it adds nothing. */
static void test_refused(void **state)
{
	char err[512] = "";
	struct coherence *f = NULL;
	const char *pods = "{\"kind\":\"PodList\",\"items\":[]}";
	const char *half = "{\"kind\":\"NodeList\",\"items\":[{\"kind\":\"Node\",\"metadata\":{\"name\":\"a\","
			   "\"annotations\":{\"" FB_P "profile\":\"tcpxo\"}}},{\"kind\":\"Pod\",\"metadata\":{\"name\":\"b\"}}]}";

	assert_int_equal(fleet_new("", &f), -EINVAL);
	assert_int_equal(fleet_new(FB_P, &f), 0);
	assert_int_equal(coherence_add_nodelist(f, pods, strlen(pods), NULL, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "expected kind NodeList or List (kubectl get nodes -o json), got 'PodList'");
	/* A page refused after its first node: that node is dropped with the page. */
	assert_true(coherence_add_nodelist(f, half, strlen(half), NULL, err, sizeof(err)) == -EINVAL);
	assert_string_equal(err, "items[1] is a Pod, not a Node");
	assert_int_equal(fleet_count(f, PROFILE_TCPXO), 0);
	coherence_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_facts),
		cmocka_unit_test(test_mapping),
		cmocka_unit_test(test_unknown_facts),
		cmocka_unit_test(test_node_build),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
