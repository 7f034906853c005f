/* main.c - tcpxo-agent entry point: make fds 0-2 safe, parse the command line and dispatch. */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

#include "agent/cli.h"
#include "agent/cmd.h"

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

/* Parse and dispatch. @stdout_closed: stdout was closed at start (reports have nowhere to go). */
static int main_dispatch(int argc, char **argv, bool stdout_closed)
{
	struct cli_options opt;
	int r;

	r = cli_parse(argc, argv, &opt);
	if (r < 0)
		return EXIT_UNKNOWN;
	if (r > 0)
		return stdout_closed ? EXIT_UNKNOWN : 0;
	if (stdout_closed && opt.cmd != CLI_CMD_DAEMON) {
		fprintf(stderr, "tcpxo-agent: standard output is closed: nowhere to write the report\n");
		return EXIT_UNKNOWN;
	}
	switch (opt.cmd) {
	case CLI_CMD_ONCE: return cmd_once(&opt);
	case CLI_CMD_DAEMON: return cmd_daemon(&opt);
	case CLI_CMD_INTERFACES: return cmd_interfaces(&opt);
	case CLI_CMD_HEALTH: return cmd_health(&opt);
	case CLI_CMD_CLEANUP: return cmd_cleanup(&opt);
	case CLI_CMD_WORKLOADS: return cmd_workloads(&opt);
	case CLI_CMD_RUNTIME: return cmd_runtime(&opt);
	case CLI_CMD_STATUS: return cmd_status(&opt);
	case CLI_CMD_HELP:
	case CLI_CMD_VERSION:
	case CLI_CMD__COUNT:
		break;          /* printed by cli_parse() */
	}
	return EXIT_UNKNOWN;
}

int main(int argc, char **argv)
{
	int closed = main_guard_fds();

	if (closed < 0)
		return EXIT_UNKNOWN;
	return main_dispatch(argc, argv, closed > 0);
}
