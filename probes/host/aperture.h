/* aperture.h - the LLCM aperture devices under <root>/dev/aperture_devices. */
#pragma once

#include <stddef.h>

#include "probes/model/obs_host.h"

/*
 * aperture_scan() - fill @ret from the directory fd @rootfd of the host root (O_PATH is
 * enough) and set its status. Return: 0 or -ENOMEM (then the part is left empty and freed).
 */
int aperture_scan(int rootfd, struct obs_aperture *ret);

/**
 * aperture_copy_mapped() - memcpy from a file mapping, turning a SIGBUS (the file was
 * truncated after it was mapped) into -EFAULT instead of a crash. Single-threaded use.
 * Return: 0, -EFAULT, or -errno from sigaction().
 */
int aperture_copy_mapped(void *dst, const void *src, size_t len);
