/* retry.h - pure: the API client's retry policy (which answers are retried, jittered exponential backoff). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#define RETRY_BASE_MS           250u    /* first backoff ceiling */
#define RETRY_CAP_MS            8000u   /* largest backoff ceiling */
#define RETRY_AFTER_MAX_S       60u     /* a server's Retry-After is capped: it cannot park us */

/* xorshift64*: the next pseudo-random number from @state (never 0; seed it non-zero). Jitter only. */
uint64_t retry_random(uint64_t *state);

/**
 * retry_backoff_ms() - full jitter: uniform in [0, min(@cap_ms, @base_ms * 2^(@attempt - 1))],
 * drawn from @random (a retry_random() value). @attempt counts from 1; 0 is treated as 1.
 */
uint64_t retry_backoff_ms(uint64_t random, unsigned attempt, unsigned base_ms, unsigned cap_ms);

/* Whether an HTTP status is worth retrying: 429 and 5xx. */
bool retry_status_retryable(long status);

/*
 * The wait before the next attempt: the Retry-After (capped), when there is one, plus the backoff,
 * so that clients told the same Retry-After do not all come back at once.
 */
uint64_t retry_wait_ms(uint64_t backoff_ms, unsigned retry_after_s);
