/* main.c - tcpxo-agent entry point: make fds 0-2 safe, parse the command line and dispatch. */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "agent/cli.h"

/*
 * A closed stdin/stdout/stderr would be taken by the next open() (a sysfs file, a socket) and
 * the report written into it. Put /dev/null there instead, and refuse to report into the void.
 */
static int main_guard_fds(void)
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

int main(int argc, char **argv)
{
	int closed = main_guard_fds();

	if (closed < 0)
		return EXIT_UNKNOWN;
	return cli_main_fds(argc, argv, closed > 0);
}
