/* fdread.c - the one bounded reader: a file descriptor to its end, never past a limit. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "probes/model/fdread.h"

int fdread_fill(int fd, char *buf, size_t size, size_t known, size_t *ret_len)
{
	size_t len = 0;
	int r = 0;

	while (len < size && (known == 0 || len < known)) {
		ssize_t n = read(fd, buf + len, size - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = n < 0 ? -errno : 0;
			break;
		}
		len += (size_t)n;
	}
	*ret_len = len;
	return r;
}

int fdread_all(int fd, size_t max, size_t hint, char **ret, size_t *ret_len)
{
	size_t len = 0, cap = hint ? hint + 1 : 64u << 10, n;
	char *buf = NULL, *nb;
	int r;

	if (hint > max)
		return -EFBIG;
	if (cap > max + 1)
		cap = max + 1;
	for (;;) {
		/* One byte past @max is room enough to hear that there is more. */
		if (!(nb = realloc(buf, cap + 1))) {
			r = -ENOMEM;
			break;
		}
		buf = nb;
		r = fdread_fill(fd, buf + len, cap - len, 0, &n);
		len += n;
		if (r < 0 || len < cap)
			break;
		if (len > max) {
			r = -EFBIG;
			break;
		}
		cap = cap * 2 > max + 1 ? max + 1 : cap * 2;
	}
	if (r < 0) {
		free(buf);
		return r;
	}
	buf[len] = '\0';
	*ret = buf;
	*ret_len = len;
	return 0;
}
