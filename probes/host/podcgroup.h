/* podcgroup.h - the pod and container a process belongs to, from its /proc/<pid>/cgroup (pure). */
#pragma once

#include <stddef.h>

#include "probes/model/obs_transport.h"

#define PODCGROUP_ID_MAX 129            /* a container id (64 hex for containerd, docker, CRI-O) with room */
#define PODCGROUP_LINE_MAX 4096         /* PATH_MAX */
#define PODCGROUP_LINES_MAX 64          /* cgroup v1 hierarchies */

/* A process's pod: metadata.uid with '-' (as the API writes it) and its container's id ("" none). */
struct podcgroup {
	char uid[OBS_TRANSPORT_UID_MAX];
	char container_id[PODCGROUP_ID_MAX];
};

/**
 * podcgroup_parse() - read the text of a /proc/<pid>/cgroup file.
 * cgroup v2 is one line "0::<path>"; v1 has one "N:controllers:<path>" line per hierarchy, and any
 * of them with a pod path names the pod (two naming different pods is an error). A path names a
 * pod as the kubelet lays it out:
 *   cgroupfs driver: .../kubepods[/burstable|/besteffort]/pod<uid>/<container id>
 *   systemd driver:  .../kubepods[-<qos>]-pod<uid with '_'>.slice/{cri-containerd,docker,crio}-<id>.scope
 * (the parent of the pod's cgroup may be ".." where the reader sits in a cgroup namespace).
 * A process in the pod's cgroup but in no container's has container id "". CRI-O's conmon
 * (crio-conmon-<id>.scope) runs in the host's network namespace: it is no pod's process.
 * @ret: written when the process is a pod's.
 *
 * Return: 1 a pod's process, 0 not a pod's (a host process, conmon), -EBADMSG a malformed file
 * (@err says which line and why).
 */
int podcgroup_parse(const char *buf, size_t len, struct podcgroup *ret, char *err, size_t errlen);

/**
 * podcgroup_container_id() - the bare id of a containerStatuses[].containerID
 * ("containerd://<id>", "docker://<id>", "cri-o://<id>"), or of a bare id.
 * Return: the id within @s (not a copy), or NULL when @s has no id after the scheme.
 */
const char *podcgroup_container_id(const char *s);
