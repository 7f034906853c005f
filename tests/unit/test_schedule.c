/* test_schedule.c - the daemon's timers: debounce, resync, backoff with jitter, start jitter (pure). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "agent/flap.h"
#include "agent/schedule.h"
#include "probes/kube/retry.h"

#define T0 1000000u     /* an arbitrary monotonic start */

static void test_init_observes_and_reads_now(void **state)
{
	struct schedule s;

	schedule_init(&s, T0, 300, 0, SCHEDULE_API_POLL, 12345);
	assert_int_equal(schedule_due(&s, T0), SCHEDULE_OBSERVE | SCHEDULE_READ);
	assert_int_equal(schedule_timeout(&s, T0), 0);
	assert_true(schedule_may_publish(&s, T0));       /* jitter 0: write at once */

	schedule_init(&s, T0, 300, 0, SCHEDULE_API_NONE, 12345);
	assert_int_equal(schedule_due(&s, T0), SCHEDULE_OBSERVE);    /* no API: never a read */
}

static void test_start_jitter_bounds(void **state)
{
	struct schedule s;

	for (uint64_t rnd = 0; rnd < 50000; rnd += 997) {
		schedule_init(&s, T0, 300, 10, SCHEDULE_API_POLL, rnd);
		assert_true(s.publish_after >= T0 && s.publish_after <= T0 + 10000);
		assert_int_equal(schedule_may_publish(&s, s.publish_after), 1);
		if (s.publish_after > T0)
			assert_false(schedule_may_publish(&s, s.publish_after - 1));
	}
	/* The whole range is reachable, ends included. */
	schedule_init(&s, T0, 300, 10, SCHEDULE_API_POLL, 10000);
	assert_int_equal(s.publish_after, T0 + 10000);
	schedule_init(&s, T0, 300, 10, SCHEDULE_API_POLL, 10001);
	assert_int_equal(s.publish_after, T0);
}

static void test_held_publish_wakes_at_jitter_end(void **state)
{
	struct schedule s;

	schedule_init(&s, T0, 300, 10, SCHEDULE_API_POLL, 4000);
	schedule_observed(&s);
	schedule_api_ok(&s, T0);
	assert_int_equal(schedule_due(&s, T0 + 100), 0);
	schedule_hold_publish(&s);
	assert_int_equal(schedule_timeout(&s, T0 + 100), 3900);
	assert_int_equal(schedule_due(&s, T0 + 3999), 0);
	assert_int_equal(schedule_due(&s, T0 + 4000), SCHEDULE_PUBLISH);
	schedule_publish_done(&s);
	assert_int_equal(schedule_due(&s, T0 + 4000), 0);
}

static void test_debounce_coalesces(void **state)
{
	struct schedule s;

	schedule_init(&s, T0, 300, 0, SCHEDULE_API_NONE, 0);
	schedule_observed(&s);
	assert_int_equal(schedule_due(&s, T0 + 5), 0);
	schedule_event(&s, T0 + 10);
	schedule_event(&s, T0 + 500);   /* within the window: does not push it back */
	schedule_event(&s, T0 + 999);
	assert_int_equal(schedule_timeout(&s, T0 + 500), 510);
	assert_int_equal(schedule_due(&s, T0 + 1009), 0);
	assert_int_equal(schedule_due(&s, T0 + 1010), SCHEDULE_OBSERVE);
	schedule_observed(&s);
	assert_int_equal(schedule_due(&s, T0 + 1011), 0);
	/* The next event opens a new window. */
	schedule_event(&s, T0 + 2000);
	assert_int_equal(schedule_due(&s, T0 + 2999), 0);
	assert_int_equal(schedule_due(&s, T0 + 3000), SCHEDULE_OBSERVE);
}

static void test_observe_now(void **state)
{
	struct schedule s;

	schedule_init(&s, T0, 300, 0, SCHEDULE_API_NONE, 0);
	schedule_observed(&s);
	schedule_event(&s, T0);
	schedule_observe_now(&s, T0 + 1);       /* SIGHUP overrides the debounce */
	assert_int_equal(schedule_due(&s, T0 + 1), SCHEDULE_OBSERVE);
}

static void test_idle_wakes_every_10s(void **state)
{
	struct schedule s;

	schedule_init(&s, T0, 300, 0, SCHEDULE_API_POLL, 0);
	schedule_observed(&s);
	schedule_api_ok(&s, T0);
	assert_int_equal(schedule_timeout(&s, T0), SCHEDULE_WAKE_MS);
	assert_int_equal(schedule_timeout(&s, T0 + 295000), 5000);      /* the resync is nearer */
	assert_int_equal(schedule_due(&s, T0 + 299999), 0);
	assert_int_equal(schedule_due(&s, T0 + 300000), SCHEDULE_READ);
}

/* The wait schedule_api_failed() will choose for failure @f in a row: the one policy's rule on the schedule's own jitter. */
static uint64_t policy_next(const struct schedule *s, unsigned f, unsigned cap)
{
	uint64_t rng = s->backoff.rng;

	return retry_backoff_ms(retry_random(&rng), f, RETRY_BACKOFF_BASE_MS, cap);
}

static void test_backoff_doubles_to_cap(void **state)
{
	struct schedule s;
	uint64_t top = RETRY_BACKOFF_BASE_MS;

	schedule_init(&s, T0, 300, 0, SCHEDULE_API_POLL, 7);
	/* Each failure in a row within [d/2, d], d doubling from 5 s to the 300 s cap; counted up to 64. */
	for (unsigned f = 1; f <= 70; f++) {
		uint64_t want = policy_next(&s, f < 64 ? f : 64, 300000), d = schedule_api_failed(&s, T0, f % 2 ? 500 : 0);

		assert_int_equal(d, want);      /* the one policy's rule (probes/kube/retry.h), not a copy of it */
		assert_true(d >= top - top / 2 && d <= top);
		assert_int_equal(s.backoff.failures, f < 64 ? f : 64);
		top = top * 2 < 300000 ? top * 2 : 300000;
	}
	/* Never beyond the resync interval. */
	schedule_init(&s, T0, 10, 0, SCHEDULE_API_POLL, 7);
	for (unsigned f = 1; f <= 5; f++) {
		uint64_t d = schedule_api_failed(&s, T0, 503);

		assert_true(d >= (f == 1 ? 2500u : 5000u) && d <= (f == 1 ? 5000u : 10000u));
	}
}

static void test_backoff_jitter_range(void **state)
{
	uint64_t lo = UINT64_MAX, hi = 0;

	/* Nodes started with other seeds spread over the whole first window [2.5 s, 5 s]. */
	for (uint64_t seed = 1; seed < 2000; seed++) {
		struct schedule s;
		uint64_t d;

		schedule_init(&s, T0, 300, 0, SCHEDULE_API_POLL, seed * 7919);
		d = schedule_api_failed(&s, T0, 500);
		assert_true(d >= 2500 && d <= 5000);
		lo = d < lo ? d : lo;
		hi = d > hi ? d : hi;
	}
	assert_true(lo < 2600 && hi > 4900);
}

static void test_backoff_slow_for_403_404(void **state)
{
	struct schedule s;

	schedule_init(&s, T0, 10, 0, SCHEDULE_API_POLL, 3);
	for (unsigned f = 1; f < 5; f++) {
		uint64_t d = schedule_api_failed(&s, T0, f % 2 ? 403 : 404);

		/* Slow even when the resync is shorter: a person has to act. Still counted. */
		assert_true(d >= RETRY_SLOW_MS / 2 && d <= RETRY_SLOW_MS);
		assert_int_equal(s.backoff.failures, f);
	}
}

static void test_failures_then_recovery(void **state)
{
	struct schedule s;
	uint64_t d1, d2;

	schedule_init(&s, T0, 300, 0, SCHEDULE_API_POLL, 0);
	schedule_observed(&s);
	d1 = schedule_api_failed(&s, T0, 500);
	assert_int_equal(s.backoff.failures, 1);
	assert_true(d1 >= 2500 && d1 <= 5000);
	assert_int_equal(schedule_due(&s, T0 + d1 - 1), 0);
	assert_int_equal(schedule_due(&s, T0 + d1), SCHEDULE_READ);
	d2 = schedule_api_failed(&s, T0 + d1, 0);
	assert_int_equal(s.backoff.failures, 2);
	assert_true(d2 >= 5000 && d2 <= 10000);
	schedule_api_ok(&s, T0 + d1 + d2);
	assert_int_equal(s.backoff.failures, 0);
	assert_int_equal(s.read_at, T0 + d1 + d2 + 300000);
	/* The next failure starts from the base again. */
	d1 = schedule_api_failed(&s, T0 + 400000, 500);
	assert_true(d1 >= 2500 && d1 <= 5000);
}

/* An observation that could not be made is retried after 5 s; an event in between comes sooner. */
static void test_observe_retry(void **state)
{
	struct schedule s;

	schedule_init(&s, T0, 300, 0, SCHEDULE_API_NONE, 0);
	schedule_observed(&s);
	schedule_observe_failed(&s, T0);
	assert_int_equal(schedule_timeout(&s, T0), SCHEDULE_OBSERVE_RETRY_MS);
	assert_int_equal(schedule_due(&s, T0 + SCHEDULE_OBSERVE_RETRY_MS - 1), 0);
	assert_int_equal(schedule_due(&s, T0 + SCHEDULE_OBSERVE_RETRY_MS), SCHEDULE_OBSERVE);
	schedule_observed(&s);
	schedule_observe_failed(&s, T0 + 5000);
	schedule_event(&s, T0 + 5100);          /* the debounce window is nearer than the retry */
	assert_int_equal(schedule_due(&s, T0 + 6099), 0);
	assert_int_equal(schedule_due(&s, T0 + 6100), SCHEDULE_OBSERVE);
	/* a retry never pushes an open debounce window back */
	schedule_observed(&s);
	schedule_event(&s, T0 + 7000);
	schedule_observe_failed(&s, T0 + 7001);
	assert_int_equal(schedule_due(&s, T0 + 8000), SCHEDULE_OBSERVE);
}

/*
 * A flapping link's hold-down end wakes the loop to observe, without an event (a stable link sends
 * none): scheduled from the flap history itself, with the write spacing; that observation releases
 * the link, and both end.
 */
static void test_damp_wakes(void **state)
{
	struct flap *f = calloc(1, sizeof(*f));
	struct schedule s;

	assert_non_null(f);
	schedule_init(&s, T0, 300, 0, SCHEDULE_API_NONE, 0);
	schedule_observed(&s);
	schedule_flaps(&s, f);
	assert_int_equal(schedule_timeout(&s, T0), SCHEDULE_WAKE_MS);  /* nothing held: no wake-up */
	flap_state(f, "eth2", true, T0);
	flap_state(f, "eth2", false, T0 + 1000);
	flap_state(f, "eth2", true, T0 + 2000);
	assert_int_equal(flap_state(f, "eth2", false, T0 + 3000), FLAP_NEWS_HELD);
	schedule_flaps(&s, f);
	assert_int_equal(schedule_timeout(&s, T0 + 25000), 8000);
	assert_int_equal(schedule_due(&s, T0 + 32999), 0);
	assert_int_equal(schedule_due(&s, T0 + 3000 + FLAP_HOLD_MS), SCHEDULE_OBSERVE);
	schedule_wrote(&s, T0 + 3000);
	assert_false(schedule_may_publish(&s, T0 + 3000 + SCHEDULE_FLAP_SPACING_MS - 1));
	/* The wake-up's observation releases the link: no more wake-up, no spacing. */
	schedule_observed(&s);
	assert_int_equal(flap_release(f, T0 + 3000 + FLAP_HOLD_MS, NULL, NULL), 1);
	schedule_flaps(&s, f);
	assert_int_equal(schedule_due(&s, T0 + 3000 + FLAP_HOLD_MS), 0);
	assert_int_equal(schedule_timeout(&s, T0 + 3000 + FLAP_HOLD_MS), SCHEDULE_WAKE_MS);
	assert_true(schedule_may_publish(&s, T0 + 3001));
	free(f);
}

/* Events waiting for their backoff wake the loop once; the iteration consumes the wake-up. */
static void test_events_wake(void **state)
{
	struct schedule s;

	schedule_init(&s, T0, 300, 0, false, 0);
	schedule_observed(&s);
	schedule_events(&s, T0 + 7000);
	assert_int_equal(schedule_timeout(&s, T0 + 2000), 5000);
	assert_int_equal(schedule_due(&s, T0 + 6999), 0);
	assert_int_equal(schedule_due(&s, T0 + 7000), SCHEDULE_EVENTS);
	/* An iteration ran (observed): whoever posts sets the next one; none set, none due. */
	schedule_observed(&s);
	assert_int_equal(schedule_due(&s, T0 + 8000), 0);
	assert_int_equal(schedule_timeout(&s, T0 + 8000), SCHEDULE_WAKE_MS);
	schedule_events(&s, 0);
	assert_int_equal(schedule_due(&s, T0 + 9000), 0);
}

/* While a link flaps, writes keep 10 s apart: a wanted write waits and wakes the loop for itself. */
static void test_write_spacing(void **state)
{
	struct schedule s;
	uint64_t t = T0, writes = 0, last = 0;

	schedule_init(&s, T0, 300, 0, SCHEDULE_API_POLL, 0);
	schedule_observed(&s);
	schedule_api_ok(&s, T0);
	assert_true(schedule_may_publish(&s, T0));
	schedule_wrote(&s, T0);
	assert_true(schedule_may_publish(&s, T0 + 1));  /* no spacing: no limit */
	s.spacing_ms = SCHEDULE_FLAP_SPACING_MS;      /* as schedule_flaps() sets it while a link is held */
	assert_false(schedule_may_publish(&s, T0 + 1));
	assert_int_equal(schedule_publish_at(&s), T0 + SCHEDULE_FLAP_SPACING_MS);
	schedule_hold_publish(&s);
	assert_int_equal(schedule_timeout(&s, T0 + 4000), 6000);
	assert_int_equal(schedule_due(&s, T0 + 9999), 0);
	assert_int_equal(schedule_due(&s, T0 + 10000), SCHEDULE_PUBLISH);
	/* a write wanted every 300 ms for 60 s: at most one per 10 s */
	schedule_wrote(&s, T0 + 10000);
	last = T0 + 10000;
	writes = 1;
	for (t = T0 + 10000; t < T0 + 70000; t += 300) {
		if (schedule_may_publish(&s, t)) {
			assert_true(t - last >= SCHEDULE_FLAP_SPACING_MS);
			schedule_wrote(&s, t);
			last = t;
			writes++;
		}
	}
	assert_int_equal(writes, 6);    /* 10.0, 20.2, 30.4, 40.6, 50.8, 61.0 s: the 300 ms grid */
	/* released: the next write goes at once */
	s.spacing_ms = 0;
	assert_true(schedule_may_publish(&s, last + 1));
	/* the start jitter still holds a first write back, spacing or not */
	schedule_init(&s, T0, 300, 10, SCHEDULE_API_POLL, 4000);
	s.spacing_ms = SCHEDULE_FLAP_SPACING_MS;
	assert_false(schedule_may_publish(&s, T0 + 3999));
	assert_true(schedule_may_publish(&s, T0 + 4000));
}

/* With an API, nothing happens before the start jitter: then the first read (or the watches) and the observation. */
static void test_first_request_after_jitter(void **state)
{
	struct schedule s;

	for (int api = SCHEDULE_API_POLL; api <= SCHEDULE_API_WATCH; api++) {
		schedule_init(&s, T0, 300, 60, (enum schedule_api)api, 42000);
		assert_int_equal(s.publish_after, T0 + 42000);
		assert_int_equal(schedule_due(&s, T0), 0);
		assert_int_equal(schedule_timeout(&s, T0), 10000);     /* the health file still wakes it */
		assert_int_equal(schedule_due(&s, T0 + 41999), 0);
		assert_int_equal(schedule_due(&s, T0 + 42000), SCHEDULE_OBSERVE | SCHEDULE_READ);
		assert_true(schedule_may_publish(&s, T0 + 42000));
	}
	/* Without an API there is nothing to spread: observe at once. */
	schedule_init(&s, T0, 300, 60, SCHEDULE_API_NONE, 42000);
	assert_int_equal(schedule_due(&s, T0), SCHEDULE_OBSERVE);
}

/* Watches: the interval is a resync, late by up to a tenth of it; writes retry on their own timer. */
static void test_watch_resync_and_write_retry(void **state)
{
	struct schedule s;
	uint64_t d;

	schedule_init(&s, T0, 3600, 0, SCHEDULE_API_WATCH, 0);
	assert_int_equal(schedule_due(&s, T0), SCHEDULE_OBSERVE | SCHEDULE_READ);
	schedule_observed(&s);
	for (uint64_t rnd = 0; rnd < 1000000; rnd += 9973) {
		schedule_resynced(&s, T0, rnd);
		assert_true(s.read_at >= T0 + 3600000 && s.read_at <= T0 + 3600000 + 360000);
	}
	schedule_resynced(&s, T0, 360000);
	assert_int_equal(s.read_at, T0 + 3600000 + 360000);
	schedule_resynced(&s, T0, 0);
	assert_int_equal(schedule_due(&s, T0 + 3599999), 0);
	assert_int_equal(schedule_due(&s, T0 + 3600000), SCHEDULE_READ);

	/* A failed write: retried after the backoff; the resync keeps its time. */
	d = schedule_api_failed(&s, T0 + 1000, 503);
	assert_true(d >= 2500 && d <= 5000);
	assert_int_equal(s.read_at, T0 + 3600000);
	assert_int_equal(schedule_due(&s, T0 + 1000 + d - 1), 0);
	assert_int_equal(schedule_timeout(&s, T0 + 1000), (int)d);
	assert_int_equal(schedule_due(&s, T0 + 1000 + d), SCHEDULE_RETRY | SCHEDULE_OBSERVE);
	schedule_retry_taken(&s);
	schedule_observed(&s);
	assert_int_equal(schedule_due(&s, T0 + 1000 + d), 0);
	assert_int_equal(s.backoff.failures, 1);
	schedule_api_ok(&s, T0 + 5000);
	assert_int_equal(s.backoff.failures, 0);
	assert_int_equal(s.read_at, T0 + 3600000);      /* not moved: only the resync moves it */
}

/* The transport timer: every 60 s while GPU pods run, at once on SIGHUP, never while none does. */
static void test_transport_timer(void **state)
{
	struct schedule s;
	uint64_t now = T0;

	schedule_init(&s, T0, 300, 0, SCHEDULE_API_NONE, 1);
	schedule_observed(&s);
	/* No GPU pod: no timer, the loop sleeps its 10 s, never due for a sample. */
	schedule_transport(&s, now, false, false);
	assert_int_equal(s.transport_at, 0);
	for (now = T0; now < T0 + 600000; now += 10000)
		assert_false(schedule_due(&s, now) & SCHEDULE_TRANSPORT);
	assert_int_equal(schedule_timeout(&s, now), SCHEDULE_WAKE_MS);

	/* A GPU pod starts: sampled with that observation, the next sample 60 s later, with an observation. */
	now = T0 + 1000000;
	schedule_transport(&s, now, true, true);
	assert_int_equal(s.transport_at, now + SCHEDULE_TRANSPORT_MS);
	assert_int_equal(schedule_due(&s, now + SCHEDULE_TRANSPORT_MS - 1), 0);
	assert_int_equal(schedule_due(&s, now + SCHEDULE_TRANSPORT_MS), SCHEDULE_TRANSPORT | SCHEDULE_OBSERVE);
	assert_int_equal(schedule_timeout(&s, now + SCHEDULE_TRANSPORT_MS - 3000), 3000);

	/* An observation between samples (a link event) leaves the timer where it is. */
	schedule_transport(&s, now + 20000, true, false);
	assert_int_equal(s.transport_at, now + SCHEDULE_TRANSPORT_MS);

	/* The sample at the timer moves it on by 60 s. */
	now += SCHEDULE_TRANSPORT_MS;
	schedule_observed(&s);
	schedule_transport(&s, now, true, true);
	assert_int_equal(s.transport_at, now + SCHEDULE_TRANSPORT_MS);
	assert_false(schedule_due(&s, now) & SCHEDULE_TRANSPORT);

	/* SIGHUP: due at once. */
	schedule_transport_now(&s, now + 5);
	assert_int_equal(schedule_due(&s, now + 5), SCHEDULE_TRANSPORT | SCHEDULE_OBSERVE);
	/* Taken: not due again, even if the iteration ends before its observation. */
	schedule_transport_taken(&s);
	assert_int_equal(schedule_due(&s, now + 6), 0);

	/* The last GPU pod goes: the timer stops. */
	schedule_transport(&s, now + 6, false, false);
	assert_int_equal(s.transport_at, 0);
	assert_false(schedule_due(&s, now + 10 * SCHEDULE_TRANSPORT_MS) & SCHEDULE_TRANSPORT);

	/* GPU pods seen without a sample (no timer yet): the first one comes 60 s later. */
	schedule_transport(&s, now + 7, true, false);
	assert_int_equal(s.transport_at, now + 7 + SCHEDULE_TRANSPORT_MS);
}

/* A watching schedule past its start: observed, the watches started, nothing due before the resync. */
static void heartbeat_schedule(struct schedule *s, uint64_t heartbeat_ms)
{
	schedule_init(s, T0, 3600, 0, SCHEDULE_API_WATCH, 0);
	schedule_observed(s);
	schedule_resynced(s, T0, 0);
	schedule_heartbeat(s, heartbeat_ms);
}

/* Not armed until the condition is published: never due, never a wake-up. */
static void test_heartbeat_not_before_published(void **state)
{
	struct schedule s;

	heartbeat_schedule(&s, 10000);
	for (uint64_t t = T0; t < T0 + 100000; t += 1000) {
		assert_int_equal(schedule_due(&s, t), 0);
		assert_false(schedule_heartbeat_owed(&s, t));
	}
	assert_int_equal(schedule_timeout(&s, T0), SCHEDULE_WAKE_MS);
	/* Off (--heartbeat 0): nothing arms it. */
	heartbeat_schedule(&s, 0);
	schedule_heartbeat_sent(&s, T0);
	schedule_heartbeat_start(&s, T0, UINT64_MAX);
	assert_int_equal(schedule_due(&s, T0 + 3000000), 0);
	assert_int_equal(s.heartbeat_at, 0);
}

/* Armed by a status patch: due one period later, every period while each is sent; its wake-up is exact. */
static void test_heartbeat_period(void **state)
{
	struct schedule s;
	uint64_t t = T0;

	heartbeat_schedule(&s, 10000);
	schedule_heartbeat_sent(&s, t);
	for (int i = 0; i < 5; i++) {
		assert_int_equal(schedule_timeout(&s, t + 1), 9999);
		assert_int_equal(schedule_due(&s, t + 9999), 0);
		assert_int_equal(schedule_due(&s, t + 10000), SCHEDULE_HEARTBEAT | SCHEDULE_OBSERVE);
		assert_true(schedule_heartbeat_owed(&s, t + 10000));
		t += 10000;
		schedule_heartbeat_sent(&s, t);
		schedule_observed(&s);
		assert_int_equal(schedule_due(&s, t), 0);
	}
	/* A change's status patch in between moves the next heartbeat: one status patch per period at most. */
	schedule_heartbeat_sent(&s, t + 4000);
	assert_int_equal(schedule_due(&s, t + 10000), 0);
	assert_int_equal(schedule_due(&s, t + 14000), SCHEDULE_HEARTBEAT | SCHEDULE_OBSERVE);
}

/* Found published at start: the next when the node's heartbeat is one period old; at once when older or unknown. */
static void test_heartbeat_start_from_age(void **state)
{
	struct schedule s;

	heartbeat_schedule(&s, 300000);
	schedule_heartbeat_start(&s, T0, 120000);
	assert_int_equal(s.heartbeat_at, T0 + 180000);
	/* Armed: a later start does not move it. */
	schedule_heartbeat_start(&s, T0 + 1000, 0);
	assert_int_equal(s.heartbeat_at, T0 + 180000);

	heartbeat_schedule(&s, 300000);
	schedule_heartbeat_start(&s, T0, 300000);
	assert_int_equal(schedule_due(&s, T0), SCHEDULE_HEARTBEAT | SCHEDULE_OBSERVE);
	heartbeat_schedule(&s, 300000);
	schedule_heartbeat_start(&s, T0, UINT64_MAX);
	assert_true(schedule_heartbeat_owed(&s, T0));
	heartbeat_schedule(&s, 300000);
	schedule_heartbeat_start(&s, T0, 0);            /* written just now (or a clock ahead) */
	assert_int_equal(s.heartbeat_at, T0 + 300000);
}

/*
 * In backoff a heartbeat never goes on its own: owed but not due, no wake-up for it; the write
 * retry carries it. A heartbeat that fails is owed again and waits for the retry too.
 */
static void test_heartbeat_in_backoff(void **state)
{
	struct schedule s;
	uint64_t d, t;

	heartbeat_schedule(&s, 10000);
	schedule_heartbeat_sent(&s, T0);
	d = schedule_api_failed(&s, T0 + 9000, 503);            /* a write failed just before */
	assert_true(d >= 2500 && d <= 5000);
	t = T0 + 9000 + d;
	assert_int_equal(schedule_due(&s, T0 + 10000), 0);
	assert_true(schedule_heartbeat_owed(&s, T0 + 10000));
	assert_int_equal(schedule_timeout(&s, T0 + 10000), (int)(d - 1000)); /* the retry's wake-up, not the heartbeat's */
	assert_int_equal(schedule_due(&s, t), SCHEDULE_RETRY | SCHEDULE_OBSERVE);
	/* The retry's iteration sends it; it fails: owed again, after the (longer) backoff. */
	schedule_retry_taken(&s);
	schedule_heartbeat_sent(&s, t);
	schedule_heartbeat_failed(&s, t);
	d = schedule_api_failed(&s, t, 0);
	assert_true(d >= 5000 && d <= 10000);
	assert_int_equal(schedule_due(&s, t + d - 1), 0);
	t += d;
	assert_int_equal(schedule_due(&s, t), SCHEDULE_RETRY | SCHEDULE_OBSERVE);
	assert_true(schedule_heartbeat_owed(&s, t));
	/* Sent with the retry: the API answers, and the heartbeat is due again a period later. */
	schedule_retry_taken(&s);
	schedule_heartbeat_sent(&s, t);
	schedule_api_ok(&s, t);
	schedule_observed(&s);
	assert_int_equal(schedule_due(&s, t + 9999), 0);
	assert_int_equal(schedule_due(&s, t + 10000), SCHEDULE_HEARTBEAT | SCHEDULE_OBSERVE);
}

/*
 * Issue 30: a write in flight (never waited for): no other write's task is due until it ends, so the
 * loop never spins on what it cannot send yet; an observation that wanted one meanwhile is made
 * again at its end; observations, reads and transport samples go on.
 */
static void test_writing(void **state)
{
	struct schedule s;

	(void)state;
	heartbeat_schedule(&s, 10000);
	schedule_heartbeat_sent(&s, T0);
	schedule_events(&s, T0 + 1000);
	schedule_hold_publish(&s);
	schedule_transport(&s, T0, true, true);
	schedule_writing(&s, true, T0);
	assert_int_equal(schedule_due(&s, T0 + 10000), 0);
	assert_int_equal(schedule_timeout(&s, T0 + 1000), SCHEDULE_WAKE_MS);     /* neither the Events nor the heartbeat */
	assert_int_equal(schedule_due(&s, T0 + SCHEDULE_TRANSPORT_MS), SCHEDULE_TRANSPORT | SCHEDULE_OBSERVE);
	schedule_event(&s, T0 + 2000);
	assert_int_equal(schedule_due(&s, T0 + 3000), SCHEDULE_OBSERVE);
	schedule_observed(&s);
	schedule_write_held(&s);
	assert_int_equal(schedule_due(&s, T0 + 4000), 0);
	/* Ended: what was held is observed again at once, and the write tasks are due again. */
	schedule_writing(&s, false, T0 + 5000);
	assert_int_equal(schedule_due(&s, T0 + 5000) & (SCHEDULE_OBSERVE | SCHEDULE_PUBLISH), SCHEDULE_OBSERVE | SCHEDULE_PUBLISH);
	assert_true(schedule_due(&s, T0 + 10000) & SCHEDULE_HEARTBEAT);
	assert_false(s.write_held);
	/* Ended without anything held: no observation for it. */
	schedule_observed(&s);
	schedule_wrote(&s, T0 + 11000);
	schedule_heartbeat_sent(&s, T0 + 11000);
	schedule_writing(&s, true, T0 + 11000);
	schedule_writing(&s, false, T0 + 12000);
	assert_int_equal(schedule_due(&s, T0 + 12000), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_observes_and_reads_now),
		cmocka_unit_test(test_start_jitter_bounds),
		cmocka_unit_test(test_held_publish_wakes_at_jitter_end),
		cmocka_unit_test(test_debounce_coalesces),
		cmocka_unit_test(test_observe_now),
		cmocka_unit_test(test_observe_retry),
		cmocka_unit_test(test_damp_wakes),
		cmocka_unit_test(test_events_wake),
		cmocka_unit_test(test_write_spacing),
		cmocka_unit_test(test_idle_wakes_every_10s),
		cmocka_unit_test(test_backoff_doubles_to_cap),
		cmocka_unit_test(test_backoff_jitter_range),
		cmocka_unit_test(test_backoff_slow_for_403_404),
		cmocka_unit_test(test_failures_then_recovery),
		cmocka_unit_test(test_first_request_after_jitter),
		cmocka_unit_test(test_watch_resync_and_write_retry),
		cmocka_unit_test(test_transport_timer),
		cmocka_unit_test(test_heartbeat_not_before_published),
		cmocka_unit_test(test_heartbeat_period),
		cmocka_unit_test(test_heartbeat_start_from_age),
		cmocka_unit_test(test_heartbeat_in_backoff),
		cmocka_unit_test(test_writing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
