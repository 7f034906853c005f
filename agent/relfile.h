/* relfile.h - the --releases file: read bounded, parsed into the release table. */
#pragma once

#include <stddef.h>

#include "report/checks/releases.h"

/**
 * relfile_load() - the release table in @path: a regular file of at most RELEASES_FILE_MAX
 * bytes (docs/releases-format.md), its source set to @path.
 * @ret: written on success; free with releases_free().
 * @ret_text, @ret_len: when @ret_text is not NULL, the file's text (caller frees): what a reload
 *        compares against.
 * @err: why not, without the path.
 * Return: 0; -errno (-EINVAL for a bad table).
 */
int relfile_load(const char *path, struct releases **ret, char **ret_text, size_t *ret_len, char *err, size_t errlen);
