/* test_coherence.c - unit tests of report/coherence: classification, diagnostics, formats. */
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
#include "report/fleet/coherence.h"
#include "report/checks/ifacemap.h"
#include "report/render/render_mapping.h"

#define P "fabric.aicr.run/"
#define GOOD "[{\"interfaceName\":\"eth1\",\"network\":\"gpu-nic-0\"},{\"interfaceName\":\"eth2\",\"network\":\"gpu-nic-1\"}," \
	"{\"interfaceName\":\"eth3\",\"network\":\"gpu-nic-2\"},{\"interfaceName\":\"eth4\",\"network\":\"gpu-nic-3\"}," \
	"{\"interfaceName\":\"eth5\",\"network\":\"gpu-nic-4\"},{\"interfaceName\":\"eth6\",\"network\":\"gpu-nic-5\"}," \
	"{\"interfaceName\":\"eth7\",\"network\":\"gpu-nic-6\"},{\"interfaceName\":\"eth8\",\"network\":\"gpu-nic-7\"}]"
/* eth1 and eth8 swapped */
#define SWAP "[{\"interfaceName\":\"eth1\",\"network\":\"gpu-nic-7\"},{\"interfaceName\":\"eth2\",\"network\":\"gpu-nic-1\"}," \
	"{\"interfaceName\":\"eth3\",\"network\":\"gpu-nic-2\"},{\"interfaceName\":\"eth4\",\"network\":\"gpu-nic-3\"}," \
	"{\"interfaceName\":\"eth5\",\"network\":\"gpu-nic-4\"},{\"interfaceName\":\"eth6\",\"network\":\"gpu-nic-5\"}," \
	"{\"interfaceName\":\"eth7\",\"network\":\"gpu-nic-6\"},{\"interfaceName\":\"eth8\",\"network\":\"gpu-nic-0\"}]"
#define ETH1_9 "[{\"interfaceName\":\"eth1\",\"network\":\"gpu-nic-9\"},{\"interfaceName\":\"eth2\",\"network\":\"gpu-nic-1\"}," \
	"{\"interfaceName\":\"eth3\",\"network\":\"gpu-nic-2\"},{\"interfaceName\":\"eth4\",\"network\":\"gpu-nic-3\"}," \
	"{\"interfaceName\":\"eth5\",\"network\":\"gpu-nic-4\"},{\"interfaceName\":\"eth6\",\"network\":\"gpu-nic-5\"}," \
	"{\"interfaceName\":\"eth7\",\"network\":\"gpu-nic-6\"},{\"interfaceName\":\"eth8\",\"network\":\"gpu-nic-7\"}]"
#define BAD3 "[{\"interfaceName\":\"eth1\",\"network\":\"gpu-nic-0\"},{\"interfaceName\":\"eth2\",\"network\":\"gpu-nic-1\"}," \
	"{\"interfaceName\":\"eth3\",\"network\":\"default\"},{\"interfaceName\":\"eth4\",\"network\":\"gpu-nic-3\"}," \
	"{\"interfaceName\":\"eth5\",\"network\":\"gpu-nic-4\"},{\"interfaceName\":\"eth6\",\"network\":\"gpu-nic-5\"}," \
	"{\"interfaceName\":\"eth7\",\"network\":\"gpu-nic-6\"},{\"interfaceName\":\"eth8\",\"network\":\"gpu-nic-7\"}]"
#define VP "{\"id\":\"version-pair\",\"status\":\"fail\",\"message\":\"daemon v1.0.20 does not pair with installer v1.0.15 (expects v1.0.21)\"}"
#define WARN "{\"id\":\"daemon-args\",\"status\":\"warn\",\"message\":\"--num_nics is retired\"}"

/* One Node: its name, instance type (NULL: none) and our annotations as key/value pairs (NULL-ended). */
static struct json *mk_node(const char *name, const char *itype, ...)
{
	struct json *n = json_new_object(), *meta = json_new_object(), *labels = json_new_object();
	struct json *ann = json_new_object();
	const char *k;
	va_list ap;

	assert_non_null(n);
	assert_int_equal(json_add_string(n, "kind", "Node"), 0);
	assert_int_equal(json_add_string(meta, "name", name), 0);
	if (itype)
		assert_int_equal(json_add_string(labels, "node.kubernetes.io/instance-type", itype), 0);
	assert_int_equal(json_add_string(ann, "node.alpha.kubernetes.io/ttl", "0"), 0);
	va_start(ap, itype);
	while ((k = va_arg(ap, const char *))) {
		const char *v = va_arg(ap, const char *);

		assert_int_equal(json_add_string(ann, k, v), 0);
	}
	va_end(ap);
	assert_int_equal(json_add(meta, "labels", labels), 0);
	assert_int_equal(json_add(meta, "annotations", ann), 0);
	assert_int_equal(json_add(n, "metadata", meta), 0);
	return n;
}

static struct json *mk_tcpxo(const char *name, const char *ready, const char *ifaces, const char *attachment)
{
	struct json *n = mk_node(name, "a3-megagpu-8g", P "profile", "tcpxo", NULL);
	struct json *ann = (struct json *)json_get(json_get(n, "metadata"), "annotations");

	if (ready)
		assert_int_equal(json_add_string(ann, P "ready", ready), 0);
	if (ifaces)
		assert_int_equal(json_add_string(ann, P "interfaces", ifaces), 0);
	if (attachment)
		assert_int_equal(json_add_string(ann, P "attachment", attachment), 0);
	return n;
}

/* A NodeList text of the given nodes (consumed), with an optional continue token. */
static char *mk_list(const char *cont, struct json **nodes, size_t n)
{
	struct json *l = json_new_object(), *items = json_new_array(), *meta = json_new_object();
	char *s;

	assert_int_equal(json_add_string(l, "kind", "NodeList"), 0);
	assert_int_equal(json_add_string(l, "apiVersion", "v1"), 0);
	if (cont)
		assert_int_equal(json_add_string(meta, "continue", cont), 0);
	assert_int_equal(json_add(l, "metadata", meta), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(json_append(items, nodes[i]), 0);
	assert_int_equal(json_add(l, "items", items), 0);
	s = json_print(l, true);
	assert_non_null(s);
	json_free(l);
	return s;
}

struct run {
	struct coherence_result res;
	char err[512];
	int r;
};

/* Evaluate one NodeList text; the run's diagnostics are checked by the caller. */
static struct run eval_text(const char *prefix, const char *text)
{
	struct coherence *c = NULL;
	struct run run = { .r = 0 };

	assert_int_equal(coherence_new(prefix, &c), 0);
	run.r = coherence_add_nodelist(c, text, strlen(text), NULL, run.err, sizeof(run.err));
	if (run.r >= 0)
		run.r = coherence_evaluate(c, &run.res, run.err, sizeof(run.err));
	coherence_free(c);
	return run;
}

static struct run eval_nodes(struct json **nodes, size_t n)
{
	char *text = mk_list(NULL, nodes, n);
	struct run run = eval_text(P, text);

	free(text);
	return run;
}

static void assert_diag(struct run *run, const char *want)
{
	assert_int_equal(run->r, 0);
	assert_string_equal(run->res.diagnostics, want);
}

static void test_coherent(void **state)
{
	const char *att = "{\"schema\":\"fabric.aicr.run/v1\",\"checks\":[" WARN "]}";
	struct json *v[] = {
		mk_tcpxo("gke-b", "true", GOOD, att),
		mk_tcpxo("gke-a", "true", GOOD, NULL),  /* attachment tolerated absent when ready */
	};
	struct run run = eval_nodes(v, 2);
	char *out = NULL;

	assert_diag(&run, "coherent: 2 TCPXO nodes carry the same mapping\n");
	assert_true(run.res.coherent);
	assert_int_equal(run.res.n_tcpxo, 2);
	assert_int_equal(run.res.n_ifaces, 8);
	assert_string_equal(run.res.ifaces[0].name, "eth1");
	assert_string_equal(run.res.ifaces[7].network, "gpu-nic-7");
	assert_int_equal(render_mapping(run.res.ifaces, run.res.n_ifaces, RENDER_MAPPING_FLAG, &out), 0);
	assert_string_equal(out, "eth1=gpu-nic-0,eth2=gpu-nic-1,eth3=gpu-nic-2,eth4=gpu-nic-3,"
			    "eth5=gpu-nic-4,eth6=gpu-nic-5,eth7=gpu-nic-6,eth8=gpu-nic-7\n");
	free(out);
	coherence_result_free(&run.res);
}

static void test_formats(void **state)
{
	struct profile_iface m[8];
	char *out = NULL;

	/* Given out of order: the output is sorted eth1..eth8. */
	for (int i = 0; i < 8; i++) {
		snprintf(m[i].name, sizeof(m[i].name), "eth%d", 8 - i);
		snprintf(m[i].network, sizeof(m[i].network), "gpu-nic-%d", 7 - i);
	}
	assert_int_equal(render_mapping(m, 8, RENDER_MAPPING_YAML, &out), 0);
	assert_string_equal(out,
		"tcpxoInterfaces:\n"
		"  - interfaceName: eth1\n    network: gpu-nic-0\n"
		"  - interfaceName: eth2\n    network: gpu-nic-1\n"
		"  - interfaceName: eth3\n    network: gpu-nic-2\n"
		"  - interfaceName: eth4\n    network: gpu-nic-3\n"
		"  - interfaceName: eth5\n    network: gpu-nic-4\n"
		"  - interfaceName: eth6\n    network: gpu-nic-5\n"
		"  - interfaceName: eth7\n    network: gpu-nic-6\n"
		"  - interfaceName: eth8\n    network: gpu-nic-7\n");
	free(out);
	assert_int_equal(render_mapping(m, 8, RENDER_MAPPING_JSON, &out), 0);
	assert_string_equal(out, GOOD "\n");
	free(out);
	/* Never print a mapping the renderer would refuse: judged invalid, never coherent (test_mapping_problems). */
	strcpy(m[2].network, "default");
	assert_int_equal(ifacemap_validate(m, 8, NULL), -EINVAL);
	out = NULL;
	assert_int_equal(render_mapping(m, 7, RENDER_MAPPING_FLAG, &out), -EINVAL);
	assert_null(out);
}

static void test_disagree(void **state)
{
	struct json *v[6];
	struct run run;

	for (int i = 0; i < 4; i++) {
		char name[16];

		snprintf(name, sizeof(name), "gke-n%d", i);
		v[i] = mk_tcpxo(name, "true", GOOD, NULL);
	}
	v[4] = mk_tcpxo("gke-x2", "true", SWAP, NULL);
	v[5] = mk_tcpxo("gke-x1", "true", SWAP, NULL);
	run = eval_nodes(v, 6);
	assert_diag(&run,
		"eth1: 4 nodes → gpu-nic-0, 2 nodes → gpu-nic-7 (gke-x1, gke-x2)\n"
		"eth8: 4 nodes → gpu-nic-7, 2 nodes → gpu-nic-0 (gke-x1, gke-x2)\n"
		"incoherent: 6 TCPXO nodes: mappings differ on 2 interfaces; no mapping printed\n");
	assert_false(run.res.coherent);
	assert_int_equal(run.res.n_ifaces, 0);
	coherence_result_free(&run.res);
}

/* Three networks on eth1, a minority of five names (cut at three), and a tie named in full. */
static void test_disagree_names_and_ties(void **state)
{
	struct json *v[16];
	struct run run;
	size_t n = 0;

	for (int i = 0; i < 6; i++) {
		char name[16];

		snprintf(name, sizeof(name), "gke-a%d", i);
		v[n++] = mk_tcpxo(name, "true", GOOD, NULL);
	}
	for (int i = 5; i >= 1; i--) {
		char name[16];

		snprintf(name, sizeof(name), "gke-s%d", i);
		v[n++] = mk_tcpxo(name, "true", SWAP, NULL);
	}
	v[n++] = mk_tcpxo("gke-z", "true", ETH1_9, NULL);
	run = eval_nodes(v, n);
	assert_diag(&run,
		"eth1: 6 nodes → gpu-nic-0, 5 nodes → gpu-nic-7 (gke-s1, gke-s2, gke-s3, …), 1 node → gpu-nic-9 (gke-z)\n"
		"eth8: 7 nodes → gpu-nic-7, 5 nodes → gpu-nic-0 (gke-s1, gke-s2, gke-s3, …)\n"
		"incoherent: 12 TCPXO nodes: mappings differ on 2 interfaces; no mapping printed\n");
	coherence_result_free(&run.res);

	/* 2 against 2: nobody is the majority, both sides are named, ordered by network name. */
	v[0] = mk_tcpxo("gke-d", "true", SWAP, NULL);
	v[1] = mk_tcpxo("gke-c", "true", SWAP, NULL);
	v[2] = mk_tcpxo("gke-b", "true", GOOD, NULL);
	v[3] = mk_tcpxo("gke-a", "true", GOOD, NULL);
	run = eval_nodes(v, 4);
	assert_diag(&run,
		"eth1: 2 nodes → gpu-nic-0 (gke-a, gke-b), 2 nodes → gpu-nic-7 (gke-c, gke-d)\n"
		"eth8: 2 nodes → gpu-nic-0 (gke-c, gke-d), 2 nodes → gpu-nic-7 (gke-a, gke-b)\n"
		"incoherent: 4 TCPXO nodes: mappings differ on 2 interfaces; no mapping printed\n");
	coherence_result_free(&run.res);
}

static void test_not_ready(void **state)
{
	const char *a1 = "{\"checks\":[" VP "," WARN ",{\"id\":\"links\",\"status\":\"fail\",\"message\":\"eth3 is down\"}]}";
	const char *a2 = "{\"checks\":[{\"id\":\"version-pair\",\"status\":\"fail\",\"message\":\"daemon v1.0.18 does not pair\"}]}";
	const char *a3 = "{\"checks\":[" VP "]}";
	struct json *v[] = {
		mk_tcpxo("gke-ok", "true", GOOD, NULL),
		mk_tcpxo("gke-r1", "false", GOOD, a1),
		mk_tcpxo("gke-r2", "false", GOOD, a2),
		mk_tcpxo("gke-r3", "false", GOOD, NULL),
		mk_tcpxo("gke-r4", "false", GOOD, "{not json"),
		mk_tcpxo("gke-r5", NULL, GOOD, a3),
		mk_tcpxo("gke-r6", "yes", GOOD, a3),
		mk_tcpxo("gke-r7", "false", GOOD, "{\"checks\":[" WARN "]}"),
	};
	struct run run = eval_nodes(v, 8);

	assert_diag(&run,
		"not ready: 7 nodes (gke-r1, gke-r2, gke-r3, …)\n"
		"  failing checks unknown: 3 nodes (gke-r3, gke-r4, gke-r7), e.g. gke-r3: no " P "attachment annotation\n"
		"  ready unknown: 2 nodes (gke-r5, gke-r6), e.g. gke-r5: no " P "ready annotation\n"
		"  version-pair: 2 nodes (gke-r1, gke-r2), e.g. gke-r1: daemon v1.0.20 does not pair with installer v1.0.15 (expects v1.0.21)\n"
		"  links: 1 node (gke-r1): eth3 is down\n"
		"incoherent: 8 TCPXO nodes: 7 not ready; no mapping printed\n");
	coherence_result_free(&run.res);

	/* One node alone: its own failing check and message, whole. */
	v[0] = mk_tcpxo("gke-ok", "true", GOOD, NULL);
	v[1] = mk_tcpxo("gke-r1", "false", GOOD, a3);
	run = eval_nodes(v, 2);
	assert_diag(&run,
		"not ready: 1 node (gke-r1)\n"
		"  version-pair: 1 node (gke-r1): daemon v1.0.20 does not pair with installer v1.0.15 (expects v1.0.21)\n"
		"incoherent: 2 TCPXO nodes: 1 not ready; no mapping printed\n");
	coherence_result_free(&run.res);
}

static void test_mapping_problems(void **state)
{
	struct json *v[] = {
		mk_tcpxo("gke-a", "true", GOOD, NULL),
		mk_tcpxo("gke-b", "true", BAD3, NULL),
		mk_tcpxo("gke-c", "true", NULL, NULL),
		mk_tcpxo("gke-d", "true", "[{\"interfaceName\":1}]", NULL),
		mk_tcpxo("gke-e", "true", "[{\"interfaceName\":\"eth1\",\"network\":\"gpu-nic-0\"}]", NULL),
		mk_node("gke-f", "a3-megagpu-8g", NULL),
		mk_tcpxo("gke-g", "true", SWAP, NULL),
	};
	struct run run = eval_nodes(v, 7);

	assert_diag(&run,
		"not yet observed: 1 node (gke-f): labelled a3-megagpu-8g, no " P "profile annotation yet\n"
		"no " P "interfaces annotation: 1 node (gke-c)\n"
		"unreadable " P "interfaces annotation: 1 node (gke-d): not a JSON list of {\"interfaceName\", \"network\"} entries\n"
		"mapping breaks the renderer's rules: 1 node (gke-e): 1 entries, the renderer needs exactly 8 (eth1..eth8); "
		"eth2 is missing; eth3 is missing; eth4 is missing; eth5 is missing; eth6 is missing; eth7 is missing; eth8 is missing\n"
		"mapping breaks the renderer's rules: 1 node (gke-b): eth3 is on network 'default', which is eth0's\n"
		"eth1: 1 node → gpu-nic-0 (gke-a), 1 node → gpu-nic-7 (gke-g)\n"
		"eth8: 1 node → gpu-nic-0 (gke-g), 1 node → gpu-nic-7 (gke-a)\n"
		"incoherent: 7 TCPXO nodes: 1 not yet observed, 1 without a mapping, 1 with an unreadable mapping, "
		"2 breaking the renderer's rules, mappings differ on 2 interfaces; no mapping printed\n");
	coherence_result_free(&run.res);
}

#define VPC "[{\"interfaceName\":\"eth1\",\"network\":\"vpc1\"},{\"interfaceName\":\"eth2\",\"network\":\"vpc2\"}," \
	"{\"interfaceName\":\"eth3\",\"network\":\"vpc3\"},{\"interfaceName\":\"eth4\",\"network\":\"vpc4\"}," \
	"{\"interfaceName\":\"eth5\",\"network\":\"vpc5\"},{\"interfaceName\":\"eth6\",\"network\":\"vpc6\"}," \
	"{\"interfaceName\":\"eth7\",\"network\":\"vpc7\"},{\"interfaceName\":\"eth8\",\"network\":\"vpc8\"}]"

/* AICR's naming rule: judged unless lifted, and lifting it leaves every other rule. */
static void test_naming_rule(void **state)
{
	struct json *v[] = {
		mk_tcpxo("gke-a", "true", VPC, NULL),
		mk_tcpxo("gke-b", "true", VPC, NULL),
	};
	char *text = mk_list(NULL, v, 2);
	struct coherence_result res = { 0 };
	struct coherence *c = NULL;

	assert_int_equal(coherence_new(P, &c), 0);
	assert_int_equal(coherence_add_nodelist(c, text, strlen(text), NULL, NULL, 0), 2);
	assert_int_equal(coherence_evaluate(c, &res, NULL, 0), 0);
	assert_false(res.coherent);
	assert_int_equal(res.n_ifaces, 0);
	assert_string_equal(res.diagnostics,
		"mapping breaks the renderer's naming rule: 2 nodes (gke-a, gke-b): AICR's renderer requires 'gpu-nic' "
		"in each Network name: 'vpc1', 'vpc2', 'vpc3', 'vpc4', 'vpc5', 'vpc6', 'vpc7', 'vpc8' do not contain it\n"
		"  the nodes work: the names are AICR's rule, not the fabric's; --any-network-names checks the mapping "
		"without it\n"
		"incoherent: 2 TCPXO nodes: 2 breaking the renderer's naming rule; no mapping printed\n");
	coherence_result_free(&res);

	/* Lifted after the nodes were added: the same collection is now coherent. */
	coherence_set_any_names(c, true);
	assert_int_equal(coherence_evaluate(c, &res, NULL, 0), 0);
	assert_true(res.coherent);
	assert_int_equal(res.n_ifaces, 8);
	assert_string_equal(res.ifaces[0].network, "vpc1");
	assert_string_equal(res.diagnostics, "coherent: 2 TCPXO nodes carry the same mapping\n");
	coherence_result_free(&res);

	/* The other rules still hold without the naming rule. */
	free(text);
	v[0] = mk_tcpxo("gke-a", "true", VPC, NULL);
	v[1] = mk_tcpxo("gke-b", "true", BAD3, NULL);
	text = mk_list(NULL, v, 2);
	coherence_reset(c);
	assert_int_equal(coherence_add_nodelist(c, text, strlen(text), NULL, NULL, 0), 2);
	assert_int_equal(coherence_evaluate(c, &res, NULL, 0), 0);
	assert_false(res.coherent);
	assert_non_null(strstr(res.diagnostics, "mapping breaks the renderer's rules: 1 node (gke-b): eth3 is on "
			       "network 'default'"));
	coherence_result_free(&res);
	free(text);
	coherence_free(c);
}

static void test_kinds(void **state)
{
	struct json *v[] = {
		mk_tcpxo("gke-a", "true", GOOD, NULL),
		mk_node("gke-h1", "a3-highgpu-8g", P "profile", "tcpx", P "ready", "true",
			P "interfaces", "[{\"interfaceName\":\"eth1\",\"network\":\"gpu-nic-0\"}]", NULL),
		mk_node("gke-h2", "a3-highgpu-8g", P "profile", "tcpx", NULL),
		mk_node("gke-m", "a3-megagpu-8g", P "profile", "none", P "ready", "false", NULL),
		mk_node("gke-cpu", "e2-standard-8", NULL),
		mk_node("gke-nolabel", NULL, NULL),
		mk_node("gke-future", "a3-megagpu-8g", P "profile", "tcpxo2", NULL),
		/* Another prefix's annotations are not ours. */
		mk_node("gke-other-prefix", "e2-standard-8", "example.com/profile", "tcpxo", NULL),
	};
	struct run run = eval_nodes(v, 8);

	assert_diag(&run, "coherent: 1 TCPXO node carries the same mapping (not counted: 2 tcpx, 1 none, 4 other)\n");
	coherence_result_free(&run.res);

	v[0] = mk_node("gke-h1", "a3-highgpu-8g", P "profile", "tcpx", NULL);
	v[1] = mk_node("gke-cpu", "e2-standard-8", NULL);
	run = eval_nodes(v, 2);
	assert_diag(&run, "incoherent: no TCPXO nodes among 2 nodes; no mapping printed (not counted: 1 tcpx, 1 other)\n");
	assert_false(run.res.coherent);
	coherence_result_free(&run.res);

	run = eval_nodes(v, 0);
	assert_diag(&run, "incoherent: no TCPXO nodes among 0 nodes; no mapping printed\n");
	coherence_result_free(&run.res);
}

/* A node of @v labelled as GKE managed DRANET's (issue 22 point 9). */
static struct json *mk_dranet(struct json *n, const char *value)
{
	struct json *labels = (struct json *)json_get(json_get(n, "metadata"), "labels");

	assert_int_equal(json_add_string(labels, "cloud.google.com/gke-networking-dra-driver", value), 0);
	return n;
}

static void test_dranet(void **state)
{
	struct json *v[3];
	struct run run;

	/* Only DRANET nodes: no Network mapping exists; said, not a failure of the mapping. */
	v[0] = mk_dranet(mk_tcpxo("gke-a", "true", NULL, NULL), "true");
	v[1] = mk_dranet(mk_node("gke-b", "a3-megagpu-8g", NULL), "true");      /* not yet observed */
	run = eval_nodes(v, 2);
	assert_diag(&run, "no mapping: the GPU NICs of 2 TCPXO nodes are allocated by DRANET (node label "
		    "cloud.google.com/gke-networking-dra-driver=true): they reach pods through ResourceClaims, not "
		    "Networks and the networking.gke.io/interfaces annotation; no mapping printed\n");
	assert_false(run.res.coherent);
	assert_int_equal(run.res.n_tcpxo, 0);
	assert_int_equal(run.res.n_dranet, 2);
	coherence_result_free(&run.res);

	/* Beside nodes that publish a mapping: theirs is printed, DRANET's are not counted. */
	v[0] = mk_tcpxo("gke-a", "true", GOOD, NULL);
	v[1] = mk_dranet(mk_tcpxo("gke-d", "false", NULL, NULL), "true");
	v[2] = mk_dranet(mk_tcpxo("gke-e", "true", GOOD, NULL), "false");      /* only "true" counts */
	run = eval_nodes(v, 3);
	assert_diag(&run, "coherent: 2 TCPXO nodes carry the same mapping (not counted: 1 DRANET)\n");
	assert_true(run.res.coherent);
	assert_int_equal(run.res.n_dranet, 1);
	coherence_result_free(&run.res);

	/* Without the label the same node is held to the mapping: unchanged. */
	v[0] = mk_tcpxo("gke-a", "true", GOOD, NULL);
	v[1] = mk_tcpxo("gke-d", "true", NULL, NULL);
	run = eval_nodes(v, 2);
	assert_false(run.res.coherent);
	assert_non_null(strstr(run.res.diagnostics, "without a mapping"));
	assert_int_equal(run.res.n_dranet, 0);
	coherence_result_free(&run.res);
}

static void test_prefix(void **state)
{
	struct json *v[] = {
		mk_node("gke-a", "a3-megagpu-8g", "example.com/profile", "tcpxo", "example.com/ready", "true",
			"example.com/interfaces", GOOD, NULL),
		/* Annotated under the default prefix only: not yet observed under this one. */
		mk_tcpxo("gke-b", "true", SWAP, NULL),
		mk_node("gke-c", "e2-standard-8", P "profile", "tcpxo", NULL),
	};
	char *text = mk_list(NULL, v, 3);
	struct run run = eval_text("example.com/", text);

	assert_diag(&run, "not yet observed: 1 node (gke-b): labelled a3-megagpu-8g, no example.com/profile annotation yet\n"
		    "incoherent: 2 TCPXO nodes: 1 not yet observed; no mapping printed (not counted: 1 other)\n");
	coherence_result_free(&run.res);
	free(text);
}

/* The same nodes in any order give byte-identical diagnostics and mapping. */
static void test_order_independent(void **state)
{
	const char *names[] = { "gke-q", "gke-c", "gke-x", "gke-a", "gke-m", "gke-b" };
	char *first = NULL;

	for (int rot = 0; rot < 6; rot++) {
		struct json *v[6];
		struct run run;

		for (int i = 0; i < 6; i++) {
			int k = (i + rot) % 6;
			const char *ifaces = k % 3 == 0 ? SWAP : GOOD;

			v[rot % 2 ? 5 - i : i] = mk_tcpxo(names[k], k == 4 ? "false" : "true", ifaces,
							   "{\"checks\":[" VP "]}");
		}
		run = eval_nodes(v, 6);
		assert_int_equal(run.r, 0);
		if (!first)
			first = strdup(run.res.diagnostics);
		else
			assert_string_equal(run.res.diagnostics, first);
		coherence_result_free(&run.res);
	}
	assert_string_equal(first,
		"not ready: 1 node (gke-m)\n"
		"  version-pair: 1 node (gke-m): daemon v1.0.20 does not pair with installer v1.0.15 (expects v1.0.21)\n"
		"eth1: 4 nodes → gpu-nic-0, 2 nodes → gpu-nic-7 (gke-a, gke-q)\n"
		"eth8: 4 nodes → gpu-nic-7, 2 nodes → gpu-nic-0 (gke-a, gke-q)\n"
		"incoherent: 6 TCPXO nodes: 1 not ready, mappings differ on 2 interfaces; no mapping printed\n");
	free(first);
}

static void test_bad_input(void **state)
{
	static const struct { const char *text, *err; } cases[] = {
		{ "{\"kind\":\"NodeList\",\"items\":[", "not valid JSON (or nested deeper than 64 levels)" },
		{ "", "not valid JSON (or nested deeper than 64 levels)" },
		{ "[]", "expected a NodeList object, got a JSON array" },
		{ "{\"kind\":\"PodList\",\"items\":[]}", "expected kind NodeList or List (kubectl get nodes -o json), got 'PodList'" },
		{ "{\"kind\":\"List\"}", "no \"items\" list: not a NodeList" },
		{ "{\"kind\":\"List\",\"items\":{}}", "\"items\" is a JSON object, not a list" },
		{ "{\"items\":[{\"metadata\":{\"name\":\"a\"}},{\"metadata\":{}}]}", "items[1] has no metadata.name" },
		{ "{\"items\":[{\"metadata\":{\"name\":\"\"}}]}", "items[0] has no metadata.name" },
		{ "{\"items\":[{\"metadata\":{\"name\":7}}]}", "items[0] has no metadata.name" },
		{ "{\"items\":[3]}", "items[0] is a JSON number, not a Node object" },
		{ "{\"items\":[{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"}}]}", "items[0] is a Pod, not a Node" },
		{ "{\"items\":[{\"metadata\":{\"name\":\"a\"}},{\"metadata\":{\"name\":\"a\"}}]}",
		  "node 'a' appears more than once in the list" },
		/* The scanner is strict JSON: no trailing commas, garbage, bad escapes or numbers. */
		{ "{\"items\":[]} x", "not valid JSON (or nested deeper than 64 levels)" },
		{ "{\"items\":[],}", "not valid JSON (or nested deeper than 64 levels)" },
		{ "{\"items\":[{\"metadata\":{\"name\":\"a\"}},]}", "not valid JSON (or nested deeper than 64 levels)" },
		{ "{\"items\":[],\"x\":\"a\\qb\"}", "not valid JSON (or nested deeper than 64 levels)" },
		{ "{\"items\":[],\"x\":\"\\u12g4\"}", "not valid JSON (or nested deeper than 64 levels)" },
		{ "{\"items\":[],\"x\":\"a\tb\"}", "not valid JSON (or nested deeper than 64 levels)" },
		{ "{\"items\":[],\"x\":01}", "not valid JSON (or nested deeper than 64 levels)" },
		{ "{\"items\":[],\"x\":1.}", "not valid JSON (or nested deeper than 64 levels)" },
		{ "{\"items\":[],\"x\":-}", "not valid JSON (or nested deeper than 64 levels)" },
		{ "{\"items\":[],\"x\":+1}", "not valid JSON (or nested deeper than 64 levels)" },
		{ "{\"items\":[],\"x\":1e}", "not valid JSON (or nested deeper than 64 levels)" },
		{ "{\"items\":[],\"x\":tru}", "not valid JSON (or nested deeper than 64 levels)" },
		{ "{\"items\":[],\"x\" 1}", "not valid JSON (or nested deeper than 64 levels)" },
		{ "{\"items\":[],\"x\":\"abc", "not valid JSON (or nested deeper than 64 levels)" },
		{ "{items:[]}", "not valid JSON (or nested deeper than 64 levels)" },
		{ "{\"items\":[{\"metadata\":{\"name\":\"a\"},\"status\":{\"x\":[}}]}",
		  "not valid JSON (or nested deeper than 64 levels)" },
		{ "\"just a string\"", "expected a NodeList object, got a JSON string" },
		{ "{\"items\":\"x\"}", "\"items\" is a JSON string, not a list" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct run run = eval_text(P, cases[i].text);

		assert_int_equal(run.r, -EINVAL);
		assert_string_equal(run.err, cases[i].err);
	}
}

/* Valid JSON the scanner must take: escapes decoded, numbers, nesting, first duplicate key wins. */
static void test_scanner_accepts(void **state)
{
	char deep[400], *p = deep;
	struct run run;

	run = eval_text(P, " {\"kind\":\"List\",\"metadata\":{\"continue\":\"\"},\"items\":[{\"metadata\":"
			"{\"name\":\"gke-\\u0061\\/b\",\"name\":\"ignored\",\"labels\":{\"node.kubernetes.io/instance-type\":"
			"\"a3-megagpu-8g\"},\"x\":[-0.5e+3,1E2,0,true,false,null,{},[],\"\\\"\\\\\\b\\f\\n\\r\\t\\u00e9\"]}}]}\r\n\t");
	assert_diag(&run, "not yet observed: 1 node (gke-a/b): labelled a3-megagpu-8g, no " P "profile annotation yet\n"
		    "incoherent: 1 TCPXO node: 1 not yet observed; no mapping printed\n");
	coherence_result_free(&run.res);

	run = eval_text(P, "{\"items\":null}");
	assert_diag(&run, "incoherent: no TCPXO nodes among 0 nodes; no mapping printed\n");
	coherence_result_free(&run.res);

	/* 60 levels deep inside a node is fine; 100 is refused. */
	p += sprintf(p, "{\"items\":[{\"metadata\":{\"name\":\"a\"},\"x\":");
	memset(p, '[', 60);
	memset(p + 60, ']', 60);
	strcpy(p + 120, "}]}");
	run = eval_text(P, deep);
	assert_int_equal(run.r, 0);
	coherence_result_free(&run.res);
	memset(p, '[', 100);
	memset(p + 100, ']', 100);
	strcpy(p + 200, "}]}");
	run = eval_text(P, deep);
	assert_int_equal(run.r, -EINVAL);
	assert_string_equal(run.err, "not valid JSON (or nested deeper than 64 levels)");
}

/* Paging: continue tokens come back, a refused page adds nothing, reset forgets everything. */
static void test_pages(void **state)
{
	struct json *p1[] = { mk_tcpxo("gke-a", "true", GOOD, NULL), mk_tcpxo("gke-b", "true", GOOD, NULL) };
	struct json *p2[] = { mk_tcpxo("gke-c", "true", GOOD, NULL) };
	char *t1 = mk_list("tok-1", p1, 2), *t2 = mk_list(NULL, p2, 1);
	const char *bad = "{\"items\":[{\"metadata\":{\"name\":\"gke-z\"}},{}]}";
	struct coherence_result res;
	struct coherence *c = NULL;
	char err[512] = "";
	char *cont = NULL;

	assert_int_equal(coherence_new(P, &c), 0);
	assert_int_equal(coherence_add_nodelist(c, t1, strlen(t1), &cont, NULL, 0), 2);
	assert_string_equal(cont, "tok-1");
	free(cont);
	assert_int_equal(coherence_add_nodelist(c, bad, strlen(bad), &cont, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "items[1] has no metadata.name");
	assert_int_equal(coherence_add_nodelist(c, t2, strlen(t2), &cont, NULL, 0), 1);
	assert_null(cont);
	assert_int_equal(coherence_evaluate(c, &res, NULL, 0), 0);
	assert_string_equal(res.diagnostics, "coherent: 3 TCPXO nodes carry the same mapping\n");
	coherence_result_free(&res);

	coherence_reset(c);
	assert_int_equal(coherence_add_nodelist(c, t2, strlen(t2), NULL, NULL, 0), 1);
	assert_int_equal(coherence_evaluate(c, &res, NULL, 0), 0);
	assert_string_equal(res.diagnostics, "coherent: 1 TCPXO node carries the same mapping\n");
	coherence_result_free(&res);
	coherence_free(c);
	free(t1);
	free(t2);
	assert_int_equal(coherence_new("", &c), -EINVAL);
	coherence_free(NULL);
}

/* Text from annotations is hostile: control bytes never reach the terminal, length is capped. */
static void test_hostile_text(void **state)
{
	char msg[1200], att[1400], want[512];
	struct json *v[2];
	struct run run;

	memset(msg, 'x', sizeof(msg) - 1);
	msg[sizeof(msg) - 1] = '\0';
	memcpy(msg, "red\\n", 5);
	snprintf(att, sizeof(att), "{\"checks\":[{\"id\":\"links\\u0007\",\"status\":\"fail\",\"message\":\"%s\"}]}", msg);
	v[0] = mk_tcpxo("gke-a\tb", "false", GOOD, att);
	v[1] = mk_tcpxo("gke-c", "false", GOOD, "{\"checks\":[{\"id\":\"links\",\"status\":\"fail\",\"message\":\"a\\u001b[2Jb\"}]}");
	run = eval_nodes(v, 2);
	assert_int_equal(run.r, 0);
	snprintf(want, sizeof(want), "not ready: 2 nodes (gke-a?b, gke-c)\n"
		 "  links: 1 node (gke-c): a?[2Jb\n"
		 "  links?: 1 node (gke-a?b): red?%.*s…\n"
		 "incoherent: 2 TCPXO nodes: 2 not ready; no mapping printed\n", 240 - 4, msg + 5);
	assert_string_equal(strstr(run.res.diagnostics, "not ready"), want);
	assert_null(strchr(run.res.diagnostics, '\x1b'));
	coherence_result_free(&run.res);
}

/* Readiness apart (the runtime check): not-ready nodes agree when they publish the same mapping. */
static void test_ready_apart(void **state)
{
	struct json *v[] = {
		mk_tcpxo("gke-ok", "true", GOOD, NULL),
		mk_tcpxo("gke-r1", "false", GOOD, "{\"checks\":[" VP "]}"),
	};
	char *text = mk_list(NULL, v, 2);
	struct coherence_result res = { 0 };
	struct coherence *c = NULL;
	char err[512] = "";

	assert_int_equal(coherence_new(P, &c), 0);
	coherence_set_ready_apart(c, true);
	assert_int_equal(coherence_add_nodelist(c, text, strlen(text), NULL, err, sizeof(err)), 2);
	assert_int_equal(coherence_evaluate(c, &res, err, sizeof(err)), 0);
	assert_true(res.coherent);
	assert_int_equal(res.n_ifaces, 8);
	assert_string_equal(res.diagnostics,
		"not ready: 1 node (gke-r1)\n"
		"  version-pair: 1 node (gke-r1): daemon v1.0.20 does not pair with installer v1.0.15 (expects v1.0.21)\n"
		"coherent: 2 TCPXO nodes carry the same mapping\n");
	coherence_result_free(&res);

	/* The same nodes again (as report/fleet/fleet.c adds them): a duplicate is refused at evaluation. */
	assert_int_equal(coherence_add_nodelist(c, text, strlen(text), NULL, err, sizeof(err)), 2);
	assert_int_equal(coherence_evaluate(c, &res, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "node 'gke-ok' appears more than once in the list");
	coherence_free(c);
	free(text);
}

/* The AICRConfig form: the document `aicr recipe --config` reads, sorted, only for a mapping AICR accepts. */
static void test_format_aicrconfig(void **state)
{
	struct profile_iface m[8];
	char *out = NULL;

	(void)state;
	for (int i = 0; i < 8; i++) {
		snprintf(m[i].name, sizeof(m[i].name), "eth%d", 8 - i);
		snprintf(m[i].network, sizeof(m[i].network), "gpu-nic-%d", 7 - i);
	}
	assert_int_equal(render_mapping(m, 8, RENDER_MAPPING_AICRCONFIG, &out), 0);
	assert_string_equal(out,
		"apiVersion: aicr.run/v1beta1\n"
		"kind: AICRConfig\n"
		"spec:\n"
		"  recipe:\n"
		"    configuration:\n"
		"      gke:\n"
		"        tcpxoInterfaces:\n"
		"          - interfaceName: eth1\n            network: gpu-nic-0\n"
		"          - interfaceName: eth2\n            network: gpu-nic-1\n"
		"          - interfaceName: eth3\n            network: gpu-nic-2\n"
		"          - interfaceName: eth4\n            network: gpu-nic-3\n"
		"          - interfaceName: eth5\n            network: gpu-nic-4\n"
		"          - interfaceName: eth6\n            network: gpu-nic-5\n"
		"          - interfaceName: eth7\n            network: gpu-nic-6\n"
		"          - interfaceName: eth8\n            network: gpu-nic-7\n");
	free(out);
	out = NULL;
	/* A network twice is judged invalid before anything renders it (coherence hands over valid mappings only). */
	strcpy(m[0].network, m[1].network);
	assert_int_equal(ifacemap_validate(m, 8, NULL), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_coherent),
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_disagree),
		cmocka_unit_test(test_disagree_names_and_ties),
		cmocka_unit_test(test_not_ready),
		cmocka_unit_test(test_ready_apart),
		cmocka_unit_test(test_mapping_problems),
		cmocka_unit_test(test_naming_rule),
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_dranet),
		cmocka_unit_test(test_prefix),
		cmocka_unit_test(test_order_independent),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_scanner_accepts),
		cmocka_unit_test(test_pages),
		cmocka_unit_test(test_hostile_text),
		cmocka_unit_test(test_format_aicrconfig),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
