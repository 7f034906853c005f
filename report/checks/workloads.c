/* workloads.c - every GPU pod on the node judged against its fabric. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/checks/attach_judge.h"
#include "report/checks/attach_node.h"
#include "report/checks/workloads.h"

void workloads_free(struct workloads *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->n; i++)
		attach_result_free(&w->pods[i].result);
	free(w->pods);
	memset(w, 0, sizeof(*w));
}

bool workloads_any_unattached(const struct workloads *w)
{
	return w->counts[ATTACH_PARTIAL] || w->counts[ATTACH_UNATTACHED];
}

int workloads_evaluate(const struct observation *o, const struct profile *p, struct workloads *ret)
{
	struct attach_node facts;

	attach_node_build(o, p, &facts);
	return workloads_judge(o->kube, o->node, &facts, ret);
}

int workloads_judge(const struct obs_kube *k, const char *node, const struct attach_node *facts,
		    struct workloads *ret)
{
	struct workloads w = { .node = *facts };
	int r;

	if (k->pods_fetch.state != KUBE_FETCH_OK) {
		if (!k->configured || k->pods_fetch.state == KUBE_FETCH_NOT_RUN)
			snprintf(w.why, sizeof(w.why), "no API access: the node's pods were not read");
		else
			snprintf(w.why, sizeof(w.why), "the node's pods were not read from the API (%.200s)",
				 k->pods_fetch.message[0] ? k->pods_fetch.message : "failed");
		*ret = w;
		return 0;
	}
	w.judged = true;
	if (k->n_pods && !(w.pods = calloc(k->n_pods, sizeof(*w.pods))))
		return -ENOMEM;
	for (size_t i = 0; i < k->n_pods; i++) {
		const struct pod *pod = &k->pods[i];
		struct workloads_pod *wp;

		if (!attach_pod_selected(pod))
			continue;
		if (!obs_pod_on_node(pod, NULL, false)) {
			w.n_unscheduled++;
			continue;
		}
		if (!obs_pod_on_node(pod, node, false))
			continue;
		wp = &w.pods[w.n];
		wp->pod = pod;
		r = attach_judge(pod, &w.node, &wp->result);
		if (r < 0) {
			workloads_free(&w);
			return r;
		}
		w.counts[wp->result.verdict]++;
		w.n++;
	}
	*ret = w;
	return 0;
}

void workloads_transport(struct workloads *w, const struct observation *o, const struct transport_limits *lim)
{
	if (!w->judged)
		return;
	memset(w->transport_counts, 0, sizeof(w->transport_counts));
	for (size_t i = 0; i < w->n; i++) {
		struct workloads_pod *wp = &w->pods[i];
		struct transport_input in = {
			.pod = wp->pod, .gpus = wp->result.gpus, .verdict = wp->result.verdict, .node = &w->node,
			.sample = &o->transport, .limits = *lim,
		};

		transport_judge(&in, &wp->transport);
		w->transport_counts[wp->transport.state]++;
	}
	w->transport_judged = true;
}

bool workloads_transport_unmeasured(const struct workloads *w)
{
	for (size_t i = 0; w->transport_judged && i < w->n; i++)
		if (w->pods[i].transport.unmeasured)
			return true;
	return false;
}

bool workloads_any_transport_failed(const struct workloads *w)
{
	if (!w->transport_judged)
		return false;
	for (unsigned st = 0; st < TRANSPORT__COUNT; st++)
		if (w->transport_counts[st] && transport_state_fails((enum transport_state)st))
			return true;
	return false;
}
