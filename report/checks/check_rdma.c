/*
 * check_rdma.c - profile rdma's rows of the node checks (A3 Ultra, A4: GPUDirect-RDMA over RoCE
 * with the gIB plugin): its GPUs, its mlx5 GPU NICs, GKE's gpu<N>rdma0 names, the RDMA ports,
 * and the gIB files. The topology, links, host and API checks call these for PROFILE_RDMA.
 * Facts and sources: docs/rdma-sources.md.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/model/strbuf.h"
#include "report/checks/checks.h"
#include "report/checks/kubefacts.h"

#define RDMA_GPUS 8
#define RDMA_NICS 8
#define RDMA_LIST_MAX 8                 /* parts named in one message before "and N more" */
#define RDMA_PORT_ACTIVE 4              /* ib_port_state IB_PORT_ACTIVE */
#define RDMA_PHYS_LINKUP 5              /* phys_state "LinkUp" */
#define RDMA_GIB "/home/kubernetes/bin/gib"
#define RDMA_DRA_DRIVER "dra.net"           /* GKE managed DRANET's DRA driver name */

static const char *const rdma_remedy_machine =
	"run the agent on an a3-ultragpu-8g or a4-highgpu-8g node (8 x H200 or B200, 8 mlx5 RDMA NICs); "
	"check --root points at the host";
static const char *const rdma_remedy_installer =
	"deploy GKE's nccl-rdma-installer DaemonSet (kube-system; container-engine-accelerators "
	"gpudirect-rdma/nccl-rdma-installer.yaml) and check that its pod on this node finished its init container";

int check_rdma_gpus(const struct observation *o, struct profile *p, struct finding *c)
{
	uint16_t id = p->n_gpus ? p->gpus[0].device : 0;
	const char *model = id == 0x2335 ? "H200" : id == 0x2901 ? "B200" : NULL;     /* an RDMA node's GPU */
	size_t same = 0;

	(void)o;
	for (size_t i = 0; i < p->n_gpus; i++)
		same += p->gpus[i].device == p->gpus[0].device;
	if (p->n_gpus == 0)
		return finding_set(c, CHECK_FAIL, rdma_remedy_machine,
				   "no NVIDIA H200 (10de:2335) or B200 (10de:2901) GPU on the PCI bus");
	if (same != p->n_gpus || !model)
		return finding_set(c, CHECK_FAIL, rdma_remedy_machine,
				   "GPUs of another kind beside the RDMA NICs: an RDMA node has 8 H200 (10de:2335) or "
				   "8 B200 (10de:2901) GPUs");
	if (p->n_gpus == RDMA_GPUS)
		return finding_set(c, CHECK_PASS, NULL, "8 NVIDIA %s GPUs (10de:%04x)", model, p->gpus[0].device);
	return finding_set(c, CHECK_FAIL,
			   "a GPU has fallen off the bus or the node is not an 8-GPU shape: check `nvidia-smi` and the node's events",
			   "found %zu NVIDIA %s GPUs (10de:%04x), expected %d", p->n_gpus, model, p->gpus[0].device,
			   RDMA_GPUS);
}

int check_rdma_nics(const struct observation *o, struct profile *p, struct finding *c)
{
	const struct obs_rdma *rd = &o->host.rdma;
	struct strbuf sb = { 0 };
	size_t bad = 0, driver = 0, no_dev = 0;
	char q[OBS_DRIVER_MAX * 4 + 8];

	if (rd->status.state == PROBE_FAILED)
		return finding_set(c, CHECK_FAIL, "mount the host's /sys into the agent (read-only)",
				   "cannot read the RDMA devices: %s", rd->status.message);
	if (p->n_nics != RDMA_NICS)
		strbuf_appendf(&sb, "found %zu GPU NICs (mlx5 RDMA NICs 15b3:101e or 15b3:1021), expected %d", p->n_nics,
			       RDMA_NICS);
	for (size_t i = 0; i < p->n_nics; i++) {
		const struct profile_nic *n = &p->nics[i];
		const struct obs_pci_func *f = observation_pci_find(o, n->bdf);
		struct strbuf label = { 0 };
		int r = 0;

		profile_nic_label(n, &label);
		if (label.oom) {
			strbuf_free(&sb);
			return -ENOMEM;
		}
		if (n->state == NIC_STATE_MISSING || !f || !*f->driver) {
			finding_list_add(&sb, &bad, RDMA_LIST_MAX, "; ", "%s is not bound to a driver", label.s);
			r = profile_mark(p, CHECK_GPU_NICS, MARK_NIC, i, NULL, NULL, "not bound to a driver");
			driver++;
		} else if (strcmp(f->driver, "mlx5_core") != 0) {
			obs_host_quote(f->driver, q, sizeof(q));
			finding_list_add(&sb, &bad, RDMA_LIST_MAX, "; ", "%s is bound to %s, expected mlx5_core", label.s, q);
			r = profile_mark(p, CHECK_GPU_NICS, MARK_NIC, i, q, NULL, "driver ");
			driver++;
		} else if (n->rdma < 0) {
			finding_list_add(&sb, &bad, RDMA_LIST_MAX, "; ", "%s has no RDMA device in /sys/class/infiniband",
					 label.s);
			r = profile_mark(p, CHECK_GPU_NICS, MARK_NIC, i, NULL, NULL, "no RDMA device");
			no_dev++;
		}
		strbuf_free(&label);
		if (r < 0) {
			strbuf_free(&sb);
			return -ENOMEM;
		}
	}
	if (bad > RDMA_LIST_MAX)
		strbuf_appendf(&sb, " (and %zu more)", bad - RDMA_LIST_MAX);
	if (sb.len)
		return finding_set_built(c, CHECK_FAIL,
				 driver ? "load mlx5_core (modprobe mlx5_core) or bind the function to it; check dmesg for mlx5 errors"
				 : no_dev ? "load the mlx5 RDMA driver (mlx5_ib) and check `rdma link`: each RDMA NIC needs its RDMA device"
				 : "check the node pool's RDMA networks: an A3 Ultra / A4 node needs 8 RDMA NICs",
				 &sb);
	strbuf_free(&sb);
	return finding_set(c, CHECK_PASS, NULL, "%d GPU NICs (mlx5 %04x:%04x, mlx5_core), each with an RDMA device",
			   RDMA_NICS, p->nics[0].vendor, p->nics[0].device);
}

size_t check_rdma_names(struct profile *p, struct strbuf *sb, int *ret)
{
	size_t wrong = 0;

	*ret = 0;
	for (size_t g = 0; g < p->n_gpus; g++) {
		const struct profile_nic *n;
		char want[32];

		if (p->gpus[g].nic < 0)
			continue;
		n = &p->nics[p->gpus[g].nic];
		snprintf(want, sizeof(want), "gpu%zurdma0", g);
		/* An unknown name (the netdev in a pod, no API) is not judged. */
		if (!*n->name || strcmp(n->name, want) == 0)
			continue;
		finding_list_add(sb, &wrong, RDMA_LIST_MAX, "; ", "GPU %zu (%s) is paired with %s, which GKE names %s, "
				 "expected %s", g, p->gpus[g].bdf, n->bdf, n->name, want);
		if (profile_mark(p, CHECK_PAIRING, MARK_NIC, (size_t)p->gpus[g].nic, NULL, NULL, "expected name %s",
				 want) < 0) {
			*ret = -ENOMEM;
			return wrong;
		}
	}
	return wrong;
}

/* One finding about an RDMA port into @w, ", "-separated. */
static void rdma_what(struct strbuf *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void rdma_what(struct strbuf *w, const char *fmt, ...)
{
	va_list ap;

	strbuf_append(w, w->len ? ", " : "");
	va_start(ap, fmt);
	strbuf_vappendf(w, fmt, ap);
	va_end(ap);
}

/* @n's RDMA port findings into @sb and its row; whether anything is wrong. Return via *@ret: 0 or -ENOMEM. */
static bool rdma_port(struct profile *p, size_t i, const struct obs_rdma_dev *d, struct strbuf *sb, int *ret)
{
	const struct profile_nic *n = &p->nics[i];
	char q[OBS_RDMA_NAME_MAX * 4 + 8], gid[INET_ADDRSTRLEN] = "";
	struct strbuf what = { 0 };

	obs_host_quote(d->name, q, sizeof(q));
	if (!d->port) {
		rdma_what(&what, "has no port 1");
	} else {
		if (d->state != RDMA_PORT_ACTIVE)
			rdma_what(&what, "is %s, expected ACTIVE", d->state < 0 ? "unreadable" : d->state_text);
		if (d->phys_state != RDMA_PHYS_LINKUP)
			rdma_what(&what, "physical state %s, expected LinkUp", d->phys_state < 0 ? "unreadable" : d->phys_text);
		if (strcmp(d->link_layer, "Ethernet") != 0)
			rdma_what(&what, "link layer %s, expected Ethernet (RoCE)", *d->link_layer ? d->link_layer : "unreadable");
		if (!d->roce_v2) {
			rdma_what(&what, "no RoCE v2 GID");
		} else if (d->roce_v2_ipv4 && *n->ipv4) {
			size_t l = strcspn(n->ipv4, "/");

			inet_ntop(AF_INET, &d->gid_ipv4, gid, sizeof(gid));
			if (strlen(gid) != l || strncmp(gid, n->ipv4, l) != 0)
				rdma_what(&what, "RoCE v2 GID for %s, not %.*s", gid, (int)l, n->ipv4);
		}
	}
	*ret = what.oom ? -ENOMEM : 0;
	if (!what.len || what.oom) {
		strbuf_free(&what);
		return false;
	}
	strbuf_appendf(sb, "%s%s port 1 (%s) %s", sb->len ? "; " : "", q, *n->name ? n->name : n->bdf, what.s);
	*ret = profile_mark(p, CHECK_LINKS, MARK_NIC, i, q, NULL, "RDMA port: %s", what.s);
	strbuf_free(&what);
	return true;
}

size_t check_rdma_ports(const struct observation *o, struct profile *p, struct strbuf *sb, size_t *ret_ok, int *ret)
{
	size_t bad = 0;

	*ret = 0;
	*ret_ok = 0;
	for (size_t i = 0; i < p->n_nics; i++) {
		const struct profile_nic *n = &p->nics[i];

		if (n->rdma < 0 || (size_t)n->rdma >= o->host.rdma.n)
			continue;       /* no RDMA device: the gpu-nics check names it */
		if (rdma_port(p, i, &o->host.rdma.v[n->rdma], sb, ret))
			bad++;
		else
			(*ret_ok)++;
		if (*ret < 0)
			return bad;
	}
	return bad;
}

/* gIB's lib64 files that are not regular files in gib/lib64 or not copied to nvidia/lib64, into @l. */
static void rdma_gib_libs(const struct obs_gib *g, struct strbuf *sb, size_t *bad, struct strbuf *found)
{
	char q[OBS_GIB_NAME_MAX * 4 + 8];

	for (size_t i = 0; i < g->n_libs; i++) {
		const struct obs_gib_lib *l = &g->libs[i];

		obs_host_quote(l->name, q, sizeof(q));
		if (l->type != OBS_FILE_REGULAR)
			finding_list_add(sb, bad, RDMA_LIST_MAX, "; ", RDMA_GIB "/lib64/%s is %s", q,
					 obs_file_type_name(l->type));
		else if (l->in_nvidia != OBS_FILE_REGULAR)
			finding_list_add(sb, bad, RDMA_LIST_MAX, "; ",
					 "/home/kubernetes/bin/nvidia/lib64/%s is %s (the installer copies gib/lib64 there)",
					 q, obs_file_type_name(l->in_nvidia));
		else
			strbuf_appendf(found, "%s%s", found->len ? ", " : "", q);
	}
}

int check_rdma_gib(const struct observation *o, struct profile *p, struct finding *c)
{
	const struct obs_gib *g = &o->host.gib;
	struct strbuf sb = { 0 }, found = { 0 };
	size_t bad = 0;
	int r;

	(void)p;
	if (g->status.state == PROBE_NOT_RUN)
		return finding_set(c, CHECK_SKIP, NULL, RDMA_GIB " not observed");
	if (g->status.state == PROBE_FAILED)
		return finding_set(c, CHECK_FAIL, rdma_remedy_installer, "cannot read %s", g->status.message);
	if (g->dir != OBS_FILE_DIR)
		return finding_set(c, CHECK_FAIL, rdma_remedy_installer, RDMA_GIB " is %s: the gIB plugin is not installed",
				   obs_file_type_name(g->dir));
	if (g->env_script != OBS_FILE_REGULAR)
		finding_list_add(&sb, &bad, RDMA_LIST_MAX, "; ", RDMA_GIB "/scripts/set_nccl_env.sh is %s",
				 obs_file_type_name(g->env_script));
	if (g->lib64_dir != OBS_FILE_DIR)
		finding_list_add(&sb, &bad, RDMA_LIST_MAX, "; ", RDMA_GIB "/lib64 is %s", obs_file_type_name(g->lib64_dir));
	else if (!g->n_libs)
		finding_list_add(&sb, &bad, RDMA_LIST_MAX, "; ", RDMA_GIB "/lib64 is empty");
	rdma_gib_libs(g, &sb, &bad, &found);
	if (bad > RDMA_LIST_MAX)
		strbuf_appendf(&sb, " (and %zu more)", bad - RDMA_LIST_MAX);
	if (found.oom) {
		strbuf_free(&found);
		strbuf_free(&sb);
		return -ENOMEM;
	}
	if (sb.len) {
		strbuf_free(&found);
		return finding_set_built(c, CHECK_FAIL, rdma_remedy_installer, &sb);
	}
	strbuf_free(&sb);
	r = finding_set(c, CHECK_PASS, NULL,
			"gIB installed: " RDMA_GIB " holds scripts/set_nccl_env.sh and %zu lib64 file%s%s, each also in "
			"/home/kubernetes/bin/nvidia/lib64 (%s)", g->n_libs, g->n_libs == 1 ? "" : "s",
			g->n_dropped ? " (more not listed)" : "", found.s ? found.s : "");
	strbuf_free(&found);
	return r;
}

/* A slice of the DRANET driver's pool for this node (dranet: pool = node name, nodeName set). */
static bool rdma_slice_ours(const struct obs_kube *k, const struct kube_slice *sl)
{
	return strcmp(sl->driver, RDMA_DRA_DRIVER) == 0 && strcmp(sl->node, k->node_name) == 0 &&
	       strcmp(sl->pool, k->node_name) == 0;
}

/* The newest generation of this node's dra.net pool: a consumer ignores the others (resource.k8s.io types). */
static long long rdma_slices_newest(const struct obs_kube *k)
{
	long long newest = 0;

	for (size_t i = 0; i < k->n_slices; i++)
		if (rdma_slice_ours(k, &k->slices[i]) && k->slices[i].generation > newest)
			newest = k->slices[i].generation;
	return newest;
}

/* A device of a dra.net slice of this node, of generation @newest, that publishes host NIC @n as an RDMA device, or NULL. */
static const struct kube_slice_device *rdma_slice_device(const struct obs_kube *k, long long newest,
							 const struct profile_nic *n)
{
	for (size_t i = 0; i < k->n_slices; i++) {
		const struct kube_slice *sl = &k->slices[i];

		if (!rdma_slice_ours(k, sl) || sl->generation != newest)
			continue;
		for (size_t j = 0; j < sl->n_devices; j++) {
			const struct kube_slice_device *d = &sl->devices[j];

			if (d->rdma && ((n->name[0] && strcmp(d->ifname, n->name) == 0) ||
					(n->bdf[0] && strcmp(d->bdf, n->bdf) == 0)))
				return d;
		}
	}
	return NULL;
}

/*
 * DRANET mode: the GKE managed DRANET driver (networking-dra-driver, driver name dra.net) publishes
 * this node's NICs in ResourceSlices (pool = the node's name), RDMA NICs with dra.net/rdma true and
 * dra.net/ifName gpuNrdma0; allocated devices stay published. Each of the host's RDMA NICs must be
 * among them, by interface name or PCI address (docs/rdma-sources.md).
 */
static int check_rdma_slices(const struct obs_kube *k, const struct profile *p, struct finding *c)
{
	const struct kube_fetch *f = &k->slices_fetch;
	struct strbuf sb = { 0 };
	size_t missing = 0;
	char why[KUBE_MSG_MAX + 3];
	long long newest;

	if (f->state == KUBE_FETCH_NOT_RUN)
		return finding_set(c, CHECK_SKIP, NULL, "DRANET mode (node label " OBS_KUBE_DRANET_LABEL
				   "): the node's ResourceSlices not read");
	if (f->state == KUBE_FETCH_FORBIDDEN)
		return finding_set(c, CHECK_WARN,
				   "grant the agent's ClusterRole list on resourceslices in API group resource.k8s.io "
				   "(manifests/)",
				   "DRANET mode: the node's ResourceSlices cannot be read: listing them is forbidden (RBAC)%s",
				   kubefacts_fetch_why(f, why, sizeof(why)));
	if (f->state == KUBE_FETCH_FAILED && f->http_status == 404)
		return finding_set(c, CHECK_WARN, "GKE managed DRANET needs resource.k8s.io/v1 (GKE 1.34.1-gke.1829001 or later)",
				   "DRANET mode: the node's ResourceSlices cannot be read: the API server does not "
				   "serve resource.k8s.io/v1 resourceslices");
	if (f->state != KUBE_FETCH_OK)
		return finding_set(c, CHECK_WARN, NULL, "DRANET mode: the node's ResourceSlices cannot be read%s",
				   kubefacts_fetch_why(f, why, sizeof(why)));
	newest = rdma_slices_newest(k);
	for (size_t i = 0; i < p->n_nics; i++) {
		const struct profile_nic *n = &p->nics[i];

		if (!rdma_slice_device(k, newest, n) && missing++ < RDMA_LIST_MAX)
			strbuf_appendf(&sb, "%s%s", missing > 1 ? ", " : "", n->name[0] ? n->name : n->bdf);
	}
	if (sb.oom) {
		strbuf_free(&sb);
		return -ENOMEM;
	}
	if (missing) {
		struct strbuf msg = { 0 };

		strbuf_appendf(&msg, "DRANET mode: the node's ResourceSlices (driver " RDMA_DRA_DRIVER ") do not publish "
			       "%zu of its %zu RDMA NICs as RDMA devices: %s%s", missing, p->n_nics, sb.s,
			       missing > RDMA_LIST_MAX ? " (and more)" : "");
		strbuf_free(&sb);
		return finding_set_built(c, CHECK_FAIL, "check the GKE managed DRANET driver pod on this node (DaemonSet "
					 "networking-dra-driver, namespace gke-managed-networking-dra-driver): it publishes "
					 "the node's RDMA NICs in its ResourceSlice", &msg);
	}
	strbuf_free(&sb);
	if (!p->n_nics)
		return finding_set(c, CHECK_SKIP, NULL, "DRANET mode: no RDMA NIC on the host to look for in the "
				   "node's ResourceSlices");
	return finding_set(c, CHECK_PASS, NULL,
			   "DRANET mode (node label " OBS_KUBE_DRANET_LABEL "): the node's ResourceSlices (driver "
			   RDMA_DRA_DRIVER ") publish its %zu RDMA NICs as RDMA devices; pods claim them with "
			   "ResourceClaims of DeviceClass mrdma.google.com, no interfaces mapping is published", p->n_nics);
}

/*
 * The networks row of profile rdma: which of the two modes GKE wires the node in (they cannot be
 * mixed), and in multi-network mode the Networks rdma-0..rdma-7 (Device, Ready, ParamsReady, a
 * GKENetworkParamSet) that pods bind as eth2..eth9 (Google's test pods and Cluster Toolkit's names).
 * The pod-side mapping eth2..eth9 -> rdma-0..rdma-7 is published then; under DRANET nothing is.
 */
int check_rdma_networks(const struct observation *o, struct profile *p, struct finding *c)
{
	static const char remedy[] =
		"each RDMA NIC needs a Ready Device-type Network rdma-0..rdma-7 with a GKENetworkParamSet (deviceMode RDMA): "
		"kubectl describe network rdma-N";
	const struct obs_kube *k = o->kube;
	struct finding_acc a = { 0 };
	size_t missing = 0;
	char why[KUBE_MSG_MAX + 3];

	if (k->dranet) {
		p->mode = "dranet";
		return check_rdma_slices(k, p, c);
	}
	p->mode = "multi-network";
	if (k->networks_fetch.state == KUBE_FETCH_NOT_RUN)
		return finding_set(c, CHECK_SKIP, NULL, "multi-network mode: Network objects not read");
	if (k->networks_fetch.state != KUBE_FETCH_OK)
		return finding_set(c, CHECK_SKIP, NULL, "multi-network mode: Network objects not readable%s",
				   kubefacts_fetch_why(&k->networks_fetch, why, sizeof(why)));
	for (size_t i = 0; i < RDMA_NICS; i++) {
		char name[16];
		const struct kube_network *net;

		snprintf(name, sizeof(name), "rdma-%zu", i);
		net = obs_kube_network(k, name);
		if (!net) {
			missing++;
			continue;
		}
		if (strcmp(net->type, "Device") != 0)
			finding_acc_add(&a, CHECK_FAIL, remedy, "Network %s is of type %s, not Device", name,
					net->type[0] ? net->type : "(none: L3)");
		else if (!net->ready || !net->params_ready)
			finding_acc_add(&a, CHECK_FAIL, remedy, "Network %s is not %s", name, !net->ready ? "Ready" : "ParamsReady");
		else if (!net->has_params_ref)
			finding_acc_add(&a, CHECK_FAIL, remedy, "Network %s has no parametersRef (GKENetworkParamSet)", name);
	}
	if (missing == RDMA_NICS) {
		finding_acc_free(&a);
		return finding_set(c, CHECK_WARN,
				   "create the RDMA Networks as GKE's guide does (rdma-0..rdma-7), or check that the node "
				   "pool's additional networks carry those names",
				   "multi-network mode, but no Network rdma-0..rdma-7 exists: the agent knows only Google's "
				   "names for the RDMA networks, so the mapping is not published");
	}
	if (missing)
		finding_acc_add(&a, CHECK_FAIL, remedy, "%zu of the Networks rdma-0..rdma-7 do not exist", missing);
	if (a.status != CHECK_FAIL) {
		p->ifaces = calloc(RDMA_NICS, sizeof(*p->ifaces));
		if (!p->ifaces) {
			finding_acc_free(&a);
			return -ENOMEM;
		}
		for (size_t i = 0; i < RDMA_NICS; i++) {
			snprintf(p->ifaces[i].name, sizeof(p->ifaces[i].name), "eth%zu", i + 2);
			snprintf(p->ifaces[i].network, sizeof(p->ifaces[i].network), "rdma-%zu", i);
		}
		p->n_ifaces = RDMA_NICS;
	}
	return finding_acc_finish(&a, c, "multi-network mode: Networks rdma-0..rdma-7 are Ready Device Networks; "
				  "pods bind them as eth2..eth9 (networking.gke.io/interfaces)");
}
