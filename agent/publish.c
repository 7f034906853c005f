/* publish.c - the node's writes as jobs: annotations and labels (one merge patch), the condition (one status patch), Events; planned from what the node carries, each answer fed back. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/log.h"
#include "agent/publish.h"
#include "probes/kube/kube.h"
#include "probes/kube/retry.h"
#include "probes/model/clockms.h"
#include "probes/model/errmsg.h"
#include "report/render/annotations.h"
#include "report/render/condition.h"
#include "report/render/node_event.h"

/* Whether the observation is complete enough to remove keys (every probe ran, the API answered). */
static bool publisher_complete(const struct observation *o)
{
	const struct obs_host *h = &o->host;

	return o->pci.status.state == PROBE_OK && o->links.status.state == PROBE_OK &&
	       h->aperture.status.state != PROBE_FAILED && h->devnodes.status.state != PROBE_FAILED &&
	       h->nvpath.status.state != PROBE_FAILED && h->procs.status.state != PROBE_FAILED &&
	       o->kube->node_fetch.state == KUBE_FETCH_OK && o->kube->pods_fetch.state == KUBE_FETCH_OK;
}

/* Now, to the second: "2026-12-02T14:31:17Z" (the annotations' changedAt, the condition's times). */
static void publisher_now(char *buf, size_t len)
{
	const struct timespec now = { .tv_sec = time(NULL) };

	log_time_text(&now, 0, buf, len);
}

/* An Event's eventTime (RFC 3339 UTC with microseconds) and a number unique to this Event. */
static uint64_t publisher_event_time(struct publisher *pb, char *buf, size_t len)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	log_time_text(&ts, 6, buf, len);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec + pb->event_seq++;
}

/* The node facts a write needs: an API, a node name, and the node's current values. */
static int publisher_can_write(const struct publisher *pb, const struct observation *o, char *err, size_t errlen)
{
	if (publisher_has_target(pb, o->node, err, errlen) < 0)
		return -ENOENT;
	/* Without the node's current values a diff is impossible: never write blind. */
	if (o->kube->node_fetch.state != KUBE_FETCH_OK)
		return errmsg_set(err, errlen, -EIO, "the node could not be read: %s", o->kube->node_fetch.message);
	return 0;
}

/*
 * What @p wants of the node, as publisher_pending() and publisher_plan_write() compare it: the
 * annotations and labels (changedAt now) into @want, the merge patch of what differs into @patch
 * (NULL: none; @labels: how many keys are labels), the condition into @cond.
 * Return: the keys in the patch; publisher_can_write()'s error (@err says why); -EINVAL; -ENOMEM.
 */
static int publisher_diff(const struct publisher *pb, const struct observation *o, const struct profile *p,
			  struct annotations *want, char **patch, unsigned *labels, struct condition *cond, char *err,
			  size_t errlen)
{
	char now[ANNOTATIONS_CHANGED_AT_MAX];
	int r = publisher_can_write(pb, o, err, errlen);

	if (r < 0)
		return r;
	condition_build(p, cond);
	publisher_now(now, sizeof(now));
	r = annotations_build(p, publisher_complete(o), now, pb->labels, want);
	return r < 0 ? r : annotations_diff(want, o->kube->ours, o->kube->labels, pb->prefix, patch, labels);
}

int publisher_event(struct publisher *pb, const char *node, const struct kube_event_ref *regarding,
		    const char *type, const char *reason, const char *action, const char *note, const char *key,
		    uint64_t now)
{
	char time_text[KUBE_EVENT_TIME_MAX + 1], name[KUBE_EVENT_NAME_MAX + 1], what[EVENTQ_WHAT_MAX];
	struct kube_event e = {
		.ns = regarding->ns ? regarding->ns : "default",     /* the Node's go where the kubelet's go */
		.time = time_text, .regarding = *regarding, .type = type, .reason = reason,
		.action = action, .note = note, .instance = node, .name = name,
	};
	char *body = NULL;
	int r;

	r = kube_event_name(regarding->name, publisher_event_time(pb, time_text, sizeof(time_text)), name,
			    sizeof(name));
	if (r == 0)
		r = kube_event_render(&e, &body);
	if (r < 0)
		return r;
	snprintf(what, sizeof(what), "%s %s%s%s %s", regarding->kind, regarding->ns ? regarding->ns : "",
		 regarding->ns ? "/" : "", regarding->name, reason);
	r = eventq_add(&pb->events, key, e.ns, body, what, now);
	free(body);
	return r;
}

void publisher_job_free(struct publish_job *job)
{
	if (!job)
		return;
	free(job->node_patch);
	free(job->status_patch);
	annotations_free(&job->want);
	obs_kube_ann_clear(job->from, KUBE_ANN__COUNT);
	memset(job, 0, sizeof(*job));
}

static void publisher_job_init(struct publish_job *job, const char *what)
{
	memset(job, 0, sizeof(*job));
	job->what = what;
}

/*
 * The status patch taking the node's condition @have to @want into @job: a write when it differs,
 * a heartbeat (@beat: the same condition, only lastHeartbeatTime new, no lastTransitionTime) when
 * it does not; a change is never a heartbeat. The job's result names @want's status and reason
 * either way; a patch planned is the job's next step. 1 planned, 0 none, -ENOMEM.
 */
static int publisher_plan_condition(struct publish_job *job, const struct kube_condition *have,
				    const struct condition *want, bool beat)
{
	bool differs = condition_differs(want, have);
	int r;

	job->res.status = want->status;
	snprintf(job->res.reason, sizeof(job->res.reason), "%s", want->reason);
	if (beat ? differs : !differs)
		return 0;
	publisher_now(job->cond_now, sizeof(job->cond_now));
	r = condition_patch(want, have, job->cond_now, &job->status_patch);
	if (r < 0)
		return r;
	job->cond = *want;
	job->step = PUBLISH_STEP_STATUS;
	return 1;
}

/* Queue the node's Event of a transition (the job's, planned from what the node carried before it). */
static void publisher_job_node_event(struct publisher *pb, struct publish_job *job, uint64_t now)
{
	struct kube_event_ref node = { .kind = "Node", .name = pb->node, .uid = job->node_uid };
	int r;

	if (!job->event)
		return;
	r = publisher_event(pb, pb->node, &node, job->ev.type, job->ev.reason, job->ev.action, job->ev.note,
			    NULL, now);
	job->res.event = r > 0;
	if (r < 0 && !job->res.events_failed) {
		/* A node name an Event cannot carry (reportingInstance holds 128 characters), or no memory. */
		errmsg_set(job->res.events_error, sizeof(job->res.events_error), r,
			   "the node's Event cannot be made for %.64s...: %s", pb->node, strerror(-r));
		job->res.events_failed = true;
	}
	job->event = false;
}

/*
 * A transition the node carries but was never told: our condition missing, or disagreeing with
 * the published ready annotation (the agent before stopped between its node PATCH and its status
 * PATCH). *@from = our annotations as they were before it: ready as the condition says (absent
 * when it is missing or Unknown). Return: 1 derived; 0 none; -ENOMEM.
 */
static int publisher_untold(const struct obs_kube *k, struct kube_annotation from[KUBE_ANN__COUNT])
{
	const struct kube_annotation *ready = &k->ours[KUBE_ANN_READY];
	const char *was = !k->condition.present ? NULL :
			  strcmp(k->condition.status, "True") == 0 ? "true" :
			  strcmp(k->condition.status, "False") == 0 ? "false" : NULL;
	struct kube_annotation *r = &from[KUBE_ANN_READY];

	if (!ready->present || !ready->value || (was && strcmp(was, ready->value) == 0))
		return 0;
	if (obs_kube_ann_copy(from, k->ours, KUBE_ANN__COUNT) < 0)
		return -ENOMEM;
	free(r->value);
	r->value = was ? strdup(was) : NULL;
	r->present = was != NULL;
	if (was && !r->value) {
		obs_kube_ann_clear(from, KUBE_ANN__COUNT);
		return -ENOMEM;
	}
	return 1;
}

int publisher_pending(struct publisher *pb, const struct observation *o, const struct profile *p)
{
	struct annotations want = { 0 };
	struct condition cond;
	char err[128], *patch = NULL;
	int r;

	pb->in_sync = false;
	r = publisher_diff(pb, o, p, &want, &patch, NULL, &cond, err, sizeof(err));
	annotations_free(&want);
	free(patch);
	if (r < 0)
		return r == -EIO ? -ENOENT : r;         /* no API, no node name, the node not read */
	/* A failed merge patch whose outcome is not settled yet: the next write settles it (and its Event). */
	r = (r > 0) + condition_differs(&cond, &o->kube->condition) + pb->event_from_set;
	pb->in_sync = r == 0;
	return r;
}

int publisher_plan_write(struct publisher *pb, const struct observation *o, const struct profile *p, uint64_t now,
			 struct publish_job *job, char *err, size_t errlen)
{
	const struct kube_annotation *cur;
	struct condition cond;
	unsigned labels = 0;
	int r, keys;

	publisher_job_init(job, "publish");
	pb->in_sync = false;
	keys = publisher_diff(pb, o, p, &job->want, &job->node_patch, &labels, &cond, err, errlen);
	if (keys == -ENOENT || keys == -EIO)
		return keys;            /* no API, no node name, the node not read: @err says which */
	if (keys < 0) {
		r = keys;
		goto fail;
	}
	job->res.annotations = keys ? (unsigned)keys - labels : 0;
	job->res.labels = labels;
	if (!keys && !pb->event_from_set && !pb->start_checked) {
		r = publisher_untold(o->kube, pb->event_from);
		if (r < 0)
			goto fail;
		pb->event_from_set = r > 0;
	}
	/*
	 * The transition is judged against the node as it was before our first try of it: a failed
	 * merge patch keeps that "before" until a write or a diff settles it. Without keys, a PATCH
	 * whose answer was lost had been applied (by us, or by the agent before us:
	 * publisher_untold()): its transition still gets its Event, once, and the "before" is spent.
	 */
	cur = pb->event_from_set ? pb->event_from : o->kube->ours;
	job->event = node_event_build(p, &job->want, cur, &job->ev);
	snprintf(job->node_uid, sizeof(job->node_uid), "%s", o->kube->node_uid);
	if (keys) {
		if (obs_kube_ann_copy(job->from, cur, KUBE_ANN__COUNT) < 0) {
			r = -ENOMEM;
			goto fail;
		}
	} else {
		pb->start_checked = true;
		if (pb->event_from_set)
			publisher_job_node_event(pb, job, now);
		obs_kube_ann_clear(pb->event_from, KUBE_ANN__COUNT);
		pb->event_from_set = false;
		job->event = false;
	}
	r = publisher_plan_condition(job, &o->kube->condition, &cond, false);
	if (r < 0)
		goto fail;
	job->step = keys ? PUBLISH_STEP_NODE : PUBLISH_STEP_STATUS;
	job->events = true;
	return 1;
fail:
	publisher_job_free(job);
	return errmsg_set(err, errlen, r, "building the node's writes: %s", strerror(-r));
}

int publisher_plan_heartbeat(struct publisher *pb, const struct observation *o, const struct profile *p,
			     struct publish_job *job)
{
	struct condition cond;
	char err[128];

	publisher_job_init(job, "heartbeat");
	if (publisher_can_write(pb, o, err, sizeof(err)) < 0)
		return 0;
	condition_build(p, &cond);
	return publisher_plan_condition(job, &o->kube->condition, &cond, true);
}

int publisher_plan_unobserved(struct publisher *pb, const struct obs_kube *facts, const char *why, uint64_t now,
			      struct publish_job *job)
{
	struct condition cond;

	publisher_job_init(job, "unobserved");
	if (!pb->unobserved_since)
		pb->unobserved_since = now ? now : 1;
	if (now - pb->unobserved_since < PUBLISH_UNKNOWN_AFTER_MS)
		return 0;
	if (!pb->http || !pb->node || facts->node_fetch.state != KUBE_FETCH_OK)
		return 0;
	/* Unknown already (whatever the cause): the first message stands, no write per attempt. */
	if (facts->condition.present && strcmp(facts->condition.status, "Unknown") == 0)
		return 0;
	condition_unknown(why, &cond);
	return publisher_plan_condition(job, &facts->condition, &cond, false);
}

int publisher_plan_events(struct publisher *pb, uint64_t now, struct publish_job *job)
{
	publisher_job_init(job, "events");
	if (!pb->http)
		return 0;
	eventq_expire(&pb->events, now);
	job->step = PUBLISH_STEP_EVENTS;
	job->events = true;
	return eventq_due(&pb->events, now) != NULL;
}

int publisher_job_next(struct publisher *pb, struct publish_job *job, uint64_t now, struct kube_write *req)
{
	char err[256];

	for (;;) {
		bool status = job->step == PUBLISH_STEP_STATUS;
		const char *patch = status ? job->status_patch : job->node_patch;
		struct eventq_item *it;

		switch (job->step) {
		case PUBLISH_STEP_NODE:
		case PUBLISH_STEP_STATUS:
			if (patch && kube_write_patch_node(pb->node, status, patch, req, err, sizeof(err)) == 0)
				return 1;
			job->step = !status ? PUBLISH_STEP_STATUS : job->events ? PUBLISH_STEP_EVENTS : PUBLISH_STEP_DONE;
			break;
		case PUBLISH_STEP_EVENTS:
			it = pb->http ? eventq_due(&pb->events, now) : NULL;    /* none while the queue backs off */
			if (!it) {
				job->step = PUBLISH_STEP_DONE;
				break;
			}
			if (kube_write_event(it->ns, it->body, req, err, sizeof(err)) == 0) {
				job->posting = it->body;
				return 1;
			}
			/* Refused before sending (a body or namespace the API would refuse too): for good. */
			errmsg_set(job->res.events_error, sizeof(job->res.events_error), -EIO, "Event %s: %s", it->what, err);
			job->res.events_failed = true;
			eventq_drop(&pb->events);
			break;
		case PUBLISH_STEP_DONE:
			/* The node's writes of a publish, heartbeat or Unknown all landed: it carries the verdict. */
			if (job->ret == 0 && strcmp(job->what, "events") != 0)
				pb->in_sync = true;
			return 0;
		}
	}
}

/* The Event in flight answered: posted (409: it exists, the POST whose answer was lost), waiting, or dropped. */
static void publisher_job_event_answer(struct publisher *pb, struct publish_job *job, const struct publish_answer *a,
				       uint64_t now)
{
	struct eventq_item *it = pb->events.n ? &pb->events.v[0] : NULL;

	/* The head dropped meanwhile (the queue full): nothing left to settle. */
	if (!it || it->body != job->posting)
		return;
	job->posting = NULL;
	if (a->r == 0 || a->status == 409) {
		pb->writes[METRICS_WRITE_EVENT]++;
		eventq_posted(&pb->events);
		job->res.posted++;
		return;
	}
	errmsg_set(job->res.events_error, sizeof(job->res.events_error), -EIO, "Event %s: %s", it->what, a->error);
	job->res.events_failed = true;
	/* Worth trying again: interrupted, no answer, too many requests, a server error. */
	if (a->r == -EINTR || a->status == 0 || retry_status_retryable(a->status)) {
		/* The rest waits too: a failing API is not asked once per Event; the wait counts from the failure. */
		eventq_retry(&pb->events, now, a->retry_after_s);
		job->step = PUBLISH_STEP_DONE;
		return;
	}
	eventq_drop(&pb->events);               /* refused for good: the next Event goes */
}

int publisher_job_answer(struct publisher *pb, struct publish_job *job, struct obs_kube *facts,
			 const struct publish_answer *a, uint64_t now)
{
	bool status = job->step == PUBLISH_STEP_STATUS;

	switch (job->step) {
	case PUBLISH_STEP_NODE:
	case PUBLISH_STEP_STATUS:
		if (a->r < 0) {
			job->ret = a->r;
			pb->in_sync = false;
			job->res.failed = status ? "patch node status" : "patch node";
			errmsg_set(job->err, sizeof(job->err), a->r, "PATCH node %s%s: %s", pb->node,
				   status ? "/status" : "", a->error);
			job->step = PUBLISH_STEP_DONE;
			if (status)
				return 0;
			job->res.annotations = job->res.labels = 0;
			/* The first failure's "before" stands until a write or a diff settles it. */
			if (!pb->event_from_set) {
				if (obs_kube_ann_copy(pb->event_from, job->from, KUBE_ANN__COUNT) < 0)
					return -ENOMEM;
				pb->event_from_set = true;
			}
			return 0;
		}
		pb->writes[status ? METRICS_WRITE_STATUS_PATCH : METRICS_WRITE_MERGE_PATCH]++;
		if (status) {
			job->res.condition = true;
			job->step = job->events ? PUBLISH_STEP_EVENTS : PUBLISH_STEP_DONE;
			return condition_remember(&facts->condition, &job->cond, job->cond_now);
		}
		pb->start_checked = true;
		obs_kube_ann_clear(pb->event_from, KUBE_ANN__COUNT);
		pb->event_from_set = false;
		publisher_job_node_event(pb, job, now);
		annotations_remember(&job->want, facts->ours, facts->labels);
		job->step = PUBLISH_STEP_STATUS;
		return 0;
	case PUBLISH_STEP_EVENTS:
		publisher_job_event_answer(pb, job, a, now);
		return 0;
	case PUBLISH_STEP_DONE:
		break;
	}
	return 0;
}

/* Run @job now, each request waiting for its answer; what landed is remembered in @facts. */
static int publisher_job_run(struct publisher *pb, struct publish_job *job, struct obs_kube *facts)
{
	struct kube_write req;
	int r = 0;

	while (r == 0 && publisher_job_next(pb, job, clockms_now(), &req)) {
		struct http_response resp = { 0 };
		struct publish_answer a;

		a.r = kube_write_send(pb->http, &req, &resp);
		a.status = resp.status;
		a.retry_after_s = resp.retry_after_s;
		a.error = resp.error;
		r = publisher_job_answer(pb, job, facts, &a, clockms_now());
		http_response_free(&resp);
	}
	return r;
}

int publisher_write(struct publisher *pb, const struct observation *o, struct obs_kube *facts,
		    const struct profile *p, uint64_t now, struct publish_result *ret, char *err, size_t errlen)
{
	struct publish_job job;
	int r;

	memset(ret, 0, sizeof(*ret));
	r = publisher_plan_write(pb, o, p, now, &job, err, errlen);
	if (r <= 0)
		return r;
	r = publisher_job_run(pb, &job, facts);
	*ret = job.res;
	if (r == 0 && job.ret < 0)
		r = errmsg_set(err, errlen, job.ret, "%s", job.err);
	else if (r < 0)
		errmsg_set(err, errlen, r, "out of memory");
	publisher_job_free(&job);
	return r;
}

bool publisher_condition_published(const struct observation *o, const struct profile *p)
{
	struct condition cond;

	if (o->kube->node_fetch.state != KUBE_FETCH_OK)
		return false;
	condition_build(p, &cond);
	return !condition_differs(&cond, &o->kube->condition);
}
