/* pcitopo.h - the PCI functions under <root>/sys/bus/pci, read from sysfs inside the root. */
#pragma once

#include "probes/host/pcitopo_parse.h"
#include "probes/model/observation.h"

/**
 * pcitopo_scan() - fill @ret with every PCI function under @rootfd's sys/bus/pci/devices (the
 * directory fd of --root, opened once by the caller, or its -errno; @root names it in messages):
 * BDF, vendor, device, class, kind, NUMA node, bound driver, bridge bus range (config
 * bytes 0x19/0x1a of a type-1 header) and the interface in the function's net/ folder.
 * Sorted by BDF. Every file is read inside @root (hostfs), never followed out of it.
 *
 * Return: 0, or -errno: -ENOENT/-ENOTDIR/-ELOOP/-EACCES (no readable devices/ under @root),
 * -E2BIG (more than 8,192 functions), -EINVAL (an entry that is not a BDF), -EIO (some
 * functions unreadable). @ret is always written and its status says what failed and where;
 * on -EINVAL/-EIO the readable functions stay in @ret->v but the status is FAILED, so the
 * PCI part counts as not observed.
 */
int pcitopo_scan(int rootfd, const char *root, struct obs_pci *ret);

/* Classify a function from its IDs and class (pure). */
enum pci_kind pcitopo_classify(uint16_t vendor, uint16_t device, uint32_t class_code, int header_type);
