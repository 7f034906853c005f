/* hostfs.c - host paths resolved inside --root (openat2 RESOLVE_IN_ROOT or our own walk), small reads, types. */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#define HOSTFS_HAVE_OPENAT2_H 1
#endif
#endif

#include "probes/host/hostfs.h"
#include "probes/model/fdread.h"
#include "probes/model/strbuf.h"

#ifndef HOSTFS_HAVE_OPENAT2_H
struct open_how {
	uint64_t flags;
	uint64_t mode;
	uint64_t resolve;
};
#define RESOLVE_NO_MAGICLINKS 0x02
#define RESOLVE_IN_ROOT 0x10
#endif
#ifndef SYS_openat2
#define SYS_openat2 437         /* the same number on every architecture */
#endif

#define HOSTFS_DEPTH_MAX 128    /* directories deep (sysfs device paths are about 10) */
#define HOSTFS_EAGAIN_TRIES 8   /* openat2 asks to retry after a concurrent rename or mount */
#define HOSTFS_LIST_CALLS_MAX 16        /* getdents of 8 KiB: a sysfs device directory takes one */

static int hostfs_kernel_state = -1;    /* -1 not probed, 0 no openat2, 1 openat2 works */
static bool hostfs_walk_forced;

void hostfs_force_walk(bool on)
{
	hostfs_walk_forced = on;
}

bool hostfs_kernel_resolution(void)
{
	if (hostfs_walk_forced)
		return false;
	if (hostfs_kernel_state < 0) {
		/* ENOSYS before Linux 5.6; EPERM (or ENOSYS) from a container runtime's seccomp filter. */
		struct open_how how = { .flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_IN_ROOT };
		long fd = syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof(how));

		hostfs_kernel_state = fd >= 0;
		if (fd >= 0)
			close((int)fd);
	}
	return hostfs_kernel_state == 1;
}

int hostfs_join(char *buf, size_t len, const char *dir, const char *name)
{
	int n = *dir ? snprintf(buf, len, "%s/%s", dir, name) : snprintf(buf, len, "%s", name);

	if (n < 0 || (size_t)n >= len) {
		if (len)
			buf[0] = '\0';
		return -ENAMETOOLONG;
	}
	return 0;
}

/* Append "/@comp" to the canonical path @canon (@len bytes, @clen used); -ENAMETOOLONG. */
static int hostfs_canon_push(char *canon, size_t len, size_t *clen, const char *comp)
{
	size_t n = strlen(comp);

	if (!canon)
		return 0;
	if (*clen + 1 + n >= len)
		return -ENAMETOOLONG;
	canon[(*clen)++] = '/';
	memcpy(canon + *clen, comp, n + 1);
	*clen += n;
	return 0;
}

/* A walk in progress: the directories resolved so far (fds[0] is the root) and the canonical path. */
struct hostfs_walker {
	int fds[HOSTFS_DEPTH_MAX + 1];
	size_t at[HOSTFS_DEPTH_MAX + 1];        /* the canonical path's length before each directory */
	size_t depth, clen;
	unsigned links;
	char *canon;                            /* may be NULL */
	size_t canonlen;
	char todo[PATH_MAX];                    /* what is left to resolve */
};

/* "..": back to the parent directory, never above the root. */
static void hostfs_walk_up(struct hostfs_walker *w)
{
	if (!w->depth)
		return;
	close(w->fds[w->depth]);
	w->clen = w->at[w->depth--];
	if (w->canon)
		w->canon[w->clen] = '\0';
}

/*
 * The link @fd (closed here) is replaced by its text: w->todo becomes the text followed by @rest
 * (which points into w->todo); an absolute text starts again at the root. 0, or -errno.
 */
static int hostfs_walk_link(struct hostfs_walker *w, int fd, const char *rest)
{
	char target[PATH_MAX], next[PATH_MAX];
	ssize_t tl;
	int k;

	if (++w->links > HOSTFS_LINKS_MAX) {
		close(fd);
		return -ELOOP;
	}
	tl = readlinkat(fd, "", target, sizeof(target));
	close(fd);
	if (tl < 0 || (size_t)tl >= sizeof(target))
		return tl < 0 ? -errno : -ENAMETOOLONG;
	if (tl == 0)
		return -ENOENT;
	target[tl] = '\0';
	k = snprintf(next, sizeof(next), "%s%s", target, rest);
	if (k < 0 || (size_t)k >= sizeof(next))
		return -ENAMETOOLONG;
	memcpy(w->todo, next, (size_t)k + 1);
	if (target[0] == '/') {
		while (w->depth)
			close(w->fds[w->depth--]);
		w->clen = 0;
		if (w->canon)
			w->canon[0] = '\0';
	}
	return 0;
}

/* Into the directory @fd (@st its stat; @before the canonical length before it): 0, -ENOTDIR, or -ENAMETOOLONG. */
static int hostfs_walk_down(struct hostfs_walker *w, int fd, const struct stat *st, size_t before)
{
	if (!S_ISDIR(st->st_mode) || w->depth == HOSTFS_DEPTH_MAX) {
		close(fd);
		return !S_ISDIR(st->st_mode) ? -ENOTDIR : -ENAMETOOLONG;
	}
	w->fds[++w->depth] = fd;
	w->at[w->depth] = before;
	return 0;
}

/* The final component @comp, @fd its O_PATH (@st its stat), not a link to follow: opened as @flags asks. */
static int hostfs_walk_last(struct hostfs_walker *w, int fd, const struct stat *st, const char *comp, int flags)
{
	int r;

	if (flags & O_PATH) {
		if ((flags & O_DIRECTORY) && !S_ISDIR(st->st_mode)) {
			close(fd);
			return -ENOTDIR;
		}
		return fd;
	}
	close(fd);
	/* Relative to the resolved parent and with O_NOFOLLOW: it cannot leave the root. */
	r = openat(w->fds[w->depth], comp, flags | O_NOFOLLOW | O_CLOEXEC);
	return r < 0 ? -errno : r;
}

/*
 * Our own resolution, for kernels without openat2: one component at a time from the root, each
 * opened O_PATH | O_NOFOLLOW relative to its (already resolved) parent, so the kernel never
 * follows a link for us. A link's text replaces the component (an absolute one restarts at the
 * root); ".." pops our own stack of resolved directories and so never climbs above the root,
 * whatever is renamed meanwhile. @canon (may be NULL) gets the canonical path inside the root.
 */
static int hostfs_walk(int rootfd, const char *path, int flags, char *canon, size_t canonlen)
{
	struct hostfs_walker w = { .canon = canon, .canonlen = canonlen };
	char comp[NAME_MAX + 1];
	const char *p;
	int r;

	w.fds[0] = rootfd;
	if (canon && canonlen)
		canon[0] = '\0';
	if (strlen(path) >= sizeof(w.todo))
		return -ENAMETOOLONG;
	memcpy(w.todo, path, strlen(path) + 1);
	p = w.todo;
	for (;;) {
		const char *rest, *q;
		bool last, follow;
		struct stat st;
		size_t n, before;
		int fd;

		while (*p == '/')
			p++;
		if (!*p) {
			/* The path ends at a directory already resolved (the root, ".", a trailing "/"). */
			r = openat(w.fds[w.depth], ".", (flags & ~O_NOFOLLOW) | O_CLOEXEC);
			r = r < 0 ? -errno : r;
			break;
		}
		n = strcspn(p, "/");
		if (n > NAME_MAX) {
			r = -ENAMETOOLONG;
			break;
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		rest = p + n;
		for (q = rest; *q == '/'; q++)
			;
		last = !*q;
		follow = !(flags & O_NOFOLLOW) || *rest == '/';        /* "link/" means the directory */
		p = rest;
		if (strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") == 0) {
			hostfs_walk_up(&w);
			continue;
		}
		fd = openat(w.fds[w.depth], comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			r = -errno;
			break;
		}
		if (fstat(fd, &st) < 0) {
			r = -errno;
			close(fd);
			break;
		}
		if (S_ISLNK(st.st_mode) && (!last || follow)) {
			r = hostfs_walk_link(&w, fd, rest);
			if (r < 0)
				break;
			p = w.todo;
			continue;
		}
		before = w.clen;
		r = hostfs_canon_push(w.canon, w.canonlen, &w.clen, comp);
		if (r < 0) {
			close(fd);
			break;
		}
		if (last) {
			r = hostfs_walk_last(&w, fd, &st, comp, flags);
			break;
		}
		r = hostfs_walk_down(&w, fd, &st, before);
		if (r < 0)
			break;
	}
	while (w.depth)
		close(w.fds[w.depth--]);
	return r;
}

static int hostfs_openat2(int rootfd, const char *path, int flags)
{
	struct open_how how = {
		.flags = (uint64_t)(unsigned)(flags | O_CLOEXEC),
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};

	for (int i = 0; i < HOSTFS_EAGAIN_TRIES; i++) {
		long fd = syscall(SYS_openat2, rootfd, path, &how, sizeof(how));

		if (fd >= 0)
			return (int)fd;
		if (errno != EAGAIN)
			return -errno;
	}
	return -EAGAIN;
}

int hostfs_open(int rootfd, const char *path, int flags)
{
	int r;

	if (!*path)
		path = ".";
	if (hostfs_kernel_resolution()) {
		r = hostfs_openat2(rootfd, path, flags);
		/* Still busy with renames after every retry: our walk is as safe, only slower. */
		if (r != -EAGAIN && r != -ENOSYS)
			return r;
	}
	return hostfs_walk(rootfd, path, flags, NULL, 0);
}

int hostfs_realpath(int rootfd, const char *path, char *buf, size_t len)
{
	int fd;

	if (len < 2)
		return -ENAMETOOLONG;
	fd = hostfs_walk(rootfd, path, O_PATH, buf, len);
	if (fd < 0)
		return fd;
	close(fd);
	if (!buf[0])
		memcpy(buf, "/", 2);
	return 0;
}

int hostfs_stat(int rootfd, const char *path, bool follow, struct stat *ret)
{
	int fd = hostfs_open(rootfd, path, O_PATH | (follow ? 0 : O_NOFOLLOW)), r = 0;

	if (fd < 0)
		return fd;
	if (fstat(fd, ret) < 0)
		r = -errno;
	close(fd);
	return r;
}

enum obs_file_type hostfs_type_of_mode(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG: return OBS_FILE_REGULAR;
	case S_IFDIR: return OBS_FILE_DIR;
	case S_IFCHR: return OBS_FILE_CHAR;
	case S_IFBLK: return OBS_FILE_BLOCK;
	case S_IFLNK: return OBS_FILE_SYMLINK;
	default: return OBS_FILE_OTHER;
	}
}

enum obs_file_type hostfs_type(int rootfd, const char *path, bool follow, int *ret_err)
{
	struct stat st;
	int r = hostfs_stat(rootfd, path, follow, &st);

	*ret_err = r;
	if (r == 0)
		return hostfs_type_of_mode(st.st_mode);
	if (r == -ENOENT && follow && hostfs_stat(rootfd, path, false, &st) == 0)
		return OBS_FILE_BROKEN;         /* the link exists, its target does not */
	return hostfs_type_of_error(r);
}

enum obs_file_type hostfs_type_of_error(int r)
{
	return r == -ENOENT || r == -ENOTDIR ? OBS_FILE_ABSENT : r == -ELOOP ? OBS_FILE_BROKEN : OBS_FILE_ERROR;
}

/* A single component: no '/', not "." or "..", so that it cannot lead out of its directory. */
static bool hostfs_name_ok(const char *name)
{
	return *name && !strchr(name, '/') && strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

int hostfs_open_file_at(int dirfd, const char *name, mode_t type, struct stat *ret_st)
{
	struct stat st;
	int fd, r;

	if (!hostfs_name_ok(name))
		return -EINVAL;
	if (!type) {
		if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return -errno;
		type = st.st_mode & S_IFMT;
	}
	/* The type first: a fifo opened for reading would block. A link is -ELOOP, anything else -EINVAL. */
	if (!S_ISREG(type))
		return S_ISLNK(type) ? -ELOOP : -EINVAL;
	/*
	 * Relative to a directory resolved inside the root, one component, no link followed;
	 * non-blocking in case it was swapped for a fifo meanwhile, and checked again once open.
	 */
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = fstat(fd, &st) < 0 ? -errno : S_ISREG(st.st_mode) ? 0 : -EINVAL;
	if (r < 0) {
		close(fd);
		return r;
	}
	if (ret_st)
		*ret_st = st;
	return fd;
}

int hostfs_read(int rootfd, const char *path, char *buf, size_t size, size_t *ret_len, bool *ret_truncated)
{
	const char *base = strrchr(path, '/');
	char dir[PATH_MAX];
	int dfd, r;

	/* The parent resolved inside the root, the file itself one component of it: never followed. */
	if (!base)
		return hostfs_read_at(rootfd, path, 0, buf, size, ret_len, ret_truncated);
	if ((size_t)(base - path) >= sizeof(dir))
		return -ENAMETOOLONG;
	memcpy(dir, path, (size_t)(base - path));
	dir[base - path] = '\0';
	dfd = hostfs_open(rootfd, dir, O_PATH | O_DIRECTORY);
	if (dfd < 0)
		return dfd;
	r = hostfs_read_at(dfd, base + 1, 0, buf, size, ret_len, ret_truncated);
	close(dfd);
	return r;
}

/*
 * A file whose size is known and has been read whole is at its end: no read is spent to hear so
 * (sysfs and proc files give no size, 4096 or 0, and take the usual read that returns 0).
 */
int hostfs_read_at(int dirfd, const char *name, mode_t type, char *buf, size_t size,
		   size_t *ret_len, bool *ret_truncated)
{
	struct stat st;
	size_t known, len;
	char extra;
	int fd = hostfs_open_file_at(dirfd, name, type, &st), r;

	if (fd < 0)
		return fd;
	known = st.st_size > 0 ? (size_t)st.st_size : 0;
	r = fdread_fill(fd, buf, size, known, &len);
	if (r == 0) {
		*ret_truncated = len == size && len != known && read(fd, &extra, 1) == 1;
		*ret_len = len;
	}
	close(fd);
	return r;
}

int hostfs_opendir(int rootfd, const char *path, DIR **ret)
{
	int fd = hostfs_open(rootfd, path, O_RDONLY | O_DIRECTORY | O_NONBLOCK), r;

	*ret = NULL;
	if (fd < 0)
		return fd;
	*ret = fdopendir(fd);
	if (*ret)
		return 0;
	r = -errno;
	close(fd);
	return r;
}

int hostfs_list_names(int rootfd, const char *path, void *v, size_t size, size_t max, size_t namelen,
		      size_t *ret_dropped)
{
	char *rec = v;
	struct dirent *de;
	size_t n = 0;
	DIR *d = NULL;
	int r = hostfs_opendir(rootfd, path, &d);

	if (r < 0)
		return r;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name), big = 0;

		if (de->d_name[0] == '.')
			continue;
		if (len < namelen && n < max) {
			memcpy(rec + n++ * size, de->d_name, len + 1);
			continue;
		}
		/* Full: keep the smallest names, whatever the readdir order. */
		for (size_t i = 1; len < namelen && i < n; i++)
			if (strcmp(rec + i * size, rec + big * size) > 0)
				big = i;
		if (len < namelen && n && strcmp(de->d_name, rec + big * size) < 0)
			memcpy(rec + big * size, de->d_name, len + 1);
		if (++*ret_dropped >= 4 * max)
			break;
	}
	closedir(d);
	qsort(v, n, size, strbuf_cmp_names);
	return (int)n;
}

int hostfs_list_types(int dirfd, const char *const *names, size_t n, mode_t *ret_types)
{
	_Alignas(struct dirent64) char buf[8192];
	size_t seen = 0;
	ssize_t len;

	for (size_t i = 0; i < n; i++)
		ret_types[i] = HOSTFS_TYPE_ABSENT;
	while ((len = getdents64(dirfd, buf, sizeof(buf))) > 0) {
		for (ssize_t off = 0; off < len;) {
			const struct dirent64 *de = (const struct dirent64 *)(buf + off);

			off += de->d_reclen;
			for (size_t i = 0; i < n; i++)
				if (strcmp(de->d_name, names[i]) == 0)
					ret_types[i] = DTTOIF(de->d_type);      /* DT_UNKNOWN: 0 */
		}
		if (++seen == HOSTFS_LIST_CALLS_MAX) {
			len = -1;
			errno = E2BIG;
			break;
		}
	}
	if (len < 0) {
		int r = -errno;

		for (size_t i = 0; i < n; i++)
			ret_types[i] = 0;
		return r;
	}
	return 0;
}

int hostfs_readlink(int rootfd, const char *path, char *buf, size_t len)
{
	struct stat st;
	ssize_t n;
	int fd = hostfs_open(rootfd, path, O_PATH | O_NOFOLLOW), r;

	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0 || !S_ISLNK(st.st_mode)) {
		r = -EINVAL;
		close(fd);
		return r;
	}
	n = readlinkat(fd, "", buf, len);
	r = n < 0 ? -errno : (size_t)n >= len ? -ENAMETOOLONG : (int)n;
	close(fd);
	if (r >= 0)
		buf[r] = '\0';
	return r;
}
