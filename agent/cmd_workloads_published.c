/* cmd_workloads_published.c - `workloads` over a published node: its pods judged against what it published (kubectl fabric workloads NODE). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/cli.h"
#include "agent/cmd.h"
#include "agent/kubesrc.h"
#include "agent/podsread.h"
#include "agent/relfile.h"
#include "report/checks/workloads.h"
#include "report/fleet/fleet.h"
#include "report/fleet/fleet_node.h"

/* The node's facts as it published them: one NodeList node read by fleet.c, built by fleet_node.c (as runtime). */
static int published_facts(const struct cli_options *opt, struct kubesrc *src, const struct releases *t,
			   struct attach_node *ret)
{
	const char *file = opt->nodes_file ? (strcmp(opt->nodes_file, "-") == 0 ? "stdin" : opt->nodes_file) :
		"the node list";
	struct coherence *f = NULL;
	struct fleet_facts ff = { 0 };
	enum profile_kind kind;
	char err[512] = "";
	int r;

	r = fleet_new(opt->prefix, &f);
	if (r < 0) {
		fprintf(stderr, "%s: workloads: out of memory\n", opt->prog_name);
		return r;
	}
	coherence_set_only(f, opt->node);
	r = kubesrc_nodes(src, opt, "workloads", opt->node, f);
	if (r < 0)
		goto out;
	kind = fleet_count(f, PROFILE_TCPXO) ? PROFILE_TCPXO : fleet_count(f, PROFILE_TCPX) ? PROFILE_TCPX : PROFILE_NONE;
	if (kind == PROFILE_NONE) {
		fprintf(stderr, "%s: workloads: %s%s%snode %s is not in the %s, or publishes no tcpxo or tcpx profile "
			"(%sprofile): its facts are unknown\n", opt->prog_name, opt->nodes_file ? "--nodes-file " : "",
			opt->nodes_file ? file : "", opt->nodes_file ? ": " : "", opt->node,
			opt->nodes_file ? "list" : "cluster", opt->prefix);
		r = -ENOENT;
		goto out;
	}
	r = fleet_facts(f, kind, &ff, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "%s: workloads: %s%s: %s\n", opt->prog_name, opt->nodes_file ? "--nodes-file " : "", file,
			err[0] ? err : strerror(-r));
		goto out;
	}
	fleet_node_build(&ff, t, ret);
out:
	fleet_facts_free(&ff);
	coherence_free(f);
	return r < 0 ? r : 0;
}

int cmd_workloads_published(const struct cli_options *opt, struct kubesrc *src)
{
	struct releases *t = NULL;
	struct attach_node facts;
	struct obs_kube k = { 0 };
	struct workloads w = { 0 };
	char err[512] = "";
	int code = EXIT_UNKNOWN;

	if (!opt->node) {
		fprintf(stderr, "%s: workloads: --nodes-file judges the pods of the node --node names: give it\n",
			opt->prog_name);
		return EXIT_UNKNOWN;
	}
	if (opt->nodes_file && opt->pods_file && strcmp(opt->nodes_file, "-") == 0 && strcmp(opt->pods_file, "-") == 0) {
		fprintf(stderr, "%s: workloads: standard input (-) can feed one of --nodes-file and --pods-file\n",
			opt->prog_name);
		return EXIT_UNKNOWN;
	}
	if (opt->releases && relfile_load(opt->releases, &t, NULL, NULL, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s: --releases %s: %s\n", opt->prog_name, opt->releases, err);
		return EXIT_UNKNOWN;
	}
	if (published_facts(opt, src, t, &facts) < 0 || podsread(opt, src, opt->node, &k) < 0)
		goto out;
	podsread_aside(opt, &k);
	if (workloads_judge(&k, opt->node, &facts, &w) < 0) {
		fprintf(stderr, "%s: workloads: out of memory while judging the pods\n", opt->prog_name);
		goto out;
	}
	if (podsread_print(opt, &w, opt->node) < 0)
		goto out;
	/* A GPU pod that could not be read is a workload not judged: unknown, whatever the others are. */
	code = k.n_aside_gpu ? EXIT_UNKNOWN : workloads_any_unattached(&w) ? EXIT_NOT_READY : EXIT_READY;
out:
	workloads_free(&w);
	obs_kube_free(&k);
	releases_free(t);
	return code;
}
