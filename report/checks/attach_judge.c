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

static int attach_judge_all(struct attach_result *r, const char *why)
{
	for (size_t i = 0; i < ATTACH__COUNT; i++)
		if (finding_set(&r->findings[i], CHECK_SKIP, NULL, "%s", why) < 0)
			return -ENOMEM;
	return 0;
}

/* The findings that need the daemon container @c (NULL: none, each skips). */
static int attach_judge_daemon(const struct pod *p, const struct pod_container *c, const struct attach_node *n,
			       struct attach_result *r)
{
	struct finding_acc mounts = { 0 }, inject = { 0 };
	char remedy[700], q[96];
	int rc;

	if (!c) {
		static const enum attach_finding_id ids[] = { ATTACH_DAEMON_VERSION, ATTACH_DAEMON_ARGS,
							      ATTACH_DAEMON_MOUNTS, ATTACH_DEVICE_INJECTION };

		for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
			if (finding_set(&r->findings[ids[i]], CHECK_SKIP, NULL, "no daemon container") < 0)
				return -ENOMEM;
		return 0;
	}
	if ((rc = attach_daemon_version(c, n, &r->findings[ATTACH_DAEMON_VERSION])) < 0 ||
	    (rc = attach_daemon_args(c, n, &r->findings[ATTACH_DAEMON_ARGS])) < 0)
		return rc;
	attach_quote(c->name, q, sizeof(q));
	attach_daemon_mounts(p, c, n, &mounts);
	attach_worker_sockets(p, n, &mounts);
	attach_daemon_mounts_remedy(n, q, remedy, sizeof(remedy));
	if ((rc = finding_acc_finish(&mounts, &r->findings[ATTACH_DAEMON_MOUNTS], "container %s has its host mounts "
				    "and capabilities", q)) < 0)
		return rc;
	attach_device_injection(p, c, n, &inject);
	return finding_acc_finish(&inject, &r->findings[ATTACH_DEVICE_INJECTION], "the pod's %s%s annotation lists the "
				 "%zu devices and the NRI device injector runs", ATTACH_DEVICE_PREFIX, q, n->n_devices);
}

int attach_judge(const struct pod *p, const struct attach_node *n, struct attach_result *ret)
{
	struct attach_result r = { 0 };
	const struct pod_container *daemon, *other = NULL;
	unsigned node_gpus = n->gpus ? n->gpus : 8;
	char why[200];
	int rc;

	r.gpus = obs_pod_gpus(p);
	if (n->kind == PROFILE_RDMA) {
		rc = attach_rdma_judge(p, n, &r);
		goto out;
	}
	if (!attach_fabric_of(n->kind)) {
		r.verdict = ATTACH_NOT_FABRIC;
		rc = attach_judge_all(&r, "the node has no TCPX/TCPXO fabric");
		goto out;
	}
	daemon = attach_daemon_pick(p, n->kind, &other);
	r.wired = daemon || other || attach_interfaces_wired(p);
	if (!r.wired && r.gpus < node_gpus) {
		r.verdict = ATTACH_NOT_FABRIC;
		snprintf(why, sizeof(why), "not a fabric workload: %lld of the node's %u GPUs and no %s wiring", r.gpus,
			 node_gpus, profile_fabric_name(n->kind));
		rc = attach_judge_all(&r, why);
		goto out;
	}
	if ((rc = attach_all_gpus(r.gpus, n, &r.findings[ATTACH_ALL_GPUS])) < 0 ||
	    (rc = attach_daemon_sidecar(p, daemon, other, n, &r.findings[ATTACH_DAEMON_SIDECAR])) < 0 ||
	    (rc = attach_judge_daemon(p, daemon, n, &r)) < 0 ||
	    (rc = attach_interfaces(p, n, &r.findings[ATTACH_INTERFACES])) < 0 ||
	    (rc = attach_aperture(p, n, &r.findings[ATTACH_APERTURE])) < 0 ||
	    (rc = attach_plugin_path(p, n, &r.findings[ATTACH_PLUGIN_PATH])) < 0 ||
	    (rc = attach_nccl_env(p, n, &r.findings[ATTACH_NCCL_ENV])) < 0 ||
	    (rc = attach_ipc_lock(p, n, &r.findings[ATTACH_IPC_LOCK])) < 0)
		goto out;
	if (!r.wired) {
		r.verdict = ATTACH_UNATTACHED;
	} else {
		r.verdict = ATTACH_ATTACHED;
		for (size_t i = 0; i < ATTACH__COUNT; i++)
			if (r.findings[i].status == CHECK_FAIL)
				r.verdict = ATTACH_PARTIAL;
	}
out:
	if (rc < 0) {
		attach_result_free(&r);
		return rc;
	}
	*ret = r;
	return 0;
}
