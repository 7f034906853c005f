/* test_kubepod.c - probes/kube/kubepod.c and the pod model's lookups (probes/model/obs_pod.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "probes/kube/kubepod.h"
#include "probes/model/json.h"
#include "probes/model/obs_pod.h"

/* A realized worker pod in the shape a TrainJob from a TCPXO runtime makes (trimmed). */
static const char worker[] =
	"{\"metadata\":{\"name\":\"w-0\",\"namespace\":\"ml\",\"uid\":\"3f1c\","
	"\"labels\":{\"jobset.sigs.k8s.io/jobset-name\":\"llama\"},"
	"\"annotations\":{\"devices.gke.io/container.tcpxo-daemon\":\"- path: /dev/nvidia0\\n\","
	"\"networking.gke.io/default-interface\":\"eth0\"},"
	"\"ownerReferences\":[{\"kind\":\"Job\",\"name\":\"llama-node-0\",\"controller\":true}]},"
	"\"spec\":{\"nodeName\":\"n1\",\"nodeSelector\":{\"node.kubernetes.io/instance-type\":\"a3-megagpu-8g\"},"
	"\"tolerations\":[{\"key\":\"nvidia.com/gpu\",\"operator\":\"Exists\",\"effect\":\"NoSchedule\"}],"
	"\"affinity\":{\"nodeAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":{\"nodeSelectorTerms\":["
	"{\"matchExpressions\":[{\"key\":\"fabric.aicr.run/ready\",\"operator\":\"In\",\"values\":[\"true\"]}]}]}}},"
	"\"volumes\":[{\"name\":\"libraries\",\"hostPath\":{\"path\":\"/home/kubernetes/bin/nvidia/\"}},"
	"{\"name\":\"sys\",\"hostPath\":{\"path\":\"/sys\"}},{\"name\":\"dshm\",\"emptyDir\":{\"medium\":\"Memory\"}}],"
	"\"initContainers\":[{\"name\":\"tcpxo-daemon\",\"image\":\"us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/tcpgpudmarxd-dev:v1.0.21\","
	"\"restartPolicy\":\"Always\",\"command\":[\"/fts/entrypoint_rxdm_container.sh\"],\"args\":[\"--num_hops=2\"],"
	"\"securityContext\":{\"capabilities\":{\"add\":[\"NET_ADMIN\",\"CAP_NET_BIND_SERVICE\"]}},"
	"\"volumeMounts\":[{\"name\":\"libraries\",\"mountPath\":\"/usr/local/nvidia\"},{\"name\":\"sys\",\"mountPath\":\"/hostsysfs\",\"readOnly\":true}]}],"
	"\"containers\":[{\"name\":\"node\",\"image\":\"nvcr.io/nvidia/pytorch:24.07-py3\","
	"\"env\":[{\"name\":\"NCCL_FASTRAK_IFNAME\",\"value\":\"eth1\"},{\"name\":\"POD_IP\",\"valueFrom\":{\"fieldRef\":{}}},"
	"{\"name\":\"NCCL_FASTRAK_IFNAME\",\"value\":\"eth1,eth2\"},{\"name\":\"EMPTY\"}],"
	"\"envFrom\":[{\"configMapRef\":{\"name\":\"x\"}}],"
	"\"securityContext\":{\"privileged\":false},"
	"\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"8\"},\"requests\":{\"cpu\":\"1\"}}}]},"
	"\"status\":{\"phase\":\"Running\","
	"\"initContainerStatuses\":[{\"name\":\"tcpxo-daemon\",\"restartCount\":4,\"ready\":false,"
	"\"state\":{\"waiting\":{\"reason\":\"CrashLoopBackOff\"}},"
	"\"lastState\":{\"terminated\":{\"exitCode\":1,\"reason\":\"Error\"}},"
	"\"imageID\":\"us-docker.pkg.dev/x/tcpgpudmarxd-dev@sha256:8d9e\"}],"
	"\"containerStatuses\":[{\"name\":\"node\",\"ready\":true,\"state\":{\"running\":{}}}]}}";

static struct json *parse_json(const char *text)
{
	struct json *v = NULL;

	assert_int_equal(json_parse(text, strlen(text), &v), 0);
	return v;
}

static int parse_pod(const char *text, struct pod *p, char *err, size_t errlen)
{
	struct json *v = parse_json(text);
	int r = kubepod_parse(v, "pod", p, err, errlen);

	json_free(v);
	return r;
}

static void test_worker(void **state)
{
	const struct pod_container *d, *w;
	const struct pod_mount *m;
	struct pod p;
	char err[256] = "";
	bool set;

	assert_int_equal(parse_pod(worker, &p, err, sizeof(err)), 0);
	assert_string_equal(p.ns, "ml");
	assert_string_equal(p.name, "w-0");
	assert_string_equal(p.uid, "3f1c");
	assert_string_equal(p.phase, "Running");
	assert_string_equal(p.node_name, "n1");
	assert_string_equal(obs_pod_kv(&p.labels, "jobset.sigs.k8s.io/jobset-name"), "llama");
	assert_string_equal(obs_pod_kv(&p.annotations, "devices.gke.io/container.tcpxo-daemon"), "- path: /dev/nvidia0\n");
	assert_null(obs_pod_kv(&p.annotations, "networking.gke.io/interfaces"));
	assert_string_equal(obs_pod_kv(&p.node_selector, "node.kubernetes.io/instance-type"), "a3-megagpu-8g");
	assert_int_equal(p.n_owners, 1);
	assert_string_equal(p.owners[0].kind, "Job");
	assert_true(p.owners[0].controller);
	assert_int_equal(p.n_tolerations, 1);
	assert_string_equal(p.tolerations[0].key, "nvidia.com/gpu");
	assert_string_equal(p.tolerations[0].op, "Exists");
	assert_null(p.tolerations[0].value);
	assert_int_equal(p.n_affinity, 1);
	assert_string_equal(p.affinity[0].key, "fabric.aicr.run/ready");
	assert_int_equal(p.affinity[0].n_values, 1);
	assert_string_equal(p.affinity[0].values[0], "true");
	assert_int_equal(p.n_volumes, 3);
	assert_true(obs_pod_volume(&p, "dshm")->empty_dir);
	assert_string_equal(obs_pod_volume(&p, "dshm")->medium, "Memory");
	assert_null(obs_pod_volume(&p, "dshm")->host_path);

	/* Init containers first. */
	assert_int_equal(p.n_containers, 2);
	d = &p.containers[0];
	w = obs_pod_container(&p, "node");
	assert_ptr_equal(obs_pod_container(&p, "tcpxo-daemon"), d);
	assert_true(d->init && d->sidecar);
	assert_int_equal(d->n_command, 1);
	assert_string_equal(d->args[0], "--num_hops=2");
	assert_true(obs_pod_has_cap(d, "NET_ADMIN"));
	assert_true(obs_pod_has_cap(d, "NET_BIND_SERVICE"));        /* written CAP_NET_BIND_SERVICE */
	assert_false(obs_pod_has_cap(d, "IPC_LOCK"));
	assert_int_equal(d->status.state, POD_CSTATE_WAITING);
	assert_string_equal(d->status.reason, "CrashLoopBackOff");
	assert_int_equal(d->status.restarts, 4);
	assert_true(d->status.has_last);
	assert_int_equal(d->status.last_exit_code, 1);
	assert_string_equal(d->status.last_reason, "Error");
	assert_false(d->status.ready);
	/* The host path is matched without its trailing slash; readOnly is kept. */
	m = obs_pod_mount_of_host(&p, d, "/home/kubernetes/bin/nvidia");
	assert_non_null(m);
	assert_string_equal(m->path, "/usr/local/nvidia");
	m = obs_pod_mount_of_host(&p, d, "/sys/");
	assert_non_null(m);
	assert_true(m->read_only);
	assert_null(obs_pod_mount_of_host(&p, d, "/proc/sys"));
	assert_ptr_equal(obs_pod_mount_at(d, "/hostsysfs"), m);

	assert_false(w->init);
	assert_false(w->privileged);
	assert_true(w->env_from);
	assert_int_equal(w->status.state, POD_CSTATE_RUNNING);
	assert_true(w->status.ready);
	/* The last entry of a name wins; valueFrom is set with an unknown value; no value is "". */
	assert_string_equal(obs_pod_env(w, "NCCL_FASTRAK_IFNAME", &set), "eth1,eth2");
	assert_true(set);
	assert_null(obs_pod_env(w, "POD_IP", &set));
	assert_true(set);
	assert_string_equal(obs_pod_env(w, "EMPTY", &set), "");
	assert_null(obs_pod_env(w, "NCCL_SOCKET_IFNAME", &set));
	assert_false(set);
	assert_int_equal(w->gpu_limit, 8);
	assert_int_equal(w->gpu_request, POD_GPUS_ABSENT);
	assert_int_equal(obs_pod_gpus(&p), 8);
	obs_pod_free(&p);
	obs_pod_free(&p);       /* twice is harmless: it was zeroed */
}

/* A template (what a runtime's replicatedJobs carry): no status, no names of its own. */
static void test_template(void **state)
{
	struct pod p;
	char err[256];

	assert_int_equal(parse_pod("{\"metadata\":{\"annotations\":{\"a\":\"b\"}},\"spec\":{\"containers\":"
				   "[{\"name\":\"node\",\"image\":\"x\",\"resources\":{\"limits\":{\"nvidia.com/gpu\":8}}}]}}",
				   &p, err, sizeof(err)), 0);
	assert_null(p.name);
	assert_null(p.ns);
	assert_null(p.phase);
	assert_int_equal(p.containers[0].status.state, POD_CSTATE_NONE);
	assert_int_equal(obs_pod_gpus(&p), 8);
	obs_pod_free(&p);
}

static void expect_error(const char *text, const char *needle);

static long long gpus_of(const char *spec)
{
	char text[2048], err[256];
	long long g;
	struct pod p;

	snprintf(text, sizeof(text), "{\"spec\":%s}", spec);
	if (parse_pod(text, &p, err, sizeof(err)) < 0)
		fail_msg("%s: %s", spec, err);
	g = obs_pod_gpus(&p);
	obs_pod_free(&p);
	return g;
}

#define C(name, extra) "{\"name\":\"" name "\"" extra "}"
#define GPU(n) ",\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"" #n "\"}}"
#define REQ(n) ",\"resources\":{\"requests\":{\"nvidia.com/gpu\":" #n "},\"limits\":{\"nvidia.com/gpu\":" #n "}}"
#define SIDECAR ",\"restartPolicy\":\"Always\""

/* Kubernetes' effective request, with and without native sidecars. */
static void test_effective_gpus(void **state)
{
	assert_int_equal(gpus_of("{\"containers\":[" C("a", GPU(4)) "," C("b", GPU(4)) "]}"), 8);
	assert_int_equal(gpus_of("{\"containers\":[" C("a", "") "]}"), 0);
	/* The largest init container beats a smaller sum of containers. */
	assert_int_equal(gpus_of("{\"initContainers\":[" C("i", GPU(8)) "],\"containers\":[" C("a", GPU(1)) "]}"), 8);
	assert_int_equal(gpus_of("{\"initContainers\":[" C("i", GPU(2)) "," C("j", GPU(3)) "],"
				 "\"containers\":[" C("a", GPU(4)) "]}"), 4);
	/* A sidecar counts with the containers, and beside every init container after it. */
	assert_int_equal(gpus_of("{\"initContainers\":[" C("s", GPU(1) SIDECAR) "],\"containers\":[" C("a", GPU(7)) "]}"), 8);
	assert_int_equal(gpus_of("{\"initContainers\":[" C("s", GPU(2) SIDECAR) "," C("i", GPU(7)) "],"
				 "\"containers\":[" C("a", GPU(1)) "]}"), 9);
	assert_int_equal(gpus_of("{\"initContainers\":[" C("i", GPU(7)) "," C("s", GPU(2) SIDECAR) "],"
				 "\"containers\":[" C("a", GPU(1)) "]}"), 7);
	/* requests win over limits; JSON numbers are quantities too. */
	assert_int_equal(gpus_of("{\"containers\":[" C("a", REQ(2)) "]}"), 2);
}

/* A GPU quantity in the API's grammar (resource.Quantity), as the API server writes one or accepts it. */
static long long gpu_quantity(const char *q)
{
	char spec[256];

	snprintf(spec, sizeof(spec), "{\"containers\":[{\"name\":\"a\",\"resources\":{\"limits\":"
		 "{\"nvidia.com/gpu\":\"%s\"}}}]}", q);
	return gpus_of(spec);
}

static void expect_quantity_refused(const char *q, const char *why)
{
	char text[512], needle[256];

	snprintf(text, sizeof(text), "{\"spec\":{\"containers\":[{\"name\":\"a\",\"resources\":{\"limits\":"
		 "{\"nvidia.com/gpu\":\"%s\"}}}]}}", q);
	snprintf(needle, sizeof(needle), "'%s' is not a whole number of GPUs (%s)", q, why);
	expect_error(text, needle);
}

static void test_gpu_quantities(void **state)
{
	assert_int_equal(gpu_quantity("8"), 8);
	assert_int_equal(gpu_quantity("+8"), 8);
	assert_int_equal(gpu_quantity("08"), 8);
	assert_int_equal(gpu_quantity("1k"), 1000);             /* how the API server writes 1000 */
	assert_int_equal(gpu_quantity("1000m"), 1);
	assert_int_equal(gpu_quantity("8000m"), 8);
	assert_int_equal(gpu_quantity("2e3"), 2000);
	assert_int_equal(gpu_quantity("2E3"), 2000);
	assert_int_equal(gpu_quantity("2e+3"), 2000);
	assert_int_equal(gpu_quantity("8000e-3"), 8);
	assert_int_equal(gpu_quantity("1Ki"), 1024);
	assert_int_equal(gpu_quantity("1Mi"), 1048576);
	assert_int_equal(gpu_quantity("1M"), 1000000);
	assert_int_equal(gpu_quantity("1G"), 1000000000);
	assert_int_equal(gpu_quantity("1T"), 1000000000000LL);
	assert_int_equal(gpu_quantity("1P"), 1000000000000000LL);
	assert_int_equal(gpu_quantity("0.5k"), 500);
	assert_int_equal(gpu_quantity("0.5Ki"), 512);
	assert_int_equal(gpu_quantity("1.5k"), 1500);
	assert_int_equal(gpu_quantity(".5k"), 500);
	assert_int_equal(gpu_quantity("8."), 8);
	assert_int_equal(gpu_quantity("8.000"), 8);
	assert_int_equal(gpu_quantity("8000000000n"), 8);
	assert_int_equal(gpu_quantity("8000000u"), 8);
	assert_int_equal(gpu_quantity("0"), 0);
	assert_int_equal(gpu_quantity("-0"), 0);
	assert_int_equal(gpu_quantity("0.0Ki"), 0);
	assert_int_equal(gpu_quantity("000000000000000000000000000008"), 8);
	assert_int_equal(gpu_quantity("8000000000000000000000000000000e-30"), 8);

	expect_quantity_refused("1.5", "not a whole number");
	expect_quantity_refused("0.1Ki", "not a whole number");
	expect_quantity_refused("500m", "not a whole number");
	expect_quantity_refused("-1", "a negative number");
	expect_quantity_refused("-1k", "a negative number");
	expect_quantity_refused("1E", "larger than the agent counts");   /* 10^18: the API holds it */
	expect_quantity_refused("1Ei", "larger than the agent counts");
	expect_quantity_refused("99999999999999999999", "larger than the agent counts");
	expect_quantity_refused("1e1000", "larger than the agent counts");
	expect_quantity_refused("1e1001", "an exponent must be a whole number (at most 1000)");
	expect_quantity_refused("1e-1001", "an exponent must be a whole number (at most 1000)");
	expect_quantity_refused("1e", "not a Kubernetes quantity");
	expect_quantity_refused("1e1.5", "an exponent must be a whole number (at most 1000)");
	expect_quantity_refused("1ex", "an exponent must be a whole number");
	expect_quantity_refused("1K", "not a Kubernetes quantity");
	expect_quantity_refused("1ki", "not a Kubernetes quantity");
	expect_quantity_refused("1 k", "not a Kubernetes quantity");
	expect_quantity_refused(" 1", "not a number");
	expect_quantity_refused("", "not a number");
	expect_quantity_refused(".", "not a number");
	expect_quantity_refused("+", "not a number");
	expect_quantity_refused("1..0", "not a Kubernetes quantity");
	expect_quantity_refused("--1", "not a number");
}

static void expect_error(const char *text, const char *needle)
{
	char err[512] = "";
	struct pod p;
	int r = parse_pod(text, &p, err, sizeof(err));

	if (r != -EINVAL)
		fail_msg("accepted (%d): %.200s", r, text);
	if (!strstr(err, needle))
		fail_msg("error '%s' does not mention '%s'", err, needle);
}

static void test_errors(void **state)
{
	expect_error("[]", "pod: expected an object, got array");
	expect_error("{\"metadata\":{\"labels\":{\"a\":1}}}", "pod.metadata.labels[a]: expected a string, got number");
	expect_error("{\"metadata\":{\"ownerReferences\":[\"x\"]}}", "pod.metadata.ownerReferences[0]: expected an object");
	expect_error("{\"spec\":{\"containers\":[" C("a", ",\"env\":[{\"value\":\"x\"}]") "]}}",
		     "pod.spec.containers[0].env[0].name: missing");
	expect_error("{\"spec\":{\"containers\":[" C("a", ",\"volumeMounts\":[{\"name\":\"v\",\"readOnly\":\"yes\"}]") "]}}",
		     "pod.spec.containers[0].volumeMounts[0].readOnly: expected a boolean");
	expect_error("{\"spec\":{\"containers\":[" C("a", ",\"securityContext\":{\"privileged\":1}") "]}}",
		     "pod.spec.containers[0].securityContext.privileged: expected a boolean, got number");
	expect_error("{\"spec\":{\"containers\":[" C("a", ",\"securityContext\":{\"capabilities\":{\"add\":[3]}}") "]}}",
		     "pod.spec.containers[0].securityContext.capabilities.add[0]: expected a string");
	expect_error("{\"spec\":{\"containers\":[" C("a", GPU(8.5)) "]}}",
		     "pod.spec.containers[0].resources.limits[nvidia.com/gpu]: '8.5' is not a whole number of GPUs");
	expect_error("{\"spec\":{\"containers\":[" C("a", GPU(-1)) "]}}", "'-1' is not a whole number");
	expect_error("{\"spec\":{\"containers\":[" C("a", GPU(1500m)) "]}}", "'1500m' is not a whole number of GPUs");
	expect_error("{\"spec\":{\"containers\":[" C("a", GPU(1x)) "]}}", "'1x' is not a whole number of GPUs (not a Kubernetes quantity)");
	expect_error("{\"spec\":{\"containers\":[" C("a", ",\"resources\":{\"limits\":{\"nvidia.com/gpu\":true}}") "]}}",
		     "expected a whole number of GPUs, got boolean");
	expect_error("{\"spec\":{\"volumes\":[{\"name\":\"v\",\"hostPath\":{\"path\":5}}]}}",
		     "pod.spec.volumes[0].hostPath.path: expected a string, got number");
	expect_error("{\"spec\":{\"hostNetwork\":\"true\"}}", "pod.spec.hostNetwork: expected a boolean");
	expect_error("{\"spec\":{\"affinity\":{\"nodeAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":"
		     "{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"k\",\"values\":[1]}]}]}}}}}",
		     "nodeSelectorTerms[0].matchExpressions[0].values[0]: expected a string");
	expect_error("{\"status\":{\"containerStatuses\":[{\"name\":\"a\",\"state\":{\"waiting\":{\"reason\":7}}}]},"
		     "\"spec\":{\"containers\":[" C("a", "") "]}}",
		     "pod.status.containerStatuses[a].state.waiting.reason: expected a string");
}

/* One container "a" with a status of @st (a JSON object's members). */
#define ST(st) "{\"spec\":{\"containers\":[{\"name\":\"a\"}]},\"status\":{\"containerStatuses\":[{\"name\":\"a\"," st "}]}}"

static long long started(const char *at)
{
	char text[512], err[256] = "";
	struct pod p;
	long long v;

	snprintf(text, sizeof(text), ST("\"state\":{\"running\":{\"startedAt\":\"%s\"}}"), at);
	if (parse_pod(text, &p, err, sizeof(err)) < 0)
		fail_msg("'%s' refused: %s", at, err);
	v = p.containers[0].status.started_at;
	obs_pod_free(&p);
	return v;
}

/* containerID and state.running.startedAt (RFC 3339, as the API writes it and its other forms). */
static void test_container_id_started(void **state)
{
	struct pod p;
	char err[256] = "";

	assert_int_equal(parse_pod(ST("\"containerID\":\"containerd://0123abcd\","
				      "\"state\":{\"running\":{\"startedAt\":\"2026-12-04T10:00:00Z\"}}"),
				   &p, err, sizeof(err)), 0);
	assert_string_equal(p.containers[0].status.container_id, "containerd://0123abcd");
	assert_int_equal(p.containers[0].status.started_at, 1796378400LL);
	assert_int_equal(p.containers[0].status.state, POD_CSTATE_RUNNING);
	obs_pod_free(&p);

	/* Not running: no startedAt read (a waiting state has none), no id. */
	assert_int_equal(parse_pod(ST("\"state\":{\"terminated\":{\"startedAt\":\"x\"}}"), &p, err, sizeof(err)), 0);
	assert_null(p.containers[0].status.container_id);
	assert_int_equal(p.containers[0].status.started_at, 0);
	obs_pod_free(&p);
	assert_int_equal(parse_pod(ST("\"state\":{\"running\":{}}"), &p, err, sizeof(err)), 0);
	assert_int_equal(p.containers[0].status.started_at, 0);
	obs_pod_free(&p);

	assert_int_equal(started("1970-01-01T00:00:00Z"), 0);
	assert_int_equal(started("2026-12-04T10:00:00.123456Z"), 1796378400LL);
	assert_int_equal(started("2026-12-04t11:30:00+01:30"), 1796378400LL);
	assert_int_equal(started("2026-12-04T08:00:00.5-02:00"), 1796378400LL);
	assert_int_equal(started("2024-02-29T00:00:00Z"), 1709164800LL);
	assert_int_equal(started("2000-03-01T00:00:00Z"), 951868800LL);
}

static void test_container_id_started_errors(void **state)
{
	static const char *const bad[] = {
		"2026-12-04 10:00:00Z", "2026-12-04T10:00:00", "2026-13-04T10:00:00Z", "2026-02-30T10:00:00Z",
		"2025-02-29T10:00:00Z", "2026-12-04T24:00:00Z", "2026-12-04T10:00:00.Z", "2026-12-04T10:00:00+0100",
		"2026-12-04T10:00:00Zjunk", "2026-12-04T10:00:00.1234567890Z", "26-12-04T10:00:00Z", "",
	};
	char text[512];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), ST("\"state\":{\"running\":{\"startedAt\":\"%s\"}}"), bad[i]);
		expect_error(text, "pod.status.containerStatuses[a].state.running.startedAt: not an RFC 3339 time");
	}
	expect_error(ST("\"state\":{\"running\":{\"startedAt\":5}}"),
		     "pod.status.containerStatuses[a].state.running.startedAt: expected a string, got number");
	expect_error(ST("\"containerID\":7"), "pod.status.containerStatuses[a].containerID: expected a string");

	/* Bounded: an id longer than KUBEPOD_CONTAINER_ID_MAX is refused by name. */
	{
		char id[KUBEPOD_CONTAINER_ID_MAX + 2], big[1024];

		memset(id, 'a', sizeof(id) - 1);
		id[sizeof(id) - 1] = '\0';
		snprintf(big, sizeof(big), ST("\"containerID\":\"%s\""), id);
		expect_error(big, "pod.status.containerStatuses[a].containerID: longer than");
	}
}

/* Bounds: too many entries, values too long. */
static void test_limits(void **state)
{
	size_t cap = 20 * (size_t)KUBEPOD_ENTRIES_MAX + 4096, o;
	char *big = malloc(cap);

	assert_non_null(big);
	o = (size_t)snprintf(big, cap, "{\"metadata\":{\"annotations\":{\"a\":\"");
	memset(big + o, 'x', KUBEPOD_ANN_MAX + 1);
	o += KUBEPOD_ANN_MAX + 1;
	snprintf(big + o, cap - o, "\"}}}");
	expect_error(big, "pod.metadata.annotations[a]: longer than 262144 characters");

	o = (size_t)snprintf(big, cap, "{\"spec\":{\"containers\":[{\"name\":\"a\",\"env\":[");
	for (unsigned i = 0; i <= KUBEPOD_LIST_MAX; i++)
		o += (size_t)snprintf(big + o, cap - o, "%s{\"name\":\"V%u\"}", i ? "," : "", i);
	snprintf(big + o, cap - o, "]}]}}");
	expect_error(big, "pod.spec.containers[0].env: 786433 entries, at most 786432 are read");

	o = (size_t)snprintf(big, cap, "{\"spec\":{\"containers\":[");
	for (unsigned i = 0; i <= KUBEPOD_CONTAINERS_MAX; i++)
		o += (size_t)snprintf(big + o, cap - o, "%s{\"name\":\"c%u\"}", i ? "," : "", i);
	snprintf(big + o, cap - o, "]}}");
	expect_error(big, "pod.spec.containers: 786433 entries, at most 786432 are read");
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_worker),
		cmocka_unit_test(test_gpu_quantities),
		cmocka_unit_test(test_template),
		cmocka_unit_test(test_effective_gpus),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_container_id_started),
		cmocka_unit_test(test_container_id_started_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
