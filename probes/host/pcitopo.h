/* pcitopo.h - the PCI functions under <root>/sys/bus/pci, read from sysfs inside the root. */
#pragma once

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

void pcitopo_free(struct obs_pci *p);

/* Classify a function from its IDs and class (pure). */
enum pci_kind pcitopo_classify(uint16_t vendor, uint16_t device, uint32_t class_code, int header_type);

/**
 * pcitopo_bdf_canonical() - whether @s is a canonical sysfs BDF name ("0000:06:00.0": lower-case
 * hex, 4..6 domain digits), the test every devices/ entry passes (pure; exposed for fuzzing).
 *
 * Return: 0, or -EINVAL.
 */
int pcitopo_bdf_canonical(const char *s);

/**
 * pcitopo_parse_numa() - the text of a numa_node file: a decimal -1..4095, optionally followed
 * by one newline (pure; exposed for fuzzing).
 *
 * Return: the NUMA node, or -1 for anything else (-1 is also the kernel's "none").
 */
int pcitopo_parse_numa(const char *text);

/**
 * pcitopo_parse_hex() - a sysfs hex attribute ("0x1ae0\n", "0x030200\n"): an optional "0x",
 * 1..@digits hex digits (@digits at most 8), an optional newline, nothing else (pure; exposed
 * for fuzzing). Stricter than strtol() (as libpci reads them), which keeps the low bits of a longer number.
 *
 * Return: 0 (@ret written), or -EINVAL.
 */
int pcitopo_parse_hex(const char *buf, size_t len, unsigned digits, uint32_t *ret);
