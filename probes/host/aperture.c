/* aperture.c - the LLCM aperture entries in <root>/dev/aperture_devices and their BAR4. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probes/host/aperture.h"
#include "probes/host/bar4.h"
#include "probes/host/hostfiles.h"
#include "probes/host/hostfs.h"

#define APERTURE_DIR "dev/aperture_devices"
#define APERTURE_FILES_MAX 1024         /* files looked at per entry (a sysfs dir has ~30) */

static sigjmp_buf aperture_bus_jmp;
static volatile sig_atomic_t aperture_bus_armed;

static void aperture_on_sigbus(int sig)
{
	if (aperture_bus_armed)
		siglongjmp(aperture_bus_jmp, 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

int aperture_copy_mapped(void *dst, const void *src, size_t len)
{
	struct sigaction sa = { .sa_handler = aperture_on_sigbus }, old;
	int r = 0;

	/* A file truncated after mmap faults on access (SIGBUS): a finding, never a crash. */
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, &old) < 0)
		return -errno;
	if (sigsetjmp(aperture_bus_jmp, 1) == 0) {
		aperture_bus_armed = 1;
		memcpy(dst, src, len);
	} else {
		r = -EFAULT;
	}
	aperture_bus_armed = 0;
	sigaction(SIGBUS, &old, NULL);
	return r;
}

/*
 * Read BAR4 as the plugin does: mmap the first bytes read-only. Only what the file size
 * allows is mapped (touching a page past EOF is SIGBUS); a file mmap refuses (0 bytes, or
 * a filesystem without mmap) is read() instead.
 */
static void aperture_read_bar4(int dfd, struct obs_aperture_entry *e)
{
	uint8_t buf[BAR4_MAP_LEN];
	size_t len = 0;
	struct stat st;
	int fd, r;

	fd = hostfs_open_file_at(dfd, "resource4", 0, &st);
	if (fd < 0) {
		e->bar4 = fd == -ENOENT ? OBS_BAR4_MISSING :
			  fd == -ELOOP || fd == -EINVAL ? OBS_BAR4_NOT_FILE : OBS_BAR4_UNREADABLE;
		e->bar4_err = fd;
		return;
	}
	if (st.st_size > 0) {
		size_t map = st.st_size < BAR4_MAP_LEN ? (size_t)st.st_size : BAR4_MAP_LEN;
		void *m = mmap(NULL, map, PROT_READ, MAP_SHARED, fd, 0);

		if (m != MAP_FAILED) {
			r = aperture_copy_mapped(buf, m, map);
			munmap(m, map);
			if (r < 0) {
				/* It shrank under us (truncated mid-read): report what is there now. */
				e->bar4 = OBS_BAR4_UNREADABLE;
				e->bar4_err = r;
				goto out;
			}
			len = map;
			e->bar4_mapped = true;
		}
	}
	if (!e->bar4_mapped) {
		ssize_t n = pread(fd, buf, sizeof(buf), 0);

		if (n < 0) {
			e->bar4 = OBS_BAR4_UNREADABLE;
			e->bar4_err = -errno;
			goto out;
		}
		len = (size_t)n;
	}
	r = bar4_parse(buf, len, &e->bar4_ipv4);
	e->bar4 = r == 0 ? OBS_BAR4_OK : r == -ENODATA ? OBS_BAR4_EMPTY : OBS_BAR4_SHORT;
out:
	close(fd);
}

/* @dfd: the entry's directory, resolved inside the root. */
static void aperture_read_id(int dfd, const char *name, uint16_t *ret, bool *ok)
{
	char buf[32];
	size_t len;
	bool trunc;

	if (hostfs_read_at(dfd, name, 0, buf, sizeof(buf), &len, &trunc) < 0 || trunc ||
	    bar4_parse_id(buf, len, ret) < 0)
		*ok = false;
}

/* @d: the entry's directory, resolved inside the root; its own entries are lstat'ed, never followed. */
static void aperture_scan_resources(DIR *d, struct obs_aperture_entry *e)
{
	struct dirent *de;
	unsigned seen = 0;

	while ((de = readdir(d)) && seen++ < APERTURE_FILES_MAX) {
		struct stat st;

		if (!hostfiles_is_resource(de->d_name))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		e->n_resources++;
		if ((st.st_mode & 0666) != 0666) {
			/* Name the bytewise-first one, whatever the readdir order. */
			if (e->n_narrow == 0 || strncmp(de->d_name, e->narrow, strcspn(e->narrow, " ")) < 0)
				snprintf(e->narrow, sizeof(e->narrow), "%.32s %04o", de->d_name,
					 (unsigned)(st.st_mode & 07777));
			e->n_narrow++;
		}
	}
}

static void aperture_inspect(int rootfd, struct obs_aperture_entry *e)
{
	char entry[PATH_MAX];
	bool ok = true;
	DIR *d;
	int r;

	/* A name with '/' cannot come from readdir; an over-long path is an unreadable entry. */
	r = hostfs_join(entry, sizeof(entry), APERTURE_DIR, e->name);
	if (r < 0) {
		e->type = OBS_FILE_ERROR;
		e->err = r;
		return;
	}
	/* The usual entry is a directory: opened at once (O_DIRECTORY opens nothing else), typed if not. */
	r = hostfs_opendir(rootfd, entry, &d);
	if (r < 0) {
		e->type = hostfs_type(rootfd, entry, true, &e->err);
		if (e->type == OBS_FILE_DIR) {
			e->err = r;
			e->type = OBS_FILE_ERROR;
		}
		return;
	}
	e->type = OBS_FILE_DIR;
	e->err = 0;
	aperture_read_id(dirfd(d), "vendor", &e->vendor, &ok);
	aperture_read_id(dirfd(d), "device", &e->device, &ok);
	e->ids_known = ok;
	aperture_scan_resources(d, e);
	aperture_read_bar4(dirfd(d), e);
	closedir(d);
}

int aperture_scan(int rootfd, struct obs_aperture *ret)
{
	struct obs_aperture a = {0};
	int n;

	a.v = calloc(OBS_APERTURE_MAX, sizeof(*a.v));
	if (!a.v)
		return -ENOMEM;
	n = hostfs_list_names(rootfd, APERTURE_DIR, a.v, sizeof(*a.v), OBS_APERTURE_MAX, OBS_HOST_NAME_MAX,
			      &a.n_dropped);
	if (n < 0) {
		if (n == -ENOENT)
			a.status.state = PROBE_OK;   /* absent: an observation */
		else
			probe_status_fail(&a.status, n, "/%s: %s", APERTURE_DIR, strerror(-n));
		free(a.v);
		a.v = NULL;
		*ret = a;
		return 0;
	}
	a.present = true;
	a.n = (size_t)n;
	for (size_t i = 0; i < a.n; i++)
		aperture_inspect(rootfd, &a.v[i]);
	a.status.state = PROBE_OK;
	*ret = a;
	return 0;
}
