/* apifacts.c - the daemon's API facts: read by polling or kept by the watches; whether they are read; when a write may go. */
#include <stdio.h>
#include <string.h>

#include "agent/apifacts.h"
#include "agent/log.h"
#include "probes/model/clockms.h"

enum schedule_api apifacts_open(struct apifacts *af, bool api, bool no_watch, const struct apiwatch_config *cfg)
{
	int r;

	if (!api)
		return SCHEDULE_API_NONE;
	if (no_watch)
		return SCHEDULE_API_POLL;
	r = apiwatch_new(cfg, &af->aw);
	if (r == 0)
		return SCHEDULE_API_WATCH;
	log_emit(LOG_LEVEL_ERROR, "cannot set up the API watches: polling instead", "error", strerror(-r), NULL);
	return SCHEDULE_API_POLL;
}

void apifacts_close(struct apifacts *af)
{
	apiwatch_free(af->aw);
	af->aw = NULL;
	obs_kube_free(&af->k);
}

bool apifacts_watches(struct apifacts *af, struct schedule *sched, unsigned due, uint64_t now)
{
	if (due & SCHEDULE_READ) {
		log_emit(LOG_LEVEL_DEBUG, af->aw_started ? "API resync: refilling every store" : "API: starting the watches",
			 NULL);
		af->aw_started = true;
		apiwatch_resync(af->aw, now);
		schedule_resynced(sched, now, clockms_random());
	}
	if (af->aw_settled)
		return true;
	schedule_observed(sched);       /* the first facts bring the first observation */
	return false;
}

int apifacts_update(struct apifacts *af)
{
	int r = apiwatch_update(af->aw, &af->k);

	if (r == 0)
		af->have = apiwatch_ready(af->aw);
	return r;
}

/* Whether the node and its pods are read; one pod that cannot be read is only set aside and named (check_version_pair()). */
static bool apifacts_read(struct apifacts *af)
{
	const struct kube_fetch *bad = af->k.node_fetch.state != KUBE_FETCH_OK ? &af->k.node_fetch :
				       af->k.pods_fetch.state != KUBE_FETCH_OK ? &af->k.pods_fetch : NULL;

	if (!bad) {
		if (af->unread_why[0])
			log_emit(LOG_LEVEL_INFO, "API facts read again", NULL);
		af->unread_why[0] = '\0';
		return true;
	}
	if (strcmp(af->unread_why, bad->message) != 0) {
		snprintf(af->unread_why, sizeof(af->unread_why), "%s", bad->message[0] ? bad->message : "failed");
		log_emit(LOG_LEVEL_ERROR, "API facts not read: nothing published, the node keeps its last values",
			 "what", bad == &af->k.node_fetch ? "node" : "pods", "error", af->unread_why, NULL);
	}
	return false;
}

bool apifacts_may_write(struct apifacts *af, struct schedule *sched, bool publish, unsigned due)
{
	bool retry = due & SCHEDULE_RETRY;

	if (retry)
		schedule_retry_taken(sched);
	return publish && af->have && apifacts_read(af) && (!sched->backoff.failures || retry);
}

void apifacts_drive(struct apifacts *af, struct schedule *sched, uint64_t now)
{
	unsigned long changes;

	apiwatch_drive(af->aw, now);
	changes = apiwatch_changes(af->aw);
	if (changes == af->aw_seen)
		return;
	af->aw_seen = changes;
	if (!af->aw_settled) {
		if (!apiwatch_settled(af->aw))
			return;
		af->aw_settled = true;
		schedule_observe_now(sched, now);
		return;
	}
	log_emit(LOG_LEVEL_DEBUG, "event", "source", "api", NULL);
	schedule_event(sched, now);
}
