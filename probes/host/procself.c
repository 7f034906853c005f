/* procself.c - the agent's own process figures (process_*), read from its /proc at scrape time. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probes/host/procself.h"
#include "probes/model/fdread.h"

#define PROCSELF_STAT_MAX (4u << 20)    /* /proc/stat: its intr line grows with the IRQs of a large machine */

/* Up to @max bytes of @proc/@name into @buf. Return: the length (a read stopped at @max is cut); -errno. */
static ssize_t procself_file(const char *proc, const char *name, char *buf, size_t max)
{
	char path[4096];
	size_t n = 0;
	int fd, r;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", proc, name) >= sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	r = fdread_fill(fd, buf, max, 0, &n);
	close(fd);
	return r < 0 ? r : (ssize_t)n;
}

static void procself_btime(const char *proc, unsigned long long *btime)
{
	char *buf;
	ssize_t n;

	if (*btime)
		return;
	buf = malloc(PROCSELF_STAT_MAX);
	if (!buf)
		return;
	n = procself_file(proc, "stat", buf, PROCSELF_STAT_MAX);
	if (n > 0 && procstat_parse_btime(buf, (size_t)n, btime) < 0)
		*btime = 0;
	free(buf);
}

static void procself_fds(const char *proc, struct procstat *ret)
{
	char path[4096];
	struct dirent *e;
	unsigned long long n = 0;
	DIR *d;

	if ((size_t)snprintf(path, sizeof(path), "%s/self/fd", proc) >= sizeof(path))
		return;
	d = opendir(path);
	if (!d)
		return;
	while ((e = readdir(d))) {
		char *end;
		long fd;

		if (e->d_name[0] == '.')
			continue;
		fd = strtol(e->d_name, &end, 10);
		if (*end == '\0' && fd == dirfd(d))
			continue;       /* ours, reading the directory */
		n++;
	}
	closedir(d);
	ret->open_fds = n;
	ret->have |= PROCSTAT_OPEN_FDS;
}

void procself_read(const char *proc, unsigned long long *btime, struct procstat *ret)
{
	char buf[PROCSTAT_STAT_MAX + 1], err[128];
	long hz = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE);
	ssize_t n;

	memset(ret, 0, sizeof(*ret));
	procself_btime(proc, btime);
	/* One byte more than a stat line may hold: a longer file is refused, never read cut. */
	n = procself_file(proc, "self/stat", buf, sizeof(buf));
	if (n > 0)
		procstat_parse_stat(buf, (size_t)n, hz, page, *btime, ret, err, sizeof(err));
	n = procself_file(proc, "self/limits", buf, sizeof(buf) - 1);
	if (n > 0 && procstat_parse_limits(buf, (size_t)n, &ret->max_fds) == 0)
		ret->have |= PROCSTAT_MAX_FDS;
	procself_fds(proc, ret);
}
