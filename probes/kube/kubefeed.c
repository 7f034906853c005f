/* kubefeed.c - pure: the API facts of struct obs_kube from the daemon's watch stores (reflectors). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/kube/kubefeed.h"
#include "probes/kube/kubeparse.h"
#include "probes/kube/kubeparse_pods.h"
#include "probes/kube/kubeslices.h"
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
static int kubefeed_refused(struct kube_fetch *f, int r, size_t n, const char *what, const char *err)
{
	char msg[KUBE_MSG_MAX];

	if (r == -ENOMEM)
		return r;
	snprintf(msg, sizeof(msg), "unusable %s (%zu object%s): %s", what, n, n == 1 ? "" : "s", err);
	kubefeed_failed(f, 200, r, msg);
	return -EINVAL;
}

int kubefeed_node(const struct reflector *r, const char *node, const char *prefix, struct obs_kube *k)
{
	const struct json *obj;
	char err[256] = "", msg[KUBE_MSG_MAX];
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
	rc = kubeparse_node_tree(obj, prefix, k, err, sizeof(err));
	if (rc < 0)
		return kubefeed_refused(&k->node_fetch, rc, 1, "Node", err);
	kubefeed_ok(&k->node_fetch);
	return 0;
}

/* A collection's store, its objects handed to @parse as the items of the list a GET would answer. */
static int kubefeed_list(const struct reflector *r, struct obs_kube *k, struct kube_fetch *f, const char *kind,
			 kubeparse_items_fn parse)
{
	size_t n = reflector_count(r);
	const struct json **items;
	char err[256] = "";
	int rc;

	if (!reflector_synced(r))
		return -EAGAIN;
	k->configured = true;
	if (!(items = calloc(n ? n : 1, sizeof(*items))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		items[i] = reflector_object(r, i);
	rc = parse(items, n, k, err, sizeof(err));
	free(items);
	if (rc < 0)
		return kubefeed_refused(f, rc, n, kind, err);
	kubefeed_ok(f);
	return 0;
}

int kubefeed_pods(const struct reflector *r, struct obs_kube *k)
{
	/* A pod set aside is named by the checks, as a GET's: never the whole store. */
	return kubefeed_list(r, k, &k->pods_fetch, "PodList", kubeparse_pod_items);
}

int kubefeed_networks(const struct reflector *r, struct obs_kube *k)
{
	return kubefeed_list(r, k, &k->networks_fetch, "NetworkList", kubeparse_network_items);
}

int kubefeed_slices(const struct reflector *r, struct obs_kube *k)
{
	return kubefeed_list(r, k, &k->slices_fetch, "ResourceSliceList", kubeslices_items);
}
