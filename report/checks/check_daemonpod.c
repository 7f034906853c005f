/* check_daemonpod.c - daemon-pod: the wiring of every daemon pod on the node, and the NRI device injector they need. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/checks/attach_daemon.h"
#include "report/checks/attach_node.h"
#include "report/checks/checks.h"

#define CHECK_DAEMONPOD_SHOWN 3         /* pods named in a pass message; the rest are counted */

/*
 * A daemon container's own wiring (mounts, capabilities, device annotation) is its workload's
 * spec: a fault there fails that pod (the workloads report and its Event say so) and is a
 * warning here, for one bad pod must not mark a healthy node not ready. The NRI device injector
 * is the node's own: without it no unprivileged daemon on the node gets its devices, a failure.
 */
static int check_daemonpod_one(const struct pod *pod, const struct pod_container *c, const struct attach_node *n,
			       struct finding_acc *node_acc)
{
	struct finding_acc a = { 0 };
	struct finding f = { 0 };
	char q[96], qn[300];
	int r;

	attach_daemon_mounts(pod, c, n, &a);
	attach_device_annotation(pod, c, n, &a);
	r = finding_acc_finish(&a, &f, "wired");
	if (r < 0)
		return r;
	if (f.status >= CHECK_WARN)
		finding_acc_add(node_acc, CHECK_WARN, f.remedy, "pod %s/%s container %s: %s", pod->ns ? pod->ns : "",
			       attach_quote(pod->name, qn, sizeof(qn)), attach_quote(c->name, q, sizeof(q)), f.message);
	free(f.message);
	free(f.remedy);
	return 0;
}

int check_daemon_pod(const struct observation *o, struct profile *p, struct finding *c)
{
	const struct obs_kube *k = o->kube;
	struct finding_acc acc = { 0 };
	struct finding f = { 0 };
	struct attach_node n;
	struct strbuf names = { 0 };
	const struct pod_container *needs_injector = NULL;
	size_t n_pods = 0;
	int r = 0;

	attach_node_build(o, p, &n);
	for (size_t i = 0; r == 0 && i < k->n_pods; i++) {
		const struct pod *pod = &k->pods[i];
		const struct pod_container *d;
		char q[96];

		if (!obs_pod_active(pod, false) || !obs_pod_on_node(pod, o->node, true) ||
		    !(d = attach_daemon_pick(pod, p->kind, NULL)))
			continue;
		if (n_pods++ < CHECK_DAEMONPOD_SHOWN)
			strbuf_appendf(&names, "%s%s/%s", names.len ? ", " : "", pod->ns ? pod->ns : "",
				       attach_quote(pod->name, q, sizeof(q)));
		if (!d->privileged && !needs_injector)
			needs_injector = d;
		r = check_daemonpod_one(pod, d, &n, &acc);
	}
	if (r < 0)
		goto out;
	if (n_pods > CHECK_DAEMONPOD_SHOWN)
		strbuf_appendf(&names, " and %zu more", n_pods - CHECK_DAEMONPOD_SHOWN);
	if (!n_pods) {
		r = finding_set(c, CHECK_SKIP, NULL, "no workload runs the daemon now");
		goto out;
	}
	if (needs_injector) {
		char q[96];

		attach_injector(&n, attach_quote(needs_injector->name, q, sizeof(q)), &acc);
	}
	r = finding_acc_finish(&acc, &f, "%zu daemon pod%s wired (host /sys, /proc/sys, NVIDIA libraries, capabilities, "
			      "devices%s): %s", n_pods, n_pods == 1 ? "" : "s",
			      needs_injector ? ", the NRI device injector running" : "", names.s ? names.s : "");
	if (r == 0)
		r = finding_set(c, f.status, f.remedy, "%s", f.message);
out:
	free(f.message);
	free(f.remedy);
	strbuf_free(&names);
	strbuf_free(&acc.msg);
	free(acc.remedy);
	return r;
}
