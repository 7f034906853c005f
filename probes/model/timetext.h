/* timetext.h - pure: the one reader of the API's RFC 3339 times (startedAt, lastHeartbeatTime), the one writer of a duration. */
#pragma once

#include <stddef.h>

/**
 * timetext_parse() - the seconds since the epoch of an RFC 3339 date-time as Kubernetes and
 * Go write it: "2026-12-02T14:31:17Z", with a fraction of 1 to 9 digits (dropped) and a numeric
 * offset "+01:00" as well; 'T' and 'Z' in either case; a leap second (":60") counts as :59.
 * Years 1970 to 9999; a day the month lacks, February 29 of a common year, a missing offset,
 * "+0100", spaces or trailing text are refused. At most 64 bytes are looked at.
 * Return: 0 with *@ret; -EINVAL (and *@ret untouched) for anything else, NULL included.
 */
int timetext_parse(const char *s, long long *ret);

/* How finely timetext_duration() writes two hours and more. */
enum timetext_precision {
	TIMETEXT_COARSE,        /* one unit: "45s", "12m", "5h", "3d" (days from 48 h) */
	TIMETEXT_FINE,          /* hours with their minutes: "45s", "12m", "2h05m", "50h00m" */
};

/**
 * timetext_duration() - a duration in seconds as short text: seconds below 2 minutes, minutes
 * below 2 hours, then by @prec; "-" when unknown (< 0). Cut to @len, always terminated.
 */
void timetext_duration(long long s, enum timetext_precision prec, char *buf, size_t len);
