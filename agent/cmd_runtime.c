/* cmd_runtime.c - `tcpxo-agent runtime`: the named runtime (ClusterTrainingRuntime) held against what the fleet's agents published. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/cli.h"
#include "agent/cmd.h"
#include "agent/infile.h"
#include "agent/output.h"
#include "agent/publish.h"
#include "probes/kube/kube.h"
#include "probes/kube/kubenodes.h"
#include "probes/kube/kubeparse.h"
#include "probes/kube/trainruntime.h"
#include "probes/model/json.h"
#include "report/fleet/fleet.h"
#include "report/fleet/runtime.h"
#include "report/render/render_runtime.h"

#define RUNTIME_NODES_FILE_MAX ((size_t)256 << 20)     /* a NodeList of ~30,000 fat nodes (as interfaces) */
#define RUNTIME_FILE_MAX ((size_t)64 << 20)            /* helm template of a whole stack; one document is bounded apart */
#define RUNTIME_NETWORKS_FILE_MAX ((size_t)16 << 20)

struct runtime_cmd {
	const struct cli_options *opt;
	struct publisher pb;
	struct fleet *fleet;
	struct trainruntime rt;
	struct obs_kube networks;       /* networks_fetch and networks only */
};

/* A whole input file named on the command line; the message names the option and the file. */
static int runtime_cmd_read(const char *option, const char *path, size_t max, const char *kind, char **ret,
			    size_t *ret_len)
{
	char err[512] = "";
	int r;

	r = infile_read_input(path, max, kind, ret, ret_len, err, sizeof(err));
	if (r < 0)
		fprintf(stderr, "tcpxo-agent: runtime: %s %s: %s\n", option, infile_name(path),
			err[0] ? err : strerror(-r));
	return r;
}

/* ---- the fleet ---- */

static int runtime_cmd_page(void *userdata, const char *body, size_t len, char **ret_continue, char *err,
			    size_t errlen)
{
	return fleet_add_nodelist(userdata, body, len, ret_continue, err, errlen);
}

static void runtime_cmd_restart(void *userdata)
{
	fleet_reset(userdata);
}

static int runtime_cmd_fleet(struct runtime_cmd *c)
{
	const struct cli_options *opt = c->opt;
	const struct kubenodes_sink sink = { runtime_cmd_page, runtime_cmd_restart, c->fleet };
	char err[512] = "", *text = NULL;
	size_t len = 0;
	int r;

	if (opt->nodes_file) {
		if (opt->selector) {
			fprintf(stderr, "tcpxo-agent: runtime: --selector filters the API's node list; with --nodes-file, "
				"select the nodes with kubectl get nodes -l SELECTOR -o json\n");
			return -EINVAL;
		}
		r = runtime_cmd_read("--nodes-file", opt->nodes_file, RUNTIME_NODES_FILE_MAX, "NodeList", &text, &len);
		if (r >= 0 && (r = fleet_add_nodelist(c->fleet, text, len, NULL, err, sizeof(err))) < 0)
			fprintf(stderr, "tcpxo-agent: runtime: --nodes-file %s: %s\n", infile_name(opt->nodes_file),
				err[0] ? err : strerror(-r));
		free(text);
	} else if (!c->pb.http) {
		fprintf(stderr, "tcpxo-agent: runtime: no Kubernetes API configured (%s) and no --nodes-file: the fleet is "
			"unknown; give kubectl get nodes -o json with --nodes-file F or -\n", c->pb.http_why);
		r = -ENOENT;
	} else if ((r = kubenodes_list(c->pb.http, opt->selector, &sink, err, sizeof(err))) < 0) {
		fprintf(stderr, "tcpxo-agent: runtime: %s\n", err[0] ? err : strerror(-r));
	}
	return r < 0 ? r : 0;
}

/* ---- the runtime ---- */

/* A 404 for the runtime: is it the object that is missing, or the resource itself (no Trainer CRD)? */
static bool runtime_cmd_object_missing(const struct http_response *resp, const char *name)
{
	struct json *v = NULL;
	bool named = false;

	if (resp->body && json_parse(resp->body, resp->len, &v) == 0) {
		const char *n = json_get_string(json_get(v, "details"), "name");

		named = n && strcmp(n, name) == 0;
	}
	json_free(v);
	return named;
}

static int runtime_cmd_from_api(struct runtime_cmd *c, const char *name)
{
	struct http_response resp = { 0 };
	char err[1024] = "";
	int r;

	if (!c->pb.http) {
		fprintf(stderr, "tcpxo-agent: runtime: no Kubernetes API configured (%s) and no --runtime-file: give the "
			"rendered runtime (kubectl get clustertrainingruntime %s -o json, or helm template's output) with "
			"--runtime-file F or -\n", c->pb.http_why, name);
		return -ENOENT;
	}
	r = kube_get_training_runtime(c->pb.http, name, &resp);
	if (r == -EIO && resp.status == 404 && runtime_cmd_object_missing(&resp, name))
		fprintf(stderr, "tcpxo-agent: runtime: ClusterTrainingRuntime %s is not installed (GET %s/%s: 404): install "
			"it (the renderer's bundle), or check a rendered one with --runtime-file\n", name,
			KUBE_TRAINING_RUNTIMES, name);
	else if (r == -EIO && resp.status == 404)
		fprintf(stderr, "tcpxo-agent: runtime: the API has no clustertrainingruntimes.trainer.kubeflow.org resource "
			"(GET %s/%s: 404): Kubeflow Trainer v2 is not installed\n", KUBE_TRAINING_RUNTIMES, name);
	else if (r < 0)
		fprintf(stderr, "tcpxo-agent: runtime: %s%s\n", resp.error[0] ? resp.error : strerror(-r),
			resp.status == 401 || resp.status == 403 ? " (the credentials need get on "
			"clustertrainingruntimes.trainer.kubeflow.org)" : "");
	else if ((r = trainruntime_find(resp.body, resp.len, name, &c->rt, err, sizeof(err))) < 0)
		fprintf(stderr, "tcpxo-agent: runtime: GET %s/%s: %s\n", KUBE_TRAINING_RUNTIMES, name, err);
	http_response_free(&resp);
	return r;
}

static int runtime_cmd_runtime(struct runtime_cmd *c, const char *name)
{
	const char *path = c->opt->runtime_file;
	char err[1024] = "", *text = NULL;
	size_t len = 0;
	int r;

	if (!path)
		return runtime_cmd_from_api(c, name);
	r = runtime_cmd_read("--runtime-file", path, RUNTIME_FILE_MAX, "manifest", &text, &len);
	if (r >= 0 && (r = trainruntime_find(text, len, name, &c->rt, err, sizeof(err))) < 0)
		fprintf(stderr, "tcpxo-agent: runtime: --runtime-file %s: %s\n", infile_name(path), err);
	free(text);
	return r;
}

/* ---- the cluster's Networks (optional: networks-published says why it is skipped) ---- */

static void runtime_cmd_fetch(struct kube_fetch *f, int r, long status, const char *message)
{
	*f = (struct kube_fetch){ .err = r, .http_status = status,
				  .state = r >= 0 ? KUBE_FETCH_OK : status == 403 ? KUBE_FETCH_FORBIDDEN : KUBE_FETCH_FAILED };
	snprintf(f->message, sizeof(f->message), "%s", message);
}

static int runtime_cmd_networks(struct runtime_cmd *c)
{
	const char *path = c->opt->networks_file;
	struct http_response resp = { 0 };
	char err[512] = "", *text = NULL;
	size_t len = 0;
	int r;

	if (path) {
		r = runtime_cmd_read("--networks-file", path, RUNTIME_NETWORKS_FILE_MAX, "NetworkList", &text, &len);
		if (r >= 0 && (r = kubeparse_networks(text, len, &c->networks, err, sizeof(err))) < 0)
			fprintf(stderr, "tcpxo-agent: runtime: --networks-file %s: %s\n", infile_name(path), err);
		if (r >= 0)
			runtime_cmd_fetch(&c->networks.networks_fetch, 0, 0, "");
		free(text);
		return r;
	}
	if (!c->pb.http)
		return 0;       /* not read: the finding is skipped and says so */
	r = kube_list_networks(c->pb.http, &resp);
	runtime_cmd_fetch(&c->networks.networks_fetch, r, resp.status, resp.error);
	if (r >= 0 && kubeparse_networks(resp.body, resp.len, &c->networks, err, sizeof(err)) < 0)
		runtime_cmd_fetch(&c->networks.networks_fetch, -EINVAL, resp.status, err);
	http_response_free(&resp);
	return 0;
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
		fprintf(stderr, "tcpxo-agent: runtime: the cluster has %zu TCPXO and %zu TCPX nodes: name the runtime to check "
			"with --name (torch-distributed-tcpxo or torch-distributed-tcpx)\n", n_tcpxo, n_tcpx);
		return PROFILE_NONE;
	}
	/* Both fabrics: the runtime's own wiring says which fleet it is for. */
	kind = runtime_fabric_of(rt);
	if (kind == PROFILE_NONE) {
		char *name = strbuf_printable(rt->name, TRAINRUNTIME_NAME_MAX);

		fprintf(stderr, "tcpxo-agent: runtime: the cluster has %zu TCPXO and %zu TCPX nodes and runtime %s names "
			"neither fabric (no daemon image, no NCCL variables, no suffix): choose the nodes with --selector\n",
			n_tcpxo, n_tcpx, name ? name : "?");
		free(name);
	}
	return kind;
}

/* A fleet at all: nodes that publish a profile of either fabric. */
static bool runtime_cmd_any(struct runtime_cmd *c)
{
	if (fleet_count(c->fleet, PROFILE_TCPXO) || fleet_count(c->fleet, PROFILE_TCPX))
		return true;
	fprintf(stderr, "tcpxo-agent: runtime: no node publishes a tcpxo or tcpx profile (%sprofile): the agent has not "
		"observed the fleet yet, or %s leaves it out\n", c->opt->prefix,
		c->opt->nodes_file ? "the NodeList" : c->opt->selector ? "--selector" : "the list");
	return false;
}

static int runtime_cmd_print(const struct cli_options *opt, const struct rtresult *res)
{
	if (!opt->json)
		render_runtime_human(res, stdout);
	else if (output_json("runtime: ", render_runtime_json(res)) < 0)
		return -ENOMEM;
	return output_flush("runtime: ");
}

int cmd_runtime(const struct cli_options *opt)
{
	struct runtime_cmd c = { .opt = opt };
	struct fleet_facts ff = { 0 };
	struct rtresult res = { 0 };
	char err[512] = "";
	enum profile_kind kind;
	const char *name = opt->name;
	int code = EXIT_UNKNOWN;

	if (publisher_open(opt, &c.pb) < 0)
		return EXIT_UNKNOWN;
	if (fleet_new(opt->prefix, &c.fleet) < 0) {
		fprintf(stderr, "tcpxo-agent: runtime: out of memory\n");
		goto out;
	}
	if (runtime_cmd_fleet(&c) < 0 || !runtime_cmd_any(&c))
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
		fprintf(stderr, "tcpxo-agent: runtime: the %s nodes: %s\n", runtime_cmd_fabric(kind),
			err[0] ? err : "refused");
		goto out;
	}
	if (runtime_judge(&c.rt, &ff, &c.networks, c.pb.releases, opt->prefix, &res) < 0) {
		fprintf(stderr, "tcpxo-agent: runtime: out of memory while judging the runtime\n");
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
	fleet_free(c.fleet);
	publisher_close(&c.pb);
	return code;
}
