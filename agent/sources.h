/* sources.h - the daemon's host event sources as one table {name, open, fd, drain, close}: netlink links, uevents, inotify, the --releases file. */
#pragma once

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>

#include "agent/flap.h"

enum sources_id {
	SOURCES_LINKS = 0,              /* rtnetlink link notifications (and flap damping's input) */
	SOURCES_UEVENTS,                /* kernel uevents */
	SOURCES_WATCH,                  /* inotify under --root */
	SOURCES_RELEASES,               /* --releases: its directory */
	SOURCES__COUNT,
};

/* Each source may be absent (NULL): it could not be opened, or failed since; the resync covers it. */
struct sources {
	struct links_watch *links;
	struct uevents *uevents;
	struct watch *watch;
	struct filewatch *relwatch;
	const char *root;               /* --root */
	const char *releases;           /* --releases (NULL: the built-in table) */
	bool releases_dirty;            /* it changed (or SIGHUP): re-read before the next observation */
	struct flap *flap;              /* not owned: the link notifications go to its history */
};

/* Open every source of @s (root, releases and flap set by the caller); one that cannot be opened is logged and left out. */
void sources_open(struct sources *s);

/* Close every source. */
void sources_close(struct sources *s);

/* The sources' entries of the poll set, by enum sources_id (fd -1: absent). */
void sources_pollfds(const struct sources *s, struct pollfd fds[SOURCES__COUNT]);

/*
 * Drain each source that @fds says is readable; each that brought events is logged at debug
 * (its name, the count, the first in words). A source that fails is closed (logged).
 * Return: whether any brought an event.
 */
bool sources_drain(struct sources *s, const struct pollfd fds[SOURCES__COUNT], uint64_t now);
