/* devnodes.c - the character devices a fabric workload gets (NVIDIA, TCPXO's helper, RDMA verbs), by stat only. */
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
#define DEVNODES_GPUS_MAX (OBS_DEVNODES_MAX - DEVNODES_FIXED - OBS_RDMA_MAX - 1)

static void devnodes_stat(int rootfd, struct obs_devnode *n)
{
	char path[OBS_HOST_DEVNAME_MAX + 8];
	struct stat st;
	int r;

	/*
	 * Never open: opening /dev/nvidia* has side effects (hostfs looks through an O_PATH fd,
	 * which does not reach the driver); a link is reported, not followed.
	 */
	snprintf(path, sizeof(path), "dev/%s", n->name);
	r = hostfs_stat(rootfd, path, false, &st);
	n->err = r;
	n->type = r < 0 ? hostfs_type_of_error(r) : hostfs_type_of_mode(st.st_mode);
	if (n->type == OBS_FILE_CHAR || n->type == OBS_FILE_BLOCK) {
		n->major = major(st.st_rdev);
		n->minor = minor(st.st_rdev);
	}
}

int devnodes_scan(int rootfd, size_t n_gpus, size_t n_rdma, struct obs_devnodes *ret)
{
	struct obs_devnodes d = {0};
	int devfd;

	if (n_gpus > DEVNODES_GPUS_MAX)
		n_gpus = DEVNODES_GPUS_MAX;
	if (n_rdma > OBS_RDMA_MAX)
		n_rdma = OBS_RDMA_MAX;
	d.v = calloc(n_gpus + DEVNODES_FIXED + (n_rdma ? n_rdma + 1 : 0), sizeof(*d.v));
	if (!d.v)
		return -ENOMEM;
	d.n_gpus = n_gpus;
	d.n_uverbs = n_rdma;
	for (size_t i = 0; i < n_gpus; i++)
		snprintf(d.v[d.n++].name, OBS_HOST_DEVNAME_MAX, "nvidia%zu", i);
	for (size_t i = 0; i < DEVNODES_FIXED; i++)
		snprintf(d.v[d.n++].name, OBS_HOST_DEVNAME_MAX, "%s", devnodes_fixed[i]);
	/* The verbs and connection-manager nodes an RDMA workload gets (ib_uverbs, rdma_ucm). */
	for (size_t i = 0; i < n_rdma; i++)
		snprintf(d.v[d.n++].name, OBS_HOST_DEVNAME_MAX, "infiniband/uverbs%zu", i);
	if (n_rdma)
		snprintf(d.v[d.n++].name, OBS_HOST_DEVNAME_MAX, "infiniband/rdma_cm");

	devfd = hostfs_open(rootfd, "dev", O_PATH | O_DIRECTORY);
	if (devfd < 0 && devfd != -ENOENT) {
		probe_status_fail(&d.status, devfd, "/dev: %s", strerror(-devfd));
		*ret = d;
		return 0;
	}
	if (devfd >= 0)
		close(devfd);
	for (size_t i = 0; i < d.n; i++)
		devnodes_stat(rootfd, &d.v[i]);
	d.status.state = PROBE_OK;
	*ret = d;
	return 0;
}
