/* test_publish.c - the node's writes as jobs (agent/publish.c): planned, each answer fed back by hand, no HTTP. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "agent/publish.h"
#include "tests/unit/profbuild.h"

#define NODE "gke-a3mega-pool-1a2b"

/*
 * A publisher with an API (a client never called: the jobs' requests are answered here) and an
 * observation of a node that carries @ready (NULL: none of our keys) and the condition @cond
 * (NULL: none).
 */
struct env {
	struct publisher pb;
	struct obs_kube k;               /* the API facts e->o lends */
	struct observation o;
	struct profile p;
};

static struct env *env_new(void)
{
	struct env *e = calloc(1, sizeof(*e));

	assert_non_null(e);
	e->pb.node = NODE;
	e->pb.prefix = "fabric.aicr.run/";
	e->pb.labels = true;
	e->pb.publish = true;
	e->pb.http = (struct http_client *)e;   /* never dereferenced: no request is sent here */
	e->pb.events.backoff.rng = 1;
	snprintf(e->o.node, sizeof(e->o.node), "%s", NODE);
	e->o.kube = &e->k;
	e->o.pci.status.state = PROBE_OK;
	e->o.links.status.state = PROBE_OK;
	e->k.configured = true;
	e->k.node_fetch.state = KUBE_FETCH_OK;
	e->k.pods_fetch.state = KUBE_FETCH_OK;
	snprintf(e->k.node_uid, sizeof(e->k.node_uid), "uid-1");
	profbuild_init(&e->p, PROFILE_TCPXO, "tcpxo: ready (8/8 GPUs paired, 13 checks)");
	return e;
}

static void env_free(struct env *e)
{
	eventq_free(&e->pb.events);
	obs_kube_ann_clear(e->pb.event_from, KUBE_ANN__COUNT);
	obs_kube_free(&e->k);
	free(e);
}

static void set_ann(struct kube_annotation *a, const char *v)
{
	free(a->value);
	a->value = v ? strdup(v) : NULL;
	a->present = v != NULL;
}

static const struct publish_answer ok_answer = { .r = 0, .status = 200, .error = "" };
static const struct publish_answer lost_answer = { .r = -ECONNRESET, .status = 0, .error = "cut short" };

/* Run @job: each request answered by @a (the first @n_fail of them by @fail). Return: requests sent. */
static unsigned run(struct env *e, struct publish_job *job, const struct publish_answer *fail, unsigned n_fail,
		    uint64_t now)
{
	struct kube_write req;
	unsigned n = 0;

	while (publisher_job_next(&e->pb, job, now, &req)) {
		assert_int_equal(publisher_job_answer(&e->pb, job, &e->k, n < n_fail ? fail : &ok_answer, now), 0);
		n++;
	}
	return n;
}

/* The note of the last Event queued (NULL: none waits). */
static const char *last_note(const struct env *e)
{
	return e->pb.events.n ? strstr(e->pb.events.v[e->pb.events.n - 1].body, "\"note\"") : NULL;
}

/* What the node carries after everything @e->p wants was applied (the watch tells it so). */
static void node_carries_all(struct env *e)
{
	struct annotations want = { 0 };

	assert_int_equal(annotations_build(&e->p, true, "2026-12-06T00:00:00Z", true, &want), 0);
	annotations_remember(&want, e->k.ours, e->k.labels);
	annotations_free(&want);
}

/*
 * Issue 30: a merge patch whose answer was lost (the server applied it) on a change that is no
 * transition (the attachment alone): its "before" waits, and once the node shows the patch and
 * nothing else differs it must still be settled (before, publisher_pending() said 0, nothing was
 * written, and event_from_set stayed set: every later node Event judged its transition from that
 * stale "before"). The settling write sends nothing and tells no transition.
 */
static void test_lost_answer_settled(void **state)
{
	struct env *e = env_new();
	struct publish_job job;
	struct condition cond;
	char err[256];

	(void)state;
	node_carries_all(e);
	condition_build(&e->p, &cond);
	assert_int_equal(condition_remember(&e->k.condition, &cond, "2026-12-06T00:00:00Z"), 0);
	assert_int_equal(publisher_pending(&e->pb, &e->o, &e->p), 0);
	set_ann(&e->k.ours[KUBE_ANN_ATTACHMENT], "{\"old\":true}");
	assert_int_equal(publisher_pending(&e->pb, &e->o, &e->p), 1);
	assert_int_equal(publisher_plan_write(&e->pb, &e->o, &e->p, 1000, &job, err, sizeof(err)), 1);
	assert_int_equal(job.step, PUBLISH_STEP_NODE);
	assert_false(job.event);                        /* the attachment alone: no transition */
	assert_int_equal(run(e, &job, &lost_answer, 1, 1000), 1);
	assert_int_equal(job.ret, -ECONNRESET);
	assert_string_equal(job.res.failed, "patch node");
	assert_int_equal(job.res.annotations + job.res.labels, 0);
	assert_true(e->pb.event_from_set);
	assert_string_equal(e->pb.event_from[KUBE_ANN_ATTACHMENT].value, "{\"old\":true}");
	assert_int_equal(e->pb.writes[METRICS_WRITE_MERGE_PATCH], 0);
	publisher_job_free(&job);

	/* The server had applied it: nothing differs but the unsettled "before", which is a write owed. */
	node_carries_all(e);
	assert_int_equal(publisher_pending(&e->pb, &e->o, &e->p), 1);
	assert_int_equal(publisher_plan_write(&e->pb, &e->o, &e->p, 2000, &job, err, sizeof(err)), 1);
	assert_false(e->pb.event_from_set);             /* settled */
	assert_int_equal(e->pb.events.n, 0);            /* no transition told */
	assert_int_equal(run(e, &job, NULL, 0, 2000), 0);
	publisher_job_free(&job);
	assert_int_equal(publisher_pending(&e->pb, &e->o, &e->p), 0);

	/* A real transition later: judged from what the node carries, told once. */
	profbuild_fail(&e->p, CHECK_LINKS);
	e->p.summary = (char *)"tcpxo: not ready: links: eth3 down";
	assert_int_equal(publisher_plan_write(&e->pb, &e->o, &e->p, 5000, &job, err, sizeof(err)), 1);
	assert_true(job.event);
	assert_int_equal(run(e, &job, NULL, 0, 5000), 3); /* merge patch, status patch, the Event */
	assert_int_equal(e->pb.writes[METRICS_WRITE_EVENT], 1);
	assert_int_equal(job.res.posted, 1);
	assert_true(job.res.event);
	publisher_job_free(&job);
	env_free(e);
}

/*
 * A transition whose merge patch's answer was lost: once the node shows it (and the condition still
 * differs), its Event is queued from the "before" kept, once.
 */
static void test_lost_transition_told(void **state)
{
	struct env *e = env_new();
	struct publish_job job;
	char err[256];

	(void)state;
	node_carries_all(e);                            /* ready true, as published */
	profbuild_fail(&e->p, CHECK_LINKS);
	e->p.summary = (char *)"tcpxo: not ready: links: eth3 down";
	assert_int_equal(publisher_plan_write(&e->pb, &e->o, &e->p, 1000, &job, err, sizeof(err)), 1);
	assert_true(job.event);
	assert_int_equal(run(e, &job, &lost_answer, 1, 1000), 1);
	assert_int_equal(e->pb.events.n, 0);
	publisher_job_free(&job);
	node_carries_all(e);                            /* ready false applied */
	assert_int_equal(publisher_plan_write(&e->pb, &e->o, &e->p, 2000, &job, err, sizeof(err)), 1);
	assert_int_equal(e->pb.events.n, 1);            /* told from the "before": ready true->false */
	assert_non_null(strstr(last_note(e), "ready true"));
	assert_false(e->pb.event_from_set);
	assert_int_equal(run(e, &job, NULL, 0, 2000), 2);       /* the condition, the Event */
	publisher_job_free(&job);
	env_free(e);
}

/* The Event of a transition waits for its merge patch: queued when the patch lands, its note naming the change. */
static void test_transition_event(void **state)
{
	struct env *e = env_new();
	struct publish_job job;
	struct kube_write req;
	char err[256];

	(void)state;
	node_carries_all(e);
	profbuild_fail(&e->p, CHECK_LINKS);
	e->p.summary = (char *)"tcpxo: not ready: links: eth3 down";
	assert_int_equal(publisher_plan_write(&e->pb, &e->o, &e->p, 1000, &job, err, sizeof(err)), 1);
	assert_int_equal(publisher_job_next(&e->pb, &job, 1000, &req), 1);
	assert_string_equal(req.method, "PATCH");
	assert_string_equal(req.path, "/api/v1/nodes/" NODE);
	assert_string_equal(req.content_type, "application/merge-patch+json");
	assert_int_equal(e->pb.events.n, 0);            /* not before the patch lands */
	assert_int_equal(publisher_job_answer(&e->pb, &job, &e->k, &ok_answer, 1000), 0);
	assert_int_equal(e->pb.events.n, 1);
	assert_non_null(strstr(last_note(e), "ready true"));
	assert_string_equal(e->k.ours[KUBE_ANN_READY].value, "false");     /* remembered */
	assert_int_equal(publisher_job_next(&e->pb, &job, 1000, &req), 1);
	assert_string_equal(req.path, "/api/v1/nodes/" NODE "/status");
	assert_string_equal(req.content_type, "application/strategic-merge-patch+json");
	/* The status patch fails: the Event waits in the queue, the job ends. */
	assert_int_equal(publisher_job_answer(&e->pb, &job, &e->k, &(struct publish_answer){ .r = -EIO,
						 .status = 500, .error = "HTTP 500" }, 1000), 0);
	assert_int_equal(publisher_job_next(&e->pb, &job, 1000, &req), 0);
	assert_string_equal(job.res.failed, "patch node status");
	assert_true(job.res.annotations >= 2 && job.res.labels == 1);  /* ready, attachment, the label: still told */
	assert_int_equal(e->pb.events.n, 1);
	publisher_job_free(&job);
	env_free(e);
}

/*
 * Issue 30: an Event POST answered 409 (it exists: the POST whose answer was lost had arrived) is
 * posted, and counted as a write; a 500 waits with the queue's backoff from the failure; a 422 is
 * dropped and the next one goes.
 */
static void test_event_answers(void **state)
{
	struct env *e = env_new();
	struct kube_event_ref ref = { .kind = "Pod", .ns = "ml", .name = "p", .uid = "u" };
	struct publish_job job;
	struct kube_write req;

	(void)state;
	assert_int_equal(publisher_event(&e->pb, NODE, &ref, "Warning", "TCPXOUnattached", "Check", "n1", "k1", 1000), 1);
	assert_int_equal(publisher_event(&e->pb, NODE, &ref, "Warning", "TCPXOPartiallyAttached", "Check", "n2", "k2",
					 1000), 1);
	assert_int_equal(publisher_event(&e->pb, NODE, &ref, "Warning", "TCPXONotInUse", "Check", "n3", "k3", 1000), 1);
	assert_int_equal(publisher_plan_events(&e->pb, 1000, &job), 1);
	assert_int_equal(publisher_job_next(&e->pb, &job, 1000, &req), 1);
	assert_string_equal(req.method, "POST");
	assert_string_equal(req.path, "/apis/events.k8s.io/v1/namespaces/ml/events");
	assert_int_equal(publisher_job_answer(&e->pb, &job, &e->k, &(struct publish_answer){ .r = -EIO,
						 .status = 409, .error = "HTTP 409 AlreadyExists" }, 1000), 0);
	assert_int_equal(job.res.posted, 1);
	assert_int_equal(e->pb.writes[METRICS_WRITE_EVENT], 1);
	assert_false(job.res.events_failed);
	assert_int_equal(e->pb.events.n, 2);
	/* A 422: refused for good, dropped; the next one goes in the same job. */
	assert_int_equal(publisher_job_next(&e->pb, &job, 1000, &req), 1);
	assert_int_equal(publisher_job_answer(&e->pb, &job, &e->k, &(struct publish_answer){ .r = -EIO,
						 .status = 422, .error = "HTTP 422 Invalid" }, 1000), 0);
	assert_true(job.res.events_failed);
	assert_int_equal(e->pb.events.n, 1);
	assert_int_equal(e->pb.events.dropped, 1);
	/* A 500: it waits, the job ends, the queue backs off from the failure (@now of the answer). */
	assert_int_equal(publisher_job_next(&e->pb, &job, 1000, &req), 1);
	assert_int_equal(publisher_job_answer(&e->pb, &job, &e->k, &(struct publish_answer){ .r = -EIO,
						 .status = 500, .error = "HTTP 500" }, 21000), 0);
	assert_int_equal(publisher_job_next(&e->pb, &job, 21000, &req), 0);
	assert_int_equal(e->pb.events.n, 1);
	assert_true(eventq_wake_at(&e->pb.events) >= 21000 + 2500);
	assert_int_equal(e->pb.writes[METRICS_WRITE_EVENT], 1);
	publisher_job_free(&job);
	/* Nothing due during the backoff. */
	assert_int_equal(publisher_plan_events(&e->pb, 22000, &job), 0);
	publisher_job_free(&job);
	env_free(e);
}

/* The heartbeat: only when the node carries the condition wanted; one status patch, nothing else. */
static void test_heartbeat_plan(void **state)
{
	struct env *e = env_new();
	struct publish_job job;
	struct kube_write req;
	struct condition cond;

	(void)state;
	assert_int_equal(publisher_plan_heartbeat(&e->pb, &e->o, &e->p, &job), 0);     /* no condition yet */
	publisher_job_free(&job);
	condition_build(&e->p, &cond);
	assert_int_equal(condition_remember(&e->k.condition, &cond, "2026-12-06T00:00:00Z"), 0);
	assert_int_equal(publisher_plan_heartbeat(&e->pb, &e->o, &e->p, &job), 1);
	assert_int_equal(publisher_job_next(&e->pb, &job, 1000, &req), 1);
	assert_non_null(strstr(req.path, "/status"));
	assert_null(strstr(req.body, "lastTransitionTime"));
	assert_int_equal(publisher_job_answer(&e->pb, &job, &e->k, &ok_answer, 1000), 0);
	assert_int_equal(publisher_job_next(&e->pb, &job, 1000, &req), 0);
	assert_int_equal(e->pb.writes[METRICS_WRITE_STATUS_PATCH], 1);
	assert_string_not_equal(e->k.condition.last_heartbeat, "2026-12-06T00:00:00Z");
	publisher_job_free(&job);
	env_free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lost_answer_settled),
		cmocka_unit_test(test_lost_transition_told),
		cmocka_unit_test(test_transition_event),
		cmocka_unit_test(test_event_answers),
		cmocka_unit_test(test_heartbeat_plan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
