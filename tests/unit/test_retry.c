/* test_retry.c - the one retry policy: equal-jitter backoff, its growth and cap, retryable statuses, Retry-After; the one backoff object. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "probes/kube/retry.h"

/* The ceiling of @attempt by the rule, computed apart: base doubling, capped. */
static uint64_t ceiling_of(unsigned attempt, unsigned base, unsigned cap)
{
	uint64_t d = base;

	for (unsigned i = 1; i < attempt && d < cap; i++)
		d *= 2;
	return d < cap ? d : cap;
}

/* Every draw within [ceil(d/2), d]; both ends reached; every ceiling doubles up to the cap. */
static void check_policy(unsigned base, unsigned cap)
{
	uint64_t s = 1;

	for (unsigned a = 1; a <= 20; a++) {
		uint64_t d = ceiling_of(a, base, cap), lo = UINT64_MAX, hi = 0;

		if (a > 1)
			assert_true(d == cap || d == 2 * ceiling_of(a - 1, base, cap));    /* it grows */
		for (int i = 0; i < 2000; i++) {
			uint64_t b = retry_backoff_ms(retry_random(&s), a, base, cap);

			assert_true(b >= d - d / 2 && b <= d);
			lo = b < lo ? b : lo;
			hi = b > hi ? b : hi;
		}
		/* Spread over the range, not a fixed value: the lower and upper tenth are both drawn. */
		assert_true(lo <= d - d / 2 + d / 10 && hi >= d - d / 10);
	}
	assert_int_equal(ceiling_of(20, base, cap), cap);
}

static void test_equal_jitter_grows_to_cap(void **state)
{
	check_policy(RETRY_BACKOFF_BASE_MS, RETRY_BACKOFF_CAP_MS);      /* between requests */
	check_policy(RETRY_BASE_MS, RETRY_CAP_MS);                      /* within one call */
	check_policy(50, 200);
	/* The extremes of the draw: the floor half the ceiling, the top the ceiling. */
	assert_int_equal(retry_backoff_ms(0, 1, RETRY_BACKOFF_BASE_MS, RETRY_BACKOFF_CAP_MS), 2500);
	assert_int_equal(retry_backoff_ms(2500, 1, RETRY_BACKOFF_BASE_MS, RETRY_BACKOFF_CAP_MS), 5000);
	assert_int_equal(retry_backoff_ms(5000, 2, RETRY_BACKOFF_BASE_MS, RETRY_BACKOFF_CAP_MS), 10000);
	assert_int_equal(retry_backoff_ms(0, 64, RETRY_BACKOFF_BASE_MS, RETRY_BACKOFF_CAP_MS), 150000);
	assert_int_equal(retry_backoff_ms(150000, 64, RETRY_BACKOFF_BASE_MS, RETRY_BACKOFF_CAP_MS), 300000);
	assert_int_equal(retry_backoff_ms(150000, UINT32_MAX, RETRY_BACKOFF_BASE_MS, RETRY_BACKOFF_CAP_MS), 300000);
	/* Attempt 0 is the first; a cap under the base wins; an odd ceiling is reached; 1 ms is never 0. */
	assert_int_equal(retry_backoff_ms(0, 0, 100, 1000), 50);
	assert_int_equal(retry_backoff_ms(50, 0, 100, 1000), 100);
	assert_int_equal(retry_backoff_ms(UINT64_MAX, 3, 5000, 1000), 1000 / 2 + UINT64_MAX % 501);
	assert_int_equal(retry_backoff_ms(1, 1, 5, 5), 4);
	assert_int_equal(retry_backoff_ms(2, 1, 5, 5), 5);
	assert_int_equal(retry_backoff_ms(0, 1, 5, 5), 3);
	assert_int_equal(retry_backoff_ms(0, 9, 1, 1), 1);
	assert_int_equal(retry_backoff_ms(12345, 9, 1, 1), 1);
}

static void test_policy_constants(void **state)
{
	/* A run of failures reaches the cap; a person's fix is looked for more often than the cap. */
	assert_true(RETRY_BACKOFF_BASE_MS < RETRY_BACKOFF_CAP_MS);
	assert_true(RETRY_SLOW_MS < RETRY_BACKOFF_CAP_MS);
	assert_true(RETRY_BASE_MS < RETRY_CAP_MS && RETRY_CAP_MS < RETRY_BACKOFF_CAP_MS);
	assert_true(RETRY_HEALTHY_MS >= RETRY_BACKOFF_BASE_MS);
	assert_true(RETRY_AFTER_MAX_S * 1000u <= RETRY_BACKOFF_CAP_MS);
}

static void test_retryable_statuses(void **state)
{
	assert_true(retry_status_retryable(429));
	assert_true(retry_status_retryable(500));
	assert_true(retry_status_retryable(503));
	assert_true(retry_status_retryable(599));
	assert_false(retry_status_retryable(600));
	assert_false(retry_status_retryable(410));
	assert_false(retry_status_retryable(403));
	assert_false(retry_status_retryable(404));
	assert_false(retry_status_retryable(200));
	assert_false(retry_status_retryable(0));
}

/* Retry-After is the earliest time; the backoff spreads those told the same. */
static void test_retry_after(void **state)
{
	assert_int_equal(retry_wait_ms(100, 0), 100);
	assert_int_equal(retry_wait_ms(100, 2), 2100);
	assert_int_equal(retry_wait_ms(0, 2), 2000);
	assert_int_equal(retry_wait_ms(100, RETRY_AFTER_MAX_S), RETRY_AFTER_MAX_S * 1000u + 100);
	assert_int_equal(retry_wait_ms(100, 3600), RETRY_AFTER_MAX_S * 1000u + 100);
	assert_int_equal(retry_wait_ms(100, UINT32_MAX), RETRY_AFTER_MAX_S * 1000u + 100);
}

static void test_random(void **state)
{
	uint64_t s = 0, a, b;

	assert_true(retry_random(&s) != 0 && s != 0);   /* a zero seed does not stick at zero */
	s = 42;
	a = retry_random(&s);
	s = 42;
	b = retry_random(&s);
	assert_true(a == b);                            /* seeded: tests are deterministic */
	assert_true(retry_random(&s) != a);
}

/*
 * The one stateful backoff: each failure in a row is the rule's draw for that count on its own
 * jitter, after the Retry-After; counted up to 64; a success starts the run again; zeroed, it is
 * the policy between requests.
 */
static void test_backoff_object(void **state)
{
	struct retry_backoff b = { .rng = 99 }, mine = { .base_ms = 100, .cap_ms = 1000, .rng = 5 };

	(void)state;
	for (unsigned f = 1; f <= 70; f++) {
		uint64_t rng = b.rng, want = retry_backoff_ms(retry_random(&rng), f < 64 ? f : 64, RETRY_BACKOFF_BASE_MS,
								   RETRY_BACKOFF_CAP_MS);

		assert_int_equal(retry_backoff_fail(&b, f == 3 ? 2 : 0), want + (f == 3 ? 2000 : 0));
		assert_int_equal(b.rng, rng);                   /* one draw per failure */
		assert_int_equal(b.failures, f < 64 ? f : 64);
	}
	retry_backoff_reset(&b);
	assert_int_equal(b.failures, 0);
	assert_true(retry_backoff_fail(&b, 0) <= RETRY_BACKOFF_BASE_MS);        /* the first window again */
	/* Its own base and cap; a Retry-After over the limit is capped. */
	for (unsigned f = 1; f <= 8; f++) {
		uint64_t d = retry_backoff_fail(&mine, 3600), c = ceiling_of(f, 100, 1000);

		assert_true(d >= RETRY_AFTER_MAX_S * 1000u + c - c / 2 && d <= RETRY_AFTER_MAX_S * 1000u + c);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_equal_jitter_grows_to_cap),
		cmocka_unit_test(test_policy_constants),
		cmocka_unit_test(test_retryable_statuses),
		cmocka_unit_test(test_retry_after),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_backoff_object),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
