/* hostprobe.h - the host wiring probes: aperture devices, device nodes, NVIDIA path, daemons. */
#pragma once

#include "probes/model/observation.h"

/**
 * hostprobe_observe() - read the host wiring under @rootfd into @ret.
 * @rootfd: the directory fd of --root, opened once by the caller, or its -errno (each part failed).
 * @root: its name, for messages.
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
int hostprobe_observe(int rootfd, const char *root, const struct obs_pci *pci, struct obs_host *ret);
