/* retry.c - pure: the one retry policy (which answers are retried, equal-jitter exponential backoff, Retry-After). */
#include "probes/kube/retry.h"

uint64_t retry_random(uint64_t *state)
{
	uint64_t x = *state ? *state : 0x9E3779B97F4A7C15ULL;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

uint64_t retry_backoff_ms(uint64_t random, unsigned attempt, unsigned base_ms, unsigned cap_ms)
{
	uint64_t ceiling = base_ms;

	while (attempt-- > 1 && ceiling < cap_ms)
		ceiling *= 2;
	if (ceiling > cap_ms)
		ceiling = cap_ms;
	/* [ceil(d/2), d]: an odd ceiling is still reached, and 1 ms stays 1 ms. */
	return ceiling - ceiling / 2 + random % (ceiling / 2 + 1);
}

bool retry_status_retryable(long status)
{
	return status == 429 || (status >= 500 && status <= 599);
}

uint64_t retry_wait_ms(uint64_t backoff_ms, unsigned retry_after_s)
{
	uint64_t ra;

	if (retry_after_s > RETRY_AFTER_MAX_S)
		retry_after_s = RETRY_AFTER_MAX_S;
	ra = (uint64_t)retry_after_s * 1000u;
	/*
	 * Retry-After is the earliest time, not the time: a server that answers a thousand clients
	 * "1" would get them back in the same second, and answer 429 again. The backoff spreads them.
	 */
	return ra + backoff_ms;
}

uint64_t retry_backoff_fail(struct retry_backoff *b, unsigned retry_after_s)
{
	if (b->failures < 64)
		b->failures++;
	return retry_wait_ms(retry_backoff_ms(retry_random(&b->rng), b->failures,
					      b->base_ms ? b->base_ms : RETRY_BACKOFF_BASE_MS,
					      b->cap_ms ? b->cap_ms : RETRY_BACKOFF_CAP_MS), retry_after_s);
}

void retry_backoff_reset(struct retry_backoff *b)
{
	b->failures = 0;
}
