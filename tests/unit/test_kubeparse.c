/* test_kubeparse.c - Node, PodList and NetworkList parsing, including hostile input. */
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
#include "probes/kube/kubeparse_pods.h"
#include "probes/kube/kubepod.h"

#include "probes/kube/kubeparse.h"

#define D15 "sha256:4c9f0de3f39455a2ea35e844e0fc92564ca5629f6b03250fde40e8160719dae4"
#define D21 "sha256:8d9e10fd589a34ab8a0aa64f7e70ad075c8f1c69bea176350f8d211367697e3d"

static char *fixture(const char *name, size_t *len)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "kube/%s", name);
	return fixture_read(rel, len);
}

static int parse_node_fixture(const char *name, struct obs_kube *k)
{
	char err[512] = "";
	size_t len;
	char *body = fixture(name, &len);
	int r = kubeparse_node(body, len, NULL, k, err, sizeof(err));

	if (r < 0)
		print_error("%s: %s\n", name, err);
	free(body);
	return r;
}

static int parse_pods_fixture(const char *name, struct obs_kube *k)
{
	char err[512] = "";
	size_t len;
	char *body = fixture(name, &len);
	int r = kubeparse_pods(body, len, k, err, sizeof(err));

	if (r < 0)
		print_error("%s: %s\n", name, err);
	free(body);
	return r;
}

/* The nic-info entry of birth name @name, or NULL: the parser keeps them sorted by PCI address. */
static const struct kube_nic *nic_by_name(const struct obs_kube *k, const char *name)
{
	for (size_t i = 0; i < k->n_nics; i++)
		if (strcmp(k->nics[i].name, name) == 0)
			return &k->nics[i];
	return NULL;
}

static void test_node_fixture(void **state)
{
	static const char *const bdfs[] = {
		"0000:00:0c.0", "0000:06:00.0", "0000:07:00.0", "0000:0d:00.0", "0000:0e:00.0",
		"0000:86:00.0", "0000:87:00.0", "0000:8d:00.0", "0000:8e:00.0",
	};
	struct obs_kube k = { 0 };
	const struct kube_nic *n;

	assert_int_equal(parse_node_fixture("node-a3mega.json", &k), 0);
	assert_string_equal(k.node_name, "gke-a3mega-a3mega-pool-1a2b3c4d-x7k2");
	assert_string_equal(k.instance_type, "a3-megagpu-8g");
	assert_string_equal(k.accelerator, "nvidia-h100-mega-80gb");
	assert_true(k.has_nic_info);
	assert_true(k.has_north);
	assert_string_equal(k.nic_info_error, "");
	assert_int_equal(k.n_nics, 9);
	assert_int_equal(k.n_north, 9);
	for (size_t i = 0; i < 9; i++)
		assert_string_equal(k.nics[i].bdf, bdfs[i]);      /* sorted by PCI address */
	n = nic_by_name(&k, "eth1");
	assert_non_null(n);
	assert_string_equal(n->bdf, "0000:06:00.0");
	assert_string_equal(n->ipv4, "10.0.16.3");
	assert_string_equal(n->network, "gpu-nic-0");
	n = obs_kube_nic_by_bdf(&k, "0000:8e:00.0");
	assert_string_equal(n->name, "eth8");
	assert_string_equal(n->network, "gpu-nic-7");
	assert_string_equal(nic_by_name(&k, "eth0")->network, "default");
	assert_null(obs_kube_nic_by_bdf(&k, "0000:99:00.0"));
	for (int i = 0; i < KUBE_ANN__COUNT; i++)
		assert_false(k.ours[i].present);
	assert_false(k.dranet);
	obs_kube_free(&k);
	/* GKE managed DRANET's node label (issue 22 point 9): only the value "true" counts. */
	assert_int_equal(parse_node_fixture("node-a3mega-dranet.json", &k), 0);
	assert_true(k.dranet);
	assert_false(k.has_nic_info);
	assert_int_equal(parse_node_fixture("node-a3mega.json", &k), 0);
	assert_false(k.dranet);
	{
		static const char off[] = "{\"metadata\":{\"name\":\"n\",\"labels\":{"
					  "\"cloud.google.com/gke-networking-dra-driver\":\"false\"}}}";
		char err[256];

		assert_int_equal(kubeparse_node(off, strlen(off), NULL, &k, err, sizeof(err)), 0);
		assert_false(k.dranet);
	}
	obs_kube_free(&k);
	obs_kube_free(&k);      /* idempotent */
	obs_kube_free(NULL);
}

static void test_node_our_annotations(void **state)
{
	static const char body[] =
		"{\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\",\"annotations\":{"
		"\"example.com/ready\":\"true\",\"example.com/profile\":\"tcpxo\","
		"\"fabric.aicr.run/ready\":\"false\",\"example.com/attachment\":\"{}\"}}}";
	struct obs_kube k = { 0 };
	char err[256];

	assert_int_equal(kubeparse_node(body, strlen(body), "example.com/", &k, err, sizeof(err)), 0);
	assert_true(k.ours[KUBE_ANN_READY].present);
	assert_string_equal(k.ours[KUBE_ANN_READY].value, "true");
	assert_string_equal(k.ours[KUBE_ANN_PROFILE].value, "tcpxo");
	assert_string_equal(k.ours[KUBE_ANN_ATTACHMENT].value, "{}");
	assert_false(k.ours[KUBE_ANN_RUNTIME].present);
	assert_false(k.ours[KUBE_ANN_INTERFACES].present);
	/* No GKE annotations: not an error, just absent facts. */
	assert_false(k.has_nic_info);
	assert_string_equal(k.nic_info_error, "");
	assert_string_equal(k.instance_type, "");

	/* The default prefix sees the other key. */
	assert_int_equal(kubeparse_node(body, strlen(body), NULL, &k, err, sizeof(err)), 0);
	assert_string_equal(k.ours[KUBE_ANN_READY].value, "false");
	assert_false(k.ours[KUBE_ANN_PROFILE].present);

	assert_int_equal(kubeparse_node(body, strlen(body), "no-slash", &k, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "prefix"));
	assert_int_equal(kubeparse_node(body, strlen(body), "", &k, err, sizeof(err)), -EINVAL);
	obs_kube_free(&k);
}

/* A deep copy of the parsed annotations outlives the node it came from (the publisher keeps one). */
static void test_ann_copy(void **state)
{
	static const char body[] =
		"{\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\",\"annotations\":{"
		"\"fabric.aicr.run/ready\":\"true\",\"fabric.aicr.run/profile\":\"tcpxo\"}}}";
	struct kube_annotation copy[KUBE_ANN__COUNT] = { { 0 } };
	struct obs_kube k = { 0 };
	char err[256];

	assert_int_equal(kubeparse_node(body, strlen(body), NULL, &k, err, sizeof(err)), 0);
	assert_int_equal(obs_kube_ann_copy(copy, k.ours, KUBE_ANN__COUNT), 0);
	obs_kube_free(&k);
	assert_true(copy[KUBE_ANN_READY].present);
	assert_string_equal(copy[KUBE_ANN_READY].value, "true");
	assert_string_equal(copy[KUBE_ANN_PROFILE].value, "tcpxo");
	assert_false(copy[KUBE_ANN_RUNTIME].present);
	assert_null(copy[KUBE_ANN_RUNTIME].value);
	/* Clearing frees the values and leaves every entry absent. */
	obs_kube_ann_clear(copy, KUBE_ANN__COUNT);
	for (size_t i = 0; i < KUBE_ANN__COUNT; i++) {
		assert_false(copy[i].present);
		assert_null(copy[i].value);
	}
}

static void test_node_oversize_annotation(void **state)
{
	size_t cap = KUBE_ANN_VALUE_MAX + 200, o;
	struct obs_kube k = { 0 };
	char *body = malloc(cap), err[256];

	assert_non_null(body);
	o = (size_t)snprintf(body, cap, "{\"metadata\":{\"name\":\"n1\",\"annotations\":{\"fabric.aicr.run/attachment\":\"");
	memset(body + o, 'x', KUBE_ANN_VALUE_MAX);
	o += KUBE_ANN_VALUE_MAX;
	snprintf(body + o, cap - o, "\"}}}");
	assert_int_equal(kubeparse_node(body, strlen(body), NULL, &k, err, sizeof(err)), 0);
	assert_true(k.ours[KUBE_ANN_ATTACHMENT].present);
	assert_null(k.ours[KUBE_ANN_ATTACHMENT].value);
	obs_kube_free(&k);
	free(body);
}

static void expect_node_error(const char *body, const char *needle)
{
	struct obs_kube k = { 0 };
	char err[512] = "";
	int r;

	/* A previous good parse stays when the next one fails. */
	assert_int_equal(parse_node_fixture("node-a3mega.json", &k), 0);
	r = kubeparse_node(body, strlen(body), NULL, &k, err, sizeof(err));
	if (r != -EINVAL)
		fail_msg("accepted (%d): %.200s", r, body);
	if (!strstr(err, needle))
		fail_msg("error '%s' does not mention '%s'", err, needle);
	assert_string_equal(k.instance_type, "a3-megagpu-8g");
	assert_int_equal(k.n_nics, 9);
	obs_kube_free(&k);
}

static void test_node_errors(void **state)
{
	char longname[400];

	expect_node_error("", "not valid JSON");
	expect_node_error("{\"metadata\":{\"name\":\"n\"}", "not valid JSON");
	expect_node_error("[1,2]", "node: expected an object, got array");
	expect_node_error("{\"kind\":\"Pod\",\"metadata\":{\"name\":\"n\"}}", "kind: expected \"Node\"");
	expect_node_error("{\"kind\":7,\"metadata\":{\"name\":\"n\"}}", "kind");
	expect_node_error("{}", "metadata: expected an object, got nothing");
	expect_node_error("{\"metadata\":[]}", "metadata: expected an object, got array");
	expect_node_error("{\"metadata\":{}}", "metadata.name: missing");
	expect_node_error("{\"metadata\":{\"name\":5}}", "metadata.name: expected a string, got number");
	expect_node_error("{\"metadata\":{\"name\":\"n\",\"labels\":[]}}", "metadata.labels: expected an object");
	expect_node_error("{\"metadata\":{\"name\":\"n\",\"annotations\":\"x\"}}", "metadata.annotations");
	expect_node_error("{\"metadata\":{\"name\":\"n\",\"labels\":{\"node.kubernetes.io/instance-type\":3}}}",
			  "metadata.labels.node.kubernetes.io/instance-type: expected a string, got number");
	expect_node_error("{\"metadata\":{\"name\":\"n\",\"labels\":{\"cloud.google.com/gke-accelerator\":"
			  "\"0123456789012345678901234567890123456789012345678901234567890123\"}}}",
			  "longer than 63 characters");
	expect_node_error("{\"metadata\":{\"name\":\"n\",\"annotations\":{\"fabric.aicr.run/ready\":true}}}",
			  "metadata.annotations[fabric.aicr.run/ready]: expected a string, got boolean");
	memset(longname, 'a', 254);
	snprintf(longname + 254, sizeof(longname) - 254, "\"}}");
	{
		char body[512];

		snprintf(body, sizeof(body), "{\"metadata\":{\"name\":\"%s", longname);
		expect_node_error(body, "metadata.name: longer than 253 characters");
	}
}

/* nic-info / north-interfaces problems are findings: the node still parses. */
static void expect_nic_info_finding(const char *nic_info, const char *needle)
{
	char body[16384];
	struct obs_kube k = { 0 };
	char err[256];

	snprintf(body, sizeof(body), "{\"metadata\":{\"name\":\"n\",\"labels\":{\"node.kubernetes.io/instance-type\":"
		 "\"a3-megagpu-8g\"},\"annotations\":{\"networking.gke.io/nic-info\":%s}}}", nic_info);
	assert_int_equal(kubeparse_node(body, strlen(body), NULL, &k, err, sizeof(err)), 0);
	assert_false(k.has_nic_info);
	assert_int_equal(k.n_nics, 0);
	if (!strstr(k.nic_info_error, needle))
		fail_msg("finding '%s' does not mention '%s'", k.nic_info_error, needle);
	assert_string_equal(k.instance_type, "a3-megagpu-8g");
	obs_kube_free(&k);
}

static void test_nic_info_hostile(void **state)
{
	char many[8192];
	size_t o;

	expect_nic_info_finding("5", "nic-info: expected a string, got number");
	expect_nic_info_finding("\"[{\\\"birthName\\\":\"", "nic-info: not valid JSON");
	expect_nic_info_finding("\"{}\"", "nic-info: expected an array, got object");
	expect_nic_info_finding("\"[1]\"", "nic-info[0]: expected an object, got number");
	expect_nic_info_finding("\"[{\\\"birthName\\\":1}]\"", "nic-info[0].birthName: expected a string, got number");
	expect_nic_info_finding("\"[{\\\"birthName\\\":\\\"eth1-way-too-long-name\\\"}]\"",
				"nic-info[0].birthName: longer than 15 characters");
	expect_nic_info_finding("\"[{\\\"birthName\\\":\\\"eth 1\\\"}]\"", "is not an interface name");
	expect_nic_info_finding("\"[{\\\"pciAddress\\\":\\\"06:00.0\\\"}]\"", "not a PCI address");
	expect_nic_info_finding("\"[{\\\"pciAddress\\\":\\\"0000:06:00.8\\\"}]\"", "not a PCI address");
	expect_nic_info_finding("\"[{\\\"birthIP\\\":\\\"10.0.16.300\\\"}]\"", "birthIP: '10.0.16.300' is not an IPv4");
	expect_nic_info_finding("\"[{\\\"birthIPv6\\\":\\\"zz::1\\\"}]\"", "not an IPv6");
	expect_nic_info_finding("\"[{\\\"pciAddress\\\":\\\"0000:06:00.0\\\"},{\\\"pciAddress\\\":\\\"0000:06:00.0\\\"}]\"",
				"0000:06:00.0 is listed twice");
	expect_nic_info_finding("\"[{\\\"birthName\\\":\\\"eth1\\\"},{\\\"birthName\\\":\\\"eth1\\\"}]\"",
				"eth1 is listed twice");
	o = (size_t)snprintf(many, sizeof(many), "\"[");
	for (int i = 0; i < KUBE_NICS_MAX + 1; i++)
		o += (size_t)snprintf(many + o, sizeof(many) - o, "%s{}", i ? "," : "");
	snprintf(many + o, sizeof(many) - o, "]\"");
	expect_nic_info_finding(many, "65 entries, at most 64");
}

static void test_north_hostile(void **state)
{
	static const char body[] =
		"{\"metadata\":{\"name\":\"n\",\"annotations\":{"
		"\"networking.gke.io/nic-info\":\"[{\\\"birthName\\\":\\\"eth1\\\",\\\"birthIP\\\":\\\"10.0.16.3\\\",\\\"pciAddress\\\":\\\"0000:06:00.0\\\"}]\","
		"\"networking.gke.io/north-interfaces\":\"[{\\\"network\\\":\\\"gpu-nic-0\\\",\\\"ipAddress\\\":\\\"10.0.16\\\"}]\"}}}";
	struct obs_kube k = { 0 };
	char err[256];

	assert_int_equal(kubeparse_node(body, strlen(body), NULL, &k, err, sizeof(err)), 0);
	assert_true(k.has_nic_info);
	assert_false(k.has_north);
	assert_non_null(strstr(k.north_error, "north-interfaces[0].ipAddress: '10.0.16' is not an IP address"));
	/* Nothing joined: the network stays unknown. */
	assert_string_equal(k.nics[0].network, "");
	obs_kube_free(&k);
}

static void test_pods_healthy(void **state)
{
	struct obs_kube k = { 0 };
	const struct kube_container *inst, *d;

	assert_int_equal(parse_pods_fixture("pods-healthy.json", &k), 0);
	assert_int_equal(k.n_containers, 2);
	/* Sorted by namespace, pod, then init containers first. */
	inst = &k.containers[0];
	d = &k.containers[1];
	assert_int_equal(inst->role, KUBE_IMAGE_INSTALLER);
	assert_string_equal(inst->ns, "kube-system");
	assert_string_equal(inst->pod, "nccl-tcpxo-installer-7xq2m");
	assert_string_equal(inst->name, "nccl-tcpxo-installer");
	assert_true(inst->init);
	assert_false(inst->sidecar);
	assert_false(inst->running);            /* completed init container */
	assert_string_equal(inst->tag, "v1.0.15");
	assert_string_equal(inst->image_id_digest, D15);
	assert_int_equal(inst->argc, 0);        /* args are kept for daemons only */
	assert_int_equal(inst->fabric, KUBE_FABRIC_TCPXO);

	assert_int_equal(d->role, KUBE_IMAGE_DAEMON);
	assert_string_equal(d->ns, "ml-team");
	assert_string_equal(d->name, "tcpxo-daemon");
	assert_true(d->init);
	assert_true(d->sidecar);
	assert_true(d->running);
	assert_string_equal(d->tag, "v1.0.21");
	assert_string_equal(d->digest, "");
	assert_string_equal(d->image_id_digest, D21);
	assert_int_equal(d->argc, 3);
	assert_int_equal(d->fabric, KUBE_FABRIC_TCPXO);
	/* Every pod is kept, sorted by namespace and name. */
	assert_int_equal(k.n_pods, 5);
	assert_string_equal(k.pods[0].ns, "kube-system");
	assert_string_equal(k.pods[4].name, "llama-train-node-0-0-x2b9f");
	assert_int_equal(obs_pod_gpus(&k.pods[4]), 8);
	assert_string_equal(d->argv[0], "/bin/sh");
	assert_string_equal(d->argv[1], "-c");
	assert_non_null(strstr(d->argv[2], "/fts/entrypoint_rxdm_container.sh --num_hops=2"));
	obs_kube_free(&k);
}

static void test_pods_variants(void **state)
{
	struct obs_kube k = { 0 };

	assert_int_equal(parse_pods_fixture("pods-skew.json", &k), 0);
	assert_int_equal(k.n_containers, 2);
	assert_string_equal(k.containers[1].tag, "v1.0.20");
	assert_string_not_equal(k.containers[1].image_id_digest, D21);

	/* Replacing the pod part frees the old one. */
	assert_int_equal(parse_pods_fixture("pods-idle.json", &k), 0);
	assert_int_equal(k.n_containers, 1);
	assert_int_equal(k.containers[0].role, KUBE_IMAGE_INSTALLER);

	assert_int_equal(parse_pods_fixture("pods-digest-only.json", &k), 0);
	assert_int_equal(k.n_containers, 2);
	assert_string_equal(k.containers[0].tag, "");
	assert_string_equal(k.containers[0].digest, D15);
	assert_string_equal(k.containers[1].tag, "");
	assert_string_equal(k.containers[1].digest, D21);
	obs_kube_free(&k);
}

static void test_pods_identify_by_image(void **state)
{
	/* A daemon in a regular container with another name, not running; an unrelated "tcpxo" name. */
	static const char body[] =
		"{\"kind\":\"PodList\",\"items\":[{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\"},"
		"\"spec\":{\"containers\":[{\"name\":\"rxdm\",\"image\":\"registry.local:5000/x/tcpgpudmarxd-dev:v1.0.21\"},"
		"{\"name\":\"nccl-tcpxo-installer\",\"image\":\"busybox:1.36\"},"
		"{\"name\":\"weird\",\"image\":\"NOT A REF\"},{\"name\":\"noimage\"}]},"
		"\"status\":{\"containerStatuses\":[{\"name\":\"rxdm\",\"state\":{\"waiting\":{}},\"imageID\":\"sha256:"
		"8d9e10fd589a34ab8a0aa64f7e70ad075c8f1c69bea176350f8d211367697e3d\"}]}}]}";
	struct obs_kube k = { 0 };
	char err[256];

	assert_int_equal(kubeparse_pods(body, strlen(body), &k, err, sizeof(err)), 0);
	assert_int_equal(k.n_containers, 1);
	assert_int_equal(k.containers[0].role, KUBE_IMAGE_DAEMON);
	assert_false(k.containers[0].init);
	assert_false(k.containers[0].running);
	assert_string_equal(k.containers[0].image_id_digest, "");       /* a config ID, not a repo digest */
	assert_int_equal(k.containers[0].fabric, KUBE_FABRIC_UNKNOWN);  /* not in a gpudirect-* folder */
	obs_kube_free(&k);

	/* Empty lists. */
	assert_int_equal(kubeparse_pods("{\"items\":[]}", 12, &k, err, sizeof(err)), 0);
	assert_int_equal(kubeparse_pods("{\"items\":null}", 14, &k, err, sizeof(err)), 0);
	assert_int_equal(k.n_containers, 0);
	obs_kube_free(&k);
}

static void expect_pods_error(const char *body, const char *needle)
{
	struct obs_kube k = { 0 };
	char err[512] = "";
	int r;

	assert_int_equal(parse_pods_fixture("pods-healthy.json", &k), 0);
	r = kubeparse_pods(body, strlen(body), &k, err, sizeof(err));
	if (r != -EINVAL)
		fail_msg("accepted (%d): %.200s", r, body);
	if (!strstr(err, needle))
		fail_msg("error '%s' does not mention '%s'", err, needle);
	assert_int_equal(k.n_containers, 2);    /* unchanged */
	obs_kube_free(&k);
}

/* @body is read: its one daemon container has @argc arguments, the first at most @arg0 long. */
static void expect_pods_read(const char *body, size_t argc, size_t arg0)
{
	struct obs_kube k = { 0 };
	char err[512] = "";

	assert_int_equal(kubeparse_pods(body, strlen(body), &k, err, sizeof(err)), 0);
	assert_int_equal(k.n_aside, 0);
	assert_int_equal(k.n_containers, 1);
	assert_int_equal(k.containers[0].argc, argc);
	assert_true(strlen(k.containers[0].argv[0]) <= arg0);
	obs_kube_free(&k);
}

/* @body's one pod is set aside, named @name, why naming @needle; @ours: it may run our images. */
static void expect_pods_aside(const char *body, const char *name, const char *needle, bool ours)
{
	struct obs_kube k = { 0 };
	char err[512] = "";

	assert_int_equal(parse_pods_fixture("pods-healthy.json", &k), 0);
	if (kubeparse_pods(body, strlen(body), &k, err, sizeof(err)) != 0)
		fail_msg("refused the whole list: %s: %.200s", err, body);
	assert_int_equal(k.n_pods, 0);
	assert_int_equal(k.n_containers, 0);
	assert_int_equal(k.n_aside, 1);
	assert_string_equal(k.aside[0].name, name);
	assert_int_equal(k.aside[0].item, 0);
	if (!strstr(k.aside[0].why, needle))
		fail_msg("why '%s' does not mention '%s'", k.aside[0].why, needle);
	assert_int_equal(k.aside[0].ours, ours);
	assert_int_equal(obs_kube_aside_ours(&k) != NULL, ours);
	obs_kube_free(&k);
}

#define POD(spec) "{\"items\":[{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\"},\"spec\":" spec "}]}"
#define DAEMON "\"image\":\"r.io/x/tcpgpudmarxd-dev:v1.0.21\""

static void test_pods_errors(void **state)
{
	char *big;
	size_t o, cap;

	expect_pods_error("", "pods: not valid JSON");
	expect_pods_error("{\"items\":[", "pods: not valid JSON");
	expect_pods_error("\"x\"", "pods: expected an object, got string");
	expect_pods_error("{\"kind\":\"NodeList\",\"items\":[]}", "kind: expected \"PodList\"");
	expect_pods_error("{\"items\":{}}", "items: expected an array, got object");
	/* One pod that cannot be read is set aside and named, never the whole list. */
	expect_pods_aside("{\"items\":[3]}", "", "items[0]: expected an object, got number", true);
	expect_pods_aside("{\"items\":[{\"metadata\":{\"name\":[]},\"spec\":{}}]}", "",
			  "items[0].metadata.name: expected a string", false);
	expect_pods_aside(POD("{\"containers\":{}}"), "p", "items[0].spec.containers: expected an array", true);
	expect_pods_aside(POD("{\"initContainers\":[7]}"), "p", "items[0].spec.initContainers[0]: expected an object",
			  true);
	expect_pods_aside(POD("{\"containers\":[{\"name\":\"a\",\"image\":7}]}"), "p",
			  "items[0].spec.containers[0].image: expected a string, got number", true);
	expect_pods_aside(POD("{\"containers\":[{" DAEMON "}]}"), "p", "items[0].spec.containers[0].name: missing", true);
	expect_pods_aside(POD("{\"containers\":[{\"name\":\"d\"," DAEMON ",\"args\":\"--num_hops=2\"}]}"), "p",
			  "items[0].spec.containers[0].args: expected an array, got string", true);
	expect_pods_aside(POD("{\"containers\":[{\"name\":\"d\"," DAEMON ",\"command\":[\"sh\",1]}]}"), "p",
			  "items[0].spec.containers[0].command[1]: expected a string, got number", true);
	expect_pods_aside("{\"items\":[{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"d\"," DAEMON "}]},"
			  "\"status\":{\"containerStatuses\":{}}}]}", "p",
			  "items[0].status.containerStatuses: expected an array", true);
	/* A CPU pod that cannot be read runs neither image. */
	expect_pods_aside(POD("{\"containers\":[{\"name\":\"a\",\"image\":\"busybox\",\"env\":{}}]}"), "p",
			  "items[0].spec.containers[0].env: expected an array", false);
	/* Issue 30: a pod that has ended runs nothing, whatever its image (a tenant's Failed pod). */
	expect_pods_aside("{\"items\":[{\"metadata\":{\"name\":\"evil\"},\"spec\":{\"containers\":[{\"name\":\"d\"," DAEMON
			  ",\"env\":{}}]},\"status\":{\"phase\":\"Failed\"}}]}", "evil",
			  "items[0].spec.containers[0].env: expected an array", false);
	expect_pods_aside("{\"items\":[{\"metadata\":{\"name\":\"done\"},\"spec\":7,\"status\":{\"phase\":\"Succeeded\"}}]}",
			  "done", "items[0].spec: expected an object", false);
	expect_pods_aside("{\"items\":[{\"metadata\":{\"name\":\"up\"},\"spec\":{\"containers\":[{\"name\":\"d\"," DAEMON
			  ",\"env\":{}}]},\"status\":{\"phase\":\"Running\"}}]}", "up",
			  "items[0].spec.containers[0].env: expected an array", true);

	/* Many args, and one a whole shell script: the API server bounds neither, they are read. */
	cap = 64 * 1024;
	big = malloc(cap);
	assert_non_null(big);
	o = (size_t)snprintf(big, cap, "{\"items\":[{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"d\"," DAEMON ",\"args\":[");
	for (int i = 0; i < 300; i++)
		o += (size_t)snprintf(big + o, cap - o, "%s\"a\"", i ? "," : "");
	snprintf(big + o, cap - o, "]}]}}]}");
	expect_pods_read(big, 300, 70000);
	free(big);
	cap = 70000 + 256;
	big = malloc(cap);
	assert_non_null(big);
	o = (size_t)snprintf(big, cap, "{\"items\":[{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"d\"," DAEMON ",\"args\":[\"");
	memset(big + o, 'a', 70000);
	o += 70000;
	snprintf(big + o, cap - o, "\"]}]}}]}");
	expect_pods_read(big, 1, 70000);
	free(big);
}

static void test_pods_container_limit(void **state)
{
	size_t cap = (KUBE_CONTAINERS_MAX + 2) * 160, o;
	char *big = malloc(cap);
	int pods = KUBE_CONTAINERS_MAX / 2 + 1;

	assert_non_null(big);
	o = (size_t)snprintf(big, cap, "{\"items\":[");
	for (int i = 0; i < pods; i++)
		o += (size_t)snprintf(big + o, cap - o,
				      "%s{\"metadata\":{\"name\":\"p%d\"},\"spec\":{\"containers\":[{\"name\":\"a\"," DAEMON "},"
				      "{\"name\":\"b\"," DAEMON "}]}}", i ? "," : "", i);
	snprintf(big + o, cap - o, "]}");
	expect_pods_error(big, "more than 256 installer or daemon containers");
	free(big);
}

static void test_networks(void **state)
{
	struct obs_kube k = { 0 };
	const struct kube_network *n;
	char err[256];
	size_t len;
	char *body = fixture("networks-params-not-ready.json", &len);

	assert_int_equal(kubeparse_networks(body, len, &k, err, sizeof(err)), 0);
	free(body);
	assert_int_equal(k.n_networks, 9);
	assert_string_equal(k.networks[0].name, "default");
	n = obs_kube_network(&k, "gpu-nic-0");
	assert_non_null(n);
	assert_string_equal(n->type, "Device");
	assert_true(n->ready && n->params_ready && n->has_params_ref);
	n = obs_kube_network(&k, "gpu-nic-3");
	assert_true(n->ready);
	assert_false(n->params_ready);
	assert_false(obs_kube_network(&k, "default")->has_params_ref);
	assert_null(obs_kube_network(&k, "gpu-nic-9"));

	assert_int_equal(kubeparse_networks("{\"items\":[{\"spec\":{\"parametersRef\":\"x\"}}]}", 42, &k, err,
					    sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "items[0].spec.parametersRef: expected an object"));
	assert_int_equal(k.n_networks, 9);
	assert_int_equal(kubeparse_networks("nope", 4, &k, err, sizeof(err)), -EINVAL);
	obs_kube_free(&k);
}

/* Every truncation and many byte flips of the fixtures: no crash, no leak, a clean result. */
static void test_fuzz_fixtures(void **state)
{
	static const char *const names[] = { "node-a3mega.json", "pods-healthy.json", "networks.json" };
	static const char flips[] = { '"', '{', '[', ']', '}', ',', ':', '\\', '0', 'x', '\0' };

	for (size_t f = 0; f < sizeof(names) / sizeof(names[0]); f++) {
		size_t len;
		char *body = fixture(names[f], &len), err[512];
		unsigned seed = 1;

		for (size_t cut = 0; cut < len; cut += 3) {
			struct obs_kube k = { 0 };
			int r;

			r = f == 0 ? kubeparse_node(body, cut, NULL, &k, err, sizeof(err)) :
			    f == 1 ? kubeparse_pods(body, cut, &k, err, sizeof(err)) :
				     kubeparse_networks(body, cut, &k, err, sizeof(err));
			assert_true(r == 0 || r == -EINVAL);
			obs_kube_free(&k);
		}
		for (int i = 0; i < 500; i++) {
			struct obs_kube k = { 0 };
			char *copy = malloc(len);
			int r;

			assert_non_null(copy);
			memcpy(copy, body, len);
			seed = seed * 1103515245u + 12345u;
			copy[(seed >> 8) % len] = flips[(seed >> 20) % sizeof(flips)];
			r = f == 0 ? kubeparse_node(copy, len, NULL, &k, err, sizeof(err)) :
			    f == 1 ? kubeparse_pods(copy, len, &k, err, sizeof(err)) :
				     kubeparse_networks(copy, len, &k, err, sizeof(err));
			assert_true(r == 0 || r == -EINVAL);
			obs_kube_free(&k);
			free(copy);
		}
		free(body);
	}
}

/* Our labels, our condition among the kubelet's, and the node's uid. */
static void test_node_status_facts(void **state)
{
	static const char body[] =
		"{\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\",\"uid\":\"8e0c3a56-2f4b-4d1e-9c7a-6b5d4e3f2a10\","
		"\"labels\":{\"fabric.aicr.run/ready\":\"false\",\"example.com/profile\":\"tcpxo\"}},"
		"\"status\":{\"conditions\":[7,{\"status\":\"True\"},{\"type\":\"Ready\",\"status\":\"True\"},"
		"{\"type\":\"FabricReady\",\"status\":\"False\",\"reason\":\"Links\",\"message\":\"tcpxo: not ready\","
		"\"lastTransitionTime\":\"2026-01-20T10:00:00Z\",\"lastHeartbeatTime\":null}]}}";
	struct obs_kube k = { 0 };
	char err[256];

	assert_int_equal(kubeparse_node(body, strlen(body), NULL, &k, err, sizeof(err)), 0);
	assert_string_equal(k.node_uid, "8e0c3a56-2f4b-4d1e-9c7a-6b5d4e3f2a10");
	assert_true(k.labels[KUBE_LABEL_READY].present);
	assert_string_equal(k.labels[KUBE_LABEL_READY].value, "false");
	assert_false(k.labels[KUBE_LABEL_PROFILE].present);
	/* Entries that are not objects, or have no type, are someone else's: skipped. */
	assert_true(k.condition.present);
	assert_string_equal(k.condition.status, "False");
	assert_string_equal(k.condition.reason, "Links");
	assert_string_equal(k.condition.message, "tcpxo: not ready");
	assert_string_equal(k.condition.last_transition, "2026-01-20T10:00:00Z");
	assert_string_equal(k.condition.last_heartbeat, "");    /* null: none (the next heartbeat is due at once) */
	assert_false(k.condition.message_long || k.condition.reason_long);

	/* Another prefix sees its own label; the condition's type does not follow the prefix. */
	assert_int_equal(kubeparse_node(body, strlen(body), "example.com/", &k, err, sizeof(err)), 0);
	assert_string_equal(k.labels[KUBE_LABEL_PROFILE].value, "tcpxo");
	assert_false(k.labels[KUBE_LABEL_READY].present);
	assert_true(k.condition.present);
	obs_kube_free(&k);
	assert_false(k.condition.present);
	assert_null(k.condition.message);
	assert_string_equal(k.node_uid, "");

	/* No status at all (a node served without it): no condition. */
	assert_int_equal(kubeparse_node("{\"metadata\":{\"name\":\"n\"}}", 27, NULL, &k, err, sizeof(err)), 0);
	assert_false(k.condition.present);
	obs_kube_free(&k);
}

/* lastHeartbeatTime as the node says it; one too long to be a time is none, never a refused node. */
static void test_node_condition_heartbeat(void **state)
{
	static const char fmt[] =
		"{\"metadata\":{\"name\":\"n1\"},\"status\":{\"conditions\":[{\"type\":\"FabricReady\","
		"\"status\":\"True\",\"lastHeartbeatTime\":\"%s\"}]}}";
	char body[512], longtime[200], err[256];
	struct obs_kube k = { 0 };

	snprintf(body, sizeof(body), fmt, "2026-12-05T00:40:10Z");
	assert_int_equal(kubeparse_node(body, strlen(body), NULL, &k, err, sizeof(err)), 0);
	assert_string_equal(k.condition.last_heartbeat, "2026-12-05T00:40:10Z");
	obs_kube_free(&k);
	memset(longtime, '9', sizeof(longtime) - 1);
	longtime[sizeof(longtime) - 1] = '\0';
	snprintf(body, sizeof(body), fmt, longtime);
	assert_int_equal(kubeparse_node(body, strlen(body), NULL, &k, err, sizeof(err)), 0);
	assert_true(k.condition.present);
	assert_string_equal(k.condition.last_heartbeat, "");
	obs_kube_free(&k);
}

/* A condition too long to keep is "differs", never cut into a wrong "equal"; one past the 256th is not seen. */
static void test_node_condition_bounds(void **state)
{
	size_t cap = KUBE_COND_MESSAGE_MAX + 64 * 300, o;
	struct obs_kube k = { 0 };
	char *body = malloc(cap), err[256];

	assert_non_null(body);
	o = (size_t)snprintf(body, cap, "{\"metadata\":{\"name\":\"n1\"},\"status\":{\"conditions\":["
			     "{\"type\":\"FabricReady\",\"status\":\"True\",\"reason\":\"TCPXOReady\",\"message\":\"");
	memset(body + o, 'x', KUBE_COND_MESSAGE_MAX);
	o += KUBE_COND_MESSAGE_MAX;
	snprintf(body + o, cap - o, "\"}]}}");
	assert_int_equal(kubeparse_node(body, strlen(body), NULL, &k, err, sizeof(err)), 0);
	assert_true(k.condition.present && k.condition.message_long);
	assert_null(k.condition.message);
	assert_string_equal(k.condition.reason, "TCPXOReady");

	o = (size_t)snprintf(body, cap, "{\"metadata\":{\"name\":\"n1\"},\"status\":{\"conditions\":[");
	for (int i = 0; i < KUBE_CONDITIONS_MAX; i++)
		o += (size_t)snprintf(body + o, cap - o, "{\"type\":\"C%d\",\"status\":\"True\"},", i);
	snprintf(body + o, cap - o, "{\"type\":\"FabricReady\",\"status\":\"True\"}]}}");
	assert_int_equal(kubeparse_node(body, strlen(body), NULL, &k, err, sizeof(err)), 0);
	assert_false(k.condition.present);
	obs_kube_free(&k);
	free(body);
}

static void test_node_status_errors(void **state)
{
	expect_node_error("{\"metadata\":{\"name\":\"n\",\"uid\":[]}}", "metadata.uid: expected a string");
	expect_node_error("{\"metadata\":{\"name\":\"n\"},\"status\":[]}", "status: expected an object");
	expect_node_error("{\"metadata\":{\"name\":\"n\"},\"status\":{\"conditions\":{}}}",
			  "status.conditions: expected an array");
	expect_node_error("{\"metadata\":{\"name\":\"n\"},\"status\":{\"conditions\":[{\"type\":\"FabricReady\","
			  "\"status\":true}]}}", "status.conditions[FabricReady].status: expected a string, got boolean");
	expect_node_error("{\"metadata\":{\"name\":\"n\"},\"status\":{\"conditions\":[{\"type\":\"FabricReady\","
			  "\"status\":\"a very long status text\"}]}}", "status.conditions[FabricReady].status: longer than");
	expect_node_error("{\"metadata\":{\"name\":\"n\"},\"status\":{\"conditions\":[{\"type\":\"FabricReady\","
			  "\"message\":{}}]}}", "status.conditions[FabricReady].message: expected a string");
	expect_node_error("{\"metadata\":{\"name\":\"n\",\"labels\":{\"fabric.aicr.run/ready\":1}}}",
			  "metadata.labels.fabric.aicr.run/ready: expected a string, got number");
}

static void test_ann_key(void **state)
{
	char buf[300];

	assert_int_equal(kubeparse_ann_key(NULL, KUBE_ANN_INTERFACES, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "fabric.aicr.run/interfaces");
	assert_int_equal(kubeparse_ann_key("x.io/", KUBE_ANN_RUNTIME, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "x.io/runtime");
	assert_int_equal(kubeparse_ann_key("x.io/", KUBE_ANN_RUNTIME, buf, 8), -ENOSPC);
	assert_int_equal(kubeparse_ann_key("x.io", KUBE_ANN_RUNTIME, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(kubeparse_ann_key("x.io/", KUBE_ANN__COUNT, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(kubeparse_label_key(NULL, KUBE_LABEL_READY, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "fabric.aicr.run/ready");
	assert_int_equal(kubeparse_label_key("x.io/", KUBE_LABEL_PROFILE, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "x.io/profile");
	assert_int_equal(kubeparse_label_key("x.io/", KUBE_LABEL__COUNT, buf, sizeof(buf)), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_node_fixture),
		cmocka_unit_test(test_node_our_annotations),
		cmocka_unit_test(test_ann_copy),
		cmocka_unit_test(test_node_oversize_annotation),
		cmocka_unit_test(test_node_errors),
		cmocka_unit_test(test_nic_info_hostile),
		cmocka_unit_test(test_north_hostile),
		cmocka_unit_test(test_pods_healthy),
		cmocka_unit_test(test_pods_variants),
		cmocka_unit_test(test_pods_identify_by_image),
		cmocka_unit_test(test_pods_errors),
		cmocka_unit_test(test_pods_container_limit),
		cmocka_unit_test(test_networks),
		cmocka_unit_test(test_fuzz_fixtures),
		cmocka_unit_test(test_ann_key),
		cmocka_unit_test(test_node_status_facts),
		cmocka_unit_test(test_node_condition_heartbeat),
		cmocka_unit_test(test_node_condition_bounds),
		cmocka_unit_test(test_node_status_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
