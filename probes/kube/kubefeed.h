/* kubefeed.h - pure: the API facts of struct obs_kube from the daemon's watch stores (reflectors). */
#pragma once

#include <stddef.h>

#include "probes/kube/reflector.h"
#include "probes/model/obs_kube.h"

/*
 * The daemon follows its Node, the pods on it and the Networks with one reflector each; these
 * turn a filled store into the same facts a GET would give, through the same parsers, handed
 * the store's parsed objects (kubeparse_node_tree(), kubeparse_pod_items(),
 * kubeparse_network_items(): never printed and parsed again), so evaluation cannot tell how the
 * facts were read. Each replaces its part of @k and sets its fetch state; the other parts are
 * left as they are.
 */

/**
 * kubefeed_node() - the node part of @k from @r, a store of the Nodes named @node
 * (fieldSelector metadata.name=@node). An empty store means the node does not exist: a fetch
 * FAILED with status 404, as GET /api/v1/nodes/@node would say.
 * @prefix: our annotation key prefix (see kubeparse_node()).
 * Return: 0 (k->node_fetch OK); -EAGAIN when @r was never filled (@k untouched); -ENOENT for no
 * such node, -EINVAL for a Node the parser refuses (k->node_fetch FAILED, its message says
 * why, the previous node facts kept); -ENOMEM.
 */
int kubefeed_node(const struct reflector *r, const char *node, const char *prefix, struct obs_kube *k);

/**
 * kubefeed_pods() - the pod part of @k from @r, a store of the pods bound to the node.
 * A pod the parser cannot read is set aside in k->aside, the others read (kubeparse_pods()).
 * Return: 0 (k->pods_fetch OK); -EAGAIN when @r was never filled; -EINVAL (k->pods_fetch
 * FAILED: the list refused, the previous pods kept); -ENOMEM.
 */
int kubefeed_pods(const struct reflector *r, struct obs_kube *k);

/**
 * kubefeed_networks() - the Network part of @k from @r, a store of networks.networking.gke.io.
 * Return: as kubefeed_pods(), for k->networks_fetch.
 */
int kubefeed_networks(const struct reflector *r, struct obs_kube *k);

/**
 * kubefeed_slices() - the ResourceSlice part of @k from @r, a store of the node's ResourceSlices
 * (kubeslices_items()). Return: as kubefeed_pods(), for k->slices_fetch.
 */
int kubefeed_slices(const struct reflector *r, struct obs_kube *k);

/**
 * kubefeed_failed() - a read of the part behind @f that did not succeed (as a GET's failure is
 * recorded): FORBIDDEN for @status 403, FAILED otherwise, @err (-errno), @message cut to fit.
 * The facts themselves are left as they are: an API failure removes nothing.
 */
void kubefeed_failed(struct kube_fetch *f, long status, int err, const char *message);
