/* kubefacts.h - what the node checks read from the pod list: releases, the installer, container states (pure). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "probes/model/observation.h"
#include "probes/model/strbuf.h"
#include "report/checks/profile.h"
#include "report/checks/releases.h"

/* The release table in effect: --releases, else the built-in one. */
const struct releases *kubefacts_releases(const struct obs_kube *k);

/*
 * kubefacts_version_of() - the release of a container's image: a digest the table knows (the
 * running imageID first: it is what actually runs), else the tag as written, else "" (unknown).
 * The string is owned by @k or by the table.
 */
const char *kubefacts_version_of(const struct obs_kube *k, const struct kube_container *ct);

/*
 * kubefacts_fabric() - whose release table a container's image belongs to: its folder
 * (gpudirect-tcpxo/ or gpudirect-tcpx/), else, for a mirror that flattened the path, the node's
 * profile (TCPX on a tcpx node, TCPXO otherwise).
 */
enum releases_fabric kubefacts_fabric(const struct kube_container *ct, enum profile_kind node);

/* The pod @ct belongs to and its container of the same name (either may be NULL when absent). */
const struct pod *kubefacts_pod(const struct obs_kube *k, const struct kube_container *ct);
const struct pod_container *kubefacts_container(const struct obs_kube *k, const struct kube_container *ct);

/* kubefacts_fetch_why() - " (@f's message)" in @buf (KUBE_MSG_MAX + 3 bytes), or "" when it has none. */
const char *kubefacts_fetch_why(const struct kube_fetch *f, char *buf, size_t len);

/* Whether a pod has ended (phase Succeeded or Failed): its containers no longer run or matter. */
bool kubefacts_pod_ended(const struct pod *p);

/*
 * kubefacts_is_installer() - whether @ct is the plugin installer: the init container
 * nccl-tcpxo-installer (or nccl-tcpx-installer) of a pod labelled k8s-app=<the same name>, owned
 * by a DaemonSet, in kube-system (or gpudirect-system, Google's Autopilot manifest). Any other
 * container running the plugin image (NCCL test pods run it as their workload) is a workload.
 */
bool kubefacts_is_installer(const struct obs_kube *k, const struct kube_container *ct);

/* How a container is doing, from its status. */
enum kubefacts_run {
	KUBEFACTS_RUN_UNKNOWN = 0,      /* no status entry yet */
	KUBEFACTS_RUN_STARTING,         /* waiting: ContainerCreating or PodInitializing (or no reason) */
	KUBEFACTS_RUN_RUNNING,          /* running, and no earlier non-zero exit */
	KUBEFACTS_RUN_DONE,             /* terminated with exit code 0 */
	KUBEFACTS_RUN_FAILED,           /* waiting for another reason (CrashLoopBackOff, ImagePullBackOff,
					 * ...), terminated non-zero, or running again after a non-zero exit */
};

enum kubefacts_run kubefacts_run(const struct pod_container *pc);

/*
 * kubefacts_run_text() - append how @pc is doing, naming the reason, the exit code (the last
 * one when it is waiting or running again) and the restart count: "waiting: CrashLoopBackOff,
 * last exit code 1 (Error), 7 restarts", "terminated: exit code 2 (Error), 0 restarts",
 * "running". Host strings are made printable. Return: 0 or -ENOMEM.
 */
int kubefacts_run_text(const struct pod_container *pc, struct strbuf *out);
