/* hostprobe.h - the host wiring probes: aperture devices, device nodes, NVIDIA path, daemons. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "probes/model/observation.h"

/**
 * hostprobe_observe() - read the host wiring under @root into @ret.
 * @root: host root prefix; NULL or "" means "/".
 * @pci: the PCI functions already observed (GPU count for /dev/nvidiaN); may be NULL.
 * @ret: written on success; free with obs_host_free().
 *
 * Reads <root>/dev/aperture_devices/, <root>/dev/{nvidia*,nvidiactl,nvidia-uvm,
 * dmabuf_import_helper} (stat only, never opened), <root>/home/kubernetes/bin/nvidia/{bin,lib64}
 * and <root>/proc/<pid>/{comm,cmdline}. Each part has its own status: one that cannot be
 * read is marked FAILED with a message and the others are still filled. Something absent
 * (no aperture folder, no device node) is an observation, not a failure.
 *
 * Return: 0, or -ENOMEM (then nothing is written to @ret).
 */
int hostprobe_observe(const char *root, const struct obs_pci *pci, struct obs_host *ret);

/*
 * The sub-probes, each over a directory fd of the root (O_PATH is enough). Each fills its
 * part of the observation, sets its status, and returns 0 or -ENOMEM (then the part is
 * left empty and freed).
 */
int aperture_scan(int rootfd, struct obs_aperture *ret);
int devnodes_scan(int rootfd, size_t n_gpus, struct obs_devnodes *ret);
int nvpath_scan(int rootfd, struct obs_nvpath *ret);
int procscan_scan(int rootfd, struct obs_procs *ret);

/**
 * hostprobe_read_at() - read at most @size bytes of a small file at @dirfd/@name.
 * @ret_len: bytes read, written on success.
 * @ret_truncated: set on success to whether the file holds more than @size bytes.
 *
 * Opens without following a final symlink and without blocking (a fifo gives -EINVAL,
 * not a hang). Proc and sysfs files have no meaningful size: reads until EOF or @size.
 *
 * Return: 0; -ENOENT (absent), -ELOOP (a symlink), -EINVAL (not a regular file), or
 * another -errno from open/read.
 */
int hostprobe_read_at(int dirfd, const char *name, char *buf, size_t size, size_t *ret_len,
		      bool *ret_truncated);

/* The type of @name in @dirfd: stat following links, or lstat when @follow is false. */
enum obs_file_type hostprobe_type_at(int dirfd, const char *name, bool follow, int *ret_err);

/**
 * aperture_copy_mapped() - memcpy from a file mapping, turning a SIGBUS (the file was
 * truncated after it was mapped) into -EFAULT instead of a crash. Single-threaded use.
 * Return: 0, -EFAULT, or -errno from sigaction().
 */
int aperture_copy_mapped(void *dst, const void *src, size_t len);
