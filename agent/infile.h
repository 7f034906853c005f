/* infile.h - read a whole input file named on the command line, bounded, never blocking on a FIFO. */
#pragma once

#include <stddef.h>

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
 * @err, @errlen: why not, without the path (the caller names the option and the file).
 *
 * Return: 0; -ENOENT and other -errno from open/read; -EISDIR; -EINVAL (not a regular file);
 * -EFBIG (more than @max bytes); -ENOMEM.
 */
int infile_read(const char *path, size_t max, unsigned flags, char **ret, size_t *ret_len, char *err, size_t errlen);

/* infile_name() - @path as a message names it: "stdin" for "-". */
const char *infile_name(const char *path);

/**
 * infile_read_input() - a command's input file (interfaces', runtime's): infile_read() with "-"
 * as standard input and a pipe read to its end; a directory or a file over @max is said to be
 * no @kind: "is a directory, not a NodeList file", "larger than 256 MiB: not a NodeList this
 * command reads".
 * Return: as infile_read().
 */
int infile_read_input(const char *path, size_t max, const char *kind, char **ret, size_t *ret_len, char *err,
		      size_t errlen);
