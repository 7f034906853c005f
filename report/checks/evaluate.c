/* evaluate.c - pure evaluation: observation -> profile rows, checks in fixed order, verdict. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/model/strbuf.h"
#include "report/checks/checks.h"
#include "report/checks/evaluate.h"
#include "report/checks/pairing.h"

#define EVALUATE_GPUS_EXPECTED 8

/* What a check needs read before it can judge anything; unmet, evaluate_check() skips it. */
enum evaluate_need {
	NEED_PCI = 1u << 0,     /* the PCI bus */
	NEED_NODE = 1u << 1,    /* the Node, from the API */
	NEED_PODS = 1u << 2,    /* the pods, from the API */
};

#define NO_HW "no TCPX/TCPXO hardware"

/*
 * The node checks, one row each, in their fixed report order (DESIGN.md): the id's name, its
 * function, what it needs read (@what names what the API read gives it, in the skip message; on
 * RDMA nodes @what_rdma when set), and the skip message on each profile it does not judge.
 */
static const struct evaluate_check {
	const char *name;
	check_fn fn;
	unsigned needs;
	const char *what, *what_rdma;
	const char *off[PROFILE_RDMA + 1];
} evaluate_checks[CHECK__COUNT] = {
	[CHECK_MACHINE_TYPE] = { "machine-type", check_machine_type, NEED_NODE, "machine type" },
	[CHECK_GPUS] = { "gpus", check_gpus },
	[CHECK_GPU_NICS] = { "gpu-nics", check_gpu_nics, NEED_PCI },
	[CHECK_PAIRING] = { "pairing", check_pairing, .off = { [PROFILE_NONE] = NO_HW " profile to pair" } },
	[CHECK_LINKS] = { "links", check_links, .off = { [PROFILE_NONE] = NO_HW " profile" } },
	[CHECK_NETWORKS] = { "networks", check_networks, NEED_NODE, "network mapping", "network mode" },
	[CHECK_APERTURE_DEVICES] = { "aperture-devices", check_aperture_devices, .off = {
		[PROFILE_NONE] = NO_HW, [PROFILE_TCPX] = "no LLCM devices on TCPX nodes",
		[PROFILE_RDMA] = "no LLCM devices on RDMA nodes" } },
	[CHECK_DEVICE_NODES] = { "device-nodes", check_device_nodes, .off = { [PROFILE_NONE] = NO_HW } },
	[CHECK_NVIDIA_HOST_PATH] = { "nvidia-host-path", check_nvidia_host_path, .off = { [PROFILE_NONE] = NO_HW } },
	[CHECK_PLUGIN_FILES] = { "plugin-files", check_plugin_files, .off = { [PROFILE_NONE] = NO_HW } },
	[CHECK_VERSION_PAIR] = { "version-pair", check_version_pair, NEED_PODS, "installer and daemon versions", .off = {
		[PROFILE_RDMA] = "no RxDM daemon on RDMA nodes: no installer/daemon version pair" } },
	[CHECK_DAEMON_ARGS] = { "daemon-args", check_daemon_args, .off = {
		[PROFILE_NONE] = NO_HW, [PROFILE_RDMA] = "no RxDM daemon on RDMA nodes" } },
	[CHECK_DAEMON_POD] = { "daemon-pod", check_daemon_pod, NEED_PODS, "daemon pods", .off = {
		[PROFILE_NONE] = NO_HW, [PROFILE_RDMA] = "no RxDM daemon pods on RDMA nodes" } },
};

const char *check_id_name(enum check_id id)
{
	return (unsigned)id < CHECK__COUNT ? evaluate_checks[id].name : "unknown";
}

/* Skip @c when the API read @f (of @object) that gives @what did not happen or failed. Return 1 when it did. */
static int evaluate_need_api(const struct obs_kube *k, const struct kube_fetch *f, struct finding *c,
			     const char *what, const char *object)
{
	if (!k->configured || f->state == KUBE_FETCH_NOT_RUN)
		return finding_set(c, CHECK_SKIP, NULL, "no API access: %s not read", what) ?: 1;
	if (f->state != KUBE_FETCH_OK)
		return finding_set(c, CHECK_SKIP, NULL, "%s not read from the API (%s): %s not read", object,
				   f->message[0] ? f->message : "failed", what) ?: 1;
	return 0;
}

int evaluate_check(enum check_id id, const struct observation *o, struct profile *p, struct finding *c)
{
	const struct evaluate_check *e = &evaluate_checks[id];
	const char *what = p->kind == PROFILE_RDMA && e->what_rdma ? e->what_rdma : e->what;
	int r = 0;

	if ((unsigned)p->kind <= PROFILE_RDMA && e->off[p->kind])
		return finding_set(c, CHECK_SKIP, NULL, "%s", e->off[p->kind]);
	if (e->needs & NEED_PCI && o->pci.status.state != PROBE_OK)
		return finding_set(c, CHECK_SKIP, NULL, "PCI bus not read");
	if (e->needs & NEED_NODE)
		r = evaluate_need_api(o->kube, &o->kube->node_fetch, c, what, "node");
	if (r == 0 && e->needs & NEED_PODS)
		r = evaluate_need_api(o->kube, &o->kube->pods_fetch, c, what, "pods");
	return r ? (r < 0 ? r : 0) : e->fn(o, p, c);
}

/*
 * The primary NIC is the gVNIC outside every GPU switch that carries the default route; without
 * route information, the one named eth0; failing that, the lowest BDF outside the switches.
 */
static int evaluate_primary_nic(const struct observation *o, const struct pairing *pr)
{
	int by_route = -1, by_name = -1, first = -1;

	for (size_t i = 0; i < o->pci.n; i++) {
		const struct obs_pci_func *f = &o->pci.v[i];
		const struct obs_link *l;

		if (f->kind != PCI_KIND_GVNIC || pr->sw_of[i] >= 0)
			continue;
		if (first < 0)
			first = (int)i;
		l = observation_link_find(o, f->netdev);
		if (l && l->default_route && by_route < 0)
			by_route = (int)i;
		if (strcmp(f->netdev, "eth0") == 0 && by_name < 0)
			by_name = (int)i;
	}
	return by_route >= 0 ? by_route : by_name >= 0 ? by_name : first;
}

static enum nic_state evaluate_nic_state(const struct obs_pci_func *f, const struct obs_link *l)
{
	if (!*f->driver)
		return NIC_STATE_MISSING;
	if (!l)
		return NIC_STATE_IN_POD;
	return l->oper == LINK_OPER_UP ? NIC_STATE_UP : NIC_STATE_DOWN;
}

static void evaluate_nic_row(const struct observation *o, const struct obs_pci_func *f, int sw,
			     struct profile_nic *n)
{
	const struct obs_link *l = NULL;

	memcpy(n->bdf, f->bdf, sizeof(n->bdf));
	n->vendor = f->vendor;
	n->device = f->device;
	n->numa = f->numa;
	n->sw = sw;
	n->rdma = -1;
	for (size_t i = 0; f->kind == PCI_KIND_RDMA_NIC && i < o->host.rdma.n; i++)
		if (strcmp(o->host.rdma.v[i].bdf, f->bdf) == 0) {
			n->rdma = (int)i;
			break;
		}
	if (*f->netdev)
		l = observation_link_find(o, f->netdev);
	/* Only a name the kernel confirms in this namespace is used; an in-pod NIC's name comes from the API. */
	if (l)
		memcpy(n->name, l->name, sizeof(n->name));
	n->state = o->links.status.state == PROBE_OK ? evaluate_nic_state(f, l) : NIC_STATE_UNKNOWN;
	if (!*f->driver)
		n->state = NIC_STATE_MISSING;
	if (l) {
		n->mtu = l->mtu;
		memcpy(n->mac, l->mac, sizeof(n->mac));
		if (l->n_ipv4)
			obs_ipv4_format(l->ipv4[0], l->ipv4_prefix[0], n->ipv4, sizeof(n->ipv4));
	}
}

static enum profile_kind evaluate_kind(const struct observation *o, const struct profile *p, bool rdma)
{
	size_t llcm = 0, in_sw = 0;

	if (o->pci.status.state != PROBE_OK || p->n_gpus == 0)
		return PROFILE_NONE;
	if (rdma)
		return PROFILE_RDMA;
	for (size_t i = 0; i < o->pci.n; i++)
		if (o->pci.v[i].kind == PCI_KIND_LLCM)
			llcm++;
	for (size_t i = 0; i < p->n_nics; i++)
		if (p->nics[i].sw >= 0)
			in_sw++;
	/* LLCM functions are what TCPXO adds; TCPX shares one GPU NIC between two GPUs. */
	if (llcm > 0)
		return PROFILE_TCPXO;
	if (in_sw > 0 && in_sw * 2 == p->n_gpus)
		return PROFILE_TCPX;
	return PROFILE_NONE;
}

static int evaluate_rows(const struct observation *o, struct profile *p)
{
	struct pairing pr = { 0 };
	size_t n_rdma = 0, n_llcm = 0;
	bool rdma;
	int primary, r;

	r = pairing_compute(&o->pci, &pr);
	if (r < 0)
		return r;
	primary = evaluate_primary_nic(o, &pr);
	r = -ENOMEM;
	p->gpus = calloc(o->pci.n ? o->pci.n : 1, sizeof(*p->gpus));
	p->nics = calloc(o->pci.n ? o->pci.n : 1, sizeof(*p->nics));
	p->switches = calloc(pr.n_sw ? pr.n_sw : 1, sizeof(*p->switches));
	if (!p->gpus || !p->nics || !p->switches)
		goto out;
	for (size_t i = 0; i < pr.n_sw; i++)
		memcpy(p->switches[i], pr.sw[i].bdf, sizeof(p->switches[i]));
	/*
	 * An RDMA node: the machine type says so, else the host shows mlx5 RDMA NICs and no LLCM
	 * function (LLCM is TCPXO's). Its GPU NICs are the mlx5 functions; its gVNICs are host NICs.
	 */
	for (size_t i = 0; i < o->pci.n; i++) {
		n_rdma += o->pci.v[i].kind == PCI_KIND_RDMA_NIC;
		n_llcm += o->pci.v[i].kind == PCI_KIND_LLCM;
	}
	/* A GPUDirect-RDMA machine type (the machine-type check's table), or RDMA NICs without LLCM. */
	rdma = check_machine_profile(o->kube->instance_type) == PROFILE_RDMA || (n_rdma && !n_llcm);
	p->n_switches = pr.n_sw;
	for (size_t i = 0; i < o->pci.n; i++) {
		const struct obs_pci_func *f = &o->pci.v[i];

		if (f->kind == PCI_KIND_GPU) {
			struct profile_gpu *g = &p->gpus[p->n_gpus++];

			memcpy(g->bdf, f->bdf, sizeof(g->bdf));
			g->vendor = f->vendor;
			g->device = f->device;
			g->numa = f->numa;
			g->nic = -1;
			g->sw = pr.sw_of[i];
		} else if (rdma ? f->kind == PCI_KIND_RDMA_NIC : f->kind == PCI_KIND_GVNIC && (int)i != primary) {
			evaluate_nic_row(o, f, pr.sw_of[i], &p->nics[p->n_nics++]);
		}
	}
	/* Link each GPU to its NIC row, and each NIC row to its GPUs (both lists in BDF order). */
	for (size_t i = 0, g = 0; i < o->pci.n; i++) {
		const struct profile_nic *n;

		if (o->pci.v[i].kind != PCI_KIND_GPU)
			continue;
		if (pr.nic_of[i] >= 0 && (n = profile_nic_by_bdf(p, o->pci.v[pr.nic_of[i]].bdf))) {
			struct profile_nic *nic = &p->nics[n - p->nics];

			p->gpus[g].nic = (int)(n - p->nics);
			if (nic->n_gpus < PROFILE_MAX_GPUS_PER_NIC)
				nic->gpus[nic->n_gpus++] = (int)g;
			p->n_paired++;
		}
		g++;
	}
	p->kind = evaluate_kind(o, p, rdma);
	r = 0;
out:
	pairing_free(&pr);
	return r;
}

/* The first line: ready, not ready, or unknown when the PCI bus or the links could not be read (--once exits 2). */
static int evaluate_summary(const struct observation *o, struct profile *p)
{
	bool unknown = o->pci.status.state == PROBE_FAILED || o->links.status.state == PROBE_FAILED;
	const struct finding *first_fail = NULL;
	size_t warn = 0, skip = 0;
	struct strbuf sb = { 0 };

	for (size_t i = 0; i < CHECK__COUNT; i++) {
		const struct finding *c = &p->checks[i];

		if (c->status == CHECK_FAIL && !first_fail)
			first_fail = c;
		warn += c->status == CHECK_WARN;
		skip += c->status == CHECK_SKIP;
	}
	if (p->ready) {
		strbuf_append(&sb, "tcpxo: ready (");
		if (p->kind != PROFILE_TCPXO)
			strbuf_appendf(&sb, "profile %s, ", profile_kind_name(p->kind));
		strbuf_appendf(&sb, "%zu/%zu GPUs paired, %d checks", p->n_paired, p->n_gpus, CHECK__COUNT);
		if (warn)
			strbuf_appendf(&sb, ", %zu warn", warn);
		if (skip)
			strbuf_appendf(&sb, ", %zu skipped", skip);
		strbuf_append(&sb, ")");
	} else if (first_fail) {
		strbuf_appendf(&sb, "tcpxo: %s: %s: %s", unknown ? "unknown" : "not ready", check_id_name((enum check_id)(first_fail - p->checks)),
			       first_fail->message);
	} else {
		/* Unreachable by construction (profile none always fails gpus or gpu-nics); say so if not. */
		strbuf_appendf(&sb, "tcpxo: %s: profile %s", unknown ? "unknown" : "not ready", profile_kind_name(p->kind));
	}
	p->summary = strbuf_take(&sb);
	return p->summary ? 0 : -ENOMEM;
}

int profile_evaluate(const struct observation *o, struct profile *ret)
{
	struct profile p = { 0 };
	bool failed = false;
	int r;

	r = evaluate_rows(o, &p);
	if (r < 0)
		goto fail;
	r = check_kube_enrich(o, &p);
	if (r < 0)
		goto fail;
	for (size_t i = 0; i < CHECK__COUNT; i++) {
		struct finding *c = &p.checks[i];

		r = evaluate_check((enum check_id)i, o, &p, c);
		if (r < 0)
			goto fail;
		if (!c->message && finding_set(c, CHECK_SKIP, NULL, "not evaluated") < 0) {
			r = -ENOMEM;
			goto fail;
		}
		failed |= c->status == CHECK_FAIL;
	}
	p.ready = p.kind != PROFILE_NONE && !failed;
	r = evaluate_summary(o, &p);
	if (r < 0)
		goto fail;
	*ret = p;
	return 0;
fail:
	profile_free(&p);
	return r;
}
