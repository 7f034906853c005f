/* sampler.c - when the daemon samples the GPU pods' transport, and one log line per judged change. */
#include <errno.h>
#include <stdio.h>

#include "agent/log.h"
#include "agent/observe.h"
#include "agent/sampler.h"
#include "report/checks/transport.h"

int sampler_take(struct tsample *ts, struct schedule *sched, struct observation *o, bool have_facts, bool due,
		 uint64_t now)
{
	bool fresh = false, sample;
	size_t n = 0;
	int r;

	if (have_facts && o->kube->pods_fetch.state == KUBE_FETCH_OK)
		n = tsample_running(ts, o->kube, o->node, &fresh);
	sample = n && (due || fresh);
	if (sample) {
		r = observe_transport(o, ts);
		if (r == 0)
			r = tsample_carry(ts, &o->transport);
		if (r == -ENOMEM)
			return r;
	} else if (!n) {
		tsample_free(ts);
	}
	schedule_transport(sched, now, n > 0, sample);
	return 0;
}

void sampler_log(struct tsample *ts, const struct workloads *w)
{
	char pod[320];

	for (size_t i = 0; i < w->n; i++) {
		const struct workloads_pod *wp = &w->pods[i];

		if (!wp->pod->uid || !tsample_note(ts, wp->pod->uid, wp->transport.state))
			continue;
		snprintf(pod, sizeof(pod), "%s/%s", wp->pod->ns ? wp->pod->ns : "", wp->pod->name ? wp->pod->name : "");
		log_emit(transport_state_fails(wp->transport.state) ? LOG_LEVEL_WARN : LOG_LEVEL_INFO, "pod transport",
			 "pod", pod, "state", transport_state_name(wp->transport.state), "evidence",
			 wp->transport.evidence, NULL);
	}
}
