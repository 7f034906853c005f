/* pcitopo_parse.h - pure: the text of sysfs PCI names and attributes, strictly (BDF names, hex IDs, NUMA node). */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "probes/model/observation.h"

/* A PCI function's address, parsed, and its canonical name. */
struct pcitopo_name {
	unsigned domain, bus, dev, func;
	char bdf[OBS_BDF_MAX];
};

/*
 * pcitopo_parse_bdf() - a canonical sysfs BDF name ("0000:06:00.0", lower-case hex, 4..6 domain
 * digits) into @ret. Return: 0, or -EINVAL.
 */
int pcitopo_parse_bdf(const char *s, struct pcitopo_name *ret);

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
