/* gib.h - the gIB install: <root>/home/kubernetes/bin/gib and its lib64 copied into nvidia/lib64. */
#pragma once

#include "probes/model/obs_host.h"

/*
 * gib_scan() - what nccl-rdma-installer left under @rootfd: the gib folder, its
 * scripts/set_nccl_env.sh, the names in its lib64 and whether each is also in
 * home/kubernetes/bin/nvidia/lib64 (the installer copies lib64 to both). Fills @ret and its
 * status. Return: 0.
 */
int gib_scan(int rootfd, struct obs_gib *ret);
