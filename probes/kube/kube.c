/* kube.c - the Kubernetes API calls the agent makes: node, pods of the node, node and status patches, Events, Networks, a ClusterTrainingRuntime. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/kube/kube.h"
#include "probes/model/errmsg.h"

#define KUBE_PATCH_MAX  (1u << 20)
#define KUBE_EVENT_MAX  (64u << 10)
#define KUBE_NS_MAX     63
#define KUBE_PATH_MAX   (128 + KUBE_NODE_NAME_MAX)     /* a fixed prefix, a name, a fixed suffix */

/* Refuse before sending: @resp still says why, as http_request() would. */
static int kube_refuse(struct http_response *resp, int r, const char *msg)
{
	if (resp) {
		memset(resp, 0, sizeof(*resp));
		snprintf(resp->error, sizeof(resp->error), "%s", msg);
	}
	return r;
}

/* @name must be a DNS subdomain before it goes into a path; @what names it in the refusal ("node"). */
static int kube_name_check(const char *name, const char *what, struct http_response *resp)
{
	char shown[64], msg[160];

	if (kubename_valid(name))
		return 0;
	/* Show a bounded, printable prefix of what was refused. */
	snprintf(shown, sizeof(shown), "%s", name ? name : "(none)");
	for (char *p = shown; *p; p++)
		if ((unsigned char)*p < ' ' || (unsigned char)*p >= 0x7f)
			*p = '?';
	snprintf(msg, sizeof(msg), "invalid %s name \"%s\": not a DNS subdomain", what, shown);
	return kube_refuse(resp, -EINVAL, msg);
}

/* GET <prefix><name>, @name checked first (@what names it in the refusal). */
static int kube_get_named(struct http_client *c, const char *prefix, const char *name, const char *what,
			  struct http_response *resp)
{
	char path[KUBE_PATH_MAX];
	int r = kube_name_check(name, what, resp);

	if (r < 0)
		return r;
	snprintf(path, sizeof(path), "%s%s", prefix, name);
	return http_request(c, "GET", path, NULL, NULL, resp);
}

int kube_get_node(struct http_client *c, const char *node, struct http_response *resp)
{
	return kube_get_named(c, "/api/v1/nodes/", node, "node", resp);
}

int kube_list_pods(struct http_client *c, const char *node, struct http_response *resp)
{
	/* A valid name needs no escaping: [a-z0-9.-] are all unreserved. */
	return kube_get_named(c, "/api/v1/pods?fieldSelector=spec.nodeName%3D", node, "node", resp);
}

int kube_write_patch_node(const char *node, bool status, const char *patch, struct kube_write *ret, char *err,
			  size_t errlen)
{
	struct http_response resp;
	int r = kube_name_check(node, "node", &resp);

	if (r < 0)
		return errmsg_set(err, errlen, r, "%s", resp.error);
	if (!patch || !*patch || strnlen(patch, KUBE_PATCH_MAX + 1) > KUBE_PATCH_MAX)
		return errmsg_set(err, errlen, -EINVAL, "refusing an empty or over-long patch");
	ret->method = "PATCH";
	/* The status subresource takes a strategic merge patch: status.conditions merge by their type. */
	ret->content_type = status ? "application/strategic-merge-patch+json" : "application/merge-patch+json";
	ret->body = patch;
	snprintf(ret->path, sizeof(ret->path), "/api/v1/nodes/%s%s", node, status ? "/status" : "");
	return 0;
}

int kube_write_event(const char *ns, const char *event, struct kube_write *ret, char *err, size_t errlen)
{
	/* A namespace is a DNS label: a valid subdomain without dots, at most 63 characters. */
	if (!kubename_valid(ns) || strchr(ns, '.') || strlen(ns) > KUBE_NS_MAX)
		return errmsg_set(err, errlen, -EINVAL, "invalid namespace for an Event: not a DNS label");
	if (!event || !*event || strnlen(event, KUBE_EVENT_MAX + 1) > KUBE_EVENT_MAX)
		return errmsg_set(err, errlen, -EINVAL, "refusing an empty or over-long Event");
	ret->method = "POST";
	ret->content_type = "application/json";
	ret->body = event;
	snprintf(ret->path, sizeof(ret->path), "/apis/events.k8s.io/v1/namespaces/%s/events", ns);
	return 0;
}

int kube_write_send(struct http_client *c, const struct kube_write *w, struct http_response *resp)
{
	return http_request(c, w->method, w->path, w->content_type, w->body, resp);
}

int kube_patch_node(struct http_client *c, const char *node, bool status, const char *patch,
		    struct http_response *resp)
{
	struct kube_write w;
	char err[160];
	int r = kube_write_patch_node(node, status, patch, &w, err, sizeof(err));

	return r < 0 ? kube_refuse(resp, r, err) : kube_write_send(c, &w, resp);
}

int kube_list_networks(struct http_client *c, struct http_response *resp)
{
	return http_request(c, "GET", "/apis/networking.gke.io/v1/networks", NULL, NULL, resp);
}

int kube_list_slices(struct http_client *c, const char *node, struct http_response *resp)
{
	return kube_get_named(c, KUBE_RESOURCE_SLICES "?fieldSelector=" KUBE_SLICES_SELECTOR, node, "node", resp);
}

int kube_get_training_runtime(struct http_client *c, const char *name, struct http_response *resp)
{
	return kube_get_named(c, KUBE_TRAINING_RUNTIMES "/", name, "runtime", resp);
}
