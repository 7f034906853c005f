/* devnodes.c - the character devices a TCPXO workload's daemon container gets, by stat only. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "probes/host/devnodes.h"
#include "probes/host/hostfs.h"

static const char *const devnodes_fixed[] = { "nvidiactl", "nvidia-uvm", "dmabuf_import_helper" };

#define DEVNODES_FIXED (sizeof(devnodes_fixed) / sizeof(devnodes_fixed[0]))

static void devnodes_stat(int devfd, struct obs_devnode *n)
{
	struct stat st;

	/* Never open: opening /dev/nvidia* has side effects; a link is reported, not followed. */
	if (devfd < 0) {
		n->type = OBS_FILE_ABSENT;
		return;
	}
	n->type = hostfs_type_at(devfd, n->name, false, &n->err);
	if ((n->type == OBS_FILE_CHAR || n->type == OBS_FILE_BLOCK) &&
	    fstatat(devfd, n->name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		n->major = major(st.st_rdev);
		n->minor = minor(st.st_rdev);
	}
}

int devnodes_scan(int rootfd, size_t n_gpus, struct obs_devnodes *ret)
{
	struct obs_devnodes d = {0};
	int devfd;

	if (n_gpus > OBS_DEVNODES_MAX - DEVNODES_FIXED)
		n_gpus = OBS_DEVNODES_MAX - DEVNODES_FIXED;
	d.v = calloc(n_gpus + DEVNODES_FIXED, sizeof(*d.v));
	if (!d.v)
		return -ENOMEM;
	d.n_gpus = n_gpus;
	for (size_t i = 0; i < n_gpus; i++)
		snprintf(d.v[d.n++].name, OBS_HOST_DEVNAME_MAX, "nvidia%zu", i);
	for (size_t i = 0; i < DEVNODES_FIXED; i++)
		snprintf(d.v[d.n++].name, OBS_HOST_DEVNAME_MAX, "%s", devnodes_fixed[i]);

	devfd = openat(rootfd, "dev", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (devfd < 0 && errno != ENOENT) {
		probe_status_fail(&d.status, -errno, "/dev: %s", strerror(errno));
		*ret = d;
		return 0;
	}
	for (size_t i = 0; i < d.n; i++)
		devnodes_stat(devfd, &d.v[i]);
	if (devfd >= 0)
		close(devfd);
	d.status.state = PROBE_OK;
	*ret = d;
	return 0;
}
