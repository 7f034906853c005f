/* uevents.h - kernel uevents of the pci, net and misc subsystems (the only face of libudev). */
#pragma once

#include <stddef.h>

struct uevents;                 /* opaque */

/**
 * uevents_open() - a libudev monitor of kernel uevents (the "kernel" source: no udev daemon
 * needed, as in a container) filtered to the pci, net and misc subsystems, non-blocking.
 * @ret: written on success; free with uevents_free().
 * Return: 0; -ENOMEM; -errno from the netlink socket (-EPERM, -EPROTONOSUPPORT where uevents
 * cannot be received: the caller relies on its resync instead).
 */
int uevents_open(struct uevents **ret);

void uevents_free(struct uevents *u);

int uevents_fd(const struct uevents *u);

/**
 * uevents_drain() - receive every pending uevent.
 * @what: when not NULL, "ACTION SUBSYSTEM SYSNAME" of the first one (e.g. "remove pci
 * 0000:06:00.0"), for the log.
 * Return: the number of uevents received (0 when none was pending).
 */
int uevents_drain(struct uevents *u, char *what, size_t whatlen);
