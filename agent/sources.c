/* sources.c - the daemon's host event sources as one table {name, open, fd, drain, close}, like node-problem-detector's monitors. */
#include <stdio.h>
#include <string.h>

#include "agent/filewatch.h"
#include "agent/flapin.h"
#include "agent/log.h"
#include "agent/observe.h"
#include "agent/sources.h"
#include "probes/host/links.h"
#include "probes/host/uevents.h"
#include "probes/host/watch.h"

#define SOURCES_WHAT_MAX 128

static void sources_links_open(struct sources *s)
{
	int r = links_watch_open(&s->links);

	if (r < 0)
		log_emit(LOG_LEVEL_WARN, "no link events: relying on the resync", "error", strerror(-r), NULL);
}

static int sources_links_fd(const struct sources *s)
{
	return s->links ? links_watch_fd(s->links) : -1;
}

static int sources_links_drain(struct sources *s, uint64_t now, char *what, size_t len)
{
	int n = links_watch_drain(s->links, what, len);

	flapin_events(s->flap, s->links, now);
	return n;
}

static void sources_links_close(struct sources *s)
{
	links_watch_free(s->links);
	s->links = NULL;
}

static void sources_uevents_open(struct sources *s)
{
	int r = uevents_open(&s->uevents);

	if (r < 0)
		log_emit(LOG_LEVEL_WARN, "no uevents: relying on the resync", "error", strerror(-r), NULL);
}

static int sources_uevents_fd(const struct sources *s)
{
	return s->uevents ? uevents_fd(s->uevents) : -1;
}

static int sources_uevents_drain(struct sources *s, uint64_t now, char *what, size_t len)
{
	(void)now;
	return uevents_drain(s->uevents, what, len);
}

static void sources_uevents_close(struct sources *s)
{
	uevents_free(s->uevents);
	s->uevents = NULL;
}

static void sources_watch_open(struct sources *s)
{
	int r = watch_open(observe_rootfd(s->root), s->root, &s->watch);

	if (r < 0)
		log_emit(LOG_LEVEL_WARN, "no inotify watches: relying on the resync", "error", strerror(-r), NULL);
}

static int sources_watch_fd(const struct sources *s)
{
	return s->watch ? watch_fd(s->watch) : -1;
}

static void sources_watch_close(struct sources *s)
{
	watch_free(s->watch);
	s->watch = NULL;
}

static int sources_watch_drain(struct sources *s, uint64_t now, char *what, size_t len)
{
	int n = watch_drain(s->watch, what, len);

	(void)now;
	if (n >= 0)
		return n;
	log_emit(LOG_LEVEL_ERROR, "inotify read failed: watches dropped, relying on the resync", "error",
		 strerror(-n), NULL);
	sources_watch_close(s);
	return 1;
}

static void sources_releases_open(struct sources *s)
{
	char err[512];

	if (s->releases && filewatch_open(s->releases, &s->relwatch, err, sizeof(err)) < 0)
		log_emit(LOG_LEVEL_WARN, "the release table is not followed: re-read on SIGHUP only", "file",
			 s->releases, "error", err, NULL);
}

static int sources_releases_fd(const struct sources *s)
{
	return s->relwatch ? filewatch_fd(s->relwatch) : -1;
}

static void sources_releases_close(struct sources *s)
{
	filewatch_free(s->relwatch);
	s->relwatch = NULL;
}

static int sources_releases_drain(struct sources *s, uint64_t now, char *what, size_t len)
{
	bool lost = false;
	int n = filewatch_drain(s->relwatch, &lost);

	(void)now;
	if (n < 0 || lost) {
		log_emit(LOG_LEVEL_WARN, "the release table's directory is no longer followed: re-read on SIGHUP only",
			 "file", s->releases, "error", n < 0 ? strerror(-n) : "the directory was removed or moved", NULL);
		sources_releases_close(s);
		n = n < 0 ? 0 : n;
	}
	if (n > 0) {
		s->releases_dirty = true;
		snprintf(what, len, "%s", s->releases);
	}
	return n;
}

static const struct sources_kind {
	const char *name;               /* in the debug line of each event */
	void (*open)(struct sources *s);
	int (*fd)(const struct sources *s);
	int (*drain)(struct sources *s, uint64_t now, char *what, size_t len);     /* events seen */
	void (*close)(struct sources *s);
} sources_table[SOURCES__COUNT] = {
	[SOURCES_LINKS] = { "netlink", sources_links_open, sources_links_fd, sources_links_drain, sources_links_close },
	[SOURCES_UEVENTS] = { "uevent", sources_uevents_open, sources_uevents_fd, sources_uevents_drain,
			      sources_uevents_close },
	[SOURCES_WATCH] = { "inotify", sources_watch_open, sources_watch_fd, sources_watch_drain, sources_watch_close },
	[SOURCES_RELEASES] = { "releases", sources_releases_open, sources_releases_fd, sources_releases_drain,
			       sources_releases_close },
};

void sources_open(struct sources *s)
{
	for (size_t i = 0; i < SOURCES__COUNT; i++)
		sources_table[i].open(s);
}

void sources_close(struct sources *s)
{
	for (size_t i = 0; i < SOURCES__COUNT; i++)
		sources_table[i].close(s);
}

void sources_pollfds(const struct sources *s, struct pollfd fds[SOURCES__COUNT])
{
	for (size_t i = 0; i < SOURCES__COUNT; i++)
		fds[i] = (struct pollfd){ .fd = sources_table[i].fd(s), .events = POLLIN };
}

bool sources_drain(struct sources *s, const struct pollfd fds[SOURCES__COUNT], uint64_t now)
{
	bool any = false;

	for (size_t i = 0; i < SOURCES__COUNT; i++) {
		char what[SOURCES_WHAT_MAX], count[16];
		int n;

		if (!fds[i].revents || fds[i].fd < 0 || sources_table[i].fd(s) != fds[i].fd)
			continue;
		n = sources_table[i].drain(s, now, what, sizeof(what));
		if (n <= 0)
			continue;
		snprintf(count, sizeof(count), "%d", n);
		log_emit(LOG_LEVEL_DEBUG, "event", "source", sources_table[i].name, "count", count, "first", what, NULL);
		any = true;
	}
	return any;
}
