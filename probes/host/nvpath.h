/* nvpath.h - the NVIDIA host path <root>/home/kubernetes/bin/nvidia and the plugin files in it. */
#pragma once

#include "probes/model/obs_host.h"

/*
 * nvpath_scan() - list the NVIDIA host path under @rootfd into @ret and set its status.
 * Return: 0 or -ENOMEM (then the part is left empty and freed).
 */
int nvpath_scan(int rootfd, struct obs_nvpath *ret);
