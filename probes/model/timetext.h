/* timetext.h - pure: the one reader of the API's RFC 3339 times (startedAt, lastHeartbeatTime). */
#pragma once

/**
 * timetext_parse() - the seconds since the epoch of an RFC 3339 date-time as Kubernetes and
 * Go write it: "2026-12-02T14:31:17Z", with a fraction of 1 to 9 digits (dropped) and a numeric
 * offset "+01:00" as well; 'T' and 'Z' in either case; a leap second (":60") counts as :59.
 * Years 1970 to 9999; a day the month lacks, February 29 of a common year, a missing offset,
 * "+0100", spaces or trailing text are refused. At most 64 bytes are looked at.
 * Return: 0 with *@ret; -EINVAL (and *@ret untouched) for anything else, NULL included.
 */
int timetext_parse(const char *s, long long *ret);
