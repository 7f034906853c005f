/* uevents.c - kernel uevents of the pci, net and misc subsystems (the only file that includes libudev). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>

#include <libudev.h>

#include "probes/host/uevents.h"

struct uevents {
	struct udev *udev;
	struct udev_monitor *mon;
	int fd;
};

static const char *const uevents_subsystems[] = { "pci", "net", "misc" };

void uevents_free(struct uevents *u)
{
	if (!u)
		return;
	udev_monitor_unref(u->mon);
	udev_unref(u->udev);
	free(u);
}

int uevents_open(struct uevents **ret)
{
	struct uevents *u = calloc(1, sizeof(*u));
	int r, fl;

	if (!u)
		return -ENOMEM;
	errno = 0;
	u->udev = udev_new();
	if (!u->udev) {
		r = errno ? -errno : -ENOMEM;
		goto fail;
	}
	errno = 0;
	u->mon = udev_monitor_new_from_netlink(u->udev, "kernel");
	if (!u->mon) {
		r = errno ? -errno : -EPROTONOSUPPORT;
		goto fail;
	}
	for (size_t i = 0; i < sizeof(uevents_subsystems) / sizeof(uevents_subsystems[0]); i++) {
		r = udev_monitor_filter_add_match_subsystem_devtype(u->mon, uevents_subsystems[i], NULL);
		if (r < 0)
			goto fail;
	}
	r = udev_monitor_enable_receiving(u->mon);
	if (r < 0)
		goto fail;
	u->fd = udev_monitor_get_fd(u->mon);
	if (u->fd < 0) {
		r = -EBADF;
		goto fail;
	}
	fl = fcntl(u->fd, F_GETFL);
	if (fl < 0 || fcntl(u->fd, F_SETFL, fl | O_NONBLOCK) < 0) {
		r = -errno;
		goto fail;
	}
	*ret = u;
	return 0;
fail:
	uevents_free(u);
	return r;
}

int uevents_fd(const struct uevents *u)
{
	return u->fd;
}

int uevents_drain(struct uevents *u, char *what, size_t whatlen)
{
	int n = 0;

	if (what && whatlen)
		what[0] = '\0';
	/* Bounded: a storm is drained in slices; poll() reports the rest on the next turn. */
	while (n < 1024) {
		struct udev_device *d = udev_monitor_receive_device(u->mon);
		const char *action, *subsys, *sysname;

		if (!d)
			break;
		if (n++ == 0 && what && whatlen) {
			action = udev_device_get_action(d);
			subsys = udev_device_get_subsystem(d);
			sysname = udev_device_get_sysname(d);
			snprintf(what, whatlen, "%.16s %.16s %.64s", action ? action : "?", subsys ? subsys : "?",
				 sysname ? sysname : "?");
		}
		udev_device_unref(d);
	}
	return n;
}
