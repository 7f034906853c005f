/* workloads.h - every GPU pod on the node judged against its fabric (attach_judge over the observation's pods). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "report/checks/attach.h"
#include "report/checks/transport.h"

struct workloads_pod {
	const struct pod *pod;          /* in the observation: lives as long as it */
	struct attach_result result;
	struct transport_result transport;      /* workloads_transport(): its processes' sockets to the daemon */
};

struct workloads {
	bool judged;                    /* the pod list was read */
	char why[256];                  /* not judged: why */
	struct attach_node node;        /* the facts they were judged against */
	struct workloads_pod *pods;     /* the GPU pods (attach_pod_selected), by namespace and name */
	size_t n;
	size_t counts[ATTACH_VERDICT__COUNT];
	size_t n_unscheduled;           /* GPU pods of the list without a node: not judged */
	bool transport_judged;          /* workloads_transport() ran: each pod's transport is set */
	size_t transport_counts[TRANSPORT__COUNT];
};

/**
 * workloads_evaluate() - judge every pod of o->kube->pods that runs (or waits) on this node with
 * at least one GPU. Pods bound to another node (a --pods-file of the whole cluster) and pods
 * not yet scheduled are left out; the latter are counted.
 * @p: the evaluated profile of the same observation.
 * @ret: written on success (judged false, with why, when the pod list was not read); free with
 *       workloads_free().
 *
 * Return: 0 or -ENOMEM.
 */
int workloads_evaluate(const struct observation *o, const struct profile *p, struct workloads *ret);

/**
 * workloads_judge() - judge every pod of @k->pods bound to @node (NULL or "": every scheduled one)
 * with at least one GPU against @facts (attach_node_build()'s from an observation, or
 * fleet_node_build()'s from what a node published); the rest as workloads_evaluate().
 * Return: 0 or -ENOMEM.
 */
int workloads_judge(const struct obs_kube *k, const char *node, const struct attach_node *facts,
		    struct workloads *ret);

void workloads_free(struct workloads *w);       /* accepts NULL; leaves *w zeroed */

/* Whether any judged pod is partial or unattached. */
bool workloads_any_unattached(const struct workloads *w);

/**
 * workloads_transport() - judge each pod's transport (transport_judge()) from o->transport, the
 * sample of the same observation's pods, held to @lim (--transport-grace, --transport-tcp-rate).
 * Sets transport_judged and the counts. Nothing when @w was not judged.
 */
void workloads_transport(struct workloads *w, const struct observation *o, const struct transport_limits *lim);

/* Whether a judged pod waits for a second reading of its traffic (transport_result.unmeasured). */
bool workloads_transport_unmeasured(const struct workloads *w);

/* Whether any pod's transport is tcp or partial (workloads exits 1; the node's verdict never changes). */
bool workloads_any_transport_failed(const struct workloads *w);
