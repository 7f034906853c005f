/* cmd_workloads.c - `tcpxo-agent workloads`: every GPU pod on this node judged against the node's fabric. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/cli.h"
#include "agent/cmd.h"
#include "agent/nodeview.h"
#include "agent/observe.h"
#include "agent/podsread.h"
#include "agent/publish.h"
#include "report/checks/evaluate.h"
#include "report/checks/workloads.h"

/*
 * GPU pods bound to the node, yet --root shows no GPU and no API was read: the tree is not the node's
 * (a laptop, a forgotten --root), and judging the pods against it would call them all not-fabric.
 * Not judged, said on stderr too; the exit is then unknown.
 */
static void workloads_need_facts(const struct cli_options *opt, struct nodeview *v)
{
	if (v->pb.http || !v->w.judged || !v->w.n || v->p.n_gpus)
		return;
	v->w.judged = false;
	snprintf(v->w.why, sizeof(v->w.why), "no facts about node %s: %zu GPU pod%s on it, but --root %s shows no "
		 "GPU and no API was read; give --root with the node's tree, or the API", opt->node ? opt->node : "-",
		 v->w.n, v->w.n == 1 ? "" : "s", opt->root);
	fprintf(stderr, "tcpxo-agent: workloads: %s\n", v->w.why);
}

int cmd_workloads(const struct cli_options *opt, struct kubesrc *src)
{
	struct nodeview v;
	int code = EXIT_UNKNOWN;

	if (opt->nodes_file)
		return cmd_workloads_published(opt, src);

	if (nodeview_open(opt, &v) < 0)
		return EXIT_UNKNOWN;
	if (!opt->pods_file && !v.pb.http) {
		fprintf(stderr, "tcpxo-agent: workloads: no Kubernetes API configured (%s) and no --pods-file: the pods "
			"on the node are unknown; give kubectl get pods -A --field-selector spec.nodeName=NODE -o json "
			"with --pods-file F or -\n", v.pb.http_why);
		goto out;
	}
	if (v.pb.http && !opt->node) {
		fprintf(stderr, "tcpxo-agent: workloads: no node name (--node or NODE_NAME): the node's pods are unknown\n");
		if (!opt->pods_file)
			goto out;
	}
	/* The node's facts (its Networks, the installer) from the API when there is one. */
	if (v.pb.http && opt->node && publisher_read(&v.pb, opt->node, &v.kube) == -EIO && !opt->pods_file) {
		fprintf(stderr, "tcpxo-agent: workloads: listing the pods on %s: %s\n", opt->node,
			v.kube.pods_fetch.state != KUBE_FETCH_OK ? v.kube.pods_fetch.message :
			v.kube.node_fetch.message);
		if (v.kube.pods_fetch.state != KUBE_FETCH_OK)
			goto out;
	}
	if (opt->pods_file && podsread(opt, NULL, opt->node, &v.kube) < 0)
		goto out;
	podsread_aside(opt, &v.kube);
	if (profile_evaluate(&v.o, &v.p) < 0 || workloads_evaluate(&v.o, &v.p, &v.w) < 0) {
		fprintf(stderr, "tcpxo-agent: workloads: out of memory while judging the pods\n");
		goto out;
	}
	workloads_need_facts(opt, &v);
	/*
	 * Whether each running GPU pod's processes talk to the TCPXO daemon: exit 1 on tcp or partial.
	 * The pods come from the API or a file, their processes from --root's /proc: the node's.
	 */
	if (nodeview_transport(&v, opt, "workloads: ") < 0)
		goto out;
	if (podsread_print(opt, &v.w, v.o.node) < 0)
		goto out;
	if (v.o.pci.status.state != PROBE_OK)
		fprintf(stderr, "tcpxo-agent: workloads: PCI probe failed: %s: the node's fabric is unknown\n",
			v.o.pci.status.message);
	/* Pods judged against a node that could not be observed are judged against nothing; a GPU pod not read, not at all. */
	if (v.observed < 0 || !v.w.judged || v.kube.n_aside_gpu)
		code = EXIT_UNKNOWN;
	else
		code = workloads_any_unattached(&v.w) || workloads_any_transport_failed(&v.w) ? EXIT_NOT_READY :
			EXIT_READY;
out:
	nodeview_close(&v);
	return code;
}
