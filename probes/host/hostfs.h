/* hostfs.h - host paths resolved inside --root (openat2 RESOLVE_IN_ROOT or our own walk), small reads, types. */
#pragma once

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "probes/model/obs_host.h"

/*
 * Every function here takes the host root's directory fd and a path relative to it ("dev",
 * "sys/bus/pci/devices/0000:06:00.0/vendor"; a leading '/' means the root as well). Each
 * component, and every symbolic link met on the way, is resolved *inside* the root, as if the
 * root were "/": an absolute link starts again at the root and ".." stops at it, so a host whose
 * paths are absolute links (home/kubernetes/bin/nvidia -> /opt/nvidia) reads as on the host, and
 * nothing is ever followed out of the root into the agent's own filesystem.
 *
 * Where the kernel has openat2() (Linux 5.6) the kernel does it (RESOLVE_IN_ROOT, which also
 * defends against ".." races); where it has not, or a seccomp filter refuses it, hostfs walks
 * the path component by component with the same rules. At most HOSTFS_LINKS_MAX links are
 * followed per path (-ELOOP beyond, as the kernel's own limit). Procfs "magic" links
 * (/proc/<pid>/root, ...) are never followed.
 */
#define HOSTFS_LINKS_MAX 40

/**
 * hostfs_open() - open @path under @rootfd, resolved inside the root.
 * @flags: open(2) flags, e.g. O_PATH, O_RDONLY | O_DIRECTORY; O_NOFOLLOW to take a final link
 * itself (with O_PATH: an fd of the link). O_CLOEXEC is always added. Never O_CREAT.
 *
 * Return: the new fd, or -errno: -ENOENT, -ENOTDIR, -ELOOP (a loop, too many links, or a final
 * link under O_NOFOLLOW without O_PATH), -ENAMETOOLONG, -EACCES, ...
 */
int hostfs_open(int rootfd, const char *path, int flags);

/**
 * hostfs_stat() - stat @path, resolved inside the root, following a final link when @follow.
 * Device nodes are looked at through an O_PATH fd, which never opens the device itself.
 * Return: 0 (@ret written), or -errno as for hostfs_open().
 */
int hostfs_stat(int rootfd, const char *path, bool follow, struct stat *ret);

/**
 * hostfs_type() - what @path is (stat following links when @follow, else lstat).
 * @ret_err: 0, or the -errno behind ABSENT, BROKEN and ERROR.
 * Return: OBS_FILE_BROKEN for a dangling or looping link (followed), OBS_FILE_ABSENT when a
 * component is missing, OBS_FILE_ERROR for another error.
 */
enum obs_file_type hostfs_type(int rootfd, const char *path, bool follow, int *ret_err);

/* The obs_file_type of a stat mode, and of hostfs_stat()'s -errno (ABSENT, BROKEN for -ELOOP, or ERROR). */
enum obs_file_type hostfs_type_of_mode(mode_t mode);
enum obs_file_type hostfs_type_of_error(int r);

/**
 * hostfs_open_file_at() - open @name, one component of the directory @dirfd that was itself
 * resolved inside the root (hostfs_open(..., O_PATH | O_DIRECTORY)), for reading if, and only
 * if, it is a regular file: opened relative to @dirfd without following a link, so it cannot
 * lead out of the root; its type is checked *before* anything is opened for reading (a fifo is
 * never opened, a device never touched), then it is opened non-blocking and checked again.
 * @type: the S_IFMT type of @name when the caller knows it (an lstat, hostfs_list_types()),
 * else 0 and it is lstat'ed here; either way nothing but a regular file is opened.
 * @ret_st: when not NULL, the stat of the opened file.
 *
 * Return: the fd, or -errno: -ENOENT (absent), -ELOOP (a symlink), -EINVAL (not a regular
 * file: a fifo, socket, device or directory; or a @name with a '/', "." or ".."), or another
 * -errno of the open.
 */
int hostfs_open_file_at(int dirfd, const char *name, mode_t type, struct stat *ret_st);

/**
 * hostfs_read() - read at most @size bytes of the small regular file @path: its parent
 * resolved inside the root, the file itself opened by hostfs_open_file_at()'s rules (never
 * blocks, never follows a final link: sysfs and proc attributes are never links).
 * @ret_len: bytes read, written on success.
 * @ret_truncated: set on success to whether the file holds more than @size bytes.
 *
 * Proc and sysfs files have no meaningful size: reads until EOF or @size.
 * Return: 0, or -errno as for hostfs_open(), hostfs_open_file_at() and read(2).
 */
int hostfs_read(int rootfd, const char *path, char *buf, size_t size, size_t *ret_len, bool *ret_truncated);

/**
 * hostfs_read_at() - hostfs_read() of @name in @dirfd (hostfs_open_file_at() rules, @type as there).
 * Return: 0, or -errno as for hostfs_open_file_at() and read(2).
 */
int hostfs_read_at(int dirfd, const char *name, mode_t type, char *buf, size_t size,
		   size_t *ret_len, bool *ret_truncated);

/**
 * hostfs_opendir() - open the directory @path (a final link followed inside the root).
 * @ret: the stream on success (closedir() it); NULL on any failure, fdopendir()'s included.
 * Return: 0, or -errno (-ENOENT, -ENOTDIR for a fifo or file, -ELOOP, -EACCES, ...).
 */
int hostfs_opendir(int rootfd, const char *path, DIR **ret);

/**
 * hostfs_list_names() - the names in the directory @path (as hostfs_opendir()), sorted, for a
 * probe that keeps a bounded array of records, each starting with its name: @v holds @max records
 * of @size bytes whose first @namelen bytes are the name. Names starting with '.' are skipped.
 * Beyond @max the smallest names of those read are kept, whatever the listing's order; a name
 * beyond @max or of @namelen bytes or more is counted in *@ret_dropped (which the caller zeroes),
 * and the listing is not read past 4 * @max such (a listing without end: a hostile --root), so
 * *@ret_dropped is then a lower bound.
 * Return: the names kept, or -errno as for hostfs_opendir().
 */
int hostfs_list_names(int rootfd, const char *path, void *v, size_t size, size_t max, size_t namelen,
		      size_t *ret_dropped);

#define HOSTFS_TYPE_ABSENT S_IFMT        /* hostfs_list_types(): no such entry */

/**
 * hostfs_list_types() - the type of each of @names in the directory @dirfd (opened for reading,
 * at its start), from one listing instead of an lstat each: S_IFREG, S_IFLNK, ... as the
 * directory entry says, HOSTFS_TYPE_ABSENT when there is no such entry, 0 when the filesystem
 * does not say (DT_UNKNOWN: lstat it). The listing is the kernel's, nothing is followed.
 * Return: 0, or -errno (every type then 0) for a listing that fails or never ends.
 */
int hostfs_list_types(int dirfd, const char *const *names, size_t n, mode_t *ret_types);

/**
 * hostfs_readlink() - the text of the symbolic link @path (its parents resolved inside the root).
 * Return: the length (@buf NUL-terminated), or -errno: -EINVAL when @path is not a link,
 * -ENAMETOOLONG when the text does not fit in @len.
 */
int hostfs_readlink(int rootfd, const char *path, char *buf, size_t len);

/**
 * hostfs_realpath() - the canonical path of @path inside the root: "/" + components, with
 * every link resolved inside the root ("/sys/devices/pci0000:00/0000:00:04.0/0000:06:00.0").
 * Return: 0, or -errno as for hostfs_open() (every component must exist).
 */
int hostfs_realpath(int rootfd, const char *path, char *buf, size_t len);

/**
 * hostfs_join() - "@dir/@name" into @buf (@dir "" gives @name).
 * Return: 0, or -ENAMETOOLONG (@buf then holds "").
 */
int hostfs_join(char *buf, size_t len, const char *dir, const char *name);

/**
 * hostfs_kernel_resolution() - whether the kernel itself will use openat2() for hostfs: for logs
 * and tests. hostfs_force_walk(true) makes hostfs use its own walk even where openat2() exists
 * (tests run both ways).
 */
bool hostfs_kernel_resolution(void);
void hostfs_force_walk(bool on);
