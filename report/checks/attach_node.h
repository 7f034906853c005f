/* attach_node.h - the node facts of workload attachment, built from this node's observation and verdict. */
#pragma once

#include "report/checks/attach.h"

/**
 * attach_node_build() - what the pods on this node are judged against, from the observation and
 * the evaluated profile (rows, the API's Networks, the version pair): profile kind, GPU and GPU
 * NIC counts, each GPU NIC's Network (unknown without the node's GKE annotations), the installed
 * plugin and the daemon it pairs with, the daemon's device list, the NRI device injector pod on
 * the node, and the plugin's files present in the NVIDIA lib64.
 * @p: evaluated far enough that the version pair ran (profile_evaluate() does it before
 *     daemon-pod).
 * @ret: written in every case.
 */
void attach_node_build(const struct observation *o, const struct profile *p, struct attach_node *ret);

/*
 * attach_node_set_devices() - the daemon's device list of a node of @kind with @gpus GPUs:
 * /dev/nvidia0..N-1, nvidiactl, nvidia-uvm and, for TCPXO, dmabuf_import_helper. Empty (unknown)
 * for PROFILE_NONE, 0 GPUs, or more than the list holds.
 */
void attach_node_set_devices(struct attach_node *n, enum profile_kind kind, size_t gpus);

/* The NRI device injector's pods: namespace kube-system, label k8s-app=device-injector. */
#define ATTACH_INJECTOR_NS "kube-system"
#define ATTACH_INJECTOR_LABEL "k8s-app"
#define ATTACH_INJECTOR_APP "device-injector"
