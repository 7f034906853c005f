/* hostprobe.c - the host wiring probes' entry point and their small file helpers. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probes/host/hostprobe.h"

int hostprobe_read_at(int dirfd, const char *name, char *buf, size_t size, size_t *ret_len,
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

enum obs_file_type hostprobe_type_at(int dirfd, const char *name, bool follow, int *ret_err)
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

static size_t hostprobe_count_gpus(const struct obs_pci *pci)
{
	size_t n = 0;

	if (!pci)
		return 0;
	for (size_t i = 0; i < pci->n; i++)
		if (pci->v[i].kind == PCI_KIND_GPU)
			n++;
	return n;
}

int hostprobe_observe(const char *root, const struct obs_pci *pci, struct obs_host *ret)
{
	struct obs_host h = {0};
	int rootfd, r;

	if (!root || !*root)
		root = "/";
	rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0) {
		int e = -errno;

		probe_status_fail(&h.aperture.status, e, "%s: %s", root, strerror(-e));
		h.devnodes.status = h.aperture.status;
		h.nvpath.status = h.aperture.status;
		h.procs.status = h.aperture.status;
		*ret = h;
		return 0;
	}
	r = aperture_scan(rootfd, &h.aperture);
	if (r >= 0)
		r = devnodes_scan(rootfd, hostprobe_count_gpus(pci), &h.devnodes);
	if (r >= 0)
		r = nvpath_scan(rootfd, &h.nvpath);
	if (r >= 0)
		r = procscan_scan(rootfd, &h.procs);
	close(rootfd);
	if (r < 0) {
		obs_host_free(&h);
		return r;
	}
	*ret = h;
	return 0;
}
