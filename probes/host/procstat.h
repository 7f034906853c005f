/* procstat.h - pure: a process's figures as Prometheus' client libraries export them (process_*), from /proc texts. */
#pragma once

#include <stddef.h>

/* Which figures of struct procstat were read: one bit each (a figure not read has no series). */
enum {
	PROCSTAT_CPU = 1u << 0,
	PROCSTAT_START = 1u << 1,
	PROCSTAT_RESIDENT = 1u << 2,
	PROCSTAT_VIRTUAL = 1u << 3,
	PROCSTAT_OPEN_FDS = 1u << 4,
	PROCSTAT_MAX_FDS = 1u << 5,
};

struct procstat {
	unsigned have;                  /* PROCSTAT_* bits */
	double cpu_seconds;             /* user + system CPU time of the process (process_cpu_seconds_total) */
	double start_time;              /* Unix time it started (process_start_time_seconds) */
	unsigned long long resident_bytes;      /* process_resident_memory_bytes */
	unsigned long long virtual_bytes;       /* process_virtual_memory_bytes */
	unsigned long long open_fds;    /* process_open_fds */
	unsigned long long max_fds;     /* process_max_fds: the soft limit of open files */
};

/* procstat_number() - one unsigned decimal of @s..@lim (no sign, no space before it, fits 64 bits); *@end past it. Return: 0; -EBADMSG. */
int procstat_number(const char *s, const char *lim, unsigned long long *ret, const char **end);

#define PROCSTAT_STAT_MAX 4096          /* a /proc/<pid>/stat line is well under 1 KiB; comm is 16 bytes */

/**
 * procstat_parse_stat() - the text of /proc/<pid>/stat (proc(5)): the comm field may hold spaces
 * and ')' (the fields follow the last ')'); utime and stime (fields 14, 15) in @hz ticks, starttime
 * (22) in ticks after boot, vsize (23) in bytes, rss (24) in pages of @page bytes.
 * Sets cpu_seconds, resident_bytes, virtual_bytes, and start_time when @btime (the boot time,
 * procstat_parse_btime()) is not 0, with their bits in ps->have; nothing on failure.
 * Return: 0; -EBADMSG (@err says why) for text that is not such a line, or @hz or @page not positive.
 */
int procstat_parse_stat(const char *text, size_t len, long hz, long page, unsigned long long btime,
			struct procstat *ps, char *err, size_t errlen);

/**
 * procstat_parse_btime() - the "btime N" line of /proc/stat: the boot time, Unix seconds.
 * Return: 0 with *@ret; -ENOENT no such line (a cut read included); -EBADMSG a malformed one.
 */
int procstat_parse_btime(const char *text, size_t len, unsigned long long *ret);

/**
 * procstat_parse_limits() - the soft limit of "Max open files" in /proc/<pid>/limits.
 * Return: 0 with *@ret; -ENOENT no such line, or "unlimited" (no number to export); -EBADMSG a
 * malformed one.
 */
int procstat_parse_limits(const char *text, size_t len, unsigned long long *ret);
