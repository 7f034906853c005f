/*
 * attach_rdma.c - the workload findings on an RDMA node (A3 Ultra, A4: GPUDirect-RDMA with gIB).
 * A pod is attached when it takes every GPU, reaches the RDMA NICs (multi-network: binds
 * rdma-0..rdma-7 in networking.gke.io/interfaces; DRANET: holds a ResourceClaim), mounts the gIB
 * folder and makes NCCL use it (NCCL_NET=gIB, or sources set_nccl_env.sh), and carries no TCPX(O)
 * daemon. Shapes: container-engine-accelerators gpudirect-rdma/nccl-test.yaml and
 * nccl-test-managed-rdma.yaml (docs/rdma-sources.md). No daemon, aperture or IPC_LOCK finding applies.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/model/json.h"
#include "report/checks/attach_rdma.h"

#define RDMA_NETS 8
#define RDMA_GIB_HOST "/home/kubernetes/bin/gib"
#define RDMA_ENV_SCRIPT "set_nccl_env.sh"
#define RDMA_HINT "; or, in a TrainJob, reference runtimeRef torch-distributed-rdma"

/* Which of rdma-0..rdma-7 the pod's networking.gke.io/interfaces binds (bit k), and to which names. */
static unsigned attach_rdma_bound(const struct pod *p, bool *ret_unreadable)
{
	struct json *list;
	unsigned bits = 0;

	*ret_unreadable = attach_ifaces_list(p, &list) < 0;
	for (const struct json *e = json_first(list); e; e = json_next(e)) {
		const char *net = json_get_string(e, "network");
		char *end;
		long k;

		if (!net || strncmp(net, "rdma-", 5) != 0 || !net[5])
			continue;
		k = strtol(net + 5, &end, 10);
		if (!*end && k >= 0 && k < RDMA_NETS && net[5] != '-' && net[5] != '+')
			bits |= 1u << k;
	}
	json_free(list);
	return bits;
}

bool attach_rdma_wired(const struct pod *p, const struct attach_node *n)
{
	bool unreadable;
	unsigned bits = attach_rdma_bound(p, &unreadable);

	return n->dranet ? p->n_claims > 0 : unreadable || bits;
}

int attach_rdma_interfaces(const struct attach_pod *w, struct finding *f)
{
	const struct pod *p = w->p;
	bool unreadable;
	unsigned bits = attach_rdma_bound(p, &unreadable);
	size_t bound = (size_t)__builtin_popcount(bits);
	char missing[96] = "";
	static const char remedy[] =
		"bind eth2..eth9 to rdma-0..rdma-7 in the pod annotation " ATTACH_IFACES_KEY " (with eth0 to default and "
		"networking.gke.io/default-interface: eth0), as Google's gpudirect-rdma/nccl-test.yaml does" RDMA_HINT;

	if (w->n->dranet) {
		if (p->n_claims) {
			char q[96];

			return finding_set(f, CHECK_PASS, NULL, "DRANET: holds %zu ResourceClaim%s (%s%s) for the RDMA NICs "
					   "(the claims' DeviceClass mrdma.google.com and count are not read)", p->n_claims,
					   p->n_claims == 1 ? "" : "s", attach_quote(p->claims[0].name ? p->claims[0].name : "",
										q, sizeof(q)), p->n_claims > 1 ? ", ..." : "");
		}
		return finding_set(f, CHECK_FAIL,
				   "add a ResourceClaim (template) of DeviceClass mrdma.google.com for all 8 RDMA NICs to the "
				   "pod's spec.resourceClaims and the GPU container's resources.claims, as Google's "
				   "gpudirect-rdma/nccl-test-managed-rdma.yaml does" RDMA_HINT,
				   "holds no ResourceClaim on a DRANET node: no RDMA NIC reaches the pod, NCCL runs over TCP on eth0");
	}
	if (unreadable)
		return finding_set(f, CHECK_FAIL, "write " ATTACH_IFACES_KEY " as a JSON list of {interfaceName, network}",
				   ATTACH_IFACES_KEY " is not a readable JSON list");
	if (bound == RDMA_NETS)
		return finding_set(f, CHECK_PASS, NULL, "binds the 8 RDMA Networks rdma-0..rdma-7 (" ATTACH_IFACES_KEY ")");
	for (unsigned k = 0, at = 0; k < RDMA_NETS; k++)
		if (!(bits >> k & 1) && at < sizeof(missing) - 16)
			at += (unsigned)snprintf(missing + at, sizeof(missing) - at, "%srdma-%u", at ? ", " : "", k);
	if (bound)
		return finding_set(f, CHECK_FAIL, remedy, "binds %zu of the 8 RDMA Networks (not %s): NCCL uses only the "
				   "NICs it sees", bound, missing);
	return finding_set(f, CHECK_FAIL, remedy, "binds none of the RDMA Networks rdma-0..rdma-7: no RDMA NIC reaches "
			   "the pod, NCCL runs over TCP on eth0");
}

static void attach_rdma_gib_one(const struct attach_pod *w, const struct pod_container *c, const char *q,
				const char *remedy, struct finding_acc *gib)
{
	(void)remedy;   /* each message has its own */
	if (!obs_pod_mount_of_host(w->p, c, RDMA_GIB_HOST))
		finding_acc_add(gib, CHECK_FAIL,
				"mount hostPath " RDMA_GIB_HOST " at /usr/local/gib (and " ATTACH_NVIDIA_HOST " at "
				"/usr/local/nvidia) in each GPU container" RDMA_HINT,
				"container %s does not mount hostPath " RDMA_GIB_HOST ": NCCL cannot load gIB", q);
}

static void attach_rdma_env_one(const struct attach_pod *w, const struct pod_container *c, const char *q,
				const char *remedy, struct finding_acc *env)
{
	bool set = false;
	const char *net = obs_pod_env(c, "NCCL_NET", &set);
	char qv[96];

	(void)w, (void)remedy;  /* each message has its own remedy */
	if (set && net && strcmp(net, "gIB") != 0)
		finding_acc_add(env, CHECK_FAIL, "set NCCL_NET=gIB, or source /usr/local/gib/scripts/" RDMA_ENV_SCRIPT
				" instead of setting NCCL_NET" RDMA_HINT,
				"container %s sets NCCL_NET=%s: NCCL does not use gIB", q, attach_quote(net, qv, sizeof(qv)));
	else if (!(set && net) && !attach_argv_mentions(c, RDMA_ENV_SCRIPT))     /* Google's test pods' scripts source it */
		finding_acc_add(env, CHECK_FAIL, "source /usr/local/gib/scripts/" RDMA_ENV_SCRIPT " before the NCCL "
				"program (it sets NCCL_NET=gIB and gIB's tuning), as Google's test pods do" RDMA_HINT,
				"container %s neither sets NCCL_NET=gIB nor sources " RDMA_ENV_SCRIPT, q);
}

int attach_rdma_gib(const struct attach_pod *w, struct finding *f)
{
	return attach_gpu_finding(w, f, attach_rdma_gib_one, NULL, "every GPU container mounts " RDMA_GIB_HOST);
}

int attach_rdma_env(const struct attach_pod *w, struct finding *f)
{
	return attach_gpu_finding(w, f, attach_rdma_env_one, NULL,
				  "every GPU container uses gIB (NCCL_NET=gIB or " RDMA_ENV_SCRIPT ")");
}

/* A TCPX(O) daemon container has nothing to serve on an RDMA node. */
int attach_rdma_no_daemon(const struct attach_pod *w, struct finding *f)
{
	const struct pod *p = w->p;

	for (size_t i = 0; i < p->n_containers; i++) {
		enum profile_kind fab = PROFILE_NONE;
		char q[96];

		if (!attach_is_daemon(&p->containers[i], &fab))
			continue;
		attach_quote(p->containers[i].name, q, sizeof(q));
		return finding_set(f, CHECK_FAIL,
				   "remove the TCPX/TCPXO daemon container and its wiring: RDMA nodes use gIB over the RDMA NICs",
				   "container %s runs a %s daemon on an RDMA node", q,
				   fab == PROFILE_NONE ? "TCPX/TCPXO" : profile_fabric_name(fab));
	}
	return finding_set(f, CHECK_SKIP, NULL, "no RxDM daemon on RDMA nodes");
}

int attach_rdma_all_gpus(const struct attach_pod *w, struct finding *f)
{
	if (w->gpus >= w->node_gpus)
		return finding_set(f, CHECK_PASS, NULL, "requests %lld of the node's %u GPUs", w->gpus, w->node_gpus);
	return finding_set(f, CHECK_FAIL,
			   "request nvidia.com/gpu: 8 (resources.limits of the GPU container): an RDMA node's NICs are "
			   "not shared between pods" RDMA_HINT,
			   "requests %lld of the node's %u GPUs: RDMA needs all GPUs and all 8 RDMA NICs", w->gpus,
			   w->node_gpus);
}
