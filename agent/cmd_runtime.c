/* cmd_runtime.c - `tcpxo-agent runtime`: the named runtime (ClusterTrainingRuntime) held against what the fleet's agents published. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/cli.h"
#include "agent/cmd.h"
#include "agent/kubesrc.h"
#include "agent/output.h"
#include "agent/relfile.h"
#include "probes/kube/kubeparse.h"
#include "probes/kube/trainruntime.h"
#include "probes/model/strbuf.h"
#include "report/fleet/fleet.h"
#include "report/fleet/runtime.h"
#include "report/render/render_runtime.h"

#define RUNTIME_FILE_MAX ((size_t)64 << 20)            /* helm template of a whole stack; one document is bounded apart */
#define RUNTIME_NETWORKS_FILE_MAX ((size_t)16 << 20)

struct runtime_cmd {
	const struct cli_options *opt;
	struct kubesrc *src;
	struct releases *releases;      /* --releases; NULL: the built-in table */
	struct coherence *fleet;           /* fleet_new()'s */
	struct trainruntime rt;
	struct obs_kube networks;       /* networks_fetch and networks only */
};

/* ---- the runtime ---- */

static int runtime_cmd_runtime(struct runtime_cmd *c, const char *name)
{
	struct kubesrc_answer a;
	char err[1024] = "";
	int r;

	r = kubesrc_get(c->src, "--runtime-file", c->opt->runtime_file, RUNTIME_FILE_MAX, "manifest", KUBESRC_RUNTIME,
			name, &a);
	if (r < 0)
		fprintf(stderr, "%s: runtime: %s\n", c->opt->prog_name, a.message);
	else if ((r = trainruntime_find(a.text, a.len, name, &c->rt, err, sizeof(err))) < 0)
		fprintf(stderr, "%s: runtime: %s: %s\n", c->opt->prog_name, a.where, err);
	kubesrc_answer_free(&a);
	return r;
}

/* ---- the cluster's Networks (optional: networks-published says why it is skipped) ---- */

static void runtime_cmd_fetch(struct kube_fetch *f, int r, long status, const char *message)
{
	*f = (struct kube_fetch){ .err = r, .http_status = status,
				  .state = r >= 0 ? KUBE_FETCH_OK : status == 403 ? KUBE_FETCH_FORBIDDEN : KUBE_FETCH_FAILED };
	snprintf(f->message, sizeof(f->message), "%.*s", (int)sizeof(f->message) - 1, message);   /* cut */
}

/* A file that cannot be read or parsed stops the command; the cluster's answer only skips the finding. */
static int runtime_cmd_networks(struct runtime_cmd *c)
{
	const char *path = c->opt->networks_file;
	struct kubesrc_answer a;
	char err[512] = "";
	int r;

	r = kubesrc_get(c->src, "--networks-file", path, RUNTIME_NETWORKS_FILE_MAX, "NetworkList", KUBESRC_NETWORKS, NULL,
			&a);
	if (r >= 0 && (r = kubeparse_networks(a.text, a.len, &c->networks, err, sizeof(err))) < 0)
		snprintf(a.message, sizeof(a.message), "%s: %s", a.where, err);
	if (r < 0 && path)
		fprintf(stderr, "%s: runtime: %s\n", c->opt->prog_name, a.message);
	else if (r != -ENOTCONN)        /* no cluster configured: not read, the finding says so */
		runtime_cmd_fetch(&c->networks.networks_fetch, r, a.status, r < 0 ? a.message : "");
	kubesrc_answer_free(&a);
	return r < 0 && path ? r : 0;
}

/* ---- which fleet, which runtime ---- */

static const char *runtime_cmd_fabric(enum profile_kind kind)
{
	return kind == PROFILE_TCPX ? "TCPX" : "TCPXO";
}

/* The fabric whose nodes the runtime is held against; PROFILE_NONE (message printed) when not known. */
static enum profile_kind runtime_cmd_kind(struct runtime_cmd *c, const struct trainruntime *rt)
{
	size_t n_tcpxo = fleet_count(c->fleet, PROFILE_TCPXO), n_tcpx = fleet_count(c->fleet, PROFILE_TCPX);
	enum profile_kind kind;

	if (!n_tcpxo && !n_tcpx)
		return PROFILE_NONE;    /* runtime_cmd_any() said so */
	if (!n_tcpx || !n_tcpxo)
		return n_tcpxo ? PROFILE_TCPXO : PROFILE_TCPX;
	if (!rt) {
		fprintf(stderr, "%s: runtime: the cluster has %zu TCPXO and %zu TCPX nodes: name the runtime to check "
			"with --name (torch-distributed-tcpxo or torch-distributed-tcpx)\n", c->opt->prog_name, n_tcpxo, n_tcpx);
		return PROFILE_NONE;
	}
	/* Both fabrics: the runtime's own wiring says which fleet it is for. */
	kind = runtime_fabric_of(rt);
	if (kind == PROFILE_NONE) {
		char *name = strbuf_printable(rt->name, TRAINRUNTIME_NAME_MAX);

		fprintf(stderr, "%s: runtime: the cluster has %zu TCPXO and %zu TCPX nodes and runtime %s names "
			"neither fabric (no daemon image, no NCCL variables, no suffix): choose the nodes with --selector\n",
			c->opt->prog_name, n_tcpxo, n_tcpx, name ? name : "?");
		free(name);
	}
	return kind;
}

/* A fleet at all: nodes that publish a profile of either fabric. */
static bool runtime_cmd_any(struct runtime_cmd *c)
{
	if (fleet_count(c->fleet, PROFILE_TCPXO) || fleet_count(c->fleet, PROFILE_TCPX))
		return true;
	fprintf(stderr, "%s: runtime: no node publishes a tcpxo or tcpx profile (%sprofile): the agent has not "
		"observed the fleet yet, or %s leaves it out\n", c->opt->prog_name, c->opt->prefix,
		c->opt->nodes_file ? "the NodeList" : c->opt->selector ? "--selector" : "the list");
	return false;
}

static int runtime_cmd_print(const struct cli_options *opt, const struct rtresult *res)
{
	if (!opt->json)
		render_runtime_human(res, stdout);
	else if (output_json(opt->prog_name, "runtime: ", render_runtime_json(res)) < 0)
		return -ENOMEM;
	return output_flush(opt->prog_name, "runtime: ");
}

int cmd_runtime(const struct cli_options *opt, struct kubesrc *src)
{
	struct runtime_cmd c = { .opt = opt, .src = src };
	struct fleet_facts ff = { 0 };
	struct rtresult res = { 0 };
	char err[512] = "";
	enum profile_kind kind;
	const char *name = opt->name;
	int code = EXIT_UNKNOWN;

	if (opt->releases && relfile_load(opt->releases, &c.releases, NULL, NULL, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s: --releases %s: %s\n", opt->prog_name, opt->releases, err);
		return EXIT_UNKNOWN;
	}
	if (fleet_new(opt->prefix, &c.fleet) < 0) {
		fprintf(stderr, "%s: runtime: out of memory\n", opt->prog_name);
		goto out;
	}
	if (kubesrc_nodes(src, opt, "runtime", NULL, c.fleet) < 0 || !runtime_cmd_any(&c))
		goto out;
	/* Without --name, the runtime the fleet's nodes name: which needs one fabric. */
	if (!name) {
		kind = runtime_cmd_kind(&c, NULL);
		if (kind == PROFILE_NONE)
			goto out;
		name = profile_runtime_name(kind);
	}
	if (runtime_cmd_runtime(&c, name) < 0)
		goto out;
	kind = runtime_cmd_kind(&c, &c.rt);
	if (kind == PROFILE_NONE || runtime_cmd_networks(&c) < 0)
		goto out;
	if (fleet_facts(c.fleet, kind, &ff, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s: runtime: the %s nodes: %s\n", opt->prog_name, runtime_cmd_fabric(kind),
			err[0] ? err : "refused");
		goto out;
	}
	if (runtime_judge(&c.rt, &ff, &c.networks, c.releases, opt->prefix, &res) < 0) {
		fprintf(stderr, "%s: runtime: out of memory while judging the runtime\n", opt->prog_name);
		goto out;
	}
	if (runtime_cmd_print(opt, &res) < 0)
		goto out;
	code = res.verdict == RTRESULT_MATCHES ? EXIT_READY : EXIT_NOT_READY;
out:
	rtresult_free(&res);
	fleet_facts_free(&ff);
	obs_kube_free(&c.networks);
	trainruntime_free(&c.rt);
	coherence_free(c.fleet);
	releases_free(c.releases);
	return code;
}
