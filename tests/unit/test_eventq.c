/* test_eventq.c - the Event queue: one Event per key, FIFO, one backoff for the queue, bounds and age. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "agent/eventq.h"
#include "probes/kube/retry.h"

static void test_dedupe_fifo(void **state)
{
	struct eventq q = { 0 };
	struct eventq_item *it;

	assert_null(eventq_due(&q, 1000));
	assert_int_equal(eventq_wake_at(&q), 0);
	assert_int_equal(eventq_add(&q, "pod/u1/partial", "ml", "{\"a\":1}", "pod ml/a TCPXOPartiallyAttached", 1000), 1);
	assert_int_equal(eventq_add(&q, "pod/u1/partial", "ml", "{\"a\":2}", "again", 1001), 0);
	assert_int_equal(eventq_add(&q, "pod/u1/unattached", "ml", "{\"b\":1}", "b", 1002), 1);
	assert_int_equal(eventq_add(&q, NULL, "default", "{\"node\":1}", "node", 1003), 1);
	assert_int_equal(eventq_add(&q, NULL, "default", "{\"node\":2}", "node", 1004), 1);     /* no key: each one */
	assert_int_equal(q.n, 4);
	assert_int_equal(eventq_wake_at(&q), 1);
	it = eventq_due(&q, 1005);
	assert_string_equal(it->body, "{\"a\":1}");
	assert_string_equal(it->ns, "ml");
	assert_string_equal(it->what, "pod ml/a TCPXOPartiallyAttached");
	eventq_posted(&q);
	assert_string_equal(eventq_due(&q, 1005)->body, "{\"b\":1}");
	/* Posted or waiting, the key stays: at most one Event per key. */
	assert_true(eventq_seen(&q, "pod/u1/partial"));
	assert_int_equal(eventq_add(&q, "pod/u1/partial", "ml", "{}", "", 2000), 0);
	assert_int_equal(eventq_add(&q, "x", "a-namespace-longer-than-sixty-three-characters-is-not-a-namespace-x", "{}", "", 1), -EINVAL);
	eventq_free(&q);
	eventq_free(&q);
	eventq_free(NULL);
}

/* A failing API: the head waits, the whole queue with it; the wait doubles up to the cap; a success ends it. */
static void test_backoff(void **state)
{
	struct eventq q = { 0 };
	uint64_t d, now = 10000, top = RETRY_BACKOFF_BASE_MS;

	eventq_add(&q, "k1", "ns", "{1}", "", now);
	eventq_add(&q, "k2", "ns", "{2}", "", now);
	d = eventq_retry(&q, now, 0);
	assert_true(d >= RETRY_BACKOFF_BASE_MS / 2 && d <= RETRY_BACKOFF_BASE_MS);      /* the one policy's first window */
	assert_null(eventq_due(&q, now + d - 1));
	assert_int_equal(eventq_wake_at(&q), now + d);
	assert_string_equal(eventq_due(&q, now + d)->body, "{1}");      /* the head again */
	d = eventq_retry(&q, now, 0);
	assert_true(d >= RETRY_BACKOFF_BASE_MS && d <= 2 * RETRY_BACKOFF_BASE_MS);
	top *= 2;
	/* Each failure in a row: within [ceiling/2, ceiling], the ceiling doubling up to the cap. */
	for (int i = 0; i < 20; i++) {
		top = top * 2 < RETRY_BACKOFF_CAP_MS ? top * 2 : RETRY_BACKOFF_CAP_MS;
		d = eventq_retry(&q, now, 0);
		assert_true(d >= top / 2 && d <= top);
	}
	assert_true(d >= RETRY_BACKOFF_CAP_MS / 2 && d <= RETRY_BACKOFF_CAP_MS);
	eventq_posted(&q);
	assert_int_equal(q.backoff.failures, 0);
	assert_string_equal(eventq_due(&q, now)->body, "{2}");
	/* The run starts again from the base; a server's Retry-After comes first, the backoff on top. */
	d = eventq_retry(&q, now, 7);
	assert_true(d >= 7000 + RETRY_BACKOFF_BASE_MS / 2 && d <= 7000 + RETRY_BACKOFF_BASE_MS);
	assert_null(eventq_due(&q, now + d - 1));
	d = eventq_retry(&q, now, 3600);
	assert_true(d >= RETRY_AFTER_MAX_S * 1000u + RETRY_BACKOFF_BASE_MS &&
		    d <= RETRY_AFTER_MAX_S * 1000u + 2 * RETRY_BACKOFF_BASE_MS);
	eventq_posted(&q);
	eventq_add(&q, "k3", "ns", "{3}", "", now);
	/* Refused for good (a 403, a 422): dropped, the next one is due at once. */
	eventq_drop(&q);
	assert_int_equal(q.n, 0);
	assert_int_equal(q.dropped, 1);
	assert_true(eventq_seen(&q, "k3"));
	eventq_free(&q);
}

static void test_bounds_and_age(void **state)
{
	struct eventq q = { 0 };
	char key[32];

	for (int i = 0; i < EVENTQ_MAX + 3; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		assert_int_equal(eventq_add(&q, key, "ns", key, "", (uint64_t)i), 1);
	}
	assert_int_equal(q.n, EVENTQ_MAX);
	assert_int_equal(q.dropped, 3);
	assert_string_equal(q.v[0].body, "k3");         /* the oldest went first */
	/* An hour without a successful POST: the old ones go (the API server would have expired them). */
	assert_int_equal(eventq_expire(&q, EVENTQ_MAX_AGE_MS + 10), 7);   /* queued at 3..9 */
	assert_string_equal(q.v[0].body, "k10");
	assert_int_equal(eventq_expire(&q, 5), 0);
	eventq_free(&q);
}

static bool keep_even(const char *key, void *arg)
{
	(*(int *)arg)++;
	return (key[1] - '0') % 2 == 0;
}

/* Keys of pods gone are forgotten; the remembered keys are bounded. */
static void test_forget(void **state)
{
	struct eventq q = { 0 };
	char key[32];
	int calls = 0;

	for (int i = 0; i < 4; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		eventq_add(&q, key, "ns", "{}", "", 1);
	}
	eventq_forget(&q, keep_even, &calls);
	assert_int_equal(calls, 4);
	assert_true(eventq_seen(&q, "k0") && eventq_seen(&q, "k2"));
	assert_false(eventq_seen(&q, "k1") || eventq_seen(&q, "k3"));
	eventq_free(&q);

	for (int i = 0; i < EVENTQ_KEYS_MAX + 5; i++) {
		snprintf(key, sizeof(key), "key%d", i);
		assert_int_equal(eventq_add(&q, key, "ns", "{}", "", 1), 1);
		if (q.n > 1)
			eventq_posted(&q);
	}
	assert_int_equal(q.n_keys, EVENTQ_KEYS_MAX);
	assert_false(eventq_seen(&q, "key4"));
	assert_true(eventq_seen(&q, "key5"));
	eventq_free(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dedupe_fifo),
		cmocka_unit_test(test_backoff),
		cmocka_unit_test(test_bounds_and_age),
		cmocka_unit_test(test_forget),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
