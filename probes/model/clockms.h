/* clockms.h - the one clock: monotonic milliseconds (every timer's @now, the HTTP client's and the daemon's) and the seed of jitter. */
#pragma once

#include <stdint.h>

/* CLOCK_MONOTONIC in milliseconds: the time of every schedule, backoff and queue of the agent. */
uint64_t clockms_now(void);

/* A seed for jitter: 8 bytes of /dev/urandom (it never blocks), else the clock and the pid. */
uint64_t clockms_random(void);
