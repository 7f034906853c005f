/* infile.c - read a whole input file named on the command line, bounded, never blocking on a FIFO. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/infile.h"

static int infile_open(const char *path, unsigned flags, struct strbuf *err)
{
	struct stat st;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		int r = -errno;

		strbuf_appendf(err, "cannot open: %s", strerror(-r));
		return r;
	}
	if (fstat(fd, &st) < 0) {
		int r = -errno;

		strbuf_appendf(err, "cannot open: %s", strerror(-r));
		close(fd);
		return r;
	}
	if (S_ISDIR(st.st_mode)) {
		strbuf_append(err, "is a directory");
		close(fd);
		return -EISDIR;
	}
	if (!S_ISREG(st.st_mode) && !((flags & INFILE_STREAM) && S_ISFIFO(st.st_mode))) {
		strbuf_append(err, "not a regular file");
		close(fd);
		return -EINVAL;
	}
	/* A pipe is read blocking to its end (a FIFO with no writer reads as empty at once). */
	if (S_ISFIFO(st.st_mode) && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0) {
		int r = -errno;

		strbuf_appendf(err, "cannot read: %s", strerror(-r));
		close(fd);
		return r;
	}
	return fd;
}

int infile_read(const char *path, size_t max, unsigned flags, char **ret, size_t *ret_len, struct strbuf *err)
{
	bool is_stdin = (flags & INFILE_STDIN) && strcmp(path, "-") == 0;
	size_t len = 0, cap = 64 << 10;
	struct stat st;
	char *buf = NULL;
	int fd, r;

	fd = is_stdin ? STDIN_FILENO : infile_open(path, flags, err);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		if ((size_t)st.st_size > max) {
			r = -EFBIG;
			goto too_big;
		}
		/* A regular file is read into one buffer of its size: no copies while growing. */
		if (st.st_size > 0)
			cap = (size_t)st.st_size + 1;
	}
	if (cap > max + 1)
		cap = max + 1;
	for (;;) {
		ssize_t n;

		if (len == cap || !buf) {
			char *nb;

			if (buf)
				cap = cap * 2 > max + 1 ? max + 1 : cap * 2;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				r = -ENOMEM;
				strbuf_append(err, "out of memory");
				goto out;
			}
			buf = nb;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			strbuf_appendf(err, "cannot read: %s", strerror(-r));
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > max) {
			r = -EFBIG;
			goto too_big;
		}
	}
	buf[len] = '\0';
	*ret = buf;
	*ret_len = len;
	buf = NULL;
	r = 0;
	goto out;
too_big:
	if (max >= (1u << 20))
		strbuf_appendf(err, "larger than %zu MiB", max >> 20);
	else
		strbuf_appendf(err, "larger than %zu bytes", max);
out:
	free(buf);
	if (!is_stdin)
		close(fd);
	return r;
}
