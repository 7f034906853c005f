/* observe.h - run every probe into one observation. */
#pragma once

#include "agent/cli.h"
#include "probes/model/observation.h"

struct tsample;         /* agent/tsample.h: the daemon's last transport sample */
struct workloads;       /* report/checks/workloads.h: the judged GPU pods */

/**
 * observe_rootfd() - --root (@root) as one directory fd, opened on the first call and handed to
 * every probe after (node_exporter's one root, passed in); another @root closes it and opens
 * that one. Not closed: the process holds it. Return: the fd; -errno when it cannot be opened
 * (the probes say so in their status; the next call tries again).
 */
int observe_rootfd(const char *root);

/**
 * observe_node() - run the node-side probes (PCI, links, host files) under opt->root.
 * A failing probe is recorded in its status; the others still run.
 * @facts: the API facts the observation lends (ret->kube), owned and kept by the caller.
 * @ret: filled in every case; free with observation_free().
 *
 * Return: 0 when the core of the node (PCI bus and links) was observed; -EIO when it was not
 * (the report then says why; --once exits 2).
 */
int observe_node(const struct cli_options *opt, const struct obs_kube *facts, struct observation *ret);

/**
 * observe_transport() - sample the transport of the node's running GPU pods (probes/host/podnet.c):
 * the pods of o->kube->pods that obs_transport_wants() names for o->node, each found in
 * o->root's /proc by its uid (a process of one of its GPU containers, imageref_gpu_container(),
 * by containerID, preferred). @last: the daemon's last sample (NULL: none): each pod's process
 * read then is tried first (podnet_pod.pid_hint), so a steady daemon reads no /proc listing.
 * Replaces o->transport: sampled false and nothing read under /proc when no such pod runs (or
 * o->node is unknown); else one entry per pod (at most OBS_TRANSPORT_PODS_MAX), wall_s
 * (CLOCK_REALTIME) and each pod's sampled_ms (CLOCK_MONOTONIC) set. A ROOT/proc that cannot be
 * listed is recorded in o->transport.status, not returned.
 *
 * Return: 0, or -ENOMEM.
 */
int observe_transport(struct observation *o, const struct tsample *last);

/**
 * observe_transport_window() - the one-shot commands' second reading: when a pod of @w waits for
 * rates (its transport judged unmeasured: no client, past the grace, one reading), wait @window_s
 * seconds after o->transport's reading and read those pods' net/dev again (podnet_again()); each
 * such pod's first reading becomes its previous one and sampled_ms this reading's time. Pods with
 * a client, or within the grace, are not read again. Judge @w again afterwards.
 * Return: the pods that waited (0: none, nothing slept); -ENOMEM.
 */
int observe_transport_window(struct observation *o, const struct workloads *w, unsigned window_s);
