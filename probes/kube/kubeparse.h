/* kubeparse.h - Node and NetworkList JSON -> struct obs_kube (pure parsers, no I/O). */
#pragma once

#include <stddef.h>

#include "probes/model/json.h"
#include "probes/model/obs_kube.h"

#define KUBEPARSE_ANN_PREFIX_MAX 254            /* DNS subdomain + '/' */

/**
 * kubeparse_node() - parse a Node (GET /api/v1/nodes/<node>) into the node part of @k:
 * name, uid, instance-type and gke-accelerator labels, networking.gke.io/nic-info and
 * north-interfaces (joined on IP), the current values of our annotations and labels under
 * @prefix, and our condition (KUBE_CONDITION_TYPE) among the first KUBE_CONDITIONS_MAX of
 * status.conditions. A condition entry that is not an object or has no string type is skipped;
 * one of our type with a field of the wrong type is an error; an over-long reason or message
 * is kept as "differs" (reason_long, message_long), never cut.
 * A malformed nic-info or north-interfaces value is a finding, not a parse error: it is
 * recorded in k->nic_info_error / k->north_error and the rest is still read.
 * The node part of @k is replaced only on success; fetch states are the caller's.
 * @prefix: annotation key prefix ending in '/'; NULL for "fabric.aicr.run/".
 * @err: when not NULL, @errlen bytes saying what is wrong, naming the field.
 *
 * Return: 0; -EINVAL for malformed JSON, a body that is not a Node, a wrong type or an
 * over-long value in a field we read, or a bad @prefix; -ENOMEM.
 */
int kubeparse_node(const char *body, size_t len, const char *prefix, struct obs_kube *k,
		   char *err, size_t errlen);

/**
 * kubeparse_networks() - parse a NetworkList (GET /apis/networking.gke.io/v1/networks) into
 * k->networks: name, spec.type, spec.parametersRef, Ready and ParamsReady conditions.
 * The network part of @k is replaced only on success.
 *
 * Return: 0; -EINVAL for malformed JSON, wrong types, over-long names or more than
 * KUBE_NETWORKS_MAX items; -ENOMEM.
 */
int kubeparse_networks(const char *body, size_t len, struct obs_kube *k, char *err, size_t errlen);

/*
 * kubeparse_node_tree(), kubeparse_network_items() - as kubeparse_node() and
 * kubeparse_networks(), from what is already parsed: the Node @root; the @n Networks @items (a
 * watch store's objects, a list's items). Return: as those, less their "not valid JSON".
 */
/* A reader of a list's @n @items into @k: kubeparse_network_items(), kubeparse_pod_items(). */
typedef int (*kubeparse_items_fn)(const struct json *const *items, size_t n, struct obs_kube *k, char *err,
				  size_t errlen);

/* kubeparse_list() - @body as a list document (kubejson_list(): @what, @kinds) whose items @fn reads into @k. */
int kubeparse_list(const char *body, size_t len, const char *what, const char *const *kinds, kubeparse_items_fn fn,
		   struct obs_kube *k, char *err, size_t errlen);

int kubeparse_node_tree(const struct json *root, const char *prefix, struct obs_kube *k, char *err, size_t errlen);

/* Whether the Node @root carries GKE managed DRANET's label (obs_kube.dranet's rule); false for NULL. */
bool kubeparse_node_dranet(const struct json *root);
int kubeparse_network_items(const struct json *const *items, size_t n, struct obs_kube *k, char *err, size_t errlen);

/**
 * kubeparse_label_key() - "<prefix><name>" of one of our labels into @buf.
 * Return: as kubeparse_ann_key().
 */
int kubeparse_label_key(const char *prefix, enum kube_label_key key, char *buf, size_t len);

/**
 * kubeparse_ann_key() - "<prefix><name>" of one of our keys into @buf.
 * Return: 0; -EINVAL for a prefix that is empty, over-long or does not end in '/';
 * -ENOSPC when @len is too small.
 */
int kubeparse_ann_key(const char *prefix, enum kube_ann_key key, char *buf, size_t len);
