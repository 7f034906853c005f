/* test_workloads.c - the node's GPU pods judged (workloads.c, attach_node.c), the daemon-pod check, their renderers and the Event content. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "probes/kube/kubeparse.h"
#include "probes/kube/kubeparse_pods.h"
#include "probes/model/json.h"
#include "report/checks/attach_node.h"
#include "report/checks/evaluate.h"
#include "report/checks/workloads.h"
#include "report/render/pod_event.h"
#include "report/render/render.h"
#include "tests/unit/fixture.h"
#include "tests/unit/obsbuild.h"

#define NODE "gke-a3mega-a3mega-pool-1a2b3c4d-x7k2"

struct env {
	struct obs_kube k;               /* the API facts e->o lends */
	struct observation o;
	struct profile p;
	struct workloads w;
};

/* The healthy A3 Mega with the node fixture's API facts and the pod list @pods. */
static struct env *env_new(const char *pods)
{
	struct env *e = calloc(1, sizeof(*e));
	char err[512], rel[256];
	size_t len;
	char *body;

	ob_a3mega(&e->o, true);
	e->o.kube = &e->k;
	strcpy(e->o.node, NODE);
	e->k.configured = true;
	body = fixture_read("kube/node-fixture-a3mega.json", &len);
	if (kubeparse_node(body, len, NULL, &e->k, err, sizeof(err)) < 0)
		fail_msg("node: %s", err);
	free(body);
	e->k.node_fetch.state = KUBE_FETCH_OK;
	if (pods) {
		snprintf(rel, sizeof(rel), "kube/%s", pods);
		body = fixture_read(rel, &len);
		if (kubeparse_pods(body, len, &e->k, err, sizeof(err)) < 0)
			fail_msg("%s: %s", pods, err);
		free(body);
		e->k.pods_fetch.state = KUBE_FETCH_OK;
	}
	return e;
}

static void env_eval(struct env *e)
{
	profile_free(&e->p);
	workloads_free(&e->w);
	assert_int_equal(profile_evaluate(&e->o, &e->p), 0);
	assert_int_equal(workloads_evaluate(&e->o, &e->p, &e->w), 0);
}

static void env_free(struct env *e)
{
	workloads_free(&e->w);
	profile_free(&e->p);
	observation_free(&e->o);
	obs_kube_free(&e->k);
	free(e);
}

static const struct workloads_pod *pod_named(const struct workloads *w, const char *prefix)
{
	for (size_t i = 0; i < w->n; i++)
		if (strncmp(w->pods[i].pod->name, prefix, strlen(prefix)) == 0)
			return &w->pods[i];
	fail_msg("no judged pod %s", prefix);
	return NULL;
}

/* Every fixture pod: the per-finding ones fail exactly their finding (ipc-lock warns). */
static void test_fixture_pods(void **state)
{
	static const char *const findings[] = { "all-gpus", "daemon-sidecar", "daemon-version", "daemon-args",
						"daemon-mounts", "device-injection", "interfaces", "aperture",
						"plugin-path", "nccl-env", "ipc-lock" };
	struct env *e = env_new("pods-workloads.json");
	const struct workloads_pod *wp;

	(void)state;
	env_eval(e);
	assert_true(e->p.ready);
	assert_true(e->w.judged);
	assert_int_equal(e->w.n, 15);
	assert_int_equal(e->w.counts[ATTACH_ATTACHED], 3);
	assert_int_equal(e->w.counts[ATTACH_PARTIAL], 10);
	assert_int_equal(e->w.counts[ATTACH_UNATTACHED], 1);
	assert_int_equal(e->w.counts[ATTACH_NOT_FABRIC], 1);
	assert_true(workloads_any_unattached(&e->w));
	/* The node facts came from the observation. */
	assert_true(e->w.node.ifaces_known);
	assert_int_equal(e->w.node.n_ifaces, 8);
	assert_string_equal(e->w.node.ifaces[7].network, "gpu-nic-7");
	assert_string_equal(e->w.node.expected_daemon, "v1.0.21");
	assert_int_equal(e->w.node.n_devices, 11);
	assert_int_equal(e->w.node.injector, ATTACH_INJECTOR_RUNNING);

	for (size_t i = 0; i < sizeof(findings) / sizeof(findings[0]); i++) {
		char prefix[64];

		snprintf(prefix, sizeof(prefix), "llama-%s-", findings[i]);
		wp = pod_named(&e->w, prefix);
		for (int id = 0; id < ATTACH__COUNT; id++) {
			const struct finding *f = &wp->result.findings[id];
			bool mine = strcmp(attach_finding_name((enum attach_finding_id)id), findings[i]) == 0;

			if (mine && f->status != (strcmp(findings[i], "ipc-lock") == 0 ? CHECK_WARN : CHECK_FAIL))
				fail_msg("%s: %s %s", prefix, check_status_name(f->status), f->message);
			if (!mine && f->status == CHECK_FAIL)
				fail_msg("%s: %s fails too: %s", prefix, attach_finding_name((enum attach_finding_id)id), f->message);
		}
		assert_int_equal(wp->result.verdict, strcmp(findings[i], "ipc-lock") == 0 ? ATTACH_ATTACHED : ATTACH_PARTIAL);
	}
	wp = pod_named(&e->w, "llama-interfaces-");
	assert_non_null(strstr(wp->result.findings[ATTACH_INTERFACES].message,
			       "eth1 -> vpc1 (gpu-nic-0), eth2 -> vpc2 (gpu-nic-1)"));
	assert_int_equal(pod_named(&e->w, "llama-train-")->result.verdict, ATTACH_ATTACHED);
	assert_int_equal(pod_named(&e->w, "nccl-test-host-1")->result.verdict, ATTACH_ATTACHED);
	assert_int_equal(pod_named(&e->w, "pytorch-ddp-")->result.verdict, ATTACH_UNATTACHED);
	assert_int_equal(pod_named(&e->w, "jupyter-notebook-0")->result.verdict, ATTACH_NOT_FABRIC);
	/* Judging the workloads never changes the node's verdict: daemon-pod only warns for them. */
	assert_int_equal(e->p.checks[CHECK_DAEMON_POD].status, CHECK_WARN);
	env_free(e);
}

static void test_selection(void **state)
{
	struct env *e = env_new("pods-workloads.json");
	struct pod *p;

	(void)state;
	env_eval(e);
	/* Not yet scheduled: counted, not judged. Bound to another node: left out. */
	p = (struct pod *)pod_named(&e->w, "pytorch-ddp-")->pod;
	free(p->node_name);
	p->node_name = NULL;
	p = (struct pod *)pod_named(&e->w, "nccl-test-host-1")->pod;
	free(p->node_name);
	p->node_name = strdup("gke-other-node");
	env_eval(e);
	assert_int_equal(e->w.n, 13);
	assert_int_equal(e->w.n_unscheduled, 1);
	assert_int_equal(e->w.counts[ATTACH_UNATTACHED], 0);
	env_free(e);

	/* Without the pod list nothing is judged, and that is said. */
	e = env_new(NULL);
	env_eval(e);
	assert_false(e->w.judged);
	assert_string_equal(e->w.why, "no API access: the node's pods were not read");
	e->k.pods_fetch.state = KUBE_FETCH_FAILED;
	strcpy(e->k.pods_fetch.message, "HTTP 403 Forbidden");
	env_eval(e);
	assert_string_equal(e->w.why, "the node's pods were not read from the API (HTTP 403 Forbidden)");
	env_free(e);
}

static void test_node_facts_unknown(void **state)
{
	struct env *e = env_new("pods-workloads.json");
	struct attach_node n;

	(void)state;
	/* No node from the API: the mapping is unknown (interfaces compares shapes only). */
	e->k.node_fetch.state = KUBE_FETCH_NOT_RUN;
	e->k.has_north = false;
	env_eval(e);
	attach_node_build(&e->o, &e->p, &n);
	assert_false(n.ifaces_known);
	assert_string_equal(n.ifaces_why, "no API access: the node's GPU NIC Networks are not known");
	assert_int_equal(pod_named(&e->w, "llama-interfaces-")->result.verdict, ATTACH_ATTACHED);
	assert_int_equal(pod_named(&e->w, "llama-interfaces-")->result.findings[ATTACH_INTERFACES].status, CHECK_SKIP);
	env_free(e);
}

/* Issue 22 point 9: a GKE managed DRANET node: the interfaces finding skips and names DRANET. */
static void test_node_facts_dranet(void **state)
{
	struct env *e = env_new("pods-workloads.json");
	const struct workloads_pod *wp;
	struct attach_node n;

	(void)state;
	e->k.dranet = true;
	env_eval(e);
	attach_node_build(&e->o, &e->p, &n);
	assert_true(n.dranet);
	assert_false(n.ifaces_known);
	assert_string_equal(n.ifaces_why, "GPU NICs allocated by DRANET");
	/* The pod whose only fault was its interfaces annotation is attached now. */
	wp = pod_named(&e->w, "llama-interfaces-");
	assert_int_equal(wp->result.verdict, ATTACH_ATTACHED);
	assert_int_equal(wp->result.findings[ATTACH_INTERFACES].status, CHECK_SKIP);
	assert_non_null(strstr(wp->result.findings[ATTACH_INTERFACES].message, "GPU NICs allocated by DRANET"));
	for (size_t i = 0; i < e->w.n; i++)
		assert_int_not_equal(e->w.pods[i].result.findings[ATTACH_INTERFACES].status, CHECK_FAIL);
	env_free(e);
}

static void test_daemon_pod_check(void **state)
{
	struct env *e = env_new("pods-healthy.json");
	const struct finding *c;

	(void)state;
	env_eval(e);
	c = &e->p.checks[CHECK_DAEMON_POD];
	assert_int_equal(c->status, CHECK_PASS);
	assert_string_equal(c->message, "1 daemon pod wired (host /sys, /proc/sys, NVIDIA libraries, capabilities, devices, "
			    "the NRI device injector running): ml-team/llama-train-node-0-0-x2b9f");
	assert_true(e->p.ready);
	env_free(e);

	e = env_new("pods-no-injector.json");
	env_eval(e);
	c = &e->p.checks[CHECK_DAEMON_POD];
	assert_int_equal(c->status, CHECK_FAIL);
	assert_string_equal(c->message, "the NRI device injector does not run on this node (no pod in kube-system with label "
			    "k8s-app=device-injector on this node): the devices.gke.io/container.tcpxo-daemon annotation "
			    "is ignored and the daemon fails with \"CUDA initialization failed\"");
	assert_non_null(strstr(c->remedy, "run the NRI device injector DaemonSet (kube-system, k8s-app=device-injector)"));
	assert_false(e->p.ready);
	assert_non_null(strstr(e->p.summary, "tcpxo: not ready: daemon-pod: the NRI device injector does not run"));
	env_free(e);

	e = env_new("pods-injector-pending.json");
	env_eval(e);
	c = &e->p.checks[CHECK_DAEMON_POD];
	assert_int_equal(c->status, CHECK_FAIL);
	assert_non_null(strstr(c->message, "(kube-system/device-injector-8d2lq: phase Pending, container device-injector "
			       "waiting (ImagePullBackOff))"));
	env_free(e);

	e = env_new("pods-idle.json");
	env_eval(e);
	c = &e->p.checks[CHECK_DAEMON_POD];
	assert_int_equal(c->status, CHECK_SKIP);
	assert_string_equal(c->message, "no workload runs the daemon now");
	env_free(e);

	/* Bad daemon pods warn, naming each; the node stays ready. */
	e = env_new("pods-workloads.json");
	env_eval(e);
	c = &e->p.checks[CHECK_DAEMON_POD];
	assert_int_equal(c->status, CHECK_WARN);
	assert_non_null(strstr(c->message, "pod ml-team/llama-daemon-mounts-node-0-0-2402d container tcpxo-daemon: container "
			       "tcpxo-daemon: no volumeMount at /hostsysfs of hostPath /sys"));
	assert_non_null(strstr(c->message, "pod ml-team/llama-device-injection-node-0-0-10d38 container tcpxo-daemon: "
			       "annotation devices.gke.io/container.tcpxo-daemon lacks /dev/nvidia1"));
	assert_true(e->p.ready);
	env_free(e);

	/* Without the API: skipped. */
	e = env_new(NULL);
	e->k.configured = false;
	env_eval(e);
	assert_string_equal(e->p.checks[CHECK_DAEMON_POD].message, "no API access: daemon pods not read");
	env_free(e);
}

static char *human(const struct env *e)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	assert_int_equal(render_workloads_human(&e->w, e->o.node, f), 0);
	fclose(f);
	return out;
}

static void test_render(void **state)
{
	struct env *e = env_new("pods-workloads.json");
	const struct json *pods, *pod, *fs;
	struct json *v;
	char *t, *s;

	(void)state;
	env_eval(e);
	s = render_workloads_summary(&e->w, NODE);
	assert_string_equal(s, "workloads: 1 unattached, 10 partial, 3 attached, 1 not-fabric on " NODE);
	free(s);
	t = human(e);
	assert_int_equal(strncmp(t, "workloads: 1 unattached, 10 partial, 3 attached, 1 not-fabric on " NODE "\n", 83), 0);
	assert_non_null(strstr(t, "\n  POD                                            GPUS  VERDICT     FINDINGS\n"));
	assert_non_null(strstr(t, "\n  ml-team/pytorch-ddp-7f9c4                      8     unattached  daemon-sidecar, "
			       "interfaces, aperture, plugin-path (warn: nccl-env, ipc-lock)\n"));
	assert_non_null(strstr(t, "\n      interfaces        FAIL  the pod has no networking.gke.io/interfaces annotation"));
	assert_non_null(strstr(t, "\n                              remedy: annotate the pod with networking.gke.io/interfaces"));
	assert_non_null(strstr(t, "\n  research/jupyter-notebook-0                    1     not-fabric  -\n"));
	free(t);

	t = render_workloads_json(&e->w, NODE);
	assert_int_equal(json_parse(t, strlen(t), &v), 0);
	assert_string_equal(json_get_string(v, "schema"), "fabric.aicr.run/v1");
	assert_string_equal(json_get_string(v, "node"), NODE);
	assert_string_equal(json_get_string(v, "summary"), "workloads: 1 unattached, 10 partial, 3 attached, 1 not-fabric on " NODE);
	{
		double d;

		assert_true(json_number(json_get(json_get(v, "counts"), "partial"), &d));
		assert_true(d == 10);
		assert_true(json_number(json_get(json_get(v, "counts"), "not-fabric"), &d));
		assert_true(d == 1);
	}
	pods = json_get(v, "pods");
	assert_int_equal(json_size(pods), 15);
	pod = json_first(pods);
	assert_string_equal(json_get_string(pod, "namespace"), "default");
	assert_string_equal(json_get_string(pod, "name"), "nccl-test-host-1");
	assert_non_null(json_get_string(pod, "uid"));
	assert_string_equal(json_get_string(pod, "verdict"), "attached");
	/* Findings that did not pass, in id order; none for the not-fabric pod. */
	fs = json_get(pod, "findings");
	assert_string_equal(json_get_string(json_first(fs), "id"), "daemon-args");
	assert_string_equal(json_get_string(json_first(fs), "status"), "warn");
	for (pod = json_first(pods); pod; pod = json_next(pod))
		if (strcmp(json_get_string(pod, "verdict"), "not-fabric") == 0)
			assert_int_equal(json_size(json_get(pod, "findings")), 0);
	json_free(v);
	free(t);

	/* The --once report carries the same member. */
	t = render_json(&e->o, &e->p, &e->w);
	assert_int_equal(json_parse(t, strlen(t), &v), 0);
	assert_int_equal(json_size(json_get(json_get(v, "workloads"), "pods")), 15);
	assert_int_equal(json_size(json_get(v, "checks")), 13);
	json_free(v);
	free(t);
	env_free(e);

	/* Not judged: one line saying why; the JSON document has no counts. */
	e = env_new(NULL);
	env_eval(e);
	t = human(e);
	assert_string_equal(t, "workloads: not judged: no API access: the node's pods were not read\n");
	free(t);
	t = render_workloads_json(&e->w, NODE);
	assert_int_equal(json_parse(t, strlen(t), &v), 0);
	assert_null(json_get(v, "pods"));
	json_free(v);
	free(t);
	env_free(e);
}

static void test_pod_event(void **state)
{
	struct env *e = env_new("pods-workloads.json");
	struct pod_event ev;
	struct attach_result r;

	(void)state;
	env_eval(e);
	assert_true(pod_event_build(&pod_named(&e->w, "pytorch-ddp-")->result, PROFILE_TCPXO, &ev));
	assert_string_equal(ev.type, "Warning");
	assert_string_equal(ev.action, "Check");
	assert_string_equal(ev.reason, "TCPXOUnattached");
	assert_string_equal(ev.note, "requests 8 GPUs and carries no TCPXO wiring: NCCL will use TCP sockets over eth0. "
			    "Remedy: reference runtimeRef torch-distributed-tcpxo in the TrainJob (or wire the pod: "
			    "daemon-sidecar, interfaces, aperture, plugin-path fail; tcpxo-agent workloads shows each finding).");

	assert_true(pod_event_build(&pod_named(&e->w, "llama-daemon-mounts-")->result, PROFILE_TCPXO, &ev));
	assert_string_equal(ev.reason, "TCPXOPartiallyAttached");
	if (strncmp(ev.note, "TCPXO wiring incomplete (daemon-mounts fails): NCCL will fail at init or fall back to TCP. "
		    "daemon-mounts: container tcpxo-daemon: no volumeMount at /hostsysfs", 155) != 0)
		fail_msg("note: %s", ev.note);
	assert_non_null(strstr(ev.note, "Remedy: in container tcpxo-daemon mount hostPath /sys at /hostsysfs"));
	assert_non_null(strstr(ev.note, "reference runtimeRef torch-distributed-tcpxo."));
	assert_true(strlen(ev.note) <= POD_EVENT_NOTE_MAX);

	assert_false(pod_event_build(&pod_named(&e->w, "llama-train-")->result, PROFILE_TCPXO, &ev));
	assert_false(pod_event_build(&pod_named(&e->w, "jupyter-")->result, PROFILE_TCPXO, &ev));

	/* A hostile, huge message: the note stays within 1 KiB, cut on a UTF-8 boundary, no control bytes. */
	memset(&r, 0, sizeof(r));
	r.verdict = ATTACH_PARTIAL;
	r.findings[ATTACH_APERTURE].status = CHECK_FAIL;
	r.findings[ATTACH_APERTURE].message = malloc(4000);
	for (int i = 0; i < 3999; i += 3)
		memcpy(r.findings[ATTACH_APERTURE].message + i, i == 300 ? "\n\x1b\x07" : "\xc3\xa9x", 3);
	r.findings[ATTACH_APERTURE].message[3999] = '\0';
	assert_true(pod_event_build(&r, PROFILE_TCPX, &ev));
	assert_true(strlen(ev.note) <= POD_EVENT_NOTE_MAX);
	assert_string_equal(ev.note + strlen(ev.note) - 3, "...");
	assert_null(strchr(ev.note, '\n'));
	assert_null(strchr(ev.note, '\x1b'));
	assert_int_equal(strncmp(ev.note, "TCPX wiring incomplete (aperture fails)", 39), 0);
	attach_result_free(&r);
	env_free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture_pods),
		cmocka_unit_test(test_selection),
		cmocka_unit_test(test_node_facts_unknown),
		cmocka_unit_test(test_node_facts_dranet),
		cmocka_unit_test(test_daemon_pod_check),
		cmocka_unit_test(test_render),
		cmocka_unit_test(test_pod_event),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
