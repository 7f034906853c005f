/* timetext.h - pure: the one reader of the API's RFC 3339 times (startedAt, lastHeartbeatTime), the one reader and writer of a duration. */
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

/**
 * timetext_duration_parse() - a duration as a user types it on the command line: whole numbers,
 * each followed by a unit h, m or s, the units in that order and each at most once ("90s", "5m",
 * "1h", "1h30m", "2m30s"); or a bare whole number, which is seconds ("90"). "0" is 0. Signs,
 * spaces, fractions and other units are refused.
 * The sum is checked against @max_s before it is made, term by term (@v > (@max_s - sum) / unit,
 * never @v * unit > @max_s, which wraps), so no value can overflow into a small one.
 * Return: 0 with *@ret_s; -EINVAL when @s is not such a duration (NULL included); -ERANGE when
 * it is one of more than @max_s seconds. *@ret_s is written on success only.
 */
int timetext_duration_parse(const char *s, unsigned long long max_s, unsigned long long *ret_s);
