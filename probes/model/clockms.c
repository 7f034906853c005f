/* clockms.c - the one clock: monotonic milliseconds and the seed of jitter. */
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "probes/model/clockms.h"

uint64_t clockms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

uint64_t clockms_random(void)
{
	uint64_t x;

	if (getrandom(&x, sizeof(x), GRND_NONBLOCK) == (ssize_t)sizeof(x))
		return x;
	/* No entropy yet (early boot): the clock and pid still spread nodes apart. */
	return clockms_now() * 2654435761u ^ (uint64_t)getpid() << 32;
}
