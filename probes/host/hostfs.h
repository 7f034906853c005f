/* hostfs.h - small-file reads and type lookups under a host root directory fd (probes share it). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "probes/model/obs_host.h"

/**
 * hostfs_read_at() - read at most @size bytes of a small file at @dirfd/@name.
 * @ret_len: bytes read, written on success.
 * @ret_truncated: set on success to whether the file holds more than @size bytes.
 *
 * Opens without following a final symlink and without blocking (a fifo gives -EINVAL,
 * not a hang). Proc and sysfs files have no meaningful size: reads until EOF or @size.
 *
 * Return: 0; -ENOENT (absent), -ELOOP (a symlink), -EINVAL (not a regular file), or
 * another -errno from open/read.
 */
int hostfs_read_at(int dirfd, const char *name, char *buf, size_t size, size_t *ret_len,
		   bool *ret_truncated);

/* The type of @name in @dirfd: stat following links, or lstat when @follow is false. */
enum obs_file_type hostfs_type_at(int dirfd, const char *name, bool follow, int *ret_err);
