/* workload_events.c - the daemon's pod Events: from the node's judged GPU pods, queue one Event per uid and verdict or transport state. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "agent/log.h"
#include "agent/workload_events.h"
#include "report/checks/workloads.h"
#include "report/render/pod_event.h"

#define WORKLOAD_EVENTS_KEY_MAX 192

/*
 * Queue @ev under the key "pod/<uid>/<what>" (what: the verdict, or "transport-<state>") unless an
 * Event of that key was queued before: one Event per pod and verdict or transport state.
 * Return: 0; -ENOMEM.
 */
static int workload_events_post(struct publisher *pb, const struct observation *o, const struct kube_event_ref *ref,
				const struct pod_event *ev, const char *what, uint64_t now)
{
	char key[WORKLOAD_EVENTS_KEY_MAX];
	int r;

	snprintf(key, sizeof(key), "pod/%s/%s", ref->uid, what);
	if (eventq_seen(&pb->events, key))
		return 0;
	r = publisher_event(pb, o->node, ref, ev->type, ev->reason, ev->action, ev->note, key, now);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		log_emit(LOG_LEVEL_ERROR, "pod Event not made", "pod", ref->name, "namespace", ref->ns,
			 "reason", ev->reason, "error", strerror(-r), NULL);
	return 0;
}

/* Keep the keys of pods still on the node (a uid never comes back once its pod is gone). */
static bool workload_events_keep(const char *key, void *arg)
{
	const struct obs_kube *k = arg;
	size_t n;

	if (strncmp(key, "pod/", 4) != 0)
		return true;
	for (size_t i = 0; i < k->n_pods; i++) {
		const char *uid = k->pods[i].uid;

		if (uid && (n = strlen(uid)) && strncmp(key + 4, uid, n) == 0 && key[4 + n] == '/')
			return true;
	}
	return false;
}

int workload_events_queue(struct publisher *pb, const struct observation *o, const struct profile *p,
			  const struct workloads *w, uint64_t now)
{
	char state[32];
	int r = 0;

	for (size_t i = 0; i < w->n && w->judged; i++) {
		const struct pod *pod = w->pods[i].pod;
		struct kube_event_ref ref = { .kind = "Pod", .ns = pod->ns, .name = pod->name, .uid = pod->uid };
		struct pod_event ev;

		if (!pod->uid || !pod->ns || !pod->name)
			continue;
		if (pod_event_build(&w->pods[i].result, p->kind, &ev) &&
		    (r = workload_events_post(pb, o, &ref, &ev, attach_verdict_name(w->pods[i].result.verdict), now)) < 0)
			break;
		/* Only a fresh sample judges transport: between samples, nothing new is known. */
		if (w->transport_judged && pod_event_transport(&w->pods[i].transport, &ev)) {
			snprintf(state, sizeof(state), "transport-%s", transport_state_name(w->pods[i].transport.state));
			if ((r = workload_events_post(pb, o, &ref, &ev, state, now)) < 0)
				break;
		}
	}
	if (r == 0 && w->judged)
		eventq_forget(&pb->events, workload_events_keep, (void *)o->kube);
	return r;
}
