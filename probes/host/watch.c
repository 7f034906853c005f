/* watch.c - inotify on the host directories whose entries the observation reads (dev, aperture, lib64). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "probes/host/hostfs.h"
#include "probes/host/watch.h"

/*
 * Entries appearing, vanishing, renamed or changing mode, and the directory itself going away.
 * Never IN_CLOSE_WRITE on dev/: every process that writes /dev/null would wake us.
 */
#define WATCH_DIR_MASK (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB | \
			IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)
/* Library files are rewritten in place by the installer: a finished write counts too. */
#define WATCH_FILES_MASK (WATCH_DIR_MASK | IN_CLOSE_WRITE)
/* An ancestor standing in for a missing directory: only the way down to it matters. */
#define WATCH_STANDIN_MASK (IN_CREATE | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

static const struct {
	const char *rel;
	uint32_t mask;
} watch_rel[] = {
	{ "dev/aperture_devices", WATCH_DIR_MASK },
	{ "dev", WATCH_DIR_MASK },
	{ "home/kubernetes/bin/nvidia/lib64", WATCH_FILES_MASK },
};

struct watch_target {
	const char *rel;                /* the directory we care about, relative to the root */
	char want[PATH_MAX];            /* ... as a path the kernel resolves (links inside the root resolved) */
	char watched[PATH_MAX];         /* what is watched now: want or its nearest existing ancestor */
	uint32_t mask;                  /* for want itself */
	int wd;                         /* -1 when nothing is watched */
};

struct watch {
	int fd;
	int rootfd;                     /* O_PATH: links are resolved inside the root, as the probes do */
	char root[PATH_MAX];            /* the root as given, root_len bytes of it used */
	size_t root_len;                /* of the prefix shared by every path, without the slash */
	size_t n;
	struct watch_target t[WATCH_TARGETS_MAX];
};

/*
 * Where @t is now, resolved inside the root: want = the root + the canonical path of t->rel (no
 * link left in it, so inotify, which follows links from the agent's own /, watches the host's
 * directory even behind home/kubernetes/bin/nvidia -> /opt/nvidia), and watched = the nearest
 * existing directory on the way (want itself when it exists). Return: false when none.
 */
static bool watch_locate(const struct watch *w, struct watch_target *t)
{
	char rel[PATH_MAX], canon[PATH_MAX];
	const char *rest = "";
	size_t cut = strlen(t->rel);
	int n;

	if (w->rootfd < 0)
		return false;           /* no root at all: nothing above it is watched in its place */
	snprintf(rel, sizeof(rel), "%s", t->rel);
	for (;;) {
		char *slash;
		int err;

		rel[cut] = '\0';
		if (hostfs_type(w->rootfd, rel, true, &err) == OBS_FILE_DIR &&
		    hostfs_realpath(w->rootfd, rel, canon, sizeof(canon)) == 0)
			break;
		if (cut == 0)
			return false;
		slash = strrchr(rel, '/');
		cut = slash ? (size_t)(slash - rel) : 0;
		rest = t->rel + cut + (slash != NULL);
	}
	/* "/" as the canonical path is the root itself: no slash of its own. */
	n = snprintf(t->watched, sizeof(t->watched), "%.*s%s", (int)w->root_len, w->root,
		     strcmp(canon, "/") == 0 ? (w->root_len ? "" : "/") : canon);
	if (n < 0 || (size_t)n >= sizeof(t->watched))
		return false;
	n = snprintf(t->want, sizeof(t->want), "%s%s%s", t->watched,
		     !*rest || t->watched[n - 1] == '/' ? "" : "/", rest);
	return n >= 0 && (size_t)n < sizeof(t->want);
}

/*
 * Point every target's watch at its directory or nearest existing ancestor. Targets sharing a
 * directory share one watch, with the union of their masks; watches no target uses are removed.
 */
static void watch_arm_all(struct watch *w)
{
	int old[WATCH_TARGETS_MAX];

	for (size_t i = 0; i < w->n; i++) {
		struct watch_target *t = &w->t[i];

		old[i] = t->wd;
		if (!watch_locate(w, t))
			t->watched[0] = '\0';
		t->wd = -1;
	}
	for (size_t i = 0; i < w->n; i++) {
		struct watch_target *t = &w->t[i];
		uint32_t mask = 0;
		int wd;

		if (!t->watched[0] || t->wd >= 0)
			continue;
		for (size_t j = i; j < w->n; j++)
			if (strcmp(w->t[j].watched, t->watched) == 0)
				mask |= strcmp(w->t[j].want, t->watched) == 0 ? w->t[j].mask : WATCH_STANDIN_MASK;
		/* Without IN_MASK_ADD the mask replaces the previous one: exactly what we want. */
		wd = inotify_add_watch(w->fd, t->watched, mask);
		for (size_t j = i; j < w->n; j++)
			if (strcmp(w->t[j].watched, t->watched) == 0) {
				w->t[j].wd = wd;
				if (wd < 0)
					w->t[j].watched[0] = '\0';
			}
	}
	for (size_t i = 0; i < w->n; i++) {
		bool used = false;

		if (old[i] < 0)
			continue;
		for (size_t j = 0; j < w->n; j++)
			used |= w->t[j].wd == old[i];
		for (size_t j = 0; j < i; j++)
			used |= old[j] == old[i];       /* removed once */
		if (!used)
			inotify_rm_watch(w->fd, old[i]);
	}
}

int watch_open(int rootfd, const char *root, struct watch **ret)
{
	struct watch *w;
	size_t rl = strlen(root);

	while (rl > 1 && root[rl - 1] == '/')
		rl--;
	if (rl + 64 >= PATH_MAX)
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->rootfd = rootfd < 0 ? -1 : fcntl(rootfd, F_DUPFD_CLOEXEC, 3);
	w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (w->fd < 0) {
		int r = -errno;

		if (w->rootfd >= 0)
			close(w->rootfd);
		free(w);
		return r;
	}
	w->root_len = rl == 1 && root[0] == '/' ? 0 : rl;
	memcpy(w->root, root, w->root_len);
	for (size_t i = 0; i < sizeof(watch_rel) / sizeof(watch_rel[0]); i++) {
		struct watch_target *t = &w->t[w->n++];

		t->rel = watch_rel[i].rel;
		snprintf(t->want, sizeof(t->want), "%.*s/%s", (int)w->root_len, root, watch_rel[i].rel);
		t->mask = watch_rel[i].mask;
		t->wd = -1;
	}
	watch_arm_all(w);
	*ret = w;
	return 0;
}

void watch_free(struct watch *w)
{
	if (!w)
		return;
	close(w->fd);
	if (w->rootfd >= 0)
		close(w->rootfd);
	free(w);
}

int watch_fd(const struct watch *w)
{
	return w->fd;
}

const char *watch_watched(const struct watch *w, size_t i)
{
	return i < w->n && w->t[i].wd >= 0 ? w->t[i].watched : NULL;
}

/*
 * The target an event on @wd about entry @name (@nl bytes; 0 for the directory itself)
 * matters to: one watching its own directory, or one whose stand-in ancestor saw the next
 * step on the way down to it. NULL when none.
 */
static const struct watch_target *watch_relevant(const struct watch *w, int wd, const char *name, size_t nl)
{
	const struct watch_target *hit = NULL;

	for (size_t i = 0; i < w->n; i++) {
		const struct watch_target *t = &w->t[i];
		size_t wl;

		if (t->wd != wd)
			continue;
		if (strcmp(t->want, t->watched) == 0)
			return t;
		/* want is watched + "/" + the rest ("/" itself has the slash already). */
		wl = strlen(t->watched);
		wl += t->watched[wl - 1] != '/';
		if (hit || !nl)
			continue;
		if (strncmp(t->want + wl, name, nl) == 0 && (t->want[wl + nl] == '/' || t->want[wl + nl] == '\0'))
			hit = t;
	}
	return hit;
}

int inotify_each(int fd, void (*cb)(const struct inotify_event *ev, void *ctx), void *ctx)
{
	/* Aligned as the kernel's struct inotify_event wants; room for many events per read. */
	char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));

	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return 0;
			return -errno;
		}
		if (n == 0)
			return 0;
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;

			if ((size_t)(buf + n - p) < sizeof(*ev) || (size_t)(buf + n - p) < sizeof(*ev) + ev->len)
				break;  /* the kernel never splits an event; a short tail is not ours to parse */
			p += sizeof(*ev) + ev->len;
			cb(ev, ctx);
		}
	}
}

struct watch_drain_ctx {
	struct watch *w;
	char *what;
	size_t whatlen;
	int count;
	bool rearm;
};

static void watch_drain_event(const struct inotify_event *ev, void *ctx)
{
	struct watch_drain_ctx *d = ctx;
	struct watch *w = d->w;
	const struct watch_target *t;

	if (ev->mask & IN_Q_OVERFLOW) {
		d->count++;
		d->rearm = true;
		return;
	}
	if (ev->mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF | IN_CREATE | IN_MOVED_TO | IN_DELETE |
			IN_MOVED_FROM))
		d->rearm = true;
	if (ev->mask & IN_IGNORED)
		return;
	t = watch_relevant(w, ev->wd, ev->name, ev->len ? strnlen(ev->name, ev->len) : 0);
	if (!t)
		return;
	if (d->count++ == 0 && d->what && d->whatlen) {
		const char *dir = t->watched + w->root_len + (t->watched[w->root_len] == '/');

		if (ev->len)
			snprintf(d->what, d->whatlen, "%s/%.*s", dir, (int)strnlen(ev->name, ev->len), ev->name);
		else
			snprintf(d->what, d->whatlen, "%s", dir);
	}
}

int watch_drain(struct watch *w, char *what, size_t whatlen)
{
	struct watch_drain_ctx d = { .w = w, .what = what, .whatlen = whatlen };
	int r;

	if (what && whatlen)
		what[0] = '\0';
	r = inotify_each(w->fd, watch_drain_event, &d);
	if (r < 0)
		return r;
	if (d.rearm)
		watch_arm_all(w);
	return d.count;
}
