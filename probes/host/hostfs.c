/* hostfs.c - small-file reads and type lookups under a host root directory fd. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probes/host/hostfs.h"

int hostfs_read_at(int dirfd, const char *name, char *buf, size_t size, size_t *ret_len,
		      bool *ret_truncated)
{
	struct stat st;
	size_t len = 0;
	char extra;
	int fd, r = 0;

	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		r = -EINVAL;
		goto out;
	}
	while (len < size) {
		ssize_t n = read(fd, buf + len, size - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	*ret_truncated = len == size && read(fd, &extra, 1) == 1;
	*ret_len = len;
out:
	close(fd);
	return r;
}

enum obs_file_type hostfs_type_at(int dirfd, const char *name, bool follow, int *ret_err)
{
	struct stat st;

	*ret_err = 0;
	if (fstatat(dirfd, name, &st, follow ? 0 : AT_SYMLINK_NOFOLLOW) < 0) {
		int e = errno;

		*ret_err = -e;
		if (e == ENOENT && follow && fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			return OBS_FILE_BROKEN;         /* the link exists, its target does not */
		if (e == ENOENT || e == ENOTDIR)
			return OBS_FILE_ABSENT;
		if (e == ELOOP)
			return OBS_FILE_BROKEN;
		return OBS_FILE_ERROR;
	}
	switch (st.st_mode & S_IFMT) {
	case S_IFREG: return OBS_FILE_REGULAR;
	case S_IFDIR: return OBS_FILE_DIR;
	case S_IFCHR: return OBS_FILE_CHAR;
	case S_IFBLK: return OBS_FILE_BLOCK;
	case S_IFLNK: return OBS_FILE_SYMLINK;
	default: return OBS_FILE_OTHER;
	}
}
