/* test_evaluate.c - profile_evaluate() on in-memory observations of each node shape. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "report/checks/evaluate.h"
#include "report/checks/profile.h"
#include "tests/unit/obsbuild.h"

static void evaluate(struct observation *o, struct profile *p)
{
	assert_int_equal(profile_evaluate(o, p), 0);
}

static void assert_status(const struct profile *p, enum check_id id, enum check_status st)
{
	if (p->checks[id].status != st)
		fail_msg("check %s: status %s, expected %s (%s)", check_id_name(id),
			 check_status_name(p->checks[id].status), check_status_name(st), p->checks[id].message);
}

static void test_healthy_mega(void **state)
{
	struct observation o;
	struct profile p;

	ob_a3mega(&o, true);
	evaluate(&o, &p);
	assert_int_equal(p.kind, PROFILE_TCPXO);
	assert_string_equal(profile_runtime_name(p.kind), "torch-distributed-tcpxo");
	assert_int_equal(p.n_gpus, 8);
	assert_int_equal(p.n_nics, 8);
	assert_int_equal(p.n_paired, 8);
	/* GPU i pairs with the i-th GPU NIC in BDF order: the daemon's rule on this shape. */
	assert_string_equal(p.gpus[0].bdf, "0000:04:00.0");
	assert_string_equal(p.nics[p.gpus[0].nic].bdf, "0000:06:00.0");
	assert_string_equal(p.nics[p.gpus[0].nic].name, "eth1");
	assert_string_equal(p.nics[p.gpus[1].nic].bdf, "0000:07:00.0");
	assert_string_equal(p.nics[p.gpus[7].nic].bdf, "0000:8e:00.0");
	assert_string_equal(p.nics[p.gpus[7].nic].name, "eth8");
	assert_string_equal(p.nics[0].ipv4, "10.0.16.3/32");
	assert_int_equal(p.nics[0].mtu, 8244);
	assert_int_equal(p.nics[0].state, NIC_STATE_UP);
	assert_status(&p, CHECK_GPUS, CHECK_PASS);
	assert_status(&p, CHECK_GPU_NICS, CHECK_PASS);
	assert_status(&p, CHECK_PAIRING, CHECK_PASS);
	assert_status(&p, CHECK_LINKS, CHECK_PASS);
	assert_true(p.ready);
	assert_non_null(strstr(p.summary, "tcpxo: ready (8/8 GPUs paired, 13 checks"));
	for (int i = 0; i < CHECK__COUNT; i++)   /* a check's id is its index: each one evaluated */
		assert_non_null(p.checks[i].message);
	profile_free(&p);
	observation_free(&o);
}

static void test_displaced_gvnic(void **state)
{
	struct observation o;
	struct profile p;

	ob_a3mega(&o, true);
	/* The GPU NIC network's NIC landed on a bus-0 slot, outside every switch. */
	ob_nic(&o, 0, 0x0d, "eth9");
	ob_link(&o, "eth9", 8244, "10.0.30.3");
	ob_finish(&o);
	evaluate(&o, &p);
	assert_int_equal(p.kind, PROFILE_TCPXO);
	assert_status(&p, CHECK_PAIRING, CHECK_FAIL);
	assert_non_null(strstr(p.checks[CHECK_PAIRING].message, "0000:00:0d.0 (eth9) sits outside every GPU PCIe switch"));
	assert_non_null(strstr(p.checks[CHECK_PAIRING].remedy, "without a gVNIC additional network"));
	assert_status(&p, CHECK_GPU_NICS, CHECK_FAIL);
	assert_string_equal(p.checks[CHECK_GPU_NICS].message, "found 9 GPU NICs (gVNIC 1ae0:0042 besides the primary NIC), "
			    "expected 8; outside every GPU PCIe switch: 0000:00:0d.0 (eth9)");
	assert_false(p.ready);
	assert_non_null(strstr(p.summary, "tcpxo: not ready: gpu-nics: "));
	profile_free(&p);
	observation_free(&o);
}

static const struct profile_nic *nic_named(const struct profile *p, const char *name)
{
	for (size_t i = 0; i < p->n_nics; i++)
		if (strcmp(p->nics[i].name, name) == 0)
			return &p->nics[i];
	return NULL;
}

static void test_nic_down(void **state)
{
	struct observation o;
	struct profile p;

	ob_a3mega(&o, true);
	ob_link_get(&o, "eth3")->oper = LINK_OPER_LOWERLAYERDOWN;
	evaluate(&o, &p);
	assert_int_equal(nic_named(&p, "eth3")->state, NIC_STATE_DOWN);
	assert_status(&p, CHECK_LINKS, CHECK_FAIL);
	assert_string_equal(p.checks[CHECK_LINKS].message, "eth3 is down (oper lowerlayerdown)");
	assert_status(&p, CHECK_PAIRING, CHECK_PASS);
	assert_false(p.ready);
	assert_string_equal(p.summary, "tcpxo: not ready: links: eth3 is down (oper lowerlayerdown)");
	profile_free(&p);
	observation_free(&o);
}

static void test_admin_down_and_mtu_and_noaddr(void **state)
{
	struct observation o;
	struct profile p;

	ob_a3mega(&o, true);
	ob_link_get(&o, "eth1")->admin_up = false;
	ob_link_get(&o, "eth1")->oper = LINK_OPER_DOWN;
	ob_link_get(&o, "eth2")->mtu = 1460;
	ob_link_get(&o, "eth4")->n_ipv4 = 0;
	evaluate(&o, &p);
	assert_status(&p, CHECK_LINKS, CHECK_FAIL);
	assert_string_equal(p.checks[CHECK_LINKS].message,
			    "eth1 is down (admin down); eth2 has MTU 1460, expected 8244; eth4 has no IPv4 address");
	profile_free(&p);
	observation_free(&o);
}

static void test_in_pod(void **state)
{
	struct observation o;
	struct profile p;
	struct obs_link *l;

	ob_a3mega(&o, true);
	/* eth5 and eth6 left the namespace: drop their links, keep the bound PCI functions. */
	for (size_t i = 0; i < o.links.n;) {
		l = &o.links.v[i];
		if (!strcmp(l->name, "eth5") || !strcmp(l->name, "eth6")) {
			memmove(l, l + 1, (o.links.n - i - 1) * sizeof(*l));
			o.links.n--;
		} else {
			i++;
		}
	}
	evaluate(&o, &p);
	assert_int_equal(profile_nic_by_bdf(&p, "0000:86:00.0")->state, NIC_STATE_IN_POD);
	assert_int_equal(profile_nic_by_bdf(&p, "0000:87:00.0")->state, NIC_STATE_IN_POD);
	/* Without the API the name of a NIC in a pod is unknown, never guessed. */
	assert_string_equal(profile_nic_by_bdf(&p, "0000:86:00.0")->name, "");
	assert_status(&p, CHECK_LINKS, CHECK_PASS);
	assert_string_equal(p.checks[CHECK_LINKS].message, "6 GPU NICs up with MTU 8244 and an IPv4 address, and 2 more "
			    "in use by a pod (moved into its network namespace: not seen from the host)");
	assert_true(p.ready);
	profile_free(&p);
	observation_free(&o);
}

/*
 * A NIC named by nic-info that flapped as it moved into a pod: in the pod, not held, so not judged
 * by the host's view of its link (which has no MTU: it is gone from this namespace).
 */
static void test_in_pod_flapped(void **state)
{
	struct obs_kube k = { 0 };      /* the API facts o lends */
	struct observation o;
	struct profile p;

	ob_a3mega(&o, true);
	o.kube = &k;
	for (size_t i = 0; i < o.links.n; i++)
		if (!strcmp(o.links.v[i].name, "eth5")) {
			memmove(&o.links.v[i], &o.links.v[i + 1], (o.links.n - i - 1) * sizeof(o.links.v[0]));
			o.links.n--;
			break;
		}
	k.node_fetch.state = KUBE_FETCH_OK;
	k.has_nic_info = true;
	k.nics = calloc(1, sizeof(*k.nics));
	assert_non_null(k.nics);
	k.n_nics = 1;
	snprintf(k.nics[0].name, sizeof(k.nics[0].name), "eth5");
	snprintf(k.nics[0].bdf, sizeof(k.nics[0].bdf), "0000:86:00.0");
	snprintf(k.nics[0].ipv4, sizeof(k.nics[0].ipv4), "10.0.20.3");
	o.flaps = (struct obs_flaps){ .n = 1, .threshold = 3, .window_s = 60, .hold_s = 30 };
	snprintf(o.flaps.v[0].name, sizeof(o.flaps.v[0].name), "eth5");
	o.flaps.v[0].changes = 2;
	evaluate(&o, &p);
	assert_int_equal(profile_nic_by_bdf(&p, "0000:86:00.0")->state, NIC_STATE_IN_POD);
	assert_string_equal(profile_nic_by_bdf(&p, "0000:86:00.0")->name, "eth5");
	assert_status(&p, CHECK_LINKS, CHECK_PASS);
	assert_string_equal(p.checks[CHECK_LINKS].message, "7 GPU NICs up with MTU 8244 and an IPv4 address, and 1 more "
			    "in use by a pod (moved into its network namespace: not seen from the host)");
	profile_free(&p);
	observation_free(&o);
	obs_kube_free(&k);
}

/* Every GPU NIC in a pod: said as such, never "0 GPU NICs up". */
static void test_all_in_pod(void **state)
{
	struct observation o;
	struct profile p;

	ob_a3mega(&o, true);
	for (size_t i = 0; i < o.links.n;) {
		if (strncmp(o.links.v[i].name, "eth", 3) == 0 && strcmp(o.links.v[i].name, "eth0") != 0) {
			memmove(&o.links.v[i], &o.links.v[i + 1], (o.links.n - i - 1) * sizeof(o.links.v[0]));
			o.links.n--;
		} else {
			i++;
		}
	}
	evaluate(&o, &p);
	assert_status(&p, CHECK_LINKS, CHECK_PASS);
	assert_string_equal(p.checks[CHECK_LINKS].message, "the 8 GPU NICs are all in use by a pod (moved into its "
			    "network namespace: not seen from the host)");
	profile_free(&p);
	observation_free(&o);
}

static void test_unbound_nic(void **state)
{
	struct observation o;
	struct profile p;

	ob_a3mega(&o, true);
	for (size_t i = 0; i < o.pci.n; i++)
		if (!strcmp(o.pci.v[i].bdf, "0000:0d:00.0"))
			o.pci.v[i].driver[0] = 0;
	evaluate(&o, &p);
	assert_int_equal(profile_nic_by_bdf(&p, "0000:0d:00.0")->state, NIC_STATE_MISSING);
	assert_status(&p, CHECK_GPU_NICS, CHECK_FAIL);
	assert_non_null(strstr(p.checks[CHECK_GPU_NICS].message, "not bound to a driver: 0000:0d:00.0 (eth3)"));
	assert_status(&p, CHECK_LINKS, CHECK_PASS);
	assert_false(p.ready);
	profile_free(&p);
	observation_free(&o);
}

static void test_a3high(void **state)
{
	struct observation o;
	struct profile p;

	ob_a3high(&o);
	evaluate(&o, &p);
	assert_int_equal(p.kind, PROFILE_TCPX);
	assert_string_equal(profile_runtime_name(p.kind), "torch-distributed-tcpx");
	assert_int_equal(p.n_nics, 4);
	assert_int_equal(p.n_paired, 8);
	assert_int_equal(p.nics[0].n_gpus, 2);
	assert_string_equal(p.nics[p.gpus[1].nic].name, "eth1");
	assert_string_equal(p.nics[p.gpus[2].nic].name, "eth2");
	assert_status(&p, CHECK_PAIRING, CHECK_PASS);
	assert_non_null(strstr(p.checks[CHECK_PAIRING].message, "2:1"));
	assert_true(p.ready);
	assert_non_null(strstr(p.summary, "tcpxo: ready (profile tcpx, 8/8 GPUs paired"));
	profile_free(&p);
	observation_free(&o);
}

static void test_mega_without_llcm_is_none(void **state)
{
	struct observation o;
	struct profile p;

	ob_a3mega(&o, false);
	evaluate(&o, &p);
	assert_int_equal(p.kind, PROFILE_NONE);
	assert_status(&p, CHECK_GPU_NICS, CHECK_FAIL);
	assert_false(p.ready);
	profile_free(&p);
	observation_free(&o);
}

static void test_cpu_node(void **state)
{
	struct observation o;
	struct profile p;

	memset(&o, 0, sizeof(o));
	o.kube = &ob_unread;
	ob_nic(&o, 0, 0x04, "eth0");
	ob_link(&o, "eth0", 1460, "10.128.0.9");
	ob_pci_add(&o, 0, 0x03, 0x1af4, 0x1000, PCI_KIND_OTHER);
	ob_finish(&o);
	evaluate(&o, &p);
	assert_int_equal(p.kind, PROFILE_NONE);
	assert_null(profile_runtime_name(p.kind));
	assert_int_equal(p.n_nics, 0);
	assert_status(&p, CHECK_GPUS, CHECK_FAIL);
	assert_status(&p, CHECK_GPU_NICS, CHECK_SKIP);
	assert_status(&p, CHECK_PAIRING, CHECK_SKIP);
	assert_status(&p, CHECK_LINKS, CHECK_SKIP);
	assert_string_equal(p.summary, "tcpxo: not ready: gpus: no NVIDIA H100 GPU (10de:2330) on the PCI bus");
	profile_free(&p);
	observation_free(&o);
}

static void test_pci_probe_failed(void **state)
{
	struct observation o;
	struct profile p;

	memset(&o, 0, sizeof(o));
	o.kube = &ob_unread;
	probe_status_fail(&o.pci.status, -ENOENT, "/nonexistent/sys/bus/pci: No such file or directory");
	o.links.status.state = PROBE_OK;
	evaluate(&o, &p);
	assert_int_equal(p.kind, PROFILE_NONE);
	assert_status(&p, CHECK_GPUS, CHECK_FAIL);
	assert_non_null(strstr(p.checks[CHECK_GPUS].message, "could not read the PCI bus: /nonexistent"));
	/* Not observed is unknown, not "not ready": --once exits 2. */
	assert_string_equal(p.summary, "tcpxo: unknown: gpus: could not read the PCI bus: "
			    "/nonexistent/sys/bus/pci: No such file or directory");
	profile_free(&p);
	observation_free(&o);
}

static void test_links_probe_failed(void **state)
{
	struct observation o;
	struct profile p;

	ob_a3mega(&o, true);
	free(o.links.v);
	o.links.v = NULL;
	o.links.n = 0;
	probe_status_fail(&o.links.status, -EACCES, "netlink: Permission denied");
	evaluate(&o, &p);
	assert_int_equal(p.nics[0].state, NIC_STATE_UNKNOWN);
	assert_status(&p, CHECK_LINKS, CHECK_FAIL);
	assert_non_null(strstr(p.summary, "tcpxo: unknown: links: "));
	profile_free(&p);
	observation_free(&o);
}

static void test_gpu_missing(void **state)
{
	struct observation o;
	struct profile p;

	ob_a3mega(&o, true);
	for (size_t i = 0; i < o.pci.n; i++)
		if (!strcmp(o.pci.v[i].bdf, "0000:85:00.0")) {
			memmove(&o.pci.v[i], &o.pci.v[i + 1], (o.pci.n - i - 1) * sizeof(o.pci.v[0]));
			o.pci.n--;
			break;
		}
	evaluate(&o, &p);
	assert_int_equal(p.kind, PROFILE_TCPXO);
	assert_status(&p, CHECK_GPUS, CHECK_FAIL);
	assert_string_equal(p.checks[CHECK_GPUS].message, "found 7 NVIDIA H100 GPUs (10de:2330), expected 8");
	assert_status(&p, CHECK_PAIRING, CHECK_FAIL);
	assert_non_null(strstr(p.checks[CHECK_PAIRING].message, "0000:87:00.0 (eth6) serves 0 GPUs, expected 1"));
	profile_free(&p);
	observation_free(&o);
}

/* A link the daemon holds for flapping: not ready up or down, named with its changes, same text either way. */
static void test_flapping_link_held(void **state)
{
	struct observation o;
	struct profile p;
	const char *want = "eth3 is flapping: 12 up/down changes; held not ready until stable for 30 s";

	ob_a3mega(&o, true);
	o.flaps = (struct obs_flaps){ .n = 1, .threshold = 3, .window_s = 60, .hold_s = 30 };
	snprintf(o.flaps.v[0].name, sizeof(o.flaps.v[0].name), "eth3");
	o.flaps.v[0].changes = 12;
	evaluate(&o, &p);
	assert_status(&p, CHECK_LINKS, CHECK_FAIL);
	assert_string_equal(p.checks[CHECK_LINKS].message, want);
	assert_non_null(strstr(p.checks[CHECK_LINKS].remedy, "down and up again"));
	assert_false(p.ready);
	profile_free(&p);

	/* sampled down this time: the same message, not "is down" */
	ob_link_get(&o, "eth3")->oper = LINK_OPER_DOWN;
	evaluate(&o, &p);
	assert_string_equal(p.checks[CHECK_LINKS].message, want);
	profile_free(&p);

	/* another NIC's own fault is still named beside it */
	ob_link_get(&o, "eth4")->mtu = 1460;
	evaluate(&o, &p);
	assert_string_equal(p.checks[CHECK_LINKS].message,
			    "eth3 is flapping: 12 up/down changes; held not ready until stable for 30 s; "
			    "eth4 has MTU 1460, expected 8244");
	profile_free(&p);

	/* released (no held link): the sample decides again */
	o.flaps.n = 0;
	evaluate(&o, &p);
	assert_string_equal(p.checks[CHECK_LINKS].message, "eth3 is down (oper down); eth4 has MTU 1460, expected 8244");
	profile_free(&p);
	observation_free(&o);
}

/* An A3 Mega node with a stray mlx5 function on bus 0: LLCM makes it TCPXO, and its gVNICs stay its GPU NICs. */
static void test_mega_with_mlx5_stays_tcpxo(void **state)
{
	struct observation o;
	struct profile p;

	(void)state;
	ob_a3mega(&o, true);
	ob_pci_add(&o, 0x00, 0x1e, 0x15b3, 0x101e, PCI_KIND_RDMA_NIC);
	ob_finish(&o);
	evaluate(&o, &p);
	assert_int_equal(p.kind, PROFILE_TCPXO);
	assert_int_equal(p.n_nics, 8);
	assert_true(p.ready);
	profile_free(&p);
	observation_free(&o);
}

/* The machine type decides when the API gives it: an a3-ultragpu-8g node whose RDMA NICs are gone is rdma, not ready. */
static void test_rdma_machine_type(void **state)
{
	struct obs_kube k = { 0 };      /* the API facts o lends */
	struct observation o;
	struct profile p;

	(void)state;
	ob_a3mega(&o, false);
	o.kube = &k;
	snprintf(k.instance_type, sizeof(k.instance_type), "a3-ultragpu-8g");
	evaluate(&o, &p);
	assert_int_equal(p.kind, PROFILE_RDMA);
	assert_string_equal(profile_runtime_name(p.kind), "torch-distributed-rdma");
	assert_int_equal(p.n_nics, 0);          /* gVNICs are host NICs on an RDMA node */
	assert_status(&p, CHECK_GPUS, CHECK_FAIL);      /* H100s, not H200s */
	assert_status(&p, CHECK_GPU_NICS, CHECK_FAIL);
	assert_false(p.ready);
	profile_free(&p);
	observation_free(&o);
}

/* Eight GPUs of an id an RDMA node never has (here L4, 10de:27b8) are not passed as H200/B200: the gpus row fails. */
static void test_rdma_unknown_gpu_model(void **state)
{
	struct obs_kube k = { 0 };      /* the API facts o lends */
	struct observation o;
	struct profile p;

	(void)state;
	ob_a3mega(&o, false);
	o.kube = &k;
	for (size_t i = 0; i < o.pci.n; i++)
		if (o.pci.v[i].kind == PCI_KIND_GPU)
			o.pci.v[i].device = 0x27b8;
	snprintf(k.instance_type, sizeof(k.instance_type), "a3-ultragpu-8g");
	evaluate(&o, &p);
	assert_int_equal(p.kind, PROFILE_RDMA);
	assert_int_equal(p.n_gpus, 8);
	assert_status(&p, CHECK_GPUS, CHECK_FAIL);
	assert_non_null(strstr(p.checks[CHECK_GPUS].message, "GPUs of another kind"));
	profile_free(&p);
	observation_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_healthy_mega),
		cmocka_unit_test(test_displaced_gvnic),
		cmocka_unit_test(test_nic_down),
		cmocka_unit_test(test_flapping_link_held),
		cmocka_unit_test(test_admin_down_and_mtu_and_noaddr),
		cmocka_unit_test(test_in_pod),
		cmocka_unit_test(test_in_pod_flapped),
		cmocka_unit_test(test_unbound_nic),
		cmocka_unit_test(test_a3high),
		cmocka_unit_test(test_mega_without_llcm_is_none),
		cmocka_unit_test(test_cpu_node),
		cmocka_unit_test(test_all_in_pod),
		cmocka_unit_test(test_pci_probe_failed),
		cmocka_unit_test(test_links_probe_failed),
		cmocka_unit_test(test_gpu_missing),
		cmocka_unit_test(test_mega_with_mlx5_stays_tcpxo),
		cmocka_unit_test(test_rdma_machine_type),
		cmocka_unit_test(test_rdma_unknown_gpu_model),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
