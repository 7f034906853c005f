/* retry.h - pure: the one retry policy (which answers are retried, the backoff's jitter, base, cap, Retry-After). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/*
 * Every wait before a retry is one struct retry_backoff's (retry_backoff_fail()): the HTTP
 * client's own retries within one call, the reflectors' relists and watch retries, the Networks
 * listed by the watches, the daemon's reads and writes (agent/schedule.c) and its Event queue
 * (agent/eventq.c). One jitter rule (equal jitter), one growth (doubling from a base to a cap),
 * Retry-After added in one place.
 */
#define RETRY_BACKOFF_BASE_MS   5000u   /* between requests: the first backoff's ceiling */
#define RETRY_BACKOFF_CAP_MS    300000u /* ... the largest: a failing API is still tried every 5 minutes */
#define RETRY_SLOW_MS           60000u  /* 403 or 404: a person must act (RBAC, a name); tried this often */
#define RETRY_HEALTHY_MS        60000u  /* a watch that followed this long ends a run of failures */
/*
 * Within one call (the HTTP client's own attempts): its caller waits through them, so the
 * ceiling starts and stays short; the rule is the same.
 */
#define RETRY_BASE_MS           250u    /* first backoff ceiling */
#define RETRY_CAP_MS            8000u   /* largest backoff ceiling */
#define RETRY_AFTER_MAX_S       60u     /* a server's Retry-After is capped: it cannot park us */

/* xorshift64*: the next pseudo-random number from @state (never 0; seed it non-zero). Jitter only. */
uint64_t retry_random(uint64_t *state);

/**
 * retry_backoff_ms() - the backoff before retry number @attempt (counts from 1; 0 is treated as
 * 1): with the ceiling d = min(@cap_ms, @base_ms * 2^(@attempt - 1)), equal jitter, uniform in
 * [d/2, d] (rounded up), drawn from @random (a retry_random() value). Clients that failed together spread
 * over half the delay, and none comes back at once (full jitter's draw of 0 would ask a failing
 * server again straight away).
 */
uint64_t retry_backoff_ms(uint64_t random, unsigned attempt, unsigned base_ms, unsigned cap_ms);

/* Whether an HTTP status is worth retrying: 429 and 5xx. */
bool retry_status_retryable(long status);

/*
 * The wait before the next attempt: the Retry-After (capped), when there is one, plus the backoff,
 * so that clients told the same Retry-After do not all come back at once.
 */
uint64_t retry_wait_ms(uint64_t backoff_ms, unsigned retry_after_s);

/*
 * One stateful backoff, like apimachinery's wait.Backoff: the failures in a row and the jitter's
 * state; the ceiling doubles from base_ms to cap_ms. A zeroed one is the policy's between requests
 * (RETRY_BACKOFF_BASE_MS to RETRY_BACKOFF_CAP_MS); seed rng for jitter of its own.
 */
struct retry_backoff {
	unsigned base_ms, cap_ms;       /* the first ceiling and the largest (0: the policy's) */
	unsigned failures;              /* in a row, at most 64 (0: none since the last success) */
	uint64_t rng;                   /* the jitter's state (retry_random()) */
};

/*
 * retry_backoff_fail() - one more failure in a row; the wait before the next try: the backoff of
 * that many failures (retry_backoff_ms(), drawn from the object's jitter), after the Retry-After
 * (retry_wait_ms()).
 */
uint64_t retry_backoff_fail(struct retry_backoff *b, unsigned retry_after_s);

/* retry_backoff_reset() - a success: the next failure is the first again. */
void retry_backoff_reset(struct retry_backoff *b);
