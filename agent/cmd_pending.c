/* cmd_pending.c - commands this version does not have yet: say so and exit 2 (unknown). */
#include <stdio.h>

#include "agent/cli.h"

static int cmd_pending(const char *what)
{
	fprintf(stderr, "tcpxo-agent: %s is not available in this version (%s); use --once\n", what, TCPXO_VERSION);
	return EXIT_UNKNOWN;
}

int cmd_daemon(const struct cli_options *opt)
{
	return cmd_pending("the daemon mode");
}

int cmd_health(const struct cli_options *opt)
{
	return cmd_pending("the health command");
}

int cmd_cleanup(const struct cli_options *opt)
{
	return cmd_pending("--cleanup");
}
