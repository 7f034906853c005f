/* workload_events.c - the daemon's pod Events: judge the node's GPU pods, queue one Event per uid and verdict, post. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "agent/log.h"
#include "agent/workload_events.h"
#include "report/checks/workloads.h"
#include "report/render/pod_event.h"

#define WORKLOAD_EVENTS_KEY_MAX 192

/* "pod/<uid>/<verdict>": one Event per pod and verdict. */
static void workload_events_key(const struct pod *pod, enum attach_verdict v, char *buf, size_t len)
{
	snprintf(buf, len, "pod/%s/%s", pod->uid, attach_verdict_name(v));
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

static int workload_events_queue(struct publisher *pb, const struct observation *o, const struct profile *p,
				 uint64_t now)
{
	struct workloads w = { 0 };
	char key[WORKLOAD_EVENTS_KEY_MAX];
	int r;

	r = workloads_evaluate(o, p, &w);
	if (r < 0)
		return r;
	for (size_t i = 0; i < w.n && w.judged; i++) {
		const struct pod *pod = w.pods[i].pod;
		struct kube_event_ref ref = { .kind = "Pod", .ns = pod->ns, .name = pod->name, .uid = pod->uid };
		struct pod_event ev;

		if (!pod->uid || !pod->ns || !pod->name || !pod_event_build(&w.pods[i].result, p->kind, &ev))
			continue;
		workload_events_key(pod, w.pods[i].result.verdict, key, sizeof(key));
		if (eventq_seen(&pb->events, key))
			continue;
		r = publisher_event(pb, o->node, &ref, ev.type, ev.reason, ev.action, ev.note, key, now);
		if (r == -ENOMEM)
			break;
		if (r < 0)
			log_emit(LOG_LEVEL_ERROR, "pod Event not made", "pod", pod->name, "namespace", pod->ns,
				 "error", strerror(-r), NULL);
		r = 0;
	}
	if (r == 0 && w.judged)
		eventq_forget(&pb->events, workload_events_keep, (void *)&o->kube);
	workloads_free(&w);
	return r;
}

int workload_events_run(struct publisher *pb, const struct observation *o, const struct profile *p, uint64_t now)
{
	char err[512], count[16], dropped[16], waiting[16];
	unsigned posted, was_dropped = pb->events.dropped;
	int r;

	r = workload_events_queue(pb, o, p, now);
	if (r < 0)
		return r;
	r = publisher_post_events(pb, now, &posted, err, sizeof(err));
	snprintf(count, sizeof(count), "%u", posted);
	snprintf(dropped, sizeof(dropped), "%u", pb->events.dropped - was_dropped);
	snprintf(waiting, sizeof(waiting), "%zu", pb->events.n);
	if (posted)
		log_emit(LOG_LEVEL_INFO, "Events posted", "count", count, NULL);
	if (r < 0)
		log_emit(LOG_LEVEL_ERROR, "Event not posted", "error", err, "waiting", waiting, "dropped", dropped, NULL);
	return 0;
}
