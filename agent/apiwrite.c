/* apiwrite.c - the daemon's writes to the API: one job at a time on the client's streams, never waited for; the backoff their failures start. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/apiwrite.h"
#include "agent/log.h"
#include "agent/signals.h"
#include "agent/workload_events.h"
#include "probes/kube/retry.h"
#include "probes/model/timetext.h"

#define APIWRITE_TIMEOUT_MS     15000u  /* one request, its attempts and waits: as the client's blocking calls */
#define APIWRITE_ATTEMPTS       3u

struct apiwrite {
	struct publisher *pb;
	struct schedule *sched;
	struct http_stream *s;          /* the request in flight (NULL: none) */
	struct publish_job job;         /* its job, while busy */
	bool busy;
	bool answered;                  /* the stream ended: its answer waits for apiwrite_drive() */
	struct publish_answer ans;
	char ans_error[256];
	const char *op;                 /* the request in flight, for the log ("patch node", ...) */
};

int apiwrite_new(struct publisher *pb, struct schedule *sched, struct apiwrite **ret)
{
	struct apiwrite *w = calloc(1, sizeof(*w));

	if (!w)
		return -ENOMEM;
	w->pb = pb;
	w->sched = sched;
	*ret = w;
	return 0;
}

void apiwrite_free(struct apiwrite *w)
{
	if (!w)
		return;
	http_stream_close(w->s);
	publisher_job_free(&w->job);
	free(w);
}

bool apiwrite_busy(const struct apiwrite *w)
{
	return w->busy;
}

/*
 * apiwrite_failed() - an API call failed at @now (@op: "read node", "patch node", ...; @status:
 * 0 no answer): one log line, and the schedule's backoff counted from @now.
 */
static void apiwrite_failed(struct apiwrite *w, uint64_t now, const char *op, long status, const char *err)
{
	uint64_t d = schedule_api_failed(w->sched, now, status);
	char retry[80], code[16], fails[16];

	log_delay_text(d, retry, sizeof(retry));
	snprintf(code, sizeof(code), "%ld", status);
	snprintf(fails, sizeof(fails), "%u", w->sched->backoff.failures);
	log_emit(LOG_LEVEL_ERROR, "API error", "op", op, "status", status ? code : "none", "error", err,
		 "failures", fails, "retry_in", retry, NULL);
}

/*
 * The polling read, the one API call the daemon waits for (bounded by the client's 15 s; SIGTERM
 * cancels it: signals_api() brackets it).
 */
int apiwrite_read(struct apiwrite *w, const char *node, struct obs_kube *facts, bool *have_facts, uint64_t now)
{
	struct obs_kube k = { 0 };
	const struct kube_fetch *bad;
	int r;

	signals_api(true);
	r = !signals_term() ? publisher_read(w->pb, node, &k) : -EINTR;
	signals_api(false);
	if (signals_term()) {
		obs_kube_free(&k);
		return -EINTR;
	}
	if (r == 0) {
		log_emit(LOG_LEVEL_DEBUG, "API read", "node", node, NULL);
	} else {
		bad = k.node_fetch.state != KUBE_FETCH_OK ? &k.node_fetch : &k.pods_fetch;
		apiwrite_failed(w, now, bad == &k.node_fetch ? "read node" : "list pods", bad->http_status, bad->message);
	}
	if (r != 0 && *have_facts) {
		obs_kube_free(&k);      /* the last good facts stand: an API failure removes nothing */
		return -EIO;
	}
	obs_kube_free(facts);
	*facts = k;                     /* without facts before, the report then says why they are missing */
	if (r != 0)
		return -EIO;
	*have_facts = true;
	return 0;
}

/* ---- the request in flight ---- */

static void apiwrite_done_cb(void *data, struct http_stream *s, const struct http_stream_end *end)
{
	struct apiwrite *w = data;

	w->s = NULL;            /* freed by the client once this returns */
	w->answered = true;
	w->ans.r = end->err;
	w->ans.status = end->status;
	w->ans.retry_after_s = end->retry_after_s;
	snprintf(w->ans_error, sizeof(w->ans_error), "%s", end->error ? end->error : "");
	w->ans.error = w->ans_error;
}

static const struct http_stream_ops apiwrite_ops = { .done = apiwrite_done_cb };

static const char *apiwrite_op(const struct publish_job *job)
{
	if (job->step == PUBLISH_STEP_STATUS)
		return strcmp(job->what, "heartbeat") == 0 ? "heartbeat" : "patch node status";
	return job->step == PUBLISH_STEP_NODE ? "patch node" : job->step == PUBLISH_STEP_EVENTS ? "post Event" : "write";
}

/* The job's next request on the streams. Return: 1 sent; 0 the job is done; -errno it could not be sent (as an answer). */
static int apiwrite_send(struct apiwrite *w, uint64_t now)
{
	struct http_stream_config cfg = {
		.mode = HTTP_STREAM_WHOLE, .timeout_ms = APIWRITE_TIMEOUT_MS, .max_attempts = APIWRITE_ATTEMPTS,
		.max_total_ms = APIWRITE_TIMEOUT_MS,
	};
	struct kube_write req;
	int r;

	if (!publisher_job_next(w->pb, &w->job, now, &req))
		return 0;
	cfg.method = req.method;
	cfg.content_type = req.content_type;
	cfg.body = req.body;
	w->op = apiwrite_op(&w->job);
	r = http_stream_open(w->pb->http, req.path, &cfg, &apiwrite_ops, w, &w->s);
	if (r < 0) {
		/* Not sent (no memory, the token file unreadable): the job's answer, as a request's would be. */
		w->answered = true;
		w->ans = (struct publish_answer){ .r = r, .error = w->ans_error };
		snprintf(w->ans_error, sizeof(w->ans_error), "%s %.200s: not sent: %s", req.method, req.path,
			 strerror(-r));
	}
	return 1;
}

/* ---- a job ends: the log, the schedule ---- */

/* The Events' next wake-up: the end of their backoff, or soon when some are due at once. */
static void apiwrite_events_wake(struct apiwrite *w, uint64_t now)
{
	uint64_t at = eventq_wake_at(&w->pb->events);

	schedule_events(w->sched, at && at <= now ? now + SCHEDULE_DEBOUNCE_MS : at);
}

static void apiwrite_ended(struct apiwrite *w, const struct obs_kube *facts, uint64_t now)
{
	struct publish_job *job = &w->job;
	const struct publish_result *res = &job->res;
	bool heartbeat = strcmp(job->what, "heartbeat") == 0, unobserved = strcmp(job->what, "unobserved") == 0;
	char keys[16], count[16], waiting[16], dropped[16];

	if (job->ret < 0) {
		if (heartbeat)
			schedule_heartbeat_failed(w->sched, now);
		apiwrite_failed(w, now, w->op, w->ans.status, job->err);
	} else if (heartbeat) {
		schedule_wrote(w->sched, now);
		log_emit(LOG_LEVEL_DEBUG, "heartbeat", "node", w->pb->node, "condition", facts->condition.status,
			 "time", facts->condition.last_heartbeat, NULL);
	} else if (unobserved) {
		schedule_heartbeat_sent(w->sched, now);
		log_emit(LOG_LEVEL_INFO, "published", "node", w->pb->node, "condition", "Unknown", "reason",
			 CONDITION_UNKNOWN_REASON, NULL);
	} else if (strcmp(job->what, "publish") == 0) {
		schedule_wrote(w->sched, now);
		if (res->condition)
			schedule_heartbeat_sent(w->sched, now);      /* a status patch refreshes the heartbeat too */
		snprintf(keys, sizeof(keys), "%u", res->annotations + res->labels);
		log_emit(LOG_LEVEL_INFO, "published", "node", w->pb->node, "keys", keys, "condition",
			 res->condition ? res->status : "unchanged", "reason", res->reason, "event",
			 res->event ? job->ev.reason : "none", "ready", strcmp(res->status, "True") == 0 ? "true" : "false",
			 NULL);
	}
	if (job->ret == 0 && w->sched->backoff.failures) {
		log_emit(LOG_LEVEL_INFO, "API answering again", NULL);
		schedule_api_ok(w->sched, now);
	}
	if (res->posted) {
		snprintf(count, sizeof(count), "%u", res->posted);
		log_emit(LOG_LEVEL_INFO, "Events posted", "count", count, NULL);
	}
	if (res->events_failed) {
		snprintf(waiting, sizeof(waiting), "%zu", w->pb->events.n);
		snprintf(dropped, sizeof(dropped), "%u", w->pb->events.dropped);
		log_emit(LOG_LEVEL_ERROR, "Event not posted: retried later", "error", res->events_error, "waiting",
			 waiting, "dropped", dropped, NULL);
	}
	apiwrite_events_wake(w, now);
	publisher_job_free(job);
	w->busy = false;
	schedule_writing(w->sched, false, now);
}

/* Run @job (planned): its first request goes now. */
static void apiwrite_start(struct apiwrite *w, struct publish_job *job, const struct obs_kube *facts, uint64_t now)
{
	w->job = *job;
	memset(job, 0, sizeof(*job));
	w->busy = true;
	w->answered = false;
	schedule_writing(w->sched, true, now);
	if (!apiwrite_send(w, now))
		apiwrite_ended(w, facts, now);  /* nothing to send after all (a transition told without a write) */
}

int apiwrite_drive(struct apiwrite *w, struct obs_kube *facts, uint64_t now)
{
	while (w->busy && w->answered) {
		int r;

		w->answered = false;
		r = publisher_job_answer(w->pb, &w->job, facts, &w->ans, now);
		if (r < 0)
			return r;
		if (!apiwrite_send(w, now))
			apiwrite_ended(w, facts, now);
	}
	return 0;
}

/* ---- what an observation wants written ---- */

/* How old the node's lastHeartbeatTime is, in ms (UINT64_MAX: absent or unreadable; 0: in the future). */
static uint64_t apiwrite_heartbeat_age(const struct kube_condition *c)
{
	long long t, wall = time(NULL);

	if (timetext_parse(c->last_heartbeat, &t) < 0)
		return UINT64_MAX;
	return t >= wall ? 0 : (uint64_t)(wall - t) * 1000u;
}

/* The node's writes: what differs, with the Events waiting. Return: 1 a job started; 0 none wanted; -ENOMEM. */
static int apiwrite_publish(struct apiwrite *w, const struct observation *o, const struct profile *p, uint64_t now)
{
	struct publish_job job;
	char err[512];
	int n = publisher_pending(w->pb, o, p);

	if (n <= 0) {
		if (n == 0)
			schedule_publish_done(w->sched);
		return n == -ENOENT ? 0 : n;
	}
	if (!schedule_may_publish(w->sched, now)) {
		log_emit(LOG_LEVEL_DEBUG, w->sched->spacing_ms ? "write held back: a link flaps, one write per 10 s"
							      : "write held back by the start jitter", NULL);
		schedule_hold_publish(w->sched);
		return 0;
	}
	n = publisher_plan_write(w->pb, o, p, now, &job, err, sizeof(err));
	if (n == -ENOMEM)
		return n;
	if (n < 0) {
		apiwrite_failed(w, now, "publish", 0, err);
		return 0;
	}
	if (n == 0)
		return 0;
	apiwrite_start(w, &job, o->kube, now);
	return 1;
}

/*
 * The heartbeat: armed once the node carries the condition wanted, sent when owed (@beat) and a
 * write may go; when it cannot go for another reason it waits a period, so the loop never spins
 * on it. Return: 1 a job started; 0 none; -ENOMEM.
 */
static int apiwrite_heartbeat(struct apiwrite *w, const struct observation *o, const struct profile *p, uint64_t now,
			      bool beat, bool may_write)
{
	struct publish_job job;
	int r;

	if (!w->sched->heartbeat_ms)
		return 0;
	if (may_write && !w->sched->heartbeat_at && publisher_condition_published(o, p))     /* arm it once */
		schedule_heartbeat_start(w->sched, now, apiwrite_heartbeat_age(&o->kube->condition));
	if (!beat)
		return 0;
	if (!may_write) {
		if (!w->sched->backoff.failures)
			schedule_heartbeat_sent(w->sched, now);
		return 0;
	}
	schedule_heartbeat_sent(w->sched, now);
	r = publisher_plan_heartbeat(w->pb, o, p, &job);
	if (r <= 0)
		return r;
	apiwrite_start(w, &job, o->kube, now);
	return 1;
}

/* The Events due (their backoff over): a job. Return: 1 started; 0 none due. */
static int apiwrite_events(struct apiwrite *w, const struct obs_kube *facts, uint64_t now)
{
	struct publish_job job;

	if (!schedule_may_publish(w->sched, now)) {
		schedule_hold_publish(w->sched);
		return 0;
	}
	if (!publisher_plan_events(w->pb, now, &job)) {
		apiwrite_events_wake(w, now);
		return 0;
	}
	apiwrite_start(w, &job, facts, now);
	return 1;
}

int apiwrite_observed(struct apiwrite *w, const struct observation *o, const struct profile *p,
		      const struct workloads *wl, uint64_t now, bool beat, bool may_write)
{
	int r;

	/* Queued whatever else happens: a pod's Event waits in the queue for the next job that posts. */
	if (may_write && (r = workload_events_queue(w->pb, o, p, wl, now)) < 0)
		return r;
	if (w->busy) {
		if (may_write || beat)
			schedule_write_held(w->sched);  /* re-observed when the job ends: its answer is in the facts then */
		return 0;
	}
	r = may_write ? apiwrite_publish(w, o, p, now) : 0;
	if (r == 0)
		r = apiwrite_heartbeat(w, o, p, now, beat, may_write);
	if (r == 0 && may_write)
		r = apiwrite_events(w, o->kube, now);
	return r < 0 ? r : 0;
}

void apiwrite_unobserved(struct apiwrite *w, const struct obs_kube *facts, const char *why, uint64_t now)
{
	struct publish_job job;

	if (!w->pb->http || w->sched->backoff.failures || !schedule_may_publish(w->sched, now))
		return;
	if (w->busy) {
		schedule_write_held(w->sched);
		return;
	}
	if (publisher_plan_unobserved(w->pb, facts, why, now, &job) > 0)
		apiwrite_start(w, &job, facts, now);
}
