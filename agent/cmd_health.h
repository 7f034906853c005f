/* cmd_health.h - the health file: the daemon touches it, `tcpxo-agent health` judges its age (the pure verdict, for tests). */
#pragma once

#include <stdbool.h>
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

/*
 * cmd_health_touch() - the daemon, after each loop iteration: touch (or create) health file @f
 * (NULL: none). A failure is logged once (*@failed remembers it), and the recovery once.
 */
void cmd_health_touch(const char *f, bool *failed);
