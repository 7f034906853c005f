/* test_attach.c - the workload checker (report/checks/attach_*.c): verdicts and every finding, on pods built in memory. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/checks/attach_judge.h"
#include "tests/unit/podbuild.h"

static struct attach_node node;

static int setup(void **state)
{
	(void)state;
	pb_node_tcpxo(&node);
	return 0;
}

static struct attach_result judge(const struct pod *p)
{
	struct attach_result r;

	assert_int_equal(attach_judge(p, &node, &r), 0);
	for (size_t i = 0; i < ATTACH__COUNT; i++)
		assert_non_null(r.findings[i].message);
	return r;
}

/* Assert finding @id has @st and its message contains @want (and a remedy when it fails or warns). */
static void expect(const struct attach_result *r, enum attach_finding_id id, enum check_status st, const char *want)
{
	const struct finding *f = &r->findings[id];

	if (f->status != st || !strstr(f->message, want))
		fail_msg("%s: %s \"%s\", want %s containing \"%s\"", attach_finding_name(id), check_status_name(f->status),
			 f->message, check_status_name(st), want);
	if (st >= CHECK_WARN) {
		assert_non_null(f->remedy);
		assert_non_null(strstr(f->remedy, "runtimeRef torch-distributed-tcpxo"));
	} else {
		assert_null(f->remedy);
	}
}

/* Every finding but those in @except (terminated by ATTACH__COUNT) passes. */
static void expect_others_pass(const struct attach_result *r, ...)
{
	bool skip[ATTACH__COUNT] = { false };
	va_list ap;
	int id;

	va_start(ap, r);
	while ((id = va_arg(ap, int)) != ATTACH__COUNT)
		skip[id] = true;
	va_end(ap);
	for (int i = 0; i < ATTACH__COUNT; i++)
		if (!skip[i] && r->findings[i].status != CHECK_PASS)
			fail_msg("%s: %s \"%s\", want pass", attach_finding_name(i), check_status_name(r->findings[i].status),
				 r->findings[i].message);
}

static void test_aicr_worker_attached(void **state)
{
	struct pod *p = pb_aicr_worker();
	struct attach_result r = judge(p);

	(void)state;
	assert_int_equal(r.verdict, ATTACH_ATTACHED);
	assert_true(r.wired);
	assert_int_equal(r.gpus, 8);
	expect_others_pass(&r, ATTACH__COUNT);
	expect(&r, ATTACH_DAEMON_SIDECAR, CHECK_PASS, "container tcpxo-daemon runs the daemon as a native sidecar, running");
	expect(&r, ATTACH_DAEMON_VERSION, CHECK_PASS, "daemon v1.0.21 pairs with the installed plugin v1.0.15");
	expect(&r, ATTACH_INTERFACES, CHECK_PASS, "eth0 -> default and eth1..eth8 on the node's Networks");
	attach_result_free(&r);
	attach_result_free(&r);
	attach_result_free(NULL);
	pb_free(p);
}

static void test_unattached_and_not_fabric(void **state)
{
	struct pod *p = pb_pod("ml-team", "pytorch-8", "Running");
	struct pod_container *c = pb_container(p, "pytorch", "nvcr.io/nvidia/pytorch:24.07-py3", false, false);
	struct attach_result r;

	(void)state;
	pb_gpus(c, 8);
	r = judge(p);
	assert_int_equal(r.verdict, ATTACH_UNATTACHED);
	assert_false(r.wired);
	expect(&r, ATTACH_ALL_GPUS, CHECK_PASS, "requests 8 of the node's 8 GPUs");
	expect(&r, ATTACH_DAEMON_SIDECAR, CHECK_FAIL, "no container runs the daemon image "
	       "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/tcpgpudmarxd-dev");
	assert_non_null(strstr(r.findings[ATTACH_DAEMON_SIDECAR].remedy, "tcpgpudmarxd-dev:v1.0.21"));
	expect(&r, ATTACH_DAEMON_MOUNTS, CHECK_SKIP, "no daemon container");
	expect(&r, ATTACH_INTERFACES, CHECK_FAIL, "the pod has no networking.gke.io/interfaces annotation");
	expect(&r, ATTACH_APERTURE, CHECK_FAIL, "container pytorch does not mount hostPath /dev/aperture_devices");
	expect(&r, ATTACH_PLUGIN_PATH, CHECK_FAIL, "container pytorch neither mounts hostPath /home/kubernetes/bin/nvidia");
	expect(&r, ATTACH_NCCL_ENV, CHECK_WARN, "20 of the release's 20 TCPXO variables are not in its env");
	expect(&r, ATTACH_IPC_LOCK, CHECK_WARN, "container pytorch has neither IPC_LOCK nor privileged");
	attach_result_free(&r);

	/* One GPU and no wiring: a notebook, listed but not judged. */
	pb_gpus(c, 1);
	r = judge(p);
	assert_int_equal(r.verdict, ATTACH_NOT_FABRIC);
	assert_int_equal(r.gpus, 1);
	for (int i = 0; i < ATTACH__COUNT; i++)
		expect(&r, (enum attach_finding_id)i, CHECK_SKIP, "not a fabric workload: 1 of the node's 8 GPUs");
	attach_result_free(&r);
	pb_free(p);

	/* A node without a fabric judges nothing. */
	p = pb_aicr_worker();
	node.kind = PROFILE_NONE;
	r = judge(p);
	assert_int_equal(r.verdict, ATTACH_NOT_FABRIC);
	expect(&r, ATTACH_INTERFACES, CHECK_SKIP, "the node has no TCPX/TCPXO fabric");
	attach_result_free(&r);
	pb_free(p);
}

static void test_selected(void **state)
{
	struct pod *p = pb_aicr_worker();

	(void)state;
	assert_true(attach_pod_selected(p));
	free(p->phase);
	p->phase = strdup("Succeeded");
	assert_false(attach_pod_selected(p));
	free(p->phase);
	p->phase = strdup("Pending");
	assert_true(attach_pod_selected(p));
	pb_gpus(pb_find(p, "node"), 0);
	assert_false(attach_pod_selected(p));
	pb_free(p);
}

static void test_all_gpus(void **state)
{
	struct pod *p = pb_aicr_worker();
	struct attach_result r;

	(void)state;
	pb_gpus(pb_find(p, "node"), 4);
	r = judge(p);
	assert_int_equal(r.verdict, ATTACH_PARTIAL);
	expect(&r, ATTACH_ALL_GPUS, CHECK_FAIL, "requests 4 of the node's 8 GPUs: TCPXO needs all GPUs and all 8 GPU NICs");
	expect_others_pass(&r, ATTACH_ALL_GPUS, ATTACH__COUNT);
	attach_result_free(&r);
	pb_free(p);
}

static void test_daemon_sidecar(void **state)
{
	struct pod *p = pb_aicr_worker();
	struct pod_container *d = pb_find(p, "tcpxo-daemon");
	struct attach_result r;

	(void)state;
	/* Crash-looping in a Running pod. */
	d->status.state = POD_CSTATE_WAITING;
	d->status.reason = strdup("CrashLoopBackOff");
	d->status.has_last = true;
	d->status.last_exit_code = 1;
	d->status.restarts = 4;
	r = judge(p);
	assert_int_equal(r.verdict, ATTACH_PARTIAL);
	expect(&r, ATTACH_DAEMON_SIDECAR, CHECK_FAIL, "the pod is Running but daemon container tcpxo-daemon is waiting "
	       "(CrashLoopBackOff), last exit code 1, 4 restarts");
	assert_non_null(strstr(r.findings[ATTACH_DAEMON_SIDECAR].remedy,
			       "kubectl logs -n ml-team llama-node-0-0-x2b9f -c tcpxo-daemon --previous"));
	attach_result_free(&r);

	/* An init container without restartPolicy: Always blocks the workload. */
	d->status.state = POD_CSTATE_RUNNING;
	d->sidecar = false;
	r = judge(p);
	expect(&r, ATTACH_DAEMON_SIDECAR, CHECK_FAIL, "init container tcpxo-daemon runs the daemon without restartPolicy: "
	       "Always");
	attach_result_free(&r);

	/* A regular container (Google's nccl-test pods) is fine. */
	d->init = false;
	r = judge(p);
	expect(&r, ATTACH_DAEMON_SIDECAR, CHECK_PASS, "runs the daemon as a regular container, running");
	attach_result_free(&r);

	/* The TCPX daemon on a TCPXO node. */
	free(d->image);
	d->image = strdup("us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpx/tcpgpudmarxd-dev:v2.0.12");
	r = judge(p);
	assert_int_equal(r.verdict, ATTACH_PARTIAL);
	expect(&r, ATTACH_DAEMON_SIDECAR, CHECK_FAIL, "container tcpxo-daemon runs us-docker.pkg.dev/gce-ai-infra/"
	       "gpudirect-tcpx/tcpgpudmarxd-dev:v2.0.12, the other fabric's daemon, on a tcpxo node");
	expect(&r, ATTACH_DAEMON_MOUNTS, CHECK_SKIP, "no daemon container");
	attach_result_free(&r);

	/* A mirror that flattened the path: used, with a warning. */
	free(d->image);
	d->image = strdup("mirror.example.com/tcpgpudmarxd-dev:v1.0.21");
	r = judge(p);
	assert_int_equal(r.verdict, ATTACH_ATTACHED);
	expect(&r, ATTACH_DAEMON_SIDECAR, CHECK_WARN, "not under gpudirect-tcpxo/, its fabric cannot be told");
	attach_result_free(&r);
	pb_free(p);
}

static void test_daemon_version(void **state)
{
	struct pod *p = pb_aicr_worker();
	struct pod_container *d = pb_find(p, "tcpxo-daemon");
	struct attach_result r;

	(void)state;
	free(d->image);
	d->image = strdup("us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/tcpgpudmarxd-dev:v1.0.20");
	r = judge(p);
	assert_int_equal(r.verdict, ATTACH_PARTIAL);
	expect(&r, ATTACH_DAEMON_VERSION, CHECK_FAIL, "container tcpxo-daemon runs daemon v1.0.20, which does not pair "
	       "with the installed plugin v1.0.15 (expects v1.0.21)");
	assert_non_null(strstr(r.findings[ATTACH_DAEMON_VERSION].remedy, "tcpgpudmarxd-dev:v1.0.21 in container tcpxo-daemon"));
	expect_others_pass(&r, ATTACH_DAEMON_VERSION, ATTACH__COUNT);
	attach_result_free(&r);

	/* The digest the release table knows names the release, whatever the tag says. */
	free(d->image);
	d->image = strdup("us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/tcpgpudmarxd-dev@sha256:"
			  "8d9e10fd589a34ab8a0aa64f7e70ad075c8f1c69bea176350f8d211367697e3d");
	r = judge(p);
	expect(&r, ATTACH_DAEMON_VERSION, CHECK_PASS, "daemon v1.0.21 pairs");
	attach_result_free(&r);

	free(d->image);
	d->image = strdup("us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/tcpgpudmarxd-dev@sha256:"
			  "1111111111111111111111111111111111111111111111111111111111111111");
	r = judge(p);
	expect(&r, ATTACH_DAEMON_VERSION, CHECK_WARN, "has no tag and a digest the release table does not know");
	attach_result_free(&r);

	/* The pair is unknown (no API, or an installer the table lacks): skipped, saying why. */
	node.expected_daemon[0] = '\0';
	strcpy(node.versions_why, "installer v9.9.9 is not in the release table: the daemon it pairs with is unknown");
	r = judge(p);
	expect(&r, ATTACH_DAEMON_VERSION, CHECK_SKIP, "installer v9.9.9 is not in the release table");
	attach_result_free(&r);
	pb_free(p);
}

static void test_daemon_args(void **state)
{
	struct pod *p = pb_aicr_worker();
	struct pod_container *d = pb_find(p, "tcpxo-daemon");
	struct attach_result r;

	(void)state;
	/* AICR's shipped runtime still passes --num_nics 8: a warning through cmdline.c's rules. */
	free(d->args[0]);
	d->args[0] = strdup("set -ex\n/fts/entrypoint_rxdm_container.sh --num_hops=2 --num_nics 8\n");
	r = judge(p);
	assert_int_equal(r.verdict, ATTACH_ATTACHED);
	expect(&r, ATTACH_DAEMON_ARGS, CHECK_WARN, "--num_nics: --num_nics was retired in daemon v1.0.20");
	attach_result_free(&r);

	free(d->args[0]);
	d->args[0] = strdup("sleep infinity");
	r = judge(p);
	assert_int_equal(r.verdict, ATTACH_PARTIAL);
	expect(&r, ATTACH_DAEMON_ARGS, CHECK_FAIL, "container tcpxo-daemon: command and args do not run "
	       "/fts/entrypoint_rxdm_container.sh");
	attach_result_free(&r);

	for (size_t i = 0; i < d->n_command; i++)
		free(d->command[i]);
	for (size_t i = 0; i < d->n_args; i++)
		free(d->args[i]);
	d->n_command = d->n_args = 0;
	r = judge(p);
	expect(&r, ATTACH_DAEMON_ARGS, CHECK_FAIL, "container tcpxo-daemon has no command or args");
	attach_result_free(&r);
	pb_free(p);
}

static void test_daemon_mounts(void **state)
{
	struct pod *p = pb_aicr_worker();
	struct pod_container *d = pb_find(p, "tcpxo-daemon");
	struct attach_result r;

	(void)state;
	pb_unmount(d, "/hostsysfs");
	r = judge(p);
	assert_int_equal(r.verdict, ATTACH_PARTIAL);
	expect(&r, ATTACH_DAEMON_MOUNTS, CHECK_FAIL, "container tcpxo-daemon: no volumeMount at /hostsysfs of hostPath "
	       "/sys (without it the daemon finds 0 GPUs and exits)");
	assert_non_null(strstr(r.findings[ATTACH_DAEMON_MOUNTS].remedy, "mount hostPath /sys at /hostsysfs"));
	expect_others_pass(&r, ATTACH_DAEMON_MOUNTS, ATTACH__COUNT);
	attach_result_free(&r);

	/* /hostsysfs from the wrong volume; no NVIDIA path; no capabilities. */
	pb_mount(d, "nvtcpxo-proc-sys", "/hostsysfs");
	pb_unmount(d, "/usr/local/nvidia");
	for (size_t i = 0; i < d->n_cap_add; i++)
		free(d->cap_add[i]);
	d->n_cap_add = 0;
	r = judge(p);
	expect(&r, ATTACH_DAEMON_MOUNTS, CHECK_FAIL, "volume nvtcpxo-proc-sys mounted at /hostsysfs is hostPath /proc/sys, "
	       "not hostPath /sys");
	expect(&r, ATTACH_DAEMON_MOUNTS, CHECK_FAIL, "does not mount the NVIDIA library path");
	expect(&r, ATTACH_DAEMON_MOUNTS, CHECK_FAIL, "is not privileged and lacks NET_ADMIN and NET_BIND_SERVICE");
	attach_result_free(&r);

	/* Privileged covers the capabilities, not the mounts. */
	d->privileged = true;
	r = judge(p);
	assert_null(strstr(r.findings[ATTACH_DAEMON_MOUNTS].message, "NET_ADMIN"));
	expect(&r, ATTACH_DEVICE_INJECTION, CHECK_PASS, "container tcpxo-daemon is privileged: it sees every device");
	attach_result_free(&r);
	pb_free(p);

	/* Either capability alone missing fails, and is named alone. */
	p = pb_aicr_worker();
	d = pb_find(p, "tcpxo-daemon");
	pb_uncap(d, "NET_BIND_SERVICE");
	r = judge(p);
	assert_int_equal(r.verdict, ATTACH_PARTIAL);
	expect(&r, ATTACH_DAEMON_MOUNTS, CHECK_FAIL, "container tcpxo-daemon is not privileged and lacks NET_BIND_SERVICE "
	       "in securityContext.capabilities.add");
	expect_others_pass(&r, ATTACH_DAEMON_MOUNTS, ATTACH__COUNT);
	attach_result_free(&r);
	pb_cap(d, "NET_BIND_SERVICE");
	pb_uncap(d, "NET_ADMIN");
	r = judge(p);
	expect(&r, ATTACH_DAEMON_MOUNTS, CHECK_FAIL, "container tcpxo-daemon is not privileged and lacks NET_ADMIN in "
	       "securityContext.capabilities.add");
	attach_result_free(&r);
	pb_free(p);

	/* LD_LIBRARY_PATH without the mounted lib64: a warning. */
	p = pb_aicr_worker();
	d = pb_find(p, "tcpxo-daemon");
	pb_unenv(d, "LD_LIBRARY_PATH");
	pb_env(d, "LD_LIBRARY_PATH", "/opt/lib");
	r = judge(p);
	assert_int_equal(r.verdict, ATTACH_ATTACHED);
	expect(&r, ATTACH_DAEMON_MOUNTS, CHECK_WARN, "LD_LIBRARY_PATH does not hold /usr/local/nvidia/lib64");
	attach_result_free(&r);
	pb_free(p);
}

static void test_device_injection(void **state)
{
	struct pod *p = pb_aicr_worker();
	struct attach_result r;
	const char *key = "devices.gke.io/container.tcpxo-daemon";

	(void)state;
	/* The pods-healthy fixture of before: two devices only. */
	pb_ann(p, key, "- path: /dev/nvidia0\n- path: /dev/nvidiactl\n");
	r = judge(p);
	assert_int_equal(r.verdict, ATTACH_PARTIAL);
	expect(&r, ATTACH_DEVICE_INJECTION, CHECK_FAIL, "annotation devices.gke.io/container.tcpxo-daemon lacks "
	       "/dev/nvidia1, /dev/nvidia2, /dev/nvidia3, /dev/nvidia4, /dev/nvidia5, /dev/nvidia6 and 3 more");
	expect_others_pass(&r, ATTACH_DEVICE_INJECTION, ATTACH__COUNT);
	attach_result_free(&r);

	/* Hostile values are findings: not YAML, not a list, a duplicate key. */
	pb_ann(p, key, "- path: [/dev/nvidia0\n");
	r = judge(p);
	expect(&r, ATTACH_DEVICE_INJECTION, CHECK_FAIL, "annotation devices.gke.io/container.tcpxo-daemon is not YAML: "
	       "line 2, column 1:");
	attach_result_free(&r);
	pb_ann(p, key, "path: /dev/nvidia0\n");
	r = judge(p);
	expect(&r, ATTACH_DEVICE_INJECTION, CHECK_FAIL, "is a YAML object, not a list of {path: /dev/...}");
	attach_result_free(&r);
	pb_ann(p, key, "- {path: /dev/nvidia0, path: /dev/nvidia1}\n");
	r = judge(p);
	expect(&r, ATTACH_DEVICE_INJECTION, CHECK_FAIL, "duplicate key \"path\"");
	attach_result_free(&r);
	pb_ann(p, key, "- /dev/nvidia0\n");
	r = judge(p);
	expect(&r, ATTACH_DEVICE_INJECTION, CHECK_FAIL, "entry 0 has no path (a YAML string)");
	attach_result_free(&r);

	pb_unann(p, key);
	r = judge(p);
	expect(&r, ATTACH_DEVICE_INJECTION, CHECK_FAIL, "container tcpxo-daemon is not privileged and the pod has no "
	       "devices.gke.io/container.tcpxo-daemon annotation");
	attach_result_free(&r);

	/* The injector: missing is a failure naming what was found; not observed is said, not failed. */
	pb_ann(p, key, PB_DEVICES_8);
	node.injector = ATTACH_INJECTOR_NOT_RUNNING;
	strcpy(node.injector_found, "kube-system/device-injector-4kq: phase Pending, container device-injector waiting "
	       "(ImagePullBackOff)");
	r = judge(p);
	assert_int_equal(r.verdict, ATTACH_PARTIAL);
	expect(&r, ATTACH_DEVICE_INJECTION, CHECK_FAIL, "the NRI device injector does not run on this node "
	       "(kube-system/device-injector-4kq: phase Pending, container device-injector waiting (ImagePullBackOff))");
	attach_result_free(&r);
	node.injector = ATTACH_INJECTOR_UNKNOWN;
	strcpy(node.injector_found, "the pod list was not read");
	r = judge(p);
	expect(&r, ATTACH_DEVICE_INJECTION, CHECK_SKIP, "the NRI device injector was not observed (the pod list was not read)");
	attach_result_free(&r);

	/* An unknown device list: the annotation is read but not compared. */
	node.n_devices = 0;
	r = judge(p);
	expect(&r, ATTACH_DEVICE_INJECTION, CHECK_SKIP, "the node's device list is unknown");
	attach_result_free(&r);
	pb_free(p);
}

static void test_interfaces(void **state)
{
	struct pod *p = pb_aicr_worker();
	struct attach_result r;
	const char *key = "networking.gke.io/interfaces";

	(void)state;
	/* Google's vpc1..vpc8 names on a node whose Networks are gpu-nic-N. */
	pb_ann(p, key, "[{\"interfaceName\":\"eth0\",\"network\":\"default\"},{\"interfaceName\":\"eth1\",\"network\":\"vpc1\"},"
	       "{\"interfaceName\":\"eth2\",\"network\":\"gpu-nic-1\"},{\"interfaceName\":\"eth3\",\"network\":\"gpu-nic-2\"},"
	       "{\"interfaceName\":\"eth4\",\"network\":\"gpu-nic-3\"},{\"interfaceName\":\"eth5\",\"network\":\"gpu-nic-4\"},"
	       "{\"interfaceName\":\"eth6\",\"network\":\"gpu-nic-5\"},{\"interfaceName\":\"eth7\",\"network\":\"gpu-nic-6\"},"
	       "{\"interfaceName\":\"eth9\",\"network\":\"gpu-nic-7\"}]");
	r = judge(p);
	assert_int_equal(r.verdict, ATTACH_PARTIAL);
	expect(&r, ATTACH_INTERFACES, CHECK_FAIL, "networking.gke.io/interfaces does not match the node's GPU NICs: "
	       "eth1 -> vpc1 (gpu-nic-0), eth9 -> gpu-nic-7 (not a GPU NIC of this node), eth8 not listed (gpu-nic-7)");
	expect_others_pass(&r, ATTACH_INTERFACES, ATTACH__COUNT);
	attach_result_free(&r);

	pb_ann(p, key, "[{\"interfaceName\":\"eth0\",\"network\":\"vpc0\"}]");
	r = judge(p);
	expect(&r, ATTACH_INTERFACES, CHECK_FAIL, "eth0 is bound to vpc0, not default");
	attach_result_free(&r);

	pb_ann(p, key, "[{\"interfaceName\":\"eth0\",\"network\":\"default\"},{\"interfaceName\":\"eth0\",\"network\":\"default\"}]");
	r = judge(p);
	expect(&r, ATTACH_INTERFACES, CHECK_FAIL, "lists eth0 twice (entries 0 and 1)");
	attach_result_free(&r);

	pb_ann(p, key, "[{\"interfaceName\":\"eth0\"");
	r = judge(p);
	expect(&r, ATTACH_INTERFACES, CHECK_FAIL, "annotation networking.gke.io/interfaces is not JSON");
	attach_result_free(&r);
	pb_ann(p, key, "{\"interfaceName\":\"eth0\"}");
	r = judge(p);
	expect(&r, ATTACH_INTERFACES, CHECK_FAIL, "is a JSON object, not a list");
	attach_result_free(&r);
	pb_ann(p, key, "[{\"interfaceName\":\"eth1\",\"network\":7}]");
	r = judge(p);
	expect(&r, ATTACH_INTERFACES, CHECK_FAIL, "entry 0 lacks a string network");
	attach_result_free(&r);

	/* The node's mapping unknown (no API): the shape is checked, the Networks are not compared. */
	pb_ann(p, key, PB_IFACES_8);
	node.ifaces_known = false;
	node.n_ifaces = 0;
	strcpy(node.ifaces_why, "no API access: the node's GPU NIC Networks are not known");
	r = judge(p);
	assert_int_equal(r.verdict, ATTACH_ATTACHED);
	expect(&r, ATTACH_INTERFACES, CHECK_SKIP, "8 GPU NICs bound; no API access: the node's GPU NIC Networks are not "
	       "known: the Networks are not compared");
	attach_result_free(&r);
	pb_ann(p, key, "[{\"interfaceName\":\"eth0\",\"network\":\"default\"},{\"interfaceName\":\"eth1\",\"network\":\"a\"}]");
	r = judge(p);
	expect(&r, ATTACH_INTERFACES, CHECK_FAIL, "binds 1 of the node's 8 GPU NICs");
	attach_result_free(&r);

	/* hostNetwork pods see the node's NICs themselves. */
	pb_unann(p, key);
	p->host_network = true;
	r = judge(p);
	expect(&r, ATTACH_INTERFACES, CHECK_PASS, "hostNetwork");
	attach_result_free(&r);
	pb_free(p);
}

/* Issue 22 point 9: on a GKE managed DRANET node the NICs reach pods through ResourceClaims. */
static void test_interfaces_dranet(void **state)
{
	struct pod *p = pb_aicr_worker();
	struct attach_result r;
	const char *key = "networking.gke.io/interfaces";

	(void)state;
	pb_unann(p, key);
	/* Without the label: unchanged, the annotation is missing. */
	r = judge(p);
	expect(&r, ATTACH_INTERFACES, CHECK_FAIL, "the pod has no networking.gke.io/interfaces annotation");
	attach_result_free(&r);
	/* With it: a skip that names DRANET, not a fail; the pod is not held partial for it. */
	node.dranet = true;
	node.ifaces_known = false;
	node.n_ifaces = 0;
	strcpy(node.ifaces_why, "GPU NICs allocated by DRANET");
	r = judge(p);
	expect(&r, ATTACH_INTERFACES, CHECK_SKIP, "GPU NICs allocated by DRANET (node label "
	       "cloud.google.com/gke-networking-dra-driver=true): they reach pods through ResourceClaims");
	expect_others_pass(&r, ATTACH_INTERFACES, ATTACH__COUNT);
	assert_int_equal(r.verdict, ATTACH_ATTACHED);
	attach_result_free(&r);
	/* An annotation there is not judged either. */
	pb_ann(p, key, "[{\"interfaceName\":\"eth0\",\"network\":\"vpc0\"}]");
	r = judge(p);
	expect(&r, ATTACH_INTERFACES, CHECK_SKIP, "allocated by DRANET");
	attach_result_free(&r);
	pb_free(p);
}

static void test_aperture(void **state)
{
	struct pod *p = pb_aicr_worker();
	struct pod_container *w = pb_find(p, "node");
	struct attach_result r;

	(void)state;
	pb_unenv(w, "NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY");
	r = judge(p);
	assert_int_equal(r.verdict, ATTACH_PARTIAL);
	expect(&r, ATTACH_APERTURE, CHECK_FAIL, "container node does not set NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY (the "
	       "aperture mount is at /dev/aperture_devices)");
	expect_others_pass(&r, ATTACH_APERTURE, ATTACH__COUNT);
	attach_result_free(&r);

	pb_env(w, "NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY", "/sys/bus/pci/devices");
	r = judge(p);
	expect(&r, ATTACH_APERTURE, CHECK_FAIL, "NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY is /sys/bus/pci/devices, but the "
	       "aperture devices are mounted at /dev/aperture_devices");
	attach_result_free(&r);

	/* One directory, not a list: the mount followed by another path fails, as does the reverse. */
	pb_unenv(w, "NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY");
	pb_env(w, "NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY", "/dev/aperture_devices:/x");
	r = judge(p);
	assert_int_equal(r.verdict, ATTACH_PARTIAL);
	expect(&r, ATTACH_APERTURE, CHECK_FAIL, "NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY is /dev/aperture_devices:/x, but the "
	       "aperture devices are mounted at /dev/aperture_devices");
	attach_result_free(&r);
	pb_unenv(w, "NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY");
	pb_env(w, "NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY", "/x:/dev/aperture_devices");
	r = judge(p);
	expect(&r, ATTACH_APERTURE, CHECK_FAIL, "NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY is /x:/dev/aperture_devices");
	attach_result_free(&r);

	w->privileged = true;
	r = judge(p);
	expect(&r, ATTACH_APERTURE, CHECK_PASS, "every GPU container reaches the LLCM devices");
	attach_result_free(&r);
	pb_free(p);
}

static void test_plugin_path(void **state)
{
	struct pod *p = pb_aicr_worker();
	struct pod_container *w = pb_find(p, "node");
	struct attach_result r;

	(void)state;
	pb_unenv(w, "LD_LIBRARY_PATH");
	pb_env(w, "LD_LIBRARY_PATH", "/usr/local/cuda/lib64");
	r = judge(p);
	assert_int_equal(r.verdict, ATTACH_PARTIAL);
	expect(&r, ATTACH_PLUGIN_PATH, CHECK_FAIL, "container node: LD_LIBRARY_PATH (/usr/local/cuda/lib64) does not hold "
	       "/usr/local/nvidia/lib64: NCCL loads no net plugin and uses its Socket transport");
	expect_others_pass(&r, ATTACH_PLUGIN_PATH, ATTACH__COUNT);
	attach_result_free(&r);

	/* Sourcing the profile puts NCCL_LIB_DIR on the path. */
	pb_cmd(w, "bash");
	pb_arg(w, "-c");
	pb_arg(w, "NCCL_LIB_DIR=/usr/local/nvidia/lib64 source /usr/local/nvidia/lib64/nccl-env-profile.sh && torchrun");
	r = judge(p);
	expect(&r, ATTACH_PLUGIN_PATH, CHECK_PASS, "every GPU container reaches the plugin");
	attach_result_free(&r);
	pb_free(p);

	/* The NVIDIA path mounted elsewhere: that mount's lib64 on LD_LIBRARY_PATH passes, another path fails naming it. */
	p = pb_aicr_worker();
	w = pb_find(p, "node");
	pb_unmount(w, "/usr/local/nvidia");
	pb_mount(w, "nvtcpxo-libraries", "/opt/nvidia/");
	pb_unenv(w, "LD_LIBRARY_PATH");
	pb_env(w, "LD_LIBRARY_PATH", "/usr/local/cuda/lib64:/opt/nvidia/lib64");
	r = judge(p);
	expect(&r, ATTACH_PLUGIN_PATH, CHECK_PASS, "every GPU container reaches the plugin");
	attach_result_free(&r);
	pb_unenv(w, "LD_LIBRARY_PATH");
	pb_env(w, "LD_LIBRARY_PATH", "/usr/local/cuda/lib64:/opt/nvidia");
	r = judge(p);
	expect(&r, ATTACH_PLUGIN_PATH, CHECK_FAIL, "container node: LD_LIBRARY_PATH (/usr/local/cuda/lib64:/opt/nvidia) "
	       "does not hold /opt/nvidia/lib64");
	attach_result_free(&r);
	pb_free(p);
}

static void test_nccl_env(void **state)
{
	struct pod *p = pb_aicr_worker();
	struct pod_container *w = pb_find(p, "node");
	struct attach_result r;

	(void)state;
	pb_env(w, "NCCL_GPUDIRECTTCPX_SOCKET_IFNAME", "eth1,eth2");
	r = judge(p);
	assert_int_equal(r.verdict, ATTACH_PARTIAL);
	expect(&r, ATTACH_NCCL_ENV, CHECK_FAIL, "container node sets NCCL_GPUDIRECTTCPX_SOCKET_IFNAME, a TCPX variable, "
	       "on a tcpxo node");
	expect_others_pass(&r, ATTACH_NCCL_ENV, ATTACH__COUNT);
	attach_result_free(&r);
	pb_unenv(w, "NCCL_GPUDIRECTTCPX_SOCKET_IFNAME");

	/* A tuner config the plugin does not install (a newer release's name) aborts NCCL. */
	pb_unenv(w, "NCCL_TUNER_CONFIG_PATH");
	pb_env(w, "NCCL_TUNER_CONFIG_PATH", "/usr/local/nvidia/lib64/a3plus_tuner_config_ll128.textproto");
	r = judge(p);
	expect(&r, ATTACH_NCCL_ENV, CHECK_FAIL, "NCCL_TUNER_CONFIG_PATH=/usr/local/nvidia/lib64/"
	       "a3plus_tuner_config_ll128.textproto names a file the plugin does not install (it installs "
	       "a3plus_tuner_config.textproto)");
	attach_result_free(&r);

	/* The right name, but the node's lib64 lacks it. */
	pb_unenv(w, "NCCL_TUNER_CONFIG_PATH");
	pb_env(w, "NCCL_TUNER_CONFIG_PATH", "/usr/local/nvidia/lib64/a3plus_tuner_config.textproto");
	strcpy(node.plugin_files[1], "libnccl-net.so");
	r = judge(p);
	expect(&r, ATTACH_NCCL_ENV, CHECK_FAIL, "but the node's lib64 has no a3plus_tuner_config.textproto");
	attach_result_free(&r);
	pb_node_tcpxo(&node);

	/* Outside the mounted lib64: not confirmed. */
	pb_unenv(w, "NCCL_SHIMNET_GUEST_CONFIG_CHECKER_CONFIG_FILE");
	pb_env(w, "NCCL_SHIMNET_GUEST_CONFIG_CHECKER_CONFIG_FILE", "/etc/a3plus_guest_config.textproto");
	r = judge(p);
	assert_int_equal(r.verdict, ATTACH_ATTACHED);
	expect(&r, ATTACH_NCCL_ENV, CHECK_WARN, "is outside the NVIDIA lib64 the plugin is installed in");
	attach_result_free(&r);

	/* Variables missing: a warning naming them, unless the profile is sourced. */
	pb_unenv(w, "NCCL_SHIMNET_GUEST_CONFIG_CHECKER_CONFIG_FILE");
	pb_unenv(w, "NCCL_NVLSTREE_MAX_CHUNKSIZE");
	pb_unenv(w, "NCCL_DEBUG");
	r = judge(p);
	expect(&r, ATTACH_NCCL_ENV, CHECK_WARN, "container node: 2 of the release's 20 TCPXO variables are not in its env "
	       "(NCCL_NVLSTREE_MAX_CHUNKSIZE, NCCL_SHIMNET_GUEST_CONFIG_CHECKER_CONFIG_FILE) and its command does not "
	       "source nccl-env-profile.sh");
	attach_result_free(&r);
	pb_arg(w, "source /usr/local/nvidia/lib64/nccl-env-profile.sh; python train.py");
	r = judge(p);
	expect(&r, ATTACH_NCCL_ENV, CHECK_PASS, "every GPU container has the TCPXO variable set");
	attach_result_free(&r);
	pb_free(p);
}

static void test_ipc_lock(void **state)
{
	struct pod *p = pb_aicr_worker();
	struct pod_container *w = pb_find(p, "node");
	struct attach_result r;

	(void)state;
	free(w->cap_add[0]);
	w->n_cap_add = 0;
	r = judge(p);
	assert_int_equal(r.verdict, ATTACH_ATTACHED);
	expect(&r, ATTACH_IPC_LOCK, CHECK_WARN, "container node has neither IPC_LOCK nor privileged");
	attach_result_free(&r);
	pb_cap(w, "CAP_IPC_LOCK");
	r = judge(p);
	expect(&r, ATTACH_IPC_LOCK, CHECK_PASS, "every GPU container may lock memory");
	attach_result_free(&r);
	pb_free(p);
}

/* Google's gpudirect-tcpx/nccl-test-unprivileged-without-hostnetwork.yaml pod on an A3 High node. */
static void test_tcpx(void **state)
{
	struct pod *p = pb_pod("default", "nccl-test-host-1", "Running");
	struct pod_container *d, *w;
	struct attach_result r;
	char ifaces[512];

	(void)state;
	memset(&node, 0, sizeof(node));
	node.kind = PROFILE_TCPX;
	node.gpus = 8;
	node.gpu_nics = 4;
	node.ifaces_known = true;
	for (int i = 0; i < 4; i++) {
		snprintf(node.ifaces[i].name, sizeof(node.ifaces[i].name), "eth%d", i + 1);
		snprintf(node.ifaces[i].network, sizeof(node.ifaces[i].network), "vpc%d", i + 1);
	}
	node.n_ifaces = 4;
	strcpy(node.installer, "v3.1.9");
	strcpy(node.expected_daemon, "v2.0.12");
	for (int i = 0; i < 8; i++)
		snprintf(node.devices[node.n_devices++], ATTACH_DEVNAME_MAX, "/dev/nvidia%d", i);
	strcpy(node.devices[node.n_devices++], "/dev/nvidiactl");
	strcpy(node.devices[node.n_devices++], "/dev/nvidia-uvm");
	node.injector = ATTACH_INJECTOR_RUNNING;

	snprintf(ifaces, sizeof(ifaces), "[{\"interfaceName\":\"eth0\",\"network\":\"default\"},"
		 "{\"interfaceName\":\"eth1\",\"network\":\"vpc1\"},{\"interfaceName\":\"eth2\",\"network\":\"vpc2\"},"
		 "{\"interfaceName\":\"eth3\",\"network\":\"vpc3\"},{\"interfaceName\":\"eth4\",\"network\":\"vpc4\"}]");
	pb_ann(p, "networking.gke.io/interfaces", ifaces);
	pb_ann(p, "devices.gke.io/container.tcpx-daemon", "- path: /dev/nvidia0\n- path: /dev/nvidia1\n- path: /dev/nvidia2\n"
	       "- path: /dev/nvidia3\n- path: /dev/nvidia4\n- path: /dev/nvidia5\n- path: /dev/nvidia6\n"
	       "- path: /dev/nvidia7\n- path: /dev/nvidiactl\n- path: /dev/nvidia-uvm\n");
	pb_host_volume(p, "libraries", "/home/kubernetes/bin/nvidia/lib64");
	pb_host_volume(p, "tcpx-socket", "/run/tcpx");
	pb_host_volume(p, "sys", "/sys");
	pb_host_volume(p, "proc-sys", "/proc/sys");
	d = pb_container(p, "tcpx-daemon", "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpx/tcpgpudmarxd-dev:v2.0.12", false,
			 false);
	pb_cmd(d, "/tcpgpudmarxd/build/app/tcpgpudmarxd");
	pb_cmd(d, "--gpu_nic_preset");
	pb_cmd(d, "a3vm");
	pb_cmd(d, "--gpu_shmem_type");
	pb_cmd(d, "fd");
	pb_cmd(d, "--uds_path");
	pb_cmd(d, "/run/tcpx");
	pb_cap(d, "NET_ADMIN");
	pb_mount(d, "libraries", "/usr/local/nvidia/lib64");
	pb_mount(d, "tcpx-socket", "/run/tcpx");
	pb_mount(d, "sys", "/hostsysfs");
	pb_mount(d, "proc-sys", "/hostprocsysfs");
	pb_env(d, "LD_LIBRARY_PATH", "/usr/local/nvidia/lib64");
	w = pb_container(p, "nccl-test", "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpx/nccl-plugin-gpudirecttcpx-dev:v3.1.9",
			 false, false);
	pb_gpus(w, 8);
	pb_cap(w, "IPC_LOCK");
	pb_env(w, "LD_LIBRARY_PATH", "/usr/local/nvidia/lib64");
	pb_env(w, "NCCL_GPUDIRECTTCPX_SOCKET_IFNAME", "eth1,eth2,eth3,eth4");
	pb_mount(w, "tcpx-socket", "/tmp");
	pb_mount(w, "libraries", "/usr/local/nvidia/lib64");

	r = judge(p);
	assert_int_equal(r.verdict, ATTACH_ATTACHED);
	for (int i = 0; i < ATTACH__COUNT; i++)
		if (i != ATTACH_APERTURE && r.findings[i].status != CHECK_PASS)
			fail_msg("%s: %s %s", attach_finding_name(i), check_status_name(r.findings[i].status),
				 r.findings[i].message);
	assert_int_equal(r.findings[ATTACH_APERTURE].status, CHECK_SKIP);
	assert_non_null(strstr(r.findings[ATTACH_INTERFACES].message, "eth1..eth4"));
	attach_result_free(&r);

	/* The socket directory must be shared; the TCPXO family fails here. */
	pb_unmount(w, "/tmp");
	pb_env(w, "NCCL_FASTRAK_IFNAME", "eth1");
	r = judge(p);
	assert_int_equal(r.verdict, ATTACH_PARTIAL);
	assert_int_equal(r.findings[ATTACH_DAEMON_MOUNTS].status, CHECK_FAIL);
	assert_non_null(strstr(r.findings[ATTACH_DAEMON_MOUNTS].message,
			       "GPU container nccl-test does not mount hostPath /run/tcpx"));
	assert_non_null(strstr(r.findings[ATTACH_DAEMON_MOUNTS].remedy, "runtimeRef torch-distributed-tcpx"));
	assert_non_null(strstr(r.findings[ATTACH_NCCL_ENV].message, "sets NCCL_FASTRAK_IFNAME, a TCPXO variable, on a tcpx node"));
	attach_result_free(&r);

	/* The TCPXO daemon command on a TCPX daemon. */
	free(d->command[0]);
	d->command[0] = strdup("/fts/entrypoint_rxdm_container.sh");
	r = judge(p);
	assert_int_equal(r.findings[ATTACH_DAEMON_ARGS].status, CHECK_FAIL);
	assert_non_null(strstr(r.findings[ATTACH_DAEMON_ARGS].message, "do not run /tcpgpudmarxd/build/app/tcpgpudmarxd"));
	attach_result_free(&r);
	pb_free(p);
	pb_node_tcpxo(&node);
}

static void test_hostile_names(void **state)
{
	struct pod *p = pb_aicr_worker();
	struct pod_container *w = pb_find(p, "node");
	struct attach_result r;

	(void)state;
	free(w->name);
	w->name = strdup("evil\n\x1b[31mname");
	pb_unenv(w, "NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY");
	r = judge(p);
	assert_non_null(strstr(r.findings[ATTACH_APERTURE].message, "container \"evil\\n\\x1b[31mname\""));
	for (int i = 0; i < ATTACH__COUNT; i++)
		assert_null(strchr(r.findings[i].message, '\n'));
	attach_result_free(&r);
	pb_free(p);
}

/* Annotations far beyond any sane value are findings, read no further. */
static void test_hostile_sizes(void **state)
{
	struct pod *p = pb_aicr_worker();
	struct attach_result r;
	struct strbuf sb = { 0 };

	(void)state;
	for (int i = 0; i < 2000; i++)
		strbuf_appendf(&sb, "- path: /dev/nvidia%d\n", i);
	pb_ann(p, "devices.gke.io/container.tcpxo-daemon", sb.s);
	r = judge(p);
	expect(&r, ATTACH_DEVICE_INJECTION, CHECK_FAIL, "annotation devices.gke.io/container.tcpxo-daemon is ");
	expect(&r, ATTACH_DEVICE_INJECTION, CHECK_FAIL, "bytes, more than 16384: not a device list");
	attach_result_free(&r);
	strbuf_free(&sb);

	strbuf_append(&sb, "[");
	for (int i = 0; i < 65; i++)
		strbuf_appendf(&sb, "%s{\"interfaceName\":\"eth%d\",\"network\":\"n%d\"}", i ? "," : "", i, i);
	strbuf_append(&sb, "]");
	pb_ann(p, "networking.gke.io/interfaces", sb.s);
	r = judge(p);
	expect(&r, ATTACH_INTERFACES, CHECK_FAIL, "annotation networking.gke.io/interfaces lists 65 interfaces, more than 64");
	attach_result_free(&r);
	strbuf_free(&sb);

	for (int i = 0; i < 1200; i++)
		strbuf_append(&sb, "[{\"interfaceName\":\"eth1\"}]");
	pb_ann(p, "networking.gke.io/interfaces", sb.s);
	r = judge(p);
	expect(&r, ATTACH_INTERFACES, CHECK_FAIL, "bytes, more than 16384");
	attach_result_free(&r);
	strbuf_free(&sb);
	pb_free(p);
}

/*
 * Google's gpudirect-tcpxo/nccl-test.yaml (container-engine-accelerators 992db812): hostNetwork, a
 * privileged daemon without /hostsysfs or /hostprocsysfs. Its start script falls back to the host's
 * /sys and /proc/sys (plugin scripts/kernel_tuning.sh), so the mounts are not needed there; off the
 * host network, or unprivileged, they still are.
 */
static void test_daemon_mounts_privileged_host_network(void **state)
{
	struct pod *p = pb_aicr_worker();
	struct pod_container *d = pb_find(p, "tcpxo-daemon");
	struct attach_result r;

	(void)state;
	pb_unmount(d, "/hostsysfs");
	pb_unmount(d, "/hostprocsysfs");
	d->privileged = true;
	p->host_network = true;
	r = judge(p);
	assert_int_equal(r.verdict, ATTACH_ATTACHED);
	expect(&r, ATTACH_DAEMON_MOUNTS, CHECK_PASS, "container tcpxo-daemon is privileged on the host network: without "
	       "/hostsysfs and /hostprocsysfs its start script uses the host's /sys and /proc/sys");
	attach_result_free(&r);

	/* Privileged in the pod's own network namespace: /sys is not the host's. */
	p->host_network = false;
	r = judge(p);
	assert_int_equal(r.verdict, ATTACH_PARTIAL);
	expect(&r, ATTACH_DAEMON_MOUNTS, CHECK_FAIL, "no volumeMount at /hostsysfs of hostPath /sys (without it the "
	       "daemon finds 0 GPUs and exits)");
	expect(&r, ATTACH_DAEMON_MOUNTS, CHECK_FAIL, "no volumeMount at /hostprocsysfs");
	attach_result_free(&r);

	/* On the host network but unprivileged: /sys and /proc/sys are read-only to it. */
	p->host_network = true;
	d->privileged = false;
	r = judge(p);
	expect(&r, ATTACH_DAEMON_MOUNTS, CHECK_FAIL, "no volumeMount at /hostsysfs of hostPath /sys");
	attach_result_free(&r);
	pb_free(p);
}

/*
 * Google's gpudirect-tcpxo/nccl-test-latest-autopilot.yaml: the aperture mount, no
 * NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY. The plugin then falls back to /sys/bus/pci/devices, which it
 * opens only with LLCM on (nic_client_router.cc; NCCL_FASTRAK_USE_LLCM defaults to 0).
 */
static void test_aperture_unset_directory(void **state)
{
	struct pod *p = pb_aicr_worker();
	struct pod_container *w = pb_find(p, "node");
	struct attach_result r;

	(void)state;
	pb_unenv(w, "NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY");
	pb_unenv(w, "NCCL_FASTRAK_USE_LLCM");
	r = judge(p);
	assert_int_equal(r.verdict, ATTACH_ATTACHED);
	expect(&r, ATTACH_APERTURE, CHECK_WARN, "container node does not set NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY (the "
	       "aperture mount is at /dev/aperture_devices): the plugin falls back to /sys/bus/pci/devices, read-only "
	       "in an unprivileged pod; that holds only while LLCM stays off");
	attach_result_free(&r);

	/* LLCM turned on: by env, or by the sourced env profile. */
	pb_env(w, "NCCL_FASTRAK_USE_LLCM", "1");
	r = judge(p);
	assert_int_equal(r.verdict, ATTACH_PARTIAL);
	expect(&r, ATTACH_APERTURE, CHECK_FAIL, "and turns LLCM on: the plugin opens the devices under "
	       "/sys/bus/pci/devices instead");
	attach_result_free(&r);
	pb_unenv(w, "NCCL_FASTRAK_USE_LLCM");
	pb_env(w, "NCCL_FASTRAK_USE_LLCM", "0");
	r = judge(p);
	expect(&r, ATTACH_APERTURE, CHECK_WARN, "falls back to /sys/bus/pci/devices");
	attach_result_free(&r);
	pb_unenv(w, "NCCL_FASTRAK_USE_LLCM");
	pb_arg(w, "source /usr/local/nvidia/lib64/nccl-env-profile.sh && torchrun train.py");
	r = judge(p);
	expect(&r, ATTACH_APERTURE, CHECK_FAIL, "and turns LLCM on");
	attach_result_free(&r);
	pb_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_aicr_worker_attached, setup),
		cmocka_unit_test_setup(test_unattached_and_not_fabric, setup),
		cmocka_unit_test_setup(test_selected, setup),
		cmocka_unit_test_setup(test_all_gpus, setup),
		cmocka_unit_test_setup(test_daemon_sidecar, setup),
		cmocka_unit_test_setup(test_daemon_version, setup),
		cmocka_unit_test_setup(test_daemon_args, setup),
		cmocka_unit_test_setup(test_daemon_mounts, setup),
		cmocka_unit_test_setup(test_device_injection, setup),
		cmocka_unit_test_setup(test_interfaces, setup),
		cmocka_unit_test_setup(test_interfaces_dranet, setup),
		cmocka_unit_test_setup(test_aperture, setup),
		cmocka_unit_test_setup(test_plugin_path, setup),
		cmocka_unit_test_setup(test_nccl_env, setup),
		cmocka_unit_test_setup(test_ipc_lock, setup),
		cmocka_unit_test_setup(test_tcpx, setup),
		cmocka_unit_test_setup(test_hostile_names, setup),
		cmocka_unit_test_setup(test_hostile_sizes, setup),
		cmocka_unit_test_setup(test_daemon_mounts_privileged_host_network, setup),
		cmocka_unit_test_setup(test_aperture_unset_directory, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
