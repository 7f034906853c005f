/* infile.c - read a whole input file named on the command line, bounded, never blocking on a FIFO. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/infile.h"
#include "probes/model/errmsg.h"
#include "probes/model/fdread.h"

static int infile_open(const char *path, unsigned flags, char *err, size_t errlen)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK), r;

	if (fd < 0 || fstat(fd, &st) < 0) {
		r = -errno;
		if (fd >= 0)
			close(fd);
		return errmsg_set(err, errlen, r, "cannot open: %s", strerror(-r));
	}
	if (S_ISDIR(st.st_mode))
		r = errmsg_set(err, errlen, -EISDIR, "is a directory");
	else if (!S_ISREG(st.st_mode) && !((flags & INFILE_STREAM) && S_ISFIFO(st.st_mode)))
		r = errmsg_set(err, errlen, -EINVAL, "not a regular file");
	/* A pipe is read blocking to its end (a FIFO with no writer reads as empty at once). */
	else if (S_ISFIFO(st.st_mode) && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0)
		r = errmsg_set(err, errlen, -errno, "cannot read: %s", strerror(errno));
	else
		return fd;
	close(fd);
	return r;
}

int infile_read(const char *path, size_t max, unsigned flags, char **ret, size_t *ret_len, char *err, size_t errlen)
{
	bool is_stdin = (flags & INFILE_STDIN) && strcmp(path, "-") == 0;
	struct stat st;
	int fd, r;

	fd = is_stdin ? STDIN_FILENO : infile_open(path, flags, err, errlen);
	if (fd < 0)
		return fd;
	/* A regular file is read into one buffer of its size: no copies while growing. */
	r = fdread_all(fd, max, fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? (size_t)st.st_size : 0, ret, ret_len);
	if (r == -EFBIG && max >= (1u << 20))
		errmsg_set(err, errlen, r, "larger than %zu MiB", max >> 20);
	else if (r == -EFBIG)
		errmsg_set(err, errlen, r, "larger than %zu bytes", max);
	else if (r < 0)
		errmsg_set(err, errlen, r, "%s%s", r == -ENOMEM ? "" : "cannot read: ",
			   r == -ENOMEM ? "out of memory" : strerror(-r));
	if (!is_stdin)
		close(fd);
	return r;
}

const char *infile_name(const char *path)
{
	return strcmp(path, "-") == 0 ? "stdin" : path;
}

int infile_read_input(const char *path, size_t max, const char *kind, char **ret, size_t *ret_len, char *err,
		      size_t errlen)
{
	int r = infile_read(path, max, INFILE_STDIN | INFILE_STREAM, ret, ret_len, err, errlen);
	size_t n = err ? strnlen(err, errlen) : 0;

	if ((r == -EISDIR || r == -EFBIG) && n < errlen)
		snprintf(err + n, errlen - n, r == -EISDIR ? ", not a %s file" : ": not a %s this command reads", kind);
	return r;
}
