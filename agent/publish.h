/* publish.h - the node's state published (annotations, labels, condition, Events) as jobs of one request a step; the publisher itself is publisher.h. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/publisher.h"
#include "probes/kube/kube.h"
#include "report/checks/profile.h"
#include "report/render/annotations.h"
#include "report/render/condition.h"
#include "report/render/kube_event.h"
#include "report/render/node_event.h"

#define PUBLISH_UNKNOWN_AFTER_MS 30000u /* observations failing this long: the condition says Unknown */

/* What one publisher_write() did. */
struct publish_result {
	unsigned annotations, labels;   /* keys in the merge patch of the node (0: none sent) */
	bool condition;                 /* the status patch was sent */
	const char *status;             /* the condition's status wanted ("True", "False"; a literal) */
	char reason[64];                /* ... and its reason */
	bool event;                     /* a transition: the node's Event was queued */
	unsigned posted;                /* Events posted (the node's, and any waiting) */
	const char *failed;             /* the write that failed ("patch node", "patch node status"), else NULL */
	bool events_failed;             /* a POST failed: events_error says why; the queue retries later */
	char events_error[512];
};

/**
 * publisher_pending() - how many writes of the node @p wants now: 1 when an annotation or label
 * differs from what o->kube says the node carries (one merge patch), plus 1 when the condition
 * differs (one status patch), plus 1 while the outcome of a failed merge patch is unsettled (its
 * transition's Event is owed once the node shows it). The Events waiting are not counted
 * (publisher_plan_events()).
 * Return: 0..3; -ENOENT without API or node facts; -ENOMEM.
 */
int publisher_pending(struct publisher *pb, const struct observation *o, const struct profile *p);

/**
 * publisher_write() - publish @p on the node, only what differs from what o->kube says it
 * carries: one merge patch of the annotations and labels (labels unless --no-labels), one
 * strategic merge patch of the FabricReady condition on nodes/<node>/status, and when ready,
 * profile or runtime changed, one Event on the Node, posted with any Event waiting
 * (PUBLISH_STEP_EVENTS) once the condition is written (when the status patch fails, they
 * wait in the queue). What was written is remembered in @facts (the facts o->kube lends, owned
 * by the caller), so the next call finds the node equal without reading it back. The first call of a publisher whose annotations are
 * already on the node tells a transition never told: the condition missing, or disagreeing with
 * the published ready (an agent stopped after its node PATCH), gets the Event of that change.
 * Each request waits for its answer (--once; the daemon runs the same job without waiting:
 * publisher_plan_write()).
 * @now: clockms_now() (the Event queue's backoff).
 * @ret: what was done, written in every case.
 * Return: 0 (an Event that could not be posted is in ret->events_failed: it waits in the queue);
 * -EIO / transport errors of a PATCH (message in @err; the merge patch, when it went through,
 * is remembered); -ENOENT without API; -ENOMEM.
 */
int publisher_write(struct publisher *pb, const struct observation *o, struct obs_kube *facts,
		    const struct profile *p, uint64_t now, struct publish_result *ret, char *err, size_t errlen);

/*
 * A write of the node's state as steps of one request each, planned from what the node carries,
 * then each answer fed back: publisher_write() sends them one after the other and waits; the
 * daemon (agent/apiwrite.c) sends each on the client's streams and never waits. A job holds
 * copies of what it needs: the observation may be gone when an answer comes.
 */
enum publish_step {
	PUBLISH_STEP_NODE = 0,          /* the merge patch of the annotations and labels */
	PUBLISH_STEP_STATUS,            /* the status patch of the condition (a change, a heartbeat, Unknown) */
	PUBLISH_STEP_EVENTS,            /* the Events waiting, one POST each, until one fails */
	PUBLISH_STEP_DONE,
};

struct publish_job {
	enum publish_step step;         /* the next one (or the one in flight) */
	const char *what;               /* "publish", "heartbeat", "unobserved", "events" (for logs) */
	char *node_patch;               /* NODE: owned; NULL none */
	struct annotations want;        /* ... remembered on the node once it lands */
	struct kube_annotation from[KUBE_ANN__COUNT];   /* ... the node's keys before it (kept if it fails) */
	bool event;                     /* ... a transition: its Event is queued once it lands */
	struct node_event ev;
	char node_uid[KUBE_UID_MAX];
	char *status_patch;             /* STATUS: owned; NULL none */
	struct condition cond;          /* ... remembered once it lands */
	char cond_now[ANNOTATIONS_CHANGED_AT_MAX];
	bool events;                    /* EVENTS: post what is due after the writes */
	const char *posting;            /* ... the body of the Event in flight (the queue's head) */
	struct publish_result res;      /* what was done so far */
	int ret;                        /* 0, or why a write failed (res.failed names it; message in err) */
	char err[512];
};

/* An answer to a job's request: http_request()'s return and response, as a stream's end gives them. */
struct publish_answer {
	int r;                          /* 0 a 2xx answer; -EIO another status; -errno no answer */
	long status;                    /* 0: none */
	unsigned retry_after_s;
	const char *error;              /* why, when r < 0 */
};

/**
 * publisher_plan_write() - the job of publisher_write(): what differs between @p and o->kube. A
 * transition whose merge patch already landed (a lost answer, an agent stopped after it) queues
 * its Event here. Return: 1 planned (@job to run and free); 0 nothing to send; -ENOENT without
 * API or node facts; -ENOMEM (@err says why in every failure).
 */
int publisher_plan_write(struct publisher *pb, const struct observation *o, const struct profile *p, uint64_t now,
			 struct publish_job *job, char *err, size_t errlen);

/**
 * publisher_plan_heartbeat() - refresh the condition's lastHeartbeatTime: when the node carries
 * the condition @p wants (o->kube says so), one status patch of the same condition with the time
 * now and no lastTransitionTime (the node keeps its own); nothing else.
 * Return: 1 planned; 0 not a heartbeat's to send (no API, the node not read, the condition not
 * there or different: a write's); -ENOMEM.
 */
int publisher_plan_heartbeat(struct publisher *pb, const struct observation *o, const struct profile *p,
			     struct publish_job *job);

/**
 * publisher_plan_unobserved() - the node could not be observed (the daemon, each failed attempt):
 * once that has lasted PUBLISH_UNKNOWN_AFTER_MS, set the condition to Unknown (reason
 * ObservationFailed, message @why) with one status patch, unless @facts says it is Unknown
 * already. Annotations and labels are never touched.
 * Return: 1 planned; 0 nothing to do (yet); -ENOMEM.
 */
int publisher_plan_unobserved(struct publisher *pb, const struct obs_kube *facts, const char *why, uint64_t now,
			      struct publish_job *job);

/**
 * publisher_plan_events() - post the Events waiting (pb->events), oldest first, until one fails:
 * an Event that exists already (409) counts as posted (the POST whose answer was lost); a failure
 * without an answer, a 429 or a 5xx leaves it waiting and the queue backs off from the failure;
 * any other refusal drops it. Events older than an hour are dropped first.
 * Return: 1 planned (an Event is due); 0 none due.
 */
int publisher_plan_events(struct publisher *pb, uint64_t now, struct publish_job *job);

/**
 * publisher_job_next() - the request of the job's next step into @req, at @now (the Event queue's
 * time); steps with nothing to send are passed over.
 * Return: 1 @req to send (its body lives in @job or the queue until the answer); 0 the job is done.
 */
int publisher_job_next(struct publisher *pb, struct publish_job *job, uint64_t now, struct kube_write *req);

/**
 * publisher_job_answer() - the answer to the request publisher_job_next() gave, at @now: what
 * landed is remembered in @facts (the node's API facts as the caller keeps them) and counted in
 * pb->writes, a node Event queued; a failure ends the job (job->ret, job->res.failed, job->err) or,
 * for an Event, backs the queue off (job->res.events_failed). Return: 0; -ENOMEM.
 */
int publisher_job_answer(struct publisher *pb, struct publish_job *job, struct obs_kube *facts,
			 const struct publish_answer *a, uint64_t now);

/* Release what @job holds; it may be planned again. NULL is fine. */
void publisher_job_free(struct publish_job *job);

/* Whether the node carries the condition @p wants (o->kube says so): its heartbeat may be refreshed. */
bool publisher_condition_published(const struct observation *o, const struct profile *p);

/**
 * publisher_event() - render an Event about @regarding (a Pod, or this Node) and queue it in
 * pb->events (with @key: at most once per key for the publisher's lifetime).
 * Return: 1 queued; 0 a duplicate key; -EINVAL when the Event cannot be made valid (a node name
 * over 128 characters); -ENOMEM.
 */
int publisher_event(struct publisher *pb, const char *node, const struct kube_event_ref *regarding,
		    const char *type, const char *reason, const char *action, const char *note, const char *key,
		    uint64_t now);

