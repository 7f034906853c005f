/* cmd_health.h - the pure verdict of `tcpxo-agent health` (for tests). */
#pragma once

#include <stddef.h>
#include <time.h>

/**
 * cmd_health_verdict() - whether a health file last modified at @mtime is fresh at @now:
 * its age is at most @max_age seconds (a file up to @max_age seconds in the future, after a
 * clock step, counts as fresh). @msg says why in either case.
 * Return: 0 fresh; 1 stale.
 */
int cmd_health_verdict(const struct timespec *now, const struct timespec *mtime, unsigned max_age,
		       char *msg, size_t len);
