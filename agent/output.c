/* output.c - a command's report on stdout: its JSON text or its human text, flushed; one message per failure; fds 0-2 made safe. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/output.h"

int output_json(const char *prog, const char *who, char *text)
{
	if (!text) {
		fprintf(stderr, "%s: %sout of memory while rendering JSON\n", prog, who);
		return -ENOMEM;
	}
	fputs(text, stdout);
	free(text);
	return 0;
}

int output_flush(const char *prog, const char *who)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: %swriting the report failed: %s\n", prog, who, strerror(errno));
		return -EIO;
	}
	return 0;
}

int output_guard_fds(void)
{
	int stdout_closed = fcntl(STDOUT_FILENO, F_GETFD) < 0;

	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) >= 0)
			continue;
		int n = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);

		if (n < 0)
			return -1;
		if (n != fd) {
			dup2(n, fd);
			close(n);
		}
	}
	return stdout_closed;
}
