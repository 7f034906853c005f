/* kubesrc_api.c - tcpxo-agent's cluster for the fleet commands: GET through its own API client (libcurl), made on first use. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/kubesrc_api.h"
#include "probes/kube/http.h"
#include "probes/kube/kube.h"
#include "probes/kube/kubenodes.h"
#include "probes/model/errmsg.h"
#include "probes/model/json.h"

struct kubesrc_api {
	const struct cli_options *opt;
	struct http_client *client;
	bool tried;
	int err;                        /* http_client_new()'s */
	char why[256];
};

/* The client, made once; -ENOTCONN (@what says which file would do instead) when no API is configured. */
static int kubesrc_api_client(struct kubesrc_api *a, const char *advice, char *err, size_t errlen)
{
	if (!a->tried) {
		const struct http_config cfg = {
			.server = a->opt->api_server, .token_file = a->opt->token_file, .ca_file = a->opt->ca_file,
		};

		a->tried = true;
		a->err = http_client_new(&cfg, &a->client, a->why, sizeof(a->why));
	}
	if (a->err == -ENOENT)
		return errmsg_set(err, errlen, -ENOTCONN, "no Kubernetes API configured (%s) and %s", a->why, advice);
	if (a->err < 0)
		return errmsg_set(err, errlen, a->err, "API client: %s", a->why[0] ? a->why : strerror(-a->err));
	return 0;
}

static int kubesrc_api_page(void *nodes, const char *body, size_t len, char **ret_continue, char *err, size_t errlen)
{
	return coherence_add_nodelist(nodes, body, len, ret_continue, err, errlen);
}

static void kubesrc_api_restart(void *nodes)
{
	coherence_reset(nodes);
}

static int kubesrc_api_nodes(void *ctx, const char *cmd, const char *selector, const char *name,
			     struct coherence *nodes, char *err, size_t errlen)
{
	struct kubesrc_api *a = ctx;
	const struct kubenodes_sink ks = { kubesrc_api_page, kubesrc_api_restart, nodes };
	char advice[256] = "";
	int r;

	(void)name;             /* the whole list: the command keeps the node it wants */
	snprintf(advice, sizeof(advice), "no --nodes-file: give kubectl get nodes -o json with --nodes-file F or - "
		 "(kubectl fabric %s reads the nodes with your kubectl)", cmd);
	r = kubesrc_api_client(a, advice, err, errlen);
	if (r < 0)
		return r;
	return kubenodes_list(a->client, selector, &ks, err, errlen);
}

/* A 404 for the runtime: is it the object that is missing, or the resource itself (no Trainer CRD)? */
static bool kubesrc_api_object_missing(const struct http_response *resp, const char *name)
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

static void kubesrc_api_runtime_message(const struct http_response *resp, const char *name, int r,
					struct kubesrc_answer *ret)
{
	if (r == -EIO && resp->status == 404 && kubesrc_api_object_missing(resp, name))
		snprintf(ret->message, sizeof(ret->message), "ClusterTrainingRuntime %s is not installed (%s: 404): "
			 "install it (the renderer's bundle), or check a rendered one with --runtime-file", name, ret->where);
	else if (r == -EIO && resp->status == 404)
		snprintf(ret->message, sizeof(ret->message), "the API has no clustertrainingruntimes.trainer.kubeflow.org "
			 "resource (%s: 404): Kubeflow Trainer v2 is not installed", ret->where);
	else
		snprintf(ret->message, sizeof(ret->message), "%s%s", resp->error[0] ? resp->error : strerror(-r),
			 resp->status == 401 || resp->status == 403 ? " (the credentials need get on "
			 "clustertrainingruntimes.trainer.kubeflow.org)" : "");
}

static int kubesrc_api_get(void *ctx, enum kubesrc_doc what, const char *name, struct kubesrc_answer *ret)
{
	struct kubesrc_api *a = ctx;
	struct http_response resp = { 0 };
	char advice[256] = "";
	int r;

	switch (what) {
	case KUBESRC_PODS:
		snprintf(ret->where, sizeof(ret->where), "GET /api/v1/pods?fieldSelector=spec.nodeName%%3D%s", name);
		snprintf(advice, sizeof(advice), "no --pods-file: give kubectl get pods -A --field-selector "
			 "spec.nodeName=%s -o json with --pods-file F or -", name);
		break;
	case KUBESRC_RUNTIME:
		snprintf(ret->where, sizeof(ret->where), "GET %s/%s", KUBE_TRAINING_RUNTIMES, name);
		snprintf(advice, sizeof(advice), "no --runtime-file: give the rendered runtime (kubectl get "
			 "clustertrainingruntime %s -o json, or helm template's output) with --runtime-file F or -", name);
		break;
	case KUBESRC_NETWORKS:
		snprintf(ret->where, sizeof(ret->where), "GET /apis/networking.gke.io/v1/networks");
		snprintf(advice, sizeof(advice), "no --networks-file");
		break;
	}
	r = kubesrc_api_client(a, advice, ret->message, sizeof(ret->message));
	if (r < 0)
		return r;
	r = what == KUBESRC_PODS ? kube_list_pods(a->client, name, &resp) :
	    what == KUBESRC_RUNTIME ? kube_get_training_runtime(a->client, name, &resp) :
	    kube_list_networks(a->client, &resp);
	ret->status = resp.status;
	if (r == -EIO && resp.status == 404)
		r = -ENOENT;
	if (r >= 0) {
		ret->text = resp.body;
		ret->len = resp.len;
		resp.body = NULL;
	} else if (what == KUBESRC_RUNTIME) {
		kubesrc_api_runtime_message(&resp, name, r == -ENOENT ? -EIO : r, ret);
	} else {
		snprintf(ret->message, sizeof(ret->message), "%s", resp.error[0] ? resp.error : strerror(-r));
	}
	http_response_free(&resp);
	return r;
}

static void kubesrc_api_close(void *ctx)
{
	struct kubesrc_api *a = ctx;

	if (!a)
		return;
	http_client_free(a->client);
	free(a);
}

static const struct kubesrc_ops kubesrc_api_ops = {
	.nodes = kubesrc_api_nodes,
	.get = kubesrc_api_get,
	.close = kubesrc_api_close,
};

int kubesrc_api_open(const struct cli_options *opt, struct kubesrc *ret)
{
	struct kubesrc_api *a = calloc(1, sizeof(*a));

	if (!a)
		return -ENOMEM;
	a->opt = opt;
	*ret = (struct kubesrc){ .ops = &kubesrc_api_ops, .ctx = a };
	return 0;
}
