/* check_kube.c - API-derived checks: machine type, the network mapping; the NIC rows from the API. */
#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/model/strbuf.h"
#include "report/checks/checks.h"
#include "report/checks/kubefacts.h"
#include "report/checks/ifacemap.h"

/* ---- enrichment ---- */

int check_kube_enrich(const struct observation *o, struct profile *p)
{
	const struct obs_kube *k = o->kube;

	if (k->node_fetch.state != KUBE_FETCH_OK || !k->has_nic_info)
		return 0;
	for (size_t i = 0; i < p->n_nics; i++) {
		struct profile_nic *nic = &p->nics[i];
		const struct kube_nic *kn = obs_kube_nic_by_bdf(k, nic->bdf);

		if (!kn)
			continue;
		/* The kernel's view wins: fill only what it did not show. */
		if (!nic->name[0] && kn->name[0])
			snprintf(nic->name, sizeof(nic->name), "%s", kn->name);
		if (!nic->ipv4[0] && kn->ipv4[0])
			snprintf(nic->ipv4, sizeof(nic->ipv4), "%s/32", kn->ipv4);
		if (!nic->network[0] && kn->network[0])
			snprintf(nic->network, sizeof(nic->network), "%s", kn->network);
	}
	return 0;
}

/* ---- machine-type ---- */

/*
 * The machine types whose hardware the agent knows. Another machine type with no fabric
 * observed agrees with itself (pass). Another machine type whose hardware looks like tcpx
 * or tcpxo is only a warning: Google adds A3 variants, and the hardware checks already
 * decide readiness, so an unknown name alone must never fail a node.
 */
struct check_kube_type {
	const char *machine;
	enum profile_kind kind;
	const char *accelerator;
};

static const struct check_kube_type check_kube_types[] = {
	{ "a3-megagpu-8g", PROFILE_TCPXO, "nvidia-h100-mega-80gb" },
	{ "a3-highgpu-8g", PROFILE_TCPX, "nvidia-h100-80gb" },
	{ "a3-edgegpu-8g", PROFILE_TCPX, "nvidia-h100-80gb" },
	{ "a3-ultragpu-8g", PROFILE_RDMA, "nvidia-h200-141gb" },
	{ "a4-highgpu-8g", PROFILE_RDMA, "nvidia-b200" },
};

/* The table's entry for @machine, or NULL when the agent does not know it (or @machine is NULL). */
static const struct check_kube_type *check_kube_type_of(const char *machine)
{
	for (size_t t = 0; machine && t < sizeof(check_kube_types) / sizeof(check_kube_types[0]); t++)
		if (strcmp(machine, check_kube_types[t].machine) == 0)
			return &check_kube_types[t];
	return NULL;
}

bool check_machine_kind(const char *machine)
{
	return check_kube_type_of(machine) != NULL;
}

enum profile_kind check_machine_profile(const char *machine)
{
	const struct check_kube_type *t = check_kube_type_of(machine);

	return t ? t->kind : PROFILE_NONE;
}

static const char *check_kube_accel_of_kind(enum profile_kind kind)
{
	switch (kind) {
	case PROFILE_TCPXO: return "nvidia-h100-mega-80gb";
	case PROFILE_TCPX: return "nvidia-h100-80gb";
	case PROFILE_RDMA: break;      /* two machine types, two accelerators */
	case PROFILE_NONE: break;
	}
	return NULL;
}

int check_machine_type(const struct observation *o, struct profile *p, struct finding *c)
{
	const struct obs_kube *k = o->kube;
	struct finding_acc a = { 0 };
	const char *mt = k->instance_type, *accel = k->accelerator, *want_accel, *ref;
	const struct check_kube_type *known;
	char pass[256];

	known = check_kube_type_of(mt);
	if (!mt[0]) {
		finding_acc_add(&a, CHECK_WARN, "check that the node carries the node.kubernetes.io/instance-type label",
			       "node has no node.kubernetes.io/instance-type label");
		want_accel = check_kube_accel_of_kind(p->kind);
		ref = profile_kind_name(p->kind);
	} else if (known) {
		if (p->kind != known->kind)
			finding_acc_add(&a, CHECK_FAIL,
				       "the hardware does not have this machine type's shape: see the gpus, gpu-nics and pairing checks",
				       "%s must observe profile %s, observed %s", mt,
				       profile_kind_name(known->kind), profile_kind_name(p->kind));
		want_accel = known->accelerator;
		ref = mt;
	} else {
		if (p->kind != PROFILE_NONE)
			finding_acc_add(&a, CHECK_WARN, NULL,
				       "machine type %s is not one the agent knows, but the hardware looks like %s",
				       mt, profile_kind_name(p->kind));
		want_accel = NULL;
		ref = mt;
	}
	if (want_accel && !accel[0])
		finding_acc_add(&a, CHECK_WARN, NULL, "node has no cloud.google.com/gke-accelerator label (%s expects %s)",
			       ref, want_accel);
	else if (want_accel && strcmp(accel, want_accel) != 0)
		finding_acc_add(&a, CHECK_FAIL,
			       "the node pool's accelerator does not match its machine type: re-create the node pool with the accelerator its machine type carries",
			       "accelerator label %s does not match %s (expects %s)", accel, ref, want_accel);
	if (want_accel)
		snprintf(pass, sizeof(pass), "%s (%s) observes profile %s", mt, accel, profile_kind_name(p->kind));
	else
		snprintf(pass, sizeof(pass), "machine type %s is not a GPUDirect-TCPX(O) type; profile %s agrees",
			 mt, profile_kind_name(p->kind));
	return finding_acc_finish(&a, c, "%s", pass);
}

/* ---- networks ---- */

static bool check_kube_link_has_ipv4(const struct obs_link *l, const char *ip)
{
	struct in_addr a;

	if (inet_pton(AF_INET, ip, &a) != 1)
		return false;
	for (unsigned i = 0; i < l->n_ipv4 && i < OBS_IPV4_MAX; i++)
		if (l->ipv4[i] == a.s_addr)
			return true;
	return false;
}

/* nic-info against the kernel: same PCI address for each name, same IPv4 where visible. */
static void check_kube_cross(const struct observation *o, struct finding_acc *a)
{
	const struct obs_kube *k = o->kube;
	static const char remedy[] =
		"GKE's nic-info no longer describes this node's NICs: drain and re-create the node (or its node pool)";

	for (size_t i = 0; i < k->n_nics; i++) {
		const struct kube_nic *kn = &k->nics[i];
		const struct obs_pci_func *f;
		const struct obs_link *l;

		if (!kn->name[0])
			continue;
		f = o->pci.status.state == PROBE_OK ?
		    obs_find(o->pci.v, o->pci.n, sizeof(*o->pci.v), offsetof(struct obs_pci_func, netdev), false, kn->name) :
		    NULL;
		if (f && kn->bdf[0] && strcmp(f->bdf, kn->bdf) != 0)
			finding_acc_add(a, CHECK_FAIL, remedy, "nic-info puts %s at %s, the kernel has it at %s",
				       kn->name, kn->bdf, f->bdf);
		l = o->links.status.state == PROBE_OK ? observation_link_find(o, kn->name) : NULL;
		/* A link without IPv4 is the links check's finding, not a disagreement. */
		if (l && l->n_ipv4 && kn->ipv4[0] && !check_kube_link_has_ipv4(l, kn->ipv4)) {
			char have[OBS_IPV4_TEXT];

			obs_ipv4_format(l->ipv4[0], l->ipv4_prefix[0], have, sizeof(have));
			finding_acc_add(a, CHECK_FAIL, remedy, "nic-info gives %s the address %s, the kernel shows %s",
				       kn->name, kn->ipv4, have);
		}
	}
	/* GPU NICs GKE knows of that are not on the bus (their row, if any, is the lead's "missing"). */
	if (o->pci.status.state != PROBE_OK)
		return;
	/* Any NIC GKE lists must be on the bus: the criterion is never the Network's name. */
	for (size_t i = 0; i < k->n_nics; i++) {
		const struct kube_nic *kn = &k->nics[i];

		if (kn->bdf[0] && kn->network[0] && !observation_pci_find(o, kn->bdf))
			finding_acc_add(a, CHECK_FAIL, remedy,
				       "nic-info lists %s (network %s) at %s, which is not on the PCI bus",
				       kn->name[0] ? kn->name : "a NIC", kn->network, kn->bdf);
	}
}

/* What is wrong with one GPU NIC's Network object: one bit each, in the order the check names them. */
enum check_kube_net_problem {
	CHECK_NET_MISSING = 1u << 0,            /* no such Network: nothing else is looked at */
	CHECK_NET_NO_TYPE = 1u << 1,            /* no spec.type (L3 by default) */
	CHECK_NET_NOT_DEVICE = 1u << 2,         /* of another type than Device */
	CHECK_NET_NOT_READY = 1u << 3,
	CHECK_NET_NOT_PARAMS_READY = 1u << 4,
	CHECK_NET_NO_PARAMS_REF = 1u << 5,      /* no parametersRef (GKENetworkParamSet) */
};

/* Each problem in short, by bit: a GPU NIC's finding on its row (its first problem). */
static const char *const check_kube_net_short[] = {
	"no such Network", "Network has no spec.type, not Device", "Network is not of type Device",
	"Network not Ready", "Network not ParamsReady", "Network has no parametersRef",
};

/* The Network named @name's problems; 0 when nothing is wrong or the Networks were not read. */
static unsigned check_kube_net_problems(const struct obs_kube *k, const char *name)
{
	const struct kube_network *net = obs_kube_network(k, name);
	unsigned bits = 0;

	if (k->networks_fetch.state != KUBE_FETCH_OK)
		return 0;
	if (!net)
		return CHECK_NET_MISSING;
	if (!net->type[0])
		bits |= CHECK_NET_NO_TYPE;
	else if (strcmp(net->type, "Device") != 0)
		bits |= CHECK_NET_NOT_DEVICE;
	if (!net->ready)
		bits |= CHECK_NET_NOT_READY;
	if (!net->params_ready)
		bits |= CHECK_NET_NOT_PARAMS_READY;
	if (!net->has_params_ref)
		bits |= CHECK_NET_NO_PARAMS_REF;
	return bits;
}

/* Each GPU NIC's finding on its row: its Network's first problem, or no Network where nic-info was read. */
static int check_kube_net_find(const struct obs_kube *k, struct profile *p)
{
	int r = 0;

	for (size_t i = 0; r == 0 && i < p->n_nics; i++) {
		const char *net = p->nics[i].network;
		unsigned bits = net[0] ? check_kube_net_problems(k, net) : 0, first = 0;

		while (first < 5 && !(bits >> first & 1))
			first++;
		if (bits)
			r = profile_mark(p, CHECK_NETWORKS, MARK_NIC, i, NULL, NULL, "%s",
					 check_kube_net_short[first]);
		else if (!net[0] && k->has_nic_info && k->has_north)
			r = profile_mark(p, CHECK_NETWORKS, MARK_NIC, i, NULL, NULL, "no Network in nic-info");
	}
	return r;
}

/* Networks CRs of the mapping: exist, Ready, ParamsReady, a GKENetworkParamSet. */
static void check_kube_network_objects(const struct obs_kube *k, const struct profile_iface *v, size_t n,
				       struct finding_acc *a)
{
	static const char remedy[] =
		"each GPU NIC's Network must be a Ready Device-type Network with a GKENetworkParamSet (kubectl describe network <name>)";

	char why[KUBE_MSG_MAX + 3];

	if (k->networks_fetch.state == KUBE_FETCH_NOT_RUN)
		return;
	if (k->networks_fetch.state != KUBE_FETCH_OK) {
		finding_acc_add(a, CHECK_PASS, NULL, "Network objects not readable%s",
			       kubefacts_fetch_why(&k->networks_fetch, why, sizeof(why)));
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const struct kube_network *net = obs_kube_network(k, v[i].network);
		unsigned bits;

		if (!v[i].network[0])
			continue;
		bits = check_kube_net_problems(k, v[i].network);
		if (bits & CHECK_NET_MISSING) {
			finding_acc_add(a, CHECK_FAIL, remedy, "Network %s does not exist", v[i].network);
			continue;
		}
		if (bits & CHECK_NET_NO_TYPE)
			finding_acc_add(a, CHECK_FAIL, remedy, "Network %s has no spec.type (L3 by default), not Device",
				       net->name);
		if (bits & CHECK_NET_NOT_DEVICE)
			finding_acc_add(a, CHECK_FAIL, remedy, "Network %s is of type %s, not Device", net->name, net->type);
		if (bits & CHECK_NET_NOT_READY)
			finding_acc_add(a, CHECK_FAIL, remedy, "Network %s is not Ready", net->name);
		if (bits & CHECK_NET_NOT_PARAMS_READY)
			finding_acc_add(a, CHECK_FAIL, remedy, "Network %s is not ParamsReady", net->name);
		if (bits & CHECK_NET_NO_PARAMS_REF)
			finding_acc_add(a, CHECK_FAIL, remedy, "Network %s has no parametersRef (GKENetworkParamSet)",
				       net->name);
	}
}

int check_networks(const struct observation *o, struct profile *p, struct finding *c)
{
	static const char remedy_map[] =
		"each GPU NIC must be on its own Device-type Network: re-create the node pool with one GPU additional "
		"network per GPU NIC and no other gVNIC additional network";
	static const char remedy_names[] =
		"the node is ready and its mapping is published; to render torch-distributed-tcpxo with AICR, use "
		"Networks whose names contain 'gpu-nic', or check the mapping with tcpxo-agent interfaces "
		"--any-network-names and give it to a renderer that takes any name";
	const struct obs_kube *k = o->kube;
	struct finding_acc a = { 0 };
	struct profile_iface *v = NULL;
	struct strbuf why = { 0 }, pass = { 0 };
	size_t n = 0;
	int r;

	free(p->ifaces);
	p->ifaces = NULL;
	p->n_ifaces = 0;
	if (p->kind == PROFILE_RDMA)
		return check_rdma_networks(o, p, c);
	if (check_kube_net_find(k, p) < 0)
		return -ENOMEM;
	if (p->kind == PROFILE_TCPX)
		return finding_set(c, CHECK_SKIP, NULL,
				 "profile tcpx: the eth1..eth8 mapping is the tcpxo runtime's input");
	if (p->n_nics == 0)
		return finding_set(c, CHECK_SKIP, NULL, "no GPU NICs observed: nothing to map");
	if (k->dranet)
		return finding_set(c, CHECK_SKIP, NULL,
				 "GPU NICs allocated by DRANET (node label " OBS_KUBE_DRANET_LABEL "): they reach pods "
				 "through ResourceClaims, not Networks and the networking.gke.io/interfaces annotation; "
				 "no eth1..eth8 mapping is checked or published");

	if (!k->has_nic_info)
		finding_acc_add(&a, CHECK_FAIL, remedy_map, "%s",
			       k->nic_info_error[0] ? k->nic_info_error :
			       "node has no networking.gke.io/nic-info annotation: the mapping cannot be observed");
	if (!k->has_north)
		finding_acc_add(&a, CHECK_FAIL, remedy_map, "%s",
			       k->north_error[0] ? k->north_error :
			       "node has no networking.gke.io/north-interfaces annotation: the mapping cannot be observed");
	check_kube_cross(o, &a);

	v = calloc(p->n_nics, sizeof(*v));
	if (!v) {
		finding_acc_free(&a);
		return -ENOMEM;
	}
	for (size_t i = 0; i < p->n_nics; i++) {
		const struct profile_nic *nic = &p->nics[i];

		if (!nic->name[0]) {
			finding_acc_add(&a, CHECK_FAIL, remedy_map, "GPU NIC %s has no interface name (not in the kernel, not in nic-info)",
				       nic->bdf);
			continue;
		}
		snprintf(v[n].name, sizeof(v[n].name), "%s", nic->name);
		snprintf(v[n].network, sizeof(v[n].network), "%s", nic->network);
		n++;
	}
	ifacemap_sort(v, n);
	if (k->has_nic_info && k->has_north) {
		r = ifacemap_validate(v, n, &why);
		if (r == -ENOMEM)
			goto oom;
		if (r < 0)
			finding_acc_add(&a, CHECK_FAIL, remedy_map, "%s", why.s ? why.s : "invalid mapping");
	}
	check_kube_network_objects(k, v, n, &a);

	for (size_t i = 0; i < n; i++)
		strbuf_appendf(&pass, "%s%s=%s", i ? "," : "", v[i].name, v[i].network);
	if (pass.oom)
		goto oom;
	if (a.status == CHECK_FAIL) {
		/* Fail closed: an incomplete or invalid mapping is never published. */
		free(v);
		v = NULL;
		r = finding_acc_finish(&a, c, "%s", pass.s ? pass.s : "");
		goto out;
	}
	/*
	 * The mapping is real: it is published. Informational notes (Network objects not readable)
	 * ride along; AICR's naming rule is the renderer's, so breaking it is only a warning.
	 */
	p->ifaces = v;
	p->n_ifaces = n;
	v = NULL;
	strbuf_free(&why);
	r = ifacemap_renderer_names(p->ifaces, p->n_ifaces, &why);
	if (r == -ENOMEM)
		goto oom;
	{
		struct strbuf m = { 0 };

		strbuf_appendf(&m, "%s%s%s", pass.s ? pass.s : "", a.msg.len ? "; " : "", a.msg.s ? a.msg.s : "");
		if (r < 0)
			strbuf_appendf(&m, "; renderer naming rule: %s (the fabric does not depend on the names)", why.s);
		if (m.oom) {
			strbuf_free(&m);
			goto oom;
		}
		r = r < 0 ? finding_set(c, CHECK_WARN, remedy_names, "%s", m.s) : finding_set(c, CHECK_PASS, NULL, "%s", m.s);
		strbuf_free(&m);
	}
	finding_acc_free(&a);
out:
	strbuf_free(&why);
	strbuf_free(&pass);
	return r;
oom:
	free(v);
	finding_acc_free(&a);
	strbuf_free(&why);
	strbuf_free(&pass);
	return -ENOMEM;
}
