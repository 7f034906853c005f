/* filewatch.c - one input file followed by inotify on its directory (an edit, a rename, a ConfigMap's ..data swap). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "agent/filewatch.h"
#include "probes/host/watch.h"
#include "probes/model/errmsg.h"

/*
 * What changes a file seen through its directory: written and closed, created or renamed in
 * (an atomic replace, the ConfigMap's new ..data), removed or renamed away, chmod/chown/touch;
 * and the directory's own end.
 */
#define FILEWATCH_MASK (IN_CLOSE_WRITE | IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM | IN_ATTRIB | \
			IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

/* The symlink a ConfigMap (or Secret, projected) volume swaps to publish a new version of its files. */
#define FILEWATCH_CONFIGMAP_LINK "..data"

struct filewatch {
	int fd;
	int wd;
	char base[NAME_MAX + 1];        /* the file's name in the directory */
};

bool filewatch_concerns(const char *base, const char *name, size_t len)
{
	size_t n = strnlen(name, len);

	if (n == 0)
		return true;    /* the directory itself */
	return (n == strlen(base) && memcmp(name, base, n) == 0) ||
	       (n == sizeof(FILEWATCH_CONFIGMAP_LINK) - 1 && memcmp(name, FILEWATCH_CONFIGMAP_LINK, n) == 0);
}

int filewatch_open(const char *path, struct filewatch **ret, char *err, size_t errlen)
{
	struct filewatch *w;
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];
	int r;

	if (!*path || (slash && !slash[1]))
		return errmsg_set(err, errlen, -EINVAL, "%s: not a file name", path);
	if (slash && (size_t)(slash - path) >= sizeof(dir))
		return errmsg_set(err, errlen, -ENAMETOOLONG, "%s: the directory's name is too long", path);
	if (strlen(slash ? slash + 1 : path) > NAME_MAX)
		return errmsg_set(err, errlen, -ENAMETOOLONG, "%s: the file's name is too long", path);
	/* The directory: ".", "/" (a file at the root), or what precedes the last slash. */
	snprintf(dir, sizeof(dir), "%.*s", !slash || slash == path ? 1 : (int)(slash - path), slash ? path : ".");
	w = calloc(1, sizeof(*w));
	if (!w)
		return errmsg_set(err, errlen, -ENOMEM, "out of memory");
	snprintf(w->base, sizeof(w->base), "%s", slash ? slash + 1 : path);
	w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (w->fd < 0) {
		r = -errno;
		free(w);
		return errmsg_set(err, errlen, r, "inotify: %s", strerror(-r));
	}
	w->wd = inotify_add_watch(w->fd, dir, FILEWATCH_MASK);
	if (w->wd < 0) {
		r = -errno;
		filewatch_free(w);
		return errmsg_set(err, errlen, r, "watching the directory %s: %s", dir, strerror(-r));
	}
	*ret = w;
	return 0;
}

int filewatch_fd(const struct filewatch *w)
{
	return w->fd;
}

struct filewatch_drain_ctx {
	const struct filewatch *w;
	bool *lost;
	int count;
};

static void filewatch_event(const struct inotify_event *ev, void *ctx)
{
	struct filewatch_drain_ctx *d = ctx;

	if (ev->mask & IN_Q_OVERFLOW) {
		d->count++;
		return;
	}
	if (ev->wd != d->w->wd)
		return;
	if (ev->mask & IN_IGNORED) {
		*d->lost = true;
		return;
	}
	if (filewatch_concerns(d->w->base, ev->len ? ev->name : "", ev->len))
		d->count++;
}

int filewatch_drain(struct filewatch *w, bool *ret_lost)
{
	struct filewatch_drain_ctx d = { .w = w, .lost = ret_lost };
	int r = inotify_each(w->fd, filewatch_event, &d);

	return r < 0 ? r : d.count;
}

void filewatch_free(struct filewatch *w)
{
	if (!w)
		return;
	if (w->fd >= 0)
		close(w->fd);
	free(w);
}
