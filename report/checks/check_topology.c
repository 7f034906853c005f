/* check_topology.c - the gpus, gpu-nics, pairing and links checks (pure). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "probes/model/strbuf.h"
#include "report/checks/checks.h"

#define TOPOLOGY_GPUS 8
#define TOPOLOGY_LIST_MAX 8     /* items named in one message before "and N more" */

static const char *const remedy_machine =
	"run tcpxo-agent on an a3-megagpu-8g node (8 x H100, 8 GPU NICs); check --root points at the host";
static const char *const remedy_displaced =
	"re-create the node pool without a gVNIC additional network: an extra gVNIC took a GPU NIC's PCIe slot, "
	"so the TCPXO daemon cannot pair every GPU";

static const char *const remedy_rdma_displaced =
	"an RDMA NIC sits outside its GPUs' PCIe switch, so NCCL (NCCL_NET_GDR_LEVEL=PIX) loses GPUDirect for "
	"those GPUs: check the VM's PCIe topology (lspci -tv, nvidia-smi topo -m) and re-create the node";

static const char *const remedy_rdma_down =
	"bring the interface up and check the RDMA NIC and its RoCE network (`ip link`, `rdma link`, dmesg for mlx5 "
	"errors, the node pool's RDMA networks)";
static const char *const remedy_rdma_flapping =
	"the link goes down and up again and again: check the RDMA NIC and its RoCE network (`ip -s link`, "
	"`rdma link`, dmesg for mlx5 errors, the VM's maintenance events); the agent reports it ready once it "
	"has been stable";

static unsigned topology_expected_nics(enum profile_kind k)
{
	switch (k) {
	case PROFILE_TCPXO: return 8;
	case PROFILE_TCPX: return 4;
	case PROFILE_RDMA: return 8;
	case PROFILE_NONE: return 0;
	}
	return 0;
}

int check_gpus(const struct observation *o, struct profile *p, struct finding *c)
{
	size_t other = 0;

	if (o->pci.status.state != PROBE_OK)
		return finding_set(c, CHECK_FAIL, "check that --root holds the host's sys/ (read-only mount of /sys)",
				 "could not read the PCI bus: %s", o->pci.status.message);
	if (p->kind == PROFILE_RDMA)
		return check_rdma_gpus(o, p, c);
	for (size_t i = 0; i < o->pci.n; i++)
		other += o->pci.v[i].kind == PCI_KIND_OTHER_GPU;
	if (p->n_gpus == TOPOLOGY_GPUS)
		return finding_set(c, CHECK_PASS, NULL, "8 NVIDIA H100 GPUs (10de:2330)");
	if (p->n_gpus == 0 && other)
		return finding_set(c, CHECK_FAIL, remedy_machine,
				 "no NVIDIA H100 GPU (10de:2330) on the PCI bus; %zu other NVIDIA GPU(s) found", other);
	if (p->n_gpus == 0)
		return finding_set(c, CHECK_FAIL, remedy_machine, "no NVIDIA H100 GPU (10de:2330) on the PCI bus");
	return finding_set(c, CHECK_FAIL,
			 "a GPU has fallen off the bus or the node is not an 8-GPU shape: check `nvidia-smi` and the node's events",
			 "found %zu NVIDIA H100 GPUs (10de:2330), expected %d", p->n_gpus, TOPOLOGY_GPUS);
}

int check_gpu_nics(const struct observation *o, struct profile *p, struct finding *c)
{
	unsigned want = topology_expected_nics(p->kind);
	struct strbuf sb = { 0 };
	size_t unbound = 0;

	for (size_t i = 0; i < p->n_nics; i++)
		if (p->nics[i].state == NIC_STATE_MISSING &&
		    profile_mark(p, CHECK_GPU_NICS, MARK_NIC, i, NULL, NULL, "not bound to a driver") < 0)
			return -ENOMEM;
	if (p->n_gpus == 0)
		return finding_set(c, CHECK_SKIP, NULL, "no H100 GPUs: not a TCPX/TCPXO node");
	if (p->kind == PROFILE_RDMA)
		return check_rdma_nics(o, p, c);
	if (p->kind == PROFILE_NONE) {
		size_t in_sw = 0;

		for (size_t i = 0; i < p->n_nics; i++)
			in_sw += p->nics[i].sw >= 0;
		return finding_set(c, CHECK_FAIL, remedy_machine,
				 "%zu H100 GPUs with %zu GPU NICs in their PCIe switches and no LLCM (1ae0:0084) functions: "
				 "neither the TCPXO shape (8 GPU NICs 1:1 + LLCM devices) nor TCPX (4 GPU NICs, 2 GPUs each)",
				 p->n_gpus, in_sw);
	}
	for (size_t i = 0; i < p->n_nics; i++)
		unbound += p->nics[i].state == NIC_STATE_MISSING;
	if (p->n_nics == want && !unbound)
		return finding_set(c, CHECK_PASS, NULL, "%u GPU NICs (gVNIC 1ae0:0042) besides the primary NIC", want);
	if (p->n_nics != want) {
		size_t outside = 0;

		strbuf_appendf(&sb, "found %zu GPU NICs (gVNIC 1ae0:0042 besides the primary NIC), expected %u",
			       p->n_nics, want);
		/* Name the likely culprit: a gVNIC outside every GPU switch (see pairing). */
		for (size_t i = 0; i < p->n_nics; i++) {
			if (p->nics[i].sw >= 0)
				continue;
			strbuf_append(&sb, outside++ ? ", " : "; outside every GPU PCIe switch: ");
			profile_nic_label(&p->nics[i], &sb);
		}
	}
	if (unbound) {
		size_t named = 0;

		strbuf_appendf(&sb, "%snot bound to a driver: ", sb.len ? "; " : "");
		for (size_t i = 0; i < p->n_nics; i++) {
			if (p->nics[i].state != NIC_STATE_MISSING)
				continue;
			if (named++ < TOPOLOGY_LIST_MAX) {
				strbuf_append(&sb, named > 1 ? ", " : "");
				profile_nic_label(&p->nics[i], &sb);
			}
		}
		if (named > TOPOLOGY_LIST_MAX)
			strbuf_appendf(&sb, " and %zu more", named - TOPOLOGY_LIST_MAX);
	}
	return finding_set_built(c, CHECK_FAIL,
			     unbound ? "load the gve driver (modprobe gve) or bind the function to it; check dmesg for gve errors"
				     : "check the node pool's additional networks: an A3 Mega node needs 8 GPU NIC networks",
			     &sb);
}

int check_pairing(const struct observation *o, struct profile *p, struct finding *c)
{
	unsigned per = p->kind == PROFILE_TCPX ? 2 : 1;
	struct strbuf sb = { 0 };
	size_t outside = 0, unpaired = 0, wrong = 0;

	for (size_t i = 0; i < p->n_gpus; i++)
		if (p->gpus[i].nic < 0 &&
		    profile_mark(p, CHECK_PAIRING, MARK_GPU, i, NULL, NULL, "%s",
				 p->gpus[i].sw >= 0 ? "no GPU NIC in its switch" : "in no PCIe switch") < 0)
			return -ENOMEM;
	for (size_t i = 0; i < p->n_nics; i++) {
		const struct profile_nic *n = &p->nics[i];

		if (n->sw >= 0 && n->n_gpus != per &&
		    profile_mark(p, CHECK_PAIRING, MARK_NIC, i, NULL, NULL, "serves %zu GPU%s, expected %u",
				 n->n_gpus, n->n_gpus == 1 ? "" : "s", per) < 0)
			return -ENOMEM;
		if (n->sw >= 0)
			continue;
		if (profile_mark(p, CHECK_PAIRING, MARK_NIC, i, NULL, NULL, "outside every GPU PCIe switch") < 0)
			return -ENOMEM;
		strbuf_append(&sb, outside++ ? "; " : "");
		strbuf_append(&sb, "GPU NIC ");
		profile_nic_label(n, &sb);
		strbuf_append(&sb, " sits outside every GPU PCIe switch");
	}
	for (size_t i = 0; i < p->n_gpus; i++) {
		if (p->gpus[i].nic < 0)
			finding_list_add(&sb, &unpaired, TOPOLOGY_LIST_MAX, "; ", "GPU %s has no GPU NIC in its PCIe switch",
					 p->gpus[i].bdf);
	}
	if (unpaired > TOPOLOGY_LIST_MAX)
		strbuf_appendf(&sb, " (and %zu more GPUs)", unpaired - TOPOLOGY_LIST_MAX);
	if (p->kind == PROFILE_RDMA) {
		int r;

		wrong += check_rdma_names(p, &sb, &r);
		if (r < 0) {
			strbuf_free(&sb);
			return r;
		}
	}
	for (size_t i = 0; i < p->n_nics; i++) {
		const struct profile_nic *n = &p->nics[i];

		if (n->sw < 0 || n->n_gpus == per)
			continue;
		if (wrong++ < TOPOLOGY_LIST_MAX) {
			strbuf_append(&sb, sb.len ? "; " : "");
			profile_nic_label(n, &sb);
			strbuf_appendf(&sb, " serves %zu GPUs, expected %u", n->n_gpus, per);
		}
	}
	if (outside || unpaired || wrong)
		return finding_set_built(c, CHECK_FAIL,
				     outside && p->kind == PROFILE_RDMA ? remedy_rdma_displaced
				     : outside ? remedy_displaced
					     : "check the node's PCIe topology (lspci -tv): each GPU needs a GPU NIC under its switch",
				     &sb);
	strbuf_free(&sb);
	if (p->kind == PROFILE_RDMA)
		return finding_set(c, CHECK_PASS, NULL, "%zu/%zu GPUs paired 1:1 with an RDMA NIC under the same PCIe switch "
				   "(GPU N with gpuNrdma0: the k-th GPU with the k-th NIC of its switch)", p->n_paired, p->n_gpus);
	return finding_set(c, CHECK_PASS, NULL, "%zu/%zu GPUs paired %s with a GPU NIC under the same PCIe switch",
			 p->n_paired, p->n_gpus, per == 1 ? "1:1" : "2:1");
}

/* What is wrong with one GPU NIC's link. */
struct topology_link {
	const struct obs_link_flap *flap;       /* held not ready by flap damping (never in a pod), else NULL */
	bool in_pod;            /* moved into a pod's network namespace: not judged from the host */
	bool judged;            /* its link is judged: held, down or up (not in a pod, unbound or unknown) */
	bool down;              /* down, and not held */
	char down_text[32];     /* when down: "admin down" or "oper STATE" */
	bool mtu;               /* judged, MTU not the profile's (profile_nic_mtu()) */
	bool no_ipv4;           /* judged, no IPv4 address */
};

/*
 * Judge GPU NIC @n's link in @o into *@ret. A NIC held by the daemon's flap damping is judged as
 * up whatever state this sample caught, so its findings do not alternate with each sample; a NIC
 * in a pod is not held. Return: whether anything is wrong.
 */
static bool topology_link(const struct observation *o, const struct profile_nic *n, unsigned mtu,
			  struct topology_link *ret)
{
	const struct obs_link_flap *flap = n->name[0] ? observation_flap_find(o, n->name) : NULL;
	const struct obs_link *l = n->name[0] ? observation_link_find(o, n->name) : NULL;
	enum nic_state st = n->state;

	*ret = (struct topology_link){ 0 };
	if (flap && st != NIC_STATE_IN_POD) {
		ret->flap = flap;
		st = NIC_STATE_UP;
	}
	switch (st) {
	case NIC_STATE_IN_POD:
		ret->in_pod = true;
		return false;
	case NIC_STATE_MISSING:         /* gpu-nics names it */
	case NIC_STATE_UNKNOWN:
		return false;
	case NIC_STATE_DOWN:
		ret->down = true;
		if (l && !l->admin_up)
			snprintf(ret->down_text, sizeof(ret->down_text), "admin down");
		else
			snprintf(ret->down_text, sizeof(ret->down_text), "oper %s",
				 link_oper_name(l ? l->oper : LINK_OPER_UNKNOWN));
		break;
	case NIC_STATE_UP:
		break;
	}
	ret->judged = true;
	ret->mtu = n->mtu != mtu;
	ret->no_ipv4 = !n->ipv4[0];
	return ret->flap || ret->down || ret->mtu || ret->no_ipv4;
}

/* NIC @i's link findings, on its row and in @sb. Return: 0 or -ENOMEM. */
static int topology_link_find(const struct observation *o, struct profile *p, size_t i, const struct topology_link *j,
			      struct strbuf *sb)
{
	const struct profile_nic *n = &p->nics[i];
	const char *label = *n->name ? n->name : n->bdf;
	int r = 0;

	/* A held NIC is named by its changes only, so the message does not alternate with each sample. */
	if (j->flap) {
		strbuf_appendf(sb, "%s%s is flapping: %u up/down change%s; held not ready until stable for %u s",
			       sb->len ? "; " : "", label, j->flap->changes, j->flap->changes == 1 ? "" : "s",
			       o->flaps.hold_s);
		r = profile_mark(p, CHECK_LINKS, MARK_NIC, i, NULL, NULL, "flapping: %u up/down change%s",
				 j->flap->changes, j->flap->changes == 1 ? "" : "s");
	}
	if (r == 0 && j->down) {
		strbuf_appendf(sb, "%s%s is down (%s)", sb->len ? "; " : "", label, j->down_text);
		r = profile_mark(p, CHECK_LINKS, MARK_NIC, i, NULL, NULL, "%s", j->down_text);
	}
	if (r == 0 && j->mtu) {
		strbuf_appendf(sb, "%s%s has MTU %u, expected %u", sb->len ? "; " : "", label, n->mtu,
			       profile_nic_mtu(p->kind));
		r = profile_mark(p, CHECK_LINKS, MARK_NIC, i, NULL, NULL, "MTU %u, expected %u", n->mtu,
				 profile_nic_mtu(p->kind));
	}
	if (r == 0 && j->no_ipv4) {
		strbuf_appendf(sb, "%s%s has no IPv4 address", sb->len ? "; " : "", label);
		r = profile_mark(p, CHECK_LINKS, MARK_NIC, i, NULL, NULL, "no IPv4 address");
	}
	return r;
}

int check_links(const struct observation *o, struct profile *p, struct finding *c)
{
	struct strbuf sb = { 0 };
	size_t up = 0, in_pod = 0, bad = 0, ports_bad = 0, ports_ok = 0;
	bool down = false, mtu = false, flapping = false;
	unsigned want_mtu = profile_nic_mtu(p->kind);

	for (size_t i = 0; i < p->n_nics; i++) {
		struct topology_link j;

		if (!topology_link(o, &p->nics[i], want_mtu, &j)) {
			in_pod += j.in_pod;
			up += j.judged;
			continue;
		}
		if (topology_link_find(o, p, i, &j, &sb) < 0) {
			strbuf_free(&sb);
			return -ENOMEM;
		}
		flapping |= j.flap != NULL;
		down |= j.down;
		mtu |= j.mtu;
		bad++;
	}
	if (p->kind == PROFILE_RDMA) {
		int r;

		ports_bad = check_rdma_ports(o, p, &sb, &ports_ok, &r);
		if (r < 0) {
			strbuf_free(&sb);
			return r;
		}
	}
	if (o->links.status.state != PROBE_OK) {
		strbuf_free(&sb);
		return finding_set(c, CHECK_FAIL, "run the agent in the host network namespace (hostNetwork: true)",
				 "could not read the network links: %s", o->links.status.message);
	}
	if (bad || ports_bad) {
		char mtu_remedy[128];
		const char *remedy;

		snprintf(mtu_remedy, sizeof(mtu_remedy),
			 "the GPU NIC networks must use MTU %u: fix the VPC's MTU and re-create the node pool", want_mtu);
		remedy = flapping && p->kind == PROFILE_RDMA ? remedy_rdma_flapping
		       : flapping ? "the link goes down and up again and again: check the GPU NIC's gVNIC "
				    "and its network (`ip -s link`, dmesg for gve resets, the VM's "
				    "maintenance events); the agent reports it ready once it has been stable"
		       : down && p->kind == PROFILE_RDMA ? remedy_rdma_down
		       : down ? "bring the interface up and check its network attachment (`ip link`, "
				"the node's gVNIC and the GPU NIC network)"
		       : mtu ? mtu_remedy
		       : bad ? "the GPU NIC has no address: check DHCP on the GPU NIC network (`ip addr`, journal of the guest agent)"
		       : "the RDMA port is not usable for RoCE v2: check `rdma link` and `ibv_devinfo` on the host, the NIC's "
			 "RoCE network and its address (GID index 3 carries the NIC's IPv4 as RoCE v2)";

		return finding_set_built(c, CHECK_FAIL, remedy, &sb);
	}
	strbuf_free(&sb);
	if (p->kind == PROFILE_RDMA && in_pod)
		return finding_set(c, CHECK_PASS, NULL, "%zu GPU NICs up with MTU %u and an IPv4 address, %zu in use by a pod "
				   "(not seen from the host); %zu RDMA ports ACTIVE, LinkUp, Ethernet, with a RoCE v2 GID",
				   up, want_mtu, in_pod, ports_ok);
	if (p->kind == PROFILE_RDMA)
		return finding_set(c, CHECK_PASS, NULL, "%zu GPU NICs up with MTU %u and an IPv4 address; %zu RDMA ports "
				   "ACTIVE, LinkUp, Ethernet, with a RoCE v2 GID", up, want_mtu, ports_ok);
	/* A NIC moved into a pod's namespace is not seen from the host: not counted as up, not a failure. */
	if (in_pod && !up)
		return finding_set(c, CHECK_PASS, NULL, "the %zu GPU NICs are all in use by a pod (moved into its network "
				 "namespace: not seen from the host)", in_pod);
	if (in_pod)
		return finding_set(c, CHECK_PASS, NULL,
				 "%zu GPU NICs up with MTU %d and an IPv4 address, and %zu more in use by a pod (moved into "
				 "its network namespace: not seen from the host)", up, PROFILE_GPU_NIC_MTU, in_pod);
	return finding_set(c, CHECK_PASS, NULL, "%zu GPU NICs up with MTU %d and an IPv4 address", up, PROFILE_GPU_NIC_MTU);
}
