/* kubeparse_pods.h - PodList JSON -> the pods of struct obs_kube and their installer/daemon containers (pure). */
#pragma once

#include <stddef.h>

#include "probes/model/json.h"
#include "probes/model/obs_kube.h"

#define KUBEPARSE_PODS_MAX 4096                 /* pods in one list */

/**
 * kubeparse_pods() - parse a PodList (GET /api/v1/pods?fieldSelector=spec.nodeName=...) into
 * k->pods (every pod, as probes/kube/kubepod.c reads one, sorted by namespace and name) and
 * k->containers: every container and init container whose image repository ends in
 * nccl-plugin-gpudirecttcpx-dev (installer) or tcpgpudmarxd-dev (daemon), with its pod,
 * tag, digests (spec image and status imageID), native-sidecar flag, running state
 * (status state.running, matched by container name) and, for daemons, command + args.
 * Containers with unparsable images are not ours and are skipped. A pod that kubepod cannot read
 * (a wrong type, a value over its limits) is set aside in k->aside, named with the reason and
 * whether it may run the installer or the daemon image (one that has ended runs nothing); the
 * other pods are read, and the checks name it in their own findings (check_version_pair()).
 * The pod part of @k is replaced only on success.
 *
 * Return: 0; -EINVAL for malformed JSON, not a PodList (or the "List" kubectl prints), items not
 * an array, or more than KUBEPARSE_PODS_MAX pods / KUBE_CONTAINERS_MAX of ours; -ENOMEM.
 */
int kubeparse_pods(const char *body, size_t len, struct obs_kube *k, char *err, size_t errlen);

/**
 * kubeparse_pod_items() - as kubeparse_pods(), from the @n Pods @items already parsed (a watch
 * store's objects, a list's items): "items[i]" names the i-th in messages.
 * Return: as kubeparse_pods() (-EINVAL only for more than KUBEPARSE_PODS_MAX pods or
 * KUBE_CONTAINERS_MAX of ours).
 */
int kubeparse_pod_items(const struct json *const *items, size_t n, struct obs_kube *k, char *err, size_t errlen);
