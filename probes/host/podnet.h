/* podnet.h - the transport sample of the node's GPU pods: one process of each found in ROOT/proc, its net files read. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "probes/model/obs_transport.h"

/* The most read of one file; beyond, the counts are over the first part and the pod is marked cut. */
#define PODNET_UNIX_MAX (4u << 20)      /* net/unix: ~25,000 sockets of RxDM's 165-byte lines */
#define PODNET_UDP_MAX (1u << 20)       /* net/udp: ~8,000 sockets */
#define PODNET_DEV_MAX (64u << 10)      /* net/dev: ~300 interfaces */
#define PODNET_CGROUP_MAX 16384         /* /proc/<pid>/cgroup: a longer one is no pod's */

/* One pod to sample. */
struct podnet_pod {
	const char *uid;                        /* metadata.uid */
	const char *const *container_ids;       /* its GPU containers' bare ids (no "containerd://") */
	size_t n_container_ids;
	int pid_hint;                           /* 0, or the process the last sample read: tried first */
};

/* What one sample cost, for tests and the bench. */
struct podnet_stats {
	size_t hints;           /* pods settled by their pid_hint */
	size_t pids;            /* numeric entries of ROOT/proc looked at */
	size_t cgroups;         /* cgroup files read */
	size_t bytes;           /* net file bytes read */
};

/**
 * podnet_sample() - sample the transport of @pods under @rootfd (the directory fd of --root, the
 * host's "/" or a fixture, opened once by the caller, or its -errno; @root names it in messages).
 * First each pod's @pid_hint, if any: its cgroup read, and kept when it still names the pod and
 * one of its GPU containers (the daemon's steady state: no listing at all). Then, for the pods
 * still without one, one listing of ROOT/proc: each numeric entry's cgroup names its pod
 * (podcgroup.h), newest (highest) pid first; the pod's lowest pid is kept, unless one in a GPU
 * container (one of its @container_ids) is found: the listing stops once every pod has one in a
 * GPU container. A process that exits before its files are read is replaced by the pod's next
 * (twice at most). Then that process's net/unix, net/udp and net/dev are read (hostfs rules: resolved
 * inside @root, regular files only, non-blocking, bounded by the PODNET_*_MAX caps) and parsed
 * (procnet.h). Reads nothing when @n is 0.
 * @ret: filled in every case but -ENOMEM/-EINVAL: sampled, status (FAILED when ROOT/proc cannot
 *       be listed), one entry per distinct uid sorted by uid: READ, NO_PROCESS or UNREADABLE with
 *       why. Times (wall_s, sampled_ms) are the caller's. Free with obs_transport_free().
 * @st: when not NULL, what the sample cost.
 *
 * Return: 0, -ENOMEM, or -EINVAL (more than OBS_TRANSPORT_PODS_MAX pods, a uid empty or too long).
 */
int podnet_sample(int rootfd, const char *root, const struct podnet_pod *pods, size_t n, struct obs_transport *ret,
		  struct podnet_stats *st);

/**
 * podnet_again() - the second reading of a window (the one-shot commands): for each pod @t->pods[i]
 * with @which[i] that the sample read, read its process's net/dev again under @root, once its
 * cgroup still names the pod (a pid reused by another process in the window is never read as the
 * pod's). The first reading's counters and @t's sampled_ms become the pod's previous ones
 * (has_prev, prev, prev_ms); the caller sets sampled_ms to this reading's time. A process that
 * exited in the window, or a file that no longer reads, makes the pod UNREADABLE with why.
 * @st: when not NULL, what it cost (cgroups, bytes).
 * Return: the pods read again; -ENOMEM (@t is left as it was for the pods not reached).
 */
int podnet_again(int rootfd, const char *root, struct obs_transport *t, const bool *which, struct podnet_stats *st);
