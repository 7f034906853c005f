/* devnodes.h - the device nodes the runtime injects: /dev/nvidia*, nvidia-uvm, dmabuf_import_helper, infiniband/uverbsN, rdma_cm. */
#pragma once

#include <stddef.h>

#include "probes/model/obs_host.h"

/*
 * devnodes_scan() - stat (never open) the device nodes under @rootfd for @n_gpus GPUs and
 * @n_rdma RDMA NICs (0: no /dev/infiniband names), fill @ret and set its status.
 * Return: 0 or -ENOMEM (then the part is left empty and freed).
 */
int devnodes_scan(int rootfd, size_t n_gpus, size_t n_rdma, struct obs_devnodes *ret);
