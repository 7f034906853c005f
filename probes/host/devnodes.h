/* devnodes.h - the device nodes the runtime injects: /dev/nvidia*, nvidia-uvm, dmabuf_import_helper. */
#pragma once

#include <stddef.h>

#include "probes/model/obs_host.h"

/*
 * devnodes_scan() - stat (never open) the device nodes under @rootfd for @n_gpus GPUs, fill
 * @ret and set its status. Return: 0 or -ENOMEM (then the part is left empty and freed).
 */
int devnodes_scan(int rootfd, size_t n_gpus, struct obs_devnodes *ret);
