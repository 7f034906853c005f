/* cmd_workloads.c - `tcpxo-agent workloads`: every GPU pod on this node judged against the node's fabric. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/cli.h"
#include "agent/cmd.h"
#include "agent/infile.h"
#include "agent/nodeview.h"
#include "agent/observe.h"
#include "agent/output.h"
#include "agent/publish.h"
#include "probes/kube/kubeparse_pods.h"
#include "report/checks/evaluate.h"
#include "report/checks/workloads.h"
#include "report/fleet/fleet.h"
#include "report/fleet/fleet_node.h"
#include "report/render/render.h"

#define WORKLOADS_FILE_MAX ((size_t)256 << 20)        /* a PodList of thousands of fat pods */

/* --pods-file: the PodList (or kubectl's List) replaces the API's pod list. */
static int workloads_from_file(const struct cli_options *opt, struct obs_kube *k)
{
	char err[512] = "", *text = NULL;
	size_t len = 0;
	int r;

	r = infile_read(opt->pods_file, WORKLOADS_FILE_MAX, INFILE_STDIN | INFILE_STREAM, &text, &len, err,
			sizeof(err));
	if (r == -EISDIR || r == -EFBIG) {
		size_t n = strlen(err);

		/* Not infile_read_input(): this command's size message has always said "pod list". */
		snprintf(err + n, sizeof(err) - n, "%s", r == -EISDIR ? ", not a PodList file" :
			 ": not a pod list this command reads");
	}
	if (r >= 0)
		r = kubeparse_pods(text, len, k, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "tcpxo-agent: workloads: --pods-file %s: %s\n", infile_name(opt->pods_file),
			err[0] ? err : strerror(-r));
	} else {
		k->configured = true;
		k->pods_fetch = (struct kube_fetch){ .state = KUBE_FETCH_OK };
	}
	free(text);
	return r;
}

/* The pods that could not be read, set aside and not judged: named, each on one line. */
static void workloads_aside(const struct obs_kube *k)
{
	size_t named = k->n_aside < KUBE_ASIDE_NAMED ? k->n_aside : KUBE_ASIDE_NAMED;

	for (size_t i = 0; i < named; i++) {
		const struct kube_pod_aside *a = &k->aside[i];

		if (a->name[0])
			fprintf(stderr, "tcpxo-agent: workloads: pod %s/%s could not be read (%s): not judged\n", a->ns,
				a->name, a->why);
		else
			fprintf(stderr, "tcpxo-agent: workloads: pod items[%zu] could not be read (%s): not judged\n",
				a->item, a->why);
	}
	if (k->n_aside > named)
		fprintf(stderr, "tcpxo-agent: workloads: %zu more pods could not be read: not judged\n", k->n_aside - named);
	if (k->n_aside_gpu)
		fprintf(stderr, "tcpxo-agent: workloads: unknown: %zu pod%s that may request GPUs could not be read\n",
			k->n_aside_gpu, k->n_aside_gpu == 1 ? "" : "s");
}

static int workloads_print(const struct cli_options *opt, const struct workloads *w, const char *node)
{
	if (!opt->json)
		render_workloads_human(w, node, stdout);
	else if (output_json("workloads: ", render_workloads_json(w, node)) < 0)
		return -ENOMEM;
	return output_flush("workloads: ");
}

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

/* The node's facts as it published them: one NodeList node read by fleet.c, built by fleet_node.c (as runtime). */
static int workloads_published_facts(const struct cli_options *opt, const struct releases *t, struct attach_node *ret)
{
	struct fleet *f = NULL;
	struct fleet_facts ff = { 0 };
	char why[512] = "", err[512] = "", *text = NULL;
	enum profile_kind kind = PROFILE_NONE;
	size_t len = 0;
	int r;

	r = infile_read_input(opt->nodes_file, WORKLOADS_FILE_MAX, "NodeList", &text, &len, why, sizeof(why));
	if (r >= 0 && (r = fleet_new(opt->prefix, &f)) >= 0) {
		fleet_set_only(f, opt->node);
		r = fleet_add_nodelist(f, text, len, NULL, err, sizeof(err));
	}
	if (r < 0) {
		fprintf(stderr, "tcpxo-agent: workloads: --nodes-file %s: %s\n", infile_name(opt->nodes_file),
			why[0] ? why : err[0] ? err : strerror(-r));
		goto out;
	}
	if (fleet_count(f, PROFILE_TCPXO))
		kind = PROFILE_TCPXO;
	else if (fleet_count(f, PROFILE_TCPX))
		kind = PROFILE_TCPX;
	if (kind == PROFILE_NONE) {
		fprintf(stderr, "tcpxo-agent: workloads: --nodes-file %s: node %s is not in the list, or publishes no tcpxo "
			"or tcpx profile (%sprofile): its facts are unknown\n", infile_name(opt->nodes_file), opt->node,
			opt->prefix);
		r = -ENOENT;
		goto out;
	}
	r = fleet_facts(f, kind, &ff, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "tcpxo-agent: workloads: --nodes-file %s: %s\n", infile_name(opt->nodes_file),
			err[0] ? err : strerror(-r));
		goto out;
	}
	fleet_node_build(&ff, t, ret);
out:
	fleet_facts_free(&ff);
	fleet_free(f);
	free(text);
	return r < 0 ? r : 0;
}

/*
 * --nodes-file: the pods of --node (--pods-file) judged against what that node published, not
 * against this host (kubectl fabric workloads NODE): the same attach_judge() as the daemon's.
 */
static int workloads_published(const struct cli_options *opt)
{
	struct publisher pb = { 0 };
	struct attach_node facts;
	struct obs_kube k = { 0 };
	struct workloads w = { 0 };
	int code = EXIT_UNKNOWN;

	if (!opt->node || !opt->pods_file) {
		fprintf(stderr, "tcpxo-agent: workloads: --nodes-file judges the pods of the node --node names, read with "
			"--pods-file: give both\n");
		return EXIT_UNKNOWN;
	}
	if (strcmp(opt->nodes_file, "-") == 0 && strcmp(opt->pods_file, "-") == 0) {
		fprintf(stderr, "tcpxo-agent: workloads: standard input (-) can feed one of --nodes-file and --pods-file\n");
		return EXIT_UNKNOWN;
	}
	if (publisher_open(opt, &pb) < 0)
		return EXIT_UNKNOWN;
	if (workloads_published_facts(opt, pb.releases, &facts) < 0 || workloads_from_file(opt, &k) < 0)
		goto out;
	workloads_aside(&k);
	if (workloads_judge(&k, opt->node, &facts, &w) < 0) {
		fprintf(stderr, "tcpxo-agent: workloads: out of memory while judging the pods\n");
		goto out;
	}
	if (workloads_print(opt, &w, opt->node) < 0)
		goto out;
	/* A GPU pod that could not be read is a workload not judged: unknown, whatever the others are. */
	code = k.n_aside_gpu ? EXIT_UNKNOWN : workloads_any_unattached(&w) ? EXIT_NOT_READY : EXIT_READY;
out:
	workloads_free(&w);
	obs_kube_free(&k);
	publisher_close(&pb);
	return code;
}

int cmd_workloads(const struct cli_options *opt)
{
	struct nodeview v;
	int code = EXIT_UNKNOWN;

	if (opt->nodes_file)
		return workloads_published(opt);

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
	if (v.pb.http && opt->node && publisher_read(&v.pb, opt->node, &v.o.kube) == -EIO && !opt->pods_file) {
		fprintf(stderr, "tcpxo-agent: workloads: listing the pods on %s: %s\n", opt->node,
			v.o.kube.pods_fetch.state != KUBE_FETCH_OK ? v.o.kube.pods_fetch.message :
			v.o.kube.node_fetch.message);
		if (v.o.kube.pods_fetch.state != KUBE_FETCH_OK)
			goto out;
	}
	if (opt->pods_file && workloads_from_file(opt, &v.o.kube) < 0)
		goto out;
	workloads_aside(&v.o.kube);
	if (profile_evaluate(&v.o, &v.p) < 0 || workloads_evaluate(&v.o, &v.p, &v.w) < 0) {
		fprintf(stderr, "tcpxo-agent: workloads: out of memory while judging the pods\n");
		goto out;
	}
	workloads_need_facts(opt, &v);
	/*
	 * Whether each running GPU pod's processes talk to the TCPXO daemon: exit 1 on none or partial.
	 * The pods come from the API or a file, their processes from --root's /proc: the node's.
	 */
	if (nodeview_transport(&v, opt->transport_grace, "workloads: ") < 0)
		goto out;
	if (workloads_print(opt, &v.w, v.o.node) < 0)
		goto out;
	if (v.o.pci.status.state != PROBE_OK)
		fprintf(stderr, "tcpxo-agent: workloads: PCI probe failed: %s: the node's fabric is unknown\n",
			v.o.pci.status.message);
	/* Pods judged against a node that could not be observed are judged against nothing; a GPU pod not read, not at all. */
	if (v.observed < 0 || !v.w.judged || v.o.kube.n_aside_gpu)
		code = EXIT_UNKNOWN;
	else
		code = workloads_any_unattached(&v.w) || workloads_any_transport_failed(&v.w) ? EXIT_NOT_READY :
			EXIT_READY;
out:
	nodeview_close(&v);
	return code;
}
