/* test_check_kube.c - machine-type, networks and version-pair checks, and the API enrichment. */
#include <arpa/inet.h>
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

#include "probes/kube/kubeparse.h"
#include "report/checks/checks.h"
#include "report/checks/releases.h"

/*
 * Test-local stand-ins for report/checks/evaluate.c (the lead's), weak so the real ones win once
 * they are in libtcpxo.a.
 */
#define D15 "sha256:4c9f0de3f39455a2ea35e844e0fc92564ca5629f6b03250fde40e8160719dae4"
#define D21 "sha256:8d9e10fd589a34ab8a0aa64f7e70ad075c8f1c69bea176350f8d211367697e3d"

static const char *const nic_bdfs[8] = {
	"0000:06:00.0", "0000:07:00.0", "0000:0d:00.0", "0000:0e:00.0",
	"0000:86:00.0", "0000:87:00.0", "0000:8d:00.0", "0000:8e:00.0",
};
static const char *const gpu_bdfs[8] = {
	"0000:04:00.0", "0000:05:00.0", "0000:0b:00.0", "0000:0c:00.0",
	"0000:84:00.0", "0000:85:00.0", "0000:8b:00.0", "0000:8c:00.0",
};

struct env {
	struct obs_kube k;               /* the API facts e->o lends */
	struct observation o;
	struct profile p;
	struct finding c;
};

static char *fixture(const char *name, size_t *len)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "kube/%s", name);
	return fixture_read(rel, len);
}

static void load_node(struct env *e, const char *name)
{
	char err[512];
	size_t len;
	char *body = fixture(name, &len);

	if (kubeparse_node(body, len, NULL, &e->k, err, sizeof(err)) < 0)
		fail_msg("%s: %s", name, err);
	e->k.node_fetch.state = KUBE_FETCH_OK;
	free(body);
}

static void load_pods(struct env *e, const char *name)
{
	char err[512];
	size_t len;
	char *body = fixture(name, &len);

	if (kubeparse_pods(body, len, &e->k, err, sizeof(err)) < 0)
		fail_msg("%s: %s", name, err);
	e->k.pods_fetch.state = KUBE_FETCH_OK;
	free(body);
}

static void load_networks(struct env *e, const char *name)
{
	char err[512];
	size_t len;
	char *body = fixture(name, &len);

	if (kubeparse_networks(body, len, &e->k, err, sizeof(err)) < 0)
		fail_msg("%s: %s", name, err);
	e->k.networks_fetch.state = KUBE_FETCH_OK;
	free(body);
}

/*
 * An A3 Mega as evaluate.c would leave it: eth0 (primary) and eth1..eth8 in this namespace
 * unless @in_pod, GPU NIC rows by BDF, the healthy node and pod lists from the API.
 */
static struct env *env_new(bool in_pod)
{
	struct env *e = calloc(1, sizeof(*e));
	struct observation *o;
	struct profile *p;

	assert_non_null(e);
	o = &e->o;
	o->kube = &e->k;
	p = &e->p;
	o->pci.v = calloc(9, sizeof(*o->pci.v));
	o->links.v = calloc(9, sizeof(*o->links.v));
	p->gpus = calloc(8, sizeof(*p->gpus));
	p->nics = calloc(8, sizeof(*p->nics));
	assert_true(o->pci.v && o->links.v && p->gpus && p->nics);
	o->pci.status.state = PROBE_OK;
	o->links.status.state = PROBE_OK;

	strcpy(o->pci.v[0].bdf, "0000:00:0c.0");
	o->pci.v[0].kind = PCI_KIND_GVNIC;
	strcpy(o->pci.v[0].netdev, "eth0");
	strcpy(o->links.v[0].name, "eth0");
	inet_pton(AF_INET, "10.128.0.41", &o->links.v[0].ipv4[0]);
	o->links.v[0].n_ipv4 = 1;
	o->links.v[0].ipv4_prefix[0] = 32;
	o->pci.n = o->links.n = 1;
	for (int i = 0; i < 8; i++) {
		struct obs_pci_func *f = &o->pci.v[i + 1];
		struct profile_nic *nic = &p->nics[i];
		char ip[16];

		snprintf(ip, sizeof(ip), "10.0.%d.3", 16 + i);
		strcpy(f->bdf, nic_bdfs[i]);
		f->kind = PCI_KIND_GVNIC;
		strcpy(nic->bdf, nic_bdfs[i]);
		nic->sw = i / 2;
		nic->n_gpus = 1;
		nic->gpus[0] = i;
		strcpy(p->gpus[i].bdf, gpu_bdfs[i]);
		p->gpus[i].nic = i;
		if (in_pod) {
			nic->state = NIC_STATE_IN_POD;
			continue;
		}
		snprintf(f->netdev, sizeof(f->netdev), "eth%d", i + 1);
		snprintf(nic->name, sizeof(nic->name), "eth%d", i + 1);
		snprintf(nic->ipv4, sizeof(nic->ipv4), "%s/32", ip);
		nic->state = NIC_STATE_UP;
		nic->mtu = 8244;
		snprintf(o->links.v[o->links.n].name, OBS_IFNAME_MAX, "eth%d", i + 1);
		inet_pton(AF_INET, ip, &o->links.v[o->links.n].ipv4[0]);
		o->links.v[o->links.n].n_ipv4 = 1;
		o->links.v[o->links.n].ipv4_prefix[0] = 32;
		o->links.n++;
	}
	o->pci.n = 9;
	p->n_gpus = p->n_nics = p->n_paired = 8;
	p->kind = PROFILE_TCPXO;

	e->k.configured = true;
	load_node(e, "node-a3mega.json");
	load_pods(e, "pods-healthy.json");
	assert_int_equal(check_kube_enrich(o, p), 0);
	return e;
}

static void env_free(struct env *e)
{
	observation_free(&e->o);
	obs_kube_free(&e->k);
	free(e->p.gpus);
	free(e->p.nics);
	free(e->p.ifaces);
	free(e->p.marks);
	for (size_t i = 0; i < e->p.n_daemons; i++)
		free(e->p.daemons[i]);
	free(e->p.daemons);
	free(e->c.message);
	free(e->c.remedy);
	free(e);
}

#define assert_check(e, st, text) do { \
		if ((e)->c.status != (st) || !(e)->c.message || !strstr((e)->c.message, (text))) \
			fail_msg("status %d message '%s', expected %d with '%s'", (e)->c.status, \
				 (e)->c.message ? (e)->c.message : "(null)", (st), (text)); \
	} while (0)

/* ---- machine-type ---- */

static void test_machine_type_no_api(void **state)
{
	struct env *e = env_new(false);

	e->k.configured = false;
	assert_int_equal(evaluate_check(CHECK_MACHINE_TYPE, &e->o, &e->p, &e->c), 0);
	assert_int_equal(e->c.status, CHECK_SKIP);
	assert_string_equal(e->c.message, "no API access: machine type not read");

	e->k.configured = true;
	e->k.node_fetch.state = KUBE_FETCH_FAILED;
	strcpy(e->k.node_fetch.message, "HTTP 403 Forbidden");
	assert_int_equal(evaluate_check(CHECK_MACHINE_TYPE, &e->o, &e->p, &e->c), 0);
	assert_check(e, CHECK_SKIP, "node not read from the API (HTTP 403 Forbidden)");
	env_free(e);
}

static void test_machine_type_pass(void **state)
{
	struct env *e = env_new(false);

	assert_int_equal(evaluate_check(CHECK_MACHINE_TYPE, &e->o, &e->p, &e->c), 0);
	assert_int_equal(e->c.status, CHECK_PASS);
	assert_string_equal(e->c.message, "a3-megagpu-8g (nvidia-h100-mega-80gb) observes profile tcpxo");
	assert_null(e->c.remedy);
	env_free(e);
}

static void test_machine_type_accel_mismatch(void **state)
{
	struct env *e = env_new(false);

	load_node(e, "node-a3mega-accel-mismatch.json");
	assert_int_equal(evaluate_check(CHECK_MACHINE_TYPE, &e->o, &e->p, &e->c), 0);
	assert_check(e, CHECK_FAIL,
		     "accelerator label nvidia-h100-80gb does not match a3-megagpu-8g (expects nvidia-h100-mega-80gb)");
	assert_non_null(e->c.remedy);
	env_free(e);
}

static void test_machine_type_hardware_mismatch(void **state)
{
	struct env *e = env_new(false);

	e->p.kind = PROFILE_NONE;
	assert_int_equal(evaluate_check(CHECK_MACHINE_TYPE, &e->o, &e->p, &e->c), 0);
	assert_check(e, CHECK_FAIL, "a3-megagpu-8g must observe profile tcpxo, observed none");

	/* A3 High hardware shape under an A3 High label: fine. */
	strcpy(e->k.instance_type, "a3-highgpu-8g");
	strcpy(e->k.accelerator, "nvidia-h100-80gb");
	e->p.kind = PROFILE_TCPX;
	assert_int_equal(evaluate_check(CHECK_MACHINE_TYPE, &e->o, &e->p, &e->c), 0);
	assert_int_equal(e->c.status, CHECK_PASS);
	/* ...and A3 Mega hardware under an A3 Edge label is not. */
	strcpy(e->k.instance_type, "a3-edgegpu-8g");
	e->p.kind = PROFILE_TCPXO;
	assert_int_equal(evaluate_check(CHECK_MACHINE_TYPE, &e->o, &e->p, &e->c), 0);
	assert_check(e, CHECK_FAIL, "a3-edgegpu-8g must observe profile tcpx, observed tcpxo");
	env_free(e);
}

static void test_machine_type_other(void **state)
{
	struct env *e = env_new(false);

	strcpy(e->k.instance_type, "n2-standard-8");
	e->k.accelerator[0] = '\0';
	e->p.kind = PROFILE_NONE;
	assert_int_equal(evaluate_check(CHECK_MACHINE_TYPE, &e->o, &e->p, &e->c), 0);
	assert_check(e, CHECK_PASS, "n2-standard-8 is not a GPUDirect-TCPX(O) type; profile none agrees");

	e->p.kind = PROFILE_TCPXO;
	assert_int_equal(evaluate_check(CHECK_MACHINE_TYPE, &e->o, &e->p, &e->c), 0);
	assert_check(e, CHECK_WARN, "machine type n2-standard-8 is not one the agent knows, but the hardware looks like tcpxo");

	/* No labels at all: warn, and the accelerator is judged against the hardware. */
	e->k.instance_type[0] = '\0';
	strcpy(e->k.accelerator, "nvidia-h100-80gb");
	assert_int_equal(evaluate_check(CHECK_MACHINE_TYPE, &e->o, &e->p, &e->c), 0);
	assert_check(e, CHECK_FAIL, "accelerator label nvidia-h100-80gb does not match tcpxo (expects nvidia-h100-mega-80gb)");
	assert_non_null(strstr(e->c.message, "no node.kubernetes.io/instance-type label"));
	env_free(e);
}

/* ---- networks ---- */

static void test_networks_pass(void **state)
{
	struct env *e = env_new(false);

	assert_int_equal(evaluate_check(CHECK_NETWORKS, &e->o, &e->p, &e->c), 0);
	assert_check(e, CHECK_PASS, "eth1=gpu-nic-0,eth2=gpu-nic-1,eth3=gpu-nic-2,eth4=gpu-nic-3,"
		     "eth5=gpu-nic-4,eth6=gpu-nic-5,eth7=gpu-nic-6,eth8=gpu-nic-7");
	assert_int_equal(e->p.n_ifaces, 8);
	assert_string_equal(e->p.ifaces[0].name, "eth1");
	assert_string_equal(e->p.ifaces[7].network, "gpu-nic-7");
	/* The enrichment filled the network of every row. */
	assert_string_equal(e->p.nics[3].network, "gpu-nic-3");

	/* Network objects readable and healthy: still a pass. */
	load_networks(e, "networks.json");
	assert_int_equal(evaluate_check(CHECK_NETWORKS, &e->o, &e->p, &e->c), 0);
	assert_int_equal(e->c.status, CHECK_PASS);
	assert_int_equal(e->p.n_ifaces, 8);
	env_free(e);
}

static void test_networks_no_api(void **state)
{
	struct env *e = env_new(false);

	e->k.configured = false;
	assert_int_equal(evaluate_check(CHECK_NETWORKS, &e->o, &e->p, &e->c), 0);
	assert_check(e, CHECK_SKIP, "no API access: network mapping not read");
	assert_int_equal(e->p.n_ifaces, 0);
	env_free(e);
}

static void test_networks_non_gpu_nic(void **state)
{
	struct env *e = env_new(false);

	/* A fresh profile row set: enrichment runs on the new node facts. */
	for (int i = 0; i < 8; i++)
		e->p.nics[i].network[0] = '\0';
	load_node(e, "node-a3mega-non-gpu-nic-network.json");
	assert_int_equal(check_kube_enrich(&e->o, &e->p), 0);
	/* No Network objects: the name alone proves nothing; AICR's naming rule warns. */
	assert_int_equal(evaluate_check(CHECK_NETWORKS, &e->o, &e->p, &e->c), 0);
	assert_check(e, CHECK_WARN, "renderer naming rule: AICR's renderer requires 'gpu-nic' in each Network name: "
		     "'vpc-extra-subnet' does not contain it");
	assert_int_equal(e->p.n_ifaces, 8);
	/* With them: eth5's Network is no Device network of this cluster: the fabric fails. */
	load_networks(e, "networks.json");
	assert_int_equal(evaluate_check(CHECK_NETWORKS, &e->o, &e->p, &e->c), 0);
	assert_check(e, CHECK_FAIL, "Network vpc-extra-subnet does not exist");
	assert_int_equal(e->p.n_ifaces, 0);
	assert_null(e->p.ifaces);
	assert_non_null(e->c.remedy);
	env_free(e);
}

/* Google's guide, manifests and Cluster Toolkit name the Networks vpc1..vpc8 (gvnic-1..): ready. */
static void test_networks_google_names(void **state)
{
	struct env *e = env_new(false);


	for (int i = 0; i < 8; i++)
		e->p.nics[i].network[0] = '\0';
	load_node(e, "node-a3mega-vpc-networks.json");
	load_networks(e, "networks-vpc.json");
	assert_int_equal(check_kube_enrich(&e->o, &e->p), 0);
	assert_int_equal(evaluate_check(CHECK_NETWORKS, &e->o, &e->p, &e->c), 0);
	assert_int_equal(e->c.status, CHECK_WARN);
	assert_string_equal(e->c.message, "eth1=vpc1,eth2=vpc2,eth3=vpc3,eth4=vpc4,eth5=vpc5,eth6=vpc6,eth7=vpc7,"
			    "eth8=vpc8; renderer naming rule: AICR's renderer requires 'gpu-nic' in each Network name: "
			    "'vpc1', 'vpc2', 'vpc3', 'vpc4', 'vpc5', 'vpc6', 'vpc7', 'vpc8' do not contain it (the "
			    "fabric does not depend on the names)");
	assert_non_null(strstr(e->c.remedy, "--any-network-names"));
	/* The mapping is real: kept for publishing. */
	assert_int_equal(e->p.n_ifaces, 8);
	assert_string_equal(e->p.ifaces[7].network, "vpc8");

	/* Readiness depends on the fabric: a vpc Network that is not Device-typed, or not Ready, fails. */
	strcpy(e->k.networks[3].type, "L3");      /* sorted: default, vpc1, vpc2, vpc3 */
	e->k.networks[5].ready = false;            /* vpc5 */
	e->k.networks[6].type[0] = '\0';           /* vpc6 */
	assert_int_equal(evaluate_check(CHECK_NETWORKS, &e->o, &e->p, &e->c), 0);
	assert_check(e, CHECK_FAIL, "Network vpc3 is of type L3, not Device");
	assert_non_null(strstr(e->c.message, "Network vpc5 is not Ready"));
	assert_non_null(strstr(e->c.message, "Network vpc6 has no spec.type (L3 by default), not Device"));
	assert_null(strstr(e->c.message, "gpu-nic"));
	assert_int_equal(e->p.n_ifaces, 0);
	env_free(e);
}

static void test_networks_nic_info_disagrees(void **state)
{
	struct env *e = env_new(false);

	load_node(e, "node-a3mega-nicinfo-mismatch.json");
	assert_int_equal(evaluate_check(CHECK_NETWORKS, &e->o, &e->p, &e->c), 0);
	assert_check(e, CHECK_FAIL, "nic-info puts eth1 at 0000:07:00.0, the kernel has it at 0000:06:00.0");
	assert_non_null(strstr(e->c.message, "nic-info puts eth2 at 0000:06:00.0, the kernel has it at 0000:07:00.0"));
	assert_int_equal(e->p.n_ifaces, 0);
	env_free(e);
}

static void test_networks_ip_disagrees(void **state)
{
	struct env *e = env_new(false);

	inet_pton(AF_INET, "10.9.9.9", &e->o.links.v[3].ipv4[0]);       /* eth3 */
	assert_int_equal(evaluate_check(CHECK_NETWORKS, &e->o, &e->p, &e->c), 0);
	assert_check(e, CHECK_FAIL, "nic-info gives eth3 the address 10.0.18.3, the kernel shows 10.9.9.9/32");
	assert_int_equal(e->p.n_ifaces, 0);

	/* No address at all is the links check's business, not a disagreement. */
	e->o.links.v[3].n_ipv4 = 0;
	assert_int_equal(evaluate_check(CHECK_NETWORKS, &e->o, &e->p, &e->c), 0);
	assert_int_equal(e->c.status, CHECK_PASS);
	env_free(e);
}

static void test_networks_in_pod(void **state)
{
	struct env *e = env_new(true);

	/* Names, addresses and networks of NICs moved into a pod come from the API. */
	assert_string_equal(e->p.nics[0].name, "eth1");
	assert_string_equal(e->p.nics[0].ipv4, "10.0.16.3/32");
	assert_string_equal(e->p.nics[7].network, "gpu-nic-7");
	assert_int_equal(evaluate_check(CHECK_NETWORKS, &e->o, &e->p, &e->c), 0);
	assert_int_equal(e->c.status, CHECK_PASS);
	assert_int_equal(e->p.n_ifaces, 8);
	env_free(e);
}

static void test_enrich_keeps_kernel_values(void **state)
{
	struct env *e = env_new(false);

	strcpy(e->p.nics[0].name, "ens6");
	strcpy(e->p.nics[0].ipv4, "192.168.0.2/24");
	strcpy(e->p.nics[1].network, "set-by-someone");
	assert_int_equal(check_kube_enrich(&e->o, &e->p), 0);
	assert_string_equal(e->p.nics[0].name, "ens6");
	assert_string_equal(e->p.nics[0].ipv4, "192.168.0.2/24");
	assert_string_equal(e->p.nics[1].network, "set-by-someone");
	env_free(e);
}

static void test_networks_missing_facts(void **state)
{
	struct env *e = env_new(true);
	static const char body[] = "{\"metadata\":{\"name\":\"n\",\"annotations\":{\"networking.gke.io/nic-info\":\"[1]\"}}}";
	char err[256];

	/* A NIC in a pod with no nic-info: no name, no mapping. */
	for (int i = 0; i < 8; i++)
		e->p.nics[i].name[0] = e->p.nics[i].network[0] = '\0';
	assert_int_equal(kubeparse_node(body, strlen(body), NULL, &e->k, err, sizeof(err)), 0);
	assert_int_equal(check_kube_enrich(&e->o, &e->p), 0);
	assert_int_equal(evaluate_check(CHECK_NETWORKS, &e->o, &e->p, &e->c), 0);
	assert_check(e, CHECK_FAIL, "nic-info[0]: expected an object, got number");
	assert_non_null(strstr(e->c.message, "no networking.gke.io/north-interfaces annotation"));
	assert_non_null(strstr(e->c.message, "GPU NIC 0000:06:00.0 has no interface name"));
	assert_int_equal(e->p.n_ifaces, 0);
	env_free(e);
}

/*
 * nic-info without north-interfaces: the names are known, the mapping is not observed: it fails on
 * the missing annotation alone (the mapping is not judged on half the facts), nothing is published.
 */
static void test_networks_nic_info_without_north(void **state)
{
	struct env *e = env_new(false);

	e->k.has_north = false;
	snprintf(e->p.nics[0].network, sizeof(e->p.nics[0].network), "default");     /* a mapping the rules refuse */
	assert_int_equal(evaluate_check(CHECK_NETWORKS, &e->o, &e->p, &e->c), 0);
	assert_int_equal(e->c.status, CHECK_FAIL);
	assert_string_equal(e->c.message, "node has no networking.gke.io/north-interfaces annotation: the mapping cannot be observed");
	assert_int_equal(e->p.n_ifaces, 0);
	assert_string_equal(e->p.nics[1].name, "eth2");        /* nic-info's names still fill the rows */
	env_free(e);
}

/* Issue 22 point 9: GKE managed DRANET's node label: the NICs are allocated by DRA, nothing to map. */
static void test_networks_dranet(void **state)
{
	struct env *e = env_new(false);

	for (int i = 0; i < 8; i++)
		e->p.nics[i].network[0] = '\0';
	/* Without the label, the same node (no networking.gke.io NIC annotations) fails. */
	load_node(e, "node-a3mega-dranet.json");
	assert_true(e->k.dranet);
	e->k.dranet = false;
	assert_int_equal(check_kube_enrich(&e->o, &e->p), 0);
	assert_int_equal(evaluate_check(CHECK_NETWORKS, &e->o, &e->p, &e->c), 0);
	assert_int_equal(e->c.status, CHECK_FAIL);
	assert_non_null(strstr(e->c.message, "no networking.gke.io/nic-info annotation"));
	/* With it: a skip that names DRANET; no mapping published. */
	load_node(e, "node-a3mega-dranet.json");
	assert_int_equal(check_kube_enrich(&e->o, &e->p), 0);
	assert_int_equal(evaluate_check(CHECK_NETWORKS, &e->o, &e->p, &e->c), 0);
	assert_int_equal(e->c.status, CHECK_SKIP);
	assert_non_null(strstr(e->c.message, "GPU NICs allocated by DRANET (node label "
			       "cloud.google.com/gke-networking-dra-driver=true)"));
	assert_null(e->c.remedy);
	assert_int_equal(e->p.n_ifaces, 0);
	/* The healthy node does not carry it: unchanged. */
	load_node(e, "node-a3mega.json");
	assert_false(e->k.dranet);
	env_free(e);
}

static void test_networks_gpu_nic_not_on_bus(void **state)
{
	struct env *e = env_new(false);

	/* eth8's function vanished from the bus (and from the rows evaluate.c builds). */
	e->o.pci.n = 8;
	e->p.n_nics = 7;
	assert_int_equal(evaluate_check(CHECK_NETWORKS, &e->o, &e->p, &e->c), 0);
	assert_check(e, CHECK_FAIL, "nic-info lists eth8 (network gpu-nic-7) at 0000:8e:00.0, which is not on the PCI bus");
	assert_non_null(strstr(e->c.message, "eth8 is missing"));
	assert_int_equal(e->p.n_ifaces, 0);
	env_free(e);
}

static void test_networks_objects(void **state)
{
	struct env *e = env_new(false);

	load_networks(e, "networks-params-not-ready.json");
	assert_int_equal(evaluate_check(CHECK_NETWORKS, &e->o, &e->p, &e->c), 0);
	assert_check(e, CHECK_FAIL, "Network gpu-nic-3 is not ParamsReady");
	assert_int_equal(e->p.n_ifaces, 0);

	/* Missing object, no parametersRef. */
	load_networks(e, "networks.json");
	e->k.networks[2].has_params_ref = false;   /* sorted: default, gpu-nic-0, gpu-nic-1 */
	e->k.n_networks = 8;                       /* drop gpu-nic-7 */
	assert_int_equal(evaluate_check(CHECK_NETWORKS, &e->o, &e->p, &e->c), 0);
	assert_check(e, CHECK_FAIL, "Network gpu-nic-1 has no parametersRef (GKENetworkParamSet)");
	assert_non_null(strstr(e->c.message, "Network gpu-nic-7 does not exist"));

	/* Not readable (403): say so, do not fail. */
	e->k.networks_fetch.state = KUBE_FETCH_FORBIDDEN;
	strcpy(e->k.networks_fetch.message, "HTTP 403");
	assert_int_equal(evaluate_check(CHECK_NETWORKS, &e->o, &e->p, &e->c), 0);
	assert_check(e, CHECK_PASS, "eth8=gpu-nic-7; Network objects not readable (HTTP 403)");
	assert_int_equal(e->p.n_ifaces, 8);
	env_free(e);
}

static void test_networks_tcpx_and_none(void **state)
{
	struct env *e = env_new(false);

	e->p.kind = PROFILE_TCPX;
	assert_int_equal(evaluate_check(CHECK_NETWORKS, &e->o, &e->p, &e->c), 0);
	assert_int_equal(e->c.status, CHECK_SKIP);
	e->p.kind = PROFILE_NONE;
	e->p.n_nics = 0;
	assert_int_equal(evaluate_check(CHECK_NETWORKS, &e->o, &e->p, &e->c), 0);
	assert_check(e, CHECK_SKIP, "no GPU NICs observed");
	env_free(e);
}

/* ---- version-pair ---- */

static void test_version_pair_pass(void **state)
{
	struct env *e = env_new(false);

	assert_int_equal(evaluate_check(CHECK_VERSION_PAIR, &e->o, &e->p, &e->c), 0);
	assert_check(e, CHECK_PASS, "installer v1.0.15 and daemon v1.0.21 pair (1 running)");
	assert_string_equal(e->p.installer, "v1.0.15");
	assert_string_equal(e->p.expected_daemon, "v1.0.21");
	assert_int_equal(e->p.n_daemons, 1);
	assert_string_equal(e->p.daemons[0], "v1.0.21");
	/* Re-running replaces, never appends. */
	assert_int_equal(evaluate_check(CHECK_VERSION_PAIR, &e->o, &e->p, &e->c), 0);
	assert_int_equal(e->p.n_daemons, 1);
	env_free(e);
}

static void test_version_pair_skew(void **state)
{
	struct env *e = env_new(false);

	load_pods(e, "pods-skew.json");
	assert_int_equal(evaluate_check(CHECK_VERSION_PAIR, &e->o, &e->p, &e->c), 0);
	assert_int_equal(e->c.status, CHECK_FAIL);
	assert_string_equal(e->c.message, "daemon v1.0.20 does not pair with installer v1.0.15 (expects v1.0.21)");
	assert_non_null(e->c.remedy);
	assert_non_null(strstr(e->c.remedy, "ml-team/llama-train-node-0-0-x2b9f"));
	assert_non_null(strstr(e->c.remedy, "tcpgpudmarxd-dev:v1.0.21"));
	assert_int_equal(e->p.n_daemons, 1);
	assert_string_equal(e->p.daemons[0], "v1.0.20");
	assert_string_equal(e->p.expected_daemon, "v1.0.21");
	env_free(e);
}

/*
 * Issue 22: pods the API server accepts (a CPU pod with one env value of 70,000 characters, one
 * with 300 containers) and one it never would (env not a list) beside the skewed daemon: the
 * first two are read, the third is set aside and named, and the skew still fails the node.
 */
static void test_version_pair_skew_beside_large_pods(void **state)
{
	struct env *e = env_new(false);
	size_t len, cap, o;
	char *skew = fixture("pods-skew.json", &len), *body, *items, err[512];

	items = strstr(skew, "\"items\": [");
	assert_non_null(items);
	items += strlen("\"items\": [");
	cap = len + 70000 + 300 * 64 + 1024;
	body = malloc(cap);
	assert_non_null(body);
	o = (size_t)snprintf(body, cap, "%.*s{\"metadata\":{\"namespace\":\"batch\",\"name\":\"etl\"},\"spec\":"
			     "{\"nodeName\":\"n\",\"containers\":[{\"name\":\"c\",\"image\":\"busybox\",\"env\":"
			     "[{\"name\":\"BLOB\",\"value\":\"", (int)(items - skew), skew);
	memset(body + o, 'x', 70000);
	o += 70000;
	o += (size_t)snprintf(body + o, cap - o, "\"}]}]},\"status\":{\"phase\":\"Running\"}},"
			      "{\"metadata\":{\"namespace\":\"batch\",\"name\":\"wide\"},\"spec\":{\"containers\":[");
	for (int i = 0; i < 300; i++)
		o += (size_t)snprintf(body + o, cap - o, "%s{\"name\":\"c%d\",\"image\":\"busybox\"}", i ? "," : "", i);
	o += (size_t)snprintf(body + o, cap - o, "]},\"status\":{\"phase\":\"Running\"}},"
			      "{\"metadata\":{\"namespace\":\"batch\",\"name\":\"odd\"},\"spec\":{\"containers\":"
			      "[{\"name\":\"c\",\"image\":\"busybox\",\"env\":{}}]}},%s", items);
	free(skew);

	obs_kube_free_pods(&e->k);
	assert_int_equal(kubeparse_pods(body, o + strlen(body + o), &e->k, err, sizeof(err)), 0);
	free(body);
	assert_null(obs_kube_aside_ours(&e->k));
	e->k.pods_fetch.state = KUBE_FETCH_OK;
	assert_int_equal(e->k.n_aside, 1);
	assert_string_equal(e->k.aside[0].name, "odd");
	/* The long value is not held: set, value unknown. */
	for (size_t i = 0; i < e->k.n_pods; i++) {
		const struct pod *p = &e->k.pods[i];
		bool set = false;

		if (strcmp(p->name, "etl") == 0) {
			assert_null(obs_pod_env(&p->containers[0], "BLOB", &set));
			assert_true(set);
		} else if (strcmp(p->name, "wide") == 0) {
			assert_int_equal(p->n_containers, 300);
		}
	}
	assert_int_equal(evaluate_check(CHECK_VERSION_PAIR, &e->o, &e->p, &e->c), 0);
	assert_int_equal(e->c.status, CHECK_FAIL);
	assert_non_null(strstr(e->c.message, "daemon v1.0.20 does not pair with installer v1.0.15 (expects v1.0.21)"));
	assert_non_null(strstr(e->c.message, "pod batch/odd could not be read"));
	assert_non_null(strstr(e->c.message, "runs neither the installer nor the daemon"));
	env_free(e);
}

/* @fixture's pods with one more appended (@pod: one JSON object), parsed into @e. */
static void load_pods_plus(struct env *e, const char *fixture_name, const char *pod)
{
	size_t len, cap;
	char *base = fixture(fixture_name, &len), *items = strstr(base, "\"items\": ["), *body, err[512];

	assert_non_null(items);
	items += strlen("\"items\": [");
	cap = len + strlen(pod) + 8;
	body = malloc(cap);
	assert_non_null(body);
	snprintf(body, cap, "%.*s%s,%s", (int)(items - base), base, pod, items);
	free(base);
	obs_kube_free_pods(&e->k);
	if (kubeparse_pods(body, strlen(body), &e->k, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	e->k.pods_fetch.state = KUBE_FETCH_OK;
	free(body);
}

#define ODD_DAEMON_POD(phase) "{\"metadata\":{\"namespace\":\"tenant-a\",\"name\":\"evil\"},\"spec\":{\"nodeName\":\"n\"," \
	"\"containers\":[{\"name\":\"d\",\"image\":\"us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/tcpgpudmarxd-dev:v1.0.21\"," \
	"\"env\":{}}]},\"status\":{\"phase\":\"" phase "\"}}"

/*
 * Issue 30: a pod that cannot be read and may run the daemon makes version-pair unknown (a skip
 * naming it, what was read after it), never the node's publication; a failure read elsewhere
 * stands; a pod that has ended is only the warning.
 */
static void test_version_pair_unknown_pod(void **state)
{
	struct env *e = env_new(false);

	load_pods_plus(e, "pods-healthy.json", ODD_DAEMON_POD("Running"));
	assert_int_equal(evaluate_check(CHECK_VERSION_PAIR, &e->o, &e->p, &e->c), 0);
	assert_check(e, CHECK_SKIP, "unknown: pod tenant-a/evil could not be read (items[0].spec.containers[0].env: "
		     "expected an array, got object), and it may run the installer or the daemon: its version is unknown; "
		     "installer v1.0.15 and daemon v1.0.21 pair (1 running)");
	assert_non_null(e->c.remedy);
	assert_int_equal(e->p.n_daemons, 1);

	load_pods_plus(e, "pods-skew.json", ODD_DAEMON_POD("Pending"));
	assert_int_equal(evaluate_check(CHECK_VERSION_PAIR, &e->o, &e->p, &e->c), 0);
	assert_int_equal(e->c.status, CHECK_FAIL);
	assert_string_equal(e->c.message, "daemon v1.0.20 does not pair with installer v1.0.15 (expects v1.0.21)");

	load_pods_plus(e, "pods-healthy.json", ODD_DAEMON_POD("Failed"));
	assert_int_equal(evaluate_check(CHECK_VERSION_PAIR, &e->o, &e->p, &e->c), 0);
	assert_check(e, CHECK_WARN, "pod tenant-a/evil could not be read (items[0].spec.containers[0].env: expected an "
		     "array, got object): set aside, it runs neither the installer nor the daemon");

	/* No daemon running: the skip says unknown first. */
	load_pods_plus(e, "pods-idle.json", ODD_DAEMON_POD("Running"));
	assert_int_equal(evaluate_check(CHECK_VERSION_PAIR, &e->o, &e->p, &e->c), 0);
	assert_int_equal(e->c.status, CHECK_SKIP);
	assert_non_null(strstr(e->c.message, "unknown: pod tenant-a/evil could not be read"));
	assert_non_null(strstr(e->c.message, "; no daemon running: workloads must run daemon v1.0.21"));
	env_free(e);
}

static void set_state(struct env *e, const char *name, enum pod_cstate st, const char *reason, unsigned restarts,
		      int last);

static void test_version_pair_idle(void **state)
{
	struct env *e = env_new(false);

	load_pods(e, "pods-idle.json");
	assert_int_equal(evaluate_check(CHECK_VERSION_PAIR, &e->o, &e->p, &e->c), 0);
	assert_int_equal(e->c.status, CHECK_SKIP);
	assert_string_equal(e->c.message, "no daemon running: workloads must run daemon v1.0.21 with installer v1.0.15");
	assert_int_equal(e->p.n_daemons, 0);
	assert_string_equal(e->p.installer, "v1.0.15");

	/* A daemon container still starting counts as none, and says so. */
	load_pods(e, "pods-healthy.json");
	set_state(e, "tcpxo-daemon", POD_CSTATE_WAITING, "ContainerCreating", 0, -1);
	assert_int_equal(evaluate_check(CHECK_VERSION_PAIR, &e->o, &e->p, &e->c), 0);
	assert_check(e, CHECK_SKIP, "no daemon running: workloads must run daemon v1.0.21 with installer v1.0.15 "
		     "(a daemon container is starting)");
	env_free(e);
}

static void test_version_pair_digest_only(void **state)
{
	struct env *e = env_new(false);

	load_pods(e, "pods-digest-only.json");
	assert_int_equal(evaluate_check(CHECK_VERSION_PAIR, &e->o, &e->p, &e->c), 0);
	assert_check(e, CHECK_PASS, "installer v1.0.15 and daemon v1.0.21 pair");
	assert_string_equal(e->p.daemons[0], "v1.0.21");

	/* With a release table that does not know the digests, both are unknown. */
	{
		static const char text[] = "{\"schema\":\"fabric.aicr.run/releases/v1\",\"releases\":"
					   "[{\"installer\":\"v1.0.15\",\"daemon\":\"v1.0.21\"}]}";
		struct releases *t;
		char err[256];

		assert_int_equal(releases_parse(text, strlen(text), &t, err, sizeof(err)), 0);
		e->k.releases = t;
		assert_int_equal(evaluate_check(CHECK_VERSION_PAIR, &e->o, &e->p, &e->c), 0);
		assert_check(e, CHECK_WARN, "installer version unknown: its image digest is not in the release table (file)");
		assert_non_null(strstr(e->c.message, "1 running daemon of unknown version"));
		assert_int_equal(e->p.n_daemons, 0);
		assert_string_equal(e->p.installer, "");
		e->k.releases = NULL;
		releases_free(t);
	}
	env_free(e);
}

static void test_version_pair_running_digest_wins(void **state)
{
	struct env *e = env_new(false);

	/* The tag says v1.0.20, but what runs is v1.0.21's known digest. */
	load_pods(e, "pods-skew.json");
	strcpy(e->k.containers[1].image_id_digest, D21);
	assert_int_equal(evaluate_check(CHECK_VERSION_PAIR, &e->o, &e->p, &e->c), 0);
	assert_int_equal(e->c.status, CHECK_PASS);
	assert_string_equal(e->p.daemons[0], "v1.0.21");
	env_free(e);
}

static void test_version_pair_installer_problems(void **state)
{
	struct env *e = env_new(false);

	/* Not in the table. */
	strcpy(e->k.containers[0].tag, "v1.0.99");
	e->k.containers[0].image_id_digest[0] = '\0';
	assert_int_equal(evaluate_check(CHECK_VERSION_PAIR, &e->o, &e->p, &e->c), 0);
	assert_check(e, CHECK_WARN, "installer v1.0.99 is not in the release table (built-in)");
	assert_string_equal(e->p.installer, "v1.0.99");
	assert_string_equal(e->p.expected_daemon, "");
	assert_string_equal(e->p.daemons[0], "v1.0.21");

	/* No installer pod at all. */
	load_pods(e, "pods-healthy.json");
	e->k.containers[0].role = KUBE_IMAGE_DAEMON;       /* pretend it is something else */
	assert_int_equal(evaluate_check(CHECK_VERSION_PAIR, &e->o, &e->p, &e->c), 0);
	assert_check(e, CHECK_WARN, "installer version unknown: no nccl-tcpxo-installer pod on this node");
	env_free(e);
}

/* The pod and container of the fixture: its status is what the checks read. */
static struct pod_container *find_container(struct env *e, const char *name, struct pod **ret_pod)
{
	for (size_t i = 0; i < e->k.n_pods; i++)
		for (size_t j = 0; j < e->k.pods[i].n_containers; j++)
			if (strcmp(e->k.pods[i].containers[j].name, name) == 0) {
				if (ret_pod)
					*ret_pod = &e->k.pods[i];
				return &e->k.pods[i].containers[j];
			}
	fail_msg("no container %s", name);
	return NULL;
}

/* Set container @name's state; @last: lastState.terminated exit code, -1 for none. */
static void set_state(struct env *e, const char *name, enum pod_cstate st, const char *reason, unsigned restarts,
		      int last)
{
	struct pod_container *pc = find_container(e, name, NULL);

	pc->status.state = st;
	free(pc->status.reason);
	pc->status.reason = reason ? strdup(reason) : NULL;
	pc->status.restarts = restarts;
	pc->status.has_last = last >= 0;
	pc->status.last_exit_code = last;
	pc->status.exit_code = st == POD_CSTATE_TERMINATED ? last : 0;
}

/* Google's nccl-test pods run the plugin image as the workload container: never "the installer". */
static void test_version_pair_nccl_test_pod(void **state)
{
	struct env *e = env_new(false);
	struct pod *pod;

	load_pods(e, "pods-nccl-test.json");
	/* The workload really runs the plugin image, at another tag than the installer. */
	find_container(e, "nccl-test", &pod);
	assert_string_equal(pod->ns, "default");
	assert_int_equal(evaluate_check(CHECK_VERSION_PAIR, &e->o, &e->p, &e->c), 0);
	assert_int_equal(e->c.status, CHECK_PASS);
	assert_string_equal(e->c.message, "installer v1.0.15 and daemon v1.0.21 pair (1 running)");
	assert_string_equal(e->p.installer, "v1.0.15");
	assert_string_equal(e->p.expected_daemon, "v1.0.21");

	/* Only the DaemonSet's init container counts: not owned by a DaemonSet, it is no installer. */
	find_container(e, "nccl-tcpxo-installer", &pod);
	free(pod->owners[0].kind);
	pod->owners[0].kind = strdup("ReplicaSet");
	assert_int_equal(evaluate_check(CHECK_VERSION_PAIR, &e->o, &e->p, &e->c), 0);
	assert_check(e, CHECK_WARN, "installer version unknown: no nccl-tcpxo-installer pod on this node");
	assert_string_equal(e->p.installer, "");
	free(pod->owners[0].kind);
	pod->owners[0].kind = strdup("DaemonSet");
	/* ...nor in another namespace, or under another label. */
	free(pod->ns);
	pod->ns = strdup("ml-team");
	assert_int_equal(evaluate_check(CHECK_VERSION_PAIR, &e->o, &e->p, &e->c), 0);
	assert_int_equal(e->c.status, CHECK_WARN);
	env_free(e);
}

/* A daemon that does not run is a failure naming pod, reason, exit code and restarts (not "idle"). */
static void test_version_pair_daemon_not_running(void **state)
{
	struct env *e = env_new(false);
	struct pod *pod;

	load_pods(e, "pods-daemon-crashloop.json");
	assert_int_equal(evaluate_check(CHECK_VERSION_PAIR, &e->o, &e->p, &e->c), 0);
	assert_int_equal(e->c.status, CHECK_FAIL);
	assert_string_equal(e->c.message, "daemon ml-team/llama-train-node-0-0-x2b9f container tcpxo-daemon does not "
			    "run: waiting: CrashLoopBackOff, last exit code 1 (Error), 7 restarts");
	assert_non_null(strstr(e->c.remedy, "kubectl -n ml-team logs llama-train-node-0-0-x2b9f -c tcpxo-daemon "
			       "--previous"));
	assert_int_equal(e->p.n_daemons, 0);
	assert_string_equal(e->p.expected_daemon, "v1.0.21");

	load_pods(e, "pods-daemon-image-pull.json");
	assert_int_equal(evaluate_check(CHECK_VERSION_PAIR, &e->o, &e->p, &e->c), 0);
	assert_check(e, CHECK_FAIL, "container tcpxo-daemon does not run: waiting: ImagePullBackOff, 0 restarts");

	/* Running again after a crash: the workload on it lost its daemon. */
	load_pods(e, "pods-healthy.json");
	set_state(e, "tcpxo-daemon", POD_CSTATE_RUNNING, NULL, 1, 139);
	assert_int_equal(evaluate_check(CHECK_VERSION_PAIR, &e->o, &e->p, &e->c), 0);
	assert_check(e, CHECK_FAIL, "does not run: running again, last exit code 139, 1 restart");
	/* Terminated non-zero. */
	set_state(e, "tcpxo-daemon", POD_CSTATE_TERMINATED, "Error", 0, 1);
	assert_int_equal(evaluate_check(CHECK_VERSION_PAIR, &e->o, &e->p, &e->c), 0);
	assert_check(e, CHECK_FAIL, "does not run: terminated: exit code 1 (Error), 0 restarts");
	/* A pod that has ended no longer matters: its sidecar stopped with it. */
	find_container(e, "tcpxo-daemon", &pod);
	free(pod->phase);
	pod->phase = strdup("Failed");
	assert_int_equal(evaluate_check(CHECK_VERSION_PAIR, &e->o, &e->p, &e->c), 0);
	assert_int_equal(e->c.status, CHECK_SKIP);
	env_free(e);
}

/* A3 High: the TCPX release table, by the image's folder, else by the node's profile. */
static void test_version_pair_tcpx(void **state)
{
	struct env *e = env_new(false);

	e->p.kind = PROFILE_TCPX;
	load_pods(e, "pods-tcpx-healthy.json");
	assert_int_equal(evaluate_check(CHECK_VERSION_PAIR, &e->o, &e->p, &e->c), 0);
	assert_int_equal(e->c.status, CHECK_PASS);
	assert_string_equal(e->c.message, "installer v3.1.9 and daemon v2.0.12 pair (1 running)");
	assert_string_equal(e->p.expected_daemon, "v2.0.12");

	/* A mirror that flattened the folders: the node's profile picks the table. */
	for (size_t i = 0; i < e->k.n_containers; i++)
		e->k.containers[i].fabric = KUBE_FABRIC_UNKNOWN;
	assert_int_equal(evaluate_check(CHECK_VERSION_PAIR, &e->o, &e->p, &e->c), 0);
	assert_check(e, CHECK_PASS, "installer v3.1.9 and daemon v2.0.12 pair");

	load_pods(e, "pods-tcpx-skew.json");
	assert_int_equal(evaluate_check(CHECK_VERSION_PAIR, &e->o, &e->p, &e->c), 0);
	assert_check(e, CHECK_FAIL, "daemon v2.0.11 does not pair with installer v3.1.9 (expects v2.0.12)");
	assert_non_null(strstr(e->c.remedy, "tcpgpudmarxd-dev:v2.0.12 as the tcpx-daemon container"));
	env_free(e);
}

static void test_version_pair_normalised_tags(void **state)
{
	struct env *e = env_new(false);

	/* v1.0.3 pairs with v1.0.09: written v1.0.9 it still pairs; the table's form is expected. */
	strcpy(e->k.containers[0].tag, "v1.0.3");
	e->k.containers[0].image_id_digest[0] = '\0';
	strcpy(e->k.containers[1].tag, "v1.0.9");
	e->k.containers[1].image_id_digest[0] = '\0';
	assert_int_equal(evaluate_check(CHECK_VERSION_PAIR, &e->o, &e->p, &e->c), 0);
	assert_int_equal(e->c.status, CHECK_PASS);
	assert_string_equal(e->p.expected_daemon, "v1.0.09");
	assert_string_equal(e->p.daemons[0], "v1.0.9");    /* shown as written */
	env_free(e);
}

static void test_version_pair_several_daemons(void **state)
{
	struct env *e = env_new(false);
	struct obs_kube *k = &e->k;
	struct kube_container *v = realloc(k->containers, 4 * sizeof(*v));

	assert_non_null(v);
	k->containers = v;
	/* Two more running daemons: one v1.0.21 (same as the first), one v1.0.20. */
	for (int i = 2; i < 4; i++) {
		v[i] = v[1];
		v[i].argv = NULL;
		v[i].argc = 0;
		snprintf(v[i].pod, sizeof(v[i].pod), "other-%d", i);
		v[i].image_id_digest[0] = '\0';
	}
	strcpy(v[3].tag, "v1.0.20");
	k->n_containers = 4;
	assert_int_equal(evaluate_check(CHECK_VERSION_PAIR, &e->o, &e->p, &e->c), 0);
	assert_check(e, CHECK_FAIL, "daemon v1.0.20 does not pair with installer v1.0.15 (expects v1.0.21)");
	assert_int_equal(e->p.n_daemons, 2);
	assert_string_equal(e->p.daemons[0], "v1.0.20");   /* sorted as versions */
	assert_string_equal(e->p.daemons[1], "v1.0.21");
	assert_non_null(strstr(e->c.remedy, "ml-team/other-3"));
	assert_null(strstr(e->c.remedy, "other-2"));
	env_free(e);
}

/*
 * /proc as the host probe leaves it with @n daemons: each a manager (its kernel comm, cmdline
 * unreadable) and the shell of its entrypoint, which is not counted.
 */
static void host_daemons(struct env *e, size_t n)
{
	static const char *const sh[] = { "/bin/sh", "/fts/entrypoint_rxdm_container.sh" };
	struct obs_procs *ps = &e->o.host.procs;

	obs_host_procs_free(ps);
	ps->v = calloc(2 * n, sizeof(*ps->v));
	assert_non_null(ps->v);
	for (size_t i = 0; i < n; i++) {
		struct obs_process *ep = &ps->v[ps->n++], *mgr = &ps->v[ps->n++];

		ep->pid = (int)(100 + 2 * i);
		snprintf(ep->comm, sizeof(ep->comm), "sh");
		ep->argv = calloc(2, sizeof(*ep->argv));
		assert_non_null(ep->argv);
		for (size_t j = 0; j < 2; j++)
			assert_non_null(ep->argv[ep->argc++] = strdup(sh[j]));
		mgr->pid = (int)(101 + 2 * i);
		snprintf(mgr->comm, sizeof(mgr->comm), "fastrak_gpumem_");
	}
	ps->status.state = PROBE_OK;
}

static void test_version_pair_host_processes(void **state)
{
	struct env *e = env_new(false);

	host_daemons(e, 1);
	assert_int_equal(evaluate_check(CHECK_VERSION_PAIR, &e->o, &e->p, &e->c), 0);
	assert_int_equal(e->c.status, CHECK_PASS);
	host_daemons(e, 2);
	assert_int_equal(evaluate_check(CHECK_VERSION_PAIR, &e->o, &e->p, &e->c), 0);
	assert_check(e, CHECK_WARN, "2 daemon processes in /proc, but 1 running daemon container in this node's pods");

	/* An idle node with a daemon process nobody accounts for: warn, not skip. */
	load_pods(e, "pods-idle.json");
	host_daemons(e, 1);
	assert_int_equal(evaluate_check(CHECK_VERSION_PAIR, &e->o, &e->p, &e->c), 0);
	assert_check(e, CHECK_WARN, "1 daemon process in /proc, but 0 running daemon containers");
	env_free(e);
}

static void test_version_pair_no_api(void **state)
{
	struct env *e = env_new(false);

	e->k.configured = false;
	assert_int_equal(evaluate_check(CHECK_VERSION_PAIR, &e->o, &e->p, &e->c), 0);
	assert_check(e, CHECK_SKIP, "no API access: installer and daemon versions not read");
	assert_int_equal(e->p.n_daemons, 0);
	assert_string_equal(e->p.installer, "");

	e->k.configured = true;
	e->k.pods_fetch.state = KUBE_FETCH_FAILED;
	strcpy(e->k.pods_fetch.message, "connection refused");
	assert_int_equal(evaluate_check(CHECK_VERSION_PAIR, &e->o, &e->p, &e->c), 0);
	assert_check(e, CHECK_SKIP, "pods not read from the API (connection refused)");
	env_free(e);
}

/*
 * TCPX v3.1.12 <-> v2.0.15 rests on a README commit not in container-engine-accelerators' history
 * as stored: a node on it warns, naming the row's source, and still pairs the daemon it expects.
 */
static void test_version_pair_unverified_row(void **state)
{
	struct env *e = env_new(false);

	e->p.kind = PROFILE_TCPX;
	load_pods(e, "pods-tcpx-healthy.json");
	for (size_t i = 0; i < e->k.n_containers; i++) {
		struct kube_container *ct = &e->k.containers[i];

		strcpy(ct->tag, ct->role == KUBE_IMAGE_DAEMON ? "v2.0.15" : "v3.1.12");
		ct->image_id_digest[0] = '\0';
	}
	assert_int_equal(evaluate_check(CHECK_VERSION_PAIR, &e->o, &e->p, &e->c), 0);
	assert_check(e, CHECK_WARN, "TCPX installer v3.1.12 <-> daemon v2.0.15 is an unverified row of the release "
		     "table (built-in): GoogleCloudPlatform/container-engine-accelerators gpudirect-tcpx/README.md "
		     "@98c85a6e581d, a commit not in the repository's history as stored");
	assert_non_null(strstr(e->c.remedy, "confirm the pair in Google's release notes"));
	assert_string_equal(e->p.expected_daemon, "v2.0.15");

	/* A skewed daemon on it still fails. */
	for (size_t i = 0; i < e->k.n_containers; i++)
		if (e->k.containers[i].role == KUBE_IMAGE_DAEMON)
			strcpy(e->k.containers[i].tag, "v2.0.12");
	assert_int_equal(evaluate_check(CHECK_VERSION_PAIR, &e->o, &e->p, &e->c), 0);
	assert_check(e, CHECK_FAIL, "daemon v2.0.12 does not pair with installer v3.1.12 (expects v2.0.15)");
	env_free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_machine_type_no_api),
		cmocka_unit_test(test_machine_type_pass),
		cmocka_unit_test(test_machine_type_accel_mismatch),
		cmocka_unit_test(test_machine_type_hardware_mismatch),
		cmocka_unit_test(test_machine_type_other),
		cmocka_unit_test(test_networks_pass),
		cmocka_unit_test(test_networks_no_api),
		cmocka_unit_test(test_networks_non_gpu_nic),
		cmocka_unit_test(test_networks_google_names),
		cmocka_unit_test(test_networks_nic_info_disagrees),
		cmocka_unit_test(test_networks_ip_disagrees),
		cmocka_unit_test(test_networks_in_pod),
		cmocka_unit_test(test_enrich_keeps_kernel_values),
		cmocka_unit_test(test_networks_missing_facts),
		cmocka_unit_test(test_networks_nic_info_without_north),
		cmocka_unit_test(test_networks_dranet),
		cmocka_unit_test(test_networks_gpu_nic_not_on_bus),
		cmocka_unit_test(test_networks_objects),
		cmocka_unit_test(test_networks_tcpx_and_none),
		cmocka_unit_test(test_version_pair_pass),
		cmocka_unit_test(test_version_pair_skew),
		cmocka_unit_test(test_version_pair_skew_beside_large_pods),
		cmocka_unit_test(test_version_pair_unknown_pod),
		cmocka_unit_test(test_version_pair_idle),
		cmocka_unit_test(test_version_pair_digest_only),
		cmocka_unit_test(test_version_pair_running_digest_wins),
		cmocka_unit_test(test_version_pair_installer_problems),
		cmocka_unit_test(test_version_pair_nccl_test_pod),
		cmocka_unit_test(test_version_pair_daemon_not_running),
		cmocka_unit_test(test_version_pair_tcpx),
		cmocka_unit_test(test_version_pair_unverified_row),
		cmocka_unit_test(test_version_pair_normalised_tags),
		cmocka_unit_test(test_version_pair_several_daemons),
		cmocka_unit_test(test_version_pair_host_processes),
		cmocka_unit_test(test_version_pair_no_api),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
