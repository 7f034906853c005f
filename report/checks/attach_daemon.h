/* attach_daemon.h - the daemon container's findings: which one, its version, command line, mounts and devices. */
#pragma once

#include "report/checks/attach.h"

/*
 * Shared by the workload checker (attach_judge.c) and the node's daemon-pod check
 * (check_daemonpod.c): one rule set for the daemon container wherever it runs.
 */

/**
 * attach_daemon_pick() - the container of @p that runs the daemon for the node's fabric:
 * the first running a tcpgpudmarxd-dev image of the fabric's folder, else the first of an
 * unknown folder (a mirror that flattened the path).
 * @ret_other: when not NULL, the first daemon container of the other fabric (or NULL).
 * Return: the container, or NULL when none fits.
 */
const struct pod_container *attach_daemon_pick(const struct pod *p, enum profile_kind kind,
					       const struct pod_container **ret_other);

/* daemon-sidecar: w->daemon (NULL when none) runs the daemon as a native sidecar or a regular container, running. */
int attach_daemon_sidecar(const struct attach_pod *w, struct finding *f);

/* daemon-version: w->daemon's release (tag, or a digest the release table knows) pairs with the installed plugin. */
int attach_daemon_version(const struct attach_pod *w, struct finding *f);

/* daemon-args: w->daemon's command runs the daemon program, without a fatal flag (retired flags warn). */
int attach_daemon_args(const struct attach_pod *w, struct finding *f);

/*
 * daemon-mounts, the daemon's side: host /sys at /hostsysfs, /proc/sys at /hostprocsysfs, the
 * NVIDIA library path (and its lib64 on LD_LIBRARY_PATH), NET_ADMIN (+ NET_BIND_SERVICE on
 * TCPXO) or privileged; on TCPX the /run/tcpx socket directory. Adds to @a.
 */
void attach_daemon_mounts(const struct pod *p, const struct pod_container *c, const struct attach_node *n,
			  struct finding_acc *a);

/*
 * device-injection: unless w->daemon is privileged, the pod's devices.gke.io/container.<name>
 * annotation is YAML listing every device of the node's, and the NRI device injector runs there.
 */
int attach_device_injection(const struct attach_pod *w, struct finding *f);

/* The two halves of device-injection: the pod's annotation for @c, and the injector on the node. */
void attach_device_annotation(const struct pod *p, const struct pod_container *c, const struct attach_node *n,
			      struct finding_acc *a);
void attach_injector(const struct attach_node *n, const char *name, struct finding_acc *a);

