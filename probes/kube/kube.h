/* kube.h - the Kubernetes API calls the agent makes (fetching only; parsing lives elsewhere). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "probes/kube/http.h"
#include "probes/kube/kubename.h"

#define KUBE_NODE_NAME_MAX KUBENAME_MAX        /* a DNS subdomain (RFC 1123): kubename_valid() */

/**
 * kube_get_node() - GET /api/v1/nodes/<node>.
 * @resp: filled in every case (see http_request()); free with http_response_free().
 * Return: 0 with the Node JSON in resp->body; -EINVAL for a name that is not a DNS subdomain
 * (nothing is sent); otherwise as http_request(): -EIO with resp->status 404 means the node
 * does not exist (absent), 403 that RBAC does not allow reading it.
 */
int kube_get_node(struct http_client *c, const char *node, struct http_response *resp);

/**
 * kube_list_pods() - GET /api/v1/pods?fieldSelector=spec.nodeName%3D<node>: the pods of
 * every namespace bound to @node.
 * Return: 0 with the PodList JSON in resp->body; -EINVAL for a bad node name; otherwise as
 * http_request().
 */
int kube_list_pods(struct http_client *c, const char *node, struct http_response *resp);

/**
 * kube_patch_node() - PATCH /api/v1/nodes/<node> with @patch, an RFC 7386 JSON merge patch sent
 * as application/merge-patch+json; with @status, PATCH /api/v1/nodes/<node>/status with a
 * strategic merge patch (application/strategic-merge-patch+json: lists such as
 * status.conditions merge by their key instead of being replaced). Not validated here beyond
 * being non-empty and at most 1 MiB.
 * Return: 0 with the updated Node JSON in resp->body; -EINVAL for a bad node name or patch;
 * otherwise as http_request() (-EIO with status 404: no such node; 403: not allowed, e.g. RBAC
 * lacks patch on nodes/status).
 */
int kube_patch_node(struct http_client *c, const char *node, bool status, const char *patch,
		    struct http_response *resp);

/*
 * The writes above as requests not yet sent, for a caller that sends them without waiting (the
 * daemon, on the client's streams: http_stream_open() with cfg.method, content_type, body).
 */
#define KUBE_WRITE_PATH_MAX 384         /* "/apis/events.k8s.io/v1/namespaces/<63>/events", "/api/v1/nodes/<253>/status" */

struct kube_write {
	const char *method;             /* "PATCH" or "POST" (literals) */
	const char *content_type;       /* a literal */
	const char *body;               /* the caller's: not owned */
	char path[KUBE_WRITE_PATH_MAX];
};

/**
 * kube_write_patch_node() - the request of kube_patch_node(), checked as it checks it, into @ret.
 * Return: 0; -EINVAL for a bad node name or patch (@err says why; nothing to send).
 */
int kube_write_patch_node(const char *node, bool status, const char *patch, struct kube_write *ret, char *err,
			  size_t errlen);

/*
 * kube_write_event() - the request that POSTs @event (an events.k8s.io/v1 Event as JSON, at most
 * 64 KiB) to /apis/events.k8s.io/v1/namespaces/@ns/events, into @ret.
 * Return: 0; -EINVAL for a namespace that is not a DNS label or a bad body (@err says why).
 */
int kube_write_event(const char *ns, const char *event, struct kube_write *ret, char *err, size_t errlen);

/* Send @w now and wait for its answer (http_request()). Return: as http_request(). */
int kube_write_send(struct http_client *c, const struct kube_write *w, struct http_response *resp);

/**
 * kube_list_networks() - GET /apis/networking.gke.io/v1/networks (GKE multi-network Network
 * objects; optional facts: a 403 means RBAC does not allow them, a 404 that the CRD is absent).
 * Return: as http_request().
 */
int kube_list_networks(struct http_client *c, struct http_response *resp);

#define KUBE_RESOURCE_SLICES "/apis/resource.k8s.io/v1/resourceslices"
/*
 * The slices of GKE managed DRANET's driver on one node (the node's name follows, URL-encoded
 * "spec.driver=dra.net,spec.nodeName="): another DRA driver's slices (a GPU driver's are large) are
 * neither fetched nor parsed, so none of them can make the read fail.
 */
#define KUBE_SLICES_SELECTOR "spec.driver%3Ddra.net%2Cspec.nodeName%3D"

/**
 * kube_list_slices() - GET /apis/resource.k8s.io/v1/resourceslices?fieldSelector=spec.driver=dra.net,spec.nodeName=@node
 * (the DRA ResourceSlices bound to the node; optional facts: a 403 means RBAC does not allow
 * them, a 404 that the server does not serve resource.k8s.io/v1).
 * Return: as http_request(); -EINVAL for an invalid node name.
 */
int kube_list_slices(struct http_client *c, const char *node, struct http_response *resp);

#define KUBE_TRAINING_RUNTIMES "/apis/trainer.kubeflow.org/v1alpha1/clustertrainingruntimes"

/**
 * kube_get_training_runtime() - GET /apis/trainer.kubeflow.org/v1alpha1/clustertrainingruntimes/<name>
 * (Kubeflow Trainer v2's cluster-scoped runtime; probes/kube/trainruntime.c reads the body).
 * Return: 0 with the object in resp->body; -EINVAL for a name that is not a DNS subdomain (nothing
 * is sent); otherwise as http_request(): -EIO with resp->status 404 when no runtime of that name
 * is installed, or when the API has no such resource (the Trainer's CRD is absent: the body is
 * then not a Status naming the runtime), 403 when RBAC does not allow reading it.
 */
int kube_get_training_runtime(struct http_client *c, const char *name, struct http_response *resp);
