/* test_trainruntime.c - probes/kube/trainruntime.c: a runtime found by name in JSON or YAML, its templates, every refusal named. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "probes/kube/trainruntime.h"
#include "probes/model/strbuf.h"

#define API "trainer.kubeflow.org/v1alpha1"

/* A runtime document in the shape helm template writes (one job, a sidecar and a worker). */
#define RT_YAML(name) \
	"apiVersion: " API "\n" \
	"kind: ClusterTrainingRuntime\n" \
	"metadata:\n" \
	"  name: " name "\n" \
	"spec:\n" \
	"  mlPolicy: {numNodes: 2, torch: {}}\n" \
	"  template:\n" \
	"    spec:\n" \
	"      replicatedJobs:\n" \
	"        - name: node\n" \
	"          template:\n" \
	"            spec:\n" \
	"              template:\n" \
	"                metadata:\n" \
	"                  annotations:\n" \
	"                    networking.gke.io/default-interface: eth0\n" \
	"                spec:\n" \
	"                  initContainers:\n" \
	"                    - name: tcpxo-daemon\n" \
	"                      image: us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/tcpgpudmarxd-dev:v1.0.21\n" \
	"                      restartPolicy: Always\n" \
	"                  containers:\n" \
	"                    - name: node\n" \
	"                      image: pytorch/pytorch:2.11.0\n" \
	"                      resources:\n" \
	"                        limits:\n" \
	"                          nvidia.com/gpu: \"8\"\n"

static char err[1024];

static int find(const char *text, const char *name, struct trainruntime *rt)
{
	memset(rt, 0, sizeof(*rt));
	return trainruntime_find(text, strlen(text), name, rt, err, sizeof(err));
}

static void expect_err(const char *text, const char *name, int want, const char *msg)
{
	struct trainruntime rt;
	int r = find(text, name, &rt);

	if (r != want || !strstr(err, msg))
		fail_msg("got %d \"%s\", want %d with \"%s\"", r, err, want, msg);
}

/* helm template: several documents, other kinds, comments; the runtime is found with its place. */
static void test_yaml_documents(void **state)
{
	static const char text[] =
		"---\n# Source: kubeflow-trainer/templates/configmap.yaml\n"
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {a: b}\n"
		"---\n# Source: kubeflow-trainer/templates/torch-distributed.yaml\n"
		"apiVersion: " API "\nkind: ClusterTrainingRuntime\nmetadata: {name: torch-distributed}\n"
		"spec: {template: {spec: {replicatedJobs: [{name: node, template: {spec: {template: {spec: "
		"{containers: [{name: node}]}}}}}]}}}\n"
		"---\n" RT_YAML("torch-distributed-tcpxo");
	struct trainruntime rt;

	assert_int_equal(find(text, "torch-distributed-tcpxo", &rt), 0);
	assert_string_equal(rt.kind, "ClusterTrainingRuntime");
	assert_string_equal(rt.api_version, API);
	assert_string_equal(rt.name, "torch-distributed-tcpxo");
	assert_null(rt.ns);
	assert_string_equal(rt.where, "document 3 (line 13)");
	assert_int_equal(rt.n_templates, 1);
	assert_string_equal(rt.templates[0].job, "node");
	assert_int_equal(rt.templates[0].pod.n_containers, 2);
	assert_true(rt.templates[0].pod.containers[0].sidecar);
	assert_int_equal(rt.templates[0].pod.containers[1].gpu_limit, 8);
	trainruntime_free(&rt);

	/* The other runtime of the same text, by its name. */
	assert_int_equal(find(text, "torch-distributed", &rt), 0);
	assert_string_equal(rt.where, "document 2 (line 7)");
	trainruntime_free(&rt);
}

/* kubectl get -o json: one object, or a List; a namespaced TrainingRuntime keeps its namespace. */
static void test_json(void **state)
{
	static const char one[] = "{\"apiVersion\":\"" API "\",\"kind\":\"TrainingRuntime\",\"metadata\":{\"name\":\"rt\","
		"\"namespace\":\"ml\"},\"spec\":{\"template\":{\"spec\":{\"replicatedJobs\":[{\"name\":\"launcher\","
		"\"template\":{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"l\"}]}}}}},{\"name\":\"node\","
		"\"template\":{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"n\"}]}}}}}]}}}}";
	struct strbuf list = { 0 };
	struct trainruntime rt;

	assert_int_equal(find(one, "rt", &rt), 0);
	assert_string_equal(rt.kind, "TrainingRuntime");
	assert_string_equal(rt.ns, "ml");
	assert_string_equal(rt.where, "the object");
	assert_int_equal(rt.n_templates, 2);
	assert_string_equal(rt.templates[1].job, "node");
	trainruntime_free(&rt);

	strbuf_appendf(&list, "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[{\"kind\":\"Pod\"},%s]}", one);
	assert_int_equal(find(list.s, "rt", &rt), 0);
	assert_string_equal(rt.where, "the object items[1]");
	trainruntime_free(&rt);
	strbuf_free(&list);

	/* JSON the JSON reader refuses is read as YAML, which says where it breaks. */
	expect_err("{\"kind\": \"ClusterTrainingRuntime\",", "rt", -EINVAL, "line ");
}

/* Nothing of that name: what the text holds instead. */
static void test_absent(void **state)
{
	static const char text[] = "kind: Deployment\nmetadata: {name: a}\n---\nkind: Service\n---\n"
		RT_YAML("torch-distributed") "---\nkind: Deployment\n";

	expect_err(text, "torch-distributed-tcpxo", -ENOENT,
		   "no ClusterTrainingRuntime or TrainingRuntime named torch-distributed-tcpxo; it holds "
		   "ClusterTrainingRuntime torch-distributed, and 3 objects of other kinds (Deployment, Service)");
	expect_err("", "x", -ENOENT, "no ClusterTrainingRuntime or TrainingRuntime named x: the text holds no object");
	expect_err("# only a comment\n", "x", -ENOENT, "the text holds no object");
	expect_err("[1, \"a\"]", "x", -ENOENT, "2 objects of other kinds (number, string)");
	/* A PodList, as the API writes it: the items carry no kind; the list's says what they are. */
	expect_err("{\"kind\": \"PodList\", \"items\": [{\"metadata\": {\"name\": \"a\"}}, {}]}", "x", -ENOENT,
		   "it holds 2 objects of other kinds (Pod)");
	expect_err("{\"metadata\": {\"name\": \"a\"}}", "x", -ENOENT, "it holds 1 object of other kinds (without a kind)");
}

static void test_refusals(void **state)
{
	/* Two of the same name. */
	expect_err(RT_YAML("a") "---\n" RT_YAML("a"), "a", -EINVAL,
		   "two runtimes are named a: ClusterTrainingRuntime a (document 1 (line 1)) and ClusterTrainingRuntime "
		   "(document 2 (line 28))");
	/* Another group: the Training Operator v1 had no such kind. */
	expect_err("apiVersion: kubeflow.org/v1\nkind: ClusterTrainingRuntime\nmetadata: {name: a}\n", "a", -EINVAL,
		   "document 1 (line 1): apiVersion kubeflow.org/v1 is not in the group trainer.kubeflow.org");
	expect_err("apiVersion: " API "\nkind: ClusterTrainingRuntime\nmetadata: {name: a}\nspec: {template: {spec: {}}}\n",
		   "a", -EINVAL, "document 1 (line 1): spec.template.spec.replicatedJobs: 0 entries, expected 1 to 64");
	expect_err("apiVersion: " API "\nkind: ClusterTrainingRuntime\nmetadata: {name: a}\n", "a", -EINVAL,
		   "document 1 (line 1).spec: missing");
	expect_err("apiVersion: " API "\nkind: ClusterTrainingRuntime\nmetadata: {name: a}\nspec: {template: {spec: "
		   "{replicatedJobs: [{name: n, template: {spec: {template: {}}}}, {name: n}]}}}\n", "a", -EINVAL,
		   "replicatedJobs[1].name: job n is named twice (replicatedJobs[0])");
	expect_err("apiVersion: " API "\nkind: ClusterTrainingRuntime\nmetadata: {name: a}\nspec: {template: {spec: "
		   "{replicatedJobs: [{template: {}}]}}}\n", "a", -EINVAL,
		   "document 1 (line 1): spec.template.spec.replicatedJobs[0].name: missing");
	/* A template field the pod reader refuses: the whole path, from the document. */
	expect_err("apiVersion: " API "\nkind: ClusterTrainingRuntime\nmetadata: {name: a}\nspec: {template: {spec: "
		   "{replicatedJobs: [{name: n, template: {spec: {template: {spec: {containers: [{name: c, env: "
		   "[{name: X, value: 7}]}]}}}}}]}}}\n", "a", -EINVAL,
		   "document 1 (line 1): spec.template.spec.replicatedJobs[0].template.spec.template.spec.containers[0]");
}

/* Hostile text: bombs, depth, size, bytes that are not UTF-8; each a clear error. */
static void test_hostile(void **state)
{
	struct strbuf t = { 0 };
	char *big;

	/* A billion laughs. */
	strbuf_append(&t, "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
	for (int i = 1; i < 9; i++)
		strbuf_appendf(&t, "a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n", i, i,
			       i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1);
	expect_err(t.s, "a", -EINVAL, "aliases expand to more than");
	strbuf_free(&t);

	/* Nesting deeper than any manifest. */
	for (int i = 0; i < 200; i++)
		strbuf_append(&t, "[");
	expect_err(t.s, "a", -EINVAL, "nested deeper than");
	strbuf_free(&t);
	for (int i = 0; i < 200; i++)
		strbuf_append(&t, "{\"a\":");
	expect_err(t.s, "a", -EINVAL, "nested deeper than");
	strbuf_free(&t);

	/* A document over the limit, YAML or JSON. */
	big = malloc(TRAINRUNTIME_DOC_MAX + 64);
	assert_non_null(big);
	memcpy(big, "kind: ConfigMap\ndata: {a: \"", 27);
	memset(big + 27, 'x', TRAINRUNTIME_DOC_MAX);
	strcpy(big + 27 + TRAINRUNTIME_DOC_MAX, "\"}\n");
	expect_err(big, "a", -EINVAL, "document 1 (from line 1) is larger than 4194304 bytes");
	memcpy(big, "{\"kind\": \"ConfigMap\", \"a\":\"", 27);
	strcpy(big + 27 + TRAINRUNTIME_DOC_MAX, "\"}\n");
	expect_err(big, "a", -EINVAL, "a JSON text of 4194334 bytes, more than 4194304");
	free(big);

	/* Not UTF-8, as YAML and as JSON: the YAML reader names the place. */
	expect_err("kind: Cluster\xff\xfeTrainingRuntime\n", "a", -EINVAL, "line 1, column 14: not UTF-8");
	expect_err("{\"kind\": \"a\xc0\xaf\"}", "a", -EINVAL, "not UTF-8");
	expect_err("\xef\xbb\xbf" "kind: X\n" "\xed\xa0\x80", "a", -EINVAL, "not UTF-8");
	/* A NUL inside: control characters are refused, with the place. */
	{
		static const char nul[] = "kind: A\n\0kind: B\n";
		struct trainruntime rt = { 0 };

		assert_int_equal(trainruntime_find(nul, sizeof(nul) - 1, "a", &rt, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "line 2, column 1: not UTF-8 text without control characters"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_yaml_documents),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_absent),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
