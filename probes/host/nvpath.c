/* nvpath.c - the NVIDIA driver and TCPXO plugin files in <root>/home/kubernetes/bin/nvidia. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probes/host/hostfiles.h"
#include "probes/host/hostfs.h"
#include "probes/host/nvpath.h"

#define NVPATH_DIR "home/kubernetes/bin/nvidia"

static int nvpath_cmp(const void *a, const void *b)
{
	return strcmp(((const struct obs_host_file *)a)->name, ((const struct obs_host_file *)b)->name);
}

static int nvpath_scan_lib64(int rootfd, struct obs_nvpath *n)
{
	struct dirent *de;
	char path[PATH_MAX];
	DIR *d;
	int err;

	n->lib64_dir = hostfs_type(rootfd, NVPATH_DIR "/lib64", true, &err);
	if (n->lib64_dir == OBS_FILE_ERROR) {
		/* Unreadable is not absent: whether the plugin is installed is then unknown. */
		probe_status_fail(&n->status, err, "/%s/lib64: %s", NVPATH_DIR, strerror(-err));
		return 0;
	}
	if (n->lib64_dir != OBS_FILE_DIR)
		return 0;
	err = hostfs_opendir(rootfd, NVPATH_DIR "/lib64", &d);
	if (err < 0) {
		probe_status_fail(&n->status, err, "/%s/lib64: %s", NVPATH_DIR, strerror(-err));
		return 0;
	}
	n->lib64 = calloc(OBS_HOST_FILES_MAX, sizeof(*n->lib64));
	if (!n->lib64)
		goto oom;
	while ((de = readdir(d))) {
		struct obs_host_file *f;

		if (!hostfiles_relevant(de->d_name))
			continue;
		if (n->n_lib64 == OBS_HOST_FILES_MAX) {
			n->n_dropped++;
			continue;
		}
		f = &n->lib64[n->n_lib64];
		f->name = strdup(de->d_name);
		if (!f->name)
			goto oom;
		if (hostfs_join(path, sizeof(path), NVPATH_DIR "/lib64", f->name) < 0)
			f->type = OBS_FILE_ERROR;
		else
			f->type = hostfs_type(rootfd, path, true, &err);
		n->n_lib64++;
	}
	closedir(d);
	qsort(n->lib64, n->n_lib64, sizeof(*n->lib64), nvpath_cmp);
	return 0;
oom:
	closedir(d);
	return -ENOMEM;
}

int nvpath_scan(int rootfd, struct obs_nvpath *ret)
{
	struct obs_nvpath n = {0};
	int err;

	/* Links in the path (nvidia -> /opt/nvidia) are followed inside the root, as on the host. */
	n.status.state = PROBE_OK;
	n.dir = hostfs_type(rootfd, NVPATH_DIR, true, &err);
	if (n.dir == OBS_FILE_ERROR)
		probe_status_fail(&n.status, err, "/%s: %s", NVPATH_DIR, strerror(-err));
	if (n.dir != OBS_FILE_DIR) {
		*ret = n;
		return 0;
	}
	n.smi = hostfs_type(rootfd, NVPATH_DIR "/bin/nvidia-smi", true, &err);
	if (nvpath_scan_lib64(rootfd, &n) < 0) {
		obs_host_nvpath_free(&n);
		return -ENOMEM;
	}
	*ret = n;
	return 0;
}
