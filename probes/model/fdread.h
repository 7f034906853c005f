/* fdread.h - the one bounded reader: a file descriptor to its end, never past a limit. */
#pragma once

#include <stddef.h>

/**
 * fdread_fill() - read @fd into @buf (@size bytes) until its end, @size bytes, or @known bytes
 * when @known is not 0 (a regular file's size: no read is spent to hear it has ended); a read
 * cut by a signal is retried.
 * @ret_len: the bytes read, also on failure (a caller holding a secret wipes them).
 * Return: 0; -errno of a failed read.
 */
int fdread_fill(int fd, char *buf, size_t size, size_t known, size_t *ret_len);

/**
 * fdread_all() - read @fd to its end into one malloc'd buffer, NUL-terminated (the caller
 * frees *@ret), of at most @max bytes: *@ret and *@ret_len written only on success.
 * @hint: the size expected (a regular file's), 0 unknown: the buffer starts there, no copies.
 * Return: 0; -EFBIG (more than @max bytes); -ENOMEM; -errno of a failed read.
 */
int fdread_all(int fd, size_t max, size_t hint, char **ret, size_t *ret_len);
