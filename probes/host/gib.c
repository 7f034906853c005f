/*
 * gib.c - the gIB install of <root>/home/kubernetes/bin/gib. nccl-rdma-installer copies the
 * image's /var/lib/gib to gib/ and its lib64 to nvidia/lib64 (container-engine-accelerators
 * gpudirect-rdma/nccl-rdma-installer.yaml); gib/lib64 is therefore the set nvidia/lib64 must hold.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "probes/host/gib.h"
#include "probes/host/hostfs.h"

#define GIB_DIR "home/kubernetes/bin/gib"
#define GIB_NVIDIA_LIB64 "home/kubernetes/bin/nvidia/lib64"

static void gib_scan_lib64(int rootfd, struct obs_gib *g)
{
	char path[PATH_MAX];
	int err, n;

	n = hostfs_list_names(rootfd, GIB_DIR "/lib64", g->libs, sizeof(g->libs[0]), OBS_GIB_LIBS_MAX,
			      OBS_GIB_NAME_MAX, &g->n_dropped);
	if (n < 0) {
		probe_status_fail(&g->status, n, "/%s/lib64: %s", GIB_DIR, strerror(-n));
		return;
	}
	g->n_libs = (size_t)n;
	for (size_t i = 0; i < g->n_libs; i++) {
		struct obs_gib_lib *l = &g->libs[i];

		snprintf(path, sizeof(path), GIB_DIR "/lib64/%s", l->name);
		l->type = hostfs_type(rootfd, path, true, &err);
		snprintf(path, sizeof(path), GIB_NVIDIA_LIB64 "/%s", l->name);
		l->in_nvidia = hostfs_type(rootfd, path, true, &err);
	}
}

int gib_scan(int rootfd, struct obs_gib *ret)
{
	struct obs_gib *g = ret;
	int err;

	*g = (struct obs_gib){ 0 };
	g->status.state = PROBE_OK;
	g->dir = hostfs_type(rootfd, GIB_DIR, true, &err);
	if (g->dir == OBS_FILE_ERROR) {
		probe_status_fail(&g->status, err, "/%s: %s", GIB_DIR, strerror(-err));
		return 0;
	}
	if (g->dir != OBS_FILE_DIR)
		return 0;
	g->env_script = hostfs_type(rootfd, GIB_DIR "/scripts/set_nccl_env.sh", true, &err);
	g->lib64_dir = hostfs_type(rootfd, GIB_DIR "/lib64", true, &err);
	if (g->lib64_dir == OBS_FILE_DIR)
		gib_scan_lib64(rootfd, g);
	return 0;
}
