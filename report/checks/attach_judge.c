/* attach_judge.c - the workload checker: wiring, the eleven findings, the verdict. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "report/checks/attach_daemon.h"
#include "report/checks/attach_judge.h"
#include "report/checks/attach_rdma.h"
#include "report/checks/attach_worker.h"

bool attach_pod_selected(const struct pod *p)
{
	return obs_pod_active(p, false) && obs_pod_gpus(p) >= 1;
}

/*
 * The pod findings, one row each in their fixed report order (DESIGN.md): the id's name, the
 * function that judges it on a TCPX/TCPXO node and on an RDMA node (NULL: "not used on RDMA
 * nodes"), and whether it needs the daemon container ("no daemon container" without one).
 */
static const struct attach_check {
	const char *name;
	attach_fn fn, rdma;
	bool daemon;
} attach_checks[ATTACH__COUNT] = {
	[ATTACH_ALL_GPUS] = { "all-gpus", attach_all_gpus, attach_rdma_all_gpus },
	[ATTACH_DAEMON_SIDECAR] = { "daemon-sidecar", attach_daemon_sidecar, attach_rdma_no_daemon },
	[ATTACH_DAEMON_VERSION] = { "daemon-version", attach_daemon_version, NULL, true },
	[ATTACH_DAEMON_ARGS] = { "daemon-args", attach_daemon_args, NULL, true },
	[ATTACH_DAEMON_MOUNTS] = { "daemon-mounts", attach_mounts, NULL, true },
	[ATTACH_DEVICE_INJECTION] = { "device-injection", attach_device_injection, NULL, true },
	[ATTACH_INTERFACES] = { "interfaces", attach_interfaces, attach_rdma_interfaces },
	[ATTACH_APERTURE] = { "aperture", attach_aperture },
	[ATTACH_PLUGIN_PATH] = { "plugin-path", attach_plugin_path, attach_rdma_gib },
	[ATTACH_NCCL_ENV] = { "nccl-env", attach_nccl_env, attach_rdma_env },
	[ATTACH_IPC_LOCK] = { "ipc-lock", attach_ipc_lock },
};

const char *attach_finding_name(enum attach_finding_id id)
{
	return (unsigned)id < ATTACH__COUNT ? attach_checks[id].name : "unknown";
}

int attach_judge(const struct pod *p, const struct attach_node *n, struct attach_result *ret)
{
	struct attach_result r = { 0 };
	struct attach_pod w = { .p = p, .n = n, .gpus = obs_pod_gpus(p), .node_gpus = n->gpus ? n->gpus : 8 };
	bool rdma = n->kind == PROFILE_RDMA, fabric = rdma || attach_fabric_of(n->kind), judged;
	char why[200] = "the node has no TCPX/TCPXO fabric";
	int rc = 0;

	r.gpus = w.gpus;
	if (rdma) {
		r.wired = attach_rdma_wired(p, n);
	} else if (fabric) {
		w.daemon = attach_daemon_pick(p, n->kind, &w.other);
		r.wired = w.daemon || w.other || attach_interfaces_wired(p);
	}
	judged = fabric && (r.wired || r.gpus >= w.node_gpus);
	if (fabric && !judged)
		snprintf(why, sizeof(why), "not a fabric workload: %lld of the node's %u GPUs and no %s wiring", r.gpus,
			 w.node_gpus, profile_fabric_name(n->kind));
	r.verdict = !judged ? ATTACH_NOT_FABRIC : r.wired ? ATTACH_ATTACHED : ATTACH_UNATTACHED;
	for (size_t i = 0; rc == 0 && i < ATTACH__COUNT; i++) {
		const struct attach_check *e = &attach_checks[i];
		attach_fn fn = rdma ? e->rdma : e->fn;
		struct finding *f = &r.findings[i];

		if (!judged)
			rc = finding_set(f, CHECK_SKIP, NULL, "%s", why);
		else if (!fn)
			rc = finding_set(f, CHECK_SKIP, NULL, "not used on RDMA nodes");
		else if (e->daemon && !w.daemon)
			rc = finding_set(f, CHECK_SKIP, NULL, "no daemon container");
		else
			rc = fn(&w, f);
		if (r.verdict == ATTACH_ATTACHED && f->status == CHECK_FAIL)
			r.verdict = ATTACH_PARTIAL;
	}
	if (rc < 0) {
		attach_result_free(&r);
		return rc;
	}
	*ret = r;
	return 0;
}
