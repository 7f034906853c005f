/* kubefeed.c - pure: the API facts of struct obs_kube from the daemon's watch stores (reflectors). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/kube/kubefeed.h"
#include "probes/kube/kubeparse.h"
#include "probes/kube/kubeparse_pods.h"
#include "probes/model/json.h"

static void kubefeed_ok(struct kube_fetch *f)
{
	*f = (struct kube_fetch){ .state = KUBE_FETCH_OK, .http_status = 200 };
}

void kubefeed_failed(struct kube_fetch *f, long status, int err, const char *message)
{
	f->state = status == 403 ? KUBE_FETCH_FORBIDDEN : KUBE_FETCH_FAILED;
	f->err = err < 0 ? err : -EIO;
	f->http_status = status;
	snprintf(f->message, sizeof(f->message), "%s", message ? message : "");
}

/* A parser's refusal: FAILED, as a GET whose 2xx body cannot be used. */
static int kubefeed_refused(struct kube_fetch *f, int r, size_t len, const char *what, const char *err)
{
	char msg[KUBE_MSG_MAX];

	if (r == -ENOMEM)
		return r;
	snprintf(msg, sizeof(msg), "unusable %s (%zu bytes): %s", what, len, err);
	kubefeed_failed(f, 200, r, msg);
	return -EINVAL;
}

int kubefeed_node(const struct reflector *r, const char *node, const char *prefix, struct obs_kube *k)
{
	const struct json *obj;
	char err[256] = "", msg[KUBE_MSG_MAX], *body;
	size_t len;
	int rc;

	if (!reflector_synced(r))
		return -EAGAIN;
	k->configured = true;
	obj = reflector_find(r, NULL, node);
	if (!obj) {
		snprintf(msg, sizeof(msg), "node %s not found (the watch of nodes named %s holds none)", node, node);
		kubefeed_failed(&k->node_fetch, 404, -ENOENT, msg);
		return -ENOENT;
	}
	body = json_print(obj, false);
	if (!body)
		return -ENOMEM;
	len = strlen(body);
	rc = kubeparse_node(body, len, prefix, k, err, sizeof(err));
	free(body);
	if (rc < 0)
		return kubefeed_refused(&k->node_fetch, rc, len, "Node", err);
	kubefeed_ok(&k->node_fetch);
	return 0;
}

/* A collection's store as the list a GET would answer, through @parse. */
static int kubefeed_list(const struct reflector *r, struct obs_kube *k, struct kube_fetch *f, const char *kind,
			 const char *api_version, int (*parse)(const char *, size_t, struct obs_kube *, char *, size_t))
{
	char err[256] = "", *body;
	size_t len;
	int rc;

	if (!reflector_synced(r))
		return -EAGAIN;
	k->configured = true;
	body = reflector_list_json(r, kind, api_version);
	if (!body)
		return -ENOMEM;
	len = strlen(body);
	rc = parse(body, len, k, err, sizeof(err));
	free(body);
	if (rc < 0)
		return kubefeed_refused(f, rc, len, kind, err);
	kubefeed_ok(f);
	return 0;
}

int kubefeed_pods(const struct reflector *r, struct obs_kube *k)
{
	/* A pod set aside is named by the checks, as a GET's: never the whole store. */
	return kubefeed_list(r, k, &k->pods_fetch, "PodList", "v1", kubeparse_pods);
}

int kubefeed_networks(const struct reflector *r, struct obs_kube *k)
{
	return kubefeed_list(r, k, &k->networks_fetch, "NetworkList", "networking.gke.io/v1", kubeparse_networks);
}
