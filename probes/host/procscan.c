/* procscan.c - TCPXO daemon processes in <root>/proc: comm first, cmdline only for candidates. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probes/host/cmdline.h"
#include "probes/host/hostfs.h"
#include "probes/host/procscan.h"

int procscan_pid(const char *name)
{
	long v = 0;

	if (!*name)
		return -1;
	for (const char *p = name; *p; p++) {
		if (*p < '0' || *p > '9' || p - name >= 9)
			return -1;
		v = v * 10 + (*p - '0');
	}
	return v > 0 ? (int)v : -1;
}

static int procscan_cmp(const void *a, const void *b)
{
	int x = ((const struct obs_process *)a)->pid, y = ((const struct obs_process *)b)->pid;

	return (x > y) - (x < y);
}

/* Look at one /proc/<pid>: 1 when it is a daemon (appended to @p), 0 when not, -ENOMEM. */
static int procscan_one(int rootfd, const char *name, int pid, struct obs_procs *p, char *buf)
{
	struct obs_process proc = { .pid = pid };
	char comm[64], path[32];
	size_t len;
	bool trunc = false;
	int r;

	/* A pid that exited since readdir reads as absent: not a daemon. */
	snprintf(path, sizeof(path), "proc/%.9s/comm", name);
	if (hostfs_read(rootfd, path, comm, sizeof(comm) - 1, &len, &trunc) < 0)
		return 0;
	comm[len] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
	if (!cmdline_comm_candidate(comm))
		return 0;
	snprintf(proc.comm, sizeof(proc.comm), "%.15s", comm);

	snprintf(path, sizeof(path), "proc/%.9s/cmdline", name);
	r = hostfs_read(rootfd, path, buf, OBS_CMDLINE_MAX, &len, &proc.cmdline_truncated);
	if (r < 0) {
		proc.cmdline_err = r;
		len = 0;
	}
	if (cmdline_split(buf, len, OBS_ARGV_MAX, &proc.argv, &proc.argc, &proc.cmdline_truncated) < 0)
		return -ENOMEM;
	if (cmdline_daemon_kind(proc.comm, (const char *const *)proc.argv, proc.argc) ==
	    CMDLINE_NOT_DAEMON) {
		strbuf_strv_free(proc.argv, proc.argc);
		return 0;
	}
	if (p->n == OBS_PROCS_MAX) {
		p->n_dropped++;
		strbuf_strv_free(proc.argv, proc.argc);
		return 1;
	}
	p->v[p->n++] = proc;
	return 1;
}

int procscan_scan(int rootfd, struct obs_procs *ret)
{
	struct obs_procs p = {0};
	struct dirent *de;
	char *buf = NULL;
	DIR *d;
	int r;

	r = hostfs_opendir(rootfd, "proc", &d);
	if (r < 0) {
		probe_status_fail(&p.status, r, "/proc: %s", strerror(-r));
		*ret = p;
		return 0;
	}
	p.v = calloc(OBS_PROCS_MAX, sizeof(*p.v));
	buf = malloc(OBS_CMDLINE_MAX);
	if (!p.v || !buf)
		goto oom;
	while ((de = readdir(d))) {
		int pid = procscan_pid(de->d_name);

		if (pid < 0)
			continue;
		p.n_scanned++;
		if (procscan_one(rootfd, de->d_name, pid, &p, buf) < 0)
			goto oom;
	}
	closedir(d);
	free(buf);
	qsort(p.v, p.n, sizeof(*p.v), procscan_cmp);
	p.status.state = PROBE_OK;
	*ret = p;
	return 0;
oom:
	closedir(d);
	free(buf);
	obs_host_procs_free(&p);
	return -ENOMEM;
}
