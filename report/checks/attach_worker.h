/* attach_worker.h - the findings of the pod as a whole and of its GPU containers: GPUs, interfaces, aperture, plugin, env, IPC_LOCK. */
#pragma once

#include "report/checks/attach.h"

/* all-gpus: the pod requests every GPU of the node (TCPXO uses all GPUs and all GPU NICs). */
int attach_all_gpus(const struct attach_pod *w, struct finding *f);

/*
 * interfaces: networking.gke.io/interfaces (JSON) binds eth0 to default and each GPU NIC to the
 * Network the node has it on (hostNetwork pods use the node's own NICs).
 */
int attach_interfaces(const struct attach_pod *w, struct finding *f);

/* Whether the interfaces annotation carries any GPU NIC (or is there but unreadable): wiring. */
bool attach_interfaces_wired(const struct pod *p);

/* aperture (TCPXO): each unprivileged GPU container mounts the LLCM devices and points the plugin at them. */
int attach_aperture(const struct attach_pod *w, struct finding *f);

/* plugin-path: each GPU container can load the plugin from the host's NVIDIA lib64. */
int attach_plugin_path(const struct attach_pod *w, struct finding *f);

/* nccl-env: the release's variable set in each GPU container, nothing of the other fabric, config files that exist. */
int attach_nccl_env(const struct attach_pod *w, struct finding *f);

/* ipc-lock: each GPU container may pin memory (IPC_LOCK or privileged). */
int attach_ipc_lock(const struct attach_pod *w, struct finding *f);

/*
 * daemon-mounts: the daemon's side (attach_daemon_mounts()) and, on TCPX, the GPU containers':
 * each mounts the host's /run/tcpx, where the daemon's socket is.
 */
int attach_mounts(const struct attach_pod *w, struct finding *f);

/* Whether @c's command sources Google's nccl-env-profile.sh (which sets the variables and LD_LIBRARY_PATH). */
bool attach_sources_profile(const struct pod_container *c);
