/* watch.h - inotify on the host directories whose entries the observation reads (dev, aperture, lib64). */
#pragma once

#include <stddef.h>

#define WATCH_TARGETS_MAX 8

struct watch;                   /* opaque */
struct inotify_event;

/**
 * inotify_each() - read every event pending on the non-blocking inotify descriptor @fd and hand
 * each whole one to @cb with @ctx, until the queue is empty (EAGAIN; EINTR retried).
 * Return: 0; -errno for a read error other than EAGAIN (the events before it handed on).
 */
int inotify_each(int fd, void (*cb)(const struct inotify_event *ev, void *ctx), void *ctx);

/**
 * watch_open() - watch @root's (@rootfd: its directory fd, opened by the caller, or -errno; the
 * watch keeps its own copy) dev/aperture_devices, dev and home/kubernetes/bin/nvidia/lib64
 * for entries created, deleted, moved or changed. A directory that does not exist (yet) is
 * replaced by its nearest existing ancestor, so that its appearance is seen and the watch
 * moves down to it; one that disappears moves the watch back up.
 * @ret: written on success; free with watch_free().
 * Return: 0; -EINVAL for an over-long @root; -ENOMEM; -errno of inotify_init1() (-EMFILE when
 * the user's inotify instances are used up).
 */
int watch_open(int rootfd, const char *root, struct watch **ret);

void watch_free(struct watch *w);

/* The file descriptor to poll for POLLIN. */
int watch_fd(const struct watch *w);

/**
 * watch_drain() - read every pending event, then move watches to follow directories that
 * appeared or disappeared.
 * @what: when not NULL, the name of the first changed entry relative to @root
 * ("dev/aperture_devices/0000:00:10.0"), for the log.
 * Return: the number of events that may change the observation (an overflowed queue counts
 * one); 0 when none; -errno for a read error other than EAGAIN.
 */
int watch_drain(struct watch *w, char *what, size_t whatlen);

/* The directory now watched for target @i (for tests and debug logs), or NULL when none. */
const char *watch_watched(const struct watch *w, size_t i);
