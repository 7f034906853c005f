/* infile.h - read a whole input file named on the command line, bounded, never blocking on a FIFO. */
#pragma once

#include <stddef.h>

#include "probes/model/strbuf.h"

enum {
	INFILE_STDIN = 1 << 0,          /* "-" is standard input */
	INFILE_STREAM = 1 << 1,         /* a pipe or FIFO is read to its end (`--nodes-file <(kubectl ...)`) */
};

/**
 * infile_read() - read all of @path into a NUL-terminated buffer of at most @max bytes.
 * @flags: INFILE_* bits. Without INFILE_STREAM only a regular file is read: a FIFO, device or
 *         socket is refused before any read (opened non-blocking, so a FIFO without a writer
 *         cannot hang the agent).
 * @ret, @ret_len: the text (caller frees) and its length, written on success.
 * @err: why not, without the path (the caller names the option and the file).
 *
 * Return: 0; -ENOENT and other -errno from open/read; -EISDIR; -EINVAL (not a regular file);
 * -EFBIG (more than @max bytes); -ENOMEM.
 */
int infile_read(const char *path, size_t max, unsigned flags, char **ret, size_t *ret_len, struct strbuf *err);
