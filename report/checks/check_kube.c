/* check_kube.c - API-derived checks: machine type, the network mapping, the version pair. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/kube/imageref.h"
#include "probes/model/strbuf.h"
#include "report/checks/checks.h"
#include "report/checks/ifacemap.h"
#include "report/checks/kubefacts.h"
#include "report/checks/releases.h"

/* Write the accumulated result into @c (or @pass_msg when nothing was found). */
static int check_kube_finish(struct finding_acc *a, struct finding *c, const char *pass_msg)
{
	return finding_acc_finish(a, c, "%s", pass_msg ? pass_msg : "");
}

/*
 * Skip @c when the node facts are not available. Return: 1 when @c was set (skipped),
 * 0 when the facts are there, -ENOMEM.
 */
static int check_kube_need(const struct obs_kube *k, const struct kube_fetch *f, struct finding *c,
			   const char *what, const char *object)
{
	int r;

	if (!k->configured || f->state == KUBE_FETCH_NOT_RUN)
		r = finding_set(c, CHECK_SKIP, NULL, "no API access: %s not read", what);
	else if (f->state != KUBE_FETCH_OK)
		r = finding_set(c, CHECK_SKIP, NULL, "%s not read from the API (%s): %s not read", object,
			      f->message[0] ? f->message : "failed", what);
	else
		return 0;
	return r < 0 ? r : 1;
}

/* ---- enrichment ---- */

int check_kube_enrich(const struct observation *o, struct profile *p)
{
	const struct obs_kube *k = &o->kube;

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

static const char *check_kube_accel_of_kind(enum profile_kind kind)
{
	switch (kind) {
	case PROFILE_TCPXO: return "nvidia-h100-mega-80gb";
	case PROFILE_TCPX: return "nvidia-h100-80gb";
	case PROFILE_NONE: break;
	}
	return NULL;
}

int check_machine_type(const struct observation *o, struct profile *p, struct finding *c)
{
	const struct obs_kube *k = &o->kube;
	struct finding_acc a = { 0 };
	const char *mt = k->instance_type, *accel = k->accelerator, *want_accel, *ref;
	const struct check_kube_type *known;
	char pass[256];
	int r;

	r = check_kube_need(k, &k->node_fetch, c, "machine type", "node");
	if (r)
		return r < 0 ? r : 0;

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
	return check_kube_finish(&a, c, pass);
}

/* ---- networks ---- */

/* The kernel's interface name on the PCI function @bdf and the function carrying @name. */
static const struct obs_pci_func *check_kube_pci_by_netdev(const struct observation *o, const char *name)
{
	for (size_t i = 0; i < o->pci.n; i++)
		if (o->pci.v[i].netdev[0] && strcmp(o->pci.v[i].netdev, name) == 0)
			return &o->pci.v[i];
	return NULL;
}

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
	const struct obs_kube *k = &o->kube;
	static const char remedy[] =
		"GKE's nic-info no longer describes this node's NICs: drain and re-create the node (or its node pool)";

	for (size_t i = 0; i < k->n_nics; i++) {
		const struct kube_nic *kn = &k->nics[i];
		const struct obs_pci_func *f;
		const struct obs_link *l;

		if (!kn->name[0])
			continue;
		f = o->pci.status.state == PROBE_OK ? check_kube_pci_by_netdev(o, kn->name) : NULL;
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
		unsigned bits = net[0] ? check_kube_net_problems(k, net) : 0;

		if (bits)
			r = profile_mark(p, CHECK_NETWORKS, MARK_NIC, i, NULL, NULL, "%s",
					 check_kube_net_short[__builtin_ctz(bits)]);
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

	switch (k->networks_fetch.state) {
	case KUBE_FETCH_NOT_RUN:
		return;
	case KUBE_FETCH_FORBIDDEN:
	case KUBE_FETCH_FAILED:
		finding_acc_add(a, CHECK_PASS, NULL, "Network objects not readable%s%s%s",
			       k->networks_fetch.message[0] ? " (" : "", k->networks_fetch.message,
			       k->networks_fetch.message[0] ? ")" : "");
		return;
	case KUBE_FETCH_OK:
		break;
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
	const struct obs_kube *k = &o->kube;
	struct finding_acc a = { 0 };
	struct profile_iface *v = NULL;
	struct strbuf why = { 0 }, pass = { 0 };
	size_t n = 0;
	int r;

	free(p->ifaces);
	p->ifaces = NULL;
	p->n_ifaces = 0;
	if (check_kube_net_find(k, p) < 0)
		return -ENOMEM;
	r = check_kube_need(k, &k->node_fetch, c, "network mapping", "node");
	if (r)
		return r < 0 ? r : 0;
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
		r = check_kube_finish(&a, c, pass.s);
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

/* ---- version-pair ---- */

static int check_kube_strcmp_version(const void *a, const void *b)
{
	return imageref_version_cmp(*(char *const *)a, *(char *const *)b);
}

static void check_kube_free_daemons(struct profile *p)
{
	for (size_t i = 0; i < p->n_daemons; i++)
		free(p->daemons[i]);
	free(p->daemons);
	p->daemons = NULL;
	p->n_daemons = 0;
}

/* The names Google's manifests give a fabric's installer DaemonSet and daemon container. */
static const char *check_kube_installer_name(enum releases_fabric f)
{
	return f == RELEASES_FABRIC_TCPX ? "nccl-tcpx-installer" : "nccl-tcpxo-installer";
}

static const char *check_kube_daemon_name(enum releases_fabric f)
{
	return f == RELEASES_FABRIC_TCPX ? "tcpx-daemon" : "tcpxo-daemon";
}

/* "TCPXO" / "TCPX" for messages. */
static const char *check_kube_fabric_upper(enum releases_fabric f)
{
	return f == RELEASES_FABRIC_TCPX ? "TCPX" : "TCPXO";
}

/*
 * A daemon container that does not run: waiting for a reason other than starting up
 * (CrashLoopBackOff, ImagePullBackOff, ...), terminated non-zero, or running again after a
 * non-zero exit. Its pod, reason, exit code and restart count go into @a as a failure.
 */
static int check_kube_daemon_failed(struct finding_acc *a, const struct kube_container *ct,
				    const struct pod_container *pc, struct strbuf *remedy, size_t n_failed)
{
	struct strbuf why = { 0 };

	if (kubefacts_run_text(pc, &why) < 0)
		return -ENOMEM;
	finding_acc_add(a, CHECK_FAIL, NULL, "daemon %s/%s container %s does not run: %s", ct->ns, ct->pod,
		       ct->name, why.s ? why.s : "");
	strbuf_free(&why);
	if (n_failed == 0)
		strbuf_appendf(remedy, "see why with kubectl -n %s logs %s -c %s --previous (a flag the daemon does "
			       "not take stops it at start: see daemon-args; without the host /sys it finds no GPU)",
			       ct->ns, ct->pod, ct->name);
	return remedy->oom ? -ENOMEM : 0;
}

/* What check_version_pair() gathers, phase by phase, and what it says. */
struct check_kube_pair {
	const struct obs_kube *k;
	const struct releases *t;
	struct profile *p;
	struct finding_acc a;
	struct strbuf installers;       /* the distinct installer releases, ", "-joined */
	struct strbuf remedy;           /* the daemon pods to upgrade */
	struct strbuf fail_remedy;      /* how to see why a daemon does not run */
	const char *installer, *expected;
	enum releases_fabric fabric;
	size_t n_inst, n_running, n_unknown, n_bad_pods, n_failed, n_starting;
	bool installer_unknown_digest;
};

/* A daemon container of a pod that has not ended. */
static bool check_kube_live_daemon(const struct obs_kube *k, const struct kube_container *ct)
{
	return ct->role == KUBE_IMAGE_DAEMON && !kubefacts_pod_ended(kubefacts_pod(k, ct));
}

/* How a daemon container is doing: from its pod's status, else from the running flag alone. */
static enum kubefacts_run check_kube_daemon_run(const struct obs_kube *k, const struct kube_container *ct)
{
	const struct pod_container *pc = kubefacts_container(k, ct);

	return pc ? kubefacts_run(pc) : ct->running ? KUBEFACTS_RUN_RUNNING : KUBEFACTS_RUN_UNKNOWN;
}

/* An installer container of a pod that has not ended. */
static bool check_kube_live_installer(const struct obs_kube *k, const struct kube_container *ct)
{
	return kubefacts_is_installer(k, ct) && !kubefacts_pod_ended(kubefacts_pod(k, ct));
}

/*
 * Installer: every distinct release among the installer DaemonSet's init containers. Other
 * containers running the plugin image (NCCL test pods) are workloads: they never count.
 */
static void check_kube_pair_installers(struct check_kube_pair *s)
{
	const struct obs_kube *k = s->k;

	for (size_t i = 0; i < k->n_containers; i++) {
		const struct kube_container *ct = &k->containers[i];
		const char *ver;
		bool seen = false;

		if (!check_kube_live_installer(k, ct))
			continue;
		ver = kubefacts_version_of(k, ct);
		if (!ver[0]) {
			s->installer_unknown_digest = true;
			continue;
		}
		for (size_t j = 0; j < i && !seen; j++)
			if (check_kube_live_installer(k, &k->containers[j]) &&
			    imageref_version_equal(kubefacts_version_of(k, &k->containers[j]), ver))
				seen = true;
		if (seen)
			continue;
		strbuf_appendf(&s->installers, "%s%s", s->n_inst ? ", " : "", ver);
		if (!s->n_inst) {
			s->installer = ver;
			s->fabric = kubefacts_fabric(ct, s->p->kind);
		}
		s->n_inst++;
	}
}

/* Daemons: the distinct releases of the running ones; one that does not run is a failure. Return: 0, -ENOMEM. */
static int check_kube_pair_daemons(struct check_kube_pair *s)
{
	const struct obs_kube *k = s->k;
	struct profile *p = s->p;

	p->daemons = calloc(k->n_containers ? k->n_containers : 1, sizeof(*p->daemons));
	if (!p->daemons)
		return -ENOMEM;
	for (size_t i = 0; i < k->n_containers; i++) {
		const struct kube_container *ct = &k->containers[i];
		enum kubefacts_run run;
		const char *ver;
		bool seen = false;

		if (!check_kube_live_daemon(k, ct))
			continue;
		run = check_kube_daemon_run(k, ct);
		if (run == KUBEFACTS_RUN_FAILED) {
			if (check_kube_daemon_failed(&s->a, ct, kubefacts_container(k, ct), &s->fail_remedy,
						     s->n_failed) < 0)
				return -ENOMEM;
			s->n_failed++;
			continue;
		}
		if (run == KUBEFACTS_RUN_STARTING)
			s->n_starting++;
		if (run != KUBEFACTS_RUN_RUNNING)
			continue;
		s->n_running++;
		ver = kubefacts_version_of(k, ct);
		if (!ver[0]) {
			s->n_unknown++;
			continue;
		}
		for (size_t j = 0; j < p->n_daemons && !seen; j++)
			seen = strcmp(p->daemons[j], ver) == 0;
		if (seen)
			continue;
		p->daemons[p->n_daemons] = strdup(ver);
		if (!p->daemons[p->n_daemons])
			return -ENOMEM;
		p->n_daemons++;
	}
	if (p->n_daemons > 1)
		qsort(p->daemons, p->n_daemons, sizeof(*p->daemons), check_kube_strcmp_version);
	return 0;
}

/* The one installer release, and the daemon it pairs with; why not when there is none. */
static void check_kube_pair_expected(struct check_kube_pair *s)
{
	struct profile *p = s->p;
	enum releases_fabric fabric = s->fabric;

	if (s->n_inst > 1) {
		finding_acc_add(&s->a, CHECK_WARN, fabric == RELEASES_FABRIC_TCPX ?
			       "let the nccl-tcpx-installer DaemonSet finish its rollout on this node" :
			       "let the nccl-tcpxo-installer DaemonSet finish its rollout on this node",
			       "installer pods disagree: %s", s->installers.s);
		s->installer = NULL;
	} else if (s->n_inst == 0) {
		finding_acc_add(&s->a, CHECK_WARN, fabric == RELEASES_FABRIC_TCPX ?
			       "check that the nccl-tcpx-installer DaemonSet runs on this node" :
			       "check that the nccl-tcpxo-installer DaemonSet runs on this node",
			       s->installer_unknown_digest ?
			       "installer version unknown: its image digest is not in the release table (%s)" :
			       "installer version unknown: no %s pod on this node (a DaemonSet pod labelled k8s-app=%s "
			       "whose init container %s runs nccl-plugin-gpudirecttcpx-dev)",
			       s->installer_unknown_digest ? s->t->source : check_kube_installer_name(fabric),
			       check_kube_installer_name(fabric), check_kube_installer_name(fabric));
	} else if (strlen(s->installer) >= sizeof(p->installer)) {
		finding_acc_add(&s->a, CHECK_WARN, NULL, "installer tag '%.40s...' is longer than %zu characters: not a release",
			       s->installer, sizeof(p->installer) - 1);
		s->installer = NULL;
	} else {
		const struct releases_row *row = releases_find_installer(s->t, fabric, s->installer);

		snprintf(p->installer, sizeof(p->installer), "%s", s->installer);
		s->expected = row ? row->daemon : NULL;
		if (s->expected)
			snprintf(p->expected_daemon, sizeof(p->expected_daemon), "%s", s->expected);
		if (row && row->unverified)
			finding_acc_add(&s->a, CHECK_WARN, "confirm the pair in Google's release notes, or pass --releases "
				       "FILE with a row for this installer",
				       "%s installer %s <-> daemon %s is an unverified row of the release table (%s): %s",
				       check_kube_fabric_upper(fabric), row->installer, row->daemon, s->t->source,
				       row->source ? row->source : "no source");
		if (!s->expected)
			finding_acc_add(&s->a, CHECK_WARN, "pass --releases FILE with a row for this installer",
				       "%s installer %s is not in the release table (%s): the daemon it pairs with is unknown",
				       check_kube_fabric_upper(fabric), s->installer, s->t->source);
	}
}

/* Every running daemon release that does not pair with the installer's, and the pods to fix in the remedy. */
static void check_kube_pair_mismatch(struct check_kube_pair *s)
{
	const struct obs_kube *k = s->k;
	const char *expected = s->expected;

	for (size_t i = 0; i < s->p->n_daemons; i++)
		if (!imageref_version_equal(s->p->daemons[i], expected))
			finding_acc_add(&s->a, CHECK_FAIL, NULL, "daemon %s does not pair with installer %s (expects %s)",
				       s->p->daemons[i], s->installer, expected);
	for (size_t i = 0; i < k->n_containers && s->a.status == CHECK_FAIL; i++) {
		const struct kube_container *ct = &k->containers[i];
		const char *ver;

		if (!check_kube_live_daemon(k, ct) || check_kube_daemon_run(k, ct) != KUBEFACTS_RUN_RUNNING)
			continue;
		ver = kubefacts_version_of(k, ct);
		if (!ver[0] || imageref_version_equal(ver, expected))
			continue;
		if (s->n_bad_pods < 3)
			strbuf_appendf(&s->remedy, "%s%s/%s", s->n_bad_pods ? ", " : "", ct->ns, ct->pod);
		s->n_bad_pods++;
	}
	if (s->n_bad_pods) {
		if (s->n_bad_pods > 3)
			strbuf_appendf(&s->remedy, " and %zu more", s->n_bad_pods - 3);
		strbuf_appendf(&s->remedy, ": run tcpgpudmarxd-dev:%s as the %s container "
			       "(upgrade the installer first, then the daemon)", expected, check_kube_daemon_name(s->fabric));
	}
}

/* The remedy of the failures, and the warnings about daemons of unknown version. Return: 0, -ENOMEM. */
static int check_kube_pair_remedy(struct check_kube_pair *s)
{
	unsigned procs = s->k->host_daemon_processes;

	if (s->n_failed) {
		/* A daemon that does not run is why a workload fails now: its remedy comes first. */
		if (s->remedy.len)
			strbuf_appendf(&s->fail_remedy, "; %s", s->remedy.s);
		if (s->fail_remedy.oom)
			return -ENOMEM;
		free(s->a.remedy);
		s->a.remedy = NULL;
		if (s->fail_remedy.s && !(s->a.remedy = strdup(s->fail_remedy.s)))
			return -ENOMEM;
	} else if (s->n_bad_pods) {
		if (s->remedy.oom)
			return -ENOMEM;
		free(s->a.remedy);
		s->a.remedy = NULL;
		if (s->remedy.s && !(s->a.remedy = strdup(s->remedy.s)))
			return -ENOMEM;
	}
	if (s->n_unknown)
		finding_acc_add(&s->a, CHECK_WARN, "use tagged daemon images, or a --releases file with their digests",
			       "%zu running daemon%s of unknown version (digest not in the release table)",
			       s->n_unknown, s->n_unknown == 1 ? "" : "s");
	if (procs > s->n_running)
		finding_acc_add(&s->a, CHECK_WARN, "find the process with: ps -e -o pid,comm | grep fastrak_gpumem_",
			       "%u daemon process%s in /proc, but %zu running daemon container%s in this node's pods: "
			       "version unknown", procs, procs == 1 ? "" : "es", s->n_running, s->n_running == 1 ? "" : "s");
	return 0;
}

/*
 * The pods that could not be read and cannot run the installer or the daemon (no image of theirs
 * under the spec, or the pod has ended), named: the versions stand; a warning.
 */
static void check_kube_pair_aside(struct check_kube_pair *s)
{
	const struct obs_kube *k = s->k;
	size_t named = k->n_aside < KUBE_ASIDE_NAMED ? k->n_aside : KUBE_ASIDE_NAMED, shown = 0, others = k->n_aside;

	for (size_t i = 0; i < named; i++) {
		const struct kube_pod_aside *a = &k->aside[i];

		if (a->ours)
			others--;       /* named by check_kube_pair_unknown() */
		if (a->ours || shown++ >= 3)
			continue;
		if (a->name[0])
			finding_acc_add(&s->a, CHECK_WARN, "see why the API server holds such a pod: kubectl get pod -o json",
				       "pod %s/%s could not be read (%s): set aside, it runs neither the installer nor the daemon",
				       a->ns, a->name, a->why);
		else
			finding_acc_add(&s->a, CHECK_WARN, "see why the API server holds such a pod: kubectl get pod -o json",
				       "pod items[%zu] could not be read (%s): set aside, it runs neither the installer nor "
				       "the daemon", a->item, a->why);
	}
	if (others > shown)
		finding_acc_add(&s->a, CHECK_WARN, NULL, "%zu more pods could not be read: set aside", others - shown);
}

/*
 * A pod that could not be read and may run the installer or the daemon (one of their images under
 * a spec that has not ended): its version is unknown, so a verdict that does not fail on what was
 * read cannot vouch for it: @c becomes "unknown" (skip), naming the pod, what was read kept after
 * it. A failure stands (what was read is evidence enough). The node is judged and published
 * either way. Return: 0; -ENOMEM.
 */
static int check_kube_pair_unknown(const struct obs_kube *k, struct finding *c)
{
	const struct kube_pod_aside *a = obs_kube_aside_ours(k);
	char item[32], *was;
	int r;

	if (!a || c->status == CHECK_FAIL)
		return 0;
	snprintf(item, sizeof(item), "items[%zu]", a->item);
	was = c->message ? strdup(c->message) : NULL;
	if (c->message && !was)
		return -ENOMEM;
	r = finding_set(c, CHECK_SKIP, "see why the API server holds such a pod: kubectl get pod -o json",
		      "unknown: pod %s%s%s could not be read (%s), and it may run the installer or the daemon: its "
		      "version is unknown%s%s", a->name[0] ? a->ns : "", a->name[0] ? "/" : "", a->name[0] ? a->name : item,
		      a->why, was && *was ? "; " : "", was ? was : "");
	free(was);
	return r;
}

int check_version_pair(const struct observation *o, struct profile *p, struct finding *c)
{
	struct check_kube_pair s = {
		.k = &o->kube, .t = kubefacts_releases(&o->kube), .p = p,
		.fabric = p->kind == PROFILE_TCPX ? RELEASES_FABRIC_TCPX : RELEASES_FABRIC_TCPXO,
	};
	char pass[256];
	int r;

	check_kube_free_daemons(p);
	p->installer[0] = '\0';
	p->expected_daemon[0] = '\0';
	r = check_kube_need(s.k, &s.k->pods_fetch, c, "installer and daemon versions", "pods");
	if (r)
		return r < 0 ? r : 0;

	check_kube_pair_installers(&s);
	r = check_kube_pair_daemons(&s);
	if (r == 0) {
		check_kube_pair_expected(&s);
		if (s.expected)
			check_kube_pair_mismatch(&s);
		r = check_kube_pair_remedy(&s);
		check_kube_pair_aside(&s);
	}
	if (r < 0) {
		check_kube_free_daemons(p);
	} else if (s.n_running == 0 && s.a.status < CHECK_WARN) {
		r = finding_set(c, CHECK_SKIP, NULL, "no daemon running: workloads must run daemon %s with installer %s%s",
			      s.expected ? s.expected : "?", s.installer ? s.installer : "?",
			      s.n_starting ? " (a daemon container is starting)" : "");
	} else {
		if (s.expected && p->n_daemons)
			snprintf(pass, sizeof(pass), "installer %s and daemon %s pair (%zu running)", s.installer,
				 s.expected, s.n_running);
		else
			snprintf(pass, sizeof(pass), "installer %s", s.installer ? s.installer : "unknown");
		r = check_kube_finish(&s.a, c, pass);
	}
	if (r >= 0)
		r = check_kube_pair_unknown(s.k, c);
	finding_acc_free(&s.a);
	strbuf_free(&s.installers);
	strbuf_free(&s.remedy);
	strbuf_free(&s.fail_remedy);
	return r;
}
