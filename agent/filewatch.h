/* filewatch.h - one input file followed by inotify on its directory (--releases: an edit, a rename, a ConfigMap's ..data swap). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct filewatch;

/**
 * filewatch_open() - watch the directory that holds @path for changes to the file: written,
 * replaced by a rename, removed, its attributes changed, and the `..data` symlink a ConfigMap
 * volume swaps atomically on an update (the file is then `..data/NAME` behind a symlink, whose
 * own inode never changes). Only the directory as named is watched: the target of a symlink
 * elsewhere is not followed, and a subPath mount (which never sees updates) tells nothing.
 * @ret: written on success; free with filewatch_free().
 * Return: 0; -errno of inotify (the message in @err names the directory); -ENOMEM.
 */
int filewatch_open(const char *path, struct filewatch **ret, char *err, size_t errlen);

/* The inotify descriptor to poll for reading (never -1 for an open watch). */
int filewatch_fd(const struct filewatch *w);

/**
 * filewatch_drain() - read every pending event without blocking.
 * @ret_lost: set when the directory's watch ended (the directory removed or moved: no further
 * events come) and left alone otherwise.
 * Return: how many events concern the file (an overflowed queue counts as one: it may have);
 * -errno when the descriptor cannot be read.
 */
int filewatch_drain(struct filewatch *w, bool *ret_lost);

/**
 * filewatch_concerns() - pure: whether an event on the watched directory named @name (@len bytes,
 * NUL padded; 0: the directory itself) concerns the file @base: its own name, or `..data`.
 */
bool filewatch_concerns(const char *base, const char *name, size_t len);

/* Close and free; NULL is ignored. */
void filewatch_free(struct filewatch *w);
