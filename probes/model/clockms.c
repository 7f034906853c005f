/* clockms.c - the one clock: monotonic milliseconds and the seed of jitter (POSIX only: kubectl-fabric builds it too). */
#include <fcntl.h>
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
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, &x, sizeof(x)) : -1;

	if (fd >= 0)
		close(fd);
	if (n == (ssize_t)sizeof(x))
		return x;
	/* No /dev/urandom (a bare chroot): the clock and pid still spread nodes apart. */
	return clockms_now() * 2654435761u ^ (uint64_t)getpid() << 32;
}
